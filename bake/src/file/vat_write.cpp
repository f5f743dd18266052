// The .vat.glb writer (docs/format.md is the specification; vat_file.cpp in the runtime reads it).
//
// validate_vat first, so that nothing inconsistent (or non-finite, which JSON cannot hold) is
// ever stored; then glb::Writer lays out the rest-pose mesh, materials, images and the planes
// (16-byte-aligned views), and the checksum is patched into the finished bytes.
#include "vatkit/vat_write.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "file/checksum.h"
#include "file/glb_writer.h"
#include "file/vat_format.h"
#include "util/printable.h"

namespace vatkit {
namespace {

using nlohmann::json;
using namespace vat_format;

// ---- writing -------------------------------------------------------------------------------

json bounds_json(const Bounds& b) {
  return {{"min", glb::json_array(b.min)}, {"max", glb::json_array(b.max)}};
}

json clip_json(const VatClip& c) {
  json out = {{"name", c.name},
          {"sourceAnimation", c.source_animation},
          {"firstRow", c.first_row},
          {"rows", c.rows},
          {"fps", glb::json_number(c.fps)},
          {"duration", glb::json_number(c.duration_s)},
          {"loopMode", loop_name(c.defaults.loop_mode)},
          {"repetitions", c.defaults.repetitions},
          {"endMode", end_name(c.defaults.end_mode)},
          {"speed", glb::json_number(c.defaults.speed)},
          {"maxDelta", glb::json_number(c.max_delta)},
          {"bounds", bounds_json(c.bounds)},
          {"deltaRange", bounds_json(c.delta_range)},
          {"translationRange", bounds_json(c.translation_range)},
          {"scaleRange", {glb::json_number(c.scale_min), glb::json_number(c.scale_max)}}};
  if (c.accuracy) {
    json error = json::object();
    for (const auto& [value, key] : accuracy_fields(*c.accuracy)) error[key] = glb::json_number(*value);
    out["error"] = std::move(error);
  }
  return out;
}

json material_json(const Material& m) {
  json pbr = {{"baseColorFactor", glb::json_array(m.base_color_factor)}, {"metallicFactor", 0}};
  if (m.base_color_image >= 0) {
    json texture = {{"index", m.base_color_image}};  // texture i shows image i
    if (m.base_color_texcoord != 0) texture["texCoord"] = m.base_color_texcoord;
    pbr["baseColorTexture"] = std::move(texture);
  }
  json out = {{"pbrMetallicRoughness", std::move(pbr)}};
  if (!m.name.empty()) out["name"] = m.name;
  if (m.alpha_mode != AlphaMode::Opaque) out["alphaMode"] = alpha_name(m.alpha_mode);
  if (m.alpha_mode == AlphaMode::Mask) out["alphaCutoff"] = glb::json_number(m.alpha_cutoff);
  if (m.double_sided) out["doubleSided"] = true;
  return out;
}

// An upper bound of the BIN data's size, to refuse a Vat too large for a GLB before copying it.
uint64_t bin_bound(const Vat& vat) {
  uint64_t bytes = 0;
  for (int i = 0; i < kAttrCount; ++i) {
    bytes += uint64_t(attr_count(vat.geometry, Attr(i))) * kAttrs[i].element_bytes + 4;
  }
  bytes += uint64_t(vat.geometry.indices.size()) * 4 + 4;
  for (const LodLevel& lod : vat.geometry.lods) bytes += uint64_t(lod.indices.size()) * 4 + 4;
  for (const Image& image : vat.images) bytes += image.bytes.size() + 4;
  for (const Plane& p : vat.planes) bytes += p.data.size() + kPlaneAlignment;
  return bytes;
}

// The file in pieces (glb::Writer::parts), sealed with its checksum: the planes, indices and
// images are borrowed from `vat`, the rest is held by `w` (4-byte default alignment).
glb::Writer::Parts write_unchecked(const Vat& vat, glb::Writer& w) {
  if (const uint64_t bound = bin_bound(vat); bound > std::numeric_limits<uint32_t>::max()) {
    fail("file", "would hold " + num(bound) + " bytes of data, a GLB holds at most 4 GiB");
  }
  w.json()["asset"]["generator"] = "vatkit";
  const VatGeometry& g = vat.geometry;

  // The rest-pose mesh: one vertex stream shared by every primitive, one primitive per draw group.
  json attributes = json::object();
  for (int i = 0; i < kAttrCount; ++i) {
    const Attr a = static_cast<Attr>(i);
    if (attr_count(g, a) == 0) continue;
    glb::AccessorOptions options;
    options.target = glb::Target::ArrayBuffer;
    options.min_max = a == Attr::Position;  // the glTF spec requires POSITION bounds
    attributes[info(a).gltf] =
        with_attr(g, a, [&](const auto& values) { return w.add_accessor(values, options); });
  }
  glb::ViewOptions index_view;
  index_view.target = glb::Target::ElementArrayBuffer;
  index_view.borrow = true;
  const uint32_t indices = w.add_buffer_view(
      {reinterpret_cast<const uint8_t*>(g.indices.data()), g.indices.size() * 4}, index_view);
  json primitives = json::array();
  for (const DrawGroup& group : g.groups) {
    if (group.index_count == 0) continue;
    glb::AccessorDesc desc;
    desc.buffer_view = indices;
    desc.byte_offset = group.first_index * 4;
    desc.component = ComponentType::UInt32;
    desc.count = group.index_count;
    json primitive = {{"attributes", attributes}, {"indices", w.add_accessor(desc)}};
    if (group.material >= 0) primitive["material"] = group.material;
    primitives.push_back(std::move(primitive));
  }
  const uint32_t mesh = w.append("meshes", {{"name", "vat"}, {"primitives", std::move(primitives)}});
  w.append("nodes", {{"mesh", mesh}, {"name", "vat"}});
  w.append("scenes", {{"nodes", {0}}});
  w.json()["scene"] = 0;

  for (const Material& m : vat.materials) w.append("materials", material_json(m));
  for (size_t i = 0; i < vat.images.size(); ++i) {
    const Image& image = vat.images[i];
    json object = {{"bufferView", w.add_buffer_view(image.bytes, {.borrow = true})}, {"mimeType", image.mime_type}};
    if (!image.name.empty()) object["name"] = image.name;
    w.append("images", std::move(object));
    w.append("textures", {{"source", i}});
  }

  json ext = {{"version", kVatFormatVersion},
              {"encoding", to_string(vat.encoding)},
              {"precision", to_string(vat.precision)},
              {"frameRows", vat.frame_rows},
              {"mesh", mesh},
              {"bounds", bounds_json(vat.bounds)},
              {"clips", json::array()},
              {"slots", json::array()},
              {"planes", json::array()},
              {"sources", json::array()},
              {"checksum", std::string(vat_file_detail::kChecksumDigits, '0')}};
  for (const VatClip& c : vat.clips) ext["clips"].push_back(clip_json(c));
  for (const VatSlot& s : vat.slots) {
    ext["slots"].push_back({{"name", s.name},
                            {"node", s.node},
                            {"inverseBind", glb::json_array(std::span<const float>(
                                                &s.inverse_bind[0][0], 16))}});
  }
  for (const Plane& p : vat.planes) {
    glb::ViewOptions view;
    view.alignment = kPlaneAlignment;
    view.borrow = true;
    ext["planes"].push_back({{"semantic", to_string(p.semantic)},
                             {"format", to_string(p.format)},
                             {"texelsPerFrame", p.texels_per_frame},
                             {"width", p.width},
                             {"rowsPerFrame", p.rows_per_frame},
                             {"height", p.height},
                             {"bufferView", w.add_buffer_view(p.data, view)}});
  }
  // Levels of detail after the planes (a Vat without them writes the bytes it always did). A
  // level's groups follow the primitives: a draw group that is not stored has no entry.
  if (!g.lods.empty()) {
    ext["lods"] = json::array();
    for (const LodLevel& lod : g.lods) {
      json groups = json::array();
      for (size_t i = 0; i < g.groups.size(); ++i) {
        if (g.groups[i].index_count == 0) continue;
        groups.push_back({{"firstIndex", lod.groups[i].first_index}, {"indexCount", lod.groups[i].index_count}});
      }
      const uint32_t view = w.add_buffer_view(
          {reinterpret_cast<const uint8_t*>(lod.indices.data()), lod.indices.size() * 4}, {.borrow = true});
      ext["lods"].push_back({{"indices", view},
                             {"groups", std::move(groups)},
                             {"error", glb::json_number(lod.error)},
                             {"errorInMotion", glb::json_number(lod.error_in_motion)},
                             {"screenSize", glb::json_number(lod.screen_size)}});
    }
  }
  for (const SourceRange& s : g.sources) {
    ext["sources"].push_back({{"node", s.node},
                              {"mesh", s.mesh},
                              {"primitive", s.primitive},
                              {"firstVertex", s.first_vertex},
                              {"vertexCount", s.vertex_count},
                              {"sourceVertexCount", s.source_vertex_count}});
  }
  w.json()["extensions"][kVatExtensionName] = std::move(ext);
  w.use_extension(kVatExtensionName, /*required=*/false);

  // The GLB length field is 32 bits. The JSON is measured as finish() will write it (plus the
  // buffers entry and padding, well under 256 bytes).
  const size_t json_bytes = w.json().dump(-1, ' ', false, json::error_handler_t::replace).size();
  if (w.bin_size() + json_bytes + 256 > std::numeric_limits<uint32_t>::max()) {
    fail("file", "would be " + num(uint64_t(w.bin_size() + json_bytes)) +
                     " bytes, a GLB holds at most 4 GiB");
  }
  glb::Writer::Parts parts = w.parts();
  const bool sealed = vat_file_detail::seal_checksum(parts.head, parts.json_chunk(), parts.body);
  assert(sealed);
  (void)sealed;
  return parts;
}

}  // namespace

namespace {

// check_vat, then write_unchecked; errors name vat.source.
Result<glb::Writer::Parts> checked_parts(const Vat& vat, glb::Writer& w) {
  try {
    check_vat(vat);
    return write_unchecked(vat, w);
  } catch (const Failure& f) {
    return make_error(vat.source, printable(f.message));
  }
}

}  // namespace

Result<std::vector<uint8_t>> write_vat_glb(const Vat& vat) {
  glb::Writer w(4);
  Result<glb::Writer::Parts> parts = checked_parts(vat, w);
  if (!parts) return parts.error();
  return parts->join();
}

Result<void> write_vat(const Vat& vat, OutputFile& out, const std::string& name) {
  // Written from the Vat's own planes, never joined into one buffer: a large bake's file costs
  // no second copy of its planes in memory.
  glb::Writer w(4);
  Result<glb::Writer::Parts> parts = checked_parts(vat, w);
  if (!parts) {
    // Name the destination as well as the Vat: the caller was saving to `name`.
    return make_error(name, "not written: " + parts.error().message);
  }
  if (Result<void> r = out.write(parts->head); !r) return r;
  for (const std::span<const uint8_t>& piece : parts->body) {
    if (Result<void> r = out.write(piece); !r) return r;
  }
  return {};
}

Result<void> save_vat(const Vat& vat, const std::filesystem::path& path) {
  Result<OutputFile> out = OutputFile::create(path);
  if (!out) return out.error();
  if (Result<void> r = write_vat(vat, *out, path.string()); !r) return r;
  return out->commit();
}

}  // namespace vatkit

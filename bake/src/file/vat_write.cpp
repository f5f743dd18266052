// The .vat.glb writer (docs/format.md is the specification; vat_read.cpp in the runtime reads it).
//
// validate_vat first, so that nothing inconsistent (or non-finite, which JSON cannot hold) is
// ever stored; then glb::Writer lays out the rest-pose mesh, materials, images and the planes
// (16-byte-aligned views), and the checksum is patched into the finished bytes. The extension's
// properties are written from the tables of vat_schema.h, which the reader reads with.
#include "vatkit/vat_write.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "file/checksum.h"
#include "file/glb_writer.h"
#include "file/gltf_materials.h"
#include "file/vat_format.h"
#include "file/vat_schema.h"
#include "util/printable.h"

namespace vatkit {
namespace {

using nlohmann::json;
using namespace vat_format;

// ---- writing -------------------------------------------------------------------------------

json material_json(const Material& m) {
  json pbr = write_fields(kPbrFields, m);
  pbr[key::kMetallicFactor] = 0;
  if (m.base_color_image >= 0) {
    json texture = write_fields(kTextureInfoFields, m);
    texture[key::kTextureIndex] = m.base_color_image;  // texture i shows image i
    pbr[key::kBaseColorTexture] = std::move(texture);
  }
  json out = write_fields(kMaterialFields, m);
  out[key::kPbr] = std::move(pbr);
  return out;
}

// The levels of detail, their index views added to `w`. A level's groups follow the primitives:
// a draw group that is not stored has no entry.
json lods_json(const VatGeometry& g, glb::Writer& w) {
  json lods = json::array();
  for (const LodLevel& lod : g.lods) {
    json groups = json::array();
    for (size_t i = 0; i < g.groups.size(); ++i) {
      if (g.groups[i].index_count == 0) continue;
      groups.push_back(write_fields(kLodGroupFields, lod.groups[i]));
    }
    json level = write_fields(kLodFields, lod);
    level[key::kIndices] = w.add_buffer_view(
        {reinterpret_cast<const uint8_t*>(lod.indices.data()), lod.indices.size() * 4}, {.borrow = true});
    level[key::kGroups] = std::move(groups);
    lods.push_back(std::move(level));
  }
  return lods;
}

// An upper bound of the BIN data's size, to refuse a Vat too large for a GLB before copying it.
uint64_t bin_bound(const Vat& vat) {
  uint64_t bytes = 0;
  for (int i = 0; i < kAttrCount; ++i) {
    bytes += uint64_t(attr_count(vat.geometry, Attr(i))) * kAttrs[i].element_bytes + 4;
  }
  bytes += uint64_t(vat.geometry.vertex_count()) * 4 + 4;  // _VAT_VERTEX (delta)
  bytes += uint64_t(vat.geometry.indices.size()) * 4 + 4;
  for (const LodLevel& lod : vat.geometry.lods) bytes += uint64_t(lod.indices.size()) * 4 + 4;
  for (const Image& image : vat.images) bytes += image.bytes.size() + 4;
  for (const Plane& p : vat.planes) bytes += p.data.size() + kPlaneAlignment;
  return bytes;
}

// The rest-pose mesh: one vertex stream shared by every primitive, one primitive per draw group;
// returns its index. A delta Vat's vertices carry their texel addresses (format version 3), after
// the other attributes.
uint32_t write_mesh(const Vat& vat, glb::Writer& w) {
  const VatGeometry& g = vat.geometry;
  json attributes = json::object();
  glb::AccessorOptions options;
  options.target = glb::Target::ArrayBuffer;
  for (int i = 0; i < kAttrCount; ++i) {
    const Attr a = static_cast<Attr>(i);
    if (attr_count(g, a) == 0) continue;
    options.min_max = a == Attr::Position;  // the glTF spec requires POSITION bounds
    attributes[info(a).gltf] = with_attr(g, a, [&](const auto& values) { return w.add_accessor(values, options); });
  }
  options.min_max = false;
  if (const std::vector<float> addresses = texel_addresses(vat); !addresses.empty()) {
    attributes[kVatVertexAttribute] = w.add_accessor(std::span<const float>(addresses), options);
  }
  glb::ViewOptions index_view;
  index_view.target = glb::Target::ElementArrayBuffer;
  index_view.borrow = true;
  const uint32_t indices =
      w.add_buffer_view({reinterpret_cast<const uint8_t*>(g.indices.data()), g.indices.size() * 4}, index_view);
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
  return w.append("meshes", {{"name", "vat"}, {"primitives", std::move(primitives)}});
}

// The extension object; the planes' (and levels') views are added to `w`.
json extension_json(const Vat& vat, uint32_t mesh, glb::Writer& w) {
  const VatGeometry& g = vat.geometry;
  json ext = write_fields(kHeaderFields, vat);
  ext[key::kVersion] = kVatFormatVersion;
  ext[key::kMesh] = mesh;
  if (vat.encoding == Encoding::Delta) ext[key::kVertexAddress] = kVatVertexAttribute;
  ext[key::kChecksum] = std::string(vat_file_detail::kChecksumDigits, '0');
  ext[key::kClips] = json::array();
  for (const VatClip& c : vat.clips) ext[key::kClips].push_back(Codec<VatClip>::write(c));
  ext[key::kSlots] = json::array();
  for (const VatSlot& s : vat.slots) ext[key::kSlots].push_back(Codec<VatSlot>::write(s));
  ext[key::kPlanes] = json::array();
  for (const Plane& p : vat.planes) {
    glb::ViewOptions view;
    view.alignment = kPlaneAlignment;
    view.borrow = true;
    json plane = write_fields(kPlaneFields, p);
    plane[key::kBufferView] = w.add_buffer_view(p.data, view);
    ext[key::kPlanes].push_back(std::move(plane));
  }
  // Levels of detail after the planes (a Vat without them writes the bytes it always did).
  if (!g.lods.empty()) ext[key::kLods] = lods_json(g, w);
  ext[key::kSources] = json::array();
  for (const SourceRange& s : g.sources) ext[key::kSources].push_back(Codec<SourceRange>::write(s));
  return ext;
}

// The file in pieces (glb::Writer::parts), sealed with its checksum: the planes, indices and
// images are borrowed from `vat`, the rest is held by `w` (4-byte default alignment).
glb::Writer::Parts write_unchecked(const Vat& vat, glb::Writer& w) {
  if (const uint64_t bound = bin_bound(vat); bound > std::numeric_limits<uint32_t>::max()) {
    fail("file", "would hold " + num(bound) + " bytes of data, a GLB holds at most 4 GiB");
  }
  if (vat.encoding == Encoding::Delta && vat.geometry.vertex_count() > kVatMaxAddressedVertices) {
    fail("geometry", num(vat.geometry.vertex_count()) + " vertices, a delta file addresses at most 2^24 (" +
                         std::string(kVatVertexAttribute) + " is a float)");
  }
  w.json()["asset"]["generator"] = "vatkit";
  const uint32_t mesh = write_mesh(vat, w);
  w.append("nodes", {{"mesh", mesh}, {"name", "vat"}});
  w.append("scenes", {{"nodes", {0}}});
  w.json()["scene"] = 0;

  write_gltf_materials(vat.materials, vat.images, w);
  w.json()["extensions"][kVatExtensionName] = extension_json(vat, mesh, w);
  w.use_extension(kVatExtensionName, /*required=*/false);

  // The GLB length field is 32 bits. The JSON is measured as finish() will write it (plus the
  // buffers entry and padding, well under 256 bytes).
  const size_t json_bytes = w.json().dump(-1, ' ', false, json::error_handler_t::replace).size();
  if (w.bin_size() + json_bytes + 256 > std::numeric_limits<uint32_t>::max()) {
    fail("file", "would be " + num(uint64_t(w.bin_size() + json_bytes)) + " bytes, a GLB holds at most 4 GiB");
  }
  glb::Writer::Parts parts = w.parts();
  const bool sealed = vat_file_detail::seal_checksum(parts.head, parts.json_chunk(), parts.body);
  assert(sealed);
  (void)sealed;
  return parts;
}

// check_vat, then write_unchecked; errors name vat.source.
Result<glb::Writer::Parts> checked_parts(const Vat& vat, glb::Writer& w) {
  try {
    check_vat(vat);
    return write_unchecked(vat, w);
  } catch (const Failure& f) {
    return make_error(f.code, vat.source, printable(f.message));
  }
}

}  // namespace

void write_gltf_materials(const std::vector<Material>& materials, const std::vector<Image>& images, glb::Writer& w) {
  for (const Material& m : materials) w.append("materials", material_json(m));
  for (size_t i = 0; i < images.size(); ++i) {
    const Image& image = images[i];
    json object = write_fields(kImageFields, image);
    object[key::kBufferView] = w.add_buffer_view(image.bytes, {.borrow = true});
    w.append("images", std::move(object));
    w.append("textures", {{"source", i}});
  }
}

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
    return make_error(parts.error().code, name, "not written: " + parts.error().message);
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

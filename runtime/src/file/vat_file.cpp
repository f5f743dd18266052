// Reading and validating the .vat.glb file (docs/format.md is the specification; the baker's
// vat_write.cpp writes it).
//
// Loading: container, then checksum, then the JSON. Hashing before parsing means a corrupted
// file is named as such ("checksum mismatch") instead of by whatever symptom the corruption
// produced, and nothing interprets a byte that has not been vouched for. The JSON is then read
// strictly (exact types, exact accessor layouts, every index and range), and the planes are
// spans into the caller's bytes.
//
// Validation failures deep inside the reader throw a private exception carrying the one-line
// message; the public functions catch it and return it as an Error. That keeps each check to one
// line without threading a Result through every helper; no exception crosses the API.
#include "vatkit/vat_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "file/checksum.h"
#include "file/glb.h"
#include "file/material_rules.h"
#include "file/vat_format.h"
#include "platform/memory.h"
#include "util/json_depth.h"
#include "util/printable.h"
#include "vatkit/file_io.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace vatkit {
namespace {

using nlohmann::json;
using namespace vat_format;
static_assert(std::endian::native == std::endian::little, "the GLB container is little-endian");

// ---- consistency checks (shared by validate_vat and the loader) ------------------------------
// `where` names the object the way the caller's user sees it: "clips[2]" for a Vat,
// "extensions.VATKIT_vertex_animation.clips[2]" for a file.

void check_finite(float v, const std::string& where) {
  if (!std::isfinite(v)) fail(where, "not a finite number");
}
void check_finite(const glm::vec3& v, const std::string& where) {
  for (int c = 0; c < 3; ++c) check_finite(v[c], where);
}
void check_bounds(const Bounds& b, const std::string& where) {
  check_finite(b.min, where + ".min");
  check_finite(b.max, where + ".max");
}


// The versions this vatkit reads, for messages.
std::string readable_versions() {
  return "this vatkit reads versions " + std::to_string(kVatOldestFormatVersion) + " to " +
         std::to_string(kVatFormatVersion);
}
bool readable_version(uint64_t v) { return v >= kVatOldestFormatVersion && v <= kVatFormatVersion; }

void check_clip(const VatClip& c, uint32_t frame_rows, const std::string& where) {
  if (c.rows < 1) fail(where + ".rows", "0, a clip has at least one row");
  if (uint64_t(c.first_row) + c.rows > frame_rows) {
    fail(where, "band firstRow " + num(c.first_row) + " + rows " + num(c.rows) +
                    " runs past frameRows " + num(frame_rows));
  }
  if (c.source_animation < -1) fail(where + ".sourceAnimation", num(c.source_animation) + " < -1");
  check_finite(c.fps, where + ".fps");
  if (c.fps < 0) fail(where + ".fps", num(c.fps) + " is negative");
  check_finite(c.duration_s, where + ".duration");
  if (c.duration_s < 0) fail(where + ".duration", num(c.duration_s) + " is negative");
  if (c.defaults.loop_mode != LoopMode::Repeat && c.defaults.loop_mode != LoopMode::Once &&
      c.defaults.loop_mode != LoopMode::PingPong) {
    fail(where + ".loopMode", "unknown loop mode " + num(uint32_t(c.defaults.loop_mode)));
  }
  if (c.defaults.end_mode != EndMode::Clamp && c.defaults.end_mode != EndMode::Rewind) {
    fail(where + ".endMode", "unknown end mode " + num(uint32_t(c.defaults.end_mode)));
  }
  if (c.defaults.repetitions < kInfiniteRepetitions) {
    fail(where + ".repetitions", num(c.defaults.repetitions) + " < -1");
  }
  check_finite(c.defaults.speed, where + ".speed");
  if (c.defaults.speed < 0) fail(where + ".speed", num(c.defaults.speed) + " is negative");
  check_finite(c.max_delta, where + ".maxDelta");
  check_bounds(c.bounds, where + ".bounds");
  check_bounds(c.delta_range, where + ".deltaRange");
  check_bounds(c.translation_range, where + ".translationRange");
  check_finite(c.scale_min, where + ".scaleRange[0]");
  check_finite(c.scale_max, where + ".scaleRange[1]");
  if (c.accuracy) {
    for (const auto& [value, key] : accuracy_fields(*c.accuracy)) {
      const std::string w = where + ".error." + key;
      check_finite(*value, w);
      if (*value < 0) fail(w, num(*value) + " is negative");
    }
  }
}

// The clips' bands do not share frame rows (each row belongs to one clip, as clip_of_row
// assumes): their rows add up to at most frameRows, so the work of measuring or summing over
// every clip's rows is bounded by the planes' size. `where` names the clip list.
void check_bands(const std::vector<VatClip>& clips, const std::string& where) {
  std::vector<uint32_t> order(clips.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return clips[a].first_row < clips[b].first_row; });
  for (size_t k = 1; k < order.size(); ++k) {
    const VatClip& before = clips[order[k - 1]];
    const VatClip& c = clips[order[k]];
    if (c.first_row < uint64_t(before.first_row) + before.rows) {
      fail(where + "[" + std::to_string(order[k]) + "]",
           "band firstRow " + num(c.first_row) + " + rows " + num(c.rows) + " overlaps the band of " + where + "[" +
               std::to_string(order[k - 1]) + "] (firstRow " + num(before.first_row) + " + rows " +
               num(before.rows) + "): a frame row belongs to one clip");
    }
  }
}

// A VAT's precision decides every plane's texel format (vat.h, Precision).
TexelFormat format_of(Precision p) {
  switch (p) {
    case Precision::F32: return TexelFormat::RGBA32F;
    case Precision::F16: return TexelFormat::RGBA16F;
    case Precision::Q16: return TexelFormat::RGBA16Unorm;
  }
  return TexelFormat::RGBA32F;
}

// Which planes an encoding and precision carry: delta needs position (and at q16 keeps its
// normal in position.w, so a normal plane would be ambiguous); rig needs slots.
void check_plane_set(const bool (&seen)[4], Encoding encoding, Precision precision,
                     const std::string& where) {
  if (encoding == Encoding::Delta && !seen[int(PlaneSemantic::Position)]) {
    fail(where, "no position plane, the delta encoding needs one");
  }
  if (encoding == Encoding::Delta && precision == Precision::Q16 && seen[int(PlaneSemantic::Normal)]) {
    fail(where, "a normal plane in a q16 delta VAT (its normals are in the position plane's w)");
  }
  if (encoding == Encoding::Rig && !seen[int(PlaneSemantic::Slots)]) {
    fail(where, "no slots plane, the rig encoding needs one");
  }
}

uint32_t expected_texels_per_frame(PlaneSemantic s, const Vat& vat) {
  if (s == PlaneSemantic::Slots) return static_cast<uint32_t>(2 * vat.slots.size());
  return vat.geometry.vertex_count();
}

// Dimensions only; the bytes are checked by the caller (the loader from the buffer view, so the
// message can name it).
void check_plane_shape(const Plane& p, const Vat& vat, const std::string& where) {
  if (p.semantic > PlaneSemantic::Slots) fail(where + ".semantic", "unknown plane semantic");
  if (p.format > TexelFormat::RGBA16Unorm) fail(where + ".format", "unknown texel format");
  if (p.format != format_of(vat.precision)) {
    fail(where + ".format", std::string(to_string(p.format)) + ", but precision " +
                                to_string(vat.precision) + " stores " +
                                to_string(format_of(vat.precision)));
  }
  const uint32_t expected = expected_texels_per_frame(p.semantic, vat);
  if (p.texels_per_frame != expected) {
    fail(where + ".texelsPerFrame",
         num(p.texels_per_frame) + ", expected " + num(expected) +
             (p.semantic == PlaneSemantic::Slots ? " (2 per slot)" : " (one per vertex)"));
  }
  if (p.texels_per_frame == 0) fail(where + ".texelsPerFrame", "0");
  if (p.width == 0) fail(where + ".width", "0");
  const uint64_t rows = (uint64_t(p.texels_per_frame) + p.width - 1) / p.width;
  if (p.rows_per_frame != rows) {
    fail(where + ".rowsPerFrame", num(p.rows_per_frame) + ", expected ceil(texelsPerFrame " +
                                      num(p.texels_per_frame) + " / width " + num(p.width) +
                                      ") = " + num(rows));
  }
  const uint64_t height = uint64_t(p.rows_per_frame) * vat.frame_rows;
  if (p.height != height) {
    fail(where + ".height", num(p.height) + ", expected rowsPerFrame * frameRows = " + num(height));
  }
}

uint64_t plane_bytes(const Plane& p) {
  return uint64_t(p.width) * p.height * texel_bytes(p.format);
}

void check_slot(const VatSlot& s, const std::string& where) {
  if (s.node < -1) fail(where + ".node", num(s.node) + " < -1");
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) check_finite(s.inverse_bind[c][r], where + ".inverseBind");
}

// Each source is one drawn instance of at least one vertex; the ranges are in vertex order and
// disjoint, so there are at most as many sources as vertices and what is read per source (pose,
// verify) adds up to at most the vertex count.
void check_sources(const std::vector<SourceRange>& sources, uint32_t vertex_count, const std::string& where) {
  uint64_t end = 0;  // where the previous range ends
  for (size_t i = 0; i < sources.size(); ++i) {
    const SourceRange& s = sources[i];
    const std::string w = where + "[" + std::to_string(i) + "]";
    if (s.vertex_count == 0) fail(w + ".vertexCount", "0, a source primitive has vertices");
    if (uint64_t(s.first_vertex) + s.vertex_count > vertex_count) {
      fail(w, "vertices " + num(s.first_vertex) + " + " + num(s.vertex_count) +
                  " run past the vertex count " + num(vertex_count));
    }
    if (s.first_vertex < end) {
      fail(w, "vertices " + num(s.first_vertex) + " + " + num(s.vertex_count) + " start before the end (" +
                  num(end) + ") of the source before it: ranges are disjoint and in vertex order");
    }
    end = uint64_t(s.first_vertex) + s.vertex_count;
    if (s.source_vertex_count > s.vertex_count) {
      fail(w + ".sourceVertexCount",
           num(s.source_vertex_count) + " > vertexCount " + num(s.vertex_count));
    }
  }
}

void check_material(const Material& m, size_t image_count, const std::string& where) {
  if (const auto problem = detail::material_value_problem(m)) fail(where + "." + problem->field, problem->reason);
  if (m.base_color_image < -1 || m.base_color_image >= int64_t(image_count)) {
    fail(where + ".baseColorTexture",
         "image " + num(m.base_color_image) + " is not one of the " + num(uint64_t(image_count)) +
             " images");
  }
  if (m.alpha_mode > AlphaMode::Blend) fail(where + ".alphaMode", "unknown alpha mode");
}

void check_image(const Image& image, const std::string& where) {
  if (image.mime_type != "image/png" && image.mime_type != "image/jpeg") {
    fail(where + ".mimeType", "\"" + image.mime_type + "\", expected image/png or image/jpeg");
  }
  if (image.bytes.empty()) fail(where, "no bytes");
}

// Sizes, finiteness and ranges of the geometry. `attr_where(a)` names attribute a.
template <class AttrWhere>
void check_geometry(const VatGeometry& g, size_t slot_count, Encoding encoding,
                    const AttrWhere& attr_where, const std::string& indices_where) {
  const size_t vertices = g.positions.size();
  if (vertices == 0) fail(attr_where(Attr::Position), "no vertices");
  if (vertices > std::numeric_limits<uint32_t>::max()) fail(attr_where(Attr::Position), "too many vertices");
  for (int i = 0; i < kAttrCount; ++i) {
    const Attr a = static_cast<Attr>(i);
    const size_t n = attr_count(g, a);
    if (n != 0 && n != vertices) {
      fail(attr_where(a), num(uint64_t(n)) + " elements, expected 0 or one per vertex (" +
                              num(uint64_t(vertices)) + ")");
    }
  }
  auto require_pair = [&](Attr a, Attr b) {
    if ((attr_count(g, a) == 0) != (attr_count(g, b) == 0)) {
      fail(attr_where(attr_count(g, a) == 0 ? a : b),
           std::string("missing: ") + info(a).gltf + " and " + info(b).gltf + " come together");
    }
  };
  require_pair(Attr::Slots0, Attr::Weights0);
  require_pair(Attr::Slots1, Attr::Weights1);
  if (!g.slots1.empty() && g.slots0.empty()) fail(attr_where(Attr::Slots1), "present without _VAT_SLOTS_0");
  if (encoding == Encoding::Rig) {
    for (Attr a : {Attr::BindPosition, Attr::Slots0, Attr::Weights0})
      if (attr_count(g, a) == 0) fail(attr_where(a), "missing: the rig encoding skins with it");
  }

  // Every float finite; slot indices name existing slots.
  for (int i = 0; i < kAttrCount; ++i) {
    const Attr a = static_cast<Attr>(i);
    with_attr(g, a, [&](const auto& values) {
      using T = typename std::decay_t<decltype(values)>::value_type;
      for (size_t v = 0; v < values.size(); ++v) {
        if constexpr (std::is_same_v<typename T::value_type, float>) {
          for (int c = 0; c < T::length(); ++c) {
            if (!std::isfinite(values[v][c])) {
              fail(attr_where(a), "vertex " + num(uint64_t(v)) + " is not finite");
            }
          }
        } else {
          for (int c = 0; c < T::length(); ++c) {
            if (values[v][c] >= slot_count) {
              fail(attr_where(a), "vertex " + num(uint64_t(v)) + " names slot " +
                                      num(uint32_t(values[v][c])) + ", there are " +
                                      num(uint64_t(slot_count)) + " slots");
            }
          }
        }
      }
    });
  }

  if (g.indices.size() % 3 != 0) {
    fail(indices_where, num(uint64_t(g.indices.size())) + " indices, not a triangle list");
  }
  for (size_t i = 0; i < g.indices.size(); ++i) {
    if (g.indices[i] >= vertices) {
      fail(indices_where, "index " + num(uint64_t(i)) + " is " + num(g.indices[i]) +
                              ", there are " + num(uint64_t(vertices)) + " vertices");
    }
  }
}

void check_group(const DrawGroup& group, size_t index_count, size_t material_count,
                 const std::string& where) {
  if (uint64_t(group.first_index) + group.index_count > index_count) {
    fail(where, "indices " + num(group.first_index) + " + " + num(group.index_count) +
                    " run past the " + num(uint64_t(index_count)) + " indices");
  }
  if (group.first_index % 3 != 0 || group.index_count % 3 != 0) {
    fail(where, "first index " + num(group.first_index) + " and count " + num(group.index_count) +
                    " must be multiples of 3 (triangles)");
  }
  if (group.material < -1 || group.material >= int64_t(material_count)) {
    fail(where + ".material", num(group.material) + " is not one of the " +
                                  num(uint64_t(material_count)) + " materials");
  }
}

// The levels of detail (docs/format.md, "lod"): `where` names the list ("geometry.lods" or the
// extension's "lods"). Each level is a triangle list over the same vertices with fewer triangles
// than the level before it (level 0: the geometry's indices); one group per draw group, with its
// material, inside the level's indices, empty where the draw group is; errors finite, >= 0 and
// non-decreasing, error <= errorInMotion; screen sizes finite, >= 0 and non-increasing.
void check_lods(const VatGeometry& g, const std::string& where) {
  size_t previous = g.indices.size();
  for (size_t l = 0; l < g.lods.size(); ++l) {
    const LodLevel& lod = g.lods[l];
    const std::string w = where + "[" + std::to_string(l) + "]";
    const size_t n = lod.indices.size();
    if (n % 3 != 0) fail(w + ".indices", num(uint64_t(n)) + " indices, not a triangle list");
    if (n == 0) fail(w + ".indices", "no triangles");
    if (n >= previous) {
      fail(w + ".indices", num(uint64_t(n / 3)) + " triangles, not fewer than the " + num(uint64_t(previous / 3)) +
                               " of " + (l == 0 ? std::string("the full mesh") : "level " + std::to_string(l)));
    }
    previous = n;
    for (size_t i = 0; i < n; ++i) {
      if (lod.indices[i] >= g.positions.size()) {
        fail(w + ".indices", "index " + num(uint64_t(i)) + " is " + num(lod.indices[i]) + ", there are " +
                                 num(uint64_t(g.positions.size())) + " vertices");
      }
    }
    if (lod.groups.size() != g.groups.size()) {
      fail(w + ".groups", num(uint64_t(lod.groups.size())) + " groups, expected one per draw group (" +
                              num(uint64_t(g.groups.size())) + ")");
    }
    for (size_t i = 0; i < lod.groups.size(); ++i) {
      const DrawGroup& group = lod.groups[i];
      const std::string gw = w + ".groups[" + std::to_string(i) + "]";
      if (uint64_t(group.first_index) + group.index_count > n) {
        fail(gw, "indices " + num(group.first_index) + " + " + num(group.index_count) + " run past the level's " +
                     num(uint64_t(n)) + " indices");
      }
      if (group.first_index % 3 != 0 || group.index_count % 3 != 0) {
        fail(gw, "first index " + num(group.first_index) + " and count " + num(group.index_count) +
                     " must be multiples of 3 (triangles)");
      }
      if (group.material != g.groups[i].material) {
        fail(gw + ".material", num(group.material) + ", but draw group " + std::to_string(i) + " draws material " +
                                   num(g.groups[i].material));
      }
      if (group.index_count > 0 && g.groups[i].index_count == 0) {
        fail(gw, num(group.index_count) + " indices for draw group " + std::to_string(i) + ", which has none");
      }
    }
    const LodLevel* before = l > 0 ? &g.lods[l - 1] : nullptr;
    auto check_error = [&](float v, float floor, const char* name) {
      check_finite(v, w + "." + name);
      if (v < 0.0f) fail(w + "." + name, num(v) + " is negative");
      if (v < floor) fail(w + "." + name, num(v) + " is smaller than level " + std::to_string(l) + "'s " + num(floor));
    };
    check_error(lod.error, before ? before->error : 0.0f, "error");
    check_error(lod.error_in_motion, before ? before->error_in_motion : 0.0f, "errorInMotion");
    if (lod.error_in_motion < lod.error) {
      fail(w + ".errorInMotion", num(lod.error_in_motion) + " is smaller than the error at rest " + num(lod.error));
    }
    check_finite(lod.screen_size, w + ".screenSize");
    if (lod.screen_size < 0.0f) fail(w + ".screenSize", num(lod.screen_size) + " is negative");
    if (before && lod.screen_size > before->screen_size) {
      fail(w + ".screenSize", num(lod.screen_size) + " is larger than level " + std::to_string(l) + "'s " +
                                  num(before->screen_size));
    }
  }
}

}  // namespace

namespace vat_format {

// Everything validate_vat checks, with names in the Vat's terms.
void check_vat(const Vat& vat) {
  if (vat.encoding != Encoding::Delta && vat.encoding != Encoding::Rig) fail("encoding", "unknown");
  if (vat.precision > Precision::Q16) fail("precision", "unknown");
  if (vat.frame_rows == 0) fail("frame_rows", "0, a VAT has at least one frame row");
  if (vat.clips.empty()) fail("clips", "none, a VAT has at least one clip");
  for (size_t i = 0; i < vat.clips.size(); ++i)
    check_clip(vat.clips[i], vat.frame_rows, "clips[" + std::to_string(i) + "]");
  check_bands(vat.clips, "clips");
  check_bounds(vat.bounds, "bounds");
  if (vat.encoding == Encoding::Rig && vat.slots.empty()) fail("slots", "none, the rig encoding needs slots");
  if (vat.slots.size() > kMaxVatSlots) fail("slots", num(uint64_t(vat.slots.size())) + ", at most " + num(uint64_t(kMaxVatSlots)));
  for (size_t i = 0; i < vat.slots.size(); ++i) check_slot(vat.slots[i], "slots[" + std::to_string(i) + "]");

  const VatGeometry& g = vat.geometry;
  check_geometry(g, vat.slots.size(), vat.encoding,
                 [](Attr a) { return std::string(info(a).member); }, "geometry.indices");
  bool any_triangles = false;
  for (size_t i = 0; i < g.groups.size(); ++i) {
    check_group(g.groups[i], g.indices.size(), vat.materials.size(),
                "geometry.groups[" + std::to_string(i) + "]");
    any_triangles |= g.groups[i].index_count > 0;
  }
  if (!any_triangles) fail("geometry.groups", "no draw group has triangles");
  // glTF requires the texture coordinates a drawn textured material reads (the validator's
  // MESH_PRIMITIVE_TOO_FEW_TEXCOORDS), and a VAT carries only TEXCOORD_0.
  for (size_t i = 0; i < g.groups.size(); ++i) {
    const DrawGroup& group = g.groups[i];
    if (group.index_count == 0 || group.material < 0) continue;
    const Material& m = vat.materials[size_t(group.material)];
    if (m.base_color_image < 0) continue;
    if (m.base_color_texcoord != 0) {
      fail("materials[" + std::to_string(group.material) + "].baseColorTexture.texCoord",
           num(m.base_color_texcoord) + ", but a VAT's geometry has only TEXCOORD_0");
    }
    if (g.texcoords0.empty()) {
      fail("geometry.texcoords0", "missing: geometry.groups[" + std::to_string(i) +
                                      "] draws material " + std::to_string(group.material) +
                                      ", whose base colour texture reads TEXCOORD_0");
    }
  }
  check_sources(g.sources, g.vertex_count(), "geometry.sources");
  check_lods(g, "geometry.lods");
  for (size_t i = 0; i < vat.materials.size(); ++i)
    check_material(vat.materials[i], vat.images.size(), "materials[" + std::to_string(i) + "]");
  for (size_t i = 0; i < vat.images.size(); ++i) check_image(vat.images[i], "images[" + std::to_string(i) + "]");

  if (vat.planes.empty()) fail("planes", "none");
  bool seen[4] = {};
  for (size_t i = 0; i < vat.planes.size(); ++i) {
    const Plane& p = vat.planes[i];
    const std::string where = "planes[" + std::to_string(i) + "]";
    check_plane_shape(p, vat, where);
    if (seen[int(p.semantic)]) fail(where, std::string("a second ") + to_string(p.semantic) + " plane");
    seen[int(p.semantic)] = true;
    if (p.data.size() != plane_bytes(p)) {
      fail(where + ".data", num(uint64_t(p.data.size())) + " bytes, expected width * height * " +
                                num(texel_bytes(p.format)) + " = " + num(plane_bytes(p)));
    }
  }
  check_plane_set(seen, vat.encoding, vat.precision, "planes");
}

}  // namespace vat_format

namespace {


// ---- reading -------------------------------------------------------------------------------

const json* find(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json& member(const json& object, const char* key, const std::string& where) {
  const json* value = find(object, key);
  if (!value) fail(where, std::string("missing \"") + key + "\"");
  return *value;
}

const json& as_object(const json& v, const std::string& where) {
  if (!v.is_object()) fail(where, "expected an object");
  return v;
}
const json& as_array(const json& v, const std::string& where) {
  if (!v.is_array()) fail(where, "expected an array");
  return v;
}
const std::string& as_string(const json& v, const std::string& where) {
  if (!v.is_string()) fail(where, "expected a string");
  return v.get_ref<const std::string&>();
}
bool as_bool(const json& v, const std::string& where) {
  if (!v.is_boolean()) fail(where, "expected true or false");
  return v.get<bool>();
}
uint32_t as_u32(const json& v, const std::string& where) {
  if (!v.is_number_unsigned()) fail(where, "expected an unsigned integer");
  const uint64_t x = v.get<uint64_t>();
  if (x > std::numeric_limits<uint32_t>::max()) fail(where, num(x) + " is out of range");
  return static_cast<uint32_t>(x);
}
int32_t as_i32(const json& v, const std::string& where) {
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x > uint64_t(std::numeric_limits<int32_t>::max())) fail(where, num(x) + " is out of range");
    return static_cast<int32_t>(x);
  }
  if (!v.is_number_integer()) fail(where, "expected an integer");
  const int64_t x = v.get<int64_t>();
  if (x < std::numeric_limits<int32_t>::min()) fail(where, num(x) + " is out of range");
  return static_cast<int32_t>(x);
}
float as_float(const json& v, const std::string& where) {
  if (!v.is_number()) fail(where, "expected a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::abs(d) > double(std::numeric_limits<float>::max())) {
    fail(where, "not a finite 32-bit float");
  }
  return static_cast<float>(d);
}
template <int N>
glm::vec<N, float> as_vec(const json& v, const std::string& where) {
  if (!v.is_array() || v.size() != N) fail(where, "expected an array of " + std::to_string(N) + " numbers");
  glm::vec<N, float> out;
  for (int c = 0; c < N; ++c) out[c] = as_float(v[c], where + "[" + std::to_string(c) + "]");
  return out;
}
Bounds as_bounds(const json& v, const std::string& where) {
  as_object(v, where);
  return {as_vec<3>(member(v, "min", where), where + ".min"),
          as_vec<3>(member(v, "max", where), where + ".max")};
}
template <class E, size_t N>
E as_enum(const json& v, const std::string& where, const std::pair<const char*, E> (&names)[N]) {
  const std::string& s = as_string(v, where);
  for (const auto& [name, value] : names)
    if (s == name) return value;
  std::string expected;
  for (const auto& [name, value] : names) expected += std::string(expected.empty() ? "" : ", ") + name;
  fail(where, "\"" + s + "\" is not one of " + expected);
}

std::string at(const std::string& where, size_t index) {
  return where + "[" + std::to_string(index) + "]";
}

uint32_t component_bytes(ComponentType c) {
  switch (c) {
    case ComponentType::Int8:
    case ComponentType::UInt8: return 1;
    case ComponentType::Int16:
    case ComponentType::UInt16: return 2;
    default: return 4;
  }
}

class Reader {
 public:
  Reader(std::span<const uint8_t> file, const std::string& name) : file_(file), name_(name) {}

  Vat read(std::shared_ptr<const void> keep_alive);

 private:
  struct ViewRange {
    size_t offset = 0;  // from the start of the BIN data
    size_t length = 0;
  };

  void check_container();
  void check_checksum();
  void claim(const ViewRange& range, uint32_t view_index, const std::string& who);
  void parse_json();
  ViewRange view(uint32_t index, const std::string& where);
  std::span<const uint8_t> accessor(uint32_t index, ComponentType component, const char* type,
                                    uint32_t element_bytes, const std::string& where,
                                    uint32_t* count, uint32_t* byte_offset, uint32_t* view_index);
  void read_geometry(Vat& vat, const json& ext);
  void read_materials(Vat& vat);
  void read_extension(Vat& vat, const json& ext);
  void read_lods(Vat& vat, const json& ext);
  const json& top_array(const char* key) {
    const json* v = find(doc_, key);
    static const json empty = json::array();
    if (!v) return empty;
    return as_array(*v, key);
  }

  std::span<const uint8_t> file_;
  uint32_t version_ = 0;  // the extension's format version, once read
  const std::string& name_;
  glb::Chunks chunks_;
  json doc_;
  size_t buffer_length_ = 0;
  std::string checksum_digits_;
  // The bytes of the BIN data that the objects read so far use: start -> (end, the object).
  std::map<size_t, std::pair<size_t, std::string>> claimed_;
};

void Reader::check_container() {
  Result<glb::Chunks> chunks = glb::split_glb(file_, "");
  if (!chunks) throw Failure{chunks.error().message};
  chunks_ = *chunks;
  if (chunks_.bin.empty()) fail("GLB", "no BIN chunk: a .vat.glb stores its planes there");
}

void Reader::check_checksum() {
  std::string why;
  const std::optional<size_t> digits =
      vat_file_detail::find_checksum_digits(file_, chunks_.json, &why);
  if (!digits) fail(std::string(kExt) + ".checksum", why);
  checksum_digits_.assign(reinterpret_cast<const char*>(file_.data() + *digits),
                          vat_file_detail::kChecksumDigits);
  uint64_t stored = 0;
  for (char c : checksum_digits_) {
    const bool digit = c >= '0' && c <= '9', letter = c >= 'a' && c <= 'f';
    if (!digit && !letter) {
      fail(std::string(kExt) + ".checksum", "\"" + checksum_digits_ +
                                                "\" is not 16 lowercase hex digits");
    }
    stored = stored << 4 | uint64_t(digit ? c - '0' : c - 'a' + 10);
  }
  const uint64_t actual = vat_file_detail::content_checksum(file_, *digits);
  if (actual != stored) {
    // A later format version may hash differently: name the version rather than a mismatch when
    // the (unverified) JSON says it is not ours.
    const json doc = json::parse(chunks_.json.begin(), chunks_.json.end(), nullptr, false);
    const json* version = nullptr;
    if (doc.is_object() && doc.contains("extensions") && doc["extensions"].is_object() &&
        doc["extensions"].contains(kVatExtensionName) && doc["extensions"][kVatExtensionName].is_object()) {
      version = find(doc["extensions"][kVatExtensionName], "version");
    }
    if (version && version->is_number_unsigned() && !readable_version(version->get<uint64_t>())) {
      fail(std::string(kExt) + ".version",
           num(version->get<uint64_t>()) + " is not supported (" + readable_versions() + ")");
    }
    throw Failure{"checksum mismatch: the file says " + checksum_digits_ +
                  ", its bytes hash to " + vat_file_detail::checksum_hex(actual) +
                  " (corrupted, truncated and re-padded, or edited by another tool)"};
  }
}

void Reader::parse_json() {
  const std::string_view text(reinterpret_cast<const char*>(chunks_.json.data()), chunks_.json.size());
  if (!detail::json_depth_ok(text)) fail("JSON chunk", detail::kJsonTooDeep);
  try {
    doc_ = json::parse(chunks_.json.begin(), chunks_.json.end());
  } catch (const json::exception& e) {
    fail("JSON chunk", detail::json_error_text(e.what()));
  }
  as_object(doc_, "JSON chunk");
}

// Each object's data (an attribute, the index buffer, an image, a level of detail, a plane) is
// its own bytes: no two of them overlap. Checked as each is read, before its bytes are copied,
// so that what the loader copies and scans adds up to at most the buffer's size however many
// objects the JSON lists.
void Reader::claim(const ViewRange& range, uint32_t view_index, const std::string& who) {
  const size_t end = range.offset + range.length;
  const auto next = claimed_.lower_bound(end);  // the first object starting at or after the end
  if (next != claimed_.begin()) {
    const auto& [start, before] = *std::prev(next);
    if (before.first > range.offset) {
      fail(who, at("bufferViews", view_index) + " (bytes " + num(uint64_t(range.offset)) + " + " +
                    num(uint64_t(range.length)) + ") overlaps the data of " + before.second + " (bytes " +
                    num(uint64_t(start)) + " + " + num(uint64_t(before.first - start)) +
                    "): a .vat.glb stores each object's data once");
    }
  }
  claimed_.emplace(range.offset, std::pair{end, who});
}

Reader::ViewRange Reader::view(uint32_t index, const std::string& where) {
  const json& views = top_array("bufferViews");
  const std::string self = at("bufferViews", index);
  if (index >= views.size()) fail(where, self + " does not exist");
  const json& v = as_object(views[index], self);
  if (as_u32(member(v, "buffer", self), self + ".buffer") != 0) fail(self + ".buffer", "not 0");
  const json* offset = find(v, "byteOffset");
  ViewRange range;
  range.offset = offset ? as_u32(*offset, self + ".byteOffset") : 0;
  range.length = as_u32(member(v, "byteLength", self), self + ".byteLength");
  if (range.length == 0) fail(self + ".byteLength", "0");
  if (range.offset + range.length > buffer_length_) {
    fail(self, "bytes " + num(uint64_t(range.offset)) + " + " + num(uint64_t(range.length)) +
                   " run past the buffer's " + num(uint64_t(buffer_length_)));
  }
  return range;
}

std::span<const uint8_t> Reader::accessor(uint32_t index, ComponentType component,
                                          const char* type, uint32_t element_bytes,
                                          const std::string& where, uint32_t* count,
                                          uint32_t* byte_offset, uint32_t* view_index) {
  const json& accessors = top_array("accessors");
  const std::string self = where + " (" + at("accessors", index) + ")";
  if (index >= accessors.size()) fail(where, at("accessors", index) + " does not exist");
  const json& a = as_object(accessors[index], self);
  const uint32_t c = as_u32(member(a, "componentType", self), self + ".componentType");
  if (c != static_cast<uint32_t>(component)) {
    fail(self + ".componentType", num(c) + ", expected " + num(static_cast<uint32_t>(component)));
  }
  const std::string& t = as_string(member(a, "type", self), self + ".type");
  if (t != type) fail(self + ".type", "\"" + t + "\", expected \"" + type + "\"");
  if (const json* n = find(a, "normalized"); n && as_bool(*n, self + ".normalized")) {
    fail(self + ".normalized", "true, expected false");
  }
  if (find(a, "sparse")) fail(self + ".sparse", "sparse accessors are not part of a .vat.glb");
  *view_index = as_u32(member(a, "bufferView", self), self + ".bufferView");
  const json* offset = find(a, "byteOffset");
  *byte_offset = offset ? as_u32(*offset, self + ".byteOffset") : 0;
  if (*byte_offset % component_bytes(component) != 0) {
    fail(self + ".byteOffset", num(*byte_offset) + " is not a multiple of the component size");
  }
  *count = as_u32(member(a, "count", self), self + ".count");
  if (*count == 0) fail(self + ".count", "0");
  const ViewRange range = view(*view_index, self);
  const json& v = top_array("bufferViews")[*view_index];
  if (const json* stride = find(v, "byteStride")) {
    const uint32_t s = as_u32(*stride, at("bufferViews", *view_index) + ".byteStride");
    if (s != element_bytes) {
      fail(at("bufferViews", *view_index) + ".byteStride",
           num(s) + ", expected tightly packed elements (" + num(element_bytes) + ")");
    }
  }
  const uint64_t bytes = uint64_t(*count) * element_bytes;
  if (*byte_offset + bytes > range.length) {
    fail(self, "bytes " + num(*byte_offset) + " + " + num(*count) + " * " + num(element_bytes) +
                   " run past " + at("bufferViews", *view_index) + " (byteLength " +
                   num(uint64_t(range.length)) + ")");
  }
  if ((chunks_.bin_offset + range.offset + *byte_offset) % component_bytes(component) != 0) {
    fail(self, "data is not aligned to its component size");
  }
  return chunks_.bin.subspan(range.offset + *byte_offset, bytes);
}

void Reader::read_geometry(Vat& vat, const json& ext) {
  const uint32_t mesh_index = as_u32(member(ext, "mesh", kExt), std::string(kExt) + ".mesh");
  const json& meshes = top_array("meshes");
  if (mesh_index >= meshes.size()) fail(std::string(kExt) + ".mesh", at("meshes", mesh_index) + " does not exist");
  const std::string mesh_where = at("meshes", mesh_index);
  const json& mesh = as_object(meshes[mesh_index], mesh_where);
  const json& primitives = as_array(member(mesh, "primitives", mesh_where), mesh_where + ".primitives");
  if (primitives.empty()) fail(mesh_where + ".primitives", "empty");

  // Every primitive shares the first one's vertex stream.
  const std::string first_where = mesh_where + ".primitives[0]";
  const json& attributes =
      as_object(member(as_object(primitives[0], first_where), "attributes", first_where),
                first_where + ".attributes");
  for (const auto& [key, value] : attributes.items()) {
    bool known = false;
    for (const AttrInfo& a : kAttrs) known |= key == a.gltf;
    if (!known) fail(first_where + ".attributes." + key, "not an attribute of a .vat.glb");
  }
  VatGeometry& g = vat.geometry;
  auto attr_where = [&](Attr a) { return first_where + ".attributes." + info(a).gltf; };
  for (int i = 0; i < kAttrCount; ++i) {
    const Attr a = static_cast<Attr>(i);
    const json* index = find(attributes, info(a).gltf);
    if (!index) {
      if (a == Attr::Position) fail(attr_where(a), "missing");
      continue;
    }
    uint32_t count = 0, offset = 0, view_index = 0;
    const std::span<const uint8_t> bytes =
        accessor(as_u32(*index, attr_where(a)), info(a).component, info(a).type,
                 info(a).element_bytes, attr_where(a), &count, &offset, &view_index);
    if (a != Attr::Position && count != g.positions.size()) {
      fail(attr_where(a), "count " + num(count) + ", expected the vertex count " +
                              num(uint64_t(g.positions.size())));
    }
    claim(view(view_index, attr_where(a)), view_index, attr_where(a));
    with_attr(g, a, [&](auto& values) {
      values.resize(count);
      std::memcpy(values.data(), bytes.data(), bytes.size());
    });
  }

  std::optional<uint32_t> index_view;
  for (size_t p = 0; p < primitives.size(); ++p) {
    const std::string where = at(mesh_where + ".primitives", p);
    const json& primitive = as_object(primitives[p], where);
    if (p > 0 && member(primitive, "attributes", where) != attributes) {
      fail(where + ".attributes", "differs from primitives[0]'s (a .vat.glb has one vertex stream)");
    }
    if (const json* mode = find(primitive, "mode"); mode && as_u32(*mode, where + ".mode") != 4) {
      fail(where + ".mode", "not 4 (triangles)");
    }
    if (find(primitive, "targets")) fail(where + ".targets", "morph targets are not part of a .vat.glb");
    uint32_t count = 0, offset = 0, view_index = 0;
    const uint32_t index = as_u32(member(primitive, "indices", where), where + ".indices");
    accessor(index, ComponentType::UInt32, "SCALAR", 4, where + ".indices", &count, &offset, &view_index);
    if (!index_view) {
      index_view = view_index;
      const ViewRange range = view(view_index, where + ".indices");
      if (range.length % 4 != 0) fail(at("bufferViews", view_index), "byteLength is not a multiple of 4");
      claim(range, view_index, where + ".indices");
      const auto bytes = chunks_.bin.subspan(range.offset, range.length);
      g.indices.resize(range.length / 4);
      std::memcpy(g.indices.data(), bytes.data(), bytes.size());
    } else if (view_index != *index_view) {
      fail(where + ".indices", "in " + at("bufferViews", view_index) + ", primitives[0]'s are in " +
                                   at("bufferViews", *index_view) + " (a .vat.glb has one index buffer)");
    }
    DrawGroup group;
    group.first_index = offset / 4;
    group.index_count = count;
    const json* material = find(primitive, "material");
    group.material = material ? as_i32(*material, where + ".material") : -1;
    if (material && group.material < 0) fail(where + ".material", "negative");
    check_group(group, g.indices.size(), top_array("materials").size(), where);
    g.groups.push_back(group);
  }
  check_geometry(g, vat.slots.size(), vat.encoding, attr_where,
                 at("bufferViews", *index_view) + " (indices)");
}

void Reader::read_lods(Vat& vat, const json& ext) {
  const json* lods = find(ext, "lods");
  if (!lods) return;
  const std::string e = std::string(kExt) + ".lods";
  if (as_array(*lods, e).empty()) fail(e, "empty (a file without levels of detail leaves the property out)");
  VatGeometry& g = vat.geometry;
  for (size_t l = 0; l < lods->size(); ++l) {
    const std::string w = at(e, l);
    const json& o = as_object((*lods)[l], w);
    LodLevel lod;
    const uint32_t view_index = as_u32(member(o, "indices", w), w + ".indices");
    const ViewRange range = view(view_index, w + ".indices");
    const std::string vw = at("bufferViews", view_index);
    if (range.length % 4 != 0) fail(w + ".indices", vw + " has " + num(uint64_t(range.length)) + " bytes, not 4 per index");
    if ((chunks_.bin_offset + range.offset) % 4 != 0) fail(w + ".indices", vw + " is not 4-byte aligned");
    if (find(top_array("bufferViews")[view_index], "byteStride")) fail(vw + ".byteStride", "an index view has none");
    claim(range, view_index, w);
    lod.indices.resize(range.length / 4);
    std::memcpy(lod.indices.data(), chunks_.bin.data() + range.offset, range.length);
    const json& groups = as_array(member(o, "groups", w), w + ".groups");
    if (groups.size() != g.groups.size()) {
      fail(w + ".groups", num(uint64_t(groups.size())) + " groups, expected one per mesh primitive (" +
                              num(uint64_t(g.groups.size())) + ")");
    }
    for (size_t i = 0; i < groups.size(); ++i) {
      const std::string gw = at(w + ".groups", i);
      const json& go = as_object(groups[i], gw);
      DrawGroup group;
      group.first_index = as_u32(member(go, "firstIndex", gw), gw + ".firstIndex");
      group.index_count = as_u32(member(go, "indexCount", gw), gw + ".indexCount");
      group.material = g.groups[i].material;
      lod.groups.push_back(group);
    }
    lod.error = as_float(member(o, "error", w), w + ".error");
    lod.error_in_motion = as_float(member(o, "errorInMotion", w), w + ".errorInMotion");
    lod.screen_size = as_float(member(o, "screenSize", w), w + ".screenSize");
    g.lods.push_back(std::move(lod));
  }
  check_lods(g, e);
}

void Reader::read_materials(Vat& vat) {
  const json& images = top_array("images");
  for (size_t i = 0; i < images.size(); ++i) {
    const std::string where = at("images", i);
    const json& object = as_object(images[i], where);
    if (find(object, "uri")) fail(where + ".uri", "a .vat.glb embeds its images");
    Image image;
    if (const json* name = find(object, "name")) image.name = as_string(*name, where + ".name");
    image.mime_type = as_string(member(object, "mimeType", where), where + ".mimeType");
    const uint32_t view_index = as_u32(member(object, "bufferView", where), where + ".bufferView");
    const ViewRange range = view(view_index, where);
    claim(range, view_index, where);
    const auto bytes = chunks_.bin.subspan(range.offset, range.length);
    image.bytes.assign(bytes.begin(), bytes.end());
    check_image(image, where);
    vat.images.push_back(std::move(image));
  }
  const json& textures = top_array("textures");
  const json& materials = top_array("materials");
  for (size_t i = 0; i < materials.size(); ++i) {
    const std::string where = at("materials", i);
    const json& object = as_object(materials[i], where);
    Material m;
    if (const json* name = find(object, "name")) m.name = as_string(*name, where + ".name");
    if (const json* pbr = find(object, "pbrMetallicRoughness")) {
      const std::string pw = where + ".pbrMetallicRoughness";
      as_object(*pbr, pw);
      if (const json* f = find(*pbr, "baseColorFactor")) m.base_color_factor = as_vec<4>(*f, pw + ".baseColorFactor");
      if (const json* t = find(*pbr, "baseColorTexture")) {
        const std::string tw = pw + ".baseColorTexture";
        as_object(*t, tw);
        const uint32_t texture = as_u32(member(*t, "index", tw), tw + ".index");
        if (texture >= textures.size()) fail(tw + ".index", at("textures", texture) + " does not exist");
        const std::string sw = at("textures", texture);
        const uint32_t source = as_u32(member(as_object(textures[texture], sw), "source", sw), sw + ".source");
        if (source >= vat.images.size()) fail(sw + ".source", at("images", source) + " does not exist");
        m.base_color_image = static_cast<int32_t>(source);
        if (const json* tc = find(*t, "texCoord")) m.base_color_texcoord = as_u32(*tc, tw + ".texCoord");
      }
    }
    if (const json* mode = find(object, "alphaMode")) {
      static constexpr std::pair<const char*, AlphaMode> kModes[] = {
          {"OPAQUE", AlphaMode::Opaque}, {"MASK", AlphaMode::Mask}, {"BLEND", AlphaMode::Blend}};
      m.alpha_mode = as_enum(*mode, where + ".alphaMode", kModes);
    }
    if (const json* cutoff = find(object, "alphaCutoff")) m.alpha_cutoff = as_float(*cutoff, where + ".alphaCutoff");
    if (const json* sided = find(object, "doubleSided")) m.double_sided = as_bool(*sided, where + ".doubleSided");
    check_material(m, vat.images.size(), where);
    vat.materials.push_back(std::move(m));
  }
}

void Reader::read_extension(Vat& vat, const json& ext) {
  const std::string e = kExt;
  static constexpr std::pair<const char*, Encoding> kEncodings[] = {{"delta", Encoding::Delta},
                                                                    {"rig", Encoding::Rig}};
  static constexpr std::pair<const char*, Precision> kPrecisions[] = {
      {"f32", Precision::F32}, {"f16", Precision::F16}, {"q16", Precision::Q16}};
  static constexpr std::pair<const char*, LoopMode> kLoops[] = {
      {"repeat", LoopMode::Repeat}, {"once", LoopMode::Once}, {"pingPong", LoopMode::PingPong}};
  static constexpr std::pair<const char*, EndMode> kEnds[] = {{"clamp", EndMode::Clamp},
                                                              {"rewind", EndMode::Rewind}};
  vat.encoding = as_enum(member(ext, "encoding", e), e + ".encoding", kEncodings);
  vat.precision = as_enum(member(ext, "precision", e), e + ".precision", kPrecisions);
  vat.frame_rows = as_u32(member(ext, "frameRows", e), e + ".frameRows");
  if (vat.frame_rows == 0) fail(e + ".frameRows", "0");
  vat.bounds = as_bounds(member(ext, "bounds", e), e + ".bounds");

  const json& clips = as_array(member(ext, "clips", e), e + ".clips");
  if (clips.empty()) fail(e + ".clips", "empty, a VAT has at least one clip");
  for (size_t i = 0; i < clips.size(); ++i) {
    const std::string w = at(e + ".clips", i);
    const json& o = as_object(clips[i], w);
    VatClip c;
    c.name = as_string(member(o, "name", w), w + ".name");
    c.source_animation = as_i32(member(o, "sourceAnimation", w), w + ".sourceAnimation");
    c.first_row = as_u32(member(o, "firstRow", w), w + ".firstRow");
    c.rows = as_u32(member(o, "rows", w), w + ".rows");
    c.fps = as_float(member(o, "fps", w), w + ".fps");
    c.duration_s = as_float(member(o, "duration", w), w + ".duration");
    c.defaults.loop_mode = as_enum(member(o, "loopMode", w), w + ".loopMode", kLoops);
    c.defaults.repetitions = as_i32(member(o, "repetitions", w), w + ".repetitions");
    c.defaults.end_mode = as_enum(member(o, "endMode", w), w + ".endMode", kEnds);
    c.defaults.speed = as_float(member(o, "speed", w), w + ".speed");
    c.max_delta = as_float(member(o, "maxDelta", w), w + ".maxDelta");
    c.bounds = as_bounds(member(o, "bounds", w), w + ".bounds");
    c.delta_range = as_bounds(member(o, "deltaRange", w), w + ".deltaRange");
    c.translation_range = as_bounds(member(o, "translationRange", w), w + ".translationRange");
    const glm::vec2 scale = as_vec<2>(member(o, "scaleRange", w), w + ".scaleRange");
    c.scale_min = scale[0];
    c.scale_max = scale[1];
    if (const json* error = version_ >= 2 ? find(o, "error") : nullptr) {
      const json& eo = as_object(*error, w + ".error");
      ClipAccuracy a;
      for (const auto& [value, key] : accuracy_fields(a)) {
        *value = as_float(member(eo, key, w + ".error"), w + ".error." + key);
      }
      c.accuracy = a;
    }
    check_clip(c, vat.frame_rows, w);
    vat.clips.push_back(std::move(c));
  }
  check_bands(vat.clips, e + ".clips");

  const json& slots = as_array(member(ext, "slots", e), e + ".slots");
  if (slots.size() > kMaxVatSlots) fail(e + ".slots", num(uint64_t(slots.size())) + " slots, at most " + num(uint64_t(kMaxVatSlots)));
  if (vat.encoding == Encoding::Rig && slots.empty()) fail(e + ".slots", "empty, the rig encoding needs slots");
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string w = at(e + ".slots", i);
    const json& o = as_object(slots[i], w);
    VatSlot s;
    s.name = as_string(member(o, "name", w), w + ".name");
    s.node = as_i32(member(o, "node", w), w + ".node");
    const json& m = member(o, "inverseBind", w);
    if (!m.is_array() || m.size() != 16) fail(w + ".inverseBind", "expected an array of 16 numbers");
    for (int k = 0; k < 16; ++k) s.inverse_bind[k / 4][k % 4] = as_float(m[k], at(w + ".inverseBind", k));
    check_slot(s, w);
    vat.slots.push_back(std::move(s));
  }

  const json& sources = as_array(member(ext, "sources", e), e + ".sources");
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string w = at(e + ".sources", i);
    const json& o = as_object(sources[i], w);
    SourceRange s;
    s.node = as_u32(member(o, "node", w), w + ".node");
    s.mesh = as_u32(member(o, "mesh", w), w + ".mesh");
    s.primitive = as_u32(member(o, "primitive", w), w + ".primitive");
    s.first_vertex = as_u32(member(o, "firstVertex", w), w + ".firstVertex");
    s.vertex_count = as_u32(member(o, "vertexCount", w), w + ".vertexCount");
    s.source_vertex_count = as_u32(member(o, "sourceVertexCount", w), w + ".sourceVertexCount");
    vat.geometry.sources.push_back(s);  // ranges checked once the vertex count is known
  }
}

Vat Reader::read(std::shared_ptr<const void> keep_alive) {
  check_container();
  check_checksum();
  parse_json();

  const json& used = top_array("extensionsUsed");
  if (std::find(used.begin(), used.end(), json(kVatExtensionName)) == used.end()) {
    fail("extensionsUsed", std::string("does not list ") + kVatExtensionName + " (not a .vat.glb)");
  }
  const json& extensions = as_object(member(doc_, "extensions", "document"), "extensions");
  const json& ext = as_object(member(extensions, kVatExtensionName, "extensions"), kExt);
  version_ = as_u32(member(ext, "version", kExt), std::string(kExt) + ".version");
  if (!readable_version(version_)) {
    fail(std::string(kExt) + ".version", num(version_) + " is not supported (" + readable_versions() + ")");
  }
  const std::string& digits = as_string(member(ext, "checksum", kExt), std::string(kExt) + ".checksum");
  if (digits != checksum_digits_) {
    fail(std::string(kExt) + ".checksum", "the hashed \"checksum\" key is not this extension's");
  }

  const json& buffers = top_array("buffers");
  if (buffers.size() != 1) fail("buffers", num(uint64_t(buffers.size())) + " buffers, expected 1 (the BIN chunk)");
  const json& buffer = as_object(buffers[0], "buffers[0]");
  if (find(buffer, "uri")) fail("buffers[0].uri", "a .vat.glb keeps its buffer in the BIN chunk");
  buffer_length_ = as_u32(member(buffer, "byteLength", "buffers[0]"), "buffers[0].byteLength");
  if (buffer_length_ > chunks_.bin.size() || chunks_.bin.size() - buffer_length_ > 3) {
    fail("buffers[0].byteLength", num(uint64_t(buffer_length_)) + ", the BIN chunk has " +
                                      num(uint64_t(chunks_.bin.size())) + " bytes");
  }
  if (chunks_.bin_offset % kPlaneAlignment != 0) {
    fail("GLB", "BIN data starts at file offset " + num(uint64_t(chunks_.bin_offset)) +
                    ", not a multiple of 16 (planes must be 16-byte aligned)");
  }

  Vat vat;
  vat.source = name_;
  read_extension(vat, ext);
  read_materials(vat);
  read_geometry(vat, ext);
  read_lods(vat, ext);
  check_sources(vat.geometry.sources, vat.geometry.vertex_count(), std::string(kExt) + ".sources");

  const json& planes = as_array(member(ext, "planes", kExt), std::string(kExt) + ".planes");
  if (planes.empty()) fail(std::string(kExt) + ".planes", "empty");
  bool seen[4] = {};
  for (size_t i = 0; i < planes.size(); ++i) {
    const std::string w = at(std::string(kExt) + ".planes", i);
    const json& o = as_object(planes[i], w);
    static constexpr std::pair<const char*, PlaneSemantic> kSemantics[] = {
        {"position", PlaneSemantic::Position}, {"normal", PlaneSemantic::Normal},
        {"tangent", PlaneSemantic::Tangent}, {"slots", PlaneSemantic::Slots}};
    static constexpr std::pair<const char*, TexelFormat> kFormats[] = {
        {"rgba32f", TexelFormat::RGBA32F}, {"rgba16f", TexelFormat::RGBA16F},
        {"rgba16unorm", TexelFormat::RGBA16Unorm}};
    Plane p;
    p.semantic = as_enum(member(o, "semantic", w), w + ".semantic", kSemantics);
    if (seen[int(p.semantic)]) fail(w + ".semantic", std::string("a second ") + to_string(p.semantic) + " plane");
    seen[int(p.semantic)] = true;
    p.format = as_enum(member(o, "format", w), w + ".format", kFormats);
    p.texels_per_frame = as_u32(member(o, "texelsPerFrame", w), w + ".texelsPerFrame");
    p.width = as_u32(member(o, "width", w), w + ".width");
    p.rows_per_frame = as_u32(member(o, "rowsPerFrame", w), w + ".rowsPerFrame");
    p.height = as_u32(member(o, "height", w), w + ".height");
    check_plane_shape(p, vat, w);
    const uint32_t view_index = as_u32(member(o, "bufferView", w), w + ".bufferView");
    const ViewRange range = view(view_index, w + ".bufferView");
    const std::string vw = at("bufferViews", view_index);
    if (range.length != plane_bytes(p)) {
      fail(w, vw + " has " + num(uint64_t(range.length)) + " bytes, width * height * " +
                  num(texel_bytes(p.format)) + " = " + num(plane_bytes(p)));
    }
    if (range.offset % kPlaneAlignment != 0) {
      fail(w, vw + ".byteOffset " + num(uint64_t(range.offset)) + " is not a multiple of 16");
    }
    if (const json* stride = find(top_array("bufferViews")[view_index], "byteStride")) {
      (void)stride;
      fail(vw + ".byteStride", "a plane's view has none");
    }
    claim(range, view_index, w);
    p.data = chunks_.bin.subspan(range.offset, range.length);
    vat.planes.push_back(p);
  }
  check_plane_set(seen, vat.encoding, vat.precision, std::string(kExt) + ".planes");

  // Defence in depth: what the writer would refuse, the loader must not return.
  check_vat(vat);
  vat.storage = std::move(keep_alive);
  return vat;
}

}  // namespace

// ---- checksum ------------------------------------------------------------------------------

namespace vat_file_detail {

std::optional<size_t> find_checksum_digits(std::span<const uint8_t> file,
                                           std::span<const uint8_t> json_chunk, std::string* why) {
  const std::string_view text(reinterpret_cast<const char*>(json_chunk.data()), json_chunk.size());
  const std::string_view key(kChecksumKey, kChecksumKeyLength);
  const size_t first = text.find(key);
  if (first == std::string_view::npos) {
    if (why) *why = "missing (no \"checksum\":\" in the JSON chunk)";
    return std::nullopt;
  }
  if (text.find(key, first + 1) != std::string_view::npos) {
    if (why) *why = "the JSON chunk has more than one \"checksum\":\"";
    return std::nullopt;
  }
  const size_t digits = first + kChecksumKeyLength;
  if (digits + kChecksumDigits >= text.size() || text[digits + kChecksumDigits] != '"') {
    if (why) *why = "not a string of 16 hex digits";
    return std::nullopt;
  }
  return static_cast<size_t>(json_chunk.data() - file.data()) + digits;
}

uint64_t content_checksum(std::span<const uint8_t> file, size_t digits_offset,
                          std::span<const std::span<const uint8_t>> rest) {
  assert(digits_offset + kChecksumDigits <= file.size());
  static constexpr char kZeros[kChecksumDigits + 1] = "0000000000000000";
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, file.data(), digits_offset);
  XXH3_64bits_update(&state, kZeros, kChecksumDigits);
  XXH3_64bits_update(&state, file.data() + digits_offset + kChecksumDigits,
                     file.size() - digits_offset - kChecksumDigits);
  for (const std::span<const uint8_t>& piece : rest) XXH3_64bits_update(&state, piece.data(), piece.size());
  return XXH3_64bits_digest(&state);
}

std::string checksum_hex(uint64_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kChecksumDigits, '0');
  for (size_t i = 0; i < kChecksumDigits; ++i) out[kChecksumDigits - 1 - i] = kHex[(value >> (4 * i)) & 15];
  return out;
}

bool seal_checksum(std::span<uint8_t> head, std::span<const uint8_t> json_chunk,
                   std::span<const std::span<const uint8_t>> rest) {
  const std::optional<size_t> digits = find_checksum_digits(head, json_chunk, nullptr);
  if (!digits) return false;
  const std::string hex = checksum_hex(content_checksum(head, *digits, rest));
  std::memcpy(head.data() + *digits, hex.data(), kChecksumDigits);
  return true;
}

bool reseal_checksum(std::span<uint8_t> file) {
  Result<glb::Chunks> chunks = glb::split_glb(file, "");
  return chunks && seal_checksum(file, chunks->json, {});
}

}  // namespace vat_file_detail

// ---- public API ----------------------------------------------------------------------------

Result<void> validate_vat(const Vat& vat) {
  try {
    check_vat(vat);
  } catch (const Failure& f) {
    return make_error(vat.source, printable(f.message));
  }
  return {};
}

Result<Vat> load_vat_memory(std::span<const uint8_t> bytes, const std::string& name,
                            std::shared_ptr<const void> keep_alive) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % kPlaneAlignment != 0) {
    // Copy into 16-byte-aligned storage (operator new[] of this type guarantees it) that the
    // Vat then owns.
    struct alignas(16) Block {
      uint8_t b[16];
    };
    std::shared_ptr<Block[]> copy(new Block[(bytes.size() + 15) / 16]);
    std::memcpy(copy.get(), bytes.data(), bytes.size());
    const std::span<const uint8_t> aligned(reinterpret_cast<const uint8_t*>(copy.get()), bytes.size());
    return load_vat_memory(aligned, name, std::shared_ptr<const void>(copy, copy.get()));
  }
  try {
    Reader reader(bytes, name);
    return reader.read(std::move(keep_alive));
  } catch (const Failure& f) {
    return make_error(name, printable(f.message));  // quotes names from the file
  }
}

Result<Vat> load_vat(const std::filesystem::path& path) {
  // Read, not mapped: a mapping faults (SIGBUS) when another process shortens the file while its
  // planes are in use, and no check at load time can rule that out. The Vat owns the bytes.
  Result<InputFile> file = InputFile::open(path);
  if (!file) return file.error();
  if (file->size() > std::numeric_limits<uint32_t>::max()) {
    return make_error(path.string(), "is " + std::to_string(file->size()) +
                                         " bytes, more than a GLB can hold (4 GiB)");
  }
  // Fresh, uninitialized, huge-page memory (detail::allocate_big): zeroing it first, or faulting it in
  // 4 kB at a time, cost more than reading the file.
  const size_t size = static_cast<size_t>(file->size());
  std::shared_ptr<uint8_t> bytes;
  try {
    bytes.reset(static_cast<uint8_t*>(detail::allocate_big(size)), detail::FreeBig());
  } catch (const std::bad_alloc&) {
    return make_error(path.string(), "out of memory reading " + std::to_string(size) + " bytes");
  }
  if (Result<void> read = file->read_at(0, std::span<uint8_t>(bytes.get(), size)); !read) return read.error();
  const std::span<const uint8_t> view(bytes.get(), size);
  return load_vat_memory(view, path.string(), std::shared_ptr<const void>(std::move(bytes)));
}

bool is_vat_file(const std::filesystem::path& path) {
  // Through InputFile: a FIFO or device is not a .vat.glb, and asking must not block on one.
  Result<InputFile> in = InputFile::open(path);
  if (!in) return false;
  uint32_t header[5] = {};
  if (!in->read_at(0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(header), sizeof(header)))) return false;
  if (header[0] != 0x46546C67u || header[1] != 2 || header[4] != 0x4E4F534Au) return false;
  const uint32_t json_length = header[3];
  if (json_length > header[2] || json_length > (64u << 20) || json_length > in->size()) return false;
  std::string text(json_length, '\0');
  if (!in->read_at(sizeof(header), std::span<uint8_t>(reinterpret_cast<uint8_t*>(text.data()), json_length)))
    return false;
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;
  const auto used = doc.find("extensionsUsed");
  if (used == doc.end() || !used->is_array()) return false;
  return std::find(used->begin(), used->end(), json(kVatExtensionName)) != used->end();
}

}  // namespace vatkit

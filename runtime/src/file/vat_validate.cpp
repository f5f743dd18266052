// The consistency checks of a Vat (vat_format.h): validate_vat runs them all (check_vat), the
// loader runs each on what it reads (naming the file's objects) and check_vat on the result, and
// the writer runs check_vat before writing. The properties' own checks (a float finite, an enum
// one of its names, the Rule of each field) come from the tables of vat_schema.h; what is checked
// here besides is what relates properties to each other.
//
// Failures throw Failure carrying the one-line message; validate_vat returns it as an Error. That
// keeps each check to one line without threading a Result through every helper; no exception
// crosses the API.
#include <algorithm>
#include <cmath>
#include <limits>

#include "file/material_rules.h"
#include "file/vat_format.h"
#include "file/vat_schema.h"
#include "util/printable.h"
#include "vatkit/vat_file.h"

namespace vatkit {
namespace vat_format {

void check_finite(float v, const std::string& where) {
  if (!std::isfinite(v)) fail(where, "not a finite number");
}

std::string readable_versions() {
  return "this vatkit reads versions " + std::to_string(kVatOldestFormatVersion) + " to " +
         std::to_string(kVatFormatVersion);
}
bool readable_version(uint64_t v) { return v >= kVatOldestFormatVersion && v <= kVatFormatVersion; }

// The fields (Schema<VatClip>), then the band against frameRows.
void check_clip(const VatClip& c, uint32_t frame_rows, const std::string& where) {
  check_fields(Schema<VatClip>::fields, c, where);
  if (uint64_t(c.first_row) + c.rows > frame_rows) {
    fail(where,
         "band firstRow " + num(c.first_row) + " + rows " + num(c.rows) + " runs past frameRows " + num(frame_rows));
  }
  check_events(c, where + ".events");
  check_root_motion(c, where + ".rootMotion");
}

// A clip's root motion: one (x, y, z, yaw) per row, row 0 all zero (the motion is relative to
// it), every value within kMaxRootMotionValue, y zero unless vertical, a joint named for a
// joint's motion (root_motion.h composes these; the bound keeps its products finite).
void check_root_motion(const VatClip& c, const std::string& where) {
  if (!c.root_motion) return;
  const RootMotion& m = *c.root_motion;
  if (m.track.size() != size_t(c.rows) * 4) {
    fail(where + ".track", num(uint64_t(m.track.size())) + " numbers, expected 4 per row (" +
                               num(uint64_t(c.rows) * 4) + " for " + num(c.rows) + " rows)");
  }
  for (size_t i = 0; i < m.track.size(); ++i) {
    const std::string w = where + ".track[" + std::to_string(i) + "]";
    if (!(std::fabs(m.track[i]) <= kMaxRootMotionValue)) fail(w, num(m.track[i]) + " is out of range");
    if (i < 4 && m.track[i] != 0.0f) fail(w, num(m.track[i]) + ": row 0 of a root motion is (0, 0, 0, 0)");
    if (i % 4 == 1 && !m.vertical && m.track[i] != 0.0f) {
      fail(w, num(m.track[i]) + ": a height in a root motion that is not vertical");
    }
  }
  if (m.source == RootMotionSource::Joint && m.joint.empty()) fail(where + ".joint", "empty for a joint's motion");
  if (m.joint.size() > kMaxEventNameBytes) {
    fail(where + ".joint", num(uint64_t(m.joint.size())) + " bytes, at most " + num(uint64_t(kMaxEventNameBytes)));
  }
}

// A clip's events: named (1 to kMaxEventNameBytes bytes), within the clip's duration, in time
// order (events.h finds the ones crossed by a binary search and a walk).
void check_events(const VatClip& c, const std::string& where) {
  for (size_t i = 0; i < c.events.size(); ++i) {
    const ClipEvent& e = c.events[i];
    const std::string w = where + "[" + std::to_string(i) + "]";
    if (e.name.empty()) fail(w + ".name", "empty, an event has a name");
    if (e.name.size() > kMaxEventNameBytes) {
      fail(w + ".name", num(uint64_t(e.name.size())) + " bytes, at most " + num(uint64_t(kMaxEventNameBytes)));
    }
    if (!(e.time_s >= 0.0f && e.time_s <= c.duration_s)) {
      fail(w + ".time", num(e.time_s) + " is outside the clip's duration [0, " + num(c.duration_s) + "]");
    }
    if (i > 0 && e.time_s < c.events[i - 1].time_s) {
      fail(w + ".time", num(e.time_s) + " is before the previous event's " + num(c.events[i - 1].time_s) +
                            ": events are stored in time order");
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
               std::to_string(order[k - 1]) + "] (firstRow " + num(before.first_row) + " + rows " + num(before.rows) +
               "): a frame row belongs to one clip");
    }
  }
}

namespace {

// A VAT's precision decides every plane's texel format (vat.h, Precision).
TexelFormat format_of(Precision p) {
  switch (p) {
    case Precision::F32: return TexelFormat::RGBA32F;
    case Precision::F16: return TexelFormat::RGBA16F;
    case Precision::Q16: return TexelFormat::RGBA16Unorm;
  }
  return TexelFormat::RGBA32F;
}

uint32_t expected_texels_per_frame(PlaneSemantic s, const Vat& vat) {
  if (s == PlaneSemantic::Slots) return static_cast<uint32_t>(2 * vat.slots.size());
  return vat.geometry.vertex_count();
}

}  // namespace

// Which planes an encoding and precision carry: delta needs position (and at q16 keeps its
// normal in position.w, so a normal plane would be ambiguous); rig needs slots.
void check_plane_set(const bool (&seen)[4], Encoding encoding, Precision precision, const std::string& where) {
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

// Dimensions only; the bytes are checked by the caller (the loader from the buffer view, so the
// message can name it).
void check_plane_shape(const Plane& p, const Vat& vat, const std::string& where) {
  if (p.semantic > PlaneSemantic::Slots) fail(where + ".semantic", "unknown plane semantic");
  if (p.format > TexelFormat::RGBA16Unorm) fail(where + ".format", "unknown texel format");
  if (p.format != format_of(vat.precision)) {
    fail(where + ".format", std::string(to_string(p.format)) + ", but precision " + to_string(vat.precision) +
                                " stores " + to_string(format_of(vat.precision)));
  }
  const uint32_t expected = expected_texels_per_frame(p.semantic, vat);
  if (p.texels_per_frame != expected) {
    fail(where + ".texelsPerFrame", num(p.texels_per_frame) + ", expected " + num(expected) +
                                        (p.semantic == PlaneSemantic::Slots ? " (2 per slot)" : " (one per vertex)"));
  }
  if (p.texels_per_frame == 0) fail(where + ".texelsPerFrame", "0");
  if (p.width == 0) fail(where + ".width", "0");
  const uint64_t rows = (uint64_t(p.texels_per_frame) + p.width - 1) / p.width;
  if (p.rows_per_frame != rows) {
    fail(where + ".rowsPerFrame", num(p.rows_per_frame) + ", expected ceil(texelsPerFrame " + num(p.texels_per_frame) +
                                      " / width " + num(p.width) + ") = " + num(rows));
  }
  const uint64_t height = uint64_t(p.rows_per_frame) * vat.frame_rows;
  if (p.height != height) {
    fail(where + ".height", num(p.height) + ", expected rowsPerFrame * frameRows = " + num(height));
  }
}

uint64_t plane_bytes(const Plane& p) { return uint64_t(p.width) * p.height * texel_bytes(p.format); }

void check_slot(const VatSlot& s, const std::string& where) { check_fields(Schema<VatSlot>::fields, s, where); }

// Each source is one drawn instance of at least one vertex; the ranges are in vertex order and
// disjoint, so there are at most as many sources as vertices and what is read per source (pose,
// verify) adds up to at most the vertex count.
void check_sources(const std::vector<SourceRange>& sources, uint32_t vertex_count, const std::string& where) {
  uint64_t end = 0;  // where the previous range ends
  for (size_t i = 0; i < sources.size(); ++i) {
    const SourceRange& s = sources[i];
    const std::string w = where + "[" + std::to_string(i) + "]";
    check_fields(Schema<SourceRange>::fields, s, w);
    if (uint64_t(s.first_vertex) + s.vertex_count > vertex_count) {
      fail(w, "vertices " + num(s.first_vertex) + " + " + num(s.vertex_count) + " run past the vertex count " +
                  num(vertex_count));
    }
    if (s.first_vertex < end) {
      fail(w, "vertices " + num(s.first_vertex) + " + " + num(s.vertex_count) + " start before the end (" + num(end) +
                  ") of the source before it: ranges are disjoint and in vertex order");
    }
    end = uint64_t(s.first_vertex) + s.vertex_count;
    if (s.source_vertex_count > s.vertex_count) {
      fail(w + ".sourceVertexCount", num(s.source_vertex_count) + " > vertexCount " + num(s.vertex_count));
    }
  }
}

void check_material(const Material& m, size_t image_count, const std::string& where) {
  if (const auto problem = detail::material_value_problem(m)) fail(where + "." + problem->field, problem->reason);
  if (m.base_color_image < -1 || m.base_color_image >= int64_t(image_count)) {
    fail(where + ".baseColorTexture",
         "image " + num(m.base_color_image) + " is not one of the " + num(uint64_t(image_count)) + " images");
  }
  if (m.alpha_mode > AlphaMode::Blend) fail(where + ".alphaMode", "unknown alpha mode");
}

void check_image(const Image& image, const std::string& where) {
  if (image.mime_type != "image/png" && image.mime_type != "image/jpeg") {
    fail(where + ".mimeType", "\"" + image.mime_type + "\", expected image/png or image/jpeg");
  }
  if (image.bytes.empty()) fail(where, "no bytes");
}

void check_geometry(const VatGeometry& g, size_t slot_count, Encoding encoding,
                    const std::function<std::string(Attr)>& attr_where, const std::string& indices_where) {
  const size_t vertices = g.positions.size();
  if (vertices == 0) fail(attr_where(Attr::Position), "no vertices");
  if (vertices > std::numeric_limits<uint32_t>::max()) fail(attr_where(Attr::Position), "too many vertices");
  for (int i = 0; i < kAttrCount; ++i) {
    const Attr a = static_cast<Attr>(i);
    const size_t n = attr_count(g, a);
    if (n != 0 && n != vertices) {
      fail(attr_where(a),
           num(uint64_t(n)) + " elements, expected 0 or one per vertex (" + num(uint64_t(vertices)) + ")");
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
              fail(attr_where(a), "vertex " + num(uint64_t(v)) + " names slot " + num(uint32_t(values[v][c])) +
                                      ", there are " + num(uint64_t(slot_count)) + " slots");
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
      fail(indices_where, "index " + num(uint64_t(i)) + " is " + num(g.indices[i]) + ", there are " +
                              num(uint64_t(vertices)) + " vertices");
    }
  }
}

void check_group(const DrawGroup& group, size_t index_count, size_t material_count, const std::string& where) {
  if (uint64_t(group.first_index) + group.index_count > index_count) {
    fail(where, "indices " + num(group.first_index) + " + " + num(group.index_count) + " run past the " +
                    num(uint64_t(index_count)) + " indices");
  }
  if (group.first_index % 3 != 0 || group.index_count % 3 != 0) {
    fail(where, "first index " + num(group.first_index) + " and count " + num(group.index_count) +
                    " must be multiples of 3 (triangles)");
  }
  if (group.material < -1 || group.material >= int64_t(material_count)) {
    fail(where + ".material",
         num(group.material) + " is not one of the " + num(uint64_t(material_count)) + " materials");
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
      fail(w + ".screenSize",
           num(lod.screen_size) + " is larger than level " + std::to_string(l) + "'s " + num(before->screen_size));
    }
  }
}

void check_vat(const Vat& vat) {
  if (vat.encoding != Encoding::Delta && vat.encoding != Encoding::Rig) fail("encoding", "unknown");
  if (vat.precision > Precision::Q16) fail("precision", "unknown");
  if (vat.frame_rows == 0) fail("frame_rows", "0, a VAT has at least one frame row");
  if (vat.clips.empty()) fail("clips", "none, a VAT has at least one clip");
  for (size_t i = 0; i < vat.clips.size(); ++i)
    check_clip(vat.clips[i], vat.frame_rows, "clips[" + std::to_string(i) + "]");
  check_bands(vat.clips, "clips");
  Codec<Bounds>::check(vat.bounds, "bounds");
  if (!(vat.metres_per_unit > 0.0f) || !std::isfinite(vat.metres_per_unit))
    fail("metresPerUnit", num(vat.metres_per_unit) + " is not a length > 0");
  if (vat.encoding == Encoding::Rig && vat.slots.empty()) fail("slots", "none, the rig encoding needs slots");
  if (vat.slots.size() > kMaxVatSlots)
    fail("slots", num(uint64_t(vat.slots.size())) + ", at most " + num(uint64_t(kMaxVatSlots)));
  for (size_t i = 0; i < vat.slots.size(); ++i) check_slot(vat.slots[i], "slots[" + std::to_string(i) + "]");

  const VatGeometry& g = vat.geometry;
  check_geometry(
      g, vat.slots.size(), vat.encoding, [](Attr a) { return std::string(info(a).member); }, "geometry.indices");
  bool any_triangles = false;
  for (size_t i = 0; i < g.groups.size(); ++i) {
    check_group(g.groups[i], g.indices.size(), vat.materials.size(), "geometry.groups[" + std::to_string(i) + "]");
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
      fail("geometry.texcoords0", "missing: geometry.groups[" + std::to_string(i) + "] draws material " +
                                      std::to_string(group.material) + ", whose base colour texture reads TEXCOORD_0");
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

Result<void> validate_vat(const Vat& vat) {
  try {
    vat_format::check_vat(vat);
  } catch (const vat_format::Failure& f) {
    return make_error(f.code, vat.source, printable(f.message));
  }
  return {};
}

}  // namespace vatkit

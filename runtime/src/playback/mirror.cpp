// The CPU mirror: resolve, then decode.h, then the instance's world matrix.
#include "vatkit/mirror.h"
#include "util/printable.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>

namespace vatkit {

namespace {

// The clip whose band holds `row`, or -1.
int clip_holding(const Vat& vat, uint32_t row) {
  for (size_t c = 0; c < vat.clips.size(); ++c) {
    const VatClip& clip = vat.clips[c];
    if (row >= clip.first_row && row - clip.first_row < clip.rows) return int(c);
  }
  return -1;
}

std::string rows_text(uint32_t first, uint32_t rows) {
  return "rows [" + std::to_string(first) + ", " + std::to_string(uint64_t(first) + rows) + ")";
}

}  // namespace

namespace {

// What is wrong with a band of `vat`, or "".
std::string band_problem(const Vat& vat, uint32_t first_row, uint32_t rows) {
  if (rows == 0) return "a band needs at least one row";
  const int c = clip_holding(vat, first_row);
  if (c < 0) return rows_text(first_row, rows) + ": row " + std::to_string(first_row) + " is in no clip's band";
  const VatClip& clip = vat.clips[size_t(c)];
  if (uint64_t(first_row) + rows > uint64_t(clip.first_row) + clip.rows) {
    return rows_text(first_row, rows) + " runs past the band of clip " + std::to_string(c) + " ('" +
           printable(clip.name) + "', " + rows_text(clip.first_row, clip.rows) + ")";
  }
  return {};
}

}  // namespace

Result<void> check_band(const Vat& vat, uint32_t first_row, uint32_t rows) {
  const std::string problem = band_problem(vat, first_row, rows);
  if (!problem.empty()) return make_error(ErrorCode::Argument, vat.source, problem);
  return {};
}

Result<void> check_instance(const Vat& vat, const Instance& in) {
  auto check = [&](const ClipBand& b, const char* what) -> std::string {
    const std::string problem = band_problem(vat, b.first_row, b.rows);
    return problem.empty() ? problem : std::string(what) + ": " + problem;
  };
  std::string problem = check(in.clip, "clip");
  if (problem.empty() && in.blend) problem = check(in.blend->clip, "blend.clip");
  if (problem.empty() && in.from) problem = check(in.from->clip, "from.clip");
  if (!problem.empty()) return make_error(ErrorCode::Argument, vat.source, problem);
  return {};
}

RowBlend row_blend(const Vat& vat, const BandSample& band) {
  const int c = clip_holding(vat, band.row);
  assert(c >= 0 && "the frame's row is in no clip of this Vat");
  assert(clip_holding(vat, band.row_next) == c && "the band straddles two clips");
  RowBlend r;
  r.clip = uint32_t(c < 0 ? 0 : c);
  r.row = band.row;
  r.row_next = band.row_next;
  r.mix = band.mix;
  return r;
}

PoseBlend pose_blend(const Vat& vat, const PlaybackSample& frame) {
  PoseBlend p;
  p.a = row_blend(vat, frame.a);
  p.b = frame.weight > 0.0f ? row_blend(vat, frame.b) : p.a;
  p.weight_b = frame.weight;
  return p;
}

namespace {

// What `vat` lacks for the mirror, or "": animation data at all (a gl::VatGpu's metadata() copy
// keeps no planes and no geometry), the plane the decode reads (a delta bake may carry socket
// slots without their plane), or the rig's per-vertex data.
std::string missing_animation(const Vat& vat, bool vertices) {
  const uint32_t n = vat.geometry.vertex_count();
  const bool any_data =
      std::any_of(vat.planes.begin(), vat.planes.end(), [](const Plane& p) { return !p.data.empty(); });
  if (!any_data || (vertices && n == 0)) {
    return std::string("the Vat holds no animation data (no planes") + (vertices ? " or geometry" : "") +
           "; a gl::VatGpu's metadata() copy keeps none): pass the loaded Vat";
  }
  const PlaneSemantic needed =
      vat.encoding == Encoding::Rig || !vertices ? PlaneSemantic::Slots : PlaneSemantic::Position;
  const Plane* plane = vat.plane(needed);
  if (plane == nullptr || plane->data.size() < plane->byte_size() || plane->byte_size() == 0)
    return std::string("the Vat has no ") + to_string(needed) + " plane to decode from";
  const VatGeometry& g = vat.geometry;
  if (vertices && vat.encoding == Encoding::Rig &&
      (g.bind_positions.size() != n || g.slots0.size() != n || g.slot_weights0.size() != n))
    return "the rig Vat lacks bind positions or slot weights for its vertices";
  return {};
}

// What is wrong with `sample` for `vat` (a band whose rows are in no clip, or straddle two), or "".
std::string sample_problem(const Vat& vat, const PlaybackSample& sample) {
  auto band = [&](const BandSample& b, const char* which) -> std::string {
    const int c = clip_holding(vat, b.row);
    if (c < 0) return std::string("sample band ") + which + ": row " + std::to_string(b.row) + " is in no clip's band";
    if (clip_holding(vat, b.row_next) != c)
      return std::string("sample band ") + which + ": rows " + std::to_string(b.row) + " and " +
             std::to_string(b.row_next) + " are not in one clip's band";
    return {};
  };
  std::string problem = band(sample.a, "a");
  if (problem.empty() && sample.weight > 0.0f) problem = band(sample.b, "b");
  return problem;
}

// The checks every mirror_* makes before decoding, as an error naming `function`.
Result<void> check_mirror(const Vat& vat, const PlaybackSample& sample, bool vertices, const char* function) {
  std::string problem = missing_animation(vat, vertices);
  if (problem.empty()) problem = sample_problem(vat, sample);
  if (!problem.empty()) return make_error(ErrorCode::Argument, vat.source, std::string(function) + ": " + problem);
  return {};
}

}  // namespace

Result<void> mirror_vertices(const Vat& vat, const PlaybackSample& sample, const glm::mat4& world,
                             uint32_t first_vertex, std::span<glm::vec3> positions, std::span<glm::vec3> normals) {
  if (Result<void> ok = check_mirror(vat, sample, true, "mirror_vertices"); !ok) return ok;
  const size_t count = positions.empty() ? normals.size() : positions.size();
  if (!normals.empty() && normals.size() != count) {
    return make_error(ErrorCode::Argument, vat.source,
                      "mirror_vertices: " + std::to_string(positions.size()) + " positions but " +
                          std::to_string(normals.size()) + " normals");
  }
  if (uint64_t(first_vertex) + count > vat.geometry.vertex_count()) {
    return make_error(ErrorCode::Argument, vat.source,
                      "mirror_vertices: vertices [" + std::to_string(first_vertex) + ", " +
                          std::to_string(uint64_t(first_vertex) + count) + ") run past the Vat's " +
                          std::to_string(vat.geometry.vertex_count()) + " vertices");
  }
  decode_vertices(vat, pose_blend(vat, sample), first_vertex, positions, normals);
  const glm::vec3 c0(world[0]), c1(world[1]), c2(world[2]), c3(world[3]);
  for (glm::vec3& p : positions) p = c0 * p.x + c1 * p.y + c2 * p.z + c3;
  if (normals.empty()) return {};
  // Cofactor columns: (c1 x c2, c2 x c0, c0 x c1), negated when W mirrors.
  glm::vec3 n0 = glm::cross(c1, c2), n1 = glm::cross(c2, c0), n2 = glm::cross(c0, c1);
  if (glm::dot(c0, n0) < 0.0f) {
    n0 = -n0;
    n1 = -n1;
    n2 = -n2;
  }
  for (glm::vec3& n : normals) {
    const glm::vec3 m = n0 * n.x + n1 * n.y + n2 * n.z;
    const float len2 = glm::dot(m, m);
    n = len2 >= std::numeric_limits<float>::min() ? m * (1.0f / std::sqrt(len2)) : n;
  }
  return {};
}

Result<glm::mat4> mirror_joint(const Vat& vat, const PlaybackSample& sample, const glm::mat4& world, uint32_t slot) {
  if (slot >= vat.slots.size()) {
    return make_error(ErrorCode::Argument, vat.source,
                      "mirror_joint: slot " + std::to_string(slot) + " of " + std::to_string(vat.slots.size()));
  }
  if (Result<void> ok = check_mirror(vat, sample, false, "mirror_joint"); !ok) return ok.error();
  return world * decode_joint_world(vat, pose_blend(vat, sample), slot);
}

}  // namespace vatkit

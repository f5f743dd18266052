// The CPU mirror: resolve, then decode.h, then the instance's world matrix.
#include "vatkit/mirror.h"
#include "util/printable.h"

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
    return rows_text(first_row, rows) + " runs past the band of clip " + std::to_string(c) + " ('" + printable(clip.name) +
           "', " + rows_text(clip.first_row, clip.rows) + ")";
  }
  return {};
}

}  // namespace

Result<void> check_band(const Vat& vat, uint32_t first_row, uint32_t rows) {
  const std::string problem = band_problem(vat, first_row, rows);
  if (!problem.empty()) return make_error(vat.source, problem);
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
  if (!problem.empty()) return make_error(vat.source, problem);
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

void mirror_vertices(const Vat& vat, const PlaybackSample& frame, const glm::mat4& world, uint32_t first_vertex,
                     std::span<glm::vec3> positions, std::span<glm::vec3> normals) {
  decode_vertices(vat, pose_blend(vat, frame), first_vertex, positions, normals);
  const glm::vec3 c0(world[0]), c1(world[1]), c2(world[2]), c3(world[3]);
  for (glm::vec3& p : positions) p = c0 * p.x + c1 * p.y + c2 * p.z + c3;
  if (normals.empty()) return;
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
}

glm::mat4 mirror_joint(const Vat& vat, const PlaybackSample& frame, const glm::mat4& world, uint32_t slot) {
  return world * decode_joint_world(vat, pose_blend(vat, frame), slot);
}

}  // namespace vatkit

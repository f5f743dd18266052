// The CPU decode: the arithmetic decode.h spells out, written so that each line has a GLSL twin;
// the rig's vertex blend (step 4) runs through the reference skinner's kernel with the weights as
// stored, which is that arithmetic, 8 vertices at a time.
#include "vatkit/decode.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "decode/codec.h"
#include "simd/skin_kernels.h"
#include "util/clip_selector.h"

namespace vatkit {
namespace {

using codec::Affine;

inline glm::vec3 lerp3(const glm::vec3& a, const glm::vec3& b, float m) { return a + (b - a) * m; }
inline glm::vec4 lerp4(const glm::vec4& a, const glm::vec4& b, float m) { return a + (b - a) * m; }

// Unit-length v; where v has no direction (collapsed by a zero scale), `fallback` normalized,
// as the reference skinner does.
inline glm::vec3 normalized_or(const glm::vec3& v, const glm::vec3& fallback) {
  float len2 = glm::dot(v, v);
  if (len2 >= std::numeric_limits<float>::min()) return v * (1.0f / std::sqrt(len2));
  len2 = glm::dot(fallback, fallback);
  if (len2 >= std::numeric_limits<float>::min()) return fallback * (1.0f / std::sqrt(len2));
  return glm::vec3(0.0f);
}

const Plane& plane_of(const Vat& vat, PlaneSemantic s) {
  const Plane* p = vat.plane(s);
  assert(p != nullptr);
  return *p;
}

// ---- one row ---------------------------------------------------------------------------------

inline glm::vec3 delta_at(const Plane& p, const VatClip& clip, uint32_t row, uint32_t v) {
  const glm::vec4 t = codec::fetch_raw(p, row, v);
  if (p.format != TexelFormat::RGBA16Unorm) return glm::vec3(t);
  const Bounds& r = clip.delta_range;
  return r.min + (r.max - r.min) * glm::vec3(t);
}

inline glm::vec3 normal_at(const Vat& vat, const Plane& p, uint32_t row, uint32_t v) {
  // p is the Normal plane, or the Position plane of a Q16 delta (normal in w).
  if (p.format == TexelFormat::RGBA16Unorm) return codec::oct8_decode(codec::fetch_u16(p, row, v, 3));
  (void)vat;
  return glm::vec3(codec::fetch_raw(p, row, v));
}

inline glm::vec4 tangent_at(const Plane& p, uint32_t row, uint32_t v) {
  const glm::vec4 t = codec::fetch_raw(p, row, v);
  if (p.format != TexelFormat::RGBA16Unorm) return t;
  return 2.0f * t - 1.0f;
}

inline SlotTransform slot_at(const Plane& p, const VatClip& clip, uint32_t row, uint32_t s) {
  const glm::vec4 a = codec::fetch_raw(p, row, 2 * s);
  const glm::vec4 b = codec::fetch_raw(p, row, 2 * s + 1);
  SlotTransform st;
  if (p.format != TexelFormat::RGBA16Unorm) {
    st.rotation = glm::quat(a.w, a.x, a.y, a.z);
    st.translation = glm::vec3(b);
    st.scale = b.w;
  } else {
    const glm::vec4 q = 2.0f * a - 1.0f;
    st.rotation = glm::quat(q.w, q.x, q.y, q.z);
    const Bounds& r = clip.translation_range;
    st.translation = r.min + (r.max - r.min) * glm::vec3(b);
    st.scale = clip.scale_min + (clip.scale_max - clip.scale_min) * b.w;
  }
  return st;
}

// Slot transforms blended by the hemisphere-flip rule; the quaternion is left unnormalized.
inline SlotTransform blend_slots(const SlotTransform& a, SlotTransform b, float m) {
  const float d = a.rotation.x * b.rotation.x + a.rotation.y * b.rotation.y + a.rotation.z * b.rotation.z +
                  a.rotation.w * b.rotation.w;
  if (d < 0.0f) b.rotation = -b.rotation;
  SlotTransform r;
  const glm::vec4 qa(a.rotation.x, a.rotation.y, a.rotation.z, a.rotation.w);
  const glm::vec4 qb(b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w);
  const glm::vec4 q = lerp4(qa, qb, m);
  r.rotation = glm::quat(q.w, q.x, q.y, q.z);
  r.translation = lerp3(a.translation, b.translation, m);
  r.scale = a.scale + (b.scale - a.scale) * m;
  return r;
}

// ---- one band, then the pose -------------------------------------------------------------------

inline SlotTransform band_slot(const Vat& vat, const Plane& p, const RowBlend& b, uint32_t s) {
  const VatClip& clip = vat.clips[b.clip];
  return blend_slots(slot_at(p, clip, b.row, s), slot_at(p, clip, b.row_next, s), b.mix);
}

inline SlotTransform pose_slot(const Vat& vat, const Plane& p, const PoseBlend& pose, uint32_t s) {
  SlotTransform a = band_slot(vat, p, pose.a, s);
  if (pose.weight_b > 0.0f) a = blend_slots(a, band_slot(vat, p, pose.b, s), pose.weight_b);
  return a;
}

inline SlotTransform normalized(SlotTransform st) {
  const glm::quat q = st.rotation;
  const float len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  if (len2 > 0.0f) {
    const float inv = 1.0f / std::sqrt(len2);
    st.rotation = glm::quat(q.w * inv, q.x * inv, q.y * inv, q.z * inv);
  } else {
    st.rotation = glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  }
  return st;
}

void check_rows(const Vat& vat, const RowBlend& b) {
  (void)vat;
  (void)b;
  assert(b.clip < vat.clips.size());
  assert(b.row >= vat.clips[b.clip].first_row && b.row < vat.clips[b.clip].first_row + vat.clips[b.clip].rows);
  assert(b.row_next >= vat.clips[b.clip].first_row &&
         b.row_next < vat.clips[b.clip].first_row + vat.clips[b.clip].rows);
}

// ---- rig vertices ----------------------------------------------------------------------------

// The bind geometry skinned by the slot matrices, through the reference skinner's kernel with the
// weights as stored (skin_kernels.h: blend_vertices): M = sum w_k M_k, position M p, normal
// sign(det A) cof(A) n normalized, tangent A t normalized with its w's sign (decode.h). Each slot
// matrix is made once per call: for a batch every slot's, for a few vertices only those they
// name (renumbered), so a single-vertex query costs its own slots, not the rig's (a slot decode per
// influence per vertex costs several times as much).
template <class SlotMatrix>
void rig_vertices(const Vat& vat, SlotMatrix&& slot_matrix, uint32_t first, size_t count,
                  std::span<glm::vec3> positions, std::span<glm::vec3> normals, std::span<glm::vec4> tangents) {
  if (count == 0) return;
  const VatGeometry& g = vat.geometry;
  const bool eight = !g.slots1.empty();
  const bool has_tangents = !g.bind_tangents.empty();
  const size_t slots = vat.slots.size();
  std::span<const glm::u16vec4> j0 = std::span<const glm::u16vec4>(g.slots0).subspan(first, count);
  std::span<const glm::u16vec4> j1;
  if (eight) j1 = std::span<const glm::u16vec4>(g.slots1).subspan(first, count);
  // Per-thread tables that grow to the largest rig this thread has decoded: no allocation per
  // call once warm (decode.h).
  struct Scratch {
    std::vector<glm::mat4> matrices;
    std::vector<glm::u16vec4> local;
    std::vector<uint32_t> used;
  };
  thread_local Scratch scratch;
  auto at_least = [](auto& v, size_t n) {
    if (v.size() < n) v.resize(n);
    return v.data();
  };
  std::span<const glm::mat4> matrices;
  const size_t per_vertex = eight ? 8 : 4;
  if (count * per_vertex < slots) {
    // The slots these vertices name, in order of first use, and the vertices' indices into them.
    glm::mat4* used_m = at_least(scratch.matrices, count * per_vertex);
    glm::u16vec4* local0 = at_least(scratch.local, 2 * count);
    glm::u16vec4* local1 = local0 + count;
    uint32_t* used = at_least(scratch.used, count * per_vertex);
    size_t used_count = 0;
    auto local = [&](uint16_t slot) {
      for (size_t u = 0; u < used_count; ++u)
        if (used[u] == slot) return uint16_t(u);
      used[used_count] = slot;
      return uint16_t(used_count++);
    };
    for (size_t i = 0; i < count; ++i) {
      for (int k = 0; k < 4; ++k) local0[i][k] = local(j0[i][k]);
      if (eight)
        for (int k = 0; k < 4; ++k) local1[i][k] = local(j1[i][k]);
    }
    for (size_t u = 0; u < used_count; ++u) used_m[u] = codec::to_mat4(slot_matrix(used[u]));
    matrices = std::span<const glm::mat4>(used_m, used_count);
    j0 = std::span<const glm::u16vec4>(local0, count);
    if (eight) j1 = std::span<const glm::u16vec4>(local1, count);
  } else {
    glm::mat4* all = at_least(scratch.matrices, slots);
    for (size_t s = 0; s < slots; ++s) all[s] = codec::to_mat4(slot_matrix(uint32_t(s)));
    matrices = std::span<const glm::mat4>(all, slots);
  }
  // Weights that sum to 0 (no slot) blend to the zero matrix, as the sum does. A VAT without
  // bind normals decodes zero normals (below).
  const bool has_normals = !g.bind_normals.empty();
  const VertexSpan in{
      std::span<const glm::vec3>(g.bind_positions).subspan(first, count),
      has_normals ? std::span<const glm::vec3>(g.bind_normals).subspan(first, count) : std::span<const glm::vec3>(),
      has_tangents ? std::span<const glm::vec4>(g.bind_tangents).subspan(first, count) : std::span<const glm::vec4>()};
  detail::blend_vertices(
      in, j0, std::span<const glm::vec4>(g.slot_weights0).subspan(first, count), j1,
      eight ? std::span<const glm::vec4>(g.slot_weights1).subspan(first, count) : std::span<const glm::vec4>(),
      matrices, glm::mat4(0.0f), VertexOutput{positions, normals, has_tangents ? tangents : std::span<glm::vec4>()},
      false);
  if (!normals.empty() && !has_normals) std::fill(normals.begin(), normals.end(), glm::vec3(0.0f));
  if (!tangents.empty()) {
    for (size_t i = 0; i < count; ++i) {
      if (!has_tangents) {
        tangents[i] = glm::vec4(0.0f);
      } else {
        tangents[i].w = g.bind_tangents[first + i].w < 0.0f ? -1.0f : 1.0f;
      }
    }
  }
}

size_t span_count(std::span<glm::vec3> positions, std::span<glm::vec3> normals, std::span<glm::vec4> tangents) {
  size_t n = !positions.empty() ? positions.size() : !normals.empty() ? normals.size() : tangents.size();
  assert(positions.empty() || positions.size() == n);
  assert(normals.empty() || normals.size() == n);
  assert(tangents.empty() || tangents.size() == n);
  return n;
}

}  // namespace

glm::mat4 SlotTransform::matrix() const { return codec::to_mat4(codec::slot_affine(*this)); }

RowBlend clip_rows_at(const Vat& vat, uint32_t clip, float time_s) {
  assert(clip < vat.clips.size());
  const VatClip& c = vat.clips[clip];
  RowBlend r;
  r.clip = clip;
  const float t = std::clamp(time_s, 0.0f, c.duration_s);
  const float x = t * c.fps;
  const float fl = std::floor(x);
  const uint32_t last = c.rows - 1;
  uint32_t k = fl >= float(last) ? last : uint32_t(std::max(fl, 0.0f));
  r.row = c.first_row + k;
  r.row_next = c.first_row + std::min(k + 1, last);
  r.mix = k == last ? 0.0f : std::clamp(x - fl, 0.0f, 1.0f);
  return r;
}

void decode_vertices(const Vat& vat, const PoseBlend& pose, uint32_t first_vertex, std::span<glm::vec3> positions,
                     std::span<glm::vec3> normals, std::span<glm::vec4> tangents) {
  const size_t count = span_count(positions, normals, tangents);
  assert(size_t(first_vertex) + count <= vat.geometry.vertex_count());
  check_rows(vat, pose.a);
  const bool two = pose.weight_b > 0.0f;
  if (two) check_rows(vat, pose.b);

  if (vat.encoding == Encoding::Rig) {
    const Plane& sp = plane_of(vat, PlaneSemantic::Slots);
    rig_vertices(
        vat, [&](uint32_t s) { return codec::slot_affine(pose_slot(vat, sp, pose, s)); }, first_vertex, count,
        positions, normals, tangents);
    return;
  }

  const VatGeometry& g = vat.geometry;
  const Plane& pp = plane_of(vat, PlaneSemantic::Position);
  const bool q16 = pp.format == TexelFormat::RGBA16Unorm;
  const Plane* np = q16 ? &pp : vat.plane(PlaneSemantic::Normal);
  const Plane* tp = vat.plane(PlaneSemantic::Tangent);
  const VatClip& ca = vat.clips[pose.a.clip];
  const VatClip& cb = vat.clips[pose.b.clip];
  const RowBlend& a = pose.a;
  const RowBlend& b = pose.b;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t v = first_vertex + uint32_t(i);
    if (!positions.empty()) {
      glm::vec3 d = lerp3(delta_at(pp, ca, a.row, v), delta_at(pp, ca, a.row_next, v), a.mix);
      if (two) d = lerp3(d, lerp3(delta_at(pp, cb, b.row, v), delta_at(pp, cb, b.row_next, v), b.mix), pose.weight_b);
      positions[i] = g.positions[v] + d;
    }
    if (!normals.empty()) {
      const glm::vec3 rest_normal = g.normals.empty() ? glm::vec3(0.0f) : g.normals[v];
      if (np == nullptr) {
        normals[i] = rest_normal;
      } else {
        glm::vec3 n = lerp3(normal_at(vat, *np, a.row, v), normal_at(vat, *np, a.row_next, v), a.mix);
        if (two)
          n = lerp3(n, lerp3(normal_at(vat, *np, b.row, v), normal_at(vat, *np, b.row_next, v), b.mix), pose.weight_b);
        normals[i] = normalized_or(n, rest_normal);
      }
    }
    if (!tangents.empty()) {
      if (tp == nullptr) {
        tangents[i] = glm::vec4(0.0f);
      } else {
        glm::vec4 t = lerp4(tangent_at(*tp, a.row, v), tangent_at(*tp, a.row_next, v), a.mix);
        if (two) t = lerp4(t, lerp4(tangent_at(*tp, b.row, v), tangent_at(*tp, b.row_next, v), b.mix), pose.weight_b);
        const glm::vec3 rest = g.tangents.empty() ? glm::vec3(0.0f) : glm::vec3(g.tangents[v]);
        tangents[i] = glm::vec4(normalized_or(glm::vec3(t), rest), t.w < 0.0f ? -1.0f : 1.0f);
      }
    }
  }
}

SlotTransform decode_slot(const Vat& vat, const PoseBlend& pose, uint32_t slot) {
  assert(slot < vat.slots.size());
  check_rows(vat, pose.a);
  if (pose.weight_b > 0.0f) check_rows(vat, pose.b);
  return normalized(pose_slot(vat, plane_of(vat, PlaneSemantic::Slots), pose, slot));
}

glm::mat4 decode_joint_world(const Vat& vat, const PoseBlend& pose, uint32_t slot) {
  const glm::mat4 m = decode_slot(vat, pose, slot).matrix();
  const glm::mat4& ib = vat.slots[slot].inverse_bind;
  if (ib == glm::mat4(1.0f)) return m;
  return m * glm::inverse(ib);
}

int find_slot(const Vat& vat, int32_t node) {
  for (size_t i = 0; i < vat.slots.size(); ++i)
    if (vat.slots[i].node == node) return int(i);
  return -1;
}

Result<int> find_slot(const Vat& vat, const std::string& name) {
  for (size_t i = 0; i < vat.slots.size(); ++i)
    if (vat.slots[i].name == name) return int(i);
  if (vat.slots.empty()) {
    return make_error(ErrorCode::Argument, vat.source,
                      detail::cat({"has no joints, so no joint is named \"", printable(name), "\""}));
  }
  const auto label = [&](int s) { return detail::clip_label_of(vat.slots[size_t(s)].name, uint64_t(s)); };
  return make_error(ErrorCode::Argument, vat.source,
                    detail::cat({"no joint is named \"", printable(name),
                                 "\" (joints: ", detail::name_list(vat.slots.size(), label), ")"}));
}

uint32_t clip_of_row(const Vat& vat, uint32_t row) {
  for (size_t c = 0; c < vat.clips.size(); ++c) {
    const VatClip& clip = vat.clips[c];
    if (row >= clip.first_row && row < clip.first_row + clip.rows) return uint32_t(c);
  }
  assert(false && "row outside every clip band");
  return 0;
}

glm::vec4 read_texel(const Vat& vat, PlaneSemantic plane, uint32_t row, uint32_t texel) {
  const VatClip& clip = vat.clips[clip_of_row(vat, row)];
  const Plane* pos = vat.plane(PlaneSemantic::Position);
  const bool q16_delta = vat.encoding == Encoding::Delta && pos && pos->format == TexelFormat::RGBA16Unorm;
  switch (plane) {
    case PlaneSemantic::Position: return glm::vec4(delta_at(plane_of(vat, plane), clip, row, texel), 0.0f);
    case PlaneSemantic::Normal:
      return glm::vec4(normal_at(vat, q16_delta ? *pos : plane_of(vat, plane), row, texel), 0.0f);
    case PlaneSemantic::Tangent: return tangent_at(plane_of(vat, plane), row, texel);
    case PlaneSemantic::Slots: {
      const Plane& p = plane_of(vat, plane);
      const glm::vec4 t = codec::fetch_raw(p, row, texel);
      if (p.format != TexelFormat::RGBA16Unorm) return t;
      if (texel % 2 == 0) return 2.0f * t - 1.0f;
      const Bounds& r = clip.translation_range;
      return glm::vec4(r.min + (r.max - r.min) * glm::vec3(t),
                       clip.scale_min + (clip.scale_max - clip.scale_min) * t.w);
    }
  }
  return glm::vec4(0.0f);
}

SlotTransform read_slot(const Vat& vat, uint32_t row, uint32_t slot) {
  assert(slot < vat.slots.size());
  const VatClip& clip = vat.clips[clip_of_row(vat, row)];
  return slot_at(plane_of(vat, PlaneSemantic::Slots), clip, row, slot);
}

namespace codec {}  // namespace codec
}  // namespace vatkit

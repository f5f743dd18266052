// The reference skinner's kernels (see skin.h).
//
// Per vertex, linear blend skinning builds the blended matrix M = sum w_i J_i (16 floats, so the
// compiler can blend whole columns with SIMD), then:
//  - position: M * (p, 1);
//  - normal: the inverse transpose of the linear part A is cof(A) / det(A), and cof(A) has the
//    columns a1 x a2, a2 x a0, a0 x a1. The normal is renormalized anyway, so only the sign of
//    det(A) matters: n' = normalize(sign(det A) * cof(A) n). No per-vertex inverse, no division,
//    and it stays defined where A is singular but of rank 2 (a joint scaled to 0 on one axis);
//  - tangent: normalize(A t.xyz), w kept.
// Joint matrices are taken as affine (their last row is ignored), as glTF's are.
// Kernels are instantiated per stream combination so the vertex loop has no branches on them.
#include "vatkit/skin.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include <glm/gtc/type_ptr.hpp>

#include "skin_kernels.h"

namespace vatkit {
namespace {

struct Cofactor {
  float c[9];     // columns a1 x a2, a2 x a0, a0 x a1 of the 3x3 part of a column-major mat4
  float sign;     // sign of det: +1 or -1 (a singular matrix counts as +1)
};

inline Cofactor cofactor(const float* m) {
  const float* a0 = m;
  const float* a1 = m + 4;
  const float* a2 = m + 8;
  Cofactor r;
  r.c[0] = a1[1] * a2[2] - a1[2] * a2[1];
  r.c[1] = a1[2] * a2[0] - a1[0] * a2[2];
  r.c[2] = a1[0] * a2[1] - a1[1] * a2[0];
  r.c[3] = a2[1] * a0[2] - a2[2] * a0[1];
  r.c[4] = a2[2] * a0[0] - a2[0] * a0[2];
  r.c[5] = a2[0] * a0[1] - a2[1] * a0[0];
  r.c[6] = a0[1] * a1[2] - a0[2] * a1[1];
  r.c[7] = a0[2] * a1[0] - a0[0] * a1[2];
  r.c[8] = a0[0] * a1[1] - a0[1] * a1[0];
  const float det = a0[0] * r.c[0] + a0[1] * r.c[1] + a0[2] * r.c[2];
  r.sign = det < 0.0f ? -1.0f : 1.0f;
  return r;
}

// Unit-length (x, y, z). Where the transform collapsed the vector (a node or joint scaled to 0,
// as InterpolationTest's cubes are at some keys) there is no direction to keep: the input
// vector passes through (normalized), so normals and tangents stay unit-length and finite.
inline glm::vec3 normalized_or(float x, float y, float z, const glm::vec3& collapsed) {
  float len2 = x * x + y * y + z * z;
  if (!(len2 >= std::numeric_limits<float>::min())) [[unlikely]] {
    x = collapsed.x;
    y = collapsed.y;
    z = collapsed.z;
    len2 = x * x + y * y + z * z;
    if (!(len2 >= std::numeric_limits<float>::min())) return glm::vec3(0.0f);
  }
  const float inv = 1.0f / std::sqrt(len2);
  return glm::vec3(x * inv, y * inv, z * inv);
}

inline glm::vec3 transform_point(const float* m, const glm::vec3& p) {
  return glm::vec3(m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12],
                   m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                   m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
}

inline glm::vec3 transform_normal(const Cofactor& cf, const glm::vec3& n) {
  const float* c = cf.c;
  return normalized_or(cf.sign * (c[0] * n.x + c[3] * n.y + c[6] * n.z),
                       cf.sign * (c[1] * n.x + c[4] * n.y + c[7] * n.z),
                       cf.sign * (c[2] * n.x + c[5] * n.y + c[8] * n.z), n);
}

inline glm::vec4 transform_tangent(const float* m, const glm::vec4& t) {
  const glm::vec3 d = normalized_or(m[0] * t.x + m[4] * t.y + m[8] * t.z,
                                    m[1] * t.x + m[5] * t.y + m[9] * t.z,
                                    m[2] * t.x + m[6] * t.y + m[10] * t.z, glm::vec3(t));
  return glm::vec4(d, t.w);
}

struct SkinStreams {
  size_t count = 0;
  const glm::vec3* positions = nullptr;
  const glm::vec3* normals = nullptr;
  const glm::vec4* tangents = nullptr;
  const glm::u16vec4* joints0 = nullptr;
  const glm::vec4* weights0 = nullptr;
  const glm::u16vec4* joints1 = nullptr;
  const glm::vec4* weights1 = nullptr;
  const glm::mat4* joint_matrices = nullptr;
  size_t joint_count = 0;
  const float* fallback = nullptr;
  glm::vec3* out_positions = nullptr;
  glm::vec3* out_normals = nullptr;
  glm::vec4* out_tangents = nullptr;
};

inline void accumulate(float* __restrict m, const float* __restrict j, float w) {
  for (int e = 0; e < 16; ++e) m[e] += w * j[e];
}

template <bool kEight, bool kPos, bool kNrm, bool kTan>
void skin_kernel(const SkinStreams& s) {
  const float* jm = glm::value_ptr(s.joint_matrices[0]);
  for (size_t v = 0; v < s.count; ++v) {
    const glm::vec4 wa = s.weights0[v];
    const glm::u16vec4 ja = s.joints0[v];
    glm::vec4 wb(0.0f);
    glm::u16vec4 jb(0);
    if constexpr (kEight) {
      wb = s.weights1[v];
      jb = s.joints1[v];
    }
    const float sum = (wa.x + wa.y) + (wa.z + wa.w) + ((wb.x + wb.y) + (wb.z + wb.w));
    alignas(16) float m[16];
    if (sum == 0.0f) {
      std::memcpy(m, s.fallback, sizeof(m));
    } else {
      assert(ja.x < s.joint_count && ja.y < s.joint_count && ja.z < s.joint_count &&
             ja.w < s.joint_count);
      const float inv = 1.0f / sum;
      const float* j0 = jm + 16 * size_t(ja.x);
      const float w0 = wa.x * inv;
      for (int e = 0; e < 16; ++e) m[e] = w0 * j0[e];
      accumulate(m, jm + 16 * size_t(ja.y), wa.y * inv);
      accumulate(m, jm + 16 * size_t(ja.z), wa.z * inv);
      accumulate(m, jm + 16 * size_t(ja.w), wa.w * inv);
      if constexpr (kEight) {
        assert(jb.x < s.joint_count && jb.y < s.joint_count && jb.z < s.joint_count &&
               jb.w < s.joint_count);
        accumulate(m, jm + 16 * size_t(jb.x), wb.x * inv);
        accumulate(m, jm + 16 * size_t(jb.y), wb.y * inv);
        accumulate(m, jm + 16 * size_t(jb.z), wb.z * inv);
        accumulate(m, jm + 16 * size_t(jb.w), wb.w * inv);
      }
    }
    if constexpr (kPos) s.out_positions[v] = transform_point(m, s.positions[v]);
    if constexpr (kNrm) s.out_normals[v] = transform_normal(cofactor(m), s.normals[v]);
    if constexpr (kTan) s.out_tangents[v] = transform_tangent(m, s.tangents[v]);
  }
}

template <bool kEight>
void dispatch_skin(const SkinStreams& s) {
  const int mask = (s.out_positions ? 1 : 0) | (s.out_normals ? 2 : 0) | (s.out_tangents ? 4 : 0);
  switch (mask) {
    case 0: return;
    case 1: return skin_kernel<kEight, true, false, false>(s);
    case 2: return skin_kernel<kEight, false, true, false>(s);
    case 3: return skin_kernel<kEight, true, true, false>(s);
    case 4: return skin_kernel<kEight, false, false, true>(s);
    case 5: return skin_kernel<kEight, true, false, true>(s);
    case 6: return skin_kernel<kEight, false, true, true>(s);
    case 7: return skin_kernel<kEight, true, true, true>(s);
  }
}

// Adds w * delta to dst for n elements of T (vec3 or the xyz of a vec4).
template <class T>
inline void add_scaled(T* __restrict dst, const glm::vec3* __restrict delta, size_t n, float w) {
  for (size_t i = 0; i < n; ++i) {
    dst[i].x += w * delta[i].x;
    dst[i].y += w * delta[i].y;
    dst[i].z += w * delta[i].z;
  }
}

}  // namespace

namespace detail {

void morph_range(const Primitive& primitive, std::span<const float> weights, size_t begin,
                 size_t end, glm::vec3* positions, glm::vec3* normals, glm::vec4* tangents) {
  assert(begin <= end && end <= primitive.vertex_count());
  const size_t n = end - begin;
  if (n == 0) return;
  const size_t targets = std::min(weights.size(), primitive.targets.size());
  if (positions) std::memcpy(positions, primitive.positions.data() + begin, n * sizeof(glm::vec3));
  if (normals) {
    assert(primitive.normals.size() == primitive.vertex_count());
    std::memcpy(normals, primitive.normals.data() + begin, n * sizeof(glm::vec3));
  }
  if (tangents) {
    assert(primitive.tangents.size() == primitive.vertex_count());
    std::memcpy(tangents, primitive.tangents.data() + begin, n * sizeof(glm::vec4));
  }
  for (size_t t = 0; t < targets; ++t) {
    const float w = weights[t];
    if (w == 0.0f) continue;
    const MorphTarget& target = primitive.targets[t];
    if (positions && !target.positions.empty())
      add_scaled(positions, target.positions.data() + begin, n, w);
    if (normals && !target.normals.empty()) add_scaled(normals, target.normals.data() + begin, n, w);
    if (tangents && !target.tangents.empty())
      add_scaled(tangents, target.tangents.data() + begin, n, w);
  }
}

}  // namespace detail

void apply_morph_targets(const Primitive& primitive, std::span<const float> weights,
                         VertexOutput out) {
  const size_t n = primitive.vertex_count();
  assert(out.positions.empty() || out.positions.size() == n);
  assert(out.normals.empty() || out.normals.size() == n);
  assert(out.tangents.empty() || out.tangents.size() == n);
  detail::morph_range(primitive, weights, 0, n, out.positions.empty() ? nullptr : out.positions.data(),
                      out.normals.empty() ? nullptr : out.normals.data(),
                      out.tangents.empty() ? nullptr : out.tangents.data());
}

void compute_joint_matrices(const Skin& skin, std::span<const glm::mat4> world,
                            std::span<glm::mat4> out) {
  assert(out.size() == skin.joints.size() && skin.inverse_bind.size() == skin.joints.size());
  for (size_t j = 0; j < skin.joints.size(); ++j) out[j] = world[skin.joints[j]] * skin.inverse_bind[j];
}

void skin_vertices(VertexSpan in, std::span<const glm::u16vec4> joints0,
                   std::span<const glm::vec4> weights0, std::span<const glm::u16vec4> joints1,
                   std::span<const glm::vec4> weights1, std::span<const glm::mat4> joint_matrices,
                   const glm::mat4& fallback, VertexOutput out) {
  const size_t n = in.positions.size();
  assert(joints0.size() == n && weights0.size() == n);
  const bool eight = !joints1.empty();
  assert(!eight || (joints1.size() == n && weights1.size() == n));
  SkinStreams s;
  s.count = n;
  s.positions = in.positions.data();
  s.normals = in.normals.data();
  s.tangents = in.tangents.data();
  s.joints0 = joints0.data();
  s.weights0 = weights0.data();
  s.joints1 = joints1.data();
  s.weights1 = weights1.data();
  s.joint_matrices = joint_matrices.data();
  s.joint_count = joint_matrices.size();
  s.fallback = glm::value_ptr(fallback);
  if (!out.positions.empty()) {
    assert(out.positions.size() == n);
    s.out_positions = out.positions.data();
  }
  if (!out.normals.empty() && !in.normals.empty()) {
    assert(out.normals.size() == n && in.normals.size() == n);
    s.out_normals = out.normals.data();
  }
  if (!out.tangents.empty() && !in.tangents.empty()) {
    assert(out.tangents.size() == n && in.tangents.size() == n);
    s.out_tangents = out.tangents.data();
  }
  if (n == 0) return;
  if (joint_matrices.empty()) {
    // Misuse (a skin without joints); in release builds every vertex takes the fallback.
    assert(false && "skin_vertices needs the skin's joint matrices");
    transform_vertices(in, fallback, out);
    return;
  }
  eight ? dispatch_skin<true>(s) : dispatch_skin<false>(s);
}

void transform_vertices(VertexSpan in, const glm::mat4& matrix, VertexOutput out) {
  const size_t n = in.positions.size();
  const float* m = glm::value_ptr(matrix);
  if (!out.positions.empty()) {
    assert(out.positions.size() == n);
    for (size_t v = 0; v < n; ++v) out.positions[v] = transform_point(m, in.positions[v]);
  }
  if (!out.normals.empty() && !in.normals.empty()) {
    assert(out.normals.size() == n && in.normals.size() == n);
    const Cofactor cf = cofactor(m);
    for (size_t v = 0; v < n; ++v) out.normals[v] = transform_normal(cf, in.normals[v]);
  }
  if (!out.tangents.empty() && !in.tangents.empty()) {
    assert(out.tangents.size() == n && in.tangents.size() == n);
    for (size_t v = 0; v < n; ++v) out.tangents[v] = transform_tangent(m, in.tangents[v]);
  }
}

}  // namespace vatkit

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
// The SIMD and scalar paths must round identically, so no multiply-add may be fused behind our
// back (GCC fuses by default in C++ when the target has FMA, e.g. -march=native).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "vatkit/skin.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include <glm/gtc/type_ptr.hpp>

#include "simd/simd.h"
#include "simd/skin_kernels.h"

#if defined(__SSE2__) && !defined(VATKIT_NO_SIMD)
#include <xmmintrin.h>
#define VATKIT_SKIN_SSE 1
#else
#define VATKIT_SKIN_SSE 0
#endif
#if VATKIT_SKIN_SSE && VATKIT_SIMD_AVX2
#include <immintrin.h>
#define VATKIT_SKIN_AVX2 1
#else
#define VATKIT_SKIN_AVX2 0
#endif

namespace vatkit {
namespace {

struct Cofactor {
  float c[9];  // columns a1 x a2, a2 x a0, a0 x a1 of the 3x3 part of a column-major mat4
  float sign;  // sign of det: +1 or -1 (a singular matrix counts as +1)
};

// cofactor, transform_point, transform_normal, transform_tangent and accumulate are the scalar
// kernels' (the reference the lane kernels match, and the build without SIMD): [[maybe_unused]]
// where SSE kernels replace them.
[[maybe_unused]] inline Cofactor cofactor(const float* m) {
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

[[maybe_unused]] inline glm::vec3 transform_point(const float* m, const glm::vec3& p) {
  return glm::vec3(m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                   m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
}

[[maybe_unused]] inline glm::vec3 transform_normal(const Cofactor& cf, const glm::vec3& n) {
  const float* c = cf.c;
  return normalized_or(cf.sign * (c[0] * n.x + c[3] * n.y + c[6] * n.z),
                       cf.sign * (c[1] * n.x + c[4] * n.y + c[7] * n.z),
                       cf.sign * (c[2] * n.x + c[5] * n.y + c[8] * n.z), n);
}

[[maybe_unused]] inline glm::vec4 transform_tangent(const float* m, const glm::vec4& t) {
  const glm::vec3 d = normalized_or(m[0] * t.x + m[4] * t.y + m[8] * t.z, m[1] * t.x + m[5] * t.y + m[9] * t.z,
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
  bool renormalize = true;  // false: the weights are used as given (detail::blend_vertices)
  glm::vec3* out_positions = nullptr;
  glm::vec3* out_normals = nullptr;
  glm::vec4* out_tangents = nullptr;
};

// `s` from vertex v0 on.
inline SkinStreams streams_from(const SkinStreams& s, size_t v0) {
  SkinStreams t = s;
  t.count = s.count - v0;
  auto at = [v0](auto* p) { return p ? p + v0 : p; };
  t.positions = at(s.positions);
  t.normals = at(s.normals);
  t.tangents = at(s.tangents);
  t.joints0 = at(s.joints0);
  t.weights0 = at(s.weights0);
  t.joints1 = at(s.joints1);
  t.weights1 = at(s.weights1);
  t.out_positions = at(s.out_positions);
  t.out_normals = at(s.out_normals);
  t.out_tangents = at(s.out_tangents);
  return t;
}

[[maybe_unused]] inline void accumulate(float* __restrict m, const float* __restrict j, float w) {
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
      assert(ja.x < s.joint_count && ja.y < s.joint_count && ja.z < s.joint_count && ja.w < s.joint_count);
      const float inv = s.renormalize ? 1.0f / sum : 1.0f;  // w * 1 is w: as given
      const float* j0 = jm + 16 * size_t(ja.x);
      const float w0 = wa.x * inv;
      for (int e = 0; e < 16; ++e) m[e] = w0 * j0[e];
      accumulate(m, jm + 16 * size_t(ja.y), wa.y * inv);
      accumulate(m, jm + 16 * size_t(ja.z), wa.z * inv);
      accumulate(m, jm + 16 * size_t(ja.w), wa.w * inv);
      if constexpr (kEight) {
        assert(jb.x < s.joint_count && jb.y < s.joint_count && jb.z < s.joint_count && jb.w < s.joint_count);
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

#if VATKIT_SKIN_SSE
// The same arithmetic as skin_kernel, four vertices at a time, lane for lane in the same order
// (no FMA, no reassociation, exact sqrt and division), so every vertex gets the same bits
// whichever path or block position it takes. Blending runs per vertex on whole matrix columns;
// the four blended matrices are then transposed so the transforms, cofactors and
// normalizations run on SoA registers (one lane per vertex).
struct Block4 {
  __m128 m[3][4];  // m[row][col], one lane per vertex
};

// The normalized weights of vertices v0..v0+3, wn[influence][vertex]; returns the mask of the
// vertices whose weights sum to 0 (they take the fallback matrix).
template <bool kEight>
inline int normalized_weights4(const SkinStreams& s, size_t v0, float (*wn)[4]) {
  __m128 w[8];
  w[0] = _mm_loadu_ps(&s.weights0[v0].x);
  w[1] = _mm_loadu_ps(&s.weights0[v0 + 1].x);
  w[2] = _mm_loadu_ps(&s.weights0[v0 + 2].x);
  w[3] = _mm_loadu_ps(&s.weights0[v0 + 3].x);
  _MM_TRANSPOSE4_PS(w[0], w[1], w[2], w[3]);
  __m128 sum = _mm_add_ps(_mm_add_ps(w[0], w[1]), _mm_add_ps(w[2], w[3]));
  if constexpr (kEight) {
    w[4] = _mm_loadu_ps(&s.weights1[v0].x);
    w[5] = _mm_loadu_ps(&s.weights1[v0 + 1].x);
    w[6] = _mm_loadu_ps(&s.weights1[v0 + 2].x);
    w[7] = _mm_loadu_ps(&s.weights1[v0 + 3].x);
    _MM_TRANSPOSE4_PS(w[4], w[5], w[6], w[7]);
    sum = _mm_add_ps(sum, _mm_add_ps(_mm_add_ps(w[4], w[5]), _mm_add_ps(w[6], w[7])));
  }
  const int zero = _mm_movemask_ps(_mm_cmpeq_ps(sum, _mm_setzero_ps()));
  const __m128 inv = s.renormalize ? _mm_div_ps(_mm_set1_ps(1.0f), sum) : _mm_set1_ps(1.0f);
  constexpr int kInfluences = kEight ? 8 : 4;
  for (int k = 0; k < kInfluences; ++k) _mm_storeu_ps(wn[k], _mm_mul_ps(w[k], inv));
  return zero;
}

// The joint matrices vertex v blends (kEight: 8, else 4).
inline void four_matrices(const SkinStreams& s, glm::u16vec4 j, const float** src) {
  const float* jm = glm::value_ptr(s.joint_matrices[0]);
  assert(j.x < s.joint_count && j.y < s.joint_count && j.z < s.joint_count && j.w < s.joint_count);
  src[0] = jm + 16 * size_t(j.x);
  src[1] = jm + 16 * size_t(j.y);
  src[2] = jm + 16 * size_t(j.z);
  src[3] = jm + 16 * size_t(j.w);
}
template <bool kEight>
inline void influence_matrices(const SkinStreams& s, size_t v, const float** src) {
  four_matrices(s, s.joints0[v], src);
  if constexpr (kEight) four_matrices(s, s.joints1[v], src + 4);
}

template <bool kEight>
inline void blend4(const SkinStreams& s, size_t v0, Block4& b) {
  constexpr int kInfluences = kEight ? 8 : 4;
  alignas(16) float wn[kInfluences][4];
  const int zero = normalized_weights4<kEight>(s, v0, wn);
  __m128 cols[4][4];  // [vertex][column]
  for (int i = 0; i < 4; ++i) {
    if (zero & (1 << i)) {
      for (int c = 0; c < 4; ++c) cols[i][c] = _mm_loadu_ps(s.fallback + 4 * c);
      continue;
    }
    const float* src[kInfluences];
    influence_matrices<kEight>(s, v0 + size_t(i), src);
    const __m128 w0 = _mm_set1_ps(wn[0][i]);
    __m128 c0 = _mm_mul_ps(w0, _mm_loadu_ps(src[0]));
    __m128 c1 = _mm_mul_ps(w0, _mm_loadu_ps(src[0] + 4));
    __m128 c2 = _mm_mul_ps(w0, _mm_loadu_ps(src[0] + 8));
    __m128 c3 = _mm_mul_ps(w0, _mm_loadu_ps(src[0] + 12));
    for (int k = 1; k < kInfluences; ++k) {
      const __m128 wk = _mm_set1_ps(wn[k][i]);
      c0 = _mm_add_ps(c0, _mm_mul_ps(wk, _mm_loadu_ps(src[k])));
      c1 = _mm_add_ps(c1, _mm_mul_ps(wk, _mm_loadu_ps(src[k] + 4)));
      c2 = _mm_add_ps(c2, _mm_mul_ps(wk, _mm_loadu_ps(src[k] + 8)));
      c3 = _mm_add_ps(c3, _mm_mul_ps(wk, _mm_loadu_ps(src[k] + 12)));
    }
    cols[i][0] = c0;
    cols[i][1] = c1;
    cols[i][2] = c2;
    cols[i][3] = c3;
  }
  for (int c = 0; c < 4; ++c) {
    __m128 r0 = cols[0][c], r1 = cols[1][c], r2 = cols[2][c], r3 = cols[3][c];
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    b.m[0][c] = r0;
    b.m[1][c] = r1;
    b.m[2][c] = r2;
  }
}

// Normalizes (x, y, z) lane-wise; lanes where the transform collapsed the vector take the
// scalar path (normalized_or with the input), which computes the same bits for the others.
inline void normalize4_or(__m128& x, __m128& y, __m128& z, const glm::vec3* in) {
  const __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z));
  const int ok = _mm_movemask_ps(_mm_cmpge_ps(len2, _mm_set1_ps(std::numeric_limits<float>::min())));
  const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
  if (ok == 0xF) [[likely]] {
    x = _mm_mul_ps(x, inv);
    y = _mm_mul_ps(y, inv);
    z = _mm_mul_ps(z, inv);
    return;
  }
  alignas(16) float ax[4], ay[4], az[4];
  _mm_store_ps(ax, x);
  _mm_store_ps(ay, y);
  _mm_store_ps(az, z);
  for (int i = 0; i < 4; ++i) {
    const glm::vec3 r = normalized_or(ax[i], ay[i], az[i], in[i]);
    ax[i] = r.x;
    ay[i] = r.y;
    az[i] = r.z;
  }
  x = _mm_load_ps(ax);
  y = _mm_load_ps(ay);
  z = _mm_load_ps(az);
}

// Four vertices through one matrix per lane (the skin's blended matrices, or a rigid part's one
// matrix in every lane): positions, cofactor-transformed normals, tangents, as the scalar
// transform_point / transform_normal / transform_tangent compute them. BlockStreams points at a
// block's streams (the 8-lane block below takes the same).
struct BlockStreams {
  const glm::vec3* positions = nullptr;  // the block's first vertex; null: not wanted
  const glm::vec3* normals = nullptr;
  const glm::vec4* tangents = nullptr;
  glm::vec3* out_positions = nullptr;
  glm::vec3* out_normals = nullptr;
  glm::vec4* out_tangents = nullptr;
};
template <bool kPos, bool kNrm, bool kTan>
__attribute__((always_inline)) inline void transform_block4(const __m128 (&m)[3][4], const BlockStreams& s) {
  if constexpr (kPos) {
    const glm::vec3* p = s.positions;
    const __m128 x = _mm_setr_ps(p[0].x, p[1].x, p[2].x, p[3].x);
    const __m128 y = _mm_setr_ps(p[0].y, p[1].y, p[2].y, p[3].y);
    const __m128 z = _mm_setr_ps(p[0].z, p[1].z, p[2].z, p[3].z);
    alignas(16) float o[3][4];
    for (int r = 0; r < 3; ++r) {
      _mm_store_ps(o[r], _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[r][0], x), _mm_mul_ps(m[r][1], y)),
                                               _mm_mul_ps(m[r][2], z)),
                                    m[r][3]));
    }
    for (int i = 0; i < 4; ++i) s.out_positions[i] = glm::vec3(o[0][i], o[1][i], o[2][i]);
  }
  if constexpr (kNrm) {
    // Cofactor columns, as in cofactor(): a_k[r] = m[r][k].
    const __m128 c0 = _mm_sub_ps(_mm_mul_ps(m[1][1], m[2][2]), _mm_mul_ps(m[2][1], m[1][2]));
    const __m128 c1 = _mm_sub_ps(_mm_mul_ps(m[2][1], m[0][2]), _mm_mul_ps(m[0][1], m[2][2]));
    const __m128 c2 = _mm_sub_ps(_mm_mul_ps(m[0][1], m[1][2]), _mm_mul_ps(m[1][1], m[0][2]));
    const __m128 c3 = _mm_sub_ps(_mm_mul_ps(m[1][2], m[2][0]), _mm_mul_ps(m[2][2], m[1][0]));
    const __m128 c4 = _mm_sub_ps(_mm_mul_ps(m[2][2], m[0][0]), _mm_mul_ps(m[0][2], m[2][0]));
    const __m128 c5 = _mm_sub_ps(_mm_mul_ps(m[0][2], m[1][0]), _mm_mul_ps(m[1][2], m[0][0]));
    const __m128 c6 = _mm_sub_ps(_mm_mul_ps(m[1][0], m[2][1]), _mm_mul_ps(m[2][0], m[1][1]));
    const __m128 c7 = _mm_sub_ps(_mm_mul_ps(m[2][0], m[0][1]), _mm_mul_ps(m[0][0], m[2][1]));
    const __m128 c8 = _mm_sub_ps(_mm_mul_ps(m[0][0], m[1][1]), _mm_mul_ps(m[1][0], m[0][1]));
    const __m128 det =
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[0][0], c0), _mm_mul_ps(m[1][0], c1)), _mm_mul_ps(m[2][0], c2));
    const __m128 flip = _mm_and_ps(_mm_cmplt_ps(det, _mm_setzero_ps()), _mm_set1_ps(-0.0f));
    const glm::vec3* n = s.normals;
    const __m128 x = _mm_setr_ps(n[0].x, n[1].x, n[2].x, n[3].x);
    const __m128 y = _mm_setr_ps(n[0].y, n[1].y, n[2].y, n[3].y);
    const __m128 z = _mm_setr_ps(n[0].z, n[1].z, n[2].z, n[3].z);
    __m128 ox = _mm_xor_ps(flip, _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, x), _mm_mul_ps(c3, y)), _mm_mul_ps(c6, z)));
    __m128 oy = _mm_xor_ps(flip, _mm_add_ps(_mm_add_ps(_mm_mul_ps(c1, x), _mm_mul_ps(c4, y)), _mm_mul_ps(c7, z)));
    __m128 oz = _mm_xor_ps(flip, _mm_add_ps(_mm_add_ps(_mm_mul_ps(c2, x), _mm_mul_ps(c5, y)), _mm_mul_ps(c8, z)));
    normalize4_or(ox, oy, oz, n);
    alignas(16) float o[3][4];
    _mm_store_ps(o[0], ox);
    _mm_store_ps(o[1], oy);
    _mm_store_ps(o[2], oz);
    for (int i = 0; i < 4; ++i) s.out_normals[i] = glm::vec3(o[0][i], o[1][i], o[2][i]);
  }
  if constexpr (kTan) {
    const glm::vec4* t = s.tangents;
    const __m128 x = _mm_setr_ps(t[0].x, t[1].x, t[2].x, t[3].x);
    const __m128 y = _mm_setr_ps(t[0].y, t[1].y, t[2].y, t[3].y);
    const __m128 z = _mm_setr_ps(t[0].z, t[1].z, t[2].z, t[3].z);
    __m128 ox = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[0][0], x), _mm_mul_ps(m[0][1], y)), _mm_mul_ps(m[0][2], z));
    __m128 oy = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[1][0], x), _mm_mul_ps(m[1][1], y)), _mm_mul_ps(m[1][2], z));
    __m128 oz = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[2][0], x), _mm_mul_ps(m[2][1], y)), _mm_mul_ps(m[2][2], z));
    const glm::vec3 in[4] = {glm::vec3(t[0]), glm::vec3(t[1]), glm::vec3(t[2]), glm::vec3(t[3])};
    normalize4_or(ox, oy, oz, in);
    alignas(16) float o[3][4];
    _mm_store_ps(o[0], ox);
    _mm_store_ps(o[1], oy);
    _mm_store_ps(o[2], oz);
    for (int i = 0; i < 4; ++i) s.out_tangents[i] = glm::vec4(o[0][i], o[1][i], o[2][i], t[i].w);
  }
}

template <bool kEight, bool kPos, bool kNrm, bool kTan>
inline void skin_block4(const SkinStreams& s, size_t v0) {
  Block4 b;
  blend4<kEight>(s, v0, b);
  BlockStreams io;
  if constexpr (kPos) io.positions = s.positions + v0, io.out_positions = s.out_positions + v0;
  if constexpr (kNrm) io.normals = s.normals + v0, io.out_normals = s.out_normals + v0;
  if constexpr (kTan) io.tangents = s.tangents + v0, io.out_tangents = s.out_tangents + v0;
  transform_block4<kPos, kNrm, kTan>(b.m, io);
}

// transform_vertices, four at a time: the matrix in every lane; the last 1-3 vertices through the
// same block on a padded copy, so every vertex gets the scalar path's bits.
template <bool kPos, bool kNrm, bool kTan>
void transform_kernel_sse(VertexSpan in, const glm::mat4& matrix, VertexOutput out, size_t n) {
  __m128 m[3][4];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m[r][c] = _mm_set1_ps(matrix[c][r]);
  const size_t full = n & ~size_t(3);
  BlockStreams io;
  for (size_t v = 0; v < full; v += 4) {
    if constexpr (kPos) io.positions = &in.positions[v], io.out_positions = &out.positions[v];
    if constexpr (kNrm) io.normals = &in.normals[v], io.out_normals = &out.normals[v];
    if constexpr (kTan) io.tangents = &in.tangents[v], io.out_tangents = &out.tangents[v];
    transform_block4<kPos, kNrm, kTan>(m, io);
  }
  if (full == n) return;
  glm::vec3 pos[4] = {}, nrm[4] = {glm::vec3(0, 0, 1), glm::vec3(0, 0, 1), glm::vec3(0, 0, 1), glm::vec3(0, 0, 1)};
  glm::vec4 tan[4] = {glm::vec4(1, 0, 0, 1), glm::vec4(1, 0, 0, 1), glm::vec4(1, 0, 0, 1), glm::vec4(1, 0, 0, 1)};
  glm::vec3 opos[4], onrm[4];
  glm::vec4 otan[4];
  for (size_t i = 0; i < n - full; ++i) {
    if constexpr (kPos) pos[i] = in.positions[full + i];
    if constexpr (kNrm) nrm[i] = in.normals[full + i];
    if constexpr (kTan) tan[i] = in.tangents[full + i];
  }
  transform_block4<kPos, kNrm, kTan>(m, BlockStreams{pos, nrm, tan, opos, onrm, otan});
  for (size_t i = 0; i < n - full; ++i) {
    if constexpr (kPos) out.positions[full + i] = opos[i];
    if constexpr (kNrm) out.normals[full + i] = onrm[i];
    if constexpr (kTan) out.tangents[full + i] = otan[i];
  }
}

template <bool kEight, bool kPos, bool kNrm, bool kTan>
void skin_kernel_sse(const SkinStreams& s) {
  const size_t full = s.count & ~size_t(3);
  for (size_t v = 0; v < full; v += 4) skin_block4<kEight, kPos, kNrm, kTan>(s, v);
  const size_t rest = s.count - full;
  if (rest == 0) return;
  // The last 1-3 vertices go through the same block code on a padded copy (padding lanes have
  // zero weights and take the fallback), so their bits match the full blocks'.
  glm::vec3 pos[4] = {}, nrm[4] = {glm::vec3(0, 0, 1), glm::vec3(0, 0, 1), glm::vec3(0, 0, 1), glm::vec3(0, 0, 1)};
  glm::vec4 tan[4] = {glm::vec4(1, 0, 0, 1), glm::vec4(1, 0, 0, 1), glm::vec4(1, 0, 0, 1), glm::vec4(1, 0, 0, 1)};
  glm::u16vec4 j0[4] = {}, j1[4] = {};
  glm::vec4 w0[4] = {}, w1[4] = {};
  glm::vec3 opos[4], onrm[4];
  glm::vec4 otan[4];
  for (size_t i = 0; i < rest; ++i) {
    const size_t v = full + i;
    if constexpr (kPos) pos[i] = s.positions[v];
    if constexpr (kNrm) nrm[i] = s.normals[v];
    if constexpr (kTan) tan[i] = s.tangents[v];
    j0[i] = s.joints0[v];
    w0[i] = s.weights0[v];
    if constexpr (kEight) {
      j1[i] = s.joints1[v];
      w1[i] = s.weights1[v];
    }
  }
  SkinStreams t = s;
  t.count = 4;
  t.positions = pos;
  t.normals = nrm;
  t.tangents = tan;
  t.joints0 = j0;
  t.weights0 = w0;
  t.joints1 = j1;
  t.weights1 = w1;
  t.out_positions = opos;
  t.out_normals = onrm;
  t.out_tangents = otan;
  skin_block4<kEight, kPos, kNrm, kTan>(t, 0);
  for (size_t i = 0; i < rest; ++i) {
    if constexpr (kPos) s.out_positions[full + i] = opos[i];
    if constexpr (kNrm) s.out_normals[full + i] = onrm[i];
    if constexpr (kTan) s.out_tangents[full + i] = otan[i];
  }
}
#if VATKIT_SKIN_AVX2
// The same arithmetic again, eight vertices at a time where the CPU has AVX2 (simd.h): blending
// runs per vertex on two columns at once, then an 8x8 transpose gives the SoA registers; the
// transforms (skin_lanes.inl, shared with the 16-lane kernel) run each lane through the SSE
// block's operations in its order, so the bits are the same (the last 1-7 vertices go through
// the SSE kernel). Loads and stores of vec3 streams are shuffles of three 8-float vectors rather
// than lane-by-lane inserts.
VATKIT_AVX2_BEGIN
namespace avx2 {

#define VATKIT_XYZ_LANES 8
#include "simd/simd_xyz.inl"  // load_xyz, store_xyz
typedef xyz_fv f8;

inline f8 lane_sqrt(f8 x) { return f8(_mm256_sqrt_ps(__m256(x))); }
inline bool all_lanes(xyz_iv m) { return _mm256_movemask_ps(__m256(m)) == 0xFF; }

// Rows 0-2 of an 8x8 transpose: lane i of out[k] is rows[i][k], for k in {0, 1, 2, 4, 5, 6}
// (a blended matrix's two columns without their last row).
inline void transpose8_xyz(const __m256 (&r)[8], f8 (&m)[3][4], int col) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44);
  m[0][col] = _mm256_permute2f128_ps(u0, u4, 0x20);
  m[1][col] = _mm256_permute2f128_ps(u1, u5, 0x20);
  m[2][col] = _mm256_permute2f128_ps(u2, u6, 0x20);
  m[0][col + 1] = _mm256_permute2f128_ps(u0, u4, 0x31);
  m[1][col + 1] = _mm256_permute2f128_ps(u1, u5, 0x31);
  m[2][col + 1] = _mm256_permute2f128_ps(u2, u6, 0x31);
}

template <bool kEight>
inline void blend_block(const SkinStreams& s, size_t v0, f8 (&m)[3][4]) {
  constexpr int kInfluences = kEight ? 8 : 4;
  alignas(32) float wn[kInfluences][8];
  float half[kInfluences][4];
  int zero = normalized_weights4<kEight>(s, v0, half);
  for (int k = 0; k < kInfluences; ++k) std::memcpy(wn[k], half[k], 16);
  zero |= normalized_weights4<kEight>(s, v0 + 4, half) << 4;
  for (int k = 0; k < kInfluences; ++k) std::memcpy(wn[k] + 4, half[k], 16);
  __m256 lo[8], hi[8];  // per vertex: columns 0-1, columns 2-3
  for (int i = 0; i < 8; ++i) {
    if (zero & (1 << i)) {
      lo[i] = _mm256_loadu_ps(s.fallback);
      hi[i] = _mm256_loadu_ps(s.fallback + 8);
      continue;
    }
    const float* src[kInfluences];
    influence_matrices<kEight>(s, v0 + size_t(i), src);
    const f8 w0 = f8{} + wn[0][i];
    f8 a = w0 * f8(_mm256_loadu_ps(src[0]));
    f8 b = w0 * f8(_mm256_loadu_ps(src[0] + 8));
    for (int k = 1; k < kInfluences; ++k) {
      const f8 wk = f8{} + wn[k][i];
      a = a + wk * f8(_mm256_loadu_ps(src[k]));
      b = b + wk * f8(_mm256_loadu_ps(src[k] + 8));
    }
    lo[i] = a;
    hi[i] = b;
  }
  transpose8_xyz(lo, m, 0);
  transpose8_xyz(hi, m, 2);
}

// The last 1-7 vertices: the SSE kernel.
template <bool kEight, bool kPos, bool kNrm, bool kTan>
void skin_tail(const SkinStreams& s) {
  skin_kernel_sse<kEight, kPos, kNrm, kTan>(s);
}
template <bool kPos, bool kNrm, bool kTan>
void transform_tail(VertexSpan in, const glm::mat4& matrix, VertexOutput out, size_t n) {
  transform_kernel_sse<kPos, kNrm, kTan>(in, matrix, out, n);
}

#include "simd/skin_lanes.inl"  // normalize_or, transform_block, skin_kernel, transform_kernel
#undef VATKIT_XYZ_LANES

}  // namespace avx2
VATKIT_AVX2_END

// Sixteen vertices at a time where the CPU has AVX-512 (simd.h): each lane runs the SSE block's
// operations in its order (the last 1-15 vertices go through the AVX2 kernel).
VATKIT_AVX512_BEGIN
namespace avx512 {

#define VATKIT_XYZ_LANES 16
#include "simd/simd_xyz.inl"  // load_xyz, store_xyz
typedef xyz_fv f16;

// maskz: GCC 12 warns on the plain form's undefined source.
inline f16 lane_sqrt(f16 x) { return f16(_mm512_maskz_sqrt_ps(0xFFFF, __m512(x))); }
inline bool all_lanes(xyz_iv m) { return _mm512_test_epi32_mask(__m512i(m), __m512i(m)) == 0xFFFF; }

// The blended matrices of vertices v0..v0+15 as m[row][col] (rows 0-2), one lane per vertex: each
// vertex blends whole matrices (one 16-float load per influence), then a 16x16 transpose that
// keeps the 12 elements used.
template <bool kEight>
inline void blend_block(const SkinStreams& s, size_t v0, f16 (&m)[3][4]) {
  constexpr int kInfluences = kEight ? 8 : 4;
  alignas(64) float wn[kInfluences][16];
  int zero = 0;
  for (int q = 0; q < 4; ++q) {
    float part[kInfluences][4];
    zero |= normalized_weights4<kEight>(s, v0 + 4 * size_t(q), part) << (4 * q);
    for (int k = 0; k < kInfluences; ++k) std::memcpy(wn[k] + 4 * q, part[k], 16);
  }
  __m512 r[16];  // per vertex: its blended matrix, column-major
  for (int i = 0; i < 16; ++i) {
    if (zero & (1 << i)) {
      r[i] = _mm512_loadu_ps(s.fallback);
      continue;
    }
    const float* src[kInfluences];
    influence_matrices<kEight>(s, v0 + size_t(i), src);
    f16 a = (f16{} + wn[0][i]) * f16(_mm512_loadu_ps(src[0]));
    for (int k = 1; k < kInfluences; ++k) a = a + (f16{} + wn[k][i]) * f16(_mm512_loadu_ps(src[k]));
    r[i] = __m512(a);
  }
  // Within each 128-bit lane (a column): rows 0-2 of vertices 4g..4g+3, for each group g. The
  // maskz forms with every lane set: GCC 12 warns on the plain forms' undefined source.
  __m512 u[4][3];
  for (int g = 0; g < 4; ++g) {
    const __m512* q = r + 4 * g;
    const __m512 t0 = _mm512_maskz_unpacklo_ps(0xFFFF, q[0], q[1]), t1 = _mm512_maskz_unpackhi_ps(0xFFFF, q[0], q[1]);
    const __m512 t2 = _mm512_maskz_unpacklo_ps(0xFFFF, q[2], q[3]), t3 = _mm512_maskz_unpackhi_ps(0xFFFF, q[2], q[3]);
    u[g][0] = _mm512_shuffle_ps(t0, t2, 0x44);
    u[g][1] = _mm512_shuffle_ps(t0, t2, 0xEE);
    u[g][2] = _mm512_shuffle_ps(t1, t3, 0x44);
  }
  // Then the 128-bit lanes: column c of groups 0..3 into one register.
  for (int row = 0; row < 3; ++row) {
    const __m512 lo01 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[0][row], u[1][row], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 hi01 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[0][row], u[1][row], _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 lo23 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[2][row], u[3][row], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 hi23 = _mm512_maskz_shuffle_f32x4(0xFFFF, u[2][row], u[3][row], _MM_SHUFFLE(3, 2, 3, 2));
    m[row][0] = f16(_mm512_maskz_shuffle_f32x4(0xFFFF, lo01, lo23, _MM_SHUFFLE(2, 0, 2, 0)));
    m[row][1] = f16(_mm512_maskz_shuffle_f32x4(0xFFFF, lo01, lo23, _MM_SHUFFLE(3, 1, 3, 1)));
    m[row][2] = f16(_mm512_maskz_shuffle_f32x4(0xFFFF, hi01, hi23, _MM_SHUFFLE(2, 0, 2, 0)));
    m[row][3] = f16(_mm512_maskz_shuffle_f32x4(0xFFFF, hi01, hi23, _MM_SHUFFLE(3, 1, 3, 1)));
  }
}

// The last 1-15 vertices: the AVX2 kernel.
template <bool kEight, bool kPos, bool kNrm, bool kTan>
void skin_tail(const SkinStreams& s) {
  avx2::skin_kernel<kEight, kPos, kNrm, kTan>(s);
}
template <bool kPos, bool kNrm, bool kTan>
void transform_tail(VertexSpan in, const glm::mat4& matrix, VertexOutput out, size_t n) {
  avx2::transform_kernel<kPos, kNrm, kTan>(in, matrix, out, n);
}

#include "simd/skin_lanes.inl"  // normalize_or, transform_block, skin_kernel, transform_kernel
#undef VATKIT_XYZ_LANES

}  // namespace avx512
VATKIT_AVX512_END
#endif

#define VATKIT_SKIN_KERNEL skin_kernel_sse
#else
#define VATKIT_SKIN_KERNEL skin_kernel
#endif

// The widest kernel the CPU runs (all give the same bits).
template <bool kEight, bool kPos, bool kNrm, bool kTan>
void skin_widest(const SkinStreams& s) {
  if (detail::simd_lanes() == 1) return skin_kernel<kEight, kPos, kNrm, kTan>(s);  // the scalar twin
#if VATKIT_SKIN_AVX2
  if (detail::simd_lanes() >= 16) {
    avx512::skin_kernel<kEight, kPos, kNrm, kTan>(s);
    return detail::clear_upper_state();
  }
  if (detail::simd_lanes() >= 8) {
    avx2::skin_kernel<kEight, kPos, kNrm, kTan>(s);
    return detail::clear_upper_state();
  }
#endif
  VATKIT_SKIN_KERNEL<kEight, kPos, kNrm, kTan>(s);
}

template <bool kEight>
void dispatch_skin(const SkinStreams& s) {
  const int mask = (s.out_positions ? 1 : 0) | (s.out_normals ? 2 : 0) | (s.out_tangents ? 4 : 0);
  switch (mask) {
    case 0: return;
    case 1: return skin_widest<kEight, true, false, false>(s);
    case 2: return skin_widest<kEight, false, true, false>(s);
    case 3: return skin_widest<kEight, true, true, false>(s);
    case 4: return skin_widest<kEight, false, false, true>(s);
    case 5: return skin_widest<kEight, true, false, true>(s);
    case 6: return skin_widest<kEight, false, true, true>(s);
    case 7: return skin_widest<kEight, true, true, true>(s);
  }
}

#if VATKIT_SKIN_SSE
template <bool kPos, bool kNrm, bool kTan>
void transform_widest(VertexSpan in, const glm::mat4& matrix, VertexOutput out, size_t n) {
#if VATKIT_SKIN_AVX2
  if (detail::simd_lanes() >= 16) {
    avx512::transform_kernel<kPos, kNrm, kTan>(in, matrix, out, n);
    return detail::clear_upper_state();
  }
  if (detail::simd_lanes() >= 8) {
    avx2::transform_kernel<kPos, kNrm, kTan>(in, matrix, out, n);
    return detail::clear_upper_state();
  }
#endif
  transform_kernel_sse<kPos, kNrm, kTan>(in, matrix, out, n);
}
#endif

}  // namespace

void skin_vertices(VertexSpan in, std::span<const glm::u16vec4> joints0, std::span<const glm::vec4> weights0,
                   std::span<const glm::u16vec4> joints1, std::span<const glm::vec4> weights1,
                   std::span<const glm::mat4> joint_matrices, const glm::mat4& fallback, VertexOutput out) {
  detail::blend_vertices(in, joints0, weights0, joints1, weights1, joint_matrices, fallback, out, true);
}

void detail::blend_vertices(VertexSpan in, std::span<const glm::u16vec4> joints0, std::span<const glm::vec4> weights0,
                            std::span<const glm::u16vec4> joints1, std::span<const glm::vec4> weights1,
                            std::span<const glm::mat4> joint_matrices, const glm::mat4& fallback, VertexOutput out,
                            bool renormalize) {
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
  s.renormalize = renormalize;
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
  const bool pos = !out.positions.empty();
  const bool nrm = !out.normals.empty() && !in.normals.empty();
  const bool tan = !out.tangents.empty() && !in.tangents.empty();
  assert(!pos || out.positions.size() == n);
  assert(!nrm || (out.normals.size() == n && in.normals.size() == n));
  assert(!tan || (out.tangents.size() == n && in.tangents.size() == n));
#if VATKIT_SKIN_SSE
  if (detail::simd_lanes() != 1) {
    switch ((pos ? 1 : 0) | (nrm ? 2 : 0) | (tan ? 4 : 0)) {
      case 0: return;
      case 1: return transform_widest<true, false, false>(in, matrix, out, n);
      case 2: return transform_widest<false, true, false>(in, matrix, out, n);
      case 3: return transform_widest<true, true, false>(in, matrix, out, n);
      case 4: return transform_widest<false, false, true>(in, matrix, out, n);
      case 5: return transform_widest<true, false, true>(in, matrix, out, n);
      case 6: return transform_widest<false, true, true>(in, matrix, out, n);
      case 7: return transform_widest<true, true, true>(in, matrix, out, n);
    }
  }
#endif
  // The scalar twin.
  const float* m = glm::value_ptr(matrix);
  if (pos) {
    for (size_t v = 0; v < n; ++v) out.positions[v] = transform_point(m, in.positions[v]);
  }
  if (nrm) {
    const Cofactor cf = cofactor(m);
    for (size_t v = 0; v < n; ++v) out.normals[v] = transform_normal(cf, in.normals[v]);
  }
  if (tan) {
    for (size_t v = 0; v < n; ++v) out.tangents[v] = transform_tangent(m, in.tangents[v]);
  }
}

}  // namespace vatkit

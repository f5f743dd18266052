// The texel codecs shared by the baker (bake*.cpp), the CPU decode (decode.cpp) and the tests:
// half floats, 16-bit unsigned normalized values, octahedral normals, texel addressing, and the
// slot math (similarity transforms and their decomposition).
//
// Every decode formula here is meant to be transcribed to GLSL line for line (docs/encodings.md
// shows the GLSL); keep the arithmetic plain: no table lookups, no integer tricks that a
// unorm/float texture fetch cannot do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "vatkit/decode.h"
#include "vatkit/vat.h"
#include "simd/unorm16.h"

namespace vatkit::codec {

// ---- half floats (IEEE 754 binary16), round to nearest even ---------------------------------

inline uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return uint16_t(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // >= 65520 rounds to infinity
  if (a < 0x38800000u) {
    // Below 2^-14 the half is subnormal, value m * 2^-24: scaling by 2^24 is exact and rint
    // rounds to nearest even (m = 1024 is the smallest normal, which is also the right bits).
    float v;
    std::memcpy(&v, &a, 4);
    return uint16_t(sign | uint32_t(std::nearbyint(v * 16777216.0f)));
  }
  uint32_t h = a - 0x38000000u;  // rebias the exponent from 127 to 15
  h = (h + 0x0fffu + ((h >> 13) & 1u)) >> 13;
  return uint16_t(sign | h);
}

inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  uint32_t x;
  if (e == 0) {
    const float v = float(m) * (1.0f / 16777216.0f);  // subnormal (or zero), exact
    std::memcpy(&x, &v, 4);
    x |= sign;
  } else if (e == 31) {
    x = sign | 0x7f800000u | (m << 13);
  } else {
    x = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline constexpr float kHalfMax = 65504.0f;

inline float max_abs(const glm::vec3& v) {
  return std::fmax(std::fabs(v.x), std::fmax(std::fabs(v.y), std::fabs(v.z)));
}

// ---- 16-bit unsigned normalized --------------------------------------------------------------
// Encode: q = round((v - lo) * s), s = 65535 / (hi - lo) computed once per range, clamped to
// [0, 65535]; hi == lo stores 0 (s = 0). Every q16 writer (delta rows, slot rows of either
// encoding) uses this scale form, so a range costs one division, not one per value.
// Decode: v = lo + (hi - lo) * (q / 65535). Worst case |v - v'| <= (hi - lo) / 131070 plus float
// rounding of the two formulas.

inline float unorm16_to_float(uint16_t q) { return float(q) / 65535.0f; }

inline float unorm16_scale(float lo, float hi) {
  const float extent = hi - lo;
  return extent > 0.0f ? 65535.0f / extent : 0.0f;
}

inline uint16_t quantize_unorm16_scaled(float v, float lo, float scale) {
  const float u = (v - lo) * scale;
  if (!(u > 0.0f)) return 0;
  if (u >= 65535.0f) return 65535;
  return uint16_t(u + 0.5f);
}

inline uint16_t quantize_unorm16(float v, float lo, float hi) {
  return quantize_unorm16_scaled(v, lo, unorm16_scale(lo, hi));
}

inline float dequantize_unorm16(uint16_t q, float lo, float hi) { return lo + (hi - lo) * unorm16_to_float(q); }

// Values in [-1, 1] (quaternion components, tangent xyzw): v = 2u - 1. Error <= 1/65535.
inline uint16_t quantize_snorm_as_unorm16(float v) { return quantize_unorm16(v, -1.0f, 1.0f); }
inline float dequantize_snorm_as_unorm16(uint16_t q) { return 2.0f * unorm16_to_float(q) - 1.0f; }

// ---- octahedral normals, 8 bits per axis, packed in one 16-bit value (x high byte) ------------
// Decode (GLSL: a = round(texel.w * 65535.0)):
//   hi = floor(a / 256), lo = a - 256 hi, p = (hi, lo) / 255 * 2 - 1,
//   n = (p.x, p.y, 1 - |p.x| - |p.y|); if n.z < 0: n.xy = (1 - |n.yx|) * sign(n.xy) (sign(0) = 1);
//   n = normalize(n).
// Encode tries the four lattice points around the exact projection and keeps the one whose
// decode is closest in angle ("precise" octahedral encoding).

inline float sign_not_zero(float v) { return v < 0.0f ? -1.0f : 1.0f; }

inline glm::vec3 oct_decode_unit(float px, float py) {
  glm::vec3 n(px, py, 1.0f - std::fabs(px) - std::fabs(py));
  if (n.z < 0.0f) {
    const float x = (1.0f - std::fabs(n.y)) * sign_not_zero(n.x);
    const float y = (1.0f - std::fabs(n.x)) * sign_not_zero(n.y);
    n.x = x;
    n.y = y;
  }
  const float len = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
  return n / len;
}

inline glm::vec3 oct8_decode(uint16_t packed) {
  const float a = float(packed);
  const float hi = float(int(a / 256.0f));  // floor: a >= 0
  const float lo = a - 256.0f * hi;
  return oct_decode_unit(hi / 255.0f * 2.0f - 1.0f, lo / 255.0f * 2.0f - 1.0f);
}

// Four normals at once, one per lane (what the baker calls; with AVX2 it runs the same code on
// eight, bake_delta.cpp); oct8_encode is the same for one.
namespace oct4 {
#define VATKIT_OCT_LANES 4
#include "simd/oct.inl"
#undef VATKIT_OCT_LANES
}  // namespace oct4
inline void oct8_encode4(const glm::vec3* n, uint16_t* out) { oct4::oct8_encode_lanes(n, out); }

inline uint16_t oct8_encode(const glm::vec3& n) {
  const glm::vec3 four[4] = {n, n, n, n};
  uint16_t out[4];
  oct8_encode4(four, out);
  return out[0];
}

// ---- texel addressing ------------------------------------------------------------------------
// Texel i of frame row r sits at x = i % width, y = r * rows_per_frame + i / width, which is the
// linear texel index r * rows_per_frame * width + i.

inline size_t texel_index(const Plane& p, uint32_t row, uint32_t i) {
  return size_t(row) * p.rows_per_frame * p.width + i;
}

// A stored texel, dequantized only as far as the format goes (Q16: u = q / 65535 per channel).
inline glm::vec4 fetch_raw(const Plane& p, uint32_t row, uint32_t i) {
  const size_t at = texel_index(p, row, i);
  switch (p.format) {
    case TexelFormat::RGBA32F: {
      glm::vec4 v;
      std::memcpy(&v, p.data.data() + at * 16, 16);
      return v;
    }
    case TexelFormat::RGBA16F: {
      uint16_t h[4];
      std::memcpy(h, p.data.data() + at * 8, 8);
      return glm::vec4(half_to_float(h[0]), half_to_float(h[1]), half_to_float(h[2]), half_to_float(h[3]));
    }
    case TexelFormat::RGBA16Unorm: return detail::unorm16x4_to_float(p.data.data() + at * 8);
  }
  return glm::vec4(0.0f);
}

inline uint16_t fetch_u16(const Plane& p, uint32_t row, uint32_t i, int channel) {
  uint16_t q;
  std::memcpy(&q, p.data.data() + texel_index(p, row, i) * 8 + size_t(channel) * 2, 2);
  return q;
}

// ---- slots -----------------------------------------------------------------------------------

// Column-major 3x4 affine matrix (the last row of a glTF joint matrix is ignored).
struct Affine {
  glm::vec3 c[4];
};

// As a glm::mat4 (bottom row 0, 0, 0, 1).
inline glm::mat4 to_mat4(const Affine& a) {
  glm::mat4 m;
  for (int c = 0; c < 4; ++c) m[c] = glm::vec4(a.c[c], c == 3 ? 1.0f : 0.0f);
  return m;
}

// p' = R(q) (s p) + t, with q normalized first (a zero quaternion gives the identity rotation).
inline Affine slot_affine(const SlotTransform& st) {
  glm::quat q = st.rotation;
  const float len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  const float inv = len2 > 0.0f ? 1.0f / std::sqrt(len2) : 0.0f;
  const float x = q.x * inv, y = q.y * inv, z = q.z * inv, w = len2 > 0.0f ? q.w * inv : 1.0f;
  const float s = st.scale;
  Affine m;
  m.c[0] = glm::vec3(1.0f - 2.0f * (y * y + z * z), 2.0f * (x * y + z * w), 2.0f * (x * z - y * w)) * s;
  m.c[1] = glm::vec3(2.0f * (x * y - z * w), 1.0f - 2.0f * (x * x + z * z), 2.0f * (y * z + x * w)) * s;
  m.c[2] = glm::vec3(2.0f * (x * z + y * w), 2.0f * (y * z - x * w), 1.0f - 2.0f * (x * x + y * y)) * s;
  m.c[3] = st.translation;
  return m;
}

// How far a 3x3 matrix is from a similarity s R: the column lengths and the largest |cosine|
// between two columns.
struct SimilarityFit {
  SlotTransform transform;
  float nonuniform = 0.0f;  // (longest - shortest column) / longest; 0 for a similarity
  float shear = 0.0f;       // largest |cos| of the angle between two columns; 0 for a similarity
  glm::vec3 column_lengths{0.0f};
};

// Decomposes M = [A | t] as t, s = sign(det A) * mean column length, R = A / s (then made a unit
// quaternion). A matrix scaled to nothing (det ~ 0) gets s = 0 and `fallback` as its rotation.
SimilarityFit fit_similarity(const glm::mat4& m, const glm::quat& fallback);

}  // namespace vatkit::codec

// Four 16-bit unsigned normalized codes to floats, u = q / 65535: the q16 texel fetch of the CPU
// decode (codec::fetch_raw). Inline and chosen at compile time (one SSE2 division for the four on
// x86-64), not through simd_lanes(): it runs once per texel fetched. The scalar twin computes the
// same IEEE quotients; a test compares the two on every code.
#pragma once

#include <cstdint>
#include <cstring>

#include <glm/glm.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vatkit::detail {

// p: four little-endian uint16 (8 bytes, any alignment).
inline glm::vec4 unorm16x4_to_float_scalar(const uint8_t* p) {
  uint16_t q[4];
  std::memcpy(q, p, 8);
  return glm::vec4(float(q[0]) / 65535.0f, float(q[1]) / 65535.0f, float(q[2]) / 65535.0f, float(q[3]) / 65535.0f);
}

inline glm::vec4 unorm16x4_to_float(const uint8_t* p) {
#if defined(__SSE2__)
  const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  const __m128 u = _mm_div_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(q, _mm_setzero_si128())), _mm_set1_ps(65535.0f));
  glm::vec4 v;
  _mm_storeu_ps(&v.x, u);
  return v;
#else
  return unorm16x4_to_float_scalar(p);
#endif
}

}  // namespace vatkit::detail

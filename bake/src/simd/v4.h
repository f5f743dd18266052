// Four floats as one vector (GCC/Clang vector extensions: SSE on x86-64, NEON on arm64) and the
// few operations on them that need an instruction of their own (simd.h).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace vatkit::detail {

// Four floats in one register (GCC/Clang vector extensions: SSE on x86-64, NEON on arm64), for the
// bake's small per-lane loops outside the kernels: write_slot_rows' rotation and
// translation-scale texels, prepare_rig's slot boxes.
typedef float v4 __attribute__((vector_size(16)));
typedef int32_t i4v __attribute__((vector_size(16)));

inline v4 load4(const float* p) {
  v4 r;
  std::memcpy(&r, p, 16);
  return r;
}
inline void store4(float* p, v4 v) { std::memcpy(p, &v, 16); }
#if !defined(__SSE__)
inline v4 select4(i4v m, v4 a, v4 b) { return (v4)((m & (i4v)a) | (~m & (i4v)b)); }
#endif
// a < b ? a : b and a > b ? a : b per lane, -0 against +0 and NaN included (so min4(p, lo) has
// glm::min(lo, p)'s bits): MINPS and MAXPS are exactly that. One instruction on a running range's
// chain instead of four (compare, and, andnot, or).
inline v4 min4(v4 a, v4 b) {
#if defined(__SSE__)
  return (v4)_mm_min_ps((__m128)a, (__m128)b);
#else
  return select4(a < b, a, b);
#endif
}
inline v4 max4(v4 a, v4 b) {
#if defined(__SSE__)
  return (v4)_mm_max_ps((__m128)a, (__m128)b);
#else
  return select4(a > b, a, b);
#endif
}

}  // namespace vatkit::detail

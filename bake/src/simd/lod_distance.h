// The levels of detail's inner loop (simd.h): squared distances from points to triangles, many
// (point, triangle) pairs at a time, for lod.cpp's error bounds.
#pragma once

#include <cstdint>

namespace vatkit::detail {

// Height / longest edge at and below which a triangle is measured as its edges (a sliver).
constexpr float kSliver = 1e-4f;

// (point, triangle) pairs as structure-of-arrays: up to 32 pairs (a piece's 3 corners against its
// at most 9 candidates), padded to a multiple of 8 pairs by the caller.
struct PairSoA {
  static constexpr uint32_t kMax = 32;
  alignas(32) float p[3][kMax];
  alignas(32) float a[3][kMax];
  alignas(32) float b[3][kMax];
  alignas(32) float c[3][kMax];
};

// out[i] = the squared distance from pair i's point to its triangle, for i < n rounded up to the
// lane count (so out holds PairSoA::kMax floats), or -1 where the triangle is a sliver or too thin
// for its barycentric denominator (the caller measures those to the edges). 8 pairs at a time
// with AVX2, else 4, or one at a time at simd_lanes() == 1 (the scalar twin); the same bits at
// every width. No allocation; thread-safe.
void dist2_pairs(const PairSoA& s, uint32_t n, float* out);

}  // namespace vatkit::detail

// See lod_distance.h: lod_distance.inl instantiated at each width, and the dispatch.
#include "simd/lod_distance.h"

#include "simd/simd.h"

namespace vatkit::detail {
namespace {

namespace lanes1 {
#define VATKIT_LOD_LANES 1
#include "simd/lod_distance.inl"
#undef VATKIT_LOD_LANES
}  // namespace lanes1
namespace lanes4 {
#define VATKIT_LOD_LANES 4
#include "simd/lod_distance.inl"
#undef VATKIT_LOD_LANES
}  // namespace lanes4
#if VATKIT_SIMD_AVX2
VATKIT_AVX2_BEGIN
namespace lanes8 {
#define VATKIT_LOD_LANES 8
#include "simd/lod_distance.inl"
#undef VATKIT_LOD_LANES
}  // namespace lanes8
VATKIT_AVX2_END
#endif

}  // namespace

void dist2_pairs(const PairSoA& s, uint32_t n, float* out) {
  const unsigned lanes = simd_lanes();
  if (lanes == 1) return lanes1::dist2_pairs(s, n, out);
#if VATKIT_SIMD_AVX2
  if (lanes >= 8) {
    lanes8::dist2_pairs(s, n, out);
    return clear_upper_state();
  }
#endif
  lanes4::dist2_pairs(s, n, out);
}

}  // namespace vatkit::detail

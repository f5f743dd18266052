// See simd.h.
#include "simd.h"

#include <atomic>

namespace vatkit::detail {
namespace {
std::atomic<unsigned> g_forced{0};

unsigned widest() {
#if VATKIT_SIMD_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return 8;
#endif
  return 4;
}
}  // namespace

unsigned simd_lanes() {
  const unsigned forced = g_forced.load(std::memory_order_relaxed);
  const unsigned w = widest();
  return forced != 0 && forced <= w ? forced : w;
}

void force_simd_lanes(unsigned lanes) { g_forced.store(lanes == 4 || lanes == 8 ? lanes : 0); }

}  // namespace vatkit::detail

#if VATKIT_SIMD_AVX2
#include <immintrin.h>
namespace vatkit::detail {
__attribute__((target("avx"))) static void zero_upper_avx() { _mm256_zeroupper(); }
void clear_upper_state() {
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx) zero_upper_avx();
}
}  // namespace vatkit::detail
#else
namespace vatkit::detail {
void clear_upper_state() {}
}  // namespace vatkit::detail
#endif

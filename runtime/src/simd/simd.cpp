// See simd.h.
#include "simd/simd.h"

#include <atomic>

namespace vatkit::detail {
namespace {
std::atomic<unsigned> g_forced{0};

unsigned widest() {
#if VATKIT_SIMD_AVX2
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  if (avx512) return 16;
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

void force_simd_lanes(unsigned lanes) {
  g_forced.store(lanes == 1 || lanes == 4 || lanes == 8 || lanes == 16 ? lanes : 0);
}

std::vector<unsigned> simd_widths() {
  std::vector<unsigned> out{1, 4};
  if (widest() >= 8) out.push_back(8);
  if (widest() >= 16) out.push_back(16);
  return out;
}

}  // namespace vatkit::detail

#if VATKIT_SIMD_AVX2
#include <cpuid.h>
#include <immintrin.h>
namespace vatkit::detail {
// F16C is VEX-encoded: the CPU must have it and the OS must save the YMM state (OSXSAVE, XCR0
// bits 1 and 2). Asked through cpuid rather than __builtin_cpu_supports("f16c"), which clang 14
// (the fuzzing and sanitizer compiler) does not know.
bool cpu_has_f16c() {
  static const bool has = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    if (!(c & bit_F16C) || !(c & bit_OSXSAVE)) return false;
    unsigned lo = 0, hi = 0;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0x6u) == 0x6u;
  }();
  return has;
}
__attribute__((target("avx"))) static void zero_upper_avx() { _mm256_zeroupper(); }
void clear_upper_state() {
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx) zero_upper_avx();
}
}  // namespace vatkit::detail
#else
namespace vatkit::detail {
bool cpu_has_f16c() { return false; }
void clear_upper_state() {}
}  // namespace vatkit::detail
#endif

// The SIMD layer's one switch. Every SIMD kernel of vatkit lives in a `simd/` folder
// (runtime/src/simd: the skinning kernels, the octahedral encoder, this dispatch;
// bake/src/simd: the delta and slot row encoders, the rig kernel, the levels of detail's
// point-triangle distances), and nothing outside those folders uses intrinsics (a test holds the
// tree to it). Each kernel picks its width at run time from simd_lanes(): 16 lanes where the CPU
// runs AVX-512 (F and DQ) and the kernel has them, 8 where it runs AVX2, else 4 (SSE2, the
// x86-64 baseline, or GCC vector extensions elsewhere), and 1, when forced, for the kernel's
// scalar twin: plain C++ computing the same IEEE operations per element. Every width writes the
// same bytes; the tests run each kernel at every width in simd_widths() and compare them with
// the scalar twin.
#pragma once

#include <cstdint>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Where the 8-lane kernels exist (x86-64 with GCC or Clang), a source brackets them with
// VATKIT_AVX2_BEGIN / VATKIT_AVX2_END: the functions defined between get AVX2 code, nothing else
// in the file does (include every header before VATKIT_AVX2_BEGIN), and they may only run where
// simd_lanes() is 8 or more. VATKIT_AVX512_BEGIN / VATKIT_AVX512_END do the same for AVX-512 (F
// and DQ) code, which may only run where simd_lanes() is 16.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define VATKIT_SIMD_AVX2 1
#if defined(__clang__)
#define VATKIT_AVX2_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx2\"))), apply_to = function)")
#define VATKIT_AVX2_END _Pragma("clang attribute pop")
#define VATKIT_AVX512_BEGIN \
  _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx512dq\"))), apply_to = function)")
#define VATKIT_AVX512_END _Pragma("clang attribute pop")
#else
#define VATKIT_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2\")")
#define VATKIT_AVX2_END _Pragma("GCC pop_options")
#define VATKIT_AVX512_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx512dq\")")
#define VATKIT_AVX512_END _Pragma("GCC pop_options")
#endif
#else
#define VATKIT_SIMD_AVX2 0
#endif

namespace vatkit::detail {

// 16 where the CPU has AVX-512 F and DQ, 8 where it has AVX2 (x86-64 builds with GCC or Clang),
// else 4; or the forced width, 1 included (the scalar twins). Kernels with no 16-lane code run 8
// lanes at 16. Cost: one relaxed atomic load (the CPU is asked once per process).
unsigned simd_lanes();
// vzeroupper where the CPU has AVX, else nothing. Every call into an 8-lane kernel is followed by
// one, in the caller: the code that runs next is built for the x86-64 baseline (legacy SSE, scalar
// float included), which runs slower while the upper halves of the YMM registers are dirty, and
// they can be dirty after those kernels although the compiler ends them with vzeroupper
// (docs/benchmarks.md, "Bake throughput").
void clear_upper_state();
// Whether the CPU has F16C (and so AVX) and the OS saves the YMM state: the half-float
// conversions (_mm_cvtps_ph, round to nearest even: codec::float_to_half's bits) and VEX-encoded
// row encoders are used where it does.
bool cpu_has_f16c();
#if defined(__SSE2__)
// Four 32-bit lanes holding 0..65535 stored as four uint16 (8 bytes at dst) in one store: biased
// onto int16's range, packed (packs saturates to int16), unbiased. The q16 encoders' store.
inline void store_unorm16x4(__m128i q, void* dst) {
  const __m128i biased = _mm_sub_epi32(q, _mm_set1_epi32(32768));
  _mm_storel_epi64(static_cast<__m128i*>(dst),
                   _mm_xor_si128(_mm_packs_epi32(biased, biased), _mm_set1_epi16(int16_t(0x8000))));
}
#endif
// Forces 1 (every kernel's scalar twin), 4, 8 or 16 lanes (where the CPU runs that width, else the
// widest it runs); 0 restores the automatic choice. Process-wide: for tests and benchmarks, not to
// be called while kernels run on other threads.
void force_simd_lanes(unsigned lanes);
// Every width this CPU runs, the scalar twins (1) first: what tests compare the kernels across.
std::vector<unsigned> simd_widths();

}  // namespace vatkit::detail

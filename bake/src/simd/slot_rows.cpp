// See slot_rows.h.
#include "simd/slot_rows.h"

#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "decode/codec.h"
#include "simd/simd.h"

namespace vatkit::detail {
namespace {

// write_slot_rows' lanes: one slot's rotation or translation-scale as a v4 (v4.h). Each
// lane does what the scalar codec does, in the same IEEE operations, so the bytes are the codec's
// (decode/codec.h).
typedef uint32_t u4v __attribute__((vector_size(16)));

// codec::quantize_unorm16_scaled per lane (scale: codec::unorm16_scale of each lane's range).
inline void quantize4(v4 v, v4 lo, v4 scale, uint16_t* out) {
  const v4 u = (v - lo) * scale;
  // 0 unless u > 0 (NaN included), 65535 from u >= 65535, else trunc(u + 0.5): u clamped to
  // [0, 65535] first (max4 takes 0 for NaN and -0) gives the same codes.
  const i4v r = __builtin_convertvector(min4(max4(u, v4{}), v4{} + 65535.0f) + 0.5f, i4v);
#if defined(__SSE2__)
  store_unorm16x4(__m128i(r), out);
#else
  for (int i = 0; i < 4; ++i) out[i] = uint16_t(r[i]);
#endif
}

// codec::float_to_half per lane where every lane is zero or a normal half; false otherwise (the
// caller falls back to the scalar codec for subnormals, overflow, infinities and NaN).
inline bool half4(v4 v, uint16_t* out) {
  u4v x;
  std::memcpy(&x, &v, 16);
  const u4v a = x & 0x7fffffffu;
  const i4v normal = (i4v)((a >= 0x38800000u) & (a < 0x477ff000u));
  const i4v zero = (i4v)(a == 0u);
  if (((normal | zero)[0] & (normal | zero)[1] & (normal | zero)[2] & (normal | zero)[3]) == 0) return false;
  const u4v h = a - 0x38000000u;
  const u4v r = ((x >> 16) & 0x8000u) | ((u4v)normal & ((h + 0x0fffu + ((h >> 13) & 1u)) >> 13));
  for (int i = 0; i < 4; ++i) out[i] = uint16_t(r[i]);
  return true;
}

#if defined(__SSE2__)
// n4 vectors of 4 floats to halves with F16C where the CPU has it (simd.h: the same bits as
// half4 and codec::float_to_half, for every value, one instruction per vector).
__attribute__((target("f16c"))) void halves_f16c(const float* in, size_t n4, uint16_t* out) {
  for (size_t i = 0; i < n4; ++i) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 4 * i), _mm_cvtps_ph(_mm_loadu_ps(in + 4 * i), 0));
  }
}
#endif

}  // namespace

void encode_slot_row(const float* in, uint32_t slots, TexelFormat format, v4 lo, v4 t_scale, uint8_t* out) {
  if (simd_lanes() == 1) return encode_slot_row_scalar(in, slots, format, lo, t_scale, out);
  const uint32_t S = slots;
  switch (format) {
    case TexelFormat::RGBA32F: std::memcpy(out, in, size_t(S) * 32); break;
    case TexelFormat::RGBA16F:
#if defined(__SSE2__)
      if (cpu_has_f16c()) {
        halves_f16c(in, 2 * size_t(S), reinterpret_cast<uint16_t*>(out));
        break;
      }
#endif
      for (uint32_t i = 0; i < 2 * S; ++i) {
        uint16_t* h = reinterpret_cast<uint16_t*>(out) + 4 * size_t(i);
        if (!half4(load4(in + 4 * size_t(i)), h)) {
          for (int c = 0; c < 4; ++c) h[c] = codec::float_to_half(in[4 * size_t(i) + size_t(c)]);
        }
      }
      break;
    case TexelFormat::RGBA16Unorm: {
      const v4 q_lo = v4{} - 1.0f, q_scale = v4{} + codec::unorm16_scale(-1.0f, 1.0f);
      for (uint32_t s = 0; s < S; ++s) {
        uint16_t* qv = reinterpret_cast<uint16_t*>(out) + 8 * size_t(s);
        quantize4(load4(in + 8 * size_t(s)), q_lo, q_scale, qv);
        quantize4(load4(in + 8 * size_t(s) + 4), lo, t_scale, qv + 4);
      }
      break;
    }
  }
}

void encode_slot_row_scalar(const float* in, uint32_t slots, TexelFormat format, v4 lo, v4 t_scale, uint8_t* out) {
  const size_t n = 8 * size_t(slots);
  uint16_t* h = reinterpret_cast<uint16_t*>(out);
  switch (format) {
    case TexelFormat::RGBA32F: std::memcpy(out, in, n * 4); break;
    case TexelFormat::RGBA16F:
      for (size_t i = 0; i < n; ++i) h[i] = codec::float_to_half(in[i]);
      break;
    case TexelFormat::RGBA16Unorm: {
      const float q_scale = codec::unorm16_scale(-1.0f, 1.0f);
      for (size_t i = 0; i < n; ++i) {
        const size_t c = i % 8;
        h[i] = c < 4 ? codec::quantize_unorm16_scaled(in[i], -1.0f, q_scale)
                     : codec::quantize_unorm16_scaled(in[i], lo[c - 4], t_scale[c - 4]);
      }
      break;
    }
  }
}

}  // namespace vatkit::detail

// See delta_rows.h. The SSE forms keep the scalar twin's operations per lane (differences, min,
// max and products round as the scalar code does), so every form writes the same bytes.
#include "simd/delta_rows.h"

#include <algorithm>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "simd/simd.h"

namespace vatkit::detail {
namespace {

// Q16: the octahedral normals, 1, 4, 8 or 16 at a time (simd_lanes()), into the staged texels' w
// (a float holding the 16-bit code exactly). Every width gives the same codes (oct.inl).
namespace oct1 {
#define VATKIT_OCT_LANES 1
#include "simd/oct.inl"
#undef VATKIT_OCT_LANES
}  // namespace oct1
#if VATKIT_SIMD_AVX2
VATKIT_AVX2_BEGIN
namespace oct8 {
#define VATKIT_OCT_LANES 8
#include "simd/oct.inl"
#undef VATKIT_OCT_LANES
}  // namespace oct8
VATKIT_AVX2_END
VATKIT_AVX512_BEGIN
namespace oct16 {
#define VATKIT_OCT_LANES 16
#include "simd/oct.inl"
#undef VATKIT_OCT_LANES
}  // namespace oct16
VATKIT_AVX512_END
void encode_octahedral(const RowIn& in, glm::vec4* stage) {
  if (simd_lanes() == 1) return oct1::oct8_encode_into_w(in.nrm, in.count, stage);
  if (simd_lanes() >= 16) {
    oct16::oct8_encode_into_w(in.nrm, in.count, stage);
    return clear_upper_state();
  }
  if (simd_lanes() >= 8) {
    oct8::oct8_encode_into_w(in.nrm, in.count, stage);
    return clear_upper_state();
  }
  codec::oct4::oct8_encode_into_w(in.nrm, in.count, stage);
}
#else
void encode_octahedral(const RowIn& in, glm::vec4* stage) {
  if (simd_lanes() == 1) return oct1::oct8_encode_into_w(in.nrm, in.count, stage);
  codec::oct4::oct8_encode_into_w(in.nrm, in.count, stage);
}
#endif

#if defined(__SSE2__)
// The same, four lanes at a time per vertex (x, y, z and a lane ignored). Differences, min, max
// and products round as the scalar code does, so the bytes are the same.
struct SseStats {
  __m128 pmin, pmax, dmin, dmax, d2max;
  SseStats() {
    const __m128 big = _mm_set1_ps(std::numeric_limits<float>::max());
    pmin = dmin = big;
    pmax = dmax = _mm_sub_ps(_mm_setzero_ps(), big);
    d2max = _mm_setzero_ps();
  }
  void add(__m128 p, __m128 d) {
    pmin = _mm_min_ps(pmin, p);
    pmax = _mm_max_ps(pmax, p);
    dmin = _mm_min_ps(dmin, d);
    dmax = _mm_max_ps(dmax, d);
    const __m128 m = _mm_mul_ps(d, d);
    // (x * x + y * y) + z * z, as glm::dot sums.
    d2max = _mm_max_ss(d2max, _mm_add_ss(_mm_add_ss(m, _mm_shuffle_ps(m, m, 1)), _mm_shuffle_ps(m, m, 2)));
  }
  void finish(RowStats& st) const {
    alignas(16) float a[4], b[4], c[4], e[4];
    _mm_store_ps(a, pmin);
    _mm_store_ps(b, pmax);
    _mm_store_ps(c, dmin);
    _mm_store_ps(e, dmax);
    st.pmin = glm::min(st.pmin, glm::vec3(a[0], a[1], a[2]));
    st.pmax = glm::max(st.pmax, glm::vec3(b[0], b[1], b[2]));
    st.dmin = glm::min(st.dmin, glm::vec3(c[0], c[1], c[2]));
    st.dmax = glm::max(st.dmax, glm::vec3(e[0], e[1], e[2]));
    st.max_d2 = std::max(st.max_d2, _mm_cvtss_f32(d2max));
  }
};

inline __m128 xyz_mask() { return _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)); }

__attribute__((always_inline)) inline void encode_row_sse_body(const RowIn& in, Precision prec, uint8_t* pos_dst,
                                                               uint8_t* nrm_dst, glm::vec4* stage, RowStats& st) {
  const __m128 xyz = xyz_mask();
  SseStats acc;
  const float* pos = &in.pos[0].x;
  const float* rest = &in.rest[0].x;
  const float* nrm = in.nrm ? &in.nrm[0].x : nullptr;
  for (uint32_t v = 0; v < in.count; ++v) {
    const __m128 p = _mm_loadu_ps(pos + 3 * size_t(v));
    const __m128 d = _mm_sub_ps(p, _mm_loadu_ps(rest + 3 * size_t(v)));
    acc.add(p, d);
    if (prec == Precision::F32) {
      _mm_store_ps(reinterpret_cast<float*>(pos_dst + 16 * size_t(v)), _mm_and_ps(d, xyz));
      if (nrm)
        _mm_store_ps(reinterpret_cast<float*>(nrm_dst + 16 * size_t(v)),
                     _mm_and_ps(_mm_loadu_ps(nrm + 3 * size_t(v)), xyz));
    } else {
      alignas(16) float f[4];
      _mm_store_ps(f, d);
      if (prec == Precision::F16) {
        put_f16(pos_dst + 8 * size_t(v), f[0], f[1], f[2], 0.0f);
        if (nrm) put_f16(nrm_dst + 8 * size_t(v), in.nrm[v].x, in.nrm[v].y, in.nrm[v].z, 0.0f);
      } else {
        _mm_store_ps(&stage[v].x, d);
      }
    }
  }
  if (prec == Precision::Q16) encode_octahedral(in, stage);
  acc.finish(st);
}

void encode_row_sse(const RowIn& in, Precision prec, uint8_t* pos_dst, uint8_t* nrm_dst, glm::vec4* stage,
                    RowStats& st) {
  encode_row_sse_body(in, prec, pos_dst, nrm_dst, stage, st);
}

// Where the CPU has F16C (and so AVX): F16 with the F16C conversion (round to nearest even: the
// same bits as codec::float_to_half), and the other precisions through the same body as
// encode_row_sse, compiled VEX-encoded. The VEX form is not only shorter: legacy SSE code that
// runs while the upper halves of the YMM registers are dirty pays a merge on every instruction
// (measured here: a legacy-SSE loop at 1.75x its time after a ymm write without vzeroupper), and
// the f32 bake ran 25-45% slower after the 8-lane skinner until this encoder was VEX-encoded.
__attribute__((target("f16c"))) void encode_row_f16c(const RowIn& in, Precision prec, uint8_t* pos_dst,
                                                     uint8_t* nrm_dst, glm::vec4* stage, RowStats& st) {
  if (prec != Precision::F16) return encode_row_sse_body(in, prec, pos_dst, nrm_dst, stage, st);
  const __m128 xyz = xyz_mask();
  SseStats acc;
  const float* pos = &in.pos[0].x;
  const float* rest = &in.rest[0].x;
  const float* nrm = in.nrm ? &in.nrm[0].x : nullptr;
  for (uint32_t v = 0; v < in.count; ++v) {
    const __m128 p = _mm_loadu_ps(pos + 3 * size_t(v));
    const __m128 d = _mm_sub_ps(p, _mm_loadu_ps(rest + 3 * size_t(v)));
    acc.add(p, d);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(pos_dst + 8 * size_t(v)), _mm_cvtps_ph(_mm_and_ps(d, xyz), 0));
    if (nrm) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(nrm_dst + 8 * size_t(v)),
                       _mm_cvtps_ph(_mm_and_ps(_mm_loadu_ps(nrm + 3 * size_t(v)), xyz), 0));
    }
  }
  acc.finish(st);
}
#endif

#if defined(__SSE2__)
__attribute__((always_inline)) inline void quantize_row_sse(const glm::vec4* in, uint32_t count, const glm::vec4& lo,
                                                            const glm::vec4& scale, uint8_t* dst) {
  const __m128 l = _mm_loadu_ps(&lo.x), sc = _mm_loadu_ps(&scale.x);
  const __m128 top = _mm_set1_ps(65535.0f), half = _mm_set1_ps(0.5f);
  for (uint32_t v = 0; v < count; ++v) {
    __m128 u = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(&in[v].x), l), sc);
    u = _mm_min_ps(_mm_max_ps(u, _mm_setzero_ps()), top);
    store_unorm16x4(_mm_cvttps_epi32(_mm_add_ps(u, half)), dst + 8 * size_t(v));
  }
}

__attribute__((target("avx"))) void quantize_row_vex(const glm::vec4* in, uint32_t count, const glm::vec4& lo,
                                                     const glm::vec4& scale, uint8_t* dst) {
  quantize_row_sse(in, count, lo, scale, dst);
}
#endif

}  // namespace

void encode_delta_row_scalar(const RowIn& in, Precision prec, uint8_t* pos_dst, uint8_t* nrm_dst, glm::vec4* stage,
                             RowStats& st) {
  for (uint32_t v = 0; v < in.count; ++v) {
    const glm::vec3 p = in.pos[v];
    const glm::vec3 d = p - in.rest[v];
    st.pmin = glm::min(st.pmin, p);
    st.pmax = glm::max(st.pmax, p);
    st.dmin = glm::min(st.dmin, d);
    st.dmax = glm::max(st.dmax, d);
    st.max_d2 = std::max(st.max_d2, glm::dot(d, d));
    if (prec == Precision::F32) {
      put_f32(pos_dst + 16 * size_t(v), d.x, d.y, d.z, 0.0f);
      if (nrm_dst) put_f32(nrm_dst + 16 * size_t(v), in.nrm[v].x, in.nrm[v].y, in.nrm[v].z, 0.0f);
    } else if (prec == Precision::F16) {
      put_f16(pos_dst + 8 * size_t(v), d.x, d.y, d.z, 0.0f);
      if (nrm_dst) put_f16(nrm_dst + 8 * size_t(v), in.nrm[v].x, in.nrm[v].y, in.nrm[v].z, 0.0f);
    } else {
      stage[v] = glm::vec4(d, 0.0f);
    }
  }
  if (prec == Precision::Q16) encode_octahedral(in, stage);
}

void quantize_q16_row_scalar(const glm::vec4* in, uint32_t count, const glm::vec4& lo, const glm::vec4& scale,
                             uint8_t* dst) {
  for (uint32_t v = 0; v < count; ++v) {
    uint16_t q[4];
    for (int c = 0; c < 4; ++c) {
      float u = (in[v][c] - lo[c]) * scale[c];
      u = u > 0.0f ? u : 0.0f;
      u = u < 65535.0f ? u : 65535.0f;
      q[c] = uint16_t(u + 0.5f);
    }
    std::memcpy(dst + 8 * size_t(v), q, 8);
  }
}

void encode_delta_row(const RowIn& in, Precision prec, uint8_t* pos_dst, uint8_t* nrm_dst, glm::vec4* stage,
                      RowStats& st) {
#if defined(__SSE2__)
  if (simd_lanes() != 1) {
    if (cpu_has_f16c()) return encode_row_f16c(in, prec, pos_dst, nrm_dst, stage, st);
    return encode_row_sse(in, prec, pos_dst, nrm_dst, stage, st);
  }
#endif
  encode_delta_row_scalar(in, prec, pos_dst, nrm_dst, stage, st);
}

void quantize_q16_row(const glm::vec4* in, uint32_t count, const glm::vec4& lo, const glm::vec4& scale, uint8_t* dst) {
#if defined(__SSE2__)
  if (simd_lanes() != 1) {
    if (cpu_has_f16c()) return quantize_row_vex(in, count, lo, scale, dst);  // F16C implies AVX
    return quantize_row_sse(in, count, lo, scale, dst);
  }
#endif
  quantize_q16_row_scalar(in, count, lo, scale, dst);
}

}  // namespace vatkit::detail

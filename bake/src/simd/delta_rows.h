// The delta bake's row kernels (simd.h): one frame row of skinned vertices into texels, and a
// clip's staged q16 rows into codes. Each dispatches on simd_lanes(): SSE2 (VEX-encoded with F16C
// where the CPU has it), or, at 1 lane, its scalar twin, which writes the same bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include <glm/glm.hpp>

#include "decode/codec.h"
#include "vatkit/vat.h"

namespace vatkit::detail {

// A row's running ranges: positions, deltas from rest, and the largest squared delta.
struct RowStats {
  glm::vec3 pmin{std::numeric_limits<float>::max()}, pmax{-std::numeric_limits<float>::max()};
  glm::vec3 dmin{std::numeric_limits<float>::max()}, dmax{-std::numeric_limits<float>::max()};
  float max_d2 = 0.0f;
};

// One row's input: `count` skinned positions, the rest positions and the normals (null: none).
// Each array has one element of padding after `count`: the encoders load four floats at a vertex.
struct RowIn {
  const glm::vec3* pos;
  const glm::vec3* rest;
  const glm::vec3* nrm;
  uint32_t count;
};

inline void put_f32(uint8_t* dst, float x, float y, float z, float w) {
  const float v[4] = {x, y, z, w};
  std::memcpy(dst, v, 16);
}
inline void put_f16(uint8_t* dst, float x, float y, float z, float w) {
  const uint16_t v[4] = {codec::float_to_half(x), codec::float_to_half(y), codec::float_to_half(z),
                         codec::float_to_half(w)};
  std::memcpy(dst, v, 8);
}

// One row of a delta plane: positions minus rest into `pos_dst` and normals into `nrm_dst` (null:
// none) as texels of `prec`, w = 0, with the row's ranges folded into `st`. Q16 writes nothing to
// the planes: the deltas and the octahedral normal code (in w, a float holding the code exactly)
// go to `stage` (count elements) until the clip's range is known; Q16 requires normals (the
// bake computes them where the asset has none). O(count); no allocation; thread-safe on distinct
// outputs.
void encode_delta_row(const RowIn& in, Precision prec, uint8_t* pos_dst, uint8_t* nrm_dst, glm::vec4* stage,
                      RowStats& st);
void encode_delta_row_scalar(const RowIn& in, Precision prec, uint8_t* pos_dst, uint8_t* nrm_dst, glm::vec4* stage,
                             RowStats& st);

// Q16 texels (8 bytes each, at dst) from `count` staged values: per channel u = clamp((v - lo) *
// scale, 0, 65535), q = trunc(u + 0.5) (codec::quantize_unorm16_scaled; the code in w has lo 0 and
// scale 1). O(count); thread-safe on distinct outputs.
void quantize_q16_row(const glm::vec4* in, uint32_t count, const glm::vec4& lo, const glm::vec4& scale, uint8_t* dst);
void quantize_q16_row_scalar(const glm::vec4* in, uint32_t count, const glm::vec4& lo, const glm::vec4& scale,
                             uint8_t* dst);

}  // namespace vatkit::detail

// The slot planes' row kernel (simd.h): one frame row of staged slots (8 floats each: the rotation
// quaternion xyzw, then translation xyz and uniform scale) as texels.
#pragma once

#include <cstdint>

#include "simd/v4.h"
#include "vatkit/vat.h"

namespace vatkit::detail {

// The `slots` slots at `in` as 2 texels each of `format` at `out`: f32 copied; f16 rounded to
// nearest even (codec::float_to_half's bits; F16C where the CPU has it); q16 with the rotation
// against [-1, 1] and the translation-scale against lo and t_scale (codec::unorm16_scale of each
// channel's range), as codec::quantize_unorm16_scaled. O(slots); thread-safe on distinct outputs.
// At simd_lanes() == 1 it runs encode_slot_row_scalar, its scalar twin, which writes the same bytes.
void encode_slot_row(const float* in, uint32_t slots, TexelFormat format, v4 lo, v4 t_scale, uint8_t* out);
void encode_slot_row_scalar(const float* in, uint32_t slots, TexelFormat format, v4 lo, v4 t_scale, uint8_t* out);

}  // namespace vatkit::detail

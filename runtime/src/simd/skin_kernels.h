// Internal to vatkit: the skin.h kernel with a choice of weight rule, for the rig decode
// (decode.cpp) and the reference skinner (the baker's scene.cpp).
#pragma once

#include <cstddef>
#include <span>

#include <glm/glm.hpp>
#include "vatkit/skin.h"

namespace vatkit::detail {

// skin_vertices, with the weights renormalized (renormalize: the reference skinner, glTF's rule)
// or used as given (the rig encoding's CPU decode: its bind geometry stores weights the bake
// normalized, and decode.h defines M = sum w_k M_k, as the GPU computes it). One kernel either
// way: scalar, SSE and AVX2 paths with the same bits.
void blend_vertices(VertexSpan in, std::span<const glm::u16vec4> joints0, std::span<const glm::vec4> weights0,
                    std::span<const glm::u16vec4> joints1, std::span<const glm::vec4> weights1,
                    std::span<const glm::mat4> joint_matrices, const glm::mat4& fallback, VertexOutput out,
                    bool renormalize);

}  // namespace vatkit::detail

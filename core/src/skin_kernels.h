// Internal to vatkit::core: ranged forms of the skin.h kernels, for callers that split one
// primitive over threads (the scene evaluator).
#pragma once

#include <cstddef>
#include <span>

#include "vatkit/asset.h"
#include "vatkit/skin.h"

namespace vatkit::detail {

// apply_morph_targets for vertices [begin, end) of `primitive`; each non-null output points at
// the slot of vertex `begin`.
void morph_range(const Primitive& primitive, std::span<const float> weights, size_t begin,
                 size_t end, glm::vec3* positions, glm::vec3* normals, glm::vec4* tangents);

// skin_vertices, with the weights renormalized (renormalize: the reference skinner, glTF's rule)
// or used as given (the rig encoding's CPU decode: its bind geometry stores weights the bake
// normalized, and decode.h defines M = sum w_k M_k, as the GPU computes it). One kernel either
// way: scalar, SSE and AVX2 paths with the same bits.
void blend_vertices(VertexSpan in, std::span<const glm::u16vec4> joints0, std::span<const glm::vec4> weights0,
                    std::span<const glm::u16vec4> joints1, std::span<const glm::vec4> weights1,
                    std::span<const glm::mat4> joint_matrices, const glm::mat4& fallback, VertexOutput out,
                    bool renormalize);

}  // namespace vatkit::detail

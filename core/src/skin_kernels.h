// Internal to vatkit::core: ranged forms of the skin.h kernels, for callers that split one
// primitive over threads (the scene evaluator).
#pragma once

#include <cstddef>
#include <span>

#include "vatkit/asset.h"

namespace vatkit::detail {

// apply_morph_targets for vertices [begin, end) of `primitive`; each non-null output points at
// the slot of vertex `begin`.
void morph_range(const Primitive& primitive, std::span<const float> weights, size_t begin,
                 size_t end, glm::vec3* positions, glm::vec3* normals, glm::vec4* tangents);

}  // namespace vatkit::detail

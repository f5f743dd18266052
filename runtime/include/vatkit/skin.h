// vatkit/skin.h: linear blend skinning and rigid transforms, batched over vertices and writing
// into caller-owned spans: the kernels of the reference skinner (vatkit/scene.h) and of the rig
// encoding's CPU decode (vatkit/decode.h).
//
// Skinning follows glTF 2.0: joint matrix j = world(skin.joints[j]) * inverse_bind[j]; a skinned
// vertex is sum_i w_i * jointMatrix[joint_i] * v, in world space (the skinned mesh node's own
// transform is ignored, as the spec requires). Weights are renormalized to sum to 1 when they do
// not (real files have sums from 0.18 to 1.76); a vertex whose weights sum to 0 is left at its
// position under `fallback` (the mesh node's world matrix).
// Normals use the inverse transpose of the blended matrix, so non-uniform scale bends them
// correctly, and are renormalized. Tangents use the blended matrix itself, keep their w sign, and
// are renormalized. Where a transform collapses a normal or tangent to zero length (a joint or
// node scaled to 0), the input direction is passed through, normalized: outputs are always unit.
// Cost: O(vertices), SIMD (4, 8 or 16 lanes by CPU), no allocation, on the calling thread only;
// safe to call concurrently on disjoint outputs.
#pragma once

#include <span>

#include <glm/glm.hpp>

namespace vatkit {

// Vertex streams read or written by the kernels. Normals and tangents may be empty (skipped);
// when present they have positions.size() elements.
struct VertexSpan {
  std::span<const glm::vec3> positions;
  std::span<const glm::vec3> normals;
  std::span<const glm::vec4> tangents;
};
struct VertexOutput {
  std::span<glm::vec3> positions;
  std::span<glm::vec3> normals;
  std::span<glm::vec4> tangents;
};

// Linear blend skinning of `in` (already morphed) with 4 influences (joints1/weights1 empty) or
// 8. Writes `out` (same sizes as `in`, streams empty in `in` are not written).
// Preconditions (checked by assert in debug builds only: the kernels are on the bake's hot path):
// joints0, weights0 (and joints1, weights1 when not empty) and every non-empty output stream have
// in.positions.size() elements; every joint index is below joint_matrices.size(), which is not
// empty. The importer and the loader guarantee both for the data they produce.
void skin_vertices(VertexSpan in, std::span<const glm::u16vec4> joints0, std::span<const glm::vec4> weights0,
                   std::span<const glm::u16vec4> joints1, std::span<const glm::vec4> weights1,
                   std::span<const glm::mat4> joint_matrices, const glm::mat4& fallback, VertexOutput out);

// Rigid transform of `in` by `matrix` (node animation of a non-skinned mesh), normals by its
// inverse transpose. Precondition: each non-empty output stream has in.positions.size() elements.
void transform_vertices(VertexSpan in, const glm::mat4& matrix, VertexOutput out);

}  // namespace vatkit

// vatkit/scene.h: the reference skinner for a whole scene, the ground truth every bake and every
// rendered pixel is judged against.
//
// A SceneEvaluator poses an Asset (rest pose, or a clip at a time), then writes the world-space
// position, normal and tangent of every vertex of every MeshInstance, concatenated in the
// canonical order of Asset::instances (depth-first pre-order over the default scene's roots,
// children in file order; per node, primitives in mesh order). Morph targets are applied before
// skinning; skinned meshes ignore their node's transform; other meshes follow their node's world
// matrix.
//
// It allocates its scratch once, in the constructor; pose() and skin() allocate nothing. It keeps
// a reference to the Asset, which must outlive it (and not move). Threads: one evaluator is used
// by one thread at a time (pose() writes its state); several evaluators of one Asset may run
// concurrently. skin() spreads over the shared pool; cost O(vertices + nodes) per pose and skin.
#pragma once

#include <memory>
#include <span>

#include "vatkit/asset.h"
#include "vatkit/sample.h"
#include "vatkit/skin.h"

namespace vatkit {

// The reference skinner's building blocks beside skin.h's kernels. Their size requirements are
// preconditions, checked by assert in debug builds only (they run once per vertex batch).
// out = base + sum_t weights[t] * target_t (positions, normals, tangent xyz). `out` must have the
// primitive's vertex count in each stream it names; targets with weight 0 cost nothing.
void apply_morph_targets(const Primitive& primitive, std::span<const float> weights, VertexOutput out);

// out[j] = world[skin.joints[j]] * skin.inverse_bind[j]. `out` has skin.joints.size() elements and
// `world` one per node of the asset.
void compute_joint_matrices(const Skin& skin, std::span<const glm::mat4> world, std::span<glm::mat4> out);

class SceneEvaluator {
 public:
  explicit SceneEvaluator(const Asset& asset);
  ~SceneEvaluator();
  SceneEvaluator(SceneEvaluator&&) noexcept;
  SceneEvaluator& operator=(SceneEvaluator&&) noexcept;

  // Poses the scene: clip < 0 is the rest pose, else asset.animations[clip] at time_s (seconds
  // on the glTF timeline; before the first key and after the last the end keys hold).
  // Precondition: clip < asset.animations.size() (an index from the Asset, not user input).
  void pose(int clip, float time_s);

  // The state after pose(): local pose, world matrix of every node.
  const Pose& local_pose() const;
  std::span<const glm::mat4> world() const;

  // World-space vertices of every instance, concatenated in canonical order: each non-empty span
  // has asset.instance_vertex_count elements (a precondition; empty spans are skipped). Instances without
  // tangents get (0, 0, 0, 0). threads = 0 uses every hardware thread; the result does not depend
  // on the thread count.
  void skin(std::span<glm::vec3> positions, std::span<glm::vec3> normals = {}, std::span<glm::vec4> tangents = {},
            unsigned threads = 1);

  const Asset& asset() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vatkit

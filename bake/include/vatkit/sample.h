// vatkit/sample.h: animation sampling exactly as glTF 2.0 defines it.
//
//  - STEP: the value of the last key at or before t.
//  - LINEAR: lerp for translation, scale and weights; for rotation, slerp along the shortest
//    path (the second key is negated when the two keys' dot product is negative).
//  - CUBICSPLINE: the Hermite spline of the spec, with the in/out tangents scaled by the key
//    interval (t_{k+1} - t_k); rotations are normalized after interpolation.
//  - Before the first key and after the last, the end keys hold.
//  - Sampled rotations are unit length: keys are normalized before use (files store them
//    rounded, e.g. SimpleSkin's (0.383, 0.924)), and so are the rest rotations in a Pose.
//  - Channels of one animation may have different key times and counts; each is sampled on its
//    own keys. Channels the animation does not touch keep the value already in the pose, so
//    sample a clip over a rest pose (reset_pose) to get glTF's "unanimated nodes keep their
//    transform".
//
// Hot paths write into caller-owned memory and never allocate: a Pose is sized once for an asset
// and reused; sample_animation_batch fills many poses, split over threads, with results that do
// not depend on the thread count. Threads: the functions read the Asset (const) and write only
// their outputs: concurrent calls on different poses are safe; only the batch form uses the pool.
// Cost: O(channels x log keys) per sample, O(nodes) for world matrices.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vatkit/asset.h"

namespace vatkit {

// The animatable state of an asset: local TRS of every node (SoA) and every morph weight
// (node i's weights are weights[nodes[i].weights_offset .. + nodes[i].weights_count]).
struct Pose {
  std::vector<glm::vec3> translation;
  std::vector<glm::quat> rotation;
  std::vector<glm::vec3> scale;
  std::vector<float> weights;
};

// A pose sized for `asset` and set to its rest state (node TRS, node or mesh default weights).
Pose make_rest_pose(const Asset& asset);

// Puts an already-sized pose back to the rest state, without allocating.
void reset_pose(const Asset& asset, Pose& pose);

// Evaluates one sampler at `time_s`, writing sampler.components floats to `out`. `path` selects
// the rotation rules (shortest-path slerp, normalization) for Path::Rotation.
void sample_sampler(const Sampler& sampler, Path path, float time_s, float* out);

// Writes every channel of `animation` at `time_s` into `pose`.
void sample_animation(const Animation& animation, float time_s, Pose& pose, const Asset& asset);

// Batched form: for each k, resets poses[k] to rest and samples `animation` at times_s[k].
// Every pose must come from make_rest_pose(asset). threads = 0 uses every hardware thread.
void sample_animation_batch(const Asset& asset, const Animation& animation, std::span<const float> times_s,
                            std::span<Pose> poses, unsigned threads = 1);

// Local matrix of every node (T * R * S, or the node's fixed matrix), then world = parent's world
// * local, in Asset::node_order. `world` has one matrix per node.
void compute_world_matrices(const Asset& asset, const Pose& pose, std::span<glm::mat4> world);

}  // namespace vatkit

// The scene evaluator: pose (sample, world matrices, joint matrices) and skin every instance.
//
// The constructor plans the work once: every instance is cut into vertex ranges of at most
// kRangeVertices, consecutive ranges are grouped into tasks of about kRangeVertices (so scenes of
// many tiny instances do not pay per-instance scheduling), and instances with morph targets get a
// slice of a scratch buffer to morph into before skinning. A thread takes tasks of at least
// kMinChunkVertices vertices in all: below that, waking a worker costs more than it saves (a
// scene of many small parts has tasks far below kRangeVertices, so this counts vertices, not
// tasks). The ranges and tasks do not depend on the thread count
// and each writes only its own output slots, so the bytes do not either.
#include "vatkit/scene.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "simd/skin_kernels.h"
#include "vatkit/parallel.h"
#include "vatkit/skin.h"

namespace vatkit {
namespace {

// Adds w * delta to dst for n elements of T (vec3 or the xyz of a vec4).
template <class T>
inline void add_scaled(T* __restrict dst, const glm::vec3* __restrict delta, size_t n, float w) {
  for (size_t i = 0; i < n; ++i) {
    dst[i].x += w * delta[i].x;
    dst[i].y += w * delta[i].y;
    dst[i].z += w * delta[i].z;
  }
}

constexpr uint32_t kRangeVertices = 1024;
constexpr size_t kMinChunkVertices = 8192;

struct Range {
  uint32_t instance = 0;
  uint32_t begin = 0;  // vertex range within the instance's primitive
  uint32_t end = 0;
};

struct InstancePlan {
  const Primitive* primitive = nullptr;
  int32_t skin = -1;            // skin used, or -1: rigid under the node's world matrix
  bool morphed = false;         // has targets and morph weights
  uint32_t scratch_offset = 0;  // first slot in the morph scratch (when morphed)
};

}  // namespace

namespace detail {

void morph_range(const Primitive& primitive, std::span<const float> weights, size_t begin, size_t end,
                 glm::vec3* positions, glm::vec3* normals, glm::vec4* tangents) {
  assert(begin <= end && end <= primitive.vertex_count());
  const size_t n = end - begin;
  if (n == 0) return;
  const size_t targets = std::min(weights.size(), primitive.targets.size());
  if (positions) std::memcpy(positions, primitive.positions.data() + begin, n * sizeof(glm::vec3));
  if (normals) {
    assert(primitive.normals.size() == primitive.vertex_count());
    std::memcpy(normals, primitive.normals.data() + begin, n * sizeof(glm::vec3));
  }
  if (tangents) {
    assert(primitive.tangents.size() == primitive.vertex_count());
    std::memcpy(tangents, primitive.tangents.data() + begin, n * sizeof(glm::vec4));
  }
  for (size_t t = 0; t < targets; ++t) {
    const float w = weights[t];
    if (w == 0.0f) continue;
    const MorphTarget& target = primitive.targets[t];
    if (positions && !target.positions.empty()) add_scaled(positions, target.positions.data() + begin, n, w);
    if (normals && !target.normals.empty()) add_scaled(normals, target.normals.data() + begin, n, w);
    if (tangents && !target.tangents.empty()) add_scaled(tangents, target.tangents.data() + begin, n, w);
  }
}

}  // namespace detail

void apply_morph_targets(const Primitive& primitive, std::span<const float> weights, VertexOutput out) {
  const size_t n = primitive.vertex_count();
  assert(out.positions.empty() || out.positions.size() == n);
  assert(out.normals.empty() || out.normals.size() == n);
  assert(out.tangents.empty() || out.tangents.size() == n);
  detail::morph_range(primitive, weights, 0, n, out.positions.empty() ? nullptr : out.positions.data(),
                      out.normals.empty() ? nullptr : out.normals.data(),
                      out.tangents.empty() ? nullptr : out.tangents.data());
}

void compute_joint_matrices(const Skin& skin, std::span<const glm::mat4> world, std::span<glm::mat4> out) {
  assert(out.size() == skin.joints.size() && skin.inverse_bind.size() == skin.joints.size());
  for (size_t j = 0; j < skin.joints.size(); ++j) out[j] = world[skin.joints[j]] * skin.inverse_bind[j];
}

struct SceneEvaluator::Impl {
  const Asset* asset = nullptr;
  Pose pose;
  std::vector<glm::mat4> world;
  std::vector<glm::mat4> joint_matrices;  // every skin's, concatenated
  std::vector<uint32_t> skin_offset;      // first joint matrix of each skin
  std::vector<InstancePlan> plans;
  std::vector<Range> ranges;
  std::vector<uint32_t> task_first;  // task t runs ranges [task_first[t], task_first[t + 1])
  std::vector<glm::vec3> morph_positions, morph_normals;
  std::vector<glm::vec4> morph_tangents;

  void process(const Range& r, std::span<glm::vec3> positions, std::span<glm::vec3> normals,
               std::span<glm::vec4> tangents);
};

SceneEvaluator::SceneEvaluator(const Asset& asset) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.asset = &asset;
  m.pose = make_rest_pose(asset);
  m.world.resize(asset.nodes.size(), glm::mat4(1.0f));
  m.skin_offset.resize(asset.skins.size());
  size_t joints = 0;
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    m.skin_offset[s] = static_cast<uint32_t>(joints);
    joints += asset.skins[s].joints.size();
  }
  m.joint_matrices.resize(joints, glm::mat4(1.0f));

  size_t scratch = 0;
  bool scratch_tangents = false;
  m.plans.resize(asset.instances.size());
  for (size_t i = 0; i < asset.instances.size(); ++i) {
    const MeshInstance& inst = asset.instances[i];
    const Node& node = asset.nodes[inst.node];
    const Primitive& prim = asset.meshes[inst.mesh].primitives[inst.primitive];
    assert(inst.vertex_count == prim.vertex_count());
    InstancePlan& plan = m.plans[i];
    plan.primitive = &prim;
    // A skinned node without JOINTS_0 on this primitive has nothing to skin with: rigid.
    plan.skin = (node.skin >= 0 && !prim.joints0.empty()) ? node.skin : -1;
    plan.morphed = !prim.targets.empty() && node.weights_count > 0;
    if (plan.morphed) {
      plan.scratch_offset = static_cast<uint32_t>(scratch);
      scratch += prim.vertex_count();
      scratch_tangents = scratch_tangents || !prim.tangents.empty();
    }
    for (uint32_t b = 0; b < inst.vertex_count; b += kRangeVertices) {
      m.ranges.push_back(Range{static_cast<uint32_t>(i), b, std::min(inst.vertex_count, b + kRangeVertices)});
    }
  }
  uint32_t in_task = kRangeVertices;
  for (uint32_t r = 0; r < m.ranges.size(); ++r) {
    const uint32_t n = m.ranges[r].end - m.ranges[r].begin;
    if (in_task + n > kRangeVertices) {
      m.task_first.push_back(r);
      in_task = 0;
    }
    in_task += n;
  }
  m.task_first.push_back(static_cast<uint32_t>(m.ranges.size()));
  m.morph_positions.resize(scratch);
  m.morph_normals.resize(scratch);
  if (scratch_tangents) m.morph_tangents.resize(scratch);
  pose(-1, 0.0f);
}

SceneEvaluator::~SceneEvaluator() = default;
SceneEvaluator::SceneEvaluator(SceneEvaluator&&) noexcept = default;
SceneEvaluator& SceneEvaluator::operator=(SceneEvaluator&&) noexcept = default;

void SceneEvaluator::pose(int clip, float time_s) {
  Impl& m = *impl_;
  const Asset& asset = *m.asset;
  reset_pose(asset, m.pose);
  if (clip >= 0) {
    assert(size_t(clip) < asset.animations.size());
    sample_animation(asset.animations[size_t(clip)], time_s, m.pose, asset);
  }
  compute_world_matrices(asset, m.pose, m.world);
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    const Skin& skin = asset.skins[s];
    compute_joint_matrices(skin, m.world,
                           std::span<glm::mat4>(m.joint_matrices).subspan(m.skin_offset[s], skin.joints.size()));
  }
}

const Pose& SceneEvaluator::local_pose() const { return impl_->pose; }
std::span<const glm::mat4> SceneEvaluator::world() const { return impl_->world; }
const Asset& SceneEvaluator::asset() const { return *impl_->asset; }

void SceneEvaluator::Impl::process(const Range& r, std::span<glm::vec3> positions, std::span<glm::vec3> normals,
                                   std::span<glm::vec4> tangents) {
  const MeshInstance& inst = asset->instances[r.instance];
  const InstancePlan& plan = plans[r.instance];
  const Primitive& prim = *plan.primitive;
  const Node& node = asset->nodes[inst.node];
  const size_t n = r.end - r.begin;
  const size_t out_at = size_t(inst.first_vertex) + r.begin;

  VertexOutput out;
  if (!positions.empty()) out.positions = positions.subspan(out_at, n);
  if (!normals.empty()) {
    if (prim.normals.empty()) {
      std::fill_n(normals.begin() + out_at, n, glm::vec3(0.0f));
    } else {
      out.normals = normals.subspan(out_at, n);
    }
  }
  if (!tangents.empty()) {
    if (prim.tangents.empty()) {
      std::fill_n(tangents.begin() + out_at, n, glm::vec4(0.0f));
    } else {
      out.tangents = tangents.subspan(out_at, n);
    }
  }
  if (out.positions.empty() && out.normals.empty() && out.tangents.empty()) return;

  VertexSpan in;
  in.positions = std::span<const glm::vec3>(prim.positions).subspan(r.begin, n);
  if (!out.normals.empty()) in.normals = std::span<const glm::vec3>(prim.normals).subspan(r.begin, n);
  if (!out.tangents.empty()) in.tangents = std::span<const glm::vec4>(prim.tangents).subspan(r.begin, n);

  if (plan.morphed) {
    const std::span<const float> w(pose.weights.data() + node.weights_offset, node.weights_count);
    if (std::any_of(w.begin(), w.end(), [](float x) { return x != 0.0f; })) {
      const size_t at = size_t(plan.scratch_offset) + r.begin;
      glm::vec3* mp = morph_positions.data() + at;
      glm::vec3* mn = in.normals.empty() ? nullptr : morph_normals.data() + at;
      glm::vec4* mt = in.tangents.empty() ? nullptr : morph_tangents.data() + at;
      detail::morph_range(prim, w, r.begin, r.end, mp, mn, mt);
      in.positions = std::span<const glm::vec3>(mp, n);
      if (mn) in.normals = std::span<const glm::vec3>(mn, n);
      if (mt) in.tangents = std::span<const glm::vec4>(mt, n);
    }
  }

  const glm::mat4& node_world = world[inst.node];
  if (plan.skin >= 0) {
    const Skin& skin = asset->skins[size_t(plan.skin)];
    const std::span<const glm::mat4> joints(joint_matrices.data() + skin_offset[size_t(plan.skin)], skin.joints.size());
    const std::span<const glm::u16vec4> j1 = prim.joints1.empty()
                                                 ? std::span<const glm::u16vec4>()
                                                 : std::span<const glm::u16vec4>(prim.joints1).subspan(r.begin, n);
    const std::span<const glm::vec4> w1 = prim.weights1.empty()
                                              ? std::span<const glm::vec4>()
                                              : std::span<const glm::vec4>(prim.weights1).subspan(r.begin, n);
    skin_vertices(in, std::span<const glm::u16vec4>(prim.joints0).subspan(r.begin, n),
                  std::span<const glm::vec4>(prim.weights0).subspan(r.begin, n), j1, w1, joints, node_world, out);
  } else {
    transform_vertices(in, node_world, out);
  }
}

void SceneEvaluator::skin(std::span<glm::vec3> positions, std::span<glm::vec3> normals, std::span<glm::vec4> tangents,
                          unsigned threads) {
  Impl& m = *impl_;
  const size_t total = m.asset->instance_vertex_count;
  assert(positions.empty() || positions.size() == total);
  assert(normals.empty() || normals.size() == total);
  assert(tangents.empty() || tangents.size() == total);
  struct Job {
    Impl& m;
    std::span<glm::vec3> positions, normals;
    std::span<glm::vec4> tangents;
  } job{m, positions, normals, tangents};
  // One captured pointer keeps the std::function in its small buffer: no allocation.
  const size_t tasks = m.task_first.size() - 1;
  const size_t chunk = std::max<size_t>(1, (kMinChunkVertices * tasks + total - 1) / std::max<size_t>(total, 1));
  parallel_for(tasks, chunk, threads, [j = &job](size_t begin, size_t end) {
    const uint32_t* first = j->m.task_first.data();
    for (size_t r = first[begin]; r < first[end]; ++r)
      j->m.process(j->m.ranges[r], j->positions, j->normals, j->tangents);
  });
}

}  // namespace vatkit

// The scene evaluator (scene.h) on hand-built scenes, expectations worked by hand: skinned meshes
// ignore their node's transform and its parents', rigid meshes follow their node, morph targets
// come before skinning, instances land at their first_vertex, thread counts give identical
// bytes, and pose()/skin() allocate nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "synthetic.h"
#include "test_support.h"
#include "vatkit/scene.h"
#include "vatkit/skin.h"

namespace vatkit {
namespace {

using test::add_channel;
using test::finalize;
using test::make_sampler;

void expect_vec(const glm::vec3& got, const glm::vec3& want, float eps = 1e-5f) {
  EXPECT_NEAR(got.x, want.x, eps);
  EXPECT_NEAR(got.y, want.y, eps);
  EXPECT_NEAR(got.z, want.z, eps);
}

std::vector<float> zrot(double deg) {
  const double h = deg * M_PI / 360.0;
  return {0.0f, 0.0f, float(std::sin(h)), float(std::cos(h))};
}

// node 0 "armature" at (100,0,0)
//   node 1 joint A
//     node 2 joint B at (0,1,0), rotated 90 degrees about z at t = 1 by clip 0
//       node 4 rigid mesh (mesh 1) at (1,0,0), scale 2
//   node 3 skinned mesh (mesh 0, skin 0) at (0,0,50): its transform and its parent's are ignored
// Skin: joints A, B; inverse bind: identity, translate(0,-1,0). Mesh 0 has one morph target that
// moves vertex 1 by +x; clip 0 drives its weight from 0 to 1.
Asset rig_scene() {
  Asset a;
  a.nodes.resize(5);
  a.nodes[0].translation = {100, 0, 0};
  a.nodes[1].parent = 0;
  a.nodes[2].parent = 1;
  a.nodes[2].translation = {0, 1, 0};
  a.nodes[3].parent = 0;
  a.nodes[3].translation = {0, 0, 50};
  a.nodes[3].mesh = 0;
  a.nodes[3].skin = 0;
  a.nodes[4].parent = 2;
  a.nodes[4].translation = {1, 0, 0};
  a.nodes[4].scale = {2, 2, 2};
  a.nodes[4].mesh = 1;

  Mesh skinned;
  Primitive p;
  p.positions = {{0, 0, 0}, {0, 2, 0}, {0, 1.5f, 0}};
  p.normals = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
  p.tangents = {{0, 1, 0, -1}, {0, 1, 0, -1}, {0, 1, 0, -1}};
  p.joints0 = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}};
  p.weights0 = {{1, 0, 0, 0}, {1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}};
  p.targets.resize(1);
  p.targets[0].positions = {{0, 0, 0}, {1, 0, 0}, {0, 0, 0}};
  skinned.primitives.push_back(p);
  skinned.weights = {0.0f};
  a.meshes.push_back(skinned);

  Mesh rigid;
  Primitive r;
  r.positions = {{0, 0, 0}, {1, 0, 0}};
  r.normals = {{1, 0, 0}, {0, 0, 1}};
  rigid.primitives.push_back(r);
  a.meshes.push_back(rigid);

  Skin skin;
  skin.joints = {1, 2};
  skin.inverse_bind = {glm::mat4(1.0f), glm::mat4(1.0f)};
  skin.inverse_bind[1][3] = glm::vec4(0, -1, 0, 1);
  a.skins.push_back(skin);

  Animation anim;
  std::vector<float> rot = zrot(0);
  const auto q90 = zrot(90);
  rot.insert(rot.end(), q90.begin(), q90.end());
  add_channel(anim, 2, Path::Rotation, make_sampler(Interpolation::Linear, {0, 1}, rot, 4));
  add_channel(anim, 3, Path::Weights, make_sampler(Interpolation::Linear, {0, 1}, {0, 1}, 1));
  a.animations.push_back(anim);
  finalize(a);
  return a;
}

struct Output {
  std::vector<glm::vec3> positions, normals;
  std::vector<glm::vec4> tangents;
  explicit Output(const Asset& a)
      : positions(a.instance_vertex_count), normals(a.instance_vertex_count), tangents(a.instance_vertex_count) {}
};

TEST(SceneEvaluatorRig, SkinnedMeshesIgnoreTheirNodeRigidMeshesFollowIt) {
  const Asset a = rig_scene();
  // Canonical order: depth first, so the rigid mesh under joint B comes before node 3.
  ASSERT_EQ(a.instances.size(), 2u);
  ASSERT_EQ(a.instances[0].node, 4u);
  ASSERT_EQ(a.instances[1].node, 3u);
  const uint32_t rigid = a.instances[0].first_vertex, skinned = a.instances[1].first_vertex;
  ASSERT_EQ(skinned, 2u);

  SceneEvaluator ev(a);
  Output out(a);
  ev.pose(-1, 0.0f);
  ev.skin(out.positions, out.normals, out.tangents);
  // Rest: both joint matrices are translate(100,0,0); node 3's (0,0,50) plays no part.
  expect_vec(out.positions[skinned + 0], {100, 0, 0});
  expect_vec(out.positions[skinned + 1], {100, 2, 0});
  expect_vec(out.positions[skinned + 2], {100, 1.5f, 0});
  // Rigid mesh: world = T(100,0,0) T(0,1,0) T(1,0,0) S(2): (0,0,0) -> (101,1,0), (1,0,0) -> (103,1,0).
  expect_vec(out.positions[rigid + 0], {101, 1, 0});
  expect_vec(out.positions[rigid + 1], {103, 1, 0});
  // A rigid mesh without tangents gets (0,0,0,0).
  EXPECT_EQ(out.tangents[rigid], glm::vec4(0.0f));

  // t = 1: joint B turned 90 degrees about z around (100,1,0); morph weight 1.
  ev.pose(0, 1.0f);
  ev.skin(out.positions, out.normals, out.tangents);
  // Vertex 0 (joint A only) stays.
  expect_vec(out.positions[skinned + 0], {100, 0, 0});
  // Vertex 1: morphed first to (1,2,0); J_B = T(100,1,0) R90 T(0,-1,0): (1,1,0) -> (-1,1,0)
  // -> (99,2,0). (Morphing after skinning would give (100,1,0).)
  expect_vec(out.positions[skinned + 1], {99, 2, 0});
  // Vertex 2, half and half: J_A -> (100,1.5,0); J_B: (0,0.5,0) -> (-0.5,0,0) -> (99.5,1,0).
  expect_vec(out.positions[skinned + 2], {99.75f, 1.25f, 0});
  // Normals and tangents of vertex 1 turn with B: +x -> +y, +y -> -x (w kept).
  expect_vec(out.normals[skinned + 1], {0, 1, 0});
  expect_vec(glm::vec3(out.tangents[skinned + 1]), {-1, 0, 0});
  EXPECT_EQ(out.tangents[skinned + 1].w, -1.0f);
  // Vertex 2: the blend of identity and R90 is [[.5,-.5],[.5,.5]] (a rotation by 45 degrees
  // times sqrt(1/2)), so +x goes to (1,1,0)/sqrt2.
  expect_vec(out.normals[skinned + 2], glm::vec3(1, 1, 0) / std::sqrt(2.0f));
  // Rigid mesh under B: (0,0,0) -> T(1,0,0) -> R90 -> (0,1,0) -> (0,2,0) -> (100,2,0);
  // (1,0,0) -> S2 (2,0,0) -> (3,0,0) -> (0,3,0) -> (0,4,0) -> (100,4,0).
  expect_vec(out.positions[rigid + 0], {100, 2, 0});
  expect_vec(out.positions[rigid + 1], {100, 4, 0});
  expect_vec(out.normals[rigid + 0], {0, 1, 0});
  expect_vec(out.normals[rigid + 1], {0, 0, 1});

  // The pose and world matrices are exposed as computed.
  EXPECT_NEAR(ev.local_pose().rotation[2].z, float(std::sqrt(0.5)), 1e-6f);
  EXPECT_NEAR(ev.local_pose().weights[a.nodes[3].weights_offset], 1.0f, 1e-6f);
  expect_vec(glm::vec3(ev.world()[2][3]), {100, 1, 0});
  EXPECT_EQ(&ev.asset(), &a);

  // Before the clip's first key and after its last, the end keys hold.
  ev.pose(0, -3.0f);
  ev.skin(out.positions, {}, {});
  expect_vec(out.positions[skinned + 1], {100, 2, 0});
  ev.pose(0, 9.0f);
  ev.skin(out.positions, {}, {});
  expect_vec(out.positions[skinned + 1], {99, 2, 0});
}

TEST(SceneEvaluatorRig, StreamsAreOptionalAndMoveWorks) {
  const Asset a = rig_scene();
  SceneEvaluator ev(a);
  ev.pose(0, 0.5f);
  Output full(a);
  ev.skin(full.positions, full.normals, full.tangents);
  std::vector<glm::vec3> normals_only(a.instance_vertex_count);
  ev.skin({}, normals_only, {});
  EXPECT_EQ(std::memcmp(normals_only.data(), full.normals.data(), normals_only.size() * sizeof(glm::vec3)), 0);
  SceneEvaluator moved(std::move(ev));
  std::vector<glm::vec3> again(a.instance_vertex_count);
  moved.skin(again);
  EXPECT_EQ(std::memcmp(again.data(), full.positions.data(), again.size() * sizeof(glm::vec3)), 0);
}

// A bigger scene: two skinned primitives (4 and 8 influences) of 5000 vertices each, one with
// morph targets, plus a rigid one, over a 24-joint chain with a seeded random clip.
Asset big_scene() {
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Asset a;
  const uint32_t joints = 24;
  a.nodes.resize(joints + 3);
  for (uint32_t j = 0; j < joints; ++j) {
    a.nodes[j].parent = j == 0 ? -1 : int32_t(j - 1);
    a.nodes[j].translation = {u(rng), 1.0f, u(rng)};
  }
  Skin skin;
  for (uint32_t j = 0; j < joints; ++j) {
    skin.joints.push_back(j);
    skin.inverse_bind.push_back(glm::mat4(1.0f));
    skin.inverse_bind.back()[3] = glm::vec4(0, -float(j), 0, 1);
  }
  a.skins.push_back(skin);
  auto make_prim = [&](size_t n, bool eight, int targets) {
    Primitive p;
    for (size_t i = 0; i < n; ++i) {
      p.positions.push_back({u(rng), u(rng) * 12.0f + 12.0f, u(rng)});
      p.normals.push_back(glm::normalize(glm::vec3(u(rng), u(rng), u(rng)) + glm::vec3(0, 0, 2)));
      p.tangents.push_back({glm::normalize(glm::vec3(1, u(rng), 0)), (i % 2) ? 1.0f : -1.0f});
      auto j4 = [&] { return glm::u16vec4(rng() % joints, rng() % joints, rng() % joints, rng() % joints); };
      auto w4 = [&] { return glm::vec4(u(rng) + 1, u(rng) + 1, u(rng) + 1, (i % 13 == 0) ? 0.0f : u(rng) + 1); };
      p.joints0.push_back(j4());
      p.weights0.push_back(w4());
      if (eight) {
        p.joints1.push_back(j4());
        p.weights1.push_back(w4());
      }
    }
    for (int t = 0; t < targets; ++t) {
      MorphTarget mt;
      for (size_t i = 0; i < n; ++i) {
        mt.positions.push_back({u(rng), u(rng), u(rng)});
        mt.normals.push_back({u(rng) * 0.1f, u(rng) * 0.1f, 0});
      }
      p.targets.push_back(mt);
    }
    return p;
  };
  Mesh m0, m1, m2;
  m0.primitives.push_back(make_prim(5000, false, 2));
  m0.weights = {0.25f, 0.0f};
  m1.primitives.push_back(make_prim(5000, true, 0));
  m2.primitives.push_back(make_prim(300, false, 0));
  a.meshes = {m0, m1, m2};
  a.nodes[joints].mesh = 0;
  a.nodes[joints].skin = 0;
  a.nodes[joints + 1].mesh = 1;
  a.nodes[joints + 1].skin = 0;
  a.nodes[joints + 2].mesh = 2;  // rigid, under the last joint
  a.nodes[joints + 2].parent = int32_t(joints - 1);
  Animation anim;
  for (uint32_t j = 0; j < joints; ++j) {
    std::vector<float> t, v;
    for (int k = 0; k < 10; ++k) {
      t.push_back(0.1f * float(k));
      const glm::quat q = glm::normalize(glm::quat(2.0f, u(rng), u(rng), u(rng)));
      v.insert(v.end(), {q.x, q.y, q.z, q.w});
    }
    add_channel(anim, j, Path::Rotation, make_sampler(Interpolation::Linear, t, v, 4));
  }
  add_channel(anim, joints, Path::Weights, make_sampler(Interpolation::Linear, {0, 1}, {0, 1, 1, 0.5f}, 2));
  a.animations.push_back(anim);
  finalize(a);
  return a;
}

TEST(SceneEvaluatorThreads, IdenticalBytesForAnyThreadCount) {
  const Asset a = big_scene();
  SceneEvaluator ev(a);
  for (float t : {0.0f, 0.37f, 0.9f}) {
    ev.pose(0, t);
    Output one(a), all(a), three(a);
    ev.skin(one.positions, one.normals, one.tangents, 1);
    ev.skin(all.positions, all.normals, all.tangents, 0);
    ev.skin(three.positions, three.normals, three.tangents, 3);
    const size_t n = a.instance_vertex_count;
    for (const Output* o : {&all, &three}) {
      EXPECT_EQ(std::memcmp(o->positions.data(), one.positions.data(), n * sizeof(glm::vec3)), 0);
      EXPECT_EQ(std::memcmp(o->normals.data(), one.normals.data(), n * sizeof(glm::vec3)), 0);
      EXPECT_EQ(std::memcmp(o->tangents.data(), one.tangents.data(), n * sizeof(glm::vec4)), 0);
    }
    // The evaluator's vertex ranges give the same bytes as the kernels run on whole primitives.
    std::vector<glm::mat4> jm(a.skins[0].joints.size());
    compute_joint_matrices(a.skins[0], ev.world(), jm);
    const Primitive& p1 = a.meshes[1].primitives[0];
    const auto inst =
        std::find_if(a.instances.begin(), a.instances.end(), [](const MeshInstance& mi) { return mi.mesh == 1; });
    ASSERT_NE(inst, a.instances.end());
    std::vector<glm::vec3> pos(p1.vertex_count()), nrm(p1.vertex_count());
    skin_vertices(VertexSpan{p1.positions, p1.normals, {}}, p1.joints0, p1.weights0, p1.joints1, p1.weights1, jm,
                  ev.world()[inst->node], VertexOutput{pos, nrm, {}});
    const uint32_t f = inst->first_vertex;
    EXPECT_EQ(std::memcmp(pos.data(), one.positions.data() + f, pos.size() * sizeof(glm::vec3)), 0);
    EXPECT_EQ(std::memcmp(nrm.data(), one.normals.data() + f, nrm.size() * sizeof(glm::vec3)), 0);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(std::isfinite(one.positions[i].x) && std::isfinite(one.positions[i].y) &&
                  std::isfinite(one.positions[i].z));
      ASSERT_NEAR(glm::length(one.normals[i]), 1.0f, 1e-5f) << i;
    }
  }
}

TEST(SceneEvaluatorThreads, PoseAndSkinAllocateNothing) {
  const Asset a = big_scene();
  SceneEvaluator ev(a);
  Output out(a);
  ev.pose(0, 0.1f);
  ev.skin(out.positions, out.normals, out.tangents, 0);  // warm up the thread pool
  {
    test::CountAllocations allocations;
    for (int i = 0; i < 5; ++i) {
      ev.pose(i % 2 ? 0 : -1, 0.2f * float(i));
      ev.skin(out.positions, out.normals, out.tangents, 0);
      ev.skin(out.positions, {}, out.tangents, 1);
    }
    EXPECT_EQ(allocations.count(), 0u) << "pose() or skin() allocated";
  }

  std::vector<Pose> poses(64, make_rest_pose(a));
  std::vector<float> times(poses.size());
  for (size_t k = 0; k < times.size(); ++k) times[k] = 0.015f * float(k);
  {
    test::CountAllocations allocations;
    sample_animation_batch(a, a.animations[0], times, poses, 0);
    sample_animation_batch(a, a.animations[0], times, poses, 1);
    EXPECT_EQ(allocations.count(), 0u) << "sample_animation_batch allocated";
  }

  // The counter does count.
  test::CountAllocations allocations;
  const Pose extra = make_rest_pose(a);
  EXPECT_GT(allocations.count(), 0u);
}

}  // namespace
}  // namespace vatkit

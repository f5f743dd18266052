// Animation sampling (sample.h) against values worked by hand from the glTF 2.0 spec: each
// interpolation mode at and between keys, end keys held, shortest-path slerp, cubic rotations
// normalized, channels of different lengths in one clip, weights channels, the batch form and
// world matrices. The file-based checks on InterpolationTest.glb are in test_sample_files.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "synthetic.h"
#include "vatkit/sample.h"

namespace vatkit {
namespace {

using test::add_channel;
using test::finalize;
using test::make_sampler;

constexpr float kEps = 1e-6f;

std::vector<float> sample(const Sampler& s, Path path, float t) {
  std::vector<float> out(s.components, -12345.0f);
  sample_sampler(s, path, t, out.data());
  return out;
}

void expect_values(const std::vector<float>& got, std::initializer_list<float> want, float eps = kEps) {
  ASSERT_EQ(got.size(), want.size());
  size_t i = 0;
  for (float w : want) {
    EXPECT_NEAR(got[i], w, eps) << "component " << i;
    ++i;
  }
}

// Quaternion (x, y, z, w) of a rotation by `deg` degrees about +z.
std::vector<float> zrot(double deg) {
  const double h = deg * M_PI / 360.0;
  return {0.0f, 0.0f, float(std::sin(h)), float(std::cos(h))};
}

TEST(SampleStep, HoldsTheLastKeyAtOrBeforeT) {
  const Sampler s = make_sampler(Interpolation::Step, {0.5f, 1.0f, 2.0f}, {1, 2, 3, 10, 20, 30, 100, 200, 300}, 3);
  expect_values(sample(s, Path::Translation, -1.0f), {1, 2, 3});  // before the first key
  expect_values(sample(s, Path::Translation, 0.0f), {1, 2, 3});
  expect_values(sample(s, Path::Translation, 0.5f), {1, 2, 3});
  expect_values(sample(s, Path::Translation, 0.99f), {1, 2, 3});
  expect_values(sample(s, Path::Translation, 1.0f), {10, 20, 30});  // exactly at a key
  expect_values(sample(s, Path::Translation, 1.999f), {10, 20, 30});
  expect_values(sample(s, Path::Translation, 2.0f), {100, 200, 300});
  expect_values(sample(s, Path::Translation, 7.0f), {100, 200, 300});  // after the last key
}

TEST(SampleLinear, LerpsBetweenKeysAndHoldsTheEnds) {
  const Sampler s = make_sampler(Interpolation::Linear, {0.5f, 1.0f, 2.0f}, {1, 2, 3, 10, 20, 30, 100, 200, 300}, 3);
  expect_values(sample(s, Path::Translation, 0.0f), {1, 2, 3});
  expect_values(sample(s, Path::Translation, 0.5f), {1, 2, 3});
  expect_values(sample(s, Path::Translation, 0.75f), {5.5f, 11.0f, 16.5f}, 1e-5f);
  expect_values(sample(s, Path::Translation, 1.0f), {10, 20, 30});
  // u = 0.25 in [1, 2]: 10 + 0.25 * 90, 20 + 0.25 * 180, 30 + 0.25 * 270.
  expect_values(sample(s, Path::Scale, 1.25f), {32.5f, 65.0f, 97.5f}, 1e-5f);
  expect_values(sample(s, Path::Translation, 2.0f), {100, 200, 300});
  expect_values(sample(s, Path::Translation, 3.0f), {100, 200, 300});
}

TEST(SampleLinear, SingleKeyHoldsEverywhere) {
  const Sampler s = make_sampler(Interpolation::Linear, {0.7f}, {4, 5, 6}, 3);
  for (float t : {-1.0f, 0.0f, 0.7f, 9.0f}) expect_values(sample(s, Path::Translation, t), {4, 5, 6});
}

TEST(SampleLinear, ConstantChannelIsBitExact) {
  // a + u (b - a) with a == b must give a, not a value one ulp off.
  const Sampler s = make_sampler(Interpolation::Linear, {0.0f, 1.0f}, {0.1f, 0.3f, 0.7f, 0.1f, 0.3f, 0.7f}, 3);
  for (float t : {0.1f, 0.33f, 0.5f, 0.77f}) {
    const auto v = sample(s, Path::Translation, t);
    EXPECT_EQ(v[0], 0.1f);
    EXPECT_EQ(v[1], 0.3f);
    EXPECT_EQ(v[2], 0.7f);
  }
}

TEST(SampleLinear, RotationIsSlerpWithConstantAngularSpeed) {
  // 0 -> 90 degrees about z over [0, 1]: at t = 0.25 the angle is exactly 22.5 degrees (a
  // normalized lerp would give 21.6).
  std::vector<float> values = zrot(0);
  const auto q90 = zrot(90);
  values.insert(values.end(), q90.begin(), q90.end());
  const Sampler s = make_sampler(Interpolation::Linear, {0.0f, 1.0f}, values, 4);
  const auto q = sample(s, Path::Rotation, 0.25f);
  const auto want = zrot(22.5);
  expect_values(q, {want[0], want[1], want[2], want[3]});
  const auto mid = sample(s, Path::Rotation, 0.5f);
  const auto want45 = zrot(45);
  expect_values(mid, {want45[0], want45[1], want45[2], want45[3]});
}

TEST(SampleLinear, SlerpTakesTheShortestPath) {
  // The second key is -(90 degrees about z): the same rotation in the other hemisphere. Going
  // the short way, t = 0.5 is +45 degrees.
  std::vector<float> values = zrot(0);
  auto q90 = zrot(90);
  for (float& c : q90) c = -c;
  values.insert(values.end(), q90.begin(), q90.end());
  const Sampler s = make_sampler(Interpolation::Linear, {0.0f, 1.0f}, values, 4);
  const auto q = sample(s, Path::Rotation, 0.5f);
  const auto want = zrot(45);
  expect_values(q, {want[0], want[1], want[2], want[3]});

  // A key of 270 degrees about z, (0, 0, sin 135, cos 135), is -90 the short way: halfway is -45
  // degrees, not +135.
  std::vector<float> v2 = zrot(0);
  const auto q270 = zrot(270);
  v2.insert(v2.end(), q270.begin(), q270.end());
  const Sampler s2 = make_sampler(Interpolation::Linear, {0.0f, 1.0f}, v2, 4);
  const auto q2 = sample(s2, Path::Rotation, 0.5f);
  const auto wm45 = zrot(-45);
  expect_values(q2, {wm45[0], wm45[1], wm45[2], wm45[3]});
}

TEST(SampleLinear, NonUnitRotationKeysStandForTheirRotation) {
  // Keys of length 0.5 and 3: the rotations 0 and 90 degrees about z. A quarter of the way is
  // 22.5 degrees, unit length; holding or stepping gives the unit key.
  std::vector<float> values = zrot(0);
  for (float& c : values) c *= 0.5f;
  auto q90 = zrot(90);
  for (float& c : q90) c *= 3.0f;
  values.insert(values.end(), q90.begin(), q90.end());
  const Sampler s = make_sampler(Interpolation::Linear, {0.0f, 1.0f}, values, 4);
  const auto want = zrot(22.5);
  expect_values(sample(s, Path::Rotation, 0.25f), {want[0], want[1], want[2], want[3]});
  const auto end = zrot(90);
  expect_values(sample(s, Path::Rotation, 2.0f), {end[0], end[1], end[2], end[3]});
  const Sampler st = make_sampler(Interpolation::Step, {0.0f, 1.0f}, values, 4);
  expect_values(sample(st, Path::Rotation, 0.5f), {0, 0, 0, 1});
}

TEST(SampleCubicSpline, HermiteWithTangentsScaledByTheKeyInterval) {
  // Keys at t = 0 and 2 (interval d = 2). Per key: in-tangent, value, out-tangent. The first
  // key's in-tangent and the last key's out-tangent are never used: 999 would show.
  const Sampler s = make_sampler(Interpolation::CubicSpline, {0.0f, 2.0f},
                                 {999, 999, 999, /*v0*/ 0, 1, 2, /*b0*/ 1, 0, 4,
                                  /*a1*/ 0, -1, 4, /*v1*/ 1, 1, 0, 999, 999, 999},
                                 3);
  // u = 0.5: h00 = 0.5, h10 = 0.125 d = 0.25, h01 = 0.5, h11 = -0.125 d = -0.25.
  //   x = 0.25 * 1 + 0.5 * 1 = 0.75;  y = 0.5 + 0.5 + 0.25 = 1.25;  z = 1 + 1 - 1 = 1.
  expect_values(sample(s, Path::Translation, 1.0f), {0.75f, 1.25f, 1.0f});
  // u = 0.25: h00 = 0.84375, h10 = 0.140625 d = 0.28125, h01 = 0.15625, h11 = -0.046875 d.
  //   x = 0.28125 + 0.15625 = 0.4375;  y = 0.84375 + 0.15625 + 0.09375 = 1.09375;
  //   z = 1.6875 + 1.125 - 0.375 = 2.4375.
  expect_values(sample(s, Path::Translation, 0.5f), {0.4375f, 1.09375f, 2.4375f});
  expect_values(sample(s, Path::Translation, 0.0f), {0, 1, 2});
  expect_values(sample(s, Path::Translation, -3.0f), {0, 1, 2});
  expect_values(sample(s, Path::Translation, 2.0f), {1, 1, 0});
  expect_values(sample(s, Path::Translation, 5.0f), {1, 1, 0});
}

TEST(SampleCubicSpline, RotationsAreNormalized) {
  // Zero tangents, identity -> 90 degrees about z. The Hermite blend of two unit quaternions is
  // shorter than 1; the spec normalizes it. At u = 0.5 that gives exactly 45 degrees.
  std::vector<float> v;
  auto push = [&](std::vector<float> q) { v.insert(v.end(), q.begin(), q.end()); };
  push({0, 0, 0, 0});
  push(zrot(0));
  push({0, 0, 0, 0});
  push({0, 0, 0, 0});
  push(zrot(90));
  push({0, 0, 0, 0});
  const Sampler s = make_sampler(Interpolation::CubicSpline, {0.0f, 1.0f}, v, 4);
  const auto mid = sample(s, Path::Rotation, 0.5f);
  const auto w45 = zrot(45);
  expect_values(mid, {w45[0], w45[1], w45[2], w45[3]});
  // u = 0.25: h00 = 0.84375, h01 = 0.15625 -> (0, 0, 0.15625 s, 0.84375 + 0.15625 s), s = sqrt(1/2),
  // then normalized.
  const double s2 = std::sqrt(0.5);
  const double z = 0.15625 * s2, w = 0.84375 + 0.15625 * s2, len = std::sqrt(z * z + w * w);
  const auto q = sample(s, Path::Rotation, 0.25f);
  expect_values(q, {0.0f, 0.0f, float(z / len), float(w / len)});
  EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 1e-6f);
}

TEST(SampleWeights, AllModesOnMorphWeights) {
  const Sampler lin = make_sampler(Interpolation::Linear, {0.0f, 1.0f}, {0, 1, 0.5f, 1, 0, 0.5f}, 3);
  expect_values(sample(lin, Path::Weights, 0.25f), {0.25f, 0.75f, 0.5f});
  const Sampler step = make_sampler(Interpolation::Step, {0.0f, 1.0f}, {0, 1, 0.5f, 1, 0, 0.5f}, 3);
  expect_values(sample(step, Path::Weights, 0.25f), {0, 1, 0.5f});
  // Cubic with zero tangents is the smoothstep 3u^2 - 2u^3 between the values: 0.15625 at u=0.25.
  const Sampler cub = make_sampler(Interpolation::CubicSpline, {0.0f, 1.0f},
                                   {0, 0, 0, 0, 1, 0.5f, 0, 0, 0, 0, 0, 0, 1, 0, 0.5f, 0, 0, 0}, 3);
  expect_values(sample(cub, Path::Weights, 0.25f), {0.15625f, 0.84375f, 0.5f});
}

// A four-node asset: node 3 has a mesh with 3 morph targets.
Asset four_node_asset() {
  Asset a;
  a.nodes.resize(4);
  a.nodes[1].translation = {7, 8, 9};
  a.nodes[2].rotation = glm::quat(0.5f, 0.5f, 0.5f, 0.5f);
  Mesh mesh;
  Primitive p;
  p.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  p.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  p.targets.resize(3);
  mesh.primitives.push_back(p);
  mesh.weights = {0.1f, 0.2f, 0.3f};
  a.meshes.push_back(mesh);
  a.nodes[3].mesh = 0;
  return a;
}

TEST(SampleAnimation, ChannelsWithDifferentKeyTimesAndCounts) {
  Asset a = four_node_asset();
  Animation anim;
  add_channel(anim, 0, Path::Translation,
              make_sampler(Interpolation::Linear, {0, 1, 2}, {0, 0, 0, 1, 0, 0, 1, 4, 0}, 3));
  add_channel(anim, 2, Path::Rotation,
              make_sampler(
                  Interpolation::Linear, {0, 0.5f},
                  [] {
                    auto v = zrot(0);
                    auto q = zrot(90);
                    v.insert(v.end(), q.begin(), q.end());
                    return v;
                  }(),
                  4));
  add_channel(anim, 2, Path::Scale,
              make_sampler(Interpolation::Step, {0, 0.25f, 0.5f, 3.0f}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}, 3));
  add_channel(
      anim, 3, Path::Weights,
      make_sampler(Interpolation::CubicSpline, {1, 2}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0}, 3));
  a.animations.push_back(anim);
  finalize(a);
  EXPECT_FLOAT_EQ(a.animations[0].end_s, 3.0f);

  Pose pose = make_rest_pose(a);
  sample_animation(a.animations[0], 1.5f, pose, a);
  // Translation: u = 0.5 between (1,0,0) and (1,4,0).
  EXPECT_NEAR(pose.translation[0].x, 1.0f, kEps);
  EXPECT_NEAR(pose.translation[0].y, 2.0f, kEps);
  // Rotation: past its last key (0.5 s), holds 90 degrees.
  const auto q90 = zrot(90);
  EXPECT_NEAR(pose.rotation[2].z, q90[2], kEps);
  EXPECT_NEAR(pose.rotation[2].w, q90[3], kEps);
  // Scale: STEP, 0.5 <= 1.5 < 3 -> key 2.
  EXPECT_EQ(pose.scale[2], glm::vec3(3.0f));
  // Weights: u = 0.5 of a zero-tangent cubic from 0 to 1 = 0.5.
  const Node& n3 = a.nodes[3];
  ASSERT_EQ(n3.weights_count, 3u);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_NEAR(pose.weights[n3.weights_offset + i], 0.5f, kEps);
  // Untouched: node 1 keeps its rest translation; node 0 keeps its rest rotation.
  EXPECT_EQ(pose.translation[1], glm::vec3(7, 8, 9));
  EXPECT_EQ(pose.rotation[0], glm::quat(1, 0, 0, 0));

  // Before every channel's first key (weights start at 1 s): each holds its first key.
  reset_pose(a, pose);
  sample_animation(a.animations[0], 0.5f, pose, a);
  EXPECT_NEAR(pose.translation[0].x, 0.5f, kEps);
  EXPECT_EQ(pose.scale[2], glm::vec3(3.0f));
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(pose.weights[n3.weights_offset + i], 0.0f);
}

TEST(SampleRestPose, NodeWeightsOverrideTheMeshDefaults) {
  Asset a = four_node_asset();
  a.nodes[0].mesh = 0;
  a.nodes[0].weights = {1.0f, 0.0f, 0.5f};  // overrides the mesh's (0.1, 0.2, 0.3)
  finalize(a);
  ASSERT_EQ(a.weight_count, 6u);
  Pose pose = make_rest_pose(a);
  ASSERT_EQ(pose.weights.size(), 6u);
  ASSERT_EQ(pose.translation.size(), 4u);
  const Node& n0 = a.nodes[0];
  const Node& n3 = a.nodes[3];
  EXPECT_EQ(pose.weights[n0.weights_offset + 0], 1.0f);
  EXPECT_EQ(pose.weights[n0.weights_offset + 2], 0.5f);
  EXPECT_EQ(pose.weights[n3.weights_offset + 0], 0.1f);
  EXPECT_EQ(pose.weights[n3.weights_offset + 2], 0.3f);
  EXPECT_EQ(pose.translation[1], glm::vec3(7, 8, 9));
  EXPECT_EQ(pose.rotation[2], glm::quat(0.5f, 0.5f, 0.5f, 0.5f));

  // reset_pose puts it back after sampling scribbled on it, without resizing.
  pose.translation[1] = glm::vec3(0);
  pose.weights[n3.weights_offset + 1] = 9.0f;
  const float* data = pose.weights.data();
  reset_pose(a, pose);
  EXPECT_EQ(pose.weights.data(), data);
  EXPECT_EQ(pose.translation[1], glm::vec3(7, 8, 9));
  EXPECT_EQ(pose.weights[n3.weights_offset + 1], 0.2f);
}

Asset batch_asset() {
  Asset a = four_node_asset();
  Animation anim;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  auto keys = [&](int n, float t0, float dt) {
    std::vector<float> t(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) t[size_t(i)] = t0 + dt * float(i);
    return t;
  };
  auto values = [&](size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = val(rng);
    return v;
  };
  add_channel(anim, 0, Path::Translation,
              make_sampler(Interpolation::Linear, keys(37, 0.1f, 0.05f), values(37 * 3), 3));
  add_channel(anim, 1, Path::Rotation, make_sampler(Interpolation::Linear, keys(11, 0.0f, 0.2f), values(11 * 4), 4));
  add_channel(anim, 2, Path::Rotation,
              make_sampler(Interpolation::CubicSpline, keys(5, 0.3f, 0.3f), values(5 * 12), 4));
  add_channel(anim, 2, Path::Scale, make_sampler(Interpolation::Step, keys(8, 0.0f, 0.25f), values(8 * 3), 3));
  add_channel(anim, 3, Path::Weights, make_sampler(Interpolation::CubicSpline, keys(9, 0.2f, 0.2f), values(9 * 9), 3));
  a.animations.push_back(anim);
  finalize(a);
  return a;
}

bool same_bytes(const Pose& x, const Pose& y) {
  auto eq = [](const auto& u, const auto& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(u[0])) == 0;
  };
  return eq(x.translation, y.translation) && eq(x.rotation, y.rotation) && eq(x.scale, y.scale) &&
         eq(x.weights, y.weights);
}

TEST(SampleBatch, MatchesOneAtATimeForAnyOrderAndThreadCount) {
  const Asset a = batch_asset();
  const Animation& anim = a.animations[0];
  // Increasing times (the cursor's fast path), then shuffled, repeated and out-of-range times.
  std::vector<float> times;
  for (int i = 0; i < 300; ++i) times.push_back(-0.2f + 2.4f * float(i) / 299.0f);
  std::vector<float> shuffled = times;
  std::mt19937 rng(7);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  shuffled.push_back(shuffled[3]);
  shuffled.push_back(0.25f);  // exactly on a key
  shuffled.push_back(-5.0f);
  shuffled.push_back(50.0f);
  for (const auto& ts : {times, shuffled}) {
    std::vector<Pose> expect(ts.size(), make_rest_pose(a));
    for (size_t k = 0; k < ts.size(); ++k) sample_animation(anim, ts[k], expect[k], a);
    for (unsigned threads : {1u, 2u, 0u, 7u}) {
      std::vector<Pose> got(ts.size(), make_rest_pose(a));
      // Scribble on the poses: the batch must reset them to rest first.
      for (auto& p : got) p.translation[1] = glm::vec3(42.0f);
      sample_animation_batch(a, anim, ts, got, threads);
      for (size_t k = 0; k < ts.size(); ++k) {
        ASSERT_TRUE(same_bytes(got[k], expect[k])) << "time " << ts[k] << " threads " << threads;
      }
    }
  }
}

TEST(SampleWorld, TrsOrderHierarchyAndFixedMatrices) {
  Asset a;
  a.nodes.resize(4);
  a.nodes[0].translation = {1, 0, 0};
  a.nodes[1].parent = 0;
  a.nodes[1].translation = {0, 1, 0};
  a.nodes[1].rotation = glm::quat(float(std::cos(M_PI / 4)), 0.0f, 0.0f, float(std::sin(M_PI / 4)));
  a.nodes[1].scale = {2, 1, 1};
  a.nodes[2].parent = 1;
  a.nodes[2].has_matrix = true;
  a.nodes[2].matrix = glm::mat4(1.0f);
  a.nodes[2].matrix[3] = glm::vec4(0, 0, 5, 1);             // translate z by 5
  a.nodes[2].translation = {100, 100, 100};                 // ignored: the matrix wins
  a.nodes[3].rotation = glm::quat(0.0f, 0.0f, 0.0f, 3.0f);  // not unit: 180 degrees about z
  finalize(a);
  Pose pose = make_rest_pose(a);
  std::vector<glm::mat4> world(4);
  compute_world_matrices(a, pose, world);
  auto apply = [&](int node, glm::vec3 p) { return glm::vec3(world[size_t(node)] * glm::vec4(p, 1.0f)); };
  auto expect_vec = [](glm::vec3 got, glm::vec3 want) {
    EXPECT_NEAR(got.x, want.x, 1e-5f);
    EXPECT_NEAR(got.y, want.y, 1e-5f);
    EXPECT_NEAR(got.z, want.z, 1e-5f);
  };
  // Node 1, point (1,0,0): S -> (2,0,0), R(90 about z) -> (0,2,0), T -> (0,3,0), parent -> (1,3,0).
  expect_vec(apply(1, {1, 0, 0}), {1, 3, 0});
  // (0,1,0): S -> (0,1,0), R -> (-1,0,0), T -> (-1,1,0), parent -> (0,1,0).
  expect_vec(apply(1, {0, 1, 0}), {0, 1, 0});
  // Node 2 = node 1 * translate(0,0,5): its origin lands at node 1's (0,0,5) = (1,1,5).
  expect_vec(apply(2, {0, 0, 0}), {1, 1, 5});
  // A quaternion of length 3 is normalized: a pure 180-degree turn, no scale of 9.
  expect_vec(apply(3, {1, 2, 0}), {-1, -2, 0});
}

}  // namespace
}  // namespace vatkit

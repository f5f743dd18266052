// Sampling on Khronos' InterpolationTest.glb: its 9 clips (STEP / LINEAR / CUBICSPLINE x
// translation / rotation / scale). Expectations come two ways, both independent of the code
// under test: numbers worked by hand from the file's keys (listed in the comments), and the
// spec's formulas evaluated in double precision on keyframes read straight from the .glb by
// the test's own reader (gltf_probe.h), at every key, between keys, before 0 and after the end.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gltf_probe.h"
#include "test_support.h"
#include "vatkit/import.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace {

using test::GltfProbe;
using test::spec_sample;

class SampleInterpolationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::asset_path("khronos/InterpolationTest.glb");
    auto r = import_gltf(path_);
    ASSERT_TRUE(r.ok()) << r.error().message;
    asset_ = std::move(r.value());
    probe_ = GltfProbe::load(path_);
    ASSERT_EQ(asset_.nodes.size(), probe_.json["nodes"].size());
    for (size_t i = 0; i < asset_.nodes.size(); ++i) {
      ASSERT_EQ(asset_.nodes[i].name, probe_.json["nodes"][i]["name"].get<std::string>()) << "node order";
    }
  }
  int clip(const std::string& name) const {
    for (size_t i = 0; i < asset_.animations.size(); ++i) {
      if (asset_.animations[i].name == name) return int(i);
    }
    ADD_FAILURE() << "no clip " << name;
    return -1;
  }
  std::filesystem::path path_;
  Asset asset_;
  GltfProbe probe_;
};

std::vector<double> pose_value(const Pose& pose, uint32_t node, const std::string& path) {
  if (path == "translation") return {pose.translation[node].x, pose.translation[node].y, pose.translation[node].z};
  if (path == "scale") return {pose.scale[node].x, pose.scale[node].y, pose.scale[node].z};
  const glm::quat q = pose.rotation[node];
  return {q.x, q.y, q.z, q.w};
}

TEST_F(SampleInterpolationTest, EveryClipFollowsTheSpecFormulasAtAndBetweenKeys) {
  ASSERT_EQ(asset_.animations.size(), 9u);
  SceneEvaluator ev(asset_);
  int checked = 0;
  for (const auto& anim : probe_.json["animations"]) {
    const std::string name = anim["name"];
    const int c = clip(name);
    ASSERT_GE(c, 0);
    ASSERT_EQ(anim["channels"].size(), 1u);
    const auto& ch = anim["channels"][0];
    const uint32_t node = ch["target"]["node"];
    const std::string path = ch["target"]["path"];
    const auto& sampler = anim["samplers"][ch["sampler"].get<size_t>()];
    const std::string interpolation = sampler["interpolation"];
    const std::vector<double> times = probe_.read(sampler["input"]);
    const std::vector<double> values = probe_.read(sampler["output"]);
    const int nc = path == "rotation" ? 4 : 3;
    std::vector<double> when = {-0.5, times.back() + 0.5, times.back() + 100.0};
    for (size_t k = 0; k < times.size(); ++k) {
      when.push_back(times[k]);
      if (k + 1 < times.size()) {
        for (double f : {0.1, 0.25, 0.5, 0.75, 0.9}) when.push_back(times[k] + f * (times[k + 1] - times[k]));
      }
    }
    for (double t : when) {
      ev.pose(c, float(t));
      const auto want = spec_sample(interpolation, times, values, nc, double(float(t)), path == "rotation");
      const auto got = pose_value(ev.local_pose(), node, path);
      double sign = 1.0;
      if (path == "rotation") {  // q and -q are the same rotation
        double dot = 0;
        for (int i = 0; i < 4; ++i) dot += want[size_t(i)] * got[size_t(i)];
        sign = dot < 0 ? -1.0 : 1.0;
      }
      for (int i = 0; i < nc; ++i) {
        EXPECT_NEAR(got[size_t(i)], sign * want[size_t(i)], 2e-6) << name << " t=" << t << " component " << i;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 9 * 20);
}

// The same clips, with numbers worked by hand from the keys (all at t = 0, 0.5, 1, 1.5, 2;
// CUBICSPLINE tangents are all zero in this file, so between keys it is the smoothstep
// h01(u) = 3u^2 - 2u^3 from one value to the next).
TEST_F(SampleInterpolationTest, HandWorkedValues) {
  SceneEvaluator ev(asset_);
  auto at = [&](const char* name, float t) -> const Pose& {
    ev.pose(clip(name), t);
    return ev.local_pose();
  };
  auto near3 = [](glm::vec3 got, glm::vec3 want) {
    EXPECT_NEAR(got.x, want.x, 1e-5f);
    EXPECT_NEAR(got.y, want.y, 1e-5f);
    EXPECT_NEAR(got.z, want.z, 1e-5f);
  };
  auto zrot = [](double deg) {
    const double h = deg * M_PI / 360.0;
    return glm::quat(float(std::cos(h)), 0.0f, 0.0f, float(std::sin(h)));
  };
  auto near_q = [](glm::quat got, glm::quat want) {
    EXPECT_NEAR(std::abs(glm::dot(got, want)), 1.0f, 1e-6f) << got.x << " " << got.y << " " << got.z << " " << got.w;
  };
  // Translation keys: y = 6.8, 10.8, 6.8, 10.8, 6.8 (x = 0, 3.4, -3.4 for step, cubic, linear).
  near3(at("Step Translation", 0.25f).translation[6], {0, 6.8f, 0});
  near3(at("Step Translation", 0.5f).translation[6], {0, 10.8f, 0});
  near3(at("Step Translation", 0.99f).translation[6], {0, 10.8f, 0});
  near3(at("Linear Translation", 0.25f).translation[8], {-3.4f, 8.8f, 0});
  near3(at("Linear Translation", 0.625f).translation[8], {-3.4f, 9.8f, 0});
  near3(at("CubicSpline Translation", 0.25f).translation[7], {3.4f, 8.8f, 0});
  near3(at("CubicSpline Translation", 0.125f).translation[7], {3.4f, 6.8f + 4.0f * 0.15625f, 0});
  near3(at("CubicSpline Translation", -1.0f).translation[7], {3.4f, 6.8f, 0});
  near3(at("CubicSpline Translation", 3.0f).translation[7], {3.4f, 6.8f, 0});
  // Scale keys: 1, 0, 1, 0, 1 (cubic too).
  near3(at("Step Scale", 0.25f).scale[0], glm::vec3(1));
  near3(at("Step Scale", 0.5f).scale[0], glm::vec3(0));
  near3(at("Linear Scale", 0.25f).scale[1], glm::vec3(0.5f));
  near3(at("Linear Scale", 0.6f).scale[1], glm::vec3(0.2f));
  near3(at("CubicSpline Scale", 0.25f).scale[2], glm::vec3(0.5f));
  near3(at("CubicSpline Scale", 0.125f).scale[2], glm::vec3(1.0f - 0.15625f));
  // Rotation keys: 0, -45, -90, -135, -180 degrees about z.
  near_q(at("Step Rotation", 0.75f).rotation[3], zrot(-45));
  near_q(at("Step Rotation", 2.0f).rotation[3], zrot(-180));
  near_q(at("Linear Rotation", 0.25f).rotation[5], zrot(-22.5));  // slerp: constant speed
  near_q(at("Linear Rotation", 0.6f).rotation[5], zrot(-54));
  near_q(at("Linear Rotation", 1.875f).rotation[5], zrot(-168.75));
  // Cubic, u = 0.5 with zero tangents: the normalized mean of two unit quaternions is their
  // bisector, -22.5 degrees.
  near_q(at("CubicSpline Rotation", 0.25f).rotation[4], zrot(-22.5));
  near_q(at("CubicSpline Rotation", 1.0f).rotation[4], zrot(-90));
  const glm::quat q = at("CubicSpline Rotation", 0.4f).rotation[4];
  EXPECT_NEAR(glm::length(q), 1.0f, 1e-6f);
}

TEST_F(SampleInterpolationTest, NodeAnimationMovesTheMeshes) {
  // The translation cube (node 7, mesh 0) carried by its node's world matrix: at t = 0.25 every
  // vertex is its rest position + (0, 2, 0) (y from 6.8 to 8.8).
  SceneEvaluator ev(asset_);
  std::vector<glm::vec3> rest(asset_.instance_vertex_count), moved(asset_.instance_vertex_count);
  ev.pose(-1, 0.0f);
  ev.skin(rest);
  ev.pose(clip("CubicSpline Translation"), 0.25f);
  ev.skin(moved);
  int found = 0;
  for (const MeshInstance& inst : asset_.instances) {
    for (uint32_t v = inst.first_vertex; v < inst.first_vertex + inst.vertex_count; ++v) {
      const glm::vec3 d = moved[v] - rest[v];
      if (inst.node == 7) {
        EXPECT_NEAR(d.x, 0.0f, 1e-5f);
        EXPECT_NEAR(d.y, 2.0f, 1e-5f);
        EXPECT_NEAR(d.z, 0.0f, 1e-5f);
        ++found;
      } else {
        EXPECT_EQ(d, glm::vec3(0.0f)) << "node " << inst.node;
      }
    }
  }
  EXPECT_GT(found, 0);
}

}  // namespace
}  // namespace vatkit

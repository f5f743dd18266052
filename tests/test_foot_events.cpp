// Foot contacts found from the motion (vatkit/feet.h) on the real walking assets: the feet each
// asset's joint names (or, for CesiumMan, its rest pose) give, and per walk cycle one contact per
// foot, the two feet coming down a quarter to three quarters of a cycle apart, each contact holding the instant where
// that foot is lowest and not the instant where it is highest. The heights the checks use are
// sampled here again, 8 times finer than the detection samples, through the reference scene.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "test_support.h"
#include "vatkit/feet.h"
#include "vatkit/import.h"
#include "vatkit/sample_character.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace {

struct WalkCase {
  const char* file;  // "<sample>" for the built-in character
  const char* clip;
  const char* left;
  const char* right;
  const char* how;
};

const WalkCase kWalks[] = {
    {"<sample>", "walk", "foot.L", "foot.R", "by name"},
    {"khronos/Fox.glb", "Walk", "b_LeftFoot01_017", "b_RightFoot01_021", "by name"},
    {"khronos/CesiumMan.glb", "#0", "leg_joint_L_5", "leg_joint_R_5", "lowest leaf joints"},
    {"threejs/RobotExpressive.glb", "Walking", "Foot.L", "Foot.R", "by name"},
    {"quaternius/knight/KnightCharacter.glb", "HumanArmature|Walking", "Foot.L", "Foot.R", "by name"},
    {"quaternius/platformer/Character.glb", "CharacterArmature|Walk", "Foot.L", "Foot.R", "by name"},
};

// Runs: a swinging foot passes low and slow, forward where the planted foot slides back
// (RobotExpressive's left touches its lowest height in passing): still one contact per foot.
const WalkCase kRuns[] = {
    {"<sample>", "run", "foot.L", "foot.R", "by name"},
    {"threejs/RobotExpressive.glb", "Running", "Foot.L", "Foot.R", "by name"},
    {"quaternius/knight/KnightCharacter.glb", "HumanArmature|Run", "Foot.L", "Foot.R", "by name"},
    {"quaternius/platformer/Character.glb", "CharacterArmature|Run", "Foot.L", "Foot.R", "by name"},
};

Asset load(const std::string& file) {
  Result<Asset> r = file == "<sample>" ? load_sample_character() : import_gltf(test::asset_path(file));
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(*r) : Asset{};
}

// The largest extent of the rest pose's vertices (what the bake calls the asset's size).
float rest_size(const Asset& asset) {
  SceneEvaluator scene(asset);
  scene.pose(-1, 0.0f);
  std::vector<glm::vec3> positions(asset.instance_vertex_count);
  scene.skin(positions);
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const glm::vec3& p : positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
  const glm::vec3 extent = hi - lo;
  return std::max({extent.x, extent.y, extent.z});
}

// Where `name` is in time order among `events`: their times.
std::vector<float> times_of(const std::vector<ClipEvent>& events, const std::string& name) {
  std::vector<float> out;
  for (const ClipEvent& e : events)
    if (e.name == name) out.push_back(e.time_s);
  return out;
}

// Whether clip time t is in the cyclic interval [down, up] of a clip of duration d.
bool within(float t, float down, float up) { return down <= up ? (t >= down && t <= up) : (t >= down || t <= up); }

TEST(FootEvents, TheFeetOfTheRealWalkers) {
  for (const WalkCase& w : kWalks) {
    SCOPED_TRACE(w.file);
    const Asset asset = load(w.file);
    Result<FootJoints> feet = find_feet(asset, {});
    ASSERT_TRUE(feet.ok()) << feet.error().message;
    EXPECT_EQ(asset.nodes[size_t(feet->left)].name, w.left);
    EXPECT_EQ(asset.nodes[size_t(feet->right)].name, w.right);
    EXPECT_EQ(feet->how, w.how);
    // Named on the command line: the same joints.
    Result<FootJoints> named = find_feet(asset, FootOptions{true, w.left, w.right});
    ASSERT_TRUE(named.ok());
    EXPECT_EQ(named->left, feet->left);
    EXPECT_EQ(named->how, "named");
  }
  Result<FootJoints> typo = find_feet(load("<sample>"), FootOptions{true, "foot.L", "foot_R"});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("no joint named \"foot_R\" (joints: "), std::string::npos)
      << typo.error().message;
}

// One contact per foot per cycle of each walk and run, holding the foot's lowest instant and not its
// highest, the right foot landing between a quarter and three quarters of a cycle after the left.
void expect_one_contact_per_foot(const WalkCase& w) {
  {
    SCOPED_TRACE(std::string(w.file) + " " + w.clip);
    const Asset asset = load(w.file);
    Result<int> clip = find_clip(asset, w.clip);
    ASSERT_TRUE(clip.ok());
    const FootJoints feet = find_feet(asset, {}).value();
    const float duration = asset.animations[size_t(*clip)].end_s;
    const std::vector<ClipEvent> events = foot_contact_events(asset, *clip, feet, rest_size(asset), true);
    for (size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i - 1].time_s, events[i].time_s);
    // The heights again, 8 times finer than the detection's samples.
    const size_t n = size_t(std::lround(double(duration) * kFootSampleRate * 8.0));
    SceneEvaluator scene(asset);
    std::vector<float> height[2];
    for (size_t i = 0; i < n; ++i) {
      scene.pose(*clip, duration * float(i) / float(n));
      height[0].push_back(scene.world()[size_t(feet.left)][3].y);
      height[1].push_back(scene.world()[size_t(feet.right)][3].y);
    }
    float down_at[2] = {0.0f, 0.0f};
    const char* names[2] = {"foot_l", "foot_r"};
    for (int f = 0; f < 2; ++f) {
      SCOPED_TRACE(names[f]);
      const std::vector<float> down = times_of(events, std::string(names[f]) + "_down");
      const std::vector<float> up = times_of(events, std::string(names[f]) + "_up");
      ASSERT_EQ(down.size(), 1u);
      ASSERT_EQ(up.size(), 1u);
      down_at[f] = down[0];
      const auto lowest = std::min_element(height[f].begin(), height[f].end()) - height[f].begin();
      const auto highest = std::max_element(height[f].begin(), height[f].end()) - height[f].begin();
      const float step = duration / float(n);
      EXPECT_TRUE(within(float(lowest) * step, down[0], up[0]))
          << "lowest at " << float(lowest) * step << " s, contact " << down[0] << " to " << up[0];
      EXPECT_FALSE(within(float(highest) * step, down[0], up[0]))
          << "highest at " << float(highest) * step << " s, contact " << down[0] << " to " << up[0];
    }
    // A walk alternates: the right foot comes down between a quarter and three quarters of a cycle
    // after the left (half on the bipeds; Fox's hind feet 0.28 of a cycle: docs/events.md).
    const float apart = std::fmod(down_at[1] - down_at[0] + duration, duration) / duration;
    EXPECT_GT(apart, 0.25f);
    EXPECT_LT(apart, 0.75f);
  }
}

TEST(FootEvents, EachWalkCycleHasOneContactPerFootHalfACycleApart) {
  for (const WalkCase& w : kWalks) expect_one_contact_per_foot(w);
}

TEST(FootEvents, EachRunCycleHasOneContactPerFootHalfACycleApart) {
  for (const WalkCase& w : kRuns) expect_one_contact_per_foot(w);
}

// The sample's walk is built with its feet planted over known windows (bake/src/import/
// sample_character.cpp: the left lands at 0.2 of its 1 s cycle and lifts at 0.8, the right half a
// cycle later); detection finds them to within two of its samples.
TEST(FootEvents, TheSampleWalkIsDownWhereItWasBuiltDown) {
  const Asset asset = load("<sample>");
  const int walk = find_clip(asset, "walk").value();
  ASSERT_FLOAT_EQ(asset.animations[size_t(walk)].end_s, 1.0f);
  const std::vector<ClipEvent> events =
      foot_contact_events(asset, walk, find_feet(asset, {}).value(), rest_size(asset), true);
  const float tolerance = 2.0f / float(kFootSampleRate);
  const std::pair<const char*, float> expected[] = {
      {"foot_l_down", 0.2f}, {"foot_l_up", 0.8f}, {"foot_r_down", 0.7f}, {"foot_r_up", 0.3f}};
  for (const auto& [name, at] : expected) {
    const std::vector<float> t = times_of(events, name);
    ASSERT_EQ(t.size(), 1u) << name;
    EXPECT_NEAR(t[0], at, tolerance) << name;
  }
}

TEST(FootEvents, AnIdleNeverLifts) {
  const Asset asset = load("<sample>");
  const int idle = find_clip(asset, "idle").value();
  const FootJoints feet = find_feet(asset, {}).value();
  EXPECT_TRUE(foot_contact_events(asset, idle, feet, rest_size(asset), true).empty());
}

}  // namespace
}  // namespace vatkit

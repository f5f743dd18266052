// Root motion at bake time (BakeOptions::root_motion) and on the GPU's playback: a joint's motion
// taken out of the rows and given back by root_motion_between, and foot slip during ground contact
// on the shared walkers with root motion against the same instance moved at a constant speed
// (docs/root-motion.md prints the table this test measures).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "cli_test_support.h"
#include "test_support.h"
#include "vatkit/vat_file.h"
#include "vatkit/bake.h"
#include "vatkit/feet.h"
#include "vatkit/import.h"
#include "vatkit/mirror.h"
#include "vatkit/root_motion.h"
#include "vatkit/sample_character.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace {

Asset load(const std::string& file) {
  Result<Asset> r = file == "<sample>" ? load_sample_character() : import_gltf(test::asset_path(file));
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(*r) : Asset{};
}

Vat bake_with_root_motion(const Asset& asset, const std::string& clip, const std::string& root, BakeReport* report,
                          Encoding* encoding = nullptr) {
  BakeOptions o;
  o.clips = {clip};
  o.measure = false;
  o.lods = 0;
  o.root_motion = {RootMotionOption{clip, root}};
  if (encoding) o.encoding = *encoding == Encoding::Rig ? EncodingChoice::Rig : EncodingChoice::Delta;
  Result<Vat> vat = bake(asset, o, report);
  EXPECT_TRUE(vat.ok()) << vat.error().message;
  return vat.ok() ? std::move(*vat) : Vat{};
}

uint32_t slot_of(const Vat& vat, int node) {
  for (uint32_t s = 0; s < vat.slots.size(); ++s)
    if (vat.slots[s].node == node) return s;
  ADD_FAILURE() << "no slot for node " << node;
  return 0;
}

Playback playing(const Vat& vat, float speed = 1.0f) {
  Instance in;
  in.clip = clip_band(vat, 0);
  in.policy.speed = speed;
  in.policy.loop_mode = LoopMode::Repeat;
  in.policy.repetitions = kInfiniteRepetitions;
  return compile(in).value();
}

// The sample's walk with its hips carried forward 1.2 m per cycle (0.3 m per quarter, linear):
// a clip with a root joint that travels.
Asset walking_forward() {
  Asset asset = load("<sample>");
  Result<int> walk = find_clip(asset, "walk");
  Animation& anim = asset.animations[size_t(*walk)];
  for (Channel& ch : anim.channels) {
    if (ch.path != Path::Translation || asset.nodes[ch.node].name != "hips") continue;
    Sampler& s = anim.samplers[ch.sampler];
    for (size_t k = 0; k < s.times.size(); ++k) s.values[k * 3 + 2] += 1.2f * s.times[k] / anim.end_s;
  }
  return asset;
}

TEST(RootMotionBake, AJointsMotionLeavesTheRowsAndComesBack) {
  const Asset asset = walking_forward();
  for (Encoding e : {Encoding::Rig, Encoding::Delta}) {
    SCOPED_TRACE(to_string(e));
    BakeReport report;
    const Vat vat = bake_with_root_motion(asset, "walk", "auto", &report, &e);
    ASSERT_EQ(vat.clips.size(), 1u);
    const VatClip& clip = vat.clips[0];
    ASSERT_TRUE(clip.root_motion.has_value());
    EXPECT_EQ(clip.root_motion->source, RootMotionSource::Joint);
    EXPECT_EQ(clip.root_motion->joint, "hips");
    ASSERT_FALSE(report.notes.empty());
    EXPECT_NE(report.notes[0].find("root motion of clip \"walk\": joint \"hips\" (node 0, by name, travels 1.2 m)"),
              std::string::npos)
        << report.notes[0];
    // measure_error (vatkit verify) poses the source in place as the bake did.
    Result<std::vector<ClipError>> error = measure_error(asset, vat);
    ASSERT_TRUE(error.ok()) << error.error().message;
    EXPECT_LT(error->at(0).on_rows_max_mm, 0.1f);
    // The cycle's motion: 1.2 forward (the sway's x comes back), no turn left over.
    const std::vector<float>& t = clip.root_motion->track;
    const size_t last = (clip.rows - 1) * 4;
    EXPECT_NEAR(t[last + 2], 1.2f, 1e-4f);
    EXPECT_NEAR(t[last + 0], 0.0f, 1e-3f);
    // The rows are in place: the hips stay within the sway of their start; given back by the root
    // motion, the pose is the source's, on the rows.
    SceneEvaluator source(asset);
    const uint32_t hips = slot_of(vat, 0);
    for (uint32_t r = 0; r < clip.rows; r += 5) {
      const float time = float(r) / clip.fps;
      const Playback pb = playing(vat);
      const glm::mat4 world = root_motion_between(vat, pb, 0.0f, time).matrix();
      const glm::mat4 in_place = mirror_joint(vat, resolve(pb, time), glm::mat4(1.0f), hips).value();
      const glm::mat4 moved = mirror_joint(vat, resolve(pb, time), world, hips).value();
      source.pose(*find_clip(asset, "walk"), time);
      const glm::vec3 want(source.world()[0][3]);
      EXPECT_LT(std::fabs(in_place[3].z - 0.0f), 0.02f) << "row " << r;
      EXPECT_LT(glm::length(glm::vec3(moved[3]) - want), 2e-3f) << "row " << r;
    }
  }
}

TEST(RootMotionBake, ANamedJointWithItsHeight) {
  // --root-motion walk=hips --root-motion-vertical: the hips' bob (their height in the source,
  // relative to the cycle's start) is in the track's y, and the rows keep the hips at their first
  // height.
  const Asset asset = walking_forward();
  BakeOptions o;
  o.clips = {"walk"};
  o.measure = false;
  o.lods = 0;
  o.encoding = EncodingChoice::Rig;
  o.root_motion = {RootMotionOption{"walk", "hips"}};
  o.root_motion_vertical = true;
  BakeReport report;
  Result<Vat> vat = bake(asset, o, &report);
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  const VatClip& clip = vat->clips[0];
  ASSERT_TRUE(clip.root_motion && clip.root_motion->vertical);
  EXPECT_NE(report.notes[0].find("joint \"hips\" (node 0, named)"), std::string::npos) << report.notes[0];
  SceneEvaluator source(asset);
  auto source_height = [&](float time) {
    source.pose(*find_clip(asset, "walk"), time);
    return source.world()[0][3].y;
  };
  const float first = source_height(0.0f);
  float lowest = 0.0f;
  for (uint32_t r = 0; r < clip.rows; ++r) {
    const float bob = source_height(float(r) / clip.fps) - first;
    EXPECT_NEAR(clip.root_motion->track[size_t(r) * 4 + 1], bob, 1e-3f) << "row " << r;
    lowest = std::min(lowest, bob);
  }
  EXPECT_LT(lowest, -0.02f);  // the walk bobs by centimetres: the comparison above is not of zeros
  const uint32_t hips = slot_of(*vat, 0);
  const Playback pb = playing(*vat);
  for (uint32_t r = 0; r < clip.rows; r += 3) {
    const float time = float(r) / clip.fps;
    const glm::mat4 in_place = mirror_joint(*vat, resolve(pb, time), glm::mat4(1.0f), hips).value();
    EXPECT_NEAR(in_place[3].y, first, 1e-3f) << "row " << r;
  }
}

TEST(RootMotionBake, BadOptionsAreOneLineErrors) {
  const Asset asset = load("<sample>");
  BakeOptions o;
  o.measure = false;
  o.lods = 0;
  o.root_motion = {RootMotionOption{"jog", "auto"}};
  Result<Vat> r = bake(asset, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  EXPECT_NE(r.error().message.find("no clip named \"jog\""), std::string::npos) << r.error().message;
  o.root_motion = {RootMotionOption{"walk", "tail"}};
  r = bake(asset, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--root-motion: no joint named \"tail\""), std::string::npos) << r.error().message;
}

TEST(RootMotionCli, BakeStoresItAndBadOptionsAreOneLineAndNoFile) {
  namespace fs = std::filesystem;
  const fs::path dir = test::scratch_dir("cli_root_motion");
  const fs::path out = dir / "s.vat.glb";
  const test::CommandResult r =
      test::vatkit_cli("bake -o " + test::shell_quote(out.string()) +
                       " --lods 0 --no-measure --clips walk,run --root-motion walk --root-motion run=feet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("root motion of clip \"walk\": from the feet \"foot.L\", \"foot.R\" (the root joint \"hips\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("root motion of clip \"run\": from the feet \"foot.L\", \"foot.R\" (named)"), std::string::npos)
      << r.out;
  const test::CommandResult info = test::vatkit_cli("info " + test::shell_quote(out.string()));
  EXPECT_NE(info.out.find("root motion walk: feet, "), std::string::npos) << info.out;
  const test::CommandResult info_json = test::vatkit_cli("info --json " + test::shell_quote(out.string()));
  EXPECT_NE(info_json.out.find("\"root_motion\""), std::string::npos) << info_json.out;
  Result<Vat> vat = load_vat(out);
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  for (const VatClip& c : vat->clips) {
    ASSERT_TRUE(c.root_motion.has_value()) << c.name;
    EXPECT_EQ(c.root_motion->source, RootMotionSource::Feet);
    EXPECT_GT(c.root_motion->track[size_t(c.rows - 1) * 4 + 2], 0.5f) << c.name;  // forward, +z, by a cycle
  }
  const std::pair<const char*, const char*> cases[] = {
      {"--root-motion =hips", "--root-motion =hips: expected CLIP[=ROOT]"},
      {"--root-motion walk=", "--root-motion walk=: expected CLIP[=ROOT]"},
      {"--root-motion jog", "no clip named \"jog\""},
      {"--root-motion walk=tail", "--root-motion: no joint named \"tail\""},
  };
  const fs::path bad = dir / "x.vat.glb";
  for (const auto& [option, message] : cases) {
    SCOPED_TRACE(option);
    test::expect_one_error_line(
        test::vatkit_cli("bake -o " + test::shell_quote(bad.string()) + " --lods 0 --no-measure " + option), message);
    EXPECT_FALSE(fs::exists(bad));
  }
  test::expect_help_documents({},
                              {{"bake", {"--root-motion", "--root-motion-vertical"}}, {"render", {"--root-motion"}}});
}

// ---- foot slip ---------------------------------------------------------------------------------

struct Slip {
  double root_motion = 0.0;  // mean foot speed in contact, with root motion (size per second)
  double constant = 0.0;     // the same at the constant speed
  double speed = 0.0;        // that constant speed (size per second)
  double sway = 0.0;         // the track's largest distance from the straight line of its cycle (sizes)
};

// How far a clip's root motion strays sideways from the straight line its cycle travels.
double sway_of(const VatClip& c) {
  const std::vector<float>& t = c.root_motion->track;
  const glm::vec2 end(t[size_t(c.rows - 1) * 4], t[size_t(c.rows - 1) * 4 + 2]);
  const glm::vec2 along = glm::length(end) > 0.0f ? glm::normalize(end) : glm::vec2(0.0f, 1.0f);
  double most = 0.0;
  for (uint32_t r = 0; r < c.rows; ++r) {
    const glm::vec2 p(t[size_t(r) * 4], t[size_t(r) * 4 + 2]);
    most = std::max(most, double(std::fabs(p.x * along.y - p.y * along.x)));
  }
  return most;
}

// A foot's horizontal world speed while it is within 0.5% of the asset's size of its lowest height, averaged
// over 3 cycles sampled at 240 Hz, for the instance moved by `world_at`.
template <class World>
double contact_speed(const Vat& vat, const Playback& pb, uint32_t slot, float seconds, float size, World world_at) {
  const int n = int(seconds * 240.0f);
  std::vector<glm::vec3> p(size_t(n) + 1);
  float lowest = INFINITY;
  for (int i = 0; i <= n; ++i) {
    const float t = float(i) / 240.0f;
    p[size_t(i)] = glm::vec3(mirror_joint(vat, resolve(pb, t), world_at(t), slot).value()[3]);
    lowest = std::min(lowest, p[size_t(i)].y);
  }
  double sum = 0.0;
  int count = 0;
  for (int i = 0; i < n; ++i) {
    if (p[size_t(i)].y > lowest + 0.005f * size || p[size_t(i + 1)].y > lowest + 0.005f * size) continue;
    const glm::vec3 d = p[size_t(i + 1)] - p[size_t(i)];
    sum += double(std::hypot(d.x, d.z)) * 240.0;  // horizontal: the rise and fall is the foot's own either way
    ++count;
  }
  return count ? sum / count / double(size) : 0.0;
}

Slip measure_slip(const std::string& file, const std::string& clip) {
  const Asset asset = load(file);
  const Vat vat = bake_with_root_motion(asset, clip, "auto", nullptr);
  const VatClip& c = vat.clips.at(0);
  EXPECT_TRUE(c.root_motion.has_value());
  const Result<FootJoints> feet = find_feet(asset, {});
  const float size = [&] {
    const Bounds& b = vat.bounds;
    const glm::vec3 e = b.max - b.min;
    return std::max({e.x, e.y, e.z});
  }();
  const Playback pb = playing(vat);
  const float seconds = 3.0f * c.duration_s;
  // The constant velocity: the cycle's mean (the best a hand-picked speed in the walking direction
  // can be).
  const RootDelta cycle = root_motion_between(vat, pb, 0.0f, c.duration_s);
  const glm::vec3 velocity = cycle.translation / c.duration_s;
  Slip s;
  s.speed = double(glm::length(velocity)) / double(size);
  s.sway = sway_of(c) / double(size);
  for (int foot : {feet->left, feet->right}) {
    const uint32_t slot = slot_of(vat, foot);
    s.root_motion += 0.5 * contact_speed(vat, pb, slot, seconds, size,
                                         [&](float t) { return root_motion_between(vat, pb, 0.0f, t).matrix(); });
    s.constant += 0.5 * contact_speed(vat, pb, slot, seconds, size,
                                      [&](float t) { return glm::translate(glm::mat4(1.0f), velocity * t); });
  }
  std::printf("| %s, %s | %.3f | %.3f | %.3f | %.2f | %.3f |\n", file.c_str(), clip.c_str(), s.speed, s.root_motion,
              s.constant, s.root_motion / s.constant, s.sway);
  return s;
}

// The sample's walk is built to cover 1 m in its 1 s cycle (bake/src/import/sample_character.cpp),
// straight ahead: its feet's root motion says so.
TEST(RootMotionSlip, TheSampleWalkCoversTheDistanceItWasBuiltFor) {
  const Asset asset = load("<sample>");
  const Vat vat = bake_with_root_motion(asset, "walk", "auto", nullptr);
  const VatClip& c = vat.clips.at(0);
  ASSERT_TRUE(c.root_motion.has_value());
  EXPECT_EQ(c.root_motion->source, RootMotionSource::Feet);
  const RootDelta cycle = root_motion_between(vat, playing(vat), 0.0f, c.duration_s);
  EXPECT_NEAR(cycle.translation.z, 1.0f, 0.01f);
  EXPECT_NEAR(cycle.translation.x, 0.0f, 0.005f);
  EXPECT_NEAR(cycle.yaw, 0.0f, 1e-3f);
}

TEST(RootMotionSlip, FeetSlipWellUnderTheConstantSpeed) {
  // `under`: the largest ratio of slip with root motion to slip at the constant speed.
  struct Case {
    const char* file;
    const char* clip;
    double under;
  };
  const Case cases[] = {
      {"<sample>", "walk", 0.25},
      {"<sample>", "run", 0.25},
      {"khronos/CesiumMan.glb", "#0", 0.25},
      {"khronos/Fox.glb", "Walk", 0.25},
      {"threejs/RobotExpressive.glb", "Walking", 0.25},
      {"quaternius/knight/KnightCharacter.glb", "HumanArmature|Walking", 0.25},
      {"quaternius/knight/KnightCharacter.glb", "HumanArmature|Run", 0.25},
      {"quaternius/platformer/Character.glb", "CharacterArmature|Walk", 0.25},
  };
  std::printf(
      "| asset, clip | mean speed (sizes/s) | slip with root motion | slip at constant speed | ratio | sway (sizes) "
      "|\n");
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " " + c.clip);
    const Slip s = measure_slip(c.file, c.clip);
    EXPECT_GT(s.speed, 0.1);  // it walks
    EXPECT_LT(s.root_motion, c.under * s.constant);
  }
}

}  // namespace
}  // namespace vatkit

// The decisions a bake makes from the motion, on real files: which clips loop by default (a clip
// whose last pose is far from its first is not a loop: a death stays down, a jump lands), how the
// user overrides them, and what the report says.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "encode/bake_internal.h"
#include "test_support.h"
#include "vatkit/bake.h"
#include "vatkit/import.h"
#include "vatkit/sample.h"

namespace vatkit {
namespace {

struct Baked {
  Vat vat;
  BakeReport report;
};

Baked bake_file(const char* relative, BakeOptions options) {
  options.measure = false;
  options.lods = 0;
  options.fps = 10.0f;
  options.encoding = EncodingChoice::Rig;
  Result<Asset> asset = import_gltf(test::asset_path(relative));
  EXPECT_TRUE(asset.ok()) << asset.error().message;
  Baked out;
  Result<Vat> vat = bake(*asset, options, &out.report);
  EXPECT_TRUE(vat.ok()) << vat.error().message;
  out.vat = std::move(vat).value();
  return out;
}

const VatClip& clip_named(const Vat& vat, const std::string& name) {
  for (const VatClip& c : vat.clips)
    if (c.name == name) return c;
  ADD_FAILURE() << "no clip " << name;
  return vat.clips.at(0);
}

// RobotExpressive (4.46 units at rest): Death ends lying down, Sitting and Standing end in
// another posture than they start in; its cycles end where they start (Dance within 2.4% of the
// size). Its Jump and its emotes (Wave, Yes...) also end in their first pose: by the motion they
// loop, and --clip-defaults says otherwise (docs/encodings.md, "Loops").
TEST(BakeDecisions, OneShotClipsPlayOnceAndCyclesRepeat) {
  const Baked b = bake_file("threejs/RobotExpressive.glb", {});
  EXPECT_GT(b.report.size, 0.0f);
  for (const char* once : {"Death", "Sitting", "Standing"}) {
    const VatClip& c = clip_named(b.vat, once);
    EXPECT_EQ(c.defaults.loop_mode, LoopMode::Once) << once;
    EXPECT_EQ(c.defaults.end_mode, EndMode::Clamp) << once;
    EXPECT_EQ(c.defaults.repetitions, 1) << once;
    EXPECT_GT(*clip_named(b.vat, once).seam, 0.07f * b.report.size) << once;
    const bool noted = std::any_of(b.report.notes.begin(), b.report.notes.end(), [&](const std::string& n) {
      return n.find(std::string("clip \"") + once + "\" plays once") != std::string::npos;
    });
    EXPECT_TRUE(noted) << once;
  }
  for (const char* loop : {"Walking", "Running", "Idle", "Dance", "Jump"}) {
    const VatClip& c = clip_named(b.vat, loop);
    EXPECT_EQ(c.defaults.loop_mode, LoopMode::Repeat) << loop;
    EXPECT_EQ(c.defaults.repetitions, kInfiniteRepetitions) << loop;
    EXPECT_LE(*clip_named(b.vat, loop).seam, 0.07f * b.report.size) << loop;
  }
}

TEST(BakeDecisions, GivenDefaultsWinAndTheMotionRuleCanBeTurnedOff) {
  BakeOptions options;
  options.clips = {"Death", "Walking", "Jump"};
  options.clip_defaults = {{"Jump", ClipDefaults{LoopMode::PingPong, 2, EndMode::Rewind, 1.0f}}, {"*", ClipDefaults{}}};
  const Baked given = bake_file("threejs/RobotExpressive.glb", options);
  EXPECT_EQ(clip_named(given.vat, "Death").defaults.loop_mode, LoopMode::Repeat);   // "*"
  EXPECT_EQ(clip_named(given.vat, "Jump").defaults.loop_mode, LoopMode::PingPong);  // named beats "*"
  EXPECT_EQ(clip_named(given.vat, "Jump").defaults.repetitions, 2);
  for (const std::string& n : given.report.notes) EXPECT_EQ(n.find("plays once"), std::string::npos) << n;

  options.clip_defaults.clear();
  options.loops_from_motion = false;
  const Baked off = bake_file("threejs/RobotExpressive.glb", options);
  for (const VatClip& c : off.vat.clips) EXPECT_EQ(c.defaults.loop_mode, LoopMode::Repeat) << c.name;
  for (const VatClip& c : off.vat.clips) EXPECT_TRUE(c.seam.has_value()) << c.name;  // still measured
}

// Fox's clips are all cycles or a survey that ends where it began; ShibaInu's gallop is the cycle
// with the largest seam of the shared assets (5.9% of the size), its death ends lying down. Fox's
// units are not metres (its figures are 100x), which a threshold relative to size does not mind.
TEST(BakeDecisions, CyclesOfOtherAssetsLoopAndDeathsDoNot) {
  const Baked fox = bake_file("khronos/Fox.glb", {});
  for (const VatClip& c : fox.vat.clips) EXPECT_EQ(c.defaults.loop_mode, LoopMode::Repeat) << c.name;
  const Baked dog = bake_file("quaternius/animals/ShibaInu.glb", {});
  for (const VatClip& c : dog.vat.clips) {
    const bool one_shot = c.name.ends_with("|Death") || c.name.ends_with("|Jump_ToIdle");
    EXPECT_EQ(c.defaults.loop_mode, one_shot ? LoopMode::Once : LoopMode::Repeat) << c.name;
  }
}

// RobotExpressive's rig misses the 1 mm budget at f16 (its translations span metres: f16 steps are
// millimetres there); at q16 it meets it. Auto keeps the rig at q16 and says why and what the delta
// at f16 would have cost, instead of a delta 60 times the bytes.
TEST(BakeDecisions, APrecisionDoesNotTurnTheRigIntoADelta) {
  BakeOptions options;
  options.precision = Precision::F16;
  options.encoding = EncodingChoice::Auto;
  options.lods = 0;
  options.fps = 10.0f;
  Result<Asset> asset = import_gltf(test::asset_path("threejs/RobotExpressive.glb"));
  ASSERT_TRUE(asset.ok());
  BakeReport report;
  Result<Vat> vat = bake(*asset, options, &report);
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  EXPECT_EQ(vat->encoding, Encoding::Rig);
  EXPECT_EQ(vat->precision, Precision::Q16);
  const std::string& why = report.encoding_reason;
  EXPECT_NE(why.find("rig at f16 error"), std::string::npos) << why;
  EXPECT_NE(why.find("exceeds the 1 mm budget"), std::string::npos) << why;
  EXPECT_NE(why.find("kept the rig at q16"), std::string::npos) << why;
  EXPECT_NE(why.find("rather than a delta at f16"), std::string::npos) << why;
  ASSERT_FALSE(report.clips.empty());
  for (const ClipError& e : report.clips) EXPECT_LE(e.on_rows_max_mm, 1.0f) << e.clip;

  options.encoding = EncodingChoice::Delta;  // asked for: no rig tried, no note
  Result<Vat> delta = bake(*asset, options, &report);
  ASSERT_TRUE(delta.ok());
  EXPECT_EQ(delta->precision, Precision::F16);
  EXPECT_EQ(report.encoding_reason, "requested");
}

// The size note: the unit that makes the size a character's, or none when no unit does.
TEST(BakeDecisions, TheSizeNoteNamesAUnitThatFitsOrSaysNoneDoes) {
  std::vector<std::string> notes;
  detail::note_size(1.8f, 1.0f, notes);   // a person in metres
  detail::note_size(0.9f, 0.01f, notes);  // told cm: 9 mm across, but 0.9 m if in metres
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("--units m "), std::string::npos) << notes[0];
  notes.clear();
  detail::note_size(155.0f, 1.0f, notes);  // Fox, in centimetres
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("--units cm if it is modelled in cm (1.55 m across)"), std::string::npos) << notes[0];
  notes.clear();
  detail::note_size(8e13f, 1.0f, notes);  // a stray vertex
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("in any unit --units takes"), std::string::npos) << notes[0];
  EXPECT_EQ(notes[0].find("--units mm"), std::string::npos) << notes[0];
}

Asset import_file(const char* relative) {
  Result<Asset> asset = import_gltf(test::asset_path(relative));
  EXPECT_TRUE(asset.ok()) << asset.error().message;
  return std::move(asset).value();
}

// The legacy CesiumMan (assets README): 19 unnamed animations, each 0-2 s, each driving one joint.
// InterpolationTest's nine animations also share a range and touch disjoint nodes, but they move
// nine separate cubes, not joints: separate clips.
TEST(ClipPieces, TheLegacyCesiumMansNineteenPiecesAreFoundWarnedAndMerged) {
  const Asset legacy = import_file("khronos/legacy/CesiumMan.glb");
  const std::vector<std::vector<uint32_t>> groups = find_clip_pieces(legacy);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].size(), 19u);
  for (uint32_t a = 0; a < 19; ++a) EXPECT_EQ(groups[0][a], a);
  const bool warned = std::any_of(legacy.warnings.begin(), legacy.warnings.end(), [](const std::string& w) {
    return w.find("19 animations (#0, #1,") == 0 && w.find("--merge-clips") != std::string::npos;
  });
  EXPECT_TRUE(warned);

  Asset merged = legacy;
  merge_clip_pieces(merged, groups);
  ASSERT_EQ(merged.animations.size(), 1u);
  size_t channels = 0;
  for (const Animation& a : legacy.animations) channels += a.channels.size();
  EXPECT_EQ(merged.animations[0].channels.size(), channels);
  // Playing the merged clip is playing every piece at once: the pieces sampled one after another
  // onto one pose (they touch disjoint nodes) give the same local pose.
  for (float t : {0.0f, 0.77f, 2.0f}) {
    Pose pieces = make_rest_pose(legacy);
    for (const Animation& a : legacy.animations) sample_animation(a, t, pieces, legacy);
    Pose whole = make_rest_pose(merged);
    sample_animation(merged.animations[0], t, whole, merged);
    for (size_t n = 0; n < pieces.translation.size(); ++n) {
      EXPECT_EQ(pieces.translation[n], whole.translation[n]) << n;
      EXPECT_EQ(pieces.rotation[n], whole.rotation[n]) << n;
      EXPECT_EQ(pieces.scale[n], whole.scale[n]) << n;
    }
  }

  BakeOptions options;
  const Baked apart = bake_file("khronos/legacy/CesiumMan.glb", options);
  EXPECT_EQ(apart.vat.clips.size(), 19u);
  EXPECT_TRUE(std::any_of(apart.report.notes.begin(), apart.report.notes.end(),
                          [](const std::string& n) { return n.find("pieces of one animation") != std::string::npos; }));
  options.merge_clip_pieces = true;
  const Baked whole = bake_file("khronos/legacy/CesiumMan.glb", options);
  ASSERT_EQ(whole.vat.clips.size(), 1u);
  EXPECT_EQ(whole.vat.clips[0].defaults.loop_mode, LoopMode::Repeat);  // one walk cycle
  for (const std::string& n : whole.report.notes) EXPECT_EQ(n.find("pieces"), std::string::npos) << n;
}

TEST(ClipPieces, WholeAnimationsAreNotPieces) {
  for (const char* file : {"khronos/CesiumMan.glb", "khronos/Fox.glb", "threejs/RobotExpressive.glb",
                           "khronos/InterpolationTest.glb", "quaternius/knight/KnightCharacter.glb"}) {
    const Asset asset = import_file(file);
    EXPECT_TRUE(find_clip_pieces(asset).empty()) << file;
  }
}

}  // namespace
}  // namespace vatkit

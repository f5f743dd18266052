// vatkit/summary.h: the counts summarize() reports, checked against the assets README's table
// (an independent count of the files), the JSON form against the struct, and find_clip's
// selectors and error messages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "vatkit/import.h"
#include "vatkit/sample_character.h"
#include "summary.h"

namespace vatkit {
namespace {

using nlohmann::json;

Asset load(const std::string& relative) {
  Result<Asset> asset = import_gltf(test::asset_path(relative));
  if (!asset) {
    ADD_FAILURE() << asset.error().message;
    return Asset{};
  }
  return std::move(asset).value();
}

TEST(Summary, FoxMatchesTheReadme) {
  const AssetSummary s = summarize(load("khronos/Fox.glb"));
  EXPECT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.primitives, 1u);
  EXPECT_EQ(s.vertices, 1728u);
  EXPECT_EQ(s.triangles, 576u);
  EXPECT_EQ(s.instances, 1u);
  EXPECT_EQ(s.instance_vertices, 1728u);
  ASSERT_EQ(s.skins.size(), 1u);
  EXPECT_EQ(s.skins[0].joints, 24u);
  EXPECT_EQ(s.joints, 24u);
  EXPECT_EQ(s.max_influences, 4u);
  EXPECT_TRUE(s.meshes[0].skinned);
  EXPECT_EQ(s.morph_targets, 0u);
  ASSERT_EQ(s.clips.size(), 3u);
  const char* names[] = {"Survey", "Walk", "Run"};
  const float durations[] = {3.4167f, 0.7083f, 1.1583f};
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(s.clips[c].index, static_cast<uint32_t>(c));
    EXPECT_EQ(s.clips[c].name, names[c]);
    EXPECT_NEAR(s.clips[c].duration_s, durations[c], 1e-4f);
    EXPECT_EQ(s.clips[c].linear, s.clips[c].samplers);
    EXPECT_EQ(s.clips[c].step + s.clips[c].cubic_spline, 0u);
    EXPECT_EQ(s.clips[c].scale + s.clips[c].weights, 0u);  // README: rotation, translation
    EXPECT_GT(s.clips[c].rotation, 0u);
    EXPECT_GT(s.clips[c].translation, 0u);
  }
  ASSERT_EQ(s.images.size(), 1u);
  EXPECT_GT(s.images[0].bytes, 0u);
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].base_color_image, 0);
}

TEST(Summary, RobotExpressiveCountsEachMeshOnceAndDistinctJoints) {
  const AssetSummary s = summarize(load("threejs/RobotExpressive.glb"));
  EXPECT_EQ(s.meshes.size(), 14u);
  EXPECT_EQ(s.primitives, 19u);
  EXPECT_EQ(s.vertices, 7214u);
  ASSERT_EQ(s.skins.size(), 2u);
  EXPECT_EQ(s.skins[0].joints, 43u);
  EXPECT_EQ(s.skins[1].joints, 43u);
  EXPECT_EQ(s.joints, 43u);  // two skins over the same 43 joint nodes
  EXPECT_GE(s.morph_targets, 3u);
  EXPECT_EQ(s.clips.size(), 14u);
}

// Expectations read from the files' JSON by hand: the nodes' children give the parents; a joint's
// parent is its nearest ancestor among the skins' joints.
TEST(Summary, ListsTheJointsWithTheirParentJoints) {
  const AssetSummary fox = summarize(load("khronos/Fox.glb"));
  ASSERT_EQ(fox.joint_list.size(), 24u);
  EXPECT_EQ(fox.joint_list[0].node, 2u);
  EXPECT_EQ(fox.joint_list[0].name, "_rootJoint");
  EXPECT_EQ(fox.joint_list[0].parent, -1);
  EXPECT_EQ(fox.joint_list[2].node, 4u);
  EXPECT_EQ(fox.joint_list[2].name, "b_Hip_01");
  EXPECT_EQ(fox.joint_list[2].parent, 3);
  size_t roots = 0;
  for (const JointSummary& j : fox.joint_list) roots += j.parent < 0;
  EXPECT_EQ(roots, 1u);
  const std::string text = summary_text(fox);
  EXPECT_NE(text.find("#4 \"b_Hip_01\"  <- #3"), std::string::npos) << text;
  EXPECT_NE(text.find("#2 \"_rootJoint\"  (root)"), std::string::npos) << text;

  // RobotExpressive: "Hips" (node 8) hangs under "Body" (node 6), whose parent joint is "Bone" (2).
  const AssetSummary robot = summarize(load("threejs/RobotExpressive.glb"));
  ASSERT_EQ(robot.joint_list.size(), 43u);
  for (const JointSummary& j : robot.joint_list) {
    if (j.name == "Hips") {
      EXPECT_EQ(j.parent, 6);
    } else if (j.name == "Body") {
      EXPECT_EQ(j.parent, 2);
    } else if (j.name == "Bone") {
      EXPECT_EQ(j.parent, -1);
    }
  }
  const json parsed = json::parse(summary_json(robot));
  ASSERT_EQ(parsed["joint_list"].size(), 43u);
  EXPECT_EQ(parsed["joint_list"][2]["name"], "Body");
  EXPECT_EQ(parsed["joint_list"][2]["parent"], 2);
}

TEST(Summary, InterpolationTestCountsEveryMode) {
  const AssetSummary s = summarize(load("khronos/InterpolationTest.glb"));
  ASSERT_EQ(s.clips.size(), 9u);
  uint32_t step = 0, linear = 0, cubic = 0;
  for (const ClipSummary& c : s.clips) {
    step += c.step;
    linear += c.linear;
    cubic += c.cubic_spline;
    EXPECT_EQ(c.step + c.linear + c.cubic_spline, c.samplers);
    EXPECT_EQ(c.translation + c.rotation + c.scale + c.weights, c.channels);
  }
  EXPECT_GT(step, 0u);
  EXPECT_GT(linear, 0u);
  EXPECT_GT(cubic, 0u);
  EXPECT_TRUE(s.skins.empty());
  EXPECT_EQ(s.max_influences, 0u);
}

TEST(Summary, JsonCarriesTheStructAndTextNamesEverything) {
  Result<Asset> asset = load_sample_character();
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const AssetSummary s = summarize(*asset);
  const json j = json::parse(summary_json(s));
  EXPECT_EQ(j["source"], "<sample>");
  EXPECT_EQ(j["vertices"], s.vertices);
  EXPECT_EQ(j["triangles"], s.triangles);
  EXPECT_EQ(j["primitives"], s.primitives);
  EXPECT_EQ(j["joints"], 22);
  EXPECT_EQ(j["default_scene"], 0);
  ASSERT_EQ(j["clips"].size(), 3u);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(j["clips"][c]["name"], s.clips[c].name);
    // Durations read back as exactly the same float.
    EXPECT_EQ(static_cast<float>(j["clips"][c]["duration_s"].get<double>()), s.clips[c].duration_s);
    EXPECT_EQ(j["clips"][c]["paths"]["rotation"], 22);
  }
  ASSERT_EQ(j["materials"].size(), s.materials.size());
  EXPECT_EQ(static_cast<float>(j["materials"][1]["base_color_factor"][2].get<double>()),
            s.materials[1].base_color_factor.b);

  const std::string text = summary_text(s);
  for (const std::string& expected :
       {std::string("<sample>\n"), std::to_string(s.vertices) + " vertices", std::string("22 joints"),
        std::string("\"idle\""), std::string("\"walk\""), std::string("\"run\""), std::string("\"shirt\""),
        std::string("warnings    none")}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing " << expected << " in\n" << text;
  }
}

TEST(FindClip, ByNameByIndexAndClearErrors) {
  Result<Asset> loaded = load_sample_character();
  ASSERT_TRUE(loaded.ok());
  const Asset& asset = *loaded;
  EXPECT_EQ(find_clip(asset, "idle").value(), 0);
  EXPECT_EQ(find_clip(asset, "run").value(), 2);
  EXPECT_EQ(find_clip(asset, "#1").value(), 1);
  EXPECT_EQ(find_clip(asset, "#0").value(), 0);

  const Result<int> unknown = find_clip(asset, "jog");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "<sample>: no clip named \"jog\" (clips: idle, walk, run)");
  EXPECT_EQ(unknown.error().code, ErrorCode::Argument);
  const Result<int> too_far = find_clip(asset, "#3");
  ASSERT_FALSE(too_far.ok());
  EXPECT_NE(too_far.error().message.find("3 clips"), std::string::npos) << too_far.error().message;
  EXPECT_EQ(too_far.error().code, ErrorCode::Argument);
  for (const char* bad : {"#", "#x", "#-1", "#1x", "# 1", "#99999999999999999999999"}) {
    const Result<int> r = find_clip(asset, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message.rfind("<sample>: ", 0), 0u) << r.error().message;
    EXPECT_EQ(r.error().code, ErrorCode::Argument);
  }
  EXPECT_FALSE(find_clip(asset, "").ok());
  EXPECT_FALSE(find_clip(asset, "Walk").ok()) << "names are case-sensitive";

  // Unnamed clips are labelled by index, and "#N" still picks them.
  const Asset simple = load("khronos/SimpleSkin.gltf");
  EXPECT_EQ(clip_label(simple, 0), "#0");
  EXPECT_EQ(find_clip(simple, "#0").value(), 0);
  const Result<int> none = find_clip(load("khronos/SimpleSkin.gltf"), "walk");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("(clips: #0)"), std::string::npos) << none.error().message;
  EXPECT_EQ(none.error().code, ErrorCode::Argument);

  Asset still = simple;
  still.animations.clear();
  const Result<int> empty = find_clip(still, "#0");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("no animations"), std::string::npos);
}

}  // namespace
}  // namespace vatkit

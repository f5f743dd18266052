// The built-in sample character (sample_character.h): what the issue promises (>= 20 joints,
// idle/walk/run, a few thousand vertices, base colours, normalized weights, unit normals),
// deterministic bytes, the Khronos validator's verdict, closed outward-facing surfaces, loops
// that close, a rest pose that skins to the bind pose, and motion that reads as walking: feet
// alternate, arms counter-swing, the hips bob, and everything stays in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "vatkit/file_io.h"
#include "vatkit/sample_character.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const Asset& sample() {
  static const Asset asset = [] {
    Result<Asset> loaded = load_sample_character();
    if (!loaded) ADD_FAILURE() << loaded.error().message;
    return loaded ? std::move(loaded).value() : Asset{};
  }();
  return asset;
}

int joint_named(const Asset& asset, const std::string& name) {
  const Skin& skin = asset.skins.at(0);
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    if (asset.nodes[skin.joints[j]].name == name) return static_cast<int>(j);
  }
  ADD_FAILURE() << "no joint named " << name;
  return -1;
}

int clip_named(const Asset& asset, const std::string& name) {
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    if (asset.animations[a].name == name) return static_cast<int>(a);
  }
  ADD_FAILURE() << "no clip named " << name;
  return -1;
}

// Indices (into the scene's concatenated vertices) of the vertices whose strongest influence is
// one of `joints`.
std::vector<uint32_t> vertices_of(const Asset& asset, std::initializer_list<int> joints) {
  std::vector<uint32_t> out;
  for (const MeshInstance& instance : asset.instances) {
    const Primitive& p = asset.meshes[instance.mesh].primitives[instance.primitive];
    for (uint32_t v = 0; v < p.vertex_count(); ++v) {
      int strongest = 0;
      for (int k = 1; k < 4; ++k) {
        if (p.weights0[v][k] > p.weights0[v][strongest]) strongest = k;
      }
      if (std::find(joints.begin(), joints.end(), p.joints0[v][strongest]) != joints.end()) {
        out.push_back(instance.first_vertex + v);
      }
    }
  }
  return out;
}

glm::vec3 centroid(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& which) {
  glm::dvec3 sum(0.0);
  for (uint32_t i : which) sum += glm::dvec3(positions[i]);
  return glm::vec3(sum / double(which.size()));
}

std::vector<glm::vec3> posed(SceneEvaluator& evaluator, int clip, float time_s) {
  evaluator.pose(clip, time_s);
  std::vector<glm::vec3> positions(evaluator.asset().instance_vertex_count);
  evaluator.skin(positions);
  return positions;
}

TEST(SampleCharacter, TwoGenerationsGiveIdenticalBytes) {
  const std::vector<uint8_t> a = sample_character_glb(), b = sample_character_glb();
  ASSERT_GT(a.size(), 1000u);
  EXPECT_EQ(a, b);
}

// Golden size and FNV-1a 64 hash of the bytes: the sample must come out the same from every
// compiler, optimization level and machine (release, sanitizer and fuzzing builds all run this).
// A deliberate change to the sample updates these two numbers (and says so in its commit).
TEST(SampleCharacter, BytesMatchTheGoldenHash) {
  const std::vector<uint8_t> bytes = sample_character_glb();
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) hash = (hash ^ b) * 0x100000001b3ull;
  EXPECT_EQ(bytes.size(), 356928u);
  EXPECT_EQ(hash, 0xc376687741062833ull) << std::hex << "got 0x" << hash;
}

TEST(SampleCharacter, TheValidatorReportsNoErrorsAndNoWarnings) {
  if (test::run_command("command -v node").exit_code != 0) {
    GTEST_SKIP() << "node is not installed: cannot run the Khronos validator";
  }
  const fs::path file = test::scratch_dir("sample_validator") / "sample.glb";
  ASSERT_TRUE(write_file_atomic(file, sample_character_glb()).ok());
  const auto r =
      test::run_command("node " + test::shell_quote(VATKIT_VALIDATOR) + " " + test::shell_quote(file.string()));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["issues"]["numErrors"], 0) << report["issues"].dump(1);
  EXPECT_EQ(report["issues"]["numWarnings"], 0) << report["issues"].dump(1);
  EXPECT_EQ(report["info"]["animationCount"], 3);
  EXPECT_EQ(report["info"]["hasSkins"], true);
}

TEST(SampleCharacter, HasWhatTheIssueAsksFor) {
  const Asset& asset = sample();
  ASSERT_EQ(asset.skins.size(), 1u);
  EXPECT_GE(asset.skins[0].joints.size(), 20u);
  EXPECT_EQ(asset.skins[0].joints.size(), 22u);  // as sample_character.h says

  ASSERT_GE(asset.animations.size(), 3u);
  EXPECT_EQ(asset.animations[0].name, "idle");
  EXPECT_EQ(asset.animations[1].name, "walk");
  EXPECT_EQ(asset.animations[2].name, "run");
  for (const Animation& clip : asset.animations) {
    EXPECT_GE(clip.end_s, 0.5f) << clip.name;
    EXPECT_EQ(clip.start_s, 0.0f) << clip.name;
  }

  uint32_t vertices = 0;
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& p : mesh.primitives) vertices += p.source_vertex_count;
  }
  EXPECT_GE(vertices, 2000u);
  EXPECT_LE(vertices, 10000u);
  EXPECT_EQ(asset.instance_vertex_count, vertices) << "the sample has normals: no flat copies";
  EXPECT_TRUE(asset.warnings.empty());

  // Every primitive has a material with a base colour that is not the default white.
  ASSERT_FALSE(asset.materials.empty());
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& p : mesh.primitives) {
      ASSERT_GE(p.material, 0);
      const glm::vec4 c = asset.materials[p.material].base_color_factor;
      EXPECT_NE(c, glm::vec4(1.0f)) << asset.materials[p.material].name;
      EXPECT_EQ(c.a, 1.0f);
    }
  }
}

TEST(SampleCharacter, WeightsAreNormalizedAndNormalsAreUnit) {
  const Asset& asset = sample();
  const auto joint_count = static_cast<uint32_t>(asset.skins.at(0).joints.size());
  std::map<int, int> influence_histogram;
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& p : mesh.primitives) {
      ASSERT_EQ(p.influence_count(), 4u);
      ASSERT_EQ(p.normals.size(), p.vertex_count());
      EXPECT_FALSE(p.normals_generated);
      for (uint32_t v = 0; v < p.vertex_count(); ++v) {
        const glm::vec4 w = p.weights0[v];
        EXPECT_NEAR(w.x + w.y + w.z + w.w, 1.0f, 1e-6f) << "vertex " << v;
        int used = 0;
        for (int k = 0; k < 4; ++k) {
          EXPECT_GE(w[k], 0.0f);
          EXPECT_LT(p.joints0[v][k], joint_count);
          used += w[k] > 0.0f;
        }
        ++influence_histogram[used];
        EXPECT_NEAR(glm::length(p.normals[v]), 1.0f, 1e-5f) << "vertex " << v;
      }
      for (uint32_t index : p.indices) EXPECT_LT(index, p.vertex_count());
    }
  }
  // Smooth skinning: a good share of the vertices blends two joints.
  EXPECT_GT(influence_histogram[2], influence_histogram[1] / 10) << "too few blended vertices";
  EXPECT_EQ(influence_histogram[0], 0);
}

TEST(SampleCharacter, SurfacesAreClosedAndFaceOutwards) {
  const Asset& asset = sample();
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& p : mesh.primitives) {
      // Closed, outward-wound surfaces enclose a positive volume (divergence theorem), and the
      // smooth vertex normals agree with the faces' winding.
      double volume = 0.0;
      size_t disagreeing = 0;
      std::map<std::pair<uint32_t, uint32_t>, int> edges;
      for (size_t t = 0; t < p.indices.size(); t += 3) {
        const uint32_t i[3] = {p.indices[t], p.indices[t + 1], p.indices[t + 2]};
        const glm::dvec3 a(p.positions[i[0]]), b(p.positions[i[1]]), c(p.positions[i[2]]);
        volume += glm::dot(a, glm::cross(b, c)) / 6.0;
        const glm::dvec3 face = glm::cross(b - a, c - a);
        const glm::dvec3 normal = glm::dvec3(p.normals[i[0]] + p.normals[i[1]] + p.normals[i[2]]);
        disagreeing += glm::dot(face, normal) <= 0.0;
        for (int k = 0; k < 3; ++k) ++edges[{i[k], i[(k + 1) % 3]}];
      }
      EXPECT_GT(volume, 1e-4) << "winding is inside out";
      EXPECT_EQ(disagreeing, 0u);
      // Closed and consistently wound: every directed edge appears once, its reverse once.
      for (const auto& [edge, count] : edges) {
        EXPECT_EQ(count, 1);
        const auto reverse = edges.find({edge.second, edge.first});
        EXPECT_TRUE(reverse != edges.end() && reverse->second == 1) << "open edge";
        if (count != 1 || reverse == edges.end()) break;
      }
    }
  }
}

TEST(SampleCharacter, ClipsAreKeyedAtThirtyFpsAndLoop) {
  const Asset& asset = sample();
  for (const Animation& clip : asset.animations) {
    SCOPED_TRACE(clip.name);
    EXPECT_EQ(clip.channels.size(), asset.skins[0].joints.size() + 1);  // every joint + hips move
    for (const Sampler& s : clip.samplers) {
      EXPECT_EQ(s.interpolation, Interpolation::Linear);
      ASSERT_GE(s.times.size(), 2u);
      EXPECT_EQ(s.times.front(), 0.0f);
      for (size_t k = 0; k < s.times.size(); ++k) {
        EXPECT_NEAR(s.times[k], k / 30.0, 1e-6);
      }
      const size_t n = s.times.size();
      for (uint32_t c = 0; c < s.components; ++c) {
        EXPECT_EQ(s.values[c], s.values[(n - 1) * s.components + c]) << "the loop does not close";
      }
    }
  }
}

TEST(SampleCharacter, RestPoseSkinsToTheBindPose) {
  const Asset& asset = sample();
  SceneEvaluator evaluator(asset);
  const std::vector<glm::vec3> rest = posed(evaluator, -1, 0.0f);
  for (const MeshInstance& instance : asset.instances) {
    const Primitive& p = asset.meshes[instance.mesh].primitives[instance.primitive];
    for (uint32_t v = 0; v < p.vertex_count(); ++v) {
      const glm::vec3 d = rest[instance.first_vertex + v] - p.positions[v];
      ASSERT_LT(glm::length(d), 1e-5f) << "vertex " << v;
    }
  }
}

TEST(SampleCharacter, WalkAlternatesFeetSwingsArmsAndBobs) {
  const Asset& asset = sample();
  const int walk = clip_named(asset, "walk");
  ASSERT_GE(walk, 0);
  const float period = asset.animations[walk].end_s;
  const auto left_foot = vertices_of(asset, {joint_named(asset, "foot.L"), joint_named(asset, "toe.L")});
  const auto right_foot = vertices_of(asset, {joint_named(asset, "foot.R"), joint_named(asset, "toe.R")});
  const auto left_hand = vertices_of(asset, {joint_named(asset, "hand.L")});
  const auto right_hand = vertices_of(asset, {joint_named(asset, "hand.R")});
  const auto hips = vertices_of(asset, {joint_named(asset, "hips")});
  ASSERT_FALSE(left_foot.empty());
  ASSERT_FALSE(right_foot.empty());
  ASSERT_FALSE(left_hand.empty());
  ASSERT_FALSE(hips.empty());

  SceneEvaluator evaluator(asset);
  // A quarter period in, the left leg leads; three quarters in, the right. The character faces +Z.
  const auto quarter = posed(evaluator, walk, 0.25f * period);
  const auto three_quarters = posed(evaluator, walk, 0.75f * period);
  const auto start = posed(evaluator, walk, 0.0f);
  const float stride_q = centroid(quarter, left_foot).z - centroid(quarter, right_foot).z;
  const float stride_tq = centroid(three_quarters, left_foot).z - centroid(three_quarters, right_foot).z;
  EXPECT_GT(stride_q, 0.3f) << "left foot should lead by a stride";
  EXPECT_LT(stride_tq, -0.3f) << "right foot should lead by a stride";
  EXPECT_NEAR(stride_q, -stride_tq, 0.05f) << "the gait is symmetric";

  // Arms counter-swing: the hand opposite the leading foot is ahead.
  EXPECT_GT(centroid(quarter, right_hand).z - centroid(quarter, left_hand).z, 0.1f);
  EXPECT_GT(centroid(three_quarters, left_hand).z - centroid(three_quarters, right_hand).z, 0.1f);

  // The hips are lowest with the legs apart and highest at mid-stance.
  EXPECT_GT(centroid(start, hips).y - centroid(quarter, hips).y, 0.015f);

  // Feet stay near the ground (y = 0) all cycle long, and one is always close to it.
  for (int frame = 0; frame <= 30; ++frame) {
    const auto p = posed(evaluator, walk, period * frame / 30.0f);
    float lowest = 1e9f;
    for (uint32_t i : left_foot) lowest = std::min(lowest, p[i].y);
    for (uint32_t i : right_foot) lowest = std::min(lowest, p[i].y);
    EXPECT_GT(lowest, -0.08f) << "frame " << frame;
    EXPECT_LT(lowest, 0.05f) << "frame " << frame;
  }
}

TEST(SampleCharacter, EveryClipMovesButStaysInPlace) {
  const Asset& asset = sample();
  SceneEvaluator evaluator(asset);
  const std::vector<glm::vec3> rest = posed(evaluator, -1, 0.0f);
  std::vector<uint32_t> all(rest.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  const glm::vec3 rest_centre = centroid(rest, all);
  for (size_t c = 0; c < asset.animations.size(); ++c) {
    SCOPED_TRACE(asset.animations[c].name);
    float moved_between_frames = 0.0f;
    std::vector<glm::vec3> previous;
    for (int k = 0; k < 8; ++k) {
      const auto p = posed(evaluator, static_cast<int>(c), asset.animations[c].end_s * k / 8.0f);
      const glm::vec3 centre = centroid(p, all);
      EXPECT_LT(glm::length(glm::vec2(centre.x, centre.z) - glm::vec2(rest_centre.x, rest_centre.z)), 0.15f);
      for (const glm::vec3& v : p) ASSERT_TRUE(std::isfinite(v.x + v.y + v.z));
      if (!previous.empty()) {
        for (size_t i = 0; i < p.size(); ++i) {
          moved_between_frames = std::max(moved_between_frames, glm::length(p[i] - previous[i]));
        }
      }
      previous = p;
    }
    EXPECT_GT(moved_between_frames, 0.01f) << "the clip is frozen";
  }
}

}  // namespace
}  // namespace vatkit

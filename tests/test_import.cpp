// The glTF importer against independent expectations: the tiny Khronos files worked by hand, the
// assets README table, and glTF built here byte by byte (every component type, normalization,
// strides, sparse accessors, strips and fans, flat normals, quantization, meshopt compression).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <meshoptimizer.h>

#include "asset_invariants.h"
#include "gltf_builder.h"
#include "test_support.h"
#include "vatkit/import.h"

namespace vatkit::test {
namespace {

Asset import_ok(const std::filesystem::path& path, const ImportOptions& options = {}) {
  Result<Asset> r = import_gltf(path, options);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return {};
  EXPECT_EQ(asset_invariant_violation(*r), "") << path;
  return std::move(r).value();
}

Asset ok(Result<Asset> r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return {};
  EXPECT_EQ(asset_invariant_violation(*r), "");
  return std::move(r).value();
}

void expect_vec3(const glm::vec3& actual, const glm::vec3& expected, float tolerance = 0.0f) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

// Everything but `source` and `warnings`, compared exactly.
void expect_same_asset(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    ASSERT_EQ(a.meshes[m].primitives.size(), b.meshes[m].primitives.size());
    EXPECT_EQ(a.meshes[m].weights, b.meshes[m].weights);
    for (size_t p = 0; p < a.meshes[m].primitives.size(); ++p) {
      const Primitive& x = a.meshes[m].primitives[p];
      const Primitive& y = b.meshes[m].primitives[p];
      EXPECT_EQ(x.positions, y.positions);
      EXPECT_EQ(x.normals, y.normals);
      EXPECT_EQ(x.tangents, y.tangents);
      EXPECT_EQ(x.texcoords0, y.texcoords0);
      EXPECT_EQ(x.texcoords1, y.texcoords1);
      EXPECT_EQ(x.colors0, y.colors0);
      EXPECT_EQ(x.joints0, y.joints0);
      EXPECT_EQ(x.weights0, y.weights0);
      EXPECT_EQ(x.indices, y.indices);
      EXPECT_EQ(x.copy_source, y.copy_source);
      EXPECT_EQ(x.source_vertex_count, y.source_vertex_count);
      ASSERT_EQ(x.targets.size(), y.targets.size());
      for (size_t t = 0; t < x.targets.size(); ++t) {
        EXPECT_EQ(x.targets[t].positions, y.targets[t].positions);
        EXPECT_EQ(x.targets[t].normals, y.targets[t].normals);
      }
    }
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    EXPECT_EQ(a.nodes[i].children, b.nodes[i].children);
    EXPECT_EQ(a.nodes[i].translation, b.nodes[i].translation);
    EXPECT_EQ(a.nodes[i].matrix, b.nodes[i].matrix);
  }
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t c = 0; c < a.animations.size(); ++c) {
    ASSERT_EQ(a.animations[c].samplers.size(), b.animations[c].samplers.size());
    for (size_t s = 0; s < a.animations[c].samplers.size(); ++s) {
      EXPECT_EQ(a.animations[c].samplers[s].times, b.animations[c].samplers[s].times);
      EXPECT_EQ(a.animations[c].samplers[s].values, b.animations[c].samplers[s].values);
    }
  }
  ASSERT_EQ(a.skins.size(), b.skins.size());
  for (size_t s = 0; s < a.skins.size(); ++s) EXPECT_EQ(a.skins[s].inverse_bind, b.skins[s].inverse_bind);
  ASSERT_EQ(a.images.size(), b.images.size());
  for (size_t i = 0; i < a.images.size(); ++i) EXPECT_EQ(a.images[i].bytes, b.images[i].bytes);
  EXPECT_EQ(a.instance_vertex_count, b.instance_vertex_count);
  EXPECT_EQ(a.roots, b.roots);
}

// ---- the Khronos sample files, worked by hand ------------------------------------------------

TEST(ImportKhronos, SimpleSkinByHand) {
  const Asset a = import_ok(asset_path("khronos/SimpleSkin.gltf"));
  EXPECT_EQ(a.source, asset_path("khronos/SimpleSkin.gltf").string());
  EXPECT_TRUE(a.warnings.empty());
  // Node tree: 0 = skinned mesh, 1 = root joint, 2 = child joint at (0, 1, 0).
  ASSERT_EQ(a.nodes.size(), 3u);
  EXPECT_EQ(a.default_scene, 0);
  EXPECT_EQ(a.roots, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(a.nodes[0].mesh, 0);
  EXPECT_EQ(a.nodes[0].skin, 0);
  EXPECT_EQ(a.nodes[1].children, (std::vector<uint32_t>{2}));
  EXPECT_EQ(a.nodes[2].parent, 1);
  EXPECT_EQ(a.nodes[2].translation, glm::vec3(0.0f, 1.0f, 0.0f));
  EXPECT_EQ(a.nodes[2].rotation, glm::quat(1.0f, 0.0f, 0.0f, 0.0f));
  EXPECT_EQ(a.node_order, (std::vector<uint32_t>{0, 1, 2}));

  // 10 vertices in two columns at x = -0.5 and 0.5, rows every 0.5 up to y = 2.
  ASSERT_EQ(a.meshes.size(), 1u);
  const Primitive& p = a.meshes[0].primitives.at(0);
  ASSERT_EQ(p.source_vertex_count, 10u);
  ASSERT_EQ(p.vertex_count(), 10u);  // flat normals of a planar sheet split nothing
  for (uint32_t k = 0; k < 10; ++k) {
    EXPECT_EQ(p.positions[k], glm::vec3(k % 2 ? 0.5f : -0.5f, 0.5f * static_cast<float>(k / 2), 0.0f)) << k;
    EXPECT_EQ(p.joints0[k], k < 2 ? glm::u16vec4(0, 0, 0, 0) : glm::u16vec4(0, 1, 0, 0)) << k;
    const float w1 = 0.25f * static_cast<float>(k / 2);
    EXPECT_EQ(p.weights0[k], glm::vec4(1.0f - w1, w1, 0.0f, 0.0f)) << k;
    EXPECT_EQ(p.normals[k], glm::vec3(0.0f, 0.0f, 1.0f)) << k;  // counter-clockwise seen from +Z
  }
  EXPECT_EQ(p.indices, (std::vector<uint32_t>{0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4, 4, 5, 7, 4, 7, 6, 6, 7, 9, 6, 9, 8}));
  EXPECT_TRUE(p.normals_generated);
  EXPECT_TRUE(p.copy_source.empty());
  EXPECT_EQ(p.influence_count(), 4u);
  EXPECT_EQ(p.material, -1);

  // Two joints; the second joint's inverse bind matrix undoes its (0, 1, 0) offset.
  ASSERT_EQ(a.skins.size(), 1u);
  EXPECT_EQ(a.skins[0].joints, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(a.skins[0].inverse_bind[0], glm::mat4(1.0f));
  glm::mat4 ibm1(1.0f);
  ibm1[3] = glm::vec4(0.0f, -1.0f, 0.0f, 1.0f);
  EXPECT_EQ(a.skins[0].inverse_bind[1], ibm1);

  // One rotation channel on node 2, 12 keys every 0.5 s.
  ASSERT_EQ(a.animations.size(), 1u);
  const Animation& clip = a.animations[0];
  EXPECT_EQ(clip.name, "");
  ASSERT_EQ(clip.channels.size(), 1u);
  EXPECT_EQ(clip.channels[0].node, 2u);
  EXPECT_EQ(clip.channels[0].path, Path::Rotation);
  const Sampler& s = clip.samplers.at(0);
  EXPECT_EQ(s.interpolation, Interpolation::Linear);
  EXPECT_EQ(s.components, 4u);
  ASSERT_EQ(s.times.size(), 12u);
  for (size_t k = 0; k < 12; ++k) EXPECT_EQ(s.times[k], 0.5f * static_cast<float>(k));
  ASSERT_EQ(s.values.size(), 48u);
  EXPECT_EQ(std::vector<float>(s.values.begin() + 8, s.values.begin() + 12),
            (std::vector<float>{0, 0, 0.707f, 0.707f}));
  EXPECT_EQ(std::vector<float>(s.values.begin() + 28, s.values.begin() + 32),
            (std::vector<float>{0, 0, -0.383f, 0.924f}));
  EXPECT_EQ(clip.start_s, 0.0f);
  EXPECT_EQ(clip.end_s, 5.5f);

  ASSERT_EQ(a.instances.size(), 1u);
  EXPECT_EQ(a.instances[0].node, 0u);
  EXPECT_EQ(a.instances[0].first_vertex, 0u);
  EXPECT_EQ(a.instances[0].vertex_count, 10u);
  EXPECT_EQ(a.instance_vertex_count, 10u);
  EXPECT_EQ(a.weight_count, 0u);
}

TEST(ImportKhronos, SimpleMorphByHand) {
  const Asset a = import_ok(asset_path("khronos/SimpleMorph.gltf"));
  const Primitive& p = a.meshes.at(0).primitives.at(0);
  EXPECT_EQ(p.positions, (std::vector<glm::vec3>{{0, 0, 0}, {1, 0, 0}, {0.5f, 0.5f, 0}}));
  ASSERT_EQ(p.targets.size(), 2u);
  EXPECT_EQ(p.targets[0].positions, (std::vector<glm::vec3>{{0, 0, 0}, {0, 0, 0}, {-1, 1, 0}}));
  EXPECT_EQ(p.targets[1].positions, (std::vector<glm::vec3>{{0, 0, 0}, {0, 0, 0}, {1, 1, 0}}));
  // Both targets keep the triangle in the z = 0 plane, facing +Z: the flat normal does not change.
  EXPECT_EQ(p.normals, std::vector<glm::vec3>(3, glm::vec3(0, 0, 1)));
  EXPECT_EQ(p.targets[0].normals, std::vector<glm::vec3>(3, glm::vec3(0)));
  EXPECT_EQ(a.meshes[0].weights, (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(a.nodes[0].weights_offset, 0u);
  EXPECT_EQ(a.nodes[0].weights_count, 2u);
  EXPECT_EQ(a.weight_count, 2u);
  const Animation& clip = a.animations.at(0);
  EXPECT_EQ(clip.channels.at(0).path, Path::Weights);
  const Sampler& s = clip.samplers.at(0);
  EXPECT_EQ(s.components, 2u);
  EXPECT_EQ(s.times, (std::vector<float>{0, 1, 2, 3, 4}));
  EXPECT_EQ(s.values, (std::vector<float>{0, 0, 0, 1, 1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(clip.end_s, 4.0f);
}

TEST(ImportKhronos, InterpolationTestClips) {
  const Asset a = import_ok(asset_path("khronos/InterpolationTest.glb"));
  struct Expected {
    const char* name;
    Interpolation interpolation;
    Path path;
  };
  const Expected expected[] = {
      {"Step Scale", Interpolation::Step, Path::Scale},
      {"Linear Scale", Interpolation::Linear, Path::Scale},
      {"CubicSpline Scale", Interpolation::CubicSpline, Path::Scale},
      {"Step Rotation", Interpolation::Step, Path::Rotation},
      {"CubicSpline Rotation", Interpolation::CubicSpline, Path::Rotation},
      {"Linear Rotation", Interpolation::Linear, Path::Rotation},
      {"Step Translation", Interpolation::Step, Path::Translation},
      {"CubicSpline Translation", Interpolation::CubicSpline, Path::Translation},
      {"Linear Translation", Interpolation::Linear, Path::Translation},
  };
  ASSERT_EQ(a.animations.size(), 9u);
  for (size_t c = 0; c < 9; ++c) {
    const Animation& clip = a.animations[c];
    SCOPED_TRACE(expected[c].name);
    EXPECT_EQ(clip.name, expected[c].name);
    ASSERT_EQ(clip.channels.size(), 1u);
    EXPECT_EQ(clip.channels[0].node, c);
    EXPECT_EQ(clip.channels[0].path, expected[c].path);
    const Sampler& s = clip.samplers.at(0);
    EXPECT_EQ(s.interpolation, expected[c].interpolation);
    ASSERT_EQ(s.times.size(), 5u);
    const uint32_t components = expected[c].path == Path::Rotation ? 4 : 3;
    EXPECT_EQ(s.components, components);
    // CUBICSPLINE holds in-tangent, value, out-tangent per key: 15 outputs for 5 keys.
    const size_t outputs = expected[c].interpolation == Interpolation::CubicSpline ? 15 : 5;
    EXPECT_EQ(s.values.size(), outputs * components);
    EXPECT_EQ(clip.start_s, 0.0f);
    EXPECT_EQ(clip.end_s, 2.0f);
  }
  // 10 nodes, 9 animated cubes and a textured plane; the texture is a JPEG in a bufferView.
  EXPECT_EQ(a.nodes.size(), 10u);
  EXPECT_EQ(a.instances.size(), 10u);
  ASSERT_EQ(a.images.size(), 1u);
  EXPECT_EQ(a.images[0].name, "l.jpg");
  EXPECT_EQ(a.images[0].mime_type, "image/jpeg");
  ASSERT_GT(a.images[0].bytes.size(), 3u);
  EXPECT_EQ(a.images[0].bytes[0], 0xFF);
  EXPECT_EQ(a.images[0].bytes[1], 0xD8);
  ASSERT_EQ(a.materials.size(), 2u);
  EXPECT_EQ(a.materials[0].base_color_factor, glm::vec4(0.8f, 0.8f, 0.8f, 1.0f));
  EXPECT_EQ(a.materials[0].base_color_image, -1);
  EXPECT_EQ(a.materials[1].base_color_image, 0);

  ImportOptions no_images;
  no_images.load_images = false;
  const Asset b = import_ok(asset_path("khronos/InterpolationTest.glb"), no_images);
  EXPECT_TRUE(b.images.empty());
  EXPECT_EQ(b.materials.at(1).base_color_image, -1);
}

// ---- every shared asset, against the README table ---------------------------------------------

struct AssetRow {
  const char* path;
  size_t meshes, primitives;
  std::vector<size_t> joints;                         // per skin
  size_t vertices;                                    // POSITION counts, each mesh once
  size_t morph_targets;                               // most targets of any mesh
  std::vector<std::pair<const char*, double>> clips;  // name, duration (latest key)
  double first_start = 0.0;                           // start of the first clip
};

std::vector<AssetRow> readme_table() {
  using C = std::vector<std::pair<const char*, double>>;
  return {
      {"khronos/SimpleSkin.gltf", 1, 1, {2}, 10, 0, C{{"", 5.5}}},
      {"khronos/SimpleMorph.gltf", 1, 1, {}, 3, 2, C{{"", 4}}},
      {"khronos/AnimatedMorphCube.glb", 1, 1, {}, 24, 2, C{{"Square", 4.2}}},
      {"khronos/InterpolationTest.glb",
       2,
       2,
       {},
       28,
       0,
       C{{"Step Scale", 2},
         {"Linear Scale", 2},
         {"CubicSpline Scale", 2},
         {"Step Rotation", 2},
         {"CubicSpline Rotation", 2},
         {"Linear Rotation", 2},
         {"Step Translation", 2},
         {"CubicSpline Translation", 2},
         {"Linear Translation", 2}}},
      {"khronos/RiggedSimple.glb", 1, 1, {2}, 160, 0, C{{"", 2.0833}}, 0.0417},
      {"khronos/RiggedFigure.glb", 1, 1, {19}, 370, 0, C{{"", 1.25}}},
      {"khronos/Fox.glb", 1, 1, {24}, 1728, 0, C{{"Survey", 3.4167}, {"Walk", 0.7083}, {"Run", 1.1583}}},
      {"khronos/CesiumMan.glb", 1, 1, {19}, 3273, 0, C{{"", 2}}, 0.0417},
      {"khronos/legacy/CesiumMan.glb", 1, 1, {19}, 3273, 0, C(19, {"", 2.0})},
      {"khronos/RecursiveSkeletons.glb", 1, 1, std::vector<size_t>(84, 10), 40, 0, C{{"Track0", 2}}},
      {"khronos/MorphStressTest.gltf",
       1,
       2,
       {},
       1528,
       8,
       C{{"Individuals", 9.3333}, {"Pulse", 6.3333}, {"TheWave", 1.9583}}},
      {"threejs/Stork.glb", 1, 1, {}, 358, 13, C{{"storkFly_B_", 1.3}}},
      {"threejs/Flamingo.glb", 1, 1, {}, 337, 14, C{{"flamingo_flyA_", 1.4}}},
      {"threejs/Parrot.glb", 1, 1, {}, 497, 12, C{{"parrot_A_", 1.2}}},
      {"threejs/Horse.glb", 1, 1, {}, 796, 15, C{{"horse_A_", 1.5}}},
      {"threejs/RobotExpressive.glb",
       14,
       19,
       {43, 43},
       7214,
       3,
       C{{"Dance", 3.3333},
         {"Death", 0.9583},
         {"Idle", 3.3333},
         {"Jump", 0.7083},
         {"No", 1.6667},
         {"Punch", 0.8333},
         {"Running", 0.9583},
         {"Sitting", 0.4167},
         {"Standing", 0.4167},
         {"ThumbsUp", 1.5833},
         {"Walking", 0.9583},
         {"WalkJump", 0.8333},
         {"Wave", 1.8333},
         {"Yes", 1.6667}}},
      {"quaternius/fish/Fish1.glb", 1, 3, {8}, 1130, 0, C{{"Armature|Swim", 1.2917}}},
      {"quaternius/cute_fish/GoblinShark.glb",
       1,
       4,
       {6},
       1844,
       0,
       C{{"Fish_Armature|Attack", 0.625},
         {"Fish_Armature|Death", 3},
         {"Fish_Armature|Out_Of_Water", 1.5},
         {"Fish_Armature|Swimming_Fast", 1.0417},
         {"Fish_Armature|Swimming_Impulse", 1.1667},
         {"Fish_Armature|Swimming_Normal", 2.2917}}},
      {"quaternius/knight/KnightCharacter.glb",
       1,
       3,
       {31},
       2058,
       0,
       C{{"HumanArmature|Death", 1.4167},
         {"HumanArmature|Idle", 3.3333},
         {"HumanArmature|Idle_swordLeft", 3.3333},
         {"HumanArmature|Idle_swordRight", 3.3333},
         {"HumanArmature|Jump", 1.2083},
         {"HumanArmature|Roll", 1.25},
         {"HumanArmature|Roll_sword", 1.25},
         {"HumanArmature|Run", 0.8333},
         {"HumanArmature|Run_swordAttack", 0.8333},
         {"HumanArmature|Run_swordRight", 0.8333},
         {"HumanArmature|swordAttackJump", 1.1667},
         {"HumanArmature|Walking", 1.25}}},
      {"quaternius/platformer/Character.glb",
       4,
       11,
       {29, 29, 29, 29},
       1895,
       0,
       C{{"CharacterArmature|Death", 0.9583},
         {"CharacterArmature|Duck", 2.0833},
         {"CharacterArmature|HitReact", 0.75},
         {"CharacterArmature|Idle", 2.0833},
         {"CharacterArmature|Idle_Gun", 2.0833},
         {"CharacterArmature|Idle_Shoot", 0.7083},
         {"CharacterArmature|Jump", 0.4583},
         {"CharacterArmature|Jump_Idle", 0.625},
         {"CharacterArmature|Jump_Land", 0.4583},
         {"CharacterArmature|No", 2.0833},
         {"CharacterArmature|Punch", 1.0833},
         {"CharacterArmature|Run", 0.7083},
         {"CharacterArmature|Run_Gun", 0.7083},
         {"CharacterArmature|Run_Shoot", 0.7083},
         {"CharacterArmature|Walk", 1.25},
         {"CharacterArmature|Walk_Gun", 1.25},
         {"CharacterArmature|Wave", 2.0833},
         {"CharacterArmature|Yes", 2.0833}}},
      {"quaternius/animals/ShibaInu.glb",
       1,
       6,
       {46},
       3966,
       0,
       C{{"AnimalArmature|Attack", 1.1667},
         {"AnimalArmature|Death", 1.0417},
         {"AnimalArmature|Eating", 2.6667},
         {"AnimalArmature|Gallop", 0.5417},
         {"AnimalArmature|Gallop_Jump", 0.9167},
         {"AnimalArmature|Idle", 3.3333},
         {"AnimalArmature|Idle_2", 3.3333},
         {"AnimalArmature|Idle_2_HeadLow", 4},
         {"AnimalArmature|Idle_HitReact_Left", 0.6667},
         {"AnimalArmature|Idle_HitReact_Right", 0.6667},
         {"AnimalArmature|Jump_ToIdle", 1.3333},
         {"AnimalArmature|Walk", 1.0417}}},
  };
}

TEST(ImportAssets, EveryFileMatchesTheReadmeTable) {
  const auto table = readme_table();
  std::vector<std::string> listed;
  for (const AssetRow& row : table) listed.push_back(asset_path(row.path).string());
  for (const auto& file : all_assets())
    EXPECT_NE(std::find(listed.begin(), listed.end(), file.string()), listed.end()) << file << " is not in the table";

  for (const AssetRow& row : table) {
    SCOPED_TRACE(row.path);
    const Asset a = import_ok(asset_path(row.path));
    EXPECT_EQ(a.meshes.size(), row.meshes);
    size_t primitives = 0, vertices = 0, targets = 0;
    for (const Mesh& m : a.meshes) {
      primitives += m.primitives.size();
      targets = std::max(targets, m.weights.size());
      for (const Primitive& p : m.primitives) vertices += p.source_vertex_count;
    }
    EXPECT_EQ(primitives, row.primitives);
    EXPECT_EQ(vertices, row.vertices);
    EXPECT_EQ(targets, row.morph_targets);
    std::vector<size_t> joints;
    for (const Skin& s : a.skins) joints.push_back(s.joints.size());
    EXPECT_EQ(joints, row.joints);
    ASSERT_EQ(a.animations.size(), row.clips.size());
    std::multimap<std::string, double> expected(row.clips.begin(), row.clips.end());
    for (const Animation& clip : a.animations) {
      auto it = expected.find(clip.name);
      ASSERT_NE(it, expected.end()) << "unexpected clip " << clip.name;
      EXPECT_NEAR(clip.end_s, it->second, 1e-4) << clip.name;
      expected.erase(it);
    }
    EXPECT_NEAR(a.animations.at(0).start_s, row.first_start, 1e-4);
    EXPECT_GT(a.instance_vertex_count, 0u);
  }
}

TEST(ImportAssets, MemoryImportEqualsFileImport) {
  for (const auto& file : all_assets()) {
    SCOPED_TRACE(file.string());
    const Asset from_file = import_ok(file);
    const auto bytes = read_file(file);
    const Asset from_memory = ok(import_gltf_memory(bytes, "x", file.parent_path()));
    expect_same_asset(from_file, from_memory);
    EXPECT_EQ(from_memory.source, "x");
  }
}

// ---- containers and files ----------------------------------------------------------------------

GltfBuilder textured_triangle() {
  GltfBuilder b;
  const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  const int uv = b.data(std::vector<float>{0, 0, 1, 0, 0, 1}, kFloat, "VEC2");
  const int idx = b.data(std::vector<uint16_t>{0, 1, 2}, kUnsignedShort, "SCALAR");
  b.mesh_node({{"POSITION", pos}, {"TEXCOORD_0", uv}}, idx);
  b.doc["meshes"][0]["primitives"][0]["material"] = 0;
  const std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 1, 2, 3, 4};
  const int image_view = b.view(png);
  b.push("images", {{"bufferView", image_view}, {"mimeType", "image/png"}, {"name", "checker"}});
  b.push("textures", {{"source", 0}});
  b.push("materials",
         {{"name", "paint"},
          {"pbrMetallicRoughness",
           {{"baseColorFactor", {0.5, 0.25, 1.0, 0.75}}, {"baseColorTexture", {{"index", 0}, {"texCoord", 1}}}}},
          {"alphaMode", "MASK"},
          {"alphaCutoff", 0.25},
          {"doubleSided", true}});
  return b;
}

TEST(ImportFiles, GltfGlbAndExternalFilesAgree) {
  const GltfBuilder b = textured_triangle();
  const Asset embedded = ok(b.import_gltf());
  const Asset binary = ok(b.import_glb());
  const auto dir = scratch_dir("import_external");
  const Asset external = import_ok(b.write_external(dir, "triangle"));
  expect_same_asset(embedded, binary);
  expect_same_asset(embedded, external);

  const Material& m = embedded.materials.at(0);
  EXPECT_EQ(m.name, "paint");
  EXPECT_EQ(m.base_color_factor, glm::vec4(0.5f, 0.25f, 1.0f, 0.75f));
  EXPECT_EQ(m.base_color_image, 0);
  EXPECT_EQ(m.base_color_texcoord, 1u);
  EXPECT_EQ(m.alpha_mode, AlphaMode::Mask);
  EXPECT_EQ(m.alpha_cutoff, 0.25f);
  EXPECT_TRUE(m.double_sided);
  ASSERT_EQ(embedded.images.size(), 1u);
  EXPECT_EQ(embedded.images[0].name, "checker");
  EXPECT_EQ(embedded.images[0].mime_type, "image/png");
  EXPECT_EQ(embedded.images[0].bytes.size(), 12u);
  EXPECT_EQ(embedded.meshes[0].primitives[0].material, 0);
  EXPECT_EQ(embedded.meshes[0].primitives[0].texcoords0[1], glm::vec2(1, 0));
}

// Material values outside the schema's ranges are refused at import, by name, rather than baked
// into a Vat that the .vat.glb writer then refuses (fuzz_bake_reload found baseColorFactor 5.5).
TEST(ImportFiles, MaterialValuesOutOfRangeAreRefusedByName) {
  struct Case {
    const char* key;
    nlohmann::json value;
    const char* where;
  };
  const Case cases[] = {
      {"baseColorFactor",
       {0.5, 5.5, 1.0, 0.75},
       "materials[0].pbrMetallicRoughness.baseColorFactor[1]: 5.5 is not in [0, 1]"},
      {"baseColorFactor",
       {0.5, 0.25, 1.0, -0.25},
       "materials[0].pbrMetallicRoughness.baseColorFactor[3]: -0.25 is not in [0, 1]"},
      {"alphaCutoff", -1.0, "materials[0].alphaCutoff: -1 is not a finite number >= 0"},
  };
  for (const Case& c : cases) {
    GltfBuilder b = textured_triangle();
    if (std::string(c.key) == "alphaCutoff")
      b.doc["materials"][0]["alphaCutoff"] = c.value;
    else
      b.doc["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"] = c.value;
    const Result<Asset> r = b.import_gltf();
    ASSERT_FALSE(r.ok()) << c.where;
    EXPECT_EQ(r.error().message, std::string("test.gltf: ") + c.where);
    EXPECT_EQ(r.error().code, ErrorCode::InvalidGltf);
  }
}

TEST(ImportFiles, ImagesFromDataUrisAndFilesKeepTheirBytes) {
  GltfBuilder b = textured_triangle();
  const std::vector<uint8_t> jpeg = {0xFF, 0xD8, 0xFF, 0xE0, 9, 8, 7};
  const std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 42};
  // No mimeType: sniffed from the bytes.
  b.push("images", {{"uri", "data:;base64," + base64(jpeg.data(), jpeg.size())}});
  b.push("images", {{"uri", "tex%20ture.png"}});
  const auto dir = scratch_dir("import_images");
  std::ofstream(dir / "tex ture.png", std::ios::binary).write(reinterpret_cast<const char*>(png.data()), 9);
  const Asset a = import_ok(b.write_external(dir, "images"));
  ASSERT_EQ(a.images.size(), 3u);
  EXPECT_EQ(a.images[1].bytes, jpeg);
  EXPECT_EQ(a.images[1].mime_type, "image/jpeg");
  EXPECT_EQ(a.images[2].bytes, png);
  EXPECT_EQ(a.images[2].mime_type, "image/png");
}

// ---- accessors: every component type, normalization, strides -----------------------------------

// POSITION (VEC3, which KHR_mesh_quantization lets be any 8/16-bit integer) over every value of
// an integer type, 4- or 8-byte strided as vertex attributes must be.
template <class T>
std::vector<glm::vec3> import_positions(const std::vector<T>& values, int component_type, bool normalized) {
  GltfBuilder b;
  b.doc["extensionsUsed"] = {"KHR_mesh_quantization"};
  const size_t stride = (3 * sizeof(T) + 3) & ~size_t{3};
  std::vector<uint8_t> bytes(values.size() * stride, 0xEE);  // padding bytes must not leak in
  for (size_t i = 0; i < values.size(); ++i)
    for (int c = 0; c < 3; ++c) std::memcpy(&bytes[i * stride + c * sizeof(T)], &values[i], sizeof(T));
  const int view = b.view(bytes, stride);
  const int pos = b.accessor(view, component_type, values.size(), "VEC3", normalized);
  const int idx = b.data(std::vector<uint32_t>{0, 1, 2}, kUnsignedInt, "SCALAR");
  b.mesh_node({{"POSITION", pos}}, idx);
  const Asset a = ok(b.import_gltf());
  EXPECT_TRUE(a.warnings.empty());
  if (a.meshes.empty()) return {};
  const Primitive& p = a.meshes[0].primitives.at(0);
  return {p.positions.begin(), p.positions.begin() + p.source_vertex_count};
}

TEST(ImportAccessors, EveryByteValueAsTheSpecConvertsIt) {
  std::vector<int8_t> signed_values;
  std::vector<uint8_t> unsigned_values;
  for (int c = -128; c <= 127; ++c) signed_values.push_back(static_cast<int8_t>(c));
  for (int c = 0; c <= 255; ++c) unsigned_values.push_back(static_cast<uint8_t>(c));

  const auto byte_norm = import_positions(signed_values, kByte, true);
  const auto byte_raw = import_positions(signed_values, kByte, false);
  const auto ubyte_norm = import_positions(unsigned_values, kUnsignedByte, true);
  const auto ubyte_raw = import_positions(unsigned_values, kUnsignedByte, false);
  ASSERT_EQ(byte_norm.size(), 256u);
  ASSERT_EQ(ubyte_norm.size(), 256u);
  for (int i = 0; i < 256; ++i) {
    const float c = static_cast<float>(signed_values[i]), u = static_cast<float>(unsigned_values[i]);
    EXPECT_EQ(byte_norm[i], glm::vec3(std::max(c / 127.0f, -1.0f))) << c;  // glTF: max(c / 127, -1)
    EXPECT_EQ(byte_raw[i], glm::vec3(c));
    EXPECT_EQ(ubyte_norm[i], glm::vec3(u / 255.0f)) << u;  // glTF: c / 255
    EXPECT_EQ(ubyte_raw[i], glm::vec3(u));
  }
  EXPECT_EQ(byte_norm[0].x, -1.0f);  // -128 clamps
  EXPECT_EQ(byte_norm[1].x, -1.0f);  // -127
  EXPECT_EQ(byte_norm[255].x, 1.0f);
  EXPECT_EQ(ubyte_norm[255].x, 1.0f);
}

TEST(ImportAccessors, EverySixteenBitValueAsTheSpecConvertsIt) {
  std::vector<int16_t> signed_values;
  std::vector<uint16_t> unsigned_values;
  for (int c = -32768; c <= 32767; ++c) signed_values.push_back(static_cast<int16_t>(c));
  for (int c = 0; c <= 65535; ++c) unsigned_values.push_back(static_cast<uint16_t>(c));
  const auto short_norm = import_positions(signed_values, kShort, true);
  const auto short_raw = import_positions(signed_values, kShort, false);
  const auto ushort_norm = import_positions(unsigned_values, kUnsignedShort, true);
  const auto ushort_raw = import_positions(unsigned_values, kUnsignedShort, false);
  ASSERT_EQ(short_norm.size(), 65536u);
  ASSERT_EQ(ushort_norm.size(), 65536u);
  size_t wrong = 0;
  for (size_t i = 0; i < 65536; ++i) {
    const float c = static_cast<float>(signed_values[i]), u = static_cast<float>(unsigned_values[i]);
    wrong += short_norm[i] != glm::vec3(std::max(c / 32767.0f, -1.0f));  // glTF: max(c / 32767, -1)
    wrong += short_raw[i] != glm::vec3(c);
    wrong += ushort_norm[i] != glm::vec3(u / 65535.0f);  // glTF: c / 65535
    wrong += ushort_raw[i] != glm::vec3(u);
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(short_norm.front().x, -1.0f);
  EXPECT_EQ(short_norm.back().x, 1.0f);
  EXPECT_EQ(ushort_norm.back().x, 1.0f);
}

TEST(ImportAccessors, CoreAttributeTypesInterleavedWithAStride) {
  // One vertex = 32 bytes: POSITION float3 @0, NORMAL byte-normalized3 @12, TEXCOORD_0
  // ushort-normalized2 @16, COLOR_0 ubyte-normalized3 @20, JOINTS_0 ubyte4 @24, WEIGHTS_0
  // ubyte-normalized4 @28.
  struct Vertex {
    float position[3];
    int8_t normal[4];
    uint16_t uv[2];
    uint8_t color[4];
    uint8_t joints[4];
    uint8_t weights[4];
  };
  static_assert(sizeof(Vertex) == 32);
  const std::vector<Vertex> vertices = {
      {{0, 0, 0}, {0, 0, 127, 0}, {0, 65535}, {255, 0, 51, 0}, {0, 1, 2, 3}, {255, 0, 0, 0}},
      {{1, 0, 0}, {0, -127, 0, 0}, {32768, 0}, {0, 255, 102, 0}, {3, 2, 1, 0}, {128, 127, 0, 0}},
      {{0, 1, 0}, {-128, 0, 0, 0}, {1, 2}, {10, 20, 30, 0}, {1, 1, 1, 1}, {64, 64, 64, 63}},
  };
  GltfBuilder b;
  const int view = b.view(vertices, sizeof(Vertex));
  const int pos = b.accessor(view, kFloat, 3, "VEC3", false, 0);
  const int nrm = b.accessor(view, kByte, 3, "VEC3", true, 12);
  const int uv = b.accessor(view, kUnsignedShort, 3, "VEC2", true, 16);
  const int col = b.accessor(view, kUnsignedByte, 3, "VEC3", true, 20);
  const int jnt = b.accessor(view, kUnsignedByte, 3, "VEC4", false, 24);
  const int wgt = b.accessor(view, kUnsignedByte, 3, "VEC4", true, 28);
  b.doc["extensionsUsed"] = {"KHR_mesh_quantization"};  // byte normals are a quantization type
  b.mesh_node({{"POSITION", pos},
               {"NORMAL", nrm},
               {"TEXCOORD_0", uv},
               {"COLOR_0", col},
               {"JOINTS_0", jnt},
               {"WEIGHTS_0", wgt}});
  const Asset a = ok(b.import_gltf());
  const Primitive& p = a.meshes.at(0).primitives.at(0);
  EXPECT_EQ(p.positions[1], glm::vec3(1, 0, 0));
  EXPECT_EQ(p.normals[0], glm::vec3(0, 0, 1));
  EXPECT_EQ(p.normals[1], glm::vec3(0, -1, 0));
  EXPECT_EQ(p.normals[2], glm::vec3(-1, 0, 0));  // -128 clamps to -1
  EXPECT_FALSE(p.normals_generated);
  EXPECT_EQ(p.texcoords0[0], glm::vec2(0, 1));
  EXPECT_EQ(p.texcoords0[1], glm::vec2(32768.0f / 65535.0f, 0));
  EXPECT_EQ(p.texcoords0[2], glm::vec2(1.0f / 65535.0f, 2.0f / 65535.0f));
  EXPECT_EQ(p.colors0[0], glm::vec4(1, 0, 51.0f / 255.0f, 1));  // RGB gets alpha 1
  EXPECT_EQ(p.colors0[2], glm::vec4(10.0f / 255.0f, 20.0f / 255.0f, 30.0f / 255.0f, 1));
  EXPECT_EQ(p.joints0[1], glm::u16vec4(3, 2, 1, 0));
  EXPECT_EQ(p.weights0[1], glm::vec4(128.0f / 255.0f, 127.0f / 255.0f, 0, 0));
  EXPECT_EQ(p.weights0[2], glm::vec4(64.0f / 255.0f, 64.0f / 255.0f, 64.0f / 255.0f, 63.0f / 255.0f));
  EXPECT_EQ(p.indices, (std::vector<uint32_t>{0, 1, 2}));  // generated
}

TEST(ImportAccessors, IndexAndJointComponentTypes) {
  for (int type : {kUnsignedByte, kUnsignedShort, kUnsignedInt}) {
    GltfBuilder b;
    const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, kFloat, "VEC3");
    int idx = -1;
    const std::vector<uint32_t> indices = {0, 1, 2, 2, 1, 3};
    if (type == kUnsignedByte) idx = b.data(std::vector<uint8_t>(indices.begin(), indices.end()), type, "SCALAR");
    if (type == kUnsignedShort) idx = b.data(std::vector<uint16_t>(indices.begin(), indices.end()), type, "SCALAR");
    if (type == kUnsignedInt) idx = b.data(indices, type, "SCALAR");
    const int joints =
        type == kUnsignedByte
            ? b.data(std::vector<uint8_t>{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0}, type, "VEC4")
            : b.data(std::vector<uint16_t>{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0}, kUnsignedShort, "VEC4");
    const int weights = b.data(std::vector<float>(16, 0.25f), kFloat, "VEC4");
    b.mesh_node({{"POSITION", pos}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}, idx);
    const Asset a = ok(b.import_gltf());
    const Primitive& p = a.meshes.at(0).primitives.at(0);
    EXPECT_EQ(p.indices, indices) << type;
    EXPECT_EQ(p.joints0[3], glm::u16vec4(255, 0, 0, 0));
    EXPECT_EQ(p.influence_count(), 4u);
  }
}

TEST(ImportAccessors, EightInfluencesFromJointsAndWeightsOneAndTwo) {
  GltfBuilder b;
  const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  const int j0 = b.data(std::vector<uint16_t>(12, 1), kUnsignedShort, "VEC4");
  const int w0 = b.data(std::vector<float>(12, 0.125f), kFloat, "VEC4");
  const int j1 = b.data(std::vector<uint8_t>(12, 2), kUnsignedByte, "VEC4");
  const int w1 = b.data(std::vector<uint16_t>(12, 65535), kUnsignedShort, "VEC4", true);
  b.mesh_node({{"POSITION", pos}, {"JOINTS_0", j0}, {"WEIGHTS_0", w0}, {"JOINTS_1", j1}, {"WEIGHTS_1", w1}});
  const Asset a = ok(b.import_gltf());
  const Primitive& p = a.meshes.at(0).primitives.at(0);
  EXPECT_EQ(p.influence_count(), 8u);
  EXPECT_EQ(p.joints1[0], glm::u16vec4(2));
  EXPECT_EQ(p.weights1[2], glm::vec4(1.0f));
}

TEST(ImportAccessors, SparseWithAndWithoutABufferView) {
  GltfBuilder b;
  const int base = b.view(std::vector<float>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3});
  const int sparse_idx16 = b.view(std::vector<uint16_t>{1, 3});
  const int sparse_val3 = b.view(std::vector<float>{10, 11, 12, 30, 31, 32});
  const int sparse_idx8 = b.view(std::vector<uint8_t>{2});
  const int sparse_val2 = b.view(std::vector<float>{5, 6});
  const int sparse_idx32 = b.view(std::vector<uint32_t>{0, 2});
  const int sparse_val_t = b.view(std::vector<float>{1, 2, 3, -1, -2, -3});
  const int pos = b.accessor(base, kFloat, 4, "VEC3");
  b.doc["accessors"][pos]["sparse"] = {{"count", 2},
                                       {"indices", {{"bufferView", sparse_idx16}, {"componentType", kUnsignedShort}}},
                                       {"values", {{"bufferView", sparse_val3}}}};
  const int uv = b.accessor(-1, kFloat, 4, "VEC2");  // zeros, then the sparse values
  b.doc["accessors"][uv]["sparse"] = {{"count", 1},
                                      {"indices", {{"bufferView", sparse_idx8}, {"componentType", kUnsignedByte}}},
                                      {"values", {{"bufferView", sparse_val2}}}};
  const int target = b.accessor(-1, kFloat, 4, "VEC3");
  b.doc["accessors"][target]["sparse"] = {{"count", 2},
                                          {"indices", {{"bufferView", sparse_idx32}, {"componentType", kUnsignedInt}}},
                                          {"values", {{"bufferView", sparse_val_t}}}};
  const int nrm = b.data(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, kFloat, "VEC3");
  const int idx = b.data(std::vector<uint8_t>{0, 1, 2, 0, 2, 3}, kUnsignedByte, "SCALAR");
  b.mesh_node({{"POSITION", pos}, {"NORMAL", nrm}, {"TEXCOORD_0", uv}}, idx);
  b.doc["meshes"][0]["primitives"][0]["targets"] = {{{"POSITION", target}}};
  const Asset a = ok(b.import_gltf());
  const Primitive& p = a.meshes.at(0).primitives.at(0);
  EXPECT_EQ(p.positions, (std::vector<glm::vec3>{{0, 0, 0}, {10, 11, 12}, {2, 2, 2}, {30, 31, 32}}));
  EXPECT_EQ(p.texcoords0, (std::vector<glm::vec2>{{0, 0}, {0, 0}, {5, 6}, {0, 0}}));
  EXPECT_EQ(p.targets.at(0).positions, (std::vector<glm::vec3>{{1, 2, 3}, {0, 0, 0}, {-1, -2, -3}, {0, 0, 0}}));
  EXPECT_EQ(a.meshes[0].weights, (std::vector<float>{0.0f}));  // one target, no default weights given
}

// ---- topology ------------------------------------------------------------------------------------

TEST(ImportTopology, StripsAndFansBecomeListsAsTheSpecSays) {
  GltfBuilder b;
  std::vector<float> positions, normals;
  for (int i = 0; i < 6; ++i) {
    positions.insert(positions.end(), {static_cast<float>(i / 2), static_cast<float>(i % 2), 0.0f});
    normals.insert(normals.end(), {0.0f, 0.0f, 1.0f});
  }
  const int pos = b.data(positions, kFloat, "VEC3");
  const int nrm = b.data(normals, kFloat, "VEC3");
  const int strip = b.mesh_node({{"POSITION", pos}, {"NORMAL", nrm}}, -1, 5);  // 6 vertices, no indices
  const int fan_idx = b.data(std::vector<uint16_t>{5, 0, 1, 2, 3}, kUnsignedShort, "SCALAR");
  const int fan = b.mesh_node({{"POSITION", pos}, {"NORMAL", nrm}}, fan_idx, 6);
  const int list_idx = b.data(std::vector<uint16_t>{0, 1, 2, 3, 4}, kUnsignedShort, "SCALAR");  // 5: one left over
  b.mesh_node({{"POSITION", pos}, {"NORMAL", nrm}}, list_idx, 4);
  (void)strip;
  (void)fan;
  const Asset a = ok(b.import_gltf());
  // strip: p_i = {v_i, v_{i+(1+i%2)}, v_{i+(2-i%2)}}
  EXPECT_EQ(a.meshes.at(0).primitives.at(0).indices, (std::vector<uint32_t>{0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4}));
  // fan over indices {5, 0, 1, 2, 3}: p_i = {v_{i+1}, v_{i+2}, v_0}
  EXPECT_EQ(a.meshes.at(1).primitives.at(0).indices, (std::vector<uint32_t>{0, 1, 5, 1, 2, 5, 2, 3, 5}));
  EXPECT_EQ(a.meshes.at(2).primitives.at(0).indices, (std::vector<uint32_t>{0, 1, 2}));
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_NE(a.warnings[0].find("meshes[2].primitives[0]"), std::string::npos) << a.warnings[0];
}

TEST(ImportTopology, PointsAndLinesAreDroppedWithAWarning) {
  GltfBuilder b;
  const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  json primitives = json::array();
  for (int mode : {0, 4, 1, 2, 3}) primitives.push_back({{"attributes", {{"POSITION", pos}}}, {"mode", mode}});
  b.push("meshes", {{"primitives", primitives}});
  b.push("nodes", {{"mesh", 0}});
  const Asset a = ok(b.import_gltf());
  ASSERT_EQ(a.meshes.at(0).primitives.size(), 1u);  // only the TRIANGLES one
  ASSERT_EQ(a.warnings.size(), 4u);
  EXPECT_NE(a.warnings[0].find("meshes[0].primitives[0]: mode POINTS"), std::string::npos) << a.warnings[0];
  EXPECT_NE(a.warnings[1].find("meshes[0].primitives[2]: mode LINES"), std::string::npos) << a.warnings[1];
  EXPECT_NE(a.warnings[2].find("LINE_LOOP"), std::string::npos);
  EXPECT_NE(a.warnings[3].find("LINE_STRIP"), std::string::npos);
  EXPECT_EQ(a.instances.size(), 1u);
}

// ---- flat normals ---------------------------------------------------------------------------------

TEST(ImportNormals, CubeWithoutNormalsGetsOneNormalPerFace) {
  // 8 shared corners, vertex i at (+-1, +-1, +-1) with bit 0 = x, bit 1 = y, bit 2 = z; each face a
  // quad wound counter-clockwise seen from outside.
  std::vector<float> positions;
  for (int i = 0; i < 8; ++i)
    positions.insert(positions.end(), {i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : -1.0f});
  struct Face {
    uint16_t quad[4];
    glm::vec3 normal;
  };
  const Face faces[] = {{{1, 3, 7, 5}, {1, 0, 0}},  {{0, 4, 6, 2}, {-1, 0, 0}}, {{2, 6, 7, 3}, {0, 1, 0}},
                        {{0, 1, 5, 4}, {0, -1, 0}}, {{4, 5, 7, 6}, {0, 0, 1}},  {{0, 2, 3, 1}, {0, 0, -1}}};
  std::vector<uint16_t> indices;
  for (const Face& f : faces)
    indices.insert(indices.end(), {f.quad[0], f.quad[1], f.quad[2], f.quad[0], f.quad[2], f.quad[3]});
  GltfBuilder b;
  const int pos = b.data(positions, kFloat, "VEC3");
  const int uv = b.data(std::vector<float>(16, 0.5f), kFloat, "VEC2");
  b.mesh_node({{"POSITION", pos}, {"TEXCOORD_0", uv}}, b.data(indices, kUnsignedShort, "SCALAR"));
  const Asset a = ok(b.import_gltf());
  const Primitive& p = a.meshes.at(0).primitives.at(0);
  EXPECT_TRUE(p.normals_generated);
  EXPECT_EQ(p.source_vertex_count, 8u);
  ASSERT_EQ(p.vertex_count(), 24u);  // every corner is in 3 faces
  ASSERT_EQ(p.copy_source.size(), 16u);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(p.positions[i], glm::vec3(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]));
  for (size_t c = 0; c < p.copy_source.size(); ++c) {
    EXPECT_EQ(p.positions[8 + c], p.positions[p.copy_source[c]]);
    EXPECT_EQ(p.texcoords0[8 + c], glm::vec2(0.5f));
  }
  ASSERT_EQ(p.indices.size(), 36u);
  for (size_t t = 0; t < 12; ++t) {
    const glm::vec3 expected = faces[t / 2].normal;
    for (int k = 0; k < 3; ++k) {
      const uint32_t v = p.indices[t * 3 + k];
      EXPECT_EQ(p.normals[v], expected) << "triangle " << t;
      // The vertex is the same corner as the file's index said.
      const uint32_t source = v < 8 ? v : p.copy_source[v - 8];
      EXPECT_EQ(source, indices[t * 3 + k]);
    }
  }
  // The first triangle to use a corner keeps the file's vertex.
  EXPECT_EQ(p.indices[0], 1u);
  EXPECT_EQ(p.indices[1], 3u);
  EXPECT_EQ(p.indices[2], 7u);
}

TEST(ImportNormals, MorphTargetsGetTheMorphedFaceNormalAsDelta) {
  GltfBuilder b;
  const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  const int delta = b.data(std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 1}, kFloat, "VEC3");
  b.mesh_node({{"POSITION", pos}});
  b.doc["meshes"][0]["primitives"][0]["targets"] = {{{"POSITION", delta}}};
  b.doc["meshes"][0]["weights"] = {0.25};
  const Asset a = ok(b.import_gltf());
  const Primitive& p = a.meshes.at(0).primitives.at(0);
  EXPECT_EQ(a.meshes[0].weights, (std::vector<float>{0.25f}));
  ASSERT_EQ(p.vertex_count(), 3u);
  // Morphed triangle (0,0,0) (1,0,0) (0,1,1): normal (0, -1, 1) / sqrt(2).
  const float h = 1.0f / std::sqrt(2.0f);
  for (int v = 0; v < 3; ++v) {
    EXPECT_EQ(p.normals[v], glm::vec3(0, 0, 1));
    expect_vec3(p.targets[0].normals[v], glm::vec3(0, -h, h - 1.0f), 1e-6f);
  }
}

TEST(ImportNormals, DegenerateAndUnreferencedVerticesGetUnitNormals) {
  GltfBuilder b;
  const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 2, 0, 0, 5, 5, 5}, kFloat, "VEC3");
  b.mesh_node({{"POSITION", pos}}, b.data(std::vector<uint8_t>{0, 1, 2}, kUnsignedByte, "SCALAR"));
  const Asset a = ok(b.import_gltf());
  for (const glm::vec3& n : a.meshes.at(0).primitives.at(0).normals) EXPECT_FLOAT_EQ(glm::length(n), 1.0f);
}

// ---- KHR_mesh_quantization -------------------------------------------------------------------

TEST(ImportQuantized, QuantizedPositionsNormalsAndTexcoords) {
  GltfBuilder b;
  b.doc["extensionsUsed"] = {"KHR_mesh_quantization"};
  b.doc["extensionsRequired"] = {"KHR_mesh_quantization"};
  // ushort-normalized positions (stride 8), byte-normalized normals (stride 4), unnormalized
  // ushort texcoords, short-normalized tangents.
  const std::vector<uint16_t> pos = {0, 0, 0, 0, 65535, 0, 0, 0, 0, 65535, 32768, 0};
  const std::vector<int8_t> nrm = {0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 127, 0};
  const std::vector<uint16_t> uv = {0, 0, 1024, 0, 0, 2048};
  const std::vector<int16_t> tan = {32767, 0, 0, 32767, 32767, 0, 0, -32767, 32767, 0, 0, 32767};
  const int p = b.accessor(b.view(pos, 8), kUnsignedShort, 3, "VEC3", true);
  const int n = b.accessor(b.view(nrm, 4), kByte, 3, "VEC3", true);
  const int t = b.data(uv, kUnsignedShort, "VEC2");
  const int g = b.data(tan, kShort, "VEC4", true);
  b.mesh_node({{"POSITION", p}, {"NORMAL", n}, {"TEXCOORD_0", t}, {"TANGENT", g}});
  b.doc["nodes"][0]["scale"] = {2.0, 2.0, 2.0};  // how quantizers restore the range
  const Asset a = ok(b.import_gltf());
  EXPECT_TRUE(a.warnings.empty());
  const Primitive& prim = a.meshes.at(0).primitives.at(0);
  EXPECT_EQ(prim.positions[1], glm::vec3(1, 0, 0));
  EXPECT_EQ(prim.positions[2], glm::vec3(0, 1, 32768.0f / 65535.0f));
  EXPECT_EQ(prim.normals[0], glm::vec3(0, 0, 1));
  EXPECT_EQ(prim.texcoords0[2], glm::vec2(0, 2048));
  EXPECT_EQ(prim.tangents[1], glm::vec4(1, 0, 0, -1));
  EXPECT_EQ(a.nodes[0].scale, glm::vec3(2));

  // Without the extension declared the data is still read, with a warning.
  b.doc.erase("extensionsUsed");
  b.doc.erase("extensionsRequired");
  const Asset undeclared = ok(b.import_gltf());
  EXPECT_EQ(undeclared.meshes[0].primitives[0].positions, prim.positions);
  ASSERT_EQ(undeclared.warnings.size(), 1u);
  EXPECT_NE(undeclared.warnings[0].find("KHR_mesh_quantization"), std::string::npos);
}

TEST(ImportQuantized, NormalizedAnimationOutputs) {
  GltfBuilder b;
  const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  const int morph = b.data(std::vector<float>(9, 0.5f), kFloat, "VEC3");
  b.mesh_node({{"POSITION", pos}});
  b.doc["meshes"][0]["primitives"][0]["targets"] = {{{"POSITION", morph}}};
  const int times = b.data(std::vector<float>{0, 1}, kFloat, "SCALAR");
  const int rot = b.data(std::vector<int16_t>{0, 0, 0, 32767, 0, 0, -32767, 0}, kShort, "VEC4", true);
  const int rot8 = b.data(std::vector<uint8_t>{0, 0, 0, 255, 255, 0, 0, 0}, kUnsignedByte, "VEC4", true);
  const int wts = b.data(std::vector<uint8_t>{0, 255}, kUnsignedByte, "SCALAR", true);
  const int other = b.push("nodes", json::object());
  b.doc["scenes"] = {{{"nodes", {0, other}}}};
  b.push("animations", {{"samplers",
                         {{{"input", times}, {"output", rot}},
                          {{"input", times}, {"output", rot8}, {"interpolation", "STEP"}},
                          {{"input", times}, {"output", wts}}}},
                        {"channels",
                         {{{"sampler", 0}, {"target", {{"node", other}, {"path", "rotation"}}}},
                          {{"sampler", 2}, {"target", {{"node", 0}, {"path", "weights"}}}}}}});
  const Asset a = ok(b.import_gltf());
  const Animation& clip = a.animations.at(0);
  EXPECT_EQ(clip.samplers[0].values, (std::vector<float>{0, 0, 0, 1, 0, 0, -1, 0}));
  EXPECT_EQ(clip.samplers[1].values, (std::vector<float>{0, 0, 0, 1, 1, 0, 0, 0}));
  EXPECT_EQ(clip.samplers[1].interpolation, Interpolation::Step);
  EXPECT_EQ(clip.samplers[1].components, 4u);  // unused sampler: its accessor's width
  EXPECT_EQ(clip.samplers[2].values, (std::vector<float>{0, 1}));
  EXPECT_EQ(clip.samplers[2].components, 1u);
}

// ---- EXT_meshopt_compression -----------------------------------------------------------------

// One bufferView's content: `post` is what the decoder must produce (after the filter), `pre` the
// filter-encoded bytes the vertex codec compresses.
struct Stream {
  std::vector<uint8_t> pre, post;
  size_t stride = 0, count = 0;
  const char* mode = "ATTRIBUTES";
  const char* filter = "NONE";
  bool vertex_attribute = false;  // gets a byteStride
};

template <class T>
std::vector<uint8_t> as_bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<uint8_t> compress(const Stream& s) {
  std::vector<uint8_t> out;
  if (std::string(s.mode) == "ATTRIBUTES") {
    out.resize(meshopt_encodeVertexBufferBound(s.count, s.stride));
    out.resize(meshopt_encodeVertexBuffer(out.data(), out.size(), s.pre.data(), s.count, s.stride));
  } else {
    std::vector<uint32_t> indices(s.count);
    for (size_t i = 0; i < s.count; ++i)
      indices[i] = s.stride == 2 ? reinterpret_cast<const uint16_t*>(s.pre.data())[i]
                                 : reinterpret_cast<const uint32_t*>(s.pre.data())[i];
    const bool triangles = std::string(s.mode) == "TRIANGLES";
    out.resize(triangles ? meshopt_encodeIndexBufferBound(s.count, 1 << 16)
                         : meshopt_encodeIndexSequenceBound(s.count, 1 << 16));
    out.resize(triangles ? meshopt_encodeIndexBuffer(out.data(), out.size(), indices.data(), s.count)
                         : meshopt_encodeIndexSequence(out.data(), out.size(), indices.data(), s.count));
  }
  EXPECT_GT(out.size(), 0u);
  return out;
}

// The same document over plain bufferViews, or over compressed ones with a fallback buffer.
std::vector<uint8_t> meshopt_file(json doc, const std::vector<Stream>& streams, bool compressed, bool glb) {
  std::vector<uint8_t> bin;
  json views = json::array();
  size_t fallback_size = 0;
  for (const Stream& s : streams) {
    while (bin.size() % 4) bin.push_back(0);
    json view;
    if (!compressed) {
      view = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", s.post.size()}};
      bin.insert(bin.end(), s.post.begin(), s.post.end());
    } else {
      const std::vector<uint8_t> data = compress(s);
      view = {{"buffer", 1},
              {"byteOffset", fallback_size},
              {"byteLength", s.post.size()},
              {"extensions",
               {{"EXT_meshopt_compression",
                 {{"buffer", 0},
                  {"byteOffset", bin.size()},
                  {"byteLength", data.size()},
                  {"byteStride", s.stride},
                  {"count", s.count},
                  {"mode", s.mode},
                  {"filter", s.filter}}}}}};
      bin.insert(bin.end(), data.begin(), data.end());
      fallback_size += (s.post.size() + 3) & ~size_t{3};
    }
    if (s.vertex_attribute) view["byteStride"] = s.stride;
    views.push_back(view);
  }
  doc["bufferViews"] = views;
  json buffer0 = {{"byteLength", bin.size()}};
  if (!glb) buffer0["uri"] = "data:application/octet-stream;base64," + base64(bin.data(), bin.size());
  doc["buffers"] = json::array({buffer0});
  if (compressed) {
    doc["buffers"].push_back(
        {{"byteLength", fallback_size}, {"extensions", {{"EXT_meshopt_compression", {{"fallback", true}}}}}});
    doc["extensionsUsed"] = {"EXT_meshopt_compression", "KHR_mesh_quantization"};
    doc["extensionsRequired"] = {"EXT_meshopt_compression", "KHR_mesh_quantization"};
  } else {
    doc["extensionsUsed"] = {"KHR_mesh_quantization"};
  }
  if (glb) return GltfBuilder::glb_bytes(doc, bin);
  const std::string text = doc.dump();
  return {text.begin(), text.end()};
}

TEST(ImportMeshopt, CompressedFileImportsLikeTheUncompressedOne) {
  // A 16 x 16 grid: float positions (no filter), octahedral byte normals, exponential-filtered
  // float texcoords, triangle-codec 16-bit indices, an index-sequence 32-bit strip, and a
  // quaternion-filtered rotation track.
  const size_t side = 16, n = side * side;
  std::vector<float> positions, normals4, uvs;
  for (size_t y = 0; y < side; ++y) {
    for (size_t x = 0; x < side; ++x) {
      const float fx = static_cast<float>(x) / 15.0f, fy = static_cast<float>(y) / 15.0f;
      positions.insert(positions.end(), {fx, fy, 0.25f * std::sin(3.0f * fx) * std::cos(2.0f * fy)});
      const glm::vec3 nrm = glm::normalize(glm::vec3(-0.3f * fx, -0.2f * fy, 1.0f));
      normals4.insert(normals4.end(), {nrm.x, nrm.y, nrm.z, 0.0f});
      uvs.insert(uvs.end(), {fx * 3.0f, 1.0f - fy});
    }
  }
  std::vector<uint16_t> triangles;
  for (size_t y = 0; y + 1 < side; ++y)
    for (size_t x = 0; x + 1 < side; ++x) {
      const uint16_t i = static_cast<uint16_t>(y * side + x);
      triangles.insert(triangles.end(),
                       {i, static_cast<uint16_t>(i + 1), static_cast<uint16_t>(i + side), static_cast<uint16_t>(i + 1),
                        static_cast<uint16_t>(i + side + 1), static_cast<uint16_t>(i + side)});
    }
  std::vector<uint32_t> strip;
  for (uint32_t x = 0; x < side; ++x) strip.insert(strip.end(), {x + static_cast<uint32_t>(side), x});

  std::vector<Stream> streams(7);
  streams[0] = {as_bytes(positions), as_bytes(positions), 12, n, "ATTRIBUTES", "NONE", true};
  std::vector<int8_t> oct(4 * n);
  meshopt_encodeFilterOct(oct.data(), n, 4, 8, normals4.data());
  streams[1] = {as_bytes(oct), as_bytes(oct), 4, n, "ATTRIBUTES", "OCTAHEDRAL", true};
  meshopt_decodeFilterOct(streams[1].post.data(), n, 4);
  std::vector<uint32_t> exp(2 * n);
  meshopt_encodeFilterExp(exp.data(), n, 8, 15, uvs.data());
  streams[2] = {as_bytes(exp), as_bytes(exp), 8, n, "ATTRIBUTES", "EXPONENTIAL", true};
  meshopt_decodeFilterExp(streams[2].post.data(), n, 8);
  streams[3] = {as_bytes(triangles), as_bytes(triangles), 2, triangles.size(), "TRIANGLES", "NONE", false};
  // The triangle codec may rotate a triangle's corners (same triangle, same winding): the plain
  // file holds what it decodes to.
  {
    const std::vector<uint8_t> packed = compress(streams[3]);
    ASSERT_EQ(meshopt_decodeIndexBuffer(streams[3].post.data(), triangles.size(), 2, packed.data(), packed.size()), 0);
  }
  streams[4] = {as_bytes(strip), as_bytes(strip), 4, strip.size(), "INDICES", "NONE", false};
  const std::vector<float> times = {0.0f, 0.5f, 1.0f, 1.5f};
  std::vector<float> quats;
  for (float t : times) {
    const glm::quat q = glm::angleAxis(t, glm::normalize(glm::vec3(1, 2, 3)));
    quats.insert(quats.end(), {q.x, q.y, q.z, q.w});
  }
  std::vector<int16_t> quat_encoded(4 * times.size());
  meshopt_encodeFilterQuat(quat_encoded.data(), times.size(), 8, 12, quats.data());
  streams[5] = {as_bytes(quat_encoded), as_bytes(quat_encoded), 8, times.size(), "ATTRIBUTES", "QUATERNION", false};
  meshopt_decodeFilterQuat(streams[5].post.data(), times.size(), 8);
  streams[6] = {as_bytes(times), as_bytes(times), 4, times.size(), "ATTRIBUTES", "NONE", false};

  json doc = {{"asset", {{"version", "2.0"}}}};
  doc["accessors"] = {
      {{"bufferView", 0}, {"componentType", kFloat}, {"count", n}, {"type", "VEC3"}},
      {{"bufferView", 1}, {"componentType", kByte}, {"normalized", true}, {"count", n}, {"type", "VEC3"}},
      {{"bufferView", 2}, {"componentType", kFloat}, {"count", n}, {"type", "VEC2"}},
      {{"bufferView", 3}, {"componentType", kUnsignedShort}, {"count", triangles.size()}, {"type", "SCALAR"}},
      {{"bufferView", 4}, {"componentType", kUnsignedInt}, {"count", strip.size()}, {"type", "SCALAR"}},
      {{"bufferView", 5}, {"componentType", kShort}, {"normalized", true}, {"count", times.size()}, {"type", "VEC4"}},
      {{"bufferView", 6}, {"componentType", kFloat}, {"count", times.size()}, {"type", "SCALAR"}},
  };
  const json attributes = {{"POSITION", 0}, {"NORMAL", 1}, {"TEXCOORD_0", 2}};
  doc["meshes"] = {
      {{"primitives",
        {{{"attributes", attributes}, {"indices", 3}}, {{"attributes", attributes}, {"indices", 4}, {"mode", 5}}}}}};
  doc["nodes"] = {{{"mesh", 0}}};
  doc["animations"] = {{{"samplers", {{{"input", 6}, {"output", 5}}}},
                        {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "rotation"}}}}}}}};

  for (bool glb : {false, true}) {
    SCOPED_TRACE(glb ? "glb" : "gltf");
    const Asset plain = ok(import_gltf_memory(meshopt_file(doc, streams, false, glb), "plain"));
    const Asset packed = ok(import_gltf_memory(meshopt_file(doc, streams, true, glb), "packed"));
    expect_same_asset(plain, packed);
    EXPECT_TRUE(packed.warnings.empty());
    ASSERT_EQ(packed.meshes.size(), 1u);
    const Primitive& p = packed.meshes[0].primitives.at(0);
    // Spot checks against the source data: exact floats, filtered data to its precision.
    EXPECT_EQ(p.positions[17], glm::vec3(positions[51], positions[52], positions[53]));
    EXPECT_NEAR(p.normals[17].x, normals4[68], 0.02f);
    EXPECT_NEAR(p.texcoords0[17].x, uvs[34], 1e-3f);
    ASSERT_EQ(p.indices.size(), triangles.size());
    for (size_t t = 0; t < triangles.size(); t += 3) {
      bool same = false;
      for (size_t r = 0; r < 3; ++r)
        same |= p.indices[t] == triangles[t + r] && p.indices[t + 1] == triangles[t + (r + 1) % 3] &&
                p.indices[t + 2] == triangles[t + (r + 2) % 3];
      EXPECT_TRUE(same) << "triangle " << t / 3;
    }
    EXPECT_EQ(packed.meshes[0].primitives.at(1).indices.size(), 3 * (strip.size() - 2));
    const auto& rot = packed.animations.at(0).samplers.at(0).values;
    for (size_t k = 0; k < quats.size(); ++k) EXPECT_NEAR(rot[k], quats[k], 2e-3f) << k;
  }
}

// ---- scenes, nodes, instances ----------------------------------------------------------------

TEST(ImportScene, CanonicalInstanceOrderAndWeightOffsets) {
  GltfBuilder b;
  const int pos3 = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  const int nrm3 = b.data(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1}, kFloat, "VEC3");
  const int pos4 = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, kFloat, "VEC3");
  const int nrm4 = b.data(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, kFloat, "VEC3");
  const int d3 = b.data(std::vector<float>(9, 0.0f), kFloat, "VEC3");
  const int d4 = b.data(std::vector<float>(12, 0.0f), kFloat, "VEC3");
  const json tri = {{"attributes", {{"POSITION", pos3}, {"NORMAL", nrm3}}},
                    {"targets", {{{"POSITION", d3}}, {{"POSITION", d3}}}}};
  const json quad = {{"attributes", {{"POSITION", pos4}, {"NORMAL", nrm4}}},
                     {"targets", {{{"POSITION", d4}}, {{"POSITION", d4}}}}};
  b.push("meshes", {{"name", "two"}, {"primitives", {quad, tri}}, {"weights", {0.5, 0.25}}});  // mesh 0: 4 + 3 vertices
  b.push("meshes",
         {{"name", "one"}, {"primitives", {{{"attributes", {{"POSITION", pos3}, {"NORMAL", nrm3}}}}}}});  // mesh 1
  // Tree: 0 (mesh 0) -> [1 (mesh 1), 2 -> [3 (mesh 1)]]; 4 (mesh 0, own weights); 5 not in the scene.
  b.push("nodes", {{"mesh", 0}, {"children", {1, 2}}});
  b.push("nodes", {{"mesh", 1}, {"translation", {1, 2, 3}}});
  b.push("nodes", {{"children", {3}}, {"matrix", {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 5, 6, 7, 1}}});
  b.push("nodes", {{"mesh", 1}});
  b.push("nodes", {{"mesh", 0}, {"weights", {1.0, 0.0}}});
  b.push("nodes", {{"mesh", 0}});
  b.push("scenes", {{"name", "unused"}, {"nodes", {5}}});
  b.push("scenes", {{"name", "main"}, {"nodes", {4, 0}}});
  b.doc["scene"] = 1;
  const Asset a = ok(b.import_glb());
  EXPECT_EQ(a.default_scene, 1);
  EXPECT_EQ(a.scenes.at(1).name, "main");
  EXPECT_EQ(a.roots, (std::vector<uint32_t>{4, 0}));
  struct Expected {
    uint32_t node, mesh, primitive, first, count;
  };
  const Expected expected[] = {{4, 0, 0, 0, 4},  {4, 0, 1, 4, 3},  {0, 0, 0, 7, 4},
                               {0, 0, 1, 11, 3}, {1, 1, 0, 14, 3}, {3, 1, 0, 17, 3}};
  ASSERT_EQ(a.instances.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.instances[i].node, expected[i].node) << i;
    EXPECT_EQ(a.instances[i].mesh, expected[i].mesh) << i;
    EXPECT_EQ(a.instances[i].primitive, expected[i].primitive) << i;
    EXPECT_EQ(a.instances[i].first_vertex, expected[i].first) << i;
    EXPECT_EQ(a.instances[i].vertex_count, expected[i].count) << i;
  }
  EXPECT_EQ(a.instance_vertex_count, 20u);
  // Morph weights: nodes 0, 4, 5 have mesh 0 (2 targets); node order decides the offsets.
  EXPECT_EQ(a.nodes[0].weights_offset, 0u);
  EXPECT_EQ(a.nodes[0].weights_count, 2u);
  EXPECT_EQ(a.nodes[1].weights_count, 0u);
  EXPECT_EQ(a.nodes[4].weights_offset, 2u);
  EXPECT_EQ(a.nodes[4].weights, (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(a.nodes[5].weights_offset, 4u);
  EXPECT_EQ(a.weight_count, 6u);
  EXPECT_EQ(a.meshes[0].weights, (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ(a.meshes[1].name, "one");
  // TRS and matrix nodes.
  EXPECT_EQ(a.nodes[1].translation, glm::vec3(1, 2, 3));
  EXPECT_FALSE(a.nodes[1].has_matrix);
  EXPECT_TRUE(a.nodes[2].has_matrix);
  EXPECT_EQ(a.nodes[2].matrix[0], glm::vec4(2, 0, 0, 0));
  EXPECT_EQ(a.nodes[2].matrix[3], glm::vec4(5, 6, 7, 1));
  EXPECT_EQ(a.nodes[3].parent, 2);
}

TEST(ImportScene, WithoutScenesEveryParentlessNodeIsARoot) {
  GltfBuilder b;
  b.push("nodes", {{"children", {2}}});
  b.push("nodes", json::object());
  b.push("nodes", json::object());
  b.push("nodes", {{"children", {1}}});
  const Asset a = ok(b.import_gltf());
  EXPECT_EQ(a.default_scene, -1);
  EXPECT_EQ(a.roots, (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(a.node_order, (std::vector<uint32_t>{0, 2, 3, 1}));

  b.push("scenes", {{"nodes", {3}}});  // scenes but no "scene": the first one
  const Asset c = ok(b.import_gltf());
  EXPECT_EQ(c.default_scene, 0);
  EXPECT_EQ(c.roots, (std::vector<uint32_t>{3}));
}

TEST(ImportScene, SkinWithoutInverseBindMatricesUsesIdentity) {
  GltfBuilder b;
  const int pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  const int j = b.data(std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, kUnsignedByte, "VEC4");
  const int w = b.data(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, kFloat, "VEC4");
  b.mesh_node({{"POSITION", pos}, {"JOINTS_0", j}, {"WEIGHTS_0", w}});
  b.push("nodes", json::object());
  b.push("nodes", json::object());
  b.push("skins", {{"joints", {1, 2}}, {"skeleton", 1}, {"name", "rig"}});
  b.doc["nodes"][0]["skin"] = 0;
  const Asset a = ok(b.import_gltf());
  ASSERT_EQ(a.skins.size(), 1u);
  EXPECT_EQ(a.skins[0].name, "rig");
  EXPECT_EQ(a.skins[0].skeleton, 1);
  EXPECT_EQ(a.skins[0].inverse_bind, std::vector<glm::mat4>(2, glm::mat4(1.0f)));
}

TEST(ImportAnimation, CubicSplineAndClipRange) {
  GltfBuilder b;
  b.push("nodes", json::object());
  const int t1 = b.data(std::vector<float>{0.5f, 1.0f}, kFloat, "SCALAR");
  const int t2 = b.data(std::vector<float>{0.25f, 2.0f}, kFloat, "SCALAR");
  std::vector<float> cubic(18);
  for (size_t i = 0; i < cubic.size(); ++i) cubic[i] = static_cast<float>(i);
  const int out1 = b.data(cubic, kFloat, "VEC3");
  const int out2 = b.data(std::vector<float>{1, 1, 1, 2, 2, 2}, kFloat, "VEC3");
  b.push("animations",
         {{"name", "clip"},
          {"samplers",
           {{{"input", t1}, {"output", out1}, {"interpolation", "CUBICSPLINE"}}, {{"input", t2}, {"output", out2}}}},
          {"channels",
           {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}},
            {{"sampler", 1}, {"target", {{"node", 0}, {"path", "scale"}}}}}}});
  const Asset a = ok(b.import_gltf());
  const Animation& clip = a.animations.at(0);
  EXPECT_EQ(clip.name, "clip");
  EXPECT_EQ(clip.samplers[0].interpolation, Interpolation::CubicSpline);
  EXPECT_EQ(clip.samplers[0].values, cubic);
  EXPECT_EQ(clip.channels[1].path, Path::Scale);
  EXPECT_EQ(clip.start_s, 0.25f);
  EXPECT_EQ(clip.end_s, 2.0f);
}

TEST(ImportAnimation, IgnoredChannelsKeepTheFilesIndicesInMessages) {
  GltfBuilder b;
  b.push("nodes", {{"matrix", {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}});
  const int t = b.data(std::vector<float>{0, 1}, kFloat, "SCALAR");
  const int v = b.data(std::vector<float>{0, 0, 0, 1, 1, 1}, kFloat, "VEC3");
  b.push("animations", {{"samplers", {{{"input", t}, {"output", v}}}},
                        {"channels",
                         {{{"sampler", 0}, {"target", {{"path", "translation"}}}},           // no node: ignored
                          {{"sampler", 0}, {"target", {{"node", 0}, {"path", "pointer"}}}},  // not ours: ignored
                          {{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}}}});
  const Result<Asset> r = b.import_gltf();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("test.gltf: animations[0].channels[2]: ", 0), 0u) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::InvalidGltf);
}

// ---- big inputs: linear time and no recursion ---------------------------------------------------

TEST(ImportLarge, DeepNodeChainsAndBigMeshesImport) {
  GltfBuilder b;
  const size_t depth = 20000;
  for (size_t i = 0; i < depth; ++i) {
    json node = json::object();
    if (i + 1 < depth) node["children"] = {i + 1};
    b.push("nodes", node);
  }
  // A 300 x 300 grid without normals: 90,000 vertices, 178,802 triangles, flat normals.
  const size_t side = 300;
  std::vector<float> positions;
  std::vector<uint32_t> indices;
  for (size_t y = 0; y < side; ++y)
    for (size_t x = 0; x < side; ++x)
      positions.insert(positions.end(),
                       {static_cast<float>(x), static_cast<float>(y), static_cast<float>((x * 7 + y * 13) % 5)});
  for (uint32_t y = 0; y + 1 < side; ++y)
    for (uint32_t x = 0; x + 1 < side; ++x) {
      const uint32_t i = y * static_cast<uint32_t>(side) + x, s = static_cast<uint32_t>(side);
      indices.insert(indices.end(), {i, i + 1, i + s, i + 1, i + s + 1, i + s});
    }
  const int mesh_node =
      b.mesh_node({{"POSITION", b.data(positions, kFloat, "VEC3")}}, b.data(indices, kUnsignedInt, "SCALAR"));
  b.doc["nodes"][depth - 1]["children"] = {mesh_node};
  const Asset a = ok(b.import_glb());
  EXPECT_EQ(a.node_order.size(), depth + 1);
  EXPECT_EQ(a.roots, (std::vector<uint32_t>{0}));
  ASSERT_EQ(a.instances.size(), 1u);
  const Primitive& p = a.meshes.at(0).primitives.at(0);
  EXPECT_EQ(p.source_vertex_count, side * side);
  EXPECT_GT(p.copy_source.size(), 0u);
  EXPECT_EQ(p.indices.size(), indices.size());
}

}  // namespace
}  // namespace vatkit::test

// Malformed input: every file of Debian's assimp-testmodels glTF2 folder (the test asserts, per
// file, whether it loads or which error it gives), one hand-made mutation per validation rule of
// the importer, broken containers and JSON, and every truncation of a small file. Each error must
// be one line that starts with the file name and names a JSON path or the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>

#include "asset_invariants.h"
#include "gltf_builder.h"
#include "test_support.h"
#include "vatkit/import.h"

namespace vatkit::test {
namespace {

namespace fs = std::filesystem;

// ---- Debian's assimp-testmodels ---------------------------------------------------------------

struct AssimpCase {
  const char* path;   // under /usr/share/assimp/models/glTF2
  const char* error;  // nullptr: loads; else a substring of the message, after "FILE: "
};

// What the importer does with each file, and why (checked by hand against the files):
const AssimpCase kAssimpCases[] = {
    {"2CylinderEngine-glTF-Binary/2CylinderEngine.glb", nullptr},
    {"BoxBadNormals-glTF-Binary/BoxBadNormals.glb", nullptr},  // zero-length normals: a warning
    {"BoxTexcoords-glTF/boxTexcoords.gltf", nullptr},
    {"BoxTextured-glTF-Binary/BoxTextured.glb", nullptr},
    {"BoxTextured-glTF-Embedded/BoxTextured.gltf", nullptr},
    {"BoxTextured-glTF-pbrSpecularGlossiness/BoxTextured.gltf", nullptr},  // extension only used
    {"BoxTextured-glTF-techniqueWebGL/BoxTextured.gltf",
     "extensionsRequired[0]: extension KHR_technique_webgl is required but not supported"},
    {"BoxTextured-glTF/BoxTextured.gltf", nullptr},
    {"BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb",
     "meshes[0].primitives[0].attributes.POSITION: accessors[2] element 0 is infinite"},
    {"ClearCoat-glTF/ClearCoatTest.gltf", nullptr},
    // bufferViews 2-4 point past the 514-byte buffer (accessors 2-4 use them, no mesh does).
    {"IncorrectVertexArrays/Cube.gltf",
     "bufferViews[2]: byteOffset 504 + byteLength 432 runs past buffers[0] (byteLength 514)"},
    {"IndexOutOfRange/AllIndicesOutOfRange.gltf",
     "meshes[0].primitives[0].indices: accessors[0] element 0 is 65535, but POSITION has 24 vertices"},
    {"IndexOutOfRange/IndexOutOfRange.gltf",
     "meshes[0].primitives[0].indices: accessors[0] element 0 is 255, but POSITION has 24 vertices"},
    {"MissingBin/BoxTextured.gltf", "buffers[0]: cannot read \"BoxTextured0.bin\""},
    {"RecursiveNodes/RecursiveNodes.gltf",
     "nodes[1]: is part of a cycle in the node graph: nodes[1] -> nodes[0] -> nodes[1]"},
    {"SchemaFailures/sceneWrongType.gltf", "scene: must be a non-negative integer index, not a string"},
    {"TestNoRootNode/NoScene.gltf", "scene: scene 0 does not exist (the file has 0 scenes)"},
    {"TestNoRootNode/SceneWithoutNodes.gltf", nullptr},  // an empty scene is valid
    {"cameras/Cameras.gltf", nullptr},
    {"draco/2CylinderEngine.gltf",
     "extensionsRequired[0]: extension KHR_draco_mesh_compression is required but not supported"},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_00.gltf", nullptr},  // points: dropped
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_01.gltf", nullptr},  // lines: dropped
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_02.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_03.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_04.gltf", nullptr},  // strip
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_05.gltf", nullptr},  // fan
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_06.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_07.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_08.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_09.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_10.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_11.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_12.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_13.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_14.gltf", nullptr},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_15.gltf", nullptr},
    {"glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf", nullptr},
    {"issue_3269/texcoord_crash.gltf", nullptr},
    {"simple_skin/simple_skin.gltf", nullptr},
    {"textureTransform/TextureTransformTest.gltf", nullptr},  // KHR_texture_transform only used
    {"wrongTypes/badArray.gltf", "meshes[0].primitives: must be an array, not an object"},
    {"wrongTypes/badExtension.gltf", nullptr},  // the bad value is in an extension vatkit does not read
    {"wrongTypes/badNumber.gltf", nullptr},     // the bad value is normalTexture.scale, not read
    {"wrongTypes/badObject.gltf", "materials[0].pbrMetallicRoughness: must be an object, not an array"},
    {"wrongTypes/badString.gltf", "scenes[0].name: must be a string, not the integer 42"},
    {"wrongTypes/badUint.gltf",
     "materials[0].pbrMetallicRoughness.baseColorTexture.index: must be a non-negative integer index, not the integer "
     "-1"},
};

TEST(MalformedAssimp, EveryFileLoadsOrGivesItsError) {
  const fs::path root = VATKIT_ASSIMP_MODELS_DIR;
  if (!fs::exists(root)) GTEST_SKIP() << "assimp-testmodels is not installed";
  std::map<std::string, const AssimpCase*> table;
  for (const AssimpCase& c : kAssimpCases) table[c.path] = &c;
  size_t seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".gltf" && ext != ".glb")) continue;
    const std::string relative = fs::relative(entry.path(), root).generic_string();
    SCOPED_TRACE(relative);
    auto it = table.find(relative);
    ASSERT_NE(it, table.end()) << "a file the table does not know; add it";
    ++seen;
    const Result<Asset> r = import_gltf(entry.path());
    if (it->second->error == nullptr) {
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ(asset_invariant_violation(*r), "");
    } else {
      ASSERT_FALSE(r.ok()) << "expected: " << it->second->error;
      const std::string& message = r.error().message;
      const std::string prefix = entry.path().string() + ": ";
      EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
      EXPECT_NE(message.find(it->second->error), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos);
    }
  }
  EXPECT_EQ(seen, std::size(kAssimpCases));
}

TEST(MalformedAssimp, PrimitiveModesOfTheAssetGenerator) {
  const fs::path dir = fs::path(VATKIT_ASSIMP_MODELS_DIR) / "glTF-Asset-Generator/Mesh_PrimitiveMode";
  if (!fs::exists(dir)) GTEST_SKIP();
  // 00-03 and 07-10: points and lines, dropped with a warning; 04/11 strips and 05/12 fans of 4
  // vertices (2 triangles); 06, 13-15 triangle lists (2 triangles).
  for (int i = 0; i <= 15; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "Mesh_PrimitiveMode_%02d.gltf", i);
    SCOPED_TRACE(name);
    const Result<Asset> r = import_gltf(dir / name);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const bool dropped = (i <= 3) || (i >= 7 && i <= 10);
    if (dropped) {
      EXPECT_TRUE(r->meshes.at(0).primitives.empty());
      EXPECT_EQ(r->warnings.size(), 1u);
    } else {
      ASSERT_EQ(r->meshes.at(0).primitives.size(), 1u);
      EXPECT_EQ(r->meshes[0].primitives[0].indices.size(), 6u);
    }
  }
}

// ---- one mutation per validation rule -----------------------------------------------------------

// A valid skinned, morphed, animated file to break in one place at a time.
struct Base {
  GltfBuilder b;
  int pos, nrm, idx, joints, weights, ibm, times, rot, trans, morph_pos, morph_delta;
  size_t pos_offset, idx_offset, joints_offset, times_offset, rot_offset;

  Base() {
    pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, kFloat, "VEC3");
    pos_offset = b.doc["bufferViews"][pos]["byteOffset"].get<size_t>();
    nrm = b.data(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, kFloat, "VEC3");
    idx = b.data(std::vector<uint16_t>{0, 1, 2, 2, 1, 3}, kUnsignedShort, "SCALAR");
    idx_offset = b.doc["bufferViews"][idx]["byteOffset"].get<size_t>();
    joints = b.data(std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, kUnsignedByte, "VEC4");
    joints_offset = b.doc["bufferViews"][joints]["byteOffset"].get<size_t>();
    weights = b.data(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, kFloat, "VEC4");
    std::vector<float> matrices(32, 0.0f);
    for (int m = 0; m < 2; ++m)
      for (int d = 0; d < 4; ++d) matrices[m * 16 + d * 5] = 1.0f;
    ibm = b.data(matrices, kFloat, "MAT4");
    times = b.data(std::vector<float>{0, 1}, kFloat, "SCALAR");
    times_offset = b.doc["bufferViews"][times]["byteOffset"].get<size_t>();
    rot = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 1, 0}, kFloat, "VEC4");
    rot_offset = b.doc["bufferViews"][rot]["byteOffset"].get<size_t>();
    trans = b.data(std::vector<float>{0, 0, 0, 0, 1, 0}, kFloat, "VEC3");
    morph_pos = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
    morph_delta = b.data(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1}, kFloat, "VEC3");
    b.push("meshes",
           {{"primitives",
             {{{"attributes", {{"POSITION", pos}, {"NORMAL", nrm}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}},
               {"indices", idx}}}}});
    b.push("meshes",
           {{"primitives", {{{"attributes", {{"POSITION", morph_pos}}}, {"targets", {{{"POSITION", morph_delta}}}}}}},
            {"weights", {0.5}}});
    b.push("nodes", {{"mesh", 0}, {"skin", 0}});
    b.push("nodes", {{"children", {2}}});
    b.push("nodes", {{"translation", {0, 1, 0}}});
    b.push("nodes", {{"mesh", 1}});
    b.push("skins", {{"joints", {1, 2}}, {"inverseBindMatrices", ibm}});
    b.push("animations", {{"samplers", {{{"input", times}, {"output", rot}}, {{"input", times}, {"output", trans}}}},
                          {"channels",
                           {{{"sampler", 0}, {"target", {{"node", 2}, {"path", "rotation"}}}},
                            {{"sampler", 1}, {"target", {{"node", 1}, {"path", "translation"}}}}}}});
    b.push("scenes", {{"nodes", {0, 1, 3}}});
    b.doc["scene"] = 0;
  }
  json& doc() { return b.doc; }
  template <class T>
  void poke(size_t offset, T value) {
    std::memcpy(&b.bin[offset], &value, sizeof(T));
  }
};

struct Mutation {
  const char* name;
  std::function<void(Base&)> mutate;
  std::function<std::string(const Base&)> expected;  // the message after "test.gltf: "
  bool gltf_only = false;
};

std::string acc(int i) { return "accessors[" + std::to_string(i) + "]"; }

std::vector<Mutation> mutations() {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  return {
      {"index out of range", [](Base& m) { m.poke<uint16_t>(m.idx_offset + 6, 9); },
       [](const Base& m) {
         return "meshes[0].primitives[0].indices: " + acc(m.idx) + " element 3 is 9, but POSITION has 4 vertices";
       }},
      {"joint out of range", [](Base& m) { m.poke<uint8_t>(m.joints_offset + 8, 5); },
       [](const Base&) {
         return "nodes[0]: meshes[0].primitives[0].attributes.JOINTS_0 vertex 2 uses joint 5, but skins[0] has 2 "
                "joints";
       }},
      {"accessor past its bufferView (stride)", [](Base& m) { m.doc()["bufferViews"][m.pos]["byteStride"] = 16; },
       [](const Base& m) {
         return acc(m.pos) + ": count 4 at byteOffset 0 with stride 16 runs past bufferViews[" + std::to_string(m.pos) +
                "] (byteLength 48)";
       }},
      {"accessor offset past its bufferView", [](Base& m) { m.doc()["accessors"][m.nrm]["byteOffset"] = 4; },
       [](const Base& m) {
         return acc(m.nrm) + ": count 4 at byteOffset 4 with stride 12 runs past bufferViews[" + std::to_string(m.nrm) +
                "] (byteLength 48)";
       }},
      {"bufferView past its buffer", [](Base& m) { m.doc()["bufferViews"][0]["byteLength"] = 4000; },
       [](const Base& m) {
         return "bufferViews[0]: byteOffset 0 + byteLength 4000 runs past buffers[0] (byteLength " +
                std::to_string(m.b.bin.size()) + ")";
       }},
      {"missing buffer", [](Base& m) { m.doc()["bufferViews"][1]["buffer"] = 5; },
       [](const Base&) { return "bufferViews[1]: buffer 5 does not exist (the file has 1 buffers)"; }},
      {"cycle", [](Base& m) { m.doc()["nodes"][2]["children"] = {1}; },
       [](const Base&) { return "nodes[2]: is part of a cycle in the node graph: nodes[2] -> nodes[1] -> nodes[2]"; }},
      {"two parents", [](Base& m) { m.doc()["nodes"][3]["children"] = {2}; },
       [](const Base&) { return "nodes[2]: has two parents, nodes[1] and nodes[3]"; }},
      {"own child", [](Base& m) { m.doc()["nodes"][3]["children"] = {3}; },
       [](const Base&) {
         return "nodes[3].children[0]: nodes[3] cannot be its own child (a cycle in the node graph)";
       }},
      {"child listed twice",
       [](Base& m) {
         m.doc()["nodes"][1]["children"] = {2, 2};
       },
       [](const Base&) { return "nodes[1].children[1]: nodes[2] is listed twice"; }},
      {"scene root with a parent", [](Base& m) { m.doc()["scenes"][0]["nodes"] = {2}; },
       [](const Base&) { return "scenes[0].nodes[0]: nodes[2] is not a root: it is a child of nodes[1]"; }},
      {"NaN position", [nan](Base& m) { m.poke<float>(m.pos_offset + 16, nan); },
       [](const Base& m) {
         return "meshes[0].primitives[0].attributes.POSITION: " + acc(m.pos) + " element 1 is NaN";
       }},
      {"infinite key time", [inf](Base& m) { m.poke<float>(m.times_offset + 4, inf); },
       [](const Base& m) { return "animations[0].samplers[0].input: " + acc(m.times) + " element 1 is infinite"; }},
      {"NaN key value", [nan](Base& m) { m.poke<float>(m.rot_offset + 20, nan); },
       [](const Base& m) { return "animations[0].samplers[0].output: " + acc(m.rot) + " element 1 is NaN"; }},
      {"decreasing key times", [](Base& m) { m.poke<float>(m.times_offset, 2.0f); },
       [](const Base&) {
         return "animations[0].samplers[0].input: key times must increase, but key 1 (1.000000 s) follows key 0 "
                "(2.000000 s)";
       }},
      {"negative key time", [](Base& m) { m.poke<float>(m.times_offset, -1.0f); },
       [](const Base&) { return "animations[0].samplers[0].input: key 0 is at a negative time (-1.000000 s)"; }},
      {"input/output count mismatch", [](Base& m) { m.doc()["accessors"][m.rot]["count"] = 1; },
       [](const Base& m) {
         return "animations[0].samplers[0]: input has 2 keys, so LINEAR needs 2 output elements, but " + acc(m.rot) +
                " has 1";
       }},
      {"CUBICSPLINE needs three outputs per key",
       [](Base& m) { m.doc()["animations"][0]["samplers"][1]["interpolation"] = "CUBICSPLINE"; },
       [](const Base& m) {
         return "animations[0].samplers[1]: input has 2 keys, so CUBICSPLINE needs 6 output elements, but " +
                acc(m.trans) + " has 2";
       }},
      {"unknown interpolation", [](Base& m) { m.doc()["animations"][0]["samplers"][0]["interpolation"] = "SMOOTH"; },
       [](const Base&) {
         return "animations[0].samplers[0].interpolation: \"SMOOTH\" is not LINEAR, STEP or CUBICSPLINE";
       }},
      {"channel sampler out of range", [](Base& m) { m.doc()["animations"][0]["channels"][1]["sampler"] = 2; },
       [](const Base&) {
         return "animations[0].channels[1].sampler: sampler 2 does not exist (the file has 2 samplers)";
       }},
      {"channel node out of range", [](Base& m) { m.doc()["animations"][0]["channels"][1]["target"]["node"] = 40; },
       [](const Base&) {
         return "animations[0].channels[1].target.node: node 40 does not exist (the file has 4 nodes)";
       }},
      {"animated matrix node",
       [](Base& m) {
         m.doc()["nodes"][2].erase("translation");
         m.doc()["nodes"][2]["matrix"] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1};
       },
       [](const Base&) {
         return "animations[0].channels[0]: animates nodes[2], which is given as a matrix (the spec forbids animating "
                "those)";
       }},
      {"weights channel without morph targets",
       [](Base& m) {
         m.doc()["animations"][0]["channels"][1]["target"] = {{"node", 1}, {"path", "weights"}};
       },
       [](const Base&) {
         return "animations[0].channels[1]: animates the morph weights of nodes[1], which has no morph targets";
       }},
      {"skinned mesh without JOINTS_0",
       [](Base& m) {
         m.doc()["meshes"][0]["primitives"][0]["attributes"].erase("JOINTS_0");
         m.doc()["meshes"][0]["primitives"][0]["attributes"].erase("WEIGHTS_0");
       },
       [](const Base&) {
         return "nodes[0]: uses skins[0], but meshes[0].primitives[0] has no JOINTS_0 (a skinned mesh needs JOINTS_0 "
                "and WEIGHTS_0)";
       }},
      {"JOINTS_0 without WEIGHTS_0",
       [](Base& m) { m.doc()["meshes"][0]["primitives"][0]["attributes"].erase("WEIGHTS_0"); },
       [](const Base&) { return "meshes[0].primitives[0].attributes: has JOINTS_0 but no WEIGHTS_0"; }},
      {"Draco required", [](Base& m) { m.doc()["extensionsRequired"] = {"KHR_draco_mesh_compression"}; },
       [](const Base&) {
         return "extensionsRequired[0]: extension KHR_draco_mesh_compression is required but not supported (vatkit has "
                "no Draco "
                "decoder)";
       }},
      {"unknown required extension",
       [](Base& m) {
         m.doc()["extensionsRequired"] = {"KHR_mesh_quantization", "EXT_future"};
       },
       [](const Base&) { return "extensionsRequired[1]: extension EXT_future is required but not supported"; }},
      {"Draco primitive without fallback data",
       [](Base& m) {
         m.doc()["extensionsUsed"] = {"KHR_draco_mesh_compression"};
         m.doc()["accessors"][m.morph_pos].erase("bufferView");
         m.doc()["meshes"][1]["primitives"][0]["extensions"] = {
             {"KHR_draco_mesh_compression", {{"bufferView", 0}, {"attributes", {{"POSITION", 0}}}}}};
       },
       [](const Base&) {
         return "meshes[1].primitives[0]: is compressed with KHR_draco_mesh_compression, which vatkit cannot decode";
       }},
      {"wrong accessor type",
       [](Base& m) { m.doc()["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = m.times; },
       [](const Base& m) {
         return "meshes[0].primitives[0].attributes.POSITION: " + acc(m.times) + " is SCALAR, expected VEC3";
       }},
      {"wrong component type", [](Base& m) { m.doc()["accessors"][m.nrm]["componentType"] = kUnsignedInt; },
       [](const Base& m) {
         return "meshes[0].primitives[0].attributes.NORMAL: " + acc(m.nrm) +
                " has component type UNSIGNED_INT, expected FLOAT, normalized BYTE, normalized SHORT";
       }},
      {"normalized joints", [](Base& m) { m.doc()["accessors"][m.joints]["normalized"] = true; },
       [](const Base& m) {
         return "meshes[0].primitives[0].attributes.JOINTS_0: " + acc(m.joints) +
                " has component type normalized UNSIGNED_BYTE, expected UNSIGNED_BYTE, UNSIGNED_SHORT";
       }},
      {"INT components", [](Base& m) { m.doc()["accessors"][m.idx]["componentType"] = 5124; },
       [](const Base& m) { return acc(m.idx) + ".componentType: 5124 (INT) is not allowed in glTF 2.0"; }},
      {"attribute count mismatch", [](Base& m) { m.doc()["accessors"][m.nrm]["count"] = 3; },
       [](const Base& m) {
         return "meshes[0].primitives[0].attributes.NORMAL: " + acc(m.nrm) + " has 3 elements, POSITION has 4";
       }},
      {"attribute accessor out of range",
       [](Base& m) { m.doc()["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 99; },
       [](const Base& m) {
         return "meshes[0].primitives[0].attributes.POSITION: accessor 99 does not exist (the file has " +
                std::to_string(m.b.doc["accessors"].size()) + " accessors)";
       }},
      {"node mesh out of range", [](Base& m) { m.doc()["nodes"][0]["mesh"] = 7; },
       [](const Base&) { return "nodes[0].mesh: mesh 7 does not exist (the file has 2 meshes)"; }},
      {"too few inverse bind matrices",
       [](Base& m) {
         m.doc()["skins"][0]["joints"] = {1, 2, 3};
       },
       [](const Base& m) {
         return "skins[0].inverseBindMatrices: " + acc(m.ibm) + " has 2 matrices, but the skin has 3 joints";
       }},
      {"skin joint out of range",
       [](Base& m) {
         m.doc()["skins"][0]["joints"] = {1, 9};
       },
       [](const Base&) { return "skins[0].joints[1]: node 9 does not exist (the file has 4 nodes)"; }},
      {"mesh weights count",
       [](Base& m) {
         m.doc()["meshes"][1]["weights"] = {0.5, 0.5};
       },
       [](const Base&) { return "meshes[1].weights: has 2 values, but the primitives have 1 morph targets"; }},
      {"node weights count",
       [](Base& m) {
         m.doc()["nodes"][3]["weights"] = {0.5, 0.5, 0.5};
       },
       [](const Base&) { return "nodes[3].weights: has 3 values, but meshes[1] has 1 morph targets"; }},
      {"primitives disagree on targets",
       [](Base& m) {
         json second = m.doc()["meshes"][1]["primitives"][0];
         second.erase("targets");
         m.doc()["meshes"][1]["primitives"].push_back(second);
       },
       [](const Base&) {
         return "meshes[1].primitives[1].targets: has 0 morph targets, but meshes[1].primitives[0] has 1 (they must "
                "agree)";
       }},
      {"primitive mode", [](Base& m) { m.doc()["meshes"][0]["primitives"][0]["mode"] = 9; },
       [](const Base&) { return "meshes[0].primitives[0].mode: 9 is not a glTF primitive mode"; }},
      {"material out of range", [](Base& m) { m.doc()["meshes"][0]["primitives"][0]["material"] = 0; },
       [](const Base&) { return "meshes[0].primitives[0].material: 0 does not exist (the file has 0 materials)"; }},
      {"texture out of range",
       [](Base& m) {
         m.doc()["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 3}}}}}}};
       },
       [](const Base&) {
         return "materials[0].pbrMetallicRoughness.baseColorTexture.index: texture 3 does not exist (the file has 0 "
                "textures)";
       }},
      {"image out of range",
       [](Base& m) {
         m.doc()["textures"] = {{{"source", 2}}};
         m.doc()["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}};
       },
       [](const Base&) { return "textures[0].source: image 2 does not exist (the file has 0 images)"; }},
      {"image bufferView out of range",
       [](Base& m) {
         m.doc()["images"] = {{{"bufferView", 77}, {"mimeType", "image/png"}}};
       },
       [](const Base& m) {
         return "images[0].bufferView: 77 does not exist (the file has " +
                std::to_string(m.b.doc["bufferViews"].size()) + " bufferViews)";
       }},
      {"alpha mode",
       [](Base& m) {
         m.doc()["materials"] = {{{"alphaMode", "GLOW"}}};
       },
       [](const Base&) { return "materials[0].alphaMode: \"GLOW\" is not OPAQUE, MASK or BLEND"; }},
      {"sparse index out of range",
       [](Base& m) {
         const int iv = m.b.view(std::vector<uint8_t>{7});
         const int vv = m.b.view(std::vector<float>{1, 1, 1});
         m.doc()["accessors"][m.morph_delta]["sparse"] = {
             {"count", 1},
             {"indices", {{"bufferView", iv}, {"componentType", kUnsignedByte}}},
             {"values", {{"bufferView", vv}}}};
       },
       [](const Base& m) { return acc(m.morph_delta) + ".sparse.indices: index 0 is 7, out of range for count 3"; }},
      {"sparse count larger than count",
       [](Base& m) {
         const int iv = m.b.view(std::vector<uint8_t>{0, 1, 2, 3});
         const int vv = m.b.view(std::vector<float>(12, 1.0f));
         m.doc()["accessors"][m.morph_delta]["sparse"] = {
             {"count", 4},
             {"indices", {{"bufferView", iv}, {"componentType", kUnsignedByte}}},
             {"values", {{"bufferView", vv}}}};
       },
       [](const Base& m) { return acc(m.morph_delta) + ".sparse.count: 4 is larger than the accessor's count 3"; }},
      {"byteStride not a multiple of 4", [](Base& m) { m.doc()["bufferViews"][0]["byteStride"] = 13; },
       [](const Base&) { return "bufferViews[0].byteStride: 13 is not a multiple of 4 between 4 and 252"; }},
      {"byteStride smaller than an element", [](Base& m) { m.doc()["bufferViews"][m.pos]["byteStride"] = 8; },
       [](const Base& m) {
         return acc(m.pos) + ": bufferViews[" + std::to_string(m.pos) +
                "] has byteStride 8, less than one 12-byte element";
       }},
      {"zero count", [](Base& m) { m.doc()["accessors"][m.pos]["count"] = 0; },
       [](const Base& m) { return acc(m.pos) + ".count: must be at least 1"; }},
      {"required property missing", [](Base& m) { m.doc()["accessors"][m.pos].erase("componentType"); },
       [](const Base& m) { return acc(m.pos) + ".componentType: required property is missing"; }},
      {"negative index", [](Base& m) { m.doc()["nodes"][1]["children"] = {-2}; },
       [](const Base&) { return "nodes[1].children[0]: must be a non-negative integer index, not the integer -2"; }},
      {"wrong array size",
       [](Base& m) {
         m.doc()["nodes"][2]["translation"] = {0, 1};
       },
       [](const Base&) { return "nodes[2].translation: must hold 3 numbers, not 2"; }},
      {"not an array",
       [](Base& m) {
         m.doc()["nodes"] = {{"a", 1}};
       },
       [](const Base&) { return "nodes: must be an array, not an object"; }},
      {"glTF 1.0", [](Base& m) { m.doc()["asset"]["version"] = "1.0"; },
       [](const Base&) { return "asset.version: \"1.0\" is not supported; only glTF 2.0 is"; }},
      {"no asset", [](Base& m) { m.doc().erase("asset"); },
       [](const Base&) { return "asset: required property is missing (is this a glTF 2.0 file?)"; }},
      {"external buffer without a base directory",
       [](Base& m) {
         m.b.buffers_override = json::array({json{{"byteLength", 4}, {"uri", "data.bin"}}});
       },
       [](const Base&) {
         return "buffers[0]: refers to the external file \"data.bin\", but the glTF was read from memory with no base "
                "directory";
       }},
      {"remote buffer",
       [](Base& m) {
         m.b.buffers_override = json::array({json{{"byteLength", 4}, {"uri", "https://example.com/a.bin"}}});
       },
       [](const Base&) {
         return "buffers[0].uri: \"https://example.com/a.bin\" is not a relative file reference (only data URIs and "
                "files inside the asset's folder are read)";
       }},
      {"short data URI",
       [](Base& m) {
         m.b.buffers_override =
             json::array({json{{"byteLength", 400}, {"uri", "data:application/octet-stream;base64,AAAA"}}});
       },
       [](const Base&) { return "buffers[0]: data URI holds 3 bytes, byteLength says 400"; }},
      {"bad base64",
       [](Base& m) {
         m.b.buffers_override =
             json::array({json{{"byteLength", 3}, {"uri", "data:application/octet-stream;base64,AA*A"}}});
       },
       [](const Base&) { return "buffers[0]: data URI is not valid base64"; }},
      {"buffer without uri in a .gltf",
       [](Base& m) {
         m.b.buffers_override = json::array({json{{"byteLength", 4}}});
       },
       [](const Base&) { return "buffers[0]: has no uri"; }, true},
      {"meshopt fallback referenced without compression",
       [](Base& m) {
         m.doc()["buffers"].push_back(
             {{"byteLength", 64}, {"extensions", {{"EXT_meshopt_compression", {{"fallback", true}}}}}});
         m.doc()["bufferViews"][m.nrm]["buffer"] = 1;
         m.doc()["bufferViews"][m.nrm]["byteOffset"] = 0;
       },
       [](const Base& m) {
         return "bufferViews[" + std::to_string(m.nrm) +
                "]: refers to buffers[1], an EXT_meshopt_compression fallback buffer with no data, but is not "
                "compressed";
       }},
      {"corrupt meshopt data",
       [](Base& m) {
         m.doc()["bufferViews"][m.nrm]["extensions"] = {{"EXT_meshopt_compression",
                                                         {{"buffer", 0},
                                                          {"byteOffset", 0},
                                                          {"byteLength", 20},
                                                          {"byteStride", 12},
                                                          {"count", 4},
                                                          {"mode", "ATTRIBUTES"}}}};
       },
       [](const Base& m) {
         return "bufferViews[" + std::to_string(m.nrm) +
                "].extensions.EXT_meshopt_compression: meshoptimizer cannot decode the compressed data (error -1)";
       }},
      {"meshopt stride not a multiple of 4",
       [](Base& m) {
         m.doc()["bufferViews"][m.nrm]["extensions"] = {
             {"EXT_meshopt_compression",
              {{"buffer", 0}, {"byteLength", 20}, {"byteStride", 6}, {"count", 8}, {"mode", "ATTRIBUTES"}}}};
       },
       [](const Base& m) {
         return "bufferViews[" + std::to_string(m.nrm) +
                "].extensions.EXT_meshopt_compression.byteStride: must be a multiple of 4 for ATTRIBUTES";
       }},
  };
}

TEST(MalformedSynthetic, BaseFileImports) {
  Base base;
  const Result<Asset> r = base.b.import_gltf();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(asset_invariant_violation(*r), "");
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->animations.size(), 1u);
  EXPECT_EQ(r->skins.size(), 1u);
}

// The mutations whose error is not ErrorCode::InvalidGltf (valid glTF vatkit does not read, and
// a caller's choice), by name.
const std::map<std::string, ErrorCode> kOtherCodes = {
    {"Draco required", ErrorCode::Unsupported},
    {"unknown required extension", ErrorCode::Unsupported},
    {"Draco primitive without fallback data", ErrorCode::Unsupported},
    {"glTF 1.0", ErrorCode::Unsupported},
    {"remote buffer", ErrorCode::Unsupported},
    {"external buffer without a base directory", ErrorCode::Argument},
};

TEST(MalformedSynthetic, EachRuleGivesItsError) {
  for (const Mutation& m : mutations()) {
    SCOPED_TRACE(m.name);
    const auto other = kOtherCodes.find(m.name);
    const ErrorCode code = other == kOtherCodes.end() ? ErrorCode::InvalidGltf : other->second;
    Base base;
    m.mutate(base);
    for (bool glb : {false, true}) {
      if (glb && m.gltf_only) continue;  // in a GLB, a buffer without uri is the BIN chunk
      const Result<Asset> r = glb ? base.b.import_glb() : base.b.import_gltf();
      ASSERT_FALSE(r.ok()) << (glb ? "glb" : "gltf");
      const std::string name = glb ? "test.glb" : "test.gltf";
      EXPECT_EQ(r.error().message, name + ": " + m.expected(base));
      EXPECT_EQ(r.error().code, code) << r.error().message;
    }
  }
}

TEST(MalformedSynthetic, MissingFilesNextToTheGltf) {
  Base base;
  const auto dir = scratch_dir("malformed_files");
  const fs::path gltf = base.b.write_external(dir, "model");
  ASSERT_TRUE(import_gltf(gltf).ok());
  fs::remove(dir / "model.bin");
  Result<Asset> r = import_gltf(gltf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, gltf.string() + ": buffers[0]: cannot read \"model.bin\" (" +
                                   (dir / "model.bin").string() + "): no such file");
  EXPECT_EQ(r.error().code, ErrorCode::Io);

  // A .bin shorter than byteLength.
  std::ofstream(dir / "model.bin", std::ios::binary) << "abc";
  r = import_gltf(gltf);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("buffers[0]: \"model.bin\" has 3 bytes, byteLength says"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::InvalidGltf);

  // An image file that is not there.
  base.doc()["images"] = {{{"uri", "missing.png"}}};
  const fs::path with_image = base.b.write_external(dir, "textured");
  r = import_gltf(with_image);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("images[0]: cannot read \"missing.png\""), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  ImportOptions no_images;
  no_images.load_images = false;  // then images are not read at all
  EXPECT_TRUE(import_gltf(with_image, no_images).ok());
}

// ---- files that cannot be read, containers, JSON ----------------------------------------------

TEST(MalformedFiles, UnreadableFiles) {
  const auto dir = scratch_dir("malformed_unreadable");
  Result<Asset> r = import_gltf(dir / "nothing.gltf");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, (dir / "nothing.gltf").string() + ": cannot open (No such file or directory)");
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  r = import_gltf(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, dir.string() + ": is a directory, not a file");
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  std::ofstream(dir / "empty.glb").close();
  r = import_gltf(dir / "empty.glb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, (dir / "empty.glb").string() + ": the file is empty");
  EXPECT_EQ(r.error().code, ErrorCode::Parse);
}

std::string import_message(const std::string& bytes, const std::string& name = "x.gltf") {
  const Result<Asset> r = import_gltf_memory(std::vector<uint8_t>(bytes.begin(), bytes.end()), name);
  return r.ok() ? "OK" : r.error().message;
}

// The code of the import's error (the test fails when there is none).
ErrorCode import_code(const std::string& bytes, const std::string& name = "x.gltf") {
  const Result<Asset> r = import_gltf_memory(std::vector<uint8_t>(bytes.begin(), bytes.end()), name);
  EXPECT_FALSE(r.ok());
  return r.ok() ? ErrorCode::Argument : r.error().code;
}

TEST(MalformedFiles, ContainersAndJson) {
  EXPECT_EQ(import_message(""), "x.gltf: the file is empty");
  EXPECT_EQ(import_message("solid cube\nfacet normal 0 0 1\n"),
            "x.gltf: not a glTF file (neither JSON starting with '{' nor a GLB starting with \"glTF\")");
  EXPECT_EQ(import_message("{\"asset\": {\"version\": \"2.0\"}"),
            "x.gltf: JSON: parse error at line 1, column 29: syntax error while parsing object - unexpected end of "
            "input; expected '}'");
  EXPECT_EQ(
      import_message("{\"asset\": {\"version\": \"2.0\"}, \"x\": \"\xff\"}").rfind("x.gltf: JSON: parse error", 0), 0u);
  EXPECT_EQ(import_message("\xEF\xBB\xBF{\"asset\": {\"version\": \"2.0\"}}"), "OK");  // a byte order mark is fine
  EXPECT_EQ(import_message("{\"asset\": {\"version\": \"2.0\"}, \"extras\": " + std::string(100, '[') +
                           std::string(100, ']') + "}"),
            "x.gltf: JSON: nested deeper than 64 levels");
  EXPECT_EQ(import_message("{\"asset\": {\"version\": \"2.0\"}, \"extras\": \"" + std::string(100, '[') + "\"}"), "OK");
  EXPECT_EQ(import_message("{\"a\":" + std::string(1000000, '[')), "x.gltf: JSON: nested deeper than 64 levels");

  const std::string header = "glTF";
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  EXPECT_EQ(import_message(header + u32(2), "x.glb"), "x.glb: GLB: the header is truncated (8 bytes)");
  EXPECT_EQ(import_message(header + u32(1) + u32(12), "x.glb"),
            "x.glb: GLB: version 1 is not supported (only glTF 2.0)");
  EXPECT_EQ(import_message(header + u32(2) + u32(400), "x.glb"),
            "x.glb: GLB: the header says 400 bytes, but there are only 12 (truncated file?)");
  EXPECT_EQ(import_message(header + u32(2) + u32(12), "x.glb"), "x.glb: GLB: has no JSON chunk");
  EXPECT_EQ(import_message(header + u32(2) + u32(24) + u32(80) + u32(0x4E4F534A) + "{}  ", "x.glb"),
            "x.glb: GLB: chunk 0 (80 bytes) runs past the end of the file");
  EXPECT_EQ(import_message(header + u32(2) + u32(24) + u32(4) + u32(0x004E4942) + "abcd", "x.glb"),
            "x.glb: GLB: the first chunk is not JSON");
  EXPECT_EQ(import_message(header + u32(2) + u32(22) + u32(4) + u32(0x4E4F534A) + "{}", "x.glb"),
            "x.glb: GLB: chunk 0 (4 bytes) runs past the end of the file");

  EXPECT_EQ(import_code(""), ErrorCode::Parse);
  EXPECT_EQ(import_code("solid cube\nfacet normal 0 0 1\n"), ErrorCode::Parse);
  EXPECT_EQ(import_code("{\"asset\": {\"version\": \"2.0\"}"), ErrorCode::Parse);
  EXPECT_EQ(import_code("{\"a\":" + std::string(1000000, '[')), ErrorCode::Limit);
  EXPECT_EQ(import_code(header + u32(2), "x.glb"), ErrorCode::Parse);
  EXPECT_EQ(import_code(header + u32(1) + u32(12), "x.glb"), ErrorCode::Unsupported);
  EXPECT_EQ(import_code(header + u32(2) + u32(400), "x.glb"), ErrorCode::Parse);
  EXPECT_EQ(import_code(header + u32(2) + u32(24) + u32(4) + u32(0x004E4942) + "abcd", "x.glb"), ErrorCode::Parse);
}

TEST(MalformedFiles, EveryTruncationOfAGlbIsAnError) {
  Base base;
  const std::vector<uint8_t> glb = base.b.glb();
  ASSERT_TRUE(import_gltf_memory(glb, "full.glb").ok());
  for (size_t length = 0; length < glb.size(); ++length) {
    const std::vector<uint8_t> cut(glb.begin(), glb.begin() + static_cast<std::ptrdiff_t>(length));
    const Result<Asset> r = import_gltf_memory(cut, "cut.glb");
    ASSERT_FALSE(r.ok()) << length;
    EXPECT_EQ(r.error().message.rfind("cut.glb: ", 0), 0u) << r.error().message;
    EXPECT_EQ(r.error().code, ErrorCode::Parse) << r.error().message;
  }
}

TEST(MalformedFiles, EveryTruncationOfAGltfNeverCrashes) {
  Base base;
  const std::vector<uint8_t> gltf = base.b.gltf();
  size_t loaded = 0;
  for (size_t length = 0; length <= gltf.size(); ++length) {
    const std::vector<uint8_t> cut(gltf.begin(), gltf.begin() + static_cast<std::ptrdiff_t>(length));
    const Result<Asset> r = import_gltf_memory(cut, "cut.gltf");
    if (r.ok()) {
      ++loaded;
      EXPECT_EQ(asset_invariant_violation(*r), "");
    } else {
      EXPECT_EQ(r.error().message.rfind("cut.gltf: ", 0), 0u);
    }
  }
  EXPECT_EQ(loaded, 1u);  // only the whole file
}

TEST(MalformedFiles, ImplausiblyLargeDecodedDataIsRefused) {
  // A few hundred bytes of JSON that would make 2^31 zero floats: one accessor without a
  // bufferView, shared by many primitives.
  GltfBuilder b;
  const int big = b.accessor(-1, kFloat, size_t{1} << 26, "VEC3");
  json primitives = json::array();
  for (int i = 0; i < 20; ++i) primitives.push_back({{"attributes", {{"POSITION", big}}}});
  b.push("meshes", {{"primitives", primitives}});
  const Result<Asset> r = b.import_gltf();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("decodes to more data than a file of this size can plausibly hold"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Limit);
}

}  // namespace
}  // namespace vatkit::test

// The vatkit command-line tool, run as a program: help and version, `sample` writes the sample's
// exact bytes, `info` (text and JSON) reports the right counts for Fox, `pose` matches hand-worked
// SimpleSkin positions and the library's own evaluator bit for bit, and every kind of bad input
// gives exactly one "vatkit: error: " line, a non-zero exit and no output file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "test_support.h"
#include "vatkit/sample_character.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::CommandResult;
using test::expect_help_documents;
using test::expect_one_error_line;
using test::shell_quote;
using test::vatkit_cli;

std::string asset(const std::string& relative) { return shell_quote(test::asset_path(relative).string()); }

// Exactly one line on stderr, starting with "vatkit: error: ", and a non-zero exit.

std::vector<float> positions_of(const json& primitive) {
  std::vector<float> out;
  for (const json& x : primitive["positions"]) out.push_back(static_cast<float>(x.get<double>()));
  return out;
}

TEST(Cli, VersionAndHelpDocumentEveryOption) {
  const CommandResult version = vatkit_cli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("vatkit ", 0), 0u) << version.out;

  expect_help_documents({"sample", "info", "pose", "--version"},
                        {
                            {"sample", {"-o,--output"}},
                            {"info", {"FILE", "--json"}},
                            {"pose", {"FILE", "-c,--clip", "-t,--time", "-o,--output", "#INDEX"}},
                        });
}

TEST(Cli, SampleWritesTheSampleBytesAndNothingElse) {
  const fs::path dir = test::scratch_dir("cli_sample");
  const fs::path file = dir / "sample.glb";
  const CommandResult r = vatkit_cli("sample -o " + shell_quote(file.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(test::read_file(file), sample_character_glb());
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u) << "a temporary file was left behind";
}

TEST(Cli, InfoTextReportsFox) {
  const CommandResult r = vatkit_cli("info " + asset("khronos/Fox.glb"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"Fox.glb", "1728 vertices", "576 triangles", "24 joints", "\"Survey\"", "\"Walk\"",
                           "\"Run\"", "3.417 s", "LINEAR", "warnings    none"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << "missing " << text << " in\n" << r.out;
  }
}

TEST(Cli, InfoJsonReportsFox) {
  const CommandResult r = vatkit_cli("info --json " + asset("khronos/Fox.glb"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json info = json::parse(r.out);
  EXPECT_EQ(info["vertices"], 1728);
  EXPECT_EQ(info["triangles"], 576);
  EXPECT_EQ(info["primitives"], 1);
  EXPECT_EQ(info["joints"], 24);
  ASSERT_EQ(info["skins"].size(), 1u);
  EXPECT_EQ(info["skins"][0]["joints"], 24);
  EXPECT_EQ(info["morph_targets"], 0);
  ASSERT_EQ(info["clips"].size(), 3u);
  const char* names[] = {"Survey", "Walk", "Run"};
  const double durations[] = {3.4167, 0.7083, 1.1583};  // the assets README's table
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(info["clips"][c]["name"], names[c]);
    EXPECT_NEAR(info["clips"][c]["duration_s"].get<double>(), durations[c], 1e-4);
    EXPECT_EQ(info["clips"][c]["interpolation"], json::array({"LINEAR"}));
  }
  EXPECT_EQ(info["images"].size(), 1u);
  EXPECT_EQ(info["warnings"], json::array());
}

TEST(Cli, InfoWithoutFileDescribesTheSample) {
  const CommandResult r = vatkit_cli("info --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json info = json::parse(r.out);
  EXPECT_EQ(info["source"], "<sample>");
  EXPECT_EQ(info["joints"], 22);
  ASSERT_EQ(info["clips"].size(), 3u);
  EXPECT_EQ(info["clips"][0]["name"], "idle");
  EXPECT_EQ(info["clips"][1]["name"], "walk");
  EXPECT_EQ(info["clips"][2]["name"], "run");
  EXPECT_GE(info["vertices"].get<int>(), 2000);
}

// SimpleSkin: a 1 x 2 strip of 10 vertices at x = -0.5 / 0.5, y = 0, 0.5, ... 2, skinned to
// joint 0 (node 1, at the origin) and joint 1 (node 2, at y = 1, inverse bind = translate(0, -1,
// 0)), weights (1, 0), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0, 1) by row. Its one clip turns
// node 2 about Z: key 2 (t = 1 s) is (0, 0, 0.707, 0.707), 90 degrees, so a vertex p weighted w
// to joint 1 goes to (1 - w) p + w (R90 (p - (0, 1)) + (0, 1)), with R90 (x, y) = (-y, x).
const float kSimpleSkinAtOneSecond[10][2] = {
    {-0.5f, 0.0f},   {0.5f, 0.0f},    // w = 0
    {-0.25f, 0.5f},  {0.5f, 0.75f},   // w = 0.25: (0.75 (-0.5, 0.5) + 0.25 (0.5, 0.5)), ...
    {-0.25f, 0.75f}, {0.25f, 1.25f},  // w = 0.5
    {-0.5f, 0.75f},  {-0.25f, 1.5f},  // w = 0.75
    {-1.0f, 0.5f},   {-1.0f, 1.5f},   // w = 1: (-0.5, 2) -> (-1, 0.5), (0.5, 2) -> (-1, 1.5)
};

TEST(Cli, PoseSimpleSkinWorkedByHand) {
  const std::string file = asset("khronos/SimpleSkin.gltf");
  {  // Rest pose: the file's positions, clip null.
    const CommandResult r = vatkit_cli("pose " + file);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json pose = json::parse(r.out);
    EXPECT_TRUE(pose["clip"].is_null());
    ASSERT_EQ(pose["primitives"].size(), 1u);
    EXPECT_EQ(pose["primitives"][0]["node"], 0);
    EXPECT_EQ(pose["primitives"][0]["mesh"], 0);
    EXPECT_EQ(pose["primitives"][0]["primitive"], 0);
    const std::vector<float> p = positions_of(pose["primitives"][0]);
    ASSERT_EQ(p.size(), 30u);
    for (int v = 0; v < 10; ++v) {
      EXPECT_EQ(p[3 * v], v % 2 ? 0.5f : -0.5f);
      EXPECT_EQ(p[3 * v + 1], 0.5f * (v / 2));
      EXPECT_EQ(p[3 * v + 2], 0.0f);
    }
  }
  {  // t = 1 s on the unnamed clip #0. The key quaternion is 0.707 rather than sqrt(1/2), so
     // allow the 3e-4 that costs.
    const CommandResult r = vatkit_cli("pose " + file + " --clip '#0' --time 1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json pose = json::parse(r.out);
    EXPECT_EQ(pose["clip"], "#0");
    EXPECT_EQ(pose["time"], 1.0);
    const std::vector<float> p = positions_of(pose["primitives"][0]);
    ASSERT_EQ(p.size(), 30u);
    for (int v = 0; v < 10; ++v) {
      EXPECT_NEAR(p[3 * v], kSimpleSkinAtOneSecond[v][0], 1e-3f) << "vertex " << v;
      EXPECT_NEAR(p[3 * v + 1], kSimpleSkinAtOneSecond[v][1], 1e-3f) << "vertex " << v;
      EXPECT_NEAR(p[3 * v + 2], 0.0f, 1e-6f);
    }
  }
  {  // t = 0.25 s, halfway from identity to 45 degrees: 22.5 degrees. Vertex 8 (-0.5, 2), all
     // joint 1: R22.5 (-0.5, 1) + (0, 1).
    const CommandResult r = vatkit_cli("pose " + file + " -c '#0' -t 0.25");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<float> p = positions_of(json::parse(r.out)["primitives"][0]);
    const double a = M_PI / 8.0;
    EXPECT_NEAR(p[24], -0.5 * std::cos(a) - 1.0 * std::sin(a), 1e-3);
    EXPECT_NEAR(p[25], -0.5 * std::sin(a) + 1.0 * std::cos(a) + 1.0, 1e-3);
  }
}

TEST(Cli, PoseOutputFileEqualsStdoutAndRoundTripsTheEvaluatorExactly) {
  const fs::path dir = test::scratch_dir("cli_pose");
  const fs::path out = dir / "walk.json";
  const CommandResult to_stdout = vatkit_cli("pose --clip walk --time 0.3");
  const CommandResult to_file = vatkit_cli("pose --clip '#1' --time 0.3 -o " + shell_quote(out.string()));
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_TRUE(to_file.out.empty());
  const std::vector<uint8_t> bytes = test::read_file(out);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), to_stdout.out) << "#1 and walk differ";

  const json pose = json::parse(to_stdout.out);
  EXPECT_EQ(pose["clip"], "walk");
  Result<Asset> sample = load_sample_character();
  ASSERT_TRUE(sample.ok()) << sample.error().message;
  SceneEvaluator evaluator(*sample);
  evaluator.pose(1, 0.3f);
  std::vector<glm::vec3> expected(sample->instance_vertex_count);
  evaluator.skin(expected);
  ASSERT_EQ(pose["primitives"].size(), sample->instances.size());
  for (size_t i = 0; i < sample->instances.size(); ++i) {
    const MeshInstance& instance = sample->instances[i];
    const json& prim = pose["primitives"][i];
    EXPECT_EQ(prim["node"], instance.node);
    EXPECT_EQ(prim["mesh"], instance.mesh);
    EXPECT_EQ(prim["primitive"], instance.primitive);
    const std::vector<float> p = positions_of(prim);
    ASSERT_EQ(p.size(), 3u * instance.vertex_count);
    for (uint32_t v = 0; v < instance.vertex_count; ++v) {
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(p[3 * v + c], expected[instance.first_vertex + v][c]) << "vertex " << v;
      }
    }
  }
}

TEST(Cli, PoseListsOnlyTheFilesVertices) {
  // A cube without normals gets flat normals: the importer appends vertex copies, which pose
  // must not report.
  const fs::path dir = test::scratch_dir("cli_pose_flat");
  const fs::path file = dir / "cube.gltf";
  {
    std::vector<float> positions;
    for (int k = 0; k < 8; ++k) {
      positions.insert(positions.end(), {float(k & 1), float((k >> 1) & 1), float((k >> 2) & 1)});
    }
    const std::vector<uint16_t> indices = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                           2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    std::string data(reinterpret_cast<const char*>(positions.data()), positions.size() * 4);
    data.append(reinterpret_cast<const char*>(indices.data()), indices.size() * 2);
    static const char* b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string encoded;
    for (size_t i = 0; i < data.size(); i += 3) {
      uint32_t n = uint8_t(data[i]) << 16;
      if (i + 1 < data.size()) n |= uint8_t(data[i + 1]) << 8;
      if (i + 2 < data.size()) n |= uint8_t(data[i + 2]);
      encoded += b64[(n >> 18) & 63];
      encoded += b64[(n >> 12) & 63];
      encoded += i + 1 < data.size() ? b64[(n >> 6) & 63] : '=';
      encoded += i + 2 < data.size() ? b64[n & 63] : '=';
    }
    const json gltf = {
        {"asset", {{"version", "2.0"}}},
        {"buffers", {{{"byteLength", data.size()}, {"uri", "data:application/octet-stream;base64," + encoded}}}},
        {"bufferViews", {{{"buffer", 0}, {"byteLength", 96}}, {{"buffer", 0}, {"byteOffset", 96}, {"byteLength", 72}}}},
        {"accessors",
         {{{"bufferView", 0},
           {"componentType", 5126},
           {"count", 8},
           {"type", "VEC3"},
           {"min", {0, 0, 0}},
           {"max", {1, 1, 1}}},
          {{"bufferView", 1}, {"componentType", 5123}, {"count", 36}, {"type", "SCALAR"}}}},
        {"meshes", {{{"primitives", {{{"attributes", {{"POSITION", 0}}}, {"indices", 1}}}}}}},
        {"nodes", {{{"mesh", 0}, {"translation", {10, 0, 0}}}}},
        {"scenes", {{{"nodes", {0}}}}},
        {"scene", 0}};
    std::ofstream(file) << gltf.dump();
  }
  const CommandResult r = vatkit_cli("pose " + shell_quote(file.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<float> p = positions_of(json::parse(r.out)["primitives"][0]);
  ASSERT_EQ(p.size(), 24u) << "flat-normal copies leaked into the output";
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(p[3 * k], 10.0f + float(k & 1));  // the node's translation applies
    EXPECT_EQ(p[3 * k + 1], float((k >> 1) & 1));
    EXPECT_EQ(p[3 * k + 2], float((k >> 2) & 1));
  }
}

TEST(Cli, BadInputGivesOneErrorLineAndNoOutputFile) {
  const fs::path dir = test::scratch_dir("cli_errors");
  const fs::path out = dir / "out.json";
  const std::string o = " -o " + shell_quote(out.string());

  const fs::path missing = dir / "missing.glb";
  expect_one_error_line(vatkit_cli("pose " + shell_quote(missing.string()) + o), "missing.glb");
  expect_one_error_line(vatkit_cli("info " + shell_quote(missing.string())), "missing.glb");

  const CommandResult bad_clip = vatkit_cli("pose --clip jog" + o);
  expect_one_error_line(bad_clip, "jog");
  EXPECT_NE(bad_clip.err.find("idle, walk, run"), std::string::npos) << bad_clip.err;
  expect_one_error_line(vatkit_cli("pose " + asset("khronos/Fox.glb") + " --clip walk" + o), "Survey, Walk, Run");
  expect_one_error_line(vatkit_cli("pose --clip '#3'" + o), "#3");
  expect_one_error_line(vatkit_cli("pose --clip '#-1'" + o), "#-1");
  expect_one_error_line(vatkit_cli("pose --clip walk --time nan" + o), "--time");
  expect_one_error_line(vatkit_cli("pose --clip walk --time soon" + o), "--time");
  expect_one_error_line(vatkit_cli("pose " + asset("khronos/AnimatedMorphCube.glb") + " --clip x" + o),
                        "AnimatedMorphCube.glb: ");

  const fs::path garbage = dir / "garbage.glb";
  {
    std::string noise(4096, '\0');
    for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 7919u + 13u) % 251u);
    std::ofstream(garbage, std::ios::binary) << noise;
  }
  expect_one_error_line(vatkit_cli("pose " + shell_quote(garbage.string()) + o), "garbage.glb: ");
  expect_one_error_line(vatkit_cli("info " + shell_quote(garbage.string())), "garbage.glb: ");

  // The sample cut short: a GLB whose chunks run past its end.
  const fs::path truncated = dir / "truncated.glb";
  {
    const std::vector<uint8_t> bytes = sample_character_glb();
    std::ofstream(truncated, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() / 2));
  }
  expect_one_error_line(vatkit_cli("pose " + shell_quote(truncated.string()) + o), "truncated.glb: ");

  // Command-line mistakes.
  expect_one_error_line(vatkit_cli(""), "command");
  expect_one_error_line(vatkit_cli("bake-everything"), "bake-everything");
  expect_one_error_line(vatkit_cli("sample"), "--output");
  expect_one_error_line(vatkit_cli("info --frobnicate"), "--frobnicate");

  EXPECT_FALSE(fs::exists(out)) << "a failed command wrote its output";

  // An output directory that does not exist: the error names the output.
  const fs::path nowhere = dir / "no_such_dir" / "sample.glb";
  expect_one_error_line(vatkit_cli("sample -o " + shell_quote(nowhere.string())), "no_such_dir");
  EXPECT_FALSE(fs::exists(nowhere.parent_path()));

  // A failed command leaves an existing output file as it was.
  std::ofstream(out) << "previous";
  expect_one_error_line(vatkit_cli("pose --clip jog" + o), "jog");
  const std::vector<uint8_t> kept = test::read_file(out);
  EXPECT_EQ(std::string(kept.begin(), kept.end()), "previous");

  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 3u) << "only garbage.glb, truncated.glb and out.json belong here";
}

}  // namespace
}  // namespace vatkit

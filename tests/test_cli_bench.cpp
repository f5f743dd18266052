// `vatkit bench` as a program, in a tiny configuration so that the benchmark cannot rot: every
// variant measured for every N with finite positive times; the triangles drawn add up (exactly
// N x the mesh without culling); the table on stdout and the JSON hold the same rows; the live
// skinning baseline computes what the reference skinner computes (what makes the comparison
// honest) and what the rig VAT decodes, within the bake's error; a .vat.glb input measures its own
// encoding and the floor and says why the rest is skipped; a crowd over the GPU's buffer texture
// limit is an error row, not a crash; bad options give one "vatkit: error:" line. Times are only
// checked to be finite and positive, never against a bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "test_support.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::CommandResult;
using test::expect_one_error_line;
using test::shell_quote;
using test::vatkit_gl_cli;

json read_json(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << path << ": " << text.str();
  return doc;
}

// The table's data lines: (N, variant) -> the whitespace-separated fields after them.
std::map<std::pair<uint64_t, std::string>, std::vector<std::string>> table_rows(const std::string& out) {
  std::map<std::pair<uint64_t, std::string>, std::vector<std::string>> rows;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    uint64_t n = 0;
    std::string variant;
    if (!(fields >> n >> variant)) continue;  // headers and notes do not start with a number
    std::vector<std::string> rest;
    for (std::string f; fields >> f;) rest.push_back(f);
    rows[{n, variant}] = rest;
  }
  return rows;
}

const std::vector<std::string> kVariants = {"static",    "rig",       "rig-decode", "delta-f32",
                                            "delta-f16", "delta-q16", "live"};

void expect_measured(const json& row) {
  for (const char* key : {"gpu_ms_median", "cpu_ms_median", "gpu_ms_p95", "frame_ms"}) {
    ASSERT_TRUE(row.contains(key)) << row.dump();
    const double v = row[key].get<double>();
    EXPECT_TRUE(std::isfinite(v) && v > 0.0) << key << " = " << v << " in " << row.dump();
  }
  EXPECT_GE(row["gpu_ms_p95"].get<double>(), row["gpu_ms_median"].get<double>());
  EXPECT_EQ(row["frame_ms"].get<double>(),
            std::max(row["gpu_ms_median"].get<double>(), row["cpu_ms_median"].get<double>()));
}

// Every variant for every N, in the table and in the JSON, with the same numbers; returns the
// JSON rows keyed like the table.
std::map<std::pair<uint64_t, std::string>, json> check_rows(const CommandResult& r, const json& doc,
                                                            const std::vector<uint64_t>& counts,
                                                            const std::vector<std::string>& variants, uint32_t frames) {
  std::map<std::pair<uint64_t, std::string>, json> by_key;
  const bool has_static = std::find(variants.begin(), variants.end(), "static") != variants.end();
  const bool has_live = std::find(variants.begin(), variants.end(), "live") != variants.end();
  const auto table = table_rows(r.out);
  EXPECT_EQ(table.size(), counts.size() * variants.size()) << r.out;
  EXPECT_EQ(doc["rows"].size(), counts.size() * variants.size()) << doc.dump();
  for (const json& row : doc["rows"])
    by_key[{row["instances"].get<uint64_t>(), row["variant"].get<std::string>()}] = row;
  for (uint64_t n : counts) {
    for (const std::string& v : variants) {
      SCOPED_TRACE("N=" + std::to_string(n) + " " + v);
      const auto found = by_key.find({n, v});
      EXPECT_NE(table.find({n, v}), table.end()) << r.out;
      if (found == by_key.end()) {
        ADD_FAILURE() << "no JSON row";
        continue;
      }
      const json& row = found->second;
      expect_measured(row);
      EXPECT_EQ(row["gpu_ms"].size(), frames);
      EXPECT_EQ(row["cpu_ms"].size(), frames);
      const double per_instance = row["triangles_per_instance"].get<double>();
      EXPECT_GT(per_instance, 0.0);
      const double triangles = row["triangles"].get<double>();
      EXPECT_GT(triangles, 0.0);
      EXPECT_LE(triangles, double(n) * per_instance * 2.0) << "more than a camera and a shadow pass of every instance";
      // The table shows the JSON's numbers (its millions of triangles with 3 decimals).
      const auto t = table.find({n, v});
      if (t != table.end() && t->second.size() >= 5) {
        EXPECT_NEAR(std::stod(t->second[4]), triangles / 1e6, 0.0006) << r.out;
      }
      if (v == "static") {
        EXPECT_DOUBLE_EQ(row["vs_static"].get<double>(), 1.0);
      }
      EXPECT_EQ(row["vs_static"].is_null(), !has_static) << "static measured at the same N";
      EXPECT_EQ(row["vs_live"].is_null(), !has_live) << "live measured at the same N";
    }
  }
  return by_key;
}

TEST(CliBench, TinyRunMeasuresEveryVariantForEveryN) {
  const fs::path dir = test::scratch_dir("bench_cli_tiny");
  const fs::path out = dir / "out.json";
  const CommandResult r = vatkit_gl_cli("bench --instances 16,64 --frames 3 --warmup 1 --size 96x64 --lods 0 --json " +
                                        shell_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU timer: "), std::string::npos) << "the timer method is printed: " << r.out;
  EXPECT_NE(r.err.find("bench: N=64 live"), std::string::npos) << "progress goes to stderr: " << r.err;
  const json doc = read_json(out);
  ASSERT_TRUE(doc.is_object());
  for (const char* key : {"renderer", "vendor", "version", "cpu_threads"}) {
    EXPECT_TRUE(doc["machine"].contains(key)) << doc["machine"].dump();
  }
  EXPECT_NE(doc["command"].get<std::string>().find("bench --instances 16,64"), std::string::npos) << doc["command"];
  EXPECT_FALSE(doc["date"].get<std::string>().empty());
  EXPECT_FALSE(doc["gpu_timer"].get<std::string>().empty());
  EXPECT_TRUE(doc["culling"].get<bool>());
  const auto rows = check_rows(r, doc, {16, 64}, kVariants, 3);
  // The VAT variants draw from the pose cache (every visible instance in it); rig-decode has none.
  for (uint64_t n : {16u, 64u}) {
    for (const char* v : {"rig", "delta-f32", "delta-f16", "delta-q16"}) {
      const json& stats = rows.at({n, v})["culling_stats"];
      EXPECT_GT(stats["visible"].get<uint64_t>(), 0u) << v << stats.dump();
      EXPECT_EQ(stats["cached"], stats["visible"]) << v << stats.dump();
      EXPECT_EQ(stats["cache_capacity"].get<uint64_t>(), n) << v << stats.dump();
    }
    EXPECT_EQ(rows.at({n, "rig-decode"})["culling_stats"]["cache_capacity"], 0) << "the cache is off";
    EXPECT_EQ(rows.at({n, "static"})["culling_stats"]["cache_capacity"], 0) << "a static pose has nothing to cache";
  }
}

TEST(CliBench, WithoutCullingEveryVariantDrawsEveryTriangle) {
  const fs::path dir = test::scratch_dir("bench_cli_no_culling");
  const fs::path out = dir / "out.json";
  const CommandResult r = vatkit_gl_cli(
      "bench --instances 5,150 --frames 2 --warmup 0 --size 64x48 --lods 0 "
      "--no-culling --json " +
      shell_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = read_json(out);
  EXPECT_FALSE(doc["culling"].get<bool>());
  const auto rows = check_rows(r, doc, {5, 150}, kVariants, 2);
  std::set<double> per_instance;
  for (const auto& [key, row] : rows) {
    SCOPED_TRACE(row.dump());
    // Shadows are off: one pass, every instance, the full mesh.
    EXPECT_EQ(row["triangles"].get<double>(), double(key.first) * row["triangles_per_instance"].get<double>());
    EXPECT_EQ(row["triangles_from"], "submitted");
    per_instance.insert(row["triangles_per_instance"].get<double>());
  }
  EXPECT_EQ(per_instance.size(), 1u) << "every variant draws the same mesh";
}

// What makes the live baseline honest: the live path's vertex shader, fed with this frame's
// palettes, puts every vertex where the reference skinner does (to float rounding), and where the
// rig VAT decodes it to within the rig f16 bake's own measured error (the rig interpolates rows
// baked at 30 per second; live samples the clip at the exact time).
TEST(CliBench, LiveSkinningMatchesTheReferenceAndTheRigDecode) {
  const fs::path dir = test::scratch_dir("bench_cli_live_check");
  // The bake the bench makes for `live`, with its error report.
  const CommandResult baked = vatkit_gl_cli("bake --encoding rig --precision f16 --lods 0 --json -o " +
                                            shell_quote((dir / "rig.vat.glb").string()));
  ASSERT_EQ(baked.exit_code, 0) << baked.err;
  const json summary = json::parse(baked.out, nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << baked.out;
  double bake_error_m = 0.0;
  for (const json& clip : summary["clips"]) {
    bake_error_m = std::max({bake_error_m, clip["error"]["on_rows_max_mm"].get<double>() / 1000.0,
                             clip["error"]["between_rows_max_mm"].get<double>() / 1000.0});
  }
  ASSERT_GT(bake_error_m, 0.0);

  const fs::path out = dir / "out.json";
  const CommandResult r = vatkit_gl_cli(
      "bench --instances 16 --variants live --frames 1 --warmup 0 --size 32x32 "
      "--lods 0 --verify-live --json " +
      shell_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("live check: 16 instances"), std::string::npos) << r.out;
  const json doc = read_json(out);
  ASSERT_TRUE(doc.contains("live_check")) << doc.dump();
  const json& check = doc["live_check"];
  const double extent = check["world_extent"].get<double>();
  EXPECT_GT(extent, 0.5) << "the crowd spans metres";
  // Float rounding of world positions a few metres from the origin: about 1e-6 m.
  EXPECT_LE(check["max_vs_reference"].get<double>(), 2e-5 * std::max(1.0, extent)) << check.dump();
  // The bake measured 3 times between rows; 16 instances at 3 clock times fall anywhere in a
  // row interval, hence the margin. A wrong slot, palette or weight would be off by centimetres
  // to metres.
  EXPECT_LE(check["max_vs_rig"].get<double>(), 1.5 * bake_error_m) << check.dump();
  EXPECT_GT(check["max_vs_rig"].get<double>(), 0.0) << "the rig decode interpolates rows: never bit-identical";
}

TEST(CliBench, AVatFileMeasuresItsOwnEncodingAndSaysWhyNotTheRest) {
  const fs::path dir = test::scratch_dir("bench_cli_vat_file");
  const fs::path vat = dir / "sample.vat.glb";
  const CommandResult baked =
      vatkit_gl_cli("bake --encoding delta --precision q16 --lods 0 -o " + shell_quote(vat.string()));
  ASSERT_EQ(baked.exit_code, 0) << baked.err;
  const fs::path out = dir / "out.json";
  const CommandResult r =
      vatkit_gl_cli("bench " + shell_quote(vat.string()) + " --instances 8 --frames 1 --warmup 0 --size 32x32 --json " +
                    shell_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("skipping live: live skinning needs the source glTF"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("skipping rig"), std::string::npos) << r.err;
  const json doc = read_json(out);
  check_rows(r, doc, {8}, {"static", "delta-q16"}, 1);

  // A rig file measures both ways of drawing it.
  const fs::path rig = dir / "sample_rig.vat.glb";
  ASSERT_EQ(vatkit_gl_cli("bake --encoding rig --precision f16 --lods 0 -o " + shell_quote(rig.string())).exit_code, 0);
  const fs::path rig_out = dir / "rig.json";
  const CommandResult rr = vatkit_gl_cli("bench " + shell_quote(rig.string()) +
                                         " --instances 8 --frames 1 --warmup 0 "
                                         "--size 32x32 --variants static,rig,rig-decode,delta-f16 --json " +
                                         shell_quote(rig_out.string()));
  ASSERT_EQ(rr.exit_code, 0) << rr.err;
  EXPECT_NE(rr.err.find("skipping delta-f16"), std::string::npos) << rr.err;
  check_rows(rr, read_json(rig_out), {8}, {"static", "rig", "rig-decode"}, 1);
}

TEST(CliBench, ACrowdOverTheBufferTextureLimitIsAnErrorRow) {
  const fs::path dir = test::scratch_dir("bench_cli_limit");
  const fs::path out = dir / "out.json";
  // 40M instances x 6 playback texels is over 2^27, the limit of llvmpipe and NVIDIA alike.
  const CommandResult r = vatkit_gl_cli(
      "bench --instances 4,40000k --variants rig --frames 1 --warmup 0 --size 32x32 "
      "--lods 0 --no-culling --json " +
      shell_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("N=40000000 rig: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("buffer texture limit"), std::string::npos) << r.err;
  const json doc = read_json(out);
  ASSERT_EQ(doc["rows"].size(), 2u) << doc.dump();
  expect_measured(doc["rows"][0]);
  EXPECT_EQ(doc["rows"][1]["instances"], 40000000);
  EXPECT_TRUE(doc["rows"][1].contains("error")) << doc.dump();
  EXPECT_NE(r.out.find("error:"), std::string::npos) << "the table shows the failed row: " << r.out;
}

TEST(CliBench, BadOptionsGiveOneErrorLine) {
  expect_one_error_line(vatkit_gl_cli("bench --instances 10x"), "'10x' is not a count");
  expect_one_error_line(vatkit_gl_cli("bench --instances 0"), "'0' is not a count");
  expect_one_error_line(vatkit_gl_cli("bench --instances 5000M"), "is not a count");
  expect_one_error_line(vatkit_gl_cli("bench --variants rig,skinned"), "unknown variant 'skinned'");
  expect_one_error_line(vatkit_gl_cli("bench --size 0x64"), "--size 0x64");
  expect_one_error_line(vatkit_gl_cli("bench --frames 0"), "--frames: Value 0 not in range 1 to 10000", 2);
  expect_one_error_line(vatkit_gl_cli("bench --camera drone"), "--camera");
  expect_one_error_line(vatkit_gl_cli("bench --json /nonexistent-dir/x.json"), "is not a directory");
}

}  // namespace
}  // namespace vatkit

// `vatkit bake` on several files or a manifest (a batch): each asset's file is byte for byte what a
// single bake with the same options writes, whatever --jobs; a manifest's per-asset options
// override the command line's; a failing asset is named and the others are written; --max-bytes
// exits 4 naming the file over it; a bad manifest is one line naming it and the asset.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

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
using test::vatkit_cli;

std::string quoted(const fs::path& path) { return shell_quote(path.string()); }

// Options that keep these bakes fast: the files' bytes are what is compared, not their levels or
// errors.
const std::string kFast = " --lods 0 --no-measure --encoding delta";

// `vatkit ARGUMENTS` run in `dir`.
CommandResult vatkit_in(const fs::path& dir, const std::string& arguments) {
  return test::run_command("cd " + quoted(dir) + " && " + shell_quote(VATKIT_CLI) + " " + arguments);
}

// A scratch folder holding the built-in sample as sample.glb.
fs::path dir_with_sample(const std::string& name) {
  const fs::path dir = test::scratch_dir(name);
  const CommandResult r = vatkit_cli("sample -o " + quoted(dir / "sample.glb"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

std::string fox() { return quoted(test::asset_path("khronos/Fox.glb")); }

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// The line of `table` that contains `text` ("" when none).
std::string line_with(const std::string& table, const std::string& text) {
  const size_t at = table.find(text);
  if (at == std::string::npos) return "";
  const size_t begin = table.rfind('\n', at) + 1;  // npos + 1 = 0 on the first line
  return table.substr(begin, table.find('\n', at) - begin);
}

TEST(CliBakeBatch, SeveralInputsGiveTheSingleBakesBytesWithAnyJobCount) {
  const fs::path dir = dir_with_sample("cli_bake_batch_inputs");
  for (const char* name : {"sample", "Fox"}) {
    const std::string input = std::string(name) == "sample" ? "sample.glb" : fox();
    const CommandResult single = vatkit_in(dir, "bake " + input + " -o single_" + name + ".vat.glb" + kFast);
    ASSERT_EQ(single.exit_code, 0) << single.err;
  }
  for (const char* jobs : {"1", "2"}) {
    const std::string out = std::string("out") + jobs;
    const CommandResult r =
        vatkit_in(dir, "bake sample.glb " + fox() + " --output-dir " + out + " --jobs " + jobs + kFast);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << "no progress display when stderr is not a terminal: " << r.err;
    EXPECT_NE(r.out.find("baked 2 assets, " + std::string(jobs) + " at a time: 2 ok, 0 over budget, 0 failed"),
              std::string::npos)
        << r.out;
    for (const char* name : {"sample", "Fox"}) {
      const fs::path file = dir / out / (std::string(name) + ".vat.glb");
      ASSERT_TRUE(fs::exists(file)) << file;
      EXPECT_EQ(test::read_file(file), test::read_file(dir / ("single_" + std::string(name) + ".vat.glb")))
          << file << " differs from the single bake";
      // The asset's row: its output, encoding, precision, bytes and status.
      const std::string row = line_with(r.out, (fs::path(out) / (std::string(name) + ".vat.glb")).string());
      for (const std::string& text :
           {std::string("delta"), std::string("f32"), std::to_string(fs::file_size(file)), std::string(" ok")}) {
        EXPECT_NE(row.find(text), std::string::npos) << "missing " << text << " in " << row;
      }
    }
  }
  // --output with several inputs is a usage error, and nothing is baked.
  const CommandResult both = vatkit_in(dir, "bake sample.glb " + fox() + " -o x.vat.glb" + kFast);
  expect_one_error_line(both, "--output-dir", 2);
  EXPECT_FALSE(fs::exists(dir / "x.vat.glb"));
}

TEST(CliBakeBatch, OneProgressLineOnATerminal) {
  if (test::run_command("command -v script").exit_code != 0) {
    GTEST_SKIP() << "script (util-linux) is not installed: cannot give the command a terminal";
  }
  const fs::path dir = dir_with_sample("cli_bake_batch_progress");
  // script gives the command a pseudo-terminal for stderr; stdout goes to a file.
  const std::string command = "cd " + quoted(dir) + " && " + shell_quote(VATKIT_CLI) + " bake sample.glb " + fox() +
                              " --output-dir out" + kFast + " >table.txt";
  const CommandResult r = test::run_command("script -qec " + shell_quote(command) + " /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* text : {"\r[0/2 done] | ", "Fox.glb bake ", "sample.glb bake ", "\r[2/2 done]"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << "missing " << text << " in " << r.out;
  }
  EXPECT_EQ(r.out.find('\n'), std::string::npos) << "one line, redrawn: " << r.out;
  EXPECT_EQ(r.out.back(), '\r') << "the line is erased at the end";
  const std::vector<uint8_t> table = test::read_file(dir / "table.txt");
  EXPECT_EQ(std::string(table.begin(), table.end()).find('\r'), std::string::npos) << "no progress on stdout";
}

TEST(CliBakeBatch, ManifestOptionsOverrideTheCommandLine) {
  const fs::path dir = dir_with_sample("cli_bake_batch_manifest");
  // The command line says f16; the sample's options say q16, Fox's say --fps 24 (f16 still).
  const CommandResult a = vatkit_in(dir, "bake sample.glb -o single_q16.vat.glb --precision q16" + kFast);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CommandResult b = vatkit_in(dir, "bake " + fox() + " -o single_fps24.vat.glb --precision f16 --fps 24" + kFast);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // Paths relative to the manifest's folder; the command runs elsewhere.
  write_text(dir / "assets.json",
             "{\"assets\": [{\"file\": \"sample.glb\", \"options\": [\"--precision\", \"q16\"]},\n"
             "  {\"file\": " +
                 json(test::asset_path("khronos/Fox.glb").string()).dump() +
                 ", \"output\": \"m/fox.vat.glb\", \"options\": [\"--fps\", \"24\"]}]}\n");
  fs::create_directories(dir / "run");
  const CommandResult r =
      vatkit_in(dir / "run", "bake --manifest ../assets.json --precision f16 --json --output-dir o" + kFast);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(dir / "run/o/sample.vat.glb"), test::read_file(dir / "single_q16.vat.glb"));
  EXPECT_EQ(test::read_file(dir / "m/fox.vat.glb"), test::read_file(dir / "single_fps24.vat.glb"));
  EXPECT_NE(test::read_file(dir / "run/o/sample.vat.glb").size(), 0u);

  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_array() && doc.size() == 2) << r.out;
  EXPECT_EQ(doc[0]["status"], "ok");
  EXPECT_TRUE(doc[0]["error"].is_null());
  EXPECT_EQ(doc[0]["summary"]["precision"], "q16");
  EXPECT_EQ(doc[1]["summary"]["precision"], "f16");
  EXPECT_EQ(doc[1]["summary"]["file_bytes"].get<uint64_t>(), fs::file_size(dir / "m/fox.vat.glb"));
  for (const json& clip : doc[1]["summary"]["clips"]) {
    // The exact row rate of a clip of D seconds at nominal 24 fps: (round(24 D) + 1 - 1) / D.
    EXPECT_NEAR(clip["fps"].get<double>(), 24.0, 24.0 / clip["rows"].get<double>()) << clip;
  }
}

TEST(CliBakeBatch, AFailingAssetIsNamedAndTheOthersAreWritten) {
  const fs::path dir = dir_with_sample("cli_bake_batch_failure");
  const CommandResult r = vatkit_in(dir, "bake sample.glb missing.glb --output-dir out" + kFast);
  expect_one_error_line(r, "1 of 2 assets failed", 1, /*report_on_stdout=*/true);
  EXPECT_NE(r.err.find("missing.glb"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out/sample.vat.glb"));
  EXPECT_FALSE(fs::exists(dir / "out/missing.vat.glb"));
  const std::string row = line_with(r.out, "missing.glb");
  EXPECT_NE(row.find("failed: missing.glb"), std::string::npos) << r.out;
  EXPECT_NE(line_with(r.out, "out/sample.vat.glb").find(" ok"), std::string::npos) << r.out;
}

TEST(CliBakeBatch, MaxBytesExitsFourNamingTheFileOverIt) {
  const fs::path dir = dir_with_sample("cli_bake_batch_budget");
  const CommandResult first = vatkit_in(dir, "bake sample.glb " + fox() + " --output-dir out" + kFast);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const uint64_t sample = fs::file_size(dir / "out/sample.vat.glb"), fox_bytes = fs::file_size(dir / "out/Fox.vat.glb");
  ASSERT_NE(sample, fox_bytes);
  const uint64_t budget = (sample + fox_bytes) / 2;
  const std::string over = sample > fox_bytes ? "sample" : "Fox", under = sample > fox_bytes ? "Fox" : "sample";
  fs::remove_all(dir / "out");
  const CommandResult r =
      vatkit_in(dir, "bake sample.glb " + fox() + " --output-dir out --max-bytes " + std::to_string(budget) + kFast);
  expect_one_error_line(r,
                        "out/" + over + ".vat.glb: " + std::to_string(std::max(sample, fox_bytes)) +
                            " B, over --max-bytes " + std::to_string(budget),
                        4, /*report_on_stdout=*/true);
  EXPECT_NE(line_with(r.out, "out/" + over + ".vat.glb").find("over budget"), std::string::npos) << r.out;
  EXPECT_NE(line_with(r.out, "out/" + under + ".vat.glb").find(" ok"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir / ("out/" + over + ".vat.glb"))) << "a file over budget is still written";

  // One input: its full table, the file written, exit 4.
  const CommandResult one = vatkit_in(dir, "bake sample.glb -o one.vat.glb --max-bytes 1" + kFast);
  expect_one_error_line(one, "one.vat.glb: " + std::to_string(fs::file_size(dir / "one.vat.glb")), 4, true);
  EXPECT_NE(one.out.find("in planes; file "), std::string::npos) << one.out;
}

TEST(CliBakeBatch, ABadManifestIsOneLineNamingItAndTheAsset) {
  const fs::path dir = dir_with_sample("cli_bake_batch_bad_manifest");
  struct Case {
    std::string text, must_contain;
  };
  const std::vector<Case> cases = {
      {R"({"assets": [{"file": "sample.glb"}, {"file": "sample.glb", "precision": "q16"}]})",
       "bad.json: assets[1]: unknown key \"precision\""},
      {R"({"assets": [{"file": "sample.glb", "options": ["--precision", "q17"]}]})",
       "bad.json: assets[0]: --precision"},
      {R"({"assets": [{"file": "sample.glb", "options": ["--bogus"]}]})", "bad.json: assets[0]: "},
      {R"({"assets": [{"file": "sample.glb", "options": ["--fps", "-3"]}]})", "bad.json: assets[0]: --fps -3"},
      {R"({"assets": [{"output": "x.vat.glb"}]})", "bad.json: assets[0]: \"file\""},
      {R"({"assets": [{"file": "sample.glb"}], "jobs": 2})", "bad.json: the document: unknown key \"jobs\""},
      {R"({"assets": [)", "bad.json: not JSON"},
  };
  for (const Case& c : cases) {
    write_text(dir / "bad.json", c.text);
    const CommandResult r = vatkit_in(dir, "bake --manifest bad.json --output-dir out" + kFast);
    expect_one_error_line(r, c.must_contain, 1);
    EXPECT_FALSE(fs::exists(dir / "out/sample.vat.glb")) << "nothing is baked: " << c.text;
  }
}

}  // namespace
}  // namespace vatkit

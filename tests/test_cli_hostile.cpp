// The command line against hostile files and values: names that would drive a terminal are shown
// escaped (vatkit/printable.h), and option values that could only exhaust the machine are refused
// with one line naming the option and its range.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "gltf_builder.h"
#include "test_support.h"
#include "vatkit/sample_character.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::CommandResult;
using test::expect_one_error_line;
using test::shell_quote;
using test::vatkit_cli;

// ESC sequence, carriage return, BEL and U+202E RIGHT-TO-LEFT OVERRIDE, and how they are shown.
const std::string kHostile = std::string("\x1b[31mred\rover\x07") +
                             "bell\xE2\x80\xAE"
                             "evil";
const std::string kShown = "\\x1b[31mred\\x0dover\\x07bell\\u{202E}evil";

// No byte that a terminal acts on (controls other than the newline ending a line, DEL, C1 as
// UTF-8) and no bidirectional control.
void expect_inert(const std::string& text, const std::string& what) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    ASSERT_FALSE((c < 0x20 && c != '\n') || c == 0x7F) << what << ": raw byte " << int(c) << " at " << i << " in "
                                                       << test::shell_quote(text.substr(i > 40 ? i - 40 : 0, 80));
    ASSERT_NE(c, 0xFF) << what;
  }
  for (const char* bidi : {"\xE2\x80\xAA", "\xE2\x80\xAB", "\xE2\x80\xAC", "\xE2\x80\xAD", "\xE2\x80\xAE",
                           "\xE2\x81\xA6", "\xE2\x81\xA7", "\xE2\x81\xA8", "\xE2\x81\xA9"}) {
    ASSERT_EQ(text.find(bidi), std::string::npos) << what << ": a raw bidirectional control";
  }
}

// The sample character's GLB with every name (clips, nodes, meshes, materials, skins, scenes)
// replaced by the hostile string and a suffix.
fs::path hostile_sample(const fs::path& dir) {
  const std::vector<uint8_t> glb = sample_character_glb();
  uint32_t json_length = 0, total = 0;
  std::memcpy(&total, glb.data() + 8, 4);
  std::memcpy(&json_length, glb.data() + 12, 4);
  json doc = json::parse(glb.begin() + 20, glb.begin() + 20 + json_length);
  std::vector<uint8_t> bin;
  if (20 + json_length + 8 <= total) {
    uint32_t bin_length = 0;
    std::memcpy(&bin_length, glb.data() + 20 + json_length, 4);
    bin.assign(glb.begin() + 20 + json_length + 8, glb.begin() + 20 + json_length + 8 + bin_length);
  }
  for (const char* array : {"animations", "nodes", "meshes", "materials", "skins", "scenes"}) {
    if (!doc.contains(array)) continue;
    for (size_t i = 0; i < doc[array].size(); ++i) {
      doc[array][i]["name"] = kHostile + array + std::to_string(i);
    }
  }
  const fs::path path = dir / "hostile.glb";
  const std::vector<uint8_t> bytes = test::GltfBuilder::glb_bytes(doc, bin);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}

TEST(CliHostileNames, TablesAndErrorsShowNamesEscaped) {
  const fs::path dir = test::scratch_dir("cli_hostile_names");
  const std::string file = shell_quote(hostile_sample(dir).string());
  const std::string vat = shell_quote((dir / "out.vat.glb").string());

  const CommandResult info = vatkit_cli("info " + file);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  expect_inert(info.out + info.err, "info");
  for (const char* array : {"animations0", "animations2", "materials0", "skins0"}) {
    EXPECT_NE(info.out.find(kShown + array), std::string::npos) << array << " in " << info.out;
  }

  const CommandResult info_json = vatkit_cli("info --json " + file);
  ASSERT_EQ(info_json.exit_code, 0) << info_json.err;
  expect_inert(info_json.out + info_json.err, "info --json");
  const json doc = json::parse(info_json.out);
  EXPECT_EQ(doc["clips"][0]["name"], kHostile + "animations0") << "JSON keeps the name, escaped as JSON";

  const CommandResult bake = vatkit_cli("bake --lods 0 " + file + " -o " + vat);
  ASSERT_EQ(bake.exit_code, 0) << bake.err;
  expect_inert(bake.out + bake.err, "bake");
  EXPECT_NE(bake.out.find(kShown + "animations0"), std::string::npos) << bake.out;

  const CommandResult info_vat = vatkit_cli("info " + vat);
  ASSERT_EQ(info_vat.exit_code, 0) << info_vat.err;
  expect_inert(info_vat.out + info_vat.err, "info VAT");
  EXPECT_NE(info_vat.out.find(kShown + "animations0"), std::string::npos) << info_vat.out;

  const CommandResult verify = vatkit_cli("verify " + file + " " + vat);
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  expect_inert(verify.out + verify.err, "verify");
  EXPECT_NE(verify.out.find(kShown + "animations0"), std::string::npos) << verify.out;
  const CommandResult verify_json = vatkit_cli("verify --json " + file + " " + vat);
  ASSERT_EQ(verify_json.exit_code, 0) << verify_json.err;
  expect_inert(verify_json.out, "verify --json");

  // A clip asked for by a hostile name: the name and the list of clips are escaped.
  const CommandResult pose = vatkit_cli("pose " + file + " --clip " + shell_quote("walk" + kHostile));
  expect_one_error_line(pose, "no clip named \"walk" + kShown + "\" (clips: " + kShown + "animations0");
  expect_inert(pose.err, "pose --clip");
  const CommandResult pose_vat = vatkit_cli("pose " + vat + " --clip " + shell_quote("walk" + kHostile));
  expect_one_error_line(pose_vat, "no clip named \"walk" + kShown + "\"");
  expect_inert(pose_vat.err, "pose VAT --clip");
  const CommandResult pose_json = vatkit_cli("pose " + file + " --clip '#0' --time 0.1");
  ASSERT_EQ(pose_json.exit_code, 0) << pose_json.err;
  expect_inert(pose_json.out, "pose");
}

// What the importer quotes from the file (here the JSON parser's "last read" of a name with a byte
// that is not UTF-8), and a file name given on the command line, are escaped in the error line.
TEST(CliHostileNames, ErrorsEscapeInvalidBytesAndFileNames) {
  const fs::path dir = test::scratch_dir("cli_hostile_errors");
  const fs::path bad = dir / "bad.gltf";
  std::ofstream(bad, std::ios::binary)
      << "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"name\": \"a\xFF\x1b[2J\"}]}";
  const CommandResult r = vatkit_cli("info " + shell_quote(bad.string()));
  expect_one_error_line(r, "bad.gltf: ");
  expect_inert(r.err, "info bad.gltf");
  EXPECT_NE(r.err.find("\\xff"), std::string::npos) << r.err;

  const std::string name = (dir / ("missing" + kHostile + ".glb")).string();
  const CommandResult missing = vatkit_cli("info " + shell_quote(name));
  expect_one_error_line(missing, "missing" + kShown + ".glb");
  expect_inert(missing.err, "info missing");
}

// ---- Option values that could only exhaust the machine ---------------------------------------

// Each refused command also carries a value that the command itself refuses later (--max-texture-size
// 0, --time inf, an output directory that does not exist): the bound must be checked before, and a
// build without it fails at once instead of starting the work.
TEST(CliLimits, ThreadsAreBounded) {
  const fs::path dir = test::scratch_dir("cli_limits_threads");
  const std::string o = " --max-texture-size 0 -o " + shell_quote((dir / "x.vat.glb").string());
  expect_one_error_line(vatkit_cli("bake --threads 2147483648" + o),
                        "--threads: Value 2147483648 not in range 0 to 256", 2);
  expect_one_error_line(vatkit_cli("bake --threads 257" + o), "--threads: Value 257 not in range 0 to 256", 2);
  expect_one_error_line(vatkit_cli("verify --threads 100000"), "--threads: Value 100000 not in range 0 to 256", 2);
  EXPECT_FALSE(fs::exists(dir / "x.vat.glb"));
  const CommandResult ok =
      vatkit_cli("bake --lods 0 --no-measure --threads 256 -o " + shell_quote((dir / "x.vat.glb").string()));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(CliLimits, RenderOptionsAreBounded) {
  const fs::path dir = test::scratch_dir("cli_limits_render");
  const std::string o = " --time inf -o " + shell_quote((dir / "x.png").string());
  expect_one_error_line(vatkit_cli("render --frames 10001" + o), "--frames: Value 10001 not in range 1 to 10000", 2);
  expect_one_error_line(vatkit_cli("render --frames 4294967295" + o),
                        "--frames: Value 4294967295 not in range 1 to 10000", 2);
  expect_one_error_line(vatkit_cli("render --instances 16777217" + o),
                        "--instances: Value 16777217 not in range 1 to 16777216", 2);
  expect_one_error_line(vatkit_cli("render --samples 1000" + o), "--samples: Value 1000 not in range 1 to 64", 2);
  expect_one_error_line(vatkit_cli("render --samples 0" + o), "--samples: Value 0 not in range 1 to 64", 2);
  expect_one_error_line(vatkit_cli("render --size 16384x16384 --samples 4" + o),
                        "render: --size 16384x16384 with --samples 4: 1073741824 samples per frame, at most 268435456");
  expect_one_error_line(
      vatkit_cli("render --fps 1e-9 --frames 2 -o " + shell_quote((dir / "no_dir" / "x.png").string())),
      "render: --fps 1e-09 with --frames 2: the last frame's time is beyond 1e7 s");
  EXPECT_FALSE(fs::exists(dir / "x.png"));
  EXPECT_FALSE(fs::exists(dir / "x-0000.png"));
}

TEST(CliLimits, BenchOptionsAreBounded) {
  const std::string o = " --json /nonexistent-dir/x.json";
  expect_one_error_line(vatkit_cli("bench --lods 1000" + o), "--lods: Value 1000 not in range 0 to 16", 2);
  expect_one_error_line(vatkit_cli("bench --frames 10001" + o), "--frames: Value 10001 not in range 1 to 10000", 2);
  expect_one_error_line(vatkit_cli("bench --warmup 1001" + o), "--warmup: Value 1001 not in range 0 to 1000", 2);
  expect_one_error_line(vatkit_cli("bench --samples 65" + o), "--samples: Value 65 not in range 1 to 64", 2);
  expect_one_error_line(vatkit_cli("bench --pose-cache-mb 17592186044416" + o),
                        "--pose-cache-mb: Value 17592186044416 not in range 0 to 65536", 2);
  expect_one_error_line(vatkit_cli("bench --instances 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17" + o),
                        "bench: --instances: 17 crowd sizes, at most 16");
  expect_one_error_line(vatkit_cli("bench --size 16384x16384 --samples 2" + o),
                        "bench: --size 16384x16384 with --samples 2: 536870912 samples per frame, at most 268435456");
}

}  // namespace
}  // namespace vatkit

// vatkit export --to babylon from the command line: what it refuses (one error line, no file left
// behind) and the shape of what it writes. The floats themselves are checked against Babylon.js's
// own baker under Node (tests/web/babylon_export.test.mjs).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "vatkit/export_babylon.h"
#include "vatkit/import.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using test::shell_quote;
using test::vatkit_cli;

bool empty_dir(const fs::path& dir) { return fs::directory_iterator(dir) == fs::directory_iterator(); }

nlohmann::json read_json(const fs::path& path) {
  const std::vector<uint8_t> bytes = test::read_file(path);
  return nlohmann::json::parse(bytes.begin(), bytes.end());
}

TEST(CliExportBabylon, HelpNamesTheTargetAndItsOptions) {
  test::expect_help_documents({"export"}, {{"export", {"--to", "babylon", "--fps", "-o,--output", "--allow-root"}}});
}

TEST(CliExportBabylon, AFileWithoutASkinIsRefused) {
  const fs::path dir = test::scratch_dir("export_babylon_no_skin");
  const fs::path horse = test::asset_path("threejs/Horse.glb");  // morph targets only
  const CommandResult r = vatkit_cli("export " + shell_quote(horse.string()) + " --to babylon -o " +
                                     shell_quote((dir / "h.json").string()));
  test::expect_one_error_line(
      r, "Horse.glb: has no skinned mesh: Babylon.js's baked vertex animation plays skeletons only", 1);
  EXPECT_TRUE(empty_dir(dir));
}

TEST(CliExportBabylon, AMissingFileIsNamed) {
  const fs::path dir = test::scratch_dir("export_babylon_missing");
  const std::string missing = (dir / "no such file.glb").string();
  const CommandResult r =
      vatkit_cli("export " + shell_quote(missing) + " --to babylon -o " + shell_quote((dir / "x.json").string()));
  test::expect_one_error_line(r, "no such file.glb", 1);
  EXPECT_TRUE(empty_dir(dir));
}

TEST(CliExportBabylon, AZeroFrameRateIsAUsageError) {
  const fs::path dir = test::scratch_dir("export_babylon_fps");
  const CommandResult r = vatkit_cli("export --to babylon --fps 0 -o " + shell_quote((dir / "x.json").string()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--fps"), std::string::npos) << r.err;
  EXPECT_TRUE(empty_dir(dir));
}

// The sample: both files, the texture's size as Babylon computes it, clips end to end, and each
// row's last slot the identity.
TEST(CliExportBabylon, TheSampleWritesTheTextureAndItsManifest) {
  const fs::path dir = test::scratch_dir("export_babylon_sample");
  const CommandResult r =
      vatkit_cli("export --to babylon --fps 30 -o " + shell_quote((dir / "sample.babylon.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bones"), std::string::npos) << r.out;
  const nlohmann::json data = read_json(dir / "sample.babylon.json");
  const nlohmann::json manifest = read_json(dir / "sample.babylon.manifest.json");
  EXPECT_EQ(manifest["vertexData"], "sample.babylon.json");
  EXPECT_EQ(manifest["fps"], 30.0);
  const int bones = manifest["bones"];
  EXPECT_EQ(bones, 22);  // the sample's joints, all under one root joint: no other bones
  EXPECT_EQ(data["width"], (bones + 1) * 4);
  const int height = data["height"];
  int row = 0;
  for (const nlohmann::json& clip : manifest["clips"]) {
    EXPECT_EQ(clip["from"], row);
    const double rows = double(clip["to"]) - double(clip["from"]) + 1.0;
    EXPECT_DOUBLE_EQ(clip["setAnimationParameters"]["speedFramesPerSecond"], 30.0 * rows / (rows - 1.0));
    row = int(clip["to"]) + 1;
  }
  EXPECT_EQ(row, height);
  const std::string base64 = data["vertexData"];
  EXPECT_EQ(base64.size(), (size_t(height) * (bones + 1) * 64 + 2) / 3 * 4);
}

// Babylon's loader gives ShibaInu's skeleton 48 bones for its 46 joints: its skin.skeleton (Body)
// is not an ancestor of the 8 IK and foot joints, which climb to the scene root through two nodes
// that are not joints (AnimalArmature, RootNode). Their slots stay zero; the identity follows.
TEST(ExportBabylon, BonesThatAreNotJointsCountAndStayZero) {
  Result<Asset> asset = import_gltf(test::asset_path("quaternius/animals/ShibaInu.glb"));
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  BabylonExportOptions options;
  options.fps = 10.0;
  Result<BabylonVat> vat = export_babylon(*asset, options);
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  EXPECT_EQ(vat->joints, 46u);
  EXPECT_EQ(vat->bones, 48u);
  const size_t row = size_t(vat->bones + 1) * 16;
  ASSERT_EQ(vat->matrices.size(), vat->rows * row);
  for (uint32_t r = 0; r < vat->rows; ++r) {
    const float* m = vat->matrices.data() + r * row;
    for (size_t i = 46 * 16; i < 48 * 16; ++i) ASSERT_EQ(m[i], 0.0f) << "row " << r << " float " << i;
    for (size_t i = 0; i < 16; ++i) ASSERT_EQ(m[48 * 16 + i], i % 5 == 0 ? 1.0f : 0.0f) << "row " << r;
  }
}

}  // namespace
}  // namespace vatkit

// `vatkit export --to openvat` and vatkit::export_openvat: the texture layout's choice, the
// refusals (one line naming the input, no file written) and where the command writes. That the
// written files decode right is tests/web/openvat_reader.py's job (an independent decoder, ctest
// web_openvat_reader).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "test_bake_util.h"
#include "vatkit/export_openvat.h"
#include "vatkit/sample_character.h"
#include "vatkit/vat_write.h"

namespace vatkit::test {
namespace {

Vat sample_vat(EncodingChoice encoding) {
  static const Result<Asset> sample = load_sample_character();
  EXPECT_TRUE(sample.ok());
  BakeOptions o = options_for(encoding);
  o.lods = 0;
  Vat vat = bake_ok(*sample, o);
  vat.source = "sample";
  return vat;
}

TEST(ExportOpenVat, LayoutIsOpenVatsNearSquarePowerOfTwo) {
  // Fox: 1728 vertices, 162 frames. 512 wide takes 4 wraps (1296 rows of positions and normals:
  // 512 x 2048), 1024 wide 2 (648 rows: 1024 x 1024), 2048 wide 1 (324 rows: 2048 x 512); only
  // 1024 x 1024 is within an octave of square.
  Result<OpenVatLayout> fox = openvat_layout(1728, 162, 8192, "fox");
  ASSERT_TRUE(fox.ok());
  EXPECT_EQ(fox->width, 1024u);
  EXPECT_EQ(fox->height, 1024u);
  EXPECT_EQ(fox->wraps, 2u);
  // Ten vertices, five frames: no near-square layout (64 x 16 is 2 octaves apart), the smallest.
  Result<OpenVatLayout> tiny = openvat_layout(10, 5, 8192, "tiny");
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->width, 64u);
  EXPECT_EQ(tiny->height, 16u);
  EXPECT_EQ(tiny->wraps, 1u);
  Result<OpenVatLayout> huge = openvat_layout(100000, 5000, 8192, "huge.glb");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code, ErrorCode::Limit);
  EXPECT_EQ(huge.error().message.rfind("huge.glb: 100000 vertices x 5000 frames do not fit", 0), 0u)
      << huge.error().message;
}

TEST(ExportOpenVat, BothEncodingsExportTheSamePoses) {
  const Result<OpenVatExport> delta = export_openvat(sample_vat(EncodingChoice::Delta), {});
  const Result<OpenVatExport> rig = export_openvat(sample_vat(EncodingChoice::Rig), {});
  ASSERT_TRUE(delta.ok() && rig.ok());
  // The same remap bounds (a tenth apart at most: the rig decodes within float rounding of the
  // delta bake, and the bounds are rounded outward to tenths).
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(delta->remap_min[a], rig->remap_min[a], 0.1001f);
    EXPECT_NEAR(delta->remap_max[a], rig->remap_max[a], 0.1001f);
  }
  EXPECT_EQ(delta->layout.width, rig->layout.width);
  const nlohmann::json sidecar = nlohmann::json::parse(delta->sidecar_json);
  EXPECT_EQ(sidecar["os-remap"]["Frames"], sample_vat(EncodingChoice::Delta).frame_rows);
  EXPECT_EQ(sidecar["animations"].size(), sample_vat(EncodingChoice::Delta).clips.size());
}

TEST(ExportOpenVat, AVatWithoutClipsIsRefused) {
  Vat vat = sample_vat(EncodingChoice::Delta);
  vat.clips.clear();
  const Result<OpenVatExport> r = export_openvat(vat, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(r.error().message, "sample: holds no clip to export");
}

TEST(CliExportOpenVat, WritesThreeFilesBesideTheInput) {
  const std::filesystem::path dir = scratch_dir("export_openvat");
  const std::filesystem::path vat = dir / "walker.vat.glb";
  ASSERT_TRUE(save_vat(sample_vat(EncodingChoice::Rig), vat).ok());
  const CommandResult r = vatkit_cli("export " + shell_quote(vat.string()) + " --to openvat");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"walker_openvat_vat.png", "walker_openvat.glb", "walker_openvat-remap_info.json"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / name)) << name << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("quantization moved a vertex by at most"), std::string::npos) << r.out;
}

TEST(CliExportOpenVat, RefusalsLeaveNoFile) {
  const std::filesystem::path dir = scratch_dir("export_openvat_refused");
  const std::filesystem::path vat = dir / "walker.vat.glb";
  ASSERT_TRUE(save_vat(sample_vat(EncodingChoice::Delta), vat).ok());
  const std::string out = (dir / "out").string();
  CommandResult r = vatkit_cli("export " + shell_quote(vat.string()) + " --to openvat --fps 60 -o " + shell_quote(out));
  expect_one_error_line(r, vat.string() + ": --fps applies to a glTF input", 1);
  // -o naming the input's own stem would write walker.vat.glb's sibling walker.vat.glb: itself.
  const std::string over = (dir / "walker.vat").string();
  r = vatkit_cli("export " + shell_quote(vat.string()) + " --to openvat -o " + shell_quote(over));
  expect_one_error_line(r, "over the input", 1);
  EXPECT_EQ(std::filesystem::file_size(vat) > 0, true);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename(), "walker.vat.glb") << "left behind: " << entry.path();
  }
}

TEST(CliExportOpenVat, HelpAndImageOption) {
  expect_help_documents({"export"}, {{"export", {"openvat", "--image", "png16", "exr16"}}});
  const std::filesystem::path dir = scratch_dir("export_openvat_image");
  const CommandResult r = vatkit_cli("export --to babylon --image exr16 -o " + shell_quote((dir / "x.json").string()));
  expect_one_error_line(r, "--image: applies to --to openvat only", 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.json"));
}

// Any glTF tool opens the mesh: the Khronos validator finds no error in it.
TEST(CliExportOpenVat, TheMeshPassesTheKhronosValidator) {
  if (run_command("command -v node").exit_code != 0) {
    GTEST_SKIP() << "node is not installed: cannot run the Khronos validator";
  }
  const std::filesystem::path dir = scratch_dir("export_openvat_validator");
  const std::string base = (dir / "fox").string();
  const CommandResult exported = vatkit_cli("export " + shell_quote(asset_path("khronos/Fox.glb").string()) +
                                            " --to openvat -o " + shell_quote(base));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const CommandResult r = run_command("node " + shell_quote(VATKIT_VALIDATOR) + " " + shell_quote(base + ".glb"));
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_EQ(report["issues"]["numErrors"], 0) << r.out.substr(0, 2000);
}

}  // namespace
}  // namespace vatkit::test

// `vatkit export --to three-vat` and vatkit::write_three_vat: what three-vat's file cannot hold is
// refused in one line naming the input, and the command writes nothing then. That a written file
// reads back right is tests/web/three_vat_reader.py's job (an independent reader, ctest
// web_three_vat_reader); these check the refusals, the command's report and where it writes.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "test_bake_util.h"
#include "vatkit/export_three_vat.h"
#include "vatkit/sample_character.h"
#include "vatkit/vat_write.h"

namespace vatkit::test {
namespace {

// The sample character baked without measuring, in `encoding`, with `lods` levels of detail.
Vat sample_vat(EncodingChoice encoding, uint32_t lods = 0) {
  static const Result<Asset> sample = load_sample_character();
  EXPECT_TRUE(sample.ok());
  BakeOptions o = options_for(encoding);
  o.lods = lods;
  Vat vat = bake_ok(*sample, o);
  vat.source = "sample";
  return vat;
}

// The refusal's message, or a failure when write_three_vat wrote the file.
std::string refusal(const Vat& vat, ErrorCode code) {
  Result<std::vector<uint8_t>> r = write_three_vat(vat);
  if (r.ok()) {
    ADD_FAILURE() << "written";
    return "";
  }
  EXPECT_EQ(r.error().code, code) << r.error().message;
  EXPECT_EQ(r.error().message.rfind("sample: cannot be written as a three-vat file: ", 0), 0u) << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  return r.error().message;
}

TEST(ExportThreeVat, LevelsOfDetailAreRefused) {
  const Vat vat = sample_vat(EncodingChoice::Delta, 2);
  ASSERT_FALSE(vat.geometry.lods.empty());
  EXPECT_NE(refusal(vat, ErrorCode::Unsupported).find("levels of detail"), std::string::npos);
}

TEST(ExportThreeVat, MoreThanFourInfluencesAreRefused) {
  Vat vat = sample_vat(EncodingChoice::Rig);
  ASSERT_EQ(vat.encoding, Encoding::Rig);
  ASSERT_TRUE(write_three_vat(vat).ok());
  const uint32_t n = vat.geometry.vertex_count();
  vat.geometry.slots1.assign(n, glm::u16vec4(0));
  vat.geometry.slot_weights1.assign(n, glm::vec4(0.0f));
  ASSERT_TRUE(write_three_vat(vat).ok()) << "a second set of zero weights is four influences";
  vat.geometry.slot_weights1[n / 2].x = 0.25f;
  const std::string message = refusal(vat, ErrorCode::Unsupported);
  EXPECT_NE(message.find("vertex " + std::to_string(n / 2) + " has more than four"), std::string::npos) << message;
}

TEST(ExportThreeVat, ADeltaPastHalfFloatIsRefused) {
  Vat vat = sample_vat(EncodingChoice::Delta);
  ASSERT_EQ(vat.precision, Precision::F32);
  const Plane* position = vat.plane(PlaneSemantic::Position);
  ASSERT_NE(position, nullptr);
  std::vector<uint8_t> bytes(position->data.begin(), position->data.end());
  // Vertex 3 of frame row 0 moves 70000 along y: a half float holds at most 65504.
  const float far = 70000.0f;
  std::memcpy(&bytes[3 * 16 + 4], &far, 4);
  for (Plane& p : vat.planes) {
    if (p.semantic == PlaneSemantic::Position) p.data = bytes;
  }
  const std::string message = refusal(vat, ErrorCode::Limit);
  EXPECT_NE(message.find("moves vertex 3 by 70000"), std::string::npos) << message;
  EXPECT_NE(message.find("65504"), std::string::npos) << message;
}

TEST(ExportThreeVat, FramesPastTheTextureCeilingAreRefused) {
  Vat vat = sample_vat(EncodingChoice::Delta);
  // Every clip listed again and again: more frames than three-vat's 16384 rows (a band writes at
  // least rows - 1 of its rows).
  const std::vector<VatClip> clips = vat.clips;
  uint32_t frames = 0;
  while (frames <= kThreeVatMaxTextureSize) {
    for (const VatClip& c : clips) {
      vat.clips.push_back(c);
      frames += c.rows - 1;
    }
  }
  EXPECT_NE(refusal(vat, ErrorCode::Limit).find("past three-vat's 16384"), std::string::npos);
}

TEST(ExportThreeVat, TheBytesDependOnTheVatOnly) {
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    const Vat vat = sample_vat(e);
    const Result<std::vector<uint8_t>> a = write_three_vat(vat), b = write_three_vat(sample_vat(e));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
  }
}

TEST(CliExportThreeVat, WritesBesideTheInputAndReportsTheError) {
  const std::filesystem::path dir = scratch_dir("export_three_vat");
  const std::filesystem::path vat = dir / "sample.vat.glb";
  ASSERT_TRUE(save_vat(sample_vat(EncodingChoice::Delta), vat).ok());
  const CommandResult r = vatkit_cli("export " + shell_quote(vat.string()) + " --to three-vat");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "sample.three-vat.glb")) << r.out;
  EXPECT_NE(r.out.find("THREEVAT_vat format version 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conversion: position components changed by at most"), std::string::npos) << r.out;
  // The VAT was baked without measuring: no error against the source to state.
  EXPECT_NE(r.out.find("error against the source: not measured"), std::string::npos) << r.out;
}

TEST(CliExportThreeVat, ARefusalLeavesNoFile) {
  const std::filesystem::path dir = scratch_dir("export_three_vat_refused");
  const std::filesystem::path vat = dir / "lods.vat.glb", out = dir / "out.glb";
  const Vat with_levels = sample_vat(EncodingChoice::Delta, 1);
  ASSERT_EQ(with_levels.geometry.lods.size(), 1u);
  ASSERT_TRUE(save_vat(with_levels, vat).ok());
  const CommandResult r =
      vatkit_cli("export " + shell_quote(vat.string()) + " --to three-vat -o " + shell_quote(out.string()));
  expect_one_error_line(r, vat.string() + ": cannot be written as a three-vat file: holds 1 level of detail", 1);
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Any glTF tool opens the file: the Khronos validator finds no error in either encoding (the rig's
// bind-space normals, which carry their part's scale in vatkit, are written unit length).
TEST(CliExportThreeVat, FilesPassTheKhronosValidator) {
  if (run_command("command -v node").exit_code != 0) {
    GTEST_SKIP() << "node is not installed: cannot run the Khronos validator";
  }
  const std::filesystem::path dir = scratch_dir("export_three_vat_validator");
  for (const char* source : {"threejs/RobotExpressive.glb", "khronos/Fox.glb"}) {
    SCOPED_TRACE(source);
    const std::filesystem::path out = dir / "out.glb";
    const CommandResult exported = vatkit_cli("export " + shell_quote(asset_path(source).string()) +
                                              " --to three-vat -o " + shell_quote(out.string()));
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    const CommandResult r = run_command("node " + shell_quote(VATKIT_VALIDATOR) + " " + shell_quote(out.string()));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    const nlohmann::json report = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(report.is_object()) << r.out;
    EXPECT_EQ(report["issues"]["numErrors"], 0) << r.out.substr(0, 2000);
  }
  // The delta encoding, from a .vat.glb.
  const std::filesystem::path vat = dir / "delta.vat.glb", out = dir / "delta.glb";
  ASSERT_TRUE(save_vat(sample_vat(EncodingChoice::Delta), vat).ok());
  ASSERT_EQ(
      vatkit_cli("export " + shell_quote(vat.string()) + " --to three-vat -o " + shell_quote(out.string())).exit_code,
      0);
  const CommandResult r = run_command("node " + shell_quote(VATKIT_VALIDATOR) + " " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000) << r.err;
}

}  // namespace
}  // namespace vatkit::test

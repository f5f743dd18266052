// `vatkit render`: a crowd PNG from the built-in sample, a glTF baked on the fly and a .vat.glb;
// sequences; one-line errors that leave no output behind. Runs the CLI headless (llvmpipe in CI).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "playback_json.h"
#include "test_gl_crowd_util.h"
#include "cli_test_support.h"
#include "test_support.h"
#include "vatkit/gl/context.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/image.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using test::expect_one_error_line;
using test::shell_quote;
using test::vatkit_gl_cli;

// The image, checked for size and for showing more than a flat background.
gl::Image expect_picture(const fs::path& path, int width, int height) {
  Result<gl::Image> image = gl::read_png(path);
  EXPECT_TRUE(image.ok()) << path << ": " << (image ? "" : image.error().message);
  if (!image) return {};
  EXPECT_EQ(image->width, width);
  EXPECT_EQ(image->height, height);
  size_t distinct_from_corner = 0;
  for (size_t i = 0; i < image->pixels.size(); i += size_t(image->channels)) {
    distinct_from_corner += image->pixels[i] != image->pixels[0] || image->pixels[i + 1] != image->pixels[1] ? 1 : 0;
  }
  EXPECT_GT(distinct_from_corner, image->pixels.size() / size_t(image->channels) / 10) << "a nearly blank picture";
  return std::move(*image);
}

TEST(GlCrowdCli, RendersTheSampleCrowd) {
  const fs::path dir = test::scratch_dir("render_cli_sample");
  const CommandResult r = vatkit_gl_cli("render --encoding rig --instances 6 --size 160x90 --seed 2 -o " +
                                        shell_quote((dir / "crowd.png").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 instances"), std::string::npos) << r.out;
  expect_picture(dir / "crowd.png", 160, 90);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "stray files";
}

// --seed and --time each change the picture; the same command line gives the same bytes.
TEST(GlCrowdCli, SeedAndTimeChangeThePictureAndRunsRepeat) {
  const fs::path dir = test::scratch_dir("render_cli_seed_time");
  auto render = [&](const std::string& options, const char* name) {
    const CommandResult r = vatkit_gl_cli("render --encoding rig --instances 6 --size 96x64 " + options + " -o " +
                                          shell_quote((dir / name).string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return expect_picture(dir / name, 96, 64);
  };
  const gl::Image base = render("--seed 1 --time 0.5", "base.png");
  const gl::Image again = render("--seed 1 --time 0.5", "again.png");
  const gl::Image seed = render("--seed 2 --time 0.5", "seed.png");
  const gl::Image time = render("--seed 1 --time 0.9", "time.png");
  EXPECT_EQ(again.pixels, base.pixels) << "the same command gave another picture";
  EXPECT_NE(seed.pixels, base.pixels) << "--seed changed nothing";
  EXPECT_NE(time.pixels, base.pixels) << "--time changed nothing";
}

// --root-motion: at the first frame every instance stands where the layout puts it (the same
// picture as without: the feet's root motion leaves the sample's rows as they are); a second later
// the walkers and runners have moved on.
TEST(GlCrowdCli, RootMotionMovesTheWalkersFromTheirPlaces) {
  const fs::path dir = test::scratch_dir("render_cli_root_motion");
  auto render = [&](const std::string& options, const char* name) {
    const CommandResult r = vatkit_gl_cli("render --encoding rig --instances 6 --size 96x64 --time 0 " + options +
                                          " -o " + shell_quote((dir / name).string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  render("", "still.png");
  render("--root-motion", "start.png");
  EXPECT_EQ(expect_picture(dir / "start.png", 96, 64).pixels, expect_picture(dir / "still.png", 96, 64).pixels);
  render("--frames 2 --fps 1", "still.png");
  render("--frames 2 --fps 1 --root-motion", "moving.png");
  EXPECT_NE(expect_picture(dir / "moving-0001.png", 96, 64).pixels,
            expect_picture(dir / "still-0001.png", 96, 64).pixels)
      << "--root-motion moved nothing";
}

TEST(GlCrowdCli, WritesASequenceThatMoves) {
  const fs::path dir = test::scratch_dir("render_cli_sequence");
  const CommandResult r =
      vatkit_gl_cli("render --encoding rig --instances 3 --size 96x64 --frames 3 --fps 8 --layout random -o " +
                    shell_quote((dir / "seq.png").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const gl::Image first = expect_picture(dir / "seq-0000.png", 96, 64);
  expect_picture(dir / "seq-0001.png", 96, 64);
  const gl::Image last = expect_picture(dir / "seq-0002.png", 96, 64);
  EXPECT_FALSE(fs::exists(dir / "seq.png"));
  EXPECT_NE(first.pixels, last.pixels) << "the crowd did not move in a quarter of a second";
}

TEST(GlCrowdCli, RendersAGltfBakedOnTheFlyAndAVatFile) {
  const fs::path dir = test::scratch_dir("render_cli_inputs");
  const CommandResult gltf = vatkit_gl_cli("render " + shell_quote(test::asset_path("khronos/Fox.glb").string()) +
                                           " --encoding rig --precision q16 --instances 2 --size 96x64 -o " +
                                           shell_quote((dir / "fox.png").string()));
  ASSERT_EQ(gltf.exit_code, 0) << gltf.err;
  EXPECT_NE(gltf.out.find("rig q16"), std::string::npos) << gltf.out;
  expect_picture(dir / "fox.png", 96, 64);

  const Vat* vat = test::test_bake({"khronos/CesiumMan.glb", Encoding::Delta, Precision::F16});
  ASSERT_NE(vat, nullptr);
  ASSERT_TRUE(save_vat(*vat, dir / "man.vat.glb").ok());
  const CommandResult file =
      vatkit_gl_cli("render " + shell_quote((dir / "man.vat.glb").string()) +
                    " --instances 4 --size 96x64 --no-shadows -o " + shell_quote((dir / "man.png").string()));
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_NE(file.out.find("delta f16"), std::string::npos) << file.out;
  expect_picture(dir / "man.png", 96, 64);
}

// --shading normals draws the view-space unit normal as n * 0.5 + 0.5 over black: with one sample
// per pixel every covered pixel decodes to a unit vector (to the 8-bit rounding), and front faces
// seen in perspective mostly face +z.
// --scene-out lists what was drawn: the camera, and per instance the world matrix and playback
// that spread_instances gives for the same file, read back exactly.
TEST(GlCrowdCli, NormalsShadingAndTheSceneItDrew) {
  const fs::path dir = test::scratch_dir("render_cli_normals");
  const Vat* vat = test::test_bake({"khronos/CesiumMan.glb", Encoding::Rig, Precision::F16});
  ASSERT_NE(vat, nullptr);
  ASSERT_TRUE(save_vat(*vat, dir / "man.vat.glb").ok());
  const CommandResult r =
      vatkit_gl_cli("render " + shell_quote((dir / "man.vat.glb").string()) +
                    " --instances 5 --size 320x180 --samples 1 --seed 4 --shading normals --scene-out " +
                    shell_quote((dir / "scene.json").string()) + " -o " + shell_quote((dir / "n.png").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const gl::Image image = gl::read_png(dir / "n.png").value();
  ASSERT_EQ(image.width, 320);
  size_t covered = 0, unit = 0, facing = 0;
  for (size_t i = 0; i + 2 < image.pixels.size(); i += size_t(image.channels)) {
    const glm::vec3 c(image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]);
    if (c == glm::vec3(0.0f)) continue;
    ++covered;
    const glm::vec3 n = c / 255.0f * 2.0f - 1.0f;
    unit += std::abs(glm::length(n) - 1.0f) < 0.02f ? 1 : 0;
    facing += n.z > 0.0f ? 1 : 0;
  }
  ASSERT_GT(covered, 500u);
  EXPECT_EQ(unit, covered) << "pixels that are not unit normals";
  EXPECT_GT(double(facing), 0.9 * double(covered)) << "normals facing away from the camera";

  std::ifstream in(dir / "scene.json");
  const nlohmann::json scene = nlohmann::json::parse(in);
  EXPECT_EQ(scene["width"], 320);
  EXPECT_EQ(scene["shading"], "normals");
  EXPECT_EQ(scene["camera"]["view"].size(), 16u);
  Result<std::vector<gl::SpreadInstance>> expected = gl::spread_instances(*vat, 5, {.seed = 4});
  ASSERT_TRUE(expected.ok());
  ASSERT_EQ(scene["instances"].size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    const nlohmann::json& entry = scene["instances"][i];
    for (int k = 0; k < 16; ++k) EXPECT_EQ(entry["world"][k].get<float>(), (*expected)[i].world[k / 4][k % 4]);
    Result<FrameQuery> query = parse_frame_query("{\"instance\":" + entry["instance"].dump() + ",\"time\":0}");
    ASSERT_TRUE(query.ok()) << query.error().message;
    EXPECT_EQ(compile(query->instance).value(), compile((*expected)[i].instance).value()) << "instance " << i;
  }
}

// On a software rasterizer a crowd over 100,000 instances is refused once the context says what
// renders, before anything is drawn or written.
TEST(GlCrowdCli, SoftwareRendererRefusesHugeCrowds) {
  bool software = false;
  {
    Result<gl::Context> context = gl::Context::create_headless();
    if (!context) GTEST_SKIP() << context.error().message;
    software = context->info().software;
  }
  if (!software) GTEST_SKIP() << "a hardware renderer: no software cap";
  const fs::path dir = test::scratch_dir("render_cli_software_limit");
  expect_one_error_line(
      vatkit_gl_cli("render --instances 100001 --size 16x16 -o " + shell_quote((dir / "x.png").string())),
      "render: --instances 100001: at most 100000 on a software renderer");
  EXPECT_FALSE(fs::exists(dir / "x.png"));
}

TEST(GlCrowdCli, ErrorsAreOneLineAndWriteNothing) {
  const fs::path dir = test::scratch_dir("render_cli_errors");
  const std::string o = " -o " + shell_quote((dir / "out.png").string());
  expect_one_error_line(vatkit_gl_cli("render --size 12x" + o), "--size 12x");
  expect_one_error_line(vatkit_gl_cli("render --size 0x10" + o), "--size");
  expect_one_error_line(vatkit_gl_cli("render --instances 0" + o), "--instances");
  expect_one_error_line(vatkit_gl_cli("render --fps 0 --frames 2" + o), "--fps");
  expect_one_error_line(vatkit_gl_cli("render --time inf" + o), "--time");
  expect_one_error_line(vatkit_gl_cli("render --layout spiral" + o), "spiral");
  expect_one_error_line(vatkit_gl_cli("render " + shell_quote((dir / "missing.glb").string()) + o), "missing.glb");
  { std::ofstream(dir / "garbage.vat.glb") << "glTF, or not"; }
  expect_one_error_line(vatkit_gl_cli("render " + shell_quote((dir / "garbage.vat.glb").string()) + o),
                        "garbage.vat.glb");
  fs::remove(dir / "garbage.vat.glb");
  expect_one_error_line(vatkit_gl_cli("render " + shell_quote(test::asset_path("khronos/SimpleMorph.gltf").string()) +
                                      " --encoding rig" + o),
                        "SimpleMorph.gltf");
  expect_one_error_line(
      vatkit_gl_cli("render --encoding rig --size 64x64 -o " + shell_quote((dir / "no_such_dir" / "x.png").string())),
      "no_such_dir");
  EXPECT_TRUE(fs::is_empty(dir)) << "a failed render left a file behind";
}

}  // namespace
}  // namespace vatkit

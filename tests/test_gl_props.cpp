// Props held by a joint (vatkit/gl/props.h): the GPU's socket matrix against the CPU mirror's
// mirror_joint, and the prop's pixels in a render.
//
//  - PropSocketMatchesTheMirror: prop.vert's socket (instance world x the slot's joint matrix,
//    resolved and decoded on the GPU) captured with transform feedback for instances playing
//    loops, backwards, a cross-fade, a blend, a pause, through a reordered drawn list, at many
//    times, against mirror_joint. Bound: every column within 1e-4 of the character's size (the
//    diagonal of its bounds; the rotation columns scaled by that size, as a point that far from
//    the joint would move), both encodings, every precision.
//  - PropAppearsInTheRender: a bright box held in the right hand changes the picture where it is,
//    the same with GPU culling as with direct draws, and not at all once detached;
//    PropCastsAShadowUnlessToldNot: in the shadow map too, unless PropDesc::casts_shadows is off;
//    PropFollowsEveryLevelOfDetail: drawn for the instances of every level the culling chose.
//  - GlPropsCli: `vatkit render --prop`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <glm/gtc/matrix_transform.hpp>

#include "cli_test_support.h"
#include "gl_test_support.h"
#include "test_gl_crowd_util.h"
#include "vatkit/decode.h"
#include "vatkit/gl/capture.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/image.h"
#include "vatkit/gl/props.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/instance_table.h"
#include "vatkit/mirror.h"
#include "vatkit/playback.h"

namespace vatkit {
namespace {

using test::BakeKey;
using GlProps = test::GlTest;

float model_size(const Vat& vat) { return glm::length(vat.bounds.max - vat.bounds.min); }

// Eight instances: a loop, one backwards, a once-clamped, a ping-pong, a blend, a cross-fade at
// 0.8 s, a blend whose weight ramps, one paused at 1 s.
void write_props_instances(const Vat& vat, InstanceTable& table) {
  const auto clips = uint32_t(vat.clips.size());
  for (uint32_t i = 0; i < table.size(); ++i) {
    Instance in;
    in.clip = clip_band(vat, i % clips);
    in.start_time = -0.31f * float(i);
    in.policy.speed = (i == 1 ? -1.0f : 1.0f) * (0.6f + 0.11f * float(i));
    if (i == 2) in.policy.loop_mode = LoopMode::Once;
    if (i == 3) in.policy.loop_mode = LoopMode::PingPong;
    if (i == 4 || i == 6) {
      Blend blend;
      blend.clip = clip_band(vat, (i + 1) % clips);
      blend.weight = 0.4f;
      in.blend = blend;
    }
    ASSERT_TRUE(set_instance(table, i, in, 0.0f).ok()) << "instance " << i;
    if (i == 5) {
      Instance fade;
      fade.clip = clip_band(vat, (i + 2) % clips);
      fade.start_time = 0.8f;
      fade.fade_duration = 0.5f;
      ASSERT_TRUE(set_instance(table, i, fade, 0.8f).ok());
    }
    if (i == 6) {
      in.blend->weight = 0.9f;
      in.fade_duration = 0.4f;
      ASSERT_TRUE(set_instance(table, i, in, 0.8f).ok());
    }
  }
  ASSERT_TRUE(pause(table, 7, 1.0f).ok());
}

glm::mat4 prop_instance_world(uint32_t i, float size) {
  glm::mat4 w = glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 3) * size, 0.05f * float(i), float(i / 3) * size));
  w = glm::rotate(w, 0.9f * float(i), glm::vec3(0.0f, 1.0f, 0.0f));
  if (i == 4) w = glm::scale(w, glm::vec3(-1.0f, 1.0f, 1.0f));  // mirrored
  if (i == 2) w = glm::scale(w, glm::vec3(1.3f));
  return w;
}

TEST_F(GlProps, PropSocketMatchesTheMirror) {
  const float times[] = {-0.4f, 0.0f, 0.37f, 0.9f, 1.1f, 1.6f, 3.3f, 9.75f};
  for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
    for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) {
      const BakeKey key{"sample", e, p};
      SCOPED_TRACE(test::describe(key));
      const Vat* vat = test::test_bake(key);
      ASSERT_NE(vat, nullptr);
      Result<int> slot = find_slot(*vat, std::string("hand.R"));
      ASSERT_TRUE(slot.ok()) << slot.error().message;
      Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
      ASSERT_TRUE(gpu.ok()) << gpu.error().message;
      const uint32_t instances = 8;
      Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, instances);
      ASSERT_TRUE(crowd.ok()) << crowd.error().message;
      write_props_instances(*vat, crowd->table());
      if (HasFatalFailure()) return;
      const float size = model_size(*vat);
      for (uint32_t i = 0; i < instances; ++i) crowd->set_world(i, prop_instance_world(i, size));
      const std::vector<uint32_t> drawn = {6, 2, 7, 0, 5, 1, 4, 5};  // 3 left out, 5 twice
      ASSERT_TRUE(crowd->set_drawn(drawn).ok());
      gl::PropDesc desc;
      desc.slot = uint32_t(*slot);
      Result<uint32_t> prop = crowd->attach(gl::box_prop(glm::vec3(0.05f)), desc);
      ASSERT_TRUE(prop.ok()) << prop.error().message;

      gl::CaptureDesc capture_desc;
      capture_desc.name = "prop socket";
      capture_desc.vertex_source = gl::prop_vertex_glsl();
      capture_desc.defines = gpu->defines();
      capture_desc.defines.push_back("VAT_SOCKETS");
      capture_desc.draw_parameters = true;
      capture_desc.outputs = {"v_socket"};
      Result<gl::VertexCapture> capture = gl::VertexCapture::create(capture_desc);
      ASSERT_TRUE(capture.ok()) << capture.error().message;
      crowd->bind_vertex_textures();
      float worst = 0.0f;
      for (float t : times) {
        crowd->prepare_prop_program(capture->program().id(), *prop, t, glm::mat4(1.0f));
        Result<std::vector<float>> got = capture->run_floats(1, uint32_t(drawn.size()));
        ASSERT_TRUE(got.ok()) << got.error().message;
        for (size_t s = 0; s < drawn.size(); ++s) {
          Result<glm::mat4> cpu = mirror_joint(*vat, crowd->table(), drawn[s], t, crowd->world(drawn[s]), desc.slot);
          ASSERT_TRUE(cpu.ok()) << cpu.error().message;
          for (int c = 0; c < 4; ++c) {
            const glm::vec3 g(got->at(s * 16 + size_t(c) * 4), got->at(s * 16 + size_t(c) * 4 + 1),
                              got->at(s * 16 + size_t(c) * 4 + 2));
            const float err = glm::length(g - glm::vec3((*cpu)[c])) * (c < 3 ? size : 1.0f);
            worst = std::max(worst, err);
            EXPECT_LE(err, 1e-4f * size) << "time " << t << " instance " << drawn[s] << " column " << c;
          }
        }
      }
      std::printf("[props] %-24s socket max error %.3g (%.3g of size) over %zu instances x %zu times\n",
                  test::describe(key).c_str(), worst, worst / size, drawn.size(), std::size(times));
    }
  }
}

// Pixels of `a` and `b` that differ, and those of `b` that are the prop's red.
struct PropPixels {
  size_t changed = 0;
  size_t red = 0;
};

PropPixels compare(const gl::Image& a, const gl::Image& b) {
  PropPixels out;
  for (size_t i = 0; i + 3 < a.pixels.size(); i += 4) {
    if (a.pixels[i] != b.pixels[i] || a.pixels[i + 1] != b.pixels[i + 1] || a.pixels[i + 2] != b.pixels[i + 2])
      ++out.changed;
    if (b.pixels[i] > 150 && b.pixels[i + 1] < 80 && b.pixels[i + 2] < 80) ++out.red;
  }
  return out;
}

TEST_F(GlProps, PropAppearsInTheRender) {
  for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
    const Vat* vat = test::test_bake(BakeKey{"sample", e, Precision::F16});
    ASSERT_NE(vat, nullptr);
    Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;
    Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 4);
    ASSERT_TRUE(crowd.ok()) << crowd.error().message;
    gl::SpreadOptions spread;
    ASSERT_TRUE(gl::spread_crowd(*crowd, spread).ok());
    Result<gl::Renderer> renderer = gl::Renderer::create();
    ASSERT_TRUE(renderer.ok()) << renderer.error().message;
    Result<gl::RenderTarget> target = gl::RenderTarget::create({160, 120});
    ASSERT_TRUE(target.ok()) << target.error().message;
    const gl::Camera camera = gl::camera_for_bounds(crowd->world_bounds(), 160.0f / 120.0f);
    gl::RenderOptions options;
    options.shadows = false;
    options.light.sky = glm::vec3(1.0f);
    auto frame = [&](bool culling) {
      options.gpu_culling = culling;
      renderer->render(*target, *crowd, camera, 0.5f, options);
      return target->read_rgba8();
    };
    const gl::Image without = frame(true);
    gl::PropDesc desc;
    desc.slot = uint32_t(find_slot(*vat, std::string("hand.R")).value());
    desc.color = glm::vec4(1.0f, 0.0f, 0.0f, 1.0f);
    ASSERT_TRUE(crowd->attach(gl::box_prop(glm::vec3(0.12f), glm::vec3(0.0f, 0.1f, 0.0f)), desc).ok());
    const PropPixels culled = compare(without, frame(true));
    const PropPixels direct = compare(without, frame(false));
    std::printf("[props] %s: the box changed %zu pixels (%zu red) culled, %zu (%zu red) direct\n", test::short_name(e),
                culled.changed, culled.red, direct.changed, direct.red);
    EXPECT_GT(culled.red, 40u);
    EXPECT_EQ(culled.red, direct.red);
    EXPECT_GE(culled.changed, culled.red);
    crowd->detach_props();
    EXPECT_EQ(compare(without, frame(true)).changed, 0u);
  }
}

// Culled draws with levels of detail: the prop is drawn for the instances of every level (its
// indirect commands take each level's count), so a crowd seen from afar shows as much of it with
// levels as without.
TEST_F(GlProps, PropFollowsEveryLevelOfDetail) {
  const Vat* vat = test::test_bake(BakeKey{"sample", Encoding::Rig, Precision::F16, 16384, true, 30.0f, 3});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 16);
  ASSERT_TRUE(crowd.ok()) << crowd.error().message;
  ASSERT_TRUE(gl::spread_crowd(*crowd, gl::SpreadOptions{}).ok());
  gl::PropDesc desc;
  desc.slot = uint32_t(find_slot(*vat, std::string("hand.R")).value());
  desc.color = glm::vec4(1.0f, 0.0f, 0.0f, 1.0f);
  ASSERT_TRUE(crowd->attach(gl::box_prop(glm::vec3(0.25f)), desc).ok());
  Result<gl::Renderer> renderer = gl::Renderer::create({256});
  ASSERT_TRUE(renderer.ok());
  Result<gl::RenderTarget> target = gl::RenderTarget::create({160, 120});
  ASSERT_TRUE(target.ok());
  gl::Camera camera = gl::camera_for_bounds(crowd->world_bounds(), 160.0f / 120.0f);
  camera.eye = camera.target + (camera.eye - camera.target) * 3.0f;
  camera.fov_y_deg /= 3.0f;  // the same framing from three times as far
  camera.far_plane *= 3.0f;
  gl::RenderOptions options;
  options.shadows = false;
  options.light.sky = glm::vec3(1.0f);
  options.lod_error_px = 4.0f;
  auto red = [&](bool lod) {
    options.lod = lod;
    renderer->render(*target, *crowd, camera, 0.5f, options);
    const gl::Image image = target->read_rgba8();
    return compare(image, image).red;
  };
  const size_t with_levels = red(true);
  Result<gl::CullingStats> stats = renderer->read_culling_stats(*crowd);
  ASSERT_TRUE(stats.ok());
  uint64_t coarse = 0;
  for (size_t level = 1; level < stats->per_level.size(); ++level) coarse += stats->per_level[level];
  const size_t without_levels = red(false);
  std::printf(
      "[props] from afar: %zu red pixels with levels (%llu of %llu instances coarser than the full mesh), %zu "
      "without\n",
      with_levels, static_cast<unsigned long long>(coarse), static_cast<unsigned long long>(stats->visible),
      without_levels);
  EXPECT_GT(coarse, 0u) << "no instance drew a coarser level: the test shows nothing";
  EXPECT_GT(without_levels, 20u);
  EXPECT_GE(double(with_levels), 0.9 * double(without_levels));
  EXPECT_LE(double(with_levels), 1.1 * double(without_levels));
}

// The shadow map's texels that differ between two renders.
size_t shadow_texels_changed(const std::vector<float>& a, const std::vector<float>& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i] ? 1 : 0;
  return n;
}

// A prop casts a shadow (the shadow pass draws it for the light's culled list), unless its
// PropDesc says not to.
TEST_F(GlProps, PropCastsAShadowUnlessToldNot) {
  const Vat* vat = test::test_bake(BakeKey{"sample", Encoding::Rig, Precision::F16});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 4);
  ASSERT_TRUE(crowd.ok()) << crowd.error().message;
  ASSERT_TRUE(gl::spread_crowd(*crowd, gl::SpreadOptions{}).ok());
  const int size = 512;
  Result<gl::Renderer> renderer = gl::Renderer::create({size});
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  Result<gl::RenderTarget> target = gl::RenderTarget::create({96, 64});
  ASSERT_TRUE(target.ok());
  gl::RenderOptions options;
  options.shadow_bounds = crowd->world_bounds();  // the same light box with and without the prop
  options.shadow_bounds.max.y += 1.0f;
  const gl::Camera camera = gl::camera_for_bounds(crowd->world_bounds(), 1.5f);
  auto shadow_map = [&] {
    renderer->render(*target, *crowd, camera, 0.5f, options);
    std::vector<float> depth(size_t(size) * size);
    glGetTextureImage(renderer->shadow_map(), 0, GL_DEPTH_COMPONENT, GL_FLOAT, GLsizei(depth.size() * 4), depth.data());
    return depth;
  };
  const std::vector<float> without = shadow_map();
  gl::PropDesc desc;
  desc.slot = uint32_t(find_slot(*vat, std::string("hand.R")).value());
  ASSERT_TRUE(crowd->attach(gl::sword_prop(0.8f), desc).ok());
  const size_t casting = shadow_texels_changed(without, shadow_map());
  crowd->detach_props();
  desc.casts_shadows = false;
  ASSERT_TRUE(crowd->attach(gl::sword_prop(0.8f), desc).ok());
  const size_t not_casting = shadow_texels_changed(without, shadow_map());
  std::printf("[props] shadow-map texels changed by 4 swords: %zu casting, %zu not casting\n", casting, not_casting);
  EXPECT_GT(casting, 100u);
  EXPECT_EQ(not_casting, 0u);
}

TEST_F(GlProps, AttachRefusesABadSlotOrMesh) {
  const Vat* vat = test::test_bake(BakeKey{"sample", Encoding::Rig, Precision::F32});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok());
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 1);
  ASSERT_TRUE(crowd.ok());
  gl::PropDesc desc;
  desc.slot = uint32_t(vat->slots.size());
  Result<uint32_t> bad_slot = crowd->attach(gl::box_prop(glm::vec3(0.1f)), desc);
  ASSERT_FALSE(bad_slot.ok());
  EXPECT_NE(bad_slot.error().message.find("slot"), std::string::npos) << bad_slot.error().message;
  desc.slot = 0;
  gl::PropMesh mesh = gl::box_prop(glm::vec3(0.1f));
  mesh.indices.push_back(999);
  mesh.indices.push_back(0);
  mesh.indices.push_back(1);
  Result<uint32_t> bad_index = crowd->attach(mesh, desc);
  ASSERT_FALSE(bad_index.ok());
  EXPECT_NE(bad_index.error().message.find("999"), std::string::npos) << bad_index.error().message;
  EXPECT_EQ(crowd->prop_count(), 0u);
}

}  // namespace
}  // namespace vatkit

namespace vatkit {
namespace {

namespace fs = std::filesystem;

// `vatkit render --prop`: a sword in every right hand changes the picture, a glTF file's mesh
// (SimpleMorph's, at rest) can be held by a joint named after @, and a joint the VAT lacks is a
// one-line error that writes nothing.
TEST(GlPropsCli, PropOptionDrawsAndRefusesAnUnknownJoint) {
  const fs::path dir = test::scratch_dir("render_cli_prop");
  auto render = [&](const std::string& options, const char* name) {
    return test::vatkit_gl_cli("render --encoding delta --instances 4 --size 128x96 --no-shadows " + options + " -o " +
                               test::shell_quote((dir / name).string()));
  };
  const test::CommandResult plain = render("", "plain.png");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const test::CommandResult sword = render("--prop sword", "sword.png");
  ASSERT_EQ(sword.exit_code, 0) << sword.err;
  const test::CommandResult file = render(
      "--prop " + test::shell_quote(test::asset_path("khronos/SimpleMorph.gltf").string() + "@head"), "file.png");
  EXPECT_EQ(file.exit_code, 0) << file.err;
  Result<gl::Image> a = gl::read_png(dir / "plain.png");
  Result<gl::Image> b = gl::read_png(dir / "sword.png");
  ASSERT_TRUE(a.ok() && b.ok());
  size_t changed = 0;
  for (size_t i = 0; i < a->pixels.size(); ++i) changed += a->pixels[i] != b->pixels[i] ? 1 : 0;
  EXPECT_GT(changed, 50u) << "the sword changed nothing";
  const test::CommandResult bad = render("--prop sword@no_such_joint", "bad.png");
  test::expect_one_error_line(bad, "no_such_joint");
  EXPECT_FALSE(fs::exists(dir / "bad.png"));
}

}  // namespace
}  // namespace vatkit

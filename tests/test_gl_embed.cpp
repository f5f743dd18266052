// Mixed crowds and embedding: several VATs in one render (each as it draws alone), per-instance
// tints, drawing into a caller's framebuffer with the caller's matrices over the caller's scene,
// the caller's shading hook, cull() and draw() called apart, spawn and despawn, and in-place
// transform updates that upload only what changed (position + heading: 16 bytes an agent).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "cli_test_support.h"
#include "gl_test_support.h"
#include "test_gl_crowd_util.h"
#include "test_support.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/program.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/instance_table.h"
#include "vatkit/playback.h"
#include "vatkit/vat_write.h"

namespace vatkit {
namespace {

using test::BakeKey;
using GlEmbed = test::GlTest;

constexpr int kW = 160, kH = 96;

// Lit, no ground, no shadows, black background: a pixel is the crowd's or black.
gl::RenderOptions plain_options() {
  gl::RenderOptions o;
  o.ground = false;
  o.shadows = false;
  o.background = glm::vec3(0.0f);
  return o;
}

bool is_black(const gl::Image& image, size_t i) {
  return image.pixels[i * 4] == 0 && image.pixels[i * 4 + 1] == 0 && image.pixels[i * 4 + 2] == 0;
}

size_t covered(const gl::Image& image) {
  size_t n = 0;
  for (size_t i = 0; i < size_t(image.width) * size_t(image.height); ++i) n += is_black(image, i) ? 0 : 1;
  return n;
}

// Instance k of `crowd` at x = x0 + k * 1.2, facing +Z, playing clip k mod clips from time 0.
void place_row(gl::Crowd& crowd, const Vat& vat, float x0, float scale = 1.0f) {
  for (uint32_t k = 0; k < crowd.size(); ++k) {
    glm::mat4 w = glm::translate(glm::mat4(1.0f), glm::vec3(x0 + float(k) * 1.2f, 0.0f, 0.0f));
    crowd.set_world(k, glm::scale(w, glm::vec3(scale)));
    Instance in;
    in.clip = clip_band(vat, k % uint32_t(vat.clips.size()));
    ASSERT_TRUE(set_instance(crowd.table(), k, in, 0.0f).ok());
  }
  crowd.recompute_bounds();
}

struct Fixture {
  gl::VatGpu gpu;
  const Vat* vat = nullptr;
};

std::optional<Fixture> upload(const BakeKey& key) {
  const Vat* vat = test::test_bake(key);
  if (vat == nullptr) return std::nullopt;
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  if (!gpu) {
    ADD_FAILURE() << gpu.error().message;
    return std::nullopt;
  }
  return Fixture{std::move(*gpu), vat};
}

gl::Camera camera_for(std::span<gl::Crowd* const> crowds) {
  Bounds b = crowds[0]->world_bounds();
  for (const gl::Crowd* c : crowds) {
    b.min = glm::min(b.min, c->world_bounds().min);
    b.max = glm::max(b.max, c->world_bounds().max);
  }
  return gl::camera_for_bounds(b, float(kW) / float(kH), 0.0f, 10.0f);
}

// A target, a renderer and a camera framing the crowds given.
struct Stage {
  gl::RenderTarget target;
  gl::Renderer renderer;
  gl::Camera camera;

  // `crowd` at `time_s` with plain_options(), read back.
  gl::Image draw(gl::Crowd& crowd, float time_s = 0.4f) {
    renderer.render(target, crowd, camera, time_s, plain_options());
    return target.read_rgba8();
  }
};

Stage make_stage(std::span<gl::Crowd* const> framed) {
  return Stage{gl::RenderTarget::create({kW, kH, 1}).value(), gl::Renderer::create({256}).value(), camera_for(framed)};
}

// The sample character (rig f16) uploaded, `n` of it in a row from x0 (place_row), and a stage
// framing them. Made in place: the crowd refers to the fixture's VatGpu.
struct SampleScene {
  Fixture fixture;
  std::optional<gl::Crowd> crowd;
  std::optional<Stage> stage;

  auto parts() { return std::tuple(&fixture, &*crowd, &stage->target, &stage->renderer); }
};

std::unique_ptr<SampleScene> sample_scene(uint32_t n, float x0, const gl::CrowdDesc& desc = {}) {
  std::optional<Fixture> fixture = upload({"sample", Encoding::Rig, Precision::F16});
  if (!fixture) return nullptr;
  auto scene = std::make_unique<SampleScene>(SampleScene{std::move(*fixture), std::nullopt, std::nullopt});
  Result<gl::Crowd> crowd = gl::Crowd::create(scene->fixture.gpu, n, desc);
  if (!crowd) {
    ADD_FAILURE() << crowd.error().message;
    return nullptr;
  }
  scene->crowd = std::move(*crowd);
  place_row(*scene->crowd, *scene->fixture.vat, x0);
  gl::Crowd* one[1] = {&*scene->crowd};
  scene->stage = make_stage(one);
  return scene;
}

// Two different files in one render: every pixel is what the crowd that covers it draws alone
// (they stand apart), and both show.
TEST_F(GlEmbed, MixedCrowdsDrawEachAsAlone) {
  std::optional<Fixture> a = upload({"sample", Encoding::Rig, Precision::F16});
  std::optional<Fixture> b = upload({"khronos/CesiumMan.glb", Encoding::Delta, Precision::F16});
  ASSERT_TRUE(a && b);
  Result<gl::Crowd> ca = gl::Crowd::create(a->gpu, 2);
  Result<gl::Crowd> cb = gl::Crowd::create(b->gpu, 2);
  ASSERT_TRUE(ca.ok() && cb.ok());
  place_row(*ca, *a->vat, -2.6f);
  place_row(*cb, *b->vat, 0.8f);
  gl::Crowd* both[2] = {&*ca, &*cb};
  Stage stage = make_stage(both);
  auto* target = &stage.target;
  auto* renderer = &stage.renderer;
  const gl::Camera& camera = stage.camera;
  renderer->render(*target, both, camera, 0.4f, plain_options());
  const gl::Image mixed = target->read_rgba8();
  // Each crowd was culled on its own: both of its instances passed the camera's frustum.
  EXPECT_EQ(renderer->read_culling_stats(*ca).value().visible, 2u);
  EXPECT_EQ(renderer->read_culling_stats(*cb).value().visible, 2u);
  renderer->render(*target, *ca, camera, 0.4f, plain_options());
  const gl::Image alone_a = target->read_rgba8();
  renderer->render(*target, *cb, camera, 0.4f, plain_options());
  const gl::Image alone_b = target->read_rgba8();
  EXPECT_GT(covered(alone_a), 200u);
  EXPECT_GT(covered(alone_b), 200u);
  size_t mismatches = 0, overlaps = 0;
  for (size_t i = 0; i < size_t(kW) * kH; ++i) {
    const bool in_a = !is_black(alone_a, i), in_b = !is_black(alone_b, i);
    overlaps += in_a && in_b ? 1 : 0;
    const gl::Image& expected = in_a ? alone_a : alone_b;
    for (int c = 0; c < 4; ++c) mismatches += mixed.pixels[i * 4 + size_t(c)] != expected.pixels[i * 4 + size_t(c)];
  }
  EXPECT_EQ(overlaps, 0u) << "the two crowds should stand apart on screen";
  EXPECT_EQ(mismatches, 0u);
}

// A tint multiplies the base colour: white changes no pixel, pure red zeroes green and blue
// wherever the crowd is drawn (lit colour = base x light, channel by channel).
TEST_F(GlEmbed, TintMultipliesTheBaseColour) {
  std::unique_ptr<SampleScene> scene = sample_scene(2, -0.6f);
  ASSERT_TRUE(scene);
  auto [a, crowd, target, renderer] = scene->parts();
  const gl::Camera& camera = scene->stage->camera;
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  const gl::Image untinted = target->read_rgba8();
  crowd->set_tint(0, glm::vec4(1.0f));
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, 4u) << "one tint, 4 bytes";
  EXPECT_EQ(test::image_diff(untinted, target->read_rgba8()).differing, 0.0);
  EXPECT_EQ(target->read_rgba8().pixels, untinted.pixels);
  crowd->set_tint(0, glm::vec4(1.0f, 0.0f, 0.0f, 1.0f));
  crowd->set_tint(1, glm::vec4(1.0f, 0.0f, 0.0f, 1.0f));
  EXPECT_EQ(crowd->tint(1), glm::vec4(1.0f, 0.0f, 0.0f, 1.0f));
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  const gl::Image red = target->read_rgba8();
  size_t drawn = 0, reddish = 0;
  for (size_t i = 0; i < size_t(kW) * kH; ++i) {
    if (is_black(untinted, i)) continue;
    ++drawn;
    EXPECT_EQ(red.pixels[i * 4 + 1], 0) << "pixel " << i;
    EXPECT_EQ(red.pixels[i * 4 + 2], 0) << "pixel " << i;
    reddish += red.pixels[i * 4] > 0 ? 1 : 0;
  }
  EXPECT_GT(drawn, 200u);
  EXPECT_GT(reddish, drawn * 9 / 10);
  EXPECT_EQ(gl::palette_tint(0), glm::vec4(1.0f));
  EXPECT_EQ(gl::palette_tint(9), gl::palette_tint(1));
}

// The caller's scene (a clear colour and a far triangle) stays where the crowd does not cover
// it; where it does, the pixels are those vatkit's own target gets from the same matrices.
TEST_F(GlEmbed, DrawsIntoTheCallersFramebufferOverItsScene) {
  std::unique_ptr<SampleScene> posed = sample_scene(3, -1.2f);
  ASSERT_TRUE(posed);
  auto [a, crowd, own, renderer] = posed->parts();
  gl::Crowd* one[1] = {crowd};
  const gl::Camera& camera = posed->stage->camera;
  Result<gl::RenderTarget> callers = gl::RenderTarget::create({kW, kH, 1});
  ASSERT_TRUE(callers.ok());
  renderer->render(*own, *crowd, camera, 0.4f, plain_options());
  const gl::Image expected = own->read_rgba8();

  // The caller's frame: its clear colour and a flat triangle at depth 0.99 (behind the crowd).
  gl::ProgramDesc desc;
  desc.name = "caller's triangle";
  desc.shaders = {{gl::ShaderStage::Vertex, test::kTriangleVertex, ""},
                  {gl::ShaderStage::Fragment, test::kFlatFragment, ""}};
  Result<gl::Program> triangle = gl::build_program(desc);
  ASSERT_TRUE(triangle.ok()) << triangle.error().message;
  gl::VertexArray vao = gl::create_vertex_array();
  callers->clear(0.2f, 0.4f, 0.6f, 1.0f);
  glEnable(GL_DEPTH_TEST);
  glUseProgram(triangle->id());
  glUniform1f(glGetUniformLocation(triangle->id(), "u_depth"), 0.99f);
  glUniform4f(glGetUniformLocation(triangle->id(), "u_color"), 1.0f, 1.0f, 0.0f, 1.0f);
  glBindVertexArray(vao.id());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
  const gl::Image scene = callers->read_rgba8();

  gl::FrameView view;
  view.framebuffer = callers->framebuffer();
  view.width = kW;
  view.height = kH;
  view.view = camera.view();
  view.projection = camera.projection(float(kW) / float(kH));
  gl::RenderOptions options = plain_options();
  options.clear = false;
  renderer->render(view, one, 0.4f, options);
  const gl::Image drawn = callers->read_rgba8();
  size_t kept = 0, crowd_pixels = 0, mismatches = 0;
  for (size_t i = 0; i < size_t(kW) * kH; ++i) {
    const gl::Image& want = is_black(expected, i) ? scene : expected;
    (is_black(expected, i) ? kept : crowd_pixels) += 1;
    for (int c = 0; c < 4; ++c) mismatches += drawn.pixels[i * 4 + size_t(c)] != want.pixels[i * 4 + size_t(c)];
  }
  EXPECT_GT(crowd_pixels, 300u);
  EXPECT_GT(kept, 300u);
  EXPECT_EQ(mismatches, 0u);

  // cull() then draw() from the caller's code: the same pixels.
  callers->clear(0.2f, 0.4f, 0.6f, 1.0f);
  renderer->cull(one, view, 0.4f, options);
  GLint bound = -1;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &bound);
  EXPECT_EQ(GLuint(bound), callers->framebuffer()) << "cull() gives the caller's framebuffer back";
  renderer->draw(one, view, 0.4f, options);
  const gl::Image split = callers->read_rgba8();
  size_t split_mismatches = 0;
  for (size_t i = 0; i < size_t(kW) * kH; ++i) {
    const bool crowd_here = !is_black(expected, i);
    for (int c = 0; c < 3 && crowd_here; ++c)
      split_mismatches += split.pixels[i * 4 + size_t(c)] != expected.pixels[i * 4 + size_t(c)];
  }
  EXPECT_EQ(split_mismatches, 0u);
}

// The caller's projection, not vatkit's camera: an off-centre frustum (no Camera gives it). The
// crowd's pixels lie inside the box of the reference skinner's vertices projected by it.
TEST_F(GlEmbed, TheCallersProjectionPlacesTheCrowd) {
  const BakeKey key{"sample", Encoding::Rig, Precision::F16};
  std::optional<Fixture> a = upload(key);
  ASSERT_TRUE(a);
  Result<gl::Crowd> crowd = gl::Crowd::create(a->gpu, 1);
  ASSERT_TRUE(crowd.ok());
  place_row(*crowd, *a->vat, 0.0f);  // clip 0 from time 0
  gl::Crowd* one[1] = {&*crowd};
  Stage stage = make_stage(one);  // its camera unused: the caller's matrices below
  auto* target = &stage.target;
  gl::FrameView view;
  view.framebuffer = target->framebuffer();
  view.width = kW;
  view.height = kH;
  // The frustum's axis points 0.3 right of and 0.1 above the view direction: looking straight
  // ahead from (-1.2, 0.5, 4) puts the character standing at the origin in the middle.
  view.view = glm::lookAt(glm::vec3(-1.2f, 0.5f, 4.0f), glm::vec3(-1.2f, 0.5f, 0.0f), glm::vec3(0, 1, 0));
  view.projection = glm::frustum(-0.02f, 0.08f, -0.03f, 0.05f, 0.1f, 50.0f);
  stage.renderer.render(view, one, 0.0f, plain_options());
  const gl::Image image = target->read_rgba8();

  std::vector<glm::vec3> positions, normals;
  const Asset* asset = test::test_asset("sample");
  ASSERT_NE(asset, nullptr);
  test::reference_in_vat_order(*asset, *a->vat, a->vat->clips[0].source_animation, 0.0f, positions, normals);
  glm::vec2 lo(1e9f), hi(-1e9f);
  for (const glm::vec3& p : positions) {
    const glm::vec4 clip = view.projection * view.view * crowd->world(0) * glm::vec4(p, 1.0f);
    const glm::vec2 px = (glm::vec2(clip) / clip.w * 0.5f + 0.5f) * glm::vec2(kW, kH);
    lo = glm::min(lo, px);
    hi = glm::max(hi, px);
  }
  glm::vec2 got_lo(1e9f), got_hi(-1e9f);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      if (is_black(image, size_t(y) * kW + size_t(x))) continue;
      const glm::vec2 centre(float(x) + 0.5f, float(kH - 1 - y) + 0.5f);  // rows come top first
      got_lo = glm::min(got_lo, centre);
      got_hi = glm::max(got_hi, centre);
    }
  }
  ASSERT_LT(got_lo.x, got_hi.x) << "nothing drawn";
  for (int c = 0; c < 2; ++c) {
    // The whole character in view, off the frame's centre (which a centred frustum would give).
    EXPECT_GT(lo[c], 2.0f);
    EXPECT_LT(hi[c], float(c ? kH : kW) - 2.0f);
    EXPECT_NEAR(got_lo[c], lo[c], 1.5f) << "axis " << c;
    EXPECT_NEAR(got_hi[c], hi[c], 1.5f) << "axis " << c;
  }
}

// The hook's result is what lands in the target: even instances red, odd ones green (both
// show, nothing else does); returning
// s.lit gives vatkit's own pixels.
TEST_F(GlEmbed, TheShadingHookWritesTheCallersColour) {
  std::optional<Fixture> a = upload({"sample", Encoding::Rig, Precision::F16});
  ASSERT_TRUE(a);
  gl::CrowdDesc hooked, passthrough;
  hooked.shade_glsl = R"(
vec4 vatkit_shade(VatkitShadeInput s) {
  return (s.instance % 2u) == 0u ? vec4(1.0, 0.0, 0.0, 1.0) : vec4(0.0, 1.0, 0.0, 1.0);
})";
  passthrough.shade_glsl = "vec4 vatkit_shade(VatkitShadeInput s) { return s.lit; }";
  Result<gl::Crowd> plain = gl::Crowd::create(a->gpu, 2);
  Result<gl::Crowd> hook = gl::Crowd::create(a->gpu, 2, hooked);
  Result<gl::Crowd> same = gl::Crowd::create(a->gpu, 2, passthrough);
  ASSERT_TRUE(plain.ok() && hook.ok() && same.ok()) << (hook ? "" : hook.error().message);
  for (gl::Crowd* c : {&*plain, &*hook, &*same}) place_row(*c, *a->vat, -0.6f);
  gl::Crowd* one[1] = {&*plain};
  Stage stage = make_stage(one);
  auto* target = &stage.target;
  auto* renderer = &stage.renderer;
  const gl::Camera& camera = stage.camera;
  renderer->render(*target, *plain, camera, 0.4f, plain_options());
  const gl::Image lit = target->read_rgba8();
  renderer->render(*target, *same, camera, 0.4f, plain_options());
  EXPECT_EQ(target->read_rgba8().pixels, lit.pixels);
  renderer->render(*target, *hook, camera, 0.4f, plain_options());
  const gl::Image colours = target->read_rgba8();
  size_t red = 0, green = 0, other = 0;
  for (size_t i = 0; i < size_t(kW) * kH; ++i) {
    if (is_black(lit, i)) continue;
    const uint8_t* p = &colours.pixels[i * 4];
    if (p[0] == 255 && p[1] == 0 && p[2] == 0) {
      ++red;
    } else if (p[0] == 0 && p[1] == 255 && p[2] == 0) {
      ++green;
    } else {
      ++other;
    }
  }
  EXPECT_GT(red, 100u);
  EXPECT_GT(green, 100u);
  EXPECT_EQ(other, 0u);
  gl::CrowdDesc broken;
  broken.shade_glsl = "vec4 vatkit_shade(VatkitShadeInput s) { return s.nothing; }";
  Result<gl::Crowd> bad = gl::Crowd::create(a->gpu, 1, broken);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("nothing"), std::string::npos) << bad.error().message;
}

// Spawn adds an instance without touching the others; despawn swap-removes: the crowd draws
// what a fresh crowd holding the survivors in their new order draws, and uploads only the
// moved instance (its matrix and playback row).
TEST_F(GlEmbed, SpawnAndDespawnKeepTheOthers) {
  gl::CrowdDesc desc;
  desc.capacity = 8;
  std::unique_ptr<SampleScene> scene = sample_scene(4, -1.8f, desc);
  ASSERT_TRUE(scene);
  auto [a, crowd, target, renderer] = scene->parts();
  const gl::Camera& camera = scene->stage->camera;
  EXPECT_EQ(crowd->size(), 4u);
  EXPECT_EQ(crowd->capacity(), 8u);
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  const gl::Image four = target->read_rgba8();

  Result<uint32_t> spawned = crowd->spawn();
  ASSERT_TRUE(spawned.ok());
  EXPECT_EQ(*spawned, 4u);
  crowd->set_world(4, glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, 0.0f, -1.5f)));
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  EXPECT_EQ(renderer->read_culling_stats(*crowd).value().instances, 5u);
  EXPECT_NE(target->read_rgba8().pixels, four.pixels);
  EXPECT_EQ(crowd->despawn(4), 4u);
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  EXPECT_EQ(target->read_rgba8().pixels, four.pixels) << "despawning the spawned one restores the picture";

  // Swap-remove instance 1: instance 3 moves into it.
  EXPECT_EQ(crowd->despawn(1), 3u);
  EXPECT_EQ(crowd->size(), 3u);
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, 64u + 96u) << "the moved instance's matrix and row";
  const gl::Image after = target->read_rgba8();
  Result<gl::Crowd> fresh = gl::Crowd::create(a->gpu, 3);
  ASSERT_TRUE(fresh.ok());
  const uint32_t from[3] = {0, 3, 2};
  for (uint32_t k = 0; k < 3; ++k) {
    fresh->set_world(k, glm::translate(glm::mat4(1.0f), glm::vec3(-1.8f + float(from[k]) * 1.2f, 0.0f, 0.0f)));
    Instance in;
    in.clip = clip_band(*a->vat, from[k] % uint32_t(a->vat->clips.size()));
    ASSERT_TRUE(set_instance(fresh->table(), k, in, 0.0f).ok());
  }
  renderer->render(*target, *fresh, camera, 0.4f, plain_options());
  EXPECT_EQ(target->read_rgba8().pixels, after.pixels);

  // Full: spawn fails with a one-line reason.
  for (int k = 0; k < 5; ++k) ASSERT_TRUE(crowd->spawn().ok());
  Result<uint32_t> over = crowd->spawn();
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("full"), std::string::npos);
  // Empty: nothing drawn, no GL error; then one again.
  while (crowd->size() > 0) crowd->despawn(0);
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  EXPECT_EQ(renderer->read_culling_stats(*crowd).value().visible, 0u);
  EXPECT_EQ(covered(target->read_rgba8()), 0u);
  ASSERT_TRUE(crowd->spawn().ok());
  renderer->render(*target, *crowd, camera, 0.4f, plain_options());
  EXPECT_EQ(renderer->read_culling_stats(*crowd).value().instances, 1u);
}

// Only what changed is uploaded, to the byte: matrices 64 bytes an instance, placements 16,
// set_placements one range; a placement draws what the equal matrix draws.
TEST_F(GlEmbed, InPlaceUpdatesUploadOnlyWhatChanged) {
  std::optional<Fixture> a = upload({"sample", Encoding::Rig, Precision::F16});
  ASSERT_TRUE(a);
  const uint32_t n = 100;
  gl::CrowdDesc compact;
  compact.transforms = gl::CrowdTransforms::PositionHeading;
  Result<gl::Crowd> matrices = gl::Crowd::create(a->gpu, n);
  Result<gl::Crowd> placed = gl::Crowd::create(a->gpu, n, compact);
  ASSERT_TRUE(matrices.ok() && placed.ok());
  std::vector<glm::vec4> agents(n);
  for (uint32_t k = 0; k < n; ++k) {
    agents[k] = glm::vec4(float(k % 10) * 1.2f - 5.4f, 0.0f, float(k / 10) * -1.2f, float(k) * 0.37f);
  }
  placed->set_placements(0, agents);
  for (uint32_t k = 0; k < n; ++k) matrices->set_placement(k, glm::vec3(agents[k]), agents[k].w);
  gl::Crowd* one[1] = {&*matrices};
  Stage stage = make_stage(one);
  auto* target = &stage.target;
  auto* renderer = &stage.renderer;
  const gl::Camera& camera = stage.camera;
  renderer->render(*target, *matrices, camera, 0.4f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, n * 64u);
  const gl::Image by_matrix = target->read_rgba8();
  renderer->render(*target, *placed, camera, 0.4f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, n * 16u);
  const gl::Image by_placement = target->read_rgba8();
  // sin and cos on the GPU against glm's on the CPU: a few edge pixels may differ.
  EXPECT_LT(test::image_diff(by_matrix, by_placement).differing, 0.002);
  EXPECT_GT(covered(by_placement), 500u);
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(placed->world(7)[3][c], matrices->world(7)[3][c], 1e-6f);
    EXPECT_NEAR(placed->world(7)[0][c], matrices->world(7)[0][c], 1e-6f);
  }

  // Three agents far apart: three placements (16 bytes each), three matrices (64 each).
  for (uint32_t k : {3u, 40u, 90u}) {
    placed->set_placement(k, glm::vec3(agents[k]) + glm::vec3(0.1f, 0.0f, 0.0f), agents[k].w);
    matrices->set_placement(k, glm::vec3(agents[k]) + glm::vec3(0.1f, 0.0f, 0.0f), agents[k].w);
  }
  renderer->render(*target, *placed, camera, 0.5f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, 3u * 16u);
  renderer->render(*target, *matrices, camera, 0.5f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, 3u * 64u);
  // Every agent moves: one range of n placements; then nothing.
  for (glm::vec4& p : agents) p.x += 0.01f;
  placed->set_placements(0, agents);
  placed->set_placement(5, glm::vec3(agents[5]), 1.0f);  // inside the range: not twice
  renderer->render(*target, *placed, camera, 0.6f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, n * 16u);
  renderer->render(*target, *placed, camera, 0.7f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, 0u);
}

// set_motion: the shaders move the agents by the clock (position and heading), drawing what
// set_placement draws at placement_at's values; 32 bytes an agent when the motion is set, then
// nothing while they keep their course.
TEST_F(GlEmbed, MotionIsIntegratedOnTheGpu) {
  gl::CrowdDesc compact;
  compact.transforms = gl::CrowdTransforms::PositionHeading;
  std::unique_ptr<SampleScene> scene = sample_scene(3, -1.2f, compact);
  ASSERT_TRUE(scene);
  auto [a, moving, target, renderer] = scene->parts();
  const gl::Camera& camera = scene->stage->camera;
  renderer->render(*target, *moving, camera, 0.2f, plain_options());  // the placements uploaded
  const gl::Image start = target->read_rgba8();
  for (uint32_t k = 0; k < 3; ++k) {
    moving->set_motion(k, glm::vec3(0.5f - 0.4f * float(k), 0.0f, -0.3f), 0.8f - 0.7f * float(k), 0.2f);
  }
  renderer->render(*target, *moving, camera, 0.2f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, 3u * 32u);
  EXPECT_EQ(target->read_rgba8().pixels, start.pixels) << "no time has passed since the motion's start";
  renderer->render(*target, *moving, camera, 0.9f, plain_options());
  EXPECT_EQ(renderer->stats().uploaded_bytes, 0u);
  const gl::Image moved = target->read_rgba8();
  EXPECT_GT(test::image_diff(start, moved).differing, 0.01) << "the agents should have moved";

  Result<gl::Crowd> still = gl::Crowd::create(a->gpu, 3, compact);
  ASSERT_TRUE(still.ok());
  place_row(*still, *a->vat, -1.2f);
  for (uint32_t k = 0; k < 3; ++k) {
    const glm::vec4 p = moving->placement_at(k, 0.9f);
    EXPECT_NEAR(p.w, (0.8f - 0.7f * float(k)) * 0.7f, 1e-5f);
    still->set_placement(k, glm::vec3(p), p.w);
  }
  renderer->render(*target, *still, camera, 0.9f, plain_options());
  EXPECT_LT(test::image_diff(moved, target->read_rgba8()).differing, 0.002);
}

// `vatkit render A B`: instances dealt round-robin over the files (the report names both), a
// picture unlike either file's alone on the same grid; fewer instances than files is refused.
TEST(GlEmbedCli, RendersAMixedCrowd) {
  namespace fs = std::filesystem;
  using test::shell_quote;
  const fs::path dir = test::scratch_dir("render_cli_mixed");
  const Vat* a = test::test_bake({"sample", Encoding::Rig, Precision::F16});
  const Vat* b = test::test_bake({"khronos/CesiumMan.glb", Encoding::Delta, Precision::F16});
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(save_vat(*a, dir / "a.vat.glb").ok());
  ASSERT_TRUE(save_vat(*b, dir / "b.vat.glb").ok());
  const std::string fa = shell_quote((dir / "a.vat.glb").string()), fb = shell_quote((dir / "b.vat.glb").string());
  auto render = [&](const std::string& files, const char* name) {
    const test::CommandResult r = test::vatkit_gl_cli("render " + files +
                                                      " --instances 6 --size 160x90 --samples 1 --no-shadows "
                                                      "--tint palette -o " +
                                                      shell_quote((dir / name).string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  const test::CommandResult mixed = render(fa + " " + fb, "ab.png");
  EXPECT_NE(mixed.out.find("6 instances of"), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("a.vat.glb + "), std::string::npos) << mixed.out;
  render(fa + " " + fa, "aa.png");
  render(fb + " " + fb, "bb.png");
  const gl::Image ab = gl::read_png(dir / "ab.png").value();
  EXPECT_GT(test::image_diff(ab, gl::read_png(dir / "aa.png").value()).differing, 0.005);
  EXPECT_GT(test::image_diff(ab, gl::read_png(dir / "bb.png").value()).differing, 0.005);

  const test::CommandResult few =
      test::vatkit_gl_cli("render " + fa + " " + fb + " --instances 1 -o " + shell_quote((dir / "few.png").string()));
  test::expect_one_error_line(few, "fewer than the 2 files");
  EXPECT_FALSE(fs::exists(dir / "few.png"));
}

// `vatkit bench --mode agents` counts the bytes of 100 moving agents exactly (64 or 16 each), and
// `--mode mixed` prints one crowd against four with the same triangles.
TEST(GlEmbedCli, BenchModesReportBytesAndRatios) {
  const test::CommandResult agents =
      test::vatkit_gl_cli("bench --mode agents --instances 100 --frames 2 --warmup 1 --size 64x36");
  ASSERT_EQ(agents.exit_code, 0) << agents.err;
  EXPECT_NE(agents.out.find("set_world (matrix)"), std::string::npos) << agents.out;
  EXPECT_NE(agents.out.find(" 6400\n"), std::string::npos) << agents.out;
  EXPECT_NE(agents.out.find(" 1600\n"), std::string::npos) << agents.out;
  const test::CommandResult mixed =
      test::vatkit_gl_cli("bench --mode mixed --instances 8 --frames 1 --warmup 0 --size 64x36");
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_NE(mixed.out.find("frame ratio"), std::string::npos) << mixed.out;
  // Both rows draw the same triangles.
  std::vector<std::string> triangles;
  std::istringstream lines(mixed.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string n, crowds, frame, cpu, tris;
    if (words >> n >> crowds >> frame >> cpu >> tris && n == "8") triangles.push_back(tris);
  }
  ASSERT_EQ(triangles.size(), 2u) << mixed.out;
  EXPECT_EQ(triangles[0], triangles[1]);
}

}  // namespace
}  // namespace vatkit

// Image parity and shadows: a VAT-rendered frame against the same frame drawn from the reference
// skinner's vertices as a static mesh (Crowd::set_static_pose: same camera, same shading, same
// shadow pass), on real assets, at several clip times, in both encodings.
//
//  - Images: mean absolute difference per channel at most 0.02 (Babylon Lite's gate); a control
//    against the rest pose proves that the comparison sees the pose.
//  - Shadows: the shadow map the VAT's casters write matches the reference pose's and differs
//    from another pose's and from the rest pose's (a shadow pass that ignored the VAT would draw
//    the rest pose); the lit frame is darker on the ground with shadows than without.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include <glm/gtc/matrix_transform.hpp>

#include "gl_test_support.h"
#include "test_gl_crowd_util.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/playback.h"

namespace vatkit {
namespace {

using test::BakeKey;
using GlParityImage = test::GlTest;

constexpr double kMaxMad = 0.02;

struct Scene {
  gl::VatGpu gpu;
  gl::Crowd crowd;
  gl::Camera camera;
  gl::RenderOptions options;
};

// Three instances of `vat` in a row, all playing clip `clip` from clock 0 at speed 1 (so that
// clock t is t seconds into the clip), turned differently; the camera frames them.
std::unique_ptr<Scene> make_scene(const Vat& vat, uint32_t clip, float aspect) {
  auto scene = std::make_unique<Scene>();
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(vat);
  EXPECT_TRUE(gpu.ok()) << gpu.error().message;
  if (!gpu) return nullptr;
  scene->gpu = std::move(*gpu);
  Result<gl::Crowd> crowd = gl::Crowd::create(scene->gpu, 3);
  EXPECT_TRUE(crowd.ok()) << crowd.error().message;
  if (!crowd) return nullptr;
  scene->crowd = std::move(*crowd);
  const glm::vec3 extent = vat.bounds.max - vat.bounds.min;
  const float spacing = std::max(extent.x, extent.z) * 1.1f;
  for (uint32_t i = 0; i < 3; ++i) {
    glm::mat4 w = glm::translate(glm::mat4(1.0f), glm::vec3((float(i) - 1.0f) * spacing, 0.0f, 0.0f));
    w = glm::rotate(w, -0.6f + 0.6f * float(i), glm::vec3(0.0f, 1.0f, 0.0f));
    scene->crowd.set_world(i, w);
    Instance in;
    in.clip = clip_band(vat, clip);
    in.start_time = 0.0f;
    in.policy.speed = 1.0f;
    EXPECT_TRUE(set_instance(scene->crowd.table(), i, in, 0.0f).ok());
  }
  scene->crowd.recompute_bounds();
  scene->camera = gl::camera_for_bounds(scene->crowd.world_bounds(), aspect, 25.0f, 18.0f);
  scene->options.shadow_bounds = scene->crowd.world_bounds();  // the same light box for every pose
  return scene;
}

gl::Image render(gl::Renderer& renderer, const gl::RenderTarget& target, Scene& scene, float time_s) {
  renderer.render(target, scene.crowd, scene.camera, time_s, scene.options);
  return target.read_rgba8();
}

// A clip time on the rows and one between them, inside the clip.
std::vector<float> test_times(const VatClip& clip) {
  const float duration = clip.rows > 1 ? float(clip.rows - 1) / clip.fps : 0.0f;
  return {duration * 0.3f, (std::floor(duration * 0.7f * clip.fps) + 0.5f) / std::max(clip.fps, 1.0f)};
}

struct ImageCase {
  std::string asset;
  uint32_t clip;
};

TEST_F(GlParityImage, VatFramesMatchTheReferenceSkinner) {
  const ImageCase cases[] = {
      {"sample", 1}, {"khronos/Fox.glb", 2}, {"khronos/CesiumMan.glb", 0}, {"threejs/RobotExpressive.glb", 10}};
  Result<gl::RenderTarget> target = gl::RenderTarget::create({256, 192, 4});
  ASSERT_TRUE(target.ok()) << target.error().message;
  gl::RendererDesc rd;
  rd.shadow_map_size = 1024;
  Result<gl::Renderer> renderer = gl::Renderer::create(rd);
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  double worst = 0.0;
  for (const ImageCase& c : cases) {
    for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
      const BakeKey key{c.asset, e, Precision::F32};
      SCOPED_TRACE(test::describe(key));
      const Vat* vat = test::test_bake(key);
      ASSERT_NE(vat, nullptr);
      const Asset* asset = test::test_asset(c.asset);
      ASSERT_LT(c.clip, vat->clips.size());
      auto scene = make_scene(*vat, c.clip, 256.0f / 192.0f);
      ASSERT_NE(scene, nullptr);
      std::vector<glm::vec3> ref_p, ref_n;
      for (float t : test_times(vat->clips[c.clip])) {
        scene->crowd.clear_static_pose();
        const gl::Image vat_image = render(*renderer, *target, *scene, t);
        test::reference_in_vat_order(*asset, *vat, vat->clips[c.clip].source_animation, t, ref_p, ref_n);
        ASSERT_TRUE(scene->crowd.set_static_pose(ref_p, ref_n).ok());
        const gl::Image ref_image = render(*renderer, *target, *scene, t);
        ASSERT_TRUE(scene->crowd.set_static_pose(vat->geometry.positions, vat->geometry.normals).ok());
        const gl::Image rest_image = render(*renderer, *target, *scene, t);
        const test::ImageDiff d = test::image_diff(vat_image, ref_image);
        const test::ImageDiff rest = test::image_diff(vat_image, rest_image);
        std::printf(
            "[parity image] %-36s clip %u t %.3f s: MAD (%.5f, %.5f, %.5f), %.3f%% pixels differ; "
            "rest pose control MAD %.5f\n",
            test::describe(key).c_str(), c.clip, t, d.mad[0], d.mad[1], d.mad[2], d.differing * 100.0, rest.max_mad);
        EXPECT_LE(d.max_mad, kMaxMad);
        EXPECT_GT(rest.max_mad, 3.0 * d.max_mad + 1e-3) << "the rest pose renders like the animated one";
        worst = std::max(worst, d.max_mad);
      }
    }
  }
  std::printf("[parity image] worst MAD per channel %.5f (gate %.2f)\n", worst, kMaxMad);
}

// The shadow map as floats (depth in [0, 1]).
std::vector<float> read_shadow_map(const gl::Renderer& renderer) {
  const int n = renderer.shadow_map_size();
  std::vector<float> depth(size_t(n) * size_t(n));
  glGetTextureImage(renderer.shadow_map(), 0, GL_DEPTH_COMPONENT, GL_FLOAT, GLsizei(depth.size() * 4), depth.data());
  return depth;
}

// Fraction of texels whose depth differs by more than 1e-3 (the map spans the casters' depth).
double depth_difference(const std::vector<float>& a, const std::vector<float>& b) {
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ += std::abs(a[i] - b[i]) > 1e-3f ? 1 : 0;
  return double(differ) / double(a.size());
}

// Fraction of texels some caster covers (depth < 1).
double covered(const std::vector<float>& a) {
  size_t n = 0;
  for (float d : a) n += d < 1.0f ? 1 : 0;
  return double(n) / double(a.size());
}

TEST_F(GlParityImage, ShadowsFollowThePose) {
  Result<gl::RenderTarget> target = gl::RenderTarget::create({192, 144, 1});
  ASSERT_TRUE(target.ok()) << target.error().message;
  gl::RendererDesc rd;
  rd.shadow_map_size = 256;
  Result<gl::Renderer> renderer = gl::Renderer::create(rd);
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
    for (const ImageCase& c : {ImageCase{"sample", 2}, ImageCase{"khronos/Fox.glb", 1}}) {
      const BakeKey key{c.asset, e, Precision::F32};
      SCOPED_TRACE(test::describe(key));
      const Vat* vat = test::test_bake(key);
      ASSERT_NE(vat, nullptr);
      const Asset* asset = test::test_asset(c.asset);
      auto scene = make_scene(*vat, c.clip, 192.0f / 144.0f);
      ASSERT_NE(scene, nullptr);
      const VatClip& clip = vat->clips[c.clip];
      const float duration = float(clip.rows - 1) / clip.fps;
      const float t1 = duration * 0.25f, t2 = duration * 0.75f;

      render(*renderer, *target, *scene, t1);
      const std::vector<float> vat_t1 = read_shadow_map(*renderer);
      const gl::Image lit = target->read_rgba8();
      render(*renderer, *target, *scene, t2);
      const std::vector<float> vat_t2 = read_shadow_map(*renderer);
      std::vector<glm::vec3> ref_p, ref_n;
      test::reference_in_vat_order(*asset, *vat, clip.source_animation, t1, ref_p, ref_n);
      ASSERT_TRUE(scene->crowd.set_static_pose(ref_p, ref_n).ok());
      render(*renderer, *target, *scene, t1);
      const std::vector<float> ref_t1 = read_shadow_map(*renderer);
      ASSERT_TRUE(scene->crowd.set_static_pose(vat->geometry.positions, vat->geometry.normals).ok());
      render(*renderer, *target, *scene, t1);
      const std::vector<float> rest = read_shadow_map(*renderer);
      scene->crowd.clear_static_pose();

      const double same = depth_difference(vat_t1, ref_t1);
      const double other_pose = depth_difference(vat_t1, vat_t2);
      const double rest_pose = depth_difference(vat_t1, rest);
      std::printf(
          "[shadows] %-28s casters cover %.2f%% of the map; texels differing from the reference pose "
          "%.3f%%, from another time %.3f%%, from the rest pose %.3f%%\n",
          test::describe(key).c_str(), covered(vat_t1) * 100.0, same * 100.0, other_pose * 100.0, rest_pose * 100.0);
      EXPECT_GT(covered(vat_t1), 0.02) << "the shadow pass drew (almost) nothing";
      EXPECT_LT(same, 0.01);
      EXPECT_GT(other_pose, 5.0 * same + 0.005);
      EXPECT_GT(rest_pose, 5.0 * same + 0.005);

      // Shadows present in the lit frame: the same frame without them is lighter on the ground.
      scene->options.shadows = false;
      const gl::Image unshadowed = render(*renderer, *target, *scene, t1);
      scene->options.shadows = true;
      size_t darker = 0;
      for (size_t i = 0; i < lit.pixels.size(); i += 4) {
        const int sum_lit = lit.pixels[i] + lit.pixels[i + 1] + lit.pixels[i + 2];
        const int sum_off = unshadowed.pixels[i] + unshadowed.pixels[i + 1] + unshadowed.pixels[i + 2];
        darker += sum_off - sum_lit > 30 ? 1 : 0;
      }
      const double darker_fraction = double(darker) / double(lit.pixels.size() / 4);
      std::printf("[shadows] %-28s %.2f%% of the frame is in shadow\n", test::describe(key).c_str(),
                  darker_fraction * 100.0);
      EXPECT_GT(darker_fraction, 0.005);
    }
  }
}

}  // namespace
}  // namespace vatkit

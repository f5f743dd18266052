// GPU culling and level-of-detail choice (crowd.h's RenderOptions::gpu_culling and lod, cull.comp):
//  - culling never drops a visible instance: every instance with a decoded vertex (the CPU mirror,
//    mirror.h) inside the camera's frustum is in the GPU's visible list, across fades between
//    clips; the culled frame's pixels equal those of drawing every instance;
//  - the level the GPU picks for each instance is select_lod's (lod.h) for the instance's projected
//    size, worked on the CPU from its world matrix and the camera;
//  - a frame drawn with levels of detail stays within Babylon Lite's image gate of the full mesh;
//  - the pose cache (CrowdDesc; a rig's slot palette, a delta's resolved pose) is filled for every
//    visible instance, and a frame drawn from it, from a cache too small for the crowd, or from
//    none, has the pixels of per-vertex decoding (direct draws).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include <glm/gtc/matrix_transform.hpp>

#include "gl_test_support.h"
#include "test_gl_crowd_util.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/lod.h"
#include "vatkit/mirror.h"
#include "vatkit/playback.h"

namespace vatkit {
namespace {

using test::BakeKey;
using GlCulling = test::GlTest;

// A camera at a person's eye height (0.95 of the character's height) just outside the crowd's
// front edge, looking across it: near instances large, far ones small, many outside the view.
gl::Camera person_camera(const gl::Crowd& crowd, float fov_y_deg) {
  const Bounds b = crowd.world_bounds();
  const Bounds& character = crowd.vat().bounds();
  const float height = character.max.y - character.min.y;
  gl::Camera c;
  c.eye = glm::vec3(b.min.x + (b.max.x - b.min.x) * 0.3f, b.min.y + 0.95f * height, b.max.z + 0.5f * height);
  c.target = glm::vec3((b.min.x + b.max.x) * 0.5f, b.min.y + 0.5f * height, (b.min.z + b.max.z) * 0.5f);
  c.fov_y_deg = fov_y_deg;
  c.near_plane = 0.05f * height;
  c.far_plane = glm::length(b.max - b.min) * 2.0f;
  return c;
}

struct Scene {
  const Vat* vat = nullptr;
  Result<gl::VatGpu> gpu = make_error(ErrorCode::Argument, "scene", "not made");
  Result<gl::Crowd> crowd = make_error(ErrorCode::Argument, "scene", "not made");
};

// `n` instances spread at random; every third one then cross-fades into another clip at `fade_at`,
// so that both bands of a fade decide its bounds.
void make_scene(Scene& s, const BakeKey& key, uint32_t n, float fade_at, const gl::CrowdDesc& desc = {}) {
  s.vat = test::test_bake(key);
  ASSERT_NE(s.vat, nullptr);
  s.gpu = gl::VatGpu::upload(*s.vat);
  ASSERT_TRUE(s.gpu.ok()) << s.gpu.error().message;
  s.crowd = gl::Crowd::create(*s.gpu, n, desc);
  ASSERT_TRUE(s.crowd.ok()) << s.crowd.error().message;
  gl::SpreadOptions spread;
  spread.layout = gl::CrowdLayout::Random;
  spread.seed = 7;
  ASSERT_TRUE(gl::spread_crowd(*s.crowd, spread).ok());
  const auto clips = uint32_t(s.vat->clips.size());
  for (uint32_t i = 0; i < n; i += 3) {
    Instance in;
    in.clip = clip_band(*s.vat, (i / 3) % clips);
    in.start_time = fade_at;
    in.fade_duration = 0.5f;
    ASSERT_TRUE(set_instance(s.crowd->table(), i, in, fade_at).ok());
  }
}

bool any_vertex_in_view(const Vat& vat, const gl::Crowd& crowd, uint32_t i, float t, const glm::mat4& vp,
                        std::vector<glm::vec3>& scratch) {
  scratch.resize(vat.geometry.vertex_count());
  const Result<void> mirrored = mirror_vertices(vat, crowd.table(), i, t, crowd.world(i), 0, scratch);
  EXPECT_TRUE(mirrored.ok()) << mirrored.error().message;
  if (!mirrored) return false;
  for (const glm::vec3& p : scratch) {
    const glm::vec4 c = vp * glm::vec4(p, 1.0f);
    if (std::abs(c.x) <= c.w && std::abs(c.y) <= c.w && std::abs(c.z) <= c.w) return true;
  }
  return false;
}

std::set<uint32_t> all_levels(const std::vector<std::vector<uint32_t>>& levels) {
  std::set<uint32_t> out;
  for (const auto& level : levels) {
    for (uint32_t i : level) EXPECT_TRUE(out.insert(i).second) << "instance " << i << " listed twice";
  }
  return out;
}

double mean_abs_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double sum = 0.0;
  for (size_t k = 0; k < a.size(); ++k) sum += std::abs(int(a[k]) - int(b[k]));
  return sum / (255.0 * double(a.size()));
}

TEST_F(GlCulling, NeverDropsAVisibleInstance) {
  for (const BakeKey& key : {BakeKey{"sample", Encoding::Delta, Precision::Q16},
                             BakeKey{"khronos/Fox.glb", Encoding::Rig, Precision::F16}}) {
    SCOPED_TRACE(test::describe(key));
    Scene s;
    const float fade_at = 1.0f;
    const uint32_t n = 160;
    make_scene(s, key, n, fade_at);
    if (HasFatalFailure()) return;
    const int width = 192, height = 108;
    Result<gl::RenderTarget> target = gl::RenderTarget::create({width, height, 1});
    ASSERT_TRUE(target.ok());
    gl::RendererDesc rd;
    rd.shadow_map_size = 256;
    Result<gl::Renderer> renderer = gl::Renderer::create(rd);
    ASSERT_TRUE(renderer.ok()) << renderer.error().message;
    const gl::Camera camera = person_camera(*s.crowd, 50.0f);
    const glm::mat4 vp = camera.projection(float(width) / float(height)) * camera.view();

    std::vector<glm::vec3> scratch;
    for (float t : {0.3f, fade_at + 0.05f, fade_at + 0.3f}) {
      SCOPED_TRACE("t = " + std::to_string(t));
      gl::RenderOptions culled;
      culled.lod = false;
      renderer->render(*target, *s.crowd, camera, t, culled);
      Result<std::vector<std::vector<uint32_t>>> visible = renderer->read_visible(*s.crowd);
      ASSERT_TRUE(visible.ok()) << visible.error().message;
      ASSERT_EQ(visible->size(), 1u) << "without LOD, one level";
      const std::set<uint32_t> gpu = all_levels(*visible);
      Result<gl::CullingStats> stats = renderer->read_culling_stats(*s.crowd);
      ASSERT_TRUE(stats.ok());
      EXPECT_EQ(stats->visible, gpu.size());
      EXPECT_EQ(stats->shadow_visible, n) << "the light's box holds the whole crowd";

      uint32_t cpu_visible = 0;
      for (uint32_t i = 0; i < n; ++i) {
        if (!any_vertex_in_view(*s.vat, *s.crowd, i, t, vp, scratch)) continue;
        ++cpu_visible;
        EXPECT_TRUE(gpu.count(i)) << "instance " << i << " has a vertex in view but was culled";
      }
      // Culling does cull, and not much more loosely than the vertices themselves: the boxes are
      // per clip, so an instance near the frustum's edge may pass with no vertex inside.
      EXPECT_GT(cpu_visible, n / 10);
      EXPECT_LT(gpu.size(), n);
      EXPECT_LE(gpu.size(), cpu_visible * 5 / 4 + 8);
      const std::vector<uint8_t> with_culling = target->read_rgba8().pixels;

      gl::RenderOptions everything;
      everything.gpu_culling = false;
      renderer->render(*target, *s.crowd, camera, t, everything);
      const std::vector<uint8_t> without = target->read_rgba8().pixels;
      ASSERT_EQ(without.size(), with_culling.size());
      // The same pixels: the culled instances were not in view. (Draw order differs, so a pixel
      // where two instances tie in depth could differ; none should.)
      size_t differing = 0;
      for (size_t k = 0; k < without.size(); k += 4) {
        differing += std::memcmp(&without[k], &with_culling[k], 4) != 0 ? 1 : 0;
      }
      EXPECT_LE(differing, size_t(width * height) / 1000) << "pixels differ between culled and full frames";
    }
  }
}

// The shadow pass culls casters against the light's box, not the camera's view. With that box
// around part of the crowd (RenderOptions::shadow_bounds) and the camera turned away from it,
// the culled pass drops the casters outside the box and keeps those the camera does not see: its
// shadow map is the map of drawing every caster.
TEST_F(GlCulling, ShadowPassNeverDropsACasterInTheLightsBox) {
  Scene s;
  const uint32_t n = 160;
  make_scene(s, BakeKey{"sample", Encoding::Delta, Precision::Q16}, n, 1.0f);
  if (HasFatalFailure()) return;
  Result<gl::RenderTarget> target = gl::RenderTarget::create({96, 54, 1});
  ASSERT_TRUE(target.ok());
  gl::RendererDesc rd;
  rd.shadow_map_size = 256;
  Result<gl::Renderer> renderer = gl::Renderer::create(rd);
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  gl::Camera camera = person_camera(*s.crowd, 50.0f);
  camera.target = camera.eye + (camera.eye - camera.target);  // looking away: nothing in view
  const Bounds world = s.crowd->world_bounds();
  gl::RenderOptions culled;
  culled.lod = false;
  culled.shadow_bounds = world;
  // A corner of the crowd: a third of it in x and in z.
  culled.shadow_bounds.max.x = world.min.x + (world.max.x - world.min.x) / 3.0f;
  culled.shadow_bounds.max.z = world.min.z + (world.max.z - world.min.z) / 3.0f;
  auto shadow_map = [&] {
    std::vector<float> depth(size_t(renderer->shadow_map_size()) * size_t(renderer->shadow_map_size()));
    glGetTextureImage(renderer->shadow_map(), 0, GL_DEPTH_COMPONENT, GL_FLOAT, GLsizei(depth.size() * 4), depth.data());
    return depth;
  };
  for (float t : {0.4f, 1.2f}) {
    SCOPED_TRACE("t = " + std::to_string(t));
    renderer->render(*target, *s.crowd, camera, t, culled);
    Result<gl::CullingStats> stats = renderer->read_culling_stats(*s.crowd);
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    EXPECT_EQ(stats->visible, 0u) << "the camera looks away";
    EXPECT_LT(stats->shadow_visible, n / 2) << "the light's box should leave casters out";
    EXPECT_GT(stats->shadow_visible, 0u);
    const std::vector<float> with_culling = shadow_map();
    gl::RenderOptions everything = culled;
    everything.gpu_culling = false;
    renderer->render(*target, *s.crowd, camera, t, everything);
    const std::vector<float> without = shadow_map();
    size_t differing = 0, covered = 0;
    for (size_t k = 0; k < without.size(); ++k) {
      differing += without[k] != with_culling[k] ? 1 : 0;
      covered += without[k] < 1.0f ? 1 : 0;
    }
    EXPECT_GT(covered, without.size() / 50) << "casters in the map";
    EXPECT_LE(differing, without.size() / 1000) << "texels differ between the culled and the full shadow pass";
  }
}

TEST_F(GlCulling, LevelsAreSelectLodOfTheProjectedSize) {
  const BakeKey key{"sample", Encoding::Delta, Precision::F16, 16384, true, 30.0f, 3};
  Scene s;
  make_scene(s, key, 300, 0.5f);
  if (HasFatalFailure()) return;
  ASSERT_GE(s.vat->geometry.lods.size(), 2u) << "the sample character should have levels of detail";
  ASSERT_EQ(s.gpu->levels().size(), s.vat->geometry.lods.size() + 1);
  const int width = 320, height = 180;
  Result<gl::RenderTarget> target = gl::RenderTarget::create({width, height, 1});
  ASSERT_TRUE(target.ok());
  Result<gl::Renderer> renderer = gl::Renderer::create();
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  const gl::Camera camera = person_camera(*s.crowd, 45.0f);
  const float t = 0.8f;

  gl::RenderOptions no_lod;
  no_lod.lod = false;
  no_lod.shadows = false;
  renderer->render(*target, *s.crowd, camera, t, no_lod);
  Result<std::vector<std::vector<uint32_t>>> full = renderer->read_visible(*s.crowd);
  ASSERT_TRUE(full.ok()) << full.error().message;
  const std::vector<uint8_t> full_image = target->read_rgba8().pixels;

  for (float budget : {0.25f, 1.0f}) {
    SCOPED_TRACE("budget " + std::to_string(budget) + " px");
    gl::RenderOptions lod = no_lod;
    lod.lod = true;
    lod.lod_error_px = budget;
    renderer->render(*target, *s.crowd, camera, t, lod);
    Result<std::vector<std::vector<uint32_t>>> levels = renderer->read_visible(*s.crowd);
    ASSERT_TRUE(levels.ok()) << levels.error().message;
    ASSERT_EQ(levels->size(), s.gpu->levels().size());
    EXPECT_EQ(all_levels(*levels), all_levels(*full)) << "levels change how, never whether, an instance is drawn";

    // The CPU's choice: lod.h's formula, from the instance's world matrix and the camera.
    const float pixels = float(height) / (2.0f * std::tan(glm::radians(camera.fov_y_deg) * 0.5f));
    const Bounds& b = s.vat->bounds;
    const glm::vec3 centre = (b.min + b.max) * 0.5f;
    std::set<uint32_t> used;
    size_t checked = 0;
    for (uint32_t level = 0; level < levels->size(); ++level) {
      for (uint32_t i : (*levels)[level]) {
        const glm::mat4& w = s.crowd->world(i);
        const float scale =
            std::max({glm::length(glm::vec3(w[0])), glm::length(glm::vec3(w[1])), glm::length(glm::vec3(w[2]))});
        const float radius = lod_sphere_radius(*s.vat) * scale;
        const float d = glm::length(camera.eye - glm::vec3(w * glm::vec4(centre, 1.0f)));
        uint32_t expected = 0;
        float diameter = 0.0f;
        if (d > radius) {
          diameter = 2.0f * radius * pixels / d;
          expected = select_lod(*s.vat, diameter, budget);
        }
        // Single-precision evaluation order differs between the GPU and here: forgive a diameter
        // within 1e-4 of a level's switching point.
        bool near_switch = false;
        for (const LodLevel& l : s.vat->geometry.lods) {
          near_switch |= std::abs(diameter - budget * l.screen_size) <= 1e-4f * diameter;
        }
        if (!near_switch) {
          EXPECT_EQ(level, expected) << "instance " << i << ", projected diameter " << diameter << " px";
          ++checked;
        }
        used.insert(level);
      }
    }
    EXPECT_GT(checked, 0u);
    EXPECT_GE(used.size(), 2u) << "a view across the crowd should use several levels";

    // What the levels look like: within Babylon Lite's gate of the full mesh.
    EXPECT_LE(mean_abs_difference(target->read_rgba8().pixels, full_image), 0.02);
  }
}

// The shadow pass takes the camera's level or, if coarser, the coarsest whose error fits in the
// budget in shadow-map texels: per instance on the CPU (every instance is in the light's box),
// counted per level against the GPU's, with a small and a large shadow map.
TEST_F(GlCulling, ShadowLevelsAreTheCoarserOfTheCamerasAndTheTexels) {
  const BakeKey key{"sample", Encoding::Delta, Precision::F16, 16384, true, 30.0f, 3};
  Scene s;
  const uint32_t n = 200;
  make_scene(s, key, n, 0.5f);
  if (HasFatalFailure()) return;
  ASSERT_GE(s.vat->geometry.lods.size(), 2u);
  const int width = 320, height = 180;
  Result<gl::RenderTarget> target = gl::RenderTarget::create({width, height, 1});
  ASSERT_TRUE(target.ok());
  const gl::Camera camera = person_camera(*s.crowd, 45.0f);
  const float t = 0.8f, budget = 1.0f;
  const float pixels = float(height) / (2.0f * std::tan(glm::radians(camera.fov_y_deg) * 0.5f));
  const Bounds& b = s.vat->bounds;
  const glm::vec3 centre = (b.min + b.max) * 0.5f;
  for (int map : {16, 4096}) {
    SCOPED_TRACE("shadow map " + std::to_string(map));
    gl::RendererDesc rd;
    rd.shadow_map_size = map;
    Result<gl::Renderer> renderer = gl::Renderer::create(rd);
    ASSERT_TRUE(renderer.ok()) << renderer.error().message;
    gl::RenderOptions options;
    options.lod_error_px = budget;
    renderer->render(*target, *s.crowd, camera, t, options);
    Result<gl::CullingStats> stats = renderer->read_culling_stats(*s.crowd);
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    ASSERT_EQ(stats->shadow_visible, n) << "the light's box holds the whole crowd";
    ASSERT_EQ(stats->shadow_per_level.size(), s.gpu->levels().size());
    const float texel = renderer->shadow_texel_world() * budget;
    ASSERT_GT(texel, 0.0f);
    // Per level: the instances that must be there, and those that may be (single precision near a
    // switching point).
    std::vector<uint64_t> lo(stats->shadow_per_level.size(), 0), hi = lo;
    uint32_t coarser = 0;  // instances whose texel level is coarser than the camera's
    for (uint32_t i = 0; i < n; ++i) {
      const glm::mat4& w = s.crowd->world(i);
      const float scale =
          std::max({glm::length(glm::vec3(w[0])), glm::length(glm::vec3(w[1])), glm::length(glm::vec3(w[2]))});
      const float radius = lod_sphere_radius(*s.vat) * scale;
      const float d = glm::length(camera.eye - glm::vec3(w * glm::vec4(centre, 1.0f)));
      const float diameter = d > radius ? 2.0f * radius * pixels / d : 0.0f;
      const float texels = 2.0f * radius / texel;
      const uint32_t camera_level = d > radius ? select_lod(*s.vat, diameter, budget) : 0u;
      const uint32_t expected = std::max(camera_level, select_lod(*s.vat, texels, 1.0f));
      coarser += expected > camera_level ? 1 : 0;
      bool near_switch = false;
      for (const LodLevel& l : s.vat->geometry.lods) {
        near_switch |= std::abs(diameter - budget * l.screen_size) <= 1e-4f * diameter;
        near_switch |= std::abs(texels - l.screen_size) <= 1e-4f * texels;
      }
      ++hi[expected];
      if (near_switch) {
        if (expected > 0) ++hi[expected - 1];
        if (expected + 1 < hi.size()) ++hi[expected + 1];
      } else {
        ++lo[expected];
      }
    }
    for (size_t level = 0; level < lo.size(); ++level) {
      EXPECT_GE(stats->shadow_per_level[level], lo[level]) << "level " << level;
      EXPECT_LE(stats->shadow_per_level[level], hi[level]) << "level " << level;
    }
    // The coarse map's texels decide some casters' levels (the far ones are coarse for the
    // camera already); the fine map's none.
    if (map == 16) {
      EXPECT_GT(coarser, 0u);
    } else {
      EXPECT_EQ(coarser, 0u);
    }
  }
}

size_t differing_pixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t n = 0;
  for (size_t k = 0; k + 4 <= std::min(a.size(), b.size()); k += 4) n += std::memcmp(&a[k], &b[k], 4) != 0 ? 1 : 0;
  return n;
}

// A frame of `key`'s crowd drawn from a full pose cache, from one too small for the crowd and from
// none, against per-vertex decoding (direct draws), at times before, in and after fades.
void expect_cache_frames_match(const BakeKey& key, gl::Renderer& renderer, gl::RenderTarget& target) {
  const uint32_t n = 120;
  const float fade_at = 1.0f;
  const Vat* vat = test::test_bake(key);
  ASSERT_NE(vat, nullptr);
  const size_t entry_bytes = key.encoding == Encoding::Rig ? 48 * vat->slots.size() : 32;
  const size_t capacities[3] = {n, 7, 0};
  Scene scenes[3];
  for (int i = 0; i < 3; ++i) {
    gl::CrowdDesc desc;
    desc.instance_cache_bytes = capacities[i] * entry_bytes + entry_bytes / 2;
    make_scene(scenes[i], key, n, fade_at, desc);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const int pixels = target.width() * target.height();
  const gl::Camera camera = person_camera(*scenes[0].crowd, 50.0f);
  for (float t : {0.4f, fade_at + 0.1f, fade_at + 0.35f}) {
    SCOPED_TRACE("t = " + std::to_string(t));
    gl::RenderOptions direct;
    direct.gpu_culling = false;
    renderer.render(target, *scenes[2].crowd, camera, t, direct);
    const std::vector<uint8_t> reference = target.read_rgba8().pixels;
    for (int i = 0; i < 3; ++i) {
      SCOPED_TRACE("cache for " + std::to_string(capacities[i]) + " instances");
      gl::RenderOptions culled;
      culled.lod = false;
      renderer.render(target, *scenes[i].crowd, camera, t, culled);
      Result<gl::CullingStats> stats = renderer.read_culling_stats(*scenes[i].crowd);
      ASSERT_TRUE(stats.ok()) << stats.error().message;
      EXPECT_EQ(stats->cache_capacity, capacities[i]);
      EXPECT_GT(stats->visible, 7u);
      EXPECT_EQ(stats->cached, std::min<uint64_t>(stats->visible, capacities[i]));
      const std::vector<uint8_t> image = target.read_rgba8().pixels;
      EXPECT_LE(differing_pixels(image, reference), size_t(pixels) / 1000);
      EXPECT_LE(mean_abs_difference(image, reference), 1e-4);
    }
  }
  // A control: the same frame at another time differs, so the comparison can see a wrong pose.
  gl::RenderOptions culled;
  culled.lod = false;
  renderer.render(target, *scenes[0].crowd, camera, 0.4f, culled);
  const std::vector<uint8_t> early = target.read_rgba8().pixels;
  renderer.render(target, *scenes[0].crowd, camera, 0.5f, culled);
  EXPECT_GT(differing_pixels(early, target.read_rgba8().pixels), size_t(pixels) / 200);
}

TEST_F(GlCulling, PoseCacheDrawsWhatPerVertexDecodeDraws) {
  Result<gl::RenderTarget> target = gl::RenderTarget::create({256, 144, 1});
  ASSERT_TRUE(target.ok());
  gl::RendererDesc rd;
  rd.shadow_map_size = 512;
  Result<gl::Renderer> renderer = gl::Renderer::create(rd);
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  for (const BakeKey& key : {BakeKey{"sample", Encoding::Rig, Precision::Q16},
                             BakeKey{"synthetic:eight-influences", Encoding::Rig, Precision::F32},
                             BakeKey{"khronos/Fox.glb", Encoding::Delta, Precision::F16}}) {
    SCOPED_TRACE(test::describe(key));
    expect_cache_frames_match(key, *renderer, *target);
  }
}

}  // namespace
}  // namespace vatkit

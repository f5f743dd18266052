// Crowds: uploads (planes in their formats, geometry, images, errors), event-driven instance
// uploads (nothing per frame when nothing changed), the drawn list keyed by logical indices, the
// camera framing, spreading a crowd, and the draw count per pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <fstream>
#include <filesystem>
#include <cstdio>
#include <cstring>

#include <glm/gtc/matrix_transform.hpp>

#include "gl_test_support.h"
#include "test_support.h"
#include "test_gl_crowd_util.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/decode_glsl.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/program.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/instance_table.h"
#include "vatkit/playback.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit {
namespace {

using test::BakeKey;
namespace fs = std::filesystem;
using GlCrowd = test::GlTest;

TEST_F(GlCrowd, UploadKeepsPlanesInTheirFormatsAndBytes) {
  for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) {
    for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
      const BakeKey key{"khronos/Fox.glb", e, p};
      SCOPED_TRACE(test::describe(key));
      const Vat* vat = test::test_bake(key);
      ASSERT_NE(vat, nullptr);
      Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
      ASSERT_TRUE(gpu.ok()) << gpu.error().message;
      const PlaneSemantic main = e == Encoding::Rig ? PlaneSemantic::Slots : PlaneSemantic::Position;
      const gl::GpuPlane* plane = gpu->plane(main);
      ASSERT_NE(plane, nullptr);
      const Plane* cpu = vat->plane(main);
      EXPECT_EQ(plane->width, cpu->width);
      EXPECT_EQ(plane->height, cpu->height);
      GLint format = 0;
      glGetTextureLevelParameteriv(plane->texture, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
      EXPECT_EQ(GLenum(format), p == Precision::F32   ? GLenum(GL_RGBA32F)
                                : p == Precision::F16 ? GLenum(GL_RGBA16F)
                                                      : GLenum(GL_RGBA16UI));
      // The texture holds the plane's bytes exactly (read back in the upload format).
      std::vector<uint8_t> back(cpu->byte_size());
      const GLenum fmt = p == Precision::Q16 ? GL_RGBA_INTEGER : GL_RGBA;
      const GLenum type = p == Precision::F32 ? GL_FLOAT : p == Precision::F16 ? GL_HALF_FLOAT : GL_UNSIGNED_SHORT;
      glGetTextureImage(plane->texture, 0, fmt, type, GLsizei(back.size()), back.data());
      EXPECT_TRUE(std::equal(back.begin(), back.end(), cpu->data.begin())) << "plane bytes changed on the way";
      EXPECT_EQ(gpu->vertex_count(), vat->geometry.vertex_count());
      EXPECT_EQ(gpu->groups().size(), 1u);
      ASSERT_FALSE(gpu->materials().empty());
      EXPECT_NE(gpu->materials()[0].base_color_texture, 0u) << "Fox's texture was not uploaded";
      EXPECT_EQ(gpu->defines(), gl::decode_defines(*vat));
    }
  }
}

// A .vat.glb goes to the GPU straight from the bytes load_vat read: VatGpu::upload copies none
// of the planes on the CPU (no heap block as large as the smallest plane) yet the textures hold
// the file's bytes.
TEST_F(GlCrowd, UploadGoesStraightFromTheLoadedBytes) {
  const fs::path dir = test::scratch_dir("gl_upload_loaded");
  for (const BakeKey& key : {BakeKey{"khronos/Fox.glb", Encoding::Delta, Precision::F32},
                             BakeKey{"khronos/Fox.glb", Encoding::Rig, Precision::Q16}}) {
    SCOPED_TRACE(test::describe(key));
    const Vat* baked = test::test_bake(key);
    ASSERT_NE(baked, nullptr);
    const fs::path path = dir / (key.encoding == Encoding::Rig ? "rig.vat.glb" : "delta.vat.glb");
    ASSERT_TRUE(save_vat(*baked, path).ok());
    Result<Vat> loaded = load_vat(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    size_t smallest = SIZE_MAX;
    for (const Plane& plane : loaded->planes) smallest = std::min(smallest, plane.data.size());
    std::optional<gl::VatGpu> gpu;
    {
      gl::VatUploadOptions planes_only;  // the base colour texture is decoded on the CPU: not a plane
      planes_only.base_color_textures = false;
      test::CountAllocations allocations;
      Result<gl::VatGpu> uploaded = gl::VatGpu::upload(*loaded, planes_only);
      ASSERT_TRUE(uploaded.ok()) << uploaded.error().message;
      EXPECT_LT(allocations.largest(), smallest) << "upload made a block as large as a plane";
      gpu.emplace(std::move(*uploaded));
    }
    const PlaneSemantic main = key.encoding == Encoding::Rig ? PlaneSemantic::Slots : PlaneSemantic::Position;
    ASSERT_NE(gpu->plane(main), nullptr);
    for (const Plane& cpu : loaded->planes) {
      const gl::GpuPlane* plane = gpu->plane(cpu.semantic);
      if (plane == nullptr) continue;  // a plane this encoding's decode does not read
      std::vector<uint8_t> back(cpu.byte_size());
      const GLenum fmt = key.precision == Precision::Q16 ? GL_RGBA_INTEGER : GL_RGBA;
      const GLenum type = key.precision == Precision::F32   ? GL_FLOAT
                          : key.precision == Precision::F16 ? GL_HALF_FLOAT
                                                            : GL_UNSIGNED_SHORT;
      glGetTextureImage(plane->texture, 0, fmt, type, GLsizei(back.size()), back.data());
      EXPECT_TRUE(std::equal(back.begin(), back.end(), cpu.data.begin())) << "the texture is not the file's bytes";
    }
  }
}

TEST_F(GlCrowd, UploadErrorsAreOneLineNamingTheVat) {
  const Vat* vat = test::test_bake({"sample", Encoding::Delta, Precision::F16});
  ASSERT_NE(vat, nullptr);
  Vat wide = *vat;
  wide.source = "wide.vat.glb";
  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  for (Plane& p : wide.planes) p.width = uint32_t(max_texture) + 1;  // never read: refused first
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(wide);
  ASSERT_FALSE(gpu.ok());
  EXPECT_NE(gpu.error().message.find("wide.vat.glb"), std::string::npos) << gpu.error().message;
  EXPECT_NE(gpu.error().message.find("texture limit"), std::string::npos) << gpu.error().message;
  EXPECT_EQ(gpu.error().message.find('\n'), std::string::npos);

  Vat broken_image = *test::test_bake({"khronos/Fox.glb", Encoding::Rig, Precision::F16});
  broken_image.source = "fox.vat.glb";
  ASSERT_FALSE(broken_image.images.empty());
  broken_image.images[0].bytes.assign(64, 0x42);
  gpu = gl::VatGpu::upload(broken_image);
  ASSERT_FALSE(gpu.ok());
  EXPECT_NE(gpu.error().message.find("fox.vat.glb: image 0"), std::string::npos) << gpu.error().message;
  gl::VatUploadOptions no_textures;
  no_textures.base_color_textures = false;
  EXPECT_TRUE(gl::VatGpu::upload(broken_image, no_textures).ok());

  Vat empty = *vat;
  empty.geometry.indices.clear();
  EXPECT_FALSE(gl::VatGpu::upload(empty).ok());
  EXPECT_TRUE(ctx->take_errors().empty()) << "a refused upload left a GL error";
}

// Renders `frames` frames and returns the renderer's stats of the last.
gl::RenderStats render_frames(gl::Renderer& renderer, const gl::RenderTarget& target, gl::Crowd& crowd,
                              const gl::Camera& camera, int frames, float t) {
  for (int i = 0; i < frames; ++i) renderer.render(target, crowd, camera, t + 0.01f * float(i));
  return renderer.stats();
}

TEST_F(GlCrowd, NothingIsUploadedWhenNothingChanged) {
  const Vat* vat = test::test_bake({"khronos/Fox.glb", Encoding::Rig, Precision::Q16});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  const uint32_t n = 64;
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, n);
  ASSERT_TRUE(crowd.ok()) << crowd.error().message;
  ASSERT_TRUE(gl::spread_crowd(*crowd).ok());
  Result<gl::RenderTarget> target = gl::RenderTarget::create({64, 48, 1});
  ASSERT_TRUE(target.ok());
  gl::RendererDesc rd;
  rd.shadow_map_size = 128;
  Result<gl::Renderer> renderer = gl::Renderer::create(rd);
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  const gl::Camera camera = gl::camera_for_bounds(crowd->world_bounds(), 64.0f / 48.0f);

  // The first frame uploads what spread_crowd wrote: every row and every matrix.
  gl::RenderStats s = render_frames(*renderer, *target, *crowd, camera, 1, 0.5f);
  EXPECT_EQ(s.uploaded_bytes, size_t(n) * (96 + 64));
  // One lit draw per material group and one shadow draw for them all (GPU-culled multi-draws),
  // and the ground.
  EXPECT_EQ(s.draw_calls, gpu->groups().size() + 2u);
  // The camera frames the crowd: every instance passes both culling passes, at full detail (no levels).
  Result<gl::CullingStats> culled = renderer->read_culling_stats(*crowd);
  ASSERT_TRUE(culled.ok()) << culled.error().message;
  EXPECT_EQ(culled->instances, n);
  EXPECT_EQ(culled->visible, n);
  EXPECT_EQ(culled->shadow_visible, n);
  EXPECT_EQ(culled->triangles + culled->shadow_triangles, 2u * n * (gpu->index_count() / 3));
  // The same frame with direct draws counts its triangles on the CPU.
  gl::RenderOptions direct;
  direct.gpu_culling = false;
  renderer->render(*target, *crowd, camera, 0.5f, direct);
  EXPECT_EQ(renderer->stats().draw_calls, 2u * gpu->groups().size() + 1u);
  EXPECT_EQ(renderer->stats().triangles, 2u * n * (gpu->index_count() / 3) + 2u);
  EXPECT_FALSE(renderer->read_culling_stats(*crowd).ok()) << "the direct frame did not cull";
  // Then nothing, frame after frame, while the clock runs: no upload, and no heap allocation
  // (render_frames passes the crowd by reference and every buffer was made at creation).
  {
    render_frames(*renderer, *target, *crowd, camera, 2, 0.55f);  // the culled frame's programs warm
    test::CountAllocations allocations;
    s = render_frames(*renderer, *target, *crowd, camera, 3, 0.6f);
    EXPECT_EQ(allocations.count(), 0u) << "a frame allocated";
  }
  EXPECT_EQ(s.uploaded_bytes, 0u);

  // One instance changes its animation: its row, 96 bytes, and nothing else.
  Instance in;
  in.clip = clip_band(*vat, 1);
  in.start_time = 0.7f;
  in.fade_duration = 0.2f;
  ASSERT_TRUE(set_instance(crowd->table(), 17, in, 0.7f).ok());
  s = render_frames(*renderer, *target, *crowd, camera, 1, 0.7f);
  EXPECT_EQ(s.uploaded_bytes, 96u);
  // Two far apart: two rows. A matrix: 64 bytes.
  ASSERT_TRUE(set_instance(crowd->table(), 3, in, 0.7f).ok());
  ASSERT_TRUE(set_instance(crowd->table(), 50, in, 0.7f).ok());
  crowd->set_world(42, glm::translate(glm::mat4(1.0f), glm::vec3(1.0f, 0.0f, 0.0f)));
  s = render_frames(*renderer, *target, *crowd, camera, 1, 0.8f);
  EXPECT_EQ(s.uploaded_bytes, 2u * 96u + 64u);
  s = render_frames(*renderer, *target, *crowd, camera, 2, 0.9f);
  EXPECT_EQ(s.uploaded_bytes, 0u);
}

TEST_F(GlCrowd, AChangedFrameDrawsWhatAFreshRendererDraws) {
  // The renderer sets a uniform only when its value changed (gl::UniformCache): a frame whose
  // camera, light, clock, levels of detail and shadows all changed since the last must draw
  // exactly what a fresh renderer and crowd draw for it, in both culling passes.
  const Vat* vat = test::test_bake({"sample", Encoding::Rig, Precision::F16, 16384, true, 30.0f, 2});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  const uint32_t n = 24;
  Result<gl::RenderTarget> target = gl::RenderTarget::create({160, 120, 1});
  ASSERT_TRUE(target.ok());
  auto make_crowd = [&]() {
    Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, n);
    EXPECT_TRUE(crowd.ok()) << crowd.error().message;
    gl::SpreadOptions spread;
    spread.seed = 11;
    EXPECT_TRUE(gl::spread_crowd(*crowd, spread).ok());
    return std::move(*crowd);
  };
  gl::Crowd used = make_crowd(), fresh = make_crowd();
  Result<gl::Renderer> renderer = gl::Renderer::create({256});
  Result<gl::Renderer> fresh_renderer = gl::Renderer::create({256});
  ASSERT_TRUE(renderer.ok() && fresh_renderer.ok());

  const gl::Camera near = gl::camera_for_bounds(used.world_bounds(), 160.0f / 120.0f, 30.0f, 20.0f);
  gl::Camera far = gl::camera_for_bounds(used.world_bounds(), 160.0f / 120.0f, -60.0f, 35.0f);
  far.eye = far.target + (far.eye - far.target) * 4.0f;  // coarser levels
  gl::RenderOptions first;
  first.lod_error_px = 4.0f;
  gl::RenderOptions second = first;
  second.light.direction = glm::vec3(0.6f, 0.5f, -0.3f);
  second.light.color = glm::vec3(0.8f, 0.9f, 1.0f);
  second.lod_error_px = 1.0f;
  second.shadows = false;

  renderer->render(*target, used, near, 0.4f, first);
  const gl::Image before = target->read_rgba8();
  renderer->render(*target, used, far, 1.3f, second);
  const gl::Image after = target->read_rgba8();
  Result<gl::CullingStats> after_stats = renderer->read_culling_stats(used);
  fresh_renderer->render(*target, fresh, far, 1.3f, second);
  const gl::Image expected = target->read_rgba8();
  Result<gl::CullingStats> expected_stats = fresh_renderer->read_culling_stats(fresh);
  ASSERT_TRUE(after_stats.ok() && expected_stats.ok());
  EXPECT_GT(test::image_diff(before, after).differing, 0.05) << "the two frames should differ";
  EXPECT_EQ(test::image_diff(expected, after).differing, 0.0) << "a uniform kept its last frame's value";
  EXPECT_EQ(after_stats->per_level, expected_stats->per_level);
  EXPECT_GT(after_stats->per_level.size(), 1u);

  // And back: the first frame again, from the renderer that drew the second.
  renderer->render(*target, used, near, 0.4f, first);
  EXPECT_EQ(test::image_diff(before, target->read_rgba8()).differing, 0.0);
}

TEST_F(GlCrowd, UniformCacheSetsOnlyChangedValues) {
  gl::ProgramDesc desc;
  desc.name = "cache";
  desc.shaders = {{gl::ShaderStage::Compute,
                   "layout(local_size_x = 1) in;\n"
                   "uniform float u_f; uniform uint u_u; uniform vec3 u_v; uniform vec4 u_a[2];\n"
                   "layout(std430, binding = 0) buffer Out { vec4 o[]; };\n"
                   "void main() { o[0] = vec4(u_f, float(u_u), u_v.x, u_a[1].w); }\n",
                   ""}};
  Result<gl::Program> program = gl::build_program(desc);
  ASSERT_TRUE(program.ok()) << program.error().message;
  const GLuint p = program->id();
  const GLint f = gl::uniform_location(*program, "u_f"), u = gl::uniform_location(*program, "u_u");
  const GLint a = gl::uniform_location(*program, "u_a");
  ASSERT_GE(f, 0);
  ASSERT_GE(u, 0);
  ASSERT_GE(a, 0);
  auto get_f = [&] {
    GLfloat v = -1.0f;
    glGetUniformfv(p, f, &v);
    return v;
  };
  gl::UniformCache cache;
  cache.set(p, f, 2.5f);
  EXPECT_EQ(get_f(), 2.5f);
  // Another writer changes it behind the cache's back: setting the value the cache holds is
  // skipped (what makes a steady frame cost no uniform call)...
  glProgramUniform1f(p, f, 7.0f);
  cache.set(p, f, 2.5f);
  EXPECT_EQ(get_f(), 7.0f);
  // ...and a different value is set.
  cache.set(p, f, 3.0f);
  EXPECT_EQ(get_f(), 3.0f);
  cache.set(p, u, 9u);
  GLuint got_u = 0;
  glGetUniformuiv(p, u, &got_u);
  EXPECT_EQ(got_u, 9u);
  const glm::vec4 arr[2] = {glm::vec4(1.0f), glm::vec4(2.0f, 3.0f, 4.0f, 5.0f)};
  cache.set(p, a, std::span<const glm::vec4>(arr));
  GLfloat second[4] = {};
  glGetUniformfv(p, gl::uniform_location(*program, "u_a[1]"), second);
  EXPECT_EQ(second[3], 5.0f);
  cache.set(p, -1, 1.0f);  // no such uniform: ignored, as GL does
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

TEST_F(GlCrowd, DrawnListSelectsInstancesWithoutMixingThemUp) {
  const Vat* vat = test::test_bake({"sample", Encoding::Delta, Precision::F16});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  const uint32_t n = 9;
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, n);
  ASSERT_TRUE(crowd.ok()) << crowd.error().message;
  gl::SpreadOptions spread;
  spread.seed = 7;
  ASSERT_TRUE(gl::spread_crowd(*crowd, spread).ok());
  Result<gl::RenderTarget> target = gl::RenderTarget::create({160, 120, 1});
  ASSERT_TRUE(target.ok());
  Result<gl::Renderer> renderer = gl::Renderer::create({256});
  ASSERT_TRUE(renderer.ok());
  const gl::Camera camera = gl::camera_for_bounds(crowd->world_bounds(), 160.0f / 120.0f);
  gl::RenderOptions options;
  options.shadows = false;  // keeps the frames independent of the crowd's bounds (light box)
  options.ground = false;   // (and so does this: the ground follows the bounds)

  renderer->render(*target, *crowd, camera, 1.3f, options);
  const gl::Image all = target->read_rgba8();
  // Every instance, drawn in reverse order: the same picture.
  std::vector<uint32_t> reversed(n);
  for (uint32_t i = 0; i < n; ++i) reversed[i] = n - 1 - i;
  ASSERT_TRUE(crowd->set_drawn(reversed).ok());
  renderer->render(*target, *crowd, camera, 1.3f, options);
  const test::ImageDiff same = test::image_diff(all, target->read_rgba8());
  EXPECT_LT(same.differing, 0.001) << "reordering the drawn list changed what instances show";
  // Half of them: a different picture, and exactly the one of a crowd whose other half is moved away.
  const std::vector<uint32_t> half = {8, 6, 4, 2, 0};
  ASSERT_TRUE(crowd->set_drawn(half).ok());
  EXPECT_EQ(crowd->drawn_count(), 5u);
  renderer->render(*target, *crowd, camera, 1.3f, options);
  const gl::Image subset = target->read_rgba8();
  EXPECT_GT(test::image_diff(all, subset).differing, 0.005);
  ASSERT_TRUE(crowd->set_drawn({}).ok());
  const glm::mat4 far_away = glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, -1e4f, 0.0f));
  std::vector<glm::mat4> saved;
  for (uint32_t i = 1; i < n; i += 2) {
    saved.push_back(crowd->world(i));
    crowd->set_world(i, far_away);
  }
  renderer->render(*target, *crowd, camera, 1.3f, options);
  EXPECT_LT(test::image_diff(subset, target->read_rgba8()).differing, 0.001);

  EXPECT_FALSE(crowd->set_drawn(std::vector<uint32_t>{3, 9}).ok()) << "instance 9 of 9 accepted";
  EXPECT_FALSE(crowd->set_drawn(std::vector<uint32_t>(10, 0)).ok()) << "a list longer than the crowd accepted";
}

TEST_F(GlCrowd, CameraFramesTheCrowd) {
  const Bounds boxes[] = {{glm::vec3(-1.0f, 0.0f, -1.0f), glm::vec3(1.0f, 2.0f, 1.0f)},
                          {glm::vec3(-300.0f, 0.0f, -40.0f), glm::vec3(250.0f, 80.0f, 500.0f)},
                          {glm::vec3(0.0f), glm::vec3(0.01f, 0.02f, 0.005f)}};
  for (const Bounds& b : boxes) {
    for (float aspect : {16.0f / 9.0f, 1.0f, 0.5f}) {
      const gl::Camera camera = gl::camera_for_bounds(b, aspect);
      const glm::mat4 vp = camera.projection(aspect) * camera.view();
      float extent = 0.0f;
      for (int i = 0; i < 8; ++i) {
        const glm::vec3 corner((i & 1) ? b.max.x : b.min.x, (i & 2) ? b.max.y : b.min.y, (i & 4) ? b.max.z : b.min.z);
        const glm::vec4 clip = vp * glm::vec4(corner, 1.0f);
        ASSERT_GT(clip.w, 0.0f);
        const glm::vec3 ndc = glm::vec3(clip) / clip.w;
        EXPECT_LE(std::abs(ndc.x), 1.0f);
        EXPECT_LE(std::abs(ndc.y), 1.0f);
        EXPECT_LE(std::abs(ndc.z), 1.0f) << "a corner is clipped by the near or far plane";
        extent = std::max({extent, std::abs(ndc.x), std::abs(ndc.y)});
      }
      EXPECT_GT(extent, 0.5f) << "the crowd fills too little of the frame";
    }
  }
}

TEST_F(GlCrowd, SpreadIsDeterministicAndUsesEveryClip) {
  const Vat* vat = test::test_bake({"khronos/Fox.glb", Encoding::Rig, Precision::F16});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok());
  auto spread = [&](gl::CrowdLayout layout, uint64_t seed) {
    Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 30);
    EXPECT_TRUE(crowd.ok());
    gl::SpreadOptions o;
    o.layout = layout;
    o.seed = seed;
    EXPECT_TRUE(gl::spread_crowd(*crowd, o).ok());
    return std::move(*crowd);
  };
  for (gl::CrowdLayout layout : {gl::CrowdLayout::Grid, gl::CrowdLayout::Random}) {
    gl::Crowd a = spread(layout, 3), b = spread(layout, 3), c = spread(layout, 4);
    bool rows_equal = true, worlds_equal = true, rows_differ = false;
    std::vector<int> clip_count(vat->clips.size(), 0);
    for (uint32_t i = 0; i < 30; ++i) {
      rows_equal = rows_equal && std::memcmp(&a.table().row(i), &b.table().row(i), sizeof(PackedInstance)) == 0;
      worlds_equal = worlds_equal && a.world(i) == b.world(i);
      rows_differ = rows_differ || std::memcmp(&a.table().row(i), &c.table().row(i), sizeof(PackedInstance)) != 0;
      const Playback pb = playback(a.table(), i);
      for (size_t k = 0; k < vat->clips.size(); ++k) {
        if (pb.primary.first_row == vat->clips[k].first_row) ++clip_count[k];
      }
      EXPECT_LE(pb.primary.start_time, 0.0f);
    }
    EXPECT_TRUE(rows_equal && worlds_equal) << "the same seed spread differently";
    EXPECT_TRUE(rows_differ) << "another seed spread the same";
    for (int k : clip_count) EXPECT_EQ(k, 10) << "clips are not dealt evenly";
  }
}

}  // namespace
}  // namespace vatkit

// Motion vectors (crowd.h, RenderOptions; RenderTargetDesc::motion_vectors): the motion target
// against the CPU mirror.
//
// A small crowd, a box in every right hand (a prop), is rendered at time t0 from camera A, then
// its instances move (one translated, one turned), the camera moves, and it is rendered at t1
// into a target with motion vectors. The expectation is worked out on the CPU alone: every
// instance's vertices from mirror_vertices at t1 (current worlds) and at t0 (previous worlds), the
// box's placed by mirror_joint at both, projected by B's and A's view-projections; at
// a sampled pixel centre, the front-most triangle covering it (rasterized on the CPU from the t1
// positions) gives perspective-correct barycentrics, which interpolate both clip positions as
// GL does; motion = (ndc_now - ndc_previous) * 0.5. Pixels within 10% (barycentric) of a
// triangle's edge are skipped (a neighbour may win the pixel there). Bound: 2e-5 (NDC units
// halved; a 160-pixel-wide target's pixel is 0.0125 of them), both encodings, culled and direct.
// The background reads (0, 0); a still crowd under a still camera at one time reads (0, 0) up to
// float rounding (StillSceneHasNoMotion).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>

#include <glm/gtc/matrix_transform.hpp>

#include "gl_test_support.h"
#include "test_gl_crowd_util.h"
#include "vatkit/decode.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/props.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/instance_table.h"
#include "vatkit/mirror.h"
#include "vatkit/playback.h"

namespace vatkit {
namespace {

using test::BakeKey;
using GlMotion = test::GlTest;

constexpr int kWidth = 160;
constexpr int kHeight = 120;

// The triangles on screen, three corners each: clip positions now and a frame ago.
struct ClipTriangles {
  std::vector<glm::vec4> now, previous;
  std::vector<glm::vec3> ndc;  // now, divided by w (NaN behind the camera)

  // Triangles `indices` over world positions `p_now` and `p_previous`.
  void add(std::span<const uint32_t> indices, std::span<const glm::vec3> p_now, std::span<const glm::vec3> p_previous,
           const glm::mat4& vp_now, const glm::mat4& vp_previous) {
    for (uint32_t i : indices) {
      now.push_back(vp_now * glm::vec4(p_now[i], 1.0f));
      previous.push_back(vp_previous * glm::vec4(p_previous[i], 1.0f));
      const glm::vec4& c = now.back();
      ndc.push_back(c.w > 0.0f ? glm::vec3(c) / c.w : glm::vec3(std::numeric_limits<float>::quiet_NaN()));
    }
  }
};

// What a frame shows: every instance of the crowd at both times (mirror_vertices) and its prop
// (the prop's vertices placed by mirror_joint x the offset at both times).
struct Frames {
  float t_now = 0.0f, t_previous = 0.0f;
  std::span<const glm::mat4> world_now, world_previous;
  glm::mat4 vp_now{1.0f}, vp_previous{1.0f};
};

ClipTriangles clip_triangles(const Vat& vat, const InstanceTable& table, const Frames& f, const gl::PropMesh& prop,
                             const gl::PropDesc& desc) {
  ClipTriangles out;
  std::vector<glm::vec3> now(vat.geometry.vertex_count()), previous(now.size());
  std::vector<glm::vec3> prop_now(prop.positions.size()), prop_previous(prop.positions.size());
  for (uint32_t i = 0; i < table.size(); ++i) {
    EXPECT_TRUE(mirror_vertices(vat, table, i, f.t_now, f.world_now[i], 0, now).ok());
    EXPECT_TRUE(mirror_vertices(vat, table, i, f.t_previous, f.world_previous[i], 0, previous).ok());
    out.add(vat.geometry.indices, now, previous, f.vp_now, f.vp_previous);
    const glm::mat4 socket_now = mirror_joint(vat, table, i, f.t_now, f.world_now[i], desc.slot).value();
    const glm::mat4 socket_previous = mirror_joint(vat, table, i, f.t_previous, f.world_previous[i], desc.slot).value();
    for (size_t v = 0; v < prop.positions.size(); ++v) {
      prop_now[v] = glm::vec3(socket_now * desc.offset * glm::vec4(prop.positions[v], 1.0f));
      prop_previous[v] = glm::vec3(socket_previous * desc.offset * glm::vec4(prop.positions[v], 1.0f));
    }
    out.add(prop.indices, prop_now, prop_previous, f.vp_now, f.vp_previous);
  }
  return out;
}

float edge(const glm::vec2& a, const glm::vec2& b, const glm::vec2& p) {
  return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// The expected motion at NDC point `at`: false where no triangle covers it clear of its edges.
bool expected_motion(const ClipTriangles& m, const glm::vec2& at, glm::vec2& motion) {
  float nearest = std::numeric_limits<float>::max();
  bool clear = false;
  for (size_t t = 0; t + 2 < m.now.size(); t += 3) {
    const glm::vec2 s0(m.ndc[t]), s1(m.ndc[t + 1]), s2(m.ndc[t + 2]);
    const float area = edge(s0, s1, s2);  // NaN behind the camera: skipped
    if (!(std::fabs(area) >= 1e-12f)) continue;
    const float b[3] = {edge(s1, s2, at) / area, edge(s2, s0, at) / area, edge(s0, s1, at) / area};
    if (b[0] < 0.0f || b[1] < 0.0f || b[2] < 0.0f) continue;
    const float z = b[0] * m.ndc[t].z + b[1] * m.ndc[t + 1].z + b[2] * m.ndc[t + 2].z;
    if (z >= nearest) continue;
    nearest = z;
    clear = std::min({b[0], b[1], b[2]}) > 0.1f;
    // Perspective-correct weights, then both clip positions interpolated as GL does.
    float l[3], sum = 0.0f;
    for (size_t k = 0; k < 3; ++k) sum += l[k] = b[k] / m.now[t + k].w;
    glm::vec4 now(0.0f), previous(0.0f);
    for (size_t k = 0; k < 3; ++k) {
      now += (l[k] / sum) * m.now[t + k];
      previous += (l[k] / sum) * m.previous[t + k];
    }
    motion = (glm::vec2(now) / now.w - glm::vec2(previous) / previous.w) * 0.5f;
  }
  return clear;
}

// Every other pixel of `target`'s motion attachment against the CPU's expectation from `mesh`:
// within 2e-5 where a triangle covers the pixel clear of its edges, (0, 0) on the background.
void expect_motion_matches(const gl::RenderTarget& target, const ClipTriangles& mesh, const std::string& what) {
  std::vector<float> motion(size_t(kWidth) * kHeight * 2);
  ASSERT_TRUE(target.read_motion(motion).ok());
  size_t compared = 0, background = 0;
  float worst = 0.0f, largest = 0.0f;
  for (int row = 1; row < kHeight; row += 2) {
    for (int col = 1; col < kWidth; col += 2) {
      const glm::vec2 at((float(col) + 0.5f) / kWidth * 2.0f - 1.0f,
                         (float(kHeight - 1 - row) + 0.5f) / kHeight * 2.0f - 1.0f);
      const glm::vec2 got(motion[(size_t(row) * kWidth + size_t(col)) * 2],
                          motion[(size_t(row) * kWidth + size_t(col)) * 2 + 1]);
      glm::vec2 want(0.0f);
      if (!expected_motion(mesh, at, want)) {
        if (want == glm::vec2(0.0f) && got == glm::vec2(0.0f)) ++background;
        continue;
      }
      const float err = glm::length(got - want);
      worst = std::max(worst, err);
      largest = std::max(largest, glm::length(want));
      ++compared;
      EXPECT_LE(err, 2e-5f) << "pixel " << col << "," << row << " got " << got.x << "," << got.y << " want " << want.x
                            << "," << want.y;
    }
  }
  std::printf("[motion] %s: %zu pixels compared, max error %.3g (largest motion %.3g), %zu background\n", what.c_str(),
              compared, worst, largest, background);
  EXPECT_GT(compared, 100u);
  EXPECT_GT(largest, 0.01f);  // the motion is not trivial
  EXPECT_GT(background, 100u);
}

gl::PropMesh hand_box(float size) {
  return gl::box_prop(glm::vec3(0.04f, 0.08f, 0.04f) * size, glm::vec3(0.0f, 0.05f, 0.0f) * size);
}

gl::PropDesc hand_box_desc(const Vat& vat) {
  gl::PropDesc desc;
  desc.slot = uint32_t(find_slot(vat, std::string("hand.R")).value());
  desc.offset = glm::rotate(glm::mat4(1.0f), 0.3f, glm::vec3(1.0f, 0.0f, 0.0f));
  return desc;
}

Result<gl::RenderTarget> motion_target() {
  gl::RenderTargetDesc desc{kWidth, kHeight};
  desc.motion_vectors = true;
  return gl::RenderTarget::create(desc);
}

// A placement (x, y, z, heading) as the shaders build it: translate x rotate_y.
glm::mat4 placement_matrix(const glm::vec4& p) {
  return glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(p)), p.w, glm::vec3(0.0f, 1.0f, 0.0f));
}

void write_instances(const Vat& vat, gl::Crowd& crowd, float size) {
  for (uint32_t i = 0; i < crowd.size(); ++i) {
    Instance in;
    in.clip = clip_band(vat, (i + 1) % uint32_t(vat.clips.size()));
    in.start_time = -0.4f * float(i);
    in.policy.speed = i == 2 ? -1.0f : 1.0f;
    ASSERT_TRUE(set_instance(crowd.table(), i, in, 0.0f).ok());
    crowd.set_world(i, glm::translate(glm::mat4(1.0f), glm::vec3((float(i) - 1.5f) * size * 0.45f, 0.0f, 0.0f)));
  }
  crowd.recompute_bounds();
}

TEST_F(GlMotion, MotionTargetMatchesTheMirrorAtBothTimes) {
  for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
    for (bool culling : {true, false}) {
      SCOPED_TRACE(std::string(test::short_name(e)) + (culling ? " culled" : " direct"));
      const Vat* vat = test::test_bake(BakeKey{"sample", e, Precision::F32});
      ASSERT_NE(vat, nullptr);
      const float size = glm::length(vat->bounds.max - vat->bounds.min);
      Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
      ASSERT_TRUE(gpu.ok()) << gpu.error().message;
      Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 4);
      ASSERT_TRUE(crowd.ok()) << crowd.error().message;
      write_instances(*vat, *crowd, size);
      if (HasFatalFailure()) return;
      // A box in every right hand: props write motion vectors too.
      const gl::PropMesh prop = hand_box(size);
      const gl::PropDesc prop_desc = hand_box_desc(*vat);
      ASSERT_TRUE(crowd->attach(prop, prop_desc).ok());
      Result<gl::Renderer> renderer = gl::Renderer::create({256});
      ASSERT_TRUE(renderer.ok()) << renderer.error().message;
      Result<gl::RenderTarget> target = motion_target();
      ASSERT_TRUE(target.ok()) << target.error().message;
      const float aspect = float(kWidth) / float(kHeight);
      const gl::Camera a = gl::camera_for_bounds(crowd->world_bounds(), aspect, 20.0f, 15.0f);
      gl::Camera b = a;
      b.eye += glm::vec3(0.03f, 0.02f, -0.05f) * size;
      gl::RenderOptions options;
      options.gpu_culling = culling;
      options.ground = false;
      options.shadows = false;
      const float t0 = 0.7f, t1 = 0.75f;
      renderer->render(*target, *crowd, a, t0, options);

      std::vector<glm::mat4> previous(crowd->size()), now(crowd->size());
      for (uint32_t i = 0; i < crowd->size(); ++i) previous[i] = crowd->world(i);
      crowd->set_world(1, glm::translate(previous[1], glm::vec3(0.02f, 0.0f, 0.03f) * size));
      crowd->set_world(2, glm::rotate(previous[2], 0.08f, glm::vec3(0.0f, 1.0f, 0.0f)));
      for (uint32_t i = 0; i < crowd->size(); ++i) now[i] = crowd->world(i);
      renderer->render(*target, *crowd, b, t1, options);
      const Frames frames{t1, t0, now, previous, b.projection(aspect) * b.view(), a.projection(aspect) * a.view()};
      expect_motion_matches(*target, clip_triangles(*vat, crowd->table(), frames, prop, prop_desc),
                            std::string(test::short_name(e)) + (culling ? " culled" : " direct"));
    }
  }
}

// A crowd of positions + headings (CrowdTransforms::PositionHeading): one agent dead-reckoned on
// the GPU (set_motion), one moved by set_placement between the renders, each with a box in hand.
// The previous placements are the previous render's (the placement buffer's copy, moved by the
// motion at the previous time), so the expectation places the mirror's vertices by
// placement_at(i, t) at both times.
TEST_F(GlMotion, MotionFollowsPlacementsAndGpuMotion) {
  const Vat* vat = test::test_bake(BakeKey{"sample", Encoding::Delta, Precision::F32});
  ASSERT_NE(vat, nullptr);
  const float size = glm::length(vat->bounds.max - vat->bounds.min);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  gl::CrowdDesc crowd_desc;
  crowd_desc.transforms = gl::CrowdTransforms::PositionHeading;
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 4, crowd_desc);
  ASSERT_TRUE(crowd.ok()) << crowd.error().message;
  write_instances(*vat, *crowd, size);
  if (HasFatalFailure()) return;
  const gl::PropMesh prop = hand_box(size);
  const gl::PropDesc prop_desc = hand_box_desc(*vat);
  ASSERT_TRUE(crowd->attach(prop, prop_desc).ok());
  crowd->set_motion(1, glm::vec3(0.3f, 0.0f, 0.2f) * size, 1.5f, 0.5f);
  Result<gl::Renderer> renderer = gl::Renderer::create({256});
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  Result<gl::RenderTarget> target = motion_target();
  ASSERT_TRUE(target.ok()) << target.error().message;
  const float aspect = float(kWidth) / float(kHeight);
  const gl::Camera camera = gl::camera_for_bounds(crowd->world_bounds(), aspect, 20.0f, 15.0f);
  const glm::mat4 vp = camera.projection(aspect) * camera.view();
  gl::RenderOptions options;
  options.ground = false;
  options.shadows = false;
  const float t0 = 0.7f, t1 = 0.75f;
  renderer->render(*target, *crowd, camera, t0, options);
  std::vector<glm::mat4> previous(crowd->size()), now(crowd->size());
  for (uint32_t i = 0; i < crowd->size(); ++i) previous[i] = placement_matrix(crowd->placement_at(i, t0));
  const glm::vec4 p2 = crowd->placement_at(2, t0);
  crowd->set_placement(2, glm::vec3(p2) + glm::vec3(0.0f, 0.0f, 0.03f) * size, p2.w - 0.1f);
  for (uint32_t i = 0; i < crowd->size(); ++i) now[i] = placement_matrix(crowd->placement_at(i, t1));
  EXPECT_NE(now[1], previous[1]);  // the GPU's motion moved it
  renderer->render(*target, *crowd, camera, t1, options);
  const Frames frames{t1, t0, now, previous, vp, vp};
  expect_motion_matches(*target, clip_triangles(*vat, crowd->table(), frames, prop, prop_desc), "placements");
}

TEST_F(GlMotion, StillSceneHasNoMotion) {
  const Vat* vat = test::test_bake(BakeKey{"sample", Encoding::Rig, Precision::F16});
  ASSERT_NE(vat, nullptr);
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
  ASSERT_TRUE(gpu.ok());
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, 4);
  ASSERT_TRUE(crowd.ok());
  write_instances(*vat, *crowd, glm::length(vat->bounds.max - vat->bounds.min));
  Result<gl::Renderer> renderer = gl::Renderer::create({256});
  ASSERT_TRUE(renderer.ok());
  gl::RenderTargetDesc desc{kWidth, kHeight};
  desc.motion_vectors = true;
  Result<gl::RenderTarget> target = gl::RenderTarget::create(desc);
  ASSERT_TRUE(target.ok());
  const gl::Camera camera = gl::camera_for_bounds(crowd->world_bounds(), float(kWidth) / kHeight);
  std::vector<float> motion(size_t(kWidth) * kHeight * 2);
  gl::RenderOptions options;
  renderer->render(*target, *crowd, camera, 0.5f, options);  // the first render: nothing previous
  // Up to float rounding: a rig's current position comes from the culling pass's slot palette,
  // the previous one from the per-vertex decode.
  auto largest = [&] {
    EXPECT_TRUE(target->read_motion(motion).ok());
    float m = 0.0f;
    for (float v : motion) m = std::max(m, std::fabs(v));
    return m;
  };
  EXPECT_LE(largest(), 1e-5f);
  renderer->render(*target, *crowd, camera, 0.5f, options);  // the same time and camera again
  EXPECT_LE(largest(), 1e-5f);
  // The image is the one a target without motion vectors shows.
  Result<gl::RenderTarget> plain = gl::RenderTarget::create({kWidth, kHeight});
  ASSERT_TRUE(plain.ok());
  renderer->render(*plain, *crowd, camera, 0.5f, options);
  EXPECT_EQ(plain->read_rgba8().pixels, target->read_rgba8().pixels);
  // A multisampled target cannot have them.
  desc.samples = 4;
  EXPECT_FALSE(gl::RenderTarget::create(desc).ok());
}

}  // namespace
}  // namespace vatkit

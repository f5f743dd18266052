// Live skinning, the classic alternative to a VAT, as `vatkit bench` measures it (variant
// `live`): every frame the CPU samples every instance's skeleton at the instance's own time,
// computes its joint palette, uploads every palette at once, and a vertex shader skins the mesh
// (linear blend skinning, 4 influences, or 8 when the rig has them).
//
// It plays the same crowd as a VAT crowd: same world matrices, same clip, start time and speed
// per instance (read from the Crowd's playback table: the primary track's phase at time t, times
// the clip's duration, is the clip-local time sampled; fades and blends are not played). The
// palette is per rig slot (vat.h: a slot is a (joint node, inverse bind) pair; its matrix is
// world(node) * inverse_bind), so the shader draws the rig bake's own vertex array (bind
// positions, slot indices and weights, attribute locations of vat_gpu.h).
//
// CPU work per frame: sample_animation_batch over tiles of up to 32 instances of one clip
// (the reference sampler, channel-outer, not a copy), then compute_world_matrices and the palette
// per instance, the tiles spread over every hardware thread with parallel_for; the
// palette is 3 RGBA32F texels per slot (the rows of the affine matrix), uploaded with one
// glNamedBufferSubData into a buffer texture. Shading: base colour x texture x vertex colour,
// one directional light and hemispheric ambient (no shadows).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <glm/mat4x4.hpp>

#include "vatkit/asset.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit::cli {

class LiveSkinning {
 public:
  // `asset` is the source the rig `vat` was baked from (both must outlive this object);
  // `crowd` gives the instance count, world matrices and playback (copied here). Needs a current
  // context. Errors: a VAT that is not a rig, slots or clips that do not belong to `asset`,
  // palettes above the buffer texture limit `max_buffer_texels`, GLSL errors.
  static Result<LiveSkinning> create(const Asset& asset, const gl::VatGpu& vat, const gl::Crowd& crowd,
                                     int64_t max_buffer_texels);

  LiveSkinning();
  LiveSkinning(LiveSkinning&&) noexcept;
  LiveSkinning& operator=(LiveSkinning&&) noexcept;
  ~LiveSkinning();

  uint32_t size() const;        // instances
  uint32_t slot_count() const;  // palette matrices per instance
  // Samples every instance at clock time `time_s` and writes its palette (CPU, every thread).
  void update(float time_s);
  // Uploads every palette: one glNamedBufferSubData.
  void upload();
  // Clears `target` to `background` (sRGB) and draws every instance, one instanced draw per
  // material, from `camera`. Leaves no program or vertex array bound, face culling off.
  void draw(const gl::RenderTarget& target, const gl::Camera& camera, const glm::vec3& background,
            const gl::Light& light = {});
  uint64_t triangles_per_draw() const;  // instances x triangles of the mesh

  // What the live vertex shader computes for instances [0, count) from the uploaded palettes:
  // world positions, record instance * vertex_count + vertex (transform feedback capture).
  Result<std::vector<glm::vec3>> capture_positions(uint32_t count) const;

  // The clip (index into the VAT's clips) and clip-local time instance `i` shows at `time_s`.
  uint32_t clip(uint32_t i) const;
  float local_time(uint32_t i, float time_s) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// How far the live path is from the truth, in the file's units (metres for glTF).
struct LiveCheck {
  double max_vs_reference = 0.0;  // vs the reference skinner (scene.h) at the same clip time
  double max_vs_rig = 0.0;        // vs the rig VAT's CPU decode (mirror.h) of the same instance
  double world_extent = 0.0;      // largest |coordinate| compared (for a relative bound)
  uint64_t vertices = 0;          // vertex positions compared per reference
};

// Updates and uploads `live` at each of `times`, captures instances [0, count) and compares
// them with SceneEvaluator (vertices matched through vat.geometry.sources) and with
// mirror_vertices of the rig `vat` (the CPU Vat with planes that `live` was made from), each
// placed by the crowd's world matrices.
Result<LiveCheck> check_live_skinning(LiveSkinning& live, const Asset& asset, const Vat& vat, const gl::Crowd& crowd,
                                      uint32_t count, std::span<const float> times);

}  // namespace vatkit::cli

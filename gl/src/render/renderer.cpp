// The renderer: the shadow pass, the lit pass (ground, then opaque and masked groups, then
// blended ones), with GPU culling and level choice before any drawing.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include <glm/gtc/matrix_transform.hpp>

#include "objects/shaders.h"
#include "render/crowd_internal.h"

namespace vatkit::gl {

struct Renderer::Impl {
  int shadow_size = 2048;
  Texture shadow_depth;
  Framebuffer shadow_fbo;
  VertexArray empty_vao;
  Program ground;
  GLint ground_params = -1, ground_vp = -1, ground_tile = -1;
  LightingSlots ground_lighting;
  UniformCache ground_uniforms;
  glm::mat4 light_vp{1.0f};
  glm::mat4 view{1.0f};  // the camera's, for Shading::Normals
  float shadow_texel_world = 0.0f;
  RenderStats stats;
  // Motion vectors: this render's previous time and camera; the last render's, kept for the next.
  MotionFrame motion;
  bool has_last = false;
  float last_time = 0.0f;
  glm::mat4 last_view_projection{1.0f};
  Bounds scene;       // of the last prepare(): the crowds' box, for the ground
  float tile = 1.0f;  // the ground's checker size

  // What a frame is seen from: the camera's matrices, or the caller's (FrameView).
  struct Eye {
    glm::mat4 view{1.0f};
    glm::mat4 view_projection{1.0f};
    glm::vec3 position{0.0f};
    float focal_px = 1.0f;  // pixels per unit at distance 1: height / (2 tan(fovy / 2))
  };

  // render()'s steps, in order: prepare (sync, light, culling, motion, shadow pass), then
  // draw_frame into the bound target; `motion_target`: it has a motion-vector attachment.
  void prepare(std::span<Crowd* const> crowds, const Eye& eye, float time_s, const RenderOptions& options,
               bool motion_target = false);
  void draw_frame(std::span<Crowd* const> crowds, const Eye& eye, float time_s, const RenderOptions& options);
  void fit_light(const Bounds& caster, const glm::vec3& direction);
  void cull(std::span<Crowd* const> crowds, const Eye& eye, float time_s, const RenderOptions& options);
  void draw_shadows(std::span<Crowd* const> crowds, float time_s, int cull_pass);
  void draw_ground(const glm::mat4& view_projection, const RenderOptions& options);  // under `scene`, `tile`
  void draw_lit(std::span<Crowd* const> crowds, const glm::mat4& view_projection, float time_s, int cull_pass,
                const RenderOptions& options);
  void begin_motion(std::span<Crowd* const> crowds, bool motion_target, const glm::mat4& view_projection, float time_s,
                    const RenderOptions& options);
};

Renderer::Renderer() = default;
Renderer::Renderer(Renderer&&) noexcept = default;
Renderer& Renderer::operator=(Renderer&&) noexcept = default;
Renderer::~Renderer() = default;

Result<Renderer> Renderer::create(const RendererDesc& desc) {
  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  if (desc.shadow_map_size < 1 || desc.shadow_map_size > max_texture) {
    return make_error(
        ErrorCode::Argument, "renderer",
        "shadow map size " + std::to_string(desc.shadow_map_size) + " outside 1.." + std::to_string(max_texture));
  }
  Renderer r;
  r.impl_ = std::make_unique<Impl>();
  Impl& m = *r.impl_;
  m.shadow_size = desc.shadow_map_size;
  m.shadow_depth = create_texture_2d(GL_DEPTH_COMPONENT32F, m.shadow_size, m.shadow_size, 1);
  const GLuint depth = m.shadow_depth.id();
  glTextureParameteri(depth, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTextureParameteri(depth, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTextureParameteri(depth, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
  glTextureParameteri(depth, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
  glTextureParameteri(depth, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(depth, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  m.shadow_fbo = create_framebuffer();
  glNamedFramebufferTexture(m.shadow_fbo.id(), GL_DEPTH_ATTACHMENT, depth, 0);
  glNamedFramebufferDrawBuffer(m.shadow_fbo.id(), GL_NONE);
  glNamedFramebufferReadBuffer(m.shadow_fbo.id(), GL_NONE);
  if (glCheckNamedFramebufferStatus(m.shadow_fbo.id(), GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    return make_error(ErrorCode::Gl, "renderer", "the shadow map framebuffer is incomplete");
  }
  m.empty_vao = create_vertex_array();

  ProgramDesc ground;
  ground.name = "ground";
  ground.shaders = {
      {ShaderStage::Vertex, std::string(detail::shader_text("ground.vert")), ""},
      {ShaderStage::Fragment,
       std::string(detail::shader_text("lighting.glsl")) + "\n" + std::string(detail::shader_text("ground.frag")), ""}};
  Result<Program> built = build_program(ground);
  if (!built) return built.error();
  m.ground = std::move(*built);
  m.ground_params = glGetUniformLocation(m.ground.id(), "u_ground");
  m.ground_vp = glGetUniformLocation(m.ground.id(), "u_view_projection");
  m.ground_tile = glGetUniformLocation(m.ground.id(), "u_ground_tile");
  m.ground_lighting.find(m.ground.id());
  return r;
}

namespace {

void set_lighting(const LightingSlots& s, UniformCache& u, GLuint p, const Light& light, bool shadows,
                  const glm::mat4& light_vp, float texel_world, Shading shading, const glm::mat4& view) {
  u.set(p, s.direction, glm::normalize(light.direction));
  u.set(p, s.color, light.color);
  u.set(p, s.sky, light.sky);
  u.set(p, s.bounce, light.bounce);
  u.set(p, s.shadows, int32_t(shadows ? 1 : 0));
  u.set(p, s.light_vp, light_vp);
  u.set(p, s.texel_world, texel_world);
  u.set(p, s.shading, int32_t(shading));
  u.set(p, s.view, view);
}

// One draw per material group of `crowd`; `blend_pass` selects the BLEND groups (else the others).
// `cull_pass` >= 0: the indirect draws of that culling pass (one multi-draw over the levels per
// group; the shadow pass, which needs no material, one over every group); else every drawn
// instance at full detail.
void draw_crowd(Crowd::Impl& m, CrowdProgram& prog, const glm::mat4& view_projection, float time_s, bool shadow_pass,
                bool blend_pass, int cull_pass, GLuint shadow_map, RenderStats& stats) {
  const VatGpu& vat = *m.vat;
  const GLuint p = prog.program.id();
  glUseProgram(p);
  glBindVertexArray(m.use_static ? m.static_vao.id() : vat.vertex_array());
  // Units 0-15 in one call (the material's base colour texture follows per group).
  UnitTable units = crowd_vertex_units(m);
  if (cull_pass >= 0) {
    units[kUnitDrawn] = m.cull_out_texture[cull_pass].id();
    if (m.cache[cull_pass]) units[kUnitCache] = m.cache_texture[cull_pass].id();
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, m.cull_commands.id());
  }
  units[kUnitShadow] = shadow_map;
  glBindTextures(0, GLsizei(units.size()), units.data());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kMotionBinding, m.motion_gpu.id());  // 0 for Matrix crowds
  prog.uniforms.set(p, prog.view_projection, view_projection);
  prog.uniforms.set(p, prog.time, time_s);
  if (shadow_pass && cull_pass >= 0) {
    // Casters need no material: one multi-draw over every group's commands, which are contiguous
    // within a pass (command_offset); a level the pass did not use has no instances.
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                reinterpret_cast<const void*>(command_offset(m, cull_pass, 0, 0)),
                                GLsizei(vat.groups().size() * m.levels), 0);
    ++stats.draw_calls;
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    return;
  }
  for (size_t gi = 0; gi < vat.groups().size(); ++gi) {
    const GpuDrawGroup& g = vat.groups()[gi];
    const GpuMaterial& mat = vat.materials()[g.material];
    if (!shadow_pass && (mat.alpha_mode == AlphaMode::Blend) != blend_pass) continue;
    if (!shadow_pass) prog.material.apply(p, mat, kUnitBaseColor, &prog.uniforms);
    if (cull_pass >= 0) {
      glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                  reinterpret_cast<const void*>(command_offset(m, cull_pass, gi, 0)),
                                  GLsizei(m.culled_levels), 0);
    } else {
      glDrawElementsInstancedBaseInstance(GL_TRIANGLES, GLsizei(g.index_count), GL_UNSIGNED_INT,
                                          reinterpret_cast<const void*>(uintptr_t(g.first_index) * 4u),
                                          GLsizei(m.drawn_count), 0);
      stats.triangles += uint64_t(g.index_count / 3) * m.drawn_count;
    }
    ++stats.draw_calls;
  }
  if (cull_pass >= 0) glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
}

}  // namespace

void Renderer::render(const RenderTarget& target, Crowd& crowd, const Camera& camera, float time_s,
                      const RenderOptions& options) {
  Crowd* one[1] = {&crowd};
  render(target, std::span<Crowd* const>(one), camera, time_s, options);
}

// The light's orthographic box around the casters, and the world size of a shadow-map texel.
void Renderer::Impl::fit_light(const Bounds& caster, const glm::vec3& direction) {
  const glm::vec3 l = glm::normalize(direction);
  const glm::vec3 centre = (caster.min + caster.max) * 0.5f;
  const float radius = std::max(glm::length(caster.max - caster.min) * 0.5f, 1e-6f);
  const glm::vec3 up = std::abs(l.y) > 0.99f ? glm::vec3(0.0f, 0.0f, 1.0f) : glm::vec3(0.0f, 1.0f, 0.0f);
  const glm::mat4 light_view = glm::lookAt(centre + l * (radius * 2.0f), centre, up);
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
  for (int i = 0; i < 8; ++i) {
    const glm::vec3 corner((i & 1) ? caster.max.x : caster.min.x, (i & 2) ? caster.max.y : caster.min.y,
                           (i & 4) ? caster.max.z : caster.min.z);
    const glm::vec3 p = glm::vec3(light_view * glm::vec4(corner, 1.0f));
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const float margin = radius * 0.02f;
  light_vp = glm::ortho(lo.x - margin, hi.x + margin, lo.y - margin, hi.y + margin, -hi.z - margin, -lo.z + margin) *
             light_view;
  shadow_texel_world = std::max(hi.x - lo.x, hi.y - lo.y) / float(shadow_size);
}

// GPU culling: per crowd, the camera's pass and (with shadows) the light's, before any drawing.
void Renderer::Impl::cull(std::span<Crowd* const> crowds, const Eye& eye, float time_s, const RenderOptions& options) {
  if (!options.gpu_culling) {
    for (Crowd* c : crowds) c->impl_->culled = false;
    return;
  }
  LodView lod;
  lod.enabled = options.lod;
  lod.eye = eye.position;
  lod.pixels = eye.focal_px / std::max(options.lod_error_px, 1e-6f);
  for (Crowd* c : crowds) {
    Crowd::Impl& cm = *c->impl_;
    cm.culled_shadow = false;
    cull_crowd(cm, kCullCamera, eye.view_projection, lod, time_s);
    if (options.shadows) {
      // Casters a shadow-map texel already blurs take the level whose error fits in it.
      LodView light = lod;
      light.texel = shadow_texel_world * std::max(options.lod_error_px, 1e-6f);
      cull_crowd(cm, kCullShadow, light_vp, light, time_s);
    }
  }
}

// Shadow pass: the casters decode the VAT exactly as the lit pass does.
void Renderer::Impl::draw_shadows(std::span<Crowd* const> crowds, float time_s, int cull_pass) {
  glBindFramebuffer(GL_FRAMEBUFFER, shadow_fbo.id());
  glViewport(0, 0, shadow_size, shadow_size);
  const float one = 1.0f;
  glClearNamedFramebufferfv(shadow_fbo.id(), GL_DEPTH, 0, &one);
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(1.5f, 2.0f);
  for (Crowd* c : crowds) {
    Crowd::Impl& cm = *c->impl_;
    draw_crowd(cm, cm.use_static ? cm.static_shadow : cm.shadow, light_vp, time_s, true, false, cull_pass, 0, stats);
    if (!cm.props.empty()) draw_props(cm, cm.prop_shadow, light_vp, time_s, true, cull_pass, 0, stats);
  }
  glDisable(GL_POLYGON_OFFSET_FILL);
}

// The checkered ground under the scene, `tile` the checker size.
void Renderer::Impl::draw_ground(const glm::mat4& view_projection, const RenderOptions& options) {
  const GLuint g = ground.id();
  UniformCache& u = ground_uniforms;
  set_lighting(ground_lighting, u, g, options.light, options.shadows, light_vp, shadow_texel_world, options.shading,
               view);
  const glm::vec3 extent = scene.max - scene.min;
  const float half = std::max(extent.x, extent.z) * 0.5f + std::max(extent.y, tile) * 3.0f;
  u.set(g, ground_params,
        glm::vec4((scene.min.x + scene.max.x) * 0.5f, scene.min.y, (scene.min.z + scene.max.z) * 0.5f, half));
  u.set(g, ground_vp, view_projection);
  u.set(g, ground_tile, tile);
  glUseProgram(g);
  glBindVertexArray(empty_vao.id());
  GLint framebuffer = 0;
  if (motion.on) {
    // The ground writes no motion (its target keeps the cleared (0, 0)).
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
    glNamedFramebufferDrawBuffer(GLuint(framebuffer), GL_COLOR_ATTACHMENT0);
  }
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  if (motion.on) {
    const GLenum buffers[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glNamedFramebufferDrawBuffers(GLuint(framebuffer), 2, buffers);
  }
  ++stats.draw_calls;
  stats.triangles += 2;
}

// Opaque and masked groups, then blended ones over them; a pass a crowd has no group for costs
// no call.
void Renderer::Impl::draw_lit(std::span<Crowd* const> crowds, const glm::mat4& view_projection, float time_s,
                              int cull_pass, const RenderOptions& options) {
  auto has_groups = [](const Crowd::Impl& cm, bool blend) {
    const VatGpu& vat = *cm.vat;
    return std::any_of(vat.groups().begin(), vat.groups().end(), [&](const GpuDrawGroup& g) {
      return (vat.materials()[g.material].alpha_mode == AlphaMode::Blend) == blend;
    });
  };
  for (int blend_pass = 0; blend_pass < 2; ++blend_pass) {
    bool blend_state = false;
    for (Crowd* c : crowds) {
      Crowd::Impl& cm = *c->impl_;
      if (!has_groups(cm, blend_pass != 0)) continue;
      if (blend_pass && !blend_state) {
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);  // keep alpha 1
        if (motion.on) glDisablei(GL_BLEND, 1);  // motion vectors are written, not blended
        glDepthMask(GL_FALSE);
        blend_state = true;
      }
      const bool motion_on = motion.on && cm.previous_world_gpu.buffer;
      CrowdProgram& prog =
          motion_on ? (cm.use_static ? cm.static_lit_motion : cm.lit_motion) : (cm.use_static ? cm.static_lit : cm.lit);
      set_lighting(prog.lighting, prog.uniforms, prog.program.id(), options.light, options.shadows, light_vp,
                   shadow_texel_world, options.shading, view);
      if (motion_on) {
        set_motion_uniforms(prog, motion);
        glBindTextureUnit(kUnitPreviousWorld, cm.previous_world_gpu.texture.id());
      }
      draw_crowd(cm, prog, view_projection, time_s, false, blend_pass != 0, cull_pass, shadow_depth.id(), stats);
      if (!blend_pass && !cm.props.empty()) {
        CrowdProgram& props = motion_on ? cm.prop_lit_motion : cm.prop_lit;
        set_lighting(props.lighting, props.uniforms, props.program.id(), options.light, options.shadows, light_vp,
                     shadow_texel_world, options.shading, view);
        if (motion_on) set_motion_uniforms(props, motion);
        draw_props(cm, props, view_projection, time_s, false, cull_pass, shadow_depth.id(), stats);
      }
    }
  }
}

namespace {

// Shading::Normals implies no ground, no shadows and a black background.
RenderOptions effective(const RenderOptions& requested) {
  RenderOptions options = requested;
  if (options.shading == Shading::Normals) {
    options.shadows = false;
    options.ground = false;
    options.background = glm::vec3(0.0f);
  }
  return options;
}

}  // namespace

// Syncs the crowds, fits the light, culls and draws the shadow map; leaves the depth state of
// the lit pass set and the shadow framebuffer bound (with shadows).
void Renderer::Impl::prepare(std::span<Crowd* const> crowds, const Eye& eye, float time_s, const RenderOptions& options,
                             bool motion_target) {
  view = eye.view;
  stats = RenderStats{};
  scene = Bounds{glm::vec3(1.0f), glm::vec3(-1.0f)};
  tile = 0.0f;  // checker size: half the tallest character
  for (Crowd* c : crowds) {
    stats.uploaded_bytes += c->sync();
    scene = unite(scene, c->world_bounds());
    tile = std::max(tile, (c->vat().bounds().max.y - c->vat().bounds().min.y) * 0.5f);
  }
  if (empty_bounds(scene)) scene = Bounds{glm::vec3(-1.0f), glm::vec3(1.0f)};
  if (!(tile > 0.0f)) tile = 1.0f;
  fit_light(empty_bounds(options.shadow_bounds) ? scene : options.shadow_bounds, options.light.direction);
  cull(crowds, eye, time_s, options);
  begin_motion(crowds, motion_target, eye.view_projection, time_s, options);

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  if (options.shadows) draw_shadows(crowds, time_s, options.gpu_culling ? kCullShadow : -1);
}

// The lit pass into the bound framebuffer: the ground, then the crowds; then the state render()
// documents.
void Renderer::Impl::draw_frame(std::span<Crowd* const> crowds, const Eye& eye, float time_s,
                                const RenderOptions& options) {
  glBindTextureUnit(kUnitShadow, shadow_depth.id());
  if (options.ground) draw_ground(eye.view_projection, options);
  draw_lit(crowds, eye.view_projection, time_s, options.gpu_culling ? kCullCamera : -1, options);
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
  glDisable(GL_CULL_FACE);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kMotionBinding, 0);
  // Nothing of ours stays bound: a program or vertex array deleted while still bound would live
  // on until unbound, and a caller that saved and restores "the current program" would then
  // restore a dead name.
  glUseProgram(0);
  glBindVertexArray(0);
}

// Motion vectors: the previous render's time and camera (or the caller's), the crowds' motion
// programs; and this render's, kept for the next.
void Renderer::Impl::begin_motion(std::span<Crowd* const> crowds, bool motion_target, const glm::mat4& view_projection,
                                  float time_s, const RenderOptions& options) {
  motion.on = motion_target;
  if (motion.on) {
    motion.previous_time = !std::isnan(options.previous_time_s) ? options.previous_time_s
                           : has_last                           ? last_time
                                                                : time_s;
    motion.previous_view_projection = options.override_previous_view_projection ? options.previous_view_projection
                                      : has_last                                ? last_view_projection
                                                                                : view_projection;
    // A crowd whose motion programs fail to build (GLSL errors, reported when the crowd was
    // made for its other programs) is drawn without motion.
    for (Crowd* c : crowds) (void)ensure_motion(*c->impl_);
  }
  has_last = true;
  last_time = time_s;
  last_view_projection = view_projection;
}

void Renderer::render(const RenderTarget& target, std::span<Crowd* const> crowds, const Camera& camera, float time_s,
                      const RenderOptions& requested) {
  Impl& m = *impl_;
  const RenderOptions options = effective(requested);
  const float aspect = float(target.width()) / float(target.height());
  Impl::Eye eye;
  eye.view = camera.view();
  eye.view_projection = camera.projection(aspect) * eye.view;
  eye.position = camera.eye;
  eye.focal_px = float(target.height()) / (2.0f * std::tan(glm::radians(camera.fov_y_deg) * 0.5f));
  m.prepare(crowds, eye, time_s, options, target.has_motion());
  const glm::vec3 bg = options.background;
  if (options.clear) {
    target.clear(bg.x, bg.y, bg.z, 1.0f);
  } else {
    target.bind();
  }
  m.draw_frame(crowds, eye, time_s, options);
}

namespace {

Renderer::Impl::Eye frame_eye(const FrameView& view) {
  Renderer::Impl::Eye eye;
  eye.view = view.view;
  eye.view_projection = view.projection * view.view;
  eye.position = glm::vec3(glm::inverse(view.view)[3]);
  eye.focal_px = float(view.height) * view.projection[1][1] * 0.5f;
  return eye;
}

void bind_view(const FrameView& view) {
  glBindFramebuffer(GL_FRAMEBUFFER, view.framebuffer);
  glViewport(view.x, view.y, view.width, view.height);
}

}  // namespace

void Renderer::cull(std::span<Crowd* const> crowds, const FrameView& view, float time_s, const RenderOptions& options) {
  GLint framebuffer = 0, viewport[4] = {};
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
  glGetIntegerv(GL_VIEWPORT, viewport);
  impl_->prepare(crowds, frame_eye(view), time_s, effective(options));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(framebuffer));
  glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
  glUseProgram(0);
  glBindVertexArray(0);
}

void Renderer::draw(std::span<Crowd* const> crowds, const FrameView& view, float time_s, const RenderOptions& options) {
  bind_view(view);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  impl_->draw_frame(crowds, frame_eye(view), time_s, effective(options));
}

void Renderer::render(const FrameView& view, std::span<Crowd* const> crowds, float time_s,
                      const RenderOptions& requested) {
  const RenderOptions options = effective(requested);
  cull(crowds, view, time_s, options);
  if (options.clear) {
    // The viewport's rectangle only: the rest of the caller's framebuffer stays.
    bind_view(view);
    glEnable(GL_SCISSOR_TEST);
    glScissor(view.x, view.y, view.width, view.height);
    const float color[4] = {options.background.x, options.background.y, options.background.z, 1.0f};
    const float one = 1.0f;
    glClearNamedFramebufferfv(view.framebuffer, GL_COLOR, 0, color);
    glClearNamedFramebufferfv(view.framebuffer, GL_DEPTH, 0, &one);
    glDisable(GL_SCISSOR_TEST);
  }
  draw(crowds, view, time_s, options);
}

const RenderStats& Renderer::stats() const { return impl_->stats; }
uint32_t Renderer::shadow_map() const { return impl_->shadow_depth.id(); }
int Renderer::shadow_map_size() const { return impl_->shadow_size; }
const glm::mat4& Renderer::light_view_projection() const { return impl_->light_vp; }
float Renderer::shadow_texel_world() const { return impl_->shadow_texel_world; }

}  // namespace vatkit::gl

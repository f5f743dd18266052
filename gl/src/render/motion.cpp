// Motion vectors: the crowd's motion programs, its previous world matrices, and the uniforms of
// the previous render (crowd.h, RenderOptions; crowd.vert and prop.vert under CROWD_MOTION).
#include "render/crowd_internal.h"

namespace vatkit::gl {

Result<void> ensure_motion(Crowd::Impl& m) {
  if (!m.lit_motion.program) {
    Result<CrowdProgram> lit = build_crowd_program(*m.vat, false, false, m.desc, ProgramVariant{true, false});
    if (!lit) return lit.error();
    m.lit_motion = std::move(*lit);
  }
  if (m.use_static && !m.static_lit_motion.program) {
    Result<CrowdProgram> lit = build_crowd_program(*m.vat, false, true, m.desc, ProgramVariant{true, false});
    if (!lit) return lit.error();
    m.static_lit_motion = std::move(*lit);
  }
  if (!m.props.empty() && !m.prop_lit_motion.program) {
    Result<CrowdProgram> lit = build_crowd_program(*m.vat, false, false, m.desc, ProgramVariant{true, true});
    if (!lit) return lit.error();
    m.prop_lit_motion = std::move(*lit);
  }
  if (!m.previous_world_gpu.buffer) {
    // Made after this render's sync: the previous worlds start as the current ones.
    // The layout of the current ones: a matrix, or a position + heading, per instance.
    const auto bytes = GLsizeiptr(size_t(m.count) * m.world_stride);
    m.previous_world_gpu.buffer = create_buffer(size_t(bytes), nullptr, 0);
    glCopyNamedBufferSubData(m.world_gpu.buffer.id(), m.previous_world_gpu.buffer.id(), 0, 0, bytes);
    m.previous_world_gpu.texture = create_texture(GL_TEXTURE_BUFFER);
    glTextureBuffer(m.previous_world_gpu.texture.id(), GL_RGBA32F, m.previous_world_gpu.buffer.id());
  }
  return {};
}

void set_motion_uniforms(CrowdProgram& prog, const MotionFrame& motion) {
  const GLuint p = prog.program.id();
  prog.uniforms.set(p, prog.previous_time, motion.previous_time);
  prog.uniforms.set(p, prog.previous_view_projection, motion.previous_view_projection);
}

namespace {

void copy_worlds(Crowd::Impl& m, uint32_t first, uint32_t end) {
  const size_t stride = m.world_stride;
  glCopyNamedBufferSubData(m.world_gpu.buffer.id(), m.previous_world_gpu.buffer.id(), GLintptr(first * stride),
                           GLintptr(first * stride), GLsizeiptr((end - first) * stride));
}

}  // namespace

void keep_previous_worlds(Crowd::Impl& m, uint32_t first, uint32_t end) {
  if (!m.previous_world_gpu.buffer) return;
  if (m.moved.empty()) {
    // The first upload of this sync: what the previous sync moved has been current for a render.
    for (const glm::uvec2& r : m.moved_before) copy_worlds(m, r.x, r.y);
  }
  copy_worlds(m, first, end);
  m.moved.push_back(glm::uvec2(first, end));
}

void finish_previous_worlds(Crowd::Impl& m) {
  if (!m.previous_world_gpu.buffer) return;
  if (m.moved.empty()) {
    for (const glm::uvec2& r : m.moved_before) copy_worlds(m, r.x, r.y);
  }
  std::swap(m.moved, m.moved_before);
  m.moved.clear();
}

}  // namespace vatkit::gl

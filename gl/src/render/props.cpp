// Props: rigid meshes held by a joint of every instance (props.h), their built-in meshes, their
// upload and their draws.
#include <cmath>
#include <string>

#include <glm/gtc/matrix_inverse.hpp>

#include "render/crowd_internal.h"

namespace vatkit::gl {

namespace {

// Appends the six faces of a box to `mesh`, four vertices each, counter-clockwise from outside.
void append_box(PropMesh& mesh, const glm::vec3& half, const glm::vec3& centre) {
  for (int axis = 0; axis < 3; ++axis) {
    for (float sign : {-1.0f, 1.0f}) {
      glm::vec3 n(0.0f);
      n[axis] = sign;
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      const auto base = uint32_t(mesh.positions.size());
      const float corners[4][2] = {{-1.0f, -1.0f}, {1.0f, -1.0f}, {1.0f, 1.0f}, {-1.0f, 1.0f}};
      for (const auto& c : corners) {
        glm::vec3 p = centre + n * half;
        p[u] += c[0] * half[u];
        p[v] += c[1] * half[v];
        mesh.positions.push_back(p);
        mesh.normals.push_back(n);
      }
      // (u, v, n) is right-handed: counter-clockwise seen from +n; reversed for -n.
      const uint32_t order[2][6] = {{0, 1, 2, 0, 2, 3}, {0, 2, 1, 0, 3, 2}};
      for (uint32_t k : order[sign > 0.0f ? 0 : 1]) mesh.indices.push_back(base + k);
    }
  }
}

Result<void> check_mesh(const Crowd::Impl& m, const PropMesh& mesh, const PropDesc& desc) {
  const std::string& where = m.vat->source();
  const auto slots = m.vat->metadata().slots.size();
  if (desc.slot >= slots) {
    return make_error(ErrorCode::Argument, where,
                      "prop: slot " + std::to_string(desc.slot) + " of " + std::to_string(slots) +
                          (slots == 0 ? " (the VAT has no socket joints)" : ""));
  }
  if (mesh.positions.empty() || mesh.indices.empty() || mesh.indices.size() % 3 != 0)
    return make_error(ErrorCode::Argument, where, "prop: the mesh has no triangles");
  if (mesh.normals.size() != mesh.positions.size())
    return make_error(ErrorCode::Argument, where, "prop: the mesh needs one normal per position");
  for (uint32_t i : mesh.indices) {
    if (i >= mesh.positions.size())
      return make_error(ErrorCode::Argument, where, "prop: index " + std::to_string(i) + " past the vertices");
  }
  return {};
}

// The prop's programs, on the first attach.
Result<void> ensure_prop_programs(Crowd::Impl& m) {
  if (m.prop_lit.program) return {};
  Result<CrowdProgram> lit = build_crowd_program(*m.vat, false, false, m.desc, ProgramVariant{false, true});
  if (!lit) return lit.error();
  Result<CrowdProgram> shadow = build_crowd_program(*m.vat, true, false, m.desc, ProgramVariant{false, true});
  if (!shadow) return shadow.error();
  m.prop_lit = std::move(*lit);
  m.prop_shadow = std::move(*shadow);
  return {};
}

void set_prop_uniforms(UniformCache& u, const CrowdProgram& prog, const GpuProp& prop) {
  const GLuint p = prog.program.id();
  u.set(p, prog.prop_slot, int32_t(prop.desc.slot));
  u.set(p, prog.prop_joint, prop.joint);
  u.set(p, prog.prop_offset, prop.desc.offset);
}

}  // namespace

PropMesh box_prop(const glm::vec3& half, const glm::vec3& centre) {
  PropMesh mesh;
  append_box(mesh, half, centre);
  return mesh;
}

PropMesh sword_prop(float length) {
  PropMesh mesh;
  const float grip = length * 0.2f, guard = length * 0.04f, blade = length - grip - guard;
  const float w = length * 0.025f;
  append_box(mesh, glm::vec3(w, grip * 0.5f, w), glm::vec3(0.0f, grip * 0.5f, 0.0f));
  append_box(mesh, glm::vec3(length * 0.12f, guard * 0.5f, w * 1.5f), glm::vec3(0.0f, grip + guard * 0.5f, 0.0f));
  append_box(mesh, glm::vec3(w * 1.6f, blade * 0.5f, w * 0.4f), glm::vec3(0.0f, grip + guard + blade * 0.5f, 0.0f));
  return mesh;
}

std::string prop_vertex_glsl() { return decode_chunk_then("prop.vert"); }

Result<uint32_t> Crowd::attach(const PropMesh& mesh, const PropDesc& desc) {
  Impl& m = *impl_;
  if (Result<void> ok = check_mesh(m, mesh, desc); !ok) return ok.error();
  if (Result<void> ok = ensure_prop_programs(m); !ok) return ok.error();
  GpuProp prop;
  prop.desc = desc;
  const glm::mat4& ib = m.vat->metadata().slots[desc.slot].inverse_bind;
  prop.joint = ib == glm::mat4(1.0f) ? glm::mat4(1.0f) : glm::inverse(ib);  // as decode_joint_world
  prop.index_count = uint32_t(mesh.indices.size());
  prop.positions = create_buffer(mesh.positions.size() * sizeof(glm::vec3), mesh.positions.data(), 0);
  prop.normals = create_buffer(mesh.normals.size() * sizeof(glm::vec3), mesh.normals.data(), 0);
  prop.indices = create_buffer(mesh.indices.size() * sizeof(uint32_t), mesh.indices.data(), 0);
  prop.vertex_array = create_vertex_array();
  const GLuint vao = prop.vertex_array.id();
  const GLuint buffers[2] = {prop.positions.id(), prop.normals.id()};
  for (GLuint a = 0; a < 2; ++a) {
    glVertexArrayVertexBuffer(vao, a, buffers[a], 0, sizeof(glm::vec3));
    glVertexArrayAttribFormat(vao, a, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(vao, a, a);
    glEnableVertexArrayAttrib(vao, a);
  }
  glVertexArrayElementBuffer(vao, prop.indices.id());
  // Per pass and level: (count, instances, first index, base vertex, base instance = the level's
  // segment of the culled list); the instance counts are copied from the culling counters.
  std::vector<uint32_t> commands;
  for (int pass = 0; pass < kCullPasses; ++pass) {
    for (uint32_t level = 0; level < m.levels; ++level) {
      commands.insert(commands.end(), {prop.index_count, 0u, 0u, 0u, level * m.count});
    }
  }
  prop.commands = create_buffer(commands.size() * sizeof(uint32_t), commands.data(), 0);
  m.props.push_back(std::move(prop));
  return uint32_t(m.props.size() - 1);
}

void Crowd::detach_props() { impl_->props.clear(); }
uint32_t Crowd::prop_count() const { return uint32_t(impl_->props.size()); }

void Crowd::prepare_prop_program(uint32_t program, uint32_t prop, float time_s,
                                 const glm::mat4& view_projection) const {
  prepare_vertex_program(program, time_s, view_projection);
  const GpuProp& p = impl_->props.at(prop);
  const GLint slot = glGetUniformLocation(program, "u_prop_slot");
  if (slot >= 0) glProgramUniform1i(program, slot, int(p.desc.slot));
  const GLint joint = glGetUniformLocation(program, "u_prop_joint");
  if (joint >= 0) glProgramUniformMatrix4fv(program, joint, 1, GL_FALSE, &p.joint[0][0]);
  const GLint offset = glGetUniformLocation(program, "u_prop_offset");
  if (offset >= 0) glProgramUniformMatrix4fv(program, offset, 1, GL_FALSE, &p.desc.offset[0][0]);
}

void draw_props(Crowd::Impl& m, CrowdProgram& prog, const glm::mat4& view_projection, float time_s, bool shadow_pass,
                int cull_pass, GLuint shadow_map, RenderStats& stats) {
  const GLuint p = prog.program.id();
  glUseProgram(p);
  UnitTable units = crowd_vertex_units(m);
  if (cull_pass >= 0) units[kUnitDrawn] = m.cull_out_texture[cull_pass].id();
  units[kUnitShadow] = shadow_map;
  units[kUnitBaseColor] = 0;
  glBindTextures(0, GLsizei(units.size()), units.data());
  prog.uniforms.set(p, prog.view_projection, view_projection);
  prog.uniforms.set(p, prog.time, time_s);
  const size_t pass_bytes = size_t(m.levels) * kCommandBytes;
  for (GpuProp& prop : m.props) {
    if (shadow_pass && !prop.desc.casts_shadows) continue;
    set_prop_uniforms(prog.uniforms, prog, prop);
    if (!shadow_pass) {
      GpuMaterial material;
      material.base_color_factor = prop.desc.color;
      material.double_sided = true;  // a mirrored instance turns the prop's winding over
      prog.material.apply(p, material, kUnitBaseColor, &prog.uniforms);
    }
    glBindVertexArray(prop.vertex_array.id());
    if (cull_pass >= 0) {
      // The level counts of this pass into the instance counts of the prop's commands (the
      // culling pass's barrier has made the counters visible to buffer copies).
      for (uint32_t level = 0; level < m.culled_levels; ++level) {
        glCopyNamedBufferSubData(m.cull_counters.id(), prop.commands.id(),
                                 GLintptr((size_t(cull_pass) * kCounters + level) * sizeof(uint32_t)),
                                 GLintptr(size_t(cull_pass) * pass_bytes + level * kCommandBytes + 4), 4);
      }
      glMemoryBarrier(GL_COMMAND_BARRIER_BIT);
      glBindBuffer(GL_DRAW_INDIRECT_BUFFER, prop.commands.id());
      glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                  reinterpret_cast<const void*>(size_t(cull_pass) * pass_bytes),
                                  GLsizei(m.culled_levels), 0);
      glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    } else {
      glDrawElementsInstancedBaseInstance(GL_TRIANGLES, GLsizei(prop.index_count), GL_UNSIGNED_INT, nullptr,
                                          GLsizei(m.drawn_count), 0);
      stats.triangles += uint64_t(prop.index_count / 3) * m.drawn_count;
    }
    ++stats.draw_calls;
  }
}

}  // namespace vatkit::gl

// GPU culling of crowds: per pass (the camera's, the shadow map's) cull.comp over the drawn list
// into per-level lists and indirect commands, and the readback of what it counted.
#include <algorithm>
#include <span>
#include <vector>

#include "render/crowd_internal.h"

namespace vatkit::gl {

namespace {

// The six planes of a view-projection's frustum (OpenGL clip space), inside where
// dot(plane.xyz, p) + plane.w >= 0 (Gribb and Hartmann's extraction from the matrix's rows).
void frustum_planes(const glm::mat4& m, glm::vec4 planes[6]) {
  const glm::vec4 r0(m[0][0], m[1][0], m[2][0], m[3][0]);
  const glm::vec4 r1(m[0][1], m[1][1], m[2][1], m[3][1]);
  const glm::vec4 r2(m[0][2], m[1][2], m[2][2], m[3][2]);
  const glm::vec4 r3(m[0][3], m[1][3], m[2][3], m[3][3]);
  planes[0] = r3 + r0;
  planes[1] = r3 - r0;
  planes[2] = r3 + r1;
  planes[3] = r3 - r1;
  planes[4] = r3 + r2;
  planes[5] = r3 - r2;
}

// The buffers of GPU culling, made on first use: the counters, the indirect commands (their
// counts, first indices and base instances fixed; instance counts written per frame on the GPU),
// and per pass the output list with a buffer texture over it for the vertex shader.
void ensure_cull_buffers(Crowd::Impl& m) {
  if (m.cull_counters) return;
  m.cull_counters = create_buffer(kCullPasses * kCounters * sizeof(uint32_t), nullptr, GL_DYNAMIC_STORAGE_BIT);
  const auto groups = m.vat->groups().size();
  std::vector<uint32_t> commands(kCullPasses * groups * m.levels * 5, 0u);
  for (int pass = 0; pass < kCullPasses; ++pass) {
    for (size_t gi = 0; gi < groups; ++gi) {
      for (uint32_t level = 0; level < m.levels; ++level) {
        const GpuDrawGroup& g = m.vat->levels()[level].groups[gi];
        uint32_t* c = &commands[command_offset(m, pass, gi, level) / sizeof(uint32_t)];
        c[0] = g.index_count;
        c[1] = 0;  // instance count: copied from the counters each frame
        c[2] = g.first_index;
        c[3] = 0;                // base vertex
        c[4] = level * m.count;  // base instance: the level's segment of the output list
      }
    }
  }
  m.cull_commands = create_buffer(commands.size() * sizeof(uint32_t), commands.data(), GL_DYNAMIC_STORAGE_BIT);
  for (int pass = 0; pass < kCullPasses; ++pass) {
    m.cull_out[pass] = create_buffer(size_t(m.levels) * m.count * m.entry_bytes, nullptr, 0);
    m.cull_out_texture[pass] = create_texture(GL_TEXTURE_BUFFER);
    glTextureBuffer(m.cull_out_texture[pass].id(), m.entry_bytes == 8 ? GL_RG32UI : GL_R32UI, m.cull_out[pass].id());
  }
}

// The pass's pose cache, on its first use.
void ensure_cache(Crowd::Impl& m, int pass) {
  if (m.cache_capacity == 0 || m.cache[pass]) return;
  const size_t bytes = size_t(m.cache_capacity) * cache_texels(*m.vat) * 16;
  m.cache[pass] = create_buffer(bytes, nullptr, 0);
  m.cache_texture[pass] = create_texture(GL_TEXTURE_BUFFER);
  glTextureBuffer(m.cache_texture[pass].id(), GL_RGBA32F, m.cache[pass].id());
}

}  // namespace

size_t command_offset(const Crowd::Impl& m, int pass, size_t group, uint32_t level) {
  return ((size_t(pass) * m.vat->groups().size() + group) * m.levels + level) * kCommandBytes;
}

void cull_crowd(Crowd::Impl& m, int pass, const glm::mat4& view_projection, const LodView& lod, float time_s) {
  ensure_cull_buffers(m);
  CullProgram& c = m.cull;
  UniformCache& u = c.uniforms;
  const GLuint p = c.program.id();
  glm::vec4 planes[6];
  frustum_planes(view_projection, planes);
  const uint32_t levels = lod.enabled ? m.levels : 1u;
  float sizes[kMaxLevels] = {};
  for (uint32_t l = 0; l < m.levels; ++l) sizes[l] = m.vat->levels()[l].screen_size;
  const Bounds& b = m.vat->bounds();
  const glm::vec3 centre = (b.min + b.max) * 0.5f;
  u.set(p, c.time, time_s);
  u.set(p, c.count, m.drawn_count);
  u.set(p, c.capacity, m.count);
  u.set(p, c.planes, std::span<const glm::vec4>(planes));
  u.set(p, c.is_static, int32_t(m.use_static ? 1 : 0));
  u.set(p, c.static_min, m.static_box.min);
  u.set(p, c.static_max, m.static_box.max);
  u.set(p, c.lod_levels, int32_t(levels));
  u.set(p, c.lod_screen_size, std::span<const float>(sizes));
  u.set(p, c.lod_eye, lod.eye);
  u.set(p, c.lod_pixels, lod.pixels);
  u.set(p, c.lod_radius, m.vat->lod_radius());
  u.set(p, c.lod_centre, centre);
  u.set(p, c.lod_texel, lod.texel);

  const uint32_t cache_capacity = m.use_static ? 0u : m.cache_capacity;
  if (cache_capacity > 0) ensure_cache(m, pass);
  u.set(p, c.cache_counter, uint32_t(pass) * kCounters + kCacheCounter);
  u.set(p, c.cache_capacity, cache_capacity);
  const uint32_t zero = 0;
  glClearNamedBufferSubData(m.cull_counters.id(), GL_R32UI, GLintptr(pass * kCounters * sizeof(uint32_t)),
                            GLsizeiptr(kCounters * sizeof(uint32_t)), GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  glUseProgram(p);
  // Units 0-15 and storage buffers 0-5 in one call each (units a pass does not use unbound).
  UnitTable units{};
  m.vat->decode_textures(units);
  units[size_t(DecodeUnits{}.instances)] = m.table_gpu.texture.id();
  units[kUnitRowBounds] = m.vat->row_bounds_texture();
  glBindTextures(0, GLsizei(units.size()), units.data());
  // Whole buffers with base offsets as uniforms: bound ranges would need the SSBO offset alignment.
  const GLuint storage[kStorageBindings] = {m.drawn_gpu.buffer.id(), m.world_gpu.buffer.id(),
                                            m.cull_out[pass].id(),   m.cull_counters.id(),
                                            m.cull_commands.id(),    cache_capacity > 0 ? m.cache[pass].id() : 0u,
                                            m.motion_gpu.id()};
  glBindBuffersBase(GL_SHADER_STORAGE_BUFFER, 0, kStorageBindings, storage);
  u.set(p, c.cull_counter_base, uint32_t(pass) * kCounters);
  const uint32_t per_dispatch = kCullMaxGroups * kCullGroupSize;
  for (uint32_t first = 0; first < m.drawn_count; first += per_dispatch) {
    const uint32_t n = std::min(per_dispatch, m.drawn_count - first);
    u.set(p, c.first, first);
    glDispatchCompute((n + kCullGroupSize - 1) / kCullGroupSize, 1, 1);
  }
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  // The counts into the commands' instance counts (cull_commands.comp), on the GPU.
  const auto commands = uint32_t(m.vat->groups().size() * m.levels);
  const GLuint pc = c.commands.id();
  UniformCache& uc = c.command_uniforms;
  uc.set(pc, c.command_count, commands);
  uc.set(pc, c.command_levels, m.levels);
  uc.set(pc, c.command_levels_drawn, levels);
  glUseProgram(pc);
  uc.set(pc, c.counter_base, uint32_t(pass) * kCounters);
  uc.set(pc, c.command_base, uint32_t(command_offset(m, pass, 0, 0) / sizeof(uint32_t)));
  glDispatchCompute((commands + kCullGroupSize - 1) / kCullGroupSize, 1, 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                  GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBuffersBase(GL_SHADER_STORAGE_BUFFER, 0, kStorageBindings, nullptr);
  m.culled = true;
  m.culled_levels = levels;
  if (pass == kCullShadow) m.culled_shadow = true;
}

Result<CullingStats> Renderer::read_culling_stats(const Crowd& crowd) const {
  const Crowd::Impl& m = *crowd.impl_;
  if (!m.culled)
    return make_error(ErrorCode::Argument, m.vat->source(),
                      "the crowd was not drawn with GPU culling in the last frame");
  uint32_t counts[kCullPasses * kCounters] = {};
  glGetNamedBufferSubData(m.cull_counters.id(), 0, sizeof(counts), counts);
  CullingStats out;
  out.instances = m.drawn_count;
  out.per_level.assign(m.culled_levels, 0);
  if (m.culled_shadow) out.shadow_per_level.assign(m.culled_levels, 0);
  for (uint32_t level = 0; level < m.culled_levels; ++level) {
    const uint64_t triangles = m.vat->levels()[level].triangles;
    out.per_level[level] = counts[kCullCamera * kCounters + level];
    out.visible += out.per_level[level];
    out.triangles += out.per_level[level] * triangles;
    if (m.culled_shadow) {
      out.shadow_per_level[level] = counts[kCullShadow * kCounters + level];
      out.shadow_visible += counts[kCullShadow * kCounters + level];
      out.shadow_triangles += uint64_t(counts[kCullShadow * kCounters + level]) * triangles;
    }
  }
  if (!m.use_static) {
    out.cache_capacity = m.cache_capacity;
    out.cached = std::min<uint64_t>(counts[kCullCamera * kCounters + kCacheCounter], m.cache_capacity);
  }
  return out;
}

Result<std::vector<std::vector<uint32_t>>> Renderer::read_visible(const Crowd& crowd) const {
  Result<CullingStats> stats = read_culling_stats(crowd);
  if (!stats) return stats.error();
  const Crowd::Impl& m = *crowd.impl_;
  std::vector<std::vector<uint32_t>> out(stats->per_level.size());
  for (size_t level = 0; level < out.size(); ++level) {
    const size_t n = stats->per_level[level];
    const size_t words = m.entry_bytes / sizeof(uint32_t);  // the logical index is the first
    std::vector<uint32_t> entries(n * words);
    if (n > 0) {
      glGetNamedBufferSubData(m.cull_out[kCullCamera].id(), GLintptr(level * m.count * m.entry_bytes),
                              GLsizeiptr(entries.size() * sizeof(uint32_t)), entries.data());
    }
    out[level].resize(n);
    for (size_t i = 0; i < n; ++i) out[level][i] = entries[i * words];
  }
  return out;
}

}  // namespace vatkit::gl

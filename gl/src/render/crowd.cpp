// Crowds: per-instance buffers keyed by the logical index, event-driven uploads.
#include <algorithm>
#include <limits>

#include "render/crowd_internal.h"

namespace vatkit::gl {

namespace {

constexpr size_t kRowBytes = sizeof(PackedInstance);  // 96
constexpr size_t kWorldBytes = sizeof(glm::mat4);     // 64

BufferTexture make_buffer_texture(size_t bytes, const void* data, GLenum format) {
  BufferTexture b;
  b.buffer = create_buffer(bytes, data, GL_DYNAMIC_STORAGE_BIT);
  b.texture = create_texture(GL_TEXTURE_BUFFER);
  glTextureBuffer(b.texture.id(), format, b.buffer.id());
  return b;
}

// For a program of the caller's: binds what it uses, unit by unit, leaving the other units alone.
void bind_crowd_textures(const Crowd::Impl& m) {
  const UnitTable t = crowd_vertex_units(m);
  for (size_t unit = 0; unit < t.size(); ++unit) {
    if (t[unit] != 0) glBindTextureUnit(GLuint(unit), t[unit]);
  }
}

}  // namespace

UnitTable crowd_vertex_units(const Crowd::Impl& m) {
  UnitTable t{};
  m.vat->decode_textures(t);
  t[size_t(DecodeUnits{}.instances)] = m.table_gpu.texture.id();
  t[kUnitWorld] = m.world_gpu.texture.id();
  t[kUnitDrawn] = m.drawn_gpu.texture.id();
  for (int k = 0; k < 4; ++k) t[size_t(kUnitInfluences + k)] = m.vat->influence_textures()[size_t(k)];
  return t;
}

Crowd::Crowd() = default;
Crowd::Crowd(Crowd&&) noexcept = default;
Crowd& Crowd::operator=(Crowd&&) noexcept = default;
Crowd::~Crowd() = default;

Result<Crowd> Crowd::create(const VatGpu& vat, uint32_t instance_count, const CrowdDesc& desc) {
  if (instance_count == 0) return make_error(ErrorCode::Argument, vat.source(), "a crowd needs at least one instance");
  GLint max_texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
  if (uint64_t(instance_count) * kInstanceTexels > uint64_t(uint32_t(max_texels))) {
    return make_error(ErrorCode::Limit, vat.source(),
                      std::to_string(instance_count) + " instances: the playback table would need " +
                          std::to_string(uint64_t(instance_count) * kInstanceTexels) +
                          " texels, over this GPU's buffer texture limit of " + std::to_string(max_texels));
  }
  Crowd crowd;
  crowd.impl_ = std::make_unique<Impl>();
  Impl& m = *crowd.impl_;
  m.vat = &vat;
  m.count = instance_count;
  m.table = InstanceTable(instance_count, vat.frame_rows());
  m.worlds.assign(instance_count, glm::mat4(1.0f));
  m.world_dirty_flag.assign(instance_count, 0);
  m.world_dirty.reserve(64);
  m.drawn.resize(instance_count);
  for (uint32_t i = 0; i < instance_count; ++i) m.drawn[i] = i;
  m.drawn_count = instance_count;
  m.ranges.reserve(64);
  m.bounds = vat.bounds();

  m.table_gpu = make_buffer_texture(size_t(instance_count) * kRowBytes, m.table.rows().data(), GL_RGBA32F);
  m.world_gpu = make_buffer_texture(size_t(instance_count) * kWorldBytes, m.worlds.data(), GL_RGBA32F);
  m.drawn_gpu = make_buffer_texture(size_t(instance_count) * 4, m.drawn.data(), GL_R32UI);
  // The table's rows are on the GPU already: forget what the constructor marked.
  take_dirty(m.table, m.ranges);
  m.ranges.clear();

  Result<CrowdProgram> lit = build_crowd_program(vat, false, false);
  if (!lit) return lit.error();
  m.lit = std::move(*lit);
  Result<CrowdProgram> shadow = build_crowd_program(vat, true, false);
  if (!shadow) return shadow.error();
  m.shadow = std::move(*shadow);
  Result<CullProgram> cull = build_cull_program(vat);
  if (!cull) return cull.error();
  m.cull = std::move(*cull);
  m.levels = std::min(uint32_t(vat.levels().size()), kMaxLevels);
  if (uses_cache(vat)) {
    m.entry_bytes = 8;
    const uint64_t per_entry = uint64_t(cache_texels(vat)) * 16;
    const uint64_t by_texels = uint64_t(uint32_t(max_texels)) / uint64_t(cache_texels(vat));
    m.cache_capacity = uint32_t(std::min<uint64_t>({instance_count, desc.instance_cache_bytes / per_entry, by_texels}));
  }
  return crowd;
}

uint32_t Crowd::size() const { return impl_->count; }
const VatGpu& Crowd::vat() const { return *impl_->vat; }
InstanceTable& Crowd::table() { return impl_->table; }
const InstanceTable& Crowd::table() const { return impl_->table; }

void Crowd::set_world(uint32_t index, const glm::mat4& world) {
  Impl& m = *impl_;
  m.worlds[index] = world;
  if (!m.world_dirty_flag[index]) {
    m.world_dirty_flag[index] = 1;
    m.world_dirty.push_back(index);
  }
  m.bounds = unite(m.bounds, transform_bounds(m.vat->bounds(), world));
}

const glm::mat4& Crowd::world(uint32_t index) const { return impl_->worlds[index]; }

Result<void> Crowd::set_drawn(std::span<const uint32_t> logical) {
  Impl& m = *impl_;
  if (logical.size() > m.count) {
    return make_error(ErrorCode::Argument, m.vat->source(),
                      "drawn list of " + std::to_string(logical.size()) + " instances, more than the crowd's " +
                          std::to_string(m.count));
  }
  for (uint32_t i : logical) {
    if (i >= m.count)
      return make_error(ErrorCode::Argument, m.vat->source(),
                        "drawn list names instance " + std::to_string(i) + " of " + std::to_string(m.count));
  }
  if (logical.empty()) {
    for (uint32_t i = 0; i < m.count; ++i) m.drawn[i] = i;
    m.drawn_count = m.count;
  } else {
    std::copy(logical.begin(), logical.end(), m.drawn.begin());
    m.drawn_count = uint32_t(logical.size());
  }
  m.drawn_dirty = true;
  return {};
}

uint32_t Crowd::drawn_count() const { return impl_->drawn_count; }

Bounds Crowd::world_bounds() const { return impl_->bounds; }

void Crowd::recompute_bounds() {
  Impl& m = *impl_;
  Bounds b{glm::vec3(1.0f), glm::vec3(-1.0f)};
  for (const glm::mat4& w : m.worlds) b = unite(b, transform_bounds(m.vat->bounds(), w));
  m.bounds = b;
}

size_t Crowd::sync() {
  Impl& m = *impl_;
  size_t bytes = 0;
  m.ranges.clear();
  take_dirty(m.table, m.ranges, 8);
  for (const RowRange& r : m.ranges) {
    glNamedBufferSubData(m.table_gpu.buffer.id(), GLintptr(r.first * kRowBytes), GLsizeiptr(r.count * kRowBytes),
                         &m.table.rows()[r.first]);
    bytes += r.count * kRowBytes;
  }
  if (!m.world_dirty.empty()) {
    std::sort(m.world_dirty.begin(), m.world_dirty.end());
    size_t i = 0;
    while (i < m.world_dirty.size()) {
      const uint32_t first = m.world_dirty[i];
      uint32_t end = first + 1;
      m.world_dirty_flag[first] = 0;
      while (++i < m.world_dirty.size() && m.world_dirty[i] <= end + 8) {
        end = m.world_dirty[i] + 1;
        m.world_dirty_flag[m.world_dirty[i]] = 0;
      }
      keep_previous_worlds(m, first, end);
      glNamedBufferSubData(m.world_gpu.buffer.id(), GLintptr(first * kWorldBytes),
                           GLsizeiptr((end - first) * kWorldBytes), &m.worlds[first]);
      bytes += (end - first) * kWorldBytes;
    }
    m.world_dirty.clear();
  }
  finish_previous_worlds(m);
  if (m.drawn_dirty) {
    glNamedBufferSubData(m.drawn_gpu.buffer.id(), 0, GLsizeiptr(size_t(m.drawn_count) * 4), m.drawn.data());
    bytes += size_t(m.drawn_count) * 4;
    m.drawn_dirty = false;
  }
  return bytes;
}

Result<void> Crowd::set_static_pose(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals) {
  Impl& m = *impl_;
  const uint32_t n = m.vat->vertex_count();
  if (positions.size() != n || normals.size() != n) {
    return make_error(ErrorCode::Argument, m.vat->source(),
                      "static pose of " + std::to_string(positions.size()) + " positions and " +
                          std::to_string(normals.size()) + " normals; the VAT has " + std::to_string(n) + " vertices");
  }
  if (!m.static_lit.program) {
    Result<CrowdProgram> lit = build_crowd_program(*m.vat, false, true);
    if (!lit) return lit.error();
    Result<CrowdProgram> shadow = build_crowd_program(*m.vat, true, true);
    if (!shadow) return shadow.error();
    m.static_lit = std::move(*lit);
    m.static_shadow = std::move(*shadow);
  }
  m.static_positions = create_buffer(positions.size_bytes(), positions.data(), 0);
  m.static_normals = create_buffer(normals.size_bytes(), normals.data(), 0);
  m.static_vao = m.vat->vertex_array_with(m.static_positions.id(), m.static_normals.id());
  m.use_static = true;
  m.static_box = Bounds{glm::vec3(std::numeric_limits<float>::max()), glm::vec3(-std::numeric_limits<float>::max())};
  for (const glm::vec3& p : positions) {
    m.static_box.min = glm::min(m.static_box.min, p);
    m.static_box.max = glm::max(m.static_box.max, p);
  }
  return {};
}

void Crowd::prepare_vertex_program(uint32_t program, float time_s, const glm::mat4& view_projection) const {
  impl_->vat->set_decode_uniforms(program);
  set_crowd_samplers(program);
  const GLint time = glGetUniformLocation(program, "u_vat_time");
  if (time >= 0) glProgramUniform1f(program, time, time_s);
  const GLint vp = glGetUniformLocation(program, "u_view_projection");
  if (vp >= 0) glProgramUniformMatrix4fv(program, vp, 1, GL_FALSE, &view_projection[0][0]);
}

void Crowd::bind_vertex_textures() {
  sync();
  bind_crowd_textures(*impl_);
}

void Crowd::clear_static_pose() { impl_->use_static = false; }
bool Crowd::static_pose() const { return impl_->use_static; }

}  // namespace vatkit::gl

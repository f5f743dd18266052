// Crowds: per-instance buffers keyed by the logical index, event-driven uploads.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <glm/gtc/matrix_transform.hpp>

#include "render/crowd_internal.h"

namespace vatkit::gl {

namespace {

constexpr size_t kRowBytes = sizeof(PackedInstance);  // 96
constexpr size_t kTintBytes = 4;                      // RGBA8
constexpr uint32_t kWhite = 0xffffffffu;

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
  if (m.motion_gpu) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kMotionBinding, m.motion_gpu.id());
}

}  // namespace

UnitTable crowd_vertex_units(const Crowd::Impl& m) {
  UnitTable t{};
  m.vat->decode_textures(t);
  t[size_t(DecodeUnits{}.instances)] = m.table_gpu.texture.id();
  t[kUnitWorld] = m.world_gpu.texture.id();
  t[kUnitDrawn] = m.drawn_gpu.texture.id();
  t[kUnitTint] = m.tint_gpu.texture.id();
  for (int k = 0; k < 4; ++k) t[size_t(kUnitInfluences + k)] = m.vat->influence_textures()[size_t(k)];
  return t;
}

Crowd::Crowd() = default;
Crowd::Crowd(Crowd&&) noexcept = default;
Crowd& Crowd::operator=(Crowd&&) noexcept = default;
Crowd::~Crowd() = default;

Result<Crowd> Crowd::create(const VatGpu& vat, uint32_t live_count, const CrowdDesc& desc) {
  if (live_count == 0) return make_error(ErrorCode::Argument, vat.source(), "a crowd needs at least one instance");
  const uint32_t instance_count = std::max(live_count, desc.capacity);
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
  m.live = live_count;
  m.desc = desc;
  m.table = InstanceTable(instance_count, vat.frame_rows());
  const bool placed = desc.transforms == CrowdTransforms::PositionHeading;
  if (placed) {
    m.placements.assign(instance_count, glm::vec4(0.0f));
    m.world_stride = sizeof(glm::vec4);
    m.motions.assign(size_t(instance_count) * 2, glm::vec4(0.0f));
    m.motion_gpu = create_buffer(m.motions.size() * sizeof(glm::vec4), m.motions.data(), GL_DYNAMIC_STORAGE_BIT);
  } else {
    m.worlds.assign(instance_count, glm::mat4(1.0f));
  }
  m.world_dirty_flag.assign(instance_count, 0);
  m.world_dirty.reserve(64);
  m.tints.assign(instance_count, kWhite);
  m.drawn.resize(instance_count);
  for (uint32_t i = 0; i < instance_count; ++i) m.drawn[i] = i;
  m.drawn_count = live_count;
  m.ranges.reserve(64);
  m.bounds = vat.bounds();
  const Bounds& b = vat.bounds();
  m.footprint_radius =
      std::sqrt(std::max(b.min.x * b.min.x, b.max.x * b.max.x) + std::max(b.min.z * b.min.z, b.max.z * b.max.z));

  m.table_gpu = make_buffer_texture(size_t(instance_count) * kRowBytes, m.table.rows().data(), GL_RGBA32F);
  m.world_gpu =
      make_buffer_texture(size_t(instance_count) * m.world_stride,
                          placed ? static_cast<const void*>(m.placements.data()) : m.worlds.data(), GL_RGBA32F);
  m.drawn_gpu = make_buffer_texture(size_t(instance_count) * 4, m.drawn.data(), GL_R32UI);
  m.tint_gpu = make_buffer_texture(size_t(instance_count) * kTintBytes, m.tints.data(), GL_RGBA8);
  // The table's rows are on the GPU already: forget what the constructor marked.
  take_dirty(m.table, m.ranges);
  m.ranges.clear();

  Result<CrowdProgram> lit = build_crowd_program(vat, false, false, desc);
  if (!lit) return lit.error();
  m.lit = std::move(*lit);
  Result<CrowdProgram> shadow = build_crowd_program(vat, true, false, desc);
  if (!shadow) return shadow.error();
  m.shadow = std::move(*shadow);
  Result<CullProgram> cull = build_cull_program(vat, desc);
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

uint32_t Crowd::size() const { return impl_->live; }
uint32_t Crowd::capacity() const { return impl_->count; }
const VatGpu& Crowd::vat() const { return *impl_->vat; }
InstanceTable& Crowd::table() { return impl_->table; }
const InstanceTable& Crowd::table() const { return impl_->table; }
CrowdTransforms Crowd::transforms() const { return impl_->desc.transforms; }
uint32_t Crowd::lit_program() const { return impl_->lit.program.id(); }

namespace {

void mark_world(Crowd::Impl& m, uint32_t index) {
  if (!m.world_dirty_flag[index]) {
    m.world_dirty_flag[index] = 1;
    m.world_dirty.push_back(index);
  }
}

// The box of the VAT's bounds turned about +Y by any heading and moved to `p`: cheap enough to
// run for every agent every frame (no corner transforms).
Bounds placed_bounds(const Crowd::Impl& m, const glm::vec3& p) {
  const Bounds& b = m.vat->bounds();
  const float r = m.footprint_radius;
  return Bounds{glm::vec3(p.x - r, p.y + b.min.y, p.z - r), glm::vec3(p.x + r, p.y + b.max.y, p.z + r)};
}

glm::mat4 placement_matrix(const glm::vec4& p) {
  return glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(p)), p.w, glm::vec3(0.0f, 1.0f, 0.0f));
}

uint32_t pack_tint(const glm::vec4& rgba) {
  uint32_t out = 0;
  for (int k = 0; k < 4; ++k) {
    const float v = std::clamp(rgba[k], 0.0f, 1.0f);
    out |= uint32_t(std::lround(v * 255.0f)) << (8 * k);
  }
  return out;
}

void grow_range(uint32_t& first, uint32_t& end, uint32_t a, uint32_t b) {
  if (first >= end) {
    first = a;
    end = b;
  } else {
    first = std::min(first, a);
    end = std::max(end, b);
  }
}

}  // namespace

void Crowd::set_world(uint32_t index, const glm::mat4& world) {
  Impl& m = *impl_;
  if (m.desc.transforms == CrowdTransforms::PositionHeading) {
    set_placement(index, glm::vec3(world[3]), std::atan2(world[2].x, world[2].z));
    return;
  }
  m.worlds[index] = world;
  mark_world(m, index);
  m.bounds = unite(m.bounds, transform_bounds(m.vat->bounds(), world));
}

glm::mat4 Crowd::world(uint32_t index) const {
  const Impl& m = *impl_;
  if (m.desc.transforms == CrowdTransforms::PositionHeading) return placement_matrix(m.placements[index]);
  return m.worlds[index];
}

void Crowd::set_placement(uint32_t index, const glm::vec3& position, float heading) {
  Impl& m = *impl_;
  if (m.desc.transforms == CrowdTransforms::Matrix) {
    set_world(index, placement_matrix(glm::vec4(position, heading)));
    return;
  }
  m.placements[index] = glm::vec4(position, heading);
  mark_world(m, index);
  m.bounds = unite(m.bounds, placed_bounds(m, position));
}

void Crowd::set_placements(uint32_t first, std::span<const glm::vec4> placements) {
  Impl& m = *impl_;
  if (placements.empty()) return;
  if (m.desc.transforms == CrowdTransforms::Matrix) {
    for (size_t i = 0; i < placements.size(); ++i) set_world(first + uint32_t(i), placement_matrix(placements[i]));
    return;
  }
  std::memcpy(&m.placements[first], placements.data(), placements.size_bytes());
  grow_range(m.bulk_first, m.bulk_end, first, first + uint32_t(placements.size()));
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
  for (const glm::vec4& p : placements) {
    lo = glm::min(lo, glm::vec3(p));
    hi = glm::max(hi, glm::vec3(p));
  }
  m.bounds = unite(m.bounds, unite(placed_bounds(m, lo), placed_bounds(m, hi)));
}

void Crowd::set_motion(uint32_t index, const glm::vec3& velocity, float turn_rate, float since) {
  Impl& m = *impl_;
  if (m.desc.transforms != CrowdTransforms::PositionHeading) return;
  m.motions[size_t(index) * 2] = glm::vec4(velocity, turn_rate);
  m.motions[size_t(index) * 2 + 1] = glm::vec4(since, 0.0f, 0.0f, 0.0f);
  grow_range(m.motion_first, m.motion_end, index, index + 1);
}

glm::vec4 Crowd::placement_at(uint32_t index, float time_s) const {
  const Impl& m = *impl_;
  if (m.desc.transforms != CrowdTransforms::PositionHeading) {
    const glm::mat4& w = m.worlds[index];
    return glm::vec4(glm::vec3(w[3]), std::atan2(w[2].x, w[2].z));
  }
  const glm::vec4& motion = m.motions[size_t(index) * 2];
  return m.placements[index] + motion * (time_s - m.motions[size_t(index) * 2 + 1].x);
}

void Crowd::set_tint(uint32_t index, const glm::vec4& rgba) {
  Impl& m = *impl_;
  m.tints[index] = pack_tint(rgba);
  grow_range(m.tint_first, m.tint_end, index, index + 1);
}

glm::vec4 Crowd::tint(uint32_t index) const {
  const uint32_t t = impl_->tints[index];
  return glm::vec4(float(t & 255u), float((t >> 8) & 255u), float((t >> 16) & 255u), float(t >> 24)) / 255.0f;
}

Result<uint32_t> Crowd::spawn() {
  Impl& m = *impl_;
  if (m.live == m.count) {
    return make_error(ErrorCode::Limit, m.vat->source(),
                      "spawn: the crowd is full (" + std::to_string(m.count) + " instances, CrowdDesc::capacity)");
  }
  const uint32_t index = m.live++;
  if (m.desc.transforms == CrowdTransforms::PositionHeading) {
    set_placement(index, glm::vec3(0.0f), 0.0f);
    set_motion(index, glm::vec3(0.0f), 0.0f, 0.0f);
  } else {
    set_world(index, glm::mat4(1.0f));
  }
  set_tint(index, glm::vec4(1.0f));
  if (m.drawn_all) m.drawn_count = m.live;
  return index;
}

uint32_t Crowd::despawn(uint32_t index) {
  Impl& m = *impl_;
  const uint32_t last = m.live - 1;
  if (index != last) {
    if (m.desc.transforms == CrowdTransforms::PositionHeading) {
      m.placements[index] = m.placements[last];
      const glm::vec4 motion = m.motions[size_t(last) * 2], since = m.motions[size_t(last) * 2 + 1];
      set_motion(index, glm::vec3(motion), motion.w, since.x);
    } else {
      m.worlds[index] = m.worlds[last];
    }
    mark_world(m, index);
    if (m.tints[index] != m.tints[last]) {
      m.tints[index] = m.tints[last];
      grow_range(m.tint_first, m.tint_end, index, index + 1);
    }
    write_playback(m.table, index, playback(m.table, last));
  }
  m.live = last;
  if (m.drawn_all) m.drawn_count = m.live;
  return last;
}

Result<void> Crowd::set_drawn(std::span<const uint32_t> logical) {
  Impl& m = *impl_;
  if (logical.size() > m.count) {
    return make_error(ErrorCode::Argument, m.vat->source(),
                      "drawn list of " + std::to_string(logical.size()) + " instances, more than the crowd's " +
                          std::to_string(m.count));
  }
  for (uint32_t i : logical) {
    if (i >= m.live)
      return make_error(ErrorCode::Argument, m.vat->source(),
                        "drawn list names instance " + std::to_string(i) + " of " + std::to_string(m.live));
  }
  m.drawn_all = logical.empty();
  if (logical.empty()) {
    for (uint32_t i = 0; i < m.count; ++i) m.drawn[i] = i;
    m.drawn_count = m.live;
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
  for (uint32_t i = 0; i < m.live; ++i) {
    b = unite(b, m.desc.transforms == CrowdTransforms::PositionHeading
                     ? placed_bounds(m, glm::vec3(m.placements[i]))
                     : transform_bounds(m.vat->bounds(), m.worlds[i]));
  }
  m.bounds = b;
}

namespace {

// The world matrices (or placements) set since the last sync: the bulk range of set_placements,
// then the single changes outside it, as one range when they fill at least half of their span
// (every agent moved: no sort), else sorted and merged across gaps of up to 8 instances.
size_t sync_worlds(Crowd::Impl& m) {
  size_t bytes = 0;
  const auto* source = m.desc.transforms == CrowdTransforms::PositionHeading
                           ? reinterpret_cast<const uint8_t*>(m.placements.data())
                           : reinterpret_cast<const uint8_t*>(m.worlds.data());
  const size_t stride = m.world_stride;
  auto upload = [&](uint32_t first, uint32_t end) {
    keep_previous_worlds(m, first, end);  // motion vectors: what these showed a render ago
    glNamedBufferSubData(m.world_gpu.buffer.id(), GLintptr(first * stride), GLsizeiptr((end - first) * stride),
                         source + first * stride);
    bytes += (end - first) * stride;
  };
  if (m.bulk_first < m.bulk_end) upload(m.bulk_first, m.bulk_end);
  size_t kept = 0;
  uint32_t lo = std::numeric_limits<uint32_t>::max(), hi = 0;
  for (const uint32_t i : m.world_dirty) {
    m.world_dirty_flag[i] = 0;
    if (i >= m.bulk_first && i < m.bulk_end) continue;
    m.world_dirty[kept++] = i;
    lo = std::min(lo, i);
    hi = std::max(hi, i);
  }
  m.world_dirty.resize(kept);
  m.bulk_first = m.bulk_end = 0;
  if (kept == 0) return bytes;
  if (kept * 2 >= size_t(hi - lo) + 1) {
    upload(lo, hi + 1);
    m.world_dirty.clear();
    return bytes;
  }
  std::sort(m.world_dirty.begin(), m.world_dirty.end());
  size_t i = 0;
  while (i < m.world_dirty.size()) {
    const uint32_t first = m.world_dirty[i];
    uint32_t end = first + 1;
    while (++i < m.world_dirty.size() && m.world_dirty[i] <= end + 8) end = m.world_dirty[i] + 1;
    upload(first, end);
  }
  m.world_dirty.clear();
  return bytes;
}

}  // namespace

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
  bytes += sync_worlds(m);
  if (m.motion_first < m.motion_end) {
    constexpr size_t kMotionBytes = 2 * sizeof(glm::vec4);
    glNamedBufferSubData(m.motion_gpu.id(), GLintptr(m.motion_first * kMotionBytes),
                         GLsizeiptr((m.motion_end - m.motion_first) * kMotionBytes),
                         &m.motions[size_t(m.motion_first) * 2]);
    bytes += (m.motion_end - m.motion_first) * kMotionBytes;
    m.motion_first = m.motion_end = 0;
  }
  if (m.tint_first < m.tint_end) {
    glNamedBufferSubData(m.tint_gpu.buffer.id(), GLintptr(m.tint_first * kTintBytes),
                         GLsizeiptr((m.tint_end - m.tint_first) * kTintBytes), &m.tints[m.tint_first]);
    bytes += (m.tint_end - m.tint_first) * kTintBytes;
    m.tint_first = m.tint_end = 0;
  }
  finish_previous_worlds(m);
  if (m.drawn_dirty) {
    // "All" covers the whole capacity, for the instances spawned later.
    const size_t n = m.drawn_all ? m.count : m.drawn_count;
    glNamedBufferSubData(m.drawn_gpu.buffer.id(), 0, GLsizeiptr(n * 4), m.drawn.data());
    bytes += n * 4;
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
    Result<CrowdProgram> lit = build_crowd_program(*m.vat, false, true, m.desc);
    if (!lit) return lit.error();
    Result<CrowdProgram> shadow = build_crowd_program(*m.vat, true, true, m.desc);
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

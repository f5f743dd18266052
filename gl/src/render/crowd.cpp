// Crowds: per-instance buffers keyed by the logical index, event-driven uploads, and the renderer
// (shadow pass, lit pass, ground).
#include "vatkit/gl/crowd.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <glm/gtc/matrix_transform.hpp>

#include "objects/shaders.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/program.h"
#include "vatkit/playback.h"

namespace vatkit::gl {

namespace {

// Texture units of the renderer, after the decode chunk's (DecodeUnits: 0-5).
constexpr int kUnitWorld = 6;
constexpr int kUnitDrawn = 7;
constexpr int kUnitBaseColor = 8;
constexpr int kUnitShadow = 9;
constexpr int kUnitRowBounds = 10;  // cull.comp's u_cull_row_bounds
constexpr int kUnitCache = 11;       // crowd.vert's u_crowd_pose_cache
constexpr int kUnitInfluences = 12;  // crowd.vert's u_crowd_slots0, weights0, slots1, weights1 (12-15)

constexpr size_t kRowBytes = sizeof(PackedInstance);  // 96
constexpr size_t kWorldBytes = sizeof(glm::mat4);     // 64

// GPU culling: two passes (the camera's, the shadow map's), at most kMaxLevels levels of detail
// (cull.comp's u_lod_screen_size), 64 invocations per work group, at most 65535 groups a dispatch.
// Per pass kCounters counters: one per level, then the pose cache's.
constexpr int kCullPasses = 2;
constexpr int kCullCamera = 0;
constexpr int kCullShadow = 1;
constexpr uint32_t kMaxLevels = 16;
constexpr uint32_t kCounters = kMaxLevels + 1;
constexpr uint32_t kCacheCounter = kMaxLevels;
constexpr uint32_t kCullGroupSize = 64;
constexpr uint32_t kCullMaxGroups = 65535;
constexpr size_t kCommandBytes = 5 * sizeof(uint32_t);  // DrawElementsIndirectCommand
constexpr GLsizei kStorageBindings = 6;  // the culling passes' storage buffers, bindings 0-5

struct CullProgram {
  Program program;
  Program commands;  // cull_commands.comp
  GLint command_count = -1, command_levels = -1, command_levels_drawn = -1, counter_base = -1, command_base = -1;
  GLint cull_counter_base = -1, cache_counter = -1, cache_capacity = -1, slot_count = -1;
  GLint time = -1, count = -1, first = -1, capacity = -1, planes = -1, is_static = -1, static_min = -1, static_max = -1;
  GLint lod_levels = -1, lod_screen_size = -1, lod_eye = -1, lod_pixels = -1, lod_radius = -1, lod_centre = -1;
  GLint lod_texel = -1;
  UniformCache uniforms, command_uniforms;  // of `program` and of `commands`
};

bool empty_bounds(const Bounds& b) { return b.min.x > b.max.x || b.min.y > b.max.y || b.min.z > b.max.z; }

Bounds unite(const Bounds& a, const Bounds& b) {
  if (empty_bounds(a)) return b;
  if (empty_bounds(b)) return a;
  return Bounds{glm::min(a.min, b.min), glm::max(a.max, b.max)};
}

struct LightingSlots {
  GLint direction = -1, color = -1, sky = -1, bounce = -1, shadows = -1, light_vp = -1, texel_world = -1;

  void find(GLuint p) {
    direction = glGetUniformLocation(p, "u_light_direction");
    color = glGetUniformLocation(p, "u_light_color");
    sky = glGetUniformLocation(p, "u_sky_color");
    bounce = glGetUniformLocation(p, "u_bounce_color");
    shadows = glGetUniformLocation(p, "u_shadows");
    light_vp = glGetUniformLocation(p, "u_light_view_projection");
    texel_world = glGetUniformLocation(p, "u_shadow_texel_world");
    const GLint map = glGetUniformLocation(p, "u_shadow_map");
    if (map >= 0) glProgramUniform1i(p, map, kUnitShadow);
  }
};

struct CrowdProgram {
  Program program;
  GLint view_projection = -1, time = -1;
  MaterialUniforms material;
  LightingSlots lighting;
  UniformCache uniforms;
};

void set_crowd_samplers(GLuint p) {
  auto sampler = [&](const char* name, int unit) {
    const GLint at = glGetUniformLocation(p, name);
    if (at >= 0) glProgramUniform1i(p, at, unit);
  };
  sampler("u_crowd_world", kUnitWorld);
  sampler("u_crowd_drawn", kUnitDrawn);
  sampler("u_crowd_pose_cache", kUnitCache);
  sampler("u_crowd_slots0", kUnitInfluences);
  sampler("u_crowd_weights0", kUnitInfluences + 1);
  sampler("u_crowd_slots1", kUnitInfluences + 2);
  sampler("u_crowd_weights1", kUnitInfluences + 3);
  sampler("u_base_color_texture", kUnitBaseColor);
}

// What the culling pass caches per visible instance (CROWD_POSE_CACHE in cull.comp): a rig's
// slot transforms (3 texels per slot), a delta's resolved pose (2 texels).
bool uses_cache(const VatGpu& vat) { return vat.encoding() == Encoding::Delta || !vat.metadata().slots.empty(); }
size_t cache_texels(const VatGpu& vat) {
  return vat.encoding() == Encoding::Rig ? vat.metadata().slots.size() * 3 : 2;
}

Result<CrowdProgram> build_crowd_program(const VatGpu& vat, bool shadow, bool static_pose) {
  ProgramDesc desc;
  desc.name = std::string("crowd") + (static_pose ? " static" : "") + (shadow ? " shadow" : "") + " (" +
              to_string(vat.encoding()) + " " + to_string(vat.precision()) + ")";
  desc.draw_parameters = true;
  desc.defines = vat.defines();
  if (static_pose) desc.defines.push_back("CROWD_STATIC");
  std::string vertex = crowd_vertex_glsl();
  std::string fragment;
  if (shadow) {
    fragment = detail::shader_text("shadow.frag");
  } else {
    fragment = std::string(detail::shader_text("lighting.glsl")) + "\n" + std::string(detail::shader_text("crowd.frag"));
  }
  desc.shaders = {{ShaderStage::vertex, std::move(vertex), ""}, {ShaderStage::fragment, std::move(fragment), ""}};
  Result<Program> built = build_program(desc);
  if (!built) return built.error();
  CrowdProgram out;
  out.program = std::move(*built);
  const GLuint p = out.program.id();
  vat.set_decode_uniforms(p);
  set_crowd_samplers(p);
  const GLint slot_count = glGetUniformLocation(p, "u_crowd_slot_count");
  if (slot_count >= 0) glProgramUniform1i(p, slot_count, int(vat.metadata().slots.size()));
  out.view_projection = glGetUniformLocation(p, "u_view_projection");
  out.time = glGetUniformLocation(p, "u_vat_time");
  out.material = MaterialUniforms::find(p);
  out.lighting.find(p);
  return out;
}

Result<CullProgram> build_cull_program(const VatGpu& vat) {
  ProgramDesc desc;
  desc.name = std::string("crowd cull (") + to_string(vat.encoding()) + " " + to_string(vat.precision()) + ")";
  desc.defines = vat.defines();
  if (uses_cache(vat)) desc.defines.push_back("CROWD_POSE_CACHE");
  std::string text(detail::shader_text("vat_decode.glsl"));
  text += "\n";
  text += detail::shader_text("cull.comp");
  desc.shaders = {{ShaderStage::compute, std::move(text), ""}};
  Result<Program> built = build_program(desc);
  if (!built) return built.error();
  CullProgram out;
  out.program = std::move(*built);
  const GLuint p = out.program.id();
  vat.set_decode_uniforms(p);
  const GLint row_bounds = glGetUniformLocation(p, "u_cull_row_bounds");
  if (row_bounds >= 0) glProgramUniform1i(p, row_bounds, kUnitRowBounds);
  out.time = glGetUniformLocation(p, "u_vat_time");
  out.count = glGetUniformLocation(p, "u_cull_count");
  out.first = glGetUniformLocation(p, "u_cull_first");
  out.capacity = glGetUniformLocation(p, "u_cull_capacity");
  out.planes = glGetUniformLocation(p, "u_cull_planes");
  out.is_static = glGetUniformLocation(p, "u_cull_static");
  out.static_min = glGetUniformLocation(p, "u_cull_static_min");
  out.static_max = glGetUniformLocation(p, "u_cull_static_max");
  out.lod_levels = glGetUniformLocation(p, "u_lod_levels");
  out.lod_screen_size = glGetUniformLocation(p, "u_lod_screen_size");
  out.lod_eye = glGetUniformLocation(p, "u_lod_eye");
  out.lod_pixels = glGetUniformLocation(p, "u_lod_pixels");
  out.lod_radius = glGetUniformLocation(p, "u_lod_radius");
  out.lod_centre = glGetUniformLocation(p, "u_lod_centre");
  out.lod_texel = glGetUniformLocation(p, "u_lod_texel");

  ProgramDesc commands;
  commands.name = "crowd cull commands";
  commands.shaders = {{ShaderStage::compute, std::string(detail::shader_text("cull_commands.comp")), ""}};
  Result<Program> built_commands = build_program(commands);
  if (!built_commands) return built_commands.error();
  out.commands = std::move(*built_commands);
  out.command_count = glGetUniformLocation(out.commands.id(), "u_command_count");
  out.command_levels = glGetUniformLocation(out.commands.id(), "u_levels");
  out.command_levels_drawn = glGetUniformLocation(out.commands.id(), "u_levels_drawn");
  out.counter_base = glGetUniformLocation(out.commands.id(), "u_counter_base");
  out.command_base = glGetUniformLocation(out.commands.id(), "u_command_base");
  out.cull_counter_base = glGetUniformLocation(p, "u_cull_counter_base");
  out.cache_counter = glGetUniformLocation(p, "u_cull_cache_counter");
  out.cache_capacity = glGetUniformLocation(p, "u_cull_cache_capacity");
  out.slot_count = glGetUniformLocation(p, "u_cull_slot_count");
  if (out.slot_count >= 0) glProgramUniform1i(p, out.slot_count, int(vat.metadata().slots.size()));
  return out;
}

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

// A buffer texture over an immutable, dynamic buffer.
struct BufferTexture {
  Buffer buffer;
  Texture texture;
};

BufferTexture make_buffer_texture(size_t bytes, const void* data, GLenum format) {
  BufferTexture b;
  b.buffer = create_buffer(bytes, data, GL_DYNAMIC_STORAGE_BIT);
  b.texture = create_texture(GL_TEXTURE_BUFFER);
  glTextureBuffer(b.texture.id(), format, b.buffer.id());
  return b;
}

// splitmix64: the same sequence on every platform (std distributions are not).
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
};

}  // namespace

std::string crowd_vertex_glsl() {
  std::string text(detail::shader_text("vat_decode.glsl"));
  text += "\n";
  text += detail::shader_text("crowd.vert");
  return text;
}

// ---- camera ----------------------------------------------------------------------------------

glm::mat4 Camera::view() const { return glm::lookAt(eye, target, up); }

glm::mat4 Camera::projection(float aspect) const {
  return glm::perspective(glm::radians(fov_y_deg), aspect, near_plane, far_plane);
}

Bounds transform_bounds(const Bounds& b, const glm::mat4& world) {
  Bounds out{glm::vec3(std::numeric_limits<float>::max()), glm::vec3(-std::numeric_limits<float>::max())};
  for (int i = 0; i < 8; ++i) {
    const glm::vec3 corner((i & 1) ? b.max.x : b.min.x, (i & 2) ? b.max.y : b.min.y, (i & 4) ? b.max.z : b.min.z);
    const glm::vec3 p = glm::vec3(world * glm::vec4(corner, 1.0f));
    out.min = glm::min(out.min, p);
    out.max = glm::max(out.max, p);
  }
  return out;
}

Camera frame_bounds(const Bounds& bounds, float aspect, float azimuth_deg, float elevation_deg, float fov_y_deg) {
  Camera c;
  const glm::vec3 centre = (bounds.min + bounds.max) * 0.5f;
  const float radius = std::max(glm::length(bounds.max - bounds.min) * 0.5f, 1e-6f);
  const float tan_y = std::tan(glm::radians(fov_y_deg) * 0.5f);
  const float tan_x = tan_y * std::max(aspect, 1e-3f);
  const float az = glm::radians(azimuth_deg), el = glm::radians(elevation_deg);
  const glm::vec3 back(std::sin(az) * std::cos(el), std::sin(el), std::cos(az) * std::cos(el));  // toward the eye
  const glm::vec3 right = glm::normalize(glm::cross(glm::vec3(0.0f, 1.0f, 0.0f), back));
  const glm::vec3 up = glm::cross(back, right);
  // The nearest eye distance at which every corner is inside both fields of view: a corner at
  // (x, y, z) in the camera's axes (z toward the eye) needs d >= z + |x| / tan_x and z + |y| / tan_y.
  float distance = 0.0f, nearest = std::numeric_limits<float>::max(), farthest = 0.0f;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 8; ++i) {
      const glm::vec3 corner((i & 1) ? bounds.max.x : bounds.min.x, (i & 2) ? bounds.max.y : bounds.min.y,
                             (i & 4) ? bounds.max.z : bounds.min.z);
      const glm::vec3 d = corner - centre;
      const float x = glm::dot(d, right), y = glm::dot(d, up), z = glm::dot(d, back);
      if (pass == 0) {
        distance = std::max({distance, z + std::abs(x) / tan_x, z + std::abs(y) / tan_y});
      } else {
        nearest = std::min(nearest, distance - z);
        farthest = std::max(farthest, distance - z);
      }
    }
    if (pass == 0) distance = std::max(distance * 1.04f, radius * 1e-3f);  // a small margin
  }
  c.target = centre;
  c.eye = centre + back * distance;
  c.up = glm::vec3(0.0f, 1.0f, 0.0f);
  c.fov_y_deg = fov_y_deg;
  c.near_plane = std::max(nearest * 0.5f, distance * 1e-3f);
  c.far_plane = farthest + radius * 4.0f;  // the ground plane reaches beyond the bounds
  return c;
}

// ---- crowd -----------------------------------------------------------------------------------

struct Crowd::Impl {
  const VatGpu* vat = nullptr;
  uint32_t count = 0;
  InstanceTable table;
  std::vector<glm::mat4> worlds;
  std::vector<uint8_t> world_dirty_flag;
  std::vector<uint32_t> world_dirty;
  std::vector<uint32_t> drawn;
  bool drawn_dirty = false;
  uint32_t drawn_count = 0;
  std::vector<RowRange> ranges;  // reused by sync()
  Bounds bounds;

  BufferTexture table_gpu, world_gpu, drawn_gpu;
  CrowdProgram lit, shadow;

  // Static pose (CROWD_STATIC): its buffers, vertex array and programs.
  bool use_static = false;
  Buffer static_positions, static_normals;
  VertexArray static_vao;
  CrowdProgram static_lit, static_shadow;
  Bounds static_box;

  // GPU culling (cull.comp): the program is built with the crowd, the buffers on first use.
  CullProgram cull;
  uint32_t levels = 1;               // the VAT's levels of detail, full mesh included
  Buffer cull_counters;              // kCullPasses x kCounters: visible counts, cache entries
  Buffer cull_commands;              // DrawElementsIndirectCommand per pass, group, level
  Buffer cull_out[kCullPasses];      // levels segments of `count` entries each
  Texture cull_out_texture[kCullPasses];
  size_t entry_bytes = 4;            // per output entry: the logical index (, cache entry + 1)
  uint32_t cache_capacity = 0;       // pose cache entries per pass (0: none)
  Buffer cache[kCullPasses];         // made on the pass's first culled frame
  Texture cache_texture[kCullPasses];
  bool culled = false;               // the last render culled this crowd
  uint32_t culled_levels = 1;        // levels drawn by the last culled render (1 without LOD)
  bool culled_shadow = false;
};

namespace {
// Texture names by unit, for units 0-15.
using UnitTable = std::array<GLuint, 16>;

// The textures a crowd's vertex stage reads, by unit: the VAT's decode textures, the playback
// table, the world matrices, the drawn list and the rig's influences (0: a unit it does not use).
UnitTable crowd_vertex_units(const Crowd::Impl& m) {
  UnitTable t{};
  m.vat->decode_textures(t);
  t[size_t(DecodeUnits{}.instances)] = m.table_gpu.texture.id();
  t[kUnitWorld] = m.world_gpu.texture.id();
  t[kUnitDrawn] = m.drawn_gpu.texture.id();
  for (int k = 0; k < 4; ++k) t[size_t(kUnitInfluences + k)] = m.vat->influence_textures()[size_t(k)];
  return t;
}

// For a program of the caller's: binds what it uses, unit by unit, leaving the other units alone.
void bind_crowd_textures(const Crowd::Impl& m) {
  const UnitTable t = crowd_vertex_units(m);
  for (size_t unit = 0; unit < t.size(); ++unit) {
    if (t[unit] != 0) glBindTextureUnit(GLuint(unit), t[unit]);
  }
}

}  // namespace

Crowd::Crowd() = default;
Crowd::Crowd(Crowd&&) noexcept = default;
Crowd& Crowd::operator=(Crowd&&) noexcept = default;
Crowd::~Crowd() = default;

Result<Crowd> Crowd::create(const VatGpu& vat, uint32_t instance_count, const CrowdDesc& desc) {
  if (instance_count == 0) return make_error(vat.source(), "a crowd needs at least one instance");
  GLint max_texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
  if (uint64_t(instance_count) * kInstanceTexels > uint64_t(uint32_t(max_texels))) {
    return make_error(vat.source(), std::to_string(instance_count) + " instances: the playback table would need " +
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
    m.cache_capacity = uint32_t(std::min<uint64_t>({instance_count, desc.pose_cache_bytes / per_entry, by_texels}));
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
    return make_error(m.vat->source(), "drawn list of " + std::to_string(logical.size()) +
                                           " instances, more than the crowd's " + std::to_string(m.count));
  }
  for (uint32_t i : logical) {
    if (i >= m.count) return make_error(m.vat->source(), "drawn list names instance " + std::to_string(i) + " of " + std::to_string(m.count));
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
      glNamedBufferSubData(m.world_gpu.buffer.id(), GLintptr(first * kWorldBytes), GLsizeiptr((end - first) * kWorldBytes),
                           &m.worlds[first]);
      bytes += (end - first) * kWorldBytes;
    }
    m.world_dirty.clear();
  }
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
    return make_error(m.vat->source(), "static pose of " + std::to_string(positions.size()) + " positions and " +
                                           std::to_string(normals.size()) + " normals; the VAT has " +
                                           std::to_string(n) + " vertices");
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

// ---- spreading a crowd -----------------------------------------------------------------------

Result<void> spread_crowd(Crowd& crowd, const SpreadOptions& options) {
  const VatGpu& vat = crowd.vat();
  const Vat& meta = vat.metadata();
  if (meta.clips.empty()) return make_error(vat.source(), "the VAT has no clips to play");
  const uint32_t n = crowd.size();
  Random rng{options.seed * 0x2545f4914f6cdd1dull + 0x1234567ull};

  const Bounds& b = vat.bounds();
  const glm::vec3 extent = b.max - b.min;
  const float footprint = std::max(std::max(extent.x, extent.z), 1e-3f);
  const float spacing = options.spacing > 0.0f ? options.spacing : footprint * 1.3f;
  const auto columns = uint32_t(std::ceil(std::sqrt(double(n))));
  const uint32_t rows = (n + columns - 1) / columns;
  const glm::vec3 centre((b.min.x + b.max.x) * 0.5f, 0.0f, (b.min.z + b.max.z) * 0.5f);

  // Clips dealt evenly, then shuffled (Fisher-Yates), so every clip shows and none forms stripes.
  std::vector<uint32_t> clip_of(n);
  for (uint32_t i = 0; i < n; ++i) clip_of[i] = i % uint32_t(meta.clips.size());
  for (uint32_t i = n; i > 1; --i) std::swap(clip_of[i - 1], clip_of[size_t(rng.next() % i)]);

  for (uint32_t i = 0; i < n; ++i) {
    glm::vec3 position;
    float yaw = 0.0f;
    if (options.layout == CrowdLayout::Grid) {
      const uint32_t col = i % columns, row = i / columns;
      position = glm::vec3((float(col) - float(columns - 1) * 0.5f) * spacing, 0.0f,
                           (float(row) - float(rows - 1) * 0.5f) * spacing);
      yaw = rng.uniform(-0.4f, 0.4f);
    } else {
      const float side = spacing * std::sqrt(float(n));
      position = glm::vec3(rng.uniform(-0.5f, 0.5f) * side, 0.0f, rng.uniform(-0.5f, 0.5f) * side);
      yaw = rng.uniform(0.0f, 6.2831853f);
    }
    // Turn about the footprint's centre, so that a character modelled off its origin stays on its cell.
    glm::mat4 world = glm::translate(glm::mat4(1.0f), position);
    world = glm::rotate(world, yaw, glm::vec3(0.0f, 1.0f, 0.0f));
    world = glm::translate(world, -centre);
    crowd.set_world(i, world);

    const uint32_t c = clip_of[i];
    const VatClip& clip = meta.clips[c];
    Instance in;
    in.clip = clip_band(meta, c);
    const float duration = clip.rows > 1 && clip.fps > 0.0f ? float(clip.rows - 1) / clip.fps : 1.0f;
    in.start_time = options.now - rng.uniform() * duration;
    const float base_speed = clip.defaults.speed;
    in.policy.speed = base_speed * rng.uniform(1.0f - options.speed_jitter, 1.0f + options.speed_jitter);
    if (Result<void> ok = set_instance(crowd.table(), i, in, options.now); !ok) {
      return make_error(vat.source(), "instance " + std::to_string(i) + ": " + ok.error().message);
    }
  }
  crowd.recompute_bounds();
  return {};
}

// ---- renderer --------------------------------------------------------------------------------

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
  float shadow_texel_world = 0.0f;
  FrameStats stats;
};

Renderer::Renderer() = default;
Renderer::Renderer(Renderer&&) noexcept = default;
Renderer& Renderer::operator=(Renderer&&) noexcept = default;
Renderer::~Renderer() = default;

Result<Renderer> Renderer::create(const RendererDesc& desc) {
  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  if (desc.shadow_map_size < 1 || desc.shadow_map_size > max_texture) {
    return make_error("renderer", "shadow map size " + std::to_string(desc.shadow_map_size) + " outside 1.." +
                                      std::to_string(max_texture));
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
    return make_error("renderer", "the shadow map framebuffer is incomplete");
  }
  m.empty_vao = create_vertex_array();

  ProgramDesc ground;
  ground.name = "ground";
  ground.shaders = {{ShaderStage::vertex, std::string(detail::shader_text("ground.vert")), ""},
                    {ShaderStage::fragment,
                     std::string(detail::shader_text("lighting.glsl")) + "\n" + std::string(detail::shader_text("ground.frag")),
                     ""}};
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
                  const glm::mat4& light_vp, float texel_world) {
  u.set(p, s.direction, glm::normalize(light.direction));
  u.set(p, s.color, light.color);
  u.set(p, s.sky, light.sky);
  u.set(p, s.bounce, light.bounce);
  u.set(p, s.shadows, int32_t(shadows ? 1 : 0));
  u.set(p, s.light_vp, light_vp);
  u.set(p, s.texel_world, texel_world);
}

// Where the camera is, for the level-of-detail choice of both passes.
struct LodView {
  glm::vec3 eye{0.0f};
  float pixels = 0.0f;  // target height / (2 tan(fovy / 2)) / error budget in pixels
  float texel = 0.0f;   // shadow pass: world size of a shadow-map texel x error budget; 0: camera only
  bool enabled = false;
};

size_t command_offset(const Crowd::Impl& m, int pass, size_t group, uint32_t level) {
  return ((size_t(pass) * m.vat->groups().size() + group) * m.levels + level) * kCommandBytes;
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
        c[3] = 0;  // base vertex
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

// One culling pass of `m` against `view_projection`'s frustum: clears the pass's counters, runs
// cull.comp over the drawn list, and copies each level's count into that level's commands.
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
  const GLuint storage[kStorageBindings] = {m.drawn_gpu.buffer.id(), m.world_gpu.buffer.id(), m.cull_out[pass].id(),
                                            m.cull_counters.id(),    m.cull_commands.id(),
                                            cache_capacity > 0 ? m.cache[pass].id() : 0u};
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

// One draw per material group of `crowd`; `blend_pass` selects the BLEND groups (else the others).
// `cull_pass` >= 0: the indirect draws of that culling pass (one multi-draw over the levels per
// group; the shadow pass, which needs no material, one over every group); else every drawn
// instance at full detail.
void draw_crowd(Crowd::Impl& m, CrowdProgram& prog, const glm::mat4& view_projection, float time_s,
                bool shadow_pass, bool blend_pass, int cull_pass, GLuint shadow_map, FrameStats& stats) {
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
  prog.uniforms.set(p, prog.view_projection, view_projection);
  prog.uniforms.set(p, prog.time, time_s);
  if (shadow_pass && cull_pass >= 0) {
    // Casters need no material: one multi-draw over every group's commands, which are contiguous
    // within a pass (command_offset); a level the pass did not use has no instances.
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, reinterpret_cast<const void*>(command_offset(m, cull_pass, 0, 0)),
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

void Renderer::render(const RenderTarget& target, std::span<Crowd* const> crowds, const Camera& camera, float time_s,
                      const RenderOptions& options) {
  Impl& m = *impl_;
  m.stats = FrameStats{};
  Bounds scene{glm::vec3(1.0f), glm::vec3(-1.0f)};
  float tile = 0.0f;  // checker size: half the tallest character
  for (Crowd* c : crowds) {
    m.stats.uploaded_bytes += c->sync();
    scene = unite(scene, c->world_bounds());
    tile = std::max(tile, (c->vat().bounds().max.y - c->vat().bounds().min.y) * 0.5f);
  }
  if (empty_bounds(scene)) scene = Bounds{glm::vec3(-1.0f), glm::vec3(1.0f)};
  if (!(tile > 0.0f)) tile = 1.0f;
  const Bounds caster = empty_bounds(options.shadow_bounds) ? scene : options.shadow_bounds;

  // The light's orthographic box around the casters.
  const glm::vec3 l = glm::normalize(options.light.direction);
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
  m.light_vp = glm::ortho(lo.x - margin, hi.x + margin, lo.y - margin, hi.y + margin, -hi.z - margin, -lo.z + margin) *
               light_view;
  m.shadow_texel_world = std::max(hi.x - lo.x, hi.y - lo.y) / float(m.shadow_size);

  const float aspect = float(target.width()) / float(target.height());
  const glm::mat4 view_projection = camera.projection(aspect) * camera.view();

  // GPU culling: per crowd, the camera's pass and (with shadows) the light's, before any drawing.
  if (options.gpu_culling) {
    LodView lod;
    lod.enabled = options.lod;
    lod.eye = camera.eye;
    lod.pixels = float(target.height()) / (2.0f * std::tan(glm::radians(camera.fov_y_deg) * 0.5f)) /
                 std::max(options.lod_error_px, 1e-6f);
    for (Crowd* c : crowds) {
      Crowd::Impl& cm = *c->impl_;
      cm.culled_shadow = false;
      cull_crowd(cm, kCullCamera, view_projection, lod, time_s);
      if (options.shadows) {
        // Casters a shadow-map texel already blurs take the level whose error fits in it.
        LodView light = lod;
        light.texel = m.shadow_texel_world * std::max(options.lod_error_px, 1e-6f);
        cull_crowd(cm, kCullShadow, m.light_vp, light, time_s);
      }
    }
  } else {
    for (Crowd* c : crowds) c->impl_->culled = false;
  }
  const int camera_pass = options.gpu_culling ? kCullCamera : -1;
  const int shadow_pass = options.gpu_culling ? kCullShadow : -1;

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);

  // Shadow pass: the casters decode the VAT exactly as the lit pass does.
  if (options.shadows) {
    glBindFramebuffer(GL_FRAMEBUFFER, m.shadow_fbo.id());
    glViewport(0, 0, m.shadow_size, m.shadow_size);
    const float one = 1.0f;
    glClearNamedFramebufferfv(m.shadow_fbo.id(), GL_DEPTH, 0, &one);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
    for (Crowd* c : crowds) {
      Crowd::Impl& cm = *c->impl_;
      draw_crowd(cm, cm.use_static ? cm.static_shadow : cm.shadow, m.light_vp, time_s, true, false, shadow_pass, 0,
                 m.stats);
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
  }

  // Lit pass.
  const glm::vec3 bg = options.background;
  target.clear(bg.x, bg.y, bg.z, 1.0f);
  glBindTextureUnit(kUnitShadow, m.shadow_depth.id());

  if (options.ground) {
    const GLuint g = m.ground.id();
    UniformCache& u = m.ground_uniforms;
    set_lighting(m.ground_lighting, u, g, options.light, options.shadows, m.light_vp, m.shadow_texel_world);
    const glm::vec3 extent = scene.max - scene.min;
    const float half = std::max(extent.x, extent.z) * 0.5f + std::max(extent.y, tile) * 3.0f;
    u.set(g, m.ground_params,
          glm::vec4((scene.min.x + scene.max.x) * 0.5f, scene.min.y, (scene.min.z + scene.max.z) * 0.5f, half));
    u.set(g, m.ground_vp, view_projection);
    u.set(g, m.ground_tile, tile);
    glUseProgram(g);
    glBindVertexArray(m.empty_vao.id());
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    ++m.stats.draw_calls;
    m.stats.triangles += 2;
  }
  // Opaque and masked groups, then blended ones over them; a pass a crowd has no group for costs
  // no call.
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
        glDepthMask(GL_FALSE);
        blend_state = true;
      }
      CrowdProgram& prog = cm.use_static ? cm.static_lit : cm.lit;
      set_lighting(prog.lighting, prog.uniforms, prog.program.id(), options.light, options.shadows, m.light_vp,
                   m.shadow_texel_world);
      draw_crowd(cm, prog, view_projection, time_s, false, blend_pass != 0, camera_pass, m.shadow_depth.id(), m.stats);
    }
  }
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
  glDisable(GL_CULL_FACE);
  // Nothing of ours stays bound: a program or vertex array deleted while still bound would live
  // on until unbound, and a caller that saved and restores "the current program" would then
  // restore a dead name.
  glUseProgram(0);
  glBindVertexArray(0);
}

const FrameStats& Renderer::stats() const { return impl_->stats; }

Result<CullingStats> Renderer::read_culling_stats(const Crowd& crowd) const {
  const Crowd::Impl& m = *crowd.impl_;
  if (!m.culled) return make_error(m.vat->source(), "the crowd was not drawn with GPU culling in the last frame");
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
uint32_t Renderer::shadow_map() const { return impl_->shadow_depth.id(); }
int Renderer::shadow_map_size() const { return impl_->shadow_size; }
const glm::mat4& Renderer::light_view_projection() const { return impl_->light_vp; }
float Renderer::shadow_texel_world() const { return impl_->shadow_texel_world; }

}  // namespace vatkit::gl

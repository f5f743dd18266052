// Shared by the crowd's files (render/): the texture units and culling limits, the crowd's
// programs, Crowd::Impl, and what the renderer and the culling pass call across files.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec2.hpp>

#include "vatkit/gl/crowd.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/program.h"
#include "vatkit/playback.h"

namespace vatkit::gl {

// Texture units of the renderer, after the decode chunk's (DecodeUnits: 0-5).
constexpr int kUnitWorld = 6;
constexpr int kUnitDrawn = 7;
constexpr int kUnitBaseColor = 8;
constexpr int kUnitShadow = 9;
constexpr int kUnitRowBounds = 10;   // cull.comp's u_cull_row_bounds
constexpr int kUnitTint = 10;        // crowd.vert's u_crowd_tint (the draw programs; row bounds are the culling pass's)
constexpr int kUnitCache = 11;       // crowd.vert's u_crowd_pose_cache
constexpr int kUnitInfluences = 12;  // crowd.vert's u_crowd_slots0, weights0, slots1, weights1 (12-15)
constexpr int kUnitPreviousWorld = 16;  // CROWD_MOTION: u_crowd_previous_world

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
constexpr GLsizei kStorageBindings = 7;                 // the culling passes' storage buffers, bindings 0-6
constexpr GLuint kMotionBinding = 6;                    // CROWD_PLACEMENT's motion buffer (cull.comp, crowd.vert)

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

inline bool empty_bounds(const Bounds& b) { return b.min.x > b.max.x || b.min.y > b.max.y || b.min.z > b.max.z; }

inline Bounds unite(const Bounds& a, const Bounds& b) {
  if (empty_bounds(a)) return b;
  if (empty_bounds(b)) return a;
  return Bounds{glm::min(a.min, b.min), glm::max(a.max, b.max)};
}

struct LightingSlots {
  GLint direction = -1, color = -1, sky = -1, bounce = -1, shadows = -1, light_vp = -1, texel_world = -1;
  GLint shading = -1, view = -1;  // RenderOptions::shading and the camera's view matrix

  void find(GLuint p);  // and points u_shadow_map at kUnitShadow
};

struct CrowdProgram {
  Program program;
  GLint view_projection = -1, time = -1;
  GLint previous_time = -1, previous_view_projection = -1;  // CROWD_MOTION
  GLint prop_slot = -1, prop_joint = -1, prop_offset = -1;  // props (prop.vert)
  MaterialUniforms material;
  LightingSlots lighting;
  UniformCache uniforms;
};

// The crowd's programs (crowd_programs.cpp): the samplers of the crowd's units, the pose cache,
// the lit or shadow program (static_pose: CROWD_STATIC), and the culling passes.
void set_crowd_samplers(GLuint p);
// What the culling pass caches per visible instance (CROWD_POSE_CACHE in cull.comp): a rig's
// slot transforms (3 texels per slot), a delta's resolved pose (2 texels).
bool uses_cache(const VatGpu& vat);
size_t cache_texels(const VatGpu& vat);
// What else a crowd program is built as: with motion vectors (CROWD_MOTION), or a prop's
// (prop.vert with VAT_SOCKETS instead of crowd.vert).
struct ProgramVariant {
  bool motion = false;
  bool prop = false;
};
// `desc`: the transforms (CROWD_PLACEMENT) and, for the lit program, the shading hook.
Result<CrowdProgram> build_crowd_program(const VatGpu& vat, bool shadow, bool static_pose, const CrowdDesc& desc,
                                         const ProgramVariant& variant = {});
Result<CullProgram> build_cull_program(const VatGpu& vat, const CrowdDesc& desc);
// The decode chunk and crowd_world.glsl, then the embedded shader `shader` (gl/shaders/).
std::string decode_chunk_then(std::string_view shader);

// A buffer texture over an immutable, dynamic buffer.
struct BufferTexture {
  Buffer buffer;
  Texture texture;
};

// A prop attached to a crowd (props.cpp): its mesh and, per culling pass and level, an indirect
// command whose instance count is copied from the crowd's culling counters.
struct GpuProp {
  PropDesc desc;
  glm::mat4 joint{1.0f};  // inverse(inverse_bind) of the slot, as decode_joint_world
  Buffer positions, normals, indices, commands;
  VertexArray vertex_array;
  uint32_t index_count = 0;
};

// The previous render, for motion vectors.
struct MotionFrame {
  bool on = false;
  float previous_time = 0.0f;
  glm::mat4 previous_view_projection{1.0f};
};

struct Crowd::Impl {
  const VatGpu* vat = nullptr;
  uint32_t count = 0;  // capacity: what every per-instance buffer holds
  uint32_t live = 0;   // live instances, 0 .. live - 1
  CrowdDesc desc;      // shade_glsl and transforms, for the programs built later (static pose)
  InstanceTable table;
  // Matrix crowds: worlds; PositionHeading: placements (x, y, z, heading). world_stride is the
  // bytes per instance of world_gpu.
  std::vector<glm::mat4> worlds;
  std::vector<glm::vec4> placements;
  size_t world_stride = sizeof(glm::mat4);
  std::vector<uint8_t> world_dirty_flag;
  std::vector<uint32_t> world_dirty;
  uint32_t bulk_first = 0, bulk_end = 0;  // a dirty range of worlds (set_placements)
  // PositionHeading: per instance (velocity, turn rate), (since, 0, 0, 0): set_motion; and its
  // dirty range. motion_gpu is made for such crowds only.
  std::vector<glm::vec4> motions;
  uint32_t motion_first = 0, motion_end = 0;
  Buffer motion_gpu;
  std::vector<uint32_t> tints;            // RGBA8 per instance
  uint32_t tint_first = 0, tint_end = 0;  // their dirty range
  std::vector<uint32_t> drawn;
  bool drawn_all = true;  // the drawn list is "every live instance"
  bool drawn_dirty = false;
  uint32_t drawn_count = 0;
  std::vector<RowRange> ranges;  // reused by sync()
  Bounds bounds;
  float footprint_radius = 0.0f;  // largest distance of the VAT's box from the Y axis (placement bounds)

  BufferTexture table_gpu, world_gpu, drawn_gpu, tint_gpu;
  CrowdProgram lit, shadow;

  // Static pose (CROWD_STATIC): its buffers, vertex array and programs.
  bool use_static = false;
  Buffer static_positions, static_normals;
  VertexArray static_vao;
  CrowdProgram static_lit, static_shadow;
  Bounds static_box;

  // GPU culling (cull.comp): the program is built with the crowd, the buffers on first use.
  CullProgram cull;
  uint32_t levels = 1;           // the VAT's levels of detail, full mesh included
  Buffer cull_counters;          // kCullPasses x kCounters: visible counts, cache entries
  Buffer cull_commands;          // DrawElementsIndirectCommand per pass, group, level
  Buffer cull_out[kCullPasses];  // levels segments of `count` entries each
  Texture cull_out_texture[kCullPasses];
  size_t entry_bytes = 4;       // per output entry: the logical index (, cache entry + 1)
  uint32_t cache_capacity = 0;  // pose cache entries per pass (0: none)
  Buffer cache[kCullPasses];    // made on the pass's first culled frame
  Texture cache_texture[kCullPasses];
  bool culled = false;         // the last render culled this crowd
  uint32_t culled_levels = 1;  // levels drawn by the last culled render (1 without LOD)
  bool culled_shadow = false;

  // Props (props.cpp): programs built on the first attach.
  std::vector<GpuProp> props;
  CrowdProgram prop_lit, prop_shadow, prop_lit_motion;

  // Motion vectors: the programs and the previous world matrices, made on the first render into
  // a target with a motion attachment. sync() keeps previous_world_gpu one sync behind world_gpu:
  // before a range of worlds is uploaded it is copied there, and the ranges uploaded by the
  // previous sync are copied again (their previous is now their current).
  CrowdProgram lit_motion, static_lit_motion;
  BufferTexture previous_world_gpu;
  std::vector<glm::uvec2> moved, moved_before;  // [first, end) ranges of world uploads
};

// Props: what the renderer calls (props.cpp). draw_props draws every prop of `m` with `prog`
// (the lit, lit-motion or shadow program; its lighting and motion uniforms set by the caller),
// instanced over the drawn list or, with cull_pass >= 0, that pass's culled list.
void draw_props(Crowd::Impl& m, CrowdProgram& prog, const glm::mat4& view_projection, float time_s, bool shadow_pass,
                int cull_pass, GLuint shadow_map, RenderStats& stats);
// Motion vectors (motion.cpp): builds the crowd's motion programs and previous-world buffer on
// first use; sets a program's previous time and view-projection.
Result<void> ensure_motion(Crowd::Impl& m);
void set_motion_uniforms(CrowdProgram& prog, const MotionFrame& motion);
// sync()'s part for the previous world matrices: before uploading worlds [first, end).
void keep_previous_worlds(Crowd::Impl& m, uint32_t first, uint32_t end);
void finish_previous_worlds(Crowd::Impl& m);

// Texture names by unit, for units 0-15.
using UnitTable = std::array<GLuint, 16>;

// The textures a crowd's vertex stage reads, by unit: the VAT's decode textures, the playback
// table, the world matrices, the drawn list and the rig's influences (0: a unit it does not use).
UnitTable crowd_vertex_units(const Crowd::Impl& m);

// Where the camera is, for the level-of-detail choice of both passes.
struct LodView {
  glm::vec3 eye{0.0f};
  float pixels = 0.0f;  // target height / (2 tan(fovy / 2)) / error budget in pixels
  float texel = 0.0f;   // shadow pass: world size of a shadow-map texel x error budget; 0: camera only
  bool enabled = false;
};

// Culling (culling.cpp): the byte offset of a pass's indirect command for a group and level, and
// one culling pass of `m` against `view_projection`'s frustum: clears the pass's counters, runs
// cull.comp over the drawn list, and copies each level's count into that level's commands.
size_t command_offset(const Crowd::Impl& m, int pass, size_t group, uint32_t level);
void cull_crowd(Crowd::Impl& m, int pass, const glm::mat4& view_projection, const LodView& lod, float time_s);

}  // namespace vatkit::gl

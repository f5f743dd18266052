// vatkit/gl/crowd.h: crowds of VAT-animated instances, lit, shadowed, drawn with OpenGL.
//
// A Crowd is one uploaded VAT (vat_gpu.h) drawn N times:
//  - per-instance world matrices (set_world; or position + heading, set_placement, 16 bytes, which
//    the shaders may also move by the clock: set_motion), tints
//    (set_tint), and the playback table (the runtime's InstanceTable,
//    instance_table.h: set_instance(crowd.table(), i, instance, now)), both keyed by the LOGICAL
//    instance index and uploaded as buffer textures;
//  - the drawn list: which logical instances the draw covers, in which order (set_drawn). The
//    vertex shader maps its draw position to a logical index through it and reads everything else
//    by the logical index, so culling, sorting or compacting the list (GPU culling)
//    never mixes up instances;
//  - one shared clock: the time passed to Renderer::render, in seconds on the table's clock.
// Nothing is uploaded or allocated per render when nothing changed: sync() (called by render)
// uploads only the dirty rows of the table (take_dirty) and the matrices set since the last
// render, as ranges. A crowd holds up to capacity() instances, size() of them live: spawn() and
// despawn() (a swap-remove) change the live count without re-creating anything.
// Several crowds (several VATs) are drawn by one Renderer::render: a mixed crowd.
//
// A Renderer draws crowds with simple lighting: base colour (factor x sRGB texture x vertex
// colour), one directional light with a shadow map whose casters decode the VAT too, hemispheric
// ambient, a ground plane that receives the shadows, sRGB output. One draw per material per pass
// (shadow pass, lit pass), each an instanced draw of the whole drawn list.
//
// With GPU culling (RenderOptions::gpu_culling, the default) a compute pass per crowd and pass
// keeps the instances in view and picks their level of detail; for a rig VAT it also evaluates
// each visible instance's slot transforms once (the slot palette; a delta's resolved playback row: the
// instance cache, CrowdDesc), so that vertices
// skin from them instead of decoding the VAT per vertex.
//
// Cost: render() issues a fixed number of GL calls per crowd and material, allocates nothing, and
// does not wait for the GPU (read_culling_stats and read_visible do). Threads: every call needs the
// context current on the calling thread; crowds and renderers are not synchronized.
//
// What it does NOT do: occlusion culling, transparency sorting (BLEND materials are drawn
// after the opaque ones, unsorted), normal maps, PBR terms other than base colour, several
// lights, cascaded shadows.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>

#include "vatkit/gl/objects.h"
#include "vatkit/gl/props.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/instance_table.h"
#include "vatkit/result.h"

namespace vatkit::gl {

// ---- camera and light ------------------------------------------------------------------------

struct Camera {
  glm::vec3 eye{0.0f, 1.5f, 5.0f};
  glm::vec3 target{0.0f, 1.0f, 0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  float fov_y_deg = 35.0f;
  float near_plane = 0.1f;
  float far_plane = 100.0f;

  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;  // OpenGL clip space (z in [-w, w])
};

// A camera looking at the centre of `bounds` from azimuth `azimuth_deg` (0: from +Z, the glTF
// front; positive turns toward +X) and `elevation_deg` above the horizon, from the nearest
// distance at which all eight corners are inside the field of view of an `aspect` viewport (plus
// 4%). The far plane leaves room for a ground plane around the box.
Camera camera_for_bounds(const Bounds& bounds, float aspect, float azimuth_deg = 30.0f, float elevation_deg = 25.0f,
                         float fov_y_deg = 35.0f);

// The object-space box moved by `world`: the box of its eight moved corners.
Bounds transform_bounds(const Bounds& bounds, const glm::mat4& world);

struct Light {
  glm::vec3 direction{-0.45f, 0.8f, 0.4f};  // toward the light, world space (normalized on use)
  glm::vec3 color{1.0f, 0.95f, 0.88f};      // linear RGB, intensity included
  glm::vec3 sky{0.32f, 0.36f, 0.44f};       // ambient from above (hemispheric), linear
  glm::vec3 bounce{0.16f, 0.14f, 0.12f};    // ambient from below, linear
};

// ---- crowd -----------------------------------------------------------------------------------

// How a crowd's instances are placed in the world.
enum class CrowdTransforms : uint8_t {
  Matrix = 0,  // a full world matrix per instance (set_world): 64 bytes uploaded per change
  // Position and heading per instance (set_placement): W = translate(position) x rotate_y(heading),
  // 16 bytes uploaded per change; the shaders build the matrix. For agents that walk and turn on
  // the ground (no scale, no tilt): a game moving 100k agents every frame uploads 1.6 MB, not 6.4.
  PositionHeading = 1,
};

struct CrowdDesc {
  // Instances the crowd can hold: spawn() adds instances up to it without re-creating the crowd.
  // 0: the instance count given to create (no room to grow).
  uint32_t capacity = 0;
  CrowdTransforms transforms = CrowdTransforms::Matrix;
  // The caller's shading hook (docs/rendering.md): GLSL source that defines
  //   vec4 vatkit_shade(VatkitShadeInput s)
  // compiled into this crowd's lit fragment program after vatkit's own (lighting.glsl's shade(),
  // shadow_visibility() and linear_to_srgb() are in scope); its result is written to the target
  // as it is. Empty: vatkit's lighting. GLSL errors fail create().
  std::string shade_glsl;
  // GPU culling: memory for the instance cache, per culling pass (camera, shadow), allocated on the
  // pass's first culled render, for at most as many instances as the crowd has. The culling pass
  // writes there, once per render, what every vertex of a visible instance would otherwise work
  // out again:
  //  - rig: the slot palette, each slot's transform placed in the world (48 bytes per slot: the
  //    sample character's 22 slots take 1,056 bytes an instance, a million 1,056 MB, inside the
  //    default); the vertex shader skins from it with up to 12 buffer fetches and a weighted
  //    sum, instead of resolving the playback row, decoding each influence's slot from two VAT
  //    rows (16 texel fetches, 4 quaternion-to-matrix conversions) and placing the result;
  //  - delta: the resolved playback row (32 bytes an instance): the vertex shader reads 2 texels instead
  //    of resolving the playback row from 6.
  // Instances beyond the capacity (and every instance of direct draws) work it out per vertex,
  // with the same result up to float rounding. 0 turns it off. The capacity is also held to
  // GL_MAX_TEXTURE_BUFFER_SIZE texels.
  size_t instance_cache_bytes = size_t(1) << 30;
};

class Crowd {
 public:
  // `instance_count` live instances (>= 1) and room for desc.capacity (when larger), every world
  // matrix the identity, every tint white, every table row unwritten (it shows frame row 0), the
  // drawn list every live instance in logical order. Builds the VAT's programs (decode chunk +
  // crowd shaders). `vat` is referenced and must outlive the crowd.
  // Errors: a count of 0 or a capacity above the buffer texture limit, GLSL errors (quoted).
  static Result<Crowd> create(const VatGpu& vat, uint32_t instance_count, const CrowdDesc& desc = {});

  Crowd();
  Crowd(Crowd&&) noexcept;
  Crowd& operator=(Crowd&&) noexcept;
  ~Crowd();

  uint32_t size() const;      // live instances: logical indices 0 .. size() - 1
  uint32_t capacity() const;  // instances the buffers hold (CrowdDesc::capacity)
  const VatGpu& vat() const;

  // Spawn and despawn without re-creating the crowd. spawn() makes instance size() live (the
  // identity matrix, a white tint, its table row as the last instance there left it: write it
  // with set_instance) and returns its index; errors when the crowd is full. despawn(i) is a
  // swap-remove (i < size(); a crowd may shrink to 0 live instances and grow again): the last
  // live instance moves into index i (its world, tint and playback row,
  // uploaded by the next sync()) and the crowd shrinks by one; it returns the index that moved
  // (the old last, size() after the call), or i itself when i was the last. Every other
  // instance keeps its index and its data untouched. With the default drawn list ("all") the
  // draws follow the live count; a list set with set_drawn is the caller's to keep in step.
  Result<uint32_t> spawn();
  uint32_t despawn(uint32_t index);

  // A per-instance colour multiplied into the material's base colour (linear RGBA, each 0..1,
  // stored as 8 bits): palette and team colours in one crowd. White (the default) changes
  // nothing. Uploaded by the next sync(), dirty range only.
  void set_tint(uint32_t index, const glm::vec4& rgba);
  glm::vec4 tint(uint32_t index) const;

  // The playback table (frame_rows = the VAT's): write it with set_instance / write_playback /
  // rebase_clock; the next sync() uploads the rows it marked dirty.
  InstanceTable& table();
  const InstanceTable& table() const;

  // CrowdTransforms::Matrix: the instance's world matrix. PositionHeading: the matrix's
  // translation and its turn about +Y (atan2 of the third column's x and z) are kept, the rest
  // (scale, tilt) dropped. Only changed instances are uploaded (sync()).
  void set_world(uint32_t index, const glm::mat4& world);
  // The instance's world matrix (PositionHeading: built from its placement).
  glm::mat4 world(uint32_t index) const;
  CrowdTransforms transforms() const;

  // PositionHeading crowds: W = translate(position) x rotate_y(heading radians). set_placements
  // writes `placements.size()` consecutive instances from `first` ((x, y, z, heading) each): a
  // copy and one dirty range, the cheapest way to move every agent each frame. In a Matrix crowd
  // they set the same matrices through set_world. Indices must be below capacity().
  void set_placement(uint32_t index, const glm::vec3& position, float heading);
  void set_placements(uint32_t first, std::span<const glm::vec4> placements);

  // PositionHeading crowds: motion integrated on the GPU (dead reckoning). From clock time
  // `since` (Renderer::render's time_s clock) the shaders place instance `index` at
  //   placement + (velocity, turn_rate) x (time_s - since)
  // (position moving at `velocity` world units per second, heading turning at `turn_rate`
  // radians per second): an agent that keeps its course costs no upload at all per frame, and 32
  // bytes when its motion changes (the dirty range of motions, uploaded by sync()). Zero motion
  // (the default, spawn()'s) leaves the placement as set. The crowd's world_bounds() (the light's
  // box, the ground) do not follow the motion: set placements now and then, or fix
  // RenderOptions::shadow_bounds. Ignored by Matrix crowds.
  void set_motion(uint32_t index, const glm::vec3& velocity, float turn_rate, float since);
  // (x, y, z, heading) where the shaders place the instance at `time_s` (Matrix crowds: the
  // matrix's translation and turn about +Y).
  glm::vec4 placement_at(uint32_t index, float time_s) const;

  // Draw these logical instances (each < size(), repeats allowed), in this order; an empty span
  // restores "all, in logical order". Uploaded by the next sync().
  Result<void> set_drawn(std::span<const uint32_t> logical);
  uint32_t drawn_count() const;

  // A box holding every instance's VAT bounds (every clip) moved by its world matrix. It grows
  // with set_world and is recomputed exactly by recompute_bounds().
  Bounds world_bounds() const;
  void recompute_bounds();

  // Uploads the dirty table rows, world matrices (or placements), tints and drawn list, each as
  // ranges of changed instances (nearby changes merged); returns the bytes uploaded. Allocates
  // nothing once the internal range list has grown to its working size.
  size_t sync();

  // Draws a fixed object-space mesh (one position and one normal per VAT vertex, merged order)
  // instead of decoding the VAT: the reference image of the image parity tests, and the static
  // floor of benchmarks. Instances keep their world matrices. clear_static_pose() returns to
  // decoding. Errors: spans of the wrong size, GLSL errors.
  Result<void> set_static_pose(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals);
  void clear_static_pose();
  bool static_pose() const;

  // Running the crowd's vertex stage in a program of one's own, e.g. captured with VertexCapture
  // (capture.h) for GPU-CPU parity: compile crowd_vertex_glsl() with vat().defines() and
  // ProgramDesc::draw_parameters; prepare_vertex_program points its samplers at the crowd's
  // texture units and sets the clock and the view-projection; bind_vertex_textures syncs the
  // crowd and binds its textures (and the VAT's) to those units. Draw position s then shows logical
  // instance drawn[s] (set_drawn).
  void prepare_vertex_program(uint32_t program, float time_s, const glm::mat4& view_projection) const;
  void bind_vertex_textures();

  // Props (props.h): a rigid mesh held by a joint of every instance, posed on the GPU from the
  // instance's playback (the same resolve and slot decode as the character), drawn by the
  // renderer after the crowd in the lit and shadow passes, for the instances the crowd's culling
  // kept (every drawn instance without culling). Returns the prop's index. Builds its programs and
  // uploads the mesh; nothing per frame on the CPU. Errors: a slot out of range, an empty or
  // inconsistent mesh (an index past the vertices, normals not one per position), GLSL errors.
  Result<uint32_t> attach(const PropMesh& mesh, const PropDesc& desc);
  void detach_props();
  uint32_t prop_count() const;
  // For a program of one's own over prop_vertex_glsl() (the capture of the parity tests): as
  // prepare_vertex_program, plus prop `prop`'s slot, joint and offset uniforms.
  void prepare_prop_program(uint32_t program, uint32_t prop, float time_s, const glm::mat4& view_projection) const;
  // The lit program (the one CrowdDesc::shade_glsl is compiled into): for glProgramUniform* on
  // uniforms the caller's hook declares.
  uint32_t lit_program() const;

  struct Impl;

 private:
  friend class Renderer;
  std::unique_ptr<Impl> impl_;
};

// The vertex shader crowds render with: the decode chunk (decode_glsl.h) followed by crowd.vert.
// Outputs: v_world_position, v_world_normal (world space), v_texcoord0, v_color0, gl_Position.
std::string crowd_vertex_glsl();

enum class CrowdLayout : uint8_t { Grid, Random };

struct SpreadOptions {
  CrowdLayout layout = CrowdLayout::Grid;
  uint64_t seed = 1;
  float spacing = 0.0f;        // metres between neighbours; 0: 1.3 x the VAT's footprint
  float now = 0.0f;            // clock time of the writes (start times lie before it)
  float speed_jitter = 0.15f;  // speeds uniform in [1 - j, 1 + j] times the clip's
};

// One instance of a spread crowd: where it stands and what it plays.
struct SpreadInstance {
  glm::mat4 world{1.0f};
  Instance instance;
};

// A crowd of `count` instances of `vat` (grid: rows of ceil(sqrt(N)) facing +Z, a little yaw each;
// random: uniform over a square of the same density, any yaw), each given a clip of the VAT,
// desynchronised: clips dealt evenly over the instances in a shuffled order, start times up to one
// clip length before `now`, jittered speeds. Deterministic for a seed on every platform (another
// renderer given the same list shows the same crowd). Errors: a VAT without clips.
Result<std::vector<SpreadInstance>> spread_instances(const Vat& vat, uint32_t count, const SpreadOptions& options = {});

// spread_instances for every instance of `crowd`, written into it (set_world, then set_instance
// at `now`); recomputes the crowd's bounds. Errors: those of spread_instances, what set_instance
// refuses.
Result<void> spread_crowd(Crowd& crowd, const SpreadOptions& options = {});

// The k-th colour (k mod 8) of a fixed palette of light linear tints (white first), for
// set_tint: `vatkit render --tint palette` gives instance i palette_tint(i).
glm::vec4 palette_tint(uint32_t k);

// ---- renderer --------------------------------------------------------------------------------

struct RendererDesc {
  int shadow_map_size = 2048;  // texels per side of the depth texture
};

// What the lit pass writes per pixel.
enum class Shading : uint8_t {
  Lit = 0,  // the material under the light, the sky and the shadows, sRGB-encoded
  // The view-space unit normal n as n * 0.5 + 0.5, unlit and not sRGB-encoded, over black, with
  // no ground and no shadow pass: what three.js's MeshNormalMaterial writes for an opaque mesh,
  // a picture of the geometry alone that another renderer can match pixel for pixel.
  Normals = 1,
};

struct RenderOptions {
  Light light;
  Shading shading = Shading::Lit;  // Normals implies no ground, no shadows and a black background
  bool shadows = true;
  bool ground = true;  // a plane under the crowds, receiving shadows
  // Clear colour (to `background`) and depth before drawing. false: draw over what the target
  // (the caller's framebuffer) holds, depth-tested against its depth.
  bool clear = true;
  glm::vec3 background{0.62f, 0.70f, 0.80f};  // sRGB clear colour
  // The box the shadow map covers (world space); empty (min > max) means the crowds' bounds. Fix
  // it to compare shadow maps of different poses.
  Bounds shadow_bounds{glm::vec3(1.0f), glm::vec3(-1.0f)};

  // GPU-driven drawing: per crowd and pass, a compute pass tests every drawn instance's animated
  // bounds (the bounds of the clips it shows now, from the bake, moved by its world matrix)
  // against the camera's frustum (the shadow pass: the light's box) and compacts the visible
  // logical indices per level of detail; the draws are indirect, one multi-draw per material
  // per pass. Nothing per instance on the CPU. false: every drawn instance, full mesh, direct
  // instanced draws (the reference the culling tests compare with).
  bool gpu_culling = true;
  // With gpu_culling: each instance draws the coarsest level whose error_in_motion projects to
  // at most lod_error_px pixels (lod.h's select_lod, evaluated on the GPU from the camera); the
  // shadow pass uses the level the camera chose or, if coarser, the one whose error stays within
  // lod_error_px texels of the shadow map (a crowd seen from far above costs the shadow pass the
  // levels its texels can show). The full mesh and up to 15 coarser levels are
  // used (vatkit bake allows 16; the finest 15 are drawn). false: every visible instance at full
  // detail.
  bool lod = true;
  float lod_error_px = 1.0f;

  // Motion vectors, written where the target has a motion attachment (RenderTargetDesc::
  // motion_vectors): per pixel of a crowd or prop, (ndc_now - ndc_previous) * 0.5, the surface
  // point's normalized device xy now minus the same point's a frame ago, halved: the UV-space
  // offset (y up, GL's convention) that TAA and upscalers (FSR 2, DLSS) take, as
  // uv_previous = uv_now - motion. The previous position decodes the VAT at previous_time_s,
  // placed by the instance's world matrix of the previous render (the crowd keeps it: set_world
  // between two renders moves an instance) and projected by the previous render's camera (the
  // renderer keeps it; pass previous_view_projection to override). The ground and the
  // background write (0, 0). A first render (nothing previous) uses the current time and camera.
  // NaN previous_time_s: the time of the previous render.
  float previous_time_s = std::numeric_limits<float>::quiet_NaN();
  bool override_previous_view_projection = false;
  glm::mat4 previous_view_projection{1.0f};
};

struct RenderStats {
  uint32_t draw_calls = 0;  // draw commands issued by the CPU (a multi-draw counts once)
  // Direct draws: triangles submitted, both passes. GPU culling: 0 (the GPU decides; read the
  // counts with Renderer::read_culling_stats, which waits for the GPU).
  uint64_t triangles = 0;
  uint64_t uploaded_bytes = 0;  // by the crowds' sync() in this render
};

// What the camera pass of the last GPU-culled render drew, per crowd (read back from the GPU).
struct CullingStats {
  uint64_t instances = 0;                  // drawn instances tested
  uint64_t visible = 0;                    // passed the camera frustum
  std::vector<uint64_t> per_level;         // visible instances per level (0 = full mesh)
  uint64_t triangles = 0;                  // camera pass, all materials and levels
  uint64_t shadow_visible = 0;             // passed the light's box
  std::vector<uint64_t> shadow_per_level;  // of those, per level (empty without shadows)
  uint64_t shadow_triangles = 0;
  // Visible instances of the camera pass whose entry the culling pass cached (CrowdDesc); the
  // others (visible - cached) worked it out per vertex.
  uint64_t cached = 0;
  uint64_t cache_capacity = 0;  // entries per pass; 0 for static poses, or off
};

// Drawing inside a caller's own frame: its framebuffer (any complete FBO, or 0 for the default
// one), the viewport inside it, and its view and projection (OpenGL clip space). The level of
// detail reads the projection as a perspective one: pixels per unit at distance 1 are
// height * projection[1][1] / 2, the eye is the view's inverse translation.
struct FrameView {
  uint32_t framebuffer = 0;
  int x = 0, y = 0, width = 1, height = 1;  // viewport, pixels
  glm::mat4 view{1.0f};
  glm::mat4 projection{1.0f};
};

class Renderer {
 public:
  // Needs a current context. Errors: a shadow map size above the texture limit, GLSL errors.
  static Result<Renderer> create(const RendererDesc& desc = {});

  Renderer();
  Renderer(Renderer&&) noexcept;
  Renderer& operator=(Renderer&&) noexcept;
  ~Renderer();

  // Syncs each crowd, renders the shadow pass, then clears `target` and draws the ground and the
  // crowds (and their props) at clock time `time_s` from `camera`, with motion vectors where the
  // target has them. Allocates nothing (except on a crowd's first render into a target with
  // motion vectors: its motion programs and previous-world buffer). Leaves `target` bound, no
  // program and no vertex array bound, blending, culling and polygon offset off, depth test on;
  // the textures of units 0-15 (and 16 when the target has motion vectors) are the renderer's.
  void render(const RenderTarget& target, std::span<Crowd* const> crowds, const Camera& camera, float time_s,
              const RenderOptions& options = {});
  void render(const RenderTarget& target, Crowd& crowd, const Camera& camera, float time_s,
              const RenderOptions& options = {});

  // Embedding (docs/rendering.md, "Inside a game's renderer"). render(view, ...) is cull() then
  // draw(), clearing the viewport first only if options.clear. cull() syncs the crowds, runs the
  // culling and level-of-detail passes (compute) and the shadow pass; it binds its shadow
  // framebuffer on the way and restores the caller's draw framebuffer and viewport. draw() binds
  // view.framebuffer and the viewport and draws the ground (options.ground) and the crowds of the
  // last cull(), depth-tested, without clearing: call it inside the caller's pass. Both leave the
  // state render() documents. The crowds and options of draw() must be those of the cull() before.
  void render(const FrameView& view, std::span<Crowd* const> crowds, float time_s, const RenderOptions& options = {});
  void cull(std::span<Crowd* const> crowds, const FrameView& view, float time_s, const RenderOptions& options = {});
  void draw(std::span<Crowd* const> crowds, const FrameView& view, float time_s, const RenderOptions& options = {});

  const RenderStats& stats() const;
  // The counts of the last render's GPU culling for `crowd` (which must have been rendered in it
  // with gpu_culling). Waits for the GPU: for tests and benchmarks, not for every render.
  Result<CullingStats> read_culling_stats(const Crowd& crowd) const;
  // The logical indices the last render's camera pass drew at each level (same conditions).
  Result<std::vector<std::vector<uint32_t>>> read_visible(const Crowd& crowd) const;
  uint32_t shadow_map() const;  // GL_DEPTH_COMPONENT32F texture of the last shadow pass
  int shadow_map_size() const;
  const glm::mat4& light_view_projection() const;  // of the last shadow pass
  float shadow_texel_world() const;                // world size of a shadow-map texel in the last render's light box

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace vatkit::gl

// cull.comp: GPU culling and level-of-detail choice for a crowd (vatkit::gl::Crowd).
// Prepended by the library with the decode defines and vat_decode.glsl (for the playback resolve:
// which frame rows an instance shows now).
//
// One invocation per drawn-list entry. The instance's animated box is the union of the boxes of
// the clips holding the rows it shows (band a, and band b while a fade or blend mixes it in; from
// the bake: VatClip::bounds, which hold every posed vertex of the clip, between rows included),
// moved by its world matrix. A box wholly outside one frustum plane is culled. The level of detail
// is lod.h's select_lod: the coarsest level whose screen size holds the projected diameter of the
// instance's bounding sphere (VatGpu::lod_radius times the world matrix's largest column length,
// around the moved centre of the VAT's bounds) times the pixel budget. Survivors are appended to
// their level's segment of the output list (atomic counter per level); the draws read the
// segments through the indirect commands' base instance. The order within a segment is whatever
// the atomics give: the playback table and world matrices are read by the logical index, so it
// never changes what an instance shows.
//
// CROWD_POSE_CACHE: each survivor also takes an entry of the pass's pose cache (a counter after
// the level counters), where its work group writes what the instance's vertices would otherwise
// each work out again:
//  - rig: the slot palette, every slot's transform at the time drawn, transitions and blends
//    included (vat_slot_matrix), placed in the world by the instance's matrix and packed as three
//    rows by vat_pack_slot: the vertex shader then skins from up to 12 buffer fetches instead of
//    resolving the playback row and decoding four slots from the VAT;
//  - delta: the resolved pose (2 texels): the vertex shader skips the playback resolve.
// Its output entry is (logical index, cache entry + 1); 0 when the cache is full (or the crowd
// draws a static pose), and the vertex shader works it out itself, as it does for direct draws.

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer CullDrawn { uint cull_drawn[]; };     // logical indices
#ifdef CROWD_PLACEMENT
// CrowdTransforms::PositionHeading: (position, heading about +Y) per logical index (crowd_world.glsl).
layout(std430, binding = 1) readonly buffer CullWorld { vec4 cull_placement[]; };
#else
layout(std430, binding = 1) readonly buffer CullWorld { mat4 cull_world[]; };     // by logical index
#endif
layout(std430, binding = 3) buffer CullCounters { uint cull_counters[]; };        // per pass, level
#ifdef CROWD_POSE_CACHE
layout(std430, binding = 2) writeonly buffer CullOut { uvec2 cull_out[]; };       // level segments
layout(std430, binding = 5) writeonly buffer CullCache { vec4 cull_cache[]; };  // rig: 3 per slot; delta: 2
uniform uint u_cull_cache_counter;      // this pass's cache counter in cull_counters
uniform uint u_cull_cache_capacity;     // entries the cache holds
uniform int u_cull_slot_count;
#else
layout(std430, binding = 2) writeonly buffer CullOut { uint cull_out[]; };        // level segments
#endif

uniform samplerBuffer u_cull_row_bounds;  // VatGpu::row_bounds_texture
uniform float u_vat_time;
uniform uint u_cull_first;                // first drawn-list entry of this dispatch
uniform uint u_cull_count;                // drawn-list entries
uniform uint u_cull_capacity;             // entries per level segment
uniform uint u_cull_counter_base;         // this pass's first counter
uniform vec4 u_cull_planes[6];            // inside: dot(plane.xyz, p) + plane.w >= 0
uniform int u_cull_static;                // 1: the crowd draws a static pose whose box is below
uniform vec3 u_cull_static_min;
uniform vec3 u_cull_static_max;
// Level of detail: from the camera, in both passes; the shadow pass may go coarser (u_lod_texel).
uniform int u_lod_levels;                 // levels, full mesh included; 1: no choice
uniform float u_lod_screen_size[16];       // per level, non-increasing; [0] unused
uniform vec3 u_lod_eye;
uniform float u_lod_pixels;               // H / (2 tan(fovy / 2)) times the error budget in pixels
uniform float u_lod_radius;               // VatGpu::lod_radius
uniform vec3 u_lod_centre;                // centre of the VAT's bounds, object space
uniform float u_lod_texel;                // shadow pass: world size of a shadow-map texel times the
                                          // error budget; 0: the camera's level alone

// The instance's world matrix (CROWD_PLACEMENT: built from its placement moved by its motion).
#ifdef CROWD_PLACEMENT
mat4 cull_world_matrix(uint logical) { return crowd_placement_world(cull_placement[logical], int(logical), u_vat_time); }
#else
mat4 cull_world_matrix(uint logical) { return cull_world[logical]; }
#endif

void cull_row_box(int row, out vec3 lo, out vec3 hi) {
  lo = texelFetch(u_cull_row_bounds, row * 2).xyz;
  hi = texelFetch(u_cull_row_bounds, row * 2 + 1).xyz;
}

// Whether drawn-list entry `slot` is in view, its logical index, pose and level of detail.
bool cull_instance(uint slot, out uint logical, out mat4 w, out VatPose pose, out int level) {
  logical = cull_drawn[slot];
  level = 0;
  w = cull_world_matrix(logical);
  vec3 lo, hi;
  if (u_cull_static != 0) {
    lo = u_cull_static_min;
    hi = u_cull_static_max;
  } else {
    pose = vat_resolve_instance(int(logical), u_vat_time);
    cull_row_box(pose.a.row, lo, hi);
    vec3 lo2, hi2;
    cull_row_box(pose.a.row_next, lo2, hi2);
    lo = min(lo, lo2);
    hi = max(hi, hi2);
    if (pose.weight_b > 0.0) {
      cull_row_box(pose.b.row, lo2, hi2);
      lo = min(lo, lo2);
      hi = max(hi, hi2);
      cull_row_box(pose.b.row_next, lo2, hi2);
      lo = min(lo, lo2);
      hi = max(hi, hi2);
    }
  }
  // The moved box: centre W c, half extent |W3| e.
  vec3 c = (lo + hi) * 0.5;
  vec3 e = (hi - lo) * 0.5;
  mat3 m = mat3(w);
  vec3 wc = (w * vec4(c, 1.0)).xyz;
  vec3 we = abs(m[0]) * e.x + abs(m[1]) * e.y + abs(m[2]) * e.z;
  for (int i = 0; i < 6; ++i) {
    vec4 plane = u_cull_planes[i];
    if (dot(plane.xyz, wc) + plane.w < -dot(abs(plane.xyz), we)) return false;
  }

  if (u_lod_levels > 1) {
    float scale = max(length(m[0]), max(length(m[1]), length(m[2])));
    float radius = u_lod_radius * scale;
    float d = distance(u_lod_eye, (w * vec4(u_lod_centre, 1.0)).xyz);
    if (d > radius) {
      // Projected diameter D = 2 R H / (2 d tan(fovy / 2)); level L is acceptable when
      // D <= budget * screen_size[L]: with u_lod_pixels = H / (2 tan) / budget, 2 R u / d <= size.
      float diameter = 2.0 * radius * u_lod_pixels / d;
      for (int l = u_lod_levels - 1; l >= 1; --l) {
        if (diameter <= u_lod_screen_size[l]) {
          level = l;
          break;
        }
      }
    }
    // The light's orthographic view: the diameter in shadow-map texels over the budget. A caster
    // whose error stays within the budget in texels there draws that level, if coarser.
    if (u_lod_texel > 0.0) {
      float texels = 2.0 * radius / u_lod_texel;
      for (int l = u_lod_levels - 1; l > level; --l) {
        if (texels <= u_lod_screen_size[l]) {
          level = l;
          break;
        }
      }
    }
  }
  return true;
}

#ifdef CROWD_POSE_CACHE
// The work group's survivors: their poses, then one cache range for all of them, which the
// group fills together, one (instance, slot) pair per invocation (delta: one instance): consecutive
// invocations write consecutive slots of one entry, and no invocation loops over every slot of its
// instance alone.
shared VatPose s_pose[64];
#ifdef VAT_RIG
shared mat4x3 s_world[64];
#endif
shared uint s_kept;
shared uint s_first_entry;
#endif

void main() {
  uint slot = u_cull_first + gl_GlobalInvocationID.x;
  uint logical = 0u;
  mat4 w;
  VatPose pose;
  int level = 0;
  bool keep = slot < u_cull_count && cull_instance(slot, logical, w, pose, level);
#ifndef CROWD_POSE_CACHE
  if (!keep) return;
  uint at = atomicAdd(cull_counters[u_cull_counter_base + uint(level)], 1u);
  cull_out[uint(level) * u_cull_capacity + at] = logical;
#else
  // Every invocation reaches the barriers (no early return).
  if (gl_LocalInvocationIndex == 0u) s_kept = 0u;
  barrier();
  bool cached = keep && u_cull_static == 0;
  uint k = 0u;
  if (cached) {
    k = atomicAdd(s_kept, 1u);
    s_pose[k] = pose;
#ifdef VAT_RIG
    s_world[k] = mat4x3(w);
#endif
  }
  barrier();
  uint kept = s_kept;
  if (gl_LocalInvocationIndex == 0u && kept > 0u) s_first_entry = atomicAdd(cull_counters[u_cull_cache_counter], kept);
  barrier();
  uint first = s_first_entry;
#ifdef VAT_RIG
  uint slots = uint(u_cull_slot_count);
#else
  uint slots = 1u;
#endif
  for (uint j = gl_LocalInvocationIndex; j < kept * slots; j += gl_WorkGroupSize.x) {
    uint i = j / slots;
    uint e = first + i;
    if (e >= u_cull_cache_capacity) break;  // i only grows
#ifndef VAT_RIG
    // Delta: the resolved pose, rows as floats (exact below 2^24).
    VatPose p = s_pose[i];
    cull_cache[e * 2u] = vec4(float(p.a.row), float(p.a.row_next), p.a.mix, p.weight_b);
    cull_cache[e * 2u + 1u] = vec4(float(p.b.row), float(p.b.row_next), p.b.mix, 0.0);
#else
    uint s = j - i * slots;
    vec4 r0, r1, r2;
    // The slot's transform placed in the world: W x slot (affine).
    mat4x3 m = vat_slot_matrix(s_pose[i], int(s));
    mat4x3 wm = s_world[i];
    mat3 w3 = mat3(wm[0], wm[1], wm[2]);
    vat_pack_slot(mat4x3(w3 * m[0], w3 * m[1], w3 * m[2], w3 * m[3] + wm[3]), r0, r1, r2);
    uint t = (e * slots + s) * 3u;
    cull_cache[t] = r0;
    cull_cache[t + 1u] = r1;
    cull_cache[t + 2u] = r2;
#endif
  }
  if (!keep) return;
  uint entry = cached && first + k < u_cull_cache_capacity ? first + k + 1u : 0u;
  uint at = atomicAdd(cull_counters[u_cull_counter_base + uint(level)], 1u);
  cull_out[uint(level) * u_cull_capacity + at] = uvec2(logical, entry);
#endif
}

// crowd.vert: one VAT instance's vertex (vatkit::gl::Crowd). Prepended by the library with the
// decode defines, vat_decode.glsl and crowd_world.glsl; CROWD_STATIC draws attributes 0/1 as they are instead of
// decoding (the reference frame of the parity tests, a benchmark's static floor).
//
// Per-instance data is read by the LOGICAL instance index: the draw slot (gl_BaseInstanceARB +
// gl_InstanceID) indexes the drawn list, which holds logical indices; world matrices and the
// playback table are indexed by those. A culled or compacted drawn list therefore changes which
// instances are drawn, never what an instance shows.
//
// Crowds drawn with GPU culling: the culling pass (cull.comp, CROWD_POSE_CACHE) has written each
// visible instance's pose once for the frame (rig: its slot transforms placed in the world, the
// slot palette; delta: the resolved playback row); the drawn entry's second component names it
// (entry + 1). 0 (direct draws: the drawn list is R32UI, whose texels read 0 there; or a full
// cache): the vertex resolves and decodes the VAT itself. Both give the same positions and
// normals up to float rounding (the palette multiplies the world matrix into the slots before the
// weighted sum instead of after it).

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_texcoord0;
layout(location = 3) in vec4 a_color0;
layout(location = 4) in vec4 a_tangent;
layout(location = 5) in uvec4 a_slots0;
layout(location = 6) in vec4 a_weights0;
layout(location = 7) in uvec4 a_slots1;
layout(location = 8) in vec4 a_weights1;
// Delta: the vertex's texel column (the file's _VAT_VERTEX attribute, VatGpu's kAttribVertex),
// the address vat_decode reads, as an engine's shader passes it; not gl_VertexID.
layout(location = 9) in float a_vat_vertex;

uniform samplerBuffer u_crowd_world;     // crowd_world.glsl: a matrix (4 texels) or a placement per logical instance
uniform samplerBuffer u_crowd_tint;      // RGBA8 per logical instance (Crowd::set_tint), times the vertex colour
uniform usamplerBuffer u_crowd_drawn;    // per draw slot: logical instance index (, cache entry + 1)
#if !defined(CROWD_STATIC)
uniform samplerBuffer u_crowd_pose_cache;   // rig: 3 texels per slot per entry (vat_pack_slot); delta: 2 (the pose)
#endif
#if defined(VAT_RIG) && !defined(CROWD_STATIC)
uniform int u_crowd_slot_count;
// The vertex's influences, fetched by its index from buffer textures over the VAT's influence
// vertex buffers (VatGpu::influence_textures), not as attributes 5-8: as attributes they made a
// crowd's frame markedly longer on NVIDIA hardware, and these fetches cost next to nothing
// (docs/benchmarks.md).
uniform usamplerBuffer u_crowd_slots0;
uniform samplerBuffer u_crowd_weights0;
#ifdef VAT_EIGHT_INFLUENCES
uniform usamplerBuffer u_crowd_slots1;
uniform samplerBuffer u_crowd_weights1;
#endif
#endif
uniform float u_vat_time;                // the shared clock, seconds
uniform mat4 u_view_projection;          // the camera's, or the light's in the shadow pass
#ifdef CROWD_MOTION
// Motion vectors (crowd.frag): the same vertex a render ago, decoded per vertex at the previous
// time (never from the pose cache, which holds this render's), placed by the previous world
// matrix and projected by the previous view-projection.
uniform samplerBuffer u_crowd_previous_world;
uniform float u_vat_previous_time;
uniform mat4 u_previous_view_projection;
out vec4 v_clip_now;
out vec4 v_clip_previous;
#endif

out vec3 v_world_position;
out vec3 v_world_normal;
out vec2 v_texcoord0;
out vec4 v_color0;
flat out uint v_instance;  // the logical instance index (the shading hook's VatkitShadeInput::instance)

// (logical instance index, cache entry + 1 or 0) of this draw slot.
uvec2 crowd_drawn_entry() {
  int slot = gl_BaseInstanceARB + gl_InstanceID;
  return texelFetch(u_crowd_drawn, slot).xy;
}

#if defined(VAT_RIG) && !defined(CROWD_STATIC)
void crowd_add_slot(inout vec4 r0, inout vec4 r1, inout vec4 r2, int base, uint slot, float w) {
  if (w == 0.0) return;
  int t = base + int(slot) * 3;
  r0 += w * texelFetch(u_crowd_pose_cache, t);
  r1 += w * texelFetch(u_crowd_pose_cache, t + 1);
  r2 += w * texelFetch(u_crowd_pose_cache, t + 2);
}
#endif

// World placement as mirror.h's mirror_vertices: p_w = W p, n_w = normalize(cof(W3) n).
void crowd_place(int logical, vec3 p, vec3 n, out vec3 wp, out vec3 wn) {
  mat4 w = crowd_world(u_crowd_world, logical, u_vat_time);
  vec3 c0 = w[0].xyz, c1 = w[1].xyz, c2 = w[2].xyz;
  wp = c0 * p.x + c1 * p.y + c2 * p.z + w[3].xyz;
  vec3 n0 = cross(c1, c2), n1 = cross(c2, c0), n2 = cross(c0, c1);
  if (dot(c0, n0) < 0.0) {
    n0 = -n0;
    n1 = -n1;
    n2 = -n2;
  }
  wn = n0 * n.x + n1 * n.y + n2 * n.z;
  float len2 = dot(wn, wn);
  wn = len2 >= 1.17549435e-38 ? wn * (1.0 / sqrt(len2)) : n;
}

#ifdef CROWD_MOTION
vec3 crowd_place_previous(int logical, vec3 p) {
  mat4 w = crowd_world(u_crowd_previous_world, logical, u_vat_previous_time);
  return w[0].xyz * p.x + w[1].xyz * p.y + w[2].xyz * p.z + w[3].xyz;
}

// The vertex's world position at the previous render (rest: its VatRest, filled by main).
vec3 crowd_previous_position(int logical, VatRest rest) {
#ifdef CROWD_STATIC
  return crowd_place_previous(logical, rest.position);
#else
  vec3 p, n;
  vat_decode(vat_resolve_instance(logical, u_vat_previous_time), int(a_vat_vertex), rest, p, n);
  return crowd_place_previous(logical, p);
#endif
}
#endif

void main() {
  uvec2 entry = crowd_drawn_entry();
  int logical = int(entry.x);
  vec3 wp, wn;
#ifdef CROWD_STATIC
  crowd_place(logical, a_position, a_normal, wp, wn);
#else
  VatRest rest;
  rest.position = a_position;
  rest.normal = a_normal;
  rest.tangent = a_tangent;
  rest.slots0 = uvec4(0u);
  rest.weights0 = vec4(0.0);
  rest.slots1 = uvec4(0u);
  rest.weights1 = vec4(0.0);
#ifdef VAT_RIG
  rest.slots0 = texelFetch(u_crowd_slots0, gl_VertexID);
  rest.weights0 = texelFetch(u_crowd_weights0, gl_VertexID);
#ifdef VAT_EIGHT_INFLUENCES
  rest.slots1 = texelFetch(u_crowd_slots1, gl_VertexID);
  rest.weights1 = texelFetch(u_crowd_weights1, gl_VertexID);
#endif
  if (entry.y != 0u) {
    // The palette's slots are in the world already (W x slot): the weighted sum places the vertex
    // and its normal in one step, cof(W M) = cof(W) cof(M).
    int base = int(entry.y - 1u) * u_crowd_slot_count * 3;
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int k = 0; k < 4; ++k) crowd_add_slot(r0, r1, r2, base, rest.slots0[k], rest.weights0[k]);
#ifdef VAT_EIGHT_INFLUENCES
    for (int k = 0; k < 4; ++k) crowd_add_slot(r0, r1, r2, base, rest.slots1[k], rest.weights1[k]);
#endif
    vat_decode_skinned(vat_unpack_slot(r0, r1, r2), rest, wp, wn);
  } else
#endif
  {
    vec3 p, n;
    VatPose pose;
#ifdef VAT_DELTA
    if (entry.y != 0u) {
      int t = int(entry.y - 1u) * 2;
      vec4 p0 = texelFetch(u_crowd_pose_cache, t);
      vec4 p1 = texelFetch(u_crowd_pose_cache, t + 1);
      pose.a = VatBand(int(p0.x), int(p0.y), p0.z);
      pose.weight_b = p0.w;
      pose.b = VatBand(int(p1.x), int(p1.y), p1.z);
    } else
#endif
    pose = vat_resolve_instance(logical, u_vat_time);
    vat_decode(pose, int(a_vat_vertex), rest, p, n);
    crowd_place(logical, p, n, wp, wn);
  }
#endif
  v_world_position = wp;
  v_world_normal = wn;
  v_texcoord0 = a_texcoord0;
  v_color0 = a_color0 * texelFetch(u_crowd_tint, logical);
  v_instance = uint(logical);
  gl_Position = u_view_projection * vec4(wp, 1.0);
#ifdef CROWD_MOTION
  VatRest motion_rest;
  motion_rest.position = a_position;
  motion_rest.normal = a_normal;
  motion_rest.tangent = a_tangent;
  motion_rest.slots0 = uvec4(0u);
  motion_rest.weights0 = vec4(0.0);
  motion_rest.slots1 = uvec4(0u);
  motion_rest.weights1 = vec4(0.0);
#if defined(VAT_RIG) && !defined(CROWD_STATIC)
  motion_rest.slots0 = texelFetch(u_crowd_slots0, gl_VertexID);
  motion_rest.weights0 = texelFetch(u_crowd_weights0, gl_VertexID);
#ifdef VAT_EIGHT_INFLUENCES
  motion_rest.slots1 = texelFetch(u_crowd_slots1, gl_VertexID);
  motion_rest.weights1 = texelFetch(u_crowd_weights1, gl_VertexID);
#endif
#endif
  v_clip_now = gl_Position;
  v_clip_previous = u_previous_view_projection * vec4(crowd_previous_position(logical, motion_rest), 1.0);
#endif
}

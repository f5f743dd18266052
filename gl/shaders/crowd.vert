// crowd.vert: one VAT instance's vertex (vatkit::gl::Crowd). Prepended by the library with the
// decode defines and vat_decode.glsl; CROWD_STATIC draws attributes 0/1 as they are instead of
// decoding (the reference frame of the parity tests, a benchmark's static floor).
//
// Per-instance data is read by the LOGICAL instance index: the draw slot (gl_BaseInstanceARB +
// gl_InstanceID) indexes the drawn list, which holds logical indices; world matrices and the
// playback table are indexed by those. A culled or compacted drawn list therefore changes which
// instances are drawn, never what an instance shows.

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_texcoord0;
layout(location = 3) in vec4 a_color0;
layout(location = 4) in vec4 a_tangent;
layout(location = 5) in uvec4 a_slots0;
layout(location = 6) in vec4 a_weights0;
layout(location = 7) in uvec4 a_slots1;
layout(location = 8) in vec4 a_weights1;

uniform samplerBuffer u_crowd_world;     // 4 texels (the columns) per logical instance
uniform usamplerBuffer u_crowd_drawn;    // logical instance index per draw slot
uniform float u_vat_time;                // the shared clock, seconds
uniform mat4 u_view_projection;          // the camera's, or the light's in the shadow pass

out vec3 v_world_position;
out vec3 v_world_normal;
out vec2 v_texcoord0;
out vec4 v_color0;

int crowd_logical_instance() {
  int slot = gl_BaseInstanceARB + gl_InstanceID;
  return int(texelFetch(u_crowd_drawn, slot).x);
}

void main() {
  int logical = crowd_logical_instance();
  vec3 p, n;
#ifdef CROWD_STATIC
  p = a_position;
  n = a_normal;
#else
  VatRest rest;
  rest.position = a_position;
  rest.normal = a_normal;
  rest.tangent = a_tangent;
  rest.slots0 = a_slots0;
  rest.weights0 = a_weights0;
  rest.slots1 = a_slots1;
  rest.weights1 = a_weights1;
  VatPose pose = vat_resolve_instance(logical, u_vat_time);
  vat_decode(pose, gl_VertexID, rest, p, n);
#endif
  // World placement as mirror.h's mirror_vertices: p_w = W p, n_w = normalize(cof(W3) n).
  int base = logical * 4;
  vec3 c0 = texelFetch(u_crowd_world, base + 0).xyz;
  vec3 c1 = texelFetch(u_crowd_world, base + 1).xyz;
  vec3 c2 = texelFetch(u_crowd_world, base + 2).xyz;
  vec3 c3 = texelFetch(u_crowd_world, base + 3).xyz;
  vec3 wp = c0 * p.x + c1 * p.y + c2 * p.z + c3;
  vec3 n0 = cross(c1, c2), n1 = cross(c2, c0), n2 = cross(c0, c1);
  if (dot(c0, n0) < 0.0) {
    n0 = -n0;
    n1 = -n1;
    n2 = -n2;
  }
  vec3 wn = n0 * n.x + n1 * n.y + n2 * n.z;
  float len2 = dot(wn, wn);
  wn = len2 >= 1.17549435e-38 ? wn * (1.0 / sqrt(len2)) : n;

  v_world_position = wp;
  v_world_normal = wn;
  v_texcoord0 = a_texcoord0;
  v_color0 = a_color0;
  gl_Position = u_view_projection * vec4(wp, 1.0);
}

// prop.vert: a prop's vertex (vatkit::gl props, props.h). Prepended by the library with the
// decode defines, VAT_SOCKETS, vat_decode.glsl and crowd_world.glsl.
//
// Draw slot gl_BaseInstanceARB + gl_InstanceID names the instance through the crowd's drawn list
// (or its culled list: the entry's first component is the logical index), as crowd.vert. The
// socket is mirror.h's mirror_joint: W_instance * slot_matrix * inverse(inverse_bind) (the latter
// u_prop_joint, computed on the CPU; identity for a delta's socket joints); the prop's vertices
// are placed by socket * u_prop_offset.

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;

uniform samplerBuffer u_crowd_world;   // crowd_world.glsl: a matrix or a placement per logical instance
uniform usamplerBuffer u_crowd_drawn;  // per draw slot: logical instance index (, cache entry + 1)
uniform float u_vat_time;
uniform mat4 u_view_projection;
uniform int u_prop_slot;
uniform mat4 u_prop_joint;   // inverse(inverse_bind) of the slot
uniform mat4 u_prop_offset;  // prop space to the joint's
#ifdef CROWD_MOTION
uniform samplerBuffer u_crowd_previous_world;  // the world matrices of the previous render
uniform float u_vat_previous_time;
uniform mat4 u_previous_view_projection;
out vec4 v_clip_now;
out vec4 v_clip_previous;
#endif

out vec3 v_world_position;
out vec3 v_world_normal;
out vec2 v_texcoord0;
out vec4 v_color0;
out mat4 v_socket;  // W_instance * joint world (transform feedback: the parity test)

// mirror_joint(vat, resolve(table, logical, time), world, slot).
mat4 prop_socket(int logical, float time, mat4 world) {
  VatPose pose = vat_resolve_instance(logical, time);
  return world * (mat4(vat_slot_matrix(pose, u_prop_slot)) * u_prop_joint);
}

void main() {
  int logical = int(texelFetch(u_crowd_drawn, gl_BaseInstanceARB + gl_InstanceID).x);
  mat4 socket = prop_socket(logical, u_vat_time, crowd_world(u_crowd_world, logical, u_vat_time));
  mat4 m = socket * u_prop_offset;
  vec3 wp = (m * vec4(a_position, 1.0)).xyz;
  vec3 c0 = m[0].xyz, c1 = m[1].xyz, c2 = m[2].xyz;
  vec3 n0 = cross(c1, c2), n1 = cross(c2, c0), n2 = cross(c0, c1);
  if (dot(c0, n0) < 0.0) {
    n0 = -n0;
    n1 = -n1;
    n2 = -n2;
  }
  vec3 wn = n0 * a_normal.x + n1 * a_normal.y + n2 * a_normal.z;
  float len2 = dot(wn, wn);
  wn = len2 >= 1.17549435e-38 ? wn * (1.0 / sqrt(len2)) : a_normal;
  v_socket = socket;
  v_world_position = wp;
  v_world_normal = wn;
  v_texcoord0 = vec2(0.0);
  v_color0 = vec4(1.0);
  gl_Position = u_view_projection * vec4(wp, 1.0);
#ifdef CROWD_MOTION
  mat4 previous = prop_socket(logical, u_vat_previous_time, crowd_world(u_crowd_previous_world, logical, u_vat_previous_time));
  v_clip_now = gl_Position;
  v_clip_previous = u_previous_view_projection * (previous * (u_prop_offset * vec4(a_position, 1.0)));
#endif
}

// ground.vert: a horizontal quad (triangle strip of 4 vertices, no attributes).
uniform vec4 u_ground;  // (centre x, height y, centre z, half size)
uniform mat4 u_view_projection;
out vec3 v_world_position;
void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;
  v_world_position = vec3(u_ground.x + corner.x * u_ground.w, u_ground.y, u_ground.z - corner.y * u_ground.w);
  gl_Position = u_view_projection * vec4(v_world_position, 1.0);
}

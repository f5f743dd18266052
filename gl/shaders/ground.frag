// ground.frag: a soft checkerboard that receives the crowd's shadows (lighting.glsl is prepended).
in vec3 v_world_position;
uniform float u_ground_tile;  // world size of a checker square
out vec4 frag_color;
void main() {
  vec2 cell = floor(v_world_position.xz / u_ground_tile);
  float checker = mod(cell.x + cell.y, 2.0);
  vec3 base = mix(vec3(0.42, 0.45, 0.40), vec3(0.50, 0.53, 0.47), checker);
  frag_color = vec4(linear_to_srgb(shade(base, vec3(0.0, 1.0, 0.0), v_world_position)), 1.0);
}

// lighting.glsl: the shading shared by crowd.frag and ground.frag: one directional light with a
// 3x3 PCF shadow map, hemispheric ambient, sRGB output.

uniform vec3 u_light_direction;   // toward the light, normalized
uniform vec3 u_light_color;
uniform vec3 u_sky_color;
uniform vec3 u_bounce_color;
uniform int u_shadows;            // 0: the light is never blocked
uniform sampler2DShadow u_shadow_map;
uniform mat4 u_light_view_projection;
uniform float u_shadow_texel_world;  // world size of a shadow texel (normal offset)

float shadow_visibility(vec3 world_position, vec3 normal) {
  if (u_shadows == 0) return 1.0;
  // Normal offset: look up the map from a point pushed off the surface by ~1.5 texels, so that a
  // surface does not shadow itself (acne) at grazing light.
  float ndl = dot(normal, u_light_direction);
  vec3 offset = normal * (u_shadow_texel_world * 1.5 * (1.0 - 0.5 * clamp(ndl, 0.0, 1.0)));
  vec4 lp = u_light_view_projection * vec4(world_position + offset, 1.0);
  vec3 c = lp.xyz / lp.w * 0.5 + 0.5;
  if (c.x < 0.0 || c.x > 1.0 || c.y < 0.0 || c.y > 1.0 || c.z > 1.0) return 1.0;
  vec2 texel = 1.0 / vec2(textureSize(u_shadow_map, 0));
  float lit = 0.0;
  for (int y = -1; y <= 1; ++y)
    for (int x = -1; x <= 1; ++x) lit += texture(u_shadow_map, vec3(c.xy + vec2(x, y) * texel, c.z - 0.0005));
  return lit / 9.0;
}

vec3 shade(vec3 base_color, vec3 normal, vec3 world_position) {
  float ndl = max(dot(normal, u_light_direction), 0.0);
  float visibility = ndl > 0.0 ? shadow_visibility(world_position, normal) : 1.0;
  vec3 ambient = mix(u_bounce_color, u_sky_color, normal.y * 0.5 + 0.5);
  return base_color * (ambient + u_light_color * (ndl * visibility));
}

vec3 linear_to_srgb(vec3 c) {
  c = clamp(c, 0.0, 1.0);
  return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

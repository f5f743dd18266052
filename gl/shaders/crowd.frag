// crowd.frag: a crowd instance's fragment, lit (lighting.glsl is prepended).

in vec3 v_world_position;
in vec3 v_world_normal;
in vec2 v_texcoord0;
in vec4 v_color0;
flat in uint v_instance;

uniform vec4 u_base_color_factor;        // linear
uniform int u_has_base_color_texture;
uniform sampler2D u_base_color_texture;  // sRGB texture: sampled as linear
uniform int u_alpha_mode;                // 0 opaque, 1 mask, 2 blend
uniform float u_alpha_cutoff;
uniform int u_shading;  // RenderOptions::shading: 0 lit, 1 view-space normals (three.js's MeshNormalMaterial)
uniform mat4 u_view;    // the camera's view matrix

layout(location = 0) out vec4 frag_color;
#ifdef CROWD_MOTION
in vec4 v_clip_now;
in vec4 v_clip_previous;
// (ndc_now - ndc_previous) * 0.5 (crowd.h, RenderOptions: the UV-space offset).
layout(location = 1) out vec2 frag_motion;
#endif

#ifdef VATKIT_SHADE_HOOK
// CrowdDesc::shade_glsl: the caller's function, appended after this file (docs/rendering.md).
struct VatkitShadeInput {
  vec4 base_color;      // linear: material factor x texture x vertex colour x instance tint
  vec3 world_position;
  vec3 normal;          // world space, unit, facing the viewer on double-sided faces
  vec2 texcoord0;
  uint instance;        // logical instance index
  vec4 lit;             // what vatkit would write: sRGB-encoded lit colour, alpha as below
};
vec4 vatkit_shade(VatkitShadeInput s);
#endif

void main() {
#ifdef CROWD_MOTION
  frag_motion = (v_clip_now.xy / v_clip_now.w - v_clip_previous.xy / v_clip_previous.w) * 0.5;
#endif
  vec4 base = u_base_color_factor * v_color0;
  if (u_has_base_color_texture != 0) base *= texture(u_base_color_texture, v_texcoord0);
  if (u_alpha_mode == 1 && base.a < u_alpha_cutoff) discard;
  vec3 n = normalize(v_world_normal);
  if (!gl_FrontFacing) n = -n;  // double-sided materials (others are back-face culled)
  if (u_shading == 1) {
    frag_color = vec4(normalize(mat3(u_view) * n) * 0.5 + 0.5, 1.0);
    return;
  }
  vec3 color = shade(base.rgb, n, v_world_position);
  frag_color = vec4(linear_to_srgb(color), u_alpha_mode == 2 ? base.a : 1.0);
#ifdef VATKIT_SHADE_HOOK
  frag_color = vatkit_shade(VatkitShadeInput(base, v_world_position, n, v_texcoord0, v_instance, frag_color));
#endif
}

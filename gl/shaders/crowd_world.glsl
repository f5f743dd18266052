// crowd_world.glsl: an instance's world matrix, as the crowd's programs read it (crowd.vert,
// prop.vert, cull.comp; prepended by the library after vat_decode.glsl). A crowd keeps one per
// logical instance: a column-major matrix (4 RGBA32F texels), or under CROWD_PLACEMENT
// (CrowdTransforms::PositionHeading) a placement (position xyz, heading w in radians about +Y,
// 1 texel) dead-reckoned from Crowd::set_motion's start by its velocity and turn rate:
//   p = placement + motion * (time - since),  W = translate(p.xyz) x rotate_y(p.w)
// (zero motion leaves the placement as set).

#ifdef CROWD_PLACEMENT
// Crowd::set_motion: (velocity, turn rate) and (since, -, -, -) per logical instance.
layout(std430, binding = 6) readonly buffer CrowdMotion { vec4 crowd_motion[]; };

mat4 crowd_placement_world(vec4 placement, int logical, float time) {
  vec4 p = placement + crowd_motion[logical * 2] * (time - crowd_motion[logical * 2 + 1].x);
  float s = sin(p.w), c = cos(p.w);
  return mat4(vec4(c, 0.0, -s, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(s, 0.0, c, 0.0), vec4(p.xyz, 1.0));
}
#endif

// Instance `logical`'s world matrix in `worlds` (the crowd's, or under CROWD_MOTION the previous
// render's copy) at clock `time`.
mat4 crowd_world(samplerBuffer worlds, int logical, float time) {
#ifdef CROWD_PLACEMENT
  return crowd_placement_world(texelFetch(worlds, logical), logical, time);
#else
  int base = logical * 4;
  return mat4(texelFetch(worlds, base), texelFetch(worlds, base + 1), texelFetch(worlds, base + 2),
              texelFetch(worlds, base + 3));
#endif
}

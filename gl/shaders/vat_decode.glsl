// vat_decode.glsl: the vatkit VAT decode chunk (vertex stage).
//
// A transcription of the runtime's decode (runtime/include/vatkit/decode.h,
// runtime/src/decode/decode.cpp) and of playback's resolve (runtime/include/vatkit/playback.h,
// instance_table.h), line for line; it is not
// a second definition of either. tests/test_gl_parity.cpp captures what it computes and compares
// it with the CPU mirror. docs/rendering.md documents the interface; the short form:
//
// Defines (vatkit::gl::decode_defines(vat) lists the ones a Vat needs):
//   VAT_DELTA or VAT_RIG            the encoding
//   VAT_F32, VAT_F16 or VAT_Q16     the precision (Q16 planes are GL_RGBA16UI: usampler2D)
//   VAT_NORMAL_PLANE                delta f32/f16 baked with normals (q16 keeps them in position.w)
//   VAT_TANGENT_PLANE               delta with a Tangent plane
//   VAT_EIGHT_INFLUENCES            rig with a second set of 4 slots per vertex
//   VAT_NO_INSTANCE_TABLE           leave out u_vat_instances and vat_resolve_instance()
//   VAT_SOCKETS                     delta: read the Slots plane (socket joints) too, for
//                                   vat_slot_matrix (props held by a joint; the rig has it always)
// Textures (texelFetch only: no filtering, no mipmaps; the units are the caller's choice):
//   u_vat_position, u_vat_normal, u_vat_tangent  delta planes          sampler2D / usampler2D (q16)
//   u_vat_slots                                  rig (or VAT_SOCKETS) Slots plane  sampler2D / usampler2D (q16)
//   u_vat_row_ranges   q16 only: RGBA32F, 2 x frame_rows texels; texel (0, r) = (lo.xyz, scale_lo)
//                      and (1, r) = (hi.xyz, scale_hi) of the clip holding row r: the delta_range
//                      (delta) or translation_range and scale range (rig). A delta with a Slots
//                      plane has 4 columns: (2, r) and (3, r) hold its translation and scale ranges
//   u_vat_instances    the playback table: RGBA32F buffer texture, 6 texels per logical instance
//                      (instance_table.h's packed row)
// Uniforms: ivec2 u_vat_<plane>_layout = (width, rows_per_frame) of each plane the VAT has.
// Entry points:
//   VatPose vat_resolve_instance(int logical_instance, float time)   playback table -> pose
//   VatPose vat_resolve(vec4 row[6], float time)                     a packed row -> pose
//   void vat_decode(VatPose, int vertex, VatRest, out vec3 position, out vec3 normal)
//   vec4 vat_decode_tangent(VatPose, int vertex, VatRest)
// Rig (and delta with VAT_SOCKETS), for renderers that evaluate each instance's slots once per
// frame (vatkit's crowds do it in their culling pass, gl/shaders/cull.comp) instead of once per
// vertex, and for props held by a joint (decode.h's decode_joint_world is
// vat_slot_matrix x inverse(inverse_bind); gl/shaders/prop.vert):
//   mat4x3 vat_slot_matrix(VatPose, int slot)                        one slot's transform
// Rig only:
//   void vat_pack_slot(mat4x3, out vec4 r0, out vec4 r1, out vec4 r2) as three rows, for a buffer
//   mat4x3 vat_unpack_slot(vec4 r0, vec4 r1, vec4 r2)
//   void vat_decode_skinned(mat4x3 skin, VatRest, out vec3 position, out vec3 normal)
//     with skin = sum_k w_k slot_k over the vertex's influences (rows may be summed packed).
// Positions and normals come out in the VAT's object space; place them with the instance's world
// matrix. `vertex` is the vertex's texel column: pass the `_VAT_VERTEX` attribute of the
// .vat.glb (format version 3; a float attribute, pass int(attribute)), never gl_VertexID: an
// engine's importer may weld, split or reorder the vertices, and the attribute travels with each
// vertex while gl_VertexID does not. For version 1 and 2 files (no attribute) the address is the
// vertex index in the file's order, so synthesise 0..V-1. The rig encoding ignores `vertex` (its
// VatRest carries the vertex's own slots and weights).

#if !defined(VAT_DELTA) && !defined(VAT_RIG)
#error "vat_decode.glsl: define VAT_DELTA or VAT_RIG (vatkit::gl::decode_defines)"
#endif
#if !defined(VAT_F32) && !defined(VAT_F16) && !defined(VAT_Q16)
#error "vat_decode.glsl: define VAT_F32, VAT_F16 or VAT_Q16 (vatkit::gl::decode_defines)"
#endif

#ifdef GL_ES
precision highp float;
precision highp int;
precision highp sampler2D;
precision highp usampler2D;
#endif

#ifdef VAT_Q16
#define VAT_PLANE_SAMPLER usampler2D
#else
#define VAT_PLANE_SAMPLER sampler2D
#endif

// decode.h's RowBlend (the clip is implied by the rows) and PoseBlend.
struct VatBand {
  int row;       // absolute frame row
  int row_next;  // the row blended toward, in the same clip band
  float mix;     // [0, 1)
};
struct VatPose {
  VatBand a;
  VatBand b;       // read only when weight_b > 0
  float weight_b;  // [0, 1]
};

// What the vertex brings from the VAT's geometry (vertex attributes).
//   delta: position, normal, tangent = the rest pose (VatGeometry::positions, normals, tangents)
//   rig:   position, normal, tangent = bind space (bind_positions, bind_normals, bind_tangents),
//          slots0/weights0 (and slots1/weights1 with VAT_EIGHT_INFLUENCES)
struct VatRest {
  vec3 position;
  vec3 normal;
  vec4 tangent;
  uvec4 slots0;
  vec4 weights0;
  uvec4 slots1;
  vec4 weights1;
};

#ifdef VAT_DELTA
uniform VAT_PLANE_SAMPLER u_vat_position;
uniform ivec2 u_vat_position_layout;
#if defined(VAT_NORMAL_PLANE) && !defined(VAT_Q16)
uniform sampler2D u_vat_normal;
uniform ivec2 u_vat_normal_layout;
#endif
#ifdef VAT_TANGENT_PLANE
uniform VAT_PLANE_SAMPLER u_vat_tangent;
uniform ivec2 u_vat_tangent_layout;
#endif
#endif
#if defined(VAT_RIG) || defined(VAT_SOCKETS)
uniform VAT_PLANE_SAMPLER u_vat_slots;
uniform ivec2 u_vat_slots_layout;
#endif
#ifdef VAT_Q16
uniform sampler2D u_vat_row_ranges;
#endif

// ---- texel addressing (vat.h): texel i of frame row r ---------------------------------------

ivec2 vat_texel(ivec2 shape, int row, int i) {
  // A frame row that fits one texture row (the usual case) needs no integer division, which GPUs
  // emulate in tens of instructions; shape is uniform, so the branch never diverges.
  if (shape.y == 1) return ivec2(i, row);
  return ivec2(i % shape.x, row * shape.y + i / shape.x);
}

// A stored texel, dequantized only as far as the format goes (codec::fetch_raw): q16 u = q / 65535.
vec4 vat_fetch(VAT_PLANE_SAMPLER plane, ivec2 shape, int row, int i) {
#ifdef VAT_Q16
  return vec4(texelFetch(plane, vat_texel(shape, row, i), 0)) / 65535.0;
#else
  return texelFetch(plane, vat_texel(shape, row, i), 0);
#endif
}

vec3 vat_lerp3(vec3 a, vec3 b, float m) { return a + (b - a) * m; }
vec4 vat_lerp4(vec4 a, vec4 b, float m) { return a + (b - a) * m; }

// Unit-length v; where v has no direction, `fallback` normalized (decode.cpp's normalized_or).
vec3 vat_normalized_or(vec3 v, vec3 fallback) {
  const float kFloatMin = 1.17549435e-38;
  float len2 = dot(v, v);
  if (len2 >= kFloatMin) return v * (1.0 / sqrt(len2));
  len2 = dot(fallback, fallback);
  if (len2 >= kFloatMin) return fallback * (1.0 / sqrt(len2));
  return vec3(0.0);
}

#ifdef VAT_Q16
// The q16 ranges of the clip that holds `row`: lo = (min.xyz, scale_min), hi = (max.xyz, scale_max).
void vat_row_ranges(int row, out vec4 lo, out vec4 hi) {
  lo = texelFetch(u_vat_row_ranges, ivec2(0, row), 0);
  hi = texelFetch(u_vat_row_ranges, ivec2(1, row), 0);
}

float vat_sign_not_zero(float v) { return v < 0.0 ? -1.0 : 1.0; }

// codec::oct8_decode: 8 + 8 bit octahedral normal packed as 256 * hi + lo (hi: x, lo: y).
vec3 vat_oct8_decode(uint bits) {
  float a = float(bits);
  float hi = floor(a / 256.0);
  float lo = a - 256.0 * hi;
  float px = hi / 255.0 * 2.0 - 1.0;
  float py = lo / 255.0 * 2.0 - 1.0;
  vec3 n = vec3(px, py, 1.0 - abs(px) - abs(py));
  if (n.z < 0.0) {
    float x = (1.0 - abs(n.y)) * vat_sign_not_zero(n.x);
    float y = (1.0 - abs(n.x)) * vat_sign_not_zero(n.y);
    n.x = x;
    n.y = y;
  }
  float len = sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
  return n / len;
}
#endif

// ---- delta ---------------------------------------------------------------------------------

#ifdef VAT_DELTA
// One row of vertex v: the position delta and the stored normal (decode.cpp's delta_at, normal_at).
void vat_delta_row(int row, int v, out vec3 delta, out vec3 normal) {
#ifdef VAT_Q16
  uvec4 q = texelFetch(u_vat_position, vat_texel(u_vat_position_layout, row, v), 0);
  vec4 lo, hi;
  vat_row_ranges(row, lo, hi);
  delta = lo.xyz + (hi.xyz - lo.xyz) * (vec3(q.xyz) / 65535.0);
  normal = vat_oct8_decode(q.w);
#else
  delta = vat_fetch(u_vat_position, u_vat_position_layout, row, v).xyz;
#ifdef VAT_NORMAL_PLANE
  normal = vat_fetch(u_vat_normal, u_vat_normal_layout, row, v).xyz;
#else
  normal = vec3(0.0);
#endif
#endif
}

void vat_delta_band(VatBand band, int v, out vec3 delta, out vec3 normal) {
  vec3 d0, n0, d1, n1;
  vat_delta_row(band.row, v, d0, n0);
  vat_delta_row(band.row_next, v, d1, n1);
  delta = vat_lerp3(d0, d1, band.mix);
  normal = vat_lerp3(n0, n1, band.mix);
}

void vat_decode(VatPose pose, int vertex, VatRest rest, out vec3 position, out vec3 normal) {
  vec3 d, n;
  vat_delta_band(pose.a, vertex, d, n);
  if (pose.weight_b > 0.0) {
    vec3 db, nb;
    vat_delta_band(pose.b, vertex, db, nb);
    d = vat_lerp3(d, db, pose.weight_b);
    n = vat_lerp3(n, nb, pose.weight_b);
  }
  position = rest.position + d;
#if defined(VAT_NORMAL_PLANE) || defined(VAT_Q16)
  normal = vat_normalized_or(n, rest.normal);
#else
  normal = rest.normal;  // baked without normals: the rest normal, as decode_vertices returns it
#endif
}

#ifdef VAT_TANGENT_PLANE
vec4 vat_tangent_row(int row, int v) {
  vec4 t = vat_fetch(u_vat_tangent, u_vat_tangent_layout, row, v);
#ifdef VAT_Q16
  t = 2.0 * t - 1.0;
#endif
  return t;
}
#endif

vec4 vat_decode_tangent(VatPose pose, int vertex, VatRest rest) {
#ifdef VAT_TANGENT_PLANE
  vec4 t = vat_lerp4(vat_tangent_row(pose.a.row, vertex), vat_tangent_row(pose.a.row_next, vertex),
                     pose.a.mix);
  if (pose.weight_b > 0.0) {
    vec4 tb = vat_lerp4(vat_tangent_row(pose.b.row, vertex), vat_tangent_row(pose.b.row_next, vertex),
                        pose.b.mix);
    t = vat_lerp4(t, tb, pose.weight_b);
  }
  return vec4(vat_normalized_or(t.xyz, rest.tangent.xyz), t.w < 0.0 ? -1.0 : 1.0);
#else
  return vec4(0.0);
#endif
}
#endif  // VAT_DELTA

// ---- slots (rig; delta with VAT_SOCKETS) --------------------------------------------------

#if defined(VAT_RIG) || defined(VAT_SOCKETS)
// One slot at one row (decode.cpp's slot_at): q = (x, y, z, w), ts = (translation, scale).
void vat_slot_row(int row, int s, out vec4 q, out vec4 ts) {
  vec4 a = vat_fetch(u_vat_slots, u_vat_slots_layout, row, 2 * s);
  vec4 b = vat_fetch(u_vat_slots, u_vat_slots_layout, row, 2 * s + 1);
#ifdef VAT_Q16
  vec4 lo, hi;
#ifdef VAT_RIG
  vat_row_ranges(row, lo, hi);
#else
  lo = texelFetch(u_vat_row_ranges, ivec2(2, row), 0);  // a delta's slot ranges (columns 2, 3)
  hi = texelFetch(u_vat_row_ranges, ivec2(3, row), 0);
#endif
  q = 2.0 * a - 1.0;
  ts = vec4(lo.xyz + (hi.xyz - lo.xyz) * b.xyz, lo.w + (hi.w - lo.w) * b.w);
#else
  q = a;
  ts = b;
#endif
}

// decode.cpp's blend_slots: the hemisphere flip, then lerp; the quaternion stays unnormalized.
void vat_blend_slot(inout vec4 qa, inout vec4 tsa, vec4 qb, vec4 tsb, float m) {
  float d = qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w;
  if (d < 0.0) qb = -qb;
  qa = vat_lerp4(qa, qb, m);
  tsa = vat_lerp4(tsa, tsb, m);
}

void vat_band_slot(VatBand band, int s, out vec4 q, out vec4 ts) {
  vec4 q1, ts1;
  vat_slot_row(band.row, s, q, ts);
  vat_slot_row(band.row_next, s, q1, ts1);
  vat_blend_slot(q, ts, q1, ts1, band.mix);
}

// codec::slot_affine: p' = R(q) (s p) + t as a 3x4 matrix, q normalized first.
mat4x3 vat_slot_matrix(VatPose pose, int s) {
  vec4 q, ts;
  vat_band_slot(pose.a, s, q, ts);
  if (pose.weight_b > 0.0) {
    vec4 qb, tsb;
    vat_band_slot(pose.b, s, qb, tsb);
    vat_blend_slot(q, ts, qb, tsb, pose.weight_b);
  }
  float len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  float inv = len2 > 0.0 ? 1.0 / sqrt(len2) : 0.0;
  float x = q.x * inv, y = q.y * inv, z = q.z * inv, w = len2 > 0.0 ? q.w * inv : 1.0;
  float sc = ts.w;
  mat4x3 m;
  m[0] = vec3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w)) * sc;
  m[1] = vec3(2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w)) * sc;
  m[2] = vec3(2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y)) * sc;
  m[3] = ts.xyz;
  return m;
}
#endif  // VAT_RIG || VAT_SOCKETS

// ---- rig -----------------------------------------------------------------------------------

#ifdef VAT_RIG

// M = sum_k w_k M_k over the vertex's influences (weight 0 adds nothing and is skipped).
mat4x3 vat_skin_matrix(VatPose pose, VatRest rest) {
  mat4x3 m = mat4x3(0.0);
  for (int k = 0; k < 4; ++k) {
    float w = rest.weights0[k];
    if (w != 0.0) m += w * vat_slot_matrix(pose, int(rest.slots0[k]));
  }
#ifdef VAT_EIGHT_INFLUENCES
  for (int k = 0; k < 4; ++k) {
    float w = rest.weights1[k];
    if (w != 0.0) m += w * vat_slot_matrix(pose, int(rest.slots1[k]));
  }
#endif
  return m;
}

// The packed form of a slot transform: row i of the 3x4 affine, (m[0][i], m[1][i], m[2][i], m[3][i]).
// A weighted sum of packed slots is the packed weighted sum, element for element.
void vat_pack_slot(mat4x3 m, out vec4 r0, out vec4 r1, out vec4 r2) {
  r0 = vec4(m[0].x, m[1].x, m[2].x, m[3].x);
  r1 = vec4(m[0].y, m[1].y, m[2].y, m[3].y);
  r2 = vec4(m[0].z, m[1].z, m[2].z, m[3].z);
}

mat4x3 vat_unpack_slot(vec4 r0, vec4 r1, vec4 r2) {
  return mat4x3(vec3(r0.x, r1.x, r2.x), vec3(r0.y, r1.y, r2.y), vec3(r0.z, r1.z, r2.z), vec3(r0.w, r1.w, r2.w));
}

// A bind-space vertex moved by its skin matrix (the weighted sum of its slots).
void vat_decode_skinned(mat4x3 m, VatRest rest, out vec3 position, out vec3 normal) {
  vec3 p = rest.position;
  position = m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3];
  // Cofactor of the 3x3 part (the inverse transpose up to scale), sign-corrected for mirroring.
  vec3 c0 = cross(m[1], m[2]);
  vec3 c1 = cross(m[2], m[0]);
  vec3 c2 = cross(m[0], m[1]);
  float det = dot(m[0], c0);
  vec3 n = rest.normal;
  vec3 o = c0 * n.x + c1 * n.y + c2 * n.z;
  if (det < 0.0) o = -o;
  normal = vat_normalized_or(o, n);
}

void vat_decode(VatPose pose, int vertex, VatRest rest, out vec3 position, out vec3 normal) {
  vat_decode_skinned(vat_skin_matrix(pose, rest), rest, position, normal);
}

vec4 vat_decode_tangent(VatPose pose, int vertex, VatRest rest) {
  mat4x3 m = vat_skin_matrix(pose, rest);
  vec4 t = rest.tangent;
  vec3 d = m[0] * t.x + m[1] * t.y + m[2] * t.z;
  return vec4(vat_normalized_or(d, t.xyz), t.w < 0.0 ? -1.0 : 1.0);
}
#endif  // VAT_RIG

// ---- playback: resolve (playback.h) --------------------------------------------------------
// The packed row (instance_table.h), six RGBA32F texels:
//   0 A (first_row, rows, loop_mode, end_phase)    1 A (start_time, cycle_rate, end_time, repetitions)
//   2 B (first_row, rows, loop_mode, end_phase)    3 B (start_time, cycle_rate, end_time, repetitions)
//   4 (weight_from, weight_to, ramp_start, ramp_rate)   5 (kind, curve, hold, paused)

// playback.cpp's resolve_track: the band's rows and mix at the instance's clock.
VatBand vat_resolve_track(vec4 band, vec4 timing, float time) {
  float e = time - timing.x;
  e = max(e, 0.0);
  float u = min(e * abs(timing.y), 16777216.0);  // elapsed cycles, clamped at 2^24
  bool finished = time >= timing.z;
  float k = floor(u);
  float p = u - k;
  float odd = k - 2.0 * floor(k * 0.5);
  // A PingPong's odd cycle runs backwards; a negative cycle rate mirrors every phase.
  bool backwards = (band.z == 2.0 && odd == 1.0) != (timing.y < 0.0);
  float phase = backwards ? 1.0 - p : p;
  if (finished) phase = band.w;
  float last = band.y - 1.0;
  float x = phase * last;
  float xf = floor(x);
  VatBand f;
  f.row = int(band.x) + int(xf);
  f.row_next = int(band.x) + int(min(xf + 1.0, last));
  f.mix = x - xf;
  return f;
}

// playback.cpp's second_weight: w(t) = w_from (1 - c) + w_to c.
float vat_second_weight(vec4 ramp, float curve, float time) {
  float progress = (time - ramp.z) * ramp.w;
  progress = min(max(progress, 0.0), 1.0);
  float c = curve == 1.0 ? progress * progress * (3.0 - 2.0 * progress) : progress;
  return ramp.x * (1.0 - c) + ramp.y * c;
}

// resolve() and mirror.h's pose_blend: band b is read only while its weight is > 0 (a Single row
// has weights 0; a finished fade has weight 0).
VatPose vat_resolve(vec4 row[6], float time) {
  // playback.cpp's instance_clock: a paused row's clock stops at its hold.
  float clock = row[5].w == 1.0 ? min(time, row[5].z) : time;
  VatPose pose;
  pose.a = vat_resolve_track(row[0], row[1], clock);
  pose.weight_b = vat_second_weight(row[4], row[5].y, clock);
  // if/else, not ?: : WebGL's GLSL ES refuses the conditional operator on structures.
  if (pose.weight_b > 0.0) {
    pose.b = vat_resolve_track(row[2], row[3], clock);
  } else {
    pose.b = pose.a;
  }
  return pose;
}

#ifndef VAT_NO_INSTANCE_TABLE
uniform highp samplerBuffer u_vat_instances;  // highp: GLSL ES has no default precision for it

VatPose vat_resolve_instance(int logical_instance, float time) {
  vec4 row[6];
  int base = logical_instance * 6;
  for (int j = 0; j < 6; ++j) row[j] = texelFetch(u_vat_instances, base + j);
  return vat_resolve(row, time);
}
#endif

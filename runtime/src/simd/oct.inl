// The precise octahedral encoding (codec.h) for VATKIT_OCT_LANES normals at once, one per
// lane. Included by codec.h for 4 lanes and by bake_delta.cpp for 8 (inside an AVX2 target
// region); it includes only simd_xyz.inl, and every lane runs the same IEEE operations whatever
// the width, so both give the same codes.
#define VATKIT_XYZ_LANES VATKIT_OCT_LANES
#include "simd/simd_xyz.inl"
#undef VATKIT_XYZ_LANES
typedef xyz_fv oct_fv;
typedef int32_t oct_iv __attribute__((vector_size(4 * VATKIT_OCT_LANES)));
inline oct_fv oct_abs(oct_fv v) { return (oct_fv)((oct_iv)v & 0x7fffffff); }
inline oct_fv oct_select(oct_iv m, oct_fv a, oct_fv b) { return (oct_fv)((m & (oct_iv)a) | (~m & (oct_iv)b)); }
// sign_not_zero(s) * magnitude, for magnitude >= 0: s's sign bit unless s is +-0 (then +).
inline oct_fv oct_with_sign_of(oct_fv magnitude, oct_fv s) {
  return (oct_fv)((oct_iv)magnitude | ((s < 0.0f) & int32_t(0x80000000u)));
}

// The 16-bit codes of n[0..N), one per lane.
inline oct_iv oct8_encode_lanes(const glm::vec3* n) {
  typedef oct_fv fv;
  typedef oct_iv iv;
  const fv one = fv{} + 1.0f, zero = fv{};
  fv nx, ny, nz;
  load_xyz(n, nx, ny, nz);
  const fv l1 = oct_abs(nx) + oct_abs(ny) + oct_abs(nz);
  const iv has_direction = l1 > zero;
  const fv inv = one / oct_select(has_direction, l1, one);
  fv px = nx * inv, py = ny * inv;
  const iv below = nz < zero;
  const fv fpx = oct_with_sign_of(one - oct_abs(py), px), fpy = oct_with_sign_of(one - oct_abs(px), py);
  px = oct_select(below, fpx, px);
  py = oct_select(below, fpy, py);
  // Lattice coordinates in [0, 255]: truncation is floor there.
  const fv half = fv{} + 0.5f, scale = fv{} + 255.0f;
  const iv fx = __builtin_convertvector((px * half + half) * scale, iv);
  const iv fy = __builtin_convertvector((py * half + half) * scale, iv);
  // The four lattice points around it, decoded without normalizing: the best is the largest
  // dot(v, n) / |v|, compared as s |s| / |v|^2 by cross-multiplication, in candidate order.
  const iv lim = iv{} + 255;
  const fv k = fv{} + 2.0f / 255.0f;
  iv best_x = fx, best_y = fy;
  fv best_num = zero, best_den = one;
  for (int c = 0; c < 4; ++c) {
    iv qx = fx + (c & 1), qy = fy + (c >> 1);
    qx = (qx < lim) ? qx : lim;
    qy = (qy < lim) ? qy : lim;
    const fv ex = __builtin_convertvector(qx, fv) * k - one, ey = __builtin_convertvector(qy, fv) * k - one;
    const fv ax = oct_abs(ex), ay = oct_abs(ey);
    const fv vz = one - ax - ay;
    const iv fold = vz < zero;
    const fv vx = oct_select(fold, oct_with_sign_of(one - ay, ex), ex),
             vy = oct_select(fold, oct_with_sign_of(one - ax, ey), ey);
    const fv sdot = vx * nx + vy * ny + vz * nz;
    const fv num = sdot * oct_abs(sdot), den = vx * vx + vy * vy + vz * vz;
    const iv better = c == 0 ? iv{} - 1 : (num * best_den > best_num * den);
    best_num = oct_select(better, num, best_num);
    best_den = oct_select(better, den, best_den);
    best_x = (better & qx) | (~better & best_x);
    best_y = (better & qy) | (~better & best_y);
  }
  const iv code = best_x * 256 + best_y;
  return (has_direction & code) | (~has_direction & (128 * 256 + 128));  // no direction: near +z
}

inline void oct8_encode_lanes(const glm::vec3* n, uint16_t* out) {
  const oct_iv code = oct8_encode_lanes(n);
  for (int i = 0; i < VATKIT_OCT_LANES; ++i) out[i] = uint16_t(code[i]);
}

// The codes of n[0..count) as floats (exact) into the w of stage[0..count): the Q16 delta bake's
// staged texels.
inline void oct8_encode_into_w(const glm::vec3* n, uint32_t count, glm::vec4* stage) {
  constexpr uint32_t N = VATKIT_OCT_LANES;
  uint32_t v = 0;
  for (; v + N <= count; v += N) {
    const oct_fv code = __builtin_convertvector(oct8_encode_lanes(n + v), oct_fv);
    for (uint32_t i = 0; i < N; ++i) stage[v + i].w = code[i];
  }
  for (; v < count; ++v) {
    glm::vec3 same[N];
    for (uint32_t i = 0; i < N; ++i) same[i] = n[v];
    stage[v].w = float(oct8_encode_lanes(same)[0]);
  }
}

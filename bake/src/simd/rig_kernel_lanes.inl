// The rig kernel's lane code, for VATKIT_RIG_LANES lanes (one frame row each). Included by
// rig_kernel.cpp once per lane width, each time inside its own namespace (and, for 8 and 16
// lanes, inside `#pragma GCC target("avx2")` / `("avx512f,avx512dq")`); it includes nothing itself, so no inline
// function of a header is ever compiled here for a target the machine may lack.
//
// Every lane runs the same IEEE operations in the same order whatever the width (no fused
// multiply-adds: rig_kernel.cpp is built with -ffp-contract=off), so the 4- and 8-lane
// kernels write the same bytes; a test holds them to it.
//
// Sampling follows sample.cpp's rules to the letter (key location, hold outside the keys, the
// spec's slerp with the nlerp fallback at dot > 0.9995, Hermite splines), with sin, cos and acos
// evaluated by polynomials accurate to a few 1e-8 on the ranges slerp uses: rotations differ from
// the reference sampler's by float rounding, not by method.

constexpr int N = VATKIT_RIG_LANES;
typedef float fv __attribute__((vector_size(4 * N)));
typedef int32_t iv __attribute__((vector_size(4 * N)));

inline fv splat(float x) { return fv{} + x; }
inline iv isplat(int32_t x) { return iv{} + x; }
inline fv vselect(iv m, fv a, fv b) { return (fv)((m & (iv)a) | (~m & (iv)b)); }
inline fv vabs(fv x) { return (fv)((iv)x & isplat(0x7fffffff)); }
inline fv vmin(fv a, fv b) { return vselect(a < b, a, b); }
inline fv vmax(fv a, fv b) { return vselect(a > b, a, b); }
inline fv vsqrt(fv x) {
#if VATKIT_RIG_LANES == 16
  return (fv)_mm512_maskz_sqrt_ps(0xFFFF, (__m512)x);  // maskz: GCC 12 warns on the plain form's undefined source
#elif VATKIT_RIG_LANES == 8
  return (fv)_mm256_sqrt_ps((__m256)x);
#elif VATKIT_RIG_LANES == 4 && defined(__SSE__)
  return (fv)_mm_sqrt_ps((__m128)x);
#else
  fv r;
  for (int i = 0; i < N; ++i) r[i] = __builtin_sqrtf(x[i]);
  return r;
#endif
}
inline bool any(iv m) {  // lanes are 0 or -1
#if VATKIT_RIG_LANES == 16
  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif VATKIT_RIG_LANES == 8
  return _mm256_movemask_ps((__m256)m) != 0;
#elif VATKIT_RIG_LANES == 4 && defined(__SSE__)
  return _mm_movemask_ps((__m128)m) != 0;
#else
  int32_t r = 0;
  for (int i = 0; i < N; ++i) r |= m[i];
  return r != 0;
#endif
}
inline fv load(const float* p) {
  fv r;
  __builtin_memcpy(&r, p, sizeof r);
  return r;
}

struct V3 {
  fv x, y, z;
};
inline V3 operator+(const V3& a, const V3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline V3 operator-(const V3& a, const V3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 operator*(const V3& a, fv s) { return {a.x * s, a.y * s, a.z * s}; }
inline fv dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline V3 splat3(const float* v) { return {splat(v[0]), splat(v[1]), splat(v[2])}; }

struct Q4 {
  fv x, y, z, w;
};

// Affine 3x4, column-major: c[0..2] the 3x3 part, c[3] the translation.
struct A4 {
  V3 c[4];
};

// a * b for affine matrices, summed in the order glm sums a mat4 product (so the world matrices
// are the reference's to the bit).
inline A4 mul(const A4& a, const A4& b) {
  A4 r;
  for (int j = 0; j < 3; ++j) r.c[j] = a.c[0] * b.c[j].x + a.c[1] * b.c[j].y + a.c[2] * b.c[j].z;
  r.c[3] = a.c[0] * b.c[3].x + a.c[1] * b.c[3].y + a.c[2] * b.c[3].z + a.c[3];
  return r;
}

inline A4 splat_affine(const AffineScalar& m) {
  A4 r;
  for (int j = 0; j < 4; ++j) r.c[j] = splat3(m.c[j]);
  return r;
}

// ---- polynomials ------------------------------------------------------------------------------

// sin and cos on [0, pi/2] (Taylor to x^11 and x^12: errors below 6e-8 and 7e-9 there).
inline fv sin_poly(fv x) {
  const fv x2 = x * x;
  fv p = splat(-1.0f / 39916800.0f);
  p = p * x2 + splat(1.0f / 362880.0f);
  p = p * x2 + splat(-1.0f / 5040.0f);
  p = p * x2 + splat(1.0f / 120.0f);
  p = p * x2 + splat(-1.0f / 6.0f);
  p = p * x2 + splat(1.0f);
  return p * x;
}
inline fv cos_poly(fv x) {
  const fv x2 = x * x;
  fv p = splat(1.0f / 479001600.0f);
  p = p * x2 + splat(-1.0f / 3628800.0f);
  p = p * x2 + splat(1.0f / 40320.0f);
  p = p * x2 + splat(-1.0f / 720.0f);
  p = p * x2 + splat(1.0f / 24.0f);
  p = p * x2 + splat(-1.0f / 2.0f);
  p = p * x2 + splat(1.0f);
  return p;
}

// asin on [0, 0.5]: the Taylor series to z^25 (kAsinTaylor; remainder below 1e-9 there).
inline fv asin_small(fv z) {
  const fv z2 = z * z;
  fv p = splat(kAsinTaylor.c[12]);
  for (int n = 11; n >= 0; --n) p = p * z2 + splat(kAsinTaylor.c[n]);
  return p * z;
}

// acos on [0, 1]: pi/2 - asin(d) below 0.5, 2 asin(sqrt((1 - d) / 2)) above (1 - d is exact
// there, so the result keeps float accuracy).
inline fv acos_poly(fv d) {
  const iv low = d < splat(0.5f);
  const fv a = asin_small(vselect(low, d, vsqrt((splat(1.0f) - d) * splat(0.5f))));
  return vselect(low, splat(1.5707963267948966f) - a, splat(2.0f) * a);
}

inline fv normalized_scale(fv len2) {
  // 1 / sqrt(len2), 0 for a zero vector.
  return vselect(len2 > splat(0.0f), splat(1.0f) / vsqrt(len2), splat(0.0f));
}

#if VATKIT_RIG_LANES == 16
// A 4x4 transpose in each 128-bit quarter of four registers (transpose_halves, 16 lanes wide).
inline void transpose_quarters(__m512 (&r)[4]) {
  // The maskz forms with every lane set: GCC 12 warns on the plain forms' undefined source.
  const __m512 t0 = _mm512_maskz_unpacklo_ps(0xFFFF, r[0], r[1]), t1 = _mm512_maskz_unpackhi_ps(0xFFFF, r[0], r[1]);
  const __m512 t2 = _mm512_maskz_unpacklo_ps(0xFFFF, r[2], r[3]), t3 = _mm512_maskz_unpackhi_ps(0xFFFF, r[2], r[3]);
  r[0] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  r[1] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  r[2] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  r[3] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}
#endif
#if VATKIT_RIG_LANES == 8 || VATKIT_RIG_LANES == 16
// A 4x4 transpose in each 128-bit half of four registers, in registers (building or taking apart
// 8-lane vectors through memory, 16 bytes at a time, stalls: a 32-byte load is not forwarded from
// two 16-byte stores, nor the reverse).
inline void transpose_halves(__m256 (&r)[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  r[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  r[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  r[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  r[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}
#endif

// Lane i's (x, y, z, w) to dst[4 * (first + i * stride) ...], for the first `valid` lanes.
inline void store_lanes(fv x, fv y, fv z, fv w, float* dst, size_t first, size_t stride, uint32_t valid) {
#if VATKIT_RIG_LANES == 16
  // Lanes i, i + 4, i + 8 and i + 12 of each row end up in one register.
  __m512 r[4] = {(__m512)x, (__m512)y, (__m512)z, (__m512)w};
  transpose_quarters(r);
  for (uint32_t i = 0; i < 4 && i < valid; ++i)
    _mm_storeu_ps(dst + 4 * (first + i * stride), _mm512_maskz_extractf32x4_ps(0xF, r[i], 0));
  for (uint32_t i = 4; i < 8 && i < valid; ++i)
    _mm_storeu_ps(dst + 4 * (first + i * stride), _mm512_maskz_extractf32x4_ps(0xF, r[i - 4], 1));
  for (uint32_t i = 8; i < 12 && i < valid; ++i)
    _mm_storeu_ps(dst + 4 * (first + i * stride), _mm512_maskz_extractf32x4_ps(0xF, r[i - 8], 2));
  for (uint32_t i = 12; i < 16 && i < valid; ++i)
    _mm_storeu_ps(dst + 4 * (first + i * stride), _mm512_maskz_extractf32x4_ps(0xF, r[i - 12], 3));
#elif VATKIT_RIG_LANES == 8
  // Lanes i and i + 4 of each row end up in one register.
  __m256 r[4] = {(__m256)x, (__m256)y, (__m256)z, (__m256)w};
  transpose_halves(r);
  for (uint32_t i = 0; i < 4 && i < valid; ++i)
    _mm_storeu_ps(dst + 4 * (first + i * stride), _mm256_castps256_ps128(r[i]));
  for (uint32_t i = 4; i < 8 && i < valid; ++i) {
    _mm_storeu_ps(dst + 4 * (first + i * stride), _mm256_extractf128_ps(r[i - 4], 1));
  }
#elif VATKIT_RIG_LANES == 4 && defined(__SSE__)
  for (uint32_t h = 0; h < uint32_t(N) && h < valid; h += 4) {
    __m128 r0, r1, r2, r3;
    __builtin_memcpy(&r0, reinterpret_cast<const float*>(&x) + h, 16);
    __builtin_memcpy(&r1, reinterpret_cast<const float*>(&y) + h, 16);
    __builtin_memcpy(&r2, reinterpret_cast<const float*>(&z) + h, 16);
    __builtin_memcpy(&r3, reinterpret_cast<const float*>(&w) + h, 16);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    const __m128 rows[4] = {r0, r1, r2, r3};
    for (uint32_t i = 0; i < 4 && h + i < valid; ++i) _mm_storeu_ps(dst + 4 * (first + (h + i) * stride), rows[i]);
  }
#else
  for (uint32_t i = 0; i < valid; ++i) {
    float* d = dst + 4 * (first + i * stride);
    d[0] = x[i];
    d[1] = y[i];
    d[2] = z[i];
    d[3] = w[i];
  }
#endif
}

// ---- sampling ---------------------------------------------------------------------------------

struct Lanes {
  uint32_t k0[N], k1[N];
  fv u;  // where each lane's time falls in its key interval (0 where a lane holds a key)
  fv d;  // key interval length (cubic)
};

// The reference's key location, per lane (times increase along the lanes). `carried` is a key
// interval at or before the first lane's time (from the previous block), or ~0u: search.
inline void locate_lanes(const Sampler& s, const float* t, Lanes& out, uint32_t& carried) {
  const uint32_t n = uint32_t(s.times.size());
  const float* tk = s.times.data();
  uint32_t cursor = carried == ~0u ? 0u : carried;
  bool searched = carried != ~0u;
  alignas(sizeof(fv)) float t0[N], t1[N];
  iv held = isplat(0);
  for (int i = 0; i < N; ++i) {
    const float x = t[i];
    if (n == 1 || !(x > tk[0]) || x >= tk[n - 1]) {
      const uint32_t k = (n == 1 || !(x > tk[0])) ? 0 : n - 1;
      out.k0[i] = out.k1[i] = k;
      t0[i] = t1[i] = x;  // u = 0 below
      held[i] = -1;
      continue;
    }
    if (!searched) {
      // Largest k in [0, n - 2] with tk[k] <= x (the reference's branchless search).
      const float* base = tk;
      uint32_t len = n - 1;
      while (len > 1) {
        const uint32_t half = len / 2;
        base = (base[half] <= x) ? base + half : base;
        len -= half;
      }
      cursor = uint32_t(base - tk);
      searched = true;
    } else {
      // From a carried cursor or the previous lane: walk forward (rows are denser than keys, or
      // nearly so), searching only when far behind.
      if (cursor + 8 < n && tk[cursor + 8] <= x) {
        const float* base = tk + cursor;
        uint32_t len = n - 1 - cursor;
        while (len > 1) {
          const uint32_t half = len / 2;
          base = (base[half] <= x) ? base + half : base;
          len -= half;
        }
        cursor = uint32_t(base - tk);
      }
      while (cursor + 2 < n && tk[cursor + 1] <= x) ++cursor;
    }
    out.k0[i] = cursor;
    out.k1[i] = cursor + 1;
    t0[i] = tk[cursor];
    t1[i] = tk[cursor + 1];
  }
  carried = cursor;
  // u = (t - t_k) / (t_k+1 - t_k), the reference's formula, every lane in one division.
  const fv x = load(t), a = load(t0), b = load(t1);
  out.d = vselect(held, splat(0.0f), b - a);
  out.u = vselect(held, splat(0.0f), (x - a) / vselect(held, splat(1.0f), b - a));
}

// Keys k[0..N) of a rotation sampler's values (4 floats each), as lanes.
inline Q4 gather_quat(const float* v, const uint32_t* k) {
  Q4 q;
#if VATKIT_RIG_LANES == 16
  // Keys of lanes i, i + 4, i + 8 and i + 12 in one register, transposed.
  __m512 r[4];
  for (int i = 0; i < 4; ++i) {
    __m512 x = _mm512_castps128_ps512(_mm_loadu_ps(v + 4 * size_t(k[i])));
    x = _mm512_insertf32x4(x, _mm_loadu_ps(v + 4 * size_t(k[i + 4])), 1);
    x = _mm512_insertf32x4(x, _mm_loadu_ps(v + 4 * size_t(k[i + 8])), 2);
    r[i] = _mm512_insertf32x4(x, _mm_loadu_ps(v + 4 * size_t(k[i + 12])), 3);
  }
  transpose_quarters(r);
  q.x = (fv)r[0];
  q.y = (fv)r[1];
  q.z = (fv)r[2];
  q.w = (fv)r[3];
#elif VATKIT_RIG_LANES == 8
  // Keys of lanes i and i + 4 in one register, transposed.
  __m256 r[4];
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v + 4 * size_t(k[i]))),
                                _mm_loadu_ps(v + 4 * size_t(k[i + 4])), 1);
  }
  transpose_halves(r);
  q.x = (fv)r[0];
  q.y = (fv)r[1];
  q.z = (fv)r[2];
  q.w = (fv)r[3];
#elif VATKIT_RIG_LANES == 4 && defined(__SSE__)
  __m128 r0 = _mm_loadu_ps(v + 4 * size_t(k[0])), r1 = _mm_loadu_ps(v + 4 * size_t(k[1]));
  __m128 r2 = _mm_loadu_ps(v + 4 * size_t(k[2])), r3 = _mm_loadu_ps(v + 4 * size_t(k[3]));
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  q.x = (fv)r0;
  q.y = (fv)r1;
  q.z = (fv)r2;
  q.w = (fv)r3;
#else
  for (int i = 0; i < N; ++i) {
    q.x[i] = v[4 * size_t(k[i])];
    q.y[i] = v[4 * size_t(k[i]) + 1];
    q.z[i] = v[4 * size_t(k[i]) + 2];
    q.w[i] = v[4 * size_t(k[i]) + 3];
  }
#endif
  return q;
}

// Component c of element `e` (in elements of `nc` floats) of each lane.
inline fv gather(const float* v, const uint32_t* e, uint32_t nc, uint32_t c) {
  fv r;
  for (int i = 0; i < N; ++i) r[i] = v[size_t(e[i]) * nc + c];
  return r;
}

inline Q4 normalize_q(const Q4& q) {
  const fv len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  const fv inv = splat(1.0f) / vsqrt(len2);
  const iv ok = len2 > splat(0.0f);
  return {vselect(ok, q.x * inv, q.x), vselect(ok, q.y * inv, q.y), vselect(ok, q.z * inv, q.z),
          vselect(ok, q.w * inv, q.w)};
}

// CUBICSPLINE between keys k0 and k1 of every lane: the elements (in-tangent, value, out-tangent
// per key) and the Hermite basis with the tangents scaled by the key interval d.
struct Hermite {
  uint32_t vk[N], bk[N], ak1[N], vk1[N];  // value k0, out-tangent k0, in-tangent k1, value k1
  fv h00, h10, h01, h11;

  explicit Hermite(const Lanes& l) {
    for (int i = 0; i < N; ++i) {
      vk[i] = 3 * l.k0[i] + 1;
      bk[i] = 3 * l.k0[i] + 2;
      ak1[i] = 3 * l.k1[i];
      vk1[i] = 3 * l.k1[i] + 1;
    }
    const fv u = l.u, d = l.d;
    const fv u2 = u * u, u3 = u2 * u;
    h00 = splat(2.0f) * u3 - splat(3.0f) * u2 + splat(1.0f);
    h10 = (u3 - splat(2.0f) * u2 + u) * d;
    h01 = splat(-2.0f) * u3 + splat(3.0f) * u2;
    h11 = (u3 - u2) * d;
  }
  // Component c of an nc-component output.
  fv eval(const float* v, uint32_t nc, uint32_t c) const {
    return h00 * gather(v, vk, nc, c) + h10 * gather(v, bk, nc, c) + h01 * gather(v, vk1, nc, c) +
           h11 * gather(v, ak1, nc, c);
  }
};

#if VATKIT_RIG_LANES == 8 || VATKIT_RIG_LANES == 16
// Eight lanes' keys k[i] and k[i] + 1 of a 3-component channel, each lane's pair read as one
// 8-float load: out[0..2] the x, y, z of the keys k, out[3..5] those of the keys after them.
inline void key_pairs8(const float* v, const uint32_t* k, __m256 (&out)[6]) {
  __m256 lo[4], hi[4];
  for (int i = 0; i < 4; ++i) {
    lo[i] = _mm256_loadu_ps(v + 3 * size_t(k[i]));
    hi[i] = _mm256_loadu_ps(v + 3 * size_t(k[i + 4]));
  }
  transpose_halves(lo);  // lo[j]: component j (low half) and j + 4 (high half) of lanes 0..3
  transpose_halves(hi);
  out[0] = _mm256_permute2f128_ps(lo[0], hi[0], 0x20);
  out[1] = _mm256_permute2f128_ps(lo[1], hi[1], 0x20);
  out[2] = _mm256_permute2f128_ps(lo[2], hi[2], 0x20);
  out[3] = _mm256_permute2f128_ps(lo[3], hi[3], 0x20);
  out[4] = _mm256_permute2f128_ps(lo[0], hi[0], 0x31);
  out[5] = _mm256_permute2f128_ps(lo[1], hi[1], 0x31);
}
#endif

inline void sample_vec3(const Sampler& s, const Lanes& l, V3& out) {
  const float* v = s.values.data();
  if (s.interpolation == Interpolation::CubicSpline) {
    const Hermite h(l);
    out = {h.eval(v, 3, 0), h.eval(v, 3, 1), h.eval(v, 3, 2)};
    return;
  }
  const bool step = s.interpolation == Interpolation::Step;
  const fv u = step ? splat(0.0f) : l.u;
#if VATKIT_RIG_LANES == 8 || VATKIT_RIG_LANES == 16
  // Each lane's key k0 and the one after it in one 8-float load (x0 y0 z0 x1 y1 z1 . .), the
  // loads transposed in registers eight lanes at a time, where every lane's load stays inside the
  // values (keys increase along the lanes: the last lane's is the furthest); a gather of single
  // floats otherwise. A lane holding a key (k1 = k0) or a STEP channel takes b = a, as below.
  if (3 * size_t(l.k0[N - 1]) + 8 <= s.values.size()) {
    V3 a, b;
#if VATKIT_RIG_LANES == 16
    __m256 h0[6], h1[6];
    key_pairs8(v, l.k0, h0);
    key_pairs8(v, l.k0 + 8, h1);
    fv* o[6] = {&a.x, &a.y, &a.z, &b.x, &b.y, &b.z};
    for (int j = 0; j < 6; ++j) *o[j] = (fv)_mm512_insertf32x8(_mm512_castps256_ps512(h0[j]), h1[j], 1);
#else
    __m256 h[6];
    key_pairs8(v, l.k0, h);
    a = {(fv)h[0], (fv)h[1], (fv)h[2]};
    b = {(fv)h[3], (fv)h[4], (fv)h[5]};
#endif
    if (step) {
      b = a;
    } else {
      iv k0, k1;
      __builtin_memcpy(&k0, l.k0, sizeof k0);
      __builtin_memcpy(&k1, l.k1, sizeof k1);
      const iv held = k0 == k1;
      b = {vselect(held, a.x, b.x), vselect(held, a.y, b.y), vselect(held, a.z, b.z)};
    }
    out = {a.x + u * (b.x - a.x), a.y + u * (b.y - a.y), a.z + u * (b.z - a.z)};
    return;
  }
#endif
  const uint32_t* k1 = step ? l.k0 : l.k1;
  fv* o[3] = {&out.x, &out.y, &out.z};
  for (uint32_t c = 0; c < 3; ++c) {
    const fv a = gather(v, l.k0, 3, c), b = gather(v, k1, 3, c);
    *o[c] = a + u * (b - a);
  }
}

inline void sample_rotation(const Sampler& s, const Lanes& l, Q4& out) {
  const float* v = s.values.data();
  if (s.interpolation == Interpolation::CubicSpline) {
    const Hermite h(l);
    out = normalize_q({h.eval(v, 4, 0), h.eval(v, 4, 1), h.eval(v, 4, 2), h.eval(v, 4, 3)});
    return;
  }
  const bool step = s.interpolation == Interpolation::Step;
  const Q4 a = gather_quat(v, l.k0);
  if (step) {
    out = normalize_q(a);
    return;
  }
  const Q4 b = gather_quat(v, l.k1);
  const fv u = l.u;
  // The reference's slerp (sample.cpp): keys within 2e-6 of unit length are taken as unit.
  const fv la2 = a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w;
  const fv lb2 = b.x * b.x + b.y * b.y + b.z * b.z + b.w * b.w;
  const fv one = splat(1.0f);
  // Each lane takes one of two values below; a value no lane takes is not computed (keys stored
  // unit length, and keys a few degrees apart, are the common case). Lanes never mix, so this
  // changes no lane's bits, only the work.
  const iv a_unit = vabs(la2 - one) <= splat(2e-6f), b_unit = vabs(lb2 - one) <= splat(2e-6f);
  const fv ia = any(~a_unit) ? vselect(a_unit, one, normalized_scale(la2)) : one;
  fv ib = any(~b_unit) ? vselect(b_unit, one, normalized_scale(lb2)) : one;
  fv d = (a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w) * (ia * ib);
  const iv neg = d < splat(0.0f);
  d = vselect(neg, -d, d);
  ib = vselect(neg, -ib, ib);
  const iv near = d > splat(0.9995f);
  // Nearly parallel: normalized lerp.
  Q4 qn{};
  if (any(near)) {
    const fv wan = (one - u) * ia, wbn = u * ib;
    qn = normalize_q({wan * a.x + wbn * b.x, wan * a.y + wbn * b.y, wan * a.z + wbn * b.z, wan * a.w + wbn * b.w});
    if (!any(~near)) {
      out = qn;
      return;
    }
  }
  // Otherwise the spec's weights: wb = sin(u theta) / sin(theta), wa = cos(u theta) - cos(theta) wb.
  const fv dc = vselect(near, splat(0.5f), d);  // keeps the unused lanes finite
  const fv theta = acos_poly(dc);
  const fv inv_sin = one / vsqrt(one - dc * dc);
  const fv ut = u * theta;
  const fv sb = sin_poly(ut) * inv_sin;
  const fv wa = (cos_poly(ut) - dc * sb) * ia, wb = sb * ib;
  out.x = vselect(near, qn.x, wa * a.x + wb * b.x);
  out.y = vselect(near, qn.y, wa * a.y + wb * b.y);
  out.z = vselect(near, qn.z, wa * a.z + wb * b.z);
  out.w = vselect(near, qn.w, wa * a.w + wb * b.w);
}

// compute_world_matrices' local matrix: T * R(normalized q) * S.
inline A4 local_affine(const V3& t, const Q4& q_in, const V3& s) {
  const fv len2 = q_in.x * q_in.x + q_in.y * q_in.y + q_in.z * q_in.z + q_in.w * q_in.w;
  const iv ok = len2 > splat(0.0f);
  const fv inv = splat(1.0f) / vsqrt(len2);
  const fv x = vselect(ok, q_in.x * inv, splat(0.0f)), y = vselect(ok, q_in.y * inv, splat(0.0f));
  const fv z = vselect(ok, q_in.z * inv, splat(0.0f)), w = vselect(ok, q_in.w * inv, splat(1.0f));
  const fv one = splat(1.0f), two = splat(2.0f);
  A4 m;
  m.c[0] = {(one - two * (y * y + z * z)) * s.x, two * (x * y + z * w) * s.x, two * (x * z - y * w) * s.x};
  m.c[1] = {two * (x * y - z * w) * s.y, (one - two * (x * x + z * z)) * s.y, two * (y * z + x * w) * s.y};
  m.c[2] = {two * (x * z + y * w) * s.z, two * (y * z - x * w) * s.z, (one - two * (x * x + y * y)) * s.z};
  m.c[3] = t;
  return m;
}

// local_affine of one TRS, as every lane computes it: for nodes a clip does not sample.
inline AffineScalar local_affine_once(const float* t, const float* q, const float* s) {
  const A4 m = local_affine(splat3(t), Q4{splat(q[0]), splat(q[1]), splat(q[2]), splat(q[3])}, splat3(s));
  AffineScalar r;
  for (int j = 0; j < 4; ++j) {
    r.c[j][0] = m.c[j].x[0];
    r.c[j][1] = m.c[j].y[0];
    r.c[j][2] = m.c[j].z[0];
  }
  return r;
}

// ---- one block --------------------------------------------------------------------------------

// The scratch's lane arrays, carved from its aligned memory.
struct Work {
  V3* t;
  V3* s;
  Q4* q;
  A4* world;
  Lanes* lanes;
};
inline Work carve(KernelScratchMemory& mem, size_t nodes, size_t groups) {
  const size_t bytes = nodes * (2 * sizeof(V3) + sizeof(Q4) + sizeof(A4)) + groups * sizeof(Lanes);
  float* p = mem.reserve(bytes);
  Work w;
  w.t = reinterpret_cast<V3*>(p);
  w.s = w.t + nodes;
  w.q = reinterpret_cast<Q4*>(w.s + nodes);
  w.world = reinterpret_cast<A4*>(w.q + nodes);
  w.lanes = reinterpret_cast<Lanes*>(w.world + nodes);
  return w;
}

// Hot kernel, measured (docs/benchmarks.md), kept whole: its stages share the lanes' registers.
// Rows [k0, k0 + N) of clip `clip` into the stage (rows of `stride4` 4-float units, slot s's
// rotation at unit 2s and translation-scale at 2s + 1) from row stage_row + k0, and results[k].
void run_block(const KernelData& m, uint32_t clip, uint32_t k0, KernelScratchMemory& sc, float* stage, size_t stride4,
               uint32_t stage_row, RigRowResult* results, float tolerance) {
  const KernelClip& cs = m.clips[clip];
  const uint32_t rows = cs.plan->rows;
  alignas(sizeof(fv)) float t[N];
  for (uint32_t i = 0; i < uint32_t(N); ++i) t[i] = row_time(*cs.plan, k0 + i < rows ? k0 + i : rows - 1);
  Work w = carve(sc, m.node_count, cs.group_count);

  // Rest pose, then the clip's channels.
  for (size_t n = 0; n < m.node_count; ++n) {
    const KernelNode& node = m.nodes[n];
    w.t[n] = splat3(node.t);
    w.s[n] = splat3(node.s);
    w.q[n] = {splat(node.q[0]), splat(node.q[1]), splat(node.q[2]), splat(node.q[3])};
  }
  for (size_t i = 0; i < cs.constant_count; ++i) {
    const KernelConstant& c = cs.constants[i];
    switch (c.path) {
      case Path::Translation: w.t[c.node] = splat3(c.value); break;
      case Path::Scale: w.s[c.node] = splat3(c.value); break;
      case Path::Rotation:
        w.q[c.node] = {splat(c.value[0]), splat(c.value[1]), splat(c.value[2]), splat(c.value[3])};
        break;
      case Path::Weights: break;
    }
  }
  // Key location once per times array; cursors carry over when this scratch sampled the block
  // just before, in this clip.
  uint32_t* cursors = sc.cursors_for(clip, k0, uint32_t(N), cs.group_count);
  for (size_t g = 0; g < cs.group_count; ++g) locate_lanes(*cs.time_owners[g], t, w.lanes[g], cursors[g]);
  for (size_t ci = 0; ci < cs.channel_count; ++ci) {
    const KernelChannel& ch = cs.channels[ci];
    const Lanes& lanes = w.lanes[ch.times];
    switch (ch.path) {
      case Path::Translation: sample_vec3(*ch.sampler, lanes, w.t[ch.node]); break;
      case Path::Scale: sample_vec3(*ch.sampler, lanes, w.s[ch.node]); break;
      case Path::Rotation: sample_rotation(*ch.sampler, lanes, w.q[ch.node]); break;
      case Path::Weights: break;
    }
  }
  // World matrices, parents first.
  for (size_t n = 0; n < m.node_count; ++n) {
    const KernelNode& info = m.nodes[n];
    const A4 local = info.fixed       ? splat_affine(info.matrix)
                     : !cs.sampled[n] ? splat_affine(cs.local[n])
                                      : local_affine(w.t[n], w.q[n], w.s[n]);
    w.world[n] = info.parent >= 0 ? mul(w.world[size_t(info.parent)], local) : local;
  }

  const fv big = splat(__FLT_MAX__);
  V3 bmin{big, big, big}, bmax{-big, -big, -big};
  fv max_delta = splat(0.0f);
  fv worst = splat(0.0f);
  iv worst_slot = isplat(0);
  const fv tol = splat(tolerance);
  const uint32_t S = uint32_t(m.slot_count);
  const uint32_t valid = rows - k0 < uint32_t(N) ? rows - k0 : uint32_t(N);
  for (uint32_t si = 0; si < S; ++si) {
    const KernelSlot& slot = m.slots[si];
    const A4 a = slot.identity ? w.world[slot.node] : mul(w.world[slot.node], splat_affine(slot.inverse_bind));
    // Similarity fit: s = sign(det) * mean column length, R = A / s, Shepperd's quaternion.
    const fv l0 = vsqrt(dot(a.c[0], a.c[0])), l1 = vsqrt(dot(a.c[1], a.c[1])), l2 = vsqrt(dot(a.c[2], a.c[2]));
    const fv lmax = vmax(l0, vmax(l1, l2)), lmin = vmin(l0, vmin(l1, l2));
    const fv det = dot(a.c[0], cross(a.c[1], a.c[2]));
    const fv zero = splat(0.0f), one = splat(1.0f);
    const iv degenerate = ~(vabs(det) > zero);
    // The similarity check without divisions: spread lmax - lmin > tol * lmax, or
    // |a_i . a_j| > tol * l_i * l_j; the magnitudes (for picking a row's worst slot) only where a
    // lane fails, which a bakeable rig never does.
    const fv d01 = vabs(dot(a.c[0], a.c[1])), d12 = vabs(dot(a.c[1], a.c[2])), d20 = vabs(dot(a.c[2], a.c[0]));
    const iv fails = ((lmax - lmin) > tol * lmax) | (d01 > tol * (l0 * l1)) | (d12 > tol * (l1 * l2)) |
                     (d20 > tol * (l2 * l0)) | (degenerate & (lmax > zero));
    if (any(fails)) [[unlikely]] {
      fv nonuniform = vselect(lmax > zero, (lmax - lmin) / lmax, zero);
      nonuniform = vselect(degenerate & (lmax > zero), one, nonuniform);
      const fv shear = vselect(lmin > zero, vmax(d01 / (l0 * l1), vmax(d12 / (l1 * l2), d20 / (l2 * l0))), zero);
      const fv bad = vmax(nonuniform, shear);
      const iv over = fails & (bad > tol) & (bad > worst);
      worst = vselect(over, bad, worst);
      worst_slot = (over & isplat(int32_t(si))) | (~over & worst_slot);
    }

    const fv mean = (l0 + l1 + l2) * splat(1.0f / 3.0f);
    const fv s = vselect(degenerate, zero, vselect(det < zero, -mean, mean));
    const fv inv = vselect(degenerate, zero, one / s);
    const fv r00 = a.c[0].x * inv, r10 = a.c[0].y * inv, r20 = a.c[0].z * inv;
    const fv r01 = a.c[1].x * inv, r11 = a.c[1].y * inv, r21 = a.c[1].z * inv;
    const fv r02 = a.c[2].x * inv, r12 = a.c[2].y * inv, r22 = a.c[2].z * inv;
    const fv tr = r00 + r11 + r22;
    // Pick the largest of 4w^2 - 1 = tr, 4x^2 - 1 = 2 r00 - tr, ... (one square root per lane).
    const fv cx = r00 - r11 - r22, cy = r11 - r00 - r22, cz = r22 - r00 - r11;
    const iv use_w = (tr >= cx) & (tr >= cy) & (tr >= cz);
    const iv use_x = ~use_w & (cx >= cy) & (cx >= cz);
    const iv use_y = ~use_w & ~use_x & (cy >= cz);
    // With r = sqrt(1 + big4), the quaternion is p / (2 r) where p has r^2 = 1 + big4 in the
    // largest component and the sums and differences of opposite entries in the others; it is
    // normalized anyway, so p is normalized directly (one square root and division per lane, not
    // two).
    const fv big4 = vmax(one + vselect(use_w, tr, vselect(use_x, cx, vselect(use_y, cy, cz))), splat(1e-30f));
    const fv w_x = r21 - r12, w_y = r02 - r20, w_z = r10 - r01;  // 4 w (x, y, z), over 2 r
    const fv xy = r01 + r10, xz = r02 + r20, yz = r12 + r21;
    Q4 q;
    q.w = vselect(use_w, big4, vselect(use_x, w_x, vselect(use_y, w_y, w_z)));
    q.x = vselect(use_w, w_x, vselect(use_x, big4, vselect(use_y, xy, xz)));
    q.y = vselect(use_w, w_y, vselect(use_x, xy, vselect(use_y, big4, yz)));
    q.z = vselect(use_w, w_z, vselect(use_x, xz, vselect(use_y, yz, big4)));
    q = normalize_q(q);
    q.x = vselect(degenerate, zero, q.x);
    q.y = vselect(degenerate, zero, q.y);
    q.z = vselect(degenerate, zero, q.z);
    q.w = vselect(degenerate, one, q.w);
    const size_t at = size_t(stage_row + k0) * stride4 + 2 * size_t(si);
    store_lanes(q.x, q.y, q.z, q.w, stage, at, stride4, valid);
    store_lanes(a.c[3].x, a.c[3].y, a.c[3].z, s, stage, at + 1, stride4, valid);
    if (!slot.box) continue;
    // The slot's box, moved; and how far it can have moved from the rest pose.
    const V3 center = splat3(slot.center), extent = splat3(slot.extent);
    const V3 c = a.c[0] * center.x + a.c[1] * center.y + a.c[2] * center.z + a.c[3];
    const V3 e{vabs(a.c[0].x) * extent.x + vabs(a.c[1].x) * extent.y + vabs(a.c[2].x) * extent.z,
               vabs(a.c[0].y) * extent.x + vabs(a.c[1].y) * extent.y + vabs(a.c[2].y) * extent.z,
               vabs(a.c[0].z) * extent.x + vabs(a.c[1].z) * extent.y + vabs(a.c[2].z) * extent.z};
    bmin = {vmin(bmin.x, c.x - e.x), vmin(bmin.y, c.y - e.y), vmin(bmin.z, c.z - e.z)};
    bmax = {vmax(bmax.x, c.x + e.x), vmax(bmax.y, c.y + e.y), vmax(bmax.z, c.z + e.z)};
    const A4 rest = splat_affine(slot.rest);
    const V3 d0 = a.c[0] - rest.c[0], d1 = a.c[1] - rest.c[1], d2 = a.c[2] - rest.c[2];
    const V3 dc = d0 * center.x + d1 * center.y + d2 * center.z + (a.c[3] - rest.c[3]);
    // |(M - M0) b| <= |(M - M0) c| + ||A - A0||_F |e| for b in the box (Cauchy-Schwarz).
    const fv bound = vsqrt(dot(dc, dc)) + vsqrt(dot(d0, d0) + dot(d1, d1) + dot(d2, d2)) * splat(slot.extent_len) +
                     splat(slot.morph_term);
    max_delta = vmax(max_delta, bound);
  }
  for (uint32_t i = 0; i < valid; ++i) {
    RigRowResult& r = results[k0 + i];
    r.any_box = bmin.x[i] <= bmax.x[i];
    r.bmin = {bmin.x[i], bmin.y[i], bmin.z[i]};
    r.bmax = {bmax.x[i], bmax.y[i], bmax.z[i]};
    r.max_delta = max_delta[i];
    r.scale_violation = worst[i];
    r.scale_slot = uint32_t(worst_slot[i]);
  }
}

// See bake_rig_kernel.h. Lane type: GCC/Clang vector extensions (SSE on x86-64, plain scalar
// code elsewhere); every lane runs the same operations in the same order.
//
// Sampling follows sample.cpp's rules to the letter (key location, hold outside the keys, the
// spec's slerp with the nlerp fallback at dot > 0.9995, Hermite splines), with sin, cos and acos
// evaluated by polynomials accurate to a few 1e-8 on the ranges slerp uses: rotations differ from
// the reference sampler's by float rounding, not by method.
#include "bake_rig_kernel.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include "bake_codec.h"
#include "vatkit/sample.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace vatkit::detail {
namespace {

typedef float f4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));

inline f4 splat(float x) { return f4{x, x, x, x}; }
inline f4 vselect(i4 m, f4 a, f4 b) { return (f4)((m & (i4)a) | (~m & (i4)b)); }
inline f4 vabs(f4 x) { return (f4)((i4)x & i4{0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff}); }
inline f4 vmin(f4 a, f4 b) { return vselect(a < b, a, b); }
inline f4 vmax(f4 a, f4 b) { return vselect(a > b, a, b); }
inline f4 vsqrt(f4 x) {
#if defined(__SSE__)
  return (f4)_mm_sqrt_ps((__m128)x);
#else
  return f4{std::sqrt(x[0]), std::sqrt(x[1]), std::sqrt(x[2]), std::sqrt(x[3])};
#endif
}

struct V3 {
  f4 x, y, z;
};
inline V3 operator+(const V3& a, const V3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline V3 operator-(const V3& a, const V3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 operator*(const V3& a, f4 s) { return {a.x * s, a.y * s, a.z * s}; }
inline f4 dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline V3 splat3(const glm::vec3& v) { return {splat(v.x), splat(v.y), splat(v.z)}; }

struct Q4 {
  f4 x, y, z, w;
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

A4 splat_affine(const glm::mat4& m) {
  A4 r;
  for (int j = 0; j < 4; ++j) r.c[j] = splat3(glm::vec3(m[j]));
  return r;
}

// ---- polynomials ------------------------------------------------------------------------------

// sin and cos on [0, pi/2] (Taylor to x^11 and x^12: errors below 6e-8 and 7e-9 there).
inline f4 sin_poly(f4 x) {
  const f4 x2 = x * x;
  f4 p = splat(-1.0f / 39916800.0f);
  p = p * x2 + splat(1.0f / 362880.0f);
  p = p * x2 + splat(-1.0f / 5040.0f);
  p = p * x2 + splat(1.0f / 120.0f);
  p = p * x2 + splat(-1.0f / 6.0f);
  p = p * x2 + splat(1.0f);
  return p * x;
}
inline f4 cos_poly(f4 x) {
  const f4 x2 = x * x;
  f4 p = splat(1.0f / 479001600.0f);
  p = p * x2 + splat(-1.0f / 3628800.0f);
  p = p * x2 + splat(1.0f / 40320.0f);
  p = p * x2 + splat(-1.0f / 720.0f);
  p = p * x2 + splat(1.0f / 24.0f);
  p = p * x2 + splat(-1.0f / 2.0f);
  p = p * x2 + splat(1.0f);
  return p;
}

// asin on [0, 0.5]: the Taylor series to z^25 (remainder below 1e-9 there).
struct AsinCoefficients {
  float c[13];
  AsinCoefficients() {
    double coef = 1.0;  // (2n)! / (4^n (n!)^2)
    for (int n = 0; n < 13; ++n) {
      c[n] = float(coef / double(2 * n + 1));
      coef *= double(2 * n + 1) / double(2 * n + 2);
    }
  }
};
const AsinCoefficients kAsin;

inline f4 asin_small(f4 z) {
  const f4 z2 = z * z;
  f4 p = splat(kAsin.c[12]);
  for (int n = 11; n >= 0; --n) p = p * z2 + splat(kAsin.c[n]);
  return p * z;
}

// acos on [0, 1]: pi/2 - asin(d) below 0.5, 2 asin(sqrt((1 - d) / 2)) above (1 - d is exact
// there, so the result keeps float accuracy).
inline f4 acos_poly(f4 d) {
  const i4 low = d < splat(0.5f);
  const f4 a = asin_small(vselect(low, d, vsqrt((splat(1.0f) - d) * splat(0.5f))));
  return vselect(low, splat(1.5707963267948966f) - a, splat(2.0f) * a);
}

inline f4 normalized_scale(f4 len2) {
  // 1 / sqrt(len2), 0 for a zero vector.
  return vselect(len2 > splat(0.0f), splat(1.0f) / vsqrt(len2), splat(0.0f));
}

// Lane i's (x, y, z, w) to dst[4 * (first + i * stride) ...], for the first `valid` lanes.
inline void store_lanes(f4 x, f4 y, f4 z, f4 w, float* dst, size_t first, size_t stride, uint32_t valid) {
#if defined(__SSE__)
  __m128 r0 = (__m128)x, r1 = (__m128)y, r2 = (__m128)z, r3 = (__m128)w;
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  const __m128 rows[4] = {r0, r1, r2, r3};
  for (uint32_t i = 0; i < valid; ++i) _mm_storeu_ps(dst + 4 * (first + i * stride), rows[i]);
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
  uint32_t k0[4], k1[4];
  f4 u;  // where each lane's time falls in its key interval (0 where a lane holds a key)
  f4 d;  // key interval length (cubic)
};

// The reference's key location, per lane (times increase along the lanes). `cursor` is a key
// interval at or before the first lane's time (from the previous block), or ~0u: search.
inline void locate_lanes(const Sampler& s, const float* t, Lanes& out, uint32_t& carried) {
  const uint32_t n = uint32_t(s.times.size());
  const float* tk = s.times.data();
  uint32_t cursor = carried == ~0u ? 0u : carried;
  bool searched = carried != ~0u;
  alignas(16) float t0[4], t1[4];
  int hold = 0;
  for (int i = 0; i < 4; ++i) {
    const float x = t[i];
    if (n == 1 || !(x > tk[0]) || x >= tk[n - 1]) {
      const uint32_t k = (n == 1 || !(x > tk[0])) ? 0 : n - 1;
      out.k0[i] = out.k1[i] = k;
      t0[i] = t1[i] = x;  // u = 0 below
      hold |= 1 << i;
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
  // u = (t - t_k) / (t_k+1 - t_k), the reference's formula, four lanes in one division.
  const f4 x = f4{t[0], t[1], t[2], t[3]};
  const f4 a = f4{t0[0], t0[1], t0[2], t0[3]}, b = f4{t1[0], t1[1], t1[2], t1[3]};
  const i4 held = i4{hold & 1 ? -1 : 0, hold & 2 ? -1 : 0, hold & 4 ? -1 : 0, hold & 8 ? -1 : 0};
  out.d = vselect(held, splat(0.0f), b - a);
  out.u = vselect(held, splat(0.0f), (x - a) / vselect(held, splat(1.0f), b - a));
}

// Keys k[0..3] of a rotation sampler's values (4 floats each), as lanes.
inline Q4 gather_quat(const float* v, const uint32_t* k) {
#if defined(__SSE__)
  __m128 r0 = _mm_loadu_ps(v + 4 * size_t(k[0])), r1 = _mm_loadu_ps(v + 4 * size_t(k[1]));
  __m128 r2 = _mm_loadu_ps(v + 4 * size_t(k[2])), r3 = _mm_loadu_ps(v + 4 * size_t(k[3]));
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  return {(f4)r0, (f4)r1, (f4)r2, (f4)r3};
#else
  Q4 q;
  for (int i = 0; i < 4; ++i) {
    q.x[i] = v[4 * size_t(k[i])];
    q.y[i] = v[4 * size_t(k[i]) + 1];
    q.z[i] = v[4 * size_t(k[i]) + 2];
    q.w[i] = v[4 * size_t(k[i]) + 3];
  }
  return q;
#endif
}

// Component c of element `e` (in elements of `nc` floats) of each lane.
inline f4 gather(const float* v, const uint32_t* e, uint32_t nc, uint32_t c) {
  return f4{v[size_t(e[0]) * nc + c], v[size_t(e[1]) * nc + c], v[size_t(e[2]) * nc + c], v[size_t(e[3]) * nc + c]};
}

inline Q4 normalize_q(const Q4& q) {
  const f4 len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  const f4 inv = splat(1.0f) / vsqrt(len2);
  const i4 ok = len2 > splat(0.0f);
  return {vselect(ok, q.x * inv, q.x), vselect(ok, q.y * inv, q.y), vselect(ok, q.z * inv, q.z), vselect(ok, q.w * inv, q.w)};
}

// CUBICSPLINE between keys k0 and k1 of four lanes: the elements (in-tangent, value, out-tangent
// per key) and the Hermite basis with the tangents scaled by the key interval d.
struct Hermite {
  uint32_t vk[4], bk[4], ak1[4], vk1[4];  // value k0, out-tangent k0, in-tangent k1, value k1
  f4 h00, h10, h01, h11;

  explicit Hermite(const Lanes& l) {
    for (int i = 0; i < 4; ++i) {
      vk[i] = 3 * l.k0[i] + 1;
      bk[i] = 3 * l.k0[i] + 2;
      ak1[i] = 3 * l.k1[i];
      vk1[i] = 3 * l.k1[i] + 1;
    }
    const f4 u = l.u, d = l.d;
    const f4 u2 = u * u, u3 = u2 * u;
    h00 = splat(2.0f) * u3 - splat(3.0f) * u2 + splat(1.0f);
    h10 = (u3 - splat(2.0f) * u2 + u) * d;
    h01 = splat(-2.0f) * u3 + splat(3.0f) * u2;
    h11 = (u3 - u2) * d;
  }
  // Component c of an nc-component output.
  f4 eval(const float* v, uint32_t nc, uint32_t c) const {
    return h00 * gather(v, vk, nc, c) + h10 * gather(v, bk, nc, c) + h01 * gather(v, vk1, nc, c) +
           h11 * gather(v, ak1, nc, c);
  }
};

void sample_vec3(const Sampler& s, const Lanes& l, V3& out) {
  const float* v = s.values.data();
  if (s.interpolation == Interpolation::CubicSpline) {
    const Hermite h(l);
    f4* o[3] = {&out.x, &out.y, &out.z};
    for (uint32_t c = 0; c < 3; ++c) *o[c] = h.eval(v, 3, c);
    return;
  }
  const bool step = s.interpolation == Interpolation::Step;
  const f4 u = step ? splat(0.0f) : l.u;
  const uint32_t* k1 = step ? l.k0 : l.k1;
  f4* o[3] = {&out.x, &out.y, &out.z};
  for (uint32_t c = 0; c < 3; ++c) {
    const f4 a = gather(v, l.k0, 3, c), b = gather(v, k1, 3, c);
    *o[c] = a + u * (b - a);
  }
}

void sample_rotation(const Sampler& s, const Lanes& l, Q4& out) {
  const float* v = s.values.data();
  if (s.interpolation == Interpolation::CubicSpline) {
    const Hermite h(l);
    Q4 q;
    f4* o[4] = {&q.x, &q.y, &q.z, &q.w};
    for (uint32_t c = 0; c < 4; ++c) *o[c] = h.eval(v, 4, c);
    out = normalize_q(q);
    return;
  }
  const bool step = s.interpolation == Interpolation::Step;
  const Q4 a = gather_quat(v, l.k0);
  if (step) {
    out = normalize_q(a);
    return;
  }
  const Q4 b = gather_quat(v, l.k1);
  const f4 u = l.u;
  // The reference's slerp (sample.cpp): keys within 2e-6 of unit length are taken as unit.
  const f4 la2 = a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w;
  const f4 lb2 = b.x * b.x + b.y * b.y + b.z * b.z + b.w * b.w;
  const f4 one = splat(1.0f);
  const f4 ia = vselect(vabs(la2 - one) <= splat(2e-6f), one, normalized_scale(la2));
  f4 ib = vselect(vabs(lb2 - one) <= splat(2e-6f), one, normalized_scale(lb2));
  f4 d = (a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w) * (ia * ib);
  const i4 neg = d < splat(0.0f);
  d = vselect(neg, -d, d);
  ib = vselect(neg, -ib, ib);
  // Nearly parallel: normalized lerp.
  const f4 wan = (one - u) * ia, wbn = u * ib;
  const Q4 qn = normalize_q({wan * a.x + wbn * b.x, wan * a.y + wbn * b.y, wan * a.z + wbn * b.z, wan * a.w + wbn * b.w});
  // Otherwise the spec's weights: wb = sin(u theta) / sin(theta), wa = cos(u theta) - cos(theta) wb.
  const i4 near = d > splat(0.9995f);
  const f4 dc = vselect(near, splat(0.5f), d);  // keeps the unused lanes finite
  const f4 theta = acos_poly(dc);
  const f4 inv_sin = one / vsqrt(one - dc * dc);
  const f4 ut = u * theta;
  const f4 sb = sin_poly(ut) * inv_sin;
  const f4 wa = (cos_poly(ut) - dc * sb) * ia, wb = sb * ib;
  out.x = vselect(near, qn.x, wa * a.x + wb * b.x);
  out.y = vselect(near, qn.y, wa * a.y + wb * b.y);
  out.z = vselect(near, qn.z, wa * a.z + wb * b.z);
  out.w = vselect(near, qn.w, wa * a.w + wb * b.w);
}

// compute_world_matrices' local matrix: T * R(normalized q) * S.
inline A4 local_affine(const V3& t, const Q4& q_in, const V3& s) {
  const f4 len2 = q_in.x * q_in.x + q_in.y * q_in.y + q_in.z * q_in.z + q_in.w * q_in.w;
  const i4 ok = len2 > splat(0.0f);
  const f4 inv = splat(1.0f) / vsqrt(len2);
  const f4 x = vselect(ok, q_in.x * inv, splat(0.0f)), y = vselect(ok, q_in.y * inv, splat(0.0f));
  const f4 z = vselect(ok, q_in.z * inv, splat(0.0f)), w = vselect(ok, q_in.w * inv, splat(1.0f));
  const f4 one = splat(1.0f), two = splat(2.0f);
  A4 m;
  m.c[0] = {(one - two * (y * y + z * z)) * s.x, two * (x * y + z * w) * s.x, two * (x * z - y * w) * s.x};
  m.c[1] = {two * (x * y - z * w) * s.y, (one - two * (x * x + z * z)) * s.y, two * (y * z + x * w) * s.y};
  m.c[2] = {two * (x * z + y * w) * s.z, two * (y * z - x * w) * s.z, (one - two * (x * x + y * y)) * s.z};
  m.c[3] = t;
  return m;
}

}  // namespace

struct RigKernel::Impl {
  const BakeSetup* setup = nullptr;
  struct NodeInfo {
    uint32_t node = 0;
    int32_t parent = -1;  // index into `nodes`, -1: a root
    bool fixed = false;   // a matrix node
    A4 matrix;            // fixed nodes
    V3 t, s;
    Q4 q;
  };
  std::vector<NodeInfo> nodes;      // parents before children
  std::vector<int32_t> node_index;  // asset node -> index in nodes, -1 when not needed
  struct SlotInfo {
    uint32_t node = 0;  // index in nodes
    bool identity = false;
    A4 inverse_bind;
    bool box = false;
    V3 center, extent;
    f4 extent_len, morph_term;  // |extent|, ||A0||_F * morph shift
    A4 rest;
  };
  std::vector<SlotInfo> slots;
  struct ChannelInfo {
    uint32_t node = 0;  // index in nodes
    Path path = Path::Translation;
    const Sampler* sampler = nullptr;
  };
  // Channels whose keys all hold one value (LINEAR or STEP): set once, not sampled per row.
  struct ConstantInfo {
    uint32_t node = 0;
    Path path = Path::Translation;
    glm::vec4 value{0.0f};
  };
  struct ClipState {
    ClipPlan plan;
    std::vector<ConstantInfo> constants;
    std::vector<ChannelInfo> channels;
    std::vector<uint32_t> channel_times;      // per channel: its index in time_owners
    std::vector<const Sampler*> time_owners;  // one sampler per distinct times array
  };
  std::vector<ClipState> clips;
};

struct RigKernel::Scratch {
  std::vector<V3> t, s;
  std::vector<Q4> q;
  std::vector<A4> world;
  std::vector<uint32_t> cursors;  // per times array: the key interval of the last lane sampled
  std::vector<Lanes> lanes;       // per times array: this block's key location
  uint32_t next_block = ~0u;      // the row the cursors are valid for (the block after the last)
  uint32_t clip = ~0u;            // ... of this clip
};

RigKernel::RigKernel(const BakeSetup& setup) : impl_(new Impl) {
  Impl& m = *impl_;
  m.setup = &setup;
  const Asset& a = *setup.asset;
  std::vector<bool> needed(a.nodes.size(), false);
  for (const VatSlot& s : setup.rig_slots) {
    for (int32_t n = s.node; n >= 0 && !needed[size_t(n)]; n = a.nodes[size_t(n)].parent) needed[size_t(n)] = true;
  }
  m.node_index.assign(a.nodes.size(), -1);
  const Pose rest = make_rest_pose(a);
  for (uint32_t n : a.node_order) {
    if (!needed[n]) continue;
    Impl::NodeInfo info;
    info.node = n;
    const Node& node = a.nodes[n];
    info.parent = node.parent >= 0 ? m.node_index[size_t(node.parent)] : -1;
    info.fixed = node.has_matrix;
    info.matrix = splat_affine(node.matrix);
    info.t = splat3(rest.translation[n]);
    info.s = splat3(rest.scale[n]);
    const glm::quat q = rest.rotation[n];
    info.q = {splat(q.x), splat(q.y), splat(q.z), splat(q.w)};
    m.node_index[n] = int32_t(m.nodes.size());
    m.nodes.push_back(info);
  }
  for (size_t i = 0; i < setup.rig_slots.size(); ++i) {
    const VatSlot& vs = setup.rig_slots[i];
    Impl::SlotInfo s;
    s.node = uint32_t(m.node_index[size_t(vs.node)]);
    s.identity = vs.inverse_bind == glm::mat4(1.0f);
    s.inverse_bind = splat_affine(vs.inverse_bind);
    const BakeSetup::SlotBox& box = setup.slot_boxes[i];
    s.box = box.used;
    s.center = splat3(box.center);
    s.extent = splat3(box.extent);
    s.extent_len = splat(glm::length(box.extent));
    const glm::mat4& r = setup.rest_slot_matrices[i];
    const float a0 = std::sqrt(glm::dot(glm::vec3(r[0]), glm::vec3(r[0])) + glm::dot(glm::vec3(r[1]), glm::vec3(r[1])) +
                               glm::dot(glm::vec3(r[2]), glm::vec3(r[2])));
    s.morph_term = splat(a0 * box.morph_shift);
    s.rest = splat_affine(r);
    m.slots.push_back(s);
  }
}

RigKernel::~RigKernel() { delete impl_; }

RigKernel::Scratch* RigKernel::make_scratch() const {
  auto* s = new Scratch;
  s->t.resize(impl_->nodes.size());
  s->s.resize(impl_->nodes.size());
  s->q.resize(impl_->nodes.size());
  s->world.resize(impl_->nodes.size());
  return s;
}
void RigKernel::free_scratch(Scratch* s) { delete s; }

uint32_t RigKernel::add_clip(const Animation& anim, const ClipPlan& plan) {
  Impl& m = *impl_;
  Impl::ClipState c;
  c.plan = plan;
  for (const Channel& ch : anim.channels) {
    if (ch.path == Path::Weights) continue;
    const int32_t n = m.node_index[ch.node];
    if (n < 0 || m.nodes[size_t(n)].fixed) continue;
    const Sampler& s = anim.samplers[ch.sampler];
    const uint32_t nc = s.components;
    bool constant = s.interpolation != Interpolation::CubicSpline;
    for (size_t i = nc; constant && i < s.values.size(); ++i) constant = s.values[i] == s.values[i % nc];
    if (constant) {
      glm::vec4 v(0.0f);
      for (uint32_t i = 0; i < nc && i < 4; ++i) v[int(i)] = s.values[i];
      if (ch.path == Path::Rotation) {  // sampled rotations are unit length (sample.cpp)
        const float len2 = v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
        if (len2 > 0.0f) v *= 1.0f / std::sqrt(len2);
      }
      c.constants.push_back(Impl::ConstantInfo{uint32_t(n), ch.path, v});
      continue;
    }
    uint32_t g = 0;
    while (g < c.time_owners.size() && c.time_owners[g]->times != s.times) ++g;
    if (g == c.time_owners.size()) c.time_owners.push_back(&s);
    c.channels.push_back(Impl::ChannelInfo{uint32_t(n), ch.path, &s});
    c.channel_times.push_back(g);
  }
  m.clips.push_back(std::move(c));
  return uint32_t(m.clips.size() - 1);
}

void RigKernel::run_block(uint32_t clip, uint32_t k0, Scratch& sc, SlotStage& stage, uint32_t stage_row,
                          RigRowResult* results, float tolerance) const {
  const Impl& m = *impl_;
  const Impl::ClipState& cs = m.clips[clip];
  const uint32_t rows = cs.plan.rows;
  float t[4];
  for (uint32_t i = 0; i < 4; ++i) t[i] = row_time(cs.plan, std::min(k0 + i, rows - 1));

  // Rest pose, then the clip's channels.
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    sc.t[n] = m.nodes[n].t;
    sc.q[n] = m.nodes[n].q;
    sc.s[n] = m.nodes[n].s;
  }
  for (const Impl::ConstantInfo& c : cs.constants) {
    switch (c.path) {
      case Path::Translation: sc.t[c.node] = splat3(glm::vec3(c.value)); break;
      case Path::Scale: sc.s[c.node] = splat3(glm::vec3(c.value)); break;
      case Path::Rotation: sc.q[c.node] = {splat(c.value.x), splat(c.value.y), splat(c.value.z), splat(c.value.w)}; break;
      case Path::Weights: break;
    }
  }
  // Key location once per times array; cursors carry over when this scratch sampled the block
  // just before, in this clip.
  const size_t groups = cs.time_owners.size();
  if (sc.clip != clip || sc.next_block != k0 || sc.cursors.size() != groups) sc.cursors.assign(groups, ~0u);
  sc.clip = clip;
  sc.next_block = k0 + 4;
  sc.lanes.resize(groups);
  for (size_t g = 0; g < groups; ++g) locate_lanes(*cs.time_owners[g], t, sc.lanes[g], sc.cursors[g]);
  for (size_t ci = 0; ci < cs.channels.size(); ++ci) {
    const Impl::ChannelInfo& ch = cs.channels[ci];
    const Lanes& lanes = sc.lanes[cs.channel_times[ci]];
    switch (ch.path) {
      case Path::Translation: sample_vec3(*ch.sampler, lanes, sc.t[ch.node]); break;
      case Path::Scale: sample_vec3(*ch.sampler, lanes, sc.s[ch.node]); break;
      case Path::Rotation: sample_rotation(*ch.sampler, lanes, sc.q[ch.node]); break;
      case Path::Weights: break;
    }
  }
  // World matrices, parents first.
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    const Impl::NodeInfo& info = m.nodes[n];
    const A4 local = info.fixed ? info.matrix : local_affine(sc.t[n], sc.q[n], sc.s[n]);
    sc.world[n] = info.parent >= 0 ? mul(sc.world[size_t(info.parent)], local) : local;
  }

  const f4 big = splat(std::numeric_limits<float>::max());
  V3 bmin{big, big, big}, bmax{-big, -big, -big};
  f4 max_delta = splat(0.0f);
  f4 worst = splat(0.0f);
  i4 worst_slot = i4{0, 0, 0, 0};
  const f4 tol = splat(tolerance);
  const uint32_t S = uint32_t(m.slots.size());
  const uint32_t valid = std::min(4u, rows - k0);
  for (uint32_t si = 0; si < S; ++si) {
    const Impl::SlotInfo& slot = m.slots[si];
    const A4 a = slot.identity ? sc.world[slot.node] : mul(sc.world[slot.node], slot.inverse_bind);
    // Similarity fit: s = sign(det) * mean column length, R = A / s, Shepperd's quaternion.
    const f4 l0 = vsqrt(dot(a.c[0], a.c[0])), l1 = vsqrt(dot(a.c[1], a.c[1])), l2 = vsqrt(dot(a.c[2], a.c[2]));
    const f4 lmax = vmax(l0, vmax(l1, l2)), lmin = vmin(l0, vmin(l1, l2));
    const f4 det = dot(a.c[0], cross(a.c[1], a.c[2]));
    const f4 zero = splat(0.0f), one = splat(1.0f);
    const i4 degenerate = ~(vabs(det) > zero);
    // The similarity check without divisions: spread lmax - lmin > tol * lmax, or
    // |a_i . a_j| > tol * l_i * l_j; the magnitudes (for picking a row's worst slot) only where a
    // lane fails, which a bakeable rig never does.
    const f4 d01 = vabs(dot(a.c[0], a.c[1])), d12 = vabs(dot(a.c[1], a.c[2])), d20 = vabs(dot(a.c[2], a.c[0]));
    const i4 fails = ((lmax - lmin) > tol * lmax) | (d01 > tol * (l0 * l1)) | (d12 > tol * (l1 * l2)) |
                     (d20 > tol * (l2 * l0)) | (degenerate & (lmax > zero));
    if ((fails[0] | fails[1] | fails[2] | fails[3]) != 0) [[unlikely]] {
      f4 nonuniform = vselect(lmax > zero, (lmax - lmin) / lmax, zero);
      nonuniform = vselect(degenerate & (lmax > zero), one, nonuniform);
      const f4 shear = vselect(lmin > zero, vmax(d01 / (l0 * l1), vmax(d12 / (l1 * l2), d20 / (l2 * l0))), zero);
      const f4 bad = vmax(nonuniform, shear);
      const i4 over = fails & (bad > tol) & (bad > worst);
      worst = vselect(over, bad, worst);
      worst_slot = (over & i4{int32_t(si), int32_t(si), int32_t(si), int32_t(si)}) | (~over & worst_slot);
    }

    const f4 mean = (l0 + l1 + l2) * splat(1.0f / 3.0f);
    const f4 s = vselect(degenerate, zero, vselect(det < zero, -mean, mean));
    const f4 inv = vselect(degenerate, zero, one / s);
    const f4 r00 = a.c[0].x * inv, r10 = a.c[0].y * inv, r20 = a.c[0].z * inv;
    const f4 r01 = a.c[1].x * inv, r11 = a.c[1].y * inv, r21 = a.c[1].z * inv;
    const f4 r02 = a.c[2].x * inv, r12 = a.c[2].y * inv, r22 = a.c[2].z * inv;
    const f4 tr = r00 + r11 + r22;
    // Pick the largest of 4w^2 - 1 = tr, 4x^2 - 1 = 2 r00 - tr, ... (one square root per lane).
    const f4 cx = r00 - r11 - r22, cy = r11 - r00 - r22, cz = r22 - r00 - r11;
    const i4 use_w = (tr >= cx) & (tr >= cy) & (tr >= cz);
    const i4 use_x = ~use_w & (cx >= cy) & (cx >= cz);
    const i4 use_y = ~use_w & ~use_x & (cy >= cz);
    const f4 big4 = vselect(use_w, tr, vselect(use_x, cx, vselect(use_y, cy, cz)));
    const f4 r = vsqrt(vmax(one + big4, splat(1e-30f)));
    const f4 half_r = splat(0.5f) * r, f = splat(0.5f) / r;
    const f4 w_x = (r21 - r12) * f, w_y = (r02 - r20) * f, w_z = (r10 - r01) * f;  // w * (x, y, z)
    const f4 xy = (r01 + r10) * f, xz = (r02 + r20) * f, yz = (r12 + r21) * f;
    Q4 q;
    q.w = vselect(use_w, half_r, vselect(use_x, w_x, vselect(use_y, w_y, w_z)));
    q.x = vselect(use_w, w_x, vselect(use_x, half_r, vselect(use_y, xy, xz)));
    q.y = vselect(use_w, w_y, vselect(use_x, xy, vselect(use_y, half_r, yz)));
    q.z = vselect(use_w, w_z, vselect(use_x, xz, vselect(use_y, yz, half_r)));
    q = normalize_q(q);
    q.x = vselect(degenerate, zero, q.x);
    q.y = vselect(degenerate, zero, q.y);
    q.z = vselect(degenerate, zero, q.z);
    q.w = vselect(degenerate, one, q.w);
    store_lanes(q.x, q.y, q.z, q.w, &stage.q[0].x, size_t(stage_row + k0) * S + si, S, valid);
    store_lanes(a.c[3].x, a.c[3].y, a.c[3].z, s, &stage.ts[0].x, size_t(stage_row + k0) * S + si, S, valid);
    if (!slot.box) continue;
    // The slot's box, moved; and how far it can have moved from the rest pose.
    const V3 c = a.c[0] * slot.center.x + a.c[1] * slot.center.y + a.c[2] * slot.center.z + a.c[3];
    const V3 e{vabs(a.c[0].x) * slot.extent.x + vabs(a.c[1].x) * slot.extent.y + vabs(a.c[2].x) * slot.extent.z,
               vabs(a.c[0].y) * slot.extent.x + vabs(a.c[1].y) * slot.extent.y + vabs(a.c[2].y) * slot.extent.z,
               vabs(a.c[0].z) * slot.extent.x + vabs(a.c[1].z) * slot.extent.y + vabs(a.c[2].z) * slot.extent.z};
    bmin = {vmin(bmin.x, c.x - e.x), vmin(bmin.y, c.y - e.y), vmin(bmin.z, c.z - e.z)};
    bmax = {vmax(bmax.x, c.x + e.x), vmax(bmax.y, c.y + e.y), vmax(bmax.z, c.z + e.z)};
    const V3 d0 = a.c[0] - slot.rest.c[0], d1 = a.c[1] - slot.rest.c[1], d2 = a.c[2] - slot.rest.c[2];
    const V3 dc = d0 * slot.center.x + d1 * slot.center.y + d2 * slot.center.z + (a.c[3] - slot.rest.c[3]);
    // |(M - M0) b| <= |(M - M0) c| + ||A - A0||_F |e| for b in the box (Cauchy-Schwarz).
    const f4 bound = vsqrt(dot(dc, dc)) + vsqrt(dot(d0, d0) + dot(d1, d1) + dot(d2, d2)) * slot.extent_len + slot.morph_term;
    max_delta = vmax(max_delta, bound);
  }
  for (uint32_t i = 0; i < valid; ++i) {
    RigRowResult& r = results[k0 + i];
    r.any_box = bmin.x[i] <= bmax.x[i];
    r.bmin = glm::vec3(bmin.x[i], bmin.y[i], bmin.z[i]);
    r.bmax = glm::vec3(bmax.x[i], bmax.y[i], bmax.z[i]);
    r.max_delta = max_delta[i];
    r.scale_violation = worst[i];
    r.scale_slot = uint32_t(worst_slot[i]);
  }
}

}  // namespace vatkit::detail

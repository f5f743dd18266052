// The delta encoding: per frame row, the reference skinner poses the scene and every vertex's
// offset from the rest pose (and its normal, and tangent) goes into the planes. Rows are
// independent, so they are spread over threads; each writes only its own texels.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "decode/codec.h"
#include "encode/bake_internal.h"
#include "decode/simd.h"
#include "vatkit/parallel.h"
#include "util/printable.h"
#include "vatkit/scene.h"

namespace vatkit::detail {
namespace {

struct RowStats {
  glm::vec3 pmin{std::numeric_limits<float>::max()}, pmax{-std::numeric_limits<float>::max()};
  glm::vec3 dmin{std::numeric_limits<float>::max()}, dmax{-std::numeric_limits<float>::max()};
  float max_d2 = 0.0f;
};

// Skinner output, one element longer than the vertex count: the row encoders load four floats
// at a vertex (its xyz and the next one's x, which they ignore).
struct Workspace {
  SceneEvaluator ev;
  std::vector<glm::vec3> pos, nrm;
  std::vector<glm::vec4> tan;
  explicit Workspace(const Asset& a)
      : ev(a), pos(a.instance_vertex_count + 1), nrm(a.instance_vertex_count + 1), tan(a.instance_vertex_count) {}
};

inline void put_f32(uint8_t* dst, float x, float y, float z, float w) {
  const float v[4] = {x, y, z, w};
  std::memcpy(dst, v, 16);
}
inline void put_f16(uint8_t* dst, float x, float y, float z, float w) {
  const uint16_t v[4] = {codec::float_to_half(x), codec::float_to_half(y), codec::float_to_half(z), codec::float_to_half(w)};
  std::memcpy(dst, v, 8);
}

// One row of a delta plane: positions minus rest (with the row's statistics) and normals,
// written as texels of `prec` (Q16: the deltas and the octahedral normal, in w, go to `stage`
// until the clip's range is known). `rest`, `pos` and `nrm` have one element of padding.
struct RowIn {
  const glm::vec3* pos;
  const glm::vec3* rest;
  const glm::vec3* nrm;  // null: no normals
  uint32_t count;
};

// Q16: the octahedral normals, four (or, with AVX2, eight) at a time, into the staged texels' w (a
// float holding the 16-bit code exactly). Both widths give the same codes (decode/oct.inl).
#if VATKIT_SIMD_AVX2
VATKIT_AVX2_BEGIN
namespace oct8 {
#define VATKIT_OCT_LANES 8
#include "decode/oct.inl"
#undef VATKIT_OCT_LANES
}  // namespace oct8
VATKIT_AVX2_END
VATKIT_AVX512_BEGIN
namespace oct16 {
#define VATKIT_OCT_LANES 16
#include "decode/oct.inl"
#undef VATKIT_OCT_LANES
}  // namespace oct16
VATKIT_AVX512_END
void encode_octahedral(const RowIn& in, glm::vec4* stage) {
  if (simd_lanes() >= 16) {
    oct16::oct8_encode_into_w(in.nrm, in.count, stage);
    return clear_upper_state();
  }
  if (simd_lanes() >= 8) {
    oct8::oct8_encode_into_w(in.nrm, in.count, stage);
    return clear_upper_state();
  }
  codec::oct4::oct8_encode_into_w(in.nrm, in.count, stage);
}
#else
void encode_octahedral(const RowIn& in, glm::vec4* stage) { codec::oct4::oct8_encode_into_w(in.nrm, in.count, stage); }
#endif

[[maybe_unused]] void encode_row_scalar(const RowIn& in, Precision prec, uint8_t* pos_dst, uint8_t* nrm_dst, glm::vec4* stage,
                       RowStats& st) {
  for (uint32_t v = 0; v < in.count; ++v) {
    const glm::vec3 p = in.pos[v];
    const glm::vec3 d = p - in.rest[v];
    st.pmin = glm::min(st.pmin, p);
    st.pmax = glm::max(st.pmax, p);
    st.dmin = glm::min(st.dmin, d);
    st.dmax = glm::max(st.dmax, d);
    st.max_d2 = std::max(st.max_d2, glm::dot(d, d));
    if (prec == Precision::F32) {
      put_f32(pos_dst + 16 * size_t(v), d.x, d.y, d.z, 0.0f);
      if (nrm_dst) put_f32(nrm_dst + 16 * size_t(v), in.nrm[v].x, in.nrm[v].y, in.nrm[v].z, 0.0f);
    } else if (prec == Precision::F16) {
      put_f16(pos_dst + 8 * size_t(v), d.x, d.y, d.z, 0.0f);
      if (nrm_dst) put_f16(nrm_dst + 8 * size_t(v), in.nrm[v].x, in.nrm[v].y, in.nrm[v].z, 0.0f);
    } else {
      stage[v] = glm::vec4(d, 0.0f);
    }
  }
  if (prec == Precision::Q16) encode_octahedral(in, stage);
}

#if defined(__SSE2__)
// The same, four lanes at a time per vertex (x, y, z and a lane ignored). Differences, min, max
// and products round as the scalar code does, so the bytes are the same.
struct SseStats {
  __m128 pmin, pmax, dmin, dmax, d2max;
  SseStats() {
    const __m128 big = _mm_set1_ps(std::numeric_limits<float>::max());
    pmin = dmin = big;
    pmax = dmax = _mm_sub_ps(_mm_setzero_ps(), big);
    d2max = _mm_setzero_ps();
  }
  void add(__m128 p, __m128 d) {
    pmin = _mm_min_ps(pmin, p);
    pmax = _mm_max_ps(pmax, p);
    dmin = _mm_min_ps(dmin, d);
    dmax = _mm_max_ps(dmax, d);
    const __m128 m = _mm_mul_ps(d, d);
    // (x * x + y * y) + z * z, as glm::dot sums.
    d2max = _mm_max_ss(d2max, _mm_add_ss(_mm_add_ss(m, _mm_shuffle_ps(m, m, 1)), _mm_shuffle_ps(m, m, 2)));
  }
  void finish(RowStats& st) const {
    alignas(16) float a[4], b[4], c[4], e[4];
    _mm_store_ps(a, pmin);
    _mm_store_ps(b, pmax);
    _mm_store_ps(c, dmin);
    _mm_store_ps(e, dmax);
    st.pmin = glm::min(st.pmin, glm::vec3(a[0], a[1], a[2]));
    st.pmax = glm::max(st.pmax, glm::vec3(b[0], b[1], b[2]));
    st.dmin = glm::min(st.dmin, glm::vec3(c[0], c[1], c[2]));
    st.dmax = glm::max(st.dmax, glm::vec3(e[0], e[1], e[2]));
    st.max_d2 = std::max(st.max_d2, _mm_cvtss_f32(d2max));
  }
};

inline __m128 xyz_mask() { return _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)); }

__attribute__((always_inline)) inline void encode_row_sse_body(const RowIn& in, Precision prec, uint8_t* pos_dst,
                                                               uint8_t* nrm_dst, glm::vec4* stage, RowStats& st) {
  const __m128 xyz = xyz_mask();
  SseStats acc;
  const float* pos = &in.pos[0].x;
  const float* rest = &in.rest[0].x;
  const float* nrm = in.nrm ? &in.nrm[0].x : nullptr;
  for (uint32_t v = 0; v < in.count; ++v) {
    const __m128 p = _mm_loadu_ps(pos + 3 * size_t(v));
    const __m128 d = _mm_sub_ps(p, _mm_loadu_ps(rest + 3 * size_t(v)));
    acc.add(p, d);
    if (prec == Precision::F32) {
      _mm_store_ps(reinterpret_cast<float*>(pos_dst + 16 * size_t(v)), _mm_and_ps(d, xyz));
      if (nrm) _mm_store_ps(reinterpret_cast<float*>(nrm_dst + 16 * size_t(v)), _mm_and_ps(_mm_loadu_ps(nrm + 3 * size_t(v)), xyz));
    } else {
      alignas(16) float f[4];
      _mm_store_ps(f, d);
      if (prec == Precision::F16) {
        put_f16(pos_dst + 8 * size_t(v), f[0], f[1], f[2], 0.0f);
        if (nrm) put_f16(nrm_dst + 8 * size_t(v), in.nrm[v].x, in.nrm[v].y, in.nrm[v].z, 0.0f);
      } else {
        _mm_store_ps(&stage[v].x, d);
      }
    }
  }
  if (prec == Precision::Q16) encode_octahedral(in, stage);
  acc.finish(st);
}

void encode_row_sse(const RowIn& in, Precision prec, uint8_t* pos_dst, uint8_t* nrm_dst, glm::vec4* stage,
                    RowStats& st) {
  encode_row_sse_body(in, prec, pos_dst, nrm_dst, stage, st);
}

// Where the CPU has F16C (and so AVX): F16 with the F16C conversion (round to nearest even: the
// same bits as codec::float_to_half), and the other precisions through the same body as
// encode_row_sse, compiled VEX-encoded. The VEX form is not only shorter: legacy SSE code that
// runs while the upper halves of the YMM registers are dirty pays a merge on every instruction,
// and this encoder runs right after the 8-lane skinner.
__attribute__((target("f16c"))) void encode_row_f16c(const RowIn& in, Precision prec, uint8_t* pos_dst,
                                                      uint8_t* nrm_dst, glm::vec4* stage, RowStats& st) {
  if (prec != Precision::F16) return encode_row_sse_body(in, prec, pos_dst, nrm_dst, stage, st);
  const __m128 xyz = xyz_mask();
  SseStats acc;
  const float* pos = &in.pos[0].x;
  const float* rest = &in.rest[0].x;
  const float* nrm = in.nrm ? &in.nrm[0].x : nullptr;
  for (uint32_t v = 0; v < in.count; ++v) {
    const __m128 p = _mm_loadu_ps(pos + 3 * size_t(v));
    const __m128 d = _mm_sub_ps(p, _mm_loadu_ps(rest + 3 * size_t(v)));
    acc.add(p, d);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(pos_dst + 8 * size_t(v)), _mm_cvtps_ph(_mm_and_ps(d, xyz), 0));
    if (nrm) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(nrm_dst + 8 * size_t(v)),
                       _mm_cvtps_ph(_mm_and_ps(_mm_loadu_ps(nrm + 3 * size_t(v)), xyz), 0));
    }
  }
  acc.finish(st);
}
#endif

// Q16 texels from staged (delta, octahedral code) values: u = clamp((v - lo) * scale, 0, 65535),
// q = trunc(u + 0.5) (the code in w has lo 0 and scale 1).
__attribute__((always_inline)) inline void quantize_row_body(const glm::vec4* in, uint32_t count, const glm::vec4& lo,
                                                             const glm::vec4& scale, uint8_t* dst) {
#if defined(__SSE2__)
  const __m128 l = _mm_loadu_ps(&lo.x), sc = _mm_loadu_ps(&scale.x);
  const __m128 top = _mm_set1_ps(65535.0f), half = _mm_set1_ps(0.5f);
  for (uint32_t v = 0; v < count; ++v) {
    __m128 u = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(&in[v].x), l), sc);
    u = _mm_min_ps(_mm_max_ps(u, _mm_setzero_ps()), top);
    store_unorm16x4(_mm_cvttps_epi32(_mm_add_ps(u, half)), dst + 8 * size_t(v));
  }
#else
  for (uint32_t v = 0; v < count; ++v) {
    uint16_t q[4];
    for (int c = 0; c < 4; ++c) {
      float u = (in[v][c] - lo[c]) * scale[c];
      u = u > 0.0f ? u : 0.0f;
      u = u < 65535.0f ? u : 65535.0f;
      q[c] = uint16_t(u + 0.5f);
    }
    std::memcpy(dst + 8 * size_t(v), q, 8);
  }
#endif
}

#if defined(__SSE2__)
__attribute__((target("avx"))) void quantize_row_vex(const glm::vec4* in, uint32_t count, const glm::vec4& lo,
                                                     const glm::vec4& scale, uint8_t* dst) {
  quantize_row_body(in, count, lo, scale, dst);
}
#endif

using EncodeRow = void (*)(const RowIn&, Precision, uint8_t*, uint8_t*, glm::vec4*, RowStats&);
using QuantizeRow = void (*)(const glm::vec4*, uint32_t, const glm::vec4&, const glm::vec4&, uint8_t*);

EncodeRow pick_encoder() {
#if defined(__SSE2__)
  if (cpu_has_f16c()) return &encode_row_f16c;
  return &encode_row_sse;
#else
  return &encode_row_scalar;
#endif
}
QuantizeRow pick_quantizer() {
#if defined(__SSE2__)
  if (cpu_has_f16c()) return &quantize_row_vex;  // F16C implies AVX
#endif
  return [](const glm::vec4* in, uint32_t count, const glm::vec4& lo, const glm::vec4& scale, uint8_t* dst) {
    quantize_row_body(in, count, lo, scale, dst);
  };
}

// The planes of a delta bake: position (index 0), then normal (not for q16, whose position
// texels carry the normal), tangent and slots where present; -1 where absent.
struct DeltaPlanes {
  int normal = -1, tangent = -1, slot = -1;
};

DeltaPlanes allocate_delta_planes(Vat& vat, const BakeSetup& setup, TexelFormat format, bool normal_plane) {
  const uint32_t V = vat.geometry.vertex_count();
  const uint32_t J = uint32_t(vat.slots.size());
  std::vector<PlaneSpec> specs{{PlaneSemantic::Position, format, V}};
  DeltaPlanes planes;
  if (normal_plane) {
    planes.normal = int(specs.size());
    specs.push_back({PlaneSemantic::Normal, format, V});
  }
  if (setup.tangents) {
    planes.tangent = int(specs.size());
    specs.push_back({PlaneSemantic::Tangent, format, V});
  }
  if (J > 0) {
    planes.slot = int(specs.size());
    specs.push_back({PlaneSemantic::Slots, format, 2 * J});
  }
  allocate_planes(vat, specs, setup.options->max_texture_size);
  return planes;
}

// bake_delta's frame rows, clip by clip: the reference skinner's pose per row, encoded into the
// planes (Q16 through a stage, until the clip's range is known).
struct DeltaRows {
  const BakeSetup& setup;
  Vat& vat;
  const Precision prec;
  const bool q16, normals;
  const uint32_t V, J;
  const DeltaPlanes planes;
  const Plane& pp;
  uint8_t* const pos_bytes;
  const Plane* const np;
  uint8_t* const nrm_bytes;
  const Plane* const tp;
  uint8_t* const tan_bytes;
  const size_t texel;
  std::vector<glm::vec3> rest;
  const EncodeRow encode = pick_encoder();
  WorkspacePool<Workspace> pool;
  // Q16: the clip's deltas, until its range is known (uninitialized; each row writes its own).
  std::unique_ptr<glm::vec4[], FreeBig> stage;
  SlotStage slots;

  DeltaRows(const BakeSetup& s, Vat& v, bool with_normals, DeltaPlanes p, const std::vector<ClipPlan>& clips)
      : setup(s), vat(v), prec(s.options->precision), q16(prec == Precision::Q16), normals(with_normals),
        V(v.geometry.vertex_count()), J(uint32_t(v.slots.size())), planes(p), pp(v.planes[0]),
        pos_bytes(plane_bytes(v, 0)), np(p.normal >= 0 ? &v.planes[size_t(p.normal)] : nullptr),
        nrm_bytes(p.normal >= 0 ? plane_bytes(v, size_t(p.normal)) : nullptr),
        tp(p.tangent >= 0 ? &v.planes[size_t(p.tangent)] : nullptr),
        tan_bytes(p.tangent >= 0 ? plane_bytes(v, size_t(p.tangent)) : nullptr), texel(texel_bytes(pp.format)),
        rest(v.geometry.positions), pool([asset = s.asset] { return std::make_unique<Workspace>(*asset); }) {
    rest.emplace_back(0.0f);  // padding for the row encoders
    if (q16) {
      uint32_t longest = 0;
      for (const ClipPlan& c : clips) longest = std::max(longest, c.rows);
      stage.reset(static_cast<glm::vec4*>(allocate_big(size_t(longest) * V * sizeof(glm::vec4))));
    }
  }

  void put_tangents(const Workspace& w, uint8_t* dst) const {
    for (uint32_t v = 0; v < V; ++v, dst += texel) {
      const glm::vec4 t = w.tan[v];
      if (prec == Precision::F32) {
        put_f32(dst, t.x, t.y, t.z, t.w);
      } else if (prec == Precision::F16) {
        put_f16(dst, t.x, t.y, t.z, t.w);
      } else {
        const uint16_t q[4] = {codec::quantize_snorm_as_unorm16(t.x), codec::quantize_snorm_as_unorm16(t.y),
                               codec::quantize_snorm_as_unorm16(t.z), codec::quantize_snorm_as_unorm16(t.w)};
        std::memcpy(dst, q, 8);
      }
    }
  }

  // Row k of `clip`: posed, encoded, its slots staged; its statistics into `st`.
  void bake_row(Workspace& w, const ClipPlan& plan, const VatClip& clip, uint32_t k, RowStats& st) {
    w.ev.pose(plan.animation, row_time(plan, k));
    w.ev.skin(std::span<glm::vec3>(w.pos).first(V), normals ? std::span<glm::vec3>(w.nrm).first(V) : std::span<glm::vec3>(),
              tp ? std::span<glm::vec4>(w.tan) : std::span<glm::vec4>(), 1);
    const uint32_t row = clip.first_row + k;
    const RowIn in{w.pos.data(), rest.data(), normals ? w.nrm.data() : nullptr, V};
    encode(in, prec, pos_bytes + codec::texel_index(pp, row, 0) * texel,
           np ? nrm_bytes + codec::texel_index(*np, row, 0) * texel : nullptr, q16 ? stage.get() + size_t(k) * V : nullptr,
           st);
    if (tp) put_tangents(w, tan_bytes + codec::texel_index(*tp, row, 0) * texel);
    if (J > 0) {
      const std::span<const glm::mat4> world = w.ev.world();
      for (uint32_t j = 0; j < J; ++j) {
        const codec::SimilarityFit fit =
            codec::fit_similarity(world[size_t(vat.slots[j].node)], glm::quat(1.0f, 0.0f, 0.0f, 0.0f));
        slots.q(k, j) = fit.transform.rotation;
        slots.ts(k, j) = glm::vec4(fit.transform.translation, fit.transform.scale);
      }
    }
  }

  // Q16: the staged rows of `clip` quantized against its delta range, per axis
  // (codec::quantize_unorm16_scaled); w is the octahedral normal, already a code.
  void quantize_clip(const VatClip& clip) {
    const glm::vec3 lo = clip.delta_range.min, hi = clip.delta_range.max;
    const glm::vec4 lo4(lo, 0.0f);
    const glm::vec4 scale(codec::unorm16_scale(lo.x, hi.x), codec::unorm16_scale(lo.y, hi.y),
                          codec::unorm16_scale(lo.z, hi.z), 1.0f);
    const QuantizeRow quantize_row = pick_quantizer();
    parallel_for(clip.rows, 1, setup.threads, [&](size_t begin, size_t end) {
      for (size_t k = begin; k < end; ++k) {
        quantize_row(stage.get() + k * V, V, lo4, scale,
                     pos_bytes + codec::texel_index(pp, clip.first_row + uint32_t(k), 0) * texel);
      }
    });
  }

  Result<void> bake_clip(const ClipPlan& plan, VatClip& clip, Progress& progress);
};

Result<void> DeltaRows::bake_clip(const ClipPlan& plan, VatClip& clip, Progress& progress) {
  std::vector<RowStats> stats(plan.rows);
  if (J > 0 && vat.planes[size_t(planes.slot)].format == TexelFormat::RGBA32F) {
    slots.view(vat, size_t(planes.slot), clip.first_row);
  } else if (J > 0) {
    slots.own(J, plan.rows);
  }
  // Rows in batches, so progress is reported from this thread between them: about 2^20
  // vertex-frames each (a few milliseconds), and enough rows for every thread. Each batch
  // wakes the pool again, which costs tens of microseconds here: CesiumMan's 61 rows of 3,273
  // vertices were two batches of 32 rows.
  const size_t batch = std::max<size_t>({32, 8 * size_t(setup.threads), (size_t(1) << 20) / std::max<uint32_t>(V, 1)});
  for (uint32_t b = 0; b < plan.rows; b += uint32_t(batch)) {
    const uint32_t n = std::min<uint32_t>(uint32_t(batch), plan.rows - b);
    parallel_for(n, 1, setup.threads, [&](size_t begin, size_t end) {
      auto w = pool.take();
      for (size_t k = begin; k < end; ++k) {
        RowStats st;
        bake_row(*w, plan, clip, b + uint32_t(k), st);
        stats[b + k] = st;
      }
    });
    progress.advance(n);
  }

  RowStats all;
  for (const RowStats& s : stats) {
    all.pmin = glm::min(all.pmin, s.pmin);
    all.pmax = glm::max(all.pmax, s.pmax);
    all.dmin = glm::min(all.dmin, s.dmin);
    all.dmax = glm::max(all.dmax, s.dmax);
    all.max_d2 = std::max(all.max_d2, s.max_d2);
  }
  clip.bounds = Bounds{all.pmin, all.pmax};
  clip.max_delta = std::sqrt(all.max_d2);
  clip.delta_range = Bounds{all.dmin, all.dmax};
  if (prec == Precision::F16) {
    const float big = std::max(codec::max_abs((all.dmin)), codec::max_abs((all.dmax)));
    if (big > codec::kHalfMax) {
      return make_error(setup.name, "clip \"" + printable(clip_label(*setup.asset, plan.animation)) + "\": a vertex moves " +
                                        std::to_string(big) + " units from rest, more than f16 holds (65504): use f32 or q16");
    }
  }
  if (q16) quantize_clip(clip);
  if (J > 0) return write_slot_rows(slots, 0, vat, size_t(planes.slot), clip, setup.name);
  return {};
}

}  // namespace

Result<Vat> bake_delta(BakeSetup& setup, const std::vector<ClipPlan>& clips, Progress& progress, bool take_geometry) {
  const BakeOptions& o = *setup.options;
  Vat vat = start_vat(setup, Encoding::Delta, take_geometry ? take_vertices(setup.rest) : setup.rest,
                      setup.joint_slots, clips);

  const auto frames_start = std::chrono::steady_clock::now();
  const Precision prec = o.precision;
  const bool q16 = prec == Precision::Q16;
  const bool normals = q16 || o.normals;
  const TexelFormat format = prec == Precision::F32 ? TexelFormat::RGBA32F
                             : prec == Precision::F16 ? TexelFormat::RGBA16F
                                                      : TexelFormat::RGBA16Unorm;
  const DeltaPlanes planes = allocate_delta_planes(vat, setup, format, normals && !q16);
  DeltaRows rows(setup, vat, normals, planes, clips);
  for (size_t ci = 0; ci < clips.size(); ++ci) {
    if (auto r = rows.bake_clip(clips[ci], vat.clips[ci], progress); !r) return r.error();
  }
  finish_vat(vat, progress, frames_start);
  return vat;
}

}  // namespace vatkit::detail

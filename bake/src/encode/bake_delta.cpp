// The delta encoding: per frame row, the reference skinner poses the scene and every vertex's
// offset from the rest pose (and its normal, and tangent) goes into the planes. Rows are
// independent, so they are spread over threads; each writes only its own texels.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "decode/codec.h"
#include "encode/bake_internal.h"
#include "simd/delta_rows.h"
#include "vatkit/parallel.h"
#include "util/printable.h"
#include "vatkit/scene.h"

namespace vatkit::detail {
namespace {

// Skinner output, one element longer than the vertex count: the row encoders load four floats
// at a vertex (its xyz and the next one's x, which they ignore).
struct Workspace {
  SceneEvaluator ev;
  std::vector<glm::vec3> pos, nrm;
  std::vector<glm::vec4> tan;
  explicit Workspace(const Asset& a)
      : ev(a), pos(a.instance_vertex_count + 1), nrm(a.instance_vertex_count + 1), tan(a.instance_vertex_count) {}
};

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
  WorkspacePool<Workspace> pool;
  // Q16: the clip's deltas, until its range is known (uninitialized; each row writes its own).
  std::unique_ptr<glm::vec4[], FreeBig> stage;
  SlotStage slots;

  DeltaRows(const BakeSetup& s, Vat& v, bool with_normals, DeltaPlanes p, const std::vector<ClipPlan>& clips)
      : setup(s),
        vat(v),
        prec(s.options->precision),
        q16(prec == Precision::Q16),
        normals(with_normals),
        V(v.geometry.vertex_count()),
        J(uint32_t(v.slots.size())),
        planes(p),
        pp(v.planes[0]),
        pos_bytes(plane_bytes(v, 0)),
        np(p.normal >= 0 ? &v.planes[size_t(p.normal)] : nullptr),
        nrm_bytes(p.normal >= 0 ? plane_bytes(v, size_t(p.normal)) : nullptr),
        tp(p.tangent >= 0 ? &v.planes[size_t(p.tangent)] : nullptr),
        tan_bytes(p.tangent >= 0 ? plane_bytes(v, size_t(p.tangent)) : nullptr),
        texel(texel_bytes(pp.format)),
        rest(v.geometry.positions),
        pool([asset = s.asset] { return std::make_unique<Workspace>(*asset); }) {
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
    w.ev.skin(std::span<glm::vec3>(w.pos).first(V),
              normals ? std::span<glm::vec3>(w.nrm).first(V) : std::span<glm::vec3>(),
              tp ? std::span<glm::vec4>(w.tan) : std::span<glm::vec4>(), 1);
    const uint32_t row = clip.first_row + k;
    const RowIn in{w.pos.data(), rest.data(), normals ? w.nrm.data() : nullptr, V};
    encode_delta_row(in, prec, pos_bytes + codec::texel_index(pp, row, 0) * texel,
                     np ? nrm_bytes + codec::texel_index(*np, row, 0) * texel : nullptr,
                     q16 ? stage.get() + size_t(k) * V : nullptr, st);
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
    parallel_for(clip.rows, 1, setup.threads, [&](size_t begin, size_t end) {
      for (size_t k = begin; k < end; ++k) {
        quantize_q16_row(stage.get() + k * V, V, lo4, scale,
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
      return make_error(ErrorCode::Limit, setup.name,
                        "clip \"" + printable(clip_label(*setup.asset, plan.animation)) + "\": a vertex moves " +
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
  Vat vat = start_vat(setup, Encoding::Delta, take_geometry ? take_vertices(setup.rest) : setup.rest, setup.joint_slots,
                      clips);

  const auto frames_start = std::chrono::steady_clock::now();
  const Precision prec = o.precision;
  const bool q16 = prec == Precision::Q16;
  const bool normals = q16 || o.normals;
  const TexelFormat format = prec == Precision::F32   ? TexelFormat::RGBA32F
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

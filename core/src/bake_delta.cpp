// The delta encoding: per frame row, the reference skinner poses the scene and every vertex's
// offset from the rest pose (and its normal, and tangent) goes into the planes. Rows are
// independent, so they are spread over threads; each writes only its own texels.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "bake_codec.h"
#include "bake_internal.h"
#include "vatkit/parallel.h"
#include "vatkit/scene.h"
#include "vatkit/summary.h"

namespace vatkit::detail {
namespace {

struct RowStats {
  glm::vec3 pmin{std::numeric_limits<float>::max()}, pmax{-std::numeric_limits<float>::max()};
  glm::vec3 dmin{std::numeric_limits<float>::max()}, dmax{-std::numeric_limits<float>::max()};
  float max_d2 = 0.0f;
};

struct Workspace {
  SceneEvaluator ev;
  std::vector<glm::vec3> pos, nrm;
  std::vector<glm::vec4> tan;
  explicit Workspace(const Asset& a) : ev(a), pos(a.instance_vertex_count), nrm(a.instance_vertex_count), tan(a.instance_vertex_count) {}
};

inline void put_f32(uint8_t* dst, float x, float y, float z, float w) {
  const float v[4] = {x, y, z, w};
  std::memcpy(dst, v, 16);
}
inline void put_f16(uint8_t* dst, float x, float y, float z, float w) {
  const uint16_t v[4] = {codec::float_to_half(x), codec::float_to_half(y), codec::float_to_half(z), codec::float_to_half(w)};
  std::memcpy(dst, v, 8);
}

}  // namespace

Result<Vat> bake_delta(const BakeSetup& setup, const std::vector<ClipPlan>& clips, Progress& progress) {
  const Asset& asset = *setup.asset;
  const BakeOptions& o = *setup.options;
  Vat vat;
  vat.encoding = Encoding::Delta;
  vat.precision = o.precision;
  vat.source = setup.name;
  vat.geometry = setup.rest;
  vat.slots = setup.joint_slots;
  vat.materials = asset.materials;
  vat.images = asset.images;
  for (const ClipPlan& c : clips) {
    VatClip vc;
    vc.name = c.name;
    vc.source_animation = c.animation;
    vc.first_row = vat.frame_rows;
    vc.rows = c.rows;
    vc.duration_s = c.duration_s;
    vc.fps = c.rows > 1 ? float(double(c.rows - 1) / double(c.duration_s)) : 0.0f;
    vc.defaults = c.defaults;
    vat.frame_rows += c.rows;
    vat.clips.push_back(vc);
  }

  const Precision prec = o.precision;
  const bool q16 = prec == Precision::Q16;
  const bool normals = q16 || o.normals;
  const TexelFormat format = prec == Precision::F32 ? TexelFormat::RGBA32F
                             : prec == Precision::F16 ? TexelFormat::RGBA16F
                                                      : TexelFormat::RGBA16Unorm;
  const uint32_t V = vat.geometry.vertex_count();
  const uint32_t J = uint32_t(vat.slots.size());
  std::vector<PlaneSpec> specs{{PlaneSemantic::Position, format, V}};
  int normal_plane = -1, tangent_plane = -1, slot_plane = -1;
  if (normals && !q16) {
    normal_plane = int(specs.size());
    specs.push_back({PlaneSemantic::Normal, format, V});
  }
  if (setup.tangents) {
    tangent_plane = int(specs.size());
    specs.push_back({PlaneSemantic::Tangent, format, V});
  }
  if (J > 0) {
    slot_plane = int(specs.size());
    specs.push_back({PlaneSemantic::Slots, format, 2 * J});
  }
  allocate_planes(vat, specs, o.max_texture_size);
  const Plane& pp = vat.planes[0];
  uint8_t* pos_bytes = plane_bytes(vat, 0);
  const Plane* np = normal_plane >= 0 ? &vat.planes[size_t(normal_plane)] : nullptr;
  uint8_t* nrm_bytes = normal_plane >= 0 ? plane_bytes(vat, size_t(normal_plane)) : nullptr;
  const Plane* tp = tangent_plane >= 0 ? &vat.planes[size_t(tangent_plane)] : nullptr;
  uint8_t* tan_bytes = tangent_plane >= 0 ? plane_bytes(vat, size_t(tangent_plane)) : nullptr;
  const size_t texel = texel_bytes(format);
  const glm::vec3* rest = vat.geometry.positions.data();

  WorkspacePool<Workspace> pool([&] { return std::make_unique<Workspace>(asset); });
  // Q16: the clip's deltas, until its range is known (uninitialized; each row writes its own).
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<glm::vec3[], Free> stage;
  if (q16) {
    uint32_t longest = 0;
    for (const ClipPlan& c : clips) longest = std::max(longest, c.rows);
    stage.reset(static_cast<glm::vec3*>(allocate_big(size_t(longest) * V * sizeof(glm::vec3))));
  }
  SlotStage slots;

  for (size_t ci = 0; ci < clips.size(); ++ci) {
    const ClipPlan& plan = clips[ci];
    VatClip& clip = vat.clips[ci];
    std::vector<RowStats> stats(plan.rows);
    if (J > 0) slots.resize(J, plan.rows);

    auto bake_row = [&](Workspace& w, uint32_t k) {
      w.ev.pose(plan.animation, row_time(plan, k));
      w.ev.skin(w.pos, normals ? std::span<glm::vec3>(w.nrm) : std::span<glm::vec3>(),
                tp ? std::span<glm::vec4>(w.tan) : std::span<glm::vec4>(), 1);
      const uint32_t row = clip.first_row + k;
      const size_t base = codec::texel_index(pp, row, 0);
      RowStats st;
      for (uint32_t v = 0; v < V; ++v) {
        const glm::vec3 p = w.pos[v];
        const glm::vec3 d = p - rest[v];
        st.pmin = glm::min(st.pmin, p);
        st.pmax = glm::max(st.pmax, p);
        st.dmin = glm::min(st.dmin, d);
        st.dmax = glm::max(st.dmax, d);
        st.max_d2 = std::max(st.max_d2, glm::dot(d, d));
        uint8_t* dst = pos_bytes + (base + v) * texel;
        if (prec == Precision::F32) {
          put_f32(dst, d.x, d.y, d.z, 0.0f);
        } else if (prec == Precision::F16) {
          put_f16(dst, d.x, d.y, d.z, 0.0f);
        } else {
          stage[size_t(k) * V + v] = d;
          const uint16_t oct = codec::oct8_encode(w.nrm[v]);
          std::memcpy(dst + 6, &oct, 2);
        }
      }
      if (np) {
        uint8_t* dst = nrm_bytes + codec::texel_index(*np, row, 0) * texel;
        for (uint32_t v = 0; v < V; ++v, dst += texel) {
          const glm::vec3 n = w.nrm[v];
          if (prec == Precision::F32) {
            put_f32(dst, n.x, n.y, n.z, 0.0f);
          } else {
            put_f16(dst, n.x, n.y, n.z, 0.0f);
          }
        }
      }
      if (tp) {
        uint8_t* dst = tan_bytes + codec::texel_index(*tp, row, 0) * texel;
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
      if (J > 0) {
        const std::span<const glm::mat4> world = w.ev.world();
        for (uint32_t j = 0; j < J; ++j) {
          const size_t i = size_t(k) * J + j;
          const codec::SimilarityFit fit =
              codec::fit_similarity(world[size_t(vat.slots[j].node)], glm::quat(1.0f, 0.0f, 0.0f, 0.0f));
          slots.q[i] = fit.transform.rotation;
          slots.t[i] = fit.transform.translation;
          slots.s[i] = fit.transform.scale;
        }
      }
      stats[k] = st;
    };

    // Rows in batches, so progress is reported from this thread between them.
    const size_t batch = std::max<size_t>(32, 8 * size_t(setup.threads));
    for (uint32_t b = 0; b < plan.rows; b += uint32_t(batch)) {
      const uint32_t n = std::min<uint32_t>(uint32_t(batch), plan.rows - b);
      parallel_for(n, 1, setup.threads, [&](size_t begin, size_t end) {
        auto w = pool.take();
        for (size_t k = begin; k < end; ++k) bake_row(*w, b + uint32_t(k));
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
        return make_error(setup.name, "clip \"" + clip_label(asset, plan.animation) + "\": a vertex moves " +
                                          std::to_string(big) + " units from rest, more than f16 holds (65504): use f32 or q16");
      }
    }
    if (q16) {
      const Bounds r = clip.delta_range;
      parallel_for(plan.rows, 1, setup.threads, [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) {
          uint8_t* dst = pos_bytes + codec::texel_index(pp, clip.first_row + uint32_t(k), 0) * texel;
          const glm::vec3* d = stage.get() + k * V;
          for (uint32_t v = 0; v < V; ++v, dst += texel) {
            const uint16_t q[3] = {codec::quantize_unorm16(d[v].x, r.min.x, r.max.x),
                                   codec::quantize_unorm16(d[v].y, r.min.y, r.max.y),
                                   codec::quantize_unorm16(d[v].z, r.min.z, r.max.z)};
            std::memcpy(dst, q, 6);
          }
        }
      });
    }
    if (J > 0) {
      if (auto r = write_slot_rows(slots, vat, size_t(slot_plane), clip, setup.name); !r) return r.error();
    }
  }
  vat.bounds = vat.clips[0].bounds;
  for (const VatClip& c : vat.clips) {
    vat.bounds.min = glm::min(vat.bounds.min, c.bounds.min);
    vat.bounds.max = glm::max(vat.bounds.max, c.bounds.max);
  }
  return vat;
}

}  // namespace vatkit::detail

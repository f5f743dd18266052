// Error of a Vat against the reference skinner: per clip, on the rows (the stored values) and
// between them (what interpolation adds), max and 99th percentile, plus the worst normal angle.
//
// The 99th percentile comes from a histogram of squared distances binned by their float bits
// (32 bins per octave of d^2, so 64 per octave of d): the reported value is the upper edge of
// the bin that holds it, at most 1.1% above the exact percentile, and never above the max.
// Squared distances and integer counts make every reduction order-independent: the numbers do
// not depend on the thread count.
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "decode/codec.h"
#include "encode/bake_internal.h"
#include "vatkit/decode.h"
#include "vatkit/parallel.h"
#include "util/printable.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace detail {
namespace {

constexpr int kBinShift = 18;  // keep the sign, 8 exponent bits and 5 mantissa bits
constexpr size_t kBins = size_t(1) << (31 - kBinShift);

// A squared distance as the histogram and the max take it: a NaN (a decoded or reference vertex
// that is not a number, whatever the sign bit) is infinitely far, never "no error".
inline float counted_d2(float d2) {
  return d2 <= std::numeric_limits<float>::max() ? d2 : std::numeric_limits<float>::infinity();
}

inline uint32_t bin_of(float d2) {
  uint32_t bits;
  std::memcpy(&bits, &d2, 4);
  return bits >> kBinShift;  // counted_d2: 0 <= d2 <= infinity, so the sign bit is 0 and bin < kBins
}

inline float bin_upper_edge(size_t bin) {
  const uint32_t bits = uint32_t(bin + 1) << kBinShift;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

struct Accumulator {
  std::vector<uint32_t> hist;
  float max_d2 = 0.0f;
  uint64_t count = 0;

  Accumulator() : hist(kBins, 0u) {}
  void reset() {
    std::fill(hist.begin(), hist.end(), 0u);
    max_d2 = 0.0f;
    count = 0;
  }
};

struct Merged {
  std::vector<uint64_t> hist = std::vector<uint64_t>(kBins, 0u);
  float max_d2 = 0.0f;
  uint64_t count = 0;

  void merge(const Accumulator& a) {
    for (size_t i = 0; i < kBins; ++i) hist[i] += a.hist[i];
    max_d2 = std::max(max_d2, a.max_d2);
    count += a.count;
  }
  // In mm, `mm` millimetres per file unit (mm_per_unit).
  float max_mm(double mm) const { return float(std::sqrt(double(max_d2)) * mm); }
  float p99_mm(double mm) const {
    if (count == 0) return 0.0f;
    const uint64_t want = (count * 99 + 99) / 100;  // ceil(0.99 count)
    uint64_t seen = 0;
    for (size_t i = 0; i < kBins; ++i) {
      seen += hist[i];
      // The infinity bin's upper edge is a NaN pattern: the max bounds the edge.
      const float edge = bin_upper_edge(i);
      if (seen >= want) return float(std::sqrt(double(edge <= max_d2 ? edge : max_d2)) * mm);
    }
    return max_mm(mm);
  }
};

struct Workspace {
  SceneEvaluator ev;
  std::vector<glm::vec3> ref_pos, ref_nrm, dec_pos, dec_nrm;
  Accumulator on, between;
  float normal_max_d2 = 0.0f;

  Workspace(const Asset& source, const Vat& vat)
      : ev(source),
        ref_pos(source.instance_vertex_count),
        ref_nrm(source.instance_vertex_count),
        dec_pos(vat.geometry.vertex_count()),
        dec_nrm(vat.geometry.vertex_count()) {}
};

struct Mapping {
  uint32_t ref_first = 0, vat_first = 0, count = 0;
};

Result<std::vector<Mapping>> map_vertices(const Asset& source, const Vat& vat) {
  const std::string where = vat.source.empty() ? source.source : vat.source;
  if (vat.geometry.sources.empty())
    return make_error(ErrorCode::Argument, where, "the VAT lists no source primitives to compare");
  // The first instance of each (node, mesh, primitive): one look-up per source, so the work is
  // (sources + instances) log, not their product.
  std::map<std::array<uint32_t, 3>, const MeshInstance*> instances;
  for (const MeshInstance& inst : source.instances)
    instances.emplace(std::array{inst.node, inst.mesh, inst.primitive}, &inst);
  std::vector<Mapping> m;
  for (const SourceRange& s : vat.geometry.sources) {
    const auto it = instances.find(std::array{s.node, s.mesh, s.primitive});
    const MeshInstance* found = it == instances.end() ? nullptr : it->second;
    if (found == nullptr) {
      return make_error(ErrorCode::Argument, where,
                        "source primitive (node " + std::to_string(s.node) + ", mesh " + std::to_string(s.mesh) +
                            ", primitive " + std::to_string(s.primitive) + ") is not drawn by " + source.source);
    }
    if (found->vertex_count != s.vertex_count) {
      return make_error(ErrorCode::Argument, where,
                        "source primitive (node " + std::to_string(s.node) + ", mesh " + std::to_string(s.mesh) +
                            ", primitive " + std::to_string(s.primitive) + ") has " + std::to_string(s.vertex_count) +
                            " vertices in the VAT and " + std::to_string(found->vertex_count) + " in " + source.source);
    }
    if (uint64_t(s.first_vertex) + s.vertex_count > vat.geometry.vertex_count()) {
      return make_error(ErrorCode::Argument, where, "source range runs past the VAT's vertices");
    }
    m.push_back(Mapping{found->first_vertex, s.first_vertex, s.vertex_count});
  }
  return m;
}

bool vat_has_normals(const Vat& vat) {
  if (vat.encoding == Encoding::Rig) return !vat.geometry.bind_normals.empty();
  const Plane* p = vat.plane(PlaneSemantic::Position);
  return vat.plane(PlaneSemantic::Normal) != nullptr || (p && p->format == TexelFormat::RGBA16Unorm);
}

struct Task {
  float time_s = 0.0f;
  uint32_t row = 0;  // absolute row, for on-row samples
  bool on_row = false;
};

// A clip of one row with a duration holds its first pose over [0, duration]: it is measured
// between that row and the clip's end as well (the samples between, and the end), so that
// what it misses shows.
bool held(const VatClip& clip) { return clip.rows == 1 && clip.duration_s > 0.0f; }

// The clips a request measures (every clip when it names none), each checked against the source.
Result<std::vector<uint32_t>> clips_to_measure(const Asset& source, const Vat& vat, const MeasureRequest& request) {
  std::vector<uint32_t> clips = request.clips;
  if (clips.empty()) {
    for (uint32_t c = 0; c < vat.clips.size(); ++c) clips.push_back(c);
  }
  for (uint32_t c : clips) {
    assert(c < vat.clips.size());
    const int a = vat.clips[c].source_animation;
    if (a < 0 || size_t(a) >= source.animations.size()) {
      return make_error(ErrorCode::Argument, vat.source,
                        "clip \"" + printable(vat.clips[c].name) + "\" names source animation " + std::to_string(a) +
                            ", which " + source.source + " does not have");
    }
  }
  return clips;
}

// A clip's samples: on each row (request.on_rows), between_samples between each two rows, and,
// for a held clip, between its row and its end.
std::vector<Task> clip_tasks(const VatClip& clip, const MeasureRequest& request) {
  std::vector<Task> tasks;
  const double step = clip.rows > 1 ? double(clip.duration_s) / double(clip.rows - 1) : double(clip.duration_s);
  for (uint32_t k = 0; k < clip.rows; ++k) {
    const double t0 = double(k) * step;
    if (request.on_rows) tasks.push_back(Task{float(t0), clip.first_row + k, true});
    if (k + 1 < clip.rows || held(clip)) {
      for (uint32_t j = 1; j <= request.between_samples; ++j) {
        tasks.push_back(Task{float(t0 + step * double(j) / double(request.between_samples + 1)), 0, false});
      }
    }
  }
  if (held(clip)) tasks.push_back(Task{clip.duration_s, 0, false});
  return tasks;
}

// One clip's sampling: the decode of each task's pose against the reference's, into a
// workspace's accumulators.
struct ClipSampling {
  const Vat& vat;
  uint32_t c;
  const std::vector<Mapping>& mapping;
  bool normals;
  std::vector<Task> tasks;
  float abort_d2;  // > 0: a sample whose squared error exceeds this stops the clip after its batch
  std::atomic<bool> abort{false};

  void run(Workspace& w, size_t begin, size_t end) {
    const int anim = vat.clips[c].source_animation;
    for (size_t i = begin; i < end; ++i) {
      const Task& task = tasks[i];
      w.ev.pose(anim, task.time_s);
      w.ev.skin(w.ref_pos, normals ? std::span<glm::vec3>(w.ref_nrm) : std::span<glm::vec3>(), {}, 1);
      const PoseBlend pose =
          task.on_row ? single(RowBlend{c, task.row, task.row, 0.0f}) : single(clip_rows_at(vat, c, task.time_s));
      const std::span<glm::vec3> dn = normals ? std::span<glm::vec3>(w.dec_nrm) : std::span<glm::vec3>();
      decode_vertices(vat, pose, 0, w.dec_pos, dn, {});
      // The accumulator's fields are updated once per task (kept in registers here: through
      // the accumulator every vertex would wait on the previous one's stores).
      Accumulator& acc = task.on_row ? w.on : w.between;
      uint32_t* hist = acc.hist.data();
      float worst = 0.0f, normal_worst = w.normal_max_d2;
      uint64_t counted = 0;
      for (const Mapping& m : mapping) {
        const glm::vec3* dec = w.dec_pos.data() + m.vat_first;
        const glm::vec3* ref = w.ref_pos.data() + m.ref_first;
        for (uint32_t v = 0; v < m.count; ++v) {
          const glm::vec3 d = dec[v] - ref[v];
          const float d2 = counted_d2(glm::dot(d, d));
          ++hist[bin_of(d2)];
          worst = std::max(worst, d2);
        }
        counted += m.count;
        if (!normals) continue;
        const glm::vec3* dn_v = w.dec_nrm.data() + m.vat_first;
        const glm::vec3* rn_v = w.ref_nrm.data() + m.ref_first;
        for (uint32_t v = 0; v < m.count; ++v) {
          const glm::vec3 a = rn_v[v], b = dn_v[v];
          if (!(std::isfinite(b.x) && std::isfinite(b.y) && std::isfinite(b.z))) {
            normal_worst = 4.0f;  // a normal that is not a number: the worst angle, 180 degrees
          } else if (glm::dot(a, a) > 0.5f && glm::dot(b, b) > 0.5f) {
            const glm::vec3 e = a - b;
            normal_worst = std::max(normal_worst, glm::dot(e, e));
          }
        }
      }
      acc.max_d2 = std::max(acc.max_d2, worst);
      acc.count += counted;
      w.normal_max_d2 = normal_worst;
      if (abort_d2 > 0.0f && worst > abort_d2) abort.store(true, std::memory_order_relaxed);
    }
  }
};

// A clip's measure from every workspace's accumulators.
ClipMeasure merged_measure(WorkspacePool<Workspace>& pool, const Asset& source, const Vat& vat, const VatClip& clip,
                           bool exceeded) {
  const double mm = mm_per_unit(vat);
  Merged on, between;
  float normal_d2 = 0.0f;
  pool.for_each([&](Workspace& w) {
    on.merge(w.on);
    between.merge(w.between);
    normal_d2 = std::max(normal_d2, w.normal_max_d2);
  });
  ClipMeasure cm;
  cm.exceeded = exceeded;
  cm.error.clip = clip.name.empty() ? clip_label(source, clip.source_animation) : clip.name;
  cm.error.rows = clip.rows;
  cm.error.fps = clip.fps;
  cm.error.on_rows_max_mm = on.max_mm(mm);
  cm.error.on_rows_p99_mm = on.p99_mm(mm);
  cm.error.between_rows_max_mm = between.max_mm(mm);
  cm.error.between_rows_p99_mm = between.p99_mm(mm);
  // |a - b| = 2 sin(angle / 2) for unit vectors: accurate for small angles, unlike acos.
  const double chord = std::min(2.0, std::sqrt(double(normal_d2)));
  cm.error.normal_max_deg = float(2.0 * std::asin(chord / 2.0) * 180.0 / 3.14159265358979323846);
  return cm;
}

}  // namespace

Result<std::function<void(uint32_t, float, std::span<glm::vec3>)>> reference_poser(const Asset& source,
                                                                                   const Vat& vat) {
  auto mapping = map_vertices(source, vat);
  if (!mapping) return mapping.error();
  struct State {
    SceneEvaluator ev;
    std::vector<glm::vec3> ref;
    std::vector<Mapping> map;
    std::vector<int32_t> animation;
    std::vector<glm::vec3> rest;
  };
  auto state = std::make_shared<State>(State{SceneEvaluator(source),
                                             std::vector<glm::vec3>(source.instance_vertex_count),
                                             std::move(*mapping),
                                             {},
                                             vat.geometry.positions});
  for (const VatClip& c : vat.clips) state->animation.push_back(c.source_animation);
  return std::function<void(uint32_t, float, std::span<glm::vec3>)>(
      [state](uint32_t clip, float time_s, std::span<glm::vec3> out) {
        std::copy(state->rest.begin(), state->rest.begin() + std::min(out.size(), state->rest.size()), out.begin());
        const int32_t a = clip < state->animation.size() ? state->animation[clip] : -1;
        if (a < 0 || size_t(a) >= state->ev.asset().animations.size()) return;
        state->ev.pose(a, time_s);
        state->ev.skin(state->ref, {}, {}, 1);
        for (const Mapping& m : state->map)
          for (uint32_t i = 0; i < m.count && m.vat_first + i < out.size(); ++i)
            out[m.vat_first + i] = state->ref[m.ref_first + i];
      });
}

Result<std::vector<ClipMeasure>> measure_clips(const Asset& source, const Vat& vat, const MeasureRequest& request) {
  auto mapping = map_vertices(source, vat);
  if (!mapping) return mapping.error();
  auto clips = clips_to_measure(source, vat, request);
  if (!clips) return clips.error();
  const bool normals = !request.positions_only && vat_has_normals(vat);
  WorkspacePool<Workspace> pool([&] { return std::make_unique<Workspace>(source, vat); });

  // Total work, for progress.
  size_t total_tasks = 0, done_tasks = 0;
  for (uint32_t c : *clips) {
    const uint32_t n = vat.clips[c].rows;
    total_tasks += (request.on_rows ? n : 0) + size_t(n - 1) * request.between_samples +
                   (held(vat.clips[c]) ? request.between_samples + 1 : 0);
  }
  // A budget whose square underflows still stops at the first error above zero.
  const float abort_d2 = request.abort_above_mm > 0.0f ? std::max(float(request.abort_above_mm / mm_per_unit(vat)) *
                                                                      float(request.abort_above_mm / mm_per_unit(vat)),
                                                                  std::numeric_limits<float>::denorm_min())
                                                       : 0.0f;

  std::vector<ClipMeasure> out;
  for (uint32_t c : *clips) {
    ClipSampling sampling{vat, c, *mapping, normals, clip_tasks(vat.clips[c], request), abort_d2};
    pool.for_each([](Workspace& w) {
      w.on.reset();
      w.between.reset();
      w.normal_max_d2 = 0.0f;
    });
    // Batches of a fixed size, between progress reports and abort checks, each run to its end: a
    // clip that stops early reports the largest error of the batches up to the one that exceeded,
    // the same on every machine and every run (the error-budget search's path depends on it).
    constexpr size_t batch = 256;
    for (size_t b = 0; b < sampling.tasks.size() && !sampling.abort.load(); b += batch) {
      const size_t n = std::min(batch, sampling.tasks.size() - b);
      parallel_for(n, 1, request.threads, [&](size_t begin, size_t end) {
        auto ws = pool.take();
        sampling.run(*ws, b + begin, b + end);
      });
      done_tasks += n;
      if (request.progress)
        request.progress(request.progress_stage, float(done_tasks) / float(std::max<size_t>(1, total_tasks)));
    }
    out.push_back(merged_measure(pool, source, vat, vat.clips[c], sampling.abort.load()));
  }
  return out;
}

}  // namespace detail

Result<std::vector<ClipError>> measure_error(const Asset& source, const Vat& vat, const VerifyOptions& options) {
  detail::MeasureRequest request;
  request.between_samples = options.between_samples;
  request.threads = options.threads;
  request.progress = options.progress;
  // A clip that stores a joint's root motion was baked in place: measured against the source
  // posed in place the same way.
  const std::optional<Asset> in_place = detail::as_baked(source, vat);
  auto r = detail::measure_clips(in_place ? *in_place : source, vat, request);
  if (!r) return r.error();
  std::vector<ClipError> out;
  for (auto& c : *r) out.push_back(std::move(c.error));
  return out;
}

}  // namespace vatkit

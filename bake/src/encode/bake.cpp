// bake(): options and clips, the merged rest geometry, texture limits, the frame-rate search,
// Auto's choice, and the report. The per-encoding frame loops are in bake_delta.cpp and
// bake_rig.cpp.
#include "vatkit/bake.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <utility>

#include "decode/codec.h"
#include "encode/bake_internal.h"
#include "simd/slot_rows.h"
#include "vatkit/lod.h"
#include "vatkit/parallel.h"
#include "util/printable.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

Result<std::vector<ClipPlan>> plan_clips(const Asset& asset, const BakeOptions& options) {
  if (asset.animations.empty()) {
    return make_error(ErrorCode::Unsupported, asset.source, "has no animations: there is nothing to bake");
  }
  std::vector<int> chosen;
  if (options.clips.empty()) {
    for (size_t i = 0; i < asset.animations.size(); ++i) chosen.push_back(int(i));
  } else {
    for (const std::string& sel : options.clips) {
      auto c = find_clip(asset, sel);
      if (!c) return c.error();
      if (std::find(chosen.begin(), chosen.end(), *c) != chosen.end()) {
        return make_error(ErrorCode::Argument, asset.source, "clip \"" + printable(sel) + "\" is selected twice");
      }
      chosen.push_back(*c);
    }
  }
  std::vector<ClipPlan> plans;
  for (int a : chosen) {
    ClipPlan p;
    p.animation = a;
    p.name = asset.animations[size_t(a)].name;
    p.duration_s = asset.animations[size_t(a)].end_s;
    // A named entry wins over "*", whatever their order.
    for (const auto& [name, defaults] : options.clip_defaults) {
      if (name == "*" && !p.defaults_given) p.defaults = defaults, p.defaults_given = true;
    }
    for (const auto& [name, defaults] : options.clip_defaults) {
      if (name == p.name || name == clip_label(asset, a)) p.defaults = defaults, p.defaults_given = true;
    }
    if (!(p.defaults.speed >= 0.0f) || !std::isfinite(p.defaults.speed)) {
      return make_error(ErrorCode::Argument, asset.source,
                        "clip \"" + printable(clip_label(asset, a)) + "\": speed " + fmt("%g", p.defaults.speed) +
                            " is not a finite number >= 0");
    }
    if (p.defaults.repetitions < kInfiniteRepetitions) {
      return make_error(ErrorCode::Argument, asset.source,
                        "clip \"" + printable(clip_label(asset, a)) + "\": repetitions " +
                            std::to_string(p.defaults.repetitions) + " < -1");
    }
    plans.push_back(std::move(p));
  }
  return plans;
}

}  // namespace

uint64_t rows_at_fps(float duration_s, double fps) {
  if (!(duration_s > 0.0f)) return 1;
  const double rows = std::round(double(duration_s) * fps) + 1.0;
  return rows < double(kRowsSaturated) ? uint64_t(rows) : kRowsSaturated;
}

namespace {

uint32_t total_rows(const std::vector<ClipPlan>& clips) {
  uint64_t n = 0;
  for (const ClipPlan& c : clips) n += c.rows;
  return uint32_t(std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max()));
}

}  // namespace

Vat start_vat(const BakeSetup& setup, Encoding encoding, VatGeometry geometry, std::vector<VatSlot> slots,
              const std::vector<ClipPlan>& clips) {
  Vat vat;
  vat.encoding = encoding;
  vat.precision = setup.options->precision;
  vat.metres_per_unit = setup.options->metres_per_unit;
  vat.source = setup.name;
  vat.geometry = std::move(geometry);
  vat.slots = std::move(slots);
  vat.materials = setup.asset->materials;
  vat.images = setup.asset->images;
  for (const ClipPlan& c : clips) {
    VatClip vc;
    vc.name = c.name;
    vc.source_animation = c.animation;
    vc.first_row = vat.frame_rows;
    vc.rows = c.rows;
    vc.duration_s = c.duration_s;
    vc.fps = c.rows > 1 ? float(double(c.rows - 1) / double(c.duration_s)) : 0.0f;
    vc.defaults = c.defaults;
    vc.events = c.events;
    vat.frame_rows += c.rows;
    vat.clips.push_back(vc);
  }
  return vat;
}

void finish_vat(Vat& vat, Progress& progress, std::chrono::steady_clock::time_point frames_start) {
  vat.bounds = vat.clips[0].bounds;
  for (const VatClip& c : vat.clips) {
    vat.bounds.min = glm::min(vat.bounds.min, c.bounds.min);
    vat.bounds.max = glm::max(vat.bounds.max, c.bounds.max);
  }
  progress.frame_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - frames_start).count();
}

// ---- planes ------------------------------------------------------------------------------------

VatGeometry take_vertices(VatGeometry& from) {
  static_assert(sizeof(VatGeometry) == 16 * sizeof(std::vector<char>), "take_vertices: move the new array too");
  VatGeometry g;
  g.indices = from.indices;  // copies: `from`'s may be in use
  g.groups = from.groups;
  g.positions = std::move(from.positions);
  g.normals = std::move(from.normals);
  g.tangents = std::move(from.tangents);
  g.texcoords0 = std::move(from.texcoords0);
  g.colors0 = std::move(from.colors0);
  g.bind_positions = std::move(from.bind_positions);
  g.bind_normals = std::move(from.bind_normals);
  g.bind_tangents = std::move(from.bind_tangents);
  g.slots0 = std::move(from.slots0);
  g.slots1 = std::move(from.slots1);
  g.slot_weights0 = std::move(from.slot_weights0);
  g.slot_weights1 = std::move(from.slot_weights1);
  g.sources = std::move(from.sources);
  g.lods = std::move(from.lods);
  return g;
}

PlaneShape plane_shape(uint32_t texels_per_frame, uint32_t max_texture_size) {
  PlaneShape s;
  s.rows_per_frame = std::max(1u, (texels_per_frame + max_texture_size - 1) / max_texture_size);
  s.width = (texels_per_frame + s.rows_per_frame - 1) / s.rows_per_frame;
  return s;
}

namespace {
struct PlaneStore {
  std::vector<uint8_t*> buffers;
  ~PlaneStore() {
    for (uint8_t* b : buffers) free_big(b);
  }
};
}  // namespace

void allocate_planes(Vat& vat, const std::vector<PlaneSpec>& specs, uint32_t max_texture_size) {
  auto store = std::make_shared<PlaneStore>();
  vat.planes.clear();
  for (size_t i = 0; i < specs.size(); ++i) {
    Plane p;
    p.semantic = specs[i].semantic;
    p.format = specs[i].format;
    p.texels_per_frame = specs[i].texels_per_frame;
    const PlaneShape shape = plane_shape(p.texels_per_frame, max_texture_size);
    p.width = shape.width;
    p.rows_per_frame = shape.rows_per_frame;
    p.height = p.rows_per_frame * vat.frame_rows;
    uint8_t* bytes = static_cast<uint8_t*>(allocate_big(p.byte_size()));
    store->buffers.push_back(bytes);
    // The bake writes every texel of every frame; only the padding after a wrapped frame's last
    // texel is zeroed here, so the bytes are defined.
    const size_t frame_texels = size_t(p.rows_per_frame) * p.width;
    const size_t tb = texel_bytes(p.format);
    if (frame_texels > p.texels_per_frame) {
      for (uint32_t r = 0; r < vat.frame_rows; ++r) {
        std::memset(bytes + (size_t(r) * frame_texels + p.texels_per_frame) * tb, 0,
                    (frame_texels - p.texels_per_frame) * tb);
      }
    }
    p.data = std::span<const uint8_t>(bytes, p.byte_size());
    vat.planes.push_back(p);
  }
  vat.storage = store;
}

namespace {

// Hemisphere: each row's quaternion on the side of the previous row's; a slot scaled to nothing
// (s = 0) keeps the previous rotation, so the blend toward it does not spin. The Q16 ranges
// (translation xyz and scale in one vector) in the same pass, into lo and hi.
void align_hemispheres(SlotStage& st, uint32_t stage_row, uint32_t rows, v4& lo, v4& hi) {
  const uint32_t S = st.slots;
  for (uint32_t k = 0; k < rows; ++k) {
    float* row = st.row(stage_row + k);
    const float* prev_row = k > 0 ? st.row(stage_row + k - 1) : nullptr;
    for (uint32_t s = 0; s < S; ++s) {
      float* qp = row + 8 * size_t(s);
      const v4 q = load4(qp), ts = load4(qp + 4);
      if (k == 0) {
        if (q[3] < 0.0f) store4(qp, -q);
      } else {
        const v4 prev = load4(prev_row + 8 * size_t(s));
        const v4 m = q * prev;
        if (ts[3] == 0.0f) {
          store4(qp, prev);
        } else if (m[0] + m[1] + m[2] + m[3] < 0.0f) {
          store4(qp, -q);
        }
      }
      lo = min4(ts, lo);
      hi = max4(ts, hi);
    }
  }
}

// The staged rows of `clip` as texels of plane `p` (`bytes`), q16's translation-scale against
// the range [lo, hi].
void encode_slot_rows(SlotStage& st, uint32_t stage_row, const Plane& p, uint8_t* bytes, const VatClip& clip, v4 lo,
                      v4 hi) {
  const v4 t_scale{codec::unorm16_scale(lo[0], hi[0]), codec::unorm16_scale(lo[1], hi[1]),
                   codec::unorm16_scale(lo[2], hi[2]), codec::unorm16_scale(lo[3], hi[3])};
  for (uint32_t k = 0; k < clip.rows; ++k) {
    uint8_t* out = bytes + codec::texel_index(p, clip.first_row + k, 0) * texel_bytes(p.format);
    encode_slot_row(st.row(stage_row + k), st.slots, p.format, lo, t_scale, out);
  }
}

}  // namespace

Result<void> write_slot_rows(SlotStage& st, uint32_t stage_row, Vat& vat, size_t plane_index, VatClip& clip,
                             const std::string& name) {
  const Plane& p = vat.planes[plane_index];
  const uint32_t S = st.slots;
  const uint32_t rows = clip.rows;
  const float big = std::numeric_limits<float>::max();
  v4 lo = v4{} + big, hi = v4{} - big;
  align_hemispheres(st, stage_row, rows, lo, hi);
  Bounds tr{glm::vec3(lo[0], lo[1], lo[2]), glm::vec3(hi[0], hi[1], hi[2])};
  float smin = lo[3], smax = hi[3];
  if (S == 0 || rows == 0) {
    tr = Bounds{};
    smin = smax = 1.0f;
    lo = v4{0.0f, 0.0f, 0.0f, 1.0f};
    hi = lo;
  }
  clip.translation_range = tr;
  clip.scale_min = smin;
  clip.scale_max = smax;
  if (p.format == TexelFormat::RGBA16F) {
    const float largest = std::max({codec::max_abs(tr.min), codec::max_abs(tr.max), std::fabs(smin), std::fabs(smax)});
    if (largest > codec::kHalfMax) {
      return make_error(ErrorCode::Limit, name,
                        "clip \"" + printable(clip.name) + "\": a slot translation or scale of " + fmt("%g", largest) +
                            " does not fit f16 (at most 65504): use f32 or q16");
    }
  }
  if (p.format == TexelFormat::RGBA32F && st.in_plane) return {};
  encode_slot_rows(st, stage_row, p, plane_bytes(vat, plane_index), clip, lo, hi);
  return {};
}

// ---- the rest geometry -------------------------------------------------------------------------

namespace {

// The rest geometry's positions, normals and tangents (setup.tangents) of `n` vertices: the
// scene's rest pose through the reference skinner, and its world matrices (setup.rest_world).
Result<void> pose_rest(BakeSetup& setup, uint32_t n) {
  VatGeometry& g = setup.rest;
  g.positions.resize(n);
  g.normals.resize(n);
  if (setup.tangents) g.tangents.resize(n);
  {
    SceneEvaluator ev(*setup.asset);
    ev.pose(-1, 0.0f);
    ev.skin(g.positions, g.normals, setup.tangents ? std::span<glm::vec4>(g.tangents) : std::span<glm::vec4>(),
            setup.threads);
    setup.rest_world.assign(ev.world().begin(), ev.world().end());
  }
  // A normal or tangent the skinner cannot make a direction of (a zero source normal, a vertex
  // whose weights are all zero) is not a number; the file stores every float finite, so such a
  // vertex gets a zero vector (no direction) instead.
  auto finite3 = [](const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
  // Finite inputs can still overflow once transformed (a huge node scale): such a rest pose has
  // no file form, so the bake stops here rather than write what no loader accepts.
  for (size_t v = 0; v < g.positions.size(); ++v) {
    if (!finite3(g.positions[v])) {
      return make_error(ErrorCode::Limit, setup.name,
                        "rest pose: vertex " + std::to_string(v) +
                            " leaves float32's range once placed in the scene (node transforms too large)");
    }
  }
  for (glm::vec3& nrm : g.normals)
    if (!finite3(nrm)) nrm = glm::vec3(0.0f);
  for (glm::vec4& t : g.tangents)
    if (!finite3(glm::vec3(t)) || !std::isfinite(t.w)) t = glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
  return {};
}

// One draw group per material, default material (-1) first, then in material order.
void add_draw_groups(const Asset& asset, VatGeometry& g) {
  for (int32_t m = -1; m < int32_t(asset.materials.size()); ++m) {
    DrawGroup group;
    group.material = m;
    group.first_index = uint32_t(g.indices.size());
    for (const MeshInstance& inst : asset.instances) {
      const Primitive& prim = asset.meshes[inst.mesh].primitives[inst.primitive];
      if (prim.material != m) continue;
      for (uint32_t i : prim.indices) g.indices.push_back(inst.first_vertex + i);
    }
    group.index_count = uint32_t(g.indices.size()) - group.first_index;
    if (group.index_count > 0) g.groups.push_back(group);
  }
}

}  // namespace

Result<BakeSetup> prepare_bake(const Asset& asset, const BakeOptions& options) {
  BakeSetup setup;
  setup.asset = &asset;
  setup.options = &options;
  setup.threads = thread_count(options.threads);
  setup.name = asset.source;
  if (asset.instances.empty() || asset.instance_vertex_count == 0) {
    return make_error(ErrorCode::Unsupported, asset.source,
                      "the default scene draws no mesh: there is nothing to bake");
  }
  const uint32_t n = asset.instance_vertex_count;
  bool any_tangents = false, any_uv = false, any_color = false;
  for (const MeshInstance& inst : asset.instances) {
    const Primitive& prim = asset.meshes[inst.mesh].primitives[inst.primitive];
    any_tangents |= !prim.tangents.empty();
    any_uv |= !prim.texcoords0.empty();
    any_color |= !prim.colors0.empty();
  }
  setup.tangents = any_tangents && options.tangents;

  VatGeometry& g = setup.rest;
  if (auto posed = pose_rest(setup, n); !posed) return posed.error();
  if (any_uv) g.texcoords0.assign(n, glm::vec2(0.0f));
  if (any_color) g.colors0.assign(n, glm::vec4(1.0f));
  for (const MeshInstance& inst : asset.instances) {
    const Primitive& prim = asset.meshes[inst.mesh].primitives[inst.primitive];
    if (!prim.texcoords0.empty())
      std::copy(prim.texcoords0.begin(), prim.texcoords0.end(), g.texcoords0.begin() + inst.first_vertex);
    if (!prim.colors0.empty())
      std::copy(prim.colors0.begin(), prim.colors0.end(), g.colors0.begin() + inst.first_vertex);
    SourceRange r;
    r.node = inst.node;
    r.mesh = inst.mesh;
    r.primitive = inst.primitive;
    r.first_vertex = inst.first_vertex;
    r.vertex_count = inst.vertex_count;
    r.source_vertex_count = prim.source_vertex_count;
    g.sources.push_back(r);
  }
  add_draw_groups(asset, g);
  // Socket slots of a delta bake: every distinct skin joint, in first-seen order.
  std::vector<char> is_slot(asset.nodes.size(), 0);
  for (const Skin& skin : asset.skins) {
    for (uint32_t j : skin.joints) {
      if (is_slot[j]) continue;
      is_slot[j] = 1;
      setup.joint_slots.push_back(VatSlot{asset.nodes[j].name, int32_t(j), glm::mat4(1.0f)});
    }
  }
  return setup;
}

// ---- texture limits ----------------------------------------------------------------------------

namespace {

// A plane's texels per frame, by what it holds.
struct Need {
  const char* what;
  uint32_t texels;
};

// The smallest texture size limit above `limit` at which every one of `clips` clips gets one row
// (the planes' rows per frame shrink as the limit grows, so the test is monotonic).
uint64_t limit_for_one_row_per_clip(const std::vector<Need>& needs, size_t clips, uint32_t limit) {
  auto holds = [&](uint64_t l) {
    uint64_t per_frame = 1;
    for (const Need& n : needs) per_frame = std::max<uint64_t>(per_frame, (uint64_t(n.texels) + l - 1) / l);
    return uint64_t(clips) * per_frame <= l;
  };
  uint64_t lo = limit, hi = uint64_t(1) << 32;  // lo fails
  while (hi - lo > 1) (holds((lo + hi) / 2) ? hi : lo) = (lo + hi) / 2;
  return hi;
}

// What fits in `max_frame_rows` frame rows: the largest common frame rate (rows grow with the
// rate), the first clips as planned, and, for a delta, the rig when it would fit.
std::string what_fits(BakeSetup& setup, Encoding encoding, const std::vector<ClipPlan>& clips,
                      uint64_t max_frame_rows) {
  auto rows_at = [&](double fps) {
    uint64_t r = 0;
    for (const ClipPlan& c : clips) r += rows_at_fps(c.duration_s, fps);
    return r;
  };
  double lo = 0.0, hi = 100000.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (rows_at(mid) <= max_frame_rows ? lo : hi) = mid;
  }
  double fps_fit = std::floor(lo * 100.0) / 100.0;
  while (fps_fit > 0.0 && rows_at(fps_fit) > max_frame_rows) fps_fit -= 0.01;
  // How many of the clips, in order, fit as planned.
  size_t first_clips = 0;
  uint64_t acc = 0;
  while (first_clips < clips.size() && acc + clips[first_clips].rows <= max_frame_rows)
    acc += clips[first_clips++].rows;
  std::string fits = "; what fits: " + std::to_string(max_frame_rows) + " frame rows, e.g. fps " +
                     fmt("%.2f", fps_fit) + " for these clips, or the first " + std::to_string(first_clips) +
                     " of the " + std::to_string(clips.size()) + " clips as planned";
  if (encoding == Encoding::Delta) prepare_rig(setup, clips);
  if (encoding == Encoding::Delta && !setup.rig_slots.empty() && setup.rig_error.empty()) {
    const uint32_t limit = setup.options->max_texture_size;
    fits += ", or the rig encoding (" +
            std::to_string(plane_shape(2 * uint32_t(setup.rig_slots.size()), limit).rows_per_frame) +
            " texture row per frame)";
  }
  return fits;
}

}  // namespace

Result<void> check_fits(BakeSetup& setup, Encoding encoding, const std::vector<ClipPlan>& clips) {
  const uint32_t limit = setup.options->max_texture_size;
  const size_t slot_count = encoding == Encoding::Rig ? setup.rig_slots.size() : setup.joint_slots.size();
  if (slot_count > kMaxVatSlots) {
    // Before any row is made: a .vat.glb could not hold the result.
    return make_error(ErrorCode::Limit, setup.name,
                      std::string(to_string(encoding)) +
                          " encoding: " + (encoding == Encoding::Rig ? "the rig needs " : "the skins have ") +
                          std::to_string(slot_count) +
                          (encoding == Encoding::Rig ? " slots" : " distinct joints (one socket slot each)") +
                          ", more than the " + std::to_string(kMaxVatSlots) + " a .vat.glb holds");
  }
  const uint32_t slots = uint32_t(slot_count);
  std::vector<Need> needs;
  if (encoding == Encoding::Delta) needs.push_back({"position", setup.rest.vertex_count()});
  if (slots > 0) needs.push_back({"slots", 2 * slots});
  uint32_t rows_per_frame = 1;
  const char* widest = "position";
  for (const Need& n : needs) {
    const PlaneShape s = plane_shape(n.texels, limit);
    if (s.rows_per_frame > rows_per_frame) {
      rows_per_frame = s.rows_per_frame;
      widest = n.what;
    }
  }
  const uint64_t frame_rows = [&] {
    uint64_t r = 0;
    for (const ClipPlan& c : clips) r += c.rows;
    return r;
  }();
  const uint64_t height = frame_rows * rows_per_frame;
  if (height <= limit) return {};

  const uint64_t max_frame_rows = limit / rows_per_frame;
  std::string what = std::string(to_string(encoding)) + " " + widest + " plane needs " +
                     std::to_string(rows_per_frame) + " texture row(s) per frame x " + std::to_string(frame_rows) +
                     " frame rows = " + std::to_string(height) + " rows, over the texture size limit " +
                     std::to_string(limit);
  if (max_frame_rows < clips.size()) {
    return make_error(ErrorCode::Limit, setup.name,
                      what + "; even one row per clip does not fit (" + std::to_string(max_frame_rows) +
                          " frame rows fit, " + std::to_string(clips.size()) +
                          " clips): a texture size limit of at least " +
                          std::to_string(limit_for_one_row_per_clip(needs, clips.size(), limit)) +
                          " holds one row per clip, or bake fewer clips");
  }
  return make_error(ErrorCode::Limit, setup.name, what + what_fits(setup, encoding, clips, max_frame_rows));
}

}  // namespace detail

// ---- bake --------------------------------------------------------------------------------------

namespace {

using detail::ClipPlan;

// The options a bake checks before it reads the asset.
Result<void> check_options(const Asset& asset, const BakeOptions& options) {
  auto fps_in_range = [](float fps) { return fps >= kMinBakeFps && fps <= kMaxBakeFps; };
  const std::string fps_range = "[" + detail::fmt("%g", kMinBakeFps) + ", " + detail::fmt("%g", kMaxBakeFps) + "]";
  if (!(options.max_error_mm >= 0.0f) || !std::isfinite(options.max_error_mm)) {
    return make_error(ErrorCode::Argument, asset.source,
                      "max error " + detail::fmt("%g", options.max_error_mm) + " mm is not a number >= 0");
  }
  if (options.max_error_mm <= 0.0f && !fps_in_range(options.fps)) {
    return make_error(ErrorCode::Argument, asset.source,
                      "fps " + detail::fmt("%g", options.fps) + " is outside " + fps_range);
  }
  if (options.max_error_mm > 0.0f && !fps_in_range(options.max_search_fps)) {
    return make_error(ErrorCode::Argument, asset.source,
                      "max search fps " + detail::fmt("%g", options.max_search_fps) + " is outside " + fps_range);
  }
  if (options.max_texture_size == 0 || options.max_texture_size > kMaxTextureSize) {
    return make_error(ErrorCode::Argument, asset.source,
                      "max texture size " + std::to_string(options.max_texture_size) + " is outside [1, " +
                          std::to_string(kMaxTextureSize) + "]");
  }
  if (options.lods > kMaxBakeLods) {
    return make_error(
        ErrorCode::Argument, asset.source,
        "levels of detail " + std::to_string(options.lods) + " is outside [0, " + std::to_string(kMaxBakeLods) + "]");
  }
  if (options.precision > Precision::Q16) return make_error(ErrorCode::Argument, asset.source, "unknown precision");
  if (!(options.metres_per_unit > 0.0f) || !std::isfinite(options.metres_per_unit) || options.metres_per_unit > 1e6f) {
    return make_error(ErrorCode::Argument, asset.source,
                      "metres per unit " + detail::fmt("%g", options.metres_per_unit) + " is outside (0, 1e6]");
  }
  return {};
}

// VATKIT_DEBUG_BAKE=1: each stage's wall time on stderr (for finding fixed costs; bench_bake
// and docs/benchmarks.md).
struct StageClock {
  bool on = std::getenv("VATKIT_DEBUG_BAKE") != nullptr;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  std::string line;
  void lap(const char* stage) {
    if (!on) return;
    const auto now = std::chrono::steady_clock::now();
    line += std::string(line.empty() ? "" : ", ") + stage + " " +
            detail::fmt("%.0f", std::chrono::duration<double, std::micro>(now - last).count());
    last = now;
  }
  ~StageClock() {
    if (on) std::fprintf(stderr, "bake stages (us): %s\n", line.c_str());
  }
};

// A fixed rate's rows, checked before anything is prepared: every clip's rows lie in one
// texture, so a clip with more rows than the largest texture size limit can never fit (one
// over this bake's limit fails in check_fits, which says what would fit). Returns the notes on
// clips that get one row.
Result<std::vector<std::string>> fixed_rate_rows(const Asset& asset, const BakeOptions& options,
                                                 std::vector<ClipPlan>& plans) {
  std::vector<std::string> row_notes;
  if (options.max_error_mm > 0.0f) return row_notes;
  for (ClipPlan& c : plans) {
    const uint64_t rows = detail::rows_at_fps(c.duration_s, options.fps);
    const std::string clip =
        "clip \"" + clip_label(asset, c.animation) + "\" (" + detail::fmt("%g", c.duration_s) + " s";
    if (rows > kMaxTextureSize) {
      return make_error(ErrorCode::Limit, asset.source,
                        clip + ") at " + detail::fmt("%g", options.fps) + " fps needs " +
                            (rows >= detail::kRowsSaturated ? "over " : "") + std::to_string(rows) +
                            " frame rows, more than a VAT holds (" + std::to_string(kMaxTextureSize) +
                            ", the largest texture size limit: every clip's rows share one texture)");
    }
    c.rows = uint32_t(rows);
    if (c.rows == 1 && c.duration_s > 0.0f) {
      row_notes.push_back(clip + ") has 1 frame row at " + detail::fmt("%g", options.fps) +
                          " fps: it holds its first pose for the whole clip");
    }
  }
  return row_notes;
}

// The full mesh's vertex-cache order into `cache_ordered`; it depends only on the rest geometry:
// a pool worker makes it while this thread prepares the rig and makes the frame rows (run alone
// after them, it is a large share of a small bake). Below ~2k triangles it takes less than waking
// a worker costs, so it runs on this thread when waited for.
AsyncTask order_vertex_cache(const detail::BakeSetup& setup, unsigned threads, std::vector<uint32_t>& cache_ordered) {
  constexpr size_t kAsyncOrderTriangles = 2048;
  return AsyncTask(
      // setup.rest's indices and groups are only read from here on (a bake's VAT may take its
      // vertices: detail::take_vertices), and the caller destroys (waits for) the task before
      // `setup`: no copy of the index buffer (a fresh copy costs page faults).
      [&cache_ordered, &rest = setup.rest, vertices = setup.rest.vertex_count()] {
        cache_ordered = detail::vertex_cache_order(rest.indices, rest.groups, vertices);
      },
      setup.rest.indices.size() / 3 >= kAsyncOrderTriangles ? threads : 1);
}

// What was measured of a bake, for the report and the file.
struct Measured {
  std::vector<ClipError> clips;
  bool have = false;
};

// The number of intervals M when every key time of `anim` lies on the grid k * end_s / M (so
// that n - 1 = M rows put a row on every key), else 0.
uint32_t key_grid_intervals(const Animation& anim) {
  std::vector<float> times;
  for (const Channel& ch : anim.channels) {
    const Sampler& s = anim.samplers[ch.sampler];
    times.insert(times.end(), s.times.begin(), s.times.end());
  }
  std::sort(times.begin(), times.end());
  const float D = anim.end_s;
  if (times.size() < 2 || !(D > 0.0f)) return 0;
  double h = 0.0;
  for (size_t i = 1; i < times.size(); ++i) {
    const double gap = double(times[i]) - double(times[i - 1]);
    if (gap > 1e-6 * D && (h == 0.0 || gap < h)) h = gap;
  }
  if (h == 0.0) return 0;
  const double m = std::round(double(D) / h);
  if (m < 1.0 || m > 1e6) return 0;
  const double grid = double(D) / m;
  for (float t : times) {
    const double k = double(t) / grid;
    if (std::fabs(k - std::round(k)) > 1e-3) return 0;
  }
  return uint32_t(m);
}

struct Baker {
  const Asset& asset;
  const BakeOptions& options;
  detail::BakeSetup& setup;
  double measure_seconds = 0.0;
  std::vector<std::string> row_notes;  // fixed_rate_rows' notes
  std::vector<std::string> reasons;    // Auto: why each candidate was taken or left
  std::string candidate_precision;     // Auto: the candidate's precision where not the requested one
  // The search's vertex subset (RowSearch), made at its first try; none where it would save too
  // little. A delta at f32 or f16 bakes its tries on `subset_delta`, the subset's own setup.
  bool subset_made = false;
  std::optional<detail::VertexSubset> subset;
  std::optional<detail::BakeSetup> subset_delta;
  // search_clips: each clip's whole measurement at the rows found, what the final bake's
  // measurement of that clip gives (BakeFrameRateSearch.ReportsWhatAFreshMeasurementGives).
  std::vector<ClipError> searched;

  // Auto kept the rig at another precision than the requested one: says so, with what the delta
  // at the requested precision would have cost in bytes.
  void note_kept_rig(const Vat& vat, const std::vector<ClipPlan>& clips) {
    uint64_t rig_bytes = 0;
    for (const Plane& plane : vat.planes) rig_bytes += plane.byte_size();
    const bool normal_plane = options.normals && options.precision != Precision::Q16;
    const uint64_t texels_per_row = uint64_t(setup.rest.vertex_count()) * (1 + normal_plane + setup.tangents) +
                                    2 * uint64_t(setup.joint_slots.size());
    const uint64_t delta_bytes =
        texels_per_row * detail::total_rows(clips) *
        texel_bytes(options.precision == Precision::F32 ? TexelFormat::RGBA32F : TexelFormat::RGBA16F);
    reasons.push_back(std::string("kept the rig at ") + to_string(vat.precision) + " (" +
                      detail::fmt("%.3g", double(rig_bytes) / 1e6) + " MB of planes) rather than a delta at " +
                      to_string(options.precision) + " (about " + detail::fmt("%.3g", double(delta_bytes) / 1e6) +
                      " MB); --encoding delta bakes the delta");
  }

  // `last`: no bake of this encoding follows (not a search bake): the VAT takes the setup's
  // geometry (detail::bake_rig).
  Result<Vat> bake_encoding(Encoding e, const std::vector<ClipPlan>& clips, detail::Progress& progress, bool last) {
    if (auto fit = detail::check_fits(setup, e, clips); !fit) return fit.error();
    auto vat = e == Encoding::Rig ? detail::bake_rig(setup, clips, progress, last)
                                  : detail::bake_delta(setup, clips, progress, last);
    if (!vat) return vat;
    // Keys and transforms that are finite each can still pose a vertex past float32's range
    // (a translation of 3e38 under a scale of 2): said here, by clip, not by the file writer.
    auto finite3 = [](const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
    for (size_t i = 0; i < vat->clips.size(); ++i) {
      const VatClip& c = vat->clips[i];
      if (!std::isfinite(c.max_delta) || !finite3(c.bounds.min) || !finite3(c.bounds.max)) {
        return make_error(ErrorCode::Limit, setup.name,
                          "clip \"" + printable(clip_label(*vat, int(i))) +
                              "\": posed vertices leave float32's range (the clip's bounds are not finite)");
      }
    }
    return vat;
  }

  Result<std::vector<detail::ClipMeasure>> measure(const Vat& vat, float abort_above_mm, const std::string& stage,
                                                   uint32_t between = 3) {
    return measure_against(asset, vat, abort_above_mm, stage, between);
  }
  // `source`: the asset, or a search subset's cut of it (detail::VertexSubset); `positions_only`
  // for a measurement that is never a report (a try on the subset).
  Result<std::vector<detail::ClipMeasure>> measure_against(const Asset& source, const Vat& vat, float abort_above_mm,
                                                           const std::string& stage, uint32_t between = 3,
                                                           bool positions_only = false) {
    const auto t0 = std::chrono::steady_clock::now();
    detail::MeasureRequest req;
    req.between_samples = between;
    req.threads = setup.threads;
    req.abort_above_mm = abort_above_mm;
    req.positions_only = positions_only;
    req.progress = options.progress;
    req.progress_stage = stage;
    auto r = detail::measure_clips(source, vat, req);
    measure_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  // A row count n such that n rows keep the decode of `clip` within the budget, on and between
  // rows, and n - 1 rows do not. The error is far from monotonic in n: linearly interpolated
  // (LINEAR) keys put a kink in the motion at every key, and interpolating across a kink costs
  // about |velocity change| * row interval / 4, so rates whose rows land on the keys are far
  // better than their neighbours (Fox's 24 fps walk meets 50 mm at 24 fps and 480 fps, nowhere
  // between). So: (1) when the clip's keys sit on a uniform grid of M intervals, try n - 1 = M
  // (the source rate), its multiples, and its divisors (every d-th key on a row); (2) otherwise
  // search upward from 30 fps with the smooth-motion model (error ~ 1 / rate^2) until a rate
  // passes; (3) then bisect below the passing count until n passes and n - 1 fails (RowSearch).
  // `measured`: the whole measurement at the rows found.
  Result<uint32_t> search_rows(Encoding e, const ClipPlan& clip, float budget_mm, ClipError* measured);

  // Every clip's rows for options.max_error_mm (search_rows), reporting progress per clip; their
  // measurements into `searched`.
  Result<std::vector<ClipPlan>> search_clips(Encoding e, std::vector<ClipPlan> clips) {
    searched.assign(clips.size(), ClipError{});
    for (size_t c = 0; c < clips.size(); ++c) {
      auto rows = search_rows(e, clips[c], options.max_error_mm, &searched[c]);
      if (!rows) return rows.error();
      clips[c].rows = *rows;
      if (options.progress) options.progress("search", float(c + 1) / float(clips.size()));
    }
    return clips;
  }

  // An error's message without the "<source>: " it starts with: a reason in the report.
  std::string why(const Error& err) const {
    const std::string prefix = setup.name + ": ";
    return err.message.rfind(prefix, 0) == 0 ? err.message.substr(prefix.size()) : err.message;
  }

  // Auto, with the delta still to come: whether the rig represents the poses within `budget`.
  // Without a target error it is judged on the rows (what a rig cannot represent); the search
  // already judged it otherwise. The verdict joins `reasons`; the measurement is kept.
  // `measured` may hold the search's measurements already (the same numbers).
  Result<bool> rig_within_budget(const Vat& vat, float budget, Measured& measured) {
    if (!measured.have) {
      if (auto m = measure_all(vat, measured); !m) return m.error();
    }
    float worst = 0.0f;
    std::string worst_clip;
    for (const ClipError& c : measured.clips) {
      const float err =
          options.max_error_mm > 0.0f ? std::max(c.on_rows_max_mm, c.between_rows_max_mm) : c.on_rows_max_mm;
      if (err >= worst) {
        worst = err;
        worst_clip = c.clip;
      }
    }
    const std::string rig = candidate_precision.empty() ? "rig" : "rig at " + candidate_precision;
    if (worst > budget) {
      reasons.push_back(rig + " error " + detail::fmt("%.3g", worst) + " mm (clip \"" + worst_clip +
                        "\") exceeds the " + detail::fmt("%g", budget) + " mm budget");
      return false;
    }
    reasons.push_back(rig + " error " + detail::fmt("%.3g", worst) + " mm " +
                      (options.max_error_mm > 0.0f ? "" : "on the rows ") + "is within the " +
                      detail::fmt("%g", budget) + " mm budget");
    return true;
  }

  // The measurements the bake keeps: the search's where it ran (each clip at its rows: what
  // measuring this bake gives), else a measurement when options.measure asks for one. `judge_rig`
  // (Auto, with the delta still to come): nullopt when the rig misses `budget`.
  Result<std::optional<Measured>> measured_for(const Vat& vat, bool judge_rig, float budget, StageClock& clock) {
    Measured measured;
    if (options.max_error_mm > 0.0f && (options.measure || judge_rig)) {
      measured.clips = searched;
      measured.have = true;
    }
    if (judge_rig) {
      auto within = rig_within_budget(vat, budget, measured);
      if (!within) return within.error();
      clock.lap("measure");
      if (!*within) return std::optional<Measured>();
    }
    if (options.measure && !measured.have) {
      if (auto m = measure_all(vat, measured); !m) return m.error();
      clock.lap("measure");
    }
    return std::optional<Measured>(std::move(measured));
  }

  Result<void> measure_all(const Vat& vat, Measured& measured) {
    auto m = measure(vat, 0.0f, "measure");
    if (!m) return m.error();
    for (auto& c : *m) measured.clips.push_back(c.error);
    measured.have = true;
    return {};
  }

  // Levels of detail (build_lods), and the full mesh in vertex-cache order: `cache_ordered`, once
  // `ordering` has made it.
  Result<LodReport> add_levels(Vat& vat, AsyncTask& ordering, const std::vector<uint32_t>& cache_ordered,
                               StageClock& clock) {
    LodOptions lod_options{.levels = options.lods, .threads = options.threads};
    ordering.wait();
    clock.lap("ordering wait");
    if (!cache_ordered.empty() && vat.geometry.indices == setup.rest.indices) {
      vat.geometry.indices = cache_ordered;
      lod_options.order_full_mesh = false;
    }
    if (options.lods > 0) {
      auto poser = detail::reference_poser(asset, vat);
      if (!poser) return poser.error();
      lod_options.pose_source = std::move(*poser);
    }
    if (options.progress) lod_options.progress = [&](float f) { options.progress("levels", f); };
    auto lods = build_lods(vat, lod_options);
    if (!lods) return lods.error();
    clock.lap("levels");
    return lods;
  }

  BakeReport report(Encoding e, Measured& measured, double lod_seconds, double frame_seconds,
                    std::chrono::steady_clock::time_point t0) const {
    BakeReport rep;
    rep.encoding = e;
    if (options.encoding != EncodingChoice::Auto) {
      rep.encoding_reason = "requested";
    } else {
      std::string r;
      for (size_t i = 0; i < reasons.size(); ++i) r += (i ? "; " : "") + reasons[i];
      rep.encoding_reason = r;
    }
    if (measured.have) rep.clips = std::move(measured.clips);
    rep.notes = row_notes;
    if (e == Encoding::Rig) rep.notes.insert(rep.notes.end(), setup.notes.begin(), setup.notes.end());
    rep.measure_seconds = measure_seconds;
    rep.lod_seconds = lod_seconds;
    rep.frame_seconds = frame_seconds;
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return rep;
  }
};

// One clip's row search (Baker::search_rows): the row counts tried so far and the three phases.
//
// What makes it fast is reading each failure's error, not only its verdict: a measurement that
// runs to the end gives the true error, and the rows that would meet the budget follow from it
// (the error falls as 1 / rows^p: p = 2 for smooth motion, about 1 across kinks, fitted from two
// measurements where there are two). So a measurement that only needs a verdict stops at the first
// sample above the budget, and one that feeds a prediction stops only above kPredictAbort times
// the budget (then its error is a lower bound, and the rows grow at least by sqrt(kPredictAbort)).
// And the tries measure a subset of the vertices (detail::VertexSubset; a delta at f32 or f16
// bakes only those): its error is a lower bound of the whole's, so its failures are failures. The
// count the phases end on is confirmed by measuring every vertex (that measurement is the bake's
// report); where it fails, the search goes on measuring every vertex, the subset's failures kept.
struct RowSearch {
  static constexpr float kPredictAbort = 16.0f;
  static constexpr uint32_t kSubsetSpread = 256;  // VertexSubset's evenly spread vertices
  struct Tried {
    uint32_t rows;
    bool pass;
    float err;      // max error, or a lower bound when it stopped early
    bool exact;     // err is the max (the measurement ran to the end)
    float on_rows;  // the error on the rows themselves (a lower bound when it stopped early)
    bool whole;     // every vertex measured (else a subset: err and on_rows are lower bounds)
    ClipError error;
  };
  Baker& baker;
  Encoding e;
  const ClipPlan& clip;
  float budget_mm;
  uint32_t max_rows;
  std::string max_rate;  // what limits the rows, for the message of a search that fails
  std::vector<Tried> tried;
  bool whole = false;       // every try measures every vertex
  std::optional<Vat> kept;  // the VAT of the fewest rows that passed on a subset
  uint32_t kept_rows = 0;

  const Tried* find(uint32_t rows) const {
    for (const Tried& t : tried)
      if (t.rows == rows) return &t;
    return nullptr;
  }

  Result<Vat> bake_at(uint32_t rows) {
    ClipPlan p = clip;
    p.rows = rows;
    detail::Progress quiet;
    return baker.bake_encoding(e, {p}, quiet, false);
  }

  // The subset (Baker::subset, made at the first try); null once the search measures every vertex.
  const detail::VertexSubset* subset() {
    if (whole) return nullptr;
    if (!baker.subset_made) {
      baker.subset_made = true;
      const auto t0 = std::chrono::steady_clock::now();
      // The rig's geometry has the rest geometry's sources (a rig-only bake takes the latter's).
      const VatGeometry& g = e == Encoding::Rig ? baker.setup.rig_geometry : baker.setup.rest;
      baker.subset = detail::choose_vertex_subset(baker.asset, g, kSubsetSpread);
      // Less than a third saved does not pay for the whole measurement that confirms a pass.
      if (baker.subset && uint64_t(baker.subset->count) * 3 > uint64_t(baker.subset->whole) * 2) baker.subset.reset();
      if (std::getenv("VATKIT_DEBUG_SEARCH") && baker.subset)
        std::fprintf(stderr, "search subset %u of %u vertices, chosen in %.0f us\n", baker.subset->count,
                     baker.subset->whole,
                     std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    return baker.subset ? &*baker.subset : nullptr;
  }

  // A try's VAT on the subset's vertices alone, where the texels of a vertex are its own (delta at
  // f32 or f16; q16's ranges are the clip's over every vertex); else nullopt.
  std::optional<Result<Vat>> bake_on_subset(uint32_t rows, const detail::VertexSubset& sub) {
    if (e != Encoding::Delta || baker.setup.options->precision == Precision::Q16) return std::nullopt;
    ClipPlan p = clip;
    p.rows = rows;
    if (auto fit = detail::check_fits(baker.setup, e, {p}); !fit) return Result<Vat>(fit.error());
    if (!baker.subset_delta) baker.subset_delta = detail::subset_setup(baker.setup, sub);
    detail::Progress quiet;
    return detail::bake_delta(*baker.subset_delta, {p}, quiet, false);
  }

  // The try's measurement: on the subset's vertices while there is one.
  Result<std::vector<detail::ClipMeasure>> measure_try(uint32_t rows, float abort_mm, std::optional<Vat>& whole_vat) {
    const detail::VertexSubset* sub = subset();
    if (auto own = sub ? bake_on_subset(rows, *sub) : std::nullopt) {
      if (!*own) return own->error();
      return baker.measure_against(sub->asset, **own, abort_mm, "search", 3, true);
    }
    auto vat = bake_at(rows);
    if (!vat) return vat.error();
    whole_vat = std::move(*vat);
    return sub ? baker.measure_against(sub->asset, detail::subset_vat(*whole_vat, *sub), abort_mm, "search", 3, true)
               : baker.measure(*whole_vat, abort_mm, "search");
  }

  // Bakes and measures the clip at `rows`; `predict`: the error feeds a prediction.
  Result<bool> eval(uint32_t rows, bool predict = false) {
    if (const Tried* t = find(rows); t && (t->exact || !predict || t->pass)) return t->pass;
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<Vat> vat;  // the whole VAT where the try baked one
    auto m = measure_try(rows, budget_mm * (predict ? kPredictAbort : 1.0f), vat);
    if (!m) return m.error();
    const detail::ClipMeasure& cm = (*m)[0];
    const bool pass = !cm.exceeded && cm.max_mm() <= budget_mm;
    record(rows, cm, !whole && baker.subset);
    if (pass && !whole && baker.subset && vat && (!kept || rows < kept_rows)) {
      kept = std::move(*vat);
      kept_rows = rows;
    }
    if (std::getenv("VATKIT_DEBUG_SEARCH")) {
      std::fprintf(stderr, "search %s rows %u err %g%s pass %d%s %.0f us\n", clip.name.c_str(), rows, cm.max_mm(),
                   cm.exceeded ? " or more" : "", int(pass), !whole && baker.subset ? " (subset)" : "",
                   std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    return pass;
  }

  void record(uint32_t rows, const detail::ClipMeasure& cm, bool on_subset) {
    const bool pass = !cm.exceeded && cm.max_mm() <= budget_mm;
    std::erase_if(tried, [&](const Tried& t) { return t.rows == rows; });
    tried.push_back(Tried{rows, pass, cm.max_mm(), !cm.exceeded, cm.error.on_rows_max_mm, !on_subset, cm.error});
  }

  // Whether `rows` meets the budget on every vertex, with that measurement into `measured`: the
  // try's own where it measured them all, else the whole measurement of its VAT.
  Result<bool> confirm(uint32_t rows, ClipError* measured) {
    if (const Tried* t = find(rows); t && t->whole && t->pass) {
      *measured = t->error;
      return true;
    }
    const auto t0 = std::chrono::steady_clock::now();
    Result<Vat> vat = kept && kept_rows == rows ? Result<Vat>(std::move(*kept)) : bake_at(rows);
    kept.reset();
    if (!vat) return vat.error();
    // Measured on to kPredictAbort times the budget: a failure's error feeds the search that follows.
    auto m = baker.measure(*vat, budget_mm * kPredictAbort, "search");
    if (!m) return m.error();
    const detail::ClipMeasure& cm = (*m)[0];
    *measured = cm.error;
    record(rows, cm, false);
    if (std::getenv("VATKIT_DEBUG_SEARCH")) {
      std::fprintf(stderr, "search %s rows %u confirmed %d (%g mm%s) %.0f us\n", clip.name.c_str(), rows,
                   int(!cm.exceeded && cm.max_mm() <= budget_mm), cm.max_mm(), cm.exceeded ? " or more" : "",
                   std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    return !cm.exceeded && cm.max_mm() <= budget_mm;
  }

  // After a count that passed on the subset failed on the whole: on, measuring every vertex. The
  // subset's failures stand (its errors are lower bounds); its passes go.
  void measure_every_vertex() {
    whole = true;
    std::erase_if(tried, [](const Tried& t) { return !t.whole && t.pass; });
    kept.reset();
  }

  // " or more" where `t`'s error is a lower bound.
  static const char* bound(const Tried& t) { return t.exact && t.whole ? "" : " or more"; }

  // The three phases: a count n that passes (on the subset while there is one), n - 1 failing.
  Result<uint32_t> run() {
    auto hi = on_key_grid();
    if (hi && *hi == 0) {
      if (auto f = floor_failure()) return *f;
      hi = upward();
    }
    if (hi) hi = down_to_edge(*hi);
    return hi;
  }

  // The rows the error model says meet the budget, from the measurement at `rows` (fewer when it
  // passed) and the exponent from the one before it, where both ran to the end.
  double predicted(uint32_t rows, const Tried* before = nullptr) const {
    const Tried* t = find(rows);
    double p = 2.0;
    if (before && t && before->exact && t->exact && before->rows < rows && before->err > t->err && t->err > 0.0f) {
      p = std::clamp(std::log(double(before->err) / t->err) / std::log(double(rows - 1) / (before->rows - 1)), 0.5,
                     2.0);
    }
    const double ratio = t ? double(t->err) / budget_mm : 1.0;
    return 1.0 + std::ceil(double(rows - 1) * std::pow(ratio, 1.0 / p));
  }

  // The failed try with the most rows below `rows` whose error is exact (nullptr if none): with a
  // try at `rows`, it fits the model's exponent.
  const Tried* last_exact_failure_below(uint32_t rows) const {
    const Tried* best = nullptr;
    for (const Tried& t : tried)
      if (!t.pass && t.exact && t.rows < rows && (!best || t.rows > best->rows)) best = &t;
    return best;
  }

  // The error on the rows is what the encoding stores, whatever the rate (a rig's pose it cannot
  // hold, a precision's rounding): above the budget there, no rate meets it.
  std::optional<Error> floor_failure() const {
    for (const Tried& t : tried) {
      if (t.on_rows > budget_mm)
        return failure("on its rows at " + rate_of(t.rows) + ": " + detail::fmt("%.3g", t.on_rows) + " mm" + bound(t) +
                       ", which no rate lowers");
    }
    return std::nullopt;
  }

  std::string rate_of(uint32_t rows) const { return detail::fmt("%g", double(rows - 1) / clip.duration_s) + " fps"; }

  Error failure(const std::string& why) const {
    const std::string label = clip.name.empty() ? clip_label(baker.asset, clip.animation) : clip.name;
    return make_error(ErrorCode::Limit, baker.setup.name,
                      "clip \"" + printable(label) + "\": no rate up to " + max_rate + " keeps the " + to_string(e) +
                          " decode within " + detail::fmt("%g", budget_mm) + " mm (" + why + ")");
  }

  // (1) The key grid: the smallest passing multiple of the key rate (from the error model, then
  // bisecting between multiples), its divisors where the key rate passes; 0 when no multiple passes.
  Result<uint32_t> on_key_grid() {
    const uint32_t M = key_grid_intervals(baker.asset.animations[size_t(clip.animation)]);
    if (M == 0 || M + 1 > max_rows) return 0u;
    const uint32_t m_max = (max_rows - 1) / M;
    uint32_t m_lo = 0, m_hi = 0, m = 1;  // largest failing, smallest passing multiple
    // A copy: `tried` grows under eval, moving its elements.
    for (std::optional<Tried> before;;) {
      auto ok = eval(M * m + 1, true);
      if (!ok) return ok.error();
      if (*ok) {
        m_hi = m;
        break;
      }
      if (floor_failure()) return 0u;
      m_lo = m;
      if (m == m_max) return 0u;
      const double n = predicted(M * m + 1, before ? &*before : nullptr);
      before = *find(M * m + 1);
      m = uint32_t(std::clamp<double>(std::ceil((n - 1.0) / M), m + 1, m_max));
    }
    // Between the multiples: the error model's multiple for the first two steps (from the smallest
    // passing multiple's error; usually the one just below it, which fails, and the search is
    // done), then halving.
    for (int step = 0; m_hi - m_lo > 1; ++step) {
      uint32_t mid = m_lo + (m_hi - m_lo) / 2;
      if (step < 2) {
        const double n = predicted(M * m_hi + 1, last_exact_failure_below(M * m_hi + 1));
        mid = uint32_t(std::clamp<double>(std::ceil((n - 1.0) / M), m_lo + 1, m_hi - 1));
      }
      auto ok = eval(M * mid + 1);
      if (!ok) return ok.error();
      (*ok ? m_hi : m_lo) = mid;
    }
    uint32_t hi = M * m_hi + 1;
    if (m_hi == 1) {
      for (uint32_t d = 2; d <= M; ++d) {
        if (M % d != 0) continue;
        auto ok = eval(M / d + 1);
        if (!ok) return ok.error();
        if (!*ok) break;
        hi = M / d + 1;
      }
    }
    return hi;
  }

  // (2) Upward from 30 fps (or from the largest count the key grid failed at): a passing row
  // count, or an error when even max_rows fails.
  Result<uint32_t> upward() {
    uint32_t guess = uint32_t(std::clamp<uint64_t>(detail::rows_at_fps(clip.duration_s, 30.0), 2u, max_rows));
    for (const Tried& t : tried)
      if (!t.pass) guess = std::max(guess, t.rows);
    for (std::optional<Tried> before;;) {  // a copy, as in on_key_grid
      auto ok = eval(guess, true);
      if (!ok) return ok.error();
      if (*ok) return guess;
      if (auto f = floor_failure()) return *f;
      const Tried* t = find(guess);
      if (guess >= max_rows) {
        return failure("at " + max_rate + ": " + detail::fmt("%.3g", t->err) + " mm" + bound(*t));
      }
      // The model's count, grown by at least 2x when the error is a lower bound, by a row otherwise.
      const double at_least = t->exact ? double(guess) + 1.0 : double(guess - 1) * 2.0 + 1.0;
      const uint32_t next =
          uint32_t(std::min<double>(max_rows, std::max(predicted(guess, before ? &*before : nullptr), at_least)));
      before = *t;
      guess = next;
    }
  }

  // (3) Down to the edge from the passing count `hi`: n passes, n - 1 fails. The neighbour
  // first: usually it fails (the rows just left the keys, or the rate is just enough), and we are
  // done.
  Result<uint32_t> down_to_edge(uint32_t hi) {
    if (hi > 1) {
      auto ok = eval(hi - 1);
      if (!ok) return ok.error();
      if (*ok) hi = hi - 1;
    }
    for (int iter = 0; iter < 40 && hi > 1; ++iter) {
      uint32_t lo = 0;  // the largest failing count below hi
      for (const Tried& t : tried)
        if (!t.pass && t.rows < hi) lo = std::max(lo, t.rows);
      if (lo + 1 == hi) break;
      if (lo == 0) {
        auto ok = eval(1);  // a frozen clip passes with one row
        if (!ok) return ok.error();
        if (*ok) hi = 1;
        continue;
      }
      const uint32_t next = iter < 2 ? uint32_t(std::clamp<double>(predicted(hi), lo + 1, hi - 1)) : lo + (hi - lo) / 2;
      auto ok = eval(next);
      if (!ok) return ok.error();
      if (*ok) hi = next;
    }
    return hi;
  }
};

Result<uint32_t> Baker::search_rows(Encoding e, const ClipPlan& clip, float budget_mm, ClipError* measured) {
  // Rates up to max_search_fps, and never more rows than the texture holds.
  const uint64_t rate_rows = detail::rows_at_fps(clip.duration_s, options.max_search_fps);
  const uint32_t max_rows = uint32_t(std::min<uint64_t>(rate_rows, options.max_texture_size));
  const std::string max_rate =
      detail::fmt("%g",
                  max_rows < rate_rows ? double(max_rows - 1) / clip.duration_s : double(options.max_search_fps)) +
      " fps" + (max_rows < rate_rows ? " (the texture size limit's " + std::to_string(max_rows) + " rows)" : "");
  RowSearch search{*this, e, clip, budget_mm, max_rows, max_rate, {}};
  if (max_rows <= 1) {
    auto vat = search.bake_at(1);
    if (!vat) return vat.error();
    auto m = measure(*vat, 0.0f, "search");
    if (!m) return m.error();
    *measured = (*m)[0].error;
    return 1u;
  }
  for (;;) {
    auto hi = search.run();
    if (!hi) return hi.error();
    auto ok = search.confirm(*hi, measured);
    if (!ok) return ok.error();
    if (*ok) return *hi;
    search.measure_every_vertex();
  }
}

// Keeps in the file what was measured (`vatkit info` prints it); a measurement that is not a
// finite number (a pose beyond float range) is reported, not stored.
void keep_accuracy(Vat& vat, const Measured& measured) {
  if (!measured.have || measured.clips.size() != vat.clips.size()) return;
  for (size_t c = 0; c < measured.clips.size(); ++c) {
    const ClipError& m = measured.clips[c];
    const float values[] = {m.on_rows_max_mm, m.on_rows_p99_mm, m.between_rows_max_mm, m.between_rows_p99_mm,
                            m.normal_max_deg};
    if (std::all_of(std::begin(values), std::end(values), [](float v) { return std::isfinite(v) && v >= 0.0f; })) {
      vat.clips[c].accuracy = static_cast<const ClipAccuracy&>(m);
    }
  }
}

// The decisions the motion makes (motion.cpp): the plans' loop defaults, a note on the asset's size.
detail::MotionFacts decide_from_motion(const Asset& asset, const BakeOptions& options, std::vector<ClipPlan>& plans,
                                       std::vector<std::string>& notes) {
  detail::MotionFacts motion = detail::measure_motion(asset, plans, options.threads);
  if (options.loops_from_motion) detail::decide_loops(plans, motion, options.metres_per_unit, notes);
  detail::note_size(motion.size, options.metres_per_unit, notes);
  return motion;
}

// The clips to bake with what their motion decided and their rows at a fixed rate, and the notes
// on both.
struct Planned {
  std::vector<ClipPlan> plans;
  detail::MotionFacts motion;
  std::vector<std::string> notes;
};

Result<Planned> plan_bake(const Asset& asset, const BakeOptions& options) {
  auto plans = detail::plan_clips(asset, options);
  if (!plans) return plans.error();
  Planned out;
  out.plans = std::move(*plans);
  out.motion = decide_from_motion(asset, options, out.plans, out.notes);
  if (auto r = detail::plan_events(asset, options, out.plans); !r) return r.error();
  if (auto r = detail::plan_foot_events(asset, options, out.motion.size, out.plans, out.notes); !r) return r.error();
  auto row_notes = fixed_rate_rows(asset, options, out.plans);
  if (!row_notes) return row_notes.error();
  out.notes.insert(out.notes.end(), row_notes->begin(), row_notes->end());
  return out;
}

// What the file keeps of the bake's measures: each clip's error (where measured) and seam.
void keep_measures(Vat& vat, const Measured& measured, const detail::MotionFacts& motion) {
  keep_accuracy(vat, measured);
  for (size_t c = 0; c < vat.clips.size(); ++c) vat.clips[c].seam = motion.seams[c];
}

// What bake() tries, in order, until one is taken.
struct Candidate {
  Encoding encoding;
  Precision precision;
};

std::vector<Candidate> candidates_for(const BakeOptions& options) {
  const Precision p = options.precision;
  if (options.encoding == EncodingChoice::Delta) return {{Encoding::Delta, p}};
  if (options.encoding == EncodingChoice::Rig) return {{Encoding::Rig, p}};
  // A precision must not turn a rig into a delta behind the user's back (RobotExpressive: a 1.6 MB
  // rig, a 66 MB delta at f16): where the rig misses the budget at `p`, the rig at the nearest
  // finer layout (q16: the bytes of f16, ranges per clip; then f32) is tried before the delta.
  std::vector<Candidate> c = {{Encoding::Rig, p}};
  if (p == Precision::F16) c.push_back({Encoding::Rig, Precision::Q16});
  if (p != Precision::F32) c.push_back({Encoding::Rig, Precision::F32});
  c.push_back({Encoding::Delta, p});
  return c;
}

Result<Vat> bake_asset(const Asset& asset, const BakeOptions& options, BakeReport* report);

// The final bake's progress: "bake", by frame row.
detail::Progress bake_progress(const BakeOptions& options, const std::vector<ClipPlan>& clips) {
  detail::Progress progress;
  progress.fn = &options.progress;
  progress.stage = "bake";
  progress.total = detail::total_rows(clips);
  return progress;
}

// The bake with each requested clip's root motion (BakeOptions::root_motion) taken out of the
// asset first and stored with the clip after; the plan's notes lead the report's.
Result<Vat> bake_moving(const Asset& asset, const BakeOptions& options, BakeReport* report) {
  if (options.root_motion.empty()) return bake_asset(asset, options, report);
  std::vector<std::string> notes;
  auto plan = detail::plan_root_motion(asset, options, notes);
  if (!plan) return plan.error();
  const Asset in_place = detail::without_root_motion(asset, *plan);
  Result<Vat> vat = bake_asset(in_place, options, report);
  if (!vat) return vat;
  detail::attach_root_motion(in_place, *plan, *vat);
  if (report) report->notes.insert(report->notes.begin(), notes.begin(), notes.end());
  return vat;
}

}  // namespace

// The asset as the bake sees it: with its animation pieces merged when asked (BakeOptions::
// merge_clip_pieces); otherwise a note per group of pieces.
Result<Vat> bake(const Asset& asset, const BakeOptions& options, BakeReport* report) {
  const std::vector<std::vector<uint32_t>> pieces = find_clip_pieces(asset);
  Result<Vat> vat = [&] {
    if (pieces.empty() || !options.merge_clip_pieces) return bake_moving(asset, options, report);
    Asset merged = asset;
    merge_clip_pieces(merged, pieces);
    return bake_moving(merged, options, report);
  }();
  if (vat && report && !options.merge_clip_pieces) {
    for (const std::vector<uint32_t>& group : pieces) report->notes.push_back(clip_pieces_text(asset, group));
  }
  return vat;
}

namespace {

Result<Vat> bake_asset(const Asset& asset, const BakeOptions& options, BakeReport* report) {
  const auto t0 = std::chrono::steady_clock::now();
  if (auto ok = check_options(asset, options); !ok) return ok.error();
  StageClock clock;
  auto planned = plan_bake(asset, options);
  clock.lap("plan");
  if (!planned) return planned.error();
  const std::vector<ClipPlan>& plans = planned->plans;
  const detail::MotionFacts& motion = planned->motion;
  auto setup_r = detail::prepare_bake(asset, options);
  if (!setup_r) return setup_r.error();
  detail::BakeSetup& setup = *setup_r;
  clock.lap("rest geometry");
  std::vector<uint32_t> cache_ordered;
  AsyncTask ordering = order_vertex_cache(setup, options.threads, cache_ordered);
  clock.lap("ordering posted");
  if (options.encoding != EncodingChoice::Delta) detail::prepare_rig(setup, plans);
  clock.lap("rig preparation");

  Baker baker{asset, options, setup};
  baker.row_notes = std::move(planned->notes);
  const std::vector<Candidate> candidates = candidates_for(options);
  const float budget = options.max_error_mm > 0.0f ? options.max_error_mm : options.auto_budget_mm;
  BakeOptions at_precision = options;  // the candidate's precision; the setup reads it from here
  setup.options = &at_precision;
  for (size_t ci = 0; ci < candidates.size(); ++ci) {
    const Encoding e = candidates[ci].encoding;
    at_precision.precision = candidates[ci].precision;
    const bool several_rigs = candidates.size() > 2;  // then each rig's reason names its precision
    baker.candidate_precision = several_rigs ? to_string(candidates[ci].precision) : "";
    const bool last = ci + 1 == candidates.size();
    const bool rig_follows = !last && candidates[ci + 1].encoding == Encoding::Rig;
    if (e == Encoding::Rig && !setup.rig_error.empty()) {
      if (last) return make_error(ErrorCode::Unsupported, setup.name, setup.rig_error);
      if (!rig_follows) baker.reasons.push_back("rig refused: " + setup.rig_error);
      continue;
    }
    auto clips = options.max_error_mm > 0.0f ? baker.search_clips(e, plans) : Result<std::vector<ClipPlan>>(plans);
    if (!clips) {
      if (last) return clips.error();
      baker.reasons.push_back("rig cannot meet the budget: " + baker.why(clips.error()));
      continue;
    }
    detail::Progress progress = bake_progress(options, *clips);
    clock.lap("search");
    // The rig's geometry is its own (a rig refused after this bake falls back to the delta,
    // which reads the rest geometry); the delta is always the last candidate.
    auto vat = baker.bake_encoding(e, *clips, progress, !rig_follows);
    clock.lap(e == Encoding::Rig ? "rig rows" : "delta rows");
    if (!vat) {
      if (last) return vat.error();
      baker.reasons.push_back("rig refused: " + baker.why(vat.error()));
      continue;
    }
    auto kept = baker.measured_for(*vat, options.encoding == EncodingChoice::Auto && !last, budget, clock);
    if (!kept) return kept.error();
    if (!*kept) continue;  // Auto: the rig misses the budget, the delta follows
    Measured& measured = **kept;
    auto lods = baker.add_levels(*vat, ordering, cache_ordered, clock);
    if (!lods) return lods.error();
    keep_measures(*vat, measured, motion);
    if (e == Encoding::Rig && vat->precision != options.precision) baker.note_kept_rig(*vat, *clips);
    if (report) {
      *report = baker.report(e, measured, lods->seconds, progress.frame_seconds, t0);
      report->size = motion.size;
    }
    return vat;
  }
  return make_error(ErrorCode::Unsupported, setup.name,
                    "no encoding could be baked");  // not reached: Delta always ends the list
}

}  // namespace

}  // namespace vatkit

// The rig encoding: slots (joint node + inverse bind, deduplicated across skins; one per rigid
// part), bind-space geometry with normalized slot weights, and per frame row each slot's matrix
// world(node) * inverse_bind decomposed into rotation, translation and uniform scale.
//
// What a rig cannot express is refused here, by name: a slot matrix that is not a similarity
// (non-uniform scale, shear) beyond BakeOptions::rig_tolerance, and morph weights that change
// over the baked clips (constant ones are folded into the bind geometry).
#include <algorithm>
#include <type_traits>
#include <atomic>
#include <memory>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <span>

#include "decode/codec.h"
#include "encode/bake_internal.h"
#include "simd/rig_kernel.h"
#include "vatkit/parallel.h"
#include "util/printable.h"
#include "vatkit/sample.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace codec {

SimilarityFit fit_similarity(const glm::mat4& m, const glm::quat& fallback) {
  SimilarityFit fit;
  const glm::vec3 a0(m[0]), a1(m[1]), a2(m[2]);
  const glm::vec3 len(std::sqrt(glm::dot(a0, a0)), std::sqrt(glm::dot(a1, a1)), std::sqrt(glm::dot(a2, a2)));
  fit.column_lengths = len;
  fit.transform.translation = glm::vec3(m[3]);
  const float lmax = std::fmax(len.x, std::fmax(len.y, len.z));
  const float lmin = std::fmin(len.x, std::fmin(len.y, len.z));
  const float det = glm::dot(a0, glm::cross(a1, a2));
  if (!(lmax > 0.0f)) {  // scaled to nothing: a similarity with s = 0
    fit.transform.rotation = fallback;
    fit.transform.scale = 0.0f;
    return fit;
  }
  fit.nonuniform = (lmax - lmin) / lmax;
  if (lmin > 0.0f) {
    fit.shear = std::fmax(
        std::fabs(glm::dot(a0, a1)) / (len.x * len.y),
        std::fmax(std::fabs(glm::dot(a1, a2)) / (len.y * len.z), std::fabs(glm::dot(a2, a0)) / (len.z * len.x)));
  }
  if (!(std::fabs(det) > 0.0f)) {  // rank-deficient but not zero: not a similarity
    fit.transform.rotation = fallback;
    fit.transform.scale = 0.0f;
    fit.nonuniform = 1.0f;
    return fit;
  }
  const float s = std::copysign((len.x + len.y + len.z) * (1.0f / 3.0f), det);
  const glm::mat3 r(a0 / s, a1 / s, a2 / s);
  glm::quat q = glm::quat_cast(r);
  const float ql = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  q = glm::quat(q.w / ql, q.x / ql, q.y / ql, q.z / ql);
  fit.transform.rotation = q;
  fit.transform.scale = s;
  return fit;
}

}  // namespace codec

namespace detail {
namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// "\"name\"", or "#index" when the file named none.
std::string label(const std::string& name, size_t index) {
  // Appended rather than `"#" + std::to_string(index)`, for which GCC 12 warns of an
  // overlapping memcpy inside std::string (-Wrestrict, a false positive).
  std::string s(1, name.empty() ? '#' : '"');
  s += name.empty() ? std::to_string(index) : name;
  if (!name.empty()) s += '"';
  return s;
}

inline bool is_identity(const glm::mat4& m) { return m == glm::mat4(1.0f); }

inline glm::mat4 slot_matrix(const std::span<const glm::mat4> world, const VatSlot& slot) {
  return is_identity(slot.inverse_bind) ? world[size_t(slot.node)] : world[size_t(slot.node)] * slot.inverse_bind;
}

// Per slot, as the vertices are written: the bind-space box of the vertices it moves (weight
// not 0) and their largest morph shift. Folded in vertex order, so the result does not depend
// on how the vertices are grouped (min and max keep the first of equal values).
struct SlotAccum {
  // lo: the box's minimum (w unused); hi: its maximum and, in w, the largest morph shift. In
  // one register each: the folds of neighbouring vertices, which mostly move the same slots,
  // are one MINPS and one MAXPS on the chain through memory instead of seven scalar ones.
  v4 lo = v4{} + std::numeric_limits<float>::max();
  v4 hi = v4{-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
             0.0f};
  bool used = false;
  // p: a point and, in w, its morph shift (min4(p, lo) has glm::min(lo, p)'s bits).
  void add(v4 p) {
    lo = min4(p, lo);
    hi = max4(p, hi);
    used = true;
  }
  void add(const glm::vec3& lo_in, const glm::vec3& hi_in, float shift) {
    lo = min4(v4{lo_in.x, lo_in.y, lo_in.z, 0.0f}, lo);
    hi = max4(v4{hi_in.x, hi_in.y, hi_in.z, shift}, hi);
    used = true;
  }
};

// A rigid part's vertices in its slot's bind space: b = its rest world matrix (rigid_bind),
// normals by b's cofactor matrix (c0 c1 c2, sign-corrected for mirroring), made once per part.
struct RigidBind {
  uint32_t slot;
  glm::vec3 a0, a1, a2, tr, c0, c1, c2;
  float sign;
};

// prepare_rig's work: the slots it finds, the bind geometry it writes (g), and the slot boxes.
struct RigBuilder {
  BakeSetup& setup;
  const Asset& a;
  VatGeometry& g;
  // One slot per distinct (node, inverse bind): the slots of a node are searched, not all slots.
  std::vector<std::vector<uint32_t>> node_slots;
  std::vector<SlotAccum> acc;
  // skin_slots[s][j]: the slot of skin s's joint j.
  std::vector<std::vector<uint32_t>> skin_slots;
  std::vector<float> fold_weights, rest_weights;
  // A morphed instance's mesh-space geometry with the folded weights (pos_f, nrm_f, tan_f) and
  // with the rest weights (pos_r).
  std::vector<glm::vec3> pos_f, pos_r, nrm_f;
  std::vector<glm::vec4> tan_f;

  RigBuilder(BakeSetup& s, VatGeometry& geometry)
      : setup(s), a(*s.asset), g(geometry), node_slots(a.nodes.size()), skin_slots(a.skins.size()) {}

  uint32_t slot_for(uint32_t node, const glm::mat4& ib, bool joint) {
    for (uint32_t i : node_slots[node]) {
      if (setup.rig_slots[i].inverse_bind == ib) {
        if (joint) setup.slot_is_joint[i] = true;
        return i;
      }
    }
    const uint32_t i = uint32_t(setup.rig_slots.size());
    setup.rig_slots.push_back(VatSlot{a.nodes[node].name, int32_t(node), ib});
    setup.slot_is_joint.push_back(joint);
    node_slots[node].push_back(i);
    return i;
  }

  SlotAccum& accum(uint32_t slot) {
    if (acc.size() <= slot) acc.resize(setup.rig_slots.size());
    return acc[slot];
  }

  // A rigid part's slot is (node, inverse of its rest world matrix) and its bind geometry is its
  // rest pose in object space: the slot then carries only how the node moved since rest, which
  // stays a similarity when the node has a constant non-uniform scale of its own (a static
  // scaled plane, a stretched prop) under similarity-animated parents. A node whose rest matrix
  // is singular keeps the identity.
  glm::mat4 rigid_bind(uint32_t node_index) const {
    const glm::mat4& w = setup.rest_world[node_index];
    const float det = glm::determinant(glm::mat3(w));
    return std::isfinite(det) && std::fabs(det) > 1e-12f ? w : glm::mat4(1.0f);
  }
  uint32_t rigid_slot(uint32_t node_index, const glm::mat4& bind) {
    return slot_for(node_index, bind == glm::mat4(1.0f) ? bind : glm::inverse(bind), false);
  }

  // Morph weights to fold: those of the first baked clip at its first row; bake_rig checks that
  // every row of every clip has the same. Only sampled when an instance has morph targets.
  void sample_fold_weights(const std::vector<ClipPlan>& clips) {
    bool any_morph = false;
    for (const MeshInstance& inst : a.instances) {
      any_morph |=
          !a.meshes[inst.mesh].primitives[inst.primitive].targets.empty() && a.nodes[inst.node].weights_count > 0;
    }
    if (!clips.empty()) setup.folded_from = "clip \"" + clip_label(a, clips[0].animation) + "\" at t = 0";
    if (any_morph) {
      Pose pose = make_rest_pose(a);
      rest_weights = pose.weights;
      if (!clips.empty()) sample_animation(a.animations[size_t(clips[0].animation)], 0.0f, pose, a);
      fold_weights = std::move(pose.weights);
    }
  }

  // The bind geometry's arrays, eight influences where a skinned instance has them.
  void allocate(uint32_t n) {
    bool eight = false;
    for (const MeshInstance& inst : a.instances) {
      const Primitive& prim = a.meshes[inst.mesh].primitives[inst.primitive];
      eight |= a.nodes[inst.node].skin >= 0 && !prim.joints0.empty() && !prim.joints1.empty();
    }
    g.bind_positions.resize(n);
    g.bind_normals.resize(n);
    if (setup.tangents) g.bind_tangents.resize(n);
    g.slots0.resize(n);
    g.slot_weights0.resize(n);
    if (eight) {
      g.slots1.assign(n, glm::u16vec4(0));
      g.slot_weights1.assign(n, glm::vec4(0.0f));
    }
  }

  // Slots of every skin used by a drawn instance first (in instance order), so sockets can name
  // any joint; the rigid parts get theirs as they come.
  void add_skin_slots() {
    for (const MeshInstance& inst : a.instances) {
      const Primitive& prim = a.meshes[inst.mesh].primitives[inst.primitive];
      const Node& node = a.nodes[inst.node];
      if (node.skin >= 0 && !prim.joints0.empty() && skin_slots[size_t(node.skin)].empty()) {
        const Skin& skin = a.skins[size_t(node.skin)];
        for (size_t j = 0; j < skin.joints.size(); ++j) {
          skin_slots[size_t(node.skin)].push_back(slot_for(skin.joints[j], skin.inverse_bind[j], true));
        }
      }
    }
    acc.resize(setup.rig_slots.size());
  }

  // The morph watch of a morphed instance's node, made on first sight.
  BakeSetup::MorphWatch& watch_of(const MeshInstance& inst) {
    auto watch = std::find_if(setup.morphs.begin(), setup.morphs.end(),
                              [&](const BakeSetup::MorphWatch& m) { return m.node == inst.node; });
    if (watch != setup.morphs.end()) return *watch;
    const Node& node = a.nodes[inst.node];
    BakeSetup::MorphWatch w;
    w.node = inst.node;
    w.mesh = inst.mesh;
    w.folded.assign(fold_weights.begin() + node.weights_offset,
                    fold_weights.begin() + node.weights_offset + node.weights_count);
    w.target_size.assign(node.weights_count, 0.0f);
    setup.morphs.push_back(std::move(w));
    return setup.morphs.back();
  }

  // A morphed instance's geometry into pos_f, pos_r, nrm_f and tan_f (a missing normal or tangent
  // is 0), and its targets' sizes into its morph watch.
  void fold_morphs(const MeshInstance& inst, const Primitive& prim, uint32_t count) {
    const Node& node = a.nodes[inst.node];
    pos_f.assign(prim.positions.begin(), prim.positions.end());
    pos_r = pos_f;
    nrm_f.assign(count, glm::vec3(0.0f));
    std::copy(prim.normals.begin(), prim.normals.end(), nrm_f.begin());
    tan_f.assign(count, glm::vec4(0.0f));
    std::copy(prim.tangents.begin(), prim.tangents.end(), tan_f.begin());
    BakeSetup::MorphWatch& watch = watch_of(inst);
    for (size_t t = 0; t < prim.targets.size() && t < node.weights_count; ++t) {
      const MorphTarget& target = prim.targets[t];
      const float wf = watch.folded[t];
      const float wr = rest_weights[node.weights_offset + t];
      if (!target.positions.empty()) {
        float size2 = 0.0f;  // the largest |d|^2: its square root is the largest |d|, to the bit
        for (uint32_t v = 0; v < count; ++v) {
          const glm::vec3 d = target.positions[v];
          pos_f[v] += wf * d;
          pos_r[v] += wr * d;
          size2 = std::max(size2, glm::dot(d, d));
        }
        watch.target_size[t] = std::max(watch.target_size[t], std::sqrt(size2));
      }
      if (!target.normals.empty())
        for (uint32_t v = 0; v < count; ++v) nrm_f[v] += wf * target.normals[v];
      if (!target.tangents.empty())
        for (uint32_t v = 0; v < count; ++v) tan_f[v] += glm::vec4(wf * target.tangents[v], 0.0f);
    }
  }

  void add_instance(const MeshInstance& inst);

  // The refusal of too many slots, the notes on folded morphs, and per slot the bind-space box of
  // its vertices, their morph shift and its rest matrix.
  void finish() {
    if (setup.rig_slots.size() > kMaxVatSlots) {
      setup.rig_error = "the rig would need " + std::to_string(setup.rig_slots.size()) + " slots, more than " +
                        std::to_string(kMaxVatSlots);
      return;
    }
    for (const auto& m : setup.morphs) {
      bool nonzero = std::any_of(m.folded.begin(), m.folded.end(), [](float w) { return w != 0.0f; });
      setup.notes.push_back("rig: mesh " + label(a.meshes[m.mesh].name, m.mesh) + " (node " +
                            label(a.nodes[m.node].name, m.node) + "): morph weights " +
                            (nonzero ? "folded into" : "are 0, none folded into") + " the bind geometry (" +
                            setup.folded_from + ")");
    }
    const size_t S = setup.rig_slots.size();
    acc.resize(S);
    setup.slot_boxes.assign(S, BakeSetup::SlotBox{});
    for (size_t s = 0; s < S; ++s) {
      if (!acc[s].used) continue;
      BakeSetup::SlotBox& box = setup.slot_boxes[s];
      box.used = true;
      const glm::vec3 lo(acc[s].lo[0], acc[s].lo[1], acc[s].lo[2]), hi(acc[s].hi[0], acc[s].hi[1], acc[s].hi[2]);
      box.morph_shift = acc[s].hi[3];
      box.center = 0.5f * (lo + hi);
      box.extent = 0.5f * (hi - lo);
    }
    setup.rest_slot_matrices.resize(S);
    for (size_t s = 0; s < S; ++s) setup.rest_slot_matrices[s] = slot_matrix(setup.rest_world, setup.rig_slots[s]);
  }
};

// One drawn instance's bind geometry, slots and weights (RigBuilder::add_instance): a rigid part
// whole, a skinned one vertex by vertex.
struct InstanceWriter {
  RigBuilder& rb;
  const MeshInstance& inst;
  const Primitive& prim;
  uint32_t first, count;
  bool morphed;
  // Mesh-space geometry with the folded morph weights: the primitive's own arrays unless morph
  // targets move it (then RigBuilder's pos_f, nrm_f, tan_f).
  std::span<const glm::vec3> P, N;
  std::span<const glm::vec4> T;
  glm::vec3* bind_p;
  glm::vec3* bind_n;
  glm::vec4* bind_t;  // null: no tangents
  glm::u16vec4* slots0;
  glm::vec4* weights0;
  std::optional<RigidBind> rigid;

  const RigidBind& rigid_of_instance() {
    if (!rigid) {
      const glm::mat4 b = rb.rigid_bind(inst.node);
      RigidBind r;
      r.slot = rb.rigid_slot(inst.node, b);
      r.a0 = glm::vec3(b[0]), r.a1 = glm::vec3(b[1]), r.a2 = glm::vec3(b[2]), r.tr = glm::vec3(b[3]);
      r.c0 = glm::cross(r.a1, r.a2), r.c1 = glm::cross(r.a2, r.a0), r.c2 = glm::cross(r.a0, r.a1);
      r.sign = glm::dot(r.a0, r.c0) < 0.0f ? -1.0f : 1.0f;
      rigid = r;
    }
    return *rigid;
  }

  // Writes vertex v of a rigid part; returns its morph shift. (Inlined, with `r` a local copy
  // the stores cannot alias: through a reference every store would reload it.)
  __attribute__((always_inline)) inline float put_rigid(uint32_t v, const RigidBind& r) {
    const glm::vec3 p = P[v], nv = N.empty() ? glm::vec3(0.0f) : N[v];
    bind_p[v] = r.a0 * p.x + r.a1 * p.y + r.a2 * p.z + r.tr;
    bind_n[v] = r.sign * (r.c0 * nv.x + r.c1 * nv.y + r.c2 * nv.z);
    if (bind_t) {
      const glm::vec4 t = T.empty() ? glm::vec4(0.0f) : T[v];
      bind_t[v] = glm::vec4(r.a0 * t.x + r.a1 * t.y + r.a2 * t.z, t.w);
    }
    slots0[v] = glm::u16vec4(uint16_t(r.slot), 0, 0, 0);
    weights0[v] = glm::vec4(1.0f, 0.0f, 0.0f, 0.0f);
    if (!morphed) return 0.0f;
    const glm::vec3 d = rb.pos_r[v] - rb.pos_f[v];
    return glm::length(r.a0 * d.x + r.a1 * d.y + r.a2 * d.z);
  }

  // A rigid part: one slot for the whole part, its box folded here and added once.
  void write_rigid_part() {
    const RigidBind r = rigid_of_instance();
    glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
    float shift = 0.0f;
    for (uint32_t v = 0; v < count; ++v) {
      shift = std::max(shift, put_rigid(v, r));
      lo = glm::min(lo, bind_p[v]);
      hi = glm::max(hi, bind_p[v]);
    }
    if (count > 0) rb.accum(r.slot).add(lo, hi, shift);
  }

  // Positions, normals and tangents as the source has them, in bulk (a vertex without weights is
  // written again by skin_vertices, as a rigid one).
  void copy_source() {
    std::copy_n(P.begin(), count, bind_p);
    if (N.empty()) {
      std::fill_n(bind_n, count, glm::vec3(0.0f));
    } else {
      std::copy_n(N.begin(), count, bind_n);
    }
    if (bind_t) {
      if (T.empty()) {
        std::fill_n(bind_t, count, glm::vec4(0.0f));
      } else {
        std::copy_n(T.begin(), count, bind_t);
      }
    }
  }

  // The slots and normalized weights, and the slot boxes; one instantiation for 4 influences,
  // one for 8.
  template <bool kEight>
  void skin_vertices(const std::vector<uint32_t>& joint_slot) {
    // Raw pointers, read once: through the captured vectors every store below (which may alias
    // a vector's members, as far as the compiler knows) reloaded them, most of this loop's time.
    const glm::vec4* const w0 = prim.weights0.data();
    const glm::vec4* const w1 = kEight ? prim.weights1.data() : nullptr;
    const glm::u16vec4* const j0 = prim.joints0.data();
    const glm::u16vec4* const j1 = kEight ? prim.joints1.data() : nullptr;
    glm::u16vec4* const slots1 = kEight ? rb.g.slots1.data() + first : nullptr;
    glm::vec4* const weights1 = kEight ? rb.g.slot_weights1.data() + first : nullptr;
    const uint32_t* const js = joint_slot.data();
    const glm::vec3* const pos = P.data();
    glm::u16vec4* const slots_out = slots0;
    glm::vec4* const weights_out = weights0;
    const bool shifts = morphed;
    const std::vector<glm::vec3>& pos_r = rb.pos_r;
    const std::vector<glm::vec3>& pos_f = rb.pos_f;
    SlotAccum* boxes = rb.acc.data();
    for (uint32_t v = 0; v < count; ++v) {
      const glm::vec4 wa = w0[v];
      const glm::vec4 wb = kEight ? w1[v] : glm::vec4(0.0f);
      // The reference skinner's sum and normalization, to the bit (with 4 influences the sum
      // of the second four, +0, changes nothing: a -0 sum is 0 either way).
      const float sum =
          kEight ? (wa.x + wa.y) + (wa.z + wa.w) + ((wb.x + wb.y) + (wb.z + wb.w)) : (wa.x + wa.y) + (wa.z + wa.w);
      if (sum == 0.0f) {  // the reference leaves such a vertex to the mesh node's matrix
        const RigidBind& r = rigid_of_instance();
        const float shift = put_rigid(v, r);
        rb.accum(r.slot).add(bind_p[v], bind_p[v], shift);
        boxes = rb.acc.data();  // a new rigid slot may have grown it
        continue;
      }
      const glm::vec3 p = pos[v];
      const float shift = shifts ? glm::length(pos_r[v] - pos_f[v]) : 0.0f;
      const v4 p4{p.x, p.y, p.z, shift};
      const float inv = 1.0f / sum;
      // Four influences: their slots and normalized weights, and the point into the boxes of
      // the slots it moves.
      auto four = [&](glm::u16vec4 joints, glm::vec4 weights, glm::u16vec4& slots_to, glm::vec4& weights_to) {
        const glm::u16vec4 sl(js[joints.x], js[joints.y], js[joints.z], js[joints.w]);
        const glm::vec4 nw = weights * inv;
        slots_to = sl;
        weights_to = nw;
        for (int k = 0; k < 4; ++k)
          if (nw[k] != 0.0f) boxes[sl[k]].add(p4);
      };
      four(j0[v], wa, slots_out[v], weights_out[v]);
      if constexpr (kEight) four(j1[v], wb, slots1[v], weights1[v]);
    }
  }
};

void RigBuilder::add_instance(const MeshInstance& inst) {
  const Primitive& prim = a.meshes[inst.mesh].primitives[inst.primitive];
  const Node& node = a.nodes[inst.node];
  const uint32_t first = inst.first_vertex;
  const uint32_t count = inst.vertex_count;
  const bool morphed = !prim.targets.empty() && node.weights_count > 0;
  InstanceWriter w{*this,
                   inst,
                   prim,
                   first,
                   count,
                   morphed,
                   prim.positions,
                   prim.normals,
                   prim.tangents,
                   g.bind_positions.data() + first,
                   g.bind_normals.data() + first,
                   setup.tangents ? g.bind_tangents.data() + first : nullptr,
                   g.slots0.data() + first,
                   g.slot_weights0.data() + first,
                   std::nullopt};
  if (morphed) {
    fold_morphs(inst, prim, count);
    w.P = pos_f, w.N = nrm_f, w.T = tan_f;
  }
  if (node.skin < 0 || prim.joints0.empty()) return w.write_rigid_part();
  w.copy_source();
  if (!prim.joints1.empty()) {
    w.skin_vertices<true>(skin_slots[size_t(node.skin)]);
  } else {
    w.skin_vertices<false>(skin_slots[size_t(node.skin)]);
  }
}

}  // namespace

void prepare_rig(BakeSetup& setup, const std::vector<ClipPlan>& clips) {
  if (setup.rig_prepared) return;
  setup.rig_prepared = true;
  VatGeometry& g = setup.rig_geometry;
  // A rig-only bake never reads the rest geometry's vertices again.
  g = setup.options->encoding == EncodingChoice::Rig ? take_vertices(setup.rest) : setup.rest;
  RigBuilder rb(setup, g);
  rb.sample_fold_weights(clips);
  rb.allocate(g.vertex_count());
  rb.add_skin_slots();
  for (const MeshInstance& inst : setup.asset->instances) rb.add_instance(inst);
  rb.finish();
}

namespace {

struct MorphResult {
  float violation = 0.0f;  // displacement (file units); 0: none
  uint32_t watch = 0, target = 0;
  float weight = 0.0f;
};

struct KernelScratch {
  RigKernel::Scratch* scratch;
  std::vector<float> weights;
  explicit KernelScratch(const RigKernel& k) : scratch(k.make_scratch()) {}
  ~KernelScratch() { RigKernel::free_scratch(scratch); }
  KernelScratch(const KernelScratch&) = delete;
  KernelScratch& operator=(const KernelScratch&) = delete;
};

// Per clip: its kernel state, the morph weights to check, the rows' results. Morph weights:
// the clip's weights channels on watched nodes, checked row by row; a watched node the clip
// does not animate keeps its rest weights, checked once.
struct WeightsChannel {
  uint32_t watch;
  const Sampler* sampler;
};
struct ClipWork {
  uint32_t kernel_clip = 0;
  uint32_t stage_row = 0;  // first row in the group's stage
  std::vector<WeightsChannel> weight_channels;
  std::vector<MorphResult> morph;
  std::vector<RigRowResult> results;
};

// bake_rig's frame rows: the kernel's blocks over every clip, the morph checks, the refusals and
// each clip's texels.
struct RigRows {
  BakeSetup& setup;
  const Asset& asset;
  const std::vector<ClipPlan>& clips;
  Vat& vat;
  RigKernel& kernel;
  const float tol;
  Progress& progress;
  WorkspacePool<KernelScratch> pool;
  std::vector<ClipWork> work;
  SlotStage stage;

  RigRows(BakeSetup& s, const std::vector<ClipPlan>& c, Vat& v, RigKernel& k, Progress& p)
      : setup(s),
        asset(*s.asset),
        clips(c),
        vat(v),
        kernel(k),
        tol(s.options->rig_tolerance),
        progress(p),
        pool([this] { return std::make_unique<KernelScratch>(kernel); }),
        work(c.size()) {
    const Pose rest = make_rest_pose(asset);
    for (size_t ci = 0; ci < clips.size(); ++ci) add_clip(clips[ci], work[ci], rest);
  }

  void add_clip(const ClipPlan& plan, ClipWork& cw, const Pose& rest) {
    const Animation& anim = asset.animations[size_t(plan.animation)];
    cw.kernel_clip = kernel.add_clip(anim, plan);
    cw.results.resize(plan.rows);
    cw.morph.resize(setup.morphs.empty() ? 0 : plan.rows);
    for (size_t wi = 0; wi < setup.morphs.size(); ++wi) {
      const BakeSetup::MorphWatch& mw = setup.morphs[wi];
      const Channel* found = nullptr;
      for (const Channel& ch : anim.channels)
        if (ch.path == Path::Weights && ch.node == mw.node) found = &ch;
      if (found) {
        cw.weight_channels.push_back({uint32_t(wi), &anim.samplers[found->sampler]});
        continue;
      }
      const Node& node = asset.nodes[mw.node];
      for (uint32_t t = 0; t < node.weights_count; ++t) {
        const float wt = rest.weights[node.weights_offset + t];
        const float shift = std::fabs(wt - mw.folded[t]) * mw.target_size[t];
        if (shift > 1e-6f && shift > cw.morph[0].violation) cw.morph[0] = MorphResult{shift, uint32_t(wi), t, wt};
      }
    }
  }

  void check_morphs(KernelScratch& w, ClipWork& cw, const ClipPlan& plan, uint32_t k) {
    for (const WeightsChannel& wc : cw.weight_channels) {
      const BakeSetup::MorphWatch& mw = setup.morphs[wc.watch];
      w.weights.resize(wc.sampler->components);
      sample_sampler(*wc.sampler, Path::Weights, row_time(plan, k), w.weights.data());
      for (uint32_t t = 0; t < w.weights.size() && t < mw.folded.size(); ++t) {
        const float shift = std::fabs(w.weights[t] - mw.folded[t]) * mw.target_size[t];
        if (shift > 1e-6f && shift > cw.morph[k].violation) cw.morph[k] = MorphResult{shift, wc.watch, t, w.weights[t]};
      }
    }
  }

  // Refusals: the first row with a violation, its worst slot or morph target.
  Result<void> refusal(size_t ci) const {
    const ClipPlan& plan = clips[ci];
    const ClipWork& cw = work[ci];
    for (uint32_t k = 0; k < plan.rows; ++k) {
      const RigRowResult& r = cw.results[k];
      const bool morph_bad = !cw.morph.empty() && cw.morph[k].violation > 0.0f;
      if (!morph_bad && !(r.scale_violation > 0.0f)) continue;
      const std::string at = "in clip \"" + clip_label(asset, plan.animation) + "\" at frame " + std::to_string(k) +
                             " (t = " + fmt("%.4g", double(row_time(plan, k))) + " s)";
      if (morph_bad) {
        const MorphResult& mr = cw.morph[k];
        const BakeSetup::MorphWatch& mw = setup.morphs[mr.watch];
        return make_error(
            ErrorCode::Unsupported, setup.name,  // the names in it come from the file
            printable("the rig encoding cannot express mesh " + label(asset.meshes[mw.mesh].name, mw.mesh) + " (node " +
                      label(asset.nodes[mw.node].name, mw.node) + "): its morph target " + std::to_string(mr.target) +
                      " has weight " + fmt("%.4g", mr.weight) + " " + at + " but " + fmt("%.4g", mw.folded[mr.target]) +
                      " in " + setup.folded_from + ", moving vertices by up to " +
                      fmt("%.4g", double(mr.violation) * 1000.0 * setup.options->metres_per_unit) +
                      " mm (a rig holds only constant morph weights); use the delta encoding"));
      }
      return scale_refusal(plan, k, r.scale_slot, at);
    }
    return {};
  }

  // A slot that is no similarity at row k: the details, from the reference's own matrices at
  // that row.
  Result<void> scale_refusal(const ClipPlan& plan, uint32_t k, uint32_t slot_index, const std::string& at) const {
    const VatSlot& slot = vat.slots[slot_index];
    Pose pose = make_rest_pose(asset);
    sample_animation(asset.animations[size_t(plan.animation)], row_time(plan, k), pose, asset);
    std::vector<glm::mat4> world(asset.nodes.size());
    compute_world_matrices(asset, pose, world);
    const codec::SimilarityFit f = codec::fit_similarity(slot_matrix(world, slot), glm::quat(1.0f, 0.0f, 0.0f, 0.0f));
    const std::string who =
        (setup.slot_is_joint[slot_index] ? "joint " : "node ") + label(slot.name, size_t(slot.node));
    std::string what;
    if (f.nonuniform >= f.shear) {
      what = "non-uniform scale: axis lengths " + fmt("%.4g", f.column_lengths.x) + ", " +
             fmt("%.4g", f.column_lengths.y) + ", " + fmt("%.4g", f.column_lengths.z) + " (" +
             fmt("%.3g", double(f.nonuniform) * 100.0) + "% apart";
    } else {
      what = "shear: two axes " + fmt("%.4g", std::acos(std::min(1.0, double(f.shear))) * 180.0 / 3.14159265358979) +
             " degrees apart instead of 90 (|cos| " + fmt("%.3g", f.shear);
    }
    return make_error(
        ErrorCode::Unsupported, setup.name,
        printable("the rig encoding cannot express " + who + " (slot " + std::to_string(slot_index) + ") " + at + ": " +
                  what + ", tolerance " + fmt("%.3g", double(tol)) + "); use the delta encoding"));
  }

  // A clip's bounds and maxDelta from its rows' results, and its rows written into the plane
  // (write_slot_rows: the hemisphere rule, then f16 or q16).
  Result<void> finish_clip(size_t ci) {
    VatClip& clip = vat.clips[ci];
    glm::vec3 bmin(std::numeric_limits<float>::max()), bmax(-std::numeric_limits<float>::max());
    float max_delta = 0.0f;
    bool any = false;
    for (const RigRowResult& r : work[ci].results) {
      if (r.any_box) {
        bmin = glm::min(bmin, r.bmin);
        bmax = glm::max(bmax, r.bmax);
        any = true;
      }
      max_delta = std::max(max_delta, r.max_delta);
    }
    if (!any) bmin = bmax = glm::vec3(0.0f);  // no slot drives a vertex
    clip.bounds = Bounds{bmin, bmax};
    clip.max_delta = max_delta;
    return write_slot_rows(stage, work[ci].stage_row, vat, 0, clip, setup.name);
  }

  struct Block {
    uint32_t clip, k0, rows;
  };

  // The clips g0 .. g1 - 1 (staged from stage row 0): their blocks of rows spread over the
  // threads; the thread that bakes a clip's last block finishes that clip (finish_clip).
  Result<void> bake_group(size_t g0, size_t g1) {
    const uint32_t S = uint32_t(vat.slots.size());
    const uint32_t lanes = kernel.block_rows(~0u);
    std::vector<Block> blocks;
    const std::unique_ptr<std::atomic<uint32_t>[]> blocks_left(new std::atomic<uint32_t>[g1 - g0]);
    for (size_t ci = g0; ci < g1; ++ci) {
      uint32_t count = 0;
      for (uint32_t k0 = 0; k0 < clips[ci].rows; ++count) {
        const uint32_t rows = kernel.block_rows(clips[ci].rows - k0);
        blocks.push_back({uint32_t(ci), k0, rows});
        k0 += rows;
      }
      blocks_left[ci - g0].store(count, std::memory_order_relaxed);
    }
    std::vector<Result<void>> written(g1 - g0);
    // Blocks between progress reports: about 2^18 joint-frames (some milliseconds), and enough
    // blocks for every thread; waking the pool costs more than a batch of a small rig.
    const size_t batch =
        std::max<size_t>(16 * size_t(setup.threads), (size_t(1) << 18) / lanes / std::max<size_t>(S, 1));
    // At least 4,096 joint-frames per task: waking a worker costs more than a smaller task, so a small rig bakes faster
    // on the calling thread alone.
    const size_t grain = std::max<size_t>(2, 4096 / lanes / std::max<size_t>(S, 1));
    for (size_t b = 0; b < blocks.size(); b += batch) {
      const size_t n = std::min(batch, blocks.size() - b);
      parallel_for(n, grain, setup.threads, [&](size_t begin, size_t end) {
        auto w = pool.take();
        for (size_t i = b + begin; i < b + end; ++i) {
          const Block& blk = blocks[i];
          const ClipPlan& plan = clips[blk.clip];
          ClipWork& cw = work[blk.clip];
          kernel.run_block(cw.kernel_clip, blk.k0, blk.rows, *w->scratch, stage, cw.stage_row, cw.results.data(), tol);
          if (!cw.weight_channels.empty()) {
            for (uint32_t k = blk.k0; k < std::min(blk.k0 + blk.rows, plan.rows); ++k) check_morphs(*w, cw, plan, k);
          }
          if (blocks_left[blk.clip - g0].fetch_sub(1, std::memory_order_acq_rel) == 1) {
            written[blk.clip - g0] = finish_clip(blk.clip);
          }
        }
      });
      size_t rows_done = 0;
      for (size_t i = b; i < b + n; ++i)
        rows_done += std::min(blocks[i].rows, clips[blocks[i].clip].rows - blocks[i].k0);
      progress.advance(rows_done);
    }
    for (size_t ci = g0; ci < g1; ++ci) {
      if (auto r = refusal(ci); !r) return r.error();
    }
    for (const Result<void>& r : written) {
      if (!r) return r.error();
    }
    return {};
  }
};

}  // namespace

Result<Vat> bake_rig(BakeSetup& setup, const std::vector<ClipPlan>& clips, Progress& progress, bool take_geometry) {
  const BakeOptions& o = *setup.options;
  if (!setup.rig_error.empty()) return make_error(ErrorCode::Unsupported, setup.name, setup.rig_error);
  Vat vat = start_vat(setup, Encoding::Rig, take_geometry ? std::move(setup.rig_geometry) : setup.rig_geometry,
                      setup.rig_slots, clips);
  const auto frames_start = std::chrono::steady_clock::now();
  const TexelFormat format = o.precision == Precision::F32   ? TexelFormat::RGBA32F
                             : o.precision == Precision::F16 ? TexelFormat::RGBA16F
                                                             : TexelFormat::RGBA16Unorm;
  const uint32_t S = uint32_t(vat.slots.size());
  allocate_planes(vat, {{PlaneSemantic::Slots, format, 2 * S}}, o.max_texture_size);

  RigKernel kernel(setup);
  RigRows rows(setup, clips, vat, kernel, progress);
  // Clips in groups whose staged rows stay within a bound (32 MiB of stage, or one clip); each
  // group's blocks of rows, whatever clip they belong to, spread over the threads in one
  // parallel_for per batch (a clip of a few dozen rows alone would not occupy two threads). The
  // thread that bakes a clip's last block finishes that clip (finish_clip) in the same loop: a
  // separate pass cost a second wake-up of the pool and ran the last clips' writes alone.
  constexpr size_t kStageJointFrames = size_t(1) << 20;
  for (size_t g0 = 0; g0 < clips.size();) {
    size_t g1 = g0, group_rows = 0;
    while (g1 < clips.size() && (g1 == g0 || (group_rows + clips[g1].rows) * S <= kStageJointFrames)) {
      rows.work[g1].stage_row = uint32_t(group_rows);
      group_rows += clips[g1++].rows;
    }
    if (format == TexelFormat::RGBA32F) {
      rows.stage.view(vat, 0, vat.clips[g0].first_row);
    } else {
      rows.stage.own(S, uint32_t(group_rows));
    }
    if (auto r = rows.bake_group(g0, g1); !r) return r.error();
    g0 = g1;
  }
  finish_vat(vat, progress, frames_start);
  return vat;
}

}  // namespace detail
}  // namespace vatkit

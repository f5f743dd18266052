// See rig_kernel.h. The per-clip and per-rig data live here as plain scalars; the lane code
// (rig_kernel_lanes.inl: GCC/Clang vector extensions) is compiled for 4 lanes with the
// baseline target (SSE on x86-64, scalar code elsewhere) and, on x86-64, for 8 lanes with AVX2 and
// 16 with AVX-512 enabled for those functions only; the constructor picks the widest the CPU runs.
#include "simd/rig_kernel.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

#include "decode/codec.h"
#include "simd/simd.h"
#include "vatkit/sample.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#if VATKIT_SIMD_AVX2
#include <immintrin.h>
#endif

namespace vatkit::detail {
namespace {

// ---- what the lanes read: plain scalars -------------------------------------------------------

struct AffineScalar {  // 3x4, column-major: c[0..2] the 3x3 part, c[3] the translation
  float c[4][3];
};
AffineScalar affine(const glm::mat4& m) {
  AffineScalar a;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) a.c[j][i] = m[j][i];
  return a;
}

struct KernelNode {
  uint32_t node = 0;
  int32_t parent = -1;  // index into the nodes, -1: a root
  bool fixed = false;   // a matrix node
  AffineScalar matrix;  // fixed nodes
  float t[3], s[3], q[4];
};
struct KernelSlot {
  uint32_t node = 0;  // index into the nodes
  bool identity = false;
  AffineScalar inverse_bind;
  bool box = false;
  float center[3], extent[3];
  float extent_len = 0.0f, morph_term = 0.0f;  // |extent|, ||A0||_F * morph shift
  AffineScalar rest;
};
struct KernelChannel {
  uint32_t node = 0;  // index into the nodes
  Path path = Path::Translation;
  const Sampler* sampler = nullptr;
  uint32_t times = 0;  // index of its times array among the clip's distinct ones
};
// A channel whose keys all hold one value (LINEAR or STEP): set once, not sampled per row.
struct KernelConstant {
  uint32_t node = 0;
  Path path = Path::Translation;
  float value[4] = {0.0f, 0.0f, 0.0f, 0.0f};
};
struct KernelClip {
  const ClipPlan* plan = nullptr;
  // Per node: the local matrix when the clip samples none of its channels (its rest TRS with the
  // clip's constant channels applied, computed once by the lane code itself), else unused.
  const uint8_t* sampled = nullptr;  // per node: 1 when a channel of the clip is sampled per row
  const AffineScalar* local = nullptr;
  const KernelConstant* constants = nullptr;
  size_t constant_count = 0;
  const KernelChannel* channels = nullptr;
  size_t channel_count = 0;
  const Sampler* const* time_owners = nullptr;  // one sampler per distinct times array
  size_t group_count = 0;
};
struct KernelData {
  const KernelNode* nodes = nullptr;  // parents before children
  size_t node_count = 0;
  const KernelSlot* slots = nullptr;
  size_t slot_count = 0;
  const KernelClip* clips = nullptr;
};

// asin's Taylor coefficients (2n)! / (4^n (n!)^2 (2n + 1)), n = 0..12.
struct AsinTaylor {
  float c[13];
};
constexpr AsinTaylor make_asin_taylor() {
  AsinTaylor t{};
  double coef = 1.0;
  for (int n = 0; n < 13; ++n) {
    t.c[n] = float(coef / double(2 * n + 1));
    coef *= double(2 * n + 1) / double(2 * n + 2);
  }
  return t;
}
constexpr AsinTaylor kAsinTaylor = make_asin_taylor();

}  // namespace

// Per thread: aligned memory the lane code carves its arrays from, and the key cursors.
struct RigKernel::Scratch {
  struct alignas(32) Chunk {
    float f[8];
  };
  std::vector<Chunk> mem;
  std::vector<uint32_t> cursors;  // per times array: the key interval of the last lane sampled
  uint32_t next_block = ~0u;      // the row the cursors are valid for (the block after the last)
  uint32_t clip = ~0u;            // ... of this clip

  // `bytes` aligned for the widest lanes (64 bytes), carved from 32-byte chunks: a 64-byte
  // aligned vector would change the heap's layout, and with it which of a bake's buffers reuse
  // pages and which take fresh ones (docs/benchmarks.md, "Fresh memory on this VM").
  float* reserve(size_t bytes) {
    bytes += 32;
    if (mem.size() * sizeof(Chunk) < bytes) mem.resize((bytes + sizeof(Chunk) - 1) / sizeof(Chunk));
    return mem.data()->f + ((reinterpret_cast<uintptr_t>(mem.data()) & 32) != 0 ? 8 : 0);
  }
  uint32_t* cursors_for(uint32_t clip_index, uint32_t k0, uint32_t lanes, size_t groups) {
    if (clip != clip_index || next_block != k0 || cursors.size() != groups) cursors.assign(groups, ~0u);
    clip = clip_index;
    next_block = k0 + lanes;
    return cursors.data();
  }
};

namespace {
using KernelScratchMemory = RigKernel::Scratch;

namespace lanes1 {  // the scalar twin
#define VATKIT_RIG_LANES 1
#include "simd/rig_kernel_lanes.inl"
#undef VATKIT_RIG_LANES
}  // namespace lanes1
namespace lanes4 {
#define VATKIT_RIG_LANES 4
#include "simd/rig_kernel_lanes.inl"
#undef VATKIT_RIG_LANES
}  // namespace lanes4

#if VATKIT_SIMD_AVX2
VATKIT_AVX2_BEGIN
namespace lanes8 {
#define VATKIT_RIG_LANES 8
#include "simd/rig_kernel_lanes.inl"
#undef VATKIT_RIG_LANES
}  // namespace lanes8
VATKIT_AVX2_END
VATKIT_AVX512_BEGIN
namespace lanes16 {
#define VATKIT_RIG_LANES 16
#include "simd/rig_kernel_lanes.inl"
#undef VATKIT_RIG_LANES
}  // namespace lanes16
VATKIT_AVX512_END
#endif

}  // namespace

struct RigKernel::Impl {
  unsigned lanes = 4;
  std::vector<KernelNode> nodes;
  std::vector<int32_t> node_index;  // asset node -> index in nodes, -1 when not needed
  std::vector<KernelSlot> slots;
  struct ClipState {
    ClipPlan plan;
    std::vector<KernelConstant> constants;
    std::vector<KernelChannel> channels;
    std::vector<const Sampler*> time_owners;
    std::vector<uint8_t> sampled;
    std::vector<AffineScalar> local;
  };
  std::vector<ClipState> clips;
  std::vector<KernelClip> clip_views;
  KernelData data;

  void refresh_views() {
    clip_views.resize(clips.size());
    for (size_t i = 0; i < clips.size(); ++i) {
      const ClipState& c = clips[i];
      clip_views[i] = KernelClip{
          &c.plan,           c.sampled.data(),  c.local.data(),       c.constants.data(),  c.constants.size(),
          c.channels.data(), c.channels.size(), c.time_owners.data(), c.time_owners.size()};
    }
    data = KernelData{nodes.data(), nodes.size(), slots.data(), slots.size(), clip_views.data()};
  }
};

RigKernel::RigKernel(const BakeSetup& setup) : impl_(new Impl) {
  Impl& m = *impl_;
  m.lanes = simd_lanes();
  const Asset& a = *setup.asset;
  std::vector<bool> needed(a.nodes.size(), false);
  for (const VatSlot& s : setup.rig_slots) {
    for (int32_t n = s.node; n >= 0 && !needed[size_t(n)]; n = a.nodes[size_t(n)].parent) needed[size_t(n)] = true;
  }
  m.node_index.assign(a.nodes.size(), -1);
  const Pose rest = make_rest_pose(a);
  for (uint32_t n : a.node_order) {
    if (!needed[n]) continue;
    KernelNode info;
    info.node = n;
    const Node& node = a.nodes[n];
    info.parent = node.parent >= 0 ? m.node_index[size_t(node.parent)] : -1;
    info.fixed = node.has_matrix;
    info.matrix = affine(node.matrix);
    for (int i = 0; i < 3; ++i) {
      info.t[i] = rest.translation[n][i];
      info.s[i] = rest.scale[n][i];
    }
    const glm::quat q = rest.rotation[n];
    info.q[0] = q.x;
    info.q[1] = q.y;
    info.q[2] = q.z;
    info.q[3] = q.w;
    m.node_index[n] = int32_t(m.nodes.size());
    m.nodes.push_back(info);
  }
  for (size_t i = 0; i < setup.rig_slots.size(); ++i) {
    const VatSlot& vs = setup.rig_slots[i];
    KernelSlot s;
    s.node = uint32_t(m.node_index[size_t(vs.node)]);
    s.identity = vs.inverse_bind == glm::mat4(1.0f);
    s.inverse_bind = affine(vs.inverse_bind);
    const BakeSetup::SlotBox& box = setup.slot_boxes[i];
    s.box = box.used;
    for (int c = 0; c < 3; ++c) {
      s.center[c] = box.center[c];
      s.extent[c] = box.extent[c];
    }
    s.extent_len = glm::length(box.extent);
    const glm::mat4& r = setup.rest_slot_matrices[i];
    const float a0 = std::sqrt(glm::dot(glm::vec3(r[0]), glm::vec3(r[0])) + glm::dot(glm::vec3(r[1]), glm::vec3(r[1])) +
                               glm::dot(glm::vec3(r[2]), glm::vec3(r[2])));
    s.morph_term = a0 * box.morph_shift;
    s.rest = affine(r);
    m.slots.push_back(s);
  }
  m.refresh_views();
}

RigKernel::~RigKernel() { delete impl_; }

unsigned RigKernel::block_rows(uint32_t rows_left) const {
  unsigned lanes = impl_->lanes;
  if (lanes == 16 && rows_left <= 8) lanes = 8;
  return lanes;
}

RigKernel::Scratch* RigKernel::make_scratch() const { return new Scratch; }
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
    // Every key equal to the one before it (so to the first: keys are finite), compared without a
    // modulo by nc (it would dominate this function's time).
    const bool constant = s.interpolation != Interpolation::CubicSpline && s.values.size() >= nc &&
                          std::equal(s.values.begin() + nc, s.values.end(), s.values.begin());
    if (constant) {
      KernelConstant k;
      k.node = uint32_t(n);
      k.path = ch.path;
      for (uint32_t i = 0; i < nc && i < 4; ++i) k.value[i] = s.values[i];
      if (ch.path == Path::Rotation) {  // sampled rotations are unit length (sample.cpp)
        const float len2 =
            k.value[0] * k.value[0] + k.value[1] * k.value[1] + k.value[2] * k.value[2] + k.value[3] * k.value[3];
        if (len2 > 0.0f) {
          const float inv = 1.0f / std::sqrt(len2);
          for (float& v : k.value) v *= inv;
        }
      }
      c.constants.push_back(k);
      continue;
    }
    // The same times array: the same bytes (memcmp: a +0 against a -0 only costs a sharing).
    auto same_times = [&s](const Sampler* o) {
      return o->times.size() == s.times.size() &&
             std::memcmp(o->times.data(), s.times.data(), s.times.size() * sizeof(float)) == 0;
    };
    uint32_t g = 0;
    while (g < c.time_owners.size() && !same_times(c.time_owners[g])) ++g;
    if (g == c.time_owners.size()) c.time_owners.push_back(&s);
    c.channels.push_back(KernelChannel{uint32_t(n), ch.path, &s, g});
  }
  // Nodes no channel samples: their local matrix, once (most of RobotExpressive's nodes in any
  // one clip). The 4-lane code computes it; every width computes the same bits.
  c.sampled.assign(m.nodes.size(), 0);
  for (const KernelChannel& ch : c.channels) c.sampled[ch.node] = 1;
  c.local.resize(m.nodes.size());
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    const KernelNode& node = m.nodes[n];
    if (c.sampled[n] || node.fixed) continue;
    float t[3], q[4], sc[3];
    std::memcpy(t, node.t, sizeof t);
    std::memcpy(q, node.q, sizeof q);
    std::memcpy(sc, node.s, sizeof sc);
    for (const KernelConstant& k : c.constants) {
      if (k.node != n) continue;
      if (k.path == Path::Translation) std::memcpy(t, k.value, sizeof t);
      if (k.path == Path::Rotation) std::memcpy(q, k.value, sizeof q);
      if (k.path == Path::Scale) std::memcpy(sc, k.value, sizeof sc);
    }
    c.local[n] = lanes4::local_affine_once(t, q, sc);
  }
  m.clips.push_back(std::move(c));
  m.refresh_views();
  return uint32_t(m.clips.size() - 1);
}

void RigKernel::run_block(uint32_t clip, uint32_t k0, unsigned rows, Scratch& sc, SlotStage& stage, uint32_t stage_row,
                          RigRowResult* results, float tolerance) const {
  const Impl& m = *impl_;
  assert(rows == 1 || rows == 4 || (rows <= m.lanes && (rows == 8 || rows == 16)));
  const size_t stride4 = stage.stride / 4;  // in 4-float units
#if VATKIT_SIMD_AVX2
  if (rows == 16) {
    lanes16::run_block(m.data, clip, k0, sc, stage.data, stride4, stage_row, results, tolerance);
    return clear_upper_state();  // simd.h: legacy SSE code after AVX code
  }
  if (rows == 8) {
    lanes8::run_block(m.data, clip, k0, sc, stage.data, stride4, stage_row, results, tolerance);
    return clear_upper_state();  // simd.h: legacy SSE code after AVX code
  }
#endif
  if (rows == 1) return lanes1::run_block(m.data, clip, k0, sc, stage.data, stride4, stage_row, results, tolerance);
  lanes4::run_block(m.data, clip, k0, sc, stage.data, stride4, stage_row, results, tolerance);
}

}  // namespace vatkit::detail

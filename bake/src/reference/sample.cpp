// Animation sampling as glTF 2.0 defines it (see sample.h for the rules).
//
// Key lookup is a branchless binary search over the sampler's times; sample_animation_batch
// loops channel-outer, time-inner over tiles of 32 poses (one sampler's keys and the tile's poses
// stay in cache), and carries a cursor from one time to the next (a hit when times increase,
// which is how bakers and players ask; it halves the cost, see docs/benchmarks.md), falling back
// to the binary search otherwise. Either way the key interval found is the same, so the output
// does not depend on the order of the times or on the split over threads.
#include "vatkit/sample.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "vatkit/parallel.h"

namespace vatkit {
namespace {

// Where a time falls on a sampler's keys: the interval [key, key + 1) and the fraction u in it,
// or, when hold is true, exactly key `key` (before the first key, after the last, one-key
// samplers).
struct KeySpan {
  uint32_t key = 0;
  float u = 0.0f;
  bool hold = true;
};

// Largest k in [0, n - 2] with times[k] <= t, for times[0] <= t < times[n - 1] and n >= 2.
inline uint32_t search_interval(const float* times, uint32_t n, float t) {
  const float* base = times;
  uint32_t len = n - 1;
  while (len > 1) {
    const uint32_t half = len / 2;
    base = (base[half] <= t) ? base + half : base;
    len -= half;
  }
  return static_cast<uint32_t>(base - times);
}

inline KeySpan span_from_interval(const float* times, uint32_t k, float t) {
  KeySpan s;
  s.key = k;
  s.hold = false;
  s.u = (t - times[k]) / (times[k + 1] - times[k]);
  return s;
}

// The end keys hold outside [times[0], times[n-1]]; a NaN time holds the first key.
inline KeySpan locate(const std::vector<float>& times, float t) {
  const uint32_t n = static_cast<uint32_t>(times.size());
  assert(n > 0);
  if (n == 1 || !(t > times[0])) return KeySpan{0, 0.0f, true};
  if (t >= times[n - 1]) return KeySpan{n - 1, 0.0f, true};
  return span_from_interval(times.data(), search_interval(times.data(), n, t), t);
}

// Same as locate, trying the interval of the previous call (`cursor`) and the next one first.
inline KeySpan locate_from(const std::vector<float>& times, float t, uint32_t& cursor) {
  const uint32_t n = static_cast<uint32_t>(times.size());
  assert(n > 0);
  if (n == 1 || !(t > times[0])) return KeySpan{0, 0.0f, true};
  if (t >= times[n - 1]) return KeySpan{n - 1, 0.0f, true};
  const float* tk = times.data();
  uint32_t k = cursor;
  if (k + 1 < n && tk[k] <= t) {
    if (t < tk[k + 1]) return span_from_interval(tk, k, t);
    if (k + 2 < n && t < tk[k + 2]) {
      cursor = k + 1;
      return span_from_interval(tk, k + 1, t);
    }
  }
  k = search_interval(tk, n, t);
  cursor = k;
  return span_from_interval(tk, k, t);
}

inline void normalize4(float* q) {
  const float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (len2 > 0.0f) {
    const float inv = 1.0f / std::sqrt(len2);
    q[0] *= inv;
    q[1] *= inv;
    q[2] *= inv;
    q[3] *= inv;
  }
}

// The spec's slerp (glTF 2.0, Appendix: interpolation): shortest path, with the normalized lerp
// the spec allows when the keys are nearly parallel (dot > 0.9995), where sin(theta) loses
// precision. The spec assumes unit keys; files round them (SimpleSkin's (0.383, 0.924) has
// length 1.00023), so the keys are normalized first: the path runs between the rotations the
// keys stand for, at constant angular speed, and the result is unit length.
inline void slerp(const float* a, const float* b, float u, float* out) {
  const float la2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3];
  const float lb2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3];
  // Keys already unit to float precision (nearly all of them) skip the two square roots.
  auto inv_len = [](float len2) {
    if (std::abs(len2 - 1.0f) <= 2e-6f) return 1.0f;
    return len2 > 0.0f ? 1.0f / std::sqrt(len2) : 0.0f;
  };
  const float ia = inv_len(la2);
  float ib = inv_len(lb2);
  float d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) * (ia * ib);
  if (d < 0.0f) {
    d = -d;
    ib = -ib;
  }
  float q[4];
  if (d > 0.9995f) {
    const float wa = (1.0f - u) * ia, wb = u * ib;
    for (int c = 0; c < 4; ++c) q[c] = wa * a[c] + wb * b[c];
    normalize4(q);
  } else {
    // The spec's weights: wb = sin(u theta) / sin(theta), wa = cos(u theta) - cos(theta) wb,
    // with sin(theta) = sqrt(1 - d^2); one acos and one sin/cos pair (fused into sincos).
    const float theta = std::acos(d);
    const float inv_sin = 1.0f / std::sqrt(1.0f - d * d);
    const float ut = u * theta;
    const float sb = std::sin(ut) * inv_sin;
    const float wa = (std::cos(ut) - d * sb) * ia, wb = sb * ib;
    for (int c = 0; c < 4; ++c) q[c] = wa * a[c] + wb * b[c];
  }
  for (int c = 0; c < 4; ++c) out[c] = q[c];
}

// Evaluates a sampler of kN components (3: translation or scale, 4: rotation; 0: any count,
// for weights). Results are built in locals and stored once: writing `out` piecewise and
// reading it back (to normalize) stalls store forwarding.
template <int kN, bool kRotation>
inline void evaluate_n(const Sampler& s, const KeySpan& at, float* out) {
  const uint32_t nc = kN > 0 ? uint32_t(kN) : s.components;
  const float* v = s.values.data();
  const bool cubic = s.interpolation == Interpolation::CubicSpline;
  if (at.hold || s.interpolation == Interpolation::Step) {
    // A cubic key is (in-tangent, value, out-tangent): the value is the middle element.
    const float* src = v + (cubic ? (3 * size_t(at.key) + 1) : size_t(at.key)) * nc;
    if constexpr (kRotation) {
      float q[4] = {src[0], src[1], src[2], src[3]};
      normalize4(q);  // every sampled rotation is unit length
      for (int c = 0; c < 4; ++c) out[c] = q[c];
    } else {
      for (uint32_t c = 0; c < nc; ++c) out[c] = src[c];
    }
    return;
  }
  const float u = at.u;
  if (!cubic) {
    const float* a = v + size_t(at.key) * nc;
    const float* b = a + nc;
    if constexpr (kRotation) {
      slerp(a, b, u, out);
    } else {
      // a + u (b - a) keeps a constant channel bit-exact (a == b gives a).
      for (uint32_t c = 0; c < nc; ++c) out[c] = a[c] + u * (b[c] - a[c]);
    }
    return;
  }
  // Hermite: p(u) = h00 v_k + h10 d b_k + h01 v_k+1 + h11 d a_k+1, with d = t_k+1 - t_k, b_k the
  // out-tangent of key k and a_k+1 the in-tangent of key k + 1.
  const float d = s.times[at.key + 1] - s.times[at.key];
  const float u2 = u * u, u3 = u2 * u;
  const float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f;
  const float h10 = (u3 - 2.0f * u2 + u) * d;
  const float h01 = -2.0f * u3 + 3.0f * u2;
  const float h11 = (u3 - u2) * d;
  const float* k0 = v + 3 * size_t(at.key) * nc;  // in-tangent of key k
  const float* vk = k0 + nc;
  const float* bk = k0 + 2 * nc;
  const float* ak1 = k0 + 3 * nc;  // in-tangent of key k + 1
  const float* vk1 = k0 + 4 * nc;
  if constexpr (kRotation) {
    float q[4];
    for (int c = 0; c < 4; ++c) q[c] = h00 * vk[c] + h10 * bk[c] + h01 * vk1[c] + h11 * ak1[c];
    normalize4(q);
    for (int c = 0; c < 4; ++c) out[c] = q[c];
  } else {
    for (uint32_t c = 0; c < nc; ++c) out[c] = h00 * vk[c] + h10 * bk[c] + h01 * vk1[c] + h11 * ak1[c];
  }
}

inline void evaluate(const Sampler& s, Path path, const KeySpan& at, float* out) {
  switch (path) {
    case Path::Rotation: return evaluate_n<4, true>(s, at, out);
    case Path::Weights: return evaluate_n<0, false>(s, at, out);
    default: return evaluate_n<3, false>(s, at, out);
  }
}

inline float* channel_target(const Channel& ch, Pose& pose, const Asset& asset) {
  switch (ch.path) {
    case Path::Translation: return &pose.translation[ch.node].x;
    case Path::Rotation: return &pose.rotation[ch.node].x;
    case Path::Scale: return &pose.scale[ch.node].x;
    case Path::Weights: return pose.weights.data() + asset.nodes[ch.node].weights_offset;
  }
  return nullptr;
}

// glm::quat stores (x, y, z, w) in memory unless GLM_FORCE_QUAT_DATA_WXYZ, the same order as
// glTF, so rotation channels write straight into it.
static_assert(sizeof(glm::quat) == 4 * sizeof(float));

[[maybe_unused]] bool quat_is_xyzw() {
  glm::quat q;
  const float* p = reinterpret_cast<const float*>(&q);
  return &q.x == p && &q.w == p + 3;
}

inline void write_channel(const Channel& ch, const Sampler& s, const KeySpan& at, Pose& pose, const Asset& asset) {
  if (ch.path == Path::Weights) {
    assert(s.components == asset.nodes[ch.node].weights_count);
  } else {
    assert(s.components == (ch.path == Path::Rotation ? 4u : 3u));
  }
  evaluate(s, ch.path, at, channel_target(ch, pose, asset));
}

// dst = src for two poses sized for the same asset, without allocating.
void copy_pose(const Pose& src, Pose& dst) {
  assert(dst.translation.size() == src.translation.size() && dst.weights.size() == src.weights.size());
  std::memcpy(dst.translation.data(), src.translation.data(), src.translation.size() * sizeof(glm::vec3));
  std::memcpy(dst.rotation.data(), src.rotation.data(), src.rotation.size() * sizeof(glm::quat));
  std::memcpy(dst.scale.data(), src.scale.data(), src.scale.size() * sizeof(glm::vec3));
  if (!src.weights.empty()) std::memcpy(dst.weights.data(), src.weights.data(), src.weights.size() * sizeof(float));
}

}  // namespace

Pose make_rest_pose(const Asset& asset) {
  assert(quat_is_xyzw());
  Pose pose;
  pose.translation.resize(asset.nodes.size());
  pose.rotation.resize(asset.nodes.size());
  pose.scale.resize(asset.nodes.size());
  pose.weights.resize(asset.weight_count);
  reset_pose(asset, pose);
  return pose;
}

void reset_pose(const Asset& asset, Pose& pose) {
  const size_t n = asset.nodes.size();
  assert(pose.translation.size() == n && pose.rotation.size() == n && pose.scale.size() == n);
  assert(pose.weights.size() == asset.weight_count);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = asset.nodes[i];
    pose.translation[i] = node.translation;
    // Unit length, like every sampled rotation (files round them: see slerp()).
    const float len2 = glm::dot(node.rotation, node.rotation);
    pose.rotation[i] = len2 > 0.0f ? node.rotation * (1.0f / std::sqrt(len2)) : node.rotation;
    pose.scale[i] = node.scale;
    if (node.weights_count == 0) continue;
    float* w = pose.weights.data() + node.weights_offset;
    const std::vector<float>* src = nullptr;
    if (node.weights.size() == node.weights_count) {
      src = &node.weights;
    } else if (node.mesh >= 0 && asset.meshes[size_t(node.mesh)].weights.size() == node.weights_count) {
      src = &asset.meshes[size_t(node.mesh)].weights;
    }
    if (src) {
      std::memcpy(w, src->data(), node.weights_count * sizeof(float));
    } else {
      std::fill(w, w + node.weights_count, 0.0f);
    }
  }
}

void sample_sampler(const Sampler& sampler, Path path, float time_s, float* out) {
  evaluate(sampler, path, locate(sampler.times, time_s), out);
}

void sample_animation(const Animation& animation, float time_s, Pose& pose, const Asset& asset) {
  for (const Channel& ch : animation.channels) {
    const Sampler& s = animation.samplers[ch.sampler];
    write_channel(ch, s, locate(s.times, time_s), pose, asset);
  }
}

void sample_animation_batch(const Asset& asset, const Animation& animation, std::span<const float> times_s,
                            std::span<Pose> poses, unsigned threads) {
  assert(times_s.size() == poses.size());
  // Enough poses per range that a thread amortizes one pass over the clip's keys.
  const size_t grain = 16;
  struct Job {
    const Asset& asset;
    const Animation& animation;
    std::span<const float> times_s;
    std::span<Pose> poses;
  } job{asset, animation, times_s, poses};
  // One captured pointer keeps the std::function in its small buffer: no allocation.
  parallel_for(times_s.size(), grain, threads, [j = &job](size_t begin, size_t end) {
    // Tiles of poses small enough to stay in cache while every channel writes into them.
    constexpr size_t kTile = 32;
    for (size_t t0 = begin; t0 < end; t0 += kTile) {
      const size_t t1 = std::min(end, t0 + kTile);
      // Reset one pose from the asset, then copy it: flat copies beat walking the nodes again.
      reset_pose(j->asset, j->poses[t0]);
      const Pose& rest = j->poses[t0];
      for (size_t k = t0 + 1; k < t1; ++k) copy_pose(rest, j->poses[k]);
      for (const Channel& ch : j->animation.channels) {
        const Sampler& s = j->animation.samplers[ch.sampler];
        uint32_t cursor = 0;
        for (size_t k = t0; k < t1; ++k) {
          write_channel(ch, s, locate_from(s.times, j->times_s[k], cursor), j->poses[k], j->asset);
        }
      }
    }
  });
}

void compute_world_matrices(const Asset& asset, const Pose& pose, std::span<glm::mat4> world) {
  assert(world.size() == asset.nodes.size());
  assert(asset.node_order.size() == asset.nodes.size());
  for (const uint32_t i : asset.node_order) {
    const Node& node = asset.nodes[i];
    glm::mat4 local;
    if (node.has_matrix) {
      local = node.matrix;
    } else {
      // glTF requires unit quaternions; files store them rounded (SimpleSkin's 0.707, 0.707), so
      // R comes from the normalized quaternion and carries no stray scale.
      glm::quat q = pose.rotation[i];
      const float len2 = glm::dot(q, q);
      q = len2 > 0.0f ? q * (1.0f / std::sqrt(len2)) : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
      const float x = q.x, y = q.y, z = q.z, w = q.w;
      const glm::vec3 s = pose.scale[i];
      local[0] = glm::vec4((1.0f - 2.0f * (y * y + z * z)) * s.x, 2.0f * (x * y + z * w) * s.x,
                           2.0f * (x * z - y * w) * s.x, 0.0f);
      local[1] = glm::vec4(2.0f * (x * y - z * w) * s.y, (1.0f - 2.0f * (x * x + z * z)) * s.y,
                           2.0f * (y * z + x * w) * s.y, 0.0f);
      local[2] = glm::vec4(2.0f * (x * z + y * w) * s.z, 2.0f * (y * z - x * w) * s.z,
                           (1.0f - 2.0f * (x * x + y * y)) * s.z, 0.0f);
      local[3] = glm::vec4(pose.translation[i], 1.0f);
    }
    world[i] = node.parent >= 0 ? world[size_t(node.parent)] * local : local;
  }
}

}  // namespace vatkit

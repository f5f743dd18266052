// Root motion at bake time (bake.h, RootMotionOption; docs/root-motion.md): which clips, from a
// joint or from the feet; the joint's motion taken out of the asset (a corrective root node);
// each clip's per-row track.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include <glm/gtc/quaternion.hpp>

#include "encode/bake_internal.h"
#include "util/printable.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace detail {

namespace {

constexpr double kPi = 3.14159265358979323846;
// "auto" takes the feet where the root joint travels less than this fraction of the asset's size.
constexpr float kInPlaceFraction = 0.1f;

// The root joint: the shallowest joint named hips or pelvis, else the shallowest skin joint (the
// one with the most joints below it among equals). -1 without joints.
int find_root_joint(const Asset& asset, std::string& how) {
  const std::vector<uint32_t> joints = skin_joints(asset);
  int best = -1, best_depth = 0;
  for (uint32_t j : joints) {
    for (const std::string& w : joint_words(asset.nodes[j].name)) {
      if (w != "hips" && w != "hip" && w != "pelvis") continue;
      const int d = joint_depth(asset, j);
      if (best < 0 || d < best_depth) best = int(j), best_depth = d;
    }
  }
  if (best >= 0) {
    how = "by name";
    return best;
  }
  auto below = [&](uint32_t j) {
    size_t n = 0;
    for (uint32_t k : joints)
      for (int32_t p = asset.nodes[k].parent; p >= 0; p = asset.nodes[size_t(p)].parent)
        if (uint32_t(p) == j) ++n;
    return n;
  };
  for (uint32_t j : joints) {
    const int d = joint_depth(asset, j);
    if (best < 0 || d < best_depth || (d == best_depth && below(j) > below(uint32_t(best))))
      best = int(j), best_depth = d;
  }
  how = "the skeleton's root";
  return best;
}

// The planar frame of a node over a clip: position (height zeroed unless vertical) and the turn
// about +y of its world rotation since the clip's first instant (the twist of R(t) R(0)^-1,
// unwrapped), at n samples over [0, duration].
struct Frames {
  std::vector<glm::dvec3> p;
  std::vector<double> yaw;
};

size_t sample_count(float duration) {
  return std::max<size_t>(2, size_t(std::lround(double(duration) * kFootSampleRate)) + 1);
}
float sample_time(float duration, size_t i, size_t n) {
  return i + 1 == n ? duration : duration * float(i) / float(n - 1);
}

Frames node_frames(const Asset& asset, int clip, int node, bool vertical) {
  const float duration = asset.animations[size_t(clip)].end_s;
  const size_t n = sample_count(duration);
  SceneEvaluator ev(asset);
  Frames f;
  glm::dquat first(1.0, 0.0, 0.0, 0.0);
  for (size_t i = 0; i < n; ++i) {
    ev.pose(clip, sample_time(duration, i, n));
    const glm::mat4& m = ev.world()[size_t(node)];
    glm::dvec3 p(m[3]);
    if (!vertical) p.y = 0.0;
    const glm::dmat3 r(glm::normalize(glm::dvec3(m[0])), glm::normalize(glm::dvec3(m[1])),
                       glm::normalize(glm::dvec3(m[2])));
    const glm::dquat q = glm::normalize(glm::quat_cast(r));
    if (i == 0) first = q;
    const glm::dquat rel = q * glm::inverse(first);
    double yaw = 2.0 * std::atan2(rel.y, rel.w);
    if (i > 0) {  // unwrapped: within half a turn of the sample before
      while (yaw - f.yaw.back() > kPi) yaw -= 2.0 * kPi;
      while (yaw - f.yaw.back() < -kPi) yaw += 2.0 * kPi;
    }
    f.p.push_back(p);
    f.yaw.push_back(i == 0 ? 0.0 : yaw);
  }
  return f;
}

// The horizontal distance a node travels from where it starts, at most, over a clip.
double travel(const Frames& f) {
  double most = 0.0;
  for (const glm::dvec3& p : f.p) most = std::max(most, std::hypot(p.x - f.p[0].x, p.z - f.p[0].z));
  return most;
}

// A_i = F_i F_0^-1 as (x, y, z, yaw): turn yaw_i, then translate p_i - R(yaw_i) p_0.
glm::dvec4 motion_of(const Frames& f, size_t i) {
  const double c = std::cos(f.yaw[i]), s = std::sin(f.yaw[i]);
  const glm::dvec3& p0 = f.p[0];
  const glm::dvec3 turned(c * p0.x + s * p0.z, p0.y, -s * p0.x + c * p0.z);
  return glm::dvec4(f.p[i] - turned, f.yaw[i]);
}

std::string metres(double units, float metres_per_unit) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g m", units * double(metres_per_unit));
  return text;
}

// Whether a foot ("foot_l", "foot_r") is down at each of n samples dt apart, from its contact
// events (each at a sample's time; a contact across the cycle's end is down at the start).
std::vector<char> contact_flags(const std::vector<ClipEvent>& events, const std::string& foot, size_t n, double dt) {
  bool on = false;
  for (const ClipEvent& e : events) {  // the state at the start: the opposite of the first change
    if (e.name.rfind(foot, 0) != 0) continue;
    on = e.name == foot + "_up";
    break;
  }
  std::vector<char> out(n, 0);
  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    while (next < events.size() && std::lround(double(events[next].time_s) / dt) <= long(i)) {
      if (events[next].name == foot + "_down") on = true;
      if (events[next].name == foot + "_up") on = false;
      ++next;
    }
    out[i] = on;
  }
  return out;
}

// Each foot's horizontal position (x, z) and height at n samples over a clip.
struct FeetSamples {
  std::vector<glm::dvec2> pos[2];
  std::vector<double> height[2];
};

FeetSamples sample_feet(const Asset& asset, int clip, const FootJoints& feet, size_t n) {
  const float duration = asset.animations[size_t(clip)].end_s;
  SceneEvaluator ev(asset);
  FeetSamples f;
  for (size_t i = 0; i < n; ++i) {
    ev.pose(clip, sample_time(duration, i, n));
    for (int k = 0; k < 2; ++k) {
      const glm::vec4 p = ev.world()[size_t(k == 0 ? feet.left : feet.right)][3];
      f.pos[k].emplace_back(p.x, p.z);
      f.height[k].push_back(p.y);
    }
  }
  return f;
}

// The root's velocity where a foot is planted: a planted foot of an in-place cycle slides back,
// so a contact sample counts where its foot moves against the way the feet carry the body overall
// (a foot may touch down still swinging forward), minus the foot's horizontal velocity; of two
// such feet, the lower's (it bears the weight). Nothing elsewhere. Sample n - 1 is sample 0.
std::vector<std::optional<glm::dvec2>> planted_velocity(const FeetSamples& f, const std::vector<char> (&down)[2],
                                                        double dt) {
  const size_t n = f.pos[0].size();
  std::vector<glm::dvec2> back[2] = {std::vector<glm::dvec2>(n), std::vector<glm::dvec2>(n)};
  glm::dvec2 overall(0.0);
  for (size_t i = 0; i + 1 < n; ++i) {
    const size_t a = i == 0 ? n - 2 : i - 1, b = i + 1;
    for (int k = 0; k < 2; ++k) {
      back[k][i] = -(f.pos[k][b] - f.pos[k][a]) / (2.0 * dt);
      if (down[k][i]) overall += back[k][i];
    }
  }
  std::vector<std::optional<glm::dvec2>> v(n);
  for (size_t i = 0; i + 1 < n; ++i) {
    int best = -1;
    for (int k = 0; k < 2; ++k) {
      if (!down[k][i] || glm::dot(back[k][i], overall) <= 0.0) continue;
      if (best < 0 || f.height[k][i] < f.height[size_t(best)][i]) best = k;
    }
    if (best >= 0) v[i] = back[size_t(best)][i];
  }
  return v;
}

// The velocities with the gaps filled: linear in time between the known samples on either side,
// around the cycle (n - 1 samples; the last repeats the first). All zero where none is known.
std::vector<glm::dvec2> fill_cycle(const std::vector<std::optional<glm::dvec2>>& v) {
  const size_t n = v.size(), m = n - 1;
  std::vector<size_t> known;
  for (size_t i = 0; i < m; ++i)
    if (v[i]) known.push_back(i);
  std::vector<glm::dvec2> vel(n, glm::dvec2(0.0));
  for (size_t i = 0; i < m && !known.empty(); ++i) {
    auto after = std::lower_bound(known.begin(), known.end(), i);
    const size_t hi = after == known.end() ? known.front() + m : *after;
    const size_t lo = after == known.begin() ? known.back() : *(after - 1);
    const double lo_pos = after == known.begin() ? double(lo) - double(m) : double(lo);
    const double span = double(hi) - lo_pos;
    const double t = span > 0.0 ? (double(i) - lo_pos) / span : 0.0;
    vel[i] = v[i] ? *v[i] : *v[lo] + (*v[hi % m] - *v[lo]) * t;
  }
  vel[m] = vel[0];
  return vel;
}

// The feet's root motion over a clip, at kFootSampleRate (root_motion.h, source Feet): the
// planted velocities, filled, summed by trapezoids from 0. The clip is taken as a cycle.
std::vector<glm::dvec2> feet_path(const Asset& asset, int clip, const FootJoints& feet, float size) {
  const float duration = asset.animations[size_t(clip)].end_s;
  const size_t n = sample_count(duration);
  const double dt = double(duration) / double(n - 1);
  const std::vector<ClipEvent> events = foot_contact_events(asset, clip, feet, size, /*repeats=*/true);
  const std::vector<char> down[2] = {contact_flags(events, "foot_l", n, dt), contact_flags(events, "foot_r", n, dt)};
  const std::vector<glm::dvec2> vel = fill_cycle(planted_velocity(sample_feet(asset, clip, feet, n), down, dt));
  std::vector<glm::dvec2> path(n, glm::dvec2(0.0));
  for (size_t i = 1; i < n; ++i) path[i] = path[i - 1] + 0.5 * (vel[i - 1] + vel[i]) * dt;
  return path;
}

// Linear interpolation of samples over [0, duration] at time t.
template <class T>
T at_time(const std::vector<T>& s, float duration, double t) {
  if (s.size() < 2 || !(duration > 0.0f)) return s.empty() ? T{} : s[0];
  const double x = std::clamp(t / double(duration), 0.0, 1.0) * double(s.size() - 1);
  const size_t i = std::min(size_t(x), s.size() - 2);
  return s[i] + (s[i + 1] - s[i]) * (x - double(i));
}

}  // namespace

Result<RootMotionPlan> plan_root_motion(const Asset& asset, const BakeOptions& options,
                                        std::vector<std::string>& notes) {
  RootMotionPlan plan;
  plan.vertical = options.root_motion_vertical;
  if (options.root_motion.empty()) return plan;
  plan.size = measure_motion(asset, {}, options.threads).size;
  std::vector<std::optional<std::string>> root_of(asset.animations.size());
  for (const RootMotionOption& o : options.root_motion) {
    if (o.clip == "all") {
      for (auto& r : root_of) r = o.root;
      continue;
    }
    Result<int> clip = find_clip(asset, o.clip);
    if (!clip) return clip.error();
    root_of[size_t(*clip)] = o.root;
  }
  std::string how;
  const int auto_root = find_root_joint(asset, how);
  std::optional<Result<FootJoints>> feet;
  for (size_t a = 0; a < root_of.size(); ++a) {
    if (!root_of[a]) continue;
    const std::string& root = *root_of[a];
    RootChoice c{int(a), RootMotionSource::Joint, auto_root};
    std::string why;
    if (root != "auto" && root != "feet") {
      Result<int> j = joint_named(asset, skin_joints(asset), root, "--root-motion");
      if (!j) return j.error();
      c.node = *j;
      why = "named";
    } else if (root == "auto") {
      if (auto_root < 0)
        return make_error(ErrorCode::Unsupported, asset.source, "--root-motion: the asset has no skin joints");
      const double moved = travel(node_frames(asset, int(a), auto_root, false));
      why = how + ", travels " + metres(moved, options.metres_per_unit);
      if (moved < double(kInPlaceFraction * plan.size)) {
        c.source = RootMotionSource::Feet;
        why = "the root joint \"" + printable(asset.nodes[size_t(auto_root)].name) + "\" (" + how + ") travels " +
              metres(moved, options.metres_per_unit) + ", under 10% of the asset's size: the clip is in place";
      }
    } else {
      c.source = RootMotionSource::Feet;
      why = "named";
    }
    if (c.source == RootMotionSource::Feet) {
      if (!feet) feet = find_feet(asset, options.feet);
      if (!*feet) return feet->error();
      plan.feet = **feet;
      notes.push_back("root motion of clip \"" + printable(clip_label(asset, int(a))) + "\": from the feet \"" +
                      printable(asset.nodes[size_t(plan.feet.left)].name) + "\", \"" +
                      printable(asset.nodes[size_t(plan.feet.right)].name) + "\" (" + why +
                      "); --root-motion CLIP=JOINT takes a joint's");
    } else {
      notes.push_back("root motion of clip \"" + printable(clip_label(asset, int(a))) + "\": joint \"" +
                      printable(asset.nodes[size_t(c.node)].name) + "\" (node " + std::to_string(c.node) + ", " + why +
                      "); --root-motion CLIP=JOINT names another");
    }
    plan.clips.push_back(c);
  }
  return plan;
}

Asset without_root_motion(const Asset& asset, RootMotionPlan& plan) {
  const bool any = std::any_of(plan.clips.begin(), plan.clips.end(),
                               [](const RootChoice& c) { return c.source == RootMotionSource::Joint; });
  if (!any) return asset;
  Asset out = asset;
  const auto added = uint32_t(out.nodes.size());
  Node root;
  root.name = "vatkit_root_motion";
  for (uint32_t i = 0; i < added; ++i) {
    if (out.nodes[i].parent >= 0) continue;
    out.nodes[i].parent = int32_t(added);
    root.children.push_back(i);
  }
  out.nodes.push_back(root);
  out.node_order.insert(out.node_order.begin(), added);
  plan.correction_node = int(added);
  for (const RootChoice& c : plan.clips) {
    if (c.source != RootMotionSource::Joint) continue;
    const Frames f = node_frames(asset, c.animation, c.node, plan.vertical);
    Animation& anim = out.animations[size_t(c.animation)];
    Sampler t, r;
    t.components = 3;
    r.components = 4;
    for (size_t i = 0; i < f.p.size(); ++i) {
      // The correction is A_i^-1: turn -yaw, translate -R(-yaw) A_i.t.
      const glm::dvec4 a = motion_of(f, i);
      const double cs = std::cos(-a.w), sn = std::sin(-a.w);
      const glm::dvec3 back(-(cs * a.x + sn * a.z), -a.y, -(-sn * a.x + cs * a.z));
      const glm::quat q = glm::angleAxis(float(-a.w), glm::vec3(0.0f, 1.0f, 0.0f));
      t.times.push_back(sample_time(anim.end_s, i, f.p.size()));
      t.values.insert(t.values.end(), {float(back.x), float(back.y), float(back.z)});
      r.values.insert(r.values.end(), {q.x, q.y, q.z, q.w});
    }
    r.times = t.times;
    anim.samplers.push_back(std::move(t));
    anim.channels.push_back(Channel{added, Path::Translation, uint32_t(anim.samplers.size() - 1)});
    anim.samplers.push_back(std::move(r));
    anim.channels.push_back(Channel{added, Path::Rotation, uint32_t(anim.samplers.size() - 1)});
  }
  return out;
}

std::optional<Asset> as_baked(const Asset& source, const Vat& vat) {
  RootMotionPlan plan;
  for (const VatClip& c : vat.clips) {
    if (!c.root_motion || c.root_motion->source != RootMotionSource::Joint) continue;
    const RootMotion& m = *c.root_motion;
    if (m.node < 0 || size_t(m.node) >= source.nodes.size() || c.source_animation < 0 ||
        size_t(c.source_animation) >= source.animations.size()) {
      return std::nullopt;
    }
    plan.clips.push_back(RootChoice{c.source_animation, RootMotionSource::Joint, m.node});
    plan.vertical = plan.vertical || m.vertical;
  }
  if (plan.clips.empty()) return std::nullopt;
  return without_root_motion(source, plan);
}

void attach_root_motion(const Asset& in_place, const RootMotionPlan& plan, Vat& vat) {
  for (const RootChoice& c : plan.clips) {
    for (VatClip& clip : vat.clips) {
      if (clip.source_animation != c.animation) continue;
      RootMotion m;
      m.source = c.source;
      m.vertical = plan.vertical && c.source == RootMotionSource::Joint;
      std::vector<glm::dvec4> samples;  // A at kFootSampleRate
      if (c.source == RootMotionSource::Joint) {
        m.joint = in_place.nodes[size_t(c.node)].name;
        m.node = c.node;
        // The corrective node's own keys, inverted: what the rows had taken out.
        const Animation& anim = in_place.animations[size_t(c.animation)];
        const Sampler& t = anim.samplers[anim.samplers.size() - 2];
        const Sampler& r = anim.samplers[anim.samplers.size() - 1];
        double unwrap = 0.0;
        for (size_t i = 0; i < t.times.size(); ++i) {
          const glm::quat q(r.values[i * 4 + 3], r.values[i * 4], r.values[i * 4 + 1], r.values[i * 4 + 2]);
          double yaw = -2.0 * std::atan2(double(q.y), double(q.w));
          if (i > 0) {
            while (yaw - unwrap > kPi) yaw -= 2.0 * kPi;
            while (yaw - unwrap < -kPi) yaw += 2.0 * kPi;
          }
          unwrap = yaw;
          // Kept as the node's (b, yaw): the sampler interpolates those, A = C^-1 follows below.
          samples.emplace_back(t.values[i * 3], t.values[i * 3 + 1], t.values[i * 3 + 2], yaw);
        }
      } else {
        for (const glm::dvec2& p : feet_path(in_place, c.animation, plan.feet, plan.size))
          samples.emplace_back(p.x, 0.0, p.y, 0.0);
      }
      const float duration = in_place.animations[size_t(c.animation)].end_s;
      for (uint32_t row = 0; row < clip.rows; ++row) {
        const double time = clip.rows > 1 ? double(row) * double(clip.duration_s) / double(clip.rows - 1) : 0.0;
        glm::dvec4 a = row == 0 ? glm::dvec4(0.0) : at_time(samples, duration, time);
        if (c.source == RootMotionSource::Joint && row > 0) {  // A = C^-1 for C = (turn -yaw, translate b)
          const double cs = std::cos(a.w), sn = std::sin(a.w);
          a = glm::dvec4(-(cs * a.x + sn * a.z), -a.y, -(-sn * a.x + cs * a.z), a.w);
        }
        m.track.insert(m.track.end(), {float(a.x), m.vertical ? float(a.y) : 0.0f, float(a.z), float(a.w)});
      }
      clip.root_motion = std::move(m);
    }
  }
}

}  // namespace detail
}  // namespace vatkit

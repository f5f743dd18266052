// Clip events at bake time: the source's, the options', and the foot contacts (feet.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "encode/bake_internal.h"
#include "util/printable.h"
#include "vatkit/feet.h"
#include "vatkit/scene.h"

namespace vatkit {

namespace {

void sort_events(std::vector<ClipEvent>& events) {
  std::stable_sort(events.begin(), events.end(),
                   [](const ClipEvent& x, const ClipEvent& y) { return x.time_s < y.time_s; });
}

// A joint name's words: split at non-alphanumerics, lower-to-upper case changes and digits, lower
// case ("mixamorig:LeftFoot" -> mixamorig, left, foot; "FootL" -> foot, l; "foot.R" -> foot, r).
std::vector<std::string> words(const std::string& name) {
  std::vector<std::string> out(1);
  char before = 0;
  for (char ch : name) {
    const bool alpha = std::isalpha(static_cast<unsigned char>(ch)) != 0;
    const bool digit = std::isdigit(static_cast<unsigned char>(ch)) != 0;
    const bool upper = std::isupper(static_cast<unsigned char>(ch)) != 0;
    const bool split = !(alpha || digit) || (upper && std::islower(static_cast<unsigned char>(before))) ||
                       (digit != (std::isdigit(static_cast<unsigned char>(before)) != 0));
    if (split && !out.back().empty()) out.emplace_back();
    if (alpha || digit) out.back().push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    before = ch;
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// 0: left, 1: right, -1: no side word. Rank of the foot word: 0 foot, 1 ankle, 2 toe, 3 none.
void classify(const std::string& name, int& side, int& rank) {
  side = -1;
  rank = 3;
  for (const std::string& w : words(name)) {
    if (w == "left" || w == "l") side = 0;
    if (w == "right" || w == "r") side = 1;
    const char* parts[] = {"foot", "ankle", "toe"};
    for (int k = 0; k < 3; ++k)
      if (w.rfind(parts[k], 0) == 0) rank = std::min(rank, k);
  }
}

}  // namespace

std::vector<uint32_t> detail::skin_joints(const Asset& asset) {
  std::vector<uint32_t> joints;
  for (const Skin& s : asset.skins) joints.insert(joints.end(), s.joints.begin(), s.joints.end());
  std::sort(joints.begin(), joints.end());
  joints.erase(std::unique(joints.begin(), joints.end()), joints.end());
  return joints;
}

int detail::joint_depth(const Asset& asset, uint32_t node) {
  int d = 0;
  for (int32_t p = asset.nodes[node].parent; p >= 0; p = asset.nodes[size_t(p)].parent) ++d;
  return d;
}

std::vector<std::string> detail::joint_words(const std::string& name) { return words(name); }

namespace {

// The feet by name: per side the best-ranked foot word, the shallowest joint among equals.
bool feet_by_name(const Asset& asset, const std::vector<uint32_t>& joints, FootJoints& out) {
  int best_rank[2] = {3, 3}, best_depth[2] = {0, 0};
  int found[2] = {-1, -1};
  for (uint32_t j : joints) {
    int side = 0, rank = 0;
    classify(asset.nodes[j].name, side, rank);
    if (side < 0 || rank == 3) continue;
    const int d = detail::joint_depth(asset, j);
    if (rank < best_rank[side] || (rank == best_rank[side] && d < best_depth[side])) {
      best_rank[side] = rank;
      best_depth[side] = d;
      found[side] = int(j);
    }
  }
  if (found[0] < 0 || found[1] < 0) return false;
  out = {found[0], found[1], "by name"};
  return true;
}

// The lowest leaf joint of the rest pose on each side of x = 0.
bool feet_by_height(const Asset& asset, const std::vector<uint32_t>& joints, FootJoints& out) {
  SceneEvaluator rest(asset);
  rest.pose(-1, 0.0f);
  const std::span<const glm::mat4> world = rest.world();
  float lowest[2] = {INFINITY, INFINITY};
  int found[2] = {-1, -1};
  for (uint32_t j : joints) {
    const bool leaf = std::none_of(asset.nodes[j].children.begin(), asset.nodes[j].children.end(),
                                   [&](uint32_t c) { return std::binary_search(joints.begin(), joints.end(), c); });
    const glm::vec3 p(world[j][3]);
    const int side = p.x > 0.0f ? 0 : p.x < 0.0f ? 1 : -1;
    if (!leaf || side < 0 || !(p.y < lowest[side])) continue;
    lowest[side] = p.y;
    found[side] = int(j);
  }
  if (found[0] < 0 || found[1] < 0) return false;
  out = {found[0], found[1], "lowest leaf joints"};
  return true;
}

}  // namespace

namespace detail {

Result<int> joint_named(const Asset& asset, const std::vector<uint32_t>& joints, const std::string& name,
                        const char* option) {
  for (uint32_t j : joints)
    if (asset.nodes[j].name == name) return int(j);
  std::string list;
  for (uint32_t j : joints) list += (list.empty() ? "" : ", ") + printable(asset.nodes[j].name);
  return make_error(ErrorCode::Argument, asset.source,
                    std::string(option) + ": no joint named \"" + printable(name) + "\" (joints: " + list + ")");
}

}  // namespace detail

namespace {

// A foot's per-sample measures over m samples: height, vertical and total speed (central
// differences, in units per two samples; a clip's ends, one-sided, doubled), and their extremes.
struct FootTrack {
  std::vector<float> climb, speed;
  float lo = INFINITY, hi = -INFINITY, max_climb = 0.0f, max_speed = 0.0f;
};

FootTrack measure_foot(const std::vector<glm::vec3>& p, size_t m, bool repeats) {
  FootTrack t;
  for (size_t i = 0; i < m; ++i) {
    t.lo = std::min(t.lo, p[i].y);
    t.hi = std::max(t.hi, p[i].y);
    const size_t a = i > 0 ? i - 1 : (repeats ? m - 1 : 0), b = i + 1 < m ? i + 1 : (repeats ? 0 : m - 1);
    const float scale = (b + m - a) % m == 2 || repeats ? 1.0f : 2.0f;
    t.climb.push_back(std::fabs(p[b].y - p[a].y) * scale);
    t.speed.push_back(glm::length(p[b] - p[a]) * scale);
    t.max_climb = std::max(t.max_climb, t.climb.back());
    t.max_speed = std::max(t.max_speed, t.speed.back());
  }
  return t;
}

// Calls f(first, length) for each run of set samples of `on` (wrapping around when `repeats`; a
// run over every sample is not reported).
template <class F>
void for_each_run(const std::vector<uint8_t>& on, bool repeats, F&& f) {
  const size_t m = on.size();
  size_t start = 0;  // a clear sample to start from, so that no run is cut at the seam
  if (repeats) {
    while (start < m && on[start]) ++start;
    if (start == m) return;
  }
  for (size_t k = 0; k < m;) {
    const size_t i = (start + k) % m;
    if (!on[i] || (!repeats && i < start)) {
      ++k;
      continue;
    }
    size_t length = 0;
    while (k + length < m && on[(start + k + length) % m]) ++length;
    f(i, length);
    k += length;
  }
}

// Whether each of m samples of a foot is in contact (feet.h): low and moving little up or down,
// gaps of one sample closed; then a contact of one sample, one whose mean speed is over
// kContactSpeedFraction of the foot's largest, or one that travels against the longest contact's
// slide (a swinging foot passing low) is dropped. Empty when the foot never lifts.
std::vector<uint8_t> contact_samples(const std::vector<glm::vec3>& p, size_t m, bool repeats, float size) {
  const FootTrack t = measure_foot(p, m, repeats);
  if (!(t.hi - t.lo >= kMinLiftFraction * size)) return {};
  std::vector<uint8_t> on(m);
  for (size_t i = 0; i < m; ++i) {
    on[i] =
        p[i].y <= t.lo + kContactHeightFraction * (t.hi - t.lo) && t.climb[i] <= kContactClimbFraction * t.max_climb;
  }
  std::vector<uint8_t> closed = on;
  for (size_t i = 0; i < m; ++i) {
    const size_t before = i > 0 ? i - 1 : (repeats ? m - 1 : m), after = i + 1 < m ? i + 1 : (repeats ? 0 : m);
    if (!on[i] && before < m && after < m && on[before] && on[after]) closed[i] = 1;
  }
  // The runs the speed rule keeps, with their horizontal travel.
  struct Run {
    size_t first, length;
    glm::vec2 moved;
  };
  std::vector<Run> runs;
  for_each_run(closed, repeats, [&](size_t first, size_t length) {
    float speed = 0.0f;
    for (size_t k = 0; k < length; ++k) speed += t.speed[(first + k) % m];
    if (length < 2 || speed > kContactSpeedFraction * t.max_speed * float(length)) return;
    const glm::vec3 d = p[(first + length - 1) % m] - p[first];
    runs.push_back({first, length, glm::vec2(d.x, d.z)});
  });
  // Where the longest contact slides (an in-place cycle's planted foot moves back with the ground),
  // a run that moves against it is a swing.
  const auto longest =
      std::max_element(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.length < b.length; });
  const glm::vec2 slide = longest == runs.end() ? glm::vec2(0.0f) : longest->moved;
  const bool slides = glm::length(slide) > kContactSlideFraction * (t.hi - t.lo);
  std::vector<uint8_t> kept(m, 0);
  for (const Run& r : runs) {
    if (slides && glm::dot(r.moved, slide) < 0.0f) continue;
    for (size_t k = 0; k < r.length; ++k) kept[(r.first + k) % m] = 1;
  }
  if (std::all_of(closed.begin(), closed.end(), [](uint8_t c) { return c != 0; })) return closed;  // never lifts off
  return kept;
}

// One foot's contacts over n samples of positions (a cycle of n - 1 when `repeats`) as events.
void foot_contacts(const std::vector<glm::vec3>& p, float duration, bool repeats, float size, const std::string& foot,
                   std::vector<ClipEvent>& out) {
  const size_t m = repeats ? p.size() - 1 : p.size();
  const float dt = duration / float(p.size() - 1);
  const std::vector<uint8_t> on = contact_samples(p, m, repeats, size);
  if (on.empty()) return;
  for (size_t i = repeats ? 0 : 1; i < m; ++i) {
    const bool was = on[i > 0 ? i - 1 : m - 1] != 0;
    if (on[i] && !was) out.push_back({foot + "_down", float(i) * dt});
    if (!on[i] && was) out.push_back({foot + "_up", float(i) * dt});
  }
}

}  // namespace

Result<FootJoints> find_feet(const Asset& asset, const FootOptions& options) {
  const std::vector<uint32_t> joints = detail::skin_joints(asset);
  if (joints.empty()) return make_error(ErrorCode::Unsupported, asset.source, "--feet: the asset has no skin joints");
  FootJoints feet;
  if (!options.left.empty() || !options.right.empty()) {
    Result<int> left = detail::joint_named(asset, joints, options.left, "--feet");
    if (!left) return left.error();
    Result<int> right = detail::joint_named(asset, joints, options.right, "--feet");
    if (!right) return right.error();
    return FootJoints{*left, *right, "named"};
  }
  if (feet_by_name(asset, joints, feet) || feet_by_height(asset, joints, feet)) return feet;
  return make_error(ErrorCode::Unsupported, asset.source,
                    "--feet: found no left and right foot (name them: --feet LEFT,RIGHT)");
}

std::vector<ClipEvent> foot_contact_events(const Asset& asset, int clip, const FootJoints& feet, float size,
                                           bool repeats) {
  const float duration = asset.animations[size_t(clip)].end_s;
  if (!(duration > 0.0f)) return {};
  const size_t n = std::max<size_t>(3, size_t(std::lround(double(duration) * kFootSampleRate)) + 1);
  SceneEvaluator evaluator(asset);
  std::vector<glm::vec3> left(n), right(n);
  for (size_t i = 0; i < n; ++i) {
    evaluator.pose(clip, i + 1 == n ? duration : duration * float(i) / float(n - 1));
    left[i] = glm::vec3(evaluator.world()[size_t(feet.left)][3]);
    right[i] = glm::vec3(evaluator.world()[size_t(feet.right)][3]);
  }
  std::vector<ClipEvent> out;
  foot_contacts(left, duration, repeats, size, "foot_l", out);
  foot_contacts(right, duration, repeats, size, "foot_r", out);
  sort_events(out);
  return out;
}

namespace detail {

Result<void> plan_events(const Asset& asset, const BakeOptions& options, std::vector<ClipPlan>& plans) {
  for (ClipPlan& p : plans) {
    if (options.source_events) p.events = asset.animations[size_t(p.animation)].events;
  }
  for (const auto& [selector, event] : options.events) {
    Result<int> clip = find_clip(asset, selector);
    if (!clip) return clip.error();
    for (ClipPlan& p : plans) {
      if (p.animation != *clip) continue;
      if (event.name.empty() || event.name.size() > kMaxEventNameBytes) {
        return make_error(ErrorCode::Argument, asset.source,
                          "event of clip \"" + printable(selector) + "\": a name of 1 to 256 bytes");
      }
      if (!(event.time_s >= 0.0f && event.time_s <= p.duration_s)) {
        char range[64];
        std::snprintf(range, sizeof range, "%g is outside the clip's [0, %g] s", double(event.time_s),
                      double(p.duration_s));
        return make_error(ErrorCode::Argument, asset.source,
                          "event \"" + printable(event.name) + "\" of clip \"" + printable(selector) + "\": " + range);
      }
      p.events.push_back(event);
    }
  }
  for (ClipPlan& p : plans) sort_events(p.events);
  return {};
}

Result<void> plan_foot_events(const Asset& asset, const BakeOptions& options, float size, std::vector<ClipPlan>& plans,
                              std::vector<std::string>& notes) {
  if (!options.feet.enabled) return {};
  Result<FootJoints> feet = find_feet(asset, options.feet);
  if (!feet) return feet.error();
  notes.push_back("feet (" + feet->how + "): left \"" + printable(asset.nodes[size_t(feet->left)].name) + "\" (node " +
                  std::to_string(feet->left) + "), right \"" + printable(asset.nodes[size_t(feet->right)].name) +
                  "\" (node " + std::to_string(feet->right) + "); --feet LEFT,RIGHT names others");
  for (ClipPlan& p : plans) {
    const bool repeats = p.defaults.loop_mode != LoopMode::Once;
    std::vector<ClipEvent> contacts = foot_contact_events(asset, p.animation, *feet, size, repeats);
    p.events.insert(p.events.end(), contacts.begin(), contacts.end());
    sort_events(p.events);
  }
  return {};
}

}  // namespace detail
}  // namespace vatkit

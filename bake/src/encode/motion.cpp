// What a bake decides from the motion itself: the asset's size and each clip's seam (how far its
// last pose is from its first), and from the seam each clip's default loop mode.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "encode/bake_internal.h"
#include "util/printable.h"
#include "vatkit/scene.h"

namespace vatkit::detail {
namespace {

std::string mm_text(double file_units, float metres_per_unit) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3g mm", file_units * 1000.0 * metres_per_unit);
  return text;
}

}  // namespace

MotionFacts measure_motion(const Asset& asset, const std::vector<ClipPlan>& plans, unsigned threads) {
  MotionFacts facts;
  SceneEvaluator scene(asset);
  std::vector<glm::vec3> first(asset.instance_vertex_count), last(asset.instance_vertex_count);
  scene.pose(-1, 0.0f);
  scene.skin(first, {}, {}, threads);
  if (!first.empty()) {
    glm::vec3 lo = first[0], hi = first[0];
    for (const glm::vec3& p : first) {
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
    const glm::vec3 extent = hi - lo;
    facts.size = std::max({extent.x, extent.y, extent.z});
  }
  for (const ClipPlan& plan : plans) {
    scene.pose(plan.animation, 0.0f);
    scene.skin(first, {}, {}, threads);
    scene.pose(plan.animation, plan.duration_s);
    scene.skin(last, {}, {}, threads);
    // A cycle that travels (a walk with root motion) ends displaced as a whole: the seam is what
    // differs once the mean displacement is taken out.
    glm::dvec3 mean(0.0);
    for (size_t v = 0; v < first.size(); ++v) mean += glm::dvec3(last[v] - first[v]);
    const glm::vec3 shift = first.empty() ? glm::vec3(0.0f) : glm::vec3(mean / double(first.size()));
    float seam2 = 0.0f;
    for (size_t v = 0; v < first.size(); ++v) {
      const glm::vec3 d = last[v] - first[v] - shift;
      seam2 = std::max(seam2, glm::dot(d, d));
    }
    facts.seams.push_back(std::sqrt(seam2));
  }
  return facts;
}

bool seam_closes(float seam, float size) { return seam <= kLoopSeamFraction * size; }

void decide_loops(std::vector<ClipPlan>& plans, const MotionFacts& facts, float metres_per_unit,
                  std::vector<std::string>& notes) {
  for (size_t c = 0; c < plans.size(); ++c) {
    ClipPlan& plan = plans[c];
    if (plan.defaults_given || seam_closes(facts.seams[c], facts.size)) continue;
    plan.defaults = ClipDefaults{LoopMode::Once, 1, EndMode::Clamp, 1.0f};
    std::string label =
        plan.name.empty() ? std::string("#").append(std::to_string(plan.animation)) : printable(plan.name);
    std::string note = "clip \"";
    note.append(label).append("\" plays once and holds its last pose: its last pose is ");
    note.append(mm_text(facts.seams[c], metres_per_unit)).append(" from its first (a loop closes within ");
    note.append(mm_text(kLoopSeamFraction * facts.size, metres_per_unit))
        .append(", 7% of the asset's size); --clip-defaults '");
    note.append(label).append("=repeat' loops it");
    notes.push_back(std::move(note));
  }
}

void note_size(float size, float metres_per_unit, std::vector<std::string>& notes) {
  const double metres = double(size) * metres_per_unit;
  if (size <= 0.0f || (metres <= kMaxPlausibleMetres && metres >= kMinPlausibleMetres)) return;
  // The unit that would make the size 1 to 2 m or so: the closest of the ones --units takes.
  struct Unit {
    const char* name;
    double metres;
  };
  const Unit units[] = {{"km", 1000.0}, {"m", 1.0}, {"dm", 0.1}, {"cm", 0.01}, {"mm", 0.001}};
  const Unit* best = &units[1];
  for (const Unit& u : units)
    if (std::fabs(std::log10(size * u.metres / 1.7)) < std::fabs(std::log10(size * best->metres / 1.7))) best = &u;
  char text[320];
  const double fitted = size * best->metres;
  if (fitted > kMaxPlausibleMetres || fitted < kMinPlausibleMetres) {
    std::snprintf(text, sizeof text,
                  "the asset is %.4g units across at rest: %.4g m at %g m per unit, implausible for a character "
                  "in any unit --units takes (check the file's scale: a stray vertex?)",
                  double(size), metres, double(metres_per_unit));
    notes.emplace_back(text);
    return;
  }
  std::snprintf(text, sizeof text,
                "the asset is %.4g units across at rest: %.4g m at %g m per unit, implausible for a character "
                "(errors in mm assume that unit); --units %s if it is modelled in %s (%.3g m across)",
                double(size), metres, double(metres_per_unit), best->name, best->name, size * best->metres);
  notes.emplace_back(text);
}

}  // namespace vatkit::detail

// What a bake decides from the motion itself: the asset's size and each clip's seam (how far its
// last pose is from its first), and from the seam each clip's default loop mode.
#include <algorithm>
#include <cstdio>

#include "encode/bake_internal.h"
#include "util/printable.h"
#include "vatkit/scene.h"

namespace vatkit::detail {
namespace {

std::string mm_text(double file_units) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3g mm", file_units * 1000.0);
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

void decide_loops(std::vector<ClipPlan>& plans, const MotionFacts& facts, std::vector<std::string>& notes) {
  for (size_t c = 0; c < plans.size(); ++c) {
    ClipPlan& plan = plans[c];
    if (plan.defaults_given || seam_closes(facts.seams[c], facts.size)) continue;
    plan.defaults = ClipDefaults{LoopMode::Once, 1, EndMode::Clamp, 1.0f};
    std::string label =
        plan.name.empty() ? std::string("#").append(std::to_string(plan.animation)) : printable(plan.name);
    std::string note = "clip \"";
    note.append(label).append("\" plays once and holds its last pose: its last pose is ");
    note.append(mm_text(facts.seams[c])).append(" from its first (a loop closes within ");
    note.append(mm_text(kLoopSeamFraction * facts.size)).append(", 7% of the asset's size); --clip-defaults '");
    note.append(label).append("=repeat' loops it");
    notes.push_back(std::move(note));
  }
}

}  // namespace vatkit::detail

// Loads the built-in sample character through an installed vatkit, poses its first clip and
// prints how far the vertices moved from the rest pose. Exits non-zero if anything is off.
#include <cstdio>
#include <vector>

#include <vatkit/sample_character.h>
#include <vatkit/scene.h>

int main() {
  vatkit::Result<vatkit::Asset> asset = vatkit::load_sample_character();
  if (!asset) {
    std::fprintf(stderr, "consumer: %s\n", asset.error().message.c_str());
    return 1;
  }
  vatkit::SceneEvaluator evaluator(*asset);
  std::vector<glm::vec3> rest(asset->instance_vertex_count), posed(rest.size());
  evaluator.pose(-1, 0.0f);
  evaluator.skin(rest);
  evaluator.pose(0, asset->animations[0].end_s * 0.5f);
  evaluator.skin(posed);
  float moved = 0.0f;
  for (size_t i = 0; i < rest.size(); ++i) moved = glm::max(moved, glm::distance(rest[i], posed[i]));
  std::printf("consumer: %zu vertices, %zu clips, largest displacement %.3f m\n", rest.size(),
              asset->animations.size(), moved);
  return (rest.empty() || !(moved > 0.0f)) ? 1 : 0;
}

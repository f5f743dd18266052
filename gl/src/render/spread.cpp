// Spreading a crowd: a grid or random layout, clips dealt evenly, desynchronised start times and
// speeds, all from one seed.
#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "vatkit/gl/crowd.h"

namespace vatkit::gl {

namespace {

// splitmix64: the same sequence on every platform (std distributions are not).
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
};

}  // namespace

Result<std::vector<SpreadInstance>> spread_instances(const Vat& meta, uint32_t n, const SpreadOptions& options) {
  if (meta.clips.empty()) return make_error(ErrorCode::Argument, meta.source, "the VAT has no clips to play");
  Random rng{options.seed * 0x2545f4914f6cdd1dull + 0x1234567ull};

  const Bounds& b = meta.bounds;
  const glm::vec3 extent = b.max - b.min;
  const float footprint = std::max(std::max(extent.x, extent.z), 1e-3f);
  const float spacing = options.spacing > 0.0f ? options.spacing : footprint * 1.3f;
  const auto columns = uint32_t(std::ceil(std::sqrt(double(n))));
  const uint32_t rows = (n + columns - 1) / columns;
  const glm::vec3 centre((b.min.x + b.max.x) * 0.5f, 0.0f, (b.min.z + b.max.z) * 0.5f);

  // Clips dealt evenly, then shuffled (Fisher-Yates), so every clip shows and none forms stripes.
  std::vector<uint32_t> clip_of(n);
  for (uint32_t i = 0; i < n; ++i) clip_of[i] = i % uint32_t(meta.clips.size());
  for (uint32_t i = n; i > 1; --i) std::swap(clip_of[i - 1], clip_of[size_t(rng.next() % i)]);

  std::vector<SpreadInstance> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    glm::vec3 position;
    float yaw = 0.0f;
    if (options.layout == CrowdLayout::Grid) {
      const uint32_t col = i % columns, row = i / columns;
      position = glm::vec3((float(col) - float(columns - 1) * 0.5f) * spacing, 0.0f,
                           (float(row) - float(rows - 1) * 0.5f) * spacing);
      yaw = rng.uniform(-0.4f, 0.4f);
    } else {
      const float side = spacing * std::sqrt(float(n));
      position = glm::vec3(rng.uniform(-0.5f, 0.5f) * side, 0.0f, rng.uniform(-0.5f, 0.5f) * side);
      yaw = rng.uniform(0.0f, 6.2831853f);
    }
    // Turn about the footprint's centre, so that a character modelled off its origin stays on its cell.
    glm::mat4 world = glm::translate(glm::mat4(1.0f), position);
    world = glm::rotate(world, yaw, glm::vec3(0.0f, 1.0f, 0.0f));
    out[i].world = glm::translate(world, -centre);

    const uint32_t c = clip_of[i];
    const VatClip& clip = meta.clips[c];
    Instance& in = out[i].instance;
    in.clip = clip_band(meta, c);
    const float duration = clip.rows > 1 && clip.fps > 0.0f ? float(clip.rows - 1) / clip.fps : 1.0f;
    in.start_time = options.now - rng.uniform() * duration;
    const float base_speed = clip.defaults.speed;
    in.policy.speed = base_speed * rng.uniform(1.0f - options.speed_jitter, 1.0f + options.speed_jitter);
  }
  return out;
}

Result<void> spread_crowd(Crowd& crowd, const SpreadOptions& options) {
  const VatGpu& vat = crowd.vat();
  Result<std::vector<SpreadInstance>> spread = spread_instances(vat.metadata(), crowd.size(), options);
  if (!spread) return spread.error();
  for (uint32_t i = 0; i < crowd.size(); ++i) {
    const SpreadInstance& s = (*spread)[i];
    crowd.set_world(i, s.world);
    if (Result<void> ok = set_instance(crowd.table(), i, s.instance, options.now); !ok) {
      return make_error(ok.error().code, vat.source(), "instance " + std::to_string(i) + ": " + ok.error().message);
    }
  }
  crowd.recompute_bounds();
  return {};
}

glm::vec4 palette_tint(uint32_t k) {
  // Light linear tints (each channel at least 0.45), so that the material stays readable.
  static constexpr float kPalette[8][3] = {{1.00f, 1.00f, 1.00f}, {1.00f, 0.55f, 0.50f}, {0.55f, 0.80f, 1.00f},
                                           {0.60f, 1.00f, 0.55f}, {1.00f, 0.90f, 0.45f}, {0.85f, 0.60f, 1.00f},
                                           {0.50f, 1.00f, 0.95f}, {1.00f, 0.70f, 0.90f}};
  const float* c = kPalette[k % 8u];
  return glm::vec4(c[0], c[1], c[2], 1.0f);
}

}  // namespace vatkit::gl

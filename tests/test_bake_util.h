// Helpers shared by the bake and decode tests: loading the shared assets once, baking with
// failure messages, and the reference skinner's answers to compare with.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "test_support.h"
#include "vatkit/bake.h"
#include "vatkit/decode.h"
#include "vatkit/import.h"
#include "vatkit/scene.h"

namespace vatkit::test {

// The asset at ../shared/assets/<relative>, imported once per test binary.
inline const Asset& shared_asset(const std::string& relative) {
  static std::map<std::string, std::unique_ptr<Asset>> cache;
  auto it = cache.find(relative);
  if (it == cache.end()) {
    ImportOptions o;
    o.load_images = false;
    auto r = import_gltf(asset_path(relative), o);
    if (!r) {
      ADD_FAILURE() << r.error().message;
      static Asset empty;
      return empty;
    }
    it = cache.emplace(relative, std::make_unique<Asset>(std::move(r.value()))).first;
  }
  return *it->second;
}

inline BakeOptions options_for(EncodingChoice e, Precision p = Precision::F32, float fps = 30.0f) {
  BakeOptions o;
  o.encoding = e;
  o.precision = p;
  o.fps = fps;
  o.measure = false;
  return o;
}

// Bakes or fails the test with the error.
inline Vat bake_ok(const Asset& a, const BakeOptions& o, BakeReport* report = nullptr) {
  auto r = bake(a, o, report);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : Vat{};
}

inline std::vector<ClipError> measure_ok(const Asset& a, const Vat& v, uint32_t between = 3) {
  VerifyOptions o;
  o.between_samples = between;
  auto r = measure_error(a, v, o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : std::vector<ClipError>{};
}

// The reference skinner's object-space positions (and normals) at a time.
struct Reference {
  SceneEvaluator ev;
  std::vector<glm::vec3> positions, normals;
  explicit Reference(const Asset& a) : ev(a), positions(a.instance_vertex_count), normals(a.instance_vertex_count) {}
  void at(int clip, float t) {
    ev.pose(clip, t);
    ev.skin(positions, normals);
  }
};

inline float diagonal(const Bounds& b) { return glm::length(b.max - b.min); }

inline std::vector<glm::vec3> decode_all(const Vat& v, const PoseBlend& p, std::vector<glm::vec3>* normals = nullptr) {
  std::vector<glm::vec3> pos(v.geometry.vertex_count());
  if (normals) normals->resize(pos.size());
  decode_vertices(v, p, 0, pos, normals ? std::span<glm::vec3>(*normals) : std::span<glm::vec3>());
  return pos;
}

inline float max_distance(const std::vector<glm::vec3>& a, const std::vector<glm::vec3>& b) {
  float m = 0.0f;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, glm::length(a[i] - b[i]));
  return m;
}

// The time of row k of a clip band, as the baker samples it.
inline float row_time(const VatClip& c, uint32_t k) {
  return c.rows > 1 ? float(double(k) * double(c.duration_s) / double(c.rows - 1)) : 0.0f;
}

}  // namespace vatkit::test

// Shared by the crowd and parity tests (tests/test_gl_crowd*.cpp, test_gl_parity*.cpp): assets
// and their bakes (cached: a bake is reused by every test that asks for the same one), the
// reference skinner's vertices in a VAT's merged order, and image comparisons.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "synthetic.h"
#include "test_support.h"
#include "vatkit/bake.h"
#include "vatkit/gl/image.h"
#include "vatkit/import.h"
#include "vatkit/sample_character.h"
#include "vatkit/scene.h"
#include "vatkit/vat.h"

namespace vatkit::test {

// "sample" is the built-in character, "synthetic:eight-influences" synthetic.h's
// eight_influence_asset(); anything else a path under ../shared/assets.
inline const Asset* test_asset(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Asset>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second.get();
  Result<Asset> loaded = name == "sample"                       ? load_sample_character()
                         : name == "synthetic:eight-influences" ? Result<Asset>(eight_influence_asset())
                                                                : import_gltf(asset_path(name));
  if (!loaded) {
    ADD_FAILURE() << name << ": " << loaded.error().message;
    return nullptr;
  }
  return cache.emplace(name, std::make_unique<Asset>(std::move(*loaded))).first->second.get();
}

struct BakeKey {
  std::string asset;
  Encoding encoding = Encoding::Delta;
  Precision precision = Precision::F32;
  uint32_t max_texture_size = 16384;
  bool normals = true;
  float fps = 30.0f;
  uint32_t lods = 0;  // levels of detail (BakeOptions::lods); most tests draw the full mesh only

  bool operator<(const BakeKey& o) const {
    return std::tie(asset, encoding, precision, max_texture_size, normals, fps, lods) <
           std::tie(o.asset, o.encoding, o.precision, o.max_texture_size, o.normals, o.fps, o.lods);
  }
};

inline const char* short_name(Encoding e) { return e == Encoding::Rig ? "rig" : "delta"; }
inline const char* short_name(Precision p) { return p == Precision::F32 ? "f32" : p == Precision::F16 ? "f16" : "q16"; }

inline std::string describe(const BakeKey& k) {
  return k.asset + " " + short_name(k.encoding) + " " + short_name(k.precision) +
         (k.max_texture_size != 16384 ? " max_texture " + std::to_string(k.max_texture_size) : "") +
         (k.normals ? "" : " no normals") + (k.lods ? " " + std::to_string(k.lods) + " lods" : "");
}

inline const Vat* test_bake(const BakeKey& key) {
  static std::map<BakeKey, std::unique_ptr<Vat>> cache;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.get();
  const Asset* asset = test_asset(key.asset);
  if (asset == nullptr) return nullptr;
  BakeOptions options;
  options.encoding = key.encoding == Encoding::Rig ? EncodingChoice::Rig : EncodingChoice::Delta;
  options.precision = key.precision;
  options.max_texture_size = key.max_texture_size;
  options.normals = key.normals;
  options.fps = key.fps;
  options.measure = false;
  options.lods = key.lods;
  // The crowds of these tests play every clip on a loop (their controls compare two times of a
  // moving crowd); the loop default from the motion is BakeDecisions' subject.
  options.loops_from_motion = false;
  Result<Vat> vat = bake(*asset, options);
  if (!vat) {
    ADD_FAILURE() << describe(key) << ": " << vat.error().message;
    return nullptr;
  }
  return cache.emplace(key, std::make_unique<Vat>(std::move(*vat))).first->second.get();
}

// The reference skinner's world-space vertices (clip `animation` at `time_s`, or the rest pose for
// -1), rearranged into the VAT's merged vertex order through Vat::geometry.sources.
inline void reference_in_vat_order(const Asset& asset, const Vat& vat, int animation, float time_s,
                                   std::vector<glm::vec3>& positions, std::vector<glm::vec3>& normals) {
  SceneEvaluator evaluator(asset);
  evaluator.pose(animation, time_s);
  std::vector<glm::vec3> p(asset.instance_vertex_count), n(asset.instance_vertex_count);
  evaluator.skin(p, n);
  positions.assign(vat.geometry.vertex_count(), glm::vec3(0.0f));
  normals.assign(vat.geometry.vertex_count(), glm::vec3(0.0f, 1.0f, 0.0f));
  size_t covered = 0;
  for (const SourceRange& s : vat.geometry.sources) {
    for (const MeshInstance& inst : asset.instances) {
      if (inst.node != s.node || inst.mesh != s.mesh || inst.primitive != s.primitive) continue;
      for (uint32_t k = 0; k < s.vertex_count; ++k) {
        positions[s.first_vertex + k] = p[inst.first_vertex + k];
        normals[s.first_vertex + k] = n[inst.first_vertex + k];
      }
      covered += s.vertex_count;
      break;
    }
  }
  EXPECT_EQ(covered, vat.geometry.vertex_count()) << "the VAT's source ranges do not cover its vertices";
}

// Mean absolute difference per channel (RGB), in [0, 1], of two images of the same size.
struct ImageDiff {
  double mad[3] = {0.0, 0.0, 0.0};
  double max_mad = 0.0;    // the largest of the three
  double differing = 0.0;  // fraction of pixels with a channel differing by more than 8/255
};

inline ImageDiff image_diff(const gl::Image& a, const gl::Image& b) {
  ImageDiff d;
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  if (a.width != b.width || a.height != b.height || a.pixels.empty()) return d;
  const size_t n = size_t(a.width) * size_t(a.height);
  uint64_t sum[3] = {0, 0, 0};
  size_t differing = 0;
  for (size_t i = 0; i < n; ++i) {
    bool differs = false;
    for (int c = 0; c < 3; ++c) {
      const int delta = std::abs(int(a.pixels[i * 4 + size_t(c)]) - int(b.pixels[i * 4 + size_t(c)]));
      sum[c] += uint64_t(delta);
      differs = differs || delta > 8;
    }
    differing += differs ? 1 : 0;
  }
  for (int c = 0; c < 3; ++c) {
    d.mad[c] = double(sum[c]) / double(n) / 255.0;
    d.max_mad = std::max(d.max_mad, d.mad[c]);
  }
  d.differing = double(differing) / double(n);
  return d;
}

}  // namespace vatkit::test

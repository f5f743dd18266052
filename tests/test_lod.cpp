// Levels of detail (vatkit/lod.h) on real bakes: the sample character, Fox, CesiumMan and
// RobotExpressive. Every level's index buffer is checked (range, triangles, no repeated vertex,
// groups), counts strictly decrease, and every level is within its recorded error budget as
// measured here, independently of the library: points sampled on the full mesh's triangles
// (random, area-weighted, plus every vertex the level dropped) and on the level's triangles, at
// the rest pose and in poses decoded with decode_vertices, each point's exact distance to the
// other surface computed by brute force in double precision.
#include <gtest/gtest.h>
#include <meshoptimizer.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "encode/bake_internal.h"
#include "simd/simd.h"
#include "test_support.h"
#include "vatkit/bake.h"
#include "vatkit/decode.h"
#include "vatkit/import.h"
#include "vatkit/lod.h"
#include "vatkit/sample_character.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit {
namespace {

using glm::dvec3;

const Asset& lod_asset(const std::string& relative) {
  static std::map<std::string, std::unique_ptr<Asset>> cache;
  auto it = cache.find(relative);
  if (it == cache.end()) {
    ImportOptions o;
    o.load_images = false;
    Result<Asset> r = relative == "<sample>" ? load_sample_character() : import_gltf(test::asset_path(relative), o);
    EXPECT_TRUE(r.ok()) << r.error().message;
    it = cache.emplace(relative, std::make_unique<Asset>(r ? std::move(*r) : Asset{})).first;
  }
  return *it->second;
}

const char* const kAssets[] = {"<sample>", "khronos/Fox.glb", "khronos/CesiumMan.glb", "threejs/RobotExpressive.glb"};

BakeOptions lod_bake_options(EncodingChoice encoding = EncodingChoice::Delta) {
  BakeOptions o;
  o.encoding = encoding;
  o.precision = Precision::F32;
  o.fps = 15.0f;
  o.measure = false;
  return o;
}

// One bake per asset and encoding, shared by the tests.
const Vat& baked(const std::string& asset, EncodingChoice encoding = EncodingChoice::Delta) {
  static std::map<std::pair<std::string, int>, std::unique_ptr<Vat>> cache;
  const auto key = std::make_pair(asset, int(encoding));
  auto it = cache.find(key);
  if (it == cache.end()) {
    Result<Vat> r = bake(lod_asset(asset), lod_bake_options(encoding));
    EXPECT_TRUE(r.ok()) << r.error().message;
    it = cache.emplace(key, std::make_unique<Vat>(r ? std::move(*r) : Vat{})).first;
  }
  return *it->second;
}

// ---- independent geometry ------------------------------------------------------------------

// Closest point on triangle abc to p by the Voronoi regions of its vertices, edges and face
// (double precision; a degenerate triangle falls into an edge or vertex region).
dvec3 closest_on_triangle(const dvec3& p, const dvec3& a, const dvec3& b, const dvec3& c) {
  const dvec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const dvec3 bp = p - b;
  const double d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + ab * (d1 / (d1 - d3));
  const dvec3 cp = p - c;
  const double d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denom = va + vb + vc;
  if (!(std::fabs(denom) > 0)) {  // degenerate: the nearest of the three edges
    auto seg = [&](const dvec3& s, const dvec3& t) {
      const dvec3 st = t - s;
      const double l = glm::dot(st, st);
      const double u = l > 0 ? std::clamp(glm::dot(p - s, st) / l, 0.0, 1.0) : 0.0;
      return s + st * u;
    };
    dvec3 best = seg(a, b);
    for (const dvec3& q : {seg(b, c), seg(c, a)})
      if (glm::length(q - p) < glm::length(best - p)) best = q;
    return best;
  }
  return a + ab * (vb / denom) + ac * (vc / denom);
}

struct Mesh {
  std::vector<dvec3> box_min, box_max;  // per triangle, for pruning
  std::vector<std::array<dvec3, 3>> tris;
};

Mesh posed_mesh(const std::vector<uint32_t>& indices, std::span<const glm::vec3> P) {
  Mesh m;
  for (size_t t = 0; t < indices.size(); t += 3) {
    std::array<dvec3, 3> tri = {dvec3(P[indices[t]]), dvec3(P[indices[t + 1]]), dvec3(P[indices[t + 2]])};
    m.tris.push_back(tri);
    m.box_min.push_back(glm::min(tri[0], glm::min(tri[1], tri[2])));
    m.box_max.push_back(glm::max(tri[0], glm::max(tri[1], tri[2])));
  }
  return m;
}

// Exact distance from p to the union of the mesh's triangles (every triangle whose box could hold
// a nearer point is tried).
double distance_to(const Mesh& m, const dvec3& p) {
  double best2 = DBL_MAX;
  for (size_t t = 0; t < m.tris.size(); ++t) {
    const dvec3 d = glm::max(glm::max(m.box_min[t] - p, p - m.box_max[t]), dvec3(0.0));
    if (glm::dot(d, d) >= best2) continue;
    const dvec3 q = closest_on_triangle(p, m.tris[t][0], m.tris[t][1], m.tris[t][2]);
    best2 = std::min(best2, glm::dot(q - p, q - p));
  }
  return std::sqrt(best2);
}

// Area-weighted random points on a mesh's triangles (and every triangle's centroid when few).
std::vector<dvec3> sample_points(const Mesh& m, size_t count, std::mt19937& rng) {
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& t : m.tris) cumulative.push_back(total += glm::length(glm::cross(t[1] - t[0], t[2] - t[0])));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<dvec3> out;
  for (size_t i = 0; i < count; ++i) {
    const size_t t =
        std::min(size_t(std::lower_bound(cumulative.begin(), cumulative.end(), u(rng) * total) - cumulative.begin()),
                 m.tris.size() - 1);
    double r1 = u(rng), r2 = u(rng);
    if (r1 + r2 > 1) r1 = 1 - r1, r2 = 1 - r2;
    const auto& tri = m.tris[t];
    out.push_back(tri[0] + (tri[1] - tri[0]) * r1 + (tri[2] - tri[0]) * r2);
  }
  return out;
}

std::vector<uint32_t> drawn(const std::vector<uint32_t>& indices, const std::vector<DrawGroup>& groups) {
  std::vector<uint32_t> out;
  for (const DrawGroup& g : groups)
    out.insert(out.end(), indices.begin() + g.first_index, indices.begin() + g.first_index + g.index_count);
  return out;
}

// The largest sampled two-sided distance between the full mesh and `level` in positions P: the
// full mesh's random points and every vertex the level dropped, against the level; the level's
// random points and triangle centroids, against the full mesh.
double measured_error(const Vat& vat, const LodLevel& level, std::span<const glm::vec3> P, size_t samples,
                      uint32_t seed) {
  const std::vector<uint32_t> full_idx = drawn(vat.geometry.indices, vat.geometry.groups);
  const std::vector<uint32_t> lod_idx = drawn(level.indices, level.groups);
  const Mesh full = posed_mesh(full_idx, P), lod = posed_mesh(lod_idx, P);
  std::mt19937 rng(seed);
  double worst = 0;
  std::vector<dvec3> on_full = sample_points(full, samples, rng);
  const std::set<uint32_t> kept(lod_idx.begin(), lod_idx.end());
  for (uint32_t v : std::set<uint32_t>(full_idx.begin(), full_idx.end()))
    if (!kept.count(v)) on_full.push_back(dvec3(P[v]));
  for (const dvec3& p : on_full) worst = std::max(worst, distance_to(lod, p));
  std::vector<dvec3> on_lod = sample_points(lod, samples, rng);
  for (const auto& t : lod.tris) on_lod.push_back((t[0] + t[1] + t[2]) / 3.0);
  for (const dvec3& p : on_lod) worst = std::max(worst, distance_to(full, p));
  return worst;
}

// The frame rows build_lods measures (lod.h): n = min(rows, poses_per_clip, max(3, max_poses /
// clips)) rows, row round(i * (rows - 1) / (n - 1)).
uint32_t measured_count(const Vat& vat, const VatClip& clip) {
  const LodOptions o;
  return std::min({clip.rows, o.poses_per_clip, std::max(3u, o.max_poses / uint32_t(vat.clips.size()))});
}
std::vector<uint32_t> measured_rows(const Vat& vat, const VatClip& clip) {
  const uint32_t n = measured_count(vat, clip);
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < n; ++i) {
    rows.push_back(n == 1 ? 0 : uint32_t(std::lround(double(i) * (clip.rows - 1) / (n - 1))));
  }
  return rows;
}

// ---- tests ---------------------------------------------------------------------------------

TEST(Lod, LevelsAreValidIndexBuffers) {
  for (const char* asset : kAssets) {
    SCOPED_TRACE(asset);
    const Vat& vat = baked(asset);
    const VatGeometry& g = vat.geometry;
    ASSERT_GE(g.lods.size(), 2u) << "expected at least two levels of detail";
    ASSERT_LE(g.lods.size(), size_t(BakeOptions{}.lods));
    ASSERT_TRUE(validate_vat(vat).ok()) << validate_vat(vat).error().message;
    // Which group draws each vertex at level 0.
    std::vector<int> owner(g.vertex_count(), -1);
    for (size_t gi = 0; gi < g.groups.size(); ++gi)
      for (uint32_t k = 0; k < g.groups[gi].index_count; ++k) owner[g.indices[g.groups[gi].first_index + k]] = int(gi);
    size_t previous = drawn(g.indices, g.groups).size() / 3;
    float previous_error = 0.0f, previous_motion = 0.0f;
    const float radius = 0.5f * glm::length(vat.bounds.max - vat.bounds.min);
    std::printf("  %-28s level 0: %6zu triangles, %u vertices\n", asset, previous, g.vertex_count());
    for (size_t l = 0; l < g.lods.size(); ++l) {
      SCOPED_TRACE("level " + std::to_string(l + 1));
      const LodLevel& lod = g.lods[l];
      ASSERT_EQ(lod.indices.size() % 3, 0u);
      ASSERT_EQ(lod.groups.size(), g.groups.size());
      uint32_t next = 0;
      for (size_t gi = 0; gi < lod.groups.size(); ++gi) {
        const DrawGroup& grp = lod.groups[gi];
        EXPECT_EQ(grp.material, g.groups[gi].material);
        EXPECT_EQ(grp.first_index, next) << "groups tile the level's buffer";
        EXPECT_EQ(grp.index_count % 3, 0u);
        next += grp.index_count;
        for (uint32_t k = grp.first_index; k < grp.first_index + grp.index_count; ++k) {
          ASSERT_LT(lod.indices[k], g.vertex_count());
          // Only vertices the full mesh draws; a triangle's first in its group's own material.
          EXPECT_GE(owner[lod.indices[k]], 0) << "index " << k;
          if (k % 3 == 0) {
            EXPECT_EQ(owner[lod.indices[k]], int(gi)) << "index " << k;
          }
        }
      }
      EXPECT_EQ(next, lod.indices.size());
      for (size_t t = 0; t < lod.indices.size(); t += 3) {
        const uint32_t a = lod.indices[t], b = lod.indices[t + 1], c = lod.indices[t + 2];
        ASSERT_TRUE(a != b && b != c && c != a) << "degenerate triangle " << t / 3;
      }
      const size_t triangles = lod.indices.size() / 3;
      EXPECT_LT(triangles, previous) << "triangle counts strictly decrease";
      EXPECT_GT(triangles, 0u);
      EXPECT_TRUE(std::isfinite(lod.error) && std::isfinite(lod.error_in_motion));
      EXPECT_GE(lod.error, previous_error);
      EXPECT_GE(lod.error_in_motion, previous_motion);
      EXPECT_LE(lod.error, lod.error_in_motion);
      EXPECT_FLOAT_EQ(lod.screen_size, 2.0f * radius / lod.error_in_motion);
      // A level is not a mesh of a different shape: its budget is a small part of the size.
      EXPECT_LT(lod.error_in_motion, 0.3f * radius);
      std::printf(
          "  %-28s level %zu: %6zu triangles (%4.1f%%), error %.4g at rest, %.4g in motion (%.2f%% of "
          "the radius), screen size %.0f px\n",
          "", l + 1, triangles, 100.0 * double(triangles) / double(drawn(g.indices, g.groups).size() / 3),
          double(lod.error), double(lod.error_in_motion), 100.0 * double(lod.error_in_motion / radius),
          double(lod.screen_size));
      previous = triangles;
      previous_error = lod.error;
      previous_motion = lod.error_in_motion;
    }
  }
}

TEST(Lod, EveryLevelIsWithinItsBudgetAtRestAndInMotion) {
  for (const char* asset : kAssets) {
    SCOPED_TRACE(asset);
    const Vat& vat = baked(asset);
    const VatGeometry& g = vat.geometry;
    ASSERT_FALSE(g.lods.empty());
    const double radius = 0.5 * glm::length(glm::dvec3(vat.bounds.max - vat.bounds.min));
    const double slack = 1e-5 * radius;  // float rounding of the library's arithmetic
    // The poses: a few of the rows the library measured, in every clip (its first, last and two
    // between).
    std::vector<std::pair<uint32_t, uint32_t>> poses;  // (clip, row in the clip)
    for (uint32_t c = 0; c < vat.clips.size(); ++c) {
      const std::vector<uint32_t> rows = measured_rows(vat, vat.clips[c]);
      for (size_t i : {size_t(0), rows.size() / 3, 2 * rows.size() / 3, rows.size() - 1}) poses.push_back({c, rows[i]});
    }
    std::vector<glm::vec3> P(g.vertex_count());
    for (size_t l = 0; l < g.lods.size(); ++l) {
      SCOPED_TRACE("level " + std::to_string(l + 1));
      const LodLevel& lod = g.lods[l];
      const double at_rest = measured_error(vat, lod, g.positions, 1000, uint32_t(l + 1));
      EXPECT_LE(at_rest, lod.error + slack);
      double in_motion = at_rest;
      for (const auto& [c, k] : poses) {
        const uint32_t row = vat.clips[c].first_row + k;
        decode_vertices(vat, single(RowBlend{c, row, row, 0.0f}), 0, P);
        const double e = measured_error(vat, lod, P, 400, uint32_t(100 * l + row));
        EXPECT_LE(e, lod.error_in_motion + slack) << "clip " << c << " row " << k;
        in_motion = std::max(in_motion, e);
      }
      // The bound is an upper bound, and a useful one: within a few times what sampling finds, or
      // within 1.5% of the radius where the distance is smaller than that (there the pieces'
      // size, not the distance, sets the bound). Measured: 1.0 to 3.5 times, and CesiumMan's
      // first level 13.3 mm (1.4% of the radius) for a sampled 1.9 mm.
      EXPECT_LE(lod.error_in_motion, 5.0 * in_motion + 0.015 * radius + slack) << "the bound is loose";
      std::printf("  %-28s level %zu: sampled %.4g at rest (bound %.4g), %.4g in %zu poses (bound %.4g)\n", asset,
                  l + 1, at_rest, double(lod.error), in_motion, poses.size(), double(lod.error_in_motion));
    }
  }
}

// Deep levels for crowds of a million: where the topology-preserving simplifier stalls
// (RobotExpressive, faceted, past level 5), meshopt_simplifySloppy takes over. Its levels still
// index only original vertices the full mesh draws, and their recorded errors still bound the
// sampled distance.
TEST(Lod, SloppyLevelsReachFarTargetsWithinTheirBounds) {
  BakeOptions o = lod_bake_options();
  o.lods = 0;
  Result<Vat> r = bake(lod_asset("threejs/RobotExpressive.glb"), o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  Vat& vat = *r;
  Result<LodReport> report = build_lods(vat, {.levels = 8});
  ASSERT_TRUE(report.ok()) << report.error().message;
  const VatGeometry& g = vat.geometry;
  ASSERT_EQ(report->levels.size(), g.lods.size());
  ASSERT_TRUE(validate_vat(vat).ok()) << validate_vat(vat).error().message;
  std::vector<bool> drawn_by_full(g.vertex_count(), false);
  for (uint32_t i : g.indices) drawn_by_full[i] = true;
  const double radius = 0.5 * glm::length(glm::dvec3(vat.bounds.max - vat.bounds.min));
  size_t sloppy = 0;
  for (size_t l = 0; l < g.lods.size(); ++l) {
    if (!report->levels[l].sloppy) continue;
    ++sloppy;
    SCOPED_TRACE("level " + std::to_string(l + 1));
    const LodLevel& lod = g.lods[l];
    EXPECT_LT(lod.indices.size() / 3, g.lods[l - 1].indices.size() / 3 * 9 / 10);
    for (uint32_t i : lod.indices) {
      ASSERT_LT(i, g.vertex_count());
      EXPECT_TRUE(drawn_by_full[i]) << "vertex " << i << " is not one of the full mesh's";
    }
    const double at_rest = measured_error(vat, lod, g.positions, 1000, uint32_t(l + 1));
    EXPECT_LE(at_rest, lod.error + 1e-5 * radius);
    EXPECT_GE(lod.error_in_motion, g.lods[l - 1].error_in_motion);
    std::printf(
        "  RobotExpressive sloppy level %zu: %zu triangles, sampled %.4g at rest (bound %.4g), %.4g in "
        "motion, screen size %.1f px\n",
        l + 1, lod.indices.size() / 3, at_rest, double(lod.error), double(lod.error_in_motion),
        double(lod.screen_size));
  }
  EXPECT_GE(sloppy, 1u) << "the simplifier should stall on RobotExpressive before 8 levels";
}

TEST(Lod, RigBakesGetTheSameLevelsAndTheirOwnBudgets) {
  // The levels come from the rest geometry and the reference skinner's poses (bake passes it as
  // LodOptions::pose_source), which both encodings share; the budgets come from each encoding's
  // decoded poses, and hold for the rig too.
  const Vat& delta = baked("khronos/CesiumMan.glb");
  const Vat& rig = baked("khronos/CesiumMan.glb", EncodingChoice::Rig);
  ASSERT_EQ(rig.encoding, Encoding::Rig);
  ASSERT_EQ(rig.geometry.lods.size(), delta.geometry.lods.size());
  std::vector<glm::vec3> P(rig.geometry.vertex_count());
  for (size_t l = 0; l < rig.geometry.lods.size(); ++l) {
    EXPECT_EQ(rig.geometry.lods[l].indices, delta.geometry.lods[l].indices);
    EXPECT_NEAR(rig.geometry.lods[l].error_in_motion, delta.geometry.lods[l].error_in_motion,
                0.05 * delta.geometry.lods[l].error_in_motion);
    const VatClip& clip = rig.clips[0];
    const uint32_t row = clip.first_row + measured_rows(rig, clip)[measured_rows(rig, clip).size() / 2];
    decode_vertices(rig, single(RowBlend{0, row, row, 0.0f}), 0, P);
    EXPECT_LE(measured_error(rig, rig.geometry.lods[l], P, 800, 7), rig.geometry.lods[l].error_in_motion * (1 + 1e-5));
  }
}

void full_mesh_in_vertex_cache_order(const Asset& asset, const Vat& vat);

TEST(Lod, FullMeshKeepsItsTrianglesInVertexCacheOrder) {
  // Level 0 is reordered within each group (meshopt_optimizeVertexCache) but holds the same
  // triangles, with the same vertices in the same order, as the source primitives. Fox's mesh is
  // unwelded (no triangle shares a vertex), which the bake keeps as it is without asking
  // meshoptimizer: the order must still be meshoptimizer's.
  for (const char* file : {"threejs/RobotExpressive.glb", "khronos/Fox.glb"}) {
    SCOPED_TRACE(file);
    full_mesh_in_vertex_cache_order(lod_asset(file), baked(file));
  }
  const std::vector<uint32_t>& fox = baked("khronos/Fox.glb").geometry.indices;
  EXPECT_EQ(std::set<uint32_t>(fox.begin(), fox.end()).size(), fox.size()) << "Fox no longer tests an unwelded mesh";
}

void full_mesh_in_vertex_cache_order(const Asset& asset, const Vat& vat) {
  auto rotate_min_first = [](std::array<uint32_t, 3> t) {
    std::rotate(t.begin(), std::min_element(t.begin(), t.end()), t.end());  // keeps the winding
    return t;
  };
  for (const DrawGroup& grp : vat.geometry.groups) {
    std::multiset<std::array<uint32_t, 3>> expected, got;
    for (const MeshInstance& inst : asset.instances) {
      const Primitive& prim = asset.meshes[inst.mesh].primitives[inst.primitive];
      if (prim.material != grp.material) continue;
      for (size_t t = 0; t < prim.indices.size(); t += 3)
        expected.insert(rotate_min_first({inst.first_vertex + prim.indices[t], inst.first_vertex + prim.indices[t + 1],
                                          inst.first_vertex + prim.indices[t + 2]}));
    }
    for (uint32_t k = grp.first_index; k < grp.first_index + grp.index_count; k += 3)
      got.insert(rotate_min_first({vat.geometry.indices[k], vat.geometry.indices[k + 1], vat.geometry.indices[k + 2]}));
    EXPECT_EQ(got, expected) << "material " << grp.material;
    // And in exactly meshopt_optimizeVertexCache's order of the source triangles (the bake makes
    // it on a pool worker while the frame rows are made).
    std::vector<uint32_t> source, ordered;
    for (const MeshInstance& inst : asset.instances) {
      const Primitive& prim = asset.meshes[inst.mesh].primitives[inst.primitive];
      if (prim.material != grp.material) continue;
      for (uint32_t i : prim.indices) source.push_back(inst.first_vertex + i);
    }
    ordered.resize(source.size());
    meshopt_optimizeVertexCache(ordered.data(), source.data(), source.size(), vat.geometry.vertex_count());
    EXPECT_TRUE(std::equal(ordered.begin(), ordered.end(), vat.geometry.indices.begin() + grp.first_index))
        << "material " << grp.material;
    EXPECT_LE(meshopt_analyzeVertexCache(ordered.data(), ordered.size(), vat.geometry.vertex_count(), 16, 0, 0).acmr,
              meshopt_analyzeVertexCache(source.data(), source.size(), vat.geometry.vertex_count(), 16, 0, 0).acmr);
  }
  // The vertices are the rest pose in the source order (the VAT columns are indexed by them).
  EXPECT_EQ(vat.geometry.vertex_count(), asset.instance_vertex_count);
}

// A stray vertex far from the rest of the mesh (a fuzzed fish, fuzz/seeds/fuzz_bake_reload) makes
// long thin triangles, each of which the error search would cut into millions of pieces (3.1
// million for this file, minutes of search). The pieces stay within 8 per full triangle per level
// and direction, and the levels are still made and valid.
TEST(Lod, StrayVertexKeepsThePiecesBounded) {
  const std::string name = "stray_vertex_slivers.glb";
  const std::vector<uint8_t> bytes =
      test::read_file(std::filesystem::path(VATKIT_SOURCE_DIR) / "fuzz/seeds/fuzz_bake_reload" / name);
  Result<Asset> asset = import_gltf_memory(bytes, name);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  BakeOptions o = lod_bake_options();
  o.fps = 4.0f;
  o.lods = 0;
  Result<Vat> r = bake(*asset, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  Vat& vat = *r;
  const double bound = vat.bounds.max.x - vat.bounds.min.x;
  ASSERT_GT(bound, 1e3) << "the seed no longer has its stray vertex";
  Result<LodReport> report = build_lods(vat, {.levels = 2});
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(vat.geometry.lods.size(), 2u);
  EXPECT_TRUE(validate_vat(vat).ok()) << validate_vat(vat).error().message;
  const uint64_t full_triangles = vat.geometry.indices.size() / 3;
  EXPECT_GT(report->pieces, full_triangles);
  EXPECT_LE(report->pieces, 8 * full_triangles * 2 * 2);
}

TEST(Lod, ZeroLevelsMakesNone) {
  BakeOptions o = lod_bake_options();
  o.lods = 0;
  o.clips = {"#0"};
  Result<Vat> vat = bake(lod_asset("<sample>"), o);
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  EXPECT_TRUE(vat->geometry.lods.empty());
  o.lods = 1;
  vat = bake(lod_asset("<sample>"), o);
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  EXPECT_EQ(vat->geometry.lods.size(), 1u);
}

TEST(Lod, ThreadCountDoesNotChangeTheLevels) {
  BakeOptions o = lod_bake_options();
  o.clips = {"#1"};
  o.threads = 1;
  Result<Vat> one = bake(lod_asset("khronos/Fox.glb"), o);
  o.threads = 3;
  Result<Vat> three = bake(lod_asset("khronos/Fox.glb"), o);
  ASSERT_TRUE(one.ok() && three.ok());
  ASSERT_EQ(one->geometry.lods.size(), three->geometry.lods.size());
  for (size_t l = 0; l < one->geometry.lods.size(); ++l) {
    EXPECT_EQ(one->geometry.lods[l].indices, three->geometry.lods[l].indices);
    EXPECT_EQ(std::memcmp(&one->geometry.lods[l].error_in_motion, &three->geometry.lods[l].error_in_motion, 4), 0);
    EXPECT_EQ(std::memcmp(&one->geometry.lods[l].error, &three->geometry.lods[l].error, 4), 0);
  }
  EXPECT_EQ(one->geometry.indices, three->geometry.indices);
}

// The bound measures in each pose only the pieces whose cheap upper bound (their distance to one
// candidate) could decide a level's errors (docs/lod.md, "Cost"). Measuring every piece in every
// pose instead must give the same errors to the bit and the same levels: on the sample character
// (3 clips, 24 poses, smooth), Fox (faceted, welded levels) and legacy CesiumMan (19 clips, 57
// poses, where a pose's result is most often below what another pose reached).
TEST(Lod, PrunedBoundsEqualTheExhaustiveOnes) {
  for (const char* asset : {"<sample>", "khronos/Fox.glb", "khronos/legacy/CesiumMan.glb"}) {
    SCOPED_TRACE(asset);
    BakeOptions o = lod_bake_options();
    o.lods = 0;
    Result<Vat> vat = bake(lod_asset(asset), o);
    ASSERT_TRUE(vat.ok()) << vat.error().message;
    Vat pruned = *vat, exhaustive = *vat;
    LodOptions lo;
    Result<LodReport> a = build_lods(pruned, lo);
    lo.prune_bound = false;
    Result<LodReport> b = build_lods(exhaustive, lo);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(pruned.geometry.lods.size(), 3u);
    ASSERT_EQ(pruned.geometry.lods.size(), exhaustive.geometry.lods.size());
    for (size_t l = 0; l < pruned.geometry.lods.size(); ++l) {
      SCOPED_TRACE("level " + std::to_string(l + 1));
      const LodLevel &x = pruned.geometry.lods[l], &y = exhaustive.geometry.lods[l];
      EXPECT_EQ(x.indices, y.indices);
      EXPECT_GT(x.error_in_motion, 0.0f);
      EXPECT_EQ(std::memcmp(&x.error, &y.error, 4), 0) << x.error << " against " << y.error;
      EXPECT_EQ(std::memcmp(&x.error_in_motion, &y.error_in_motion, 4), 0)
          << x.error_in_motion << " against " << y.error_in_motion;
      EXPECT_EQ(std::memcmp(&x.screen_size, &y.screen_size, 4), 0);
    }
  }
}

TEST(Lod, KernelWidthsGiveTheSameLevels) {
  BakeOptions o = lod_bake_options();
  detail::force_simd_lanes(1);  // the scalar twins
  Result<Vat> scalar = bake(lod_asset("khronos/CesiumMan.glb"), o);
  ASSERT_TRUE(scalar.ok()) << scalar.error().message;
  ASSERT_EQ(scalar->geometry.lods.size(), 3u);
  for (unsigned w : detail::simd_widths()) {
    if (w == 1) continue;
    detail::force_simd_lanes(w);
    Result<Vat> other = bake(lod_asset("khronos/CesiumMan.glb"), o);
    detail::force_simd_lanes(0);
    ASSERT_TRUE(other.ok()) << other.error().message;
    ASSERT_EQ(scalar->geometry.lods.size(), other->geometry.lods.size());
    for (size_t l = 0; l < scalar->geometry.lods.size(); ++l) {
      SCOPED_TRACE("level " + std::to_string(l) + ", " + std::to_string(w) + " lanes against the scalar twins");
      EXPECT_EQ(scalar->geometry.lods[l].indices, other->geometry.lods[l].indices);
      EXPECT_EQ(std::memcmp(&scalar->geometry.lods[l].error_in_motion, &other->geometry.lods[l].error_in_motion, 4), 0);
      EXPECT_EQ(std::memcmp(&scalar->geometry.lods[l].error, &other->geometry.lods[l].error, 4), 0);
    }
  }
  detail::force_simd_lanes(0);
}

// The exact squared distance from p to the solid triangle abc in double precision, by brute force
// over the candidates: the projection onto the plane where it falls inside, else the nearest of
// the three edges (each the clamped projection onto its line).
double exact_dist2(dvec3 p, dvec3 a, dvec3 b, dvec3 c) {
  auto seg = [&](dvec3 u, dvec3 v) {
    const dvec3 d = v - u;
    const double len2 = glm::dot(d, d);
    const double t = len2 > 0.0 ? std::clamp(glm::dot(p - u, d) / len2, 0.0, 1.0) : 0.0;
    const dvec3 q = u + d * t;
    return glm::dot(p - q, p - q);
  };
  double best = std::min({seg(a, b), seg(b, c), seg(c, a)});
  const dvec3 n = glm::cross(b - a, c - a);
  const double n2 = glm::dot(n, n);
  if (n2 > 0.0) {
    const dvec3 q = p - n * (glm::dot(p - a, n) / n2);
    // Inside when q is on the inner side of every edge.
    const bool inside = glm::dot(glm::cross(b - a, q - a), n) >= 0.0 && glm::dot(glm::cross(c - b, q - b), n) >= 0.0 &&
                        glm::dot(glm::cross(a - c, q - c), n) >= 0.0;
    if (inside) best = std::min(best, glm::dot(p - q, p - q));
  }
  return best;
}

TEST(LodDistance, LanesMatchTheExactDistanceInEveryRegionAndOnDegenerateTriangles) {
  // Random triangles and points around them (every Voronoi region gets points), plus slivers
  // (heights of 1e-5 and 1e-6 of the base: the region tests alone were off by up to 0.4 of the
  // base there) and degenerate triangles: collinear, two corners equal, all three equal.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto rnd = [&] { return glm::vec3(u(rng), u(rng), u(rng)); };
  std::vector<glm::vec3> p, a, b, c;
  for (int i = 0; i < 5000; ++i) {
    glm::vec3 ta = rnd(), tb = rnd(), tc = rnd();
    const glm::vec3 up = glm::normalize(glm::cross(tb - ta, rnd()));
    if (i % 10 == 5) tc = ta + 0.6f * (tb - ta) + 1e-5f * glm::length(tb - ta) * up;
    if (i % 10 == 6) tc = ta + 0.3f * (tb - ta) + 1e-6f * glm::length(tb - ta) * up;
    if (i % 10 == 7) tc = ta + 0.37f * (tb - ta);  // collinear
    if (i % 10 == 8) tb = ta;                      // two corners equal
    if (i % 10 == 9) tb = tc = ta;                 // a point
    p.push_back(2.0f * rnd());
    a.push_back(ta);
    b.push_back(tb);
    c.push_back(tc);
  }
  std::vector<float> out(p.size()), scalar(p.size());
  detail::force_simd_lanes(1);  // the scalar twin
  detail::dist2_point_triangles(p, a, b, c, scalar);
  std::vector<std::vector<float>> widths;  // every other width this CPU runs
  for (unsigned w : detail::simd_widths()) {
    if (w == 1) continue;
    detail::force_simd_lanes(w);
    widths.emplace_back(p.size());
    detail::dist2_point_triangles(p, a, b, c, widths.back());
  }
  detail::force_simd_lanes(0);
  detail::dist2_point_triangles(p, a, b, c, out);
  int regions_seen[7] = {};
  for (size_t i = 0; i < p.size(); ++i) {
    const double exact = std::sqrt(exact_dist2(p[i], a[i], b[i], c[i]));
    // Float rounding on coordinates of magnitude <= 2: at most 1e-5 either way (measured 2e-6);
    // a sliver (height at most 1e-4 of its longest edge) is measured to its edges, at most its
    // height farther.
    const dvec3 da = a[i], db = b[i], dc = c[i];
    const double longest = std::max({glm::length(db - da), glm::length(dc - da), glm::length(dc - db)});
    const double height = longest > 0.0 ? glm::length(glm::cross(db - da, dc - da)) / longest : 0.0;
    const double over = height <= 1.001e-4 * longest ? height : 0.0;
    for (const double d :
         {std::sqrt(double(out[i])), std::sqrt(double(detail::dist2_point_triangle(p[i], a[i], b[i], c[i])))}) {
      EXPECT_GE(d, exact - 1e-5) << "pair " << i;
      EXPECT_LE(d, exact + over + 1e-5) << "pair " << i;
    }
    for (const std::vector<float>& w : widths) {
      EXPECT_EQ(std::memcmp(&w[i], &scalar[i], 4), 0) << "a kernel width and the scalar twin differ at pair " << i;
    }
    // Which region the nearest point is in (face, 3 edges, 3 vertices), to show all are reached.
    const dvec3 q[3] = {a[i], b[i], c[i]}, pd = p[i];
    auto d2 = [&](const dvec3& v) { return glm::dot(pd - v, pd - v); };
    const double exact2 = exact * exact;
    int region = 0;  // 1, 2, 3: a corner; 4: the face; 5: an edge
    for (int k = 0; k < 3; ++k)
      if (std::abs(d2(q[k]) - exact2) < 1e-9) region = 1 + k;
    if (region == 0) {
      const dvec3 n = glm::cross(q[1] - q[0], q[2] - q[0]);
      const double plane = glm::dot(pd - q[0], n);
      region = glm::dot(n, n) > 0.0 && std::abs(plane * plane / glm::dot(n, n) - exact2) < 1e-9 ? 4 : 5;
    }
    ++regions_seen[region];
  }
  for (int r = 1; r <= 5; ++r) EXPECT_GT(regions_seen[r], 0) << "no pair had its nearest point in region class " << r;
}

TEST(Lod, MotionMeasuresMoreThanTheRestPose) {
  // The walking and running poses bend the rest-pose simplification: on the sample character the
  // budget in motion is larger than at rest for at least one level, and build_lods' report says
  // how many poses it measured.
  Vat vat = baked("<sample>");
  Result<LodReport> report = build_lods(vat, {.levels = 3, .threads = 0});
  ASSERT_TRUE(report.ok()) << report.error().message;
  uint32_t expected_poses = 0;
  for (const VatClip& c : vat.clips) expected_poses += measured_count(vat, c);
  EXPECT_EQ(report->poses, expected_poses);
  ASSERT_EQ(report->levels.size(), vat.geometry.lods.size());
  bool larger = false;
  for (size_t l = 0; l < report->levels.size(); ++l) {
    const LodLevelReport& r = report->levels[l];
    EXPECT_EQ(r.triangles * 3, vat.geometry.lods[l].indices.size());
    EXPECT_LE(r.triangles, std::max(r.target_triangles, r.triangles));
    EXPECT_GT(r.simplifier_error, 0.0f);
    larger |= r.error_in_motion > r.error * 1.01f;
    std::printf(
        "  level %zu: target %u, got %u triangles; the simplifier's estimate %.4g (relative %.3g x scale %.4g), "
        "bound %.4g at rest, %.4g in motion\n",
        l + 1, r.target_triangles, r.triangles, double(r.simplifier_error), double(r.simplifier_error / report->scale),
        double(report->scale), double(r.error), double(r.error_in_motion));
  }
  EXPECT_TRUE(larger);
}

TEST(Lod, LevelsKeepWhatMotionNeeds) {
  // The simplifier weighs each collapse in poses of every clip (bake_lod_simplify.h), so a ring that a
  // bending joint needs stays. Against meshoptimizer's simplifier on the rest pose alone, asked
  // for the same triangle counts over the same vertices, the levels' sampled distance to the full
  // mesh in motion must be well under half (measured on the sample character: 3.4 and 7.8 mm for
  // levels 1 and 2, against 42 and 47 mm).
  const Vat& vat = baked("<sample>");
  const VatGeometry& g = vat.geometry;
  ASSERT_GE(g.lods.size(), 2u);
  const std::vector<uint32_t> full = drawn(g.indices, g.groups);
  std::vector<glm::vec3> P(g.vertex_count());
  for (size_t l = 0; l < 2; ++l) {
    SCOPED_TRACE("level " + std::to_string(l + 1));
    LodLevel rest_only;
    rest_only.indices.resize(full.size());
    rest_only.indices.resize(meshopt_simplify(rest_only.indices.data(), full.data(), full.size(), &g.positions[0].x,
                                              g.vertex_count(), sizeof(glm::vec3), g.lods[l].indices.size(), 0.05f));
    ASSERT_LE(rest_only.indices.size(), g.lods[l].indices.size() * 11 / 10) << "meshoptimizer reaches the count too";
    rest_only.groups.push_back(DrawGroup{0, uint32_t(rest_only.indices.size()), -1});
    double ours = 0.0, theirs = 0.0;
    for (uint32_t c = 0; c < vat.clips.size(); ++c) {
      for (uint32_t quarter = 1; quarter <= 3; ++quarter) {  // three poses per clip, ends excluded
        const uint32_t row = vat.clips[c].first_row + quarter * (vat.clips[c].rows - 1) / 4;
        decode_vertices(vat, single(RowBlend{c, row, row, 0.0f}), 0, P);
        ours = std::max(ours, measured_error(vat, g.lods[l], P, 200, row));
        theirs = std::max(theirs, measured_error(vat, rest_only, P, 200, row));
      }
    }
    std::printf("  level %zu (%zu triangles): %.4g in motion; the rest pose alone (%zu triangles): %.4g\n", l + 1,
                g.lods[l].indices.size() / 3, ours, rest_only.indices.size() / 3, theirs);
    EXPECT_LT(ours, 0.5 * theirs);
  }
}

TEST(Lod, SeamsKeptUntilTheyMustBeReleased) {
  // A vertex on a seam (two vertices at one position: CesiumMan's UV seams) moves only along the
  // seam, where each copy has a copy to go to (bake_lod_simplify.h). So no triangle of a level
  // made with seams kept joins vertices of two charts: the connected parts of the full mesh over
  // its own (unwelded) vertices. The sample character's parts are separate meshes, its rings
  // closed: the same holds. RobotExpressive is faceted (every corner a seam): its levels must
  // release them.
  for (const char* asset : {"khronos/CesiumMan.glb", "<sample>", "threejs/RobotExpressive.glb"}) {
    SCOPED_TRACE(asset);
    Vat vat = baked(asset);
    const VatGeometry& g = vat.geometry;
    std::vector<uint32_t> parent(g.vertex_count());
    for (uint32_t v = 0; v < parent.size(); ++v) parent[v] = v;
    auto find = [&](uint32_t v) {
      while (parent[v] != v) v = parent[v] = parent[parent[v]];
      return v;
    };
    const std::vector<uint32_t> full = drawn(g.indices, g.groups);
    for (size_t t = 0; t < full.size(); t += 3) {
      parent[find(full[t + 1])] = find(full[t]);
      parent[find(full[t + 2])] = find(full[t]);
    }
    Result<LodReport> report = build_lods(vat, {.levels = 3, .threads = 0});
    ASSERT_TRUE(report.ok()) << report.error().message;
    ASSERT_EQ(report->levels.size(), vat.geometry.lods.size());
    size_t kept = 0;
    for (size_t l = 0; l < report->levels.size(); ++l) {
      if (report->levels[l].welded) continue;
      ++kept;
      const std::vector<uint32_t> level = drawn(vat.geometry.lods[l].indices, vat.geometry.lods[l].groups);
      size_t across = 0;
      for (size_t t = 0; t < level.size(); t += 3) {
        across += find(level[t]) != find(level[t + 1]) || find(level[t]) != find(level[t + 2]);
      }
      EXPECT_EQ(across, 0u) << "level " << l + 1 << ": triangles joining two charts";
    }
    if (std::string(asset) == "threejs/RobotExpressive.glb") {
      EXPECT_EQ(kept, 0u) << "a faceted mesh cannot be reduced with its seams kept";
    } else {
      EXPECT_EQ(kept, report->levels.size()) << "seams released where keeping them should reach the targets";
    }
  }
}

TEST(Lod, SelectLodUsesTheScreenSizes) {
  Vat vat = baked("khronos/Fox.glb");
  const auto& lods = vat.geometry.lods;
  ASSERT_GE(lods.size(), 2u);
  // The coarsest level whose error projects within the budget: error * D / (2R) <= pixels.
  const double radius = 0.5 * glm::length(glm::dvec3(vat.bounds.max - vat.bounds.min));
  auto expected = [&](double diameter_px, double pixels) {
    uint32_t level = 0;
    for (size_t l = 0; l < lods.size(); ++l)
      if (double(lods[l].error_in_motion) * diameter_px / (2.0 * radius) <= pixels * (1 + 1e-6))
        level = uint32_t(l + 1);
    return level;
  };
  EXPECT_EQ(select_lod(vat, 1e9f), 0u);                     // huge on screen: the full mesh
  EXPECT_EQ(select_lod(vat, 0.5f), uint32_t(lods.size()));  // a dot: the coarsest
  EXPECT_EQ(select_lod(vat, lods[0].screen_size * 1.001f), 0u);
  for (float d : {1.0f, 5.0f, 9.0f, 10.0f, 10.7f, 11.0f, 11.5f, 12.0f, 20.0f, 40.0f, 100.0f}) {
    for (float pixels : {0.5f, 1.0f, 2.0f}) {
      EXPECT_EQ(select_lod(vat, d, pixels), expected(d, pixels)) << d << " px, budget " << pixels;
    }
  }
  for (size_t l = 0; l < lods.size(); ++l) EXPECT_GE(select_lod(vat, lods[l].screen_size), uint32_t(l + 1));
  EXPECT_FLOAT_EQ(lod_screen_size(2.0f, 0.5f), 8.0f);
  EXPECT_EQ(lod_screen_size(2.0f, 0.0f), FLT_MAX);
}

TEST(Lod, RoundTripThroughTheFile) {
  for (const char* asset : kAssets) {
    SCOPED_TRACE(asset);
    const Vat& vat = baked(asset);
    Result<std::vector<uint8_t>> bytes = write_vat_glb(vat);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    Result<Vat> loaded = load_vat_memory(*bytes, asset);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(loaded->geometry.indices, vat.geometry.indices);
    ASSERT_EQ(loaded->geometry.lods.size(), vat.geometry.lods.size());
    for (size_t l = 0; l < vat.geometry.lods.size(); ++l) {
      const LodLevel &a = vat.geometry.lods[l], &b = loaded->geometry.lods[l];
      EXPECT_EQ(a.indices, b.indices);
      ASSERT_EQ(a.groups.size(), b.groups.size());
      for (size_t i = 0; i < a.groups.size(); ++i) {
        EXPECT_EQ(a.groups[i].first_index, b.groups[i].first_index);
        EXPECT_EQ(a.groups[i].index_count, b.groups[i].index_count);
        EXPECT_EQ(a.groups[i].material, b.groups[i].material);
      }
      EXPECT_EQ(std::memcmp(&a.error, &b.error, 4), 0);
      EXPECT_EQ(std::memcmp(&a.error_in_motion, &b.error_in_motion, 4), 0);
      EXPECT_EQ(std::memcmp(&a.screen_size, &b.screen_size, 4), 0);
    }
    Result<std::vector<uint8_t>> again = write_vat_glb(*loaded);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *bytes);
  }
}

}  // namespace
}  // namespace vatkit

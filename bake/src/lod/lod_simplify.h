// The levels-of-detail simplifier (lod.cpp, docs/lod.md "How the levels are made"): edge
// collapses measured in several poses at once.
//
// meshoptimizer's simplifier (0.18, Debian 12) sees one set of positions, the rest pose. A
// rest-pose simplification removes what the rest pose does not need (the rings of a straight
// limb are flat at rest, so they go first) and the bent elbow then cuts the corner: far more error
// in motion than at rest (docs/benchmarks-log.md has the figures). This one is
// Garland and Heckbert's quadric error simplification with half-edge collapses (a vertex moves
// onto a neighbour, so every level keeps original vertices and reads the same VAT columns), each
// vertex carrying one quadric per pose: a collapse costs the sum over the poses of its squared
// distance to the planes it leaves, so a ring that a knee needs when it bends is kept.
//
// The mesh is simplified on welded positions (one vertex per position at rest), each triangle
// remembering which original vertex each corner is, so that it can be written back over the
// original vertices. With seams kept, a vertex on an attribute seam (two original vertices at one
// position: a UV or normal discontinuity) moves only along the seam, where every copy has a copy
// of its target to go to; with seams released (a faceted mesh, whose every corner is a seam, can
// do nothing else) a corner with no such copy takes the target's copy, in the triangle's draw
// group, whose normal is nearest the triangle's. Collapses that flip a triangle in any pose, break
// the manifold around the edge (the link condition), or pull a border inward are refused.
// Deterministic: one thread, ties broken by vertex index.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

namespace vatkit::detail {

class PoseSimplifier {
 public:
  // `indices`: triangles over the original vertices; `group[t]`: triangle t's draw group (kept
  // by every triangle through every collapse). `weld[v]`: the welded vertex of original vertex v
  // (dense, 0..welded-1). `poses[p][v]`: original vertex v's position in pose p (pose 0 is the
  // rest pose, the one welding and seam rules refer to). `normals`: rest normals of the original
  // vertices (may be empty), used only to pick copies once seams are released.
  PoseSimplifier(std::span<const uint32_t> indices, std::span<const uint32_t> group, std::span<const uint32_t> weld,
                 uint32_t welded, std::vector<std::span<const glm::vec3>> poses, std::span<const glm::vec3> normals);

  // Collapses edges, cheapest first, until at most `target_triangles` remain or no collapse is
  // left within `max_error` (object units: the largest over the poses of the root-mean-square
  // distance, area-weighted, of the collapsed vertex to the planes it accumulated). Returns the
  // triangles left. Can be called again with a smaller target, or with seams released.
  size_t run(size_t target_triangles, float max_error, bool keep_seams);

  size_t triangles() const { return live_; }
  float error() const { return error_; }  // the largest collapse error made so far

  // The live triangles over original vertices, split by draw group, in their original order.
  void emit(std::vector<std::vector<uint32_t>>& per_group) const;

 private:
  struct Quadric {
    double a00 = 0, a01 = 0, a02 = 0, a11 = 0, a12 = 0, a22 = 0, b0 = 0, b1 = 0, b2 = 0, c = 0, w = 0;
    void add_plane(const glm::dvec3& n, double d, double weight);
    void add(const Quadric& q);
    double eval(const glm::dvec3& p) const;
  };
  struct Entry {
    double cost;
    uint32_t u, v, stamp;
    bool operator>(const Entry& o) const {
      if (cost != o.cost) return cost > o.cost;
      if (u != o.u) return u > o.u;
      return v > o.v;
    }
  };

  const glm::vec3& pos(size_t p, uint32_t w) const { return poses_[p][rep_[w]]; }
  const std::vector<uint32_t>& live_around(uint32_t w);
  void push_edges(uint32_t w);
  double cost(uint32_t u, uint32_t v, float* error) const;
  bool collapse(uint32_t u, uint32_t v, bool keep_seams, float max_error);
  // collapse's tests of the edge (u, v), and where the corners of u's other triangles go.
  bool manifold_around(uint32_t u, uint32_t v, const std::vector<uint32_t>& tu, std::vector<uint32_t>& ring) const;
  bool link_condition(uint32_t u, uint32_t v, std::vector<uint32_t>& ring, const std::vector<uint32_t>& edge_tris);
  bool seam_moves(uint32_t u, uint32_t v, const std::vector<uint32_t>& edge_tris, const std::vector<uint32_t>& rest,
                  bool keep_seams, std::vector<std::pair<uint32_t, uint32_t>>& moves) const;
  uint32_t released_copy(uint32_t v, uint32_t t, int k, uint32_t uc) const;
  bool turns_over(uint32_t u, uint32_t v, const std::vector<uint32_t>& rest) const;

  std::vector<std::array<uint32_t, 3>> tri_;  // original corners
  std::vector<uint32_t> group_;
  std::vector<uint8_t> live_tri_;
  std::vector<uint32_t> weld_, rep_;
  std::vector<std::span<const glm::vec3>> poses_;
  std::span<const glm::vec3> normals_;
  std::vector<std::vector<uint32_t>> around_;  // welded vertex -> triangles (dead ones pruned lazily)
  std::vector<std::vector<uint32_t>> copies_;  // welded vertex -> its original vertices
  std::vector<uint32_t> vertex_group_;         // original vertex -> group of its first triangle
  std::vector<Quadric> quadric_;               // welded vertex w, pose p: [w * poses + p]
  std::vector<uint32_t> stamp_;
  std::vector<uint8_t> alive_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  size_t live_ = 0;
  float error_ = 0.0f;
  bool seeded_ = false;
};

}  // namespace vatkit::detail

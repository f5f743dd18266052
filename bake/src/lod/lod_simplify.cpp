// The multi-pose edge-collapse simplifier of the levels of detail (lod_simplify.h says what and why).
#include "lod/lod_simplify.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iterator>
#include <unordered_map>

namespace vatkit::detail {
namespace {

using glm::dvec3;

// A border edge's constraint plane (through the edge, perpendicular to its triangle) weighs this
// much per squared edge length, against a triangle plane's area: borders stay where they are
// unless moving along them.
constexpr double kBorderWeight = 10.0;
// A collapse is refused when it turns a triangle's normal by more than about 84 degrees (cosine
// 0.1) in any pose: a flip, or a sliver about to become one.
constexpr double kFlipCosine = 0.1;

dvec3 d(const glm::vec3& v) { return dvec3(v); }

// Small sets of welded vertices around one vertex (a handful of entries): sorted vectors.
void sort_unique(std::vector<uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

void PoseSimplifier::Quadric::add_plane(const dvec3& n, double dist, double weight) {
  a00 += weight * n.x * n.x, a01 += weight * n.x * n.y, a02 += weight * n.x * n.z;
  a11 += weight * n.y * n.y, a12 += weight * n.y * n.z, a22 += weight * n.z * n.z;
  b0 += weight * dist * n.x, b1 += weight * dist * n.y, b2 += weight * dist * n.z;
  c += weight * dist * dist;
  w += weight;
}

void PoseSimplifier::Quadric::add(const Quadric& q) {
  a00 += q.a00, a01 += q.a01, a02 += q.a02, a11 += q.a11, a12 += q.a12, a22 += q.a22;
  b0 += q.b0, b1 += q.b1, b2 += q.b2, c += q.c, w += q.w;
}

double PoseSimplifier::Quadric::eval(const dvec3& p) const {
  const double r = p.x * p.x * a00 + p.y * p.y * a11 + p.z * p.z * a22 +
                   2.0 * (p.x * p.y * a01 + p.x * p.z * a02 + p.y * p.z * a12) +
                   2.0 * (p.x * b0 + p.y * b1 + p.z * b2) + c;
  return std::max(r, 0.0);
}

PoseSimplifier::PoseSimplifier(std::span<const uint32_t> indices, std::span<const uint32_t> group,
                               std::span<const uint32_t> weld, uint32_t welded,
                               std::vector<std::span<const glm::vec3>> poses, std::span<const glm::vec3> normals)
    : weld_(weld.begin(), weld.end()), poses_(std::move(poses)), normals_(normals) {
  const size_t P = poses_.size();
  rep_.assign(welded, ~0u);
  copies_.resize(welded);
  for (uint32_t v = 0; v < weld_.size(); ++v) {
    if (rep_[weld_[v]] == ~0u) rep_[weld_[v]] = v;
    copies_[weld_[v]].push_back(v);
  }
  vertex_group_.assign(weld_.size(), ~0u);
  around_.resize(welded);
  const size_t T = indices.size() / 3;
  for (size_t t = 0; t < T; ++t) {
    const std::array<uint32_t, 3> c = {indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]};
    tri_.push_back(c);
    group_.push_back(group[t]);
    const uint32_t a = weld_[c[0]], b = weld_[c[1]], e = weld_[c[2]];
    const bool degenerate = a == b || b == e || a == e;  // zero area at rest: not drawn in any level
    live_tri_.push_back(degenerate ? 0 : 1);
    if (degenerate) continue;
    ++live_;
    for (uint32_t v : c) {
      if (vertex_group_[v] == ~0u) vertex_group_[v] = group[t];
      around_[weld_[v]].push_back(uint32_t(t));
    }
  }
  alive_.assign(welded, 1);
  stamp_.assign(welded, 0);

  // Plane quadrics: every triangle's plane in every pose, weighted by its area there; border
  // edges (used by one triangle) add their constraint planes.
  quadric_.assign(size_t(welded) * P, Quadric{});
  std::unordered_map<uint64_t, uint32_t> edge_use;
  auto edge_key = [](uint32_t a, uint32_t b) { return uint64_t(std::min(a, b)) << 32 | std::max(a, b); };
  for (size_t t = 0; t < T; ++t) {
    if (!live_tri_[t]) continue;
    for (int k = 0; k < 3; ++k) ++edge_use[edge_key(weld_[tri_[t][k]], weld_[tri_[t][(k + 1) % 3]])];
  }
  for (size_t t = 0; t < T; ++t) {
    if (!live_tri_[t]) continue;
    const uint32_t w[3] = {weld_[tri_[t][0]], weld_[tri_[t][1]], weld_[tri_[t][2]]};
    for (size_t p = 0; p < P; ++p) {
      const dvec3 a = d(pos(p, w[0])), b = d(pos(p, w[1])), c = d(pos(p, w[2]));
      dvec3 n = glm::cross(b - a, c - a);
      const double len = glm::length(n);
      if (!(len > 0.0)) continue;
      n /= len;
      for (uint32_t x : w) quadric_[size_t(x) * P + p].add_plane(n, -glm::dot(n, a), 0.5 * len);
      for (int k = 0; k < 3; ++k) {
        if (edge_use[edge_key(w[k], w[(k + 1) % 3])] != 1) continue;
        const dvec3 e0 = d(pos(p, w[k])), e = d(pos(p, w[(k + 1) % 3])) - e0;
        dvec3 m = glm::cross(e, n);
        const double ml = glm::length(m);
        if (!(ml > 0.0)) continue;
        m /= ml;
        const double weight = kBorderWeight * glm::dot(e, e);
        quadric_[size_t(w[k]) * P + p].add_plane(m, -glm::dot(m, e0), weight);
        quadric_[size_t(w[(k + 1) % 3]) * P + p].add_plane(m, -glm::dot(m, e0), weight);
      }
    }
  }
}

const std::vector<uint32_t>& PoseSimplifier::live_around(uint32_t w) {
  std::vector<uint32_t>& list = around_[w];
  list.erase(std::remove_if(list.begin(), list.end(), [&](uint32_t t) { return !live_tri_[t]; }), list.end());
  return list;
}

double PoseSimplifier::cost(uint32_t u, uint32_t v, float* error) const {
  const size_t P = poses_.size();
  double sum = 0.0, worst = 0.0;
  for (size_t p = 0; p < P; ++p) {
    const Quadric& q = quadric_[size_t(u) * P + p];
    const double e = q.eval(d(pos(p, v)));
    sum += e;
    if (q.w > 0.0) worst = std::max(worst, e / q.w);
  }
  if (error) *error = float(std::sqrt(worst));
  return sum;
}

void PoseSimplifier::push_edges(uint32_t w) {
  std::vector<uint32_t> next;
  for (uint32_t t : live_around(w))
    for (uint32_t c : tri_[t])
      if (weld_[c] != w) next.push_back(weld_[c]);
  sort_unique(next);
  for (uint32_t x : next) heap_.push(Entry{cost(w, x, nullptr), w, x, stamp_[w]});
}

// Manifold around u: each neighbour in one triangle (a border edge) or two. A border vertex
// moves only along its border. `ring`: u's neighbours over `tu`, sorted, with repeats.
bool PoseSimplifier::manifold_around(uint32_t u, uint32_t v, const std::vector<uint32_t>& tu,
                                     std::vector<uint32_t>& ring) const {
  for (uint32_t t : tu)
    for (uint32_t c : tri_[t])
      if (weld_[c] != u) ring.push_back(weld_[c]);
  std::sort(ring.begin(), ring.end());
  bool border = false;
  size_t uses_v = 0;
  for (size_t i = 0; i < ring.size();) {
    size_t j = i;
    while (j < ring.size() && ring[j] == ring[i]) ++j;
    const size_t n = j - i;
    if (n > 2) return false;
    border |= n == 1;
    if (ring[i] == v) uses_v = n;
    i = j;
  }
  return border ? uses_v == 1 : uses_v == 2;
}

// The link condition: the common neighbours of u and v are exactly the third corners of the
// triangles on the edge. `ring`: u's neighbours, sorted (made distinct here).
bool PoseSimplifier::link_condition(uint32_t u, uint32_t v, std::vector<uint32_t>& ring,
                                    const std::vector<uint32_t>& edge_tris) {
  sort_unique(ring);
  std::vector<uint32_t> ring_v;
  for (uint32_t t : live_around(v))
    for (uint32_t c : tri_[t])
      if (weld_[c] != v) ring_v.push_back(weld_[c]);
  sort_unique(ring_v);
  std::vector<uint32_t> common, third;
  std::set_intersection(ring.begin(), ring.end(), ring_v.begin(), ring_v.end(), std::back_inserter(common));
  for (uint32_t t : edge_tris)
    for (uint32_t c : tri_[t])
      if (weld_[c] != u && weld_[c] != v) third.push_back(weld_[c]);
  sort_unique(third);
  return common == third;
}

// Seams: each copy of u that stays in a triangle goes to the copy of v it shares an edge with;
// `moves` gets (triangle, corner's new vertex) for each triangle of `rest`. False when a copy has
// no such partner and seams are kept, or v has no vertex in the triangle's material.
bool PoseSimplifier::seam_moves(uint32_t u, uint32_t v, const std::vector<uint32_t>& edge_tris,
                                const std::vector<uint32_t>& rest, bool keep_seams,
                                std::vector<std::pair<uint32_t, uint32_t>>& moves) const {
  std::vector<std::pair<uint32_t, uint32_t>> pairs;  // (copy of u, copy of v) along the edge
  for (uint32_t t : edge_tris) {
    uint32_t uc = ~0u, vc = ~0u;
    for (uint32_t c : tri_[t]) {
      if (weld_[c] == u) uc = c;
      if (weld_[c] == v) vc = c;
    }
    pairs.emplace_back(uc, vc);
  }
  for (uint32_t t : rest) {
    int k = 0;
    while (weld_[tri_[t][k]] != u) ++k;
    const uint32_t uc = tri_[t][k];
    uint32_t to = ~0u;
    bool ambiguous = false;
    for (const auto& [a, b] : pairs) {
      if (a != uc) continue;
      ambiguous |= to != ~0u && to != b;
      to = b;
    }
    if (to != ~0u && vertex_group_[to] != vertex_group_[uc]) to = ~0u, ambiguous = true;  // another material's
    if (to == ~0u || ambiguous) {
      if (keep_seams) return false;
      to = released_copy(v, t, k, uc);
      if (to == ~0u) return false;  // v has no vertex in this triangle's material
    }
    moves.emplace_back(t, to);
  }
  return true;
}

// Seams released: the copy of v of the same draw group as uc whose normal is nearest the normal
// of triangle t with its corner k moved to v; ~0u when there is none.
uint32_t PoseSimplifier::released_copy(uint32_t v, uint32_t t, int k, uint32_t uc) const {
  std::array<glm::vec3, 3> c;
  for (int j = 0; j < 3; ++j) c[j] = pos(0, j == k ? v : weld_[tri_[t][j]]);
  const glm::vec3 n = glm::cross(c[1] - c[0], c[2] - c[0]);
  uint32_t to = ~0u;
  float best = -FLT_MAX;
  for (uint32_t vc : copies_[v]) {
    if (vertex_group_[vc] != vertex_group_[uc]) continue;
    const float score = normals_.empty() ? 0.0f : glm::dot(normals_[vc], n);
    if (to == ~0u || score > best) to = vc, best = score;
  }
  return to;
}

// Whether a triangle of `rest` turns over (or nearly) in some pose when u moves to v.
bool PoseSimplifier::turns_over(uint32_t u, uint32_t v, const std::vector<uint32_t>& rest) const {
  for (uint32_t t : rest) {
    for (size_t p = 0; p < poses_.size(); ++p) {
      dvec3 c[3], m[3];
      for (int j = 0; j < 3; ++j) {
        const uint32_t w = weld_[tri_[t][j]];
        c[j] = d(pos(p, w));
        m[j] = w == u ? d(pos(p, v)) : c[j];
      }
      const dvec3 before = glm::cross(c[1] - c[0], c[2] - c[0]), after = glm::cross(m[1] - m[0], m[2] - m[0]);
      const double lb = glm::length(before), la = glm::length(after);
      if (!(lb > 0.0)) continue;
      if (!(la > 0.0) || glm::dot(before, after) <= kFlipCosine * lb * la) return true;
    }
  }
  return false;
}

bool PoseSimplifier::collapse(uint32_t u, uint32_t v, bool keep_seams, float max_error) {
  float err = 0.0f;
  cost(u, v, &err);
  if (!(err <= max_error)) return false;
  const std::vector<uint32_t> tu = live_around(u);
  std::vector<uint32_t> edge_tris, rest;
  for (uint32_t t : tu) {
    const bool has_v = weld_[tri_[t][0]] == v || weld_[tri_[t][1]] == v || weld_[tri_[t][2]] == v;
    (has_v ? edge_tris : rest).push_back(t);
  }
  if (edge_tris.empty() || edge_tris.size() > 2) return false;
  std::vector<uint32_t> ring;
  if (!manifold_around(u, v, tu, ring) || !link_condition(u, v, ring, edge_tris)) return false;
  std::vector<std::pair<uint32_t, uint32_t>> moves;  // (triangle, corner's new vertex)
  if (!seam_moves(u, v, edge_tris, rest, keep_seams, moves) || turns_over(u, v, rest)) return false;

  for (uint32_t t : edge_tris) {
    live_tri_[t] = 0;
    --live_;
  }
  for (const auto& [t, to] : moves) {
    for (uint32_t& c : tri_[t])
      if (weld_[c] == u) c = to;
    around_[v].push_back(t);
  }
  const size_t P = poses_.size();
  for (size_t p = 0; p < P; ++p) quadric_[size_t(v) * P + p].add(quadric_[size_t(u) * P + p]);
  alive_[u] = 0;
  around_[u].clear();
  ++stamp_[v];
  error_ = std::max(error_, err);
  return true;
}

size_t PoseSimplifier::run(size_t target_triangles, float max_error, bool keep_seams) {
  heap_ = {};
  for (uint32_t w = 0; w < alive_.size(); ++w)
    if (alive_[w]) push_edges(w);
  while (live_ > target_triangles && !heap_.empty()) {
    const Entry e = heap_.top();
    heap_.pop();
    if (!alive_[e.u] || !alive_[e.v] || stamp_[e.u] != e.stamp) continue;
    if (!collapse(e.u, e.v, keep_seams, max_error)) continue;
    // v's quadric changed (its own edges cost anew) and v has new neighbours (theirs toward it).
    push_edges(e.v);
    std::vector<uint32_t> ring;
    for (uint32_t t : live_around(e.v))
      for (uint32_t c : tri_[t])
        if (weld_[c] != e.v) ring.push_back(weld_[c]);
    sort_unique(ring);
    for (uint32_t x : ring) heap_.push(Entry{cost(x, e.v, nullptr), x, e.v, stamp_[x]});
  }
  return live_;
}

void PoseSimplifier::emit(std::vector<std::vector<uint32_t>>& per_group) const {
  for (size_t t = 0; t < tri_.size(); ++t) {
    if (!live_tri_[t]) continue;
    std::vector<uint32_t>& dst = per_group[group_[t]];
    dst.insert(dst.end(), tri_[t].begin(), tri_[t].end());
  }
}

}  // namespace vatkit::detail

// Levels of detail (vatkit/lod.h): meshoptimizer's simplifier on the rest pose, vertex-cache
// order, and the two-sided distance bound between each level and the full mesh at rest and in the
// decoded poses of every clip. lod.h explains what the bound is and why it is one.
#include "vatkit/lod.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <meshoptimizer.h>

#include "vatkit/decode.h"
#include "vatkit/parallel.h"
#include "encode/bake_internal.h"
#include "lod/lod_simplify.h"
#include "simd/lod_distance.h"

namespace vatkit {
namespace {

using glm::vec3;

constexpr size_t kCandidates = 3;            // triangles of the other surface tried per piece
constexpr int kRefineDepth = 2;              // a piece near the worst is split at most twice (16 leaves)
constexpr float kRefineFraction = 0.8f;      // pieces above this fraction of the worst are refined
constexpr size_t kMaxPiecesPerTriangle = 8;  // per side, per triangle of the full mesh (make_side)
constexpr int kSettleDepth = 1;              // a piece is split at rest at most once (4 children)...
constexpr float kSettleRatio = 2.0f;         // ... while its bound exceeds this times its corners'
constexpr float kSettleSlack = 0.01f;        // distance plus this fraction of the piece length

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// ---- distances ---------------------------------------------------------------------------------

float dist2_segment(const vec3& p, const vec3& a, const vec3& b) {
  const vec3 ab = b - a;
  const float len2 = glm::dot(ab, ab);
  float t = len2 > 0.0f ? glm::dot(p - a, ab) / len2 : 0.0f;
  t = std::clamp(t, 0.0f, 1.0f);
  const vec3 d = p - (a + ab * t);
  return glm::dot(d, d);
}

using detail::kSliver;
using detail::PairSoA;

// A sliver (height under kSliver times its longest edge L, |ab x ac|^2 <= kSliver^2 L^4) is
// measured to its edges: the region tests of dist2_solid lose their accuracy there (measured:
// distance errors up to 0.4 L at a height of 1e-6 L, 5e-3 L at 1e-5 L, under 1e-5 L at 1e-4 L and
// above), and a triangle with no area would divide 0 by 0. The edges are at most the height farther.
bool is_sliver(const vec3& a, const vec3& b, const vec3& c) {
  const vec3 ab = b - a, ac = c - a, bc = c - b;
  const vec3 n = glm::cross(ab, ac);
  const float longest2 = std::max({glm::dot(ab, ab), glm::dot(ac, ac), glm::dot(bc, bc)});
  return !(glm::dot(n, n) > kSliver * kSliver * longest2 * longest2);
}

// Squared distance from p to the (closed, solid) triangle abc, not a sliver: the closest point
// found by the Voronoi region of p (three vertices, three edges, the face), as in Ericson's
// Real-Time Collision Detection, 5.1.5. A face too thin for its barycentric denominator is its
// edges.
float dist2_solid(const vec3& p, const vec3& a, const vec3& b, const vec3& c) {
  const vec3 ab = b - a, ac = c - a, ap = p - a;
  const float d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  auto d2_to = [&](const vec3& q) { return glm::dot(p - q, p - q); };
  if (d1 <= 0.0f && d2 <= 0.0f) return d2_to(a);
  const vec3 bp = p - b;
  const float d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
  if (d3 >= 0.0f && d4 <= d3) return d2_to(b);
  const float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) return d2_to(a + ab * (d1 / (d1 - d3)));
  const vec3 cp = p - c;
  const float d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
  if (d6 >= 0.0f && d5 <= d6) return d2_to(c);
  const float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) return d2_to(a + ac * (d2 / (d2 - d6)));
  const float va = d3 * d6 - d5 * d4;
  if (va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f)
    return d2_to(b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))));
  const float sum = va + vb + vc;
  if (!(sum > 0.0f)) return std::min({dist2_segment(p, a, b), dist2_segment(p, b, c), dist2_segment(p, c, a)});
  return d2_to(a + ab * (vb / sum) + ac * (vc / sum));
}

// dist2_solid for any triangle: a sliver is its edges.
float dist2_triangle(const vec3& p, const vec3& a, const vec3& b, const vec3& c) {
  if (is_sliver(a, b, c)) return std::min({dist2_segment(p, a, b), dist2_segment(p, b, c), dist2_segment(p, c, a)});
  return dist2_solid(p, a, b, c);
}

// ---- surfaces and pieces -----------------------------------------------------------------------

// A piece of a triangle of one surface: three corners as barycentric weights over the triangle's
// vertices, and the candidate triangles (indices into the other surface's triangle list).
struct Piece {
  uint32_t tri = 0;
  vec3 w[3];
  // The kCandidates best, each corner's nearest, and for a piece split at rest (make_side) its
  // parent's kCandidates best.
  std::array<uint32_t, 2 * kCandidates + 3> cand{};
  uint32_t cand_count = 0;
};

// The pieces of surface `from` and their candidates on surface `to` (index lists, 3 per triangle).
struct Side {
  const std::vector<uint32_t>* from = nullptr;
  const std::vector<uint32_t>* to = nullptr;
  std::vector<Piece> pieces;
};

struct Aabb {
  vec3 min{FLT_MAX}, max{-FLT_MAX};
  void add(const vec3& p) {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
};

// A uniform grid over the triangles of one surface at rest, for the candidate search.
class TriGrid {
 public:
  // `component[t]`: the connected part triangle t belongs to (candidates are taken from the
  // piece's own part first: where two parts overlap at rest, such as limbs that interpenetrate
  // at a joint, the other part's triangles are near at rest and far in motion).
  TriGrid(const std::vector<vec3>& P, const std::vector<uint32_t>& idx, std::vector<uint32_t> component, float cell)
      : P_(P), idx_(idx), component_(std::move(component)), cell_(cell) {
    const size_t tris = idx.size() / 3;
    boxes_.resize(tris);
    sliver_.resize(tris);
    for (size_t t = 0; t < tris; ++t) {
      for (int k = 0; k < 3; ++k) boxes_[t].add(P[idx[3 * t + k]]);
      sliver_[t] = is_sliver(P[idx[3 * t]], P[idx[3 * t + 1]], P[idx[3 * t + 2]]);
      bounds_.add(boxes_[t].min);
      bounds_.add(boxes_[t].max);
    }
    diag_ = tris ? glm::length(bounds_.max - bounds_.min) : 0.0f;
    // A dense grid over the bounds, cells of about `cell`, at most kMaxCells of them (larger cells
    // where the bounds are large for the triangles: queries then see more triangles, no fewer).
    const vec3 extent = tris ? glm::max(bounds_.max - bounds_.min, vec3(0.0f)) : vec3(0.0f);
    const double volume = double(extent.x + cell_) * double(extent.y + cell_) * double(extent.z + cell_);
    if (volume / (double(cell_) * cell_ * cell_) > double(kMaxCells))
      cell_ = float(std::cbrt(volume / double(kMaxCells)));
    // The volume's cap holds the cell count only where the bounds are about as deep as wide: bounds
    // long on one axis and flat on the others (a fuzzed mesh with one stray vertex) keep one cell
    // across the flat axes and billions along the long one. Doubling the cell until the grid's
    // own count is under the cap bounds it on any bounds (a mesh the cap already held is unchanged).
    const auto cells = [&](float c) {
      const glm::dvec3 d = glm::floor(glm::dvec3(extent) / double(c)) + 1.0;
      return d.x * d.y * d.z;
    };
    for (int i = 0; i < 256 && !(cells(cell_) <= double(kMaxCells)); ++i) cell_ *= 2.0f;
    dims_ = glm::ivec3(glm::floor(extent / cell_)) + 1;
    // Counting sort of (cell, triangle): each triangle in every cell its box touches, unless that
    // is more than 512 cells (then it is in `big_`, seen by every query).
    cell_start_.assign(size_t(dims_.x) * dims_.y * dims_.z + 1, 0);
    auto each_cell = [&](size_t t, auto&& f) {
      const glm::ivec3 lo = cell_of(boxes_[t].min), hi = cell_of(boxes_[t].max);
      for (int z = lo.z; z <= hi.z; ++z)
        for (int y = lo.y; y <= hi.y; ++y)
          for (int x = lo.x; x <= hi.x; ++x) f(cell_index(x, y, z));
    };
    auto spans_many = [&](size_t t) {
      const glm::ivec3 lo = cell_of(boxes_[t].min), hi = cell_of(boxes_[t].max);
      const glm::i64vec3 span = glm::i64vec3(hi - lo) + int64_t(1);
      return span.x * span.y * span.z > 512;
    };
    for (size_t t = 0; t < tris; ++t) {
      if (spans_many(t)) {
        big_.push_back(uint32_t(t));
        continue;
      }
      each_cell(t, [&](size_t c) { ++cell_start_[c + 1]; });
    }
    for (size_t c = 1; c < cell_start_.size(); ++c) cell_start_[c] += cell_start_[c - 1];
    cell_tris_.resize(cell_start_.back());
    std::vector<uint32_t> fill(cell_start_.begin(), cell_start_.end() - 1);
    for (size_t t = 0; t < tris; ++t) {
      if (spans_many(t)) continue;
      each_cell(t, [&](size_t c) { cell_tris_[fill[c]++] = uint32_t(t); });
    }
    components_ = component_;
    std::sort(components_.begin(), components_.end());
    components_.erase(std::unique(components_.begin(), components_.end()), components_.end());
  }

  // The kCandidates triangles of `component` (of any part when it has none) with the smallest
  // max over the corners of dist(corner, T), or fewer when no more are within 8 cells.
  void nearest(const vec3 (&c)[3], uint32_t component, Piece& piece) const {
    if (!has_component(component)) component = kAny;
    Aabb box;
    for (const vec3& p : c) box.add(p);
    // Scratch reused across the calls of one thread (hundreds of thousands of small queries).
    thread_local Scratch s;
    const size_t tris = idx_.size() / 3;
    if (s.seen.size() < tris) s.seen.resize(tris, 0);
    for (float r = 0.5f * cell_;; r *= 2.0f) {
      const bool all = r > diag_ + cell_;
      gather(box, r, all, s);
      s.order.clear();
      for (uint32_t t : s.found) {
        if (component != kAny && component_[t] != component) continue;
        Entry e{0.0f, {}, t};
        for (int j = 0; j < 3; ++j) {
          const vec3 d = glm::max(glm::max(boxes_[t].min - c[j], c[j] - boxes_[t].max), vec3(0.0f));
          e.corner[j] = glm::dot(d, d);
          e.lower = std::max(e.lower, e.corner[j]);
        }
        s.order.push_back(e);
      }
      if (choose(c, r, all, s, piece)) return;
    }
  }

 private:
  struct Entry {
    float lower;      // the farthest corner's squared distance to the triangle's box
    float corner[3];  // each corner's squared distance to it
    uint32_t t;
  };
  // nearest's scratch: the triangles found, deduplicated with a per-thread stamp per triangle
  // instead of a sort, and their scores.
  struct Scratch {
    std::vector<uint32_t> found, seen;
    uint32_t query = 0;
    std::vector<std::pair<float, uint32_t>> scored;
    std::vector<Entry> order;
  };

  // Into s.found, each once: the triangles listed in the cells within r of `box`, and the big
  // ones (every triangle when `all`).
  void gather(const Aabb& box, float r, bool all, Scratch& s) const {
    s.found.clear();
    if (++s.query == 0) std::fill(s.seen.begin(), s.seen.end(), 0), s.query = 1;
    auto take_one = [&](uint32_t t) {
      if (s.seen[t] == s.query) return;
      s.seen[t] = s.query;
      s.found.push_back(t);
    };
    auto take = [&](uint32_t begin, uint32_t end) {  // a run of cells' lists, consecutive in x
      for (uint32_t i = begin; i < end; ++i) take_one(cell_tris_[i]);
    };
    if (all) {
      for (size_t t = 0; t < idx_.size() / 3; ++t) s.found.push_back(uint32_t(t));
      return;
    }
    const glm::ivec3 lo = cell_of(box.min - r), hi = cell_of(box.max + r);
    for (int z = lo.z; z <= hi.z; ++z)
      for (int y = lo.y; y <= hi.y; ++y) {
        const size_t row = cell_index(lo.x, y, z);
        take(cell_start_[row], cell_start_[row + size_t(hi.x - lo.x) + 1]);
      }
    for (uint32_t t : big_) take_one(t);
  }

  // The whole piece's k best of s.order, scored in the order of the lower bound (a heap: most
  // entries are never popped), stopping once it passes the k-th best score. Then the nearest
  // triangle to each corner among all found, scoring a triangle for a corner only where its box
  // is nearer than that corner's best so far: a piece that straddles a fold of the other surface
  // has no one triangle near all of it, and the refinement's sub-pieces near a corner need that
  // corner's nearest. False when the search must widen beyond r.
  bool choose(const vec3 (&c)[3], float r, bool all, Scratch& s, Piece& piece) const {
    auto later = [](const Entry& x, const Entry& y) { return x.lower > y.lower || (x.lower == y.lower && x.t > y.t); };
    std::make_heap(s.order.begin(), s.order.end(), later);
    s.scored.clear();
    float corner_best[3] = {FLT_MAX, FLT_MAX, FLT_MAX};
    uint32_t corner_tri[3] = {~0u, ~0u, ~0u};
    auto score_corner = [&](int j, uint32_t t, float d) {
      if (d < corner_best[j] || (d == corner_best[j] && t < corner_tri[j])) corner_best[j] = d, corner_tri[j] = t;
    };
    size_t heap_end = s.order.size();
    while (heap_end > 0) {
      const Entry& top = s.order.front();
      if (s.scored.size() >= kCandidates && top.lower >= s.scored[kCandidates - 1].first) break;
      std::pop_heap(s.order.begin(), s.order.begin() + ptrdiff_t(heap_end), later);
      const Entry& e = s.order[--heap_end];
      const vec3 &a = P_[idx_[3 * e.t]], &b = P_[idx_[3 * e.t + 1]], &d = P_[idx_[3 * e.t + 2]];
      float worst = 0.0f;
      for (int j = 0; j < 3; ++j) {
        const float dj = dist2(c[j], e.t, a, b, d);
        worst = std::max(worst, dj);
        score_corner(j, e.t, dj);
      }
      s.scored.emplace_back(worst, e.t);
      std::sort(s.scored.begin(), s.scored.end());
      if (s.scored.size() > kCandidates) s.scored.pop_back();
    }
    for (size_t i = 0; i < heap_end; ++i) {
      const Entry& e = s.order[i];
      for (int j = 0; j < 3; ++j) {
        if (e.corner[j] > corner_best[j]) continue;
        const uint32_t* v = &idx_[3 * e.t];
        score_corner(j, e.t, dist2(c[j], e.t, P_[v[0]], P_[v[1]], P_[v[2]]));
      }
    }
    for (auto& sc : s.scored) sc.first = std::sqrt(sc.first);
    size_t k = std::min(kCandidates, s.scored.size());
    // Every triangle within r of all corners is among those found. Cheaper than the exact k
    // best: the k best of what a box r around the piece holds, once it holds one within r (the
    // bound holds whatever the candidates; the best decides how tight it is).
    if (!all && !(k > 0 && s.scored[0].first <= r)) return false;
    piece.cand_count = uint32_t(k);
    for (size_t i = 0; i < k; ++i) piece.cand[i] = s.scored[i].second;
    for (uint32_t t : corner_tri) {
      if (t == ~0u || std::find(piece.cand.begin(), piece.cand.begin() + piece.cand_count, t) !=
                          piece.cand.begin() + piece.cand_count)
        continue;
      piece.cand[piece.cand_count++] = t;
    }
    return true;
  }

  static constexpr double kMaxCells = 1 << 21;
  // dist2_triangle with triangle t's sliver test done once.
  float dist2(const vec3& p, uint32_t t, const vec3& a, const vec3& b, const vec3& c) const {
    return sliver_[t] ? dist2_triangle(p, a, b, c) : dist2_solid(p, a, b, c);
  }
  // The cell holding p, clamped to the grid (NaN: cell 0).
  glm::ivec3 cell_of(const vec3& p) const {
    const vec3 q = glm::floor((p - bounds_.min) / cell_);
    const vec3 top = vec3(dims_ - 1);
    glm::ivec3 c;
    for (int i = 0; i < 3; ++i) c[i] = q[i] >= 0.0f ? int(std::min(q[i], top[i])) : 0;
    return c;
  }
  size_t cell_index(int x, int y, int z) const {
    return (size_t(z) * size_t(dims_.y) + size_t(y)) * size_t(dims_.x) + size_t(x);
  }

  static constexpr uint32_t kAny = ~0u;
  bool has_component(uint32_t component) const {
    return std::binary_search(components_.begin(), components_.end(), component);
  }

  const std::vector<vec3>& P_;
  const std::vector<uint32_t>& idx_;
  std::vector<uint32_t> component_;
  std::vector<uint32_t> components_;  // sorted distinct values of component_
  std::vector<Aabb> boxes_;
  std::vector<uint8_t> sliver_;  // is_sliver, per triangle
  float cell_;
  Aabb bounds_;
  float diag_ = 0.0f;
  glm::ivec3 dims_{1, 1, 1};
  std::vector<uint32_t> cell_start_;  // cell c's triangles: cell_tris_[cell_start_[c] .. cell_start_[c + 1])
  std::vector<uint32_t> cell_tris_;
  std::vector<uint32_t> big_;
};

struct TriKey {
  uint32_t v[3];
  bool operator==(const TriKey& o) const { return v[0] == o.v[0] && v[1] == o.v[1] && v[2] == o.v[2]; }
};
struct TriKeyHash {
  size_t operator()(const TriKey& k) const {
    return std::hash<uint64_t>()((uint64_t(k.v[0]) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(k.v[1]) << 21) ^ k.v[2]);
  }
};
TriKey tri_key(const uint32_t* t) {
  TriKey k{{t[0], t[1], t[2]}};
  std::sort(k.v, k.v + 3);
  return k;
}

// out[i] for the first n pairs of s (1 <= n <= PairSoA::kMax; out has PairSoA::kMax elements:
// the lanes write whole vectors). Pads s to a multiple of 8 pairs with copies of the last.
void dist2_soa(PairSoA& s, uint32_t n, float* out) {
  for (uint32_t i = n; i < (n + 7) / 8 * 8; ++i) {
    for (int x = 0; x < 3; ++x) {
      s.p[x][i] = s.p[x][n - 1];
      s.a[x][i] = s.a[x][n - 1];
      s.b[x][i] = s.b[x][n - 1];
      s.c[x][i] = s.c[x][n - 1];
    }
  }
  detail::dist2_pairs(s, n, out);
  for (uint32_t i = 0; i < n; ++i) {
    if (out[i] >= 0.0f) continue;  // a degenerate triangle's face region: its edges
    auto at = [&](const float(&v)[3][PairSoA::kMax]) { return vec3(v[0][i], v[1][i], v[2][i]); };
    out[i] = dist2_triangle(at(s.p), at(s.a), at(s.b), at(s.c));
  }
}

// d2[3 k + j]: the squared distance from corner j to candidate k, for every candidate of the piece
// (simd/lod_distance.inl, 8 or 4 pairs at a time; the same bits either way).
void pair_distances(const vec3 (&c)[3], const Piece& piece, const std::vector<uint32_t>& to, std::span<const vec3> P,
                    float (&d2)[PairSoA::kMax]) {
  const uint32_t n = 3 * piece.cand_count;
  if (n == 0) return;
  PairSoA s;
  for (uint32_t k = 0, i = 0; k < piece.cand_count; ++k, i += 3) {
    const uint32_t* t = &to[3 * size_t(piece.cand[k])];
    const vec3 &a = P[t[0]], &b = P[t[1]], &d = P[t[2]];
    for (int x = 0; x < 3; ++x) {
      for (uint32_t j = 0; j < 3; ++j) {
        s.p[x][i + j] = c[j][x];
        s.a[x][i + j] = a[x];
        s.b[x][i + j] = b[x];
        s.c[x][i + j] = d[x];
      }
    }
  }
  dist2_soa(s, n, d2);
}

// The bound's square from pair_distances: min over the candidates of max over the corners.
float min_max_corner(const float (&d2)[PairSoA::kMax], uint32_t cand_count) {
  float best = FLT_MAX;
  for (uint32_t k = 0; k < cand_count; ++k) best = std::min(best, std::max({d2[3 * k], d2[3 * k + 1], d2[3 * k + 2]}));
  return best;
}

// min over the candidates of max over the corners of the distance: a bound on every point of the
// (posed) piece's distance to the other surface.
float piece_bound(const vec3 (&c)[3], const Piece& piece, const std::vector<uint32_t>& to, std::span<const vec3> P) {
  if (piece.cand_count == 0) return std::sqrt(FLT_MAX);
  float d2[PairSoA::kMax];
  pair_distances(c, piece, to, P, d2);
  return std::sqrt(min_max_corner(d2, piece.cand_count));
}

// A triangle's four halves-of-edges children (corners as positions or as barycentric weights).
void quarter(const vec3 (&c)[3], vec3 (&kids)[4][3]) {
  const vec3 m01 = 0.5f * (c[0] + c[1]), m12 = 0.5f * (c[1] + c[2]), m20 = 0.5f * (c[2] + c[0]);
  const vec3 k[4][3] = {{c[0], m01, m20}, {m01, c[1], m12}, {m20, m12, c[2]}, {m01, m12, m20}};
  std::memcpy(kids, k, sizeof k);
}

// Cuts every triangle of `from` that `to` lacks into pieces no longer than about `h` at rest into
// side.pieces, at most `max_pieces` (h doubled until they fit); returns the h used.
float cut_pieces(Side& side, const std::vector<vec3>& P, const std::vector<uint32_t>& from,
                 const std::vector<uint32_t>& to, float h, bool split, size_t max_pieces) {
  std::unordered_set<TriKey, TriKeyHash> shared;
  for (size_t t = 0; t + 2 < to.size(); t += 3) shared.insert(tri_key(&to[t]));
  // Past max_pieces a cut stops splitting, so that the pieces always cover every triangle; the
  // cut then starts again with pieces twice as long.
  for (;; h *= 2.0f) {
    side.pieces.clear();
    for (size_t t = 0; t + 2 < from.size(); t += 3) {
      if (shared.count(tri_key(&from[t]))) continue;
      const vec3 &a = P[from[t]], &b = P[from[t + 1]], &c = P[from[t + 2]];
      // Pieces no longer than h at rest, by halving the longest edge (a long thin triangle becomes
      // a row of pieces, not n^2 slivers).
      auto cut = [&](auto&& self, const vec3(&w)[3], int depth) -> void {
        vec3 p[3];
        for (int k = 0; k < 3; ++k) p[k] = w[k].x * a + w[k].y * b + w[k].z * c;
        float longest = 0.0f;
        int e = 0;
        for (int k = 0; k < 3; ++k) {
          const float len = glm::length(p[(k + 1) % 3] - p[k]);
          if (len > longest) longest = len, e = k;
        }
        if (!(longest > h) || depth >= 24 || !split || side.pieces.size() > max_pieces) {
          Piece piece;
          piece.tri = uint32_t(t / 3);
          for (int k = 0; k < 3; ++k) piece.w[k] = w[k];
          side.pieces.push_back(piece);
          return;
        }
        const vec3 mid = 0.5f * (w[e] + w[(e + 1) % 3]);
        const vec3 first[3] = {w[e], mid, w[(e + 2) % 3]};
        const vec3 second[3] = {mid, w[(e + 1) % 3], w[(e + 2) % 3]};
        self(self, first, depth + 1);
        self(self, second, depth + 1);
      };
      const vec3 whole[3] = {vec3(1, 0, 0), vec3(0, 1, 0), vec3(0, 0, 1)};
      cut(cut, whole, 0);
    }
    if (side.pieces.size() <= max_pieces || !(h > 0.0f && std::isfinite(h))) return h;
  }
}

// The grid's cells: half the larger of the median edge of the surface searched and the piece
// length (measured on the sample character: 0.5 took its candidate search from 0.42 s to
// 0.33 s, 0.25 to 0.37 s; smaller cells hold fewer triangles a query must score, but a query
// then reads more cells).
float grid_cell(const std::vector<vec3>& P, const std::vector<uint32_t>& to, float h) {
  std::vector<float> edges;
  for (size_t t = 0; t + 2 < to.size(); t += 3) edges.push_back(glm::length(P[to[t + 1]] - P[to[t]]));
  std::nth_element(edges.begin(), edges.begin() + ptrdiff_t(edges.size() / 2), edges.end());
  float cell = 0.5f * std::max(edges[edges.size() / 2], h);
  if (!(cell > 0.0f)) cell = 1.0f;
  return cell;
}

// Piece i's candidates, into `out`. A piece whose bound at rest is well above its corners'
// distances (it straddles a fold of the other surface: no one triangle is near all of it) is
// split in four, each child with candidates of its own, at most kSettleDepth times.
void settle_piece(const Side& side, size_t i, const std::vector<vec3>& P, const std::vector<uint32_t>& vertex_component,
                  const TriGrid& grid, float h, std::vector<Piece>& out) {
  const std::vector<uint32_t>& from = *side.from;
  const std::vector<uint32_t>& to = *side.to;
  const uint32_t* v = &from[3 * size_t(side.pieces[i].tri)];
  auto settle = [&](auto&& self, Piece piece, int depth, const Piece& parent) -> void {
    vec3 c[3];
    for (int k = 0; k < 3; ++k) c[k] = piece.w[k].x * P[v[0]] + piece.w[k].y * P[v[1]] + piece.w[k].z * P[v[2]];
    grid.nearest(c, vertex_component[v[0]], piece);
    // A child keeps its parent's best too: chosen at rest, they may be the nearer in motion.
    for (uint32_t j = 0; j < std::min<uint32_t>(parent.cand_count, kCandidates); ++j) {
      const auto last = piece.cand.begin() + piece.cand_count;
      if (std::find(piece.cand.begin(), last, parent.cand[j]) == last) piece.cand[piece.cand_count++] = parent.cand[j];
    }
    if (depth < kSettleDepth && piece.cand_count > 0) {
      // The bound (min over candidates of max over corners) against each corner's distance to
      // its nearest candidate (max over corners of min over candidates).
      float d2[PairSoA::kMax];
      pair_distances(c, piece, to, P, d2);
      const float bound = min_max_corner(d2, piece.cand_count);
      float corner = 0.0f;
      for (uint32_t j = 0; j < 3; ++j) {
        float best = FLT_MAX;
        for (uint32_t k = 0; k < piece.cand_count; ++k) best = std::min(best, d2[3 * k + j]);
        corner = std::max(corner, best);
      }
      if (std::sqrt(bound) > kSettleRatio * std::sqrt(corner) + kSettleSlack * h) {
        vec3 kids[4][3];
        quarter(piece.w, kids);
        for (const auto& kw : kids) {
          Piece kid;
          kid.tri = piece.tri;
          for (int k = 0; k < 3; ++k) kid.w[k] = kw[k];
          self(self, kid, depth + 1, piece);
        }
        return;
      }
    }
    out.push_back(piece);
  };
  settle(settle, side.pieces[i], 0, Piece{});
}

// One side's candidate search (make_side): the pieces cut, the other surface's grid, and the
// pieces handed out in blocks of 128 to whichever thread calls run() (a piece split at rest costs
// five searches: fixed ranges per thread would leave one idle at the end). Each piece writes only
// its own list, so the result does not depend on who ran what.
struct SideSearch {
  Side side;
  float h = 0.0f;
  std::unique_ptr<TriGrid> grid;  // none: nothing to search
  std::vector<std::vector<Piece>> settled;
  std::atomic<size_t> next{0};

  SideSearch(const std::vector<vec3>& P, const std::vector<uint32_t>& from, const std::vector<uint32_t>& to,
             const std::vector<uint32_t>& vertex_component, float piece_length, size_t max_pieces) {
    side.from = &from;
    side.to = &to;
    h = cut_pieces(side, P, from, to, piece_length, true, max_pieces);
    if (side.pieces.empty() || to.empty()) return;
    std::vector<uint32_t> to_component(to.size() / 3);
    for (size_t t = 0; t < to_component.size(); ++t) to_component[t] = vertex_component[to[3 * t]];
    grid = std::make_unique<TriGrid>(P, to, std::move(to_component), grid_cell(P, to, h));
    settled.resize(side.pieces.size());
  }
  void run(const std::vector<vec3>& P, const std::vector<uint32_t>& vertex_component) {
    constexpr size_t kBlock = 128;
    if (!grid) return;
    const size_t n = side.pieces.size();
    for (size_t b; (b = next.fetch_add(kBlock)) < n;)
      for (size_t i = b; i < std::min(n, b + kBlock); ++i)
        settle_piece(side, i, P, vertex_component, *grid, h, settled[i]);
  }
  Side finish() {
    if (grid) {
      side.pieces.clear();
      for (const auto& list : settled) side.pieces.insert(side.pieces.end(), list.begin(), list.end());
    }
    return std::move(side);
  }
};

// Cuts every triangle of `from` that `to` lacks into pieces no longer than about `h` at rest, and
// finds each piece's candidates on `to`, on `threads` threads. At most `max_pieces` pieces: where
// `h` would give more (long triangles from a stray vertex far from the rest of the mesh, which
// would cost minutes of search), h is doubled until they fit. A mesh without such triangles gives
// a fraction of that.
Side make_side(const std::vector<vec3>& P, const std::vector<uint32_t>& from, const std::vector<uint32_t>& to,
               const std::vector<uint32_t>& vertex_component, float h, size_t max_pieces, unsigned threads) {
  SideSearch search(P, from, to, vertex_component, h, max_pieces);
  parallel_for(thread_count(threads), 1, threads, [&](size_t, size_t) { search.run(P, vertex_component); });
  return search.finish();
}

// The piece's bound, split in four while above `threshold`, at most `depth` times.
float refine(const vec3 (&c)[3], const Piece& piece, const std::vector<uint32_t>& to, std::span<const vec3> P,
             int depth, float threshold) {
  const float b = piece_bound(c, piece, to, P);
  if (depth == 0 || b <= threshold) return b;
  vec3 kids[4][3];
  quarter(c, kids);
  float worst = 0.0f;
  for (const auto& k : kids) worst = std::max(worst, refine(k, piece, to, P, depth - 1, threshold));
  // Each child's bound is at most the parent's (the parent's best candidate bounds it too).
  return std::min(worst, b);
}

// A piece's corners in pose P (the one expression every caller uses: the same bits).
inline void piece_corners(const Piece& piece, const std::vector<uint32_t>& from, std::span<const vec3> P,
                          vec3 (&c)[3]) {
  const uint32_t* v = &from[3 * size_t(piece.tri)];
  for (int k = 0; k < 3; ++k) c[k] = piece.w[k].x * P[v[0]] + piece.w[k].y * P[v[1]] + piece.w[k].z * P[v[2]];
}

// side_bound's scratch, reused across the poses and levels one thread measures.
struct SideScratch {
  std::vector<float> upper;     // each piece's cheap bound (upper_bounds)
  std::vector<uint32_t> exact;  // the pieces measured against every candidate
  std::vector<float> bound;     // their bounds (piece_bound), in the order of `exact`
};

// A cheap upper bound on each piece's bound in pose P: the farthest corner's distance to its
// first candidate alone (the best at rest). piece_bound is the minimum of that
// same value over all candidates (the same pair distances, bit for bit: the lanes do not depend
// on their neighbours), so upper[i] >= piece_bound(piece i), NaN only where the exact bound must be
// computed anyway. A ninth of the pairs at most, eight pieces at a time.
void upper_bounds(const Side& side, std::span<const vec3> P, SideScratch& s) {
  const std::vector<uint32_t>& from = *side.from;
  const std::vector<uint32_t>& to = *side.to;
  const size_t n = side.pieces.size();
  s.upper.resize(n);
  constexpr uint32_t kPerPass = 8;  // 24 pairs: three passes of 8 lanes, six of 4, no padding
  PairSoA soa;
  float d2[PairSoA::kMax];
  uint32_t batch[kPerPass];
  for (size_t first = 0; first < n;) {
    uint32_t pieces = 0, pairs = 0;
    for (; first < n && pieces < kPerPass; ++first) {
      const Piece& piece = side.pieces[first];
      vec3 c[3];
      piece_corners(piece, from, P, c);
      if (piece.cand_count == 0) {
        s.upper[first] = std::sqrt(FLT_MAX);  // piece_bound's value for no candidate
        continue;
      }
      const uint32_t* t = &to[3 * size_t(piece.cand[0])];
      for (int x = 0; x < 3; ++x) {
        for (uint32_t j = 0; j < 3; ++j) {
          soa.p[x][pairs + j] = c[j][x];
          soa.a[x][pairs + j] = P[t[0]][x];
          soa.b[x][pairs + j] = P[t[1]][x];
          soa.c[x][pairs + j] = P[t[2]][x];
        }
      }
      pairs += 3;
      batch[pieces++] = uint32_t(first);
    }
    if (pairs == 0) continue;
    dist2_soa(soa, pairs, d2);
    for (uint32_t k = 0; k < pieces; ++k)
      s.upper[batch[k]] = std::sqrt(std::max({d2[3 * k], d2[3 * k + 1], d2[3 * k + 2]}));
  }
}

// A lower bound on the largest piece bound: the largest exact bound of the kTopPieces pieces with
// the largest upper bounds (the worst piece is usually among them). Leaves in s.exact the pieces
// whose upper bound is above both `floor` and kRefineFraction times the bound of the piece with the
// largest upper bound (a superset of those side_bound must measure).
template <class Exact>
float worst_at_least(size_t n, float floor, const Exact& exact, SideScratch& s) {
  constexpr size_t kTopPieces = 32;
  size_t top = 0;
  for (size_t i = 1; i < n; ++i)
    if (s.upper[i] > s.upper[top]) top = i;
  float lower = exact(top);
  const float cut = std::max(kRefineFraction * lower, floor);
  s.exact.clear();
  for (size_t i = 0; i < n; ++i)
    if (!(s.upper[i] <= cut)) s.exact.push_back(uint32_t(i));
  const size_t k = std::min(kTopPieces, s.exact.size());
  std::partial_sort(s.exact.begin(), s.exact.begin() + ptrdiff_t(k), s.exact.end(), [&](uint32_t x, uint32_t y) {
    return s.upper[x] > s.upper[y] || (s.upper[x] == s.upper[y] && x < y);
  });
  for (size_t e = 0; e < k; ++e) lower = std::max(lower, exact(s.exact[e]));
  return lower;
}

// The bound of sup over `side.from` of the distance to `side.to`, with positions P: the largest
// piece bound, where the pieces above kRefineFraction of the worst are refined (the worst W, the
// threshold and every piece's value exactly as if each piece were measured against all its
// candidates). Only the pieces whose cheap upper bound u (upper_bounds) could decide the result
// are measured so: the result matters only where it passes `floor` (a value the caller already
// has: another pose's or level's result, below the final maximum), and a piece with u <= floor
// adds nothing above it; W is at least the bound L of some piece, so a piece with u <= 0.8 L is
// not refined and counts with its own bound only where u passes what the others reached.
// Returns the exact result where it is above `floor`, else a value at most the result. A negative
// floor measures every piece exactly (the exhaustive bound, which the pruned one must equal).
float side_bound(const Side& side, std::span<const vec3> P, SideScratch& s, float floor) {
  if (side.pieces.empty()) return 0.0f;
  if (side.to->empty()) return FLT_MAX;
  upper_bounds(side, P, s);
  const size_t n = side.pieces.size();
  auto exact = [&](size_t i) {
    vec3 c[3];
    piece_corners(side.pieces[i], *side.from, P, c);
    return piece_bound(c, side.pieces[i], *side.to, P);
  };
  float cut = -FLT_MAX;  // floor < 0: every piece measured (LodOptions::prune_bound false)
  if (floor >= 0.0f) {
    cut = std::max(kRefineFraction * worst_at_least(n, floor, exact, s), floor);
  } else {
    s.exact.resize(n);
    std::iota(s.exact.begin(), s.exact.end(), 0u);
  }
  s.bound.clear();
  float worst = 0.0f;
  size_t kept = 0;
  for (uint32_t i : s.exact) {
    if (s.upper[i] <= cut) continue;  // NaN: measured
    s.exact[kept++] = i;
    s.bound.push_back(exact(i));
    worst = std::max(worst, s.bound.back());
  }
  s.exact.resize(kept);
  // Every piece left out is within max(0.8 L, floor) <= max(worst, floor): when worst is at most
  // the floor, so is the result.
  if (!(worst > floor)) return 0.0f;
  const float threshold = kRefineFraction * worst;
  float refined = 0.0f;
  for (size_t e = 0; e < s.exact.size(); ++e) {
    if (s.bound[e] <= threshold) {
      refined = std::max(refined, s.bound[e]);
      continue;
    }
    vec3 c[3];
    piece_corners(side.pieces[s.exact[e]], *side.from, P, c);
    refined = std::max(refined, refine(c, side.pieces[s.exact[e]], *side.to, P, kRefineDepth, threshold));
  }
  // The pieces left out are at most their upper bounds, and below the threshold: unrefined.
  for (size_t i = 0; i < n; ++i)
    if (s.upper[i] <= cut && s.upper[i] > floor && s.upper[i] > refined) refined = std::max(refined, exact(i));
  return refined;
}

// ---- simplification ----------------------------------------------------------------------------

struct Level {
  LodLevel lod;
  LodLevelReport report;
};

// The drawn triangles of `groups` (in group order) and, per vertex, the group drawing it (-1:
// none, -2: several).
struct Drawn {
  std::vector<uint32_t> indices;
  std::vector<uint32_t> group;       // each triangle's draw group
  std::vector<int32_t> first_owner;  // the first group drawing the vertex, -1: none
  bool shared_vertices = false;      // some vertex is drawn by two groups
};

Drawn drawn_triangles(const VatGeometry& g) {
  Drawn d;
  d.first_owner.assign(g.vertex_count(), -1);
  for (size_t gi = 0; gi < g.groups.size(); ++gi) {
    const DrawGroup& grp = g.groups[gi];
    d.group.insert(d.group.end(), grp.index_count / 3, uint32_t(gi));
    for (uint32_t k = grp.first_index; k < grp.first_index + grp.index_count; ++k) {
      const uint32_t v = g.indices[k];
      d.indices.push_back(v);
      int32_t& o = d.first_owner[v];
      if (o == -1) o = int32_t(gi);
      d.shared_vertices |= o != int32_t(gi);
    }
  }
  return d;
}

// Reorders each group's triangles for the vertex cache (vertices keep their order) and lays the
// groups out one after the other in `out`.
void cache_order(const std::vector<std::vector<uint32_t>>& per_group, size_t vertex_count,
                 const std::vector<DrawGroup>& like, std::vector<uint32_t>& out, std::vector<DrawGroup>& groups) {
  out.clear();
  groups.clear();
  for (size_t gi = 0; gi < per_group.size(); ++gi) {
    DrawGroup grp;
    grp.material = like[gi].material;
    grp.first_index = uint32_t(out.size());
    grp.index_count = uint32_t(per_group[gi].size());
    out.resize(out.size() + per_group[gi].size());
    if (!per_group[gi].empty()) {
      meshopt_optimizeVertexCache(out.data() + grp.first_index, per_group[gi].data(), per_group[gi].size(),
                                  vertex_count);
    }
    groups.push_back(grp);
  }
}

}  // namespace

namespace detail {

void dist2_point_triangles(std::span<const vec3> p, std::span<const vec3> a, std::span<const vec3> b,
                           std::span<const vec3> c, std::span<float> out) {
  PairSoA s;
  for (size_t first = 0; first < out.size(); first += PairSoA::kMax) {
    const uint32_t n = uint32_t(std::min<size_t>(PairSoA::kMax, out.size() - first));
    for (uint32_t i = 0; i < n; ++i) {
      const size_t k = first + i;
      for (int x = 0; x < 3; ++x) {
        s.p[x][i] = p[k][x];
        s.a[x][i] = a[k][x];
        s.b[x][i] = b[k][x];
        s.c[x][i] = c[k][x];
      }
    }
    float d2[PairSoA::kMax];  // the lanes write whole vectors
    dist2_soa(s, n, d2);
    std::copy(d2, d2 + n, out.begin() + ptrdiff_t(first));
  }
}

float dist2_point_triangle(const vec3& p, const vec3& a, const vec3& b, const vec3& c) {
  return dist2_triangle(p, a, b, c);
}

std::vector<uint32_t> vertex_cache_order(const std::vector<uint32_t>& indices, const std::vector<DrawGroup>& groups,
                                         size_t vertex_count) {
  bool tiled = true;
  uint32_t next = 0;
  for (const DrawGroup& grp : groups) {
    tiled &= grp.first_index == next;
    next = grp.first_index + grp.index_count;
  }
  tiled &= next == indices.size();
  if (!tiled || indices.empty()) return {};
  std::vector<uint32_t> out(indices);  // a group kept as it is needs nothing more
  // A group whose triangles share no vertex keeps its order: no order can save a vertex
  // invocation there, and meshopt_optimizeVertexCache would return the same order anyway (with
  // no neighbours to prefer, it takes the triangles as they come) after a search that is a noticeable
  // share of a small unwelded mesh's rig bake.
  std::vector<uint64_t> seen((vertex_count + 63) / 64);
  auto shares_vertices = [&](std::span<const uint32_t> group) {
    // The indices of a primitive without an index buffer (0, 1, 2, ... from the importer, as
    // Fox's): distinct, found in passes of 64 that the compiler vectorizes (a welded mesh leaves
    // after the first).
    bool sequential = true;
    for (size_t k0 = 0; k0 < group.size() && sequential; k0 += 64) {
      const size_t k1 = std::min(group.size(), k0 + 64);
      for (size_t k = k0; k < k1; ++k) sequential &= group[k] == group[0] + uint32_t(k);
    }
    if (sequential && size_t(group[0]) + group.size() <= vertex_count) return false;
    size_t n = 0;  // indices looked at: a welded mesh repeats one within its first triangles
    bool shared = false;
    for (; n < group.size() && !shared; ++n) {
      const uint32_t i = group[n];
      if (i >= vertex_count) {  // meshopt's to judge
        shared = true;
        break;
      }
      const uint64_t bit = uint64_t(1) << (i & 63);
      shared = (seen[i >> 6] & bit) != 0;
      seen[i >> 6] |= bit;
    }
    for (size_t k = 0; k < n; ++k)
      if (group[k] < vertex_count) seen[group[k] >> 6] = 0;
    return shared;
  };
  for (const DrawGroup& grp : groups) {
    if (grp.index_count == 0) continue;
    const std::span<const uint32_t> group(indices.data() + grp.first_index, grp.index_count);
    if (shares_vertices(group)) {
      meshopt_optimizeVertexCache(out.data() + grp.first_index, group.data(), group.size(), vertex_count);
    }
  }
  return out;
}

}  // namespace detail

float lod_sphere_radius(const Vat& vat) { return 0.5f * glm::length(vat.bounds.max - vat.bounds.min); }

float lod_screen_size(float radius, float error_in_motion) {
  if (!(error_in_motion > 0.0f)) return FLT_MAX;
  const double s = 2.0 * double(radius) / double(error_in_motion);
  return float(std::min<double>(s, FLT_MAX));
}

uint32_t select_lod(const Vat& vat, float diameter_px, float max_error_px) {
  uint32_t level = 0;
  const auto& lods = vat.geometry.lods;
  for (size_t i = 0; i < lods.size(); ++i) {
    if (double(diameter_px) <= double(max_error_px) * double(lods[i].screen_size)) level = uint32_t(i + 1);
  }
  return level;
}

namespace {

size_t index_count(const std::vector<std::vector<uint32_t>>& per_group) {
  size_t n = 0;
  for (const auto& x : per_group) n += x.size();
  return n;
}

// build_lods' work, stage by stage: the welded surface, the poses, the simplified levels, their
// pieces and candidates at rest, and the bound of each level in every pose.
struct LodBuilder {
  Vat& vat;
  VatGeometry& g;
  const LodOptions& options;
  const size_t V;
  const std::chrono::steady_clock::time_point t0;
  const Drawn drawn;
  const bool debug = std::getenv("VATKIT_DEBUG_LOD") != nullptr;
  // weld[v]: vertex v's welded vertex (one per position at rest), weld_rep: each welded vertex's
  // first vertex; component[v]: the connected part of the surface (seams welded) holding v.
  std::vector<uint32_t> weld, weld_rep, component;
  std::vector<PoseBlend> poses, shape_poses;
  std::vector<Level> levels;
  // Each level's drawn triangles (its Sides point into them: a deque keeps them in place).
  std::deque<std::vector<uint32_t>> lod_tris;
  // The first level's two sides, searched on a pool worker while the simplifier makes the next
  // levels (start_first_search; make_sides joins them). The task is declared last: it is destroyed
  // (waited for) first.
  std::unique_ptr<SideSearch> first_search[2];
  AsyncTask first_task;

  // Progress: the simplification, the candidates and the poses weighed as they took on the
  // sample character (0.08, 0.33 and 0.21 s).
  static constexpr float kSimplified = 0.13f, kSearched = 0.66f;
  void tell(float fraction) const {
    if (options.progress) options.progress(std::min(fraction, 1.0f));
  }
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
  size_t group_of(uint32_t v) const { return size_t(std::max(drawn.first_owner[v], 0)); }

  // Vertices at bit-identical rest positions (seams: one point of the surface with several
  // normals or texture coordinates) and the connected parts of the surface, seams welded.
  void weld_vertices() {
    std::vector<uint32_t> rep(V);
    {
      struct Hash {
        size_t operator()(const vec3& p) const {
          uint32_t b[3];
          std::memcpy(b, &p, 12);
          return (size_t(b[0]) * 73856093u) ^ (size_t(b[1]) * 19349663u) ^ (size_t(b[2]) * 83492791u);
        }
      };
      struct Equal {
        bool operator()(const vec3& a, const vec3& b) const { return std::memcmp(&a, &b, 12) == 0; }
      };
      std::unordered_map<vec3, uint32_t, Hash, Equal> first;
      for (uint32_t v = 0; v < V; ++v) rep[v] = first.emplace(g.positions[v], v).first->second;
    }
    // Welded vertices (one per position at rest): what the simplifier collapses.
    weld.resize(V);
    for (uint32_t v = 0; v < V; ++v) {
      if (rep[v] == v) {
        weld[v] = uint32_t(weld_rep.size());
        weld_rep.push_back(v);
      } else {
        weld[v] = weld[rep[v]];
      }
    }
    component.resize(V);
    std::vector<uint32_t> parent(V);
    for (uint32_t v = 0; v < V; ++v) parent[v] = v;
    auto find = [&](uint32_t v) {
      while (parent[v] != v) v = parent[v] = parent[parent[v]];
      return v;
    };
    auto unite = [&](uint32_t a, uint32_t b) {
      a = find(a), b = find(b);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    };
    for (uint32_t v = 0; v < V; ++v) unite(v, rep[v]);
    for (size_t t = 0; t < drawn.indices.size(); t += 3) {
      unite(drawn.indices[t], drawn.indices[t + 1]);
      unite(drawn.indices[t], drawn.indices[t + 2]);
    }
    for (uint32_t v = 0; v < V; ++v) component[v] = find(v);
  }

  // The measured poses (lod.h): up to poses_per_clip rows of every clip, evenly spaced, first and
  // last included. The simplifier weighs its collapses in other poses, halfway between
  // consecutive measured rows (the only row of a one-row clip), so that what is measured is not
  // what was optimized.
  void choose_poses() {
    for (uint32_t c = 0; c < vat.clips.size(); ++c) {
      const VatClip& clip = vat.clips[c];
      const uint32_t share = std::max(3u, options.max_poses / uint32_t(vat.clips.size()));
      const uint32_t n = std::min({clip.rows, std::max(options.poses_per_clip, 1u), share});
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t k = n == 1 ? 0 : uint32_t((uint64_t(i) * (clip.rows - 1) + (n - 1) / 2) / (n - 1));
        poses.push_back(single(RowBlend{c, clip.first_row + k, clip.first_row + k, 0.0f}));
        if (n == 1) shape_poses.push_back(poses.back());
        if (i == 0) continue;
        // Halfway between this row and the previous measured one.
        const uint32_t before = uint32_t((uint64_t(i - 1) * (clip.rows - 1) + (n - 1) / 2) / (n - 1));
        const double mid = 0.5 * (double(before) + double(k));
        const uint32_t row = uint32_t(mid);
        const uint32_t next = std::min(row + 1, clip.rows - 1);
        shape_poses.push_back(single(RowBlend{c, clip.first_row + row, clip.first_row + next, float(mid - row)}));
      }
    }
  }

  // The positions of the simplifier's poses (shape_poses, thinned to at most 64 MiB of quadrics:
  // 11 doubles per welded vertex and pose), from the pose source or the VAT's decode.
  std::vector<std::vector<vec3>> shape_positions() {
    const size_t quadric_budget = size_t(64) << 20;
    const size_t max_shape_poses =
        std::max<size_t>(1, quadric_budget / (88 * std::max<size_t>(weld_rep.size(), 1)) - 1);
    if (shape_poses.size() > max_shape_poses) {
      std::vector<PoseBlend> kept;
      for (size_t i = 0; i < max_shape_poses; ++i)
        kept.push_back(shape_poses[i * shape_poses.size() / max_shape_poses]);
      shape_poses = std::move(kept);
    }
    std::vector<std::vector<vec3>> positions(shape_poses.size(), std::vector<vec3>(V));
    if (options.pose_source) {
      for (size_t p = 0; p < shape_poses.size(); ++p) {
        const RowBlend& r = shape_poses[p].a;
        const VatClip& clip = vat.clips[r.clip];
        const double step = clip.rows > 1 ? double(clip.duration_s) / double(clip.rows - 1) : 0.0;
        options.pose_source(r.clip, float((double(r.row - clip.first_row) + double(r.mix)) * step), positions[p]);
      }
    } else {
      parallel_for(shape_poses.size(), 1, thread_count(options.threads), [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) decode_vertices(vat, shape_poses[p], 0, positions[p]);
      });
    }
    return positions;
  }

  // From the stalled level's triangles (the whole mesh at once, split by the group of each
  // triangle's first vertex; each group on its own when groups share vertices). The grid
  // search can overshoot a small target to nothing: then it is asked for more.
  std::vector<std::vector<uint32_t>> sloppy_simplify(const std::vector<std::vector<uint32_t>>& per_group,
                                                     size_t target_tris) const {
    const float* pos = &g.positions[0].x;
    auto simplify = [&](const std::vector<uint32_t>& in, size_t target_indices) {
      std::vector<uint32_t> out;
      for (size_t want = std::max<size_t>(target_indices, 3); want < in.size(); want += want / 2 + 3) {
        out.resize(in.size());
        out.resize(
            meshopt_simplifySloppy(out.data(), in.data(), in.size(), pos, V, sizeof(vec3), want, FLT_MAX, nullptr));
        if (!out.empty()) break;
      }
      return out;
    };
    std::vector<std::vector<uint32_t>> coarse(g.groups.size());
    if (!drawn.shared_vertices) {
      std::vector<uint32_t> in;
      for (const auto& grp : per_group) in.insert(in.end(), grp.begin(), grp.end());
      const std::vector<uint32_t> out = simplify(in, target_tris * 3);
      for (size_t t = 0; t < out.size(); t += 3) {
        std::vector<uint32_t>& dst = coarse[group_of(out[t])];
        dst.insert(dst.end(), out.begin() + ptrdiff_t(t), out.begin() + ptrdiff_t(t + 3));
      }
    } else {
      for (size_t gi = 0; gi < per_group.size(); ++gi)
        if (!per_group[gi].empty()) coarse[gi] = simplify(per_group[gi], (per_group[gi].size() / 6) * 3);
    }
    return coarse;
  }

  // The pieces' length (about the side of an equilateral triangle of the full mesh's mean area,
  // so that each side has about as many pieces as the full mesh has triangles, more where they
  // are long and thin) and the most pieces a side may have.
  std::pair<float, size_t> piece_size() const {
    double area = 0.0;
    for (size_t t = 0; t < drawn.indices.size(); t += 3) {
      const vec3 &a = g.positions[drawn.indices[t]], &b = g.positions[drawn.indices[t + 1]],
                 &c = g.positions[drawn.indices[t + 2]];
      area += 0.5 * double(glm::length(glm::cross(b - a, c - a)));
    }
    const size_t drawn_tris = drawn.indices.size() / 3;
    return {2.5f * float(std::sqrt(area / double(drawn_tris) / 0.4330127)),
            kMaxPiecesPerTriangle * std::max<size_t>(drawn_tris, 1)};
  }
  // Level l's drawn ranges (a group's triangles, not whatever else the buffer holds) into lod_tris.
  void add_lod_tris(size_t l) {
    while (lod_tris.size() <= l) lod_tris.emplace_back();
    for (const DrawGroup& grp : levels[l].lod.groups)
      lod_tris[l].insert(lod_tris[l].end(), levels[l].lod.indices.begin() + grp.first_index,
                         levels[l].lod.indices.begin() + grp.first_index + grp.index_count);
  }
  // The simplifier is one thread: while it makes the next levels, a pool worker searches the first
  // level's candidates (both sides), in blocks that every thread joins once the levels are made.
  void start_first_search() {
    if (thread_count(options.threads) < 2 || options.levels < 2) return;
    add_lod_tris(0);
    const auto [h, max_pieces] = piece_size();
    first_search[0] = std::make_unique<SideSearch>(g.positions, drawn.indices, lod_tris[0], component, h, max_pieces);
    first_search[1] = std::make_unique<SideSearch>(g.positions, lod_tris[0], drawn.indices, component, h, max_pieces);
    first_task = AsyncTask(
        [this] {
          for (auto& search : first_search) search->run(g.positions, component);
        },
        options.threads);
  }

  void simplify(float max_error);
  std::vector<std::array<Side, 2>> make_sides();
  std::vector<std::vector<float>> pose_bounds(const std::vector<std::array<Side, 2>>& sides);
  Result<void> store_levels(const std::vector<std::vector<float>>& bound, LodReport& report);
};

// The levels: each about half the previous one's triangles, until the simplifier cannot remove a
// tenth of them or options.levels are made.
void LodBuilder::simplify(float max_error) {
  const std::vector<std::vector<vec3>> shape = shape_positions();
  std::vector<std::span<const vec3>> shape_spans = {g.positions};
  for (const auto& P : shape) shape_spans.emplace_back(P);
  detail::PoseSimplifier simplifier(drawn.indices, drawn.group, weld, uint32_t(weld_rep.size()), shape_spans,
                                    g.normals);
  bool seams_released = false;
  size_t previous = drawn.indices.size();
  for (uint32_t L = 1; L <= options.levels; ++L) {
    tell(kSimplified * float(L - 1) / float(options.levels));
    const size_t target_tris = (drawn.indices.size() / 3) >> L;
    if (target_tris == 0) break;
    // Seams kept first; when that stalls (a faceted mesh, every corner a seam), released for this
    // level and every later one.
    size_t left = simplifier.run(target_tris, max_error, !seams_released);
    if (!seams_released && left * 30 > previous * 9) {
      seams_released = true;
      left = simplifier.run(target_tris, max_error, false);
    }
    bool welded = seams_released;
    std::vector<std::vector<uint32_t>> per_group(g.groups.size());
    simplifier.emit(per_group);
    // Far levels: when the topology-preserving simplifier stalls (it keeps the mesh's seams and
    // its error cap), meshopt_simplifySloppy reaches the target by clustering vertices on a grid,
    // keeping one ORIGINAL vertex per cell, so the level still reads the same VAT columns. Its
    // error is large, so its screen size is small: such levels serve only instances a few pixels
    // tall, where triangle count, not shape, is what costs.
    bool sloppy = false;
    if (index_count(per_group) * 10 > previous * 9) {
      std::vector<std::vector<uint32_t>> coarse = sloppy_simplify(per_group, target_tris);
      const size_t n = index_count(coarse);
      if (n > 0 && n < index_count(per_group) && n * 10 <= previous * 9) {
        per_group = std::move(coarse);
        sloppy = true;
        welded = false;
      }
    }
    const size_t total = index_count(per_group);
    if (debug) {
      std::fprintf(stderr, "lod level %u: target %zu, got %zu triangles (welded %d, sloppy %d), simplifier error %g\n",
                   L, target_tris, total / 3, int(welded), int(sloppy), double(simplifier.error()));
    }
    // Stop when the simplifier cannot remove a tenth of the previous level's triangles.
    if (total == 0 || total * 10 > previous * 9) break;
    Level level;
    cache_order(per_group, V, g.groups, level.lod.indices, level.lod.groups);
    level.report.target_triangles = uint32_t(target_tris);
    level.report.triangles = uint32_t(total / 3);
    level.report.simplifier_error = sloppy ? 0.0f : simplifier.error();
    level.report.welded = welded;
    level.report.sloppy = sloppy;
    levels.push_back(std::move(level));
    if (levels.size() == 1) start_first_search();
    previous = total;
  }
}

// Pieces and candidates at rest, per level and direction (full mesh to level, level to full mesh).
std::vector<std::array<Side, 2>> LodBuilder::make_sides() {
  const auto [h, max_pieces] = piece_size();
  const unsigned threads = thread_count(options.threads);
  std::vector<std::array<Side, 2>> sides(levels.size());
  for (size_t l = 0; l < levels.size(); ++l) {
    if (l == 0 && first_search[0]) {  // started while the simplifier ran: every thread joins
      parallel_for(threads, 1, threads, [&](size_t, size_t) {
        for (auto& search : first_search) search->run(g.positions, component);
      });
      first_task.wait();
      for (int k = 0; k < 2; ++k) sides[0][k] = first_search[k]->finish();
      tell(kSimplified + (kSearched - kSimplified) * 2.0f / float(2 * levels.size()));
      continue;
    }
    add_lod_tris(l);
    sides[l][0] = make_side(g.positions, drawn.indices, lod_tris[l], component, h, max_pieces, threads);
    tell(kSimplified + (kSearched - kSimplified) * float(2 * l + 1) / float(2 * levels.size()));
    sides[l][1] = make_side(g.positions, lod_tris[l], drawn.indices, component, h, max_pieces, threads);
    tell(kSimplified + (kSearched - kSimplified) * float(2 * l + 2) / float(2 * levels.size()));
  }
  return sides;
}

// bound[p][l]: the bound of level l, both directions, in pose p (0 = rest, then `poses`).
std::vector<std::vector<float>> LodBuilder::pose_bounds(const std::vector<std::array<Side, 2>>& sides) {
  const unsigned threads = thread_count(options.threads);
  std::vector<std::vector<float>> bound(poses.size() + 1, std::vector<float>(levels.size(), 0.0f));
  // best[l]: the largest result of level l so far, any pose (at most its error_in_motion).
  std::vector<float> best(levels.size(), 0.0f);
  std::mutex best_mutex;
  const bool prune = options.prune_bound;
  // Each thread takes the next pose as it finishes one (poses cost unevenly: the pruning skips
  // more as the known results grow); progress is told from this thread after each of its poses.
  const size_t pose_count = poses.size() + 1;
  std::atomic<size_t> next{0}, done{0};
  const std::thread::id caller = std::this_thread::get_id();
  parallel_for(threads, 1, threads, [&](size_t, size_t) {
    std::vector<vec3> P(V);
    SideScratch scratch;
    for (size_t p; (p = next.fetch_add(1)) < pose_count;) {
      std::span<const vec3> at;
      if (p == 0) {
        at = g.positions;
      } else {
        decode_vertices(vat, poses[p - 1], 0, P);
        at = P;
      }
      // The floor (side_bound): a result already known for this pose's kind (the rest pose's
      // `error`, any pose's `error_in_motion`) at this level or a coarser-error earlier one;
      // both errors are maxima, made non-decreasing over the levels.
      float floor = 0.0f;
      for (size_t l = 0; l < levels.size(); ++l) {
        if (p > 0) {
          std::lock_guard<std::mutex> lock(best_mutex);
          floor = std::max(floor, best[l]);
        }
        const float side0 = side_bound(sides[l][0], at, scratch, prune ? floor : -1.0f);
        bound[p][l] = std::max(side0, side_bound(sides[l][1], at, scratch, prune ? std::max(floor, side0) : -1.0f));
        floor = std::max(floor, bound[p][l]);
        std::lock_guard<std::mutex> lock(best_mutex);
        best[l] = std::max(best[l], bound[p][l]);
      }
      const size_t finished = ++done;
      if (std::this_thread::get_id() == caller)
        tell(kSearched + (1.0f - kSearched) * float(finished) / float(pose_count));
    }
  });
  tell(1.0f);
  return bound;
}

// Each level's errors (never below the previous level's) and screen size, into the geometry and
// the report.
Result<void> LodBuilder::store_levels(const std::vector<std::vector<float>>& bound, LodReport& report) {
  const float radius = lod_sphere_radius(vat);
  for (size_t l = 0; l < levels.size(); ++l) {
    LodLevel& lod = levels[l].lod;
    lod.error = bound[0][l];
    lod.error_in_motion = lod.error;
    for (size_t p = 1; p < bound.size(); ++p) lod.error_in_motion = std::max(lod.error_in_motion, bound[p][l]);
    if (l > 0) {
      lod.error = std::max(lod.error, levels[l - 1].lod.error);
      lod.error_in_motion = std::max(lod.error_in_motion, levels[l - 1].lod.error_in_motion);
    }
    if (!std::isfinite(lod.error_in_motion)) {
      return make_error(
          ErrorCode::Limit, vat.source,
          "level of detail " + std::to_string(l + 1) + ": error not finite (" + fmt("%g", lod.error_in_motion) + ")");
    }
    lod.screen_size = lod_screen_size(radius, lod.error_in_motion);
    levels[l].report.error = lod.error;
    levels[l].report.error_in_motion = lod.error_in_motion;
    report.levels.push_back(levels[l].report);
    g.lods.push_back(std::move(lod));
  }
  return {};
}

}  // namespace

Result<LodReport> build_lods(Vat& vat, const LodOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  VatGeometry& g = vat.geometry;
  const size_t V = g.vertex_count();
  LodReport report;
  g.lods.clear();
  if (V == 0 || g.groups.empty()) return report;

  if (options.order_full_mesh) {
    std::vector<uint32_t> ordered = detail::vertex_cache_order(g.indices, g.groups, V);
    if (!ordered.empty()) g.indices = std::move(ordered);
  }
  for (const DrawGroup& grp : g.groups) report.full_triangles += grp.index_count / 3;
  if (options.levels == 0 || report.full_triangles == 0) return report;
  LodBuilder lb{vat, g, options, V, t0, drawn_triangles(g)};
  report.scale = meshopt_simplifyScale(&g.positions[0].x, V, sizeof(vec3));
  lb.weld_vertices();
  lb.choose_poses();
  lb.simplify(options.max_relative_error * report.scale);
  if (lb.levels.empty()) {
    report.seconds = lb.elapsed();
    lb.tell(1.0f);
    return report;
  }
  lb.tell(LodBuilder::kSimplified);
  if (lb.debug) std::fprintf(stderr, "lod %s: simplified in %.3f s\n", vat.source.c_str(), lb.elapsed());
  const std::vector<std::array<Side, 2>> sides = lb.make_sides();
  for (const auto& sd : sides) report.pieces += sd[0].pieces.size() + sd[1].pieces.size();
  if (lb.debug)
    std::fprintf(stderr, "lod: %llu pieces, candidates found at %.3f s\n", (unsigned long long)report.pieces,
                 lb.elapsed());
  report.poses = uint32_t(lb.poses.size());
  const std::vector<std::vector<float>> bound = lb.pose_bounds(sides);
  if (lb.debug) std::fprintf(stderr, "lod: %zu poses measured at %.3f s\n", lb.poses.size(), lb.elapsed());
  if (auto stored = lb.store_levels(bound, report); !stored) return stored.error();
  report.seconds = lb.elapsed();
  return report;
}

}  // namespace vatkit

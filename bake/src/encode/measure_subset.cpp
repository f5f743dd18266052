// A few of a VAT's vertices that stand for all of them in the frame-rate search's tries
// (bake.cpp's RowSearch): the source cut to those vertices and the VAT cut alike, so that
// measure_clips on the pair measures exactly those vertices' errors, each the same number the
// whole measurement gives it (the skinner and the decode work vertex by vertex). The subset's
// error is therefore a lower bound of the whole's: a rate that fails on the subset fails, and
// only a pass needs the whole measurement to confirm it.
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <unordered_map>

#include "decode/codec.h"
#include "encode/bake_internal.h"

namespace vatkit::detail {
namespace {

// Seven directions: the axes and the four diagonals; their minimum and maximum are 14 extremes.
constexpr int kDirections = 7;
inline std::array<float, kDirections> projections(const glm::vec3& p) {
  return {p.x, p.y, p.z, p.x + p.y + p.z, p.x + p.y - p.z, p.x - p.y + p.z, -p.x + p.y + p.z};
}

// The extremes of one group of vertices (those one joint moves most) and its most blended vertex.
struct Extremes {
  std::array<float, kDirections> lo, hi;
  std::array<uint32_t, kDirections> ilo{}, ihi{};
  float least_weight = 2.0f;
  uint32_t blended = 0;
  bool any = false;

  void add(uint32_t v, const glm::vec3& p, float dominant_weight) {
    const auto d = projections(p);
    for (int k = 0; k < kDirections; ++k) {
      if (!any || d[k] < lo[k]) lo[k] = d[k], ilo[k] = v;
      if (!any || d[k] > hi[k]) hi[k] = d[k], ihi[k] = v;
    }
    if (dominant_weight < least_weight) least_weight = dominant_weight, blended = v;
    any = true;
  }
};

// The joint that weighs most on vertex v (0 for a primitive without a skin) and its weight.
std::pair<uint32_t, float> dominant(const Primitive& p, uint32_t v) {
  uint32_t joint = 0;
  float best = -1.0f;
  for (int set = 0; set < 2; ++set) {
    const auto& j = set ? p.joints1 : p.joints0;
    const auto& w = set ? p.weights1 : p.weights0;
    if (j.empty() || w.empty()) continue;
    for (int k = 0; k < 4; ++k)
      if (w[v][k] > best) best = w[v][k], joint = j[v][k];
  }
  return {joint, best};
}

// The vertices of one primitive that the search measures: for each joint, the vertices it moves
// most that lie furthest along the 14 directions (the longest lever arms, which move fastest) and
// the most blended one; for each morph target, the vertex it moves furthest; and every
// `stride`-th vertex. Ascending.
std::vector<uint32_t> pick_vertices(const Primitive& p, uint32_t stride) {
  std::map<uint32_t, Extremes> groups;
  for (uint32_t v = 0; v < p.vertex_count(); ++v) {
    const auto [joint, weight] = dominant(p, v);
    groups[joint].add(v, p.positions[v], weight);
  }
  std::vector<uint32_t> out;
  for (const auto& [joint, g] : groups) {
    out.insert(out.end(), g.ilo.begin(), g.ilo.end());
    out.insert(out.end(), g.ihi.begin(), g.ihi.end());
    out.push_back(g.blended);
  }
  for (const MorphTarget& t : p.targets) {
    uint32_t far = 0;
    for (uint32_t v = 0; v < t.positions.size(); ++v)
      if (glm::dot(t.positions[v], t.positions[v]) > glm::dot(t.positions[far], t.positions[far])) far = v;
    if (!t.positions.empty()) out.push_back(far);
  }
  for (uint32_t v = 0; v < p.vertex_count(); v += stride) out.push_back(v);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

template <class T>
void keep_only(std::vector<T>& values, const std::vector<uint32_t>& kept) {
  if (values.empty()) return;
  std::vector<T> out;
  out.reserve(kept.size());
  for (uint32_t v : kept) out.push_back(values[v]);
  values = std::move(out);
}

// The primitive with only the vertices `kept` (what skinning reads; no triangles).
Primitive cut_primitive(const Primitive& p, const std::vector<uint32_t>& kept) {
  Primitive out;
  out.positions = p.positions, out.normals = p.normals, out.tangents = p.tangents;
  out.joints0 = p.joints0, out.joints1 = p.joints1, out.weights0 = p.weights0, out.weights1 = p.weights1;
  out.targets = p.targets;
  out.material = p.material;
  for (auto* v : {&out.positions, &out.normals}) keep_only(*v, kept);
  keep_only(out.tangents, kept);
  keep_only(out.joints0, kept), keep_only(out.joints1, kept);
  keep_only(out.weights0, kept), keep_only(out.weights1, kept);
  for (MorphTarget& t : out.targets) {
    for (auto* v : {&t.positions, &t.normals, &t.tangents}) keep_only(*v, kept);
  }
  out.source_vertex_count = uint32_t(kept.size());
  return out;
}

// The source as the skinner sees it, each primitive in `kept` cut to those vertices.
Asset cut_asset(const Asset& source, const std::map<std::array<uint32_t, 2>, std::vector<uint32_t>>& kept) {
  Asset out;
  out.source = source.source;
  out.nodes = source.nodes, out.skins = source.skins, out.animations = source.animations;
  out.scenes = source.scenes, out.default_scene = source.default_scene;
  out.node_order = source.node_order, out.roots = source.roots, out.weight_count = source.weight_count;
  out.meshes.resize(source.meshes.size());
  for (size_t m = 0; m < source.meshes.size(); ++m) {
    out.meshes[m].name = source.meshes[m].name;
    out.meshes[m].weights = source.meshes[m].weights;
    for (uint32_t k = 0; k < source.meshes[m].primitives.size(); ++k) {
      const auto it = kept.find({uint32_t(m), k});
      const Primitive& p = source.meshes[m].primitives[k];
      out.meshes[m].primitives.push_back(it == kept.end() ? p : cut_primitive(p, it->second));
    }
  }
  out.instances = source.instances;
  uint32_t first = 0;
  for (MeshInstance& inst : out.instances) {
    inst.first_vertex = first;
    inst.vertex_count = out.meshes[inst.mesh].primitives[inst.primitive].vertex_count();
    first += inst.vertex_count;
  }
  out.instance_vertex_count = first;
  return out;
}

// The geometry with only the subset's vertices (no triangles); the kept vertices' indices in it
// into `vertices`, in its merged order.
VatGeometry cut_geometry(const VatGeometry& whole, const VertexSubset& subset, std::vector<uint32_t>& vertices) {
  VatGeometry g = whole;
  g.sources.clear();
  for (size_t s = 0; s < whole.sources.size(); ++s) {
    SourceRange r = whole.sources[s];
    for (uint32_t v : subset.kept[s]) vertices.push_back(r.first_vertex + v);
    r.first_vertex = uint32_t(vertices.size() - subset.kept[s].size());
    r.vertex_count = r.source_vertex_count = uint32_t(subset.kept[s].size());
    g.sources.push_back(r);
  }
  for (auto* v : {&g.positions, &g.normals, &g.bind_positions, &g.bind_normals}) keep_only(*v, vertices);
  for (auto* v : {&g.tangents, &g.bind_tangents, &g.slot_weights0, &g.slot_weights1}) keep_only(*v, vertices);
  keep_only(g.texcoords0, vertices), keep_only(g.colors0, vertices);
  keep_only(g.slots0, vertices), keep_only(g.slots1, vertices);
  g.indices.clear(), g.groups.clear(), g.lods.clear();
  return g;
}

}  // namespace

std::optional<VertexSubset> choose_vertex_subset(const Asset& source, const VatGeometry& geometry, uint32_t spread) {
  std::map<std::array<uint32_t, 2>, std::vector<uint32_t>> kept;
  uint64_t whole = 0;
  for (const SourceRange& s : geometry.sources) whole += s.vertex_count;
  const uint32_t stride = uint32_t(std::max<uint64_t>(1, whole / std::max(spread, 1u)));
  for (const SourceRange& s : geometry.sources) {
    if (s.mesh >= source.meshes.size() || s.primitive >= source.meshes[s.mesh].primitives.size()) return std::nullopt;
    const Primitive& p = source.meshes[s.mesh].primitives[s.primitive];
    if (p.vertex_count() != s.vertex_count) return std::nullopt;  // measure_clips says why
    if (!kept.count({s.mesh, s.primitive})) kept[{s.mesh, s.primitive}] = pick_vertices(p, stride);
  }
  VertexSubset out;
  for (const SourceRange& s : geometry.sources) {
    out.kept.push_back(kept[{s.mesh, s.primitive}]);
    out.count += uint32_t(out.kept.back().size());
  }
  out.whole = uint32_t(whole);
  out.asset = cut_asset(source, kept);
  return out;
}

BakeSetup subset_setup(const BakeSetup& whole, const VertexSubset& subset) {
  BakeSetup out;
  out.asset = &subset.asset;
  out.options = whole.options;
  out.threads = whole.threads;
  out.name = whole.name;
  std::vector<uint32_t> vertices;
  out.rest = cut_geometry(whole.rest, subset, vertices);
  out.rest_world = whole.rest_world;
  out.tangents = whole.tangents;
  out.joint_slots = whole.joint_slots;
  return out;
}

Vat subset_vat(const Vat& vat, const VertexSubset& subset) {
  std::vector<uint32_t> vertices;  // the kept vertices in the VAT's merged order
  Vat out = vat;
  out.geometry = cut_geometry(vat.geometry, subset, vertices);
  // The per-vertex planes, texel by texel into planes one frame row high; their own storage.
  auto bytes = std::make_shared<std::vector<std::vector<uint8_t>>>();
  for (Plane& p : out.planes) {
    if (p.semantic == PlaneSemantic::Slots) continue;
    const uint32_t tb = texel_bytes(p.format);
    std::vector<uint8_t>& data = bytes->emplace_back(size_t(vertices.size()) * vat.frame_rows * tb + 16);
    uint8_t* base = data.data() + (16 - reinterpret_cast<uintptr_t>(data.data()) % 16) % 16;
    for (uint32_t row = 0; row < vat.frame_rows; ++row)
      for (size_t i = 0; i < vertices.size(); ++i)
        std::memcpy(base + (size_t(row) * vertices.size() + i) * tb,
                    p.data.data() + codec::texel_index(p, row, vertices[i]) * tb, tb);
    p.texels_per_frame = p.width = uint32_t(vertices.size());
    p.rows_per_frame = 1;
    p.height = vat.frame_rows;
    p.data = std::span<const uint8_t>(base, size_t(vertices.size()) * vat.frame_rows * tb);
  }
  out.storage = std::make_shared<std::pair<std::shared_ptr<const void>, decltype(bytes)>>(vat.storage, bytes);
  return out;
}

}  // namespace vatkit::detail

// What every imported Asset promises (asset.h), checked exhaustively: used by the importer's tests
// on every real file and by the fuzzer on every input that imports.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "vatkit/asset.h"

namespace vatkit::test {

// Returns "" when every invariant holds, else the first violation.
inline std::string asset_invariant_violation(const Asset& a) {
  auto finite3 = [](const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
  auto finite4 = [](const glm::vec4& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
  };
  const size_t node_count = a.nodes.size();
  for (size_t i = 0; i < node_count; ++i) {
    const Node& n = a.nodes[i];
    const std::string where = "nodes[" + std::to_string(i) + "]";
    if (n.parent >= static_cast<int>(node_count)) return where + ": parent out of range";
    for (uint32_t c : n.children) {
      if (c >= node_count) return where + ": child out of range";
      if (a.nodes[c].parent != static_cast<int>(i)) return where + ": child's parent is not this node";
    }
    if (n.mesh >= static_cast<int>(a.meshes.size())) return where + ": mesh out of range";
    if (n.skin >= static_cast<int>(a.skins.size())) return where + ": skin out of range";
    if (n.skin >= 0 && n.mesh < 0) return where + ": skin without mesh";
    const uint32_t targets =
        n.mesh >= 0 ? static_cast<uint32_t>(a.meshes[static_cast<size_t>(n.mesh)].weights.size()) : 0;
    if (n.weights_count != targets) return where + ": weights_count is not the mesh's target count";
    if (uint64_t{n.weights_offset} + n.weights_count > a.weight_count) return where + ": weights past weight_count";
    if (!n.weights.empty() && n.weights.size() != targets) return where + ": node weights size";
    if (!finite3(n.translation) || !finite3(n.scale) || !std::isfinite(n.rotation.w)) return where + ": non-finite TRS";
  }
  // node_order: a permutation, parents first.
  if (a.node_order.size() != node_count) return "node_order size";
  std::vector<int> position(node_count, -1);
  for (size_t k = 0; k < a.node_order.size(); ++k) {
    const uint32_t v = a.node_order[k];
    if (v >= node_count || position[v] >= 0) return "node_order is not a permutation";
    position[v] = static_cast<int>(k);
  }
  for (size_t i = 0; i < node_count; ++i)
    if (a.nodes[i].parent >= 0 && position[static_cast<size_t>(a.nodes[i].parent)] > position[i])
      return "node_order: child before parent";
  for (uint32_t r : a.roots)
    if (r >= node_count || a.nodes[r].parent != -1) return "roots: not a root";
  if (a.default_scene >= static_cast<int>(a.scenes.size())) return "default_scene out of range";

  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const Mesh& mesh = a.meshes[m];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      const std::string where = "meshes[" + std::to_string(m) + "].primitives[" + std::to_string(p) + "]";
      const size_t n = prim.vertex_count();
      if (prim.normals.size() != n) return where + ": normals missing";
      auto sized = [&](size_t s) { return s == 0 || s == n; };
      if (!sized(prim.tangents.size()) || !sized(prim.texcoords0.size()) || !sized(prim.texcoords1.size()) ||
          !sized(prim.colors0.size()) || !sized(prim.joints0.size()) || !sized(prim.joints1.size()) ||
          !sized(prim.weights0.size()) || !sized(prim.weights1.size()))
        return where + ": attribute size";
      if (prim.joints0.empty() != prim.weights0.empty() || prim.joints1.empty() != prim.weights1.empty())
        return where + ": joints without weights";
      if (!prim.joints1.empty() && prim.joints0.empty()) return where + ": JOINTS_1 without JOINTS_0";
      if (prim.indices.size() % 3) return where + ": indices not a multiple of 3";
      for (uint32_t i : prim.indices)
        if (i >= n) return where + ": index out of range";
      if (prim.source_vertex_count + prim.copy_source.size() != n) return where + ": copy layout";
      for (size_t c = 0; c < prim.copy_source.size(); ++c) {
        if (prim.copy_source[c] >= prim.source_vertex_count) return where + ": copy_source out of range";
        if (prim.positions[prim.source_vertex_count + c] != prim.positions[prim.copy_source[c]])
          return where + ": copy differs";
      }
      if (!prim.copy_source.empty() && !prim.normals_generated) return where + ": copies without generated normals";
      for (size_t v = 0; v < n; ++v) {
        if (!finite3(prim.positions[v]) || !finite3(prim.normals[v])) return where + ": non-finite position or normal";
        if (!prim.weights0.empty() && !finite4(prim.weights0[v])) return where + ": non-finite weight";
      }
      if (prim.material >= static_cast<int>(a.materials.size())) return where + ": material out of range";
      if (prim.targets.size() != mesh.weights.size()) return where + ": target count differs from mesh weights";
      for (const MorphTarget& t : prim.targets)
        if (!sized(t.positions.size()) || !sized(t.normals.size()) || !sized(t.tangents.size()))
          return where + ": morph target size";
    }
  }
  for (size_t i = 0; i < node_count; ++i) {
    const Node& n = a.nodes[i];
    if (n.skin < 0) continue;
    const size_t joints = a.skins[static_cast<size_t>(n.skin)].joints.size();
    for (const Primitive& prim : a.meshes[static_cast<size_t>(n.mesh)].primitives) {
      if (prim.joints0.empty()) return "skinned node without JOINTS_0";
      for (const auto& j : prim.joints0)
        for (int k = 0; k < 4; ++k)
          if (j[k] >= joints) return "joint index out of range";
      for (const auto& j : prim.joints1)
        for (int k = 0; k < 4; ++k)
          if (j[k] >= joints) return "joint index out of range";
    }
  }
  for (const Skin& s : a.skins) {
    if (s.inverse_bind.size() != s.joints.size()) return "inverse_bind size";
    for (uint32_t j : s.joints)
      if (j >= node_count) return "skin joint out of range";
  }
  for (size_t c = 0; c < a.animations.size(); ++c) {
    const Animation& anim = a.animations[c];
    const std::string where = "animations[" + std::to_string(c) + "]";
    for (const Sampler& s : anim.samplers) {
      if (s.times.empty()) return where + ": sampler without keys";
      for (size_t k = 0; k < s.times.size(); ++k) {
        if (!std::isfinite(s.times[k]) || s.times[k] < 0) return where + ": bad time";
        if (k && !(s.times[k] > s.times[k - 1])) return where + ": times not increasing";
        if (s.times[k] < anim.start_s || s.times[k] > anim.end_s) return where + ": time outside start/end";
      }
      const size_t per_key = s.interpolation == Interpolation::CubicSpline ? 3 : 1;
      if (s.components == 0 || s.values.size() != s.times.size() * per_key * s.components)
        return where + ": values size";
      for (float v : s.values)
        if (!std::isfinite(v)) return where + ": non-finite value";
    }
    for (const Channel& ch : anim.channels) {
      if (ch.node >= node_count || ch.sampler >= anim.samplers.size()) return where + ": channel out of range";
      const Sampler& s = anim.samplers[ch.sampler];
      const Node& n = a.nodes[ch.node];
      if (n.has_matrix) return where + ": animates a matrix node";
      const uint32_t expected = ch.path == Path::Rotation ? 4u : ch.path == Path::Weights ? n.weights_count : 3u;
      if (s.components != expected) return where + ": channel components";
    }
  }
  for (const Material& m : a.materials)
    if (m.base_color_image >= static_cast<int>(a.images.size())) return "material image out of range";
  uint64_t vertices = 0;
  for (const MeshInstance& inst : a.instances) {
    if (inst.node >= node_count || a.nodes[inst.node].mesh != static_cast<int>(inst.mesh)) return "instance node/mesh";
    if (inst.primitive >= a.meshes[inst.mesh].primitives.size()) return "instance primitive";
    if (inst.first_vertex != vertices) return "instance first_vertex";
    if (inst.vertex_count != a.meshes[inst.mesh].primitives[inst.primitive].vertex_count())
      return "instance vertex_count";
    vertices += inst.vertex_count;
  }
  if (vertices != a.instance_vertex_count) return "instance_vertex_count";
  return "";
}

}  // namespace vatkit::test

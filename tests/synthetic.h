// Hand-built Assets for the sampling, skinning and scene tests (no importer involved).
//
// finalize() fills what the importer would derive (children, node_order, roots, morph weight
// slots, instances in canonical order), so a test only writes nodes, meshes, skins and clips.
#pragma once

#include <functional>
#include <vector>

#include "vatkit/asset.h"

namespace vatkit::test {

inline void finalize(Asset& a) {
  for (auto& n : a.nodes) n.children.clear();
  a.roots.clear();
  for (uint32_t i = 0; i < a.nodes.size(); ++i) {
    if (a.nodes[i].parent >= 0) {
      a.nodes[size_t(a.nodes[i].parent)].children.push_back(i);
    } else {
      a.roots.push_back(i);
    }
  }
  a.node_order.clear();
  a.instances.clear();
  a.weight_count = 0;
  for (auto& n : a.nodes) {
    n.weights_offset = a.weight_count;
    n.weights_count = n.mesh >= 0 ? uint32_t(a.meshes[size_t(n.mesh)].weights.size()) : 0u;
    a.weight_count += n.weights_count;
  }
  uint32_t first = 0;
  std::function<void(uint32_t)> visit = [&](uint32_t i) {
    a.node_order.push_back(i);
    const Node& n = a.nodes[i];
    if (n.mesh >= 0) {
      const Mesh& m = a.meshes[size_t(n.mesh)];
      for (uint32_t p = 0; p < m.primitives.size(); ++p) {
        const uint32_t count = m.primitives[p].vertex_count();
        a.instances.push_back(MeshInstance{i, uint32_t(n.mesh), p, first, count});
        first += count;
      }
    }
    for (uint32_t c : n.children) visit(c);
  };
  for (uint32_t r : a.roots) visit(r);
  a.instance_vertex_count = first;
  for (auto& mesh : a.meshes) {
    for (auto& p : mesh.primitives) p.source_vertex_count = p.vertex_count();
  }
  for (auto& anim : a.animations) {
    anim.start_s = 1e30f;
    anim.end_s = 0.0f;
    for (auto& s : anim.samplers) {
      anim.start_s = std::min(anim.start_s, s.times.front());
      anim.end_s = std::max(anim.end_s, s.times.back());
    }
  }
}

inline Sampler make_sampler(Interpolation interpolation, std::vector<float> times, std::vector<float> values,
                            uint32_t components) {
  Sampler s;
  s.interpolation = interpolation;
  s.times = std::move(times);
  s.values = std::move(values);
  s.components = components;
  return s;
}

// Adds a sampler and a channel driving `node`'s `path` to `anim`.
inline void add_channel(Animation& anim, uint32_t node, Path path, Sampler sampler) {
  anim.channels.push_back(Channel{node, path, uint32_t(anim.samplers.size())});
  anim.samplers.push_back(std::move(sampler));
}

// Eight joints in a row along +X; one skinned triangle whose vertices weigh all eight (JOINTS_0/1,
// WEIGHTS_0/1), and a clip "wave" turning joints 4-7 about Z: the eight-influence paths of the
// bake, the decoders and the shaders.
inline Asset eight_influence_asset() {
  Asset a;
  a.source = "eight.gltf";
  for (int j = 0; j < 8; ++j) {
    Node n;
    n.name = "j" + std::to_string(j);
    n.translation = glm::vec3(float(j), 0, 0);
    a.nodes.push_back(n);
  }
  Node m;
  m.mesh = 0;
  m.skin = 0;
  a.nodes.push_back(m);
  Mesh mesh;
  Primitive p;
  p.positions = {glm::vec3(0, 1, 0), glm::vec3(1, 1, 0), glm::vec3(0, 2, 0)};
  p.normals.assign(3, glm::vec3(0, 0, 1));
  p.joints0.assign(3, glm::u16vec4(0, 1, 2, 3));
  p.joints1.assign(3, glm::u16vec4(4, 5, 6, 7));
  p.weights0.assign(3, glm::vec4(0.1f, 0.1f, 0.1f, 0.1f));
  p.weights1.assign(3, glm::vec4(0.05f, 0.15f, 0.2f, 0.2f));
  p.indices = {0, 1, 2};
  mesh.primitives.push_back(p);
  a.meshes.push_back(mesh);
  Skin s;
  for (uint32_t j = 0; j < 8; ++j) {
    s.joints.push_back(j);
    s.inverse_bind.push_back(glm::inverse(glm::translate(glm::mat4(1.0f), glm::vec3(float(j), 0, 0))));
  }
  a.skins.push_back(s);
  Animation anim;
  anim.name = "wave";
  for (uint32_t j = 4; j < 8; ++j) {
    const glm::quat q = glm::angleAxis(0.3f * float(j), glm::vec3(0, 0, 1));
    add_channel(anim, j, Path::Rotation,
                make_sampler(Interpolation::Linear, {0.0f, 1.0f}, {0, 0, 0, 1, q.x, q.y, q.z, q.w}, 4));
  }
  a.animations.push_back(anim);
  finalize(a);
  return a;
}

}  // namespace vatkit::test

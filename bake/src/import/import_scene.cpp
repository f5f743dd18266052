// Nodes, scenes, skins, animations, materials, and the derived tables of an Asset (node order,
// morph weight offsets, mesh instances in canonical order).
#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/gtc/type_ptr.hpp>

#include "import/import_internal.h"
#include "file/material_rules.h"

namespace vatkit::import_detail {
namespace {

std::string does_not_exist(const char* what, int index, size_t size) {
  const std::string noun(what);
  const std::string plural = noun.back() == 'h' || noun.back() == 's' ? noun + "es" : noun + "s";
  return noun + " " + std::to_string(index) + " does not exist (the file has " + std::to_string(size) + " " + plural +
         ")";
}

std::string node_name(size_t i) { return indexed("nodes", i); }

[[noreturn]] void fail_cycle(const Asset& asset, size_t start) {
  // Walk up the parents from a node no root reaches: the walk must enter a cycle.
  std::vector<char> seen(asset.nodes.size(), 0);
  size_t v = start;
  while (!seen[v]) {
    seen[v] = 1;
    v = static_cast<size_t>(asset.nodes[v].parent);
  }
  std::vector<size_t> cycle{v};
  for (size_t u = static_cast<size_t>(asset.nodes[v].parent); u != v; u = static_cast<size_t>(asset.nodes[u].parent))
    cycle.push_back(u);
  std::reverse(cycle.begin(), cycle.end());  // parent before child
  std::string chain;
  for (size_t u : cycle) chain += node_name(u) + " -> ";
  chain += node_name(cycle.front());
  fail(node_name(cycle.front()), "is part of a cycle in the node graph: " + chain);
}

}  // namespace

namespace {

// Node i into ctx.asset.nodes[i]: its mesh and skin checked, its transform (a matrix, or
// translation, rotation and scale), its children linked to it as their one parent.
void convert_node(Context& ctx, size_t i) {
  const auto& nodes = ctx.model.nodes;
  Asset& asset = ctx.asset;
  const size_t count = nodes.size();
  const tinygltf::Node& in = nodes[i];
  Node& out = asset.nodes[i];
  const std::string path = node_name(i);
  out.name = in.name;
  if (in.mesh >= 0) {
    if (!in_range(in.mesh, ctx.model.meshes.size()))
      fail(path + ".mesh", does_not_exist("mesh", in.mesh, ctx.model.meshes.size()));
    out.mesh = in.mesh;
  }
  if (in.skin >= 0) {
    if (!in_range(in.skin, ctx.model.skins.size()))
      fail(path + ".skin", does_not_exist("skin", in.skin, ctx.model.skins.size()));
    out.skin = in.skin;
  }
  if (in.matrix.size() == 16) {
    out.has_matrix = true;
    float m[16];
    for (int k = 0; k < 16; ++k) m[k] = static_cast<float>(in.matrix[static_cast<size_t>(k)]);
    out.matrix = glm::make_mat4(m);  // glTF and glm are both column-major
    if (!in.translation.empty() || !in.rotation.empty() || !in.scale.empty())
      ctx.warn(path + ": has both matrix and translation/rotation/scale; the matrix is used");
  } else {
    if (in.translation.size() == 3)
      out.translation = glm::vec3(in.translation[0], in.translation[1], in.translation[2]);
    if (in.rotation.size() == 4)  // glTF (x, y, z, w); glm::quat(w, x, y, z)
      out.rotation = glm::quat(static_cast<float>(in.rotation[3]), static_cast<float>(in.rotation[0]),
                               static_cast<float>(in.rotation[1]), static_cast<float>(in.rotation[2]));
    if (in.scale.size() == 3) out.scale = glm::vec3(in.scale[0], in.scale[1], in.scale[2]);
  }
  out.weights.assign(in.weights.begin(), in.weights.end());
  out.children.reserve(in.children.size());
  for (size_t k = 0; k < in.children.size(); ++k) {
    const int c = in.children[k];
    const std::string where = path + ".children[" + std::to_string(k) + "]";
    if (!in_range(c, count)) fail(where, does_not_exist("node", c, count));
    const size_t child = static_cast<size_t>(c);
    if (child == i) fail(where, path + " cannot be its own child (a cycle in the node graph)");
    const int parent = asset.nodes[child].parent;
    if (parent == static_cast<int>(i)) fail(where, node_name(child) + " is listed twice");
    if (parent >= 0)
      fail(node_name(child), "has two parents, " + node_name(static_cast<size_t>(parent)) + " and " + path);
    asset.nodes[child].parent = static_cast<int32_t>(i);
    out.children.push_back(static_cast<uint32_t>(child));
  }
}

// asset.node_order: parents before children, depth-first pre-order from every root, children in
// file order. A node that no root reaches sits on a cycle (every node has at most one parent by
// now): an error naming it.
void order_nodes(Asset& asset) {
  const size_t count = asset.nodes.size();
  asset.node_order.clear();
  asset.node_order.reserve(count);
  std::vector<uint32_t> stack;
  for (size_t r = 0; r < count; ++r) {
    if (asset.nodes[r].parent >= 0) continue;
    stack.push_back(static_cast<uint32_t>(r));
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      asset.node_order.push_back(v);
      const auto& children = asset.nodes[v].children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
  }
  if (asset.node_order.size() != count) {
    std::vector<char> placed(count, 0);
    for (uint32_t v : asset.node_order) placed[v] = 1;
    for (size_t i = 0; i < count; ++i)
      if (!placed[i]) fail_cycle(asset, i);
  }
}

// The scenes, their roots, the default scene and the roots the asset is drawn from.
void convert_scenes(Context& ctx) {
  Asset& asset = ctx.asset;
  const size_t count = asset.nodes.size();
  const auto& scenes = ctx.model.scenes;
  asset.scenes.resize(scenes.size());
  std::vector<size_t> listed_in(count, std::numeric_limits<size_t>::max());
  for (size_t s = 0; s < scenes.size(); ++s) {
    const std::string path = indexed("scenes", s);
    asset.scenes[s].name = scenes[s].name;
    for (size_t k = 0; k < scenes[s].nodes.size(); ++k) {
      const int v = scenes[s].nodes[k];
      const std::string where = path + ".nodes[" + std::to_string(k) + "]";
      if (!in_range(v, count)) fail(where, does_not_exist("node", v, count));
      const size_t node = static_cast<size_t>(v);
      if (asset.nodes[node].parent >= 0)
        fail(where, node_name(node) + " is not a root: it is a child of " +
                        node_name(static_cast<size_t>(asset.nodes[node].parent)));
      if (listed_in[node] == s) fail(where, node_name(node) + " is listed twice");
      listed_in[node] = s;
      asset.scenes[s].roots.push_back(static_cast<uint32_t>(node));
    }
  }
  if (ctx.model.defaultScene >= 0) {
    if (!in_range(ctx.model.defaultScene, scenes.size()))
      fail("scene", does_not_exist("scene", ctx.model.defaultScene, scenes.size()));
    asset.default_scene = ctx.model.defaultScene;
  } else {
    asset.default_scene = scenes.empty() ? -1 : 0;
  }
  asset.roots.clear();
  if (asset.default_scene >= 0) {
    asset.roots = asset.scenes[static_cast<size_t>(asset.default_scene)].roots;
  } else {
    for (size_t i = 0; i < count; ++i)
      if (asset.nodes[i].parent < 0) asset.roots.push_back(static_cast<uint32_t>(i));
  }
}

}  // namespace

void convert_nodes_and_scenes(Context& ctx) {
  ctx.asset.nodes.resize(ctx.model.nodes.size());
  for (size_t i = 0; i < ctx.model.nodes.size(); ++i) convert_node(ctx, i);
  order_nodes(ctx.asset);
  convert_scenes(ctx);
}

void convert_skins(Context& ctx) {
  const auto& skins = ctx.model.skins;
  const size_t node_count = ctx.asset.nodes.size();
  ctx.asset.skins.resize(skins.size());
  for (size_t s = 0; s < skins.size(); ++s) {
    const tinygltf::Skin& in = skins[s];
    Skin& out = ctx.asset.skins[s];
    const std::string path = indexed("skins", s);
    out.name = in.name;
    out.joints.reserve(in.joints.size());
    for (size_t k = 0; k < in.joints.size(); ++k) {
      if (!in_range(in.joints[k], node_count))
        fail(path + ".joints[" + std::to_string(k) + "]", does_not_exist("node", in.joints[k], node_count));
      out.joints.push_back(static_cast<uint32_t>(in.joints[k]));
    }
    if (in.skeleton >= 0) {
      if (!in_range(in.skeleton, node_count)) fail(path + ".skeleton", does_not_exist("node", in.skeleton, node_count));
      out.skeleton = in.skeleton;
    }
    const size_t joints = out.joints.size();
    if (in.inverseBindMatrices >= 0) {
      const std::string where = path + ".inverseBindMatrices";
      FloatRead r = read_floats(ctx, in.inverseBindMatrices, where, kMat4, kF32, 0, true);
      if (r.count < joints)
        fail(where, indexed("accessors", static_cast<size_t>(in.inverseBindMatrices)) + " has " +
                        std::to_string(r.count) + " matrices, but the skin has " + std::to_string(joints) + " joints");
      if (r.count > joints)
        ctx.warn(where + ": " + std::to_string(r.count) + " matrices for " + std::to_string(joints) +
                 " joints; the extra ones ignored");
      out.inverse_bind.resize(joints);
      for (size_t j = 0; j < joints; ++j) out.inverse_bind[j] = glm::make_mat4(&r.values[j * 16]);
    } else {
      out.inverse_bind.assign(joints, glm::mat4(1.0f));
    }
  }
}

namespace {

// What each sampler feeds: it decides the output's element size and allowed types.
struct SamplerUse {
  bool used = false;
  Path path = Path::Translation;
  uint32_t components = 0;
  size_t channel = 0;
};

constexpr uint32_t kIntegers = kI8 | kI8N | kU8 | kU8N | kI16 | kI16N | kU16 | kU16N;
constexpr uint32_t kNormalized = kI8N | kU8N | kI16N | kU16N;

// Animation `a`'s channels into `out`: targets checked, each sampler's use recorded (a sampler
// shared by channels must feed one kind of value), channels that animate the same node and path
// warned about.
std::vector<SamplerUse> convert_channels(Context& ctx, size_t a, const tinygltf::Animation& in, Animation& out) {
  const Asset& asset = ctx.asset;
  const std::string path = indexed("animations", a);
  std::vector<SamplerUse> usage(in.samplers.size());
  out.channels.reserve(in.channels.size());
  std::vector<std::pair<uint64_t, size_t>> targets;  // (node << 2 | path, file channel)
  for (size_t c = 0; c < in.channels.size(); ++c) {
    const tinygltf::AnimationChannel& ch = in.channels[c];
    const size_t file_channel = ctx.channel_sources[a][c];
    const std::string cpath = path + ".channels[" + std::to_string(file_channel) + "]";
    if (!in_range(ch.sampler, in.samplers.size()))
      fail(cpath + ".sampler", does_not_exist("sampler", ch.sampler, in.samplers.size()));
    if (!in_range(ch.target_node, asset.nodes.size()))
      fail(cpath + ".target.node", does_not_exist("node", ch.target_node, asset.nodes.size()));
    const size_t node = static_cast<size_t>(ch.target_node);
    Channel channel;
    channel.node = static_cast<uint32_t>(node);
    channel.sampler = static_cast<uint32_t>(ch.sampler);
    uint32_t components = 3;
    if (ch.target_path == "translation")
      channel.path = Path::Translation;
    else if (ch.target_path == "rotation")
      channel.path = Path::Rotation, components = 4;
    else if (ch.target_path == "scale")
      channel.path = Path::Scale;
    else
      channel.path = Path::Weights;  // the shape pass kept only these four
    if (asset.nodes[node].has_matrix)
      fail(cpath, "animates " + node_name(node) + ", which is given as a matrix (the spec forbids animating those)");
    if (channel.path == Path::Weights) {
      const int mesh = asset.nodes[node].mesh;
      components = mesh >= 0 ? static_cast<uint32_t>(asset.meshes[static_cast<size_t>(mesh)].weights.size()) : 0;
      if (components == 0)
        fail(cpath, "animates the morph weights of " + node_name(node) + ", which has no morph targets");
    }
    SamplerUse& u = usage[channel.sampler];
    const bool same_kind = u.components == components &&
                           ((u.path == Path::Rotation) == (channel.path == Path::Rotation)) &&
                           ((u.path == Path::Weights) == (channel.path == Path::Weights));
    if (u.used && !same_kind)
      fail(cpath, "shares samplers[" + std::to_string(channel.sampler) + "] with channels[" +
                      std::to_string(u.channel) + "], which animates a different kind of value");
    u = SamplerUse{true, channel.path, components, file_channel};
    targets.emplace_back((static_cast<uint64_t>(node) << 2) | static_cast<uint64_t>(channel.path), file_channel);
    out.channels.push_back(channel);
  }
  std::sort(targets.begin(), targets.end());
  for (size_t k = 1; k < targets.size(); ++k) {
    if (targets[k].first == targets[k - 1].first)
      ctx.warn(path + ".channels[" + std::to_string(targets[k].second) +
               "]: animates the same node and path as channels[" + std::to_string(targets[k - 1].second) + "]");
  }

  return usage;
}

// Animation `a`'s samplers into `out`, read as their use allows, and its time range.
void convert_samplers(Context& ctx, size_t a, const tinygltf::Animation& in, const std::vector<SamplerUse>& usage,
                      Animation& out) {
  const std::string path = indexed("animations", a);
  out.samplers.resize(in.samplers.size());
  float start = std::numeric_limits<float>::infinity(), end = -std::numeric_limits<float>::infinity();
  for (size_t s = 0; s < in.samplers.size(); ++s) {
    const tinygltf::AnimationSampler& si = in.samplers[s];
    Sampler& so = out.samplers[s];
    const std::string spath = path + ".samplers[" + std::to_string(s) + "]";
    if (si.interpolation == "LINEAR")
      so.interpolation = Interpolation::Linear;
    else if (si.interpolation == "STEP")
      so.interpolation = Interpolation::Step;
    else if (si.interpolation == "CUBICSPLINE")
      so.interpolation = Interpolation::CubicSpline;
    else
      fail(spath + ".interpolation", "\"" + si.interpolation + "\" is not LINEAR, STEP or CUBICSPLINE");

    FloatRead times = read_floats(ctx, si.input, spath + ".input", kScalar, kF32, kIntegers, true);
    for (size_t k = 0; k < times.count; ++k) {
      if (times.values[k] < 0.0f)
        fail(spath + ".input",
             "key " + std::to_string(k) + " is at a negative time (" + std::to_string(times.values[k]) + " s)");
      if (k > 0 && !(times.values[k] > times.values[k - 1]))
        fail(spath + ".input", "key times must increase, but key " + std::to_string(k) + " (" +
                                   std::to_string(times.values[k]) + " s) follows key " + std::to_string(k - 1) + " (" +
                                   std::to_string(times.values[k - 1]) + " s)");
    }
    so.times = std::move(times.values);
    start = std::min(start, so.times.front());
    end = std::max(end, so.times.back());

    const SamplerUse& u = usage[s];
    uint32_t types = kScalar | kVec3 | kVec4, encodings = kF32 | kNormalized, quantized = kIntegers & ~kNormalized;
    if (u.used) {
      if (u.path == Path::Rotation)
        types = kVec4;
      else if (u.path == Path::Weights)
        types = kScalar;
      else
        types = kVec3, encodings = kF32, quantized = kIntegers;  // KHR_mesh_quantization style
    }
    const std::string opath = spath + ".output";
    FloatRead values = read_floats(ctx, si.output, opath, types, encodings, quantized, true);
    so.components = u.used ? u.components : values.components;
    const size_t per_key = so.interpolation == Interpolation::CubicSpline ? 3 : 1;
    const size_t keys = so.times.size();
    const size_t expected = keys * per_key * so.components;
    if (values.values.size() != expected) {
      const size_t elements_per_value = u.used && u.path == Path::Weights ? so.components : 1;
      fail(spath, "input has " + std::to_string(keys) + " keys, so " + si.interpolation + " needs " +
                      std::to_string(keys * per_key * elements_per_value) + " output elements, but " +
                      indexed("accessors", static_cast<size_t>(si.output)) + " has " + std::to_string(values.count));
    }
    so.values = std::move(values.values);
  }
  out.start_s = in.samplers.empty() ? 0.0f : start;
  out.end_s = in.samplers.empty() ? 0.0f : end;
}

// The named events an animation's extras carry (docs/events.md, "From the glTF file"): an array
// "events" (or "markers") of {"name": string, "time": seconds}. extras are free-form, so an entry
// of another shape, or at a time outside the clip, is a warning and skipped, never an error.
void read_extras_events(Context& ctx, size_t a, Animation& out) {
  if (!ctx.doc.contains("animations")) return;
  const json& animation = ctx.doc["animations"][a];
  if (!animation.is_object() || !animation.contains("extras") || !animation["extras"].is_object()) return;
  const json& extras = animation["extras"];
  for (const char* key : {"events", "markers"}) {
    if (!extras.contains(key)) continue;
    const std::string where = indexed("animations", a) + ".extras." + key;
    if (!extras[key].is_array()) {
      ctx.warn(where + ": not an array of {name, time}; ignored");
      continue;
    }
    for (size_t i = 0; i < extras[key].size(); ++i) {
      const json& e = extras[key][i];
      const bool shaped =
          e.is_object() && e.contains("name") && e["name"].is_string() && e.contains("time") && e["time"].is_number();
      const double time = shaped ? e["time"].get<double>() : -1.0;
      const std::string name = shaped ? e["name"].get<std::string>() : std::string();
      if (!shaped || name.empty() || name.size() > kMaxEventNameBytes || !(time >= 0.0 && time <= double(out.end_s))) {
        ctx.warn(where + "[" + std::to_string(i) + "]: not a {name, time} with a name and a time in [0, " +
                 std::to_string(out.end_s) + "] s; ignored");
        continue;
      }
      out.events.push_back(ClipEvent{name, static_cast<float>(time)});
    }
  }
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const ClipEvent& x, const ClipEvent& y) { return x.time_s < y.time_s; });
}

}  // namespace

void convert_animations(Context& ctx) {
  const auto& animations = ctx.model.animations;
  ctx.asset.animations.resize(animations.size());
  for (size_t a = 0; a < animations.size(); ++a) {
    const tinygltf::Animation& in = animations[a];
    Animation& out = ctx.asset.animations[a];
    out.name = in.name;
    const std::vector<SamplerUse> usage = convert_channels(ctx, a, in, out);
    convert_samplers(ctx, a, in, usage, out);
    read_extras_events(ctx, a, out);
  }
}

void convert_materials(Context& ctx) {
  const auto& materials = ctx.model.materials;
  const json* images = ctx.doc.contains("images") ? &ctx.doc["images"] : nullptr;
  const size_t image_count = images ? images->size() : 0;
  ctx.asset.materials.resize(materials.size());
  for (size_t i = 0; i < materials.size(); ++i) {
    const tinygltf::Material& in = materials[i];
    Material& out = ctx.asset.materials[i];
    const std::string path = indexed("materials", i);
    out.name = in.name;
    const auto& factor = in.pbrMetallicRoughness.baseColorFactor;
    if (factor.size() == 4) out.base_color_factor = glm::vec4(factor[0], factor[1], factor[2], factor[3]);
    const tinygltf::TextureInfo& texture = in.pbrMetallicRoughness.baseColorTexture;
    if (texture.index >= 0) {
      const std::string where = path + ".pbrMetallicRoughness.baseColorTexture";
      if (!in_range(texture.index, ctx.model.textures.size()))
        fail(where + ".index", does_not_exist("texture", texture.index, ctx.model.textures.size()));
      const int source = ctx.model.textures[static_cast<size_t>(texture.index)].source;
      if (source < 0) {
        ctx.warn(where + ": " + indexed("textures", static_cast<size_t>(texture.index)) +
                 " has no source image (an extension's format?); texture ignored");
      } else {
        if (!in_range(source, image_count))
          fail(indexed("textures", static_cast<size_t>(texture.index)) + ".source",
               does_not_exist("image", source, image_count));
        if (ctx.options.load_images) out.base_color_image = source;
      }
      out.base_color_texcoord = static_cast<uint32_t>(texture.texCoord);
      if (texture.texCoord > 1)
        ctx.warn(where + ": reads TEXCOORD_" + std::to_string(texture.texCoord) + ", which vatkit does not keep");
    }
    if (in.alphaMode == "OPAQUE")
      out.alpha_mode = AlphaMode::Opaque;
    else if (in.alphaMode == "MASK")
      out.alpha_mode = AlphaMode::Mask;
    else if (in.alphaMode == "BLEND")
      out.alpha_mode = AlphaMode::Blend;
    else
      fail(path + ".alphaMode", "\"" + in.alphaMode + "\" is not OPAQUE, MASK or BLEND");
    out.alpha_cutoff = static_cast<float>(in.alphaCutoff);
    if (const auto problem = detail::material_value_problem(out)) {
      const std::string field = problem->component < 0 ? std::string(".") + problem->field
                                                       : ".pbrMetallicRoughness." + std::string(problem->field) + "[" +
                                                             std::to_string(problem->component) + "]";
      fail(path + field, problem->reason);
    }
    out.double_sided = in.doubleSided;
  }
}

namespace {

// The highest joint index a primitive's JOINTS_0 and JOINTS_1 name (-1: none).
int64_t highest_joint(const Primitive& prim) {
  int64_t highest = -1;
  for (uint32_t v = 0; v < prim.source_vertex_count && !prim.joints0.empty(); ++v) {
    for (int k = 0; k < 4; ++k) {
      highest = std::max<int64_t>(highest, prim.joints0[v][k]);
      if (!prim.joints1.empty()) highest = std::max<int64_t>(highest, prim.joints1[v][k]);
    }
  }
  return highest;
}

// Morph weights: one slot per morph target of each node's mesh, the node's own weights checked.
void assign_morph_weights(Context& ctx) {
  Asset& asset = ctx.asset;
  uint64_t weights = 0;
  for (size_t i = 0; i < asset.nodes.size(); ++i) {
    Node& node = asset.nodes[i];
    node.weights_offset = 0;
    node.weights_count = 0;
    if (node.mesh < 0) {
      if (!node.weights.empty()) ctx.warn(node_name(i) + ".weights: the node has no mesh; ignored");
      continue;
    }
    const size_t targets = asset.meshes[static_cast<size_t>(node.mesh)].weights.size();
    if (!node.weights.empty() && node.weights.size() != targets)
      fail(node_name(i) + ".weights", "has " + std::to_string(node.weights.size()) + " values, but " +
                                          indexed("meshes", static_cast<size_t>(node.mesh)) + " has " +
                                          std::to_string(targets) + " morph targets");
    node.weights_offset = static_cast<uint32_t>(weights);
    node.weights_count = static_cast<uint32_t>(targets);
    weights += targets;
    if (weights > std::numeric_limits<uint32_t>::max())
      fail(ErrorCode::Limit, "nodes", "more morph weights than vatkit can index");
  }
  ctx.charge(weights * sizeof(float) * 4, "nodes");
  asset.weight_count = static_cast<uint32_t>(weights);
}

// Skinned nodes: every primitive needs JOINTS_0, every joint index must name a joint of the skin.
void check_skinned_nodes(Context& ctx) {
  Asset& asset = ctx.asset;
  std::vector<std::vector<int64_t>> max_joint(asset.meshes.size());  // per primitive, computed once
  for (size_t i = 0; i < asset.nodes.size(); ++i) {
    Node& node = asset.nodes[i];
    if (node.skin < 0) continue;
    if (node.mesh < 0) {
      ctx.warn(node_name(i) + ": has a skin but no mesh; skin ignored");
      node.skin = -1;
      continue;
    }
    const size_t m = static_cast<size_t>(node.mesh);
    const Mesh& mesh = asset.meshes[m];
    const size_t joint_count = asset.skins[static_cast<size_t>(node.skin)].joints.size();
    if (max_joint[m].empty()) {
      max_joint[m].assign(mesh.primitives.size(), -1);
      for (size_t p = 0; p < mesh.primitives.size(); ++p) max_joint[m][p] = highest_joint(mesh.primitives[p]);
    }
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      const std::string prim_path = indexed("meshes", m) + ".primitives[" + std::to_string(p) + "]";
      if (prim.joints0.empty())
        fail(node_name(i), "uses " + indexed("skins", static_cast<size_t>(node.skin)) + ", but " + prim_path +
                               " has no JOINTS_0 (a skinned mesh needs JOINTS_0 and WEIGHTS_0)");
      if (max_joint[m][p] >= static_cast<int64_t>(joint_count)) {
        // Find the first offending vertex for the message.
        for (uint32_t v = 0; v < prim.source_vertex_count; ++v) {
          for (int set = 0; set < 2; ++set) {
            const auto& joints = set == 0 ? prim.joints0 : prim.joints1;
            if (joints.empty()) continue;
            for (int k = 0; k < 4; ++k) {
              if (joints[v][k] >= joint_count)
                fail(node_name(i), prim_path + ".attributes.JOINTS_" + std::to_string(set) + " vertex " +
                                       std::to_string(v) + " uses joint " + std::to_string(joints[v][k]) + ", but " +
                                       indexed("skins", static_cast<size_t>(node.skin)) + " has " +
                                       std::to_string(joint_count) + " joints");
            }
          }
        }
      }
    }
  }
}

// Mesh instances of the default scene (or of every root), in canonical order.
void collect_instances(Context& ctx) {
  Asset& asset = ctx.asset;
  asset.instances.clear();
  uint64_t vertices = 0;
  std::vector<uint32_t> stack;
  for (uint32_t root : asset.roots) {
    stack.push_back(root);
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      const Node& node = asset.nodes[v];
      if (node.mesh >= 0) {
        const Mesh& mesh = asset.meshes[static_cast<size_t>(node.mesh)];
        ctx.charge(mesh.primitives.size() * sizeof(MeshInstance), "scene");
        for (size_t p = 0; p < mesh.primitives.size(); ++p) {
          MeshInstance instance;
          instance.node = v;
          instance.mesh = static_cast<uint32_t>(node.mesh);
          instance.primitive = static_cast<uint32_t>(p);
          instance.first_vertex = static_cast<uint32_t>(vertices);
          instance.vertex_count = mesh.primitives[p].vertex_count();
          vertices += instance.vertex_count;
          if (vertices > std::numeric_limits<uint32_t>::max())
            fail(ErrorCode::Limit, "scene", "the mesh instances of the scene have more than 2^32 - 1 vertices in all");
          asset.instances.push_back(instance);
        }
      }
      for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) stack.push_back(*it);
    }
  }
  asset.instance_vertex_count = static_cast<uint32_t>(vertices);
}

}  // namespace

void finish_scene(Context& ctx) {
  assign_morph_weights(ctx);
  check_skinned_nodes(ctx);
  collect_instances(ctx);
}

}  // namespace vatkit::import_detail

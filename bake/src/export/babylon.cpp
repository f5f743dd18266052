// Babylon.js export: the skin's joint matrices from the reference evaluator (SceneEvaluator),
// re-expressed in the frame Babylon's glTF loader gives its skeleton (vatkit/export_babylon.h).
#include "vatkit/export_babylon.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>

#include <glm/gtc/type_ptr.hpp>
#include <nlohmann/json.hpp>

#include "vatkit/scene.h"

namespace vatkit {
namespace {

// The node Babylon's loader (GLTFLoader._loadBones) takes as the skeleton root: skin.skeleton when
// the file names one (alwaysComputeSkeletonRootNode is off by default), else the deepest node on
// every joint's path from its scene root (the joints' nearest common ancestor, possibly a joint);
// -1 when the joints share no root.
int32_t babylon_skeleton_root(const Asset& asset, const Skin& skin) {
  if (skin.skeleton >= 0) return skin.skeleton;
  auto path_of = [&](uint32_t node) {  // scene root first
    std::vector<uint32_t> path;
    for (int32_t n = int32_t(node); n >= 0; n = asset.nodes[size_t(n)].parent) path.push_back(uint32_t(n));
    std::reverse(path.begin(), path.end());
    return path;
  };
  const std::vector<uint32_t> first = path_of(skin.joints.front());
  size_t common = first.size();
  for (uint32_t joint : skin.joints) {
    const std::vector<uint32_t> path = path_of(joint);
    size_t i = 0;
    while (i < common && i < path.size() && path[i] == first[i]) ++i;
    common = i;
  }
  return common == 0 ? -1 : int32_t(first[common - 1]);
}

// Babylon's bones (GLTFLoader._loadBone): each joint, and every node above it up to the skeleton
// root or its scene root. Returns the bone count and, per joint, the parent of its root bone
// (-1: the root bone is a scene root), the node its "world" is relative to.
uint32_t babylon_bones(const Asset& asset, const Skin& skin, int32_t skeleton_root, std::vector<int32_t>& base) {
  std::vector<bool> is_bone(asset.nodes.size(), false);
  uint32_t bones = 0;
  base.assign(skin.joints.size(), -1);
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    uint32_t n = skin.joints[j];
    while (true) {
      if (!is_bone[n]) {
        is_bone[n] = true;
        ++bones;
      }
      const int32_t parent = asset.nodes[n].parent;
      if (int32_t(n) == skeleton_root || parent < 0) break;
      n = uint32_t(parent);
    }
    base[j] = asset.nodes[n].parent;
  }
  return bones;
}

// A number as %g prints it: "60", "23.976".
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", v);
  return text;
}

void append_base64(std::string& out, std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = uint32_t(bytes[i]) << 16 | uint32_t(bytes[i + 1]) << 8 | bytes[i + 2];
    out += kDigits[v >> 18];
    out += kDigits[(v >> 12) & 63];
    out += kDigits[(v >> 6) & 63];
    out += kDigits[v & 63];
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    const uint32_t v = uint32_t(bytes[i]) << 16 | (rest == 2 ? uint32_t(bytes[i + 1]) << 8 : 0u);
    out += kDigits[v >> 18];
    out += kDigits[(v >> 12) & 63];
    out += rest == 2 ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
}

}  // namespace

Result<BabylonVat> export_babylon(const Asset& asset, const BabylonExportOptions& options) {
  if (!(options.fps > 0.0 && options.fps <= kBabylonMaxFps)) {
    return make_error(
        ErrorCode::Argument, asset.source,
        "fps " + number(options.fps) + " is outside (0, " + number(kBabylonMaxFps) + "] frames per second");
  }
  const auto skinned = std::find_if(asset.instances.begin(), asset.instances.end(),
                                    [&](const MeshInstance& i) { return asset.nodes[i.node].skin >= 0; });
  if (skinned == asset.instances.end()) {
    return make_error(ErrorCode::Unsupported, asset.source,
                      "has no skinned mesh: Babylon.js's baked vertex animation plays skeletons only");
  }
  if (asset.animations.empty()) {
    return make_error(ErrorCode::Unsupported, asset.source, "has no animation to bake");
  }

  BabylonVat vat;
  vat.mesh_node = skinned->node;
  vat.skin = uint32_t(asset.nodes[vat.mesh_node].skin);
  vat.fps = options.fps;
  const Skin& skin = asset.skins[vat.skin];
  vat.joints = uint32_t(skin.joints.size());
  vat.skeleton_root = babylon_skeleton_root(asset, skin);
  std::vector<int32_t> base;
  vat.bones = babylon_bones(asset, skin, vat.skeleton_root, base);

  uint64_t rows = 0;
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    BabylonClip clip;
    clip.name = animation.name.empty() ? "animation" + std::to_string(a) : animation.name;
    clip.animation = uint32_t(a);
    clip.duration_s = animation.end_s;
    // Babylon's group ends at frame end_s * fps; the nearest row keeps the loop's period within
    // half a row of the clip's, and past the last key the pose holds.
    const double last = std::round(double(animation.end_s) * options.fps);
    const uint64_t first_row = rows;
    rows += uint64_t(last) + 1;
    const uint64_t bytes = rows * (uint64_t(vat.bones) + 1) * 16 * sizeof(float);
    if (bytes > kBabylonMaxBytes) {
      return make_error(ErrorCode::Limit, asset.source,
                        "the Babylon.js texture would take over " + std::to_string(kBabylonMaxBytes >> 20) +
                            " MiB of matrices (clip \"" + clip.name + "\" at " + number(options.fps) +
                            " fps); lower --fps");
    }
    clip.first_row = uint32_t(first_row);
    clip.last_row = uint32_t(rows - 1);
    clip.speed = last > 0.0 ? options.fps * (last + 1.0) / last : options.fps;
    vat.clips.push_back(std::move(clip));
  }
  vat.rows = uint32_t(rows);

  const size_t row_floats = (size_t(vat.bones) + 1) * 16;
  vat.matrices.assign(size_t(rows) * row_floats, 0.0f);
  SceneEvaluator evaluator(asset);
  std::vector<glm::mat4> joint_matrices(skin.joints.size());
  for (const BabylonClip& clip : vat.clips) {
    for (uint32_t r = clip.first_row; r <= clip.last_row; ++r) {
      evaluator.pose(int(clip.animation), float(double(r - clip.first_row) / options.fps));
      const std::span<const glm::mat4> world = evaluator.world();
      compute_joint_matrices(skin, world, joint_matrices);
      float* row = vat.matrices.data() + size_t(r) * row_floats;
      for (size_t j = 0; j < skin.joints.size(); ++j) {
        const glm::mat4 m = base[j] < 0 ? joint_matrices[j] : glm::inverse(world[size_t(base[j])]) * joint_matrices[j];
        std::memcpy(row + j * 16, glm::value_ptr(m), 16 * sizeof(float));
      }
      // Slots joints .. bones - 1 (bones that are not joints) stay zero; the last is the identity.
      const glm::mat4 identity(1.0f);
      std::memcpy(row + size_t(vat.bones) * 16, glm::value_ptr(identity), 16 * sizeof(float));
    }
  }
  return vat;
}

std::string babylon_vertex_data_json(const BabylonVat& vat) {
  static_assert(sizeof(float) == 4);
  std::string out = "{\"vertexData\":\"";
  // Little-endian float32, as a Float32Array's buffer on every platform Babylon runs on.
  std::vector<uint8_t> bytes(vat.matrices.size() * 4);
  for (size_t i = 0; i < vat.matrices.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &vat.matrices[i], 4);
    for (int b = 0; b < 4; ++b) bytes[i * 4 + size_t(b)] = uint8_t(bits >> (8 * b));
  }
  append_base64(out, bytes);
  out += "\",\"width\":" + std::to_string(vat.width()) + ",\"height\":" + std::to_string(vat.rows) + "}";
  return out;
}

std::string babylon_manifest_json(const Asset& asset, const BabylonVat& vat, const std::string& vertex_data_file) {
  using nlohmann::ordered_json;
  const Skin& skin = asset.skins[vat.skin];
  ordered_json clips = ordered_json::array();
  for (const BabylonClip& c : vat.clips) {
    clips.push_back(
        {{"name", c.name},
         {"animation", c.animation},
         {"from", c.first_row},
         {"to", c.last_row},
         {"frames", c.last_row - c.first_row + 1},
         {"duration", std::round(double(c.duration_s) * 1e6) / 1e6},
         {"setAnimationParameters",
          {{"startFrame", c.first_row}, {"endFrame", c.last_row}, {"offset", 0}, {"speedFramesPerSecond", c.speed}}}});
  }
  ordered_json manifest = {
      {"generator", "vatkit export --to babylon"},
      {"source", asset.source},
      {"vertexData", vertex_data_file},
      {"skin", vat.skin},
      {"skinName", skin.name},
      {"babylonSkeletonId", "skeleton" + std::to_string(vat.skin)},
      {"meshNode", vat.mesh_node},
      {"meshNodeName", asset.nodes[vat.mesh_node].name},
      {"skeletonRootNode", vat.skeleton_root < 0 ? ordered_json(nullptr) : ordered_json(vat.skeleton_root)},
      {"joints", vat.joints},
      {"bones", vat.bones},
      {"width", vat.width()},
      {"height", vat.rows},
      {"fps", vat.fps},
      {"clips", std::move(clips)},
  };
  return manifest.dump(2, ' ', /*ensure_ascii=*/false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace vatkit

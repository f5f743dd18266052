// vatkit/asset.h: the compact, validated form of a glTF 2.0 file.
//
// An Asset is what import_gltf() returns and what everything downstream (sampling, skinning,
// baking) reads. It is plain data: every index in it was checked at import, so readers index
// without checks. It owns all of its memory; copying it is a deep copy.
//
// What it keeps of glTF:
//  - nodes (TRS, or a fixed matrix), the node tree, scenes and the default scene;
//  - meshes whose primitives are triangles (strips and fans become lists; points and lines are
//    dropped with a warning), every vertex attribute decoded to float (normalized integers
//    converted as the spec says, sparse accessors applied, KHR_mesh_quantization and
//    EXT_meshopt_compression decoded);
//  - skins (inverse bind matrices, identity when absent), morph targets, animations;
//  - materials: base colour factor and texture, and the encoded images (PNG/JPEG bytes).
// What it does not keep: cameras, lights, PBR terms other than base colour, extras.
//
// Conventions: glm types; quaternions are glm::quat, whose constructor takes (w, x, y, z) while
// glTF stores (x, y, z, w). Lengths are in the file's units (metres by glTF convention); times in
// seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "vatkit/material.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

// Per-vertex deltas of one morph target; each vector is empty or has the primitive's vertex count.
struct MorphTarget {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::vec3> tangents;
};

// One triangle-list primitive. Every non-empty attribute vector has vertex_count() elements.
struct Primitive {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;   // always present after import (flat normals generated)
  std::vector<glm::vec4> tangents;  // xyz tangent, w = bitangent sign (+1 or -1)
  std::vector<glm::vec2> texcoords0;
  std::vector<glm::vec2> texcoords1;
  std::vector<glm::vec4> colors0;     // RGB sources get alpha 1
  std::vector<glm::u16vec4> joints0;  // indices into the node's skin's joint list
  std::vector<glm::u16vec4> joints1;
  std::vector<glm::vec4> weights0;  // as stored: not renormalized (the skinner does that)
  std::vector<glm::vec4> weights1;
  std::vector<uint32_t> indices;  // triangle list, 3 per triangle; generated when absent
  std::vector<MorphTarget> targets;
  int32_t material = -1;  // index into Asset::materials, -1 = default material

  // The first source_vertex_count vertices are the file's vertices, in accessor order. Flat
  // normals (a primitive without NORMAL gets one normal per triangle, as the spec requires) need
  // a vertex shared by differently facing triangles to be split: the importer then appends
  // copies, and copy_source[i] is the file vertex that vertex source_vertex_count + i copies.
  // Tools that report per-vertex data to users (vatkit pose) report the first
  // source_vertex_count vertices, so their output lines up with any other glTF reader's.
  uint32_t source_vertex_count = 0;
  std::vector<uint32_t> copy_source;
  bool normals_generated = false;

  uint32_t vertex_count() const { return static_cast<uint32_t>(positions.size()); }
  uint32_t influence_count() const { return joints0.empty() ? 0u : (joints1.empty() ? 4u : 8u); }
};

struct Mesh {
  std::string name;
  std::vector<Primitive> primitives;
  std::vector<float> weights;  // default morph weights (one per target; zeros when absent)
};

struct Node {
  std::string name;
  int32_t parent = -1;  // -1 for a root
  std::vector<uint32_t> children;

  // Local transform. A node given as a matrix keeps it in `matrix` (has_matrix = true) and is not
  // animatable (the spec forbids animating matrix nodes; the importer refuses it).
  glm::vec3 translation{0.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 scale{1.0f};
  bool has_matrix = false;
  glm::mat4 matrix{1.0f};

  int32_t mesh = -1;
  int32_t skin = -1;
  std::vector<float> weights;  // the node's morph weights when it overrides the mesh's

  // Where this node's morph weights live in Pose::weights (count = its mesh's target count).
  uint32_t weights_offset = 0;
  uint32_t weights_count = 0;
};

struct Skin {
  std::string name;
  std::vector<uint32_t> joints;         // node indices
  std::vector<glm::mat4> inverse_bind;  // one per joint; identity when the file has none
  int32_t skeleton = -1;                // as written in the file; not used for skinning
};

enum class Interpolation : uint8_t { Step, Linear, CubicSpline };
enum class Path : uint8_t { Translation, Rotation, Scale, Weights };

// One animation sampler, keys already decoded to float.
struct Sampler {
  Interpolation interpolation = Interpolation::Linear;
  std::vector<float> times;  // strictly increasing, finite, >= 0
  // Output values, `components` floats per element: 3 (translation, scale), 4 (rotation, xyzw as
  // in glTF) or the morph target count (weights). LINEAR/STEP: one element per key.
  // CUBICSPLINE: three elements per key, in-tangent, value, out-tangent (glTF order).
  std::vector<float> values;
  uint32_t components = 0;
};

struct Channel {
  uint32_t node = 0;
  Path path = Path::Translation;
  uint32_t sampler = 0;  // index into Animation::samplers
};

struct Animation {
  std::string name;  // may be empty: the file named none
  std::vector<Sampler> samplers;
  std::vector<Channel> channels;
  float start_s = 0.0f;  // earliest key time over all samplers
  float end_s = 0.0f;    // latest key time: the clip plays from 0 to end_s (as three.js plays it)
  // Named events the file carries in the animation's extras ("events" or "markers": docs/events.md
  // says which conventions are read), in time order, clamped to [0, end_s].
  std::vector<ClipEvent> events;
};

struct Scene {
  std::string name;
  std::vector<uint32_t> roots;
};

// One drawn primitive of the default scene: the unit the reference skinner outputs.
// Canonical order (see Asset::instances): depth-first pre-order over the default scene's roots in
// file order, children in file order; per node, primitives in mesh order.
struct MeshInstance {
  uint32_t node = 0;
  uint32_t mesh = 0;
  uint32_t primitive = 0;
  uint32_t first_vertex = 0;  // offset of this instance in the concatenated output of the scene
  uint32_t vertex_count = 0;
};

struct Asset {
  std::string source;  // the file it came from, for messages

  std::vector<Node> nodes;
  std::vector<Mesh> meshes;
  std::vector<Skin> skins;
  std::vector<Animation> animations;
  std::vector<Material> materials;
  std::vector<Image> images;
  std::vector<Scene> scenes;
  int32_t default_scene = -1;  // `scene` of the file, else 0, else -1 (no scenes: all roots)

  std::vector<uint32_t> node_order;     // every node, parents before children
  std::vector<MeshInstance> instances;  // canonical order, see MeshInstance
  uint32_t instance_vertex_count = 0;   // sum of instances[i].vertex_count
  uint32_t weight_count = 0;            // size of Pose::weights
  std::vector<uint32_t> roots;          // the default scene's roots, or every parentless
                                        // node in file order when the file has no scene
  std::vector<std::string> warnings;    // things dropped or repaired at import, one line each
};

// Picks a clip: "#N" is the N-th animation (0-based), anything else an animation name (the
// first with that name); O(animations), thread-safe. Errors name asset.source and list the clips, e.g.
//     "Fox.glb: no clip named \"jog\" (clips: Survey, Walk, Run)".
Result<int> find_clip(const Asset& asset, const std::string& selector);

// Animations that look like pieces of one (an old exporter wrote one animation per joint, as the
// legacy CesiumMan's 19): groups of two or more animations with the same time range whose channels
// all target skin joints, each animation its own joints (no joint in two), each group in file order. Every such group
// is a warning of the importer (clip_pieces_text) and of the bake; merge_clip_pieces joins them on request.
std::vector<std::vector<uint32_t>> find_clip_pieces(const Asset& asset);
// One line naming the group's animations and range, and the option that merges them.
std::string clip_pieces_text(const Asset& asset, const std::vector<uint32_t>& group);
// Each group becomes one animation at its first member's index, with that member's name, holding
// every member's samplers and channels; the other members are removed (later indices shift).
void merge_clip_pieces(Asset& asset, const std::vector<std::vector<uint32_t>>& groups);

// The clip's name, or "#N" when the file named none.
std::string clip_label(const Asset& asset, int clip);

}  // namespace vatkit

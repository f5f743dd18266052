// vatkit/export_babylon.h: a skin's animation as Babylon.js's VertexAnimationBaker writes it, for
// its BakedVertexAnimationManager to play unchanged.
//
// What Babylon's baker stores, and so what this writes (docs/babylon.md has the derivation from
// @babylonjs/core and @babylonjs/loaders):
//  - One texture row per baked frame; each row is the skeleton's getTransformMatrices(): one
//    4x4 float matrix per Babylon bone slot, then one identity matrix. The row has
//    (bones + 1) * 16 floats, read by the GPU as (bones + 1) * 4 RGBA texels.
//  - The glTF loader's skeleton has one bone per node on the way from each joint up to the
//    skeleton root (skin.skeleton when the file names one, else the joints' nearest common
//    ancestor; a joint outside it climbs to its scene root), so `bones` can exceed the joint
//    count. Joint j's matrix is in slot j (the index JOINTS_0 holds); the slots of the bones that
//    are not joints (j >= joints) are never written by Babylon and stay zero.
//  - A joint's matrix is its world matrix times its inverse bind matrix, with "world" relative to
//    the parent of its root bone (Babylon's root bones carry only their own local transform):
//    M_j = inverse(world[parent of root bone]) * world[joint j] * inverse_bind[j]. The glTF
//    loader's handedness flip (its __root__ node) and every node above the skeleton stay in the
//    mesh's world matrix, which the player applies after the texture, as Babylon does.
//  - Floats are the column-major elements of M_j, the layout of Babylon's Matrix (which reads a
//    glTF column-major array as is, in its row-vector convention).
//
// Rows: every clip (glTF animation, in file order) at `fps` frames per second of glTF time, rows
// 0 .. round(end_s * fps) of the clip's own timeline, inclusive (Babylon's animation groups start
// at frame 0, their keys at time * targetFps frames: at fps == the loader's targetFps, row r of a
// clip is its group's frame r). Clips follow one another in the texture.
//
// Cost: O(frames x (nodes + joints)) on the calling thread; the data is frames x (bones + 1) x 64
// bytes. Thread-safe (reads the Asset only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vatkit/asset.h"
#include "vatkit/result.h"

namespace vatkit {

struct BabylonExportOptions {
  // Rows per second of glTF time. 60 is Babylon's glTF loader's default targetFps, its frame unit.
  double fps = 60.0;
};

// The most rows per second, and the most bytes of matrices, an export writes.
inline constexpr double kBabylonMaxFps = 1000.0;
inline constexpr uint64_t kBabylonMaxBytes = uint64_t{1} << 30;

// One clip's rows and how BakedVertexAnimationManager plays them:
// setAnimationParameters(first_row, last_row, 0, speed). The manager (its bakedVertexAnimation
// shader) shows rows first..last on its first pass and first + 1..last on every later one (a
// looping clip's last row repeats its first), each pass lasting (last - first + 1) / speed
// seconds; speed = fps x rows / (rows - 1) makes a later pass last the clip's duration (to
// within half a row), the first pass one row shorter. A one-row clip gets speed = fps.
struct BabylonClip {
  std::string name;        // the AnimationGroup name Babylon's loader gives it (the glTF name, else "animation<N>")
  uint32_t animation = 0;  // index in Asset::animations
  uint32_t first_row = 0;  // texture rows, inclusive
  uint32_t last_row = 0;
  float duration_s = 0.0f;  // the clip's end on the glTF timeline (Animation::end_s)
  double speed = 0.0;       // speedFramesPerSecond, see above
};

struct BabylonVat {
  uint32_t skin = 0;           // the skin baked: that of the first skinned mesh (Asset::instances order)
  uint32_t mesh_node = 0;      // that mesh's node
  int32_t skeleton_root = -1;  // the node Babylon's loader takes as the skeleton root; -1: none found
  uint32_t joints = 0;         // skin.joints.size()
  uint32_t bones = 0;          // Babylon's skeleton.bones.length (joints and the nodes between them and the root)
  uint32_t rows = 0;           // the texture's height
  double fps = 0.0;
  std::vector<BabylonClip> clips;
  std::vector<float> matrices;  // rows x (bones + 1) x 16

  uint32_t width() const { return (bones + 1) * 4; }  // texels per row, as Babylon counts them
};

// Bakes `asset`'s skin (see above). Fails, naming asset.source, when the asset has no skinned mesh
// (Babylon's baked vertex animation plays skeletons only), no animation, an fps outside
// (0, kBabylonMaxFps], or more than kBabylonMaxBytes of matrices.
Result<BabylonVat> export_babylon(const Asset& asset, const BabylonExportOptions& options = {});

// The JSON of Babylon's VertexAnimationBaker.serializeBakedVertexDataToJSON, byte for byte in its
// form: {"vertexData":"<base64 of the little-endian float32 matrices>","width":W,"height":H}.
std::string babylon_vertex_data_json(const BabylonVat& vat);

// The clip manifest (docs/babylon.md describes every field): the source, the skin, the texture's
// size, the row rate, and per clip its rows and the manager's settings to play it.
// `vertex_data_file` is the name of the file holding babylon_vertex_data_json, as the manifest
// refers to it.
std::string babylon_manifest_json(const Asset& asset, const BabylonVat& vat, const std::string& vertex_data_file);

}  // namespace vatkit

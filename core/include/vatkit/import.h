// vatkit/import.h: glTF 2.0 (.gltf with data URIs or external files, and .glb) into an Asset.
//
// The importer parses with tinygltf (kept out of this header), decodes every accessor into the
// Asset's float vectors and validates everything a later stage would otherwise index blindly.
// Errors name the file and the JSON path of the offending object, for example
//     "CesiumMan.glb: accessors[3]: count 3273 runs past bufferViews[1] (byteLength 1024)"
//     "bad.gltf: animations[0].samplers[2]: output value is NaN at key 7"
//     "engine.gltf: extension KHR_draco_mesh_compression is required but not supported"
//
// Supported: every component type the spec allows for each attribute (normalized integers
// included), sparse accessors, KHR_mesh_quantization, EXT_meshopt_compression (decoded with
// meshoptimizer), triangle strips and fans (converted to lists). Refused: any other extension in
// extensionsRequired (Draco among them), animated matrix nodes, cycles in the node graph, a node
// with two parents, indices or joints out of range, accessors running past their buffers,
// non-finite positions or keyframes, missing buffers or images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "vatkit/asset.h"
#include "vatkit/result.h"

namespace vatkit {

struct ImportOptions {
  // Keep the encoded image bytes of base colour textures (needed for rendering and for writing a
  // .vat.glb); false skips them and leaves Asset::images empty.
  bool load_images = true;
};

// Reads a .gltf or .glb file (external buffers and images resolved next to it).
Result<Asset> import_gltf(const std::filesystem::path& path, const ImportOptions& options = {});

// Reads a .gltf (JSON) or .glb (binary, detected by its magic) held in memory. `name` is used in
// messages and as Asset::source; external URIs are resolved against `base_dir` (none when empty).
Result<Asset> import_gltf_memory(std::span<const uint8_t> bytes, const std::string& name,
                                 const std::filesystem::path& base_dir = {},
                                 const ImportOptions& options = {});

}  // namespace vatkit

// vatkit/import.h: glTF 2.0 (.gltf with data URIs or external files, and .glb) into an Asset.
//
// The importer parses the JSON once, checks the shape of every property it reads (stored in
// tinygltf's model types, kept out of this header), decodes every accessor into the Asset's float
// vectors and validates everything a later stage would otherwise index blindly.
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
//
// Cost: blocks on file I/O; O(file size) time and memory on the calling thread (no pool); safe to
// call concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "vatkit/asset.h"
#include "vatkit/result.h"

namespace vatkit {

// External files. A buffer's or image's `uri` that is not a data URI is a relative reference:
// it is percent-decoded, resolved against the asset's folder, and canonicalized (symbolic links
// followed, "." and ".." removed). The file is read only when that canonical path lies inside the
// canonical asset folder or inside one of `allowed_roots` (compared component by component, so
// /x/ab is not inside /x/a); an absolute path, a "../" (also percent-encoded) or a symbolic link
// leading anywhere else is refused, naming the uri, where it leads and what is allowed. Other
// schemes ("file:", "http:") are refused; so is a uri with a NUL byte, and one naming anything
// but a regular file (a directory, a FIFO, a device).
//
// Sizes. Files are read in stages (a GLB's header, then its JSON chunk, then only the BIN bytes
// buffers[0] declares), and every declared length is checked against these limits and against
// the file's real size before anything is allocated for it.
struct ImportOptions {
  // Keep the encoded image bytes of base colour textures (needed for rendering and for writing a
  // .vat.glb); false skips them and leaves Asset::images empty.
  bool load_images = true;

  // Folders besides the asset's own that external buffers and images may be read from (each
  // canonicalized; a folder that does not exist allows nothing). The CLI's --allow-root DIR.
  std::vector<std::filesystem::path> allowed_roots;

  // The most bytes of glTF JSON (a .gltf file, or a GLB's JSON chunk) an import parses.
  uint64_t max_json_bytes = uint64_t{256} << 20;  // 256 MiB

  // The most bytes an import takes in altogether: the JSON, the GLB binary chunk's bytes that
  // buffers[0] uses, external buffers (their byteLength) and external images (for
  // import_gltf_memory, the bytes given count instead of the JSON and the binary chunk).
  uint64_t max_input_bytes = uint64_t{2} << 30;  // 2 GiB

  // When set, the canonical path of every external file the import reads (buffers and images, in
  // the order read) is appended to it: what a build system must watch besides the glTF itself
  // (`vatkit bake --depfile`).
  std::vector<std::filesystem::path>* files_read = nullptr;
};

// Reads a .gltf or .glb file (external buffers and images resolved next to it, see above).
Result<Asset> import_gltf(const std::filesystem::path& path, const ImportOptions& options = {});

// Reads a .gltf (JSON) or .glb (binary, detected by its magic) held in memory. `name` is used in
// messages and as Asset::source; external URIs are resolved against `base_dir`, which also takes
// the place of the asset's folder in the rule above (no external file is read when it is empty).
Result<Asset> import_gltf_memory(std::span<const uint8_t> bytes, const std::string& name,
                                 const std::filesystem::path& base_dir = {}, const ImportOptions& options = {});

}  // namespace vatkit

// Internals of the glTF importer (import.h), shared by bake/src/import/import_*.cpp. Not installed.
//
// The pipeline, in order:
//  1. import.cpp: read the file in stages (a GLB's header, its JSON chunk; the BIN bytes only
//     when load_buffers knows how many buffers[0] uses), split a GLB container, refuse JSON
//     nested too deeply, parse the JSON with nlohmann (exceptions caught), and check
//     extensionsRequired.
//  2. import_json.cpp: check the shape of every JSON property the importer reads (types, array
//     sizes, non-negative indices) and store it in a typed model (tinygltf::Model, the types of
//     tinygltf 2.7, whose parser is not used: the text is parsed once, in step 1). Every error
//     names its JSON path, nothing is dropped silently (which would shift every later index) and
//     no integer is truncated. Buffers and images are not in the model: import_data.cpp loads them
//     itself from the document (data URIs, files next to the .gltf, the GLB BIN chunk,
//     EXT_meshopt_compression fallback buffers), so that a missing file is an error naming
//     buffers[i], nothing is read outside the folders import.h allows, and no image is ever
//     decoded.
//  3. import_data.cpp: validate every bufferView and accessor against the real byte counts,
//     decode EXT_meshopt_compression views, and decode accessors (every component type,
//     normalized integers, byteStride, sparse) into floats or integers.
//  4. import_mesh.cpp, import_scene.cpp: build and validate the Asset.
//
// Errors are thrown as Failure inside the importer and turned into an Error (a value) at the two
// entry points, so the decoding code reads straight through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "vatkit/asset.h"
#include "vatkit/file_io.h"
#include "vatkit/import.h"

namespace vatkit::import_detail {

using json = nlohmann::json;

// "what and where", without the file name (the entry point adds it).
struct Failure {
  ErrorCode code;
  std::string what;
};

[[noreturn]] void fail(ErrorCode code, const std::string& path, const std::string& reason);
// A glTF that breaks the spec: ErrorCode::InvalidGltf.
[[noreturn]] void fail(const std::string& path, const std::string& reason);

// "accessors[3]"
std::string indexed(const char* array, size_t index);

// Accessor element types, as bits so that a reader can accept several.
enum TypeBit : uint32_t {
  kScalar = 1u << 0,
  kVec2 = 1u << 1,
  kVec3 = 1u << 2,
  kVec4 = 1u << 3,
  kMat2 = 1u << 4,
  kMat3 = 1u << 5,
  kMat4 = 1u << 6,
};

// Component encodings (component type + normalized flag), as bits.
enum EncodingBit : uint32_t {
  kF32 = 1u << 0,
  kI8 = 1u << 1,
  kI8N = 1u << 2,
  kU8 = 1u << 3,
  kU8N = 1u << 4,
  kI16 = 1u << 5,
  kI16N = 1u << 6,
  kU16 = 1u << 7,
  kU16N = 1u << 8,
  kU32 = 1u << 9,
};

// A buffer's bytes: a slice of the GLB, a decoded data URI or a file; or nothing (a fallback
// buffer of EXT_meshopt_compression, which only compressed views may reference).
struct BufferData {
  std::vector<uint8_t> owned;
  std::span<const uint8_t> bytes;
  bool fallback = false;
};

// A bufferView's bytes (decoded when EXT_meshopt_compression compressed it).
struct ViewData {
  std::vector<uint8_t> owned;
  std::span<const uint8_t> bytes;
  size_t stride = 0;  // byteStride, 0 when the file did not give one
};

// Everything needed to read one accessor, checked once against the real byte counts.
struct AccessorInfo {
  uint32_t type_bit = 0;
  uint32_t encoding_bit = 0;
  uint32_t components = 0;      // per element: 1..4, 4/9/16 for matrices
  uint32_t component_size = 0;  // bytes
  size_t element_size = 0;      // bytes, matrix column padding included
  size_t count = 0;
  const uint8_t* base = nullptr;  // first element, or nullptr when the accessor has no bufferView
  size_t stride = 0;
  // sparse substitution
  size_t sparse_count = 0;
  const uint8_t* sparse_indices = nullptr;
  uint32_t sparse_index_size = 0;
  const uint8_t* sparse_values = nullptr;
};

struct Context {
  std::string name;  // the file, for messages (added at the entry point)
  std::filesystem::path base_dir;
  ImportOptions options;

  // The container's bytes: the caller's memory (import_gltf_memory), or an open file that is
  // read in stages (import_gltf), so that a declared length is checked before it is read.
  std::span<const uint8_t> memory;
  const InputFile* file = nullptr;
  uint64_t container_size = 0;
  std::vector<uint8_t> json_storage;  // the JSON text, when read from `file`
  // Bytes [offset, offset + length) of the container, in `storage` when read from the file.
  std::span<const uint8_t> container_bytes(uint64_t offset, uint64_t length, std::vector<uint8_t>& storage,
                                           const std::string& path);

  bool is_glb = false;
  uint64_t glb_bin_offset = 0;  // the BIN chunk's data in the container
  uint64_t glb_bin_length = 0;  // 0 when there is none

  // Bytes taken in so far (JSON, buffers, images): checked against options.max_input_bytes by
  // take_input before each is read, and the base of the decode budget.
  uint64_t input_bytes = 0;
  void take_input(uint64_t bytes, const std::string& path);

  // The canonical folders external files may be read from (the asset's folder first), made on
  // first use.
  std::vector<std::filesystem::path> roots;

  json doc;                                            // the original document (extensions are read from here)
  std::vector<std::vector<uint32_t>> channel_sources;  // see check_and_extract
  tinygltf::Model model;                               // the properties the importer reads, checked (check_and_extract)
  bool quantization_declared = false;                  // KHR_mesh_quantization in extensionsUsed
  bool quantization_warned = false;

  std::vector<BufferData> buffers;
  std::vector<ViewData> views;
  std::vector<AccessorInfo> accessors;

  Asset asset;

  // Guards against files that are small but decode into enormous data (one accessor shared by
  // thousands of primitives, a sparse accessor with a huge count and no bufferView, ...).
  uint64_t budget_bytes = 0;
  void charge(uint64_t bytes, const std::string& path);

  void warn(std::string line) { asset.warnings.push_back(std::move(line)); }
};

// import_json.cpp: checks the document's shape and returns the properties the importer reads.
// Channels the spec says to ignore (no target node, a path an extension defines) are left out
// with a warning; channel_sources[a][c] is the file's index of channel c of animation a.
tinygltf::Model check_and_extract(const json& doc, std::vector<std::vector<uint32_t>>& channel_sources,
                                  std::vector<std::string>& warnings);

// import_data.cpp
void load_buffers(Context& ctx);
void load_views(Context& ctx);
void check_accessors(Context& ctx);
void load_images(Context& ctx);

// Reads accessor `index` into floats, `components` per element (normalized integers converted
// as the glTF spec says; unnormalized ones converted to float as they are). `path` names the
// referring property for messages; the accessor must have one of `types` and one of
// `encodings`, or one of `quantized` (accepted with a warning unless KHR_mesh_quantization is
// declared). Non-finite values are refused when `finite` is set.
struct FloatRead {
  std::vector<float> values;
  size_t count = 0;
  uint32_t components = 0;
};
FloatRead read_floats(Context& ctx, int index, const std::string& path, uint32_t types, uint32_t encodings,
                      uint32_t quantized = 0, bool finite = true);

// Reads an integer accessor (indices, joints) without conversion.
struct UintRead {
  std::vector<uint32_t> values;
  size_t count = 0;
  uint32_t components = 0;
};
UintRead read_uints(Context& ctx, int index, const std::string& path, uint32_t types, uint32_t encodings);

// Names for messages.
std::string encoding_name(uint32_t encoding_bit);
std::string type_name(uint32_t type_bit);

// import_mesh.cpp
void convert_meshes(Context& ctx);
// Flat normals for one primitive without NORMAL (exposed for the mesh converter only).
void generate_flat_normals(Primitive& primitive);

// import_scene.cpp
void convert_nodes_and_scenes(Context& ctx);
void convert_skins(Context& ctx);
void convert_animations(Context& ctx);
void convert_materials(Context& ctx);
void finish_scene(Context& ctx);  // weights offsets, instances, skin/joint checks

// Checks an index taken from the clean document against an array size (the shape pass already
// made it a non-negative int).
inline bool in_range(int index, size_t size) { return index >= 0 && static_cast<size_t>(index) < size; }

}  // namespace vatkit::import_detail

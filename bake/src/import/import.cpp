// glTF 2.0 import: the entry points, the GLB container, the JSON parse and the pipeline that
// import_internal.h describes.
#include "vatkit/import.h"

#include <cerrno>
#include <cstring>
#include <new>
#include <string_view>

#include "import/import_internal.h"
#include "util/json_depth.h"
#include "util/printable.h"

namespace vatkit {
namespace {

using namespace import_detail;

constexpr uint32_t kChunkJson = 0x4E4F534Au;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942u;   // "BIN\0"

uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

std::string byte_count(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

// JSON text must start (after a byte order mark and white space) with '{'. `complete`: `text` is
// the whole file, not a prefix of it (a prefix of white space cannot be judged yet).
std::string_view json_start(std::string_view text, bool complete) {
  if (text.size() >= 3 && static_cast<uint8_t>(text[0]) == 0xEF && static_cast<uint8_t>(text[1]) == 0xBB &&
      static_cast<uint8_t>(text[2]) == 0xBF)
    text.remove_prefix(3);  // UTF-8 byte order mark
  const size_t first = text.find_first_not_of(" \t\r\n");
  if ((first == std::string_view::npos && complete) || (first != std::string_view::npos && text[first] != '{'))
    fail(ErrorCode::Parse, "", "not a glTF file (neither JSON starting with '{' nor a GLB starting with \"glTF\")");
  return text;
}

void check_json_size(const Context& ctx, uint64_t bytes, const std::string& where) {
  if (bytes > ctx.options.max_json_bytes)
    fail(ErrorCode::Limit, where,
         "the JSON is " + byte_count(bytes) + ", more than the limit of " + byte_count(ctx.options.max_json_bytes) +
             " (ImportOptions::max_json_bytes)");
}

// Finds the JSON and BIN chunks of a GLB, or takes the container as JSON text; returns the JSON.
// Reads only what it needs: a GLB's 12-byte header, its first two chunk headers and the JSON
// chunk (the BIN chunk's bytes are read by load_buffers, as many as buffers[0] declares; further
// chunks are for extensions, which the spec has readers skip, so not even their headers are
// read). A length the container does not have is refused before anything is allocated for it.
std::string_view split_container(Context& ctx) {
  const uint64_t size = ctx.container_size;
  std::vector<uint8_t> head_storage;
  const std::span<const uint8_t> head = ctx.container_bytes(0, std::min<uint64_t>(size, 12), head_storage, "");
  if (head.size() >= 4 && std::memcmp(head.data(), "glTF", 4) == 0) {
    ctx.is_glb = true;
    if (size < 12) fail(ErrorCode::Parse, "GLB", "the header is truncated (" + std::to_string(size) + " bytes)");
    const uint32_t version = load_u32(head.data() + 4);
    if (version != 2)
      fail(ErrorCode::Unsupported, "GLB", "version " + std::to_string(version) + " is not supported (only glTF 2.0)");
    const uint64_t length = load_u32(head.data() + 8);
    if (length > size)
      fail(ErrorCode::Parse, "GLB",
           "the header says " + std::to_string(length) + " bytes, but there are only " + std::to_string(size) +
               " (truncated file?)");
    std::string_view json_text;
    uint64_t offset = 12;
    for (size_t chunk = 0; chunk < 2 && offset < length; ++chunk) {
      if (length - offset < 8)
        fail(ErrorCode::Parse, "GLB", "chunk " + std::to_string(chunk) + " has a truncated header");
      std::vector<uint8_t> header_storage;
      const std::span<const uint8_t> header = ctx.container_bytes(offset, 8, header_storage, "GLB");
      const uint32_t chunk_length = load_u32(header.data());
      const uint32_t chunk_type = load_u32(header.data() + 4);
      if (chunk_length > length - offset - 8)
        fail(ErrorCode::Parse, "GLB",
             "chunk " + std::to_string(chunk) + " (" + std::to_string(chunk_length) +
                 " bytes) runs past the end of the file");
      if (chunk == 0) {
        if (chunk_type != kChunkJson) fail(ErrorCode::Parse, "GLB", "the first chunk is not JSON");
        check_json_size(ctx, chunk_length, "GLB");
        if (ctx.file) ctx.take_input(chunk_length, "GLB");
        const std::span<const uint8_t> data = ctx.container_bytes(offset + 8, chunk_length, ctx.json_storage, "GLB");
        json_text = std::string_view(reinterpret_cast<const char*>(data.data()), data.size());
        if (json_text.data() == nullptr) json_text = std::string_view("", 0);
      } else if (chunk_type == kChunkBin) {
        ctx.glb_bin_offset = offset + 8;
        ctx.glb_bin_length = chunk_length;
      }
      offset += 8 + uint64_t{chunk_length};
    }
    if (json_text.data() == nullptr) fail(ErrorCode::Parse, "GLB", "has no JSON chunk");
    // Writers pad the JSON chunk with spaces; some use zeros.
    while (!json_text.empty() && (json_text.back() == '\0' || json_text.back() == ' ')) json_text.remove_suffix(1);
    return json_text;
  }
  // Text: judge the first bytes before reading (and allocating for) the rest.
  json_start(std::string_view(reinterpret_cast<const char*>(head.data()), head.size()), head.size() == size);
  check_json_size(ctx, size, "");
  if (ctx.file) ctx.take_input(size, "");
  const std::span<const uint8_t> bytes = ctx.container_bytes(0, size, ctx.json_storage, "");
  return json_start(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), true);
}

json parse_json(std::string_view text) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    fail(ErrorCode::Parse, "JSON", detail::json_error_text(e.what()));
  }
}

void check_required_extensions(Context& ctx) {
  auto check_list = [&](const char* key, bool required) {
    auto it = ctx.doc.find(key);
    if (it == ctx.doc.end() || !it->is_array()) return;
    for (size_t i = 0; i < it->size(); ++i) {
      const json& e = (*it)[i];
      if (!e.is_string()) continue;  // the shape pass reports it
      const std::string& name = e.get_ref<const std::string&>();
      if (name == "KHR_mesh_quantization") ctx.quantization_declared = true;
      if (!required || name == "KHR_mesh_quantization" || name == "EXT_meshopt_compression") continue;
      const std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      if (name == "KHR_draco_mesh_compression")
        fail(ErrorCode::Unsupported, where,
             "extension KHR_draco_mesh_compression is required but not supported (vatkit has no Draco decoder)");
      fail(ErrorCode::Unsupported, where, "extension " + name + " is required but not supported");
    }
  };
  check_list("extensionsUsed", false);
  check_list("extensionsRequired", true);
}

// Messages quote names and URIs from the file: keep them on one printable line of bounded length.
std::string one_line(std::string s) {
  if (s.size() > 2000) s = s.substr(0, 2000) + "...";
  return printable(s);
}

void run(Context& ctx) {
  if (ctx.container_size == 0) fail(ErrorCode::Parse, "", "the file is empty");
  const std::string_view text = split_container(ctx);
  if (!detail::json_depth_ok(text)) fail(ErrorCode::Limit, "JSON", detail::kJsonTooDeep);
  ctx.doc = parse_json(text);
  if (!ctx.doc.is_object()) fail("JSON", "the top level is not an object");
  check_required_extensions(ctx);
  std::vector<std::string> shape_warnings;
  ctx.model = check_and_extract(ctx.doc, ctx.channel_sources, shape_warnings);
  for (auto& w : shape_warnings) ctx.warn(std::move(w));

  load_buffers(ctx);
  // Decoded data may exceed the file (quantized or meshopt-compressed input, flat-normal splits,
  // shared accessors), but not by orders of magnitude.
  ctx.budget_bytes = (uint64_t{256} << 20) + 256 * ctx.input_bytes;
  load_views(ctx);
  check_accessors(ctx);

  convert_meshes(ctx);
  convert_nodes_and_scenes(ctx);
  convert_skins(ctx);
  convert_materials(ctx);
  convert_animations(ctx);
  load_images(ctx);
  finish_scene(ctx);
  for (const std::vector<uint32_t>& group : find_clip_pieces(ctx.asset)) ctx.warn(clip_pieces_text(ctx.asset, group));
}

// Imports from ctx's container (memory or file), turning failures into an Error.
Result<Asset> import_container(Context& ctx) {
  try {
    run(ctx);
  } catch (const Failure& failure) {
    return make_error(failure.code, ctx.name, one_line(failure.what));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::Limit, ctx.name, "out of memory while importing");
  } catch (const std::exception& e) {
    return make_error(ErrorCode::InvalidGltf, ctx.name, one_line(std::string("internal error: ") + e.what()));
  }
  ctx.asset.source = ctx.name;
  return std::move(ctx.asset);
}

}  // namespace

std::span<const uint8_t> Context::container_bytes(uint64_t offset, uint64_t length, std::vector<uint8_t>& storage,
                                                  const std::string& path) {
  if (offset > container_size || length > container_size - offset)
    fail(ErrorCode::Parse, path,
         "bytes " + std::to_string(offset) + ".." + std::to_string(offset + length) + " are past the end of the file");
  if (!file) return memory.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
  storage.resize(static_cast<size_t>(length));
  if (Result<void> r = file->read_at(offset, storage); !r) {
    // The entry point names the file; keep only the reason.
    const std::string prefix = file->name() + ": ";
    const std::string& message = r.error().message;
    fail(r.error().code, path, message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message);
  }
  return storage;
}

Result<Asset> import_gltf_memory(std::span<const uint8_t> bytes, const std::string& name,
                                 const std::filesystem::path& base_dir, const ImportOptions& options) {
  Context ctx;
  ctx.name = name;
  ctx.base_dir = base_dir;
  ctx.options = options;
  ctx.memory = bytes;
  ctx.container_size = bytes.size();
  if (bytes.size() > options.max_input_bytes)
    return make_error(ErrorCode::Limit, name,
                      "is " + byte_count(bytes.size()) + ", more than the input limit of " +
                          byte_count(options.max_input_bytes) + " (ImportOptions::max_input_bytes)");
  ctx.input_bytes = bytes.size();
  return import_container(ctx);
}

Result<Asset> import_gltf(const std::filesystem::path& path, const ImportOptions& options) {
  Result<InputFile> file = InputFile::open(path);
  if (!file) return file.error();
  Context ctx;
  ctx.name = path.string();
  ctx.base_dir = path.parent_path();
  if (ctx.base_dir.empty()) ctx.base_dir = ".";
  ctx.options = options;
  ctx.file = &*file;
  ctx.container_size = file->size();
  return import_container(ctx);
}

}  // namespace vatkit

// A tiny glTF writer for the importer's tests: binary data goes into one buffer, written as a
// base64 data URI (.gltf), as the BIN chunk (.glb) or as an external .bin file.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vatkit/import.h"

namespace vatkit::test {

using json = nlohmann::json;

enum : int {
  kByte = 5120,
  kUnsignedByte = 5121,
  kShort = 5122,
  kUnsignedShort = 5123,
  kUnsignedInt = 5125,
  kFloat = 5126,
};

inline std::string base64(const uint8_t* data, size_t size) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    const uint32_t b0 = data[i], b1 = i + 1 < size ? data[i + 1] : 0, b2 = i + 2 < size ? data[i + 2] : 0;
    const uint32_t v = (b0 << 16) | (b1 << 8) | b2;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += i + 1 < size ? alphabet[(v >> 6) & 63] : '=';
    out += i + 2 < size ? alphabet[v & 63] : '=';
  }
  return out;
}

class GltfBuilder {
 public:
  json doc;  // "buffers" in here are extra buffers, after the builder's buffer 0
  std::vector<uint8_t> bin;
  json buffers_override;  // when set, the whole "buffers" array

  GltfBuilder() { doc["asset"] = {{"version", "2.0"}}; }

  // Appends bytes (4-byte aligned) and a bufferView over them; returns the view's index.
  int view(const void* data, size_t bytes, size_t stride = 0) {
    while (bin.size() % 4) bin.push_back(0);
    const size_t offset = bin.size();
    bin.resize(offset + bytes);
    if (bytes) std::memcpy(bin.data() + offset, data, bytes);
    json v = {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}};
    if (stride) v["byteStride"] = stride;
    return push("bufferViews", std::move(v));
  }
  template <class T>
  int view(const std::vector<T>& values, size_t stride = 0) {
    return view(values.data(), values.size() * sizeof(T), stride);
  }

  int accessor(int view_index, int component_type, size_t count, const char* type, bool normalized = false,
               size_t byte_offset = 0) {
    json a = {{"componentType", component_type}, {"count", count}, {"type", type}};
    if (view_index >= 0) a["bufferView"] = view_index;
    if (byte_offset) a["byteOffset"] = byte_offset;
    if (normalized) a["normalized"] = true;
    return push("accessors", std::move(a));
  }
  // A tightly packed accessor over its own new bufferView.
  template <class T>
  int data(const std::vector<T>& values, int component_type, const char* type, bool normalized = false) {
    const size_t components = std::string(type) == "SCALAR" ? 1 : std::string(type) == "MAT4" ? 16 : type[3] - '0';
    return accessor(view(values), component_type, values.size() / components, type, normalized);
  }

  int push(const char* array, json value) {
    json& a = doc[array];
    if (a.is_null()) a = json::array();
    a.push_back(std::move(value));
    return static_cast<int>(a.size()) - 1;
  }

  // One node with a one-primitive mesh; returns the node index.
  int mesh_node(json attributes, int indices = -1, int mode = -1) {
    json primitive = {{"attributes", std::move(attributes)}};
    if (indices >= 0) primitive["indices"] = indices;
    if (mode >= 0) primitive["mode"] = mode;
    const int mesh = push("meshes", {{"primitives", json::array({primitive})}});
    return push("nodes", {{"mesh", mesh}});
  }

  json with_buffer(const std::string& uri) const {
    json d = doc;
    if (!buffers_override.is_null()) {
      d["buffers"] = buffers_override;
      return d;
    }
    json buffer = {{"byteLength", bin.size()}};
    if (!uri.empty()) buffer["uri"] = uri;
    json buffers = json::array();
    if (!bin.empty() || d.contains("bufferViews")) buffers.push_back(buffer);
    if (d.contains("buffers"))
      for (const json& extra : d["buffers"]) buffers.push_back(extra);
    if (buffers.empty())
      d.erase("buffers");
    else
      d["buffers"] = buffers;
    return d;
  }

  std::vector<uint8_t> gltf() const {
    const std::string text =
        with_buffer("data:application/octet-stream;base64," + base64(bin.data(), bin.size())).dump();
    return {text.begin(), text.end()};
  }

  std::vector<uint8_t> glb() const { return glb_bytes(with_buffer(""), bin); }

  // A GLB of any document and BIN chunk (no BIN chunk when `chunk` is empty).
  static std::vector<uint8_t> glb_bytes(const json& document, std::vector<uint8_t> chunk) {
    std::string text = document.dump();
    while (text.size() % 4) text += ' ';
    while (chunk.size() % 4) chunk.push_back(0);
    std::vector<uint8_t> out;
    auto u32 = [&](uint32_t v) {
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    };
    const bool has_bin = !chunk.empty();
    u32(0x46546C67);
    u32(2);
    u32(static_cast<uint32_t>(12 + 8 + text.size() + (has_bin ? 8 + chunk.size() : 0)));
    u32(static_cast<uint32_t>(text.size()));
    u32(0x4E4F534A);
    out.insert(out.end(), text.begin(), text.end());
    if (has_bin) {
      u32(static_cast<uint32_t>(chunk.size()));
      u32(0x004E4942);
      out.insert(out.end(), chunk.begin(), chunk.end());
    }
    return out;
  }

  // Writes NAME.gltf and NAME.bin into `dir`; returns the .gltf path.
  std::filesystem::path write_external(const std::filesystem::path& dir, const std::string& name) const {
    const std::string text = with_buffer(name + ".bin").dump();
    std::ofstream(dir / (name + ".gltf"), std::ios::binary) << text;
    std::ofstream(dir / (name + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(bin.size()));
    return dir / (name + ".gltf");
  }

  Result<Asset> import_gltf(const ImportOptions& options = {}) const {
    return import_gltf_memory(gltf(), "test.gltf", {}, options);
  }
  Result<Asset> import_glb(const ImportOptions& options = {}) const {
    return import_gltf_memory(glb(), "test.glb", {}, options);
  }
};

inline Result<Asset> import_json(const json& doc, const std::string& name = "test.gltf") {
  const std::string text = doc.dump();
  return import_gltf_memory(std::vector<uint8_t>(text.begin(), text.end()), name);
}

}  // namespace vatkit::test

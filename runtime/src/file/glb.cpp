// The GLB container is little-endian; vatkit only builds on little-endian hosts, so chunk
// headers and data are copied as they are in memory.
#include "file/glb.h"
#include "util/from_chars.h"

#include <bit>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace vatkit::glb {
namespace {

static_assert(std::endian::native == std::endian::little, "GLB is little-endian");

uint32_t get_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

uint32_t component_size(ComponentType c) {
  switch (c) {
    case ComponentType::Int8:
    case ComponentType::UInt8: return 1;
    case ComponentType::Int16:
    case ComponentType::UInt16: return 2;
    case ComponentType::UInt32:
    case ComponentType::Float: return 4;
  }
  return 4;
}

nlohmann::json json_number(float value) {
  assert(std::isfinite(value));
  // Shortest decimal that reads back as `value` when parsed straight to float...
  char text[32];
  const auto written = std::to_chars(text, text + sizeof(text), value);
  double as_double = 0.0;
  vatkit::detail::floating_from_chars(text, written.ptr, as_double);
  // ...but glTF readers parse to double and narrow; in the rare case where that double rounding
  // lands elsewhere, or past the float range (FLT_MAX's shortest decimal, 3.4028235e38, is above
  // it, and a reader that checks the double's range refuses it), fall back to the float's exact
  // value (always exact, just longer).
  if (static_cast<float>(as_double) != value || std::fabs(as_double) > double(std::numeric_limits<float>::max())) {
    as_double = static_cast<double>(value);
  }
  return as_double;
}

nlohmann::json json_array(std::span<const float> values) {
  nlohmann::json out = nlohmann::json::array();
  for (float v : values) out.push_back(json_number(v));
  return out;
}
nlohmann::json json_array(const glm::vec3& v) { return json_array(std::span<const float>(&v.x, 3)); }
nlohmann::json json_array(const glm::vec4& v) { return json_array(std::span<const float>(&v.x, 4)); }
Result<Chunks> split_glb(std::span<const uint8_t> bytes, const std::string& name) {
  if (bytes.size() < kHeaderSize) {
    return make_error(ErrorCode::Parse, name,
                      "GLB header: file has " + std::to_string(bytes.size()) + " bytes, a GLB needs at least 12");
  }
  if (get_u32(bytes.data()) != kMagic) return make_error(ErrorCode::Parse, name, "GLB header: magic is not \"glTF\"");
  const uint32_t version = get_u32(bytes.data() + 4);
  if (version != 2) {
    return make_error(ErrorCode::Parse, name, "GLB header: version " + std::to_string(version) + ", expected 2");
  }
  const uint32_t length = get_u32(bytes.data() + 8);
  if (length != bytes.size()) {
    return make_error(ErrorCode::Parse, name,
                      "GLB header: length " + std::to_string(length) + " but the file has " +
                          std::to_string(bytes.size()) + " bytes");
  }
  Chunks chunks;
  size_t offset = kHeaderSize;
  for (int index = 0; offset < bytes.size(); ++index) {
    const std::string where = "GLB chunk " + std::to_string(index) + " at offset " + std::to_string(offset);
    if (bytes.size() - offset < kChunkHeaderSize) {
      return make_error(ErrorCode::Parse, name, where + ": truncated chunk header");
    }
    const uint32_t chunk_length = get_u32(bytes.data() + offset);
    const uint32_t chunk_type = get_u32(bytes.data() + offset + 4);
    const size_t data = offset + kChunkHeaderSize;
    if (chunk_length > bytes.size() - data) {
      return make_error(ErrorCode::Parse, name,
                        where + ": length " + std::to_string(chunk_length) + " runs past the end of the file");
    }
    if (chunk_length % 4 != 0) {
      return make_error(ErrorCode::Parse, name,
                        where + ": length " + std::to_string(chunk_length) + " is not a multiple of 4");
    }
    const auto content = bytes.subspan(data, chunk_length);
    if (index == 0) {
      if (chunk_type != kChunkJson) return make_error(ErrorCode::Parse, name, where + ": first chunk is not JSON");
      chunks.json = content;
    } else if (index == 1 && chunk_type == kChunkBin) {
      chunks.bin = content;
      chunks.bin_offset = data;
    } else if (chunk_type == kChunkJson || chunk_type == kChunkBin) {
      return make_error(
          ErrorCode::Parse, name,
          where + ": unexpected second " + std::string(chunk_type == kChunkJson ? "JSON" : "BIN") + " chunk");
    }
    offset = data + chunk_length;
  }
  if (chunks.json.data() == nullptr) return make_error(ErrorCode::Parse, name, "GLB: no JSON chunk");
  return chunks;
}

}  // namespace vatkit::glb

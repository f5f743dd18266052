// glb.h (internal to vatkit, not installed): the glTF binary container (.glb) as the .vat.glb
// reader and the writers (glb_writer.h) share it: component types, splitting a .glb into its
// chunks, and the float spelling that reads back exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>

#include "vatkit/result.h"

namespace vatkit::glb {

// accessor.componentType
enum class ComponentType : uint32_t {
  Int8 = 5120,
  UInt8 = 5121,
  Int16 = 5122,
  UInt16 = 5123,
  UInt32 = 5125,
  Float = 5126,
};

// bufferView.target (None: the property is left out, e.g. animation data, images, VAT planes).
enum class Target : uint32_t { None = 0, ArrayBuffer = 34962, ElementArrayBuffer = 34963 };

inline constexpr uint32_t kMagic = 0x46546C67;      // "glTF"
inline constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
inline constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
inline constexpr size_t kHeaderSize = 12;
inline constexpr size_t kChunkHeaderSize = 8;

// Bytes of one component of `c`.
uint32_t component_size(ComponentType c);
// A float as a JSON number that reads back (as a double, then narrowed to float, which is what
// every glTF reader does) as exactly `value`, and whose double is within the float range: the
// shortest such decimal. `value` must be finite.
nlohmann::json json_number(float value);
// Arrays of json_number, e.g. for translation, rotation, scale, baseColorFactor.
nlohmann::json json_array(std::span<const float> values);
nlohmann::json json_array(const glm::vec3& v);
nlohmann::json json_array(const glm::vec4& v);
// glTF stores quaternions as (x, y, z, w); glm::quat's constructor takes (w, x, y, z).
inline glm::vec4 to_xyzw(const glm::quat& q) { return {q.x, q.y, q.z, q.w}; }

// The chunks of a .glb, pointing into the caller's bytes.
struct Chunks {
  std::span<const uint8_t> json;  // the JSON text, trailing space padding included
  std::span<const uint8_t> bin;   // the BIN chunk's data; empty when the file has none
  size_t bin_offset = 0;          // file offset of bin.data(); 0 when none
};

// Splits a .glb into its chunks, checking the header (magic, version 2, length equal to the
// byte count), the chunk order (JSON first, then an optional BIN), chunk lengths (within the
// file, multiples of 4) and skipping unknown chunks after them. Errors name `name` and say what
// is wrong and at which offset.
Result<Chunks> split_glb(std::span<const uint8_t> bytes, const std::string& name);

}  // namespace vatkit::glb

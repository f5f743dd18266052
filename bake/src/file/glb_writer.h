// glb_writer.h (internal to vatkit::bake, not installed): builds glTF 2.0 binaries (.glb) in
// memory, deterministically, and splits a .glb back into its chunks.
//
// Typical use (the sample character, the .vat.glb writer):
//
//     glb::Writer w;                                        // views 4-byte aligned by default
//     w.json()["asset"]["generator"] = "vatkit";
//     const uint32_t pos = w.add_accessor<glm::vec3>(positions,
//                                                    {.target = glb::Target::ArrayBuffer,
//                                                     .min_max = true});  // POSITION needs min/max
//     const uint32_t idx = w.add_accessor<uint16_t>(indices, {.target = glb::Target::ElementArrayBuffer});
//     const uint32_t mesh = w.append("meshes", {{"primitives", ...}});
//     const uint32_t plane = w.add_buffer_view(raw_bytes, {.alignment = 16});  // no accessor
//     w.json()["extensions"]["VENDOR_ext"] = {...};
//     w.use_extension("VENDOR_ext", /*required=*/false);
//     std::vector<uint8_t> file = w.finish();
//
// Large data need not be copied: a view added with `.borrow = true` keeps a pointer to the
// caller's bytes, and parts() gives the file as a head (header, JSON chunk, BIN chunk header)
// followed by the pieces of the BIN data, for write_file_atomic_pieces (file_io.h) without ever holding the
// whole file in memory. The .vat.glb writer borrows its planes this way: a 139 MB file is written
// from the baked planes themselves.
//
// What it guarantees:
//  - One buffer, stored in the GLB's BIN chunk; every buffer view starts at a multiple of its
//    alignment (a power of two >= 4) from the start of the BIN data, and the BIN data itself
//    starts at a file offset that is a multiple of the largest alignment used, so views are
//    aligned in the file too (a loader can map the file and upload from it directly).
//  - Padding as the GLB spec requires: the JSON chunk with spaces, the BIN chunk (and the gaps
//    between views) with zeros. No uninitialized byte reaches the output.
//  - Deterministic bytes: object keys sorted (nlohmann::json's std::map), compact JSON, numbers
//    written by json_number() so that every float reads back as exactly the same float, with no
//    locale involved. The writer adds nothing time- or machine-dependent.
// What it does not do: interleaved vertex streams with automatic strides, sparse accessors,
// external buffers or data URIs, images other than as plain buffer views the caller describes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>

#include "vatkit/result.h"
#include "file/glb.h"

namespace vatkit::glb {

// The glTF description of a C++ element type usable with Writer::add_accessor: float, the
// integer types glTF allows, glm vectors of them (2 to 4 components) and glm::mat4.
template <class T>
struct Element;

template <class C>
struct ComponentOf;
template <>
struct ComponentOf<float> {
  static constexpr ComponentType value = ComponentType::Float;
};
template <>
struct ComponentOf<int8_t> {
  static constexpr ComponentType value = ComponentType::Int8;
};
template <>
struct ComponentOf<uint8_t> {
  static constexpr ComponentType value = ComponentType::UInt8;
};
template <>
struct ComponentOf<int16_t> {
  static constexpr ComponentType value = ComponentType::Int16;
};
template <>
struct ComponentOf<uint16_t> {
  static constexpr ComponentType value = ComponentType::UInt16;
};
template <>
struct ComponentOf<uint32_t> {
  static constexpr ComponentType value = ComponentType::UInt32;
};

template <class C>
struct Element {
  using Component = C;
  static constexpr ComponentType component = ComponentOf<C>::value;
  static constexpr uint32_t components = 1;
  static constexpr const char* type = "SCALAR";
};
template <glm::length_t N, class C, glm::qualifier Q>
struct Element<glm::vec<N, C, Q>> {
  using Component = C;
  static constexpr ComponentType component = ComponentOf<C>::value;
  static constexpr uint32_t components = N;
  static constexpr const char* type = N == 2 ? "VEC2" : N == 3 ? "VEC3" : "VEC4";
};
template <glm::qualifier Q>
struct Element<glm::mat<4, 4, float, Q>> {
  using Component = float;
  static constexpr ComponentType component = ComponentType::Float;
  static constexpr uint32_t components = 16;
  static constexpr const char* type = "MAT4";
};

struct ViewOptions {
  uint32_t alignment = 0;  // power of two >= 4; 0 = the writer's default
  Target target = Target::None;
  uint32_t byte_stride = 0;  // 0 = tightly packed (left out of the JSON)
  std::string name;          // left out when empty
  // Keep a pointer to the bytes instead of copying them: they must stay alive and unchanged
  // until the last finish() or parts() (and the parts' use) is done.
  bool borrow = false;
};

struct AccessorOptions {
  Target target = Target::None;  // of the view created for the data
  bool min_max = false;          // write min and max (required for POSITION and animation inputs)
  bool normalized = false;       // integer components read as [0, 1] / [-1, 1]; no min_max then
  uint32_t alignment = 0;        // of the view; 0 = the writer's default
  std::string name;              // of the accessor; left out when empty
};

// An accessor over an existing buffer view (several accessors in one view, strided data).
struct AccessorDesc {
  uint32_t buffer_view = 0;
  uint32_t byte_offset = 0;  // must be a multiple of the component size
  ComponentType component = ComponentType::Float;
  const char* type = "SCALAR";
  uint32_t count = 0;  // >= 1
  bool normalized = false;
  nlohmann::json min;  // written when not null
  nlohmann::json max;
  std::string name;
};

class Writer {
 public:
  // `default_alignment`: power of two >= 4, used for views whose options say 0.
  explicit Writer(uint32_t default_alignment = 4);
  // Movable, not copyable (views point into the writer's own copies).
  Writer(Writer&&) = default;
  Writer& operator=(Writer&&) = default;
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // The glTF document. Starts as {"asset": {"version": "2.0"}}. Add anything (names, extensions,
  // extras); do not add "buffers" (finish() writes the one buffer) nor edit "bufferViews".
  nlohmann::json& json() { return json_; }
  const nlohmann::json& json() const { return json_; }

  // Appends `object` to the top-level array `array` ("nodes", "meshes", "skins", ...), creating
  // it if needed, and returns the new element's index.
  uint32_t append(const std::string& array, nlohmann::json object);

  // Lists `name` in extensionsUsed (and extensionsRequired when `required`), once, sorted.
  void use_extension(const std::string& name, bool required = false);

  // Copies `bytes` (non-empty; or borrows them, ViewOptions::borrow) into the BIN chunk as a new
  // buffer view; returns its index.
  uint32_t add_buffer_view(std::span<const uint8_t> bytes, const ViewOptions& options = {});

  // Adds an accessor over an existing view; returns its index.
  uint32_t add_accessor(const AccessorDesc& desc);

  // Copies a typed array (non-empty) into a new buffer view with one accessor over it; returns
  // the accessor's index. min/max are computed from the data when options.min_max is set.
  template <class T>
  uint32_t add_accessor(std::span<const T> data, const AccessorOptions& options = {}) {
    using E = Element<T>;
    static_assert(std::is_trivially_copyable_v<T>);
    static_assert(sizeof(T) == sizeof(typename E::Component) * E::components, "T must be packed");
    const auto* components = reinterpret_cast<const typename E::Component*>(data.data());
    return add_typed(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size_bytes()), E::component,
        E::type, E::components, static_cast<uint32_t>(data.size()), options,
        options.min_max ? bounds(components, data.size(), E::components) : std::pair<nlohmann::json, nlohmann::json>{});
  }
  template <class T>
  uint32_t add_accessor(const std::vector<T>& data, const AccessorOptions& options = {}) {
    return add_accessor(std::span<const T>(data), options);
  }

  // Bytes of the BIN data so far (views and the padding between them).
  size_t bin_size() const { return bin_size_; }

  // The file in pieces: `head` (the 12-byte header, the JSON chunk, the BIN chunk's header),
  // then `body` (the BIN data: views and zero padding; borrowed views point at the caller's
  // bytes, the others into the writer). Concatenated, they are finish()'s bytes. Valid while
  // the writer and every borrowed view's bytes are.
  struct Parts {
    std::vector<uint8_t> head;
    std::vector<std::span<const uint8_t>> body;
    std::span<uint8_t> json_chunk();  // the JSON chunk's data, inside `head`
    size_t size() const;
    std::vector<uint8_t> join() const;  // the pieces in one buffer
  };
  Parts parts() const;

  // The complete .glb file (parts().join()). Can be called more than once; the writer is not
  // changed.
  std::vector<uint8_t> finish() const;

 private:
  template <class C>
  static std::pair<nlohmann::json, nlohmann::json> bounds(const C* values, size_t count, uint32_t components);
  uint32_t add_typed(std::span<const uint8_t> bytes, ComponentType component, const char* type, uint32_t components,
                     uint32_t count, const AccessorOptions& options, std::pair<nlohmann::json, nlohmann::json> min_max);

  // The BIN data: views in order, each at `offset` (zeros before it, from the previous end).
  struct View {
    size_t offset;
    std::span<const uint8_t> bytes;  // into `copies_` or the caller's (borrowed) memory
  };
  nlohmann::json json_;
  std::vector<View> views_;
  std::vector<std::vector<uint8_t>> copies_;  // moving this vector does not move its elements' bytes
  size_t bin_size_ = 0;
  uint32_t default_alignment_;
  uint32_t max_alignment_ = 4;
};

template <class C>
std::pair<nlohmann::json, nlohmann::json> Writer::bounds(const C* values, size_t count, uint32_t components) {
  nlohmann::json min = nlohmann::json::array(), max = nlohmann::json::array();
  for (uint32_t c = 0; c < components; ++c) {
    C lo = values[c], hi = values[c];
    for (size_t i = 1; i < count; ++i) {
      const C v = values[i * components + c];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    if constexpr (std::is_same_v<C, float>) {
      min.push_back(json_number(lo));
      max.push_back(json_number(hi));
    } else {
      min.push_back(static_cast<int64_t>(lo));
      max.push_back(static_cast<int64_t>(hi));
    }
  }
  return {std::move(min), std::move(max)};
}

}  // namespace vatkit::glb

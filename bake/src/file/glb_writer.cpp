// The GLB container is little-endian; vatkit only builds on little-endian hosts, so chunk
// headers and data are copied as they are in memory.
#include "file/glb_writer.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <cmath>
#include <limits>
#include <cstring>

namespace vatkit::glb {
namespace {

static_assert(std::endian::native == std::endian::little, "GLB is little-endian");

[[maybe_unused]] bool is_valid_alignment(uint32_t a) { return a >= 4 && std::has_single_bit(a); }

size_t round_up(size_t value, size_t alignment) { return (value + alignment - 1) / alignment * alignment; }

void put_u32(std::vector<uint8_t>& out, uint32_t value) {
  uint8_t b[4];
  std::memcpy(b, &value, 4);
  out.insert(out.end(), b, b + 4);
}

}  // namespace

Writer::Writer(uint32_t default_alignment) : default_alignment_(default_alignment) {
  assert(is_valid_alignment(default_alignment));
  json_["asset"]["version"] = "2.0";
}

uint32_t Writer::append(const std::string& array, nlohmann::json object) {
  nlohmann::json& list = json_[array];
  if (list.is_null()) list = nlohmann::json::array();
  assert(list.is_array());
  list.push_back(std::move(object));
  return static_cast<uint32_t>(list.size() - 1);
}

void Writer::use_extension(const std::string& name, bool required) {
  auto add_sorted = [&](const char* key) {
    nlohmann::json& list = json_[key];
    if (list.is_null()) list = nlohmann::json::array();
    std::vector<std::string> names = list.get<std::vector<std::string>>();
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    names.push_back(name);
    std::sort(names.begin(), names.end());
    list = names;
  };
  add_sorted("extensionsUsed");
  if (required) add_sorted("extensionsRequired");
}

uint32_t Writer::add_buffer_view(std::span<const uint8_t> bytes, const ViewOptions& options) {
  assert(!bytes.empty());
  const uint32_t alignment = options.alignment ? options.alignment : default_alignment_;
  assert(is_valid_alignment(alignment));
  max_alignment_ = std::max(max_alignment_, alignment);
  const size_t offset = round_up(bin_size_, alignment);
  std::span<const uint8_t> stored = bytes;
  if (!options.borrow) stored = copies_.emplace_back(bytes.begin(), bytes.end());
  views_.push_back({offset, stored});
  bin_size_ = offset + bytes.size();

  nlohmann::json view = {{"buffer", 0}, {"byteLength", bytes.size()}};
  if (offset != 0) view["byteOffset"] = offset;
  if (options.target != Target::None) view["target"] = static_cast<uint32_t>(options.target);
  if (options.byte_stride != 0) {
    assert(options.byte_stride % 4 == 0 && options.byte_stride >= 4 && options.byte_stride <= 252);
    view["byteStride"] = options.byte_stride;
  }
  if (!options.name.empty()) view["name"] = options.name;
  return append("bufferViews", std::move(view));
}

uint32_t Writer::add_accessor(const AccessorDesc& desc) {
  assert(desc.count >= 1);
  assert(desc.byte_offset % component_size(desc.component) == 0);
  assert(json_.contains("bufferViews") && desc.buffer_view < json_["bufferViews"].size());
  nlohmann::json accessor = {{"bufferView", desc.buffer_view},
                             {"componentType", static_cast<uint32_t>(desc.component)},
                             {"count", desc.count},
                             {"type", desc.type}};
  if (desc.byte_offset != 0) accessor["byteOffset"] = desc.byte_offset;
  if (desc.normalized) accessor["normalized"] = true;
  if (!desc.min.is_null()) accessor["min"] = desc.min;
  if (!desc.max.is_null()) accessor["max"] = desc.max;
  if (!desc.name.empty()) accessor["name"] = desc.name;
  return append("accessors", std::move(accessor));
}

uint32_t Writer::add_typed(std::span<const uint8_t> bytes, ComponentType component, const char* type,
                           [[maybe_unused]] uint32_t components, uint32_t count, const AccessorOptions& options,
                           std::pair<nlohmann::json, nlohmann::json> min_max) {
  assert(count >= 1);
  assert(!(options.normalized && options.min_max));
  // Vertex attributes must start every element on a 4-byte boundary: packed data needs elements
  // whose size is a multiple of 4 (else the caller pads them and uses AccessorDesc with a stride).
  assert(options.target != Target::ArrayBuffer || (component_size(component) * components) % 4 == 0);
  ViewOptions view;
  view.alignment = options.alignment;
  view.target = options.target;
  AccessorDesc desc;
  desc.buffer_view = add_buffer_view(bytes, view);
  desc.component = component;
  desc.type = type;
  desc.count = count;
  desc.normalized = options.normalized;
  desc.min = std::move(min_max.first);
  desc.max = std::move(min_max.second);
  desc.name = options.name;
  return add_accessor(desc);
}

Writer::Parts Writer::parts() const {
  nlohmann::json doc = json_;
  assert(!doc.contains("buffers"));
  const size_t bin_length = round_up(bin_size_, 4);
  if (bin_length != 0) doc["buffers"] = nlohmann::json::array({{{"byteLength", bin_length}}});

  // Compact, UTF-8 kept as is, invalid UTF-8 (from a source file's names) replaced rather than
  // thrown on.
  std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // Pad the JSON with spaces so that the BIN data starts at a multiple of the largest view
  // alignment in the file (and the JSON chunk ends on 4 bytes, as the spec requires).
  const size_t bin_alignment = bin_length != 0 ? max_alignment_ : 4;
  const size_t fixed = kHeaderSize + kChunkHeaderSize + (bin_length != 0 ? kChunkHeaderSize : 0);
  text.resize(round_up(fixed + text.size(), bin_alignment) - fixed, ' ');

  const size_t total =
      kHeaderSize + kChunkHeaderSize + text.size() + (bin_length != 0 ? kChunkHeaderSize + bin_length : 0);
  assert(total <= UINT32_MAX);
  Parts parts;
  std::vector<uint8_t>& head = parts.head;
  head.reserve(fixed + text.size());
  put_u32(head, kMagic);
  put_u32(head, 2);
  put_u32(head, static_cast<uint32_t>(total));
  put_u32(head, static_cast<uint32_t>(text.size()));
  put_u32(head, kChunkJson);
  head.insert(head.end(), text.begin(), text.end());
  if (bin_length != 0) {
    put_u32(head, static_cast<uint32_t>(bin_length));
    put_u32(head, kChunkBin);
  }
  // The BIN data: each view after the zeros that align it, then zeros to a multiple of 4.
  static constexpr uint8_t kZeros[256] = {};
  auto zeros = [&](size_t count) {
    for (; count > 0; count -= std::min(count, sizeof kZeros)) {
      parts.body.emplace_back(kZeros, std::min(count, sizeof kZeros));
    }
  };
  size_t at = 0;
  for (const View& v : views_) {
    zeros(v.offset - at);
    parts.body.push_back(v.bytes);
    at = v.offset + v.bytes.size();
  }
  zeros(bin_length - at);
  assert(parts.size() == total);
  return parts;
}

std::span<uint8_t> Writer::Parts::json_chunk() {
  uint32_t length = 0;
  std::memcpy(&length, head.data() + kHeaderSize, 4);
  return {head.data() + kHeaderSize + kChunkHeaderSize, length};
}

size_t Writer::Parts::size() const {
  size_t n = head.size();
  for (const std::span<const uint8_t>& piece : body) n += piece.size();
  return n;
}

std::vector<uint8_t> Writer::Parts::join() const {
  std::vector<uint8_t> out;
  out.reserve(size());
  out.insert(out.end(), head.begin(), head.end());
  for (const std::span<const uint8_t>& piece : body) out.insert(out.end(), piece.begin(), piece.end());
  return out;
}

std::vector<uint8_t> Writer::finish() const { return parts().join(); }

}  // namespace vatkit::glb

// vat_format.h (internal to vatkit, not installed): what the .vat.glb reader (vat_file.cpp) and
// writer (the baker's vat_write.cpp) share: the one-line failure they throw inside, the names
// enums take in the file, the rest-pose mesh's vertex attributes, and the full consistency check
// of a Vat (validate_vat's, which the writer runs before writing).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "file/glb.h"
#include "util/number_text.h"
#include "vatkit/vat.h"

namespace vatkit::vat_format {

using glb::ComponentType;

inline constexpr uint32_t kPlaneAlignment = 16;
inline constexpr const char* kExt = "extensions.VATKIT_vertex_animation";

// ---- errors --------------------------------------------------------------------------------

struct Failure {
  std::string message;  // "object: what", without the file name
};

[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
  throw Failure{where + ": " + what};
}

inline std::string num(uint64_t v) { return std::to_string(v); }
inline std::string num(int64_t v) { return std::to_string(v); }
inline std::string num(uint32_t v) { return std::to_string(v); }
inline std::string num(int32_t v) { return std::to_string(v); }
inline std::string num(float v) { return detail::number_text(v); }

// ---- names in the file ---------------------------------------------------------------------

inline const char* loop_name(LoopMode m) {
  switch (m) {
    case LoopMode::Repeat: return "repeat";
    case LoopMode::Once: return "once";
    case LoopMode::PingPong: return "pingPong";
  }
  return "?";
}
inline const char* end_name(EndMode m) { return m == EndMode::Rewind ? "rewind" : "clamp"; }
inline const char* alpha_name(AlphaMode m) {
  switch (m) {
    case AlphaMode::Opaque: return "OPAQUE";
    case AlphaMode::Mask: return "MASK";
    case AlphaMode::Blend: return "BLEND";
  }
  return "?";
}

// The vertex attributes of the rest-pose mesh. Core glTF semantics for what a viewer shows;
// application-specific ones (leading underscore, ignored by viewers) for the rig's bind-space
// geometry and slot influences.
enum class Attr : uint8_t {
  Position, Normal, Tangent, Texcoord0, Color0,
  BindPosition, BindNormal, BindTangent, Slots0, Slots1, Weights0, Weights1,
};
inline constexpr int kAttrCount = 12;

struct AttrInfo {
  const char* gltf;    // attribute name in the file
  const char* member;  // VatGeometry member, for validate_vat's messages
  ComponentType component;
  const char* type;
  uint32_t element_bytes;
};
inline constexpr AttrInfo kAttrs[kAttrCount] = {
    {"POSITION", "geometry.positions", ComponentType::Float, "VEC3", 12},
    {"NORMAL", "geometry.normals", ComponentType::Float, "VEC3", 12},
    {"TANGENT", "geometry.tangents", ComponentType::Float, "VEC4", 16},
    {"TEXCOORD_0", "geometry.texcoords0", ComponentType::Float, "VEC2", 8},
    {"COLOR_0", "geometry.colors0", ComponentType::Float, "VEC4", 16},
    {"_VAT_BIND_POSITION", "geometry.bind_positions", ComponentType::Float, "VEC3", 12},
    {"_VAT_BIND_NORMAL", "geometry.bind_normals", ComponentType::Float, "VEC3", 12},
    {"_VAT_BIND_TANGENT", "geometry.bind_tangents", ComponentType::Float, "VEC4", 16},
    {"_VAT_SLOTS_0", "geometry.slots0", ComponentType::UInt16, "VEC4", 8},
    {"_VAT_SLOTS_1", "geometry.slots1", ComponentType::UInt16, "VEC4", 8},
    {"_VAT_SLOT_WEIGHTS_0", "geometry.slot_weights0", ComponentType::Float, "VEC4", 16},
    {"_VAT_SLOT_WEIGHTS_1", "geometry.slot_weights1", ComponentType::Float, "VEC4", 16},
};
inline const AttrInfo& info(Attr a) { return kAttrs[static_cast<int>(a)]; }

// Calls f with the VatGeometry vector holding attribute `a`.
template <class G, class F>
decltype(auto) with_attr(G& g, Attr a, F&& f) {
  switch (a) {
    case Attr::Position: return f(g.positions);
    case Attr::Normal: return f(g.normals);
    case Attr::Tangent: return f(g.tangents);
    case Attr::Texcoord0: return f(g.texcoords0);
    case Attr::Color0: return f(g.colors0);
    case Attr::BindPosition: return f(g.bind_positions);
    case Attr::BindNormal: return f(g.bind_normals);
    case Attr::BindTangent: return f(g.bind_tangents);
    case Attr::Slots0: return f(g.slots0);
    case Attr::Slots1: return f(g.slots1);
    case Attr::Weights0: return f(g.slot_weights0);
    case Attr::Weights1: return f(g.slot_weights1);
  }
  return f(g.positions);
}

inline size_t attr_count(const VatGeometry& g, Attr a) {
  return with_attr(g, a, [](const auto& v) { return v.size(); });
}

// A clip's measured error under the names the file gives it (a clip's "error", format version 2).
template <class Accuracy>  // ClipAccuracy, or const ClipAccuracy
auto accuracy_fields(Accuracy& a) {
  return std::array{std::pair{&a.on_rows_max_mm, "onRowsMaxMm"}, std::pair{&a.on_rows_p99_mm, "onRowsP99Mm"},
                    std::pair{&a.between_rows_max_mm, "betweenRowsMaxMm"},
                    std::pair{&a.between_rows_p99_mm, "betweenRowsP99Mm"},
                    std::pair{&a.normal_max_deg, "normalMaxDeg"}};
}

// Everything validate_vat checks, with names in the Vat's terms; throws Failure.
void check_vat(const Vat& vat);

}  // namespace vatkit::vat_format

// vat_format.h (internal to vatkit, not installed): what the .vat.glb reader (vat_read.cpp), the
// writer (the baker's vat_write.cpp) and the consistency checks (vat_validate.cpp) share: the
// one-line failure they throw inside, the rest-pose mesh's vertex attributes, and the checks
// (validate_vat's, which the loader runs on what it reads and the writer before writing). The
// extension's properties are described in vat_schema.h.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "file/glb.h"
#include "util/number_text.h"
#include "vatkit/vat.h"

namespace vatkit::vat_format {

using glb::ComponentType;

inline constexpr uint32_t kPlaneAlignment = 16;
inline constexpr const char* kExt = "extensions.VATKIT_vertex_animation";

// ---- errors --------------------------------------------------------------------------------

struct Failure {
  ErrorCode code;
  std::string message;  // "object: what", without the file name
};

[[noreturn]] inline void fail(ErrorCode code, const std::string& where, const std::string& what) {
  throw Failure{code, where + ": " + what};
}
// A file (or Vat) that breaks the format: ErrorCode::Corrupt.
[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
  fail(ErrorCode::Corrupt, where, what);
}

inline std::string num(uint64_t v) { return std::to_string(v); }
inline std::string num(int64_t v) { return std::to_string(v); }
inline std::string num(uint32_t v) { return std::to_string(v); }
inline std::string num(int32_t v) { return std::to_string(v); }
inline std::string num(float v) { return detail::number_text(v); }

// The vertex attributes of the rest-pose mesh. Core glTF semantics for what a viewer shows;
// application-specific ones (leading underscore, ignored by viewers) for the rig's bind-space
// geometry and slot influences.
enum class Attr : uint8_t {
  Position,
  Normal,
  Tangent,
  Texcoord0,
  Color0,
  BindPosition,
  BindNormal,
  BindTangent,
  Slots0,
  Slots1,
  Weights0,
  Weights1,
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

// ---- the consistency checks (vat_validate.cpp) ---------------------------------------------
// Shared by validate_vat and the loader. `where` names the object the way the caller's user sees
// it: "clips[2]" for a Vat, "extensions.VATKIT_vertex_animation.clips[2]" for a file. Each
// throws Failure.

void check_finite(float v, const std::string& where);
// The versions this vatkit reads, and their sentence for messages.
bool readable_version(uint64_t version);
std::string readable_versions();

void check_clip(const VatClip& c, uint32_t frame_rows, const std::string& where);
// A clip's events (part of check_clip); `where` names the event list.
void check_events(const VatClip& c, const std::string& where);
// A clip's root motion (part of check_clip); `where` names it.
void check_root_motion(const VatClip& c, const std::string& where);
// The clips' bands share no frame row. `where` names the clip list.
void check_bands(const std::vector<VatClip>& clips, const std::string& where);
void check_slot(const VatSlot& s, const std::string& where);
// Source ranges: at least one vertex each, inside the vertex count, disjoint and in vertex order.
void check_sources(const std::vector<SourceRange>& sources, uint32_t vertex_count, const std::string& where);
void check_material(const Material& m, size_t image_count, const std::string& where);
void check_image(const Image& image, const std::string& where);
// Sizes, finiteness and ranges of the geometry's attributes and indices; `attr_where(a)` names
// attribute a.
void check_geometry(const VatGeometry& g, size_t slot_count, Encoding encoding,
                    const std::function<std::string(Attr)>& attr_where, const std::string& indices_where);
void check_group(const DrawGroup& group, size_t index_count, size_t material_count, const std::string& where);
// The levels of detail (docs/format.md, "lod"); `where` names the list.
void check_lods(const VatGeometry& g, const std::string& where);
// A plane's dimensions against the Vat (its bytes are the caller's to check).
void check_plane_shape(const Plane& p, const Vat& vat, const std::string& where);
uint64_t plane_bytes(const Plane& p);
// The set of planes an encoding and precision carry; `seen` is indexed by PlaneSemantic.
void check_plane_set(const bool (&seen)[4], Encoding encoding, Precision precision, const std::string& where);

// Everything validate_vat checks, with names in the Vat's terms.
void check_vat(const Vat& vat);

}  // namespace vatkit::vat_format

// vat_schema.h (internal to vatkit, not installed): the properties of a .vat.glb's JSON, each
// described once. A field gives its key, the member that holds it, how its value is stored (the
// Codec of the member's type: JSON type, range, how it is written), what validate_vat requires of
// it beyond that (its Rule), whether it may be absent (and then what it means), and the format
// version that introduced it. The reader (vat_read.cpp), the writer (the baker's vat_write.cpp)
// and the consistency checks (vat_validate.cpp) all walk these tables, so a key, a type, a range
// or an optionality cannot differ between them. docs/format.md specifies the same properties in
// prose; a change here is a change of the format (docs/format.md, "Versioning").
//
// Reading is strict (exact JSON types, 32-bit ranges, finite floats) and every failure throws
// Failure naming the property, e.g. "extensions.VATKIT_vertex_animation.clips[0].fps: expected a
// number".
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "file/glb.h"
#include "file/vat_format.h"

namespace vatkit::vat_format {

using nlohmann::json;

// ---- reading JSON strictly -----------------------------------------------------------------

inline const json* find(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

inline const json& member(const json& object, const char* key, const std::string& where) {
  const json* value = find(object, key);
  if (!value) fail(where, std::string("missing \"") + key + "\"");
  return *value;
}

inline std::string at(const std::string& where, size_t index) { return where + "[" + std::to_string(index) + "]"; }

inline const json& as_object(const json& v, const std::string& where) {
  if (!v.is_object()) fail(where, "expected an object");
  return v;
}
inline const json& as_array(const json& v, const std::string& where) {
  if (!v.is_array()) fail(where, "expected an array");
  return v;
}
inline const std::string& as_string(const json& v, const std::string& where) {
  if (!v.is_string()) fail(where, "expected a string");
  return v.get_ref<const std::string&>();
}
inline bool as_bool(const json& v, const std::string& where) {
  if (!v.is_boolean()) fail(where, "expected true or false");
  return v.get<bool>();
}
inline uint32_t as_u32(const json& v, const std::string& where) {
  if (!v.is_number_unsigned()) fail(where, "expected an unsigned integer");
  const uint64_t x = v.get<uint64_t>();
  if (x > std::numeric_limits<uint32_t>::max()) fail(where, num(x) + " is out of range");
  return static_cast<uint32_t>(x);
}
inline int32_t as_i32(const json& v, const std::string& where) {
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x > uint64_t(std::numeric_limits<int32_t>::max())) fail(where, num(x) + " is out of range");
    return static_cast<int32_t>(x);
  }
  if (!v.is_number_integer()) fail(where, "expected an integer");
  const int64_t x = v.get<int64_t>();
  if (x < std::numeric_limits<int32_t>::min()) fail(where, num(x) + " is out of range");
  return static_cast<int32_t>(x);
}
inline float as_float(const json& v, const std::string& where) {
  if (!v.is_number()) fail(where, "expected a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::abs(d) > double(std::numeric_limits<float>::max())) {
    fail(where, "not a finite 32-bit float");
  }
  return static_cast<float>(d);
}
// An array of N numbers; element c is named where[c].
template <int N>
glm::vec<N, float> as_vec(const json& v, const std::string& where) {
  if (!v.is_array() || v.size() != N) fail(where, "expected an array of " + std::to_string(N) + " numbers");
  glm::vec<N, float> out;
  for (int c = 0; c < N; ++c) out[c] = as_float(v[c], at(where, size_t(c)));
  return out;
}

// ---- the names enums take in the file ------------------------------------------------------

template <class E>
struct EnumNames;
template <>
struct EnumNames<Encoding> {
  static constexpr const char* what = "encoding";
  static constexpr std::pair<const char*, Encoding> names[] = {{"delta", Encoding::Delta}, {"rig", Encoding::Rig}};
};
template <>
struct EnumNames<Precision> {
  static constexpr const char* what = "precision";
  static constexpr std::pair<const char*, Precision> names[] = {
      {"f32", Precision::F32}, {"f16", Precision::F16}, {"q16", Precision::Q16}};
};
template <>
struct EnumNames<LoopMode> {
  static constexpr const char* what = "loop mode";
  static constexpr std::pair<const char*, LoopMode> names[] = {
      {"repeat", LoopMode::Repeat}, {"once", LoopMode::Once}, {"pingPong", LoopMode::PingPong}};
};
template <>
struct EnumNames<EndMode> {
  static constexpr const char* what = "end mode";
  static constexpr std::pair<const char*, EndMode> names[] = {{"clamp", EndMode::Clamp}, {"rewind", EndMode::Rewind}};
};
template <>
struct EnumNames<RootMotionSource> {
  static constexpr const char* what = "root motion source";
  static constexpr std::pair<const char*, RootMotionSource> names[] = {{"joint", RootMotionSource::Joint},
                                                                       {"feet", RootMotionSource::Feet}};
};
template <>
struct EnumNames<PlaneSemantic> {
  static constexpr const char* what = "plane semantic";
  static constexpr std::pair<const char*, PlaneSemantic> names[] = {{"position", PlaneSemantic::Position},
                                                                    {"normal", PlaneSemantic::Normal},
                                                                    {"tangent", PlaneSemantic::Tangent},
                                                                    {"slots", PlaneSemantic::Slots}};
};
template <>
struct EnumNames<TexelFormat> {
  static constexpr const char* what = "texel format";
  static constexpr std::pair<const char*, TexelFormat> names[] = {
      {"rgba32f", TexelFormat::RGBA32F}, {"rgba16f", TexelFormat::RGBA16F}, {"rgba16unorm", TexelFormat::RGBA16Unorm}};
};
template <>
struct EnumNames<AlphaMode> {
  static constexpr const char* what = "alpha mode";
  static constexpr std::pair<const char*, AlphaMode> names[] = {
      {"OPAQUE", AlphaMode::Opaque}, {"MASK", AlphaMode::Mask}, {"BLEND", AlphaMode::Blend}};
};

// The name `value` takes in the file; nullptr for a value that has none.
template <class E>
const char* name_of(E value) {
  for (const auto& [name, v] : EnumNames<E>::names)
    if (v == value) return name;
  return nullptr;
}

template <class E>
E as_enum(const json& v, const std::string& where) {
  const std::string& s = as_string(v, where);
  for (const auto& [name, value] : EnumNames<E>::names)
    if (s == name) return value;
  std::string expected;
  for (const auto& [name, value] : EnumNames<E>::names) expected += std::string(expected.empty() ? "" : ", ") + name;
  fail(where, "\"" + s + "\" is not one of " + expected);
}

// ---- fields --------------------------------------------------------------------------------

enum class Presence : uint8_t {
  Required,  // always written; a file without it is refused
  Optional,  // written when the field's write_if says so; when absent the member keeps its default
};

// What validate_vat requires of a field beyond what its type's Codec checks (a float finite, an
// enum one of its names).
struct Rule {
  enum Kind : uint8_t {
    Any,
    NonNegative,      // "-1 is negative"
    AtLeastMinusOne,  // "-2 < -1" (-1 means none, or endless)
    Positive,         // "0, <why>"
  } kind = Any;
  const char* why = nullptr;  // Positive: what the message adds after "0, "
};
inline constexpr Rule kNonNegative{Rule::NonNegative};
inline constexpr Rule kAtLeastMinusOne{Rule::AtLeastMinusOne};
constexpr Rule positive(const char* why) { return {Rule::Positive, why}; }

// An optional field's default write_if: written when it differs from a default-constructed
// object's (an std::optional when it holds a value), so that an absent field reads back as the
// same default.
struct WhenNotDefault {};
// write_if of an optional field that is always written (readers accept it absent).
struct Always {
  constexpr bool operator()(const auto&) const { return true; }
};

template <class Get, class WriteIf>
struct Field {
  const char* key;  // the JSON key
  Get get;          // get(object): the member, a reference (or a tuple of references)
  Rule rule;
  Presence presence;
  uint32_t since;    // the format version that introduced it
  WriteIf write_if;  // Optional: when it is written, WhenNotDefault or a predicate on the object
};

template <class Get>
constexpr auto field(const char* key, Get get, Rule rule = {}) {
  return Field<Get, Always>{key, get, rule, Presence::Required, 1, {}};
}
template <class Get, class WriteIf = WhenNotDefault>
constexpr auto optional_field(const char* key, Get get, uint32_t since = 1, WriteIf write_if = {}, Rule rule = {}) {
  return Field<Get, WriteIf>{key, get, rule, Presence::Optional, since, write_if};
}

// The member of an object a field holds, for the tables below.
#define VATKIT_MEMBER(path) \
  [](auto& object) -> auto& { return object.path; }

// An object type with a table of fields: Schema<T>::fields.
template <class T>
struct Schema;
template <class T>
concept HasSchema = requires {
  Schema<T>::fields;
};

// ---- codecs: how a value of each member type is read, written and checked -------------------

template <class T>
struct Codec;

template <class Object, class Fields>
void read_fields(const Fields& fields, const json& o, const std::string& where, uint32_t version, Object& object);
template <class Object, class Fields>
json write_fields(const Fields& fields, const Object& object);
template <class Object, class Fields>
void check_fields(const Fields& fields, const Object& object, const std::string& where);

template <>
struct Codec<uint32_t> {
  static uint32_t read(const json& v, const std::string& where, uint32_t) { return as_u32(v, where); }
  static json write(uint32_t v) { return v; }
  static void check(uint32_t, const std::string&) {}
};
template <>
struct Codec<int32_t> {
  static int32_t read(const json& v, const std::string& where, uint32_t) { return as_i32(v, where); }
  static json write(int32_t v) { return v; }
  static void check(int32_t, const std::string&) {}
};
template <>
struct Codec<bool> {
  static bool read(const json& v, const std::string& where, uint32_t) { return as_bool(v, where); }
  static json write(bool v) { return v; }
  static void check(bool, const std::string&) {}
};
template <>
struct Codec<std::string> {
  static std::string read(const json& v, const std::string& where, uint32_t) { return as_string(v, where); }
  static json write(const std::string& v) { return v; }
  static void check(const std::string&, const std::string&) {}
};
// A float: a JSON number within float range, written as the shortest decimal that reads back.
template <>
struct Codec<float> {
  static float read(const json& v, const std::string& where, uint32_t) { return as_float(v, where); }
  static json write(float v) { return glb::json_number(v); }
  static void check(float v, const std::string& where) { check_finite(v, where); }
};
// A vector: an array of N numbers (a non-finite component is named by the vector).
template <int N>
struct Codec<glm::vec<N, float>> {
  static glm::vec<N, float> read(const json& v, const std::string& where, uint32_t) { return as_vec<N>(v, where); }
  static json write(const glm::vec<N, float>& v) { return glb::json_array(std::span<const float>(&v.x, N)); }
  static void check(const glm::vec<N, float>& v, const std::string& where) {
    for (int c = 0; c < N; ++c) check_finite(v[c], where);
  }
};
// A matrix: 16 numbers, column-major (a non-finite element is named by the matrix).
template <>
struct Codec<glm::mat4> {
  static glm::mat4 read(const json& v, const std::string& where, uint32_t) {
    if (!v.is_array() || v.size() != 16) fail(where, "expected an array of 16 numbers");
    glm::mat4 m;
    for (int k = 0; k < 16; ++k) m[k / 4][k % 4] = as_float(v[k], at(where, size_t(k)));
    return m;
  }
  static json write(const glm::mat4& m) { return glb::json_array(std::span<const float>(&m[0][0], 16)); }
  static void check(const glm::mat4& m, const std::string& where) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) check_finite(m[c][r], where);
  }
};
// Two float members stored as [first, second] (a clip's scaleRange).
template <>
struct Codec<std::tuple<float&, float&>> {
  static std::tuple<float, float> read(const json& v, const std::string& where, uint32_t) {
    const glm::vec2 pair = as_vec<2>(v, where);
    return {pair[0], pair[1]};
  }
  static json write(const auto& pair) {
    return json::array({glb::json_number(std::get<0>(pair)), glb::json_number(std::get<1>(pair))});
  }
  static void check(const auto& pair, const std::string& where) {
    check_finite(std::get<0>(pair), at(where, 0));
    check_finite(std::get<1>(pair), at(where, 1));
  }
};
template <class E>
requires std::is_enum_v<E>
struct Codec<E> {
  static E read(const json& v, const std::string& where, uint32_t) { return as_enum<E>(v, where); }
  static json write(E v) { return name_of(v); }
  static void check(E v, const std::string& where) {
    if (!name_of(v)) fail(where, std::string("unknown ") + EnumNames<E>::what + " " + num(uint32_t(v)));
  }
};
template <class T>
struct Codec<std::optional<T>> {
  static std::optional<T> read(const json& v, const std::string& where, uint32_t version) {
    return Codec<T>::read(v, where, version);
  }
  static json write(const std::optional<T>& v) { return Codec<T>::write(*v); }
  static void check(const std::optional<T>& v, const std::string& where) {
    if (v) Codec<T>::check(*v, where);
  }
};
// An array of numbers (a root motion's track): its length is checked against
// kMaxRootMotionValues before any element is read, so a hostile length costs nothing more.
template <>
struct Codec<std::vector<float>> {
  static std::vector<float> read(const json& v, const std::string& where, uint32_t) {
    const json& array = as_array(v, where);
    if (array.size() > kMaxRootMotionValues) {
      fail(where, num(uint64_t(array.size())) + " numbers, at most " + num(uint64_t(kMaxRootMotionValues)));
    }
    std::vector<float> out(array.size());
    for (size_t i = 0; i < array.size(); ++i) out[i] = as_float(array[i], at(where, i));
    return out;
  }
  static json write(const std::vector<float>& v) { return glb::json_array(std::span<const float>(v)); }
  static void check(const std::vector<float>& v, const std::string& where) {
    for (size_t i = 0; i < v.size(); ++i) check_finite(v[i], at(where, i));
  }
};
// An array of objects with a table of fields (a clip's events). The elements are read one by one
// after the array's length is checked against kMaxClipEvents, so a hostile count costs nothing
// before it is refused.
template <HasSchema T>
struct Codec<std::vector<T>> {
  static std::vector<T> read(const json& v, const std::string& where, uint32_t version) {
    const json& array = as_array(v, where);
    if (array.size() > kMaxClipEvents) {
      fail(where, num(uint64_t(array.size())) + " elements, at most " + num(uint64_t(kMaxClipEvents)));
    }
    std::vector<T> out;
    out.reserve(array.size());
    for (size_t i = 0; i < array.size(); ++i) out.push_back(Codec<T>::read(array[i], at(where, i), version));
    return out;
  }
  static json write(const std::vector<T>& v) {
    json out = json::array();
    for (const T& element : v) out.push_back(Codec<T>::write(element));
    return out;
  }
  static void check(const std::vector<T>& v, const std::string& where) {
    if (v.size() > kMaxClipEvents) {
      fail(where, num(uint64_t(v.size())) + " elements, at most " + num(uint64_t(kMaxClipEvents)));
    }
    for (size_t i = 0; i < v.size(); ++i) Codec<T>::check(v[i], at(where, i));
  }
};
// An object with a table of fields: a JSON object holding them.
template <HasSchema T>
struct Codec<T> {
  static T read(const json& v, const std::string& where, uint32_t version) {
    T out;
    read_fields(Schema<T>::fields, as_object(v, where), where, version, out);
    return out;
  }
  static json write(const T& v) { return write_fields(Schema<T>::fields, v); }
  static void check(const T& v, const std::string& where) { check_fields(Schema<T>::fields, v, where); }
};

// ---- walking a table -----------------------------------------------------------------------

template <class Object, class F>
using FieldValue = std::remove_cvref_t<decltype(std::declval<const F&>().get(std::declval<Object&>()))>;

template <class V>
void check_rule(const Rule& rule, const V& v, const std::string& where);
template <class T>
void check_rule(const Rule& rule, const std::optional<T>& v, const std::string& where) {
  if (v) check_rule(rule, *v, where);
}
template <class V>
void check_rule(const Rule& rule, const V& v, const std::string& where) {
  if constexpr (std::is_arithmetic_v<V>) {
    if constexpr (std::is_signed_v<V>) {
      if (rule.kind == Rule::NonNegative && v < 0) fail(where, num(v) + " is negative");
      if (rule.kind == Rule::AtLeastMinusOne && v < -1) fail(where, num(v) + " < -1");
    }
    if (rule.kind == Rule::Positive && v == 0) fail(where, rule.why ? std::string("0, ") + rule.why : "0");
  }
}

// Reads the fields of `object` from the JSON object `o` (named `where`) of a file of format
// `version`, in table order: a required field missing, or any field of the wrong type, fails;
// fields newer than `version` are not read.
template <class Object, class Fields>
void read_fields(const Fields& fields, const json& o, const std::string& where, uint32_t version, Object& object) {
  std::apply(
      [&](const auto&... field) {
        auto read = [&](const auto& f) {
          if (version < f.since) return;
          const json* v = f.presence == Presence::Required ? &member(o, f.key, where) : find(o, f.key);
          if (!v) return;
          f.get(object) = Codec<FieldValue<Object, decltype(f)>>::read(*v, where + "." + f.key, version);
        };
        (read(field), ...);
      },
      fields);
}

// The JSON object holding the fields of `object` (optional ones when their write_if says so).
template <class Object, class Fields>
json write_fields(const Fields& fields, const Object& object) {
  json out = json::object();
  const Object defaults{};
  std::apply(
      [&](const auto&... field) {
        auto write = [&](const auto& f) {
          using V = FieldValue<Object, decltype(f)>;
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(f.write_if)>, WhenNotDefault>) {
            if constexpr (requires(const V& v) { v.has_value(); }) {
              if (!f.get(object).has_value()) return;
            } else if (f.get(object) == f.get(defaults)) {
              return;
            }
          } else if (!f.write_if(object)) {
            return;
          }
          out[f.key] = Codec<V>::write(f.get(object));
        };
        (write(field), ...);
      },
      fields);
  return out;
}

// Checks each field of `object` as validate_vat does, in table order: its type's check, then its
// rule.
template <class Object, class Fields>
void check_fields(const Fields& fields, const Object& object, const std::string& where) {
  std::apply(
      [&](const auto&... field) {
        auto check = [&](const auto& f) {
          using V = FieldValue<Object, decltype(f)>;
          const std::string w = where + "." + f.key;
          Codec<V>::check(f.get(object), w);
          check_rule(f.rule, f.get(object), w);
        };
        (check(field), ...);
      },
      fields);
}

// ---- the tables ----------------------------------------------------------------------------
// In the order a reader reads (and validate_vat checks) them; the writer's JSON has sorted keys.

// The extension object's properties (docs/format.md, section 3, "Top level"): the header fields
// (kHeaderFields), and those read and written by their own code.
namespace key {
inline constexpr const char* kVersion = "version";        // format version (kVatFormatVersion)
inline constexpr const char* kMesh = "mesh";              // index of the rest-pose mesh
inline constexpr const char* kClips = "clips";            // array of VatClip, at least one
inline constexpr const char* kSlots = "slots";            // array of VatSlot
inline constexpr const char* kSources = "sources";        // array of SourceRange
inline constexpr const char* kPlanes = "planes";          // array of Plane, at least one
inline constexpr const char* kLods = "lods";              // optional array of LodLevel, never empty
inline constexpr const char* kChecksum = "checksum";      // 16 hex digits (checksum.h)
inline constexpr const char* kBufferView = "bufferView";  // a plane's texels, an image's bytes
inline constexpr const char* kIndices = "indices";        // a level's index buffer view
inline constexpr const char* kGroups = "groups";          // a level's groups (kLodGroupFields)
// A material's (kMaterialFields).
inline constexpr const char* kPbr = "pbrMetallicRoughness";           // kPbrFields, the texture
inline constexpr const char* kBaseColorTexture = "baseColorTexture";  // kTextureInfoFields, index
inline constexpr const char* kTextureIndex = "index";                 // texture i shows image i
inline constexpr const char* kMetallicFactor = "metallicFactor";      // written as 0
// Version 3, delta only: the name of the vertex attribute holding each vertex's texel column
// (kVatVertexAttribute, the only value); absent from rig files.
inline constexpr const char* kVertexAddress = "vertexAddress";
}  // namespace key

// The Vat's properties at the top of the extension.
inline constexpr auto kHeaderFields = std::tuple{
    field("encoding", VATKIT_MEMBER(encoding)),
    field("precision", VATKIT_MEMBER(precision)),
    field("frameRows", VATKIT_MEMBER(frame_rows)),
    field("bounds", VATKIT_MEMBER(bounds)),
    optional_field("metresPerUnit", VATKIT_MEMBER(metres_per_unit), /*since=*/3),
};

template <>
struct Schema<Bounds> {
  static constexpr auto fields = std::tuple{
      field("min", VATKIT_MEMBER(min)),
      field("max", VATKIT_MEMBER(max)),
  };
};

// A clip's "error" (format version 2), in millimetres and degrees.
template <>
struct Schema<ClipAccuracy> {
  static constexpr auto fields = std::tuple{
      field("onRowsMaxMm", VATKIT_MEMBER(on_rows_max_mm), kNonNegative),
      field("onRowsP99Mm", VATKIT_MEMBER(on_rows_p99_mm), kNonNegative),
      field("betweenRowsMaxMm", VATKIT_MEMBER(between_rows_max_mm), kNonNegative),
      field("betweenRowsP99Mm", VATKIT_MEMBER(between_rows_p99_mm), kNonNegative),
      field("normalMaxDeg", VATKIT_MEMBER(normal_max_deg), kNonNegative),
  };
};

// A clip's named event (format version 4); check_clip adds its name's length, its time's range
// and the events' order.
template <>
struct Schema<ClipEvent> {
  static constexpr auto fields = std::tuple{
      field("name", VATKIT_MEMBER(name)),
      field("time", VATKIT_MEMBER(time_s), kNonNegative),
  };
};

// A clip's root motion (format version 5); check_clip adds the track's length (4 per row), its
// first row (0) and its values' range.
template <>
struct Schema<RootMotion> {
  static constexpr auto fields = std::tuple{
      field("source", VATKIT_MEMBER(source)),
      field("joint", VATKIT_MEMBER(joint)),
      field("node", VATKIT_MEMBER(node), kAtLeastMinusOne),
      field("vertical", VATKIT_MEMBER(vertical)),
      field("track", VATKIT_MEMBER(track)),
  };
};

// A clip (its band, playback defaults, diagnostics and q16 ranges); check_clip adds the band,
// the events' times and the root motion's track.
template <>
struct Schema<VatClip> {
  static constexpr auto fields = std::tuple{
      field("name", VATKIT_MEMBER(name)),
      field("sourceAnimation", VATKIT_MEMBER(source_animation), kAtLeastMinusOne),
      field("firstRow", VATKIT_MEMBER(first_row)),
      field("rows", VATKIT_MEMBER(rows), positive("a clip has at least one row")),
      field("fps", VATKIT_MEMBER(fps), kNonNegative),
      field("duration", VATKIT_MEMBER(duration_s), kNonNegative),
      field("loopMode", VATKIT_MEMBER(defaults.loop_mode)),
      field("repetitions", VATKIT_MEMBER(defaults.repetitions), kAtLeastMinusOne),
      field("endMode", VATKIT_MEMBER(defaults.end_mode)),
      field("speed", VATKIT_MEMBER(defaults.speed), kNonNegative),
      field("maxDelta", VATKIT_MEMBER(max_delta)),
      field("bounds", VATKIT_MEMBER(bounds)),
      field("deltaRange", VATKIT_MEMBER(delta_range)),
      field("translationRange", VATKIT_MEMBER(translation_range)),
      field("scaleRange", [](auto& c) { return std::tie(c.scale_min, c.scale_max); }),
      optional_field("error", VATKIT_MEMBER(accuracy), /*since=*/2),
      optional_field("seam", VATKIT_MEMBER(seam), /*since=*/3, WhenNotDefault{}, kNonNegative),
      optional_field("events", VATKIT_MEMBER(events), /*since=*/4),
      optional_field("rootMotion", VATKIT_MEMBER(root_motion), /*since=*/5),
  };
};

template <>
struct Schema<VatSlot> {
  static constexpr auto fields = std::tuple{
      field("name", VATKIT_MEMBER(name)),
      field("node", VATKIT_MEMBER(node), kAtLeastMinusOne),
      field("inverseBind", VATKIT_MEMBER(inverse_bind)),
  };
};

// A source range; check_sources adds the ranges' order and extent.
template <>
struct Schema<SourceRange> {
  static constexpr auto fields = std::tuple{
      field("node", VATKIT_MEMBER(node)),
      field("mesh", VATKIT_MEMBER(mesh)),
      field("primitive", VATKIT_MEMBER(primitive)),
      field("firstVertex", VATKIT_MEMBER(first_vertex)),
      field("vertexCount", VATKIT_MEMBER(vertex_count), positive("a source primitive has vertices")),
      field("sourceVertexCount", VATKIT_MEMBER(source_vertex_count)),
  };
};

// A plane's shape, checked by check_plane_shape; its texels are in key::kBufferView.
inline constexpr auto kPlaneFields = std::tuple{
    field("semantic", VATKIT_MEMBER(semantic)),
    field("format", VATKIT_MEMBER(format)),
    field("texelsPerFrame", VATKIT_MEMBER(texels_per_frame)),
    field("width", VATKIT_MEMBER(width)),
    field("rowsPerFrame", VATKIT_MEMBER(rows_per_frame)),
    field("height", VATKIT_MEMBER(height)),
};

// A level of detail after its key::kIndices view and key::kGroups, checked by check_lods.
inline constexpr auto kLodFields = std::tuple{
    field("error", VATKIT_MEMBER(error)),
    field("errorInMotion", VATKIT_MEMBER(error_in_motion)),
    field("screenSize", VATKIT_MEMBER(screen_size)),
};
// One group of a level: a range of its indices (its material is the draw group's).
inline constexpr auto kLodGroupFields = std::tuple{
    field("firstIndex", VATKIT_MEMBER(first_index)),
    field("indexCount", VATKIT_MEMBER(index_count)),
};

// A glTF material's properties that a VAT keeps (glTF's defaults when absent), checked by
// check_material. pbrMetallicRoughness holds kPbrFields and, when the material has a base colour
// image, a baseColorTexture: its "index" (texture i shows image i) and kTextureInfoFields; the
// writer adds metallicFactor 0.
inline constexpr auto kMaterialFields = std::tuple{
    optional_field("name", VATKIT_MEMBER(name)),
    optional_field("alphaMode", VATKIT_MEMBER(alpha_mode)),
    optional_field("alphaCutoff", VATKIT_MEMBER(alpha_cutoff), 1,
                   [](const Material& m) { return m.alpha_mode == AlphaMode::Mask; }),
    optional_field("doubleSided", VATKIT_MEMBER(double_sided)),
};
inline constexpr auto kPbrFields = std::tuple{
    optional_field("baseColorFactor", VATKIT_MEMBER(base_color_factor), 1, Always{}),
};
inline constexpr auto kTextureInfoFields = std::tuple{
    optional_field("texCoord", VATKIT_MEMBER(base_color_texcoord)),
};

// An image, embedded: its bytes are in key::kBufferView.
inline constexpr auto kImageFields = std::tuple{
    optional_field("name", VATKIT_MEMBER(name)),
    field("mimeType", VATKIT_MEMBER(mime_type)),
};

#undef VATKIT_MEMBER

}  // namespace vatkit::vat_format

// Reading a .vat.glb (docs/format.md is the specification; the baker's vat_write.cpp writes it).
//
// Loading: container, then checksum, then the JSON. Hashing before parsing means a corrupted
// file is named as such ("checksum mismatch") instead of by whatever symptom the corruption
// produced, and nothing interprets a byte that has not been vouched for. The JSON is then read
// strictly (exact types, exact accessor layouts, every index and range): the extension's
// properties through the tables of vat_schema.h, each object checked as it is read
// (vat_validate.cpp), and the planes are spans into the caller's bytes.
//
// Version 3's texel addresses (`_VAT_VERTEX`, delta only) are read with the attributes, checked to
// be a permutation of the vertices, and applied once the levels of detail are read: the geometry
// is reordered into texel order, so the Vat's vertex i reads texel i whatever order another tool
// left the vertices in (vatkit/vat_file.h).
//
// Validation failures deep inside the reader throw Failure carrying the one-line message; the
// public functions catch it and return it as an Error.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "file/checksum.h"
#include "file/glb.h"
#include "file/vat_format.h"
#include "file/vat_schema.h"
#include "platform/memory.h"
#include "util/json_depth.h"
#include "util/printable.h"
#include "vatkit/file_io.h"
#include "vatkit/vat_file.h"

namespace vatkit {
namespace vat_format {
namespace {

static_assert(std::endian::native == std::endian::little, "the GLB container is little-endian");

uint32_t component_bytes(ComponentType c) {
  switch (c) {
    case ComponentType::Int8:
    case ComponentType::UInt8: return 1;
    case ComponentType::Int16:
    case ComponentType::UInt16: return 2;
    default: return 4;
  }
}

}  // namespace

class Reader {
 public:
  Reader(std::span<const uint8_t> file, const std::string& name) : file_(file), name_(name) {}

  Vat read(std::shared_ptr<const void> keep_alive);

 private:
  struct ViewRange {
    size_t offset = 0;  // from the start of the BIN data
    size_t length = 0;
  };

  void check_container();
  void check_checksum();
  void parse_json();
  const json& extension();
  void check_buffer();
  void claim(const ViewRange& range, uint32_t view_index, const std::string& who);
  ViewRange view(uint32_t index, const std::string& where);
  std::span<const uint8_t> accessor(uint32_t index, ComponentType component, const char* type, uint32_t element_bytes,
                                    const std::string& where, uint32_t* count, uint32_t* byte_offset,
                                    uint32_t* view_index);
  void read_extension(Vat& vat, const json& ext);
  void read_images(Vat& vat);
  void read_materials(Vat& vat);
  void read_texture(Material& m, const json& texture, const json& textures, const std::string& where,
                    size_t image_count);
  void read_geometry(Vat& vat, const json& ext);
  void read_attributes(VatGeometry& g, const json& attributes, const std::string& where);
  void read_primitive(VatGeometry& g, const json& primitive, const json& attributes, const std::string& where,
                      std::optional<uint32_t>& index_view);
  void read_address(VatGeometry& g, const json& attributes, const std::string& where);
  void apply_addresses(VatGeometry& g);
  void read_lods(Vat& vat, const json& ext);
  void read_planes(Vat& vat, const json& ext);
  const json& top_array(const char* key) {
    const json* v = find(doc_, key);
    static const json empty = json::array();
    if (!v) return empty;
    return as_array(*v, key);
  }

  std::span<const uint8_t> file_;
  uint32_t version_ = 0;  // the extension's format version, once read
  const std::string& name_;
  glb::Chunks chunks_;
  json doc_;
  size_t buffer_length_ = 0;
  std::string checksum_digits_;
  Encoding encoding_ = Encoding::Delta;  // once the extension is read
  // Version 3 delta: each vertex's `_VAT_VERTEX` value as read (file order), and its name.
  std::vector<float> addresses_;
  std::string address_where_;
  // The bytes of the BIN data that the objects read so far use: start -> (end, the object).
  std::map<size_t, std::pair<size_t, std::string>> claimed_;
};

void Reader::check_container() {
  Result<glb::Chunks> chunks = glb::split_glb(file_, "");
  if (!chunks) throw Failure{chunks.error().code, chunks.error().message};
  chunks_ = *chunks;
  if (chunks_.bin.empty()) fail("GLB", "no BIN chunk: a .vat.glb stores its planes there");
}

void Reader::check_checksum() {
  std::string why;
  const std::optional<size_t> digits = vat_file_detail::find_checksum_digits(file_, chunks_.json, &why);
  if (!digits) fail(std::string(kExt) + ".checksum", why);
  checksum_digits_.assign(reinterpret_cast<const char*>(file_.data() + *digits), vat_file_detail::kChecksumDigits);
  uint64_t stored = 0;
  for (char c : checksum_digits_) {
    const bool digit = c >= '0' && c <= '9', letter = c >= 'a' && c <= 'f';
    if (!digit && !letter) {
      fail(std::string(kExt) + ".checksum", "\"" + checksum_digits_ + "\" is not 16 lowercase hex digits");
    }
    stored = stored << 4 | uint64_t(digit ? c - '0' : c - 'a' + 10);
  }
  const uint64_t actual = vat_file_detail::content_checksum(file_, *digits);
  if (actual != stored) {
    // A later format version may hash differently: name the version rather than a mismatch when
    // the (unverified) JSON says it is not ours.
    const json doc = json::parse(chunks_.json.begin(), chunks_.json.end(), nullptr, false);
    const json* version = nullptr;
    if (doc.is_object() && doc.contains("extensions") && doc["extensions"].is_object() &&
        doc["extensions"].contains(kVatExtensionName) && doc["extensions"][kVatExtensionName].is_object()) {
      version = find(doc["extensions"][kVatExtensionName], key::kVersion);
    }
    if (version && version->is_number_unsigned() && !readable_version(version->get<uint64_t>())) {
      fail(ErrorCode::Unsupported, std::string(kExt) + "." + key::kVersion,
           num(version->get<uint64_t>()) + " is not supported (" + readable_versions() + ")");
    }
    throw Failure{ErrorCode::Corrupt, "checksum mismatch: the file says " + checksum_digits_ + ", its bytes hash to " +
                                          vat_file_detail::checksum_hex(actual) +
                                          " (corrupted, truncated and re-padded, or edited by another tool)"};
  }
}

void Reader::parse_json() {
  const std::string_view text(reinterpret_cast<const char*>(chunks_.json.data()), chunks_.json.size());
  if (!detail::json_depth_ok(text)) fail(ErrorCode::Limit, "JSON chunk", detail::kJsonTooDeep);
  try {
    doc_ = json::parse(chunks_.json.begin(), chunks_.json.end());
  } catch (const json::exception& e) {
    fail(ErrorCode::Parse, "JSON chunk", detail::json_error_text(e.what()));
  }
  as_object(doc_, "JSON chunk");
}

// extensionsUsed lists the extension; the extension's version is one this vatkit reads and its
// checksum is the one hashed.
const json& Reader::extension() {
  const json& used = top_array("extensionsUsed");
  if (std::find(used.begin(), used.end(), json(kVatExtensionName)) == used.end()) {
    fail("extensionsUsed", std::string("does not list ") + kVatExtensionName + " (not a .vat.glb)");
  }
  const json& extensions = as_object(member(doc_, "extensions", "document"), "extensions");
  const json& ext = as_object(member(extensions, kVatExtensionName, "extensions"), kExt);
  const std::string e = kExt;
  version_ = as_u32(member(ext, key::kVersion, e), e + "." + key::kVersion);
  if (!readable_version(version_)) {
    fail(ErrorCode::Unsupported, e + "." + key::kVersion,
         num(version_) + " is not supported (" + readable_versions() + ")");
  }
  const std::string& digits = as_string(member(ext, key::kChecksum, e), e + "." + key::kChecksum);
  if (digits != checksum_digits_) {
    fail(e + "." + key::kChecksum, "the hashed \"checksum\" key is not this extension's");
  }
  return ext;
}

// One buffer, the BIN chunk, whose data starts 16-byte aligned in the file.
void Reader::check_buffer() {
  const json& buffers = top_array("buffers");
  if (buffers.size() != 1) fail("buffers", num(uint64_t(buffers.size())) + " buffers, expected 1 (the BIN chunk)");
  const json& buffer = as_object(buffers[0], "buffers[0]");
  if (find(buffer, "uri")) fail("buffers[0].uri", "a .vat.glb keeps its buffer in the BIN chunk");
  buffer_length_ = as_u32(member(buffer, "byteLength", "buffers[0]"), "buffers[0].byteLength");
  if (buffer_length_ > chunks_.bin.size() || chunks_.bin.size() - buffer_length_ > 3) {
    fail("buffers[0].byteLength",
         num(uint64_t(buffer_length_)) + ", the BIN chunk has " + num(uint64_t(chunks_.bin.size())) + " bytes");
  }
  if (chunks_.bin_offset % kPlaneAlignment != 0) {
    fail("GLB", "BIN data starts at file offset " + num(uint64_t(chunks_.bin_offset)) +
                    ", not a multiple of 16 (planes must be 16-byte aligned)");
  }
}

// Each object's data (an attribute, the index buffer, an image, a level of detail, a plane) is
// its own bytes: no two of them overlap. Checked as each is read, before its bytes are copied,
// so that what the loader copies and scans adds up to at most the buffer's size however many
// objects the JSON lists.
void Reader::claim(const ViewRange& range, uint32_t view_index, const std::string& who) {
  const size_t end = range.offset + range.length;
  const auto next = claimed_.lower_bound(end);  // the first object starting at or after the end
  if (next != claimed_.begin()) {
    const auto& [start, before] = *std::prev(next);
    if (before.first > range.offset) {
      fail(who, at("bufferViews", view_index) + " (bytes " + num(uint64_t(range.offset)) + " + " +
                    num(uint64_t(range.length)) + ") overlaps the data of " + before.second + " (bytes " +
                    num(uint64_t(start)) + " + " + num(uint64_t(before.first - start)) +
                    "): a .vat.glb stores each object's data once");
    }
  }
  claimed_.emplace(range.offset, std::pair{end, who});
}

Reader::ViewRange Reader::view(uint32_t index, const std::string& where) {
  const json& views = top_array("bufferViews");
  const std::string self = at("bufferViews", index);
  if (index >= views.size()) fail(where, self + " does not exist");
  const json& v = as_object(views[index], self);
  if (as_u32(member(v, "buffer", self), self + ".buffer") != 0) fail(self + ".buffer", "not 0");
  const json* offset = find(v, "byteOffset");
  ViewRange range;
  range.offset = offset ? as_u32(*offset, self + ".byteOffset") : 0;
  range.length = as_u32(member(v, "byteLength", self), self + ".byteLength");
  if (range.length == 0) fail(self + ".byteLength", "0");
  if (range.offset + range.length > buffer_length_) {
    fail(self, "bytes " + num(uint64_t(range.offset)) + " + " + num(uint64_t(range.length)) +
                   " run past the buffer's " + num(uint64_t(buffer_length_)));
  }
  return range;
}

std::span<const uint8_t> Reader::accessor(uint32_t index, ComponentType component, const char* type,
                                          uint32_t element_bytes, const std::string& where, uint32_t* count,
                                          uint32_t* byte_offset, uint32_t* view_index) {
  const json& accessors = top_array("accessors");
  const std::string self = where + " (" + at("accessors", index) + ")";
  if (index >= accessors.size()) fail(where, at("accessors", index) + " does not exist");
  const json& a = as_object(accessors[index], self);
  const uint32_t c = as_u32(member(a, "componentType", self), self + ".componentType");
  if (c != static_cast<uint32_t>(component)) {
    fail(self + ".componentType", num(c) + ", expected " + num(static_cast<uint32_t>(component)));
  }
  const std::string& t = as_string(member(a, "type", self), self + ".type");
  if (t != type) fail(self + ".type", "\"" + t + "\", expected \"" + type + "\"");
  if (const json* n = find(a, "normalized"); n && as_bool(*n, self + ".normalized")) {
    fail(self + ".normalized", "true, expected false");
  }
  if (find(a, "sparse")) fail(self + ".sparse", "sparse accessors are not part of a .vat.glb");
  *view_index = as_u32(member(a, "bufferView", self), self + ".bufferView");
  const json* offset = find(a, "byteOffset");
  *byte_offset = offset ? as_u32(*offset, self + ".byteOffset") : 0;
  if (*byte_offset % component_bytes(component) != 0) {
    fail(self + ".byteOffset", num(*byte_offset) + " is not a multiple of the component size");
  }
  *count = as_u32(member(a, "count", self), self + ".count");
  if (*count == 0) fail(self + ".count", "0");
  const ViewRange range = view(*view_index, self);
  const json& v = top_array("bufferViews")[*view_index];
  if (const json* stride = find(v, "byteStride")) {
    const uint32_t s = as_u32(*stride, at("bufferViews", *view_index) + ".byteStride");
    if (s != element_bytes) {
      fail(at("bufferViews", *view_index) + ".byteStride",
           num(s) + ", expected tightly packed elements (" + num(element_bytes) + ")");
    }
  }
  const uint64_t bytes = uint64_t(*count) * element_bytes;
  if (*byte_offset + bytes > range.length) {
    fail(self, "bytes " + num(*byte_offset) + " + " + num(*count) + " * " + num(element_bytes) + " run past " +
                   at("bufferViews", *view_index) + " (byteLength " + num(uint64_t(range.length)) + ")");
  }
  if ((chunks_.bin_offset + range.offset + *byte_offset) % component_bytes(component) != 0) {
    fail(self, "data is not aligned to its component size");
  }
  return chunks_.bin.subspan(range.offset + *byte_offset, bytes);
}

void Reader::read_geometry(Vat& vat, const json& ext) {
  const std::string e = kExt;
  const uint32_t mesh_index = as_u32(member(ext, key::kMesh, e), e + "." + key::kMesh);
  const json& meshes = top_array("meshes");
  if (mesh_index >= meshes.size()) fail(e + "." + key::kMesh, at("meshes", mesh_index) + " does not exist");
  const std::string mesh_where = at("meshes", mesh_index);
  const json& mesh = as_object(meshes[mesh_index], mesh_where);
  const json& primitives = as_array(member(mesh, "primitives", mesh_where), mesh_where + ".primitives");
  if (primitives.empty()) fail(mesh_where + ".primitives", "empty");

  // Every primitive shares the first one's vertex stream.
  const std::string first_where = mesh_where + ".primitives[0]";
  const json& attributes =
      as_object(member(as_object(primitives[0], first_where), "attributes", first_where), first_where + ".attributes");
  read_attributes(vat.geometry, attributes, first_where);
  std::optional<uint32_t> index_view;
  for (size_t p = 0; p < primitives.size(); ++p) {
    read_primitive(vat.geometry, primitives[p], attributes, at(mesh_where + ".primitives", p), index_view);
  }
  check_geometry(
      vat.geometry, vat.slots.size(), vat.encoding, [&](Attr a) { return first_where + ".attributes." + info(a).gltf; },
      at("bufferViews", *index_view) + " (indices)");
}

// The vertex stream: only the attributes of kAttrs, POSITION first (its count is the vertex
// count), each its own tightly packed view.
void Reader::read_attributes(VatGeometry& g, const json& attributes, const std::string& where) {
  const bool addressed = version_ >= 3 && encoding_ == Encoding::Delta;
  for (const auto& [name, value] : attributes.items()) {
    bool known = addressed && name == kVatVertexAttribute;
    for (const AttrInfo& a : kAttrs) known |= name == a.gltf;
    if (!known) {
      fail(where + ".attributes." + name, name == kVatVertexAttribute
                                              ? "only a delta file of version 3 or later addresses texels by it"
                                              : "not an attribute of a .vat.glb");
    }
  }
  for (int i = 0; i < kAttrCount; ++i) {
    const Attr a = static_cast<Attr>(i);
    const std::string attr_where = where + ".attributes." + info(a).gltf;
    const json* index = find(attributes, info(a).gltf);
    if (!index) {
      if (a == Attr::Position) fail(attr_where, "missing");
      continue;
    }
    uint32_t count = 0, offset = 0, view_index = 0;
    const std::span<const uint8_t> bytes = accessor(as_u32(*index, attr_where), info(a).component, info(a).type,
                                                    info(a).element_bytes, attr_where, &count, &offset, &view_index);
    if (a != Attr::Position && count != g.positions.size()) {
      fail(attr_where, "count " + num(count) + ", expected the vertex count " + num(uint64_t(g.positions.size())));
    }
    claim(view(view_index, attr_where), view_index, attr_where);
    with_attr(g, a, [&](auto& values) {
      values.resize(count);
      std::memcpy(values.data(), bytes.data(), bytes.size());
    });
  }
  if (addressed) read_address(g, attributes, where);
}

// `_VAT_VERTEX` (version 3, delta): required, FLOAT SCALAR, one value per vertex, each an integer
// below the texel vertex count (the position plane's texelsPerFrame, which must equal V) and each
// exactly once.
void Reader::read_address(VatGeometry& g, const json& attributes, const std::string& where) {
  address_where_ = where + ".attributes." + kVatVertexAttribute;
  const json* index = find(attributes, kVatVertexAttribute);
  if (!index) fail(address_where_, "missing (a delta file of version 3 or later addresses each vertex's texels by it)");
  uint32_t count = 0, offset = 0, view_index = 0;
  const std::span<const uint8_t> bytes = accessor(as_u32(*index, address_where_), ComponentType::Float, "SCALAR", 4,
                                                  address_where_, &count, &offset, &view_index);
  const auto n = uint32_t(g.positions.size());
  if (count != n) fail(address_where_, "count " + num(count) + ", expected the vertex count " + num(n));
  claim(view(view_index, address_where_), view_index, address_where_);
  addresses_.resize(count);
  std::memcpy(addresses_.data(), bytes.data(), bytes.size());
  std::vector<uint32_t> first(n, n);  // the vertex that named each address first; n: none yet
  for (uint32_t v = 0; v < n; ++v) {
    const float a = addresses_[v];
    const std::string value = "value " + num(a) + " of vertex " + num(v);
    if (!(a >= 0.0f && a < float(n))) fail(address_where_, value + " is outside [0, " + num(n) + ")");
    if (a != std::floor(a)) fail(address_where_, value + " is not an integer");
    const auto column = uint32_t(a);
    if (first[column] != n) fail(address_where_, value + " repeats vertex " + num(first[column]) + "'s");
    first[column] = v;
  }
}

// Puts the vertices into texel order: file vertex v becomes vertex addresses_[v]; every index
// buffer (the mesh's, each level's) is remapped. Nothing to do for the identity.
void Reader::apply_addresses(VatGeometry& g) {
  const auto n = uint32_t(addresses_.size());
  std::vector<uint32_t> to(n);
  bool identity = true;
  for (uint32_t v = 0; v < n; ++v) {
    to[v] = uint32_t(addresses_[v]);
    identity &= to[v] == v;
  }
  if (identity) return;
  for (int i = 0; i < kAttrCount; ++i) {
    with_attr(g, Attr(i), [&](auto& values) {
      if (values.empty()) return;
      auto reordered = values;
      for (uint32_t v = 0; v < n; ++v) reordered[to[v]] = values[v];
      values = std::move(reordered);
    });
  }
  for (uint32_t& index : g.indices) index = to[index];  // every index < V: checked as read
  for (LodLevel& lod : g.lods)
    for (uint32_t& index : lod.indices) index = to[index];
}

// A primitive: the first one's attributes, triangles, its indices in the one index view (read
// with the first primitive), its draw group.
void Reader::read_primitive(VatGeometry& g, const json& in, const json& attributes, const std::string& where,
                            std::optional<uint32_t>& index_view) {
  const json& primitive = as_object(in, where);
  if (member(primitive, "attributes", where) != attributes) {  // trivially equal for primitives[0]
    fail(where + ".attributes", "differs from primitives[0]'s (a .vat.glb has one vertex stream)");
  }
  if (const json* mode = find(primitive, "mode"); mode && as_u32(*mode, where + ".mode") != 4) {
    fail(where + ".mode", "not 4 (triangles)");
  }
  if (find(primitive, "targets")) fail(where + ".targets", "morph targets are not part of a .vat.glb");
  uint32_t count = 0, offset = 0, view_index = 0;
  const uint32_t index = as_u32(member(primitive, "indices", where), where + ".indices");
  accessor(index, ComponentType::UInt32, "SCALAR", 4, where + ".indices", &count, &offset, &view_index);
  if (!index_view) {
    index_view = view_index;
    const ViewRange range = view(view_index, where + ".indices");
    if (range.length % 4 != 0) fail(at("bufferViews", view_index), "byteLength is not a multiple of 4");
    claim(range, view_index, where + ".indices");
    const auto bytes = chunks_.bin.subspan(range.offset, range.length);
    g.indices.resize(range.length / 4);
    std::memcpy(g.indices.data(), bytes.data(), bytes.size());
  } else if (view_index != *index_view) {
    fail(where + ".indices", "in " + at("bufferViews", view_index) + ", primitives[0]'s are in " +
                                 at("bufferViews", *index_view) + " (a .vat.glb has one index buffer)");
  }
  DrawGroup group;
  group.first_index = offset / 4;
  group.index_count = count;
  const json* material = find(primitive, "material");
  group.material = material ? as_i32(*material, where + ".material") : -1;
  if (material && group.material < 0) fail(where + ".material", "negative");
  check_group(group, g.indices.size(), top_array("materials").size(), where);
  g.groups.push_back(group);
}

void Reader::read_extension(Vat& vat, const json& ext) {
  const std::string e = kExt;
  read_fields(kHeaderFields, ext, e, version_, vat);
  if (vat.frame_rows == 0) fail(e + ".frameRows", "0");
  if (version_ >= 3) {
    const std::string aw = e + "." + key::kVertexAddress;
    const json* address = find(ext, key::kVertexAddress);
    if (vat.encoding == Encoding::Rig && address) fail(aw, "the rig encoding addresses no vertex texels");
    if (vat.encoding == Encoding::Delta) {
      if (!address) fail(e, std::string("missing \"") + key::kVertexAddress + "\"");
      if (as_string(*address, aw) != kVatVertexAttribute) {
        fail(aw, "\"" + address->get<std::string>() + "\", expected \"" + kVatVertexAttribute + "\"");
      }
    }
  }

  const std::string clips_where = e + "." + key::kClips;
  const json& clips = as_array(member(ext, key::kClips, e), clips_where);
  if (clips.empty()) fail(clips_where, "empty, a VAT has at least one clip");
  for (size_t i = 0; i < clips.size(); ++i) {
    const std::string w = at(clips_where, i);
    VatClip c = Codec<VatClip>::read(clips[i], w, version_);
    check_clip(c, vat.frame_rows, w);
    vat.clips.push_back(std::move(c));
  }
  check_bands(vat.clips, clips_where);

  const std::string slots_where = e + "." + key::kSlots;
  const json& slots = as_array(member(ext, key::kSlots, e), slots_where);
  if (slots.size() > kMaxVatSlots) {
    fail(slots_where, num(uint64_t(slots.size())) + " slots, at most " + num(uint64_t(kMaxVatSlots)));
  }
  if (vat.encoding == Encoding::Rig && slots.empty()) fail(slots_where, "empty, the rig encoding needs slots");
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string w = at(slots_where, i);
    VatSlot s = Codec<VatSlot>::read(slots[i], w, version_);
    check_slot(s, w);
    vat.slots.push_back(std::move(s));
  }

  // The ranges are checked once the vertex count is known.
  const std::string sources_where = e + "." + key::kSources;
  const json& sources = as_array(member(ext, key::kSources, e), sources_where);
  for (size_t i = 0; i < sources.size(); ++i) {
    vat.geometry.sources.push_back(Codec<SourceRange>::read(sources[i], at(sources_where, i), version_));
  }
}

void Reader::read_images(Vat& vat) {
  const json& images = top_array("images");
  for (size_t i = 0; i < images.size(); ++i) {
    const std::string where = at("images", i);
    const json& object = as_object(images[i], where);
    if (find(object, "uri")) fail(where + ".uri", "a .vat.glb embeds its images");
    Image image;
    read_fields(kImageFields, object, where, version_, image);
    const uint32_t view_index = as_u32(member(object, key::kBufferView, where), where + "." + key::kBufferView);
    const ViewRange range = view(view_index, where);
    claim(range, view_index, where);
    const auto bytes = chunks_.bin.subspan(range.offset, range.length);
    image.bytes.assign(bytes.begin(), bytes.end());
    check_image(image, where);
    vat.images.push_back(std::move(image));
  }
}

void Reader::read_materials(Vat& vat) {
  const json& textures = top_array("textures");
  const json& materials = top_array("materials");
  for (size_t i = 0; i < materials.size(); ++i) {
    const std::string where = at("materials", i);
    const json& object = as_object(materials[i], where);
    Material m;
    read_fields(kMaterialFields, object, where, version_, m);
    if (const json* pbr = find(object, key::kPbr)) {
      const std::string pw = where + "." + key::kPbr;
      read_fields(kPbrFields, as_object(*pbr, pw), pw, version_, m);
      if (const json* t = find(*pbr, key::kBaseColorTexture)) {
        read_texture(m, *t, textures, pw + "." + key::kBaseColorTexture, vat.images.size());
      }
    }
    check_material(m, vat.images.size(), where);
    vat.materials.push_back(std::move(m));
  }
}

// A base colour texture: through textures[index].source to an image.
void Reader::read_texture(Material& m, const json& texture, const json& textures, const std::string& where,
                          size_t image_count) {
  as_object(texture, where);
  const uint32_t index = as_u32(member(texture, key::kTextureIndex, where), where + "." + key::kTextureIndex);
  if (index >= textures.size()) fail(where + "." + key::kTextureIndex, at("textures", index) + " does not exist");
  const std::string sw = at("textures", index);
  const uint32_t source = as_u32(member(as_object(textures[index], sw), "source", sw), sw + ".source");
  if (source >= image_count) fail(sw + ".source", at("images", source) + " does not exist");
  m.base_color_image = static_cast<int32_t>(source);
  read_fields(kTextureInfoFields, texture, where, version_, m);
}

void Reader::read_lods(Vat& vat, const json& ext) {
  const json* lods = find(ext, key::kLods);
  if (!lods) return;
  const std::string e = std::string(kExt) + "." + key::kLods;
  if (as_array(*lods, e).empty()) fail(e, "empty (a file without levels of detail leaves the property out)");
  VatGeometry& g = vat.geometry;
  for (size_t l = 0; l < lods->size(); ++l) {
    const std::string w = at(e, l);
    const json& o = as_object((*lods)[l], w);
    LodLevel lod;
    const std::string iw = w + "." + key::kIndices;
    const uint32_t view_index = as_u32(member(o, key::kIndices, w), iw);
    const ViewRange range = view(view_index, iw);
    const std::string vw = at("bufferViews", view_index);
    if (range.length % 4 != 0) fail(iw, vw + " has " + num(uint64_t(range.length)) + " bytes, not 4 per index");
    if ((chunks_.bin_offset + range.offset) % 4 != 0) fail(iw, vw + " is not 4-byte aligned");
    if (find(top_array("bufferViews")[view_index], "byteStride")) fail(vw + ".byteStride", "an index view has none");
    claim(range, view_index, w);
    lod.indices.resize(range.length / 4);
    std::memcpy(lod.indices.data(), chunks_.bin.data() + range.offset, range.length);
    const std::string gw = w + "." + key::kGroups;
    const json& groups = as_array(member(o, key::kGroups, w), gw);
    if (groups.size() != g.groups.size()) {
      fail(gw, num(uint64_t(groups.size())) + " groups, expected one per mesh primitive (" +
                   num(uint64_t(g.groups.size())) + ")");
    }
    for (size_t i = 0; i < groups.size(); ++i) {
      DrawGroup group;
      read_fields(kLodGroupFields, as_object(groups[i], at(gw, i)), at(gw, i), version_, group);
      group.material = g.groups[i].material;
      lod.groups.push_back(group);
    }
    read_fields(kLodFields, o, w, version_, lod);
    g.lods.push_back(std::move(lod));
  }
  check_lods(g, e);
}

void Reader::read_planes(Vat& vat, const json& ext) {
  const std::string e = std::string(kExt) + "." + key::kPlanes;
  const json& planes = as_array(member(ext, key::kPlanes, kExt), e);
  if (planes.empty()) fail(e, "empty");
  bool seen[4] = {};
  for (size_t i = 0; i < planes.size(); ++i) {
    const std::string w = at(e, i);
    const json& o = as_object(planes[i], w);
    Plane p;
    read_fields(kPlaneFields, o, w, version_, p);
    if (seen[int(p.semantic)]) fail(w + ".semantic", std::string("a second ") + to_string(p.semantic) + " plane");
    seen[int(p.semantic)] = true;
    check_plane_shape(p, vat, w);
    const uint32_t view_index = as_u32(member(o, key::kBufferView, w), w + "." + key::kBufferView);
    const ViewRange range = view(view_index, w + "." + key::kBufferView);
    const std::string vw = at("bufferViews", view_index);
    if (range.length != plane_bytes(p)) {
      fail(w, vw + " has " + num(uint64_t(range.length)) + " bytes, width * height * " + num(texel_bytes(p.format)) +
                  " = " + num(plane_bytes(p)));
    }
    if (range.offset % kPlaneAlignment != 0) {
      fail(w, vw + ".byteOffset " + num(uint64_t(range.offset)) + " is not a multiple of 16");
    }
    if (find(top_array("bufferViews")[view_index], "byteStride")) fail(vw + ".byteStride", "a plane's view has none");
    claim(range, view_index, w);
    p.data = chunks_.bin.subspan(range.offset, range.length);
    vat.planes.push_back(p);
  }
  check_plane_set(seen, vat.encoding, vat.precision, e);
}

Vat Reader::read(std::shared_ptr<const void> keep_alive) {
  check_container();
  check_checksum();
  parse_json();
  const json& ext = extension();
  check_buffer();

  Vat vat;
  vat.source = name_;
  read_extension(vat, ext);
  encoding_ = vat.encoding;
  read_images(vat);
  read_materials(vat);
  read_geometry(vat, ext);
  read_lods(vat, ext);
  apply_addresses(vat.geometry);  // sources count vertices in texel order: checked after
  check_sources(vat.geometry.sources, vat.geometry.vertex_count(), std::string(kExt) + "." + key::kSources);
  read_planes(vat, ext);

  // Defence in depth: what the writer would refuse, the loader must not return.
  check_vat(vat);
  vat.storage = std::move(keep_alive);
  return vat;
}

}  // namespace vat_format

// ---- public API ----------------------------------------------------------------------------

std::vector<float> texel_addresses(const Vat& vat) {
  if (vat.encoding != Encoding::Delta) return {};
  std::vector<float> out(vat.geometry.vertex_count());
  for (size_t v = 0; v < out.size(); ++v) out[v] = float(v);
  return out;
}

Result<Vat> load_vat_memory(std::span<const uint8_t> bytes, const std::string& name,
                            std::shared_ptr<const void> keep_alive) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % vat_format::kPlaneAlignment != 0) {
    // Copy into 16-byte-aligned storage (operator new[] of this type guarantees it) that the
    // Vat then owns.
    struct alignas(16) Block {
      uint8_t b[16];
    };
    std::shared_ptr<Block[]> copy(new Block[(bytes.size() + 15) / 16]);
    std::memcpy(copy.get(), bytes.data(), bytes.size());
    const std::span<const uint8_t> aligned(reinterpret_cast<const uint8_t*>(copy.get()), bytes.size());
    return load_vat_memory(aligned, name, std::shared_ptr<const void>(copy, copy.get()));
  }
  try {
    vat_format::Reader reader(bytes, name);
    return reader.read(std::move(keep_alive));
  } catch (const vat_format::Failure& f) {
    return make_error(f.code, name, printable(f.message));  // quotes names from the file
  }
}

Result<Vat> load_vat(const std::filesystem::path& path) {
  // Read, not mapped: a mapping faults (SIGBUS) when another process shortens the file while its
  // planes are in use, and no check at load time can rule that out. The Vat owns the bytes.
  Result<InputFile> file = InputFile::open(path);
  if (!file) return file.error();
  if (file->size() > std::numeric_limits<uint32_t>::max()) {
    return make_error(ErrorCode::Limit, path.string(),
                      "is " + std::to_string(file->size()) + " bytes, more than a GLB can hold (4 GiB)");
  }
  // Fresh, uninitialized, huge-page memory (detail::allocate_big): zeroing it first, or faulting it in
  // 4 kB at a time, cost more than reading the file.
  const size_t size = static_cast<size_t>(file->size());
  std::shared_ptr<uint8_t> bytes;
  try {
    bytes.reset(static_cast<uint8_t*>(detail::allocate_big(size)), detail::FreeBig());
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::Limit, path.string(), "out of memory reading " + std::to_string(size) + " bytes");
  }
  if (Result<void> read = file->read_at(0, std::span<uint8_t>(bytes.get(), size)); !read) return read.error();
  const std::span<const uint8_t> view(bytes.get(), size);
  return load_vat_memory(view, path.string(), std::shared_ptr<const void>(std::move(bytes)));
}

bool is_vat_file(const std::filesystem::path& path) {
  // Through InputFile: a FIFO or device is not a .vat.glb, and asking must not block on one.
  Result<InputFile> in = InputFile::open(path);
  if (!in) return false;
  uint32_t header[5] = {};
  if (!in->read_at(0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(header), sizeof(header)))) return false;
  if (header[0] != 0x46546C67u || header[1] != 2 || header[4] != 0x4E4F534Au) return false;
  const uint32_t json_length = header[3];
  if (json_length > header[2] || json_length > (64u << 20) || json_length > in->size()) return false;
  std::string text(json_length, '\0');
  if (!in->read_at(sizeof(header), std::span<uint8_t>(reinterpret_cast<uint8_t*>(text.data()), json_length)))
    return false;
  using nlohmann::json;
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;
  const auto used = doc.find("extensionsUsed");
  if (used == doc.end() || !used->is_array()) return false;
  return std::find(used->begin(), used->end(), json(kVatExtensionName)) != used->end();
}

}  // namespace vatkit

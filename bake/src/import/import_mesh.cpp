// Meshes: triangle primitives with every attribute decoded to float, strips and fans turned into
// lists, morph targets, and flat normals where the file has none.
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "import/import_internal.h"

namespace vatkit::import_detail {
namespace {

// What the glTF 2.0 spec (and KHR_mesh_quantization) allows for each attribute.
constexpr uint32_t kAnyInt8And16 = kI8 | kI8N | kU8 | kU8N | kI16 | kI16N | kU16 | kU16N;
constexpr uint32_t kSignedNormalized = kI8N | kI16N;

template <class Vec>
std::vector<Vec> to_vectors(const std::vector<float>& values, size_t count, uint32_t components, float fill_w = 1.0f) {
  std::vector<Vec> out(count);
  constexpr uint32_t n = static_cast<uint32_t>(Vec::length());
  for (size_t i = 0; i < count; ++i) {
    for (uint32_t j = 0; j < n; ++j) out[i][static_cast<int>(j)] = j < components ? values[i * components + j] : fill_w;
  }
  return out;
}

const char* mode_name(int mode) {
  switch (mode) {
    case TINYGLTF_MODE_POINTS: return "POINTS";
    case TINYGLTF_MODE_LINE: return "LINES";
    case TINYGLTF_MODE_LINE_LOOP: return "LINE_LOOP";
    case TINYGLTF_MODE_LINE_STRIP: return "LINE_STRIP";
    default: return "?";
  }
}

bool primitive_is_draco_only(const Context& ctx, size_t mesh, size_t primitive, int position_accessor) {
  const json& p = ctx.doc.at("meshes").at(mesh).at("primitives").at(primitive);
  auto ext = p.find("extensions");
  if (ext == p.end() || !ext->is_object() || !ext->contains("KHR_draco_mesh_compression")) return false;
  // A Draco primitive may carry uncompressed fallback data; without it there is nothing to read.
  if (!in_range(position_accessor, ctx.model.accessors.size())) return true;
  const tinygltf::Accessor& a = ctx.model.accessors[static_cast<size_t>(position_accessor)];
  return a.bufferView < 0 && !a.sparse.isSparse;
}

struct AttributeReader {
  Context& ctx;
  const std::map<std::string, int>& attributes;
  const std::string& path;  // "meshes[m].primitives[p].attributes"
  size_t vertex_count;

  const int* find(const char* name) const {
    auto it = attributes.find(name);
    return it == attributes.end() ? nullptr : &it->second;
  }
  FloatRead floats(const char* name, int accessor, uint32_t types, uint32_t encodings, uint32_t quantized) const {
    const std::string where = path + "." + name;
    FloatRead r = read_floats(ctx, accessor, where, types, encodings, quantized, true);
    check_count(where, accessor, r.count);
    return r;
  }
  void check_count(const std::string& where, int accessor, size_t count) const {
    if (count != vertex_count)
      fail(where, indexed("accessors", static_cast<size_t>(accessor)) + " has " + std::to_string(count) +
                      " elements, POSITION has " + std::to_string(vertex_count));
  }
};

// The checks before a primitive is read (`path` names it, in mesh `m` at `mesh_path`, whose
// first primitive has `target_count` morph targets); false when it is dropped, with a warning.
bool primitive_readable(Context& ctx, const tinygltf::Primitive& prim, size_t m, size_t p, const std::string& mesh_path,
                        size_t target_count) {
  const std::string path = mesh_path + ".primitives[" + std::to_string(p) + "]";
  if (prim.targets.size() != target_count)
    fail(path + ".targets", "has " + std::to_string(prim.targets.size()) + " morph targets, but " + mesh_path +
                                ".primitives[0] has " + std::to_string(target_count) + " (they must agree)");
  if (prim.mode < TINYGLTF_MODE_POINTS || prim.mode > TINYGLTF_MODE_TRIANGLE_FAN)
    fail(path + ".mode", std::to_string(prim.mode) + " is not a glTF primitive mode");
  if (prim.mode < TINYGLTF_MODE_TRIANGLES) {
    ctx.warn(path + ": mode " + mode_name(prim.mode) + " is not triangles; primitive dropped");
    return false;
  }
  for (const auto& [name, accessor] : prim.attributes) {
    if (!in_range(accessor, ctx.model.accessors.size()))
      fail(path + ".attributes." + name, "accessor " + std::to_string(accessor) + " does not exist (the file has " +
                                             std::to_string(ctx.model.accessors.size()) + " accessors)");
  }
  auto position_it = prim.attributes.find("POSITION");
  if (position_it == prim.attributes.end()) {
    ctx.warn(path + ": no POSITION attribute; primitive dropped");
    return false;
  }
  if (primitive_is_draco_only(ctx, m, p, position_it->second))
    fail(ErrorCode::Unsupported, path, "is compressed with KHR_draco_mesh_compression, which vatkit cannot decode");
  return true;
}

// NORMAL, TANGENT, TEXCOORD_0 and _1, COLOR_0.
void read_surface_attributes(Context& ctx, const AttributeReader& reader, Primitive& out) {
  const size_t n = reader.vertex_count;
  if (const int* a = reader.find("NORMAL")) {
    FloatRead r = reader.floats("NORMAL", *a, kVec3, kF32, kSignedNormalized);
    out.normals = to_vectors<glm::vec3>(r.values, n, 3);
    size_t zero = 0;
    for (const glm::vec3& v : out.normals) zero += (glm::dot(v, v) < 1e-12f) ? 1 : 0;
    if (zero > 0)
      ctx.warn(reader.path + ".NORMAL: " + std::to_string(zero) + " of " + std::to_string(n) +
               " normals have zero length");
  }
  if (const int* a = reader.find("TANGENT")) {
    FloatRead r = reader.floats("TANGENT", *a, kVec4, kF32, kSignedNormalized);
    out.tangents = to_vectors<glm::vec4>(r.values, n, 4);
  }
  const uint32_t texcoord_encodings = kF32 | kU8N | kU16N;
  if (const int* a = reader.find("TEXCOORD_0")) {
    FloatRead r = reader.floats("TEXCOORD_0", *a, kVec2, texcoord_encodings, kAnyInt8And16);
    out.texcoords0 = to_vectors<glm::vec2>(r.values, n, 2);
  }
  if (const int* a = reader.find("TEXCOORD_1")) {
    FloatRead r = reader.floats("TEXCOORD_1", *a, kVec2, texcoord_encodings, kAnyInt8And16);
    out.texcoords1 = to_vectors<glm::vec2>(r.values, n, 2);
  }
  if (const int* a = reader.find("COLOR_0")) {
    FloatRead r = reader.floats("COLOR_0", *a, kVec3 | kVec4, kF32 | kU8N | kU16N, 0);
    out.colors0 = to_vectors<glm::vec4>(r.values, n, r.components, 1.0f);
  }
}

// JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1, each pair complete; then a warning for each
// attribute not read.
void read_influences(Context& ctx, const AttributeReader& reader, Primitive& out) {
  const size_t n = reader.vertex_count;
  const std::string& attr_path = reader.path;
  const int* joints[2] = {reader.find("JOINTS_0"), reader.find("JOINTS_1")};
  const int* weights[2] = {reader.find("WEIGHTS_0"), reader.find("WEIGHTS_1")};
  for (int set = 0; set < 2; ++set) {
    const std::string js = "JOINTS_" + std::to_string(set), ws = "WEIGHTS_" + std::to_string(set);
    if (!joints[set] && !weights[set]) continue;
    if (!joints[set]) fail(attr_path, "has " + ws + " but no " + js);
    if (!weights[set]) fail(attr_path, "has " + js + " but no " + ws);
    if (set == 1 && !joints[0]) fail(attr_path, "has JOINTS_1 but no JOINTS_0");
    UintRead j = read_uints(ctx, *joints[set], attr_path + "." + js, kVec4, kU8 | kU16);
    reader.check_count(attr_path + "." + js, *joints[set], j.count);
    std::vector<glm::u16vec4> jv(n);
    for (size_t i = 0; i < n; ++i)
      jv[i] = glm::u16vec4(j.values[i * 4], j.values[i * 4 + 1], j.values[i * 4 + 2], j.values[i * 4 + 3]);
    FloatRead w = reader.floats(ws.c_str(), *weights[set], kVec4, kF32 | kU8N | kU16N, 0);
    (set == 0 ? out.joints0 : out.joints1) = std::move(jv);
    (set == 0 ? out.weights0 : out.weights1) = to_vectors<glm::vec4>(w.values, n, 4);
  }
  for (const auto& [name, accessor] : reader.attributes) {
    const bool known = name == "POSITION" || name == "NORMAL" || name == "TANGENT" || name == "TEXCOORD_0" ||
                       name == "TEXCOORD_1" || name == "COLOR_0" || name == "JOINTS_0" || name == "JOINTS_1" ||
                       name == "WEIGHTS_0" || name == "WEIGHTS_1";
    if (known || name.empty() || name[0] == '_') continue;
    if (name.rfind("JOINTS_", 0) == 0 || name.rfind("WEIGHTS_", 0) == 0)
      ctx.warn(attr_path + "." + name + ": only 8 influences per vertex are kept; ignored");
    else
      ctx.warn(attr_path + "." + name + ": not used by vatkit; ignored");
  }
}

// The triangle list: the indices (or 0..n-1), then strips and fans as lists (glTF 2.0,
// "Primitive Topology").
std::vector<uint32_t> read_triangles(Context& ctx, const tinygltf::Primitive& prim, const std::string& path, size_t n) {
  std::vector<uint32_t> corner;
  if (prim.indices >= 0) {
    UintRead r = read_uints(ctx, prim.indices, path + ".indices", kScalar, kU8 | kU16 | kU32);
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (r.values[i] >= n)
        fail(path + ".indices", indexed("accessors", static_cast<size_t>(prim.indices)) + " element " +
                                    std::to_string(i) + " is " + std::to_string(r.values[i]) + ", but POSITION has " +
                                    std::to_string(n) + " vertices");
    }
    corner = std::move(r.values);
  } else {
    ctx.charge(n * sizeof(uint32_t), path);
    corner.resize(n);
    for (size_t i = 0; i < n; ++i) corner[i] = static_cast<uint32_t>(i);
  }
  if (prim.mode == TINYGLTF_MODE_TRIANGLES) {
    if (corner.size() % 3 != 0) {
      ctx.warn(path + ": " + std::to_string(corner.size()) + " vertices is not a multiple of 3; the last " +
               std::to_string(corner.size() % 3) + " ignored");
      corner.resize(corner.size() - corner.size() % 3);
    }
    return corner;
  }
  const size_t triangles = corner.size() >= 3 ? corner.size() - 2 : 0;
  ctx.charge(triangles * 3 * sizeof(uint32_t), path);
  std::vector<uint32_t> indices(triangles * 3);
  for (size_t i = 0; i < triangles; ++i) {
    uint32_t* t = &indices[i * 3];
    if (prim.mode == TINYGLTF_MODE_TRIANGLE_STRIP) {  // {v_i, v_{i+(1+i%2)}, v_{i+(2-i%2)}}
      t[0] = corner[i];
      t[1] = corner[i + 1 + i % 2];
      t[2] = corner[i + 2 - i % 2];
    } else {  // fan: {v_{i+1}, v_{i+2}, v_0}
      t[0] = corner[i + 1];
      t[1] = corner[i + 2];
      t[2] = corner[0];
    }
  }
  return indices;
}

// Morph targets: POSITION, NORMAL and TANGENT deltas (other attributes ignored, with a warning).
void read_morph_targets(Context& ctx, const tinygltf::Primitive& prim, const AttributeReader& reader,
                        const std::string& path, Primitive& out) {
  out.targets.resize(prim.targets.size());
  for (size_t t = 0; t < prim.targets.size(); ++t) {
    const std::string target_path = path + ".targets[" + std::to_string(t) + "]";
    MorphTarget& target = out.targets[t];
    for (const auto& [name, accessor] : prim.targets[t]) {
      const std::string where = target_path + "." + name;
      uint32_t quantized = 0;
      if (name == "POSITION")
        quantized = kI8 | kI8N | kI16 | kI16N;
      else if (name == "NORMAL" || name == "TANGENT")
        quantized = kSignedNormalized;
      else {
        ctx.warn(where + ": morph target attribute not used by vatkit; ignored");
        continue;
      }
      FloatRead r = read_floats(ctx, accessor, where, kVec3, kF32, quantized, true);
      reader.check_count(where, accessor, r.count);
      auto deltas = to_vectors<glm::vec3>(r.values, reader.vertex_count, 3);
      (name == "POSITION" ? target.positions : name == "NORMAL" ? target.normals : target.tangents) = std::move(deltas);
    }
  }
}

// A primitive that primitive_readable accepted, `path` naming it.
Primitive convert_primitive(Context& ctx, const tinygltf::Primitive& prim, const std::string& path) {
  const std::string attr_path = path + ".attributes";
  Primitive out;
  const int position = prim.attributes.at("POSITION");
  FloatRead positions = read_floats(ctx, position, attr_path + ".POSITION", kVec3, kF32, kAnyInt8And16, true);
  if (positions.count > std::numeric_limits<uint32_t>::max() / 4)
    fail(ErrorCode::Limit, attr_path + ".POSITION", "has too many vertices");
  const size_t n = positions.count;
  out.positions = to_vectors<glm::vec3>(positions.values, n, 3);
  positions = {};
  AttributeReader reader{ctx, prim.attributes, attr_path, n};
  read_surface_attributes(ctx, reader, out);
  read_influences(ctx, reader, out);
  out.indices = read_triangles(ctx, prim, path, n);
  if (prim.material >= 0) {
    if (!in_range(prim.material, ctx.model.materials.size()))
      fail(path + ".material", std::to_string(prim.material) + " does not exist (the file has " +
                                   std::to_string(ctx.model.materials.size()) + " materials)");
    out.material = prim.material;
  }
  read_morph_targets(ctx, prim, reader, path, out);

  out.source_vertex_count = static_cast<uint32_t>(n);
  if (out.normals.empty()) {
    // Flat normals split vertices: at most one copy per triangle corner.
    const uint64_t per_vertex = sizeof(glm::vec3) * (2 + 3 * out.targets.size()) + sizeof(glm::vec4) * 6 +
                                sizeof(glm::vec2) * 2 + sizeof(uint32_t) * 2;
    ctx.charge(out.indices.size() * per_vertex, path);
    generate_flat_normals(out);
  }
  return out;
}

}  // namespace

void convert_meshes(Context& ctx) {
  const auto& meshes = ctx.model.meshes;
  ctx.asset.meshes.resize(meshes.size());
  for (size_t m = 0; m < meshes.size(); ++m) {
    const tinygltf::Mesh& in = meshes[m];
    Mesh& out = ctx.asset.meshes[m];
    const std::string mesh_path = indexed("meshes", m);
    out.name = in.name;
    const size_t target_count = in.primitives.empty() ? in.weights.size() : in.primitives[0].targets.size();
    for (size_t p = 0; p < in.primitives.size(); ++p) {
      if (!primitive_readable(ctx, in.primitives[p], m, p, mesh_path, target_count)) continue;
      out.primitives.push_back(
          convert_primitive(ctx, in.primitives[p], mesh_path + ".primitives[" + std::to_string(p) + "]"));
    }
    if (!in.weights.empty()) {
      if (in.weights.size() != target_count)
        fail(mesh_path + ".weights", "has " + std::to_string(in.weights.size()) + " values, but the primitives have " +
                                         std::to_string(target_count) + " morph targets");
      out.weights.assign(in.weights.begin(), in.weights.end());
    } else {
      out.weights.assign(target_count, 0.0f);
    }
  }
}

namespace {

// Unit normal of a counter-clockwise triangle (the spec's front face), computed in double. A
// degenerate triangle has no normal; it gets +Z (it covers no pixels, so any unit vector will do,
// and a unit vector keeps the skinner's normalization finite).
glm::vec3 face_normal(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
  const glm::dvec3 n = glm::cross(glm::dvec3(b) - glm::dvec3(a), glm::dvec3(c) - glm::dvec3(a));
  const double length = glm::length(n);
  if (!(length > 0.0) || !std::isfinite(length)) return glm::vec3(0.0f, 0.0f, 1.0f);
  return glm::vec3(n / length);
}

template <class T>
void append_copies(std::vector<T>& values, const std::vector<uint32_t>& copy_source) {
  if (values.empty()) return;
  values.reserve(values.size() + copy_source.size());
  for (uint32_t s : copy_source) values.push_back(values[s]);
}

// Each triangle's flat normal and its delta under every morph target that moves positions (so
// that a morphed mesh gets the flat normals of the morphed shape at weight 1), and its signature:
// those vectors to 2^-16. Two triangles may share a vertex only when their signatures agree.
struct FaceSignatures {
  std::vector<size_t> moving;   // the morph targets that move positions
  size_t vectors = 1;           // per triangle: the normal, then one delta per moving target
  size_t width = 3;             // signature ints per triangle
  std::vector<glm::vec3> face;  // triangle t's vectors at [t * vectors, (t + 1) * vectors)
  std::vector<int32_t> signature;

  explicit FaceSignatures(const Primitive& prim) {
    for (size_t t = 0; t < prim.targets.size(); ++t)
      if (!prim.targets[t].positions.empty()) moving.push_back(t);
    vectors = 1 + moving.size();
    width = 3 * vectors;
    const size_t triangles = prim.indices.size() / 3;
    face.resize(triangles * vectors);
    signature.resize(triangles * width);
    for (size_t t = 0; t < triangles; ++t) {
      const uint32_t* v = &prim.indices[t * 3];
      const glm::vec3 base = face_normal(prim.positions[v[0]], prim.positions[v[1]], prim.positions[v[2]]);
      face[t * vectors] = base;
      for (size_t k = 0; k < moving.size(); ++k) {
        const auto& d = prim.targets[moving[k]].positions;
        const glm::vec3 morphed =
            face_normal(prim.positions[v[0]] + d[v[0]], prim.positions[v[1]] + d[v[1]], prim.positions[v[2]] + d[v[2]]);
        face[t * vectors + 1 + k] = morphed - base;
      }
      for (size_t k = 0; k < vectors; ++k)
        for (int c = 0; c < 3; ++c)
          signature[t * width + k * 3 + static_cast<size_t>(c)] =
              static_cast<int32_t>(std::lround(face[t * vectors + k][c] * 65536.0f));
    }
  }
  bool same(size_t a, size_t b) const {
    return std::memcmp(&signature[a * width], &signature[b * width], width * sizeof(int32_t)) == 0;
  }
  uint64_t key(uint32_t vertex, size_t t) const {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ vertex;
    for (size_t i = 0; i < width; ++i) {
      h ^= static_cast<uint32_t>(signature[t * width + i]);
      h *= 0x100000001B3ull;
      h ^= h >> 29;
    }
    return h;
  }
};

constexpr uint32_t kNoOwner = std::numeric_limits<uint32_t>::max();

// Which triangle's signature each vertex carries: a vertex shared by triangles of different
// signatures is split, one copy per signature (prim.copy_source: each copy's source vertex; the
// indices are rewritten to the copies). Returns the owner triangle of every vertex, the copies
// after the source vertices (kNoOwner: referenced by no triangle).
std::vector<uint32_t> split_by_signature(Primitive& prim, const FaceSignatures& faces) {
  const uint32_t n = prim.source_vertex_count;
  std::vector<uint32_t> owner(n, kNoOwner);
  std::unordered_multimap<uint64_t, uint32_t> versions;  // (vertex, signature) -> vertex index
  versions.reserve(prim.indices.size());
  prim.copy_source.clear();
  for (size_t c = 0; c < prim.indices.size(); ++c) {
    const uint32_t v = prim.indices[c];
    const size_t t = c / 3;
    if (owner[v] == kNoOwner) {
      owner[v] = static_cast<uint32_t>(t);
      versions.emplace(faces.key(v, t), v);
      continue;
    }
    if (faces.same(owner[v], t)) continue;
    const uint64_t key = faces.key(v, t);
    uint32_t found = kNoOwner;
    for (auto [it, end] = versions.equal_range(key); it != end; ++it) {
      const uint32_t candidate = it->second;
      const uint32_t source = candidate < n ? candidate : prim.copy_source[candidate - n];
      if (source == v && faces.same(owner[candidate], t)) {
        found = candidate;
        break;
      }
    }
    if (found == kNoOwner) {
      found = n + static_cast<uint32_t>(prim.copy_source.size());
      prim.copy_source.push_back(v);
      owner.push_back(static_cast<uint32_t>(t));
      versions.emplace(key, found);
    }
    prim.indices[c] = found;
  }
  return owner;
}

// Every vertex stream and morph target stream extended by the copies of prim.copy_source.
void append_vertex_copies(Primitive& prim) {
  append_copies(prim.positions, prim.copy_source);
  append_copies(prim.tangents, prim.copy_source);
  append_copies(prim.texcoords0, prim.copy_source);
  append_copies(prim.texcoords1, prim.copy_source);
  append_copies(prim.colors0, prim.copy_source);
  append_copies(prim.joints0, prim.copy_source);
  append_copies(prim.joints1, prim.copy_source);
  append_copies(prim.weights0, prim.copy_source);
  append_copies(prim.weights1, prim.copy_source);
  for (MorphTarget& target : prim.targets) {
    append_copies(target.positions, prim.copy_source);
    append_copies(target.tangents, prim.copy_source);
    target.normals.clear();  // without base normals the file's normal deltas mean nothing
  }
}

}  // namespace

void generate_flat_normals(Primitive& prim) {
  const FaceSignatures faces(prim);
  const std::vector<uint32_t> owner = split_by_signature(prim, faces);
  append_vertex_copies(prim);

  const size_t total = prim.positions.size();
  prim.normals.assign(total, glm::vec3(0.0f, 0.0f, 1.0f));  // unreferenced vertices: any unit vector
  for (size_t target : faces.moving) prim.targets[target].normals.assign(total, glm::vec3(0.0f));
  for (size_t vertex = 0; vertex < total; ++vertex) {
    const uint32_t t = owner[vertex];
    if (t == kNoOwner) continue;
    prim.normals[vertex] = faces.face[t * faces.vectors];
    for (size_t k = 0; k < faces.moving.size(); ++k)
      prim.targets[faces.moving[k]].normals[vertex] = faces.face[t * faces.vectors + 1 + k];
  }
  prim.normals_generated = true;
}

}  // namespace vatkit::import_detail

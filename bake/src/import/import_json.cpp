// The shape pass of the importer: every JSON property the importer reads is checked for its type
// (and array length, and non-negative int range for indices) and stored in the typed model
// (tinygltf::Model); everything else (extras, extensions, cameras, samplers, buffers, images) is
// left out. The document is parsed once (import.cpp) and walked once, here: nothing is dropped
// silently (which would shift every later index), no integer is truncated, and every type error
// names its JSON path. The model holds what tinygltf 2.7's parser made of these properties,
// defaults included (a primitive's mode 4, a sampler's "LINEAR", a node's matrix winning over its
// translation, rotation and scale), so the stages after it read the same values.
#include <cmath>
#include <limits>

#include "import/import_internal.h"

namespace vatkit::import_detail {
namespace {

constexpr uint64_t kMaxIndex = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());

const json* member(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "the number " + value.dump();
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "the integer " + value.dump();
    default: return "an unexpected value";
  }
}

bool is_index(const json& v) { return v.is_number_unsigned() && v.get<uint64_t>() <= kMaxIndex; }

// Checks properties of the object `in` (named `path`) and stores them; a property that is absent
// leaves its destination as it is (the model's default). Fails naming `path.key`.
class Copier {
 public:
  Copier(const json& in, std::string path) : in_(in), path_(std::move(path)) {}

  const json* find(const char* key, bool required) const {
    const json* v = member(in_, key);
    if (!v && required) fail(path_ + "." + key, "required property is missing");
    return v;
  }
  std::string at(const char* key) const { return path_ + "." + key; }
  bool has(const char* key) const { return member(in_, key) != nullptr; }

  void index(const char* key, int& out, bool required = false) const {
    if (const json* v = find(key, required)) {
      if (!is_index(*v)) fail(at(key), "must be a non-negative integer index, not " + describe(*v));
      out = static_cast<int>(v->get<uint64_t>());
    }
  }
  template <class T>  // size_t, or int with `max` at most kMaxIndex
  void uint(const char* key, T& out, bool required = false, uint64_t max = std::numeric_limits<uint64_t>::max()) const {
    if (const json* v = find(key, required)) {
      if (!v->is_number_unsigned()) fail(at(key), "must be a non-negative integer, not " + describe(*v));
      if (v->get<uint64_t>() > max) fail(ErrorCode::Limit, at(key), v->dump() + " is too large");
      out = static_cast<T>(v->get<uint64_t>());
    }
  }
  void number(const char* key, double& out) const {
    if (const json* v = find(key, false)) {
      if (!v->is_number() || !std::isfinite(v->get<double>()))
        fail(at(key), "must be a finite number, not " + describe(*v));
      out = v->get<double>();
    }
  }
  // `size` 0 accepts any length.
  void numbers(const char* key, size_t size, std::vector<double>& out) const {
    if (const json* v = find(key, false)) {
      if (!v->is_array()) fail(at(key), "must be an array of numbers, not " + describe(*v));
      if (size != 0 && v->size() != size)
        fail(at(key), "must hold " + std::to_string(size) + " numbers, not " + std::to_string(v->size()));
      out.clear();
      for (size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        if (!e.is_number() || !std::isfinite(e.get<double>()))
          fail(at(key) + "[" + std::to_string(i) + "]", "must be a finite number, not " + describe(e));
        out.push_back(e.get<double>());
      }
    }
  }
  void indices(const char* key, std::vector<int>& out, bool required = false, bool non_empty = false) const {
    if (const json* v = find(key, required)) {
      if (!v->is_array()) fail(at(key), "must be an array of indices, not " + describe(*v));
      if (non_empty && v->empty()) fail(at(key), "must not be empty");
      out.clear();
      for (size_t i = 0; i < v->size(); ++i) {
        if (!is_index((*v)[i]))
          fail(at(key) + "[" + std::to_string(i) + "]",
               "must be a non-negative integer index, not " + describe((*v)[i]));
        out.push_back(static_cast<int>((*v)[i].get<uint64_t>()));
      }
    }
  }
  // An object whose values are all indices (primitive attributes, morph targets).
  void index_map(const char* key, std::map<std::string, int>& out, bool required = false) const {
    if (const json* v = find(key, required)) index_map_value(*v, at(key), out);
  }
  static void index_map_value(const json& v, const std::string& path, std::map<std::string, int>& out) {
    if (!v.is_object()) fail(path, "must be an object, not " + describe(v));
    out.clear();
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!is_index(it.value()))
        fail(path + "." + it.key(), "must be a non-negative integer index, not " + describe(it.value()));
      out[it.key()] = static_cast<int>(it.value().get<uint64_t>());
    }
  }
  void string(const char* key, std::string& out, bool required = false) const {
    if (const json* v = find(key, required)) {
      if (!v->is_string()) fail(at(key), "must be a string, not " + describe(*v));
      out = v->get<std::string>();
    }
  }
  void boolean(const char* key, bool& out) const {
    if (const json* v = find(key, false)) {
      if (!v->is_boolean()) fail(at(key), "must be a boolean, not " + describe(*v));
      out = v->get<bool>();
    }
  }
  // A nested object, or nothing when absent.
  const json* object(const char* key, bool required = false) const {
    const json* v = find(key, required);
    if (v && !v->is_object()) fail(at(key), "must be an object, not " + describe(*v));
    return v;
  }

 private:
  const json& in_;
  std::string path_;
};

// Calls f(element, index, path) for each object of the top-level array `key` (if present).
template <class F>
void for_each_object(const json& doc, const char* key, F&& f) {
  const json* array = member(doc, key);
  if (!array) return;
  if (!array->is_array()) fail(key, "must be an array, not " + describe(*array));
  for (size_t i = 0; i < array->size(); ++i) {
    const json& e = (*array)[i];
    std::string path = indexed(key, i);
    if (!e.is_object()) fail(path, "must be an object, not " + describe(e));
    f(e, i, path);
  }
}

template <class F>
void for_each_nested(const Copier& parent, const char* key, bool required, F&& f) {
  const json* array = parent.find(key, required);
  if (!array) return;
  if (!array->is_array()) fail(parent.at(key), "must be an array, not " + describe(*array));
  for (size_t i = 0; i < array->size(); ++i) {
    const json& e = (*array)[i];
    std::string path = parent.at(key) + "[" + std::to_string(i) + "]";
    if (!e.is_object()) fail(path, "must be an object, not " + describe(e));
    f(e, i, path);
  }
}

// Appends to `out` one element per object of the top-level array `key` and fills it: its "name",
// then what f(copier, element) reads.
template <class T, class F>
void extract_each(const json& doc, const char* key, std::vector<T>& out, F&& f) {
  for_each_object(doc, key, [&](const json& in, size_t, const std::string& path) {
    T& element = out.emplace_back();
    Copier c(in, path);
    c.string("name", element.name);
    f(c, element);
  });
}

bool one_of(const std::string& s, std::initializer_list<const char*> values) {
  for (const char* v : values)
    if (s == v) return true;
  return false;
}

// asset.version: only glTF 2.x; extensionsUsed and extensionsRequired: strings; scene: an index.
void check_asset(const json& doc, tinygltf::Model& model) {
  const json* asset = member(doc, "asset");
  if (!asset) fail("asset", "required property is missing (is this a glTF 2.0 file?)");
  if (!asset->is_object()) fail("asset", "must be an object, not " + describe(*asset));
  const json* version = member(*asset, "version");
  if (!version) fail("asset.version", "required property is missing");
  if (!version->is_string()) fail("asset.version", "must be a string, not " + describe(*version));
  const std::string v = version->get<std::string>();
  if (v.rfind("2.", 0) != 0)
    fail(ErrorCode::Unsupported, "asset.version", "\"" + v + "\" is not supported; only glTF 2.0 is");
  if (const json* min_version = member(*asset, "minVersion")) {
    if (!min_version->is_string() || (min_version->get<std::string>() != "2.0"))
      fail(ErrorCode::Unsupported, "asset.minVersion", min_version->dump() + " is not supported; only glTF 2.0 is");
  }
  model.asset.version = "2.0";

  for (const char* key : {"extensionsUsed", "extensionsRequired"}) {
    if (const json* list = member(doc, key)) {
      if (!list->is_array()) fail(key, "must be an array of strings, not " + describe(*list));
      for (size_t i = 0; i < list->size(); ++i)
        if (!(*list)[i].is_string())
          fail(std::string(key) + "[" + std::to_string(i) + "]", "must be a string, not " + describe((*list)[i]));
    }
  }

  if (const json* scene = member(doc, "scene")) {
    if (!is_index(*scene)) fail("scene", "must be a non-negative integer index, not " + describe(*scene));
    model.defaultScene = static_cast<int>(scene->get<uint64_t>());
  }
}

void extract_scenes_and_nodes(const json& doc, tinygltf::Model& model) {
  extract_each(doc, "scenes", model.scenes,
               [&](const Copier& c, tinygltf::Scene& out) { c.indices("nodes", out.nodes); });

  extract_each(doc, "nodes", model.nodes, [&](const Copier& c, tinygltf::Node& out) {
    c.indices("children", out.children);
    c.index("mesh", out.mesh);
    c.index("skin", out.skin);
    c.numbers("matrix", 16, out.matrix);
    // Checked either way; a matrix makes the node ignore them (as tinygltf does).
    std::vector<double> translation, rotation, scale;
    c.numbers("translation", 3, translation);
    c.numbers("rotation", 4, rotation);
    c.numbers("scale", 3, scale);
    if (!c.has("matrix")) {
      out.translation = std::move(translation);
      out.rotation = std::move(rotation);
      out.scale = std::move(scale);
    }
    c.numbers("weights", 0, out.weights);
  });
}

void extract_meshes(const json& doc, tinygltf::Model& model) {
  extract_each(doc, "meshes", model.meshes, [&](const Copier& c, tinygltf::Mesh& out) {
    c.numbers("weights", 0, out.weights);
    for_each_nested(c, "primitives", true, [&](const json& pin, size_t, const std::string& ppath) {
      tinygltf::Primitive& pout = out.primitives.emplace_back();
      pout.mode = TINYGLTF_MODE_TRIANGLES;  // glTF's default
      Copier p(pin, ppath);
      p.index_map("attributes", pout.attributes, true);
      p.index("indices", pout.indices);
      p.index("material", pout.material);
      p.uint("mode", pout.mode, false, kMaxIndex);
      if (const json* targets = p.find("targets", false)) {
        if (!targets->is_array()) fail(p.at("targets"), "must be an array, not " + describe(*targets));
        for (size_t t = 0; t < targets->size(); ++t) {
          Copier::index_map_value((*targets)[t], p.at("targets") + "[" + std::to_string(t) + "]",
                                  pout.targets.emplace_back());
        }
      }
    });
  });
}

// An accessor's sparse substitution: its count, where its indices and values are.
void extract_sparse(const Copier& c, tinygltf::Accessor& out) {
  const json* sparse = c.object("sparse");
  if (!sparse) return;
  auto& s_out = out.sparse;
  s_out.isSparse = true;
  s_out.indices.byteOffset = 0;
  s_out.values.byteOffset = 0;
  Copier s(*sparse, c.at("sparse"));
  s.uint("count", s_out.count, true, kMaxIndex);
  if (s_out.count == 0) fail(s.at("count"), "must be at least 1");
  const json* indices = s.object("indices", true);
  Copier i(*indices, s.at("indices"));
  i.index("bufferView", s_out.indices.bufferView, true);
  i.uint("byteOffset", s_out.indices.byteOffset, false, kMaxIndex);
  uint64_t ict = 0;
  i.uint("componentType", ict, true);
  if (ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
      ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
    fail(i.at("componentType"), std::to_string(ict) + " is not an index component type (5121, 5123 or 5125)");
  s_out.indices.componentType = static_cast<int>(ict);
  const json* values = s.object("values", true);
  Copier v(*values, s.at("values"));
  v.index("bufferView", s_out.values.bufferView, true);
  v.uint("byteOffset", s_out.values.byteOffset, false, kMaxIndex);
}

void extract_accessors_and_views(const json& doc, tinygltf::Model& model) {
  extract_each(doc, "accessors", model.accessors, [&](const Copier& c, tinygltf::Accessor& out) {
    c.index("bufferView", out.bufferView);
    c.uint("byteOffset", out.byteOffset);
    uint64_t component_type = 0;
    c.uint("componentType", component_type, true);
    if (component_type == TINYGLTF_COMPONENT_TYPE_INT)
      fail(c.at("componentType"), "5124 (INT) is not allowed in glTF 2.0");
    if (!(component_type >= TINYGLTF_COMPONENT_TYPE_BYTE && component_type <= TINYGLTF_COMPONENT_TYPE_FLOAT))
      fail(c.at("componentType"), std::to_string(component_type) + " is not a glTF component type");
    out.componentType = static_cast<int>(component_type);
    c.boolean("normalized", out.normalized);
    c.uint("count", out.count, true);
    std::string type;
    c.string("type", type, true);
    static constexpr std::pair<const char*, int> kTypes[] = {
        {"SCALAR", TINYGLTF_TYPE_SCALAR}, {"VEC2", TINYGLTF_TYPE_VEC2}, {"VEC3", TINYGLTF_TYPE_VEC3},
        {"VEC4", TINYGLTF_TYPE_VEC4},     {"MAT2", TINYGLTF_TYPE_MAT2}, {"MAT3", TINYGLTF_TYPE_MAT3},
        {"MAT4", TINYGLTF_TYPE_MAT4}};
    for (const auto& [name, value] : kTypes)
      if (type == name) out.type = value;
    if (out.type == -1) fail(c.at("type"), json(type).dump() + " is not an accessor type");
    extract_sparse(c, out);
  });

  extract_each(doc, "bufferViews", model.bufferViews, [&](const Copier& c, tinygltf::BufferView& out) {
    c.index("buffer", out.buffer, true);
    c.uint("byteOffset", out.byteOffset);
    c.uint("byteLength", out.byteLength, true);
    c.uint("byteStride", out.byteStride);
    if (c.has("byteStride") && (out.byteStride < 4 || out.byteStride > 252 || out.byteStride % 4 != 0))
      fail(c.at("byteStride"), std::to_string(out.byteStride) + " is not a multiple of 4 between 4 and 252");
  });
}

// Buffers and images are loaded by import_data.cpp from the document; only checked here.
void check_buffers_and_images(const json& doc) {
  std::string name, uri, mime_type;
  size_t byte_length = 0;
  int view = -1;
  for_each_object(doc, "buffers", [&](const json& in, size_t, const std::string& path) {
    Copier c(in, path);
    c.string("name", name);
    c.uint("byteLength", byte_length, true);
    c.string("uri", uri);
  });
  for_each_object(doc, "images", [&](const json& in, size_t, const std::string& path) {
    Copier c(in, path);
    c.string("name", name);
    c.string("uri", uri);
    c.string("mimeType", mime_type);
    c.index("bufferView", view);
    if (c.has("uri") && c.has("bufferView")) fail(path, "has both uri and bufferView");
  });
}

void extract_textures_and_materials(const json& doc, tinygltf::Model& model) {
  extract_each(doc, "textures", model.textures,
               [&](const Copier& c, tinygltf::Texture& out) { c.index("source", out.source); });

  extract_each(doc, "materials", model.materials, [&](const Copier& c, tinygltf::Material& out) {
    c.string("alphaMode", out.alphaMode);
    c.number("alphaCutoff", out.alphaCutoff);
    c.boolean("doubleSided", out.doubleSided);
    if (const json* pbr = c.object("pbrMetallicRoughness")) {
      Copier p(*pbr, c.at("pbrMetallicRoughness"));
      p.numbers("baseColorFactor", 4, out.pbrMetallicRoughness.baseColorFactor);
      if (const json* texture = p.object("baseColorTexture")) {
        Copier t(*texture, p.at("baseColorTexture"));
        t.index("index", out.pbrMetallicRoughness.baseColorTexture.index, true);
        t.uint("texCoord", out.pbrMetallicRoughness.baseColorTexture.texCoord, false, kMaxIndex);
      }
    }
  });
}

void extract_skins(const json& doc, tinygltf::Model& model) {
  extract_each(doc, "skins", model.skins, [&](const Copier& c, tinygltf::Skin& out) {
    c.indices("joints", out.joints, true, true);
    c.index("skeleton", out.skeleton);
    c.index("inverseBindMatrices", out.inverseBindMatrices);
  });
}

// Channels the spec says to ignore (no target node, a path an extension defines) are left out
// with a warning; channel_sources[a][c] is the file's index of channel c of animation a.
void extract_animations(const json& doc, tinygltf::Model& model, std::vector<std::vector<uint32_t>>& channel_sources,
                        std::vector<std::string>& warnings) {
  channel_sources.clear();
  extract_each(doc, "animations", model.animations, [&](const Copier& c, tinygltf::Animation& out) {
    std::vector<uint32_t>& sources = channel_sources.emplace_back();
    for_each_nested(c, "channels", true, [&](const json& cin, size_t ci, const std::string& cpath) {
      tinygltf::AnimationChannel channel;
      Copier ch(cin, cpath);
      ch.index("sampler", channel.sampler, true);
      const json* target = ch.object("target", true);
      Copier t(*target, ch.at("target"));
      t.index("node", channel.target_node);
      t.string("path", channel.target_path, true);
      if (!t.has("node")) {
        warnings.push_back(cpath + ": no target node; channel ignored");
        return;
      }
      if (!one_of(channel.target_path, {"translation", "rotation", "scale", "weights"})) {
        warnings.push_back(cpath + ": target path \"" + channel.target_path + "\" is not supported; channel ignored");
        return;
      }
      out.channels.push_back(std::move(channel));
      sources.push_back(static_cast<uint32_t>(ci));
    });
    for_each_nested(c, "samplers", true, [&](const json& sin, size_t, const std::string& spath) {
      tinygltf::AnimationSampler& sampler = out.samplers.emplace_back();
      Copier s(sin, spath);
      s.index("input", sampler.input, true);
      s.index("output", sampler.output, true);
      s.string("interpolation", sampler.interpolation);
    });
  });
}

// A primitive's index accessor exists and has a bufferView. The messages are tinygltf's (they
// are part of what the importer reports).
void check_index_accessors(const tinygltf::Model& model) {
  for (const tinygltf::Mesh& mesh : model.meshes) {
    for (const tinygltf::Primitive& primitive : mesh.primitives) {
      if (primitive.indices < 0) continue;
      if (size_t(primitive.indices) >= model.accessors.size())
        fail("JSON", "tinygltf: primitive indices accessor out of bounds");
      const int view = model.accessors[size_t(primitive.indices)].bufferView;
      if (view < 0 || size_t(view) >= model.bufferViews.size())
        fail("JSON", "tinygltf: accessor[" + std::to_string(primitive.indices) + "] invalid bufferView");
    }
  }
}

}  // namespace

tinygltf::Model check_and_extract(const json& doc, std::vector<std::vector<uint32_t>>& channel_sources,
                                  std::vector<std::string>& warnings) {
  if (!doc.is_object()) fail("JSON", "the top level must be an object, not " + describe(doc));
  tinygltf::Model model;
  check_asset(doc, model);
  extract_scenes_and_nodes(doc, model);
  extract_meshes(doc, model);
  extract_accessors_and_views(doc, model);
  check_buffers_and_images(doc);
  extract_textures_and_materials(doc, model);
  extract_skins(doc, model);
  extract_animations(doc, model, channel_sources, warnings);
  check_index_accessors(model);
  return model;
}

}  // namespace vatkit::import_detail

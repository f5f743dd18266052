// The shape pass of the importer: every JSON property the importer reads is checked for its type
// (and array length, and non-negative int range for indices) and copied into a clean document;
// everything else (extras, extensions, cameras, samplers, buffers, images) is left out. tinygltf
// then parses the clean document, so it can neither drop an object silently (which would shift
// every later index) nor truncate an integer, and every type error here names its JSON path.
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

// Copies `key` of `in` to `out` after checking it, or fails naming `path.key`.
class Copier {
 public:
  Copier(const json& in, json& out, std::string path) : in_(in), out_(out), path_(std::move(path)) {}

  const json* find(const char* key, bool required) const {
    const json* v = member(in_, key);
    if (!v && required) fail(path_ + "." + key, "required property is missing");
    return v;
  }
  std::string at(const char* key) const { return path_ + "." + key; }

  void index(const char* key, bool required = false) {
    if (const json* v = find(key, required)) {
      if (!is_index(*v)) fail(at(key), "must be a non-negative integer index, not " + describe(*v));
      out_[key] = *v;
    }
  }
  void uint(const char* key, bool required = false, uint64_t max = std::numeric_limits<uint64_t>::max()) {
    if (const json* v = find(key, required)) {
      if (!v->is_number_unsigned()) fail(at(key), "must be a non-negative integer, not " + describe(*v));
      if (v->get<uint64_t>() > max) fail(at(key), v->dump() + " is too large");
      out_[key] = *v;
    }
  }
  void number(const char* key) {
    if (const json* v = find(key, false)) {
      if (!v->is_number() || !std::isfinite(v->get<double>()))
        fail(at(key), "must be a finite number, not " + describe(*v));
      out_[key] = *v;
    }
  }
  // `size` 0 accepts any length.
  void numbers(const char* key, size_t size) {
    if (const json* v = find(key, false)) {
      if (!v->is_array()) fail(at(key), "must be an array of numbers, not " + describe(*v));
      if (size != 0 && v->size() != size)
        fail(at(key), "must hold " + std::to_string(size) + " numbers, not " + std::to_string(v->size()));
      for (size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        if (!e.is_number() || !std::isfinite(e.get<double>()))
          fail(at(key) + "[" + std::to_string(i) + "]", "must be a finite number, not " + describe(e));
      }
      out_[key] = *v;
    }
  }
  void indices(const char* key, bool required = false, bool non_empty = false) {
    if (const json* v = find(key, required)) {
      if (!v->is_array()) fail(at(key), "must be an array of indices, not " + describe(*v));
      if (non_empty && v->empty()) fail(at(key), "must not be empty");
      for (size_t i = 0; i < v->size(); ++i)
        if (!is_index((*v)[i]))
          fail(at(key) + "[" + std::to_string(i) + "]",
               "must be a non-negative integer index, not " + describe((*v)[i]));
      out_[key] = *v;
    }
  }
  // An object whose values are all indices (primitive attributes, morph targets).
  void index_map(const char* key, bool required = false) {
    if (const json* v = find(key, required)) index_map_value(*v, at(key), out_[key]);
  }
  static void index_map_value(const json& v, const std::string& path, json& out) {
    if (!v.is_object()) fail(path, "must be an object, not " + describe(v));
    out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!is_index(it.value()))
        fail(path + "." + it.key(), "must be a non-negative integer index, not " + describe(it.value()));
      out[it.key()] = it.value();
    }
  }
  void string(const char* key, bool required = false) {
    if (const json* v = find(key, required)) {
      if (!v->is_string()) fail(at(key), "must be a string, not " + describe(*v));
      out_[key] = *v;
    }
  }
  void boolean(const char* key) {
    if (const json* v = find(key, false)) {
      if (!v->is_boolean()) fail(at(key), "must be a boolean, not " + describe(*v));
      out_[key] = *v;
    }
  }
  // A nested object: returns a Copier for it, or nothing when absent.
  const json* object(const char* key, bool required = false) const {
    const json* v = find(key, required);
    if (v && !v->is_object()) fail(at(key), "must be an object, not " + describe(*v));
    return v;
  }

  const json& in() const { return in_; }
  json& out() { return out_; }
  const std::string& path() const { return path_; }

 private:
  const json& in_;
  json& out_;
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

bool one_of(const std::string& s, std::initializer_list<const char*> values) {
  for (const char* v : values)
    if (s == v) return true;
  return false;
}

}  // namespace

json check_and_extract(const json& doc, std::vector<std::vector<uint32_t>>& channel_sources,
                       std::vector<std::string>& warnings) {
  if (!doc.is_object()) fail("JSON", "the top level must be an object, not " + describe(doc));
  json clean = json::object();

  // asset.version: only glTF 2.x.
  {
    const json* asset = member(doc, "asset");
    if (!asset) fail("asset", "required property is missing (is this a glTF 2.0 file?)");
    if (!asset->is_object()) fail("asset", "must be an object, not " + describe(*asset));
    const json* version = member(*asset, "version");
    if (!version) fail("asset.version", "required property is missing");
    if (!version->is_string()) fail("asset.version", "must be a string, not " + describe(*version));
    const std::string v = version->get<std::string>();
    if (v.rfind("2.", 0) != 0) fail("asset.version", "\"" + v + "\" is not supported; only glTF 2.0 is");
    if (const json* min_version = member(*asset, "minVersion")) {
      if (!min_version->is_string() || (min_version->get<std::string>() != "2.0"))
        fail("asset.minVersion", min_version->dump() + " is not supported; only glTF 2.0 is");
    }
    clean["asset"] = {{"version", "2.0"}};
  }

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
    clean["scene"] = *scene;
  }

  json& scenes = clean["scenes"] = json::array();
  for_each_object(doc, "scenes", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.indices("nodes");
    scenes.push_back(std::move(out));
  });

  json& nodes = clean["nodes"] = json::array();
  for_each_object(doc, "nodes", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.indices("children");
    c.index("mesh");
    c.index("skin");
    c.numbers("matrix", 16);
    c.numbers("translation", 3);
    c.numbers("rotation", 4);
    c.numbers("scale", 3);
    c.numbers("weights", 0);
    nodes.push_back(std::move(out));
  });

  json& meshes = clean["meshes"] = json::array();
  for_each_object(doc, "meshes", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.numbers("weights", 0);
    json& primitives = out["primitives"] = json::array();
    for_each_nested(c, "primitives", true, [&](const json& pin, size_t, const std::string& ppath) {
      json pout = json::object();
      Copier p(pin, pout, ppath);
      p.index_map("attributes", true);
      p.index("indices");
      p.index("material");
      p.uint("mode", false, kMaxIndex);
      if (const json* targets = p.find("targets", false)) {
        if (!targets->is_array()) fail(p.at("targets"), "must be an array, not " + describe(*targets));
        json& tout = pout["targets"] = json::array();
        for (size_t t = 0; t < targets->size(); ++t) {
          json target;
          Copier::index_map_value((*targets)[t], p.at("targets") + "[" + std::to_string(t) + "]", target);
          tout.push_back(std::move(target));
        }
      }
      primitives.push_back(std::move(pout));
    });
    meshes.push_back(std::move(out));
  });

  json& accessors = clean["accessors"] = json::array();
  for_each_object(doc, "accessors", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.index("bufferView");
    c.uint("byteOffset");
    c.uint("componentType", true);
    const uint64_t component_type = out["componentType"].get<uint64_t>();
    if (component_type == TINYGLTF_COMPONENT_TYPE_INT)
      fail(c.at("componentType"), "5124 (INT) is not allowed in glTF 2.0");
    if (!(component_type >= TINYGLTF_COMPONENT_TYPE_BYTE && component_type <= TINYGLTF_COMPONENT_TYPE_FLOAT))
      fail(c.at("componentType"), std::to_string(component_type) + " is not a glTF component type");
    c.boolean("normalized");
    c.uint("count", true);
    c.string("type", true);
    if (!one_of(out["type"].get<std::string>(), {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"}))
      fail(c.at("type"), out["type"].dump() + " is not an accessor type");
    if (const json* sparse = c.object("sparse")) {
      json sout = json::object();
      Copier s(*sparse, sout, c.at("sparse"));
      s.uint("count", true, kMaxIndex);
      if (sout["count"].get<uint64_t>() == 0) fail(s.at("count"), "must be at least 1");
      const json* indices = s.object("indices", true);
      json iout = json::object();
      Copier i(*indices, iout, s.at("indices"));
      i.index("bufferView", true);
      i.uint("byteOffset", false, kMaxIndex);
      i.uint("componentType", true);
      const uint64_t ict = iout["componentType"].get<uint64_t>();
      if (ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
          ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
        fail(i.at("componentType"), std::to_string(ict) + " is not an index component type (5121, 5123 or 5125)");
      sout["indices"] = std::move(iout);
      const json* values = s.object("values", true);
      json vout = json::object();
      Copier v(*values, vout, s.at("values"));
      v.index("bufferView", true);
      v.uint("byteOffset", false, kMaxIndex);
      sout["values"] = std::move(vout);
      out["sparse"] = std::move(sout);
    }
    accessors.push_back(std::move(out));
  });

  json& views = clean["bufferViews"] = json::array();
  for_each_object(doc, "bufferViews", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.index("buffer", true);
    c.uint("byteOffset");
    c.uint("byteLength", true);
    c.uint("byteStride");
    if (out.contains("byteStride")) {
      const uint64_t stride = out["byteStride"].get<uint64_t>();
      if (stride < 4 || stride > 252 || stride % 4 != 0)
        fail(c.at("byteStride"), std::to_string(stride) + " is not a multiple of 4 between 4 and 252");
    }
    views.push_back(std::move(out));
  });

  // Buffers and images are loaded by import_data.cpp from the original document; only checked.
  for_each_object(doc, "buffers", [&](const json& in, size_t, const std::string& path) {
    json unused;
    Copier c(in, unused, path);
    c.string("name");
    c.uint("byteLength", true);
    c.string("uri");
  });
  for_each_object(doc, "images", [&](const json& in, size_t, const std::string& path) {
    json unused;
    Copier c(in, unused, path);
    c.string("name");
    c.string("uri");
    c.string("mimeType");
    c.index("bufferView");
    if (unused.contains("uri") && unused.contains("bufferView"))
      fail(path, "has both uri and bufferView");
  });

  json& textures = clean["textures"] = json::array();
  for_each_object(doc, "textures", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.index("source");
    textures.push_back(std::move(out));
  });

  json& materials = clean["materials"] = json::array();
  for_each_object(doc, "materials", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.string("alphaMode");
    c.number("alphaCutoff");
    c.boolean("doubleSided");
    if (const json* pbr = c.object("pbrMetallicRoughness")) {
      json pout = json::object();
      Copier p(*pbr, pout, c.at("pbrMetallicRoughness"));
      p.numbers("baseColorFactor", 4);
      if (const json* texture = p.object("baseColorTexture")) {
        json tout = json::object();
        Copier t(*texture, tout, p.at("baseColorTexture"));
        t.index("index", true);
        t.uint("texCoord", false, kMaxIndex);
        pout["baseColorTexture"] = std::move(tout);
      }
      out["pbrMetallicRoughness"] = std::move(pout);
    }
    materials.push_back(std::move(out));
  });

  json& skins = clean["skins"] = json::array();
  for_each_object(doc, "skins", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    c.indices("joints", true, true);
    c.index("skeleton");
    c.index("inverseBindMatrices");
    skins.push_back(std::move(out));
  });

  json& animations = clean["animations"] = json::array();
  channel_sources.clear();
  for_each_object(doc, "animations", [&](const json& in, size_t, const std::string& path) {
    json out = json::object();
    Copier c(in, out, path);
    c.string("name");
    std::vector<uint32_t> sources;
    json& channels = out["channels"] = json::array();
    for_each_nested(c, "channels", true, [&](const json& cin, size_t ci, const std::string& cpath) {
      json cout = json::object();
      Copier ch(cin, cout, cpath);
      ch.index("sampler", true);
      const json* target = ch.object("target", true);
      json tout = json::object();
      Copier t(*target, tout, ch.at("target"));
      t.index("node");
      t.string("path", true);
      const std::string target_path = tout["path"].get<std::string>();
      // The spec says to ignore channels without a node (KHR_animation_pointer writes those)
      // and paths an extension defines. tinygltf would drop them too, without saying so.
      if (!tout.contains("node")) {
        warnings.push_back(cpath + ": no target node; channel ignored");
        return;
      }
      if (!one_of(target_path, {"translation", "rotation", "scale", "weights"})) {
        warnings.push_back(cpath + ": target path \"" + target_path + "\" is not supported; channel ignored");
        return;
      }
      cout["target"] = std::move(tout);
      channels.push_back(std::move(cout));
      sources.push_back(static_cast<uint32_t>(ci));
    });
    json& samplers = out["samplers"] = json::array();
    for_each_nested(c, "samplers", true, [&](const json& sin, size_t, const std::string& spath) {
      json sout = json::object();
      Copier s(sin, sout, spath);
      s.index("input", true);
      s.index("output", true);
      s.string("interpolation");
      samplers.push_back(std::move(sout));
    });
    channel_sources.push_back(std::move(sources));
    animations.push_back(std::move(out));
  });

  return clean;
}

}  // namespace vatkit::import_detail

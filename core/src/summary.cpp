#include "vatkit/summary.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <initializer_list>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "glb_writer.h"

namespace vatkit {
namespace {

// Concatenation by appends: g++ 12 warns falsely (-Wrestrict) on `"literal" + std::string`.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}
std::string num(uint64_t n) { return std::to_string(n); }

std::string plural(uint64_t n, const char* one, const char* many) {
  return cat({num(n), " ", n == 1 ? one : many});
}

std::string quoted(const std::string& name) {
  return name.empty() ? std::string("(unnamed)") : cat({"\"", name, "\""});
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

std::string byte_size(uint64_t bytes) {
  if (bytes < 10 * 1024) return cat({num(bytes), " B"});
  if (bytes < 10 * 1024 * 1024) return cat({num((bytes + 512) / 1024), " KiB"});
  return cat({num((bytes + 512 * 1024) / (1024 * 1024)), " MiB"});
}

std::string interpolation_list(const ClipSummary& c) {
  std::string out;
  auto add = [&](uint32_t n, const char* mode) {
    if (n == 0) return;
    if (!out.empty()) out += "+";
    out += mode;
  };
  add(c.step, "STEP");
  add(c.linear, "LINEAR");
  add(c.cubic_spline, "CUBICSPLINE");
  return out.empty() ? "-" : out;
}

std::string path_list(const ClipSummary& c) {
  std::string out;
  auto add = [&](uint32_t n, const char* path) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out.append(cat({num(n), " ", path}));
  };
  add(c.translation, "translation");
  add(c.rotation, "rotation");
  add(c.scale, "scale");
  add(c.weights, "weights");
  return out.empty() ? "nothing" : out;
}

}  // namespace

AssetSummary summarize(const Asset& asset) {
  AssetSummary s;
  s.source = asset.source;
  s.scenes = static_cast<uint32_t>(asset.scenes.size());
  s.default_scene = asset.default_scene;
  s.roots = static_cast<uint32_t>(asset.roots.size());
  s.nodes = static_cast<uint32_t>(asset.nodes.size());

  std::vector<bool> mesh_skinned(asset.meshes.size(), false);
  for (const Node& node : asset.nodes) {
    if (node.mesh >= 0 && node.skin >= 0) mesh_skinned[node.mesh] = true;
  }
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    MeshSummary ms;
    ms.name = mesh.name;
    ms.primitives = static_cast<uint32_t>(mesh.primitives.size());
    ms.skinned = mesh_skinned[m];
    for (const Primitive& p : mesh.primitives) {
      ms.vertices += p.source_vertex_count;
      ms.triangles += static_cast<uint32_t>(p.indices.size() / 3);
      ms.morph_targets = std::max(ms.morph_targets, static_cast<uint32_t>(p.targets.size()));
      if (ms.skinned) s.max_influences = std::max(s.max_influences, p.influence_count());
    }
    s.primitives += ms.primitives;
    s.vertices += ms.vertices;
    s.triangles += ms.triangles;
    s.morph_targets += ms.morph_targets;
    s.meshes.push_back(std::move(ms));
  }
  s.instances = static_cast<uint32_t>(asset.instances.size());
  s.instance_vertices = asset.instance_vertex_count;

  std::set<uint32_t> joints;
  for (const Skin& skin : asset.skins) {
    s.skins.push_back({skin.name, static_cast<uint32_t>(skin.joints.size())});
    joints.insert(skin.joints.begin(), skin.joints.end());
  }
  s.joints = static_cast<uint32_t>(joints.size());

  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& anim = asset.animations[a];
    ClipSummary c;
    c.index = static_cast<uint32_t>(a);
    c.name = anim.name;
    c.start_s = anim.start_s;
    c.duration_s = anim.end_s;
    c.channels = static_cast<uint32_t>(anim.channels.size());
    c.samplers = static_cast<uint32_t>(anim.samplers.size());
    for (const Sampler& sampler : anim.samplers) {
      c.max_keys = std::max(c.max_keys, static_cast<uint32_t>(sampler.times.size()));
      switch (sampler.interpolation) {
        case Interpolation::Step: ++c.step; break;
        case Interpolation::Linear: ++c.linear; break;
        case Interpolation::CubicSpline: ++c.cubic_spline; break;
      }
    }
    for (const Channel& channel : anim.channels) {
      switch (channel.path) {
        case Path::Translation: ++c.translation; break;
        case Path::Rotation: ++c.rotation; break;
        case Path::Scale: ++c.scale; break;
        case Path::Weights: ++c.weights; break;
      }
    }
    s.clips.push_back(std::move(c));
  }
  for (const Material& m : asset.materials) {
    s.materials.push_back({m.name, m.base_color_factor, m.base_color_image});
  }
  for (const Image& image : asset.images) {
    s.images.push_back({image.name, image.mime_type, image.bytes.size()});
  }
  s.warnings = asset.warnings;
  return s;
}

std::string summary_text(const AssetSummary& s) {
  std::string out = cat({s.source.empty() ? std::string_view("(asset)") : s.source, "\n"});
  auto line = [&](const char* label, const std::string& text) {
    char head[32];
    std::snprintf(head, sizeof(head), "  %-12s", label);
    out.append(cat({head, text, "\n"}));
  };

  line("scenes", cat({num(s.scenes),
                      s.default_scene >= 0 ? cat({" (default #", num(s.default_scene), ", "})
                                           : std::string(" (no default scene, "),
                      plural(s.roots, "root", "roots"), "), ", plural(s.nodes, "node", "nodes")}));
  line("meshes", cat({num(s.meshes.size()), ": ", plural(s.primitives, "primitive", "primitives"),
                      ", ", plural(s.vertices, "vertex", "vertices"), ", ",
                      plural(s.triangles, "triangle", "triangles"), ", ",
                      s.morph_targets ? plural(s.morph_targets, "morph target", "morph targets")
                                      : std::string("no morph targets")}));
  for (size_t m = 0; m < s.meshes.size() && s.meshes.size() > 1; ++m) {
    const MeshSummary& mesh = s.meshes[m];
    std::string text = cat({"#", num(m), " ", quoted(mesh.name), ": ",
                            plural(mesh.primitives, "primitive", "primitives"), ", ",
                            plural(mesh.vertices, "vertex", "vertices"), ", ",
                            plural(mesh.triangles, "triangle", "triangles")});
    if (mesh.morph_targets) {
      text.append(cat({", ", plural(mesh.morph_targets, "morph target", "morph targets")}));
    }
    if (mesh.skinned) text.append(", skinned");
    line("", text);
  }
  line("drawn", cat({plural(s.instances, "primitive instance", "primitive instances"), ", ",
                     plural(s.instance_vertices, "vertex", "vertices")}));

  if (s.skins.empty()) {
    line("skins", "none");
  } else {
    line("skins", cat({num(s.skins.size()), ": ",
                       plural(s.joints, "distinct joint", "distinct joints"), ", up to ",
                       num(s.max_influences), " influences per vertex"}));
    for (size_t k = 0; k < s.skins.size(); ++k) {
      line("", cat({"#", num(k), " ", quoted(s.skins[k].name), ": ",
                    plural(s.skins[k].joints, "joint", "joints")}));
    }
  }

  if (s.clips.empty()) {
    line("clips", "none");
  } else {
    line("clips", num(s.clips.size()));
    size_t name_width = 0;
    for (const ClipSummary& c : s.clips) name_width = std::max(name_width, quoted(c.name).size());
    for (const ClipSummary& c : s.clips) {
      std::string name = quoted(c.name);
      name.resize(name_width, ' ');
      std::string text = cat({"#", num(c.index), " ", name, "  ", fixed(c.duration_s, 3), " s"});
      if (c.start_s > 0.0f) text.append(cat({" (from ", fixed(c.start_s, 3), " s)"}));
      text.append(cat({", ", plural(c.channels, "channel", "channels"), " (", path_list(c), "), ",
                       interpolation_list(c), ", ", plural(c.max_keys, "key", "keys"), " max"}));
      line("", text);
    }
  }

  if (s.materials.empty()) {
    line("materials", "none (default material)");
  } else {
    line("materials", num(s.materials.size()));
    for (size_t m = 0; m < s.materials.size(); ++m) {
      const MaterialSummary& mat = s.materials[m];
      const glm::vec4& f = mat.base_color_factor;
      std::string text = cat({"#", num(m), " ", quoted(mat.name), ": base colour (",
                              fixed(f.r, 3), ", ", fixed(f.g, 3), ", ", fixed(f.b, 3), ", ",
                              fixed(f.a, 3), ")"});
      if (mat.base_color_image >= 0) {
        text.append(cat({", texture image #", num(static_cast<uint64_t>(mat.base_color_image))}));
      }
      line("", text);
    }
  }
  if (s.images.empty()) {
    line("images", "none");
  } else {
    line("images", num(s.images.size()));
    for (size_t i = 0; i < s.images.size(); ++i) {
      line("", cat({"#", num(i), " ", quoted(s.images[i].name), ": ", s.images[i].mime_type, ", ",
                    byte_size(s.images[i].bytes)}));
    }
  }
  if (s.warnings.empty()) {
    line("warnings", "none");
  } else {
    line("warnings", num(s.warnings.size()));
    for (const std::string& w : s.warnings) line("", w);
  }
  return out;
}

std::string summary_json(const AssetSummary& s) {
  using json = nlohmann::ordered_json;  // fields in the order of AssetSummary
  json out = {{"source", s.source},
              {"scenes", s.scenes},
              {"default_scene", s.default_scene},
              {"roots", s.roots},
              {"nodes", s.nodes},
              {"primitives", s.primitives},
              {"vertices", s.vertices},
              {"triangles", s.triangles},
              {"morph_targets", s.morph_targets},
              {"instances", s.instances},
              {"instance_vertices", s.instance_vertices},
              {"joints", s.joints},
              {"max_influences", s.max_influences}};
  json meshes = json::array();
  for (const MeshSummary& m : s.meshes) {
    meshes.push_back({{"name", m.name},
                      {"primitives", m.primitives},
                      {"vertices", m.vertices},
                      {"triangles", m.triangles},
                      {"morph_targets", m.morph_targets},
                      {"skinned", m.skinned}});
  }
  out["meshes"] = std::move(meshes);
  json skins = json::array();
  for (const SkinSummary& k : s.skins) skins.push_back({{"name", k.name}, {"joints", k.joints}});
  out["skins"] = std::move(skins);
  json clips = json::array();
  for (const ClipSummary& c : s.clips) {
    json interpolation = json::array();
    if (c.step) interpolation.push_back("STEP");
    if (c.linear) interpolation.push_back("LINEAR");
    if (c.cubic_spline) interpolation.push_back("CUBICSPLINE");
    clips.push_back({{"index", c.index},
                     {"name", c.name},
                     {"start_s", glb::json_number(c.start_s)},
                     {"duration_s", glb::json_number(c.duration_s)},
                     {"channels", c.channels},
                     {"samplers", c.samplers},
                     {"max_keys", c.max_keys},
                     {"interpolation", std::move(interpolation)},
                     {"paths",
                      {{"translation", c.translation},
                       {"rotation", c.rotation},
                       {"scale", c.scale},
                       {"weights", c.weights}}}});
  }
  out["clips"] = std::move(clips);
  json materials = json::array();
  for (const MaterialSummary& m : s.materials) {
    materials.push_back({{"name", m.name},
                         {"base_color_factor", glb::json_array(m.base_color_factor)},
                         {"base_color_image", m.base_color_image}});
  }
  out["materials"] = std::move(materials);
  json images = json::array();
  for (const ImageSummary& i : s.images) {
    images.push_back({{"name", i.name}, {"mime_type", i.mime_type}, {"bytes", i.bytes}});
  }
  out["images"] = std::move(images);
  out["warnings"] = s.warnings;
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<int> find_clip(const Asset& asset, const std::string& selector) {
  auto clip_list = [&] {
    std::string list;
    const size_t shown = std::min<size_t>(asset.animations.size(), 32);
    for (size_t a = 0; a < shown; ++a) {
      if (a) list.append(", ");
      list.append(clip_label(asset, static_cast<int>(a)));
    }
    if (shown < asset.animations.size()) list.append(", ...");
    return list;
  };
  if (asset.animations.empty()) {
    return make_error(asset.source,
                      cat({"has no animations, so there is no clip \"", selector, "\""}));
  }
  if (!selector.empty() && selector[0] == '#') {
    uint64_t index = 0;
    const char* first = selector.data() + 1;
    const char* last = selector.data() + selector.size();
    const auto parsed = std::from_chars(first, last, index);
    if (first == last || parsed.ec != std::errc() || parsed.ptr != last) {
      return make_error(asset.source, cat({"bad clip index \"", selector,
                                           "\" (expected #N with N from 0 to ",
                                           num(asset.animations.size() - 1), ")"}));
    }
    if (index >= asset.animations.size()) {
      return make_error(asset.source,
                        cat({"no clip ", selector, ": the file has ",
                             plural(asset.animations.size(), "clip", "clips"), " (", clip_list(),
                             ")"}));
    }
    return static_cast<int>(index);
  }
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    if (asset.animations[a].name == selector) return static_cast<int>(a);
  }
  return make_error(asset.source,
                    cat({"no clip named \"", selector, "\" (clips: ", clip_list(), ")"}));
}

std::string clip_label(const Asset& asset, int clip) {
  const std::string& name = asset.animations[static_cast<size_t>(clip)].name;
  return name.empty() ? cat({"#", num(static_cast<uint64_t>(clip))}) : name;
}

}  // namespace vatkit

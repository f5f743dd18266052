#include "summary.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "file/glb.h"
#include "util/printable.h"

namespace vatkit {
namespace {

// Concatenation by appends: g++ 12 warns falsely (-Wrestrict) on `"literal" + std::string`.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}
std::string num(uint64_t n) { return std::to_string(n); }

std::string plural(uint64_t n, const char* one, const char* many) { return cat({num(n), " ", n == 1 ? one : many}); }

// Names, URIs, warnings and notes come from the file: printed through printable().
std::string quoted(const std::string& name) {
  return name.empty() ? std::string("(unnamed)") : cat({"\"", printable(name), "\""});
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

// One line of a text summary: a label padded to a column, then the text.
void labelled_line(std::string& out, const char* label, const std::string& text) {
  char head[32];
  std::snprintf(head, sizeof(head), "  %-12s", label);
  out.append(cat({head, text, "\n"}));
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

// The skins and their joints (node, name, parent joint) of summary_text(AssetSummary).
std::string skins_text(const AssetSummary& s) {
  std::string out;
  auto line = [&](const char* label, const std::string& text) { labelled_line(out, label, text); };
  if (s.skins.empty()) {
    line("skins", "none");
  } else {
    line("skins", cat({num(s.skins.size()), ": ", plural(s.joints, "distinct joint", "distinct joints"), ", up to ",
                       num(s.max_influences), " influences per vertex"}));
    for (size_t k = 0; k < s.skins.size(); ++k) {
      line("", cat({"#", num(k), " ", quoted(s.skins[k].name), ": ", plural(s.skins[k].joints, "joint", "joints")}));
    }
    line("joints", "node, name, parent joint");
    for (const JointSummary& j : s.joint_list) {
      line("", cat({"#", num(j.node), " ", quoted(j.name),
                    j.parent < 0 ? "  (root)" : cat({"  <- #", num(uint64_t(j.parent))})}));
    }
  }
  return out;
}

// Each joint with its nearest ancestor among the joints (-1: a root joint), by node index.
std::vector<JointSummary> joint_list(const Asset& asset, const std::set<uint32_t>& joints) {
  std::vector<JointSummary> out;
  for (uint32_t node : joints) {
    int32_t parent = asset.nodes[node].parent;
    while (parent >= 0 && !joints.count(uint32_t(parent))) parent = asset.nodes[size_t(parent)].parent;
    out.push_back({node, asset.nodes[node].name, parent});
  }
  return out;
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
  s.joint_list = joint_list(asset, joints);

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
  std::string out = cat({s.source.empty() ? std::string_view("(asset)") : printable(s.source), "\n"});
  auto line = [&](const char* label, const std::string& text) { labelled_line(out, label, text); };

  line("scenes", cat({num(s.scenes),
                      s.default_scene >= 0 ? cat({" (default #", num(s.default_scene), ", "})
                                           : std::string(" (no default scene, "),
                      plural(s.roots, "root", "roots"), "), ", plural(s.nodes, "node", "nodes")}));
  line("meshes",
       cat({num(s.meshes.size()), ": ", plural(s.primitives, "primitive", "primitives"), ", ",
            plural(s.vertices, "vertex", "vertices"), ", ", plural(s.triangles, "triangle", "triangles"), ", ",
            s.morph_targets ? plural(s.morph_targets, "morph target", "morph targets")
                            : std::string("no morph targets")}));
  for (size_t m = 0; m < s.meshes.size() && s.meshes.size() > 1; ++m) {
    const MeshSummary& mesh = s.meshes[m];
    std::string text =
        cat({"#", num(m), " ", quoted(mesh.name), ": ", plural(mesh.primitives, "primitive", "primitives"), ", ",
             plural(mesh.vertices, "vertex", "vertices"), ", ", plural(mesh.triangles, "triangle", "triangles")});
    if (mesh.morph_targets) {
      text.append(cat({", ", plural(mesh.morph_targets, "morph target", "morph targets")}));
    }
    if (mesh.skinned) text.append(", skinned");
    line("", text);
  }
  line("drawn", cat({plural(s.instances, "primitive instance", "primitive instances"), ", ",
                     plural(s.instance_vertices, "vertex", "vertices")}));

  out.append(skins_text(s));

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
      std::string text = cat({"#", num(m), " ", quoted(mat.name), ": base colour (", fixed(f.r, 3), ", ", fixed(f.g, 3),
                              ", ", fixed(f.b, 3), ", ", fixed(f.a, 3), ")"});
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
      line("", cat({"#", num(i), " ", quoted(s.images[i].name), ": ", printable(s.images[i].mime_type), ", ",
                    byte_size(s.images[i].bytes)}));
    }
  }
  if (s.warnings.empty()) {
    line("warnings", "none");
  } else {
    line("warnings", num(s.warnings.size()));
    for (const std::string& w : s.warnings) line("", printable(w));
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
  json joint_list = json::array();
  for (const JointSummary& j : s.joint_list) {
    joint_list.push_back({{"node", j.node}, {"name", j.name}, {"parent", j.parent}});
  }
  out["joint_list"] = std::move(joint_list);
  json clips = json::array();
  for (const ClipSummary& c : s.clips) {
    json interpolation = json::array();
    if (c.step) interpolation.push_back("STEP");
    if (c.linear) interpolation.push_back("LINEAR");
    if (c.cubic_spline) interpolation.push_back("CUBICSPLINE");
    clips.push_back(
        {{"index", c.index},
         {"name", c.name},
         {"start_s", glb::json_number(c.start_s)},
         {"duration_s", glb::json_number(c.duration_s)},
         {"channels", c.channels},
         {"samplers", c.samplers},
         {"max_keys", c.max_keys},
         {"interpolation", std::move(interpolation)},
         {"paths",
          {{"translation", c.translation}, {"rotation", c.rotation}, {"scale", c.scale}, {"weights", c.weights}}}});
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
  return out.dump(2, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace) + "\n";
}

VatSummary summarize(const Vat& vat, std::span<const ClipError> errors) {
  VatSummary s;
  s.source = vat.source;
  s.encoding = vat.encoding;
  s.precision = vat.precision;
  s.vertices = vat.geometry.vertex_count();
  s.triangles = static_cast<uint32_t>(vat.geometry.indices.size() / 3);
  s.draw_groups = static_cast<uint32_t>(vat.geometry.groups.size());
  s.source_primitives = static_cast<uint32_t>(vat.geometry.sources.size());
  s.slots = static_cast<uint32_t>(vat.slots.size());
  if (!vat.geometry.slots0.empty()) s.influences = vat.geometry.slots1.empty() ? 4 : 8;
  s.frame_rows = vat.frame_rows;
  s.bounds = vat.bounds;
  s.metres_per_unit = vat.metres_per_unit;
  for (size_t c = 0; c < vat.clips.size(); ++c) {
    const VatClip& clip = vat.clips[c];
    VatClipSummary cs;
    cs.index = static_cast<uint32_t>(c);
    cs.name = clip.name;
    cs.source_animation = clip.source_animation;
    cs.first_row = clip.first_row;
    cs.rows = clip.rows;
    cs.fps = clip.fps;
    cs.duration_s = clip.duration_s;
    cs.defaults = clip.defaults;
    cs.max_delta = clip.max_delta;
    cs.seam = clip.seam.value_or(-1.0f);
    cs.events = clip.events;
    cs.root_motion = clip.root_motion;
    cs.bounds = clip.bounds;
    if (c < errors.size()) {
      cs.measured = true;
      cs.error = errors[c];
    } else if (clip.accuracy) {  // what the bake measured, as the .vat.glb keeps it
      cs.measured = true;
      static_cast<ClipAccuracy&>(cs.error) = *clip.accuracy;
      cs.error.clip = clip_label(vat, int(c));
      cs.error.rows = clip.rows;
      cs.error.fps = clip.fps;
    }
    s.clips.push_back(std::move(cs));
  }
  for (size_t i = 0; i < vat.slots.size(); ++i) {
    s.slot_list.push_back({static_cast<uint32_t>(i), vat.slots[i].name, vat.slots[i].node});
  }
  for (const Plane& p : vat.planes) {
    s.planes.push_back({p.semantic, p.format, p.texels_per_frame, p.width, p.height, p.rows_per_frame, p.byte_size()});
    s.plane_bytes += p.byte_size();
  }
  for (const LodLevel& lod : vat.geometry.lods) {
    s.lods.push_back({static_cast<uint32_t>(lod.indices.size() / 3), lod.error, lod.error_in_motion, lod.screen_size});
  }
  s.materials = static_cast<uint32_t>(vat.materials.size());
  s.images = static_cast<uint32_t>(vat.images.size());
  return s;
}

VatSummary summarize(const Vat& vat, const BakeReport& report) {
  VatSummary s = summarize(vat, report.clips);
  s.baked = true;
  s.encoding_reason = report.encoding_reason;
  s.notes = report.notes;
  s.size = report.size;
  s.bake_seconds = report.seconds;
  s.measure_seconds = report.measure_seconds;
  s.lod_seconds = report.lod_seconds;
  return s;
}

namespace {

// About three significant digits; an exponent only below 1e-4 (errors span 1e-6 to 1e4 mm).
std::string sig3(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "-inf" : "nan");
  if (v == 0.0) return "0";
  const double a = std::fabs(v);
  if (a < 1e-4) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2e", v);
    return text;
  }
  const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(a))), 0, 8);
  return fixed(v, decimals);
}

// "31328 B (30.6 KiB)"
std::string bytes_text(uint64_t bytes) {
  if (bytes < 1024) return cat({num(bytes), " B"});
  const char* unit = "KiB";
  double scaled = double(bytes) / 1024.0;
  if (scaled >= 1024.0) {
    scaled /= 1024.0;
    unit = "MiB";
  }
  if (scaled >= 1024.0) {
    scaled /= 1024.0;
    unit = "GiB";
  }
  return cat({num(bytes), " B (", fixed(scaled, 1), " ", unit, ")"});
}

std::string vec_text(const glm::vec3& v) { return cat({"(", sig3(v.x), ", ", sig3(v.y), ", ", sig3(v.z), ")"}); }

std::string playback_text(const ClipDefaults& d) {
  std::string out = to_string(d.loop_mode);
  if (d.repetitions != kInfiniteRepetitions) out.append(cat({" x", num(uint64_t(d.repetitions))}));
  if (d.end_mode != EndMode::Clamp) out.append(cat({" ", to_string(d.end_mode)}));
  if (d.speed != 1.0f) out.append(cat({" speed ", sig3(d.speed)}));
  return out;
}

// Columns padded to their widest cell; `align` has one 'l' or 'r' per column. Each line starts
// with `indent` and has no trailing spaces.
std::string table(const std::vector<std::vector<std::string>>& rows, std::string_view align, std::string_view indent) {
  std::vector<size_t> width(align.size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line(indent);
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      if (c) line.append("  ");
      const std::string pad(width[c] - row[c].size(), ' ');
      line.append(align[c] == 'r' ? cat({pad, row[c]}) : cat({row[c], pad}));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.append(cat({line, "\n"}));
  }
  return out;
}

// The clip table of summary_text: one row per clip, the seam column where the bake measured seams,
// the error columns where any clip was measured. Figures in mm of the Vat's unit.
std::string clips_table(const VatSummary& s, bool measured) {
  std::vector<std::vector<std::string>> rows;
  const double mm = 1000.0 * double(s.metres_per_unit);
  const bool seams = std::any_of(s.clips.begin(), s.clips.end(), [](const VatClipSummary& c) { return c.seam >= 0; });
  std::vector<std::string> head = {"#", "clip", "rows", "first", "fps", "duration", "playback"};
  std::string align = "rlrrrrl";
  if (seams) head.push_back("seam mm"), align += 'r';
  head.push_back("max delta mm"), align += 'r';
  if (measured) {
    head.insert(head.end(), {"on rows max", "p99", "between max", "p99", "normal max"});
    align += "rrrrr";
  }
  rows.push_back(head);
  for (const VatClipSummary& c : s.clips) {
    std::vector<std::string> row = {num(c.index),
                                    quoted(c.name),
                                    num(c.rows),
                                    num(c.first_row),
                                    fixed(c.fps, 3),
                                    cat({fixed(c.duration_s, 3), " s"}),
                                    playback_text(c.defaults)};
    if (seams) row.push_back(c.seam >= 0 ? sig3(double(c.seam) * mm) : "-");
    row.push_back(sig3(double(c.max_delta) * mm));
    if (c.measured) {
      row.insert(row.end(),
                 {sig3(c.error.on_rows_max_mm), sig3(c.error.on_rows_p99_mm), sig3(c.error.between_rows_max_mm),
                  sig3(c.error.between_rows_p99_mm), cat({sig3(c.error.normal_max_deg), " deg"})});
    } else if (measured) {
      row.insert(row.end(), {"-", "-", "-", "-", "-"});
    }
    rows.push_back(std::move(row));
  }
  return table(rows, align, "    ");
}

// The levels-of-detail table of summary_text (in mm of the Vat's unit).
std::string lods_table(const VatSummary& s) {
  const double mm = 1000.0 * double(s.metres_per_unit);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"level", "triangles", "of full", "error", "in motion", "screen size"});
  for (size_t l = 0; l < s.lods.size(); ++l) {
    const VatLodSummary& lod = s.lods[l];
    const double share = s.triangles ? 100.0 * double(lod.triangles) / double(s.triangles) : 0.0;
    rows.push_back({num(l + 1), num(lod.triangles), cat({fixed(share, 1), "%"}), sig3(double(lod.error) * mm),
                    sig3(double(lod.error_in_motion) * mm), cat({sig3(double(lod.screen_size)), " px"})});
  }
  return table(rows, "rrrrrr", "    ");
}

}  // namespace

namespace {

// The clips' named events (format version 4), one line per clip that has any: "walk: step_l
// 0.25 s, step_r 0.75 s". Nothing when no clip has events.
std::string events_text(const VatSummary& s) {
  std::string out;
  for (const VatClipSummary& c : s.clips) {
    if (c.events.empty()) continue;
    std::string list = cat({c.name.empty() ? cat({"#", num(c.index)}) : printable(c.name), ": "});
    for (size_t i = 0; i < c.events.size(); ++i) {
      list.append(cat({i == 0 ? "" : ", ", printable(c.events[i].name), " ", sig3(c.events[i].time_s), " s"}));
    }
    labelled_line(out, out.empty() ? "events" : "", list);
  }
  return out;
}

// A root motion's cycle: the motion of its last row (x, y, z, yaw).
std::array<float, 4> cycle_of(const RootMotion& m) {
  const size_t last = m.track.size() >= 4 ? m.track.size() - 4 : 0;
  if (m.track.size() < 4) return {0.0f, 0.0f, 0.0f, 0.0f};
  return {m.track[last], m.track[last + 1], m.track[last + 2], m.track[last + 3]};
}

// The clips' root motion (format version 5), one line per clip that has one: "walk: feet, 1.43
// units per cycle (x 0, z 1.43), turning 0 deg". Nothing when no clip has root motion.
std::string root_motion_text(const VatSummary& s) {
  std::string out;
  for (const VatClipSummary& c : s.clips) {
    if (!c.root_motion) continue;
    const RootMotion& m = *c.root_motion;
    const std::array<float, 4> cycle = cycle_of(m);
    const std::string from =
        m.source == RootMotionSource::Feet ? std::string("feet") : cat({"joint \"", printable(m.joint), "\""});
    labelled_line(out, out.empty() ? "root motion" : "",
                  cat({c.name.empty() ? cat({"#", num(c.index)}) : printable(c.name), ": ", from, ", ",
                       sig3(std::hypot(cycle[0], cycle[2])), " units per cycle (x ", sig3(cycle[0]), ", z ",
                       sig3(cycle[2]), "), turning ", sig3(cycle[3] * 57.29578f), " deg"}));
  }
  return out;
}

}  // namespace

std::string summary_text(const VatSummary& s) {
  std::string out = cat({s.source.empty() ? std::string_view("(vat)") : printable(s.source), "\n"});
  auto line = [&](const char* label, const std::string& text) { labelled_line(out, label, text); };

  std::string encoding = cat({to_string(s.encoding), ", ", to_string(s.precision)});
  if (!s.encoding_reason.empty()) encoding.append(cat({" (", printable(s.encoding_reason), ")"}));
  line("encoding", encoding);
  std::string geometry =
      cat({plural(s.vertices, "vertex", "vertices"), ", ", plural(s.triangles, "triangle", "triangles"), ", ",
           plural(s.draw_groups, "draw group", "draw groups"), ", ",
           plural(s.source_primitives, "source primitive", "source primitives")});
  if (s.encoding == Encoding::Rig) {
    geometry.append(cat({"; ", plural(s.slots, "slot", "slots"), ", ", num(s.influences), " influences per vertex"}));
  } else if (s.slots > 0) {
    geometry.append(cat({"; ", plural(s.slots, "joint", "joints"), " for sockets"}));
  }
  line("geometry", geometry);
  line("materials", cat({num(s.materials), " (", plural(s.images, "image", "images"), ")"}));
  line("bounds", cat({vec_text(s.bounds.min), " to ", vec_text(s.bounds.max)}));
  char per_unit[32];
  std::snprintf(per_unit, sizeof(per_unit), "%g", double(s.metres_per_unit));
  std::string units = cat({per_unit, " m per unit"});
  if (s.metres_per_unit == 1.0f) units.append(" (glTF's metres)");
  if (s.size > 0.0f) {
    units.append(cat({"; ", sig3(s.size), " units across at rest (", sig3(double(s.size) * s.metres_per_unit), " m)"}));
  }
  line("units", units);

  const bool measured = std::any_of(s.clips.begin(), s.clips.end(), [](const VatClipSummary& c) { return c.measured; });
  line("clips", cat({num(s.clips.size()), ", ", plural(s.frame_rows, "frame row", "frame rows"),
                     measured ? "; error in mm against the reference (max, 99th percentile)" : ""}));
  out.append(clips_table(s, measured));
  out.append(events_text(s));
  out.append(root_motion_text(s));
  if (!measured) {
    line("error",
         "not measured (baked without measuring, or a format version 1 file: `vatkit verify "
         "SOURCE FILE.vat.glb` compares it with its source)");
  }

  line("planes", plural(s.planes.size(), "plane", "planes"));
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"plane", "format", "width", "height", "rows/frame", "texels/frame", "bytes"});
  for (const VatPlaneSummary& p : s.planes) {
    rows.push_back({to_string(p.semantic), to_string(p.format), num(p.width), num(p.height), num(p.rows_per_frame),
                    num(p.texels_per_frame), bytes_text(p.bytes)});
  }
  out.append(table(rows, "llrrrrl", "    "));
  if (!s.lods.empty()) {
    line("lods", cat({plural(s.lods.size(), "level", "levels"), " of detail; error in mm, at rest and in motion"}));
    out.append(lods_table(s));
  }
  std::string total = cat({bytes_text(s.plane_bytes), " in planes"});
  if (s.file_bytes > 0) total.append(cat({"; file ", bytes_text(s.file_bytes)}));
  line("total", total);
  if (s.baked) {
    // The parts a bake had: no levels of detail (--lods 0) or no measurement (--no-measure) says
    // nothing about them.
    std::string parts;
    if (!s.lods.empty()) parts = cat({"levels of detail ", fixed(s.lod_seconds, 3), " s"});
    if (s.measure_seconds > 0.0) {
      parts.append(
          cat({parts.empty() ? "" : ", ", "measuring against the reference ", fixed(s.measure_seconds, 3), " s"}));
    }
    line("bake time", cat({fixed(s.bake_seconds, 3), " s", parts.empty() ? "" : cat({" (", parts, ")"})}));
  } else if (s.file_bytes > 0) {
    line("bake time", "not stored (a .vat.glb is the same bytes on any machine: `vatkit bake` prints it)");
  }
  for (size_t n = 0; n < s.notes.size(); ++n) line(n == 0 ? "notes" : "", printable(s.notes[n]));
  return out;
}

std::string slots_text(const VatSummary& s) {
  if (s.slot_list.empty()) return "  joints      none\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"slot", "joint", "source node"});
  for (const VatSlotSummary& slot : s.slot_list) {
    rows.push_back({num(slot.index), quoted(slot.name), slot.node < 0 ? "-" : num(uint64_t(slot.node))});
  }
  return cat({"  joints      ", plural(s.slot_list.size(), "slot", "slots"),
              s.encoding == Encoding::Rig ? " (the rig's joints and rigid parts)" : " (joints baked for sockets)", "\n",
              table(rows, "rlr", "    ")});
}

namespace {

nlohmann::ordered_json finite_number(float v) {
  return std::isfinite(v) ? nlohmann::ordered_json(glb::json_number(v)) : nlohmann::ordered_json();
}

nlohmann::ordered_json bounds_json(const Bounds& b) {
  return {{"min", glb::json_array(b.min)}, {"max", glb::json_array(b.max)}};
}

nlohmann::ordered_json events_json(const std::vector<ClipEvent>& events) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ClipEvent& e : events) out.push_back({{"name", e.name}, {"time_s", glb::json_number(e.time_s)}});
  return out;
}

// A clip's root motion as JSON: its source, joint, and the motion of one cycle; null without.
nlohmann::ordered_json root_motion_json(const std::optional<RootMotion>& m) {
  if (!m) return nullptr;
  const std::array<float, 4> cycle = cycle_of(*m);
  return {{"source", m->source == RootMotionSource::Feet ? "feet" : "joint"},
          {"joint", m->joint},
          {"vertical", m->vertical},
          {"cycle",
           {glb::json_number(cycle[0]), glb::json_number(cycle[1]), glb::json_number(cycle[2]),
            glb::json_number(cycle[3])}}};
}

// The clip table as JSON (summary_json(VatSummary)): a clip's "error" is null when not measured,
// its "seam" when not known.
nlohmann::ordered_json clips_json(const std::vector<VatClipSummary>& clip_list) {
  using json = nlohmann::ordered_json;
  json clips = json::array();
  for (const VatClipSummary& c : clip_list) {
    json error = nullptr;
    if (c.measured) {
      error = {{"clip", c.error.clip},
               {"rows", c.error.rows},
               {"fps", finite_number(c.error.fps)},
               {"on_rows_max_mm", finite_number(c.error.on_rows_max_mm)},
               {"on_rows_p99_mm", finite_number(c.error.on_rows_p99_mm)},
               {"between_rows_max_mm", finite_number(c.error.between_rows_max_mm)},
               {"between_rows_p99_mm", finite_number(c.error.between_rows_p99_mm)},
               {"normal_max_deg", finite_number(c.error.normal_max_deg)}};
    }
    clips.push_back({{"index", c.index},
                     {"name", c.name},
                     {"source_animation", c.source_animation},
                     {"first_row", c.first_row},
                     {"rows", c.rows},
                     {"fps", glb::json_number(c.fps)},
                     {"duration_s", glb::json_number(c.duration_s)},
                     {"defaults",
                      {{"loop_mode", to_string(c.defaults.loop_mode)},
                       {"repetitions", c.defaults.repetitions},
                       {"end_mode", to_string(c.defaults.end_mode)},
                       {"speed", glb::json_number(c.defaults.speed)}}},
                     {"max_delta", glb::json_number(c.max_delta)},
                     {"seam", c.seam >= 0 ? json(glb::json_number(c.seam)) : json()},
                     {"events", events_json(c.events)},
                     {"root_motion", root_motion_json(c.root_motion)},
                     {"bounds", bounds_json(c.bounds)},
                     {"measured", c.measured},
                     {"error", std::move(error)}});
  }
  return clips;
}

}  // namespace

std::string summary_json(const VatSummary& s) {
  using json = nlohmann::ordered_json;  // fields in the order of VatSummary
  json out = {{"source", s.source},
              {"encoding", to_string(s.encoding)},
              {"precision", to_string(s.precision)},
              {"vertices", s.vertices},
              {"triangles", s.triangles},
              {"draw_groups", s.draw_groups},
              {"source_primitives", s.source_primitives},
              {"slots", s.slots},
              {"influences", s.influences},
              {"frame_rows", s.frame_rows},
              {"bounds", bounds_json(s.bounds)}};
  out["clips"] = clips_json(s.clips);
  json planes = json::array();
  for (const VatPlaneSummary& p : s.planes) {
    planes.push_back({{"semantic", to_string(p.semantic)},
                      {"format", to_string(p.format)},
                      {"texels_per_frame", p.texels_per_frame},
                      {"width", p.width},
                      {"height", p.height},
                      {"rows_per_frame", p.rows_per_frame},
                      {"bytes", p.bytes}});
  }
  out["planes"] = std::move(planes);
  json slot_list = json::array();
  for (const VatSlotSummary& slot : s.slot_list) {
    slot_list.push_back({{"index", slot.index}, {"name", slot.name}, {"node", slot.node}});
  }
  out["slot_list"] = std::move(slot_list);
  json lods = json::array();
  for (const VatLodSummary& lod : s.lods) {
    lods.push_back({{"triangles", lod.triangles},
                    {"error", glb::json_number(lod.error)},
                    {"error_in_motion", glb::json_number(lod.error_in_motion)},
                    {"screen_size", glb::json_number(lod.screen_size)}});
  }
  out["lods"] = std::move(lods);
  out["plane_bytes"] = s.plane_bytes;
  out["file_bytes"] = s.file_bytes;
  out["materials"] = s.materials;
  out["images"] = s.images;
  out["baked"] = s.baked;
  out["encoding_reason"] = s.encoding_reason;
  out["notes"] = s.notes;
  out["size"] = glb::json_number(s.size);
  out["metres_per_unit"] = glb::json_number(s.metres_per_unit);
  out["bake_seconds"] = s.bake_seconds;
  out["measure_seconds"] = s.measure_seconds;
  out["lod_seconds"] = s.lod_seconds;
  return out.dump(2, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace) + "\n";
}

}  // namespace vatkit

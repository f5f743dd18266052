// vatkit pose [FILE] [--clip NAME|#INDEX] [--time SECONDS] [-o OUT.json]: world-space positions
// of every vertex, posed by the reference skinner (vatkit::SceneEvaluator), or decoded from the
// planes of a .vat.glb (vatkit::decode_vertices) into the same JSON.
#include <cmath>
#include <memory>
#include <vector>

#include "cli.h"
#include "vatkit/decode.h"
#include "vatkit/scene.h"
#include "summary.h"
#include "vatkit/vat_file.h"

namespace vatkit::cli {

namespace {
struct PoseOptions {
  std::string file;
  std::string clip;
  double time_s = 0.0;
  std::string output;
  std::vector<std::string> allow_roots;
  CLI::Option* clip_option = nullptr;
};

// A .vat.glb: the rest geometry, or the clip's rows at the time decoded as the GPU would; one
// entry per source primitive instance (Vat::geometry.sources), its file's vertices.
Result<void> run_pose_vat(const PoseOptions& options) {
  Result<Vat> loaded = load_vat(options.file);
  if (!loaded) return loaded.error();
  const Vat& vat = *loaded;

  int clip = -1;
  if (options.clip_option->count() > 0) {
    Result<int> found = find_clip(vat, options.clip);
    if (!found) return found.error();
    clip = *found;
  }
  const auto time_s = static_cast<float>(options.time_s);
  if (!std::isfinite(options.time_s) || !std::isfinite(time_s)) {
    return make_error(ErrorCode::Argument, options.file, "--time must be a finite number of seconds");
  }

  std::vector<glm::vec3> positions = vat.geometry.positions;
  if (clip >= 0) {
    decode_vertices(vat, single(clip_rows_at(vat, static_cast<uint32_t>(clip), time_s)), 0, positions);
  }
  std::vector<PosedPrimitive> primitives;
  primitives.reserve(vat.geometry.sources.size());
  for (const SourceRange& source : vat.geometry.sources) {
    primitives.push_back(
        {source.node, source.mesh, source.primitive,
         std::span<const glm::vec3>(positions).subspan(source.first_vertex, source.source_vertex_count)});
  }
  std::optional<std::string> label;
  if (clip >= 0) label = clip_label(vat, clip);
  Result<std::string> json = pose_json(options.file, label, time_s, primitives);
  if (!json) return json.error();
  return write_output(options.output, *json);
}

Result<void> run_pose(const PoseOptions& options) {
  if (!options.file.empty()) {
    Result<bool> is_vat = is_vat_input(options.file);
    if (!is_vat) return is_vat.error();
    if (*is_vat) return run_pose_vat(options);
  }
  Result<Asset> loaded = load_input(options.file, options.allow_roots);
  if (!loaded) return loaded.error();
  const Asset& asset = *loaded;

  int clip = -1;
  if (options.clip_option->count() > 0) {
    Result<int> found = find_clip(asset, options.clip);
    if (!found) return found.error();
    clip = *found;
  }
  const auto time_s = static_cast<float>(options.time_s);
  if (!std::isfinite(options.time_s) || !std::isfinite(time_s)) {
    return make_error(ErrorCode::Argument, asset.source, "--time must be a finite number of seconds");
  }

  SceneEvaluator evaluator(asset);
  evaluator.pose(clip, time_s);
  std::vector<glm::vec3> positions(asset.instance_vertex_count);
  evaluator.skin(positions);

  std::vector<PosedPrimitive> primitives;
  primitives.reserve(asset.instances.size());
  for (const MeshInstance& instance : asset.instances) {
    const Primitive& primitive = asset.meshes[instance.mesh].primitives[instance.primitive];
    primitives.push_back(
        {instance.node, instance.mesh, instance.primitive,
         std::span<const glm::vec3>(positions).subspan(instance.first_vertex, primitive.source_vertex_count)});
  }
  std::optional<std::string> label;
  if (clip >= 0) label = clip_label(asset, clip);
  Result<std::string> json = pose_json(asset.source, label, time_s, primitives);
  if (!json) return json.error();
  return write_output(options.output, *json);
}
}  // namespace

Command add_pose_command(CLI::App& parent) {
  auto options = std::make_shared<PoseOptions>();
  CLI::App* app =
      parent.add_subcommand("pose", "Print the world-space position of every vertex at a clip and time, as JSON");
  app->add_option("file", options->file,
                  "Input glTF 2.0 file (.gltf or .glb) or a baked .vat.glb; the built-in sample "
                  "character when left out")
      ->option_text("FILE");
  options->clip_option = app->add_option("-c,--clip", options->clip,
                                         "Clip to play: its name, or #INDEX (0-based; quote it in a shell: '#0')")
                             ->option_text("NAME|#INDEX");
  app->add_option("-t,--time", options->time_s,
                  "Time on the clip's glTF timeline, in seconds (default 0); before the first key "
                  "and after the last the end keys hold")
      ->option_text("SECONDS");
  app->add_option("-o,--output", options->output, "Write the JSON to this file (atomically) instead of stdout")
      ->check(output_name())
      ->option_text("OUT.json");
  add_allow_root_option(app, options->allow_roots);
  app->footer(
      "Output:\n"
      "  {\"clip\": NAME, \"time\": T, \"primitives\": [{\"node\": N, \"mesh\": M, \"primitive\": P,\n"
      "   \"positions\": [x, y, z, ...]}, ...]}\n"
      "One entry per drawn primitive instance of the default scene (depth-first over the scene's\n"
      "roots, children in file order; per node, primitives in mesh order), each listing the file's\n"
      "vertices in file order, posed by the reference skinner (morph targets, skins, node\n"
      "animation). Without --clip: the rest pose, and \"clip\" is null. A clip the file left unnamed\n"
      "is called \"#INDEX\". Numbers read back as exactly the floats vatkit computed.\n\n"
      "A .vat.glb is decoded from its planes, as the GPU decodes it, into the same JSON: one\n"
      "entry per source primitive instance it was baked from, with the source file's vertices,\n"
      "so the two outputs compare vertex by vertex. --clip picks among the VAT's clips (#INDEX\n"
      "counts them); --time means the same on both (a clip covers 0 to its last key time).\n\n"
      "Examples:\n  vatkit pose --clip walk --time 0.25\n"
      "  vatkit pose SimpleSkin.gltf --clip '#0' --time 1 -o pose.json\n"
      "  vatkit pose sample.vat.glb --clip walk --time 0.25");
  return {app, [options]() { return run_pose(*options); }};
}

}  // namespace vatkit::cli

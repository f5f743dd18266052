// vatkit export --to babylon: see export_targets.h. Writes two files: OUT, the JSON of Babylon.js's
// VertexAnimationBaker.serializeBakedVertexDataToJSON (vatkit::export_babylon), and beside it the
// clip manifest (OUT with ".json" replaced by ".manifest.json"). docs/babylon.md says how to play them.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bake_options.h"
#include "export_targets.h"
#include "util/printable.h"
#include "vatkit/export_babylon.h"

namespace vatkit::cli {

namespace {

// FILE's stem + ".babylon.json" beside FILE; sample.babylon.json for the sample.
std::string default_output(const std::string& file) {
  if (file.empty()) return "sample.babylon.json";
  const std::filesystem::path path(file);
  return (path.parent_path() / (path.stem().string() + ".babylon.json")).string();
}

// The largest texture side most WebGL2 devices offer (WebGL2 itself promises only 2048).
constexpr uint32_t kCommonMaxTextureSize = 16384;

std::string manifest_path(const std::string& output) {
  const std::string json = ".json";
  if (output.size() > json.size() && output.compare(output.size() - json.size(), json.size(), json) == 0) {
    return output.substr(0, output.size() - json.size()) + ".manifest.json";
  }
  return output + ".manifest.json";
}

}  // namespace

Result<void> export_babylon(const ExportOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (Result<void> source = check_source_file(options.file); !source) return source;
  const std::string output = options.output.empty() ? default_output(options.file) : options.output;
  const std::string manifest_output = manifest_path(output);
  Result<Asset> asset = load_input(options.file, options.allow_roots);
  if (!asset) return asset.error();

  BabylonExportOptions export_options;
  if (options.fps > 0.0) export_options.fps = options.fps;
  Result<BabylonVat> vat = export_babylon(*asset, export_options);
  if (!vat) return vat.error();

  // Written now, committed only after the report reached stdout: a failed command leaves no file.
  const std::string texts[2] = {babylon_vertex_data_json(*vat),
                                babylon_manifest_json(*asset, *vat, std::filesystem::path(output).filename().string())};
  const std::string paths[2] = {output, manifest_output};
  std::vector<OutputFile> files;
  for (int i = 0; i < 2; ++i) {
    Result<OutputFile> file = OutputFile::create(paths[i]);
    if (!file) return file.error();
    files.push_back(std::move(*file));
    if (Result<void> written = files.back().write(texts[i]); !written) return written;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  auto quoted = [](const std::string& name) { return name.empty() ? std::string() : " \"" + printable(name) + "\""; };
  std::string report = printable(asset->source) + " -> " + printable(output) + ", " + printable(manifest_output) + "\n";
  report += "skin " + std::to_string(vat->skin) + quoted(asset->skins[vat->skin].name) +
            ", of the first skinned mesh (node " + std::to_string(vat->mesh_node) +
            quoted(asset->nodes[vat->mesh_node].name) + ")";
  if (asset->skins.size() > 1) {
    report += "; the file has " + std::to_string(asset->skins.size()) + " skins, the others are not exported";
  }
  char line[256];
  std::snprintf(line, sizeof(line), "\n%u bones (%u joints), %zu clips, %u frames at %g fps: texture %u x %u texels\n",
                vat->bones, vat->joints, vat->clips.size(), vat->rows, vat->fps, vat->width(), vat->rows);
  report += line;
  std::snprintf(line, sizeof(line), "%llu + %llu bytes in %.1f ms\n", static_cast<unsigned long long>(files[0].size()),
                static_cast<unsigned long long>(files[1].size()), ms);
  report += line;
  if (vat->rows > kCommonMaxTextureSize) {
    report += "note: " + std::to_string(vat->rows) + " rows exceed " + std::to_string(kCommonMaxTextureSize) +
              ", the texture height most GPUs allow: lower --fps\n";
  }
  std::fputs(report.c_str(), stdout);
  return flush_stdout_then_commit(files);
}

}  // namespace vatkit::cli

// vatkit export --to openvat: see export_targets.h, and docs/openvat.md for the files and every
// choice made writing them (vatkit::export_openvat, vatkit/export_openvat.h).
//
// OUT is a base path: the command writes OUT_vat.png (the packed texture; OUT_vat.exr with
// --image exr16), OUT.glb (the mesh)
// and OUT-remap_info.json (the sidecar), OpenVAT's own file names for an object called OUT.
// The input is a .vat.glb of either encoding (its rows are decoded as the GPU would), or a glTF
// file (or the built-in sample) baked now to delta at f32 (the most exact rows to quantize),
// at --fps rows a second (the bake's default without it), with no levels of detail.
#include <cstdio>
#include <filesystem>
#include <string>

#include "export_targets.h"
#include "util/printable.h"
#include "vatkit/bake.h"
#include "vatkit/export_openvat.h"
#include "vatkit/vat_file.h"

namespace vatkit::cli {

namespace {

// FILE's stem (less a ".vat" before ".glb") + "_openvat" beside FILE (never FILE itself, which
// OUT.glb would be for a .glb input named OUT); "sample_openvat" in the current directory.
std::string default_openvat_base(const std::string& file) {
  if (file.empty()) return "sample_openvat";
  const std::filesystem::path path(file);
  std::string stem = path.stem().string();
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".vat") == 0) stem.resize(stem.size() - 4);
  return (path.parent_path() / (stem + "_openvat")).string();
}

Result<Vat> read_openvat_input(const ExportOptions& options) {
  if (!options.file.empty()) {
    Result<bool> is_vat = is_vat_input(options.file);
    if (!is_vat) return is_vat.error();
    if (*is_vat) {
      if (options.fps > 0.0) {
        return make_error(ErrorCode::Argument, options.file,
                          "--fps applies to a glTF input; a .vat.glb's rows are exported as baked");
      }
      return load_vat(options.file);
    }
  }
  Result<Asset> asset = load_input(options.file, options.allow_roots);
  if (!asset) return asset.error();
  BakeOptions bake_options;
  bake_options.encoding = EncodingChoice::Delta;
  bake_options.precision = Precision::F32;
  bake_options.lods = 0;  // OpenVAT's mesh has one level
  bake_options.measure = false;
  if (options.fps > 0.0) bake_options.fps = static_cast<float>(options.fps);
  return bake(*asset, bake_options);
}

}  // namespace

Result<void> export_openvat(const ExportOptions& options) {
  const std::string base = options.output.empty() ? default_openvat_base(options.file) : options.output;
  const std::string name = std::filesystem::path(base).filename().string();
  if (name.empty()) {
    return make_error(ErrorCode::Argument, base, "-o names a base path (OUT gives OUT.glb, OUT_vat.png, ...)");
  }
  Result<Vat> vat = read_openvat_input(options);
  if (!vat) return vat.error();
  OpenVatOptions export_options;
  const bool exr = options.image == "exr16";
  if (exr) export_options.image = OpenVatImage::Exr16;
  const std::string texture_suffix = exr ? "_vat.exr" : "_vat.png";
  export_options.texture_name = name + texture_suffix;
  export_options.mesh_name = name + ".glb";
  Result<OpenVatExport> out = export_openvat(*vat, export_options);
  if (!out) return out.error();

  const std::string paths[3] = {base + texture_suffix, base + ".glb", base + "-remap_info.json"};
  if (!options.file.empty()) {
    std::error_code error;
    for (const std::string& path : paths) {
      if (std::filesystem::equivalent(path, options.file, error)) {
        return make_error(ErrorCode::Argument, options.file,
                          "-o " + base + " would write " + path + " over the input; choose another base path");
      }
    }
  }
  const std::span<const uint8_t> bytes[3] = {
      out->texture,
      out->mesh_glb,
      {reinterpret_cast<const uint8_t*>(out->sidecar_json.data()), out->sidecar_json.size()}};
  // Written now, committed only once the report reached stdout: a failed command leaves no file.
  std::vector<OutputFile> files;
  for (int i = 0; i < 3; ++i) {
    Result<OutputFile> file = OutputFile::create(paths[i]);
    if (!file) return file.error();
    files.push_back(std::move(*file));
    if (Result<void> written = files.back().write(bytes[i]); !written) return written;
  }
  const OpenVatLayout& L = out->layout;
  char line[512];
  std::string report = printable(vat->source.empty() ? "<sample>" : vat->source) + " -> " + printable(paths[0]) + ", " +
                       printable(paths[1]) + ", " + printable(paths[2]) + "\n";
  std::snprintf(line, sizeof(line),
                "%u vertices, %u frames, %zu clips: texture %u x %u %s (positions and packed normals, %u "
                "wrap(s) a frame)\n",
                vat->geometry.vertex_count(), L.frames, vat->clips.size(), L.width, L.height,
                exr ? "RGB half float" : "RGB16", L.wraps);
  report += line;
  std::snprintf(line, sizeof(line),
                "remap Min (%g, %g, %g) Max (%g, %g, %g) (Blender axes); quantization moved a vertex by at most "
                "%.6f mm, a normal by at most %.3f degrees\n",
                out->remap_min.x, out->remap_min.y, out->remap_min.z, out->remap_max.x, out->remap_max.y,
                out->remap_max.z, out->position_error * mm_per_unit(*vat), out->normal_error_deg);
  report += line;
  if (!vat->geometry.lods.empty()) report += "note: the levels of detail are not exported (OpenVAT has none)\n";
  std::fputs(report.c_str(), stdout);
  return flush_stdout_then_commit(files);
}

}  // namespace vatkit::cli

// vatkit export --to three-vat: see export_targets.h, and docs/three-vat.md for the file and every
// choice made writing it (vatkit::write_three_vat, vatkit/export_three_vat.h).
//
// The input is a .vat.glb, written as it is, or a glTF file (or the built-in sample) baked now
// with the default bake options but no levels of detail, which three-vat's file cannot hold; the
// source's node hierarchy then gives the rig texture's hierarchy row. The report states the
// error: what the bake measured against the source, plus what the conversion changed.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "export_targets.h"
#include "vatkit/bake.h"
#include "vatkit/export_three_vat.h"
#include "vatkit/vat_file.h"

namespace vatkit::cli {

namespace {

// Beside FILE: its stem (less a ".vat" before ".glb") + ".three-vat.glb"; for the sample,
// sample.three-vat.glb in the current directory.
std::string default_output(const std::string& file) {
  if (file.empty()) return "sample.three-vat.glb";
  const std::filesystem::path path(file);
  std::string stem = path.stem().string();
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".vat") == 0) stem.resize(stem.size() - 4);
  return (path.parent_path() / (stem + ".three-vat.glb")).string();
}

std::string fixed(double v, const char* format = "%.3f") {
  char text[64];  // any finite float in %.3f
  std::snprintf(text, sizeof(text), format, v);
  return text;
}

// What the band's layout costs, in words (ThreeVatBand).
// `mm`: millimetres per file unit (mm_per_unit).
std::string band_text(const VatClip& source, const ThreeVatClipReport& clip, double mm) {
  switch (clip.band) {
    case ThreeVatBand::Repeat: {
      std::string text = "repeat: end row left out; loop seam " + fixed(clip.loop_seam * mm) + " mm";
      if (source.defaults.repetitions > 1) text += ", held end pose off by " + fixed(clip.end_step * mm) + " mm";
      return text;
    }
    case ThreeVatBand::Once:
      return "once: every row; the end pose held from " + fixed(source.duration_s + 1.0 / clip.fps) + " s";
    case ThreeVatBand::PingPong: return "ping-pong: every row";
  }
  return "";
}

struct Input {
  Vat vat;
  ThreeVatOptions options;
  std::string from;  // one line: where the Vat came from
};

Result<Input> read_input(const ExportOptions& options) {
  if (!options.file.empty()) {
    Result<bool> is_vat = is_vat_input(options.file);
    if (!is_vat) return is_vat.error();
    if (*is_vat) {
      Result<Vat> vat = load_vat(options.file);
      if (!vat) return vat.error();
      const std::string from = std::string("a .vat.glb, ") + to_string(vat->encoding) + " " + to_string(vat->precision);
      return Input{std::move(*vat), {}, from};
    }
  }
  Result<Asset> asset = load_input(options.file, options.allow_roots);
  if (!asset) return asset.error();
  BakeOptions bake_options;
  bake_options.lods = 0;  // three-vat's file holds no levels of detail
  BakeReport report;
  Result<Vat> vat = bake(*asset, bake_options, &report);
  if (!vat) return vat.error();
  Input input{
      std::move(*vat), {}, "baked now: " + std::string(to_string(report.encoding)) + ", " + report.encoding_reason};
  for (const Node& node : asset->nodes) input.options.node_parents.push_back(node.parent);
  return input;
}

// The report: what was written, how, and how far from the source it decodes.
std::string report_text(const std::string& output, uint64_t bytes, const Input& input, const ThreeVatReport& r) {
  const Vat& vat = input.vat;
  std::string text = "three-vat file " + output + " (THREEVAT_vat format version 3), " + std::to_string(bytes) +
                     " bytes\n  from: " + (vat.source.empty() ? "<sample>" : vat.source) + " (" + input.from + ")\n";
  if (r.encoding == Encoding::Delta) {
    text += "  encoding: delta, " + std::to_string(r.vertex_count) + " vertices; position layer " +
            std::to_string(r.width) + " x " + std::to_string(r.height) + " RGBA16F (" +
            std::to_string(r.rows_per_frame) + " texture row(s) a frame)" +
            (r.normals ? ", normal layer RG8" : ", no normal layer") + "\n";
  } else {
    text += "  encoding: rig, " + std::to_string(r.slot_count) + " slots, " + std::to_string(r.vertex_count) +
            " vertices; rig texture " + std::to_string(r.width) + " x " + std::to_string(r.height) +
            " RGBA32F; slot parents " + (r.hierarchy ? "from the source's node hierarchy" : "unknown (-1)") + "\n";
  }
  // A vertex moves by at most sqrt(3) times the largest component change.
  const double mm = mm_per_unit(vat);
  const float conversion_mm = float(std::sqrt(3.0) * r.position_rounding * mm);
  float on_rows_mm = 0.0f, between_mm = 0.0f;
  bool measured = true;
  for (size_t c = 0; c < r.clips.size(); ++c) {
    const ThreeVatClipReport& clip = r.clips[c];
    text += "  clip \"" + clip_label(vat, int(c)) + "\": " + std::to_string(clip.rows) + " rows -> " +
            std::to_string(clip.frames) + " frames at " + fixed(clip.fps) + " fps";
    text += " (" + band_text(vat.clips[c], clip, mm) + ")";
    if (const auto& a = vat.clips[c].accuracy) {
      const float on_rows = a->on_rows_max_mm + conversion_mm;
      const float between = std::fmax(a->on_rows_max_mm, a->between_rows_max_mm) + conversion_mm;
      text += "; error " + fixed(on_rows, "%.6f") + " mm on the rows, " + fixed(between, "%.6f") + " mm between";
      on_rows_mm = std::fmax(on_rows_mm, on_rows);
      between_mm = std::fmax(between_mm, between);
    } else {
      measured = false;
    }
    text += "\n";
  }
  text += "  conversion: position components changed by at most " + fixed(r.position_rounding * mm, "%.6f") + " mm";
  if (r.normals) text += ", normals by at most " + fixed(r.normal_degrees) + " degrees";
  text += "\n";
  if (measured) {
    text += "  error against the source: at most " + fixed(on_rows_mm, "%.6f") + " mm on the rows, " +
            fixed(between_mm, "%.6f") +
            " mm between them (per clip above: the bake's measure plus the conversion; a repeating clip's last "
            "interval adds its loop seam)\n";
  } else {
    text += "  error against the source: not measured (the input carries no measurement)\n";
  }
  for (const std::string& note : r.notes) text += "  note: " + note + "\n";
  return text;
}

}  // namespace

Result<void> export_three_vat(const ExportOptions& options) {
  const std::string output = options.output.empty() ? default_output(options.file) : options.output;
  if (Result<void> named = check_binary_gltf_name(output); !named) return named;
  Result<Input> input = read_input(options);
  if (!input) return input.error();
  ThreeVatReport report;
  Result<std::vector<uint8_t>> bytes = write_three_vat(input->vat, input->options, &report);
  if (!bytes) return bytes.error();
  // Written now, committed only once the report reached stdout: a failed command leaves no file.
  Result<OutputFile> file = OutputFile::create(output);
  if (!file) return file.error();
  if (Result<void> written = file->write(*bytes); !written) return written;
  if (Result<void> printed = write_output("", report_text(output, bytes->size(), *input, report)); !printed) {
    return printed;
  }
  return flush_stdout_then_commit(std::span<OutputFile>(&*file, 1));
}

}  // namespace vatkit::cli

// vatkit bake [FILE] [-o OUT.vat.glb] [bake options] [--json]: bakes a glTF file (or the built-in
// sample) into a .vat.glb (vatkit::bake, vatkit::save_vat) and prints the summary table.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "bake_options.h"
#include "cli.h"
#include "summary.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit::cli {

namespace {
struct BakeCommandOptions {
  std::string file;
  std::string output;
  std::vector<std::string> allow_roots;
  std::string depfile;
  bool json = false;
  BakeCliOptions bake;
};

// FILE's stem + ".vat.glb" in the current directory; sample.vat.glb for the sample.
std::string default_output(const std::string& file) {
  if (file.empty()) return "sample.vat.glb";
  return std::filesystem::path(file).stem().string() + ".vat.glb";
}

// A file name in a Makefile rule, as Ninja and Make read it: spaces and '#' escaped with a
// backslash, '$' doubled.
std::string make_escaped(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

// The dependency file of --depfile: one rule, `output: source external-files...`.
Result<void> write_depfile(const std::string& depfile, const std::string& output, const std::string& source,
                           const std::vector<std::filesystem::path>& files_read) {
  std::string text = make_escaped(output) + ":";
  if (!source.empty()) text += " " + make_escaped(source);
  for (const std::filesystem::path& file : files_read) text += " \\\n  " + make_escaped(file.string());
  text += "\n";
  return write_output(depfile, text);
}

// A fixed frame rate's cost, said where it shows: the clip whose decode strays furthest from the
// source between the rows, when that is over `budget_mm`, and the option that picks each clip's
// rate for a budget instead. Nothing when no clip was measured or all are within it.
std::optional<std::string> between_rows_note(const Vat& vat, const VatSummary& summary, float budget_mm) {
  const VatClipSummary* worst = nullptr;
  for (const VatClipSummary& c : summary.clips) {
    if (c.measured && (!worst || c.error.between_rows_max_mm > worst->error.between_rows_max_mm)) worst = &c;
  }
  if (!worst || !(worst->error.between_rows_max_mm > budget_mm)) return std::nullopt;
  auto number = [](const char* format, double v) {
    char text[64];  // any float in %.3f
    std::snprintf(text, sizeof(text), format, v);
    return std::string(text);
  };
  // The clip's name as it is (no fixed buffer to cut it short), the numbers formatted.
  return "clip \"" + clip_label(vat, int(worst->index)) + "\" (" + number("%.3f", double(worst->fps)) +
         " fps) strays up to " + number("%.3g", double(worst->error.between_rows_max_mm)) +
         " mm from the source between its rows: --max-error MM gives each clip the lowest rate that keeps it "
         "within MM";
}

Result<void> run_bake(const BakeCommandOptions& options) {
  Result<BakeOptions> bake_options = make_bake_options(options.bake);
  if (!bake_options) return bake_options.error();
  if (Result<void> source = check_source_file(options.file); !source) return source;
  const std::string output = options.output.empty() ? default_output(options.file) : options.output;
  if (auto named = check_binary_gltf_name(output); !named) return named;
  std::vector<std::filesystem::path> files_read;
  Result<Asset> asset = load_input(options.file, options.allow_roots, &files_read);
  if (!asset) return asset.error();
  if (Result<void> r = resolve_clip_defaults(*bake_options, *asset); !r) return r;

  ProgressBar progress;
  bake_options->progress = progress.callback();
  BakeReport report;
  Result<Vat> vat = bake(*asset, *bake_options, &report);
  progress.finish();
  if (!vat) return vat.error();
  // Written now, committed only after the summary reached stdout: a failed command leaves no file.
  Result<OutputFile> file = OutputFile::create(output);
  if (!file) return file.error();
  if (Result<void> written = write_vat(*vat, *file, output); !written) return written;

  VatSummary summary = summarize(*vat, report);
  summary.source = output;
  if (bake_options->max_error_mm <= 0.0f) {
    if (auto note = between_rows_note(*vat, summary, bake_options->auto_budget_mm)) summary.notes.push_back(*note);
  }
  summary.file_bytes = file->size();
  const std::string text = options.json ? summary_json(summary) : summary_text(summary);
  if (Result<void> printed = write_output("", text); !printed) return printed;
  if (!options.depfile.empty()) {
    if (Result<void> r = write_depfile(options.depfile, output, options.file, files_read); !r) return r;
  }
  return file->commit();
}
}  // namespace

Command add_bake_command(CLI::App& parent) {
  auto options = std::make_shared<BakeCommandOptions>();
  CLI::App* app =
      parent.add_subcommand("bake", "Bake a glTF file's animation into vertex animation textures (a .vat.glb)");
  app->add_option("file", options->file, kFileHelp)->option_text("FILE");
  app->add_option("-o,--output", options->output,
                  "Output file, written atomically (default: FILE's name with .vat.glb, in the "
                  "current directory; sample.vat.glb for the sample)")
      ->check(output_name())
      ->option_text("OUT.vat.glb");
  add_allow_root_option(app, options->allow_roots);
  app->add_option("--depfile", options->depfile,
                  "Also write a dependency file (a Makefile rule, as compilers' -MD write): the output "
                  "depends on FILE and on every external buffer and image it read; for build systems")
      ->option_text("FILE.d");
  app->add_flag("--json", options->json,
                "Print the summary as one JSON object (vatkit::VatSummary's fields) instead of "
                "the table");
  add_bake_options(*app, options->bake, /*with_measure=*/true);
  app->footer(
      "Prints a summary: per clip its rows, exact fps, playback defaults, how far it moves, and\n"
      "its max and 99th-percentile error in mm (file units taken as metres) against the\n"
      "reference skinner, on the rows and between them; per plane its format, dimensions and\n"
      "bytes; the total bytes; the bake time; the encoding chosen and why. A progress bar is\n"
      "drawn on stderr when it is a terminal. On any error nothing is written.\n\n"
      "Examples:\n  vatkit bake\n  vatkit bake Fox.glb --encoding delta --precision q16\n"
      "  vatkit bake CesiumMan.glb --max-error 0.5 -o man.vat.glb\n"
      "  vatkit bake robot.glb --clips Walking,Running --clip-defaults Death=once,clamp");
  return {app, [options]() { return run_bake(*options); }};
}

}  // namespace vatkit::cli

// vatkit verify [FILE] [VAT] [--tolerance MM] [bake options] [--json]: measures a VAT (baked
// here from FILE, or loaded from VAT) against the reference skinner posing FILE
// (vatkit::measure_error), prints the summary table with the errors, and exits with
// kExitOverTolerance when a clip's error exceeds the tolerance.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

#include <nlohmann/json.hpp>

#include "bake_options.h"
#include "cli.h"
#include "summary.h"
#include "vatkit/vat_file.h"

namespace vatkit::cli {

namespace {
struct VerifyCommandOptions {
  std::string file;
  std::vector<std::string> allow_roots;
  std::string vat_file;
  double tolerance_mm = 0.0;
  CLI::Option* tolerance_option = nullptr;
  uint32_t between_samples = 3;
  bool json = false;
  BakeCliOptions bake;
};

std::string mm_text(double mm) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", mm);
  return text;
}

// The tolerance: --tolerance, else --max-error (what the bake promised), else none (< 0).
double tolerance_of(const VerifyCommandOptions& o) {
  if (o.tolerance_option->count() > 0) return o.tolerance_mm;
  if (o.bake.max_error_option->count() > 0) return o.bake.max_error_mm;
  return -1.0;
}

// With VAT given nothing is baked: a bake option (other than --max-error, the tolerance's
// fallback, and --threads, which the measurement uses) would be ignored, so it is refused.
Result<void> check_no_bake_options(const CLI::App& app, const std::string& vat_file) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group() != "Bake" || opt->count() == 0) continue;
    const std::string name = opt->get_name();
    // --merge-clips says how to read FILE (the merged animation is the reference), not how to bake.
    if (name == "--max-error" || name == "--threads" || name == "--merge-clips") continue;
    return make_error(ErrorCode::Argument, "",
                      name + " is a bake option, but " + vat_file +
                          " is given: verify measures that file as it is (leave out " + name +
                          ", or leave out the VAT to bake FILE with it)");
  }
  return {};
}

// The command line's own checks: a tolerance and a sample count that make sense, and a source
// glTF (not a .vat.glb) as the first file.
Result<void> check_verify_arguments(const VerifyCommandOptions& options) {
  if (options.tolerance_option->count() > 0 && !(std::isfinite(options.tolerance_mm) && options.tolerance_mm >= 0.0)) {
    return make_error(ErrorCode::Argument, "",
                      "--tolerance " + mm_text(options.tolerance_mm) + ": not a number of millimetres >= 0");
  }
  if (options.between_samples > 1000) {
    return make_error(ErrorCode::Argument, "",
                      "--between-samples " + std::to_string(options.between_samples) + ": at most 1000");
  }
  Result<bool> is_vat = options.file.empty() ? Result<bool>(false) : is_vat_input(options.file);
  if (!is_vat) return is_vat.error();
  if (*is_vat) {
    return make_error(ErrorCode::Argument, options.file,
                      "is a .vat.glb (a baked VAT), not a source glTF file: give the source "
                      "first, 'vatkit verify SOURCE " +
                          options.file + "' ('' for the built-in sample)");
  }
  return {};
}

// The verdict over the clips' errors: the worst clip over the tolerance, on the rows or between
// them. A clip whose error is not a finite number (a decoded vertex at infinity or NaN) fails with
// or without a tolerance: the VAT does not decode to a pose.
struct Verdict {
  size_t over = 0, non_finite = 0, clips = 0;
  const ClipError* worst = nullptr;
  double worst_mm = -1.0, tolerance = -1.0;
  bool worst_between = false;

  Verdict(const std::vector<ClipError>& errors, double tol) : clips(errors.size()), tolerance(tol) {
    for (const ClipError& e : errors) {
      const double mm = std::max(e.on_rows_max_mm, e.between_rows_max_mm);
      if (tolerance >= 0.0 && !(mm <= tolerance)) ++over;
      if (!std::isfinite(e.on_rows_max_mm) || !std::isfinite(e.between_rows_max_mm)) ++non_finite;
      if (!(mm <= worst_mm)) {  // NaN counts as the worst
        worst_mm = mm;
        worst = &e;
        worst_between = e.between_rows_max_mm >= e.on_rows_max_mm;
      }
    }
  }
  bool passed() const { return over == 0 && non_finite == 0; }
  std::string text() const {
    std::string verdict;
    if (tolerance < 0.0) {
      verdict = "no --tolerance given: errors reported only";
    } else if (over == 0) {
      verdict = "every clip within the tolerance " + mm_text(tolerance) + " mm";
    }
    if (worst != nullptr) {
      verdict += (verdict.empty() ? "" : "; ") + std::string("worst: clip \"") + printable(worst->clip) + "\", " +
                 mm_text(worst_mm) + " mm " + (worst_between ? "between rows" : "on the rows");
    }
    return verdict;
  }
  Error failure(const std::string& where) const {
    if (non_finite > 0) {
      return make_error(ErrorCode::Limit, where,
                        "clip \"" + printable(worst->clip) + "\": max error " + mm_text(worst_mm) + " mm " +
                            (worst_between ? "between rows" : "on the rows") +
                            " is not a finite number (decoded vertices infinite, NaN or beyond float range; " +
                            std::to_string(non_finite) + " of " + std::to_string(clips) + " clips)");
    }
    return make_error(ErrorCode::Limit, where,
                      "clip \"" + printable(worst->clip) + "\": max error " + mm_text(worst_mm) + " mm " +
                          (worst_between ? "between rows" : "on the rows") + " exceeds the tolerance " +
                          mm_text(tolerance) + " mm by " + mm_text(worst_mm - tolerance) + " mm (" +
                          std::to_string(over) + " of " + std::to_string(clips) + " clips over)");
  }
};

Result<void> run_verify(const VerifyCommandOptions& options, const CLI::App& app, int& failure_exit) {
  failure_exit = kExitError;
  if (!options.vat_file.empty()) {
    if (auto r = check_no_bake_options(app, options.vat_file); !r) return r;
  }
  Result<BakeOptions> bake_options = make_bake_options(options.bake);
  if (!bake_options) return bake_options.error();
  if (Result<void> r = check_verify_arguments(options); !r) return r;
  const double tolerance = tolerance_of(options);
  Result<Asset> asset = load_input(options.file, options.allow_roots);
  if (!asset) return asset.error();
  // The reference for a bake of merged pieces is the merged animation (bake() merges its own copy).
  if (bake_options->merge_clip_pieces) merge_clip_pieces(*asset, find_clip_pieces(*asset));
  if (Result<void> r = resolve_clip_defaults(*bake_options, *asset); !r) return r;

  ProgressBar progress;
  BakeReport report;
  std::optional<Vat> vat;
  if (!options.vat_file.empty()) {
    Result<Vat> loaded = load_vat(options.vat_file);
    if (!loaded) return loaded.error();
    vat = std::move(*loaded);
  } else {
    bake_options->measure = false;  // measured below, with --between-samples
    bake_options->progress = progress.callback();
    Result<Vat> baked = bake(*asset, *bake_options, &report);
    if (!baked) return baked.error();
    vat = std::move(*baked);
  }
  VerifyOptions verify;
  verify.between_samples = options.between_samples;
  verify.threads = bake_options->threads;
  verify.progress = progress.callback();
  Result<std::vector<ClipError>> errors = measure_error(*asset, *vat, verify);
  progress.finish();
  if (!errors) return errors.error();

  VatSummary summary;
  if (options.vat_file.empty()) {
    report.clips = *errors;
    summary = summarize(*vat, report);
    summary.source = "bake of " + asset->source;
  } else {
    summary = summarize(*vat, *errors);
    summary.source = options.vat_file;
    std::error_code ec;
    const auto size = std::filesystem::file_size(options.vat_file, ec);
    if (!ec) summary.file_bytes = size;
  }

  const Verdict verdict(*errors, tolerance);
  std::string text;
  if (options.json) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(summary_json(summary));
    doc["tolerance_mm"] = tolerance >= 0.0 ? nlohmann::ordered_json(tolerance) : nullptr;
    doc["clips_over_tolerance"] = verdict.over;
    text = doc.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  } else {
    text = summary_text(summary);
    if (verdict.passed()) text += "  verify      " + verdict.text() + "\n";
  }
  if (Result<void> written = write_output("", text); !written) return written;
  if (verdict.passed()) return {};
  failure_exit = kExitOverTolerance;
  return verdict.failure(options.vat_file.empty() ? asset->source : options.vat_file);
}
}  // namespace

Command add_verify_command(CLI::App& parent) {
  auto options = std::make_shared<VerifyCommandOptions>();
  auto failure_exit = std::make_shared<int>(kExitError);
  CLI::App* app =
      parent.add_subcommand("verify", "Measure a VAT's error against the reference skinner; fail over a tolerance");
  app->add_option("file", options->file,
                  "Source glTF file (.gltf or .glb); the built-in sample character when left out "
                  "or ''")
      ->option_text("FILE");
  app->add_option("vat", options->vat_file,
                  "A .vat.glb baked from FILE to measure; when left out, FILE is baked with the "
                  "bake options below and the result measured (nothing is written)")
      ->option_text("VAT");
  add_allow_root_option(app, options->allow_roots);
  options->tolerance_option = app->add_option("--tolerance", options->tolerance_mm,
                                              "Largest error allowed, in mm, on the rows and between them (default: "
                                              "--max-error when given, else none: report only)")
                                  ->option_text("MM");
  app->add_option("--between-samples", options->between_samples,
                  "Sample times measured between two consecutive rows (default 3)")
      ->option_text("N");
  app->add_flag("--json", options->json,
                "Print one JSON object (vatkit::VatSummary's fields, plus tolerance_mm and "
                "clips_over_tolerance) instead of the table");
  add_bake_options(*app, options->bake, /*with_measure=*/false);
  app->footer(
      "Measures every clip of the VAT against the reference skinner posing FILE: the max and\n"
      "99th-percentile distance in mm (of the file's unit: metres, or what --units said at the\n"
      "bake) of the decoded vertices from\n"
      "the reference, at the row times and between them, and the worst normal angle.\n\n"
      "Exit status: 0 every clip within the tolerance (or no tolerance); 3 a clip over it, or a\n"
      "clip whose error is not finite (its decoded vertices are infinite or NaN), with or without\n"
      "a tolerance (one line on stderr names the worst clip and by how much); 1 bad input; 2 bad\n"
      "command line.\n\n"
      "Examples:\n  vatkit verify Fox.glb Fox.vat.glb --tolerance 50\n"
      "  vatkit verify CesiumMan.glb --precision q16 --tolerance 0.5\n"
      "  vatkit verify '' sample.vat.glb --tolerance 1");
  return {app, [options, app, failure_exit]() { return run_verify(*options, *app, *failure_exit); },
          [failure_exit]() { return *failure_exit; }};
}

}  // namespace vatkit::cli

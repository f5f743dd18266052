// The vatkit command-line tool: the bake options that `vatkit bake` and `vatkit verify` share
// (vatkit::BakeOptions on the command line), and the progress bar both draw on a terminal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "vatkit/asset.h"
#include "vatkit/bake.h"
#include "vatkit/result.h"

namespace vatkit::cli {

// The options as typed; make_bake_options checks them and builds a BakeOptions.
struct BakeCliOptions {
  std::string encoding = "auto";
  std::string precision = "f32";
  double fps = 30.0;
  double max_error_mm = 0.0;
  std::vector<std::string> clips;
  std::vector<std::string> clip_defaults;  // NAME=SPEC, one per occurrence
  std::vector<std::string> events;         // CLIP=NAME@SECONDS,..., one per occurrence
  std::string feet;                        // "", "auto" or LEFT,RIGHT
  bool no_source_events = false;
  std::vector<std::string> root_motion;  // CLIP[=ROOT], one per occurrence
  bool root_motion_vertical = false;
  bool no_normals = false;
  bool no_tangents = false;
  bool merge_clips = false;
  bool no_measure = false;
  int64_t max_texture_size = BakeOptions{}.max_texture_size;  // wide: an out-of-range value is
                                                              // named with its range
  unsigned threads = 0;
  double max_search_fps = 480.0;
  double auto_budget_mm = 1.0;
  double rig_tolerance = 1e-3;
  std::string units = "m";  // the source's unit: km, m, dm, cm, mm, in or ft
  int64_t lods = BakeOptions{}.lods;
  CLI::Option* fps_option = nullptr;
  CLI::Option* max_error_option = nullptr;
};

// Adds the bake options to `app` (in a "Bake" group). `with_measure` adds --no-measure (bake
// only: verify always measures).
void add_bake_options(CLI::App& app, BakeCliOptions& options, bool with_measure);

// The --encoding and --precision words (checked by CLI11 against auto|rig|delta and f32|f16|q16)
// as the values they name.
EncodingChoice encoding_choice(const std::string& word);
Precision precision_choice(const std::string& word);

// Checks the values (finite, in range) and builds the BakeOptions; errors name the option, e.g.
// "--fps -1: not a positive number of frames per second". Does not look at the asset.
Result<BakeOptions> make_bake_options(const BakeCliOptions& options);

// Resolves --clip-defaults names against the asset (a name, or #N), so that a name the asset
// lacks is an error rather than silently ignored.
Result<void> resolve_clip_defaults(BakeOptions& options, const Asset& asset);

// Fails when `file` is a .vat.glb (a baked VAT is not a source to bake or to measure against):
// "FILE: is a .vat.glb (a baked VAT), not a source glTF file", or when it cannot be an input at all
// (is_vat_input). An empty `file` (the sample) passes.
Result<void> check_source_file(const std::string& file);

// The bake a viewing command (render, view) makes of a glTF input: --encoding and --precision,
// as typed (checked by CLI11).
struct ViewBakeOptions {
  std::string encoding = "auto";
  std::string precision = "f32";
  bool root_motion = false;  // bake every clip's root motion (--root-motion all)
};
void add_view_bake_options(CLI::App& app, ViewBakeOptions& options);

// The VAT a viewing command shows: `file` as a .vat.glb (loaded), or a glTF file (the built-in
// sample when `file` is empty) baked here with `options` and otherwise the defaults, measure off
// (showing needs the bake, not its error report). `allow_roots` as load_input's.
Result<Vat> load_or_bake(const std::string& file, const std::vector<std::string>& allow_roots,
                         const ViewBakeOptions& options);

// A one-line progress bar on stderr, drawn only when stderr is a terminal (never in tests or CI
// logs). The line is erased by finish() or on destruction, so an error line that follows starts
// on a clean line.
class ProgressBar {
 public:
  ProgressBar();
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // A ProgressFn that draws into this bar (empty when stderr is not a terminal).
  ProgressFn callback();
  void finish();

 private:
  void draw(std::string_view stage, float fraction);
  bool enabled_ = false;
  bool drawn_ = false;
  std::string stage_;
  int percent_ = -1;
};

}  // namespace vatkit::cli

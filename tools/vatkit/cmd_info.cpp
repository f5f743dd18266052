// vatkit info [FILE] [--json]: what an asset contains (vatkit::summarize).
#include <memory>

#include "cli.h"
#include "vatkit/summary.h"

namespace vatkit::cli {

namespace {
struct InfoOptions {
  std::string file;
  bool json = false;
};
}  // namespace

Command add_info_command(CLI::App& parent) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* app = parent.add_subcommand("info", "Summarize what a glTF file contains");
  app->add_option("file", options->file, kFileHelp)->option_text("FILE");
  app->add_flag("--json", options->json,
                "Print one JSON object instead of text (counts under the names of "
                "vatkit::AssetSummary; durations in seconds)");
  app->footer(
      "Lists scenes and nodes; meshes with primitives, vertices (the file's), triangles and morph\n"
      "targets; the drawn primitive instances; skins and their joints; clips with duration,\n"
      "channels, animated paths and interpolation modes; materials, images and import warnings.\n\n"
      "Examples:\n  vatkit info Fox.glb\n  vatkit info --json Fox.glb\n  vatkit info");
  return {app, [options]() -> Result<void> {
            Result<Asset> asset = load_input(options->file);
            if (!asset) return asset.error();
            const AssetSummary summary = summarize(*asset);
            return write_output("", options->json ? summary_json(summary) : summary_text(summary));
          }};
}

}  // namespace vatkit::cli

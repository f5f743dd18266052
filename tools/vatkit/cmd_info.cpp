// vatkit info [FILE] [--json]: what an asset contains (vatkit::summarize), or what a .vat.glb
// holds (the same summary table as vatkit bake prints).
#include <filesystem>
#include <memory>
#include <system_error>

#include "cli.h"
#include "summary.h"
#include "vatkit/vat_file.h"

namespace vatkit::cli {

namespace {
struct InfoOptions {
  std::string file;
  std::vector<std::string> allow_roots;
  bool json = false;
};
}  // namespace

Command add_info_command(CLI::App& parent) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* app = parent.add_subcommand("info", "Summarize what a glTF file or a .vat.glb contains");
  app->add_option("file", options->file,
                  "Input glTF 2.0 file (.gltf or .glb) or a baked .vat.glb; the built-in sample "
                  "character when left out")
      ->option_text("FILE");
  app->add_flag("--json", options->json,
                "Print one JSON object instead of text (counts under the names of "
                "vatkit::AssetSummary, or vatkit::VatSummary for a .vat.glb; durations in "
                "seconds)");
  add_allow_root_option(app, options->allow_roots);
  app->footer(
      "Lists scenes and nodes; meshes with primitives, vertices (the file's), triangles and morph\n"
      "targets; the drawn primitive instances; skins, and every joint (node index, name, parent\n"
      "joint: sockets and options ask for joints by name); clips with duration,\n"
      "channels, animated paths and interpolation modes; materials, images and import warnings.\n"
      "For a .vat.glb: the encoding and precision, the clip table (rows, fps, playback\n"
      "defaults, max delta, and the error against the reference the bake measured, which the\n"
      "file keeps), the planes with their dimensions and bytes, the levels of detail, and the\n"
      "file's size, as 'vatkit bake' prints it (all but the bake time, which a file does not\n"
      "keep: the same bake gives the same bytes on any machine), then the joints the file carries\n"
      "(slot index, name, source node).\n\n"
      "Examples:\n  vatkit info Fox.glb\n  vatkit info --json Fox.glb\n  vatkit info Fox.vat.glb\n"
      "  vatkit info");
  return {app, [options]() -> Result<void> {
            Result<bool> is_vat = options->file.empty() ? Result<bool>(false) : is_vat_input(options->file);
            if (!is_vat) return is_vat.error();
            if (*is_vat) {
              Result<Vat> vat = load_vat(options->file);
              if (!vat) return vat.error();
              VatSummary summary = summarize(*vat);
              summary.source = options->file;
              std::error_code ec;
              const auto size = std::filesystem::file_size(options->file, ec);
              if (!ec) summary.file_bytes = size;
              return write_output("",
                                  options->json ? summary_json(summary) : summary_text(summary) + slots_text(summary));
            }
            Result<Asset> asset = load_input(options->file, options->allow_roots);
            if (!asset) return asset.error();
            const AssetSummary summary = summarize(*asset);
            return write_output("", options->json ? summary_json(summary) : summary_text(summary));
          }};
}

}  // namespace vatkit::cli

// vatkit export [FILE] --to TARGET [-o OUT]: a bake in another runtime's own format. The targets
// are listed once, in export_targets.h; each lives in its own export_<target>.cpp.
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "export_targets.h"

namespace vatkit::cli {

Command add_export_command(CLI::App& parent) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* app = parent.add_subcommand("export", "Write a bake in another runtime's format (Babylon.js, three-vat)");
  app->add_option("file", options->file, kFileHelp)->option_text("FILE");
  std::vector<std::string> names;
  std::string targets_help = "Target runtime:";
  for (const ExportTarget& t : kExportTargets) {
    names.emplace_back(t.name);
    targets_help += std::string("\n  ") + t.name + ": " + t.help;
  }
  app->add_option("--to", options->target, targets_help)
      ->required()
      ->check(CLI::IsMember(names))
      ->option_text("TARGET");
  app->add_option("-o,--output", options->output, "Output file (default: beside the input, named for the target)")
      ->check(output_name())
      ->option_text("OUT");
  app->add_option("--fps", options->fps,
                  "Rows per second of animation (default: the target's own; babylon: 60, its glTF loader's frame unit)")
      ->check(CLI::PositiveNumber)
      ->option_text("FPS");
  app->add_option("--image", options->image,
                  "openvat: the texture's format, png16 (16-bit PNG, the default) or exr16 (half-float OpenEXR)")
      ->check(CLI::IsMember({"png16", "exr16"}))
      ->option_text("FORMAT");
  add_allow_root_option(app, options->allow_roots);
  return {app, [options]() -> Result<void> {
            if (!options->image.empty() && options->target != "openvat") {
              return make_error(ErrorCode::Argument, "--image", "applies to --to openvat only");
            }
            for (const ExportTarget& t : kExportTargets) {
              if (options->target == t.name) return t.run(*options);
            }
            return make_error(ErrorCode::Argument, "--to", "unknown export target '" + options->target + "'");
          }};
}

}  // namespace vatkit::cli

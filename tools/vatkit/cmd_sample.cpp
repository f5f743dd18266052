// vatkit sample -o FILE.glb: writes the built-in sample character.
#include <cstdio>
#include <memory>

#include "cli.h"
#include "vatkit/file_io.h"
#include "vatkit/sample_character.h"

namespace vatkit::cli {

Command add_sample_command(CLI::App& parent) {
  auto output = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand("sample", "Write the built-in sample character as a .glb");
  app->add_option("-o,--output", *output, "Output file (.glb); written atomically")
      ->required()
      ->check(output_name())
      ->option_text("FILE.glb");
  app->footer(
      "The sample is generated procedurally: a skinned humanoid on 22 joints with looping clips\n"
      "idle, walk and run (30 fps keys) and about 5000 vertices. It is a valid glTF 2.0 binary, and\n"
      "its bytes are the same on every run.\n\n"
      "Example: vatkit sample -o sample.glb");
  return {app, [output]() -> Result<void> {
            if (auto named = check_binary_gltf_name(*output); !named) return named;
            const std::vector<uint8_t> bytes = sample_character_glb();
            Result<OutputFile> file = OutputFile::create(*output);
            if (!file) return file.error();
            if (auto written = file->write(bytes); !written) return written;
            std::printf("wrote %s (%zu bytes)\n", output->c_str(), bytes.size());
            return flush_stdout_then_commit(std::span<OutputFile>(&*file, 1));
          }};
}

}  // namespace vatkit::cli

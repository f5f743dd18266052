#include "cli.h"

#include <cerrno>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "vatkit/file_io.h"
#include "vatkit/import.h"
#include "playback_json.h"
#include "vatkit/sample_character.h"
#include "vatkit/vat_file.h"

namespace vatkit::cli {

const char* const kFileHelp = "Input glTF 2.0 file (.gltf or .glb); the built-in sample character when left out";

Result<void> parse_size(const std::string& command, const std::string& text, const char* example, int& width,
                        int& height) {
  const size_t x = text.find('x');
  auto number = [](std::string_view s, int& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out >= 1 && out <= 16384;
  };
  if (x == std::string::npos || !number(std::string_view(text).substr(0, x), width) ||
      !number(std::string_view(text).substr(x + 1), height)) {
    return make_error(ErrorCode::Argument, command,
                      "--size " + text + ": expected WIDTHxHEIGHT, each 1..16384 (e.g. " + example + ")");
  }
  return {};
}

Result<void> check_target_size(const std::string& command, int width, int height, int samples) {
  const uint64_t total = uint64_t(width) * uint64_t(height) * uint64_t(samples);
  if (total <= kMaxSamplesPerFrame) return {};
  return make_error(ErrorCode::Argument, command,
                    "--size " + std::to_string(width) + "x" + std::to_string(height) + " with --samples " +
                        std::to_string(samples) + ": " + std::to_string(total) + " samples per frame, at most " +
                        std::to_string(kMaxSamplesPerFrame) + " (e.g. 16384x16384 with 1 sample, 8192x8192 with 4)");
}

Result<Asset> load_input(const std::string& file, const std::vector<std::string>& allow_roots,
                         std::vector<std::filesystem::path>* files_read) {
  if (file.empty()) return load_sample_character();
  ImportOptions options;
  options.allowed_roots.assign(allow_roots.begin(), allow_roots.end());
  options.files_read = files_read;
  return import_gltf(file, options);
}

void add_allow_root_option(CLI::App* app, std::vector<std::string>& roots) {
  app->add_option("--allow-root", roots,
                  "Also read the glTF's external buffers and images from inside DIR (repeatable); by "
                  "default only files inside the glTF's own folder are read")
      ->option_text("DIR")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
}

Result<bool> is_vat_input(const std::string& file) {
  if (Result<InputFile> opened = InputFile::open(file); !opened) return opened.error();
  return is_vat_file(file);
}

Result<void> check_binary_gltf_name(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".gltf") {
    return make_error(ErrorCode::Argument, path,
                      "vatkit writes binary glTF: name the output .glb (a viewer would read this name as JSON)");
  }
  return {};
}

Result<void> write_output(const std::string& path, const std::string& text) {
  if (!path.empty())
    return write_file_atomic(path,
                             std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return make_error(ErrorCode::Io, "<stdout>", std::string("write failed (") + std::strerror(errno) + ")");
  }
  return flush_stdout();
}

const CLI::Validator& output_name() {
  static const CLI::Validator validator(
      [](const std::string& name) {
        return name.empty() ? std::string("an empty name is not a file name") : std::string();
      },
      "", "OUTPUT_NAME");
  return validator;
}

Result<void> flush_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    return make_error(ErrorCode::Io, "<stdout>", std::string("write failed (") + std::strerror(errno) + ")");
  }
  return {};
}

Result<void> flush_stdout_then_commit(std::span<OutputFile> files) {
  if (Result<void> flushed = flush_stdout(); !flushed) return flushed;
  for (OutputFile& file : files) {
    if (Result<void> committed = file.commit(); !committed) return committed;
  }
  return {};
}

// One printable line, whatever the message holds: errors quote names from files through
// printable() already; this catches what they do not (file names, command-line values) without
// escaping again what they did.
void print_error(const std::string& message) {
  std::fprintf(stderr, "vatkit: error: %s\n", printable(message, Backslash::Keep).c_str());
}

std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
}

}  // namespace vatkit::cli

namespace vatkit::cli {

Result<std::string> pose_json(const std::string& source, const std::optional<std::string>& clip, float time_s,
                              std::span<const PosedPrimitive> primitives) {
  std::string out = "{\"clip\": " + (clip ? json_string(*clip) : std::string("null")) +
                    ", \"time\": " + float_text(time_s) + ", \"primitives\": [";
  for (size_t i = 0; i < primitives.size(); ++i) {
    const PosedPrimitive& p = primitives[i];
    out += i ? ",\n" : "\n";
    out += "{\"node\": " + std::to_string(p.node) + ", \"mesh\": " + std::to_string(p.mesh) +
           ", \"primitive\": " + std::to_string(p.primitive) + ", \"positions\": [";
    for (size_t v = 0; v < p.positions.size(); ++v) {
      for (int c = 0; c < 3; ++c) {
        const float x = p.positions[v][c];
        if (!std::isfinite(x)) {
          return make_error(ErrorCode::Limit, source,
                            "posed position of nodes[" + std::to_string(p.node) + "] mesh " + std::to_string(p.mesh) +
                                " primitive " + std::to_string(p.primitive) + " vertex " + std::to_string(v) +
                                " is not finite");
        }
        if (v || c) out += ", ";
        out += float_text(x);
      }
    }
    out += "]}";
  }
  out += primitives.empty() ? "]}\n" : "\n]}\n";
  return out;
}

}  // namespace vatkit::cli

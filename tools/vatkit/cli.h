// The vatkit command-line tool: shared pieces of its commands (one file per command).
//
// Every command is a thin client of the vatkit libraries: it loads its input (a glTF file, or the
// built-in sample when none is given), calls the library, and prints or writes the result.
// Errors travel as vatkit::Error values up to main(), which prints exactly one line,
// "vatkit: error: FILE: what and where", and exits non-zero. Output files are OutputFiles
// (vatkit/file_io.h), committed only once everything succeeded, stdout's report included, so a
// failed command leaves no output file behind (a device or FIFO is written as it goes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "vatkit/asset.h"
#include "vatkit/file_io.h"
#include "util/printable.h"
#include "vatkit/result.h"

namespace vatkit::cli {

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;          // bad input, failed write
constexpr int kExitUsage = 2;          // bad command line
constexpr int kExitOverTolerance = 3;  // vatkit verify: a clip's error exceeds --tolerance
constexpr int kExitOverBudget = 4;     // vatkit bake: an output file is over --max-bytes (still written)

// A registered command: its CLI11 sub-app, and what to run when the user chose it.
struct Command {
  CLI::App* app = nullptr;
  std::function<Result<void>()> run;
  // The exit code when `run` failed; kExitError when empty (verify: kExitOverTolerance).
  std::function<int()> failure_exit;
};

Command add_sample_command(CLI::App& parent);
Command add_info_command(CLI::App& parent);
Command add_pose_command(CLI::App& parent);
Command add_frame_command(CLI::App& parent);
Command add_bake_command(CLI::App& parent);
Command add_verify_command(CLI::App& parent);
Command add_render_command(CLI::App& parent);
Command add_bench_command(CLI::App& parent);
Command add_export_command(CLI::App& parent);
Command add_view_command(CLI::App& parent);  // without VATKIT_VIEW: a command that says so

// Bounds of numeric options past which a value could only exhaust the machine (disk, memory,
// hours of rendering). A value outside is refused by the command line parser (CLI::Range): one
// line naming the option and the range, exit kExitUsage.
constexpr uint32_t kMaxFrames = 10000;                 // render --frames (files written), bench --frames
constexpr uint32_t kMaxWarmup = 1000;                  // bench --warmup
constexpr int kMaxSamples = 64;                        // render/bench --samples; then capped to GL_MAX_SAMPLES
constexpr uint32_t kMaxInstances = uint32_t(1) << 24;  // render --instances
// render --instances on a software rasterizer (llvmpipe): a larger crowd is refused once the
// context says what renders (exit kExitError).
constexpr uint32_t kMaxSoftwareInstances = 100000;
constexpr uint32_t kMaxLods = 16;          // bench --lods, as bake --lods: the renderer draws 16
constexpr size_t kMaxPoseCacheMb = 65536;  // bench --pose-cache-mb
constexpr size_t kMaxBenchSizes = 16;      // bench --instances: crowd sizes in the list
// render/bench: width x height x samples of the render target, at most 2^28 (16384x16384 with
// one sample, 8192x8192 with four).
constexpr uint64_t kMaxSamplesPerFrame = uint64_t(1) << 28;

// Refuses a render target over kMaxSamplesPerFrame, naming --size and --samples.
Result<void> check_target_size(const std::string& command, int width, int height, int samples);

// The input of a command: `file`, or the built-in sample character when `file` is empty.
// `allow_roots`: folders besides the file's own that its external buffers and images may be read
// from (ImportOptions::allowed_roots); `files_read`, when set, gets the external files read
// (ImportOptions::files_read).
Result<Asset> load_input(const std::string& file, const std::vector<std::string>& allow_roots,
                         std::vector<std::filesystem::path>* files_read = nullptr);

// `--allow-root DIR`, repeatable, for every command that imports glTF (fills `roots`).
void add_allow_root_option(CLI::App* app, std::vector<std::string>& roots);

// Whether `file` (non-empty) is a .vat.glb. The file is first opened as every input is
// (InputFile::open), so that a FIFO, a device or a directory is refused by name, at once, before
// is_vat_file reads it.
Result<bool> is_vat_input(const std::string& file);

// Help text for the FILE positional shared by the commands.
extern const char* const kFileHelp;

// `--size WIDTHxHEIGHT` of command `command`, each 1..16384; the error shows `example`.
Result<void> parse_size(const std::string& command, const std::string& text, const char* example, int& width,
                        int& height);

// Refuses an output name that says text glTF (".gltf", any case) for a binary glTF file:
// vatkit writes .glb containers, and a viewer would parse those bytes as JSON.
Result<void> check_binary_gltf_name(const std::string& path);

// Writes `text` to `path` (an OutputFile: vatkit/file_io.h), or to stdout when `path` is empty.
Result<void> write_output(const std::string& path, const std::string& text);

// The check on every option that names an output file: an empty name is refused at parsing
// ("--output: an empty name is not a file name") rather than read as "the default".
const CLI::Validator& output_name();

// Flushes stdout; an error (a full disk, a closed pipe, /dev/full) names "<stdout>".
Result<void> flush_stdout();

// How a command that prints a report and writes files ends: the report is flushed first, and the
// files are committed only when that succeeded, so a failed command leaves no output file.
Result<void> flush_stdout_then_commit(std::span<OutputFile> files);

// "vatkit: error: MESSAGE" on stderr, on one line whatever the message holds.
void print_error(const std::string& message);

// `text` as a JSON string literal (quotes and escapes included).
std::string json_string(const std::string& text);

// One primitive instance's posed vertices, for pose_json.
struct PosedPrimitive {
  uint32_t node = 0, mesh = 0, primitive = 0;
  std::span<const glm::vec3> positions;  // world space, the file's vertices in file order
};

// The `vatkit pose` document:
//   {"clip": NAME or null, "time": T, "primitives": [
//    {"node": N, "mesh": M, "primitive": P, "positions": [x, y, z, ...]}, ...]}
// one primitive per line. Fails (naming `source`) on a non-finite coordinate.
Result<std::string> pose_json(const std::string& source, const std::optional<std::string>& clip, float time_s,
                              std::span<const PosedPrimitive> primitives);

}  // namespace vatkit::cli

// vatkit bake [FILE...] [-o OUT.vat.glb] [--manifest M.json] [bake options] [--json]: bakes glTF
// files (or the built-in sample) into .vat.glb files (vatkit::bake, vatkit::save_vat) and prints
// the summary table: one file's full table, or for several (a batch) one row per asset.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "bake_options.h"
#include "cli.h"
#include "summary.h"
#include "vatkit/parallel.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit::cli {

namespace {
namespace fs = std::filesystem;

struct BakeCommandOptions {
  std::vector<std::string> files;  // none: the sample; several: a batch
  std::string output;
  std::string output_dir;
  std::string manifest;
  unsigned jobs = 0;           // 0: every hardware thread
  uint64_t max_bytes = 0;      // 0: no budget
  int exit_code = kExitError;  // what a failed run exits with
  std::vector<std::string> allow_roots;
  std::string depfile;
  bool json = false;
  BakeCliOptions bake;
};

// FILE's stem + ".vat.glb" in `dir` (the current directory when empty); sample.vat.glb for the
// sample.
std::string default_output(const std::string& file, const std::string& dir) {
  const std::string name = file.empty() ? "sample.vat.glb" : fs::path(file).stem().string() + ".vat.glb";
  return dir.empty() ? name : (fs::path(dir) / name).string();
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

// A baked asset: its file written but not committed, and its summary.
struct BakedAsset {
  OutputFile file;
  VatSummary summary;
  std::vector<fs::path> files_read;  // the source's external files (buffers, images), for --depfile
};

// Loads `input` (the sample when empty), bakes it with `options` and writes `output`, not yet
// committed. The one bake of both the single-file command and a batch.
Result<BakedAsset> bake_asset(const std::string& input, const std::string& output, BakeOptions options,
                              const std::vector<std::string>& allow_roots, ProgressFn progress) {
  if (Result<void> source = check_source_file(input); !source) return source.error();
  if (auto named = check_binary_gltf_name(output); !named) return named.error();
  std::vector<fs::path> files_read;
  Result<Asset> asset = load_input(input, allow_roots, &files_read);
  if (!asset) return asset.error();
  if (Result<void> r = resolve_clip_defaults(options, *asset); !r) return r.error();
  options.progress = std::move(progress);
  BakeReport report;
  Result<Vat> vat = bake(*asset, options, &report);
  if (!vat) return vat.error();
  Result<OutputFile> file = OutputFile::create(output);
  if (!file) return file.error();
  if (Result<void> written = write_vat(*vat, *file, output); !written) return written.error();

  VatSummary summary = summarize(*vat, report);
  summary.source = output;
  if (options.max_error_mm <= 0.0f) {
    if (auto note = between_rows_note(*vat, summary, options.auto_budget_mm)) summary.notes.push_back(*note);
  }
  summary.file_bytes = file->size();
  return BakedAsset{std::move(*file), std::move(summary), std::move(files_read)};
}

// Creates `folder` (and its parents) when missing; nothing for "".
Result<void> make_folder(const fs::path& folder) {
  std::error_code ec;
  if (folder.empty() || fs::is_directory(folder, ec)) return {};
  if (fs::create_directories(folder, ec); ec) {
    return make_error(ErrorCode::Io, folder.string(), "cannot create the folder (" + ec.message() + ")");
  }
  return {};
}

std::string over_budget_text(const std::string& output, uint64_t bytes, uint64_t budget) {
  return output + ": " + std::to_string(bytes) + " B, over --max-bytes " + std::to_string(budget);
}

Result<void> run_single(BakeCommandOptions& options) {
  Result<BakeOptions> bake_options = make_bake_options(options.bake);
  if (!bake_options) return bake_options.error();
  const std::string input = options.files.empty() ? std::string() : options.files[0];
  const std::string output = options.output.empty() ? default_output(input, options.output_dir) : options.output;
  if (options.output.empty()) {
    if (Result<void> made = make_folder(options.output_dir); !made) return made;
  }
  ProgressBar progress;
  Result<BakedAsset> baked = bake_asset(input, output, *bake_options, options.allow_roots, progress.callback());
  progress.finish();
  if (!baked) return baked.error();
  // Committed only after the summary reached stdout: a failed command leaves no file.
  const std::string text = options.json ? summary_json(baked->summary) : summary_text(baked->summary);
  if (Result<void> printed = write_output("", text); !printed) return printed;
  if (Result<void> committed = baked->file.commit(); !committed) return committed;
  if (!options.depfile.empty()) {
    if (Result<void> r = write_depfile(options.depfile, output, input, baked->files_read); !r) return r;
  }
  if (options.max_bytes > 0 && baked->summary.file_bytes > options.max_bytes) {
    options.exit_code = kExitOverBudget;
    return make_error(ErrorCode::Argument, "", over_budget_text(output, baked->summary.file_bytes, options.max_bytes));
  }
  return {};
}

// ---- Batches --------------------------------------------------------------------------------

struct BatchJob {
  std::string input;  // as named (the command line, or resolved against the manifest's folder)
  std::string output;
  BakeOptions options;  // threads 0: the batch's share of the machine
};

// The bake options of a manifest's asset: `words` parsed by add_bake_options on a fresh app over a
// copy of the command line's options (`defaults`), so that what the words name overrides them.
Result<BakeOptions> asset_options(const BakeCliOptions& defaults, const std::vector<std::string>& words) {
  BakeCliOptions o = defaults;
  CLI::App app{"manifest options"};
  app.set_help_flag();
  add_bake_options(app, o, /*with_measure=*/true);
  try {
    std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 takes them last first
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return make_error(ErrorCode::Argument, "", e.what());
  }
  // Neither --fps nor --max-error among the words: the command line's choice between them holds.
  if (o.fps_option->count() == 0 && o.max_error_option->count() == 0) {
    o.fps_option = defaults.fps_option;
    o.max_error_option = defaults.max_error_option;
  }
  return make_bake_options(o);
}

// The manifest's assets: {"assets": [{"file": F, "output": O, "options": [WORDS]}]}; relative
// paths against the manifest's folder; errors name the manifest, the asset's index and the reason.
Result<std::vector<BatchJob>> read_manifest(const BakeCommandOptions& options) {
  using nlohmann::json;
  const std::string& manifest = options.manifest;
  constexpr uint64_t kMaxManifestBytes = uint64_t(16) << 20;
  Result<std::vector<uint8_t>> bytes = read_file(manifest, kMaxManifestBytes);
  if (!bytes) return bytes.error();
  json doc;
  try {
    doc = json::parse(bytes->begin(), bytes->end());
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (const size_t end = what.find("] "); what.rfind("[json.", 0) == 0 && end != std::string::npos) {
      what = what.substr(end + 2);  // nlohmann's "[json.exception.parse_error.101] " prefix
    }
    return make_error(ErrorCode::Parse, manifest, "not JSON: " + what);
  }
  auto fail = [&](const std::string& where, const std::string& what) {
    return make_error(ErrorCode::Argument, manifest, where + ": " + what);
  };
  if (!doc.is_object()) return fail("the document", "expected an object {\"assets\": [...]}");
  for (const auto& [key, value] : doc.items()) {
    if (key != "assets") return fail("the document", "unknown key \"" + key + "\" (expected \"assets\")");
  }
  if (!doc.contains("assets") || !doc["assets"].is_array() || doc["assets"].empty()) {
    return fail("\"assets\"", "expected a non-empty array of assets");
  }
  const fs::path folder = fs::path(manifest).parent_path();
  auto resolve = [&](const std::string& path) {
    return fs::path(path).is_absolute() ? path : (folder / path).string();
  };
  std::vector<BatchJob> jobs;
  for (size_t i = 0; i < doc["assets"].size(); ++i) {
    const json& a = doc["assets"][i];
    const std::string where = "assets[" + std::to_string(i) + "]";
    if (!a.is_object()) return fail(where, "expected an object {\"file\": ..., \"output\": ..., \"options\": [...]}");
    for (const auto& [key, value] : a.items()) {
      if (key != "file" && key != "output" && key != "options") {
        return fail(where, "unknown key \"" + key + "\" (expected \"file\", \"output\" or \"options\")");
      }
    }
    if (!a.contains("file") || !a["file"].is_string() || a["file"].get<std::string>().empty()) {
      return fail(where, "\"file\": expected the source file's name");
    }
    BatchJob job;
    job.input = resolve(a["file"].get<std::string>());
    if (a.contains("output")) {
      if (!a["output"].is_string() || a["output"].get<std::string>().empty()) {
        return fail(where, "\"output\": expected a file name");
      }
      job.output = resolve(a["output"].get<std::string>());
    } else {
      job.output = default_output(job.input, options.output_dir);
    }
    std::vector<std::string> words;
    if (a.contains("options")) {
      if (!a["options"].is_array()) return fail(where, "\"options\": expected an array of command-line words");
      for (const json& word : a["options"]) {
        if (!word.is_string()) return fail(where, "\"options\": expected an array of command-line words");
        words.push_back(word.get<std::string>());
      }
    }
    Result<BakeOptions> bake_options = asset_options(options.bake, words);
    if (!bake_options) return fail(where, bake_options.error().message);
    job.options = std::move(*bake_options);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// The jobs of a batch: the manifest's assets, or every FILE with the command line's options.
Result<std::vector<BatchJob>> batch_jobs(BakeCommandOptions& options) {
  std::vector<BatchJob> jobs;
  if (!options.manifest.empty()) {
    Result<std::vector<BatchJob>> listed = read_manifest(options);
    if (!listed) return listed.error();
    jobs = std::move(*listed);
  } else {
    if (!options.output.empty()) {
      options.exit_code = kExitUsage;
      return make_error(ErrorCode::Argument, "",
                        "--output names one file, and " + std::to_string(options.files.size()) +
                            " inputs were given: use --output-dir DIR");
    }
    Result<BakeOptions> bake_options = make_bake_options(options.bake);
    if (!bake_options) return bake_options.error();
    for (const std::string& file : options.files) {
      jobs.push_back({file, default_output(file, options.output_dir), *bake_options});
    }
  }
  // Two assets writing one file would lose one of them.
  for (size_t i = 0; i < jobs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (fs::absolute(jobs[i].output).lexically_normal() == fs::absolute(jobs[j].output).lexically_normal()) {
        return make_error(
            ErrorCode::Argument, jobs[i].output,
            "the output of both \"" + jobs[j].input + "\" and \"" + jobs[i].input + "\" (give each its own output)");
      }
    }
  }
  return jobs;
}

// One line on stderr for the whole batch, drawn only when stderr is a terminal: assets done of
// the total, then each running asset's stage. Callable from the bakes' threads.
class BatchProgress {
 public:
  explicit BatchProgress(const std::vector<BatchJob>& jobs)
      : enabled_(isatty(STDERR_FILENO) == 1), stages_(jobs.size()) {
    for (const BatchJob& job : jobs) names_.push_back(fs::path(job.input).filename().string());
  }
  ~BatchProgress() { finish(); }
  BatchProgress(const BatchProgress&) = delete;
  BatchProgress& operator=(const BatchProgress&) = delete;

  ProgressFn callback(size_t job) {
    if (!enabled_) return {};
    return [this, job](std::string_view stage, float fraction) {
      const int percent = static_cast<int>(std::clamp(fraction, 0.0f, 1.0f) * 100.0f);
      std::string text = std::string(stage) + " " + std::to_string(percent) + "%";
      std::lock_guard<std::mutex> lock(mutex_);
      if (stages_[job] == text) return;
      stages_[job] = std::move(text);
      draw();
    };
  }
  void done(size_t job) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    stages_[job].clear();
    draw();
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (width_ == 0) return;
    std::fprintf(stderr, "\r%*s\r", int(width_), "");
    std::fflush(stderr);
    width_ = 0;
  }

 private:
  void draw() {
    constexpr size_t kMaxWidth = 79;
    std::string line = "[" + std::to_string(done_) + "/" + std::to_string(stages_.size()) + " done]";
    for (size_t i = 0; i < stages_.size(); ++i) {
      if (!stages_[i].empty()) line += " | " + printable(names_[i]) + " " + stages_[i];
    }
    if (line.size() > kMaxWidth) line.resize(kMaxWidth);
    const size_t pad = width_ > line.size() ? width_ - line.size() : 0;
    std::fprintf(stderr, "\r%s%*s", line.c_str(), int(pad), "");
    std::fflush(stderr);
    width_ = std::max(width_, line.size());
  }
  bool enabled_;
  std::mutex mutex_;
  std::vector<std::string> names_, stages_;  // stage: "" when not running
  size_t done_ = 0, width_ = 0;              // width_: of the widest line drawn, 0 = none shown
};

struct BatchResult {
  std::optional<BakedAsset> baked;
  std::string error;  // the failure's one line, when `baked` is empty
  bool over_budget = false;
};

// The worst error over the measured clips, mm (on the rows or between them); negative when none
// was measured.
double worst_error_mm(const VatSummary& s) {
  double worst = -1.0;
  for (const VatClipSummary& c : s.clips) {
    if (c.measured) worst = std::max({worst, double(c.error.on_rows_max_mm), double(c.error.between_rows_max_mm)});
  }
  return worst;
}

const char* status_word(const BatchResult& r) { return !r.baked ? "failed" : r.over_budget ? "over budget" : "ok"; }

std::string batch_text(const std::vector<BatchJob>& jobs, const std::vector<BatchResult>& results, unsigned workers) {
  std::vector<std::vector<std::string>> rows = {
      {"input", "output", "encoding", "precision", "clips", "bytes", "worst mm", "bake ms", "status"}};
  for (size_t i = 0; i < jobs.size(); ++i) {
    const BatchResult& r = results[i];
    std::vector<std::string> row = {printable(jobs[i].input.empty() ? "(sample)" : jobs[i].input),
                                    printable(jobs[i].output)};
    if (r.baked) {
      const VatSummary& s = r.baked->summary;
      char worst[32] = "-", ms[32];
      if (const double w = worst_error_mm(s); w >= 0.0) {
        std::snprintf(worst, sizeof(worst), w < 100.0 ? "%.3g" : "%.0f", w);  // no exponent
      }
      std::snprintf(ms, sizeof(ms), "%.0f", s.bake_seconds * 1000.0);
      row.insert(row.end(), {to_string(s.encoding), to_string(s.precision), std::to_string(s.clips.size()),
                             std::to_string(s.file_bytes), worst, ms, status_word(r)});
    } else {
      row.insert(row.end(), {"-", "-", "-", "-", "-", "-", "failed: " + printable(r.error, Backslash::Keep)});
    }
    rows.push_back(std::move(row));
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c + 1 < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  size_t ok = 0, over = 0;
  for (const BatchResult& r : results) {
    if (r.baked) ++(r.over_budget ? over : ok);
  }
  std::string text = "baked " + std::to_string(jobs.size()) + " assets, " + std::to_string(workers) +
                     " at a time: " + std::to_string(ok) + " ok, " + std::to_string(over) + " over budget, " +
                     std::to_string(jobs.size() - ok - over) + " failed\n";
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t c = 0; c < row.size(); ++c) {
      const bool number = c >= 4 && c <= 7;  // clips, bytes, worst mm, bake ms: right-aligned
      const size_t pad = c + 1 < row.size() ? widths[c] - row[c].size() : 0;
      line += " ";
      if (number) line.append(pad, ' ');
      line += row[c];
      if (!number) line.append(pad, ' ');
    }
    text += line + "\n";
  }
  return text;
}

std::string batch_json(const std::vector<BatchJob>& jobs, const std::vector<BatchResult>& results) {
  std::string text = "[";
  for (size_t i = 0; i < jobs.size(); ++i) {
    const BatchResult& r = results[i];
    std::string summary = r.baked ? summary_json(r.baked->summary) : "null";
    while (!summary.empty() && summary.back() == '\n') summary.pop_back();
    text += std::string(i ? ",\n " : "\n ") + "{\"file\": " + json_string(jobs[i].input) +
            ", \"output\": " + json_string(jobs[i].output) + ", \"status\": " + json_string(status_word(r)) +
            ", \"error\": " + (r.baked ? std::string("null") : json_string(r.error)) + ", \"summary\": " + summary +
            "}";
  }
  return text + "\n]\n";
}

// Bakes every job, `workers` at a time, each bake on its share of the machine's threads (unless
// the job names its own); each result holds the baked file (closed, not yet committed) or the error.
std::vector<BatchResult> bake_jobs(const std::vector<BatchJob>& jobs, const BakeCommandOptions& options,
                                   unsigned workers) {
  const unsigned share = std::max(1u, hardware_threads() / workers);  // threads per bake: the machine, not more
  std::vector<BatchResult> results(jobs.size());
  BatchProgress progress(jobs);
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      BatchResult& r = results[i];
      BakeOptions bake_options = jobs[i].options;
      if (bake_options.threads == 0) bake_options.threads = share;
      try {
        Result<BakedAsset> baked =
            bake_asset(jobs[i].input, jobs[i].output, bake_options, options.allow_roots, progress.callback(i));
        // Closed now, renamed at the end: a batch holds no descriptor per finished asset.
        if (baked) {
          if (Result<void> closed = baked->file.finish(); !closed) baked = closed.error();
        }
        if (baked) {
          r.over_budget = options.max_bytes > 0 && baked->summary.file_bytes > options.max_bytes;
          r.baked = std::move(*baked);
        } else {
          r.error = baked.error().message;
        }
      } catch (const std::bad_alloc&) {
        r.error = "out of memory";
      } catch (const std::exception& e) {
        r.error = std::string("internal error: ") + e.what();
      }
      progress.done(i);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  progress.finish();
  return results;
}

// Commits every asset that baked, over budget or not (a failed one leaves no file), after stdout
// is flushed; then the batch's verdict: the failures counted with the first one's reason, or the
// assets over --max-bytes (exit code kExitOverBudget).
Result<void> commit_batch(const std::vector<BatchJob>& jobs, std::vector<BatchResult>& results,
                          BakeCommandOptions& options) {
  std::vector<OutputFile> files;
  size_t failed = 0;
  std::string first_error, over;
  for (size_t i = 0; i < jobs.size(); ++i) {
    BatchResult& r = results[i];
    if (!r.baked) {
      if (failed++ == 0) first_error = r.error;
      continue;
    }
    if (r.over_budget) {
      over +=
          (over.empty() ? "" : "; ") + over_budget_text(jobs[i].output, r.baked->summary.file_bytes, options.max_bytes);
    }
    files.push_back(std::move(r.baked->file));
  }
  if (Result<void> committed = flush_stdout_then_commit(files); !committed) return committed;
  if (failed > 0) {
    return make_error(ErrorCode::Argument, "",
                      std::to_string(failed) + " of " + std::to_string(jobs.size()) +
                          " assets failed (the others were written); first: " + first_error);
  }
  if (!over.empty()) {
    options.exit_code = kExitOverBudget;
    return make_error(ErrorCode::Argument, "", over);
  }
  return {};
}

Result<void> run_batch(BakeCommandOptions& options) {
  if (!options.depfile.empty()) {
    options.exit_code = kExitUsage;
    return make_error(ErrorCode::Argument, "", "--depfile names the dependencies of one bake: give one input");
  }
  Result<std::vector<BatchJob>> listed = batch_jobs(options);
  if (!listed) return listed.error();
  const std::vector<BatchJob>& jobs = *listed;
  for (const BatchJob& job : jobs) {
    if (Result<void> made = make_folder(fs::path(job.output).parent_path()); !made) return made;
  }
  const unsigned workers =
      unsigned(std::min<size_t>(options.jobs == 0 ? hardware_threads() : thread_count(options.jobs), jobs.size()));
  std::vector<BatchResult> results = bake_jobs(jobs, options, workers);
  const std::string text = options.json ? batch_json(jobs, results) : batch_text(jobs, results, workers);
  if (Result<void> printed = write_output("", text); !printed) return printed;
  return commit_batch(jobs, results, options);
}

Result<void> run_bake(BakeCommandOptions& options) {
  if (options.files.size() > 1 || !options.manifest.empty()) return run_batch(options);
  return run_single(options);
}
}  // namespace

Command add_bake_command(CLI::App& parent) {
  auto options = std::make_shared<BakeCommandOptions>();
  CLI::App* app =
      parent.add_subcommand("bake", "Bake glTF files' animation into vertex animation textures (.vat.glb files)");
  CLI::Option* files = app->add_option("file", options->files,
                                       std::string(kFileHelp) +
                                           ". Several files bake as a batch: each to its name with .vat.glb "
                                           "in --output-dir")
                           ->option_text("FILE...");
  CLI::Option* output = app->add_option("-o,--output", options->output,
                                        "Output file, written atomically (default: FILE's name with .vat.glb, in the "
                                        "current directory; sample.vat.glb for the sample); one input only")
                            ->check(output_name())
                            ->option_text("OUT.vat.glb");
  app->add_option("--output-dir", options->output_dir,
                  "Folder of the outputs that no --output or manifest \"output\" names, created when missing "
                  "(default: the current directory)")
      ->check(output_name())
      ->excludes(output)
      ->option_text("DIR");
  app->add_option("--manifest", options->manifest,
                  "Bake the assets a JSON file lists, as a batch: {\"assets\": [{\"file\": \"a.glb\", "
                  "\"output\": \"out/a.vat.glb\", \"options\": [\"--precision\", \"q16\"]}]}; \"output\" and "
                  "\"options\" optional; paths relative to the manifest's folder; an asset's options are "
                  "bake options as typed here, over those of the command line")
      ->excludes(files)
      ->excludes(output)
      ->option_text("FILE.json");
  app->add_option("--jobs", options->jobs,
                  "A batch bakes this many assets at a time (default 0: one per hardware thread, at most one per "
                  "asset), each on its share of the threads unless --threads says otherwise; the output bytes do "
                  "not depend on it")
      ->check(CLI::Range(0u, kMaxThreads))
      ->option_text("N");
  app->add_option("--max-bytes", options->max_bytes,
                  "Budget of every output file: one larger is still written, reported \"over budget\", and the "
                  "command exits 4")
      ->check(CLI::PositiveNumber)
      ->option_text("N");
  add_allow_root_option(app, options->allow_roots);
  app->add_option("--depfile", options->depfile,
                  "Also write a dependency file (a Makefile rule, as compilers' -MD write): the output "
                  "depends on FILE and on every external buffer and image it read; for build systems")
      ->option_text("FILE.d");
  app->add_flag("--json", options->json,
                "Print the summary as one JSON object (vatkit::VatSummary's fields) instead of "
                "the table; a batch prints an array of {file, output, status, error, summary}");
  add_bake_options(*app, options->bake, /*with_measure=*/true);
  app->footer(
      "Prints a summary: per clip its rows, exact fps, playback defaults, how far it moves, and\n"
      "its max and 99th-percentile error in mm (file units taken as metres, or --units) against the\n"
      "reference skinner, on the rows and between them; per plane its format, dimensions and\n"
      "bytes; the total bytes; the bake time; the encoding chosen and why. A progress bar is\n"
      "drawn on stderr when it is a terminal. On any error nothing is written.\n\n"
      "A batch (several FILEs, or --manifest) bakes its assets in parallel and prints one row per\n"
      "asset: input, output, encoding, precision, clips, bytes, worst error in mm, bake ms and\n"
      "status (ok, over budget, or failed with the error). An asset that fails leaves no file\n"
      "and the others are still written; the command then exits 1 (4 when none failed but one\n"
      "is over --max-bytes). A bad manifest is one error naming it and the asset's index.\n\n"
      "Examples:\n  vatkit bake\n  vatkit bake Fox.glb --encoding delta --precision q16\n"
      "  vatkit bake CesiumMan.glb --max-error 0.5 -o man.vat.glb\n"
      "  vatkit bake robot.glb --clips Walking,Running --clip-defaults Death=once,clamp\n"
      "  vatkit bake *.glb --output-dir out --precision q16 --max-bytes 2000000\n"
      "  vatkit bake --manifest assets.json --jobs 2");
  return {app, [options]() { return run_bake(*options); }, [options]() { return options->exit_code; }};
}

}  // namespace vatkit::cli

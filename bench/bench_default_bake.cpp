// The default `vatkit bake FILE` of every animated asset, as a user runs it: one process per bake.
//
// Usage: bench_default_bake [ASSETS_DIR] [--vatkit PATH] [--reps N] [--files a.glb,b.glb]
//                           [--variant "ARGS"]... [--budget MM]...
//   ASSETS_DIR: every .glb and .gltf under it is baked (default: the configured assets folder);
//   "<sample>" in --files is the built-in sample character (`vatkit bake` with no file; always
//   baked when --files is left out). PATH: the command-line tool (default: `vatkit` next to this
//   program). N: runs per asset (default 5), interleaved (run 1 of every asset, then run 2...),
//   so that a change in the machine's load falls on every asset alike.
// Prints a Markdown table, medians over the N runs: the process's wall time, its CPU time (every
// thread, user + system: on a machine shared with other work the wall time is inflated by
// waiting, the CPU time much less), and the phases the bake reports in its --json summary:
// bake() in all (`bake_seconds`), of which the levels of detail (`lod_seconds`), the measurement
// against the reference skinner (`measure_seconds`) and the rest (the frame rows, the geometry,
// the encoding choice); the rest of the wall time is the process itself (start, import, writing
// the file). A failed bake prints its error and ends the program with 1.
// --variant "ARGS" (repeatable) also bakes every asset with ARGS added (e.g. "--max-error 5"),
// interleaved with the default bake, and prints a second table: each variant's wall and CPU time
// and their ratios to the default bake measured in the same run. A variant's bake may fail (no
// rate meets a budget): its time is still counted and the row says it failed.
// --budget MM (repeatable) times the error-budget search against the fixed-rate bake that a user
// without it would run: `--max-error MM`, and `--fps R` where R is the highest rate the search
// chose for any clip, in the encoding it chose (read from its first run's --json; one rate for
// every clip is all `--fps` gives). Both are interleaved with the default bake; a third table
// gives their medians, the ratios search / fixed and search / default, the rates chosen, and the
// fixed bake's largest measured error (whether that one rate meets the budget on every clip: the
// error is not monotonic in the rate).
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace {

namespace fs = std::filesystem;

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Run {
  double wall = 0, cpu = 0, bake = 0, lod = 0, measure = 0;
  double top_fps = 0;    // the highest clip rate in the file
  double max_error = 0;  // the largest measured error of any clip, on or between rows (mm)
  std::string rates;     // each clip's rate, "48, 264, 480"
  std::string encoding;  // "rig" or "delta"
  bool failed = false;
};

// "a b  c" -> {"a", "b", "c"}.
std::vector<std::string> split_args(const std::string& text) {
  std::stringstream in(text);
  std::vector<std::string> out;
  for (std::string a; in >> a;) out.push_back(a);
  return out;
}

// One `vatkit bake [FILE] -o OUT --json`, its stdout into `json_path`. False, with the reason in
// `error`, when it failed.
bool run_bake(const std::string& vatkit, const std::string& file, const std::vector<std::string>& extra,
              const std::string& out, const std::string& json_path, Run& r, std::string& error) {
  std::vector<std::string> args = {vatkit, "bake"};
  if (file != "<sample>") args.push_back(file);
  for (const char* a : {"-o", out.c_str(), "--json"}) args.push_back(a);
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, json_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, vatkit.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    error = "cannot start " + vatkit + ": " + std::strerror(spawned);
    return false;
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto sec = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  r.cpu = sec(usage.ru_utime) + sec(usage.ru_stime);
  std::ifstream f(json_path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string json = ss.str();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error = file + ": vatkit bake failed (status " + std::to_string(status) + ")";
    r.failed = true;
    return false;
  }
  const nlohmann::json summary = nlohmann::json::parse(json, nullptr, false);
  auto number = [](const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  if (!summary.is_object()) return true;
  r.bake = number(summary, "bake_seconds");
  r.lod = number(summary, "lod_seconds");
  r.measure = number(summary, "measure_seconds");
  if (summary.contains("encoding") && summary["encoding"].is_string()) r.encoding = summary["encoding"];
  for (const nlohmann::json& clip : summary.value("clips", nlohmann::json::array())) {
    const double fps = number(clip, "fps");
    r.top_fps = std::max(r.top_fps, fps);
    char text[32];
    std::snprintf(text, sizeof text, "%s%g", r.rates.empty() ? "" : ", ", fps);
    r.rates += text;
    if (const auto e = clip.find("error"); e != clip.end() && e->is_object())
      r.max_error = std::max({r.max_error, number(*e, "on_rows_max_mm"), number(*e, "between_rows_max_mm")});
  }
  return true;
}

double median_of(const std::vector<Run>& runs, double Run::*m) {
  std::vector<double> v;
  for (const Run& r : runs) v.push_back(r.*m);
  return median(v);
}

// The default bake's table: its phases.
void print_phases(const std::vector<std::string>& files, const std::vector<std::vector<Run>>& runs) {
  std::printf(
      "| asset | wall s | CPU s | bake() s | levels of detail s | measuring s | frame rows s | rest of the process s "
      "|\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  double worst = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    std::vector<double> rest, others;
    for (const Run& r : runs[i]) rest.push_back(r.wall - r.bake), others.push_back(r.bake - r.lod - r.measure);
    const double wall = median_of(runs[i], &Run::wall);
    worst = std::max(worst, wall);
    std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", files[i].c_str(), wall,
                median_of(runs[i], &Run::cpu), median_of(runs[i], &Run::bake), median_of(runs[i], &Run::lod),
                median_of(runs[i], &Run::measure), median(others), median(rest));
  }
  std::printf("\nSlowest asset: %.3f s of wall time.\n", worst);
}

// Each variant against the default bake of the same run: wall and CPU time and their ratios.
void print_variants(const std::vector<std::string>& files, const std::vector<std::string>& variants,
                    const std::vector<std::vector<std::vector<Run>>>& runs) {
  std::printf("\n| asset | default wall s | default CPU s |");
  for (const std::string& v : variants) std::printf(" `%s` wall s | ratio | CPU ratio |", v.c_str());
  std::printf("\n|---|---:|---:|");
  for (size_t v = 0; v < variants.size(); ++v) std::printf("---:|---:|---:|");
  std::printf("\n");
  std::vector<double> worst(variants.size(), 0.0);
  for (size_t i = 0; i < files.size(); ++i) {
    const double wall = median_of(runs[0][i], &Run::wall), cpu = median_of(runs[0][i], &Run::cpu);
    std::printf("| %s | %.3f | %.3f |", files[i].c_str(), wall, cpu);
    for (size_t v = 0; v < variants.size(); ++v) {
      const std::vector<Run>& r = runs[v + 1][i];
      const bool failed = std::any_of(r.begin(), r.end(), [](const Run& x) { return x.failed; });
      const double vw = median_of(r, &Run::wall), vc = median_of(r, &Run::cpu);
      worst[v] = std::max(worst[v], vw / wall);
      std::printf(" %.3f%s | %.2f | %.2f |", vw, failed ? " (fails)" : "", vw / wall, vc / cpu);
    }
    std::printf("\n");
  }
  for (size_t v = 0; v < variants.size(); ++v)
    std::printf("\nLargest ratio of `%s` to the default bake: %.2f\n", variants[v].c_str(), worst[v]);
}

// The search against the fixed rate: for each budget, runs[b][i] of asset i, search and fixed.
struct BudgetRuns {
  std::vector<Run> search, fixed;
  std::string fixed_fps;  // the --fps the fixed bake ran at (empty when the search failed)
  std::string encoding;   // the search's encoding, which the fixed bake is given
};

void print_budgets(const std::vector<std::string>& files, const std::vector<std::string>& budgets,
                   const std::vector<std::vector<Run>>& defaults, const std::vector<std::vector<BudgetRuns>>& runs) {
  std::printf(
      "\n| asset | budget mm | default s | search s | rates chosen (fps) | fixed s at the top rate | search / fixed | "
      "search / default | fixed's largest error mm |\n");
  std::printf("|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
  std::vector<double> worst(budgets.size(), 0.0);
  for (size_t b = 0; b < budgets.size(); ++b) {
    for (size_t i = 0; i < files.size(); ++i) {
      const BudgetRuns& r = runs[b][i];
      const double def = median_of(defaults[i], &Run::wall), search = median_of(r.search, &Run::wall);
      if (r.fixed_fps.empty()) {
        std::printf("| %s | %s | %.3f | %.3f (fails) | | | | %.2f | |\n", files[i].c_str(), budgets[b].c_str(), def,
                    search, search / def);
        continue;
      }
      const double fixed = median_of(r.fixed, &Run::wall);
      worst[b] = std::max(worst[b], search / fixed);
      const double err = r.fixed.front().max_error;
      const bool fixed_failed = std::any_of(r.fixed.begin(), r.fixed.end(), [](const Run& x) { return x.failed; });
      std::printf("| %s | %s | %.3f | %.3f | %s | %.3f (%s fps, %s%s) | %.2f | %.2f | %.3g%s |\n", files[i].c_str(),
                  budgets[b].c_str(), def, search, r.search.front().rates.c_str(), fixed, r.fixed_fps.c_str(),
                  r.encoding.c_str(), fixed_failed ? "; fails" : "", search / fixed, search / def, err,
                  err > std::atof(budgets[b].c_str()) ? " (over)" : "");
    }
  }
  for (size_t b = 0; b < budgets.size(); ++b)
    std::printf("\nLargest ratio of the %s mm search to the fixed-rate bake: %.2f\n", budgets[b].c_str(), worst[b]);
}

struct Options {
  fs::path dir = VATKIT_ASSETS_DIR;
  std::string vatkit;
  int reps = 5;
  std::vector<std::string> files;
  std::vector<std::string> variants;
  std::vector<std::string> budgets;
};

// The options, or an exit status when the program should end (--help: 0, a bad option: 2).
std::optional<int> parse(int argc, char** argv, Options& o) {
  o.vatkit = (fs::path(argv[0]).parent_path() / "vatkit").string();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      o.reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--vatkit" && i + 1 < argc) {
      o.vatkit = argv[++i];
    } else if (a == "--variant" && i + 1 < argc) {
      o.variants.push_back(argv[++i]);
    } else if (a == "--budget" && i + 1 < argc) {
      o.budgets.push_back(argv[++i]);
    } else if (a == "--files" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string f; std::getline(list, f, ',');) o.files.push_back(f);
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "Usage: bench_default_bake [ASSETS_DIR] [--vatkit PATH] [--reps N] [--files a.glb,<sample>] "
          "[--variant \"ARGS\"]... [--budget MM]...\n");
      return 0;
    } else if (!a.empty() && a[0] != '-') {
      o.dir = a;
    } else {
      std::fprintf(stderr, "bench_default_bake: unknown option '%s' (--help lists them)\n", a.c_str());
      return 2;
    }
  }
  if (o.files.empty()) {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(o.dir, ec)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".glb" || ext == ".gltf"))
        o.files.push_back(fs::relative(e.path(), o.dir).string());
    }
    std::sort(o.files.begin(), o.files.end());
    o.files.push_back("<sample>");
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (auto status = parse(argc, argv, o)) return *status;
  const fs::path tmp = fs::temp_directory_path() / ("bench_default_bake." + std::to_string(getpid()));
  fs::create_directories(tmp);
  // runs[v][i]: variant v (0: the default bake) of asset i.
  std::vector<std::vector<std::vector<Run>>> runs(o.variants.size() + 1, std::vector<std::vector<Run>>(o.files.size()));
  std::vector<std::vector<BudgetRuns>> budget_runs(o.budgets.size(), std::vector<BudgetRuns>(o.files.size()));
  for (int rep = 0; rep < o.reps; ++rep) {
    for (size_t i = 0; i < o.files.size(); ++i) {
      const std::string path = o.files[i] == "<sample>" ? o.files[i] : (o.dir / o.files[i]).string();
      for (size_t v = 0; v <= o.variants.size(); ++v) {
        Run r;
        std::string error;
        const std::vector<std::string> extra = v == 0 ? std::vector<std::string>{} : split_args(o.variants[v - 1]);
        if (!run_bake(o.vatkit, path, extra, (tmp / "out.vat.glb").string(), (tmp / "out.json").string(), r, error) &&
            v == 0) {
          std::fprintf(stderr, "bench_default_bake: %s\n", error.c_str());
          fs::remove_all(tmp);
          return 1;
        }
        runs[v][i].push_back(r);
      }
      for (size_t b = 0; b < o.budgets.size(); ++b) {
        BudgetRuns& br = budget_runs[b][i];
        Run r;
        std::string error;
        const bool searched = run_bake(o.vatkit, path, {"--max-error", o.budgets[b]}, (tmp / "out.vat.glb").string(),
                                       (tmp / "out.json").string(), r, error);
        br.search.push_back(r);
        if (rep == 0 && searched) {
          char fps[32];
          std::snprintf(fps, sizeof fps, "%.9g", r.top_fps);
          br.fixed_fps = fps;
          br.encoding = r.encoding;
        }
        if (br.fixed_fps.empty()) continue;
        Run f;
        run_bake(o.vatkit, path, {"--fps", br.fixed_fps, "--encoding", br.encoding}, (tmp / "out.vat.glb").string(),
                 (tmp / "out.json").string(), f, error);
        br.fixed.push_back(f);
      }
      std::fprintf(stderr, "\rrun %d of %d, %zu of %zu assets", rep + 1, o.reps, i + 1, o.files.size());
    }
  }
  std::fprintf(stderr, "\n");
  fs::remove_all(tmp);
  std::printf(
      "Default `vatkit bake FILE` (median of %d interleaved runs; load average at the start of the table: %s)\n\n",
      o.reps, loadavg().c_str());
  print_phases(o.files, runs[0]);
  if (!o.variants.empty()) print_variants(o.files, o.variants, runs);
  if (!o.budgets.empty()) print_budgets(o.files, o.budgets, runs[0], budget_runs);
  std::printf("Load average at the end: %s\n", loadavg().c_str());
  return 0;
}

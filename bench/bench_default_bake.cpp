// The default `vatkit bake FILE` of every animated asset, as a user runs it: one process per bake.
//
// Usage: bench_default_bake [ASSETS_DIR] [--vatkit PATH] [--reps N] [--files a.glb,b.glb]
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
#include <sstream>
#include <string>
#include <vector>

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

// The number after "key": in a JSON object's text (0 when absent).
double json_number(const std::string& json, const char* key) {
  const std::string k = std::string("\"") + key + "\":";
  const size_t at = json.find(k);
  return at == std::string::npos ? 0.0 : std::strtod(json.c_str() + at + k.size(), nullptr);
}

struct Run {
  double wall = 0, cpu = 0, bake = 0, lod = 0, measure = 0;
};

// One `vatkit bake [FILE] -o OUT --json`, its stdout into `json_path`. False, with the reason in
// `error`, when it failed.
bool run_bake(const std::string& vatkit, const std::string& file, const std::string& out, const std::string& json_path,
              Run& r, std::string& error) {
  std::vector<std::string> args = {vatkit, "bake"};
  if (file != "<sample>") args.push_back(file);
  for (const char* a : {"-o", out.c_str(), "--json"}) args.push_back(a);
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
    return false;
  }
  r.bake = json_number(json, "bake_seconds");
  r.lod = json_number(json, "lod_seconds");
  r.measure = json_number(json, "measure_seconds");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = VATKIT_ASSETS_DIR;
  std::string vatkit = (fs::path(argv[0]).parent_path() / "vatkit").string();
  int reps = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--vatkit" && i + 1 < argc) {
      vatkit = argv[++i];
    } else if (a == "--files" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string f; std::getline(list, f, ',');) files.push_back(f);
    } else if (a == "--help" || a == "-h") {
      std::printf("Usage: bench_default_bake [ASSETS_DIR] [--vatkit PATH] [--reps N] [--files a.glb,<sample>]\n");
      return 0;
    } else if (!a.empty() && a[0] != '-') {
      dir = a;
    } else {
      std::fprintf(stderr, "bench_default_bake: unknown option '%s' (--help lists them)\n", a.c_str());
      return 2;
    }
  }
  if (files.empty()) {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".glb" || ext == ".gltf"))
        files.push_back(fs::relative(e.path(), dir).string());
    }
    std::sort(files.begin(), files.end());
    files.push_back("<sample>");
  }
  const fs::path tmp = fs::temp_directory_path() / ("bench_default_bake." + std::to_string(getpid()));
  fs::create_directories(tmp);
  std::vector<std::vector<Run>> runs(files.size());
  for (int rep = 0; rep < reps; ++rep) {
    for (size_t i = 0; i < files.size(); ++i) {
      const std::string path = files[i] == "<sample>" ? files[i] : (dir / files[i]).string();
      Run r;
      std::string error;
      if (!run_bake(vatkit, path, (tmp / "out.vat.glb").string(), (tmp / "out.json").string(), r, error)) {
        std::fprintf(stderr, "bench_default_bake: %s\n", error.c_str());
        fs::remove_all(tmp);
        return 1;
      }
      runs[i].push_back(r);
      std::fprintf(stderr, "\rrun %d of %d, %zu of %zu assets", rep + 1, reps, i + 1, files.size());
    }
  }
  std::fprintf(stderr, "\n");
  fs::remove_all(tmp);
  std::printf(
      "Default `vatkit bake FILE` (median of %d interleaved runs; load average at the start of the table: %s)\n\n",
      reps, loadavg().c_str());
  std::printf(
      "| asset | wall s | CPU s | bake() s | levels of detail s | measuring s | frame rows s | rest of the process s "
      "|\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  double worst = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    auto med = [&](double Run::*m) {
      std::vector<double> v;
      for (const Run& r : runs[i]) v.push_back(r.*m);
      return median(v);
    };
    std::vector<double> rest, others;
    for (const Run& r : runs[i]) rest.push_back(r.wall - r.bake), others.push_back(r.bake - r.lod - r.measure);
    const double wall = med(&Run::wall);
    worst = std::max(worst, wall);
    std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", files[i].c_str(), wall, med(&Run::cpu),
                med(&Run::bake), med(&Run::lod), med(&Run::measure), median(others), median(rest));
  }
  std::printf("\nSlowest asset: %.3f s of wall time. Load average at the end: %s\n", worst, loadavg().c_str());
  return 0;
}

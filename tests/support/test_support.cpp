#include "test_support.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <new>
#if defined(_WIN32)
#include <process.h>
#else
#include <sys/wait.h>
#include <unistd.h>
#endif

// Counts heap allocations while a CountAllocations lives. Replacing the global operator new is
// the only portable hook; it forwards to malloc, so sanitizers still see every block.
namespace {
std::atomic<bool> g_count_allocations{false};
std::atomic<size_t> g_allocations{0};
std::atomic<size_t> g_largest_allocation{0};
thread_local int t_uncounted = 0;  // UncountedAllocations alive on this thread
}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (g_count_allocations.load(std::memory_order_relaxed) && t_uncounted == 0) {
    g_allocations.fetch_add(1);
    size_t seen = g_largest_allocation.load();
    while (size > seen && !g_largest_allocation.compare_exchange_weak(seen, size)) {
    }
  }
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace vatkit::test {

CountAllocations::CountAllocations() {
  assert(!g_count_allocations.load());
  g_allocations = 0;
  g_largest_allocation = 0;
  g_count_allocations = true;
}
CountAllocations::~CountAllocations() { g_count_allocations = false; }
size_t CountAllocations::count() const { return g_allocations.load(); }
size_t CountAllocations::largest() const { return g_largest_allocation.load(); }
UncountedAllocations::UncountedAllocations() { ++t_uncounted; }
UncountedAllocations::~UncountedAllocations() { --t_uncounted; }

// The shared assets: $VATKIT_ASSETS when set (a copy of some of them on another machine, e.g. the
// GPU machine), else ../shared/assets as configured.
static std::filesystem::path assets_dir() {
  const char* env = std::getenv("VATKIT_ASSETS");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env) : std::filesystem::path(VATKIT_ASSETS_DIR);
}

std::filesystem::path asset_path(const std::string& relative) { return assets_dir() / relative; }

std::vector<std::filesystem::path> all_assets() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(assets_dir())) {
    const auto ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".gltf" || ext == ".glb")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::path(VATKIT_BINARY_DIR) / "test_scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

CommandResult run_command(const std::string& command_line) {
  static int counter = 0;
  const auto dir = std::filesystem::path(VATKIT_BINARY_DIR) / "test_scratch" / "commands";
  std::filesystem::create_directories(dir);
#if defined(_WIN32)
  const int pid = ::_getpid();
#else
  const int pid = ::getpid();
#endif
  const auto base = dir / ("cmd" + std::to_string(pid) + "_" + std::to_string(counter++));
  const std::string out_path = base.string() + ".out", err_path = base.string() + ".err";
  const std::string full = command_line + " >" + shell_quote(out_path) + " 2>" + shell_quote(err_path);
  const int status = std::system(full.c_str());
  CommandResult r;
#if defined(_WIN32)
  r.exit_code = status;  // std::system returns the command's exit code itself
#else
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#endif
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

}  // namespace vatkit::test

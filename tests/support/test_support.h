// Shared helpers for the test suite: where the assets are, and small file utilities.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace vatkit::test {

// ../shared/assets (the path CMake was configured with), joined with `relative`.
std::filesystem::path asset_path(const std::string& relative);

// Every .gltf/.glb under ../shared/assets, sorted.
std::vector<std::filesystem::path> all_assets();

std::vector<uint8_t> read_file(const std::filesystem::path& path);

// A fresh empty directory under the build tree for one test's outputs.
std::filesystem::path scratch_dir(const std::string& name);

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};
// Runs a shell command line, capturing stdout and stderr.
CommandResult run_command(const std::string& command_line);

// Quotes a path for a shell command line.
std::string shell_quote(const std::string& s);

// Heap allocations (global operator new, any thread) while an instance lives: the suite replaces
// operator new (test_support.cpp) to check that hot paths allocate nothing. Not nestable.
class CountAllocations {
 public:
  CountAllocations();
  ~CountAllocations();
  CountAllocations(const CountAllocations&) = delete;
  CountAllocations& operator=(const CountAllocations&) = delete;
  size_t count() const;    // so far
  size_t largest() const;  // the largest block asked for so far, bytes
};

// While an instance lives, this thread's allocations are not counted: for test code that runs
// inside a counted window but is not what is measured (the GL log of the tests' context, which
// records every driver message).
class UncountedAllocations {
 public:
  UncountedAllocations();
  ~UncountedAllocations();
  UncountedAllocations(const UncountedAllocations&) = delete;
  UncountedAllocations& operator=(const UncountedAllocations&) = delete;
};

}  // namespace vatkit::test

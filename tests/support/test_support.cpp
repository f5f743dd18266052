#include "test_support.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sys/wait.h>

namespace vatkit::test {

std::filesystem::path asset_path(const std::string& relative) {
  return std::filesystem::path(VATKIT_ASSETS_DIR) / relative;
}

std::vector<std::filesystem::path> all_assets() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(VATKIT_ASSETS_DIR)) {
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
  const auto base = dir / ("cmd" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string out_path = base.string() + ".out", err_path = base.string() + ".err";
  const std::string full = command_line + " >" + shell_quote(out_path) + " 2>" + shell_quote(err_path);
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

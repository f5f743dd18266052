// `vatkit view`'s refusals, each one line on stderr naming what is wrong, with nothing served: a
// missing file, a --web folder without the viewer or without three.js, a port in use. The web
// folders here are stand-ins with the two files the command looks for, so these checks need no
// npm install. A run that wrongly starts serving is ended by `timeout` and fails on its empty
// stderr. (tests/web/viewer.test.mjs drives the real viewer in a browser.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli_test_support.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using test::expect_one_error_line;
using test::shell_quote;
using test::vatkit_cli;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Whether this build's vatkit serves (a build without cpp-httplib, or against libc++, has a
// `view` that only says it cannot: that command's own test is below).
bool view_is_built() {
  static const bool built = vatkit_cli("view --help").out.find("not in this build") == std::string::npos;
  return built;
}

#define SKIP_WITHOUT_VIEW() \
  if (!view_is_built()) GTEST_SKIP() << "vatkit was built without the web viewer's server"

// A web folder with what `vatkit view` checks for: viewer/index.html and, unless `without_three`,
// node_modules/three/build/three.module.js.
fs::path stand_in_web(const fs::path& dir, bool without_three = false) {
  write_text(dir / "viewer" / "index.html", "<!doctype html>\n");
  if (!without_three) write_text(dir / "node_modules" / "three" / "build" / "three.module.js", "export {};\n");
  return dir;
}

// `vatkit view ARGUMENTS`, ended after 20 s if it starts serving.
CommandResult timed_view(const std::string& arguments) {
  return test::run_command("timeout 20 " + shell_quote(VATKIT_CLI) + " view " + arguments);
}

TEST(CliView, MissingFileIsOneLineNamingIt) {
  SKIP_WITHOUT_VIEW();
  const fs::path dir = test::scratch_dir("cli_view_missing");
  const fs::path web = stand_in_web(dir / "web");
  const fs::path missing = dir / "missing.vat.glb";
  const CommandResult r =
      timed_view(shell_quote(missing.string()) + " --web " + shell_quote(web.string()) + " --port 0");
  expect_one_error_line(r, missing.string() + ": cannot open", 1);
}

TEST(CliView, WebFolderWithoutTheViewerIsOneLine) {
  SKIP_WITHOUT_VIEW();
  const fs::path dir = test::scratch_dir("cli_view_web");
  fs::create_directories(dir / "empty");
  const CommandResult r = timed_view("--web " + shell_quote((dir / "empty").string()) + " --port 0");
  expect_one_error_line(r, (dir / "empty").string() + ": no web viewer here", 1);

  const fs::path no_three = stand_in_web(dir / "no_three", true);
  const CommandResult r2 = timed_view("--web " + shell_quote(no_three.string()) + " --port 0");
  expect_one_error_line(r2, "three.js is not installed", 1);
}

TEST(CliView, PortInUseIsOneLine) {
  SKIP_WITHOUT_VIEW();
  const fs::path dir = test::scratch_dir("cli_view_port");
  const fs::path web = stand_in_web(dir / "web");
  const fs::path vat = dir / "sample.vat.glb";
  ASSERT_EQ(vatkit_cli("bake -o " + shell_quote(vat.string()) + " --lods 0 --no-measure").exit_code, 0);

  // A socket of this process listening on 127.0.0.1 at a port the system picks.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string port = std::to_string(ntohs(address.sin_port));

  const CommandResult r =
      timed_view(shell_quote(vat.string()) + " --web " + shell_quote(web.string()) + " --port " + port);
  close(fd);
  expect_one_error_line(r, "cannot listen on 127.0.0.1:" + port, 1);
}

// Without the server, `view` is one line saying why, exit 1.
TEST(CliView, WithoutTheServerSaysSoInOneLine) {
  if (view_is_built()) GTEST_SKIP() << "this build serves (the tests above cover it)";
  const CommandResult r = vatkit_cli("view");
  expect_one_error_line(r, "built without the web viewer's server", 1);
}

}  // namespace
}  // namespace vatkit

// Running the `vatkit` command-line tool from the tests (tests/test_cli*.cpp, test_gl_crowd_cli.cpp):
// the binary of this build (VATKIT_CLI, set by tests/CMakeLists.txt) and the checks every error
// path shares.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "test_support.h"

namespace vatkit::test {

// `vatkit ARGUMENTS` through the shell, stdout and stderr captured.
inline CommandResult vatkit_cli(const std::string& arguments) {
  return run_command(shell_quote(VATKIT_CLI) + " " + arguments);
}

// The same for commands that open a GL context (render, bench). Under ASan, LeakSanitizer reports
// 112 bytes that Mesa's driver calloc()s and never frees, in a module unloaded by the time the
// report is made (so no suppression can name it): these runs turn leak checking off. The
// in-process GL tests keep it for our own code.
inline CommandResult vatkit_gl_cli(const std::string& arguments) {
  return run_command("ASAN_OPTIONS=detect_leaks=0:alloc_dealloc_mismatch=0 " + shell_quote(VATKIT_CLI) + " " +
                     arguments);
}

// `vatkit --help` names every command of `commands`, and `vatkit COMMAND --help` every text of its
// list (options, placeholders, defaults).
inline void expect_help_documents(const std::vector<std::string>& commands,
                                  const std::vector<std::pair<std::string, std::vector<std::string>>>& options) {
  const CommandResult help = vatkit_cli("--help");
  ASSERT_EQ(help.exit_code, 0);
  for (const std::string& command : commands) {
    EXPECT_NE(help.out.find(command), std::string::npos) << command;
  }
  for (const auto& [command, names] : options) {
    const CommandResult r = vatkit_cli(command + " --help");
    EXPECT_EQ(r.exit_code, 0) << command;
    for (const std::string& name : names) {
      EXPECT_NE(r.out.find(name), std::string::npos) << command << " --help lacks " << name;
    }
  }
}

// Bad input: a non-zero exit (exactly `exit_code` when given), one line on stderr,
// "vatkit: error: ..." naming `must_contain`, nothing on stdout (unless the command prints a report
// before failing, as `verify` over its tolerance does: `report_on_stdout`).
inline void expect_one_error_line(const CommandResult& r, const std::string& must_contain, int exit_code = -1,
                                  bool report_on_stdout = false) {
  if (exit_code >= 0) {
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
  } else {
    EXPECT_NE(r.exit_code, 0);
  }
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("vatkit: error: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << "missing \"" << must_contain << "\" in " << r.err;
  if (!report_on_stdout) {
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace vatkit::test

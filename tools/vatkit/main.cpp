// vatkit: bake glTF 2.0 animation into vertex animation textures. This file only wires the
// commands (cmd_*.cpp) to the command line and turns every failure into one line on stderr.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli.h"

#ifndef VATKIT_VERSION
#define VATKIT_VERSION "unknown"
#endif

namespace {

int run(int argc, char** argv) {
  using namespace vatkit::cli;
  vatkit::remove_temporaries_on_signals();  // an interrupted write leaves no temporary file
  CLI::App app("vatkit " VATKIT_VERSION
               ": bake glTF 2.0 animation into vertex animation textures (VATs).\n"
               "Every command that takes a FILE uses the built-in sample character when none is "
               "given.",
               "vatkit");
  app.set_version_flag("--version", "vatkit " VATKIT_VERSION);
  app.require_subcommand(1, 1);
  app.footer("Run 'vatkit COMMAND --help' for a command's options.");
  const std::vector<Command> commands = {add_sample_command(app), add_bake_command(app),  add_verify_command(app),
                                         add_info_command(app),   add_pose_command(app),  add_frame_command(app),
                                         add_render_command(app), add_bench_command(app), add_export_command(app),
                                         add_view_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    std::string message = e.what();
    std::string names;  // the commands, for the messages below
    for (const Command& c : commands) {
      names.append(names.empty() ? "" : ", ").append(c.app->get_name());
    }
    if (argc <= 1) {
      message = std::string("no command given: use one of ").append(names);
    } else if (argv[1][0] != '-' && std::none_of(commands.begin(), commands.end(),
                                                 [&](const Command& c) { return c.app->check_name(argv[1]); })) {
      message = std::string("unknown command '") + argv[1] + "': use one of " + names;
    }
    print_error(message + " (run 'vatkit --help')");
    return kExitUsage;
  }
  for (const Command& command : commands) {
    if (!command.app->parsed()) continue;
    vatkit::Result<void> result = command.run();
    if (!result) {
      print_error(result.error().message);
      return command.failure_exit ? command.failure_exit() : kExitError;
    }
    return kExitOk;
  }
  print_error("no command given (run 'vatkit --help')");
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using vatkit::cli::print_error;
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
  } catch (...) {
    print_error("internal error");
  }
  return vatkit::cli::kExitError;
}

// vatkit view in a build without cpp-httplib (or against libc++, which Debian's cpp-httplib was
// not built for): the command exists, and says why it cannot serve.
#include "cli.h"

namespace vatkit::cli {

Command add_view_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("view", "Serve the web viewer for a file (not in this build)");
  app->allow_extras();
  return {app, []() -> Result<void> {
            return make_error(ErrorCode::Unsupported, "view",
                              "this vatkit was built without the web viewer's server (cpp-httplib: install "
                              "libcpp-httplib-dev and rebuild)");
          }};
}

}  // namespace vatkit::cli

// vatkit export --to babylon: see export_targets.h.
#include "export_targets.h"

namespace vatkit::cli {

Result<void> export_babylon(const ExportOptions& options) {
  return make_error(ErrorCode::Unsupported, options.file.empty() ? "<sample>" : options.file,
                    "export to babylon is not written yet");
}

}  // namespace vatkit::cli

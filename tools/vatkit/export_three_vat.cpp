// vatkit export --to three-vat: see export_targets.h.
#include "export_targets.h"

namespace vatkit::cli {

Result<void> export_three_vat(const ExportOptions& options) {
  return make_error(ErrorCode::Unsupported, options.file.empty() ? "<sample>" : options.file,
                    "export to three-vat is not written yet");
}

}  // namespace vatkit::cli

// libFuzzer target for the glTF importer: any bytes (GLB or JSON) must give either an Asset that
// keeps every promise of asset.h or a one-line error that starts with the file name. Anything
// else (a crash, a sanitizer report, a broken invariant, a malformed message) aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../tests/asset_invariants.h"
#include "vatkit/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const vatkit::Result<vatkit::Asset> result = vatkit::import_gltf_memory({data, size}, "fuzz.glb");
  if (result.ok()) {
    const std::string violation = vatkit::test::asset_invariant_violation(*result);
    if (!violation.empty()) {
      std::fprintf(stderr, "imported asset breaks an invariant: %s\n", violation.c_str());
      std::abort();
    }
  } else {
    const std::string& message = result.error().message;
    if (message.rfind("fuzz.glb: ", 0) != 0 || message.find('\n') != std::string::npos) {
      std::fprintf(stderr, "malformed error message: %s\n", message.c_str());
      std::abort();
    }
  }
  return 0;
}

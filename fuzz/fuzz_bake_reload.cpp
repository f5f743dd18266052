// libFuzzer target for the writer against the loader: any bytes that import as glTF and bake
// (small, fast options: a low frame rate, levels of detail on, no measurement) must write a
// .vat.glb that load_vat_memory accepts. A bake may fail (with a one-line error naming the
// file); a write of a baked Vat may fail only for the documented 4 GiB limit of a GLB. Anything
// else (the writer producing bytes the loader refuses, a crash, a sanitizer report, a malformed
// message) aborts. Inputs whose bake would take more than milliseconds are skipped.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "vatkit/bake.h"
#include "vatkit/import.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", what, message.c_str());
  std::abort();
}

void check_one_line(const std::string& message) {
  if (message.rfind("fuzz.glb", 0) != 0 || message.find('\n') != std::string::npos)
    fail("malformed error message", message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const vatkit::Result<vatkit::Asset> asset = vatkit::import_gltf_memory({data, size}, "fuzz.glb");
  if (!asset.ok() || asset->animations.empty()) return 0;
  // Bound the work: vertices times rows (a clip's duration times the rate) over the first clips.
  constexpr float kFps = 4.0f;
  constexpr size_t kMaxClips = 3;
  if (asset->instance_vertex_count > 20000) return 0;
  vatkit::BakeOptions options;
  options.fps = kFps;
  options.measure = false;
  options.threads = 1;
  options.lods = 2;
  // Every encoding and precision, chosen by the input's size (the same input, the same bake).
  options.encoding = static_cast<vatkit::EncodingChoice>(size % 3);
  options.precision = static_cast<vatkit::Precision>(size / 3 % 3);
  double rows = 0.0;
  for (size_t i = 0; i < asset->animations.size() && i < kMaxClips; ++i) {
    options.clips.push_back("#" + std::to_string(i));
    rows += static_cast<double>(asset->animations[i].end_s) * kFps + 1.0;
  }
  if (rows * static_cast<double>(asset->instance_vertex_count + 1) > 2e5) return 0;

  const vatkit::Result<vatkit::Vat> vat = vatkit::bake(*asset, options);
  if (!vat.ok()) {
    check_one_line(vat.error().message);
    return 0;
  }
  const vatkit::Result<std::vector<uint8_t>> bytes = vatkit::write_vat_glb(*vat);
  if (!bytes.ok()) {
    const std::string& message = bytes.error().message;
    if (message.find("4 GiB") == std::string::npos) fail("a baked Vat does not write", message);
    return 0;
  }
  const vatkit::Result<vatkit::Vat> loaded = vatkit::load_vat_memory(*bytes, "fuzz.vat.glb");
  if (!loaded.ok()) fail("the loader refuses what the writer wrote", loaded.error().message);
  return 0;
}

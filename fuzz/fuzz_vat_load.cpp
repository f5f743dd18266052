// libFuzzer target for the .vat.glb loader (load_vat_memory). Seeds: fuzz/seeds/fuzz_vat_load/
// (small files the writer made; VatFile.FuzzSeedsAreCurrent keeps them loadable).
//
// Each input is loaded twice: as it is (the container and checksum checks must refuse it or
// accept it, never crash or read out of bounds), and with its checksum re-sealed, because a
// mutated file almost never matches its checksum and the validation behind it would otherwise
// go unfuzzed. Whatever loads must then satisfy the loader's promises:
//  - every plane byte is readable (ASan checks the spans lie inside the input);
//  - validate_vat accepts it, so the writer can store it;
//  - the written file loads, and writing what it loads gives the same bytes (write is a
//    fixed point after one round).
// A broken promise aborts, which libFuzzer reports as a crash with its input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "../core/src/vat_file_internal.h"
#include "vatkit/vat_file.h"

namespace {

[[noreturn]] void broken(const char* promise, const std::string& detail) {
  std::fprintf(stderr, "fuzz_vat_load: %s: %s\n", promise, detail.c_str());
  std::abort();
}

void check_loaded(const vatkit::Vat& vat) {
  unsigned sum = 0;
  for (const vatkit::Plane& p : vat.planes) {
    if (p.data.size() != p.byte_size()) broken("plane size", std::to_string(p.data.size()));
    if (reinterpret_cast<uintptr_t>(p.data.data()) % 16 != 0) broken("plane alignment", "");
    for (uint8_t b : p.data) sum += b;
  }
  volatile unsigned sink = sum;
  (void)sink;

  const vatkit::Result<void> valid = vatkit::validate_vat(vat);
  if (!valid) broken("validate_vat refused a loaded Vat", valid.error().message);
  const vatkit::Result<std::vector<uint8_t>> written = vatkit::write_vat_glb(vat);
  if (!written) broken("write_vat_glb refused a loaded Vat", written.error().message);
  const vatkit::Result<vatkit::Vat> reloaded = vatkit::load_vat_memory(*written, "rewritten");
  if (!reloaded) broken("a written file did not load", reloaded.error().message);
  const vatkit::Result<std::vector<uint8_t>> again = vatkit::write_vat_glb(*reloaded);
  if (!again || *again != *written) broken("writing is not a fixed point", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (vatkit::Result<vatkit::Vat> as_is = vatkit::load_vat_memory(bytes, "fuzz")) check_loaded(*as_is);

  std::vector<uint8_t> sealed(data, data + size);
  if (vatkit::vat_file_detail::reseal_checksum(sealed)) {
    if (vatkit::Result<vatkit::Vat> r = vatkit::load_vat_memory(sealed, "fuzz")) check_loaded(*r);
  }
  return 0;
}

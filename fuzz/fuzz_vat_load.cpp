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
//    fixed point after one round);
//  - what commands do per clip and per source is bounded by the file: the clips' rows add up to
//    at most frameRows, the sources' vertices to at most the vertex count;
//  - decoding every clip never crashes, whatever bits the planes hold (a NaN pose is allowed).
// A broken promise aborts, which libFuzzer reports as a crash with its input.
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <span>
#include <vector>

#include "file/checksum.h"
#include "vatkit/decode.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

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

  uint64_t rows = 0, vertices = 0;
  for (const vatkit::VatClip& c : vat.clips) rows += c.rows;
  if (rows > vat.frame_rows) broken("clip bands overlap", std::to_string(rows) + " rows");
  for (const vatkit::SourceRange& s : vat.geometry.sources) vertices += s.vertex_count;
  if (vertices > vat.geometry.vertex_count()) broken("source ranges overlap", std::to_string(vertices) + " vertices");
  const size_t n = std::min<size_t>(vat.geometry.vertex_count(), 16);
  std::vector<glm::vec3> positions(n), normals(n);
  std::vector<glm::vec4> tangents(n);
  for (uint32_t c = 0; c < vat.clips.size(); ++c) {
    vatkit::decode_vertices(vat, vatkit::single(vatkit::clip_rows_at(vat, c, 0.5f * vat.clips[c].duration_s)), 0,
                            positions, normals, tangents);
    for (const glm::vec3& p : positions) sum += p.x == p.x;
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

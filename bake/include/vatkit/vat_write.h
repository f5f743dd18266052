// vatkit/vat_write.h: writing the .vat.glb file (vatkit/vat_file.h describes it and reads it).
// Saving is atomic: the file appears complete or not at all. Cost: O(file size); write_vat_glb
// allocates the whole file, write_vat and save_vat block on I/O. Thread-safe for a const Vat.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "vatkit/file_io.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"
#include "vatkit/vat_file.h"

namespace vatkit {

// The file's bytes. Deterministic: the same Vat gives the same bytes (Vat::source and
// Vat::storage are not stored). Fails when validate_vat does, or when the file would exceed the
// 4 GiB a GLB can hold. Draw groups with no indices are not stored (a glTF primitive cannot be
// empty).
Result<std::vector<uint8_t>> write_vat_glb(const Vat& vat);

// write_vat_glb's bytes written into `out` (not committed: the caller commits when the rest of
// its work succeeded). Fails, naming `out`'s path, as write_vat_glb or the write does.
Result<void> write_vat(const Vat& vat, OutputFile& out, const std::string& name);

// write_vat into an OutputFile (file_io.h), committed: the file appears complete or not at all,
// and a failure leaves neither it nor a temporary behind.
Result<void> save_vat(const Vat& vat, const std::filesystem::path& path);

}  // namespace vatkit

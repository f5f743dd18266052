// vatkit/vat_file.h: the .vat.glb file, a valid glTF 2.0 binary that any viewer shows as the
// rest-pose mesh with its materials, plus the vendor extension VATKIT_vertex_animation carrying
// the encoding, the clip table, the bounds, the slots and the planes (16-byte-aligned buffer
// views), and a content checksum. The format is specified in docs/format.md and versioned
// separately from the library (kVatFormatVersion).
//
// Saving is atomic: the file appears complete or not at all. Loading maps the file and validates
// the version, every size and offset, and the checksum before anything reads a plane; the planes
// of the returned Vat point into the mapping (no copy), which the Vat keeps alive.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

inline constexpr uint32_t kVatFormatVersion = 1;
inline constexpr const char* kVatExtensionName = "VATKIT_vertex_animation";

// The file's bytes (deterministic: the same Vat gives the same bytes).
std::vector<uint8_t> write_vat_glb(const Vat& vat);

// Writes atomically (temporary file in the same directory, then rename).
Result<void> save_vat(const Vat& vat, const std::filesystem::path& path);

// Maps and validates a .vat.glb.
Result<Vat> load_vat(const std::filesystem::path& path);

// Validates bytes held in memory; the returned Vat copies nothing and points into `bytes`, which
// `keep_alive` (may be null if the caller guarantees the lifetime) must own.
Result<Vat> load_vat_memory(std::span<const uint8_t> bytes, const std::string& name,
                            std::shared_ptr<const void> keep_alive = nullptr);

// True when `path` is a GLB whose JSON declares the VATKIT_vertex_animation extension (reads the
// header and JSON chunk only).
bool is_vat_file(const std::filesystem::path& path);

}  // namespace vatkit

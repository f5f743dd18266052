// vatkit/vat_file.h: the .vat.glb file, a valid glTF 2.0 binary that any viewer shows as the
// rest-pose mesh with its materials, plus the vendor extension VATKIT_vertex_animation carrying
// the encoding, the clip table, the bounds, the slots and the planes (16-byte-aligned buffer
// views), and a content checksum. The format is specified in docs/format.md and versioned
// separately from the library (kVatFormatVersion).
//
// Writing is the baker's (vatkit/vat_write.h). Loading reads the file into memory
// the returned Vat owns and validates the checksum, the version, every size, offset and range
// before anything reads a plane; the planes point into those bytes (no further copy). What a
// loaded Vat holds is bounded by the file: no two objects share bytes, the clips' bands and the
// sources' vertex ranges are disjoint (docs/format.md, "What a loader must validate").
//
// Texel addresses (format version 3): a delta file's vertices carry the `_VAT_VERTEX` attribute,
// the texel column each vertex reads (a float, exact below 2^24), so that an engine that welds,
// splits or reorders the vertices on import still decodes them. The loader checks that the
// attribute is a permutation of 0..V-1 and, where it is not the identity (a tool reordered the
// vertices), reorders every vertex attribute and remaps every index buffer (the levels of detail
// too) into texel order: a loaded Vat always keeps "vertex i reads texel i", so decode_vertices
// and every CPU path take the vertex index as the address. texel_addresses() gives the attribute
// a renderer uploads. Versions 1 and 2 have no attribute: the address is the vertex index.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vatkit/file_io.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

// The version this vatkit writes, and the oldest it reads (docs/format.md, "Versioning"): version
// 2 added each clip's measured error (VatClip::accuracy); a version-1 file loads without it.
// Version 3 added each delta vertex's texel address (kVatVertexAttribute); versions 1 and 2 load
// with the vertex index as the address. Version 4 added each clip's named events
// (VatClip::events); older files load with none. Version 5 added each clip's root motion
// (VatClip::root_motion); older files load with none.
inline constexpr uint32_t kVatFormatVersion = 5;
inline constexpr uint32_t kVatOldestFormatVersion = 1;
inline constexpr const char* kVatExtensionName = "VATKIT_vertex_animation";
// The glTF vertex attribute of a delta file (version 3) holding each vertex's texel column:
// SCALAR, FLOAT (every index below 2^24 is exact; every engine's glTF importer reads float
// attributes). A shader passes int(attribute) as vat_decode's `vertex`, never gl_VertexID.
inline constexpr const char* kVatVertexAttribute = "_VAT_VERTEX";
// Texel addresses hold at most this many vertices (floats are exact integers below it).
inline constexpr uint32_t kVatMaxAddressedVertices = 1u << 24;

// Checks that `vat` is internally consistent and can be stored: what write_vat_glb requires and
// what load_vat guarantees. Clip bands inside frame_rows and sharing no row; every plane's width,
// rows_per_frame, height and byte size agree with frame_rows and texels_per_frame (vertex count,
// or 2 * slots); geometry arrays empty or one element per vertex; indices, slot indices, draw
// groups and materials' images in range; source ranges in range, of at least one vertex, disjoint
// and in vertex order; every float finite (plane texels excepted: any bits decode, possibly to a
// non-finite pose, which vatkit's commands report). Errors name vat.source and the object,
// e.g. "bake: planes[1] (normal): data has 4096 bytes, width * height * 16 = 8192".
// Cost: O(vertices + indices + clips + slots); plane texels are not read. Thread-safe (const).
Result<void> validate_vat(const Vat& vat);

// Reads the whole file (file_io.h, read_file) and validates it as load_vat_memory does; the
// returned Vat's planes point into the bytes read, which Vat::storage owns. The file is not kept
// open or mapped: another process may change, shorten or remove it while the Vat is in use.
// Errors: those of read_file and of load_vat_memory. Blocks on file I/O; allocates the file's size
// (plus the geometry copies); O(file size), on the calling thread; safe to call concurrently.
Result<Vat> load_vat(const std::filesystem::path& path);

// Validates a .vat.glb held in memory: the GLB container, the checksum (before anything else is
// read), the extension's version, then every size, offset, alignment, count, type and index; the
// data of the objects read (attributes, index buffer, images, levels of detail, planes) must not
// overlap, clip bands must not share rows, and source ranges are disjoint and in vertex order,
// so the work any command does on a loaded Vat is bounded by the file's size. A version-3 delta
// file's `_VAT_VERTEX` must be a permutation of the vertices; where it is not the identity, the
// geometry is reordered into texel order (every attribute, every index buffer, the levels' too).
// The geometry, materials and images are copied into the Vat; the planes point into `bytes`,
// which `keep_alive` (may be null if the caller guarantees the lifetime) must own. When
// `bytes.data()` is not 16-byte aligned the bytes are first copied into an aligned buffer that
// the Vat owns (planes must be 16-byte aligned). Errors are one line naming `name` and the
// object, e.g. "a.vat.glb: extensions.VATKIT_vertex_animation.planes[1].height: 96, expected
// rowsPerFrame * frameRows = 64".
Result<Vat> load_vat_memory(std::span<const uint8_t> bytes, const std::string& name,
                            std::shared_ptr<const void> keep_alive = nullptr);

// The `_VAT_VERTEX` values of `vat`'s vertices, in its vertex order: the texel column each vertex
// reads, 0..V-1 (a Vat, loaded or baked, is in texel order), as the floats the file stores and a
// renderer uploads as a vertex attribute. Empty for the rig encoding, whose decode reads each
// vertex's own slots and weights (attributes that any reordering carries along).
std::vector<float> texel_addresses(const Vat& vat);

// True when `path` is a GLB whose JSON declares the VATKIT_vertex_animation extension (reads the
// header and JSON chunk only; says nothing about the file's validity). Any read error gives false.
bool is_vat_file(const std::filesystem::path& path);

}  // namespace vatkit

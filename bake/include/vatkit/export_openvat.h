// vatkit/export_openvat.h: a VAT in the files OpenVAT (a Blender add-on) writes for its engine
// decoders, so that those play vatkit's bakes. docs/openvat.md has the convention as read
// from OpenVAT's sources and every choice made here.
//
// What is written (one texture, "packed" normals, RGB: PNG at 16 bits per channel, or OpenEXR at
// half floats):
//  - Frames: every frame row of the Vat (all clips, in band order), F = Vat::frame_rows.
//  - Texture W x H, both powers of two (openvat_layout). Vertex i is column i % W of wrap block
//    b = i / W; frame f of it is image row b * F + f (rows counted from the top of the image, the
//    glTF texture-coordinate origin). Its normal is at the same column, image row H / 2 + b * F + f.
//  - Position texel: the offset from the rest position in Blender's axes (x, -z, y of the glTF
//    y-up offset), each channel c stored as q = round(65535 * (c - Min[c]) / (Max[c] - Min[c])),
//    Min and Max the sidecar's "os-remap" bounds (the offsets' bounds rounded outward to 0.1);
//    in EXR the remapped value (c - Min[c]) / (Max[c] - Min[c]) itself, rounded to half.
//  - Normal texel: the normal in Blender's axes, stored as n * 0.5 + 0.5 (PNG: times 65535, rounded).
//  - Mesh: a .glb of the rest pose (glTF axes) whose TEXCOORD_1 addresses vertex i's texel of
//    frame 0, u = (i % W + 0.5) / W, v = ((i / W) * F + 0.5) / H; TEXCOORD_0 keeps the source's
//    texture coordinates (zeros when it had none). Materials are not written.
//  - Sidecar JSON: "os-remap" {Min, Max, Frames}, "animations" {name: {startFrame, endFrame,
//    framerate, looping}} (frames are 0-based texture frames, inclusive), and "vatkit" (layout
//    and the mesh's source ranges, for tools and tests).
//
// Any encoding and precision exports: positions and normals are decoded (decode_vertices) row by
// row. Cost: O(frames x vertices) time and 12 bytes per texel of memory. Thread-safe (reads the
// Vat only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

// The texture OpenVAT's packed layout needs for `vertices` x `frames`: W and H powers of two,
// W in [64, max_size], wraps = ceil(vertices / W), H = the power of two >= 2 * wraps * frames.
// Among the layouts with |log2 W - log2 H| <= 1 (OpenVAT's "near square") the smallest area wins,
// ties to the narrower; when none is near square, the smallest area with H <= max_size.
struct OpenVatLayout {
  uint32_t width = 0, height = 0;
  uint32_t wraps = 0;   // texture row blocks the vertices take
  uint32_t frames = 0;  // F
};
// Fails (ErrorCode::Limit, naming `source`) when no layout fits in max_size x max_size.
Result<OpenVatLayout> openvat_layout(uint32_t vertices, uint32_t frames, uint32_t max_size, const std::string& source);

// The texture's file format. OpenVAT's "PNG16" and "EXR16" (ZIP-compressed, as OpenVAT writes it).
enum class OpenVatImage : uint8_t { Png16, Exr16 };

struct OpenVatOptions {
  OpenVatImage image = OpenVatImage::Png16;
  uint32_t max_texture_size = 8192;  // OpenVAT's largest width
  std::string texture_name;          // the texture's file name, as the sidecar names it
  std::string mesh_name;             // the mesh's file name, as the sidecar names it
};

struct OpenVatExport {
  OpenVatLayout layout;
  glm::vec3 remap_min{0.0f}, remap_max{0.0f};  // Blender axes
  float position_error = 0.0f;                 // the largest distance quantization moved a vertex (file units)
  float normal_error_deg = 0.0f;
  std::vector<uint8_t> texture;  // the PNG or EXR file's bytes
  std::vector<uint8_t> mesh_glb;
  std::string sidecar_json;
};

// Fails, naming vat.source, when the Vat has no clip or no vertex, or no layout fits.
Result<OpenVatExport> export_openvat(const Vat& vat, const OpenVatOptions& options);

// A 16-bit RGB PNG (libpng, no row filters, zlib level 6) of `width` x `height` texels,
// `rgb` holding 3 values a texel, rows from the top. Fails, naming `source`, when libpng does.
Result<std::vector<uint8_t>> encode_png_rgb16(const std::vector<uint16_t>& rgb, uint32_t width, uint32_t height,
                                              const std::string& source);

// A half-float RGB OpenEXR file (OpenEXR's library, ZIP compression) of `width` x `height`
// texels, `rgb` holding 3 values a texel (rounded to half), rows from the top. Fails, naming
// `source`, when OpenEXR does.
Result<std::vector<uint8_t>> encode_exr_rgb_half(const std::vector<float>& rgb, uint32_t width, uint32_t height,
                                                 const std::string& source);

}  // namespace vatkit

// vatkit/gl/image.h: 8-bit images in memory and as PNG files.
//
// Rows run top to bottom (the first row is the top of the picture, as in PNG files; render
// target readback flips GL's bottom-up rows to match), channels are interleaved 8-bit values:
// 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
//
// PNG writing uses libpng with a selectable zlib level: 0 stores (fastest, largest), 9 squeezes
// hardest; levels 1-3 use the cheap SUB row filter, 4-9 libpng's adaptive filtering. Encoding a
// large image at level 6 costs far more than rendering it on a GPU: benchmarks that write images
// should use level 1 or 0. Files are written atomically (file_io.h's
// write_file_atomic: a temporary beside the file, fsync, rename), so a reader never sees half a
// PNG and a failed write leaves nothing behind. Needs no GL context; thread-safe; O(pixels).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "vatkit/result.h"

namespace vatkit::gl {

// A view of pixels owned elsewhere. row_stride_bytes 0 means tightly packed rows.
struct ImageView {
  const uint8_t* pixels = nullptr;
  int width = 0;
  int height = 0;
  int channels = 4;
  size_t row_stride_bytes = 0;

  size_t stride() const { return row_stride_bytes ? row_stride_bytes : size_t(width) * size_t(channels); }
};

struct Image {
  int width = 0;
  int height = 0;
  int channels = 4;
  std::vector<uint8_t> pixels;  // width * height * channels, tightly packed, top row first

  ImageView view() const { return {pixels.data(), width, height, channels, 0}; }
  const uint8_t* at(int x, int y) const {
    return pixels.data() + (size_t(y) * size_t(width) + size_t(x)) * size_t(channels);
  }
};

struct PngOptions {
  int compression_level = 6;  // zlib level, 0..9 (see above)
};

// The PNG file's bytes. Errors: an empty or inconsistent view, a level outside 0..9.
Result<std::vector<uint8_t>> encode_png(const ImageView& image, const PngOptions& options = {});
// encode_png, then write_file_atomic. Errors name the path.
Result<void> write_png(const std::filesystem::path& path, const ImageView& image, const PngOptions& options = {});

// Decodes a PNG to 8-bit channels, keeping the file's channel count (palettes become RGB or
// RGBA; 16-bit samples are reduced by libpng). `name` prefixes errors.
Result<Image> decode_png(std::span<const uint8_t> bytes, const std::string& name = "PNG");
Result<Image> read_png(const std::filesystem::path& path);

}  // namespace vatkit::gl

// PNG through libpng: the full write API (for the zlib level and filters), the simplified read
// API. libpng reports errors by longjmp; encode_rows() keeps everything that has a destructor
// outside the jump's reach, so the jump skips no C++ cleanup.
#include "vatkit/gl/image.h"

#include <csetjmp>
#include <cstring>

#include <png.h>

#include "vatkit/file_io.h"

namespace vatkit::gl {
namespace {

struct WriteContext {
  std::vector<uint8_t>* out = nullptr;
  char error[256] = {};  // libpng's message when it gave up
  bool out_of_memory = false;
};

void on_write(png_structp png, png_bytep data, size_t length) {
  auto* context = static_cast<WriteContext*>(png_get_io_ptr(png));
  try {
    context->out->insert(context->out->end(), data, data + length);
  } catch (...) {
    context->out_of_memory = true;
    png_error(png, "out of memory");
  }
}

void on_flush(png_structp) {}

void on_error(png_structp png, png_const_charp message) {
  auto* context = static_cast<WriteContext*>(png_get_error_ptr(png));
  std::strncpy(context->error, message ? message : "unknown libpng error", sizeof(context->error) - 1);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

int color_type(int channels) {
  switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 2: return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3: return PNG_COLOR_TYPE_RGB;
    default: return PNG_COLOR_TYPE_RGBA;
  }
}

// Returns false with context.error set on failure. Only trivially destructible locals live
// across setjmp.
bool encode_rows(WriteContext& context, const ImageView& image, int level, png_bytepp rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, on_error, on_warning);
  if (!png) {
    std::strncpy(context.error, "cannot create the libpng writer", sizeof(context.error) - 1);
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    std::strncpy(context.error, "cannot create the libpng info", sizeof(context.error) - 1);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &context, on_write, on_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               color_type(image.channels), PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, level);
  if (level == 0) {
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  } else if (level <= 3) {
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  }
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

Result<std::vector<uint8_t>> encode_png(const ImageView& image, const PngOptions& options) {
  if (!image.pixels || image.width <= 0 || image.height <= 0)
    return make_error(ErrorCode::Argument, "PNG",
                      "empty image (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ")");
  if (image.channels < 1 || image.channels > 4)
    return make_error(ErrorCode::Argument, "PNG",
                      "cannot store " + std::to_string(image.channels) + " channels (1 to 4)");
  if (image.stride() < size_t(image.width) * size_t(image.channels))
    return make_error(ErrorCode::Argument, "PNG",
                      "row stride " + std::to_string(image.stride()) + " is shorter than a row");
  if (options.compression_level < 0 || options.compression_level > 9)
    return make_error(ErrorCode::Argument, "PNG",
                      "compression level " + std::to_string(options.compression_level) + " is not in 0..9");

  std::vector<png_bytep> rows(static_cast<size_t>(image.height));
  for (size_t y = 0; y < rows.size(); ++y)
    rows[y] = const_cast<png_bytep>(image.pixels + y * image.stride());  // libpng only reads them
  std::vector<uint8_t> out;
  // A rough guess that saves most reallocations on typical renders.
  out.reserve(size_t(image.width) * size_t(image.height) * size_t(image.channels) / 4 + 1024);
  WriteContext context;
  context.out = &out;
  if (!encode_rows(context, image, options.compression_level, rows.data()))
    return make_error(ErrorCode::Io, "PNG", std::string("libpng: ") + context.error);
  return out;
}

Result<void> write_png(const std::filesystem::path& path, const ImageView& image, const PngOptions& options) {
  Result<std::vector<uint8_t>> bytes = encode_png(image, options);
  if (!bytes) return make_error(bytes.error().code, path.string(), bytes.error().message);
  return write_file_atomic(path, *bytes);
}

Result<Image> decode_png(std::span<const uint8_t> bytes, const std::string& name) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    return make_error(ErrorCode::Parse, name, std::string("not a readable PNG (libpng: ") + png.message + ")");
  // Keep the channels the file has, as 8-bit values; expand palettes.
  png.format &= ~(PNG_FORMAT_FLAG_LINEAR | PNG_FORMAT_FLAG_COLORMAP);
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.channels = static_cast<int>(PNG_IMAGE_PIXEL_CHANNELS(png.format));
  image.pixels.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr)) {
    const std::string message = png.message;
    png_image_free(&png);
    return make_error(ErrorCode::Parse, name, "corrupt PNG (libpng: " + message + ")");
  }
  return image;
}

Result<Image> read_png(const std::filesystem::path& path) {
  Result<std::vector<uint8_t>> bytes = read_file(path);
  if (!bytes) return bytes.error();
  return decode_png(*bytes, path.string());
}

}  // namespace vatkit::gl

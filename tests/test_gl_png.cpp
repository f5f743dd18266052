// PNG writing (vatkit::gl::write_png) checked against libpng's own simplified reader, at several
// compression levels and channel counts, plus atomicity and errors. Needs no GL context.
#include <gtest/gtest.h>

#include <png.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "test_support.h"
#include "vatkit/gl/image.h"

namespace vatkit {
namespace {

// An image with gradients (compressible) and noise (not), odd sizes so rows are not aligned.
gl::Image pattern(int width, int height, int channels, unsigned seed) {
  gl::Image image;
  image.width = width;
  image.height = height;
  image.channels = channels;
  image.pixels.resize(size_t(width) * size_t(height) * size_t(channels));
  std::mt19937 random(seed);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = image.pixels.data() + (size_t(y) * size_t(width) + size_t(x)) * size_t(channels);
      for (int c = 0; c < channels; ++c) {
        p[c] = (x + y) % 3 == 0 ? uint8_t(random()) : uint8_t(x * 3 + y * 5 + c * 60);
      }
    }
  }
  return image;
}

// libpng's simplified API, as an independent reader: the file's pixels in the given format.
std::vector<uint8_t> libpng_read(const std::filesystem::path& path, int& width, int& height, int& channels) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) {
    ADD_FAILURE() << "libpng cannot open " << path << ": " << png.message;
    return {};
  }
  width = int(png.width);
  height = int(png.height);
  channels = int(PNG_IMAGE_PIXEL_CHANNELS(png.format));
  std::vector<uint8_t> pixels(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, pixels.data(), 0, nullptr)) {
    ADD_FAILURE() << "libpng cannot decode " << path << ": " << png.message;
    return {};
  }
  return pixels;
}

TEST(GlPng, RoundTripThroughLibpngAtEachLevelAndChannelCount) {
  const auto dir = test::scratch_dir("gl_png_round_trip");
  for (int channels = 1; channels <= 4; ++channels) {
    const gl::Image image = pattern(67, 45, channels, 1234u + unsigned(channels));
    uintmax_t size_level0 = 0, size_level9 = 0;
    for (int level : {0, 1, 6, 9}) {
      std::string name = "c";  // appends: g++ 12 warns falsely (-Wrestrict) on operator+ chains
      name.append(std::to_string(channels)).append("_l").append(std::to_string(level)).append(".png");
      const auto path = dir / name;
      const Result<void> written = gl::write_png(path, image.view(), {level});
      ASSERT_TRUE(written.ok()) << written.error().message;
      int width = 0, height = 0, read_channels = 0;
      const std::vector<uint8_t> pixels = libpng_read(path, width, height, read_channels);
      EXPECT_EQ(width, 67);
      EXPECT_EQ(height, 45);
      EXPECT_EQ(read_channels, channels);
      EXPECT_EQ(pixels, image.pixels) << "channels " << channels << " level " << level;
      const Result<gl::Image> ours = gl::read_png(path);
      ASSERT_TRUE(ours.ok()) << ours.error().message;
      EXPECT_EQ(ours->channels, channels);
      EXPECT_EQ(ours->pixels, image.pixels);
      if (level == 0) size_level0 = std::filesystem::file_size(path);
      if (level == 9) size_level9 = std::filesystem::file_size(path);
    }
    // Level 0 stores: at least the raw bytes. Level 9 compresses the gradients.
    EXPECT_GE(size_level0, image.pixels.size());
    EXPECT_LT(size_level9, size_level0);
  }
}

TEST(GlPng, RowStrideIsHonoured) {
  // A 5x3 RGB view inside rows of 20 bytes (5 padding bytes each, set to garbage).
  std::vector<uint8_t> memory(20 * 3, 0xEE);
  gl::Image want;
  want.width = 5;
  want.height = 3;
  want.channels = 3;
  for (int y = 0; y < 3; ++y) {
    for (int i = 0; i < 15; ++i) {
      memory[size_t(y) * 20 + size_t(i)] = uint8_t(y * 40 + i);
      want.pixels.push_back(uint8_t(y * 40 + i));
    }
  }
  const Result<std::vector<uint8_t>> bytes = gl::encode_png({memory.data(), 5, 3, 3, 20});
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  const Result<gl::Image> decoded = gl::decode_png(*bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(decoded->pixels, want.pixels);
}

TEST(GlPng, WritesAreAtomicAndErrorsNameThePath) {
  const auto dir = test::scratch_dir("gl_png_atomic");
  const auto path = dir / "frame.png";
  const gl::Image first = pattern(16, 16, 4, 1);
  const gl::Image second = pattern(16, 16, 4, 2);
  ASSERT_TRUE(gl::write_png(path, first.view()).ok());
  ASSERT_TRUE(gl::write_png(path, second.view()).ok());  // replaces it
  const Result<gl::Image> read = gl::read_png(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->pixels, second.pixels);
  // Nothing but the file itself is left in the directory (no temporaries).
  size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++entries;
    EXPECT_EQ(entry.path().filename(), "frame.png");
  }
  EXPECT_EQ(entries, 1u);

  const auto missing = dir / "no_such_dir" / "x.png";
  const Result<void> failed = gl::write_png(missing, first.view());
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find(missing.string()), std::string::npos) << failed.error().message;
  EXPECT_FALSE(std::filesystem::exists(dir / "no_such_dir"));
}

TEST(GlPng, BadInputIsAnError) {
  const gl::Image image = pattern(4, 4, 4, 3);
  EXPECT_FALSE(gl::encode_png(image.view(), {10}).ok());
  EXPECT_FALSE(gl::encode_png(image.view(), {-1}).ok());
  EXPECT_FALSE(gl::encode_png({image.pixels.data(), 4, 4, 5, 0}).ok());
  EXPECT_FALSE(gl::encode_png({nullptr, 4, 4, 4, 0}).ok());
  EXPECT_FALSE(gl::encode_png({image.pixels.data(), 4, 4, 4, 8}).ok());  // stride < row

  const Result<std::vector<uint8_t>> bytes = gl::encode_png(image.view());
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> truncated(bytes->begin(), bytes->begin() + long(bytes->size() / 2));
  const Result<gl::Image> decoded = gl::decode_png(truncated, "half.png");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().message.rfind("half.png: ", 0), 0u) << decoded.error().message;
  const std::vector<uint8_t> garbage = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_FALSE(gl::decode_png(garbage).ok());
  EXPECT_FALSE(gl::read_png("/nonexistent/vatkit.png").ok());
}

}  // namespace
}  // namespace vatkit

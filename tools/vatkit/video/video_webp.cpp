// Animated WebP through libwebp's WebPAnimEncoder (libwebpmux): each frame imported as RGBA,
// encoded lossy or lossless, stamped with its start time in whole milliseconds.
#include <climits>
#include <cmath>

#include "video.h"

#include <webp/encode.h>
#include <webp/mux.h>

namespace vatkit::cli {
namespace {

constexpr int kMaxWebpSide = 16383;     // WEBP_MAX_DIMENSION
constexpr double kMaxWebpFps = 1000.0;  // frame times are whole milliseconds
constexpr double kMinWebpFps = 0.001;   // a frame's duration fits WebP's 24 bits of milliseconds

class WebpWriter final : public VideoWriter {
 public:
  WebpWriter(std::string path, const VideoOptions& options) : path_(std::move(path)), options_(options) {}
  ~WebpWriter() override { WebPAnimEncoderDelete(encoder_); }
  Result<void> start(int width, int height);
  Result<void> add_frame(const gl::ImageView& rgba) override;
  Result<std::vector<uint8_t>> finish() override;

 private:
  // The start of frame k in milliseconds, or -1 past what an int holds.
  int64_t timestamp_ms(int64_t k) const {
    const double ms = std::round(double(k) * 1000.0 / options_.fps);
    return ms <= double(INT_MAX) ? int64_t(ms) : -1;
  }
  Error failure(const std::string& what) const {
    const char* reason = encoder_ ? WebPAnimEncoderGetError(encoder_) : nullptr;
    return make_error(ErrorCode::Io, path_,
                      what + (reason && *reason ? std::string(" (libwebp: ") + reason + ")" : ""));
  }

  std::string path_;
  VideoOptions options_;
  WebPConfig config_{};
  WebPAnimEncoder* encoder_ = nullptr;
  int64_t frames_ = 0;
};

Result<void> WebpWriter::start(int width, int height) {
  if (width > kMaxWebpSide || height > kMaxWebpSide) {
    return make_error(ErrorCode::Limit, path_,
                      "WebP holds at most " + std::to_string(kMaxWebpSide) + " pixels a side, not " +
                          std::to_string(width) + "x" + std::to_string(height) + " (--size)");
  }
  if (options_.fps > kMaxWebpFps || options_.fps < kMinWebpFps) {
    return make_error(ErrorCode::Argument, path_,
                      "WebP frames last whole milliseconds: --fps must be from 0.001 to 1000 for .webp");
  }
  if (options_.quality < 0 || options_.quality > 100) {
    return make_error(ErrorCode::Argument, path_, "--quality must be 0 to 100");
  }
  if (!WebPConfigInit(&config_)) return make_error(ErrorCode::Io, path_, "libwebp version mismatch");
  config_.lossless = options_.lossless ? 1 : 0;
  config_.quality = float(options_.quality);
  config_.exact = options_.lossless ? 1 : 0;  // lossless keeps every RGBA value as rendered
  if (!WebPValidateConfig(&config_)) return make_error(ErrorCode::Argument, path_, "libwebp refused the settings");
  WebPAnimEncoderOptions anim;
  if (!WebPAnimEncoderOptionsInit(&anim)) return make_error(ErrorCode::Io, path_, "libwebp version mismatch");
  anim.anim_params.loop_count = 0;  // forever
  encoder_ = WebPAnimEncoderNew(width, height, &anim);
  if (!encoder_) return make_error(ErrorCode::Io, path_, "libwebp cannot start an animation (out of memory?)");
  return {};
}

Result<void> WebpWriter::add_frame(const gl::ImageView& rgba) {
  const int64_t timestamp = timestamp_ms(frames_);
  if (timestamp < 0) return make_error(ErrorCode::Limit, path_, "the animation is longer than 2^31 ms");
  WebPPicture picture;
  if (!WebPPictureInit(&picture)) return make_error(ErrorCode::Io, path_, "libwebp version mismatch");
  picture.use_argb = 1;
  picture.width = rgba.width;
  picture.height = rgba.height;
  if (!WebPPictureImportRGBA(&picture, rgba.pixels, int(rgba.stride()))) {
    WebPPictureFree(&picture);
    return make_error(ErrorCode::Io, path_, "libwebp cannot import frame " + std::to_string(frames_));
  }
  const bool added = WebPAnimEncoderAdd(encoder_, &picture, int(timestamp), &config_) != 0;
  WebPPictureFree(&picture);
  if (!added) return failure("cannot encode frame " + std::to_string(frames_));
  ++frames_;
  return {};
}

Result<std::vector<uint8_t>> WebpWriter::finish() {
  // The end time closes the last frame: its duration is end - its start.
  const int64_t end = timestamp_ms(frames_);
  if (end < 0) return make_error(ErrorCode::Limit, path_, "the animation is longer than 2^31 ms");
  if (!WebPAnimEncoderAdd(encoder_, nullptr, int(end), nullptr)) return failure("cannot end the animation");
  WebPData data;
  WebPDataInit(&data);
  if (!WebPAnimEncoderAssemble(encoder_, &data)) return failure("cannot assemble the animation");
  std::vector<uint8_t> bytes(data.bytes, data.bytes + data.size);
  WebPDataClear(&data);
  return bytes;
}

}  // namespace

Result<std::unique_ptr<VideoWriter>> open_webp(const std::string& path, int width, int height,
                                               const VideoOptions& options) {
  auto writer = std::make_unique<WebpWriter>(path, options);
  if (auto ok = writer->start(width, height); !ok) return ok.error();
  return std::unique_ptr<VideoWriter>(std::move(writer));
}

}  // namespace vatkit::cli

#include "video.h"

#include <cctype>
#include <filesystem>

namespace vatkit::cli {

Result<OutputKind> output_kind(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext.empty() || ext == ".png") return OutputKind::Png;
  if (ext == ".mp4") return OutputKind::Mp4;
  if (ext == ".webp") return OutputKind::Webp;
  if (ext == ".gif") {
    return make_error(ErrorCode::Argument, path,
                      "GIF output is not supported: name it .webp (animated, smaller, full colour) or .mp4");
  }
  return make_error(ErrorCode::Argument, path,
                    "unsupported output type " + ext + " (vatkit render writes .png, .mp4 or .webp)");
}

Result<std::unique_ptr<VideoWriter>> open_video(OutputKind kind, const std::string& path, [[maybe_unused]] int width,
                                                [[maybe_unused]] int height, const VideoOptions& options) {
  if (!(options.fps > 0.0)) return make_error(ErrorCode::Argument, path, "the frame rate must be positive");
  if (kind == OutputKind::Mp4) {
#ifdef VATKIT_VIDEO_MP4
    return open_mp4(path, width, height, options);
#else
    return make_error(ErrorCode::Unsupported, path,
                      "this vatkit was built without libavformat, libavcodec and libswscale, so it cannot "
                      "write MP4 (Debian: apt-get install libavformat-dev libavcodec-dev libswscale-dev, then "
                      "configure the build again)");
#endif
  }
  if (kind == OutputKind::Webp) {
#ifdef VATKIT_VIDEO_WEBP
    return open_webp(path, width, height, options);
#else
    return make_error(ErrorCode::Unsupported, path,
                      "this vatkit was built without libwebp and libwebpmux, so it cannot write animated WebP "
                      "(Debian: apt-get install libwebp-dev, then configure the build again)");
#endif
  }
  return make_error(ErrorCode::Argument, path, "not a video output");
}

}  // namespace vatkit::cli

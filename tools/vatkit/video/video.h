// Videos of rendered frames for `vatkit render -o OUT.mp4 | OUT.webp`: RGBA frames in, the
// finished file's bytes out, through Debian's libraries:
//   .mp4   H.264 (x264 through libavcodec) in an MP4 container (libavformat): 4:2:0 chroma,
//          BT.709 colours in limited range, constant rate crf 18 (--quality does not apply);
//          the index (moov) before the frames ("faststart": a browser plays it while it loads).
//          Width and height must be even.
//   .webp  animated WebP (libwebp's WebPAnimEncoder, libwebpmux): lossy at --quality Q (libwebp's
//          0..100 scale), or lossless (the exact RGBA); loops forever. Each frame's time is
//          rounded to whole milliseconds, so the frame rate is at most 1000; canvas at most
//          16383 pixels a side.
// What is not done: GIF, audio, streaming to disk (the whole encoded file is held in memory,
// about the size of the file, before the caller writes it), variable frame rates.
// A build without a library still compiles: open_video then says which library it lacks.
// Cost: encoding dominates a small render (x264's "medium" preset; libwebp's method 4).
// Threads: one writer is used by one thread; x264 runs threads of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vatkit/gl/image.h"
#include "vatkit/result.h"

namespace vatkit::cli {

enum class OutputKind { Png, Mp4, Webp };

// The output an -o name asks for, by its extension (any case): ".png" or none (a device such as
// /dev/stdout) PNG, ".mp4", ".webp". Anything else is refused, naming the file and the types.
Result<OutputKind> output_kind(const std::string& path);

struct VideoOptions {
  double fps = 30.0;      // frames per second, > 0
  int quality = 80;       // WebP lossy quality, 0..100
  bool lossless = false;  // WebP: every RGBA value kept
};

// Frames in, file bytes out. add_frame takes width x height RGBA8 rows, top row first (what
// RenderTarget::read_rgba8 gives); frames are shown in the order added, 1/fps seconds apart.
class VideoWriter {
 public:
  virtual ~VideoWriter() = default;
  virtual Result<void> add_frame(const gl::ImageView& rgba) = 0;
  // The finished file (every frame added so far); the writer is spent afterwards.
  virtual Result<std::vector<uint8_t>> finish() = 0;
};

// A writer for `kind` (Mp4 or Webp; MP4 ignores quality and lossless). Errors name `path`: a
// library this build lacks, a size or rate the format cannot store (odd H.264 sizes, WebP over
// 1000 fps or 16383 pixels), an encoder that refuses to start.
Result<std::unique_ptr<VideoWriter>> open_video(OutputKind kind, const std::string& path, int width, int height,
                                                const VideoOptions& options);

// Per format, where the build has its library (defined by video_mp4.cpp / video_webp.cpp).
Result<std::unique_ptr<VideoWriter>> open_mp4(const std::string& path, int width, int height,
                                              const VideoOptions& options);
Result<std::unique_ptr<VideoWriter>> open_webp(const std::string& path, int width, int height,
                                               const VideoOptions& options);

}  // namespace vatkit::cli

// `vatkit render -o OUT.webp | OUT.mp4`: the written video decoded back by the libraries' own
// decoders (libwebpdemux's WebPAnimDecoder; FFmpeg's H.264 decoder, not the x264 encoder) and
// compared with the PNG frames `vatkit render` writes for the same times; bad outputs give one
// line and leave no file. In a build without a library, the command must say which one it lacks.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "test_support.h"
#include "vatkit/gl/image.h"

#ifdef VATKIT_VIDEO_WEBP
#include <webp/demux.h>
#endif
#ifdef VATKIT_VIDEO_MP4
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
}
#endif

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using test::expect_one_error_line;
using test::shell_quote;
using test::vatkit_gl_cli;

// One scene for every run: 160x90, 4 frames 0.1 s apart from t = 1 s, six instances on their own
// clips, phases and speeds.
constexpr int kWidth = 160, kHeight = 90, kFrames = 4, kFps = 10;
const std::string kScene = "render --encoding rig --instances 6 --size 160x90 --seed 2 --frames 4 --fps 10 ";

#ifdef VATKIT_VIDEO_WEBP
constexpr bool kWebpBuilt = true;
#else
constexpr bool kWebpBuilt = false;
#endif
#ifdef VATKIT_VIDEO_MP4
constexpr bool kMp4Built = true;
#else
constexpr bool kMp4Built = false;
#endif

// Renders the scene into `video` (`options` before -o). True when it was written; in a build
// without the format's library (`built` false), checks the one-line error naming `missing` and
// that nothing was written, and returns false.
bool render_video(const std::string& video, const std::string& options, bool built, const char* missing) {
  const CommandResult r = vatkit_gl_cli(kScene + options + "-o " + shell_quote(video));
  if (!built) {
    expect_one_error_line(r, missing);
    EXPECT_FALSE(fs::exists(video));
    return false;
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string name = fs::path(video).filename().string();
  EXPECT_NE(r.out.find(name + ": 6 instances"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 frames at 10 fps"), std::string::npos) << r.out;
  return r.exit_code == 0;
}

#if defined(VATKIT_VIDEO_WEBP) || defined(VATKIT_VIDEO_MP4)
// The reference: the PNG frames of the same command line.
std::vector<gl::Image> png_frames(const fs::path& dir) {
  const CommandResult r = vatkit_gl_cli(kScene + "-o " + shell_quote((dir / "ref.png").string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<gl::Image> frames;
  for (int k = 0; k < kFrames; ++k) {
    char name[32];
    std::snprintf(name, sizeof(name), "ref-%04d.png", k);
    Result<gl::Image> image = gl::read_png(dir / name);
    EXPECT_TRUE(image.ok()) << name;
    if (!image) return {};
    EXPECT_EQ(image->channels, 4);
    frames.push_back(std::move(*image));
  }
  return frames;
}

// Mean squared difference over the RGB channels of two RGBA or RGB images of one size.
double mse_rgb(const gl::Image& a, const gl::Image& b) {
  double sum = 0.0;
  const size_t pixels = size_t(a.width) * size_t(a.height);
  for (size_t p = 0; p < pixels; ++p) {
    for (int c = 0; c < 3; ++c) {
      const double d =
          double(a.pixels[p * size_t(a.channels) + size_t(c)]) - b.pixels[p * size_t(b.channels) + size_t(c)];
      sum += d * d;
    }
  }
  return sum / double(pixels * 3);
}

// The largest mse_rgb of a decoded frame against its reference frame.
double worst_mse(const std::vector<gl::Image>& decoded, const std::vector<gl::Image>& reference) {
  double worst = 0.0;
  for (size_t k = 0; k < decoded.size(); ++k) worst = std::max(worst, mse_rgb(decoded[k], reference[k]));
  return worst;
}

double psnr(double mse) { return mse > 0.0 ? 10.0 * std::log10(255.0 * 255.0 / mse) : 99.0; }

// Consecutive frames of the reference differ (the crowd moves) by far more than `coding_mse`, and
// each decoded frame is nearer its own reference frame than any other: the video holds the
// frames in order, not one frame repeated.
void expect_moving_and_in_order(const std::vector<gl::Image>& decoded, const std::vector<gl::Image>& reference,
                                double coding_mse) {
  for (size_t k = 1; k < reference.size(); ++k) {
    const double step = mse_rgb(reference[k], reference[k - 1]);
    EXPECT_GT(step, 4.0 * coding_mse + 1.0) << "frames " << k - 1 << " and " << k << " barely differ";
    EXPECT_GT(mse_rgb(decoded[k], decoded[k - 1]), 1.0) << "decoded frames " << k - 1 << " and " << k;
  }
  for (size_t k = 0; k < decoded.size(); ++k) {
    for (size_t j = 0; j < reference.size(); ++j) {
      if (j == k) continue;
      EXPECT_LT(mse_rgb(decoded[k], reference[k]), mse_rgb(decoded[k], reference[j])) << k << " vs " << j;
    }
  }
}

#endif

#ifdef VATKIT_VIDEO_WEBP
struct DecodedWebp {
  std::vector<gl::Image> frames;
  std::vector<int> end_ms;  // each frame's end time (WebPAnimDecoder's timestamp)
  uint32_t width = 0, height = 0, loop_count = 99;
};

DecodedWebp decode_webp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  DecodedWebp out;
  WebPAnimDecoderOptions options;
  EXPECT_TRUE(WebPAnimDecoderOptionsInit(&options));
  options.color_mode = MODE_RGBA;
  const WebPData data = {bytes.data(), bytes.size()};
  WebPAnimDecoder* decoder = WebPAnimDecoderNew(&data, &options);
  EXPECT_NE(decoder, nullptr) << path;
  if (!decoder) return out;
  WebPAnimInfo info;
  EXPECT_TRUE(WebPAnimDecoderGetInfo(decoder, &info));
  out.width = info.canvas_width;
  out.height = info.canvas_height;
  out.loop_count = info.loop_count;
  while (WebPAnimDecoderHasMoreFrames(decoder)) {
    uint8_t* rgba = nullptr;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(decoder, &rgba, &timestamp)) break;
    gl::Image image;
    image.width = int(info.canvas_width);
    image.height = int(info.canvas_height);
    image.pixels.assign(rgba, rgba + size_t(image.width) * size_t(image.height) * 4);
    out.frames.push_back(std::move(image));
    out.end_ms.push_back(timestamp);
  }
  EXPECT_EQ(out.frames.size(), size_t(info.frame_count));
  WebPAnimDecoderDelete(decoder);
  return out;
}

void expect_webp_shape(const DecodedWebp& webp) {
  EXPECT_EQ(webp.width, uint32_t(kWidth));
  EXPECT_EQ(webp.height, uint32_t(kHeight));
  EXPECT_EQ(webp.loop_count, 0u) << "loops forever";
  ASSERT_EQ(webp.frames.size(), size_t(kFrames));
  for (int k = 0; k < kFrames; ++k) EXPECT_EQ(webp.end_ms[size_t(k)], (k + 1) * 1000 / kFps) << "frame " << k;
}
#endif

// Lossless WebP: the decoded frames are the PNG frames, byte for byte; lossy at the default
// quality 80: over 30 dB PSNR (libwebp's lossy mode is 4:2:0 YUV, as H.264 below: the same
// reasoning) and smaller than the lossless file.
TEST(GlVideoCli, WebpFramesAreThePngFrames) {
  const fs::path dir = test::scratch_dir("render_video_webp");
  const std::string lossless = (dir / "lossless.webp").string();
  if (!render_video(lossless, "--lossless ", kWebpBuilt, "built without libwebp")) return;
#ifdef VATKIT_VIDEO_WEBP
  const std::vector<gl::Image> reference = png_frames(dir);
  ASSERT_EQ(reference.size(), size_t(kFrames));
  const DecodedWebp exact = decode_webp(lossless);
  expect_webp_shape(exact);
  ASSERT_EQ(exact.frames.size(), size_t(kFrames));
  for (int k = 0; k < kFrames; ++k) {
    EXPECT_EQ(exact.frames[size_t(k)].pixels, reference[size_t(k)].pixels) << "lossless frame " << k;
  }
  expect_moving_and_in_order(exact.frames, reference, 0.0);

  const std::string lossy = (dir / "lossy.webp").string();
  ASSERT_TRUE(render_video(lossy, "", true, ""));
  const DecodedWebp approx = decode_webp(lossy);
  expect_webp_shape(approx);
  ASSERT_EQ(approx.frames.size(), size_t(kFrames));
  const double worst = worst_mse(approx.frames, reference);
  std::printf("lossy WebP q80: worst PSNR %.2f dB, %ju bytes (lossless %ju)\n", psnr(worst),
              uintmax_t(fs::file_size(lossy)), uintmax_t(fs::file_size(lossless)));
  EXPECT_GT(psnr(worst), 30.0);
  EXPECT_GT(worst, 0.0) << "lossy is lossy";
  EXPECT_LT(fs::file_size(lossy), fs::file_size(lossless));
  expect_moving_and_in_order(approx.frames, reference, worst);
#endif
}

#ifdef VATKIT_VIDEO_MP4
struct DecodedMp4 {
  std::vector<gl::Image> frames;  // RGB
  std::string codec;
  int width = 0, height = 0;
  AVRational frame_rate{0, 1};
  double duration_s = 0.0;
  AVColorSpace colorspace = AVCOL_SPC_UNSPECIFIED;
  AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
};

// A decoded 4:2:0 frame as RGB through swscale, with the BT.709 limited-range matrix the stream
// is tagged with (checked by the caller).
gl::Image to_rgb(const AVFrame* frame) {
  gl::Image image;
  image.width = frame->width;
  image.height = frame->height;
  image.channels = 3;
  image.pixels.resize(size_t(image.width) * size_t(image.height) * 3);
  SwsContext* sws =
      sws_getContext(frame->width, frame->height, AVPixelFormat(frame->format), frame->width, frame->height,
                     AV_PIX_FMT_RGB24, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
  const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
  sws_setColorspaceDetails(sws, bt709, 0, bt709, 1, 0, 1 << 16, 1 << 16);
  uint8_t* dst[1] = {image.pixels.data()};
  const int stride[1] = {image.width * 3};
  sws_scale(sws, frame->data, frame->linesize, 0, frame->height, dst, stride);
  sws_freeContext(sws);
  return image;
}

// The types of an MP4's top-level boxes in file order (ISO/IEC 14496-12: a 32-bit big-endian size,
// 1 for a 64-bit size after the type, 0 for "to the end"; then four characters).
std::vector<std::string> top_level_boxes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto be = [&](size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | b[at + size_t(i)];
    return v;
  };
  std::vector<std::string> types;
  for (size_t at = 0; at + 8 <= b.size();) {
    uint64_t size = be(at, 4);
    types.emplace_back(reinterpret_cast<const char*>(&b[at + 4]), 4);
    if (size == 1 && at + 16 <= b.size()) size = be(at + 8, 8);
    if (size == 0) size = b.size() - at;
    if (size < 8) break;
    at += size_t(size);
  }
  return types;
}

// Every frame of the file's video stream, as the demuxer and FFmpeg's own decoder give them.
DecodedMp4 decode_mp4(const fs::path& path) {
  DecodedMp4 out;
  AVFormatContext* format = nullptr;
  EXPECT_EQ(avformat_open_input(&format, path.c_str(), nullptr, nullptr), 0) << path;
  if (!format) return out;
  EXPECT_GE(avformat_find_stream_info(format, nullptr), 0);
  EXPECT_EQ(format->nb_streams, 1u) << "one video stream, no audio";
  const AVStream* stream = format->streams[0];
  const AVCodec* codec = avcodec_find_decoder(stream->codecpar->codec_id);
  out.codec = codec ? codec->name : "";
  out.width = stream->codecpar->width;
  out.height = stream->codecpar->height;
  out.frame_rate = stream->avg_frame_rate;
  out.duration_s = double(stream->duration) * av_q2d(stream->time_base);
  out.colorspace = stream->codecpar->color_space;
  out.range = stream->codecpar->color_range;
  AVCodecContext* decoder = avcodec_alloc_context3(codec);
  avcodec_parameters_to_context(decoder, stream->codecpar);
  EXPECT_EQ(avcodec_open2(decoder, codec, nullptr), 0);
  AVPacket* packet = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  auto receive = [&] {
    while (avcodec_receive_frame(decoder, frame) == 0) out.frames.push_back(to_rgb(frame));
  };
  while (av_read_frame(format, packet) >= 0) {
    EXPECT_EQ(avcodec_send_packet(decoder, packet), 0);
    av_packet_unref(packet);
    receive();
  }
  avcodec_send_packet(decoder, nullptr);
  receive();
  av_frame_free(&frame);
  av_packet_free(&packet);
  avcodec_free_context(&decoder);
  avformat_close_input(&format);
  return out;
}
#endif

// H.264 at crf 18 in 4:2:0, the index first: every frame above 30 dB PSNR against its PNG.
// Why 30: 4:2:0 halves the chroma resolution, which at 160x90 smears the coloured edges of small
// characters (a chroma round trip alone costs a few dB there) and crf 18 adds its quantisation;
// 30 dB still means an RMS error of 8 of 255. The order check (each frame nearest its own PNG) guards what the bound
// cannot: a stuck or shuffled frame.
TEST(GlVideoCli, Mp4FramesMatchThePngFrames) {
  const fs::path dir = test::scratch_dir("render_video_mp4");
  const std::string video = (dir / "crowd.mp4").string();
  if (!render_video(video, "", kMp4Built, "built without libavformat")) return;
#ifdef VATKIT_VIDEO_MP4
  const std::vector<gl::Image> reference = png_frames(dir);
  ASSERT_EQ(reference.size(), size_t(kFrames));
  const DecodedMp4 mp4 = decode_mp4(video);
  EXPECT_EQ(mp4.codec, "h264");
  EXPECT_EQ(mp4.width, kWidth);
  EXPECT_EQ(mp4.height, kHeight);
  EXPECT_EQ(av_cmp_q(mp4.frame_rate, AVRational{kFps, 1}), 0) << mp4.frame_rate.num << "/" << mp4.frame_rate.den;
  EXPECT_NEAR(mp4.duration_s, double(kFrames) / kFps, 1e-6);
  const std::vector<std::string> boxes = top_level_boxes(video);
  ASSERT_FALSE(boxes.empty());
  EXPECT_EQ(boxes.front(), "ftyp");
  const auto moov = std::find(boxes.begin(), boxes.end(), "moov"), mdat = std::find(boxes.begin(), boxes.end(), "mdat");
  EXPECT_TRUE(moov != boxes.end() && mdat != boxes.end() && moov < mdat) << "the index before the frames (faststart)";
  EXPECT_EQ(mp4.colorspace, AVCOL_SPC_BT709);
  EXPECT_EQ(mp4.range, AVCOL_RANGE_MPEG);
  ASSERT_EQ(mp4.frames.size(), size_t(kFrames));
  const double worst = worst_mse(mp4.frames, reference);
  std::printf("H.264 crf 18: worst PSNR %.2f dB, %ju bytes\n", psnr(worst), uintmax_t(fs::file_size(video)));
  EXPECT_GT(psnr(worst), 30.0);
  expect_moving_and_in_order(mp4.frames, reference, worst);
#endif
}

// Outputs that cannot be written: one line naming the file and the reason, exit 1 (2 for what
// the option parser refuses), and nothing left in the folder.
TEST(GlVideoCli, BadOutputsAreOneLineAndLeaveNothing) {
  const fs::path dir = test::scratch_dir("render_video_errors");
  const std::string base = "render --encoding rig --instances 2 --size 32x32 --frames 2 -o ";
  auto out = [&](const std::string& name) { return shell_quote((dir / name).string()); };
  expect_one_error_line(vatkit_gl_cli(base + out("x.avi")), "x.avi: unsupported output type .avi", 1);
  expect_one_error_line(vatkit_gl_cli(base + out("x.gif")), "x.gif: GIF output is not supported", 1);
  expect_one_error_line(vatkit_gl_cli(base + out("missing/x.mp4")), "missing", 1);
  { std::ofstream(dir / "file") << "not a folder"; }
  expect_one_error_line(vatkit_gl_cli(base + out("file/x.webp")), "is not a directory", 1);
  fs::remove(dir / "file");
  expect_one_error_line(vatkit_gl_cli(base + out("x.mp4") + " --quality 50"),
                        "x.mp4: --quality and --lossless apply to .webp output only", 1);
  expect_one_error_line(vatkit_gl_cli(base + out("x.webp") + " --quality 101"), "--quality", 2);
#ifdef VATKIT_VIDEO_MP4
  expect_one_error_line(vatkit_gl_cli("render --size 33x32 -o " + out("odd.mp4")),
                        "odd.mp4: H.264 in MP4 needs an even width and height, not 33x32", 1);
  // A folder the process cannot create files in (/proc takes none, even from root).
  expect_one_error_line(vatkit_gl_cli(base + "/proc/vatkit-video-test.mp4"), "/proc/vatkit-video-test.mp4", 1);
#endif
#ifdef VATKIT_VIDEO_WEBP
  expect_one_error_line(vatkit_gl_cli(base + out("fast.webp") + " --fps 2000"),
                        "fast.webp: WebP frames last whole milliseconds", 1);
#endif
  if (geteuid() != 0) {  // root writes into a read-only folder anyway
    fs::create_directory(dir / "readonly");
    fs::permissions(dir / "readonly", fs::perms::owner_read | fs::perms::owner_exec);
    expect_one_error_line(vatkit_gl_cli(base + out("readonly/x.webp")), "readonly/x.webp", 1);
    fs::permissions(dir / "readonly", fs::perms::owner_all);
    EXPECT_TRUE(fs::is_empty(dir / "readonly"));
    fs::remove(dir / "readonly");
  }
  EXPECT_TRUE(fs::is_empty(dir)) << "a failed render left a file behind";
  test::expect_help_documents({"render"}, {{"render", {"OUT.mp4", "OUT.webp", "--quality", "--lossless", "refused"}}});
}

}  // namespace
}  // namespace vatkit

// H.264 in MP4 through FFmpeg's libraries: swscale turns RGBA into BT.709 limited-range 4:2:0,
// libavcodec's x264 encodes at crf 18, libavformat muxes into a buffer in memory through a custom
// AVIOContext (the MP4 muxer seeks back to patch sizes, which a memory buffer allows). With
// +faststart the muxer moves the index (moov) from the end to before the frames, reading the
// buffer back through a second context that io_open gives it, so a browser can start playing
// before it has the whole file.
#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "video.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

namespace vatkit::cli {
namespace {

constexpr int kIoBufferBytes = 1 << 16;

std::string av_message(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof(text));
  return text;
}

// The muxer's output: a growing buffer with a write position.
struct MemoryOutput {
  std::vector<uint8_t> bytes;
  size_t position = 0;
};

// libavformat 61 made the written data const.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using WrittenBytes = const uint8_t*;
#else
using WrittenBytes = uint8_t*;
#endif

int write_packet(void* opaque, WrittenBytes data, int size) {
  auto* out = static_cast<MemoryOutput*>(opaque);
  try {
    if (out->position + size_t(size) > out->bytes.size()) out->bytes.resize(out->position + size_t(size));
  } catch (...) {
    return AVERROR(ENOMEM);
  }
  std::memcpy(out->bytes.data() + out->position, data, size_t(size));
  out->position += size_t(size);
  return size;
}

// AVIOContext's seek over `size` bytes at `position`.
int64_t seek_in(size_t& position, size_t size, int64_t offset, int whence) {
  whence &= ~AVSEEK_FORCE;
  if (whence == AVSEEK_SIZE) return int64_t(size);
  if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return AVERROR(EINVAL);
  const int64_t base = whence == SEEK_CUR ? int64_t(position) : whence == SEEK_END ? int64_t(size) : 0;
  if (base + offset < 0) return AVERROR(EINVAL);
  position = size_t(base + offset);
  return int64_t(position);
}

int64_t seek(void* opaque, int64_t offset, int whence) {
  auto* out = static_cast<MemoryOutput*>(opaque);
  return seek_in(out->position, out->bytes.size(), offset, whence);
}

// The faststart pass's reader of the same buffer, at a position of its own.
struct MemoryReader {
  const MemoryOutput* out = nullptr;
  size_t position = 0;
};

int read_packet(void* opaque, uint8_t* data, int size) {
  auto* in = static_cast<MemoryReader*>(opaque);
  const std::vector<uint8_t>& bytes = in->out->bytes;
  if (in->position >= bytes.size()) return AVERROR_EOF;
  const size_t n = std::min(size_t(size), bytes.size() - in->position);
  std::memcpy(data, bytes.data() + in->position, n);
  in->position += n;
  return int(n);
}

int64_t seek_reader(void* opaque, int64_t offset, int whence) {
  auto* in = static_cast<MemoryReader*>(opaque);
  return seek_in(in->position, in->out->bytes.size(), offset, whence);
}

// AVFormatContext::io_open for the muxer: only the faststart pass opens anything, to read back
// what it wrote (the format context's opaque is the MemoryOutput).
int open_reader(AVFormatContext* format, AVIOContext** pb, const char*, int flags, AVDictionary**) {
  if (flags & AVIO_FLAG_WRITE) return AVERROR(EINVAL);
  auto* buffer = static_cast<uint8_t*>(av_malloc(kIoBufferBytes));
  auto* reader = new (std::nothrow) MemoryReader{static_cast<const MemoryOutput*>(format->opaque), 0};
  *pb = buffer && reader ? avio_alloc_context(buffer, kIoBufferBytes, 0, reader, read_packet, nullptr, seek_reader)
                         : nullptr;
  if (*pb) return 0;
  av_free(buffer);
  delete reader;
  return AVERROR(ENOMEM);
}

int close_reader(AVFormatContext*, AVIOContext* pb) {
  delete static_cast<MemoryReader*>(pb->opaque);
  av_freep(&pb->buffer);
  avio_context_free(&pb);
  return 0;
}

class Mp4Writer final : public VideoWriter {
 public:
  explicit Mp4Writer(std::string path) : path_(std::move(path)) {}
  ~Mp4Writer() override;
  Result<void> start(int width, int height, double fps);
  Result<void> add_frame(const gl::ImageView& rgba) override;
  Result<std::vector<uint8_t>> finish() override;

 private:
  Result<void> open_encoder(int width, int height, double fps);
  Result<void> open_muxer();
  Result<void> drain(bool flushing);
  Error failure(const std::string& what, int code) const {
    return make_error(ErrorCode::Io, path_, what + " (libav: " + av_message(code) + ")");
  }

  std::string path_;
  MemoryOutput output_;
  AVCodecContext* encoder_ = nullptr;
  AVFormatContext* muxer_ = nullptr;
  AVIOContext* io_ = nullptr;
  AVStream* stream_ = nullptr;
  SwsContext* scaler_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  int64_t next_pts_ = 0;
};

Mp4Writer::~Mp4Writer() {
  avcodec_free_context(&encoder_);
  if (io_) av_freep(&io_->buffer);
  avio_context_free(&io_);
  avformat_free_context(muxer_);
  sws_freeContext(scaler_);
  av_frame_free(&frame_);
  av_packet_free(&packet_);
}

Result<void> Mp4Writer::open_encoder(int width, int height, double fps) {
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_H264);
  if (!codec) {
    return make_error(ErrorCode::Unsupported, path_, "this libavcodec has no H.264 encoder (Debian's links libx264)");
  }
  encoder_ = avcodec_alloc_context3(codec);
  packet_ = av_packet_alloc();
  frame_ = av_frame_alloc();
  if (!encoder_ || !packet_ || !frame_) return make_error(ErrorCode::Io, path_, "out of memory");
  const AVRational rate = av_d2q(fps, 1 << 20);
  encoder_->width = width;
  encoder_->height = height;
  encoder_->pix_fmt = AV_PIX_FMT_YUV420P;
  encoder_->time_base = av_inv_q(rate);
  encoder_->framerate = rate;
  encoder_->color_range = AVCOL_RANGE_MPEG;
  encoder_->colorspace = AVCOL_SPC_BT709;
  encoder_->color_primaries = AVCOL_PRI_BT709;
  encoder_->color_trc = AVCOL_TRC_BT709;
  encoder_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;  // MP4 keeps SPS/PPS in the avcC box
  av_opt_set(encoder_->priv_data, "crf", "18", 0);
  av_opt_set(encoder_->priv_data, "preset", "medium", 0);
  if (int code = avcodec_open2(encoder_, codec, nullptr); code < 0) return failure("cannot start H.264", code);
  frame_->format = AV_PIX_FMT_YUV420P;
  frame_->width = width;
  frame_->height = height;
  if (int code = av_frame_get_buffer(frame_, 0); code < 0) return failure("cannot allocate a frame", code);
  scaler_ = sws_getContext(width, height, AV_PIX_FMT_RGBA, width, height, AV_PIX_FMT_YUV420P,
                           SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
  if (!scaler_) return make_error(ErrorCode::Io, path_, "swscale cannot convert RGBA to YUV 4:2:0");
  // BT.709 coefficients, limited range, as the stream is tagged (swscale's default is BT.601).
  const int* coefficients = sws_getCoefficients(SWS_CS_ITU709);
  sws_setColorspaceDetails(scaler_, coefficients, 1, coefficients, 0, 0, 1 << 16, 1 << 16);
  return {};
}

Result<void> Mp4Writer::open_muxer() {
  if (int code = avformat_alloc_output_context2(&muxer_, nullptr, "mp4", nullptr); code < 0)
    return failure("no MP4 muxer", code);
  auto* buffer = static_cast<uint8_t*>(av_malloc(kIoBufferBytes));
  if (!buffer) return make_error(ErrorCode::Io, path_, "out of memory");
  io_ = avio_alloc_context(buffer, kIoBufferBytes, 1, &output_, nullptr, write_packet, seek);
  if (!io_) {
    av_free(buffer);
    return make_error(ErrorCode::Io, path_, "out of memory");
  }
  muxer_->pb = io_;
  muxer_->flags |= AVFMT_FLAG_CUSTOM_IO;
  muxer_->opaque = &output_;
  muxer_->io_open = open_reader;
  muxer_->io_close2 = close_reader;
  stream_ = avformat_new_stream(muxer_, nullptr);
  if (!stream_) return make_error(ErrorCode::Io, path_, "out of memory");
  if (int code = avcodec_parameters_from_context(stream_->codecpar, encoder_); code < 0)
    return failure("cannot describe the stream", code);
  stream_->time_base = encoder_->time_base;
  stream_->avg_frame_rate = encoder_->framerate;
  AVDictionary* options = nullptr;
  av_dict_set(&options, "movflags", "+faststart", 0);
  const int code = avformat_write_header(muxer_, &options);
  av_dict_free(&options);
  if (code < 0) return failure("cannot start the MP4", code);
  return {};
}

Result<void> Mp4Writer::start(int width, int height, double fps) {
  if (width % 2 || height % 2) {
    return make_error(ErrorCode::Argument, path_,
                      "H.264 in MP4 needs an even width and height, not " + std::to_string(width) + "x" +
                          std::to_string(height) + " (--size)");
  }
  if (auto ok = open_encoder(width, height, fps); !ok) return ok;
  return open_muxer();
}

// Moves every packet the encoder has ready into the file.
Result<void> Mp4Writer::drain(bool flushing) {
  for (;;) {
    const int code = avcodec_receive_packet(encoder_, packet_);
    if (code == AVERROR(EAGAIN) || (flushing && code == AVERROR_EOF)) return {};
    if (code < 0) return failure("H.264 encoding failed", code);
    av_packet_rescale_ts(packet_, encoder_->time_base, stream_->time_base);
    packet_->stream_index = stream_->index;
    if (int written = av_interleaved_write_frame(muxer_, packet_); written < 0)
      return failure("cannot write a frame", written);
  }
}

Result<void> Mp4Writer::add_frame(const gl::ImageView& rgba) {
  if (int code = av_frame_make_writable(frame_); code < 0) return failure("cannot reuse the frame", code);
  const uint8_t* source[1] = {rgba.pixels};
  const int stride[1] = {int(rgba.stride())};
  sws_scale(scaler_, source, stride, 0, rgba.height, frame_->data, frame_->linesize);
  frame_->pts = next_pts_++;
  if (int code = avcodec_send_frame(encoder_, frame_); code < 0) return failure("H.264 encoding failed", code);
  return drain(false);
}

Result<std::vector<uint8_t>> Mp4Writer::finish() {
  if (int code = avcodec_send_frame(encoder_, nullptr); code < 0) return failure("H.264 encoding failed", code);
  if (auto ok = drain(true); !ok) return ok.error();
  if (int code = av_write_trailer(muxer_); code < 0) return failure("cannot finish the MP4", code);
  avio_flush(io_);
  return std::move(output_.bytes);
}

}  // namespace

Result<std::unique_ptr<VideoWriter>> open_mp4(const std::string& path, int width, int height,
                                              const VideoOptions& options) {
  av_log_set_level(AV_LOG_QUIET);  // errors come back as codes: stderr keeps its one line
  auto writer = std::make_unique<Mp4Writer>(path);
  if (auto ok = writer->start(width, height, options.fps); !ok) return ok.error();
  return std::unique_ptr<VideoWriter>(std::move(writer));
}

}  // namespace vatkit::cli

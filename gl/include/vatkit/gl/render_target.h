// vatkit/gl/render_target.h: an offscreen framebuffer (RGBA8 colour + depth, optionally motion
// vectors) with readback.
//
// Colour is GL_RGBA8 (linear values: no sRGB conversion on write or read), depth is
// GL_DEPTH_COMPONENT32F. With samples > 1 drawing goes into multisampled renderbuffers and
// resolve() (called by the readers) averages them into a single-sample colour texture; otherwise
// that texture is drawn into directly. color_texture() is always the single-sample result, ready
// to sample or blit. Readback is RGBA8 with the top row first (flipped from GL's bottom-up rows),
// the layout PNG files and vatkit::gl::Image use. Readback waits for the GPU (it blocks).
// Threads: every call needs the GL context that made the objects current on the calling thread;
// objects are not synchronized (one thread at a time).
#pragma once

#include <cstdint>
#include <span>

#include "vatkit/gl/image.h"
#include "vatkit/gl/objects.h"
#include "vatkit/result.h"

namespace vatkit::gl {

struct RenderTargetDesc {
  int width = 0;
  int height = 0;
  int samples = 1;    // 1: no multisampling; 2, 4, 8 ... up to ContextLimits::max_samples
  bool depth = true;  // a depth buffer (cleared by clear())
  // A second colour attachment, GL_RG32F, for motion vectors (crowd.h, RenderOptions): drawn
  // as fragment output 1, cleared to (0, 0), read with read_motion. Single-sample targets only.
  bool motion_vectors = false;
};

class RenderTarget {
 public:
  // Errors: a size outside 1..max renderbuffer size, a sample count the driver does not offer,
  // an incomplete framebuffer. Needs a current context.
  static Result<RenderTarget> create(const RenderTargetDesc& desc);

  RenderTarget() = default;
  RenderTarget(RenderTarget&&) noexcept = default;
  RenderTarget& operator=(RenderTarget&&) noexcept = default;

  // Binds the drawing framebuffer (GL_FRAMEBUFFER) and sets the viewport to the whole target.
  void bind() const;
  // Clears colour (RGBA in 0..1) and depth (to 1) of the drawing framebuffer; binds it.
  void clear(float r, float g, float b, float a) const;
  // Multisampled: resolves into color_texture(). Single-sample: nothing to do.
  void resolve() const;

  // Resolves, then copies the pixels into `rgba` (width * height * 4 bytes, top row first).
  // Allocates nothing. Errors when the span has the wrong size.
  Result<void> read_rgba8(std::span<uint8_t> rgba) const;
  // The same into a new Image.
  Image read_rgba8() const;
  // The motion attachment's (x, y) pairs, width * height * 2 floats, top row first. Errors:
  // a target without one, a span of the wrong size.
  Result<void> read_motion(std::span<float> xy) const;

  int width() const { return desc_.width; }
  int height() const { return desc_.height; }
  int samples() const { return desc_.samples; }
  uint32_t framebuffer() const { return draw_framebuffer_.id(); }  // the one bind() binds
  uint32_t color_texture() const { return color_.id(); }           // single-sample RGBA8
  uint32_t motion_texture() const { return motion_.id(); }         // GL_RG32F, 0 when none
  bool has_motion() const { return desc_.motion_vectors; }

 private:
  RenderTargetDesc desc_;
  Texture color_;            // resolved colour (or drawn directly when single-sample)
  Texture depth_;            // single-sample depth
  Texture motion_;           // motion vectors (RenderTargetDesc::motion_vectors)
  Renderbuffer msaa_color_;  // multisampled only
  Renderbuffer msaa_depth_;
  Framebuffer draw_framebuffer_;
  Framebuffer resolve_framebuffer_;  // multisampled only: color_ attached
};

}  // namespace vatkit::gl

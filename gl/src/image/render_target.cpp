#include "vatkit/gl/render_target.h"

#include <algorithm>
#include <cstdio>
#include <span>

#include "vatkit/gl/gl.h"

namespace vatkit::gl {
namespace {

// Level 0 of `texture` into `out`. A pack buffer bound by the caller would receive the pixels
// instead of `out`: unbound meanwhile. The pack alignment does not matter for 4- and 8-byte pixels.
template <typename T>
void read_texture(GLuint texture, GLenum format, GLenum type, std::span<T> out) {
  GLint pack_buffer = 0;
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
  if (pack_buffer) glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glGetTextureImage(texture, 0, format, type, static_cast<GLsizei>(out.size_bytes()), out.data());
  if (pack_buffer) glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer));
}

// GL's bottom-up rows into top-first order, `row` elements each.
template <typename T>
void flip_rows(std::span<T> pixels, size_t row, size_t rows) {
  for (size_t top = 0, bottom = rows - 1; top < bottom; ++top, --bottom) {
    std::swap_ranges(pixels.begin() + static_cast<std::ptrdiff_t>(top * row),
                     pixels.begin() + static_cast<std::ptrdiff_t>((top + 1) * row),
                     pixels.begin() + static_cast<std::ptrdiff_t>(bottom * row));
  }
}

std::string size_text(const RenderTargetDesc& desc) {
  return "render target " + std::to_string(desc.width) + "x" + std::to_string(desc.height) +
         (desc.samples > 1 ? " x" + std::to_string(desc.samples) : std::string());
}

}  // namespace

Result<RenderTarget> RenderTarget::create(const RenderTargetDesc& desc) {
  const std::string name = size_text(desc);
  GLint max_size = 0, max_texture = 0, max_samples = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  max_size = std::min(max_size, max_texture);
  if (desc.width < 1 || desc.height < 1 || desc.width > max_size || desc.height > max_size)
    return make_error(ErrorCode::Limit, name, "size must be 1.." + std::to_string(max_size) + " on each side");
  if (desc.samples < 1 || desc.samples > std::max(1, max_samples))
    return make_error(ErrorCode::Limit, name, "samples must be 1.." + std::to_string(std::max(1, max_samples)));
  if (desc.motion_vectors && desc.samples != 1)
    return make_error(ErrorCode::Argument, name, "motion vectors need a single-sample target");

  RenderTarget target;
  target.desc_ = desc;
  target.color_ = create_texture_2d(GL_RGBA8, desc.width, desc.height);
  target.draw_framebuffer_ = create_framebuffer();
  const GLuint draw = target.draw_framebuffer_.id();
  if (desc.samples == 1) {
    glNamedFramebufferTexture(draw, GL_COLOR_ATTACHMENT0, target.color_.id(), 0);
    if (desc.depth) {
      target.depth_ = create_texture_2d(GL_DEPTH_COMPONENT32F, desc.width, desc.height);
      glNamedFramebufferTexture(draw, GL_DEPTH_ATTACHMENT, target.depth_.id(), 0);
    }
    if (desc.motion_vectors) {
      target.motion_ = create_texture_2d(GL_RG32F, desc.width, desc.height);
      glNamedFramebufferTexture(draw, GL_COLOR_ATTACHMENT1, target.motion_.id(), 0);
      const GLenum buffers[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
      glNamedFramebufferDrawBuffers(draw, 2, buffers);
    }
  } else {
    target.msaa_color_ = create_renderbuffer();
    glNamedRenderbufferStorageMultisample(target.msaa_color_.id(), desc.samples, GL_RGBA8, desc.width, desc.height);
    glNamedFramebufferRenderbuffer(draw, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, target.msaa_color_.id());
    if (desc.depth) {
      target.msaa_depth_ = create_renderbuffer();
      glNamedRenderbufferStorageMultisample(target.msaa_depth_.id(), desc.samples, GL_DEPTH_COMPONENT32F, desc.width,
                                            desc.height);
      glNamedFramebufferRenderbuffer(draw, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, target.msaa_depth_.id());
    }
    target.resolve_framebuffer_ = create_framebuffer();
    glNamedFramebufferTexture(target.resolve_framebuffer_.id(), GL_COLOR_ATTACHMENT0, target.color_.id(), 0);
    if (glCheckNamedFramebufferStatus(target.resolve_framebuffer_.id(), GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      return make_error(ErrorCode::Gl, name, "the resolve framebuffer is incomplete");
  }
  const GLenum status = glCheckNamedFramebufferStatus(draw, GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    char text[64];
    std::snprintf(text, sizeof(text), "framebuffer incomplete (status 0x%04x)", status);
    return make_error(ErrorCode::Gl, name, text);
  }
  return target;
}

void RenderTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, draw_framebuffer_.id());
  glViewport(0, 0, desc_.width, desc_.height);
}

void RenderTarget::clear(float r, float g, float b, float a) const {
  bind();
  const GLfloat color[4] = {r, g, b, a};
  glClearNamedFramebufferfv(draw_framebuffer_.id(), GL_COLOR, 0, color);
  if (desc_.depth) {
    const GLfloat one = 1.0f;
    glClearNamedFramebufferfv(draw_framebuffer_.id(), GL_DEPTH, 0, &one);
  }
  if (desc_.motion_vectors) {
    const GLfloat zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    glClearNamedFramebufferfv(draw_framebuffer_.id(), GL_COLOR, 1, zero);
  }
}

void RenderTarget::resolve() const {
  if (desc_.samples <= 1) return;
  glBlitNamedFramebuffer(draw_framebuffer_.id(), resolve_framebuffer_.id(), 0, 0, desc_.width, desc_.height, 0, 0,
                         desc_.width, desc_.height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
}

Result<void> RenderTarget::read_rgba8(std::span<uint8_t> rgba) const {
  const size_t row = size_t(desc_.width) * 4;
  const size_t bytes = row * size_t(desc_.height);
  if (rgba.size() != bytes) {
    return make_error(
        ErrorCode::Argument, size_text(desc_),
        "readback needs " + std::to_string(bytes) + " bytes, got a span of " + std::to_string(rgba.size()));
  }
  resolve();
  read_texture(color_.id(), GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  flip_rows(rgba, row, size_t(desc_.height));
  return {};
}

Result<void> RenderTarget::read_motion(std::span<float> xy) const {
  const size_t row = size_t(desc_.width) * 2;
  const size_t floats = row * size_t(desc_.height);
  if (!desc_.motion_vectors)
    return make_error(ErrorCode::Argument, size_text(desc_), "the target has no motion vectors");
  if (xy.size() != floats) {
    return make_error(
        ErrorCode::Argument, size_text(desc_),
        "motion readback needs " + std::to_string(floats) + " floats, got a span of " + std::to_string(xy.size()));
  }
  read_texture(motion_.id(), GL_RG, GL_FLOAT, xy);
  flip_rows(xy, row, size_t(desc_.height));
  return {};
}

Image RenderTarget::read_rgba8() const {
  Image image;
  image.width = desc_.width;
  image.height = desc_.height;
  image.channels = 4;
  image.pixels.resize(size_t(desc_.width) * size_t(desc_.height) * 4);
  const Result<void> done = read_rgba8(image.pixels);
  (void)done;  // the span has the right size by construction
  return image;
}

}  // namespace vatkit::gl

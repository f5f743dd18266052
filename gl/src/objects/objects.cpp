#include "vatkit/gl/objects.h"

#include <cassert>
#include <type_traits>

#include "vatkit/gl/gl.h"

namespace vatkit::gl {

static_assert(std::is_same_v<GLuint, uint32_t> && std::is_same_v<GLenum, uint32_t>,
              "public headers spell GLuint and GLenum as uint32_t");

namespace detail {

void delete_object(ObjectType type, uint32_t name) {
  switch (type) {
    case ObjectType::Buffer: glDeleteBuffers(1, &name); break;
    case ObjectType::Texture: glDeleteTextures(1, &name); break;
    case ObjectType::Sampler: glDeleteSamplers(1, &name); break;
    case ObjectType::Renderbuffer: glDeleteRenderbuffers(1, &name); break;
    case ObjectType::Framebuffer: glDeleteFramebuffers(1, &name); break;
    case ObjectType::VertexArray: glDeleteVertexArrays(1, &name); break;
    case ObjectType::Query: glDeleteQueries(1, &name); break;
    case ObjectType::TransformFeedback: glDeleteTransformFeedbacks(1, &name); break;
    case ObjectType::Shader: glDeleteShader(name); break;
    case ObjectType::Program: glDeleteProgram(name); break;
  }
}

}  // namespace detail

Buffer create_buffer() {
  GLuint name = 0;
  glCreateBuffers(1, &name);
  return Buffer(name);
}

Buffer create_buffer(size_t size_bytes, const void* data, uint32_t storage_flags) {
  Buffer buffer = create_buffer();
  glNamedBufferStorage(buffer.id(), static_cast<GLsizeiptr>(size_bytes), data, storage_flags);
  return buffer;
}

Texture create_texture(uint32_t target) {
  GLuint name = 0;
  glCreateTextures(target, 1, &name);
  return Texture(name);
}

Texture create_texture_2d(uint32_t internal_format, int width, int height, int levels) {
  assert(width > 0 && height > 0 && levels > 0);
  Texture texture = create_texture(GL_TEXTURE_2D);
  glTextureStorage2D(texture.id(), levels, internal_format, width, height);
  glTextureParameteri(texture.id(), GL_TEXTURE_MIN_FILTER, levels > 1 ? GL_NEAREST_MIPMAP_NEAREST : GL_NEAREST);
  glTextureParameteri(texture.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

Sampler create_sampler() {
  GLuint name = 0;
  glCreateSamplers(1, &name);
  return Sampler(name);
}

Renderbuffer create_renderbuffer() {
  GLuint name = 0;
  glCreateRenderbuffers(1, &name);
  return Renderbuffer(name);
}

Framebuffer create_framebuffer() {
  GLuint name = 0;
  glCreateFramebuffers(1, &name);
  return Framebuffer(name);
}

VertexArray create_vertex_array() {
  GLuint name = 0;
  glCreateVertexArrays(1, &name);
  return VertexArray(name);
}

Query create_query(uint32_t target) {
  GLuint name = 0;
  glCreateQueries(target, 1, &name);
  return Query(name);
}

TransformFeedback create_transform_feedback() {
  GLuint name = 0;
  glCreateTransformFeedbacks(1, &name);
  return TransformFeedback(name);
}

}  // namespace vatkit::gl

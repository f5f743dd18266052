// vatkit/gl/objects.h: owning handles for GL objects (RAII, move-only).
//
// Each handle owns one GL name and deletes it when destroyed or reset; moving transfers the name
// and leaves 0 behind. The types differ per kind of object (a Texture is not a Buffer), and the
// raw name is id(), for GL calls. Objects are made with the DSA create functions (glCreate*), so
// a name is a complete object from the start. Handles must be destroyed while the context that
// made them is current, and before that context (see context.h).
//
// GL enums and names are plain uint32_t here so that this header needs no GL header; include
// vatkit/gl/gl.h (libepoxy) to make GL calls. The create functions return an empty handle (id()
// 0) only where GL itself fails; check errors with Context::check.
// Threads: every call needs the GL context that made the objects current on the calling thread;
// objects are not synchronized (one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace vatkit::gl {

enum class ObjectType : uint8_t {
  Buffer,
  Texture,
  Sampler,
  Renderbuffer,
  Framebuffer,
  VertexArray,
  Query,
  TransformFeedback,
  Shader,
  Program,
};

namespace detail {
void delete_object(ObjectType type, uint32_t name);
}  // namespace detail

template <ObjectType kType>
class Object {
 public:
  Object() = default;
  explicit Object(uint32_t name) : name_(name) {}  // takes ownership of `name`
  Object(Object&& other) noexcept : name_(std::exchange(other.name_, 0u)) {}
  Object& operator=(Object&& other) noexcept {
    if (this != &other) {
      reset();
      name_ = std::exchange(other.name_, 0u);
    }
    return *this;
  }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  ~Object() { reset(); }

  uint32_t id() const { return name_; }
  explicit operator bool() const { return name_ != 0; }
  // Gives up ownership: the caller deletes the returned name.
  uint32_t release() { return std::exchange(name_, 0u); }
  // Deletes the object now (no-op when empty).
  void reset() {
    if (name_ != 0) detail::delete_object(kType, std::exchange(name_, 0u));
  }

 private:
  uint32_t name_ = 0;
};

using Buffer = Object<ObjectType::Buffer>;
using Texture = Object<ObjectType::Texture>;
using Sampler = Object<ObjectType::Sampler>;
using Renderbuffer = Object<ObjectType::Renderbuffer>;
using Framebuffer = Object<ObjectType::Framebuffer>;
using VertexArray = Object<ObjectType::VertexArray>;
using Query = Object<ObjectType::Query>;
using TransformFeedback = Object<ObjectType::TransformFeedback>;
using Shader = Object<ObjectType::Shader>;
using Program = Object<ObjectType::Program>;

// An empty buffer object (no storage yet).
Buffer create_buffer();
// A buffer with immutable storage (glNamedBufferStorage): `size_bytes` bytes copied from `data`
// (or uninitialised when null), `storage_flags` GL_DYNAMIC_STORAGE_BIT, GL_MAP_READ_BIT, ...
Buffer create_buffer(size_t size_bytes, const void* data, uint32_t storage_flags = 0);
// A texture of `target` (GL_TEXTURE_2D, GL_TEXTURE_2D_ARRAY, GL_TEXTURE_BUFFER, ...), no storage.
Texture create_texture(uint32_t target);
// A GL_TEXTURE_2D with immutable storage, `levels` mip levels, nearest filtering, clamped.
// Precondition: width, height and levels are positive (assert in debug builds; GL reports an error).
Texture create_texture_2d(uint32_t internal_format, int width, int height, int levels = 1);
Sampler create_sampler();
Renderbuffer create_renderbuffer();
Framebuffer create_framebuffer();
VertexArray create_vertex_array();
// A query of `target` (GL_TIME_ELAPSED, GL_SAMPLES_PASSED, GL_PRIMITIVES_GENERATED, ...).
Query create_query(uint32_t target);
TransformFeedback create_transform_feedback();

}  // namespace vatkit::gl

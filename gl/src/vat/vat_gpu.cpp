// Uploading a Vat: planes from the loaded (or baked) bytes as they are, geometry, materials and images.
#include "vatkit/gl/vat_gpu.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>

#include <glm/geometric.hpp>
#include <stb_image.h>

#include "vatkit/gl/gl.h"
#include "vatkit/vat_file.h"

namespace vatkit::gl {

namespace {

struct TexelUpload {
  GLenum internal_format;
  GLenum format;
  GLenum type;
};

TexelUpload upload_format(TexelFormat f) {
  switch (f) {
    case TexelFormat::RGBA32F: return {GL_RGBA32F, GL_RGBA, GL_FLOAT};
    case TexelFormat::RGBA16F: return {GL_RGBA16F, GL_RGBA, GL_HALF_FLOAT};
    // Integers, not GL_RGBA16 unorm: the octahedral normal is unpacked from the bits, and GLES 3.0
    // has no 16-bit unorm textures. The chunk divides by 65535 as codec::unorm16_to_float does.
    case TexelFormat::RGBA16Unorm: return {GL_RGBA16UI, GL_RGBA_INTEGER, GL_UNSIGNED_SHORT};
  }
  return {GL_RGBA32F, GL_RGBA, GL_FLOAT};
}

// Pixel-unpack state that glTextureSubImage2D reads, set to "tightly packed rows from client
// memory" for the upload and restored afterwards.
class UnpackState {
 public:
  UnpackState() {
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &buffer_);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment_);
    glGetIntegerv(GL_UNPACK_ROW_LENGTH, &row_length_);
    glGetIntegerv(GL_UNPACK_SKIP_ROWS, &skip_rows_);
    glGetIntegerv(GL_UNPACK_SKIP_PIXELS, &skip_pixels_);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
  }
  ~UnpackState() {
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, GLuint(buffer_));
    glPixelStorei(GL_UNPACK_ALIGNMENT, alignment_);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, row_length_);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, skip_rows_);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, skip_pixels_);
  }
  UnpackState(const UnpackState&) = delete;
  UnpackState& operator=(const UnpackState&) = delete;

 private:
  GLint buffer_ = 0, alignment_ = 4, row_length_ = 0, skip_rows_ = 0, skip_pixels_ = 0;
};

struct StbImage {
  stbi_uc* pixels = nullptr;
  ~StbImage() { stbi_image_free(pixels); }
};

int mip_levels(int w, int h) {
  int levels = 1;
  for (int s = std::max(w, h); s > 1; s >>= 1) ++levels;
  return levels;
}

// Constant values for attributes a VAT lacks, read with binding stride 0.
struct Constants {
  float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float one[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  uint16_t slots[4] = {0, 0, 0, 0};
  float normal[4] = {0.0f, 0.0f, 1.0f, 0.0f};
};
constexpr GLintptr kConstZero = offsetof(Constants, zero);
constexpr GLintptr kConstOne = offsetof(Constants, one);
constexpr GLintptr kConstSlots = offsetof(Constants, slots);
constexpr GLintptr kConstNormal = offsetof(Constants, normal);

}  // namespace

const GpuPlane* VatGpu::plane(PlaneSemantic semantic) const {
  for (const GpuPlane& p : planes_)
    if (p.semantic == semantic) return &p;
  return nullptr;
}

// VatGpu::upload's steps, in order, each making its part of `out` (a nested class: it reaches
// VatGpu's members).
struct VatGpu::Upload {
  const Vat& vat;
  const VatUploadOptions& options;
  VatGpu& out;
  const std::string& where;
  const bool rig;
  const GLint max_texture;

  // Planes, straight from their bytes (a loaded .vat.glb: no further copy on the CPU).
  Result<void> planes() {
    for (const Plane& p : vat.planes) {
      // A delta's Slots plane (socket joints) is uploaded too: props held by a joint read it
      // (VAT_SOCKETS, props.h); the characters' vertex shaders never do.
      if (p.width == 0 || p.height == 0)
        return make_error(ErrorCode::Corrupt, where, std::string("plane ") + to_string(p.semantic) + " is empty");
      if (p.width > uint32_t(max_texture) || p.height > uint32_t(max_texture)) {
        return make_error(ErrorCode::Limit, where,
                          std::string("plane ") + to_string(p.semantic) + " is " + std::to_string(p.width) + " x " +
                              std::to_string(p.height) + " texels, over this GPU's texture limit of " +
                              std::to_string(max_texture) + " (bake with max_texture_size " +
                              std::to_string(max_texture) + ")");
      }
      if (p.data.size() < p.byte_size())
        return make_error(ErrorCode::Corrupt, where, std::string("plane ") + to_string(p.semantic) + " is truncated");
      const TexelUpload f = upload_format(p.format);
      Texture t = create_texture_2d(f.internal_format, int(p.width), int(p.height), 1);
      glTextureSubImage2D(t.id(), 0, 0, 0, GLsizei(p.width), GLsizei(p.height), f.format, f.type, p.data.data());
      out.planes_.push_back(GpuPlane{p.semantic, t.id(), p.width, p.rows_per_frame, p.height});
      out.gpu_bytes_ += p.byte_size();
      out.plane_textures_.push_back(std::move(t));
    }
    if (rig ? out.plane(PlaneSemantic::Slots) == nullptr : out.plane(PlaneSemantic::Position) == nullptr) {
      return make_error(ErrorCode::Corrupt, where,
                        rig ? "rig VAT without a slots plane" : "delta VAT without a position plane");
    }
    return {};
  }

  // q16: each frame row's clip ranges.
  Result<void> row_ranges() {
    if (vat.precision != Precision::Q16) return {};
    if (vat.frame_rows == 0 || vat.frame_rows > uint32_t(max_texture)) {
      return make_error(ErrorCode::Limit, where,
                        std::to_string(vat.frame_rows) + " frame rows: over this GPU's texture limit of " +
                            std::to_string(max_texture));
    }
    // A delta with socket joints: two more columns, its Slots plane's ranges (vat_decode.glsl).
    const size_t columns = !rig && vat.plane(PlaneSemantic::Slots) != nullptr ? 4 : 2;
    std::vector<glm::vec4> ranges(size_t(vat.frame_rows) * columns, glm::vec4(0.0f));
    for (const VatClip& c : vat.clips) {
      const Bounds& r = rig ? c.translation_range : c.delta_range;
      const Bounds& t = c.translation_range;
      const glm::vec4 texels[4] = {glm::vec4(r.min, c.scale_min), glm::vec4(r.max, c.scale_max),
                                   glm::vec4(t.min, c.scale_min), glm::vec4(t.max, c.scale_max)};
      for (uint32_t k = 0; k < c.rows && c.first_row + k < vat.frame_rows; ++k) {
        for (size_t col = 0; col < columns; ++col) ranges[size_t(c.first_row + k) * columns + col] = texels[col];
      }
    }
    out.row_ranges_ = create_texture_2d(GL_RGBA32F, int(columns), int(vat.frame_rows), 1);
    glTextureSubImage2D(out.row_ranges_.id(), 0, 0, 0, GLsizei(columns), GLsizei(vat.frame_rows), GL_RGBA, GL_FLOAT,
                        ranges.data());
    out.gpu_bytes_ += ranges.size() * sizeof(glm::vec4);
    return {};
  }

  // One vertex attribute of the vertex array from `data` (count elements), or from the constant
  // buffer at `fallback` where the VAT lacks it. Returns the buffer made for it (0: the constant).
  GLuint attribute(GLuint constant_buffer, uint32_t location, const void* data, size_t count, int components,
                   size_t element_bytes, GLintptr fallback, bool integer) {
    const GLuint vao = out.vertex_array_.id();
    GLuint made = 0;
    GLuint buffer = constant_buffer;
    GLintptr offset = fallback;
    GLsizei stride = 0;
    if (data != nullptr && count == vat.geometry.vertex_count()) {
      out.buffers_.push_back(create_buffer(count * element_bytes, data, 0));
      out.gpu_bytes_ += count * element_bytes;
      buffer = made = out.buffers_.back().id();
      offset = 0;
      stride = GLsizei(element_bytes);
    }
    glVertexArrayVertexBuffer(vao, location, buffer, offset, stride);
    if (integer) {
      glVertexArrayAttribIFormat(vao, location, components, GL_UNSIGNED_SHORT, 0);
    } else {
      glVertexArrayAttribFormat(vao, location, components, GL_FLOAT, GL_FALSE, 0);
    }
    glVertexArrayAttribBinding(vao, location, location);
    glEnableVertexArrayAttrib(vao, location);
    return made;
  }

  // The vertex array: the attributes (a rig's from its bind geometry, with its influences also as
  // buffer textures) and one index buffer, the full mesh then each level of detail.
  Result<void> geometry() {
    const VatGeometry& g = vat.geometry;
    out.vertex_array_ = create_vertex_array();
    const Constants constants;
    out.buffers_.push_back(create_buffer(sizeof(Constants), &constants, 0));
    const GLuint cb = out.buffers_.back().id();
    auto vec_data = [](const auto& v) -> const void* { return v.empty() ? nullptr : v.data(); };
    const auto& positions = rig ? g.bind_positions : g.positions;
    const auto& normals = rig ? g.bind_normals : g.normals;
    const auto& tangents = rig ? g.bind_tangents : g.tangents;
    attribute(cb, kAttribPosition, vec_data(positions), positions.size(), 3, sizeof(glm::vec3), kConstZero, false);
    attribute(cb, kAttribNormal, vec_data(normals), normals.size(), 3, sizeof(glm::vec3), kConstNormal, false);
    attribute(cb, kAttribTexcoord0, vec_data(g.texcoords0), g.texcoords0.size(), 2, sizeof(glm::vec2), kConstZero,
              false);
    attribute(cb, kAttribColor0, vec_data(g.colors0), g.colors0.size(), 4, sizeof(glm::vec4), kConstOne, false);
    attribute(cb, kAttribTangent, vec_data(tangents), tangents.size(), 4, sizeof(glm::vec4), kConstZero, false);
    const GLuint influences[4] = {attribute(cb, kAttribSlots0, rig ? vec_data(g.slots0) : nullptr, g.slots0.size(), 4,
                                            sizeof(glm::u16vec4), kConstSlots, true),
                                  attribute(cb, kAttribWeights0, rig ? vec_data(g.slot_weights0) : nullptr,
                                            g.slot_weights0.size(), 4, sizeof(glm::vec4), kConstZero, false),
                                  attribute(cb, kAttribSlots1, rig ? vec_data(g.slots1) : nullptr, g.slots1.size(), 4,
                                            sizeof(glm::u16vec4), kConstSlots, true),
                                  attribute(cb, kAttribWeights1, rig ? vec_data(g.slot_weights1) : nullptr,
                                            g.slot_weights1.size(), 4, sizeof(glm::vec4), kConstZero, false)};
    const std::vector<float> addresses = texel_addresses(vat);
    attribute(cb, kAttribVertex, vec_data(addresses), addresses.size(), 1, sizeof(float), kConstZero, false);
    for (int k = 0; k < 4; ++k) {
      if (influences[k] == 0) continue;
      Texture t = create_texture(GL_TEXTURE_BUFFER);
      glTextureBuffer(t.id(), k % 2 == 0 ? GL_RGBA16UI : GL_RGBA32F, influences[k]);
      out.influence_ids_[size_t(k)] = t.id();
      out.influence_textures_.push_back(std::move(t));
    }

    // One index buffer: the full mesh, then each level of detail.
    std::vector<uint32_t> all_indices = g.indices;
    for (const LodLevel& level : g.lods)
      all_indices.insert(all_indices.end(), level.indices.begin(), level.indices.end());
    for (uint32_t i : all_indices) {
      if (i >= g.vertex_count())
        return make_error(ErrorCode::Corrupt, where, "index " + std::to_string(i) + " past the vertex count");
    }
    out.buffers_.push_back(create_buffer(all_indices.size() * 4, all_indices.data(), 0));
    out.gpu_bytes_ += all_indices.size() * 4;
    glVertexArrayElementBuffer(out.vertex_array_.id(), out.buffers_.back().id());
    return {};
  }

  // Image `image` decoded into an sRGB texture with mipmaps, appended to out.images_.
  Result<void> image_texture(int image) {
    const Image& im = vat.images[size_t(image)];
    if (im.bytes.size() > size_t(std::numeric_limits<int>::max())) {
      return make_error(ErrorCode::Limit, where, "image " + std::to_string(image) + " is too large");
    }
    int w = 0, h = 0, channels = 0;
    auto over_limit = [&] {
      return make_error(ErrorCode::Limit, where,
                        "image " + std::to_string(image) + " is " + std::to_string(w) + " x " + std::to_string(h) +
                            ", over this GPU's texture limit");
    };
    // The header first: a few bytes of PNG can declare an image of gigabytes, which decoding
    // would allocate before finding the data missing.
    if (stbi_info_from_memory(im.bytes.data(), int(im.bytes.size()), &w, &h, &channels) &&
        (w > max_texture || h > max_texture)) {
      return over_limit();
    }
    StbImage decoded;
    decoded.pixels = stbi_load_from_memory(im.bytes.data(), int(im.bytes.size()), &w, &h, &channels, 4);
    if (decoded.pixels == nullptr) {
      const char* why = stbi_failure_reason();
      return make_error(ErrorCode::Parse, where,
                        "image " + std::to_string(image) + (im.name.empty() ? "" : " (\"" + im.name + "\")") +
                            ": cannot decode " + (im.mime_type.empty() ? "it" : im.mime_type) + ": " +
                            (why ? why : "unknown reason"));
    }
    if (w > max_texture || h > max_texture) return over_limit();
    Texture t = create_texture_2d(GL_SRGB8_ALPHA8, w, h, mip_levels(w, h));
    glTextureSubImage2D(t.id(), 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, decoded.pixels);
    glGenerateTextureMipmap(t.id());
    glTextureParameteri(t.id(), GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTextureParameteri(t.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(t.id(), GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTextureParameteri(t.id(), GL_TEXTURE_WRAP_T, GL_REPEAT);
    out.gpu_bytes_ += size_t(w) * size_t(h) * 4 * 4 / 3;
    out.images_.push_back(std::move(t));
    return {};
  }

  // Materials and their base colour images (each image once), then glTF's default material.
  Result<void> materials() {
    std::vector<int> image_texture_of(vat.images.size(), -1);  // index into out.images_
    for (const Material& m : vat.materials) {
      GpuMaterial gm;
      gm.base_color_factor = m.base_color_factor;
      gm.alpha_mode = m.alpha_mode;
      gm.alpha_cutoff = m.alpha_cutoff;
      gm.double_sided = m.double_sided;
      const int image = m.base_color_image;
      if (options.base_color_textures && image >= 0 && size_t(image) < vat.images.size()) {
        if (image_texture_of[size_t(image)] < 0) {
          if (auto made = image_texture(image); !made) return made.error();
          image_texture_of[size_t(image)] = int(out.images_.size()) - 1;
        }
        gm.base_color_texture = out.images_[size_t(image_texture_of[size_t(image)])].id();
      }
      out.materials_.push_back(gm);
    }
    out.materials_.push_back(GpuMaterial{});  // glTF's default material: white, opaque
    return {};
  }

  // The draw groups, each with its material (the default one, last, where it names none).
  Result<void> groups() {
    const VatGeometry& g = vat.geometry;
    const auto default_material = uint32_t(out.materials_.size() - 1);
    for (const DrawGroup& d : g.groups) {
      if (d.index_count == 0) continue;
      if (uint64_t(d.first_index) + d.index_count > g.indices.size()) {
        return make_error(ErrorCode::Corrupt, where, "a draw group runs past the index buffer");
      }
      const bool known = d.material >= 0 && size_t(d.material) < vat.materials.size();
      out.groups_.push_back(
          GpuDrawGroup{d.first_index, d.index_count, known ? uint32_t(d.material) : default_material});
    }
    if (out.groups_.empty()) out.groups_.push_back(GpuDrawGroup{0, uint32_t(g.indices.size()), default_material});
    return {};
  }

  // Levels of detail: the same groups (by material) over each level's index range.
  Result<void> levels() {
    const VatGeometry& g = vat.geometry;
    GpuLodLevel full;
    full.groups = out.groups_;
    full.triangles = uint32_t(g.indices.size() / 3);
    full.screen_size = std::numeric_limits<float>::max();
    out.levels_.push_back(std::move(full));
    uint32_t level_first = uint32_t(g.indices.size());
    for (const LodLevel& level : g.lods) {
      GpuLodLevel gl_level;
      gl_level.triangles = uint32_t(level.indices.size() / 3);
      gl_level.error_in_motion = level.error_in_motion;
      gl_level.screen_size = level.screen_size;
      for (const GpuDrawGroup& drawn : out.groups_) {
        GpuDrawGroup lg{level_first, 0, drawn.material};
        if (g.groups.empty()) {
          lg.index_count = uint32_t(level.indices.size());
        } else {
          // The full mesh's group with this material and first index; the level's group at the same position.
          for (size_t k = 0; k < g.groups.size() && k < level.groups.size(); ++k) {
            if (g.groups[k].first_index == drawn.first_index && g.groups[k].index_count == drawn.index_count) {
              const DrawGroup& d = level.groups[k];
              if (uint64_t(d.first_index) + d.index_count > level.indices.size()) {
                return make_error(ErrorCode::Corrupt, where, "a level-of-detail draw group runs past its indices");
              }
              lg.first_index = level_first + d.first_index;
              lg.index_count = d.index_count;
              break;
            }
          }
        }
        gl_level.groups.push_back(lg);
      }
      level_first += uint32_t(level.indices.size());
      out.levels_.push_back(std::move(gl_level));
    }
    out.lod_radius_ = std::max(glm::length(vat.bounds.max - vat.bounds.min) * 0.5f, 1e-6f);
    return {};
  }

  // Per-row clip bounds, for culling.
  void row_bounds() {
    const uint32_t rows = std::max(vat.frame_rows, 1u);
    std::vector<glm::vec4> boxes(size_t(rows) * 2);
    for (uint32_t r = 0; r < rows; ++r) {
      boxes[size_t(r) * 2] = glm::vec4(vat.bounds.min, 0.0f);
      boxes[size_t(r) * 2 + 1] = glm::vec4(vat.bounds.max, 0.0f);
    }
    for (const VatClip& c : vat.clips) {
      for (uint32_t k = 0; k < c.rows && c.first_row + k < rows; ++k) {
        boxes[size_t(c.first_row + k) * 2] = glm::vec4(c.bounds.min, 0.0f);
        boxes[size_t(c.first_row + k) * 2 + 1] = glm::vec4(c.bounds.max, 0.0f);
      }
    }
    out.row_bounds_buffer_ = create_buffer(boxes.size() * sizeof(glm::vec4), boxes.data(), 0);
    out.row_bounds_texture_ = create_texture(GL_TEXTURE_BUFFER);
    glTextureBuffer(out.row_bounds_texture_.id(), GL_RGBA32F, out.row_bounds_buffer_.id());
    out.gpu_bytes_ += boxes.size() * sizeof(glm::vec4);
  }
};

Result<VatGpu> VatGpu::upload(const Vat& vat, const VatUploadOptions& options) {
  const std::string& where = vat.source.empty() ? std::string("vat") : vat.source;
  VatGpu out;
  out.meta_.encoding = vat.encoding;
  out.meta_.precision = vat.precision;
  out.meta_.frame_rows = vat.frame_rows;
  out.meta_.clips = vat.clips;
  out.meta_.bounds = vat.bounds;
  out.meta_.slots = vat.slots;
  out.meta_.materials = vat.materials;
  out.meta_.source = where;
  out.vertex_count_ = vat.geometry.vertex_count();
  out.index_count_ = uint32_t(vat.geometry.indices.size());
  out.defines_ = decode_defines(vat);

  const VatGeometry& g = vat.geometry;
  if (g.vertex_count() == 0 || g.indices.empty())
    return make_error(ErrorCode::Argument, where, "the VAT has no geometry to draw");
  if (uint64_t(g.vertex_count()) > uint64_t(std::numeric_limits<int32_t>::max())) {
    return make_error(ErrorCode::Limit, where,
                      std::to_string(g.vertex_count()) + " vertices: more than gl_VertexID holds");
  }
  const bool rig = vat.encoding == Encoding::Rig;
  if (rig && (g.bind_positions.size() != g.vertex_count() || g.slots0.size() != g.vertex_count() ||
              g.slot_weights0.size() != g.vertex_count())) {
    return make_error(ErrorCode::Corrupt, where, "rig VAT without bind positions, slots and weights for every vertex");
  }

  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  UnpackState unpack;
  Upload up{vat, options, out, where, rig, max_texture};
  Result<void> done = up.planes();
  if (done) done = up.row_ranges();
  if (done) done = up.geometry();
  if (done) done = up.materials();
  if (done) done = up.groups();
  if (done) done = up.levels();
  if (!done) return done.error();
  up.row_bounds();
  return out;
}

VertexArray VatGpu::vertex_array_with(uint32_t position_buffer, uint32_t normal_buffer) const {
  VertexArray vao = create_vertex_array();
  const GLuint src = vertex_array_.id();
  const GLuint dst = vao.id();
  for (uint32_t location = kAttribPosition; location <= kAttribVertex; ++location) {
    GLint buffer = 0, stride = 0, size = 0, type = 0, integer = 0;
    GLint64 offset = 0;
    glGetVertexArrayIndexed64iv(src, location, GL_VERTEX_BINDING_OFFSET, &offset);
    glGetVertexArrayIndexediv(src, location, GL_VERTEX_BINDING_BUFFER, &buffer);
    glGetVertexArrayIndexediv(src, location, GL_VERTEX_BINDING_STRIDE, &stride);
    glGetVertexArrayIndexediv(src, location, GL_VERTEX_ATTRIB_ARRAY_SIZE, &size);
    glGetVertexArrayIndexediv(src, location, GL_VERTEX_ATTRIB_ARRAY_TYPE, &type);
    glGetVertexArrayIndexediv(src, location, GL_VERTEX_ATTRIB_ARRAY_INTEGER, &integer);
    if (location == kAttribPosition || location == kAttribNormal) {
      buffer = GLint(location == kAttribPosition ? position_buffer : normal_buffer);
      offset = 0;
      stride = GLint(sizeof(glm::vec3));
      size = 3;
      type = GL_FLOAT;
      integer = 0;
    }
    glVertexArrayVertexBuffer(dst, location, GLuint(buffer), GLintptr(offset), stride);
    if (integer) {
      glVertexArrayAttribIFormat(dst, location, size, GLenum(type), 0);
    } else {
      glVertexArrayAttribFormat(dst, location, size, GLenum(type), GL_FALSE, 0);
    }
    glVertexArrayAttribBinding(dst, location, location);
    glEnableVertexArrayAttrib(dst, location);
  }
  GLint elements = 0;
  glGetVertexArrayiv(src, GL_ELEMENT_ARRAY_BUFFER_BINDING, &elements);
  glVertexArrayElementBuffer(dst, GLuint(elements));
  return vao;
}

MaterialUniforms MaterialUniforms::find(uint32_t program) {
  MaterialUniforms u;
  u.factor = glGetUniformLocation(program, "u_base_color_factor");
  u.has_texture = glGetUniformLocation(program, "u_has_base_color_texture");
  u.alpha_mode = glGetUniformLocation(program, "u_alpha_mode");
  u.alpha_cutoff = glGetUniformLocation(program, "u_alpha_cutoff");
  return u;
}

void MaterialUniforms::apply(uint32_t program, const GpuMaterial& m, int unit, UniformCache* cache) const {
  const int32_t textured = m.base_color_texture != 0 ? 1 : 0;
  if (cache) {
    cache->set(program, factor, m.base_color_factor);
    cache->set(program, has_texture, textured);
    cache->set(program, alpha_mode, int32_t(m.alpha_mode));
    cache->set(program, alpha_cutoff, m.alpha_cutoff);
  } else {
    glProgramUniform4fv(program, factor, 1, &m.base_color_factor.x);
    glProgramUniform1i(program, has_texture, textured);
    glProgramUniform1i(program, alpha_mode, int32_t(m.alpha_mode));
    glProgramUniform1f(program, alpha_cutoff, m.alpha_cutoff);
  }
  glBindTextureUnit(GLuint(unit), m.base_color_texture);
  if (m.double_sided) {
    glDisable(GL_CULL_FACE);
  } else {
    glEnable(GL_CULL_FACE);
  }
}

namespace {
// Calls bind(unit, texture) for each plane of `planes` and the q16 row ranges (0: none).
template <class Bind>
void for_each_decode_texture(const std::vector<GpuPlane>& planes, uint32_t row_ranges, const DecodeUnits& units,
                             Bind&& bind) {
  for (const GpuPlane& p : planes) {
    switch (p.semantic) {
      case PlaneSemantic::Position: bind(units.position, p.texture); break;
      case PlaneSemantic::Normal: bind(units.normal, p.texture); break;
      case PlaneSemantic::Tangent: bind(units.tangent, p.texture); break;
      case PlaneSemantic::Slots: bind(units.slots, p.texture); break;
    }
  }
  if (row_ranges != 0) bind(units.row_ranges, row_ranges);
}
}  // namespace

void VatGpu::bind_decode_textures(const DecodeUnits& units) const {
  for_each_decode_texture(planes_, row_ranges_.id(), units,
                          [](int unit, uint32_t texture) { glBindTextureUnit(GLuint(unit), texture); });
}

void VatGpu::decode_textures(std::span<uint32_t> names, const DecodeUnits& units) const {
  for_each_decode_texture(planes_, row_ranges_.id(), units, [&](int unit, uint32_t texture) {
    if (unit >= 0 && size_t(unit) < names.size()) names[size_t(unit)] = texture;
  });
}

void VatGpu::set_decode_uniforms(uint32_t program, const DecodeUnits& units) const {
  auto sampler = [&](const char* name, int unit) {
    const GLint at = glGetUniformLocation(program, name);
    if (at >= 0) glProgramUniform1i(program, at, unit);
  };
  sampler("u_vat_position", units.position);
  sampler("u_vat_normal", units.normal);
  sampler("u_vat_tangent", units.tangent);
  sampler("u_vat_slots", units.slots);
  sampler("u_vat_row_ranges", units.row_ranges);
  sampler("u_vat_instances", units.instances);
  for (const GpuPlane& p : planes_) {
    const std::string name = std::string("u_vat_") + to_string(p.semantic) + "_layout";
    const GLint at = glGetUniformLocation(program, name.c_str());
    if (at >= 0) glProgramUniform2i(program, at, GLint(p.width), GLint(p.rows_per_frame));
  }
}

}  // namespace vatkit::gl

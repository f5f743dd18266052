// vatkit/gl/vat_gpu.h: a Vat on the GPU: its planes, its geometry, its materials.
//
// VatGpu::upload copies a loaded Vat (vat_file.h's load_vat reads the file into memory the Vat
// owns: the plane bytes go from there straight into the textures, with no further copy on the
// CPU) into GL objects:
//  - each plane as a 2D texture in its texel format (f32 GL_RGBA32F, f16 GL_RGBA16F, q16
//    GL_RGBA16UI, read as integers so that the octahedral normal's bits arrive exact), one mip
//    level, read with texelFetch at the wrapped-row address of vat.h;
//  - q16 only: the clip ranges per frame row (u_vat_row_ranges, see decode_glsl.h);
//  - the geometry: one vertex buffer per attribute, the index buffer, and a vertex array with the
//    attribute locations below; draw groups per material;
//  - the base colour images (PNG or JPEG, decoded with stb_image) as sRGB textures with mipmaps.
// After upload the Vat may be dropped: VatGpu keeps the small metadata it needs (clip table,
// bounds, materials, plane layouts), not the planes or the geometry.
//
// Vertex attribute locations of vertex_array() (the decode chunk's VatRest, filled by crowd.vert):
//   0 position   vec3   delta: rest position;  rig: bind position
//   1 normal     vec3   delta: rest normal;    rig: bind normal
//   2 texcoord0  vec2   (0, 0) when the VAT has none
//   3 color0     vec4   (1, 1, 1, 1) when the VAT has none
//   4 tangent    vec4   delta: rest tangent;   rig: bind tangent; (0, 0, 0, 0) when none
//   5 slots0     uvec4  rig only (integer attribute)
//   6 weights0   vec4   rig only
//   7 slots1     uvec4  rig with 8 influences
//   8 weights1   vec4   rig with 8 influences
// An attribute the VAT lacks reads a constant from a one-element buffer (binding stride 0).
//
// What it does NOT do: draw (crowd.h does), stream (the whole VAT is resident), compress textures.
// Cost: upload copies every plane and attribute to the GPU once (O(VAT bytes)) and decodes the
// images on the CPU; the accessors are O(1).
// Threads: every call needs the GL context that made the objects current on the calling thread;
// objects are not synchronized (one thread at a time).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vatkit/gl/decode_glsl.h"
#include "vatkit/gl/objects.h"
#include "vatkit/gl/program.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit::gl {

enum AttributeLocation : uint32_t {
  kAttribPosition = 0,
  kAttribNormal = 1,
  kAttribTexcoord0 = 2,
  kAttribColor0 = 3,
  kAttribTangent = 4,
  kAttribSlots0 = 5,
  kAttribWeights0 = 6,
  kAttribSlots1 = 7,
  kAttribWeights1 = 8,
  // Delta: the vertex's texel column as one float (texel_addresses(vat), the file's _VAT_VERTEX):
  // what the crowd shader passes to vat_decode, as an engine would. Rig: a constant 0, unread.
  kAttribVertex = 9,
};

struct VatUploadOptions {
  bool base_color_textures = true;  // false: materials draw with their base colour factor only
};

// A material as the renderer uses it.
struct GpuMaterial {
  glm::vec4 base_color_factor{1.0f};
  uint32_t base_color_texture = 0;  // GL texture name, 0 = none
  AlphaMode alpha_mode = AlphaMode::Opaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
};

// The material uniforms of vatkit's lit shaders (crowd.frag, and any fragment shader using the
// same names: u_base_color_factor, u_has_base_color_texture, u_alpha_mode, u_alpha_cutoff), found
// once per program; apply() sets them for one material (through `cache` when given: program.h,
// UniformCache), binds its base colour texture to `unit` and turns back-face culling on for
// single-sided materials, off for double-sided ones.
struct MaterialUniforms {
  int factor = -1, has_texture = -1, alpha_mode = -1, alpha_cutoff = -1;

  static MaterialUniforms find(uint32_t program);
  void apply(uint32_t program, const GpuMaterial& material, int unit, UniformCache* cache = nullptr) const;
};

// One draw: a range of the index buffer drawn with one material.
struct GpuDrawGroup {
  uint32_t first_index = 0;
  uint32_t index_count = 0;
  uint32_t material = 0;  // index into VatGpu::materials() (the default material is appended)
};

// A level of detail on the GPU (vat.h's LodLevel): one draw group per entry of VatGpu::groups(),
// same order and materials (index_count 0 where the level has no triangles of that material),
// all ranges of the one index buffer. Level 0 is the full mesh.
struct GpuLodLevel {
  std::vector<GpuDrawGroup> groups;
  uint32_t triangles = 0;
  float error_in_motion = 0.0f;  // object units; 0 for level 0
  float screen_size = 0.0f;      // lod.h; FLT_MAX for level 0
};

// Where a plane is and how it is addressed.
struct GpuPlane {
  PlaneSemantic semantic = PlaneSemantic::Position;
  uint32_t texture = 0;  // GL_TEXTURE_2D name
  uint32_t width = 0;
  uint32_t rows_per_frame = 1;
  uint32_t height = 0;
};

class VatGpu {
 public:
  // Needs a current context. Errors (one line, naming vat.source): a plane wider or taller than
  // the context's GL_MAX_TEXTURE_SIZE (with the size), more vertices than a vertex ID holds, an
  // image that stb_image cannot decode (naming the image). GL errors (out of memory) surface
  // through Context::check, as for any GL call.
  static Result<VatGpu> upload(const Vat& vat, const VatUploadOptions& options = {});

  VatGpu() = default;
  VatGpu(VatGpu&&) noexcept = default;
  VatGpu& operator=(VatGpu&&) noexcept = default;

  // The Vat without its planes, geometry and images: encoding, precision, frame rows, the clip
  // table (for playback.h's clip_band), bounds, materials, slots and source.
  const Vat& metadata() const { return meta_; }
  Encoding encoding() const { return meta_.encoding; }
  Precision precision() const { return meta_.precision; }
  uint32_t frame_rows() const { return meta_.frame_rows; }
  const std::vector<VatClip>& clips() const { return meta_.clips; }
  const Bounds& bounds() const { return meta_.bounds; }  // union of every clip's object-space bounds
  const std::string& source() const { return meta_.source; }
  uint32_t vertex_count() const { return vertex_count_; }
  uint32_t index_count() const { return index_count_; }

  // The decode chunk's defines for this VAT (decode_defines of the Vat it came from).
  const std::vector<std::string>& defines() const { return defines_; }
  std::span<const GpuPlane> planes() const { return planes_; }
  const GpuPlane* plane(PlaneSemantic semantic) const;

  uint32_t vertex_array() const { return vertex_array_.id(); }  // index buffer attached
  // A new vertex array with this VAT's attributes and index buffer, except positions and normals,
  // which come from `position_buffer` and `normal_buffer` (a vec3 per vertex, tightly packed).
  VertexArray vertex_array_with(uint32_t position_buffer, uint32_t normal_buffer) const;
  std::span<const GpuDrawGroup> groups() const { return groups_; }
  std::span<const GpuMaterial> materials() const { return materials_; }

  // Levels of detail, finest first: levels()[0] is the full mesh (groups()), then the Vat's
  // geometry.lods, whose index ranges follow the full mesh's in the same index buffer.
  std::span<const GpuLodLevel> levels() const { return levels_; }
  // The radius of the sphere around bounds() that lod.h's screen sizes are relative to.
  float lod_radius() const { return lod_radius_; }

  // Rig: buffer textures over the influence vertex buffers (attributes 5-8), for shaders that
  // fetch a vertex's influences by its index (texelFetch(t, gl_VertexID)) instead of as vertex
  // attributes: [0] slots0 (GL_RGBA16UI), [1] weights0 (GL_RGBA32F), [2] slots1, [3] weights1
  // (eight influences); 0 where the VAT has none. vatkit's crowds read them so: as vertex attributes
  // they lengthen a crowd's render markedly on NVIDIA hardware, the texel fetches cost next to
  // nothing (docs/benchmarks.md).
  const std::array<uint32_t, 4>& influence_textures() const { return influence_ids_; }

  // For culling: a GL_RGBA32F buffer texture of 2 texels per frame row, (min, 0) and (max, 0) of
  // the object-space bounds of the clip holding the row (VatClip::bounds; bounds() for a row of
  // no clip). An instance showing rows r (and r' while a fade or blend mixes in a second band)
  // lies within the union of their boxes.
  uint32_t row_bounds_texture() const { return row_bounds_texture_.id(); }

  // Binds the planes (and the q16 row ranges) to `units`, and sets the chunk's sampler and
  // layout uniforms of `program` (glProgramUniform: the program need not be bound). Sets nothing
  // for uniforms the program does not use.
  void bind_decode_textures(const DecodeUnits& units = {}) const;
  void set_decode_uniforms(uint32_t program, const DecodeUnits& units = {}) const;
  // What bind_decode_textures binds, into a table of texture names by unit (`names[unit]`, for
  // glBindTextures; units of `units` past names.size() are skipped): to bind the decode textures
  // with others in one call.
  void decode_textures(std::span<uint32_t> names, const DecodeUnits& units = {}) const;

  // GPU memory held, in bytes (planes, row ranges, geometry, images at their base level x 4/3).
  size_t gpu_bytes() const { return gpu_bytes_; }

 private:
  struct Upload;  // upload's steps (vat_gpu.cpp)

  Vat meta_;
  uint32_t vertex_count_ = 0;
  uint32_t index_count_ = 0;
  std::vector<std::string> defines_;

  std::vector<Texture> plane_textures_;
  std::vector<GpuPlane> planes_;
  Texture row_ranges_;
  std::vector<Buffer> buffers_;  // vertex attributes, constants, indices
  VertexArray vertex_array_;
  std::vector<Texture> images_;
  std::vector<GpuMaterial> materials_;
  std::vector<GpuDrawGroup> groups_;
  std::vector<GpuLodLevel> levels_;
  float lod_radius_ = 0.0f;
  Buffer row_bounds_buffer_;
  Texture row_bounds_texture_;
  std::vector<Texture> influence_textures_;
  std::array<uint32_t, 4> influence_ids_{};
  size_t gpu_bytes_ = 0;
};

}  // namespace vatkit::gl

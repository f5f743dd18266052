// Live skinning for `vatkit bench` (see live_skinning.h).
#include "live_skinning.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "vatkit/gl/capture.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/program.h"
#include "vatkit/instance_table.h"
#include "vatkit/mirror.h"
#include "vatkit/parallel.h"
#include "vatkit/playback.h"
#include "util/printable.h"
#include "vatkit/sample.h"
#include "vatkit/scene.h"

namespace vatkit::cli {

namespace {

constexpr uint32_t kTexelsPerSlot = 3;  // rows 0-2 of the affine slot matrix
constexpr uint32_t kUnitPalette = 0, kUnitWorld = 1, kUnitBaseColor = 2;

// The vertex stage: linear blend skinning of the rig bake's bind geometry with this frame's
// palette, then the instance's world matrix. Outputs match the crowd's (crowd_vertex_glsl).
constexpr const char* kLiveVertex = R"(
layout(location = 0) in vec3 a_position;   // bind position
layout(location = 1) in vec3 a_normal;     // bind normal
layout(location = 2) in vec2 a_texcoord0;
layout(location = 3) in vec4 a_color0;
layout(location = 5) in uvec4 a_slots0;
layout(location = 6) in vec4 a_weights0;
#ifdef LIVE_EIGHT_INFLUENCES
layout(location = 7) in uvec4 a_slots1;
layout(location = 8) in vec4 a_weights1;
#endif

uniform samplerBuffer u_palette;  // 3 RGBA32F texels (matrix rows) per slot per instance
uniform samplerBuffer u_world;    // 4 RGBA32F texels (matrix columns) per instance
uniform int u_slot_count;
uniform mat4 u_view_projection;

out vec3 v_world_position;
out vec3 v_world_normal;
out vec2 v_texcoord0;
out vec4 v_color0;

void add_slot(int base, uint slot, float w, inout vec4 r0, inout vec4 r1, inout vec4 r2) {
  int t = base + int(slot) * 3;
  r0 += w * texelFetch(u_palette, t);
  r1 += w * texelFetch(u_palette, t + 1);
  r2 += w * texelFetch(u_palette, t + 2);
}

void main() {
  int instance = gl_InstanceID;
  int base = instance * u_slot_count * 3;
  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
  add_slot(base, a_slots0.x, a_weights0.x, r0, r1, r2);
  add_slot(base, a_slots0.y, a_weights0.y, r0, r1, r2);
  add_slot(base, a_slots0.z, a_weights0.z, r0, r1, r2);
  add_slot(base, a_slots0.w, a_weights0.w, r0, r1, r2);
#ifdef LIVE_EIGHT_INFLUENCES
  add_slot(base, a_slots1.x, a_weights1.x, r0, r1, r2);
  add_slot(base, a_slots1.y, a_weights1.y, r0, r1, r2);
  add_slot(base, a_slots1.z, a_weights1.z, r0, r1, r2);
  add_slot(base, a_slots1.w, a_weights1.w, r0, r1, r2);
#endif
  vec4 p = vec4(a_position, 1.0);
  vec3 object_position = vec3(dot(r0, p), dot(r1, p), dot(r2, p));
  mat3 blended = transpose(mat3(r0.xyz, r1.xyz, r2.xyz));
  vec3 object_normal = blended * a_normal;  // slots are similarities: no inverse transpose needed
  int w = instance * 4;
  mat4 world = mat4(texelFetch(u_world, w), texelFetch(u_world, w + 1), texelFetch(u_world, w + 2),
                    texelFetch(u_world, w + 3));
  vec4 world_position = world * vec4(object_position, 1.0);
  v_world_position = world_position.xyz;
  v_world_normal = normalize(mat3(world) * object_normal);
  v_texcoord0 = a_texcoord0;
  v_color0 = a_color0;
  gl_Position = u_view_projection * world_position;
}
)";

// Base colour x texture x vertex colour, one directional light and hemispheric ambient, sRGB.
constexpr const char* kLiveFragment = R"(
in vec3 v_world_position;
in vec3 v_world_normal;
in vec2 v_texcoord0;
in vec4 v_color0;

uniform vec4 u_base_color_factor;
uniform int u_has_base_color_texture;
uniform sampler2D u_base_color_texture;
uniform int u_alpha_mode;
uniform float u_alpha_cutoff;
uniform vec3 u_light_direction;
uniform vec3 u_light_color;
uniform vec3 u_sky;
uniform vec3 u_bounce;

out vec4 frag_color;

vec3 to_srgb(vec3 c) {
  c = clamp(c, 0.0, 1.0);
  return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

void main() {
  vec4 base = u_base_color_factor * v_color0;
  if (u_has_base_color_texture != 0) base *= texture(u_base_color_texture, v_texcoord0);
  if (u_alpha_mode == 1 && base.a < u_alpha_cutoff) discard;
  vec3 n = normalize(v_world_normal);
  if (!gl_FrontFacing) n = -n;
  vec3 ambient = mix(u_bounce, u_sky, 0.5 + 0.5 * n.y);
  vec3 color = base.rgb * (u_light_color * max(dot(n, u_light_direction), 0.0) + ambient);
  frag_color = vec4(to_srgb(color), u_alpha_mode == 2 ? base.a : 1.0);
}
)";

struct InstanceInfo {
  Track track;              // the primary band (playback.h)
  uint32_t clip = 0;        // index into the VAT's clips
  int32_t animation = -1;   // the source animation sampled
  float duration_s = 0.0f;  // of the clip
};

constexpr size_t kTile = 32;  // instances of one clip sampled together (sample_animation_batch)

// Per-thread scratch of the CPU path, sized once for an asset and reused every frame.
struct Scratch {
  const Asset* asset = nullptr;
  std::vector<Pose> poses;
  std::vector<float> times;
  std::vector<glm::mat4> world;
};

Scratch& thread_scratch(const Asset& asset) {
  thread_local Scratch scratch;
  if (scratch.asset != &asset) {
    scratch.poses.assign(kTile, make_rest_pose(asset));
    scratch.times.assign(kTile, 0.0f);
    scratch.world.assign(asset.nodes.size(), glm::mat4(1.0f));
    scratch.asset = &asset;
  }
  return scratch;
}

}  // namespace

struct LiveSkinning::Impl {
  const Asset* asset = nullptr;
  const gl::VatGpu* vat = nullptr;
  std::vector<VatSlot> slots;
  std::vector<InstanceInfo> instances;
  std::vector<uint32_t> order;  // instance indices grouped by clip
  std::vector<uint32_t> tiles;  // tile t is order[tiles[t], tiles[t + 1]): one clip, <= kTile
  std::vector<glm::mat4> worlds;
  std::vector<glm::vec4> palette;  // instances x slots x 3 texels
  bool eight = false;

  gl::Buffer palette_buffer, world_buffer;
  gl::Texture palette_texture, world_texture;
  gl::Program program;
  int u_palette = -1, u_world = -1, u_slot_count = -1, u_view_projection = -1;
  gl::MaterialUniforms material;
  int u_texture = -1;
  int u_light_direction = -1, u_light_color = -1, u_sky = -1, u_bounce = -1;

  std::vector<std::string> defines() const {
    return eight ? std::vector<std::string>{"LIVE_EIGHT_INFLUENCES"} : std::vector<std::string>{};
  }

  // Tile `tile`: up to kTile instances of one clip, sampled with one sample_animation_batch call
  // (channel-outer over the tile), then world matrices and palette per instance.
  void write_tile(size_t tile, float time_s) {
    Scratch& s = thread_scratch(*asset);
    const uint32_t begin = tiles[tile], end = tiles[tile + 1];
    const size_t count = end - begin;
    const int32_t animation = instances[order[begin]].animation;
    for (size_t k = 0; k < count; ++k) {
      const InstanceInfo& info = instances[order[begin + k]];
      s.times[k] = resolve_track(info.track, time_s).phase * info.duration_s;
    }
    const std::span<Pose> poses(s.poses.data(), count);
    if (animation >= 0) {
      sample_animation_batch(*asset, asset->animations[size_t(animation)],
                             std::span<const float>(s.times.data(), count), poses, 1);
    } else {
      for (Pose& pose : poses) reset_pose(*asset, pose);
    }
    for (size_t k = 0; k < count; ++k) {
      compute_world_matrices(*asset, poses[k], s.world);
      glm::vec4* out = palette.data() + size_t(order[begin + k]) * slots.size() * kTexelsPerSlot;
      for (const VatSlot& slot : slots) {
        const glm::mat4 m = s.world[size_t(slot.node)] * slot.inverse_bind;
        out[0] = glm::vec4(m[0][0], m[1][0], m[2][0], m[3][0]);
        out[1] = glm::vec4(m[0][1], m[1][1], m[2][1], m[3][1]);
        out[2] = glm::vec4(m[0][2], m[1][2], m[2][2], m[3][2]);
        out += kTexelsPerSlot;
      }
    }
  }

  void bind_textures() const {
    glBindTextureUnit(kUnitPalette, palette_texture.id());
    glBindTextureUnit(kUnitWorld, world_texture.id());
  }

  void set_vertex_uniforms(uint32_t p, const glm::mat4& view_projection) const {
    glProgramUniform1i(p, glGetUniformLocation(p, "u_palette"), int(kUnitPalette));
    glProgramUniform1i(p, glGetUniformLocation(p, "u_world"), int(kUnitWorld));
    glProgramUniform1i(p, glGetUniformLocation(p, "u_slot_count"), int(slots.size()));
    glProgramUniformMatrix4fv(p, glGetUniformLocation(p, "u_view_projection"), 1, GL_FALSE, &view_projection[0][0]);
  }
};

LiveSkinning::LiveSkinning() = default;
LiveSkinning::LiveSkinning(LiveSkinning&&) noexcept = default;
LiveSkinning& LiveSkinning::operator=(LiveSkinning&&) noexcept = default;
LiveSkinning::~LiveSkinning() = default;

Result<LiveSkinning> LiveSkinning::create(const Asset& asset, const gl::VatGpu& vat, const gl::Crowd& crowd,
                                          int64_t max_buffer_texels) {
  const std::string& where = vat.source();
  if (vat.encoding() != Encoding::Rig) return make_error(ErrorCode::Argument, where, "live skinning needs a rig bake");
  const Vat& meta = vat.metadata();
  if (meta.slots.empty()) return make_error(ErrorCode::Corrupt, where, "the rig has no slots");
  for (const VatSlot& slot : meta.slots) {
    if (slot.node < 0 || size_t(slot.node) >= asset.nodes.size()) {
      return make_error(ErrorCode::Argument, where,
                        "slot '" + printable(slot.name) + "' names node " + std::to_string(slot.node) + ", which " +
                            asset.source + " does not have");
    }
  }
  const uint32_t n = crowd.size();
  const uint64_t palette_texels = uint64_t(n) * meta.slots.size() * kTexelsPerSlot;
  if (max_buffer_texels > 0 &&
      (palette_texels > uint64_t(max_buffer_texels) || uint64_t(n) * 4 > uint64_t(max_buffer_texels))) {
    return make_error(ErrorCode::Limit, where,
                      "live skinning: " + std::to_string(n) + " instances x " + std::to_string(meta.slots.size()) +
                          " slots need " + std::to_string(palette_texels) +
                          " palette texels, above the GPU's buffer texture limit of " +
                          std::to_string(max_buffer_texels));
  }

  LiveSkinning live;
  live.impl_ = std::make_unique<Impl>();
  Impl& m = *live.impl_;
  m.asset = &asset;
  m.vat = &vat;
  m.slots = meta.slots;
  m.eight = std::find(vat.defines().begin(), vat.defines().end(), "VAT_EIGHT_INFLUENCES") != vat.defines().end();

  m.instances.resize(n);
  m.worlds.resize(n);
  const std::span<const PackedInstance> rows = crowd.table().rows();
  for (uint32_t i = 0; i < n; ++i) {
    InstanceInfo& info = m.instances[i];
    info.track = unpack(rows[i]).primary;
    bool found = false;
    for (size_t c = 0; c < meta.clips.size(); ++c) {
      const VatClip& clip = meta.clips[c];
      if (info.track.first_row >= clip.first_row && info.track.first_row < clip.first_row + clip.rows) {
        info.clip = uint32_t(c);
        info.animation = clip.source_animation;
        info.duration_s = clip.duration_s;
        found = true;
        break;
      }
    }
    if (!found)
      return make_error(ErrorCode::Argument, where, "instance " + std::to_string(i) + " plays no clip of the VAT");
    if (info.animation >= int32_t(asset.animations.size())) {
      return make_error(ErrorCode::Argument, where,
                        "clip '" + printable(meta.clips[info.clip].name) + "' comes from animation " +
                            std::to_string(info.animation) + ", which " + asset.source + " does not have");
    }
    m.worlds[i] = crowd.world(i);
  }
  m.palette.assign(palette_texels, glm::vec4(0.0f));
  m.order.resize(n);
  for (uint32_t i = 0; i < n; ++i) m.order[i] = i;
  std::stable_sort(m.order.begin(), m.order.end(),
                   [&](uint32_t a, uint32_t b) { return m.instances[a].clip < m.instances[b].clip; });
  m.tiles.push_back(0);
  for (uint32_t k = 1; k <= n; ++k) {
    if (k == n || k - m.tiles.back() == kTile || m.instances[m.order[k]].clip != m.instances[m.order[k - 1]].clip) {
      m.tiles.push_back(k);
    }
  }

  m.palette_buffer = gl::create_buffer(palette_texels * sizeof(glm::vec4), nullptr, GL_DYNAMIC_STORAGE_BIT);
  m.palette_texture = gl::create_texture(GL_TEXTURE_BUFFER);
  glTextureBuffer(m.palette_texture.id(), GL_RGBA32F, m.palette_buffer.id());
  m.world_buffer = gl::create_buffer(m.worlds.size() * sizeof(glm::mat4), m.worlds.data(), 0);
  m.world_texture = gl::create_texture(GL_TEXTURE_BUFFER);
  glTextureBuffer(m.world_texture.id(), GL_RGBA32F, m.world_buffer.id());

  gl::ProgramDesc desc;
  desc.name = "live_skinning";
  desc.shaders = {{gl::ShaderStage::Vertex, kLiveVertex, "live_skinning.vert"},
                  {gl::ShaderStage::Fragment, kLiveFragment, "live_skinning.frag"}};
  desc.defines = m.defines();
  Result<gl::Program> program = gl::build_program(desc);
  if (!program) return program.error();
  m.program = std::move(*program);
  const uint32_t p = m.program.id();
  m.material = gl::MaterialUniforms::find(p);
  m.u_texture = gl::uniform_location(m.program, "u_base_color_texture");
  m.u_light_direction = gl::uniform_location(m.program, "u_light_direction");
  m.u_light_color = gl::uniform_location(m.program, "u_light_color");
  m.u_sky = gl::uniform_location(m.program, "u_sky");
  m.u_bounce = gl::uniform_location(m.program, "u_bounce");
  glProgramUniform1i(p, m.u_texture, int(kUnitBaseColor));
  return live;
}

uint32_t LiveSkinning::size() const { return uint32_t(impl_->instances.size()); }
uint32_t LiveSkinning::slot_count() const { return uint32_t(impl_->slots.size()); }
uint32_t LiveSkinning::clip(uint32_t i) const { return impl_->instances[i].clip; }

float LiveSkinning::local_time(uint32_t i, float time_s) const {
  const InstanceInfo& info = impl_->instances[i];
  return resolve_track(info.track, time_s).phase * info.duration_s;
}

void LiveSkinning::update(float time_s) {
  Impl& m = *impl_;
  parallel_for(m.tiles.size() - 1, 2, 0, [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) m.write_tile(t, time_s);
  });
}

void LiveSkinning::upload() {
  Impl& m = *impl_;
  glNamedBufferSubData(m.palette_buffer.id(), 0, GLsizeiptr(m.palette.size() * sizeof(glm::vec4)), m.palette.data());
}

uint64_t LiveSkinning::triangles_per_draw() const {
  return uint64_t(impl_->vat->index_count() / 3) * impl_->instances.size();
}

void LiveSkinning::draw(const gl::RenderTarget& target, const gl::Camera& camera, const glm::vec3& background,
                        const gl::Light& light) {
  Impl& m = *impl_;
  target.clear(background.x, background.y, background.z, 1.0f);
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
  const uint32_t p = m.program.id();
  const glm::mat4 view_projection = camera.projection(float(target.width()) / float(target.height())) * camera.view();
  m.set_vertex_uniforms(p, view_projection);
  const glm::vec3 l = glm::normalize(light.direction);
  glProgramUniform3f(p, m.u_light_direction, l.x, l.y, l.z);
  glProgramUniform3f(p, m.u_light_color, light.color.x, light.color.y, light.color.z);
  glProgramUniform3f(p, m.u_sky, light.sky.x, light.sky.y, light.sky.z);
  glProgramUniform3f(p, m.u_bounce, light.bounce.x, light.bounce.y, light.bounce.z);
  glUseProgram(p);
  glBindVertexArray(m.vat->vertex_array());
  m.bind_textures();
  // Opaque and masked groups first, blended ones after (unsorted), as the crowd renderer does.
  for (int blend_pass = 0; blend_pass < 2; ++blend_pass) {
    if (blend_pass == 1) {
      glEnable(GL_BLEND);
      glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      glDepthMask(GL_FALSE);
    }
    for (const gl::GpuDrawGroup& g : m.vat->groups()) {
      const gl::GpuMaterial& mat = m.vat->materials()[g.material];
      if ((mat.alpha_mode == AlphaMode::Blend) != (blend_pass == 1)) continue;
      m.material.apply(p, mat, kUnitBaseColor);
      glDrawElementsInstanced(GL_TRIANGLES, GLsizei(g.index_count), GL_UNSIGNED_INT,
                              reinterpret_cast<const void*>(uintptr_t(g.first_index) * 4u),
                              GLsizei(m.instances.size()));
    }
  }
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
  glDisable(GL_CULL_FACE);
  glUseProgram(0);
  glBindVertexArray(0);
}

Result<std::vector<glm::vec3>> LiveSkinning::capture_positions(uint32_t count) const {
  const Impl& m = *impl_;
  count = std::min<uint32_t>(count, size());
  gl::CaptureDesc desc;
  desc.name = "live_skinning capture";
  desc.vertex_source = kLiveVertex;
  desc.outputs = {"v_world_position"};
  desc.defines = m.defines();
  Result<gl::VertexCapture> capture = gl::VertexCapture::create(desc);
  if (!capture) return capture.error();
  m.set_vertex_uniforms(capture->program().id(), glm::mat4(1.0f));
  m.bind_textures();
  Result<std::vector<float>> floats = capture->run_floats(m.vat->vertex_count(), count, m.vat->vertex_array());
  if (!floats) return floats.error();
  std::vector<glm::vec3> positions(floats->size() / 3);
  for (size_t i = 0; i < positions.size(); ++i) {
    positions[i] = glm::vec3((*floats)[3 * i], (*floats)[3 * i + 1], (*floats)[3 * i + 2]);
  }
  return positions;
}

Result<LiveCheck> check_live_skinning(LiveSkinning& live, const Asset& asset, const Vat& vat, const gl::Crowd& crowd,
                                      uint32_t count, std::span<const float> times) {
  count = std::min(count, live.size());
  const uint32_t vertex_count = vat.geometry.vertex_count();
  // Merged VAT vertex -> the reference skinner's canonical index (measure.cpp's mapping).
  std::vector<int64_t> reference_index(vertex_count, -1);
  for (const SourceRange& s : vat.geometry.sources) {
    for (const MeshInstance& inst : asset.instances) {
      if (inst.node == s.node && inst.mesh == s.mesh && inst.primitive == s.primitive &&
          inst.vertex_count == s.vertex_count && uint64_t(s.first_vertex) + s.vertex_count <= vertex_count) {
        for (uint32_t v = 0; v < s.vertex_count; ++v)
          reference_index[s.first_vertex + v] = int64_t(inst.first_vertex) + v;
        break;
      }
    }
  }
  if (std::none_of(reference_index.begin(), reference_index.end(), [](int64_t r) { return r >= 0; })) {
    return make_error(ErrorCode::Argument, vat.source,
                      "live skinning check: no VAT vertex matches a source primitive of " + asset.source);
  }

  LiveCheck check;
  SceneEvaluator evaluator(asset);
  std::vector<glm::vec3> reference(asset.instance_vertex_count);
  std::vector<glm::vec3> decoded(vertex_count);
  for (const float t : times) {
    live.update(t);
    live.upload();
    Result<std::vector<glm::vec3>> captured = live.capture_positions(count);
    if (!captured) return captured.error();
    for (uint32_t i = 0; i < count; ++i) {
      const glm::mat4& world = crowd.world(i);
      const VatClip& clip = vat.clips[live.clip(i)];
      evaluator.pose(clip.source_animation, live.local_time(i, t));
      evaluator.skin(reference);
      if (Result<void> mirrored = mirror_vertices(vat, crowd.table(), i, t, world, 0, decoded); !mirrored)
        return mirrored.error();
      for (uint32_t v = 0; v < vertex_count; ++v) {
        const glm::vec3 p = (*captured)[size_t(i) * vertex_count + v];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
          return make_error(ErrorCode::Limit, vat.source,
                            "live skinning check: a non-finite position (instance " + std::to_string(i) + ", vertex " +
                                std::to_string(v) + ")");
        }
        check.world_extent =
            std::max({check.world_extent, double(std::abs(p.x)), double(std::abs(p.y)), double(std::abs(p.z))});
        check.max_vs_rig = std::max(check.max_vs_rig, double(glm::length(p - decoded[v])));
        if (reference_index[v] >= 0) {
          const glm::vec3 r = glm::vec3(world * glm::vec4(reference[size_t(reference_index[v])], 1.0f));
          check.max_vs_reference = std::max(check.max_vs_reference, double(glm::length(p - r)));
          ++check.vertices;
        }
      }
    }
  }
  return check;
}

}  // namespace vatkit::cli

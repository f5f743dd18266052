// write_three_vat (vatkit/export_three_vat.h): a Vat as three-vat's file. docs/three-vat.md is the
// description this follows, field by field; the reader that checks it (tests/web/
// three_vat_reader.py) is written from that description too, not from this file.
//
// Order of work: refuse what the format cannot hold, lay the clips' bands out (which vatkit rows
// become which written frames), convert the texels of every written frame (measuring what the
// conversion changed and posing every vertex for the frame bounds), then the glTF: the mesh, its
// materials, the layers' buffer views and the extension object.
#include "vatkit/export_three_vat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <span>

#include <nlohmann/json.hpp>

#include "decode/codec.h"
#include "file/glb_writer.h"
#include "file/gltf_materials.h"
#include "vatkit/decode.h"
#include "vatkit/vat_file.h"

namespace vatkit {
namespace {

using nlohmann::json;

constexpr const char* kExtension = "THREEVAT_vat";
constexpr uint32_t kFormatVersion = 3;
constexpr uint16_t kHalfOne = 0x3c00;  // the position texel's alpha, 1.0

// A refusal: what the format cannot hold (ErrorCode::Unsupported) or a size past its ceiling
// (ErrorCode::Limit). Caught by write_three_vat, which names vat.source.
struct Refusal {
  ErrorCode code;
  std::string what;
};

std::string str(uint64_t v) { return std::to_string(v); }

// ---- the bands ------------------------------------------------------------------------------

// The written frames: for each, the vatkit row it holds; and the clip table as written.
struct Bands {
  std::vector<uint32_t> source_rows;
  std::vector<ThreeVatClipReport> clips;
  std::vector<uint32_t> first_frames;  // per clip, its first written frame
};

// Each clip's band as ThreeVatBand describes it: fps = frames / D for a repeating or ping-pong
// band, (rows - 1) / D for a once band (its duration frames / fps one row's time past D).
Bands lay_out_bands(const Vat& vat) {
  Bands bands;
  for (const VatClip& clip : vat.clips) {
    ThreeVatClipReport out;
    out.name = clip.name;
    out.rows = clip.rows;
    const ClipDefaults& d = clip.defaults;
    out.band = d.loop_mode == LoopMode::PingPong                     ? ThreeVatBand::PingPong
               : d.loop_mode == LoopMode::Once || d.repetitions == 1 ? ThreeVatBand::Once
                                                                     : ThreeVatBand::Repeat;
    out.frames = out.band == ThreeVatBand::Repeat && clip.rows >= 2 ? clip.rows - 1 : clip.rows;
    const double intervals = out.band == ThreeVatBand::Once ? double(clip.rows) - 1.0 : double(out.frames);
    // A one-row band shows its row at any rate: one frame over the clip's duration (a second when
    // it has none). A band of two rows or more has a duration.
    const double duration = clip.duration_s > 0.0f ? double(clip.duration_s) : 1.0;
    const double fps = (clip.rows < 2 ? 1.0 : intervals) / duration;
    out.fps = static_cast<float>(fps);
    bands.first_frames.push_back(static_cast<uint32_t>(bands.source_rows.size()));
    for (uint32_t k = 0; k < out.frames; ++k) bands.source_rows.push_back(clip.first_row + k);
    bands.clips.push_back(std::move(out));
  }
  return bands;
}

// The largest distance of a vertex between two rows of a clip's band, as vatkit decodes them.
float row_distance(const Vat& vat, uint32_t clip, uint32_t row_a, uint32_t row_b) {
  const uint32_t n = vat.geometry.vertex_count();
  std::vector<glm::vec3> a(n), b(n);
  decode_vertices(vat, single(RowBlend{clip, row_a, row_a, 0.0f}), 0, a);
  decode_vertices(vat, single(RowBlend{clip, row_b, row_b, 0.0f}), 0, b);
  float distance = 0.0f;
  for (uint32_t v = 0; v < n; ++v) distance = std::max(distance, glm::length(b[v] - a[v]));
  return distance;
}

// ---- the texels -----------------------------------------------------------------------------

// Per written frame, the box of the posed vertices; and per clip the largest distance of a
// vertex from its rest position (geometry.positions, root space, under either encoding).
struct Posed {
  std::vector<float> frame_bounds;  // 6 a frame: min xyz, max xyz
  std::vector<float> max_delta;     // per clip
  Bounds bounds;
};

// Accumulates one frame's posed vertices.
class FrameBox {
 public:
  void add(const glm::vec3& p) {
    lo_ = glm::min(lo_, p);
    hi_ = glm::max(hi_, p);
  }
  void finish(Posed& posed) const {
    const float six[6] = {lo_.x, lo_.y, lo_.z, hi_.x, hi_.y, hi_.z};
    posed.frame_bounds.insert(posed.frame_bounds.end(), six, six + 6);
  }

 private:
  glm::vec3 lo_{std::numeric_limits<float>::infinity()};
  glm::vec3 hi_{-std::numeric_limits<float>::infinity()};
};

// Which clip each written frame belongs to.
std::vector<uint32_t> clip_of_frames(const Bands& bands) {
  std::vector<uint32_t> clip(bands.source_rows.size());
  for (size_t c = 0; c < bands.clips.size(); ++c) {
    std::fill_n(clip.begin() + bands.first_frames[c], bands.clips[c].frames, static_cast<uint32_t>(c));
  }
  return clip;
}

void finish_bounds(Posed& posed) {
  const size_t frames = posed.frame_bounds.size() / 6;
  glm::vec3 lo(std::numeric_limits<float>::infinity()), hi(-std::numeric_limits<float>::infinity());
  for (size_t f = 0; f < frames; ++f) {
    const float* b = &posed.frame_bounds[f * 6];
    lo = glm::min(lo, glm::vec3(b[0], b[1], b[2]));
    hi = glm::max(hi, glm::vec3(b[3], b[4], b[5]));
  }
  posed.bounds = Bounds{lo, hi};
}

// The vertex encoding's layers: half-float deltas (stored transformed, below) and RG8 normals.
struct DeltaLayers {
  uint32_t width = 0, rows_per_frame = 1, height = 0;
  std::vector<uint16_t> position;  // width * height texels of 4 halves, as the texture holds them
  std::vector<uint8_t> normal;     // width * height texels of 2 bytes; empty without normals
};

DeltaLayers delta_layers(const Vat& vat, const Bands& bands, Posed& posed, ThreeVatReport& report) {
  const uint32_t n = vat.geometry.vertex_count();
  const auto frames = static_cast<uint32_t>(bands.source_rows.size());
  DeltaLayers out;
  out.rows_per_frame = (n + kThreeVatMaxTextureSize - 1) / kThreeVatMaxTextureSize;
  out.width = (n + out.rows_per_frame - 1) / out.rows_per_frame;
  const uint64_t height = uint64_t(frames) * out.rows_per_frame;
  if (height > kThreeVatMaxTextureSize) {
    throw Refusal{ErrorCode::Limit, str(frames) + " frame rows of " + str(out.rows_per_frame) +
                                        " texture rows each make the position layer " + str(height) +
                                        " rows tall, past three-vat's " + str(kThreeVatMaxTextureSize) +
                                        "; bake fewer clips (--clips) or a lower --fps"};
  }
  out.height = static_cast<uint32_t>(height);
  const size_t stride = size_t(out.width) * out.rows_per_frame;  // texels a frame, padding included
  out.position.assign(stride * frames * 4, 0);
  const bool normals = vat.plane(PlaneSemantic::Normal) != nullptr || vat.precision == Precision::Q16;
  if (normals) out.normal.assign(stride * frames * 2, 0);
  report.normals = normals;

  const std::vector<uint32_t> clip_of = clip_of_frames(bands);
  posed.max_delta.assign(vat.clips.size(), 0.0f);
  const std::vector<glm::vec3>& rest = vat.geometry.positions;
  for (uint32_t f = 0; f < frames; ++f) {
    const uint32_t row = bands.source_rows[f];
    FrameBox box;
    float& max_delta = posed.max_delta[clip_of[f]];
    for (uint32_t v = 0; v < n; ++v) {
      const glm::vec4 stored = read_texel(vat, PlaneSemantic::Position, row, v);
      uint16_t* texel = &out.position[(size_t(f) * stride + v) * 4];
      glm::vec3 written;
      for (int c = 0; c < 3; ++c) {
        if (!(std::fabs(stored[c]) <= codec::kHalfMax)) {
          throw Refusal{ErrorCode::Limit, "clip \"" + clip_label(vat, int(clip_of[f])) + "\" moves vertex " + str(v) +
                                              " by " + std::to_string(stored[c]) + " on one axis at frame row " +
                                              str(row) +
                                              ", past the 65504 a half float (three-vat's position layer) holds"};
        }
        texel[c] = codec::float_to_half(stored[c]);
        written[c] = codec::half_to_float(texel[c]);
        report.position_rounding = std::max(report.position_rounding, std::fabs(written[c] - stored[c]));
      }
      texel[3] = kHalfOne;
      box.add(rest[v] + written);
      max_delta = std::max(max_delta, glm::length(written));
      if (normals) {
        const glm::vec3 normal(read_texel(vat, PlaneSemantic::Normal, row, v));
        const float length = glm::length(normal);
        uint8_t* pair = &out.normal[(size_t(f) * stride + v) * 2];
        if (!(length > 0.0f)) {
          pair[0] = pair[1] = 128;  // no direction to keep: the texel +Z lands on
          continue;
        }
        const glm::vec3 unit = normal / length;
        const uint16_t packed = codec::oct8_encode(unit);
        pair[0] = static_cast<uint8_t>(packed >> 8);
        pair[1] = static_cast<uint8_t>(packed & 0xffu);
        const float cosine = std::clamp(glm::dot(codec::oct8_decode(packed), unit), -1.0f, 1.0f);
        report.normal_degrees = std::max(report.normal_degrees, glm::degrees(std::acos(cosine)));
      }
    }
    box.finish(posed);
  }
  return out;
}

// The position layer as the file stores it (docs/three-vat.md): per texel and channel, each
// half's bits minus the previous frame's (mod 2^16), vertex-major, in four channel planes of low
// bytes then high bytes.
std::vector<uint8_t> to_frame_planes(const std::vector<uint16_t>& texels, uint32_t frames) {
  const size_t stride = texels.size() / 4 / frames;
  const size_t plane = stride * frames;
  std::vector<uint8_t> out(texels.size() * 2);
  for (size_t c = 0; c < 4; ++c) {
    uint8_t* low = &out[2 * c * plane];
    uint8_t* high = low + plane;
    for (size_t s = 0; s < stride; ++s) {
      uint16_t previous = 0;
      for (size_t f = 0; f < frames; ++f) {
        const uint16_t bits = texels[(f * stride + s) * 4 + c];
        const auto delta = static_cast<uint16_t>(bits - previous);
        previous = bits;
        low[s * frames + f] = static_cast<uint8_t>(delta & 0xffu);
        high[s * frames + f] = static_cast<uint8_t>(delta >> 8);
      }
    }
  }
  return out;
}

// The slot of the nearest ancestor of `slot`'s node that has one (its first), or -1.
int32_t parent_slot(const Vat& vat, uint32_t slot, const std::vector<int32_t>& parents,
                    const std::map<int32_t, int32_t>& first_slot_of_node) {
  int32_t node = vat.slots[slot].node;
  for (size_t steps = 0; node >= 0 && size_t(node) < parents.size() && steps <= parents.size(); ++steps) {
    node = parents[size_t(node)];
    if (auto found = first_slot_of_node.find(node); found != first_slot_of_node.end()) return found->second;
  }
  return -1;
}

// The rig texture: two float texels a slot a frame, then the hierarchy row.
std::vector<float> rig_texture(const Vat& vat, const Bands& bands, const ThreeVatOptions& options, Posed& posed,
                               ThreeVatReport& report) {
  const auto slots = static_cast<uint32_t>(vat.slots.size());
  const auto frames = static_cast<uint32_t>(bands.source_rows.size());
  const VatGeometry& g = vat.geometry;
  const uint32_t n = g.vertex_count();
  for (uint32_t v = 0; v < g.slot_weights1.size(); ++v) {
    if (g.slot_weights1[v] != glm::vec4(0.0f)) {
      throw Refusal{ErrorCode::Unsupported, "vertex " + str(v) +
                                                " has more than four slot influences, and three-vat's rig reads four "
                                                "(JOINTS_0, WEIGHTS_0); export a delta bake (--encoding delta)"};
    }
  }
  const uint64_t width = uint64_t(slots) * 2, height = uint64_t(frames) + 1;
  if (width > kThreeVatMaxTextureSize || height > kThreeVatMaxTextureSize) {
    throw Refusal{ErrorCode::Limit,
                  "the rig texture would be " + str(width) + " x " + str(height) +
                      " texels (2 per slot, a row per frame and the hierarchy row), past three-vat's " +
                      str(kThreeVatMaxTextureSize) + " on a side"};
  }
  report.width = static_cast<uint32_t>(width);
  report.height = static_cast<uint32_t>(height);
  std::vector<float> data(width * height * 4, 0.0f);

  const std::vector<uint32_t> clip_of = clip_of_frames(bands);
  posed.max_delta.assign(vat.clips.size(), 0.0f);
  std::vector<codec::Affine> affine(slots);
  for (uint32_t f = 0; f < frames; ++f) {
    const uint32_t row = bands.source_rows[f];
    for (uint32_t s = 0; s < slots; ++s) {
      const SlotTransform st = read_slot(vat, row, s);
      float* texel = &data[(size_t(f) * width + size_t(s) * 2) * 4];
      const float values[8] = {st.rotation.x,    st.rotation.y,    st.rotation.z,    st.rotation.w,
                               st.translation.x, st.translation.y, st.translation.z, st.scale};
      std::memcpy(texel, values, sizeof(values));
      affine[s] = codec::slot_affine(st);
    }
    FrameBox box;
    float& max_delta = posed.max_delta[clip_of[f]];
    for (uint32_t v = 0; v < n; ++v) {
      const glm::vec3& p = g.bind_positions[v];
      glm::vec3 out(0.0f);
      for (int k = 0; k < 4; ++k) {
        const float w = g.slot_weights0[v][k];
        if (w == 0.0f) continue;
        const codec::Affine& a = affine[g.slots0[v][k]];
        out += w * (a.c[0] * p.x + a.c[1] * p.y + a.c[2] * p.z + a.c[3]);
      }
      box.add(out);
      max_delta = std::max(max_delta, glm::length(out - g.positions[v]));
    }
    box.finish(posed);
  }

  // The hierarchy row: each slot's pivot (its node's origin in bind space) and parent slot.
  std::map<int32_t, int32_t> first_slot_of_node;
  for (uint32_t s = 0; s < slots; ++s) first_slot_of_node.emplace(vat.slots[s].node, int32_t(s));
  report.hierarchy = !options.node_parents.empty();
  for (uint32_t s = 0; s < slots; ++s) {
    const glm::vec3 pivot(glm::inverse(vat.slots[s].inverse_bind)[3]);
    const int32_t parent = parent_slot(vat, s, options.node_parents, first_slot_of_node);
    float* texel = &data[(size_t(frames) * width + size_t(s) * 2) * 4];
    texel[0] = pivot.x;
    texel[1] = pivot.y;
    texel[2] = pivot.z;
    texel[3] = float(parent);
  }
  return data;
}

// ---- the glTF -------------------------------------------------------------------------------

// FNV-1a over the float32 bytes of the positions, in vertex order.
std::string position_digest(const std::vector<glm::vec3>& positions) {
  uint32_t hash = 0x811c9dc5u;
  const auto* bytes = reinterpret_cast<const uint8_t*>(positions.data());
  for (size_t i = 0; i < positions.size() * sizeof(glm::vec3); ++i) hash = (hash ^ bytes[i]) * 0x01000193u;
  char text[20];
  std::snprintf(text, sizeof(text), "fnv1a32:%08x", hash);
  return text;
}

// The mesh: the shared vertex stream, one primitive per non-empty draw group, the groups' table
// for the extension (materialIndex = the group's place among the written ones, each primitive
// holding its own material), and vatkit's source ranges in the mesh's extras.
struct WrittenMesh {
  uint32_t mesh = 0;
  json groups = json::array();
};

// `v` scaled to unit length; a zero vector stays zero (it has no direction to keep).
glm::vec3 unit(const glm::vec3& v) {
  const float length = glm::length(v);
  return length > 0.0f ? v / length : v;
}

WrittenMesh write_mesh(const Vat& vat, glb::Writer& w) {
  const VatGeometry& g = vat.geometry;
  const bool rig = vat.encoding == Encoding::Rig;
  glb::AccessorOptions vertex;
  vertex.target = glb::Target::ArrayBuffer;
  json attributes = json::object();
  glb::AccessorOptions position = vertex;
  position.min_max = true;
  attributes["POSITION"] = w.add_accessor(rig ? g.bind_positions : g.positions, position);
  // Unit length, as glTF requires: vatkit's bind-space normals and tangents carry their part's
  // scale (its decode normalizes at the end), and so does three-vat's decode, which applies the
  // skin matrix and then normalizes: the direction is all either reads.
  std::vector<glm::vec3> normals = rig ? g.bind_normals : g.normals;
  for (glm::vec3& n : normals) n = unit(n);
  if (!normals.empty()) attributes["NORMAL"] = w.add_accessor(normals, vertex);
  std::vector<glm::vec4> tangents = rig ? g.bind_tangents : g.tangents;
  for (glm::vec4& t : tangents) t = glm::vec4(unit(glm::vec3(t)), t.w);
  if (!tangents.empty()) attributes["TANGENT"] = w.add_accessor(tangents, vertex);
  if (!g.texcoords0.empty()) attributes["TEXCOORD_0"] = w.add_accessor(g.texcoords0, vertex);
  if (!g.colors0.empty()) attributes["COLOR_0"] = w.add_accessor(g.colors0, vertex);
  if (rig) {
    attributes["JOINTS_0"] = w.add_accessor(g.slots0, vertex);
    attributes["WEIGHTS_0"] = w.add_accessor(g.slot_weights0, vertex);
  } else {
    // Each vertex's texel column as in a .vat.glb of format version 3, for decoders of one's own
    // that must survive an importer's reordering; three-vat's own shader reads gl_VertexID (its
    // loader checks the vertex order by the digest) and ignores this attribute.
    attributes[kVatVertexAttribute] = w.add_accessor(std::span<const float>(texel_addresses(vat)), vertex);
  }

  glb::ViewOptions index_view;
  index_view.target = glb::Target::ElementArrayBuffer;
  index_view.borrow = true;
  const uint32_t indices =
      w.add_buffer_view({reinterpret_cast<const uint8_t*>(g.indices.data()), g.indices.size() * 4}, index_view);
  WrittenMesh out;
  json primitives = json::array();
  uint32_t start = 0;
  for (const DrawGroup& group : g.groups) {
    if (group.index_count == 0) continue;  // a glTF primitive cannot be empty
    glb::AccessorDesc desc;
    desc.buffer_view = indices;
    desc.byte_offset = group.first_index * 4;
    desc.component = glb::ComponentType::UInt32;
    desc.count = group.index_count;
    json primitive = {{"attributes", attributes}, {"indices", w.add_accessor(desc)}};
    if (group.material >= 0) primitive["material"] = group.material;
    out.groups.push_back({{"start", start}, {"count", group.index_count}, {"materialIndex", primitives.size()}});
    primitives.push_back(std::move(primitive));
    start += group.index_count;
  }
  json sources = json::array();
  for (const SourceRange& s : g.sources) {
    sources.push_back({{"node", s.node},
                       {"mesh", s.mesh},
                       {"primitive", s.primitive},
                       {"firstVertex", s.first_vertex},
                       {"vertexCount", s.source_vertex_count}});
  }
  out.mesh = w.append(
      "meshes",
      {{"name", "vat"}, {"primitives", std::move(primitives)}, {"extras", {{"vatkitSources", std::move(sources)}}}});
  return out;
}

// The rig's preview skin (three-vat's loader ignores it): one joint node per slot at the slot's
// transform in the first written frame, under one root, identity inverse bind matrices.
json preview_skin(const Vat& vat, uint32_t first_row, glb::Writer& w) {
  const uint32_t root = w.append("nodes", {{"name", "slots"}});
  json joints = json::array();
  for (uint32_t s = 0; s < vat.slots.size(); ++s) {
    const SlotTransform st = read_slot(vat, first_row, s);
    const float length = glm::length(glm::vec4(st.rotation.x, st.rotation.y, st.rotation.z, st.rotation.w));
    const glm::quat q = length > 0.0f ? st.rotation / length : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
    json node = {{"name", vat.slots[s].name.empty() ? "slot " + std::to_string(s) : vat.slots[s].name},
                 {"translation", glb::json_array(st.translation)},
                 {"rotation", glb::json_array(glb::to_xyzw(q))},
                 {"scale", glb::json_array(glm::vec3(st.scale))}};
    joints.push_back(w.append("nodes", std::move(node)));
  }
  w.json()["nodes"][root]["children"] = joints;
  return {{"root", root}, {"skin", w.append("skins", {{"joints", joints}, {"skeleton", root}})}};
}

json clip_json(const VatClip& clip, const ThreeVatClipReport& written, uint32_t start, float max_delta) {
  return {{"name", clip.name},
          {"startFrame", start},
          {"frames", written.frames},
          {"fps", glb::json_number(written.fps)},
          {"duration", glb::json_number(clip.duration_s)},
          {"maxDelta", glb::json_number(max_delta)},
          {"loopMode", static_cast<int>(clip.defaults.loop_mode)},
          {"repetitions", clip.defaults.repetitions},
          {"endMode", static_cast<int>(clip.defaults.end_mode)},
          {"speed", glb::json_number(clip.defaults.speed)}};
}

// The texel data the writer's buffer views borrow: kept alive until the bytes are joined.
struct Borrowed {
  std::vector<uint8_t> position_planes, normal_bytes;
  std::vector<float> rig;
};

// A delta's layers (positions as RGBA16F frame planes, normals as RG8) into `ext`.
void write_delta_layers(const Vat& vat, const Bands& bands, Posed& posed, ThreeVatReport& report, glb::Writer& w,
                        json& ext, Borrowed& kept) {
  DeltaLayers layers = delta_layers(vat, bands, posed, report);
  report.width = layers.width;
  report.height = layers.height;
  report.rows_per_frame = layers.rows_per_frame;
  kept.position_planes = to_frame_planes(layers.position, report.total_frames);
  kept.normal_bytes = std::move(layers.normal);
  auto layer = [&](std::span<const uint8_t> bytes, const char* format) {
    return json{{"bufferView", w.add_buffer_view(bytes, {.borrow = true})},
                {"width", layers.width},
                {"height", layers.height},
                {"format", format}};
  };
  json layers_json = {{"position", layer(kept.position_planes, "RGBA16F")}};
  if (!kept.normal_bytes.empty()) layers_json["normal"] = layer(kept.normal_bytes, "RG8");
  ext["encoding"] = "delta";
  ext["fallback"] = nullptr;
  ext["rowsPerFrame"] = layers.rows_per_frame;
  ext["layers"] = std::move(layers_json);
  if (vat.plane(PlaneSemantic::Tangent) != nullptr) {
    report.notes.push_back("animated tangents (the Tangent plane) are not written: three-vat's file holds none");
  }
  if (!vat.slots.empty()) {
    report.notes.push_back(str(vat.slots.size()) +
                           " joint tracks for sockets are not written: three-vat's file holds none");
  }
}

// A rig's layer (RGBA32F matrices) into `ext`, and the preview skin on the mesh node.
void write_rig_layer(const Vat& vat, const Bands& bands, const ThreeVatOptions& options, Posed& posed,
                     ThreeVatReport& report, glb::Writer& w, json& ext, Borrowed& kept, uint32_t mesh_node,
                     json& scene_nodes) {
  kept.rig = rig_texture(vat, bands, options, posed, report);
  report.slot_count = static_cast<uint32_t>(vat.slots.size());
  ext["encoding"] = "rig";
  ext["slotCount"] = report.slot_count;
  ext["layers"] = {
      {"rig",
       {{"bufferView",
         w.add_buffer_view({reinterpret_cast<const uint8_t*>(kept.rig.data()), kept.rig.size() * 4}, {.borrow = true})},
        {"width", report.width},
        {"height", report.height},
        {"format", "RGBA32F"}}}};
  const json skin = preview_skin(vat, bands.source_rows.front(), w);
  w.json()["nodes"][mesh_node]["skin"] = skin["skin"];
  scene_nodes.push_back(skin["root"]);
  if (!report.hierarchy) {
    report.notes.push_back(
        "the source's node hierarchy is not known: every slot is written as the top of its own chain, which only a "
        "three-vat cross-fade reads");
  }
}

// The clips' entries, each clip's report (loop seam, last step) filled in.
json clips_json(const Vat& vat, const Bands& bands, const Posed& posed, ThreeVatReport& report) {
  json clips = json::array();
  for (size_t c = 0; c < vat.clips.size(); ++c) {
    ThreeVatClipReport& written = report.clips.emplace_back(bands.clips[c]);
    const VatClip& clip = vat.clips[c];
    if (clip.rows >= 2) {
      const uint32_t end = clip.first_row + clip.rows - 1;
      written.loop_seam = row_distance(vat, static_cast<uint32_t>(c), clip.first_row, end);
      written.end_step = row_distance(vat, static_cast<uint32_t>(c), end - 1, end);
    }
    clips.push_back(clip_json(vat.clips[c], written, bands.first_frames[c], posed.max_delta[c]));
  }
  return clips;
}

std::vector<uint8_t> write_file(const Vat& vat, const ThreeVatOptions& options, ThreeVatReport& report) {
  if (!vat.geometry.lods.empty()) {
    throw Refusal{ErrorCode::Unsupported,
                  "holds " + str(vat.geometry.lods.size()) + (vat.geometry.lods.size() == 1 ? " level" : " levels") +
                      " of detail, and three-vat's file holds none (its levels are index buffers made after "
                      "loading); bake it again with --lods 0, or export the source glTF"};
  }
  if (vat.clips.empty()) throw Refusal{ErrorCode::Unsupported, "holds no clip"};
  const Bands bands = lay_out_bands(vat);
  const auto frames = static_cast<uint32_t>(bands.source_rows.size());
  report.encoding = vat.encoding;
  report.vertex_count = vat.geometry.vertex_count();
  report.total_frames = frames;

  glb::Writer w(4);
  w.json()["asset"]["generator"] = "vatkit";
  const WrittenMesh mesh = write_mesh(vat, w);
  const uint32_t mesh_node = w.append("nodes", {{"mesh", mesh.mesh}, {"name", "vat"}});
  json scene_nodes = json::array({mesh_node});
  write_gltf_materials(vat.materials, vat.images, w);

  Posed posed;
  json ext = {{"version", kFormatVersion},
              {"mesh", mesh.mesh},
              {"groups", mesh.groups},
              {"vertexCount", report.vertex_count},
              {"totalFrames", frames}};
  Borrowed kept;
  if (vat.encoding == Encoding::Delta) {
    write_delta_layers(vat, bands, posed, report, w, ext, kept);
  } else {
    write_rig_layer(vat, bands, options, posed, report, w, ext, kept, mesh_node, scene_nodes);
  }
  if (vat.precision == Precision::Q16) {
    report.notes.push_back("q16 texels are written dequantized, as vatkit decodes them");
  }
  finish_bounds(posed);

  ext["clips"] = clips_json(vat, bands, posed, report);
  ext["bounds"] = {{"min", glb::json_array(posed.bounds.min)}, {"max", glb::json_array(posed.bounds.max)}};
  ext["frameBounds"] = w.add_buffer_view(
      {reinterpret_cast<const uint8_t*>(posed.frame_bounds.data()), posed.frame_bounds.size() * 4}, {.borrow = true});
  ext["digest"] = position_digest(vat.encoding == Encoding::Rig ? vat.geometry.bind_positions : vat.geometry.positions);

  w.append("scenes", {{"nodes", scene_nodes}});
  w.json()["scene"] = 0;
  w.json()["extensions"][kExtension] = std::move(ext);
  w.use_extension(kExtension, /*required=*/false);
  if (w.bin_size() > std::numeric_limits<uint32_t>::max() - (uint64_t(1) << 24)) {
    throw Refusal{ErrorCode::Limit, "would hold " + str(w.bin_size()) + " bytes of data, a GLB holds at most 4 GiB"};
  }
  return w.finish();
}

}  // namespace

Result<std::vector<uint8_t>> write_three_vat(const Vat& vat, const ThreeVatOptions& options, ThreeVatReport* report) {
  ThreeVatReport local;
  try {
    std::vector<uint8_t> bytes = write_file(vat, options, report ? *report : local);
    return bytes;
  } catch (const Refusal& refusal) {
    return make_error(refusal.code, vat.source, "cannot be written as a three-vat file: " + refusal.what);
  }
}

}  // namespace vatkit

// The .vat.glb file (vat_file.h, docs/format.md): round trips of every field and plane byte over
// both encodings, every precision and texel format, wrapped planes and 8-influence rigs; the
// container layout (16-byte-aligned BIN data and planes) and the checksum recomputed here with
// xxHash directly; the Khronos validator's verdict; golden files of format version 1; every
// truncation and every single-byte corruption refused; one re-sealed mutation per validation
// rule, each naming its object; atomic saves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>

#include <nlohmann/json.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "file/glb_writer.h"
#include "file/checksum.h"
#include "cli_test_support.h"
#include "test_support.h"
#include "vatkit/bake.h"
#include "vatkit/decode.h"
#include "vatkit/file_io.h"
#include "vatkit/import.h"
#include "vatkit/sample_character.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A 2x2 RGBA PNG (red, green / blue, white), made with Python's zlib for these tests.
const std::vector<uint8_t> kPng = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06, 0x00, 0x00, 0x00, 0x72, 0xb6, 0x0d, 0x24, 0x00, 0x00, 0x00, 0x12, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x0c, 0x81, 0x34, 0x18, 0x00, 0x00, 0x49, 0xc8,
    0x09, 0xf7, 0x03, 0xd9, 0x64, 0xf1, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

uint32_t u32_at(std::span<const uint8_t> bytes, size_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}

// ---- synthetic Vats ------------------------------------------------------------------------

struct Synth {
  Encoding encoding = Encoding::Delta;
  Precision precision = Precision::F32;
  uint32_t width = 0;  // texels per texture row; 0 = a whole frame per row
  bool normals = true;
  bool tangents = true;
  bool colors = true;
  bool eight_influences = true;
  bool textured = true;
  std::vector<uint32_t> clip_rows = {5, 3, 1};
  uint32_t seed = 1;
  bool lods = false;         // two levels of detail
  bool measured = false;     // every clip but the last carries a measured error (VatClip::accuracy)
  bool seams = false;        // every clip but the first carries its seam (VatClip::seam)
  bool events = false;       // clips 0 and 1 carry named events (VatClip::events), clip 2 none
  bool root_motion = false;  // clip 0 carries a joint's root motion, clip 1 the feet's, clip 2 none
  float metres_per_unit = 1.0f;
};

TexelFormat natural_format(Precision p) {
  switch (p) {
    case Precision::F32: return TexelFormat::RGBA32F;
    case Precision::F16: return TexelFormat::RGBA16F;
    case Precision::Q16: return TexelFormat::RGBA16Unorm;
  }
  return TexelFormat::RGBA32F;
}

// A strip of three quads (8 vertices, 6 triangles in two draw groups) with three clips. The plane
// bytes are a seeded pattern: the file stores planes without interpreting them.
Vat synthetic_vat(const Synth& o) {
  Vat vat;
  vat.source = "synthetic";
  vat.encoding = o.encoding;
  vat.precision = o.precision;
  VatGeometry& g = vat.geometry;
  constexpr uint32_t kVertices = 8;
  for (uint32_t i = 0; i < kVertices; ++i) {
    const float x = 0.25f * float(i / 2), y = 0.5f * float(i % 2), z = 0.1f * float(i);
    g.positions.push_back({x, y, z});
    if (o.normals) g.normals.push_back(glm::normalize(glm::vec3(0.0f, 0.6f * float(i % 3), 0.8f)));
    if (o.tangents) g.tangents.push_back({1.0f, 0.0f, 0.0f, i % 2 ? 1.0f : -1.0f});
    g.texcoords0.push_back({x * 2.0f, 1.0f - y});
    if (o.colors) g.colors0.push_back({0.1f * float(i), 0.5f, 1.0f, 0.75f});
  }
  g.indices = {0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5, 4, 5, 6, 6, 5, 7};
  g.groups = {{0, 12, 0}, {12, 6, o.textured ? 1 : -1}};
  g.sources = {{2, 0, 0, 0, 4, 4}, {3, 1, 0, 4, 4, 3}};
  if (o.lods) {
    // Level 1: the first group's four triangles as two, the second's two as one; level 2: one
    // triangle in each group... but the second group's is dropped (it may be empty).
    LodLevel one;
    one.indices = {0, 1, 3, 0, 3, 4, 4, 5, 7};
    one.groups = {{0, 6, 0}, {6, 3, o.textured ? 1 : -1}};
    one.error = 0.0625f;
    one.error_in_motion = 0.1f;
    one.screen_size = 36.5f;
    LodLevel two;
    two.indices = {0, 1, 5};
    two.groups = {{0, 3, 0}, {3, 0, o.textured ? 1 : -1}};
    two.error = 0.25f;
    two.error_in_motion = 0.25f;
    two.screen_size = 14.6f;
    g.lods = {one, two};
  }

  const uint32_t slot_count = o.encoding == Encoding::Rig ? 3 : 2;
  for (uint32_t s = 0; s < slot_count; ++s) {
    VatSlot slot;
    slot.name = "joint" + std::to_string(s);
    slot.node = static_cast<int32_t>(s) + 4;
    slot.inverse_bind[3] = glm::vec4(-0.1f * float(s), -0.3f, 0.05f, 1.0f);
    vat.slots.push_back(slot);
  }
  if (o.encoding == Encoding::Rig) {
    for (uint32_t i = 0; i < kVertices; ++i) {
      g.bind_positions.push_back(g.positions[i] + glm::vec3(0.0f, 0.3f, -0.05f));
      if (o.normals) g.bind_normals.push_back(g.normals[i]);
      if (o.tangents) g.bind_tangents.push_back(g.tangents[i]);
      g.slots0.push_back({i % 3, (i + 1) % 3, (i + 2) % 3, 0});
      if (o.eight_influences) {
        g.slot_weights0.push_back({0.4f, 0.2f, 0.1f, 0.1f});
        g.slots1.push_back({(i + 1) % 3, 2, 1, 0});
        g.slot_weights1.push_back({0.1f, 0.05f, 0.05f, 0.0f});
      } else {
        g.slot_weights0.push_back({0.5f, 0.25f, 0.125f, 0.125f});
      }
    }
  }

  const char* names[] = {"idle", "walk", "pose", "wave"};
  uint32_t row = 0;
  for (size_t c = 0; c < o.clip_rows.size(); ++c) {
    VatClip clip;
    clip.name = names[c % 4];
    clip.source_animation = c == 2 ? -1 : static_cast<int32_t>(c);
    clip.first_row = row;
    clip.rows = o.clip_rows[c];
    clip.duration_s = 0.1f * float(clip.rows - 1);
    clip.fps = clip.rows > 1 ? float(clip.rows - 1) / clip.duration_s : 0.0f;
    if (c == 1) clip.defaults = {LoopMode::PingPong, 3, EndMode::Rewind, 1.5f};
    if (c == 2) clip.defaults = {LoopMode::Once, 1, EndMode::Clamp, 0.0f};
    clip.max_delta = 0.01f * float(c);
    clip.bounds = {{-0.5f, -0.1f * float(c), 0.0f}, {1.0f, 1.7f, 0.3f}};
    clip.delta_range = {{-0.2f, -0.25f, -0.3f}, {0.2f, 0.125f, 0.3f}};
    clip.translation_range = {{-1.0f, 0.0f, -1.0f}, {1.0f, 2.0f, 1.0f / 3.0f}};
    clip.scale_min = 0.9f;
    clip.scale_max = 1.1f;
    if (o.measured && c + 1 < o.clip_rows.size()) {
      const float k = float(c + 1);
      clip.accuracy = ClipAccuracy{0.001f * k, 0.0008f * k, 0.25f * k, 0.125f * k, 1.5f * k};
    }
    if (o.seams && c > 0) clip.seam = 0.375f * float(c - 1);  // 0 and 0.375: the default is not 0
    // Two footsteps (one at the clip's start) and a hit at the clip's very end.
    if (o.events && c == 0) clip.events = {{"step_l", 0.0f}, {"step_r", 0.5f * clip.duration_s}};
    if (o.events && c == 1) clip.events = {{"hit", clip.duration_s}};
    // A joint's motion forward and turning (with a height), and the feet's straight ahead.
    if (o.root_motion && c == 0) {
      clip.root_motion = RootMotion{RootMotionSource::Joint, "hips", 3, true, {}};
      for (uint32_t r = 0; r < clip.rows; ++r) {
        const float k = float(r);
        clip.root_motion->track.insert(clip.root_motion->track.end(), {0.125f * k, 0.0625f * k, 0.5f * k, -0.25f * k});
      }
    }
    if (o.root_motion && c == 1) {
      clip.root_motion = RootMotion{RootMotionSource::Feet, "", -1, false, {}};
      for (uint32_t r = 0; r < clip.rows; ++r)
        clip.root_motion->track.insert(clip.root_motion->track.end(), {0.0f, 0.0f, 0.75f * float(r), 0.0f});
    }
    vat.clips.push_back(clip);
    row += clip.rows;
  }
  vat.frame_rows = row;
  vat.bounds = {{-0.5f, -0.2f, 0.0f}, {1.0f, 1.7f, 0.3f}};
  vat.metres_per_unit = o.metres_per_unit;

  auto buffers = std::make_shared<std::vector<std::vector<uint8_t>>>();
  std::mt19937 rng(o.seed);
  auto add_plane = [&](PlaneSemantic semantic, TexelFormat format, uint32_t texels) {
    Plane p;
    p.semantic = semantic;
    p.format = format;
    p.texels_per_frame = texels;
    p.width = o.width ? std::min(o.width, texels) : texels;
    p.rows_per_frame = (texels + p.width - 1) / p.width;
    p.height = p.rows_per_frame * vat.frame_rows;
    std::vector<uint8_t>& bytes = buffers->emplace_back(p.byte_size());
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    p.data = bytes;
    vat.planes.push_back(p);
  };
  buffers->reserve(4);  // the spans must not move
  const TexelFormat format = natural_format(o.precision);
  if (o.encoding == Encoding::Delta) {
    add_plane(PlaneSemantic::Position, format, kVertices);
    // A q16 delta keeps its normals in the position plane's w (vat.h).
    if (o.normals && o.precision != Precision::Q16) add_plane(PlaneSemantic::Normal, format, kVertices);
    if (o.tangents) add_plane(PlaneSemantic::Tangent, format, kVertices);
  } else {
    add_plane(PlaneSemantic::Slots, format, 2 * slot_count);
  }
  vat.storage = buffers;

  Material skin;
  skin.name = "skin";
  skin.base_color_factor = {0.8f, 0.6f, 0.5f, 1.0f};
  skin.alpha_mode = AlphaMode::Mask;
  skin.alpha_cutoff = 0.25f;
  skin.double_sided = true;
  vat.materials.push_back(skin);
  if (o.textured) {
    Material cloth;
    cloth.base_color_factor = {0.1f, 0.2f, 0.3f, 0.5f};
    cloth.base_color_image = 0;
    cloth.alpha_mode = AlphaMode::Blend;
    vat.materials.push_back(cloth);
    vat.images.push_back({"albedo", "image/png", kPng});
  }
  return vat;
}

// ---- comparing Vats ------------------------------------------------------------------------

template <class T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class T>
void expect_same_array(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  if (!a.empty()) {
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0) << what;
  }
}

// Every field of two Vats, floats bit for bit, planes byte for byte (source and storage aside).
void expect_same_vat(const Vat& a, const Vat& b) {
  EXPECT_EQ(a.encoding, b.encoding);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.frame_rows, b.frame_rows);
  EXPECT_TRUE(same_bytes(a.bounds, b.bounds));
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (size_t i = 0; i < a.clips.size(); ++i) {
    SCOPED_TRACE("clip " + std::to_string(i));
    const VatClip &x = a.clips[i], &y = b.clips[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.source_animation, y.source_animation);
    EXPECT_EQ(x.first_row, y.first_row);
    EXPECT_EQ(x.rows, y.rows);
    EXPECT_TRUE(same_bytes(x.fps, y.fps));
    EXPECT_TRUE(same_bytes(x.duration_s, y.duration_s));
    EXPECT_EQ(x.defaults.loop_mode, y.defaults.loop_mode);
    EXPECT_EQ(x.defaults.repetitions, y.defaults.repetitions);
    EXPECT_EQ(x.defaults.end_mode, y.defaults.end_mode);
    EXPECT_TRUE(same_bytes(x.defaults.speed, y.defaults.speed));
    EXPECT_TRUE(same_bytes(x.max_delta, y.max_delta));
    EXPECT_TRUE(same_bytes(x.bounds, y.bounds));
    EXPECT_TRUE(same_bytes(x.delta_range, y.delta_range));
    EXPECT_TRUE(same_bytes(x.translation_range, y.translation_range));
    EXPECT_TRUE(same_bytes(x.scale_min, y.scale_min));
    EXPECT_TRUE(same_bytes(x.scale_max, y.scale_max));
    ASSERT_EQ(x.accuracy.has_value(), y.accuracy.has_value());
    if (x.accuracy) {
      EXPECT_TRUE(same_bytes(*x.accuracy, *y.accuracy));
    }
    EXPECT_EQ(x.seam, y.seam);
    EXPECT_EQ(x.events, y.events);
    EXPECT_EQ(x.root_motion, y.root_motion);
  }
  const VatGeometry &g = a.geometry, &h = b.geometry;
  expect_same_array(g.positions, h.positions, "positions");
  expect_same_array(g.normals, h.normals, "normals");
  expect_same_array(g.tangents, h.tangents, "tangents");
  expect_same_array(g.texcoords0, h.texcoords0, "texcoords0");
  expect_same_array(g.colors0, h.colors0, "colors0");
  expect_same_array(g.bind_positions, h.bind_positions, "bind_positions");
  expect_same_array(g.bind_normals, h.bind_normals, "bind_normals");
  expect_same_array(g.bind_tangents, h.bind_tangents, "bind_tangents");
  expect_same_array(g.slots0, h.slots0, "slots0");
  expect_same_array(g.slots1, h.slots1, "slots1");
  expect_same_array(g.slot_weights0, h.slot_weights0, "slot_weights0");
  expect_same_array(g.slot_weights1, h.slot_weights1, "slot_weights1");
  expect_same_array(g.indices, h.indices, "indices");
  ASSERT_EQ(g.groups.size(), h.groups.size());
  for (size_t i = 0; i < g.groups.size(); ++i) {
    EXPECT_EQ(g.groups[i].first_index, h.groups[i].first_index);
    EXPECT_EQ(g.groups[i].index_count, h.groups[i].index_count);
    EXPECT_EQ(g.groups[i].material, h.groups[i].material);
  }
  ASSERT_EQ(g.sources.size(), h.sources.size());
  for (size_t i = 0; i < g.sources.size(); ++i) EXPECT_TRUE(same_bytes(g.sources[i], h.sources[i]));
  ASSERT_EQ(g.lods.size(), h.lods.size());
  for (size_t l = 0; l < g.lods.size(); ++l) {
    SCOPED_TRACE("level of detail " + std::to_string(l + 1));
    const LodLevel &x = g.lods[l], &y = h.lods[l];
    expect_same_array(x.indices, y.indices, "lod indices");
    ASSERT_EQ(x.groups.size(), y.groups.size());
    for (size_t i = 0; i < x.groups.size(); ++i) {
      EXPECT_EQ(x.groups[i].first_index, y.groups[i].first_index);
      EXPECT_EQ(x.groups[i].index_count, y.groups[i].index_count);
      EXPECT_EQ(x.groups[i].material, y.groups[i].material);
    }
    EXPECT_TRUE(same_bytes(x.error, y.error));
    EXPECT_TRUE(same_bytes(x.error_in_motion, y.error_in_motion));
    EXPECT_TRUE(same_bytes(x.screen_size, y.screen_size));
  }
  ASSERT_EQ(a.slots.size(), b.slots.size());
  for (size_t i = 0; i < a.slots.size(); ++i) {
    EXPECT_EQ(a.slots[i].name, b.slots[i].name);
    EXPECT_EQ(a.slots[i].node, b.slots[i].node);
    EXPECT_TRUE(same_bytes(a.slots[i].inverse_bind, b.slots[i].inverse_bind));
  }
  ASSERT_EQ(a.planes.size(), b.planes.size());
  for (size_t i = 0; i < a.planes.size(); ++i) {
    SCOPED_TRACE("plane " + std::to_string(i));
    const Plane &p = a.planes[i], &q = b.planes[i];
    EXPECT_EQ(p.semantic, q.semantic);
    EXPECT_EQ(p.format, q.format);
    EXPECT_EQ(p.texels_per_frame, q.texels_per_frame);
    EXPECT_EQ(p.width, q.width);
    EXPECT_EQ(p.rows_per_frame, q.rows_per_frame);
    EXPECT_EQ(p.height, q.height);
    ASSERT_EQ(p.data.size(), q.data.size());
    EXPECT_EQ(std::memcmp(p.data.data(), q.data.data(), p.data.size()), 0);
  }
  ASSERT_EQ(a.materials.size(), b.materials.size());
  for (size_t i = 0; i < a.materials.size(); ++i) {
    const Material &m = a.materials[i], &n = b.materials[i];
    EXPECT_EQ(m.name, n.name);
    EXPECT_TRUE(same_bytes(m.base_color_factor, n.base_color_factor));
    EXPECT_EQ(m.base_color_image, n.base_color_image);
    EXPECT_EQ(m.base_color_texcoord, n.base_color_texcoord);
    EXPECT_EQ(m.alpha_mode, n.alpha_mode);
    // The cutoff means something (and is stored) only for MASK; glTF's default otherwise.
    EXPECT_EQ(m.alpha_cutoff, m.alpha_mode == AlphaMode::Mask ? n.alpha_cutoff : 0.5f);
    EXPECT_EQ(m.double_sided, n.double_sided);
  }
  ASSERT_EQ(a.images.size(), b.images.size());
  for (size_t i = 0; i < a.images.size(); ++i) {
    EXPECT_EQ(a.images[i].name, b.images[i].name);
    EXPECT_EQ(a.images[i].mime_type, b.images[i].mime_type);
    EXPECT_EQ(a.images[i].bytes, b.images[i].bytes);
  }
}

std::vector<uint8_t> write_ok(const Vat& vat) {
  Result<std::vector<uint8_t>> bytes = write_vat_glb(vat);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes ? std::move(*bytes) : std::vector<uint8_t>{};
}

// Every combination the round-trip and layout tests cover.
std::vector<std::pair<std::string, Synth>> variants() {
  std::vector<std::pair<std::string, Synth>> out;
  for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
    for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) {
      for (uint32_t width : {0u, 3u}) {
        Synth s;
        s.encoding = e;
        s.precision = p;
        s.width = width;
        s.seed = static_cast<uint32_t>(out.size() + 1);
        out.emplace_back(std::string(e == Encoding::Rig ? "rig" : "delta") + "/" +
                             (p == Precision::F32   ? "f32"
                              : p == Precision::F16 ? "f16"
                                                    : "q16") +
                             (width ? "/wrapped" : ""),
                         s);
      }
    }
  }
  Synth bare;  // no tangents, no colors, an unbalanced wrap (width 5 for 8 texels)
  bare.precision = Precision::F16;
  bare.tangents = false;
  bare.colors = false;
  bare.width = 5;
  out.emplace_back("delta/f16 bare", bare);
  Synth four;  // 4 influences, untextured, no normals, one clip of one row
  four.encoding = Encoding::Rig;
  four.eight_influences = false;
  four.textured = false;
  four.normals = false;
  four.tangents = false;
  four.clip_rows = {1};
  out.emplace_back("rig/4 influences, one row", four);
  Synth lods;  // levels of detail
  lods.lods = true;
  out.emplace_back("delta/f32 lods", lods);
  Synth rig_lods;
  rig_lods.encoding = Encoding::Rig;
  rig_lods.precision = Precision::Q16;
  rig_lods.textured = false;
  rig_lods.lods = true;
  out.emplace_back("rig/q16 untextured lods", rig_lods);
  return out;
}

// ---- raw file surgery (for the layout and mutation tests) ----------------------------------

struct Parts {
  json doc;
  std::vector<uint8_t> bin;
  size_t json_length = 0;  // chunk length, padding included
  size_t bin_offset = 0;   // file offset of the BIN data
};

Parts split(const std::vector<uint8_t>& file) {
  Parts p;
  p.json_length = u32_at(file, 12);
  const auto* text = reinterpret_cast<const char*>(file.data() + 20);
  p.doc = json::parse(text, text + p.json_length);
  p.bin_offset = 20 + p.json_length + 8;
  p.bin.assign(file.begin() + static_cast<ptrdiff_t>(p.bin_offset), file.end());
  return p;
}

// A GLB from edited parts, laid out as the writer does, with its checksum re-sealed (unless
// `reseal` is false), so that only the edit is wrong.
std::vector<uint8_t> assemble_text(std::string text, const std::vector<uint8_t>& bin, bool reseal = true) {
  text.resize((28 + text.size() + 15) / 16 * 16 - 28, ' ');
  std::vector<uint8_t> out;
  auto put = [&](uint32_t v) {
    uint8_t b[4];
    std::memcpy(b, &v, 4);
    out.insert(out.end(), b, b + 4);
  };
  put(0x46546C67u);
  put(2);
  put(static_cast<uint32_t>(28 + text.size() + bin.size()));
  put(static_cast<uint32_t>(text.size()));
  put(0x4E4F534Au);
  out.insert(out.end(), text.begin(), text.end());
  put(static_cast<uint32_t>(bin.size()));
  put(0x004E4942u);
  out.insert(out.end(), bin.begin(), bin.end());
  if (reseal) {
    EXPECT_TRUE(vat_file_detail::reseal_checksum(out));
  }
  return out;
}
std::vector<uint8_t> assemble(const json& doc, const std::vector<uint8_t>& bin, bool reseal = true) {
  return assemble_text(doc.dump(), bin, reseal);
}

json& ext_of(json& doc) { return doc["extensions"][kVatExtensionName]; }
json ext_of_file(const std::vector<uint8_t>& file) {
  Parts parts = split(file);
  return ext_of(parts.doc);
}

// The checksum as docs/format.md defines it, computed here without the library's helpers.
uint64_t independent_checksum(const std::vector<uint8_t>& file, const std::string& digits) {
  const std::string needle = "\"checksum\":\"" + digits + "\"";
  const auto at = std::search(file.begin(), file.end(), needle.begin(), needle.end());
  EXPECT_NE(at, file.end());
  std::vector<uint8_t> zeroed = file;
  const size_t offset = static_cast<size_t>(at - file.begin()) + 12;
  std::fill_n(zeroed.begin() + static_cast<ptrdiff_t>(offset), 16, uint8_t('0'));
  return XXH3_64bits(zeroed.data(), zeroed.size());
}

// ---- round trips ---------------------------------------------------------------------------

TEST(VatFile, RoundTripEveryEncodingPrecisionAndLayout) {
  for (const auto& [name, synth] : variants()) {
    SCOPED_TRACE(name);
    const Vat vat = synthetic_vat(synth);
    ASSERT_TRUE(validate_vat(vat).ok()) << validate_vat(vat).error().message;
    const std::vector<uint8_t> file = write_ok(vat);
    ASSERT_FALSE(file.empty());
    EXPECT_EQ(write_ok(vat), file) << "writing is not deterministic";

    Result<Vat> loaded = load_vat_memory(file, name);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    expect_same_vat(vat, *loaded);
    EXPECT_EQ(loaded->source, name);
    // Written again, the loaded Vat gives the same bytes.
    EXPECT_EQ(write_ok(*loaded), file);
  }
}

TEST(VatFile, SaveAndLoadOwnTheBytes) {
  const fs::path dir = test::scratch_dir("vat_file_load");
  for (const auto& [name, synth] : variants()) {
    SCOPED_TRACE(name);
    const Vat vat = synthetic_vat(synth);
    const fs::path path = dir / "a.vat.glb";
    const Result<void> saved = save_vat(vat, path);
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    EXPECT_EQ(test::read_file(path), write_ok(vat));
    EXPECT_TRUE(is_vat_file(path));

    Result<Vat> loaded = load_vat(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    ASSERT_TRUE(loaded->storage);
    EXPECT_EQ(loaded->source, path.string());
    // Removing the file does not invalidate the bytes the Vat holds; copies share them.
    fs::remove(path);
    const Vat copy = *loaded;
    loaded = Error{ErrorCode::Argument, "dropped"};
    expect_same_vat(vat, copy);
    for (const Plane& p : copy.planes) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p.data.data()) % 16, 0u) << "plane not 16-byte aligned";
    }
  }
}

TEST(VatFile, PlanesPointIntoTheCallersBytes) {
  const Vat vat = synthetic_vat({});
  const std::vector<uint8_t> file = write_ok(vat);
  Result<Vat> loaded = load_vat_memory(file, "memory");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_FALSE(loaded->storage);  // the caller owns the bytes
  for (const Plane& p : loaded->planes) {
    EXPECT_GE(p.data.data(), file.data());
    EXPECT_LE(p.data.data() + p.data.size(), file.data() + file.size());
  }

  // Bytes that are not 16-byte aligned in memory are copied into aligned storage the Vat owns.
  std::vector<uint8_t> shifted(file.size() + 1);
  std::memcpy(shifted.data() + 1, file.data(), file.size());
  const std::span<const uint8_t> odd(shifted.data() + 1, file.size());
  Result<Vat> copied = load_vat_memory(odd, "odd");
  ASSERT_TRUE(copied.ok()) << copied.error().message;
  EXPECT_TRUE(copied->storage);
  std::fill(shifted.begin(), shifted.end(), 0);  // the copy does not depend on these
  expect_same_vat(vat, *copied);
  for (const Plane& p : copied->planes) EXPECT_EQ(reinterpret_cast<uintptr_t>(p.data.data()) % 16, 0u);
}

TEST(VatFile, EmptyDrawGroupsAreNotStored) {
  Vat vat = synthetic_vat({});
  vat.geometry.groups.insert(vat.geometry.groups.begin() + 1, DrawGroup{12, 0, 1});
  Result<Vat> loaded = load_vat_memory(write_ok(vat), "groups");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->geometry.groups.size(), 2u);
  EXPECT_EQ(loaded->geometry.groups[1].first_index, 12u);
  EXPECT_EQ(loaded->geometry.groups[1].index_count, 6u);
}

// ---- layout, checksum, validator -----------------------------------------------------------

TEST(VatFile, LayoutAlignsPlanesAndTheChecksumCoversEveryByte) {
  for (const auto& [name, synth] : variants()) {
    SCOPED_TRACE(name);
    const Vat vat = synthetic_vat(synth);
    const std::vector<uint8_t> file = write_ok(vat);
    const Parts parts = split(file);
    EXPECT_EQ(parts.bin_offset % 16, 0u) << "BIN data not 16-byte aligned in the file";
    // The JSON chunk is padded with spaces only.
    const std::string text(file.begin() + 20, file.begin() + 20 + static_cast<ptrdiff_t>(parts.json_length));
    const size_t end = text.find_last_not_of(' ');
    EXPECT_EQ(text[end], '}');

    const json& ext = parts.doc["extensions"][kVatExtensionName];
    EXPECT_EQ(ext["version"], kVatFormatVersion);
    EXPECT_FALSE(parts.doc.contains("extensionsRequired")) << "viewers must be able to show the file";
    EXPECT_EQ(parts.doc["extensionsUsed"], json::array({kVatExtensionName}));
    ASSERT_EQ(ext["planes"].size(), vat.planes.size());
    for (size_t i = 0; i < vat.planes.size(); ++i) {
      const json& view = parts.doc["bufferViews"][ext["planes"][i]["bufferView"].get<size_t>()];
      const size_t offset = view.value("byteOffset", size_t(0));
      EXPECT_EQ((parts.bin_offset + offset) % 16, 0u) << "plane " << i;
      EXPECT_EQ(view["byteLength"], vat.planes[i].byte_size());
      EXPECT_EQ(
          std::memcmp(file.data() + parts.bin_offset + offset, vat.planes[i].data.data(), vat.planes[i].data.size()),
          0);
    }
    const std::string digits = ext["checksum"];
    ASSERT_EQ(digits.size(), 16u);
    char expected[17];
    std::snprintf(expected, sizeof(expected), "%016llx",
                  static_cast<unsigned long long>(independent_checksum(file, digits)));
    EXPECT_EQ(digits, expected);
  }
}

TEST(VatFile, RestPoseMeshIsPlainGltf) {
  const Vat vat = synthetic_vat({.encoding = Encoding::Rig});
  const Parts parts = split(write_ok(vat));
  const json& doc = parts.doc;
  ASSERT_EQ(doc["meshes"].size(), 1u);
  const json& primitives = doc["meshes"][0]["primitives"];
  ASSERT_EQ(primitives.size(), 2u);
  const json& attributes = primitives[0]["attributes"];
  for (const char* a : {"POSITION", "NORMAL", "TANGENT", "TEXCOORD_0", "COLOR_0"})
    EXPECT_TRUE(attributes.contains(a)) << a;
  for (const char* a : {"_VAT_BIND_POSITION", "_VAT_BIND_NORMAL", "_VAT_BIND_TANGENT", "_VAT_SLOTS_0", "_VAT_SLOTS_1",
                        "_VAT_SLOT_WEIGHTS_0", "_VAT_SLOT_WEIGHTS_1"}) {
    EXPECT_TRUE(attributes.contains(a)) << a;
  }
  EXPECT_FALSE(attributes.contains("JOINTS_0")) << "a viewer would skin it";
  EXPECT_EQ(primitives[0]["material"], 0);
  EXPECT_EQ(primitives[1]["material"], 1);
  EXPECT_EQ(doc["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
  EXPECT_EQ(doc["textures"][0]["source"], 0);
  EXPECT_EQ(doc["images"][0]["mimeType"], "image/png");
  EXPECT_EQ(doc["scenes"][0]["nodes"], json::array({0}));
  EXPECT_EQ(doc["nodes"][0]["mesh"], 0);
  const json& position = doc["accessors"][attributes["POSITION"].get<size_t>()];
  EXPECT_TRUE(position.contains("min") && position.contains("max"));
}

// Runs the Khronos validator; null when node is not installed.
json validate(const fs::path& file) {
  if (test::run_command("command -v node").exit_code != 0) return nullptr;
  const auto r =
      test::run_command("node " + test::shell_quote(VATKIT_VALIDATOR) + " " + test::shell_quote(file.string()));
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  return json::parse(r.out, nullptr, false);
}

std::string issue_list(const json& report) {
  std::string out;
  for (const json& m : report["issues"]["messages"]) {
    out += "\n  " + m.value("code", std::string()) + " (severity " + std::to_string(m.value("severity", -1)) + ") " +
           m.value("pointer", std::string()) + ": " + m.value("message", std::string());
  }
  return out;
}

TEST(VatFile, KhronosValidatorReportsNoErrors) {
  const fs::path dir = test::scratch_dir("vat_file_validator");
  for (const auto& [name, synth] : variants()) {
    SCOPED_TRACE(name);
    const fs::path file = dir / "v.vat.glb";
    ASSERT_TRUE(save_vat(synthetic_vat(synth), file).ok());
    const json report = validate(file);
    if (report.is_null()) GTEST_SKIP() << "node is not installed: cannot run the Khronos validator";
    ASSERT_TRUE(report.is_object());
    EXPECT_EQ(report["issues"]["numErrors"], 0) << issue_list(report);
    EXPECT_EQ(report["issues"]["numWarnings"], 0) << issue_list(report);
    // The rest-pose mesh is what a viewer draws.
    EXPECT_EQ(report["info"]["drawCallCount"], 2) << report["info"].dump();
    EXPECT_EQ(report["info"]["totalVertexCount"], 8 * 2) << report["info"].dump();
  }
}

// ---- golden files --------------------------------------------------------------------------
// tests/golden/README.md says how they were made and when to regenerate them.

fs::path golden_path(const char* name) { return fs::path(VATKIT_SOURCE_DIR) / "tests" / "golden" / name; }

// The files of format `version`: v1's were written by version 1's writer and v2's by version 2's,
// and are never regenerated; v2 added each clip's measured error (VatClip::accuracy), v3 each delta
// vertex's texel address (_VAT_VERTEX) and each clip's seam (VatClip::seam).
std::vector<std::pair<const char*, Synth>> golden_variants(uint32_t version) {
  Synth delta;
  delta.precision = Precision::F16;
  delta.width = 3;
  delta.tangents = false;
  delta.clip_rows = {3, 2, 1};
  delta.seed = 1001;
  Synth rig;
  rig.encoding = Encoding::Rig;
  rig.precision = Precision::Q16;
  rig.width = 4;
  rig.textured = false;
  rig.colors = false;
  rig.clip_rows = {3, 2, 1};
  rig.seed = 1002;
  if (version == 1) return {{"v1_delta_f16.vat.glb", delta}, {"v1_rig_q16.vat.glb", rig}};
  delta.measured = true;  // the rig's clips stay unmeasured: both kinds of clip since version 2
  if (version == 2) return {{"v2_delta_f16.vat.glb", delta}, {"v2_rig_q16.vat.glb", rig}};
  delta.seams = rig.seams = true;
  rig.metres_per_unit = 0.01f;  // an asset modelled in centimetres (the delta keeps glTF's metres)
  if (version == 3) return {{"v3_delta_f16.vat.glb", delta}, {"v3_rig_q16.vat.glb", rig}};
  delta.events = rig.events = true;
  if (version == 4) return {{"v4_delta_f16.vat.glb", delta}, {"v4_rig_q16.vat.glb", rig}};
  delta.root_motion = rig.root_motion = true;
  return {{"v5_delta_f16.vat.glb", delta}, {"v5_rig_q16.vat.glb", rig}};
}

TEST(VatFile, GoldenFilesOfVersion5) {
  static_assert(kVatFormatVersion == 5, "a new version needs its golden files (tests/golden/README.md)");
  const bool regenerate = std::getenv("VATKIT_REGENERATE_GOLDEN") != nullptr;
  for (const auto& [name, synth] : golden_variants(5)) {
    SCOPED_TRACE(name);
    const Vat vat = synthetic_vat(synth);
    const std::vector<uint8_t> bytes = write_ok(vat);
    if (regenerate) {
      ASSERT_TRUE(write_file_atomic(golden_path(name), bytes).ok());
      std::printf("regenerated %s (%zu bytes)\n", golden_path(name).c_str(), bytes.size());
    }
    ASSERT_TRUE(fs::exists(golden_path(name))) << golden_path(name);
    const std::vector<uint8_t> golden = test::read_file(golden_path(name));
    EXPECT_LT(golden.size(), 8192u) << "golden files must stay small";
    // Loading it gives the Vat it was made from...
    Result<Vat> loaded = load_vat(golden_path(name));
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    expect_same_vat(vat, *loaded);
    // ...and writing that Vat today reproduces it byte for byte. A failure here means the format
    // changed: if on purpose, bump kVatFormatVersion and add v6 golden files (README.md).
    EXPECT_EQ(bytes, golden) << "the writer no longer produces format version 5's bytes";
    EXPECT_EQ(write_ok(*loaded), golden);
    // The delta's vertices carry their texel addresses, 0..V-1, named by the extension; the rig's
    // do not.
    Parts parts = split(golden);
    const json& attributes = parts.doc["meshes"][0]["primitives"][0]["attributes"];
    EXPECT_EQ(attributes.contains(kVatVertexAttribute), synth.encoding == Encoding::Delta);
    EXPECT_EQ(ext_of(parts.doc).contains("vertexAddress"), synth.encoding == Encoding::Delta);
    // Clips with events store them in time order; a clip without stores no key.
    const json& clips = ext_of(parts.doc)["clips"];
    EXPECT_EQ(clips[0]["events"], json::parse(R"([{"name":"step_l","time":0.0},{"name":"step_r","time":0.1}])"));
    EXPECT_EQ(clips[1]["events"], json::parse(R"([{"name":"hit","time":0.1}])"));
    EXPECT_FALSE(clips[2].contains("events"));
    // Clip 0 carries a joint's motion, clip 1 the feet's, clip 2 none.
    EXPECT_EQ(clips[0]["rootMotion"]["source"], "joint");
    EXPECT_EQ(clips[0]["rootMotion"]["track"].size(), 12u);
    EXPECT_EQ(clips[1]["rootMotion"]["source"], "feet");
    EXPECT_FALSE(clips[2].contains("rootMotion"));
  }
}

TEST(VatFile, GoldenFilesOfOlderVersionsStillLoad) {
  // Versions 2 to 5 only added properties: a version-1 file loads as the Vat it was made from
  // (no clip has a measured error), a version-2 or -1 delta file addresses texels by the vertex
  // index, a version-3 file has no clip events, a version-4 file no root motion, and writing any
  // again gives a current file of it.
  for (uint32_t version : {1u, 2u, 3u, 4u}) {
    for (const auto& [name, synth] : golden_variants(version)) {
      SCOPED_TRACE(name);
      const Vat vat = synthetic_vat(synth);
      const std::vector<uint8_t> golden = test::read_file(golden_path(name));
      Result<Vat> loaded = load_vat(golden_path(name));
      ASSERT_TRUE(loaded.ok()) << loaded.error().message;
      expect_same_vat(vat, *loaded);
      const std::vector<uint8_t> rewritten = write_ok(*loaded);
      EXPECT_EQ(ext_of_file(rewritten)["version"], kVatFormatVersion);
      EXPECT_EQ(ext_of_file(golden)["version"], version);
      Result<Vat> again = load_vat_memory(rewritten, name);
      ASSERT_TRUE(again.ok()) << again.error().message;
      expect_same_vat(vat, *again);
    }
  }
}

TEST(VatFile, FuzzSeedsAreCurrent) {
  const fs::path dir = fs::path(VATKIT_SOURCE_DIR) / "fuzz" / "seeds" / "fuzz_vat_load";
  if (std::getenv("VATKIT_REGENERATE_SEEDS")) {
    fs::create_directories(dir);
    Synth tiny;
    tiny.clip_rows = {2, 1};
    tiny.tangents = false;
    tiny.width = 3;
    tiny.measured = true;
    tiny.seams = true;
    tiny.events = true;
    tiny.root_motion = true;
    Synth rig;
    rig.encoding = Encoding::Rig;
    rig.precision = Precision::F16;
    rig.clip_rows = {2};
    rig.textured = false;
    ASSERT_TRUE(save_vat(synthetic_vat(tiny), dir / "delta.vat.glb").ok());
    ASSERT_TRUE(save_vat(synthetic_vat(rig), dir / "rig.vat.glb").ok());
    Synth lods;
    lods.clip_rows = {2};
    lods.tangents = false;
    lods.colors = false;
    lods.lods = true;
    ASSERT_TRUE(save_vat(synthetic_vat(lods), dir / "lods.vat.glb").ok());
  }
  size_t seeds = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    SCOPED_TRACE(entry.path().string());
    EXPECT_LT(entry.file_size(), 8192u);
    Result<Vat> loaded = load_vat(entry.path());
    EXPECT_TRUE(loaded.ok()) << loaded.error().message << " (regenerate with VATKIT_REGENERATE_SEEDS=1)";
    ++seeds;
  }
  EXPECT_GE(seeds, 3u);
}

// ---- real bakes ----------------------------------------------------------------------------

// Imported with their images (the files' textures must reach the .vat.glb), once per binary.
const Asset& real_asset(const std::string& relative) {
  static std::map<std::string, std::unique_ptr<Asset>> cache;
  auto it = cache.find(relative);
  if (it == cache.end()) {
    Result<Asset> r = relative == "<sample>" ? load_sample_character() : import_gltf(test::asset_path(relative));
    EXPECT_TRUE(r.ok()) << r.error().message;
    it = cache.emplace(relative, std::make_unique<Asset>(r ? std::move(*r) : Asset{})).first;
  }
  return *it->second;
}

// Bakes `path` (its first two clips, at 10 fps to keep the test quick) or returns the refusal.
Result<Vat> bake_real(const std::string& path, Encoding encoding, Precision precision) {
  BakeOptions options;
  options.encoding = encoding == Encoding::Rig ? EncodingChoice::Rig : EncodingChoice::Delta;
  options.precision = precision;
  options.fps = 10.0f;
  options.measure = false;
  options.clips = {"#0"};
  if (real_asset(path).animations.size() > 1) options.clips.push_back("#1");
  return bake(real_asset(path), options);
}

const char* const kRealFiles[] = {"<sample>",
                                  "khronos/CesiumMan.glb",
                                  "khronos/Fox.glb",
                                  "threejs/RobotExpressive.glb",
                                  "khronos/AnimatedMorphCube.glb",
                                  "quaternius/knight/KnightCharacter.glb"};

// The same decode, vertex for vertex and bit for bit, from the baked and the loaded Vat.
void expect_same_decode(const Vat& baked, const Vat& loaded) {
  const uint32_t n = std::min<uint32_t>(baked.geometry.vertex_count(), 64);
  for (uint32_t c = 0; c < baked.clips.size(); ++c) {
    const PoseBlend pose = single(clip_rows_at(baked, c, 0.37f * baked.clips[c].duration_s));
    std::vector<glm::vec3> p0(n), n0(n), p1(n), n1(n);
    decode_vertices(baked, pose, 0, p0, n0);
    decode_vertices(loaded, pose, 0, p1, n1);
    EXPECT_EQ(std::memcmp(p0.data(), p1.data(), n * sizeof(glm::vec3)), 0) << "clip " << c;
    EXPECT_EQ(std::memcmp(n0.data(), n1.data(), n * sizeof(glm::vec3)), 0) << "clip " << c;
  }
}

TEST(VatFile, RealBakesRoundTrip) {
  for (const char* path : kRealFiles) {
    if (std::string(path) != "<sample>" && !fs::exists(test::asset_path(path))) {
      ADD_FAILURE() << "missing asset " << path;
      continue;
    }
    for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
      for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) {
        SCOPED_TRACE(std::string(path) + (e == Encoding::Rig ? " rig " : " delta ") + std::to_string(int(p)));
        Result<Vat> baked = bake_real(path, e, p);
        if (!baked) {
          // Only the rig may refuse (morph targets, non-uniform scale), by name.
          EXPECT_EQ(e, Encoding::Rig) << baked.error().message;
          continue;
        }
        const Result<void> valid = validate_vat(*baked);
        ASSERT_TRUE(valid.ok()) << valid.error().message;
        const std::vector<uint8_t> file = write_ok(*baked);
        Result<Vat> loaded = load_vat_memory(file, path);
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        expect_same_vat(*baked, *loaded);
        expect_same_decode(*baked, *loaded);
        EXPECT_EQ(write_ok(*loaded), file);
        // Deterministic: a second bake writes the same bytes.
        EXPECT_EQ(write_ok(*bake_real(path, e, p)), file);
      }
    }
  }
}

TEST(VatFile, RealBakesPassTheKhronosValidator) {
  const fs::path dir = test::scratch_dir("vat_file_real_validator");
  for (const char* path : kRealFiles) {
    for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
      const Precision p = e == Encoding::Rig ? Precision::Q16 : Precision::F16;
      SCOPED_TRACE(std::string(path) + (e == Encoding::Rig ? " rig" : " delta"));
      Result<Vat> baked = bake_real(path, e, p);
      if (!baked) continue;  // RealBakesRoundTrip says why that is fine
      const fs::path file = dir / "real.vat.glb";
      const Result<void> saved = save_vat(*baked, file);
      ASSERT_TRUE(saved.ok()) << saved.error().message;
      const json report = validate(file);
      if (report.is_null()) GTEST_SKIP() << "node is not installed: cannot run the Khronos validator";
      ASSERT_TRUE(report.is_object());
      EXPECT_EQ(report["issues"]["numErrors"], 0) << issue_list(report);
      EXPECT_EQ(report["info"]["totalVertexCount"].get<uint64_t>(),
                uint64_t(baked->geometry.vertex_count()) * report["info"]["drawCallCount"].get<uint64_t>());
      EXPECT_EQ(report["info"]["materialCount"].get<size_t>(), baked->materials.size());
      EXPECT_EQ(report["info"]["hasTextures"].get<bool>(), !baked->images.empty());
    }
  }
}

// ---- refusing damaged files ----------------------------------------------------------------

std::vector<uint8_t> small_file() {
  Synth s;
  s.encoding = Encoding::Rig;
  s.clip_rows = {2, 1};
  s.width = 4;
  s.measured = true;
  return write_ok(synthetic_vat(s));
}

TEST(VatFile, EveryTruncationIsRefused) {
  const std::vector<uint8_t> file = small_file();
  ASSERT_TRUE(load_vat_memory(file, "t.vat.glb").ok());
  for (size_t length = 0; length < file.size(); ++length) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<ptrdiff_t>(length));
    Result<Vat> r = load_vat_memory(cut, "t.vat.glb");
    ASSERT_FALSE(r.ok()) << "length " << length;
    EXPECT_EQ(r.error().code, ErrorCode::Parse) << r.error().message;
    EXPECT_EQ(r.error().message.rfind("t.vat.glb: ", 0), 0u) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    // The same cut with the GLB header's length patched to match: the chunks or the checksum
    // must catch it.
    if (length >= 12) {
      const uint32_t n = static_cast<uint32_t>(length);
      std::memcpy(cut.data() + 8, &n, 4);
      Result<Vat> patched = load_vat_memory(cut, "t.vat.glb");
      ASSERT_FALSE(patched.ok()) << "length " << length << " with a patched header";
      EXPECT_TRUE(patched.error().code == ErrorCode::Parse || patched.error().code == ErrorCode::Corrupt)
          << patched.error().message;
    }
  }
}

TEST(VatFile, EverySingleByteCorruptionIsRefused) {
  // The checksum covers every byte but its own 16 digits, which it is compared with, so no byte
  // of the file goes unchecked, the JSON chunk's padding spaces included.
  const std::vector<uint8_t> file = small_file();
  std::mt19937 rng(20261130);
  std::vector<uint8_t> damaged = file;
  size_t by_checksum = 0;
  for (size_t offset = 0; offset < file.size(); ++offset) {
    const uint8_t value = static_cast<uint8_t>(file[offset] ^ (1 + rng() % 255));
    damaged[offset] = value;
    Result<Vat> r = load_vat_memory(damaged, "c.vat.glb");
    ASSERT_FALSE(r.ok()) << "offset " << offset << " set to " << int(value) << " loaded";
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    by_checksum += r.error().message.find("checksum") != std::string::npos;
    if (r.error().message.find("checksum mismatch") != std::string::npos) {
      EXPECT_EQ(r.error().code, ErrorCode::Corrupt) << r.error().message;
    }
    damaged[offset] = file[offset];
  }
  // Most are caught by the checksum itself (the rest by the container checks before it).
  EXPECT_GT(by_checksum, file.size() * 9 / 10);
}

TEST(VatFile, RandomMultiByteCorruptionsAreRefused) {
  const std::vector<uint8_t> file = small_file();
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> damaged = file;
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) damaged[rng() % damaged.size()] = static_cast<uint8_t>(rng());
    if (damaged == file) continue;
    ASSERT_FALSE(load_vat_memory(damaged, "r.vat.glb").ok()) << "trial " << trial;
  }
}

// One edit per validation rule, the checksum re-sealed so that the rule itself must catch it.
struct Mutation {
  const char* name;
  std::function<void(json& doc, std::vector<uint8_t>& bin)> edit;
  const char* expected;  // a substring of the error
  bool reseal = true;    // false where re-sealing is impossible by construction
};

size_t view_offset(const json& doc, size_t view) { return doc["bufferViews"][view].value("byteOffset", size_t(0)); }

// A new view holding a copy of `view`'s bytes, appended to the buffer (a loader refuses two
// objects in the same bytes): its index.
size_t copy_of_view(json& doc, std::vector<uint8_t>& bin, size_t view) {
  const size_t offset = view_offset(doc, view), length = doc["bufferViews"][view]["byteLength"];
  const size_t at = (bin.size() + 15) / 16 * 16;
  bin.resize(at + (length + 3) / 4 * 4, 0);
  std::memcpy(bin.data() + at, bin.data() + offset, length);
  doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", at}, {"byteLength", length}});
  doc["buffers"][0]["byteLength"] = bin.size();
  return doc["bufferViews"].size() - 1;
}
size_t attribute_view(const json& doc, const char* attribute) {
  const size_t accessor = doc["meshes"][0]["primitives"][0]["attributes"][attribute];
  return doc["accessors"][accessor]["bufferView"];
}

// Each mutation of `file` (re-sealed unless it says not) is refused with one line naming the file
// and containing the mutation's text: a format version this vatkit does not read as unsupported,
// every other as corrupt.
void expect_refused(const std::vector<uint8_t>& file, const std::vector<Mutation>& mutations) {
  for (const Mutation& m : mutations) {
    SCOPED_TRACE(m.name);
    Parts parts = split(file);
    m.edit(parts.doc, parts.bin);
    const std::vector<uint8_t> edited = assemble(parts.doc, parts.bin, m.reseal);
    Result<Vat> r = load_vat_memory(edited, "m.vat.glb");
    ASSERT_FALSE(r.ok()) << "the mutation loaded";
    EXPECT_NE(r.error().message.find(m.expected), std::string::npos) << r.error().message;
    const bool version = std::string(m.expected).find(".version") != std::string::npos;
    EXPECT_EQ(r.error().code, version ? ErrorCode::Unsupported : ErrorCode::Corrupt) << r.error().message;
    EXPECT_EQ(r.error().message.rfind("m.vat.glb: ", 0), 0u) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }
}

// A mutation giving clip 0 the root motion `text` (JSON).
auto root_motion_is(const char* text) {
  return [text](json& d, auto&) { ext_of(d)["clips"][0]["rootMotion"] = json::parse(text); };
}

TEST(VatFile, ResealedMutationsAreRefusedByName) {
  const std::vector<uint8_t> file = small_file();
  const std::vector<Mutation> mutations = {
      {"version", [](json& d, auto&) { ext_of(d)["version"] = 6; },
       "extensions.VATKIT_vertex_animation.version: 6 is not supported"},
      {"events type", [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = 3; },
       "extensions.VATKIT_vertex_animation.clips[0].events: expected an array"},
      {"event type", [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = json::array({"step"}); },
       "extensions.VATKIT_vertex_animation.clips[0].events[0]: expected an object"},
      {"event name missing", [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = json::parse(R"([{"time":0}])"); },
       "clips[0].events[0]: missing \"name\""},
      {"event name empty",
       [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = json::parse(R"([{"name":"","time":0}])"); },
       "clips[0].events[0].name: empty, an event has a name"},
      {"event name long",
       [](json& d, auto&) {
         ext_of(d)["clips"][0]["events"] = {{{"name", std::string(257, 'x')}, {"time", 0}}};
       },
       "clips[0].events[0].name: 257 bytes, at most 256"},
      {"event time type",
       [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = json::parse(R"([{"name":"a","time":"0"}])"); },
       "clips[0].events[0].time: expected a number"},
      {"event time negative",
       [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = json::parse(R"([{"name":"a","time":-0.5}])"); },
       "clips[0].events[0].time: -0.5 is negative"},
      {"event time past the clip",
       [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = json::parse(R"([{"name":"a","time":0.25}])"); },
       "clips[0].events[0].time: 0.25 is outside the clip's duration [0, 0.100000001]"},
      {"event time huge",
       [](json& d, auto&) { ext_of(d)["clips"][0]["events"] = json::parse(R"([{"name":"a","time":1e39}])"); },
       "clips[0].events[0].time: not a finite 32-bit float"},
      {"events out of order",
       [](json& d, auto&) {
         ext_of(d)["clips"][0]["events"] = json::parse(R"([{"name":"a","time":0.05},{"name":"b","time":0.01}])");
       },
       "clips[0].events[1].time: 0.00999999978 is before the previous event's 0.0500000007: events are stored in time "
       "order"},
      {"event of a one-row clip",
       [](json& d, auto&) { ext_of(d)["clips"][1]["events"] = json::parse(R"([{"name":"a","time":0.001}])"); },
       "clips[1].events[0].time: 0.00100000005 is outside the clip's duration [0, 0]"},
      {"root motion type", [](json& d, auto&) { ext_of(d)["clips"][0]["rootMotion"] = 3; },
       "extensions.VATKIT_vertex_animation.clips[0].rootMotion: expected an object"},
      {"root motion source",
       root_motion_is(R"({"source":"hips","joint":"h","node":0,"vertical":false,"track":[0,0,0,0,0,0,0,0]})"),
       "clips[0].rootMotion.source: \"hips\" is not one of joint, feet"},
      {"root motion track short",
       root_motion_is(R"({"source":"joint","joint":"h","node":0,"vertical":false,"track":[0,0,0,0]})"),
       "clips[0].rootMotion.track: 4 numbers, expected 4 per row (8 for 2 rows)"},
      {"root motion row 0",
       root_motion_is(R"({"source":"joint","joint":"h","node":0,"vertical":false,"track":[0,0,0.5,0,0,0,0,0]})"),
       "clips[0].rootMotion.track[2]: 0.5: row 0 of a root motion is (0, 0, 0, 0)"},
      {"root motion height",
       root_motion_is(R"({"source":"joint","joint":"h","node":0,"vertical":false,"track":[0,0,0,0,0,1,0,0]})"),
       "clips[0].rootMotion.track[5]: 1: a height in a root motion that is not vertical"},
      {"root motion huge",
       root_motion_is(R"({"source":"feet","joint":"","node":-1,"vertical":false,"track":[0,0,0,0,2e9,0,0,0]})"),
       "clips[0].rootMotion.track[4]: 2e+09 is out of range"},
      {"root motion not a number",
       root_motion_is(R"({"source":"feet","joint":"","node":-1,"vertical":false,"track":[0,0,0,0,"1",0,0,0]})"),
       "clips[0].rootMotion.track[4]: expected a number"},
      {"root motion unnamed joint",
       root_motion_is(R"({"source":"joint","joint":"","node":0,"vertical":false,"track":[0,0,0,0,0,0,0,0]})"),
       "clips[0].rootMotion.joint: empty for a joint's motion"},
      {"version 0", [](json& d, auto&) { ext_of(d)["version"] = 0; },
       "extensions.VATKIT_vertex_animation.version: 0 is not supported"},
      {"error type", [](json& d, auto&) { ext_of(d)["clips"][0]["error"] = 0.5; },
       "extensions.VATKIT_vertex_animation.clips[0].error: expected an object"},
      {"error key", [](json& d, auto&) { ext_of(d)["clips"][0]["error"].erase("betweenRowsP99Mm"); },
       "extensions.VATKIT_vertex_animation.clips[0].error: missing \"betweenRowsP99Mm\""},
      {"error negative", [](json& d, auto&) { ext_of(d)["clips"][0]["error"]["normalMaxDeg"] = -1.0; },
       "extensions.VATKIT_vertex_animation.clips[0].error.normalMaxDeg: -1 is negative"},
      {"error not a number", [](json& d, auto&) { ext_of(d)["clips"][0]["error"]["onRowsMaxMm"] = "1"; },
       "extensions.VATKIT_vertex_animation.clips[0].error.onRowsMaxMm: expected a number"},
      {"extension missing",
       [](json& d, auto&) {
         d["extensions"].erase(kVatExtensionName);
         d["x"] = {{"checksum", "0000000000000000"}};
       },
       "extensions: missing \"VATKIT_vertex_animation\""},
      {"not listed", [](json& d, auto&) { d.erase("extensionsUsed"); }, "extensionsUsed"},
      {"checksum elsewhere",
       [](json& d, auto&) {
         ext_of(d).erase("checksum");
         d["asset"]["checksum"] = "0000000000000000";
       },
       "extensions.VATKIT_vertex_animation: missing \"checksum\""},
      {"two checksums", [](json& d, auto&) { d["asset"]["checksum"] = "0000000000000000"; }, "more than one", false},
      {"encoding", [](json& d, auto&) { ext_of(d)["encoding"] = "skeletal"; },
       "extensions.VATKIT_vertex_animation.encoding: \"skeletal\" is not one of delta, rig"},
      {"precision type", [](json& d, auto&) { ext_of(d)["precision"] = 16; }, "precision: expected a string"},
      {"frameRows", [](json& d, auto&) { ext_of(d)["frameRows"] = 2; },
       "clips[1]: band firstRow 2 + rows 1 runs past frameRows 2"},
      {"clip rows", [](json& d, auto&) { ext_of(d)["clips"][0]["rows"] = 0; }, "clips[0].rows: 0"},
      {"clip speed", [](json& d, auto&) { ext_of(d)["clips"][0]["speed"] = -1.0; }, "clips[0].speed: -1 is negative"},
      {"clip fps overflow", [](json& d, auto&) { ext_of(d)["clips"][0]["fps"] = 1e300; },
       "clips[0].fps: not a finite 32-bit float"},
      {"clip loop mode", [](json& d, auto&) { ext_of(d)["clips"][1]["loopMode"] = "bounce"; }, "clips[1].loopMode"},
      {"clip missing field", [](json& d, auto&) { ext_of(d)["clips"][1].erase("endMode"); },
       "clips[1]: missing \"endMode\""},
      {"repetitions", [](json& d, auto&) { ext_of(d)["clips"][0]["repetitions"] = -2; },
       "clips[0].repetitions: -2 < -1"},
      {"plane height", [](json& d, auto&) { ext_of(d)["planes"][0]["height"] = 7; },
       "extensions.VATKIT_vertex_animation.planes[0].height: 7, expected rowsPerFrame * frameRows = 6"},
      {"plane rowsPerFrame", [](json& d, auto&) { ext_of(d)["planes"][0]["rowsPerFrame"] = 1; },
       "planes[0].rowsPerFrame: 1, expected ceil"},
      {"plane texels", [](json& d, auto&) { ext_of(d)["planes"][0]["texelsPerFrame"] = 8; },
       "planes[0].texelsPerFrame: 8, expected 6 (2 per slot)"},
      {"plane width 0", [](json& d, auto&) { ext_of(d)["planes"][0]["width"] = 0; }, "planes[0].width: 0"},
      {"plane format", [](json& d, auto&) { ext_of(d)["planes"][0]["format"] = "rgba16f"; },
       "planes[0].format: rgba16f, but precision f32 stores rgba32f"},
      {"plane precision", [](json& d, auto&) { ext_of(d)["precision"] = "q16"; },
       "planes[0].format: rgba32f, but precision q16 stores rgba16unorm"},
      {"plane bytes",
       [](json& d, auto&) { d["bufferViews"][ext_of(d)["planes"][0]["bufferView"].get<size_t>()]["byteLength"] = 368; },
       "planes[0]: bufferViews[14] has 368 bytes, width * height * 16 = 384"},
      {"plane semantic", [](json& d, auto&) { ext_of(d)["planes"][0]["semantic"] = "position"; },
       "planes[0].texelsPerFrame"},
      {"plane missing", [](json& d, auto&) { ext_of(d)["planes"] = json::array(); }, "planes: empty"},
      {"plane view", [](json& d, auto&) { ext_of(d)["planes"][0]["bufferView"] = 99; },
       "bufferViews[99] does not exist"},
      {"plane misaligned",
       [](json& d, auto&) {
         const size_t v = ext_of(d)["planes"][0]["bufferView"];
         d["bufferViews"][v]["byteOffset"] = view_offset(d, v) - 4;
       },
       "is not a multiple of 16"},
      {"plane stride",
       [](json& d, auto&) { d["bufferViews"][ext_of(d)["planes"][0]["bufferView"].get<size_t>()]["byteStride"] = 16; },
       "byteStride: a plane's view has none"},
      {"view past buffer", [](json& d, auto&) { d["bufferViews"][0]["byteLength"] = 1u << 30; },
       "run past the buffer's"},
      {"buffer length", [](json& d, auto&) { d["buffers"][0]["byteLength"] = 16; },
       "buffers[0].byteLength: 16, the BIN chunk has"},
      {"buffer uri", [](json& d, auto&) { d["buffers"][0]["uri"] = "x.bin"; }, "buffers[0].uri"},
      {"slot index",
       [](json& d, std::vector<uint8_t>& bin) {
         const uint16_t bad = 3;
         std::memcpy(bin.data() + view_offset(d, attribute_view(d, "_VAT_SLOTS_1")) + 8 * 5 + 2, &bad, 2);
       },
       "attributes._VAT_SLOTS_1: vertex 5 names slot 3, there are 3 slots"},
      {"vertex index",
       [](json& d, std::vector<uint8_t>& bin) {
         const size_t accessor = d["meshes"][0]["primitives"][0]["indices"];
         const uint32_t bad = 8;
         std::memcpy(bin.data() + view_offset(d, d["accessors"][accessor]["bufferView"]) + 4 * 7, &bad, 4);
       },
       "(indices): index 7 is 8, there are 8 vertices"},
      {"non-finite position",
       [](json& d, std::vector<uint8_t>& bin) {
         const float nan = std::nanf("");
         std::memcpy(bin.data() + view_offset(d, attribute_view(d, "POSITION")) + 12 * 2 + 4, &nan, 4);
       },
       "attributes.POSITION: vertex 2 is not finite"},
      {"accessor type",
       [](json& d, auto&) {
         d["accessors"][d["meshes"][0]["primitives"][0]["attributes"]["NORMAL"].get<size_t>()]["type"] = "VEC4";
       },
       "attributes.NORMAL (accessors[1]).type: \"VEC4\", expected \"VEC3\""},
      {"accessor component",
       [](json& d, auto&) {
         d["accessors"][d["meshes"][0]["primitives"][0]["attributes"]["_VAT_SLOTS_0"].get<size_t>()]["componentType"] =
             5121;
       },
       "componentType: 5121, expected 5123"},
      {"accessor count",
       [](json& d, auto&) {
         d["accessors"][d["meshes"][0]["primitives"][0]["attributes"]["NORMAL"].get<size_t>()]["count"] = 7;
       },
       "attributes.NORMAL: count 7, expected the vertex count 8"},
      {"accessor past view", [](json& d, auto&) { d["accessors"][0]["count"] = 9; }, "run past bufferViews[0]"},
      {"accessor normalized", [](json& d, auto&) { d["accessors"][0]["normalized"] = true; },
       "normalized: true, expected false"},
      {"accessor sparse", [](json& d, auto&) { d["accessors"][0]["sparse"] = json::object(); }, "sparse accessors"},
      {"unknown attribute",
       [](json& d, auto&) {
         for (json& p : d["meshes"][0]["primitives"]) p["attributes"]["JOINTS_0"] = 0;
       },
       "attributes.JOINTS_0: not an attribute of a .vat.glb"},
      {"attributes differ", [](json& d, auto&) { d["meshes"][0]["primitives"][1]["attributes"].erase("COLOR_0"); },
       "primitives[1].attributes: differs"},
      {"rig without weights",
       [](json& d, auto&) {
         for (json& p : d["meshes"][0]["primitives"]) {
           p["attributes"].erase("_VAT_SLOT_WEIGHTS_1");
         }
       },
       "missing: _VAT_SLOTS_1 and _VAT_SLOT_WEIGHTS_1 come together"},
      {"primitive mode", [](json& d, auto&) { d["meshes"][0]["primitives"][0]["mode"] = 1; }, "mode: not 4"},
      {"group count",
       [](json& d, auto&) { d["accessors"][d["meshes"][0]["primitives"][1]["indices"].get<size_t>()]["count"] = 5; },
       "must be multiples of 3"},
      {"group material", [](json& d, auto&) { d["meshes"][0]["primitives"][1]["material"] = 9; },
       "primitives[1].material: 9 is not one of the 2 materials"},
      {"mesh index", [](json& d, auto&) { ext_of(d)["mesh"] = 1; }, "mesh: meshes[1] does not exist"},
      {"sources range", [](json& d, auto&) { ext_of(d)["sources"][1]["vertexCount"] = 5; },
       "sources[1]: vertices 4 + 5 run past the vertex count 8"},
      {"sources negative", [](json& d, auto&) { ext_of(d)["sources"][0]["node"] = -1; },
       "sources[0].node: expected an unsigned integer"},
      {"sources repeated", [](json& d, auto&) { ext_of(d)["sources"][1] = ext_of(d)["sources"][0]; },
       "sources[1]: vertices 0 + 4 start before the end (4) of the source before it"},
      {"sources out of order", [](json& d, auto&) { std::swap(ext_of(d)["sources"][0], ext_of(d)["sources"][1]); },
       "sources[1]: vertices 0 + 4 start before the end (8)"},
      {"sources overlap", [](json& d, auto&) { ext_of(d)["sources"][1]["firstVertex"] = 3; },
       "sources[1]: vertices 3 + 4 start before"},
      {"source without vertices",
       [](json& d, auto&) {
         ext_of(d)["sources"][0]["vertexCount"] = 0;
         ext_of(d)["sources"][0]["sourceVertexCount"] = 0;
       },
       "sources[0].vertexCount: 0"},
      {"clip bands overlap", [](json& d, auto&) { ext_of(d)["clips"][1]["firstRow"] = 1; },
       "clips[1]: band firstRow 1 + rows 1 overlaps the band of extensions.VATKIT_vertex_animation.clips[0] (firstRow "
       "0 + rows 2)"},
      {"clip repeated", [](json& d, auto&) { ext_of(d)["clips"].push_back(ext_of(d)["clips"][0]); },
       "clips[2]: band firstRow 0 + rows 2 overlaps the band of extensions.VATKIT_vertex_animation.clips[0]"},
      {"image in a plane's view",
       [](json& d, auto&) { d["images"][0]["bufferView"] = ext_of(d)["planes"][0]["bufferView"]; },
       "planes[0]: bufferViews[14] (bytes 1376 + 384) overlaps the data of images[0]"},
      {"image repeated", [](json& d, auto&) { d["images"].push_back(d["images"][0]); },
       "images[1]: bufferViews[13] (bytes 1288 + 75) overlaps the data of images[0]"},
      {"attributes share a view",
       [](json& d, auto&) {
         json& attributes = d["meshes"][0]["primitives"][0]["attributes"];
         d["accessors"][attributes["NORMAL"].get<size_t>()]["bufferView"] =
             d["accessors"][attributes["POSITION"].get<size_t>()]["bufferView"];
       },
       "attributes.NORMAL: bufferViews[0] (bytes 0 + 96) overlaps the data of "
       "meshes[0].primitives[0].attributes.POSITION"},
      {"slot matrix", [](json& d, auto&) { ext_of(d)["slots"][2]["inverseBind"].erase(15); },
       "slots[2].inverseBind: expected an array of 16 numbers"},
      {"slots empty", [](json& d, auto&) { ext_of(d)["slots"] = json::array(); },
       "slots: empty, the rig encoding needs slots"},
      {"material texture",
       [](json& d, auto&) { d["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"]["index"] = 4; },
       "materials[1].pbrMetallicRoughness.baseColorTexture.index: textures[4] does not exist"},
      {"material colour", [](json& d, auto&) { d["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"][0] = 2.0; },
       "materials[0].baseColorFactor: 2 is not in [0, 1]"},
      {"image mime", [](json& d, auto&) { d["images"][0]["mimeType"] = "image/ktx2"; }, "images[0].mimeType"},
      {"image uri", [](json& d, auto&) { d["images"][0]["uri"] = "a.png"; }, "images[0].uri"},
  };
  expect_refused(file, mutations);
  // The unchanged parts re-assembled load (the harness itself is sound)...
  Parts parts = split(file);
  EXPECT_TRUE(load_vat_memory(assemble(parts.doc, parts.bin), "same").ok());
  // A file of another version is named as such even when its checksum does not match (a later
  // version may hash differently).
  Parts future = split(file);
  ext_of(future.doc)["version"] = 6;
  Result<Vat> v6 = load_vat_memory(assemble(future.doc, future.bin, false), "v6.vat.glb");
  ASSERT_FALSE(v6.ok());
  EXPECT_EQ(v6.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(v6.error().message,
            "v6.vat.glb: extensions.VATKIT_vertex_animation.version: 6 is not supported (this vatkit reads "
            "versions 1 to 5)");
  // A version-4 file has no root motion: a clip's "rootMotion" there is ignored.
  Parts v4 = split(file);
  ext_of(v4.doc)["version"] = 4;
  ext_of(v4.doc)["clips"][0]["rootMotion"] = "not read";
  Result<Vat> four = load_vat_memory(assemble(v4.doc, v4.bin), "v4.vat.glb");
  ASSERT_TRUE(four.ok()) << four.error().message;
  EXPECT_FALSE(four->clips[0].root_motion.has_value());
  // A version-3 file has no events: a clip's "events" there is an unknown property, ignored.
  Parts v3 = split(file);
  ext_of(v3.doc)["version"] = 3;
  ext_of(v3.doc)["clips"][0]["events"] = "not read";
  Result<Vat> three = load_vat_memory(assemble(v3.doc, v3.bin), "v3.vat.glb");
  ASSERT_TRUE(three.ok()) << three.error().message;
  EXPECT_TRUE(three->clips[0].events.empty());
  // A version-1 file has no measured errors: a clip's "error" there is an unknown property, which
  // a loader ignores (docs/format.md, section 7).
  Parts v1 = split(file);
  ext_of(v1.doc)["version"] = 1;
  Result<Vat> old = load_vat_memory(assemble(v1.doc, v1.bin), "v1.vat.glb");
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_FALSE(old->clips[0].accuracy.has_value());
  Result<Vat> current = load_vat_memory(file, "v3.vat.glb");
  ASSERT_TRUE(current.ok()) << current.error().message;
  ASSERT_TRUE(current->clips[0].accuracy.has_value());
  EXPECT_FALSE(current->clips[1].accuracy.has_value());
  // ...and without re-sealing, an edit is a checksum mismatch.
  ext_of(parts.doc)["clips"][0]["speed"] = 2.0;
  Result<Vat> unsealed = load_vat_memory(assemble(parts.doc, parts.bin, false), "u.vat.glb");
  ASSERT_FALSE(unsealed.ok());
  EXPECT_EQ(unsealed.error().code, ErrorCode::Corrupt);
  EXPECT_NE(unsealed.error().message.find("u.vat.glb: checksum mismatch: the file says "), std::string::npos)
      << unsealed.error().message;
}

TEST(VatFile, ResealedLodMutationsAreRefusedByName) {
  Synth synth;
  synth.lods = true;
  const std::vector<uint8_t> file = write_ok(synthetic_vat(synth));
  auto lod_view = [](json& d, size_t level) -> json& {
    return d["bufferViews"][ext_of(d)["lods"][level]["indices"].get<size_t>()];
  };
  const std::vector<Mutation> mutations = {
      {"empty", [](json& d, auto&) { ext_of(d)["lods"] = json::array(); },
       "extensions.VATKIT_vertex_animation.lods: empty"},
      {"not an array", [](json& d, auto&) { ext_of(d)["lods"] = json::object(); }, "lods: expected an array"},
      {"missing error", [](json& d, auto&) { ext_of(d)["lods"][0].erase("error"); }, "lods[0]: missing \"error\""},
      {"missing groups", [](json& d, auto&) { ext_of(d)["lods"][1].erase("groups"); }, "lods[1]: missing \"groups\""},
      {"no view", [](json& d, auto&) { ext_of(d)["lods"][0]["indices"] = 99; },
       "lods[0].indices: bufferViews[99] does not exist"},
      {"views shared", [](json& d, auto&) { ext_of(d)["lods"][1]["indices"] = ext_of(d)["lods"][0]["indices"]; },
       "lods[1]: bufferViews[11] (bytes 4160 + 36) overlaps the data of extensions.VATKIT_vertex_animation.lods[0]"},
      {"index out of range",
       [&](json& d, std::vector<uint8_t>& bin) {
         const uint32_t bad = 8;
         std::memcpy(bin.data() + lod_view(d, 0).value("byteOffset", size_t(0)) + 4 * 2, &bad, 4);
       },
       "lods[0].indices: index 2 is 8, there are 8 vertices"},
      {"not triangles", [&](json& d, auto&) { lod_view(d, 1)["byteLength"] = 8; },
       "lods[1].indices: 2 indices, not a triangle list"},
      {"not 4 bytes", [&](json& d, auto&) { lod_view(d, 1)["byteLength"] = 10; }, "lods[1].indices: bufferViews["},
      {"as many as the level before",
       [&](json& d, std::vector<uint8_t>& bin) {
         ext_of(d)["lods"][1]["indices"] = copy_of_view(d, bin, ext_of(d)["lods"][0]["indices"]);
       },
       "lods[1].indices: 3 triangles, not fewer than the 3 of level 1"},
      {"as many as the full mesh",
       [&](json& d, std::vector<uint8_t>& bin) {
         ext_of(d)["lods"][0]["indices"] = copy_of_view(
             d, bin, d["accessors"][d["meshes"][0]["primitives"][0]["indices"].get<size_t>()]["bufferView"]);
       },
       "lods[0].indices: 6 triangles, not fewer than the 6 of the full mesh"},
      {"group count", [](json& d, auto&) { ext_of(d)["lods"][0]["groups"].erase(1); },
       "lods[0].groups: 1 groups, expected one per mesh primitive (2)"},
      {"group past the buffer", [](json& d, auto&) { ext_of(d)["lods"][0]["groups"][1]["indexCount"] = 6; },
       "lods[0].groups[1]: indices 6 + 6 run past the level's 9 indices"},
      {"group not triangles", [](json& d, auto&) { ext_of(d)["lods"][0]["groups"][0]["indexCount"] = 5; },
       "must be multiples of 3"},
      {"group type", [](json& d, auto&) { ext_of(d)["lods"][0]["groups"][0]["firstIndex"] = -3; },
       "lods[0].groups[0].firstIndex: expected an unsigned integer"},
      {"negative error", [](json& d, auto&) { ext_of(d)["lods"][0]["error"] = -1.0; }, "lods[0].error: -1 is negative"},
      {"error decreases", [](json& d, auto&) { ext_of(d)["lods"][1]["error"] = 0.03125; },
       "lods[1].error: 0.03125 is smaller than level 1's 0.0625"},
      {"motion below rest", [](json& d, auto&) { ext_of(d)["lods"][0]["errorInMotion"] = 0.03125; },
       "lods[0].errorInMotion: 0.03125 is smaller than the error at rest 0.0625"},
      {"motion decreases",
       [](json& d, auto&) {
         ext_of(d)["lods"][1]["errorInMotion"] = 0.0625;
         ext_of(d)["lods"][1]["error"] = 0.0625;
       },
       "lods[1].errorInMotion: 0.0625 is smaller than level 1's 0.100000001"},
      {"screen size grows", [](json& d, auto&) { ext_of(d)["lods"][1]["screenSize"] = 40.0; },
       "lods[1].screenSize: 40 is larger than level 1's 36.5"},
      {"screen size overflow", [](json& d, auto&) { ext_of(d)["lods"][0]["screenSize"] = 1e300; },
       "lods[0].screenSize: not a finite 32-bit float"},
      {"screen size negative", [](json& d, auto&) { ext_of(d)["lods"][1]["screenSize"] = -1.0; },
       "lods[1].screenSize: -1 is negative"},
      {"view stride", [&](json& d, auto&) { lod_view(d, 0)["byteStride"] = 4; }, "byteStride: an index view has none"},
      {"view misaligned",
       [&](json& d, auto&) {
         json& v = lod_view(d, 0);
         v["byteOffset"] = v.value("byteOffset", size_t(0)) + 2;
         v["byteLength"] = 24;
       },
       "lods[0].indices: bufferViews["},
  };
  expect_refused(file, mutations);
  // The untouched file loads with its levels; without "lods" it loads as a file without levels
  // and writes the bytes of the Vat without them.
  Parts parts = split(file);
  Result<Vat> same = load_vat_memory(assemble(parts.doc, parts.bin), "same");
  ASSERT_TRUE(same.ok()) << same.error().message;
  EXPECT_EQ(same->geometry.lods.size(), 2u);
  ext_of(parts.doc).erase("lods");
  Result<Vat> none = load_vat_memory(assemble(parts.doc, parts.bin), "none");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->geometry.lods.empty());
}

// ---- texel addresses (format version 3) ----------------------------------------------------

// `file` with its vertices in another order, as a glTF tool that reorders them leaves it: file
// vertex j holds what vertex src[j] held, in every attribute (_VAT_VERTEX included); every index
// buffer (the primitives', each level of detail's) is remapped and the checksum re-sealed as the
// writer seals it.
std::vector<uint8_t> with_vertices_moved(const std::vector<uint8_t>& file, const std::vector<uint32_t>& src) {
  Parts p = split(file);
  const auto n = uint32_t(src.size());
  std::vector<uint32_t> to(n);  // where each vertex went
  for (uint32_t j = 0; j < n; ++j) to[src[j]] = j;
  const std::map<std::string, size_t> components = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}};
  for (const auto& [name, index] : p.doc["meshes"][0]["primitives"][0]["attributes"].items()) {
    const json& a = p.doc["accessors"][index.get<size_t>()];
    EXPECT_EQ(a["count"], n) << name;
    const size_t element = components.at(a["type"]) * (a["componentType"] == 5123 ? 2 : 4);
    const size_t offset = view_offset(p.doc, a["bufferView"]) + a.value("byteOffset", size_t(0));
    const std::vector<uint8_t> before(p.bin.begin() + ptrdiff_t(offset),
                                      p.bin.begin() + ptrdiff_t(offset + n * element));
    for (uint32_t j = 0; j < n; ++j) std::memcpy(&p.bin[offset + j * element], &before[src[j] * element], element);
  }
  auto remap = [&](size_t view) {
    const size_t offset = view_offset(p.doc, view), count = p.doc["bufferViews"][view]["byteLength"].get<size_t>() / 4;
    for (size_t k = 0; k < count; ++k) {
      uint32_t i = 0;
      std::memcpy(&i, &p.bin[offset + k * 4], 4);
      std::memcpy(&p.bin[offset + k * 4], &to[i], 4);
    }
  };
  remap(p.doc["accessors"][p.doc["meshes"][0]["primitives"][0]["indices"].get<size_t>()]["bufferView"]);
  for (const json& level : ext_of(p.doc).value("lods", json::array())) remap(level["indices"]);
  return assemble(p.doc, p.bin);
}

std::vector<glm::vec3> floats3_of(const std::vector<uint8_t>& file, const char* attribute, uint32_t n) {
  Parts p = split(file);
  const json& a = p.doc["accessors"][p.doc["meshes"][0]["primitives"][0]["attributes"][attribute].get<size_t>()];
  std::vector<glm::vec3> out(n);
  std::memcpy(out.data(), &p.bin[view_offset(p.doc, a["bufferView"]) + a.value("byteOffset", size_t(0))], n * 12);
  return out;
}

TEST(VatFile, ReorderedVerticesLoadInTexelOrder) {
  // A real delta bake (Fox: its first two clips at 10 fps, levels of detail) written, then its
  // vertices shuffled in the file: the loader reads each vertex's _VAT_VERTEX and puts the
  // geometry back into texel order, so the loaded Vat is the original one and decodes the same.
  Result<Vat> baked = bake_real("khronos/Fox.glb", Encoding::Delta, Precision::F16);
  ASSERT_TRUE(baked.ok()) << baked.error().message;
  ASSERT_FALSE(baked->geometry.lods.empty()) << "the levels' indices must be remapped too";
  const std::vector<uint8_t> file = write_ok(*baked);
  const uint32_t n = baked->geometry.vertex_count();
  std::vector<uint32_t> src(n);
  for (uint32_t v = 0; v < n; ++v) src[v] = v;
  std::shuffle(src.begin(), src.end(), std::mt19937(20261203));
  const std::vector<uint8_t> shuffled = with_vertices_moved(file, src);
  Result<Vat> original = load_vat_memory(file, "fox.vat.glb");
  Result<Vat> moved = load_vat_memory(shuffled, "shuffled.vat.glb");
  ASSERT_TRUE(original.ok()) << original.error().message;
  ASSERT_TRUE(moved.ok()) << moved.error().message;

  // The file's vertex j is the loaded Vat's vertex src[j] (its _VAT_VERTEX value); the shuffle did
  // move the vertices in the file.
  const std::vector<glm::vec3> in_file = floats3_of(shuffled, "POSITION", n);
  size_t moved_vertices = 0;
  for (uint32_t j = 0; j < n; ++j) {
    ASSERT_TRUE(same_bytes(in_file[j], moved->geometry.positions[src[j]])) << "file vertex " << j;
    moved_vertices += !same_bytes(in_file[j], original->geometry.positions[j]);
  }
  EXPECT_GT(moved_vertices, n / 2);
  expect_same_vat(*original, *moved);
  EXPECT_EQ(write_ok(*moved), file) << "the loaded Vat writes the unshuffled file";

  // Decoded poses, each file vertex j through the address it carries, equal the unshuffled decode.
  std::vector<PoseBlend> poses;
  for (uint32_t c = 0; c < original->clips.size(); ++c) {
    for (float t : {0.0f, 0.37f, 0.81f})
      poses.push_back(single(clip_rows_at(*original, c, t * original->clips[c].duration_s)));
  }
  poses.push_back({poses[1].a, poses.back().a, 0.4f});  // a blend of two clips
  for (size_t k = 0; k < poses.size(); ++k) {
    std::vector<glm::vec3> p0(n), n0(n), p1(n), n1(n);
    decode_vertices(*original, poses[k], 0, p0, n0);
    decode_vertices(*moved, poses[k], 0, p1, n1);
    size_t differing = 0;
    for (uint32_t j = 0; j < n; ++j) {
      differing += !same_bytes(p1[src[j]], p0[src[j]]) || !same_bytes(n1[src[j]], n0[src[j]]);
    }
    EXPECT_EQ(differing, 0u) << "pose " << k;
  }
}

TEST(VatFile, BadTexelAddressesAreRefusedByName) {
  Synth synth;  // delta f32, 8 vertices
  synth.clip_rows = {2, 1};
  const std::vector<uint8_t> file = write_ok(synthetic_vat(synth));
  auto set_address = [](uint32_t vertex, float value) {
    return [=](json& d, std::vector<uint8_t>& bin) {
      std::memcpy(bin.data() + view_offset(d, attribute_view(d, kVatVertexAttribute)) + 4 * vertex, &value, 4);
    };
  };
  auto address_accessor = [](json& d) -> json& {
    return d["accessors"][d["meshes"][0]["primitives"][0]["attributes"][kVatVertexAttribute].get<size_t>()];
  };
  const std::vector<Mutation> mutations = {
      {"missing",
       [](json& d, auto&) {
         for (json& p : d["meshes"][0]["primitives"]) p["attributes"].erase(kVatVertexAttribute);
       },
       "m.vat.glb: meshes[0].primitives[0].attributes._VAT_VERTEX: missing"},
      {"duplicate", set_address(5, 2.0f), "_VAT_VERTEX: value 2 of vertex 5 repeats vertex 2's"},
      {"out of range", set_address(3, 8.0f), "_VAT_VERTEX: value 8 of vertex 3 is outside [0, 8)"},
      {"negative", set_address(0, -1.0f), "_VAT_VERTEX: value -1 of vertex 0 is outside [0, 8)"},
      {"not a number", set_address(1, std::nanf("")), "of vertex 1 is outside [0, 8)"},
      {"not an integer", set_address(4, 4.5f), "_VAT_VERTEX: value 4.5 of vertex 4 is not an integer"},
      {"component type", [&](json& d, auto&) { address_accessor(d)["componentType"] = 5125; },
       ".componentType: 5125, expected 5126"},
      {"type", [&](json& d, auto&) { address_accessor(d)["type"] = "VEC2"; }, ".type: \"VEC2\", expected \"SCALAR\""},
      {"count", [&](json& d, auto&) { address_accessor(d)["count"] = 7; },
       "_VAT_VERTEX: count 7, expected the vertex count 8"},
      {"not named", [](json& d, auto&) { ext_of(d).erase("vertexAddress"); },
       "extensions.VATKIT_vertex_animation: missing \"vertexAddress\""},
      {"named otherwise", [](json& d, auto&) { ext_of(d)["vertexAddress"] = "TEXCOORD_1"; },
       "extensions.VATKIT_vertex_animation.vertexAddress: \"TEXCOORD_1\", expected \"_VAT_VERTEX\""},
      {"in version 2", [](json& d, auto&) { ext_of(d)["version"] = 2; },
       "_VAT_VERTEX: only a delta file of version 3 or later addresses texels by it"},
  };
  expect_refused(file, mutations);
  // A rig file has no addresses (its vertices carry their own slots and weights).
  const std::vector<uint8_t> rig = small_file();
  expect_refused(rig, {{"rig named", [](json& d, auto&) { ext_of(d)["vertexAddress"] = kVatVertexAttribute; },
                        "vertexAddress: the rig encoding addresses no vertex texels"},
                       {"rig attribute",
                        [](json& d, auto&) {
                          for (json& p : d["meshes"][0]["primitives"])
                            p["attributes"][kVatVertexAttribute] = p["attributes"]["POSITION"];
                        },
                        "_VAT_VERTEX: only a delta file of version 3 or later addresses texels by it"}});
  // Version 2's delta has neither: the address is the vertex index.
  Parts v2 = split(file);
  ext_of(v2.doc)["version"] = 2;
  ext_of(v2.doc).erase("vertexAddress");
  for (json& p : v2.doc["meshes"][0]["primitives"]) p["attributes"].erase(kVatVertexAttribute);
  const std::vector<uint8_t> v2_file = assemble(v2.doc, v2.bin);  // the loaded planes point into it
  Result<Vat> old = load_vat_memory(v2_file, "v2.vat.glb");
  ASSERT_TRUE(old.ok()) << old.error().message;
  expect_same_vat(synthetic_vat(synth), *old);
  EXPECT_EQ(write_ok(*old), file);
}

TEST(VatFile, VatsWithoutLodsWriteTheSameBytesAsBefore) {
  // The golden files pin the bytes of Vats without levels; a Vat with levels adds only the
  // "lods" property and its views after the planes.
  for (const auto& [name, synth] : golden_variants(kVatFormatVersion)) {
    Synth with = synth;
    with.lods = true;
    const std::vector<uint8_t> golden = test::read_file(golden_path(name));
    const std::vector<uint8_t> bytes = write_ok(synthetic_vat(with));
    Parts a = split(golden), b = split(bytes);
    ASSERT_TRUE(ext_of(b.doc).contains("lods"));
    EXPECT_FALSE(ext_of(a.doc).contains("lods"));
    ASSERT_GT(b.bin.size(), a.bin.size());
    EXPECT_TRUE(std::equal(a.bin.begin(), a.bin.end(), b.bin.begin())) << "the levels' views come last";
    ext_of(b.doc).erase("lods");
    ext_of(b.doc).erase("checksum");
    ext_of(a.doc).erase("checksum");
    for (int i = 0; i < 2; ++i) b.doc["bufferViews"].erase(b.doc["bufferViews"].size() - 1);
    b.doc["buffers"][0]["byteLength"] = a.doc["buffers"][0]["byteLength"];
    EXPECT_EQ(a.doc, b.doc);
  }
}

// A JSON chunk nesting deeper than 64 levels (here 100,000 arrays in the root's extras, checksum
// re-sealed) is refused before anything walks it.
TEST(VatFile, DeepJsonIsRefused) {
  const Parts parts = split(small_file());
  std::string text = parts.doc.dump();
  ASSERT_EQ(text[0], '{');
  text.insert(1, "\"extras\":" + std::string(100000, '[') + std::string(100000, ']') + ",");
  const Result<Vat> loaded = load_vat_memory(assemble_text(text, parts.bin), "deep.vat.glb");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message, "deep.vat.glb: JSON chunk: nested deeper than 64 levels");
  EXPECT_EQ(loaded.error().code, ErrorCode::Limit);
}

TEST(VatFile, NotAVatFile) {
  // A plain glTF binary: no checksum, no extension.
  glb::Writer w;
  const std::vector<glm::vec3> positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  w.add_accessor(positions);
  const std::vector<uint8_t> plain = w.finish();
  Result<Vat> r = load_vat_memory(plain, "plain.glb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::Corrupt);
  EXPECT_EQ(r.error().message,
            "plain.glb: extensions.VATKIT_vertex_animation.checksum: missing (no \"checksum\":\" in the JSON chunk)");
  const fs::path dir = test::scratch_dir("vat_file_is");
  ASSERT_TRUE(write_file_atomic(dir / "plain.glb", plain).ok());
  EXPECT_FALSE(is_vat_file(dir / "plain.glb"));
  EXPECT_FALSE(is_vat_file(dir / "missing.glb"));
  EXPECT_FALSE(is_vat_file(dir));
  const std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
  ASSERT_TRUE(write_file_atomic(dir / "text.glb", text).ok());
  EXPECT_FALSE(is_vat_file(dir / "text.glb"));
  Result<Vat> missing = load_vat(dir / "missing.vat.glb");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("missing.vat.glb: cannot open"), std::string::npos);
  EXPECT_EQ(missing.error().code, ErrorCode::Io);
  Result<Vat> directory = load_vat(dir);
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.error().message.find("is a directory"), std::string::npos);
  EXPECT_EQ(directory.error().code, ErrorCode::Io);
  ASSERT_TRUE(write_file_atomic(dir / "empty.vat.glb", {}).ok());
  Result<Vat> empty = load_vat(dir / "empty.vat.glb");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("GLB header: file has 0 bytes"), std::string::npos) << empty.error().message;
  EXPECT_EQ(empty.error().code, ErrorCode::Parse);
}

// ---- validate_vat and atomic saves ---------------------------------------------------------

TEST(VatFile, InconsistentVatsAreNotWritten) {
  struct Case {
    const char* name;
    std::function<void(Vat&)> edit;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"no clips", [](Vat& v) { v.clips.clear(); }, "synthetic: clips: none"},
      {"band", [](Vat& v) { v.clips[2].first_row = 9; },
       "synthetic: clips[2]: band firstRow 9 + rows 1 runs past frameRows 9"},
      {"nan fps", [](Vat& v) { v.clips[0].fps = std::nanf(""); }, "clips[0].fps: not a finite number"},
      {"nan error", [](Vat& v) { v.clips[1].accuracy = ClipAccuracy{.between_rows_p99_mm = std::nanf("")}; },
       "clips[1].error.betweenRowsP99Mm: not a finite number"},
      {"negative seam", [](Vat& v) { v.clips[0].seam = -0.5f; }, "clips[0].seam: -0.5 is negative"},
      {"unnamed event",
       [](Vat& v) {
         v.clips[0].events = {{"", 0.0f}};
       },
       "clips[0].events[0].name: empty, an event has a name"},
      {"nan event",
       [](Vat& v) {
         v.clips[0].events = {{"a", std::nanf("")}};
       },
       "clips[0].events[0].time: not a finite number"},
      {"late event",
       [](Vat& v) {
         v.clips[0].events = {{"a", 0.5f}};
       },
       "clips[0].events[0].time: 0.5 is outside the clip's duration [0, 0.400000006]"},
      {"unordered events",
       [](Vat& v) {
         v.clips[0].events = {{"a", 0.2f}, {"b", 0.1f}};
       },
       "clips[0].events[1].time: 0.100000001 is before the previous event's 0.200000003"},
      {"zero unit", [](Vat& v) { v.metres_per_unit = 0.0f; }, "metresPerUnit: 0 is not a length > 0"},
      {"negative error", [](Vat& v) { v.clips[0].accuracy = ClipAccuracy{.on_rows_max_mm = -0.5f}; },
       "clips[0].error.onRowsMaxMm: -0.5 is negative"},
      {"inf bounds", [](Vat& v) { v.bounds.max.y = INFINITY; }, "bounds.max: not a finite number"},
      {"plane bytes", [](Vat& v) { v.planes[1].data = v.planes[1].data.first(16); },
       "planes[1].data: 16 bytes, expected width * height * 16 = 1152"},
      {"plane height", [](Vat& v) { v.planes[0].height += 1; },
       "planes[0].height: 10, expected rowsPerFrame * frameRows = 9"},
      {"two position planes", [](Vat& v) { v.planes[1].semantic = PlaneSemantic::Position; },
       "planes[1]: a second position plane"},
      {"no position plane", [](Vat& v) { v.planes.erase(v.planes.begin()); }, "no position plane"},
      {"format", [](Vat& v) { v.planes[2].format = TexelFormat::RGBA16F; },
       "planes[2].format: rgba16f, but precision f32 stores rgba32f"},
      {"q16 normal plane",
       [](Vat& v) {
         v.precision = Precision::Q16;
         for (Plane& p : v.planes) p.format = TexelFormat::RGBA16Unorm, p.data = p.data.first(p.byte_size());
       },
       "planes: a normal plane in a q16 delta VAT"},
      {"normals size", [](Vat& v) { v.geometry.normals.pop_back(); },
       "geometry.normals: 7 elements, expected 0 or one per vertex (8)"},
      {"nan normal", [](Vat& v) { v.geometry.normals[3].x = std::nanf(""); },
       "geometry.normals: vertex 3 is not finite"},
      {"index", [](Vat& v) { v.geometry.indices[4] = 8; }, "geometry.indices: index 4 is 8, there are 8 vertices"},
      {"not triangles", [](Vat& v) { v.geometry.indices.push_back(0); }, "not a triangle list"},
      {"group", [](Vat& v) { v.geometry.groups[1].index_count = 9; },
       "geometry.groups[1]: indices 12 + 9 run past the 18 indices"},
      {"no triangles",
       [](Vat& v) {
         for (DrawGroup& g : v.geometry.groups) g.index_count = 0;
       },
       "no draw group has triangles"},
      {"material", [](Vat& v) { v.geometry.groups[0].material = 2; },
       "geometry.groups[0].material: 2 is not one of the 2 materials"},
      {"image", [](Vat& v) { v.materials[1].base_color_image = 1; },
       "materials[1].baseColorTexture: image 1 is not one of the 1 images"},
      {"mime", [](Vat& v) { v.images[0].mime_type = "image/webp"; }, "images[0].mimeType"},
      {"texcoord set", [](Vat& v) { v.materials[1].base_color_texcoord = 1; },
       "materials[1].baseColorTexture.texCoord: 1, but a VAT's geometry has only TEXCOORD_0"},
      {"no texcoords", [](Vat& v) { v.geometry.texcoords0.clear(); },
       "geometry.texcoords0: missing: geometry.groups[1] draws material 1, whose base colour texture reads TEXCOORD_0"},
      {"source", [](Vat& v) { v.geometry.sources[1].first_vertex = 5; },
       "geometry.sources[1]: vertices 5 + 4 run past the vertex count 8"},
      {"slot matrix", [](Vat& v) { v.slots[1].inverse_bind[2][2] = INFINITY; },
       "slots[1].inverseBind: not a finite number"},
      {"slot index",
       [](Vat& v) {
         v.encoding = Encoding::Rig;
         v.geometry.bind_positions = v.geometry.positions;
         v.geometry.slots0.assign(8, glm::u16vec4(0, 1, 2, 0));
         v.geometry.slot_weights0.assign(8, glm::vec4(0.25f));
       },
       "geometry.slots0: vertex 0 names slot 2, there are 2 slots"},
      {"weights without slots", [](Vat& v) { v.geometry.slot_weights0.assign(8, glm::vec4(0.25f)); },
       "geometry.slots0: missing: _VAT_SLOTS_0 and _VAT_SLOT_WEIGHTS_0 come together"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Vat vat = synthetic_vat({});
    c.edit(vat);
    const Result<void> valid = validate_vat(vat);
    ASSERT_FALSE(valid.ok());
    EXPECT_NE(valid.error().message.find(c.expected), std::string::npos) << valid.error().message;
    EXPECT_EQ(valid.error().code, ErrorCode::Corrupt);
    Result<std::vector<uint8_t>> written = write_vat_glb(vat);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message, valid.error().message);
    EXPECT_EQ(written.error().code, ErrorCode::Corrupt);
  }
}

TEST(VatFile, InconsistentLodsAreNotWritten) {
  struct Case {
    const char* name;
    std::function<void(Vat&)> edit;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"index", [](Vat& v) { v.geometry.lods[0].indices[2] = 8; },
       "synthetic: geometry.lods[0].indices: index 2 is 8, there are 8 vertices"},
      {"not triangles", [](Vat& v) { v.geometry.lods[1].indices.push_back(0); },
       "geometry.lods[1].indices: 4 indices, not a triangle list"},
      {"no triangles", [](Vat& v) { v.geometry.lods[1].indices.clear(); }, "geometry.lods[1].indices: no triangles"},
      {"not fewer", [](Vat& v) { v.geometry.lods[1] = v.geometry.lods[0]; },
       "geometry.lods[1].indices: 3 triangles, not fewer than the 3 of level 1"},
      {"group count", [](Vat& v) { v.geometry.lods[0].groups.pop_back(); },
       "geometry.lods[0].groups: 1 groups, expected one per draw group (2)"},
      {"group material", [](Vat& v) { v.geometry.lods[0].groups[1].material = 0; },
       "geometry.lods[0].groups[1].material: 0, but draw group 1 draws material 1"},
      {"group of an empty draw group", [](Vat& v) { v.geometry.groups[1].index_count = 0; },
       "geometry.lods[0].groups[1]: 3 indices for draw group 1, which has none"},
      {"nan error", [](Vat& v) { v.geometry.lods[0].error = std::nanf(""); },
       "geometry.lods[0].error: not a finite number"},
      {"infinite screen size", [](Vat& v) { v.geometry.lods[1].screen_size = INFINITY; },
       "geometry.lods[1].screenSize: not a finite number"},
      {"motion below rest", [](Vat& v) { v.geometry.lods[1].error_in_motion = 0.2f; },
       "geometry.lods[1].errorInMotion: 0.200000003 is smaller than the error at rest 0.25"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Synth synth;
    synth.lods = true;
    Vat vat = synthetic_vat(synth);
    ASSERT_TRUE(validate_vat(vat).ok());
    c.edit(vat);
    const Result<void> valid = validate_vat(vat);
    ASSERT_FALSE(valid.ok());
    EXPECT_NE(valid.error().message.find(c.expected), std::string::npos) << valid.error().message;
    EXPECT_EQ(valid.error().code, ErrorCode::Corrupt);
    EXPECT_FALSE(write_vat_glb(vat).ok());
  }
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(VatFile, SavesAreAtomic) {
  const fs::path dir = test::scratch_dir("vat_file_atomic");
  const Vat good = synthetic_vat({});
  Vat bad = synthetic_vat({.seed = 9});
  bad.clips[0].duration_s = -1.0f;

  // A failed save of a new file leaves nothing: no file, no temporary.
  Result<void> r = save_vat(bad, dir / "new.vat.glb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind((dir / "new.vat.glb").string() + ": not written: synthetic: clips[0].duration", 0),
            0u)
      << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Corrupt);  // the Vat's, kept through "not written"
  EXPECT_TRUE(listing(dir).empty());

  // A failed save over an existing file leaves the old file as it was.
  ASSERT_TRUE(save_vat(good, dir / "old.vat.glb").ok());
  const std::vector<uint8_t> before = test::read_file(dir / "old.vat.glb");
  EXPECT_FALSE(save_vat(bad, dir / "old.vat.glb").ok());
  EXPECT_EQ(test::read_file(dir / "old.vat.glb"), before);
  EXPECT_EQ(listing(dir), std::vector<std::string>{"old.vat.glb"});

  // An I/O failure (no such directory; a directory in the way) leaves nothing either.
  const Result<void> nowhere = save_vat(good, dir / "missing" / "x.vat.glb");
  EXPECT_FALSE(nowhere.ok());
  if (!nowhere) {
    EXPECT_EQ(nowhere.error().code, ErrorCode::Io) << nowhere.error().message;
  }
  fs::create_directory(dir / "taken.vat.glb");
  Result<void> taken = save_vat(good, dir / "taken.vat.glb");
  EXPECT_FALSE(taken.ok());
  if (!taken) {
    EXPECT_EQ(taken.error().code, ErrorCode::Io) << taken.error().message;
  }
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"old.vat.glb", "taken.vat.glb"}));
  EXPECT_TRUE(fs::is_directory(dir / "taken.vat.glb"));

  // A successful save replaces the file completely.
  ASSERT_TRUE(save_vat(synthetic_vat({.encoding = Encoding::Rig}), dir / "old.vat.glb").ok());
  Result<Vat> loaded = load_vat(dir / "old.vat.glb");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->encoding, Encoding::Rig);
}

// ---- hostile but well-formed files ---------------------------------------------------------

// `file` with every 4-byte component of plane `plane` set to `bits`, re-sealed.
std::vector<uint8_t> with_plane_bits(const std::vector<uint8_t>& file, size_t plane, uint32_t bits) {
  Parts parts = split(file);
  const size_t view = ext_of(parts.doc)["planes"][plane]["bufferView"];
  const size_t offset = view_offset(parts.doc, view);
  const size_t length = parts.doc["bufferViews"][view]["byteLength"];
  for (size_t i = 0; i < length; i += 4) std::memcpy(parts.bin.data() + offset + i, &bits, 4);
  return assemble(parts.doc, parts.bin);
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

constexpr uint32_t kNegativeNan = 0xffc00000u;  // what x86 arithmetic makes of inf - inf
constexpr uint32_t kBigFloat = 0x7f61ad68u;     // 3e38

TEST(VatFile, NonFiniteDecodesMeasureAsInfinitelyFar) {
  // A well-formed, correctly sealed bake of the sample whose position plane is all negative NaNs:
  // every decoded vertex is a NaN. The histogram of the measurement indexed its bins by the
  // squared distance's bits (a negative NaN's are past the end), and the max ignored NaNs.
  Result<Vat> baked = bake_real("<sample>", Encoding::Delta, Precision::F32);
  ASSERT_TRUE(baked.ok()) << baked.error().message;
  for (uint32_t bits : {kNegativeNan, 0x7fc00000u, 0x7f800000u, kBigFloat}) {
    SCOPED_TRACE(bits);
    const std::vector<uint8_t> file = with_plane_bits(write_ok(*baked), 0, bits);
    Result<Vat> loaded = load_vat_memory(file, "nan.vat.glb");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    Result<std::vector<ClipError>> errors = measure_error(real_asset("<sample>"), *loaded, VerifyOptions{});
    ASSERT_TRUE(errors.ok()) << errors.error().message;
    ASSERT_EQ(errors->size(), loaded->clips.size());
    for (const ClipError& e : *errors) {
      EXPECT_EQ(e.on_rows_max_mm, INFINITY) << e.clip;
      EXPECT_EQ(e.between_rows_max_mm, INFINITY) << e.clip;
      EXPECT_EQ(e.on_rows_p99_mm, INFINITY) << e.clip;
    }
  }
}

TEST(VatFile, LoadedFileSurvivesBeingTruncated) {
  // Another program shortens the file while the Vat is in use: the planes stay readable and
  // decode as before (a mapped file would fault, SIGBUS, on the first plane read).
  const fs::path dir = test::scratch_dir("vat_file_truncated");
  const fs::path path = dir / "t.vat.glb";
  const Vat vat = synthetic_vat({});
  ASSERT_TRUE(save_vat(vat, path).ok());
  Result<Vat> loaded = load_vat(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  fs::resize_file(path, 0);
  ASSERT_EQ(fs::file_size(path), 0u);
  for (size_t i = 0; i < vat.planes.size(); ++i) {
    const std::span<const uint8_t> a = vat.planes[i].data, b = loaded->planes[i].data;
    ASSERT_EQ(a.size(), b.size());
    size_t differing = 0;
    for (size_t k = 0; k < a.size(); ++k) differing += a[k] != b[k];  // every byte read
    EXPECT_EQ(differing, 0u) << "plane " << i;
  }
  const PoseBlend pose = single(clip_rows_at(vat, 1, 0.05f));
  std::vector<glm::vec3> want(8), got(8);
  decode_vertices(vat, pose, 0, want);
  decode_vertices(*loaded, pose, 0, got);
  EXPECT_EQ(std::memcmp(want.data(), got.data(), sizeof(glm::vec3) * 8), 0);
}

TEST(VatFile, ForgedListsAreRefusedBeforeTheyCostMemory) {
  // 100,000 copies of one source, of one clip, of one image: each would be work or a copy of the
  // image per entry (pose wrote every source's vertices: gigabytes from a few megabytes).
  const std::vector<uint8_t> file = small_file();
  struct Forgery {
    const char* list;
    std::function<void(json&)> edit;
    const char* expected;
  };
  const Forgery forgeries[] = {
      {"sources",
       [](json& d) {
         for (int i = 0; i < 100000; ++i) ext_of(d)["sources"].push_back(ext_of(d)["sources"][0]);
       },
       "sources[2]: vertices 0 + 4 start before the end (8)"},
      {"clips",
       [](json& d) {
         for (int i = 0; i < 100000; ++i) ext_of(d)["clips"].push_back(ext_of(d)["clips"][0]);
       },
       "clips[2]: band firstRow 0 + rows 2 overlaps"},
      {"images",
       [](json& d) {
         for (int i = 0; i < 100000; ++i) d["images"].push_back(d["images"][0]);
       },
       "images[1]: bufferViews[13]"},
      {"events",
       [](json& d) {
         ext_of(d)["clips"][0]["events"] = json::array();
         for (int i = 0; i < 100000; ++i) ext_of(d)["clips"][0]["events"].push_back({{"name", "a"}, {"time", 0}});
       },
       "clips[0].events: 100000 elements, at most 65536"},
  };
  for (const Forgery& f : forgeries) {
    SCOPED_TRACE(f.list);
    Parts parts = split(file);
    f.edit(parts.doc);
    const std::vector<uint8_t> forged = assemble(parts.doc, parts.bin);
    EXPECT_GT(forged.size(), 2000000u);
    Result<Vat> r = load_vat_memory(forged, "f.vat.glb");
    ASSERT_FALSE(r.ok()) << "the forgery loaded";
    EXPECT_NE(r.error().message.find(f.expected), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().code, ErrorCode::Corrupt) << r.error().message;
  }
}

TEST(VatFile, LoadedVatsWithoutNormalsDecodeZeroNormals) {
  // NORMAL and _VAT_BIND_NORMAL are optional in a file; a caller asking for normals got a read
  // of the missing array (vertex v of an empty vector).
  for (const auto& [encoding, precision] :
       {std::pair{Encoding::Delta, Precision::F32}, std::pair{Encoding::Delta, Precision::Q16},
        std::pair{Encoding::Rig, Precision::F16}}) {
    SCOPED_TRACE(std::string(to_string(encoding)) + " " + to_string(precision));
    Synth synth;
    synth.encoding = encoding;
    synth.precision = precision;
    synth.normals = false;
    const std::vector<uint8_t> file = write_ok(synthetic_vat(synth));
    Result<Vat> loaded = load_vat_memory(file, "n.vat.glb");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    ASSERT_TRUE(loaded->geometry.normals.empty() && loaded->geometry.bind_normals.empty());
    std::vector<glm::vec3> positions(8), normals(8, glm::vec3(7.0f));
    std::vector<glm::vec4> tangents(8);
    decode_vertices(*loaded, single(clip_rows_at(*loaded, 0, 0.05f)), 0, positions, normals, tangents);
    for (const glm::vec3& n : normals) {
      if (precision == Precision::Q16) {
        EXPECT_TRUE(n == glm::vec3(0.0f) || std::abs(glm::length(n) - 1.0f) < 1e-5f);  // from position.w
      } else {
        EXPECT_EQ(n, glm::vec3(0.0f));
      }
    }
  }
}

// Every command on files that load but decode to nothing sensible: no crash, and either a result
// or one error line. The files are the sample's bakes with one thing made extreme and re-sealed.
TEST(VatFile, HostileValuesCrashNoCommand) {
  const fs::path dir = test::scratch_dir("vat_file_hostile_cli");
  Result<Vat> delta = bake_real("<sample>", Encoding::Delta, Precision::F32);
  Result<Vat> rig = bake_real("<sample>", Encoding::Rig, Precision::F32);
  ASSERT_TRUE(delta.ok() && rig.ok());
  Vat heavy = *rig;
  for (glm::vec4& w : heavy.geometry.slot_weights0) w = glm::vec4(3e38f);
  struct Case {
    const char* name;
    std::vector<uint8_t> bytes;
    bool poses;  // `pose --clip` gives finite positions
  };
  const Case cases[] = {
      {"delta_nan", with_plane_bits(write_ok(*delta), 0, kNegativeNan), false},
      {"delta_big", with_plane_bits(write_ok(*delta), 0, kBigFloat), true},
      {"rig_nan", with_plane_bits(write_ok(*rig), 0, kNegativeNan), false},
      {"rig_weights", write_ok(heavy), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path path = dir / (std::string(c.name) + ".vat.glb");
    write_bytes(path, c.bytes);
    const std::string file = test::shell_quote(path.string());
    const test::CommandResult info = test::vatkit_cli("info " + file);
    EXPECT_EQ(info.exit_code, 0) << info.err;
    const test::CommandResult info_json = test::vatkit_cli("info --json " + file);
    EXPECT_EQ(info_json.exit_code, 0) << info_json.err;
    EXPECT_FALSE(json::parse(info_json.out, nullptr, false).is_discarded());
    EXPECT_EQ(test::vatkit_cli("pose " + file + " -o " + test::shell_quote((dir / "rest.json").string())).exit_code, 0);
    const test::CommandResult pose = test::vatkit_cli("pose " + file + " --clip '#0' --time 0.1");
    if (c.poses) {
      EXPECT_EQ(pose.exit_code, 0) << pose.err;
    } else {
      test::expect_one_error_line(pose, "is not finite", 1);
    }
    // A clip that does not decode to finite numbers fails verify, with or without a tolerance.
    for (const char* tolerance : {"", " --tolerance 1"}) {
      const test::CommandResult verify = test::vatkit_cli("verify '' " + file + tolerance);
      test::expect_one_error_line(verify, "not a finite number", 3, /*report_on_stdout=*/true);
      EXPECT_NE(verify.err.find(c.name), std::string::npos) << verify.err;
      EXPECT_NE(verify.err.find("clip \""), std::string::npos) << verify.err;
    }
  }
}

}  // namespace
}  // namespace vatkit

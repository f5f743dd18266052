// The engine decoders of engines/ (docs/engines.md) run on vatkit's OpenVAT export of Fox, against
// vatkit's own decode of the same bake.
//
// tests/openvat_hlsl.cmake (ctest openvat_hlsl_decode) compiles tests/engines/openvat_harness.hlsl
// around each engine file with glslang's HLSL front end, validates the SPIR-V and translates it to
// GLSL 4.30 with SPIRV-Cross, then runs this file's tests with VATKIT_OPENVAT_GLSL_DIR naming the
// GLSL; without it (the plain test binary) they skip. Each variant runs here as a vertex shader
// (Mesa llvmpipe in CI) over the exported mesh's vertices, fed the mesh's POSITION and TEXCOORD_1
// and the exported PNG (read back with libpng), with the clip table and remap bounds from the
// sidecar, each input in the orientation its engine hands over (Unity: x negated, v flipped,
// texture rows bottom-up; Unreal: y and z swapped, times 100). Compared: each vertex's position
// with decode_vertices at the clip time (clip_rows_at), within the export's own positionErrorMax
// plus float rounding, and its normal within the export's normalErrorMaxDegrees plus 0.1 degree.
// Times are fractional frames, a looping time past the clip's end and a held one.
#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gl_test_support.h"
#include "gltf_probe.h"
#include "test_gl_crowd_util.h"
#include "vatkit/decode.h"
#include "vatkit/export_openvat.h"
#include "vatkit/gl/capture.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/objects.h"

namespace vatkit {
namespace {

// Float rounding on top of the quantization: the GPU decodes min + texel * (max - min) and adds
// it to rest positions of up to ~100 units (float's spacing there: 8e-6) in a different order
// than the exporter's bound was measured in.
constexpr float kFloatSlack = 1e-4f;
constexpr float kNormalSlackDegrees = 0.1f;

// The translated GLSL of one harness variant, or "" when the driver did not run.
std::string variant_glsl(const std::string& variant) {
  const char* dir = std::getenv("VATKIT_OPENVAT_GLSL_DIR");
  if (dir == nullptr || *dir == '\0') return "";
  std::ifstream in(std::filesystem::path(dir) / (variant + ".vert.glsl"));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A 16-bit RGB PNG as libpng reads it: rows from the top, 3 samples a texel, host byte order.
struct Png16 {
  uint32_t width = 0, height = 0;
  std::vector<uint16_t> rgb;
};

bool read_png16(const std::vector<uint8_t>& bytes, Png16& out) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) return false;
  struct Reader {
    const std::vector<uint8_t>* bytes;
    size_t at;
  } reader{&bytes, 0};
  std::vector<png_bytep> rows;
  if (setjmp(png_jmpbuf(png))) {  // nothing with a destructor is created below
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, &reader, [](png_structp p, png_bytep data, png_size_t size) {
    auto* r = static_cast<Reader*>(png_get_io_ptr(p));
    if (r->at + size > r->bytes->size()) png_error(p, "truncated");
    std::memcpy(data, r->bytes->data() + r->at, size);
    r->at += size;
  });
  png_read_info(png, info);
  const bool rgb16 = png_get_bit_depth(png, info) == 16 && png_get_color_type(png, info) == PNG_COLOR_TYPE_RGB;
  out.width = png_get_image_width(png, info);
  out.height = png_get_image_height(png, info);
  out.rgb.assign(rgb16 ? size_t(out.width) * out.height * 3 : 0, 0);
  if (rgb16) {
    png_set_swap(png);  // PNG samples are big-endian
    for (uint32_t y = 0; y < out.height; ++y)
      rows.push_back(reinterpret_cast<png_bytep>(&out.rgb[size_t(y) * out.width * 3]));
    png_read_image(png, rows.data());
  }
  png_destroy_read_struct(&png, &info, nullptr);
  return rgb16;
}

// The three exported files as an engine reads them.
struct Exported {
  Png16 texture;
  std::vector<glm::vec3> rest;
  std::vector<glm::vec2> address;  // TEXCOORD_1
  nlohmann::json sidecar;
};

Exported export_fox(const Vat& vat) {
  Exported e;
  const Result<OpenVatExport> files = export_openvat(vat, {});
  EXPECT_TRUE(files.ok()) << files.error().message;
  if (!files) return e;
  EXPECT_TRUE(read_png16(files->texture, e.texture)) << "libpng could not read the exported texture";
  const std::filesystem::path mesh = test::scratch_dir("openvat_hlsl") / "fox.glb";
  std::ofstream(mesh, std::ios::binary)
      .write(reinterpret_cast<const char*>(files->mesh_glb.data()), std::streamsize(files->mesh_glb.size()));
  const test::GltfProbe probe = test::GltfProbe::load(mesh);
  const nlohmann::json& attributes = probe.json["meshes"][0]["primitives"][0]["attributes"];
  const std::vector<double> p = probe.read(attributes["POSITION"].get<int>());
  const std::vector<double> uv = probe.read(attributes["TEXCOORD_1"].get<int>());
  for (size_t i = 0; i + 2 < p.size(); i += 3) e.rest.emplace_back(p[i], p[i + 1], p[i + 2]);
  for (size_t i = 0; i + 1 < uv.size(); i += 2) e.address.emplace_back(uv[i], uv[i + 1]);
  e.sidecar = nlohmann::json::parse(files->sidecar_json);
  return e;
}

// How an engine hands the export to its shader, and how to read the shader's result back in glTF
// axes. Unity's glTF importers negate x and flip v, Unity stores textures bottom row first;
// Unreal's glTF import swaps y and z and scales metres to centimetres.
struct Engine {
  std::string variant;
  bool negate_x = false, flip_v = false, bottom_up = false, unreal = false;
  float unit_scale = 1.0f;

  glm::vec3 to_engine(glm::vec3 v, bool position) const {
    if (negate_x) v.x = -v.x;
    if (unreal) v = glm::vec3(v.x, v.z, v.y) * (position ? unit_scale : 1.0f);
    return v;
  }
  glm::vec3 to_gltf(glm::vec3 v, bool position) const {
    if (unreal) v = glm::vec3(v.x, v.z, v.y) / (position ? unit_scale : 1.0f);
    if (negate_x) v.x = -v.x;
    return v;
  }
};

// The GL side of one run: the texture, the vertex inputs, the uniform block.
struct GpuInputs {
  gl::Texture texture;
  gl::Buffer rest, address, params;
  gl::VertexArray vertices;
};

GpuInputs upload(const Exported& e, const Engine& engine, const std::vector<uint32_t>& order) {
  GpuInputs g;
  const Png16& t = e.texture;
  g.texture = gl::create_texture_2d(GL_RGB16, int(t.width), int(t.height));
  std::vector<uint16_t> rows(t.rgb.size());
  const size_t row = size_t(t.width) * 3;
  for (uint32_t y = 0; y < t.height; ++y) {
    const uint32_t source = engine.bottom_up ? t.height - 1 - y : y;  // GL's row 0 is Load's row 0
    std::copy_n(t.rgb.begin() + std::ptrdiff_t(source * row), row, rows.begin() + std::ptrdiff_t(y * row));
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
  glTextureSubImage2D(g.texture.id(), 0, 0, 0, int(t.width), int(t.height), GL_RGB, GL_UNSIGNED_SHORT, rows.data());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  std::vector<glm::vec3> rest;
  std::vector<glm::vec2> address;
  for (uint32_t i : order) {
    rest.push_back(engine.to_engine(e.rest[i], true));
    address.push_back(engine.flip_v ? glm::vec2(e.address[i].x, 1.0f - e.address[i].y) : e.address[i]);
  }
  g.rest = gl::create_buffer(rest.size() * sizeof(glm::vec3), rest.data());
  g.address = gl::create_buffer(address.size() * sizeof(glm::vec2), address.data());
  g.params = gl::create_buffer(5 * sizeof(glm::vec4), nullptr, GL_DYNAMIC_STORAGE_BIT);
  g.vertices = gl::create_vertex_array();
  const GLuint vao = g.vertices.id();
  glVertexArrayVertexBuffer(vao, 0, g.rest.id(), 0, sizeof(glm::vec3));
  glVertexArrayVertexBuffer(vao, 1, g.address.id(), 0, sizeof(glm::vec2));
  for (GLuint a : {0u, 1u}) {
    glEnableVertexArrayAttrib(vao, a);
    glVertexArrayAttribFormat(vao, a, a == 0 ? 3 : 2, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(vao, a, a);
  }
  return g;
}

// One clip time to decode: the clip, the seconds into it, and whether the shader loops.
struct ClipTime {
  uint32_t clip;
  float time;
  bool looping;
};

// Fractional frames in every clip, a looping time past the end, and a time held at the end.
std::vector<ClipTime> clip_times(const Vat& vat) {
  std::vector<ClipTime> times;
  for (uint32_t c = 0; c < vat.clips.size(); ++c) {
    const float d = vat.clips[c].duration_s;
    for (float f : {0.0f, 0.2137f, 0.5521f, 0.9013f}) times.push_back({c, d * f, true});
  }
  times.push_back({0, vat.clips[0].duration_s * 2.3719f, true});
  times.push_back({1, vat.clips[1].duration_s * 1.5f, false});
  return times;
}

struct Worst {
  float position = 0.0f, normal_degrees = 0.0f;
  size_t compared = 0;
};

// Runs `engine`'s variant over the vertices in `order` at every clip time and compares vertex k
// with vatkit's decode of vertex order[k].
Worst run_variant(const Vat& vat, const Exported& e, const Engine& engine, const std::vector<uint32_t>& order) {
  Worst worst;
  gl::CaptureDesc desc;
  desc.name = "openvat " + engine.variant;
  desc.vertex_source = variant_glsl(engine.variant);
  desc.outputs = {"v_position", "v_normal"};
  Result<gl::VertexCapture> capture = gl::VertexCapture::create(desc);
  EXPECT_TRUE(capture.ok()) << capture.error().message;
  if (!capture) return worst;
  GpuInputs g = upload(e, engine, order);
  glBindTextureUnit(0, g.texture.id());
  glBindBufferBase(GL_UNIFORM_BUFFER, 0, g.params.id());
  const auto vec = [](const nlohmann::json& a) { return glm::vec4(a[0], a[1], a[2], 0.0f); };
  const uint32_t n = vat.geometry.vertex_count();
  std::vector<glm::vec3> p(n), nrm(n);
  for (const ClipTime& at : clip_times(vat)) {
    const VatClip& clip = vat.clips[at.clip];
    nlohmann::json a;  // the clip's row of the sidecar's table: the one starting at its first row
    for (const auto& [name, entry] : e.sidecar["animations"].items()) {
      if (entry["startFrame"] == clip.first_row) a = entry;
    }
    const glm::vec4 params[5] = {vec(e.sidecar["os-remap"]["Min"]), vec(e.sidecar["os-remap"]["Max"]),
                                 glm::vec4(e.texture.width, e.texture.height, 0, 0),
                                 glm::vec4(a["startFrame"], a["endFrame"], a["framerate"], at.looping ? 1 : 0),
                                 glm::vec4(at.time, engine.bottom_up ? 1 : 0, engine.unit_scale, 0)};
    glNamedBufferSubData(g.params.id(), 0, sizeof(params), params);
    Result<std::vector<float>> got = capture->run_floats(uint32_t(order.size()), 1, g.vertices.id());
    EXPECT_TRUE(got.ok()) << got.error().message;
    if (!got) return worst;
    const float t = at.looping ? std::fmod(at.time, clip.duration_s) : at.time;
    decode_vertices(vat, single(clip_rows_at(vat, at.clip, t)), 0, p, nrm);
    for (size_t k = 0; k < order.size(); ++k) {
      const float* r = got->data() + k * 6;
      const glm::vec3 position = engine.to_gltf(glm::vec3(r[0], r[1], r[2]), true);
      const glm::vec3 normal = engine.to_gltf(glm::vec3(r[3], r[4], r[5]), false);
      worst.position = std::max(worst.position, glm::length(position - p[order[k]]));
      const float cosine = glm::dot(glm::normalize(normal), glm::normalize(nrm[order[k]]));
      worst.normal_degrees = std::max(worst.normal_degrees, glm::degrees(std::acos(std::clamp(cosine, -1.0f, 1.0f))));
      ++worst.compared;
    }
  }
  return worst;
}

std::vector<uint32_t> identity(size_t n) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

// Fox baked as `vatkit export --to openvat` bakes a glTF (delta, f32, 30 rows a second) and its
// export; skips where the driver did not translate the HLSL.
class OpenVatHlsl : public test::GlTest {
 protected:
  void SetUp() override {
    test::GlTest::SetUp();
    if (HasFatalFailure()) return;
    if (variant_glsl("core").empty()) GTEST_SKIP() << "run by ctest openvat_hlsl_decode (it translates the HLSL first)";
    vat = test::test_bake({"khronos/Fox.glb", Encoding::Delta, Precision::F32});
    ASSERT_NE(vat, nullptr);
    exported = export_fox(*vat);
    ASSERT_EQ(exported.rest.size(), vat->geometry.vertex_count());
    ASSERT_GT(exported.texture.width, 0u);
    position_bound = exported.sidecar["vatkit"]["positionErrorMax"].get<float>() + kFloatSlack;
    normal_bound = exported.sidecar["vatkit"]["normalErrorMaxDegrees"].get<float>() + kNormalSlackDegrees;
  }

  const Vat* vat = nullptr;
  Exported exported;
  float position_bound = 0.0f, normal_bound = 0.0f;
};

TEST_F(OpenVatHlsl, EveryEngineFileDecodesFoxAsVatkitDoes) {
  EXPECT_LT(exported.texture.width, vat->geometry.vertex_count()) << "Fox's rows should wrap";
  const std::vector<Engine> engines = {
      {"core"},
      {"core", false, false, true},
      {"unity", true, true, true},
      {"unity_bare", true, true, true},
      {"unreal_ush", false, false, false, true, 100.0f},
      {"unreal_node", false, false, false, true, 100.0f},
  };
  for (const Engine& engine : engines) {
    SCOPED_TRACE(engine.variant + (engine.bottom_up ? " bottom-up" : ""));
    const Worst worst = run_variant(*vat, exported, engine, identity(exported.rest.size()));
    std::printf(
        "[openvat hlsl] %-11s %s %zu vertex-frames: position error %.3g (bound %.3g), normal %.3g deg (bound %.3g)\n",
        engine.variant.c_str(), engine.bottom_up ? "bottom-up" : "top-down ", worst.compared, worst.position,
        position_bound, worst.normal_degrees, normal_bound);
    EXPECT_GT(worst.compared, 0u);
    EXPECT_LE(worst.position, position_bound);
    EXPECT_LE(worst.normal_degrees, normal_bound);
  }
}

// The address is per vertex: a mesh whose vertices an importer reordered decodes the same poses.
// And the comparison can fail: the core's glTF axes read as Unity's (x not negated) miss by units.
TEST_F(OpenVatHlsl, ShuffledVerticesDecodeTheSamePoses) {
  std::vector<uint32_t> order = identity(exported.rest.size());
  std::shuffle(order.begin(), order.end(), std::mt19937(20261203));
  order.resize(300);
  const Worst shuffled = run_variant(*vat, exported, {"core"}, order);
  std::printf("[openvat hlsl] shuffled %zu vertex-frames: position error %.3g (bound %.3g)\n", shuffled.compared,
              shuffled.position, position_bound);
  EXPECT_EQ(shuffled.compared, order.size() * clip_times(*vat).size());
  EXPECT_LE(shuffled.position, position_bound);
  EXPECT_LE(shuffled.normal_degrees, normal_bound);
  Engine unconverted{"core"};
  unconverted.negate_x = true;  // rest positions negated, offsets not
  const Worst wrong = run_variant(*vat, exported, unconverted, order);
  std::printf("[openvat hlsl] without the x negation: position error %.3g\n", wrong.position);
  EXPECT_GT(wrong.position, 1.0f);
}

}  // namespace
}  // namespace vatkit

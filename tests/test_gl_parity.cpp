// GPU-CPU parity of the VAT decode: what the GLSL computes against what core computes.
//
//  - DecodeChunk: the decode chunk on its own (as a renderer of one's own uses it), captured with
//    transform feedback for arbitrary PoseBlends (two rows, two bands across clips), against
//    decode_vertices: positions, normals, tangents; both encodings, every precision, wrapped rows.
//    The shader passes the texel address attribute (VatGpu's kAttribVertex), as an engine passes
//    the file's _VAT_VERTEX; DecodeChunkReadsTheTexelAddressAttribute draws the vertices shuffled.
//  - CrowdVertexStage: the vertex shader crowds render with (resolve from the playback table,
//    decode, world placement), for instances playing different clips, loop modes, speeds,
//    cross-fades and blends, drawn through a reordered drawn list, at many clock times, against
//    the CPU mirror (mirror.h: resolve + decode_vertices + the world matrix).
// Bound (asserted, docs/rendering.md): positions within 1e-4 of the model's size (the diagonal of
// the VAT's bounds) in every precision: both sides decode the same stored texels, so what remains
// is float arithmetic (the GPU may fuse a multiply-add or approximate a division or a square
// root); normals within 1e-3 (0.06 degrees). The measured maxima are printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include <glm/gtc/matrix_transform.hpp>

#include "gl_test_support.h"
#include "playback_json.h"
#include "test_gl_crowd_util.h"
#include "vatkit/decode.h"
#include "vatkit/gl/capture.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/decode_glsl.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/instance_table.h"
#include "vatkit/mirror.h"
#include "vatkit/playback.h"
#include "vatkit/vat_file.h"

namespace vatkit {
namespace {

using test::BakeKey;
using GlParity = test::GlTest;

constexpr float kPositionBound = 1e-4f;  // of the model's size
constexpr float kNormalBound = 1e-3f;

float model_size(const Vat& vat) { return glm::length(vat.bounds.max - vat.bounds.min); }

struct Worst {
  float position = 0.0f;  // absolute, file units
  float normal = 0.0f;
  float tangent = 0.0f;
  size_t compared = 0;
  std::string where;

  void position_error(float e, const std::string& at) {
    if (e > position) {
      position = e;
      where = at;
    }
  }
};

// The parity matrix: every precision of both encodings on the sample and Fox (Fox also with its
// delta rows wrapped over two texture rows, and without a normal plane), every precision of the
// delta on AnimatedMorphCube (tangents), f32 and q16 of both encodings on CesiumMan and
// RobotExpressive.
std::vector<BakeKey> parity_bakes() {
  std::vector<BakeKey> keys;
  for (const char* asset : {"sample", "khronos/Fox.glb"}) {
    for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
      for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) keys.push_back({asset, e, p});
    }
  }
  keys.push_back({"khronos/Fox.glb", Encoding::Delta, Precision::F16, 1024});
  // The only asset with tangents (morph targets: delta only).
  for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) {
    keys.push_back({"khronos/AnimatedMorphCube.glb", Encoding::Delta, p});
  }
  keys.push_back({"khronos/Fox.glb", Encoding::Delta, Precision::F32, 16384, false});
  for (const char* asset : {"khronos/CesiumMan.glb", "threejs/RobotExpressive.glb"}) {
    for (Encoding e : {Encoding::Delta, Encoding::Rig}) {
      for (Precision p : {Precision::F32, Precision::Q16}) keys.push_back({asset, e, p});
    }
  }
  // Eight influences per vertex (no shared asset has them).
  for (Precision p : {Precision::F32, Precision::Q16}) keys.push_back({"synthetic:eight-influences", Encoding::Rig, p});
  return keys;
}

// ---- the chunk on its own ---------------------------------------------------------------------

// A vertex shader of one's own around the chunk: the pose comes from uniforms, the vertex's texel
// column from its address attribute (never gl_VertexID).
constexpr const char* kChunkUser = R"(
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 4) in vec4 a_tangent;
layout(location = 5) in uvec4 a_slots0;
layout(location = 6) in vec4 a_weights0;
layout(location = 7) in uvec4 a_slots1;
layout(location = 8) in vec4 a_weights1;
layout(location = 9) in float a_vat_vertex;  // the texel address (_VAT_VERTEX), as an engine passes it
uniform ivec4 u_rows;     // a.row, a.row_next, b.row, b.row_next
uniform vec3 u_mixes;     // a.mix, b.mix, weight_b
out vec3 v_position;
out vec3 v_normal;
out vec4 v_tangent;
void main() {
  VatPose pose;
  pose.a = VatBand(u_rows.x, u_rows.y, u_mixes.x);
  pose.b = VatBand(u_rows.z, u_rows.w, u_mixes.y);
  pose.weight_b = u_mixes.z;
  VatRest rest = VatRest(a_position, a_normal, a_tangent, a_slots0, a_weights0, a_slots1, a_weights1);
  vat_decode(pose, int(a_vat_vertex), rest, v_position, v_normal);
  v_tangent = vat_decode_tangent(pose, int(a_vat_vertex), rest);
  gl_Position = vec4(v_position, 1.0);
}
)";

// kChunkUser captured (v_position, v_normal, v_tangent: 10 floats a vertex) with `gpu`'s planes
// bound and its layouts set.
Result<gl::VertexCapture> chunk_capture(const Vat& vat, const gl::VatGpu& gpu) {
  gl::CaptureDesc desc;
  desc.name = "chunk user";
  desc.vertex_source = std::string(gl::decode_glsl()) + kChunkUser;
  desc.defines = gl::decode_defines(vat);
  desc.defines.push_back("VAT_NO_INSTANCE_TABLE");
  desc.outputs = {"v_position", "v_normal", "v_tangent"};
  Result<gl::VertexCapture> capture = gl::VertexCapture::create(desc);
  if (!capture) return capture;
  gpu.set_decode_uniforms(capture->program().id());
  gpu.bind_decode_textures();
  return capture;
}

// kChunkUser's pose uniforms.
void set_pose(GLuint program, const PoseBlend& pose) {
  glProgramUniform4i(program, glGetUniformLocation(program, "u_rows"), int(pose.a.row), int(pose.a.row_next),
                     int(pose.b.row), int(pose.b.row_next));
  glProgramUniform3f(program, glGetUniformLocation(program, "u_mixes"), pose.a.mix, pose.b.mix, pose.weight_b);
}

std::vector<PoseBlend> test_poses(const Vat& vat) {
  std::vector<PoseBlend> poses;
  const auto clips = uint32_t(vat.clips.size());
  const float mixes[] = {0.0f, 0.37f, 0.999f};
  for (uint32_t i = 0; i < 6; ++i) {
    const uint32_t ca = i % clips, cb = (i + 1) % clips;
    const VatClip& a = vat.clips[ca];
    const VatClip& b = vat.clips[cb];
    PoseBlend p;
    p.a.clip = ca;
    p.a.row = a.first_row + (a.rows * (i + 1) / 7) % a.rows;
    // The last row blends into the first on some poses: the looping seam (hemisphere flip).
    p.a.row_next = i == 3 ? a.first_row : std::min(p.a.row + 1, a.first_row + a.rows - 1);
    p.a.mix = mixes[i % 3];
    p.b.clip = cb;
    p.b.row = b.first_row + (b.rows * (i + 3) / 5) % b.rows;
    p.b.row_next = std::min(p.b.row + 1, b.first_row + b.rows - 1);
    p.b.mix = mixes[(i + 1) % 3];
    p.weight_b = i < 2 ? 0.0f : (i == 5 ? 1.0f : 0.25f * float(i - 1));
    if (i == 3) p.a.row = a.first_row + a.rows - 1;
    poses.push_back(p);
  }
  return poses;
}

TEST_F(GlParity, DecodeChunkMatchesDecodeVertices) {
  Worst overall;
  for (const BakeKey& key : parity_bakes()) {
    SCOPED_TRACE(test::describe(key));
    const Vat* vat = test::test_bake(key);
    ASSERT_NE(vat, nullptr);
    Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;

    Result<gl::VertexCapture> capture = chunk_capture(*vat, *gpu);
    ASSERT_TRUE(capture.ok()) << capture.error().message;
    const GLuint program = capture->program().id();

    const uint32_t n = vat->geometry.vertex_count();
    const bool tangents = vat->encoding == Encoding::Rig ? !vat->geometry.bind_tangents.empty()
                                                         : vat->plane(PlaneSemantic::Tangent) != nullptr;
    std::vector<glm::vec3> cpu_p(n), cpu_n(n);
    std::vector<glm::vec4> cpu_t(n);
    const float size = model_size(*vat);
    Worst worst;
    for (const PoseBlend& pose : test_poses(*vat)) {
      set_pose(program, pose);
      Result<std::vector<float>> got = capture->run_floats(n, 1, gpu->vertex_array());
      ASSERT_TRUE(got.ok()) << got.error().message;
      decode_vertices(*vat, pose, 0, cpu_p, cpu_n, tangents ? std::span<glm::vec4>(cpu_t) : std::span<glm::vec4>());
      for (uint32_t v = 0; v < n; ++v) {
        const float* r = got->data() + size_t(v) * 10;
        const float ep = glm::length(glm::vec3(r[0], r[1], r[2]) - cpu_p[v]);
        worst.position_error(ep, "vertex " + std::to_string(v) + " rows " + std::to_string(pose.a.row) + "/" +
                                     std::to_string(pose.b.row) + " weight_b " + std::to_string(pose.weight_b));
        worst.normal = std::max(worst.normal, glm::length(glm::vec3(r[3], r[4], r[5]) - cpu_n[v]));
        if (tangents)
          worst.tangent = std::max(worst.tangent, glm::length(glm::vec4(r[6], r[7], r[8], r[9]) - cpu_t[v]));
        ++worst.compared;
      }
    }
    std::printf(
        "[parity chunk] %-44s %6u vertices  max position error %.3g (%.3g of size)  normal %.3g  tangent %.3g\n",
        test::describe(key).c_str(), n, worst.position, worst.position / size, worst.normal, worst.tangent);
    EXPECT_LE(worst.position, kPositionBound * size) << "at " << worst.where;
    EXPECT_LE(worst.normal, kNormalBound);
    EXPECT_LE(worst.tangent, kNormalBound);
    overall.position = std::max(overall.position, worst.position / size);
    overall.compared += worst.compared;
  }
  std::printf("[parity chunk] %zu vertex decodes, worst position error %.3g of the model's size\n", overall.compared,
              overall.position);
}

// ---- the texel address ------------------------------------------------------------------------

// One float-vector attribute of `vao` at `location`, from its own buffer (kept in `buffers`).
template <class T>
void shuffled_attribute(GLuint vao, GLuint location, const std::vector<T>& values, std::vector<gl::Buffer>& buffers) {
  buffers.push_back(gl::create_buffer(values.size() * sizeof(T), values.data(), 0));
  glVertexArrayVertexBuffer(vao, location, buffers.back().id(), 0, GLsizei(sizeof(T)));
  glVertexArrayAttribFormat(vao, location, GLint(sizeof(T) / sizeof(float)), GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(vao, location, location);
  glEnableVertexArrayAttrib(vao, location);
}

TEST_F(GlParity, DecodeChunkReadsTheTexelAddressAttribute) {
  // Fox's vertices in a seeded shuffled order, as an engine's importer may leave them, each with
  // its _VAT_VERTEX value (texel_addresses, moved with the vertex): drawn in that order, record j
  // is file vertex j, which must decode as the VAT's vertex src[j] does on the CPU. Read through
  // gl_VertexID instead, the shuffle would show (checked: most vertices would be wrong).
  for (Precision precision : {Precision::F16, Precision::Q16}) {
    const Vat* vat = test::test_bake({"khronos/Fox.glb", Encoding::Delta, precision});
    ASSERT_NE(vat, nullptr);
    Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;
    const uint32_t n = vat->geometry.vertex_count();
    std::vector<uint32_t> src(n);
    for (uint32_t v = 0; v < n; ++v) src[v] = v;
    std::shuffle(src.begin(), src.end(), std::mt19937(20261203));
    const std::vector<float> addresses = texel_addresses(*vat);
    ASSERT_EQ(addresses.size(), n);
    std::vector<glm::vec3> positions(n), normals(n);
    std::vector<float> address(n);
    for (uint32_t j = 0; j < n; ++j) {
      positions[j] = vat->geometry.positions[src[j]];
      normals[j] = vat->geometry.normals[src[j]];
      address[j] = addresses[src[j]];
    }
    gl::VertexArray vao = gl::create_vertex_array();
    std::vector<gl::Buffer> buffers;
    shuffled_attribute(vao.id(), gl::kAttribPosition, positions, buffers);
    shuffled_attribute(vao.id(), gl::kAttribNormal, normals, buffers);
    shuffled_attribute(vao.id(), gl::kAttribVertex, address, buffers);

    Result<gl::VertexCapture> capture = chunk_capture(*vat, *gpu);
    ASSERT_TRUE(capture.ok()) << capture.error().message;
    const GLuint program = capture->program().id();
    const float size = model_size(*vat);
    Worst worst;
    size_t far = 0;  // file vertices whose own index would have decoded elsewhere
    std::vector<glm::vec3> cpu_p(n), cpu_n(n);
    for (const PoseBlend& pose : test_poses(*vat)) {
      set_pose(program, pose);
      Result<std::vector<float>> got = capture->run_floats(n, 1, vao.id());
      ASSERT_TRUE(got.ok()) << got.error().message;
      decode_vertices(*vat, pose, 0, cpu_p, cpu_n);
      for (uint32_t j = 0; j < n; ++j) {
        const float* r = got->data() + size_t(j) * 10;
        const glm::vec3 p(r[0], r[1], r[2]);
        worst.position_error(glm::length(p - cpu_p[src[j]]), "file vertex " + std::to_string(j));
        worst.normal = std::max(worst.normal, glm::length(glm::vec3(r[3], r[4], r[5]) - cpu_n[src[j]]));
        const glm::vec3 by_index = positions[j] + (cpu_p[j] - vat->geometry.positions[j]);
        far += glm::length(by_index - cpu_p[src[j]]) > kPositionBound * size;
        ++worst.compared;
      }
    }
    std::printf(
        "[parity address] Fox %s shuffled: max position error %.3g (%.3g of size), normal %.3g; %zu of %zu "
        "records would differ through gl_VertexID\n",
        to_string(precision), worst.position, worst.position / size, worst.normal, far, worst.compared);
    EXPECT_LE(worst.position, kPositionBound * size) << "at " << worst.where;
    EXPECT_LE(worst.normal, kNormalBound);
    EXPECT_GT(far, worst.compared / 2) << "the shuffle must matter";
  }
}

// ---- the crowd's vertex stage -----------------------------------------------------------------

// Twelve instances covering the playback cases; `now` is the clock at which transitions are written.
// Three play backwards (a Repeat, a Once with Rewind, a PingPong x 3), and the controls run after
// the transitions: two turn back, one is paused for good, one is paused and resumed.
void write_instances(const Vat& vat, InstanceTable& table) {
  const auto clips = uint32_t(vat.clips.size());
  std::vector<Instance> first(table.size());
  for (uint32_t i = 0; i < table.size(); ++i) {
    const uint32_t c = i % clips;
    Instance in;
    in.clip = clip_band(vat, c);
    in.start_time = -0.37f * float(i);
    in.policy.speed = (i == 3 || i == 4 || i == 8 ? -1.0f : 1.0f) * (0.55f + 0.13f * float(i));
    switch (i % 3) {
      case 0: in.policy.loop_mode = LoopMode::Repeat; break;
      case 1:
        in.policy.loop_mode = LoopMode::Once;
        in.policy.end_mode = i % 2 ? EndMode::Clamp : EndMode::Rewind;
        break;
      case 2:
        in.policy.loop_mode = LoopMode::PingPong;
        if (i == 5) in.policy.repetitions = 3;
        break;
    }
    if (i % 4 == 2) {
      Blend blend;
      blend.clip = clip_band(vat, (c + 1) % clips);
      blend.weight = 0.35f;
      blend.sync = i % 8 == 6 ? BlendSync::Time : BlendSync::Phase;
      in.blend = blend;
    }
    ASSERT_TRUE(set_instance(table, i, in, 0.0f).ok()) << "instance " << i;
    first[i] = in;
  }
  // Transitions at 0.8 s: cross-fades into another clip (the outgoing band plays on), and a blend
  // whose weight ramps.
  for (uint32_t i = 0; i < table.size(); ++i) {
    if (i % 4 == 1) {
      Instance in;
      in.clip = clip_band(vat, (i + 2) % clips);
      in.start_time = 0.8f;
      in.fade_duration = 0.5f;
      in.fade_curve = i % 8 == 1 ? FadeCurve::Linear : FadeCurve::Smooth;
      ASSERT_TRUE(set_instance(table, i, in, 0.8f).ok()) << "fade of instance " << i;
    } else if (i % 4 == 2) {
      Instance in = first[i];  // the same two bands: only the blend weight changes, ramping
      in.blend->weight = 0.8f;
      in.fade_duration = 0.4f;
      Result<void> ok = set_instance(table, i, in, 0.8f);
      ASSERT_TRUE(ok.ok()) << "blend ramp of instance " << i << ": " << ok.error().message;
    }
  }
  ASSERT_TRUE(turn_back(table, 0, 1.0f).ok());   // a Repeat
  ASSERT_TRUE(turn_back(table, 5, 1.02f).ok());  // a cross-fade: both bands turn
  ASSERT_TRUE(pause(table, 6, 1.0f).ok());       // a blend whose weight ramps: held mid-ramp
  ASSERT_TRUE(pause(table, 10, 0.9f).ok());      // a blend, paused and resumed
  ASSERT_TRUE(resume(table, 10, 1.3f).ok());
}

glm::mat4 instance_world(uint32_t i, float size) {
  glm::mat4 w = glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 4) * size, 0.1f * float(i), float(i / 4) * size));
  w = glm::rotate(w, 0.7f * float(i), glm::vec3(0.0f, 1.0f, 0.0f));
  if (i % 5 == 4) w = glm::scale(w, glm::vec3(-1.0f, 1.0f, 1.0f));  // a mirrored instance
  if (i % 3 == 1) w = glm::scale(w, glm::vec3(1.25f));
  return w;
}

TEST_F(GlParity, CrowdVertexStageMatchesTheCpuMirror) {
  const float times[] = {-0.5f, 0.0f, 0.43f, 0.81f, 1.05f, 1.7f, 4.9f, 12.25f};
  float overall = 0.0f;
  size_t compared = 0;
  for (const BakeKey& key : parity_bakes()) {
    SCOPED_TRACE(test::describe(key));
    const Vat* vat = test::test_bake(key);
    ASSERT_NE(vat, nullptr);
    Result<gl::VatGpu> gpu = gl::VatGpu::upload(*vat);
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;
    const uint32_t instances = 12;
    Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, instances);
    ASSERT_TRUE(crowd.ok()) << crowd.error().message;
    write_instances(*vat, crowd->table());
    if (HasFatalFailure()) return;
    const float size = model_size(*vat);
    for (uint32_t i = 0; i < instances; ++i) crowd->set_world(i, instance_world(i, size));
    // Draw slots in another order than the logical one, one instance twice, one left out.
    const std::vector<uint32_t> drawn = {11, 3, 7, 0, 9, 1, 10, 5, 2, 8, 6, 3};
    ASSERT_TRUE(crowd->set_drawn(drawn).ok());

    gl::CaptureDesc desc;
    desc.name = "crowd vertex stage";
    desc.vertex_source = gl::crowd_vertex_glsl();
    desc.defines = gpu->defines();
    desc.draw_parameters = true;
    desc.outputs = {"v_world_position", "v_world_normal"};
    Result<gl::VertexCapture> capture = gl::VertexCapture::create(desc);
    ASSERT_TRUE(capture.ok()) << capture.error().message;
    crowd->bind_vertex_textures();

    const uint32_t n = vat->geometry.vertex_count();
    std::vector<glm::vec3> cpu_p(n), cpu_n(n);
    Worst worst;
    for (float t : times) {
      crowd->prepare_vertex_program(capture->program().id(), t, glm::mat4(1.0f));
      Result<std::vector<float>> got = capture->run_floats(n, uint32_t(drawn.size()), gpu->vertex_array());
      ASSERT_TRUE(got.ok()) << got.error().message;
      for (size_t slot = 0; slot < drawn.size(); ++slot) {
        const uint32_t logical = drawn[slot];
        const Result<void> mirrored =
            mirror_vertices(*vat, crowd->table(), logical, t, crowd->world(logical), 0, cpu_p, cpu_n);
        ASSERT_TRUE(mirrored.ok()) << mirrored.error().message;
        for (uint32_t v = 0; v < n; ++v) {
          const float* r = got->data() + (slot * n + v) * 6;
          worst.position_error(
              glm::length(glm::vec3(r[0], r[1], r[2]) - cpu_p[v]),
              "time " + std::to_string(t) + " instance " + std::to_string(logical) + " vertex " + std::to_string(v));
          worst.normal = std::max(worst.normal, glm::length(glm::vec3(r[3], r[4], r[5]) - cpu_n[v]));
          ++worst.compared;
        }
      }
    }
    std::printf(
        "[parity crowd] %-44s %6u vertices x %zu instances x %zu times  max position error %.3g (%.3g of size)  normal "
        "%.3g\n",
        test::describe(key).c_str(), n, drawn.size(), std::size(times), worst.position, worst.position / size,
        worst.normal);
    EXPECT_LE(worst.position, kPositionBound * size) << "at " << worst.where;
    EXPECT_LE(worst.normal, kNormalBound);
    overall = std::max(overall, worst.position / size);
    compared += worst.compared;
  }
  std::printf("[parity crowd] %zu vertex decodes, worst position error %.3g of the model's size\n", compared, overall);
}

// ---- playback: the GLSL resolve against the CPU's, bit for bit -------------------------------

// vat_resolve on one packed row (u_row) at 16 times (u_times[gl_VertexID]): rows and mixes.
constexpr const char* kResolveUser = R"(
uniform vec4 u_row[6];
uniform float u_times[16];
out vec4 v_a;  // a.row, a.row_next, a.mix, 0
out vec4 v_b;  // b.row, b.row_next, b.mix, weight_b
void main() {
  vec4 row[6];
  for (int j = 0; j < 6; ++j) row[j] = u_row[j];
  VatPose pose = vat_resolve(row, u_times[gl_VertexID]);
  v_a = vec4(float(pose.a.row), float(pose.a.row_next), pose.a.mix, 0.0);
  v_b = vec4(float(pose.b.row), float(pose.b.row_next), pose.b.mix, pose.weight_b);
  gl_Position = vec4(0.0);
}
)";

// The Playback a conformance query ends with: the instance compiled and written, then its writes
// (set_instance or a control) replayed, as `vatkit frame` does.
Playback query_playback(const FrameQuery& q) {
  InstanceTable table(1);
  write_playback(table, 0, compile(q.instance).value());
  for (const FrameWrite& w : q.writes) {
    Result<void> r = w.control == FrameControl::Pause      ? pause(table, 0, w.now)
                     : w.control == FrameControl::Resume   ? resume(table, 0, w.now)
                     : w.control == FrameControl::TurnBack ? turn_back(table, 0, w.now)
                                                           : set_instance(table, 0, w.instance, w.now);
    EXPECT_TRUE(r.ok());
  }
  return playback(table, 0);
}

// Every query of the version 3 vectors (negative speed, pause, resume, turning back) at its time
// and 15 more around it: the shader's rows and mixes are the CPU's bits; the weight is within 2
// ulps (docs/playback.md, "Porting": a fused multiply-add in smoothstep may round differently).
TEST_F(GlParity, ResolveMatchesTheCpuOnTheControlsVectors) {
  gl::CaptureDesc desc;
  desc.name = "resolve";
  desc.vertex_source = std::string(gl::decode_glsl()) + kResolveUser;
  desc.defines = {"VAT_DELTA", "VAT_F32", "VAT_NO_INSTANCE_TABLE"};
  desc.outputs = {"v_a", "v_b"};
  Result<gl::VertexCapture> capture = gl::VertexCapture::create(desc);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  const GLuint program = capture->program().id();
  std::ifstream file(std::string(VATKIT_SOURCE_DIR) + "/tests/conformance/playback_v3.jsonl");
  std::string line;
  size_t lines = 0, compared = 0, paused_rows = 0, backwards_rows = 0;
  while (std::getline(file, line)) {
    ++lines;
    Result<FrameQuery> q = parse_frame_query(line);
    ASSERT_TRUE(q.ok()) << q.error().message;
    const Playback p = query_playback(*q);
    const PackedInstance row = pack(p);
    paused_rows += p.hold.has_value();
    backwards_rows += p.primary.cycle_rate < 0.0f || p.second.cycle_rate < 0.0f;
    float times[16];
    for (int k = 0; k < 16; ++k) times[k] = k == 0 ? q->time : q->time - 1.0f + 0.173f * float(k);
    glProgramUniform4fv(program, glGetUniformLocation(program, "u_row"), 6, &row.texels[0].x);
    glProgramUniform1fv(program, glGetUniformLocation(program, "u_times"), 16, times);
    Result<std::vector<float>> got = capture->run_floats(16, 1);
    ASSERT_TRUE(got.ok()) << got.error().message;
    for (int k = 0; k < 16; ++k) {
      const PlaybackSample cpu = resolve(p, times[k]);
      const float* r = got->data() + k * 8;
      const std::string where = "line " + std::to_string(lines) + " time " + std::to_string(times[k]);
      EXPECT_EQ(uint32_t(r[0]), cpu.a.row) << where;
      EXPECT_EQ(uint32_t(r[1]), cpu.a.row_next) << where;
      EXPECT_EQ(r[2], cpu.a.mix) << where;
      EXPECT_NEAR(r[7], cpu.weight, 2.5e-7f) << where;
      if (cpu.weight > 0.0f) {  // the shader reads band b only then
        EXPECT_EQ(uint32_t(r[4]), cpu.b.row) << where;
        EXPECT_EQ(uint32_t(r[5]), cpu.b.row_next) << where;
        EXPECT_EQ(r[6], cpu.b.mix) << where;
      }
      ++compared;
    }
    if (HasFailure()) return;
  }
  std::printf("[parity resolve] %zu controls queries (%zu paused, %zu with a band backwards) x 16 times: %zu samples\n",
              lines, paused_rows, backwards_rows, compared);
  EXPECT_GE(lines, 700u);
  EXPECT_GE(paused_rows, 50u);
  EXPECT_GE(backwards_rows, 300u);
}

}  // namespace
}  // namespace vatkit

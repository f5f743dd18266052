// The baker on real files and hand-built scenes, judged against the reference skinner: which
// files each encoding bakes or refuses (by name), error bounds on and between rows, the clip
// table, the merged geometry and the slots, determinism over thread counts, Auto's choice,
// texture limits (wrapping and the "what fits" error), the frame-rate search and progress.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "encode/bake_internal.h"
#include "simd/simd.h"
#include "synthetic.h"
#include "test_bake_util.h"
#include "vatkit/parallel.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit {
namespace {

using test::bake_ok;
using test::measure_ok;
using test::options_for;
using test::shared_asset;

float max_abs_coordinate(const Bounds& b) {
  return std::max({std::fabs(b.min.x), std::fabs(b.min.y), std::fabs(b.min.z), std::fabs(b.max.x), std::fabs(b.max.y),
                   std::fabs(b.max.z)});
}

float comp_max(const glm::vec3& v) { return std::max({v.x, v.y, v.z}); }
float comp_min(const glm::vec3& v) { return std::min({v.x, v.y, v.z}); }

Bounds bounds_of(const std::vector<glm::vec3>& p) {
  Bounds b{glm::vec3(FLT_MAX), glm::vec3(-FLT_MAX)};
  for (const glm::vec3& v : p) {
    b.min = glm::min(b.min, v);
    b.max = glm::max(b.max, v);
  }
  return b;
}

// ---- every file, both encodings --------------------------------------------------------------

struct FileCase {
  const char* path;
  // Empty: the rig bakes. Otherwise substrings the refusal must contain (mesh, clip, frame).
  std::vector<std::string> rig_refusal;
};

std::ostream& operator<<(std::ostream& os, const FileCase& c) { return os << c.path; }

class BakeEveryFile : public ::testing::TestWithParam<FileCase> {};

TEST_P(BakeEveryFile, DeltaBakesAndRigBakesOrIsRefusedByName) {
  const FileCase& c = GetParam();
  const Asset& a = shared_asset(c.path);
  ASSERT_FALSE(a.instances.empty());

  // Delta: always. On the rows it is the reference to float rounding.
  const Vat delta = bake_ok(a, options_for(EncodingChoice::Delta));
  ASSERT_EQ(delta.encoding, Encoding::Delta);
  const auto derr = measure_ok(a, delta, 1);
  ASSERT_EQ(derr.size(), a.animations.size());
  Bounds all = delta.bounds;
  for (const glm::vec3& p : delta.geometry.positions) {
    all.min = glm::min(all.min, p);
    all.max = glm::max(all.max, p);
  }
  // rest + (posed - rest) in float: a few ulps of the largest coordinate.
  const float f32_mm = 4.0f * FLT_EPSILON * max_abs_coordinate(all) * 1000.0f;
  for (const ClipError& e : derr) {
    EXPECT_LE(e.on_rows_max_mm, f32_mm) << c.path << " clip " << e.clip;
    EXPECT_LE(e.normal_max_deg, 180.0f);
  }

  auto rig = bake(a, options_for(EncodingChoice::Rig));
  if (c.rig_refusal.empty()) {
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    ASSERT_EQ(rig->encoding, Encoding::Rig);
    const auto rerr = measure_ok(a, *rig, 1);
    // What is left on the rows is the decomposition into quaternion, translation and scale, in
    // float: relative 4e-6 of the scene's size.
    const float rig_mm = 4e-6f * max_abs_coordinate(all) * 1000.0f + f32_mm;
    for (const ClipError& e : rerr) EXPECT_LE(e.on_rows_max_mm, rig_mm) << c.path << " clip " << e.clip;
    // The rig is two orders of magnitude smaller than the delta (when the mesh is not tiny).
    if (delta.geometry.vertex_count() > 100 * rig->slots.size()) {
      size_t rb = 0, db = 0;
      for (const Plane& p : rig->planes) rb += p.byte_size();
      for (const Plane& p : delta.planes) db += p.byte_size();
      EXPECT_LT(rb * 50, db);
    }
  } else {
    ASSERT_FALSE(rig.ok()) << c.path << " baked as a rig";
    for (const std::string& s : c.rig_refusal)
      EXPECT_NE(rig.error().message.find(s), std::string::npos) << rig.error().message;
    EXPECT_NE(rig.error().message.find("frame"), std::string::npos) << rig.error().message;
    EXPECT_NE(rig.error().message.find(a.source), std::string::npos) << rig.error().message;
    EXPECT_EQ(rig.error().code, ErrorCode::Unsupported) << rig.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BakeAssets, BakeEveryFile,
    ::testing::Values(
        FileCase{"khronos/SimpleSkin.gltf", {}}, FileCase{"khronos/RiggedSimple.glb", {}},
        FileCase{"khronos/RiggedFigure.glb", {}}, FileCase{"khronos/CesiumMan.glb", {}},
        FileCase{"khronos/legacy/CesiumMan.glb", {}}, FileCase{"khronos/Fox.glb", {}},
        FileCase{"khronos/RecursiveSkeletons.glb", {}}, FileCase{"khronos/InterpolationTest.glb", {}},
        FileCase{"threejs/RobotExpressive.glb", {}}, FileCase{"quaternius/fish/Fish1.glb", {}},
        FileCase{"quaternius/cute_fish/GoblinShark.glb", {}}, FileCase{"quaternius/knight/KnightCharacter.glb", {}},
        FileCase{"quaternius/platformer/Character.glb", {}}, FileCase{"quaternius/animals/ShibaInu.glb", {}},
        // Morph-target animation: a rig holds only constant morph weights.
        FileCase{"khronos/SimpleMorph.gltf", {"mesh #0", "morph target", "clip \"#0\""}},
        FileCase{"khronos/AnimatedMorphCube.glb", {"mesh \"Cube\"", "node \"AnimatedMorphCube\"", "clip \"Square\""}},
        FileCase{"khronos/MorphStressTest.gltf", {"mesh \"Cube.001\"", "morph target", "clip \"Individuals\""}},
        FileCase{"threejs/Horse.glb", {"mesh #0", "clip \"horse_A_\""}},
        FileCase{"threejs/Flamingo.glb", {"mesh #0", "clip \"flamingo_flyA_\""}},
        FileCase{"threejs/Parrot.glb", {"mesh #0", "clip \"parrot_A_\""}},
        FileCase{"threejs/Stork.glb", {"mesh #0", "clip \"storkFly_B_\""}}),
    [](const ::testing::TestParamInfo<FileCase>& param) {
      std::string n = param.param.path;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// ---- error between rows ------------------------------------------------------------------------

// A delta decode between two rows lies on the chord between the two stored positions, so its
// error is at most the larger distance of the reference from the two rows' poses, plus the rows'
// own error: a bound computed here from the reference alone.
TEST(BakeErrors, DeltaBetweenRowsIsBoundedByTheMotionBetweenRows) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  const Vat v = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F32, 20.0f));
  const auto err = measure_ok(a, v, 3);
  ASSERT_EQ(err.size(), 1u);
  const VatClip& c = v.clips[0];
  test::Reference r0(a), r1(a), rt(a);
  float bound = 0.0f;
  for (uint32_t k = 0; k + 1 < c.rows; ++k) {
    r0.at(0, test::row_time(c, k));
    r1.at(0, test::row_time(c, k + 1));
    for (int j = 1; j <= 3; ++j) {
      const double t0 = double(k) * c.duration_s / (c.rows - 1), t1 = double(k + 1) * c.duration_s / (c.rows - 1);
      rt.at(0, float(t0 + (t1 - t0) * j / 4.0));
      for (size_t i = 0; i < rt.positions.size(); ++i) {
        bound = std::max(bound, std::max(glm::length(rt.positions[i] - r0.positions[i]),
                                         glm::length(rt.positions[i] - r1.positions[i])));
      }
    }
  }
  EXPECT_GT(err[0].between_rows_max_mm, err[0].on_rows_max_mm);  // interpolation costs something
  EXPECT_LE(err[0].between_rows_max_mm, bound * 1000.0f + err[0].on_rows_max_mm + 1e-3f);
  EXPECT_LE(err[0].between_rows_p99_mm, err[0].between_rows_max_mm);
}

// Both encodings' between-row error shrinks as rows get closer.
TEST(BakeErrors, BetweenRowErrorShrinksWithTheFrameRate) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    const auto slow = measure_ok(a, bake_ok(a, options_for(e, Precision::F32, 15.0f)));
    const auto fast = measure_ok(a, bake_ok(a, options_for(e, Precision::F32, 60.0f)));
    ASSERT_EQ(slow.size(), 1u);
    ASSERT_EQ(fast.size(), 1u);
    EXPECT_LT(fast[0].between_rows_max_mm * 2.0f, slow[0].between_rows_max_mm);
    EXPECT_LT(fast[0].between_rows_p99_mm * 2.0f, slow[0].between_rows_p99_mm);
  }
}

// Rig and delta decodes agree with each other (and, through measure_error, with the reference).
TEST(BakeErrors, RigAndDeltaDecodesAgree) {
  for (const char* f :
       {"khronos/CesiumMan.glb", "threejs/RobotExpressive.glb", "quaternius/platformer/Character.glb"}) {
    const Asset& a = shared_asset(f);
    const Vat d = bake_ok(a, options_for(EncodingChoice::Delta));
    const Vat r = bake_ok(a, options_for(EncodingChoice::Rig));
    const auto de = measure_ok(a, d);
    const auto re = measure_ok(a, r);
    test::Reference ref(a);
    for (uint32_t c = 0; c < d.clips.size(); ++c) {
      // On the rows both are the reference, so they are each other.
      for (uint32_t k = 0; k < d.clips[c].rows; k += 7) {
        const uint32_t row = d.clips[c].first_row + k;
        const auto pd = test::decode_all(d, single(RowBlend{c, row, row, 0.0f}));
        const auto pr = test::decode_all(r, single(RowBlend{c, row, row, 0.0f}));
        EXPECT_LE(test::max_distance(pd, pr) * 1000.0f, de[c].on_rows_max_mm + re[c].on_rows_max_mm + 1e-4f) << f;
      }
      // Between rows they interpolate differently, each within its measured error (at a time
      // measure_error samples: the middle of an interval).
      const VatClip& vc = d.clips[c];
      if (vc.rows < 2) continue;
      const double step = double(vc.duration_s) / double(vc.rows - 1);
      const float t = float(double(vc.rows / 3) * step + step * 2.0 / 4.0);
      const auto pd = test::decode_all(d, single(clip_rows_at(d, c, t)));
      const auto pr = test::decode_all(r, single(clip_rows_at(r, c, t)));
      EXPECT_LE(test::max_distance(pd, pr) * 1000.0f, de[c].between_rows_max_mm + re[c].between_rows_max_mm + 1e-3f)
          << f;
      ref.at(d.clips[c].source_animation, t);
      EXPECT_LE(test::max_distance(pd, ref.positions) * 1000.0f, de[c].between_rows_max_mm * 1.0001f + 1e-4f);
      EXPECT_LE(test::max_distance(pr, ref.positions) * 1000.0f, re[c].between_rows_max_mm * 1.0001f + 1e-4f);
    }
  }
}

// ---- the clip table ----------------------------------------------------------------------------

TEST(BakeClipTable, RowsRatesDefaultsBoundsAndMaxDelta) {
  const Asset& a = shared_asset("khronos/Fox.glb");
  BakeOptions o = options_for(EncodingChoice::Delta, Precision::F32, 24.0f);
  ClipDefaults once;
  once.loop_mode = LoopMode::Once;
  once.repetitions = 1;
  once.end_mode = EndMode::Rewind;
  once.speed = 0.5f;
  o.clip_defaults = {{"Survey", once}};
  o.clips = {"Run", "Survey"};  // order of selection is the order of bands
  const Vat v = bake_ok(a, o);
  ASSERT_EQ(v.clips.size(), 2u);
  EXPECT_EQ(v.clips[0].name, "Run");
  EXPECT_EQ(v.clips[1].name, "Survey");
  EXPECT_EQ(v.clips[0].source_animation, 2);
  EXPECT_EQ(v.clips[1].source_animation, 0);
  EXPECT_EQ(v.clips[1].defaults.loop_mode, LoopMode::Once);
  EXPECT_EQ(v.clips[1].defaults.end_mode, EndMode::Rewind);
  EXPECT_EQ(v.clips[1].defaults.repetitions, 1);
  EXPECT_EQ(v.clips[1].defaults.speed, 0.5f);
  EXPECT_EQ(v.clips[0].defaults.loop_mode, LoopMode::Repeat);
  EXPECT_EQ(v.clips[0].defaults.repetitions, kInfiniteRepetitions);
  uint32_t first = 0;
  test::Reference ref(a);
  Bounds all{glm::vec3(FLT_MAX), glm::vec3(-FLT_MAX)};
  for (const VatClip& c : v.clips) {
    const float D = a.animations[size_t(c.source_animation)].end_s;
    EXPECT_EQ(c.duration_s, D);
    EXPECT_EQ(c.rows, uint32_t(std::llround(double(D) * 24.0)) + 1);
    EXPECT_EQ(c.first_row, first);
    EXPECT_FLOAT_EQ(c.fps, float(double(c.rows - 1) / D));
    first += c.rows;
    // Bounds and max_delta: exactly those of the reference at the rows.
    Bounds b{glm::vec3(FLT_MAX), glm::vec3(-FLT_MAX)};
    float max_delta = 0.0f;
    for (uint32_t k = 0; k < c.rows; ++k) {
      ref.at(c.source_animation, test::row_time(c, k));
      const Bounds rb = bounds_of(ref.positions);
      b.min = glm::min(b.min, rb.min);
      b.max = glm::max(b.max, rb.max);
      for (size_t i = 0; i < ref.positions.size(); ++i)
        max_delta = std::max(max_delta, glm::length(ref.positions[i] - v.geometry.positions[i]));
    }
    EXPECT_EQ(c.bounds.min, b.min);
    EXPECT_EQ(c.bounds.max, b.max);
    EXPECT_NEAR(c.max_delta, max_delta, 1e-5f * max_delta);
    EXPECT_GT(c.max_delta, 1.0f);  // Fox moves (in its own centimetre-like units)
    all.min = glm::min(all.min, b.min);
    all.max = glm::max(all.max, b.max);
  }
  EXPECT_EQ(v.frame_rows, first);
  EXPECT_EQ(v.bounds.min, all.min);
  EXPECT_EQ(v.bounds.max, all.max);
}

// The rig bake skins no vertex: its bounds and max_delta are conservative, never smaller, and
// not far larger (each slot's bind-space box, moved: on these files the boxes add at most 67% of
// a clip's extent on an axis and max_delta at most 1.94x the exact value).
TEST(BakeClipTable, RigBoundsContainEveryPosedVertex) {
  for (const char* f : {"threejs/RobotExpressive.glb", "khronos/InterpolationTest.glb", "khronos/CesiumMan.glb"}) {
    const Asset& a = shared_asset(f);
    const Vat v = bake_ok(a, options_for(EncodingChoice::Rig, Precision::F32, 10.0f));
    const Vat d = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F32, 10.0f));
    ASSERT_EQ(v.clips.size(), d.clips.size());
    for (size_t c = 0; c < v.clips.size(); ++c) {
      const float slack = 1e-5f * (1.0f + max_abs_coordinate(d.clips[c].bounds));
      EXPECT_LE(comp_max(v.clips[c].bounds.min - d.clips[c].bounds.min), slack) << f << " " << v.clips[c].name;
      EXPECT_GE(comp_min(v.clips[c].bounds.max - d.clips[c].bounds.max), -slack) << f << " " << v.clips[c].name;
      EXPECT_GE(v.clips[c].max_delta, d.clips[c].max_delta * (1.0f - 1e-5f) - slack) << f << " " << v.clips[c].name;
      const float loose = 0.05f * max_abs_coordinate(d.clips[c].bounds);
      const glm::vec3 rig_extent = v.clips[c].bounds.max - v.clips[c].bounds.min;
      const glm::vec3 exact_extent = d.clips[c].bounds.max - d.clips[c].bounds.min;
      EXPECT_LE(comp_max(rig_extent - 2.0f * exact_extent), loose) << f << " " << v.clips[c].name;
      EXPECT_LE(v.clips[c].max_delta, 2.5f * d.clips[c].max_delta + loose) << f << " " << v.clips[c].name;
    }
  }
}

// Keys and positions that are finite each can pose a vertex past float32's range: the bake says
// so by clip, in both encodings, before anything is written.
// One triangle (0,0,0), (x1,0,0), (0,1,0) on node 0, named "tri", in a file named `source`; no
// animation yet.
Asset one_triangle(const char* source, float x1 = 1.0f) {
  Asset a;
  a.source = source;
  Mesh mesh;
  Primitive p;
  p.positions = {glm::vec3(0), glm::vec3(x1, 0, 0), glm::vec3(0, 1, 0)};
  p.normals.assign(3, glm::vec3(0, 0, 1));
  p.indices = {0, 1, 2};
  mesh.primitives.push_back(p);
  a.meshes.push_back(mesh);
  Node n;
  n.name = "tri";
  n.mesh = 0;
  a.nodes.push_back(n);
  test::finalize(a);
  return a;
}

TEST(BakeClipTable, PosesBeyondFloat32AreRefusedByClip) {
  Asset a = one_triangle("far.gltf", 3e38f);
  Animation anim;
  anim.name = "slide";
  test::add_channel(anim, 0, Path::Translation,
                    test::make_sampler(Interpolation::Linear, {0.0f, 1.0f}, {0, 0, 0, 3e38f, 0, 0}, 3));
  a.animations.push_back(anim);
  test::finalize(a);
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    auto r = bake(a, options_for(e));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message,
              "far.gltf: clip \"slide\": posed vertices leave float32's range (the clip's bounds are not finite)");
  }
}

TEST(BakeClipTable, OneRowForAZeroLengthClipAndErrorsForBadOptions) {
  Asset a = one_triangle("static.gltf");
  auto none = bake(a, options_for(EncodingChoice::Delta));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("static.gltf: has no animations"), std::string::npos) << none.error().message;

  Animation anim;
  anim.name = "hold";
  test::add_channel(anim, 0, Path::Translation, test::make_sampler(Interpolation::Linear, {0.0f}, {0, 0, 0}, 3));
  a.animations.push_back(anim);
  test::finalize(a);
  const Vat v = bake_ok(a, options_for(EncodingChoice::Delta));
  ASSERT_EQ(v.clips.size(), 1u);
  EXPECT_EQ(v.clips[0].rows, 1u);
  EXPECT_EQ(v.clips[0].fps, 0.0f);
  EXPECT_EQ(v.clips[0].max_delta, 0.0f);

  BakeOptions o = options_for(EncodingChoice::Delta);
  o.fps = 0.0f;
  auto r = bake(a, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("fps 0"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Argument);
  o = options_for(EncodingChoice::Delta);
  o.clips = {"jog"};
  r = bake(a, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("jog"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Argument);
  o = options_for(EncodingChoice::Delta);
  o.clip_defaults = {{"hold", ClipDefaults{LoopMode::Repeat, -1, EndMode::Clamp, -1.0f}}};
  r = bake(a, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("speed"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Argument);
}

// ---- limits -------------------------------------------------------------------------------------

// one_triangle with a clip "slide" moving node 0 by `distance` along x over `duration` seconds.
Asset sliding_triangle(const char* source, float duration, float distance = 1.0f) {
  Asset a = one_triangle(source);
  Animation anim;
  anim.name = "slide";
  test::add_channel(anim, 0, Path::Translation,
                    test::make_sampler(Interpolation::Linear, {0.0f, duration}, {0, 0, 0, distance, 0, 0}, 3));
  a.animations.push_back(anim);
  test::finalize(a);
  return a;
}

// round(D * fps) + 1 rows in 64 bits: 8192 s at 524288 fps is 2^32 + 1 rows, which must not
// wrap to one row; a clip with more rows than the texture holds fails before anything is baked,
// naming the clip, its duration and its rows.
TEST(BakeLimits, RowsThatCannotFitFailNamingTheClip) {
  const Asset a = sliding_triangle("long.gltf", 8192.0f);
  auto r = bake(a, options_for(EncodingChoice::Delta, Precision::F32, 524288.0f));
  ASSERT_FALSE(r.ok()) << r->clips[0].rows << " rows";
  EXPECT_EQ(r.error().message,
            "long.gltf: clip \"slide\" (8192 s) at 524288 fps needs 4294967297 frame rows, more than a VAT holds "
            "(65536, the largest texture size limit: every clip's rows share one texture)");
  EXPECT_EQ(r.error().code, ErrorCode::Limit);
  const Asset b = sliding_triangle("endless.gltf", 1e30f);
  r = bake(b, options_for(EncodingChoice::Rig));
  ASSERT_FALSE(r.ok()) << r->clips[0].rows << " rows";
  EXPECT_NE(
      r.error().message.find("endless.gltf: clip \"slide\" (1e+30 s) at 30 fps needs over 1099511627776 frame rows"),
      std::string::npos)
      << r.error().message;
  // Rows over this bake's limit fail saying what fits; the limit itself bakes.
  BakeOptions o = options_for(EncodingChoice::Delta, Precision::F32, 100.0f / 8192.0f);
  o.max_texture_size = 100;  // 101 rows
  r = bake(a, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("101 frame rows = 101 rows, over the texture size limit 100"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Limit);
  o.fps = 99.0f / 8192.0f;  // 99 intervals: 100 rows
  const Vat v = bake_ok(a, o);
  EXPECT_EQ(v.clips[0].rows, 100u);
}

TEST(BakeLimits, OptionsOutsideTheirRangeAreRefusedWithTheRange) {
  const Asset a = sliding_triangle("slide.gltf", 1.0f);
  auto expect_refused = [&](const BakeOptions& o, const std::string& message) {
    auto r = bake(a, o);
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.error().message, "slide.gltf: " + message);
    EXPECT_EQ(r.error().code, ErrorCode::Argument) << message;
  };
  BakeOptions o = options_for(EncodingChoice::Delta, Precision::F32, 2e6f);
  expect_refused(o, "fps 2e+06 is outside [1e-06, 1e+06]");
  o.fps = 1e-7f;
  expect_refused(o, "fps 1e-07 is outside [1e-06, 1e+06]");
  o = options_for(EncodingChoice::Delta);
  o.max_error_mm = 1.0f;
  o.max_search_fps = 1e7f;
  expect_refused(o, "max search fps 1e+07 is outside [1e-06, 1e+06]");
  o = options_for(EncodingChoice::Delta);
  o.max_texture_size = 65537;
  expect_refused(o, "max texture size 65537 is outside [1, 65536]");
  o.max_texture_size = 65536;
  EXPECT_TRUE(bake(a, o).ok());
  o.lods = 17;
  expect_refused(o, "levels of detail 17 is outside [0, 16]");
}

// The search never tries more rows than the texture holds, and says so when the limit, not the
// rate, ended it.
TEST(BakeLimits, TheFrameRateSearchStopsAtTheTextureSizeLimit) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");  // one 2 s clip
  BakeOptions o = options_for(EncodingChoice::Rig, Precision::F32);
  o.max_error_mm = 1e-30f;  // nothing meets it
  o.max_texture_size = 64;  // one texture row per frame: 64 rows, 31.5 fps over 2 s, below max_search_fps
  auto r = bake(a, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no rate up to 31.5 fps (the texture size limit's 64 rows) keeps the rig decode "
                                   "within 1e-30 mm"),
            std::string::npos)
      << r.error().message;
}

// A clip that gets one row holds its first pose: the bake says so, naming the clip, its duration
// and its rows, and the measurement looks between that row and the clip's end, where the
// triangle has slid 1 m (1000 mm) away from it.
TEST(BakeOneRow, AOneRowClipIsNotedAndMeasuredToItsEnd) {
  const Asset a = sliding_triangle("slide.gltf", 1.0f);
  BakeReport report;
  const Vat v = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F32, 0.1f), &report);
  ASSERT_EQ(v.clips[0].rows, 1u);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_EQ(report.notes[0],
            "clip \"slide\" (1 s) has 1 frame row at 0.1 fps: it holds its first pose for the whole clip");
  const std::vector<ClipError> err = measure_ok(a, v);
  EXPECT_EQ(err[0].on_rows_max_mm, 0.0f);
  EXPECT_NEAR(err[0].between_rows_max_mm, 1000.0f, 0.01f);
  // A clip without duration has one row and nothing to say about it.
  Asset still = one_triangle("still.gltf");
  Animation hold;
  hold.name = "hold";
  test::add_channel(hold, 0, Path::Translation, test::make_sampler(Interpolation::Linear, {0.0f}, {0, 0, 0}, 3));
  still.animations.push_back(hold);
  test::finalize(still);
  BakeReport still_report;
  bake_ok(still, options_for(EncodingChoice::Delta), &still_report);
  EXPECT_TRUE(still_report.notes.empty());
}

// The frame-rate search judges one row by the whole clip: a slide is not frozen within 1 mm.
TEST(BakeOneRow, TheSearchDoesNotFreezeAMovingClip) {
  const Asset a = sliding_triangle("slide.gltf", 1.0f);
  BakeOptions o = options_for(EncodingChoice::Delta);
  o.max_error_mm = 1.0f;
  const Vat v = bake_ok(a, o);
  EXPECT_EQ(v.clips[0].rows, 2u);  // linear motion: two rows are exact
}

// Every file the writer produces loads: each seed and regression input of fuzz_bake_reload
// (fuzz/seeds/fuzz_bake_reload: a vertex at 3e38, whose levels of detail have a screen size of
// FLT_MAX; a zero inverse bind matrix; what the fuzzer found) bakes in every encoding and
// precision to bytes that load_vat_memory accepts, or fails with one line naming the file.
TEST(BakeReload, EveryFuzzSeedBakesToAFileThatLoads) {
  const std::filesystem::path dir = std::filesystem::path(VATKIT_SOURCE_DIR) / "fuzz/seeds/fuzz_bake_reload";
  size_t baked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::vector<uint8_t> bytes = test::read_file(entry.path());
    const std::string name = entry.path().filename().string();
    auto asset = import_gltf_memory(bytes, name);
    if (!asset || asset->animations.empty()) continue;
    for (EncodingChoice e : {EncodingChoice::Auto, EncodingChoice::Delta, EncodingChoice::Rig}) {
      for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) {
        BakeOptions o = options_for(e, p, 4.0f);
        o.threads = 1;
        auto vat = bake(*asset, o);
        if (!vat) {
          EXPECT_EQ(vat.error().message.rfind(name + ": ", 0), 0u) << vat.error().message;
          EXPECT_EQ(vat.error().message.find('\n'), std::string::npos) << vat.error().message;
          continue;
        }
        auto written = write_vat_glb(*vat);
        ASSERT_TRUE(written.ok()) << name << ": " << written.error().message;
        auto loaded = load_vat_memory(*written, name + ".vat.glb");
        EXPECT_TRUE(loaded.ok()) << name << " " << int(e) << " " << int(p) << ": " << loaded.error().message;
        ++baked;
      }
    }
  }
  EXPECT_GE(baked, 3u) << "the seeds bake too little to test anything";
}

// ---- geometry and slots ------------------------------------------------------------------------

TEST(BakeGeometry, MergedRestGeometryFollowsTheInstances) {
  const Asset& a = shared_asset("threejs/RobotExpressive.glb");
  const Vat v = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F16, 5.0f));
  const VatGeometry& g = v.geometry;
  ASSERT_EQ(g.vertex_count(), a.instance_vertex_count);
  ASSERT_EQ(g.sources.size(), a.instances.size());
  test::Reference ref(a);
  ref.at(-1, 0.0f);
  for (uint32_t i = 0; i < g.vertex_count(); ++i) ASSERT_EQ(g.positions[i], ref.positions[i]) << i;
  size_t triangles = 0;
  for (size_t i = 0; i < a.instances.size(); ++i) {
    const MeshInstance& inst = a.instances[i];
    const SourceRange& s = g.sources[i];
    EXPECT_EQ(s.node, inst.node);
    EXPECT_EQ(s.mesh, inst.mesh);
    EXPECT_EQ(s.primitive, inst.primitive);
    EXPECT_EQ(s.first_vertex, inst.first_vertex);
    EXPECT_EQ(s.vertex_count, inst.vertex_count);
    triangles += a.meshes[inst.mesh].primitives[inst.primitive].indices.size();
  }
  // Groups: one per material, in order, covering the index buffer once.
  ASSERT_EQ(g.indices.size(), triangles);
  uint32_t next = 0;
  int last = -2;
  for (const DrawGroup& grp : g.groups) {
    EXPECT_GT(grp.material, last);
    last = grp.material;
    EXPECT_EQ(grp.first_index, next);
    next += grp.index_count;
    for (uint32_t k = grp.first_index; k < grp.first_index + grp.index_count; ++k) {
      // The vertex belongs to an instance drawn with this material.
      const uint32_t vtx = g.indices[k];
      const auto it = std::find_if(a.instances.begin(), a.instances.end(), [&](const MeshInstance& in) {
        return vtx >= in.first_vertex && vtx < in.first_vertex + in.vertex_count;
      });
      ASSERT_NE(it, a.instances.end());
      ASSERT_EQ(a.meshes[it->mesh].primitives[it->primitive].material, grp.material);
    }
  }
  EXPECT_EQ(next, g.indices.size());
  EXPECT_TRUE(g.texcoords0.empty());  // RobotExpressive has flat colours, no UVs
  EXPECT_EQ(v.materials.size(), a.materials.size());
  // Fox has a texture: its UVs come along.
  const Asset& fox = shared_asset("khronos/Fox.glb");
  const Vat f = bake_ok(fox, options_for(EncodingChoice::Delta, Precision::F16, 5.0f));
  ASSERT_EQ(f.geometry.texcoords0.size(), f.geometry.vertex_count());
  const Primitive& fp = fox.meshes[fox.instances[0].mesh].primitives[fox.instances[0].primitive];
  EXPECT_EQ(f.geometry.texcoords0[7], fp.texcoords0[7]);
}

TEST(BakeGeometry, RigSlotsAreSharedAcrossSkinsAndWeightsNormalized) {
  {
    // 4 skinned meshes, each with its own skin over the same 29 joints: 29 slots.
    const Asset& a = shared_asset("quaternius/platformer/Character.glb");
    ASSERT_EQ(a.skins.size(), 4u);
    const Vat v = bake_ok(a, options_for(EncodingChoice::Rig, Precision::F32, 5.0f));
    EXPECT_EQ(v.slots.size(), 29u);
    std::set<int32_t> nodes;
    for (const VatSlot& s : v.slots) nodes.insert(s.node);
    EXPECT_EQ(nodes.size(), 29u);
  }
  {
    // Two skins over one skeleton, plus rigid parts parented to joints (one slot each), and
    // weights that sum to 1.0..1.76 in the file.
    const Asset& a = shared_asset("threejs/RobotExpressive.glb");
    const Vat v = bake_ok(a, options_for(EncodingChoice::Rig, Precision::F32, 5.0f));
    std::set<int32_t> joints;
    for (const Skin& s : a.skins) joints.insert(s.joints.begin(), s.joints.end());
    std::set<int32_t> rigid;
    for (const MeshInstance& inst : a.instances)
      if (a.nodes[inst.node].skin < 0) rigid.insert(int32_t(inst.node));
    EXPECT_EQ(v.slots.size(), joints.size() + rigid.size());
    std::map<int32_t, int> per_node;
    for (const VatSlot& s : v.slots) per_node[s.node]++;
    for (auto [node, count] : per_node) EXPECT_EQ(count, 1) << a.nodes[size_t(node)].name;
    const VatGeometry& g = v.geometry;
    ASSERT_EQ(g.slot_weights0.size(), g.vertex_count());
    for (uint32_t i = 0; i < g.vertex_count(); ++i) {
      const glm::vec4 w = g.slot_weights0[i];
      ASSERT_NEAR(w.x + w.y + w.z + w.w, 1.0f, 1e-6f) << i;
      for (int k = 0; k < 4; ++k) ASSERT_LT(g.slots0[i][k], v.slots.size());
    }
    EXPECT_EQ(g.bind_positions.size(), g.vertex_count());
    EXPECT_EQ(g.bind_normals.size(), g.vertex_count());
    // Rigid parts have one slot at weight 1.
    for (const MeshInstance& inst : a.instances) {
      if (a.nodes[inst.node].skin >= 0) continue;
      for (uint32_t k = 0; k < inst.vertex_count; ++k) {
        ASSERT_EQ(g.slot_weights0[inst.first_vertex + k], glm::vec4(1, 0, 0, 0));
        ASSERT_EQ(v.slots[g.slots0[inst.first_vertex + k].x].node, int32_t(inst.node));
      }
    }
  }
}

// The delta bake's socket slots: one per skin joint, world(joint) with an identity inverse bind.
TEST(BakeGeometry, DeltaCarriesOneSocketSlotPerSkinJoint) {
  const Asset& a = shared_asset("threejs/RobotExpressive.glb");
  const Vat v = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F32, 5.0f));
  std::set<int32_t> joints;
  for (const Skin& s : a.skins) joints.insert(s.joints.begin(), s.joints.end());
  ASSERT_EQ(v.slots.size(), joints.size());
  for (const VatSlot& s : v.slots) {
    EXPECT_TRUE(joints.count(s.node));
    EXPECT_EQ(s.inverse_bind, glm::mat4(1.0f));
  }
  ASSERT_NE(v.plane(PlaneSemantic::Slots), nullptr);
  // No skin: no slots and no Slots plane.
  const Vat m = bake_ok(shared_asset("threejs/Horse.glb"), options_for(EncodingChoice::Delta, Precision::F32, 5.0f));
  EXPECT_TRUE(m.slots.empty());
  EXPECT_EQ(m.plane(PlaneSemantic::Slots), nullptr);
}

// ---- determinism ----------------------------------------------------------------------------

void expect_same_vat(const Vat& x, const Vat& y) {
  ASSERT_EQ(x.planes.size(), y.planes.size());
  for (size_t i = 0; i < x.planes.size(); ++i) {
    ASSERT_EQ(x.planes[i].data.size(), y.planes[i].data.size());
    EXPECT_EQ(std::memcmp(x.planes[i].data.data(), y.planes[i].data.data(), x.planes[i].data.size()), 0)
        << "plane " << i;
  }
  ASSERT_EQ(x.clips.size(), y.clips.size());
  for (size_t i = 0; i < x.clips.size(); ++i) {
    const VatClip &a = x.clips[i], &b = y.clips[i];
    EXPECT_EQ(a.first_row, b.first_row);
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(std::memcmp(&a.bounds, &b.bounds, sizeof(Bounds)), 0);
    EXPECT_EQ(std::memcmp(&a.delta_range, &b.delta_range, sizeof(Bounds)), 0);
    EXPECT_EQ(std::memcmp(&a.translation_range, &b.translation_range, sizeof(Bounds)), 0);
    EXPECT_EQ(a.max_delta, b.max_delta);
    EXPECT_EQ(a.scale_min, b.scale_min);
    EXPECT_EQ(a.scale_max, b.scale_max);
    EXPECT_EQ(a.fps, b.fps);
    ASSERT_EQ(a.accuracy.has_value(), b.accuracy.has_value());
    if (a.accuracy) {
      EXPECT_EQ(std::memcmp(&*a.accuracy, &*b.accuracy, sizeof(ClipAccuracy)), 0);
    }
  }
  EXPECT_EQ(std::memcmp(&x.bounds, &y.bounds, sizeof(Bounds)), 0);
  // The index buffer (vertex-cache order) and the levels cut from it.
  EXPECT_EQ(x.geometry.indices, y.geometry.indices);
  ASSERT_EQ(x.geometry.lods.size(), y.geometry.lods.size());
  for (size_t i = 0; i < x.geometry.lods.size(); ++i) {
    EXPECT_EQ(x.geometry.lods[i].indices, y.geometry.lods[i].indices);
    EXPECT_EQ(x.geometry.lods[i].error_in_motion, y.geometry.lods[i].error_in_motion);
  }
}

TEST(BakeDeterminism, ThreadCountsGiveIdenticalBytes) {
  for (const char* f : {"threejs/RobotExpressive.glb", "khronos/Fox.glb"}) {
    const Asset& a = shared_asset(f);
    for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
      for (Precision p : {Precision::F32, Precision::Q16}) {
        BakeOptions o = options_for(e, p, 30.0f);
        o.measure = std::string(f) == "khronos/Fox.glb";  // the measurement is in the file too
        o.threads = 1;
        const Vat one = bake_ok(a, o);
        EXPECT_EQ(one.clips[0].accuracy.has_value(), o.measure);
        o.threads = 5;
        const Vat five = bake_ok(a, o);
        SCOPED_TRACE(std::string(f) + " " + to_string(one.encoding) + " " + to_string(p));
        expect_same_vat(one, five);
      }
    }
  }
}

// The error-budget search too: its tries stop by whole batches of samples, so the rows it finds,
// and the file, do not depend on the thread count.
TEST(BakeDeterminism, TheSearchGivesIdenticalBytesForEveryThreadCount) {
  for (const char* f : {"khronos/Fox.glb", "khronos/RecursiveSkeletons.glb"}) {
    SCOPED_TRACE(f);
    const Asset& a = shared_asset(f);
    BakeOptions o = options_for(EncodingChoice::Auto, Precision::F32);
    o.max_error_mm = 5.0f;
    o.threads = 1;
    const Vat one = bake_ok(a, o);
    o.threads = 5;
    expect_same_vat(one, bake_ok(a, o));
  }
}

// Every bake kernel (simd.h: the rig kernel, the reference skinner, the delta and slot row
// encoders, the octahedral normals) at every width this CPU runs gives the bytes of its scalar
// twin (1 lane): 16 lanes where the CPU has AVX-512 (a clip's last block of 8 rows or fewer runs
// the 8-lane code, so such a bake mixes widths: Fox's 22-row and 36-row clips), 8 with AVX2, 4
// with SSE2. Every interpolation mode (InterpolationTest: STEP, LINEAR, CUBICSPLINE on rigid
// parts), several skins (RobotExpressive), every rig precision, and the delta at every precision
// (q16's normals are octahedral codes).
TEST(BakeDeterminism, KernelWidthsGiveIdenticalBytes) {
  const std::vector<unsigned> widths = detail::simd_widths();  // 1 (the scalar twins), 4, 8, 16
  ASSERT_GE(widths.size(), 2u);
  ASSERT_EQ(widths[0], 1u);
  struct Case {
    const char* file;
    EncodingChoice encoding;
    Precision precision;
  };
  std::vector<Case> cases;
  for (const char* f :
       {"threejs/RobotExpressive.glb", "khronos/Fox.glb", "khronos/CesiumMan.glb", "khronos/InterpolationTest.glb"}) {
    for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) cases.push_back({f, EncodingChoice::Rig, p});
  }
  for (const char* f : {"khronos/Fox.glb", "khronos/CesiumMan.glb"})
    cases.push_back({f, EncodingChoice::Delta, Precision::Q16});
  for (Precision p : {Precision::F32, Precision::F16})
    cases.push_back({"khronos/CesiumMan.glb", EncodingChoice::Delta, p});
  for (const Case& c : cases) {
    const Asset& a = shared_asset(c.file);
    BakeOptions o = options_for(c.encoding, c.precision, 30.0f);
    detail::force_simd_lanes(1);
    ASSERT_EQ(detail::simd_lanes(), 1u);
    const Vat scalar = bake_ok(a, o);
    for (size_t i = 1; i < widths.size(); ++i) {
      const unsigned w = widths[i];
      detail::force_simd_lanes(w);
      ASSERT_EQ(detail::simd_lanes(), w);
      const Vat other = bake_ok(a, o);
      SCOPED_TRACE(std::string(c.file) + " " + to_string(scalar.encoding) + " " + to_string(c.precision) + ", " +
                   std::to_string(w) + " lanes against the scalar twins");
      expect_same_vat(scalar, other);
    }
    detail::force_simd_lanes(0);
  }
}

// ---- refusals on hand-built rigs ---------------------------------------------------------------

// A two-joint skin over a quad ("upper" at the origin, "lower" 1 up and turned 0.5 rad), bound
// at the rest pose; clip "stretch" animates `path` of `node` linearly over one second.
Asset two_joint_rig(Path path, std::vector<float> values, uint32_t node, glm::vec3 upper_scale = glm::vec3(1.0f)) {
  Asset a;
  a.source = "rig.gltf";
  Node root;
  root.name = "root";
  Node j1;
  j1.name = "upper";
  j1.parent = 0;
  j1.scale = upper_scale;
  Node j2;
  j2.name = "lower";
  j2.parent = 1;
  j2.translation = glm::vec3(0, 1, 0);
  j2.rotation = glm::angleAxis(0.5f, glm::vec3(0, 0, 1));
  Node m;
  m.name = "skinned";
  m.mesh = 0;
  m.skin = 0;
  a.nodes = {root, j1, j2, m};
  Mesh mesh;
  mesh.name = "quad";
  Primitive p;
  p.positions = {glm::vec3(-0.1f, 0, 0), glm::vec3(0.1f, 0, 0), glm::vec3(0.1f, 2, 0), glm::vec3(-0.1f, 2, 0)};
  p.normals.assign(4, glm::vec3(0, 0, 1));
  p.joints0.assign(4, glm::u16vec4(0, 1, 0, 0));
  p.weights0 = {glm::vec4(1, 0, 0, 0), glm::vec4(1, 0, 0, 0), glm::vec4(0.3f, 0.7f, 0, 0), glm::vec4(0, 1, 0, 0)};
  p.indices = {0, 1, 2, 0, 2, 3};
  mesh.primitives.push_back(p);
  a.meshes.push_back(mesh);
  Skin s;
  s.joints = {1, 2};
  a.skins.push_back(s);
  Animation anim;
  anim.name = "stretch";
  const uint32_t comps = path == Path::Rotation ? 4 : 3;
  test::add_channel(anim, node, path,
                    test::make_sampler(Interpolation::Linear, {0.0f, 1.0f}, std::move(values), comps));
  a.animations.push_back(anim);
  test::finalize(a);
  std::vector<glm::mat4> world(a.nodes.size());
  compute_world_matrices(a, make_rest_pose(a), world);
  a.skins[0].inverse_bind = {glm::inverse(world[1]), glm::inverse(world[2])};
  return a;
}

TEST(BakeRefusals, NonUniformScaleNamesJointClipFrameAndMagnitude) {
  const Asset a = two_joint_rig(Path::Scale, {1, 1, 1, 1, 2, 1}, 1);
  auto r = bake(a, options_for(EncodingChoice::Rig, Precision::F32, 10.0f));
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("rig.gltf"), std::string::npos) << m;
  EXPECT_NE(m.find("joint \"upper\""), std::string::npos) << m;
  EXPECT_NE(m.find("clip \"stretch\""), std::string::npos) << m;
  EXPECT_NE(m.find("frame 1 "), std::string::npos) << m;  // frame 0 is the bind pose, frame 1 has 1.1
  EXPECT_NE(m.find("non-uniform scale"), std::string::npos) << m;
  EXPECT_NE(m.find("1, 1.1, 1"), std::string::npos) << m;
  // Delta bakes it, and Auto says why it chose delta.
  EXPECT_TRUE(bake(a, options_for(EncodingChoice::Delta)).ok());
  BakeReport rep;
  auto au = bake(a, options_for(EncodingChoice::Auto), &rep);
  ASSERT_TRUE(au.ok());
  EXPECT_EQ(au->encoding, Encoding::Delta);
  EXPECT_EQ(rep.encoding, Encoding::Delta);
  EXPECT_NE(rep.encoding_reason.find("rig refused"), std::string::npos) << rep.encoding_reason;
  EXPECT_NE(rep.encoding_reason.find("joint \"upper\""), std::string::npos) << rep.encoding_reason;
}

TEST(BakeRefusals, ARotatingChildOfANonUniformParentIsRefusedByName) {
  // "upper" keeps a constant (2, 1, 1) scale (bound that way: its own slot stays the identity);
  // "lower" turns under it, so its slot matrix S R S^-1 is sheared and stretched.
  const glm::quat q0 = glm::angleAxis(0.5f, glm::vec3(0, 0, 1)), q1 = glm::angleAxis(1.5f, glm::vec3(0, 0, 1));
  const Asset a =
      two_joint_rig(Path::Rotation, {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w}, 2, glm::vec3(2, 1, 1));
  auto r = bake(a, options_for(EncodingChoice::Rig, Precision::F32, 10.0f));
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("joint \"lower\""), std::string::npos) << m;
  EXPECT_NE(m.find("frame 1 "), std::string::npos) << m;
  EXPECT_TRUE(m.find("shear") != std::string::npos || m.find("non-uniform") != std::string::npos) << m;
  // A uniform scale is a similarity: accepted, and carried by the slot's scale.
  const Asset uniform = two_joint_rig(Path::Scale, {1, 1, 1, 2, 2, 2}, 1);
  const Vat v = bake_ok(uniform, options_for(EncodingChoice::Rig, Precision::F32, 10.0f));
  const auto e = measure_ok(uniform, v);
  EXPECT_LT(e[0].on_rows_max_mm, 1e-3f);
  EXPECT_NEAR(read_slot(v, v.clips[0].rows - 1, 0).scale, 2.0f, 1e-6f);
  EXPECT_NEAR(read_slot(v, v.clips[0].rows - 1, 1).scale, 2.0f, 1e-6f);
}

TEST(BakeRefusals, ToleranceIsAnOption) {
  const Asset a = two_joint_rig(Path::Scale, {1, 1, 1, 1, 1.001f, 1}, 1);  // 0.1% at most
  BakeOptions o = options_for(EncodingChoice::Rig, Precision::F32, 10.0f);
  o.rig_tolerance = 1e-4f;
  EXPECT_FALSE(bake(a, o).ok());
  o.rig_tolerance = 2e-3f;
  EXPECT_TRUE(bake(a, o).ok());
}

// ---- Auto --------------------------------------------------------------------------------------

TEST(BakeAuto, PicksTheRigWithinBudgetAndSaysWhy) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  BakeReport rep;
  BakeOptions o = options_for(EncodingChoice::Auto);
  const Vat v = bake_ok(a, o, &rep);
  EXPECT_EQ(v.encoding, Encoding::Rig);
  EXPECT_NE(rep.encoding_reason.find("within"), std::string::npos) << rep.encoding_reason;
  ASSERT_EQ(rep.clips.size(), 1u);  // Auto measured it
  o.auto_budget_mm = 1e-7f;         // tighter than float rounding: the rig cannot
  const Vat d = bake_ok(a, o, &rep);
  EXPECT_EQ(d.encoding, Encoding::Delta);
  EXPECT_NE(rep.encoding_reason.find("exceeds"), std::string::npos) << rep.encoding_reason;
  const Vat h = bake_ok(shared_asset("threejs/Horse.glb"), options_for(EncodingChoice::Auto), &rep);
  EXPECT_EQ(h.encoding, Encoding::Delta);
  EXPECT_NE(rep.encoding_reason.find("morph target"), std::string::npos) << rep.encoding_reason;
  EXPECT_EQ(rep.encoding_reason.find(std::string(test::asset_path("threejs/Horse.glb"))), std::string::npos)
      << "the reason should not repeat the file name: " << rep.encoding_reason;
}

// ---- texture limits ----------------------------------------------------------------------------

TEST(BakeTextureLimits, WrappedFramesDecodeIdenticallyToUnwrapped) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");  // 3273 vertices
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    for (Precision p : {Precision::F32, Precision::Q16}) {
      // Rig: 19 slots = 38 texels, wrapped over 3 rows of 13 with a limit of 16, which then
      // holds 5 frame rows: 2 fps.
      BakeOptions o = options_for(e, p, e == EncodingChoice::Delta ? 30.0f : 2.0f);
      const Vat flat = bake_ok(a, o);
      o.max_texture_size = e == EncodingChoice::Delta ? 1000 : 16;
      const Vat wrapped = bake_ok(a, o);
      const Plane* pf = flat.plane(e == EncodingChoice::Delta ? PlaneSemantic::Position : PlaneSemantic::Slots);
      const Plane* pw = wrapped.plane(e == EncodingChoice::Delta ? PlaneSemantic::Position : PlaneSemantic::Slots);
      ASSERT_TRUE(pf && pw);
      EXPECT_EQ(pf->rows_per_frame, 1u);
      EXPECT_EQ(pw->rows_per_frame, e == EncodingChoice::Delta ? 4u : 3u);
      EXPECT_EQ(pw->width, e == EncodingChoice::Delta ? 819u : 13u);  // balanced: ceil(3273 / 4), ceil(38 / 3)
      EXPECT_LE(pw->width, o.max_texture_size);
      EXPECT_EQ(pw->height, pw->rows_per_frame * wrapped.frame_rows);
      for (float t : {0.0f, 0.3f, 0.71f, 1.5f, 2.0f}) {
        std::vector<glm::vec3> nf, nw;
        const auto xf = test::decode_all(flat, single(clip_rows_at(flat, 0, t)), &nf);
        const auto xw = test::decode_all(wrapped, single(clip_rows_at(wrapped, 0, t)), &nw);
        ASSERT_EQ(std::memcmp(xf.data(), xw.data(), xf.size() * sizeof(glm::vec3)), 0) << t;
        ASSERT_EQ(std::memcmp(nf.data(), nw.data(), nf.size() * sizeof(glm::vec3)), 0) << t;
      }
      // Padding after the last texel of a wrapped frame is zero.
      const size_t tb = texel_bytes(pw->format);
      const size_t pad = size_t(pw->rows_per_frame) * pw->width - pw->texels_per_frame;
      for (size_t i = 0; i < pad * tb; ++i) ASSERT_EQ(pw->data[pw->texels_per_frame * tb + i], 0u);
    }
  }
}

TEST(BakeTextureLimits, TooBigFailsSayingWhatFits) {
  const Asset& a = shared_asset("threejs/RobotExpressive.glb");  // 7214 vertices, 14 clips
  BakeOptions o = options_for(EncodingChoice::Delta);
  o.max_texture_size = 4096;  // 2 texture rows per frame: 2048 frame rows, the clips need ~600 at 30 fps
  EXPECT_TRUE(bake(a, o).ok());
  o.max_texture_size = 1024;  // 8 texture rows per frame: 128 frame rows
  auto r = bake(a, o);
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("texture size limit 1024"), std::string::npos) << m;
  EXPECT_NE(m.find("128 frame rows"), std::string::npos) << m;
  EXPECT_NE(m.find("rig encoding"), std::string::npos) << m;
  std::smatch fps;
  ASSERT_TRUE(std::regex_search(m, fps, std::regex("fps ([0-9.]+)"))) << m;
  std::smatch first;
  ASSERT_TRUE(std::regex_search(m, first, std::regex("first ([0-9]+) of the 14 clips"))) << m;
  // What it says fits, fits.
  o.fps = std::stof(fps[1]);
  EXPECT_TRUE(bake(a, o).ok()) << "fps " << o.fps;
  o.fps = 30.0f;
  const int n = std::stoi(first[1]);
  ASSERT_GT(n, 0);
  for (int i = 0; i < n; ++i) o.clips.push_back("#" + std::to_string(i));
  EXPECT_TRUE(bake(a, o).ok());
  o.clips.push_back("#" + std::to_string(n));
  EXPECT_FALSE(bake(a, o).ok());
  // Even one row per clip may not fit.
  o = options_for(EncodingChoice::Delta);
  o.max_texture_size = 64;
  r = bake(a, o);
  ASSERT_FALSE(r.ok());
  std::smatch least;
  ASSERT_TRUE(
      std::regex_search(r.error().message, least, std::regex("limit of at least ([0-9]+) holds one row per clip")))
      << r.error().message;
  // What it says fits, fits, with one row per clip (a frame rate that rounds every clip to one
  // row), and one texel less does not.
  o.max_texture_size = uint32_t(std::stoul(least[1]));
  o.fps = 1e-3f;
  EXPECT_TRUE(bake(a, o).ok()) << o.max_texture_size;
  o.max_texture_size -= 1;
  EXPECT_FALSE(bake(a, o).ok()) << o.max_texture_size;
}

// ---- the frame-rate search ---------------------------------------------------------------------

TEST(BakeFrameRateSearch, FindsARateThatMeetsTheBudgetAndALowerOneThatDoesNot) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    for (float budget : {3.0f, 0.5f}) {
      BakeOptions o = options_for(e, Precision::F32);
      o.max_error_mm = budget;
      BakeReport rep;
      const Vat v = bake_ok(a, o, &rep);
      ASSERT_EQ(v.clips.size(), 1u);
      const VatClip& c = v.clips[0];
      const auto err = measure_ok(a, v);  // the default sampling, as the search uses
      EXPECT_LE(err[0].on_rows_max_mm, budget);
      EXPECT_LE(err[0].between_rows_max_mm, budget);
      // One row fewer does not meet it.
      BakeOptions lower = options_for(e, Precision::F32, float(double(c.rows - 2) / c.duration_s));
      const Vat w = bake_ok(a, lower);
      ASSERT_EQ(w.clips[0].rows, c.rows - 1);
      const auto werr = measure_ok(a, w);
      EXPECT_GT(std::max(werr[0].on_rows_max_mm, werr[0].between_rows_max_mm), budget) << c.rows;
    }
  }
}

// Rates whose rows land on the keys are far better than their neighbours, so the search tries
// every multiple of the key rate before it looks between two: no multiple of CesiumMan's 24 fps
// below the rate it picks meets the budget. (Doubling the rate skipped 72 fps for 96 at 0.7 mm.)
TEST(BakeFrameRateSearch, NoMultipleOfTheKeyRateBelowItMeetsTheBudget) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  // The key grid, worked out here: every key time of the clip on multiples of one interval.
  std::vector<float> times;
  for (const Sampler& s : a.animations[0].samplers) times.insert(times.end(), s.times.begin(), s.times.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const double interval = double(times[1]) - double(times[0]);
  const uint32_t M = uint32_t(std::lround(double(a.animations[0].end_s) / interval));
  for (float t : times) ASSERT_NEAR(double(t) / interval, std::round(double(t) / interval), 1e-3);
  ASSERT_EQ(M, 48u);  // 24 fps over 2 s
  for (float budget : {0.7f, 2.0f}) {
    BakeOptions o = options_for(EncodingChoice::Delta, Precision::F32);
    o.max_error_mm = budget;
    const Vat v = bake_ok(a, o);
    const VatClip& c = v.clips[0];
    uint32_t below = 0;
    for (uint32_t k = 1; k * M + 1 < c.rows; ++k, ++below) {
      const Vat w = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F32, float(double(k * M) / c.duration_s)));
      ASSERT_EQ(w.clips[0].rows, k * M + 1);
      const auto err = measure_ok(a, w);
      EXPECT_GT(std::max(err[0].on_rows_max_mm, err[0].between_rows_max_mm), budget) << k << "x the key rate";
    }
    if (budget == 0.7f) {
      EXPECT_GE(below, 2u) << c.rows << " rows: the test tests too little";
    }
  }
}

TEST(BakeFrameRateSearch, ImpossibleBudgetFailsWithTheBestError) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  BakeOptions o = options_for(EncodingChoice::Delta, Precision::Q16);
  o.max_error_mm = 1e-4f;  // below what 16 bits hold
  o.max_search_fps = 60.0f;
  auto r = bake(a, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no rate up to 60 fps"), std::string::npos) << r.error().message;
}

// The search reports, per clip, the measurement it confirmed its rows with: the numbers a fresh
// measurement of the bake gives (the bake keeps them instead of measuring again).
TEST(BakeFrameRateSearch, ReportsWhatAFreshMeasurementGives) {
  struct Case {
    const char* file;
    EncodingChoice encoding;
    Precision precision;
    float budget_mm;
  };
  for (const Case& c : {Case{"khronos/CesiumMan.glb", EncodingChoice::Delta, Precision::Q16, 3.0f},
                        Case{"khronos/CesiumMan.glb", EncodingChoice::Rig, Precision::F16, 3.0f},
                        Case{"khronos/CesiumMan.glb", EncodingChoice::Auto, Precision::F16, 1.0f},
                        Case{"khronos/RiggedFigure.glb", EncodingChoice::Auto, Precision::F32, 2.0f}}) {
    const Asset& a = shared_asset(c.file);
    BakeOptions o = options_for(c.encoding, c.precision);
    o.max_error_mm = c.budget_mm;
    o.measure = true;
    BakeReport rep;
    const Vat v = bake_ok(a, o, &rep);
    const auto fresh = measure_ok(a, v);
    ASSERT_EQ(rep.clips.size(), fresh.size()) << c.file;
    for (size_t i = 0; i < fresh.size(); ++i) {
      SCOPED_TRACE(std::string(c.file) + " clip " + fresh[i].clip + " at " + to_string(c.precision));
      EXPECT_EQ(rep.clips[i].clip, fresh[i].clip);
      EXPECT_EQ(rep.clips[i].rows, fresh[i].rows);
      EXPECT_EQ(rep.clips[i].on_rows_max_mm, fresh[i].on_rows_max_mm);
      EXPECT_EQ(rep.clips[i].on_rows_p99_mm, fresh[i].on_rows_p99_mm);
      EXPECT_EQ(rep.clips[i].between_rows_max_mm, fresh[i].between_rows_max_mm);
      EXPECT_EQ(rep.clips[i].between_rows_p99_mm, fresh[i].between_rows_p99_mm);
      EXPECT_EQ(rep.clips[i].normal_max_deg, fresh[i].normal_max_deg);
      EXPECT_LE(std::max(fresh[i].on_rows_max_mm, fresh[i].between_rows_max_mm), c.budget_mm);
    }
  }
}

// The search's tries measure a subset of the vertices: each kept vertex has the error the whole
// measurement gives it (all of them kept: the same numbers; fewer: no more than the whole's).
TEST(BakeFrameRateSearch, SubsetMeasuresEachVertexAsTheWholeDoes) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    for (Precision p : {Precision::F32, Precision::Q16}) {
      const Vat v = bake_ok(a, options_for(e, p, 20.0f));
      const auto whole = measure_ok(a, v);
      for (uint32_t spread : {1u << 30, 64u}) {
        SCOPED_TRACE(std::string(to_string(v.encoding)) + " " + to_string(p) + " spread " + std::to_string(spread));
        auto subset = detail::choose_vertex_subset(a, v.geometry, spread);
        ASSERT_TRUE(subset.has_value());
        const bool all = spread > v.geometry.vertex_count();
        EXPECT_EQ(subset->count == subset->whole, all);
        EXPECT_EQ(subset->whole, v.geometry.vertex_count());
        auto m = detail::measure_clips(subset->asset, detail::subset_vat(v, *subset), {});
        ASSERT_TRUE(m.ok()) << m.error().message;
        const ClipError& s = (*m)[0].error;
        if (all) {
          EXPECT_EQ(s.on_rows_max_mm, whole[0].on_rows_max_mm);
          EXPECT_EQ(s.on_rows_p99_mm, whole[0].on_rows_p99_mm);
          EXPECT_EQ(s.between_rows_max_mm, whole[0].between_rows_max_mm);
          EXPECT_EQ(s.between_rows_p99_mm, whole[0].between_rows_p99_mm);
          EXPECT_EQ(s.normal_max_deg, whole[0].normal_max_deg);
        } else {
          EXPECT_LT(subset->count * 3, subset->whole);
          EXPECT_LE(s.on_rows_max_mm, whole[0].on_rows_max_mm);
          EXPECT_LE(s.between_rows_max_mm, whole[0].between_rows_max_mm);
          EXPECT_LE(s.normal_max_deg, whole[0].normal_max_deg);
          EXPECT_GT(s.between_rows_max_mm, 0.5f * whole[0].between_rows_max_mm);  // it stands for the whole
        }
      }
    }
  }
}

// A measurement that stops at a budget (the search's failing tries) reports the largest error of
// whole fixed-size batches of samples, up to the one that went over: the same lower bound on every
// run and for every thread count, so the search takes the same path and writes the same file.
// A budget far below the error: the first batch already stops it.
TEST(BakeFrameRateSearch, AStoppedMeasurementIsTheSameForEveryThreadCount) {
  const Asset& a = shared_asset("khronos/Fox.glb");
  BakeOptions o = options_for(EncodingChoice::Rig, Precision::F32);
  o.fps = 2.0f;  // few rows: errors of metres between them
  const Vat v = bake_ok(a, o);
  std::optional<float> first;
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    SCOPED_TRACE(threads);
    detail::MeasureRequest req;
    req.threads = threads;
    req.abort_above_mm = 1.0f;
    auto m = detail::measure_clips(a, v, req);
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_TRUE((*m)[0].exceeded);
    const float bound = (*m)[0].max_mm();
    EXPECT_GT(bound, 1.0f);
    if (!first) first = bound;
    EXPECT_EQ(bound, *first);
  }
}

// A delta at f32 or f16 bakes the search's tries on the subset's vertices alone: the texels the
// whole bake gives those vertices, bit for bit.
TEST(BakeFrameRateSearch, SubsetDeltaBakeHoldsTheWholeBakesTexels) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  for (Precision p : {Precision::F32, Precision::F16}) {
    SCOPED_TRACE(to_string(p));
    const BakeOptions o = options_for(EncodingChoice::Delta, p);
    auto setup = detail::prepare_bake(a, o);
    ASSERT_TRUE(setup.ok());
    detail::ClipPlan plan;
    plan.duration_s = a.animations[0].end_s - a.animations[0].start_s;
    plan.rows = 41;
    detail::Progress quiet;
    auto whole = detail::bake_delta(*setup, {plan}, quiet, false);
    ASSERT_TRUE(whole.ok());
    auto subset = detail::choose_vertex_subset(a, setup->rest, 256);
    ASSERT_TRUE(subset.has_value());
    detail::BakeSetup own_setup = detail::subset_setup(*setup, *subset);
    auto own = detail::bake_delta(own_setup, {plan}, quiet, false);
    ASSERT_TRUE(own.ok());
    const Vat cut = detail::subset_vat(*whole, *subset);
    ASSERT_EQ(own->geometry.vertex_count(), subset->count);
    ASSERT_EQ(own->planes.size(), cut.planes.size());
    for (size_t i = 0; i < cut.planes.size(); ++i) {
      const Plane &x = own->planes[i], &y = cut.planes[i];
      if (y.semantic == PlaneSemantic::Slots) continue;
      ASSERT_EQ(x.format, y.format);
      const uint32_t tb = texel_bytes(x.format);
      size_t differ = 0;
      for (uint32_t row = 0; row < plan.rows; ++row)
        for (uint32_t v = 0; v < subset->count; ++v)
          differ += std::memcmp(x.data.data() + (size_t(row) * x.rows_per_frame * x.width + v) * tb,
                                y.data.data() + (size_t(row) * y.rows_per_frame * y.width + v) * tb, tb) != 0;
      EXPECT_EQ(differ, 0u) << "plane " << i;
    }
  }
}

// A 64 x 64 grid held by a still joint, but for one inner vertex that a turning joint moves a
// tenth of the way: the vertex subset the search measures its tries on misses it (every try passes
// there), so only the confirming measurement of every vertex sees the error.
Asset one_moving_vertex(uint32_t hidden) {
  Asset a;
  a.source = "grid.gltf";
  a.nodes.resize(3);  // "still" (the root), "turning" (its child), "grid" (the skinned mesh)
  a.nodes[0].name = "still", a.nodes[1].name = "turning", a.nodes[2].name = "grid";
  a.nodes[1].parent = 0;
  a.nodes[2].mesh = a.nodes[2].skin = 0;
  Mesh mesh;
  Primitive p;
  constexpr uint32_t n = 64;
  for (uint32_t y = 0; y < n; ++y)
    for (uint32_t x = 0; x < n; ++x) p.positions.push_back(glm::vec3(float(x), float(y), 0.0f) / float(n - 1));
  p.normals.assign(p.positions.size(), glm::vec3(0, 0, 1));
  p.joints0.assign(p.positions.size(), glm::u16vec4(0, 1, 0, 0));
  p.weights0.assign(p.positions.size(), glm::vec4(1, 0, 0, 0));
  p.weights0[0] = glm::vec4(0.5f, 0.5f, 0, 0);  // the most blended vertex, on the turning joint's pivot
  p.weights0[hidden] = glm::vec4(0.9f, 0.1f, 0, 0);
  for (uint32_t y = 0; y + 1 < n; ++y)
    for (uint32_t x = 0; x + 1 < n; ++x)
      for (uint32_t k : {0u, 1u, n + 1, 0u, n + 1, n}) p.indices.push_back(y * n + x + k);
  mesh.primitives.push_back(p);
  a.meshes.push_back(mesh);
  Skin s;
  s.joints = {0, 1};
  s.inverse_bind = {glm::mat4(1.0f), glm::mat4(1.0f)};
  a.skins.push_back(s);
  Animation anim;
  anim.name = "turn";
  const glm::quat q = glm::angleAxis(1.2f, glm::vec3(0, 0, 1));
  test::add_channel(
      anim, 1, Path::Rotation,
      test::make_sampler(Interpolation::Linear, {0.0f, 0.5f, 1.0f}, {0, 0, 0, 1, q.x, q.y, q.z, q.w, 0, 0, 0, 1}, 4));
  a.animations.push_back(anim);
  test::finalize(a);
  return a;
}

TEST(BakeFrameRateSearch, ConfirmsOnEveryVertexWhatTheSubsetPassed) {
  constexpr uint32_t hidden = 32 * 64 + 33;
  const Asset a = one_moving_vertex(hidden);
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    SCOPED_TRACE(e == EncodingChoice::Delta ? "delta" : "rig");
    BakeOptions o = options_for(e, Precision::F32);
    o.max_error_mm = 1.0f;
    const Vat v = bake_ok(a, o);
    // The subset misses the moving vertex, and sees no error at any rate: the test tests the confirmation.
    auto subset = detail::choose_vertex_subset(a, v.geometry, 256);
    ASSERT_TRUE(subset.has_value());
    ASSERT_LT(subset->count * 3, subset->whole * 2);
    EXPECT_FALSE(std::binary_search(subset->kept[0].begin(), subset->kept[0].end(), hidden));
    const Vat one = bake_ok(a, options_for(e, Precision::F32, 1e-3f));
    ASSERT_EQ(one.clips[0].rows, 1u);
    auto on_subset = detail::measure_clips(subset->asset, detail::subset_vat(one, *subset), {});
    ASSERT_TRUE(on_subset.ok());
    EXPECT_LT((*on_subset)[0].max_mm(), 1e-3f);
    // Yet the rows found meet the budget on every vertex, and one row fewer does not.
    const VatClip& c = v.clips[0];
    const auto err = measure_ok(a, v);
    EXPECT_LE(std::max(err[0].on_rows_max_mm, err[0].between_rows_max_mm), 1.0f);
    ASSERT_GT(c.rows, 2u);
    const Vat w = bake_ok(a, options_for(e, Precision::F32, float(double(c.rows - 2) / c.duration_s)));
    ASSERT_EQ(w.clips[0].rows, c.rows - 1);
    const auto werr = measure_ok(a, w);
    EXPECT_GT(std::max(werr[0].on_rows_max_mm, werr[0].between_rows_max_mm), 1.0f) << c.rows;
  }
}

// ---- progress ----------------------------------------------------------------------------------

TEST(BakeProgress, ReportsFromTheCallingThreadUpToOne) {
  const Asset& a = shared_asset("khronos/Fox.glb");
  BakeOptions o = options_for(EncodingChoice::Delta);
  o.measure = true;
  o.lods = 3;  // the levels of detail are most of a default bake's time: they report too
  const auto caller = std::this_thread::get_id();
  std::map<std::string, std::vector<float>> seen;
  bool wrong_thread = false;
  o.progress = [&](std::string_view stage, float f) {
    if (std::this_thread::get_id() != caller) wrong_thread = true;
    seen[std::string(stage)].push_back(f);
  };
  bake_ok(a, o);
  EXPECT_FALSE(wrong_thread);
  for (const char* stage : {"bake", "measure", "levels"}) {
    ASSERT_FALSE(seen[stage].empty()) << stage;
    EXPECT_TRUE(std::is_sorted(seen[stage].begin(), seen[stage].end())) << stage;
    EXPECT_FLOAT_EQ(seen[stage].back(), 1.0f) << stage;
  }
  // The levels report along the way (each level simplified, each side searched, the poses in
  // batches), not only at the end.
  EXPECT_GE(seen["levels"].size(), 10u);
  EXPECT_LT(seen["levels"].front(), 0.5f);
}

}  // namespace
}  // namespace vatkit

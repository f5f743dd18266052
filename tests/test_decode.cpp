// The CPU decode (decode.h): row addressing, the hemisphere rule on looping blends, two-band
// blends, sub-ranges, rig normals and tangents against the reference skinner, 8 influences, and
// the socket query (world matrix of any joint) in both encodings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include <glm/gtc/quaternion.hpp>

#include "synthetic.h"
#include "test_bake_util.h"

namespace vatkit {
namespace {

using test::bake_ok;
using test::options_for;
using test::shared_asset;

// The angle between two directions, from the chord of their unit vectors in double (acos of a
// float dot product cannot resolve less than about 0.03 degrees).
float angle_deg(const glm::vec3& a, const glm::vec3& b) {
  const glm::dvec3 x = glm::normalize(glm::dvec3(a)), y = glm::normalize(glm::dvec3(b));
  return float(2.0 * std::asin(std::min(1.0, glm::length(x - y) / 2.0)) * 180.0 / M_PI);
}

TEST(DecodeRows, ClipRowsAtClampsAndInterpolates) {
  Vat v;
  VatClip a;
  a.first_row = 0;
  a.rows = 1;
  VatClip b;
  b.first_row = 1;
  b.rows = 5;
  b.duration_s = 1.0f;
  b.fps = 4.0f;
  v.clips = {a, b};
  v.frame_rows = 6;
  RowBlend r = clip_rows_at(v, 1, 0.0f);
  EXPECT_EQ(r.clip, 1u);
  EXPECT_EQ(r.row, 1u);
  EXPECT_EQ(r.row_next, 2u);
  EXPECT_EQ(r.mix, 0.0f);
  r = clip_rows_at(v, 1, 0.3f);  // x = 1.2
  EXPECT_EQ(r.row, 2u);
  EXPECT_EQ(r.row_next, 3u);
  EXPECT_NEAR(r.mix, 0.2f, 1e-6f);
  r = clip_rows_at(v, 1, 1.0f);  // the last row, holding
  EXPECT_EQ(r.row, 5u);
  EXPECT_EQ(r.row_next, 5u);
  EXPECT_EQ(r.mix, 0.0f);
  r = clip_rows_at(v, 1, 7.0f);  // clamped, no looping
  EXPECT_EQ(r.row, 5u);
  r = clip_rows_at(v, 1, -1.0f);
  EXPECT_EQ(r.row, 1u);
  EXPECT_EQ(r.mix, 0.0f);
  r = clip_rows_at(v, 0, 0.5f);  // a one-row clip
  EXPECT_EQ(r.row, 0u);
  EXPECT_EQ(r.row_next, 0u);
  EXPECT_EQ(clip_of_row(v, 0), 0u);
  EXPECT_EQ(clip_of_row(v, 3), 1u);
}

// One joint spinning 300 degrees about z in one second, a rigid unit bar on it.
Asset spinner() {
  Asset a;
  a.source = "spin.gltf";
  Node j;
  j.name = "spin";
  Node m;
  m.name = "bar";
  m.mesh = 0;
  m.skin = 0;
  a.nodes = {j, m};
  Mesh mesh;
  Primitive p;
  p.positions = {glm::vec3(0, 0, 0), glm::vec3(1, 0, 0), glm::vec3(1, 0.1f, 0)};
  p.normals.assign(3, glm::vec3(0, 0, 1));
  p.tangents.assign(3, glm::vec4(1, 0, 0, -1));
  p.joints0.assign(3, glm::u16vec4(0));
  p.weights0.assign(3, glm::vec4(1, 0, 0, 0));
  p.indices = {0, 1, 2};
  mesh.primitives.push_back(p);
  a.meshes.push_back(mesh);
  Skin s;
  s.joints = {0};
  s.inverse_bind = {glm::mat4(1.0f)};
  a.skins.push_back(s);
  Animation anim;
  anim.name = "spin";
  std::vector<float> times, values;
  for (int k = 0; k <= 3; ++k) {
    times.push_back(float(k) / 3.0f);
    const glm::quat q = glm::angleAxis(glm::radians(100.0f * float(k)), glm::vec3(0, 0, 1));
    values.insert(values.end(), {q.x, q.y, q.z, q.w});
  }
  test::add_channel(anim, 0, Path::Rotation, test::make_sampler(Interpolation::Linear, times, values, 4));
  a.animations.push_back(anim);
  test::finalize(a);
  return a;
}

float z_angle_deg(const glm::quat& q) {
  float deg = glm::degrees(2.0f * std::atan2(q.z, q.w));
  while (deg < 0.0f) deg += 360.0f;
  while (deg >= 360.0f) deg -= 360.0f;
  return deg;
}

TEST(DecodeSlots, ConsecutiveRowsShareAHemisphereAndLoopingBlendsFlip) {
  const Asset a = spinner();
  for (Precision p : {Precision::F32, Precision::F16, Precision::Q16}) {
    const Vat v = bake_ok(a, options_for(EncodingChoice::Rig, p, 12.0f));
    ASSERT_EQ(v.slots.size(), 1u);
    const VatClip& c = v.clips[0];
    for (uint32_t k = 0; k + 1 < c.rows; ++k) {
      const glm::quat q0 = read_slot(v, k, 0).rotation, q1 = read_slot(v, k + 1, 0).rotation;
      EXPECT_GE(glm::dot(q0, q1), 0.0f) << k;
    }
    // 300 degrees is more than half a turn: the last row's stored quaternion is on the other
    // hemisphere from the first, and a loop blends them the short way, through 330 degrees.
    EXPECT_LT(glm::dot(read_slot(v, 0, 0).rotation, read_slot(v, c.rows - 1, 0).rotation), 0.0f);
    const SlotTransform mid = decode_slot(v, single(RowBlend{0, c.rows - 1, 0, 0.5f}), 0);
    EXPECT_NEAR(z_angle_deg(mid.rotation), 330.0f, 0.05f) << to_string(p);
    EXPECT_NEAR(glm::length(glm::vec4(mid.rotation.x, mid.rotation.y, mid.rotation.z, mid.rotation.w)), 1.0f, 1e-6f);
    // Halfway between two rows: nlerp lands close to the slerp angle.
    const SlotTransform h = decode_slot(v, single(RowBlend{0, 2, 3, 0.5f}), 0);
    EXPECT_NEAR(z_angle_deg(h.rotation), 300.0f * 2.5f / 12.0f, 0.05f);
  }
}

TEST(DecodeBlends, TwoBandsMixLikeTheirParts) {
  const Asset& a = shared_asset("khronos/Fox.glb");
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    const Vat v = bake_ok(a, options_for(e, Precision::F32, 30.0f));
    const RowBlend ra = clip_rows_at(v, 1, 0.2f), rb = clip_rows_at(v, 2, 0.55f);
    PoseBlend both{ra, rb, 0.25f};
    const auto pa = test::decode_all(v, single(ra));
    const auto pb = test::decode_all(v, single(rb));
    const auto pab = test::decode_all(v, both);
    if (e == EncodingChoice::Delta) {
      // Positions mix linearly.
      for (size_t i = 0; i < pab.size(); ++i)
        ASSERT_LT(glm::length(pab[i] - (pa[i] + (pb[i] - pa[i]) * 0.25f)), 1e-3f) << i;
    }
    // Weight 0 is band a; weight 1 is band b (up to the blend's rounding).
    both.weight_b = 0.0f;
    EXPECT_EQ(test::max_distance(test::decode_all(v, both), pa), 0.0f);
    both.weight_b = 1.0f;
    EXPECT_LT(test::max_distance(test::decode_all(v, both), pb), 1e-3f);
    // Slots blend by the hemisphere rule: the result is between the two bands' slots.
    for (uint32_t s = 0; s < v.slots.size(); ++s) {
      const SlotTransform sa = decode_slot(v, single(ra), s), sb = decode_slot(v, single(rb), s);
      const SlotTransform sm = decode_slot(v, PoseBlend{ra, rb, 0.5f}, s);
      const glm::quat want =
          glm::normalize(glm::dot(sa.rotation, sb.rotation) < 0.0f
                             ? glm::quat(sa.rotation.w - sb.rotation.w, sa.rotation.x - sb.rotation.x,
                                         sa.rotation.y - sb.rotation.y, sa.rotation.z - sb.rotation.z)
                             : glm::quat(sa.rotation.w + sb.rotation.w, sa.rotation.x + sb.rotation.x,
                                         sa.rotation.y + sb.rotation.y, sa.rotation.z + sb.rotation.z));
      EXPECT_GT(std::fabs(glm::dot(sm.rotation, want)), 1.0f - 1e-5f) << s;
      EXPECT_LT(glm::length(sm.translation - 0.5f * (sa.translation + sb.translation)),
                1e-4f * (1.0f + glm::length(sa.translation)));
    }
  }
}

TEST(DecodeVertices, SubRangesMatchTheFullDecode) {
  const Asset& a = shared_asset("threejs/RobotExpressive.glb");
  for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
    const Vat v = bake_ok(a, options_for(e, Precision::Q16, 10.0f));
    const PoseBlend pose = single(clip_rows_at(v, 3, 0.4f));
    std::vector<glm::vec3> normals;
    const auto all = test::decode_all(v, pose, &normals);
    for (const SourceRange& s : v.geometry.sources) {
      std::vector<glm::vec3> p(s.vertex_count), n(s.vertex_count);
      decode_vertices(v, pose, s.first_vertex, p, n);
      ASSERT_EQ(std::memcmp(p.data(), all.data() + s.first_vertex, p.size() * sizeof(glm::vec3)), 0);
      ASSERT_EQ(std::memcmp(n.data(), normals.data() + s.first_vertex, n.size() * sizeof(glm::vec3)), 0);
      std::vector<glm::vec3> only_normals(s.vertex_count);
      decode_vertices(v, pose, s.first_vertex, {}, only_normals);
      ASSERT_EQ(std::memcmp(only_normals.data(), n.data(), n.size() * sizeof(glm::vec3)), 0);
    }
    // Small ranges: the rig decode makes only the slots they name (on the stack up to 4 vertices,
    // renumbered on the heap below a quarter of the slots), and must give the same bits.
    const uint32_t V = v.geometry.vertex_count();
    for (uint32_t chunk : {1u, 3u, 4u, 5u, 13u}) {
      for (uint32_t first = 0; first + chunk <= V; first += 397) {
        std::vector<glm::vec3> p(chunk), n(chunk);
        decode_vertices(v, pose, first, p, n);
        ASSERT_EQ(std::memcmp(p.data(), all.data() + first, chunk * sizeof(glm::vec3)), 0) << chunk << " at " << first;
        ASSERT_EQ(std::memcmp(n.data(), normals.data() + first, chunk * sizeof(glm::vec3)), 0)
            << chunk << " at " << first;
      }
    }
  }
}

// Rig normals and tangents come out of the blended slot matrices as the reference skinner's do.
TEST(DecodeVertices, RigNormalsAndTangentsFollowTheReference) {
  for (const char* f : {"khronos/CesiumMan.glb", "quaternius/knight/KnightCharacter.glb"}) {
    const Asset& a = shared_asset(f);
    const Vat v = bake_ok(a, options_for(EncodingChoice::Rig, Precision::F32, 10.0f));
    test::Reference ref(a);
    for (uint32_t c = 0; c < v.clips.size(); c += 3) {
      const uint32_t k = v.clips[c].rows / 2;
      ref.at(v.clips[c].source_animation, test::row_time(v.clips[c], k));
      std::vector<glm::vec3> n;
      test::decode_all(v, single(RowBlend{c, v.clips[c].first_row + k, v.clips[c].first_row + k, 0.0f}), &n);
      float worst = 0.0f;
      for (size_t i = 0; i < n.size(); ++i) worst = std::max(worst, angle_deg(n[i], ref.normals[i]));
      EXPECT_LT(worst, 0.01f) << f << " clip " << v.clips[c].name;
    }
  }
  // Tangents (and their w), through a rig and a delta.
  const Asset a = spinner();
  for (EncodingChoice e : {EncodingChoice::Rig, EncodingChoice::Delta}) {
    const Vat v = bake_ok(a, options_for(e, Precision::F32, 12.0f));
    SceneEvaluator ev(a);
    std::vector<glm::vec3> p(3), n(3);
    std::vector<glm::vec4> t(3), dt(3);
    ev.pose(0, test::row_time(v.clips[0], 5));
    ev.skin(p, n, t);
    decode_vertices(v, single(RowBlend{0, 5, 5, 0.0f}), 0, {}, {}, dt);
    for (int i = 0; i < 3; ++i) {
      EXPECT_LT(glm::length(glm::vec3(dt[i]) - glm::vec3(t[i])), 1e-5f);
      EXPECT_EQ(dt[i].w, -1.0f);
    }
  }
}

// Eight influences: the second set of slots and weights is used.
TEST(DecodeVertices, EightInfluences) {
  const Asset a = test::eight_influence_asset();
  const Vat v = bake_ok(a, options_for(EncodingChoice::Rig, Precision::F32, 10.0f));
  ASSERT_EQ(v.geometry.slots1.size(), 3u);
  const auto err = test::measure_ok(a, v);
  EXPECT_LT(err[0].on_rows_max_mm, 1e-3f);
  EXPECT_GT(v.clips[0].max_delta, 0.1f);
}

// Sockets: the world matrix of every joint, from either encoding, is the reference's.
TEST(DecodeSockets, JointWorldMatricesMatchTheReferenceInBothEncodings) {
  for (const char* f :
       {"threejs/RobotExpressive.glb", "quaternius/platformer/Character.glb", "khronos/CesiumMan.glb"}) {
    const Asset& a = shared_asset(f);
    for (EncodingChoice e : {EncodingChoice::Delta, EncodingChoice::Rig}) {
      const Vat v = bake_ok(a, options_for(e, Precision::F32, 10.0f));
      SceneEvaluator ev(a);
      float size = 1e-3f;
      for (const glm::vec3& p : v.geometry.positions) size = std::max(size, glm::length(p));
      for (const Skin& skin : a.skins) {
        for (uint32_t joint : skin.joints) {
          const int slot = find_slot(v, int32_t(joint));
          ASSERT_GE(slot, 0) << f << " joint " << a.nodes[joint].name;
          for (uint32_t c = 0; c < v.clips.size(); c += 5) {
            const uint32_t k = v.clips[c].rows / 3;
            ev.pose(v.clips[c].source_animation, test::row_time(v.clips[c], k));
            const glm::mat4 want = ev.world()[joint];
            const glm::mat4 got = decode_joint_world(
                v, single(RowBlend{c, v.clips[c].first_row + k, v.clips[c].first_row + k, 0.0f}), uint32_t(slot));
            for (int col = 0; col < 4; ++col) {
              const float tol = col == 3 ? 1e-5f * size : 1e-4f * glm::length(glm::vec3(want[col]));
              ASSERT_LT(glm::length(glm::vec3(got[col] - want[col])), tol + 1e-6f)
                  << f << " " << to_string(v.encoding) << " joint " << a.nodes[joint].name << " column " << col;
            }
          }
        }
      }
    }
  }
}

TEST(DecodeTexels, ReadTexelGivesLogicalValuesWhereverTheyAreStored) {
  const Asset& a = shared_asset("khronos/CesiumMan.glb");
  const Vat f = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F32, 10.0f));
  const Vat q = bake_ok(a, options_for(EncodingChoice::Delta, Precision::Q16, 10.0f));
  EXPECT_EQ(q.plane(PlaneSemantic::Normal), nullptr);  // packed into Position.w
  for (uint32_t row : {0u, 7u, 20u}) {
    for (uint32_t vtx : {0u, 100u, 3000u}) {
      const glm::vec4 nf = read_texel(f, PlaneSemantic::Normal, row, vtx);
      const glm::vec4 nq = read_texel(q, PlaneSemantic::Normal, row, vtx);
      EXPECT_LT(angle_deg(glm::vec3(nf), glm::vec3(nq)), 0.7f);
      EXPECT_NEAR(glm::length(glm::vec3(nq)), 1.0f, 1e-6f);
      const glm::vec4 pf = read_texel(f, PlaneSemantic::Position, row, vtx);
      const glm::vec4 pq = read_texel(q, PlaneSemantic::Position, row, vtx);
      EXPECT_LT(glm::length(glm::vec3(pf - pq)), 1e-4f);
      EXPECT_EQ(pq.w, 0.0f);
    }
  }
}

}  // namespace
}  // namespace vatkit

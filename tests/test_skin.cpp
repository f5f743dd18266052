// The reference skinner's kernels (skin.h) on hand-built data, every expectation worked by hand:
// morph targets, joint matrices, 4 and 8 influences, weights that do not sum to 1 or sum to 0,
// normals under non-uniform and negative scale, tangents, rigid transforms.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "simd/simd.h"
#include "vatkit/scene.h"
#include "vatkit/skin.h"

namespace vatkit {
namespace {

constexpr float kEps = 1e-5f;

// The kernel widths this CPU runs: the scalar twins (1), 4 lanes always, 8 where it has AVX2, 16
// where it has AVX-512 (simd.h). The batch tests run under each, forced, so a kernel that rounds
// differently from its scalar twin fails here.
std::vector<unsigned> widths() { return detail::simd_widths(); }
struct ForcedWidth {
  explicit ForcedWidth(unsigned lanes) { detail::force_simd_lanes(lanes); }
  ~ForcedWidth() { detail::force_simd_lanes(0); }
};

void expect_vec(const glm::vec3& got, const glm::vec3& want, float eps = kEps) {
  EXPECT_NEAR(got.x, want.x, eps);
  EXPECT_NEAR(got.y, want.y, eps);
  EXPECT_NEAR(got.z, want.z, eps);
}

glm::mat4 translate(float x, float y, float z) { return glm::translate(glm::mat4(1.0f), {x, y, z}); }
glm::mat4 scale(float x, float y, float z) { return glm::scale(glm::mat4(1.0f), {x, y, z}); }
glm::mat4 rot_z(float deg) { return glm::rotate(glm::mat4(1.0f), glm::radians(deg), {0, 0, 1}); }
glm::mat4 rot_x(float deg) { return glm::rotate(glm::mat4(1.0f), glm::radians(deg), {1, 0, 0}); }

// Skins one vertex with 4 influences.
struct One {
  glm::vec3 position{0.0f}, normal{0.0f};
  glm::vec4 tangent{0.0f};
};
One skin_one(glm::vec3 p, glm::vec3 n, glm::vec4 t, glm::u16vec4 joints, glm::vec4 weights,
             const std::vector<glm::mat4>& jm, const glm::mat4& fallback = glm::mat4(1.0f)) {
  One out;
  skin_vertices(VertexSpan{{&p, 1}, {&n, 1}, {&t, 1}}, std::span(&joints, 1), std::span(&weights, 1), {}, {}, jm,
                fallback, VertexOutput{{&out.position, 1}, {&out.normal, 1}, {&out.tangent, 1}});
  return out;
}

TEST(SkinMorph, AddsWeightedDeltasToEveryStream) {
  Primitive p;
  p.positions = {{0, 0, 0}, {1, 0, 0}};
  p.normals = {{0, 0, 1}, {0, 0, 1}};
  p.tangents = {{1, 0, 0, -1}, {1, 0, 0, 1}};
  p.targets.resize(3);
  p.targets[0].positions = {{0, 1, 0}, {0, 2, 0}};
  p.targets[0].normals = {{0, 1, 0}, {0, 0, 0}};
  p.targets[0].tangents = {{0, 0, 1}, {0, 0, 0}};
  p.targets[1].positions = {{1, 0, 0}, {0, 0, 4}};  // no normal or tangent deltas
  p.targets[2].positions = {{9, 9, 9}, {9, 9, 9}};  // weight 0: contributes nothing
  const std::vector<float> w = {0.5f, -1.0f, 0.0f};
  std::vector<glm::vec3> pos(2), nrm(2);
  std::vector<glm::vec4> tan(2);
  apply_morph_targets(p, w, VertexOutput{pos, nrm, tan});
  // Vertex 0: (0,0,0) + 0.5 (0,1,0) - (1,0,0); vertex 1: (1,0,0) + 0.5 (0,2,0) - (0,0,4).
  expect_vec(pos[0], {-1.0f, 0.5f, 0.0f});
  expect_vec(pos[1], {1.0f, 1.0f, -4.0f});
  // Normals and tangents are not renormalized here (the skinner does it); tangent w is kept.
  expect_vec(nrm[0], {0.0f, 0.5f, 1.0f});
  expect_vec(nrm[1], {0.0f, 0.0f, 1.0f});
  EXPECT_EQ(tan[0], glm::vec4(1.0f, 0.0f, 0.5f, -1.0f));
  EXPECT_EQ(tan[1], glm::vec4(1.0f, 0.0f, 0.0f, 1.0f));

  // Only the named streams are written; zero weights give the base exactly.
  std::vector<glm::vec3> pos_only(2, glm::vec3(7.0f));
  apply_morph_targets(p, std::vector<float>{0, 0, 0}, VertexOutput{pos_only, {}, {}});
  EXPECT_EQ(pos_only[0], p.positions[0]);
  EXPECT_EQ(pos_only[1], p.positions[1]);
}

TEST(SkinJointMatrices, WorldOfTheJointTimesInverseBind) {
  Skin skin;
  skin.joints = {2, 0};
  skin.inverse_bind = {translate(0, -1, 0), scale(0.5f, 0.5f, 0.5f)};
  std::vector<glm::mat4> world = {translate(5, 0, 0), glm::mat4(1.0f), rot_z(90)};
  std::vector<glm::mat4> out(2);
  compute_joint_matrices(skin, world, out);
  // Joint 0 = rot_z(90) * translate(0,-1,0): (1,1,0) -> (1,0,0) -> (0,1,0).
  expect_vec(glm::vec3(out[0] * glm::vec4(1, 1, 0, 1)), {0, 1, 0});
  // Joint 1 = translate(5,0,0) * scale(0.5): (2,2,2) -> (1,1,1) -> (6,1,1).
  expect_vec(glm::vec3(out[1] * glm::vec4(2, 2, 2, 1)), {6, 1, 1});
}

TEST(SkinFourInfluences, BlendsTheJointMatrices) {
  const std::vector<glm::mat4> jm = {translate(1, 0, 0), translate(0, 2, 0), translate(0, 0, 4), rot_z(90)};
  // 0.5 (p + (1,0,0)) + 0.25 (p + (0,2,0)) + 0.125 (p + (0,0,4)) + 0.125 rot90(p), p = (1,0,0),
  // per axis:
  //   x = 0.5 * 2 + 0.25 * 1 + 0.125 * 1 + 0.125 * 0 = 1.375
  //   y = 0.5 * 0 + 0.25 * 2 + 0.125 * 0 + 0.125 * 1 = 0.625
  //   z = 0.125 * 4 = 0.5
  const One o = skin_one({1, 0, 0}, {0, 0, 1}, {1, 0, 0, 1}, {0, 1, 2, 3}, {0.5f, 0.25f, 0.125f, 0.125f}, jm);
  expect_vec(o.position, {1.375f, 0.625f, 0.5f});
  // Translations and a rotation about z leave +z normals alone.
  expect_vec(o.normal, {0, 0, 1});
}

TEST(SkinEightInfluences, UsesJointsAndWeightsOne) {
  std::vector<glm::mat4> jm;
  for (int i = 0; i < 8; ++i) jm.push_back(translate(float(i + 1), float(10 * (i + 1)), 0.0f));
  const glm::vec3 p(0.0f, 0.0f, 1.0f);
  const glm::vec3 n(0.0f, 1.0f, 0.0f);
  // Joint order scrambled to check each set indexes its own matrices.
  const glm::u16vec4 j0(7, 6, 5, 4), j1(3, 2, 1, 0);
  const glm::vec4 w0(0.05f, 0.05f, 0.1f, 0.1f), w1(0.1f, 0.1f, 0.2f, 0.3f);
  glm::vec3 out_p, out_n;
  skin_vertices(VertexSpan{{&p, 1}, {&n, 1}, {}}, std::span(&j0, 1), std::span(&w0, 1), std::span(&j1, 1),
                std::span(&w1, 1), jm, glm::mat4(1.0f), VertexOutput{{&out_p, 1}, {&out_n, 1}, {}});
  // sum w_i (i+1) over joints 7..0 with the weights above:
  //   0.05*8 + 0.05*7 + 0.1*6 + 0.1*5 + 0.1*4 + 0.1*3 + 0.2*2 + 0.3*1 = 3.25
  expect_vec(out_p, {3.25f, 32.5f, 1.0f});
  expect_vec(out_n, {0, 1, 0});
}

TEST(SkinWeights, RenormalizedWhenTheSumIsNotOne) {
  const std::vector<glm::mat4> jm = {translate(2, 0, 0), translate(0, 4, 0)};
  // (1, 1) sums to 2: each becomes 0.5 -> p + (1, 2, 0). Real files have sums of 0.18 and 1.76.
  expect_vec(skin_one({0, 0, 0}, {0, 0, 1}, {}, {0, 1, 0, 0}, {1, 1, 0, 0}, jm).position, {1, 2, 0});
  // 0.09 + 0.09 = 0.18: the same blend.
  expect_vec(skin_one({0, 0, 0}, {0, 0, 1}, {}, {0, 1, 0, 0}, {0.09f, 0.09f, 0, 0}, jm).position, {1, 2, 0});
  // 1.32 + 0.44 = 1.76: 0.75 / 0.25 -> (1.5, 1, 0).
  expect_vec(skin_one({0, 0, 0}, {0, 0, 1}, {}, {0, 1, 0, 0}, {1.32f, 0.44f, 0, 0}, jm).position, {1.5f, 1, 0});
}

TEST(SkinWeights, ZeroSumTakesTheFallbackMatrix) {
  const std::vector<glm::mat4> jm = {translate(2, 0, 0)};
  const glm::mat4 fallback = translate(10, 0, 0) * rot_z(90);
  const One o = skin_one({1, 0, 0}, {1, 0, 0}, {1, 0, 0, -1}, {0, 0, 0, 0}, {0, 0, 0, 0}, jm, fallback);
  expect_vec(o.position, {10, 1, 0});
  expect_vec(o.normal, {0, 1, 0});
  EXPECT_NEAR(o.tangent.y, 1.0f, kEps);
  EXPECT_EQ(o.tangent.w, -1.0f);
}

TEST(SkinNormals, InverseTransposeOfTheBlendedMatrixUnderNonUniformScale) {
  // Half-and-half blend of scale(2,1,1) and scale(4,1,1) is scale(3,1,1). The plane x + y = 1
  // (normal (1,1,0)/sqrt2) becomes x/3 + y = 1, normal (1,3,0)/sqrt10. Blending the two
  // separately transformed normals would give a different direction.
  const std::vector<glm::mat4> jm = {scale(2, 1, 1), scale(4, 1, 1)};
  const float r2 = std::sqrt(0.5f);
  const One o = skin_one({0.5f, 0.5f, 0}, {r2, r2, 0}, {r2, -r2, 0, 1}, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, jm);
  expect_vec(o.position, {1.5f, 0.5f, 0});
  expect_vec(o.normal, glm::vec3(1, 3, 0) / std::sqrt(10.0f));
  // The tangent (1,-1,0)/sqrt2 lies in the surface; it goes by the matrix: (3,-1,0)/sqrt10.
  expect_vec(glm::vec3(o.tangent), glm::vec3(3, -1, 0) / std::sqrt(10.0f));
  EXPECT_EQ(o.tangent.w, 1.0f);
  // The skinned tangent is still perpendicular to the skinned normal.
  EXPECT_NEAR(glm::dot(o.normal, glm::vec3(o.tangent)), 0.0f, kEps);
}

TEST(SkinNormals, NegativeDeterminantKeepsNormalsFacingOut) {
  // Mirror in x: the face x = 1 with outward normal +x maps to x = -1, outward normal -x. The
  // cofactor matrix alone (det * inverse transpose, det = -1) would point it inward.
  const std::vector<glm::mat4> jm = {scale(-1, 1, 1)};
  const One a = skin_one({1, 0, 0}, {1, 0, 0}, {0, 1, 0, 1}, {0, 0, 0, 0}, {1, 0, 0, 0}, jm);
  expect_vec(a.position, {-1, 0, 0});
  expect_vec(a.normal, {-1, 0, 0});
  expect_vec(glm::vec3(a.tangent), {0, 1, 0});
  EXPECT_EQ(a.tangent.w, 1.0f);  // w is kept as the header promises
  // Mirror plus rotation plus non-uniform scale: M = rot_z(90) * scale(-2, 1, 1).
  // Face y = 1 (normal +y) -> points (x, 1) -> rot90(-2x, 1) = (-1, -2x): the face x = -1,
  // whose outward side (away from the origin) is -x.
  const std::vector<glm::mat4> jm2 = {rot_z(90) * scale(-2, 1, 1)};
  const One b = skin_one({0, 1, 0}, {0, 1, 0}, {}, {0, 0, 0, 0}, {1, 0, 0, 0}, jm2);
  expect_vec(b.position, {-1, 0, 0});
  expect_vec(b.normal, {-1, 0, 0});
}

TEST(SkinNormals, CollapsedTransformPassesTheInputThrough) {
  // A joint scaled to 0 (InterpolationTest scales its cubes to 0) has no normal direction to
  // give: the input normal and tangent pass through, unit length, never NaN.
  const std::vector<glm::mat4> jm = {translate(1, 2, 3) * scale(0, 0, 0)};
  const One o = skin_one({5, 5, 5}, {0, 0, 2}, {3, 0, 0, -1}, {0, 0, 0, 0}, {1, 0, 0, 0}, jm);
  expect_vec(o.position, {1, 2, 3});
  expect_vec(o.normal, {0, 0, 1});
  EXPECT_EQ(o.tangent, glm::vec4(1, 0, 0, -1));
  // Rank 2 (flattened in z): the surviving direction is still exact for a +z normal.
  const std::vector<glm::mat4> flat = {scale(1, 1, 0)};
  expect_vec(skin_one({0, 0, 0}, {0, 0, 1}, {}, {0, 0, 0, 0}, {1, 0, 0, 0}, flat).normal, {0, 0, 1});
}

// Skins one vertex with 8 influences (its single-vertex call takes the padded 4-lane block).
One skin_one8(glm::vec3 p, glm::vec3 n, glm::vec4 t, glm::u16vec4 j0, glm::vec4 w0, glm::u16vec4 j1, glm::vec4 w1,
              const std::vector<glm::mat4>& jm, const glm::mat4& fallback) {
  One out;
  skin_vertices(VertexSpan{{&p, 1}, {&n, 1}, {&t, 1}}, std::span(&j0, 1), std::span(&w0, 1), std::span(&j1, 1),
                std::span(&w1, 1), jm, fallback, VertexOutput{{&out.position, 1}, {&out.normal, 1}, {&out.tangent, 1}});
  return out;
}

TEST(SkinBatch, ManyVerticesMatchOneAtATimeAndSkipEmptyStreams) {
  // Every element of the blended matrices non-zero (rotations about two axes), so a kernel that
  // sums in another order rounds differently somewhere.
  std::vector<glm::mat4> jm = {rot_x(25) * rot_z(30) * scale(1, 2, 3), translate(1, 2, 3) * rot_z(-70) * rot_x(-40),
                               scale(-1, 1, 1) * rot_x(10), translate(0.3f, -0.7f, 1)};
  const size_t n = 1003;  // blocks of 4, 8 and 16, and tails of 3 and 11
  std::vector<glm::vec3> p(n), nrm(n);
  std::vector<glm::vec4> t(n), w(n), w1(n);
  std::vector<glm::u16vec4> j(n), j1(n);
  for (size_t i = 0; i < n; ++i) {
    const float f = float(i);
    p[i] = {std::sin(f), std::cos(f * 0.3f), f * 0.01f};
    nrm[i] = glm::normalize(glm::vec3(std::cos(f), 1.0f, std::sin(f * 0.7f)));
    t[i] = {glm::normalize(glm::vec3(1.0f, std::sin(f), 0.2f)), (i % 2) ? 1.0f : -1.0f};
    j[i] = {uint16_t(i % 4), uint16_t((i + 1) % 4), uint16_t((i + 2) % 4), uint16_t((i + 3) % 4)};
    w[i] = {float(i % 5), float(i % 3), float(i % 7) * 0.1f, (i % 11 == 0) ? 0.0f : 0.5f};
    j1[i] = {uint16_t((i + 2) % 4), uint16_t(i % 4), uint16_t((i + 3) % 4), uint16_t((i + 1) % 4)};
    w1[i] = {(i % 13 == 0) ? 0.0f : 0.25f, float(i % 2), 0.0f, float(i % 3) * 0.3f};
  }
  const glm::mat4 fallback = translate(0, 9, 0);
  for (unsigned lanes : widths()) {
    SCOPED_TRACE(std::to_string(lanes) + " lanes");
    const ForcedWidth forced(lanes);
    std::vector<glm::vec3> op(n), on(n);
    std::vector<glm::vec4> ot(n);
    skin_vertices(VertexSpan{p, nrm, t}, j, w, {}, {}, jm, fallback, VertexOutput{op, on, ot});
    for (size_t i = 0; i < n; ++i) {
      const One o = skin_one(p[i], nrm[i], t[i], j[i], w[i], jm, fallback);
      ASSERT_EQ(std::memcmp(&o.position, &op[i], sizeof(glm::vec3)), 0) << i;
      ASSERT_EQ(std::memcmp(&o.normal, &on[i], sizeof(glm::vec3)), 0) << i;
      ASSERT_EQ(std::memcmp(&o.tangent, &ot[i], sizeof(glm::vec4)), 0) << i;
      EXPECT_NEAR(glm::length(on[i]), 1.0f, 1e-6f);
      EXPECT_NEAR(glm::length(glm::vec3(ot[i])), 1.0f, 1e-6f);
    }
    // Eight influences.
    skin_vertices(VertexSpan{p, nrm, t}, j, w, j1, w1, jm, fallback, VertexOutput{op, on, ot});
    for (size_t i = 0; i < n; ++i) {
      const One o = skin_one8(p[i], nrm[i], t[i], j[i], w[i], j1[i], w1[i], jm, fallback);
      ASSERT_EQ(std::memcmp(&o.position, &op[i], sizeof(glm::vec3)), 0) << i;
      ASSERT_EQ(std::memcmp(&o.normal, &on[i], sizeof(glm::vec3)), 0) << i;
      ASSERT_EQ(std::memcmp(&o.tangent, &ot[i], sizeof(glm::vec4)), 0) << i;
    }
    // Positions only: normals and tangents untouched.
    skin_vertices(VertexSpan{p, nrm, t}, j, w, {}, {}, jm, fallback, VertexOutput{op, on, ot});
    std::vector<glm::vec3> op2(n), on2(n, glm::vec3(-3.0f));
    skin_vertices(VertexSpan{p, nrm, t}, j, w, {}, {}, jm, fallback, VertexOutput{op2, {}, {}});
    EXPECT_EQ(std::memcmp(op.data(), op2.data(), n * sizeof(glm::vec3)), 0);
    EXPECT_EQ(on2[0], glm::vec3(-3.0f));
  }
}

// One vertex of a rigid part, written out in float as skin.h specifies it (position M p; normal
// along cofactor(M) n, signed by det M, normalized; tangent M t normalized, w kept; a collapsed
// normal or tangent keeps its input direction), summed in the same order.
One rigid_one(const glm::mat4& m, glm::vec3 p, glm::vec3 n, glm::vec4 t) {
  auto unit_or = [](float x, float y, float z, glm::vec3 in) {
    float len2 = x * x + y * y + z * z;
    if (!(len2 >= FLT_MIN)) {
      x = in.x, y = in.y, z = in.z;
      len2 = x * x + y * y + z * z;
    }
    const float inv = 1.0f / std::sqrt(len2);
    return glm::vec3(x * inv, y * inv, z * inv);
  };
  const glm::vec4 a0 = m[0], a1 = m[1], a2 = m[2], a3 = m[3];
  One o;
  for (int r = 0; r < 3; ++r) o.position[r] = a0[r] * p.x + a1[r] * p.y + a2[r] * p.z + a3[r];
  const float c[9] = {a1[1] * a2[2] - a1[2] * a2[1], a1[2] * a2[0] - a1[0] * a2[2], a1[0] * a2[1] - a1[1] * a2[0],
                      a2[1] * a0[2] - a2[2] * a0[1], a2[2] * a0[0] - a2[0] * a0[2], a2[0] * a0[1] - a2[1] * a0[0],
                      a0[1] * a1[2] - a0[2] * a1[1], a0[2] * a1[0] - a0[0] * a1[2], a0[0] * a1[1] - a0[1] * a1[0]};
  const float sign = a0[0] * c[0] + a0[1] * c[1] + a0[2] * c[2] < 0.0f ? -1.0f : 1.0f;
  o.normal = unit_or(sign * (c[0] * n.x + c[3] * n.y + c[6] * n.z), sign * (c[1] * n.x + c[4] * n.y + c[7] * n.z),
                     sign * (c[2] * n.x + c[5] * n.y + c[8] * n.z), n);
  const glm::vec3 d = unit_or(a0[0] * t.x + a1[0] * t.y + a2[0] * t.z, a0[1] * t.x + a1[1] * t.y + a2[1] * t.z,
                              a0[2] * t.x + a1[2] * t.y + a2[2] * t.z, glm::vec3(t));
  o.tangent = glm::vec4(d, t.w);
  return o;
}

// Rigid parts run four (or, with AVX2, eight; with AVX-512, sixteen) vertices at a time where the
// CPU has SSE: every count, each tail length included, must give the bits of the formula worked
// one vertex at a time.
TEST(SkinTransform, BlocksOfFourMatchOneVertexAtATime) {
  const std::vector<glm::mat4> matrices = {translate(1, 2, 3) * rot_z(37) * rot_x(-29) * scale(2, 0.5f, 1),
                                           rot_z(-20) * scale(-1, 1, 1),          // negative determinant
                                           translate(0, 1, 0) * scale(0, 1, 1)};  // collapsed axis
  for (unsigned lanes : widths())
    for (const glm::mat4& m : matrices) {
      const ForcedWidth forced(lanes);
      for (size_t n = 1; n <= 19; ++n) {
        std::vector<glm::vec3> p(n), nrm(n);
        std::vector<glm::vec4> t(n);
        for (size_t i = 0; i < n; ++i) {
          const float f = float(i) * 0.61f;
          p[i] = {std::sin(f), float(i) * 0.1f, std::cos(f * 1.3f)};
          nrm[i] = i == 2 ? glm::vec3(1, 0, 0) : glm::normalize(glm::vec3(std::cos(f), 1.0f, std::sin(f * 0.7f)));
          t[i] = {glm::normalize(glm::vec3(1.0f, std::sin(f), 0.2f)), (i % 2) ? 1.0f : -1.0f};
        }
        std::vector<glm::vec3> op(n), on(n);
        std::vector<glm::vec4> ot(n);
        transform_vertices(VertexSpan{p, nrm, t}, m, VertexOutput{op, on, ot});
        for (size_t i = 0; i < n; ++i) {
          const One o = rigid_one(m, p[i], nrm[i], t[i]);
          SCOPED_TRACE(std::to_string(lanes) + " lanes, count " + std::to_string(n) + " vertex " + std::to_string(i));
          ASSERT_EQ(std::memcmp(&o.position, &op[i], sizeof(glm::vec3)), 0);
          ASSERT_EQ(std::memcmp(&o.normal, &on[i], sizeof(glm::vec3)), 0);
          ASSERT_EQ(std::memcmp(&o.tangent, &ot[i], sizeof(glm::vec4)), 0);
        }
      }
    }
}

TEST(SkinTransform, RigidMatrixWithNonUniformScale) {
  const glm::mat4 m = translate(1, 0, 0) * rot_z(90) * scale(2, 1, 1);
  const float r2 = std::sqrt(0.5f);
  const std::vector<glm::vec3> p = {{1, 0, 0}, {0.5f, 0.5f, 0}};
  const std::vector<glm::vec3> n = {{1, 0, 0}, {r2, r2, 0}};
  const std::vector<glm::vec4> t = {{0, 1, 0, -1}, {r2, -r2, 0, 1}};
  std::vector<glm::vec3> op(2), on(2);
  std::vector<glm::vec4> ot(2);
  transform_vertices(VertexSpan{p, n, t}, m, VertexOutput{op, on, ot});
  // (1,0,0): scale -> (2,0,0), rot -> (0,2,0), translate -> (1,2,0).
  expect_vec(op[0], {1, 2, 0});
  // Normal +x of a face x = const stays that face's normal: rot90(+x) = +y.
  expect_vec(on[0], {0, 1, 0});
  // Tangent +y: scale leaves it, rot90 -> -x; w kept.
  expect_vec(glm::vec3(ot[0]), {-1, 0, 0});
  EXPECT_EQ(ot[0].w, -1.0f);
  // Normal (1,1,0)/sqrt2 under scale(2,1,1) -> (1,2,0)/sqrt5, then rot90 -> (-2,1,0)/sqrt5.
  expect_vec(on[1], glm::vec3(-2, 1, 0) / std::sqrt(5.0f));
  // Tangent (1,-1,0)/sqrt2 -> (2,-1,0)/sqrt5 -> rot90 -> (1,2,0)/sqrt5.
  expect_vec(glm::vec3(ot[1]), glm::vec3(1, 2, 0) / std::sqrt(5.0f));
}

}  // namespace
}  // namespace vatkit

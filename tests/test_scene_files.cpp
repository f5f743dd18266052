// The scene evaluator on the real files. Hand-worked: SimpleSkin (the glTF tutorial's skinning
// chapter), RiggedSimple (its rest pose is the Z_UP turn of the mesh; posed, the joint matrices
// rebuilt from the file's own nodes, keys and inverse bind matrices), SimpleMorph and
// AnimatedMorphCube (morph weights by hand). Then every file of ../shared/assets, every clip,
// at several times: finite, unit normals, sane bounds, thread count without effect.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_probe.h"
#include "test_support.h"
#include "vatkit/import.h"
#include "vatkit/scene.h"

namespace vatkit {
namespace {

using test::GltfProbe;

Asset load(const std::string& relative) {
  auto r = import_gltf(test::asset_path(relative));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : Asset{};
}

const MeshInstance* instance_of_node(const Asset& a, uint32_t node) {
  for (const auto& inst : a.instances) {
    if (inst.node == node) return &inst;
  }
  return nullptr;
}

void expect_near(const glm::vec3& got, const glm::dvec3& want, double eps, const std::string& what) {
  EXPECT_NEAR(got.x, want.x, eps) << what;
  EXPECT_NEAR(got.y, want.y, eps) << what;
  EXPECT_NEAR(got.z, want.z, eps) << what;
}

// SimpleSkin: a 1 x 2 strip of 10 vertices at x = -0.5, 0.5 and y = 0, 0.5, ..., 2. Joint 0 sits
// at the origin, joint 1 at (0, 1) (inverse bind: translate(0, -1, 0)); the weights of joint 1
// are 0, 0.25, 0.5, 0.75, 1 by row. Joint 1 turns by theta about z, so vertex p goes to
//   (1 - w) p + w (R(theta) (p - (0,1)) + (0,1)).
// The keys are rotations about z: 0, (0.383, 0.924) ~ 45.02 degrees, (0.707, 0.707) = 90, ...
TEST(SceneSimpleSkin, TutorialSkinningByHand) {
  const Asset a = load("khronos/SimpleSkin.gltf");
  ASSERT_EQ(a.animations.size(), 1u);
  const MeshInstance* inst = instance_of_node(a, 0);
  ASSERT_NE(inst, nullptr);
  const Primitive& prim = a.meshes[inst->mesh].primitives[inst->primitive];
  ASSERT_EQ(prim.source_vertex_count, 10u);
  const double key45 = 2.0 * std::atan2(0.383, 0.924);  // the file's second key, in radians
  struct Case {
    float t;
    double theta;
  } cases[] = {
      {0.0f, 0.0},        {0.25f, key45 / 2},                // slerp halfway from 0 to the 45-degree key
      {0.5f, key45},      {1.0f, M_PI / 2},                  // (0.707, 0.707): exactly 90 degrees once normalized
      {1.25f, M_PI / 2},                                     // between two equal keys
      {2.25f, key45 / 2},                                    // halfway from 45 back to 0
      {4.0f, -M_PI / 2},  {5.5f, 0.0},        {-1.0f, 0.0},  // before the first key
      {9.0f, 0.0},                                           // after the last
  };
  SceneEvaluator ev(a);
  std::vector<glm::vec3> pos(a.instance_vertex_count), nrm(a.instance_vertex_count);
  for (const Case& c : cases) {
    ev.pose(0, c.t);
    ev.skin(pos, nrm);
    for (uint32_t v = 0; v < 10; ++v) {
      const double x = (v % 2) ? 0.5 : -0.5, y = 0.5 * (v / 2);
      const double w = 0.25 * (v / 2);
      const double rx = x, ry = y - 1.0;
      const double jx = std::cos(c.theta) * rx - std::sin(c.theta) * ry;
      const double jy = std::sin(c.theta) * rx + std::cos(c.theta) * ry + 1.0;
      expect_near(pos[inst->first_vertex + v], {(1 - w) * x + w * jx, (1 - w) * y + w * jy, 0.0}, 1e-5,
                  "t=" + std::to_string(c.t) + " vertex " + std::to_string(v));
    }
    // The strip stays in the z = 0 plane: every normal (generated flat) is +-z.
    for (uint32_t v = 0; v < inst->vertex_count; ++v) {
      EXPECT_NEAR(std::abs(nrm[inst->first_vertex + v].z), 1.0f, 1e-6f);
    }
  }
}

glm::dmat4 node_matrix(const nlohmann::json& node) {
  glm::dmat4 m(1.0);
  if (node.contains("matrix")) {
    for (int i = 0; i < 16; ++i) m[i / 4][i % 4] = node["matrix"][size_t(i)].get<double>();
    return m;
  }
  glm::dvec3 t(0.0), s(1.0);
  glm::dquat q(1, 0, 0, 0);
  if (node.contains("translation")) t = {node["translation"][0], node["translation"][1], node["translation"][2]};
  if (node.contains("scale")) s = {node["scale"][0], node["scale"][1], node["scale"][2]};
  if (node.contains("rotation"))
    q = glm::dquat(node["rotation"][3], node["rotation"][0], node["rotation"][1], node["rotation"][2]);
  return glm::translate(glm::dmat4(1.0), t) * glm::mat4_cast(glm::normalize(q)) * glm::scale(glm::dmat4(1.0), s);
}

// RiggedSimple: Z_UP (node 0) > Armature (1) > Bone (3) > Bone.001 (4), and the skinned
// Cylinder (2) under Armature. Both inverse bind matrices undo Armature * Bone (* Bone.001), so
// at rest every joint matrix is Z_UP alone: (x, y, z) -> (x, z, -y), whatever the Cylinder's
// own parents say. Posed, joint 1 = Z_UP * Armature * Bone * TRS(Bone.001 at t) * IBM1, built
// here in double precision from the file's JSON and keys.
TEST(SceneRiggedSimple, RestIsTheZUpTurnAndPosesFollowTheJointsNotTheMeshNode) {
  const Asset a = load("khronos/RiggedSimple.glb");
  const GltfProbe probe = GltfProbe::load(test::asset_path("khronos/RiggedSimple.glb"));
  const auto& nodes = probe.json["nodes"];
  ASSERT_EQ(nodes[2]["name"], "Cylinder");
  const MeshInstance* inst = instance_of_node(a, 2);
  ASSERT_NE(inst, nullptr);
  const auto& prim_json = probe.json["meshes"][0]["primitives"][0];
  const auto positions = probe.read(prim_json["attributes"]["POSITION"]);
  const auto normals = probe.read(prim_json["attributes"]["NORMAL"]);
  const auto joints = probe.read(prim_json["attributes"]["JOINTS_0"]);
  const auto weights = probe.read(prim_json["attributes"]["WEIGHTS_0"]);
  const auto ibm_values = probe.read(probe.json["skins"][0]["inverseBindMatrices"]);
  const size_t n = positions.size() / 3;
  ASSERT_EQ(n, 160u);
  ASSERT_EQ(inst->vertex_count, n);
  glm::dmat4 ibm[2];
  for (int j = 0; j < 2; ++j) {
    for (int i = 0; i < 16; ++i) ibm[j][i / 4][i % 4] = ibm_values[size_t(16 * j + i)];
  }
  const glm::dmat4 to_bone = node_matrix(nodes[0]) * node_matrix(nodes[1]) * node_matrix(nodes[3]);

  SceneEvaluator ev(a);
  std::vector<glm::vec3> pos(a.instance_vertex_count), nrm(a.instance_vertex_count);
  ev.pose(-1, 0.0f);
  ev.skin(pos, nrm);
  for (size_t v = 0; v < n; ++v) {
    const double x = positions[3 * v], y = positions[3 * v + 1], z = positions[3 * v + 2];
    expect_near(pos[inst->first_vertex + v], {x, z, -y}, 2e-4, "rest vertex " + std::to_string(v));
    const double nx = normals[3 * v], ny = normals[3 * v + 1], nz = normals[3 * v + 2];
    expect_near(nrm[inst->first_vertex + v], glm::dvec3(nx, nz, -ny) / std::sqrt(nx * nx + ny * ny + nz * nz), 1e-4,
                "rest normal " + std::to_string(v));
  }

  // Bone.001's channels (translation, rotation, scale) share 50 key times.
  const auto& anim = probe.json["animations"][0];
  std::vector<double> times;
  std::vector<double> values[3];  // translation, rotation, scale
  for (const auto& ch : anim["channels"]) {
    ASSERT_EQ(ch["target"]["node"], 4);
    const auto& s = anim["samplers"][ch["sampler"].get<size_t>()];
    ASSERT_EQ(s["interpolation"], "LINEAR");
    times = probe.read(s["input"]);
    const std::string path = ch["target"]["path"];
    values[path == "translation" ? 0 : path == "rotation" ? 1 : 2] = probe.read(s["output"]);
  }
  int moved = 0;
  for (double key : {12.0, 25.0, 25.5, 37.25}) {
    const size_t k = size_t(key);
    const double t = key == double(k) ? times[k] : times[k] + (key - double(k)) * (times[k + 1] - times[k]);
    const float tf = float(t);
    const auto tr = test::spec_sample("LINEAR", times, values[0], 3, tf, false);
    const auto ro = test::spec_sample("LINEAR", times, values[1], 4, tf, true);
    const auto sc = test::spec_sample("LINEAR", times, values[2], 3, tf, false);
    const glm::dmat4 bone1 = glm::translate(glm::dmat4(1.0), {tr[0], tr[1], tr[2]}) *
                             glm::mat4_cast(glm::normalize(glm::dquat(ro[3], ro[0], ro[1], ro[2]))) *
                             glm::scale(glm::dmat4(1.0), {sc[0], sc[1], sc[2]});
    const glm::dmat4 jm[2] = {to_bone * ibm[0], to_bone * bone1 * ibm[1]};
    ev.pose(0, tf);
    ev.skin(pos);
    for (size_t v = 0; v < n; ++v) {
      const glm::dvec4 p(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2], 1.0);
      double wsum = 0;
      glm::dvec4 want(0.0);
      for (int i = 0; i < 4; ++i) {
        const double w = weights[4 * v + size_t(i)];
        wsum += w;
        want += w * (jm[size_t(joints[4 * v + size_t(i)])] * p);
      }
      want /= wsum;
      expect_near(pos[inst->first_vertex + v], glm::dvec3(want), 2e-4,
                  "key " + std::to_string(key) + " vertex " + std::to_string(v));
      if (glm::length(glm::dvec3(want) - glm::dvec3(p.x, p.z, -p.y)) > 0.1) ++moved;
    }
  }
  EXPECT_GT(moved, 50) << "the clip should bend the cylinder";
}

// SimpleMorph: one triangle (0,0,0), (1,0,0), (0.5,0.5,0); targets move vertex 2 by (-1,1,0)
// and (1,1,0); mesh weights (0.5, 0.5); the clip's weight keys at t = 0..4 are (0,0), (0,1),
// (1,1), (1,0), (0,0).
TEST(SceneSimpleMorph, WeightsByHand) {
  const Asset a = load("khronos/SimpleMorph.gltf");
  const MeshInstance* inst = instance_of_node(a, 0);
  ASSERT_NE(inst, nullptr);
  SceneEvaluator ev(a);
  std::vector<glm::vec3> pos(a.instance_vertex_count);
  auto v2 = [&](int clip, float t) {
    ev.pose(clip, t);
    ev.skin(pos);
    expect_near(pos[inst->first_vertex + 0], {0, 0, 0}, 1e-6, "vertex 0");
    expect_near(pos[inst->first_vertex + 1], {1, 0, 0}, 1e-6, "vertex 1");
    return pos[inst->first_vertex + 2];
  };
  expect_near(v2(-1, 0.0f), {0.5, 1.5, 0}, 1e-6, "rest: mesh weights 0.5, 0.5");
  expect_near(v2(0, 0.0f), {0.5, 0.5, 0}, 1e-6, "t=0: (0,0)");
  expect_near(v2(0, 0.5f), {1.0, 1.0, 0}, 1e-6, "t=0.5: (0,0.5)");
  expect_near(v2(0, 1.0f), {1.5, 1.5, 0}, 1e-6, "t=1: (0,1)");
  expect_near(v2(0, 2.0f), {0.5, 2.5, 0}, 1e-6, "t=2: (1,1)");
  expect_near(v2(0, 2.5f), {0.0, 2.0, 0}, 1e-6, "t=2.5: (1,0.5)");
  expect_near(v2(0, 3.0f), {-0.5, 1.5, 0}, 1e-6, "t=3: (1,0)");
  expect_near(v2(0, 3.75f), {0.25, 0.75, 0}, 1e-6, "t=3.75: (0.25,0)");
  expect_near(v2(0, 10.0f), {0.5, 0.5, 0}, 1e-6, "after the end: (0,0)");
}

// AnimatedMorphCube: the node turns the cube 180 degrees about (0, 1, -1)/sqrt2 (quaternion
// (0, 0.7071, -0.7071, 0), whose matrix 2aa^T - I maps (x, y, z) to (-x, -z, -y)) and scales it
// by 100. Both targets only move some vertices up in y (and bend some normals). So a vertex
// ends at
//   100 * (-x, -z, -(y + w0 dy0 + w1 dy1)),
// with the weights of the key (or the mean of two keys, halfway between them).
TEST(SceneAnimatedMorphCube, WeightsByHand) {
  const Asset a = load("khronos/AnimatedMorphCube.glb");
  const GltfProbe probe = GltfProbe::load(test::asset_path("khronos/AnimatedMorphCube.glb"));
  const auto& prim = probe.json["meshes"][0]["primitives"][0];
  const auto base = probe.read(prim["attributes"]["POSITION"]);
  const auto nbase = probe.read(prim["attributes"]["NORMAL"]);
  const auto d0 = probe.read(prim["targets"][0]["POSITION"]);
  const auto d1 = probe.read(prim["targets"][1]["POSITION"]);
  const auto n0 = probe.read(prim["targets"][0]["NORMAL"]);
  const auto n1 = probe.read(prim["targets"][1]["NORMAL"]);
  for (size_t i = 0; i < d0.size(); ++i) {
    if (i % 3 != 1) {
      ASSERT_EQ(d0[i], 0.0);
      ASSERT_EQ(d1[i], 0.0);
    }
  }
  const auto& s = probe.json["animations"][0]["samplers"][0];
  const auto times = probe.read(s["input"]);
  const auto w = probe.read(s["output"]);
  const MeshInstance* inst = instance_of_node(a, 0);
  ASSERT_NE(inst, nullptr);
  ASSERT_EQ(inst->vertex_count, 24u);
  SceneEvaluator ev(a);
  std::vector<glm::vec3> pos(a.instance_vertex_count), nrm(a.instance_vertex_count);
  for (double key : {0.0, 30.0, 60.0, 75.0, 75.5, 90.0, 100.5}) {
    const size_t k = size_t(key);
    double w0 = w[2 * k], w1 = w[2 * k + 1];
    double t = times[k];
    if (key != double(k)) {
      w0 = 0.5 * (w[2 * k] + w[2 * k + 2]);
      w1 = 0.5 * (w[2 * k + 1] + w[2 * k + 3]);
      t = 0.5 * (times[k] + times[k + 1]);
    }
    ev.pose(0, float(t));
    ev.skin(pos, nrm);
    for (size_t v = 0; v < 24; ++v) {
      const double x = base[3 * v], y = base[3 * v + 1] + w0 * d0[3 * v + 1] + w1 * d1[3 * v + 1], z = base[3 * v + 2];
      expect_near(pos[inst->first_vertex + v], {-100 * x, -100 * z, -100 * y}, 2e-4,
                  "key " + std::to_string(key) + " vertex " + std::to_string(v));
      // The targets also bend some normals: n = normalize(base + w0 dn0 + w1 dn1), then turned.
      glm::dvec3 nm;
      for (int c = 0; c < 3; ++c)
        nm[c] = nbase[3 * v + size_t(c)] + w0 * n0[3 * v + size_t(c)] + w1 * n1[3 * v + size_t(c)];
      nm = glm::normalize(nm);
      expect_near(nrm[inst->first_vertex + v], {-nm.x, -nm.z, -nm.y}, 1e-5, "normal " + std::to_string(v));
    }
  }
}

struct Bounds {
  glm::vec3 lo{1e30f}, hi{-1e30f};
  void add(const glm::vec3& p) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  float diagonal() const { return glm::length(hi - lo); }
};

TEST(SceneAllAssets, EveryClipPosesFiniteWithUnitNormalsAndSaneBounds) {
  const auto files = test::all_assets();
  ASSERT_GE(files.size(), 21u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    auto r = import_gltf(file);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const Asset& a = r.value();
    ASSERT_GT(a.instance_vertex_count, 0u);
    SceneEvaluator ev(a);
    const size_t n = a.instance_vertex_count;
    std::vector<glm::vec3> pos(n), nrm(n), pos_all(n), nrm_all(n);
    std::vector<glm::vec4> tan(n), tan_all(n);
    ev.pose(-1, 0.0f);
    ev.skin(pos, nrm, tan);
    Bounds rest;
    for (const auto& p : pos) rest.add(p);
    const float diag = std::max(rest.diagonal(), 1e-6f);
    ASSERT_TRUE(std::isfinite(diag));
    const glm::vec3 center = 0.5f * (rest.lo + rest.hi);
    float worst = 0.0f;  // farthest posed vertex from the rest centre, in rest diagonals
    for (int clip = -1; clip < int(a.animations.size()); ++clip) {
      const float start = clip < 0 ? 0.0f : a.animations[size_t(clip)].start_s;
      const float end = clip < 0 ? 0.0f : a.animations[size_t(clip)].end_s;
      for (float t : {-0.5f, 0.0f, start, 0.5f * (start + end), 0.37f * end, end, end + 0.5f}) {
        ev.pose(clip, t);
        ev.skin(pos, nrm, tan, 1);
        for (size_t v = 0; v < n; ++v) {
          const glm::vec3& p = pos[v];
          ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
              << "clip " << clip << " t " << t << " vertex " << v;
          ASSERT_NEAR(glm::length(nrm[v]), 1.0f, 1e-4f) << "clip " << clip << " t " << t << " vertex " << v;
          const glm::vec3 tv(tan[v]);
          if (tan[v] != glm::vec4(0.0f)) {
            ASSERT_NEAR(glm::length(tv), 1.0f, 1e-4f) << "tangent, clip " << clip << " vertex " << v;
            ASSERT_EQ(std::abs(tan[v].w), 1.0f);
          }
          worst = std::max(worst, glm::length(p - center) / diag);
        }
        // The thread count never changes a byte.
        if (t == end) {
          ev.skin(pos_all, nrm_all, tan_all, 0);
          ASSERT_EQ(std::memcmp(pos.data(), pos_all.data(), n * sizeof(glm::vec3)), 0) << "clip " << clip;
          ASSERT_EQ(std::memcmp(nrm.data(), nrm_all.data(), n * sizeof(glm::vec3)), 0) << "clip " << clip;
          ASSERT_EQ(std::memcmp(tan.data(), tan_all.data(), n * sizeof(glm::vec4)), 0) << "clip " << clip;
        }
      }
    }
    // Animation moves characters about, but never to several times their own size away.
    EXPECT_LT(worst, 2.0f) << "posed vertices far outside the rest bounds";
    RecordProperty(file.filename().string(), std::to_string(worst));
  }
}

}  // namespace
}  // namespace vatkit

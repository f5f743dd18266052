// The built-in sample character: a 22-joint humanoid of tapered capsules, skinned with smooth
// two-joint blends at every joint, with three looping clips sampled at 30 fps.
//
// Byte-for-byte determinism across machines is the point of several choices here: the
// trigonometry is our own (libm's sin/cos may differ in the last bit between versions), the
// motion is computed in double and rounded to float once, containers are ordered, and the GLB
// writer sorts JSON keys and zero-pads.
//
// Conventions: metres, +Y up, the character faces +Z, its left side is +X. The rest pose is a
// A-pose (every joint's rest rotation is identity, so local axes are the world axes).
#include "vatkit/sample_character.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <span>
#include <string>

#include "file/glb_writer.h"
#include "vatkit/import.h"

namespace vatkit {
namespace {

// ---------------------------------------------------------------------------------------------
// Deterministic trigonometry: only +, -, *, / and rounding, so the same on every IEEE machine.

constexpr double kPi = 3.14159265358979323846;

// sin and cos of x in [-pi/4, pi/4]: Taylor series to degree 17 / 16 (error below 1e-16 there).
double sin_small(double x) {
  const double x2 = x * x;
  double term = x, sum = x;
  for (int n = 1; n <= 8; ++n) {
    term *= -x2 / ((2.0 * n) * (2.0 * n + 1.0));
    sum += term;
  }
  return sum;
}
double cos_small(double x) {
  const double x2 = x * x;
  double term = 1.0, sum = 1.0;
  for (int n = 1; n <= 8; ++n) {
    term *= -x2 / ((2.0 * n - 1.0) * (2.0 * n));
    sum += term;
  }
  return sum;
}
double det_sin(double x) {
  const double quadrant = std::nearbyint(x / (kPi / 2.0));
  const double r = x - quadrant * (kPi / 2.0);
  switch (static_cast<int64_t>(quadrant) & 3) {
    case 0: return sin_small(r);
    case 1: return cos_small(r);
    case 2: return -sin_small(r);
    default: return -cos_small(r);
  }
}
double det_cos(double x) { return det_sin(x + kPi / 2.0); }

double smoothstep(double t) {
  t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  return t * t * (3.0 - 2.0 * t);
}
double positive(double x) { return x > 0.0 ? x : 0.0; }

// Double-precision quaternion, just what the clips need.
struct Quat {
  double w = 1.0, x = 0.0, y = 0.0, z = 0.0;
};
Quat operator*(const Quat& a, const Quat& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
Quat rot_x(double angle) { return {det_cos(angle / 2), det_sin(angle / 2), 0, 0}; }
Quat rot_y(double angle) { return {det_cos(angle / 2), 0, det_sin(angle / 2), 0}; }
Quat rot_z(double angle) { return {det_cos(angle / 2), 0, 0, det_sin(angle / 2)}; }

// glTF order (x, y, z, w), normalized, rounded to float.
glm::vec4 to_key(const Quat& q) {
  const double n = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {static_cast<float>(q.x / n), static_cast<float>(q.y / n), static_cast<float>(q.z / n),
          static_cast<float>(q.w / n)};
}

// ---------------------------------------------------------------------------------------------
// Skeleton.

enum Joint : uint8_t {
  Hips,
  Spine,
  Chest,
  UpperChest,
  Neck,
  Head,
  ShoulderL,
  UpperArmL,
  ForearmL,
  HandL,
  ShoulderR,
  UpperArmR,
  ForearmR,
  HandR,
  ThighL,
  ShinL,
  FootL,
  ToeL,
  ThighR,
  ShinR,
  FootR,
  ToeR,
  kJointCount
};

struct JointDef {
  const char* name;
  int parent;
  glm::dvec3 position;  // bind position, world space
};

// The rest pose is an A-pose: the arms hang kArmDrop radians below horizontal, so that the clips
// swing them by modest angles (linear blend skinning pinches shoulders rotated by ~90 degrees).
constexpr double kArmDrop = 1.15;
constexpr double kUpperArmLength = 0.27, kForearmLength = 0.25;

// Unit direction of the left arm (shoulder to wrist); the right arm mirrors it.
glm::dvec3 arm_direction(double side) { return {side * det_cos(kArmDrop), -det_sin(kArmDrop), 0.0}; }

// Left joints at +X; the right side mirrors them (see joint_defs()).
const std::array<JointDef, kJointCount>& joint_defs() {
  static const std::array<JointDef, kJointCount> defs = [] {
    std::array<JointDef, kJointCount> d{};
    const glm::dvec3 shoulder(0.19, 1.42, 0.0), arm = arm_direction(+1.0);
    d[Hips] = {"hips", -1, {0.0, 0.95, 0.0}};
    d[Spine] = {"spine", Hips, {0.0, 1.05, 0.0}};
    d[Chest] = {"chest", Spine, {0.0, 1.18, 0.0}};
    d[UpperChest] = {"upper_chest", Chest, {0.0, 1.32, 0.0}};
    d[Neck] = {"neck", UpperChest, {0.0, 1.47, 0.0}};
    d[Head] = {"head", Neck, {0.0, 1.58, 0.0}};
    d[ShoulderL] = {"shoulder.L", UpperChest, {0.04, 1.42, 0.0}};
    d[UpperArmL] = {"upper_arm.L", ShoulderL, shoulder};
    d[ForearmL] = {"forearm.L", UpperArmL, shoulder + arm * kUpperArmLength};
    d[HandL] = {"hand.L", ForearmL, shoulder + arm * (kUpperArmLength + kForearmLength)};
    d[ThighL] = {"thigh.L", Hips, {0.1, 0.93, 0.0}};
    d[ShinL] = {"shin.L", ThighL, {0.1, 0.51, 0.0}};
    d[FootL] = {"foot.L", ShinL, {0.1, 0.09, 0.0}};
    d[ToeL] = {"toe.L", FootL, {0.1, 0.03, 0.13}};
    auto mirror = [&](Joint right, Joint left, const char* name, int parent) {
      d[right] = {name, parent, {-d[left].position.x, d[left].position.y, d[left].position.z}};
    };
    mirror(ShoulderR, ShoulderL, "shoulder.R", UpperChest);
    mirror(UpperArmR, UpperArmL, "upper_arm.R", ShoulderR);
    mirror(ForearmR, ForearmL, "forearm.R", UpperArmR);
    mirror(HandR, HandL, "hand.R", ForearmR);
    mirror(ThighR, ThighL, "thigh.R", Hips);
    mirror(ShinR, ShinL, "shin.R", ThighR);
    mirror(FootR, FootL, "foot.R", ShinR);
    mirror(ToeR, ToeL, "toe.R", FootR);
    return d;
  }();
  return defs;
}

// Local rest translation of each joint, as stored in the file.
glm::vec3 rest_translation(int joint) {
  const JointDef& j = joint_defs()[joint];
  const glm::dvec3 local = j.parent < 0 ? j.position : j.position - joint_defs()[j.parent].position;
  return glm::vec3(local);
}

// ---------------------------------------------------------------------------------------------
// Geometry: tapered capsules along straight axes.

enum MaterialId : uint8_t { Skin, Shirt, Trousers, Shoes, kMaterialCount };

struct Vertex {
  glm::vec3 position;
  glm::u8vec4 joints;
  glm::vec4 weights;
};

struct PrimitiveData {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::u8vec4> joints;
  std::vector<glm::vec4> weights;
  std::vector<uint16_t> indices;
};

// Where the skin weight moves from one joint to the next along a capsule's axis: at arc length
// `at`, over [at - half_width, at + half_width], with a smoothstep.
struct Transition {
  double at;
  double half_width;
  Joint to;
};

struct ProfileKey {
  double s;         // arc length along the axis
  double radius_u;  // cross-section radii along the frame's u and v axes
  double radius_v;
};

struct Capsule {
  glm::dvec3 start;
  glm::dvec3 axis;  // unit
  glm::dvec3 u;     // unit, perpendicular to axis; v = axis x u
  double length;
  std::vector<ProfileKey> profile;  // sorted by s, first at 0, last at length
  double cap_start, cap_end;        // axial extent of the rounded ends
  int sides, body_rings, cap_rings;
  Joint first_joint;
  std::vector<Transition> transitions;  // sorted, non-overlapping
  MaterialId material;
};

std::pair<double, double> radii_at(const Capsule& c, double s) {
  const auto& p = c.profile;
  if (s <= p.front().s) return {p.front().radius_u, p.front().radius_v};
  for (size_t k = 1; k < p.size(); ++k) {
    if (s <= p[k].s) {
      const double t = smoothstep((s - p[k - 1].s) / (p[k].s - p[k - 1].s));
      return {p[k - 1].radius_u + (p[k].radius_u - p[k - 1].radius_u) * t,
              p[k - 1].radius_v + (p[k].radius_v - p[k - 1].radius_v) * t};
    }
  }
  return {p.back().radius_u, p.back().radius_v};
}

// Two influences at most (transitions do not overlap), sorted by weight, unused slots zero.
void weights_at(const Capsule& c, double s, glm::u8vec4& joints, glm::vec4& weights) {
  Joint current = c.first_joint;
  joints = glm::u8vec4(0);
  weights = glm::vec4(0.0f);
  for (const Transition& t : c.transitions) {
    if (s <= t.at - t.half_width) break;
    if (s < t.at + t.half_width) {
      const double w_to = smoothstep((s - (t.at - t.half_width)) / (2.0 * t.half_width));
      const float w_next = static_cast<float>(w_to);
      const float w_prev = 1.0f - w_next;  // exact complement, so the pair sums to 1
      if (w_next == 0.0f || w_prev == 0.0f) {
        current = w_next == 0.0f ? current : t.to;
        break;
      }
      const bool next_first = w_next > w_prev;
      joints = next_first ? glm::u8vec4(t.to, current, 0, 0) : glm::u8vec4(current, t.to, 0, 0);
      weights = next_first ? glm::vec4(w_next, w_prev, 0, 0) : glm::vec4(w_prev, w_next, 0, 0);
      return;
    }
    current = t.to;
  }
  joints = glm::u8vec4(current, 0, 0, 0);
  weights = glm::vec4(1.0f, 0.0f, 0.0f, 0.0f);
}

void append_capsule(const Capsule& c, PrimitiveData& out) {
  const glm::dvec3 v_axis = glm::cross(c.axis, c.u);
  const size_t base = out.positions.size();
  assert(base + 2 + size_t(c.sides) * (c.body_rings + 1 + 2 * (c.cap_rings - 1)) < 65536);

  auto add_vertex = [&](double s, const glm::dvec3& p) {
    Vertex v;
    v.position = glm::vec3(p);
    weights_at(c, s, v.joints, v.weights);
    out.positions.push_back(v.position);
    out.joints.push_back(v.joints);
    out.weights.push_back(v.weights);
  };
  auto add_ring = [&](double s, double radius_scale, const std::pair<double, double>& radii) {
    for (int i = 0; i < c.sides; ++i) {
      const double a = 2.0 * kPi * i / c.sides;
      const glm::dvec3 p = c.start + c.axis * s + c.u * (radii.first * radius_scale * det_cos(a)) +
                           v_axis * (radii.second * radius_scale * det_sin(a));
      add_vertex(s, p);
    }
  };

  // Pole, start cap, body, end cap, pole.
  add_vertex(-c.cap_start, c.start - c.axis * c.cap_start);
  int rings = 0;
  for (int k = 1; k < c.cap_rings; ++k, ++rings) {
    const double theta = (kPi / 2.0) * k / c.cap_rings;
    add_ring(-c.cap_start * det_cos(theta), det_sin(theta), radii_at(c, 0.0));
  }
  for (int j = 0; j <= c.body_rings; ++j, ++rings) {
    const double s = c.length * j / c.body_rings;
    add_ring(s, 1.0, radii_at(c, s));
  }
  for (int k = c.cap_rings - 1; k >= 1; --k, ++rings) {
    const double theta = (kPi / 2.0) * k / c.cap_rings;
    add_ring(c.length + c.cap_end * det_cos(theta), det_sin(theta), radii_at(c, c.length));
  }
  add_vertex(c.length + c.cap_end, c.start + c.axis * (c.length + c.cap_end));

  // Counter-clockwise seen from outside: (u, v, axis) is right-handed, so going around the ring
  // and then along the axis turns outwards.
  const auto first_ring = static_cast<uint32_t>(base + 1);
  const auto end_pole = static_cast<uint32_t>(base + 1 + size_t(rings) * c.sides);
  auto ring_vertex = [&](int ring, int i) {
    return static_cast<uint16_t>(first_ring + uint32_t(ring) * c.sides + uint32_t(i % c.sides));
  };
  auto tri = [&](uint32_t a, uint32_t b, uint32_t d) {
    out.indices.push_back(static_cast<uint16_t>(a));
    out.indices.push_back(static_cast<uint16_t>(b));
    out.indices.push_back(static_cast<uint16_t>(d));
  };
  for (int i = 0; i < c.sides; ++i) tri(uint32_t(base), ring_vertex(0, i + 1), ring_vertex(0, i));
  for (int r = 0; r + 1 < rings; ++r) {
    for (int i = 0; i < c.sides; ++i) {
      tri(ring_vertex(r, i), ring_vertex(r, i + 1), ring_vertex(r + 1, i));
      tri(ring_vertex(r, i + 1), ring_vertex(r + 1, i + 1), ring_vertex(r + 1, i));
    }
  }
  for (int i = 0; i < c.sides; ++i) tri(end_pole, ring_vertex(rings - 1, i), ring_vertex(rings - 1, i + 1));
}

// Smooth normals: area-weighted face normals summed per vertex (each capsule is closed and has
// no seam, so no vertex needs splitting).
void compute_normals(PrimitiveData& p) {
  std::vector<glm::dvec3> sum(p.positions.size(), glm::dvec3(0.0));
  for (size_t t = 0; t + 2 < p.indices.size(); t += 3) {
    const glm::dvec3 a(p.positions[p.indices[t]]), b(p.positions[p.indices[t + 1]]), c(p.positions[p.indices[t + 2]]);
    const glm::dvec3 n = glm::cross(b - a, c - a);
    for (int k = 0; k < 3; ++k) sum[p.indices[t + k]] += n;
  }
  p.normals.resize(p.positions.size());
  for (size_t i = 0; i < sum.size(); ++i) {
    const double len = std::sqrt(glm::dot(sum[i], sum[i]));
    assert(len > 0.0);
    p.normals[i] = glm::vec3(sum[i] / len);
  }
}

Capsule capsule(const glm::dvec3& from, const glm::dvec3& to, const glm::dvec3& u) {
  Capsule c;
  c.start = from;
  c.length = glm::length(to - from);
  c.axis = (to - from) / c.length;
  c.u = glm::normalize(u - c.axis * glm::dot(u, c.axis));
  return c;
}

// One limb side; `side` is +1 for the left (+X), -1 for the right.
void add_limbs(double side, std::array<PrimitiveData, kMaterialCount>& prims) {
  const auto& J = joint_defs();
  const bool left = side > 0;
  const Joint shoulder = left ? ShoulderL : ShoulderR, upper_arm = left ? UpperArmL : UpperArmR,
              forearm = left ? ForearmL : ForearmR, hand = left ? HandL : HandR, thigh = left ? ThighL : ThighR,
              shin = left ? ShinL : ShinR, foot = left ? FootL : FootR, toe = left ? ToeL : ToeR;
  // A frame whose u points forward/up keeps the left and right meshes mirror images (up to
  // winding, which the frame's handedness keeps outward on both sides).
  const glm::dvec3 up(0, 1, 0), forward(0, 0, 1);

  const glm::dvec3 arm = arm_direction(side);
  {  // Sleeve: from inside the torso, past the shoulder joint, to the wrist.
    const glm::dvec3 from = J[upper_arm].position - arm * 0.05;
    Capsule c = capsule(from, J[hand].position, forward);
    const double elbow = 0.05 + kUpperArmLength, wrist = elbow + kForearmLength;
    c.profile = {{0.0, 0.058, 0.06}, {0.08, 0.056, 0.058}, {elbow, 0.046, 0.048}, {wrist, 0.036, 0.038}};
    c.cap_start = 0.04;
    c.cap_end = 0.02;
    c.sides = 16;
    c.body_rings = 24;
    c.cap_rings = 3;
    c.first_joint = shoulder;
    c.transitions = {{0.05, 0.05, upper_arm}, {elbow, 0.05, forearm}, {wrist - 0.005, 0.02, hand}};
    c.material = Shirt;
    append_capsule(c, prims[Shirt]);
  }
  {  // Hand: flat (thin across the arm's plane), from the wrist outwards.
    const glm::dvec3 from = J[hand].position - arm * 0.01;
    Capsule c = capsule(from, from + arm * 0.14, forward);
    c.profile = {{0.0, 0.036, 0.022}, {0.06, 0.042, 0.02}, {0.14, 0.034, 0.016}};
    c.cap_start = 0.015;
    c.cap_end = 0.03;
    c.sides = 12;
    c.body_rings = 8;
    c.cap_rings = 3;
    c.first_joint = forearm;
    c.transitions = {{0.01, 0.015, hand}};
    c.material = Skin;
    append_capsule(c, prims[Skin]);
  }
  {  // Leg: hip to ankle.
    const double x = J[thigh].position.x;
    Capsule c = capsule({x, 0.96, 0.0}, {x, 0.08, 0.0}, forward);
    c.profile = {
        {0.0, 0.085, 0.088}, {0.18, 0.078, 0.08}, {0.45, 0.058, 0.06}, {0.62, 0.056, 0.062}, {0.88, 0.042, 0.045}};
    c.cap_start = 0.05;
    c.cap_end = 0.03;
    c.sides = 20;
    c.body_rings = 30;
    c.cap_rings = 4;
    c.first_joint = Hips;
    c.transitions = {{0.03, 0.05, thigh}, {0.45, 0.05, shin}, {0.87, 0.03, foot}};
    c.material = Trousers;
    append_capsule(c, prims[Trousers]);
  }
  {  // Shoe: heel to toe tip along +Z, low and wide.
    const double x = J[foot].position.x;
    Capsule c = capsule({x, 0.05, -0.03}, {x, 0.045, 0.19}, up);
    c.profile = {{0.0, 0.04, 0.045}, {0.12, 0.035, 0.05}, {0.22, 0.025, 0.045}};
    c.cap_start = 0.03;
    c.cap_end = 0.04;
    c.sides = 16;
    c.body_rings = 10;
    c.cap_rings = 4;
    c.first_joint = foot;
    c.transitions = {{0.16, 0.025, toe}};
    c.material = Shoes;
    append_capsule(c, prims[Shoes]);
  }
}

struct MeshData {
  std::array<PrimitiveData, kMaterialCount> primitives;
};

MeshData build_mesh() {
  MeshData mesh;
  auto& prims = mesh.primitives;
  const glm::dvec3 right(1, 0, 0);
  {  // Torso: pelvis to neck, wider than deep.
    Capsule c = capsule({0.0, 0.84, 0.0}, {0.0, 1.50, 0.0}, right);
    c.profile = {{0.0, 0.15, 0.10},    {0.11, 0.16, 0.11}, {0.24, 0.14, 0.10},
                 {0.41, 0.165, 0.115}, {0.56, 0.18, 0.10}, {0.66, 0.07, 0.06}};
    c.cap_start = 0.06;
    c.cap_end = 0.03;
    c.sides = 32;
    c.body_rings = 24;
    c.cap_rings = 5;
    c.first_joint = Hips;
    c.transitions = {{0.21, 0.05, Spine}, {0.34, 0.05, Chest}, {0.48, 0.05, UpperChest}, {0.63, 0.03, Neck}};
    c.material = Shirt;
    append_capsule(c, prims[Shirt]);
  }
  {  // Neck.
    Capsule c = capsule({0.0, 1.44, 0.0}, {0.0, 1.62, 0.0}, right);
    c.profile = {{0.0, 0.052, 0.05}, {0.18, 0.048, 0.047}};
    c.cap_start = 0.02;
    c.cap_end = 0.02;
    c.sides = 16;
    c.body_rings = 6;
    c.cap_rings = 2;
    c.first_joint = UpperChest;
    c.transitions = {{0.03, 0.03, Neck}, {0.14, 0.03, Head}};
    c.material = Skin;
    append_capsule(c, prims[Skin]);
  }
  {  // Head: an egg, slightly forward of the neck.
    Capsule c = capsule({0.0, 1.67, 0.012}, {0.0, 1.75, 0.012}, right);
    c.profile = {{0.0, 0.092, 0.102}, {0.08, 0.095, 0.104}};
    c.cap_start = 0.08;
    c.cap_end = 0.1;
    c.sides = 24;
    c.body_rings = 4;
    c.cap_rings = 9;
    c.first_joint = Head;
    c.material = Skin;
    append_capsule(c, prims[Skin]);
  }
  {  // Nose, so that the facing direction reads at a glance.
    Capsule c = capsule({0.0, 1.70, 0.095}, {0.0, 1.69, 0.125}, right);
    c.profile = {{0.0, 0.016, 0.018}, {0.031, 0.012, 0.012}};
    c.cap_start = 0.01;
    c.cap_end = 0.012;
    c.sides = 8;
    c.body_rings = 2;
    c.cap_rings = 2;
    c.first_joint = Head;
    c.material = Skin;
    append_capsule(c, prims[Skin]);
  }
  add_limbs(+1.0, prims);
  add_limbs(-1.0, prims);
  for (auto& p : prims) compute_normals(p);
  return mesh;
}

// ---------------------------------------------------------------------------------------------
// Clips: every joint's rotation and the hips' translation, as functions of the phase.

struct ClipPose {
  std::array<Quat, kJointCount> rotation{};
  glm::dvec3 hips_translation{0.0};
};

struct ClipDef {
  const char* name;
  int frames;                      // at 30 fps; the last key repeats the first, so the clip loops seamlessly
  ClipPose (*pose)(double phase);  // phase in [0, 2 pi)
};

Quat rot_axis(const glm::dvec3& axis, double angle) {
  const double sn = det_sin(angle / 2);
  return {det_cos(angle / 2), axis.x * sn, axis.y * sn, axis.z * sn};
}

// Arms: `lower` rotates them further down than the A-pose (about Z), `swing_forward` about X
// (positive = forward), `elbow` bends the forearm about the axis that brings the hand forward.
void set_arm(ClipPose& p, double side, double lower, double swing_forward, double elbow) {
  const bool left = side > 0;
  const glm::dvec3 d = arm_direction(side);
  const glm::dvec3 bend_axis(d.y, -d.x, 0.0);  // d x +Z: rotating d about it turns it to +Z
  p.rotation[left ? UpperArmL : UpperArmR] = rot_x(-swing_forward) * rot_z(-side * lower);
  p.rotation[left ? ForearmL : ForearmR] = rot_axis(bend_axis, elbow);
}

// Thigh swing (positive = foot forward), knee bend (positive = foot back), and a foot kept
// roughly level, with `heel_lift` pitching it toes-down and the toes bending back up.
void set_leg(ClipPose& p, double side, double swing_forward, double knee, double heel_lift) {
  const bool left = side > 0;
  p.rotation[left ? ThighL : ThighR] = rot_x(-swing_forward);
  p.rotation[left ? ShinL : ShinR] = rot_x(knee);
  p.rotation[left ? FootL : FootR] = rot_x(0.8 * (swing_forward - knee) + heel_lift);
  p.rotation[left ? ToeL : ToeR] = rot_x(-heel_lift);
}

ClipPose idle_pose(double phase) {
  ClipPose p;
  const double breath = det_sin(phase), sway = det_sin(phase + 0.6);
  p.hips_translation = {0.015 * sway, 0.94 + 0.004 * breath, 0.0};
  p.rotation[Hips] = rot_z(0.025 * sway);
  p.rotation[Spine] = rot_z(-0.02 * sway);
  p.rotation[Chest] = rot_x(-0.015 * breath);
  p.rotation[UpperChest] = rot_x(-0.015 * breath) * rot_z(-0.01 * sway);
  p.rotation[ShoulderL] = rot_z(0.03 * breath);
  p.rotation[ShoulderR] = rot_z(-0.03 * breath);
  p.rotation[Neck] = rot_y(0.2 * det_sin(phase + 1.0));
  p.rotation[Head] = rot_x(0.06 * det_sin(2.0 * phase)) * rot_z(-0.02 * sway);
  set_arm(p, +1, 0.12 + 0.02 * breath, 0.04 * det_sin(phase + 0.4), 0.18);
  set_arm(p, -1, 0.12 + 0.02 * breath, 0.04 * det_sin(phase + 0.9), 0.18);
  for (double side : {+1.0, -1.0}) {
    const bool left = side > 0;
    set_leg(p, side, 0.03, 0.07, 0.0);
    // Keep the legs under the swaying pelvis.
    p.rotation[left ? ThighL : ThighR] = rot_z(-0.025 * sway) * p.rotation[left ? ThighL : ThighR];
    p.rotation[left ? FootL : FootR] = rot_z(0.02 * sway) * p.rotation[left ? FootL : FootR];
  }
  return p;
}

// Vectors rotated by a quaternion, and the shortest rotation between two directions: what the
// walk's leg solver needs, with no trigonometry (sqrt is exact in IEEE, so still deterministic).
Quat conjugate(const Quat& q) { return {q.w, -q.x, -q.y, -q.z}; }
glm::dvec3 rotate(const Quat& q, const glm::dvec3& v) {
  const Quat r = q * Quat{0.0, v.x, v.y, v.z} * conjugate(q);
  return {r.x, r.y, r.z};
}
Quat arc(const glm::dvec3& from, const glm::dvec3& to) {  // neither zero nor opposite
  const glm::dvec3 c = glm::cross(from, to);
  const Quat q{std::sqrt(glm::dot(from, from) * glm::dot(to, to)) + glm::dot(from, to), c.x, c.y, c.z};
  const double n = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w / n, q.x / n, q.y / n, q.z / n};
}

// The walk's feet, in the character's space (the clip is in place: the body stays at the origin
// and a planted foot moves back under it at the body's speed). The body walks 1 m a cycle (1 s),
// slowest at mid-stance and fastest in double support, as an inverted pendulum does: speed
// kSpeed (1 - kSurge cos(4 pi t)), t the cycle's fraction. The left foot lands at 0.2 of the
// cycle and the right at 0.7 (the left leads a quarter in, the right three quarters in), each
// planted for kStance of the cycle (double support the tenth after each landing), its ankle at
// its rest height; then it swings forward, lifted kLift, leaving and landing at the speed it was
// planted at, so that its world speed does not jump.
constexpr double kSpeed = 1.0, kSurge = 0.12, kStance = 0.6, kLift = 0.1;
constexpr double kLegReach = 0.835;  // hip joint to ankle with the stance knee bent ~12 degrees

// How far the body has walked at cycle fraction t: the integral of its speed.
double walked(double t) { return kSpeed * (t - kSurge * det_sin(4.0 * kPi * t) / (4.0 * kPi)); }
double body_speed(double t) { return kSpeed * (1.0 - kSurge * det_cos(4.0 * kPi * t)); }

struct FootTarget {
  glm::dvec3 ankle;  // character space
  double pitch;      // the sole's pitch, toes down (radians)
};

FootTarget walk_foot(double cycle, double side) {
  constexpr double landing = 0.2;  // the left foot's; the right's is half a cycle later
  double tau = cycle - landing - (side > 0 ? 0.0 : 0.5);
  tau -= std::floor(tau);
  const double ankle_y = joint_defs()[FootL].position.y, x = side * joint_defs()[FootL].position.x;
  // Planted: behind where it was at mid-stance by what the body walked since then (the body's
  // speed has period half a cycle, so both feet see the same).
  const double mid = landing + 0.5 * kStance;
  if (tau < kStance) return {{x, ankle_y, walked(mid) - walked(landing + tau)}, 0.0};
  // Swing, u in [0, 1): a cubic Hermite from the stance's end back to its start whose end slopes
  // are the body's speed there; the ankle rises kLift, the toes pointing down after push-off and
  // up before landing.
  const double half = walked(mid) - walked(landing);
  const double u = (tau - kStance) / (1.0 - kStance), u2 = u * u, u3 = u2 * u;
  const double slope = -body_speed(landing) * (1.0 - kStance);
  const double z =
      (2 * u3 - 3 * u2 + 1) * -half + (u3 - 2 * u2 + u) * slope + (-2 * u3 + 3 * u2) * half + (u3 - u2) * slope;
  const double lift = det_sin(kPi * u);
  return {{x, ankle_y + kLift * lift, z}, 0.4 * lift * (1.0 - 2.0 * u)};
}

// Poses a leg (two bones hanging straight down at rest, the knee bending the foot back about the
// thigh's x axis) so that its ankle reaches `foot.ankle` and its sole has `foot.pitch` in the
// character's space; the hips' pose is already in `p`.
void reach(ClipPose& p, const Quat& hips, double side, const FootTarget& foot) {
  const bool left = side > 0;
  const Joint thigh = left ? ThighL : ThighR, shin = left ? ShinL : ShinR, ankle = left ? FootL : FootR;
  const auto& J = joint_defs();
  const double a = J[thigh].position.y - J[shin].position.y, b = J[shin].position.y - J[ankle].position.y;
  const glm::dvec3 v =
      rotate(conjugate(hips), foot.ankle - p.hips_translation) - (J[thigh].position - J[Hips].position);
  const double d2 = glm::dot(v, v);
  const double ck = std::clamp((d2 - a * a - b * b) / (2.0 * a * b), -1.0, 1.0), sk = std::sqrt(1.0 - ck * ck);
  const Quat knee{std::sqrt((1.0 + ck) / 2.0), std::sqrt((1.0 - ck) / 2.0), 0.0, 0.0};
  // The leg bent at the knee, swung about x to the target's forward offset, then tilted about z to
  // its side offset.
  const glm::dvec3 bent(0.0, -a - b * ck, -b * sk);
  const double down = -std::sqrt(v.x * v.x + v.y * v.y);
  const Quat swing = arc({0.0, bent.y, bent.z}, {0.0, down, v.z});
  const Quat tilt = arc({0.0, down, 0.0}, {v.x, v.y, 0.0});
  const Quat thigh_rotation = tilt * swing;
  p.rotation[thigh] = thigh_rotation;
  p.rotation[shin] = knee;
  p.rotation[ankle] = conjugate(hips * thigh_rotation * knee) * rot_x(foot.pitch);
  p.rotation[left ? ToeL : ToeR] = rot_x(-positive(foot.pitch));
}

// The walk plants its feet: each ankle follows walk_foot() exactly at every key (a two-bone
// solve), and the hips sit as high as the legs reach, so they are highest mid-stance and lowest
// in double support.
ClipPose walk_pose(double phase) {
  ClipPose p;
  const double s = det_sin(phase), c = det_cos(phase), cycle = phase / (2.0 * kPi);
  const Quat hips = rot_y(-0.1 * s) * rot_x(0.03);
  p.rotation[Hips] = hips;
  p.rotation[Spine] = rot_y(0.1 * s);
  p.rotation[Chest] = rot_y(0.08 * s) * rot_x(0.02);
  p.rotation[UpperChest] = rot_x(-0.02);
  p.rotation[Neck] = rot_y(-0.08 * s);
  p.rotation[Head] = rot_x(-0.03);
  // The pelvis sways over the planted foot; its height is the lower of what each leg reaches.
  p.hips_translation = {-0.012 * c, 0.0, 0.0};
  double height = INFINITY;
  const FootTarget feet[2] = {walk_foot(cycle, +1.0), walk_foot(cycle, -1.0)};
  for (int i = 0; i < 2; ++i) {
    const auto& J = joint_defs();
    const glm::dvec3 hip = rotate(hips, J[i == 0 ? ThighL : ThighR].position - J[Hips].position);
    const double dx = feet[i].ankle.x - p.hips_translation.x - hip.x, dz = feet[i].ankle.z - hip.z;
    height = std::min(height, feet[i].ankle.y - hip.y + std::sqrt(kLegReach * kLegReach - dx * dx - dz * dz));
  }
  p.hips_translation.y = height;
  for (int i = 0; i < 2; ++i) {
    const double side = i == 0 ? 1.0 : -1.0;
    reach(p, hips, side, feet[i]);
    // Each arm swings with the other leg: the left arm back while the left leg leads.
    const double arm_forward = -0.35 * side * s;
    set_arm(p, side, 0.12, arm_forward, 0.25 + 0.2 * positive(arm_forward / 0.35));
  }
  return p;
}

ClipPose run_pose(double phase) {
  ClipPose p;
  const double s = det_sin(phase);
  // Lowest mid-stance, highest in flight (legs apart).
  p.hips_translation = {0.0, 0.90 - 0.04 * det_cos(2.0 * phase), 0.0};
  p.rotation[Hips] = rot_y(-0.15 * s);
  p.rotation[Spine] = rot_y(0.12 * s) * rot_x(0.14);
  p.rotation[Chest] = rot_y(0.12 * s) * rot_x(0.06);
  p.rotation[UpperChest] = rot_x(0.02);
  p.rotation[Neck] = rot_y(-0.09 * s) * rot_x(-0.12);
  p.rotation[Head] = rot_x(-0.08);
  for (double side : {+1.0, -1.0}) {
    const double ls = side * s;
    // Swing forward further than back; the knee folds most just after toe-off.
    const double swing = 0.2 + 0.65 * ls;
    const double fold = positive(det_cos(phase + (side > 0 ? 0.0 : kPi) + 0.6));
    const double knee = 0.3 + 1.3 * fold * fold;
    set_leg(p, side, swing, knee, 0.35 * positive(-ls) * positive(-ls));
    const double arm_forward = -0.6 * ls;
    set_arm(p, side, 0.15, arm_forward, 1.35 + 0.25 * ls);
  }
  return p;
}

const std::array<ClipDef, 3>& clip_defs() {
  static const std::array<ClipDef, 3> defs = {{
      {"idle", 90, idle_pose},
      {"walk", 30, walk_pose},
      {"run", 20, run_pose},
  }};
  return defs;
}

// ---------------------------------------------------------------------------------------------
// The file.

void write_mesh(glb::Writer& w) {
  const MeshData mesh = build_mesh();
  const std::array<const char*, kMaterialCount> names = {"skin", "shirt", "trousers", "shoes"};
  const std::array<glm::vec4, kMaterialCount> colors = {
      glm::vec4(0.80f, 0.58f, 0.45f, 1.0f), glm::vec4(0.16f, 0.34f, 0.66f, 1.0f), glm::vec4(0.20f, 0.21f, 0.26f, 1.0f),
      glm::vec4(0.35f, 0.20f, 0.10f, 1.0f)};
  const std::array<float, kMaterialCount> roughness = {0.7f, 0.85f, 0.9f, 0.5f};
  for (int m = 0; m < kMaterialCount; ++m) {
    w.append("materials", {{"name", names[m]},
                           {"pbrMetallicRoughness",
                            {{"baseColorFactor", glb::json_array(colors[m])},
                             {"metallicFactor", 0},
                             {"roughnessFactor", glb::json_number(roughness[m])}}}});
  }

  nlohmann::json primitives = nlohmann::json::array();
  for (int m = 0; m < kMaterialCount; ++m) {
    const PrimitiveData& p = mesh.primitives[m];
    glb::AccessorOptions vertex;
    vertex.target = glb::Target::ArrayBuffer;
    glb::AccessorOptions bounded = vertex;
    bounded.min_max = true;
    glb::AccessorOptions index;
    index.target = glb::Target::ElementArrayBuffer;
    nlohmann::json attributes = {
        {"POSITION", w.add_accessor(p.positions, bounded)},
        {"NORMAL", w.add_accessor(p.normals, vertex)},
        {"JOINTS_0", w.add_accessor(p.joints, vertex)},
        {"WEIGHTS_0", w.add_accessor(p.weights, vertex)},
    };
    primitives.push_back({{"attributes", std::move(attributes)},
                          {"indices", w.add_accessor(p.indices, index)},
                          {"material", m},
                          {"mode", 4}});
  }
  w.append("meshes", {{"name", "body"}, {"primitives", std::move(primitives)}});
}

std::vector<uint8_t> build_glb() {
  glb::Writer w;
  w.json()["asset"]["generator"] = "vatkit sample character";
  w.json()["asset"]["copyright"] = "CC0 1.0: generated by vatkit";

  // Nodes 0..21: the joints; node 22: the skinned mesh, a root without a transform.
  std::array<glm::vec3, kJointCount> world{};
  for (int j = 0; j < kJointCount; ++j) {
    const JointDef& def = joint_defs()[j];
    const glm::vec3 t = rest_translation(j);
    // The same float sums a skinner makes, so that world * inverse bind is exactly identity.
    world[j] = def.parent < 0 ? t : world[def.parent] + t;
    nlohmann::json node = {{"name", def.name}, {"translation", glb::json_array(t)}};
    nlohmann::json children = nlohmann::json::array();
    for (int k = 0; k < kJointCount; ++k) {
      if (joint_defs()[k].parent == j) children.push_back(k);
    }
    if (!children.empty()) node["children"] = std::move(children);
    w.append("nodes", std::move(node));
  }
  write_mesh(w);
  const uint32_t mesh_node = w.append("nodes", {{"name", "character"}, {"mesh", 0}, {"skin", 0}});
  w.append("scenes", {{"name", "sample"}, {"nodes", {Hips, mesh_node}}});
  w.json()["scene"] = 0;

  std::vector<glm::mat4> inverse_bind(kJointCount, glm::mat4(1.0f));
  nlohmann::json joints = nlohmann::json::array();
  for (int j = 0; j < kJointCount; ++j) {
    inverse_bind[j][3] = glm::vec4(-world[j], 1.0f);
    joints.push_back(j);
  }
  w.append("skins", {{"name", "skeleton"},
                     {"inverseBindMatrices", w.add_accessor(inverse_bind)},
                     {"joints", std::move(joints)},
                     {"skeleton", Hips}});

  for (const ClipDef& clip : clip_defs()) {
    std::vector<float> times(clip.frames + 1);
    std::vector<std::vector<glm::vec4>> rotations(kJointCount, std::vector<glm::vec4>(times.size()));
    std::vector<glm::vec3> hips(times.size());
    for (int k = 0; k <= clip.frames; ++k) {
      times[k] = static_cast<float>(k) / 30.0f;
      const ClipPose pose = clip.pose(2.0 * kPi * (k % clip.frames) / clip.frames);
      for (int j = 0; j < kJointCount; ++j) rotations[j][k] = to_key(pose.rotation[j]);
      hips[k] = glm::vec3(pose.hips_translation);
    }
    glb::AccessorOptions input;
    input.min_max = true;  // the spec requires bounds on sampler inputs
    const uint32_t time_accessor = w.add_accessor(times, input);
    nlohmann::json samplers = nlohmann::json::array(), channels = nlohmann::json::array();
    auto add_channel = [&](uint32_t output, int node, const char* path) {
      channels.push_back({{"sampler", samplers.size()}, {"target", {{"node", node}, {"path", path}}}});
      samplers.push_back({{"input", time_accessor}, {"interpolation", "LINEAR"}, {"output", output}});
    };
    for (int j = 0; j < kJointCount; ++j) add_channel(w.add_accessor(rotations[j]), j, "rotation");
    add_channel(w.add_accessor(hips), Hips, "translation");
    w.append("animations", {{"name", clip.name}, {"samplers", std::move(samplers)}, {"channels", std::move(channels)}});
  }
  return w.finish();
}

}  // namespace

std::vector<uint8_t> sample_character_glb() { return build_glb(); }

Result<Asset> load_sample_character() {
  const std::vector<uint8_t> bytes = sample_character_glb();
  return import_gltf_memory(bytes, "<sample>");
}

}  // namespace vatkit

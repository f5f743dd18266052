// The CPU mirror (mirror.h) on real assets baked with vatkit::bake, in both encodings: decoded
// positions stay continuous across a set_instance with a fade (the largest jump between
// consecutive 60 Hz frames, measured in mm and bounded by the motion of the two clips and the
// fade's slope), a cut pops where a fade does not, a transition issued mid-fade pops by at most
// the weight it drops, and vertices, normals and joints (sockets) are placed by the instance's
// world matrix.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "test_support.h"
#include "playback_test_util.h"
#include "vatkit/bake.h"
#include "vatkit/import.h"
#include "vatkit/instance_table.h"
#include "vatkit/mirror.h"
#include "vatkit/sample_character.h"

namespace vatkit {
namespace {

using test::play;

struct Baked {
  std::string name;
  Vat vat;
};

// A baked asset, once per test binary: "fox" (Fox.glb) or "sample", in `encoding`.
const Vat& baked(const std::string& asset, EncodingChoice encoding) {
  static std::map<std::pair<std::string, int>, std::unique_ptr<Vat>> cache;
  const auto key = std::make_pair(asset, int(encoding));
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  Result<Asset> a =
      asset == "fox" ? import_gltf(test::asset_path("khronos/Fox.glb"), ImportOptions{false}) : load_sample_character();
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().message);
  BakeOptions o;
  o.encoding = encoding;
  o.precision = Precision::F32;
  o.fps = 30.0f;
  o.measure = false;
  Result<Vat> v = a.ok() ? bake(*a, o) : Result<Vat>(Error{ErrorCode::Argument, "no asset"});
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  auto vat = std::make_unique<Vat>(v.ok() ? std::move(*v) : Vat{});
  return *cache.emplace(key, std::move(vat)).first->second;
}

ClipBand named(const Vat& vat, const char* name) {
  const Result<ClipBand> band = clip_band(vat, name);
  EXPECT_TRUE(band.ok()) << name;
  return band.ok() ? *band : clip_band(vat, 0u);
}

constexpr float kDt = 1.0f / 60.0f;

// A timeline: writes applied at their times, resolved at 60 Hz, decoded; per frame, the largest
// displacement of any vertex since the previous frame, in mm (file units taken as metres).
struct Timeline {
  std::vector<std::pair<float, Instance>> writes;  // (now, instance); the first is the start
  int frames = 180;

  struct Out {
    std::vector<PlaybackSample> frames;
    std::vector<std::vector<glm::vec3>> positions;
    std::vector<float> jump_mm;  // [0] = 0
  };
  Out run(const Vat& vat, const glm::mat4& world = glm::mat4(1.0f)) const {
    Out out;
    InstanceTable table(1, vat.frame_rows);
    size_t next = 0;
    for (int f = 0; f < frames; ++f) {
      const float t = float(f) * kDt;
      while (next < writes.size() && writes[next].first <= t) {
        Result<void> r = set_instance(table, 0, writes[next].second, writes[next].first);
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
        ++next;
      }
      out.frames.push_back(resolve(table, 0, t));
      std::vector<glm::vec3> p(vat.geometry.vertex_count());
      EXPECT_TRUE(mirror_vertices(vat, out.frames.back(), world, 0, p).ok());
      float jump = 0.0f;
      if (!out.positions.empty()) {
        for (size_t v = 0; v < p.size(); ++v) jump = std::max(jump, glm::length(p[v] - out.positions.back()[v]));
      }
      out.jump_mm.push_back(jump * 1000.0f);
      out.positions.push_back(std::move(p));
    }
    return out;
  }
};

float max_distance_mm(const std::vector<glm::vec3>& a, const std::vector<glm::vec3>& b) {
  float d = 0.0f;
  for (size_t v = 0; v < a.size(); ++v) d = std::max(d, glm::length(a[v] - b[v]));
  return d * 1000.0f;
}

struct Case {
  const char* asset;
  EncodingChoice encoding;
  const char* from;
  const char* to;
  const char* third;
};

std::string label(const Case& c) {
  return std::string(c.asset) + (c.encoding == EncodingChoice::Rig ? " rig " : " delta ") + c.from + "->" + c.to;
}

class MirrorContinuity : public ::testing::TestWithParam<Case> {};

// Walk, then at t = 1 the run fades in over 0.3 s (the walk playing on). Per frame, the jump is
// bounded by the larger motion of the two clips alone plus the weight's step times the distance
// between the two poses: exactly so for the delta encoding (a lerp of positions), within 25% for
// the rig (it blends joint transforms, then skins). A cut at the same moment pops by the whole
// distance between the poses, which the fade must beat.
TEST_P(MirrorContinuity, FadeKeepsDecodedPositionsContinuous) {
  const Case& c = GetParam();
  const Vat& vat = baked(c.asset, c.encoding);
  ASSERT_GT(vat.clips.size(), 1u);
  const ClipBand a = named(vat, c.from), b = named(vat, c.to);
  const float t_switch = 60.0f * kDt, fade = 0.3f;
  Timeline faded{{{0.0f, play(a, 0.0f)}, {t_switch, play(b, t_switch, fade)}}};
  Timeline only_a{{{0.0f, play(a, 0.0f)}}};
  Timeline only_b{{{0.0f, play(b, t_switch)}}};
  Timeline cut{{{0.0f, play(a, 0.0f)}, {t_switch, play(b, t_switch)}}};
  const auto f = faded.run(vat), fa = only_a.run(vat), fb = only_b.run(vat), fc = cut.run(vat);
  float worst = 0.0f, worst_ratio = 0.0f, steady = 0.0f;
  for (int i = 1; i < faded.frames; ++i) {
    steady = std::max({steady, fa.jump_mm[i], i > 60 ? fb.jump_mm[i] : 0.0f});
    const float dw = std::fabs(f.frames[i].weight - f.frames[i - 1].weight);
    const float bound =
        std::max(fa.jump_mm[i], fb.jump_mm[i]) + dw * max_distance_mm(fa.positions[i - 1], fb.positions[i - 1]);
    const bool in_fade = i > 60 && float(i) * kDt <= t_switch + fade + kDt;
    if (in_fade) {
      worst = std::max(worst, f.jump_mm[i]);
      worst_ratio = std::max(worst_ratio, f.jump_mm[i] / (bound + 1e-3f));
    } else {
      EXPECT_LE(f.jump_mm[i], (i <= 60 ? fa.jump_mm[i] : fb.jump_mm[i]) + 1e-3f) << label(c) << " frame " << i;
    }
  }
  const float pop = fc.jump_mm[60];  // the cut shows the run from frame 60 on
  const float pose_gap = max_distance_mm(fa.positions[59], fb.positions[60]);
  const float size_mm = glm::length(vat.bounds.max - vat.bounds.min) * 1000.0f;
  std::printf(
      "[          ] %-26s (size %.0f mm) steady motion <= %7.2f mm/frame; fade 0.3 s: largest jump "
      "%7.2f mm (%.2f of its bound, %.2f%% of the size); cut: %7.2f mm (%.2f%%)\n",
      label(c).c_str(), size_mm, steady, worst, worst_ratio, 100.0f * worst / size_mm, pop, 100.0f * pop / size_mm);
  EXPECT_LE(worst_ratio, c.encoding == EncodingChoice::Rig ? 1.25f : 1.0f + 1e-4f) << label(c);
  EXPECT_NEAR(pop, pose_gap, 1e-3f * pose_gap + 0.01f);  // the cut jumps by the pose gap ...
  EXPECT_GT(pop, 2.0f * worst) << label(c);              // ... which the fade spreads out
}

// The transition rule: a new clip issued mid-fade collapses the screen to its dominant band,
// popping by at most min(w, 1 - w) times the distance between the two bands on screen; a
// retarget or a turn back does not pop at all.
TEST_P(MirrorContinuity, TransitionOverTransitionPopIsBounded) {
  const Case& c = GetParam();
  const Vat& vat = baked(c.asset, c.encoding);
  const ClipBand a = named(vat, c.from), b = named(vat, c.to), third = named(vat, c.third);
  const float t1 = 60.0f * kDt, fade = 0.5f;
  Timeline only_a{{{0.0f, play(a, 0.0f)}}};
  Timeline only_b{{{0.0f, play(b, t1)}}};
  Timeline once{{{0.0f, play(a, 0.0f)}, {t1, play(b, t1, fade)}}};
  const auto fa = only_a.run(vat), fb = only_b.run(vat), f1 = once.run(vat);
  for (int frame : {66, 75, 84}) {  // w(outgoing a) = 0.8, 0.5, 0.2
    const float t2 = float(frame) * kDt;
    Timeline twice{{{0.0f, play(a, 0.0f)}, {t1, play(b, t1, fade)}, {t2, play(third, t2, fade)}}};
    Timeline retarget{{{0.0f, play(a, 0.0f)}, {t1, play(b, t1, fade)}, {t2, play(b, t1, 0.2f)}}};
    Timeline back{{{0.0f, play(a, 0.0f)}, {t1, play(b, t1, fade)}, {t2, play(a, 0.0f, 0.2f)}}};
    const auto ft = twice.run(vat), fr = retarget.run(vat), fk = back.run(vat);
    const float w = f1.frames[frame].weight;  // the outgoing walk's weight at the write
    // The screen a frame earlier showed the walk at weight w + 1/30; the collapse drops the band
    // that does not dominate at the write: min(w, 1 - w), plus that frame's step of the fade.
    const float dropped = std::min(w, 1.0f - w) + 1.0f / 30.0f;
    const float gap = max_distance_mm(fa.positions[frame - 1], fb.positions[frame - 1]);
    const float motion = std::max(fa.jump_mm[frame], fb.jump_mm[frame]);
    const float pop = ft.jump_mm[frame];
    std::printf(
        "[          ] %-26s new clip at w = %.2f: jump %7.2f mm (bound %7.2f = %.3f x gap %.2f + motion "
        "%.2f); retarget %.2f, turn back %.2f\n",
        label(c).c_str(), w, pop, dropped * gap + motion, dropped, gap, motion, fr.jump_mm[frame], fk.jump_mm[frame]);
    const float rig = c.encoding == EncodingChoice::Rig ? 1.25f : 1.0f;
    EXPECT_LE(pop, rig * (dropped * gap + motion) + 0.01f) << label(c) << " w " << w;
    EXPECT_GT(pop, 0.5f * std::min(w, 1.0f - w) * gap) << label(c);  // the pop is real
    // No pop: within the motion and the weight step of a fade.
    EXPECT_LE(fr.jump_mm[frame], rig * (motion + gap / 10.0f) + 0.01f) << label(c);
    EXPECT_LE(fk.jump_mm[frame], rig * (motion + gap / 10.0f) + 0.01f) << label(c);
  }
}

INSTANTIATE_TEST_SUITE_P(Mirror, MirrorContinuity,
                         ::testing::Values(Case{"fox", EncodingChoice::Delta, "Walk", "Run", "Survey"},
                                           Case{"fox", EncodingChoice::Rig, "Walk", "Run", "Survey"},
                                           Case{"sample", EncodingChoice::Delta, "walk", "run", "idle"},
                                           Case{"sample", EncodingChoice::Rig, "walk", "run", "idle"}),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return std::string(param.param.asset) +
                                  (param.param.encoding == EncodingChoice::Rig ? "Rig" : "Delta");
                         });

class MirrorWorld : public ::testing::TestWithParam<EncodingChoice> {};

// Positions, normals and joints follow the instance's world matrix, through a blend, in both
// encodings; the socket of a hand stays continuous across a fade.
TEST_P(MirrorWorld, VerticesNormalsAndSocketsArePlaced) {
  const Vat& vat = baked("fox", GetParam());
  ASSERT_FALSE(vat.slots.empty());
  const glm::mat4 world =
      glm::scale(glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(5.0f, 0.0f, -2.0f)), 0.7f, glm::vec3(0, 1, 0)),
                 glm::vec3(0.02f));
  Instance in = play(named(vat, "Walk"), 0.0f);
  in.blend = Blend{named(vat, "Run"), 0.4f, BlendSync::Phase};
  const PlaybackSample frame = resolve(in, 0.37f);
  ASSERT_EQ(frame.kind, MixKind::Blend);
  const PoseBlend pose = pose_blend(vat, frame);
  EXPECT_EQ(pose.a.clip, uint32_t(*find_clip(vat, "Walk")));
  EXPECT_EQ(pose.b.clip, uint32_t(*find_clip(vat, "Run")));
  EXPECT_EQ(pose.weight_b, 0.4f);
  const uint32_t n = vat.geometry.vertex_count();
  std::vector<glm::vec3> obj(n), obj_n(n), placed(n), placed_n(n);
  decode_vertices(vat, pose, 0, obj, obj_n);
  ASSERT_TRUE(mirror_vertices(vat, frame, world, 0, placed, placed_n).ok());
  const glm::mat3 rot = glm::mat3(glm::rotate(glm::mat4(1.0f), 0.7f, glm::vec3(0, 1, 0)));
  for (uint32_t v = 0; v < n; v += 7) {
    const glm::vec3 expect = glm::vec3(world * glm::vec4(obj[v], 1.0f));
    ASSERT_LT(glm::length(placed[v] - expect), 1e-5f * (1.0f + glm::length(expect))) << v;
    ASSERT_LT(glm::length(placed_n[v] - rot * obj_n[v]), 1e-5f) << v;
  }
  // A sub-range decodes the same vertices.
  std::vector<glm::vec3> part(10);
  ASSERT_TRUE(mirror_vertices(vat, frame, world, 100, part).ok());
  EXPECT_EQ(part[3], placed[103]);
  for (uint32_t s = 0; s < vat.slots.size(); ++s) {
    const glm::mat4 joint = mirror_joint(vat, frame, world, s).value();
    const glm::mat4 expect = world * decode_joint_world(vat, pose, s);
    for (int col = 0; col < 4; ++col) ASSERT_LT(glm::length(joint[col] - expect[col]), 1e-4f) << s;
  }
  // The table overloads answer the same for an instance of a crowd.
  InstanceTable table(3, vat.frame_rows);
  ASSERT_TRUE(set_instance(table, 2, in, 0.0f).ok());
  std::vector<glm::vec3> again(n);
  ASSERT_TRUE(mirror_vertices(vat, table, 2, 0.37f, world, 0, again).ok());
  EXPECT_EQ(again, placed);
  EXPECT_EQ(mirror_joint(vat, table, 2, 0.37f, world, 5).value(), mirror_joint(vat, frame, world, 5).value());

  // A socket across a fade (the head, where a hat goes): it moves no more than the two clips'
  // own motion and the fade's weight step allow, and far less than a cut moves it.
  const int head = [&] {
    for (size_t s = 0; s < vat.slots.size(); ++s) {
      if (vat.slots[s].name.find("Head") != std::string::npos) return int(s);
    }
    return int(vat.slots.size() / 2);
  }();
  const ClipBand walk = named(vat, "Walk"), run = named(vat, "Run");
  auto socket_path = [&](float fade) {
    InstanceTable one(1, vat.frame_rows);
    EXPECT_TRUE(set_instance(one, 0, play(walk, 0.0f), 0.0f).ok());
    std::vector<glm::vec3> path;
    for (int f = 0; f < 120; ++f) {
      if (f == 60) {
        EXPECT_TRUE(set_instance(one, 0, play(run, 60.0f * kDt, fade), 60.0f * kDt).ok());
      }
      path.emplace_back(mirror_joint(vat, one, 0, float(f) * kDt, world, uint32_t(head)).value()[3]);
    }
    return path;
  };
  auto largest_step = [](const std::vector<glm::vec3>& p, int from, int to) {
    float d = 0.0f;
    for (int f = std::max(from, 1); f < to; ++f) d = std::max(d, glm::length(p[f] - p[f - 1]));
    return d * 1000.0f;
  };
  const std::vector<glm::vec3> faded = socket_path(0.3f), cut = socket_path(0.0f);
  const float steady = std::max(largest_step(faded, 0, 60), largest_step(cut, 61, 120));
  const float across = largest_step(faded, 60, 90), popped = largest_step(cut, 60, 61);
  std::printf(
      "[          ] fox %-5s socket '%s' (world scale 0.02): %.3f mm/frame walking or running, "
      "%.3f across a 0.3 s fade, %.3f at a cut\n",
      GetParam() == EncodingChoice::Rig ? "rig" : "delta", vat.slots[size_t(head)].name.c_str(), steady, across,
      popped);
  EXPECT_LT(across, steady + popped / 10.0f);
  EXPECT_GT(popped, 2.0f * across);
}

INSTANTIATE_TEST_SUITE_P(Mirror, MirrorWorld, ::testing::Values(EncodingChoice::Delta, EncodingChoice::Rig),
                         [](const ::testing::TestParamInfo<EncodingChoice>& param) {
                           return std::string(param.param == EncodingChoice::Rig ? "Rig" : "Delta");
                         });

TEST(MirrorBands, ABandMustLieInOneClip) {
  const Vat& vat = baked("fox", EncodingChoice::Rig);
  const VatClip& c0 = vat.clips[0];
  EXPECT_TRUE(check_band(vat, c0.first_row, c0.rows).ok());
  EXPECT_TRUE(check_band(vat, c0.first_row + 1, 2).ok());  // a sub-band is fine
  Result<void> r = check_band(vat, c0.first_row + c0.rows - 2, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("runs past the band of clip 0"), std::string::npos) << r.error().message;
  r = check_band(vat, vat.frame_rows, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is in no clip's band"), std::string::npos) << r.error().message;
  Instance in = play(clip_band(vat, 1), 0.0f);
  in.blend = Blend{ClipBand{c0.first_row + 3, c0.rows, 30.0f}, 0.5f};
  r = check_instance(vat, in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(": blend.clip: rows ["), std::string::npos) << r.error().message;
}

// Picking a clip by name is total: a name that is not there is an error that lists the clips (a
// typo must not become an index the next call reads out of bounds with).
TEST(MirrorBands, ClipBandByNameIsAnErrorForAMissingName) {
  const Vat& vat = baked("fox", EncodingChoice::Rig);
  const Result<ClipBand> walk = clip_band(vat, "Walk");
  ASSERT_TRUE(walk.ok());
  const VatClip& w = vat.clips[static_cast<size_t>(*find_clip(vat, "Walk"))];
  EXPECT_EQ(walk->first_row, w.first_row);
  EXPECT_EQ(walk->rows, w.rows);
  const Result<ClipBand> typo = clip_band(vat, "HumanArmature|Walking");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("no clip named \"HumanArmature|Walking\" (clips: Survey, Walk, Run)"),
            std::string::npos)
      << typo.error().message;
  EXPECT_EQ(typo.error().code, ErrorCode::Argument);
  const Result<ClipBand> past = clip_band(vat, "#3");
  EXPECT_FALSE(past.ok());
  if (!past) {
    EXPECT_EQ(past.error().code, ErrorCode::Argument);
  }
  EXPECT_TRUE(clip_band(vat, "#2").ok());
}

// value() on an error throws the error's message in every build (the documented idiom
// clip_band(vat, "walk").value() must not read past the clip table on a typo).
TEST(MirrorBands, ValueOfAnErrorThrowsItsMessage) {
  const Vat& vat = baked("fox", EncodingChoice::Rig);
  try {
    (void)clip_band(vat, "walk").value();
    FAIL() << "no exception";
  } catch (const BadResultAccess& e) {
    EXPECT_NE(std::string(e.what()).find("no clip named \"walk\""), std::string::npos) << e.what();
  }
}

// So does value() on a Result<void> (what docs/rendering.md's examples call on set_instance), and
// on success it does nothing.
TEST(MirrorBands, ValueOfAVoidErrorThrowsItsMessage) {
  const Vat& vat = baked("fox", EncodingChoice::Rig);
  InstanceTable table(2, vat.frame_rows);
  Instance play;
  play.clip = clip_band(vat, "Walk").value();
  EXPECT_NO_THROW(set_instance(table, 1, play, 0.0f).value());
  const Result<void> refused = set_instance(table, 1, play, NAN);  // a non-finite clock
  ASSERT_FALSE(refused.ok());
  try {
    set_instance(table, 1, play, NAN).value();
    FAIL() << "no exception";
  } catch (const BadResultAccess& e) {
    EXPECT_EQ(std::string(e.what()), refused.error().message);
  }
}

}  // namespace
}  // namespace vatkit

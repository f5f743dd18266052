// Errors as values (result.h): every ErrorCode has its own name, make_error joins file and
// message, and the CPU mirror (mirror.h) refuses a Vat without its animation data, such as the
// metadata() copy a gl::VatGpu keeps, with ErrorCode::Argument instead of crashing. Runtime only:
// part of both test binaries (tests/ and tests/runtime/).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "vatkit/mirror.h"
#include "vatkit/result.h"
#include "vatkit/vat_file.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;

constexpr ErrorCode kAllCodes[] = {ErrorCode::Io,    ErrorCode::Parse,   ErrorCode::InvalidGltf, ErrorCode::Unsupported,
                                   ErrorCode::Limit, ErrorCode::Corrupt, ErrorCode::Argument,    ErrorCode::Gl};

TEST(Errors, EveryCodeHasItsOwnName) {
  std::set<std::string> names;
  for (const ErrorCode code : kAllCodes) {
    const std::string name = to_string(code);
    EXPECT_NE(name, "?") << int(code);
    EXPECT_FALSE(name.empty()) << int(code);
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(kAllCodes));
  EXPECT_STREQ(to_string(ErrorCode::Io), "io");
  EXPECT_STREQ(to_string(ErrorCode::InvalidGltf), "invalid_gltf");
  EXPECT_STREQ(to_string(ErrorCode(uint8_t(ErrorCode::Gl) + 1)), "?");
}

TEST(Errors, MakeErrorKeepsTheCodeAndJoinsFileAndWhat) {
  const Error e = make_error(ErrorCode::Corrupt, "a.vat.glb", "bad");
  EXPECT_EQ(e.code, ErrorCode::Corrupt);
  EXPECT_EQ(e.message, "a.vat.glb: bad");
  const Error bare = make_error(ErrorCode::Argument, "", "bad");
  EXPECT_EQ(bare.code, ErrorCode::Argument);
  EXPECT_EQ(bare.message, "bad");
  const Result<int> r = e;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::Corrupt);
}

fs::path golden(const char* name) { return fs::path(VATKIT_SOURCE_DIR) / "tests" / "golden" / name; }

// What gl::VatGpu::upload keeps of a Vat (gl/src/vat/vat_gpu.cpp): no planes, geometry or images.
Vat metadata_copy(const Vat& vat) {
  Vat meta;
  meta.encoding = vat.encoding;
  meta.precision = vat.precision;
  meta.frame_rows = vat.frame_rows;
  meta.clips = vat.clips;
  meta.bounds = vat.bounds;
  meta.slots = vat.slots;
  meta.materials = vat.materials;
  meta.source = vat.source;
  return meta;
}

PlaybackSample first_row_frame(const Vat& vat) {
  PlaybackSample f;
  f.a.row = f.a.row_next = vat.clips[0].first_row;
  f.b = f.a;
  return f;
}

void expect_argument(const Error& e, const std::string& needle) {
  EXPECT_EQ(e.code, ErrorCode::Argument) << e.message;
  EXPECT_NE(e.message.find(needle), std::string::npos) << e.message;
}

TEST(Errors, MirrorRefusesAVatWithoutItsAnimationData) {
  for (const char* name : {"v2_delta_f16.vat.glb", "v2_rig_q16.vat.glb"}) {
    const Result<Vat> vat = load_vat(golden(name));
    ASSERT_TRUE(vat.ok()) << vat.error().message;
    const PlaybackSample frame = first_row_frame(*vat);
    const glm::mat4 world(1.0f);
    std::vector<glm::vec3> positions(vat->geometry.vertex_count()), normals(positions.size());
    ASSERT_TRUE(mirror_vertices(*vat, frame, world, 0, positions, normals).ok()) << name;
    const bool slots_plane = vat->plane(PlaneSemantic::Slots) != nullptr;
    ASSERT_FALSE(vat->slots.empty()) << name;
    const Result<glm::mat4> joint = mirror_joint(*vat, frame, world, 0);
    if (slots_plane) {
      ASSERT_TRUE(joint.ok()) << name << ": " << joint.error().message;
    } else {
      // A delta bake may list socket slots without baking their plane: nothing to decode from.
      ASSERT_FALSE(joint.ok()) << name;
      expect_argument(joint.error(), "the Vat has no slots plane to decode from");
    }

    // The copy a VatGpu keeps, and a copy of the loaded Vat with what that one drops cleared.
    Vat cleared = *vat;
    cleared.planes.clear();
    cleared.geometry = VatGeometry();
    cleared.images.clear();
    cleared.storage.reset();
    for (const Vat& meta : {metadata_copy(*vat), cleared}) {
      const Result<void> v = mirror_vertices(meta, frame, world, 0, positions, normals);
      ASSERT_FALSE(v.ok()) << name;
      expect_argument(v.error(), "holds no animation data");
      EXPECT_NE(v.error().message.find("pass the loaded Vat"), std::string::npos) << v.error().message;
      EXPECT_EQ(v.error().message.rfind(vat->source + ": mirror_vertices: ", 0), 0u) << v.error().message;
      InstanceTable table(1, meta.frame_rows);
      const Result<void> t = mirror_vertices(meta, table, 0, 0.0f, world, 0, positions);
      ASSERT_FALSE(t.ok()) << name;
      expect_argument(t.error(), "holds no animation data");
      if (!meta.slots.empty()) {
        const Result<glm::mat4> j = mirror_joint(meta, frame, world, 0);
        ASSERT_FALSE(j.ok()) << name;
        expect_argument(j.error(), "holds no animation data");
        const Result<glm::mat4> tj = mirror_joint(meta, table, 0, 0.0f, world, 0);
        ASSERT_FALSE(tj.ok()) << name;
        expect_argument(tj.error(), "holds no animation data");
      }
    }
    // Only the planes gone (the geometry kept): still refused.
    Vat no_planes = *vat;
    no_planes.planes.clear();
    const Result<void> np = mirror_vertices(no_planes, frame, world, 0, positions);
    ASSERT_FALSE(np.ok());
    expect_argument(np.error(), "holds no animation data");
  }
}

TEST(Errors, MirrorRefusesOutOfRangeArguments) {
  const Result<Vat> vat = load_vat(golden("v2_rig_q16.vat.glb"));
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  const PlaybackSample frame = first_row_frame(*vat);
  const glm::mat4 world(1.0f);
  const uint32_t n = vat->geometry.vertex_count();
  std::vector<glm::vec3> positions(n), two(2);
  const Result<void> past = mirror_vertices(*vat, frame, world, n - 1, two);
  ASSERT_FALSE(past.ok());
  expect_argument(past.error(), "run past the Vat's");
  std::vector<glm::vec3> short_normals(n - 1);
  const Result<void> spans = mirror_vertices(*vat, frame, world, 0, positions, short_normals);
  ASSERT_FALSE(spans.ok());
  expect_argument(spans.error(), "normals");
  PlaybackSample outside = frame;
  outside.a.row = outside.a.row_next = vat->frame_rows;
  const Result<void> rows = mirror_vertices(*vat, outside, world, 0, positions);
  ASSERT_FALSE(rows.ok());
  expect_argument(rows.error(), "is in no clip's band");
  PlaybackSample straddle = frame;
  straddle.a.row = vat->clips[0].first_row + vat->clips[0].rows - 1;
  straddle.a.row_next = vat->clips[1].first_row;
  const Result<glm::mat4> across = mirror_joint(*vat, straddle, world, 0);
  ASSERT_FALSE(across.ok());
  expect_argument(across.error(), "not in one clip's band");
  const Result<glm::mat4> slot = mirror_joint(*vat, frame, world, uint32_t(vat->slots.size()));
  ASSERT_FALSE(slot.ok());
  expect_argument(slot.error(), "slot");
}

}  // namespace
}  // namespace vatkit

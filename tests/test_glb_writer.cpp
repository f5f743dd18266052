// The internal GLB writer (bake/src/file/glb_writer.h): the container layout the GLB spec
// requires, alignment of views in the file, exact float round trips, deterministic bytes, the
// Khronos validator's verdict, and every truncation refused by split_glb. The atomic file writes
// (file_io.h) are tested in tests/runtime/test_runtime_files.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "file/glb_writer.h"
#include "test_support.h"
#include "vatkit/file_io.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

uint32_t u32_at(const std::vector<uint8_t>& bytes, size_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}

// A small scene: a triangle (positions with bounds, uint16 indices whose 6 bytes force padding),
// plus an opaque 16-byte-aligned plane referenced from a vendor extension.
glb::Writer make_triangle_writer(uint32_t plane_alignment) {
  glb::Writer w;
  const std::vector<glm::vec3> positions = {{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.1f}, {0.0f, 1.0f, -0.3f}};
  const std::vector<uint16_t> indices = {0, 1, 2};
  glb::AccessorOptions pos;
  pos.target = glb::Target::ArrayBuffer;
  pos.min_max = true;
  glb::AccessorOptions idx;
  idx.target = glb::Target::ElementArrayBuffer;
  const uint32_t p = w.add_accessor(positions, pos);
  const uint32_t i = w.add_accessor(indices, idx);
  w.append("meshes", {{"primitives", {{{"attributes", {{"POSITION", p}}}, {"indices", i}}}}});
  w.append("nodes", {{"mesh", 0}});
  w.append("scenes", {{"nodes", {0}}});
  w.json()["scene"] = 0;
  std::vector<uint8_t> plane(40);
  for (size_t k = 0; k < plane.size(); ++k) plane[k] = static_cast<uint8_t>(k + 1);
  glb::ViewOptions view;
  view.alignment = plane_alignment;
  const uint32_t v = w.add_buffer_view(plane, view);
  w.json()["extensions"]["VATKIT_test"] = {{"plane", v}};
  w.use_extension("VATKIT_test");
  return w;
}

// Runs the Khronos validator; returns its report, or null when node is not installed.
json validate(const fs::path& file) {
  if (test::run_command("command -v node").exit_code != 0) return nullptr;
  const auto r =
      test::run_command("node " + test::shell_quote(VATKIT_VALIDATOR) + " " + test::shell_quote(file.string()));
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  return json::parse(r.out);
}

TEST(GlbWriter, ContainerLayoutPaddingAndAlignment) {
  for (uint32_t alignment : {4u, 16u, 64u}) {
    SCOPED_TRACE(alignment);
    const glb::Writer w = make_triangle_writer(alignment);
    const std::vector<uint8_t> file = w.finish();

    ASSERT_GE(file.size(), 28u);
    EXPECT_EQ(u32_at(file, 0), 0x46546C67u);  // "glTF"
    EXPECT_EQ(u32_at(file, 4), 2u);
    EXPECT_EQ(u32_at(file, 8), file.size());
    const uint32_t json_length = u32_at(file, 12);
    EXPECT_EQ(u32_at(file, 16), 0x4E4F534Au);  // "JSON"
    EXPECT_EQ(json_length % 4, 0u);
    const size_t bin_header = 20 + json_length;
    const uint32_t bin_length = u32_at(file, bin_header);
    EXPECT_EQ(u32_at(file, bin_header + 4), 0x004E4942u);  // "BIN\0"
    EXPECT_EQ(bin_length % 4, 0u);
    EXPECT_EQ(bin_header + 8 + bin_length, file.size());
    EXPECT_EQ((bin_header + 8) % alignment, 0u) << "BIN data must start aligned in the file";

    // The JSON is the writer's document plus the buffer, then only spaces.
    const std::string text(file.begin() + 20, file.begin() + 20 + json_length);
    const size_t end = text.find_last_not_of(' ');
    ASSERT_NE(end, std::string::npos);
    EXPECT_EQ(text[end], '}');
    const json doc = json::parse(text);
    EXPECT_EQ(doc["asset"]["version"], "2.0");
    EXPECT_EQ(doc["buffers"][0]["byteLength"], bin_length);
    EXPECT_EQ(doc["extensionsUsed"], json::array({"VATKIT_test"}));
    EXPECT_FALSE(doc.contains("extensionsRequired"));

    // Views: aligned from the BIN start, inside the buffer, holding exactly the bytes given, and
    // every byte between views zero.
    const auto& views = doc["bufferViews"];
    ASSERT_EQ(views.size(), 3u);
    std::vector<bool> covered(bin_length, false);
    for (size_t v = 0; v < views.size(); ++v) {
      const size_t offset = views[v].value("byteOffset", size_t{0});
      const size_t length = views[v]["byteLength"];
      EXPECT_LE(offset + length, bin_length);
      EXPECT_EQ(offset % 4, 0u);
      for (size_t k = offset; k < offset + length; ++k) covered[k] = true;
    }
    const size_t plane_offset = views[2]["byteOffset"];
    EXPECT_EQ(plane_offset % alignment, 0u);
    EXPECT_EQ((bin_header + 8 + plane_offset) % alignment, 0u) << "the plane is aligned in the file";
    for (size_t k = 0; k < 40; ++k) EXPECT_EQ(file[bin_header + 8 + plane_offset + k], k + 1);
    for (size_t k = 0; k < bin_length; ++k) {
      if (!covered[k]) {
        EXPECT_EQ(file[bin_header + 8 + k], 0) << "padding byte " << k;
      }
    }
    EXPECT_EQ(views[1]["byteLength"], 6);  // the three uint16 indices, unpadded
    EXPECT_EQ(views[0]["target"], 34962);
    EXPECT_EQ(views[1]["target"], 34963);
    EXPECT_FALSE(views[2].contains("target"));

    // split_glb finds the same chunks.
    const Result<glb::Chunks> chunks = glb::split_glb(file, "t.glb");
    ASSERT_TRUE(chunks.ok()) << chunks.error().message;
    EXPECT_EQ(chunks->json.size(), json_length);
    EXPECT_EQ(chunks->bin.size(), bin_length);
    EXPECT_EQ(chunks->bin_offset, bin_header + 8);
  }
}

// A borrowed view is written from the caller's bytes as they are when the file is made (no copy
// is kept), and gives the same file as a copied one; parts() concatenated is finish(), padding
// longer than the writer's block of zeros included; write_file_atomic_pieces writes the pieces
// one after another.
TEST(GlbWriter, BorrowedViewsAndPartsGiveTheSameFile) {
  std::vector<uint8_t> plane(300);
  for (size_t k = 0; k < plane.size(); ++k) plane[k] = static_cast<uint8_t>(k * 7 + 3);
  auto build = [&](bool borrow) {
    glb::Writer w;
    w.add_buffer_view(std::vector<uint8_t>(6, 9));  // 6 bytes: the next view needs 506 of padding
    w.add_buffer_view(plane, {.alignment = 512, .borrow = borrow});
    w.add_buffer_view(plane, {.borrow = borrow});
    return w;
  };
  const glb::Writer copied = build(false), borrowed = build(true);
  const std::vector<uint8_t> file = copied.finish();
  EXPECT_EQ(borrowed.finish(), file);
  const glb::Writer::Parts parts = borrowed.parts();
  EXPECT_EQ(parts.size(), file.size());
  EXPECT_EQ(parts.join(), file);
  std::vector<uint8_t> concatenated = parts.head;
  for (const auto& piece : parts.body) concatenated.insert(concatenated.end(), piece.begin(), piece.end());
  EXPECT_EQ(concatenated, file);
  const glb::Chunks chunks = glb::split_glb(file, "t").value();
  ASSERT_EQ(chunks.bin.size(), 512u + 300u + 300u);  // 6 + 506 of padding, 300, 300
  EXPECT_TRUE(std::equal(plane.begin(), plane.end(), chunks.bin.begin() + 512));
  EXPECT_TRUE(std::all_of(chunks.bin.begin() + 6, chunks.bin.begin() + 512, [](uint8_t b) { return b == 0; }));

  // The borrowed bytes are read when the file is made.
  plane[0] ^= 0xff;
  EXPECT_EQ(copied.finish(), file);
  const std::vector<uint8_t> changed = borrowed.finish();
  ASSERT_EQ(changed.size(), file.size());
  EXPECT_NE(changed, file);
  EXPECT_EQ(changed[chunks.bin_offset + 512], plane[0]);

  const fs::path dir = test::scratch_dir("glb_writer_parts");
  std::vector<std::span<const uint8_t>> pieces{parts.head};
  pieces.insert(pieces.end(), parts.body.begin(), parts.body.end());
  pieces.emplace_back();  // an empty piece writes nothing
  ASSERT_TRUE(write_file_atomic_pieces(dir / "parts.glb", pieces).ok());
  EXPECT_EQ(test::read_file(dir / "parts.glb"), borrowed.finish());
}

TEST(GlbWriter, MinMaxAreTheDataBounds) {
  glb::Writer w;
  const std::vector<glm::vec3> positions = {{0.1f, -2.5f, 3.0f}, {-0.7f, 4.0f, 3.0f}, {0.3f, 0.0f, -1e-7f}};
  glb::AccessorOptions bounded;
  bounded.min_max = true;
  w.add_accessor(positions, bounded);
  const std::vector<uint16_t> shorts = {7, 65535, 3};
  w.add_accessor(shorts, bounded);
  const json doc = json::parse(glb::split_glb(w.finish(), "t").value().json);
  const auto& a = doc["accessors"];
  EXPECT_EQ(a[0]["type"], "VEC3");
  EXPECT_EQ(a[0]["componentType"], 5126);
  EXPECT_EQ(a[0]["count"], 3);
  const glm::vec3 lo(-0.7f, -2.5f, -1e-7f), hi(0.3f, 4.0f, 3.0f);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(static_cast<float>(a[0]["min"][c].get<double>()), lo[c]);
    EXPECT_EQ(static_cast<float>(a[0]["max"][c].get<double>()), hi[c]);
  }
  EXPECT_EQ(a[1]["type"], "SCALAR");
  EXPECT_EQ(a[1]["componentType"], 5123);
  EXPECT_EQ(a[1]["min"], json::array({3}));
  EXPECT_EQ(a[1]["max"], json::array({65535}));
}

TEST(GlbWriter, FloatsReadBackExactly) {
  std::vector<float> values = {0.1f,          1.0f / 3.0f,    -0.0f,       0.0f,        1e-45f,      1.17549435e-38f,
                               3.4028235e38f, -3.4028235e38f, 16777217.0f, 0.30000001f, 123456.789f, 2.5e-10f};
  std::mt19937 rng(12345);
  while (values.size() < 200000) {
    const uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isfinite(f)) values.push_back(f);
  }
  for (float f : values) {
    const std::string text = glb::json_number(f).dump();
    const double parsed = json::parse(text).get<double>();
    // Within the float range as a double too (a reader may check the range before narrowing).
    ASSERT_LE(std::fabs(parsed), double(std::numeric_limits<float>::max())) << text;
    float back = static_cast<float>(parsed);
    ASSERT_EQ(std::memcmp(&back, &f, 4), 0) << text;
    back = std::strtof(text.c_str(), nullptr);  // and straight to float
    ASSERT_EQ(std::memcmp(&back, &f, 4), 0) << text;
  }
  EXPECT_EQ(glb::json_number(0.1f).dump(), "0.1");  // shortest, not 0.10000000149011612
  EXPECT_EQ(glb::json_number(2.0f).dump(), "2.0");
}

TEST(GlbWriter, DeterministicWhateverTheInsertionOrder) {
  auto build = [](bool reverse) {
    glb::Writer w;
    if (reverse) {
      w.json()["scene"] = 0;
      w.json()["asset"]["generator"] = "test";
      w.use_extension("B_ext");
      w.use_extension("A_ext", true);
    } else {
      w.json()["asset"]["generator"] = "test";
      w.use_extension("A_ext", true);
      w.use_extension("B_ext");
      w.use_extension("A_ext");  // listed once
      w.json()["scene"] = 0;
    }
    const std::vector<float> data = {1.0f, 2.0f};
    w.add_accessor(data);
    return w.finish();
  };
  const std::vector<uint8_t> a = build(false), b = build(true);
  EXPECT_EQ(a, b);
  const json doc = json::parse(glb::split_glb(a, "t").value().json);
  EXPECT_EQ(doc["extensionsUsed"], json::array({"A_ext", "B_ext"}));
  EXPECT_EQ(doc["extensionsRequired"], json::array({"A_ext"}));
}

TEST(GlbWriter, WithoutBinaryDataThereIsNoBinChunk) {
  glb::Writer w;
  const std::vector<uint8_t> file = w.finish();
  EXPECT_EQ(file.size(), 20 + u32_at(file, 12));
  const json doc = json::parse(glb::split_glb(file, "t").value().json);
  EXPECT_FALSE(doc.contains("buffers"));
}

TEST(GlbWriter, TheValidatorAcceptsTheOutput) {
  const fs::path dir = test::scratch_dir("glb_writer_validator");
  for (uint32_t alignment : {4u, 16u}) {
    SCOPED_TRACE(alignment);
    glb::Writer w = make_triangle_writer(alignment);
    const fs::path file = dir / ("triangle" + std::to_string(alignment) + ".glb");
    ASSERT_TRUE(write_file_atomic(file, w.finish()).ok());
    const json report = validate(file);
    if (report.is_null()) GTEST_SKIP() << "node is not installed: cannot run the Khronos validator";
    EXPECT_EQ(report["issues"]["numErrors"], 0) << report["issues"].dump(1);
    EXPECT_EQ(report["issues"]["numWarnings"], 0) << report["issues"].dump(1);
  }
}

TEST(SplitGlb, RefusesEveryTruncationAndCorruption) {
  const std::vector<uint8_t> file = make_triangle_writer(16).finish();
  ASSERT_TRUE(glb::split_glb(file, "t.glb").ok());
  for (size_t length = 0; length < file.size(); ++length) {
    const std::vector<uint8_t> cut(file.begin(), file.begin() + length);
    const Result<glb::Chunks> r = glb::split_glb(cut, "t.glb");
    ASSERT_FALSE(r.ok()) << "truncated to " << length;
    EXPECT_EQ(r.error().message.rfind("t.glb: ", 0), 0u) << r.error().message;
  }
  // The same cuts with the header's length patched to match: the chunks no longer fit, except
  // for the cut right after the JSON chunk, which is a valid GLB without a BIN chunk.
  const size_t after_json = 20 + u32_at(file, 12);
  for (size_t length = 12; length < file.size(); length += 4) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + length);
    const auto patched = static_cast<uint32_t>(length);
    std::memcpy(cut.data() + 8, &patched, 4);
    const Result<glb::Chunks> r = glb::split_glb(cut, "t.glb");
    if (length == after_json) {
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_TRUE(r->bin.empty());
    } else {
      EXPECT_FALSE(r.ok()) << "length " << length;
    }
  }
  auto corrupt = [&](size_t offset, uint32_t value) {
    std::vector<uint8_t> bad = file;
    std::memcpy(bad.data() + offset, &value, 4);
    return glb::split_glb(bad, "t.glb");
  };
  EXPECT_FALSE(corrupt(0, 0x12345678).ok());   // magic
  EXPECT_FALSE(corrupt(4, 1).ok());            // version
  EXPECT_FALSE(corrupt(8, 12).ok());           // total length
  EXPECT_FALSE(corrupt(12, 0xFFFFFFF0).ok());  // JSON chunk length
  EXPECT_FALSE(corrupt(12, 6).ok());           // JSON chunk length not a multiple of 4
  EXPECT_FALSE(corrupt(16, 0x004E4942).ok());  // BIN first
  const auto message = corrupt(4, 1).error().message;
  EXPECT_NE(message.find("version 1"), std::string::npos) << message;
}

}  // namespace
}  // namespace vatkit

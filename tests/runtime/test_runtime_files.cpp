// Files through the runtime alone (vatkit::runtime, no baker): the atomic writes and the reads of
// file_io.h, the big buffers of platform/memory.h, and the golden .vat.glb files of tests/golden
// loaded from disk and decoded. Part of both test binaries (tests/ and tests/runtime/), so the
// same assertions run on Linux and, cross-built, on Windows (scripts/windows.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "simd/simd.h"
#include "platform/memory.h"
#include "test_support.h"
#include "vatkit/decode.h"
#include "vatkit/file_io.h"
#include "vatkit/vat_file.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FileIo, AtomicWriteCreatesReplacesAndLeavesNoTemporary) {
  const fs::path dir = test::scratch_dir("file_io");
  const fs::path file = dir / "out.bin";
  const std::vector<uint8_t> first = {1, 2, 3}, second(100000, 7);
  ASSERT_TRUE(write_file_atomic(file, first).ok());
  EXPECT_EQ(test::read_file(file), first);
  ASSERT_TRUE(write_file_atomic(file, second).ok());
  EXPECT_EQ(test::read_file(file), second);
  const Result<std::vector<uint8_t>> read = read_file(file);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, second);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(FileIo, FailedWritesNameThePathAndLeaveNothing) {
  const fs::path dir = test::scratch_dir("file_io_fail");
  const std::vector<uint8_t> bytes = {1, 2, 3};

  const fs::path missing = dir / "no_such_dir" / "out.bin";
  const Result<void> r1 = write_file_atomic(missing, bytes);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().message.rfind(missing.string() + ": ", 0), 0u) << r1.error().message;
  EXPECT_EQ(r1.error().code, ErrorCode::Io);

  // The destination is a directory: rename fails after the temporary was written.
  const fs::path occupied = dir / "a_directory";
  fs::create_directories(occupied / "inside");
  const Result<void> r2 = write_file_atomic(occupied, bytes);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().message.rfind(occupied.string() + ": ", 0), 0u) << r2.error().message;
  EXPECT_EQ(r2.error().code, ErrorCode::Io);

  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"a_directory"}) << "a temporary file was left behind";

  const Result<std::vector<uint8_t>> r3 = read_file(dir / "missing.bin");
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.error().message.find("missing.bin: "), std::string::npos);
  EXPECT_EQ(r3.error().code, ErrorCode::Io);
  const Result<std::vector<uint8_t>> r4 = read_file(occupied);
  ASSERT_FALSE(r4.ok());
  EXPECT_NE(r4.error().message.find("directory"), std::string::npos) << r4.error().message;
  EXPECT_EQ(r4.error().code, ErrorCode::Io);
}

// An output in pieces: nothing at the destination changes until commit(); an output dropped
// before commit() leaves the old file as it was and no temporary; nothing is written after
// finish().
TEST(FileIo, OutputFileCommitsOnceAndAbandonsCleanly) {
  const fs::path dir = test::scratch_dir("file_io_output");
  const fs::path file = dir / "out.bin";
  const std::vector<uint8_t> old_bytes = {9, 9};
  ASSERT_TRUE(write_file_atomic(file, old_bytes).ok());
  {
    Result<OutputFile> out = OutputFile::create(file);
    ASSERT_TRUE(out.ok()) << out.error().message;
    ASSERT_TRUE(out->write(std::string_view("abc")).ok());
    EXPECT_EQ(out->size(), 3u);
    EXPECT_EQ(test::read_file(file), old_bytes);
    EXPECT_EQ(entries(dir).size(), 2u) << "the temporary sits beside the destination";
  }
  EXPECT_EQ(test::read_file(file), old_bytes) << "an abandoned output changed the destination";
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.bin"}) << "an abandoned output left its temporary";

  Result<OutputFile> out = OutputFile::create(file);
  ASSERT_TRUE(out.ok()) << out.error().message;
  const std::vector<uint8_t> piece(5000, 1);
  ASSERT_TRUE(out->write(piece).ok());
  ASSERT_TRUE(out->write(std::string_view("end")).ok());
  ASSERT_TRUE(out->finish().ok());
  EXPECT_FALSE(out->write(std::string_view("late")).ok());
  ASSERT_TRUE(out->commit().ok());
  const Result<void> twice = out->commit();
  EXPECT_FALSE(twice.ok()) << "committed twice";
  if (!twice) {
    EXPECT_EQ(twice.error().code, ErrorCode::Argument);
  }
  std::vector<uint8_t> expected(piece.size() + 3, 1);
  std::memcpy(expected.data() + piece.size(), "end", 3);
  EXPECT_EQ(test::read_file(file), expected);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.bin"});

  const Result<OutputFile> empty = OutputFile::create("");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("an empty name"), std::string::npos) << empty.error().message;
  EXPECT_EQ(empty.error().code, ErrorCode::Argument);
}

TEST(FileIo, ReadsAreExactAndBounded) {
  const fs::path dir = test::scratch_dir("file_io_read");
  const fs::path file = dir / "in.bin";
  std::vector<uint8_t> bytes(10000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  ASSERT_TRUE(write_file_atomic(file, bytes).ok());

  Result<InputFile> in = InputFile::open(file);
  ASSERT_TRUE(in.ok()) << in.error().message;
  EXPECT_EQ(in->size(), bytes.size());
  std::vector<uint8_t> middle(100);
  ASSERT_TRUE(in->read_at(4000, middle).ok());
  EXPECT_EQ(0, std::memcmp(middle.data(), bytes.data() + 4000, middle.size()));
  const Result<void> past = in->read_at(9950, middle);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().message, file.string() +
                                      ": ends at 10000 bytes, but 10050 bytes were expected "
                                      "(truncated, or changed while being read)");
  EXPECT_EQ(past.error().code, ErrorCode::Io);
  const Result<std::vector<uint8_t>> rest = in->read_rest(9000, 1000, "the limit");
  ASSERT_TRUE(rest.ok()) << rest.error().message;
  EXPECT_EQ(*rest, std::vector<uint8_t>(bytes.begin() + 9000, bytes.end()));
  const Result<std::vector<uint8_t>> over = in->read_rest(9000, 999, "the limit");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, file.string() + ": is 1000 bytes from byte 9000, more than the limit (999 bytes)");
  EXPECT_EQ(over.error().code, ErrorCode::Limit);

  const Result<std::vector<uint8_t>> all = read_file(file);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, bytes);
  EXPECT_FALSE(read_file(file, 9999).ok());
  const Result<InputFile> unnamed = InputFile::open("");
  EXPECT_FALSE(unnamed.ok());
  if (!unnamed) {
    EXPECT_EQ(unnamed.error().code, ErrorCode::Argument);
  }
}

// allocate_big: 64-byte aligned below 1 MiB, 2 MiB aligned from there, writable to the end, and
// released with free_big (on Windows the blocks come from _aligned_malloc, not malloc).
TEST(BigBuffers, AlignedWritableAndFreed) {
  for (const size_t bytes : {size_t(1), size_t(4096), size_t(1) << 20, size_t(3) << 20}) {
    void* p = detail::allocate_big(bytes);
    ASSERT_NE(p, nullptr);
    const size_t align = bytes >= (size_t(1) << 20) ? size_t(2) << 20 : 64;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u) << bytes;
    std::memset(p, 0xAB, bytes);
    EXPECT_EQ(static_cast<uint8_t*>(p)[bytes - 1], 0xAB);
    detail::free_big(p);
  }
}

// ---- the golden .vat.glb files (tests/golden/README.md) ----

fs::path golden(const char* name) { return fs::path(VATKIT_SOURCE_DIR) / "tests" / "golden" / name; }

constexpr const char* kGoldenFiles[] = {"v1_delta_f16.vat.glb", "v1_rig_q16.vat.glb", "v2_delta_f16.vat.glb",
                                        "v2_rig_q16.vat.glb"};

// FNV-1a over the bytes of what was decoded.
struct Digest {
  uint64_t h = 0xcbf29ce484222325ull;
  template <class T>
  void add(const std::vector<T>& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    for (size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  }
};

// Every vertex (position, normal, tangent) at every row of every clip, and halfway to the next
// row, and for a rig every slot: its digest.
uint64_t decode_digest(const Vat& vat) {
  Digest d;
  const uint32_t n = vat.geometry.vertex_count();
  std::vector<glm::vec3> positions(n), normals(n);
  std::vector<glm::vec4> tangents(n);
  for (uint32_t c = 0; c < vat.clips.size(); ++c) {
    const VatClip& clip = vat.clips[c];
    for (uint32_t r = 0; r < clip.rows; ++r) {
      const uint32_t row = clip.first_row + r;
      const uint32_t next = clip.first_row + std::min(r + 1, clip.rows - 1);
      for (const float mix : {0.0f, 0.5f}) {
        const PoseBlend pose = single(RowBlend{c, row, next, mix});
        decode_vertices(vat, pose, 0, positions, normals, tangents);
        d.add(positions);
        d.add(normals);
        d.add(tangents);
        if (vat.encoding == Encoding::Rig) {
          for (uint32_t s = 0; s < vat.slots.size(); ++s) {
            const glm::mat4 m = decode_slot(vat, pose, s).matrix();
            d.add(std::vector<glm::mat4>{m});
          }
        }
      }
    }
  }
  return d.h;
}

// Loaded from a file (InputFile, allocate_big) and from memory, the golden files give the same
// Vat, and decode to the same bits on every platform: the digests below are what the Linux build
// computes, with every SIMD width (the decode is exact IEEE arithmetic whatever the width). A deliberate change of
// the decode arithmetic changes them; the failure prints the new values.
TEST(RuntimeFiles, GoldenFilesLoadAndDecodeTheSameEverywhere) {
  // Versions 1 and 2 hold the same Vat (tests/golden/README.md).
  const uint64_t expected[] = {0x3d00e70a6e514599, 0xb7d9ed4100dd6d71, 0x3d00e70a6e514599, 0xb7d9ed4100dd6d71};
  for (size_t i = 0; i < std::size(kGoldenFiles); ++i) {
    const fs::path path = golden(kGoldenFiles[i]);
    EXPECT_TRUE(is_vat_file(path)) << path;
    const Result<Vat> from_file = load_vat(path);
    ASSERT_TRUE(from_file.ok()) << from_file.error().message;
    const std::vector<uint8_t> bytes = test::read_file(path);
    const Result<Vat> from_memory = load_vat_memory(bytes, path.string());
    ASSERT_TRUE(from_memory.ok()) << from_memory.error().message;
    ASSERT_TRUE(validate_vat(*from_file).ok());
    EXPECT_EQ(from_file->geometry.vertex_count(), 8u);
    ASSERT_EQ(from_file->clips.size(), 3u);
    EXPECT_EQ(from_file->clips[0].rows, 3u);
    EXPECT_EQ(from_file->clips[1].rows, 2u);
    EXPECT_EQ(from_file->clips[2].rows, 1u);
    const uint64_t digest = decode_digest(*from_file);
    EXPECT_EQ(digest, decode_digest(*from_memory)) << kGoldenFiles[i];
    EXPECT_EQ(digest, expected[i]) << kGoldenFiles[i] << ": 0x" << std::hex << digest;
    for (const unsigned lanes : detail::simd_widths()) {  // each width the CPU runs, the scalar twins first
      detail::force_simd_lanes(lanes);
      EXPECT_EQ(decode_digest(*from_file), digest) << kGoldenFiles[i] << ", " << lanes << " lanes";
    }
    detail::force_simd_lanes(0);
  }
}

// Every truncation of a golden file, read from disk, is refused by name (never a crash), and a
// file that is not a .vat.glb is not taken for one.
TEST(RuntimeFiles, TruncatedFilesAreRefusedByName) {
  const fs::path dir = test::scratch_dir("runtime_truncated");
  const std::vector<uint8_t> bytes = test::read_file(golden("v2_rig_q16.vat.glb"));
  ASSERT_GT(bytes.size(), 100u);
  const fs::path cut = dir / "cut.vat.glb";
  for (size_t size = 0; size < bytes.size(); size += size < 64 ? 1 : 97) {
    ASSERT_TRUE(write_file_atomic(cut, std::span<const uint8_t>(bytes.data(), size)).ok());
    const Result<Vat> loaded = load_vat(cut);
    ASSERT_FALSE(loaded.ok()) << size << " bytes loaded";
    EXPECT_EQ(loaded.error().message.rfind(cut.string() + ": ", 0), 0u) << loaded.error().message;
    EXPECT_EQ(loaded.error().code, ErrorCode::Parse) << loaded.error().message;
  }
  const fs::path text = dir / "text.vat.glb";
  const std::string_view words = "not a GLB at all";
  ASSERT_TRUE(write_file_atomic(text, std::span(reinterpret_cast<const uint8_t*>(words.data()), words.size())).ok());
  EXPECT_FALSE(is_vat_file(text));
  EXPECT_FALSE(is_vat_file(dir));
  const Result<Vat> directory = load_vat(dir);
  EXPECT_FALSE(directory.ok());
  if (!directory) {
    EXPECT_EQ(directory.error().code, ErrorCode::Io);
  }
}

}  // namespace
}  // namespace vatkit

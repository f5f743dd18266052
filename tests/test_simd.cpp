// The SIMD kernels of the texel rows against their scalar twins (simd.h), directly on random and
// edge-case inputs, at every width this CPU runs. (The skinning kernels, the rig kernel and the
// levels of detail's distances are compared the same way in test_skin.cpp, test_bake.cpp and
// test_lod.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "simd/delta_rows.h"
#include "simd/simd.h"
#include "simd/slot_rows.h"
#include "simd/unorm16.h"

namespace vatkit {
namespace {

struct ForceLanes {
  explicit ForceLanes(unsigned lanes) { detail::force_simd_lanes(lanes); }
  ~ForceLanes() { detail::force_simd_lanes(0); }
};

// Random values with the edge cases a row meets: zeros of both signs, values past f16's range,
// f16 subnormals, and exact halfway cases of the quantizers.
std::vector<float> edgy_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const float specials[] = {0.0f, -0.0f, 70000.0f, -70000.0f, 65504.0f, 3e-6f, -3e-8f, 1.0f, -1.0f, 0.5f};
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = i % 7 == 3 ? specials[(i / 7) % std::size(specials)] : u(rng);
  return out;
}

TEST(SimdTwins, Unorm16DecodeMatchesTheScalarTwinOnEveryCode) {
  for (uint32_t q = 0; q < 65536; ++q) {
    const uint16_t codes[4] = {uint16_t(q), uint16_t(65535 - q), uint16_t(q * 7), uint16_t(q ^ 0x5555)};
    uint8_t bytes[8];
    std::memcpy(bytes, codes, 8);
    const glm::vec4 a = detail::unorm16x4_to_float(bytes), b = detail::unorm16x4_to_float_scalar(bytes);
    ASSERT_EQ(std::memcmp(&a, &b, 16), 0) << "code " << q;
    ASSERT_EQ(b.x, float(q) / 65535.0f);
  }
}

TEST(SimdTwins, DeltaRowsMatchTheScalarTwinAtEveryPrecision) {
  const uint32_t n = 1001;  // not a multiple of any lane count
  const std::vector<float> f = edgy_floats(9 * (n + 1), 11);
  std::vector<glm::vec3> pos(n + 1), rest(n + 1), nrm(n + 1);
  for (uint32_t v = 0; v <= n; ++v) {
    pos[v] = glm::vec3(f[9 * v], f[9 * v + 1], f[9 * v + 2]);
    rest[v] = glm::vec3(f[9 * v + 3], f[9 * v + 4], f[9 * v + 5]);
    nrm[v] = glm::vec3(f[9 * v + 6], f[9 * v + 7], f[9 * v + 8]);
  }
  for (const bool with_normals : {false, true}) {
    const detail::RowIn in{pos.data(), rest.data(), with_normals ? nrm.data() : nullptr, n};
    for (const Precision prec : {Precision::F32, Precision::F16, Precision::Q16}) {
      if (prec == Precision::Q16 && !with_normals) continue;  // a precondition: q16 rows carry normals
      auto run = [&](unsigned lanes, std::vector<uint8_t>& p, std::vector<uint8_t>& q, std::vector<glm::vec4>& stage,
                     detail::RowStats& st) {
        ForceLanes force(lanes);
        p.assign(16 * size_t(n), 0xAB);
        q.assign(16 * size_t(n), 0xAB);
        stage.assign(n, glm::vec4(-7.0f));
        detail::encode_delta_row(in, prec, p.data(), with_normals ? q.data() : nullptr, stage.data(), st);
      };
      std::vector<uint8_t> p1, q1;
      std::vector<glm::vec4> s1;
      detail::RowStats st1;
      run(1, p1, q1, s1, st1);
      for (unsigned lanes : detail::simd_widths()) {
        std::vector<uint8_t> pw, qw;
        std::vector<glm::vec4> sw;
        detail::RowStats stw;
        run(lanes, pw, qw, sw, stw);
        SCOPED_TRACE(std::to_string(lanes) + " lanes, " + to_string(prec) + (with_normals ? ", normals" : ""));
        EXPECT_EQ(pw, p1);
        EXPECT_EQ(qw, q1);
        EXPECT_EQ(std::memcmp(sw.data(), s1.data(), sw.size() * sizeof(glm::vec4)), 0);
        EXPECT_EQ(std::memcmp(&stw, &st1, sizeof stw), 0);
      }
      // The scalar twin itself against the definition, at one vertex.
      const glm::vec3 d = pos[5] - rest[5];
      if (prec == Precision::F32) {
        float t[4];
        std::memcpy(t, p1.data() + 5 * 16, 16);
        EXPECT_EQ(t[0], d.x);
        EXPECT_EQ(t[3], 0.0f);
      } else if (prec == Precision::Q16) {
        EXPECT_EQ(s1[5].x, d.x);
        if (with_normals) {
          EXPECT_EQ(s1[5].w, float(codec::oct8_encode(nrm[5])));
        }
      }
    }
  }
}

TEST(SimdTwins, Q16QuantizerMatchesTheScalarTwin) {
  const uint32_t n = 777;
  const std::vector<float> f = edgy_floats(4 * n, 12);
  std::vector<glm::vec4> in(n);
  for (uint32_t v = 0; v < n; ++v) in[v] = glm::vec4(f[4 * v], f[4 * v + 1], f[4 * v + 2], f[4 * v + 3]);
  const glm::vec4 lo(-1.5f, -1.0f, -0.25f, 0.0f), scale(65535.0f / 3.0f, 65535.0f / 2.0f, 65535.0f / 0.5f, 1.0f);
  std::vector<uint8_t> scalar(8 * size_t(n));
  detail::quantize_q16_row_scalar(in.data(), n, lo, scale, scalar.data());
  for (unsigned lanes : detail::simd_widths()) {
    ForceLanes force(lanes);
    std::vector<uint8_t> out(8 * size_t(n));
    detail::quantize_q16_row(in.data(), n, lo, scale, out.data());
    EXPECT_EQ(out, scalar) << lanes << " lanes";
  }
  uint16_t first[4];
  std::memcpy(first, scalar.data(), 8);
  EXPECT_EQ(first[0], codec::quantize_unorm16_scaled(in[0].x, lo.x, scale.x));
}

TEST(SimdTwins, SlotRowsMatchTheScalarTwinAtEveryPrecision) {
  const uint32_t slots = 37;
  std::vector<float> in = edgy_floats(8 * size_t(slots), 13);
  const detail::v4 lo{-2.0f, -1.0f, -0.5f, 0.0f}, hi{2.0f, 1.5f, 0.5f, 2.0f};
  const detail::v4 t_scale{codec::unorm16_scale(lo[0], hi[0]), codec::unorm16_scale(lo[1], hi[1]),
                           codec::unorm16_scale(lo[2], hi[2]), codec::unorm16_scale(lo[3], hi[3])};
  for (const TexelFormat format : {TexelFormat::RGBA32F, TexelFormat::RGBA16F, TexelFormat::RGBA16Unorm}) {
    std::vector<uint8_t> scalar(32 * size_t(slots), 0xCD);
    detail::encode_slot_row_scalar(in.data(), slots, format, lo, t_scale, scalar.data());
    for (unsigned lanes : detail::simd_widths()) {
      ForceLanes force(lanes);
      std::vector<uint8_t> out(32 * size_t(slots), 0xCD);
      detail::encode_slot_row(in.data(), slots, format, lo, t_scale, out.data());
      EXPECT_EQ(out, scalar) << lanes << " lanes, format " << int(format);
    }
    if (format == TexelFormat::RGBA16F) {
      uint16_t h[8];
      std::memcpy(h, scalar.data(), 16);
      for (int c = 0; c < 8; ++c) EXPECT_EQ(h[c], codec::float_to_half(in[size_t(c)]));
    }
  }
}

}  // namespace
}  // namespace vatkit

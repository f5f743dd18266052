// The precisions hold the worst-case errors vat.h and docs/encodings.md state: the half and
// 16-bit codecs over their whole domains, the octahedral normal over the sphere, and each
// precision's stored texels against the f32 bake of the same asset, texel by texel; plus the Q16
// delta's size and error on human-sized characters.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "decode/codec.h"
#include "test_bake_util.h"
#include "vatkit/sample_character.h"

namespace vatkit {
namespace {

using test::bake_ok;
using test::options_for;
using test::shared_asset;

// Round-to-nearest-even to binary16, by exhaustive comparison over doubles: the reference.
double nearest_half(double x, const std::vector<double>& halves) {
  // halves: every finite non-negative half, ascending.
  const double a = std::fabs(x);
  auto it = std::lower_bound(halves.begin(), halves.end(), a);
  double r;
  if (it == halves.end()) {
    r = a >= 65520.0 ? INFINITY : halves.back();
  } else if (it == halves.begin()) {
    r = *it;
  } else {
    const double hi = *it, lo = *(it - 1);
    if (a - lo < hi - a) {
      r = lo;
    } else if (hi - a < a - lo) {
      r = hi;
    } else {  // a tie: the even mantissa
      const uint16_t hl = codec::float_to_half(float(lo));
      r = (hl & 1u) ? hi : lo;
    }
  }
  return std::copysign(r, x);
}

TEST(PrecisionCodecs, HalfRoundTripsEveryHalfAndRoundsToNearestEven) {
  std::vector<double> halves;
  for (uint32_t h = 0; h < 0x7c00u; ++h) {
    const float f = codec::half_to_float(uint16_t(h));
    ASSERT_EQ(codec::float_to_half(f), h) << h;
    const float n = codec::half_to_float(uint16_t(h | 0x8000u));
    ASSERT_EQ(codec::float_to_half(n), uint16_t(h | 0x8000u)) << h;
    halves.push_back(double(f));
  }
  EXPECT_EQ(codec::half_to_float(0x3c00u), 1.0f);
  EXPECT_EQ(codec::half_to_float(0x7bffu), 65504.0f);
  EXPECT_EQ(codec::half_to_float(0x0001u), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(codec::half_to_float(0x7c00u)));
  EXPECT_TRUE(std::isnan(codec::half_to_float(codec::float_to_half(NAN))));
  EXPECT_EQ(codec::float_to_half(65519.99f), 0x7bffu);
  EXPECT_EQ(codec::float_to_half(65520.0f), 0x7c00u);
  // Midpoints between neighbours round to the even one; random floats to the nearest.
  for (size_t i = 1; i < halves.size(); ++i) {
    const float mid = float(0.5 * (halves[i - 1] + halves[i]));
    if (double(mid) != 0.5 * (halves[i - 1] + halves[i])) continue;  // not representable
    ASSERT_EQ(double(codec::half_to_float(codec::float_to_half(mid))), nearest_half(mid, halves)) << mid;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-26.0f, 16.5f);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::exp2(exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
    const double got = double(codec::half_to_float(codec::float_to_half(x)));
    ASSERT_EQ(got, nearest_half(x, halves)) << x;
    // The documented bound: relative 2^-11 in the normal range, 2^-25 absolute below it.
    if (std::fabs(x) <= 65504.0f) {
      ASSERT_LE(std::fabs(got - double(x)),
                std::max(std::fabs(double(x)) * std::ldexp(1.0, -11), std::ldexp(1.0, -25)));
    }
  }
}

TEST(PrecisionCodecs, Unorm16ErrorIsHalfAStep) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-100.0f, 100.0f);
  for (int i = 0; i < 100000; ++i) {
    float lo = u(rng), hi = u(rng);
    if (lo > hi) std::swap(lo, hi);
    std::uniform_real_distribution<float> in(lo, hi);
    const float v = in(rng);
    const float back = codec::dequantize_unorm16(codec::quantize_unorm16(v, lo, hi), lo, hi);
    const float rounding = 4.0f * FLT_EPSILON * std::max(std::fabs(lo), std::fabs(hi));
    ASSERT_LE(std::fabs(back - v), (hi - lo) / 131070.0f + rounding) << lo << " " << hi << " " << v;
  }
  EXPECT_EQ(codec::dequantize_unorm16(codec::quantize_unorm16(-3.0f, -3.0f, 5.0f), -3.0f, 5.0f), -3.0f);
  EXPECT_EQ(codec::dequantize_unorm16(codec::quantize_unorm16(5.0f, -3.0f, 5.0f), -3.0f, 5.0f), 5.0f);
  EXPECT_EQ(codec::quantize_unorm16(2.0f, 2.0f, 2.0f), 0u);  // an empty range stores 0, decodes lo
  for (uint32_t q = 0; q <= 65535; ++q) {
    ASSERT_EQ(codec::quantize_snorm_as_unorm16(codec::dequantize_snorm_as_unorm16(uint16_t(q))), q);
  }
}

TEST(PrecisionCodecs, OctahedralNormalsWithinSevenTenthsOfADegree) {
  float worst = 0.0f;
  auto check = [&](glm::vec3 n) {
    n = glm::normalize(n);
    const glm::vec3 d = codec::oct8_decode(codec::oct8_encode(n));
    ASSERT_NEAR(glm::length(d), 1.0f, 1e-6f);
    const double chord = glm::length(glm::dvec3(d) - glm::dvec3(n));
    worst = std::max(worst, float(2.0 * std::asin(std::min(1.0, chord / 2.0)) * 180.0 / M_PI));
  };
  const int N = 600;
  for (int i = 0; i <= N; ++i) {
    for (int j = 0; j < 2 * N; ++j) {
      const double th = M_PI * i / N, ph = M_PI * j / N;
      check(glm::vec3(float(std::sin(th) * std::cos(ph)), float(std::sin(th) * std::sin(ph)), float(std::cos(th))));
    }
  }
  std::mt19937 rng(11);
  std::normal_distribution<float> g;
  for (int i = 0; i < 300000; ++i) check(glm::vec3(g(rng), g(rng), g(rng)));
  for (glm::vec3 axis : {glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, 1), glm::vec3(-1, 0, 0),
                         glm::vec3(0, -1, 0), glm::vec3(0, 0, -1), glm::vec3(1, 1, 1), glm::vec3(-1, -1, -1)})
    check(axis);
  EXPECT_LE(worst, 0.7f);
  EXPECT_GT(worst, 0.3f);  // the bound is not loose by an order of magnitude
}

// ---- stored texels against the f32 bake --------------------------------------------------------

void expect_delta_texels_within_bounds(const Asset& a, const char* what) {
  SCOPED_TRACE(what);
  const Vat f = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F32, 15.0f));
  const Vat h = bake_ok(a, options_for(EncodingChoice::Delta, Precision::F16, 15.0f));
  const Vat q = bake_ok(a, options_for(EncodingChoice::Delta, Precision::Q16, 15.0f));
  const bool tangents = f.plane(PlaneSemantic::Tangent) != nullptr;
  float worst_normal = 0.0f;
  for (uint32_t c = 0; c < f.clips.size(); ++c) {
    const VatClip& clip = q.clips[c];
    const glm::vec3 step = (clip.delta_range.max - clip.delta_range.min) / 131070.0f;
    const float rounding =
        4.0f * FLT_EPSILON * std::max(glm::length(clip.delta_range.min), glm::length(clip.delta_range.max));
    for (uint32_t k = 0; k < clip.rows; ++k) {
      const uint32_t row = clip.first_row + k;
      for (uint32_t v = 0; v < f.geometry.vertex_count(); ++v) {
        const glm::vec3 df(read_texel(f, PlaneSemantic::Position, row, v));
        const glm::vec3 dh(read_texel(h, PlaneSemantic::Position, row, v));
        const glm::vec3 dq(read_texel(q, PlaneSemantic::Position, row, v));
        for (int i = 0; i < 3; ++i) {
          ASSERT_LE(std::fabs(dh[i] - df[i]),
                    std::max(std::fabs(df[i]) * std::ldexp(1.0f, -11), std::ldexp(1.0f, -25)));
          ASSERT_LE(std::fabs(dq[i] - df[i]), step[i] + rounding) << "row " << row << " vertex " << v << " axis " << i;
        }
        const glm::vec3 nf(read_texel(f, PlaneSemantic::Normal, row, v));
        const glm::vec3 nh(read_texel(h, PlaneSemantic::Normal, row, v));
        const glm::vec3 nq(read_texel(q, PlaneSemantic::Normal, row, v));
        for (int i = 0; i < 3; ++i) ASSERT_LE(std::fabs(nh[i] - nf[i]), std::ldexp(1.0f, -11));
        const double chord = glm::length(glm::dvec3(nq) - glm::dvec3(glm::normalize(nf)));
        worst_normal = std::max(worst_normal, float(2.0 * std::asin(std::min(1.0, chord / 2.0)) * 180.0 / M_PI));
        if (tangents) {
          const glm::vec4 tf = read_texel(f, PlaneSemantic::Tangent, row, v);
          const glm::vec4 tq = read_texel(q, PlaneSemantic::Tangent, row, v);
          for (int i = 0; i < 4; ++i) ASSERT_LE(std::fabs(tq[i] - tf[i]), 1.0f / 65535.0f + 1e-6f);
        }
      }
    }
  }
  EXPECT_LE(worst_normal, 0.7f);
}

TEST(PrecisionTexels, DeltaF16AndQ16WithinTheirBounds) {
  expect_delta_texels_within_bounds(shared_asset("khronos/CesiumMan.glb"), "CesiumMan");
  expect_delta_texels_within_bounds(shared_asset("khronos/AnimatedMorphCube.glb"), "AnimatedMorphCube (tangents)");
  expect_delta_texels_within_bounds(shared_asset("threejs/Horse.glb"), "Horse");
}

TEST(PrecisionTexels, SlotsF16AndQ16WithinTheirBounds) {
  for (const char* file : {"threejs/RobotExpressive.glb", "quaternius/knight/KnightCharacter.glb"}) {
    SCOPED_TRACE(file);
    const Asset& a = shared_asset(file);
    for (EncodingChoice e : {EncodingChoice::Rig, EncodingChoice::Delta}) {  // delta: the socket slots
      const Vat f = bake_ok(a, options_for(e, Precision::F32, 15.0f));
      const Vat h = bake_ok(a, options_for(e, Precision::F16, 15.0f));
      const Vat q = bake_ok(a, options_for(e, Precision::Q16, 15.0f));
      // Q16: the scalar codec's code of the f32 value, to the bit (the bake quantizes 4 lanes at
      // a time).
      const Plane& qp = *q.plane(PlaneSemantic::Slots);
      auto code = [&](uint32_t row, uint32_t texel, int c) {
        uint16_t v[4];
        std::memcpy(v, qp.data.data() + codec::texel_index(qp, row, texel) * 8, 8);
        return v[c];
      };
      for (const VatClip& clip : q.clips) {
        const glm::vec3 tstep = (clip.translation_range.max - clip.translation_range.min) / 131070.0f;
        const float sstep = (clip.scale_max - clip.scale_min) / 131070.0f;
        const float trounding =
            4.0f * FLT_EPSILON *
            std::max(glm::length(clip.translation_range.min), glm::length(clip.translation_range.max));
        for (uint32_t k = 0; k < clip.rows; ++k) {
          for (uint32_t s = 0; s < f.slots.size(); ++s) {
            const uint32_t row = clip.first_row + k;
            const SlotTransform sf = read_slot(f, row, s), sh = read_slot(h, row, s), sq = read_slot(q, row, s);
            // F16: the f32 value rounded by the scalar codec, to the bit (the bake converts
            // with F16C where the CPU has it).
            const auto half = [](float x) { return codec::half_to_float(codec::float_to_half(x)); };
            for (int i = 0; i < 4; ++i) {
              ASSERT_LE(std::fabs(sq.rotation[i] - sf.rotation[i]), 1.0f / 65535.0f + 1e-7f);
              ASSERT_LE(std::fabs(sh.rotation[i] - sf.rotation[i]), std::ldexp(1.0f, -12) + 1e-7f);
              ASSERT_EQ(sh.rotation[i], half(sf.rotation[i])) << "row " << row << " slot " << s;
            }
            ASSERT_EQ(sh.scale, half(sf.scale)) << "row " << row << " slot " << s;
            for (int i = 0; i < 4; ++i)
              ASSERT_EQ(code(row, 2 * s, i), codec::quantize_snorm_as_unorm16(sf.rotation[i]));
            for (int i = 0; i < 3; ++i) {
              ASSERT_EQ(code(row, 2 * s + 1, i),
                        codec::quantize_unorm16(sf.translation[i], clip.translation_range.min[i],
                                                clip.translation_range.max[i]));
            }
            ASSERT_EQ(code(row, 2 * s + 1, 3), codec::quantize_unorm16(sf.scale, clip.scale_min, clip.scale_max));
            for (int i = 0; i < 3; ++i) {
              ASSERT_LE(std::fabs(sq.translation[i] - sf.translation[i]), tstep[i] + trounding);
              ASSERT_LE(std::fabs(sh.translation[i] - sf.translation[i]),
                        std::max(std::fabs(sf.translation[i]) * std::ldexp(1.0f, -11), std::ldexp(1.0f, -25)));
              ASSERT_EQ(sh.translation[i], half(sf.translation[i])) << "row " << row << " slot " << s;
            }
            ASSERT_LE(std::fabs(sq.scale - sf.scale), sstep + 4.0f * FLT_EPSILON * std::fabs(clip.scale_max));
          }
        }
      }
    }
  }
}

// ---- the quantized delta on human-sized characters ---------------------------------------------

TEST(PrecisionQ16, DeltaIsEightBytesPerVertexFrameAndUnderHalfAMillimetre) {
  auto sample = load_sample_character();
  ASSERT_TRUE(sample.ok()) << sample.error().message;
  const Asset* assets[] = {&shared_asset("khronos/CesiumMan.glb"), &sample.value()};
  for (const Asset* a : assets) {
    SCOPED_TRACE(a->source);
    const Vat v = bake_ok(*a, options_for(EncodingChoice::Delta, Precision::Q16));
    EXPECT_EQ(v.plane(PlaneSemantic::Normal), nullptr);
    const Plane* p = v.plane(PlaneSemantic::Position);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->byte_size(), size_t(8) * v.geometry.vertex_count() * v.frame_rows);
    const Bounds& b = v.bounds;
    EXPECT_GT(b.max.y - b.min.y + b.max.z - b.min.z, 1.0f);  // human-sized: over a metre tall
    const auto err = test::measure_ok(*a, v);
    for (const ClipError& e : err) {
      EXPECT_LT(e.on_rows_max_mm, 0.5f) << e.clip;
      EXPECT_LE(e.normal_max_deg, 180.0f);
    }
    // Between rows the quantization adds at most its on-row error to the f32 interpolation.
    const auto ferr = test::measure_ok(*a, bake_ok(*a, options_for(EncodingChoice::Delta, Precision::F32)));
    for (size_t c = 0; c < err.size(); ++c) {
      EXPECT_LE(err[c].between_rows_max_mm, ferr[c].between_rows_max_mm + err[c].on_rows_max_mm + 1e-3f) << err[c].clip;
    }
  }
}

}  // namespace
}  // namespace vatkit

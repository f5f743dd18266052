// A minimal, independent glTF reader for tests: the JSON and the raw buffers of a .glb or of a
// .gltf with data: URIs, and float/integer accessor decoding (no sparse, no extensions). Tests
// use it to read keyframes and vertices straight from the file, so their expectations do not
// come from the importer or the sampler under test.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace vatkit::test {

struct GltfProbe {
  nlohmann::json json;
  std::vector<std::vector<uint8_t>> buffers;

  static std::vector<uint8_t> base64(const std::string& s) {
    auto val = [](char c) -> int {
      if (c >= 'A' && c <= 'Z') return c - 'A';
      if (c >= 'a' && c <= 'z') return c - 'a' + 26;
      if (c >= '0' && c <= '9') return c - '0' + 52;
      if (c == '+') return 62;
      if (c == '/') return 63;
      return -1;
    };
    std::vector<uint8_t> out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
      const int v = val(c);
      if (v < 0) continue;  // '=' padding and anything else
      acc = (acc << 6) | uint32_t(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.push_back(uint8_t((acc >> bits) & 0xFF));
      }
    }
    return out;
  }

  static GltfProbe load(const std::filesystem::path& path) {
    GltfProbe p;
    const std::vector<uint8_t> bytes = read_file(path);
    auto u32 = [&](size_t at) {
      uint32_t v;
      std::memcpy(&v, bytes.data() + at, 4);
      return v;
    };
    if (bytes.size() >= 20 && std::memcmp(bytes.data(), "glTF", 4) == 0) {
      const uint32_t json_len = u32(12);
      p.json = nlohmann::json::parse(bytes.begin() + 20, bytes.begin() + 20 + json_len);
      const size_t bin_at = 20 + json_len;
      if (bin_at + 8 <= bytes.size()) {
        const uint32_t bin_len = u32(bin_at);
        p.buffers.emplace_back(bytes.begin() + long(bin_at + 8), bytes.begin() + long(bin_at + 8 + bin_len));
      }
    } else {
      p.json = nlohmann::json::parse(bytes.begin(), bytes.end());
      for (const auto& b : p.json["buffers"]) {
        const std::string uri = b.value("uri", "");
        const auto comma = uri.find(',');
        if (uri.rfind("data:", 0) != 0 || comma == std::string::npos)
          throw std::runtime_error("probe: only data: URIs");
        p.buffers.push_back(base64(uri.substr(comma + 1)));
      }
    }
    return p;
  }

  static int components(const std::string& type) {
    if (type == "SCALAR") return 1;
    if (type == "VEC2") return 2;
    if (type == "VEC3") return 3;
    if (type == "VEC4") return 4;
    if (type == "MAT4") return 16;
    throw std::runtime_error("probe: type " + type);
  }

  // Every component of accessor `index` as double; normalized integers mapped as the spec says.
  std::vector<double> read(int index) const {
    const auto& a = json["accessors"][size_t(index)];
    const auto& bv = json["bufferViews"][a["bufferView"].get<size_t>()];
    const int nc = components(a["type"].get<std::string>());
    const int ct = a["componentType"].get<int>();
    const size_t csize = (ct == 5126 || ct == 5125) ? 4 : (ct == 5123 || ct == 5122) ? 2 : 1;
    const size_t stride = bv.value("byteStride", size_t(nc) * csize);
    const size_t base = bv.value("byteOffset", size_t(0)) + a.value("byteOffset", size_t(0));
    const bool normalized = a.value("normalized", false);
    const auto& buf = buffers[bv["buffer"].get<size_t>()];
    const size_t count = a["count"].get<size_t>();
    std::vector<double> out;
    out.reserve(count * size_t(nc));
    for (size_t i = 0; i < count; ++i) {
      for (int c = 0; c < nc; ++c) {
        const uint8_t* p = buf.data() + base + i * stride + size_t(c) * csize;
        double v = 0.0;
        switch (ct) {
          case 5126: {
            float f;
            std::memcpy(&f, p, 4);
            v = f;
            break;
          }
          case 5125: {
            uint32_t u;
            std::memcpy(&u, p, 4);
            v = u;
            break;
          }
          case 5123: {
            uint16_t u;
            std::memcpy(&u, p, 2);
            v = normalized ? u / 65535.0 : u;
            break;
          }
          case 5122: {
            int16_t s;
            std::memcpy(&s, p, 2);
            v = normalized ? std::max(s / 32767.0, -1.0) : s;
            break;
          }
          case 5121: {
            v = normalized ? *p / 255.0 : *p;
            break;
          }
          case 5120: {
            const int8_t s = int8_t(*p);
            v = normalized ? std::max(s / 127.0, -1.0) : s;
            break;
          }
          default: throw std::runtime_error("probe: componentType");
        }
        out.push_back(v);
      }
    }
    return out;
  }
};

// The glTF 2.0 sampling rules, in double precision, written from the spec's text (Appendix C).
inline std::vector<double> spec_sample(const std::string& interpolation, const std::vector<double>& times,
                                       const std::vector<double>& values, int nc, double t, bool rotation) {
  const size_t n = times.size();
  const bool cubic = interpolation == "CUBICSPLINE";
  auto value = [&](size_t k) {
    const size_t at = (cubic ? 3 * k + 1 : k) * size_t(nc);
    return std::vector<double>(values.begin() + long(at), values.begin() + long(at) + nc);
  };
  if (t <= times[0]) return value(0);
  if (t >= times[n - 1]) return value(n - 1);
  size_t k = 0;
  while (!(times[k] <= t && t < times[k + 1])) ++k;
  if (interpolation == "STEP") return value(k);
  const double d = times[k + 1] - times[k];
  const double u = (t - times[k]) / d;
  std::vector<double> out(static_cast<size_t>(nc));
  if (!cubic) {
    const auto a = value(k);
    auto b = value(k + 1);
    if (!rotation) {
      for (int c = 0; c < nc; ++c) out[size_t(c)] = (1 - u) * a[size_t(c)] + u * b[size_t(c)];
      return out;
    }
    double dot = 0;
    for (int c = 0; c < 4; ++c) dot += a[size_t(c)] * b[size_t(c)];
    if (dot < 0) {
      dot = -dot;
      for (auto& x : b) x = -x;
    }
    const double theta = std::acos(std::min(1.0, dot));
    double sa = 1 - u, sb = u;
    if (theta > 1e-9) {
      sa = std::sin((1 - u) * theta) / std::sin(theta);
      sb = std::sin(u * theta) / std::sin(theta);
    }
    for (int c = 0; c < 4; ++c) out[size_t(c)] = sa * a[size_t(c)] + sb * b[size_t(c)];
    return out;
  }
  const double u2 = u * u, u3 = u2 * u;
  for (int c = 0; c < nc; ++c) {
    const double vk = values[(3 * k + 1) * size_t(nc) + size_t(c)];
    const double bk = values[(3 * k + 2) * size_t(nc) + size_t(c)];   // out-tangent of k
    const double ak1 = values[(3 * k + 3) * size_t(nc) + size_t(c)];  // in-tangent of k+1
    const double vk1 = values[(3 * k + 4) * size_t(nc) + size_t(c)];
    out[size_t(c)] =
        (2 * u3 - 3 * u2 + 1) * vk + (u3 - 2 * u2 + u) * d * bk + (-2 * u3 + 3 * u2) * vk1 + (u3 - u2) * d * ak1;
  }
  if (rotation) {
    double len = 0;
    for (double x : out) len += x * x;
    len = std::sqrt(len);
    for (double& x : out) x /= len;
  }
  return out;
}

}  // namespace vatkit::test

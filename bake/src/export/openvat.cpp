// OpenVAT's files from a Vat: see vatkit/export_openvat.h and docs/openvat.md.
#include "vatkit/export_openvat.h"

#include <png.h>

#ifdef VATKIT_WITH_OPENEXR
#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfIO.h>
#include <OpenEXR/ImfOutputFile.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <span>

#include <nlohmann/json.hpp>

#include "decode/codec.h"
#include "file/glb_writer.h"
#include "vatkit/decode.h"

namespace vatkit {

namespace {

using json = nlohmann::json;

// glTF's y-up axes to Blender's z-up ones, the axes OpenVAT's texture holds (its engine shaders
// turn them back: Godot reads (x, z, -y)).
glm::vec3 to_blender(glm::vec3 v) { return {v.x, -v.z, v.y}; }

uint16_t quantize(float unit) { return static_cast<uint16_t>(std::lround(std::clamp(unit, 0.0f, 1.0f) * 65535.0f)); }

uint32_t next_power_of_two(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p > std::numeric_limits<uint32_t>::max() ? 0 : static_cast<uint32_t>(p);
}

int log2_of(uint32_t power) {
  int l = 0;
  while ((uint32_t{1} << l) < power) ++l;
  return l;
}

// The clip names as the sidecar's "animations" keys: the clip's label, made unique by its index
// when two clips share one (a JSON object cannot hold a key twice).
std::vector<std::string> animation_names(const Vat& vat) {
  std::map<std::string, int> uses;
  for (int c = 0; c < int(vat.clips.size()); ++c) ++uses[clip_label(vat, c)];
  std::vector<std::string> names;
  for (int c = 0; c < int(vat.clips.size()); ++c) {
    const std::string label = clip_label(vat, c);
    names.push_back(uses[label] > 1 ? label + " #" + std::to_string(c) : label);
  }
  return names;
}

// The rest-pose mesh with the VAT address in TEXCOORD_1 (vatkit/export_openvat.h).
std::vector<uint8_t> write_mesh(const Vat& vat, const OpenVatLayout& layout) {
  const VatGeometry& g = vat.geometry;
  const uint32_t n = g.vertex_count();
  std::vector<glm::vec2> address(n);
  for (uint32_t i = 0; i < n; ++i) {
    address[i] = {(float(i % layout.width) + 0.5f) / float(layout.width),
                  (float((i / layout.width) * layout.frames) + 0.5f) / float(layout.height)};
  }
  glb::Writer w;
  w.json()["asset"]["generator"] = "vatkit export --to openvat";
  glb::AccessorOptions vertex;
  vertex.target = glb::Target::ArrayBuffer;
  glb::AccessorOptions position = vertex;
  position.min_max = true;
  json attributes = json::object();
  attributes["POSITION"] = w.add_accessor(g.positions, position);
  if (!g.normals.empty()) {
    std::vector<glm::vec3> normals = g.normals;
    for (glm::vec3& v : normals) {
      const float length = glm::length(v);
      v = length > 0.0f ? v / length : glm::vec3(0.0f, 1.0f, 0.0f);  // glTF normals are unit length
    }
    attributes["NORMAL"] = w.add_accessor(normals, vertex);
  }
  // TEXCOORD_1 is the address only when TEXCOORD_0 exists: zeros stand in for a source without.
  const std::vector<glm::vec2> texcoords0 = g.texcoords0.empty() ? std::vector<glm::vec2>(n) : g.texcoords0;
  attributes["TEXCOORD_0"] = w.add_accessor(texcoords0, vertex);
  attributes["TEXCOORD_1"] = w.add_accessor(address, vertex);
  glb::AccessorOptions index;
  index.target = glb::Target::ElementArrayBuffer;
  json primitive = {{"attributes", attributes}, {"indices", w.add_accessor(g.indices, index)}};
  const uint32_t mesh = w.append("meshes", {{"name", "openvat"}, {"primitives", json::array({primitive})}});
  const uint32_t node = w.append("nodes", {{"name", "openvat"}, {"mesh", mesh}});
  w.append("scenes", {{"nodes", json::array({node})}});
  w.json()["scene"] = 0;
  return w.finish();
}

}  // namespace

Result<OpenVatLayout> openvat_layout(uint32_t vertices, uint32_t frames, uint32_t max_size, const std::string& source) {
  OpenVatLayout best, any;
  uint64_t best_area = 0, any_area = 0;
  for (uint64_t width = 64; width <= max_size && vertices > 0 && frames > 0; width *= 2) {
    const uint64_t wraps = (vertices + width - 1) / width;
    const uint32_t height = next_power_of_two(2 * wraps * frames);
    if (height == 0 || height > max_size) continue;
    const OpenVatLayout layout{uint32_t(width), height, uint32_t(wraps), frames};
    const uint64_t area = width * height;
    if (any_area == 0 || area < any_area) any = layout, any_area = area;
    if (std::abs(log2_of(uint32_t(width)) - log2_of(height)) <= 1 && (best_area == 0 || area < best_area)) {
      best = layout, best_area = area;
    }
  }
  if (best_area > 0) return best;
  if (any_area > 0) return any;
  return make_error(ErrorCode::Limit, source,
                    std::to_string(vertices) + " vertices x " + std::to_string(frames) +
                        " frames do not fit OpenVAT's packed texture of at most " + std::to_string(max_size) + " x " +
                        std::to_string(max_size) + " texels (fewer frames: bake at a lower --fps)");
}

Result<std::vector<uint8_t>> encode_png_rgb16(const std::vector<uint16_t>& rgb, uint32_t width, uint32_t height,
                                              const std::string& source) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    return make_error(ErrorCode::Io, source, "libpng could not start a PNG");
  }
  std::vector<uint8_t> out;
  std::vector<uint8_t> row(size_t(width) * 6);
  // libpng reports errors by longjmp: nothing with a destructor is created below this point.
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return make_error(ErrorCode::Io, source, "libpng failed to encode the texture");
  }
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, png_size_t size) {
        auto* bytes = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(p));
        bytes->insert(bytes->end(), data, data + size);
      },
      nullptr);
  png_set_IHDR(png, info, width, height, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_set_compression_level(png, 6);
  png_write_info(png, info);
  for (uint32_t y = 0; y < height; ++y) {
    for (size_t i = 0; i < size_t(width) * 3; ++i) {  // PNG samples are big-endian
      const uint16_t v = rgb[size_t(y) * width * 3 + i];
      row[2 * i] = uint8_t(v >> 8);
      row[2 * i + 1] = uint8_t(v & 0xff);
    }
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

#ifdef VATKIT_WITH_OPENEXR
namespace {

// OpenEXR's output stream into memory: the file is written through OutputFile like the others.
class MemoryStream : public Imf::OStream {
 public:
  MemoryStream() : Imf::OStream("memory") {}
  void write(const char c[], int n) override {
    if (position_ + size_t(n) > bytes.size()) bytes.resize(position_ + size_t(n));
    std::memcpy(bytes.data() + position_, c, size_t(n));
    position_ += size_t(n);
  }
  uint64_t tellp() override { return position_; }
  void seekp(uint64_t position) override { position_ = position; }
  std::vector<uint8_t> bytes;

 private:
  size_t position_ = 0;
};

}  // namespace

Result<std::vector<uint8_t>> encode_exr_rgb_half(const std::vector<float>& rgb, uint32_t width, uint32_t height,
                                                 const std::string& source) {
  std::vector<Imath::half> halves(rgb.begin(), rgb.end());
  MemoryStream stream;
  try {
    Imf::Header header(static_cast<int>(width), static_cast<int>(height));
    header.compression() = Imf::ZIP_COMPRESSION;
    const char* names[3] = {"R", "G", "B"};
    Imf::FrameBuffer frame;
    for (int c = 0; c < 3; ++c) {
      header.channels().insert(names[c], Imf::Channel(Imf::HALF));
      frame.insert(names[c], Imf::Slice(Imf::HALF, reinterpret_cast<char*>(halves.data() + c), 3 * sizeof(Imath::half),
                                        size_t(width) * 3 * sizeof(Imath::half)));
    }
    Imf::OutputFile file(stream, header);  // its destructor finishes the file (the offset table)
    file.setFrameBuffer(frame);
    file.writePixels(int(height));
  } catch (const std::exception& e) {
    return make_error(ErrorCode::Io, source, std::string("OpenEXR failed to encode the texture: ") + e.what());
  }
  return std::move(stream.bytes);
}
#else
Result<std::vector<uint8_t>> encode_exr_rgb_half(const std::vector<float>&, uint32_t, uint32_t,
                                                 const std::string& source) {
  return make_error(ErrorCode::Unsupported, source,
                    "this vatkit was built without OpenEXR (a libc++ build, or libopenexr-dev missing): use --image "
                    "png16");
}
#endif

namespace {

// Every frame row decoded: offsets from the rest position and unit normals, in Blender's axes,
// frame-major (row r's vertex i at r * n + i).
struct DecodedFrames {
  std::vector<glm::vec3> offsets, normals;
};
DecodedFrames decode_frames(const Vat& vat, const OpenVatLayout& L) {
  const uint32_t n = vat.geometry.vertex_count();
  DecodedFrames d{std::vector<glm::vec3>(size_t(L.frames) * n), std::vector<glm::vec3>(size_t(L.frames) * n)};
  std::vector<glm::vec3> posed(n), normal(n);
  for (uint32_t c = 0; c < vat.clips.size(); ++c) {
    const VatClip& clip = vat.clips[c];
    for (uint32_t k = 0; k < clip.rows; ++k) {
      const uint32_t row = clip.first_row + k;
      decode_vertices(vat, single(RowBlend{c, row, row, 0.0f}), 0, posed, normal);
      for (uint32_t i = 0; i < n; ++i) {
        d.offsets[size_t(row) * n + i] = to_blender(posed[i] - vat.geometry.positions[i]);
        const float length = glm::length(normal[i]);
        d.normals[size_t(row) * n + i] = length > 0.0f ? to_blender(normal[i] / length) : glm::vec3(0.0f);
      }
    }
  }
  return d;
}

// The texture's values in [0, 1] as the chosen format stores them (RGB, rows of positions then
// rows of normals), with the largest position and normal errors that storage leaves in `out`
// (whose remap bounds are set).
std::vector<float> pack_texels(const DecodedFrames& d, const OpenVatLayout& L, uint32_t n, bool exr,
                               OpenVatExport& out) {
  auto stored = [exr](float unit) {
    unit = std::clamp(unit, 0.0f, 1.0f);
    return exr ? codec::half_to_float(codec::float_to_half(unit)) : float(quantize(unit)) / 65535.0f;
  };
  const glm::vec3 span = out.remap_max - out.remap_min;
  std::vector<float> rgb(size_t(L.width) * L.height * 3, 0.0f);
  for (uint32_t f = 0; f < L.frames; ++f) {
    for (uint32_t i = 0; i < n; ++i) {
      const size_t x = i % L.width;
      const size_t y = size_t(i / L.width) * L.frames + f;
      const glm::vec3 p = d.offsets[size_t(f) * n + i];
      const glm::vec3 nv = d.normals[size_t(f) * n + i];
      glm::vec3 decoded, decoded_normal;
      for (int a = 0; a < 3; ++a) {
        const float q = span[a] > 0.0f ? stored((p[a] - out.remap_min[a]) / span[a]) : 0.0f;
        rgb[(y * L.width + x) * 3 + a] = q;
        decoded[a] = out.remap_min[a] + span[a] * q;
        const float qn = stored(nv[a] * 0.5f + 0.5f);
        rgb[((y + L.height / 2) * L.width + x) * 3 + a] = qn;
        decoded_normal[a] = qn * 2.0f - 1.0f;
      }
      out.position_error = std::max(out.position_error, glm::length(decoded - p));
      if (glm::length(nv) > 0.0f) {
        const float cosine = glm::dot(glm::normalize(decoded_normal), nv);
        out.normal_error_deg =
            std::max(out.normal_error_deg, float(std::acos(std::clamp(double(cosine), -1.0, 1.0)) * 180.0 / M_PI));
      }
    }
  }
  return rgb;
}

// The sidecar: OpenVAT's remap and animations, and vatkit's own description of the export.
std::string sidecar_json(const Vat& vat, const OpenVatOptions& options, const OpenVatExport& out) {
  const OpenVatLayout& L = out.layout;
  json animations = json::object();
  json clips = json::array();
  const std::vector<std::string> names = animation_names(vat);
  for (size_t c = 0; c < vat.clips.size(); ++c) {
    const VatClip& clip = vat.clips[c];
    animations[names[c]] = {{"startFrame", clip.first_row},
                            {"endFrame", clip.first_row + clip.rows - 1},
                            {"framerate", glb::json_number(clip.fps)},
                            {"looping", clip.defaults.loop_mode != LoopMode::Once}};
    clips.push_back({{"name", names[c]},
                     {"durationSeconds", glb::json_number(clip.duration_s)},
                     {"loopMode", to_string(clip.defaults.loop_mode)}});
  }
  json sources = json::array();
  for (const SourceRange& s : vat.geometry.sources) {
    sources.push_back({{"node", s.node},
                       {"mesh", s.mesh},
                       {"primitive", s.primitive},
                       {"firstVertex", s.first_vertex},
                       {"vertexCount", s.source_vertex_count}});
  }
  json sidecar = {
      {"os-remap",
       {{"Min", glb::json_array(out.remap_min)}, {"Max", glb::json_array(out.remap_max)}, {"Frames", L.frames}}},
      {"animations", std::move(animations)},
      {"vatkit",
       {{"texture", options.texture_name},
        {"mesh", options.mesh_name},
        {"width", L.width},
        {"height", L.height},
        {"wraps", L.wraps},
        {"vertices", vat.geometry.vertex_count()},
        {"normals", "packed"},
        {"image", options.image == OpenVatImage::Exr16 ? "exr16" : "png16"},
        {"axes", "blender"},
        {"addressTexCoord", 1},
        {"positionErrorMax", glb::json_number(out.position_error)},
        {"normalErrorMaxDegrees", glb::json_number(out.normal_error_deg)},
        {"clips", std::move(clips)},
        {"sources", std::move(sources)}}}};
  return sidecar.dump(2) + "\n";
}

}  // namespace

Result<OpenVatExport> export_openvat(const Vat& vat, const OpenVatOptions& options) {
  const uint32_t n = vat.geometry.vertex_count();
  if (vat.clips.empty()) return make_error(ErrorCode::Unsupported, vat.source, "holds no clip to export");
  if (n == 0) return make_error(ErrorCode::Unsupported, vat.source, "holds no vertex to export");
  Result<OpenVatLayout> layout = openvat_layout(n, vat.frame_rows, options.max_texture_size, vat.source);
  if (!layout) return layout.error();
  const OpenVatLayout& L = *layout;

  const DecodedFrames frames = decode_frames(vat, L);
  // OpenVAT's remap bounds: per channel, rounded outward to a tenth.
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(std::numeric_limits<float>::lowest());
  for (const glm::vec3& d : frames.offsets) lo = glm::min(lo, d), hi = glm::max(hi, d);
  OpenVatExport out;
  out.layout = L;
  for (int a = 0; a < 3; ++a) {
    out.remap_min[a] = float(std::floor(double(lo[a]) * 10.0) / 10.0);
    out.remap_max[a] = float(std::ceil(double(hi[a]) * 10.0) / 10.0);
  }
  const bool exr = options.image == OpenVatImage::Exr16;
  const std::vector<float> rgb = pack_texels(frames, L, n, exr, out);
  auto png = [&] {
    std::vector<uint16_t> q(rgb.size());
    for (size_t k = 0; k < rgb.size(); ++k) q[k] = quantize(rgb[k]);
    return encode_png_rgb16(q, L.width, L.height, vat.source);
  };
  Result<std::vector<uint8_t>> texture = exr ? encode_exr_rgb_half(rgb, L.width, L.height, vat.source) : png();
  if (!texture) return texture.error();
  out.texture = std::move(*texture);
  out.mesh_glb = write_mesh(vat, L);
  out.sidecar_json = sidecar_json(vat, options, out);
  return out;
}

}  // namespace vatkit

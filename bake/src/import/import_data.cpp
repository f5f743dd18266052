// The importer's data layer: buffers (GLB chunk, data URIs, external files, meshopt fallbacks),
// bufferViews (EXT_meshopt_compression decoded here), accessors (checked once against the real
// byte counts, then decoded on demand) and images (kept encoded).
#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include <meshoptimizer.h>

#include "import/import_internal.h"

namespace vatkit::import_detail {

namespace fs = std::filesystem;

void fail(ErrorCode code, const std::string& path, const std::string& reason) {
  throw Failure{code, path.empty() ? reason : path + ": " + reason};
}

void fail(const std::string& path, const std::string& reason) { fail(ErrorCode::InvalidGltf, path, reason); }

std::string indexed(const char* array, size_t index) { return std::string(array) + "[" + std::to_string(index) + "]"; }

void Context::take_input(uint64_t bytes, const std::string& path) {
  if (bytes > options.max_input_bytes || input_bytes > options.max_input_bytes - bytes)
    fail(ErrorCode::Limit, path,
         std::to_string(bytes) + " more bytes would take the import past its input limit of " +
             std::to_string(options.max_input_bytes) + " bytes (ImportOptions::max_input_bytes; " +
             std::to_string(input_bytes) + " taken so far)");
  input_bytes += bytes;
}

void Context::charge(uint64_t bytes, const std::string& path) {
  if (bytes > budget_bytes)
    fail(ErrorCode::Limit, path,
         "decodes to more data than a file of this size can plausibly hold (limit " +
             std::to_string(budget_bytes >> 20) + " MiB left)");
  budget_bytes -= bytes;
}

namespace {

const json* find_path(const json& root, std::initializer_list<const char*> keys) {
  const json* v = &root;
  for (const char* k : keys) {
    if (!v->is_object()) return nullptr;
    auto it = v->find(k);
    if (it == v->end()) return nullptr;
    v = &*it;
  }
  return v;
}

// ---- URIs -------------------------------------------------------------------------------------

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

bool base64_decode(std::string_view in, std::vector<uint8_t>& out) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  out.clear();
  out.reserve(in.size() / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = base64_value(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((acc >> bits) & 0xFFu));
    }
  }
  return bits < 6;  // a single leftover character cannot encode a byte
}

struct DataUri {
  std::string mime_type;
  std::vector<uint8_t> bytes;
};

// RFC 2397: data:[<mediatype>][;base64],<data>
DataUri decode_data_uri(const std::string& uri, const std::string& path) {
  const size_t comma = uri.find(',');
  if (comma == std::string::npos) fail(path, "data URI has no ','");
  std::string_view header(uri.data() + 5, comma - 5);
  std::string_view payload(uri.data() + comma + 1, uri.size() - comma - 1);
  DataUri out;
  bool base64 = false;
  if (header.size() >= 7 && header.substr(header.size() - 7) == ";base64") {
    base64 = true;
    header.remove_suffix(7);
  }
  out.mime_type = std::string(header.substr(0, header.find(';')));
  if (base64) {
    if (!base64_decode(payload, out.bytes)) fail(path, "data URI is not valid base64");
  } else {
    const std::string decoded = percent_decode(payload);
    out.bytes.assign(decoded.begin(), decoded.end());
  }
  return out;
}

bool has_scheme(const std::string& uri) {
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (size_t i = 1; i < uri.size(); ++i) {
    const char c = uri[i];
    if (c == ':') return i > 1;  // "C:" would be a drive letter, not a scheme
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

// Is `path` (canonical) `root` (canonical) or inside it? Component by component: /x/ab is not
// inside /x/a.
bool is_within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // the empty last component of a root written with a trailing '/'
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

const std::vector<fs::path>& allowed_roots(Context& ctx, const std::string& path) {
  if (!ctx.roots.empty()) return ctx.roots;
  std::error_code ec;
  fs::path own = fs::canonical(ctx.base_dir, ec);
  if (ec)
    fail(ErrorCode::Io, path, "cannot resolve the asset's folder " + ctx.base_dir.string() + " (" + ec.message() + ")");
  ctx.roots.push_back(std::move(own));
  for (const fs::path& root : ctx.options.allowed_roots) {
    fs::path canonical = fs::canonical(root, ec);
    if (!ec) ctx.roots.push_back(std::move(canonical));  // a folder that does not exist holds nothing
  }
  return ctx.roots;
}

constexpr uint64_t kWholeFile = ~uint64_t{0};

// Reads the file an external `uri` names: `byte_length` bytes of it (refused when it has fewer),
// or all of it (kWholeFile). Only inside the folders ImportOptions allows (import.h); the
// canonical path checked is the one opened.
std::vector<uint8_t> read_external(Context& ctx, const std::string& uri, const std::string& path,
                                   uint64_t byte_length) {
  const std::string upath = path + ".uri";
  const std::string quoted = "\"" + uri.substr(0, 200) + (uri.size() > 200 ? "...\"" : "\"");
  if (has_scheme(uri))
    fail(ErrorCode::Unsupported, upath,
         quoted + " is not a relative file reference (only data URIs and files inside the asset's folder are read)");
  const std::string relative = percent_decode(uri);
  if (relative.empty()) fail(upath, "is empty");
  if (relative.find('\0') != std::string::npos)
    fail(upath, quoted + " decodes to a NUL byte, which no file name holds");
  if (ctx.base_dir.empty())
    fail(ErrorCode::Argument, path,
         "refers to the external file \"" + relative + "\", but the glTF was read from memory with no base directory");
  const fs::path named = fs::path(relative).is_absolute() ? fs::path(relative) : ctx.base_dir / fs::path(relative);
  auto cannot_read = [&](const std::string& where, const std::string& reason) {
    fail(ErrorCode::Io, path, "cannot read \"" + relative + "\" (" + where + "): " + reason);
  };
  std::error_code ec;
  const fs::path file = fs::canonical(named, ec);
  if (ec) cannot_read(named.string(), ec == std::errc::no_such_file_or_directory ? "no such file" : ec.message());
  const std::vector<fs::path>& roots = allowed_roots(ctx, path);
  if (std::none_of(roots.begin(), roots.end(), [&](const fs::path& root) { return is_within(file, root); })) {
    std::string where = "outside the asset's folder " + roots[0].string();
    for (size_t r = 1; r < roots.size(); ++r)
      where += (r == 1 ? " and the allowed folders " : ", ") + roots[r].string();
    fail(ErrorCode::Unsupported, upath,
         quoted + " resolves to " + file.string() + ", " + where + " (external files are read only inside " +
             (roots.size() > 1 ? "these" : "it") +
             "; --allow-root DIR, or ImportOptions::allowed_roots, allows another folder)");
  }
  Result<InputFile> input = InputFile::open(file);
  auto reason = [&](const Error& error) {
    const std::string prefix = file.string() + ": ";
    return error.message.rfind(prefix, 0) == 0 ? error.message.substr(prefix.size()) : error.message;
  };
  if (!input) cannot_read(file.string(), reason(input.error()));
  const uint64_t size = input->size();
  if (byte_length != kWholeFile && size < byte_length)
    fail(path,
         "\"" + relative + "\" has " + std::to_string(size) + " bytes, byteLength says " + std::to_string(byte_length));
  const uint64_t wanted = byte_length == kWholeFile ? size : byte_length;
  ctx.take_input(wanted, path);
  std::vector<uint8_t> bytes(static_cast<size_t>(wanted));
  if (Result<void> r = input->read_at(0, bytes); !r) cannot_read(file.string(), reason(r.error()));
  if (ctx.options.files_read) ctx.options.files_read->push_back(file);
  return bytes;
}

// ---- EXT_meshopt_compression ------------------------------------------------------------------

// EXT_meshopt_compression's properties of one bufferView, type-checked.
struct MeshoptSource {
  uint64_t buffer = 0, offset = 0, length = 0, stride = 0, count = 0;
  std::string mode, filter;
};

MeshoptSource read_meshopt(const json& ext, const std::string& path) {
  if (!ext.is_object()) fail(path, "must be an object");
  auto uint_field = [&](const char* key, bool required, uint64_t fallback) -> uint64_t {
    auto it = ext.find(key);
    if (it == ext.end()) {
      if (required) fail(path + "." + key, "required property is missing");
      return fallback;
    }
    if (!it->is_number_unsigned()) fail(path + "." + key, "must be a non-negative integer");
    return it->get<uint64_t>();
  };
  auto string_field = [&](const char* key, const char* fallback) -> std::string {
    auto it = ext.find(key);
    if (it == ext.end()) return fallback;
    if (!it->is_string()) fail(path + "." + key, "must be a string");
    return it->get<std::string>();
  };
  MeshoptSource m;
  m.buffer = uint_field("buffer", true, 0);
  m.offset = uint_field("byteOffset", false, 0);
  m.length = uint_field("byteLength", true, 0);
  m.stride = uint_field("byteStride", true, 0);
  m.count = uint_field("count", true, 0);
  m.mode = string_field("mode", "");
  m.filter = string_field("filter", "NONE");
  return m;
}

// Runs the codec (and for ATTRIBUTES the filter) that `m` names on `src` into `out`, which holds
// m.count x m.stride bytes or more: meshoptimizer's status (0 on success).
int run_meshopt(const MeshoptSource& m, const uint8_t* src, std::vector<uint8_t>& out, const std::string& path) {
  if (m.count == 0) return 0;
  if (m.mode == "ATTRIBUTES") {
    if (m.stride % 4 != 0) fail(path + ".byteStride", "must be a multiple of 4 for ATTRIBUTES");
    const int rc = meshopt_decodeVertexBuffer(out.data(), m.count, m.stride, src, m.length);
    if (rc != 0 || m.filter == "NONE") return rc;
    if (m.filter == "OCTAHEDRAL") {
      if (m.stride != 4 && m.stride != 8) fail(path, "filter OCTAHEDRAL needs byteStride 4 or 8");
      meshopt_decodeFilterOct(out.data(), m.count, m.stride);
    } else if (m.filter == "QUATERNION") {
      if (m.stride != 8) fail(path, "filter QUATERNION needs byteStride 8");
      meshopt_decodeFilterQuat(out.data(), m.count, m.stride);
    } else if (m.filter == "EXPONENTIAL") {
      meshopt_decodeFilterExp(out.data(), m.count, m.stride);
    } else {
      fail(path + ".filter", "\"" + m.filter + "\" is not a meshopt filter");
    }
    return 0;
  }
  if (m.mode == "TRIANGLES" || m.mode == "INDICES") {
    if (m.stride != 2 && m.stride != 4) fail(path + ".byteStride", "must be 2 or 4 for " + m.mode);
    if (m.filter != "NONE") fail(path + ".filter", "must be NONE for " + m.mode);
    if (m.mode == "INDICES") return meshopt_decodeIndexSequence(out.data(), m.count, m.stride, src, m.length);
    if (m.count % 3 != 0) fail(path + ".count", "must be a multiple of 3 for TRIANGLES");
    return meshopt_decodeIndexBuffer(out.data(), m.count, m.stride, src, m.length);
  }
  fail(path + ".mode", "\"" + m.mode + "\" is not ATTRIBUTES, TRIANGLES or INDICES");
  return 0;
}

void decode_meshopt(Context& ctx, const json& ext, const std::string& view_path, size_t view_length, ViewData& view) {
  const std::string path = view_path + ".extensions.EXT_meshopt_compression";
  const MeshoptSource m = read_meshopt(ext, path);
  if (m.buffer >= ctx.buffers.size())
    fail(path + ".buffer", std::to_string(m.buffer) + " does not exist (the file has " +
                               std::to_string(ctx.buffers.size()) + " buffers)");
  const BufferData& source = ctx.buffers[m.buffer];
  if (source.fallback) fail(path + ".buffer", "refers to a fallback buffer, which has no data");
  if (m.offset > source.bytes.size() || m.length > source.bytes.size() - m.offset)
    fail(path, "byteOffset " + std::to_string(m.offset) + " + byteLength " + std::to_string(m.length) +
                   " runs past buffers[" + std::to_string(m.buffer) + "] (byteLength " +
                   std::to_string(source.bytes.size()) + ")");
  if (m.stride == 0 || m.stride > 256)
    fail(path + ".byteStride", std::to_string(m.stride) + " is not between 1 and 256");
  if (m.count > std::numeric_limits<uint64_t>::max() / m.stride) fail(path + ".count", "is too large");
  const uint64_t decoded_size = m.count * m.stride;
  if (decoded_size > view_length)
    fail(path, "decodes to " + std::to_string(decoded_size) +
                   " bytes (count x byteStride), more than the bufferView's byteLength " + std::to_string(view_length));
  // meshoptimizer's codecs cannot expand data by more than about 64x; anything claiming more is
  // corrupt, and refusing it keeps a tiny file from allocating gigabytes.
  if (view_length > 128 * m.length + 4096)
    fail(path, "a bufferView of " + std::to_string(view_length) + " bytes cannot come from " +
                   std::to_string(m.length) + " compressed bytes");

  ctx.charge(view_length, path);
  view.owned.assign(static_cast<size_t>(view_length), 0);
  const int rc = run_meshopt(m, source.bytes.data() + m.offset, view.owned, path);
  if (rc != 0) fail(path, "meshoptimizer cannot decode the compressed data (error " + std::to_string(rc) + ")");
  view.bytes = view.owned;
}

// ---- accessor decoding ------------------------------------------------------------------------

uint32_t component_size_of(int component_type) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    default: return 0;
  }
}

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// The glTF 2.0 spec's conversions of normalized integers (section 3.11, "Animations" and
// "Accessor Data Types"): f = max(c / 127, -1), c / 255, max(c / 32767, -1), c / 65535.
template <class T, bool Normalized>
float to_float(T c) {
  if constexpr (!Normalized) {
    return static_cast<float>(c);
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return std::max(static_cast<float>(c) / 127.0f, -1.0f);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<float>(c) / 255.0f;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return std::max(static_cast<float>(c) / 32767.0f, -1.0f);
  } else {
    static_assert(std::is_same_v<T, uint16_t>);
    return static_cast<float>(c) / 65535.0f;
  }
}

template <class T, bool Normalized>
void decode_elements(const AccessorInfo& info, const uint8_t* src, size_t stride, size_t count,
                     const std::array<uint16_t, 16>& offsets, float* out) {
  const uint32_t n = info.components;
  for (size_t i = 0; i < count; ++i, src += stride, out += n)
    for (uint32_t j = 0; j < n; ++j) out[j] = to_float<T, Normalized>(load<T>(src + offsets[j]));
}

void decode_floats(const AccessorInfo& info, const uint8_t* src, size_t stride, size_t count,
                   const std::array<uint16_t, 16>& offsets, float* out) {
  switch (info.encoding_bit) {
    case kF32: return decode_elements<float, false>(info, src, stride, count, offsets, out);
    case kI8: return decode_elements<int8_t, false>(info, src, stride, count, offsets, out);
    case kI8N: return decode_elements<int8_t, true>(info, src, stride, count, offsets, out);
    case kU8: return decode_elements<uint8_t, false>(info, src, stride, count, offsets, out);
    case kU8N: return decode_elements<uint8_t, true>(info, src, stride, count, offsets, out);
    case kI16: return decode_elements<int16_t, false>(info, src, stride, count, offsets, out);
    case kI16N: return decode_elements<int16_t, true>(info, src, stride, count, offsets, out);
    case kU16: return decode_elements<uint16_t, false>(info, src, stride, count, offsets, out);
    case kU16N: return decode_elements<uint16_t, true>(info, src, stride, count, offsets, out);
    case kU32: return decode_elements<uint32_t, false>(info, src, stride, count, offsets, out);
    default: fail("", "internal error: unknown accessor encoding");
  }
}

template <class T>
void decode_uint_elements(const AccessorInfo& info, const uint8_t* src, size_t stride, size_t count,
                          const std::array<uint16_t, 16>& offsets, uint32_t* out) {
  const uint32_t n = info.components;
  for (size_t i = 0; i < count; ++i, src += stride, out += n)
    for (uint32_t j = 0; j < n; ++j) out[j] = load<T>(src + offsets[j]);
}

void decode_uints(const AccessorInfo& info, const uint8_t* src, size_t stride, size_t count,
                  const std::array<uint16_t, 16>& offsets, uint32_t* out) {
  switch (info.encoding_bit) {
    case kU8: return decode_uint_elements<uint8_t>(info, src, stride, count, offsets, out);
    case kU16: return decode_uint_elements<uint16_t>(info, src, stride, count, offsets, out);
    case kU32: return decode_uint_elements<uint32_t>(info, src, stride, count, offsets, out);
    default: fail("", "internal error: not an integer accessor encoding");
  }
}

uint32_t sparse_index(const AccessorInfo& info, size_t k) {
  const uint8_t* p = info.sparse_indices + k * info.sparse_index_size;
  switch (info.sparse_index_size) {
    case 1: return *p;
    case 2: return load<uint16_t>(p);
    default: return load<uint32_t>(p);
  }
}

// Byte offset of each component inside an element: matrices with 1- or 2-byte components pad
// every column to 4 bytes (glTF 2.0, "Data Alignment").
std::array<uint16_t, 16> component_offsets(const AccessorInfo& info) {
  std::array<uint16_t, 16> offsets{};
  uint32_t rows = info.components, columns = 1;
  if (info.type_bit == kMat2) rows = columns = 2;
  if (info.type_bit == kMat3) rows = columns = 3;
  if (info.type_bit == kMat4) rows = columns = 4;
  const uint32_t column_bytes = (rows * info.component_size + 3u) & ~3u;
  for (uint32_t c = 0; c < columns; ++c)
    for (uint32_t r = 0; r < rows; ++r)
      offsets[c * rows + r] =
          static_cast<uint16_t>(columns == 1 ? r * info.component_size : c * column_bytes + r * info.component_size);
  return offsets;
}

std::string list_names(uint32_t bits, std::string (*name)(uint32_t)) {
  std::string out;
  for (uint32_t b = 1; b != 0 && b <= bits; b <<= 1) {
    if (!(bits & b)) continue;
    if (!out.empty()) out += ", ";
    out += name(b);
  }
  return out;
}

const AccessorInfo& checked_accessor(Context& ctx, int index, const std::string& path, uint32_t types,
                                     uint32_t encodings, uint32_t quantized) {
  if (!in_range(index, ctx.accessors.size()))
    fail(path, "accessor " + std::to_string(index) + " does not exist (the file has " +
                   std::to_string(ctx.accessors.size()) + " accessors)");
  const AccessorInfo& info = ctx.accessors[static_cast<size_t>(index)];
  const std::string name = indexed("accessors", static_cast<size_t>(index));
  if (!(info.type_bit & types))
    fail(path, name + " is " + type_name(info.type_bit) + ", expected " + list_names(types, type_name));
  if (!(info.encoding_bit & encodings)) {
    if (!(info.encoding_bit & quantized))
      fail(path, name + " has component type " + encoding_name(info.encoding_bit) + ", expected " +
                     list_names(encodings | quantized, encoding_name));
    if (!ctx.quantization_declared && !ctx.quantization_warned) {
      ctx.quantization_warned = true;
      ctx.warn(path + ": " + name + " uses a KHR_mesh_quantization component type (" +
               encoding_name(info.encoding_bit) + ") but the file does not declare the extension; read anyway");
    }
  }
  return info;
}

}  // namespace

std::string encoding_name(uint32_t encoding_bit) {
  switch (encoding_bit) {
    case kF32: return "FLOAT";
    case kI8: return "BYTE";
    case kI8N: return "normalized BYTE";
    case kU8: return "UNSIGNED_BYTE";
    case kU8N: return "normalized UNSIGNED_BYTE";
    case kI16: return "SHORT";
    case kI16N: return "normalized SHORT";
    case kU16: return "UNSIGNED_SHORT";
    case kU16N: return "normalized UNSIGNED_SHORT";
    case kU32: return "UNSIGNED_INT";
    default: return "?";
  }
}

std::string type_name(uint32_t type_bit) {
  switch (type_bit) {
    case kScalar: return "SCALAR";
    case kVec2: return "VEC2";
    case kVec3: return "VEC3";
    case kVec4: return "VEC4";
    case kMat2: return "MAT2";
    case kMat3: return "MAT3";
    case kMat4: return "MAT4";
    default: return "?";
  }
}

void load_buffers(Context& ctx) {
  const json* buffers = find_path(ctx.doc, {"buffers"});
  const size_t n = buffers ? buffers->size() : 0;
  ctx.buffers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const json& b = (*buffers)[i];
    const std::string path = indexed("buffers", i);
    const uint64_t byte_length = b.at("byteLength").get<uint64_t>();
    BufferData& out = ctx.buffers[i];
    const json* fallback = find_path(b, {"extensions", "EXT_meshopt_compression", "fallback"});
    const bool is_fallback = fallback && fallback->is_boolean() && fallback->get<bool>();
    auto uri_it = b.find("uri");
    if (uri_it == b.end()) {
      if (is_fallback) {
        out.fallback = true;  // only compressed views may point here; checked in load_views
      } else if (ctx.is_glb && i == 0) {
        if (ctx.glb_bin_length == 0) fail(path, "has no uri and the GLB has no binary chunk");
        if (byte_length > ctx.glb_bin_length)
          fail(path, "byteLength " + std::to_string(byte_length) + " is larger than the GLB binary chunk (" +
                         std::to_string(ctx.glb_bin_length) + " bytes)");
        if (ctx.file) ctx.take_input(byte_length, path);  // a memory import took the whole container
        out.bytes = ctx.container_bytes(ctx.glb_bin_offset, byte_length, out.owned, path);
      } else {
        fail(path, ctx.is_glb ? "has no uri, and only buffers[0] can be the GLB binary chunk" : "has no uri");
      }
      continue;
    }
    const std::string& uri = uri_it->get_ref<const std::string&>();
    if (uri.rfind("data:", 0) == 0) {
      DataUri data = decode_data_uri(uri, path);
      if (data.bytes.size() < byte_length)
        fail(path, "data URI holds " + std::to_string(data.bytes.size()) + " bytes, byteLength says " +
                       std::to_string(byte_length));
      out.owned = std::move(data.bytes);
    } else {
      out.owned = read_external(ctx, uri, path, byte_length);
    }
    out.bytes = std::span<const uint8_t>(out.owned).first(static_cast<size_t>(byte_length));
  }
}

void load_views(Context& ctx) {
  const auto& views = ctx.model.bufferViews;
  const json* doc_views = find_path(ctx.doc, {"bufferViews"});
  const json* doc_buffers = find_path(ctx.doc, {"buffers"});
  ctx.views.resize(views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    const tinygltf::BufferView& bv = views[i];
    const std::string path = indexed("bufferViews", i);
    if (!in_range(bv.buffer, ctx.buffers.size()))
      fail(path, "buffer " + std::to_string(bv.buffer) + " does not exist (the file has " +
                     std::to_string(ctx.buffers.size()) + " buffers)");
    const BufferData& buffer = ctx.buffers[static_cast<size_t>(bv.buffer)];
    const uint64_t buffer_length = (*doc_buffers)[static_cast<size_t>(bv.buffer)].at("byteLength").get<uint64_t>();
    const uint64_t offset = bv.byteOffset, length = bv.byteLength;
    if (offset > buffer_length || length > buffer_length - offset)
      fail(path, "byteOffset " + std::to_string(offset) + " + byteLength " + std::to_string(length) +
                     " runs past buffers[" + std::to_string(bv.buffer) + "] (byteLength " +
                     std::to_string(buffer_length) + ")");
    ViewData& out = ctx.views[i];
    out.stride = bv.byteStride;
    const json* meshopt = find_path((*doc_views)[i], {"extensions", "EXT_meshopt_compression"});
    if (meshopt) {
      decode_meshopt(ctx, *meshopt, path, static_cast<size_t>(length), out);
    } else if (buffer.fallback) {
      fail(path, "refers to buffers[" + std::to_string(bv.buffer) +
                     "], an EXT_meshopt_compression fallback buffer with no data, but is not compressed");
    } else {
      out.bytes = buffer.bytes.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
    }
  }
}

namespace {

// The accessor's element layout (type, component type, normalization, element size) and count.
void check_layout(const tinygltf::Accessor& a, const std::string& path, AccessorInfo& info) {
  switch (a.type) {
    case TINYGLTF_TYPE_SCALAR:
      info.type_bit = kScalar;
      info.components = 1;
      break;
    case TINYGLTF_TYPE_VEC2:
      info.type_bit = kVec2;
      info.components = 2;
      break;
    case TINYGLTF_TYPE_VEC3:
      info.type_bit = kVec3;
      info.components = 3;
      break;
    case TINYGLTF_TYPE_VEC4:
      info.type_bit = kVec4;
      info.components = 4;
      break;
    case TINYGLTF_TYPE_MAT2:
      info.type_bit = kMat2;
      info.components = 4;
      break;
    case TINYGLTF_TYPE_MAT3:
      info.type_bit = kMat3;
      info.components = 9;
      break;
    case TINYGLTF_TYPE_MAT4:
      info.type_bit = kMat4;
      info.components = 16;
      break;
    default: fail(path + ".type", "is not an accessor type");
  }
  info.component_size = component_size_of(a.componentType);
  if (info.component_size == 0)
    fail(path + ".componentType", std::to_string(a.componentType) + " is not a glTF component type");
  const bool normalized = a.normalized;
  switch (a.componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: info.encoding_bit = kF32; break;  // normalized is meaningless here
    case TINYGLTF_COMPONENT_TYPE_BYTE: info.encoding_bit = normalized ? kI8N : kI8; break;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: info.encoding_bit = normalized ? kU8N : kU8; break;
    case TINYGLTF_COMPONENT_TYPE_SHORT: info.encoding_bit = normalized ? kI16N : kI16; break;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: info.encoding_bit = normalized ? kU16N : kU16; break;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
      if (normalized) fail(path + ".normalized", "must not be true for UNSIGNED_INT components");
      info.encoding_bit = kU32;
      break;
  }
  if (info.type_bit & (kMat2 | kMat3 | kMat4)) {
    const uint32_t n = info.type_bit == kMat2 ? 2 : info.type_bit == kMat3 ? 3 : 4;
    info.element_size = n * ((n * info.component_size + 3u) & ~3u);
  } else {
    info.element_size = static_cast<size_t>(info.components) * info.component_size;
  }
  info.count = a.count;
  if (info.count == 0) fail(path + ".count", "must be at least 1");
  // Vertex and key counts are 32-bit in an Asset; this also keeps count * element size exact.
  if (info.count > std::numeric_limits<uint32_t>::max())
    fail(ErrorCode::Limit, path + ".count", std::to_string(info.count) + " is too large");
}

// Where the accessor's elements sit in its buffer view (if it has one), checked to fit.
void check_view(Context& ctx, const tinygltf::Accessor& a, const std::string& path, AccessorInfo& info) {
  if (a.bufferView >= 0) {
    if (!in_range(a.bufferView, ctx.views.size()))
      fail(path, "bufferView " + std::to_string(a.bufferView) + " does not exist (the file has " +
                     std::to_string(ctx.views.size()) + " bufferViews)");
    const ViewData& view = ctx.views[static_cast<size_t>(a.bufferView)];
    const std::string view_name = indexed("bufferViews", static_cast<size_t>(a.bufferView));
    if (view.stride != 0 && view.stride < info.element_size)
      fail(path, view_name + " has byteStride " + std::to_string(view.stride) + ", less than one " +
                     std::to_string(info.element_size) + "-byte element");
    info.stride = view.stride != 0 ? view.stride : info.element_size;
    const uint64_t length = view.bytes.size();
    const uint64_t offset = a.byteOffset;
    // offset + (count - 1) * stride + element_size <= length, without overflow
    const bool fits = offset <= length && info.element_size <= length - offset &&
                      (info.count - 1) <= (length - offset - info.element_size) / info.stride;
    if (!fits)
      fail(path, "count " + std::to_string(info.count) + " at byteOffset " + std::to_string(offset) + " with stride " +
                     std::to_string(info.stride) + " runs past " + view_name + " (byteLength " +
                     std::to_string(length) + ")");
    info.base = view.bytes.data() + offset;
  } else {
    info.stride = info.element_size;
  }
}

// A sparse accessor's index and value arrays, checked to fit their views, and every index in range.
void check_sparse(Context& ctx, const tinygltf::Accessor& a, const std::string& path, AccessorInfo& info) {
  const std::string spath = path + ".sparse";
  const size_t sparse_count = static_cast<size_t>(a.sparse.count);
  if (sparse_count > info.count)
    fail(spath + ".count",
         std::to_string(sparse_count) + " is larger than the accessor's count " + std::to_string(info.count));
  auto view_for = [&](int view_index, uint64_t offset, uint64_t element_bytes, const std::string& where) {
    if (!in_range(view_index, ctx.views.size()))
      fail(where + ".bufferView", std::to_string(view_index) + " does not exist (the file has " +
                                      std::to_string(ctx.views.size()) + " bufferViews)");
    const ViewData& view = ctx.views[static_cast<size_t>(view_index)];
    const uint64_t length = view.bytes.size();
    if (offset > length || sparse_count > (length - offset) / element_bytes)
      fail(where, std::to_string(sparse_count) + " elements of " + std::to_string(element_bytes) +
                      " bytes at byteOffset " + std::to_string(offset) + " run past " +
                      indexed("bufferViews", static_cast<size_t>(view_index)) + " (byteLength " +
                      std::to_string(length) + ")");
    return view.bytes.data() + offset;
  };
  info.sparse_index_size = component_size_of(a.sparse.indices.componentType);
  info.sparse_indices = view_for(a.sparse.indices.bufferView, static_cast<uint64_t>(a.sparse.indices.byteOffset),
                                 info.sparse_index_size, spath + ".indices");
  info.sparse_values = view_for(a.sparse.values.bufferView, static_cast<uint64_t>(a.sparse.values.byteOffset),
                                info.element_size, spath + ".values");
  info.sparse_count = sparse_count;
  for (size_t k = 0; k < sparse_count; ++k) {
    const uint32_t target = sparse_index(info, k);
    if (target >= info.count)
      fail(spath + ".indices", "index " + std::to_string(k) + " is " + std::to_string(target) +
                                   ", out of range for count " + std::to_string(info.count));
  }
}

}  // namespace

void check_accessors(Context& ctx) {
  const auto& accessors = ctx.model.accessors;
  ctx.accessors.resize(accessors.size());
  for (size_t i = 0; i < accessors.size(); ++i) {
    const tinygltf::Accessor& a = accessors[i];
    const std::string path = indexed("accessors", i);
    AccessorInfo& info = ctx.accessors[i];
    check_layout(a, path, info);
    check_view(ctx, a, path, info);
    if (a.sparse.isSparse) check_sparse(ctx, a, path, info);
  }
}

FloatRead read_floats(Context& ctx, int index, const std::string& path, uint32_t types, uint32_t encodings,
                      uint32_t quantized, bool finite) {
  const AccessorInfo& info = checked_accessor(ctx, index, path, types, encodings, quantized);
  FloatRead out;
  out.count = info.count;
  out.components = info.components;
  ctx.charge(static_cast<uint64_t>(info.count) * info.components * sizeof(float), path);
  out.values.assign(info.count * info.components, 0.0f);
  const auto offsets = component_offsets(info);
  if (info.base) decode_floats(info, info.base, info.stride, info.count, offsets, out.values.data());
  for (size_t k = 0; k < info.sparse_count; ++k)
    decode_floats(info, info.sparse_values + k * info.element_size, info.element_size, 1, offsets,
                  out.values.data() + static_cast<size_t>(sparse_index(info, k)) * info.components);
  if (finite) {
    for (size_t i = 0; i < out.values.size(); ++i) {
      if (!std::isfinite(out.values[i]))
        fail(path, indexed("accessors", static_cast<size_t>(index)) + " element " +
                       std::to_string(i / info.components) + " is " + (std::isnan(out.values[i]) ? "NaN" : "infinite"));
    }
  }
  return out;
}

UintRead read_uints(Context& ctx, int index, const std::string& path, uint32_t types, uint32_t encodings) {
  const AccessorInfo& info = checked_accessor(ctx, index, path, types, encodings, 0);
  UintRead out;
  out.count = info.count;
  out.components = info.components;
  ctx.charge(static_cast<uint64_t>(info.count) * info.components * sizeof(uint32_t), path);
  out.values.assign(info.count * info.components, 0u);
  const auto offsets = component_offsets(info);
  if (info.base) decode_uints(info, info.base, info.stride, info.count, offsets, out.values.data());
  for (size_t k = 0; k < info.sparse_count; ++k)
    decode_uints(info, info.sparse_values + k * info.element_size, info.element_size, 1, offsets,
                 out.values.data() + static_cast<size_t>(sparse_index(info, k)) * info.components);
  return out;
}

void load_images(Context& ctx) {
  if (!ctx.options.load_images) return;
  const json* images = find_path(ctx.doc, {"images"});
  if (!images) return;
  ctx.asset.images.resize(images->size());
  for (size_t i = 0; i < images->size(); ++i) {
    const json& in = (*images)[i];
    const std::string path = indexed("images", i);
    Image& out = ctx.asset.images[i];
    out.name = in.value("name", std::string());
    out.mime_type = in.value("mimeType", std::string());
    std::string file_name;
    if (auto bv = in.find("bufferView"); bv != in.end()) {
      const size_t view = bv->get<size_t>();
      if (view >= ctx.views.size())
        fail(path + ".bufferView", std::to_string(view) + " does not exist (the file has " +
                                       std::to_string(ctx.views.size()) + " bufferViews)");
      const auto bytes = ctx.views[view].bytes;
      ctx.charge(bytes.size(), path);
      out.bytes.assign(bytes.begin(), bytes.end());
    } else if (auto uri = in.find("uri"); uri != in.end()) {
      const std::string& u = uri->get_ref<const std::string&>();
      if (u.rfind("data:", 0) == 0) {
        DataUri data = decode_data_uri(u, path);
        if (out.mime_type.empty()) out.mime_type = data.mime_type;
        out.bytes = std::move(data.bytes);
      } else {
        out.bytes = read_external(ctx, u, path, kWholeFile);
        file_name = u;
      }
      ctx.charge(out.bytes.size(), path);
    } else {
      fail(path, "has neither uri nor bufferView");
    }
    if (out.mime_type.empty() || out.mime_type == "application/octet-stream") {
      // Sniff the two formats glTF core allows; an extension's format keeps what the file said.
      const auto& b = out.bytes;
      if (b.size() >= 8 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G')
        out.mime_type = "image/png";
      else if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
        out.mime_type = "image/jpeg";
      else if (out.mime_type.empty())
        ctx.warn(path + ": unknown image format (no mimeType and not PNG or JPEG)");
    }
  }
}

}  // namespace vatkit::import_detail

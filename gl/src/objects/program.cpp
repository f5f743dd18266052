#include "vatkit/gl/program.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdlib>

#include "vatkit/gl/gl.h"

namespace vatkit::gl {
namespace {

GLenum stage_enum(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::Vertex: return GL_VERTEX_SHADER;
    case ShaderStage::TessControl: return GL_TESS_CONTROL_SHADER;
    case ShaderStage::TessEvaluation: return GL_TESS_EVALUATION_SHADER;
    case ShaderStage::Geometry: return GL_GEOMETRY_SHADER;
    case ShaderStage::Fragment: return GL_FRAGMENT_SHADER;
    case ShaderStage::Compute: return GL_COMPUTE_SHADER;
  }
  return GL_VERTEX_SHADER;
}

const char* stage_suffix(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::Vertex: return ".vert";
    case ShaderStage::TessControl: return ".tesc";
    case ShaderStage::TessEvaluation: return ".tese";
    case ShaderStage::Geometry: return ".geom";
    case ShaderStage::Fragment: return ".frag";
    case ShaderStage::Compute: return ".comp";
  }
  return "";
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The line a driver's log line points at: Mesa writes "0:12(3): error: ...", NVIDIA
// "0(12) : error C1008: ...". Returns 0 when the line has neither form.
int log_line_number(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == 0 || i >= line.size() || (line[i] != ':' && line[i] != '(')) return 0;
  const size_t start = ++i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == start) return 0;
  return std::atoi(std::string(line.substr(start, i - start)).c_str());
}

// The log, one entry per non-empty line, each followed by the source line it names.
std::string quote_log(std::string_view log, std::string_view source) {
  constexpr size_t kMaxEntries = 8;
  const std::vector<std::string_view> source_lines = split_lines(source);
  std::string out;
  size_t entries = 0, skipped = 0;
  for (std::string_view raw : split_lines(log)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (entries == kMaxEntries) {
      ++skipped;
      continue;
    }
    if (entries++) out += "; ";
    out += line;
    const int number = log_line_number(line);
    if (number >= 1 && static_cast<size_t>(number) <= source_lines.size()) {
      std::string_view quoted = trim(source_lines[static_cast<size_t>(number) - 1]);
      if (quoted.size() > 120) quoted = quoted.substr(0, 120);
      out += " [line " + std::to_string(number) + ": " + std::string(quoted) + "]";
    }
  }
  if (skipped) out += "; (" + std::to_string(skipped) + " more log lines)";
  if (out.empty()) out = "(the driver gave no log)";
  return out;
}

std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) glGetShaderInfoLog(shader, length, nullptr, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

std::string program_log(GLuint program) {
  GLint length = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) glGetProgramInfoLog(program, length, nullptr, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

// Where a #version line starts the source (only whitespace before it), the offset just past
// that line and its 1-based line number; npos otherwise.
size_t version_line_end(std::string_view source, int& line_number) {
  line_number = 1;
  size_t i = 0;
  while (i < source.size() && std::isspace(static_cast<unsigned char>(source[i]))) {
    if (source[i] == '\n') ++line_number;
    ++i;
  }
  if (source.substr(i, 8) != "#version") return std::string_view::npos;
  const size_t end = source.find('\n', i);
  return end == std::string_view::npos ? source.size() : end + 1;
}

}  // namespace

const char* stage_name(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::Vertex: return "vertex";
    case ShaderStage::TessControl: return "tessellation control";
    case ShaderStage::TessEvaluation: return "tessellation evaluation";
    case ShaderStage::Geometry: return "geometry";
    case ShaderStage::Fragment: return "fragment";
    case ShaderStage::Compute: return "compute";
  }
  return "unknown";
}

std::string preprocess(const ProgramDesc& program, const ShaderSource& shader) {
  const std::string_view source = shader.source;
  int version_line = 0;
  const size_t body_start = version_line_end(source, version_line);
  std::string text;
  int next_line = 1;
  if (body_start == std::string_view::npos) {
    text.append(kGlslVersion).append("\n");
  } else {
    text.append(source.substr(0, body_start));
    if (text.back() != '\n') text.push_back('\n');
    next_line = version_line + 1;
  }
  if (program.draw_parameters) text.append("#extension GL_ARB_shader_draw_parameters : require\n");
  for (const std::string& define : program.defines) text.append("#define ").append(define).append("\n");
  text.append("#line ").append(std::to_string(next_line)).append("\n");
  text.append(body_start == std::string_view::npos ? source : source.substr(body_start));
  return text;
}

Result<Program> build_program(const ProgramDesc& desc) {
  if (desc.shaders.empty()) return make_error(ErrorCode::Argument, desc.name, "no shaders to build a program from");
  if (desc.draw_parameters && !epoxy_has_gl_extension("GL_ARB_shader_draw_parameters")) {
    return make_error(ErrorCode::Gl, desc.name, "needs GL_ARB_shader_draw_parameters, which this driver lacks");
  }
  std::vector<Shader> shaders;
  for (const ShaderSource& source : desc.shaders) {
    const std::string name = source.name.empty() ? desc.name + stage_suffix(source.stage) : source.name;
    const std::string text = preprocess(desc, source);
    Shader shader(glCreateShader(stage_enum(source.stage)));
    if (!shader) {
      return make_error(ErrorCode::Gl, name, std::string("cannot create a ") + stage_name(source.stage) + " shader");
    }
    const GLchar* pointer = text.c_str();
    const GLint length = static_cast<GLint>(text.size());
    glShaderSource(shader.id(), 1, &pointer, &length);
    glCompileShader(shader.id());
    GLint compiled = GL_FALSE;
    glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &compiled);
    if (compiled != GL_TRUE) {
      return Error{ErrorCode::Gl, name + " (" + stage_name(source.stage) +
                                      " shader): compile failed: " + quote_log(shader_log(shader.id()), source.source)};
    }
    shaders.push_back(std::move(shader));
  }

  Program program(glCreateProgram());
  for (const Shader& shader : shaders) glAttachShader(program.id(), shader.id());
  if (!desc.feedback_varyings.empty()) {
    std::vector<const GLchar*> names;
    for (const std::string& varying : desc.feedback_varyings) names.push_back(varying.c_str());
    glTransformFeedbackVaryings(program.id(), static_cast<GLsizei>(names.size()), names.data(), GL_INTERLEAVED_ATTRIBS);
  }
  glLinkProgram(program.id());
  for (const Shader& shader : shaders) glDetachShader(program.id(), shader.id());
  GLint linked = GL_FALSE;
  glGetProgramiv(program.id(), GL_LINK_STATUS, &linked);
  if (linked != GL_TRUE) {
    return make_error(ErrorCode::Gl, desc.name, "link failed: " + quote_log(program_log(program.id()), ""));
  }
  return program;
}

int uniform_location(const Program& program, const char* name) { return glGetUniformLocation(program.id(), name); }

bool UniformCache::changed(int location, const void* bytes, size_t size) {
  const auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.location == location; });
  if (it == entries_.end()) {
    entries_.push_back({location, uint32_t(values_.size()), uint32_t(size)});
    const auto* b = static_cast<const uint8_t*>(bytes);
    values_.insert(values_.end(), b, b + size);
    return true;
  }
  if (it->size != size) return true;  // not the length it was first set with: not cached
  uint8_t* held = values_.data() + it->offset;
  if (std::memcmp(held, bytes, size) == 0) return false;
  std::memcpy(held, bytes, size);
  return true;
}

void UniformCache::set(uint32_t program, int location, float v) {
  if (location >= 0 && changed(location, &v, sizeof v)) glProgramUniform1f(program, location, v);
}
void UniformCache::set(uint32_t program, int location, int32_t v) {
  if (location >= 0 && changed(location, &v, sizeof v)) glProgramUniform1i(program, location, v);
}
void UniformCache::set(uint32_t program, int location, uint32_t v) {
  if (location >= 0 && changed(location, &v, sizeof v)) glProgramUniform1ui(program, location, v);
}
void UniformCache::set(uint32_t program, int location, const glm::vec3& v) {
  if (location >= 0 && changed(location, &v, sizeof v)) glProgramUniform3fv(program, location, 1, &v.x);
}
void UniformCache::set(uint32_t program, int location, const glm::vec4& v) {
  if (location >= 0 && changed(location, &v, sizeof v)) glProgramUniform4fv(program, location, 1, &v.x);
}
void UniformCache::set(uint32_t program, int location, const glm::mat4& v) {
  if (location >= 0 && changed(location, &v, sizeof v)) {
    glProgramUniformMatrix4fv(program, location, 1, GL_FALSE, &v[0][0]);
  }
}
void UniformCache::set(uint32_t program, int location, std::span<const float> v) {
  if (location >= 0 && changed(location, v.data(), v.size_bytes())) {
    glProgramUniform1fv(program, location, GLsizei(v.size()), v.data());
  }
}
void UniformCache::set(uint32_t program, int location, std::span<const glm::vec4> v) {
  if (location >= 0 && changed(location, v.data(), v.size_bytes())) {
    glProgramUniform4fv(program, location, GLsizei(v.size()), &v[0].x);
  }
}

}  // namespace vatkit::gl

// vatkit/result.h: errors as values.
//
// Every operation that can fail on bad input (a malformed glTF, a corrupt .vat.glb, an impossible
// option) returns a Result<T>: either the value or an Error whose message is one complete line,
// "FILE: what and where", for example
//     "robot.glb: accessors[3]: count 120 runs past bufferViews[1] (byteLength 960)",
// and a closed ErrorCode that says what kind of failure it is, for callers that branch on it.
// The CLI prints it after "vatkit: error: " and exits non-zero. Misuse of the library by a caller
// (a span of the wrong size, an out-of-range clip index) breaks a documented precondition.
// value() (and * and ->) on a Result that holds an error throws BadResultAccess carrying the
// error's message, in every build: a caller that does not check gets an exception, never a read
// of a value that is not there.
//
// std::expected would do, but clang 14 (our fuzzing and sanitizer compiler) cannot use it with
// libstdc++ 12, so this is the small subset we need.
#pragma once

#include <cassert>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace vatkit {

// What kind of failure an Error is. An Error forwarded from another Result keeps its code.
enum class ErrorCode : uint8_t {
  Io,           // a file cannot be opened, read, written, renamed or mapped, or does not exist
  Parse,        // text or binary that cannot be parsed at all: bad JSON, a bad GLB container, truncated chunks
  InvalidGltf,  // a parsed glTF that breaks the glTF 2.0 spec (accessor ranges, indices, references, ...)
  Unsupported,  // valid input vatkit does not handle (an extension, an interpolation, a refused feature)
  Limit,        // a size or count over a documented limit (texture size, vertices, nesting depth, memory)
  Corrupt,      // a .vat.glb that fails validation or its checksum, or whose fields disagree
  Argument,     // a wrong caller or command-line argument: an unknown clip, a bad option, an index out of range
  Gl,           // an OpenGL, EGL or windowing failure in vatkit::gl: context, shader, framebuffer, GPU limits
};

// Lower-snake names ("io", "parse", "invalid_gltf", ...), distinct per code.
const char* to_string(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;  // one line: "FILE: what and where"
};

// Thrown by Result::value() when the Result holds an Error; what() is the error's message.
class BadResultAccess : public std::runtime_error {
 public:
  explicit BadResultAccess(const Error& error) : std::runtime_error(error.message) {}
};

// Builds an Error from "FILE" and "what and where" (the separator is added here).
inline Error make_error(ErrorCode code, const std::string& file, const std::string& what) {
  return Error{code, file.empty() ? what : file + ": " + what};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    check();
    return std::get<0>(state_);
  }
  const T& value() const& {
    check();
    return std::get<0>(state_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(state_);
  }

 private:
  void check() const {
    if (!ok()) throw BadResultAccess(std::get<1>(state_));
  }
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit by design

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    assert(failed_);
    return error_;
  }
  // Nothing on success; throws BadResultAccess on an error, as Result<T>::value() does.
  void value() const {
    if (failed_) throw BadResultAccess(error_);
  }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace vatkit

// Names of the error codes (result.h).
#include "vatkit/result.h"

namespace vatkit {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::Io: return "io";
    case ErrorCode::Parse: return "parse";
    case ErrorCode::InvalidGltf: return "invalid_gltf";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Limit: return "limit";
    case ErrorCode::Corrupt: return "corrupt";
    case ErrorCode::Argument: return "argument";
    case ErrorCode::Gl: return "gl";
  }
  return "?";
}

}  // namespace vatkit

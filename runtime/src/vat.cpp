// Names of the Vat enums, as the CLI and reports print them.
#include "vatkit/vat.h"

#include "util/clip_selector.h"

namespace vatkit {

const char* to_string(Encoding e) {
  switch (e) {
    case Encoding::Delta: return "delta";
    case Encoding::Rig: return "rig";
  }
  return "?";
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::F32: return "f32";
    case Precision::F16: return "f16";
    case Precision::Q16: return "q16";
  }
  return "?";
}

const char* to_string(PlaneSemantic s) {
  switch (s) {
    case PlaneSemantic::Position: return "position";
    case PlaneSemantic::Normal: return "normal";
    case PlaneSemantic::Tangent: return "tangent";
    case PlaneSemantic::Slots: return "slots";
  }
  return "?";
}

const char* to_string(TexelFormat f) {
  switch (f) {
    case TexelFormat::RGBA32F: return "rgba32f";
    case TexelFormat::RGBA16F: return "rgba16f";
    case TexelFormat::RGBA16Unorm: return "rgba16unorm";
  }
  return "?";
}

const char* to_string(LoopMode m) {
  switch (m) {
    case LoopMode::Repeat: return "repeat";
    case LoopMode::Once: return "once";
    case LoopMode::PingPong: return "pingpong";
  }
  return "?";
}

const char* to_string(EndMode m) {
  switch (m) {
    case EndMode::Clamp: return "clamp";
    case EndMode::Rewind: return "rewind";
  }
  return "?";
}

Result<int> find_clip(const Vat& vat, const std::string& selector) {
  return detail::find_clip_in(
      vat.source, vat.clips.size(), [&](int c) { return clip_label(vat, c); },
      [&](int c) -> const std::string& { return vat.clips[static_cast<size_t>(c)].name; }, selector);
}

std::string clip_label(const Vat& vat, int clip) {
  return detail::clip_label_of(vat.clips[static_cast<size_t>(clip)].name, static_cast<uint64_t>(clip));
}

}  // namespace vatkit

// Clip lookups on an imported Asset, by the rule a .vat.glb's clips are looked up with.
#include "vatkit/asset.h"

#include "util/clip_selector.h"

namespace vatkit {

Result<int> find_clip(const Asset& asset, const std::string& selector) {
  return detail::find_clip_in(
      asset.source, asset.animations.size(), [&](int a) { return clip_label(asset, a); },
      [&](int a) -> const std::string& { return asset.animations[static_cast<size_t>(a)].name; }, selector);
}

std::string clip_label(const Asset& asset, int clip) {
  return detail::clip_label_of(asset.animations[static_cast<size_t>(clip)].name, static_cast<uint64_t>(clip));
}

}  // namespace vatkit

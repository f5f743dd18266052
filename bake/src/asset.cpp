// Clip lookups on an imported Asset, by the rule a .vat.glb's clips are looked up with, and
// the animations that are pieces of one.
#include "vatkit/asset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

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

std::vector<std::vector<uint32_t>> find_clip_pieces(const Asset& asset) {
  // Animations by time range (keys rounded to a millisecond: exporters write the same range as
  // the same floats, but a range that merely rounds alike is still the same clip length).
  // Only animations of joints: separate objects animated separately (InterpolationTest's nine
  // cubes) are separate clips, not pieces of one.
  std::set<uint32_t> joints;
  for (const Skin& skin : asset.skins) joints.insert(skin.joints.begin(), skin.joints.end());
  std::map<std::pair<long, long>, std::vector<uint32_t>> by_range;
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& anim = asset.animations[a];
    const auto is_joint = [&](const Channel& c) { return joints.count(c.node) > 0; };
    if (anim.channels.empty() || !std::all_of(anim.channels.begin(), anim.channels.end(), is_joint)) continue;
    by_range[{std::lround(anim.start_s * 1000.0f), std::lround(anim.end_s * 1000.0f)}].push_back(uint32_t(a));
  }
  std::vector<std::vector<uint32_t>> groups;
  for (auto& [range, members] : by_range) {
    if (members.size() < 2) continue;
    std::set<uint32_t> nodes;
    size_t channels = 0;
    for (uint32_t a : members) {
      std::set<uint32_t> own;
      for (const Channel& c : asset.animations[a].channels) own.insert(c.node);
      channels += own.size();
      nodes.insert(own.begin(), own.end());
    }
    if (nodes.size() == channels) groups.push_back(members);  // no node in two of them
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

std::string clip_pieces_text(const Asset& asset, const std::vector<uint32_t>& group) {
  const Animation& first = asset.animations[group.front()];
  char range[64];
  std::snprintf(range, sizeof range, "%g-%g s", double(first.start_s), double(first.end_s));
  std::string names;
  for (size_t i = 0; i < group.size() && i < 8; ++i)
    names += (i ? ", " : "") + printable(clip_label(asset, int(group[i])));
  if (group.size() > 8) names += ", ...";
  return std::to_string(group.size()) + " animations (" + names + ") each animate their own joints over the same " +
         range +
         ": they look like pieces of one animation, and each baked alone moves one part; --merge-clips bakes "
         "them as one clip";
}

void merge_clip_pieces(Asset& asset, const std::vector<std::vector<uint32_t>>& groups) {
  std::vector<bool> drop(asset.animations.size(), false);
  for (const std::vector<uint32_t>& group : groups) {
    Animation& into = asset.animations[group.front()];
    for (size_t i = 1; i < group.size(); ++i) {
      Animation& piece = asset.animations[group[i]];
      const uint32_t offset = uint32_t(into.samplers.size());
      for (Sampler& sampler : piece.samplers) into.samplers.push_back(std::move(sampler));
      for (Channel channel : piece.channels) {
        channel.sampler += offset;
        into.channels.push_back(channel);
      }
      into.start_s = std::min(into.start_s, piece.start_s);
      into.end_s = std::max(into.end_s, piece.end_s);
      drop[group[i]] = true;
    }
  }
  std::vector<Animation> kept;
  for (size_t a = 0; a < asset.animations.size(); ++a)
    if (!drop[a]) kept.push_back(std::move(asset.animations[a]));
  asset.animations = std::move(kept);
}

}  // namespace vatkit

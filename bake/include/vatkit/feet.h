// vatkit/feet.h: foot-contact events found from the motion (docs/events.md, "Feet").
//
// A foot is a joint node. Its height is the y of its world position (glTF's up axis, scene root
// space), sampled through the reference skinner's scene evaluator (scene.h) at kFootSampleRate
// samples per second over the clip. A foot is in contact where both
//  - its height is within kContactHeightFraction of its height range over the clip above its
//    lowest height, and
//  - its vertical speed (central differences) is at most kContactClimbFraction of its largest
//    (a foot coming down or lifting off is not yet, or no longer, on the ground);
// then gaps of one sample between contacts are closed, and a contact of one sample is dropped, as
// is one whose mean speed is over kContactSpeedFraction of the foot's largest (the swinging foot
// of a run may pass as low; a planted foot of an in-place cycle slides back at the body's speed,
// slower than the swing), and one whose horizontal travel points against that of the foot's
// longest contact, where that one travels over kContactSlideFraction of the height range (the
// planted foot of an in-place cycle slides back with the ground; a run's swinging foot that
// touches down in passing moves forward). A repeating clip is taken as a cycle (a
// contact across its end wraps around); a foot whose height range is under kMinLiftFraction of
// the asset's size never lifts: it gets no events. Each contact gives "<foot>_down" where it
// starts and "<foot>_up" where it ends, each at the sample time, in [0, duration].
//
// Cost: clips x duration x kFootSampleRate poses of the scene (no skinning). Allocates.
#pragma once

#include <string>
#include <vector>

#include "vatkit/asset.h"
#include "vatkit/bake.h"
#include "vatkit/result.h"

namespace vatkit {

inline constexpr float kFootSampleRate = 120.0f;
inline constexpr float kContactHeightFraction = 0.2f;
inline constexpr float kContactClimbFraction = 0.5f;
inline constexpr float kContactSpeedFraction = 0.75f;
inline constexpr float kContactSlideFraction = 0.1f;
inline constexpr float kMinLiftFraction = 0.01f;

struct FootJoints {
  int left = -1, right = -1;  // node indices
  std::string how;            // "named", "by name" or "lowest leaf joints": how they were chosen
};

// The feet: the nodes named by `options` (an unknown name is an error listing the joints), else
// the joints whose names say foot (then ankle, then toe) with a side (left/right, l/r as a word:
// "LeftFoot", "foot.L", "FootR", "leg_joint_L_5" is not a foot), else the lowest leaf joint of the
// rest pose on each side of x = 0 (+x is glTF's left of a character facing +z). Errors: no skin,
// or no pair of feet found.
Result<FootJoints> find_feet(const Asset& asset, const FootOptions& options);

// The contacts of animation `clip` as events ("foot_l_down", "foot_l_up", "foot_r_down",
// "foot_r_up"), in time order. `size` is the asset's size (BakeReport::size); `repeats` whether
// the clip plays as a cycle.
std::vector<ClipEvent> foot_contact_events(const Asset& asset, int clip, const FootJoints& feet, float size,
                                           bool repeats);

}  // namespace vatkit

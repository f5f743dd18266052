#!/usr/bin/env python3
"""Writes tests/conformance/playback_v3.jsonl: playback queries for the controls docs/playback.md
adds in version 3 (negative speed, pause, resume, turning back), each answered by an independent
Python model of the semantics written from docs/playback.md, not by the library.

Usage: tests/conformance/make_playback_v3.py

The C++ (tests/test_playback_controls.cpp), `vatkit frame --check` and the JavaScript twin
(tests/web/playback_conformance.test.mjs) must all reproduce every answer bit for bit. The model
does float32 arithmetic by rounding each double operation once (exact for +, -, * of float32s),
and finds float32 times by walking the float32 line, not by the library's binary search.
Regenerate only when the semantics change on purpose.
"""
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
NEVER = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]  # FLT_MAX
MAX_CYCLES = 16777216.0


def f32(x):
    if x > NEVER or x < -NEVER:
        return math.copysign(math.inf, x)
    return struct.unpack("<f", struct.pack("<f", x))[0]


def step(x, up):
    """The float32 next to float32 x, toward +inf (up) or -inf."""
    if x == 0.0:
        tiny = struct.unpack("<f", struct.pack("<I", 1))[0]
        return tiny if up else -tiny
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits += 1 if (x > 0) == up else -1
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# ---- the model ----------------------------------------------------------------------------------

def policy_of(inst, clip):
    """The three tiers: instance, clip, library."""
    clip_mode = clip.get("loopMode", "repeat")
    mode = inst.get("loopMode", clip_mode)
    if "repetitions" in inst:
        reps = inst["repetitions"]
    elif "repetitions" in clip and mode == clip_mode:
        reps = clip["repetitions"]
    else:
        reps = -1 if mode == "repeat" else 1
    end = inst.get("endMode", clip.get("endMode", "clamp"))
    speed = f32(inst.get("speed", clip.get("speed", 1.0)))
    return mode, reps, end, speed


def cycles(t, clock):
    e = max(f32(clock - t["start"]), 0.0)
    return min(f32(e * abs(t["rate"])), MAX_CYCLES)


def end_time(t, moving):
    """The smallest float32 clock with cycles >= n: walk from an estimate to the boundary."""
    n = t["reps"]
    if n == -1 or not moving:
        return NEVER
    if t["rate"] == 0.0:
        return t["start"] if t["rows"] <= 1 else NEVER
    done = lambda c: cycles(t, c) >= n
    c = f32(t["start"] + n / abs(t["rate"]))
    if not math.isfinite(c):
        c = NEVER
    if not done(c):
        while not done(c):
            if c == NEVER:
                return NEVER
            c = step(c, True)
        return c
    while True:
        below = step(c, False)
        if below <= t["start"] or not done(below):
            return c
        c = below


def track(clip, start, policy):
    mode, reps, end, speed = policy
    rows = clip["frames"]
    rate = 0.0 if rows <= 1 or speed == 0 else f32(speed * f32(clip["fps"]) / (rows - 1))
    reps = 1 if mode == "once" else reps
    fwd_end = 0.0 if end == "rewind" or (mode == "pingpong" and reps != -1 and reps % 2 == 0) else 1.0
    t = {"first": clip["startFrame"], "rows": rows, "mode": mode, "reps": reps, "start": f32(start),
         "rate": rate, "end_phase": 1.0 - fwd_end if speed < 0 else fwd_end}
    t["end"] = end_time(t, speed != 0)
    return t


POLICY = ("speed", "loopMode", "repetitions", "endMode")


def compile_instance(inst):
    clip = inst["clip"]
    pol = policy_of({k: inst[k] for k in POLICY if k in inst}, clip)  # a time-synced B shares it
    a = track(clip, inst["startTime"], pol)
    pb = {"a": a, "b": dict(a), "wf": 0.0, "wt": 0.0, "rs": 0.0, "rr": 0.0, "kind": "single",
          "curve": inst.get("fadeCurve", "linear"), "hold": None}
    dur = f32(inst.get("fadeDuration", 0.0))
    ramp_start = f32(inst.get("fadeStart", inst["startTime"]))
    if "blend" in inst:
        bl = inst["blend"]
        if bl.get("sync", "phase") == "phase":
            pb["b"] = dict(a, first=bl["clip"]["startFrame"], rows=bl["clip"]["frames"])
        else:
            pb["b"] = track(bl["clip"], inst["startTime"], pol)
        pb["kind"] = "blend"
        pb["wf"] = pb["wt"] = f32(bl["weight"])
        if dur > 0 and "weightFrom" in bl:
            pb["wf"], pb["rs"], pb["rr"] = f32(bl["weightFrom"]), ramp_start, f32(1.0 / dur)
    elif "from" in inst and dur > 0:
        o = inst["from"]
        pb["b"] = track(o["clip"], o["startTime"], policy_of({k: o[k] for k in POLICY if k in o}, o["clip"]))
        pb["kind"] = "fade"
        pb["wf"], pb["rs"], pb["rr"] = f32(inst.get("fadeWeight", 1.0)), ramp_start, f32(1.0 / dur)
    return pb


def band(t, clock):
    u = cycles(t, clock)
    finished = clock >= t["end"]
    k = math.floor(u)
    p = f32(u - k)
    backwards = (t["mode"] == "pingpong" and k % 2 == 1) != (t["rate"] < 0)
    phase = f32(1.0 - p) if backwards else p
    if finished:
        phase = t["end_phase"]
    last = t["rows"] - 1
    x = f32(phase * last)
    xf = math.floor(x)
    return {"row": t["first"] + xf, "rowNext": t["first"] + min(xf + 1, last), "mix": f32(x - xf),
            "wraps": t["mode"] == "repeat" and not finished and k >= 1, "finished": finished, "phase": phase}


def progress_at(pb, clock, ramp_start):
    return min(max(f32(f32(clock - ramp_start) * pb["rr"]), 0.0), 1.0)


def weight(pb, clock):
    c = progress_at(pb, clock, pb["rs"])
    if pb["curve"] == "smooth":
        c = f32(f32(c * c) * f32(3.0 - f32(2.0 * c)))
    return f32(f32(pb["wf"] * f32(1.0 - c)) + f32(pb["wt"] * c))


def clock_of(pb, time):
    return time if pb["hold"] is None else min(time, pb["hold"])


def sample(pb, time):
    clock = clock_of(pb, time)
    a = band(pb["a"], clock)
    w = weight(pb, clock)
    kind = "single" if pb["kind"] == "fade" and w == 0.0 else pb["kind"]
    b = a if kind == "single" else band(pb["b"], clock)
    end = pb["a"]["end"]
    ends = None if end == NEVER or (pb["hold"] is not None and end > pb["hold"]) else end
    out = dict(a)
    out.update({k + "B": v for k, v in b.items()})
    out.update({"weight": 0.0 if kind == "single" else w, "kind": kind, "endsAt": ends})
    return out


# The controls: a start is the float32 within 4 steps of the ideal one whose sample misses the
# wanted one least (0: the same sample), ties to the nearest.
def nearest_float(ideal, miss):
    center = f32(ideal)
    cands = [center]
    lo = hi = center
    for _ in range(4):
        lo, hi = step(lo, False), step(hi, True)
        cands += [lo, hi]
    return min(cands, key=lambda c: (miss(c), abs(c - ideal)))


def band_miss(got, want):
    if got == want:
        return 0.0
    return abs(got["phase"] - want["phase"]) + (2 if got["finished"] != want["finished"] else 0) + \
        (1 if got["wraps"] != want["wraps"] else 0)


def restarted(t, start):
    r = dict(t, start=start)
    r["end"] = NEVER if t["end"] == NEVER else end_time(r, True)
    return r


def resume(pb, now):
    hold = pb["hold"]
    r = dict(pb, hold=None)
    if hold is None or not now > hold:
        return r
    shift = now - hold
    for key in ("a", "b"):
        t = pb[key]
        if hold >= t["end"]:
            continue
        want = band(t, hold)
        r[key] = restarted(t, nearest_float(t["start"] + shift,
                                            lambda s: band_miss(band(restarted(t, s), now), want)))
    if pb["rr"] != 0.0:
        want = progress_at(pb, hold, pb["rs"])
        r["rs"] = nearest_float(pb["rs"] + shift, lambda s: abs(progress_at(pb, now, s) - want))
    return r


def turn(t, clock):
    if t["rate"] == 0.0 or not (t["start"] < clock < t["end"]):
        return t
    u = cycles(t, clock)
    n = math.floor(u) + 1
    if t["mode"] == "pingpong" and n % 2 == 0:
        n += 1
    endless = t["reps"] == -1 or n > 16777216
    r = dict(t, rate=-t["rate"], reps=-1 if endless else n, end_phase=0.0 if t["rate"] > 0 else 1.0,
             end=NEVER if endless else 0.0)
    want = band(t, clock)
    ideal = clock - (n - u) / abs(t["rate"])
    # The turned band is a new play: its `wraps` starts over, so only the pose has to match.
    def miss(s):
        got = band(restarted(r, s), clock)
        return band_miss(got, dict(want, wraps=got["wraps"]))
    return restarted(r, nearest_float(ideal, miss))


def turn_back(pb, now):
    clock = clock_of(pb, now)
    r = dict(pb, a=turn(pb["a"], clock))
    r["b"] = r["a"] if pb["kind"] == "single" else turn(pb["b"], clock)
    return r


def apply_control(pb, control, now):
    if control == "pause":
        return dict(pb, hold=now) if pb["hold"] is None or pb["hold"] > now else pb
    if control == "resume":
        return resume(pb, now)
    return turn_back(pb, now)


def answer(query):
    pb = compile_instance(query["instance"])
    for w in query.get("set", []):
        pb = apply_control(pb, w["control"], f32(w["now"]))
    return sample(pb, f32(query["time"]))


# ---- the queries --------------------------------------------------------------------------------

# A: 1 s (5 rows at 4 fps); B: 1 s (31 rows at 30 fps); W: 5/6 s (21 rows at 24 fps); P: one row.
A = {"startFrame": 10, "frames": 5, "fps": 4}
B = {"startFrame": 0, "frames": 31, "fps": 30}
W = {"startFrame": 100, "frames": 21, "fps": 24}
P = {"startFrame": 40, "frames": 1, "fps": 0}
queries = []


def q(instance, time, controls=()):
    line = {"instance": instance, "time": time}
    if controls:
        line["set"] = [{"now": now, "control": c} for now, c in controls]
    queries.append(line)


def inst(clip, start, **fields):
    d = {"clip": clip, "startTime": start}
    d.update(fields)
    return d


# 1. Negative speed: loop modes x repetitions x end modes (start 2, A lasts 1 s at speed -1).
times = [1, 2, 2.375, 2.75, 3, 3.125, 3.5, 4, 4.75, 5, 5.25, 9.5]
for loop in ["repeat", "once", "pingpong"]:
    for reps in [None, -1, 1, 2, 3]:
        for end in ["clamp", "rewind"]:
            fields = {"loopMode": loop, "endMode": end, "speed": -1}
            if reps is not None:
                fields["repetitions"] = reps
            for t in times:
                q(inst(A, 2, **fields), t)
for t in [0.1, 0.4, 0.77, 1.3, 2.2]:
    q(inst(B, 0, speed=-1.7), t)
    q(inst(B, 0, speed=-2.5, loopMode="pingpong", repetitions=3), t)
    q(inst(P, 0, speed=-1, loopMode="once"), t)
q(inst(dict(A, speed=-0.5, loopMode="once"), 0), 1)  # a clip default speed, negative
# Negative speed in fades (either band) and blends (phase and time sync).
for t in [9, 10, 10.5, 11, 12.5]:
    q(inst(W, 10, speed=-1, fadeDuration=2, **{"from": {"clip": B, "startTime": 7, "speed": 0.5}}), t)
    q(inst(W, 10, fadeDuration=2, fadeCurve="smooth",
           **{"from": {"clip": B, "startTime": 7, "speed": -0.5, "loopMode": "once"}}), t)
for sync in ["phase", "time"]:
    for t in [0, 0.3, 0.7, 1.2, 2.9]:
        q(inst(B, 0, speed=-1.25, blend={"clip": W, "weight": 0.35, "sync": sync}), t)
        q(inst(B, 0, speed=-1, loopMode="pingpong", repetitions=2,
               blend={"clip": W, "weight": 0.5, "sync": sync}), t)

# 2. Pause and resume: the held pose, the resumed motion, ends and fades held by the pause.
for speed in [1, -1, 1.7]:
    for loop, reps in [("repeat", -1), ("once", 1), ("pingpong", 3), ("repeat", 2)]:
        base = inst(A, 0, speed=speed, loopMode=loop, repetitions=reps)
        for t in [0.3, 0.6, 1, 5]:
            q(base, t, [(0.6, "pause")])
        for t in [2, 2.1, 2.5, 3.4, 6]:
            q(base, t, [(0.6, "pause"), (2, "resume")])
        q(base, 3, [(0.6, "pause"), (2, "resume"), (2.5, "pause")])
        q(base, 4, [(0.6, "pause"), (2, "resume"), (2.5, "pause"), (3.7, "resume")])
q(inst(A, 5, loopMode="once"), 7, [(1, "pause"), (3, "resume")])  # paused before it started
q(inst(A, 0, loopMode="once"), 4, [(1.5, "pause"), (3, "resume")])  # paused after it finished
q(inst(A, 0), 1, [(2, "pause")])  # a pause in the future
q(inst(A, 0), 4, [(2, "resume")])  # not paused: nothing to resume
fade = inst(W, 10, fadeDuration=2, **{"from": {"clip": B, "startTime": 7, "speed": 0.5}})
for t in [10.5, 11, 13, 13.5, 14, 15]:
    q(fade, t, [(11, "pause"), (13, "resume")])
    q(fade, t, [(11, "pause"), (11.5, "turnBack"), (13, "resume")])
ramp = inst(B, 0, fadeDuration=1, fadeStart=5, blend={"clip": W, "weight": 0.8, "weightFrom": 0.2})
for t in [5.25, 5.5, 7, 7.25, 7.5, 8]:
    q(ramp, t, [(5.5, "pause"), (7.25, "resume")])
for now in [1.2, 3.3, 37.9]:  # resume times off the pause's float32 grid
    for t in [now, now + 0.1]:
        q(inst(B, 0.1, speed=1.3), t, [(1.1, "pause"), (now, "resume")])

# 3. Turning back: the pose at the turn kept, the play retraced to where it began.
for speed in [1, -1, 2.5]:
    for loop, reps in [("repeat", -1), ("repeat", 3), ("once", 1), ("pingpong", 2), ("pingpong", -1)]:
        base = inst(A, 0, speed=speed, loopMode=loop, repetitions=reps)
        for now in [0.3, 1.45, 2.6]:
            for dt in [0, 0.2, 0.7, 1.5, 4]:
                q(base, now + dt, [(now, "turnBack")])
        q(base, 3.1, [(1.45, "turnBack"), (2.2, "turnBack")])  # twice: the original direction again
q(inst(A, 2), 3, [(1, "turnBack")])  # not started yet: unchanged
q(inst(A, 0, loopMode="once"), 3, [(2, "turnBack")])  # finished: unchanged
q(inst(A, 0, speed=0), 3, [(2, "turnBack")])  # holding: unchanged
for t in [1.5, 2, 2.6]:
    q(inst(B, 0, blend={"clip": W, "weight": 0.35, "sync": "time"}), t, [(1.5, "turnBack")])
    q(inst(A, 0), t, [(1.2, "pause"), (1.5, "turnBack"), (2, "resume")])


def main():
    path = os.path.join(HERE, "playback_v3.jsonl")
    with open(path, "w") as f:
        for query in queries:
            f.write(json.dumps(dict(query, expect=answer(query)), separators=(",", ":")) + "\n")
    print(f"{path}: {len(queries)} cases")


if __name__ == "__main__":
    main()

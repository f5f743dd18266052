#!/usr/bin/env python3
"""Writes tests/conformance/events_v1.jsonl: playback queries with clip events and "since", each
answered by an independent Python model of the definition in runtime/include/vatkit/events.h and
docs/events.md (the crossing positions of every cycle, each fired at the smallest float32 clock
whose elapsed cycles reach it), not by the library. The playback itself (tracks, weights, pause,
resume, turn back) is make_playback_v3.py's model.

Usage: tests/conformance/make_events_v1.py

The C++ (tests/test_events.cpp), `vatkit frame --check` and the JavaScript twin
(tests/web/playback_conformance.test.mjs) must reproduce every answer: event times and weights
bit for bit as float32, names, bands and order exactly. Regenerate only when the semantics change
on purpose.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_playback_v3 as m  # noqa: E402  (the playback model)

HERE = m.HERE
f32, step, cycles = m.f32, m.step, m.cycles


# ---- the model ----------------------------------------------------------------------------------

def duration(clip):
    """A band's duration as the library reads a query's clip: float32 of (frames - 1) / fps."""
    return f32((clip["frames"] - 1) / f32(clip["fps"])) if clip["frames"] > 1 else 0.0


def fire_time(t, c):
    """T(c): the track's start for c = 0, else the smallest float32 clock with cycles >= c, found
    by walking the float32 line from an estimate (no binary search)."""
    if c <= 0:
        return t["start"]
    reached = lambda clock: cycles(t, clock) >= c
    clock = f32(t["start"] + c / abs(t["rate"]))
    if not math.isfinite(clock):
        clock = m.NEVER
    while not reached(clock):
        if clock == m.NEVER:
            return None
        clock = step(clock, True)
    while True:
        below = step(clock, False)
        if below <= t["start"] or not reached(below):
            return clock
        clock = below


def positions(t, events, dur, k_last):
    """Every (position, cycle reported, event index) of the track's cycles 0..k_last, in play order:
    cycle k plays phase 0 -> 1 (event j at k + phi) or 1 -> 0 (a PingPong's odd traversal, or a
    negative rate; event at k + 1 - phi, so the events come in reverse); an odd PingPong traversal
    leaves its turning points (phi 0, 1) to the even one; n repetitions: cycles k < n, positions
    <= n, and at c = n only a PingPong's turning point (in cycle n, reported as traversal n - 1)."""
    n = t["reps"]
    out = []
    phases = [min(e["time"] / dur, 1.0) if dur > 0 else 0.0 for e in events]
    for k in range(k_last + 1):
        odd = t["mode"] == "pingpong" and k % 2 == 1
        back = odd != (t["rate"] < 0)
        order = range(len(events) - 1, -1, -1) if back else range(len(events))
        for j in order:
            phi = phases[j]
            if odd and phi in (0.0, 1.0):
                continue
            c = k + (1.0 - phi if back else phi)
            if n != -1:
                if c > n:
                    continue
                if k >= n and not (t["mode"] == "pingpong" and c == k):
                    continue
            out.append((c, k - 1 if n != -1 and k >= n else k, j))
    return out


def crossed(pb, bands, t0, t1):
    """The events the playback's bands cross with t0 < T <= t1 (T <= hold while paused): by T,
    the primary's first at equal T, each band's in play order; only where the band's weight at T
    (the primary 1 - w, the second w) is > 0."""
    t1 = m.clock_of(pb, t1)
    fired = []
    keys = ("a",) if pb["kind"] == "single" else ("a", "b")
    for b, key in enumerate(keys):
        t = pb[key]
        clip = bands.get((t["first"], t["rows"]))
        if clip is None or t["rate"] == 0.0 or not t0 < t1 or t1 < t["start"]:
            continue
        events, dur = clip["events"], duration(clip)
        k_last = int(math.floor(cycles(t, t1))) + 1
        for c, k, j in positions(t, events, dur, k_last):
            when = fire_time(t, c)
            if when is None or not (t0 < when <= t1):
                continue
            w = m.weight(pb, when)
            weight = f32(1.0 - w) if b == 0 else w
            if weight > 0:
                fired.append((when, b, {"name": events[j]["name"], "time": when, "band": "ab"[b], "weight": weight}))
    fired.sort(key=lambda x: (x[0], x[1]))  # stable: each band's play order kept
    return [e for _, _, e in fired]


def answer(query):
    """The frame and, split at each write as `vatkit frame` does, the events in (since, time]."""
    bands = {}
    def collect(clip):
        if "events" in clip:
            bands[(clip["startFrame"], clip["frames"])] = clip
    inst = query["instance"]
    for clip in [inst["clip"], inst.get("blend", {}).get("clip"), inst.get("from", {}).get("clip")]:
        if clip:
            collect(clip)
    pb = m.compile_instance(inst)
    time = f32(query["time"])
    since = f32(query["since"])
    events = []
    for w in query.get("set", []):
        now = f32(w["now"])
        cut = min(now, time)
        if cut > since:
            events += crossed(pb, bands, since, cut)
            since = cut
        pb = m.apply_control(pb, w["control"], now)
    events += crossed(pb, bands, since, time)
    out = m.sample(pb, time)
    out["events"] = events
    return out


# ---- the queries --------------------------------------------------------------------------------

# A: 1 s, footsteps at 0.25 and 0.75; E: 1 s, events on both turning points and the middle; W: 5/6 s,
# two events at one time; B: 1 s, one event (the second band of fades and blends); P: one row.
A = {"startFrame": 10, "frames": 5, "fps": 4, "events": [{"name": "step_l", "time": 0.25},
                                                         {"name": "step_r", "time": 0.75}]}
E = {"startFrame": 20, "frames": 5, "fps": 4, "events": [{"name": "start", "time": 0}, {"name": "mid", "time": 0.5},
                                                         {"name": "end", "time": 1}]}
W = {"startFrame": 100, "frames": 21, "fps": 24, "events": [{"name": "windup", "time": 0.1},
                                                            {"name": "hit", "time": 0.4}, {"name": "fx", "time": 0.4}]}
B = {"startFrame": 0, "frames": 31, "fps": 30, "events": [{"name": "b", "time": 0.5}]}
P = {"startFrame": 40, "frames": 1, "fps": 0, "events": [{"name": "still", "time": 0}]}
queries = []


def q(instance, since, time, controls=()):
    line = {"instance": instance, "since": since, "time": time}
    if controls:
        line["set"] = [{"now": now, "control": c} for now, c in controls]
    queries.append(line)


inst = m.inst
windows = [(-1, 0), (-1, 0.25), (0, 0.25), (0.25, 0.5), (0.24, 0.76), (0.5, 1), (1, 2.6), (2.25, 2.75), (-1, 4.5),
           (0, 10), (3.9, 4.1)]

# 1. Loop modes, repetitions, end modes, speeds (backwards included), a later start.
for clip in [A, E, W]:
    for loop, reps in [("repeat", -1), ("repeat", 2), ("once", 1), ("pingpong", -1), ("pingpong", 3),
                       ("pingpong", 4)]:
        for speed in [1, 2, -1, -0.5]:
            for since, time in windows:
                q(inst(clip, 0, loopMode=loop, repetitions=reps, speed=speed), since, time)
    for since, time in windows:
        q(inst(clip, 1.5), since, time)
        q(inst(clip, 0, speed=0), since, time)
        q(inst(clip, 0, loopMode="once", endMode="rewind"), since, time)
for since, time in [(-1, 0), (-1, 5)]:
    q(inst(P, 0), since, time)

# 2. Fades (the outgoing clip fires while its weight is > 0) and blends (phase- and time-synced,
# a weight ramping from 0: B silent while its weight is 0).
for since, time in [(9, 10), (10, 10.5), (10.5, 11), (10, 12), (11, 13), (9.9, 10.1)]:
    q(inst(W, 10, fadeDuration=2, **{"from": {"clip": B, "startTime": 7, "speed": 0.5}}), since, time)
    q(inst(A, 10, speed=-1, fadeDuration=1, fadeCurve="smooth",
           **{"from": {"clip": E, "startTime": 8, "loopMode": "pingpong"}}), since, time)
for sync in ["phase", "time"]:
    for since, time in [(-1, 0.5), (0.5, 1.5), (-1, 3), (1.9, 2.6)]:
        q(inst(A, 0, blend={"clip": B, "weight": 0.3, "sync": sync}), since, time)
        q(inst(E, 0, speed=-1.25, loopMode="pingpong", repetitions=3,
               blend={"clip": W, "weight": 0.5, "sync": sync}), since, time)
        q(inst(A, 0, fadeDuration=2, blend={"clip": B, "weight": 1, "weightFrom": 0, "sync": sync}), since, time)

# 3. Controls: a pause holds (the held instant fires once), resume continues without repeats, a
# turn back retraces the events it passed.
for speed in [1, -1, 1.7]:
    for loop, reps in [("repeat", -1), ("once", 1), ("pingpong", 3)]:
        base = inst(A, 0, speed=speed, loopMode=loop, repetitions=reps)
        q(base, 0, 5, [(0.6, "pause")])
        q(base, 0, 0.75, [(0.75, "pause")])
        q(base, 0.75, 3, [(0.75, "pause")])
        q(base, 0, 4, [(0.6, "pause"), (2, "resume")])
        q(base, 1, 3, [(0.6, "pause"), (2, "resume")])
        q(base, 0, 3.5, [(1.45, "turnBack")])
        q(base, 1.45, 2.9, [(1.45, "turnBack")])
        q(base, 0, 4, [(1.2, "pause"), (1.5, "turnBack"), (2, "resume")])
for since, time in [(10, 13), (10.5, 15)]:
    q(inst(W, 10, fadeDuration=2, **{"from": {"clip": B, "startTime": 7, "speed": 0.5}}), since, time,
      [(11, "pause"), (11.5, "turnBack"), (13, "resume")])


def main():
    path = os.path.join(HERE, "events_v1.jsonl")
    total = 0
    with open(path, "w") as f:
        for query in queries:
            expect = answer(query)
            total += len(expect["events"])
            f.write(json.dumps(dict(query, expect=expect), separators=(",", ":")) + "\n")
    print(f"{path}: {len(queries)} cases, {total} events")


if __name__ == "__main__":
    main()

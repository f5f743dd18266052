#!/usr/bin/env python3
"""Writes tests/conformance/playback_v2.jsonl: playback queries covering every edge case of
vatkit's resolve (docs/playback.md), each answered by `vatkit frame --annotate`.

Usage: tests/conformance/make_playback_v2.py [PATH/TO/vatkit]   (default: build/bin/vatkit)

The queries are listed here, deterministically; the answers come from the CLI, which is the
library. Regenerate only when the playback semantics change on purpose (and bump the version in
the file name when they do: engines port against a version).
"""
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def f32(x):
    """x rounded to float32, as a Python float (a double holding that float32 exactly)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def before(x):
    """The float32 just below float32 x."""
    x = f32(x)
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = bits - 1 if x > 0 else (bits + 1 if x < 0 else 0x80000001)
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# Bands: A is 1 s (5 rows at 4 fps); B 1 s (31 rows at 30 fps); W 5/6 s (21 rows at 24 fps);
# R 2/3 s (21 rows at 30 fps); P one row.
A = {"startFrame": 10, "frames": 5, "fps": 4}
B = {"startFrame": 0, "frames": 31, "fps": 30}
W = {"startFrame": 100, "frames": 21, "fps": 24}
R = {"startFrame": 31, "frames": 21, "fps": 30}
P = {"startFrame": 40, "frames": 1, "fps": 0}

lines = []


def q(instance, time, writes=None):
    line = {"instance": instance, "time": time}
    if writes:
        line["set"] = [{"now": now, "instance": inst} for now, inst in writes]
    lines.append(json.dumps(line))


def inst(clip, start, **fields):
    d = {"clip": clip, "startTime": start}
    d.update(fields)
    return d


# 1. Loop modes x repetitions x end modes, at the times that matter (start 2, A lasts 1 s).
times = [-1e3, 1.999, 2, 2.375, 2.75, before(3), 3, 3.125, 3.5, 4, before(5), 5, 5.25, 9.5]
for loop in ["repeat", "once", "pingpong"]:
    for reps in [None, -1, 1, 2, 3]:
        for end in ["clamp", "rewind"]:
            fields = {"loopMode": loop, "endMode": end}
            if reps is not None:
                fields["repetitions"] = reps
            for t in times:
                if end == "rewind" and reps in (None, -1) and loop != "once":
                    if t not in (2.375, 5.25):
                        continue  # endless: the end mode never applies; two samples suffice
                q(inst(A, 2, **fields), t)

# 2. One-row clips, speed 0, other speeds, a 31-row band between rows.
for loop in ["repeat", "once", "pingpong"]:
    for t in [0, before(1), 1, 7]:
        q(inst(P, 1, loopMode=loop), t)
        q(inst(P, 1, loopMode=loop, speed=0), t)
for t in [0, 0.5, 5, 1e6]:
    q(inst(A, 0, speed=0, loopMode="once"), t)
for speed in [0.5, 1.7, 2.5]:
    for t in [0.1, 0.4, 0.77, 1.3, 2.2]:
        q(inst(B, 0, speed=speed), t)
        q(inst(B, 0, speed=speed, loopMode="pingpong", repetitions=3), t)
for t in [0.0125, 1 / 60, 0.5, 0.99, 1.01, 1.9]:
    q(inst(W, 0), t)

# 3. The default tiers: clip defaults, instance overrides, a count belonging to its mode.
death = dict(A, loopMode="once", endMode="rewind", speed=0.5)
for t in [1, 2.5, 3.99, 4, 6]:
    q(inst(death, 2), t)
    q(inst(death, 2, speed=2), t)
    q(inst(death, 2, endMode="clamp"), t)
looped = dict(A, loopMode="repeat", repetitions=3)
for t in [2.5, 4.5, before(5), 5, 6]:
    q(inst(looped, 2), t)
    q(inst(looped, 2, loopMode="repeat"), t)    # same mode: the clip's 3 stands
    q(inst(looped, 2, loopMode="pingpong"), t)  # another mode: endless
    q(inst(looped, 2, loopMode="once"), t)

# 4. Very large and very negative times.
for t in [1e5, 123456.789, 1e7, 3e38, -3e38]:
    q(inst(A, -3), t)
    q(inst(A, -3, loopMode="pingpong"), t)
    q(inst(A, -3, repetitions=2), t)

# 5. Hand-made cross-fades: the outgoing band keeps playing; linear and smooth; partial weight.
out = {"clip": B, "startTime": 7, "speed": 0.5}
for curve in ["linear", "smooth"]:
    for t in [9, 10, 10.5, 11, 11.5, before(12), 12, 13]:
        q(inst(W, 10, fadeDuration=2, fadeCurve=curve, **{"from": out}), t)
for t in [10, 10.25, 11]:
    q(inst(W, 10, fadeDuration=1, fadeWeight=0.4, fadeStart=10.0, **{"from": out}), t)
    q(inst(W, 10, fadeDuration=1, **{"from": dict(out, loopMode="once")}), t + 1)
q(inst(W, 10, fadeDuration=0, **{"from": out}), 10.5)  # no duration: no fade

# 6. Two-clip blends: phase and time sync, steady and ramping, policies shared.
for sync in ["phase", "time"]:
    for t in [0, 0.3, 0.7, 1.2, 2.9]:
        q(inst(B, 0, speed=1.25, blend={"clip": W, "weight": 0.35, "sync": sync}), t)
        q(inst(B, 0, loopMode="pingpong", repetitions=2, blend={"clip": R, "weight": 0.5, "sync": sync}), t)
for t in [4, 5, 5.5, 6, 7]:
    q(inst(B, 0, fadeDuration=1, fadeStart=5, blend={"clip": W, "weight": 0.8, "weightFrom": 0.2}), t)
q(inst(B, 0, blend={"clip": W, "weight": 0}), 0.4)
q(inst(B, 0, blend={"clip": P, "weight": 0.5}), 0.4)  # a one-row B

# 7. set_instance: transitions from what is on screen.
walk, run, wave = inst(B, 0), inst(R, 1, fadeDuration=1), inst(W, 0)
for t in [0.5, 1, 1.25, 1.5, 2, 2.5]:
    q(walk, t, [(1, run)])  # fade from the walk, which keeps playing
    q(walk, t, [(1, inst(R, 1, fadeDuration=1, fadeCurve="smooth"))])
for now in [1.25, 1.5, 1.75]:
    for t in [now, now + 0.25, now + 0.5, now + 1]:
        q(walk, t, [(1, run), (now, inst(R, 1, fadeDuration=0.5))])             # retarget
        q(walk, t, [(1, run), (now, inst(B, 0, fadeDuration=0.5))])             # turn back
        q(walk, t, [(1, run), (now, inst(W, now, fadeDuration=0.5))])           # collapse
        q(walk, t, [(1, run), (now, inst(W, now))])                             # cut
loco = inst(B, 0, blend={"clip": R, "weight": 0.2})
ramp = inst(B, 0, fadeDuration=1, blend={"clip": R, "weight": 0.8})
for t in [3, 3.5, 4, 5]:
    q(loco, t, [(3, ramp)])                 # blend weight change
    q(walk, t, [(3, ramp)])                 # into the blend from A
    q(inst(R, 0), t, [(3, inst(B, 0, fadeDuration=1, blend={"clip": R, "weight": 0.8, "sync": "time"}))])
one_shot = inst(A, 0, loopMode="once")
for t in [0.5, 1, 1.1, 1.25, 1.5]:
    q(one_shot, t, [(1, inst(B, 1, fadeDuration=0.25))])  # chained at its end, fading over the held pose


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "vatkit")
    result = subprocess.run([cli, "frame", "--annotate"], input="\n".join(lines) + "\n",
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(result.stderr.strip())
    path = os.path.join(HERE, "playback_v2.jsonl")
    with open(path, "w") as f:
        f.write(result.stdout)
    print(f"{path}: {len(lines)} cases")


if __name__ == "__main__":
    main()

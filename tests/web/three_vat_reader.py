#!/usr/bin/env python3
"""An independent reader of three-vat's file (THREEVAT_vat, format version 3), and the test of
`vatkit export --to three-vat` built on it.

Written from docs/three-vat.md (itself written from three-vat's ADRs and sources), with the Python
standard library only, and sharing nothing with vatkit's writer: it parses the GLB, checks the
structure three-vat's loader relies on, undoes the position layer's transform, resolves which rows
an instance started at time 0 shows at a clock time (three-vat's resolveVATFrame), decodes every
vertex under either encoding, and compares the positions with

  - `vatkit pose SOURCE.glb` (the reference skinner) within the error the export states, and
  - `vatkit pose SAME.vat.glb` (vatkit's own decode of the very VAT that was exported) within the
    conversion's own bound, which is tight: a layout, timing or texel mistake shows at once.

Usage: three_vat_reader.py --vatkit BIN --assets DIR [--work DIR]
       three_vat_reader.py --read FILE      (prints what the file holds)
Exit status 0 when every case passes; each failure is printed on a line of its own.
"""

import argparse
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

EXTENSION = "THREEVAT_vat"
FORMAT_VERSION = 3
COMPONENT = {5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4), 5126: ("f", 4)}
TYPE_SIZE = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


class Bad(Exception):
    """The file breaks the format, or a comparison failed."""


def check(condition, message):
    if not condition:
        raise Bad(message)


# ---- the GLB container ------------------------------------------------------------------------


def read_glb(path):
    data = open(path, "rb").read()
    check(len(data) >= 20, f"{path}: shorter than a GLB header")
    magic, version, length = struct.unpack_from("<III", data, 0)
    check(magic == 0x46546C67 and version == 2 and length == len(data), f"{path}: not a glTF 2.0 binary")
    json_length, json_type = struct.unpack_from("<II", data, 12)
    check(json_type == 0x4E4F534A, f"{path}: first chunk is not JSON")
    doc = json.loads(data[20 : 20 + json_length])
    at = 20 + json_length
    binary = b""
    if at < len(data):
        bin_length, bin_type = struct.unpack_from("<II", data, at)
        check(bin_type == 0x004E4942, f"{path}: second chunk is not BIN")
        binary = data[at + 8 : at + 8 + bin_length]
    return doc, binary


class Gltf:
    def __init__(self, path):
        self.path = path
        self.doc, self.bin = read_glb(path)

    def view(self, index):
        v = self.doc["bufferViews"][index]
        check(v.get("buffer", 0) == 0, f"bufferViews[{index}] is not in the BIN chunk")
        start = v.get("byteOffset", 0)
        check(start + v["byteLength"] <= len(self.bin), f"bufferViews[{index}] runs past the BIN chunk")
        return self.bin[start : start + v["byteLength"]]

    def accessor(self, index):
        """The accessor's elements as tuples, and (componentType, byteStride)."""
        a = self.doc["accessors"][index]
        fmt, size = COMPONENT[a["componentType"]]
        n = TYPE_SIZE[a["type"]]
        view = self.doc["bufferViews"][a["bufferView"]]
        stride = view.get("byteStride", 0) or size * n
        raw = self.view(a["bufferView"])
        offset = a.get("byteOffset", 0)
        out = []
        for i in range(a["count"]):
            out.append(struct.unpack_from("<%d%s" % (n, fmt), raw, offset + i * stride))
        return out, (a["componentType"], view.get("byteStride"))


def fnv1a32(data):
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "fnv1a32:%08x" % h


def half_floats(lows, highs):
    """Half floats from their low and high bytes (two equal-length byte strings)."""
    pairs = bytearray(2 * len(lows))
    pairs[0::2] = lows
    pairs[1::2] = highs
    return struct.unpack("<%de" % len(lows), pairs)


# ---- the file ----------------------------------------------------------------------------------


class ThreeVatFile:
    """What docs/three-vat.md says a file holds, read and checked."""

    def __init__(self, path):
        g = Gltf(path)
        self.gltf = g
        doc = g.doc
        check(EXTENSION in doc.get("extensionsUsed", []), "THREEVAT_vat is not in extensionsUsed")
        check(EXTENSION not in doc.get("extensionsRequired", []), "THREEVAT_vat is in extensionsRequired")
        ext = doc.get("extensions", {}).get(EXTENSION)
        check(isinstance(ext, dict), "no THREEVAT_vat object at the root")
        check(ext.get("version") == FORMAT_VERSION, f"format version {ext.get('version')}, not 3")
        self.ext = ext
        self.encoding = ext["encoding"]
        check(self.encoding in ("delta", "rig"), f"unknown encoding {self.encoding!r}")
        self.vertex_count = ext["vertexCount"]
        self.total_frames = ext["totalFrames"]
        self.clips = ext["clips"]

        # The mesh: one primitive per group, every primitive sharing one set of attributes.
        mesh = doc["meshes"][ext["mesh"]]
        primitives = mesh["primitives"]
        groups = ext["groups"]
        check(len(primitives) == len(groups), f"{len(primitives)} primitives for {len(groups)} groups")
        attributes = primitives[0]["attributes"]
        total = sum(gr["count"] for gr in groups)
        covered = [False] * total
        for i, (p, gr) in enumerate(zip(primitives, groups)):
            check(p["attributes"] == attributes, f"primitive {i} does not share the first one's attributes")
            check("indices" in p, f"primitive {i} has no indices")
            check(g.doc["accessors"][p["indices"]]["count"] == gr["count"], f"primitive {i}'s indices != group count")
            check(0 <= gr["start"] and gr["start"] + gr["count"] <= total, f"group {i} outside the index buffer")
            for k in range(gr["start"], gr["start"] + gr["count"]):
                check(not covered[k], f"group {i} overlaps another")
                covered[k] = True
        self.positions = [tuple(p) for p in g.accessor(attributes["POSITION"])[0]]
        check(len(self.positions) == self.vertex_count, "POSITION count != vertexCount")
        digest = fnv1a32(struct.pack("<%df" % (3 * len(self.positions)), *[c for p in self.positions for c in p]))
        check(digest == ext["digest"], f"digest {ext['digest']} but POSITION hashes to {digest}")
        for i, gr in enumerate(groups):
            indices = g.accessor(primitives[i]["indices"])[0]
            check(all(0 <= x[0] < self.vertex_count for x in indices), f"primitive {i} indexes past the vertices")
        self.sources = mesh.get("extras", {}).get("vatkitSources", [])

        # The clip table: bands inside the frames, disjoint.
        used = [False] * self.total_frames
        for c in self.clips:
            check(c["frames"] >= 1 and c["fps"] > 0, f"clip {c['name']!r}: frames {c['frames']}, fps {c['fps']}")
            check(c["startFrame"] + c["frames"] <= self.total_frames, f"clip {c['name']!r} outside the frames")
            for f in range(c["startFrame"], c["startFrame"] + c["frames"]):
                check(not used[f], f"clip {c['name']!r} overlaps another band")
                used[f] = True
            check(c["loopMode"] in (0, 1, 2) and c["endMode"] in (0, 1) and c["speed"] >= 0, "bad playback fields")

        fb = g.view(ext["frameBounds"])
        check(len(fb) >= 24 * self.total_frames, "frameBounds holds fewer than 6 floats a frame")
        self.frame_bounds = struct.unpack_from("<%df" % (6 * self.total_frames), fb)

        if self.encoding == "delta":
            # vatkit's texel address (a .vat.glb's _VAT_VERTEX): three-vat ignores it; the texture
            # column of vertex i is i here, which the digest pins.
            check("_VAT_VERTEX" in attributes, "a vertex-encoded file without _VAT_VERTEX")
            address = [x[0] for x in g.accessor(attributes["_VAT_VERTEX"])[0]]
            check(address == [float(i) for i in range(self.vertex_count)], "_VAT_VERTEX is not 0..vertexCount-1")
            self._read_delta()
        else:
            self._read_rig(attributes)

    # -- the vertex encoding

    def _read_delta(self):
        ext = self.ext
        layer = ext["layers"]["position"]
        check(layer["format"] == "RGBA16F", "position layer is not RGBA16F")
        self.rows_per_frame = ext["rowsPerFrame"]
        self.width = layer["width"]
        check(self.width * self.rows_per_frame >= self.vertex_count, "position layer too narrow for the vertices")
        check(layer["height"] == self.total_frames * self.rows_per_frame, "position layer height != frames x rows")
        stored = self.gltf.view(layer["bufferView"])
        check(len(stored) >= self.width * layer["height"] * 8, "position layer shorter than its texels")
        self.planes = stored[: self.width * layer["height"] * 8]
        self.frame_cache = {}
        normal = ext["layers"].get("normal")
        if normal is not None:
            check(normal["format"] == "RG8", "normal layer is not RG8")
            check((normal["width"], normal["height"]) == (self.width, layer["height"]), "normal layer shape")
            self.normals = self.gltf.view(normal["bufferView"])[: self.width * layer["height"] * 2]
            check(len(self.normals) == self.width * layer["height"] * 2, "normal layer shorter than its texels")
        else:
            self.normals = None

    def load_frames(self, wanted):
        """Undo the transform for the frames in `wanted`: per texel and channel a running sum of
        16-bit differences over the frames. The sum runs over all texels at once, each in a
        32-bit lane of one big integer (no lane can carry into the next: frames x 65535 < 2^32)."""
        S = self.width * self.rows_per_frame
        F = self.total_frames
        P = S * F
        last = max(wanted)
        for c in range(4):
            low_plane = self.planes[2 * c * P : 2 * c * P + P]
            high_plane = self.planes[(2 * c + 1) * P : (2 * c + 2) * P]
            running = 0
            lanes = bytearray(4 * S)
            for f in range(last + 1):
                lanes[0::4] = low_plane[f::F]
                lanes[1::4] = high_plane[f::F]
                running += int.from_bytes(lanes, "little")
                if f in wanted:
                    summed = running.to_bytes(4 * S + 8, "little")
                    values = half_floats(summed[0 : 4 * S : 4], summed[1 : 4 * S : 4])
                    self.frame_cache.setdefault(f, [None] * 4)[c] = values
        for f in wanted:
            alpha = self.frame_cache[f][3]
            check(all(a == 1.0 for a in alpha[: self.vertex_count]), f"frame {f}: a position texel's alpha is not 1")

    def delta(self, frame, v):
        channels = self.frame_cache[frame]
        return (channels[0][v], channels[1][v], channels[2][v])  # texel f*R*W + v of the frame

    def normal(self, frame, v):
        at = (frame * self.rows_per_frame * self.width + v) * 2
        ex = self.normals[at] / 255 * 2 - 1
        ey = self.normals[at + 1] / 255 * 2 - 1
        z = 1 - abs(ex) - abs(ey)
        t = max(-z, 0.0)
        x = ex - (1 if ex >= 0 else -1) * t
        y = ey - (1 if ey >= 0 else -1) * t
        n = math.sqrt(x * x + y * y + z * z) or 1.0
        return (x / n, y / n, z / n)

    # -- the rig encoding

    def _read_rig(self, attributes):
        ext = self.ext
        self.slot_count = ext["slotCount"]
        layer = ext["layers"]["rig"]
        check(layer["format"] == "RGBA32F", "rig layer is not RGBA32F")
        check(layer["width"] == 2 * self.slot_count, "rig texture width != 2 x slots")
        check(layer["height"] == self.total_frames + 1, "rig texture height != frames + 1 (the hierarchy row)")
        self.width = layer["width"]
        raw = self.gltf.view(layer["bufferView"])
        count = layer["width"] * layer["height"] * 4
        check(len(raw) >= count * 4, "rig texture shorter than its texels")
        self.rig = struct.unpack_from("<%df" % count, raw)
        check("JOINTS_0" in attributes and "WEIGHTS_0" in attributes, "a rig file without JOINTS_0 / WEIGHTS_0")
        self.joints = self.gltf.accessor(attributes["JOINTS_0"])[0]
        weights, (component, stride) = self.gltf.accessor(attributes["WEIGHTS_0"])
        check(component == 5126 and stride in (None, 16), "WEIGHTS_0 is not tightly packed floats")
        self.weights = weights
        for v, (j, w) in enumerate(zip(self.joints, self.weights)):
            check(all(0 <= s < self.slot_count for s, x in zip(j, w) if x != 0), f"vertex {v} reads a missing slot")
        self.parents = []
        for s in range(self.slot_count):
            parent = self.hierarchy(s)[1]
            check(parent == int(parent) and -1 <= parent < self.slot_count, f"slot {s}: parent {parent}")
            self.parents.append(int(parent))
        for s in range(self.slot_count):  # every chain ends (a decode walks it up to its top)
            chain, at = 0, s
            while at >= 0:
                chain += 1
                check(chain <= self.slot_count, f"slot {s}'s chain of parents loops")
                at = self.parents[at]

    def slot(self, frame, s):
        at = (frame * self.width + 2 * s) * 4
        return self.rig[at : at + 4], self.rig[at + 4 : at + 8]

    def hierarchy(self, s):
        at = (self.total_frames * self.width + 2 * s) * 4
        return self.rig[at : at + 3], self.rig[at + 3]

    # -- playback and decode

    def resolve(self, clip, time):
        """Rows and mix of one instance started at 0 with the clip's own defaults (resolveVATFrame)."""
        frames, last = clip["frames"], clip["frames"] - 1
        duration = frames / clip["fps"]
        local = time * clip["speed"]
        loops = local / duration
        started = local >= 0
        finished = started and clip["repetitions"] != -1 and loops >= clip["repetitions"]
        if not started:
            phase, wraps = 0.0, False
        elif finished:
            phase, wraps = (1.0 if clip["endMode"] == 0 else 0.0), False
        elif clip["loopMode"] == 2:
            m = loops - 2 * math.floor(loops * 0.5)
            phase, wraps = (m if m < 1 else 2 - m), False
        else:
            phase, wraps = loops % 1, True
        x = phase * (frames if wraps else last)
        f0 = min(math.floor(x), last)
        nxt = f0 + 1
        f1 = (0 if nxt >= frames else nxt) if wraps else min(nxt, last)
        return clip["startFrame"] + f0, clip["startFrame"] + f1, x - f0

    def decode(self, row, row_next, mix):
        if self.encoding == "delta":
            missing = {row, row_next} - self.frame_cache.keys()
            if missing:
                self.load_frames(missing)
            out = []
            for v, p in enumerate(self.positions):
                a, b = self.delta(row, v), self.delta(row_next, v)
                out.append(tuple(p[c] + a[c] + (b[c] - a[c]) * mix for c in range(3)))
            return out
        # rig: every slot blended between the rows, as an affine matrix; then the weighted sum.
        matrices = []
        for s in range(self.slot_count):
            (qa, ta), (qb, tb) = self.slot(row, s), self.slot(row_next, s)
            if sum(x * y for x, y in zip(qa, qb)) < 0:
                qb = tuple(-x for x in qb)
            q = [x + (y - x) * mix for x, y in zip(qa, qb)]
            n = math.sqrt(sum(x * x for x in q)) or 1.0
            x, y, z, w = (c / n for c in q)
            t = [x0 + (x1 - x0) * mix for x0, x1 in zip(ta, tb)]
            sc = t[3]
            matrices.append(
                (
                    ((1 - 2 * (y * y + z * z)) * sc, (2 * (x * y - z * w)) * sc, (2 * (x * z + y * w)) * sc, t[0]),
                    ((2 * (x * y + z * w)) * sc, (1 - 2 * (x * x + z * z)) * sc, (2 * (y * z - x * w)) * sc, t[1]),
                    ((2 * (x * z - y * w)) * sc, (2 * (y * z + x * w)) * sc, (1 - 2 * (x * x + y * y)) * sc, t[2]),
                )
            )
        out = []
        for p, j, wt in zip(self.positions, self.joints, self.weights):
            acc = [0.0, 0.0, 0.0]
            for s, w in zip(j, wt):
                if w == 0:
                    continue
                m = matrices[s]
                for r in range(3):
                    acc[r] += w * (m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3])
            out.append(tuple(acc))
        return out


# ---- the test ----------------------------------------------------------------------------------


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def vatkit_pose(vatkit, source, clip_index, time):
    """`vatkit pose`: {(node, mesh, primitive): [(x, y, z), ...]}."""
    r = run([vatkit, "pose", source, "--clip", "#%d" % clip_index, "--time", repr(time)])
    check(r.returncode == 0, f"vatkit pose {source} failed: {r.stderr.strip()}")
    out = {}
    for p in json.loads(r.stdout)["primitives"]:
        xs = p["positions"]
        out[(p["node"], p["mesh"], p["primitive"])] = [tuple(xs[i : i + 3]) for i in range(0, len(xs), 3)]
    return out


def largest_distance(file, decoded, pose):
    """The largest distance between the file's decoded vertices and a pose, matched through the
    file's vatkitSources ranges."""
    check(file.sources, "the file has no vatkitSources to match a pose with")
    worst = 0.0
    for s in file.sources:
        expected = pose[(s["node"], s["mesh"], s["primitive"])]
        check(len(expected) == s["vertexCount"], "a source range's vertex count differs from the pose's")
        for k, e in enumerate(expected):
            worst = max(worst, math.dist(decoded[s["firstVertex"] + k], e))
    return worst


def parse_report(text):
    """The export's stated numbers: per clip (rows, frames, loop seam, error on rows and between, in
    file units), and the conversion's largest change of a position component."""
    clips = []
    for m in re.finditer(
        r'clip "(.*)": (\d+) rows -> (\d+) frames at [\d.]+ fps \(([^)]*)\); error ([\d.]+) mm on the rows, '
        r"([\d.]+) mm between",
        text,
    ):
        seam = re.search(r"loop seam ([\d.]+) mm", m.group(4))
        clips.append(
            {
                "rows": int(m.group(2)),
                "frames": int(m.group(3)),
                "seam": float(seam.group(1)) / 1e3 if seam else 0.0,
                "on_rows": float(m.group(5)) / 1e3,
                "between": float(m.group(6)) / 1e3,
            }
        )
    conversion = re.search(r"position components changed by at most ([\d.]+) mm", text)
    check(clips and conversion, "the export's report does not state its error:\n" + text)
    return clips, float(conversion.group(1)) / 1e3


def check_frame_bounds(file, row, decoded, slack):
    b = file.frame_bounds[6 * row : 6 * row + 6]
    for p in decoded:
        for c in range(3):
            check(b[c] - slack <= p[c] <= b[3 + c] + slack, f"frame {row}: a vertex outside frameBounds")
    bounds = file.ext["bounds"]
    for c in range(3):
        check(f32(bounds["min"][c]) <= b[c] and b[3 + c] <= f32(bounds["max"][c]), f"frame {row}: outside bounds")


def check_normals(file, row, decoded):
    """The decoded normals point the way the posed surface faces (a loose check that the RG8 layer
    holds octahedral normals of this mesh at this frame, not noise)."""
    if file.encoding != "delta" or file.normals is None:
        return
    doc = file.gltf.doc
    mesh = doc["meshes"][file.ext["mesh"]]
    face = [[0.0, 0.0, 0.0] for _ in decoded]
    for p in mesh["primitives"]:
        idx = [i[0] for i in file.gltf.accessor(p["indices"])[0]]
        for t in range(0, len(idx), 3):
            a, b, c = (decoded[i] for i in idx[t : t + 3])
            u = [b[k] - a[k] for k in range(3)]
            w = [c[k] - a[k] for k in range(3)]
            n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
            for i in idx[t : t + 3]:
                for k in range(3):
                    face[i][k] += n[k]
    agree = total = 0
    for v, f in enumerate(face):
        length = math.sqrt(sum(x * x for x in f))
        if length == 0:
            continue
        total += 1
        agree += sum(x * y for x, y in zip(file.normal(row, v), f)) / length > 0.5
    check(total and agree >= 0.9 * total, f"frame {row}: only {agree} of {total} normals face their surface")


def sample_times(file, clip_index, rows):
    """Clock times on vatkit's sampling grid (each row, and a quarter, half and three quarters
    between rows: what the bake's measure samples), in the band's first and last interval, and at
    its end; for a band that does not repeat, times past its end as well."""
    clip = file.clips[clip_index]
    duration = clip["duration"]
    if rows < 2:
        return [0.0]
    step = duration / (rows - 1)
    times = []
    for k in sorted({0, rows - 2}):
        times += [(k + j / 4) * step for j in range(4)]
    times.append(duration)
    if clip["loopMode"] == 1:
        times.append(duration + 2 * step)  # finished: held on its end pose
    if clip["loopMode"] == 2:
        times.append(duration + 1.5 * step)  # on its way back, or finished
    speed = clip["speed"] or 1.0
    return [t / speed for t in times]


def source_time(clip, time):
    """The time on the source clip's timeline an instance started at 0 should show at clock time
    `time`: three-vat's playback rules (repeat, once, ping-pong, repetitions, end mode) over the
    clip's own duration, whatever the file's frames and rate. A file whose rows or rate are off
    shows another pose than this one."""
    duration = clip["duration"]
    if duration <= 0:
        return 0.0
    loops = time * clip["speed"] / duration
    if clip["repetitions"] != -1 and loops >= clip["repetitions"]:
        return duration if clip["endMode"] == 0 else 0.0
    if clip["loopMode"] == 2:
        m = loops - 2 * math.floor(loops * 0.5)
        return (m if m < 1 else 2 - m) * duration
    return (loops % 1) * duration


def f32(x):
    """A JSON number as the float32 a reader narrows it to."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def check_case(vatkit, name, source, vat_glb, exported, report_text, clip_indices):
    file = ThreeVatFile(exported)
    stated, conversion = parse_report(report_text)
    if "slot parents from the source's node hierarchy" in report_text:
        check(any(p >= 0 for p in file.parents), "the report says the slots have parents, the file none")
    check(len(stated) == len(file.clips), "the report lists another number of clips than the file")
    extent = math.dist(file.ext["bounds"]["min"], file.ext["bounds"]["max"])
    eps = 2e-6 * extent  # float arithmetic (decoding, skinning) on either side of a comparison
    conversion_bound = math.sqrt(3) * conversion + eps
    # Every sample resolved first, so that the position layer is undone in one pass.
    samples = []
    for ci in clip_indices:
        clip = file.clips[ci]
        for time in sample_times(file, ci, stated[ci]["rows"]):
            row, row_next, mix = file.resolve(clip, time)
            samples.append((ci, time, source_time(clip, time), row, row_next, mix))
    if file.encoding == "delta":
        file.load_frames({s[3] for s in samples} | {s[4] for s in samples})
    worst_vat = worst_ref = worst_wrap = 0.0
    for ci, time, t, row, row_next, mix in samples:
        clip = file.clips[ci]
        decoded = file.decode(row, row_next, mix)
        # Where three-vat wraps into the band's first row, vatkit blends into its end row: the two
        # differ by up to the loop seam (in proportion to the mix only under the vertex encoding).
        seam = stated[ci]["seam"] if row_next < row else 0.0
        own = largest_distance(file, decoded, vatkit_pose(vatkit, vat_glb, ci, t))
        ref = largest_distance(file, decoded, vatkit_pose(vatkit, source, ci, t))
        if seam:
            worst_wrap = max(worst_wrap, own)
        else:
            worst_vat, worst_ref = max(worst_vat, own), max(worst_ref, ref)
        where = f"{name}: clip {clip['name']!r} at {time:.5f} s (rows {row}, {row_next}, mix {mix:.3f})"
        bound = conversion_bound + seam
        check(own <= bound, f"{where}: {own:.6g} from vatkit's decode, bound {bound:.6g}")
        bound = (stated[ci]["on_rows"] if mix == 0.0 else stated[ci]["between"]) + seam + eps
        check(ref <= bound, f"{where}: {ref:.6g} from the source, stated {bound:.6g}")
        if mix == 0.0:
            check_frame_bounds(file, row, decoded, eps)
            check_normals(file, row, decoded)
    print(
        f"ok {name}: {file.encoding}, {len(samples)} times in {len(clip_indices)} clips; largest distance "
        f"{worst_vat * 1e3:.6f} mm from vatkit's decode, {worst_ref * 1e3:.3f} mm from the source "
        f"(in a wrapping last interval: {worst_wrap * 1e3:.3f} mm from vatkit's decode)"
    )


def export(vatkit, source, out, *extra):
    r = run([vatkit, "export", source, "--to", "three-vat", "-o", out, *extra])
    check(r.returncode == 0, f"vatkit export {source} failed: {r.stderr.strip()}")
    return r.stdout


def bake(vatkit, source, out, *options):
    r = run([vatkit, "bake", source, "-o", out, *options])
    check(r.returncode == 0, f"vatkit bake {source} failed: {r.stderr.strip()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vatkit")
    parser.add_argument("--assets")
    parser.add_argument("--work")
    parser.add_argument("--read", help="print what a three-vat file holds and exit")
    args = parser.parse_args()
    if args.read:
        f = ThreeVatFile(args.read)
        print(json.dumps({k: v for k, v in f.ext.items() if k != "clips"}, indent=1))
        for c in f.clips:
            print(c)
        return 0

    work = args.work or tempfile.mkdtemp(prefix="three_vat_")
    os.makedirs(work, exist_ok=True)
    # $VATKIT_ASSETS, where set, stands for the shared assets (as for the C++ tests).
    vk, assets = args.vatkit, os.environ.get("VATKIT_ASSETS") or args.assets
    path = lambda rel: os.path.join(assets, rel)
    w = lambda name: os.path.join(work, name)
    failures = 0

    def case(name, fn):
        nonlocal failures
        try:
            fn()
        except Bad as e:
            failures += 1
            print(f"FAIL {name}: {e}")

    # A glTF exported directly (baked now, encoding auto: the rig for these three), against the
    # same bake written as a .vat.glb (the bake is deterministic).
    def direct(name, rel, clips):
        def go():
            bake(vk, path(rel), w(name + ".vat.glb"), "--lods", "0")
            text = export(vk, path(rel), w(name + ".three-vat.glb"))
            check_case(vk, name, path(rel), w(name + ".vat.glb"), w(name + ".three-vat.glb"), text, clips)
        case(name, go)

    # A .vat.glb exported, baked with the options given.
    def from_vat(name, rel, clips, *options):
        def go():
            bake(vk, path(rel), w(name + ".vat.glb"), "--lods", "0", *options)
            text = export(vk, w(name + ".vat.glb"), w(name + ".three-vat.glb"))
            check_case(vk, name, path(rel), w(name + ".vat.glb"), w(name + ".three-vat.glb"), text, clips)
        case(name, go)

    direct("CesiumMan", "khronos/CesiumMan.glb", [0])
    direct("Fox", "khronos/Fox.glb", [0, 2])
    direct("RobotExpressive", "threejs/RobotExpressive.glb", [1, 12])
    from_vat("Fox-delta-f32", "khronos/Fox.glb", [1], "--encoding", "delta")
    from_vat("CesiumMan-delta-q16", "khronos/CesiumMan.glb", [0], "--encoding", "delta", "--precision", "q16")
    from_vat("RobotExpressive-delta-f16", "threejs/RobotExpressive.glb", [1, 12], "--encoding", "delta",
             "--precision", "f16", "--clip-defaults", "Death=once,clamp", "--clip-defaults", "Wave=pingpong")
    from_vat("Fox-rig-q16", "khronos/Fox.glb", [2], "--encoding", "rig", "--precision", "q16")

    # What the format cannot hold is refused in one line naming the input, and leaves no file.
    def refuses_levels():
        bake(vk, path("khronos/Fox.glb"), w("lods.vat.glb"))  # the default bake has levels of detail
        out = w("lods.three-vat.glb")
        r = run([vk, "export", w("lods.vat.glb"), "--to", "three-vat", "-o", out])
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 1 and len(lines) == 1, f"exit {r.returncode}, stderr {r.stderr!r}")
        check("lods.vat.glb" in lines[0] and "levels of detail" in lines[0], f"the refusal says {lines[0]!r}")
        check(not os.path.exists(out), "a refused export left a file")
        print("ok refusal: " + lines[0])

    case("refuses levels of detail", refuses_levels)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

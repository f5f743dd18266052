#!/usr/bin/env python3
"""An independent reader of `vatkit export --to openvat`'s files, written from docs/openvat.md
(standard library only: its own PNG and GLB readers), checked against the reference skinner.

It exports a real asset (Fox: three clips, 1728 vertices, so the vertices wrap onto two row
blocks), reads the mesh, the 16-bit PNG and the sidecar, shuffles the mesh's vertex order (as an
engine's import may), decodes each vertex's position at several frames of every clip through its
TEXCOORD_1 address alone, and compares with `vatkit pose` of the source glTF at the frame's time.
The bound is the export's quantization (half a 16-bit step of the sidecar's Min..Max per channel)
plus float rounding. It also checks that a decode with a wrong convention (no axis change, or the
next frame row) misses the bound, so the comparison can fail.

Usage: openvat_reader.py --vatkit PATH --assets DIR --work DIR
"""
import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys
import zlib


def read_png_rgb16(path):
    """(width, height, rows): rows[y] is a list of (r, g, b) 16-bit samples, y from the top."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    assert depth == 16 and color == 2 and interlace == 0, "%s: not 16-bit RGB, non-interlaced" % path
    raw = zlib.decompress(b"".join(idat))
    bpp, stride = 6, width * 6
    rows, previous, off = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for i in range(stride):  # the PNG filters (the writer uses none, the reader undoes any)
            a = line[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif kind != 0:
                raise AssertionError("%s: bad filter %d" % (path, kind))
            if kind == 0:
                break
        samples = struct.unpack(">%dH" % (width * 3), bytes(line))
        rows.append([samples[3 * x:3 * x + 3] for x in range(width)])
        previous = line
    return width, height, rows


def read_glb_attributes(path):
    """The first primitive's POSITION and TEXCOORD_1 (float accessors) of a .glb."""
    data = open(path, "rb").read()
    magic, version, _ = struct.unpack("<III", data[:12])
    assert magic == 0x46546C67 and version == 2, path + ": not a glTF 2.0 binary"
    (json_length,) = struct.unpack("<I", data[12:16])
    doc = json.loads(data[20:20 + json_length])
    bin_start = 20 + json_length + 8
    attributes = doc["meshes"][0]["primitives"][0]["attributes"]

    def accessor(index, width):
        acc = doc["accessors"][index]
        view = doc["bufferViews"][acc["bufferView"]]
        assert acc["componentType"] == 5126, path + ": float accessor expected"
        start = bin_start + view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        values = struct.unpack("<%df" % (acc["count"] * width), data[start:start + acc["count"] * width * 4])
        return [values[width * i:width * i + width] for i in range(acc["count"])]

    return accessor(attributes["POSITION"], 3), accessor(attributes["TEXCOORD_1"], 2)


def pose(vatkit, source, clip, time_s, work):
    out = os.path.join(work, "pose.json")
    subprocess.run([vatkit, "pose", source, "--clip", clip, "--time", repr(time_s), "-o", out], check=True)
    return json.load(open(out))["primitives"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vatkit", required=True)
    parser.add_argument("--assets", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.assets, "khronos", "Fox.glb")
    base = os.path.join(args.work, "fox")
    subprocess.run([args.vatkit, "export", source, "--to", "openvat", "-o", base], check=True,
                   stdout=subprocess.DEVNULL)

    sidecar = json.load(open(base + "-remap_info.json"))
    remap = sidecar["os-remap"]
    lo, hi, frames = remap["Min"], remap["Max"], remap["Frames"]
    width, height, rows = read_png_rgb16(base + "_vat.png")
    rest, address = read_glb_attributes(base + ".glb")
    assert width & (width - 1) == 0 and height & (height - 1) == 0, "texture sides are powers of two"

    # The clip table: the source's clips (README durations), in frames of the texture.
    clips = sidecar["animations"]
    expected = {"Survey": 3.4167, "Walk": 0.7083, "Run": 1.1583}
    assert set(clips) == set(expected), clips.keys()
    for name, seconds in expected.items():
        c = clips[name]
        duration = (c["endFrame"] - c["startFrame"]) / c["framerate"]
        assert abs(duration - seconds) < 1e-3 and c["looping"] is True, (name, c)
        assert 0 <= c["startFrame"] <= c["endFrame"] < frames

    # Shuffle the mesh as an import may; remember where each vertex came from only to find its
    # reference position (the decode reads the vertex's own attributes).
    order = list(range(len(rest)))
    random.Random(7).shuffle(order)
    rest = [rest[k] for k in order]
    address = [address[k] for k in order]
    merged_index = {}
    for s in sidecar["vatkit"]["sources"]:
        merged_index[(s["node"], s["mesh"], s["primitive"])] = (s["firstVertex"], s["vertexCount"])

    def decode(j, frame, blender_axes=True):
        u, v = address[j]
        x, y = int(u * width), int(v * height) + frame
        q = rows[y][x]
        d = [lo[a] + (hi[a] - lo[a]) * q[a] / 65535.0 for a in range(3)]
        offset = (d[0], d[2], -d[1]) if blender_axes else d  # Blender z-up to glTF y-up
        return [rest[j][a] + offset[a] for a in range(3)]

    bound = 0.5 * math.sqrt(sum(((hi[a] - lo[a]) / 65535.0) ** 2 for a in range(3))) + 1e-4
    worst, checked, wrong_axes, wrong_row = 0.0, 0, 0.0, 0.0
    for name, c in sorted(clips.items()):
        first, last = c["startFrame"], c["endFrame"]
        for frame in sorted({first, (first + last) // 2, last}):
            reference = [None] * len(rest)
            for prim in pose(args.vatkit, source, name, (frame - first) / c["framerate"], args.work):
                start, count = merged_index[(prim["node"], prim["mesh"], prim["primitive"])]
                p = prim["positions"]
                for i in range(count):
                    reference[start + i] = p[3 * i:3 * i + 3]
            for j in range(len(rest)):
                ref = reference[order[j]]
                worst = max(worst, math.dist(decode(j, frame), ref))
                wrong_axes = max(wrong_axes, math.dist(decode(j, frame, False), ref))
                if frame < last:
                    wrong_row = max(wrong_row, math.dist(decode(j, frame + 1), ref))
                checked += 1
    print("openvat: %d vertex-frames decoded through TEXCOORD_1 of a shuffled mesh; worst %.6g (bound %.6g); "
          "texture %d x %d, %d frames" % (checked, worst, bound, width, height, frames))
    assert worst <= bound, "decoded position off by %g > %g" % (worst, bound)
    assert wrong_axes > 10 * bound and wrong_row > 10 * bound, (wrong_axes, wrong_row)
    print("openvat: a wrong axis convention misses by %.4g, the next row by %.4g" % (wrong_axes, wrong_row))


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""An independent reader of `vatkit export --to openvat`'s files, written from docs/openvat.md
(standard library only: its own PNG, OpenEXR and GLB readers), checked against the reference
skinner.

It exports a real asset (Fox: three clips, 1728 vertices, so the vertices wrap onto two row
blocks) once per texture format (16-bit PNG, half-float EXR), reads the mesh, the texture and the
sidecar, shuffles the mesh's vertex order (as an
engine's import may), decodes each vertex's position at several frames of every clip through its
TEXCOORD_1 address alone, and compares with `vatkit pose` of the source glTF at the frame's time.
The bound is the export's quantization (half a 16-bit step, or half of half's spacing below 1, of
the sidecar's Min..Max per channel) plus float rounding. It also checks that a decode with a wrong convention (no axis change, or the
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


def read_exr_rgb_half(path):
    """(width, height, rows) of a scanline OpenEXR file of half R, G, B channels, uncompressed or
    ZIP (zlib of 16 scanlines, bytes split in two halves, deltas), as the PNG reader gives them but
    with [0, 1] floats instead of 16-bit integers."""
    data = open(path, "rb").read()
    assert struct.unpack("<I", data[:4])[0] == 20000630, path + ": not an OpenEXR file"
    pos, attributes = 8, {}
    while data[pos] != 0:
        name_end = data.index(b"\0", pos)
        type_end = data.index(b"\0", name_end + 1)
        (size,) = struct.unpack("<i", data[type_end + 1:type_end + 5])
        attributes[data[pos:name_end].decode()] = data[type_end + 5:type_end + 5 + size]
        pos = type_end + 5 + size
    pos += 1
    channels, c = [], attributes["channels"]
    while c[0] != 0:
        end = c.index(b"\0")
        channels.append((c[:end].decode(), struct.unpack("<i", c[end + 1:end + 5])[0]))
        c = c[end + 17:]
    assert [n for n, _ in channels] == ["B", "G", "R"] and all(t == 1 for _, t in channels), channels
    x0, y0, x1, y1 = struct.unpack("<iiii", attributes["dataWindow"])
    width, height = x1 - x0 + 1, y1 - y0 + 1
    compression = attributes["compression"][0]
    assert compression in (0, 3), "%s: compression %d" % (path, compression)
    lines = 16 if compression == 3 else 1
    blocks = (height + lines - 1) // lines
    offsets = struct.unpack("<%dQ" % blocks, data[pos:pos + 8 * blocks])
    rows = []
    for offset in offsets:
        y, size = struct.unpack("<ii", data[offset:offset + 8])
        block = data[offset + 8:offset + 8 + size]
        count = min(lines, y0 + height - y)
        raw_size = count * width * 3 * 2
        if size < raw_size:  # ZIP: undo zlib, the deltas, then the split into two halves
            t = bytearray(zlib.decompress(block))
            for i in range(1, len(t)):
                t[i] = (t[i - 1] + t[i] - 128) & 255
            half = (len(t) + 1) // 2
            block = bytearray(len(t))
            block[0::2], block[1::2] = t[:half], t[half:]
        for line in range(count):
            start = line * width * 6
            b, g, r = (struct.unpack("<%de" % width, bytes(block[start + k * width * 2:start + (k + 1) * width * 2]))
                       for k in range(3))
            rows.append(list(zip(r, g, b)))
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
    check(args, "png16")
    check(args, "exr16")


def check(args, image):
    source = os.path.join(args.assets, "khronos", "Fox.glb")
    base = os.path.join(args.work, "fox_" + image)
    subprocess.run([args.vatkit, "export", source, "--to", "openvat", "--image", image, "-o", base], check=True,
                   stdout=subprocess.DEVNULL)

    sidecar = json.load(open(base + "-remap_info.json"))
    remap = sidecar["os-remap"]
    lo, hi, frames = remap["Min"], remap["Max"], remap["Frames"]
    if image == "png16":
        width, height, rows = read_png_rgb16(base + "_vat.png")
        scale = 65535.0  # a 16-bit sample is the value times 65535
        step = [(hi[a] - lo[a]) / 65535.0 for a in range(3)]  # its largest rounding, twice
    else:
        width, height, rows = read_exr_rgb_half(base + "_vat.exr")
        scale = 1.0
        step = [(hi[a] - lo[a]) * 2.0 ** -11 for a in range(3)]  # half's spacing below 1, twice
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
        d = [lo[a] + (hi[a] - lo[a]) * q[a] / scale for a in range(3)]
        offset = (d[0], d[2], -d[1]) if blender_axes else d  # Blender z-up to glTF y-up
        return [rest[j][a] + offset[a] for a in range(3)]

    bound = 0.5 * math.sqrt(sum(step[a] ** 2 for a in range(3))) + 1e-4
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
    print("openvat %s: %d vertex-frames decoded through TEXCOORD_1 of a shuffled mesh; worst %.6g (bound %.6g); "
          "texture %d x %d, %d frames" % (image, checked, worst, bound, width, height, frames))
    assert worst <= bound, "decoded position off by %g > %g" % (worst, bound)
    assert wrong_axes > 10 * bound and wrong_row > 10 * bound, (wrong_axes, wrong_row)
    print("openvat %s: a wrong axis convention misses by %.4g, the next row by %.4g" % (image, wrong_axes, wrong_row))


if __name__ == "__main__":
    sys.exit(main())

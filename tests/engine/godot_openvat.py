#!/usr/bin/env python3
"""Godot 3 plays `vatkit export --to openvat` as `vatkit render` draws it (docs/godot.md).

Bakes Fox (delta encoding), exports the bake to OpenVAT (16-bit PNG), shuffles the exported mesh's
vertex order (Godot 3.2.3's glTF import keeps it, so the shuffle is what proves that the shader
finds each vertex's texels through its UV2 address alone), imports the mesh into a copy of
engines/godot/ with Godot's editor, and renders one Fox with vatkit_openvat.shader under Xvfb
at two scene times. `vatkit render -n 1 --shading normals --scene-out` draws the same bake at the
same times; its scene file gives Godot the camera, the instance's world matrix and its playback,
from which this script computes the clip time (docs/playback.md: a Repeat band's phase).

Asserted per time: both images show the fox (at least MIN_COVERAGE of the pixels off the black
background) and their mean absolute difference over the fox's pixels (those off the background in
either image; RGB, 0..1) is at most MAX_MAD; and Godot's images at the two times differ by more
than MIN_MAD_BETWEEN_TIMES over the fox's pixels, so a fox frozen in one pose (a shader not reading
the texture, or reading one row) fails. The fox covers about 6 % of the image, which would scale a
whole-image difference down 16-fold; the whole-image MAD (the browser parity tests' measure) is
printed too. The images go to --work.

Usage: godot_openvat.py --vatkit PATH --godot PATH --xvfb-run PATH --project DIR --assets DIR --work DIR
       [--asset PATH] [--image png16|exr16] [--compress]
--asset (under --assets, default khronos/Fox.glb), --image (default png16) and --compress (import
the mesh with Godot's default vertex compression, UV2 in half floats) are for the measurements in
docs/godot.md; the ctest runs the defaults.
"""
import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import zlib

WIDTH, HEIGHT = 320, 240
TIMES = (0.5, 1.3)  # scene clock times, seconds
MAX_MAD = 0.02
MIN_MAD_BETWEEN_TIMES = 2 * MAX_MAD
MIN_COVERAGE = 0.02


def read_png_rgb8(path):
    """(width, height, pixels): pixels is a flat list of 8-bit R, G, B, row by row from the top, of
    an 8-bit RGB or RGBA, non-interlaced PNG (alpha dropped)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, "%s: not 8-bit RGB(A), non-interlaced" % path
    bpp = 3 if color == 2 else 4
    stride, raw = width * bpp, zlib.decompress(b"".join(idat))
    pixels, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride if kind else 0):  # undo the PNG filter (1 Sub, 2 Up, 3 Average, 4 Paeth)
            a, b = line[i - bpp] if i >= bpp else 0, previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            p = a + b - c
            predictor = {1: a, 2: b, 3: (a + b) // 2,
                         4: a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c}[kind]
            line[i] = (line[i] + predictor) & 255
        previous = line
        for x in range(width):
            pixels.extend(line[x * bpp:x * bpp + 3])
    return width, height, pixels


def lit(pixels):
    """Per pixel, whether it is off the black background."""
    return [pixels[k] + pixels[k + 1] + pixels[k + 2] > 6 for k in range(0, len(pixels), 3)]


def mad(a, b, region=False):
    """The mean absolute difference of two RGB images, 0..1, over every pixel or, with region,
    over the pixels off the background in either."""
    assert len(a) == len(b), "image sizes differ"
    keep = [x or y for x, y in zip(lit(a), lit(b))] if region else [True] * (len(a) // 3)
    total = sum(abs(a[k] - b[k]) for k in range(len(a)) if keep[k // 3])
    return total / (255.0 * 3 * max(sum(keep), 1))


def coverage(pixels):
    return sum(lit(pixels)) / (len(pixels) / 3)


def shuffle_glb(source, target, seed):
    """Writes source (vatkit's OpenVAT mesh: one primitive, tightly packed float attributes, uint32
    indices) to target with its vertices in a random order, the indices following them."""
    data = open(source, "rb").read()
    (json_length,) = struct.unpack("<I", data[12:16])
    doc = json.loads(data[20:20 + json_length])
    body = bytearray(data[20 + json_length + 8:])
    primitive = doc["meshes"][0]["primitives"][0]

    def span(index):
        acc = doc["accessors"][index]
        view = doc["bufferViews"][acc["bufferView"]]
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        return acc, start

    count = doc["accessors"][primitive["attributes"]["POSITION"]]["count"]
    order = list(range(count))
    random.Random(seed).shuffle(order)  # new vertex k is old vertex order[k]
    for index in primitive["attributes"].values():
        acc, start = span(index)
        assert acc["componentType"] == 5126 and acc["count"] == count and "byteStride" not in doc["bufferViews"][acc["bufferView"]]
        size = {"VEC2": 8, "VEC3": 12, "VEC4": 16}[acc["type"]]
        old = bytes(body[start:start + size * count])
        for k, o in enumerate(order):
            body[start + size * k:start + size * (k + 1)] = old[size * o:size * (o + 1)]
    acc, start = span(primitive["indices"])
    assert acc["componentType"] == 5125
    new_of = [0] * count
    for k, o in enumerate(order):
        new_of[o] = k
    indices = struct.unpack("<%dI" % acc["count"], body[start:start + 4 * acc["count"]])
    body[start:start + 4 * acc["count"]] = struct.pack("<%dI" % acc["count"], *(new_of[i] for i in indices))
    with open(target, "wb") as f:
        f.write(data[:20 + json_length + 8] + bytes(body))
    return order


def clip_time(scene):
    """The instance's playback at the scene's time as the clip's local time in seconds (a Repeat band: phase u - floor(u) of the elapsed cycles u, docs/playback.md)."""
    instance = scene["instances"][0]["instance"]
    clip = instance["clip"]
    assert clip["loopMode"] == "repeat" and instance.get("loopMode", "repeat") == "repeat", instance
    rows = clip["frames"] - 1
    u = max(scene["time"] - instance["startTime"], 0.0) * instance["speed"] * clip["speed"] * clip["fps"] / rows
    return (u - math.floor(u)) * rows / clip["fps"]


# A Godot script error stops the script but not the engine: every command gets this long.
COMMAND_TIMEOUT_S = 120


def run(command, **kwargs):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=COMMAND_TIMEOUT_S, **kwargs)
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        raise AssertionError("%s exited %d" % (command[0], result.returncode))
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    for option in ("--vatkit", "--godot", "--xvfb-run", "--project", "--assets", "--work"):
        parser.add_argument(option, required=True)
    parser.add_argument("--asset", default=os.path.join("khronos", "Fox.glb"))
    parser.add_argument("--image", default="png16", choices=("png16", "exr16"))
    parser.add_argument("--compress", action="store_true")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    work = os.path.abspath(args.work)

    vat = os.path.join(work, "asset.vat.glb")
    run([args.vatkit, "bake", os.path.join(args.assets, args.asset), "--encoding", "delta", "-o", vat])
    base = os.path.join(work, "asset")
    run([args.vatkit, "export", vat, "--to", "openvat", "--image", args.image, "-o", base])
    texture = base + ("_vat.png" if args.image == "png16" else "_vat.exr")
    sidecar = json.load(open(base + "-remap_info.json"))

    scenes, references = [], []
    for k, t in enumerate(TIMES):
        scene_file, png = os.path.join(work, "scene%d.json" % (k + 1)), os.path.join(work, "vatkit%d.png" % (k + 1))
        run([args.vatkit, "render", vat, "-n", "1", "--shading", "normals", "--scene-out", scene_file,
             "--size", "%dx%d" % (WIDTH, HEIGHT), "-t", repr(t), "-o", png])
        scenes.append(json.load(open(scene_file)))
        references.append(png)
    assert scenes[0]["instances"] == scenes[1]["instances"] and scenes[0]["camera"] == scenes[1]["camera"]
    band = scenes[0]["instances"][0]["instance"]["clip"]
    names = [n for n, c in sidecar["animations"].items() if c["startFrame"] == band["startFrame"]]
    assert len(names) == 1 and sidecar["animations"][names[0]]["endFrame"] == band["startFrame"] + band["frames"] - 1, names
    times = [clip_time(s) for s in scenes]

    project = os.path.join(work, "project")
    shutil.copytree(args.project, project, ignore=shutil.ignore_patterns(".import", "asset"))
    os.makedirs(os.path.join(project, "asset"))
    mesh = os.path.join(project, "asset", "asset.glb")
    shuffle_glb(base + ".glb", mesh, seed=7)
    # The import's settings: Godot's scene importer reads them from here on the first import.
    # Compress off keeps UV2 in 32-bit floats (docs/godot.md).
    with open(mesh + ".import", "w") as f:
        f.write('[remap]\n\nimporter="scene"\ntype="PackedScene"\n\n[params]\n\nmeshes/compress=%s\n'
                % ("true" if args.compress else "false"))
    # -n: search for a free display from 142, away from the 99 where other tests' xvfb-run -a starts
    # (two searches from one number at once can pick the same display).
    godot = [args.xvfb_run, "-a", "-n", "142", "-s", "-screen 0 640x480x24", args.godot, "--audio-driver", "Dummy",
             "--path", project]
    # The editor imports the project's new files and quits. Godot 3.2.3 under Xvfb sometimes crashes
    # while shutting down after a complete import (signal 11, about 1 run in 5 here): the import is
    # judged by its products instead, the .md5 file being written last, and by the renders below.
    result = subprocess.run(godot + ["--editor", "--quit"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=COMMAND_TIMEOUT_S)
    products = os.listdir(os.path.join(project, ".import")) if os.path.isdir(os.path.join(project, ".import")) else []
    if not any(f.startswith("asset.glb-") and f.endswith(".md5") for f in products):
        sys.stdout.write(result.stdout)
        raise AssertionError("Godot's editor (exit %d) did not import asset/asset.glb" % result.returncode)
    if result.returncode != 0:
        print("Godot's editor exited %d after importing asset/asset.glb (its shutdown crash); the import is complete"
              % result.returncode)
    outputs = [os.path.join(work, "godot%d.png" % (k + 1)) for k in range(len(TIMES))]
    print(run(godot + ["--", "--mesh", "res://asset/asset.glb", "--texture", texture,
                       "--sidecar", base + "-remap_info.json", "--clip", names[0], "--times",
                       ",".join(repr(t) for t in times), "--scene", os.path.join(work, "scene1.json"),
                       "--out", ",".join(outputs)]).count("render_openvat:"), "images rendered by Godot")

    drawn = []
    failures = []
    for k, t in enumerate(TIMES):
        w, h, ours = read_png_rgb8(outputs[k])
        rw, rh, theirs = read_png_rgb8(references[k])
        assert (w, h) == (rw, rh) == (WIDTH, HEIGHT), (w, h, rw, rh)
        difference = mad(ours, theirs, region=True)
        print("t=%g (%s at %.4f s): MAD over the model %.5f, over the image %.5f; coverage Godot %.4f, vatkit %.4f"
              % (t, names[0], times[k], difference, mad(ours, theirs), coverage(ours), coverage(theirs)))
        if not (coverage(ours) >= MIN_COVERAGE and coverage(theirs) >= MIN_COVERAGE and difference <= MAX_MAD):
            failures.append("t=%g: MAD %.5f (at most %g) or coverage too small" % (t, difference, MAX_MAD))
        drawn.append(ours)
    between = mad(drawn[0], drawn[1], region=True)
    print("Godot's images at t=%g and t=%g differ by MAD %.5f over the model, %.5f over the image"
          % (TIMES[0], TIMES[1], between, mad(drawn[0], drawn[1])))
    if between <= MIN_MAD_BETWEEN_TIMES:
        failures.append("the two times differ by only %.5f (more than %g expected)" % (between, MIN_MAD_BETWEEN_TIMES))
    for failure in failures:
        print("FAIL: " + failure + " (images in %s)" % work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The C interface (vatkit/vatkit_c.h) through Python's ctypes, standard library only.

Environment (tests/CMakeLists.txt sets it): VATKIT_C_LIBRARY (libvatkit_c.so), VATKIT_C_HEADER
(vatkit_c.h), VATKIT_CLI (the build's vatkit), VATKIT_C_API_WORK (the files
tests/c_api/make_files.cmake made: delta.vat.glb, rig.vat.glb, `vatkit pose` outputs).

Every expectation comes from the command-line tool, not from this library: the clip table from
`vatkit info --json`, playback samples from `vatkit frame` (the same set_instance writes replayed
from JSON), poses from `vatkit pose`; the instance table's bytes from the layout documented in
runtime/include/vatkit/instance_table.h. The exported symbols are read with nm and compared
with the functions the header declares.
"""
import ctypes
import json
import math
import os
import re
import struct
import subprocess
import sys
import threading
import unittest

LIBRARY = os.environ.get("VATKIT_C_LIBRARY", "")
HEADER = os.environ.get("VATKIT_C_HEADER", "")
CLI = os.environ.get("VATKIT_CLI", "")
WORK = os.environ.get("VATKIT_C_API_WORK", "")

c_float_p = ctypes.POINTER(ctypes.c_float)


class VatInfo(ctypes.Structure):
    _fields_ = [("encoding", ctypes.c_int32), ("precision", ctypes.c_int32), ("vertex_count", ctypes.c_uint32),
                ("clip_count", ctypes.c_uint32), ("slot_count", ctypes.c_uint32), ("frame_rows", ctypes.c_uint32),
                ("bounds_min", ctypes.c_float * 3), ("bounds_max", ctypes.c_float * 3)]


class ClipInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("source_animation", ctypes.c_int32), ("first_row", ctypes.c_uint32),
                ("rows", ctypes.c_uint32), ("fps", ctypes.c_float), ("duration_s", ctypes.c_float),
                ("loop_mode", ctypes.c_int32), ("repetitions", ctypes.c_int32), ("end_mode", ctypes.c_int32),
                ("speed", ctypes.c_float), ("max_delta", ctypes.c_float), ("bounds_min", ctypes.c_float * 3),
                ("bounds_max", ctypes.c_float * 3)]


class SlotInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("node", ctypes.c_int32), ("reserved", ctypes.c_int32)]


class BandSample(ctypes.Structure):
    _fields_ = [("row", ctypes.c_uint32), ("row_next", ctypes.c_uint32), ("mix", ctypes.c_float),
                ("phase", ctypes.c_float), ("wraps", ctypes.c_uint32), ("finished", ctypes.c_uint32)]


class Sample(ctypes.Structure):
    _fields_ = [("a", BandSample), ("b", BandSample), ("weight", ctypes.c_float), ("kind", ctypes.c_int32)]


class Instance(ctypes.Structure):
    _fields_ = [("fields", ctypes.c_uint32), ("clip", ctypes.c_uint32), ("start_time", ctypes.c_float),
                ("loop_mode", ctypes.c_int32), ("repetitions", ctypes.c_int32), ("end_mode", ctypes.c_int32),
                ("speed", ctypes.c_float), ("blend_clip", ctypes.c_uint32), ("blend_weight", ctypes.c_float),
                ("blend_sync", ctypes.c_int32), ("blend_weight_from", ctypes.c_float),
                ("fade_duration", ctypes.c_float), ("fade_curve", ctypes.c_int32), ("fade_start", ctypes.c_float)]


class RowRange(ctypes.Structure):
    _fields_ = [("first", ctypes.c_uint32), ("count", ctypes.c_uint32)]


class Event(ctypes.Structure):
    _fields_ = [("time", ctypes.c_float), ("index", ctypes.c_uint32), ("kind", ctypes.c_int32)]


class ClipEvent(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("time_s", ctypes.c_float), ("reserved", ctypes.c_int32)]


class Crossing(ctypes.Structure):
    _fields_ = [("time", ctypes.c_float), ("clip", ctypes.c_uint32), ("event", ctypes.c_uint32),
                ("cycle", ctypes.c_uint32), ("band", ctypes.c_uint32), ("weight", ctypes.c_float)]


# Constants of the header, written out as a binding in another language would.
OK, ERROR_IO, ERROR_PARSE, ERROR_CORRUPT, ERROR_ARGUMENT = 0, 1, 2, 6, 7
LOOP_REPEAT, LOOP_ONCE, LOOP_PINGPONG = 0, 1, 2
MIX_SINGLE, MIX_FADE, MIX_BLEND = 0, 1, 2
FIELD_LOOP_MODE, FIELD_REPETITIONS, FIELD_END_MODE, FIELD_SPEED = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FIELD_BLEND, FIELD_BLEND_WEIGHT_FROM, FIELD_FADE_START = 1 << 4, 1 << 5, 1 << 6
SYNC_TIME, FADE_SMOOTH = 1, 1
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
LOOP_NAMES = {"repeat": LOOP_REPEAT, "once": LOOP_ONCE, "pingpong": LOOP_PINGPONG}
END_NAMES = {"clamp": 0, "rewind": 1}
KIND_NAMES = {"single": MIX_SINGLE, "fade": MIX_FADE, "blend": MIX_BLEND}


def f32(x):
    """x rounded to float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


class RebaseReport(ctypes.Structure):
    _fields_ = [("shift", ctypes.c_float), ("exact", ctypes.c_uint32), ("folded", ctypes.c_uint32),
                ("rounded", ctypes.c_uint32)]


def signatures():
    """Every function of the header: (result type, argument types)."""
    P, u32, f, i32 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_float, ctypes.c_int32
    pp = ctypes.POINTER(ctypes.c_void_p)
    size_p = ctypes.POINTER(ctypes.c_size_t)
    sample_p = ctypes.POINTER(Sample)
    return {
        "vatkit_abi_version": (u32, []),
        "vatkit_version": (ctypes.c_char_p, []),
        "vatkit_last_error": (ctypes.c_char_p, []),
        "vatkit_status_name": (ctypes.c_char_p, [i32]),
        "vatkit_vat_load": (i32, [ctypes.c_char_p, pp]),
        "vatkit_vat_load_memory": (i32, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, pp]),
        "vatkit_vat_free": (None, [P]),
        "vatkit_vat_get_info": (i32, [P, ctypes.POINTER(VatInfo)]),
        "vatkit_vat_clip": (i32, [P, u32, ctypes.POINTER(ClipInfo)]),
        "vatkit_vat_find_clip": (i32, [P, ctypes.c_char_p, ctypes.POINTER(u32)]),
        "vatkit_vat_slot": (i32, [P, u32, ctypes.POINTER(SlotInfo)]),
        "vatkit_vat_find_slot": (i32, [P, ctypes.c_char_p, ctypes.POINTER(u32)]),
        "vatkit_vat_clip_event_count": (i32, [P, u32, ctypes.POINTER(u32)]),
        "vatkit_vat_clip_event": (i32, [P, u32, u32, ctypes.POINTER(ClipEvent)]),
        "vatkit_clip_sample": (i32, [P, u32, f, sample_p]),
        "vatkit_mirror_vertices": (i32, [P, sample_p, c_float_p, u32, u32, c_float_p, c_float_p]),
        "vatkit_mirror_joint": (i32, [P, sample_p, c_float_p, u32, c_float_p]),
        "vatkit_table_create": (i32, [P, u32, pp]),
        "vatkit_table_free": (None, [P]),
        "vatkit_table_size": (u32, [P]),
        "vatkit_table_resize": (i32, [P, u32]),
        "vatkit_table_set_instance": (i32, [P, u32, ctypes.POINTER(Instance), f]),
        "vatkit_table_pause": (i32, [P, u32, f]),
        "vatkit_table_resume": (i32, [P, u32, f]),
        "vatkit_table_turn_back": (i32, [P, u32, f]),
        "vatkit_table_resolve": (i32, [P, u32, f, sample_p]),
        "vatkit_table_ends_at": (i32, [P, u32, c_float_p]),
        "vatkit_table_events_crossed": (i32, [P, u32, f, f, ctypes.POINTER(Crossing), ctypes.c_size_t, size_p]),
        "vatkit_table_floats": (c_float_p, [P, size_p]),
        "vatkit_table_take_dirty": (i32, [P, u32, ctypes.POINTER(RowRange), ctypes.c_size_t, size_p]),
        "vatkit_table_pop_events": (i32, [P, f, ctypes.POINTER(Event), ctypes.c_size_t, size_p]),
        "vatkit_table_rebase_clock": (i32, [P, f, ctypes.POINTER(RebaseReport)]),
    }


def load_library():
    lib = ctypes.CDLL(LIBRARY)
    for name, (restype, argtypes) in signatures().items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def cli_json(*args, stdin=None):
    out = subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True, check=True).stdout
    return out


def pose_positions(name):
    with open(os.path.join(WORK, name)) as f:
        pose = json.load(f)
    return [x for p in pose["primitives"] for x in p["positions"]]


class CApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = load_library()
        cls.vats = {}
        for name in ("delta", "rig"):
            vat = ctypes.c_void_p()
            cls.check_ok(cls.lib.vatkit_vat_load(os.path.join(WORK, name + ".vat.glb").encode(), ctypes.byref(vat)))
            cls.vats[name] = vat
        cls.info = json.loads(cli_json("info", "--json", os.path.join(WORK, "delta.vat.glb")))

    @classmethod
    def tearDownClass(cls):
        for vat in cls.vats.values():
            cls.lib.vatkit_vat_free(vat)

    @classmethod
    def check_ok(cls, status):
        if status != OK:
            raise AssertionError(f"status {status}: {cls.lib.vatkit_last_error().decode()}")

    def last_error(self):
        return self.lib.vatkit_last_error().decode()

    def assert_one_line_naming(self, message, name):
        self.assertNotIn("\n", message)
        self.assertTrue(message.startswith(name + ": "), message)

    # ---- the library -----------------------------------------------------------------------------

    def test_exported_symbols_are_the_header_functions(self):
        nm = subprocess.run(["nm", "-D", "--defined-only", LIBRARY], capture_output=True, text=True, check=True)
        exported = {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}
        with open(HEADER) as f:
            declared = set(re.findall(r"VATKIT_C_API\s[^;]*?\b(vatkit_\w+)\s*\(", f.read()))
        self.assertGreaterEqual(len(declared), 25)
        self.assertEqual(sorted(exported), sorted(declared))
        self.assertEqual(sorted(signatures()), sorted(declared))  # this binding is the whole interface

    def test_versions(self):
        with open(HEADER) as f:
            abi = int(re.search(r"#define VATKIT_C_ABI_VERSION (\d+)", f.read()).group(1))
        self.assertEqual(self.lib.vatkit_abi_version(), abi)
        version = cli_json("--version").split()[-1]
        self.assertEqual(self.lib.vatkit_version().decode(), version)
        self.assertEqual([self.lib.vatkit_status_name(s).decode() for s in (0, 1, 2, 6, 7, 8, 255, 9)],
                         ["ok", "io", "parse", "corrupt", "argument", "gl", "internal", "unknown"])

    # ---- the clip table ---------------------------------------------------------------------------

    def test_clip_table_matches_vatkit_info(self):
        vat, info = self.vats["delta"], VatInfo()
        self.check_ok(self.lib.vatkit_vat_get_info(vat, ctypes.byref(info)))
        expected = self.info
        self.assertEqual((info.encoding, info.precision), (0, 0))
        self.assertEqual((info.vertex_count, info.clip_count, info.slot_count, info.frame_rows),
                         (expected["vertices"], len(expected["clips"]), expected["slots"], expected["frame_rows"]))
        self.assertEqual(list(info.bounds_min) + list(info.bounds_max),
                         [f32(x) for x in expected["bounds"]["min"] + expected["bounds"]["max"]])
        for c, e in enumerate(expected["clips"]):
            clip = ClipInfo()
            self.check_ok(self.lib.vatkit_vat_clip(vat, c, ctypes.byref(clip)))
            d = e["defaults"]
            self.assertEqual(
                (clip.name.decode(), clip.source_animation, clip.first_row, clip.rows, clip.fps, clip.duration_s,
                 clip.loop_mode, clip.repetitions, clip.end_mode, clip.speed, clip.max_delta),
                (e["name"], e["source_animation"], e["first_row"], e["rows"], f32(e["fps"]), f32(e["duration_s"]),
                 LOOP_NAMES[d["loop_mode"]], d["repetitions"], END_NAMES[d["end_mode"]], f32(d["speed"]),
                 f32(e["max_delta"])))
            self.assertEqual(list(clip.bounds_min) + list(clip.bounds_max),
                             [f32(x) for x in e["bounds"]["min"] + e["bounds"]["max"]])
            index = ctypes.c_uint32(99)
            self.check_ok(self.lib.vatkit_vat_find_clip(vat, e["name"].encode(), ctypes.byref(index)))
            self.assertEqual(index.value, c)
        self.assertEqual(self.lib.vatkit_vat_find_clip(vat, b"jump", ctypes.byref(index)), ERROR_ARGUMENT)
        self.assert_one_line_naming(self.last_error(), os.path.join(WORK, "delta.vat.glb"))
        self.assertIn('"jump"', self.last_error())

    # ---- playback through the instance table ------------------------------------------------------

    def band(self, clip):
        """A clip as `vatkit frame` reads it, from `vatkit info --json`."""
        e = self.info["clips"][clip]
        d = e["defaults"]
        return {"startFrame": e["first_row"], "frames": e["rows"], "fps": e["fps"], "loopMode": d["loop_mode"],
                "repetitions": d["repetitions"], "endMode": d["end_mode"], "speed": d["speed"],
                "events": [{"name": v["name"], "time": v["time_s"]} for v in e.get("events", [])]}

    def writes(self):
        """(now, C instance, the same instance as `vatkit frame` JSON) per write of one instance:
        idle from 0; at 1.0 walk once at half speed, fading over 0.5 s; at 2.0 the same walk
        blended with run on walk's clock, run's weight ramping from 0.1 to 0.3 over 0.4 s."""
        first = Instance()
        fade = Instance(fields=FIELD_LOOP_MODE | FIELD_SPEED, clip=1, start_time=1.0, loop_mode=LOOP_ONCE,
                        speed=0.5, fade_duration=0.5)
        blend = Instance(fields=FIELD_LOOP_MODE | FIELD_SPEED | FIELD_BLEND | FIELD_BLEND_WEIGHT_FROM, clip=1,
                         start_time=1.0, loop_mode=LOOP_ONCE, speed=0.5, blend_clip=2, blend_weight=0.3,
                         blend_sync=SYNC_TIME, blend_weight_from=0.1, fade_duration=0.4)
        return [
            (0.0, first, {"clip": self.band(0), "startTime": 0}),
            (1.0, fade, {"clip": self.band(1), "startTime": 1.0, "loopMode": "once", "speed": 0.5,
                         "fadeDuration": 0.5}),
            (2.0, blend, {"clip": self.band(1), "startTime": 1.0, "loopMode": "once", "speed": 0.5,
                          "fadeDuration": 0.4,
                          "blend": {"clip": self.band(2), "weight": 0.3, "sync": "time", "weightFrom": 0.1}}),
        ]

    def cli_samples(self, writes, times):
        """What `vatkit frame` answers for the writes (up to each time's last write) at each time."""
        lines = []
        for t in times:
            done = [w for w in writes if w[0] <= t]
            query = {"instance": done[0][2], "time": t}
            if len(done) > 1:
                query["set"] = [{"now": now, "instance": j} for now, _, j in done[1:]]
            lines.append(json.dumps(query))
        return [json.loads(line) for line in cli_json("frame", stdin="\n".join(lines) + "\n").splitlines()]

    def ramp_writes(self):
        """One write (a cut) using every other field: run ping-ponging three times at 1.25x from
        0.5, rewinding at the end, blended in phase with walk, walk's weight ramping from 0.2 to
        0.6 along smoothstep over 0.5 s from 0.75."""
        every = (FIELD_LOOP_MODE | FIELD_REPETITIONS | FIELD_END_MODE | FIELD_SPEED | FIELD_BLEND |
                 FIELD_BLEND_WEIGHT_FROM | FIELD_FADE_START)
        ramp = Instance(fields=every, clip=2, start_time=0.5, loop_mode=LOOP_PINGPONG, repetitions=3,
                        end_mode=END_NAMES["rewind"], speed=1.25, blend_clip=1, blend_weight=0.6, blend_sync=0,
                        blend_weight_from=0.2, fade_duration=0.5, fade_curve=FADE_SMOOTH, fade_start=0.75)
        return [(0.0, ramp, {"clip": self.band(2), "startTime": 0.5, "loopMode": "pingpong", "repetitions": 3,
                             "endMode": "rewind", "speed": 1.25, "fadeDuration": 0.5, "fadeCurve": "smooth",
                             "fadeStart": 0.75,
                             "blend": {"clip": self.band(1), "weight": 0.6, "sync": "phase", "weightFrom": 0.2}})]

    def test_resolve_matches_vatkit_frame(self):
        for writes, times in ((self.writes(), [0.5, 1.0, 1.23, 1.5, 1.99, 2.0, 2.1, 2.35, 2.5, 3.2]),
                              (self.ramp_writes(), [0.3, 0.6, 0.8, 1.0, 1.3, 1.7, 2.0, 2.5])):
            self.check_against_vatkit_frame(writes, times)

    def check_against_vatkit_frame(self, writes, times):
        expected = self.cli_samples(writes, times)
        for t, e in zip(times, expected):
            table = ctypes.c_void_p()
            self.check_ok(self.lib.vatkit_table_create(self.vats["delta"], 1, ctypes.byref(table)))
            try:
                for now, instance, _ in writes:
                    if now <= t:
                        self.check_ok(self.lib.vatkit_table_set_instance(table, 0, ctypes.byref(instance), now))
                s = Sample()
                self.check_ok(self.lib.vatkit_table_resolve(table, 0, t, ctypes.byref(s)))
                got = {"row": s.a.row, "rowNext": s.a.row_next, "mix": s.a.mix, "wraps": bool(s.a.wraps),
                       "finished": bool(s.a.finished), "phase": s.a.phase, "rowB": s.b.row, "rowNextB": s.b.row_next,
                       "mixB": s.b.mix, "wrapsB": bool(s.b.wraps), "finishedB": bool(s.b.finished),
                       "phaseB": s.b.phase, "weight": s.weight, "kind": s.kind}
                want = {k: (KIND_NAMES[v] if k == "kind" else f32(v) if isinstance(v, float) else v)
                        for k, v in e.items() if k != "endsAt"}
                self.assertEqual(got, want, f"at {t}")
                ends = ctypes.c_float()
                self.check_ok(self.lib.vatkit_table_ends_at(table, 0, ctypes.byref(ends)))
                self.assertEqual(ends.value, FLT_MAX if e["endsAt"] is None else f32(e["endsAt"]), f"at {t}")
            finally:
                self.lib.vatkit_table_free(table)

    def test_events_crossed_match_vatkit_frame(self):
        """The crossings of walk's "step" in consecutive windows (t0, t1] under the writes up to t1
        (a fade into walk; a ping-pong of run blended in phase with walk), as `vatkit frame` with
        "since" reports them: times, bands and weights; names through vatkit_vat_clip_event."""
        names = {}
        for clip in range(3):
            count = ctypes.c_uint32()
            self.check_ok(self.lib.vatkit_vat_clip_event_count(self.vats["delta"], clip, ctypes.byref(count)))
            for k in range(count.value):
                e = ClipEvent()
                self.check_ok(self.lib.vatkit_vat_clip_event(self.vats["delta"], clip, k, ctypes.byref(e)))
                names[(clip, k)] = e.name.decode()
        self.assertEqual(names, {(1, 0): "step"})
        crossed = set()
        for writes, times in ((self.writes(), [0.0, 1.0, 1.23, 1.5, 1.99, 2.0, 2.35, 2.5, 3.2, 5.0]),
                              (self.ramp_writes(), [0.0, 0.6, 0.8, 1.3, 1.7, 2.0, 2.5, 4.0, 7.0])):
            for t0, t1 in zip(times, times[1:]):
                done = [w for w in writes if w[0] <= t1]
                query = {"instance": done[0][2], "time": t1, "since": t0}
                if len(done) > 1:
                    query["set"] = [{"now": now, "instance": j} for now, _, j in done[1:]]
                want = json.loads(cli_json("frame", stdin=json.dumps(query) + "\n"))["events"]
                table = ctypes.c_void_p()
                self.check_ok(self.lib.vatkit_table_create(self.vats["delta"], 1, ctypes.byref(table)))
                try:
                    for now, instance, _ in done:
                        self.check_ok(self.lib.vatkit_table_set_instance(table, 0, ctypes.byref(instance), now))
                    out, count = (Crossing * 64)(), ctypes.c_size_t()
                    self.check_ok(self.lib.vatkit_table_events_crossed(table, 0, t0, t1, out, 64, ctypes.byref(count)))
                finally:
                    self.lib.vatkit_table_free(table)
                got = [{"name": names[(c.clip, c.event)], "time": c.time, "band": "ab"[c.band], "weight": c.weight}
                       for c in out[:count.value]]
                want = [{k: f32(v) if isinstance(v, float) else v for k, v in e.items() if k in got[0]} for e in want] \
                    if got else want
                self.assertEqual(got, want, f"({t0}, {t1}]")
                crossed |= {(c["band"], c["weight"] < 1) for c in got}
        self.assertEqual(crossed, {("a", True), ("b", True)})  # crossed in both bands, during the fade and blend

    def test_instance_table_bytes_follow_the_documented_layout(self):
        """Rows of 24 floats, six texels (instance_table.h): after the fade write of writes()."""
        writes = self.writes()
        table = ctypes.c_void_p()
        self.check_ok(self.lib.vatkit_table_create(self.vats["delta"], 3, ctypes.byref(table)))
        try:
            for now, instance, _ in writes[:2]:
                self.check_ok(self.lib.vatkit_table_set_instance(table, 1, ctypes.byref(instance), now))
            count = ctypes.c_size_t()
            pointer = self.lib.vatkit_table_floats(table, ctypes.byref(count))
            self.assertEqual(count.value, 3 * 24)
            row = list(pointer[24:48])
            # The table's memory itself: the bytes at the pointer are the floats.
            raw = ctypes.string_at(ctypes.cast(pointer, ctypes.c_void_p).value + 24 * 4, 24 * 4)
            self.assertEqual(list(struct.unpack("<24f", raw)), row)
            walk, idle = self.info["clips"][1], self.info["clips"][0]
            # A: band, loop mode, end phase: once holds its last row (1), unless the end mode is
            # rewind (0): the instance names none, so walk's default (rewind) applies.
            end_phase = 0.0 if walk["defaults"]["end_mode"] == "rewind" else 1.0
            self.assertEqual(row[0:4], [walk["first_row"], walk["rows"], LOOP_ONCE, end_phase])
            rate = f32(0.5 / walk["duration_s"])  # speed / duration: cycles per second
            self.assertEqual(row[4], 1.0)  # A start
            self.assertAlmostEqual(row[5], rate, delta=1e-7)
            self.assertAlmostEqual(row[6], 1.0 + 1.0 / rate, delta=1e-5)  # A end: one cycle (once)
            self.assertEqual(row[7], 1.0)  # A repetitions: once's default count
            self.assertEqual(row[8:11], [idle["first_row"], idle["rows"], LOOP_REPEAT])  # B: the outgoing idle
            self.assertEqual(row[12], 0.0)  # B start
            self.assertAlmostEqual(row[13], f32(1.0 / idle["duration_s"]), delta=1e-7)
            self.assertEqual(row[14:16], [FLT_MAX, -1.0])  # B never ends, endless
            self.assertEqual(row[16:20], [1.0, 0.0, 1.0, 2.0])  # weight 1 -> 0 from 1.0 at 1 / 0.5 per second
            self.assertEqual(row[20:24], [MIX_FADE, 0.0, 0.0, 0.0])  # kind, linear curve, reserved
            # Unwritten rows hold frame row 0: a band of one row from row 0.
            self.assertEqual(pointer[0:2], [0.0, 1.0])
            self.assertEqual(pointer[0:24], pointer[48:72])
            ranges, n = (RowRange * 4)(), ctypes.c_size_t()
            self.check_ok(self.lib.vatkit_table_take_dirty(table, 0, ranges, 4, ctypes.byref(n)))
            self.assertEqual([(r.first, r.count) for r in ranges[:n.value]], [(1, 1)])
            events = (Event * 4)()
            self.check_ok(self.lib.vatkit_table_pop_events(table, 100.0, events, 4, ctypes.byref(n)))
            self.assertEqual([(e.index, e.kind) for e in events[:n.value]], [(1, 1), (1, 0)])  # fade end, then end
            self.assertEqual([e.time for e in events[:n.value]], [1.5, row[6]])
        finally:
            self.lib.vatkit_table_free(table)

    # ---- decode -----------------------------------------------------------------------------------

    def decode(self, vat, sample, world=None, first=0, count=None):
        if count is None:
            info = VatInfo()
            self.check_ok(self.lib.vatkit_vat_get_info(vat, ctypes.byref(info)))
            count = info.vertex_count
        positions, normals = (ctypes.c_float * (3 * count))(), (ctypes.c_float * (3 * count))()
        w = (ctypes.c_float * 16)(*world) if world else None
        self.check_ok(self.lib.vatkit_mirror_vertices(vat, ctypes.byref(sample), w, first, count, positions, normals))
        return list(positions), list(normals)

    def test_clip_pose_matches_vatkit_pose(self):
        for encoding in ("delta", "rig"):
            sample = Sample()
            self.check_ok(self.lib.vatkit_clip_sample(self.vats[encoding], 1, 0.115, ctypes.byref(sample)))
            positions, normals = self.decode(self.vats[encoding], sample)
            expected = pose_positions(f"{encoding}_walk.json")
            self.assertEqual(len(positions), len(expected))
            worst = max(abs(a - b) for a, b in zip(positions, expected))
            self.assertLessEqual(worst, 1e-6, encoding)
            lengths = [math.sqrt(sum(x * x for x in normals[i:i + 3])) for i in range(0, len(normals), 3)]
            self.assertLess(max(abs(n - 1.0) for n in lengths), 1e-4)

    def test_cross_fade_pose_is_the_mix_of_two_vatkit_poses(self):
        """At 1.23 the fade of writes() shows walk 0.115 s in and idle 1.23 s in at weight 0.54."""
        table = ctypes.c_void_p()
        self.check_ok(self.lib.vatkit_table_create(self.vats["delta"], 1, ctypes.byref(table)))
        try:
            for now, instance, _ in self.writes()[:2]:
                self.check_ok(self.lib.vatkit_table_set_instance(table, 0, ctypes.byref(instance), now))
            sample = Sample()
            self.check_ok(self.lib.vatkit_table_resolve(table, 0, 1.23, ctypes.byref(sample)))
        finally:
            self.lib.vatkit_table_free(table)
        self.assertAlmostEqual(sample.weight, 0.54, delta=1e-5)
        world = [0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 1]  # column-major: a quarter turn about y, x + 2
        positions, _ = self.decode(self.vats["delta"], sample, world)
        walk, idle = pose_positions("delta_walk.json"), pose_positions("delta_idle.json")
        worst = 0.0
        for i in range(0, len(walk), 3):
            p = [(1 - sample.weight) * walk[i + k] + sample.weight * idle[i + k] for k in range(3)]
            placed = [p[2] + 2.0, p[1], -p[0]]  # x' = z + 2, y' = y, z' = -x
            worst = max(worst, *(abs(placed[k] - positions[i + k]) for k in range(3)))
        self.assertLessEqual(worst, 2e-5)

    def test_sockets_agree_between_encodings(self):
        samples = {}
        for encoding in ("delta", "rig"):
            samples[encoding] = Sample()
            self.check_ok(self.lib.vatkit_clip_sample(self.vats[encoding], 1, 0.5, ctypes.byref(samples[encoding])))
        self.assertEqual(samples["delta"].a.mix, 0.0)  # a row: both encodings hold the reference there
        info = VatInfo()
        self.check_ok(self.lib.vatkit_vat_get_info(self.vats["delta"], ctypes.byref(info)))
        for s in range(info.slot_count):
            slot, rig_slot = SlotInfo(), ctypes.c_uint32()
            self.check_ok(self.lib.vatkit_vat_slot(self.vats["delta"], s, ctypes.byref(slot)))
            self.check_ok(self.lib.vatkit_vat_find_slot(self.vats["rig"], slot.name, ctypes.byref(rig_slot)))
            a, b = (ctypes.c_float * 16)(), (ctypes.c_float * 16)()
            self.check_ok(self.lib.vatkit_mirror_joint(self.vats["delta"], ctypes.byref(samples["delta"]), None, s, a))
            self.check_ok(self.lib.vatkit_mirror_joint(self.vats["rig"], ctypes.byref(samples["rig"]), None,
                                                       rig_slot.value, b))
            self.assertLess(max(abs(x - y) for x, y in zip(a, b)), 1e-4, slot.name.decode())

    # ---- errors -----------------------------------------------------------------------------------

    def test_errors(self):
        vat = ctypes.c_void_p()
        missing = os.path.join(WORK, "missing.vat.glb")
        self.assertEqual(self.lib.vatkit_vat_load(missing.encode(), ctypes.byref(vat)), ERROR_IO)
        self.assertIsNone(vat.value)
        self.assert_one_line_naming(self.last_error(), missing)
        with open(os.path.join(WORK, "delta.vat.glb"), "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 1
        self.assertEqual(self.lib.vatkit_vat_load_memory(bytes(data), len(data), b"x.vat.glb", ctypes.byref(vat)),
                         ERROR_CORRUPT)
        self.assert_one_line_naming(self.last_error(), "x.vat.glb")
        self.assertIn("checksum", self.last_error())
        self.assertEqual(self.lib.vatkit_vat_load_memory(bytes(data[:1000]), 1000, b"y.vat.glb", ctypes.byref(vat)),
                         ERROR_PARSE)
        self.assert_one_line_naming(self.last_error(), "y.vat.glb")
        self.assertEqual(self.lib.vatkit_vat_get_info(None, None), ERROR_ARGUMENT)
        self.assertEqual(self.last_error(), "vatkit_vat_get_info: vat is NULL")

    def test_last_error_is_per_thread(self):
        seen = {}

        def fail_here():
            self.lib.vatkit_vat_find_clip(self.vats["delta"], b"jump", ctypes.byref(ctypes.c_uint32()))
            seen["thread"] = self.last_error()

        self.check_ok(self.lib.vatkit_vat_find_clip(self.vats["delta"], b"walk", ctypes.byref(ctypes.c_uint32())))
        worker = threading.Thread(target=fail_here)
        worker.start()
        worker.join()
        self.assertIn('"jump"', seen["thread"])
        self.assertEqual(self.last_error(), "")  # this thread's last call succeeded


if __name__ == "__main__":
    missing = [name for name, value in (("VATKIT_C_LIBRARY", LIBRARY), ("VATKIT_C_HEADER", HEADER),
                                        ("VATKIT_CLI", CLI), ("VATKIT_C_API_WORK", WORK)) if not value]
    if missing:
        sys.exit("test_ctypes.py: set " + ", ".join(missing) + " (tests/CMakeLists.txt does)")
    unittest.main(verbosity=2)

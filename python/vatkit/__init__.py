"""vatkit for Python: bake glTF animation into vertex animation textures, read .vat.glb files,
resolve playback and decode poses into NumPy arrays (docs/python.md).

Every failure raises vatkit.Error, whose .code is the C++ ErrorCode's name ("Io", "Parse",
"InvalidGltf", "Unsupported", "Limit", "Corrupt", "Argument", "Gl") and .message the one-line
message naming the file and the reason.
"""
import json as _json

from ._core import Clip, Error, Vat, bake, load
from ._core import _InstanceTable, _resolve_query

__all__ = ["Clip", "Error", "InstanceTable", "Vat", "bake", "load", "resolve"]


def _query(instance, time):
    if not isinstance(instance, dict):
        raise TypeError("vatkit: an instance must be a dict (the JSON form of docs/playback.md)")
    return _json.dumps({"instance": instance, "time": time}, allow_nan=False)


def resolve(instance, time):
    """The playback sample of `instance` at clock `time` (seconds).

    `instance` is a dict in the JSON form `vatkit frame` reads (docs/playback.md), e.g.
    {"clip": {"startFrame": 0, "frames": 31, "fps": 30}, "startTime": 0, "loopMode": "once"}.
    Returns the frame as a dict with the keys of that form: row, rowNext, mix, wraps, finished,
    phase, their B twins (the second band of a fade or blend), weight, kind and endsAt.
    """
    return _json.loads(_resolve_query(_query(instance, time)))


class InstanceTable:
    """The per-instance playback rows a renderer uploads (instance_table.h): 24 floats a row.

    set(index, instance, now) writes a row from an instance dict (as resolve takes) at clock
    `now`: a cut, or the fade the instance describes; resolve(index, time) is the row's frame
    dict; floats is a read-only (rows, 24) float32 NumPy view of the table's upload buffer,
    valid until the next resize. pause(index, now), resume(index, now) and turn_back(index, now)
    are the playback controls (docs/playback.md: hold the pose, play on from it, go back the way
    it came); a negative speed in an instance plays its clip backwards.
    """

    def __init__(self, count=0, frame_rows=0):
        self._table = _InstanceTable(count, frame_rows)

    def __len__(self):
        return self._table.size

    def resize(self, count):
        self._table.resize(count)

    def set(self, index, instance, now):
        self._table.set_query(index, _query(instance, now), now)

    def pause(self, index, now):
        self._table.control(index, "pause", now)

    def resume(self, index, now):
        self._table.control(index, "resume", now)

    def turn_back(self, index, now):
        self._table.control(index, "turn_back", now)

    def resolve(self, index, time):
        return _json.loads(self._table.resolve_json(index, time))

    @property
    def floats(self):
        return self._table.floats

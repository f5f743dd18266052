"""vatkit for Python: bake glTF animation into vertex animation textures, read .vat.glb files,
resolve playback and decode poses into NumPy arrays (docs/python.md).

Every failure raises vatkit.Error, whose .code is the C++ ErrorCode's name ("Io", "Parse",
"InvalidGltf", "Unsupported", "Limit", "Corrupt", "Argument", "Gl") and .message the one-line
message naming the file and the reason.
"""
import json as _json

from ._core import Clip, Error, Vat, bake, load
from ._core import _resolve_query

__all__ = ["Clip", "Error", "Vat", "bake", "load", "resolve"]


def resolve(instance, time):
    """The playback sample of `instance` at clock `time` (seconds).

    `instance` is a dict in the JSON form `vatkit frame` reads (docs/playback.md), e.g.
    {"clip": {"startFrame": 0, "frames": 31, "fps": 30}, "startTime": 0, "loopMode": "once"}.
    Returns the frame as a dict with the keys of that form: row, rowNext, mix, wraps, finished,
    phase, their B twins (the second band of a fade or blend), weight, kind and endsAt.
    """
    if not isinstance(instance, dict):
        raise TypeError("vatkit.resolve: instance must be a dict (the JSON form of docs/playback.md)")
    line = _json.dumps({"instance": instance, "time": time}, allow_nan=False)
    return _json.loads(_resolve_query(line))

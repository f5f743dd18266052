"""The Python bindings against independent answers: the CLI's `vatkit pose` JSON (its own decode of
the same file, and the reference skinner on the source), the playback conformance vectors, and
the error codes of bad inputs.

Environment (set by ctest, python/CMakeLists.txt): VATKIT_CLI (the vatkit tool), VATKIT_SOURCE_DIR
(the repository), VATKIT_SHARED_ASSETS (the shared glTF assets; tests needing them skip without),
VATKIT_PYTHON_WORK (a scratch folder), VATKIT_CMAKE and VATKIT_BINARY_DIR (to install the package);
PYTHONPATH holds the built package.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import vatkit

CLI = os.environ.get("VATKIT_CLI", "vatkit")
SOURCE = pathlib.Path(os.environ.get("VATKIT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
ASSETS = pathlib.Path(os.environ.get("VATKIT_SHARED_ASSETS", SOURCE.parent / "shared" / "assets"))


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    folder = os.environ.get("VATKIT_PYTHON_WORK")
    if folder:  # emptied first: what a previous run left must not change this one
        shutil.rmtree(folder, ignore_errors=True)
        pathlib.Path(folder).mkdir(parents=True)
        return pathlib.Path(folder)
    return tmp_path_factory.mktemp("vatkit")


# Small bakes: no levels of detail, no measurement (what the tests compare does not need them).
FAST = dict(lods=0, measure=False)


@pytest.fixture(scope="module")
def sample(work):
    vat = vatkit.bake(encoding="delta", precision="f16", **FAST)
    path = work / "sample_delta_f16.vat.glb"
    vat.save(str(path))
    return vat, path


def cli_pose(*args):
    """`vatkit pose ARGS` as {(node, mesh, primitive): (n, 3) float64 positions}."""
    out = subprocess.run([CLI, "pose", *args], check=True, capture_output=True, text=True).stdout
    return {(p["node"], p["mesh"], p["primitive"]): np.asarray(p["positions"], dtype=np.float64).reshape(-1, 3)
            for p in json.loads(out)["primitives"]}


def by_source(vat, positions):
    """The same keys as cli_pose, sliced out of a Vat.pose array (the file's vertices of each source)."""
    return {(s["node"], s["mesh"], s["primitive"]):
            positions[s["first_vertex"]:s["first_vertex"] + s["source_vertex_count"]] for s in vat.sources}


def assert_same_pose(ours, theirs, tolerance):
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key].shape == theirs[key].shape, key
        np.testing.assert_allclose(ours[key], theirs[key], rtol=0, atol=tolerance, err_msg=str(key))


def test_sample_clips_and_arrays(sample):
    vat, _ = sample
    assert (vat.encoding, vat.precision) == ("delta", "f16")
    assert [c.name for c in vat.clips] == ["idle", "walk", "run"]
    walk = vat.clips[1]
    # Bands are stacked in clip order; a clip of duration D at 30 fps gets round(30 D) + 1 rows.
    assert walk.first_row == vat.clips[0].rows
    assert walk.rows == round(walk.duration * 30) + 1
    assert walk.fps == pytest.approx((walk.rows - 1) / walk.duration, rel=1e-6)
    assert walk.defaults == {"loop_mode": "repeat", "repetitions": -1, "end_mode": "clamp", "speed": 1.0}
    assert walk.accuracy is None  # measure=False
    assert walk.events == []  # no --event, no extras, no --feet
    positions, normals = vat.pose("walk", 0.25)
    assert positions.dtype == np.float32 and positions.shape == (vat.vertex_count, 3)
    assert normals.shape == positions.shape
    lengths = np.linalg.norm(normals, axis=1)
    np.testing.assert_allclose(lengths, 1.0, atol=2e-2)  # decoded normals are unit (F16 texels)
    rest, _ = vat.pose()
    assert not np.allclose(rest, positions)  # the walk moves the character


@pytest.mark.parametrize("clip,time", [("walk", 0.25), ("#2", 0.1), (0, 2.9)])
def test_pose_matches_cli_decode(sample, clip, time):
    vat, path = sample
    positions, _ = vat.pose(clip, time)
    label = clip if isinstance(clip, str) else "#%d" % clip
    assert_same_pose(by_source(vat, positions), cli_pose(str(path), "--clip", label, "--time", repr(time)), 1e-5)


def test_pose_near_reference_skinner():
    # F32 rig bake of the sample, at a row time: the decode is the reference pose up to the
    # encoding's rounding (the bake reports well under a millimetre on the rows).
    vat = vatkit.bake(encoding="rig", **FAST)
    time = 7 / 30
    positions, _ = vat.pose("walk", time)
    assert_same_pose(by_source(vat, positions), cli_pose("--clip", "walk", "--time", repr(time)), 1e-4)


def test_save_load_round_trip(sample):
    vat, path = sample
    loaded = vatkit.load(str(path))
    assert [(c.name, c.first_row, c.rows) for c in loaded.clips] == [(c.name, c.first_row, c.rows) for c in vat.clips]
    assert np.array_equal(loaded.pose("run", 0.3)[0], vat.pose("run", 0.3)[0])
    assert len(vat.to_bytes()) == path.stat().st_size


def test_fox_pose_matches_cli(work):
    fox = ASSETS / "khronos" / "Fox.glb"
    if not fox.exists():
        pytest.skip("no shared assets at %s" % ASSETS)
    vat = vatkit.bake(str(fox), encoding="delta", precision="q16", fps=15, clip_defaults={"Run": {"loop_mode": "once"}},
                      **FAST)
    assert [c.name for c in vat.clips] == ["Survey", "Walk", "Run"]
    assert vat.clips[2].defaults["loop_mode"] == "once"
    path = work / "fox_q16.vat.glb"
    vat.save(str(path))
    positions, _ = vat.pose("Run", 0.37)
    assert_same_pose(by_source(vat, positions), cli_pose(str(path), "--clip", "Run", "--time", "0.37"), 1e-5)


def conformance_queries():
    lines = (SOURCE / "tests" / "conformance" / "playback_v2.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_resolve_matches_conformance_vectors():
    queries = [q for q in conformance_queries() if "set" not in q]  # "set" replays table writes
    assert len(queries) > 100
    for query in queries:
        got = vatkit.resolve(query["instance"], query["time"])
        expect = query["expect"]
        assert got.keys() == expect.keys()
        for key, value in expect.items():
            if isinstance(value, float) or isinstance(got[key], float):
                assert np.float32(got[key]) == np.float32(value), (query, key)
            else:
                assert got[key] == value, (query, key)


def test_resolve_by_hand():
    # 5 rows at 4 fps from row 10: one cycle is 1 s; at 0.375 s into it, phase 0.375 is row 11.5.
    frame = vatkit.resolve({"clip": {"startFrame": 10, "frames": 5, "fps": 4}, "startTime": 2,
                            "loopMode": "once"}, 2.375)
    assert (frame["row"], frame["rowNext"], frame["mix"], frame["kind"]) == (11, 12, 0.5, "single")
    assert frame["endsAt"] == 3
    finished = vatkit.resolve({"clip": {"startFrame": 10, "frames": 5, "fps": 4}, "startTime": 2,
                               "loopMode": "once"}, 5)
    assert finished["finished"] and finished["row"] == 14


def expect_error(code, call, *args, **kwargs):
    with pytest.raises(vatkit.Error) as caught:
        call(*args, **kwargs)
    error = caught.value
    assert error.code == code, error.message
    assert "\n" not in error.message and str(error) == error.message
    return error.message


def test_errors_carry_code_and_message(work, sample):
    missing = work / "missing.vat.glb"
    assert str(missing) in expect_error("Io", vatkit.load, str(missing))
    assert str(missing) in expect_error("Io", vatkit.bake, str(missing))

    _, path = sample
    corrupt = bytearray(path.read_bytes())
    corrupt[len(corrupt) // 2] ^= 0xFF  # a flipped byte in the binary chunk fails the checksum
    bad = work / "corrupt.vat.glb"
    bad.write_bytes(bytes(corrupt))
    assert str(bad) in expect_error("Corrupt", vatkit.load, str(bad))

    junk = work / "junk.glb"
    junk.write_bytes(b"not a glTF file at all")
    expect_error("Parse", vatkit.bake, str(junk))

    assert "nosuch" in expect_error("Argument", vatkit.bake, clips=["nosuch"], **FAST)
    assert "precision" in expect_error("Argument", vatkit.bake, precision="f8")
    assert "fps" in expect_error("Argument", vatkit.bake, fps=-1, **FAST)
    expect_error("Argument", sample[0].pose, "nosuch", 0.0)
    expect_error("Argument", sample[0].pose, 3, 0.0)
    assert "fps" in expect_error("Argument", vatkit.resolve, {"clip": {"startFrame": 0, "frames": 2, "fps": "30"}}, 0)
    # clip_defaults of the wrong shape or type: vatkit.Error naming the clip and field, not pybind11's RuntimeError.
    assert "clip_defaults['run']" in expect_error("Argument", vatkit.bake, clip_defaults={"run": "once"}, **FAST)
    assert "['speed']" in expect_error("Argument", vatkit.bake, clip_defaults={"run": {"speed": "fast"}}, **FAST)
    assert "['repetitions']" in expect_error("Argument", vatkit.bake, clip_defaults={"run": {"repetitions": 1.5}},
                                             **FAST)
    assert "unknown field" in expect_error("Argument", vatkit.bake, clip_defaults={"run": {"loop": "once"}}, **FAST)
    assert issubclass(vatkit.Error, Exception)


def test_pipeline_example(work):
    # examples/pipeline.py on two shared assets and a file that is no glTF: the table lists what
    # was written, and the status is 1 for the bad file and for a budget the files exceed.
    names = ["Fox.glb", "RiggedSimple.glb"]
    if not all((ASSETS / "khronos" / n).exists() for n in names):
        pytest.skip("no shared assets at %s" % ASSETS)
    folder = work / "pipeline_in"
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_bytes((ASSETS / "khronos" / name).read_bytes())
    script = SOURCE / "python" / "examples" / "pipeline.py"
    out = work / "pipeline_out"

    def run(*extra):
        return subprocess.run([sys.executable, str(script), str(folder), "-o", str(out), "--lods", "0", *extra],
                              capture_output=True, text=True)

    ok = run("--budget-bytes", "100000000")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    sizes = {name: (out / name.replace(".glb", ".vat.glb")).stat().st_size for name in names}
    rows = ok.stdout.splitlines()
    for name in names:
        row = next(r for r in rows if r.startswith(name)).split()
        assert int(row[5]) == sizes[name]
    assert "total %d bytes" % sum(sizes.values()) in ok.stdout

    over = run("--budget-bytes", str(sum(sizes.values()) - 1))
    assert over.returncode == 1 and "over the byte budget by 1 bytes" in over.stderr

    (folder / "broken.glb").write_bytes(b"glTF junk")
    broken = run("--budget-bytes", "100000000")
    assert broken.returncode == 1 and "broken.glb" in broken.stdout and "FAILED (Parse)" in broken.stdout


def test_bake_writes_the_cli_bytes(work, sample):
    # The same options through `vatkit bake`: the same file, byte for byte.
    vat, _ = sample
    path = work / "cli_sample_delta_f16.vat.glb"
    subprocess.run([CLI, "bake", "-o", str(path), "--encoding", "delta", "--precision", "f16", "--lods", "0",
                    "--no-measure"], check=True, capture_output=True)
    assert vat.to_bytes() == path.read_bytes()


def test_instance_table_rows_and_floats():
    queries = [q for q in conformance_queries() if "set" not in q and "from" not in q["instance"]]
    table = vatkit.InstanceTable(len(queries))
    assert len(table) == len(queries) and table.floats.shape == (len(queries), 24)
    blank = table.floats.copy()
    for index, query in enumerate(queries):
        table.set(index, query["instance"], 0.0)
    # A fresh row is written as the instance compiles (a cut): every row answers its vector.
    for index, query in enumerate(queries):
        got, expect = table.resolve(index, query["time"]), query["expect"]
        for key, value in expect.items():
            same = np.float32(got[key]) == np.float32(value) if isinstance(value, float) else got[key] == value
            assert same, (query, key, got[key])
    floats = table.floats
    assert (floats != blank).any(axis=1).all()  # every row was written
    assert floats.dtype == np.float32 and not floats.flags.writeable
    assert np.shares_memory(floats, table.floats)  # a view of the table, not a copy
    before = floats[0].copy()
    other = dict(queries[0]["instance"], startTime=queries[0]["instance"]["startTime"] + 5)
    table.set(0, other, 0.0)
    assert not np.array_equal(floats[0], before)  # the view sees the write
    expect_error("Argument", table.resolve, len(queries), 0.0)
    expect_error("Argument", table.set, 0, {"clip": {"startFrame": 0, "frames": 2, "fps": -3}, "startTime": 0}, 0.0)


def test_instance_table_controls_match_the_v3_vectors():
    lines = (SOURCE / "tests" / "conformance" / "playback_v3.jsonl").read_text().splitlines()
    queries = [json.loads(line) for line in lines if line.strip()]
    queries = [q for q in queries if "from" not in q["instance"]]  # a hand-made fade is not a write
    assert len(queries) > 600
    for query in queries:
        table = vatkit.InstanceTable(1)
        controls = {"pause": table.pause, "resume": table.resume, "turnBack": table.turn_back}
        table.set(0, query["instance"], 0.0)  # an unwritten row: a cut, the instance as compiled
        for write in query.get("set", []):
            controls[write["control"]](0, write["now"])
        got = table.resolve(0, query["time"])
        for key, value in query["expect"].items():
            same = np.float32(got[key]) == np.float32(value) if isinstance(value, float) else got[key] == value
            assert same, (query, key, got[key])
    expect_error("Argument", table.pause, 1, 0.0)


def test_installed_package(work):
    # `cmake --install --component python` into a scratch prefix: the package imports from there
    # alone (the build tree off the path) and bakes and decodes.
    if not os.environ.get("VATKIT_BINARY_DIR"):
        pytest.skip("run by ctest (VATKIT_BINARY_DIR, VATKIT_CMAKE)")
    prefix = work / "install"
    subprocess.run([os.environ["VATKIT_CMAKE"], "--install", os.environ["VATKIT_BINARY_DIR"], "--prefix", str(prefix),
                    "--component", "python"], check=True, capture_output=True)
    site = prefix / "lib" / "python3" / "dist-packages"
    assert sorted(p.name.split(".")[0] for p in (site / "vatkit").iterdir()) == ["__init__", "_core"]
    code = ("import vatkit; print(vatkit.__file__); "
            "print(vatkit.bake(lods=0, measure=False).pose('walk', 0.1)[0].shape)")
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env,
                         cwd=str(work)).stdout.split("\n")
    assert out[0].startswith(str(site)) and out[1] == str((vatkit.bake(lods=0, measure=False).vertex_count, 3))

#!/usr/bin/env python3
"""Bakes every glTF file of a folder into .vat.glb files, prints a table of what came out, and
fails (exit status 1) when a file cannot be baked or the files together exceed a byte budget.

    python3 pipeline.py ASSETS/ -o baked/ --budget-bytes 8000000 --precision f16

A content pipeline's build step: run it in CI and a character that grows past the budget, or an
asset that stops baking, fails the build with the file and the reason.
"""
import argparse
import pathlib
import sys

import vatkit


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path, help="folder of .glb / .gltf files")
    parser.add_argument("-o", "--output", type=pathlib.Path, default=pathlib.Path("baked"))
    parser.add_argument("--budget-bytes", type=int, default=16 << 20, help="most bytes of all .vat.glb together")
    parser.add_argument("--encoding", default="auto", choices=["auto", "rig", "delta"])
    parser.add_argument("--precision", default="f16", choices=["f32", "f16", "q16"])
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--lods", type=int, default=3)
    args = parser.parse_args()

    sources = sorted(p for p in args.folder.iterdir()
                     if p.suffix.lower() in (".glb", ".gltf") and not p.name.lower().endswith(".vat.glb"))
    args.output.mkdir(parents=True, exist_ok=True)
    print("%-28s %-6s %-4s %8s %5s %10s %12s" % ("file", "enc", "prec", "vertices", "clips", "bytes", "worst mm"))
    total, failures = 0, 0
    for source in sources:
        try:
            vat = vatkit.bake(str(source), encoding=args.encoding, precision=args.precision, fps=args.fps,
                              lods=args.lods)
            target = args.output / (source.stem + ".vat.glb")
            vat.save(str(target))
        except vatkit.Error as error:  # .code says what kind of failure, .message names file and reason
            print("%-28s FAILED (%s): %s" % (source.name, error.code, error.message))
            failures += 1
            continue
        size = target.stat().st_size
        total += size
        # The worst distance between the decoded VAT and the reference skinner, on and between rows.
        worst = max((max(c.accuracy["on_rows_max_mm"], c.accuracy["between_rows_max_mm"])
                     for c in vat.clips if c.accuracy), default=0.0)
        print("%-28s %-6s %-4s %8d %5d %10d %12.3f" % (source.name, vat.encoding, vat.precision, vat.vertex_count,
                                                       len(vat.clips), size, worst))
    print("total %d bytes of %d budgeted, %d of %d files failed" % (total, args.budget_bytes, failures, len(sources)))
    if total > args.budget_bytes:
        print("error: over the byte budget by %d bytes" % (total - args.budget_bytes), file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

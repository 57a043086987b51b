"""Two locators on the same frames, alternately in one process: what each finds, and its cost.

On a shared machine the load moves from minute to minute, so two runs at different
times do not compare. Here two versions of ``fenix_table/vision/locate.py`` (say main's
and a branch's, each a file) are loaded side by side and run on every frame in turn,
the order swapped every frame; a first frame warms both up (OpenCV builds its tables
on first use). Per set and locator: frames found, wrong grids, wrong board side and
not found, with and without a hand; thread CPU time per frame (OpenCV on one thread);
the second's time against the first's (total, and the median frame); and the frames
whose outcome differs, and how far the grids of the two moved apart.

    python benchmarks/bench_locate_ab.py A/locate.py B/locate.py SET... [--json OUT]

A set is ``pbr:ROOT:SPLIT`` (frames of :mod:`fenix_tools.pbr`, e.g.
``pbr:/work/data/pbr:tune``; found as in ``bench_vision_pbr.py``: the right side and
every cell centre within a quarter cell), ``plain:SEED:N`` or ``busy:SEED:N`` (N frames
of ``bench_locate.py --seed SEED [--table busy]``) or ``tables:A:B`` (``bench_locate.py
--tables A:B``); found as in ``bench_locate.py``: the right side and the corners within a
third of a cell. Never give it a held-out set while choosing a change.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from typing import Dict, Iterator, List, Sequence, Tuple

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cv2  # noqa: E402

from bench_locate import corner_error, make_frames, table_frames, tiled_frames  # noqa: E402
from bench_vision_pbr import grid_matches  # noqa: E402
from fenix_table.board import dimensions  # noqa: E402
from fenix_table.errors import BoardNotFoundError  # noqa: E402
from fenix_tools.pbr import dataset  # noqa: E402


def load(path: str, label: str):
    """``locate.py`` at ``path`` as a module of the package (its relative imports resolve)."""
    spec = importlib.util.spec_from_file_location(f"fenix_table.vision._locate_{label}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def frames(spec: str) -> Iterator[Tuple[str, np.ndarray, Tuple[str, object], bool]]:
    """(name, bgr, (kind, truth), hand) of every frame of a set (see the module's text)."""
    kind, a, b = spec.split(":")
    if kind == "pbr":
        for bgr, truth in dataset.frames(b, a):
            yield truth["name"], bgr, ("pbr", truth), bool(truth.get("hand"))
    elif kind in ("plain", "busy"):
        for i, (bgr, truth) in enumerate(make_frames(int(b), int(a), table=kind)):
            yield f"{kind}{a}-{i}", bgr, ("sim", truth), bool(truth.hand)
    elif kind == "tables":
        for i, (bgr, truth) in enumerate(table_frames(int(a), int(b))):
            yield f"tables{a}-{i}", bgr, ("sim", truth), bool(truth.hand)
    elif kind == "tiles":
        for seed, (bgr, truth) in zip(range(int(a), int(b)), tiled_frames(int(a), int(b))):
            yield f"tiles{seed}", bgr, ("sim", truth), False
    else:
        raise SystemExit(f"{spec}: not a set (pbr:ROOT:SPLIT, plain:SEED:N, busy:SEED:N, tables:A:B, tiles:A:B)")


def outcome(cal, truth: Tuple[str, object]) -> str:
    """found, wrong (a grid not the board's), side (the other face) or none."""
    if cal is None:
        return "none"
    kind, t = truth
    if kind == "pbr":
        if cal.board != t["board"]:
            return "side"
        return "found" if grid_matches(cal, t) else "wrong"
    if cal.board != t.board:
        return "side"
    width, height = dimensions(cal.board)
    found = cal.to_image([[0, 0], [width, 0], [width, height], [0, height]])
    cell = float(np.linalg.norm(np.diff(np.vstack([t.corners, t.corners[:1]]), axis=0), axis=1).mean()
                 / np.mean(dimensions(t.board)))
    return "found" if corner_error(found, t.corners, False) <= cell / 3 else "wrong"


def locate(module, bgr: np.ndarray):
    """(calibration or None, thread CPU ms)."""
    start = time.thread_time()
    try:
        cal = module.locate_board(bgr)
    except BoardNotFoundError:
        cal = None
    return cal, 1000 * (time.thread_time() - start)


def apart(first, second) -> float:
    """How far two grids' corners lie apart (px); infinite when only one was found or
    they are of different faces; 0 when neither was found."""
    if first is None or second is None:
        return 0.0 if first is second else float("inf")
    if first.board != second.board:
        return float("inf")
    box = [[0, 0], [1, 0], [1, 1], [0, 1]]
    return float(np.abs(np.asarray(first.to_image(box)) - np.asarray(second.to_image(box))).max())


def run(modules: Sequence, spec: str) -> List[Dict]:
    rows = []
    for k, (name, bgr, truth, hand) in enumerate(frames(spec)):
        found = {}
        for i in (0, 1) if k % 2 == 0 else (1, 0):
            found[i] = locate(modules[i], bgr)
        rows.append({"name": name, "hand": hand, "apart": apart(found[0][0], found[1][0]),
                     **{f"outcome{i}": outcome(found[i][0], truth) for i in (0, 1)},
                     **{f"ms{i}": found[i][1] for i in (0, 1)}})
    return rows


def report(spec: str, rows: List[Dict]) -> None:
    print(f"{spec}: {len(rows)} frames, {sum(r['hand'] for r in rows)} with a hand")
    for i, label in enumerate("AB"):
        def count(value, hand=None):
            return sum(1 for r in rows if r[f"outcome{i}"] == value and (hand is None or r["hand"] == hand))
        ms = np.array([r[f"ms{i}"] for r in rows])
        clear = np.array([r[f"ms{i}"] for r in rows if not r["hand"]] or [np.nan])
        print(f"  {label}: found hand-free {count('found', False)}/{sum(not r['hand'] for r in rows)}, "
              f"with a hand {count('found', True)}/{sum(r['hand'] for r in rows)}; wrong {count('wrong')}, "
              f"side {count('side')}, not found {count('none')}; ms p50/p95/max "
              f"{np.percentile(ms, 50):.0f}/{np.percentile(ms, 95):.0f}/{ms.max():.0f}, mean {ms.mean():.0f}; "
              f"hand-free p50/p95/max {np.percentile(clear, 50):.0f}/{np.percentile(clear, 95):.0f}/{clear.max():.0f}")
    a, b = np.array([r["ms0"] for r in rows]), np.array([r["ms1"] for r in rows])
    print(f"  B/A time: total {b.sum() / a.sum():.3f}, median frame {np.median(b / a):.3f}")
    changed = [f"{r['name']} {r['outcome0']}->{r['outcome1']}" for r in rows if r["outcome0"] != r["outcome1"]]
    print("  outcomes changed: " + (" ".join(changed) if changed else "none"))
    moved = [r["apart"] for r in rows if np.isfinite(r["apart"])]
    print(f"  grids apart, both found: max {max(moved, default=0.0):.3g} px")


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help="a locate.py (A)")
    parser.add_argument("second", help="another locate.py (B)")
    parser.add_argument("sets", nargs="+", help="pbr:ROOT:SPLIT, plain:SEED:N, busy:SEED:N, tables:A:B or tiles:A:B")
    parser.add_argument("--json", default=None, help="also write every frame's figures here")
    args = parser.parse_args(list(argv))
    cv2.setNumThreads(1)  # the budget is for one core
    modules = [load(args.first, "a"), load(args.second, "b")]
    warm = next(frames(args.sets[0]))[1]
    for module in modules:
        locate(module, warm)
    every = {}
    for spec in args.sets:
        every[spec] = run(modules, spec)
        report(spec, every[spec])
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(every, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""What the boards the referee confirms teach the reader (:meth:`Vision.learn`).

Generator rooms (``--seeds A:B``, tuning data: the family of ``bench_vision`` seed 1):
each room is a 9x9 scene with its start frame and three later positions, rendered as
``fenix_tools.sim.confirmed_positions`` renders them for the lesson tests. The start frame
is located and calibrates the room; the second position is read; the first and third
are confirmed (read twice, still, then learned); the second is read again.

pbr rooms (``--pbr ROOT``, the tune split: tuning data, never the eval split): the start
frame calibrates through the exact grid; the hand frame (its cells off the hand) is
read; the game frame, the same position without the hand, is confirmed; the hand frame
is read again.

Per set: cells wrong before and after the lessons, cells taught (wrong before, right
after) and unteached (right before, wrong after), and the rooms each way.

    python benchmarks/bench_lessons.py [--seeds 0:300] [--pbr /work/data/reader6/tuneB]
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Set, Tuple

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.vision.pipeline import Vision  # noqa: E402

Row = Tuple[str, Set[str], Set[str]]


def wrong(vision: Vision, frame: np.ndarray, index: int, placement, skip=()) -> Set[str]:
    cells = vision.process(frame, index).observation.cells
    return {c for c in cells if c not in skip and cells[c].color != placement.get(c, ("empty",))[0]}


def generator_rooms(first: int, last: int) -> List[Row]:
    from fenix_tools.sim import confirmed_positions
    rows = []
    for seed in range(first, last):
        _, placements, frames = confirmed_positions(seed)
        vision = Vision(board="9x9", stable_frames=1)
        if vision.process(frames[0], 0).calibration is None or vision.calibration.room is None:
            print(f"room {seed}: not calibrated", flush=True)
            continue
        before = wrong(vision, frames[2], 2, placements[2])
        taken = 0
        for k in (1, 3):
            vision.process(frames[k], k)
            vision.process(frames[k], k)
            taken += vision.learn(placements[k])
        after = wrong(vision, frames[2], 2, placements[2])
        rows.append((str(seed), before, after))
        if before or after or taken < 2:
            print(f"room {seed}: {sorted(before)} -> {sorted(after)}, {taken} of 2 boards taken", flush=True)
    return rows


def pbr_rooms(root: str) -> List[Row]:
    from fenix_tools.pbr import dataset
    rows = []
    for room in dataset.rooms("tune", root):
        if not all(k in room for k in ("start", "game", "hand")):
            continue
        (start, start_truth), (game, truth), (hand, hand_truth) = room["start"], room["game"], room["hand"]
        placement = {c: tuple(v) for c, v in truth["placement"].items()}
        vision = Vision(board=start_truth["board"], calibration=dataset.calibration(start_truth), stable_frames=1)
        name = truth["name"].split("-")[0]
        if vision.process(start, 0).calibration.room is None:
            print(f"room {name}: not calibrated", flush=True)
            continue
        skip = set(hand_truth.get("hand_cells", ()))
        before = wrong(vision, hand, 1, placement, skip)
        vision.process(game, 2)
        vision.process(game, 3)
        taken = vision.learn(placement)
        after = wrong(vision, hand, 4, placement, skip)
        rows.append((name, before, after))
        if before or after or not taken:
            print(f"room {name}: {sorted(before)} -> {sorted(after)}, board {'taken' if taken else 'not taken'}",
                  flush=True)
    return rows


def report(label: str, rows: List[Row]) -> None:
    print(f"{label}: {len(rows)} rooms, cells wrong before {sum(len(b) for _, b, _ in rows)}, "
          f"after {sum(len(a) for _, _, a in rows)}; taught {sum(len(b - a) for _, b, a in rows)}, "
          f"unteached {sum(len(a - b) for _, b, a in rows)}; rooms worse {[n for n, b, a in rows if a - b]}, "
          f"rooms cured {[n for n, b, a in rows if b and not a]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0:300", help="generator rooms A:B ('' for none)")
    ap.add_argument("--pbr", help="root of a pbr frame set with a tune split")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.seeds:
        first, last = (int(s) for s in args.seeds.split(":"))
        report(f"generator rooms {first}-{last - 1}", generator_rooms(first, last))
    if args.pbr:
        report("pbr tune split, hand frames", pbr_rooms(args.pbr))


if __name__ == "__main__":
    main()

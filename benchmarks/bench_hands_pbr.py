"""Hand flags out of the box on physically based renders: before a room is learned.

Until a start frame (or the position the referee knows) has taught the room, a frame is
judged for arms by itself (:mod:`fenix_table.vision.hands`): a frame flagged with a hand
never becomes a still board, so a false flag blinds a table that has just started or
resumed, and keeps its start frame from teaching the room. Every frame of a rendered
split is read through its true grid, out of the box, and counted:

* hand-free frames flagged with a hand (false flags);
* frames whose hand covers cells, flagged (a hand beside the board, covering none, is
  left out).

    python benchmarks/bench_hands_pbr.py ROOT:SPLIT [ROOT:SPLIT ...]

e.g. ``/work/data/pbr:train /work/data/cycles-train1:train``. The train splits hold the
most hands (one frame a room, a third of them with a hand); the locator and the CNN are
tuned or trained on them, the hand checks were chosen on them and the tune splits.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.vision import CellReader  # noqa: E402
from fenix_tools.pbr import dataset  # noqa: E402


def count(root: str, split: str) -> dict:
    """Flags of every frame of one split: counts and the names of false flags and misses."""
    free, hands, false, missed = [0, 0], [0, 0], [], []
    for bgr, truth in dataset.frames(split, root):
        if truth.get("hand") and not truth.get("hand_cells"):
            continue
        flagged = CellReader(dataset.calibration(truth)).read(bgr).hand
        tally, names = (hands, missed) if truth.get("hand") else (free, false)
        tally[0] += 1
        tally[1] += flagged
        if flagged != bool(truth.get("hand")):
            names.append(truth["name"])
    return {"free": free, "hands": hands, "false": false, "missed": missed}


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", metavar="ROOT:SPLIT", help="a data folder and its split")
    args = parser.parse_args(list(argv))
    import cv2
    cv2.setNumThreads(1)
    for spec in args.sets:
        root, _, split = spec.rpartition(":")
        if split not in ("train", "tune", "eval") or not root:
            print(f"not ROOT:SPLIT (split train, tune or eval): {spec}", file=sys.stderr)
            return 2
        r = count(root, split)
        if not r["free"][0] + r["hands"][0]:
            print(f"no frames under {dataset.frame_dir(split, root)}", file=sys.stderr)
            return 2
        print(f"{spec}: hand-free frames flagged {r['free'][1]} of {r['free'][0]}; "
              f"frames of a hand over cells flagged {r['hands'][1]} of {r['hands'][0]}")
        print(f"  false flags: {' '.join(r['false']) or '-'}")
        print(f"  missed: {' '.join(r['missed']) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

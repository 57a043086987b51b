"""Cell reading on a folder of rendered frames with truth: the physically based
renderer's ``eval`` split (``NAME.jpg`` + ``NAME.json``, see ``fenix_tools.pbr``).

Per room (the JSON's ``seed``): its start frame is located and calibrates the reader, as
at the table, and every other frame of the room is read:

* out of the box: through the frame's own located grid, the shipped model alone;
* calibrated from the start frame (its located grid, :func:`calibrate_reader`);
* the same two through the exact grid (the homography best fitting the true cell
  centres; under lens distortion no grid does better), to tell reading errors from
  locating errors;
* for each cell classifier (``ReaderConfig.classifier``: the CNN, the feature
  perceptron, both pooled), with its confidence calibration on the exact grid out of the
  box: expected calibration error (15 bins of the top class's confidence) and the errors
  among cells it was 99% sure of.

Cells a hand covers (``hand_cells``) are left out. A located grid is matched to the
truth by position (its a1 may be any corner); a grid with a cell a third of a cell or
more from every true centre counts as not found and its frame is not read.

    python benchmarks/bench_reader.py [--frames /work/data/pbr/frames/eval]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from dataclasses import replace
from typing import Dict, List, Sequence

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.errors import BoardNotFoundError  # noqa: E402
from fenix_table.rules import Position  # noqa: E402
from fenix_table.vision.cells import CLASSIFIERS, DEFAULT_READER, CellReader, calibrate_reader  # noqa: E402
from fenix_table.vision.locate import locate_board  # noqa: E402
from fenix_table.vision.types import Calibration  # noqa: E402
from fenix_tools.cnn.data import fitted_corners, truth_labels  # noqa: E402
from fenix_tools.cnn.train import calibration_error  # noqa: E402

READERS = {kind: replace(DEFAULT_READER, classifier=kind) for kind in CLASSIFIERS}
CLASSES = ("empty", "red", "black")


class Tally:
    def __init__(self):
        self.frames = self.cells = self.wrong = 0

    def add(self, obs, labels: np.ndarray) -> None:
        self.frames += 1
        for reading, y in zip(obs.cells.values(), labels):
            if y >= 0:
                self.cells += 1
                self.wrong += reading.color != CLASSES[y]

    def line(self, label: str) -> str:
        pct = 100.0 * self.wrong / self.cells if self.cells else float("nan")
        return f"{label}: colour errors {self.wrong} of {self.cells} cells ({pct:.3f}%) in {self.frames} frames"


def run(folder: str) -> Dict[str, object]:
    rooms: Dict[int, List] = defaultdict(list)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json") and os.path.exists(os.path.join(folder, name[:-5] + ".jpg")):
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                meta = json.load(fh)
            rooms[int(meta["seed"])].append((name[:-5], meta))
    tallies = {kind: {part: Tally() for part in ("plain", "calibrated", "exact", "exact_calibrated")}
               for kind in READERS}
    located = not_found = 0
    conf: Dict[str, List[float]] = {kind: [] for kind in READERS}
    right: Dict[str, List[bool]] = {kind: [] for kind in READERS}
    for frames in rooms.values():
        starts = [f for f in frames if f[1].get("start")]
        for name, meta in frames:
            bgr = cv2.imread(os.path.join(folder, name + ".jpg"))
            board, size = meta["board"], tuple(meta["image_size"])
            centres = {c: tuple(v) for c, v in meta["cell_centres"].items()}
            placement = {c: tuple(v) for c, v in meta["placement"].items()}
            covered = tuple(meta.get("hand_cells", ()))
            exact = Calibration(board, size, tuple(map(tuple, fitted_corners(board, centres))))
            exact_labels = truth_labels(exact, centres, placement, covered)
            try:
                found = locate_board(bgr)
                found_labels = truth_labels(found, centres, placement, covered) if found.board == board else None
            except BoardNotFoundError:
                found, found_labels = None, None
            located += found_labels is not None
            not_found += found_labels is None
            if meta.get("start"):
                continue
            start_cals = {}
            if starts:
                s_name, s_meta = starts[0]
                s_bgr = cv2.imread(os.path.join(folder, s_name + ".jpg"))
                s_centres = {c: tuple(v) for c, v in s_meta["cell_centres"].items()}
                start_cals["exact"] = Calibration(board, size, tuple(map(tuple, fitted_corners(board, s_centres))))
                try:
                    s_found = locate_board(s_bgr)
                    if s_found.board == board and truth_labels(s_found, s_centres, {}, ()) is not None:
                        start_cals["located"] = s_found
                except BoardNotFoundError:
                    pass
            layout = Position.start(board).stacks()
            for kind, config in READERS.items():
                t = tallies[kind]
                obs = CellReader(exact, config).read(bgr)
                t["exact"].add(obs, exact_labels)
                for reading, y in zip(obs.cells.values(), exact_labels):
                    if y >= 0:
                        conf[kind].append(reading.color_confidence)
                        right[kind].append(reading.color == CLASSES[y])
                if found_labels is not None:
                    t["plain"].add(CellReader(found, config).read(bgr), found_labels)
                for grid, part, labels in (("exact", "exact_calibrated", exact_labels),
                                           ("located", "calibrated", found_labels)):
                    if grid not in start_cals or labels is None:
                        continue
                    try:
                        cal = calibrate_reader(s_bgr, start_cals[grid], layout, config)
                    except ValueError:
                        cal = start_cals[grid]
                    # The start frame's grid reads this frame (same camera); the located
                    # one may name the cells from another corner: match by position.
                    if grid == "located":
                        labels = truth_labels(cal, centres, placement, covered)
                        if labels is None:
                            continue
                    else:
                        cal = Calibration(board, size, exact.corners, cal.oriented, cal.room)
                    t[part].add(CellReader(cal, config).read(bgr), labels)
    return {"rooms": len(rooms), "located": located, "not_found": not_found, "tallies": tallies,
            "conf": {k: np.array(v) for k, v in conf.items()}, "right": {k: np.array(v) for k, v in right.items()}}


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", default="/work/data/pbr/frames/eval")
    args = parser.parse_args(list(argv))
    if not os.path.isdir(args.frames):
        print(f"bench_reader: no such folder: {args.frames}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    r = run(args.frames)
    print(f"{args.frames}: {r['rooms']} rooms; grid located in {r['located']} frames, "
          f"not found or wrong in {r['not_found']}")
    for kind in READERS:
        t = r["tallies"][kind]
        print(t["plain"].line(f"{kind}: out of the box (located grid)"))
        print(t["calibrated"].line(f"{kind}: calibrated from the start frame (located grids)"))
        print(t["exact"].line(f"{kind}: exact grid, out of the box"))
        print(t["exact_calibrated"].line(f"{kind}: exact grid, calibrated from the start frame"))
    for kind in READERS:
        conf, right = r["conf"][kind], r["right"][kind]
        if len(conf):
            sure = conf >= 0.99
            print(f"{kind}: confidences (exact grid, out of the box): ECE {100 * calibration_error(conf, right):.3f}%; "
                  f"{int((~right[sure]).sum())} wrong among {int(sure.sum())} cells read at >= 99%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

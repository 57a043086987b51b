"""Vision benchmark: board found, cell colours, heights, hands and speed.

Every scene is a random room from :mod:`fenix_tools.sim` (``hard`` ranges: dim and warm
or cool light, glossy and matte stones, tilt up to 15 degrees, any rotation, lens
distortion, blur and motion blur, noise, JPEG, stray stones; a quarter of the game
frames with a forearm over the board), boards alternating 9x9 / 7x8. Per scene two
frames come from the same fixed camera: the start position, then a mid-game position.

* board found / wrong side / wrong grid: ``locate_board`` from scratch on every frame
  (both kinds); a wrong grid is one of the right side with a cell centre a quarter cell
  or more from the true one;
* cell colours and heights, "out of the box": the game frame read through its own
  located grid with the shipped default model;
* the same "calibrated": the start frame was located and calibrated (colours and the
  grid's turn, :func:`calibrate_from_position`), and the game frame is read with that
  calibration, as the table does during a game;
* "reader alone": the same through the true grid (the homography that best fits the
  camera's projection of the cell centres, see ``GroundTruth.fitted_corners``), default
  and calibrated, to tell reading errors from locating errors;
* every reading figure for each cell classifier (``ReaderConfig.classifier``: the CNN,
  the feature perceptron, both pooled); the hand figures are the default reader's;
* heights: the share of correctly coloured stacks with a claimed height (the rest are
  unknown) and how many claims are wrong;
* cells a forearm covers (ground truth) are left out of colour and height figures;
  hands are scored separately (frames flagged, covered cells found), out of the box and
  as the table reads them once a start frame has taught the room (the room's look of the
  board's edge, :class:`~fenix_table.vision.hands.MarginLook`);
* speed on one core (``cv2.setNumThreads(1)``) at the frame size: ``CellReader.read``
  with a known calibration (each classifier), the CNN's rectify-and-classify alone (the
  budget's figure), and ``locate_board``.

    python benchmarks/bench_vision.py [--scenes 300] [--size 1280x960] [--seed 1]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from typing import Dict, List, Sequence

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.errors import BoardNotFoundError  # noqa: E402
from fenix_tools.sim import random_placement, random_scene, render_frame  # noqa: E402
from fenix_table.board import dimensions  # noqa: E402
from fenix_table.rules import Position  # noqa: E402
from fenix_table.vision.cells import CLASSIFIERS, DEFAULT_READER, CellReader, calibrate_reader  # noqa: E402
from fenix_table.vision.locate import locate_board  # noqa: E402
from fenix_table.vision.pipeline import calibrate_from_position  # noqa: E402


# Every cell classifier the reader has (ReaderConfig.classifier).
READERS = {kind: replace(DEFAULT_READER, classifier=kind) for kind in CLASSIFIERS}


class Tally:
    def __init__(self):
        self.cells = self.colour_wrong = 0
        self.stacks = self.claimed = self.height_wrong = 0
        self.frames = 0
        self.by_face: Dict[str, List[int]] = {"9x9": [0, 0], "7x8": [0, 0]}

    def add(self, obs, cal, truth) -> None:
        """Score one observation against the truth; cells matched by image position
        (a located grid's a1 may be any corner of the board)."""
        self.frames += 1
        names = list(truth.cell_centres)
        centres = np.array([truth.cell_centres[n] for n in names])
        covered = set(truth.occluded_cells)
        for name, (x, y) in cal.cell_centres().items():
            k = int(np.argmin(((centres - (x, y)) ** 2).sum(axis=1)))
            tname = names[k]
            if tname in covered:
                continue
            colour, height = truth.placement.get(tname, ("empty", None))
            r = obs.cells[name]
            self.cells += 1
            self.colour_wrong += r.color != colour
            self.by_face[truth.board][0] += r.color != colour
            self.by_face[truth.board][1] += 1
            if colour != "empty" and r.color == colour:
                self.stacks += 1
                if r.height is not None:
                    self.claimed += 1
                    self.height_wrong += r.height != height

    def lines(self, label: str) -> List[str]:
        pct = lambda a, b: 100.0 * a / b if b else float("nan")
        return [f"{label}: colour errors {self.colour_wrong} of {self.cells} cells "
                f"({pct(self.colour_wrong, self.cells):.3f}%) in {self.frames} frames; "
                + ", ".join(f"{face} {e} of {n} ({pct(e, n):.3f}%)" for face, (e, n) in self.by_face.items()),
                f"{label}: heights claimed for {pct(self.claimed, self.stacks):.1f}% of {self.stacks} stacks, "
                f"wrong {self.height_wrong} ({pct(self.height_wrong, self.claimed):.2f}% of claimed)"]


def on_the_cells(cal, truth) -> bool:
    """Whether every cell centre of a located grid is within a quarter cell of a true one
    (any corner may be a1)."""
    true = np.array(list(truth.cell_centres.values()))
    located = np.array(list(cal.cell_centres().values()))
    d = np.sqrt(((located[:, None] - true[None]) ** 2).sum(axis=2)).min(axis=1)
    edges = np.diff(np.vstack([truth.corners, truth.corners[:1]]), axis=0)
    cell = float(np.linalg.norm(edges, axis=1).mean()) / float(np.mean(dimensions(truth.board)))
    return bool(d.max() < 0.25 * cell)


def run(scenes: int, seed: int, size, hand_share: float = 0.25) -> Dict[str, object]:
    rng = np.random.default_rng(seed)
    found = {"hand": [0, 0], "no_hand": [0, 0]}
    wrong_side = wrong_grid = 0
    locate_ms: List[float] = []
    locate_cpu_ms: List[float] = []
    read_ms: Dict[str, List[float]] = {kind: [] for kind in READERS}
    colour_ms: List[float] = []
    tallies = {kind: {part: Tally() for part in ("plain", "calibrated", "exact", "exact_calibrated")}
               for kind in READERS}
    hands, hands_calibrated = ({"hand_frames": 0, "flagged": 0, "clear_frames": 0, "false_flags": 0,
                                "covered": 0, "covered_found": 0, "reported": 0, "reported_wrong": 0}
                               for _ in range(2))
    calibrations = {kind: 0 for kind in READERS}
    for i in range(scenes):
        board = ("9x9", "7x8")[i % 2]
        scene = random_scene(rng, board, image_size=size, hand=False)
        start = Position.start(board).stacks()
        start_bgr, start_truth = render_frame(start, board, scene, rng)
        with_hand = bool(rng.random() < hand_share)
        game_scene = scene
        if with_hand:
            game_scene = replace(scene, hand=True)
        placement = random_placement(rng, board)
        game_bgr, truth = render_frame(placement, board, game_scene, rng)

        located = {}
        for kind, bgr, t in (("start", start_bgr, start_truth), ("game", game_bgr, truth)):
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                cal = locate_board(bgr)
            except BoardNotFoundError:
                cal = None
            # Wall time, and this thread's CPU time: on a shared machine only the second
            # is the one-core cost.
            locate_ms.append(1000 * (time.perf_counter() - t0))
            locate_cpu_ms.append(1000 * (time.thread_time() - c0))
            key = "hand" if t.hand else "no_hand"
            found[key][1] += 1
            if cal is not None and cal.board != board:
                wrong_side += 1
                cal = None
            if cal is not None and not on_the_cells(cal, t):
                wrong_grid += 1          # a grid accepted that is not the board's: worse than none
                cal = None
            if cal is not None:
                found[key][0] += 1
            located[kind] = cal

        from fenix_table.vision.types import Calibration
        true_cal = Calibration(board, size, tuple(map(tuple, truth.fitted_corners())))
        true_start = Calibration(board, size, tuple(map(tuple, start_truth.fitted_corners())))
        for kind, config in READERS.items():
            t = tallies[kind]
            reader = CellReader(true_cal, config)
            reader.read(game_bgr)                                  # warm-up (first-call costs)
            t0 = time.perf_counter()
            exact_obs = reader.read(game_bgr)
            read_ms[kind].append(1000 * (time.perf_counter() - t0))
            if kind == "cnn":
                # The budget's part: rectify and classify every cell, nothing else.
                t0 = time.perf_counter()
                reader.classifier.probabilities(reader.patches(reader.rectifier(game_bgr)))
                colour_ms.append(1000 * (time.perf_counter() - t0))
            t["exact"].add(exact_obs, true_cal, truth)

            if located["game"] is not None:
                obs = CellReader(located["game"], config).read(game_bgr)
                t["plain"].add(obs, located["game"], truth)
                if kind == DEFAULT_READER.classifier:
                    hand_figures(hands, obs, located["game"], truth)
            if located["start"] is not None:
                try:
                    cal = calibrate_from_position(start_bgr, located["start"], config=config)
                    calibrations[kind] += 1
                except ValueError:
                    cal = located["start"]
                obs = CellReader(cal, config).read(game_bgr)
                t["calibrated"].add(obs, cal, truth)
                if kind == DEFAULT_READER.classifier and cal.room is not None:
                    hand_figures(hands_calibrated, obs, cal, truth)
            try:
                cal = calibrate_reader(start_bgr, true_start, start, config)
            except ValueError:
                cal = true_start
            t["exact_calibrated"].add(CellReader(cal, config).read(game_bgr), cal, truth)
    return {"found": found, "wrong_side": wrong_side, "wrong_grid": wrong_grid, "locate_ms": locate_ms,
            "locate_cpu_ms": locate_cpu_ms, "read_ms": read_ms, "colour_ms": colour_ms, "tallies": tallies,
            "hands": hands, "hands_calibrated": hands_calibrated,
            "calibrations": calibrations, "scenes": scenes}


def hand_figures(hands: Dict[str, int], obs, cal, truth) -> None:
    """Score one game frame's hand flags and covered cells against the truth."""
    if truth.hand:
        hands["hand_frames"] += 1
        hands["flagged"] += obs.hand
        true_cov = set(truth.occluded_cells)
        names = list(truth.cell_centres)
        centres = np.array([truth.cell_centres[n] for n in names])
        mapped = {}
        for name, (x, y) in cal.cell_centres().items():
            mapped[name] = names[int(np.argmin(((centres - (x, y)) ** 2).sum(axis=1)))]
        reported = {mapped[c] for c in obs.occluded_cells}
        hands["covered"] += len(true_cov)
        hands["covered_found"] += len(true_cov & reported)
        hands["reported"] += len(reported)
        hands["reported_wrong"] += len(reported - true_cov)
    else:
        hands["clear_frames"] += 1
        hands["false_flags"] += obs.hand


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=300, help="scenes (two frames each)")
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(list(argv))
    size = tuple(int(v) for v in args.size.split("x"))
    import cv2
    cv2.setNumThreads(1)  # the speed budget is for one core
    r = run(args.scenes, args.seed, size)
    f = r["found"]
    pct = lambda a, b: 100.0 * a / b if b else float("nan")
    print(f"scenes: {r['scenes']} at {args.size} (seed {args.seed}), {sum(v[1] for v in f.values())} frames, "
          f"{f['hand'][1]} with a hand")
    print(f"board found without a hand: {pct(*f['no_hand']):.1f}% of {f['no_hand'][1]} frames")
    print(f"board found with a hand: {pct(*f['hand']):.1f}% of {f['hand'][1]} frames")
    print(f"wrong board side: {r['wrong_side']}; right side but a wrong grid (a cell centre "
          f"a quarter cell or more off): {r['wrong_grid']}")
    for kind in READERS:
        t = r["tallies"][kind]
        for line in t["plain"].lines(f"{kind}: out of the box (located grid, default colours)"):
            print(line)
        print(f"{kind}: start frames calibrated: {r['calibrations'][kind]} of {r['scenes']}")
        for line in t["calibrated"].lines(f"{kind}: calibrated from the start frame"):
            print(line)
        for line in t["exact"].lines(f"{kind}: reader alone (true grid, default colours)"):
            print(line)
        for line in t["exact_calibrated"].lines(f"{kind}: reader alone (true grid, calibrated from the start frame)"):
            print(line)
    for label, h in (("hands", r["hands"]),
                     ("hands, calibrated from the start frame (the room's look of the edge)", r["hands_calibrated"])):
        print(f"{label}: flagged in {h['flagged']} of {h['hand_frames']} hand frames, "
              f"falsely in {h['false_flags']} of {h['clear_frames']} clear frames; covered cells found "
              f"{pct(h['covered_found'], h['covered']):.1f}% of {h['covered']}, "
              f"{h['reported_wrong']} of {h['reported']} reported cells not covered")
    lm = np.array(r["locate_ms"])
    for kind, ms in r["read_ms"].items():
        rm = np.array(ms)
        print(f"{kind}: read cells (colours, heights, hands), known calibration (one core): mean {rm.mean():.1f} ms, "
              f"95th percentile {np.percentile(rm, 95):.1f} ms per frame")
    cm = np.array(r["colour_ms"])
    print(f"cnn: rectify and classify every cell (one core): mean {cm.mean():.1f} ms, "
          f"95th percentile {np.percentile(cm, 95):.1f} ms per frame")
    for lm, clock in ((lm, "wall"), (np.array(r["locate_cpu_ms"]), "CPU")):
        print(f"locate board from scratch (one core, {clock} time): mean {lm.mean():.0f} ms, 95th percentile "
              f"{np.percentile(lm, 95):.0f} ms, max {lm.max():.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

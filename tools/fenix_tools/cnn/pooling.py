"""Which cell classifier the reader ships, and how much the CNN weighs in the pool, tuned on
tuning data only: the generator's tuning seeds (never a benchmark's seed), the fold
of physically based train rooms :mod:`.train` holds out, and the physically based tune
split (kinds no model trains on; never the eval split, never the independent renderer).

    PYTHONPATH=tools python -m fenix_tools.cnn.pooling [--seeds 77] [--scenes 60] \\
        [--model cell_cnn.onnx,OTHER.onnx] [--frames-root /work/data/pbr/frames,OTHER_RUN/frames] \\
        [--tune-root /work/data/pbr]

Several models (``--model``, comma-separated, each with its ``.json`` beside it) are
scored on the same frames: which to ship, and at which weights.

Per generated scene, as ``benchmarks/bench_vision.py`` makes them (a start frame and a
game frame from one camera, a quarter of the game frames with a forearm), read through
the true grid: the perceptron and the CNN out of the box, and both calibrated from the
start frame (the perceptron's room from :func:`~fenix_table.vision.cells.calibrate_reader`,
the CNN's refitted last layer from the same start frame). Per physically based fold room
(one frame, no start frame): both out of the box. Then every weight ``w`` of the pooled
reading ``P_cnn ** w * P_perceptron ** (1 - w)`` (normalised; 0 is the perceptron alone,
1 the CNN alone) is scored, out of the box and calibrated, beside the reading of the
reader itself with that model (out of the box the perceptron reads the frame against
the room the pool's sure cells teach, :meth:`~fenix_table.vision.cells.CellReader.colours`;
calibrated, at the weight the room chose, :meth:`~fenix_table.vision.cells.CellReader.room_weight`;
the fixed-weight lines pool the perceptron's frame-only and start-frame readings).
Per tune room (a start frame and game frames, through the exact grid): as per generated
scene. Calibrated figures need the start frame to fit its layout
(:func:`~fenix_table.vision.cells.calibrate_reader`); a room where it does not is left
out of them.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import Dict, List, Sequence

import cv2
import numpy as np

from fenix_table.board import cell_names
from fenix_table.rules import Position
from fenix_table.vision.cells import DEFAULT_READER, CellReader, calibrate_reader, pooled
from fenix_table.vision.classifier import MODEL_PATH, CnnClassifier, RoomHead
from fenix_table.vision.colour import layout_labels
from fenix_table.vision.types import Calibration

from .data import fitted_corners, pbr_frames, truth_labels

PERCEPTRON = replace(DEFAULT_READER, classifier="perceptron")
WEIGHTS = (0.0, 0.2, 0.35, 0.5, 0.65, 0.8, 1.0)


class Readings:
    """Per-cell probabilities of both classifiers, and the labels, gathered over frames."""

    def __init__(self):
        self.cnn: List[np.ndarray] = []
        self.perceptron: List[np.ndarray] = []
        self.labels: List[np.ndarray] = []
        self.nine: List[np.ndarray] = []
        self.reader: List[np.ndarray] = []       # the reader's own reading with the model

    def add(self, P: np.ndarray, Q: np.ndarray, R: np.ndarray, labels: np.ndarray, board: str) -> None:
        keep = labels >= 0
        self.cnn.append(P[keep])
        self.perceptron.append(Q[keep])
        self.reader.append(R[keep])
        self.labels.append(labels[keep])
        self.nine.append(np.full(int(keep.sum()), board == "9x9"))

    def line(self, label: str) -> str:
        if not self.labels:
            return f"{label}: no cells"
        P, Q, y, nine = (np.concatenate(a) for a in (self.cnn, self.perceptron, self.labels, self.nine))
        parts = []
        for w in WEIGHTS:
            wrong = pooled(P, Q, w).argmax(axis=1) != y
            parts.append(f"w {w:g}: {int(wrong.sum())} ({100 * wrong.mean():.3f}%; 9x9 {int(wrong[nine].sum())})")
        wrong = np.concatenate(self.reader).argmax(axis=1) != y
        parts.append(f"the reader: {int(wrong.sum())} ({100 * wrong.mean():.3f}%; 9x9 {int(wrong[nine].sum())})")
        return f"{label}, {len(y)} cells: " + ", ".join(parts)


def cnn_readings(clf: CnnClassifier, reader: CellReader, bgr: np.ndarray, head=None) -> np.ndarray:
    return clf.probabilities(reader.patches(reader.rectifier(bgr)), head)


def reader_with(clf: CnnClassifier, cal: Calibration) -> CellReader:
    """The shipped reader (both classifiers pooled) with ``clf`` for its CNN."""
    reader = CellReader(cal, DEFAULT_READER)
    reader.classifier = clf
    if cal.room is not None:
        reader.use_room(cal.room)       # parsed for this CNN's last layer
    return reader


def reader_colours(reader: CellReader, bgr: np.ndarray) -> np.ndarray:
    rect = reader.rectifier(bgr)
    X, corners = reader.features(rect)
    return reader.colours(rect, X, corners)


def room_frames(clfs: Sequence[CnnClassifier], start_bgr: np.ndarray, start_cal: Calibration, start,
                games, plain: Sequence[Readings], calibrated: Sequence[Readings]) -> None:
    """One room: its game frames ((bgr, calibration, labels), the start frame's camera)
    read out of the box, and calibrated from its start frame (``start`` its layout)."""
    for bgr, cal, labels in games:
        reader = CellReader(cal, PERCEPTRON)
        X, _ = reader.features(reader.rectifier(bgr))
        Q = reader.probabilities(X, None)
        for clf, readings in zip(clfs, plain):
            readings.add(cnn_readings(clf, reader, bgr), Q, reader_colours(reader_with(clf, cal), bgr), labels,
                         cal.board)
    try:
        fitted = calibrate_reader(start_bgr, start_cal, start, PERCEPTRON)
    except ValueError:
        return
    start_labels = layout_labels(start, cell_names(start_cal.board))
    rooms = {}
    for clf in clfs:
        # As calibrate_reader learns the room, with this model.
        s_reader = reader_with(clf, start_cal)
        rooms[id(clf)] = s_reader.learn_room([(s_reader.lesson(s_reader.rectifier(start_bgr)), start_labels)])
    for bgr, cal, labels in games:
        reader = CellReader(replace(cal, room=fitted.room), PERCEPTRON)
        rect = reader.rectifier(bgr)
        X, corners = reader.features(rect)
        Q = reader.probabilities(X, reader.looks(rect, corners))
        for clf, readings in zip(clfs, calibrated):
            room = rooms[id(clf)]
            head = RoomHead.from_json(room["head"], clf.features)
            readings.add(cnn_readings(clf, reader, bgr, head), Q,
                         reader_colours(reader_with(clf, replace(cal, room=room)), bgr), labels, cal.board)


def generated(clfs: Sequence[CnnClassifier], seed: int, scenes: int, size, plain: Sequence[Readings],
              calibrated: Sequence[Readings]) -> None:
    from fenix_tools.sim import random_placement, random_scene, render_frame
    rng = np.random.default_rng(seed)
    for i in range(scenes):
        # As bench_vision makes its scenes (same draws, in the same order).
        board = ("9x9", "7x8")[i % 2]
        scene = random_scene(rng, board, image_size=size, hand=False)
        start = Position.start(board).stacks()
        start_bgr, start_truth = render_frame(start, board, scene, rng)
        game_scene = replace(scene, hand=True) if rng.random() < 0.25 else scene
        placement = random_placement(rng, board)
        bgr, truth = render_frame(placement, board, game_scene, rng)
        cal = Calibration(board, size, tuple(map(tuple, truth.fitted_corners())))
        start_cal = Calibration(board, size, tuple(map(tuple, start_truth.fitted_corners())))
        labels = truth_labels(cal, truth.cell_centres, truth.placement, truth.occluded_cells)
        room_frames(clfs, start_bgr, start_cal, start, [(bgr, cal, labels)], plain, calibrated)


def tune_rooms(clfs: Sequence[CnnClassifier], root: str, plain: Sequence[Readings],
               calibrated: Sequence[Readings]) -> None:
    """The physically based tune split's rooms (:mod:`fenix_tools.pbr`), exact grids."""
    from fenix_tools.pbr import dataset
    for room in dataset.rooms("tune", root):
        if "start" not in room or "game" not in room:
            continue
        start_bgr, start_truth = room["start"]
        games = []
        for kind in ("game", "hand"):
            if kind in room:
                bgr, truth = room[kind]
                cal = dataset.calibration(truth)
                centres = {c: tuple(v) for c, v in truth["cell_centres"].items()}
                placement = {c: tuple(v) for c, v in truth["placement"].items()}
                labels = truth_labels(cal, centres, placement, tuple(truth.get("hand_cells", ())))
                if labels is not None:
                    games.append((bgr, cal, labels))
        start = {c: tuple(v) for c, v in start_truth["placement"].items()}
        room_frames(clfs, start_bgr, dataset.calibration(start_truth), start, games, plain, calibrated)


def physically_based(clfs: Sequence[CnnClassifier], frames_root: str, every: int, plain: Sequence[Readings]) -> None:
    for name, bgr, meta in pbr_frames("train", frames_root):
        if every <= 0 or int(name) % 100_000 % every:
            continue                    # trained on: only the held-out fold (by room number) tunes
        board, size = meta["board"], tuple(meta["image_size"])
        centres = {c: tuple(v) for c, v in meta["cell_centres"].items()}
        placement = {c: tuple(v) for c, v in meta["placement"].items()}
        cal = Calibration(board, size, tuple(map(tuple, fitted_corners(board, centres))))
        labels = truth_labels(cal, centres, placement, tuple(meta.get("hand_cells", ())))
        reader = CellReader(cal, PERCEPTRON)
        X, _ = reader.features(reader.rectifier(bgr))
        Q = reader.probabilities(X, None)
        for clf, readings in zip(clfs, plain):
            readings.add(cnn_readings(clf, reader, bgr), Q, reader_colours(reader_with(clf, cal), bgr), labels, board)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description="tune the reader's classifier pool on tuning data")
    parser.add_argument("--seeds", default="77", help="generator tuning seeds, comma-separated")
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--frames-root", default="/work/data/pbr/frames",
                        help="physically based frame roots, comma-separated (one per run of train rooms)")
    parser.add_argument("--pbr-every", type=int, default=5, help="the fold train.py held out")
    parser.add_argument("--tune-root", help="the physically based tune split's data folder (e.g. /work/data/pbr)")
    parser.add_argument("--model", default=MODEL_PATH, help="models (.onnx, comma-separated; each .json beside)")
    args = parser.parse_args(list(argv))
    cv2.setNumThreads(1)
    models = [m for m in args.model.split(",") if m]
    clfs = [CnnClassifier(m, m[:-len(".onnx")] + ".json") for m in models]
    size = tuple(int(v) for v in args.size.split("x"))
    roots = [r for r in args.frames_root.split(",") if os.path.isdir(os.path.join(r, "train"))]
    labels = ["generator, out of the box", "generator, calibrated"]
    labels += [f"pbr train fold of {root}, out of the box" for root in roots]
    tune = ["pbr tune split, out of the box", "pbr tune split, calibrated"] if args.tune_root else []
    sets: Dict[str, List[Readings]] = {label: [Readings() for _ in clfs] for label in labels + tune}
    for seed in (int(s) for s in args.seeds.split(",") if s):
        generated(clfs, seed, args.scenes, size, sets[labels[0]], sets[labels[1]])
    for root, label in zip(roots, labels[2:]):
        physically_based(clfs, root, args.pbr_every, sets[label])
    if tune:
        tune_rooms(clfs, args.tune_root, sets[tune[0]], sets[tune[1]])
    labels += tune
    for k, model in enumerate(models):
        print(f"model {model}; pooled P_cnn^w P_perceptron^(1-w), cell errors:")
        for label in labels:
            print(sets[label][k].line(label))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

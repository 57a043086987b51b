"""Cell patches for the CNN from frames rendered by :mod:`fenix_tools.sim`, cut by the
package's own rectifier exactly as :class:`fenix_table.vision.cells.CellReader` cuts them
at the table (the physically based renderers' train frames are kept in git as boards,
:mod:`.boards`).

    PYTHONPATH=tools python -m fenix_tools.cnn.data --seed 101 --rooms 400 [--chunk 25]

Per generated room (both faces, 1280x960 mostly, some 640x480 and 1920x1080, the widened
rooms of :func:`fenix_tools.training.training_scene`): the start
position and two mid-game frames, one of them with a forearm in a third of the rooms.
Every frame is cut through its true grid with the corners jittered by about a pixel,
the game frames once more with a few pixels of slop, and the start frame also through
the grid :func:`~fenix_table.vision.locate.locate_board` finds (cells matched to the
truth by position), so the net learns the slop of located grids. Cells an arm covers
keep label -1 (they count for the frame's board colour, not as examples).

Each chunk of rooms is one ``.npz`` (patches uint8, labels, frame and room ids, face),
written once and skipped when it exists: a killed run resumes where it stopped, and a
seed always gives the same chunk.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from fenix_table.board import dimensions
from fenix_table.vision.cells import DEFAULT_READER, Rectifier
from fenix_table.vision.classifier import CLASSES, cell_patches
from fenix_table.vision.types import Calibration

ROOT = "/work/data/reader"


def frame_cells(bgr: np.ndarray, cal: Calibration) -> np.ndarray:
    """The classifier's patches of one frame through ``cal`` (as the reader cuts them)."""
    rect = Rectifier(cal, DEFAULT_READER)(bgr)
    width, height = dimensions(cal.board)
    return cell_patches(rect.bgr, width, height, rect.ppc, rect.pad)


def truth_labels(cal: Calibration, centres: Dict[str, Tuple[float, float]], placement,
                 covered: Sequence[str] = ()) -> Optional[np.ndarray]:
    """Per cell of ``cal`` (cell_names order) the true class of the cell whose centre is
    nearest (-1 where an arm covers it); None when some cell is a third of a cell or
    more from any true centre (a wrong grid teaches nothing)."""
    names = list(centres)
    pts = np.array([centres[n] for n in names], float)
    width, _ = dimensions(cal.board)
    pitch = np.linalg.norm(np.array(cal.corners[1]) - np.array(cal.corners[0])) / width
    labels = []
    for x, y in cal.cell_centres().values():
        d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
        k = int(np.argmin(d))
        if d[k] > pitch / 3:
            return None
        n = names[k]
        labels.append(-1 if n in covered else CLASSES.index(placement.get(n, ("empty",))[0]))
    return np.array(labels, np.int8)


class Chunk:
    """Patches of many frames, gathered then saved as one file."""

    def __init__(self):
        self.patches: List[np.ndarray] = []
        self.labels: List[np.ndarray] = []
        self.frame: List[np.ndarray] = []
        self.room: List[np.ndarray] = []
        self.face: List[np.ndarray] = []
        self.start: List[np.ndarray] = []
        self.frames = 0

    def add(self, patches: np.ndarray, labels: np.ndarray, room: int, face: str, start: bool) -> None:
        n = len(patches)
        self.patches.append(np.ascontiguousarray(patches))
        self.labels.append(np.asarray(labels, np.int8))
        self.frame.append(np.full(n, self.frames, np.int32))
        self.room.append(np.full(n, room, np.int32))
        self.face.append(np.full(n, face == "9x9", np.bool_))
        self.start.append(np.full(n, start, np.bool_))
        self.frames += 1

    def save(self, path: str) -> None:
        tmp = path + ".tmp.npz"
        np.savez_compressed(tmp, patches=np.concatenate(self.patches), labels=np.concatenate(self.labels),
                            frame=np.concatenate(self.frame), room=np.concatenate(self.room),
                            nine=np.concatenate(self.face), start=np.concatenate(self.start))
        os.replace(tmp, path)


def sim_chunk(seed: int, index: int, rooms: int, path: str) -> None:
    """Render ``rooms`` generated rooms (seed, chunk index) and save their patches."""
    from fenix_table.errors import BoardNotFoundError
    from fenix_table.rules import Position
    from fenix_table.vision.locate import locate_board

    from ..sim import random_placement, render_frame
    from ..training import training_scene
    rng = np.random.default_rng([seed, index])
    chunk = Chunk()
    for r in range(rooms):
        room = index * rooms + r
        board = ("9x9", "7x8")[room % 2]
        size = [(1280, 960), (1280, 960), (640, 480), (1920, 1080)][int(rng.integers(4))]
        scene = training_scene(rng, board, size)
        frames = [(dict(Position.start(board).stacks()), scene, True)]
        frames.append((random_placement(rng, board), scene, False))
        hand_scene = replace(scene, hand=True) if rng.random() < 0.33 else scene
        frames.append((random_placement(rng, board), hand_scene, False))
        for placement, sc, start in frames:
            bgr, truth = render_frame(placement, board, sc, rng)
            exact = truth.fitted_corners()
            grids = [exact + rng.normal(0, 0.8, exact.shape)]
            if not start:
                grids.append(exact + rng.normal(0, 2.5, exact.shape))
            else:
                try:
                    found = locate_board(bgr)
                    if found.board == board:
                        grids.append(np.array(found.corners, float))
                except BoardNotFoundError:
                    pass
            for corners in grids:
                cal = Calibration(board, size, tuple(map(tuple, corners)))
                labels = truth_labels(cal, truth.cell_centres, truth.placement, truth.occluded_cells)
                if labels is None:
                    continue
                chunk.add(frame_cells(bgr, cal), labels, room, board, start)
    chunk.save(path)


def fitted_corners(board: str, centres: Dict[str, Tuple[float, float]]) -> np.ndarray:
    """4x2 grid corners (``Calibration.corners`` order) of the homography that best fits
    the true cell centres: under lens distortion the best any grid can do (as
    :meth:`fenix_tools.sim.GroundTruth.fitted_corners`)."""
    import cv2
    from fenix_table.board import cell_index
    width, height = dimensions(board)
    names = list(centres)
    src = np.array([np.array(cell_index(n), float) + 0.5 for n in names], np.float32)
    dst = np.array([centres[n] for n in names], np.float32)
    Hm, _ = cv2.findHomography(src, dst, 0)
    box = np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float64)
    return cv2.perspectiveTransform(box, Hm)[0]


def pbr_frames(split: str, frames_root: str):
    """(name, BGR image, truth dict) of every finished frame of a physically based split
    (``NAME.jpg`` + ``NAME.json``; the JSON is written last), in name order."""
    import cv2
    import glob
    import json
    for path in sorted(glob.glob(os.path.join(frames_root, split, "*.json"))):
        image = path[:-5] + ".jpg"
        if not os.path.exists(image):
            continue
        with open(path, encoding="utf-8") as fh:
            meta = json.load(fh)
        bgr = cv2.imread(image)
        if bgr is not None:
            yield os.path.basename(path)[:-5], bgr, meta


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description="cell patches for the CNN from generated rooms")
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--rooms", type=int, default=400)
    parser.add_argument("--chunk", type=int, default=25, help="rooms per file")
    parser.add_argument("--root", default=ROOT)
    args = parser.parse_args(list(argv))
    out = os.path.join(args.root, "patches")
    os.makedirs(out, exist_ok=True)
    for index in range(args.rooms // args.chunk):
        path = os.path.join(out, f"sim-{args.seed}-{index:03d}.npz")
        if os.path.exists(path):
            continue
        sim_chunk(args.seed, index, args.chunk, path)
        print(f"wrote {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

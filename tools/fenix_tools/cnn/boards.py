"""The rendered training boards, kept in git: every physically based training frame's
board, rectified through its true grid as the reader rectifies it, with its cells' true
colours.

Rendering the training frames takes most of a session's two cores (about 25 s a pbr
frame, 40-80 s a Cycles frame), and rendered frames stay out of git. What the reader
learns from is only the rectified board, so that is what is kept: at CELL pixels per
cell with half a cell around the grid, lossless WebP, about 38 kB a board; the set lives
in ``tools/reader-data/`` (its README gives the files, their sizes and the commands).

    PYTHONPATH=tools python -m fenix_tools.cnn.boards pbr --frames-root /work/data/pbr/frames --seed 1
    PYTHONPATH=tools python -m fenix_tools.cnn.boards cycles --frames-root /work/data/cycles-train1/frames --seed 1

One file per source, run seed and CHUNK rooms (``pbr-s1-003.npz``: run seed 1's rooms
75-99), written once all its rooms are rendered and never rewritten: a session renders
rooms beside its work, and each finished chunk is committed. ``--partial`` also writes
the last, unfinished chunk (named with its count of boards: ``pbr-s1-015-7.npz``),
which the chunk's next file replaces.

:func:`load` gives the training script the boards as cell patches, each board cut
through its grid moved by a little (the slop a located grid has), seeded.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from typing import Iterator, List, Sequence, Tuple

import cv2
import numpy as np

from fenix_table.board import dimensions
from fenix_table.vision.cells import DEFAULT_READER, Rectifier
from fenix_table.vision.classifier import CELL, at_cell_size, cell_patches
from fenix_table.vision.types import Calibration

from .. import CHECKOUT
from .data import fitted_corners, truth_labels

DATA = os.path.join(CHECKOUT, "tools", "reader-data")
CHUNK = 25                  # rooms per file
SOURCES = ("pbr", "cycles")
# Train-split frame names: the room's seed (run seed * 100000 + room, plus 3e9 for Cycles).
_NAME = re.compile(r"^(\d{10})$")
_OFFSET = {"pbr": 0, "cycles": 3_000_000_000}
PAD = CELL // 2             # board pixels kept around the grid


def board_image(bgr: np.ndarray, cal: Calibration) -> np.ndarray:
    """The board of ``bgr`` through ``cal`` as the reader cuts its patches: rectified,
    then at CELL pixels per cell, the grid from pixel PAD (half a cell) on every side."""
    rect = Rectifier(cal, DEFAULT_READER)(bgr)
    img, pad = at_cell_size(rect.bgr, rect.ppc, rect.pad)
    width, height = dimensions(cal.board)
    return np.ascontiguousarray(img[pad - PAD:pad + height * CELL + PAD, pad - PAD:pad + width * CELL + PAD])


def rendered_frames(frames_root: str) -> Iterator[Tuple[str, str]]:
    """(name, json path) of every finished train frame under ``frames_root``."""
    for path in sorted(glob.glob(os.path.join(frames_root, "train", "*.json"))):
        name = os.path.basename(path)[:-5]
        if _NAME.match(name) and os.path.exists(path[:-5] + ".jpg"):
            yield name, path


def encode_board(meta: dict, bgr: np.ndarray) -> Tuple[bytes, np.ndarray]:
    """(lossless WebP of the frame's board through its true grid, labels per cell:
    0-2 the class, -1 a cell a hand covers)."""
    board = meta["board"]
    centres = {c: tuple(v) for c, v in meta["cell_centres"].items()}
    cal = Calibration(board, tuple(meta["image_size"]), tuple(map(tuple, fitted_corners(board, centres))))
    placement = {c: tuple(v) for c, v in meta["placement"].items()}
    labels = truth_labels(cal, centres, placement, tuple(meta.get("hand_cells", ())))
    if labels is None:
        raise ValueError("the fitted grid is a third of a cell off a true centre")
    ok, buf = cv2.imencode(".webp", board_image(bgr, cal), [cv2.IMWRITE_WEBP_QUALITY, 101])
    if not ok:
        raise ValueError("this OpenCV cannot write WebP")
    return buf.tobytes(), labels


def write_chunk(path: str, names: Sequence[str], metas: Sequence[dict], images: Sequence[bytes],
                labels: Sequence[np.ndarray]) -> None:
    """One file of boards: their encoded images end to end, and per board its name,
    face, start flag and labels (81 per board; a 7x8 board's last 25 are -2)."""
    offsets = np.cumsum([0] + [len(b) for b in images]).astype(np.int64)
    table = np.full((len(labels), 81), -2, np.int8)
    for i, lab in enumerate(labels):
        table[i, :len(lab)] = lab
    tmp = path + ".tmp.npz"
    np.savez_compressed(tmp, images=np.frombuffer(b"".join(images), np.uint8), offsets=offsets,
                        labels=table, names=np.array(names), nine=np.array([m["board"] == "9x9" for m in metas]),
                        start=np.array([bool(m.get("start", False)) for m in metas]))
    os.replace(tmp, path)


def make(source: str, frames_root: str, seed: int, out: str, partial: bool = False) -> List[str]:
    """Write the chunks of ``source``'s run ``seed`` that are complete (and with
    ``partial`` the last one as it is) and not written yet; returns the paths written."""
    base = _OFFSET[source] + seed * 100_000
    by_chunk = {}
    for name, path in rendered_frames(frames_root):
        room = int(name) - base
        if 0 <= room < 100_000:
            by_chunk.setdefault(room // CHUNK, []).append((room, name, path))
    os.makedirs(out, exist_ok=True)
    written = []
    last = max(by_chunk, default=-1)
    for k, rooms in sorted(by_chunk.items()):
        complete = len(rooms) == CHUNK
        if not complete and not (partial and k == last):
            continue
        stem = f"{source}-s{seed}-{k:03d}" + ("" if complete else f"-{len(rooms)}")
        path = os.path.join(out, stem + ".npz")
        if os.path.exists(path):
            continue
        names, metas, images, labels = [], [], [], []
        for room, name, json_path in sorted(rooms):
            with open(json_path, encoding="utf-8") as fh:
                meta = json.load(fh)
            bgr = cv2.imread(json_path[:-5] + ".jpg")
            if bgr is None:
                raise ValueError(f"{name}: the frame cannot be read")
            image, lab = encode_board(meta, bgr)
            names.append(name)
            metas.append(meta)
            images.append(image)
            labels.append(lab)
        write_chunk(path, names, metas, images, labels)
        written.append(path)
        # An earlier, unfinished copy of this chunk (this tool wrote it) would train its
        # boards twice.
        for older in glob.glob(os.path.join(out, f"{source}-s{seed}-{k:03d}-*.npz")):
            if older != path and re.fullmatch(r"\d+", older[:-4].rsplit("-", 1)[1]):
                os.remove(older)
    return written


def boards(path: str) -> Iterator[Tuple[str, np.ndarray, np.ndarray, bool]]:
    """(name, board image BGR, labels, start) of every board of one file."""
    with np.load(path, allow_pickle=False) as d:
        data, offsets, table, names, start = d["images"], d["offsets"], d["labels"], d["names"], d["start"]
        for i, name in enumerate(names):
            img = cv2.imdecode(data[offsets[i]:offsets[i + 1]], cv2.IMREAD_COLOR)
            lab = table[i][table[i] > -2]
            yield str(name), img, lab.astype(np.int64), bool(start[i])


def patches(img: np.ndarray, width: int, height: int, rng: np.random.Generator = None, slop: float = 0.0) -> np.ndarray:
    """(cells, PATCH, PATCH, 3) of one board image, cut as
    :func:`fenix_table.vision.classifier.cell_patches` cuts them, through the grid with
    each corner moved by ``slop`` pixels (s.d.) first."""
    if slop > 0:
        w, h = width * CELL, height * CELL
        box = np.float32([[PAD, PAD], [PAD + w, PAD], [PAD + w, PAD + h], [PAD, PAD + h]])
        M = cv2.getPerspectiveTransform(box + rng.normal(0, slop, box.shape).astype(np.float32), box)
        img = cv2.warpPerspective(img, M, (img.shape[1], img.shape[0]), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(cell_patches(img, width, height, CELL, PAD))


# The located grid's slop in board pixels: about 1 and 3 image pixels at the train
# frames' 60-100 image pixels a cell (what data.py's crops jitter the corners by).
SLOPS = (0.2, 0.6)


def load(paths: Sequence[str], seed: int = 7) -> List[Tuple[np.ndarray, np.ndarray, int]]:
    """The training script's frames (patches, labels, room) of the board files
    ``paths``: each board cut once per SLOPS, the cuts drawn from ``seed`` and the
    board's name alone. A board's room is its room number in its run (the trainer's
    held-out fold is every few room numbers, as :mod:`.pooling` picks it from the
    frames), kept apart across files."""
    frames = []
    for k, path in enumerate(paths):
        for name, img, lab, _ in boards(path):
            width, height = (9, 9) if len(lab) == 81 else (7, 8)
            if img.shape[:2] != (height * CELL + 2 * PAD, width * CELL + 2 * PAD):
                raise ValueError(f"{path}: board {name} is {img.shape[1]}x{img.shape[0]} pixels, not a {width}x{height} board's")
            rng = np.random.default_rng([seed, int(name)])
            for slop in SLOPS:
                frames.append((patches(img, width, height, rng, slop), lab, k * 1_000_000 + int(name) % 100_000))
    return frames


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description="the rendered training boards kept in git (tools/reader-data)")
    parser.add_argument("source", choices=SOURCES)
    parser.add_argument("--frames-root", required=True, help="the renderer's frames folder (holding train/)")
    parser.add_argument("--seed", type=int, default=1, help="the run seed the frames were rendered with")
    parser.add_argument("--out", default=DATA)
    parser.add_argument("--partial", action="store_true", help="also write the last chunk, unfinished")
    args = parser.parse_args(list(argv))
    for path in make(args.source, args.frames_root, args.seed, args.out, args.partial):
        print(f"wrote {path} ({os.path.getsize(path) / 1e6:.2f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

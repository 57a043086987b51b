"""Reading the rendered frames back: ``frames(split)`` yields ``(bgr, truth)``.

``truth`` is the frame's JSON as written by :mod:`.make` (see tools/README.md for its
fields), plus ``name``. Frames come in name order, so an eval room's ``-game`` frame
follows its ``-start`` frame (:func:`rooms` groups them).
"""
from __future__ import annotations

import json
import os
from typing import Dict, Iterator, List, Optional, Tuple

import cv2
import numpy as np

from .make import DEFAULT_ROOT
from .scene import SPLITS


def frame_dir(split: str, root: Optional[str] = None) -> str:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (train or eval)")
    return os.path.join(root or DEFAULT_ROOT, "frames", split)


def names(split: str, root: Optional[str] = None) -> List[str]:
    """Names of the complete frames of ``split`` (picture and truth both there)."""
    folder = frame_dir(split, root)
    if not os.path.isdir(folder):
        return []
    files = set(os.listdir(folder))
    return sorted(n[:-5] for n in files if n.endswith(".json") and n[:-5] + ".jpg" in files)


def load(split: str, name: str, root: Optional[str] = None) -> Tuple[np.ndarray, Dict]:
    """One frame: BGR picture and truth dict."""
    base = os.path.join(frame_dir(split, root), name)
    bgr = cv2.imread(base + ".jpg", cv2.IMREAD_COLOR)
    if bgr is None:
        raise ValueError(f"{base}.jpg: not a readable picture")
    with open(base + ".json", encoding="utf-8") as fh:
        truth = json.load(fh)
    truth.setdefault("name", name)
    return bgr, truth


def frames(split: str, root: Optional[str] = None, *, hands: Optional[bool] = None,
           board: Optional[str] = None) -> Iterator[Tuple[np.ndarray, Dict]]:
    """``(bgr, truth)`` for every frame of ``split`` under ``root`` (default
    ``/work/data/pbr``). ``hands`` True/False keeps only frames with/without a hand;
    ``board`` keeps one face."""
    for name in names(split, root):
        bgr, truth = load(split, name, root)
        if hands is not None and bool(truth.get("hand")) != hands:
            continue
        if board is not None and truth["board"] != board:
            continue
        yield bgr, truth


def rooms(split: str, root: Optional[str] = None) -> Iterator[Dict[str, Tuple[np.ndarray, Dict]]]:
    """Frames grouped by room (same camera and light): ``{"start": ..., "game": ...,
    "hand": ...}`` for eval rooms (keys present as rendered), ``{"frame": ...}`` for a
    train room."""
    groups: Dict[int, List[str]] = {}
    for name in names(split, root):
        groups.setdefault(int(name.split("-")[0]), []).append(name)
    for room in sorted(groups):
        out = {}
        for name in groups[room]:
            kind = name.split("-")[1] if "-" in name else "frame"
            out[kind] = load(split, name, root)
        yield out


def calibration(truth: Dict):
    """The frame's grid as a :class:`fenix_table.vision.Calibration` (oriented, a1 at
    a1): the homography that best fits every true grid point. Under lens distortion no
    homography passes through all of them; this is the best any located grid can do."""
    from fenix_table.board import dimensions
    from fenix_table.vision import Calibration

    cols, rows = dimensions(truth["board"])
    board = np.array([(i, j) for j in range(rows + 1) for i in range(cols + 1)], np.float32)
    image = np.array(truth["grid_points"], np.float32)
    Hm, _ = cv2.findHomography(board, image, 0)
    box = np.array([[[0, 0], [cols, 0], [cols, rows], [0, rows]]], np.float64)
    corners = cv2.perspectiveTransform(box, Hm)[0]
    return Calibration(truth["board"], tuple(truth["image_size"]),
                       tuple((float(x), float(y)) for x, y in corners), oriented=True)


def rectified(bgr: np.ndarray, truth: Dict, ppc: int = 32, margin: float = 0.5) -> np.ndarray:
    """The board plane seen from straight above, lens distortion removed exactly: pixel
    ``(u, v)`` shows board point ``(u / ppc - margin, rows + margin - v / ppc)`` (cell
    a1 bottom left, ``ppc`` pixels a cell, ``margin`` cells around the grid). Stack tops
    stand above the plane and keep their parallax."""
    from fenix_table.board import dimensions

    cols, rows = dimensions(truth["board"])
    W, H = int(round((cols + 2 * margin) * ppc)), int(round((rows + 2 * margin) * ppc))
    us, vs = np.meshgrid((np.arange(W) + 0.5) / ppc - margin, rows + margin - (np.arange(H) + 0.5) / ppc)
    world = np.stack([us.ravel(), vs.ravel(), np.zeros(us.size)], axis=1)
    cam = truth["camera"]
    R = np.array(cam["rotation"], float)
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ np.array(cam["centre"], float)
    d = truth["distortion"]
    pts, _ = cv2.projectPoints(world, rvec, tvec, np.array(d["camera_matrix"], float),
                               np.array(d["dist_coeffs"], float))
    pts = pts.reshape(H, W, 2).astype(np.float32)
    return cv2.remap(bgr, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

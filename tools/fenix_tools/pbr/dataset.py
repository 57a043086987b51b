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

"""Corner stickers in a generated frame: the four ArUco markers of
:mod:`fenix_table.vision.stickers` lying flat outside the grid's corners, as the printed
guide says (their marked corner on the grid's corner)."""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from fenix_table.board import dimensions
from fenix_table.vision.stickers import BORDER, CORNER_IDS, DICTIONARY

from .render import Camera, SceneParams

_PX = 60          # sticker image pixels per marker side


def sticker_image(marker: int) -> np.ndarray:
    """The printed sticker (gray, white border included), ``_PX`` pixels per marker side."""
    bits = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(DICTIONARY), marker, _PX)
    pad = int(round(BORDER * _PX))
    return cv2.copyMakeBorder(bits, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)


def with_stickers(bgr: np.ndarray, scene: SceneParams, board: str, side: float = 0.5,
                  ids: Sequence[int] = CORNER_IDS) -> np.ndarray:
    """``bgr`` (rendered from ``scene`` without lens distortion) with the stickers ``ids``
    drawn on the board plane; ``side``: the marker's side in cells. No shading: a
    sticker is a flat white-and-black print, the light's effect on it is no test here."""
    if scene.distortion_k1:
        raise ValueError("stickers are drawn through a distortion-free camera")
    width, height = dimensions(board)
    corners = [(0, 0), (width, 0), (width, height), (0, height)]
    # Seen from above, a sticker printed upright has its marked (bottom-right) corner
    # towards +x, -y of the board; turned by these quarter turns it lies outside each corner.
    turns = {0: 1, 1: 2, 2: 3, 3: 0}
    plane = Camera(scene, board).plane_homography()
    h, w = bgr.shape[:2]
    out = bgr.copy()
    for marker in ids:
        img = sticker_image(marker)
        size = img.shape[0]
        s = side * (1 + 2 * BORDER) / size                     # cells per sticker pixel
        a = np.pi / 2 * turns[marker]
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        # sticker pixel (u, v) -> board: corner + rot @ ((u - size) s, (size - v) s)
        A = rot @ np.array([[s, 0], [0, -s]])
        b = np.array(corners[marker], float) - A @ np.array([size, size])
        M = plane @ np.vstack([np.column_stack([A, b]), [0, 0, 1]])
        warped = cv2.warpPerspective(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), M, (w, h), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full(img.shape, 255, np.uint8), M, (w, h))
        out[mask > 128] = warped[mask > 128]
    return out

"""Corner stickers: four printed ArUco markers that pin the grid on any table.

On a table whose pattern the locator cannot see past (a fine check, a grain that runs
with the lines), or when the board's margin is hidden, the grid can be given by four
stickers (``calibration/fenix-corner-stickers.svg``, made by
``calibration/make_stickers.py``). Each is an ArUco marker (OpenCV's 4x4 dictionary)
with a white border; its outer corner, marked on the print, goes on one of the grid's
outer corners, the sticker lying outside the grid. Marker 0 goes at a1's corner (Red's
camp), 1 at the end of rank 1, 2 at the far corner, 3 at the end of file a, so the
stickers also say which corner is a1.

The marked corner lies ``BORDER`` marker sides beyond the marker's own corner, along
both its edges: the marker's four corners give its plane's homography, which puts that
point in the image exactly (the sticker lies flat on the table).
"""
from __future__ import annotations

from typing import Dict, Tuple

import cv2
import numpy as np

from ..board import dimensions
from ..errors import BoardNotFoundError
from .types import Calibration

#: OpenCV's predefined dictionary the stickers are printed from.
DICTIONARY = cv2.aruco.DICT_4X4_50
#: Marker ids at the grid's corners, in :class:`Calibration` corner order.
CORNER_IDS = (0, 1, 2, 3)
#: White border round the marker, in marker sides (the marked corner is its outer corner).
BORDER = 0.25
#: Which of the marker's corners (OpenCV's order: its top-left, top-right, bottom-right,
#: bottom-left as printed) is nearest the marked corner: the bottom-right.
MARKED = 2


def sticker_points(frame_bgr: np.ndarray) -> Dict[int, Tuple[float, float]]:
    """The marked corner of every corner sticker in the frame, by marker id."""
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    found: Dict[int, Tuple[float, float]] = {}
    if ids is None:
        return found
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    marked = np.array([[[1 + BORDER, 1 + BORDER]]], np.float32)
    for quad, marker in zip(corners, np.asarray(ids).ravel()):
        if int(marker) not in CORNER_IDS or int(marker) in found:
            continue
        Hm = cv2.getPerspectiveTransform(square, quad.reshape(4, 2).astype(np.float32))
        x, y = cv2.perspectiveTransform(marked, Hm)[0, 0]
        found[int(marker)] = (float(x), float(y))
    return found


def locate_by_stickers(frame_bgr: np.ndarray, board: str) -> Calibration:
    """The grid from the four corner stickers, oriented (marker 0 is at a1), its lines
    then placed on the frame's own lines and the lens fitted as :func:`locate_board`
    does (kept only while the grid stays within a tenth of a cell of the stickers').

    Raises BoardNotFoundError naming the stickers not seen."""
    from .locate import DEFAULT, _refine_full
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise BoardNotFoundError("not a colour image")
    points = sticker_points(frame_bgr)
    missing = [str(i) for i in CORNER_IDS if i not in points]
    if missing:
        raise BoardNotFoundError(f"corner sticker{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                                 f"not seen (all four must be in view)")
    h, w = frame_bgr.shape[:2]
    stuck = Calibration.from_corners(board, (w, h), [points[i] for i in CORNER_IDS])
    width, height = dimensions(board)
    Hm, k1 = _refine_full(frame_bgr, stuck.homography(), width, height, board,
                          2 * int(DEFAULT.kernel * max(h, w) / DEFAULT.work_size / 2) + 1, DEFAULT)
    box = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    refined = Calibration(board, (w, h), tuple(map(tuple, cv2.perspectiveTransform(box[None], Hm)[0])),
                          oriented=True, k1=k1)
    cell = float(np.linalg.norm(np.array(stuck.corners[1]) - stuck.corners[0])) / width
    if np.abs(refined.to_image(box) - np.array(stuck.corners)).max() > 0.1 * cell:
        return stuck
    return refined


__all__ = ["BORDER", "CORNER_IDS", "DICTIONARY", "locate_by_stickers", "sticker_points"]

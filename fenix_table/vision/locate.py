"""Finding the grid: which face is up, and where its outer corners are.

Stage 1 enhances grid lines with a morphological top-hat (light lines on the dark 9x9
face) or black-hat (dark lines on the light 7x8 face) and takes the largest connected
line structure; its convex hull gives a rough quadrilateral. Stage 2 rectifies that
quadrilateral and fits evenly spaced lines to the row and column line profiles, which
fixes the cell count per axis (9/9 or 7/8) and the exact corners; it runs twice so the
second pass sees an almost perfectly rectified grid. Nothing depends on the board's
colours beyond the line polarity, which is what tells the faces apart.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import cv2
import numpy as np

from ..errors import BoardNotFoundError
from .board import DIMENSIONS, LIGHT_LINES
from .types import Calibration


@dataclass(frozen=True)
class LocateConfig:
    work_width: int = 640          # frames are located at this width
    rect_size: int = 360           # rectified grid size, pixels
    pad: float = 0.12              # rectified margin around the rough quad, share of rect_size
    min_score: float = 0.25        # line-fit contrast below this is "no grid"


def _order_quad(quad: np.ndarray) -> np.ndarray:
    """Clockwise on screen, starting nearest the image's top-left."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]
    start = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -start, axis=0)


def _line_image(gray: np.ndarray, light_lines: bool, kernel: int) -> np.ndarray:
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel, kernel))
    op = cv2.MORPH_TOPHAT if light_lines else cv2.MORPH_BLACKHAT
    return cv2.morphologyEx(gray, op, k)


def _rough_quads(gray: np.ndarray, light_lines: bool) -> List[np.ndarray]:
    h, w = gray.shape
    kernel = max(7, int(min(h, w) / 40) | 1)
    lines = _line_image(gray, light_lines, kernel)
    thr = max(6.0, float(np.percentile(lines, 88)))
    binary = (lines > thr).astype(np.uint8)
    binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    quads = []
    # Biggest structures by bounding-box area first: the grid spans a large region.
    order = sorted(range(1, n), key=lambda i: -stats[i, cv2.CC_STAT_WIDTH] * stats[i, cv2.CC_STAT_HEIGHT])
    if not order:
        return quads
    biggest = stats[order[0], cv2.CC_STAT_AREA]
    # Stones can cut the grid into pieces: also try the union of all big line structures.
    union = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 0.15 * biggest]
    groups = [[i] for i in order[:2]] + ([union] if len(union) > 1 else [])
    for group in groups:
        i = group[0]
        if len(group) == 1 and stats[i, cv2.CC_STAT_WIDTH] * stats[i, cv2.CC_STAT_HEIGHT] < 0.04 * h * w:
            continue
        ys, xs = np.nonzero(np.isin(labels, group))
        hull = cv2.convexHull(np.column_stack([xs, ys]).astype(np.float32))
        peri = cv2.arcLength(hull, True)
        quad = None
        for eps in (0.02, 0.04, 0.06, 0.08, 0.1):
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                quad = approx.reshape(4, 2)
                break
        if quad is None:
            quad = cv2.boxPoints(cv2.minAreaRect(hull))
        quads.append(_order_quad(np.asarray(quad, np.float64)))
    return quads


def _fit_axis(profile: np.ndarray, cells: int, expect_start: float, expect_span: float
              ) -> Tuple[float, float, float]:
    """Best (start, spacing, score) for ``cells + 1`` evenly spaced lines in ``profile``."""
    x = np.arange(len(profile), dtype=np.float64)
    spacings = np.linspace(expect_span / cells * 0.8, expect_span / cells * 1.2, 41)
    starts = np.arange(expect_start - 0.2 * expect_span, expect_start + 0.2 * expect_span, 0.5)
    k = np.arange(cells + 1)
    best = (0.0, 0.0, -1e9)
    for s in spacings:
        on = starts[:, None] + k[None, :] * s
        off = starts[:, None] + (k[None, :-1] + 0.5) * s
        valid = (on[:, 0] >= 0) & (on[:, -1] <= len(profile) - 1)
        if not valid.any():
            continue
        on_v = np.interp(on, x, profile).mean(axis=1)
        off_v = np.interp(off, x, profile).mean(axis=1)
        score = np.where(valid, on_v - off_v, -1e9)
        i = int(np.argmax(score))
        if score[i] > best[2]:
            best = (float(starts[i]), float(s), float(score[i]))
    return best


def _refine(gray: np.ndarray, quad: np.ndarray, board: str, config: LocateConfig
            ) -> Optional[Tuple[np.ndarray, float]]:
    """Fit the grid of ``board`` inside rough quad; return (corners TL,TR,BR,BL, score)."""
    S = config.rect_size
    pad = config.pad * S
    dst = np.array([[pad, pad], [pad + S, pad], [pad + S, pad + S], [pad, pad + S]], np.float32)
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    size = int(S + 2 * pad)
    rect = cv2.warpPerspective(gray, M, (size, size), flags=cv2.INTER_LINEAR)
    light = LIGHT_LINES[board]
    width, height = DIMENSIONS[board]
    lines = _line_image(rect, light, max(5, int(S / max(width, height) * 0.35) | 1)).astype(np.float64)
    # Median across the other axis: stones and hands cover some of each line, not most.
    band = slice(int(pad), int(pad + S))
    col_profile = np.median(lines[band, :], axis=0) + 0.3 * lines[band, :].mean(axis=0)
    row_profile = np.median(lines[:, band], axis=1) + 0.3 * lines[:, band].mean(axis=1)
    options = [(width, height)] if width == height else [(width, height), (height, width)]
    best = None
    for nx, ny in options:
        x0, sx, scx = _fit_axis(col_profile, nx, pad, S)
        y0, sy, scy = _fit_axis(row_profile, ny, pad, S)
        # Square cells: the spacings in the rectified view agree roughly (rough quad ~ grid).
        score = min(scx, scy) / (np.percentile(lines, 99) + 1e-6)
        if best is None or score > best[1]:
            best = ((x0, sx, nx, y0, sy, ny), score)
    (x0, sx, nx, y0, sy, ny), score = best
    rect_corners = np.array([[x0, y0], [x0 + nx * sx, y0], [x0 + nx * sx, y0 + ny * sy], [x0, y0 + ny * sy]], np.float32)
    back = cv2.perspectiveTransform(rect_corners[None], np.linalg.inv(M))[0]
    return back.astype(np.float64), float(score)


def _board_order(board: str, corners_tlbrbl: np.ndarray) -> np.ndarray:
    """Screen-clockwise TL,TR,BR,BL to board order a1,(W,0),(W,H),(0,H); a1 guessed at
    the bottom-left, turned a quarter when the 7-cell side runs vertically."""
    tl, tr, br, bl = corners_tlbrbl
    width, height = DIMENSIONS[board]
    if width != height:
        horizontal = np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)
        vertical = np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)
        if horizontal > vertical:  # 8 cells across: files run upwards from bottom-right
            return np.array([br, tr, tl, bl])
    return np.array([bl, br, tr, tl])


def locate_board(frame: np.ndarray, board: str = "auto", config: LocateConfig = LocateConfig()) -> Calibration:
    """Find the grid in a BGR frame and return a Calibration (not yet oriented).

    ``board`` is "auto", "9x9" or "7x8". Raises BoardNotFoundError when no grid fits.
    """
    if frame is None or frame.ndim != 3:
        raise BoardNotFoundError("not a colour image")
    h, w = frame.shape[:2]
    scale = config.work_width / w if w > config.work_width else 1.0
    small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    boards = ("9x9", "7x8") if board == "auto" else (board,)
    best = None
    for candidate in boards:
        for quad in _rough_quads(gray, LIGHT_LINES[candidate]):
            corners, score = quad, 0.0
            for _ in range(2):
                result = _refine(gray, corners if _ == 0 else _order_quad(corners), candidate, config)
                corners, score = result
            corners = _order_quad(corners)
            if best is None or score > best[2]:
                best = (candidate, corners, score)
    if best is None or best[2] < config.min_score:
        raise BoardNotFoundError("no board grid found in the frame")
    found, corners, score = best
    ordered = _board_order(found, corners) / scale
    return Calibration(found, (w, h), tuple(tuple(map(float, c)) for c in ordered), oriented=False)


def grid_fit(gray_top: np.ndarray, board: str, ppc: int, margin: float) -> float:
    """How well the expected lines match a rectified top view (1 = crisp, ~0 = no grid)."""
    width, height = DIMENSIONS[board]
    lines = _line_image(gray_top, LIGHT_LINES[board], max(5, int(ppc * 0.35) | 1)).astype(np.float32)
    xs = np.round((margin + np.arange(width + 1)) * ppc).astype(int)
    ys = np.round((margin + np.arange(height + 1)) * ppc).astype(int)
    xs = np.clip(xs, 0, lines.shape[1] - 1)
    ys = np.clip(ys, 0, lines.shape[0] - 1)
    inner = lines[ys[0]:ys[-1], xs[0]:xs[-1]]
    on = np.concatenate([np.median(lines[ys[0]:ys[-1], xs], axis=0), np.median(lines[ys, xs[0]:xs[-1]], axis=1)])
    off = np.median(inner)
    return float((np.median(on) - off) / (np.percentile(lines, 99) + 1e-6))

"""Reading every cell of a located board: colour, stack height, hands.

:class:`CellReader` warps the board (grid plus a half-cell margin) to a square
"rectified" image of ``pixels_per_cell`` pixels per cell, so every cell is the same
patch and all cells are read at once with array operations:

* colour: board-relative features and the Gaussian class model of :mod:`.colour`
  (the calibration's own model when it has one, else the shipped default);
* height: in board coordinates a stack's top disc is displaced away from the camera's
  nadir by ``(rho - R) * z / (H - z)`` (see :mod:`.geometry`), so the silhouette of a
  stack is longer along that direction than across it by that amount. Both lengths are
  measured on the stone-vs-board contrast profile; the height is claimed only when the
  difference sits clearly on one stone count, else it is None;
* hands: :mod:`.hands` (margin runs plus cells that fit no colour).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np

from .board import DIMENSIONS, cell_index, cell_names
from .colour import (CLASSES, calibrated_inputs, cell_features, class_means, colors_to_means,
                     means_to_colors, shipped_net)
from .geometry import CameraPose, camera_pose
from .hands import DEFAULT_HANDS, HandConfig, covered_cells, margin_runs
from .types import Calibration, CellReading, Observation


@dataclass(frozen=True)
class ReaderConfig:
    """Every threshold of the cell reader in one place."""

    pixels_per_cell: int = 32
    pad_cells: float = 0.5              # margin rectified around the grid (hand detection)
    stone_thickness: float = 0.22       # nominal, in cells; start frames calibrate it
    min_contrast: float = 10.0          # Lab distance stone-board below which no height is read
    min_step: float = 0.05              # parallax per stone (cells) below which heights blur
    height_tolerance: float = 0.28      # |measured/expected - k| accepted (calibrated)
    scale_range: Tuple[float, float] = (0.8, 1.25)  # uncalibrated thickness x camera uncertainty
    noise: float = 0.012                # parallax measurement noise, cells
    hands: HandConfig = DEFAULT_HANDS


DEFAULT_READER = ReaderConfig()
_CLOSE = np.ones((5, 5), np.uint8)


@dataclass
class Rectified:
    """One frame warped to board coordinates (see module docstring)."""

    lab: np.ndarray          # float32 Lab, L 0..100
    grad: np.ndarray         # gradient magnitude of L
    ppc: int
    pad: int

    @property
    def L(self) -> np.ndarray:
        return self.lab[..., 0]


def _rect_to_image(calibration: Calibration, ppc: int, pad: int, scale: float) -> np.ndarray:
    """Homography from rectified pixels to (scaled) image pixels."""
    S = np.array([[1.0 / ppc, 0, -pad / ppc], [0, 1.0 / ppc, -pad / ppc], [0, 0, 1]])
    D = np.diag([scale, scale, 1.0])
    return D @ calibration.homography() @ S


def rectify(frame_bgr: np.ndarray, calibration: Calibration, config: ReaderConfig = DEFAULT_READER) -> Rectified:
    """Warp the board of ``frame_bgr`` to the rectified Lab image."""
    width, height = DIMENSIONS[calibration.board]
    ppc = config.pixels_per_cell
    pad = int(round(config.pad_cells * ppc))
    corners = np.array(calibration.corners)
    image_ppc = max(np.linalg.norm(corners[1] - corners[0]) / width,
                    np.linalg.norm(corners[3] - corners[0]) / height)
    # Shrink first when the frame has many more pixels per cell than the rectified image:
    # area averaging keeps noise and JPEG blocks from aliasing into the patches.
    # (An integer factor keeps OpenCV on its fast path: 0.6 ms instead of 11 at 1280x960.)
    factor = int(image_ppc // (1.4 * ppc))
    src, scale = frame_bgr, 1.0
    if factor >= 2:
        scale = 1.0 / factor
        src = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    M = _rect_to_image(calibration, ppc, pad, scale)
    size = (width * ppc + 2 * pad, height * ppc + 2 * pad)
    warped = cv2.warpPerspective(src, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                 borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(warped.astype(np.float32) * (1.0 / 255), cv2.COLOR_BGR2LAB)
    L = lab[..., 0]
    gx = cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3)
    return Rectified(lab, cv2.magnitude(gx, gy), ppc, pad)


class CellReader:
    """Reads every cell of frames taken with one calibration.

    >>> reader = CellReader(calibration)                       # doctest: +SKIP
    >>> obs = reader.read(frame_bgr, frame_index=7)            # doctest: +SKIP
    >>> obs.cells["a1"]                                        # doctest: +SKIP
    CellReading(color='red', height=1, color_confidence=0.99..., height_confidence=0.8...)

    The colour model is the calibration's own (``calibration.colors``, written by
    :func:`calibrate_reader`) or the shipped default for the board face.
    """

    def __init__(self, calibration: Calibration, config: ReaderConfig = DEFAULT_READER):
        self.calibration = calibration
        self.config = config
        self.board = calibration.board
        self.width, self.height = DIMENSIONS[self.board]
        self.names = cell_names(self.board)
        self.means: Optional[np.ndarray] = None
        if calibration.colors is not None:
            try:
                self.means = colors_to_means(calibration.colors)
            except ValueError:
                # Colours saved by another version of the model: read with the default.
                self.means = None
        self.calibrated = self.means is not None
        self.net = shipped_net(self.board, "calibrated" if self.calibrated else "default")
        self.pose: CameraPose = camera_pose(calibration.homography(), calibration.image_size)
        self.last: Optional[Rectified] = None

    # -- colour --------------------------------------------------------------------------

    def features(self, rect: Rectified) -> np.ndarray:
        return cell_features(rect.lab, rect.grad, self.width, self.height, rect.ppc, rect.pad)

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """(cells x 3) colour probabilities, CLASSES order."""
        if self.calibrated:
            return self.net.probabilities(calibrated_inputs(X, self.means))
        return self.net.probabilities(X)

    # -- the whole frame -----------------------------------------------------------------

    def read(self, frame_bgr: np.ndarray, frame_index: int = 0) -> Observation:
        """Observation of one frame: every cell's colour and height with confidences,
        whether an arm is over the board and which cells it covers."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3:
            raise ValueError("frame must be a BGR image")
        rect = rectify(frame_bgr, self.calibration, self.config)
        self.last = rect
        X = self.features(rect)
        P = self.probabilities(X)
        best = P.argmax(axis=1)
        conf = P[np.arange(len(P)), best]
        board_ref = self._board_reference(rect)
        runs = margin_runs(rect.lab, self.width, self.height, rect.ppc, rect.pad, board_ref, self.config.hands)
        covered = covered_cells(runs, self.width, self.height, self._misfit(X)) if runs else set()
        heights = self._heights(rect, best)
        cells: Dict[str, CellReading] = {}
        for i, name in enumerate(self.names):
            colour = CLASSES[best[i]]
            h, hc = heights.get(i, (None, 0.0))
            cells[name] = CellReading(colour, h if colour != "empty" else None,
                                      float(round(conf[i], 4)), float(round(hc, 4)))
        occluded = tuple(self.names[i] for i in sorted(covered))
        return Observation(self.board, cells, bool(runs), occluded, True, frame_index)

    def _misfit(self, X: np.ndarray) -> np.ndarray:
        """Cells that look like none of empty, red and black: far outside the range of
        features the classifier was fitted on (standardised distance)."""
        Z = (X - self.net.mean[:X.shape[1]]) / self.net.std[:X.shape[1]]
        return np.abs(Z).max(axis=1) > self.config.hands.misfit

    def _board_reference(self, rect: Rectified) -> np.ndarray:
        from .colour import masks, cell_patches
        patches = cell_patches(rect.lab, self.width, self.height, rect.ppc, rect.pad)
        corners = np.median(patches[:, masks(rect.ppc)["corner"]], axis=1)
        return np.median(corners, axis=0)

    # -- heights -------------------------------------------------------------------------

    def measure_parallax(self, rect: Rectified, classes: np.ndarray,
                         only: Optional[Sequence[int]] = None) -> Dict[int, Tuple[float, float, float]]:
        """Per occupied cell: (silhouette length along minus across the nadir direction,
        distance from the nadir minus the stone radius, both in cells; stone radius).
        Cells whose stone does not stand out from the board are left out."""
        ppc, pad = rect.ppc, rect.pad
        lab = rect.lab
        nadir = np.array(self.pose.nadir)
        half = int(round(0.8 * ppc))
        out = {}
        from .colour import masks, cell_patches
        m = masks(ppc)
        patches = cell_patches(lab, self.width, self.height, ppc, pad)
        centre = np.median(patches[:, m["centre"]], axis=1)
        corners = np.median(patches[:, m["corner"]], axis=1)
        board = np.median(corners, axis=0)
        Hh, Ww = lab.shape[:2]
        todo = np.flatnonzero(classes != 0) if only is None else [i for i in only if classes[i] != 0]
        for i in todo:
            f, r = cell_index(self.names[i])
            stone = centre[i]
            v = stone - board
            norm2 = float(v @ v)
            if norm2 < self.config.min_contrast ** 2:
                continue
            cx, cy = pad + (f + 0.5) * ppc, pad + (r + 0.5) * ppc
            x0, x1 = int(cx) - half, int(cx) + half
            y0, y1 = int(cy) - half, int(cy) + half
            if x0 < 0 or y0 < 0 or x1 > Ww or y1 > Hh:
                continue
            win = lab[y0:y1, x0:x1]
            t = ((win - board) @ v) / norm2
            # The grooves between stacked stones are dark rings across the stack's side:
            # bridge them so the whole side counts (closing leaves the outline in place).
            t = cv2.morphologyEx(t.astype(np.float32), cv2.MORPH_CLOSE, _CLOSE)
            mask = (t > 0.5).astype(np.uint8)
            n, labels = cv2.connectedComponents(mask, connectivity=4)
            c = half
            lab_id = labels[c, c]
            if lab_id == 0:
                # The centre pixel is not stone: the stone sits off-centre or is faint.
                continue
            ys, xs = np.nonzero(labels == lab_id)
            gx, gy = xs.mean(), ys.mean()
            pos = np.array([x0 + gx - pad, y0 + gy - pad]) / ppc   # board coordinates
            u = pos - nadir
            rho = float(np.linalg.norm(u))
            if rho < 1e-6:
                continue
            u /= rho
            w_ = np.array([-u[1], u[0]])
            len_u = self._extent(t, gx, gy, u)
            len_w = self._extent(t, gx, gy, w_)
            if len_u is None or len_w is None:
                continue
            radius = len_w / 2 / ppc
            out[int(i)] = ((len_u - len_w) / ppc, rho - radius, radius)
        return out

    @staticmethod
    def _extent(t: np.ndarray, gx: float, gy: float, direction: np.ndarray) -> Optional[float]:
        """Length (px) of the t > 0.5 run through (gx, gy) along ``direction``."""
        h, w = t.shape
        steps = np.arange(0, min(h, w) / 2, 0.25)
        total = 0.0
        for sign in (1, -1):
            xs = gx + sign * direction[0] * steps
            ys = gy + sign * direction[1] * steps
            ok = (xs >= 0) & (xs <= w - 1.001) & (ys >= 0) & (ys <= h - 1.001)
            xs, ys = xs[ok], ys[ok]
            x0, y0 = np.floor(xs).astype(int), np.floor(ys).astype(int)
            fx, fy = xs - x0, ys - y0
            vals = (t[y0, x0] * (1 - fx) * (1 - fy) + t[y0, x0 + 1] * fx * (1 - fy)
                    + t[y0 + 1, x0] * (1 - fx) * fy + t[y0 + 1, x0 + 1] * fx * fy)
            below = np.flatnonzero(vals < 0.5)
            if len(below) == 0 or below[0] == 0:
                return None
            k = below[0]
            # Linear interpolation of the 0.5 crossing between samples k-1 and k.
            a, b = vals[k - 1], vals[k]
            frac = (a - 0.5) / max(a - b, 1e-6)
            total += (k - 1 + frac) * 0.25
        return total

    def _heights(self, rect: Rectified, classes: np.ndarray) -> Dict[int, Tuple[Optional[int], float]]:
        """Height and its confidence per occupied cell index; None where unsure."""
        cfg = self.config
        z1 = cfg.stone_thickness * self.calibration.height_scale
        H = self.pose.height
        calibrated = self.calibrated or self.calibration.height_scale != 1.0
        lo, hi = (1.0, 1.0) if calibrated else cfg.scale_range
        out: Dict[int, Tuple[Optional[int], float]] = {}
        # Only stones far enough from the nadir can show their height: skip the rest early.
        nadir = np.array(self.pose.nadir)
        worth = [i for i, name in enumerate(self.names)
                 if np.linalg.norm(np.array(cell_index(name)) + 0.5 - nadir) - 0.5
                 >= cfg.min_step * (H - z1) / z1]
        for i, (e, arm, radius) in self.measure_parallax(rect, classes, worth).items():
            if arm <= 0:
                continue
            step = arm * z1 / (H - z1)
            if step < cfg.min_step:
                continue
            m = e / step
            tol = cfg.height_tolerance + cfg.noise / step
            fits = [k for k in (1, 2, 3) if k * lo - tol <= m <= k * hi + tol
                    and abs(m - k * (lo + hi) / 2) <= k * (hi - lo) / 2 + tol]
            if len(fits) != 1:
                continue
            k = fits[0]
            miss = max(0.0, abs(m - k * (lo + hi) / 2) - k * (hi - lo) / 2)
            out[i] = (k, max(0.05, 1.0 - miss / (tol + 1e-9) * 0.9))
        return out


def calibrate_reader(frame_bgr: np.ndarray, calibration: Calibration,
                     placement: Dict[str, Tuple[str, int]],
                     config: ReaderConfig = DEFAULT_READER) -> Calibration:
    """Fit the colour model and the stack thickness to a frame showing ``placement``
    (normally the start position) and return the calibration carrying them.

    Raises ValueError when the frame does not fit the placement well enough to learn
    from (some class missing or the frame's colours contradict the layout).
    """
    base = Calibration(calibration.board, calibration.image_size, calibration.corners,
                       calibration.oriented, None, 1.0)
    reader = CellReader(base, config)
    rect = rectify(frame_bgr, base, config)
    X = reader.features(rect)
    labels = np.array([CLASSES.index(placement[n][0]) if n in placement else 0 for n in reader.names])
    # Check the layout against what the default classifier sees: a frame of another
    # position, or a mis-oriented grid, disagrees on many cells.
    seen = reader.probabilities(X).argmax(axis=1)
    agree = float((seen == labels).mean())
    if agree < 0.85:
        raise ValueError(f"frame does not show the expected layout ({100 * agree:.0f}% of cells agree)")
    means = class_means(X, labels)
    # Stone thickness from the parallax of the (single) stones of the layout.
    scale = 1.0
    heights = np.array([placement[n][1] if n in placement else 0 for n in reader.names])
    H = reader.pose.height
    zs = []
    for i, (e, arm, radius) in reader.measure_parallax(rect, labels).items():
        if heights[i] == 1 and arm > 2.0 and e > 0:
            zs.append(e * H / (arm + e))
    if len(zs) >= 5:
        scale = float(np.clip(np.median(zs) / config.stone_thickness, 0.5, 2.0))
    return Calibration(calibration.board, calibration.image_size, calibration.corners,
                       calibration.oriented, means_to_colors(means), scale)

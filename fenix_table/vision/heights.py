"""Stack heights from one overhead frame: the parallax of a stack's top disc.

In board coordinates a stack's top disc is displaced away from the camera's nadir by
``(rho - R) * z / (H - z)`` (see :mod:`.geometry`), so the silhouette of a stack is
longer along that direction than across it by that amount. Both lengths are measured on
the stone-vs-board contrast profile; the height is claimed only when the difference sits
clearly on one stone count, else it is None (unknown).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import cv2
import numpy as np

from .board import DIMENSIONS, cell_index, cell_names
from .colour import CLASSES, cell_patches, masks
from .geometry import CameraPose, camera_pose
from .types import Calibration

Heights = Dict[int, Tuple[Optional[int], float]]


@dataclass(frozen=True)
class HeightConfig:
    """Every threshold of the height reader in one place."""

    stone_thickness: float = 0.22       # nominal, in cells; start frames calibrate it
    min_contrast: float = 10.0          # Lab distance stone-board below which no height is read
    red_threshold: float = 0.35         # share of the stone's chroma that still counts as stone
    black_contrast: float = 25.0        # L units a black stone must be below the board
    min_step: float = 0.05              # parallax per stone (cells) below which heights blur
    height_tolerance: float = 0.28      # |measured/expected - k| accepted (calibrated)
    scale_range: Tuple[float, float] = (0.8, 1.25)  # uncalibrated thickness x camera uncertainty
    noise: float = 0.012                # parallax measurement noise, cells


DEFAULT_HEIGHTS = HeightConfig()
_CLOSE = np.ones((5, 5), np.uint8)


class StackHeights:
    """Reads the height of every stack of frames taken with one calibration."""

    def __init__(self, calibration: Calibration, config: HeightConfig = DEFAULT_HEIGHTS):
        self.calibration = calibration
        self.config = config
        self.width, self.height = DIMENSIONS[calibration.board]
        self.names = cell_names(calibration.board)
        self.pose: CameraPose = camera_pose(calibration.homography(), calibration.image_size)

    def measure(self, rect, classes: np.ndarray,
                only: Optional[Sequence[int]] = None) -> Dict[int, Tuple[float, float, float]]:
        """Per occupied cell: (silhouette length along minus across the nadir direction,
        distance from the nadir minus the stone radius, both in cells; stone radius).
        Cells whose stone does not stand out from the board are left out."""
        cfg = self.config
        ppc, pad = rect.ppc, rect.pad
        lab = rect.lab
        nadir = np.array(self.pose.nadir)
        half = int(round(0.8 * ppc))
        out = {}
        m = masks(ppc)
        patches = cell_patches(lab, self.width, self.height, ppc, pad)
        centre = np.median(patches[:, m["centre"]], axis=1)
        corners = np.median(patches[:, m["corner"]], axis=1)
        board = np.median(corners, axis=0)
        Hh, Ww = lab.shape[:2]
        todo = np.flatnonzero(classes != 0) if only is None else [i for i in only if classes[i] != 0]
        for i in todo:
            f, r = cell_index(self.names[i])
            v = centre[i] - board
            if classes[i] == 1:
                # Red: chroma alone, so the stack's shaded side still counts as stone and
                # the board's shadow (darker, same hue) does not.
                v = np.array([0.0, v[1], v[2]])
                thr = cfg.red_threshold
            else:
                # Black: only against a light board (dark boards hide the outline).
                if -v[0] < cfg.black_contrast:
                    continue
                thr = 0.5
            norm2 = float(v @ v)
            if norm2 < cfg.min_contrast ** 2:
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
            mask = (t > thr).astype(np.uint8)
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
            len_u = _extent(t, gx, gy, u, thr)
            len_w = _extent(t, gx, gy, w_, thr)
            if len_u is None or len_w is None:
                continue
            radius = len_w / 2 / ppc
            out[int(i)] = ((len_u - len_w) / ppc, rho - radius, radius)
        return out

    def read(self, frame_bgr: np.ndarray, rect, classes: np.ndarray) -> Heights:
        """Height and its confidence per occupied cell index; None where unsure."""
        cfg = self.config
        z1 = cfg.stone_thickness * self.calibration.height_scale
        H = self.pose.height
        calibrated = self.calibration.colors is not None or self.calibration.height_scale != 1.0
        lo, hi = (1.0, 1.0) if calibrated else cfg.scale_range
        out: Heights = {}
        # Only stones far enough from the nadir can show their height: skip the rest early.
        nadir = np.array(self.pose.nadir)
        worth = [i for i, name in enumerate(self.names)
                 if np.linalg.norm(np.array(cell_index(name)) + 0.5 - nadir) - 0.5
                 >= cfg.min_step * (H - z1) / z1]
        for i, (e, arm, radius) in self.measure(rect, classes, worth).items():
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


def _extent(t: np.ndarray, gx: float, gy: float, direction: np.ndarray, thr: float) -> Optional[float]:
    """Length (px) of the t > thr run through (gx, gy) along ``direction``."""
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
        below = np.flatnonzero(vals < thr)
        if len(below) == 0 or below[0] == 0:
            return None
        k = below[0]
        # Linear interpolation of the threshold crossing between samples k-1 and k.
        a, b = vals[k - 1], vals[k]
        frac = (a - thr) / max(a - b, 1e-6)
        total += (k - 1 + frac) * 0.25
    return total


def learn_height_scale(frame_bgr: np.ndarray, rect, calibration: Calibration,
                       placement: Dict[str, Tuple[str, int]],
                       config: HeightConfig = DEFAULT_HEIGHTS) -> float:
    """Effective stone thickness over the nominal one, from a frame showing ``placement``
    (normally the start position: single stones); 1.0 when too few stones show it."""
    reader = StackHeights(calibration, config)
    classes = np.array([CLASSES.index(placement[n][0]) if n in placement else 0 for n in reader.names])
    H = reader.pose.height
    zs = []
    for i, (e, arm, radius) in reader.measure(rect, classes).items():
        if placement[reader.names[i]][1] == 1 and arm > 2.0 and e > 0:
            zs.append(e * H / (arm + e))
    if len(zs) >= 5:
        return float(np.clip(np.median(zs) / config.stone_thickness, 0.5, 2.0))
    return 1.0

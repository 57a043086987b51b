"""The camera of a rendered frame: a pinhole with OpenCV's radial distortion.

World units are cells; the board's printed face lies in ``z = 0`` with a1's outer corner
at the origin, files along ``x``, ranks along ``y``, ``z`` up (as in
:mod:`fenix_table.board`'s board coordinates). Image positions use OpenCV's convention
(pixel ``(i, j)``'s centre is at ``(i, j)``), so a consumer can hand ``camera_matrix`` and
``dist_coeffs`` straight to ``cv2.undistortPoints`` or ``cv2.projectPoints``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Tuple

import cv2
import numpy as np


@dataclass(frozen=True)
class LensCamera:
    """``R`` rows are the camera's right, down and forward axes in world coordinates,
    ``C`` its centre; ``f`` the focal length in pixels; ``k1``, ``k2`` OpenCV's radial
    terms (distorted = undistorted * (1 + k1 r^2 + k2 r^4), r in normalised units)."""

    R: np.ndarray
    C: np.ndarray
    f: float
    size: Tuple[int, int]
    k1: float = 0.0
    k2: float = 0.0

    @property
    def matrix(self) -> np.ndarray:
        w, h = self.size
        return np.array([[self.f, 0, w / 2 - 0.5], [0, self.f, h / 2 - 0.5], [0, 0, 1.0]])

    @property
    def dist_coeffs(self) -> np.ndarray:
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    def undistorted(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) to pixel positions through a distortion-free lens."""
        cam = (np.asarray(points, float).reshape(-1, 3) - self.C) @ self.R.T
        K = self.matrix
        return np.column_stack([K[0, 0] * cam[:, 0] / cam[:, 2] + K[0, 2],
                                K[1, 1] * cam[:, 1] / cam[:, 2] + K[1, 2]])

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) to pixel positions in the final (distorted) frame."""
        pts = np.asarray(points, float).reshape(-1, 3)
        rvec, _ = cv2.Rodrigues(self.R)
        tvec = -self.R @ self.C
        out, _ = cv2.projectPoints(pts, rvec, tvec, self.matrix, self.dist_coeffs)
        return out.reshape(-1, 2)

    def depth(self, points: np.ndarray) -> np.ndarray:
        """Distance along the optical axis of world points (N, 3)."""
        return (np.asarray(points, float).reshape(-1, 3) - self.C) @ self.R[2]

    def covers_frame(self) -> bool:
        """Whether every pixel of the frame has a point of the scene behind it: a strong
        barrel term folds r (1 + k1 r^2 + k2 r^4) back before a wide frame's corners,
        and no undistorted point lands there (the source map would not converge)."""
        w, h = self.size
        corner = math.hypot(w / 2 + 0.5, h / 2 + 0.5) / self.f
        ru = np.linspace(0.0, 3.0 * corner, 3001)
        rd = ru * (1 + self.k1 * ru ** 2 + self.k2 * ru ** 4)
        falls = np.flatnonzero(np.diff(rd) <= 0)
        reach = rd[:falls[0] + 1].max() if len(falls) else rd[-1]
        return bool(reach > corner)

    def source_map(self) -> Tuple[np.ndarray, np.ndarray]:
        """For every pixel of the distorted frame, where it lies in the undistorted one
        (x and y maps for ``cv2.remap``)."""
        w, h = self.size
        K = self.matrix
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        dx, dy = (xs - K[0, 2]) / self.f, (ys - K[1, 2]) / self.f
        rd = np.hypot(dx, dy)
        ru = rd.copy()
        # Newton on rd = ru (1 + k1 ru^2 + k2 ru^4), from ru = rd.
        for _ in range(8):    # converges to 1e-9 px in 4-5 steps for these lenses
            g = ru * (1 + self.k1 * ru ** 2 + self.k2 * ru ** 4) - rd
            dg = 1 + 3 * self.k1 * ru ** 2 + 5 * self.k2 * ru ** 4
            ru = ru - g / np.maximum(dg, 1e-3)
        scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
        und = np.stack([dx * scale * self.f + K[0, 2], dy * scale * self.f + K[1, 2]], axis=-1).astype(np.float32)
        return und[..., 0], und[..., 1]


def look_down(rng: np.random.Generator, board_wh: Tuple[int, int], outline: np.ndarray,
              size: Tuple[int, int], *, tilt_max_deg: float = 20.0,
              fill: Tuple[float, float] = (0.72, 1.0), k1: Tuple[float, float] = (-0.16, 0.04)
              ) -> LensCamera:
    """A camera above the board, tilted up to ``tilt_max_deg``, turned any way, from a
    height where the board's ``outline`` (4x2 board points of its edge) fills ``fill`` of
    the short image side and stays in the frame (a few retries, then smaller)."""
    bw, bh = board_wh
    w, h = size
    for attempt in range(40):
        fov = math.radians(rng.uniform(50, 75))
        f = (w / 2) / math.tan(fov / 2)
        yaw = rng.uniform(0, 2 * math.pi)
        tilt = math.radians(rng.uniform(0, tilt_max_deg))
        tilt_dir = rng.uniform(0, 2 * math.pi)
        forward = np.array([0.0, 0.0, -1.0])
        right = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        down = np.cross(forward, right)
        # Tilt about an axis in the image plane, any direction.
        axis = math.cos(tilt_dir) * right + math.sin(tilt_dir) * down
        R = np.stack([_rotate(v, axis, tilt) for v in (right, down, forward)])
        diag = math.hypot(*(outline.max(axis=0) - outline.min(axis=0)))
        share = rng.uniform(*fill) * (0.97 ** attempt)
        dist = diag * f / (share * min(w, h))
        target = np.array([bw / 2 + rng.uniform(-0.4, 0.4), bh / 2 + rng.uniform(-0.4, 0.4), 0.0])
        cam = LensCamera(R, target - dist * R[2], f, size,
                         k1=float(rng.uniform(*k1)), k2=float(rng.uniform(-0.02, 0.04)))
        edge = cam.project(np.c_[outline, np.zeros(len(outline))])
        inside = ((edge[:, 0] > 8) & (edge[:, 0] < w - 9) & (edge[:, 1] > 8) & (edge[:, 1] < h - 9)).all()
        if inside and cam.covers_frame():
            return cam
    return cam


def _rotate(v: np.ndarray, axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    return (v * math.cos(angle) + np.cross(axis, v) * math.sin(angle)
            + axis * np.dot(axis, v) * (1 - math.cos(angle)))

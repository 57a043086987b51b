"""Camera geometry recovered from a board calibration: where the camera is, in cells.

A stack's top disc lies ``z`` above the board, so seen through the camera it lands on
the board plane further from the camera's foot point (nadir) than its base. In board
coordinates (cells) that displacement is exact for any tilt: a point at height ``z``
over board point ``p`` is seen where the ray from the camera centre ``C`` through it
meets the plane, ``n + (p - n) * C_z / (C_z - z)`` with ``n`` the nadir. Heights are
read from that parallax, so the reader needs ``C`` in board coordinates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Tuple

import numpy as np

# Field of view assumed when the homography cannot reveal the focal length (a camera
# looking straight down): the Raspberry Pi camera v2's 62 degrees horizontal.
NOMINAL_FOV_DEG = 62.0


@dataclass(frozen=True)
class CameraPose:
    """Camera centre over the board: ``nadir`` (x, y) in cells and ``height`` in cells;
    ``focal`` in pixels and whether it was measured (tilted view) or assumed."""

    nadir: Tuple[float, float]
    height: float
    focal: float
    focal_measured: bool


def _focal_from_homography(A: np.ndarray) -> float:
    """Focal length (px) from a homography with the principal point removed, or nan when
    the view is too close to straight down for the constraint to say anything."""
    a1, a2 = A[:, 0], A[:, 1]
    estimates = []
    den = a1[2] * a2[2]
    if abs(den) > 1e-12:
        f2 = -(a1[0] * a2[0] + a1[1] * a2[1]) / den
        weight = abs(den)
        estimates.append((f2, weight))
    den = a2[2] ** 2 - a1[2] ** 2
    if abs(den) > 1e-12:
        f2 = (a1[0] ** 2 + a1[1] ** 2 - a2[0] ** 2 - a2[1] ** 2) / den
        estimates.append((f2, abs(den)))
    good = [(f2, w) for f2, w in estimates if f2 > 0]
    if not good:
        return float("nan")
    f2, _ = max(good, key=lambda t: t[1])
    return math.sqrt(f2)


def camera_pose(homography: np.ndarray, image_size: Tuple[int, int],
                fov_range: Tuple[float, float] = (35.0, 110.0)) -> CameraPose:
    """Camera centre in board coordinates from the board->image ``homography``.

    The principal point is taken at the image centre. The focal length comes from the
    homography when the camera is tilted enough to show it and the result gives a field
    of view within ``fov_range`` degrees, else from :data:`NOMINAL_FOV_DEG`.
    """
    w, h = image_size
    T = np.array([[1.0, 0, w / 2], [0, 1.0, h / 2], [0, 0, 1.0]])
    A = np.linalg.inv(T) @ np.asarray(homography, float)
    nominal = 0.5 * w / math.tan(math.radians(NOMINAL_FOV_DEG) / 2)
    f = _focal_from_homography(A)
    measured = False
    if math.isfinite(f):
        fov = 2 * math.degrees(math.atan(0.5 * w / f))
        # The constraint is only trustworthy with real tilt: check it moved f noticeably
        # away from degenerate values by requiring a plausible field of view.
        tilt = math.hypot(A[2, 0], A[2, 1]) * f / max(np.linalg.norm(A[:2, 0]), 1e-9)
        if fov_range[0] <= fov <= fov_range[1] and tilt > 0.06:
            measured = True
    if not measured:
        f = nominal
    Kinv = np.diag([1 / f, 1 / f, 1.0])
    B = Kinv @ A
    lam = 2.0 / (np.linalg.norm(B[:, 0]) + np.linalg.norm(B[:, 1]))
    r1, r2, t = B[:, 0] * lam, B[:, 1] * lam, B[:, 2] * lam
    r1 /= np.linalg.norm(r1)
    r2 = r2 - r1 * (r1 @ r2)
    r2 /= np.linalg.norm(r2)
    r3 = np.cross(r1, r2)
    R = np.column_stack([r1, r2, r3])
    C = -R.T @ t
    if C[2] < 0:
        # The other sign of the projective scale: the camera must be above the board.
        R = np.column_stack([-r1, -r2, r3])
        C = -R.T @ (-t)
    return CameraPose((float(C[0]), float(C[1])), float(abs(C[2])), float(f), measured)

"""Stack heights from one overhead frame: the parallax of a stack's top disc.

A stack of ``k`` stones of thickness ``t`` seen from a camera ``H`` cells above the board
shows its top disc displaced, in board coordinates, away from the camera's nadir by
``s_k = rho * k t / (H - k t)`` (``rho``: the base's distance from the nadir; see
:mod:`.geometry`). Its silhouette is therefore a capsule: the base disc's near half,
the top disc's far half, and the stack's side between them. :class:`StackHeights`

* samples the frame itself (not the coarse rectified image) along rays from each
  stack's cell centre, through the calibration's homography;
* finds the silhouette's edge on every ray: a pixel is stone when its colour is nearer
  the stone's colour at some brightness than the board's (so the stack's shaded side
  counts as stone and a shadow on the board does not);
* fits the capsule (base centre, radius, shift along the nadir direction) to the edge
  points, and claims ``k`` only when the shift, give or take its standard error and
  the offset of a stone stacked by hand (a stack's top sits a little off its base
  whatever the camera), fits the parallax of exactly one stone count; stacks near the
  nadir, black stones on the dark board, faint outlines and poor fits stay None
  (unknown). With a camera 15-20 cells up few stacks show enough parallax: heights
  are mostly unknown, rarely wrong.

Stone thicknesses vary between sets and a located grid tells the camera's height only
roughly, so a range of thicknesses is allowed; within it, each frame's stacks pick the
one that puts their shifts on whole stone counts (the most common count is one stone).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import cv2
import numpy as np

from ..board import cell_index, cell_names
from .colour import CLASSES, sample_median
from .geometry import CameraPose, camera_pose
from .types import Calibration

Heights = Dict[int, Tuple[Optional[int], float]]


@dataclass(frozen=True)
class HeightConfig:
    """Every threshold of the height reader in one place (lengths in cells)."""

    stone_thickness: float = 0.22       # nominal, cells
    scale_range: Tuple[float, float] = (0.8, 1.3)  # thickness (and camera height) over nominal
    # Horizontal field of view believed from a homography, degrees: a few pixels off in a
    # located grid's corners can halve it, and the camera height it gives scales every
    # parallax; outside this range the nominal one is used.
    fov_range: Tuple[float, float] = (50.0, 80.0)
    rays: int = 48                      # edge rays per stack
    reach: float = 0.8                  # ray length from the cell centre
    samples: int = 48                   # samples per ray
    min_contrast: float = 30.0          # stone-board colour distance (RGB 0..255) needed
    dimmest_side: float = 0.3           # a red stack's side: at least this share of its top
    dimmest_shadow: float = 0.3         # a shadow: at least this share of the lit board
    brightest: float = 1.6              # glare and light gradients: up to this share
    black_contrast: float = 40.0        # grey levels a black stone must be below the board
    min_step: float = 0.04              # parallax of one stone below which heights blur
    min_step_px: float = 2.5            # ... and in image pixels (small or far-off frames)
    max_rms: float = 0.025              # capsule fit residual above which nothing is claimed
    sigmas: float = 4.5                 # a shift may be off by this many standard errors
    slack: float = 0.2                  # ... plus this share of one stone's parallax
    misalign: float = 0.015             # ... plus this (cells): stones stacked by hand sit off-centre
    floor: float = 0.3                  # one stone: the shift must reach this share of it
    min_frame: int = 10                 # stacks that must show the frame's thickness
    frame_slack: float = 0.3            # their shifts' tolerance: share of one stone's parallax
    frame_band: float = 1.1             # the frame's thickness, give or take this factor
    min_points: int = 20                # edge points the fit needs
    min_arc: int = 5                    # of them on the near arc, the far arc, each side
    gap: float = 0.035                  # a ray has left the stone after this much board


DEFAULT_HEIGHTS = HeightConfig()


class StackHeights:
    """Reads the height of every stack of frames taken with one calibration."""

    def __init__(self, calibration: Calibration, config: HeightConfig = DEFAULT_HEIGHTS):
        self.config = config
        self.names = cell_names(calibration.board)
        self.homography = calibration.homography()
        self.pose: CameraPose = camera_pose(self.homography, calibration.image_size, config.fov_range)
        self.centres = np.array([cell_index(n) for n in self.names], float) + 0.5
        cfg = config
        ang = np.linspace(0, 2 * np.pi, cfg.rays, endpoint=False)
        self.dirs = np.column_stack([np.cos(ang), np.sin(ang)])
        # Samples from the centre (the top disc's colour) out to ``reach`` (the board's).
        self.radii = np.linspace(0, cfg.reach, cfg.samples)
        pts = (self.centres[:, None, None, :]
               + self.dirs[None, :, None, :] * self.radii[None, None, :, None])
        img = calibration.to_image(pts.reshape(-1, 2))      # through the lens (k1) too
        img = img.astype(np.float32).reshape(len(self.names), cfg.rays * cfg.samples, 2)
        # As OpenCV's fixed-point remap tables (faster to sample with), a row per cell:
        # remap's cost is much per row, and rows of one ray each took twice as long.
        self.sample_xy, self.sample_frac = cv2.convertMaps(img[..., 0], img[..., 1], cv2.CV_16SC2)
        # Image pixels per cell at each cell: what a parallax in cells is worth in pixels.
        ends = calibration.to_image(self.centres + [0.5, 0.0])
        starts = calibration.to_image(self.centres - [0.5, 0.0])
        self.pixels_per_cell = np.linalg.norm(ends - starts, axis=1)
        # Only stacks far enough from the nadir show their height: the cells worth
        # measuring, the same for every frame of this calibration.
        rho = np.linalg.norm(self.centres - np.array(self.pose.nadir), axis=1)
        step = self.shifts(rho, self.thickness_range()[0])[:, 0]
        self.shows_height = (step >= cfg.min_step) & (step * self.pixels_per_cell >= cfg.min_step_px)

    def thickness_range(self) -> Tuple[float, float]:
        """Stone thicknesses (cells) a frame may show: the nominal one times
        ``scale_range`` (sets differ, and a located grid's camera height is approximate)."""
        lo, hi = self.config.scale_range
        return self.config.stone_thickness * lo, self.config.stone_thickness * hi

    def shifts(self, rho: np.ndarray, z) -> np.ndarray:
        """Parallax of stacks of 1..3 stones of thickness ``z`` (a number, or an array
        broadcasting against ``rho``) at nadir distances ``rho``: shape (..., 3)."""
        H = self.pose.height
        kz = np.arange(1, 4) * np.asarray(z, float)[..., None]
        return np.asarray(rho, float)[..., None] * kz / (H - kz)

    def measure(self, frame_bgr: np.ndarray, classes: np.ndarray, todo: np.ndarray
                ) -> Dict[int, Tuple[float, float, float, float]]:
        """Per stack in ``todo`` (cell indices, ``classes`` in :data:`.colour.CLASSES`
        order) whose outline can be fitted: (shift of the top disc along the nadir
        direction, base distance from the nadir, fit residual, the shift's standard
        error), all in cells."""
        cfg = self.config
        if len(todo) == 0:
            return {}
        S, A, N = len(todo), cfg.rays, cfg.samples
        bgr = cv2.remap(frame_bgr, self.sample_xy[todo], self.sample_frac[todo], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        px = bgr.reshape(S, A, N, 3)
        stone = sample_median(px[:, :, : N // 8].reshape(S, -1, 3).astype(np.float32))   # (S, 3)
        board = sample_median(px[:, :, -3:].reshape(S, -1, 3).astype(np.float32))
        red = classes[todo] == CLASSES.index("red")
        ok = np.linalg.norm(stone - board, axis=1) >= cfg.min_contrast
        # Black stones on a dark board: colours too close to tell the outline (and not
        # worth tracing further).
        ok &= red | (board.sum(axis=1) - stone.sum(axis=1) >= 3 * cfg.black_contrast)
        if not ok.any():
            return {}
        if not ok.all():
            todo, stone, board, red, px = todo[ok], stone[ok], board[ok], red[ok], px[ok]
        px = px.astype(np.float32)
        S = len(todo)
        nadir = np.array(self.pose.nadir)
        P = self.centres[todo]                                   # (S, 2)
        # A surface keeps its colour's direction however brightly it is lit: the stack's
        # shaded side is the stone's colour dimmed, a shadow is the board's colour dimmed.
        # So a pixel is stone when it is nearer the segment of dimmed stone colours than
        # that of dimmed board colours. A red stone's side is never nearly black, and a
        # black stone's colour segment starts at black.
        flat = px.reshape(S, A * N, 3)
        # Pixels are whole grey levels: their squares' sums are exact in float32 in any
        # order, and a matrix product is numpy's fastest sum of three channels.
        x2 = np.matmul(flat * flat, np.ones(3, np.float32)).astype(np.float64)
        t = (_segment_distance(flat, x2, board, np.full(S, cfg.dimmest_shadow), cfg.brightest)
             - _segment_distance(flat, x2, stone, np.where(red, cfg.dimmest_side, 0.0), cfg.brightest))
        t = t.reshape(S, A, N)
        inside = t > 0                                           # the edge: t crosses 0
        # The edge: the last inside sample before the ray leaves the stone for good (a
        # run of ``gap`` outside samples; grooves and glare make short dips inside).
        dr = self.radii[1] - self.radii[0]
        gap = max(2, int(round(cfg.gap / dr)))
        out_run = ~inside[:, :, : N - gap + 1]
        for g in range(1, gap):
            out_run = out_run & ~inside[:, :, g: N - gap + 1 + g]
        leave = np.argmax(out_run, axis=2)                       # first sample outside
        valid = out_run.any(axis=2) & (leave >= 2) & inside[:, :, 0]
        j = np.clip(leave, 1, N - 1)
        ta = np.take_along_axis(t, (j - 1)[..., None], axis=2)[..., 0]
        tb = np.take_along_axis(t, j[..., None], axis=2)[..., 0]
        frac = np.clip(ta / np.maximum(ta - tb, 1e-6), 0, 1)
        dist = (j - 1 + frac) * dr                                                   # (S, A)
        edges = P[:, None, :] + self.dirs[None] * dist[..., None]                  # (S, A, 2)
        u = P - nadir
        u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
        c0, R, shift, rms, sigma, good = _fit_capsules(edges, valid, P, u, cfg)
        rho = np.linalg.norm(c0 - nadir, axis=1)
        return {int(todo[i]): (float(shift[i]), float(rho[i]), float(rms[i]), float(sigma[i]))
                for i in np.flatnonzero(good)}

    def read(self, frame_bgr: np.ndarray, classes: np.ndarray) -> Heights:
        """Height and its confidence per cell index whose stack shows it (``classes``: the
        cells' colours, :data:`.colour.CLASSES` indices); cells left out are unknown."""
        todo = np.flatnonzero((classes != 0) & self.shows_height)
        return self.claims(self.measure(frame_bgr, classes, todo))

    def claims(self, measured: Dict[int, Tuple[float, float, float, float]]) -> Heights:
        """Heights from :meth:`measure`'s shifts. All stacks of a frame share one stone
        thickness (and one camera height, which a located grid only roughly tells): the
        thickness that puts the most shifts on whole stone counts is the frame's, when
        enough stacks show it; each stack is then claimed against that thickness: k
        when its shift, give or take its error, fits the parallax of k stones only."""
        cfg = self.config
        if not measured:
            return {}
        cells = np.array(list(measured), int)
        shift, rho, rms, sigma = np.array(list(measured.values()), float).T
        z_lo, z_hi = self.thickness_range()
        good = rms <= cfg.max_rms
        if good.sum() >= cfg.min_frame:
            zs = np.linspace(z_lo, z_hi, 61)
            # (thicknesses, stacks, counts) parallax; each stack's miss in standard errors.
            pred = self.shifts(rho[good][None, :], zs[:, None])
            tol = sigma[good] + cfg.frame_slack * pred[:, :, 0] + 0.5 * cfg.misalign
            miss = np.min(np.abs(pred - shift[good][None, :, None]), axis=2) / tol
            score = np.exp(-0.5 * miss ** 2).sum(axis=1)
            # Ties go to the thickest: fewer stones per stack is the simpler reading.
            best = zs[len(zs) - 1 - int(np.argmax(score[::-1]))]
            z_lo, z_hi = max(z_lo, best / cfg.frame_band), min(z_hi, best * cfg.frame_band)
        s_lo, s_hi = self.shifts(rho, z_lo), self.shifts(rho, z_hi)          # (stacks, 3)
        # What each shift may truly be, and which counts' parallax ranges that reaches.
        spread = cfg.sigmas * sigma + cfg.slack * s_lo[:, 0] + cfg.misalign
        lo, hi = shift - spread, shift + spread
        fits = (lo[:, None] <= s_hi) & (hi[:, None] >= s_lo)
        k = np.argmax(fits, axis=1)
        claimed = (good & (s_lo[:, 0] >= cfg.min_step) & (fits.sum(axis=1) == 1)
                   & ~((k == 0) & (lo < cfg.floor * s_lo[:, 0])))
        # Surer when the shift itself, not only its error bar, lies in k's range.
        rows = np.arange(len(k))
        inside = (s_lo[rows, k] <= shift) & (shift <= s_hi[rows, k])
        return {int(cells[i]): (int(k[i]) + 1, 0.95 if inside[i] else 0.75) for i in np.flatnonzero(claimed)}


def _segment_distance(px: np.ndarray, x2: np.ndarray, colour: np.ndarray, lo: np.ndarray,
                      hi: float) -> np.ndarray:
    """Distance of every pixel ``px`` (S, P, 3; ``x2`` its squared length, float64) to
    the colours ``a * colour[s]`` of its stack, ``lo[s] <= a <= hi``."""
    colour = colour.astype(np.float32)
    c2 = np.maximum((colour * colour).sum(axis=1), 1e-6)[:, None]
    xc = np.matmul(px, colour[:, :, None])[..., 0]
    a = np.maximum(xc / c2, lo[:, None])                 # float64 from here on
    np.minimum(a, hi, out=a)
    # x2 - 2 a xc + a^2 c2, the terms in that order, in place (a frame's pixels are
    # many: fresh arrays for each step cost more than the arithmetic).
    d = 2 * a
    d *= xc
    np.subtract(x2, d, out=d)
    a *= a
    a *= c2
    d += a
    np.maximum(d, 0.0, out=d)
    return np.sqrt(d, out=d)


def _fit_capsules(q: np.ndarray, valid: np.ndarray, p: np.ndarray, u: np.ndarray,
                  cfg: HeightConfig):
    """Fit every stack's outline to its edge points ``q`` (S, A, 2; board coordinates;
    ``valid`` marks the real ones): base disc centre ``c0``, radius ``R`` and top-disc
    shift ``s`` along ``u`` (away from the nadir); Gauss-Newton on the capsule's distance
    function, all stacks at once. Returns c0, R, s, rms residual, standard error of s,
    and which stacks' points can tell s.

    Points and directions are held as x and y planes, (2, S, A): the arrays are small,
    so numpy's cost is per call, and one call does both coordinates."""
    S = len(q)
    qxy = np.ascontiguousarray(q.transpose(2, 0, 1))
    uxy = np.ascontiguousarray(u.T)[:, :, None]
    c = p.T.astype(float)
    R, s = np.full(S, 0.4), np.zeros(S)
    keep = valid.copy()
    eye = 1e-9 * np.eye(4)
    J = np.empty(q.shape[:2] + (4,))
    J[..., 2] = -1.0
    J_centre = J[..., :2].transpose(2, 0, 1)                 # the centre's columns, as planes

    def from_axis():
        """Each point's offset from the base centre, its reach along u, and its offset
        from the closest point of the segment c0 .. c0 + s u."""
        d = qxy - c[:, :, None]
        du = d * uxy
        a = du[0] + du[1]
        t = np.minimum(np.maximum(a, 0.0), s[:, None])        # np.clip's arithmetic, less overhead
        return d, a, d - t * uxy

    def length(v):
        v2 = v * v
        return np.sqrt(v2[0] + v2[1])

    for it in range(6):
        d, a, rel = from_axis()
        n = length(rel)
        normal = rel / np.maximum(n, 1e-9)
        r = n - R[:, None]
        if it == 3:
            # Drop points far off the outline (a neighbour, a shadow, glare), then refit.
            ranked = np.sort(np.where(valid, np.abs(r), np.inf), axis=1)
            middle = np.maximum(valid.sum(axis=1) - 1, 0) // 2
            typical = np.minimum(ranked[np.arange(S), middle], 1.0)
            keep = valid & (np.abs(r) < np.maximum(3.0 * typical, 0.015)[:, None])
        np.negative(normal, out=J_centre)
        nu = normal * uxy
        J[..., 3] = np.where(a >= s[:, None], -(nu[0] + nu[1]), 0.0)
        Jw = (J * keep[..., None]).transpose(0, 2, 1)
        JTJ = np.matmul(Jw, J) + eye
        delta = np.linalg.solve(JTJ, np.matmul(Jw, -r[..., None]))[..., 0]
        c += delta[:, :2].T
        R += delta[:, 2]
        s = np.maximum(s + delta[:, 3], 0.0)
    d, a, rel = from_axis()
    r = length(rel) - R[:, None]
    count = keep.sum(axis=1)
    rms = np.sqrt((r * r * keep).sum(axis=1) / np.maximum(count, 1))
    # Standard error of the shift from the fit's (last) normal equations.
    sigma = rms * np.sqrt(np.abs(np.linalg.inv(JTJ)[:, 3, 3]))
    # The shift is only pinned down by the base's near arc, the top's far arc and the
    # sides together (a neighbour of the same colour hides whatever it touches).
    mid = d - 0.5 * s[:, None] * uxy
    mu = mid * uxy
    cos = (mu[0] + mu[1]) / np.maximum(length(mid), 1e-9)
    arcs = np.minimum(np.minimum(((cos < -0.7) & keep).sum(axis=1), ((cos > 0.7) & keep).sum(axis=1)),
                      ((np.abs(cos) < 0.5) & keep).sum(axis=1))
    good = (count >= cfg.min_points) & (arcs >= cfg.min_arc) & (R > 0.25) & (R < 0.55)
    return c.T.copy(), R, s, rms, sigma, good

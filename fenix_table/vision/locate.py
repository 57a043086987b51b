"""Finding the grid: which face is up, where its corners are, and which corner is a1.

The two faces differ in line polarity (9x9: light lines on a dark board; 7x8: dark lines
on a light board), so each polarity gets its own line image: a morphological top-hat
(or black-hat) keeps thin lines and drops stones, hands, shadows and the table, which are
all wider than the kernel. Then, per polarity:

1. Hough lines on that image fall into two families (the grid's two directions; with
   perspective each family fans out a little towards its vanishing point). A table's
   pattern can add a third direction: the two best pairs of directions are kept. When
   no grid is found, the search runs once more without short ridge pieces: a fine check
   turned to the board leaves rows of them along both of the board's directions; and,
   when nothing else finds one, with narrower families and without the lines that run
   on to the frame's edge (:func:`_cleared_of_table`): a table's lines a few degrees off
   the board's crowd its families, and a tiled table's strong grout outvotes its lines;
   then without the ridges of a fine stripe or check all round the board
   (:func:`_cleared_of_texture`); last, inside the board's outline, its paper seen as
   one solid shape (:func:`_outline_grids`). Before those, a frame with no grid is searched at
   twice the size, or with a narrower top-hat when it has no more pixels; a frame that
   has them is searched with that top-hat after the table's lines are cleared (thin
   lines among crowded stones in a dim room). Every search after the first grids
   found is one the frame would reach with no grid found by the ones before.
2. Each family is sorted across its direction; pairs of lines become candidate outer
   lines for 7, 8 or 9 cells, allowing up to two outer lines lost under stones or a hand.
   A 1-D check (are the lines in between where even spacing puts them?) keeps the best few.
   A family crowded by a table's lines along it (wood grain, stripes) is tried again
   with only the lines that lie within the other family's outer lines
   (:func:`_within_grid`).
3. Every surviving pair of pairs gives four corners, hence a homography; each is scored
   against the whole expected line pattern (:func:`grid_fit`): response on the predicted
   lines against response just beside them (inside them only for the outer lines, as a
   printed border line may run just outside), minus any line found in the board's margin
   (which is what a grid shifted or miscounted by one cell would show).
4. The winner is refined: along every predicted line the true line is searched across it,
   lines are refitted, and the homography is recomputed from their intersections.
5. It must sit on a board (:func:`extent_measures`; a grid refused for its margin alone
   is checked again at twice the size, where a border line close to the outer line
   does not blur into it); and where the same grid a cell over fits the lines about as
   well and sits on a board too, the one with board margin beyond the outer line the
   other lacks is taken (:func:`_margins_moved`): beyond the other's lies the table,
   past the board's edge or a stripe of a cloth.

The face is the polarity (and, for 7x8, the axis assignment) whose pattern fits best.
The face whose best candidate shows its line polarity at more crossings is searched
first, and a crisp grid there ends the search; within a face, a candidate that is the
same grid as one already looked at (a line found twice) is not looked at again.
Orientation comes from the stones when the frame shows the start position (Red's camp
triangle at a1); otherwise a1 is a guess and ``oriented`` is False.
"""
from __future__ import annotations

import bisect
import functools
import math
import warnings
from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np

from ..errors import BoardNotFoundError
from ..board import (SIZES, black_camp, cell_index, cell_name, cell_names, check_size, dimensions,
                     light_lines, red_camp, turned, turns_allowed)
from .colour import colour_at, colour_plane
from .types import MAX_K1, Calibration, distort_points, undistort_points


@dataclass(frozen=True)
class LocateConfig:
    """Every threshold of the locator in one place."""

    work_size: int = 640             # longer image side at which the board is searched
    kernel: int = 9                  # top-hat size at work_size: wider than lines, narrower than stones
    narrow_kernel: int = 5           # ... when that finds nothing: thin lines among crowded stones
    max_lines: int = 120             # Hough lines kept per polarity
    fine_pattern_run: float = 0.03   # when nothing is found: ridge pieces shorter than this share of
                                     # the shorter side are left out (a fine check's pieces)
    family_spread_deg: float = 12.0  # how far lines of one family may fan out
    narrow_spread_deg: float = 5.0   # ... when no grid is found: a table's lines a few degrees off
                                     # the board's fall into a family of their own,
    table_reach: float = 0.08        # ... and lines that show along this share of the shorter side
                                     # from where they leave the frame are the table's,
    table_gap: int = 6               # ... cleared from the frame's edge to their first gap of more
                                     # than this many pixels
    pairs_per_family: int = 6        # 1-D candidates kept per family and cell count
    ranked: int = 16                 # candidates scored in full after a coarse ranking of all
    min_fit: float = 0.22            # grid_fit from here on: a board
    hold_fit: float = 0.3            # a grid fitting less does not end the search: the searches that
                                     # look further get their turn, and one that fits better wins
    weak_fit: float = 0.12           # ... or from here on, if the crossings agree:
    crossing_agreement: float = 0.85 # share of line crossings showing the face's polarity,
    weak_line: float = 0.4           # ... and every line shows along this share at least
    weak_onward: float = 0.25        # ... and no more than this share of one side's lines goes on
    min_agreement: float = 0.7       # ... below this share the face is in doubt: no board
    sure_fit: float = 0.45           # grid_fit above this: do not try the other face
    clear_face: float = 0.85         # ... which goes first unless the first face's best candidate
                                     # shows its line polarity at fewer crossings than this
                                     # and the other face's shows it at more
    same_grid: float = 0.1           # candidates whose corners lie within this share of a cell: one grid
    closer_look: float = 0.42        # grid_fit below this at the work size: search at twice the size too,
    closer_margin: float = 2.5       # ... in the frame this many cells round the first grid
    second_look_fit: float = 0.40    # a grid only the search at twice the size finds fits this well
                                     # there at least (a board's lines are crisp there; a tiled table's
                                     # grout, refused at the work size, fits loosely)
    min_line: float = 0.3            # a board: its least visible line shows along this share at least
                                     # near the crossings (its median line halfway between them),
    close_line: float = 0.28         # ... (this share at twice the size, for a grid from a last search or
                                     # a closer look: a thin line shows less there beside stones)
    min_ring: float = 0.3            # ... this share of each outer row of cells or its margin is bare board,
    min_margin: float = 0.15         # ... and of the margin strip beyond each outer line,
    max_beyond: float = 0.25         # ... and a cell's move gains no more than this share of a line,
    min_across: float = 0.25         # ... and each outer row of cells shows this share of the lines across it,
    max_onward: float = 0.5          # ... and no more than this share of one side's lines goes on into the margin
    beside_line: float = 0.5         # a grid whose every line shows along this share and
    beside_onward: float = 0.2       # ... no more than this share of one side's lines goes on: its ring and
                                     # margin may be judged against the outer cells beside the margin
                                     # (under a low spot the stones' long shadows hide up to half of
                                     # a line beyond the spot's edge)
    ends_line: float = 0.75          # a grid whose every line shows along this share (and halfway),
    ends_across: float = 0.75        # ... whose outer rows show this share of the lines across them,
    ends_onward: float = 0.1         # ... and no more than this share of whose lines goes on into
    ends_beyond: float = 0.1         # ... the margin, nor gains this share a cell beyond: its lines end
                                     # at its outer lines, and its margin need not look like bare board
                                     # (beyond a low spot's pool the margin is dark, a band of border
                                     # lines may fill it)
    clearly_better: float = 0.05     # grid_fit gained by a cell's move that makes a grid on a board move
    ends_gain: float = 0.5           # of two grids of a face fitting within near_tie, the one whose outer
                                     # rows show this share more of the lines across them, less the share
                                     # of its lines going on past its outer lines, is taken
    near_tie: float = 0.1            # a grid moved a cell that fits within this of the grid's grid_fit ...
    margin_gain: float = 0.3         # ... and shows this much more board-like margin on its own side: moves
    swap_line: float = 0.2           # a 7x8 grid turns its axes round when its weakest line gains this share
    across_gain: float = 0.25        # ... or, as strong and fitting nearly as well, when its outer rows show
                                     # this share more of the lines across them
    min_k1: float = 0.005            # lens distortion weaker than this is left out (k1 = 0)
    straighter: float = 0.6          # ... and so is one that leaves the lines this crooked or more
    texture_window: int = 15         # a fine pattern: in a square this many work pixels wide,
    texture_density: float = 0.14    # ... more than this share of ridge pixels,
    texture_least: float = 0.2       # ... over this share of the frame at least
    outline_size: int = 160          # a last search, by the board's outline: colour regions found at this size,
    outline_least: float = 0.04      # ... covering this share of the frame at least
    outline_most: float = 0.8        # ... and this share at most,
    outline_solid: float = 0.6       # ... and this share of their convex hull;
    outline_view: int = 160          # ... the line image seen square-on through the outline at this size,
    outline_span: float = 0.55       # ... where the grid spans this share of the outline at least
    orient_margin: float = 10.0      # Lab a* units between Red's and Black's camps


DEFAULT = LocateConfig()


# ---------------------------------------------------------------------------------------
# Line images and the grid score


def line_image(gray: np.ndarray, light_lines: bool, kernel: int) -> np.ndarray:
    """Thin-line response (float32): top-hat for light lines, black-hat for dark ones."""
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel, kernel))
    op = cv2.MORPH_TOPHAT if light_lines else cv2.MORPH_BLACKHAT
    return cv2.morphologyEx(gray, op, k).astype(np.float32)


def _board_homography(board_corners: np.ndarray, image_corners: np.ndarray) -> np.ndarray:
    return cv2.getPerspectiveTransform(board_corners.astype(np.float32), image_corners.astype(np.float32))


def _project(Hm: np.ndarray, pts: np.ndarray, lens: Optional[Callable] = None) -> np.ndarray:
    """Board points (N, 2) through ``Hm``, then through ``lens`` (distortion-free image
    points to the image's own, see :class:`Calibration`) when there is one."""
    pts = np.asarray(pts, float)
    # (Row by row of the homography: a matrix product with an inner size of two costs
    # several times as much.)
    x, y = pts[:, 0], pts[:, 1]
    (a, b, c), (d, e, f), (g, h, k) = np.asarray(Hm, float).tolist()
    z = g * x + h * y + k
    z[np.abs(z) < 1e-9] = 1e-9
    out = np.empty((len(pts), 2))
    np.divide(a * x + b * y + c, z, out=out[:, 0])
    np.divide(d * x + e * y + f, z, out=out[:, 1])
    return out if lens is None else lens(out)


class _Pattern:
    """Board-coordinate sample points of one face's lines (and the margin lines beyond)."""

    def __init__(self, width: int, height: int, per_cell: int = 8, beside: float = 0.3):
        self.width, self.height = width, height
        count = per_cell * max(width, height)   # same count on every line keeps arrays square
        on, off, line_id = [], [], []
        # Lines -1 .. n+1 in each family; -1 and n+1 lie in the board margin.
        lid = 0
        for fam, (n, span) in enumerate(((width, height), (height, width))):
            t = (np.arange(count) + 0.5) / count * span
            for i in range(-1, n + 2):
                for side in (0.0, -beside, beside):
                    x = np.full_like(t, i + side)
                    pts = np.column_stack([x, t]) if fam == 0 else np.column_stack([t, x])
                    (on if side == 0 else off).append(pts)
                    if side == 0:
                        line_id.append(np.full(len(t), lid))
                lid += 1
        self.on = np.vstack(on)
        self.off = np.vstack(off)
        self.line_id = np.concatenate(line_id)
        self.lines = lid
        # Which line ids are margin lines.
        self.margin = np.array([0, width + 2, width + 3, width + height + 5])
        # The inner side of each outer line (0: towards lower, 1: higher coordinates);
        # -1 for every other line.
        self.inner = np.full(lid, -1)
        self.inner[[1, width + 4]] = 1
        self.inner[[width + 1, width + height + 4]] = 0
        self.samples = len(self.on) // lid


_PATTERNS: Dict[Tuple[int, int, int], _Pattern] = {}


def _pattern(width: int, height: int, per_cell: int = 8) -> _Pattern:
    if (width, height, per_cell) not in _PATTERNS:
        _PATTERNS[(width, height, per_cell)] = _Pattern(width, height, per_cell)
    return _PATTERNS[(width, height, per_cell)]


def _sample(img: np.ndarray, pts: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Nearest-pixel samples of a (contiguous) image at (N, 2) points, 0 outside it; and
    which fell inside it."""
    h, w = img.shape
    # (The pixel's index worked out in floats, whole and exact here, and cast once: a
    # cast of every point to integers costs several times the rest.)
    at = np.rint(pts)
    x, y = at[:, 0], at[:, 1]
    ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    index = y * w
    index += x
    index[~ok] = 0
    vals = img.ravel().take(index.astype(np.intp))
    vals[~ok] = 0
    return vals, ok


def _shows(on: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Where a line shows: its response ``on`` in the line image clearly above ``off``,
    the response beside it (False where either is NaN)."""
    return on > 1.5 * off + 2.0


def _shows_at(dil: np.ndarray, pts: np.ndarray, away: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Whether a line shows in the line image ``dil`` at ``pts`` (..., 2), against the
    quieter of its two sides ``away`` (offsets, broadcast to ``pts``) off; and its
    response there."""
    on, ok = _sample(dil, pts.reshape(-1, 2))
    off = np.minimum(_sample(dil, (pts + away).reshape(-1, 2))[0], _sample(dil, (pts - away).reshape(-1, 2))[0])
    return (_shows(on, off) & ok).reshape(pts.shape[:-1]), on.reshape(pts.shape[:-1])


def _score(lines_dil: np.ndarray, Hm: np.ndarray, width: int, height: int,
           lens: Optional[Callable] = None, per_cell: int = 8) -> float:
    """Grid evidence of homography ``Hm`` (board cells -> work pixels; then ``lens``, see
    :func:`_project`) for a width x height grid: on-line against beside-line response over
    the grid lines (the outer lines against the board inside them only: a printed border
    line may run just outside), minus the strongest margin line. About 0.5-0.9 for a true
    grid, near 0 for none. ``per_cell``: sample points per cell along each line (fewer: a
    coarser, cheaper figure, for ranking many candidates)."""
    pat = _pattern(width, height, per_cell)
    return _score_at(lines_dil, _project(Hm, pat.on, lens), _project(Hm, pat.off, lens), width, height, per_cell)


def _score_at(lines_dil: np.ndarray, on_pts: np.ndarray, off_pts: np.ndarray, width: int, height: int,
              per_cell: int = 8) -> float:
    """:func:`_score` from the pattern's points already in the image (``on_pts``,
    ``off_pts``: ``_pattern(width, height, per_cell).on`` and ``.off`` projected)."""
    return float(_fits(lines_dil, on_pts, off_pts, 1, width, height, per_cell)[0])


def _scores(lines_dil: np.ndarray, homographies: Sequence[np.ndarray], width: int, height: int,
            per_cell: int = 8) -> np.ndarray:
    """:func:`_score` of many homographies at once (the same figures, batched: ranking
    a hundred candidates one call at a time costs more in calls than in sums)."""
    if not len(homographies):
        return np.zeros(0)
    pat = _pattern(width, height, per_cell)
    H = np.asarray(homographies, float)
    def project(pts):
        # (Row by row of the homographies, as :func:`_project`; the sums in place, as
        # each new array of them costs several times the sum.)
        x, y = pts[:, 0], pts[:, 1]
        def row(j):
            total = H[:, j, 0, None] * x
            total += H[:, j, 1, None] * y
            total += H[:, j, 2, None]
            return total
        z = row(2)
        z[np.abs(z) < 1e-9] = 1e-9
        out = np.empty((len(H), len(pts), 2))
        for j in (0, 1):
            np.divide(row(j), z, out=out[..., j])
        return out.reshape(-1, 2)
    return _fits(lines_dil, project(pat.on), project(pat.off), len(H), width, height, per_cell)


def _fits(lines_dil: np.ndarray, on_pts: np.ndarray, off_pts: np.ndarray, k: int, width: int, height: int,
          per_cell: int) -> np.ndarray:
    """The figure of :func:`_score` for ``k`` grids at once, from their pattern points
    in the image (``on_pts``, ``off_pts``: ``_pattern(...).on`` and ``.off`` of each
    grid in turn)."""
    pat = _pattern(width, height, per_cell)
    n, s = pat.lines, pat.samples
    on, ok_on = _sample(lines_dil, on_pts)
    on, ok_on = on.reshape(k, n, s), ok_on.reshape(k, n, s)
    off = _sample(lines_dil, off_pts)[0].reshape(k, n, 2, s)
    on_sum = on.sum(axis=2)                   # (samples outside the image are 0)
    sides = off.sum(axis=3)
    off_sum = sides.sum(axis=2) / 2
    # A printed border line may run a fraction of a cell outside the outer lines, where
    # it can outshine faint thin grid lines beside them: the outer lines are measured
    # against the board inside them only.
    outer = pat.inner >= 0
    off_sum[:, outer] = sides[:, outer, pat.inner[outer]]
    cnt = ok_on.sum(axis=2)
    grid = np.ones(n, bool)
    grid[pat.margin] = False
    total_on, total_off = on_sum[:, grid].sum(axis=1), off_sum[:, grid].sum(axis=1)
    # Lines outside the frame cannot support the grid: count them as empty.
    coverage = cnt[:, grid].sum(axis=1) / (grid.sum() * s)
    ratio = (total_on - total_off) / (total_on + total_off + 1e-6) * coverage
    # Every line of a real grid shows somewhere (stones leave the crossings free); a grid
    # at half the true spacing has every other line on bare board or stones.
    per_line = (on_sum - off_sum) / (on_sum + off_sum + 1e-6)
    ratio = ratio * (0.5 + 0.5 * (per_line[:, grid] > 0.1).mean(axis=1))
    # The strongest margin line, against the grid lines' average on-response: a faint
    # margin line is noise.
    m = pat.margin
    strength = (on_sum[:, m] / np.maximum(cnt[:, m], 1)
                / (total_on / np.maximum(cnt[:, grid].sum(axis=1), 1) + 1e-6)[:, None])
    margin_ratio = np.where(cnt[:, m] > s // 3, per_line[:, m] * np.minimum(1.0, strength), 0.0).max(axis=1)
    return ratio - 0.6 * np.maximum(0.0, margin_ratio)


def grid_fit(lines_dil: np.ndarray, Hm: np.ndarray, board: str) -> float:
    """How well ``board``'s line pattern under homography ``Hm`` (board cells -> pixels of
    ``lines_dil``) matches a dilated line image: ~0.5-0.9 crisp grid, ~0 none."""
    width, height = dimensions(board)
    return _score(lines_dil, Hm, width, height)


# ---------------------------------------------------------------------------------------
# Candidate generation


def _blurred(lines: np.ndarray) -> np.ndarray:
    """A line image blurred for the ridge finder (:func:`_ridges`) and the refinement
    (:func:`_ridge_points`)."""
    return cv2.GaussianBlur(lines, (0, 0), 1.0)


def _ridges(sm: np.ndarray, percentile: float = 95, floor: float = 0.2) -> np.ndarray:
    """One-pixel-wide ridge pixels of a blurred line image (:func:`_blurred`; uint8
    0/255): strong pixels that are the maximum across their line, the line direction
    taken from the Hessian. Strong means above ``percentile`` of the ridge strength and
    above ``floor`` times the strongest ridges."""
    lxx = cv2.Sobel(sm, cv2.CV_32F, 2, 0, ksize=3)
    lyy = cv2.Sobel(sm, cv2.CV_32F, 0, 2, ksize=3)
    lxy = cv2.Sobel(sm, cv2.CV_32F, 1, 1, ksize=3)
    # The Hessian's most negative eigenvalue is the curvature across a ridge; its
    # direction is nearer x than y where lxx < lyy.
    peak = np.where(lxx < lyy, _peak(sm, 1), _peak(sm, 0))
    # strong = (sqrt((lxx - lyy)^2 + 4 lxy^2) - (lxx + lyy)) / 2, in place: a new array
    # the image's size costs more than the sum in it.
    strong = np.subtract(lxx, lyy)
    strong *= strong
    lxy *= lxy
    lxy *= 4
    strong += lxy
    np.sqrt(strong, out=strong)
    lxx += lyy
    strong -= lxx
    strong *= 0.5
    # (Percentiles of every other pixel and row: the same within a hair, at a quarter of the cost.)
    level, top = np.percentile(strong[::2, ::2], [percentile, 99.8])
    thr = max(float(level), floor * float(top), 0.5)
    ridge = strong > thr
    ridge &= peak
    ridge &= sm > 2.0
    return ridge.view(np.uint8) * np.uint8(255)


def _peak(sm: np.ndarray, axis: int) -> np.ndarray:
    """Where ``sm`` is at least its neighbour before and above the one after along
    ``axis``, the image wrapping round at its ends."""
    a = np.moveaxis(sm, axis, 0)
    out = np.empty(sm.shape, bool)          # (laid out as ``sm``, as what it is combined with)
    at = np.moveaxis(out, axis, 0)
    at[1:-1] = (a[1:-1] >= a[:-2]) & (a[1:-1] > a[2:])
    at[0] = (a[0] >= a[-1]) & (a[0] > a[1])
    at[-1] = (a[-1] >= a[-2]) & (a[-1] > a[0])
    return out


def _hough(smooth: np.ndarray, config: LocateConfig, percentile: float = 95, floor: float = 0.2,
           min_run: float = 0.0, ridges: Optional[np.ndarray] = None) -> np.ndarray:
    """Hough lines (rho, theta, votes) of a blurred line image (:func:`_blurred`),
    strongest first, de-duplicated. ``min_run``: ridge pieces shorter than this share of
    the image's shorter side are left out (see :func:`_line_families`). ``ridges``:
    :func:`_ridges` of ``smooth`` with this percentile and floor, when already made."""
    h, w = smooth.shape
    binary = _ridges(smooth, percentile, floor) if ridges is None else ridges
    if min_run > 0:
        _, label, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
        long_enough = (stats[:, cv2.CC_STAT_AREA] >= min_run * min(h, w)).astype(np.uint8) * 255
        long_enough[0] = 0
        binary = long_enough[label]
    found = cv2.HoughLinesWithAccumulator(binary, 1, math.pi / 360, max(20, int(min(h, w) * 0.08)))
    if found is None:
        return np.zeros((0, 3))
    found = found.reshape(-1, 3)[:2000]
    # Strongest first, each line once: the same line comes back with a slightly other
    # rho and theta, or with theta + pi and rho negated.
    rho, theta = found[:, 0], found[:, 1]
    gone = np.zeros(len(found), bool)
    kept: List[int] = []
    for k in range(len(found)):
        if gone[k]:
            continue
        kept.append(k)
        if len(kept) >= config.max_lines:
            break
        dt = np.abs(theta[k] - theta)
        gone |= (((np.abs(rho[k] - rho) < 5) & (dt < 0.05))
                 | ((np.abs(rho[k] + rho) < 5) & (np.abs(dt - math.pi) < 0.05)))
    return found[kept]


def _families(hough: np.ndarray, config: LocateConfig) -> List[Tuple[np.ndarray, np.ndarray]]:
    """Split lines into pairs of families (two directions roughly 90 degrees apart).

    The directions are the peaks of the lines' votes over the angle. A table's pattern
    (wood grain, a cloth's stripes) can make one more peak, which may beat the board's
    own second direction: so the two pairs whose weaker direction has the most votes
    are kept, each pair once (either order gives the same grids)."""
    if len(hough) < 4:
        return []
    theta = hough[:, 1] % math.pi
    votes = hough[:, 2]
    spread = math.radians(config.family_spread_deg)
    grid = np.linspace(0, math.pi, 180, endpoint=False)
    def near(a, b, tol):
        d = np.abs((a - b + math.pi / 2) % math.pi - math.pi / 2)
        return d < tol
    support = np.where(near(theta[None, :], grid[:, None], spread / 2), votes[None, :], 0).sum(axis=1)
    peaks: List[float] = []
    for j in np.argsort(-support):
        if support[j] <= 0 or len(peaks) == 4:
            break
        if not any(near(grid[j], p, spread) for p in peaks):     # families do not overlap
            peaks.append(grid[j])
    pairs = []
    for i, g in enumerate(peaks):
        for g2 in peaks[i + 1:]:
            # Perspective skews right angles: the other direction lies within 90 +- 35 degrees.
            if abs(((g2 - g) % math.pi) - math.pi / 2) >= math.radians(35):
                continue
            a = near(theta, g, spread / 2)
            b = near(theta, g2, spread / 2) & ~a
            if a.sum() >= 2 and b.sum() >= 2:
                pairs.append((min(votes[a].sum(), votes[b].sum()), hough[a], hough[b]))
    pairs.sort(key=lambda p: -p[0])
    return [(fa, fb) for _, fa, fb in pairs[:2]]


def _positions(family: np.ndarray, centre: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Signed distance of each line from ``centre`` along the family's mean normal, the
    lines as (a, b, c) with a x + b y = c (normals all pointing one way), and their votes;
    sorted by distance."""
    theta = family[:, 1].copy()
    rho = family[:, 0].copy()
    ref = theta[0]
    flip = np.cos(theta - ref) < 0
    theta[flip] -= math.pi
    rho[flip] = -rho[flip]
    abc = np.column_stack([np.cos(theta), np.sin(theta), rho])
    pos = rho - (centre[0] * abc[:, 0] + centre[1] * abc[:, 1])
    order = np.argsort(pos)
    return pos[order], abc[order], family[order, 2]


def _merge(pos: np.ndarray, abc: np.ndarray, votes: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Collapse near-duplicate lines (a thick or slightly bent line gives several), keeping
    the best-voted of each cluster. The tolerance follows the typical line spacing."""
    def clusters(tol):
        groups = [[0]]
        for k in range(1, len(pos)):
            if pos[k] - pos[groups[-1][-1]] < tol:
                groups[-1].append(k)
            else:
                groups.append([k])
        return groups
    groups = clusters(5.0)
    reps = np.array([pos[g].mean() for g in groups])
    if len(reps) >= 3:
        d = np.diff(reps)
        spacing = float(np.median(d[d >= np.percentile(d, 40)]))
        groups = clusters(max(5.0, 0.3 * spacing))
    keep = [g[int(np.argmax(votes[g]))] for g in groups]
    return pos[keep], abc[keep]


@functools.lru_cache(maxsize=None)
def _every_pair(n: int) -> Tuple[np.ndarray, np.ndarray]:
    """:func:`np.triu_indices` (i < j) of ``n`` lines, made once for each ``n``."""
    return np.triu_indices(n, 1)


def _pairs(pos: np.ndarray, cells: int, keep: int, spacing_hint: Optional[float] = None
           ) -> List[Tuple[int, int, int, int]]:
    """Candidate (i, j, index_i, index_j): lines i and j are grid lines index_i < index_j of
    ``cells + 1``; ranked by how well the lines between them fit even spacing (stray lines
    inside and lines where the margin should be count against). Normally at most two
    lines may be missing; when stones hide most of a family, any span is tried and the
    other family's spacing (``spacing_hint``) tells which is likely. ``pos``: the
    lines' positions across the family, in increasing order."""
    n = len(pos)
    if n < 2:
        return []
    ii, jj = _every_pair(n)
    rows = []
    few = n < cells - 1
    for m in range(1 if few else max(1, cells - 2), cells + 1):
        s = (pos[jj] - pos[ii]) / m
        ok = s >= 4
        if not ok.any():
            continue
        i_, j_, s_ = ii[ok], jj[ok], s[ok]
        # Every offset o of line i among the grid's lines at once: (offsets, pairs, cells + 3).
        # The offsets share most of their predicted lines (grid line k at offset o is
        # line k - o from line i), so each is predicted and looked up once.
        o = np.arange(0, cells - m + 1)
        q = np.arange(-1 - (cells - m), cells + 2)                          # indices relative to line i
        pred = pos[i_][:, None] + q[None, :] * s_[:, None]
        # The nearest line to each predicted one is a neighbour of it in ``pos``.
        at = np.searchsorted(pos, pred)
        nearest = np.minimum(np.abs(pos[np.maximum(at - 1, 0)] - pred), np.abs(pos[np.minimum(at, n - 1)] - pred))
        first = cells - m - o                                                # where offset o's line -1 is in q
        close = (nearest / s_[:, None] < 0.3)[:, first[:, None] + np.arange(cells + 3)].transpose(1, 0, 2)
        hit = close[..., 1:-1].sum(axis=2)
        beyond = close[..., 0].astype(int) + close[..., -1]
        lo = pred[:, first + 1].T - 0.3 * s_
        hi = pred[:, first + cells + 1].T + 0.3 * s_
        between = np.searchsorted(pos, hi, "left") - np.searchsorted(pos, lo, "right")
        score = hit - 0.4 * (between - hit) - 1.5 * beyond
        if spacing_hint:
            score = score - 2.0 * np.abs(np.log(s_ / spacing_hint))
        rows.append((score.ravel(), m, i_, j_))
    if not rows:
        return []
    scores, spans, firsts, lasts = zip(*rows)
    sizes = [len(score) for score in scores]
    ends = np.cumsum(sizes).tolist()
    # Best score first; on a tie, more cells between the two lines, then the order found
    # (the sort is stable). Only the first few are looked at: each one's span, offset and
    # pair is worked out from its place in the table.
    order = np.lexsort((-np.repeat(spans, sizes), -np.concatenate(scores)))
    out, seen = [], set()
    for k in order:
        r = bisect.bisect_right(ends, k)
        oi, p = divmod(int(k) - ends[r] + sizes[r], len(firsts[r]))
        i, j, m = int(firsts[r][p]), int(lasts[r][p]), spans[r]
        if (i, j, oi) in seen:
            continue
        seen.add((i, j, oi))
        out.append((i, j, oi, oi + m))
        if len(out) >= keep:
            break
    return out


def _crossings(la: np.ndarray, lb: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Where every line of ``la`` ((k, 3): a x + b y = c) crosses every line of ``lb``
    ((m, 3)): the points (k, m, 2), and which pairs cross at all (False where they are
    nearly parallel; their point is then no number or far off)."""
    a, b = la[:, None, :], lb[None, :, :]
    det = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        points = np.stack([(a[..., 2] * b[..., 1] - a[..., 1] * b[..., 2]) / det,
                           (a[..., 0] * b[..., 2] - a[..., 2] * b[..., 0]) / det], -1)
    return points, np.abs(det) >= 1e-6


def _typical_spacing(pos: np.ndarray) -> Optional[float]:
    """Median gap between neighbouring lines of a family with enough lines, else None."""
    if len(pos) < 4:
        return None
    return float(np.median(np.diff(pos)))


def _within_grid(dil: np.ndarray, family: np.ndarray, across: np.ndarray, spacing: float,
                 samples: int = 32) -> np.ndarray:
    """Which lines of ``family`` ((k, 3): a x + b y = c) may be lines of the grid whose
    other family's lines are ``across`` (in order, outer lines first and last): a grid
    line shows in the line image ``dil`` along most of its stretch between the outer
    ``across`` lines, and the ``across`` lines show beside it, on one side at least
    (they end at the grid's outer lines), as strongly as they do anywhere. ``spacing``:
    the cell size in pixels. A line shows where it is brighter than the quieter side of
    it, 0.3 cells away."""
    def unit(l):
        return l[..., :2] / (np.hypot(l[..., 0], l[..., 1])[..., None] + 1e-12)
    def shows(pts, normal, floor=0.0):
        present, on = _shows_at(dil, pts, 0.3 * spacing * normal)
        return present & (on > floor), on
    a, b = family[:, None, :], across[None, :, :]
    det = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    det = np.where(np.abs(det) < 1e-6, 1e-6, det)
    cross = np.stack([(a[..., 2] * b[..., 1] - a[..., 1] * b[..., 2]) / det,
                      (a[..., 0] * b[..., 2] - a[..., 2] * b[..., 0]) / det], -1)       # (k, m, 2)
    t = ((np.arange(samples) + 0.5) / samples)[None, :, None]
    p, q = cross[:, :1], cross[:, -1:]
    stretch = shows(p + t * (q - p), unit(family)[:, None, :])[0].mean(axis=1)
    # A quarter cell either side of each crossing, along the line across.
    along = (unit(across) @ np.array([[0, 1], [-1, 0]]))[None]                          # (1, m, 2)
    sides = [shows(cross + d * 0.25 * spacing * along, unit(across)[None]) for d in (-1, 1)]
    typical = float(np.percentile(np.concatenate([on.ravel() for _, on in sides]), 90))
    beside = [shows(cross + d * 0.25 * spacing * along, unit(across)[None], 0.35 * typical)[0] for d in (-1, 1)]
    return (stretch >= 0.6) & ((beside[0] | beside[1]).mean(axis=1) >= 0.5)


def _along(hough: np.ndarray, size: Tuple[int, int]) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each Hough line (rho, theta) as a point, a unit direction and a unit normal, and
    where along it (from that point) it enters and leaves a frame of ``size`` (w, h);
    entering after leaving when it misses the frame."""
    rho, theta = hough[:, 0], hough[:, 1]
    normal = np.column_stack([np.cos(theta), np.sin(theta)])
    point = rho[:, None] * normal
    direction = np.column_stack([-normal[:, 1], normal[:, 0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        ends = [((0.0 - point[:, j]) / direction[:, j], (size[j] - 1.0 - point[:, j]) / direction[:, j])
                for j in (0, 1)]
    enter, leave = np.full(len(hough), -np.inf), np.full(len(hough), np.inf)
    for j, (a, b) in enumerate(ends):
        level = np.abs(direction[:, j]) < 1e-9       # parallel to this side: inside or not at all
        inside = (point[:, j] >= 0) & (point[:, j] <= size[j] - 1.0)
        enter = np.where(level, np.where(inside, enter, np.inf), np.maximum(enter, np.minimum(a, b)))
        leave = np.where(level, np.where(inside, leave, -np.inf), np.minimum(leave, np.maximum(a, b)))
    return point, direction, normal, np.column_stack([enter, leave])


def _cleared_of_table(lines: np.ndarray, dil: np.ndarray, hough: np.ndarray, config: LocateConfig) -> np.ndarray:
    """The line image ``lines`` without a tiled or striped table's lines: the Hough lines
    (``hough``, of ``lines``) that show where they leave the frame are the table's (the
    board lies wholly inside it, with a margin), and their stretches that run on from
    the frame's edge (gaps of a few pixels bridged) are cleared; where such a line
    passes the board it meets the board's margin first, and the board's own line in
    line with it stays. ``dil``: ``lines`` dilated."""
    h, w = dil.shape
    point, direction, normal, ends = _along(hough, (w, h))
    reach = config.table_reach * min(w, h)
    crosses = np.isfinite(ends).all(axis=1) & (ends[:, 1] - ends[:, 0] > 2 * reach)
    point, direction, normal, ends = point[crosses], direction[crosses], normal[crosses], ends[crosses]
    def shows(t):
        """Whether each line shows at its positions ``t`` (k, m): against the quieter side, 4 px off."""
        return _shows_at(dil, point[:, None] + t[..., None] * direction[:, None], 4.0 * normal[:, None])[0]
    near = np.linspace(0.0, 1.0, 12)[None]
    at_edge = np.maximum(shows(ends[:, :1] + near * reach).mean(axis=1),
                         shows(ends[:, 1:] - near * reach).mean(axis=1)) >= 0.5
    if not at_edge.any():
        return lines
    point, direction, normal, ends = point[at_edge], direction[at_edge], normal[at_edge], ends[at_edge]
    steps = np.arange(int(np.ceil((ends[:, 1] - ends[:, 0]).max())) + 1)
    t = ends[:, :1] + steps[None]
    within = t <= ends[:, 1:]
    found = shows(t) & within
    def from_edge(found: np.ndarray) -> np.ndarray:
        """Each row's samples up to its first gap of more than ``table_gap`` misses."""
        idx = np.broadcast_to(np.arange(found.shape[1]), found.shape)
        missed = idx - np.maximum.accumulate(np.where(found, idx, -1), axis=1)
        gap = np.where((missed > config.table_gap).any(axis=1), np.argmax(missed > config.table_gap, axis=1),
                       found.shape[1] + config.table_gap)
        return found & (idx < (gap - config.table_gap)[:, None])
    # From the far edge: the samples reversed, each row's own length.
    count = within.sum(axis=1)
    back = np.clip(count[:, None] - 1 - steps[None], 0, None)
    reversed_found = np.take_along_axis(found, back, axis=1) & (steps[None] < count[:, None])
    table = from_edge(found)
    table |= np.take_along_axis(from_edge(reversed_found), back, axis=1) & within
    pts = np.rint((point[:, None] + t[..., None] * direction[:, None])[table]).astype(int)
    mask = np.zeros((h, w), np.uint8)
    mask[np.clip(pts[:, 1], 0, h - 1), np.clip(pts[:, 0], 0, w - 1)] = 1
    mask = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    return np.where(mask > 0, 0, lines).astype(np.float32)


def _cleared_of_texture(lines: np.ndarray, smooth: np.ndarray, config: LocateConfig) -> Optional[np.ndarray]:
    """The line image ``lines`` (``smooth``: blurred) without a finely patterned table: where
    ridges lie closer together than a board's lines and stones' rims ever do
    (``texture_density`` of the pixels in a ``texture_window`` square), a fine stripe or
    check fills the frame round the board, and its many long lines outvote the board's in
    the Hough transform. None when such a pattern covers less than ``texture_least`` of
    the frame (a plain table's frame: searching it again would find what the first search
    found)."""
    ridges = (_ridges(smooth, 80, 0.05) > 0).astype(np.float32)
    w = config.texture_window
    dense = cv2.boxFilter(ridges, -1, (w, w)) > config.texture_density
    if dense.mean() < config.texture_least:
        return None
    dense = cv2.dilate(dense.astype(np.uint8), np.ones((3, 3), np.uint8))
    return np.where(dense > 0, 0, lines).astype(np.float32)


def _board_outlines(lab: np.ndarray, config: LocateConfig) -> List[np.ndarray]:
    """Quadrilaterals (4 x 2, work pixels, in turn round the outline) round the solid
    regions of one colour that could be a board's paper seen against the table: each
    region of a few colour clusters of the frame, filled over its lines and stones by its
    convex hull. Where a table's pattern or a faint grid hides the lines' families, the
    paper still stands out as one solid shape."""
    h, w = lab.shape[:2]
    s = config.outline_size / max(h, w)
    small = cv2.resize(lab, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    small = cv2.medianBlur(small, 5)
    sh, sw = small.shape[:2]
    samples = small.reshape(-1, 3)
    quads: List[np.ndarray] = []
    # (Seeded: the same frame gives the same outlines.)
    cv2.setRNGSeed(0)
    for k in (2, 3, 4):
        _, labels, _ = cv2.kmeans(samples, k, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5),
                                  2, cv2.KMEANS_PP_CENTERS)
        labels = labels.reshape(sh, sw)
        # A cluster's regions, and the regions of all else: a board crowded with stones
        # is what the table's cluster leaves.
        for region in [labels == c for c in range(k)] + [labels != c for c in range(k)]:
            region = cv2.morphologyEx(region.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            region = cv2.morphologyEx(region, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            n, parts, stats, _ = cv2.connectedComponentsWithStats(region)
            for i in range(1, n):
                area = stats[i, cv2.CC_STAT_AREA]
                if not config.outline_least * sh * sw <= area <= config.outline_most * sh * sw:
                    continue
                hull = cv2.convexHull(np.column_stack(np.nonzero(parts == i)[::-1]).astype(np.float32))
                spread = cv2.contourArea(hull)
                # (The table round the board is a region too: its hull is the frame.)
                if area < config.outline_solid * spread or spread > config.outline_most * sh * sw:
                    continue
                around = cv2.arcLength(hull, True)
                for tol in (0.02, 0.04, 0.06, 0.08):
                    quad = cv2.approxPolyDP(hull, tol * around, True)
                    if len(quad) == 4:
                        quad = quad.reshape(4, 2).astype(float)
                        # (Most boards stand out alike in several clusterings.)
                        if not any(np.abs(np.roll(quad, turn, axis=0) - q).max() <= 2
                                   for q in quads for turn in range(4)):
                            quads.append(quad)
                        break
    return [quad / s for quad in quads]


def _combs(profile: np.ndarray, lines: int, shortest: float, keep: int) -> List[Tuple[float, float]]:
    """(first line, spacing) of the ``keep`` best combs of ``lines`` equally spaced lines
    along a 1-D line profile: each line's profile against halfway to its neighbours on
    either side (a broad bright patch, as a crowd of stones' rims or a lamp's glare,
    gains a comb nothing). A comb spans ``shortest`` pixels at least."""
    n = len(profile)
    spacing = np.arange(shortest / (lines - 1), (n - 1) / (lines - 1), 0.25)
    # Every first line from 0 on, in half pixels, that keeps the comb in the profile.
    counts = np.maximum(0, np.ceil((n - 1 - spacing * (lines - 1)) / 0.5)).astype(int)
    if not counts.sum():
        return []
    spacings = np.repeat(spacing, counts)
    firsts = 0.5 * (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    on = firsts[:, None] + spacings[:, None] * np.arange(lines)
    ends = np.append(profile, profile[-1])
    def along(x):
        x = np.clip(x, 0, n - 1)
        i = x.astype(int)          # (x >= 0: truncation is the floor)
        return ends[i] * (i + 1 - x) + ends[i + 1] * (x - i)
    half = spacings[:, None] / 2
    fits = (along(on) - (along(on - half) + along(on + half)) / 2).mean(axis=1)
    best: List[Tuple[float, float]] = []
    top = np.argpartition(-fits, min(len(fits), 50 * keep) - 1)[:50 * keep]
    for i in top[np.argsort(-fits[top], kind="stable")]:
        first, spacing = float(firsts[i]), float(spacings[i])
        # (A comb half a line over, or a hair wider, is the same comb.)
        if all(abs(first - f) > spacing / 3 or abs(spacing - d) > 0.05 * d for f, d in best):
            best.append((first, spacing))
            if len(best) == keep:
                break
    return best


def _outline_grids(lines: np.ndarray, outlines: Sequence[np.ndarray], board: str,
                   config: LocateConfig) -> List[Tuple[np.ndarray, int, int]]:
    """Candidates (homography board -> work px, width, height) inside board outlines
    (:func:`_board_outlines`): the line image (blurred: an outline is a few pixels out)
    seen square-on through each outline, and
    the combs of the face's lines that its profiles across the two directions show best.
    Summed along a whole line, even a faint grid stands out of the paper."""
    width, height = dimensions(board)
    assignments = [(width, height)] if width == height else [(width, height), (height, width)]
    size = config.outline_view
    # The outline's own square, with a tenth of it beyond on every side: an outline a
    # little inside the board's edge still holds the grid.
    edge = 0.1 * size / 1.2
    square = edge + (size - 2 * edge) * np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    shortest = config.outline_span * (size - 2 * edge)
    out = []
    for quad in outlines:
        to_view = _board_homography(quad, square)
        from_view = np.linalg.inv(to_view)
        seen = cv2.warpPerspective(lines, to_view, (size, size), flags=cv2.INTER_LINEAR)
        along_x, along_y = seen.mean(axis=0), seen.mean(axis=1)
        for na, nb in assignments:
            for fx, dx in _combs(along_x, na + 1, shortest, 3):
                for fy, dy in _combs(along_y, nb + 1, shortest, 3):
                    # Board cells -> the square-on view -> the image.
                    out.append((from_view @ np.array([[dx, 0, fx], [0, dy, fy], [0, 0, 1.0]]), na, nb))
    return out


def _line_families(lines: np.ndarray, smooth: np.ndarray, config: LocateConfig, min_run: float = 0.0,
                   hough: Optional[Callable] = None):
    """The line image's (``smooth``: blurred) pairs of line families (:func:`_families`) and the centre of
    its strongest lines, which the lines' positions are measured from.

    ``min_run`` > 0 leaves out short ridge pieces (see :func:`_hough`): a fine check or
    weave leaves rows of them along its diagonals, and where those run with the board's
    lines they crowd both families of the board's directions; the board's own lines,
    joined at the crossings, are long. ``hough``: :func:`_hough` of ``smooth`` with this
    ``min_run``, given its percentile and floor (from a search that keeps the lines for
    the next)."""
    hough = hough or (lambda percentile, floor: _hough(smooth, config, percentile, floor, min_run))
    families = _families(hough(95, 0.2), config)
    if not families:
        # Motion blur can smear one direction's lines far below the other's: look again
        # with a lower bar for what counts as a line.
        families = _families(hough(85, 0.05), config)
    # (The strong pixels' mean place from their moments: the same sums as of their
    # coordinates, whole numbers, without listing them.)
    strong = cv2.moments((lines > _level(lines, 97)).view(np.uint8), binaryImage=True)
    centre = (np.array([strong["m10"], strong["m01"]]) / strong["m00"] if strong["m00"]
              else np.array(lines.shape[::-1]) / 2)
    return families, centre


def _candidates(dil: np.ndarray, board: str, config: LocateConfig, found):
    """Yield (homography board->work px, width, height) candidates for one polarity
    from its line image's :func:`_line_families` (``found``); ``dil``: the line image
    dilated."""
    width, height = dimensions(board)
    families, centre = found
    assignments = [(width, height)] if width == height else [(width, height), (height, width)]
    seen = set()
    crossings: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray]] = {}
    def grid(la, lb, ia, ja, oia, oja, ib, jb, oib, ojb):
        """The homography through lines ia, ja of ``la`` (grid lines oia, oja) and ib, jb
        of ``lb``; None when two of them do not cross, or for a grid already given."""
        key = (id(la), ia, ja, oia, oja, ib, jb, oib, ojb)
        if key in seen:
            return None
        seen.add(key)
        if (id(la), id(lb)) not in crossings:
            # (As the homography takes them, and as lists: a few hundred grids look them up.)
            points, cross = _crossings(la, lb)
            crossings[id(la), id(lb)] = (points.astype(np.float32), cross.tolist())
        points, cross = crossings[id(la), id(lb)]
        if not (cross[ia][ib] and cross[ja][ib] and cross[ja][jb] and cross[ia][jb]):
            return None
        src = np.array([[oia, oib], [oja, oib], [oja, ojb], [oia, ojb]], np.float32)
        return _board_homography(src, points[[ia, ja, ja, ia], [ib, ib, jb, jb]])
    for fam_a, fam_b in families:
        pa, la = _merge(*_positions(fam_a, centre))
        pb, lb = _merge(*_positions(fam_b, centre))
        crossings.clear()            # (by the lines' ids: these lines are new)
        hint_a = _typical_spacing(pa)
        hint_b = _typical_spacing(pb)
        for na, nb in assignments:
            seen.clear()
            pairs_a = _pairs(pa, na, config.pairs_per_family, hint_b)
            pairs_b = _pairs(pb, nb, config.pairs_per_family, hint_a)
            for ia, ja, oia, oja in pairs_a:
                for ib, jb, oib, ojb in pairs_b:
                    Hm = grid(la, lb, ia, ja, oia, oja, ib, jb, oib, ojb)
                    if Hm is not None:
                        yield Hm, na, nb
            # A table's lines along one direction of the grid (wood grain, stripes)
            # crowd that family, and lines through the board from the table's lines on
            # either side of it pass for grid lines: the board's own lines are lost in
            # the 1-D ranking. With the other family's best pairs as the grid's outer
            # lines, only the lines of the grid there count (:func:`_within_grid`).
            for (p, l, n, hint), (q, m, other, ranked), swap in (
                    ((pa, la, na, hint_b), (pb, lb, nb, pairs_b), False),
                    ((pb, lb, nb, hint_a), (pa, la, na, pairs_a), True)):
                if len(p) <= n + 4 or not ranked or hint is None:
                    continue
                for i2, j2, oi2, oj2 in ranked[:2]:
                    lo, hi = sorted((i2, j2))
                    keep = np.nonzero(_within_grid(dil, l, m[lo:hi + 1], hint))[0]
                    found = _pairs(p[keep], n, config.pairs_per_family, hint)
                    # The crowded family's spacing had misled the other's ranking too:
                    # rank its pairs again by the spacing of the lines kept.
                    again = _pairs(q, other, 3, _typical_spacing(p[keep]))
                    outer = [(i2, j2, oi2, oj2)] + [r for r in again if r != (i2, j2, oi2, oj2)]
                    for i1, j1, oi1, oj1 in found:
                        i1, j1 = keep[i1], keep[j1]
                        for i2_, j2_, oi2_, oj2_ in outer:
                            Hm = (grid(m, l, i2_, j2_, oi2_, oj2_, i1, j1, oi1, oj1) if swap else
                                  grid(l, m, i1, j1, oi1, oj1, i2_, j2_, oi2_, oj2_))
                            if Hm is not None:
                                yield Hm, na, nb


# ---------------------------------------------------------------------------------------
# Refinement


def _sample_smooth(img: np.ndarray, pts: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Bilinear samples of a float32 image at (N,2) points, and which fell inside it."""
    n = len(pts)
    cols = 256                        # OpenCV maps must stay under 32767 on each side
    grid = np.empty((-(-n // cols) * cols, 2), np.float32)
    grid[:n] = pts
    grid[n:] = -10.0
    # (One map of x, y pairs: the same samples as two maps, which OpenCV would copy.)
    vals = cv2.remap(img, grid.reshape(-1, cols, 2), None, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=-1.0).ravel()[:n]
    return vals, vals >= 0


def _ridge_points(smooth: np.ndarray, Hm: np.ndarray, n: int, span: int, fam: int,
                  step: float, lens: Optional[Callable] = None) -> Dict[int, np.ndarray]:
    """Snap the ``n + 1`` predicted lines of one family (``Hm`` then ``lens``, see
    :func:`_project`) to the ridges of ``smooth``; return the ridge points found on each
    line (image pixels, (k, 2)), by line index.

    Only stretches near the crossings are used: there no stone reaches (a stone's rim
    stays ~0.2 cell from every crossing), while along a cell's side a stone's dark edge
    or shadow lies right next to the line and drags the fit towards it. The crossing
    itself is skipped, where the other line makes the across-profile flat.

    The ridge is found to a fraction of a pixel (bilinear samples every ``step`` cells,
    then the parabola through the best three): rounding it to whole samples would shift
    every point of a line the same way, and no line fit averages that out."""
    near = np.array([-0.2, -0.16, -0.12, -0.08, 0.08, 0.12, 0.16, 0.2])
    t = (np.arange(span + 1)[:, None] + near[None, :]).ravel()
    t = t[(t > 0) & (t < span)]
    reach = int(round(0.24 / step))
    offsets = np.arange(-reach, reach + 1) * step               # +-0.24 cell across the line
    idx = np.arange(n + 1)
    # Board points: line i, position t along it, offset across it. Only the two ends of
    # each short run across a line go through the homography (and lens); the points in
    # between are spaced evenly, as the mapping is all but straight over half a cell.
    shape = (n + 1, len(t), len(offsets))
    ends = offsets[[0, -1]]
    across = np.broadcast_to(idx[:, None, None] + ends[None, None, :], (n + 1, len(t), 2))
    along = np.broadcast_to(t[None, :, None], (n + 1, len(t), 2))
    pts = np.stack([across, along], -1) if fam == 0 else np.stack([along, across], -1)
    tips = _project(Hm, pts.reshape(-1, 2), lens).reshape(n + 1, len(t), 2, 2)
    frac = (offsets - ends[0]) / (ends[1] - ends[0])
    start, run = tips[:, :, 0], tips[:, :, 1] - tips[:, :, 0]
    # (x and y each along the runs: numpy's loops along an axis of two points cost
    # several times as much.)
    runs = np.empty(shape + (2,))
    for j in (0, 1):
        np.multiply(run[..., j, None], frac, out=runs[..., j])
        runs[..., j] += start[..., j, None]
    vals, ok = _sample_smooth(smooth, runs.reshape(-1, 2))
    vals = vals.reshape(shape)
    ok = ok.reshape(shape).all(axis=2)
    found = {}
    if not ok.any():
        return found
    best = vals.argmax(axis=2)
    peak = np.take_along_axis(vals, best[..., None], 2)[..., 0]
    edge = (best == 0) | (best == len(offsets) - 1)
    # (Partitioned in place: the selections are copies already.)
    base = float(np.median(vals[ok], overwrite_input=True))
    floor = base + 0.5 * (float(np.percentile(peak[ok], 90, overwrite_input=True)) - base)
    good = ok & ~edge & (peak > floor) & (peak > 2.0)
    b = np.clip(best, 1, len(offsets) - 2)[..., None]
    below, at, above = (np.take_along_axis(vals, b + d, 2)[..., 0] for d in (-1, 0, 1))
    curve = below - 2 * at + above
    frac = np.where(curve < -1e-6, 0.5 * (below - above) / np.minimum(curve, -1e-6), 0.0)
    crest = offsets[b[..., 0]] + np.clip(frac, -0.5, 0.5) * step
    # Every line's points through the homography (and lens) at once, then split by line.
    counts = good.sum(axis=1)
    good &= (counts >= 6)[:, None]
    if not good.any():
        return found
    kept = np.nonzero(counts >= 6)[0]
    on_line = np.stack([(idx[:, None] + crest)[good], np.broadcast_to(t, good.shape)[good]], -1)
    projected = _project(Hm, on_line if fam == 0 else on_line[:, ::-1], lens)
    return dict(zip(kept.tolist(), np.split(projected, np.cumsum(counts[kept])[:-1])))


def _line_through(points: np.ndarray) -> np.ndarray:
    """The line (a, b, c), a x + b y = c, through image points (robust fit)."""
    vx, vy, x0, y0 = cv2.fitLine(points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([-vy, vx, -vy * x0 + vx * y0])


def _homography_from_lines(fa: Dict[int, np.ndarray], fb: Dict[int, np.ndarray]) -> Optional[np.ndarray]:
    """Board -> image homography from the two families' fitted lines (by index), through
    their crossings; None with fewer than eight crossings."""
    if not fa or not fb:
        return None
    points, crossing = _crossings(np.array(list(fa.values())), np.array(list(fb.values())))
    dst = points[crossing]
    src = np.stack(np.meshgrid(list(fa), list(fb), indexing="ij"), -1)[crossing]
    if len(src) < 8:
        return None
    # RANSAC, a pixel's tolerance: the crossings of a line that snapped elsewhere (a
    # border line, a stone's rim) are left out, and least squares on the rest follows
    # faint lines under a low spot better than least median of squares. (Cheaper on a
    # board's crossings; on scattered ones it samples long, 15-25 ms a fit, and capping
    # that lost frames.)
    new, _ = cv2.findHomography(src.astype(np.float32), dst.astype(np.float32), cv2.RANSAC, 1.0)
    return new


def _refine(smooth: np.ndarray, Hm: np.ndarray, na: int, nb: int, rounds: int = 2,
            step: float = 0.02) -> np.ndarray:
    """Snap every predicted grid line to the blurred line image (:func:`_blurred`) and
    refit the homography from the refitted lines' intersections. ``step``: sample
    spacing across a line, in cells."""
    for _ in range(rounds):
        fa = {i: _line_through(p) for i, p in _ridge_points(smooth, Hm, na, nb, 0, step).items()}
        fb = {i: _line_through(p) for i, p in _ridge_points(smooth, Hm, nb, na, 1, step).items()}
        new = _homography_from_lines(fa, fb)
        if new is None:
            break
        Hm = new
    return Hm


def _refine_full(frame_bgr: np.ndarray, Hm: np.ndarray, na: int, nb: int, face: str,
                 kernel: int, config: LocateConfig) -> Tuple[np.ndarray, float]:
    """One more refinement on the full-resolution frame (``Hm``: board -> frame pixels),
    and the lens's distortion: returns the homography (to the distortion-free image) and
    ``k1`` (see :class:`Calibration`; 0 when the lines are straight).

    The search runs on a reduced image, where a line is a pixel or two wide; on the
    frame itself the lines are placed about twice as precisely (cell centres: 1.36 px
    mean error at 1280x960 before this pass, 0.63 after). Kept only when the grid fits
    the frame's lines at least as well as before.

    The lens: the ``k1`` that makes the ridge points of every line straightest, then
    the homography through the undistorted lines' crossings, and the lines found once
    more through the bent grid (a strongly bent line leaves the straight prediction
    towards its ends). ``k1`` stays 0 unless it straightens the lines clearly and the
    bent grid fits the line image about as well as the straight one."""
    # Only the grid and its surroundings (the margin lines the score looks at, 1.6 cells
    # round) are filtered, as no sample reaches beyond.
    h, w = frame_bgr.shape[:2]
    size = (w, h)
    ring = _project(Hm, np.array([[-1.6, -1.6], [na + 1.6, -1.6], [na + 1.6, nb + 1.6], [-1.6, nb + 1.6],
                                  [na / 2, -1.6], [na + 1.6, nb / 2], [na / 2, nb + 1.6], [-1.6, nb / 2]]))
    x0, y0 = np.clip(np.floor(ring.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(ring.max(axis=0)).astype(int), 0, [w, h])
    crop = line_image(cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), light_lines(face), kernel)
    smooth, dil = _blurred(crop), _dilate(crop)
    origin = np.array([x0, y0], float)
    def in_crop(lens: Optional[Callable] = None) -> Callable:
        """Frame points, or the distortion-free image's through ``lens``, to the crop's."""
        return lambda p: (p if lens is None else lens(p)) - origin
    def ridges(H: np.ndarray, lens: Optional[Callable] = None) -> List[Dict[int, np.ndarray]]:
        """Both families' ridge points (:func:`_ridge_points`), in the frame."""
        return [{i: p + origin for i, p in _ridge_points(smooth, H, n, span, fam, 0.01, in_crop(lens)).items()}
                for n, span, fam in ((na, nb, 0), (nb, na, 1))]
    fams = ridges(Hm)
    refined = _homography_from_lines(*({i: _line_through(p) for i, p in f.items()} for f in fams))
    if refined is None or _score(dil, refined, na, nb, in_crop()) < _score(dil, Hm, na, nb, in_crop()):
        refined = Hm
    k1 = _lens_k1(fams, size, config)
    if k1 == 0:
        return refined, 0.0
    H_lens = refined
    for bent in (False, True):
        if bent:     # the lines again, predicted through the lens
            fams = ridges(H_lens, _bend(k1, size))
        undone = [{i: _line_through(undistort_points(p, k1, size)) for i, p in f.items()} for f in fams]
        new = _homography_from_lines(*undone)
        if new is None:
            return refined, 0.0
        H_lens = new
    # (The score moves by a few hundredths for sub-pixel shifts: only a clearly worse
    # fit tells of a bad lens.)
    if _score(dil, H_lens, na, nb, in_crop(_bend(k1, size))) < _score(dil, refined, na, nb, in_crop()) - 0.03:
        return refined, 0.0
    return H_lens, k1


def _bend(k1: float, size: Tuple[int, int]) -> Optional[Callable]:
    return None if k1 == 0 else (lambda p: distort_points(p, k1, size))


def _crookedness(points: np.ndarray, line: np.ndarray, size: Tuple[int, int]) -> Callable:
    """How far the ridge points (N, 2) of the lines (``line``: each point's line) are
    from straight once undistorted with ``k1``, as a function of ``k1`` (an array of
    them, each figure at once): the mean squared distance (frame pixels) of every point
    from its line, each capped at 1.5 px so that a stray point (a stone's rim next to
    the line) or a stray line weighs no more than a point a little off. The lines are
    fitted twice, the second time without points over 2 px off.

    The undistorted points are the frame's moved in proportion to ``k1`` (see
    :func:`undistort_points`), so what does not depend on it is worked out once."""
    (cx, cy), radius = (size[0] / 2, size[1] / 2), 0.5 * float(np.hypot(*size))      # as undistort_points
    d = (np.asarray(points, np.float64) - (cx, cy)) / radius
    d2 = (d * d).sum(axis=1)
    lines = int(line.max()) + 1
    def crooked(k1s) -> np.ndarray:
        k = np.asarray(k1s, np.float64).reshape(-1, 1)
        mag = 1 + k * d2                 # how much undistorting magnifies: measure in frame pixels
        # (x and y each: numpy's loops along an axis of two cost several times as much.)
        ux, uy = ((d[:, j] * mag * radius + c).ravel() for j, c in ((0, cx), (1, cy)))    # (K * N)
        # Every k1's lines as lines of their own: one count per line and k1.
        at = (line[None] + lines * np.arange(len(k))[:, None]).ravel()
        bins = lines * len(k)
        weight = np.ones(at.shape)
        for _ in range(2):
            n = np.maximum(np.bincount(at, weight, bins), 1e-9)
            mx, my = (np.bincount(at, weight * u, bins) / n for u in (ux, uy))
            dx, dy = ux - mx[at], uy - my[at]
            sxx, syy, sxy = (np.bincount(at, weight * v, bins) for v in (dx * dx, dy * dy, dx * dy))
            theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)               # each line's direction
            r = (-np.sin(theta)[at] * dx + np.cos(theta)[at] * dy) / mag.ravel()
            weight = (np.abs(r) < 2.0).astype(float)
        return np.minimum(r * r, 2.25).reshape(len(k), -1).mean(axis=1)
    return crooked


def _lens_k1(families: Sequence[Dict[int, np.ndarray]], size: Tuple[int, int], config: LocateConfig) -> float:
    """The ``k1`` that makes the lines' ridge points (by family and line) straightest:
    a scan over the allowed range, then a golden-section search around its best; 0 when
    that is weaker than ``config.min_k1`` or straightens the lines too little."""
    found = [p for f in families for p in f.values()]
    if len(found) < 8:
        return 0.0
    pts = np.vstack(found)
    line = np.repeat(np.arange(len(found)), [len(p) for p in found])
    figures = _crookedness(pts, line, size)
    crooked = lambda k: float(figures(k)[0])
    grid = np.linspace(-MAX_K1, MAX_K1, 25)
    scan = figures(np.append(grid, 0.0))
    best, straight = int(np.argmin(scan[:-1])), float(scan[-1])
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    # Golden-section search: each step keeps one of its two inner points.
    a, b = hi - 0.618 * (hi - lo), lo + 0.618 * (hi - lo)
    ca, cb = crooked(a), crooked(b)
    for _ in range(12):
        if ca < cb:
            hi, b, cb = b, a, ca
            a = hi - 0.618 * (hi - lo)
            ca = crooked(a)
        else:
            lo, a, ca = a, b, cb
            b = lo + 0.618 * (hi - lo)
            cb = crooked(b)
    k = float(0.5 * (lo + hi))
    if abs(k) < config.min_k1 or crooked(k) > config.straighter * straight:
        return 0.0
    return k


def _crossing_image(gray: np.ndarray) -> np.ndarray:
    """The gray work image as :func:`line_polarity` samples it (lightly blurred)."""
    return cv2.GaussianBlur(gray, (0, 0), 0.7).astype(np.float32)


def _crossing_contrast(sm: np.ndarray, Hm: np.ndarray, na: int, nb: int) -> np.ndarray:
    """Median brightness of the grid lines minus the board right beside them, measured at
    the line crossings, where no stone reaches (a stone's rim stays ~0.2 cell away from
    every crossing). Positive: light lines (the 9x9 face); negative: dark lines (7x8).
    Between stones the bare board shows as a thin strip along each line, which the
    opposite polarity's line image also picks up; the crossings tell the two apart.
    ``sm``: :func:`_crossing_image` of the gray image."""
    ii, jj = np.meshgrid(np.arange(1, na), np.arange(1, nb), indexing="ij")
    cross = np.column_stack([ii.ravel(), jj.ravel()]).astype(float)
    on_offsets = np.array([(0, 0), (0.07, 0), (-0.07, 0), (0, 0.07), (0, -0.07)])
    off_offsets = np.array([(0.14, 0.14), (-0.14, 0.14), (0.14, -0.14), (-0.14, -0.14)])
    def sample(offsets):
        pts = (cross[:, None, :] + offsets[None]).reshape(-1, 2)
        v, ok = _sample(sm, _project(Hm, pts))
        v = np.where(ok, v, np.nan).reshape(len(cross), len(offsets))
        return v
    on, off = sample(on_offsets), sample(off_offsets)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # crossings out of view: NaN
        diff = _nanmedian(on, axis=1) - _nanmedian(off, axis=1)
    return diff[np.isfinite(diff)]


def line_polarity(gray: np.ndarray, Hm: np.ndarray, na: int, nb: int,
                  sm: Optional[np.ndarray] = None) -> Tuple[float, float]:
    """(median, agreement) of the line-minus-board contrast at the line crossings, where
    no stone reaches (a stone's rim stays ~0.2 cell away from every crossing). A positive
    median means light lines (the 9x9 face), negative dark lines (7x8); agreement is the
    share of crossings with the median's sign (~1 for a real grid, ~0.5 for chance).
    Between stones the bare board shows as a thin strip along each line, which the
    opposite polarity's line image also picks up; the crossings tell the two apart.
    ``sm``: :func:`_crossing_image` of ``gray`` when already made (once for all its grids)."""
    diff = _crossing_contrast(_crossing_image(gray) if sm is None else sm, Hm, na, nb)
    if not len(diff):
        return 0.0, 0.0
    median = float(np.median(diff))
    return median, float(np.mean(np.sign(diff) == np.sign(median)))


# ---------------------------------------------------------------------------------------
# The board's physical extent


_LAB_SCALE = np.stack([np.arange(256) * (100.0 / 255), np.arange(256) - 128.0, np.arange(256) - 128.0],
                      -1).reshape(256, 1, 3).astype(np.float32)


def _lab(small_bgr: np.ndarray) -> np.ndarray:
    """Lab (L 0..100) from OpenCV's 8-bit conversion, many times faster than its float one
    (scaled by a lookup table: one pass, where arithmetic on every channel takes several)."""
    return cv2.LUT(cv2.cvtColor(small_bgr, cv2.COLOR_BGR2LAB), _LAB_SCALE)


def _lab_at(frame_bgr: np.ndarray, gray: np.ndarray, scale: float) -> np.ndarray:
    """:func:`_lab` of the frame at the size of its work image ``gray`` (the frame at
    ``scale``)."""
    small = cv2.resize(frame_bgr, gray.shape[::-1], interpolation=cv2.INTER_AREA) if scale < 1 else frame_bgr
    return _lab(small)


def _nanmedian(values: np.ndarray, axis: int) -> np.ndarray:
    """``np.nanmedian`` along ``axis`` (NaN where a slice has no number), without the
    masked arrays numpy falls back on for short slices, which cost more than the rest
    of a grid check."""
    a = np.moveaxis(np.asarray(values, np.float64), axis, -1)
    ordered = np.sort(a, axis=-1)                                   # NaN sorts last
    n = np.isfinite(a).sum(axis=-1)[..., None]
    lo = np.take_along_axis(ordered, np.maximum(n - 1, 0) // 2, -1)[..., 0]
    hi = np.take_along_axis(ordered, np.minimum(n // 2, a.shape[-1] - 1), -1)[..., 0]
    return np.where(n[..., 0] > 0, 0.5 * (lo + hi), np.nan)


def _bare_colours(lab: np.ndarray, Hm: np.ndarray, pts: np.ndarray, lens: Optional[Callable] = None) -> np.ndarray:
    """Lab colours (N, k, 3) at board points (N, k, 2); NaN outside the image."""
    shape = pts.shape[:2]
    img_pts = _project(Hm, pts.reshape(-1, 2), lens).astype(np.float32)
    n = len(img_pts)
    cols = 256                        # OpenCV maps must stay under 32767 on each side
    grid = np.full((-(-n // cols) * cols, 2), -10.0, np.float32)
    grid[:n] = img_pts
    grid = grid.reshape(-1, cols, 2)
    # Points off the image come back far below any Lab value (L 0..100, a and b +-128).
    vals = cv2.remap(lab, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=(-1000.0, -1000.0, -1000.0)).reshape(-1, 3)[:n]
    vals[(vals < -300).any(axis=1)] = np.nan
    return vals.reshape(shape + (3,))


def _colour_distance(col: np.ndarray, to: np.ndarray) -> np.ndarray:
    # Lightness counts less: a forearm's shadow darkens a whole side of bare board.
    return np.sqrt((((col - to) * (0.4, 1.0, 1.0)) ** 2).sum(axis=-1))


def _like(col: np.ndarray, colours: Sequence[np.ndarray]) -> np.ndarray:
    """Whether each colour of ``col`` (..., 3) is near any of ``colours`` (each one colour
    or one per point); False for NaN."""
    with np.errstate(invalid="ignore"):
        return np.logical_or.reduce([_colour_distance(col, c) < 14.0 for c in colours])


#: Where a margin is judged, in cells outside an outer line: a strip where a printed
#: border line may run; and, past a band of border lines that fills the strip, where the
#: bare margin beyond them is looked for (a narrow margin's edge can come soon after).
MARGIN_STRIP = np.array([0.07, 0.11, 0.15, 0.19, 0.23, 0.27])
PAST_THE_BAND = np.arange(0.31, 0.70, 0.04)


def _margin_board(look: Callable, refs: Sequence[Callable], inks: Callable, flat_below: float) -> List[np.ndarray]:
    """Which runs of points across a side's margin are board, once per entry of ``refs``.

    On :data:`MARGIN_STRIP`, each point is bare board (the board's colour, flat) or print
    (the lines' colour, on a line): a run is board when half of it is one or the other
    and some of it is bare board. A band of printed lines may fill the strip (several
    border lines, which blur into one at the work size, or show in no one colour under
    a glare): a run whose every point is on a line or of the board's colour, some on a
    line, is board when the first flat point past it (:data:`PAST_THE_BAND`) has the
    board's colour. A table's stripes beyond a grid a cell too large fill the strip too,
    but the table beyond them is not board.

    ``look(offsets)``: the Lab colours, line responses and board points of every run at
    those offsets; each of ``refs``, and ``inks``, of those points: the board's colours
    there, and the lines' (each one colour, or one per run or per point)."""
    col, response, pts = look(MARGIN_STRIP)
    with np.errstate(invalid="ignore"):                                 # NaN: neither
        on_line = response >= flat_below
        flat = response < flat_below
    printed = _like(col, inks(pts)) & on_line
    board, bands = [], []
    for ref in refs:
        like = _like(col, ref(pts))
        bare = like & flat
        board.append(((bare | printed).mean(axis=1) >= 0.5) & bare.any(axis=1))
        bands.append((on_line | like).all(axis=1) & on_line.any(axis=1))
    if not any(band.any() for band in bands):
        return board
    col, response, pts = look(PAST_THE_BAND)
    with np.errstate(invalid="ignore"):
        flat = response < flat_below
    first = np.argmax(flat, axis=1)
    runs = np.arange(len(first))
    def first_flat_is_board(ref: Callable) -> np.ndarray:
        colours = [np.broadcast_to(c, col.shape)[runs, first] for c in ref(pts)]
        return flat[runs, first] & _like(col[runs, first], colours)
    past = [band & first_flat_is_board(ref) for band, ref in zip(bands, refs)]
    return [b | p for b, p in zip(board, past)]


def extent_measures(lab: np.ndarray, lines_dil: np.ndarray, Hm: np.ndarray, na: int, nb: int,
                    lens: Optional[Callable] = None) -> Dict[str, float]:
    """How well a grid (``Hm``: board cells -> pixels of ``lab`` and ``lines_dil``; then
    ``lens``, see :func:`_project`) sits on a board. Every line should show along its
    whole length (near the crossings, where no stone reaches, and halfway between them),
    and every outer row of cells and the margin beyond every outer line should be bare
    board where no stone reaches (the cells' corners, 0.12 cells in from the crossings,
    and a strip 0.07-0.27 cells outside the outer lines, where a printed border line
    may run): the board's colour (its median, or under a lamp's gradient the colour its
    inner cells have there, :func:`.colour.colour_plane`), and flat (wood grain and a cloth's
    weave or checks are not).

    Returns, each the worst over lines or sides:

    * ``line``: a line's share of cell sides where it shows near the crossings (the
      worst line's); ``halfway``: the same halfway between them, the median line's;
    * ``across``: an outer row's (or column's) share of the lines across it that show in
      it (the worst of the four): a grid a cell off, out to the board's edge, a printed
      border line or a title's column, has its outer row in the margin, where the
      board's lines end;
    * ``onward``: a side's share of lines that go on past the outer line across them,
      in the margin strip and half a cell further (the most of the four): a table's
      tiles or checks that pass for a grid go on, a board's lines end;
    * ``margin``: a side's share of board-like margin points;
    * ``ring``: a side's share of board-like outer cells or margin points, whichever is
      more (a side of stones, as at the start, shows little bare board in its cells);
    * ``beyond``: how much better the grid would fit moved by a cell: the share of a
      line one cell beyond the grid that looks like a grid line, less the share of the
      outer line on the other side (a grid a cell off the board gains the board's own
      line and loses one on the table);
    * ``margin_beside``, ``ring_beside``: ``margin`` and ``ring`` with a margin point
      board-like also when it has the colour of the outer row's cells beside it (their
      corners on the first inner line): under a spot's edge across the board no colour
      plane holds it (:func:`_passes` takes them for a grid whose lines all show and end
      at its outer lines only).
    """
    def sample(pts):
        v, ok = _sample(lines_dil, _project(Hm, pts.reshape(-1, 2), lens))
        return np.where(ok, v, np.nan).reshape(pts.shape[:-1])
    # Lines along their whole length: near both ends of every cell side; and the lines
    # one cell beyond the outer ones, where a grid a cell off the board has a true line.
    # Mid-side too (best of three points, as a stone may reach the line there): a grid
    # whose "lines" run diagonally from crossing to crossing has all its crossings on
    # the board's, but nothing halfway between them, on any line. The typical line
    # counts there, not the worst: in a crowd of stones in dim light their rims and
    # shadows hide most of a line's mid-sides.
    near = np.array([0.1, 0.18, 0.82, 0.9])
    middle = np.array([0.38, 0.5, 0.62])
    outside = np.array([0.17, 0.22, 0.27])
    further = np.array([0.5, 0.6, 0.7])
    beside = np.array([0.0, -0.2, 0.2])         # on the line, and either side of it
    strength, halfway, onward = [], 1.0, 0.0
    for fam, n, span in ((0, na, nb), (1, nb, na)):
        # Every line -1 .. n + 1 at once, on it and either side, at the points near the
        # crossings, halfway between them and past its ends: one projection.
        cells = np.arange(span)[:, None]
        tt = np.concatenate([(cells + near).ravel(), (cells + middle).ravel(),
                             -outside, -further, span + outside, span + further])
        a = np.broadcast_to(beside[:, None, None] + np.arange(-1, n + 2)[None, :, None], (3, n + 3, len(tt)))
        b = np.broadcast_to(tt[None, None], (3, n + 3, len(tt)))
        on, lo, hi = sample(np.stack([a, b], -1) if fam == 0 else np.stack([b, a], -1))    # NaN: out of the image
        # Beside the line: the quieter side (a printed border line may run along the
        # outer lines, a tenth of a cell or so outside).
        side = np.fmin(lo, hi)
        k, m = span * len(near), span * len(middle)
        strength.append((on[:, :k].reshape(n + 3, span, -1).mean(axis=2), side[:, :k].reshape(n + 3, span, -1).mean(axis=2)))
        with np.errstate(invalid="ignore"):
            mid = _shows(on[:, k:k + m], side[:, k:k + m]).reshape(n + 3, span, -1).any(axis=2)
            # Past both ends of the lines, in the margin: a board's lines end at its
            # outer lines, a table's tiles or checks that pass for a grid go on.
            goes_on = _shows(on[:, k + m:].reshape(n + 3, 4, -1).mean(axis=2),
                             side[:, k + m:].reshape(n + 3, 4, -1).mean(axis=2))[1:-1]
        halfway = min(halfway, float(np.median(mid[1:-1].mean(axis=1))))
        onward = max(onward, float((goes_on[:, 0] & goes_on[:, 1]).mean()), float((goes_on[:, 2] & goes_on[:, 3]).mean()))
    grid_on = np.concatenate([on[1:-1].ravel() for on, _ in strength])
    typical = float(np.nanmedian(grid_on)) if np.isfinite(grid_on).any() else 0.0
    worst, beyond, across = 1.0, 0.0, 1.0
    with np.errstate(invalid="ignore"):
        for on, off in strength:
            present = _shows(on, off)
            share = present.mean(axis=1)
            worst = min(worst, float(share[1:-1].min()))
            # The other family's outer rows: in the margin no line crosses them.
            across = min(across, float(present[1:-1, 0].mean()), float(present[1:-1, -1].mean()))
            # A margin line only counts as a grid line where it is as strong as they are.
            # Moved a cell towards it, the grid would gain that line and lose its far one.
            like_grid = (present & (on > 0.5 * typical) & (on < 2.0 * typical)).mean(axis=1)
            beyond = max(beyond, float(like_grid[0] - share[-2]), float(like_grid[-1] - share[1]))
    # Flat: no line response anywhere in a short run of points from the spot away from
    # the lines (a wood grain's streaks or a cloth's checks show in it), above the
    # board's own noise just beside the lines.
    beside = np.concatenate([off[1:-1].ravel() for _, off in strength])
    noise = float(np.nanmedian(beside)) if np.isfinite(beside).any() else 0.0
    flat_below = max(0.35 * typical, 2.5 * noise, 2.0)
    def board_like(col, runs):
        """Board-coloured, and flat along the whole run."""
        with np.errstate(invalid="ignore"):
            flat = (sample(runs) < flat_below).all(axis=-1)             # NaN counts as not flat
            return _like(col, refs) & flat
    # Bare spots: the four corners of every cell (0.12 cells in from the crossing, the
    # run going on diagonally to 0.24), and the margin strip. A cell is bare board when
    # two of its corners are (a stack's side or a tall stack's top may hide the others).
    f, r = np.meshgrid(np.arange(na), np.arange(nb), indexing="ij")
    base = np.stack([f, r], -1).reshape(-1, 1, 1, 2).astype(float)
    toward = np.array([(1, 1), (-1, 1), (1, -1), (-1, -1)], float)       # from each corner inwards
    start = np.array([(0, 0), (1, 0), (0, 1), (1, 1)], float)
    steps = np.array([0.12, 0.16, 0.2, 0.24])
    runs = base + (start[:, None, :] + toward[:, None, :] * steps[None, :, None])[None]
    corners = runs[:, :, 0]
    cells = _bare_colours(lab, Hm, corners, lens)                        # (na*nb, 4, 3)
    # The board's colour: its median, or where a lamp's gradient across the board leaves
    # it (:func:`.colour.colour_plane`), fitted to the inner cells alone: a grid a cell off
    # has its outer row on the table, and what lies beyond its outer line is judged
    # against the board's colour carried on. The median stays, as a glare in the
    # board's middle or a hand's shadow at one side can tilt the plane.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = _nanmedian(cells.reshape(-1, 3), axis=0)
    inner = ((f > 0) & (f < na - 1) & (r > 0) & (r < nb - 1)).ravel()
    plane = colour_plane(corners[inner].reshape(-1, 2), cells[inner].reshape(-1, 3))
    refs = (ref, colour_at(plane, corners))
    like = (board_like(cells, runs).sum(axis=1) >= 2).reshape(na, nb)
    rows = [like[0], like[-1], like[:, 0], like[:, -1]]               # the sides, as below
    # The margin: a run from 0.07 to 0.27 cells outside every outer line at every cell's
    # middle and quarters.
    t = (np.arange(max(na, nb))[:, None] + np.array([0.25, 0.5, 0.75])[None]).ravel()
    # A printed border line may run in the margin, often so close to the outer line that
    # at the work size the two leave hardly a pixel of bare board between them, and the
    # board's edge may follow soon after. So each sample of the run is either bare board
    # (the board's colour, flat) or print (the lines' colour, on a line): a point is
    # board when half its run is one or the other and some of it is bare board; or,
    # where a band of border lines fills the run, when bare board comes next
    # (:func:`_margin_board`). The lines' colour is taken at the grid's inner
    # crossings, where no stone reaches.
    ci, cj = np.meshgrid(np.arange(1, na), np.arange(1, nb), indexing="ij")
    crossings = np.stack([ci, cj], -1).reshape(-1, 2).astype(float)
    ink_colours = _bare_colours(lab, Hm, crossings[:, None], lens)[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ink = _nanmedian(ink_colours, axis=0)
    ink_plane = colour_plane(crossings, ink_colours)
    margins, margins_beside = [], []
    for fam, n, span in ((0, na, nb), (1, nb, na)):
        tt = t[t < span]
        # The outer row's cells, at their two corners on the first inner line: under a
        # spot's edge no plane holds the board's colour, but the margin is lit as the
        # cells beside it are (``margin_beside``). A grid a cell off the board has those
        # corners in the board's margin, and the table beyond its outer line.
        within = np.floor(tt)[:, None] + np.array([0.12, 0.88])[None]
        for edge, sign in ((0.0, -1.0), (float(n), 1.0)):
            def look(out):
                pts = np.stack([np.broadcast_to(edge + sign * out[None], (len(tt), len(out))),
                                np.broadcast_to(tt[:, None], (len(tt), len(out)))], -1)
                pts = pts if fam == 0 else pts[..., ::-1]
                return _bare_colours(lab, Hm, pts, lens), sample(pts), pts
            near = np.stack([np.full(within.shape, edge - sign * 0.88), within], -1)
            beside = _bare_colours(lab, Hm, near if fam == 0 else near[..., ::-1], lens)
            board, lit_alike = _margin_board(look, (lambda pts: (ref, colour_at(plane, pts)),
                                                    lambda pts: (beside[:, :1], beside[:, 1:])),
                                             lambda pts: (ink, colour_at(ink_plane, pts)), flat_below)
            margins.append(float(board.mean()))
            margins_beside.append(float((board | lit_alike).mean()))
    # A side's outer cells may all hold stones (the start position) and then show
    # little bare board; a side is off the board when its margin does not make up for it.
    ring = min(max(float(row.mean()), margin) for row, margin in zip(rows, margins))
    ring_beside = min(max(float(row.mean()), margin) for row, margin in zip(rows, margins_beside))
    return {"ring": float(ring), "margin": float(min(margins)), "line": worst, "halfway": halfway, "beyond": beyond,
            "across": across, "onward": onward, "ring_beside": float(ring_beside),
            "margin_beside": float(min(margins_beside))}


def _margins_moved(lab: np.ndarray, lines_dil: np.ndarray, Hm: np.ndarray, na: int, nb: int, fam: int,
                   sign: int) -> Tuple[float, float]:
    """The grid ``Hm`` against itself moved a cell (``sign``) across family ``fam``: the
    share of board-like margin beyond the outer line only the grid has, and beyond the
    one only the moved grid has (the margin strip and rule of :func:`extent_measures`).

    Only one of those two lines is the board's outer line, with the board's margin
    beyond it; the other is the board's physical edge or a line of the table a cell
    beyond, with the table beyond it. The board's colour, its lines' colour and its
    flatness come from the cells and lines the two grids share: a table that lines up
    with the grid and looks like board in places cannot set its own reference."""
    n, span = (na, nb) if fam == 0 else (nb, na)
    def to_board(x, y):
        pts = np.stack(np.broadcast_arrays(x, y), -1)
        return pts if fam == 0 else pts[..., ::-1]
    def sample(pts):
        v, ok = _sample(lines_dil, _project(Hm, pts.reshape(-1, 2)))
        return np.where(ok, v, np.nan).reshape(pts.shape[:-1])
    first = 1 if sign > 0 else 0                     # the shared cells: columns first..first+n-2
    cols = np.arange(first, first + n - 1, dtype=float)
    corner = np.array([0.12, 0.88])                  # the cells' corners, where no stone reaches
    across, along = np.meshgrid(cols, np.arange(span, dtype=float), indexing="ij")
    across, along = np.broadcast_arrays(across[..., None, None] + corner[:, None], along[..., None, None] + corner)
    tt = (np.arange(span)[:, None] + np.array([0.1, 0.18, 0.82, 0.9])[None]).ravel()
    inner = cols[1:, None]                           # the shared lines
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = _nanmedian(_bare_colours(lab, Hm, to_board(across.reshape(-1, 1), along.reshape(-1, 1))
                                       ).reshape(-1, 3), axis=0)
        ink = _nanmedian(_bare_colours(lab, Hm, to_board(inner, np.arange(1, span, dtype=float)[None])
                                       ).reshape(-1, 3), axis=0)
        on = sample(to_board(inner, tt[None]))
        off = np.fmin(sample(to_board(inner - 0.2, tt[None])), sample(to_board(inner + 0.2, tt[None])))
        typical, noise = float(np.nanmedian(on)), float(np.nanmedian(off))
    flat_below = max(0.35 * typical, 2.5 * noise, 2.0) if np.isfinite([typical, noise]).all() else 2.0
    t = (np.arange(span)[:, None] + np.array([0.25, 0.5, 0.75])[None]).ravel()
    def margin(edge, outward):
        def look(out):
            pts = to_board(edge + outward * out[None], t[:, None])
            return _bare_colours(lab, Hm, pts), sample(pts), pts
        return float(_margin_board(look, (lambda pts: (ref,),), lambda pts: (ink,), flat_below)[0].mean())
    if sign > 0:
        return margin(0.0, -1.0), margin(float(n + 1), 1.0)
    return margin(float(n), 1.0), margin(-1.0, -1.0)


def board_extent(calibration: Calibration, frame_bgr: np.ndarray, config: LocateConfig = DEFAULT) -> Dict[str, float]:
    """:func:`extent_measures` of a calibrated grid in a frame (at the search's work
    size, as the locator checks its grids), with ``on_board``: 1.0 when the grid passes
    :func:`on_a_board`, else 0.0."""
    h, w = frame_bgr.shape[:2]
    width, height = dimensions(calibration.board)
    gray, scale = _work_gray(frame_bgr, config.work_size)
    dil = _dilate(line_image(gray, light_lines(calibration.board), config.kernel))
    cw, ch = calibration.image_size
    A = np.diag([scale * w / cw, scale * h / ch])
    lens = None if calibration.k1 == 0 else (lambda p: calibration.distort(p) @ A.T)
    Hm = calibration.homography() if lens else np.diag([scale * w / cw, scale * h / ch, 1.0]) @ calibration.homography()
    m = extent_measures(_lab_at(frame_bgr, gray, scale), dil, Hm, width, height, lens)
    m["on_board"] = float(_passes(m, config))
    return m


def shows_its_lines_closely(calibration: Calibration, frame_bgr: np.ndarray, config: LocateConfig = DEFAULT) -> bool:
    """Whether a calibrated grid passes the line checks of :func:`_passes` at twice the
    work size: every line shown along its length, none gained a cell beyond, the lines
    across each outer row, none running on. (Its margin was weighed in the search.)"""
    return _passes_lines(board_extent(calibration, frame_bgr, replace(config, work_size=2 * config.work_size)),
                         replace(config, min_line=config.close_line))


def _passes_lines(m: Dict[str, float], config: LocateConfig) -> bool:
    """:func:`_passes` but for the margin and ring, which the work size can lose (a
    printed border line close to the outer line blurs into it)."""
    return _passes(dict(m, margin=1.0, ring=1.0, margin_beside=1.0, ring_beside=1.0), config)


def _passes(m: Dict[str, float], config: LocateConfig) -> bool:
    # A grid whose lines all show and end at its outer lines may be judged by the
    # margin's likeness to the cells beside it (a spot's edge across the board); a grid
    # of a table's lines partly over the board shows its lines less or runs on. Beyond a
    # low spot's edge the stones' long shadows cross the lines: half a line may be lost.
    ends = m["line"] >= config.beside_line and m["onward"] <= config.beside_onward
    ring, margin = (m["ring_beside"], m["margin_beside"]) if ends else (m["ring"], m["margin"])
    clean_ends = (min(m["line"], m["halfway"]) >= config.ends_line and m["across"] >= config.ends_across
                  and m["onward"] <= config.ends_onward and m["beyond"] <= config.ends_beyond)
    return (m["line"] >= config.min_line and m["halfway"] >= config.min_line
            and (clean_ends or ring >= config.min_ring and margin >= config.min_margin)
            and m["beyond"] <= config.max_beyond and m["across"] >= config.min_across
            and m["onward"] <= config.max_onward)


def on_a_board(lab: np.ndarray, lines_dil: np.ndarray, Hm: np.ndarray, na: int, nb: int,
               config: LocateConfig = None) -> bool:
    """Whether a grid sits on a board (see :func:`extent_measures`): every line shows
    along a good part of its length (a hand hides at most about half of one), and every
    outer row of cells and the margin beyond every outer line are mostly bare board.
    A grid found in a checked or striped cloth, in wood grain, or partly off the board
    fails at least one of these."""
    return _passes(extent_measures(lab, lines_dil, Hm, na, nb), config or DEFAULT)


# ---------------------------------------------------------------------------------------
# Orientation


def _cell_colours(frame_bgr: np.ndarray, calibration: Calibration) -> np.ndarray:
    """Median Lab colour of nine points around every cell centre (cell_names order);
    NaN for cells outside the frame. Only those pixels are converted to Lab (the whole
    frame would cost more than the rest of the orientation)."""
    offs = np.array([(dx, dy) for dx in (-0.15, 0, 0.15) for dy in (-0.15, 0, 0.15)])
    centres = np.array([(f + 0.5, r + 0.5) for f, r in map(cell_index, cell_names(calibration.board))])
    pts = calibration.to_image((centres[:, None, :] + offs[None]).reshape(-1, 2))
    h, w = frame_bgr.shape[:2]
    xi = np.round(pts[:, 0]).astype(np.int64)
    yi = np.round(pts[:, 1]).astype(np.int64)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    picked = np.zeros((len(pts), 1, 3), np.uint8)
    picked[ok, 0] = frame_bgr[yi[ok], xi[ok]]
    lab = cv2.cvtColor(picked, cv2.COLOR_BGR2LAB)[:, 0].astype(np.float32)
    lab[~ok] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # cells out of view: NaN
        return _nanmedian(lab.reshape(len(centres), -1, 3), axis=1)


def _camp_masks(board: str, turn: int) -> Tuple[np.ndarray, np.ndarray]:
    """Red and Black camp cells (cell_names order) when the board is turned ``turn``
    quarter turns (a1 at the corner reached by going ``turn`` corners along)."""
    def here(camp):
        cells = {cell_name(*turned(board, *cell_index(name), turn)) for name in camp}
        return np.array([name in cells for name in cell_names(board)])
    return here(red_camp(board)), here(black_camp(board))


def start_orientation(frame_bgr: np.ndarray, calibration: Calibration,
                      config: LocateConfig = DEFAULT) -> Optional[int]:
    """Quarter turns that put a1 at Red's camp when the frame shows the start position,
    or None when it does not (or the colours do not separate clearly)."""
    board = calibration.board
    colours = _cell_colours(frame_bgr, calibration)
    a = colours[:, 1]
    best = None
    for turn in turns_allowed(board):
        red, black = _camp_masks(board, turn)
        ra, ba = a[red], a[black]
        if np.isnan(ra).any() or np.isnan(ba).any():
            return None
        diff = np.median(ra) - np.median(ba)
        if best is None or diff > best[0]:
            best = (diff, turn, red, black)
    diff, turn, red, black = best
    if diff < config.orient_margin:
        return None
    red_a = float(np.median(a[red]))
    mid = (red_a + np.median(a[black])) / 2
    empty = ~(red | black)
    # The start position: every camp cell on its side of the divide, and nothing in the
    # gap as red as Red's stones (an empty warm board can still sit above the midpoint).
    if ((a[red] > mid).mean() < 0.9 or (a[black] < mid).mean() < 0.9
            or (a[empty] < red_a - 0.25 * diff).mean() < 0.9):
        return None
    return turn


# ---------------------------------------------------------------------------------------
# The public entry points


def _level(image: np.ndarray, percentile: float) -> float:
    """The ``percentile`` of an image of whole values 0..255 (a gray image, a line
    image), from its histogram: much cheaper than sorting its pixels."""
    # (OpenCV's histogram of 8-bit pixels costs a third of numpy's count.)
    counts = cv2.calcHist([image.astype(np.uint8, copy=False)], [0], None, [256], [0, 256]).astype(np.int64)
    return float(np.searchsorted(np.cumsum(counts), percentile / 100.0 * (image.size - 1), side="right"))


def _work_gray(frame: np.ndarray, work_size: int) -> Tuple[np.ndarray, float]:
    """The frame in gray, scaled so its longer side is at most ``work_size``; and the scale."""
    h, w = frame.shape[:2]
    scale = min(1.0, work_size / max(h, w))
    return _gray_at(frame, scale), scale


def _gray_at(frame: np.ndarray, scale: float) -> np.ndarray:
    small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    # Sensor noise in dim light makes a top-hat full of specks: smooth it away first.
    # Noise level: robust spread of what a 3x3 median filter removes.
    noise = 1.25 * float(np.mean(cv2.absdiff(gray, cv2.medianBlur(gray, 3))))
    if noise > 0.04 * max(_level(gray, 95) - _level(gray, 5), 1.0):
        gray = cv2.GaussianBlur(gray, (0, 0), 0.9)
    return gray


def _dilate(lines: np.ndarray) -> np.ndarray:
    return cv2.dilate(lines, np.ones((3, 3), np.uint8))


def _grid_corners(Hm: np.ndarray, width: int, height: int) -> np.ndarray:
    """The grid's corners (0,0), (W,0), (W,H), (0,H) in the image."""
    return _project(Hm, np.array([[0, 0], [width, 0], [width, height], [0, height]], float))


def _canonical(Hm: np.ndarray, width: int, height: int) -> np.ndarray:
    """Board corners (0,0),(W,0),(W,H),(0,H) in the image, mirrored if needed so that the
    board is seen from above (rank direction turns clockwise from the file direction on
    screen, as for a camera looking down)."""
    corners = _grid_corners(Hm, width, height)
    u = corners[1] - corners[0]
    v = corners[3] - corners[0]
    if u[0] * v[1] - u[1] * v[0] > 0:      # mirrored: swap the file direction
        corners = corners[[1, 0, 3, 2]]
    return corners


def _guess_a1(corners: np.ndarray, board: str) -> np.ndarray:
    """Without stones to tell, put a1 at the allowed corner nearest the image's bottom-left."""
    def badness(k):
        c = np.roll(corners, -k, axis=0)[0]
        return c[0] - c[1]
    k = min(turns_allowed(board), key=badness)
    return np.roll(corners, -k, axis=0)


def _lines_of(memo: Dict, gray: np.ndarray, face: str, kernel: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The face's line image of ``gray``, blurred (:func:`_blurred`) and dilated: made
    once per ``memo`` (one per work image), for every search and look at that image."""
    key = ("lines", face, gray.shape[0], kernel)
    if key not in memo:
        lines = line_image(gray, light_lines(face), kernel)
        memo[key] = (lines, _blurred(lines), _dilate(lines))
    return memo[key]


def _lab_of(memo: Dict, frame_bgr: np.ndarray, gray: np.ndarray, scale: float) -> np.ndarray:
    """The frame's Lab at the size of ``gray`` (``scale``), made once per ``memo``."""
    key = ("lab", gray.shape[0])
    if key not in memo:
        memo[key] = _lab_at(frame_bgr, gray, scale)
    return memo[key]


def _search(frame_bgr: np.ndarray, gray: np.ndarray, scale: float, faces: Sequence[str], kernel: int,
            config: LocateConfig, memo: Optional[Dict] = None, min_run: float = 0.0, clear_table=False):
    """Best (score, face, homography, cells along family a, along family b) in a work
    image (``gray``: the frame at ``scale``), or None. Grids that reach out of the frame
    are not taken: their margin, and often a whole line, cannot be checked; nor are grids
    that do not sit on a board (:func:`on_a_board`).

    ``memo``: what one search of this image leaves for the next (with another
    ``config``): its line families, colours, and the grids it refused, which the next
    one passes over. ``min_run``: see :func:`_line_families`. ``clear_table``: the
    candidates come from the line image without the table's lines
    (:func:`_cleared_of_table`), True, or without a fine pattern's (:func:`_cleared_of_texture`),
    "texture", or from inside the board's outline (:func:`_outline_grids`), "outline";
    every grid is still weighed on the whole line image."""
    h, w = gray.shape
    memo = {} if memo is None else memo
    def lab() -> np.ndarray:
        return _lab_of(memo, frame_bgr, gray, scale)
    def crossings() -> np.ndarray:
        if ("crossings", h) not in memo:
            memo["crossings", h] = _crossing_image(gray)
        return memo["crossings", h]
    refused = memo.setdefault(("refused", h, kernel), [])
    finer = memo.setdefault(("finer", h, kernel), {})
    measured = memo.setdefault(("measures", h, kernel), {})
    def measures(dil: np.ndarray, Hm: np.ndarray, na: int, nb: int) -> Dict[str, float]:
        """:func:`extent_measures` of a grid in this image, each grid measured once (a
        grid refused for its margin is measured again more closely, a 7x8 grid again
        for its swaps; and later searches meet the grids of earlier ones)."""
        key = (id(dil), Hm.tobytes(), na, nb)
        if key not in measured:
            measured[key] = extent_measures(lab(), dil, Hm, na, nb)
        return measured[key]
    def on_board(dil: np.ndarray, Hm: np.ndarray, na: int, nb: int) -> bool:
        return _passes(measures(dil, Hm, na, nb), config)
    def on_board_finer(face: str, Hm: np.ndarray, na: int, nb: int) -> bool:
        """A grid refused for its margin alone, checked again at twice the size when
        the frame has the pixels: at the work size a printed border line close to the
        outer line blurs into it, and the strip of bare board between them is lost."""
        m = measures(dil, Hm, na, nb)
        if scale >= 1 or not _passes_lines(m, config):
            return False
        if face not in finer:
            closer = min(1.0, 2 * scale)
            gray2 = _gray_at(frame_bgr, closer)
            if "lab" not in finer:
                finer["lab"] = (_lab_at(frame_bgr, gray2, closer), np.diag([closer / scale, closer / scale, 1.0]))
            finer[face] = (_dilate(line_image(gray2, light_lines(face), kernel)), finer["lab"][1])
        lab2, up = finer["lab"][0], finer[face][1]
        return _passes(extent_measures(lab2, finer[face][0], up @ Hm, na, nb), config)
    rankings: Dict[str, Tuple] = {}
    def ranking(face: str):
        """The face's line image blurred (:func:`_blurred`) and dilated, its candidates
        (score, homography, na, nb) best first, and the crossing polarity of those
        looked at so far, by rank."""
        if face not in rankings:
            lines, smooth, dil = _lines_of(memo, gray, face, kernel)
            key = ("families", face, h, kernel, min_run, config.family_spread_deg, clear_table)
            if key not in memo:
                def hough(percentile: float, floor: float) -> np.ndarray:
                    found = ("hough", face, h, kernel, min_run, percentile, floor)
                    if found not in memo:
                        # (The ridges are the same with and without short pieces.)
                        ridges = ("ridges", face, h, kernel, percentile, floor)
                        if ridges not in memo:
                            memo[ridges] = _ridges(smooth, percentile, floor)
                        memo[found] = _hough(smooth, config, percentile, floor, min_run, memo[ridges])
                    return memo[found]
                if clear_table == "outline":
                    if ("outlines", h) not in memo:
                        memo["outlines", h] = _board_outlines(lab(), config)
                    memo[key] = _outline_grids(smooth, memo["outlines", h], face, config)
                elif clear_table == "texture":
                    cleared = _cleared_of_texture(lines, smooth, config)
                    memo[key] = (([], np.zeros(2)) if cleared is None else
                                 _line_families(cleared, _blurred(cleared), config, min_run))
                elif clear_table:
                    cleared = _cleared_of_table(lines, dil, hough(95, 0.2), config)
                    memo[key] = _line_families(cleared, _blurred(cleared), config, min_run)
                else:
                    memo[key] = _line_families(lines, smooth, config, min_run, hough)
            # Ranked coarsely first (a third of the samples), then the best few in full.
            def ranked(candidates, per_cell):
                """(score, homography, na, nb), best first (in the order given on a tie).
                Each grid is scored once per image: the search looking further down the
                ranking meets the first search's grids again."""
                known = memo.setdefault(("scores", face, h, kernel, per_cell), {})
                keys = [(Hm.tobytes(), na, nb) for Hm, na, nb in candidates]
                for shape in {(na, nb) for _, na, nb in candidates}:
                    group = [i for i, (_, na, nb) in enumerate(candidates) if (na, nb) == shape and keys[i] not in known]
                    fits = _scores(dil, [candidates[i][0] for i in group], *shape, per_cell=per_cell)
                    known.update(zip((keys[i] for i in group), fits))
                fits = np.array([known[k] for k in keys])
                return [(fits[i], *candidates[i]) for i in np.argsort(-fits, kind="stable")]
            found = memo[key] if clear_table == "outline" else _candidates(dil, face, config, memo[key])
            coarse = ranked(list(found), 3)
            rankings[face] = (smooth, dil, ranked([c[1:] for c in coarse[:config.ranked]], 8), {})
        return rankings[face]
    def polarity(face: str, rank: int) -> Tuple[float, float]:
        _, _, scored, known = ranking(face)
        if rank not in known:
            known[rank] = line_polarity(gray, *scored[rank][1:], sm=crossings())
        return known[rank]
    def shown(face: str) -> float:
        """The crossing agreement of the face's best candidate that shows the face's
        line polarity; 0 when none does."""
        scored = ranking(face)[2]
        for rank in range(min(6, len(scored))):
            if scored[rank][0] < config.weak_fit:
                break
            median, agreement = polarity(face, rank)
            if (median > 0) == light_lines(face):
                return agreement
        return 0.0
    # The face whose best candidates show its polarity at more crossings goes first: a
    # crisp grid there spares the other face's checks, which cost the most where its
    # candidates lie on the wrong face's grid (their crossings agree only by chance).
    order = list(faces)
    if len(order) == 2 and shown(order[0]) < config.clear_face and shown(order[1]) > shown(order[0]):
        order.reverse()
    best, best_ends = None, 0.0
    for face in order:
        smooth, dil, scored, _ = ranking(face)
        # The face must show its own line polarity at the crossings; refine the best two
        # candidates that do (refining is the expensive step).
        refined = rejected = 0
        looked: List[list] = []          # [na, nb, corners before refining, counted as refined]
        def same_as_looked(na: int, nb: int, corners: np.ndarray) -> bool:
            """Whether a grid with these corners was looked at already (before or after
            refining); then it ends as that one did, and counts as refined if it did."""
            nonlocal refined
            cell = np.linalg.norm(corners[1] - corners[0]) / na
            same = [counted for a, b, c, counted in looked
                    if (a, b) == (na, nb) and np.abs(c - corners).max() < config.same_grid * cell]
            if same and same[0]:
                refined += 1
            return bool(same)
        for rank, (s, Hm, na, nb) in enumerate(scored[:6]):
            if s < config.weak_fit:
                break
            if (polarity(face, rank)[0] > 0) != light_lines(face):
                continue
            # The same grid as one looked at already (a line the Hough transform found
            # twice, or a line's two edges): it refines to that one, and ends the same.
            before = _grid_corners(Hm, na, nb)
            if same_as_looked(na, nb, before):
                if refined >= 2:
                    break
                continue
            refinements = memo.setdefault(("refined", face, h, kernel), {})
            key = (Hm.tobytes(), na, nb)
            if key not in refinements:          # (a later search meets the same candidates)
                Hr = _refine(smooth, Hm, na, nb)
                refinements[key] = (Hr, _score(dil, Hr, na, nb))
            Hr, sr = refinements[key]
            if sr < s:
                Hr, sr = Hm, s
            corners = _grid_corners(Hr, na, nb)
            # Two candidates a line apart often refine to one grid: the checks that
            # follow would end the same for it.
            if same_as_looked(na, nb, corners):
                if refined >= 2:
                    break
                continue
            this, after = [na, nb, before, False], [na, nb, corners, False]
            looked += [this, after]
            tol = 0.25 * np.linalg.norm(corners[1] - corners[0]) / na
            if np.any(corners < -tol) or np.any(corners > np.array([w, h]) + tol):
                continue
            if any(f == face and (a, b) == (na, nb) and np.abs(c - corners).max() < 0.4 * tol
                   for f, a, b, c in refused):
                continue                     # refused already: look further
            if not on_board(dil, Hr, na, nb) and not on_board_finer(face, Hr, na, nb):
                # A grid in a patterned table, or partly off the board. Often it is the
                # board's grid a cell over (a line of the table taken for an outer line):
                # try that, else the next candidate.
                moved = _moved_a_cell(smooth, dil, Hr, na, nb)
                if moved is not None and on_board(dil, moved[1], na, nb):
                    sr, Hr = moved
                else:
                    refused.append((face, na, nb, corners))
                    rejected += 1
                    if rejected == 3:
                        break
                    continue
            else:
                # On a board, but a wood grain or a cloth's stripes can pass for the
                # outer line of a grid a cell off: the board's own fits clearly better.
                moved = _moved_a_cell(smooth, dil, Hr, na, nb)
                if (moved is not None and moved[0] > sr + config.clearly_better
                        and on_board(dil, moved[1], na, nb)):
                    sr, Hr = moved
                # Two grids a cell apart that both sit on a board and fit the lines about
                # equally: the board's edge or a stripe beyond it passes for an outer line.
                edge = _margin_beyond(lab(), smooth, dil, Hr, sr, na, nb, config)
                if edge is not None:
                    sr, Hr = edge
            if na != nb:
                swapped = _swapped(lab(), smooth, dil, Hr, sr, na, nb, config, measures(dil, Hr, na, nb))
                if swapped is not None:
                    sr, Hr = swapped
                    na, nb = nb, na
            refined += 1
            this[3] = after[3] = True
            median, agreement = line_polarity(gray, Hr, na, nb, sm=crossings())
            # A faint pattern (glossy rims, dim light) still counts when nearly every
            # crossing shows this face's line polarity.
            right = (median > 0) == light_lines(face) and agreement >= config.min_agreement
            if right and sr < config.min_fit and agreement >= config.crossing_agreement:
                # Taken on its crossings alone: a fine check's pattern agrees at its
                # crossings too, but shows its lines less and runs on past the outer ones.
                m = measures(dil, Hr, na, nb)
                right = m["line"] >= config.weak_line and m["onward"] <= config.weak_onward
            if right and (sr >= config.min_fit or agreement >= config.crossing_agreement):
                # Of two grids of one face fitting about as well, the one whose lines end
                # at its outer lines (cross its outer rows, go on no further) is the board's;
                # the other runs a cell off, into the margin.
                m = measures(dil, Hr, na, nb)
                ends = m["across"] - m["onward"]
                if best is not None and best[1] == face and abs(sr - best[0]) <= config.near_tie:
                    take = (ends >= best_ends + config.ends_gain
                            or sr > best[0] and ends > best_ends - config.ends_gain)
                else:
                    take = best is None or sr > best[0]
                if take:
                    best, best_ends = (sr, face, Hr, na, nb), ends
            if refined >= 2:
                break
        if best is not None and best[0] >= config.sure_fit:
            break       # a crisp grid of the right polarity: the other face cannot beat it
    return best


def _swapped(lab: np.ndarray, smooth: np.ndarray, dil: np.ndarray, Hm: np.ndarray, score: float, na: int,
             nb: int, config: LocateConfig, measures: Dict[str, float]):
    """The 7x8 grid ``Hm`` (``na`` x ``nb``) taken with its axes the other way round, as
    (score, homography for ``nb`` x ``na``), when that sits on the board clearly better;
    else None.

    A 7x8 grid read the wrong way round shares all but one of its lines with the board's:
    it takes one line too many in one direction (the board's edge, a title's baseline, a
    stripe or a streak of wood grain beside the board) and leaves one of the board's out
    in the other. Its score can even beat the board's own. But the line too many shows
    along less of its length than any of the board's: so of the grid and its four swaps
    (dropping a line at either end of one family, adding one at either end of the other),
    keep the swap whose weakest line is clearly stronger, if it sits on a board; or one
    whose weakest line is as strong and that fits the lines clearly better than
    ``score`` (a grid skewed across the board under a hand, its far lines in the
    margin and the hand's shadow, shows much of each line near one corner); or one
    whose weakest line is as strong, that fits the lines about as well, and whose
    margin is clearly more board-like (a title's column of letters beside the grid can
    show along most of its length: beyond it lies the board's edge, not its margin), or
    whose outer rows show clearly more of the lines across them (that column lies in the
    margin, where the board's lines end). ``measures``: the grid's own
    :func:`extent_measures`."""
    here, margin, across = measures["line"], measures["margin"], measures["across"]
    if here > 1.0 - config.swap_line and margin > 1.0 - config.margin_gain and across > 1.0 - config.across_gain:
        return None                 # every line, the margin and the outer rows show well: no swap shows clearly better
    best = None
    for dx in (0, na - nb):
        for dy in (0, nb - na):
            moved = Hm @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], float)
            m = extent_measures(lab, dil, moved, nb, na)
            if m["ring"] < config.min_ring or m["margin"] < config.min_margin:
                continue            # off the board: no need to look closer
            # The added line is extrapolated from the others: snap the grid to the lines,
            # if there is a line near it to snap to (as the refinement looks for it).
            fam, n, span, added = (0, nb, na, nb if dx == 0 else 0) if nb > na else (1, na, nb, na if dy == 0 else 0)
            if added not in _ridge_points(smooth, moved, n, span, fam, 0.02):
                continue
            moved = _refine(smooth, moved, nb, na)
            m = extent_measures(lab, dil, moved, nb, na)
            if not _passes(m, config):
                continue
            fit = _score(dil, moved, nb, na)
            better = (m["line"] >= here + config.swap_line
                      or (m["line"] >= here and fit >= score + config.clearly_better)
                      or (m["line"] >= here and fit >= score - config.near_tie
                          and (m["margin"] >= margin + config.margin_gain
                               or m["across"] >= across + config.across_gain)))
            if better and (best is None or (m["line"], fit) > best[:2]):
                best = (m["line"], fit, moved)
    return None if best is None else best[1:]


def _moved_a_cell(smooth: np.ndarray, dil: np.ndarray, Hm: np.ndarray, na: int, nb: int):
    """The grid ``Hm`` moved by a cell in either or both directions that fits the line
    image best, refined (in ``smooth``, the line image blurred), with its score; None
    when no move fits better than ``Hm``."""
    # The grid itself first, then every move: the first of the best fits is taken.
    grids = [Hm] + [Hm @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], float)
                    for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    fits = _scores(dil, grids, na, nb)
    k = int(np.argmax(fits))
    if k == 0:
        return None
    best = (float(fits[k]), grids[k])
    refined = _refine(smooth, best[1], na, nb)
    return max((_score(dil, refined, na, nb), refined), best, key=lambda t: t[0])


def _margin_beyond(lab: np.ndarray, smooth: np.ndarray, dil: np.ndarray, Hm: np.ndarray, score: float,
                   na: int, nb: int, config: LocateConfig):
    """The grid ``Hm`` (fit ``score``) moved a cell across one family, as (score,
    homography), when that fits the lines nearly as well, sits on a board, and the
    margin beyond the outer line it gains is clearly more board-like than the margin
    beyond the line it drops (:func:`_margins_moved`); else None."""
    for fam in (0, 1):
        for sign in (-1, 1):
            step = (sign, 0) if fam == 0 else (0, sign)
            moved = Hm @ np.array([[1, 0, step[0]], [0, 1, step[1]], [0, 0, 1]], float)
            if _score(dil, moved, na, nb) < score - config.near_tie:
                continue
            own, gained = _margins_moved(lab, dil, Hm, na, nb, fam, sign)
            if gained < own + config.margin_gain:
                continue
            refined = _refine(smooth, moved, na, nb)
            fit, moved = max((_score(dil, moved, na, nb), moved), (_score(dil, refined, na, nb), refined),
                             key=lambda t: t[0])
            if on_a_board(lab, dil, moved, na, nb, config):
                return fit, moved
    return None


def _closer_look(frame_bgr: np.ndarray, best, first: float, faces: Sequence[str], config: LocateConfig):
    """A faint grid found at the work size, weighed again at twice the size.

    Thin, faint lines (and a printed border line a fraction of a cell outside the grid)
    can make a grid a cell off, or of the wrong face, the best fit at the work size; at
    twice the size the true grid fits far better than its neighbours. So the first grid
    is refined there and weighed against the grids it may be mistaken for: when every
    one of its lines shows, against itself moved a cell (:func:`_moved_a_cell`); when
    one does not (the other face's grid, a line short or long), against what a whole
    search there finds. ``first``: the work image's scale. Returns (best, scale): the
    grid kept, in the frame at ``scale``.

    At twice the size a grid a cell over can fit better than the board's own, too: a
    title's letters in a wide margin, or the board's edge beyond them, pass for its
    outer line. But that line shows along less of its length than any of the board's;
    so a grid elsewhere replaces the first one only when its weakest line is as strong
    as the first one's (:func:`extent_measures`).

    Only the frame round the first grid is looked at (``closer_margin`` cells): the
    grids it is mistaken for lie within a cell of it, and a grid's checks look at most
    1.3 cells beyond its outer lines."""
    score, face, Hm, na, nb = best
    h, w = frame_bgr.shape[:2]
    scale = min(1.0, 2 * config.work_size / max(h, w))
    m = config.closer_margin
    ring = _project(Hm, np.array([[-m, -m], [na + m, -m], [na + m, nb + m], [-m, nb + m]], float)) / first
    x0, y0 = np.clip(np.floor(ring.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(ring.max(axis=0)).astype(int), 0, [w, h])
    part = frame_bgr[y0:y1, x0:x1]
    gray = _gray_at(part, scale)
    back = np.array([[1, 0, x0 * scale], [0, 1, y0 * scale], [0, 0, 1]], float)    # part -> frame at scale
    def kept(grid):
        return (grid[0], grid[1], back @ grid[2], grid[3], grid[4]), scale
    memo: Dict = {}
    _, smooth, dil = _lines_of(memo, gray, face, config.kernel)
    Hm = np.linalg.inv(back) @ np.diag([scale / first, scale / first, 1.0]) @ Hm
    refined = _refine(smooth, Hm, na, nb)
    score, Hm = max((_score(dil, Hm, na, nb), Hm), (_score(dil, refined, na, nb), refined), key=lambda t: t[0])
    lab = _lab_of(memo, part, gray, scale)
    weakest = extent_measures(lab, dil, Hm, na, nb)["line"]
    if weakest >= 1.0 - config.swap_line:
        moved = _moved_a_cell(smooth, dil, Hm, na, nb)
        found = (None if moved is None or not on_a_board(lab, dil, moved[1], na, nb, config)
                 else (moved[0], face, moved[1], na, nb))
    else:
        found = _search(part, gray, scale, faces, config.kernel, config, memo)
    if found is None or found[0] <= score:
        return kept((score, face, Hm, na, nb))
    corners = _grid_corners(Hm, na, nb)
    other = _grid_corners(*found[2:5])
    cell = np.linalg.norm(corners[1] - corners[0]) / na
    apart = np.sqrt(((corners[:, None] - other[None]) ** 2).sum(axis=-1)).min(axis=1).max()
    if found[1] == face and apart < 0.3 * cell:
        return kept(found)                           # the same grid, placed better
    dil_found = _lines_of(memo, gray, found[1], config.kernel)[2]
    if extent_measures(lab, dil_found, found[2], found[3], found[4])["line"] >= weakest:
        return kept(found)
    return kept((score, face, Hm, na, nb))


def locate_board(frame_bgr: np.ndarray, board: str = "auto", config: LocateConfig = DEFAULT) -> Calibration:
    """Find the grid in a BGR frame and return its Calibration.

    ``board`` is "auto" (decide the face), "9x9" or "7x8". The corners are in board
    order, a1 first. When the frame shows the start position the stones fix a1 at Red's
    camp and ``oriented`` is True; otherwise a1 is a guess and ``oriented`` is False.
    Raises BoardNotFoundError when no grid fits well enough.

    >>> cal = locate_board(cv2.imread("table.jpg"))           # doctest: +SKIP
    >>> cal.board, cal.oriented                               # doctest: +SKIP
    ('9x9', True)
    """
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise BoardNotFoundError("not a colour image")
    if board != "auto":
        check_size(board)
    h, w = frame_bgr.shape[:2]
    faces = SIZES if board == "auto" else (board,)
    gray, scale = _work_gray(frame_bgr, config.work_size)
    work_scale = scale
    memo: Dict = {}
    best = _search(frame_bgr, gray, scale, faces, config.kernel, config, memo)
    if best is None:
        # A fine check or weave along the board's directions crowds both families of lines.
        best = _search(frame_bgr, gray, scale, faces, config.kernel, config, memo, config.fine_pattern_run)
    if best is None:
        # Lines of a patterned table just beyond the board can push the board's own outer
        # lines down the 1-D ranking: look further down it before anything else.
        best = _search(frame_bgr, gray, scale, faces, config.kernel,
                       replace(config, pairs_per_family=2 * config.pairs_per_family), memo)
    looked_closer = best is not None and best[0] < config.closer_look and max(h, w) > 1.3 * config.work_size
    # A weak grid (taken on its crossings alone, or fitting little more than min_fit) can
    # be the other face's board seen through a grid of another pitch: the searches that
    # look further get their turn, and a grid one of them takes on a better fit wins.
    weak = best is not None and best[0] < config.hold_fit
    if looked_closer:
        best, scale = _closer_look(frame_bgr, best, scale, faces, config)
    fallback = None
    if weak:
        fallback, best, scale = (best, scale, looked_closer), None, work_scale
    if best is None:
        # Second look for a board that is small in the frame: more pixels if the frame
        # has them, else a narrower top-hat so that small stones do not pass for lines.
        if max(h, w) > 1.3 * config.work_size:
            larger, larger_scale = _work_gray(frame_bgr, 2 * config.work_size)
            best = _search(frame_bgr, larger, larger_scale, faces, config.kernel, config)
            if best is not None and best[0] < config.second_look_fit:
                best = None
            if best is not None:
                scale = larger_scale
        else:
            best = _search(frame_bgr, gray, scale, faces, config.narrow_kernel, config)
    last_resort = best is None
    if last_resort:
        # A tiled table's grout or a cloth's stripes a few degrees off the board's lines
        # share their families, and crowd the board's lines out of the 1-D ranking; and
        # strong grout outvotes faint board lines in the Hough transform.
        best = _search(frame_bgr, gray, scale, faces, config.kernel,
                       replace(config, family_spread_deg=config.narrow_spread_deg), memo, clear_table=True)
    if best is None and max(h, w) > 1.3 * config.work_size:
        # A narrower top-hat keeps fewer of the dark gaps between crowded stones and
        # their rims, which in dim or noisy frames drown a board's thin lines.
        best = _search(frame_bgr, gray, scale, faces, config.narrow_kernel, config, memo)
    if best is None:
        # A fine stripe or check all round the board: its lines outvote the board's.
        best = _search(frame_bgr, gray, scale, faces, config.kernel, config, memo, clear_table="texture")
    if best is None:
        # A faint grid, or a table's pattern that crowds out the board's lines: the grid
        # inside the board's outline.
        best = _search(frame_bgr, gray, scale, faces, config.kernel, config, memo, clear_table="outline")
    if fallback is not None and (best is None or best[0] < max(config.min_fit, fallback[0][0])):
        (best, scale, looked_closer), last_resort = fallback, False
    if best is None:
        raise BoardNotFoundError("no board grid found in the frame (is the whole board in view?)")
    score, face, Hm, na, nb = best
    Hm = np.diag([1 / scale, 1 / scale, 1.0]) @ Hm
    Hm, k1 = _refine_full(frame_bgr, Hm, na, nb, face, 2 * int(config.kernel / scale / 2) + 1, config)
    width, height = dimensions(face)
    if (na, nb) != (width, height):
        # The first family carries the ranks: swap board axes so x runs along the files.
        Hm = Hm @ np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], float)
    corners = _canonical(Hm, width, height)
    corners = _guess_a1(corners, face)
    cal = Calibration(face, (w, h), tuple(tuple(map(float, c)) for c in corners), oriented=False, k1=k1)
    if (last_resort or looked_closer) and not shows_its_lines_closely(cal, frame_bgr, config):
        # A faint grid taken on a closer look, or from a line image with lines taken out,
        # can be a stripe's grid that passed its line checks by a hair.
        raise BoardNotFoundError("no board grid found in the frame (is the whole board in view?)")
    turn = start_orientation(frame_bgr, cal, config)
    if turn is not None:
        cal = replace(cal.rotated(turn), oriented=True)
    return cal


def grid_still_fits(calibration: Calibration, frame_bgr: np.ndarray, config: LocateConfig = DEFAULT) -> float:
    """How well the calibrated grid still matches ``frame_bgr``: about 0.5-0.9 when it
    does, below :data:`REFIT_BELOW` when the camera or board has moved (re-locate then).
    Stones and a hand lower the figure a little but leave it well above the threshold.
    Only the board's surroundings are examined, so this is cheap enough for every frame
    (about 3 ms at 1280x960). A frame of another size than the calibration's is scaled."""
    h, w = frame_bgr.shape[:2]
    width, height = dimensions(calibration.board)
    geometry = _still_geometry(calibration, w, h, config)
    if geometry is None:
        return 0.0
    (x0, y0, x1, y1), scale, on_pts, off_pts = geometry
    gray = _gray_at(frame_bgr[y0:y1, x0:x1], scale)
    lines = line_image(gray, light_lines(calibration.board), config.kernel)
    return max(0.0, _score_at(_dilate(lines), on_pts, off_pts, width, height))


_STILL: List[Tuple[Calibration, Tuple[int, int], LocateConfig, object]] = []


def _still_geometry(calibration: Calibration, w: int, h: int, config: LocateConfig):
    """Where :func:`grid_still_fits` looks in a ``w`` x ``h`` frame: the crop round the
    grid (plus the margin lines and their neighbours, 1.5 cells round), its scale, and
    the grid pattern's points in the scaled crop; None when the crop is too small. The
    same for every frame of a calibration, so the last one is kept."""
    for cal, size, cfg, found in _STILL:
        if cal is calibration and size == (w, h) and cfg is config:
            return found
    width, height = dimensions(calibration.board)
    cw, ch = calibration.image_size
    ring = calibration.to_image(np.array([[-1.5, -1.5], [width + 1.5, -1.5], [width + 1.5, height + 1.5],
                                          [-1.5, height + 1.5], [width / 2, -1.5], [width + 1.5, height / 2],
                                          [width / 2, height + 1.5], [-1.5, height / 2]], float))
    ring = ring * (w / cw, h / ch)
    x0, y0 = np.clip(np.floor(ring.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(ring.max(axis=0)).astype(int), 0, [w, h])
    found = None
    if x1 - x0 >= 8 and y1 - y0 >= 8:
        scale = min(1.0, config.work_size / max(h, w))
        pat = _pattern(width, height)
        to_crop = lambda p: (p * (w / cw, h / ch) - (x0, y0)) * scale
        found = ((int(x0), int(y0), int(x1), int(y1)), scale,
                 to_crop(calibration.to_image(pat.on)), to_crop(calibration.to_image(pat.off)))
    _STILL[:] = [(calibration, (w, h), config, found)]
    return found


REFIT_BELOW = 0.3

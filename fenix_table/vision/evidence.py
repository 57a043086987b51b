"""Evidence of change between two still boards: which stacks were touched.

A stacking move (setup, a General or King made) shows from above as "a stone vanished":
the stone went onto one of the mover's stacks, and that stack still reads the same
colour. But a stone put on a stack never lands exactly where the one below was: its top
disc now sits one stone higher, so it is pushed outward from the image's nadir by
parallax (about ``thickness / camera height`` of its distance from the nadir: 0.22 / 16
cells per cell off-centre), looks a little larger, lies a millimetre or two off the stone
below, and casts a longer shadow. An untouched stack looks as it did, give or take noise.

:func:`stack_changes` scores, per cell, how much the stack there changed between the first
still frame of the board before a change and the first still frame after it, on the
rectified board (the same pixels the cell reader reads), from two looks inside the
stone's rim:

- the edges (gradient magnitude, the earlier picture scaled to the later one's contrast):
  the rim's shift;
- the brightness, less the cell's own median change: the rim's shift again, blind to
  light or exposure that brightened the whole cell.

Each look is put on a common scale, its robust spread over the whole board (most cells
did not change), and the two are added: a score of 0 is an ordinary cell, 10 a change ten
spreads above it. The board around a stone is left out there: the shadow a lifted
neighbour took with it, and the longer one a grown stack casts, change it as much as the
stone itself (both were tried and made wrong choices).

Inside the stone, black stones on the dark 9x9 face show next to nothing. Their rim
does: the new top disc covers or bares a thin crescent of the board beside the stack.
But a neighbouring stone (a stone lies up to a tenth of a cell off its cell, and one put
on a stack a little more), its shadow and its parallax reach into a rim too, from the
side that faces it. :func:`rim_changes` therefore measures the rim (0.30-0.46 cell) only
in the 45-degree sectors that face an empty cell or the board's edge, with the same two
looks normalised over those sectors alone; the pipeline adds it to :func:`stack_changes`.
On the generator's tuning games (0-4) this turned the landing stacks of black on the dark
face from about 0 into 10-20 where a side of the stack is open; a stack closed in on all
sides still shows only what is inside its stone.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

#: The ring measured, as fractions of a cell from the cell's centre: inside a stone's rim
#: (at 0.40), so that the board around it stays out.
RING = (0.12, 0.38)


def _ring(ppc: int, radii: Tuple[float, float]) -> np.ndarray:
    c = (np.arange(ppc) + 0.5) / ppc - 0.5
    r = np.hypot(*np.meshgrid(c, c))
    return ((r >= radii[0]) & (r <= radii[1])).ravel()


def _per_cell(image: np.ndarray, width: int, height: int, ppc: int, pad: int) -> np.ndarray:
    grid = image[pad:pad + height * ppc, pad:pad + width * ppc]
    return grid.reshape(height, ppc, width, ppc).transpose(0, 2, 1, 3).reshape(height * width, ppc * ppc)


def _ring_change(before: np.ndarray, after: np.ndarray, width: int, height: int, ppc: int,
                 pad: int, radii: Tuple[float, float], shape_only: str) -> np.ndarray:
    """Mean absolute change over the ring. ``shape_only``: "offset" takes each cell's
    median change off (a brighter or darker cell), "gain" scales the earlier picture to
    the later one's level first (more or less contrast)."""
    mask = _ring(ppc, radii)
    old = _per_cell(before.astype(np.float32), width, height, ppc, pad)[:, mask]
    new = _per_cell(after.astype(np.float32), width, height, ppc, pad)[:, mask]
    if shape_only == "gain":
        old = old * (new.mean(axis=1, keepdims=True) / (old.mean(axis=1, keepdims=True) + 1e-3))
    diff = new - old
    if shape_only == "offset":
        diff = diff - np.median(diff, axis=1, keepdims=True)
    return np.abs(diff).mean(axis=1)


def _robust(x: np.ndarray) -> np.ndarray:
    """``x`` in units of its spread over the board, 0 at its median."""
    centre = np.median(x)
    spread = 1.4826 * np.median(np.abs(x - centre)) + 1e-3
    return (x - centre) / spread


#: The stone's rim itself, as fractions of a cell from the cell's centre: where a stone
#: put on a stack shows most (the new top disc covers or bares a crescent of the board
#: beside it), and where a neighbouring stack's rim, shadow or parallax reaches in.
RIM = (0.30, 0.46)
#: (row, column) steps from a cell to the neighbour each 45-degree sector of its rim faces,
#: counter-clockwise from the right in the rectified image (rows grow downwards).
_SECTOR_STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def _rim_sectors(ppc: int, radii: Tuple[float, float]) -> Tuple[np.ndarray, np.ndarray]:
    """The rim's pixels (a mask over the cell) and, per pixel, a one-hot of the sector
    (0..7, see ``_SECTOR_STEPS``) it lies in."""
    c = (np.arange(ppc) + 0.5) / ppc - 0.5
    x, y = np.meshgrid(c, c)
    r = np.hypot(x, y)
    mask = ((r >= radii[0]) & (r <= radii[1])).ravel()
    sector = (np.round(np.arctan2(y, x) / (np.pi / 4)).astype(int) % 8).ravel()[mask]
    return mask, np.eye(8, dtype=np.float32)[sector]


def _open_sectors(occupied: np.ndarray, width: int, height: int) -> np.ndarray:
    """Per cell (rectified row-major order) and sector, whether the neighbour that sector
    faces is empty or off the board."""
    grid = occupied.reshape(height, width)
    padded = np.zeros((height + 2, width + 2), dtype=bool)
    padded[1:-1, 1:-1] = grid
    facing = np.stack([padded[1 + dr:1 + dr + height, 1 + dc:1 + dc + width]
                       for dr, dc in _SECTOR_STEPS], axis=-1).reshape(height * width, 8)
    return ~facing


def _sector_change(before: np.ndarray, after: np.ndarray, width: int, height: int, ppc: int,
                   pad: int, free: np.ndarray, shape_only: str) -> np.ndarray:
    """Mean absolute change over the rim's sectors that face an empty neighbour (NaN for
    a cell with none); ``shape_only`` as in :func:`_ring_change` (the mean change taken
    off, not the median: cheaper), over those sectors only (a neighbour reaching into
    the others must not rescale them)."""
    mask, onehot = _rim_sectors(ppc, RIM)
    old = _per_cell(before.astype(np.float32), width, height, ppc, pad)[:, mask]
    new = _per_cell(after.astype(np.float32), width, height, ppc, pad)[:, mask]
    use = (free.astype(np.float32) @ onehot.T) > 0          # cells x rim pixels
    n = use.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if shape_only == "gain":
            old = old * ((new * use).sum(axis=1, keepdims=True)
                         / ((old * use).sum(axis=1, keepdims=True) + 1e-3))
        diff = new - old
        if shape_only == "offset":
            diff = diff - (diff * use).sum(axis=1, keepdims=True) / np.maximum(n, 1)[:, None]
        total = (np.abs(diff) * use).sum(axis=1)
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def _robust_known(x: np.ndarray) -> np.ndarray:
    """:func:`_robust` over the finite values; NaN becomes 0 (an ordinary cell)."""
    known = np.isfinite(x)
    out = np.zeros_like(x)
    if known.sum() >= 3:
        out[known] = _robust(x[known])
    return out


def rim_changes(before, after, width: int, height: int, occupied: np.ndarray) -> np.ndarray:
    """Per cell (rectified order), how much its stone's rim changed on the sides that face
    an empty cell: a stone put on a stack shows there even black on a dark board, and no
    neighbouring stack (grown, lifted, or its shadow) reaches across an empty cell.
    ``occupied``: per cell, a stone in either still board (a cell not read counts as
    occupied). Same scale as :func:`stack_changes`; 0 for a cell with no empty side."""
    ppc, pad = after.ppc, after.pad
    free = _open_sectors(np.asarray(occupied, dtype=bool), width, height)
    edges = _sector_change(before.grad, after.grad, width, height, ppc, pad, free, "gain")
    rim = _sector_change(before.L, after.L, width, height, ppc, pad, free, "offset")
    return _robust_known(edges) + _robust_known(rim)


def stack_changes(before, after, width: int, height: int) -> np.ndarray:
    """Per cell (cell_names order), how much the stack there changed between two still
    frames, given as the reader's :class:`~fenix_table.vision.cells.Rectified` images of
    the same calibration; see the module docstring for the scale."""
    ppc, pad = after.ppc, after.pad
    edges = _ring_change(before.grad, after.grad, width, height, ppc, pad, RING, "gain")
    rim = _ring_change(before.L, after.L, width, height, ppc, pad, RING, "offset")
    return _robust(edges) + _robust(rim)

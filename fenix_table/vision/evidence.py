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

Each look is put on a common scale, its robust spread (most cells did not change), and
the two are added: a score of 0 is an ordinary cell, 10 a change ten spreads above it.
Given the later board's colours, each colour is measured against its own cells: the
candidates of a stacking ply are the mover's stacks, and black stones on the dark 9x9
face hardly change at all while empty cells and red stones vary much more, so against
the whole board a dark landing was lost (on the tuning games, generator 0-4 and
independent renderer 0-2, offline with the referee's rule: 67 -> 74 of 89 stacking plies
taken, none wrong; dark landings on generator game 1 went from about 0-1 to 7-10,
untouched dark stacks stayed under 3.5). The board around a stone is left out: the shadow a lifted neighbour
took with it, and the longer one a grown stack casts, change it as much as the stone
itself (both were tried and made wrong choices). On the generator's games (stones where
they were put, hands from the mover's side; 45 setup plies) the landing stack scored
highest of the mover's stacks in every ply; black stones on the dark 9x9 face give the
least, often nothing the referee may act on.

Their rim does show (the new top disc covers or bares a thin crescent of board beside
the stack: landing stacks of black on the dark face went from about 0 to 13-21 on the
generator's game 1 with a ring 0.30-0.46 cell). But a neighbouring stone off its cell, its
shadow and its parallax reach into a rim too; measured only on the rim's sides that face an
empty cell, untouched stacks still scored up to 19, so the threshold had to rise as much
and on the tuning games (generator 0-4, independent renderer 0-2) it took 68 of 90 plies
against 67 from inside the stone alone, at twice the cost and with more wrong likeliest
picks for ``track`` on fresh games: it is not used.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

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


#: A group of cells (one colour) is put on its own scale only when it has this many
#: cells, and its spread is taken as at least this share of the board's: a group of
#: nearly identical cells must not turn its noise into changes.
GROUP_CELLS = 5
GROUP_SPREAD_FLOOR = 0.25


def _robust(x: np.ndarray, groups: Optional[Sequence[str]] = None) -> np.ndarray:
    """``x`` in units of its spread over the board, 0 at its median; with ``groups``
    (a label per cell), each group of at least :data:`GROUP_CELLS` cells in units of its
    own spread, 0 at its own median."""
    centre = np.median(x)
    spread = 1.4826 * np.median(np.abs(x - centre)) + 1e-3
    out = (x - centre) / spread
    if groups is not None:
        labels = np.asarray(groups)
        for label in set(groups):
            cells = labels == label
            if cells.sum() < GROUP_CELLS:
                continue
            own = x[cells]
            mid = np.median(own)
            scale = max(1.4826 * np.median(np.abs(own - mid)) + 1e-3, GROUP_SPREAD_FLOOR * spread)
            out[cells] = (own - mid) / scale
    return out


def stack_changes(before, after, width: int, height: int,
                  colours: Optional[Sequence[str]] = None) -> np.ndarray:
    """Per cell (cell_names order), how much the stack there changed between two still
    frames, given as the reader's :class:`~fenix_table.vision.cells.Rectified` images of
    the same calibration; see the module docstring for the scale. ``colours`` (the
    later board's colour per cell) puts each colour's cells on their own scale."""
    ppc, pad = after.ppc, after.pad
    edges = _ring_change(before.grad, after.grad, width, height, ppc, pad, RING, "gain")
    rim = _ring_change(before.L, after.L, width, height, ppc, pad, RING, "offset")
    return _robust(edges, colours) + _robust(rim, colours)

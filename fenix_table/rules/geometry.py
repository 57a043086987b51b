"""The rules engine's tables for one board face: step and ray tables, bitboard masks.

The board facts themselves (sizes, cell names, neighbours, stones per side) come from
:mod:`fenix_table.board`; a cell index is its index there, ``rank * width + file``
(a1 = 0). Bitboards are Python ints with bit ``index`` set for an occupied cell.
Everything here is computed once per board face.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from .. import board
from ..errors import NotationError

# Directions as (file step, rank step). The first four are orthogonal.
ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, -1), (-1, 1))
ALL_DIRECTIONS = ORTHOGONAL + DIAGONAL


class Geometry:
    """Fixed facts about one board face (``9x9`` or ``7x8``), as the engine uses them."""

    def __init__(self, size: str) -> None:
        width, height = board.dimensions(size)
        self.size = size
        self.width = width
        self.height = height
        self.n = n = width * height
        self.stones_per_side = board.stones_per_side(size)
        self.names: Tuple[str, ...] = board.cell_names(size)
        self.index: Dict[str, int] = dict(board.cell_numbers(size))
        self.full = (1 << n) - 1

        # step[d][i]: neighbour of i in direction d (index into ALL_DIRECTIONS), or -1.
        self.step: List[List[int]] = []
        for df, dr in ALL_DIRECTIONS:
            row = []
            for i in range(n):
                f, r = i % width + df, i // width + dr
                row.append(r * width + f if 0 <= f < width and 0 <= r < height else -1)
            self.step.append(row)
        # ray[d][i]: cells from i outwards in orthogonal direction d (excluding i).
        self.ray: List[List[Tuple[int, ...]]] = []
        for d in range(4):
            rays = []
            for i in range(n):
                cells, j = [], self.step[d][i]
                while j >= 0:
                    cells.append(j)
                    j = self.step[d][j]
                rays.append(tuple(cells))
            self.ray.append(rays)
        index = self.index
        self.neighbours8 = [tuple(index[m] for m in board.neighbours(size, name))
                            for name in self.names]
        self.neighbours4 = [tuple(index[m] for m in board.neighbours(size, name, diagonal=False))
                            for name in self.names]
        # Shift masks: cells that may move one step in direction d without leaving the board.
        self.can_step = [sum(1 << i for i in range(n) if self.step[d][i] >= 0) for d in range(8)]
        self.delta = [dr * width + df for df, dr in ALL_DIRECTIONS]

    def shift(self, bits: int, d: int) -> int:
        """Move every set bit one cell in direction ``d``; bits leaving the board vanish."""
        bits &= self.can_step[d]
        delta = self.delta[d]
        return bits << delta if delta > 0 else bits >> -delta

    def cell(self, name: str) -> int:
        """Index of a cell name such as ``"c3"``; :class:`NotationError` if not on this board."""
        try:
            return self.index[name]
        except KeyError:
            raise NotationError(f"unknown cell {name!r} on the {self.size} board") from None


GEOMETRIES = {size: Geometry(size) for size in board.SIZES}


def geometry(size: str) -> Geometry:
    try:
        return GEOMETRIES[size]
    except KeyError:
        raise NotationError(f"unknown board size {size!r} (9x9 or 7x8)") from None


def bits_of(mask: int):
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low

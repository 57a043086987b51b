"""Board geometry: cell names, neighbour and ray tables, bitboard masks.

A cell index is ``rank * width + file`` (a1 = 0). Bitboards are Python ints with bit
``index`` set for an occupied cell. Everything here is computed once per board side.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..errors import NotationError

# Directions as (file step, rank step). The first four are orthogonal.
ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, -1), (-1, 1))
ALL_DIRECTIONS = ORTHOGONAL + DIAGONAL

SIZES = ("9x9", "7x8")


class Geometry:
    """Fixed facts about one board side (``9x9`` or ``7x8``)."""

    def __init__(self, size: str) -> None:
        width, height = {"9x9": (9, 9), "7x8": (7, 8)}[size]
        self.size = size
        self.width = width
        self.height = height
        self.n = n = width * height
        self.stones_per_side = 28 if size == "9x9" else 21
        self.camp_limit = 6 if size == "9x9" else 5
        self.names: Tuple[str, ...] = tuple(
            f"{chr(97 + i % width)}{i // width + 1}" for i in range(n))
        self.index: Dict[str, int] = {name: i for i, name in enumerate(self.names)}
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
        self.neighbours8 = [tuple(self.step[d][i] for d in range(8) if self.step[d][i] >= 0)
                            for i in range(n)]
        self.neighbours4 = [tuple(self.step[d][i] for d in range(4) if self.step[d][i] >= 0)
                            for i in range(n)]
        # Shift masks: cells that may move one step in direction d without leaving the board.
        self.can_step = [sum(1 << i for i in range(n) if self.step[d][i] >= 0) for d in range(8)]
        self.delta = [dr * width + df for df, dr in ALL_DIRECTIONS]

        red_camp = [i for i in range(n) if i % width + i // width <= self.camp_limit]
        self.red_camp = tuple(red_camp)
        self.black_camp = tuple(n - 1 - i for i in red_camp)

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


GEOMETRIES = {size: Geometry(size) for size in SIZES}


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

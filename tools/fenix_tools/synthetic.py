"""Observations made from a known placement, with the faults a camera really has.

Used by the referee's, display's and record's tests and benchmarks to feed the referee
without rendering frames (tooling: not part of the package the table runs):
``observe_placement`` builds the :class:`~fenix_table.vision.types.Observation` vision
would give for a placement, and :class:`Noise` adds misread colours, unreadable or wrong
heights, low-confidence cells and occluded cells, drawn from a seeded generator.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Dict, Iterable, Mapping, Optional, Tuple

from fenix_table.board import cell_name, cell_names, dimensions
from fenix_table.vision.types import CellReading, Observation

Placement = Mapping[str, Tuple[str, int]]


@dataclass(frozen=True)
class Noise:
    """Per-cell fault rates of one observation (all 0: a perfect reading).

    ``misread``: a confident wrong colour; ``unsure``: the colour is right but its
    confidence is low (the referee treats it as unknown); ``no_height``: an occupied
    cell's height is not given; ``wrong_height``: a confident wrong height.
    """

    misread: float = 0.0
    unsure: float = 0.0
    no_height: float = 0.0
    wrong_height: float = 0.0


def observe_placement(placement: Placement, board: str, frame_index: int = 0, *,
                      heights: bool = True, occluded: Iterable[str] = (), hand: bool = False,
                      noise: Noise = Noise(), rng: Optional[random.Random] = None,
                      overrides: Optional[Mapping[str, Tuple[str, Optional[int]]]] = None
                      ) -> Observation:
    """The observation of ``placement`` ({cell: (colour, height)}).

    ``heights=False`` gives no heights at all (a camera straight above the board);
    ``occluded`` cells are reported covered; ``overrides`` force a confident reading
    ``(colour, height or None)`` on chosen cells (a deterministic misread).
    """
    rng = rng or random.Random(0)
    covered = tuple(sorted(set(occluded)))
    cells: Dict[str, CellReading] = {}
    for cell in cell_names(board):
        piece = placement.get(cell)
        color = "empty" if piece is None else piece[0]
        height = None if piece is None or not heights else piece[1]
        color_conf, height_conf = 0.95, 0.9 if height is not None else 0.0
        if noise.misread and rng.random() < noise.misread:
            color = rng.choice([c for c in ("empty", "red", "black") if c != color])
            height = None if color == "empty" else (rng.randint(1, 3) if heights else None)
        elif noise.unsure and rng.random() < noise.unsure:
            color_conf = 0.2
        if height is not None and noise.no_height and rng.random() < noise.no_height:
            height, height_conf = None, 0.0
        elif height is not None and noise.wrong_height and rng.random() < noise.wrong_height:
            height = rng.choice([h for h in (1, 2, 3) if h != height])
        if overrides and cell in overrides:
            color, height = overrides[cell]
            color_conf, height_conf = 0.95, (0.9 if height is not None else 0.0)
        if cell in covered:
            color_conf = height_conf = 0.0
        cells[cell] = CellReading(color, height, color_conf, height_conf)
    return Observation(board=board, cells=cells, hand=hand, occluded_cells=covered,
                       board_found=True, frame_index=frame_index)


def position_of(board: str, pieces: Mapping[str, str], side: str = "r", setup: str = "55",
                duty: str = "-", clock: int = 0):
    """A position from ``{cell: letter}`` (``S G K`` red, ``s g k`` black), for tests and
    examples: ``position_of("7x8", {"a1": "K", "g8": "k"})``."""
    from fenix_table.rules import Position

    width, height = dimensions(board)
    ranks = []
    for rank in reversed(range(height)):
        row, empty = "", 0
        for f in range(width):
            letter = pieces.get(cell_name(f, rank))
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        ranks.append(row + (str(empty) if empty else ""))
    return Position.from_fpn(f"{board} {'/'.join(ranks)} {side} {setup} {duty} {clock}")

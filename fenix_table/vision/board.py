"""Fixed facts about the two board faces that vision and the frame generator share.

Board coordinates are measured in cells: the grid spans ``x`` in ``[0, width]`` (files,
a at x=0..1) and ``y`` in ``[0, height]`` (ranks, rank 1 at y=0..1); ``z`` points up.
Cell ``a1`` is the corner of Red's camp.
"""
from __future__ import annotations

from typing import Dict, Tuple

BOARDS = ("9x9", "7x8")
# (files, ranks) per board face.
DIMENSIONS = {"9x9": (9, 9), "7x8": (7, 8)}
# Camp triangle: file_index + rank_index <= CAMP_LIMIT (0-based).
CAMP_LIMIT = {"9x9": 6, "7x8": 5}
# 9x9: light lines on a dark board; 7x8: dark lines on a light board.
LIGHT_LINES = {"9x9": True, "7x8": False}


def check_board(board: str) -> str:
    """Return ``board`` if it names a face, else raise ValueError naming the choices."""
    if board not in DIMENSIONS:
        raise ValueError(f"unknown board {board!r}: expected 9x9 or 7x8")
    return board


def cell_name(board: str, file: int, rank: int) -> str:
    return f"{chr(97 + file)}{rank + 1}"


def cell_names(board: str) -> Tuple[str, ...]:
    """All cells, a1 first, file by file within each rank (a1, b1, ..., a2, ...)."""
    width, height = DIMENSIONS[check_board(board)]
    return tuple(cell_name(board, f, r) for r in range(height) for f in range(width))


def cell_index(name: str) -> Tuple[int, int]:
    """(file, rank), both 0-based, of a cell name such as ``"c4"``."""
    return ord(name[0]) - 97, int(name[1:]) - 1


def start_placement(board: str) -> Dict[str, Tuple[str, int]]:
    """The start position as ``{cell: (colour, height)}``: one soldier on every camp cell.

    Uses the rules engine when it is available so both stay in step; otherwise builds the
    camp triangles from their definition (Red at a1, Black mirrored at the far corner).
    """
    check_board(board)
    try:
        from fenix_table.rules import Position  # type: ignore[attr-defined]
        return dict(Position.start(board).stacks())
    except (ImportError, AttributeError):
        pass
    width, height = DIMENSIONS[board]
    limit = CAMP_LIMIT[board]
    placement = {}
    for rank in range(height):
        for file in range(width):
            if file + rank <= limit:
                placement[cell_name(board, file, rank)] = ("red", 1)
            if (width - 1 - file) + (height - 1 - rank) <= limit:
                placement[cell_name(board, file, rank)] = ("black", 1)
    return placement

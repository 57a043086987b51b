"""The two board faces: sizes, cell names, camps, neighbours and grid turns.

The one place these facts live; rules, vision, the referee and the display all read them
here. Standard library only, so any stage (and any tool) may import it.

A cell is named by file letter and rank number (``"c4"``); its ``(file, rank)`` pair is
0-based (a1 = (0, 0)). Cells are listed a1 first, file by file within each rank (a1, b1,
..., a2, ...), so a cell's index is ``rank * width + file``. Cell ``a1`` is the corner of
Red's camp; Black's camp is its mirror through the board's centre.

>>> dimensions("7x8")
(7, 8)
>>> cell_names("7x8")[:3]
('a1', 'b1', 'c1')
>>> "a1" in red_camp("9x9"), "i9" in black_camp("9x9")
(True, True)
"""
from __future__ import annotations

from functools import lru_cache
from typing import Dict, Tuple

SIZES = ("9x9", "7x8")
_DIMENSIONS = {"9x9": (9, 9), "7x8": (7, 8)}
# A camp is the triangle file + rank <= limit (0-based), counted from its own corner.
_CAMP_LIMIT = {"9x9": 6, "7x8": 5}
# Printed faces: 9x9 has light lines on a dark face, 7x8 dark lines on a light face.
_LIGHT_LINES = {"9x9": True, "7x8": False}


class UnknownBoardError(ValueError):
    """A board size that is neither ``9x9`` nor ``7x8``."""


def check_size(size: str) -> str:
    """Return ``size`` if it names a face, else raise :class:`UnknownBoardError`."""
    if size not in _DIMENSIONS:
        raise UnknownBoardError(f"unknown board size {size!r} (9x9 or 7x8)")
    return size


def dimensions(size: str) -> Tuple[int, int]:
    """``(files, ranks)`` of a face: ``(9, 9)`` or ``(7, 8)``."""
    return _DIMENSIONS[check_size(size)]


def camp_limit(size: str) -> int:
    """The camp triangle's bound: a cell is in Red's camp when ``file + rank <= limit``."""
    return _CAMP_LIMIT[check_size(size)]


def stones_per_side(size: str) -> int:
    """Stones each player starts with: one soldier on every cell of their camp."""
    return len(red_camp(size))


def light_lines(size: str) -> bool:
    """Whether the face prints light lines on a dark ground (9x9) or the reverse (7x8)."""
    return _LIGHT_LINES[check_size(size)]


def file_letter(file: int) -> str:
    """The letter naming a file: ``file_letter(0) == "a"`` (0-based)."""
    return chr(97 + file)


def cell_name(file: int, rank: int) -> str:
    """``cell_name(2, 3) == "c4"`` (both 0-based)."""
    return f"{file_letter(file)}{rank + 1}"


def cell_index(name: str) -> Tuple[int, int]:
    """``(file, rank)``, both 0-based, of a cell name such as ``"c4"``."""
    return ord(name[0]) - 97, int(name[1:]) - 1


def on_board(size: str, file: int, rank: int) -> bool:
    width, height = dimensions(size)
    return 0 <= file < width and 0 <= rank < height


@lru_cache(maxsize=None)
def cell_names(size: str) -> Tuple[str, ...]:
    """Every cell of the face, a1 first, file by file within each rank."""
    width, height = dimensions(size)
    return tuple(cell_name(f, r) for r in range(height) for f in range(width))


@lru_cache(maxsize=None)
def cell_numbers(size: str) -> Dict[str, int]:
    """Cell name -> index in :func:`cell_names`."""
    return {name: i for i, name in enumerate(cell_names(size))}


def mirror(size: str, file: int, rank: int) -> Tuple[int, int]:
    """The cell opposite through the board's centre (a1 <-> the far corner)."""
    width, height = dimensions(size)
    return width - 1 - file, height - 1 - rank


@lru_cache(maxsize=None)
def red_camp(size: str) -> Tuple[str, ...]:
    """Red's camp cells, in :func:`cell_names` order."""
    limit = camp_limit(size)
    return tuple(n for n in cell_names(size) if sum(cell_index(n)) <= limit)


@lru_cache(maxsize=None)
def black_camp(size: str) -> Tuple[str, ...]:
    """Black's camp cells (Red's mirrored), in :func:`cell_names` order."""
    limit = camp_limit(size)
    return tuple(n for n in cell_names(size) if sum(mirror(size, *cell_index(n))) <= limit)


@lru_cache(maxsize=None)
def neighbours(size: str, name: str, diagonal: bool = True) -> Tuple[str, ...]:
    """The cells next to ``name`` (8 directions, or only the 4 orthogonal ones)."""
    f, r = cell_index(name)
    steps = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    if diagonal:
        steps += [(1, 1), (1, -1), (-1, -1), (-1, 1)]
    return tuple(cell_name(f + df, r + dr) for df, dr in steps if on_board(size, f + df, r + dr))


def turns_allowed(size: str) -> Tuple[int, ...]:
    """Quarter turns a located grid may take: any on the square face, half turns on 7x8
    (a quarter turn would swap its files and ranks)."""
    width, height = dimensions(size)
    return (0, 1, 2, 3) if width == height else (0, 2)


def turned(size: str, file: int, rank: int, quarter_turns: int) -> Tuple[int, int]:
    """Where ``(file, rank)`` lands when the grid is turned ``quarter_turns`` corners along
    (a1 moves to the next corner anticlockwise seen from above, once per quarter turn):
    the turned grid's cell ``(file, rank)`` is the unturned grid's cell ``turned(...)``, as
    vision's ``Calibration.rotated`` turns a located grid (its corners list moved along).
    Raises :class:`UnknownBoardError` for a quarter turn of the 7x8 face."""
    width, height = dimensions(size)
    k = quarter_turns % 4
    if k not in turns_allowed(size):
        raise UnknownBoardError(f"a {size} grid can only be turned by half turns")
    if k == 2:
        return width - 1 - file, height - 1 - rank
    for _ in range(k):   # square face only
        file, rank = width - 1 - rank, file
    return file, rank

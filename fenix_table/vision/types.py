"""Plain data that leaves the vision stage: cell readings, observations, calibrations."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Dict, Mapping, Optional, Sequence, Tuple

from ..board import UnknownBoardError, cell_index, cell_names, check_size, dimensions, turns_allowed
from ..errors import ConfigError


@dataclass(frozen=True)
class CellReading:
    """One cell: ``color`` "empty"|"red"|"black"; ``height`` 1..3, or None when the image
    cannot tell; confidences in 0..1."""

    color: str
    height: Optional[int]
    color_confidence: float
    height_confidence: float


@dataclass(frozen=True)
class Observation:
    """What one frame shows. ``cells`` is empty when ``board_found`` is False."""

    board: str
    cells: Dict[str, CellReading]
    hand: bool
    occluded_cells: Tuple[str, ...]
    board_found: bool
    frame_index: int = 0
    #: Stable observations only: per cell, how much the stack there changed since the
    #: still board before the latest change (:func:`fenix_table.vision.evidence.stack_changes`
    #: scale; empty when there was no earlier still board to compare with).
    changes: Mapping[str, float] = field(default_factory=dict)
    #: Stable observations only: the cells a hand covered in the last frame with a hand
    #: before this still board (where a stone was last put down, as far as seen).
    reached: Tuple[str, ...] = ()

    def placement(self) -> Dict[str, Tuple[str, Optional[int]]]:
        """Occupied cells as ``{cell: (colour, height or None)}``."""
        return {c: (r.color, r.height) for c, r in self.cells.items() if r.color != "empty"}


@dataclass(frozen=True)
class Calibration:
    """Where the grid is in the image.

    ``corners`` are the image positions of the grid's outer corners in board order:
    a1's outer corner, then the ends of rank 1, the far corner, the end of file a
    (board coordinates (0,0), (W,0), (W,H), (0,H)). ``oriented`` says whether a1 is
    known to be Red's camp corner (from the stones or the user) or only a guess.
    ``room`` is the colour model a start-position frame taught (what each class's cells
    look like in this room's light, see :class:`~fenix_table.vision.colour.Room`), or
    None for the shipped default. (Stone thickness is not calibrated: each frame's stacks
    tell it, see heights.py. Files of earlier versions load with their ``colors`` and
    ``height_scale`` ignored: the colour model has changed since.)
    """

    board: str
    image_size: Tuple[int, int]
    corners: Tuple[Tuple[float, float], ...]
    oriented: bool = False
    room: Optional[Dict] = None

    def homography(self):
        """3x3 numpy homography from board coordinates (cells; a1's outer corner at (0, 0),
        files along x, ranks along y) to image pixels."""
        import cv2
        import numpy as np
        width, height = dimensions(self.board)
        src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
        return cv2.getPerspectiveTransform(src, np.array(self.corners, np.float32))

    def cell_centres(self) -> Dict[str, Tuple[float, float]]:
        """Image position of every cell's centre on the board plane."""
        import numpy as np
        Hm = self.homography()
        out = {}
        for name in cell_names(self.board):
            f, r = cell_index(name)
            p = Hm @ np.array([f + 0.5, r + 0.5, 1.0])
            out[name] = (float(p[0] / p[2]), float(p[1] / p[2]))
        return out

    def rotated(self, quarter_turns: int) -> "Calibration":
        """The same grid with a1 moved ``quarter_turns`` corners along (7x8: only even):
        its cell (file, rank) is this grid's :func:`fenix_table.board.turned` cell."""
        k = quarter_turns % 4
        if k not in turns_allowed(self.board):
            raise ValueError(f"a {self.board} grid can only be turned by half turns")
        corners = self.corners[k:] + self.corners[:k]
        # The room's cell looks are images of the rectified board, which turns with a1:
        # a turned grid has none until it sees a start frame again.
        return Calibration(self.board, self.image_size, corners, self.oriented, self.room if k == 0 else None)

    def to_json(self) -> str:
        return json.dumps({
            "board": self.board, "image_size": list(self.image_size),
            "corners": [list(map(float, c)) for c in self.corners],
            "oriented": self.oriented, "room": self.room,
        }, indent=1)

    @classmethod
    def from_json(cls, text: str) -> "Calibration":
        try:
            data = json.loads(text)
            board = check_size(data["board"])
            corners = tuple(tuple(float(v) for v in c) for c in data["corners"])
            if len(corners) != 4 or any(len(c) != 2 for c in corners):
                raise ValueError("corners must be four (x, y) pairs")
            _check_quad(corners)
            _check_fits(board, corners, data["image_size"])
            room = data.get("room")
            if room is not None:
                from .cells import check_room
                room = check_room(room)                    # checked, in canonical form
            return cls(board, tuple(int(v) for v in data["image_size"]), corners,
                       bool(data.get("oriented", False)), room)
        except ConfigError as error:
            raise ConfigError(f"bad calibration: {error}") from None
        except KeyError as error:
            raise ConfigError(f"bad calibration: missing field {error}") from None
        except (ValueError, TypeError, AttributeError, RecursionError) as error:
            raise ConfigError(f"bad calibration: {str(error)[:200]}") from None

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.to_json() + "\n")

    @classmethod
    def load(cls, path: str) -> "Calibration":
        from ..files import read_text

        text = read_text(path, MAX_CALIBRATION_BYTES, "calibration", ConfigError)
        try:
            return cls.from_json(text)
        except ConfigError as error:
            raise ConfigError(f"{path}: {error}") from None

    @classmethod
    def from_corners(cls, board: str, image_size, corners: Sequence[Sequence[float]]) -> "Calibration":
        """Manual fallback: four image points, a1's outer corner first, then along rank 1
        and round the board. The user says where a1 is, so the result is oriented.

        Raises ConfigError for an unknown board, a count other than four, or points that
        do not form a convex quadrilateral (typically corners given out of order).
        """
        try:
            check_size(board)
        except UnknownBoardError as error:
            raise ConfigError(str(error)) from None
        try:
            points = tuple((float(x), float(y)) for x, y in corners)
        except (TypeError, ValueError):
            raise ConfigError("corners must be (x, y) number pairs") from None
        if len(points) != 4:
            raise ConfigError(f"give exactly four corners, not {len(points)}")
        _check_quad(points)
        _check_fits(board, points, image_size)
        return cls(board, tuple(int(v) for v in image_size), points, oriented=True)


#: The largest calibration file read (a saved one with its room's colours is a few KiB).
MAX_CALIBRATION_BYTES = 1_000_000
#: The fewest image pixels a cell may span along the board's edges: a smaller board
#: cannot be read.
MIN_CELL_PIXELS = 3


def _check_fits(board: str, points: Sequence[Tuple[float, float]], image_size) -> None:
    """Raise ConfigError unless the board lies on the picture (its corners within a
    quarter of the picture's size of it, its middle on it) and is large enough to read."""
    try:
        w, h = (int(v) for v in image_size)
    except (TypeError, ValueError):
        raise ConfigError("image size must be two whole numbers") from None
    if not (0 < w <= 100_000 and 0 < h <= 100_000):
        raise ConfigError(f"image size {w}x{h} is not a picture's size")
    for x, y in points:
        if not (-w / 4 <= x <= w * 5 / 4 and -h / 4 <= y <= h * 5 / 4):
            raise ConfigError(f"corner ({x:g}, {y:g}) is far off the {w}x{h} picture")
    cx = sum(x for x, _ in points) / 4
    cy = sum(y for _, y in points) / 4
    if not (0 <= cx <= w and 0 <= cy <= h):
        raise ConfigError(f"the board's middle ({cx:.0f}, {cy:.0f}) is off the {w}x{h} picture")
    width, height = dimensions(board)
    for i in range(4):
        (ax, ay), (bx, by) = points[i], points[(i + 1) % 4]
        cells = width if i % 2 == 0 else height
        if ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5 < MIN_CELL_PIXELS * cells:
            raise ConfigError(f"the board is too small on the picture: an edge of "
                              f"{cells} cells spans under {MIN_CELL_PIXELS * cells} pixels")


def _check_quad(points: Sequence[Tuple[float, float]]) -> None:
    """Raise ConfigError unless the four points go round a convex quadrilateral."""
    turns = []
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = points[i], points[(i + 1) % 4], points[(i + 2) % 4]
        turns.append((bx - ax) * (cy - by) - (by - ay) * (cx - bx))
    if not (all(t > 0 for t in turns) or all(t < 0 for t in turns)):
        raise ConfigError("the four corners do not go round a convex quadrilateral "
                          "(give them in order: a1, end of rank 1, far corner, end of file a)")

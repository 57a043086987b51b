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
    #: Stable observations only, with ``changes``: per cell, how much the stack's top disc
    #: grew over the same two still boards (:func:`fenix_table.vision.evidence.stack_growth`,
    #: in spreads of its colour's stacks; 0 for an empty cell).
    growth: Mapping[str, float] = field(default_factory=dict)
    #: Stable observations only: the cells a hand covered in the last frame with a hand
    #: before this still board (where a stone was last put down, as far as seen).
    reached: Tuple[str, ...] = ()
    #: Stable observations only: the way the stacks' shadows fall on the board, a unit
    #: vector in (file, rank) steps, or None when the still board does not show it
    #: (:func:`fenix_table.vision.evidence.shadow_direction`).
    shadow: Optional[Tuple[float, float]] = None
    #: Stable observations only: where the hand in the last frame with one before this
    #: still board put a stone down, in board coordinates (cells; a1's centre is
    #: (0.5, 0.5)), or None when no hand showed
    #: (:func:`fenix_table.vision.evidence.pointed_at`).
    pointed: Optional[Tuple[float, float]] = None

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

    ``k1`` is the lens's radial distortion about the image centre: a frame pixel ``d``
    shows what a distortion-free camera would show at ``c + (d - c)(1 + k1 |d - c|² / R²)``
    (``c`` the image centre, ``R`` half its diagonal; the frame generator's convention,
    with R for its focal length). The homography and ``corners`` are in that
    distortion-free image; with ``k1`` = 0 (files without it, and every manual
    calibration) it is the frame itself. Use :meth:`to_image` to
    find board points in the frame.
    """

    board: str
    image_size: Tuple[int, int]
    corners: Tuple[Tuple[float, float], ...]
    oriented: bool = False
    room: Optional[Dict] = None
    k1: float = 0.0

    def homography(self):
        """3x3 numpy homography from board coordinates (cells; a1's outer corner at (0, 0),
        files along x, ranks along y) to image pixels (distortion-free: see ``k1``)."""
        import cv2
        import numpy as np
        width, height = dimensions(self.board)
        src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
        return cv2.getPerspectiveTransform(src, np.array(self.corners, np.float32))

    def distort(self, points):
        """Distortion-free image points (N, 2) to where the lens puts them in the frame."""
        return distort_points(points, self.k1, self.image_size)

    def undistort(self, points):
        """Frame points (N, 2) to the distortion-free image of the homography."""
        return undistort_points(points, self.k1, self.image_size)

    def to_image(self, board_points):
        """Board points (N, 2; cells) to frame pixels (N, 2), lens distortion included."""
        import numpy as np
        pts = np.asarray(board_points, np.float64).reshape(-1, 2)
        p = np.column_stack([pts, np.ones(len(pts))]) @ self.homography().T
        return self.distort(p[:, :2] / p[:, 2:3])

    def cell_centres(self) -> Dict[str, Tuple[float, float]]:
        """Image position of every cell's centre on the board plane."""
        import numpy as np
        names = cell_names(self.board)
        pts = self.to_image(np.array([cell_index(n) for n in names], float) + 0.5)
        return {name: (float(x), float(y)) for name, (x, y) in zip(names, pts)}

    def rotated(self, quarter_turns: int) -> "Calibration":
        """The same grid with a1 moved ``quarter_turns`` corners along (7x8: only even):
        its cell (file, rank) is this grid's :func:`fenix_table.board.turned` cell."""
        k = quarter_turns % 4
        if k not in turns_allowed(self.board):
            raise ValueError(f"a {self.board} grid can only be turned by half turns")
        corners = self.corners[k:] + self.corners[:k]
        # The room's cell looks are images of the rectified board, which turns with a1:
        # a turned grid has none until it sees a start frame again.
        return Calibration(self.board, self.image_size, corners, self.oriented, self.room if k == 0 else None,
                           self.k1)

    def to_json(self) -> str:
        return json.dumps({
            "board": self.board, "image_size": list(self.image_size),
            "corners": [list(map(float, c)) for c in self.corners],
            "oriented": self.oriented, "room": self.room, "k1": float(self.k1),
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
                room = check_room(room, board)             # checked, in canonical form
            k1 = data.get("k1", 0.0)                       # files before the lens term: none
            if isinstance(k1, bool) or not isinstance(k1, (int, float)) or not abs(k1) <= MAX_K1:
                raise ValueError(f"k1 must be a number from -{MAX_K1} to {MAX_K1}")
            return cls(board, tuple(int(v) for v in data["image_size"]), corners,
                       bool(data.get("oriented", False)), room, float(k1))
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


#: The largest calibration file read (a saved one with its room, the CNN head and the edge's look is about 60 kB).
MAX_CALIBRATION_BYTES = 1_000_000
#: The strongest lens distortion a calibration may carry (``k1``): beyond about -1/3 the
#: model folds over at the image corners; real lenses stay far inside.
MAX_K1 = 0.3


def _centre_and_radius(image_size):
    w, h = image_size
    return (w / 2.0, h / 2.0), 0.5 * (w * w + h * h) ** 0.5


def undistort_points(points, k1: float, image_size):
    """Frame points (N, 2) to the distortion-free image (see :class:`Calibration`)."""
    import numpy as np
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if k1 == 0:
        return pts.copy()
    (cx, cy), R = _centre_and_radius(image_size)
    d = (pts - (cx, cy)) / R
    return d * (1 + k1 * (d * d).sum(axis=1, keepdims=True)) * R + (cx, cy)


def distort_points(points, k1: float, image_size):
    """Distortion-free image points (N, 2) to where they land in the frame: the inverse
    of :func:`undistort_points` (Newton's method on the radius: r (1 + k1 r²) = r_u).

    A barrel lens (``k1`` < 0) shows nothing of the distortion-free image beyond the
    radius where the model folds over (r = 1 / sqrt(-3 k1)); points out there (a grid's
    surroundings far past the frame's corner) land on that radius."""
    import numpy as np
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if k1 == 0:
        return pts.copy()
    (cx, cy), R = _centre_and_radius(image_size)
    u = (pts - (cx, cy)) / R
    ru = np.sqrt((u * u).sum(axis=1, keepdims=True))
    fold = 1 / np.sqrt(-3 * k1) if k1 < 0 else np.inf
    rd = np.minimum(ru, fold)
    for _ in range(8):
        # (From below, the steps never pass a root: they only stop at the fold where there is none.)
        rd = np.minimum(rd - (rd * (1 + k1 * rd * rd) - ru) / np.maximum(1 + 3 * k1 * rd * rd, 0.05), fold)
    return u * np.where(ru > 0, rd / np.maximum(ru, 1e-12), 1.0) * R + (cx, cy)


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

"""Reading every cell of a located board: colour, stack height, hands.

:class:`CellReader` warps the board (grid plus a half-cell margin) to a square
"rectified" image of ``pixels_per_cell`` pixels per cell, so every cell is the same
patch and all cells are read at once with array operations:

* colour: board-relative features read by the perceptron of :mod:`.colour`, and every
  cell's patch (the cell and some context) read by the
  :class:`~.classifier.CellClassifier` (a small CNN, its last layer refitted to the room
  once a frame of known layout has taught it), the two pooled;
* height: :mod:`.heights` (the parallax of each stack's top disc), None where unsure;
* hands: :mod:`.hands` (margin runs plus cells whose board-relative features
  (:mod:`.colour`) fit no colour).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, Mapping, Optional, Sequence, Tuple

import cv2
import numpy as np

from ..board import cell_index, cell_names, dimensions
from .classifier import RoomHead, cell_patches, shipped_classifier
from .colour import (CLASSES, FEATURES, LOOK_STEP, Room, calibrated_inputs, cell_looks, class_means, colour_plane,
                     frame_features, frame_labels, layout_labels, shipped_net, softmax)
from .heights import DEFAULT_HEIGHTS, HeightConfig, StackHeights
from .hands import (DEFAULT_HANDS, HandConfig, MarginLook, arm_runs, covered_cells, edge_arms, entered_cells,
                    hidden_edge_lines, lost_outer_lines, margin_changes, margin_look, margin_runs)
from .types import Calibration, CellReading, Observation


@dataclass(frozen=True)
class ReaderConfig:
    """Every threshold of the cell reader in one place."""

    pixels_per_cell: int = 32
    # Margin rectified around the grid: the hand check's, and the context of the CNN's
    # edge cells (classifier.MARGIN, half a cell).
    pad_cells: float = 0.5
    self_changed: float = 0.25          # share of cells the frame's own means may change
    classifier: str = "both"            # "cnn", "perceptron" (the features' net) or "both"
    # "both" pools the two, the CNN's probabilities weighing this much (0..1, the rest the
    # perceptron's) out of the box and once a start frame has calibrated the room. Tuned
    # on tuning data only, the whole reader (out of the box the frame's own room, the
    # pool_floor) with the shipped CNN, exact grids, cells wrong out of the box at weight
    # 0.65 / 0.7 / 0.75 / 0.8: pbr tune split (45 rooms of kinds no model trains on) 8 /
    # 9 / 9 / 11 of 3,490; generator seeds 77, 78, 80 (200 scenes each) 58 / 56 / 58 / 62
    # of 39,399; seeds 79 and 81 through a perturbed camera 54 / 51 / 54 / 54 of 25,978.
    # With the calibrated figures, 0.65 reads the three best together. (Below it the
    # perceptron's misreadings of glossy black stones in dusk light come through: 0.5
    # read the pbr tune split with 34 errors, the CNN before this one.)
    cnn_weight: float = 0.65
    cnn_weight_calibrated: float = 0.65
    # A learned room reads with the weight of these that reads its own frames' cells best,
    # each half of the board read by a room learned from the other (:meth:`CellReader.
    # learn_room`; ties go to cnn_weight_calibrated). In rooms whose glossy black stones
    # the perceptron cannot tell from the dark face even with a start frame, the CNN
    # then has the say: tune split of the pbr renderer (kinds no model trained on), 9x9
    # rooms in dusk light, where the fixed weight pooled the CNN's good calibrated reading
    # with the perceptron's poor one.
    cnn_weights_room: Tuple[float, ...] = (0.5, 0.65, 0.8, 0.9, 1.0)
    # No classifier's probability counts as less than this in the pool: a classifier can
    # be all but certain and wrong (the perceptron calls a glossy black stone that
    # mirrors a warm lamp red at 1 - 1e-9), and a geometric mean would let that one
    # number outvote the other classifier's sure reading, whatever its weight.
    pool_floor: float = 1e-3
    # A frame teaches the room a layout (the start position) only when the layout
    # explains it: this share of the cells at least, each half of the board read by the
    # rooms learned from the other half's cells (:meth:`CellReader.layout_fit`), reads
    # as the layout has it. Tuning data, exact grids, start frames: pbr tune split 0.95
    # or more; Cycles run seeds 1 and 4 (18 rooms) 0.84-1.0, but 0.73 for a glass room
    # in a low spot, whose start frame taught it worse than none (17 -> 24 cells wrong).
    # The grid turned a half or a quarter turn: 0.48 at most.
    layout_fit: float = 0.8
    heights: HeightConfig = DEFAULT_HEIGHTS
    hands: HandConfig = DEFAULT_HANDS


DEFAULT_READER = ReaderConfig()
CLASSIFIERS = ("cnn", "perceptron", "both")
_MISFIT_FEATURES = np.array([f != "contrast_t" for f in FEATURES])
_LINE_FEATURES = np.array([f in ("shadow_line", "lit_line", "side_line_max") for f in FEATURES])


@dataclass
class Rectified:
    """One frame warped to board coordinates (see module docstring)."""

    lab: np.ndarray          # float32 Lab, L 0..100
    grad: np.ndarray         # gradient magnitude of L
    ppc: int
    pad: int
    bgr: Optional[np.ndarray] = None    # the warped frame itself (uint8), the classifier's patches
    L: Optional[np.ndarray] = None      # lab's L channel, contiguous (filled in when not given)

    def __post_init__(self):
        if self.L is None:
            self.L = np.ascontiguousarray(self.lab[..., 0])


def _rect_to_image(calibration: Calibration, ppc: int, pad: int) -> np.ndarray:
    """Homography from rectified pixels to the calibration's distortion-free image."""
    S = np.array([[1.0 / ppc, 0, -pad / ppc], [0, 1.0 / ppc, -pad / ppc], [0, 0, 1]])
    return calibration.homography() @ S


class Rectifier:
    """Warps frames of one calibration to the rectified Lab image.

    The warp's source position of every rectified pixel is worked out once, as OpenCV's
    fixed-point remap tables: a frame then costs one remap instead of a perspective
    warp (0.8 ms instead of 1.06 on one core at 1280x960)."""

    def __init__(self, calibration: Calibration, config: ReaderConfig = DEFAULT_READER):
        width, height = dimensions(calibration.board)
        self.ppc = config.pixels_per_cell
        self.pad = int(round(config.pad_cells * self.ppc))
        corners = np.array(calibration.corners)
        image_ppc = max(np.linalg.norm(corners[1] - corners[0]) / width,
                        np.linalg.norm(corners[3] - corners[0]) / height)
        # Shrink first when the frame has many more pixels per cell than the rectified
        # image: area averaging keeps noise and JPEG blocks from aliasing into the
        # patches. (An integer factor keeps OpenCV on its fast path.)
        factor = int(image_ppc // (1.4 * self.ppc))
        self.scale = 1.0 / factor if factor >= 2 else 1.0
        M = _rect_to_image(calibration, self.ppc, self.pad)
        size = (width * self.ppc + 2 * self.pad, height * self.ppc + 2 * self.pad)
        xs, ys = np.meshgrid(np.arange(size[0], dtype=np.float32), np.arange(size[1], dtype=np.float32))
        src = cv2.perspectiveTransform(np.dstack([xs, ys]).reshape(1, -1, 2).astype(np.float64), M)[0]
        # The homography gives the distortion-free image; the lens moves it (k1).
        src = calibration.distort(src) * self.scale
        src = src.reshape(size[1], size[0], 2).astype(np.float32)
        self.maps = cv2.convertMaps(src[..., 0], src[..., 1], cv2.CV_16SC2)

    def __call__(self, frame_bgr: np.ndarray) -> Rectified:
        src = frame_bgr
        if self.scale != 1.0:
            src = cv2.resize(frame_bgr, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        warped = cv2.remap(src, self.maps[0], self.maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        lab = cv2.cvtColor(np.multiply(warped, np.float32(1.0 / 255), dtype=np.float32), cv2.COLOR_BGR2LAB)
        L = np.ascontiguousarray(lab[..., 0])
        gx = cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3)
        return Rectified(lab, cv2.magnitude(gx, gy), self.ppc, self.pad, warped, L)


def rectify(frame_bgr: np.ndarray, calibration: Calibration, config: ReaderConfig = DEFAULT_READER) -> Rectified:
    """Warp the board of ``frame_bgr`` to the rectified Lab image (one frame; a
    :class:`CellReader` keeps its :class:`Rectifier` for the next)."""
    return Rectifier(calibration, config)(frame_bgr)


@dataclass
class Lesson:
    """What one frame of known layout teaches the room: the cells' features and looks
    (the perceptron's room, and the class means the hand check compares with), the
    CNN's last-layer features, and the board's edge as it looked (the hand check's
    :class:`~.hands.MarginLook`; its cells' misfit scores are the room's to give)."""

    X: np.ndarray
    looks: np.ndarray
    embedding: np.ndarray
    margin: Optional[MarginLook] = None


def check_room(room: Mapping, board: str) -> dict:
    """A calibration's room checked and in canonical form (ValueError when it is not
    this reader's, or not of ``board``): the perceptron's :class:`~.colour.Room`, with
    the CNN's refitted last layer (``"head"``) when the room was learned for it, and the
    board edge's look (``"margin"``) for the hand check."""
    if isinstance(room, Mapping) and ("head" in room or "margin" in room):
        return _RoomOf.from_json(room, len(cell_names(board))).to_json()
    return Room.from_json(room).to_json()


@dataclass(frozen=True)
class _RoomOf:
    """A room for both classifiers: the perceptron's :class:`~.colour.Room` (its class
    means also tell the hand check what this room's cells look like), the CNN's last
    layer refitted to it (:class:`.classifier.RoomHead`) and how much the CNN weighs in
    this room's pool (None: the reader's configured weight)."""

    room: Room
    head: Optional[RoomHead]
    cnn_weight: Optional[float] = None
    margin: Optional[MarginLook] = None

    @property
    def means(self) -> np.ndarray:
        return self.room.means

    def to_json(self) -> dict:
        data = self.room.to_json()
        if self.head is not None:
            data["head"] = self.head.to_json()
        if self.cnn_weight is not None:
            data["cnn_weight"] = self.cnn_weight
        if self.margin is not None:
            data["margin"] = self.margin.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping, cells: int, features: Optional[int] = None) -> "_RoomOf":
        """``cells``: the board's cell count, which a margin look must have."""
        parsed = cls._from_json(data, features)
        if "margin" not in data:
            return parsed
        return replace(parsed, margin=MarginLook.from_json(data["margin"], cells))

    @classmethod
    def _from_json(cls, data: Mapping, features: Optional[int] = None) -> "_RoomOf":
        room = Room.from_json(data)
        weight = data.get("cnn_weight")
        if weight is not None and (isinstance(weight, bool) or not isinstance(weight, (int, float))
                                   or not 0.0 <= weight <= 1.0):
            raise ValueError("the calibration's room weight must be a number from 0 to 1")
        weight = None if weight is None else float(weight)
        head = data.get("head")
        if head is None:
            return cls(room, None, weight)
        try:
            width = features if features is not None else len(head["W"][0])
        except (KeyError, TypeError, IndexError):
            raise ValueError("the calibration's room is not this cell classifier's") from None
        return cls(room, RoomHead.from_json(head, width), weight)


def pooled(P: np.ndarray, Q: np.ndarray, weight: float, floor: float = DEFAULT_READER.pool_floor) -> np.ndarray:
    """Two classifiers' probabilities pooled: the normalised weighted geometric mean
    ``P ** weight * Q ** (1 - weight)`` (``weight`` 1 is ``P`` alone, 0 ``Q`` alone), each
    probability taken as at least ``floor`` (``ReaderConfig.pool_floor``)."""
    R = np.exp(weight * np.log(np.maximum(P, floor)) + (1.0 - weight) * np.log(np.maximum(Q, floor)))
    return R / R.sum(axis=1, keepdims=True)


class CellReader:
    """Reads every cell of frames taken with one calibration.

    >>> reader = CellReader(calibration)                       # doctest: +SKIP
    >>> obs = reader.read(frame_bgr, frame_index=7)            # doctest: +SKIP
    >>> obs.cells["a1"]                                        # doctest: +SKIP
    CellReading(color='red', height=1, color_confidence=0.99..., height_confidence=0.8...)

    Colours come from ``config.classifier``: "perceptron", the feature net of
    :mod:`.colour`; "cnn", the :class:`~.classifier.CellClassifier` on every cell's
    patch; or "both" (the default: the two pooled, :func:`pooled`, the CNN weighing
    ``config.cnn_weight`` out of the box and, once a room is learned, the weight the room
    chose (:meth:`room_weight`)). Each reads with the room the calibration
    learned from a start frame (``calibration.room``, written by
    :func:`calibrate_reader`) when it has one.

    Hands are found from the cells' features (:mod:`.hands`), never from a classifier's
    insides: margin runs, and cells far from every class of the rooms the features'
    scale was fitted on (or from the room's own classes).
    """

    def __init__(self, calibration: Calibration, config: ReaderConfig = DEFAULT_READER):
        if config.classifier not in CLASSIFIERS:
            raise ValueError(f"unknown cell classifier {config.classifier!r}")
        self.calibration = calibration
        self.config = config
        self.board = calibration.board
        self.width, self.height = dimensions(self.board)
        self.names = cell_names(self.board)
        # The halves a room is checked on (room_weight): the board's two sides of its
        # diagonal from a1's corner. Each holds stones of both camps and empty cells, and
        # a room learned on one side reads the other, where a low lamp's light may differ
        # as much as it does where a game's stones later stand (interleaved cells would
        # be lit alike).
        files, ranks = np.array([cell_index(n) for n in self.names]).T
        across = (files + 0.5) * self.height - (ranks + 0.5) * self.width
        self.halves = np.where(across == 0, files % 2, across > 0).astype(int)
        self.uses_cnn = config.classifier in ("cnn", "both")
        self.classifier = shipped_classifier()
        self.net = shipped_net(self.board, "default")
        self.room_net = shipped_net(self.board, "calibrated")
        self.feature_mean, self.feature_std = self.net.mean, self.net.std
        self.room: Optional[_RoomOf] = None
        if calibration.room is not None:
            self.room = self._parse_room(calibration.room)
        self.calibrated = self.room is not None
        # The board's edge as the hand check compares it (the room's, or one taken
        # without a room by look_again).
        self.look: Optional[MarginLook] = self.room.margin if self.room is not None else None
        self.stacks = StackHeights(calibration, config.heights)
        self.rectifier = Rectifier(calibration, config)
        self.last: Optional[Rectified] = None

    def _parse_room(self, data: Mapping) -> Optional[_RoomOf]:
        """The calibration's room if this reader can use it, else None (saved by another
        version of a model, or without what this classifier needs: read as if
        uncalibrated)."""
        try:
            room = _RoomOf.from_json(data, len(self.names), self.classifier.features)
        except (ValueError, AttributeError):
            return None
        if room.room.weights.size != 3 * (self.config.pixels_per_cell // LOOK_STEP) ** 2:
            return None                         # learned at another pixels_per_cell
        if self.uses_cnn and room.head is None:
            return None
        return room

    def look_again(self) -> Optional[dict]:
        """Take the board's edge as the last frame read shows it for the hand check's look
        (:class:`~.hands.MarginLook`) from now on. Returns the room (``Calibration.room``)
        carrying it, or None without a room (the look then lasts as long as this reader)."""
        if self.last is None:
            return None
        rect = self.last
        X, _ = self.features(rect)
        self.look = margin_look(rect.lab, rect.L, self.width, self.height, rect.ppc, rect.pad,
                                self._misfit_score(X, None if self.room is None else self.room.means),
                                self.config.hands)
        if self.room is None:
            return None
        self.room = replace(self.room, margin=self.look)
        return self.room.to_json()

    def use_room(self, room: Mapping) -> None:
        """Read from now on with ``room`` (one :meth:`learn_room` made from newer frames)."""
        self.room = self._parse_room(room)
        self.calibrated = self.room is not None
        if self.room is not None and self.room.margin is not None:
            self.look = self.room.margin

    # -- colour --------------------------------------------------------------------------

    def features(self, rect: Rectified) -> Tuple[np.ndarray, np.ndarray]:
        """Cell features and every cell's corners' colour (:func:`.colour.frame_features`)."""
        return frame_features(rect.lab, rect.grad, self.width, self.height, rect.ppc, rect.pad)

    def looks(self, rect: Rectified, corners: np.ndarray) -> np.ndarray:
        """Every cell's look (:func:`.colour.cell_looks`)."""
        return cell_looks(rect.lab, corners, self.width, self.height, rect.ppc, rect.pad)

    def patches(self, rect: Rectified) -> np.ndarray:
        """Every cell's patch for the classifier, in Lab (:func:`.classifier.cell_patches`)."""
        return cell_patches(rect.bgr, self.width, self.height, rect.ppc, rect.pad, lab=True)

    def lesson(self, rect: Rectified) -> Lesson:
        """What ``rect`` (a frame of known layout) can teach the room."""
        X, corners = self.features(rect)
        margin = margin_look(rect.lab, rect.L, self.width, self.height, rect.ppc, rect.pad, np.zeros(len(X)),
                             self.config.hands)
        return Lesson(X, self.looks(rect, corners), self.classifier.embed(self.patches(rect))[1], margin)

    def learn_room(self, lessons: Sequence[Tuple[Lesson, np.ndarray]],
                   across: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> dict:
        """The room (``Calibration.room``) taught by frames of known layout: (lesson,
        labels) pairs, labels in CLASSES index per cell, -1 for cells left out. It
        serves every classifier, with the pool weight :meth:`room_weight` finds. ValueError
        when a class has no cell. ``across``: the lessons' cells already read across the
        halves (:meth:`_read_across`), as :func:`calibrate_reader` has them."""
        X, looks, E = (np.concatenate(parts) for parts in zip(*[(l.X, l.looks, l.embedding) for l, _ in lessons]))
        labels = np.concatenate([np.asarray(y) for _, y in lessons])
        halves = np.tile(self.halves, len(lessons))
        room = Room.learn(X, looks, labels)
        # The board's edge as the latest lesson showed it, its cells scored against this room.
        latest = lessons[-1][0]
        margin = None if latest.margin is None else \
            replace(latest.margin, misfit=self._misfit_score(latest.X, room.means).astype(np.float32))
        return _RoomOf(room, self.classifier.learn_room(E, labels),
                       self.room_weight(X, looks, E, labels, halves, lean=len(lessons) > 1, across=across),
                       margin).to_json()

    def room_weight(self, X: np.ndarray, looks: np.ndarray, E: np.ndarray, labels: np.ndarray,
                    halves: np.ndarray, lean: bool = False,
                    across: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> Optional[float]:
        """The pool weight (of ``config.cnn_weights_room``) that reads a room's frames of
        known layout best when each half of their cells (``halves``, 0 or 1) is read by
        both classifiers' rooms learned from the other half: a room whose stones the
        perceptron cannot tell apart even after a start frame gives the CNN the say.
        Ties go to ``config.cnn_weight_calibrated``, or with ``lean`` (lessons of more than
        one frame) one tied weight further toward the classifier that alone reads fewer
        of the held-out cells wrong. Confirmed boards spread stones over the whole board,
        where the start frame has them in the camps only; without the lean, a room's
        refit could turn a cell the two classifiers dispute to the CNN's side where the
        CNN is the one the lessons show failing (generated rooms 0-299, a later position
        read after two confirmed boards: 2 cells taught and 2 unteached -> 5 and 2).
        None (the configured weight) unless both classifiers are pooled, or when a half
        lacks a class."""
        if self.config.classifier != "both":
            return None
        if across is None:
            across = self._read_across(X, looks, E, labels, halves)
        if across is None:
            return None
        P, Q = across
        used = labels >= 0
        errors = [int((pooled(P[used], Q[used], w, self.config.pool_floor).argmax(axis=1) != labels[used]).sum())
                  for w in self.config.cnn_weights_room]
        best = [w for w, e in zip(self.config.cnn_weights_room, errors) if e == min(errors)]
        cnn_errors = int((P[used].argmax(axis=1) != labels[used]).sum())
        perceptron_errors = int((Q[used].argmax(axis=1) != labels[used]).sum())
        default = self.config.cnn_weight_calibrated
        choice = min(best, key=lambda w: abs(w - default))
        if lean and cnn_errors != perceptron_errors:
            side = [w for w in best if (w < choice if perceptron_errors < cnn_errors else w > choice)]
            if side:
                return min(side, key=lambda w: abs(w - choice))
        return choice

    def _read_across(self, X: np.ndarray, looks: np.ndarray, E: np.ndarray, labels: np.ndarray,
                     halves: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """Each half's cells (``halves``) read by the rooms learned from the other half's
        labelled cells: the CNN's and the perceptron's probabilities, or None when a half
        lacks a class."""
        P, Q = np.zeros((len(labels), 3)), np.zeros((len(labels), 3))
        for half in (0, 1):
            teach = np.where(halves == half, -1, labels)
            read = halves == half
            try:
                room = Room.learn(X, looks, teach)
                head = self.classifier.learn_room(E, teach)
            except ValueError:
                return None
            P[read] = softmax(head.logits(E[read]))
            Q[read] = self._room_probabilities(room, X[read], looks[read])
        return P, Q

    def layout_fit(self, across: Optional[Tuple[np.ndarray, np.ndarray]], labels: np.ndarray) -> float:
        """How well ``labels`` (CLASSES index per cell, -1 left out) explain the frame of a
        lesson whose cells were read ``across`` the halves (:meth:`_read_across`): the
        share of the labelled cells that each half of the board, read by the rooms learned
        from the other half, reads as labelled. Near 1 when the frame shows the layout,
        however the room's light shifts its colours (in a dim room red stones may read as
        black until a room is learned); far lower for another position or a grid turned
        against the layout, whose labels no room can learn. 0 when a half lacks a class
        (``across`` None)."""
        if across is None:
            return 0.0
        P, Q = across
        w = self.config.cnn_weight_calibrated if self.config.classifier == "both" else \
            float(self.config.classifier == "cnn")
        used = labels >= 0
        read = pooled(P[used], Q[used], w, self.config.pool_floor).argmax(axis=1)
        return float((read == labels[used]).mean()) if used.any() else 0.0

    def cnn_weight(self) -> float:
        """How much the CNN weighs in this reader's colours now (1: alone, 0: not read):
        a learned room's own weight, else the configured one."""
        if self.config.classifier != "both":
            return float(self.config.classifier == "cnn")
        if not self.calibrated:
            return self.config.cnn_weight
        return self.config.cnn_weight_calibrated if self.room.cnn_weight is None else self.room.cnn_weight

    def colours(self, rect: Rectified, X: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """(cells x 3) colour probabilities, CLASSES order, of one rectified frame.

        Pooled out of the box, the frame is its own start frame: the perceptron reads it
        against the room (class means and looks, :class:`~.colour.Room`) that the cells
        the pool reads surely teach (:meth:`_frame_room`)."""
        w = self.cnn_weight()
        P = Q = None
        if w > 0:
            P = self.classifier.probabilities(self.patches(rect), self.room.head if self.room else None)
        if w < 1:
            if P is not None and not self.calibrated:
                return self._frame_room(P, X, self.looks(rect, corners), w)
            Q = self.probabilities(X, self.looks(rect, corners) if self.calibrated else None)
        if P is None or Q is None:
            return P if Q is None else Q
        return pooled(P, Q, w, self.config.pool_floor)

    def _frame_room(self, P: np.ndarray, X: np.ndarray, looks: np.ndarray, w: float) -> np.ndarray:
        """Out of the box, the CNN's ``P`` pooled (weight ``w``) with the perceptron reading
        the frame against its own room, learned from the cells the CNN pooled with the
        default perceptron reads surely (:func:`~.colour.frame_labels`). Where the
        perceptron alone mistakes glossy black stones on a dark face for the face, the
        pool's sure cells still show it this room's black stones. Without enough sure
        cells of every class, or when the room would change more than
        ``config.self_changed`` of the first pool's cells, the perceptron reads the frame
        alone (:meth:`_frame_only`)."""
        first = pooled(P, self.net.probabilities(X), w, self.config.pool_floor)
        labels = frame_labels(first)
        if labels is not None:
            room = Room.learn(X, looks, labels)
            R = pooled(P, self._room_probabilities(room, X, looks), w, self.config.pool_floor)
            if (R.argmax(axis=1) != first.argmax(axis=1)).mean() <= self.config.self_changed:
                return R
        return pooled(P, self._frame_only(X), w, self.config.pool_floor)

    def probabilities(self, X: np.ndarray, looks: Optional[np.ndarray]) -> np.ndarray:
        """The perceptron's (cells x 3) colour probabilities, CLASSES order.

        With the start frame's room, the calibrated net reads every cell against the
        room's class means, and the cell's look against the room's looks adds its odds
        (:meth:`Room.look_odds`). The frame-only reading below is not averaged in, as it
        was when the room was class means alone: it lacks the looks, which are where the
        room helps most.

        Without one, the default net's confident cells teach the frame's own class means
        (:func:`frame_labels`), read twice: the second pass learns from the first pass's
        better reading. A frame lacking a class keeps the default reading. (The frame's
        own looks are left out: learned from a reading that is itself unsure, they
        mislead more than they help.)"""
        if self.calibrated:
            return self._room_probabilities(self.room.room, X, looks)
        return self._frame_only(X)

    def _room_probabilities(self, room: Room, X: np.ndarray, looks: np.ndarray) -> np.ndarray:
        return softmax(self.room_net.logits(room.inputs(X)) + room.look_odds(looks))

    def _frame_only(self, X: np.ndarray) -> np.ndarray:
        default = P = self.net.probabilities(X)
        for _ in range(2):
            labels = frame_labels(P)
            if labels is None:
                break
            P = self.room_net.probabilities(calibrated_inputs(X, class_means(X, labels)))
            # Means learned from a badly read frame mislead: past a few cells changed,
            # keep the default reading.
            if (P.argmax(axis=1) != default.argmax(axis=1)).mean() > self.config.self_changed:
                return default
        return P

    # -- the whole frame -----------------------------------------------------------------

    def read(self, frame_bgr: np.ndarray, frame_index: int = 0) -> Observation:
        """Observation of one frame: every cell's colour and height with confidences,
        whether an arm is over the board and which cells it covers."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3:
            raise ValueError("frame must be a BGR image")
        rect = self.rectifier(frame_bgr)
        self.last = rect
        X, corners = self.features(rect)
        P = self.colours(rect, X, corners)
        best = P.argmax(axis=1)
        conf = P[np.arange(len(P)), best]
        hands = self.config.hands
        look = self.look
        changed = entered = None
        lost = lost_outer_lines(rect.L, self.width, self.height, rect.ppc, rect.pad, hands, look)
        if look is not None:
            changed = margin_changes(rect.lab, self.width, self.height, rect.ppc, rect.pad, look, hands)
            entered = entered_cells(changed, self.width, self.height, rect.ppc)
        else:
            # With no look of the room's edge, an arm seen on the board alone starts where
            # the outer line beside it is hidden: glare on a glossy edge stone leaves it.
            entered = entered_cells(lost, self.width, self.height, rect.ppc)
        runs = margin_runs(rect.lab, self.width, self.height, rect.ppc, rect.pad,
                           _board_plane(corners, self.width, self.height), hands, changed)
        score = self._misfit_score(X, None if self.room is None else self.room.means)
        if look is not None:
            # Cells that fitted no class in the room's hand-free frame already (glare, a
            # pool of light) are an arm only where they fit still less now.
            score = np.where(score > look.misfit + hands.misfit_rise, score, 0.0)
        # Under an arm a cell fits no class, or its four grid lines are all gone: a stone
        # never hides more than the line on its shadow side.
        unfit = (score > hands.misfit) | (X[:, _LINE_FEATURES].max(axis=1) < hands.lines_gone)
        if look is not None:
            runs = arm_runs(runs, lost, unfit, self.width, self.height, rect.ppc, hands)
        runs += hidden_edge_lines(lost, rect.ppc, hands)
        covered: set = set()
        if runs:
            covered = covered_cells(runs, self.width, self.height, unfit)
        covered |= edge_arms(score, self.width, self.height, hands, entered)
        heights = self.stacks.read(frame_bgr, best)
        cells: Dict[str, CellReading] = {}
        for i, (name, k, c) in enumerate(zip(self.names, best.tolist(), np.round(conf, 4).tolist())):
            colour = CLASSES[k]
            h, hc = heights.get(i, (None, 0.0))
            cells[name] = CellReading(colour, h if colour != "empty" else None, c, round(hc, 4))
        occluded = tuple(self.names[i] for i in sorted(covered))
        return Observation(self.board, cells, bool(runs or covered), occluded, True, frame_index)

    def _misfit_score(self, X: np.ndarray, means: Optional[np.ndarray] = None) -> np.ndarray:
        """How far each cell looks from all of empty, red and black: the largest
        standardised distance from the features of the rooms the feature scale was
        fitted on, or from a room's class ``means`` if nearer. Stone contrast over the
        room's own noise is left out: in a sharp, clean frame it grows without bound for
        every stone, which says nothing about an arm."""
        Z = (X - self.feature_mean) / self.feature_std
        score = np.abs(Z[:, _MISFIT_FEATURES]).max(axis=1)
        if means is not None:
            # A cell like one of the room's own classes fits, however far it is from the
            # rooms the model was fitted on: glare on glossy stones along the edge is no arm.
            near = np.abs((X[:, None, :] - means[None]) / self.feature_std)[:, :, _MISFIT_FEATURES]
            score = np.minimum(score, near.max(axis=2).min(axis=1))
        return score


def _board_plane(corners: np.ndarray, width: int, height: int) -> np.ndarray:
    """The board's colour as a plane across it (:func:`.colour.colour_plane`), fitted to
    every cell's corners at the cell's middle (cell coordinates)."""
    f, r = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    return colour_plane(np.stack([f.ravel(), r.ravel()], -1), corners.astype(np.float64))


def calibrate_reader(frame_bgr: np.ndarray, calibration: Calibration,
                     placement: Dict[str, Tuple[str, int]],
                     config: ReaderConfig = DEFAULT_READER) -> Calibration:
    """Fit the colour model to a frame showing ``placement`` (normally the start
    position) and return the calibration carrying it. (Stack heights need no start
    frame: each frame's stacks tell their stone thickness, see :mod:`.heights`.)

    Raises ValueError when the placement does not explain the frame (its fit,
    :meth:`CellReader.layout_fit`, below ``config.layout_fit``: another position, or the
    grid turned against it), when a class is missing, or when its red stones do not
    read redder than its black ones.
    """
    base = replace(calibration, room=None)
    reader = CellReader(base, config)
    rect = reader.rectifier(frame_bgr)
    labels = layout_labels(placement, reader.names)
    lesson = reader.lesson(rect)
    # Each half read by the rooms of the other, once: for the fit, and for the room's
    # pool weight.
    across = reader._read_across(lesson.X, lesson.looks, lesson.embedding, labels, reader.halves)
    fit = reader.layout_fit(across, labels)
    # The layout's red stones must also read redder than its black ones: a room learns
    # any two camps alike, and only colour tells which camp is Red's.
    X, corners = reader.features(rect)
    seen = np.log(np.maximum(reader.colours(rect, X, corners), 1e-12))
    redness = seen[:, CLASSES.index("red")] - seen[:, CLASSES.index("black")]
    red, black = labels == CLASSES.index("red"), labels == CLASSES.index("black")
    if fit < config.layout_fit or not red.any() or not black.any() or \
            redness[red].mean() <= redness[black].mean():
        raise ValueError(f"frame does not show the expected layout ({100 * fit:.0f}% of cells fit it)")
    return replace(calibration, room=reader.learn_room([(lesson, labels)], across))

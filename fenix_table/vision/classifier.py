"""The cell classifier: rectified cell patches in, the three colours' probabilities out.

One seam, :class:`CellClassifier`: it takes one frame's rectified board at CELL pixels
per cell (BGR, uint8, :func:`board_image`: every cell's patch, the cell with a margin of
context, is cut from it, :func:`cell_patches`) and returns (cells x 3) probabilities in
:data:`CLASSES` order. The shipped one, :class:`CnnClassifier`, is a
small convolutional net trained on generated frames (``tools/fenix_tools/cnn``), stored
as ONNX in the package and run by OpenCV's ``dnn`` module, so the Pi needs nothing new.
Its confidences are temperature-scaled on held-out rooms (the temperature is folded
into the last layer before export).

A frame of known layout (the start position, later every board the referee confirms)
teaches the room: :class:`RoomHead` refits the net's last layer on that frame's cells,
pulled toward the shipped weights, so a room's own black stones on its own face count
for what they are here. (:class:`~.cells.CellReader` pools this reading with the feature
perceptron's, out of the box and once a room is learned, each with its own weight: see
``ReaderConfig.cnn_weight``.)

Every patch is measured against the frame's board colour (:func:`board_reference`, the
median colour just inside the cells' corners, which stones rarely cover): warm or cool,
bright or dim light moves the net's input much less than raw colours would.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Protocol, Tuple

import cv2
import numpy as np

from .colour import softmax

CLASSES = ("empty", "red", "black")
CELL = 16                 # patch pixels per cell
MARGIN = 4                # context around the cell, pixels on each side
PATCH = CELL + 2 * MARGIN
MODEL_DIR = os.path.dirname(os.path.abspath(__file__))
MODEL_PATH = os.path.join(MODEL_DIR, "cell_cnn.onnx")
HEAD_PATH = os.path.join(MODEL_DIR, "cell_cnn.json")


def board_image(bgr: np.ndarray, width: int, height: int, ppc: int, pad: int) -> np.ndarray:
    """(height * CELL + 2 * MARGIN, width * CELL + 2 * MARGIN, 3) uint8: a rectified BGR
    board image (grid from pixel ``pad``, ``ppc`` pixels per cell, at least MARGIN/CELL
    of a cell around it) at CELL pixels per cell, the grid and MARGIN pixels around it:
    what every cell's patch is cut from (:func:`cell_patches`), and what the
    classifier reads."""
    if ppc != CELL:
        f = CELL / ppc
        bgr = cv2.resize(bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
        pad = int(round(pad * f))
    top = pad - MARGIN
    if top < 0:
        raise ValueError("the rectified image has too little margin around the grid")
    return np.ascontiguousarray(bgr[top:top + height * CELL + 2 * MARGIN, top:top + width * CELL + 2 * MARGIN])


def board_cells(board: np.ndarray) -> Tuple[int, int]:
    """(width, height) in cells of a :func:`board_image`."""
    return (board.shape[1] - 2 * MARGIN) // CELL, (board.shape[0] - 2 * MARGIN) // CELL


def cell_patches(board: np.ndarray) -> np.ndarray:
    """(cells, PATCH, PATCH, 3) uint8: every cell of a :func:`board_image` with MARGIN
    pixels of context, in :func:`~fenix_table.board.cell_names` order."""
    width, height = board_cells(board)
    s0, s1, s2 = board.strides
    view = np.lib.stride_tricks.as_strided(
        board, (height, width, PATCH, PATCH, 3), (CELL * s0, CELL * s1, s0, s1, s2), writeable=False)
    return view.reshape(height * width, PATCH, PATCH, 3)


def board_of(patches: np.ndarray, width: int, height: int) -> np.ndarray:
    """The :func:`board_image` whose :func:`cell_patches` are ``patches`` (every cell of
    a ``width`` x ``height`` board, as stored for training)."""
    board = np.zeros((height * CELL + 2 * MARGIN, width * CELL + 2 * MARGIN, 3), np.uint8)
    for i, patch in enumerate(patches):
        r, c = divmod(i, width)
        board[r * CELL:r * CELL + PATCH, c * CELL:c * CELL + PATCH] = patch
    return board


# Pixels just inside each cell's four corners (patch coordinates): the board's own colour
# wherever stones of radius < 0.45 cell stand.
_C0, _C1 = MARGIN + 2, MARGIN + CELL - 3
_CORNERS = ((_C0, _C0), (_C0, _C1), (_C1, _C0), (_C1, _C1))


def to_lab(images: np.ndarray) -> np.ndarray:
    """(..., rows, columns, 3) float32 Lab (L 0..100) of BGR uint8 images (patches, or a board)."""
    flat = np.multiply(images.reshape(-1, images.shape[-2], 3), np.float32(1.0 / 255), dtype=np.float32)
    return cv2.cvtColor(flat, cv2.COLOR_BGR2LAB).reshape(images.shape)


def board_reference(lab: np.ndarray) -> np.ndarray:
    """The frame's board colour (Lab): the median over every cell's corner pixels."""
    samples = np.concatenate([lab[:, y, x] for y, x in _CORNERS])
    return np.median(samples, axis=0)


def _normalised(lab: np.ndarray, ref: np.ndarray, out: np.ndarray, scale: np.float32) -> None:
    np.subtract(lab, ref.reshape((3,) + (1,) * (lab.ndim - 1)), out=out)
    out *= scale


def _scale(ref: np.ndarray) -> np.float32:
    """Over the board's lightness: a dim room's stones differ from its face by as much,
    relatively, as a bright room's."""
    return np.float32(3.0 / (ref[0] + 5.0))


def net_input(patches: np.ndarray) -> np.ndarray:
    """The net's input blob (N, 3, PATCH, PATCH) float32 for one frame's patches: Lab less
    the frame's board colour, over the board's lightness (what the net is trained on)."""
    lab = to_lab(patches)
    ref = board_reference(lab)
    blob = np.empty((len(patches), 3, PATCH, PATCH), np.float32)
    _normalised(lab.transpose(3, 0, 1, 2), ref, blob.transpose(1, 0, 2, 3), _scale(ref))
    return blob


def board_input(board: np.ndarray, blocks: Tuple[int, int]) -> np.ndarray:
    """The exported model's input for a :func:`board_image`: the values :func:`net_input`
    gives its patches, every 2x2 pixel block's 12 values as channels (channel
    ``c * 4 + 2 * dy + dx``), (cells, 12, PATCH/2 + before + after, ...) with
    ``blocks`` = (before, after) blocks of zeros around them. A first layer striding
    two pixels then reads whole blocks at stride one, which cv2.dnn runs several times
    faster than the strided layer on three channels (see
    :func:`fenix_tools.cnn.train.space_to_depth`).

    Made from the board image, not from its patches: every pixel is converted once
    (patches overlap), and the blocks are rearranged once, as whole planes (patches
    start at even pixels, so a patch's blocks are a window of the board's)."""
    lab = to_lab(board)
    width, height = board_cells(board)
    rows, cols = CELL * np.arange(height)[:, None], CELL * np.arange(width)
    ref = np.median(np.concatenate([lab[rows + y, cols + x].reshape(-1, 3) for y, x in _CORNERS]), axis=0)
    rows, cols = board.shape[0] // 2, board.shape[1] // 2
    # (row block, dy, column block, dx, channel) -> (channel, dy, dx, row block, column block)
    planes = np.empty((3, 2, 2, rows, cols), np.float32)
    _normalised(lab.reshape(rows, 2, cols, 2, 3).transpose(4, 1, 3, 0, 2), ref, planes, _scale(ref))
    half = PATCH // 2
    before, after = blocks
    side = half + before + after
    cells = np.lib.stride_tricks.as_strided(
        planes, (height, width, 12, half, half),
        (CELL // 2 * planes.strides[3], CELL // 2 * planes.strides[4]) + (planes.strides[2],) + planes.strides[3:],
        writeable=False)
    blob = np.zeros((height, width, 12, side, side), np.float32)
    blob[..., before:before + half, before:before + half] = cells
    return blob.reshape(height * width, 12, side, side)


class CellClassifier(Protocol):
    """What the cell reader asks of a classifier (see the module docstring)."""

    def probabilities(self, board: np.ndarray, room: Optional["RoomHead"] = None) -> np.ndarray:
        """(cells x 3) probabilities, CLASSES order, of every cell of one frame's
        :func:`board_image`."""

    def embed(self, board: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(logits, features) of every cell of one frame's :func:`board_image`: the
        shipped reading and what the last layer reads it from (what a room is learned
        from)."""


@dataclass(frozen=True)
class RoomHead:
    """The net's last layer refitted to one room (its frames of known layout): weights
    (classes x features) and biases, read as logits ``features @ W.T + b``."""

    W: np.ndarray
    b: np.ndarray

    @classmethod
    def learn(cls, features: np.ndarray, labels: np.ndarray, W0: np.ndarray, b0: np.ndarray,
              pull: float = 0.03, steps: int = 200) -> "RoomHead":
        """Refit the last layer (shipped ``W0``, ``b0``) on the cells ``labels`` names
        (CLASSES index, -1 left out): gradient descent on the class-balanced
        cross-entropy plus ``pull``/2 times the squared distance from the shipped
        weights (the features scaled to unit mean square), starting from them. One
        frame has few cells, and what it did not show must still read as the net does.
        ValueError when a class has no cell."""
        used = labels >= 0
        y = labels[used]
        for c, name in enumerate(CLASSES):
            if not (y == c).any():
                raise ValueError(f"no {name} cells to learn from")
        F = features[used].astype(np.float64)
        # Scaled so that one step size fits every room (bright or dim features alike).
        scale = np.sqrt(float(np.mean(np.sum(F * F, axis=1))) + 1e-6)
        F = F / scale
        counts = np.bincount(y, minlength=len(CLASSES)).astype(float)
        w = (1.0 / counts)[y] / len(CLASSES)
        Y = np.eye(len(CLASSES))[y]
        V0 = W0.astype(np.float64) * scale
        V, b = V0.copy(), b0.astype(np.float64).copy()
        rate = 1.0 / (0.5 + pull)
        for _ in range(steps):
            G = (softmax(F @ V.T + b) - Y) * w[:, None]
            V -= rate * (G.T @ F + pull * (V - V0))
            b -= rate * (G.sum(axis=0) + pull * (b - b0))
        return cls(V / scale, b)

    def logits(self, features: np.ndarray) -> np.ndarray:
        return features @ self.W.T + self.b

    def to_json(self) -> dict:
        return {"kind": "cnn-head", "W": np.round(self.W, 6).tolist(), "b": np.round(self.b, 6).tolist()}

    @classmethod
    def from_json(cls, data: Mapping, features: int) -> "RoomHead":
        """Inverse of :meth:`to_json`; ValueError when it does not fit a net of
        ``features`` last-layer inputs."""
        try:
            if data.get("kind") != "cnn-head":
                raise ValueError
            W = np.array(data["W"], float)
            b = np.array(data["b"], float)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ValueError("the calibration's room is not this cell classifier's") from None
        if W.shape != (len(CLASSES), features) or b.shape != (len(CLASSES),):
            raise ValueError("the calibration's room is not this cell classifier's")
        return cls(W, b)


class CnnClassifier:
    """The shipped CNN (:data:`MODEL_PATH`, run by ``cv2.dnn``); its last layer's weights
    (:data:`HEAD_PATH`) are what :class:`RoomHead` starts from."""

    def __init__(self, model_path: str = MODEL_PATH, head_path: str = HEAD_PATH):
        self.net = cv2.dnn.readNetFromONNX(model_path)
        self.net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        with open(head_path, encoding="utf-8") as fh:
            head = json.load(fh)
        self.W = np.array(head["W"], np.float64)
        self.b = np.array(head["b"], np.float64)
        self.temperature = float(head.get("temperature", 1.0))
        self.outputs = list(head.get("outputs", ("logits", "features")))
        self.blocks = tuple(head["blocks"])

    @property
    def features(self) -> int:
        return self.W.shape[1]

    def embed(self, board: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        self.net.setInput(board_input(board, self.blocks))
        logits, feats = self.net.forward(self.outputs)
        return logits.astype(np.float64), feats.reshape(len(logits), -1).astype(np.float64)

    def probabilities(self, board: np.ndarray, room: Optional[RoomHead] = None) -> np.ndarray:
        logits, feats = self.embed(board)
        if room is not None:
            logits = room.logits(feats)
        return softmax(logits)

    def learn_room(self, features: np.ndarray, labels: np.ndarray) -> RoomHead:
        """The room of frames whose cells' last-layer ``features`` ``labels`` names."""
        return RoomHead.learn(features, labels, self.W, self.b)


_SHIPPED: Dict[str, CnnClassifier] = {}


def shipped_classifier() -> CnnClassifier:
    """The package's classifier (loaded once per process)."""
    if "cnn" not in _SHIPPED:
        _SHIPPED["cnn"] = CnnClassifier()
    return _SHIPPED["cnn"]


"""The cell classifier: rectified cell patches in, the three colours' probabilities out.

One seam, :class:`CellClassifier`: it takes every cell patch of one frame (BGR, uint8,
the cell with a margin of context, :func:`cell_patches`) and returns (cells x 3)
probabilities in :data:`CLASSES` order. The shipped one, :class:`CnnClassifier`, is a
small convolutional net trained on generated frames (``tools/fenix_tools/cnn``), stored
as ONNX in the package and run by OpenCV's ``dnn`` module, so the Pi needs nothing new.
Its confidences are temperature-scaled on held-out rooms (the temperature is folded
into the last layer before export).

A frame of known layout (the start position, later every board the referee confirms)
teaches the room: :class:`RoomHead` refits the net's last layer on that frame's cells,
pulled toward the shipped weights, so a room's own black stones on its own face count
for what they are here. Out of the box every frame does the same, briefly, from the
cells it reads surely (:meth:`CnnClassifier.frame_head`). (:class:`~.cells.CellReader`
pools this reading with the feature perceptron's, out of the box and once a room is
learned, each with its own weight: see ``ReaderConfig.cnn_weight``.)

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

from .colour import frame_labels, sample_median, softmax

CLASSES = ("empty", "red", "black")
CELL = 16                 # patch pixels per cell
# Context around the cell, pixels on each side: half a cell, so that the stone beside a
# cell is seen with the shadow it casts into it, and a dark stone against its neighbours.
MARGIN = 8
PATCH = CELL + 2 * MARGIN
MODEL_DIR = os.path.dirname(os.path.abspath(__file__))
MODEL_PATH = os.path.join(MODEL_DIR, "cell_cnn.onnx")
HEAD_PATH = os.path.join(MODEL_DIR, "cell_cnn.json")
FRAME_STEPS = 10          # gradient steps of an out-of-the-box frame's own refit
FRAME_CHANGED = 0.25      # share of cells that refit may change


def at_cell_size(bgr: np.ndarray, ppc: int, pad: int) -> Tuple[np.ndarray, int]:
    """A rectified board image (grid from pixel ``pad``, ``ppc`` pixels per cell) at CELL
    pixels per cell, and where its grid starts there."""
    if ppc == CELL:
        return bgr, pad
    f = CELL / ppc
    return (cv2.resize(bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR),
            int(round(pad * f)))


def cell_patches(bgr: np.ndarray, width: int, height: int, ppc: int, pad: int, lab: bool = False) -> np.ndarray:
    """(cells, PATCH, PATCH, 3) uint8: every cell of a rectified BGR board image (grid
    from pixel ``pad``, ``ppc`` pixels per cell, at least MARGIN/CELL of a cell around
    it) at CELL pixels per cell with MARGIN pixels of context, in
    :func:`~fenix_table.board.cell_names` order. With ``lab``, the same patches in Lab
    (float32, as :func:`to_lab` gives them): converted once for the whole board, which
    costs less than converting the overlapping patches."""
    bgr, pad = at_cell_size(bgr, ppc, pad)
    top = pad - MARGIN
    if top < 0:
        raise ValueError("the rectified image has too little margin around the grid")
    img = np.ascontiguousarray(bgr[top:top + height * CELL + 2 * MARGIN, top:top + width * CELL + 2 * MARGIN])
    if lab:
        img = _lab(img)
    s0, s1, s2 = img.strides
    view = np.lib.stride_tricks.as_strided(
        img, (height, width, PATCH, PATCH, 3), (CELL * s0, CELL * s1, s0, s1, s2), writeable=False)
    return view.reshape(height * width, PATCH, PATCH, 3)


# Pixels just inside each cell's four corners (patch coordinates): the board's own colour
# wherever stones of radius < 0.45 cell stand.
_C0, _C1 = MARGIN + 2, MARGIN + CELL - 3
_CORNERS = ((_C0, _C0), (_C0, _C1), (_C1, _C0), (_C1, _C1))


def _lab(bgr: np.ndarray) -> np.ndarray:
    """float32 Lab (L 0..100) of a BGR uint8 image (rows, columns, 3)."""
    return cv2.cvtColor(np.multiply(bgr, np.float32(1.0 / 255), dtype=np.float32), cv2.COLOR_BGR2LAB)


def to_lab(patches: np.ndarray) -> np.ndarray:
    """(N, PATCH, PATCH, 3) float32 Lab (L 0..100) of BGR uint8 patches."""
    n = len(patches)
    return _lab(patches.reshape(n * PATCH, PATCH, 3)).reshape(n, PATCH, PATCH, 3)


def board_reference(lab: np.ndarray) -> np.ndarray:
    """The frame's board colour (Lab): the median over every cell's corner pixels."""
    samples = np.concatenate([lab[:, y, x] for y, x in _CORNERS])
    return sample_median(samples[None])[0]


def net_input(patches: np.ndarray, blocks: Optional[Tuple[int, int]] = None) -> np.ndarray:
    """The net's input blob (N, 3, PATCH, PATCH) float32 for one frame's patches (BGR
    uint8, or their Lab: float32, :func:`cell_patches` with ``lab``): Lab less
    the frame's board colour, over the board's lightness (a dim room's stones differ
    from its face by as much, relatively, as a bright room's).

    With ``blocks`` (before, after), the same values as the exported model takes them
    (:func:`fenix_tools.cnn.train.export`): every 2x2 pixel block's 12 values as channels
    (channel ``c * 4 + 2 * dy + dx``), (N, 12, PATCH/2 + before + after, ...), with
    ``before`` and ``after`` blocks of zeros around them. A first layer striding two
    pixels then reads whole blocks at stride one, which cv2.dnn runs several times
    faster than the strided layer on three channels."""
    lab = patches if patches.dtype == np.float32 else to_lab(patches)
    ref = board_reference(lab)
    scale = np.float32(3.0 / (ref[0] + 5.0))
    if blocks is None:
        blob = np.subtract(lab.transpose(0, 3, 1, 2), ref[:, None, None], order="C")
        blob *= scale
        return blob
    n, half = len(patches), PATCH // 2
    before, after = blocks
    side = half + before + after
    blob = np.zeros((n, 3, 2, 2, side, side), np.float32)
    # (cell, y block, dy, x block, dx, channel) -> (cell, channel, dy, dx, y block, x block)
    pixels = lab.reshape(n, half, 2, half, 2, 3).transpose(0, 5, 2, 4, 1, 3)
    inside = blob[..., before:before + half, before:before + half]
    np.subtract(pixels, ref[:, None, None, None, None], out=inside)
    inside *= scale
    return blob.reshape(n, 12, side, side)


class CellClassifier(Protocol):
    """What the cell reader asks of a classifier (see the module docstring)."""

    def probabilities(self, patches: np.ndarray, room: Optional["RoomHead"] = None) -> np.ndarray:
        """(cells x 3) probabilities, CLASSES order, of one frame's patches."""

    def embed(self, patches: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(logits, features) of one frame's patches: the shipped reading and what the
        last layer reads it from (what a room is learned from)."""


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

    def embed(self, patches: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        self.net.setInput(net_input(patches, self.blocks))
        logits, feats = self.net.forward(self.outputs)
        return logits.astype(np.float64), feats.reshape(len(patches), -1).astype(np.float64)

    def probabilities(self, patches: np.ndarray, room: Optional[RoomHead] = None) -> np.ndarray:
        """With ``room``, the room's last layer reads the cells; without, the frame's own
        sure cells refit it first (:meth:`frame_head`)."""
        logits, feats = self.embed(patches)
        if room is not None:
            return softmax(room.logits(feats))
        P = softmax(logits)
        head = self.frame_head(P, feats)
        if head is None:
            return P
        R = softmax(head.logits(feats))
        # A head learned from a badly read frame misleads: past a few cells changed, keep
        # the shipped reading.
        return P if (R.argmax(axis=1) != P.argmax(axis=1)).mean() > FRAME_CHANGED else R

    def frame_head(self, P: np.ndarray, features: np.ndarray) -> Optional[RoomHead]:
        """Out of the box, the last layer refitted to one frame (its cells read ``P``) from
        the cells it reads surely (:func:`~.colour.frame_labels`), as a start frame's
        room is, in :data:`FRAME_STEPS` steps: the frame's own light, face and stones
        tell the net what this room's classes look like. None when the frame lacks a
        class (:func:`~.colour.frame_labels` then finds too few of its cells, so
        :meth:`RoomHead.learn` always has every class). (Tuning data,
        ``fenix_tools.cnn.pooling --seeds 77,78 --scenes 100``, pooled at the then shipped
        weight 0.8 and CNN: generator 53 -> 41 cells wrong of 13,138, the CNN alone 66 -> 59;
        pbr train fold 4 -> 4 of 3,660. 200 steps instead of 10 changed nothing.)"""
        labels = frame_labels(P)
        if labels is None:
            return None
        return RoomHead.learn(features, labels, self.W, self.b, steps=FRAME_STEPS)

    def learn_room(self, features: np.ndarray, labels: np.ndarray) -> RoomHead:
        """The room of frames whose cells' last-layer ``features`` ``labels`` names."""
        return RoomHead.learn(features, labels, self.W, self.b)


_SHIPPED: Dict[str, CnnClassifier] = {}


def shipped_classifier() -> CnnClassifier:
    """The package's classifier (loaded once per process)."""
    if "cnn" not in _SHIPPED:
        _SHIPPED["cnn"] = CnnClassifier()
    return _SHIPPED["cnn"]


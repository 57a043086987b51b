"""The colour model: per-cell features and a three-class (empty / red / black) classifier.

Every feature is measured *relative to the board itself*, so warm or cool light, dim
rooms and either board face move the numbers much less than raw colours would:

* the board reference is the median colour of the cells' corners (points just off the
  grid intersections, which stones of radius < 0.5 cell rarely cover), globally and per
  cell (a shadow or a lamp's falloff changes it locally);
* per cell: the centre disc's Lab colour, the ring just inside a stone's edge, the
  texture inside, and the edge strength where a stone's rim would be;
* beyond the cell: how much light the grid lines on its four sides lose. A stone casts
  its shadow over the line on the side away from the lamp, and the lines (light on the
  dark face, the bare face beside dark lines on the light one) show a shadow plainly even
  where a black stone's top matches the dark face. The sides are taken in the frame's
  own order, shadow side first (:func:`shadow_sides`).

The classifier is a small perceptron per board face (numpy only, one hidden layer of 32,
a few thousand weights, fitted on generated frames of many rooms by the source checkout's
``tools/fenix_tools/training.py`` and shipped as ``colour_model.json``). A
start-position frame, where the layout says which cells are red, black and empty, teaches
the :class:`Room`: its mean features and mean cell look per class; a second perceptron
then also sees how each cell compares with those (:meth:`Room.inputs`). Without a start frame the frame's own confidently read
cells stand in for it (:func:`frame_labels`).
"""
from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

import cv2
import numpy as np

CLASSES = ("empty", "red", "black")
RADII = (0.0, 0.1, 0.2, 0.28, 0.34, 0.39, 0.44, 0.5)   # radial profile bin edges, cells
FEATURES = ("dL", "da", "db", "dL_global", "texture", "ring_dL", "ring_da", "ring_db",
            "edge", "edge_rel", "local_dL", "chroma", "log_ratio", "red_share",
            "octant_min", "octant_max", "texture_rel", "contrast", "contrast_t", "corner_texture") \
    + tuple(f"profile{i}" for i in range(len(RADII) - 1)) \
    + ("shadow_line", "lit_line", "side_line_min", "side_line_max")
MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "colour_model.json")


def _patch_masks(ppc: int) -> Dict[str, np.ndarray]:
    """Boolean masks over one cell's ppc x ppc patch (coordinates in cells from centre)."""
    c = (np.arange(ppc) + 0.5) / ppc - 0.5
    dx, dy = np.meshgrid(c, c)
    rr = np.hypot(dx, dy)
    # Grid lines run along the patch border; keep every region clear of them (and of
    # their blur) so an empty cell reads as plain board.
    clear = (np.abs(dx) < 0.43) & (np.abs(dy) < 0.43)
    corner = (np.abs(dx) > 0.31) & (np.abs(dy) > 0.31) & clear
    angle = np.floor((np.arctan2(dy, dx) + np.pi) / (np.pi / 4)) % 8
    return {
        "centre": (rr <= 0.22).ravel(),
        "ring": ((rr >= 0.26) & (rr <= 0.33)).ravel(),
        "edge": ((rr >= 0.32) & (rr <= 0.46) & clear).ravel(),
        "inner": ((rr >= 0.08) & (rr <= 0.26)).ravel(),
        "corner": corner.ravel(),
        "profile": np.stack([((rr >= a) & (rr < b) & clear).ravel() for a, b in zip(RADII[:-1], RADII[1:])], 1),
        "octants": np.stack([((rr >= 0.36) & (rr <= 0.5) & clear & (angle == k)).ravel() for k in range(8)], 1),
    }


_MASKS: Dict[int, Dict[str, np.ndarray]] = {}


def masks(ppc: int) -> Dict[str, np.ndarray]:
    if ppc not in _MASKS:
        _MASKS[ppc] = _patch_masks(ppc)
    return _MASKS[ppc]


def cell_patches(image: np.ndarray, width: int, height: int, ppc: int, pad: int) -> np.ndarray:
    """Split the rectified image's grid area into per-cell patches, shape
    (cells, ppc*ppc, channels), in :func:`~fenix_table.board.cell_names` order."""
    grid = image[pad:pad + height * ppc, pad:pad + width * ppc]
    ch = grid.shape[2] if grid.ndim == 3 else 1
    blocks = grid.reshape(height, ppc, width, ppc, ch).transpose(0, 2, 1, 3, 4)
    return blocks.reshape(height * width, ppc * ppc, ch)


_PIXELS: Dict[Tuple[int, ...], Dict[str, np.ndarray]] = {}


def cell_pixels(shape: Tuple[int, int], width: int, height: int, ppc: int, pad: int) -> Dict[str, np.ndarray]:
    """Where every cell's pixels lie in a rectified image of ``shape`` (rows, columns):
    ``"all"`` (cells, ppc*ppc) their flat indices, cell by cell in
    :func:`~fenix_table.board.cell_names` order and row by row within a cell (as
    :func:`cell_patches` cuts them), and the same for the pixels of each of
    :func:`masks`' regions. Taken straight from the image, a frame's samples need no
    copy of every cell's patch first."""
    key = (shape[0], shape[1], width, height, ppc, pad)
    if key not in _PIXELS:
        rows = pad + np.arange(height)[:, None] * ppc + np.arange(ppc)
        cols = pad + np.arange(width)[:, None] * ppc + np.arange(ppc)
        at = (rows[:, None, :, None] * shape[1] + cols[None, :, None, :]).reshape(width * height, ppc * ppc)
        m = masks(ppc)
        _PIXELS[key] = {"all": at, **{k: at[:, m[k]] for k in ("centre", "ring", "corner", "edge", "inner")}}
    return _PIXELS[key]


def sample_median(samples: np.ndarray) -> np.ndarray:
    """(cells, channels) the median of every cell's samples, ``samples`` (cells, n,
    channels): ``np.median(samples, axis=1)`` to the bit (:func:`row_median` of the
    samples laid out channel by channel)."""
    return row_median(np.ascontiguousarray(samples.transpose(0, 2, 1)))


def row_median(rows: np.ndarray) -> np.ndarray:
    """The median along the last axis of ``rows`` (C-contiguous): ``np.median(rows,
    axis=-1)`` to the bit, partitioned in place of sorted, which takes half the time."""
    n = rows.shape[-1]
    part = np.partition(rows, n // 2, axis=-1)
    if n % 2:
        return part[..., n // 2]
    # The lower middle value is the largest of those left of the upper one: one
    # partition index costs a third of two for a cell's 130-160 samples.
    return (part[..., : n // 2].max(axis=-1) + part[..., n // 2]) * rows.dtype.type(0.5)


def border_light(L: np.ndarray, width: int, height: int, ppc: int, pad: int, half: int = 2) -> np.ndarray:
    """(cells, 4): the brightest L across each cell side's border line (up, right, down,
    left in the rectified image), averaged over the side's middle half, as a fraction of
    the frame's typical border (0: as bright as usual, -0.4: lost 40% of its light)."""
    q0, q1 = ppc // 4, 3 * ppc // 4
    across_line = np.arange(-half, half + 1)
    ys = pad + np.arange(height + 1)[:, None] * ppc + across_line
    rows = L[ys, pad:pad + width * ppc].max(axis=1)
    across = rows.reshape(height + 1, width, ppc)[:, :, q0:q1].mean(axis=2)          # (h+1, w)
    xs = pad + np.arange(width + 1)[:, None] * ppc + across_line
    cols = L[pad:pad + height * ppc, xs].max(axis=2)
    down = cols.reshape(height, ppc, width + 1)[:, q0:q1, :].mean(axis=1)             # (h, w+1)
    typical = row_median(np.concatenate([across.ravel(), down.ravel()])) + 1.0
    sides = np.stack([across[:-1], down[:, 1:], across[1:], down[:, :-1]], axis=-1)
    return sides.reshape(width * height, 4) / typical - 1.0


def shadow_sides(sides: np.ndarray, stones: np.ndarray) -> np.ndarray:
    """``sides`` (cells, 4, from :func:`border_light`) turned so that column 0 is the side
    the frame's stones cast their shadows to (the darkest on average over the cells
    ``stones`` marks; one lamp lights the whole board) and column 2 the lit side. With
    fewer than three such cells the rectified order stays."""
    if stones.sum() < 3:
        return sides
    return np.roll(sides, -int(np.argmin(sides[stones].mean(axis=0))), axis=1)


def frame_features(lab: np.ndarray, grad: np.ndarray, width: int, height: int, ppc: int,
                   pad: int) -> Tuple[np.ndarray, np.ndarray]:
    """The feature matrix (cells x len(FEATURES)) of a rectified Lab image (float32, L
    0..100) and its gradient magnitude, ``ppc`` pixels per cell, grid starting at pixel
    ``pad``; and every cell's corners' median Lab colour (their median is the board's
    colour, which the looks and the hand check are measured from)."""
    m = masks(ppc)
    at = cell_pixels(lab.shape[:2], width, height, ppc, pad)
    # Samples gathered channel by channel, (cells, 3, n): each channel's run of samples
    # is contiguous, as the medians partition it.
    planes = [plane.ravel() for plane in cv2.split(lab)]
    lightness = planes[0].reshape(lab.shape[:2])
    L = lightness[pad:pad + height * ppc, pad:pad + width * ppc].reshape(height, ppc, width, ppc) \
        .transpose(0, 2, 1, 3).reshape(width * height, ppc * ppc)
    inside = np.stack([plane[at["centre"]] for plane in planes], axis=1)
    gradient = grad.ravel()
    centre = row_median(inside)
    ring = row_median(np.stack([plane[at["ring"]] for plane in planes], axis=1))
    corners = row_median(np.stack([plane[at["corner"]] for plane in planes], axis=1))
    board = sample_median(corners[None])[0]
    # The local board reference: this cell's corners, unless they disagree wildly with the
    # board (stones of neighbouring tall stacks can cover them), then the global one.
    local = np.where(np.abs(corners[:, :1] - board[0]) > 25, board, corners)
    texture = inside[:, 0].std(axis=1)
    edge = gradient[at["edge"]].mean(axis=1) - gradient[at["inner"]].mean(axis=1)
    chroma = np.hypot(centre[:, 1], centre[:, 2]) - np.hypot(local[:, 1], local[:, 2])
    log_ratio = np.log((centre[:, 0] + 3.0) / (local[:, 0] + 3.0))
    red_share = (inside[:, 1] - local[:, 1:2] > 15).mean(axis=1)
    prof = m["profile"].astype(np.float32)
    profile = (L @ prof) / prof.sum(axis=0) - local[:, :1]
    octw = m["octants"].astype(np.float32)
    octants = (L @ octw) / octw.sum(axis=0) - local[:, :1]
    # Scale-free evidence of a disc, for faces with a grain or print of their own: a
    # stone's top is smoother than the face and stands out from the cell's corners by
    # more than the face varies within itself.
    corner_std = L[:, m["corner"]].std(axis=1)
    board_texture = row_median(corner_std) + 0.3
    contrast = np.linalg.norm(centre - local, axis=1)
    # The cells standing out most from their corners are stones whatever the room.
    stones = (contrast >= np.percentile(contrast, 80)) & (contrast > 3)
    sides = shadow_sides(border_light(lightness, width, height, ppc, pad), stones)
    return np.column_stack([
        centre - local,
        centre[:, 0] - board[0],
        texture,
        ring - local,
        edge,
        edge / (local[:, 0] + 5.0),
        local[:, 0] - board[0],
        chroma,
        log_ratio,
        red_share,
        octants.min(axis=1),
        octants.max(axis=1),
        np.log((texture + 0.3) / board_texture),
        contrast,
        contrast / (texture + corner_std + board_texture),
        np.log((corner_std + 0.3) / board_texture),
        profile,
        sides[:, 0],
        sides[:, 2],
        np.minimum(sides[:, 1], sides[:, 3]),
        np.maximum(sides[:, 1], sides[:, 3]),
    ]).astype(np.float64), corners


LOOK_STEP = 2           # rectified pixels per look pixel (2x2 averaged: the noise halves)
LOOK_SHRINK = 0.2       # per-pixel spread pulled this far toward its channel's spread
LOOK_WEIGHT = 0.2       # logit per unit of the looks' log-likelihood ratio ...
LOOK_CLIP = 20.0        # ... which is capped: the looks shift a cell's odds by e^4 at most


_AROUND: Dict[Tuple[int, int], np.ndarray] = {}


def _neighbourhoods(width: int, height: int) -> np.ndarray:
    """(cells, 9) every cell and its eight neighbours (cell_names order), a cell off the
    board standing in for by the nearest one on its edge."""
    if (width, height) not in _AROUND:
        r, f = np.divmod(np.arange(width * height), width)
        _AROUND[(width, height)] = np.stack([np.clip(r + dy, 0, height - 1) * width + np.clip(f + dx, 0, width - 1)
                                             for dy in (-1, 0, 1) for dx in (-1, 0, 1)], axis=1)
    return _AROUND[(width, height)]


def cell_looks(lab: np.ndarray, corners: np.ndarray, width: int, height: int, ppc: int, pad: int) -> np.ndarray:
    """(cells, D) every cell's whole patch, grid lines at its border included, at half
    resolution: what :class:`Room` compares with the start frame's cells of each class.

    Each is taken as Lab less the board's colour *around the cell* (the median of the
    corners of it and its eight neighbours, ``corners`` being :func:`frame_features`'),
    scaled by how much darker or lighter the board is there than overall: a lamp's
    falloff, vignetting or a player's shadow then move the looks of the start frame's
    camps and middle apart no more than the cells themselves (generated 9x9 rooms:
    black/empty told apart by the looks alone 102 -> 41 errors against the board's
    overall colour)."""
    n = ppc // LOOK_STEP
    grid = lab[pad:pad + height * ppc, pad:pad + width * ppc]
    small = cell_patches(cv2.resize(grid, (width * n, height * n), interpolation=cv2.INTER_AREA), width, height, n, 0)
    local = sample_median(corners[_neighbourhoods(width, height)])
    board = sample_median(corners[None])[0]
    scale = (board[0] + 3.0) / (local[:, 0] + 3.0)
    return ((small - local[:, None, :]) * scale[:, None, None]).reshape(width * height, -1)


def layout_labels(placement: Mapping[str, Tuple[str, int]], names: Sequence[str]) -> np.ndarray:
    """Every named cell's class (CLASSES index) in ``placement`` (cell -> (colour,
    height)); empty where it has no stack."""
    return np.array([CLASSES.index(placement[n][0]) if n in placement else 0 for n in names])


def class_means(X: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(3 x F) mean feature row per class (CLASSES order) of the cells ``labels`` names
    (-1: left out). Raises ValueError when a class has no cell."""
    means = []
    for c, name in enumerate(CLASSES):
        rows = X[labels == c]
        if len(rows) == 0:
            raise ValueError(f"no {name} cells to learn from")
        means.append(rows.mean(axis=0))
    return np.array(means)


def frame_labels(P: np.ndarray, confident: float = 0.9, least: int = 3) -> Optional[np.ndarray]:
    """The cells one frame can teach its own room from (``P``: class probabilities): per
    cell its likeliest class if that is sure, -1 if not; a class with fewer than ``least``
    sure cells takes all the cells read as it, and None is returned when even those are
    fewer than ``least``.

    Without a start frame this still tells the room: on a dark face in dim light a black
    stone and the bare board differ by a few L units whose size and sign only the frame
    itself shows, and most of its cells are read right even then (though few of its
    black ones surely)."""
    best = P.argmax(axis=1)
    labels = np.where(P.max(axis=1) > confident, best, -1)
    for c in range(len(CLASSES)):
        if (labels == c).sum() < least:
            # Few sure cells of a class (black stones on a dark face): its likeliest cells.
            labels[best == c] = c
        if (labels == c).sum() < least:
            return None
    return labels


def calibrated_inputs(X: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Features plus their differences from the room's class means (the calibrated net's
    input): how this cell compares with the empty, red and black cells of the start frame."""
    return np.hstack([X] + [X - mu for mu in means])


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Room:
    """What a frame of known layout (the start position) teaches about the room: the mean
    features of each class's cells, and each class's mean *look* (:func:`cell_looks`)
    with a weight per look pixel (its inverse spread among cells of one class).

    The looks are a matched filter: with camera and lamp fixed, a black stone looks the
    same wherever it stands, down to the shadow it drops on this room's side of the grid
    line and the faint tint it lacks against the board, pixel by pixel. Projecting a cell's
    look onto (black look - empty look), each pixel weighted by how steady it is, finds a
    black stone on a dark face in dim light where the summary features blur it
    (generated 9x9 rooms: black/empty errors about a third of the features' own)."""

    means: np.ndarray        # (3, F)
    looks: np.ndarray        # (3, D)
    weights: np.ndarray      # (D,)

    @classmethod
    def learn(cls, X: np.ndarray, looks: np.ndarray, labels: np.ndarray) -> "Room":
        """The room of a frame whose cells ``labels`` names (CLASSES index, -1: left
        out). ValueError when a class has no cell."""
        means = class_means(X, labels)
        mean_looks = class_means(looks, labels)
        used = labels >= 0
        spread = looks[used] - mean_looks[labels[used]]
        centre = spread.mean(axis=0)
        deviation = spread - centre
        per_pixel = np.mean(deviation * deviation, axis=0)           # spread.var(axis=0)
        # Each channel's spread over all its pixels, from the per-pixel figures (the law
        # of total variance): a reduction over (cells, pixels) in threes costs ten times
        # as much.
        per_channel = per_pixel.reshape(-1, 3).mean(axis=0) + centre.reshape(-1, 3).var(axis=0)
        var = (1 - LOOK_SHRINK) * per_pixel + LOOK_SHRINK * np.tile(per_channel, len(per_pixel) // 3)
        return cls(means, mean_looks, 1.0 / (var + 1e-3))

    def look_odds(self, looks: np.ndarray) -> np.ndarray:
        """(cells, 3) what the looks add to the calibrated net's logits (empty, red,
        black): per stone class the log-likelihood ratio of the cell's look between that
        class's look and the empty one (pixels independent, Gaussian, each of its class
        spread), scaled down and capped (:data:`LOOK_WEIGHT`, :data:`LOOK_CLIP`).

        Added to the net's logits rather than fed to the net: a net given the looks
        learned to lean on them as they behave in the generator's rooms, and on another
        renderer's read worse than without them, while a fixed, capped weight helps on
        both (generated 9x9 rooms, 600: 62 -> 28 errors; the second renderer's, 50:
        11 -> 2)."""
        empty = self.looks[0]
        odds = [np.zeros(len(looks))]
        for c in (1, 2):
            d = (self.looks[c] - empty) * self.weights
            ratio = (looks - empty) @ d - 0.5 * float(d @ (self.looks[c] - empty))
            odds.append(LOOK_WEIGHT * np.clip(ratio, -LOOK_CLIP, LOOK_CLIP))
        return np.column_stack(odds)

    def inputs(self, X: np.ndarray) -> np.ndarray:
        """The calibrated net's input (:func:`calibrated_inputs`)."""
        return calibrated_inputs(X, self.means)

    def to_json(self) -> dict:
        # (In float64: rounded float32 values would not read back as the same JSON.)
        return {"means": {n: np.round(self.means[i].astype(float), 5).tolist() for i, n in enumerate(CLASSES)},
                "looks": {n: np.round(self.looks[i].astype(float), 3).tolist() for i, n in enumerate(CLASSES)},
                "weights": np.round(self.weights.astype(float), 6).tolist()}

    @classmethod
    def from_json(cls, data: Mapping) -> "Room":
        """Inverse of :meth:`to_json`; ValueError when it does not fit this model."""
        try:
            means = np.array([[float(v) for v in data["means"][n]] for n in CLASSES])
            looks = np.array([[float(v) for v in data["looks"][n]] for n in CLASSES])
            weights = np.array([float(v) for v in data["weights"]])
        except (KeyError, TypeError, ValueError):
            raise ValueError("the calibration's room colours are not this colour model's") from None
        side = int(round(np.sqrt(weights.size / 3)))
        if means.shape != (len(CLASSES), len(FEATURES)) or looks.shape[1] != weights.size \
                or 3 * side * side != weights.size:
            raise ValueError("the calibration's room colours are not this colour model's")
        return cls(means, looks, weights)


@dataclass(frozen=True)
class Net:
    """A small two-layer perceptron over standardised features (numpy only):
    ``softmax(W2 @ relu(W1 @ x + b1) + b2)`` with x = (features - mean) / std."""

    mean: np.ndarray
    std: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray

    def logits(self, X: np.ndarray) -> np.ndarray:
        Z = (X - self.mean) / self.std
        return np.maximum(Z @ self.W1 + self.b1, 0) @ self.W2 + self.b2

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """(rows x 3) class probabilities in CLASSES order."""
        return softmax(self.logits(X))

    @classmethod
    def from_json(cls, data: Mapping) -> "Net":
        """A net as the model file holds it (written by the source checkout's
        ``tools/fenix_tools/training.py``)."""
        return cls(*(np.asarray(data[k], float) for k in ("mean", "std", "W1", "b1", "W2", "b2")))


_NETS: Dict[Tuple[str, str], Net] = {}


def shipped_net(board: str, kind: str = "default") -> Net:
    """The shipped classifier for a board face: ``kind`` "default" (features alone) or
    "calibrated" (features and the room's class means, see :func:`calibrated_inputs`)."""
    if not _NETS:
        with open(MODEL_PATH, encoding="utf-8") as fh:
            data = json.load(fh)
        if list(data.get("features", ())) != list(FEATURES):
            raise RuntimeError(f"{MODEL_PATH} was fitted for other features; rebuild it with make colour-model")
        for face, kinds in data["nets"].items():
            for k, net in kinds.items():
                _NETS[(face, k)] = Net.from_json(net)
    return _NETS[(board, kind)]


def colour_plane(pts: np.ndarray, col: np.ndarray) -> np.ndarray:
    """The Lab colour over the board as a plane in board coordinates, (3, 3): row 0 the
    colour at (0, 0), rows 1 and 2 its change per cell along x and y; fitted to the
    colours ``col`` (N, 3) at board points ``pts`` (N, 2), NaN left out. A lamp low at
    one side lights one edge of a board far brighter and warmer than the other: no one
    colour is the board's then, but its colour changes smoothly across it.

    Stones, their shadows and a hand are not on the plane. From the median colour on,
    three times: the points far off the last plane (by the typical point's distance
    from it) are left out and the plane fitted again. Too few points (a board mostly
    out of view): the median colour, flat."""
    ok = np.isfinite(col).all(axis=1)
    plane = np.zeros((3, 3))
    if ok.sum() < 12:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            plane[0] = np.nanmedian(col.reshape(-1, 3), axis=0)
        return plane
    X = np.column_stack([np.ones(ok.sum()), pts[ok]])
    col = col[ok]
    plane[0] = np.median(col, axis=0)
    weight = np.array([0.4, 1.0, 1.0]) ** 2          # lightness counts less (a shadow darkens a side)
    middle = len(col) // 2
    for _ in range(3):
        # (Squared distances, and the middle one by partition: this runs for every grid checked.)
        off = ((col - X @ plane) ** 2) @ weight
        keep = off < max(6.25 * float(np.partition(off, middle)[middle]), 16.0)
        if keep.sum() < 12:
            break
        Xk = X[keep]
        # (The normal equations: a 3x3 solve, many times cheaper than a least-squares routine.)
        try:
            plane = np.linalg.solve(Xk.T @ Xk, Xk.T @ col[keep])
        except np.linalg.LinAlgError:        # the points all on one line: no plane through them
            break
    return plane


def colour_at(plane: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """The colour of a :func:`colour_plane` at board points (..., 2)."""
    return plane[0] + pts @ plane[1:]

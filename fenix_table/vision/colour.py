"""The colour model: per-cell features and a three-class (empty / red / black) classifier.

Every feature is measured *relative to the board itself*, so warm or cool light, dim
rooms and either board face move the numbers much less than raw colours would:

* the board reference is the median colour of the cells' corners (points just off the
  grid intersections, which stones of radius < 0.5 cell rarely cover), globally and per
  cell (a shadow or a lamp's falloff changes it locally);
* per cell: the centre disc's Lab colour, the ring just inside a stone's edge, the
  texture inside, and the edge strength where a stone's rim would be.

The classifier is Gaussian per class (quadratic discriminant) in that feature space.
A default model per board face, fitted on generated frames of many rooms, ships with the
package (``colour_model.json``); :func:`calibrate_model` refits it to the room's light
from a start-position frame, where the layout says which cells are red, black and empty,
shrinking towards the default so a few dozen cells are enough.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

CLASSES = ("empty", "red", "black")
FEATURES = ("dL", "da", "db", "dL_global", "texture", "ring_dL", "ring_da", "ring_db",
            "edge", "local_dL", "chroma")
MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "colour_model.json")
# Weight (in cells) of the default model when refitting to a start frame.
PRIOR_CELLS = 8.0


def _patch_masks(ppc: int) -> Dict[str, np.ndarray]:
    """Boolean masks over one cell's ppc x ppc patch (coordinates in cells from centre)."""
    c = (np.arange(ppc) + 0.5) / ppc - 0.5
    dx, dy = np.meshgrid(c, c)
    rr = np.hypot(dx, dy)
    corner = (np.abs(dx) > 0.38) & (np.abs(dy) > 0.38) & (np.abs(dx) < 0.47) & (np.abs(dy) < 0.47)
    return {
        "centre": (rr <= 0.22).ravel(),
        "ring": ((rr >= 0.26) & (rr <= 0.33)).ravel(),
        "edge": ((rr >= 0.34) & (rr <= 0.46)).ravel(),
        "inner": ((rr >= 0.08) & (rr <= 0.26)).ravel(),
        "corner": corner.ravel(),
    }


_MASKS: Dict[int, Dict[str, np.ndarray]] = {}


def masks(ppc: int) -> Dict[str, np.ndarray]:
    if ppc not in _MASKS:
        _MASKS[ppc] = _patch_masks(ppc)
    return _MASKS[ppc]


def cell_patches(image: np.ndarray, width: int, height: int, ppc: int, pad: int) -> np.ndarray:
    """Split the rectified image's grid area into per-cell patches, shape
    (cells, ppc*ppc, channels), in :func:`~fenix_table.vision.board.cell_names` order."""
    grid = image[pad:pad + height * ppc, pad:pad + width * ppc]
    ch = grid.shape[2] if grid.ndim == 3 else 1
    blocks = grid.reshape(height, ppc, width, ppc, ch).transpose(0, 2, 1, 3, 4)
    return blocks.reshape(height * width, ppc * ppc, ch)


def cell_features(lab: np.ndarray, grad: np.ndarray, width: int, height: int, ppc: int,
                  pad: int) -> np.ndarray:
    """Feature matrix (cells x len(FEATURES)) of a rectified Lab image (float32, L 0..100)
    and its gradient magnitude, ``ppc`` pixels per cell, grid starting at pixel ``pad``."""
    m = masks(ppc)
    patches = cell_patches(lab, width, height, ppc, pad)
    gpatch = cell_patches(grad[..., None], width, height, ppc, pad)[..., 0]
    centre = np.median(patches[:, m["centre"]], axis=1)
    ring = np.median(patches[:, m["ring"]], axis=1)
    corners = np.median(patches[:, m["corner"]], axis=1)
    board = np.median(corners, axis=0)
    # The local board reference: this cell's corners, unless they disagree wildly with the
    # board (stones of neighbouring tall stacks can cover them), then the global one.
    local = np.where(np.abs(corners[:, :1] - board[0]) > 25, board, corners)
    texture = patches[:, m["centre"], 0].std(axis=1)
    edge = gpatch[:, m["edge"]].mean(axis=1) - gpatch[:, m["inner"]].mean(axis=1)
    chroma = np.hypot(centre[:, 1], centre[:, 2]) - np.hypot(local[:, 1], local[:, 2])
    return np.column_stack([
        centre - local,
        centre[:, 0] - board[0],
        texture,
        ring - local,
        edge,
        local[:, 0] - board[0],
        chroma,
    ]).astype(np.float64)


@dataclass(frozen=True)
class ColourModel:
    """Gaussian class model: ``means`` (3 x F), ``covs`` (3 x F x F), in CLASSES order."""

    means: np.ndarray
    covs: np.ndarray

    def __post_init__(self):
        inv = np.linalg.inv(self.covs)
        _, logdet = np.linalg.slogdet(self.covs)
        object.__setattr__(self, "_inv", inv)
        object.__setattr__(self, "_logdet", logdet)

    def log_likelihood(self, X: np.ndarray) -> np.ndarray:
        """(cells x 3) Gaussian log-likelihoods of feature rows ``X``."""
        d = X[:, None, :] - self.means[None, :, :]
        maha = np.einsum("nci,cij,ncj->nc", d, self._inv, d)
        return -0.5 * (maha + self._logdet[None, :] + X.shape[1] * np.log(2 * np.pi))

    def classify(self, X: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class index, posterior of that class, best log-likelihood) per row."""
        ll = self.log_likelihood(X)
        best = ll.argmax(axis=1)
        shifted = ll - ll.max(axis=1, keepdims=True)
        post = np.exp(shifted)
        post /= post.sum(axis=1, keepdims=True)
        return best, post[np.arange(len(X)), best], ll.max(axis=1)

    def to_colors(self) -> Dict[str, Tuple[float, ...]]:
        """Flattened form for :attr:`Calibration.colors`: per class, mean then covariance."""
        return {name: tuple(float(v) for v in np.concatenate([self.means[i], self.covs[i].ravel()]))
                for i, name in enumerate(CLASSES)}

    @classmethod
    def from_colors(cls, colors: Mapping[str, Sequence[float]]) -> "ColourModel":
        F = len(FEATURES)
        try:
            rows = [np.asarray(colors[name], float) for name in CLASSES]
        except KeyError as error:
            raise ValueError(f"colour model lacks class {error}") from None
        if any(len(r) != F + F * F for r in rows):
            raise ValueError("colour model has the wrong number of values")
        return cls(np.array([r[:F] for r in rows]), np.array([r[F:].reshape(F, F) for r in rows]))


def fit_model(X: np.ndarray, labels: np.ndarray, prior: Optional[ColourModel] = None,
              prior_weight: float = PRIOR_CELLS, ridge: float = 1e-2) -> ColourModel:
    """Fit class means and covariances to feature rows ``X`` with class indices ``labels``;
    with a ``prior`` each class is shrunk towards it as if it had ``prior_weight`` rows."""
    F = X.shape[1]
    means, covs = [], []
    for c in range(len(CLASSES)):
        rows = X[labels == c]
        n = len(rows)
        if prior is None:
            if n < 2:
                raise ValueError(f"no {CLASSES[c]} cells to fit")
            mu = rows.mean(axis=0)
            cov = np.cov(rows, rowvar=False)
        else:
            k = prior_weight
            mu = (rows.sum(axis=0) + k * prior.means[c]) / (n + k) if n else prior.means[c]
            scatter = ((rows - mu).T @ (rows - mu)) if n else np.zeros((F, F))
            cov = (scatter + k * prior.covs[c]) / (n + k)
        means.append(mu)
        covs.append(cov + ridge * np.eye(F))
    return ColourModel(np.array(means), np.array(covs))


_DEFAULTS: Dict[str, ColourModel] = {}


def default_model(board: str) -> ColourModel:
    """The shipped model for a board face (fitted on generated frames)."""
    if board not in _DEFAULTS:
        with open(MODEL_PATH, encoding="utf-8") as fh:
            data = json.load(fh)
        for face, colors in data["models"].items():
            _DEFAULTS[face] = ColourModel.from_colors(colors)
    return _DEFAULTS[board]


def save_defaults(models: Mapping[str, ColourModel], note: str) -> None:
    """Write the shipped model file (used by the training script)."""
    data = {"features": list(FEATURES), "classes": list(CLASSES), "note": note,
            "models": {face: {k: [round(v, 6) for v in vals] for k, vals in m.to_colors().items()}
                       for face, m in models.items()}}
    with open(MODEL_PATH, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0)
        fh.write("\n")

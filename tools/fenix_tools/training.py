"""Fit the shipped colour classifiers on generated frames.

    PYTHONPATH=tools python -m fenix_tools.training [--scenes 300] [--seeds 11,12,13] [--out FILE]

For every seeded scene (both faces, no hands: covered cells would teach the classes
wrong) two frames are rendered with the same camera and light: the start position and a
mid-game position. Cell features are read through the true grid (corners jittered by a
pixel, as a located grid is). Per face two :class:`~fenix_table.vision.colour.Net` are
fitted and written to the source checkout's ``fenix_table/vision/colour_model.json`` (found
from this file's place, never an installed copy of the package; ``--out`` writes elsewhere),
which :func:`fenix_table.vision.colour.shipped_net` reads:

* ``default``: features alone (works out of the box);
* ``calibrated``: features plus their differences from the room's class means, which
  a start-position frame of the same scene provides (see
  :func:`fenix_table.vision.cells.calibrate_reader`).

Every room's cells are alike, so it is rooms, not cells, that teach: 900 rooms (three
seeds of 300, rendered in parallel) rather than 300 nearly halve the errors on rooms the
nets never saw.

The classifier must read boards, stones and cameras :mod:`fenix_tools.sim` does not
draw, so the training rooms are wider than the generator's own random ones
(:func:`training_scene`: stones lighter or darker than the face, other reds, dimmer and
softer light), and in most scenes the board face gets a printed or wooden grain of its
own (:func:`add_grain`, drawn on the rectified board around the stones): without it the
nets learn that any blotch on the face is a stone.

Deterministic for a seed, so the committed model can be rebuilt exactly.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import fields, replace
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import cv2
import numpy as np

from fenix_table.board import cell_index, cell_names, dimensions
from fenix_table.vision.colour import CLASSES, FEATURES, Net, calibrated_inputs, class_means

from . import CHECKOUT

# The model file in the source checkout (not wherever the package is installed).
MODEL_OUT = os.path.join(CHECKOUT, "fenix_table", "vision", "colour_model.json")


def training_scene(rng: np.random.Generator, board: str, size: Tuple[int, int]):
    """A :func:`fenix_tools.sim.random_scene` room with its colour and light ranges widened."""
    from .sim import random_scene
    u = rng.uniform
    scene = random_scene(rng, board, image_size=size, hand=False)
    if board == "9x9":
        board_color = tuple(np.clip(np.array(scene.board_color) * u(0.6, 1.8), 0.02, 0.45))
    else:
        board_color = tuple(np.clip(np.array(scene.board_color) * u(0.8, 1.1), 0, 1))
    grey = u(0.02, 0.24)
    return replace(
        scene,
        board_color=board_color,
        red_color=(u(0.03, 0.3), u(0.03, 0.3), u(0.35, 0.9)),
        black_color=tuple(np.clip(grey + rng.normal(0, 0.01, 3), 0.01, 1)),
        stone_radius=u(0.34, 0.45),
        # Dim rooms are where black stones and a dark face part by a grey level or two:
        # near half the rooms are dim (the generator's own quarter, plus as many again).
        light_intensity=u(0.28, 0.5) if rng.random() < 0.25 else scene.light_intensity * u(0.8, 1.1),
        shadow_softness=u(1, 7),
        ambient=u(0.3, 0.75),
    )


def stone_mask(shape: Tuple[int, int], placement, truth, calibration, ppc: int, pad: int) -> np.ndarray:
    """Rectified pixels a stone may cover: around each occupied cell's centre and its
    top disc (tall stacks lean away from the camera), half a cell wide."""
    mask = np.zeros(shape, np.uint8)
    to_board = np.linalg.inv(calibration.homography())
    r = int(round(0.52 * ppc))
    for name in placement:
        f, k = cell_index(name)
        base = (pad + (f + 0.5) * ppc, pad + (k + 0.5) * ppc)
        top = np.array([*truth.top_centres[name], 1.0]) @ to_board.T
        top = (pad + top[0] / top[2] * ppc, pad + top[1] / top[2] * ppc)
        a, b = tuple(int(round(v)) for v in base), tuple(int(round(v)) for v in top)
        cv2.circle(mask, a, r, 1, -1)
        cv2.circle(mask, b, r, 1, -1)
        cv2.line(mask, a, b, 1, 2 * r)
    return mask.astype(bool)


def grain(rng: np.random.Generator, shape: Tuple[int, int], ppc: int) -> np.ndarray:
    """A board face's own grain: smooth noise (blotches of a fifth to a whole cell), or
    streaks along one axis as in wood, about zero mean and unit spread."""
    h, w = shape
    scale = rng.uniform(0.2, 1.0) * ppc
    small = rng.standard_normal((max(2, int(h / scale)), max(2, int(w / scale)))).astype(np.float32)
    field = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    if rng.random() < 0.4:
        if rng.random() < 0.5:
            streak = rng.standard_normal((max(2, int(h / (0.1 * ppc))), 1)).astype(np.float32)
            streak = cv2.resize(streak, (1, h), interpolation=cv2.INTER_CUBIC)
        else:
            streak = rng.standard_normal((1, max(2, int(w / (0.1 * ppc))))).astype(np.float32)
            streak = cv2.resize(streak, (w, 1), interpolation=cv2.INTER_CUBIC)
        field = 0.6 * field + 0.8 * streak
    return field / (field.std() + 1e-6)


def add_grain(lab: np.ndarray, field: np.ndarray, strength: float, mask: np.ndarray) -> np.ndarray:
    """``lab`` with the face (outside ``mask``) darkened and lightened by ``field``:
    L by up to ``strength`` of itself, a* b* along with it."""
    out = lab.copy()
    gain = np.clip(1 + strength * field, 0.3, 2.0)
    gain[mask] = 1.0
    out[..., 0] = np.clip(out[..., 0] * gain, 0, 100)
    out[..., 1:] *= gain[..., None]
    return out


def scene_rows(scenes: int, seed: int) -> Iterator[Tuple]:
    """Yield (face, start features, start labels, game features, game labels) per scene."""
    from fenix_table.rules import Position
    from fenix_table.vision.cells import DEFAULT_READER, rectify
    from fenix_table.vision.colour import frame_features, layout_labels
    from fenix_table.vision.types import Calibration

    from .sim import random_placement, render_frame
    rng = np.random.default_rng(seed)
    for i in range(scenes):
        board = ("9x9", "7x8")[i % 2]
        size = (1280, 960) if i % 4 < 2 else (640, 480)
        scene = training_scene(rng, board, size)
        strength = rng.uniform(0.05, 0.3) if rng.random() < 0.7 else 0.0
        field = None
        out = [board]
        for placement in (dict(Position.start(board).stacks()), random_placement(rng, board)):
            bgr, truth = render_frame(placement, board, scene, rng)
            corners = truth.corners + rng.normal(0, 0.7, truth.corners.shape)
            cal = Calibration(board, size, tuple(map(tuple, corners)))
            rect = rectify(bgr, cal, DEFAULT_READER)
            lab = rect.lab
            if strength:
                if field is None:
                    field = grain(rng, lab.shape[:2], rect.ppc)
                mask = stone_mask(lab.shape[:2], placement, truth, cal, rect.ppc, rect.pad)
                lab = add_grain(lab, field, strength, mask)
            width, height = dimensions(board)
            X = frame_features(lab, gradient(lab), width, height, rect.ppc, rect.pad)[0]
            y = layout_labels(placement, cell_names(board))
            out += [X, y]
        yield tuple(out)


def gradient(lab: np.ndarray) -> np.ndarray:
    """Gradient magnitude of L, as :func:`fenix_table.vision.cells.rectify` computes it."""
    L = np.ascontiguousarray(lab[..., 0])
    return cv2.magnitude(cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3))


def _rows_of_seed(job: Tuple[int, int]) -> List[Tuple]:
    return list(scene_rows(*job))


def _fit_face(job: Tuple) -> Dict[Tuple[str, str], object]:
    """The default and calibrated nets of one board face (see the module docstring)."""
    face, scenes, epochs, seed = job
    plain, calibrated = [], []
    for Xs, ys, Xg, yg in scenes:
        plain += [(Xs, ys), (Xg, yg)]
        means = class_means(Xs, ys)
        calibrated += [(calibrated_inputs(Xs, means), ys), (calibrated_inputs(Xg, means), yg)]
    nets = {}
    for kind, data in (("default", plain), ("calibrated", calibrated)):
        X = np.vstack([x for x, _ in data])
        y = np.concatenate([t for _, t in data])
        net = train_net(X, y, epochs=epochs, seed=seed)
        err = (net.probabilities(X).argmax(axis=1) != y).mean()
        print(f"{face} {kind}: {len(y)} cells, training error {100 * err:.3f}%", flush=True)
        nets[(face, kind)] = net
    return nets


def train_net(X: np.ndarray, y: np.ndarray, hidden: int = 32, epochs: int = 600, rate: float = 0.01,
              decay: float = 1e-4, seed: int = 0, class_weight: Optional[Sequence[float]] = None) -> Net:
    """Fit a :class:`~fenix_table.vision.colour.Net` by full-batch Adam on cross-entropy
    (deterministic per seed)."""
    rng = np.random.default_rng(seed)
    mean = X.mean(axis=0)
    std = X.std(axis=0) + 1e-6
    Z = (X - mean) / std
    n, F = Z.shape
    C = len(CLASSES)
    params = [rng.normal(0, np.sqrt(2 / F), (F, hidden)), np.zeros(hidden),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, C)), np.zeros(C)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    Y = np.eye(C)[y]
    w = np.ones(n) if class_weight is None else np.asarray(class_weight, float)[y]
    w = w / w.sum()
    for step in range(1, epochs + 1):
        W1, b1, W2, b2 = params
        Hpre = Z @ W1 + b1
        Hid = np.maximum(Hpre, 0)
        logits = Hid @ W2 + b2
        logits -= logits.max(axis=1, keepdims=True)
        P = np.exp(logits)
        P /= P.sum(axis=1, keepdims=True)
        G = (P - Y) * w[:, None]
        gW2 = Hid.T @ G + decay * W2
        gb2 = G.sum(axis=0)
        GH = (G @ W2.T) * (Hpre > 0)
        gW1 = Z.T @ GH + decay * W1
        gb1 = GH.sum(axis=0)
        for i, g in enumerate((gW1, gb1, gW2, gb2)):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            mh = m[i] / (1 - 0.9 ** step)
            vh = v[i] / (1 - 0.999 ** step)
            params[i] = params[i] - rate * mh / (np.sqrt(vh) + 1e-8)
    return Net(mean, std, *params)


def save_nets(nets: Mapping[Tuple[str, str], Net], note: str, path: str = MODEL_OUT) -> None:
    """Write the model file :func:`fenix_table.vision.colour.shipped_net` reads: the
    features and classes it was fitted for and every (face, kind) net's weights
    (the inverse of :meth:`~fenix_table.vision.colour.Net.from_json`)."""
    data: Dict = {"features": list(FEATURES), "classes": list(CLASSES), "note": note, "nets": {}}
    for (face, kind), net in nets.items():
        data["nets"].setdefault(face, {})[kind] = {
            f.name: np.round(getattr(net, f.name), 6).tolist() for f in fields(Net)}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, separators=(",", ":"))
        fh.write("\n")


def main(argv: Sequence[str] = ()) -> int:
    from concurrent.futures import ProcessPoolExecutor
    parser = argparse.ArgumentParser(description="fit the shipped colour classifiers")
    parser.add_argument("--scenes", type=int, default=300, help="scenes per seed")
    parser.add_argument("--seeds", default="11,12,13",
                        help="comma-separated; each seed's scenes are rendered by one process")
    parser.add_argument("--epochs", type=int, default=600)
    parser.add_argument("--out", default=MODEL_OUT,
                        help="the model file to write (default: this checkout's %(default)s)")
    args = parser.parse_args(list(argv))
    seeds = [int(v) for v in args.seeds.split(",")]
    rows: Dict[str, List[Tuple]] = {"9x9": [], "7x8": []}
    with ProcessPoolExecutor(max_workers=min(len(seeds), os.cpu_count() or 1)) as pool:
        for chunk in pool.map(_rows_of_seed, [(args.scenes, seed) for seed in seeds]):
            for face, *data in chunk:
                rows[face].append(data)
        nets = {}
        jobs = [(face, scenes, args.epochs, seeds[0]) for face, scenes in rows.items()]
        for face_nets in pool.map(_fit_face, jobs):
            nets.update(face_nets)
    save_nets(nets, f"fitted by python -m fenix_tools.training --scenes {args.scenes} "
                    f"--seeds {args.seeds} --epochs {args.epochs}", args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

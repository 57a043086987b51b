"""Fit the shipped default colour model on generated frames.

    python -m fenix_table.vision.training [--frames 400] [--seed 11]

Renders seeded frames of both faces with :mod:`fenix_table.sim` (every condition it
knows, no hands: covered cells would teach the classes wrong), reads the features of
every cell through the true grid (corners jittered by a pixel, as a located grid is), and
writes per-face class means and covariances to ``colour_model.json``. Deterministic for
a seed, so the committed model can be rebuilt exactly.
"""
from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Sequence, Tuple

import numpy as np


def training_rows(frames: int, seed: int) -> Dict[str, Tuple[np.ndarray, np.ndarray]]:
    """Feature rows and class labels per board face."""
    from fenix_table.sim import random_placement, random_scene, render_frame
    from .board import start_placement
    from .cells import DEFAULT_READER, rectify
    from .colour import CLASSES, cell_features
    from .board import DIMENSIONS, cell_names
    from .types import Calibration
    rng = np.random.default_rng(seed)
    rows: Dict[str, List[np.ndarray]] = {"9x9": [], "7x8": []}
    labels: Dict[str, List[np.ndarray]] = {"9x9": [], "7x8": []}
    for i in range(frames):
        board = ("9x9", "7x8")[i % 2]
        size = (1280, 960) if i % 4 < 2 else (640, 480)
        scene = random_scene(rng, board, image_size=size, hand=False)
        placement = start_placement(board) if i % 5 == 0 else random_placement(rng, board)
        bgr, truth = render_frame(placement, board, scene, rng)
        corners = truth.corners + rng.normal(0, 0.7, truth.corners.shape)
        cal = Calibration(board, size, tuple(map(tuple, corners)))
        rect = rectify(bgr, cal, DEFAULT_READER)
        width, height = DIMENSIONS[board]
        X = cell_features(rect.lab, rect.grad, width, height, rect.ppc, rect.pad)
        y = np.array([CLASSES.index(placement[n][0]) if n in placement else 0 for n in cell_names(board)])
        rows[board].append(X)
        labels[board].append(y)
    return {b: (np.vstack(rows[b]), np.concatenate(labels[b])) for b in rows}


def main(argv: Sequence[str] = ()) -> int:
    from .colour import fit_model, save_defaults
    parser = argparse.ArgumentParser(description="fit the default colour model")
    parser.add_argument("--frames", type=int, default=400)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(list(argv))
    data = training_rows(args.frames, args.seed)
    models = {}
    for board, (X, y) in data.items():
        models[board] = fit_model(X, y)
        pred, _, _ = models[board].classify(X)
        print(f"{board}: {len(y)} cells, training error {100 * (pred != y).mean():.3f}%")
    save_defaults(models, f"fitted by fenix_table.vision.training on {args.frames} generated frames, seed {args.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

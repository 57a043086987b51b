"""Fit the shipped colour classifiers on generated frames.

    python -m fenix_table.vision.training [--scenes 300] [--seed 11]

For every seeded scene (both faces, every condition :mod:`fenix_table.sim` knows, no
hands: covered cells would teach the classes wrong) two frames are rendered with the
same camera and light: the start position and a mid-game position. Cell features are
read through the true grid (corners jittered by a pixel, as a located grid is). Per face
two :class:`~fenix_table.vision.colour.Net` are fitted and written to
``colour_model.json``:

* ``default``: features alone (works out of the box);
* ``calibrated``: features plus their differences from the room's class means, which
  a start-position frame of the same scene provides (see :func:`.cells.calibrate_reader`).

Deterministic for a seed, so the committed model can be rebuilt exactly.
"""
from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Sequence, Tuple

import numpy as np


def scene_rows(scenes: int, seed: int):
    """Yield (face, start features, start labels, game features, game labels) per scene."""
    from fenix_table.sim import random_placement, random_scene, render_frame
    from .board import DIMENSIONS, cell_names, start_placement
    from .cells import DEFAULT_READER, rectify
    from .colour import CLASSES, cell_features
    from .types import Calibration
    rng = np.random.default_rng(seed)
    for i in range(scenes):
        board = ("9x9", "7x8")[i % 2]
        size = (1280, 960) if i % 4 < 2 else (640, 480)
        scene = random_scene(rng, board, image_size=size, hand=False)
        out = [board]
        for placement in (start_placement(board), random_placement(rng, board)):
            bgr, truth = render_frame(placement, board, scene, rng)
            corners = truth.corners + rng.normal(0, 0.7, truth.corners.shape)
            cal = Calibration(board, size, tuple(map(tuple, corners)))
            rect = rectify(bgr, cal, DEFAULT_READER)
            width, height = DIMENSIONS[board]
            X = cell_features(rect.lab, rect.grad, width, height, rect.ppc, rect.pad)
            y = np.array([CLASSES.index(placement[n][0]) if n in placement else 0 for n in cell_names(board)])
            out += [X, y]
        yield tuple(out)


def main(argv: Sequence[str] = ()) -> int:
    from .colour import class_means, calibrated_inputs, save_nets, train_net
    parser = argparse.ArgumentParser(description="fit the shipped colour classifiers")
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--epochs", type=int, default=600)
    args = parser.parse_args(list(argv))
    plain: Dict[str, List[Tuple[np.ndarray, np.ndarray]]] = {"9x9": [], "7x8": []}
    calib: Dict[str, List[Tuple[np.ndarray, np.ndarray]]] = {"9x9": [], "7x8": []}
    for face, Xs, ys, Xg, yg in scene_rows(args.scenes, args.seed):
        plain[face] += [(Xs, ys), (Xg, yg)]
        means = class_means(Xs, ys)
        calib[face] += [(calibrated_inputs(Xs, means), ys), (calibrated_inputs(Xg, means), yg)]
    nets = {}
    for face in plain:
        for kind, data in (("default", plain), ("calibrated", calib)):
            X = np.vstack([x for x, _ in data[face]])
            y = np.concatenate([t for _, t in data[face]])
            net = train_net(X, y, epochs=args.epochs, seed=args.seed)
            err = (net.probabilities(X).argmax(axis=1) != y).mean()
            print(f"{face} {kind}: {len(y)} cells, training error {100 * err:.3f}%", flush=True)
            nets[(face, kind)] = net
    save_nets(nets, f"fitted by python -m fenix_table.vision.training --scenes {args.scenes} "
                    f"--seed {args.seed} --epochs {args.epochs}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

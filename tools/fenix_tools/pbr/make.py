"""Render a split of the physically based data set: ``NAME.jpg`` + ``NAME.json`` per frame.

    PYTHONPATH=tools nice -n 10 .venv/bin/python -m fenix_tools.pbr.make --split train --count 400 --seed 1

``--count`` rooms are made (room ``i`` of run ``--seed`` has the seed
``split base + seed * 100000 + i``; the bases keep the splits' seeds apart). A train
room gives one frame; an eval or tune room a start-position frame and a game frame from
the same camera and light, and in some rooms a third with a hand over the game position. Frames
already on disk are skipped, so a run can be stopped and started again, or extended with
a larger ``--count``. Every 20 new frames of a split, and at the end of a run that made any, a line
``TIME SPLIT COUNT`` goes to ``ROOT/STATUS``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from fenix_table.board import cell_index, cell_names, dimensions

from .scene import (SPLITS, Capsule, Room, draw_family, draw_hand, draw_room, game_position, hand_cells,
                    lay_stones, later_position)

DEFAULT_ROOT = "/work/data/pbr"
SPLIT_BASE = {"train": 0, "eval": 1_000_000_000, "tune": 2_000_000_000}
BOARDS = ("9x9", "7x8")
STAGES = ("start", "setup", "midgame", "late")


def room_seed(split: str, seed: int, index: int, bases: Dict[str, int] = SPLIT_BASE) -> int:
    """Room ``index`` of run ``seed`` of ``split``: ``bases`` (a family's own split bases)
    keep the splits' and the families' seeds apart."""
    if not 0 <= index < 100_000 or not 0 <= seed < 10_000:
        raise ValueError("seed must be in 0..9999 and index in 0..99999")
    return bases[split] + seed * 100_000 + index


def plan(split: str, room_id: int) -> List[Dict]:
    """The frames of one room: name, stage, whether a hand reaches in. An eval or tune
    room is a game at the table: its start, a position of the game, sometimes a hand over
    that position, and last a position a few plies later (``later``: what the table reads
    with the room the game frame taught it; last, so that the frames before it draw what
    they drew before it existed)."""
    rng = random.Random(room_id)
    name = f"{room_id:010d}"
    if split in ("eval", "tune"):
        frames = [{"name": f"{name}-start", "stage": "start", "hand": False},
                  {"name": f"{name}-game", "stage": rng.choice(["midgame", "midgame", "late", "setup"]), "hand": False}]
        if rng.random() < 0.3:
            frames.append({"name": f"{name}-hand", "stage": "same", "hand": True})
        frames.append({"name": f"{name}-later", "stage": "later", "hand": False})
        return frames
    stage = rng.choices(STAGES, weights=(2, 1.5, 4.5, 2))[0]
    return [{"name": name, "stage": stage, "hand": rng.random() < 0.25}]


def truth_of(room: Room, placement, hand: Sequence[Capsule], *, split: str, room_id: int,
             stage: str) -> Dict:
    cam = room.camera
    cols, rows = dimensions(room.board)
    corners = cam.project(np.array([(0, 0, 0), (cols, 0, 0), (cols, rows, 0), (0, rows, 0)], float))
    grid = np.array([(i, j, 0) for j in range(rows + 1) for i in range(cols + 1)], float)
    names = cell_names(room.board)
    centres = cam.project(np.array([(cell_index(n)[0] + 0.5, cell_index(n)[1] + 0.5, 0) for n in names], float))
    return {
        "board": room.board,
        "image_size": list(room.size),
        "corners": np.round(corners, 3).tolist(),
        "grid_points": np.round(cam.project(grid), 3).tolist(),
        "cell_centres": {n: np.round(c, 3).tolist() for n, c in zip(names, centres)},
        "distortion": {"model": "opencv", "camera_matrix": np.round(cam.matrix, 4).tolist(),
                       "dist_coeffs": [round(float(v), 6) for v in cam.dist_coeffs]},
        "camera": {"centre": np.round(cam.C, 4).tolist(), "rotation": np.round(cam.R, 6).tolist()},
        "stone": {"radius": round(room.look.radius, 4), "thickness": round(room.look.thickness, 4),
                  "finish": room.look.finish},
        "placement": {c: [col, int(h)] for c, (col, h) in sorted(placement.items())},
        "hand_cells": list(hand_cells(cam, room.board, hand)),
        "hand": bool(hand),
        "family": room.family.name,
        "seed": int(room_id),
        "split": split,
        "start": stage == "start",
        "stage": stage,
    }


def make_room(split: str, room_id: int, out_dir: str, *, spp: int, log=print,
              size: Tuple[int, int] = (1280, 960)) -> int:
    """Render the missing frames of one room into ``out_dir``; returns how many."""
    from . import render

    frames = plan(split, room_id)
    todo = [f for f in frames if not (os.path.exists(os.path.join(out_dir, f["name"] + ".jpg"))
                                      and os.path.exists(os.path.join(out_dir, f["name"] + ".json")))]
    if not todo:
        return 0
    rng = np.random.default_rng(room_id)
    prng = random.Random(room_id)
    board = BOARDS[int(rng.integers(2))]
    family = draw_family(rng, split)
    room = draw_room(rng, board, family, size)
    jitter, stacking = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.0, 0.04))
    made = 0
    game_layout = None
    for frame in frames:
        # Every frame's draws come in the same order whether or not it is rendered, so a
        # resumed room is the same room.
        stage = frame["stage"]
        if stage == "same":
            placement, stones = game_layout
            stage = frames[1]["stage"]
        else:
            position = later_position(position, prng) if stage == "later" else game_position(board, prng, stage)
            placement = position.stacks()
            stones = lay_stones(rng, placement, room.look, jitter, stacking)
            if stage != "start":
                game_layout = (placement, stones)
        hand: List[Capsule] = []
        hand_seed = int(rng.integers(1 << 30))
        if frame["hand"]:
            cols, rows = dimensions(board)
            tip = (float(rng.uniform(-0.5, cols + 0.5)), float(rng.uniform(-0.5, rows + 0.5)))
            owner = 270.0 if rng.random() < 0.5 else 90.0
            hand = draw_hand(rng, board, tip, owner + float(rng.normal(0, 35)))
        noise_seed = int(rng.integers(1 << 30))
        if frame not in todo:
            continue
        t0 = time.time()
        linear = render.render_linear(room, stones, hand, spp=spp, seed=noise_seed, hand_seed=hand_seed)
        jpeg = render.develop(linear, room, np.random.default_rng(noise_seed))
        truth = truth_of(room, placement, hand, split=split, room_id=room_id, stage=stage)
        truth.update(name=frame["name"], renderer=f"mitsuba {render.mitsuba().__version__} {render.variant()}",
                     spp=spp, render_seconds=round(time.time() - t0, 2))
        write_frame(out_dir, frame["name"], jpeg, truth)
        made += 1
        log(f"{frame['name']}: {board} {family.name} {stage}{' hand' if hand else ''} "
            f"{truth['render_seconds']:.1f} s")
    return made


def write_frame(out_dir: str, name: str, jpeg: bytes, truth: Dict) -> None:
    """``NAME.jpg`` and ``NAME.json`` in ``out_dir``, each written whole before it takes its
    name: picture first, truth last, so a frame counts as made once its JSON is there."""
    path = os.path.join(out_dir, name)
    with open(path + ".jpg.part", "wb") as fh:
        fh.write(jpeg)
    os.replace(path + ".jpg.part", path + ".jpg")
    with open(path + ".json.part", "w") as fh:
        json.dump(truth, fh, indent=1)
    os.replace(path + ".json.part", path + ".json")


def count_frames(out_dir: str) -> int:
    if not os.path.isdir(out_dir):
        return 0
    return sum(1 for n in os.listdir(out_dir) if n.endswith(".json"))


def status(root: str, split: str, count: int) -> None:
    with open(os.path.join(root, "STATUS"), "a") as fh:
        fh.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {split} {count}\n")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", required=True, choices=SPLITS)
    parser.add_argument("--count", type=int, required=True, help="rooms to make (existing frames are kept)")
    parser.add_argument("--seed", type=int, default=1, help="run seed, 0..9999")
    parser.add_argument("--first", type=int, default=0, help="first room index")
    parser.add_argument("--spp", type=int, default=12, help="path-tracing samples per pixel")
    parser.add_argument("--threads", type=int, default=2, help="render threads (at most 2 here)")
    parser.add_argument("--root", default=DEFAULT_ROOT)
    parser.add_argument("--size", default="1280x960", help="frame size, WxH")
    args = parser.parse_args(argv)
    if not 0 <= args.seed < 10_000 or args.count < 0 or not 0 <= args.first < 100_000:
        print("make: --seed must be 0..9999, --count and --first not negative", file=sys.stderr)
        return 2
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        if len(size) != 2 or min(size) < 32:
            raise ValueError
    except ValueError:
        print(f"make: --size must be WxH (at least 32x32), not {args.size!r}", file=sys.stderr)
        return 2
    from . import render

    render.mitsuba(threads=min(2, max(1, args.threads)))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2
    cv2.setNumThreads(1)
    out_dir = os.path.join(args.root, "frames", args.split)
    os.makedirs(out_dir, exist_ok=True)
    last = reported = count_frames(out_dir)
    for index in range(args.first, min(100_000, args.first + args.count)):
        rid = room_seed(args.split, args.seed, index)
        made = make_room(args.split, rid, out_dir, spp=args.spp, size=size,
                         log=lambda s: print(s, flush=True))
        if made:
            now = count_frames(out_dir)
            if now // 20 > last // 20:
                status(args.root, args.split, now)
                reported = now
            last = now
    if last != reported:          # the run's last batch
        status(args.root, args.split, last)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Render a split of the Cycles data set: ``NAME.jpg`` + ``NAME.json`` per frame, in the
physically based data set's format (read back with :func:`fenix_tools.pbr.dataset.frames`
and ``root=``).

    PYTHONPATH=tools nice -n 10 .venv/bin/python -m fenix_tools.cycles.make --split tune --count 30 --seed 1 --root /work/data/cycles

Rooms are drawn here (numpy 2, OpenCV, the rules); Blender renders them in a process of
its own, run by the bpy venv's python (``make cycles-venv`` makes ``.venv-cycles``), a
batch of frames per Blender start. Room ``i`` of run ``--seed`` has the seed
``split base + seed * 100000 + i``; the bases keep the splits apart, and apart from
the pbr family's. A train room gives one frame; a tune room a start-position frame and a
game frame from the same camera and light, in some rooms a third with a hand over the
game position (the frame plan is :func:`fenix_tools.pbr.make.plan`). Frames already on
disk are skipped, so a run can be stopped and started again, or extended with a larger
``--count``. Every 10 new frames of a split, and at the end of a run that made any, a
line ``TIME SPLIT COUNT`` goes to ``ROOT/STATUS``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from fenix_table.board import dimensions

from fenix_tools.pbr import make as pbr_make
from fenix_tools.pbr.make import count_frames, plan, status, truth_of, write_frame
from fenix_tools.pbr.scene import Capsule, draw_hand, game_position, lay_stones, later_position

from . import develop
from .room import SPLITS, draw_family, draw_room, film, scene_spec, skin, write_face

DEFAULT_ROOT = "/work/data/cycles"
SPLIT_BASE = {"train": 3_000_000_000, "tune": 4_000_000_000}
BOARDS = ("9x9", "7x8")
BLENDER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "blender.py")
#: The bpy venv ``make cycles-venv`` makes at the checkout's root.
DEFAULT_PYTHON = os.path.join(os.path.dirname(BLENDER_SCRIPT), "..", "..", "..", ".venv-cycles", "bin", "python")


def room_seed(split: str, seed: int, index: int) -> int:
    return pbr_make.room_seed(split, seed, index, SPLIT_BASE)


def blender_python(given: Optional[str] = None) -> Optional[str]:
    """The python that can ``import bpy``: ``given``, ``$FENIX_CYCLES_PYTHON`` or the
    checkout's ``.venv-cycles``; None when none exists."""
    for path in (given, os.environ.get("FENIX_CYCLES_PYTHON"), DEFAULT_PYTHON):
        if path and os.path.exists(path):
            return os.path.abspath(path)
    return None


def draw_frames(split: str, room_id: int, size: Tuple[int, int]):
    """The room and every frame of its plan: ``(room, [(frame, placement, stones, hand,
    hand_look, noise_seed)])``. Every frame's draws come in the same order whether or
    not it is rendered, so a resumed room is the same room."""
    frames = plan(split, room_id)
    rng = np.random.default_rng(room_id)
    prng = random.Random(room_id)
    board = BOARDS[int(rng.integers(2))]
    room = draw_room(rng, board, draw_family(rng, split), size)
    jitter, stacking = float(rng.uniform(0.0, 0.12)), float(rng.uniform(0.0, 0.04))
    # A stack grows by the stones' pitch (a domed top raises the next stone).
    pitch = SimpleNamespace(thickness=room.look.pitch)
    out = []
    game_layout = None
    for frame in frames:
        stage = frame["stage"]
        if stage == "same":
            placement, stones = game_layout
        else:
            position = later_position(position, prng) if stage == "later" else game_position(board, prng, stage)
            placement = position.stacks()
            stones = lay_stones(rng, placement, pitch, jitter, stacking)
            if stage != "start":
                game_layout = (placement, stones)
        hand: List[Capsule] = []
        hand_look = skin(rng)
        if frame["hand"]:
            cols, rows = dimensions(board)
            tip = (float(rng.uniform(-0.5, cols + 0.5)), float(rng.uniform(-0.5, rows + 0.5)))
            owner = 270.0 if rng.random() < 0.5 else 90.0
            hand = draw_hand(rng, board, tip, owner + float(rng.normal(0, 35)))
        out.append((frame, placement, stones, hand, hand_look, int(rng.integers(1 << 30))))
    return room, out


def _done(out_dir: str, name: str) -> bool:
    return all(os.path.exists(os.path.join(out_dir, name + ext)) for ext in (".jpg", ".json"))


def face_path(work: str, room_id: int) -> str:
    return os.path.join(work, f"{room_id:010d}-face.png")


def pending(split: str, room_ids: Sequence[int], root: str, *, spp: int, scale: float,
            size: Tuple[int, int] = (1280, 960), threads: int = 1) -> Tuple[List[Dict], List[tuple]]:
    """The scene specs of the frames of ``room_ids`` not yet in ``root/frames/split``, and
    what developing each needs; the rooms' printed faces are written to ``root/work``."""
    out_dir = os.path.join(root, "frames", split)
    work = os.path.join(root, "work", split)
    os.makedirs(work, exist_ok=True)
    jobs, todo = [], []
    for room_id in room_ids:
        if all(_done(out_dir, f["name"]) for f in plan(split, room_id)):
            continue
        room, frames = draw_frames(split, room_id, size)
        face = write_face(room, face_path(work, room_id))
        for frame, placement, stones, hand, hand_look, noise_seed in frames:
            if _done(out_dir, frame["name"]):
                continue
            film_path = os.path.join(work, frame["name"] + ".npy")
            jobs.append(scene_spec(room, stones, hand, hand_look, face_png=face, out=film_path, samples=spp,
                                   seed=noise_seed, scale=scale, threads=threads))
            stage = frame["stage"] if frame["stage"] != "same" else frames[1][0]["stage"]
            todo.append((room, frame, placement, hand, noise_seed, film_path, stage, room_id))
    return jobs, todo


def make_rooms(split: str, room_ids: Sequence[int], root: str, *, python: str, spp: int, scale: float,
               size: Tuple[int, int] = (1280, 960), threads: int = 1, log=print) -> int:
    """Render the missing frames of ``room_ids`` (one Blender process for them all) into
    ``root/frames/split``; returns how many were made."""
    out_dir = os.path.join(root, "frames", split)
    os.makedirs(out_dir, exist_ok=True)
    jobs, todo = pending(split, room_ids, root, spp=spp, scale=scale, size=size, threads=threads)
    if not jobs:
        return 0
    work = os.path.join(root, "work", split)
    jobs_path = os.path.join(work, f"jobs-{room_ids[0]:010d}.json")
    with open(jobs_path, "w") as fh:
        json.dump(jobs, fh)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(root, "work", "blender.log"), "a") as fh:
        subprocess.run([python, BLENDER_SCRIPT, jobs_path], stdout=fh, stderr=subprocess.STDOUT, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    blender_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    made = 0
    for room, frame, placement, hand, noise_seed, film_path, stage, room_id in todo:
        t0 = time.process_time()
        linear = develop.distort(np.load(film_path).astype(np.float32), room.camera, film(room, scale)[2:], scale)
        jpeg = develop.develop(linear, room.camera_look, np.random.default_rng(noise_seed))
        truth = truth_of(room, placement, hand, split=split, room_id=room_id, stage=stage)
        with open(film_path + ".seconds") as fh:
            render_cpu = float(fh.read())
        truth.update(name=frame["name"], renderer=f"cycles {_version(python)}", spp=spp,
                     render_scale=scale, render_seconds=round(render_cpu + time.process_time() - t0, 2))
        write_frame(out_dir, frame["name"], jpeg, truth)
        os.remove(film_path)
        os.remove(film_path + ".seconds")
        made += 1
        log(f"{frame['name']}: {room.board} {room.family.name} {stage}{' hand' if hand else ''} "
            f"render {render_cpu:.1f} s CPU")
    os.remove(jobs_path)
    for room_id in {t[-1] for t in todo}:
        os.remove(face_path(work, room_id))
    log(f"batch of {made} frames: Blender process {blender_cpu:.1f} s CPU in all")
    return made


_VERSIONS: Dict[str, str] = {}


def _version(python: str) -> str:
    if python not in _VERSIONS:
        out = subprocess.run([python, "-c", "import bpy; print(bpy.app.version_string)"],
                             capture_output=True, text=True)
        _VERSIONS[python] = out.stdout.strip().splitlines()[-1] if out.returncode == 0 else "?"
    return _VERSIONS[python]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", required=True, choices=SPLITS)
    parser.add_argument("--count", type=int, required=True, help="rooms to make (existing frames are kept)")
    parser.add_argument("--seed", type=int, default=1, help="run seed, 0..9999")
    parser.add_argument("--first", type=int, default=0, help="first room index")
    parser.add_argument("--spp", type=int, default=16, help="Cycles samples per pixel (denoised)")
    parser.add_argument("--scale", type=float, default=0.5,
                        help="render at this share (1/n) of the frame's resolution")
    parser.add_argument("--threads", type=int, default=1, help="Cycles render threads")
    parser.add_argument("--batch", type=int, default=4, help="rooms per Blender process")
    parser.add_argument("--root", default=DEFAULT_ROOT)
    parser.add_argument("--size", default="1280x960", help="frame size, WxH")
    parser.add_argument("--python", help="the python with bpy (default $FENIX_CYCLES_PYTHON, "
                                         "else the checkout's .venv-cycles)")
    args = parser.parse_args(argv)
    if not 0 <= args.seed < 10_000 or args.count < 0 or not 0 <= args.first < 100_000 or args.batch < 1:
        print("make: --seed must be 0..9999, --count and --first not negative, --batch at least 1", file=sys.stderr)
        return 2
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        if len(size) != 2 or min(size) < 32 or size[0] % 2 or size[1] % 2:
            raise ValueError
    except ValueError:
        print(f"make: --size must be WxH (even, at least 32x32), not {args.size!r}", file=sys.stderr)
        return 2
    python = blender_python(args.python)
    if python is None:
        print("make: no python with bpy: run `make cycles-venv` or give --python", file=sys.stderr)
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2
    cv2.setNumThreads(1)
    out_dir = os.path.join(args.root, "frames", args.split)
    last = reported = count_frames(out_dir)
    stop = min(100_000, args.first + args.count)
    for start in range(args.first, stop, args.batch):
        ids = [room_seed(args.split, args.seed, i) for i in range(start, min(stop, start + args.batch))]
        made = make_rooms(args.split, ids, args.root, python=python, spp=args.spp, scale=args.scale, size=size,
                          threads=args.threads, log=lambda s: print(s, flush=True))
        if made:
            now = count_frames(out_dir)
            if now // 10 > last // 10:
                status(args.root, args.split, now)
                reported = now
            last = now
    if last != reported:
        status(args.root, args.split, last)
    # Each batch removes what it wrote; the folder goes too if nothing else is in it.
    try:
        os.rmdir(os.path.join(args.root, "work", args.split))
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

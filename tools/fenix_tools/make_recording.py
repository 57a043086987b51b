"""Make the demo's camera recording with the project's frame generator.

``python -m fenix_table.display.make_recording [--out DIR]`` renders the game of
``recording/script.json`` as an overhead camera sees it while people play: the start
position, then for every ply a forearm reaching over the board and the new position held
still. Two moments are played out in full:

* ``violation_ply``: the player first makes a plain step although a capture is
  compulsory, leaves it (the referee objects), puts it back, then captures;
* ``chain_ply`` (a capture chain): the capturing piece lands while the jumped stones still
  stand (the referee asks for them to be taken off), then they are removed.

The script fixes the scene (camera, light, board colours) and the seed, so the frames
are reproducible. ``script.json`` also records what the frames show (the plies, the
result), which ``fenix-table demo`` and its test check the referee against.
"""
from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, replace
from typing import Dict, Iterator, List, Optional, Tuple

RECORDING = os.path.join(os.path.dirname(__file__), "recording")
SCRIPT = os.path.join(RECORDING, "script.json")

Placement = Dict[str, Tuple[str, int]]


def load_script(folder: str = RECORDING) -> dict:
    """The recording's ``script.json`` (board, moves, result, frame plan)."""
    from ..errors import ConfigError
    path = os.path.join(folder, "script.json")
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{folder}: no script.json, not a demo recording") from None
    except (OSError, ValueError) as error:
        raise ConfigError(f"{path}: unreadable: {error}") from None


def _wrong_step(position, move) -> Placement:
    """The board after a plain orthogonal soldier step by the side to move, illegal here
    because ``move`` (a capture) is compulsory. The capturing piece itself steps when it
    is a soldier, as players who overlook a capture do."""
    stacks = dict(position.stacks())
    first = move.path[0]
    for cell, (color, height) in sorted(stacks.items(), key=lambda item: item[0] != first):
        if color != position.side or height != 1:
            continue
        f, r = ord(cell[0]) - 97, int(cell[1:])
        for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            target = f"{chr(97 + f + df)}{r + dr}"
            if target in position.cells and target not in stacks:
                after = dict(stacks)
                after[target] = after.pop(cell)
                return after
    raise ValueError(f"no soldier of {position.side} can step: choose another violation_ply")


@dataclass(frozen=True)
class Shot:
    """One stretch of the recording: ``frames`` frames of ``placement`` (with a forearm
    over the board when ``hand``); ``plies`` is how many plies of the script the board
    shows by then (a capture counts once its stones are off)."""

    placement: Placement
    frames: int
    hand: bool
    note: str
    plies: int


def shots(script: dict) -> Iterator[Shot]:
    """Every stretch of the recording, in order."""
    from ..rules import Position, Rules, apply, legal_moves

    rules = Rules.preset(script.get("rules", "official"))
    position = Position.start(script["board"])
    still, hands = script["still_frames"], script["hand_frames"]
    yield Shot(dict(position.stacks()), script["start_frames"], False, "start", 0)
    for ply, token in enumerate(script["moves"], start=1):
        before = dict(position.stacks())
        move = next(m for m in legal_moves(position, rules) if m.token == token)
        if ply == script.get("violation_ply"):
            wrong = _wrong_step(position, move)
            yield Shot(wrong, hands, True, f"ply {ply}: a plain step instead of the capture", ply - 1)
            yield Shot(wrong, script["violation_frames"], False, "violation", ply - 1)
            yield Shot(before, hands, True, "put back", ply - 1)
            yield Shot(before, still, False, "restored", ply - 1)
        after = apply(position, move, rules)
        if ply == script.get("chain_ply"):
            landed = dict(before)
            landed[move.path[-1]] = landed.pop(move.path[0])
            yield Shot(landed, hands, True, f"ply {ply}: {token} lands", ply - 1)
            yield Shot(landed, still + 1, False, "captured stones still on the board", ply - 1)
            yield Shot(dict(after.stacks()), hands, True, "stones taken off", ply)
        else:
            yield Shot(dict(after.stacks()), hands, True, f"ply {ply}: {token}", ply)
        position = after
        yield Shot(dict(position.stacks()), still, False, f"after ply {ply}", ply)
    yield Shot(dict(position.stacks()), script["end_frames"], False, "end", len(script["moves"]))


def render(script: dict, out: str, *, quality: int = 80) -> int:
    """Render every frame as ``NNNN.jpg`` into ``out``; returns the frame count."""
    import cv2
    import numpy as np

    from ..sim import random_scene, render_frame

    rng = np.random.default_rng(script["seed"])
    scene = random_scene(rng, script["board"], image_size=tuple(script["image_size"]),
                         hard=False, hand=False)
    scene = replace(scene, **script.get("scene", {}))
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".jpg"):
            os.remove(os.path.join(out, name))
    index = 0
    for part in shots(script):
        for _ in range(part.frames):
            shot = scene
            if part.hand:
                shot = replace(scene, hand=True, hand_angle_deg=float(rng.uniform(0, 360)),
                               hand_reach=float(rng.uniform(2.5, 4.5)))
            bgr, _truth = render_frame(part.placement, script["board"], shot, rng)
            cv2.imwrite(os.path.join(out, f"{index:04d}.jpg"), bgr,
                        [cv2.IMWRITE_JPEG_QUALITY, quality])
            index += 1
    return index


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=RECORDING, help="folder for the frames")
    parser.add_argument("--script", default=SCRIPT, help="the game script (JSON)")
    parser.add_argument("--quality", type=int, default=80, help="JPEG quality")
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as fh:
        script = json.load(fh)
    count = render(script, args.out, quality=args.quality)
    size = sum(os.path.getsize(os.path.join(args.out, f)) for f in os.listdir(args.out)
               if f.endswith(".jpg"))
    print(f"{count} frames, {size / 1e6:.1f} MB in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

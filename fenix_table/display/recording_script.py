"""The bundled demo recording's script: where it lies and what its frames show.

``recording/`` holds the frames (``NNNN.jpg``) and ``script.json``: the board, the game's
moves and result, and the frame plan. ``fenix-table demo`` plays the frames and checks the
referee against the script; :func:`shots` turns the script into the stretches of still
board and of hands that the frames show. The frames themselves are rendered from the same
script by the source checkout's ``tools/fenix_tools/make_recording.py`` (not shipped).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Dict, Iterator, Tuple

from ..board import cell_index, cell_name, on_board

RECORDING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recording")
SCRIPT_NAME = "script.json"

Placement = Dict[str, Tuple[str, int]]


def load_script(folder: str = RECORDING) -> dict:
    """The recording's ``script.json`` (board, moves, result, frame plan)."""
    from ..errors import ConfigError
    path = os.path.join(folder, SCRIPT_NAME)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{folder}: no {SCRIPT_NAME}, not a demo recording") from None
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
        f, r = cell_index(cell)
        for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            if not on_board(position.size, f + df, r + dr):
                continue
            target = cell_name(f + df, r + dr)
            if target not in stacks:
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
    """Every stretch of the recording, in order. Two moments are played out in full:

    * ``violation_ply``: the player first makes a plain step although a capture is
      compulsory, leaves it (the referee objects), puts it back, then captures;
    * ``chain_ply`` (a capture chain): the capturing piece lands while the jumped stones
      still stand (the referee asks for them to be taken off), then they are removed.
    """
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

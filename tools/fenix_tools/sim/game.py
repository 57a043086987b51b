"""A physical table that follows a game: stones that stay where they were put, and the
frames a camera sees while a person makes each ply.

:class:`PhysicalBoard` keeps every stack's disc centres (board coordinates in cells, as in
:mod:`fenix_tools.sim.render`; bottom disc first). Stones sit off their cell centres by a
placement error, a stone put on a stack sits off the one below by a hand-stacking error,
and nothing moves unless a move moves it. :class:`TableCamera` renders it with one fixed
scene (table, board grain, stray stones) so that frames of an unchanged board differ by
sensor noise only. :func:`ply_frames` yields one ply as a person makes it: the hand over
the board, its last frame with the fingertips over the landing cell (or, ``withdrawing``,
pulling back from it), then still frames.
:func:`random_game` plays a random game's setup (all stacking plies) and some battle
plies, preferring games with a General creation or King recreation in battle.

>>> import random, numpy as np
>>> from fenix_table.rules import Position
>>> moves = random_game("7x8", random.Random(1), battle_plies=4)
>>> table = PhysicalBoard.from_position(Position.start("7x8"), np.random.default_rng(1))
>>> for move in moves:
...     table.play(move)
>>> sum(len(d) for d in table.stones().values()) <= 42
True
"""
from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from fenix_table.board import cell_index
from fenix_table.rules import Game, Position, Rules
from fenix_table.rules.options import OFFICIAL

from .render import GroundTruth, Placement, SceneParams, render_frame

Frame = Tuple[np.ndarray, GroundTruth]


def cell_centre(cell: str) -> np.ndarray:
    """A cell's centre in board coordinates (cells): c4 -> (2.5, 3.5)."""
    f, r = cell_index(cell)
    return np.array([f + 0.5, r + 0.5])


class PhysicalBoard:
    """Where every stone of a game lies on the table.

    ``stacks``: ``{cell: (colour, discs)}``, discs an array (height, 2) of disc centres,
    bottom first. ``jitter``: a stone put on a cell lands up to this far off its centre
    (uniform per axis, cells); ``stacking``: a stone put on a stack sits off the stack's
    top disc by N(0, stacking) per axis (0.02..0.05 cells: a millimetre or two on 30 mm
    cells). ``rng`` draws those placement errors.
    """

    def __init__(self, board: str, stacks: Mapping[str, Tuple[str, np.ndarray]],
                 rng: np.random.Generator, jitter: float = 0.05, stacking: float = 0.03):
        self.board = board
        self.stacks: Dict[str, Tuple[str, np.ndarray]] = {
            c: (color, np.array(discs, float).reshape(-1, 2)) for c, (color, discs) in stacks.items()}
        self.rng, self.jitter, self.stacking = rng, float(jitter), float(stacking)

    @classmethod
    def from_position(cls, position: Position, rng: np.random.Generator,
                      jitter: float = 0.05, stacking: float = 0.03) -> "PhysicalBoard":
        """Every stack of ``position`` placed by hand: its bottom stone up to ``jitter``
        off the cell centre, each stone above N(0, ``stacking``) off the one below (the
        start position: one stone per camp cell)."""
        table = cls(position.size, {}, rng, jitter, stacking)
        for cell, (color, height) in position.stacks().items():
            discs = [table._put(cell)]
            for _ in range(int(height) - 1):
                discs.append(table._on_top(discs[-1]))
            table.stacks[cell] = (color, np.array(discs))
        return table

    def _put(self, cell: str) -> np.ndarray:
        return cell_centre(cell) + self.rng.uniform(-self.jitter, self.jitter, 2)

    def _on_top(self, top: np.ndarray) -> np.ndarray:
        return np.asarray(top, float) + self.rng.normal(0, self.stacking, 2)

    def copy(self) -> "PhysicalBoard":
        return PhysicalBoard(self.board, {c: (col, d.copy()) for c, (col, d) in self.stacks.items()},
                             self.rng, self.jitter, self.stacking)

    def placement(self) -> Placement:
        """``{cell: (colour, height)}`` as :meth:`Position.stacks` gives it."""
        return {c: (color, len(discs)) for c, (color, discs) in self.stacks.items()}

    def stones(self) -> Dict[str, np.ndarray]:
        """``{cell: discs}`` for :func:`render_frame`'s ``stones``."""
        return {c: discs for c, (_, discs) in self.stacks.items()}

    def play(self, move) -> None:
        """Make ``move`` (a :class:`fenix_table.rules.Move`, legal on this board).

        Stacking (setup, General creation, King recreation): the soldier leaves its cell
        and lands on the stack at ``move.to_cell``, N(0, stacking) off its top disc. Any
        other move: the stack lands on the last cell of ``move.path`` with its discs'
        relative offsets kept and a new placement error (up to ``jitter``); the stacks on
        ``move.captured`` leave the board.
        """
        frm, to = move.path[0], move.path[-1]
        if frm not in self.stacks:
            raise ValueError(f"{move}: no stack on {frm}")
        color, discs = self.stacks.pop(frm)
        if getattr(move, "stacking", False):
            if to not in self.stacks or len(discs) != 1:
                self.stacks[frm] = (color, discs)
                raise ValueError(f"{move}: stacking needs a soldier on {frm} and a stack on {to}")
            under_color, under = self.stacks[to]
            self.stacks[to] = (under_color, np.vstack([under, self._on_top(under[-1])]))
            return
        landed = discs - discs[0] + self._put(to)
        for cell in move.captured:
            self.stacks.pop(cell, None)
        self.stacks[to] = (color, landed)


class TableCamera:
    """Renders a :class:`PhysicalBoard` in one fixed scene: table texture, board grain and
    stray stones come from ``seed`` on every frame; sensor noise from a running stream
    (``seed`` + 1), so frames of an unchanged board differ by sensor noise (and JPEG)
    only, and are pixel-identical when ``scene.noise_sigma`` is 0."""

    def __init__(self, board: str, scene: SceneParams, seed: int = 0):
        self.board, self.scene, self.seed = board, scene, int(seed)
        self.noise = np.random.default_rng(self.seed + 1)

    def frame(self, table: PhysicalBoard, *, hand_tip: Optional[Tuple[float, float]] = None,
              hand_angle_deg: float = 0.0, noise_rng: Optional[np.random.Generator] = None) -> Frame:
        """One frame of ``table``; with ``hand_tip`` a hand reaches there from
        ``hand_angle_deg`` (see :class:`SceneParams`)."""
        scene = self.scene
        if hand_tip is not None:
            scene = replace(scene, hand=True, hand_tip=(float(hand_tip[0]), float(hand_tip[1])),
                            hand_angle_deg=float(hand_angle_deg))
        else:
            scene = replace(scene, hand=False, hand_tip=None)
        return render_frame(table.placement(), self.board, scene, np.random.default_rng(self.seed),
                            stones=table.stones(),
                            noise_rng=self.noise if noise_rng is None else noise_rng)


def mover_angle(side: str, rng: random.Random, spread_deg: float = 30.0) -> float:
    """Where the mover's arm comes from (``hand_angle_deg``): Red sits at rank 1 (the arm
    towards -y, 270 degrees), Black beyond the last rank (90 degrees), give or take a
    normal spread of ``spread_deg`` (clipped to 1.5 times that)."""
    base = 270.0 if side == "red" else 90.0
    off = max(-1.5 * spread_deg, min(1.5 * spread_deg, rng.gauss(0.0, spread_deg)))
    return (base + off) % 360.0


def hand_tips(move, rng: random.Random, hand_frames: int = 3) -> Iterator[np.ndarray]:
    """Where the fingertips are in the hand frames before the stone is put down (board
    coordinates): over the stone that moves first, then along the move's path towards
    the landing cell, give or take a little. ``hand_frames`` - 1 of them (at least 0)."""
    waypoints = [cell_centre(c) for c in move.path]
    hand_frames = max(1, int(hand_frames))
    for k in range(hand_frames - 1):
        t = k / max(1, hand_frames - 1) * (len(waypoints) - 1)
        i = min(int(t), len(waypoints) - 2) if len(waypoints) > 1 else 0
        a, b = waypoints[i], waypoints[min(i + 1, len(waypoints) - 1)]
        yield a + (b - a) * (t - i) + np.array([rng.gauss(0, 0.15), rng.gauss(0, 0.15)])


def withdrawal_tips(land: np.ndarray, angle_deg: float, rng: random.Random,
                    frames: int) -> Iterator[np.ndarray]:
    """Where the fingertips are in ``frames`` frames of a hand pulling back from the
    stone it put down at ``land`` (board coordinates), its arm from ``angle_deg`` (see
    :func:`mover_angle`): each frame 0.6-1.6 cells farther back, mostly towards the
    player (the arm's way, give or take 30 degrees), in a third of the plies off to one
    side of it (40-80 degrees), drifting a little sideways."""
    if frames <= 0:
        return      # no draws: the plies after stay as they were
    away = math.radians(angle_deg + rng.choice((-1, 1)) * (
        rng.uniform(40.0, 80.0) if rng.random() < 1 / 3 else rng.uniform(0.0, 30.0)))
    way = np.array([math.cos(away), math.sin(away)])
    tip = np.array(land, float)
    for _ in range(frames):
        tip = tip + way * rng.uniform(0.6, 1.6) + np.array([rng.gauss(0, 0.1), rng.gauss(0, 0.1)])
        yield tip


def ply_frames(camera: TableCamera, table: PhysicalBoard, move, side: str,
               rng: random.Random, *, hand_frames: int = 3, still_frames: int = 5,
               spread_deg: float = 30.0, withdrawing: int = 0) -> Iterator[Frame]:
    """The frames of one ply as a person makes it; plays ``move`` on ``table``.

    ``hand_frames`` frames with the mover's hand over the board (arm from ``side``'s side
    of the table, angle spread ``spread_deg``): the first with the fingertips over the
    stone that moves, the next ones on the way along the move's path, the board as before
    the move (the lifted stone hidden under the hand); then one with the fingertips over
    the landing cell and the board as after the move, the last unless ``withdrawing``:
    that many of the hand frames (fewer than ``hand_frames``) are then the hand pulling
    back after it, seen from a camera too slow to catch it over the landing twice
    (:func:`withdrawal_tips`; a real hand is often last seen so). Then ``still_frames``
    still frames of the new position. Yields ``(bgr, truth)``. Without ``withdrawing``
    the random draws are those of a ply without it.
    """
    if not 0 <= withdrawing < hand_frames:
        raise ValueError("withdrawing must leave at least one hand frame over the landing")
    angle = mover_angle(side, rng, spread_deg)
    land = cell_centre(move.path[-1])
    for tip in hand_tips(move, rng, hand_frames - withdrawing):
        yield camera.frame(table, hand_tip=tuple(tip), hand_angle_deg=angle + rng.gauss(0, 4))
    table.play(move)
    tip = land + np.array([rng.gauss(0, 0.08), rng.gauss(0, 0.08)])
    yield camera.frame(table, hand_tip=tuple(tip), hand_angle_deg=angle + rng.gauss(0, 4))
    for tip in withdrawal_tips(land, angle, rng, withdrawing):
        yield camera.frame(table, hand_tip=tuple(tip), hand_angle_deg=angle + rng.gauss(0, 4))
    for _ in range(still_frames):
        yield camera.frame(table)


def battle_stacking(moves: Sequence, start: Position, rules: Optional[Rules] = None) -> List[int]:
    """Indices of the battle plies of ``moves`` (played from ``start``) that stack: a
    General creation or a King recreation."""
    game = Game(start, rules or OFFICIAL)
    found = []
    for i, move in enumerate(moves):
        in_setup = game.position.in_setup
        game.push(move)
        if move.stacking and not in_setup:
            found.append(i)
    return found


def random_game(board: str, rng: random.Random, battle_plies: int = 10,
                rules: Optional[Rules] = None, tries: int = 30,
                prefer_creation: bool = True, capture_bias: float = 0.7) -> List:
    """A random legal game on ``board``: the whole setup (every stacking ply, 10 on the
    official rules) and then up to ``battle_plies`` battle plies (fewer if it ends).

    In battle a capture is taken with probability ``capture_bias`` when there is one and
    a General creation or King recreation whenever the duty allows it (players do it at
    once), so Generals and Kings fall and are re-made within few plies. With
    ``prefer_creation`` up to ``tries`` games are played and the first whose battle
    plies include such a stacking move is returned (else the last one tried).
    Returns the list of :class:`fenix_table.rules.Move`.
    """
    last: List = []
    for _ in range(max(1, tries)):
        game = Game(Position.start(board), rules or OFFICIAL)
        battle = 0
        created = False
        while not game.status().over:
            in_setup = game.position.in_setup
            if not in_setup and battle >= battle_plies:
                break
            legal = sorted(game.legal_moves())
            if not legal:
                break
            if in_setup:
                move = rng.choice(legal)
            else:
                stacks = [m for m in legal if m.stacking]
                caps = [m for m in legal if m.captured]
                if stacks:
                    move = rng.choice(stacks)
                elif caps and rng.random() < capture_bias:
                    move = rng.choice(caps)
                else:
                    move = rng.choice(legal)
                battle += 1
                created = created or move.stacking
            game.push(move)
        last = list(game.moves)
        if created or not prefer_creation:
            return last
    return last

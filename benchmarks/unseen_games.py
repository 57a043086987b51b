"""Whole games on a physical table, drawn with the independent renderer of
``bench_vision_unseen.py`` (never used to train or tune vision).

The same idea as the project's generator (``fenix_tools.sim.game``), written again here
with the unseen renderer's own drawing code: stones stay where they were put, a few
hundredths of a cell off their cell centres (``jitter``); a stone put on a stack sits
N(0, ``stacking``) off the stone below (0.02-0.05 cells: a millimetre or two); every
stone keeps its own shade and gloss; one camera, room and board per game, so frames of an
unchanged board differ by sensor noise and JPEG only. A ply is shown as a person makes it:
hand frames with the mover's hand and sleeve reaching from the mover's side of the table
(Red sits at rank 1, Black beyond the last rank), the board as before the move while the
stone is in the hand, the last hand frame with the fingertips over the landing cell and
the board as after the move; then still frames. Nothing from ``fenix_tools.sim`` draws a
pixel here; the moves themselves may come from anywhere (``fenix_tools.sim.random_game``
in ``bench_referee.py``).

>>> import numpy as np
>>> from fenix_table.rules import Position
>>> table = UnseenTable.from_position(Position.start("7x8"), np.random.default_rng(1))
>>> sum(len(d) for d in table.stones().values())
42
"""
from __future__ import annotations

import os
import random
import sys
from typing import Dict, Iterator, Optional, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

import bench_vision_unseen as unseen  # noqa: E402
# Where the hand goes (the scenario, no pixels) is shared with the project's generator.
from fenix_tools.sim.game import cell_centre, hand_tips, mover_angle  # noqa: E402
from fenix_table.rules import Position  # noqa: E402

#: Skin and sleeve colours (BGR) the players are drawn with.
SKINS = [(150, 180, 225), (120, 150, 200), (90, 120, 170), (60, 85, 125), (170, 195, 235)]
SLEEVES = [(40, 40, 40), (140, 60, 30), (60, 120, 60), (200, 200, 200), (50, 50, 150),
           (120, 110, 100), (30, 90, 160)]


class UnseenTable:
    """Where every stone lies: ``{cell: (colour, discs)}``, discs (height, 4) per stone,
    bottom first: centre x, y (cells), shade factor, gloss-spot size."""

    def __init__(self, board: str, rng: np.random.Generator, jitter: float = 0.05,
                 stacking: float = 0.03):
        self.board, self.rng = board, rng
        self.jitter, self.stacking = float(jitter), float(stacking)
        self.stacks: Dict[str, Tuple[str, np.ndarray]] = {}

    @classmethod
    def from_position(cls, position: Position, rng: np.random.Generator, jitter: float = 0.05,
                      stacking: float = 0.03) -> "UnseenTable":
        table = cls(position.size, rng, jitter, stacking)
        for cell, (colour, height) in position.stacks().items():
            discs = [table._stone(table._put(cell))]
            for _ in range(int(height) - 1):
                discs.append(table._stone(table._on_top(discs[-1])))
            table.stacks[cell] = (colour, np.array(discs))
        return table

    def _put(self, cell: str) -> np.ndarray:
        return cell_centre(cell) + self.rng.uniform(-self.jitter, self.jitter, 2)

    def _on_top(self, below: np.ndarray) -> np.ndarray:
        return np.asarray(below[:2], float) + self.rng.normal(0, self.stacking, 2)

    def _stone(self, xy: np.ndarray) -> np.ndarray:
        """A stone at ``xy`` with its own shade and gloss spot, kept for good."""
        return np.array([xy[0], xy[1], self.rng.uniform(0.9, 1.1), self.rng.uniform(0.12, 0.25)])

    def placement(self) -> Dict[str, Tuple[str, int]]:
        return {c: (colour, len(d)) for c, (colour, d) in self.stacks.items()}

    def stones(self) -> Dict[str, np.ndarray]:
        return {c: d for c, (_, d) in self.stacks.items()}

    def play(self, move) -> None:
        """Stacking: the soldier (the same stone, shade and all) lands on the stack at
        ``move.to_cell``, N(0, stacking) off its top stone. Otherwise the stack lands on
        the path's last cell, its stones' offsets kept, with a new placement error; the
        captured stacks leave the board."""
        frm, to = move.path[0], move.path[-1]
        colour, discs = self.stacks.pop(frm)
        if getattr(move, "stacking", False):
            under_colour, under = self.stacks[to]
            stone = discs[-1].copy()
            stone[:2] = self._on_top(under[-1])
            self.stacks[to] = (under_colour, np.vstack([under, stone]))
            return
        landed = discs.copy()
        landed[:, :2] += self._put(to) - discs[0, :2]
        for cell in move.captured:
            self.stacks.pop(cell, None)
        self.stacks[to] = (colour, landed)


class UnseenCamera:
    """One scene of the unseen renderer (camera, room, board face, stone look, light)
    for a whole game; sensor noise from its own stream. Each side's player has a skin
    and a sleeve."""

    def __init__(self, board: str, size=(1280, 960), seed: int = 0):
        scene_rng = np.random.default_rng(seed)
        self.scene = unseen.random_scene(scene_rng, board, size)
        self.noise = np.random.default_rng(seed + 1)
        self.players = {side: (SKINS[int(scene_rng.integers(len(SKINS)))],
                               SLEEVES[int(scene_rng.integers(len(SLEEVES)))])
                        for side in ("red", "black")}

    def frame(self, table: UnseenTable, hand: Optional[unseen.Hand] = None) -> np.ndarray:
        bgr, _ = unseen.render(self.scene, table.placement(), self.noise, stones=table.stones(),
                               hand=hand)
        return bgr

    def hand(self, side: str, tip, angle_deg: float) -> unseen.Hand:
        skin, sleeve = self.players[side]
        return unseen.Hand((float(tip[0]), float(tip[1])), float(angle_deg), skin, sleeve)


def ply_frames(camera: UnseenCamera, table: UnseenTable, move, side: str, rng: random.Random,
               hand_frames: int = 3, still_frames: int = 5) -> Iterator[np.ndarray]:
    """The frames of one ply (plays ``move`` on ``table``): ``hand_frames`` with the
    hand, the first over the stone that moves, then along the path, the board as before
    (the stone in the hand); the last over the landing cell, the board as after; then
    ``still_frames`` still frames."""
    angle = mover_angle(side, rng)
    for tip in hand_tips(move, rng, hand_frames):
        yield camera.frame(table, camera.hand(side, tip, angle + rng.gauss(0, 4)))
    table.play(move)
    tip = cell_centre(move.path[-1]) + np.array([rng.gauss(0, 0.08), rng.gauss(0, 0.08)])
    yield camera.frame(table, camera.hand(side, tip, angle + rng.gauss(0, 4)))
    for _ in range(still_frames):
        yield camera.frame(table)


if __name__ == "__main__":   # write a few frames of a game to look at
    import cv2

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    from fenix_tools.sim import random_game

    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/unseen_game"
    os.makedirs(out, exist_ok=True)
    board = sys.argv[2] if len(sys.argv) > 2 else "7x8"
    rng = random.Random(3)
    table = UnseenTable.from_position(Position.start(board), np.random.default_rng(3), 0.05, 0.03)
    camera = UnseenCamera(board, seed=3)
    game = Position.start(board)
    n = 0
    for move in random_game(board, rng, battle_plies=2)[:4]:
        for bgr in ply_frames(camera, table, move, game.side, rng):
            cv2.imwrite(os.path.join(out, f"{n:03d}.jpg"), bgr)
            n += 1
        from fenix_table.rules import apply
        game = apply(game, move)
    print(f"{n} frames in {out}")

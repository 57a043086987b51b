"""The camera's evidence of which stack a stacking ply landed on (vision.evidence):
rendered setup plies on the generator's physical table, stones where they were put,
hands from the mover's side."""
import random
from dataclasses import replace

import numpy as np

from fenix_table.rules import Game, Position
from fenix_table.vision import Vision
from fenix_tools.sim import PhysicalBoard, TableCamera, ply_frames, random_game, random_scene


def test_the_landing_stack_changes_most_and_untouched_stacks_hardly():
    board, seed = "7x8", 5
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    scene = replace(random_scene(nrng, board, image_size=(960, 720), hard=False, hand=False),
                    jitter=0.05, stacking=0.03)
    camera = TableCamera(board, scene, seed=seed)
    start = Position.start(board)
    table = PhysicalBoard.from_position(start, nrng, 0.05, 0.03)
    vision = Vision(board=board, stable_frames=3)
    first = [vision.process(camera.frame(table)[0], i).stable for i in range(4)]
    # The first still board has nothing earlier to compare with.
    assert all(obs is None or obs.changes == {} for obs in first)
    game, frame = Game(start), 4
    for move in random_game(board, rng, battle_plies=0)[:4]:
        side = game.position.side
        stable = None
        for bgr, _ in ply_frames(camera, table, move, side, rng):
            result = vision.process(bgr, frame)
            frame += 1
            stable = result.stable or stable
        game.push(move)
        assert stable is not None and stable.changes
        stacks = game.position.stacks()
        landing, vacated = move.path[-1], move.path[0]
        others = [stable.changes[c] for c, (colour, _) in stacks.items()
                  if colour == side and c != landing]
        assert stable.changes[landing] > max(others), move.token
        assert stable.changes[vacated] > max(others), move.token
        # Most untouched stacks read as an ordinary cell of the board.
        assert np.median(others) < 3.0

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


def _rectified(discs, width=5, height=5, ppc=32, seed=0):
    """A rectified board (Lab L on a dark face, its gradient) with dark stones drawn as
    ``discs``: (row, column, dy, dx, radius) in cells; a little sensor noise."""
    import cv2

    from fenix_table.vision.cells import Rectified

    pad = ppc // 2
    L = np.full((height * ppc + 2 * pad, width * ppc + 2 * pad), 22.0, np.float32)
    for row, col, dy, dx, radius in discs:
        centre = (int(round((pad + (col + 0.5 + dx) * ppc) * 16)),
                  int(round((pad + (row + 0.5 + dy) * ppc) * 16)))
        cv2.circle(L, centre, int(round(radius * ppc * 16)), 9.0, -1, cv2.LINE_AA, 4)
    L += np.random.default_rng(seed).normal(0, 0.4, L.shape).astype(np.float32)
    lab = np.dstack([L, np.zeros_like(L), np.zeros_like(L)])
    grad = cv2.magnitude(cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3),
                         cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3))
    return Rectified(lab, grad, ppc, pad)


def test_a_stone_put_on_a_stack_shows_on_the_rim_sides_that_face_an_empty_cell():
    from fenix_table.vision.evidence import rim_changes

    # Dark stones on a dark face: a row of three stacks, and a few stones elsewhere.
    stones = [(2, 1, 0, 0, 0.4), (2, 2, 0, 0, 0.4), (2, 3, 0, 0, 0.4), (0, 0, 0, 0, 0.4),
              (4, 4, 0, 0, 0.4)]
    occupied = np.zeros(25, bool)
    for row, col, *_ in stones:
        occupied[row * 5 + col] = True
    before = _rectified(stones, seed=1)
    # The stone put on the middle stack lies 0.05 cell towards the empty cell above it.
    after = _rectified(stones[:1] + [(2, 2, -0.05, 0, 0.4)] + stones[2:], seed=2)
    scores = rim_changes(before, after, 5, 5, occupied)
    others = np.delete(scores, 2 * 5 + 2)
    assert scores[2 * 5 + 2] > 10 and scores[2 * 5 + 2] > 3 * others.max()


def test_a_neighbours_stone_reaching_into_a_rim_is_not_that_stacks_change():
    from fenix_table.vision.evidence import rim_changes

    stones = [(2, 1, 0, 0, 0.4), (2, 2, 0, 0, 0.4), (0, 4, 0, 0, 0.4)]
    occupied = np.zeros(25, bool)
    for row, col, *_ in stones:
        occupied[row * 5 + col] = True
    before = _rectified(stones, seed=1)
    # The stone put on c's left neighbour lies 0.12 cell towards it (a stone off its cell):
    # its rim now covers the side of the neighbour's rim that faces it, nothing else.
    after = _rectified([(2, 1, 0, 0.12, 0.4)] + stones[1:], seed=2)
    scores = rim_changes(before, after, 5, 5, occupied)
    assert scores[2 * 5 + 1] > 10
    assert scores[2 * 5 + 2] < 5     # only its side facing the grown stack changed
    # Measured all round (both cells' every side open), the neighbour would have changed.
    everywhere = rim_changes(before, after, 5, 5, np.zeros(25, bool))
    assert everywhere[2 * 5 + 2] > 10

"""Persistent stones, a hand that reaches a chosen cell, and a physical board that
follows a game (``fenix_tools.sim.game``)."""
import hashlib
import math
import random
from dataclasses import replace

import numpy as np
import pytest

from fenix_tools.sim import (PhysicalBoard, TableCamera, battle_stacking, mover_angle,
                             ply_frames, random_game, random_placement, random_scene, render_frame)
from fenix_tools.sim.game import cell_centre, withdrawal_tips
from fenix_table.board import cell_index, cell_names
from fenix_table.rules import Game, Position, apply, legal_moves


def _cell_px(truth) -> float:
    """Pixels per cell near the board's middle."""
    a, b = np.array(truth.cell_centres["a1"]), np.array(truth.cell_centres["b1"])
    return float(np.linalg.norm(a - b))


def _box(img, truth, cell, frac=0.45):
    x, y = truth.cell_centres[cell]
    r = int(_cell_px(truth) * frac)
    return img[int(y) - r:int(y) + r + 1, int(x) - r:int(x) + r + 1].astype(int)


def test_default_path_unchanged_bytes():
    """The default path (no stones, no hand_tip, no noise_rng) renders byte for byte as
    before these options existed: this digest was taken from the previous render.py."""
    rng = np.random.default_rng(21)
    scene = random_scene(rng, "7x8", image_size=(320, 240), hard=True, hand=True)
    scene = replace(scene, stray_stones=2, glossy=0.6, stacking=0.03)
    placement = random_placement(rng, "7x8")
    img, truth = render_frame(placement, "7x8", scene, np.random.default_rng(5))
    assert hashlib.sha256(img.tobytes()).hexdigest() == \
        "27fa3e68aff8ea51b9f06d8b7cb8929d07bcdccb429ce622c914681fc7ecfd8b"
    assert truth.occluded_cells == ('a5', 'b5', 'c5', 'a6', 'b6', 'c6', 'a7', 'b7', 'c7', 'a8', 'b8')
    again, _ = render_frame(placement, "7x8", scene, np.random.default_rng(5), stones=None,
                            noise_rng=None)
    assert np.array_equal(img, again)


def _table(board="9x9", seed=3, noise=0.0, jpeg=None, size=(640, 480)):
    nrng = np.random.default_rng(seed)
    scene = random_scene(nrng, board, image_size=size, hard=False, hand=False)
    scene = replace(scene, noise_sigma=noise, **({} if jpeg is None else {"jpeg_quality": jpeg}))
    camera = TableCamera(board, scene, seed=seed)
    table = PhysicalBoard.from_position(Position.start(board), np.random.default_rng(seed),
                                        jitter=0.06, stacking=0.04)
    return camera, table


def test_persistent_stones_pixel_identical_without_noise():
    camera, table = _table(noise=0.0)   # JPEG stays on: deterministic too
    assert camera.scene.jpeg_quality
    a, ta = camera.frame(table)
    b, tb = camera.frame(table)
    assert np.array_equal(a, b)
    assert ta.top_centres == tb.top_centres
    # The stones really are off their cell centres (jitter), yet stay put.
    offs = [np.abs(d[0] - cell_centre(c)).max() for c, d in table.stones().items()]
    assert max(offs) > 0.02


def test_persistent_stones_differ_by_sensor_noise_only():
    camera, table = _table(noise=3.0, jpeg=0)
    a, _ = camera.frame(table)
    b, _ = camera.frame(table)
    diff = a.astype(float) - b.astype(float)
    assert not np.array_equal(a, b)
    # Two independent N(0, 3) draws: difference s.d. 3 * sqrt(2) ~ 4.2 (less where clipped).
    assert 3.0 < diff.std() < 4.6
    assert abs(diff.mean()) < 0.1
    # The default path re-jitters every stone per frame: far larger changes at stones.
    scene = replace(camera.scene, jitter=0.06, stacking=0.04)
    placement = table.placement()
    c, truth = render_frame(placement, "9x9", scene, np.random.default_rng(1))
    d, _ = render_frame(placement, "9x9", scene, np.random.default_rng(2))
    moved = np.mean([np.abs(_box(c, truth, cell) - _box(d, truth, cell)).mean() for cell in placement])
    still = np.mean([np.abs(_box(a, truth, cell) - _box(b, truth, cell)).mean() for cell in placement])
    assert moved > 2 * still


@pytest.mark.parametrize("board", ["9x9", "7x8"])
def test_stacking_move_changes_landing_cell_only(board):
    camera, table = _table(board=board, seed=8, noise=0.0)
    position = Position.start(board)
    # A setup move onto a stack away from the board's edge cells.
    move = next(m for m in sorted(legal_moves(position)) if m.stacking)
    before, truth = camera.frame(table)
    under = table.stones()[move.to_cell].copy()
    table.play(move)
    after, _ = camera.frame(table)
    assert table.placement() == apply(position, move).stacks()
    discs = table.stones()[move.to_cell]
    assert len(discs) == 2 and np.array_equal(discs[0], under[0])
    assert 0 < np.linalg.norm(discs[1] - discs[0]) < 0.3
    assert move.from_cell not in table.stones()
    # The landing stack's picture changes (one stone higher: sides, parallax, offset).
    changed = np.abs(_box(after, truth, move.to_cell) - _box(before, truth, move.to_cell))
    assert changed.mean() > 3.0 and (changed.max(axis=2) > 40).sum() > 20
    # Cells two or more cells away from the move's cells are untouched.
    touched = [cell_index(c) for c in (move.from_cell, move.to_cell)]
    far = [c for c in cell_names(board)
           if min(max(abs(cell_index(c)[0] - f), abs(cell_index(c)[1] - r)) for f, r in touched) >= 2]
    assert len(far) > 30
    for cell in far:
        assert np.array_equal(_box(after, truth, cell, 0.4), _box(before, truth, cell, 0.4)), cell


@pytest.mark.parametrize("seed", range(6))
def test_hand_tip_lands_over_the_requested_cell(seed):
    rng = np.random.default_rng(seed)
    board = "9x9" if seed % 2 else "7x8"
    scene = random_scene(rng, board, hard=True, hand=False)   # tilt, distortion too
    names = cell_names(board)
    for cell in [names[int(i)] for i in rng.choice(len(names), 4, replace=False)]:
        for angle in (0.0, 90.0, 200.0, 270.0 + rng.uniform(-40, 40)):
            tip = tuple(cell_centre(cell) + rng.uniform(-0.05, 0.05, 2))
            shot = replace(scene, hand=True, hand_tip=tip, hand_angle_deg=float(angle))
            img, truth = render_frame({}, board, shot, np.random.default_rng(0))
            x, y = truth.cell_centres[cell]
            assert truth.hand_mask[int(round(y)), int(round(x))] > 0, (cell, angle)
            assert cell in truth.occluded_cells


def test_hand_tip_none_is_the_old_hand():
    rng = np.random.default_rng(4)
    scene = random_scene(rng, "9x9", hand=True)
    a, _ = render_frame({}, "9x9", scene, np.random.default_rng(1))
    b, _ = render_frame({}, "9x9", replace(scene, hand_tip=None), np.random.default_rng(1))
    assert np.array_equal(a, b)


def _plies_shown(plies, battle_plies, still_frames, **shown):
    """A random 7x8 game's first ``plies`` plies shown by ``ply_frames`` (three hand
    frames, then ``still_frames`` still ones, as ``shown`` asks): per ply, the move, the
    game after it, the hand frames and the still frames, each a (picture, truth) pair."""
    camera, table = _table(board="7x8", seed=5, noise=0.0)
    rng = random.Random(3)
    game = Game(Position.start("7x8"))
    for move in random_game("7x8", rng, battle_plies=battle_plies)[:plies]:
        side = game.position.side
        frames = list(ply_frames(camera, table, move, side, rng, hand_frames=3,
                                 still_frames=still_frames, **shown))
        game.push(move)
        assert len(frames) == 3 + still_frames
        hands, stills = frames[:3], frames[3:]
        assert all(t.hand for _, t in hands) and not any(t.hand for _, t in stills)
        yield move, game, hands, stills
    assert table.placement() == game.position.stacks()


def test_ply_frames_hand_ends_over_landing_cell_from_movers_side():
    for move, game, hands, stills in _plies_shown(14, battle_plies=6, still_frames=3):
        last = hands[-1][1]
        x, y = last.cell_centres[move.to_cell]
        assert last.hand_mask[int(round(y)), int(round(x))] > 0, move
        assert last.placement == game.position.stacks()          # the stone is down
        assert hands[0][1].placement == game.positions[-2].stacks()
        assert all(np.array_equal(stills[0][0], f) for f, _ in stills[1:])
        assert stills[0][1].placement == game.position.stacks()


def test_ply_frames_withdrawing_shows_the_hand_pulling_back_last():
    for move, game, hands, stills in _plies_shown(4, battle_plies=0, still_frames=2,
                                                  withdrawing=1):
        over, back = hands[1][1], hands[2][1]
        x, y = over.cell_centres[move.to_cell]
        assert over.hand_mask[int(round(y)), int(round(x))] > 0, move
        assert over.placement == back.placement == game.position.stacks()
        # Pulled back: the hand covers less of the board than over the landing.
        assert (back.hand_mask > 0).sum() != (over.hand_mask > 0).sum()
    camera, table = _table(board="7x8", seed=5, noise=0.0)
    with pytest.raises(ValueError):
        list(ply_frames(camera, table, move, game.position.side, random.Random(3),
                        hand_frames=2, withdrawing=2))


def test_withdrawal_tips_pull_back_towards_the_player_or_to_a_side():
    rng = random.Random(7)
    land = np.array([3.5, 4.5])
    for _ in range(300):
        angle = mover_angle(rng.choice(("red", "black")), rng)
        arm = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        tips = list(withdrawal_tips(land, angle, rng, 2))
        assert len(tips) == 2
        first, second = (np.hypot(*(t - land)) for t in tips)
        assert 0.3 < first < second < 3.7
        # Never back over the board beyond the landing: towards the arm, or across it.
        assert (tips[-1] - land) @ arm > 0
    assert list(withdrawal_tips(land, 270.0, rng, 0)) == []


def test_mover_angle_comes_from_the_movers_side():
    rng = random.Random(0)
    for _ in range(200):
        red, black = mover_angle("red", rng), mover_angle("black", rng)
        assert np.sin(np.radians(red)) < 0 < np.sin(np.radians(black))


def test_physical_board_moves_keep_offsets_and_remove_captured():
    board = "7x8"
    moves = random_game(board, random.Random(11), battle_plies=30)
    table = PhysicalBoard.from_position(Position.start(board), np.random.default_rng(2), 0.05, 0.03)
    game = Game(Position.start(board))
    for move in moves:
        before = {c: d.copy() for c, d in table.stones().items()}
        table.play(move)
        game.push(move)
        after = table.stones()
        assert table.placement() == game.position.stacks()
        if not move.stacking:
            old, new = before[move.from_cell], after[move.to_cell]
            assert np.allclose(new - new[0], old - old[0])          # relative offsets kept
            assert np.abs(new[0] - cell_centre(move.to_cell)).max() <= 0.05 + 1e-12
            for cell in move.captured:
                assert cell not in after
        for cell in set(before) & set(after) - set(move.path):
            assert np.array_equal(before[cell], after[cell])          # nothing else moves


def test_random_game_plays_setup_and_battle_stacking():
    for board in ("7x8", "9x9"):
        moves = random_game(board, random.Random(4), battle_plies=10)
        assert all(m.stacking for m in moves[:10])
        assert len(moves) == 20
        assert battle_stacking(moves, Position.start(board))   # a General or King made

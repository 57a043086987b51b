"""Stack heights on generated frames, checked against the generator's truth."""
import numpy as np
import pytest

from fenix_tools.sim import SceneParams, random_placement, random_scene, render_frame
from fenix_table.board import cell_index, cell_names
from fenix_table.rules import Position
from fenix_table.vision.cells import CellReader, calibrate_reader
from fenix_table.vision.types import Calibration

LIGHT_7X8 = dict(board_color=(0.70, 0.75, 0.80), line_color=(0.10, 0.10, 0.10))


def true_calibration(truth, size):
    return Calibration(truth.board, size, tuple(map(tuple, truth.corners)), oriented=True)


def claimed_heights(obs):
    return {c: r.height for c, r in obs.cells.items() if r.height is not None}


def wrong_heights(claimed, placement):
    return [c for c, h in claimed.items() if placement.get(c, (None, None))[1] != h]


def checkerboard_of_stacks(board):
    """Red and black stacks of 1, 2 and 3 on every other cell, so each height is seen
    everywhere, near the nadir and far from it, with board around every stack."""
    names = [n for n in cell_names(board) if sum(cell_index(n)) % 2 == 0]
    return {n: (("red", "black")[(i // 3) % 2], 1 + i % 3) for i, n in enumerate(names)}


@pytest.mark.parametrize("board, extra", [("9x9", {}), ("7x8", LIGHT_7X8)])
def test_claimed_heights_are_right_far_from_the_nadir_and_unknown_near_it(board, extra):
    rng = np.random.default_rng(41)
    # A low, wide camera: far from the nadir one stone shifts the top by well over the
    # allowance for a hand-stacked stone sitting off-centre (HeightConfig.misalign).
    scene = SceneParams(image_size=(1280, 960), fov_deg=75.0, camera_height=10.0, tilt_deg=5.0,
                        yaw_deg=30.0, jitter=0.03, **extra)
    placement = checkerboard_of_stacks(board)
    bgr, truth = render_frame(placement, board, scene, rng)
    cal = true_calibration(truth, scene.image_size)
    claimed = claimed_heights(CellReader(cal).read(bgr))
    assert wrong_heights(claimed, placement) == []
    assert {1, 2, 3} <= set(claimed.values())
    assert len(claimed) >= 0.15 * len(placement)
    # Near the camera's nadir a stack's top hardly moves: its height is never claimed.
    nadir = np.array(truth.camera_centre[:2])
    near = [c for c in placement if np.linalg.norm(np.array(cell_index(c)) + 0.5 - nadir) < 1.5]
    assert near and not any(c in claimed for c in near)
    # Off-centre stacks, where one stone shifts the top by a good part of a stone's
    # thickness, mostly show their height.
    far = [c for c in placement if placement[c][0] == "red"
           and np.linalg.norm(np.array(cell_index(c)) + 0.5 - nadir) > 4.0]
    assert sum(c in claimed for c in far) >= 0.5 * len(far)


@pytest.mark.parametrize("thickness", [0.18, 0.26])
def test_thin_and_thick_stone_sets_are_read_without_a_start_frame(thickness):
    # The nominal thickness is 0.22 cells: each frame's stacks tell their own.
    rng = np.random.default_rng(43)
    scene = SceneParams(image_size=(1280, 960), fov_deg=75.0, camera_height=10.0, tilt_deg=5.0,
                        yaw_deg=30.0, jitter=0.03, stone_thickness=thickness, **LIGHT_7X8)
    placement = checkerboard_of_stacks("7x8")
    bgr, truth = render_frame(placement, "7x8", scene, rng)
    claimed = claimed_heights(CellReader(true_calibration(truth, scene.image_size)).read(bgr))
    assert wrong_heights(claimed, placement) == []
    assert len(claimed) >= 5 and {1, 2, 3} <= set(claimed.values())


def test_random_rooms_claim_no_wrong_height():
    claimed_total = 0
    for board, seed in (("9x9", 33), ("7x8", 34)):
        rng = np.random.default_rng(seed)
        for _ in range(6):
            scene = random_scene(rng, board, image_size=(1280, 960), hard=False, hand=False)
            placement = random_placement(rng, board)
            bgr, truth = render_frame(placement, board, scene, rng)
            claimed = claimed_heights(CellReader(true_calibration(truth, scene.image_size)).read(bgr))
            assert wrong_heights(claimed, placement) == []
            claimed_total += len(claimed)
    # Cameras 15-20 cells up show little parallax: claims are few, and must be right.
    assert claimed_total >= 6


def test_heights_claimed_are_right_with_a_calibrated_reader():
    rng = np.random.default_rng(9)
    # A low, wide camera: the outer stacks show several pixels of parallax per stone.
    scene = SceneParams(image_size=(1280, 960), fov_deg=75.0, camera_height=11.0, tilt_deg=6.0,
                        yaw_deg=20.0, stone_thickness=0.22, jitter=0.03)
    start, truth = render_frame(Position.start("9x9").stacks(), "9x9", scene, rng)
    cal = calibrate_reader(start, true_calibration(truth, scene.image_size), Position.start("9x9").stacks())
    placement = {c: (("red", "black")[i % 2], 1 + i % 3)
                 for i, c in enumerate(c for c in truth.cell_centres if (ord(c[0]) + int(c[1:])) % 2 == 0)}
    bgr, _ = render_frame(placement, "9x9", scene, rng)
    claimed = claimed_heights(CellReader(cal).read(bgr))
    assert wrong_heights(claimed, placement) == []
    assert len(claimed) >= 8 and {1, 2, 3} <= set(claimed.values())

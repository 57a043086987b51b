"""The frame generator: deterministic, exact ground truth, plausible pixels."""
import numpy as np
import pytest

from fenix_tools.sim import SceneParams, random_placement, random_scene, render_frame, render_sequence
from fenix_table.board import cell_names
from fenix_table.rules import Position


def test_same_seed_same_frame():
    scene = random_scene(np.random.default_rng(3), "9x9")
    a, ta = render_frame(Position.start("9x9").stacks(), "9x9", scene, np.random.default_rng(7))
    b, tb = render_frame(Position.start("9x9").stacks(), "9x9", scene, np.random.default_rng(7))
    assert np.array_equal(a, b)
    assert np.allclose(ta.corners, tb.corners)


@pytest.mark.parametrize("board", ["9x9", "7x8"])
def test_truth_corners_and_cells_follow_the_camera(board):
    scene = SceneParams(camera_height=20.0, yaw_deg=0.0)
    img, truth = render_frame({}, board, scene, np.random.default_rng(0))
    assert img.shape == (480, 640, 3) and img.dtype == np.uint8
    # Straight down, no yaw: a1 is bottom-left, rank 1 runs to the right.
    a1, w0, wh, h0 = truth.corners
    assert a1[0] < w0[0] and abs(a1[1] - w0[1]) < 1e-6
    assert wh[1] < w0[1] and abs(h0[0] - a1[0]) < 1e-6
    assert set(truth.cell_centres) == set(cell_names(board))
    # The cell centre a1 lies inside the a1 corner cell of the quad.
    cx, cy = truth.cell_centres["a1"]
    assert a1[0] < cx < w0[0] and wh[1] < cy < a1[1]


def test_light_lines_on_9x9_dark_lines_on_7x8():
    rng = np.random.default_rng(5)
    for board, lines_lighter in (("9x9", True), ("7x8", False)):
        scene = random_scene(rng, board, hard=False, hand=False)
        img, truth = render_frame({}, board, scene, rng)
        gray = img.mean(axis=2)
        a1, w0 = truth.corners[0], truth.corners[1]
        # Sample along the rank-1 line and just inside the first row of cells.
        on = [gray[int(round(p[1])), int(round(p[0]))] for p in np.linspace(a1, w0, 30)[3:-3]]
        inward = truth.cell_centres["a1"] - a1
        off = [gray[int(round(p[1] + inward[1] * 0.6)), int(round(p[0] + inward[0] * 0.6))]
               for p in np.linspace(a1, w0, 30)[3:-3]]
        assert (np.median(on) > np.median(off)) == lines_lighter


def test_stones_show_their_colour_at_cell_centres():
    rng = np.random.default_rng(11)
    board = "9x9"
    scene = random_scene(rng, board, hard=False, hand=False)
    placement = Position.start(board).stacks()
    img, truth = render_frame(placement, board, scene, rng)
    for cell, (color, _) in placement.items():
        x, y = truth.cell_centres[cell]
        b, g, r = img[int(y), int(x)].astype(int)
        if color == "red":
            assert r > b + 20 and r > g + 20, cell


def test_hand_covers_cells_and_reports_them():
    rng = np.random.default_rng(2)
    scene = random_scene(rng, "7x8", hand=True)
    img, truth = render_frame(random_placement(rng, "7x8"), "7x8", scene, rng)
    assert truth.hand
    assert truth.occluded_cells
    assert set(truth.occluded_cells) <= set(cell_names("7x8"))
    assert truth.hand_mask is not None and truth.hand_mask.shape == img.shape[:2]


def test_large_frames_and_sequences():
    rng = np.random.default_rng(4)
    scene = random_scene(rng, "9x9", image_size=(1280, 960), hand=False)
    img, truth = render_frame({"e5": ("red", 3)}, "9x9", scene, rng)
    assert img.shape == (960, 1280, 3)
    assert np.all((truth.corners >= 0) & (truth.corners < [1280, 960]))
    small = random_scene(rng, "7x8", image_size=(320, 240), hand=False)
    frames = list(render_sequence([{}, {"a1": ("red", 1)}], "7x8", small, rng,
                                  frames_per_position=2, hand_frames=1))
    assert len(frames) == 5
    assert [t.hand for _, t in frames] == [False, False, True, False, False]


def test_tall_stacks_lean_away_from_the_image_centre():
    # Parallax: a stack's top disc is nearer the camera, so it appears further out from the
    # principal point than its cell centre, and more so for a taller stack.
    scene = SceneParams(camera_height=12.0, jitter=0.0)
    placement = {"a1": ("red", 1), "i9": ("black", 3)}
    img, truth = render_frame(placement, "9x9", scene, np.random.default_rng(0))
    centre = np.array([320.0, 240.0])
    for cell, stack_height in (("a1", 1), ("i9", 3)):
        base = np.array(truth.cell_centres[cell])
        top = np.array(truth.top_centres[cell])
        out = np.linalg.norm(top - centre) - np.linalg.norm(base - centre)
        assert out > 0.8 * stack_height
    # The top disc shows the stone's colour where the parallax put it.
    x, y = truth.top_centres["a1"]
    b, g, r = img[int(round(y)), int(round(x))].astype(int)
    assert r > b + 30


def test_every_cell_under_the_hand_is_listed_and_strays_stay_off_the_record():
    rng = np.random.default_rng(8)
    scene = random_scene(rng, "9x9", hand=True)
    from dataclasses import replace
    scene = replace(scene, stray_stones=3, hand_reach=4.0)
    placement = random_placement(rng, "9x9")
    img, truth = render_frame(placement, "9x9", scene, rng)
    assert truth.placement == placement
    h, w = truth.hand_mask.shape
    under = {cell for cell, (x, y) in truth.cell_centres.items()
             if 0 <= x < w and 0 <= y < h and truth.hand_mask[int(y), int(x)]}
    assert under and under <= set(truth.occluded_cells)
    assert truth.hand_mask.mean() > 0

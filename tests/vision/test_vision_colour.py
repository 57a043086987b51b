"""The colour model: reading rooms and boards the classifier was not fitted on."""
import numpy as np
import pytest

from fenix_tools.sim import SceneParams, random_placement, render_frame
from fenix_table.board import cell_name, cell_names, dimensions
from fenix_table.rules import Position
from fenix_table.vision.cells import CellReader, calibrate_reader
from fenix_table.vision.colour import (CLASSES, FEATURES, LOOK_CLIP, LOOK_SHRINK, LOOK_WEIGHT, Room, cell_patches,
                                       cell_pixels, frame_labels, layout_labels, masks, row_median, sample_median)
from fenix_tools.training import scene_rows
from fenix_table.vision.types import Calibration


def true_calibration(truth, size):
    return Calibration(truth.board, size, tuple(map(tuple, truth.corners)), oriented=True)


def colour_errors(obs, placement):
    return [c for c, r in obs.cells.items() if r.color != placement.get(c, ("empty", 0))[0]]


def shadowed_layout(rng):
    """Tall stacks with an empty cell on their shadow side (the light comes from +x, so
    shadows fall towards file a) and single black stones all around them."""
    placement = {}
    for rank in (1, 4, 7):
        for file in (2, 6):
            placement[cell_name(file, rank)] = (("red", "black")[int(rng.integers(2))], 3)
            placement[cell_name(file + 1, rank)] = ("black", 1)
            placement[cell_name(file, rank + 1)] = ("black", 1)
            placement[cell_name(file - 2, rank)] = ("black", 1)
    return placement


def test_black_stones_on_a_dark_face_in_dim_light_beside_tall_shadows():
    rng = np.random.default_rng(3)
    scene = SceneParams(image_size=(1280, 960), board_color=(0.12, 0.12, 0.15), black_color=(0.05, 0.05, 0.05),
                        light_intensity=0.45, light_azimuth_deg=0.0, light_elevation_deg=40.0, ambient=0.4,
                        shadow_softness=3.0, stone_thickness=0.25, noise_sigma=4.0, jpeg_quality=80)
    start, truth = render_frame(Position.start("9x9").stacks(), "9x9", scene, rng)
    cal = true_calibration(truth, scene.image_size)
    fitted = calibrate_reader(start, cal, Position.start("9x9").stacks())
    wrong_default = wrong_calibrated = 0
    for _ in range(2):
        placement = shadowed_layout(rng)
        bgr, _ = render_frame(placement, "9x9", scene, rng)
        wrong_default += len(colour_errors(CellReader(cal).read(bgr), placement))
        wrong_calibrated += len(colour_errors(CellReader(fitted).read(bgr), placement))
    # The shadow of a tall stack on an empty cell can still pass for a black stone
    # out of the box; the start frame's class means tell them apart.
    assert wrong_calibrated <= 1 and wrong_default <= 0.03 * 2 * 81


def test_a_room_outside_the_training_ranges_is_read():
    # Smaller, orange-red stones, grey "black" stones as light as a green face, a wide
    # lens close to the board, strong vignetting: none of it in the training rooms.
    rng = np.random.default_rng(9)
    scene = SceneParams(image_size=(1280, 960), fov_deg=80.0, camera_height=11.0, board_color=(0.08, 0.22, 0.06),
                        line_color=(0.7, 0.75, 0.7), red_color=(0.1, 0.3, 0.95), black_color=(0.15, 0.15, 0.15),
                        stone_radius=0.31, vignette=0.45, light_color=(0.7, 0.95, 1.2), noise_sigma=3.0,
                        jpeg_quality=70)
    wrong = cells = 0
    for _ in range(3):
        placement = random_placement(rng, "9x9")
        bgr, truth = render_frame(placement, "9x9", scene, rng)
        wrong += len(colour_errors(CellReader(true_calibration(truth, scene.image_size)).read(bgr), placement))
        cells += 81
    assert wrong <= 0.02 * cells


def test_frame_labels_come_from_confident_cells_and_need_every_class():
    P = np.full((10, 3), 0.02)
    P[np.arange(10), [0, 0, 0, 1, 1, 1, 2, 2, 2, 0]] = 0.96
    P[9] = (0.5, 0.3, 0.2)                       # unsure: left out
    assert frame_labels(P).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, -1]
    # Too few sure black cells (a dark face in dim light): the cells read black at all.
    P[6:8] = (0.3, 0.2, 0.5)
    assert frame_labels(P).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, -1]
    P[6:9] = (0.02, 0.96, 0.02)                  # no black cell
    assert frame_labels(P) is None


def test_room_looks_weigh_steady_pixels_and_shift_the_odds_within_their_cap():
    # Looks of 2x2 pixels: a black stone darkens the first pixel and casts a shadow on
    # the last; the other two pixels are all noise and must weigh little.
    rng = np.random.default_rng(0)
    empty, black = np.zeros(12), np.zeros(12)
    black[0:3], black[9] = -6.0, -3.0
    red = np.r_[np.full(9, 20.0), 0, 0, 0]
    looks = np.vstack([empty, red, black])[np.repeat([0, 1, 2], 30)]
    looks[:, 3:9] += rng.normal(0, 5.0, (90, 6))
    looks[:, [0, 1, 2, 9, 10, 11]] += rng.normal(0, 0.5, (90, 6))
    labels = np.repeat([0, 1, 2], 30)
    room = Room.learn(np.zeros((90, len(FEATURES))), looks, labels)
    assert room.weights[0] > 5 * room.weights[4]
    # Each pixel's spread among cells of one class, shrunk toward its channel's spread
    # over every pixel of that channel.
    spread = looks - room.looks[labels]
    per_channel = spread.reshape(90, -1, 3).var(axis=(0, 1))
    var = (1 - LOOK_SHRINK) * spread.var(axis=0) + LOOK_SHRINK * np.tile(per_channel, 4)
    assert np.allclose(room.weights, 1.0 / (var + 1e-3), rtol=1e-12, atol=0)
    odds = room.look_odds(looks)
    assert (odds[:, 0] == 0).all() and np.abs(odds).max() <= LOOK_WEIGHT * LOOK_CLIP
    # Black against empty: every cell on its own class's side, most by the full cap.
    assert ((odds[:, 2] > 0) == (labels == 2)).all()
    assert np.median(odds[labels == 2, 2]) == pytest.approx(LOOK_WEIGHT * LOOK_CLIP)
    assert (odds[labels == 1, 1] > 0).all() and (odds[labels == 0, 1] < 0).all()
    # A JSON round trip keeps it.
    again = Room.from_json(room.to_json())
    assert np.allclose(again.looks, room.looks, atol=1e-3)
    with pytest.raises(ValueError, match="not this colour model"):
        Room.from_json({"means": {}, "looks": {}, "weights": []})


def test_a_frame_without_black_stones_still_reads():
    rng = np.random.default_rng(4)
    scene = SceneParams(board_color=(0.1, 0.12, 0.16))
    width, height = dimensions("9x9")
    placement = {cell_name(f, r): ("red", 1) for f in range(width) for r in range(height) if (f + r) % 3 == 0}
    bgr, truth = render_frame(placement, "9x9", scene, rng)
    obs = CellReader(true_calibration(truth, scene.image_size)).read(bgr)
    assert not colour_errors(obs, placement)
    assert {r.color for r in obs.cells.values()} <= set(CLASSES)


def test_training_rows_are_the_readers_features_with_the_layouts_labels():
    board, start_X, start_y, game_X, game_y = next(scene_rows(1, 3))
    names = cell_names(board)
    assert start_X.shape == game_X.shape == (len(names), len(FEATURES))
    assert np.isfinite(start_X).all() and np.isfinite(game_X).all()
    assert start_y.tolist() == layout_labels(Position.start(board).stacks(), names).tolist()
    assert set(game_y.tolist()) <= {0, 1, 2} and len(game_y) == len(names)


@pytest.mark.parametrize("n", [63, 64, 156, 157])
def test_sample_median_is_numpys_median(n):
    rng = np.random.default_rng(n)
    samples = (rng.random((81, n, 3)) * 100).astype(np.float32)
    samples[:, : n // 3] = 50.0                 # ties
    assert np.array_equal(sample_median(samples), np.median(samples, axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_median_of_one_row_and_of_ties(dtype):
    assert row_median(np.array([3.0, 1.0, 2.0, 10.0], dtype)) == dtype(2.5)
    assert row_median(np.array([[4.0, 4.0, 1.0, 9.0]], dtype)).tolist() == [4.0]


@pytest.mark.parametrize("board", ["9x9", "7x8"])
def test_cell_pixels_are_each_cells_patch_row_by_row(board):
    width, height = dimensions(board)
    ppc, pad = 8, 4
    image = np.arange((2 * pad + height * ppc) * (2 * pad + width * ppc), dtype=np.int64).reshape(
        2 * pad + height * ppc, 2 * pad + width * ppc)
    at = cell_pixels(image.shape, width, height, ppc, pad)
    assert np.array_equal(image.ravel()[at["all"]], cell_patches(image[..., None], width, height, ppc, pad)[..., 0])
    m = masks(ppc)
    assert np.array_equal(at["centre"], at["all"][:, m["centre"]])

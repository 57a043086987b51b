"""Corner stickers: four ArUco markers at the grid's corners give the grid and a1."""
from dataclasses import replace

import numpy as np
import pytest

from fenix_table.board import dimensions
from fenix_table.errors import BoardNotFoundError
from fenix_tools.sim import random_placement, random_scene, render_frame
from fenix_tools.sim.stickers import with_stickers
from fenix_table.vision.stickers import locate_by_stickers


def scene_and_frame(seed, board, table="busy"):
    rng = np.random.default_rng(seed)
    scene = replace(random_scene(rng, board, image_size=(1280, 960), hand=False, table=table), distortion_k1=0.0)
    bgr, truth = render_frame(random_placement(rng, board), board, scene, rng)
    return bgr, truth, scene


@pytest.mark.parametrize("seed,board", [(3, "7x8"), (4, "9x9"), (1, "7x8")])
def test_stickers_give_the_grid_and_a1(seed, board):
    bgr, truth, scene = scene_and_frame(seed, board)
    cal = locate_by_stickers(with_stickers(bgr, scene, board), board)
    assert cal.oriented and cal.board == board
    width, height = dimensions(board)
    found = cal.to_image([[0, 0], [width, 0], [width, height], [0, height]])
    # In order: marker 0 is at a1's corner.
    assert np.linalg.norm(found - truth.corners, axis=1).max() < 2.0


def test_a_missing_sticker_is_named():
    bgr, truth, scene = scene_and_frame(5, "7x8")
    with pytest.raises(BoardNotFoundError, match="sticker 2 not seen"):
        locate_by_stickers(with_stickers(bgr, scene, "7x8", ids=(0, 1, 3)), "7x8")

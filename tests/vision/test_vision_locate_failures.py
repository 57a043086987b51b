"""Failure modes of the locator that were fixed, each on generated frames: the board's
own grid refused for a printed border line in a narrow margin, and a 7x8 grid taken
with its axes the other way round on wood grain that runs with the lines."""
import os
import sys
from dataclasses import replace

import numpy as np
import pytest

from fenix_table.board import dimensions
from fenix_table.vision.locate import board_extent, locate_board
from fenix_table.vision.types import Calibration
from fenix_tools.sim import random_placement, random_scene, render_frame


def cell_pixels(truth):
    edges = np.diff(np.vstack([truth.corners, truth.corners[:1]]), axis=0)
    return float(np.linalg.norm(edges, axis=1).mean() / np.mean(dimensions(truth.board)))


def corner_error(cal, truth):
    width, height = dimensions(cal.board)
    found = cal.to_image([[0, 0], [width, 0], [width, height], [0, height]])
    return min(np.linalg.norm(np.roll(found, -k, axis=0) - truth.corners, axis=1).mean() for k in range(4))


def shifted(cal, files, ranks):
    width, height = dimensions(cal.board)
    box = np.array([[0, 0], [width, 0], [width, height], [0, height]], float) + (files, ranks)
    return replace(cal, corners=tuple(map(tuple, cal.to_image(box))))


def bordered_frame(border, margin):
    """A 7x8 board whose printed border line runs ``border`` cells outside the grid and
    whose edge is ``margin`` cells out: at the work size border and grid line all but
    merge, and the margin beyond the border is a pixel or two."""
    rng = np.random.default_rng(1)
    scene = random_scene(rng, "7x8", image_size=(1280, 960))
    scene = replace(scene, margin=margin, border_line=border, line_width=0.12, distortion_k1=0.0)
    return render_frame(random_placement(rng, "7x8"), "7x8", scene, rng)


@pytest.mark.parametrize("border,margin", [(0.15, 0.3), (0.2, 0.32)])
def test_a_border_line_in_a_narrow_margin_still_counts_as_the_boards_margin(border, margin):
    # The margin used to be judged on a run 0.15-0.27 cells out, by its median colour:
    # here that run is mostly the border line, and the board's own grid was refused.
    bgr, truth = bordered_frame(border, margin)
    cal = Calibration("7x8", (1280, 960), tuple(map(tuple, truth.fitted_corners())))
    assert board_extent(cal, bgr)["on_board"] == 1.0
    for files, ranks in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        assert board_extent(shifted(cal, files, ranks), bgr)["on_board"] == 0.0, (files, ranks)
    found = locate_board(bgr)
    assert found.board == "7x8"
    assert corner_error(found, truth) < cell_pixels(truth) / 3


@pytest.mark.slow
def test_a_7x8_grid_on_wood_grain_is_not_taken_with_its_axes_swapped():
    # Frame 167 of bench_locate.py --table busy (seed 1): the grain running with the
    # files made a 8x7 grid one line too wide (and one too short) outscore the board's.
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    from bench_locate import make_frames
    for bgr, truth in make_frames(168, seed=1, table="busy"):
        pass                             # (the frames come from one random stream: keep the last)
    assert truth.board == "7x8" and not truth.hand
    found = locate_board(bgr)
    assert found.board == "7x8"
    assert corner_error(found, truth) < cell_pixels(truth) / 3

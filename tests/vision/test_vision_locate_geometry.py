"""The locator's geometry: points through a homography, samples, line crossings, the lens scan."""
import cv2
import numpy as np

from fenix_table.vision.locate import (DEFAULT, _combs, _crookedness, _crossings, _grid_corners,
                                       _homography_from_lines, _lens_k1, _line_through, _outline_grids, _project,
                                       _sample, _score, _scores)
from fenix_table.vision.types import distort_points

SIZE = (1280, 960)


def _homography(seed):
    rng = np.random.default_rng(seed)
    board = np.array([[0, 0], [9, 0], [9, 9], [0, 9]], np.float32)
    image = np.array([[300, 200], [950, 230], [980, 820], [260, 780]], np.float32) + rng.normal(0, 20, (4, 2))
    return cv2.getPerspectiveTransform(board, image.astype(np.float32))


def test_points_go_through_the_homography_as_opencv_takes_them():
    Hm = _homography(1)
    pts = np.random.default_rng(2).uniform(-1, 10, (500, 2))
    expected = cv2.perspectiveTransform(pts[None], Hm)[0]
    assert np.abs(_project(Hm, pts) - expected).max() < 1e-9


def test_many_grids_score_as_each_alone():
    # A drawn grid's line image: the grids near it score high, the others low.
    lines = np.zeros((960, 1280), np.float32)
    drawn = _homography(0)
    for i in range(10):
        for ends in (((i, 0), (i, 9)), ((0, i), (9, i))):
            a, b = _project(drawn, np.array(ends, float))
            cv2.line(lines, tuple(map(int, np.round(a))), tuple(map(int, np.round(b))), 40.0, 3)
    grids = [_homography(seed) for seed in range(5)]
    together = _scores(lines, grids, 9, 9)
    alone = [_score(lines, Hm, 9, 9) for Hm in grids]
    assert np.allclose(together, alone, rtol=1e-5, atol=1e-6)     # (float32 sums, added in another order)
    assert together[0] > 0.5 > max(together[1:])


def test_samples_are_the_nearest_pixel_and_zero_outside_the_image():
    img = np.arange(12, dtype=np.float32).reshape(3, 4)
    pts = np.array([[0.2, 0.4], [2.6, 1.4], [3.4, 2.0], [-0.6, 1.0], [1.0, 2.6], [1e12, 1.0]])
    vals, inside = _sample(img, pts)
    assert inside.tolist() == [True, True, True, False, False, False]
    assert vals.tolist() == [0.0, 7.0, 11.0, 0.0, 0.0, 0.0]


def test_every_line_crosses_every_other_family_line_and_parallels_do_not():
    # x = 3, y = 5, and x + y = 10 against y = 1 and y = 2 (parallel to the second).
    la = np.array([[1.0, 0.0, 3.0], [0.0, 1.0, 5.0], [1.0, 1.0, 10.0]])
    lb = np.array([[0.0, 1.0, 1.0], [0.0, 2.0, 4.0]])
    points, cross = _crossings(la, lb)
    assert cross.tolist() == [[True, True], [False, False], [True, True]]
    assert np.allclose(points[0], [[3, 1], [3, 2]]) and np.allclose(points[2], [[9, 1], [8, 2]])


def _bent_lines(k1):
    """Ridge points of a straight 9x9 grid seen through a lens of ``k1``, by line."""
    Hm = _homography(4)
    t = np.linspace(0, 9, 60)
    lines = []
    for i in range(10):
        for pts in (np.column_stack([np.full_like(t, i), t]), np.column_stack([t, np.full_like(t, i)])):
            lines.append(distort_points(_project(Hm, pts), k1, SIZE))
    return np.vstack(lines), np.repeat(np.arange(len(lines)), 60), lines


def test_the_lens_scan_weighs_several_k1_at_once_as_each_alone():
    points, line, _ = _bent_lines(0.08)
    figures = _crookedness(points, line, SIZE)
    k1s = [-0.2, 0.0, 0.05, 0.08, 0.3]
    together = figures(k1s)
    alone = [figures(k)[0] for k in k1s]
    assert np.allclose(together, alone, rtol=1e-12, atol=1e-15)
    # The lines are straight again only through the lens that bent them.
    assert int(np.argmin(together)) == 3 and together[3] < 1e-6 < together[1]


def test_the_lens_is_the_k1_that_straightens_the_lines():
    _, _, lines = _bent_lines(0.08)
    families = [dict(enumerate(lines[0::2])), dict(enumerate(lines[1::2]))]
    assert abs(_lens_k1(families, SIZE, DEFAULT) - 0.08) < 0.002
    _, _, straight = _bent_lines(0.0)
    assert _lens_k1([dict(enumerate(straight[0::2])), dict(enumerate(straight[1::2]))], SIZE, DEFAULT) == 0.0


def test_a_comb_of_equally_spaced_lines_is_found_in_a_profile():
    # Ten faint lines 13.5 apart from 21 on (blurred, as the line image the outline
    # search sees), in noise, with three broad bumps twice as strong between them (a
    # crowd of stones' rims).
    rng = np.random.default_rng(3)
    profile = rng.uniform(0, 0.5, 160).astype(np.float32)
    for k in range(10):
        profile[int(round(21 + 13.5 * k))] += 2.0
    for bump in (55, 75, 102):
        profile[bump - 4:bump + 5] += 2.0
    profile = cv2.GaussianBlur(profile[None], (0, 0), 1.0)[0]
    best = _combs(profile, 10, 80, 3)
    first, spacing = best[0]
    assert abs(first - 21) <= 0.5 and abs(spacing - 13.5) <= 0.25
    # One of the bumps just outside the first line reads as a line too: the comb one
    # line over is among the best three as well, and the grids' fit decides.
    profile[4:13] += 2.0
    assert any(abs(f - 21) <= 0.5 and abs(d - 13.5) <= 0.25 for f, d in _combs(profile, 10, 80, 3))


def test_the_grid_inside_a_board_outline_is_among_its_candidates():
    # A 7x8 grid drawn in a board whose outline is known to a few pixels: the grid is
    # among the candidates, in the image's coordinates (the search ranks and checks them).
    lines = np.zeros((480, 640), np.float32)
    board = np.array([[0, 0], [7, 0], [7, 8], [0, 8]], np.float32)
    grid = np.array([[200, 90], [430, 110], [450, 380], [180, 370]], np.float32)
    drawn = cv2.getPerspectiveTransform(board, grid)
    for i in range(8):
        a, b = _project(drawn, np.array([[i, 0], [i, 8]], float))
        cv2.line(lines, tuple(map(int, np.round(a))), tuple(map(int, np.round(b))), 30.0, 1)
    for j in range(9):
        a, b = _project(drawn, np.array([[0, j], [7, j]], float))
        cv2.line(lines, tuple(map(int, np.round(a))), tuple(map(int, np.round(b))), 30.0, 1)
    # The board's edge half a cell beyond the grid, seen 3 pixels out at one corner.
    outline = _project(drawn, np.array([[-0.5, -0.5], [7.5, -0.5], [7.5, 8.5], [-0.5, 8.5]], float))
    outline[2] += 3
    found = _outline_grids(cv2.GaussianBlur(lines, (0, 0), 1.0), [outline], "7x8", DEFAULT)
    assert {(na, nb) for _, na, nb in found} == {(7, 8), (8, 7)}
    assert len(found) <= 2 * 3 * 3
    assert min(np.abs(_grid_corners(Hm, 7, 8) - grid).max() for Hm, na, nb in found if (na, nb) == (7, 8)) < 3


def test_a_line_snapped_to_a_border_line_does_not_pull_the_grid():
    # Each fitted line through its ridge points; the last file line snapped to a printed
    # border line a fifth of a cell further out. The grid through the crossings still
    # lies on the other lines' crossings: the stray line's crossings are left out.
    Hm = _homography(3)
    rng = np.random.default_rng(4)
    t = np.linspace(0.1, 8.9, 12)
    def fitted(i, fam, shift=0.0):
        pts = np.stack([np.full_like(t, i + shift), t], -1) if fam == 0 else np.stack([t, np.full_like(t, i)], -1)
        return _line_through(_project(Hm, pts) + rng.normal(0, 0.3, (len(t), 2)))
    files = {i: fitted(i, 0, 0.2 if i == 9 else 0.0) for i in range(10)}
    ranks = {j: fitted(j, 1) for j in range(10)}
    found = _homography_from_lines(files, ranks)
    good = np.stack(np.meshgrid(np.arange(9), np.arange(10), indexing="ij"), -1).reshape(-1, 2).astype(float)
    assert np.abs(_project(found, good) - _project(Hm, good)).max() < 0.6

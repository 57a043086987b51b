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


def _segment_distance_reference(px, colour, lo, hi):
    """Each pixel's distance to its stack's dimmed colours, written out directly."""
    colour = colour.astype(np.float32)
    c2 = np.maximum((colour * colour).sum(axis=1), 1e-6)[:, None]
    xc = np.matmul(px, colour[:, :, None])[..., 0]
    x2 = np.einsum("spc,spc->sp", px, px)
    a = np.clip(xc / c2, lo[:, None], hi)
    return np.sqrt(np.maximum(x2 - 2 * a * xc + a * a * c2, 0.0))


def _fit_capsules_reference(q, valid, p, u, cfg):
    """The capsule fit with x and y written out separately, as first written."""
    S = len(q)
    qx, qy = q[..., 0], q[..., 1]
    ux, uy = u[:, 0:1], u[:, 1:2]
    cx, cy = p[:, 0].astype(float), p[:, 1].astype(float)
    R, s = np.full(S, 0.4), np.zeros(S)
    keep = valid.copy()
    J = np.empty(q.shape[:2] + (4,))
    J[..., 2] = -1.0

    def from_axis():
        dx, dy = qx - cx[:, None], qy - cy[:, None]
        a = dx * ux + dy * uy
        t = np.clip(a, 0.0, s[:, None])
        return dx, dy, a, dx - t * ux, dy - t * uy

    for it in range(6):
        dx, dy, a, relx, rely = from_axis()
        n = np.sqrt(relx * relx + rely * rely)
        nx, ny = relx / np.maximum(n, 1e-9), rely / np.maximum(n, 1e-9)
        r = n - R[:, None]
        if it == 3:
            ranked = np.sort(np.where(valid, np.abs(r), np.inf), axis=1)
            typical = np.minimum(ranked[np.arange(S), np.maximum(valid.sum(axis=1) - 1, 0) // 2], 1.0)
            keep = valid & (np.abs(r) < np.maximum(3.0 * typical, 0.015)[:, None])
        J[..., 0], J[..., 1] = -nx, -ny
        J[..., 3] = np.where(a >= s[:, None], -(nx * ux + ny * uy), 0.0)
        Jw = (J * keep[..., None]).transpose(0, 2, 1)
        JTJ = np.matmul(Jw, J) + 1e-9 * np.eye(4)
        delta = np.linalg.solve(JTJ, np.matmul(Jw, -r[..., None]))[..., 0]
        cx, cy, R = cx + delta[:, 0], cy + delta[:, 1], R + delta[:, 2]
        s = np.maximum(s + delta[:, 3], 0.0)
    dx, dy, a, relx, rely = from_axis()
    r = np.sqrt(relx * relx + rely * rely) - R[:, None]
    count = keep.sum(axis=1)
    rms = np.sqrt((r * r * keep).sum(axis=1) / np.maximum(count, 1))
    sigma = rms * np.sqrt(np.abs(np.linalg.inv(JTJ)[:, 3, 3]))
    mx, my = dx - 0.5 * s[:, None] * ux, dy - 0.5 * s[:, None] * uy
    cos = (mx * ux + my * uy) / np.maximum(np.sqrt(mx * mx + my * my), 1e-9)
    arcs = np.minimum(np.minimum(((cos < -0.7) & keep).sum(axis=1), ((cos > 0.7) & keep).sum(axis=1)),
                      ((np.abs(cos) < 0.5) & keep).sum(axis=1))
    good = (count >= cfg.min_points) & (arcs >= cfg.min_arc) & (R > 0.25) & (R < 0.55)
    return np.column_stack([cx, cy]), R, s, rms, sigma, good


def test_stack_outlines_are_measured_to_the_bit_as_written_out_directly(monkeypatch):
    # The height reader's arithmetic is arranged for speed (planes of x and y, in-place
    # steps, the channels summed by a matrix product); on a rendered frame every number
    # it gives is the one the direct formulas give.
    from fenix_table.vision import heights
    rng = np.random.default_rng(43)
    scene = SceneParams(image_size=(1280, 960), fov_deg=75.0, camera_height=10.0, tilt_deg=5.0,
                        yaw_deg=30.0, jitter=0.03)
    bgr, truth = render_frame(checkerboard_of_stacks("9x9"), "9x9", scene, rng)
    calls = {"distance": [], "fit": []}
    for name, key in (("_segment_distance", "distance"), ("_fit_capsules", "fit")):
        def recorded(*args, _fn=getattr(heights, name), _key=key):
            out = _fn(*args)
            calls[_key].append((args, out))
            return out
        monkeypatch.setattr(heights, name, recorded)
    reader = CellReader(true_calibration(truth, scene.image_size))
    assert claimed_heights(reader.read(bgr))
    assert len(calls["distance"]) == 2 and len(calls["fit"]) == 1
    for (px, x2, colour, lo, hi), out in calls["distance"]:
        assert np.array_equal(x2, np.einsum("spc,spc->sp", px, px))
        assert np.array_equal(out, _segment_distance_reference(px, colour, lo, hi))
    (args, out), = calls["fit"]
    for got, want in zip(out, _fit_capsules_reference(*args)):
        assert np.array_equal(got, want)

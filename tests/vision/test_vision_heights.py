"""Stack heights on generated frames, checked against the generator's truth."""
import numpy as np

from fenix_table.sim import SceneParams, render_frame
from fenix_table.vision.board import start_placement
from fenix_table.vision.cells import CellReader, calibrate_reader
from fenix_table.vision.types import Calibration


def true_calibration(truth, size):
    return Calibration(truth.board, size, tuple(map(tuple, truth.corners)), oriented=True)


def test_heights_claimed_are_right():
    rng = np.random.default_rng(9)
    # A low, wide camera: the outer stacks show several pixels of parallax per stone.
    scene = SceneParams(image_size=(1280, 960), fov_deg=75.0, camera_height=11.0, tilt_deg=6.0,
                        yaw_deg=20.0, stone_thickness=0.22, jitter=0.03)
    start, truth = render_frame(start_placement("9x9"), "9x9", scene, rng)
    cal = calibrate_reader(start, true_calibration(truth, scene.image_size), start_placement("9x9"))
    # The effective stone thickness (what the parallax measurement sees) is learnt.
    assert 0.5 < cal.height_scale < 1.5 and cal.height_scale != 1.0
    placement = {c: (("red", "black")[i % 2], 1 + i % 3)
                 for i, c in enumerate(c for c in truth.cell_centres if (ord(c[0]) + int(c[1:])) % 2 == 0)}
    bgr, _ = render_frame(placement, "9x9", scene, rng)
    obs = CellReader(cal).read(bgr)
    claimed = {c: r.height for c, r in obs.cells.items() if r.height is not None}
    wrong = [c for c, h in claimed.items() if placement.get(c, (None, None))[1] != h]
    assert len(claimed) >= 3
    assert len(wrong) <= 0.02 * len(claimed) + 1

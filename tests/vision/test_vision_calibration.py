"""Calibration: JSON round trip, clear errors on bad files, manual corners, geometry."""
import json

import numpy as np
import pytest

from fenix_table.errors import ConfigError
from fenix_tools.sim import SceneParams, render_frame
from fenix_table.vision.colour import FEATURES, Room
from fenix_table.vision.types import Calibration

CORNERS = ((100.0, 400.0), (500.0, 410.0), (520.0, 40.0), (90.0, 60.0))


def a_room(rng):
    looks = rng.normal(0, 5, (3, 16 * 16 * 3))
    return Room(rng.normal(0, 1, (3, len(FEATURES))), looks, rng.uniform(0.1, 2, looks.shape[1]))


def test_save_and_load_round_trip(tmp_path):
    cal = Calibration("7x8", (640, 480), CORNERS, oriented=True,
                      room=a_room(np.random.default_rng(0)).to_json())
    path = tmp_path / "cal.json"
    cal.save(str(path))
    assert Calibration.load(str(path)) == cal


def test_a_room_that_is_not_this_models_is_a_clear_error(tmp_path):
    room = a_room(np.random.default_rng(1)).to_json()
    room["weights"] = room["weights"][:-5]
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"board": "9x9", "image_size": [640, 480], "corners": CORNERS, "room": room}))
    with pytest.raises(ConfigError, match="bad calibration: .*room colours are not this colour model's"):
        Calibration.load(str(path))


@pytest.mark.parametrize("text,word", [
    ("{not json", "bad calibration"),
    (json.dumps({"board": "8x8", "image_size": [640, 480], "corners": CORNERS}), "8x8"),
    (json.dumps({"board": "9x9", "image_size": [640, 480], "corners": CORNERS[:3]}), "four"),
    (json.dumps({"board": "9x9", "corners": CORNERS}), "image_size"),
    (json.dumps({"board": "9x9", "image_size": [640, 480],
                 "corners": [CORNERS[0], CORNERS[2], CORNERS[1], CORNERS[3]]}), "convex"),
    (json.dumps([1, 2]), "bad calibration"),
])
def test_bad_file_is_one_clear_config_error(tmp_path, text, word):
    path = tmp_path / "cal.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=word):
        Calibration.load(str(path))


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(ConfigError, match="nope.json"):
        Calibration.load(str(tmp_path / "nope.json"))


def test_manual_corners():
    cal = Calibration.from_corners("9x9", (640, 480), CORNERS)
    assert cal.oriented and cal.corners == CORNERS
    with pytest.raises(ConfigError, match="four"):
        Calibration.from_corners("9x9", (640, 480), CORNERS[:3])
    with pytest.raises(ConfigError, match="10x10"):
        Calibration.from_corners("10x10", (640, 480), CORNERS)


def test_rotation_moves_a1_and_7x8_turns_only_by_halves():
    cal = Calibration("9x9", (640, 480), CORNERS)
    assert cal.rotated(1).corners[0] == CORNERS[1]
    assert cal.rotated(4) == cal
    assert Calibration("7x8", (640, 480), CORNERS).rotated(2).corners[0] == CORNERS[2]
    with pytest.raises(ValueError):
        Calibration("7x8", (640, 480), CORNERS).rotated(1)


def test_homography_and_cell_centres_match_the_camera():
    # Straight down without distortion the board plane maps exactly by a homography.
    img, truth = render_frame({}, "7x8", SceneParams(camera_height=14.0, yaw_deg=33.0, tilt_deg=10.0),
                              np.random.default_rng(0))
    cal = Calibration("7x8", (640, 480), tuple(map(tuple, truth.corners)))
    centres = cal.cell_centres()
    for name, (x, y) in truth.cell_centres.items():
        assert abs(centres[name][0] - x) < 1e-3 and abs(centres[name][1] - y) < 1e-3
    H = cal.homography()
    p = H @ np.array([7.0, 8.0, 1.0])
    assert np.allclose(p[:2] / p[2], truth.corners[2], atol=1e-3)


def _load_make_boards():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "calibration", "make_boards.py")
    spec = importlib.util.spec_from_file_location("make_boards", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, os.path.dirname(path)


@pytest.mark.parametrize("face,files,ranks", [("9x9", 9, 9), ("7x8", 7, 8)])
def test_printable_boards_are_exact_size_and_committed(face, files, ranks):
    import os
    import xml.etree.ElementTree as ET
    make_boards, folder = _load_make_boards()
    for cell in (25, 30):
        text = make_boards.board_svg(face, float(cell))
        with open(os.path.join(folder, f"fenix-{face}-{cell}mm.svg"), encoding="utf-8") as fh:
            assert fh.read() == text, "committed SVG is stale: rerun calibration/make_boards.py"
        root = ET.fromstring(text)
        width_mm = float(root.get("width").removesuffix("mm"))
        assert root.get("viewBox").split()[2] == f"{width_mm:g}"          # 1 user unit = 1 mm
        lines = root.findall(".//{http://www.w3.org/2000/svg}line")[:files + ranks + 2]
        xs = sorted(float(l.get("x1")) for l in lines if l.get("x1") == l.get("x2"))
        ys = sorted(float(l.get("y1")) for l in lines if l.get("y1") == l.get("y2"))
        assert len(xs) == files + 1 and len(ys) == ranks + 1
        assert np.allclose(np.diff(xs), cell) and np.allclose(np.diff(ys), cell)


def test_a_file_of_an_earlier_version_still_loads(tmp_path):
    # Earlier versions saved a stone-thickness scale and class mean colours: ignored now
    # (heights are read per frame; the colour model has changed).
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"board": "7x8", "image_size": [640, 480], "corners": CORNERS,
                                "oriented": True, "colors": {"red": [40.0, 50.0, 200.0]},
                                "height_scale": 1.1}))
    assert Calibration.load(str(path)) == Calibration("7x8", (640, 480), CORNERS, oriented=True)

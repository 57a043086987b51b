"""fenix-table detect / calibrate through the real command line entry point."""
import json

import cv2
import numpy as np
import pytest

from fenix_table.cli import main
from fenix_tools.sim import SceneParams, random_placement, render_frame
from fenix_table.rules import Position
from fenix_table.vision.types import Calibration


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    folder = tmp_path_factory.mktemp("frames")
    rng = np.random.default_rng(2)
    scene = SceneParams(yaw_deg=15.0, tilt_deg=4.0)
    start, _ = render_frame(Position.start("9x9").stacks(), "9x9", scene, rng)
    placement = random_placement(rng, "9x9", stones=30)
    game, truth = render_frame(placement, "9x9", scene, rng)
    paths = []
    for name, img in (("start.png", start), ("game.png", game)):
        cv2.imwrite(str(folder / name), img)
        paths.append(str(folder / name))
    return paths, placement, truth


def test_detect_prints_one_json_line_per_image(images, capsys, tmp_path):
    paths, placement, _ = images
    out = tmp_path / "ann.png"
    assert main(["detect", *paths, "--board", "9x9", "--annotate", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    records = [json.loads(line) for line in lines]
    for path, rec in zip(paths, records):
        assert rec["image"] == path and rec["board"] == "9x9"
        assert len(rec["cells"]) == 81 and rec["hand"] is False and rec["occluded_cells"] == []
        for cell in rec["cells"].values():
            assert cell["color"] in ("empty", "red", "black") and 0 <= cell["confidence"] <= 1
    start = records[0]["cells"]
    layout = Position.start("9x9").stacks()
    assert sum(start[c]["color"] != layout.get(c, ("empty",))[0] for c in start) == 0
    # Several images: numbered annotation files, each the size of its frame.
    for k in (1, 2):
        drawn = cv2.imread(str(tmp_path / f"ann-00{k}.png"))
        assert drawn is not None and drawn.shape == (480, 640, 3)


def test_calibrate_then_detect_with_the_calibration(images, capsys, tmp_path):
    paths, placement, truth = images
    saved = tmp_path / "cal.json"
    assert main(["calibrate", paths[0], "-o", str(saved)]) == 0
    assert "saved" in capsys.readouterr().out
    cal = Calibration.load(str(saved))
    assert cal.board == "9x9" and cal.oriented and cal.room is not None
    assert main(["detect", paths[1], "--calibration", str(saved)]) == 0
    rec = json.loads(capsys.readouterr().out)
    wrong = [c for c, r in rec["cells"].items() if r["color"] != placement.get(c, ("empty",))[0]]
    assert len(wrong) <= 1


def test_calibrate_with_corners(images, capsys, tmp_path):
    paths, _, truth = images
    saved = tmp_path / "manual.json"
    corners = [f"{x:.1f},{y:.1f}" for x, y in truth.corners]
    assert main(["calibrate", paths[1], "--board", "9x9", "--corners", *corners, "-o", str(saved)]) == 0
    cal = Calibration.load(str(saved))
    assert np.allclose(cal.corners, truth.corners, atol=0.1)


@pytest.mark.parametrize("argv, message", [
    (["detect", "missing.png"], "image missing.png: no such file"),
    (["calibrate", "missing.png"], "image missing.png: no such file"),
    (["calibrate", "x.png", "--corners", "1,2", "3,4", "5,6", "7,8"], "--corners needs --board 9x9 or 7x8"),
    (["calibrate", "x.png", "--board", "7x8", "--corners", "1,2", "3,4", "5,6", "7"],
     "bad corner '7': expected X,Y in pixels"),
    (["calibrate", "x.png", "--stickers"], "--stickers needs --board 9x9 or 7x8"),
])
def test_errors_are_one_line_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"fenix-table: {message}"]


def test_calibrate_with_stickers(tmp_path, capsys):
    from dataclasses import replace
    from fenix_tools.sim import random_scene
    from fenix_tools.sim.stickers import with_stickers
    rng = np.random.default_rng(3)
    scene = replace(random_scene(rng, "7x8", image_size=(1280, 960), hand=False, table="busy"), distortion_k1=0.0)
    bgr, truth = render_frame(random_placement(rng, "7x8"), "7x8", scene, rng)
    frame = tmp_path / "stickers.png"
    cv2.imwrite(str(frame), with_stickers(bgr, scene, "7x8"))
    saved = tmp_path / "cal.json"
    assert main(["calibrate", str(frame), "--board", "7x8", "--stickers", "-o", str(saved)]) == 0
    cal = Calibration.load(str(saved))
    box = [[0, 0], [7, 0], [7, 8], [0, 8]]
    assert cal.oriented and np.abs(cal.to_image(box) - truth.corners).max() < 2.0
    # A frame without them: one line naming the stickers not seen.
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), bgr)
    assert main(["calibrate", str(plain), "--board", "7x8", "--stickers"]) == 2
    assert "corner stickers 0, 1, 2, 3 not seen" in capsys.readouterr().err


def test_unreadable_image_and_blank_frame(tmp_path, capsys):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    assert main(["detect", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"fenix-table: image {bad}: ") and "\n" not in err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((240, 320, 3), 128, np.uint8))
    assert main(["detect", str(blank)]) == 2
    assert "no board" in capsys.readouterr().err


def test_detect_goes_on_past_images_it_cannot_read(images, capsys, tmp_path):
    paths, _, _ = images
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 128, np.uint8))
    missing = str(tmp_path / "missing.png")
    batch = [paths[0], str(bad), str(blank), missing, paths[1]]
    assert main(["detect", *batch, "--board", "9x9"]) == 2
    out, err = capsys.readouterr()
    records = [json.loads(line) for line in out.strip().splitlines()]
    assert [r["image"] for r in records] == batch
    assert [("error" in r) for r in records] == [False, True, True, True, False]
    assert len(records[0]["cells"]) == len(records[4]["cells"]) == 81
    assert "not an image" in records[1]["error"] and "no board" in records[2]["error"]
    assert "no such file" in records[3]["error"]
    # Each is named on stderr too, on one line of its own.
    assert err.strip().splitlines() == [f"fenix-table: {r['error']}" for r in records[1:4]]


def test_detect_with_a_calibration_names_an_image_of_another_size(images, capsys, tmp_path):
    paths, _, truth = images
    saved = tmp_path / "cal.json"
    corners = [f"{x:.1f},{y:.1f}" for x, y in truth.corners]
    assert main(["calibrate", paths[1], "--board", "9x9", "--corners", *corners, "-o", str(saved)]) == 0
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(paths[1]), (320, 240)))
    capsys.readouterr()
    assert main(["detect", str(small), paths[1], "--calibration", str(saved)]) == 2
    first, second = (json.loads(line) for line in capsys.readouterr().out.strip().splitlines())
    assert first == {"image": str(small), "error": f"image {small}: 320x240, the calibration is for 640x480 images"}
    assert second["image"] == paths[1] and len(second["cells"]) == 81

"""``fenix-table demo`` end to end: the bundled recording through vision, referee and
display, headless, writing display frames and a video; ``fenix-table run`` without a
camera says how to choose one."""
import os

import cv2
import pytest

from fenix_table.cli import main
from fenix_table.display.demo import VIDEO_NAME, recording_frames, run_demo
from fenix_table.display.recording_script import RECORDING, load_script, shots
from fenix_table.rules.fgn import parse_fgn


def test_bundled_recording_matches_its_script():
    script = load_script()
    frames = recording_frames(RECORDING)
    assert len(frames) == sum(shot.frames for shot in shots(script))
    assert 100 <= len(frames) <= 250
    size = sum(os.path.getsize(f) for f in frames)
    assert size < 8e6
    image = cv2.imread(frames[0])
    assert (image.shape[1], image.shape[0]) == tuple(script["image_size"])


def test_demo_runs_headless_through_the_whole_pipeline(tmp_path):
    out = tmp_path / "demo"
    result = run_demo(out=str(out), headless=True, limit=30)
    assert result.headless and result.frames == 30
    # The referee saw the start position on the board through the camera.
    assert result.kinds[:2] == ["game_started", "turn_started"]
    assert "in_sync" in result.kinds
    images = sorted(p for p in os.listdir(out) if p.endswith(".png"))
    assert images and len(images) == result.images
    video = cv2.VideoCapture(str(out / VIDEO_NAME))
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == 30
    ok, picture = video.read()
    assert ok and picture.shape[:2] == (480, 800)
    video.release()
    # The game as recorded, in FGN: the plies the referee committed, still unfinished.
    record = parse_fgn((out / "game.fgn").read_text())
    assert record.moves == result.moves and record.result == "*"
    assert record.tags["Board"] == load_script()["board"]


def test_demo_command_prints_a_summary(tmp_path, capsys):
    code = main(["demo", "--headless", "--frames", "8", "--out", str(tmp_path / "d"),
                 "--language", "fr", "--size", "1024x600"])
    assert code == 0
    text = capsys.readouterr().out
    assert text.startswith("8 camera frames in ")
    assert "display frames:" in text
    picture = cv2.imread(str(tmp_path / "d" / "display-0000.png"))
    assert picture.shape[:2] == (600, 1024)


def test_run_without_a_camera_says_how_to_choose_one(tmp_path, capsys):
    code = main(["run", "--camera", str(tmp_path / "missing.mp4"),
                 "--db", str(tmp_path / "games.sqlite3")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fenix-table: no camera found (no such video file")
    assert "--camera SOURCE" in err and "\n" not in err


def test_demo_with_a_missing_recording_is_one_clear_line(tmp_path, capsys):
    code = main(["demo", "--headless", "--recording", str(tmp_path / "nowhere")])
    assert code == 2
    assert capsys.readouterr().err.strip() == \
        f"fenix-table: {tmp_path / 'nowhere'}: no script.json, not a demo recording"


def test_full_demo_game_reaches_the_recorded_result(tmp_path):
    gpiozero_mock = pytest.importorskip("gpiozero.pins.mock")
    from fenix_table.device import Lights

    class WatchedLights(Lights):
        """The real lights on mock pins, their pin values noted right after each event."""
        seen = []

        def handle(self, event):
            super().handle(event)
            self.tick()
            self.seen.append((event.kind, {name: led.value for name, led in self.leds.items()},
                              self.buzzer.value))

    lights = WatchedLights({"red_turn": 17, "black_turn": 27, "capture": 22, "violation": 23,
                            "buzzer": 24}, pin_factory=gpiozero_mock.MockFactory(),
                           background=False)
    try:
        result = run_demo(out=str(tmp_path / "full"), headless=True, lights=lights)
    finally:
        lights.close()
    pins = {kind: (leds, buzzer) for kind, leds, buzzer in WatchedLights.seen}
    # A blink starts lit, a violation is steady red with the buzzer's first beep, the end
    # sounds its long beep.
    assert pins["capture_required"][0]["capture"] == 1
    assert pins["violation"][0]["violation"] == 1 and pins["violation"][1] == 1
    assert pins["violation_cleared"][0]["violation"] == 0
    assert pins["game_over"][1] == 1
    script = load_script()
    assert result.frames == len(recording_frames(RECORDING))
    assert result.moves == script["moves"] and result.as_recorded
    assert (result.result, result.reason) == (script["result"], script["reason"])
    for kind in ("violation", "violation_cleared", "remove_captured", "game_over"):
        assert kind in result.kinds, kind
    assert result.kinds.count("capture_required") >= 3
    # Every ply was either read by the camera or confirmed by the players, none twice.
    assert 0 <= result.confirmed <= len(result.moves)
    assert result.seconds < 60

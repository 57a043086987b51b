"""Configuration: search order, validation messages, round trip, the config command."""
import json
import os

import pytest

from fenix_table import config as cfg
from fenix_table.cli import main
from fenix_table.config import Config, ConfigError, load_config


@pytest.fixture
def no_default_files(tmp_path, monkeypatch):
    """No user or system file and no environment variable: the defaults apply."""
    monkeypatch.delenv(cfg.ENV_VAR, raising=False)
    monkeypatch.setattr(cfg, "user_path", lambda: str(tmp_path / "user" / "config.toml"))
    monkeypatch.setattr(cfg, "SYSTEM_PATH", str(tmp_path / "etc" / "config.toml"))
    return tmp_path


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_defaults_when_no_file_exists(no_default_files):
    config = load_config()
    assert config.source is None
    assert config == Config()
    assert config.gpio.pins() == {"red_turn": 17, "black_turn": 27, "capture": 22,
                                  "violation": 23, "buzzer": 24}


def test_search_order_argument_then_env_then_user_then_system(no_default_files, monkeypatch):
    tmp = no_default_files
    system = write(tmp / "etc" / "config.toml", '[display]\nlanguage = "nl"\n')
    assert load_config().display.language == "nl"
    assert load_config().source == system
    write(tmp / "user" / "config.toml", '[display]\nlanguage = "fr"\n')
    assert load_config().display.language == "fr"
    env_file = write(tmp / "env.toml", '[display]\nlanguage = "de"\n')
    monkeypatch.setenv(cfg.ENV_VAR, env_file)
    assert load_config().display.language == "de"
    arg_file = write(tmp / "arg.toml", '[display]\nlanguage = "en"\n')
    assert load_config(arg_file).source == arg_file


def test_named_file_must_exist(no_default_files, monkeypatch):
    missing = str(no_default_files / "nope.toml")
    with pytest.raises(ConfigError, match="configuration file .*nope.toml: no such file"):
        load_config(missing)
    monkeypatch.setenv(cfg.ENV_VAR, missing)
    with pytest.raises(ConfigError, match="configuration file .*: no such file"):
        load_config()


@pytest.mark.parametrize("text, message", [
    ("[camera]\nwidht = 640\n", "camera.widht: unknown key"),
    ("[screen]\nx = 1\n", "unknown section [screen]"),
    ("camera = 3\n", "camera: expected a [camera] table"),
    ('[camera]\nwidth = "640"\n', "camera.width: expected a whole number, got '640'"),
    ("[camera]\nwidth = 10\n", "camera.width: 10 is out of range (160..4608)"),
    ('[camera]\nexposure = "dark"\n', 'camera.exposure: expected "auto" or microseconds'),
    ('[board]\nside = "8x8"\n', "board.side: expected one of auto|9x9|7x8, got '8x8'"),
    ("[display]\nfullscreen = 1\n", 'display.fullscreen: expected true, false or "auto", got 1'),
    ("[display]\ncamera_inset = \"yes\"\n", "display.camera_inset: expected true or false, got 'yes'"),
    ("[display]\nrotation = 45\n", "display.rotation: expected 0, 90, 180 or 270"),
    ('[display]\nlanguage = "es"\n', "display.language: expected one of en|de|fr|nl"),
    ("[referee]\nstable_frames = 0\n", "referee.stable_frames: 0 is out of range"),
    ("[gpio]\nbrightness = 1.5\n", "gpio.brightness: 1.5 is out of range (0.0..1.0)"),
    ("[gpio]\nbuzzer = 40\n", "gpio.buzzer: 40 is not a GPIO on the 40-pin header"),
    ("[gpio]\nbuzzer = -3\n", "gpio.buzzer: -3 is not a GPIO"),
    ("[gpio]\ncapture = 1\n", "gpio.capture: GPIO1 is reserved"),
    ('[gpio]\ncapture = "GPIO22"\n', "gpio.capture: expected a BCM GPIO number"),
    ("[gpio]\ncapture = true\n", "gpio.capture: expected a BCM GPIO number"),
    ("[gpio]\nmove_button = 17\n", "gpio.move_button: pin 17 is already used by gpio.red_turn"),
    ('[rules]\npreset = "blitz"\n', "rules.preset: expected one of official|strike"),
    ("[rules.options]\nspeed = 3\n", "rules.options.speed: unknown rules option 'speed'"),
    ('[rules.options]\nking_reach = "far"\n', "rules.options.king_reach: 'far' is not one of"),
    ("[rules]\noptions = 3\n", "rules.options: expected a table of rules options"),
    ("[record]\ndatabase = 5\n", "record.database: expected a string, got 5"),
    ("[camera\n", "invalid TOML"),
])
def test_bad_values_name_the_key_in_one_line(tmp_path, text, message):
    path = write(tmp_path / "bad.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(path + ": ")
    assert message in text


def test_values_are_read_and_unfitted_parts_are_dropped(tmp_path):
    path = write(tmp_path / "c.toml", """
[camera]
source = "picamera2"
exposure = 8000
[board]
side = "7x8"
calibration = "cal/board.json"
[rules]
preset = "strike"
[rules.options]
no_move = "draw"
no_capture_limit = 60
[gpio]
buzzer = false
move_button = 5
brightness = 0.25
[record]
database = "~/games.sqlite3"
""")
    config = load_config(path)
    assert config.camera.resolved_source() == "picamera2"
    assert config.camera.exposure == 8000
    assert config.board.side == "7x8"
    assert config.board.calibration == str(tmp_path / "cal" / "board.json")
    assert config.record.database == os.path.expanduser("~/games.sqlite3")
    rules = config.rules.rules()
    assert rules.name == "strike" and rules.no_move == "draw" and rules.no_capture_limit == 60
    assert config.gpio.buzzer is None
    assert config.gpio.pins() == {"red_turn": 17, "black_turn": 27, "capture": 22,
                                  "violation": 23, "move_button": 5}
    assert config.gpio.brightness == 0.25


def test_to_toml_round_trips(tmp_path):
    path = write(tmp_path / "c.toml", """
[display]
language = "de"
rotation = 180
fullscreen = false
[gpio]
buzzer = false
clock_red = 6
clock_black = 13
[rules.options]
king_first = false
""")
    config = load_config(path)
    again = Config.from_toml(config.to_toml())
    assert again.to_dict() == config.to_dict()
    assert again.gpio.clock_red == 6 and again.rules.options["king_first"] is False
    assert again.display.fullscreen_choice is False and again.display.quarter_turns == 2
    assert Config().display.fullscreen_choice is None  # "auto"


def test_config_show_prints_effective_values(tmp_path, capsys, no_default_files):
    path = write(tmp_path / "c.toml", '[referee]\nmode = "casual"\n')
    assert main(["--config", path, "config", "show", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["source"] == path
    assert shown["referee"] == {"mode": "casual", "stable_frames": 3}
    assert shown["gpio"]["move_button"] is False
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# effective configuration: defaults")
    assert Config.from_toml(out) == Config()


def test_bad_file_exits_2_with_one_line(tmp_path, capsys, monkeypatch, no_default_files):
    path = write(tmp_path / "c.toml", "[gpio]\nred_turn = 99\n")
    monkeypatch.setenv(cfg.ENV_VAR, path)
    assert main(["config", "show"]) == 2
    err = capsys.readouterr().err
    assert err == f"fenix-table: {path}: gpio.red_turn: 99 is not a GPIO on the 40-pin header (BCM numbers 2-27)\n"


def test_config_path_reports_the_file(tmp_path, capsys, no_default_files):
    assert main(["config", "path"]) == 0
    assert capsys.readouterr().out.startswith("none (defaults)")
    path = write(tmp_path / "etc" / "config.toml", "")
    assert main(["config", "path"]) == 0
    assert capsys.readouterr().out.strip() == path


def test_rgb_led_pins_come_as_a_set(tmp_path):
    path = write(tmp_path / "c.toml", "[gpio]\nrgb_red = 12\nrgb_blue = 26\n")
    with pytest.raises(ConfigError, match=r"gpio\.rgb_green: an RGB LED needs all of"):
        load_config(path)
    path = write(tmp_path / "d.toml", "[gpio]\nrgb_red = 12\nrgb_green = 16\nrgb_blue = 17\n")
    with pytest.raises(ConfigError, match=r"gpio\.rgb_blue: pin 17 is already used by gpio\.red_turn"):
        load_config(path)
    path = write(tmp_path / "e.toml", '[gpio]\nrgb_red = 12\nrgb_green = 16\nrgb_blue = 26\n'
                                      'rgb_black = "white"\n')
    gpio = load_config(path).gpio
    assert gpio.pins()["rgb_blue"] == 26 and gpio.rgb_black == "white"


def test_camera_section_from_plain_values():
    """vision.sources.open_source takes the section, or plain values checked the same way."""
    camera = cfg.CameraConfig.from_values({"width": 640, "height": 480, "exposure": 10000})
    assert camera == Config.from_toml("[camera]\nwidth = 640\nheight = 480\n"
                                      "exposure = 10000\n").camera
    assert camera.size == (640, 480) and camera.fixed_exposure == 10000
    assert cfg.CameraConfig().fixed_exposure is None
    assert cfg.CameraConfig.from_values({}) == cfg.CameraConfig()
    with pytest.raises(ConfigError, match=r"^camera\.exposure: expected \"auto\" or microseconds"):
        cfg.CameraConfig.from_values({"exposure": 5})
    with pytest.raises(ConfigError, match=r"^camera\.height: 100000 is out of range"):
        cfg.CameraConfig.from_values({"height": 100000})

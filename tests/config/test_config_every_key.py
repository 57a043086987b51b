"""Every key that systemd/config.toml documents changes what the table does.

:func:`test_every_documented_key_has_a_behaviour_test` reads the documented file (keys
set there and keys shown as commented-out examples, such as ``# no_move = "draw"``) and
fails for a key that :data:`COVERAGE` does not send to a behaviour test below, so a key
added later without one breaks the suite.

Each behaviour test builds configurations with :meth:`Config.from_toml` that differ in
that key alone and shows the program acting differently, through the real code:
``fenix-table run`` itself (:func:`fenix_table.display.main.run_table`, on SDL's dummy
video driver standing in for a screen and a folder of the bundled recording's frames as
the camera), the rules engine, the game recorder, and the lights on gpiozero's mock pins.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sqlite3
import tomllib
from pathlib import Path
from typing import Optional

import pytest

from fenix_table.config import Config

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED = ROOT / "systemd" / "config.toml"
RECORDING = ROOT / "fenix_table" / "display" / "recording"


# --------------------------------------------------------------------------------------
# The documented keys, and which test shows each one at work
# --------------------------------------------------------------------------------------

def documented_keys() -> set:
    """``section.key`` for every key systemd/config.toml sets, and for every commented-out
    example assignment (``# no_move = "draw"`` under ``[rules.options]``)."""
    text = DOCUMENTED.read_text(encoding="utf-8")
    keys = set()

    def walk(prefix, table):
        for key, value in table.items():
            if isinstance(value, dict):
                walk(f"{prefix}{key}.", value)
            else:
                keys.add(f"{prefix}{key}")

    walk("", tomllib.loads(text))
    section = None
    for line in text.splitlines():
        header = re.match(r"\s*\[([\w.]+)\]\s*(#.*)?$", line)
        if header:
            section = header.group(1)
            continue
        example = re.match(r"\s*#\s*([a-z_][a-z0-9_]*)\s*=\s*(.+)$", line)
        if example and section:
            try:   # a real TOML assignment, not prose that happens to hold "="
                tomllib.loads(f"{example.group(1)} = {example.group(2)}")
            except tomllib.TOMLDecodeError:
                continue
            keys.add(f"{section}.{example.group(1)}")
    return keys


#: Every documented key -> the test that shows changing it changes behaviour.
COVERAGE = {
    "camera.source": "test_camera_source_is_the_camera_run_opens",
    "camera.width": "test_camera_width_and_height_reach_the_pi_camera",
    "camera.height": "test_camera_width_and_height_reach_the_pi_camera",
    "camera.exposure": "test_camera_exposure_reaches_the_pi_camera",
    "board.side": "test_board_side_is_the_board_of_the_game",
    "board.calibration": "test_board_calibration_is_where_vision_starts",
    "rules.preset": "test_rules_preset_decides_the_rules_of_the_game",
    "rules.options.no_move": "test_rules_option_no_move_decides_a_blocked_side",
    "rules.options.no_capture_limit": "test_rules_option_no_capture_limit_decides_the_draw",
    "referee.mode": "test_referee_mode_decides_whether_play_on_is_allowed",
    "referee.stable_frames": "test_referee_stable_frames_is_the_wait_for_a_still_board",
    "display.language": "test_display_language_is_the_language_on_screen",
    "display.fullscreen": "test_display_fullscreen_decides_the_window",
    "display.rotation": "test_display_rotation_turns_the_board_picture",
    "display.width": "test_display_width_and_height_size_the_window",
    "display.height": "test_display_width_and_height_size_the_window",
    "display.camera_inset": "test_display_camera_inset_shows_the_camera_picture",
    "display.clocks": "test_display_clocks_show_the_thinking_time",
    "gpio.enabled": "test_gpio_enabled_false_touches_no_pin",
    "gpio.red_turn": "test_gpio_turn_and_status_leds_use_their_pins",
    "gpio.black_turn": "test_gpio_turn_and_status_leds_use_their_pins",
    "gpio.capture": "test_gpio_turn_and_status_leds_use_their_pins",
    "gpio.violation": "test_gpio_turn_and_status_leds_use_their_pins",
    "gpio.buzzer": "test_gpio_turn_and_status_leds_use_their_pins",
    "gpio.move_button": "test_gpio_buttons_are_fitted_on_their_pins",
    "gpio.clock_red": "test_gpio_buttons_are_fitted_on_their_pins",
    "gpio.clock_black": "test_gpio_buttons_are_fitted_on_their_pins",
    "gpio.rgb_red": "test_gpio_rgb_pins_drive_the_rgb_led",
    "gpio.rgb_green": "test_gpio_rgb_pins_drive_the_rgb_led",
    "gpio.rgb_blue": "test_gpio_rgb_pins_drive_the_rgb_led",
    "gpio.rgb_common_anode": "test_gpio_rgb_common_anode_inverts_the_pins",
    "gpio.rgb_black": "test_gpio_rgb_black_is_blacks_colour",
    "gpio.brightness": "test_gpio_brightness_dims_the_leds",
    "gpio.sound": "test_gpio_sound_false_leaves_the_buzzer_silent",
    "record.database": "test_record_database_is_where_the_game_lands",
    "record.save_frames": "test_record_save_frames_keeps_the_still_frame_of_a_move",
    "club.enabled": "test_club_enabled_broadcasts_the_game_of_run",
    "club.broker": "test_club_broker_club_and_table_decide_where_the_game_goes",
    "club.club": "test_club_broker_club_and_table_decide_where_the_game_goes",
    "club.table": "test_club_broker_club_and_table_decide_where_the_game_goes",
    "club.password_file": "test_club_password_file_logs_the_table_in",
    "club.ca_file": "test_club_ca_file_is_the_certificate_the_broker_is_checked_with",
    "opponent.side": "test_opponent_side_is_the_side_the_computer_plays",
    "opponent.level": "test_opponent_level_and_movetime_are_how_the_computer_searches",
    "opponent.movetime": "test_opponent_level_and_movetime_are_how_the_computer_searches",
}


def test_every_documented_key_has_a_behaviour_test():
    keys = documented_keys()
    # The parser sees the file: set keys of every section and the commented examples.
    assert {"camera.source", "gpio.move_button", "record.save_frames",
            "rules.options.no_move", "rules.options.no_capture_limit"} <= keys
    missing = sorted(keys - set(COVERAGE))
    assert not missing, f"documented keys without a behaviour test: {', '.join(missing)}"
    for key, name in COVERAGE.items():
        assert callable(globals().get(name)), f"{key}: no test function {name}"


def test_every_covered_key_is_a_key_the_configuration_reads():
    """COVERAGE names real keys: each one is accepted by Config.from_toml."""
    sections = {f.name: getattr(Config(), f.name) for f in dataclasses.fields(Config)
                if f.name != "source"}
    for key in COVERAGE:
        section, _, name = key.partition(".")
        if section == "rules" and name.startswith("options."):
            continue   # options are checked against the rules engine by their own tests
        assert name in {f.name for f in dataclasses.fields(sections[section])}, key
    # An unknown key is refused, so a documented key cannot silently be ignored by the loader.
    from fenix_table.errors import ConfigError
    with pytest.raises(ConfigError, match="display.no_such_key: unknown key"):
        Config.from_toml("[display]\nno_such_key = 1\n")


# --------------------------------------------------------------------------------------
# fenix-table run, for real: the keys only run_table reads
# --------------------------------------------------------------------------------------

# What every run shares: the camera is a folder of the recording's first frames (the
# 7x8 start position), a test archive, no GPIO, a window of a known size.
BASE = {
    "board": {"side": "7x8"},
    "gpio": {"enabled": False},
    "display": {"fullscreen": False, "width": 640, "height": 400},
}
FRAMES = 2


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def config_text(changes=None) -> str:
    """TOML for BASE with ``changes`` (``{"section": {"key": value}}``, nested
    ``{"rules": {"options": {...}}}``) applied."""
    merged = {section: dict(values) for section, values in BASE.items()}
    for section, values in (changes or {}).items():
        merged.setdefault(section, {}).update(values)
    lines = []
    for section, values in merged.items():
        tables = {k: v for k, v in values.items() if isinstance(v, dict)}
        lines.append(f"[{section}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in values.items() if k not in tables]
        for key, table in tables.items():
            lines.append(f"[{section}.{key}]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


@dataclasses.dataclass
class Run:
    """What one ``fenix-table run`` did."""

    why: str
    setup: object
    rules: str
    mode: str
    calibration_at_start: object
    save_frames: bool
    stable_after: object       # still frames vision needed before the referee saw the board
    play_on_message: str
    ui: dict
    window: tuple
    fullscreen: bool
    drawn: list                # (role, text) the display drew at the end
    picture: bytes             # the display's pixels at the end
    database: str
    games: list                # (board, rules, mode) rows in that database
    computer: object = None    # (side, level, movetime) of the table's computer, or None
    computer_move: object = None   # the ComputerMove it announced, if it plays


@pytest.fixture(scope="module")
def camera_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("camera")
    for i in range(FRAMES):
        shutil.copy(RECORDING / f"{i:04d}.jpg", folder)
    return folder


@pytest.fixture(scope="module")
def run_with(tmp_path_factory, camera_folder):
    """``run_with(changes)``: ``fenix-table run`` with BASE plus ``changes`` as its
    configuration file, until the camera folder ends. Runs are cached by configuration."""
    cache = {}

    def run(changes=None) -> Run:
        changes = {section: dict(values) for section, values in (changes or {}).items()}
        changes.setdefault("camera", {}).setdefault("source", str(camera_folder))
        # Never the user's own archive: a database next to the run's configuration file.
        changes.setdefault("record", {}).setdefault("database", "games.sqlite3")
        text = config_text(changes)
        if text not in cache:
            folder = tmp_path_factory.mktemp("run")
            (folder / "config.toml").write_text(text, encoding="utf-8")
            cache[text] = _run_table(folder / "config.toml")
        return cache[text]

    return run


def _run_table(config_path: Path, config_home: Optional[Path] = None) -> Run:
    """``fenix-table run`` with the configuration file ``config_path``; the user
    configuration folder (where ``calibrate`` saves) is ``config_home``, by default an
    empty one: never the user's own."""
    import fenix_table.table as table_module
    from fenix_table.cli import build_parser
    from fenix_table.config import load_config
    from fenix_table.display import app
    from fenix_table.display.main import run_table
    from fenix_table.table import Action

    seen = {}
    real_run = table_module.run

    def watching_run(table, feed, **kwargs):
        # The table run_table built, before and after the real loop has run it.
        import pygame

        seen["calibration"] = table.vision.calibration
        seen["why"] = real_run(table, feed, **kwargs)
        computer = table.computer
        seen["computer"] = None if computer is None else \
            (computer.side, computer.level, computer.movetime)
        if computer is not None:
            # The loop's part once the feed has ended: carry out the computer's requests.
            import queue
            import time
            deadline = time.monotonic() + 60
            while table.model.computer_move is None and time.monotonic() < deadline:
                try:
                    table.act(table.requests.get(timeout=0.05))
                except queue.Empty:
                    pass
        seen["computer_move"] = table.model.computer_move
        screen = kwargs["screen"]
        seen["setup"] = table.setup
        seen["rules"] = table.referee.rules.describe()
        seen["mode"] = table.referee.mode
        seen["save_frames"] = table.record.save_frames
        seen["ui"] = {k: getattr(screen.ui, k) for k in
                      ("language", "rotation", "show_camera", "show_clocks")}
        seen["window"] = screen.surface.get_size()
        seen["fullscreen"] = bool(screen.surface.get_flags() & pygame.FULLSCREEN)
        screen.ui.dirty = True
        screen.draw(table, True)
        seen["drawn"] = [(d.role, d.text) for d in
                         screen.renderer.draw(screen.surface, table.model, screen.ui,
                                              table.frame, app.grid(table))]
        seen["picture"] = pygame.image.tobytes(screen.surface, "RGB")
        # How many still frames vision waits for before the referee hears of the board.
        table.vision.filter.reset()
        seen["stable_after"] = None   # the board not found: never
        if table.vision.calibration is not None:
            seen["stable_after"] = next(n for n in range(1, 20)
                                        if table.vision.process(table.frame, 100 + n).stable
                                        is not None)
        table.act(Action("play_on"))
        seen["play_on_message"] = table.message or ""
        return seen["why"]

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SDL_VIDEODRIVER", "dummy")
        mp.setenv("SDL_AUDIODRIVER", "dummy")
        mp.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        mp.setenv("XDG_CONFIG_HOME", str(config_home or config_path.parent / "user-config"))
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "NOTIFY_SOCKET"):
            mp.delenv(name, raising=False)   # a Pi console, no desktop, not under systemd
        # SDL's dummy driver is the screen here (open_screen refuses headless drivers).
        mp.setattr(app, "HEADLESS_DRIVERS", ())
        mp.setattr(table_module, "run", watching_run)
        args = build_parser().parse_args(["--config", str(config_path), "run"])
        config = load_config(args.config)
        assert run_table(args, config) == 0
    database = config.record.database
    with sqlite3.connect(database) as db:
        games = db.execute("SELECT board, rules, mode FROM games ORDER BY id").fetchall()
    return Run(why=seen["why"], setup=seen["setup"], rules=seen["rules"], mode=seen["mode"],
               calibration_at_start=seen["calibration"], save_frames=seen["save_frames"],
               stable_after=seen["stable_after"], play_on_message=seen["play_on_message"],
               ui=seen["ui"], window=seen["window"], fullscreen=seen["fullscreen"],
               drawn=seen["drawn"], picture=seen["picture"], database=database, games=games,
               computer=seen["computer"], computer_move=seen["computer_move"])


@pytest.fixture(scope="module")
def base(run_with):
    run = run_with()
    assert run.why == "ended"
    return run


def drawn_texts(run, role):
    return [text for r, text in run.drawn if r == role]


def test_camera_source_is_the_camera_run_opens(run_with, base, tmp_path):
    from fenix_table.display.main import choose_source
    from fenix_table.errors import CameraError

    # The base run read its frames from camera.source (no --camera given): vision found
    # the recording's 7x8 board in them.
    assert base.why == "ended" and base.calibration_at_start is None
    assert base.stable_after is not None
    # Another source is another camera; "auto" is the Pi camera or webcam 0.
    assert choose_source(None, Config.from_toml('[camera]\nsource = "/dev/video-x"\n')) == \
        "/dev/video-x"
    assert choose_source(None, Config.from_toml('[camera]\nsource = "auto"\n')) in \
        ("picamera2", "0")
    assert choose_source("7", Config.from_toml('[camera]\nsource = "/x"\n')) == "7"  # --camera wins
    with pytest.raises(CameraError, match="no camera found"):
        run_with({"camera": {"source": str(tmp_path / "no-such-video.mp4")}})


def test_board_side_is_the_board_of_the_game(run_with, base):
    nine = run_with({"board": {"side": "9x9"}})
    auto = run_with({"board": {"side": "auto"}})
    assert base.setup.size == "7x8" and base.games == [("7x8", "official", "referee")]
    assert nine.setup.size == "9x9" and nine.games == [("9x9", "official", "referee")]
    assert auto.setup.size == "9x9"   # run starts "auto" on the 9x9 side


def test_board_calibration_is_where_vision_starts(run_with, base, tmp_path):
    from fenix_table.errors import ConfigError
    from fenix_table.vision import Calibration

    corners = ((100.0, 400.0), (540.0, 400.0), (520.0, 80.0), (120.0, 80.0))
    saved = tmp_path / "calibration.json"
    Calibration.from_corners("7x8", (640, 480), corners).save(str(saved))
    calibrated = run_with({"board": {"calibration": str(saved)}})
    assert base.calibration_at_start is None
    assert calibrated.calibration_at_start is not None
    assert calibrated.calibration_at_start.corners == corners
    with pytest.raises(ConfigError, match="calibration .*missing.json: no such file"):
        run_with({"board": {"calibration": str(tmp_path / "missing.json")}})


def test_board_calibration_left_empty_is_where_calibrate_saved(base, camera_folder, tmp_path):
    """``fenix-table calibrate`` saves to the user configuration folder by default; a
    configuration that names no calibration file starts vision from that one."""
    from fenix_table.vision import Calibration

    corners = ((100.0, 400.0), (540.0, 400.0), (520.0, 80.0), (120.0, 80.0))
    home = tmp_path / "home-config"
    (home / "fenix-table").mkdir(parents=True)
    Calibration.from_corners("7x8", (640, 480), corners).save(str(home / "fenix-table" / "calibration.json"))
    config = tmp_path / "config.toml"
    config.write_text(config_text({"camera": {"source": str(camera_folder)},
                                   "record": {"database": "games.sqlite3"}}), encoding="utf-8")
    assert base.calibration_at_start is None
    assert _run_table(config, config_home=home).calibration_at_start.corners == corners


# Hand-written positions (FPN): Red's King walled in by black soldiers it cannot jump;
# two lone Kings, Red to move, 99 plies without a capture.
WALLED = "9x9 8k/9/9/9/9/9/s1s6/ss7/Kss6 r 55 - 0"
KINGS = "9x9 8k/9/9/9/9/9/9/9/K8 r 55 - 0"
KINGS_99 = "9x9 8k/9/9/9/9/9/9/9/K8 r 55 - 99"
SHUFFLE = ["a1-b1", "i9-h9", "b1-a1", "h9-i9"] * 2


def rules_of(toml: str):
    return Config.from_toml(toml).rules.rules()


def test_rules_preset_decides_the_rules_of_the_game(run_with, base):
    from fenix_table.rules import Game

    outcomes = {}
    for preset in ("official", "strike"):
        game = Game(KINGS, rules_of(f'[rules]\npreset = "{preset}"\n'))
        for token in SHUFFLE:
            game.push(token)
        outcomes[preset] = game.status().result
    # A third repetition: a draw in the official rules, the repeater loses in strike.
    assert outcomes == {"official": "draw", "strike": "red wins"}
    strike = run_with({"rules": {"preset": "strike"}})
    assert base.rules == "official" and strike.rules == "strike"
    assert strike.setup.preset == "strike"


def test_rules_option_no_move_decides_a_blocked_side(run_with, base):
    from fenix_table.rules import Game

    assert Game(WALLED, rules_of("")).status().reason == "no_move_loss"
    drawn = rules_of('[rules.options]\nno_move = "draw"\n')
    assert Game(WALLED, drawn).status().reason == "no_move_draw"
    # run plays by the option, and the archive says so.
    run = run_with({"rules": {"options": {"no_move": "draw"}}})
    assert run.rules == "official no_move=draw"
    assert run.games == [("7x8", "official no_move=draw", "referee")]


def test_rules_option_no_capture_limit_decides_the_draw(run_with):
    from fenix_table.rules import Game

    def after_one_ply(toml):
        game = Game(KINGS_99, rules_of(toml))
        game.push("a1-a2")
        return game.status()

    assert after_one_ply("").reason == "no_capture_limit"   # 100 plies by default
    assert not after_one_ply("[rules.options]\nno_capture_limit = 150\n").over
    assert not after_one_ply("[rules.options]\nno_capture_limit = 0\n").over
    run = run_with({"rules": {"options": {"no_capture_limit": 150}}})
    assert run.rules == "official no_capture_limit=150"


def test_referee_mode_decides_whether_play_on_is_allowed(run_with, base):
    casual = run_with({"referee": {"mode": "casual"}})
    assert base.mode == "referee" and casual.mode == "casual"
    assert base.games[-1][2] == "referee" and casual.games[-1][2] == "casual"
    # "Play on" is refused by the referee, and has nothing to accept in casual mode.
    assert "only possible in casual mode" in base.play_on_message
    assert "only possible in casual mode" not in casual.play_on_message


def test_referee_stable_frames_is_the_wait_for_a_still_board(run_with, base):
    assert base.stable_after == 3
    assert run_with({"referee": {"stable_frames": 6}}).stable_after == 6
    assert run_with({"referee": {"stable_frames": 1}}).stable_after == 1


def test_display_language_is_the_language_on_screen(run_with, base):
    german = run_with({"display": {"language": "de"}})
    assert base.ui["language"] == "en" and german.ui["language"] == "de"
    assert drawn_texts(base, "language") == ["EN"] and drawn_texts(german, "language") == ["DE"]
    # Not only the language button: the words on the screen change.
    english_words = {text for _, text in base.drawn}
    german_words = {text for _, text in german.drawn}
    assert len(english_words - german_words) >= 3


def test_display_fullscreen_decides_the_window(run_with, base):
    assert not base.fullscreen                     # fullscreen = false: a window
    assert run_with({"display": {"fullscreen": True}}).fullscreen
    # "auto" on the Pi's console (no desktop session) is fullscreen too.
    assert run_with({"display": {"fullscreen": "auto"}}).fullscreen


def test_display_rotation_turns_the_board_picture(run_with, base):
    turned = run_with({"display": {"rotation": 180}})
    assert base.ui["rotation"] == 0 and turned.ui["rotation"] == 2
    assert turned.picture != base.picture
    assert run_with({"display": {"rotation": 0}}).picture == base.picture  # drawing is repeatable


def test_display_width_and_height_size_the_window(run_with, base):
    assert base.window == (640, 400)
    assert run_with({"display": {"width": 800}}).window == (800, 400)
    assert run_with({"display": {"height": 480}}).window == (640, 480)
    # 0: the screen's own size (a desktop window's default here).
    assert run_with({"display": {"width": 0, "height": 0}}).window != (640, 400)


def test_display_camera_inset_shows_the_camera_picture(run_with, base):
    hidden = run_with({"display": {"camera_inset": False}})
    assert base.ui["show_camera"] is True and hidden.ui["show_camera"] is False
    assert hidden.picture != base.picture


def test_display_clocks_show_the_thinking_time(run_with, base):
    clocks = run_with({"display": {"clocks": True}})
    assert base.ui["show_clocks"] is False and clocks.ui["show_clocks"] is True
    assert drawn_texts(base, "clocks") == []
    assert len(drawn_texts(clocks, "clocks")) == 1


def test_record_database_is_where_the_game_lands(run_with, tmp_path):
    from fenix_table.record import GameStore

    first = run_with({"record": {"database": str(tmp_path / "a.sqlite3")}})
    second = run_with({"record": {"database": str(tmp_path / "b.sqlite3")}})
    assert first.database != second.database
    for run in (first, second):
        with GameStore(run.database) as store:
            assert [g.board for g in store.list_games()] == ["7x8"]
    # A relative path is next to the configuration file.
    relative = Config.from_toml('[record]\ndatabase = "games.sqlite3"\n',
                                source=str(tmp_path / "config.toml"))
    assert relative.record.database == str(tmp_path / "games.sqlite3")


def test_record_save_frames_keeps_the_still_frame_of_a_move(run_with, base):
    import numpy as np

    from fenix_table.record import GameRecorder, GameStore
    from fenix_table.referee import events as ev
    from fenix_table.rules import Position, Rules

    kept = run_with({"record": {"save_frames": True}})
    assert base.save_frames is False and kept.save_frames is True

    def committed_move_frame(toml):
        config = Config.from_toml(toml)
        with GameStore(":memory:") as store:
            recorder = GameRecorder(store, save_frames=config.record.save_frames)
            game = recorder.new_game(Position.start("7x8"), Rules.preset("official"), "referee")
            still = np.full((48, 64, 3), 90, np.uint8)
            recorder.handle([ev.MoveCommitted("a3-c2", "red", 1, "before", "after")], still=still)
            assert [m.token for m in store.moves(game)] == ["a3-c2"]
            return store.frame(game, 1)

    assert committed_move_frame("[record]\nsave_frames = false\n") is None
    jpeg = committed_move_frame("[record]\nsave_frames = true\n")
    assert jpeg is not None and jpeg[:2] == b"\xff\xd8"   # a JPEG


# --------------------------------------------------------------------------------------
# GPIO: Lights.from_config on gpiozero's mock pins
# --------------------------------------------------------------------------------------

@pytest.fixture
def factory():
    from gpiozero.pins.mock import MockFactory

    f = MockFactory()
    yield f
    f.reset()


class Clock:
    t = 100.0

    def __call__(self):
        return self.t


def lights_for(toml: str, factory):
    from fenix_table.device import Lights

    config = Config.from_toml(toml)
    # background=False: the test steps the pins itself.
    extra = {"background": False}
    return Lights.from_config(config, pin_factory=factory, clock=Clock(), **extra)


def claimed(factory) -> set:
    return {info.name for info in factory.pins}


def test_gpio_enabled_false_touches_no_pin(factory):
    from fenix_table.display.main import lights_sink

    with lights_for("", factory) as lights:
        assert lights.active and claimed(factory) == {"GPIO17", "GPIO27", "GPIO22", "GPIO23",
                                                       "GPIO24"}
    factory.reset()
    with lights_for("[gpio]\nenabled = false\n", factory) as lights:
        assert not lights.active and claimed(factory) == set()
    # run leaves such lights out of the table altogether.
    assert lights_sink(Config.from_toml("[gpio]\nenabled = false\n")) is None


# (key, a free pin, an event that drives that part)
def _parts():
    from fenix_table.referee import events as ev

    return [
        ("red_turn", 5, ev.TurnStarted("red", fpn="fpn")),
        ("black_turn", 6, ev.TurnStarted("black", fpn="fpn")),
        ("capture", 13, ev.CaptureRequired("red", moves=("c3xc5",))),
        ("violation", 19, ev.Violation("explained", "code", None, "fpn")),
        ("buzzer", 20, ev.Violation("explained", "code", None, "fpn")),
    ]


@pytest.mark.parametrize("key", ["red_turn", "black_turn", "capture", "violation", "buzzer"])
def test_gpio_turn_and_status_leds_use_their_pins(key, factory):
    from fenix_table.config import GpioConfig

    (_, pin, event), = [p for p in _parts() if p[0] == key]
    default = getattr(GpioConfig(), key)
    with lights_for(f"[gpio]\n{key} = {pin}\n", factory) as lights:
        assert f"GPIO{pin}" in claimed(factory) and f"GPIO{default}" not in claimed(factory)
        assert factory.pin(pin).state == 0
        lights.handle(event)
        assert factory.pin(pin).state == 1
    factory.reset()
    with lights_for(f"[gpio]\n{key} = false\n", factory) as lights:
        assert f"GPIO{default}" not in claimed(factory) and f"GPIO{pin}" not in claimed(factory)
        assert len(claimed(factory)) == 4   # the other four parts stay fitted
        lights.handle(event)


@pytest.mark.parametrize("key, side", [("move_button", None), ("clock_red", "red"),
                                       ("clock_black", "black")])
def test_gpio_buttons_are_fitted_on_their_pins(key, side, factory):
    pressed = []
    with lights_for("", factory) as lights:
        assert lights.buttons == {}   # false: not fitted
    factory.reset()
    with lights_for(f"[gpio]\n{key} = 5\n", factory) as lights:
        assert list(lights.buttons) == [key] and "GPIO5" in claimed(factory)
        lights.on_move_done = lambda: pressed.append("move_done")
        lights.on_clock = lambda s: pressed.append(s)
        factory.pin(5).drive_low()    # a press pulls the pin to ground
        factory.pin(5).drive_high()
    assert pressed == (["move_done"] if side is None else [side])


RGB_TOML = "[gpio]\nrgb_red = 12\nrgb_green = 16\nrgb_blue = 26\n"


def rgb_levels(factory, pins=(12, 16, 26)):
    return tuple(factory.pin(p).state for p in pins)


@pytest.mark.parametrize("key, index", [("rgb_red", 0), ("rgb_green", 1), ("rgb_blue", 2)])
def test_gpio_rgb_pins_drive_the_rgb_led(key, index, factory):
    from fenix_table.referee import events as ev

    with lights_for("", factory) as lights:
        assert lights.rgb is None   # false: no RGB LED
    factory.reset()
    pins = [12, 16, 26]
    pins[index] = 21
    toml = RGB_TOML.replace(f"{key} = {(12, 16, 26)[index]}", f"{key} = 21")
    with lights_for(toml, factory) as lights:
        assert lights.rgb is not None and {f"GPIO{p}" for p in pins} <= claimed(factory)
        lights.handle(ev.TurnStarted("red", fpn="fpn"))
        assert rgb_levels(factory, pins) == (1, 0, 0)
        lights.handle(ev.TurnStarted("black", fpn="fpn"))
        assert rgb_levels(factory, pins) == (0, 0, 1)


def test_gpio_rgb_common_anode_inverts_the_pins(factory):
    with lights_for(RGB_TOML, factory):
        assert rgb_levels(factory) == (0, 0, 0)     # off: low pins
    factory.reset()
    with lights_for(RGB_TOML + "rgb_common_anode = true\n", factory):
        assert rgb_levels(factory) == (1, 1, 1)     # off: high pins


def test_gpio_rgb_black_is_blacks_colour(factory):
    from fenix_table.referee import events as ev

    seen = {}
    for colour in ("blue", "white", "green"):
        with lights_for(RGB_TOML + f'rgb_black = "{colour}"\n', factory) as lights:
            lights.handle(ev.TurnStarted("black", fpn="fpn"))
            seen[colour] = rgb_levels(factory)
        factory.reset()
    assert seen == {"blue": (0, 0, 1), "white": (1, 1, 1), "green": (0, 1, 0)}


def test_gpio_brightness_dims_the_leds():
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from fenix_table.referee import events as ev

    levels = {}
    for brightness in (1.0, 0.25):
        factory = MockFactory(pin_class=MockPWMPin)
        try:
            with lights_for(f"[gpio]\nbrightness = {brightness}\n", factory) as lights:
                lights.handle(ev.TurnStarted("red", fpn="fpn"))
                levels[brightness] = factory.pin(17).state
        finally:
            factory.reset()
    assert levels == {1.0: 1, 0.25: pytest.approx(0.25)}


def test_gpio_sound_false_leaves_the_buzzer_silent(factory):
    from fenix_table.referee import events as ev

    violation = ev.Violation("explained", "code", None, "fpn")
    with lights_for("", factory) as lights:
        lights.handle(violation)
        assert lights.buzzer is not None and factory.pin(24).state == 1
    factory.reset()
    with lights_for("[gpio]\nsound = false\n", factory) as lights:
        lights.handle(violation)
        assert lights.buzzer is None and "GPIO24" not in claimed(factory)


# --------------------------------------------------------------------------------------
# The camera's size and exposure (fenix_table.vision.sources)
# --------------------------------------------------------------------------------------

class FakePicamera2:
    """Stands in for picamera2's ``Picamera2`` (the hardware boundary that
    ``sources._picamera2_class`` hands out): it records what it is told, and its
    automatic exposure reports 20000 µs."""

    opened: list = []

    def __init__(self):
        self.configuration = None
        self.sent = []
        type(self).opened.append(self)

    def create_video_configuration(self, main=None, controls=None, **kwargs):
        return {"main": dict(main or {}), "controls": dict(controls or {}), **kwargs}

    def configure(self, configuration):
        self.configuration = configuration

    def start(self):
        pass

    def capture_metadata(self):
        return {"ExposureTime": 20000, "AnalogueGain": 1.5, "ColourGains": (1.3, 1.9)}

    def set_controls(self, controls):
        self.sent.append(dict(controls))

    def captured_request(self):
        import numpy as np

        width, height = self.configuration["main"]["size"]

        class Request:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def make_array(self, stream):
                return np.zeros((height, width, 3), np.uint8)

        return Request()

    def stop(self):
        pass

    def close(self):
        pass


@pytest.fixture
def picamera(monkeypatch):
    from fenix_table.vision import sources

    class Camera(FakePicamera2):
        opened = []

    monkeypatch.setattr(sources, "_picamera2_class", lambda: Camera)
    return Camera


def test_camera_settings_reach_the_pi_camera_through_open_source(picamera):
    """The source half: open_source(spec, camera=config.camera) honours the keys."""
    from fenix_table.vision import open_source

    def opened(toml):
        with open_source("picamera2", camera=Config.from_toml(toml).camera) as source:
            assert source.read().shape[:2] == tuple(reversed(
                picamera.opened[-1].configuration["main"]["size"]))
        return picamera.opened[-1]

    default = opened("")
    small = opened("[camera]\nwidth = 640\nheight = 480\n")
    assert default.configuration["main"]["size"] == (1280, 960)
    assert small.configuration["main"]["size"] == (640, 480)
    assert opened("[camera]\nwidth = 800\n").configuration["main"]["size"] == (800, 960)
    fixed = opened("[camera]\nexposure = 10000\n")
    # auto: measured, then frozen at what the camera settled on; fixed: off from the start.
    assert default.configuration["controls"]["AeEnable"] is True
    assert default.sent[-1]["ExposureTime"] == 20000
    assert fixed.configuration["controls"] == {"AeEnable": False, "ExposureTime": 10000,
                                               "AwbEnable": True}
    assert fixed.sent[-1]["ExposureTime"] == 10000


def pi_camera_of_run(tmp_path, picamera, camera):
    """The Pi camera ``fenix-table run`` opens with ``[camera]`` = ``camera`` (the loop
    itself is not run: only what was opened matters here)."""
    import fenix_table.table as table_module
    from fenix_table.cli import build_parser
    from fenix_table.config import load_config
    from fenix_table.display.main import run_table

    path = tmp_path / "config.toml"
    path.write_text(config_text({"camera": {"source": "picamera2", **camera},
                                 "record": {"database": "games.sqlite3"}}), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SDL_VIDEODRIVER", "dummy")
        mp.setenv("SDL_AUDIODRIVER", "dummy")
        mp.setattr(table_module, "run", lambda table, feed, **kwargs: "stopped")
        args = build_parser().parse_args(["--config", str(path), "run"])
        try:
            run_table(args, load_config(args.config))
        except Exception as error:   # e.g. "no screen found": the camera was opened first
            assert picamera.opened, error
    assert len(picamera.opened) == 1
    return picamera.opened[0]


def test_camera_width_and_height_reach_the_pi_camera(tmp_path, picamera):
    camera = pi_camera_of_run(tmp_path, picamera, {"width": 640, "height": 480})
    assert camera.configuration["main"]["size"] == (640, 480)


def test_camera_exposure_reaches_the_pi_camera(tmp_path, picamera):
    camera = pi_camera_of_run(tmp_path, picamera, {"exposure": 10000})
    assert camera.configuration["controls"].get("ExposureTime") == 10000
    assert camera.sent[-1]["ExposureTime"] == 10000


# --------------------------------------------------------------------------------------
# [club]: the broadcast, through a real mosquitto (tests/club/mosquitto.py)
# --------------------------------------------------------------------------------------

def _mosquitto(folder, passwords=None, tls=None):
    from tests.club.mosquitto import MISSING, Mosquitto
    if MISSING:
        pytest.skip(MISSING)
    return Mosquitto(folder, passwords, tls).start()


def _retained(broker_url, username=None, password=None, ca_file=None, wait=1.0):
    """``{topic: payload}`` of every retained message under ``fenix/`` on the broker."""
    import threading
    import time

    from fenix_table.club.mqtt import Broker, make_client, start

    broker = Broker(broker_url, username=username, password=password, ca_file=ca_file)
    found, ready = {}, threading.Event()
    client = make_client(broker, "checker", on_connect=lambda ok, why: (
        client.subscribe("fenix/#", qos=1), ready.set()) if ok else None,
        on_disconnect=lambda why: None,
        on_message=lambda topic, payload: found.__setitem__(topic, payload))
    start(client, broker)
    assert ready.wait(10)
    time.sleep(wait)
    client.disconnect()
    client.loop_stop()
    return found


def _broadcast(text, refused=False):
    """A game begun, told to the sink ``[club]`` in ``text`` makes; the sink is closed
    (its messages sent) before this returns. ``refused``: the broker is expected not to
    take it (waited for a second, not five)."""
    from fenix_table.club import broadcast_from_config
    from fenix_table.referee import Referee

    sink = broadcast_from_config(Config.from_toml(text))
    if sink is None:
        return False
    sink.connected.wait(1 if refused else 5)
    for event in Referee(board="9x9").begin():
        sink.handle(event)
    sink.close()
    return True


def test_club_enabled_broadcasts_the_game_of_run(run_with, tmp_path):
    broker = _mosquitto(tmp_path / "broker")
    try:
        quiet = run_with({"club": {"enabled": False, "broker": broker.url, "table": "quiet"}})
        loud = run_with({"club": {"enabled": True, "broker": broker.url, "table": "loud"}})
        assert quiet.why == loud.why == "ended"
        found = _retained(broker.url)
    finally:
        broker.stop()
    assert sorted(found) == ["fenix/club/loud/online", "fenix/club/loud/state"]
    state = json.loads(found["fenix/club/loud/state"])
    assert state["fpn"].startswith("7x8 ") and state["tags"]["Event"] == "fenix-table run"
    assert found["fenix/club/loud/online"] == b"false"     # run ended: the table went offline


def test_club_broker_club_and_table_decide_where_the_game_goes(tmp_path):
    first, second = _mosquitto(tmp_path / "a"), _mosquitto(tmp_path / "b")
    try:
        assert _broadcast(f'[club]\nenabled = true\nbroker = "{first.url}"\n')
        assert _broadcast(f'[club]\nenabled = true\nbroker = "{second.url}"\nclub = "chess-hall"\n'
                          f'table = "t7"\n')
        on_first, on_second = _retained(first.url), _retained(second.url)
    finally:
        first.stop()
        second.stop()
    assert sorted(on_first) == ["fenix/club/table1/online", "fenix/club/table1/state"]
    assert sorted(on_second) == ["fenix/chess-hall/t7/online", "fenix/chess-hall/t7/state"]
    # A name that cannot be a topic level is refused, naming the key.
    from fenix_table.errors import ConfigError
    with pytest.raises(ConfigError, match="club.table: table 'a/b'"):
        _broadcast('[club]\nenabled = true\ntable = "a/b"\n')


def test_club_password_file_logs_the_table_in(tmp_path):
    from tests.club.conftest import PASSWORDS
    broker = _mosquitto(tmp_path / "broker", PASSWORDS)
    (tmp_path / "pw").write_text(PASSWORDS["table02"] + "\n")
    try:
        base = f'[club]\nenabled = true\nbroker = "{broker.url}"\ntable = "table02"\n'
        assert _broadcast(base, refused=True)                      # no login: refused
        assert _retained(broker.url, "viewer", PASSWORDS["viewer"]) == {}
        assert _broadcast(base + f'password_file = "{tmp_path / "pw"}"\n')
        found = _retained(broker.url, "viewer", PASSWORDS["viewer"])
    finally:
        broker.stop()
    assert sorted(found) == ["fenix/club/table02/online", "fenix/club/table02/state"]


def test_club_ca_file_is_the_certificate_the_broker_is_checked_with(tmp_path):
    import shutil
    import subprocess
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (it makes the test's certificate)")
    cert, key = tmp_path / "broker.crt", tmp_path / "broker.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    broker = _mosquitto(tmp_path / "broker", tls=(cert, key))
    try:
        base = f'[club]\nenabled = true\nbroker = "{broker.url}"\n'
        # The system's certificates do not vouch for the club's own: nothing is sent.
        assert _broadcast(base, refused=True)
        assert _retained(broker.url, ca_file=str(cert)) == {}
        assert _broadcast(base + f'ca_file = "{cert}"\n')
        found = _retained(broker.url, ca_file=str(cert))
    finally:
        broker.stop()
    assert sorted(found) == ["fenix/club/table1/online", "fenix/club/table1/state"]


# --------------------------------------------------------------------------------------
# [opponent]: a game against the computer
# --------------------------------------------------------------------------------------

def test_opponent_side_is_the_side_the_computer_plays(run_with, base):
    from fenix_table.rules import Position, legal_moves

    assert base.setup.computer is None and base.computer is None and base.computer_move is None
    red = run_with({"opponent": {"side": "red", "movetime": 0.2}})
    # The recording's game starts with Red to move: the computer chose Red's first move,
    # legal in the game's start position, and the screen says to make it.
    assert red.setup.computer == "red" and red.computer[0] == "red"
    move = red.computer_move
    assert move is not None and move.side == "red"
    start = Position.start(red.setup.size)
    assert move.fpn == start.fpn() and move.move in {m.token for m in legal_moves(start)}
    assert ("banner_heading", f"Move my piece: {move.move}") in red.drawn
    black = run_with({"opponent": {"side": "black", "movetime": 0.2}})
    assert black.setup.computer == "black" and black.computer[0] == "black"
    assert black.computer_move is None or black.computer_move.side == "black"


def test_opponent_level_and_movetime_are_how_the_computer_searches(run_with):
    weak = run_with({"opponent": {"side": "red", "level": 2, "movetime": 0.2}})
    strong = run_with({"opponent": {"side": "red", "level": 7, "movetime": 0.3}})
    assert weak.computer == ("red", 2, 0.2) and strong.computer == ("red", 7, 0.3)
    assert weak.computer_move.level == 2 and strong.computer_move.level == 7
    assert weak.computer_move.depth == 1          # level 2 looks one ply ahead
    # --computer SIDE:LEVEL overrides the configuration for one run.
    from fenix_table.display.main import computer_setup
    config = Config.from_toml("[opponent]\nside = \"red\"\nlevel = 3\nmovetime = 0.5\n")
    assert computer_setup(None, config) == dict(computer="red", computer_level=3,
                                                computer_movetime=0.5)
    assert computer_setup(("black", 6), config) == dict(computer="black", computer_level=6,
                                                        computer_movetime=0.5)
    assert computer_setup(("none", None), config)["computer"] is None

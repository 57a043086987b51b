"""The TOML configuration file: camera, board, rules, referee, display, GPIO, record.

Every section is a frozen dataclass with defaults, so an empty (or missing) file is a
complete configuration. :func:`load_config` finds the file, parses it and validates every
key: an unknown key, a wrong type, a value out of range or an impossible GPIO pin raises
:class:`~fenix_table.errors.ConfigError` with one line naming the file and the key::

    /etc/fenix-table/config.toml: gpio.buzzer: pin 17 is already used by gpio.red_turn

Which file is read (first match wins):

1. the ``path`` argument (the global ``fenix-table --config FILE`` option);
2. the ``FENIX_TABLE_CONFIG`` environment variable;
3. ``config.toml`` in the user configuration directory (platformdirs, e.g.
   ``~/.config/fenix-table/config.toml``);
4. ``/etc/fenix-table/config.toml`` (what ``systemd/install.sh`` writes on the Pi).

A file named explicitly (1, 2) must exist; when none of 3, 4 exists the defaults apply.
Relative paths inside the file (calibration, database) are relative to the file's folder.

This module is also the ``fenix-table config show`` command; it imports only the standard
library at module level (the rules engine and platformdirs are imported when needed).
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, Optional, Tuple

from .errors import ConfigError

ENV_VAR = "FENIX_TABLE_CONFIG"
SYSTEM_PATH = "/etc/fenix-table/config.toml"
APP_NAME = "fenix-table"

#: GPIO numbers (BCM) on the 40-pin header. GPIO0/1 are reserved for the HAT ID EEPROM.
HEADER_GPIOS = range(2, 28)
LANGUAGES = ("en", "de", "fr", "nl")


# --------------------------------------------------------------------------------------
# Field kinds: each field's metadata says how its TOML value is checked.
# --------------------------------------------------------------------------------------

def _kind(kind: str, default: Any, **meta: Any) -> Any:
    return field(default=default, metadata={"kind": kind, **meta})


def _choice(default: str, *choices: str) -> Any:
    return _kind("choice", default, choices=choices)


def _int(default: int, low: int, high: Optional[int] = None) -> Any:
    return _kind("int", default, low=low, high=high)


def _float(default: float, low: float, high: float) -> Any:
    return _kind("float", default, low=low, high=high)


def _bool(default: bool) -> Any:
    return _kind("bool", default)


def _str(default: str) -> Any:
    return _kind("str", default)


def _path(default: str) -> Any:
    return _kind("path", default)


def _pin(default: Optional[int]) -> Any:
    """A BCM GPIO number; ``false`` in the file means the part is not fitted (``None``)."""
    return _kind("pin", default)


@dataclass(frozen=True)
class CameraConfig:
    #: ``auto`` (the Pi camera when picamera2 is installed, else webcam 0), ``picamera2``,
    #: a webcam index such as ``"0"``, a video file, an image or a folder of images.
    source: str = _str("auto")
    width: int = _int(1280, 160, 4608)
    height: int = _int(960, 120, 3456)
    #: ``"auto"`` (measured at start, then frozen) or a fixed exposure in microseconds.
    exposure: Any = _kind("exposure", "auto")

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> "CameraConfig":
        """The section from plain values (``{"width": 640, "exposure": 10000}``; missing
        keys keep their defaults), checked as the file's are: ConfigError names the key."""
        return _section("camera", cls, values, None)

    @property
    def size(self) -> Tuple[int, int]:
        return self.width, self.height

    @property
    def fixed_exposure(self) -> Optional[int]:
        """The exposure time in microseconds, or None for ``"auto"``."""
        return None if self.exposure == "auto" else self.exposure

    def resolved_source(self) -> str:
        """The source spec for ``vision.sources.open_source``: ``auto`` resolved."""
        if self.source != "auto":
            return self.source
        import importlib.util
        return "picamera2" if importlib.util.find_spec("picamera2") else "0"


@dataclass(frozen=True)
class BoardConfig:
    #: Which board side is used: ``auto`` lets vision recognise it.
    side: str = _choice("auto", "auto", "9x9", "7x8")
    #: Calibration file; empty: the one ``fenix-table calibrate`` saves by default (the user
    #: configuration folder), when there is one.
    calibration: str = _path("")


@dataclass(frozen=True)
class RulesConfig:
    preset: str = _choice("official", "official", "strike")
    #: Option overrides, e.g. ``{"no_move": "draw"}`` (names and values from rules.md).
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}),
                                       metadata={"kind": "options"})

    def rules(self):
        """The rules engine's ``Rules`` object for this preset and options."""
        from .rules import Rules
        return Rules.preset(self.preset, **dict(self.options))


@dataclass(frozen=True)
class RefereeConfig:
    #: ``referee`` stops the game on a violation; ``casual`` only points it out.
    mode: str = _choice("referee", "referee", "casual")
    #: Frames the board must stay unchanged before a move is read.
    stable_frames: int = _int(3, 1, 100)


@dataclass(frozen=True)
class DisplayConfig:
    language: str = _choice("en", *LANGUAGES)
    #: ``"auto"``: fullscreen on the Pi's console, a window on a desktop; or true/false.
    fullscreen: Any = _kind("auto_bool", "auto")
    #: Turns the board picture clockwise (degrees), so either player's camp can be at the bottom.
    rotation: int = _kind("rotation", 0)
    #: Window size; 0 means the screen's own size.
    width: int = _int(0, 0, 7680)
    height: int = _int(0, 0, 4320)
    camera_inset: bool = _bool(True)
    #: Show each side's thinking time.
    clocks: bool = _bool(False)

    @property
    def fullscreen_choice(self) -> Optional[bool]:
        """``None`` for ``"auto"`` (as ``display.app.open_screen`` takes it), else the bool."""
        return None if self.fullscreen == "auto" else self.fullscreen

    @property
    def quarter_turns(self) -> int:
        """``rotation`` in clockwise quarter turns (0-3)."""
        return self.rotation // 90


PIN_NAMES = ("red_turn", "black_turn", "capture", "violation", "buzzer",
             "move_button", "clock_red", "clock_black", "rgb_red", "rgb_green", "rgb_blue")
RGB_PINS = PIN_NAMES[-3:]


@dataclass(frozen=True)
class GpioConfig:
    """Pins are BCM numbers (GPIO17 is ``17``); ``false`` means the part is not fitted.

    Defaults match ``hardware/pinmap.md``: four LEDs and the buzzer are fitted, the
    buttons are optional.
    """

    #: ``false``: never touch GPIO (the app runs without lights).
    enabled: bool = _bool(True)
    red_turn: Optional[int] = _pin(17)
    black_turn: Optional[int] = _pin(27)
    capture: Optional[int] = _pin(22)
    violation: Optional[int] = _pin(23)
    buzzer: Optional[int] = _pin(24)
    move_button: Optional[int] = _pin(None)
    clock_red: Optional[int] = _pin(None)
    clock_black: Optional[int] = _pin(None)
    #: Optional RGB LED showing whose turn it is (all three pins, or none).
    rgb_red: Optional[int] = _pin(None)
    rgb_green: Optional[int] = _pin(None)
    rgb_blue: Optional[int] = _pin(None)
    #: Common-anode RGB LEDs light when the pin is low.
    rgb_common_anode: bool = _bool(False)
    #: The RGB LED's colour for Black's turn (there is no black light).
    rgb_black: str = _choice("blue", "blue", "white", "green")
    #: LED brightness 0.0-1.0 (PWM).
    brightness: float = _float(1.0, 0.0, 1.0)
    #: Buzzer on/off (a fitted buzzer stays silent when false).
    sound: bool = _bool(True)

    def pins(self) -> dict:
        """Fitted parts only: ``{"red_turn": 17, ...}``."""
        return {name: getattr(self, name) for name in PIN_NAMES if getattr(self, name) is not None}


@dataclass(frozen=True)
class RecordConfig:
    #: SQLite game archive; empty: ``games.sqlite3`` in the user data directory.
    database: str = _path("")
    #: Keep the still camera frame of each committed move (JPEG) with the move in the
    #: database; ``fenix-table games show ID --frames DIR`` writes them out.
    save_frames: bool = _bool(False)


@dataclass(frozen=True)
class ClubConfig:
    """The club broadcast (``fenix_table/club``): off unless ``enabled``."""

    #: Publish this table's game on the club's MQTT broker (needs ``fenix-table[club]``).
    enabled: bool = _bool(False)
    #: ``mqtt://HOST[:PORT]``, or ``mqtts://HOST[:PORT]`` for TLS.
    broker: str = _str("mqtt://localhost:1883")
    #: Names in the topics ``fenix/<club>/<table>/...``; the table logs in as ``table``.
    club: str = _str("club")
    table: str = _str("table1")
    #: File holding this table's broker password; empty: no login (an open broker).
    password_file: str = _path("")
    #: The club's CA certificate for ``mqtts://``; empty: the system's certificates.
    ca_file: str = _path("")


@dataclass(frozen=True)
class OpponentConfig:
    """A game against the computer (``fenix-table run``): off unless ``side`` names one."""

    #: The side the computer plays: "none" (people play both), "red" or "black".
    side: str = _choice("none", "none", "red", "black")
    #: Its level: 1 (a beginner who misses captures now and then) to 8 (the strongest).
    level: int = _int(4, 1, 8)
    #: Seconds it thinks a move (2 on a Raspberry Pi 4 is about the desktop's 0.4).
    movetime: float = _float(2.0, 0.05, 60.0)


def configured_database(path: Optional[str], config_path: Optional[str] = None) -> Optional[str]:
    """The game archive to use: ``path`` when given (``--db``), else the configuration's
    ``record.database``, else None (the user data folder). An empty ``--db ""`` is given
    on as it is: the archive refuses it with one line, never a throwaway database."""
    if path is not None:
        return path
    return load_config(config_path).record.database or None


SECTIONS = {
    "camera": CameraConfig,
    "board": BoardConfig,
    "rules": RulesConfig,
    "referee": RefereeConfig,
    "display": DisplayConfig,
    "gpio": GpioConfig,
    "record": RecordConfig,
    "club": ClubConfig,
    "opponent": OpponentConfig,
}


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``source`` is the file it came from (``None``: defaults)."""

    camera: CameraConfig = field(default_factory=CameraConfig)
    board: BoardConfig = field(default_factory=BoardConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)
    referee: RefereeConfig = field(default_factory=RefereeConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    record: RecordConfig = field(default_factory=RecordConfig)
    club: ClubConfig = field(default_factory=ClubConfig)
    opponent: OpponentConfig = field(default_factory=OpponentConfig)
    source: Optional[str] = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: Optional[str] = None,
                  source: Optional[str] = None) -> "Config":
        """Validate parsed TOML. Raises ConfigError naming the first bad key."""
        if not isinstance(data, Mapping):
            raise ConfigError("expected a table of sections")
        sections = {}
        for name, values in data.items():
            if name not in SECTIONS:
                raise ConfigError(f"unknown section [{name}] (known: {', '.join(SECTIONS)})")
            if not isinstance(values, Mapping):
                raise ConfigError(f"{name}: expected a [{name}] table, got {_show(values)}")
            sections[name] = _section(name, SECTIONS[name], values, base_dir)
        config = cls(**sections, source=source)
        _check_pins(config.gpio)
        _check_rules(config.rules)
        return config

    @classmethod
    def from_toml(cls, text: str, source: Optional[str] = None) -> "Config":
        """Parse and validate TOML text; ``source`` (a path) names it in errors and anchors
        relative paths."""
        tomllib = _tomllib()
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(_prefix(source, f"invalid TOML: {error}")) from None
        base_dir = os.path.dirname(os.path.abspath(source)) if source else None
        try:
            return cls.from_dict(data, base_dir=base_dir, source=source)
        except ConfigError as error:
            raise ConfigError(_prefix(source, str(error))) from None

    def to_dict(self) -> dict:
        """Every section with every key (``None`` pins as ``False``, as in the file)."""
        out = {}
        for name in SECTIONS:
            section = getattr(self, name)
            values = {}
            for f in dataclasses.fields(section):
                value = getattr(section, f.name)
                if f.metadata.get("kind") == "pin" and value is None:
                    value = False
                elif isinstance(value, Mapping):
                    value = dict(value)
                values[f.name] = value
            out[name] = values
        return out

    def to_toml(self) -> str:
        """The effective configuration as TOML that :meth:`from_toml` reads back."""
        lines = []
        for name, values in self.to_dict().items():
            tables = {k: v for k, v in values.items() if isinstance(v, dict)}
            lines.append(f"[{name}]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in values.items() if k not in tables]
            for key, table in tables.items():
                lines.append("")
                lines.append(f"[{name}.{key}]")
                lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
            lines.append("")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------

def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, Mapping)):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _prefix(source: Optional[str], message: str) -> str:
    return f"{source}: {message}" if source else message


def _section(name: str, cls, values: Mapping[str, Any], base_dir: Optional[str]):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in values.items():
        if key not in fields:
            raise ConfigError(f"{name}.{key}: unknown key (known: {', '.join(fields)})")
        kwargs[key] = _value(f"{name}.{key}", fields[key].metadata, value, base_dir)
    return cls(**kwargs)


def _value(where: str, meta: Mapping[str, Any], value: Any, base_dir: Optional[str]) -> Any:
    kind = meta["kind"]
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {_show(value)}")
        return value
    if kind in ("str", "path"):
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {_show(value)}")
        if kind == "path" and value:
            value = os.path.expanduser(value)
            if base_dir and not os.path.isabs(value):
                value = os.path.normpath(os.path.join(base_dir, value))
        return value
    if kind == "choice":
        if value not in meta["choices"]:
            raise ConfigError(f"{where}: expected one of {'|'.join(meta['choices'])}, "
                              f"got {_show(value)}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected a whole number, got {_show(value)}")
        low, high = meta["low"], meta["high"]
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise ConfigError(f"{where}: {value} is out of range ({bound})")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {_show(value)}")
        if not meta["low"] <= value <= meta["high"]:
            raise ConfigError(f"{where}: {value} is out of range ({meta['low']}..{meta['high']})")
        return float(value)
    if kind == "auto_bool":
        if value != "auto" and not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true, false or \"auto\", got {_show(value)}")
        return value
    if kind == "rotation":
        if isinstance(value, bool) or value not in (0, 90, 180, 270):
            raise ConfigError(f"{where}: expected 0, 90, 180 or 270, got {_show(value)}")
        return value
    if kind == "exposure":
        if value == "auto":
            return value
        if isinstance(value, bool) or not isinstance(value, int) or not 10 <= value <= 1_000_000:
            raise ConfigError(f"{where}: expected \"auto\" or microseconds (10..1000000), "
                              f"got {_show(value)}")
        return value
    if kind == "pin":
        if value is False:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected a BCM GPIO number (e.g. 17) or false, "
                              f"got {_show(value)}")
        if value in (0, 1):
            raise ConfigError(f"{where}: GPIO{value} is reserved for the HAT ID EEPROM; "
                              f"use GPIO2-GPIO27")
        if value not in HEADER_GPIOS:
            raise ConfigError(f"{where}: {value} is not a GPIO on the 40-pin header "
                              f"(BCM numbers 2-27)")
        return value
    if kind == "options":
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: expected a table of rules options, got {_show(value)}")
        for key, option in value.items():
            if isinstance(option, (Mapping, list)):
                raise ConfigError(f"{where}.{key}: expected a single value, got {_show(option)}")
        return MappingProxyType(dict(value))
    raise AssertionError(kind)


def _check_pins(gpio: GpioConfig) -> None:
    fitted = [name for name in RGB_PINS if getattr(gpio, name) is not None]
    if fitted and len(fitted) < 3:
        missing = next(name for name in RGB_PINS if name not in fitted)
        raise ConfigError(f"gpio.{missing}: an RGB LED needs all of "
                          f"{', '.join(RGB_PINS)} (or none)")
    used: dict = {}
    for name in PIN_NAMES:
        pin = getattr(gpio, name)
        if pin is None:
            continue
        if pin in used:
            raise ConfigError(f"gpio.{name}: pin {pin} is already used by gpio.{used[pin]}")
        used[pin] = name


def _check_rules(rules: RulesConfig) -> None:
    # One option at a time, so the error names the exact key.
    from .errors import RulesOptionError
    from .rules import Rules
    for key, value in rules.options.items():
        try:
            Rules.preset(rules.preset, **{key: value})
        except RulesOptionError as error:
            message = str(error).removeprefix(f"option {key}: ")
            raise ConfigError(f"rules.options.{key}: {message}") from None


def _tomllib():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    # JSON string escaping is valid TOML basic-string escaping for the characters we emit.
    return json.dumps(str(value), ensure_ascii=False)


# --------------------------------------------------------------------------------------
# Finding and loading the file
# --------------------------------------------------------------------------------------

def user_path() -> str:
    """``config.toml`` in the user configuration directory (platformdirs)."""
    from platformdirs import user_config_dir
    return os.path.join(user_config_dir(APP_NAME), "config.toml")


def find_config(path: Optional[str] = None) -> Tuple[Optional[str], bool]:
    """``(path, explicit)``: the file :func:`load_config` would read, or ``(None, False)``
    when none exists and the defaults apply. ``explicit`` files must exist."""
    if path:
        return path, True
    env = os.environ.get(ENV_VAR)
    if env:
        return env, True
    for candidate in (user_path(), SYSTEM_PATH):
        if os.path.isfile(candidate):
            return candidate, False
    return None, False


#: The largest configuration file read (the complete, commented example is 2.5 KiB).
MAX_CONFIG_BYTES = 256 * 1024


def load_config(path: Optional[str] = None) -> Config:
    """The validated configuration (see the module docstring for the search order).

    Raises ConfigError when a named file is missing or unreadable, or any key is invalid.
    """
    found, _ = find_config(path)
    if found is None:
        return Config()
    from .files import read_text

    text = read_text(found, MAX_CONFIG_BYTES, "configuration file", ConfigError)
    return Config.from_toml(text, source=found)


# --------------------------------------------------------------------------------------
# fenix-table config show
# --------------------------------------------------------------------------------------

def register(subparsers) -> None:
    import argparse

    config = subparsers.add_parser(
        "config", help="show the effective configuration",
        description="Inspect the configuration file (TOML). The global --config FILE option "
                    f"or ${ENV_VAR} picks the file; otherwise config.toml in the user "
                    f"configuration directory, then {SYSTEM_PATH}.")
    actions = config.add_subparsers(dest="config_command", metavar="ACTION")
    actions.required = True
    show = actions.add_parser(
        "show", help="print the effective configuration (file values over defaults)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("--json", action="store_true", help="print JSON instead of TOML")
    show.set_defaults(handler=run_show)
    path = actions.add_parser("path", help="print which file would be read")
    path.set_defaults(handler=run_path)


def run_show(args) -> int:
    config = load_config(getattr(args, "config", None))
    if args.json:
        print(json.dumps({"source": config.source, **config.to_dict()}, indent=2))
        return 0
    print(f"# effective configuration, read from {config.source}" if config.source
          else "# effective configuration: defaults (no configuration file found)")
    print(config.to_toml(), end="")
    return 0


def run_path(args) -> int:
    found, explicit = find_config(getattr(args, "config", None))
    if found is None:
        print(f"none (defaults); would read {user_path()} or {SYSTEM_PATH}")
    else:
        print(found)
        if explicit and not os.path.isfile(found):
            raise ConfigError(f"{found}: no such configuration file")
    return 0

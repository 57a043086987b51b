"""Status LEDs, buzzer and buttons on GPIO (gpiozero), driven by referee events.

:class:`Lights` owns the gpiozero devices; what they show comes from the pure
:class:`~fenix_table.device.patterns.LightsModel`. A background thread samples the model
every ``tick`` seconds and writes only the pins whose level changed, so all blinking
stays in step and a burst of events never restarts a pattern.

Without GPIO (a laptop, or ``[gpio] enabled = false``) :meth:`Lights.from_config` returns
a Lights with no devices: ``handle`` still tracks the state, nothing is written, and the
log says once ``no GPIO: running without lights``.

Wiring (see ``hardware/pinmap.md``): each LED from its GPIO through a resistor to GND
(active high); the buzzer through an NPN transistor (active high); buttons from the GPIO
to GND (the internal pull-up is used, so a press reads low).
"""
from __future__ import annotations

import logging
import threading
import time
import warnings
from typing import Callable, Dict, Mapping, Optional

from ..errors import ConfigError
from .patterns import LEDS, LightsModel, timeline

log = logging.getLogger("fenix_table.device")

BUTTONS = ("move_button", "clock_red", "clock_black")
RGB = ("rgb_red", "rgb_green", "rgb_blue")
#: The RGB turn LED's colour for each side (Black has no light of its own).
RGB_COLOURS = {"red": (1, 0, 0), "blue": (0, 0, 1), "white": (1, 1, 1), "green": (0, 1, 0)}
BOUNCE_TIME = 0.05
_warned_no_gpio = False


class Lights:
    """The table's LEDs, buzzer and buttons.

    ``pins`` maps part names to BCM pin numbers; only the parts present are used:
    LEDs ``red_turn``, ``black_turn``, ``capture``, ``violation``; ``buzzer``; buttons
    ``move_button``, ``clock_red``, ``clock_black``; an RGB LED ``rgb_red``, ``rgb_green``,
    ``rgb_blue`` (all three) that shows whose turn it is: red for Red, ``rgb_black`` (blue,
    white or green) for Black, with the same blinking as the two turn LEDs
    (``rgb_common_anode`` for LEDs that light on a low pin). ``brightness`` below 1
    drives the LEDs with PWM. ``sound=False`` leaves the buzzer silent (its pin is not
    claimed).
    ``pin_factory`` is passed to gpiozero (tests use ``MockFactory``); ``clock`` is
    injectable and ``background=False`` leaves calling :meth:`tick` to the caller, so
    tests step time exactly.

    Callbacks (called from gpiozero's thread; keep them short, e.g. put into a queue):

    * ``on_move_done()``: the move button was pressed, or the clock button of the side to
      move (a chess-clock press ends your own turn).
    * ``on_clock(side)``: a clock button was pressed (``"red"`` or ``"black"``), whoever's
      turn it is.

    Raises ConfigError when a pin cannot be claimed (naming the ``gpio.<part>`` key).

    >>> from gpiozero.pins.mock import MockFactory
    >>> lights = Lights({"red_turn": 17}, pin_factory=MockFactory(), background=False)
    >>> from fenix_table.referee.events import TurnStarted
    >>> lights.handle(TurnStarted("red", fpn="..."))
    >>> lights.tick(); lights.leds["red_turn"].value
    1
    >>> lights.close()
    """

    #: The table calls :meth:`handle` with every event, as one of its outputs.
    name = "lights"

    def __init__(self, pins: Optional[Mapping[str, int]] = None, *, brightness: float = 1.0,
                 sound: bool = True, rgb_common_anode: bool = False, rgb_black: str = "blue",
                 pin_factory=None, clock: Callable[[], float] = time.monotonic,
                 background: bool = True, tick: float = 0.02) -> None:
        pins = dict(pins or {})
        unknown = set(pins) - set(LEDS) - {"buzzer"} - set(BUTTONS) - set(RGB)
        if unknown:
            raise ConfigError(f"unknown GPIO part(s): {', '.join(sorted(unknown))}")
        if any(name in pins for name in RGB) and not all(name in pins for name in RGB):
            raise ConfigError(f"an RGB LED needs all of {', '.join(RGB)}")
        if rgb_black not in RGB_COLOURS or rgb_black == "red":
            raise ConfigError(f"gpio.rgb_black: {rgb_black!r} is not one of blue|white|green")
        self.rgb_colours = {"red": RGB_COLOURS["red"], "black": RGB_COLOURS[rgb_black]}
        if not 0.0 <= brightness <= 1.0:
            raise ConfigError(f"gpio.brightness: {brightness} is out of range (0..1)")
        self.model = LightsModel()
        self.clock = clock
        self.brightness = brightness
        self.on_move_done: Optional[Callable[[], None]] = None
        self.on_clock: Optional[Callable[[str], None]] = None
        self.leds: Dict[str, object] = {}
        self.buzzer = None
        self.rgb = None
        self.buttons: Dict[str, object] = {}
        self._written: Dict[str, float] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._closed = False
        try:
            self._open(pins, sound, rgb_common_anode, pin_factory)
        except BaseException:
            self._close_devices()
            raise
        if background and (self.leds or self.buzzer or self.rgb):
            self._thread = threading.Thread(target=self._run, args=(tick,),
                                            name="fenix-lights", daemon=True)
            self._thread.start()

    # -- construction ----------------------------------------------------------------

    def _open(self, pins: Dict[str, int], sound: bool, common_anode: bool, pin_factory) -> None:
        from gpiozero import LED, RGBLED, Button, Buzzer, PWMLED

        def claim(name, make):
            try:
                return make()
            except Exception as error:  # gpiozero's own errors, or the pin library's (lgpio)
                if _is_no_gpio(error):
                    raise  # no GPIO at all: from_config turns this into "no lights"
                reason = str(error) or type(error).__name__
                raise ConfigError(f"gpio.{name}: cannot use GPIO{pins[name]}: {reason}") from None

        led_class = LED if self.brightness >= 1.0 else PWMLED
        for name in LEDS:
            if name in pins:
                self.leds[name] = claim(name, lambda: led_class(pins[name], pin_factory=pin_factory))
        if "rgb_red" in pins:
            self.rgb = claim("rgb_red", lambda: RGBLED(
                pins["rgb_red"], pins["rgb_green"], pins["rgb_blue"], active_high=not common_anode,
                pwm=self.brightness < 1.0, pin_factory=pin_factory))
        if sound and "buzzer" in pins:
            self.buzzer = claim("buzzer", lambda: Buzzer(pins["buzzer"], pin_factory=pin_factory))
        for name in BUTTONS:
            if name in pins:
                button = claim(name, lambda: Button(pins[name], pull_up=True,
                                                    bounce_time=BOUNCE_TIME, pin_factory=pin_factory))
                button.when_pressed = self._pressed_callback(name)
                self.buttons[name] = button

    @classmethod
    def from_config(cls, config, pin_factory=None, **kwargs) -> "Lights":
        """Lights for ``config.gpio`` (a :class:`fenix_table.config.Config`).

        No usable GPIO (``enabled = false``, or gpiozero finds no pin factory, as on a
        laptop) gives a Lights without devices and one log line. A pin that exists but
        cannot be claimed raises ConfigError.
        """
        global _warned_no_gpio
        gpio = config.gpio
        if not gpio.enabled:
            log.info("GPIO disabled in the configuration: running without lights")
            return cls(**dict(kwargs, background=False))
        try:
            with warnings.catch_warnings():
                # gpiozero warns once per factory it tries; one log line says it all.
                warnings.simplefilter("ignore")
                return cls(gpio.pins(), brightness=gpio.brightness, sound=gpio.sound,
                           rgb_common_anode=gpio.rgb_common_anode, rgb_black=gpio.rgb_black,
                           pin_factory=pin_factory, **kwargs)
        except ConfigError:
            raise
        except Exception as error:  # BadPinFactory, or gpiozero itself missing
            if not _is_no_gpio(error):
                raise
            if not _warned_no_gpio:
                log.warning("no GPIO: running without lights (%s)", error)
                _warned_no_gpio = True
            return cls(**dict(kwargs, background=False))

    # -- events and time -------------------------------------------------------------

    @property
    def active(self) -> bool:
        """True when at least one output or button is connected."""
        return bool(self.leds or self.buzzer or self.rgb or self.buttons)

    def handle(self, event) -> None:
        """React to one referee event (any kind; unknown kinds change nothing)."""
        with self._lock:
            self.model.handle(event, self.clock())
        self.tick()

    def tick(self, now: Optional[float] = None) -> None:
        """Write the levels for ``now`` (default: the clock) to every pin that changed."""
        with self._lock:
            if self._closed:
                return
            levels = self.model.levels(self.clock() if now is None else now)
            for name, level in levels.items():
                device = self.leds.get(name) if name != "buzzer" else self.buzzer
                if device is None:
                    continue
                value = level * self.brightness if name != "buzzer" and self.brightness < 1.0 else level
                if self._written.get(name) != value:
                    device.value = value
                    self._written[name] = value
            if self.rgb is not None:
                # Red and Black never blink in the same instant, so one colour at a time.
                side = "red" if levels["red_turn"] else "black" if levels["black_turn"] else None
                colour = (0, 0, 0) if side is None else self.rgb_colours[side]
                if self.brightness < 1.0:
                    colour = tuple(c * self.brightness for c in colour)
                if self._written.get("rgb") != colour:
                    self.rgb.value = colour
                    self._written["rgb"] = colour

    def describe(self, now: Optional[float] = None) -> Dict[str, str]:
        """Every output's current pattern in words (``"on"``, ``"blink 0.5s on/0.5s off"``)."""
        with self._lock:
            now = self.clock() if now is None else now
            return {name: p.describe() for name, p in self.model.patterns(now).items()}

    def timeline(self, seconds: float = 2.0, step: float = 0.05) -> Dict[str, str]:
        """Every output as ``#``/``.`` samples over the next ``seconds``."""
        with self._lock:
            return timeline(self.model, self.clock(), seconds, step)

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.tick()
            except Exception:  # a flaky pin must not kill the lights for the whole game
                log.exception("lights: writing the pins failed")

    # -- buttons ---------------------------------------------------------------------

    def _pressed_callback(self, name: str) -> Callable[[], None]:
        def pressed() -> None:
            if name == "move_button":
                self._call(self.on_move_done)
                return
            side = "red" if name == "clock_red" else "black"
            self._call(self.on_clock, side)
            # No lock here: close() may be waiting for this very callback thread.
            if self.model.turn == side:
                self._call(self.on_move_done)
        return pressed

    @staticmethod
    def _call(callback, *args) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # an exception here would vanish in gpiozero's thread
            log.exception("lights: button callback failed")

    # -- closing ---------------------------------------------------------------------

    def close(self) -> None:
        """Stop the thread, switch everything off and release the pins (idempotent)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        with self._lock:
            self._closed = True  # from here on tick() writes nothing
        self._close_devices()

    def _close_devices(self) -> None:
        for device in [*self.leds.values(), self.buzzer, self.rgb, *self.buttons.values()]:
            if device is None:
                continue
            try:
                if hasattr(device, "off"):
                    device.off()
                device.close()
            except Exception:
                pass
        self.leds, self.buzzer, self.rgb, self.buttons = {}, None, None, {}

    def __enter__(self) -> "Lights":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        parts = [*self.leds, *(["rgb"] if self.rgb else []), *(["buzzer"] if self.buzzer else []),
                 *self.buttons]
        return f"<Lights {', '.join(parts) or 'without GPIO'}>"


def _is_no_gpio(error: BaseException) -> bool:
    if isinstance(error, ModuleNotFoundError) and error.name and error.name.startswith("gpiozero"):
        return True
    return type(error).__name__ == "BadPinFactory"


"""Lights on gpiozero's mock pins: pin levels per event, brightness, buzzer, buttons."""
import logging
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from fenix_table.config import Config
from fenix_table.device import Lights
from fenix_table.device import lights as lights_module
from fenix_table.errors import ConfigError
from fenix_table.referee import events as ev

PINS = {"red_turn": 17, "black_turn": 27, "capture": 22, "violation": 23, "buzzer": 24}
FPN = "fpn"


class FakeClock:
    def __init__(self, t=100.0):
        self.t = t

    def __call__(self):
        return self.t


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def clock():
    return FakeClock()


def make(factory, clock, pins=PINS, **kwargs):
    return Lights(pins, pin_factory=factory, clock=clock, background=False, **kwargs)


def states(factory, pins=PINS):
    return {name: factory.pin(number).state for name, number in pins.items()}


def test_pins_follow_each_event(factory, clock):
    with make(factory, clock) as lights:
        assert set(states(factory).values()) == {0}
        lights.handle(ev.TurnStarted("red", fpn=FPN))
        assert states(factory) == {"red_turn": 1, "black_turn": 0, "capture": 0,
                                   "violation": 0, "buzzer": 0}
        lights.handle(ev.CaptureRequired("red", moves=("c3xc5",)))
        assert states(factory)["capture"] == 1
        clock.t += 0.6
        lights.tick()
        assert states(factory)["capture"] == 0
        clock.t += 0.5
        lights.tick()
        assert states(factory)["capture"] == 1
        lights.handle(ev.MoveCommitted("c3xc5", "red", 1, FPN, FPN))
        lights.handle(ev.TurnStarted("black", fpn=FPN))
        assert states(factory) == {"red_turn": 0, "black_turn": 1, "capture": 0,
                                   "violation": 0, "buzzer": 0}


def test_violation_sounds_two_beeps_on_the_buzzer_pin(factory, clock):
    with make(factory, clock) as lights:
        lights.handle(ev.TurnStarted("red", fpn=FPN))
        buzzer = factory.pin(24)
        buzzer.clear_states()
        lights.handle(ev.Violation("bad", "E", None, FPN))
        for dt in (0.05, 0.15, 0.25, 0.35, 0.5, 1.0):
            lights.tick(clock.t + dt)
        buzzer.assert_states([False, True, False, True, False])
        assert factory.pin(23).state == 1
        lights.handle(ev.ViolationCleared("restored"))
        assert factory.pin(23).state == 0


def test_pins_are_written_only_when_the_level_changes(factory, clock):
    with make(factory, clock) as lights:
        lights.handle(ev.TurnStarted("red", fpn=FPN))
        red = factory.pin(17)
        red.clear_states()
        for _ in range(20):
            clock.t += 0.05
            lights.tick()
        assert len(red.states) == 1  # clear_states keeps only the current state


def test_brightness_drives_leds_with_pwm(clock):
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        with make(factory, clock, brightness=0.3) as lights:
            lights.handle(ev.TurnStarted("black", fpn=FPN))
            assert factory.pin(27).state == pytest.approx(0.3)
            assert factory.pin(17).state == 0
            assert factory.pin(24).state == 0  # the buzzer is on/off, never dimmed
            lights.handle(ev.Violation("bad", "E", None, FPN))
            lights.tick(clock.t + 0.05)
            assert factory.pin(23).state == pytest.approx(0.3)
            assert factory.pin(24).state == 1
    finally:
        factory.reset()


def test_sound_off_leaves_the_buzzer_pin_alone(factory, clock):
    with make(factory, clock, sound=False) as lights:
        lights.handle(ev.Violation("bad", "E", None, FPN))
        lights.tick(clock.t + 0.05)
        assert lights.buzzer is None
        assert factory.pin(24).function == "input"  # never claimed as an output


def test_close_switches_everything_off_and_releases_pins(factory, clock):
    lights = make(factory, clock)
    lights.handle(ev.TurnStarted("red", fpn=FPN))
    lights.handle(ev.Violation("bad", "E", None, FPN))
    lights.close()
    assert set(states(factory).values()) == {0}
    lights.close()  # idempotent
    lights.handle(ev.TurnStarted("black", fpn=FPN))  # ignored after close, no error
    # The pins are free again.
    again = make(factory, clock)
    again.close()


def test_move_button_calls_on_move_done(factory, clock):
    pins = {"red_turn": 17, "move_button": 5}
    with make(factory, clock, pins=pins) as lights:
        pressed = []
        lights.on_move_done = lambda: pressed.append("done")
        button = factory.pin(5)
        button.drive_low()   # pressed: the button shorts the pulled-up pin to GND
        button.drive_high()
        assert pressed == ["done"]


def test_clock_button_ends_only_your_own_turn(factory, clock):
    pins = {"clock_red": 6, "clock_black": 13}
    with make(factory, clock, pins=pins) as lights:
        done, clocks = [], []
        lights.on_move_done = lambda: done.append(lights.model.turn)
        lights.on_clock = clocks.append
        lights.handle(ev.TurnStarted("red", fpn=FPN))

        def press(pin):
            factory.pin(pin).drive_low()
            factory.pin(pin).drive_high()
            time.sleep(BOUNCE)  # the next edge must come after the debounce window

        press(13)  # black presses during red's turn: reported, but no move
        press(6)   # red ends red's turn
        lights.handle(ev.TurnStarted("black", fpn=FPN))
        press(13)
        assert clocks == ["black", "red", "black"]
        assert done == ["red", "black"]


BOUNCE = lights_module.BOUNCE_TIME + 0.02


def test_a_failing_callback_does_not_break_the_button(factory, clock, caplog):
    with make(factory, clock, pins={"move_button": 5}) as lights:
        calls = []

        def boom():
            calls.append(1)
            raise RuntimeError("display gone")

        lights.on_move_done = boom
        with caplog.at_level(logging.ERROR, logger="fenix_table.device"):
            factory.pin(5).drive_low()
            factory.pin(5).drive_high()
            time.sleep(BOUNCE)
            factory.pin(5).drive_low()
        assert calls == [1, 1]
        assert "button callback failed" in caplog.text


def test_a_busy_pin_is_a_config_error_naming_the_part(factory, clock):
    from gpiozero import LED
    other = LED(24, pin_factory=factory)  # another program holds the buzzer pin
    try:
        with pytest.raises(ConfigError, match=r"gpio\.buzzer: cannot use GPIO24"):
            make(factory, clock)
        # Nothing stays claimed after the failure: the LEDs can be opened again.
        make(factory, clock, pins={"red_turn": 17}).close()
    finally:
        other.close()


def test_from_config_uses_the_configured_pins(factory, clock, tmp_path):
    config = Config.from_toml("[gpio]\ncapture = false\nmove_button = 5\nsound = false\n")
    with Lights.from_config(config, pin_factory=factory, clock=clock, background=False) as lights:
        assert sorted(lights.leds) == ["black_turn", "red_turn", "violation"]
        assert list(lights.buttons) == ["move_button"] and lights.buzzer is None
        lights.handle(ev.TurnStarted("red", fpn=FPN))
        assert factory.pin(17).state == 1


def test_without_gpio_it_runs_quietly_and_logs_once(monkeypatch, caplog, clock):
    from gpiozero import Device
    monkeypatch.setattr(Device, "pin_factory", None)
    # A factory name that cannot load: what a laptop without GPIO libraries looks like.
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    monkeypatch.setattr(lights_module, "_warned_no_gpio", False)
    with caplog.at_level(logging.INFO, logger="fenix_table.device"):
        first = Lights.from_config(Config(), clock=clock)
        second = Lights.from_config(Config(), clock=clock)
    assert not first.active and not second.active
    assert caplog.text.count("no GPIO: running without lights") == 1
    first.handle(ev.TurnStarted("red", fpn=FPN))
    assert first.describe()["red_turn"] == "on"  # the state is still tracked
    first.close()
    second.close()


def test_disabled_in_config_touches_no_pins(factory, clock):
    config = Config.from_toml("[gpio]\nenabled = false\n")
    lights = Lights.from_config(config, pin_factory=factory, clock=clock)
    assert not lights.active
    assert factory.pins == {}
    lights.close()


def test_background_thread_blinks_in_real_time(factory):
    with Lights({"capture": 22}, pin_factory=factory, tick=0.01) as lights:
        lights.handle(ev.CaptureRequired("red", moves=("c3xc5",)))
        lights.handle(ev.RemoveCaptured("c3xc5", cells=("c4",)))  # 0.15 s on / 0.15 s off
        time.sleep(0.5)
        levels = [s.state for s in factory.pin(22).states]
    # Off, then at least on-off-on within half a second.
    assert levels[:4] == [False, True, False, True]


RGB = {"rgb_red": 12, "rgb_green": 16, "rgb_blue": 26}


def rgb_state(factory):
    return tuple(factory.pin(n).state for n in RGB.values())


def test_rgb_led_shows_whose_turn_it_is(factory, clock):
    with make(factory, clock, pins=RGB) as lights:
        assert rgb_state(factory) == (0, 0, 0)
        lights.handle(ev.TurnStarted("red", fpn=FPN))
        assert rgb_state(factory) == (1, 0, 0)
        lights.handle(ev.TurnStarted("black", fpn=FPN))
        assert rgb_state(factory) == (0, 0, 1)
        lights.handle(ev.GameOver("1/2-1/2", None, "repetition", "Draw"))
        seen = set()
        for dt in (0.1, 0.5, 0.9, 1.3):  # a draw alternates red and black
            lights.tick(clock.t + dt)
            seen.add(rgb_state(factory))
        assert seen == {(1, 0, 0), (0, 0, 1)}
    assert rgb_state(factory) == (0, 0, 0)


def test_rgb_common_anode_white_and_dimmed(clock):
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        with make(factory, clock, pins=RGB, rgb_common_anode=True, rgb_black="white",
                  brightness=0.5) as lights:
            # Common anode: off is a high pin.
            assert rgb_state(factory) == (1, 1, 1)
            lights.handle(ev.TurnStarted("black", fpn=FPN))
            assert rgb_state(factory) == pytest.approx((0.5, 0.5, 0.5))
            lights.handle(ev.TurnStarted("red", fpn=FPN))
            assert rgb_state(factory) == pytest.approx((0.5, 1, 1))
    finally:
        factory.reset()


def test_rgb_needs_all_three_pins(factory, clock):
    with pytest.raises(ConfigError, match="an RGB LED needs all of rgb_red, rgb_green, rgb_blue"):
        make(factory, clock, pins={"rgb_red": 12, "rgb_green": 16})


def test_an_error_from_the_pin_library_names_the_part(clock):
    from gpiozero.pins.mock import MockPin

    class BusyPin(MockPin):
        def __init__(self, factory, info):
            if info.name == "GPIO22":
                raise OSError("GPIO busy")
            super().__init__(factory, info)

    factory = MockFactory(pin_class=BusyPin)
    try:
        with pytest.raises(ConfigError, match=r"^gpio\.capture: cannot use GPIO22: GPIO busy$"):
            make(factory, clock)
    finally:
        factory.reset()


def test_docstring_example_runs():
    import doctest
    assert doctest.testmod(lights_module).failed == 0

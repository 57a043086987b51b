"""Against the computer: "your turn to move my piece" on the lights and the buzzer, from
the ComputerMove event until the move is on the board (the pattern model, and the pins
through gpiozero's MockFactory)."""
from gpiozero.pins.mock import MockFactory

from fenix_table.device import Lights
from fenix_table.device.patterns import (COMPUTER_MOVE_FLASHES, ON, Flashes, LightsModel)
from fenix_table.referee import events as ev

FPN = "fpn"
ASKED = ev.ComputerMove(side="black", move="c7-c6", fpn=FPN, path=("c7", "c6"))


def test_the_computers_turn_led_double_flashes_and_the_buzzer_chirps_until_the_move_is_made():
    model = LightsModel()
    model.handle(ev.TurnStarted("black", fpn=FPN), 0)
    model.handle(ev.ComputerThinking(side="black", fpn=FPN, depth=3), 1)
    assert model.patterns(1.5)["black_turn"] == ON          # thinking: its turn, steady
    model.handle(ASKED, 10)
    assert model.patterns(10)["black_turn"] == Flashes(COMPUTER_MOVE_FLASHES, start=10)
    period = sum(on + off for on, off in COMPUTER_MOVE_FLASHES)
    led = [model.levels(10 + k * period + dt)["black_turn"]
           for k in (0, 3) for dt in (0.05, 0.15, 0.25, 0.5)]
    assert led == [1, 0, 1, 0] * 2                            # two flashes, a pause, again
    buzz = [model.levels(10 + dt)["buzzer"] for dt in (0.02, 0.1, 0.15, 0.23, 0.28, 0.5)]
    assert buzz == [1, 0, 1, 0, 1, 0]                         # three chirps, then quiet
    assert model.patterns(11)["red_turn"].level(11) == 0
    model.handle(ev.MoveCommitted("c7-c6", "black", 2, FPN, FPN), 12)
    assert model.patterns(12)["black_turn"] == ON
    model.handle(ev.TurnStarted("red", fpn=FPN), 12)
    assert model.patterns(12)["black_turn"].level(12) == 0


def test_a_wrong_execution_stops_the_flashing_and_the_repeated_request_starts_it_again():
    model = LightsModel()
    model.handle(ev.TurnStarted("black", fpn=FPN), 0)
    model.handle(ASKED, 1)
    model.handle(ev.Violation("the computer asked for c7-c6", "computer_asked", "a7-a6", FPN), 3)
    assert model.patterns(3)["black_turn"] == ON and model.patterns(3)["violation"] == ON
    model.handle(ev.ViolationCleared("restored"), 5)
    model.handle(ASKED, 5)
    assert model.patterns(5)["black_turn"] == Flashes(COMPUTER_MOVE_FLASHES, start=5)
    assert model.levels(5.02)["buzzer"] == 1


def test_the_pins_follow_the_pattern():
    now = [0.0]
    lights = Lights({"red_turn": 17, "black_turn": 27, "buzzer": 24},
                    pin_factory=MockFactory(), clock=lambda: now[0], background=False)
    try:
        lights.handle(ev.TurnStarted("black", fpn=FPN))
        now[0] = 2.0
        lights.handle(ASKED)
        seen = []
        for t in (2.02, 2.15, 2.28, 2.5):
            lights.tick(t)
            seen.append((lights.leds["black_turn"].value, lights.buzzer.value))
        assert seen == [(1, 1), (0, 1), (1, 1), (0, 0)]
        assert lights.leds["red_turn"].value == 0
    finally:
        lights.close()

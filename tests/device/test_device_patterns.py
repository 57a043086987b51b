"""LightsModel: which pattern every output shows after each referee event (no GPIO)."""
from fenix_table.device.patterns import (
    CAPTURE_BLINK, OFF, ON, REMOVE_BLINK, Beeps, Blink, LightsModel, timeline)
from fenix_table.referee import events as ev

FPN = "fpn"


def model_after(*timed_events):
    model = LightsModel()
    for t, event in timed_events:
        model.handle(event, t)
    return model


def test_nothing_lit_before_the_first_turn():
    assert set(LightsModel().levels(0.0).values()) == {0}


def test_turn_led_follows_the_side_to_move():
    model = model_after((0, ev.TurnStarted("red", fpn=FPN)))
    assert model.patterns(1)["red_turn"] == ON and model.patterns(1)["black_turn"] == OFF
    model.handle(ev.TurnStarted("black", fpn=FPN), 2)
    assert model.patterns(3)["red_turn"] == OFF and model.patterns(3)["black_turn"] == ON
    assert model.turn == "black"


def test_capture_blinks_until_the_capture_is_made():
    model = model_after((0, ev.TurnStarted("red", fpn=FPN)),
                        (10, ev.CaptureRequired("red", moves=("c3xc5",))))
    on, off = CAPTURE_BLINK
    assert model.patterns(10)["capture"] == Blink(on, off, start=10)
    # Phase starts at the event: lit first, dark after `on` seconds, lit again a period later.
    assert [model.levels(10 + dt)["capture"] for dt in (0, on - 0.01, on + 0.01, on + off + 0.01)] \
        == [1, 1, 0, 1]
    model.handle(ev.RemoveCaptured("c3xc5", cells=("c4",)), 12)
    assert model.patterns(12)["capture"] == Blink(*REMOVE_BLINK, start=12)
    model.handle(ev.MoveCommitted("c3xc5", "red", 1, FPN, FPN, captured=("c4",)), 13)
    assert model.patterns(13)["capture"] == OFF
    assert model.patterns(13)["red_turn"] == ON  # stays until the next TurnStarted


def test_new_turn_clears_a_stale_capture_request():
    model = model_after((0, ev.CaptureRequired("red", moves=("c3xc5",))),
                        (1, ev.TurnStarted("black", fpn=FPN)))
    assert model.patterns(2)["capture"] == OFF


def test_violation_is_steady_with_two_beeps_until_cleared():
    model = model_after((0, ev.TurnStarted("red", fpn=FPN)),
                        (5, ev.Violation("bad", "E", None, FPN)))
    assert model.patterns(5)["violation"] == ON
    buzz = [model.levels(5 + dt)["buzzer"] for dt in (0.05, 0.15, 0.25, 0.35, 1.0)]
    assert buzz == [1, 0, 1, 0, 0]
    assert isinstance(model.patterns(5.01)["buzzer"], Beeps)
    assert model.patterns(6)["buzzer"] == OFF  # beeps are over
    model.handle(ev.ViolationCleared("restored"), 7)
    assert model.patterns(7)["violation"] == OFF
    assert model.patterns(7)["red_turn"] == ON


def test_out_of_sync_blinks_violation_without_sound_and_violation_wins():
    model = model_after((0, ev.OutOfSync(FPN)))
    assert isinstance(model.patterns(0)["violation"], Blink)
    assert model.patterns(0.1)["buzzer"] == OFF
    first = model.patterns(0)["violation"]
    model.handle(ev.OutOfSync(FPN), 0.5)  # repeated reports keep the blink in phase
    assert model.patterns(0.5)["violation"] == first
    model.handle(ev.Violation("bad", "E", None, FPN), 1)
    assert model.patterns(1)["violation"] == ON
    model.handle(ev.ViolationCleared("restored"), 2)
    assert model.patterns(2)["violation"] == first
    model.handle(ev.InSync(FPN), 3)
    assert model.patterns(3)["violation"] == OFF


def test_ambiguous_move_blinks_the_turn_led_until_committed():
    model = model_after((0, ev.TurnStarted("black", fpn=FPN)),
                        (1, ev.MoveAmbiguous(moves=("a1-a2", "a1-b1"))))
    assert isinstance(model.patterns(1)["black_turn"], Blink)
    model.handle(ev.MoveCommitted("a1-a2", "black", 4, FPN, FPN), 2)
    assert model.patterns(2)["black_turn"] == ON


def test_game_over_blinks_the_winner_and_beeps_once():
    model = model_after((0, ev.TurnStarted("black", fpn=FPN)),
                        (0, ev.Violation("bad", "E", None, FPN)),
                        (20, ev.GameOver("1-0", "red", "no_king", "Red wins")))
    p = model.patterns(20)
    assert isinstance(p["red_turn"], Blink) and p["black_turn"] == OFF
    assert p["violation"] == OFF and p["capture"] == OFF
    assert model.levels(20.3)["buzzer"] == 1 and model.levels(21)["buzzer"] == 0
    assert model.turn is None
    model.handle(ev.GameStarted(FPN, "official"), 30)
    assert set(model.levels(30).values()) == {0}


def test_draw_alternates_the_two_turn_leds():
    model = model_after((0, ev.GameOver("1/2-1/2", None, "repetition", "Draw")))
    strips = timeline(model, 0.0, seconds=1.6, step=0.1)
    assert strips["red_turn"] == "####....####...."
    assert strips["black_turn"] == "....####....####"


def test_unknown_events_change_nothing():
    model = model_after((0, ev.TurnStarted("red", fpn=FPN)))
    before = model.patterns(1)
    model.handle(ev.Notice("x", "y"), 1)
    model.handle(ev.BoardView(True, False), 1)
    model.handle(object(), 1)
    assert model.patterns(1) == before

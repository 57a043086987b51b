"""Captures in progress, compulsory captures, and illegal changes with their restoration."""
import pytest

from fenix_table.errors import IllegalMoveError
from fenix_table.referee import Referee
from fenix_tools.synthetic import observe_placement, position_of
from fenix_table.rules import apply

BASIC = {"a1": "K", "f1": "G", "c2": "S", "a3": "S", "g8": "k", "g5": "g", "e6": "s", "b7": "s"}
# Red must capture c3xc5 (only legal move).
CAPTURE = {"a1": "K", "c3": "S", "f1": "G", "g8": "k", "c4": "s", "e6": "s"}
# Red must capture c3xc5xe5 (two black soldiers).
CHAIN = {"a1": "K", "c3": "S", "f1": "G", "g8": "k", "c4": "s", "d5": "s"}
# e2xe4xg4 takes two; c3xc5 only one: the maximum rule allows only the first.
LARGER = {"a1": "K", "c3": "S", "e2": "S", "g8": "k", "c4": "s", "e3": "s", "f4": "s"}


def started(position, **kw):
    ref = Referee(start=position, **kw)
    events = ref.begin()
    ref.observe(observe_placement(position.stacks(), position.size, 0))
    return ref, events


def board(placement, frame, **kw):
    return observe_placement(placement, "7x8", frame, **kw)


def moved(position, frm, to):
    """The placement after a stone moved from ``frm`` to ``to`` (legal or not)."""
    stacks = position.stacks()
    stacks[to] = stacks.pop(frm)
    return stacks


def kinds(events):
    return [e.kind for e in events]


def test_compulsory_capture_is_announced_at_the_start_of_the_turn():
    start = position_of("7x8", CAPTURE)
    ref, events = started(start)
    assert kinds(events) == ["game_started", "turn_started", "capture_required"]
    assert (events[-1].side, events[-1].moves) == ("red", ("c3xc5",))
    assert ref.pending == events[-1]


def test_capture_waits_until_the_jumped_stone_is_taken_off():
    start = position_of("7x8", CAPTURE)
    ref, _ = started(start)
    landed = moved(start, "c3", "c5")          # c4 still standing
    events = ref.observe(board(landed, 1))
    assert kinds(events) == ["remove_captured"]
    assert (events[0].move, events[0].cells) == ("c3xc5", ("c4",))
    assert ref.moves == []
    assert ref.observe(board(landed, 2)) == []  # said once
    del landed["c4"]
    events = ref.observe(board(landed, 3))
    assert kinds(events) == ["move_committed", "turn_started"]
    assert (events[0].move, events[0].captured) == ("c3xc5", ("c4",))


def test_partial_removal_of_a_chain_names_what_is_left():
    start = position_of("7x8", CHAIN)
    ref, _ = started(start)
    landed = moved(start, "c3", "e5")
    events = ref.observe(board(landed, 1))
    assert (events[0].kind, events[0].move, events[0].cells) == \
        ("remove_captured", "c3xc5xe5", ("c4", "d5"))
    del landed["d5"]
    events = ref.observe(board(landed, 2))
    assert (events[0].kind, events[0].cells) == ("remove_captured", ("c4",))
    del landed["c4"]
    events = ref.observe(board(landed, 3))
    assert events[0].kind == "move_committed" and events[0].captured == ("c4", "d5")


def test_a_covered_jumped_stone_keeps_the_capture_pending():
    start = position_of("7x8", CAPTURE)
    ref, _ = started(start)
    landed = moved(start, "c3", "c5")
    del landed["c4"]
    events = ref.observe(board(landed, 1, occluded=["c4"]))
    assert [e.kind for e in events] == ["board_view", "remove_captured"]
    events = ref.observe(board(landed, 2))
    assert "move_committed" in kinds(events)


def test_missed_compulsory_capture_is_a_violation_until_restored():
    start = position_of("7x8", CAPTURE)
    ref, _ = started(start)
    wrong = moved(start, "a1", "b2")
    # One frame could be a misread: nothing is said yet.
    assert ref.observe(board(wrong, 1)) == []
    events = ref.observe(board(wrong, 2))
    assert kinds(events) == ["violation"]
    violation = events[0]
    assert violation.code == "capture_compulsory"
    assert violation.attempted == "a1-b2"
    assert violation.restore_to == start.fpn()
    assert "c3xc5" in violation.explanation
    assert {"c3", "c5", "c4"} <= set(violation.cells)
    assert ref.state == "violation" and ref.pending == violation
    # Still wrong: nothing new. Put back: cleared, and the capture is required again.
    assert ref.observe(board(wrong, 3)) == []
    events = ref.observe(board(start.stacks(), 4))
    assert kinds(events) == ["violation_cleared"]
    assert events[0].resolution == "restored"
    assert ref.state == "play" and ref.pending.kind == "capture_required"


def test_violation_is_resolved_by_making_the_legal_move_instead():
    start = position_of("7x8", CAPTURE)
    ref, _ = started(start)
    wrong = moved(start, "a1", "b2")
    ref.observe(board(wrong, 1))
    ref.observe(board(wrong, 2))
    right = apply(start, "c3xc5").stacks()
    events = ref.observe(board(right, 3))
    assert kinds(events)[:2] == ["violation_cleared", "move_committed"]
    assert events[0].resolution == "corrected"


def test_smaller_capture_than_the_maximum():
    start = position_of("7x8", LARGER)
    ref, _ = started(start)
    wrong = moved(start, "c3", "c5")
    del wrong["c4"]
    ref.observe(board(wrong, 1))
    violation = ref.observe(board(wrong, 2))[0]
    assert violation.code == "larger_capture"
    assert violation.attempted == "c3xc5"
    assert "e2xe4xg4" in violation.explanation


@pytest.mark.parametrize("frm,to,code", [
    ("c2", "c4", "soldier_step"),      # a soldier moved two cells
    ("b7", "b6", "out_of_turn"),       # Black moved while Red is to move
    ("f1", "e2", "general_straight"),  # a General moved diagonally
])
def test_wrong_piece_movement_is_named(frm, to, code):
    start = position_of("7x8", BASIC)
    ref, _ = started(start)
    wrong = moved(start, frm, to)
    ref.observe(board(wrong, 1))
    events = ref.observe(board(wrong, 2))
    assert kinds(events) == ["violation"]
    assert events[0].code == code
    assert events[0].attempted == f"{frm}-{to}"
    assert events[0].restore_to == start.fpn()


def test_king_not_recreated_is_a_violation():
    start = position_of("7x8", {"c2": "G", "c1": "S", "a4": "S", "g8": "k", "f6": "s"}, duty="K")
    ref, _ = started(start)
    wrong = moved(start, "a4", "a5")
    ref.observe(board(wrong, 1))
    violation = ref.observe(board(wrong, 2))[0]
    assert violation.code == "king_duty"
    assert "c1-c2" in violation.explanation


def test_extra_and_missing_stones_are_violations():
    start = position_of("7x8", BASIC)
    ref, _ = started(start)
    extra = start.stacks()
    extra["d4"] = ("black", 1)
    ref.observe(board(extra, 1))
    violation = ref.observe(board(extra, 2))[0]
    assert (violation.kind, violation.code, violation.cells) == ("violation", "stones_changed", ("d4",))
    ref.observe(board(start.stacks(), 3))
    missing = start.stacks()
    del missing["e6"]
    ref.observe(board(missing, 4))
    violation = ref.observe(board(missing, 5))[0]
    assert (violation.code, violation.cells) == ("stones_changed", ("e6",))


def test_referee_mode_refuses_to_play_on():
    start = position_of("7x8", BASIC)
    ref, _ = started(start)
    wrong = moved(start, "c2", "c4")
    ref.observe(board(wrong, 1))
    ref.observe(board(wrong, 2))
    with pytest.raises(IllegalMoveError, match="casual"):
        ref.play_on()


def test_casual_mode_plays_on_from_a_reachable_board():
    start = position_of("7x8", BASIC)
    ref, _ = started(start, mode="casual")
    wrong = moved(start, "c2", "c4")
    ref.observe(board(wrong, 1))
    assert kinds(ref.observe(board(wrong, 2))) == ["violation"]
    events = ref.play_on()
    assert kinds(events)[:3] == ["violation_cleared", "move_committed", "turn_started"]
    assert events[0].resolution == "played_on"
    assert events[1].move == "c2-c4"
    assert ref.position.piece_at("c4") == ("red", 1)
    assert ref.position.side == "black"
    # Play continues from there with legal moves.
    nxt = apply(ref.position, "b7-b6")
    events = ref.observe(board(nxt.stacks(), 3))
    assert events[0].move == "b7-b6"


def test_casual_mode_refuses_an_unreachable_board():
    start = position_of("7x8", BASIC)
    ref, _ = started(start, mode="casual")
    extra = start.stacks()
    extra["d4"] = ("red", 1)
    extra["d5"] = ("red", 1)
    extra["e5"] = ("red", 1)
    extra["d6"] = ("red", 1)
    extra["c5"] = ("red", 1)
    for frame in (1, 2):
        ref.observe(board(extra, frame))
    events = ref.play_on()
    assert kinds(events) == ["notice"]
    assert events[0].code == "play_on_refused"
    assert "more red stones" in events[0].message
    assert ref.position == start


def test_a_violation_reads_the_same_live_and_from_the_archive():
    import json

    from fenix_table.referee.events import describe, from_json
    start = position_of("7x8", CAPTURE)
    ref, _ = started(start)
    wrong = moved(start, "a1", "b2")
    ref.observe(board(wrong, 1))                # one frame could be a misread
    violation = ref.observe(board(wrong, 2))[0]
    line = describe(violation)
    assert line == f"VIOLATION a1-b2: {violation.explanation}; restore {start.fpn()}"
    # The archive keeps the event as JSON and gives back the same event.
    assert describe(from_json(json.loads(json.dumps(violation.to_json())))) == line

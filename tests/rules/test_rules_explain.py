"""explain(): the referee's sentences for what a player actually did."""
import pytest

from fenix_table.errors import NotationError
from fenix_table.rules import MESSAGES, STRIKE, Position, apply, explain
from reference import fpn_of


def pos(pieces, **kw):
    return Position.from_fpn(fpn_of("9x9", pieces, **kw))


def test_missed_compulsory_capture():
    p = pos({"c3": "S", "c4": "g", "a1": "K", "i9": "k"})
    e = explain(p, "a1-a2")
    assert e.code == "capture_compulsory"
    assert e.text == "capture is compulsory: c3xc5 takes 2"
    assert e.moves == ("c3xc5",) and "c4" in e.cells


def test_general_moves_in_straight_lines():
    p = pos({"d4": "G", "a1": "K", "i9": "k"})
    assert explain(p, ("d4", "e5")).text == "d4 is a General: it moves in straight lines"
    assert explain(p, "d4-f6").code == "general_straight"


def test_general_path_blocked():
    p = pos({"d4": "G", "d6": "S", "a1": "K", "i9": "k"})
    e = explain(p, "d4-d8")
    assert e.code == "general_blocked" and e.params["block"] == "d6"


def test_only_the_king_captures_diagonally():
    p = pos({"c3": "S", "d4": "s", "a1": "K", "i9": "k"})
    assert explain(p, "c3xe5").text == "only the King may capture diagonally"
    assert explain(p, ("c3", "e5")).code == "only_king_diagonal"


def test_a_larger_capture_exists():
    p = pos({"e5": "S", "e6": "s", "f7": "g", "a1": "S", "a2": "s", "i1": "K", "i9": "k"})
    e = explain(p, "a1xa3")
    assert e.text == "a larger capture exists: e5xe7xg7 takes 3"
    assert explain(p, ("a1", "a3")).code == "larger_capture"


def test_chain_must_go_on():
    p = pos({"e5": "S", "e6": "s", "f7": "g", "i1": "K", "i9": "k"})
    e = explain(p, "e5xe7")
    assert e.code == "chain_continues"
    assert e.text == "the capture chain must go on from e7: e5xe7xg7 takes 3"
    assert explain(p, ("e5", "e7")).code == "chain_continues"


def test_king_must_be_recreated_first():
    p = pos({"b3": "G", "b2": "S", "c5": "S", "i9": "k"}, duty="K")
    e = explain(p, "c5-c6")
    assert e.text == "your King must be recreated first: b2-b3"
    assert explain(p, "c5-b3").code == "king_reach"


def test_piece_movement_sentences():
    p = pos({"c3": "S", "e5": "K", "a1": "G", "i9": "k"})
    assert explain(p, "c3-c5").text == "c3 is a soldier: it steps one cell orthogonally"
    assert explain(p, "c3-d4").code == "soldier_step"
    assert explain(p, "e5-e7").text == "e5 is a King: it steps one cell in any direction"


def test_out_of_turn_and_empty_cell():
    p = pos({"c3": "S", "a1": "K", "i9": "k", "h8": "s"})
    assert explain(p, "h8-h7").text == "it is red's turn: the black soldier on h8 may not move"
    assert explain(p, "d4-d5").text == "there is no piece on d4"


def test_occupied_and_jumping_own_piece():
    p = pos({"c3": "S", "c4": "S", "d3": "s", "a1": "K", "i9": "k", "e3": "s"})
    assert explain(p, "c3-d3").code == "occupied"
    assert explain(p, "c3xc5").code == "jump_own"


def test_stacking_outside_setup_and_duties():
    p = pos({"c3": "S", "c4": "S", "a1": "K", "i9": "k"})
    assert explain(p, "c3-c4").code == "stack_not_allowed"
    assert explain(p, "c3-a1").code == "stack_too_high"


def test_setup_sentences():
    start = Position.start("9x9")
    assert explain(start, "a1-a2").legal
    assert explain(start, "g1-g2").code == "setup_stack_only"   # onto an empty cell
    after = apply(apply(start, "a1-b1"), "i9-h9")
    assert explain(after, "b1-c1").code == "setup_soldier_only"
    assert explain(Position.start("7x8"), "a1-c1", STRIKE).code == "setup_reach"


def test_placements_seen_by_the_camera():
    p = pos({"c3": "S", "c4": "s", "a1": "K", "i9": "k"})
    # Legal: the capture with the jumped soldier taken off.
    seen = {"c5": ("red", 1), "a1": ("red", 3), "i9": ("black", 3)}
    assert explain(p, seen).legal
    # The King stepped instead of capturing: named as a missed capture.
    seen = {"c3": ("red", 1), "c4": ("black", 1), "a2": ("red", None), "i9": ("black", 3)}
    e = explain(p, seen)
    assert e.code == "capture_compulsory" and e.moves == ("c3xc5",)
    # Black moved although it is Red's turn.
    seen = {"c3": ("red", 1), "c4": ("black", 1), "a1": ("red", 3), "h9": ("black", 3)}
    assert explain(p, seen).code == "out_of_turn"
    # A red stone appeared from nowhere.
    seen = {"c3": ("red", 1), "c4": ("black", 1), "a1": ("red", 3), "i9": ("black", 3),
            "e5": ("red", 1), "e6": ("red", 1)}
    assert explain(p, seen).code == "stones_changed"


def test_explanations_use_only_catalogued_codes_and_fill_every_placeholder():
    p = pos({"e5": "S", "e6": "s", "f7": "g", "a1": "S", "a2": "s", "i1": "K", "i9": "k"})
    for attempt in ["a1xa3", "e5xe7", "i1-i3", "a1-b2", "e5-e4", "i9-i8", ("b5", "b6")]:
        e = explain(p, attempt)
        assert e.code in MESSAGES
        assert "{" not in e.text


def test_malformed_attempts_raise_notation_errors():
    p = Position.start("9x9")
    with pytest.raises(NotationError, match="unknown cell"):
        explain(p, "a1-j1")
    with pytest.raises(NotationError):
        explain(p, "a1a2")

"""After losses: the King recreation duty, the General creation right, and their options."""
import pytest

from fenix_table.rules import OFFICIAL, STRIKE, Game, Position, Rules, apply, legal_moves
from reference import fpn_of


def tokens(fpn, rules=OFFICIAL):
    return sorted(m.token for m in legal_moves(Position.from_fpn(fpn), rules))


# Red owes a King: General c3, soldiers c2 (orthogonal), d4 (diagonal), f5 (far, and able
# to capture f6).
KING_DUTY = fpn_of("9x9", {"c3": "G", "c2": "S", "d4": "S", "f5": "S", "f6": "s", "i9": "k"},
                   duty="K")


def test_king_recreation_comes_before_a_compulsory_capture():
    assert tokens(KING_DUTY) == ["c2-c3"]
    after = apply(Position.from_fpn(KING_DUTY), "c2-c3")
    assert after.piece_at("c3") == ("red", 3) and after.piece_at("c2") is None
    assert after.side == "black" and after.clock == 1


@pytest.mark.parametrize("reach, expected", [
    ("orthogonal", ["c2-c3"]),
    ("neighbour", ["c2-c3", "d4-c3"]),
    ("anywhere", ["c2-c3", "d4-c3", "f5-c3"]),
])
def test_king_reach_option(reach, expected):
    assert tokens(KING_DUTY, Rules.preset("official", king_reach=reach)) == expected


def test_strike_recreates_the_king_from_anywhere():
    assert tokens(KING_DUTY, STRIKE) == ["c2-c3", "d4-c3", "f5-c3"]


def test_king_first_false_captures_first_and_keeps_the_duty():
    rules = Rules.preset("official", king_first=False)
    assert tokens(KING_DUTY, rules) == ["f5xf7"]
    after_capture = apply(Position.from_fpn(KING_DUTY), "f5xf7", rules)
    # Black moves; back to Red, who still owes the King.
    back = apply(after_capture, "i9-h9", rules)
    assert back.duty == "K"
    assert sorted(m.token for m in legal_moves(back, rules)) == ["c2-c3"]


def test_king_that_cannot_be_recreated_loses_even_with_no_move_draw():
    fpn = fpn_of("9x9", {"c3": "S", "c2": "S", "f5": "S", "i9": "k"}, duty="K")
    for rules in (OFFICIAL, Rules.preset("official", no_move="draw"),
                  Rules.preset("official", king_first=False)):
        status = Game(Position.from_fpn(fpn), rules).status()
        assert status.result == "black wins" and status.reason == "king_lost"


def test_king_first_false_loses_when_owing_k_without_capture_or_recreation():
    rules = Rules.preset("official", king_first=False)
    capture_only = fpn_of("9x9", {"c3": "S", "f5": "S", "f6": "s", "i9": "k"}, duty="K")
    assert tokens(capture_only, rules) == ["f5xf7"]          # postponed, not lost yet
    nothing = fpn_of("9x9", {"c3": "S", "f5": "S", "i9": "k"}, duty="K")
    status = Game(Position.from_fpn(nothing), rules).status()
    assert status.reason == "king_lost" and status.winner == "black"


def test_losing_the_king_sets_the_duty():
    fpn = fpn_of("9x9", {"a1": "K", "c1": "S", "c2": "k", "e5": "g", "e4": "s"})
    after = apply(Position.from_fpn(fpn), "c1xc3")
    assert after.side == "black" and after.duty == "K"
    assert sorted(m.token for m in legal_moves(after)) == ["e4-e5"]


def test_king_and_general_lost_together_only_the_king_is_recreated():
    fpn = fpn_of("9x9", {"a1": "K", "c1": "S", "c2": "g", "c4": "k", "e5": "g", "e4": "s"})
    after = apply(Position.from_fpn(fpn), "c1xc3xc5")
    assert after.duty == "K"


# Black just lost a General; Red's move was a1xa3. Black: soldiers d5/d6 (orthogonal
# neighbours), e7 (diagonal to d6), King h8, a red soldier g4 in reach of nothing.
GENERAL_RIGHT = fpn_of("9x9", {"a3": "S", "a1": "K", "d5": "s", "d6": "s", "e7": "s",
                               "h8": "k"}, side="b", duty="G")


def test_general_creation_is_a_choice_besides_ordinary_moves():
    moves = tokens(GENERAL_RIGHT)
    assert {"d5-d6", "d6-d5"} <= set(moves)          # the creation moves
    assert "e7-d6" not in moves                      # diagonal: not with general_reach=orthogonal
    assert "h8-h9" in moves and "d5-c5" in moves     # ordinary moves are still allowed
    after = apply(Position.from_fpn(GENERAL_RIGHT), "d5-d6")
    assert after.piece_at("d6") == ("black", 2) and after.duty == "-"


def test_general_reach_option():
    neighbour = Rules.preset("official", general_reach="neighbour")
    assert "e7-d6" in tokens(GENERAL_RIGHT, neighbour)


def test_general_right_lapses_after_another_move():
    after = apply(Position.from_fpn(GENERAL_RIGHT), "h8-h9")
    back = apply(after, "a1-b1")
    assert back.duty == "-"
    assert "d5-d6" not in [m.token for m in legal_moves(back)]


def test_capture_takes_precedence_over_general_creation_unless_free():
    fpn = fpn_of("9x9", {"a3": "S", "a1": "K", "d5": "s", "d6": "s", "c6": "S",
                         "h8": "k"}, side="b", duty="G")
    assert tokens(fpn) == ["d6xb6"]
    free = Rules.preset("official", general_vs_capture="free")
    assert tokens(fpn, free) == ["d5-d6", "d6-d5", "d6xb6"]


def test_capturing_a_general_grants_the_right():
    fpn = fpn_of("9x9", {"a1": "K", "c1": "S", "c2": "g", "i9": "k", "h9": "s"})
    after = apply(Position.from_fpn(fpn), "c1xc3")
    assert after.duty == "G"

"""End of the game: no move, repetition, the no-capture limit, agreement, resignation."""
import pytest

from fenix_table.errors import IllegalMoveError
from fenix_table.rules import STRIKE, Game, Position, Rules, legal_moves, position_status
from reference import fpn_of

# Red's King in the corner, walled in by black soldiers it cannot jump (cells behind taken).
WALLED = fpn_of("9x9", {"a1": "K", "a2": "s", "b1": "s", "b2": "s", "a3": "s", "c1": "s",
                        "c3": "s", "i9": "k"})


def test_no_legal_move_loses():
    assert legal_moves(Position.from_fpn(WALLED)) == []
    status = Game(WALLED).status()
    assert status.over and status.result == "black wins" and status.reason == "no_move_loss"
    assert status.fgn_result == "0-1"
    assert status.text == "red has no legal move: black wins"


def test_no_legal_move_draw_option():
    status = Game(WALLED, Rules.preset("official", no_move="draw")).status()
    assert status.result == "draw" and status.reason == "no_move_draw"


KINGS = fpn_of("9x9", {"a1": "K", "i9": "k"})
SHUFFLE = ["a1-b1", "i9-h9", "b1-a1", "h9-i9"]


def test_third_repetition_is_a_draw():
    game = Game(KINGS)
    for token in SHUFFLE * 2:
        assert not game.status().over
        game.push(token)
    status = game.status()
    assert status.result == "draw" and status.reason == "repetition_draw"
    # The clock differs between the occurrences: repetition ignores it.
    assert game.position.clock == 8


def test_repeater_loses_in_strike():
    game = Game(KINGS, STRIKE)
    for token in SHUFFLE * 2:
        game.push(token)
    status = game.status()
    # Black's h9-i9 made the third occurrence.
    assert status.result == "red wins" and status.reason == "repetition_loss"


def test_repetition_off():
    game = Game(KINGS, Rules.preset("official", repetition="off"))
    for token in SHUFFLE * 3:
        game.push(token)
    assert not game.status().over


def test_legal_moves_ignore_history_after_repetition():
    game = Game(KINGS)
    for token in SHUFFLE * 2:
        game.push(token)
    assert game.status().over
    assert sorted(m.token for m in legal_moves(game.position)) == ["a1-a2", "a1-b1", "a1-b2"]
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.push("a1-a2")


def test_no_capture_limit_draws_at_the_limit():
    fpn = fpn_of("9x9", {"a1": "K", "i9": "k"}, clock=99)
    game = Game(fpn)
    assert not game.status().over
    game.push("a1-a2")
    status = game.status()
    assert status.result == "draw" and status.reason == "no_capture_limit"
    assert status.text == "100 plies without a capture: draw"
    assert legal_moves(game.position)   # moves are still listed


def test_no_capture_limit_zero_is_off_and_option_changes_limit():
    fpn = fpn_of("9x9", {"a1": "K", "i9": "k"}, clock=150)
    assert not position_status(Position.from_fpn(fpn), Rules.preset("official", no_capture_limit=0)).over
    assert position_status(Position.from_fpn(fpn), Rules.preset("official", no_capture_limit=150)).over
    assert not position_status(Position.from_fpn(fpn), Rules.preset("official", no_capture_limit=151)).over


def test_capture_resets_clock_and_stacking_counts_as_a_ply():
    fpn = fpn_of("9x9", {"a1": "K", "c3": "S", "c4": "s", "i9": "k", "h8": "s", "h7": "s"},
                 clock=40)
    game = Game(fpn)
    game.push("c3xc5")
    assert game.position.clock == 0 and game.position.duty == "-"
    duty = fpn_of("9x9", {"a1": "K", "i9": "k", "h8": "s", "h7": "s"}, side="b", duty="G", clock=7)
    game = Game(duty)
    game.push("h8-h7")
    assert game.position.clock == 8


def test_king_loss_is_checked_before_no_move():
    # Red owes a King and has nothing to move: the reason is the King, not "no move".
    fpn = fpn_of("9x9", {"a1": "S", "a2": "s", "a3": "s", "i9": "k"}, duty="K")
    status = Game(fpn, Rules.preset("official", no_move="draw")).status()
    assert status.reason == "king_lost" and status.result == "black wins"


def test_agreement_and_resignation():
    game = Game(KINGS)
    game.agree_draw()
    assert game.status().result == "draw" and game.status().reason == "agreement"
    game = Game(KINGS)
    game.push("a1-a2")
    game.resign("black")
    assert game.status().result == "red wins" and game.status().reason == "resignation"
    game.pop()   # taking back the move also takes back the resignation
    assert not game.status().over and game.ply == 0


def test_pop_restores_repetition_count():
    game = Game(KINGS)
    for token in SHUFFLE * 2:
        game.push(token)
    game.pop()
    assert not game.status().over
    with pytest.raises(IllegalMoveError):
        Game(KINGS).pop()

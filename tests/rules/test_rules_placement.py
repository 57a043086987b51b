"""Positions from a placement (Position.from_placement) and the position a turn left on the
board, legal or not (position_after_turn): what the referee needs from the rules."""
import random

import pytest

from fenix_table.errors import FenixError, IllegalMoveError, NotationError
from fenix_table.rules import Game, Position, apply, position_after_turn
from reference import fpn_of


def playout(size, seed, plies=160):
    """Every position of a seeded random game."""
    rng = random.Random(seed)
    game = Game(size=size)
    positions = [game.position]
    while game.ply < plies and not game.status().over:
        game.push(rng.choice(game.legal_moves()))
        positions.append(game.position)
    return positions


def rebuilt(p):
    return Position.from_placement(p.size, p.stacks(), p.side, setup=p.setup, duty=p.duty,
                                   clock=p.clock)


@pytest.mark.parametrize("size, seed", [("9x9", 1), ("7x8", 2), ("9x9", 3)])
def test_from_placement_round_trips_every_position_of_a_game(size, seed):
    positions = playout(size, seed)
    assert any(not p.in_setup for p in positions) and any(p.in_setup for p in positions)
    for p in positions:
        again = rebuilt(p)
        assert again == p and again.fpn() == p.fpn()


def test_from_placement_defaults_are_the_start_of_setup():
    start = Position.start("7x8")
    assert Position.from_placement("7x8", start.stacks(), "red") == start
    battle = Position.from_placement("9x9", {"a1": ("red", 3), "i9": ("black", 3),
                                             "e5": ("black", 2)}, "black", setup=(5, 5), clock=7)
    assert battle.fpn() == "9x9 8k/9/9/9/4g4/9/9/9/K8 b 55 - 7"


KINGS = {"a1": ("red", 3), "g8": ("black", 3)}


@pytest.mark.parametrize("stacks, side, fields, message", [
    ({**KINGS, "c3": ("red", 4)}, "red", {}, "stack of 4 stones on c3"),
    ({**KINGS, "c3": ("red", 0)}, "red", {}, "stack of 0 stones on c3"),
    ({**KINGS, "h1": ("red", 1)}, "red", {}, "unknown cell 'h1'"),
    ({**KINGS, "c3": ("green", 1)}, "red", {}, "unknown colour 'green'"),
    (KINGS, "blue", {}, "unknown colour 'blue'"),
    (KINGS, "red", {"setup": (6, 6)}, "FPN setup"),
    (KINGS, "red", {"setup": (5, 5), "duty": "X"}, "FPN duty"),
    (KINGS, "red", {"setup": (5, 5), "clock": -1}, "FPN clock"),
    (KINGS, "black", {"setup": (2, 2)}, "does not fit Black to move"),
    ({"g8": ("black", 3)}, "red", {"setup": (5, 5)}, "duty must be K"),
    ({**KINGS, "d4": ("red", 3)}, "red", {}, "2 red Kings"),
    ({f"{f}{r}": ("black", 1) for f in "abcdefg" for r in (1, 2, 3, 4)}, "red", {},
     "28 black stones"),
])
def test_from_placement_names_what_no_position_can_have(stacks, side, fields, message):
    with pytest.raises(NotationError, match=message):
        Position.from_placement("7x8", stacks, side, **fields)


def test_from_placement_refuses_an_unknown_size():
    with pytest.raises(NotationError, match="8x8"):
        Position.from_placement("8x8", {}, "red")


@pytest.mark.parametrize("size, seed", [("9x9", 4), ("7x8", 5)])
def test_after_a_legal_move_the_turn_gives_the_position_the_move_gives(size, seed):
    rng = random.Random(seed)
    for p in playout(size, seed, plies=120):
        moves = Game(p).legal_moves()
        for move in rng.sample(moves, min(4, len(moves))):
            after = apply(p, move)
            assert position_after_turn(p, after.stacks()) == after, (p.fpn(), move.token)


def test_an_illegal_setup_move_still_counts_as_the_movers_setup_move():
    start = Position.start("9x9")
    stacks = start.stacks()
    stacks["d4"] = stacks.pop("a1")             # a step, where setup only stacks
    after = position_after_turn(start, stacks)
    assert after.side == "black" and after.setup == (1, 0) and after.setup_moves_left() == 5
    assert after.setup_moves_left("red") == 4
    assert after.piece_at("d4") == ("red", 1) and after.piece_at("a1") is None


# Battle: Red King a1, General c3, soldier e5; Black King g8, General e6, soldier c5.
BATTLE = Position.from_fpn(fpn_of("7x8", {"a1": "K", "c3": "G", "e5": "S", "g8": "k",
                                          "e6": "g", "c5": "s"}, clock=4))


def test_an_illegal_quiet_move_counts_on_the_clock():
    stacks = BATTLE.stacks()
    stacks["f6"] = stacks.pop("e5")             # a soldier moving diagonally
    after = position_after_turn(BATTLE, stacks)
    assert (after.side, after.duty, after.clock) == ("black", "-", 5)


def test_a_lost_general_gives_the_opponent_the_general_duty_and_resets_the_clock():
    stacks = BATTLE.stacks()
    del stacks["e6"]                            # taken off without a capture to take it
    after = position_after_turn(BATTLE, stacks)
    assert (after.side, after.duty, after.clock) == ("black", "G", 0)


def test_a_lost_king_gives_the_opponent_the_king_duty():
    stacks = BATTLE.stacks()
    del stacks["g8"], stacks["e6"]              # King and General gone: K comes first
    after = position_after_turn(BATTLE, stacks)
    assert (after.side, after.duty, after.clock) == ("black", "K", 0)


def test_a_lost_soldier_resets_the_clock_only():
    stacks = BATTLE.stacks()
    del stacks["c5"]
    after = position_after_turn(BATTLE, stacks)
    assert (after.duty, after.clock) == ("-", 0)


def test_more_stones_than_before_is_refused():
    stacks = BATTLE.stacks()
    stacks["d1"] = ("black", 1)
    with pytest.raises(IllegalMoveError, match=r"more black stones on the board \(7\) than "
                                               r"before \(6\)"):
        position_after_turn(BATTLE, stacks)


def test_a_stack_that_cannot_exist_is_refused():
    stacks = BATTLE.stacks()
    del stacks["e5"]
    stacks["a1"] = ("red", 4)                   # the soldier put on the King
    with pytest.raises(IllegalMoveError, match="not a possible position: a stack of 4"):
        position_after_turn(BATTLE, stacks)


def test_an_impossible_result_is_an_illegal_move_not_a_notation_error():
    stacks = BATTLE.stacks()
    stacks["z9"] = stacks.pop("e5")
    with pytest.raises(IllegalMoveError, match="unknown cell 'z9'") as caught:
        position_after_turn(BATTLE, stacks)
    assert not isinstance(caught.value, NotationError) and isinstance(caught.value, FenixError)

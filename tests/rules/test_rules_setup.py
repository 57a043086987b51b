"""Phase 1, preparing for battle: stacking moves, the King/General limits, setup_reach."""
import random

import pytest

from fenix_table.rules import OFFICIAL, STRIKE, Game, Position, Rules, legal_moves
from reference import fpn_of


def tokens(pos, rules=OFFICIAL):
    return sorted(m.token for m in legal_moves(pos, rules))


def test_first_setup_move_puts_any_soldier_on_any_other():
    # 28 soldiers, each onto any of the other 27 (9x9); 21 x 20 on 7x8.
    assert len(legal_moves(Position.start("9x9"))) == 28 * 27
    assert len(legal_moves(Position.start("7x8"))) == 21 * 20
    assert all(m.stacking and not m.is_capture for m in legal_moves(Position.start("9x9")))


def test_orthogonal_setup_reach_counts_adjacent_pairs_only():
    # 7x8 camp rows have 6,5,4,3,2,1 cells: 15 horizontal + 15 vertical neighbour pairs,
    # each usable in both directions.
    assert len(legal_moves(Position.start("7x8"), STRIKE)) == 60
    assert "a1-a2" in tokens(Position.start("7x8"), STRIKE)
    assert "a1-c1" not in tokens(Position.start("7x8"), STRIKE)


def _setup_position(red, setup="44"):
    """Red to move after four setup moves each; ``red`` are the stacks made so far."""
    pieces = {}
    camp = [f"{chr(97 + f)}{r + 1}" for r in range(9) for f in range(9) if f + r <= 6]
    black_camp = [f"{chr(97 + 8 - f)}{9 - r}" for r in range(9) for f in range(9) if f + r <= 6]
    stones = 0
    for cell, piece in red.items():
        pieces[cell] = piece
        stones += "SGK".index(piece) + 1
    for cell in camp:
        if stones >= 28:
            break
        if cell not in pieces:
            pieces[cell] = "S"
            stones += 1
    for cell in black_camp[:20]:
        pieces[cell] = "s"
    for cell in black_camp[20:24]:
        pieces[cell] = "g"
    return Position.from_fpn(fpn_of("9x9", pieces, setup=setup))


def test_generals_and_king_at_most_four():
    pos = _setup_position({"a1": "G", "b1": "G", "c1": "G", "d1": "G"})
    moves = legal_moves(pos)
    # No fifth General: every move goes onto one of the four Generals (making the King).
    assert {m.path[1] for m in moves} == {"a1", "b1", "c1", "d1"}
    assert len(moves) == 20 * 4


def test_only_one_king():
    pos = _setup_position({"a1": "K", "b1": "G", "c1": "G"})
    moves = legal_moves(pos)
    targets = {pos.piece_at(m.path[1])[1] for m in moves}
    assert targets == {1}   # soldiers only: nothing on the Generals, nothing on the King
    assert len(moves) == 21 * 20


def test_ten_setup_moves_give_one_king_three_generals_each():
    rng = random.Random(5)
    for size, soldiers in (("9x9", 19), ("7x8", 12)):
        game = Game(size=size)
        for _ in range(10):
            game.push(rng.choice(game.legal_moves()))
        pos = game.position
        assert pos.setup == (5, 5) and not pos.in_setup and pos.side == "red"
        for side in ("red", "black"):
            assert (pos.count(side, 3), pos.count(side, 2), pos.count(side, 1)) == (1, 3, soldiers)


def test_no_captures_during_setup():
    # Adjacent enemy soldiers with empty cells behind: still only stacking moves.
    pos = Position.from_fpn(fpn_of("7x8", {"c3": "S", "c4": "s", "a1": "S", "g8": "s"},
                                   setup="00"))
    assert tokens(pos) == ["a1-c3", "c3-a1"]


def test_orthogonal_setup_dead_end_loses():
    # Four red Generals that no red soldier touches: no setup move at all -> Red loses.
    red = {"a9": "G", "c9": "G", "e9": "G", "g9": "G"}
    red.update({f"{chr(97 + f)}{r}": "S" for r in (1, 2) for f in range(9)})
    red.update({"a3": "S", "b3": "S"})
    black = {f"{chr(97 + f)}{r}": "s" for r in (5, 6, 7) for f in range(9)}
    black["a4"] = "s"
    pos = Position.from_fpn(fpn_of("9x9", {**red, **black}, setup="44"))
    assert legal_moves(pos, STRIKE) == []
    game = Game(pos, STRIKE)
    status = game.status()
    assert status.result == "black wins" and status.reason == "no_move_loss"
    # With setup_reach=any the same position has moves (soldiers onto Generals).
    assert len(legal_moves(pos, OFFICIAL)) == 20 * 4


def test_setup_counters_advance_per_side():
    pos = Position.start("9x9")
    from fenix_table.rules import apply
    pos = apply(pos, "a1-b1")
    assert pos.setup == (1, 0) and pos.side == "black" and pos.setup_moves_left("red") == 4
    pos = apply(pos, "i9-h9")
    assert pos.setup == (1, 1) and pos.piece_at("h9") == ("black", 2)
    assert pos.fpn().endswith(" r 11 - 0")


@pytest.mark.parametrize("reach", ["any", "orthogonal"])
def test_setup_reach_option_is_selectable(reach):
    rules = Rules.preset("official", setup_reach=reach)
    n = len(legal_moves(Position.start("7x8"), rules))
    assert n == (420 if reach == "any" else 60)

"""Properties over random games (hypothesis): the engine against rules.md's invariants
and against a naive second implementation (tests/rules/reference.py)."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fenix_table.rules import (OFFICIAL, STRIKE, Game, GameRecord, Position, Rules, format_fgn,
                               parse_fgn, play)
from fenix_table.rules.movegen import piece_chains
from reference import reference_moves

RULESETS = [OFFICIAL, STRIKE,
            Rules.preset("official", king_first=False, general_vs_capture="free",
                         king_reach="neighbour", general_reach="anywhere", no_move="draw")]

games = st.tuples(st.sampled_from(["9x9", "7x8"]), st.sampled_from(RULESETS),
                  st.randoms(use_true_random=False), st.integers(10, 220))

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def playout(size, rules, rng, plies):
    """Positions and moves of a random game (stops early when the game ends)."""
    game = Game(size=size, rules=rules)
    steps = []
    while game.ply < plies and not game.status().over:
        moves = game.legal_moves()
        move = rng.choice(moves)
        steps.append((game.position, moves, move))
        game.push(move)
    return game, steps


@SETTINGS
@given(games)
def test_engine_agrees_with_the_naive_reference(args):
    size, rules, rng, plies = args
    game, steps = playout(size, rules, rng, plies)
    for pos, moves, _ in steps + [(game.position, game.legal_moves(), None)]:
        assert sorted(m.token for m in moves) == reference_moves(pos, rules), pos.fpn()


@SETTINGS
@given(games)
def test_stones_are_conserved_and_landings_are_empty(args):
    size, rules, rng, plies = args
    _, steps = playout(size, rules, rng, plies)
    for pos, moves, _ in steps:
        for move in moves:
            after = play(pos, move)
            captured = sum(abs(pos.board[j]) for j in move.jumped)
            assert pos.stones("red") + pos.stones("black") == \
                after.stones("red") + after.stones("black") + captured
            if move.stacking:
                # A stacking move lands on an own piece and makes it one taller.
                assert pos.board[move.to] * pos.turn > 0
                assert abs(after.board[move.to]) == abs(pos.board[move.to]) + 1
            else:
                assert pos.board[move.to] == 0 or move.to == move.frm
            for j in move.jumped:
                assert pos.board[j] * pos.turn < 0 and after.board[j] == 0


@SETTINGS
@given(games)
def test_every_capture_is_maximal_in_value(args):
    size, rules, rng, plies = args
    _, steps = playout(size, rules, rng, plies)
    for pos, moves, _ in steps:
        captures = [m for m in moves if m.is_capture]
        if not captures:
            continue
        best = max(value for i in range(pos.geo.n) if pos.board[i] * pos.turn > 0
                   for _, _, value in piece_chains(pos, i))
        assert {m.value for m in captures} == {best}
        assert all(m.value == sum(abs(pos.board[j]) for j in m.jumped) for m in captures)


@SETTINGS
@given(games)
def test_playouts_end_in_a_legal_status(args):
    size, rules, rng, _ = args
    game, _ = playout(size, rules, rng, 2000)
    status = game.status()
    assert status.result in ("red wins", "black wins", "draw")
    assert status.reason in ("king_lost", "no_move_loss", "no_move_draw", "repetition_draw",
                             "repetition_loss", "no_capture_limit")
    assert status.fgn_result in ("1-0", "0-1", "1/2-1/2")
    if status.reason in ("king_lost", "no_move_loss", "no_move_draw"):
        assert game.legal_moves() == []


@SETTINGS
@given(games)
def test_fpn_and_fgn_round_trip(args):
    size, rules, rng, plies = args
    game, steps = playout(size, rules, rng, plies)
    for pos, _, _ in steps:
        again = Position.from_fpn(pos.fpn())
        assert again == pos and again.fpn() == pos.fpn()
    record = GameRecord.from_game(game, {"Event": "property", "Round": str(plies)},
                                 {0: ["first"], game.ply - 1: ["last"]})
    parsed = parse_fgn(format_fgn(record))
    assert parsed == record
    assert parsed.replay().position == game.position

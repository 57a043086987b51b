"""The computer opponent: its moves are legal under every preset and option, its keys
match the positions, it sees a recapture, and its levels search as they say."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fenix_table.rules import OPTION_VALUES, Game, Position, Rules, legal_moves, play
from fenix_table.opponent import LEVELS, analyse, choose
from fenix_table.opponent.evaluate import WEIGHTS, WIN, evaluate
from fenix_table.opponent.search import Searcher, zobrist

OPTIONS = [(key, values) for key, values in OPTION_VALUES.items() if values is not int]


def random_game(seed: int, size: str, rules: Rules, plies: int) -> Game:
    """A game of ``plies`` random legal moves (fewer when it ends)."""
    rng = random.Random(seed)
    game = Game(size=size, rules=rules)
    for _ in range(plies):
        if game.status().over:
            break
        game.push(rng.choice(game.legal_moves()))
    return game


@st.composite
def rules_and_game(draw):
    preset = draw(st.sampled_from(["official", "strike"]))
    key, values = draw(st.sampled_from(OPTIONS))
    rules = Rules.preset(preset, **{key: draw(st.sampled_from(values))})
    size = draw(st.sampled_from(["9x9", "7x8"]))
    game = random_game(draw(st.integers(0, 10**6)), size, rules, draw(st.integers(0, 70)))
    return rules, game


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_and_game(), st.sampled_from(sorted(LEVELS)))
def test_every_chosen_move_is_legal(case, level):
    rules, game = case
    moves = legal_moves(game.position, rules)
    if not moves:
        with pytest.raises(ValueError):
            choose(game.position, rules, level=level, movetime=0.05)
        return
    move = choose(game.position, rules, level=level, movetime=0.05,
                  history=game.positions[:-1], seed=level)
    assert move in moves


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["9x9", "7x8"]), st.sampled_from(["official", "strike"]),
       st.integers(0, 10**6))
def test_incremental_keys_equal_keys_from_scratch(size, preset, seed):
    rules = Rules.preset(preset)
    rng = random.Random(seed)
    pos = Position.start(size)
    zob = zobrist(pos)
    key = zob.key(pos)
    for _ in range(120):
        moves = legal_moves(pos, rules)
        if not moves:
            break
        move = rng.choice(moves)
        child = play(pos, move)
        key = zob.after(key, pos, move, child)
        assert key == zob.key(child), (pos.fpn(), move.token)
        pos = child


def test_equal_positions_have_equal_keys_and_different_ones_differ():
    start = Position.start("7x8")
    zob = zobrist(start)
    a = play(play(start, legal_moves(start)[0]), legal_moves(play(start, legal_moves(start)[0]))[0])
    again = Position.from_fpn(a.fpn())
    assert zob.key(a) == zob.key(again)
    keys = {zob.key(play(start, m)) for m in legal_moves(start)}
    assert len(keys) == len(set(play(start, m).key() for m in legal_moves(start)))


# A red General must capture the soldier on a4 and may land on a5, a6 or a7; on a7 the
# soldier on a8 jumps it (a8xa6).
LANDING = "7x8 s5k/7/7/7/s6/7/7/G5K r 55 - 0"


def test_the_strongest_level_does_not_land_where_it_is_taken_back():
    pos = Position.from_fpn(LANDING)
    assert sorted(m.token for m in legal_moves(pos)) == ["a1xa5", "a1xa6", "a1xa7"]
    analysis = analyse(pos, Rules(), movetime=0.5)
    assert analysis.move.token != "a1xa7"
    assert analysis.score > 0
    # The line it expects: the landing, then black's reply.
    assert analysis.line[0] == analysis.move


def test_the_search_sees_the_recapture_in_its_scores():
    pos = Position.from_fpn(LANDING)
    analysis = analyse(pos, Rules(), depth=3, movetime=None)
    scores = analysis.root_scores
    assert scores["a1xa7"] < scores["a1xa5"] - 150


def test_a_won_position_scores_as_a_win():
    # The black King on e5 stands diagonally next to the red King on d4 with f6 empty, and
    # black has no General to recreate it: taking it (the only legal move) wins at once.
    pos = Position.from_fpn("7x8 7/7/7/4k2/3K3/7/7/s6 r 55 - 0")
    analysis = analyse(pos, Rules(), movetime=0.5)
    assert analysis.move.token == "d4xf6"
    assert analysis.score >= WIN - 10
    assert analysis.mate_in is not None and analysis.mate_in > 0


def test_depth_and_time_limits_are_kept():
    pos = random_game(7, "9x9", Rules(), 30).position
    shallow = analyse(pos, Rules(), depth=1, movetime=None)
    assert shallow.depth == 1
    # Unlimited, the search would go on for minutes; with 0.2 s it stops (the bound is
    # loose: a loaded machine may hold the process back for a while).
    timed = analyse(pos, Rules(), movetime=0.2)
    assert timed.seconds < 1.5
    assert timed.nodes > 0 and timed.depth >= 1


def test_level_one_sometimes_differs_and_the_seed_repeats_it():
    pos = random_game(3, "9x9", Rules(), 14).position
    picks = {choose(pos, Rules(), level=1, movetime=0.2, seed=s).token for s in range(6)}
    assert len(picks) > 1
    assert choose(pos, Rules(), level=1, movetime=0.2, seed=4) == \
        choose(pos, Rules(), level=1, movetime=0.2, seed=4)


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="level"):
        choose(Position.start("7x8"), Rules(), level=9)


def test_evaluation_is_antisymmetric_in_the_side_to_move():
    """The same placement scored from both sides: material and placement terms cancel."""
    pos = random_game(11, "7x8", Rules(), 12).position
    flipped = Position(pos.geo, pos.board, -pos.turn, (5, 5), "-", 0,
                       (pos.red, pos.black, pos.soldiers, pos.generals, pos.kings))
    same = Position(pos.geo, pos.board, pos.turn, (5, 5), "-", 0,
                    (pos.red, pos.black, pos.soldiers, pos.generals, pos.kings))
    plain = dict(WEIGHTS, threat=0, king_hangs=0, general_right=0)
    assert evaluate(same, Rules(), plain) == -evaluate(flipped, Rules(), plain)


def test_a_searcher_refuses_a_search_without_limits():
    with pytest.raises(ValueError):
        Searcher(Rules()).search(Position.start("7x8"), movetime=None)


# Strike rules (setup_reach=orthogonal): red has three Generals and soldiers on e1, f1, g1.
# Making the fourth General on e1 or g1 leaves no soldier next to any General, so the King
# can never be made: red would have no move and lose.
DEAD_END_SETUP = "7x8 s1g1gsg/7/7/G6/7/G6/7/G3SSS r 33 - 0"


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_no_level_stacks_itself_into_a_setup_dead_end(level):
    pos = Position.from_fpn(DEAD_END_SETUP)
    rules = Rules.preset("strike")
    tokens = {m.token for m in legal_moves(pos, rules)}
    assert {"f1-e1", "f1-g1"} < tokens
    for seed in range(3):
        move = choose(pos, rules, level=level, movetime=0.3, seed=seed)
        assert move.token in tokens - {"f1-e1", "f1-g1"}
        assert legal_moves(play(play(pos, move), choose(play(pos, move), rules, level=8,
                                                           movetime=0.1)), rules)


# Red is a General up, nothing to capture on either side.
AHEAD = "7x8 6k/4sss/7/7/7/7/1GSS3/G5K r 55 - 0"


def test_the_side_ahead_does_not_go_back_to_a_position_met_before():
    pos = Position.from_fpn(AHEAD)
    first = analyse(pos, Rules(), depth=3, movetime=None)
    assert first.score > 100
    again = play(pos, first.move)
    other = analyse(pos, Rules(), depth=3, movetime=None, history=[again])
    assert other.move != first.move
    assert other.root_scores[first.move.token] == 0   # heading for the draw
    off = analyse(pos, Rules.preset("official", repetition="off"), depth=3, movetime=None,
                  history=[again])
    assert off.move == first.move


def test_scores_shrink_towards_the_no_capture_draw():
    early = Position.from_fpn(AHEAD)
    late = Position.from_fpn(AHEAD[:-2] + " 80")
    a = analyse(early, Rules(), depth=2, movetime=None).score
    b = analyse(late, Rules(), depth=2, movetime=None).score
    assert 0 < b < a
    unlimited = Rules.preset("official", no_capture_limit=0)
    assert analyse(late, unlimited, depth=2, movetime=None).score == \
        analyse(early, unlimited, depth=2, movetime=None).score


def test_an_oversight_walks_into_the_recapture_but_never_into_a_lost_game():
    """A level's oversight plays the move that looks best as it stands, the opponent's
    compulsory capture unseen (here: the General lands next to the soldier that takes it
    back), and never one the search saw lose the game (the setup dead end)."""
    from fenix_table.opponent import Level
    from fenix_table.opponent.search import Searcher

    careful = Level(2, 0, True, 1.0)
    slip = Level(2, 0, True, 1.0, oversight=1.0)
    landing = Position.from_fpn("7x8 s5k/7/7/7/s6/7/7/G5K r 55 - 0")
    assert careful.search(Searcher(Rules()), landing, movetime=None).move.token != "a1xa7"
    assert slip.search(Searcher(Rules()), landing, movetime=None).move.token == "a1xa7"
    pos = Position.from_fpn(DEAD_END_SETUP)
    rules = Rules.preset("strike")
    assert slip.search(Searcher(rules), pos, movetime=None).move.token not in \
        {"f1-e1", "f1-g1"}


def test_level_three_always_overlooks_the_reply_and_level_eight_never():
    landing = Position.from_fpn("7x8 s5k/7/7/7/s6/7/7/G5K r 55 - 0")
    for seed in range(3):
        assert choose(landing, Rules(), level=3, movetime=None, seed=seed).token == "a1xa7"
    assert choose(landing, Rules(), level=8, movetime=0.2).token != "a1xa7"

"""Legal moves seen on the board: plain moves, every stacking move, several plies at once."""
from fenix_table.referee import Referee
from fenix_tools.synthetic import observe_placement, position_of
from fenix_table.rules import Position, Rules, apply

# Red K a1, G f1, S c2, S a3; Black k g8, g g5, s e6, s b7. Red to move, no capture.
BASIC = {"a1": "K", "f1": "G", "c2": "S", "a3": "S", "g8": "k", "g5": "g", "e6": "s", "b7": "s"}


def started(position, **kw):
    """A referee that has begun and seen the board showing ``position``."""
    ref = Referee(start=position, **kw)
    ref.begin()
    events = ref.observe(observe_placement(position.stacks(), position.size, 0))
    assert [e.kind for e in events] == ["board_view", "in_sync"]
    return ref


def after(position, *tokens):
    for token in tokens:
        position = apply(position, token)
    return position


def kinds(events):
    return [e.kind for e in events]


def test_begin_announces_the_game_and_first_turn():
    ref = Referee(board="9x9")
    events = ref.begin()
    assert kinds(events) == ["game_started", "turn_started"]
    assert events[0].fpn == Position.start("9x9").fpn()
    assert (events[1].side, events[1].setup_moves_left) == ("red", 5)
    assert ref.state == "checking"


def test_a_soldier_step_is_committed_with_the_turn_that_follows():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = after(start, "c2-c3")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    assert kinds(events) == ["move_committed", "turn_started"]
    committed = events[0]
    assert (committed.move, committed.side, committed.ply, committed.frame) == ("c2-c3", "red", 1, 1)
    assert (committed.fpn_before, committed.fpn_after) == (start.fpn(), seen.fpn())
    assert events[1].side == "black"
    assert ref.position == seen and ref.moves == ["c2-c3"]
    # The same board again is no new move.
    assert ref.observe(observe_placement(seen.stacks(), "7x8", 2)) == []


def test_colours_alone_are_enough_for_a_general_slide():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = after(start, "f1-f4")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1, heights=False))
    assert events[0].move == "f1-f4"


def test_setup_stacking_move_is_decided_by_the_height_that_grew():
    start = Position.start("7x8")
    ref = started(start)
    seen = after(start, "a1-b1")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    assert events[0].kind == "move_committed" and events[0].move == "a1-b1"
    assert events[1].setup_moves_left == 5 and events[1].side == "black"


def test_setup_stacking_move_without_heights_waits_and_the_players_confirm():
    start = Position.start("7x8")
    ref = started(start)
    seen = after(start, "a1-b1")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1, heights=False))
    assert kinds(events) == ["move_ambiguous"]
    # Every red piece could have received the soldier from a1.
    assert set(events[0].moves) == {f"a1-{c}" for c, (color, _) in start.stacks().items()
                                     if color == "red" and c != "a1"}
    # The camera measured nothing that tells twenty stacks apart: no cell is marked.
    assert events[0].cells == ()
    assert ref.moves == []
    # The same board again: nothing new is said.
    assert ref.observe(observe_placement(seen.stacks(), "7x8", 2, heights=False)) == []
    events = ref.confirm(["a1-b1"])
    assert kinds(events)[:2] == ["move_committed", "turn_started"]
    assert ref.position == seen


def test_setup_move_becomes_clear_once_a_later_frame_reads_the_height():
    start = Position.start("7x8")
    ref = started(start)
    seen = after(start, "a1-b1")
    assert kinds(ref.observe(observe_placement(seen.stacks(), "7x8", 1, heights=False))) == \
        ["move_ambiguous"]
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 2))
    assert events[0].move == "a1-b1"


def test_king_recreation_from_the_only_legal_stacking_move():
    # Red lost the King: only c1-c2 (soldier next to the General) is legal.
    start = position_of("7x8", {"c2": "G", "c1": "S", "a4": "S", "g8": "k", "f6": "s"}, duty="K")
    ref = started(start)
    seen = after(start, "c1-c2")
    # From above only c1 emptied; the legal-move list names the move.
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1, heights=False))
    assert events[0].kind == "move_committed" and events[0].move == "c1-c2"
    assert ref.position.piece_at("c2") == ("red", 3)


def test_general_creation_after_losing_a_general():
    start = position_of("7x8", {"a1": "K", "c1": "S", "c2": "S", "e4": "S", "g8": "k",
                                "f6": "s"}, duty="G")
    ref = started(start)
    seen = after(start, "c1-c2")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1, heights=False))
    assert events[0].move == "c1-c2"
    assert ref.position.piece_at("c2") == ("red", 2)


def test_two_plies_seen_at_once_are_committed_in_order():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = after(start, "c2-c3", "b7-b6")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    committed = [e for e in events if e.kind == "move_committed"]
    assert [(e.move, e.side, e.ply) for e in committed] == \
        [("c2-c3", "red", 1), ("b7-b6", "black", 2)]
    assert kinds(events) == ["move_committed", "turn_started", "move_committed", "turn_started"]
    assert ref.position == seen


def test_three_plies_seen_at_once_are_committed_in_order():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = after(start, "c2-c3", "b7-b6", "a3-a4")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    # Red's two steps could have come in either order; the position is the same, so the
    # first order (by token) is recorded and a notice names the other.
    assert [e.move for e in events if e.kind == "move_committed"] == ["a3-a4", "b7-b6", "c2-c3"]
    notice = events[-1]
    assert (notice.kind, notice.code) == ("notice", "route_unseen")
    assert "c2-c3 b7-b6 a3-a4" in notice.message
    assert ref.position == seen


def test_a_whole_random_game_is_followed_move_by_move():
    import random

    from fenix_table.rules import Game

    rng = random.Random(7)
    for size in ("7x8", "9x9"):
        truth = Game(Position.start(size), Rules.preset("official"))
        ref = started(truth.position)
        frame = 0
        while not truth.status().over and truth.ply < 200:
            truth.push(rng.choice(truth.legal_moves()))
            frame += 1
            events = ref.observe(observe_placement(truth.position.stacks(), size, frame))
            assert [e.fpn_after for e in events if e.kind == "move_committed"] == \
                [truth.position.fpn()]
        assert ref.position == truth.position
        if truth.status().over:
            assert ref.state == "over"


def test_king_recreation_target_is_picked_by_the_height_the_camera_reads():
    # Red lost the King; d2 can go onto either General. The camera reads e2 as three high.
    start = position_of("7x8", {"c2": "G", "e2": "G", "d2": "S", "a4": "S", "g8": "k",
                                "f6": "s"}, duty="K")
    ref = started(start)
    seen = after(start, "d2-e2")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    assert (events[0].kind, events[0].move) == ("move_committed", "d2-e2")
    assert ref.position.piece_at("e2") == ("red", 3) and ref.position.piece_at("c2") == ("red", 2)


def test_king_recreation_between_two_generals_without_heights_waits():
    start = position_of("7x8", {"c2": "G", "e2": "G", "d2": "S", "a4": "S", "g8": "k",
                                "f6": "s"}, duty="K")
    ref = started(start)
    seen = after(start, "d2-c2")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1, heights=False))
    assert kinds(events) == ["move_ambiguous"]
    assert set(events[0].moves) == {"d2-c2", "d2-e2"} and set(events[0].cells) == {"c2", "e2"}
    # A later frame reads c2 three high: the move is clear.
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 2))
    assert events[0].move == "d2-c2" and ref.moves == ["d2-c2"]


def test_general_creation_target_is_picked_by_the_height_the_camera_reads():
    start = position_of("7x8", {"a1": "K", "b1": "S", "c1": "S", "c2": "S", "g8": "k",
                                "f6": "s"}, duty="G")
    ref = started(start)
    seen = after(start, "c1-b1")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    assert events[0].move == "c1-b1" and ref.position.piece_at("b1") == ("red", 2)


def test_a_confident_height_against_every_stacking_move_is_a_warning_not_a_guess():
    # c1 emptied, but the camera reads every possible target one high: the colours name
    # two moves and the heights contradict both, so nothing is committed.
    start = position_of("7x8", {"a1": "K", "b1": "S", "c1": "S", "c2": "S", "g8": "k",
                                "f6": "s"}, duty="G")
    ref = started(start)
    seen = after(start, "c1-b1")
    flat = dict(seen.stacks(), b1=("red", 1), c2=("red", 1))
    events = ref.observe(observe_placement(flat, "7x8", 1))
    assert kinds(events) == ["move_ambiguous"] and set(events[0].moves) == {"c1-b1", "c1-c2"}
    assert ref.moves == []


def test_the_last_setup_move_and_the_first_battle_move_seen_at_once():
    from fenix_table.rules import Game

    game = Game(Position.start("7x8"), Rules.preset("official"))
    for _ in range(9):
        game.push(game.legal_moves()[0])
    ref = started(game.position)
    last_setup = game.legal_moves()[0]
    game.push(last_setup)
    battle = next(m for m in game.legal_moves() if not m.stacking)
    game.push(battle)
    events = ref.observe(observe_placement(game.position.stacks(), "7x8", 1))
    assert [e.move for e in events if e.kind == "move_committed"] == \
        [last_setup.token, battle.token]
    assert ref.position == game.position


def test_a_capture_chain_ending_where_it_began_is_seen_by_its_jumps():
    # Black's King must take c4 and c2 (or c2 and c4) and land back on e4: only the two
    # jumped soldiers vanish.
    start = Position.from_fpn("7x8 s2sgss/2ss1gs/S2s1sg/GS2s2/S2Sk1s/SSSG2s/SS1KS2/S1GS3 b 55 - 7")
    ref = started(start)
    seen = after(start, "e4xc4xc2xe4")
    assert seen.stacks()["e4"] == start.stacks()["e4"]
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    assert [e.move for e in events if e.kind == "move_committed"] == ["e4xc2xc4xe4"]
    assert ref.position == seen


def test_two_setup_plies_without_heights_are_all_offered_to_pick_from():
    # Red stacked c2 somewhere, Black f7 somewhere, between two still boards, and no
    # height can be read: hundreds of pairs fit. Too many to follow, but every one is
    # offered, so the players can pick theirs (on the display, by touching the cells).
    start = Position.start("7x8")
    ref = started(start)
    seen = after(start, "c2-c3", "f7-g3")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1, heights=False))
    asked = [e for e in events if e.kind == "move_ambiguous"]
    assert len(asked) == 1 and len(asked[0].moves) > 32
    assert "c2-c3 f7-g3" in asked[0].moves
    assert ref.moves == []
    ref.confirm(["c2-c3", "f7-g3"])
    assert ref.position == seen


def test_the_camera_may_learn_from_a_board_seen_to_commit_a_move_or_come_back_in_sync():
    start = position_of("7x8", BASIC)
    ref = Referee(start=start)
    ref.begin()
    events = ref.observe(observe_placement(start.stacks(), "7x8", 0))
    assert ref.seen_position(events) == start.stacks()          # in sync with the start
    seen = after(start, "c2-c3")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 1))
    assert ref.seen_position(events) == seen.stacks()
    # Nothing new seen, or a board that is not the game's position: nothing to learn from.
    assert ref.seen_position(ref.observe(observe_placement(seen.stacks(), "7x8", 2))) is None
    other = Referee(start=start)
    other.begin()
    reported = []
    for frame in range(3):
        events = other.observe(observe_placement({"d4": ("red", 1)}, "7x8", frame))
        reported += events
        assert other.seen_position(events) is None
    assert other.state == "checking" and reported

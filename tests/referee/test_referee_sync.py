"""Misreads, low confidence, covered cells, wrong heights, and the out-of-sync state."""
from fenix_table.referee import Referee
from fenix_tools.synthetic import observe_placement, position_of
from fenix_table.rules import Position, apply

BASIC = {"a1": "K", "f1": "G", "c2": "S", "a3": "S", "g8": "k", "g5": "g", "e6": "s", "b7": "s"}


def started(position, **kw):
    ref = Referee(start=position, **kw)
    ref.begin()
    ref.observe(observe_placement(position.stacks(), position.size, 0))
    return ref


def kinds(events):
    return [e.kind for e in events]


def test_a_low_confidence_landing_cell_waits_for_a_clear_frame():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = apply(start, "c2-c3")
    # c3 unreadable: c2-c3, c2-b2 and c2-d2 are told apart only by b2/d2, which read empty,
    # so the move is still clear; unreadable b2 and d2 too and the referee must wait.
    obs = observe_placement(seen.stacks(), "7x8", 1, occluded=["c3", "b2", "d2"])
    events = ref.observe(obs)
    assert "move_committed" not in kinds(events)
    assert "move_ambiguous" in kinds(events)
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 2))
    assert [e.move for e in events if e.kind == "move_committed"] == ["c2-c3"]


def test_unreadable_source_cell_means_nothing_happened_yet():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = apply(start, "a1-b2")
    # The hand still covers where the King came from and went to.
    obs = observe_placement(seen.stacks(), "7x8", 1, occluded=["a1", "b2"])
    assert kinds(ref.observe(obs)) == ["board_view"]
    assert ref.moves == []


def test_one_misread_frame_is_never_a_violation():
    start = position_of("7x8", BASIC)
    ref = started(start)
    misread = observe_placement(start.stacks(), "7x8", 1, overrides={"d4": ("black", 1)})
    assert ref.observe(misread) == []
    assert ref.observe(observe_placement(start.stacks(), "7x8", 2)) == []
    seen = apply(start, "c2-c3")
    assert ref.observe(observe_placement(seen.stacks(), "7x8", 3))[0].move == "c2-c3"


def test_a_hand_over_the_board_is_reported_and_not_read():
    start = position_of("7x8", BASIC)
    ref = started(start)
    half = start.stacks()
    del half["c2"]   # the stone is in the player's hand
    events = ref.observe(observe_placement(half, "7x8", 1, hand=True))
    assert kinds(events) == ["board_view"] and events[0].hand is True
    seen = apply(start, "c2-c3")
    events = ref.observe(observe_placement(seen.stacks(), "7x8", 2))
    assert kinds(events) == ["board_view", "move_committed", "turn_started"]


def test_heights_contradicting_the_game_give_a_warning_not_a_violation():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = apply(start, "c2-c3")
    obs = observe_placement(seen.stacks(), "7x8", 1, overrides={"f1": ("red", 1)})
    events = ref.observe(obs)
    assert kinds(events) == ["move_committed", "turn_started", "notice"]
    assert (events[2].code, events[2].cells) == ("height_mismatch", ("f1",))


def test_a_stacking_move_its_landing_height_denies_is_asked_not_taken():
    # c1 emptied and c2 read as still 2 high: either the height is misread or c1 is (glare
    # on a soldier that never moved). The referee asks; confirming commits the move.
    start = position_of("7x8", {"c2": "G", "c1": "S", "a4": "S", "g8": "k", "f6": "s"}, duty="K")
    ref = started(start)
    seen = apply(start, "c1-c2")
    obs = observe_placement(seen.stacks(), "7x8", 1, overrides={"c2": ("red", 2)})
    events = ref.observe(obs)
    assert kinds(events) == ["move_ambiguous"]
    assert events[0].moves == ("c1-c2",)
    assert kinds(ref.observe(obs)) == []        # asked once, nothing taken meanwhile
    assert ref.moves == []
    assert kinds(ref.confirm(["c1-c2"]))[0] == "move_committed"
    assert ref.moves == ["c1-c2"]


def test_persistent_misread_goes_out_of_sync_and_play_continues_past_it():
    start = position_of("7x8", BASIC)
    ref = started(start)
    wrong = {"d4": ("black", 1), "d5": ("red", 1), "c6": ("black", 1), "b4": ("red", 1),
             "e3": ("black", 1)}
    for frame in (1, 2):
        events = ref.observe(observe_placement(start.stacks(), "7x8", frame, overrides=wrong))
    assert kinds(events) == ["out_of_sync"]
    assert events[0].expected_fpn == start.fpn()
    assert events[0].cells == ("b4", "c6", "d4", "d5", "e3")
    assert ref.state == "out_of_sync"
    # The board is fixed (or the camera recovers): back in sync at once.
    events = ref.observe(observe_placement(start.stacks(), "7x8", 3))
    assert kinds(events) == ["in_sync"]
    assert ref.state == "play"


def test_a_move_made_while_one_cell_is_misread_is_still_taken():
    start = position_of("7x8", BASIC)
    ref = started(start)
    seen = apply(start, "c2-c3")
    stuck = {"d6": ("black", 1)}
    obs = [observe_placement(seen.stacks(), "7x8", f, overrides=stuck) for f in (1, 2, 3, 4)]
    assert ref.observe(obs[0]) == []          # could be a one-frame misread
    events = ref.observe(obs[1])
    assert [e.move for e in events if e.kind == "move_committed"] == ["c2-c3"]
    # The stuck cell now disagrees with the new position too: for the referee that is
    # an extra stone on d6 (it cannot tell a misread from a stone).
    assert ref.observe(obs[2]) == []
    events = ref.observe(obs[3])
    assert kinds(events) == ["violation"]
    assert (events[0].code, events[0].cells) == ("stones_changed", ("d6",))
    # The players confirm the board is right: d6 is a misread and is ignored from now on.
    assert kinds(ref.confirm([])) == ["violation_cleared"]
    after = apply(ref.position, "b7-b6")
    events = ref.observe(observe_placement(after.stacks(), "7x8", 5, overrides=stuck))
    assert events[0].move == "b7-b6"


def test_out_of_sync_while_a_move_is_made_through_a_stuck_cell():
    start = position_of("7x8", BASIC)
    ref = started(start)
    stuck = {"d6": ("black", 1), "c6": ("red", 1)}
    for frame in (1, 2):
        ref.observe(observe_placement(start.stacks(), "7x8", frame, overrides=stuck))
    assert ref.state == "violation" and ref.pending.code == "stones_changed"
    seen = apply(start, "c2-c3")
    for frame in (3, 4):
        events = ref.observe(observe_placement(seen.stacks(), "7x8", frame, overrides=stuck))
        if "move_committed" in kinds(events):
            break
    assert [e.move for e in events if e.kind == "move_committed"] == ["c2-c3"]
    assert ref.position == seen


def test_players_correct_a_move_while_out_of_sync():
    start = position_of("7x8", BASIC)
    ref = started(start)
    # c2 moved to c3 but c3 keeps reading black: nothing fits.
    seen = apply(start, "c2-c3")
    stuck = {"c3": ("black", 1)}
    for frame in (1, 2):
        events = ref.observe(observe_placement(seen.stacks(), "7x8", frame, overrides=stuck))
    assert ref.state in ("violation", "out_of_sync")
    events = ref.confirm(["c2-c3"])
    assert [e.move for e in events if e.kind == "move_committed"] == ["c2-c3"]
    assert ref.state == "play"
    # c3 reading black is now a known misread; the next move is followed.
    after = apply(seen, "b7-b6")
    events = ref.observe(observe_placement(after.stacks(), "7x8", 3, overrides=stuck))
    assert events[0].move == "b7-b6"


def test_confirm_rejects_an_illegal_correction():
    import pytest

    from fenix_table.errors import IllegalMoveError

    ref = started(position_of("7x8", BASIC))
    with pytest.raises(IllegalMoveError, match="c2-c5"):
        ref.confirm(["c2-c5"])
    assert ref.moves == []


def test_board_not_matching_at_the_start_is_out_of_sync_until_set_up():
    ref = Referee(board="7x8")
    ref.begin()
    empty = observe_placement({}, "7x8", 1)
    assert kinds(ref.observe(empty)) == ["board_view"]
    events = ref.observe(observe_placement({}, "7x8", 2))
    assert kinds(events) == ["out_of_sync"]
    assert len(events[0].cells) == 42
    events = ref.observe(observe_placement(Position.start("7x8").stacks(), "7x8", 3))
    assert kinds(events) == ["in_sync"]


def test_a_wrong_board_size_is_a_notice():
    ref = started(Position.start("7x8"))
    events = ref.observe(observe_placement(Position.start("9x9").stacks(), "9x9", 1))
    assert kinds(events) == ["notice"] and events[0].code == "wrong_board"


# Red lost the King: d2 may go onto the General on c2 or the one on e2.
TWO_GENERALS = {"c2": "G", "e2": "G", "d2": "S", "a4": "S", "g8": "k", "f6": "s"}


def test_play_goes_on_over_an_undecided_stacking_move_until_a_later_move_decides_it():
    start = position_of("7x8", TWO_GENERALS, duty="K")
    ref = started(start)
    boards = [apply(start, "d2-c2")]
    boards.append(apply(boards[-1], "f6-f5"))
    boards.append(apply(boards[-1], "c2-b3"))     # only a King steps diagonally
    said = []
    for frame, board in enumerate(boards, start=1):
        for repeat in (0, 1):
            said += ref.observe(observe_placement(board.stacks(), "7x8", 2 * frame + repeat,
                                                  heights=False))
    assert "violation" not in kinds(said) and "out_of_sync" not in kinds(said)
    assert [e.moves for e in said if e.kind == "move_ambiguous"] == [
        ("d2-c2", "d2-e2"), ("d2-c2 f6-f5", "d2-e2 f6-f5")]
    assert [e.move for e in said if e.kind == "move_committed"] == ["d2-c2", "f6-f5", "c2-b3"]
    assert ref.position == boards[-1] and ref.state == "play"


def test_a_height_read_later_decides_an_undecided_move_after_play_went_on():
    start = position_of("7x8", TWO_GENERALS, duty="K")
    ref = started(start)
    first = apply(start, "d2-e2")
    ref.observe(observe_placement(first.stacks(), "7x8", 1, heights=False))
    now = apply(apply(first, "f6-f5"), "a4-a5")
    ref.observe(observe_placement(now.stacks(), "7x8", 2, heights=False))
    assert ref.moves == []
    events = ref.observe(observe_placement(now.stacks(), "7x8", 3))   # e2 reads 3 high
    assert [e.move for e in events if e.kind == "move_committed"] == ["d2-e2", "f6-f5", "a4-a5"]


def test_setup_without_heights_is_never_a_violation_and_the_players_confirm():
    from fenix_table.rules import Game

    game = Game(Position.start("7x8"))
    ref = started(game.position)
    said = []
    for frame, token in enumerate(["a1-b1", "g8-f8", "a2-b2", "g7-f7"], start=1):
        game.push(token)
        for repeat in (0, 1):
            said += ref.observe(observe_placement(game.position.stacks(), "7x8",
                                                  2 * frame + repeat, heights=False))
    # Which stacks grew cannot be seen: the referee asks, and once it has lost the
    # thread it says so; it never calls the players' legal moves a violation.
    assert "violation" not in kinds(said) and "move_committed" not in kinds(said)
    assert said[-1].kind == "out_of_sync" and ref.state == "out_of_sync"
    events = ref.confirm(["a1-b1", "g8-f8", "a2-b2", "g7-f7"])
    assert [e.move for e in events if e.kind == "move_committed"] == \
        ["a1-b1", "g8-f8", "a2-b2", "g7-f7"]
    assert ref.position == game.position and ref.state == "play"


def test_a_move_out_of_turn_is_no_three_ply_route_through_an_unreadable_cell():
    # Black's soldier steps while Red is to move and c2 is covered: "c2 away, e6-e5, c2
    # back" would fit, but no camera saw Red's two plies (they leave no trace).
    start = position_of("7x8", BASIC)
    ref = started(start)
    placement = start.stacks()
    placement["e5"] = placement.pop("e6")
    events = []
    for frame in (1, 2, 3):
        events += ref.observe(observe_placement(placement, "7x8", frame, occluded=["c2"]))
    for frame in (4, 5):
        events += ref.observe(observe_placement(placement, "7x8", frame))
    assert "move_committed" not in kinds(events)
    assert ref.state == "violation" and ref.pending.code == "out_of_turn"
    assert ref.moves == []


def test_four_plies_behind_a_hand_are_followed_once_the_board_stays():
    start = position_of("7x8", BASIC)
    ref = started(start)
    after = start
    for token in ("c2-c3", "e6-e5", "c3-c4", "e5-e4"):
        after = apply(after, token)
    obs = observe_placement(after.stacks(), "7x8", 1)
    assert "move_committed" not in kinds(ref.observe(obs))     # beyond three plies: wait
    events = ref.observe(observe_placement(after.stacks(), "7x8", 2))
    assert [e.move for e in events if e.kind == "move_committed"] == \
        ["c2-c3", "e6-e5", "c3-c4", "e5-e4"]
    assert ref.position == after


def test_a_reported_board_is_not_cleared_while_a_cell_it_named_is_unreadable():
    # Red must recreate the King (c1 onto the General on c2) but moves c1-d1. With d1
    # covered the board would read as the King's recreation (c1 emptied, no heights).
    start = position_of("7x8", {"c2": "G", "c1": "S", "a4": "S", "g8": "k", "f6": "s"}, duty="K")
    ref = started(start)
    placement = start.stacks()
    placement["d1"] = placement.pop("c1")
    for frame in (1, 2):
        ref.observe(observe_placement(placement, "7x8", frame, heights=False))
    assert ref.state == "violation" and "d1" in ref.pending.cells
    events = []
    for frame in (3, 4, 5):
        events += ref.observe(observe_placement(placement, "7x8", frame, heights=False,
                                                occluded=["d1"]))
    assert "move_committed" not in kinds(events) and ref.state == "violation"
    # Put back and played properly: taken.
    events = ref.observe(observe_placement(apply(start, "c1-c2").stacks(), "7x8", 6,
                                           heights=False))
    assert [e.move for e in events if e.kind == "move_committed"] == ["c1-c2"]


def test_a_cell_taken_for_a_misread_is_no_evidence_of_the_next_stacking_move():
    # Black takes Red's General, and c2's soldier reads empty in the same still board
    # (glare; c3 reads 1 high, so it is no General creation yet). The capture is taken
    # with c2 as a misread. For Red, now entitled to create a General, c2 reading empty
    # once c3's height is unreadable looks exactly like c2-c3: the referee asks instead.
    start = position_of("7x8", {"a1": "K", "g4": "G", "c2": "S", "c3": "S", "g8": "k",
                                "g5": "s", "e6": "s"}, side="b")
    ref = started(start)
    after = apply(start, "g5xg3")
    glare = {"c2": ("empty", None)}
    events = []
    for frame in (1, 2):
        events += ref.observe(observe_placement(after.stacks(), "7x8", frame, overrides=glare))
    assert [e.move for e in events if e.kind == "move_committed"] == ["g5xg3"]
    events = []
    for frame in (3, 4, 5):
        events += ref.observe(observe_placement(after.stacks(), "7x8", frame, heights=False,
                                                overrides=glare))
    assert "move_committed" not in kinds(events)
    assert [e.moves for e in events if e.kind == "move_ambiguous"] == [("c2-c3",)]
    assert ref.moves == ["g5xg3"]

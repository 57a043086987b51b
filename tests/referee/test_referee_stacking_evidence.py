"""Setup stacking plies the colours cannot tell apart, decided by the camera's evidence of
which stack changed (vision.evidence), and narrowed when the evidence is not clear."""
import dataclasses

from fenix_table.referee import Referee
from fenix_table.referee.tracker import (CHANGE_DOMINANCE, CHANGE_DOMINANCE_GROWN, CHANGE_MIN,
                                         CHANGE_NEIGHBOUR_FLOOR, CHANGE_NEIGHBOUR_SHARE,
                                         CHANGE_NEXT_TO_EMPTIED,
                                         GROWTH_CONFIRM, GROWTH_CONFIRM_DOMINANCE, GROWTH_WEIGHT,
                                         HAND_BONUS, POINT_CHANGE_MIN, POINT_DOMINANCE, POINT_NEAR,
                                         pointed_cells)
from fenix_table.rules import Position, apply, legal_moves
from fenix_tools.synthetic import observe_placement


def started(board="7x8"):
    ref = Referee(board=board)
    ref.begin()
    start = Position.start(board)
    ref.observe(observe_placement(start.stacks(), board, 0))
    return ref, start


def seen(position, frame, changes):
    """The board after a stacking ply as a camera without heights sees it, with the
    change scores of ``changes`` (cell -> score; every other cell 0)."""
    obs = observe_placement(position.stacks(), position.size, frame, heights=False)
    scores = {cell: 0.0 for cell in obs.cells}
    scores.update(changes)
    return dataclasses.replace(obs, changes=scores)


def test_without_evidence_a_setup_stacking_ply_is_asked():
    ref, start = started()
    after = apply(start, "a1-b1")
    events = ref.observe(seen(after, 1, {}))
    assert [e.kind for e in events] == ["move_ambiguous"]
    assert len(events[0].moves) == 20 and ref.moves == []


def test_the_stack_that_clearly_changed_decides_the_ply():
    ref, start = started()
    after = apply(start, "a1-c2")
    events = ref.observe(seen(after, 1, {"c2": CHANGE_MIN + 4, "b1": 1.5, "a1": 30.0}))
    assert [e.kind for e in events][:1] == ["move_committed"]
    assert events[0].move == "a1-c2" and ref.moves == ["a1-c2"]


def test_evidence_that_does_not_dominate_only_narrows_the_question():
    ref, start = started()
    after = apply(start, "a1-c2")
    close = CHANGE_MIN + 2
    events = ref.observe(seen(after, 1, {"c2": close, "c3": close / CHANGE_DOMINANCE + 0.5,
                                         "d1": 3.0, "e1": 2.0}))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []
    # Every legal ply can still be picked, the likeliest offered first, and the display
    # points at the likeliest stacks.
    assert len(events[0].moves) == 20
    assert events[0].moves[:3] == ("a1-c2", "a1-c3", "a1-d1")
    assert events[0].cells == ("c2", "c3", "d1")


def test_a_weak_change_everywhere_decides_nothing():
    ref, start = started()
    after = apply(start, "a1-c2")
    events = ref.observe(seen(after, 1, {"c2": CHANGE_MIN - 1}))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []


def test_the_next_plys_evidence_narrows_the_explanations_still_open():
    ref, start = started()
    one = apply(start, "a1-c2")
    assert [e.kind for e in ref.observe(seen(one, 1, {}))] == ["move_ambiguous"]
    # Black's stacking ply is seen clearly; Red's stays open: 20 histories, not 400.
    two = apply(one, "g8-e7")
    events = ref.observe(seen(two, 2, {"e7": CHANGE_MIN + 5}))
    asked = [e for e in events if e.kind == "move_ambiguous"]
    assert len(asked) == 1 and len(asked[0].moves) == 20
    assert all(m.endswith(" g8-e7") for m in asked[0].moves) and ref.moves == []


def test_with_nobody_to_ask_the_likeliest_ply_is_recorded_as_uncertain():
    ref = Referee(board="7x8", asking=False)
    ref.begin()
    start = Position.start("7x8")
    ref.observe(observe_placement(start.stacks(), "7x8", 0))
    board = start
    plies = ["a1-c2", "g8-e7", "b1-c2", "f8-e7", "c1-d1"]
    committed = []
    for frame, token in enumerate(plies, start=1):
        board = apply(board, token)
        # Red's first ply left a weak trace (c2 ahead, not clearly); the rest are clear.
        weak = {"c2": 4.0, "d2": 2.5} if frame == 1 else {token[-2:]: CHANGE_NEXT_TO_EMPTIED + 5}
        committed += [e for e in ref.observe(seen(board, frame, weak))
                      if e.kind == "move_committed"]
    committed += [e for e in ref.settle() if e.kind == "move_committed"]
    assert [e.move for e in committed] == plies and ref.position == board
    first = committed[0]
    assert first.uncertain and first.move == "a1-c2"   # the likeliest, and marked so
    assert first.alternatives[0] == "a1-d2"            # the next likeliest comes first
    # Later plies settled two of the doubts: b1 and c1 moved on as soldiers, so the
    # stone did not land on them.
    assert len(first.alternatives) == 17
    assert "a1-b1" not in first.alternatives and "a1-c1" not in first.alternatives
    assert not any(e.uncertain for e in committed[1:])


def test_an_uncertain_ply_is_kept_as_such_in_the_record(tmp_path):
    from fenix_table.record import GameRecorder, GameStore
    from fenix_table.rules import Rules
    from fenix_table.rules.fgn import parse_fgn

    store = GameStore(tmp_path / "g.sqlite3")
    recorder = GameRecorder(store)
    start = Position.start("7x8")
    ref = Referee(start=start, asking=False,
                  game_id=recorder.new_game(start, Rules.preset("official"), "referee"))
    recorder.handle(ref.begin())
    recorder.handle(ref.observe(observe_placement(start.stacks(), "7x8", 0)))
    recorder.handle(ref.observe(seen(apply(start, "a1-c2"), 1, {"c2": 3.0})))
    recorder.handle(ref.settle())
    record = parse_fgn(store.export_fgn(recorder.game_id))
    assert record.moves == ["a1-c2"]
    assert record.comments[0][0].startswith("uncertain: the camera could not tell a1-c2 from ")


def test_a_neighbour_that_changed_too_leaves_the_ply_to_the_players():
    # A stack that grew casts a longer shadow onto its neighbour's top: the neighbour may
    # then change more than the stack itself, so a change next door is no proof.
    ref, start = started()
    after = apply(start, "a1-c2")
    strong = CHANGE_MIN + 20
    events = ref.observe(seen(after, 1, {"c2": strong, "c3": CHANGE_NEIGHBOUR_SHARE * strong + 1}))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []
    assert set(events[0].cells) >= {"c2", "c3"}
    # The same change far from any other changed stack decides.
    ref, start = started()
    events = ref.observe(seen(after, 1, {"c2": CHANGE_MIN + 20, "f1": 3.0}))
    assert ref.moves == ["a1-c2"]


def test_a_neighbour_reached_by_the_new_top_disc_does_not_hold_the_ply_open():
    # The new top disc and its shadow reach into the neighbour's cell: on the generator's
    # dark face the neighbour changes by a third to a half of the landing. Less than
    # half is no rival.
    ref, start = started()
    after = apply(start, "a1-c2")
    strong = CHANGE_MIN + 20
    ref.observe(seen(after, 1, {"c2": strong, "c3": 0.45 * strong}))
    assert ref.moves == ["a1-c2"]


def test_the_movers_fingertips_help_a_change_stand_out_but_never_make_one():
    ref, start = started()
    after = apply(start, "a1-c2")
    # c2 changed, but not twice as much as e1: alone, the camera cannot tell.
    changes = {"c2": CHANGE_MIN + 2, "e1": (CHANGE_MIN + 2 + HAND_BONUS) / CHANGE_DOMINANCE - 0.25}
    assert [e.kind for e in ref.observe(seen(after, 1, changes))] == ["move_ambiguous"]
    # Red's fingertips were last over c2 (the covered cells deepest from Red's edge).
    ref, start = started()
    obs = dataclasses.replace(seen(after, 1, changes), reached=("b1", "c1", "c2"))
    assert ref.observe(obs)[0].kind == "move_committed" and ref.moves == ["a1-c2"]
    # A change too weak to count is not made one by the hand.
    ref, start = started()
    obs = dataclasses.replace(seen(after, 1, {"c2": CHANGE_MIN - 1}), reached=("c1", "c2"))
    assert [e.kind for e in ref.observe(obs)] == ["move_ambiguous"] and ref.moves == []


def test_a_top_disc_that_grew_ranks_the_landings_but_never_commits_one():
    # c2's top disc grew clearly; by the change alone d1 leads. The question offers
    # a1-c2 first and points at c2, and with nobody to ask it is the likeliest ply
    # recorded. Weighed in, the growth would make c2 dominate, but the live rule does not
    # commit on it: a wrong certain move is worse than a question.
    after = apply(Position.start("7x8"), "a1-c2")
    changes = {"c2": CHANGE_MIN, "d1": CHANGE_MIN + 1}
    growth = {cell: 0.0 for cell in seen(after, 1, {}).cells}
    growth.update({"c2": 10.0, "d1": -1.0})
    assert CHANGE_MIN + GROWTH_WEIGHT * growth["c2"] >= CHANGE_DOMINANCE * changes["d1"]
    obs = dataclasses.replace(seen(after, 1, changes), growth=growth)
    ref, _ = started()
    events = ref.observe(obs)
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []
    assert events[0].moves[:2] == ("a1-c2", "a1-d1") and "c2" in events[0].cells
    ref, _ = tracking()
    ref.observe(obs)
    committed = [e for e in ref.settle() if e.kind == "move_committed"]
    assert [(e.move, e.uncertain) for e in committed] == [("a1-c2", True)]
    assert committed[0].alternatives[0] == "a1-d1"


def test_a_top_disc_that_clearly_grew_alone_lets_a_smaller_lead_in_change_decide():
    after = apply(Position.start("7x8"), "a1-c2")
    lead = CHANGE_MIN + 3
    between = lead / ((CHANGE_DOMINANCE + CHANGE_DOMINANCE_GROWN) / 2)   # c2 leads, not twice

    def seen_grown(changes, grown):
        growth = {cell: 0.0 for cell in seen(after, 1, {}).cells}
        growth.update(grown)
        return dataclasses.replace(seen(after, 1, changes), growth=growth)

    clear = {"c2": GROWTH_CONFIRM + 1}
    # By the change alone c2 does not dominate e1: the players are asked.
    ref, _ = started()
    events = ref.observe(seen(after, 1, {"c2": lead, "e1": between}))
    assert [e.kind for e in events] == ["move_ambiguous"]
    # c2's top disc clearly grew and no other did: the smaller lead decides.
    ref, _ = started()
    ref.observe(seen_grown({"c2": lead, "e1": between}, clear))
    assert ref.moves == ["a1-c2"]
    # e1's disc grew too (more than a third of c2's growth): asked.
    ref, _ = started()
    rival = {"e1": clear["c2"] / GROWTH_CONFIRM_DOMINANCE + 0.5}
    ref.observe(seen_grown({"c2": lead, "e1": between}, {**clear, **rival}))
    assert ref.moves == []
    # Growth short of GROWTH_CONFIRM, or a lead in change below CHANGE_DOMINANCE_GROWN,
    # or a changed neighbour (c3): asked.
    for changes, grown in (({"c2": lead, "e1": between}, {"c2": GROWTH_CONFIRM - 1}),
                           ({"c2": lead, "e1": lead / CHANGE_DOMINANCE_GROWN + 0.5}, clear),
                           ({"c2": lead, "c3": CHANGE_NEIGHBOUR_SHARE * lead + 0.5}, clear)):
        ref, _ = started()
        assert [e.kind for e in ref.observe(seen_grown(changes, grown))] == ["move_ambiguous"]
    # Growth makes no change: a landing under CHANGE_MIN is not taken, however it grew.
    ref, _ = started()
    ref.observe(seen_grown({"c2": CHANGE_MIN - 1}, {"c2": 10 * GROWTH_CONFIRM}))
    assert ref.moves == []


def test_a_stack_next_to_the_emptied_cell_needs_a_change_of_its_own():
    # The lifted stone's shadow leaves its neighbours: a changed neighbour of a1 is
    # taken only on a clearly larger change.
    ref, start = started()
    after = apply(start, "a1-b1")
    events = ref.observe(seen(after, 1, {"b1": CHANGE_NEXT_TO_EMPTIED - 2}))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []
    ref, start = started()
    ref.observe(seen(after, 1, {"b1": CHANGE_NEXT_TO_EMPTIED + 2}))
    assert ref.moves == ["a1-b1"]

def test_a_misread_height_does_not_outvote_the_stack_that_changed():
    # Red put a1 on b2; the camera reads b2 still one high and c2 two high (wrong): by
    # heights alone it is a1-c2. The stacks' changes say b2, and b2 it is.
    ref, start = started()
    after = apply(start, "a1-b2")
    obs = observe_placement(after.stacks(), "7x8", 1,
                            overrides={"b2": ("red", 1), "c2": ("red", 2)})
    scores = {cell: 0.0 for cell in obs.cells}
    scores.update({"b2": CHANGE_MIN + 10, "a1": 40.0})
    ref.observe(dataclasses.replace(obs, changes=scores))
    assert ref.moves == ["a1-b2"]
    # Without the changes, the heights decide (the old behaviour).
    ref, start = started()
    ref.observe(obs)
    assert ref.moves == ["a1-c2"]


def test_with_nobody_to_ask_a_later_move_corrects_an_uncertain_ply():
    ref = Referee(board="7x8", asking=False)
    ref.begin()
    board = Position.start("7x8")
    ref.observe(observe_placement(board.stacks(), "7x8", 0))
    # Red's first stone went onto c2, but the camera's faint evidence leans to d2; its
    # second, e1-d3, left a faint trace too, this time on the right stack.
    plies = [("a1-c2", {"d2": 4.0, "c2": 3.0}), ("g8-e7", None), ("e1-d3", {"d3": 4.0, "a3": 3.0}),
             ("g7-g6", None), ("d1-e2", None), ("f8-f7", None), ("b1-c2", None), ("d8-c7", None)]
    events = []
    for frame, (token, changes) in enumerate(plies, start=1):
        board = apply(board, token)
        changes = changes or {token[-2:]: CHANGE_NEXT_TO_EMPTIED + 5}
        events += ref.observe(seen(board, frame, changes))
    first = next(e for e in events if e.kind == "move_committed")
    assert (first.move, first.uncertain) == ("a1-d2", True)       # the likeliest, wrongly
    # d2 moves on as a soldier: every alternative but a1-d2 explains that; a1-c2 is the
    # one the camera spoke for. The plies since are replayed, each as sure as it was.
    board = apply(board, "d2-c3")
    later = ref.observe(seen(board, len(plies) + 1, {"c3": CHANGE_NEXT_TO_EMPTIED + 5}))
    kinds = [e.kind for e in later]
    assert "move_undone" in kinds and ref.position == board
    redone = [e for e in later if e.kind == "move_committed"]
    assert (redone[0].move, redone[0].uncertain) == ("a1-c2", True)
    assert "a1-d2" in redone[0].alternatives
    assert [(e.move, e.uncertain) for e in redone[1:3]] == [("g8-e7", False), ("e1-d3", True)]
    assert ref.moves == [t for t, _ in plies] + ["d2-c3"]


def test_with_nobody_to_ask_a_stack_beside_the_emptied_cell_is_not_the_likeliest_for_a_shadow():
    # The lifted stone's shadow left b2 (beside a1): b2's change counts for less than
    # the same change elsewhere when the likeliest ply is recorded.
    ref = Referee(board="7x8", asking=False)
    ref.begin()
    board = Position.start("7x8")
    ref.observe(observe_placement(board.stacks(), "7x8", 0))
    board = apply(board, "a1-d2")
    ref.observe(seen(board, 1, {"b2": 5.0, "d2": 4.0}))
    committed = [e for e in ref.settle() if e.kind == "move_committed"]
    assert [(e.move, e.uncertain) for e in committed] == [("a1-d2", True)]
    assert committed[0].alternatives[0] == "a1-b2"


def test_a_stack_read_as_before_is_still_taken_when_it_is_the_one_that_changed():
    # Red put a1 on c2, but the camera reads c2 still one high: by heights c2 is no
    # landing. It is the stack that changed, so the colours' every ply is open again and
    # the change decides.
    ref, start = started()
    after = apply(start, "a1-c2")
    obs = observe_placement(after.stacks(), "7x8", 1, heights=False, overrides={"c2": ("red", 1)})
    scores = {cell: 0.0 for cell in obs.cells}
    scores.update({"c2": CHANGE_MIN + 10, "a1": 40.0})
    ref.observe(dataclasses.replace(obs, changes=scores))
    assert ref.moves == ["a1-c2"]
    # Without that change the heights' options stand, c2 not among them.
    ref, start = started()
    events = ref.observe(dataclasses.replace(obs, changes={cell: 0.0 for cell in obs.cells}))
    assert [e.kind for e in events] == ["move_ambiguous"] and "a1-c2" not in events[0].moves


def test_a_height_misread_later_does_not_rule_out_the_ply_the_change_favoured():
    # Red's a1 went onto c2: c2 changed most, but c3 beside it too, so the ply stays open.
    # On the next board the camera reads c2 one stone high still: by heights every
    # history through a1-c2 is out. The change favoured it, so they stay open, and with
    # nobody to ask the likeliest is a1-c2 (uncertain), not the best of the rest.
    def played(misread):
        ref = Referee(board="7x8", asking=False)
        ref.begin()
        board = Position.start("7x8")
        ref.observe(observe_placement(board.stacks(), "7x8", 0))
        board = apply(board, "a1-c2")
        ref.observe(seen(board, 1, {"c2": CHANGE_MIN + 3, "c3": CHANGE_MIN - 1}))
        board = apply(board, "g8-e7")
        obs = observe_placement(board.stacks(), "7x8", 2, heights=False, overrides=misread)
        scores = {cell: 0.0 for cell in obs.cells}
        scores["e7"] = CHANGE_NEXT_TO_EMPTIED + 5
        events = ref.observe(dataclasses.replace(obs, changes=scores)) + ref.settle()
        return [e for e in events if e.kind == "move_committed"]

    committed = played({"c2": ("red", 1)})
    assert [e.move for e in committed] == ["a1-c2", "g8-e7"]
    assert committed[0].uncertain and "a1-c3" in committed[0].alternatives
    # A height read right agrees with the change: the same record.
    assert [e.move for e in played({"c2": ("red", 2)})] == ["a1-c2", "g8-e7"]


def tracking(board="7x8"):
    ref = Referee(board=board, asking=False)
    ref.begin()
    start = Position.start(board)
    ref.observe(observe_placement(start.stacks(), board, 0))
    return ref, start


def test_two_plies_between_still_boards_each_keep_the_change_of_their_own_stack():
    # Red's and Black's setup plies were made with no still board between them: the
    # next still board shows both stacks changed. Black's clear change decides its ply;
    # Red's is the likeliest by its own stack's change, not the first by token order.
    ref, start = tracking()
    board = apply(apply(start, "a1-d2"), "g8-e7")
    ref.observe(seen(board, 1, {"d2": CHANGE_MIN + 4, "e7": CHANGE_NEXT_TO_EMPTIED + 5}))
    committed = [e for e in ref.settle() if e.kind == "move_committed"]
    assert [(e.move, e.uncertain) for e in committed] == [("a1-d2", True), ("g8-e7", False)]
    assert ref.position == board


def test_with_no_change_measured_the_hand_ranks_the_landings():
    # No earlier still board to compare with (the camera started late): the stacks'
    # changes are unknown, but Red's fingertips were last seen over c3.
    ref = Referee(board="7x8", asking=False)
    ref.begin()
    board = apply(Position.start("7x8"), "a1-c3")
    obs = observe_placement(board.stacks(), "7x8", 1, heights=False)
    ref.observe(dataclasses.replace(obs, reached=("b1", "c1", "b2", "c2", "c3")))
    committed = [e for e in ref.settle() if e.kind == "move_committed"]
    assert [(e.move, e.uncertain) for e in committed] == [("a1-c3", True)]
    assert "a1-b1" in committed[0].alternatives


def test_a_ply_the_camera_said_nothing_about_stays_open_until_the_recording_ends():
    # Red's first stone left no trace the camera could measure and no hand was seen:
    # nothing speaks for any landing, so no landing is guessed while play goes on (the
    # later plies, each seen clearly, wait with it), and the one recorded at the end is
    # marked uncertain with every alternative.
    ref, start = tracking()
    board = apply(start, "a1-c2")
    committed = [e for e in ref.observe(seen(board, 1, {})) if e.kind == "move_committed"]
    plies = ["g8-e7", "b1-c2", "f8-e7", "c1-d1", "g7-f6"]
    for frame, token in enumerate(plies, start=2):
        board = apply(board, token)
        clear = {token[-2:]: CHANGE_NEXT_TO_EMPTIED + 5}
        committed += [e for e in ref.observe(seen(board, frame, clear))
                      if e.kind == "move_committed"]
    assert committed == [] and ref.moves == []
    committed = [e for e in ref.settle() if e.kind == "move_committed"]
    assert [e.move for e in committed][1:] == plies
    first = committed[0]
    assert first.uncertain and not any(e.uncertain for e in committed[1:])
    # b1 and c1 moved on as soldiers: the stone did not land on them.
    assert sorted((first.move,) + first.alternatives) == sorted(
        m.token for m in legal_moves(start)
        if m.path[0] == "a1" and m.token not in ("a1-b1", "a1-c1"))


def test_a_stack_in_the_landing_stacks_longer_shadow_does_not_hold_the_ply_open():
    # Shadows fall toward the next file: d2 lies in c2's shadow, which grew with the
    # stone put on c2, and changed by 0.7 of c2's change.
    ref, start = started()
    after = apply(start, "a1-c2")
    changes = {"c2": 20.0, "d2": 0.7 * 20.0}
    events = ref.observe(dataclasses.replace(seen(after, 1, changes), shadow=(1.0, 0.0)))
    assert [e.kind for e in events][:1] == ["move_committed"] and ref.moves == ["a1-c2"]
    # Where the board does not show which way shadows fall, the neighbour is a rival.
    ref, start = started()
    events = ref.observe(seen(after, 1, changes))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []


def test_the_stack_casting_the_shadow_is_taken_over_the_one_it_falls_on():
    # c3 lies in b3's shadow: what b3's longer shadow explains of c3's change (0.8 of
    # b3's) is no evidence for c3, and b3 clearly changed most.
    ref, start = started()
    after = apply(start, "e1-b3")
    changes = {"b3": 12.0, "c3": 14.0}
    events = ref.observe(dataclasses.replace(seen(after, 1, changes), shadow=(1.0, 0.0)))
    assert [e.kind for e in events][:1] == ["move_committed"] and ref.moves == ["e1-b3"]
    # Shadows falling the other way: b3 lies in c3's, and c3 is taken.
    ref, start = started()
    events = ref.observe(dataclasses.replace(seen(after, 1, changes), shadow=(-1.0, 0.0)))
    assert ref.moves == ["e1-c3"]


def test_a_stack_beside_or_just_beyond_the_fingertips_is_helped_by_the_hand_too():
    from fenix_table.referee.tracker import HAND_NEAR_BONUS

    # Red's fingertips were last over b2; c2 (beside) and b3 (one beyond) are where the
    # stone went about as often as b2 itself, c1 (behind) much less.
    for landing in ("c2", "b3"):
        ref, start = started()
        after = apply(start, f"a1-{landing}")
        rival = (CHANGE_MIN + 2 + HAND_NEAR_BONUS) / CHANGE_DOMINANCE - 0.25
        changes = {landing: CHANGE_MIN + 2, "e1": rival}
        obs = dataclasses.replace(seen(after, 1, changes), reached=("a1", "b1", "b2"))
        assert ref.observe(obs)[0].kind == "move_committed" and ref.moves == [f"a1-{landing}"]
    ref, start = started()
    after = apply(start, "a1-c1")
    changes = {"c1": CHANGE_MIN + 2, "e1": (CHANGE_MIN + 2 + HAND_NEAR_BONUS) / CHANGE_DOMINANCE - 0.25}
    obs = dataclasses.replace(seen(after, 1, changes), reached=("a1", "b1", "b2"))
    assert [e.kind for e in ref.observe(obs)] == ["move_ambiguous"]


def test_a_stack_that_did_not_grow_casts_no_longer_shadow():
    # b3 changed, but too little for a stone put on it: c3, in its shadow, keeps its own
    # change and is offered first.
    ref, start = started()
    after = apply(start, "e1-c3")
    changes = {"b3": CHANGE_MIN - 1, "c3": CHANGE_MIN - 0.5}
    events = ref.observe(dataclasses.replace(seen(after, 1, changes), shadow=(1.0, 0.0)))
    assert [e.kind for e in events] == ["move_ambiguous"] and events[0].moves[0] == "e1-c3"


def test_a_shadow_reaches_the_neighbours_across_the_sides_not_across_the_corner():
    # Light falling toward the next file and rank at once: c3 and b4 (across b3's sides)
    # may lie in b3's longer shadow, c4 (across its corner) is too far.
    diagonal = (0.5 ** 0.5, 0.5 ** 0.5)
    ref, start = started()
    after = apply(start, "e1-b3")
    events = ref.observe(dataclasses.replace(seen(after, 1, {"b3": 12.0, "c3": 14.0}),
                                             shadow=diagonal))
    assert events[0].kind == "move_ambiguous" and events[0].moves[0] == "e1-b3"
    ref, start = started()
    after = apply(start, "e1-c4")
    events = ref.observe(dataclasses.replace(seen(after, 1, {"b3": 12.0, "c4": 14.0}),
                                             shadow=diagonal))
    assert events[0].kind == "move_ambiguous" and events[0].moves[0] == "e1-c4"


def test_a_rival_next_to_the_emptied_cell_is_weighed_less_its_share_of_the_lifted_shadow():
    # Red put a1 on c2. a2, next to a1, changed too: the lifted stone's shadow left it.
    # Weighed as the ranking weighs it (less that share), a2 is no rival to c2's change.
    ref, start = started()
    after = apply(start, "a1-c2")
    assert "a1-a2" in {m.token for m in legal_moves(start)}
    rival = (CHANGE_MIN + 5) / CHANGE_DOMINANCE + 1.0
    assert rival - (CHANGE_NEXT_TO_EMPTIED - CHANGE_MIN) < (CHANGE_MIN + 5) / CHANGE_DOMINANCE
    events = ref.observe(seen(after, 1, {"c2": CHANGE_MIN + 5, "a2": rival}))
    assert events[0].kind == "move_committed" and ref.moves == ["a1-c2"]
    # The same change on a rival away from the emptied cell still holds the ply open.
    ref, start = started()
    events = ref.observe(seen(after, 1, {"c2": CHANGE_MIN + 5, "e1": rival}))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []


def test_a_stack_next_to_the_emptied_cell_must_dominate_by_what_the_lifted_shadow_leaves():
    # Red's a1 went onto e2 (far away, a small change); b1, next to a1, changed more as
    # the lifted stone's shadow left it. Less that share b1 does not dominate e2's change,
    # so the ply is asked, not committed as a1-b1 (a straight-down camera, where the new
    # top disc's parallax is smallest, showed this).
    ref, start = started()
    after = apply(start, "a1-e2")
    share = CHANGE_NEXT_TO_EMPTIED - CHANGE_MIN
    far = 6.0
    near = CHANGE_DOMINANCE * far + 0.5
    assert near >= CHANGE_NEXT_TO_EMPTIED and near - share < CHANGE_DOMINANCE * far
    events = ref.observe(seen(after, 1, {"b1": near, "e2": far}))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []
    assert events[0].moves[:2] == ("a1-b1", "a1-e2")
    # Clearly larger, less its share too, it is still taken.
    ref, start = started()
    ref.observe(seen(apply(start, "a1-b1"), 1, {"b1": CHANGE_DOMINANCE * far + share + 0.5, "e2": far}))
    assert ref.moves == ["a1-b1"]


def test_with_nobody_to_ask_a_later_plys_evidence_picks_the_earlier_ply_that_makes_it_legal():
    # Red's a6 went onto e2, faintly seen and leaning to d2 (already a General); later
    # Red's b5 made d2 a King. Had a6 gone onto d2, b5 could not have: the history the
    # camera speaks for most is a6-e2 then b5-d2, not a6-d2 then the best of the rest.
    ref, board = tracking()
    plies = [("a1-d2", {"d2": CHANGE_NEXT_TO_EMPTIED + 5}), ("g8-e7", {"e7": CHANGE_NEXT_TO_EMPTIED + 5}),
             ("a6-e2", {"e2": 3.0, "d2": 4.0}), ("f8-f7", {"f7": CHANGE_NEXT_TO_EMPTIED + 5}),
             ("b5-d2", {"d2": CHANGE_MIN - 1})]
    events = []
    for frame, (token, changes) in enumerate(plies, start=1):
        board = apply(board, token)
        events += ref.observe(seen(board, frame, changes))
    events += ref.settle()
    committed = [(e.move, e.uncertain) for e in events if e.kind == "move_committed"]
    assert committed == [("a1-d2", False), ("g8-e7", False), ("a6-e2", True),
                         ("f8-f7", False), ("b5-d2", True)]
    assert ref.position == board


def test_a_neighbour_of_the_landing_beside_the_emptied_cell_counts_less_the_lifted_shadow():
    # Red put a1 on c2; b2, beside both, changed a little over half as much: the lifted
    # stone's shadow left it, which explains that much, so it does not hold the ply open.
    ref, start = started()
    after = apply(start, "a1-c2")
    own = CHANGE_MIN + 13
    beside = CHANGE_NEIGHBOUR_SHARE * own + 1.0
    assert beside - (CHANGE_NEXT_TO_EMPTIED - CHANGE_MIN) < CHANGE_NEIGHBOUR_SHARE * own
    ref.observe(seen(after, 1, {"c2": own, "b2": beside}))
    assert ref.moves == ["a1-c2"]
    # c3 is beside c2 only: the same change there holds it open.
    ref, start = started()
    events = ref.observe(seen(after, 1, {"c2": own, "c3": beside}))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []


def pointed_over(position, frame, changes, spot):
    """As :func:`seen`, with the hand last seen pointing at ``spot`` (board cells)."""
    return dataclasses.replace(seen(position, frame, changes), pointed=spot)


def test_a_weak_change_where_the_hand_pointed_decides_the_ply():
    ref, start = started()
    after = apply(start, "a1-c2")
    weak = POINT_CHANGE_MIN + 0.5
    assert weak < CHANGE_MIN
    changes = {"c2": weak, "e2": weak / POINT_DOMINANCE - 0.2, "a1": 30.0}
    # Without the hand, a change this weak decides nothing ...
    events = ref.observe(seen(after, 1, changes))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []
    # ... with the fingers' front over c2 (a little off its centre, 2.5 / 1.5), it does.
    ref, start = started()
    events = ref.observe(pointed_over(after, 1, changes, (2.7, 1.3)))
    assert [e.kind for e in events][:1] == ["move_committed"]
    assert events[0].move == "a1-c2" and ref.moves == ["a1-c2"]


def test_the_hand_decides_nothing_when_it_points_between_stacks_or_the_change_disagrees():
    after = apply(Position.start("7x8"), "a1-c2")
    weak = POINT_CHANGE_MIN + 0.5
    refused = {
        # Between c2 and d2: both within POINT_CLEAR of the spot.
        "between": pointed_over(after, 1, {"c2": weak}, (3.0, 1.5)),
        # Too far from every stack's centre.
        "off": pointed_over(after, 1, {"c2": weak}, (2.5 + POINT_NEAR + 0.1, 2.2)),
        # c2 did not change above the noise.
        "still": pointed_over(after, 1, {"c2": POINT_CHANGE_MIN - 0.5}, (2.5, 1.5)),
        # Another stack, far from the hand, changed nearly as much.
        "elsewhere": pointed_over(after, 1, {"c2": weak, "a5": weak / POINT_DOMINANCE + 0.2}, (2.5, 1.5)),
        # Its neighbour changed too (a longer shadow, or the stone went there).
        "neighbour": pointed_over(after, 1, {"c2": weak, "c3": max(
            CHANGE_NEIGHBOUR_FLOOR, CHANGE_NEIGHBOUR_SHARE * weak) + 0.1}, (2.5, 1.5)),
    }
    for why, obs in refused.items():
        ref, _ = started()
        events = ref.observe(obs)
        assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == [], why


def test_next_to_the_emptied_cell_the_hand_needs_the_change_the_lifted_shadow_leaves():
    after = apply(Position.start("7x8"), "b1-c2")    # b1 is next to c2
    share = CHANGE_NEXT_TO_EMPTIED - CHANGE_MIN
    for change, taken in ((POINT_CHANGE_MIN + share + 0.5, True), (POINT_CHANGE_MIN + share - 0.5, False)):
        ref, _ = started()
        events = ref.observe(pointed_over(after, 1, {"c2": change, "b1": 30.0}, (2.5, 1.5)))
        assert (ref.moves == ["b1-c2"]) is taken, change


def test_where_the_hand_pointed_ranks_the_landings_in_the_question():
    ref, start = started()
    after = apply(start, "a1-d2")
    # Nothing clearly changed; the hand pointed at d2, a little towards e3.
    events = ref.observe(pointed_over(after, 1, {"c2": 2.0, "d2": 1.0}, (3.6, 1.8)))
    assert [e.kind for e in events] == ["move_ambiguous"] and ref.moves == []
    assert events[0].moves[0] == "a1-d2" and "d2" in events[0].cells
    assert pointed_cells((3.6, 1.8), "7x8")["d2"] > pointed_cells((3.6, 1.8), "7x8")["e3"] > 0


def test_play_goes_on_past_a_ply_whose_landing_height_was_misread():
    # Red's soldier d1 went onto the General c1, making a King; the camera reads the new
    # King a stone low. Colours allow only d1-c1, so it stays open for the heights'
    # sake. Black's General then slides e7-e4: the height that kept d1-c1 open must not
    # rule out the history through it, or the table loses the thread of the game. With
    # players they are asked about both plies; with nobody to ask both are recorded.
    def played(asking):
        board = Position.from_fpn("7x8 1ks1s1s/g1ssgsg/7/1G5/7/SS1S2s/SGSS3/1SGS1S1 r 55 K 0")
        ref = Referee(start=board, asking=asking)
        ref.begin()
        events = []
        for frame in (0, 1):
            events += ref.observe(observe_placement(board.stacks(), "7x8", frame))
        low_king = {"c1": ("red", 2)}
        for frame, token in ((2, "d1-c1"), (3, None), (4, "e7-e4"), (5, None)):
            board = apply(board, token) if token else board
            events += ref.observe(observe_placement(board.stacks(), "7x8", frame,
                                                    overrides=low_king))
        if not asking:
            events += ref.settle()
        assert not [e for e in events if e.kind in ("out_of_sync", "violation")]
        return ref, board, events

    ref, board, events = played(asking=True)
    assert events[-1].kind == "move_ambiguous" and events[-1].moves == ("d1-c1 e7-e4",)
    ref, board, events = played(asking=False)
    assert [e.move for e in events if e.kind == "move_committed"] == ["d1-c1", "e7-e4"]
    assert ref.position == board

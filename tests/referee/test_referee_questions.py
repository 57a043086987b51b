"""What a stacking question (``MoveAmbiguous``) offers and points at: every option, the
likeliest first, and at most three cells, whatever the shape of the options (one open
ply, two plies between still boards, an open ply carried past a later one); no cell when
the camera measured nothing that tells them apart."""
import dataclasses

from fenix_table.referee import Referee
from fenix_table.referee.tracker import CHANGE_MIN
from fenix_table.rules import Position, apply
from fenix_tools.synthetic import observe_placement


def started(board="7x8", asking=True):
    ref = Referee(board=board, asking=asking)
    ref.begin()
    start = Position.start(board)
    ref.observe(observe_placement(start.stacks(), board, 0))
    return ref, start


def seen(position, frame, changes, **hand):
    """The board as a camera without heights sees it, with the change scores of
    ``changes`` (cell -> score; every other cell 0) and the hand's ``reached`` /
    ``pointed``."""
    obs = observe_placement(position.stacks(), position.size, frame, heights=False)
    scores = {cell: 0.0 for cell in obs.cells}
    scores.update(changes)
    return dataclasses.replace(obs, changes=scores, **hand)


def question(events):
    asked = [e for e in events if e.kind == "move_ambiguous"]
    assert len(asked) == 1, [e.kind for e in events]
    return asked[0]


def test_two_setup_plies_between_still_boards_point_at_their_two_landings():
    # Red stacked a1 on c2 and Black g8 on e7 before the board was still again; each
    # changed, too weakly to commit: 400 histories, and the display marks two stacks.
    ref, start = started()
    after = apply(apply(start, "a1-c2"), "g8-e7")
    weak = CHANGE_MIN - 2
    asked = question(ref.observe(seen(after, 1, {"c2": weak, "e7": weak, "d1": 0.8})))
    assert len(asked.moves) == 400 and asked.moves[0] == "a1-c2 g8-e7"
    assert set(asked.cells) == {"c2", "e7"}
    assert ref.moves == []
    ref.confirm(asked.moves[0].split())
    assert ref.position == after


def test_two_setup_plies_on_the_9x9_face_are_offered_and_narrowed_to_three_cells():
    # 28 x 28 pairs on the 9x9 face: every pair is offered (touching two stacks picks
    # one), the likeliest first, and at most three cells are marked.
    ref, start = started("9x9")
    after = apply(apply(start, "b1-d3"), "h4-e8")
    asked = question(ref.observe(seen(after, 1, {"d3": 5.0, "e8": 6.0, "c4": 3.0, "g7": 2.0})))
    assert len(asked.moves) == 27 * 27 and asked.moves[0] == "b1-d3 h4-e8"
    # The likeliest history's two landings, then the next likeliest's other one.
    assert asked.cells == ("d3", "e8", "c4")


def test_an_open_ply_carried_past_the_next_one_points_at_both_landings():
    # Red's ply stays open (a weak change on c2); Black's next one is weak too. The
    # options now differ in two plies: the question points at the two landings the
    # camera saw change, not at the forty stacks the histories differ on.
    ref, start = started()
    one = apply(start, "a1-c2")
    first = question(ref.observe(seen(one, 1, {"c2": 4.0})))
    assert first.moves[0] == "a1-c2" and first.cells == ("c2",)
    two = apply(one, "g8-e7")
    asked = question(ref.observe(seen(two, 2, {"e7": 5.0, "f6": 0.5})))
    assert len(asked.moves) == 400 and asked.moves[0] == "a1-c2 g8-e7"
    assert asked.cells == ("c2", "e7")
    assert ref.moves == []


def test_the_hand_alone_points_at_no_more_than_three_stacks():
    # No earlier still board to compare with: only where Red's fingertips were last.
    ref, start = started()
    after = apply(start, "a1-c2")
    obs = observe_placement(after.stacks(), "7x8", 1, heights=False)
    asked = question(ref.observe(dataclasses.replace(obs, reached=("b1", "c1", "c2"))))
    assert asked.moves[0] == "a1-c2" and len(asked.moves) == 20
    assert asked.cells[0] == "c2" and len(asked.cells) == 3


def test_with_nothing_measured_no_cell_is_pointed_at():
    # No change measured anywhere and no hand seen: every one of twenty stacks is as
    # likely, and the question says so (no cell) instead of marking them all.
    ref, start = started()
    after = apply(apply(start, "a1-c2"), "g8-e7")
    asked = question(ref.observe(seen(after, 1, {})))
    assert len(asked.moves) == 400 and asked.cells == ()
    ref, start = started()
    asked = question(ref.observe(seen(apply(start, "a1-c2"), 1, {"c2": 0.5, "d1": 0.8})))
    assert len(asked.moves) == 20 and asked.cells == ()


def test_a_few_options_point_at_every_cell_that_tells_them_apart():
    # A King recreated on one of two Generals: the two stacks are all there is to look
    # at, measured or not, the likelier first.
    from fenix_tools.synthetic import position_of

    start = position_of("7x8", {"c2": "G", "e2": "G", "d2": "S", "a4": "S", "g8": "k",
                                "f6": "s"}, duty="K")
    after = apply(start, "d2-e2")
    for changes, cells in (({}, ("c2", "e2")), ({"e2": 4.0}, ("e2", "c2"))):
        ref = Referee(start=start)
        ref.begin()
        ref.observe(observe_placement(start.stacks(), "7x8", 0))
        asked = question(ref.observe(seen(after, 1, changes)))
        assert asked.cells == cells
        assert set(asked.moves) == {"d2-c2", "d2-e2"}


def test_a_capture_chain_the_camera_did_not_fully_see_points_at_its_two_ends():
    # Red's soldier jumps c4, d5 and e6; its landing e7 is covered, so the chain is
    # inferred, not seen: the players are asked, and the display marks where it went
    # from and to, not all four cells of its path.
    from fenix_tools.synthetic import position_of

    start = position_of("7x8", {"c3": "S", "c4": "s", "d5": "s", "e6": "s", "g8": "k",
                                "a1": "K"})
    after = apply(start, "c3xc5xe5xe7")
    ref = Referee(start=start)
    ref.begin()
    ref.observe(observe_placement(start.stacks(), "7x8", 0))
    asked = question(ref.observe(observe_placement(after.stacks(), "7x8", 1, occluded=("e7",))))
    assert asked.moves == ("c3xc5xe5xe7",) and asked.cells == ("e7", "c3")


def test_two_plies_whose_second_landing_was_read_a_stone_low_are_still_offered():
    # Red and Black each stacked before the board was still again. Black's landing e7 is
    # read one stone high (as it was before), which rules out g8-e7; e7 changed clearly
    # and no other black stack did: every pair the colours allow is weighed, and the
    # true one is offered first.
    ref, start = started()
    after = apply(apply(start, "a1-c2"), "g8-e7")
    obs = observe_placement(after.stacks(), "7x8", 1, heights=False,
                            overrides={"e7": ("black", 1)})
    scores = {cell: 0.0 for cell in obs.cells}
    scores.update({"c2": 5.0, "e7": CHANGE_MIN + 13})
    asked = question(ref.observe(dataclasses.replace(obs, changes=scores)))
    assert asked.moves[0] == "a1-c2 g8-e7" and "c2" in asked.cells
    assert ref.moves == []

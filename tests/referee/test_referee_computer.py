"""The referee against the computer: the announced move is the only one it takes with
the computer's pieces, and it settles what the camera cannot tell apart."""
import pytest

from fenix_table.errors import IllegalMoveError
from fenix_table.referee import Referee
from fenix_table.rules import Position, apply, legal_moves
from fenix_tools.synthetic import observe_placement

START = Position.start("7x8")
AFTER = apply(START, "a1-a2")   # Red's first setup ply; Black (the computer) to move


def referee_at_black(computer="black"):
    ref = Referee(start=AFTER, computer=computer)
    ref.begin()
    for i in range(2):
        ref.observe(observe_placement(AFTER.stacks(), "7x8", i))
    return ref


def see(ref, position, frame, **kwargs):
    events = []
    for i in range(2):
        events += ref.observe(observe_placement(position.stacks(), "7x8", frame + i, **kwargs))
    return events


def test_a_stacking_ply_the_camera_cannot_place_is_the_one_the_computer_asked_for():
    # Without heights a setup ply shows only as a soldier gone: twenty stacks it may
    # have gone onto. People playing both sides are asked which.
    people = referee_at_black(computer=None)
    events = see(people, apply(AFTER, "f4-g3"), 5, heights=False)
    assert [e.kind for e in events if e.kind == "move_ambiguous"] == ["move_ambiguous"]
    assert "f4-g3" in next(e for e in events if e.kind == "move_ambiguous").moves
    # Against the computer, the move it asked for is among them: taken.
    ref = referee_at_black()
    ref.expect("f4-g3")
    events = see(ref, apply(AFTER, "f4-g3"), 5, heights=False)
    assert "move_ambiguous" not in [e.kind for e in events]
    assert ref.moves == ["f4-g3"]


def test_expect_takes_only_a_legal_move_of_the_computer_on_its_turn():
    ref = referee_at_black()
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        ref.expect("a1-a3")
    ref.expect(sorted(m.token for m in legal_moves(AFTER))[0])
    people = referee_at_black(computer=None)
    with pytest.raises(IllegalMoveError, match="not the computer's turn"):
        people.expect("f4-g3")
    red = referee_at_black(computer="red")
    with pytest.raises(IllegalMoveError, match="not the computer's turn"):
        red.expect("f4-g3")


def test_undo_forgets_the_announced_move():
    ref = referee_at_black()
    ref.expect("f4-g3")
    see(ref, apply(AFTER, "f4-g3"), 5)
    assert ref.moves[-1] == "f4-g3" and ref.expected_move() is None
    ref.undo()
    # Back at the computer's position: it must choose again, nothing stands.
    assert ref.position == AFTER and ref.expected_move() is None

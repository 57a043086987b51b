"""The display model: a ply the camera took only as the likeliest is shown as such."""
from fenix_table.display.model import TableModel
from fenix_table.referee import events as ev
from fenix_table.rules import Position, apply


def test_an_uncertain_ply_is_marked_in_the_move_list_until_taken_back():
    start = Position.start("7x8")
    one, two = apply(start, "a1-c2"), None
    two = apply(one, "g8-e7")
    model = TableModel()
    model.apply(ev.GameStarted(fpn=start.fpn(), rules="official"))
    model.apply(ev.MoveCommitted(move="a1-c2", side="red", ply=1, fpn_before=start.fpn(),
                                 fpn_after=one.fpn(), uncertain=True,
                                 alternatives=("a1-b2", "a1-b1")))
    model.apply(ev.MoveCommitted(move="g8-e7", side="black", ply=2, fpn_before=one.fpn(),
                                 fpn_after=two.fpn()))
    assert model.move_list() == ["1. a1-c2? g8-e7"]
    model.apply(ev.MoveUndone(move="g8-e7", fpn=one.fpn()))
    model.apply(ev.MoveUndone(move="a1-c2", fpn=start.fpn()))
    model.apply(ev.MoveCommitted(move="a1-b2", side="red", ply=1, fpn_before=start.fpn(),
                                 fpn_after=apply(start, "a1-b2").fpn()))
    assert model.move_list() == ["1. a1-b2"]

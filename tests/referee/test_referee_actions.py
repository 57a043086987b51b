"""Undo, draw, resignation, game end, and what the game record keeps of them."""
import pytest

from fenix_table.errors import IllegalMoveError, RecordError
from fenix_table.record.store import GameStore
from fenix_table.referee import Referee
from fenix_tools.synthetic import observe_placement, position_of
from fenix_table.rules import Position, Rules, apply
from tests.recorded import Recorded

BASIC = {"a1": "K", "f1": "G", "c2": "S", "a3": "S", "g8": "k", "g5": "g", "e6": "s", "b7": "s"}


def started(position, store=None, **kw):
    ref = Referee(start=position, **kw) if store is None else Recorded(store, start=position, **kw)
    ref.begin()
    ref.observe(observe_placement(position.stacks(), position.size, 0))
    return ref


def kinds(events):
    return [e.kind for e in events]


def see(ref, position, frame, **kw):
    return ref.observe(observe_placement(position.stacks(), position.size, frame, **kw))


def test_undo_takes_the_move_back_and_waits_for_the_board(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    start = position_of("7x8", BASIC)
    ref = started(start, store=store)
    seen = apply(start, "c2-c3")
    see(ref, seen, 1)
    events = ref.undo()
    assert kinds(events) == ["move_undone", "turn_started"]
    assert (events[0].move, events[0].fpn) == ("c2-c3", start.fpn())
    assert ref.position == start and ref.moves == []
    assert store.moves(ref.game_id) == []
    # The board still shows the undone move: it is not taken again.
    assert see(ref, seen, 2) == []
    assert see(ref, seen, 3) == []
    # Put back, then a different move is followed.
    assert kinds(see(ref, start, 4)) == ["in_sync"]
    other = apply(start, "a3-a4")
    assert see(ref, other, 5)[0].move == "a3-a4"
    assert [m.token for m in store.moves(ref.game_id)] == ["a3-a4"]


def test_undo_with_nothing_to_take_back_is_a_notice():
    ref = started(Position.start("7x8"))
    assert [e.code for e in ref.undo()] == ["nothing_to_undo"]


def test_draw_by_agreement_ends_the_game(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    ref = started(position_of("7x8", BASIC), store=store)
    with pytest.raises(IllegalMoveError, match="no draw"):
        ref.accept_draw()
    offer = ref.offer_draw()
    assert (offer[0].kind, offer[0].side) == ("draw_offered", "red")
    over = ref.accept_draw()
    assert kinds(over) == ["game_over"]
    assert (over[0].result, over[0].winner, over[0].reason) == ("1/2-1/2", None, "agreement")
    assert ref.state == "over"
    assert store.game(ref.game_id).result == "1/2-1/2"
    # Nothing is read from the board any more, and no action is accepted.
    assert kinds(see(ref, apply(ref.position, "c2-c3"), 1)) == []
    with pytest.raises(IllegalMoveError, match="over"):
        ref.resign("red")


def test_resignation(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    ref = started(position_of("7x8", BASIC), store=store)
    over = ref.resign("black")
    assert (over[0].result, over[0].winner, over[0].reason) == ("1-0", "red", "resignation")
    assert "black resigned" in over[0].text
    summary = store.game(ref.game_id)
    assert (summary.result, summary.reason) == ("1-0", "resignation")


def test_capturing_the_king_that_cannot_be_recreated_ends_the_game():
    # Black's only King on c4, no General to recreate it.
    start = position_of("7x8", {"a1": "K", "c3": "S", "f1": "G", "c4": "k", "g8": "s"})
    ref = started(start)
    events = see(ref, apply(start, "c3xc5"), 1)
    assert kinds(events) == ["move_committed", "turn_started", "game_over"]
    assert (events[2].result, events[2].winner, events[2].reason) == ("1-0", "red", "king_lost")


def test_every_move_is_on_disk_before_its_event_is_returned(tmp_path):
    import random

    from fenix_table.rules import Game

    path = tmp_path / "g.sqlite3"
    ref = started(Position.start("7x8"), store=GameStore(path))
    truth = Game(Position.start("7x8"))
    rng = random.Random(3)
    for frame in range(1, 25):
        truth.push(rng.choice(truth.legal_moves()))
        for event in see(ref, truth.position, frame, heights=True):
            if event.kind == "move_committed":
                # A separate connection (another process after a crash) sees it.
                with GameStore(path) as other:
                    stored = other.moves(ref.game_id)
                assert (stored[-1].ply, stored[-1].token, stored[-1].fpn_after, stored[-1].frame) \
                    == (event.ply, event.move, event.fpn_after, frame)


def test_the_still_frame_is_kept_with_the_move_when_frames_are_saved(tmp_path):
    import cv2
    import numpy as np

    from fenix_table.record import GameRecorder

    store = GameStore(tmp_path / "g.sqlite3")
    start = position_of("7x8", BASIC)
    for save, expected in ((True, True), (False, False)):
        recorder = GameRecorder(store, save_frames=save)
        ref = Referee(start=start, game_id=recorder.new_game(start, Rules.preset("official"),
                                                             "referee"))
        recorder.handle(ref.begin())
        see(ref, start, 0)
        still = np.full((48, 64, 3), (10, 200, 30), np.uint8)
        recorder.handle(see(ref, apply(start, "c2-c3"), 1), still=still)
        jpeg = store.frame(recorder.game_id, 1)
        assert (jpeg is not None) == expected
        if expected:
            image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            assert image.shape == still.shape and abs(int(image[5, 5, 1]) - 200) < 8


def test_an_interrupted_game_resumes_and_checks_the_board(tmp_path):
    path = tmp_path / "g.sqlite3"
    start = Position.start("7x8")
    ref = started(start, store=GameStore(path), rules=Rules.preset("strike"))
    pos = start
    for frame, token in enumerate(["a1-a2", "g8-g7", "b2-a2"], 1):
        pos = apply(pos, token, Rules.preset("strike"))
        see(ref, pos, frame)
    gid = ref.game_id
    del ref   # power cut

    store = GameStore(path)
    assert [g.id for g in store.unfinished()] == [gid]
    resumed = Recorded(store, game_id=gid)
    events = resumed.begin()
    assert kinds(events) == ["game_started", "move_committed", "move_committed",
                             "move_committed", "turn_started"]
    assert resumed.rules == Rules.preset("strike")
    assert resumed.position == pos and resumed.state == "checking"
    # A board that does not show the recorded position is reported, not taken as a move.
    see(resumed, start, 10)
    assert kinds(see(resumed, start, 11)) == ["out_of_sync"]
    assert kinds(see(resumed, pos, 12)) == ["in_sync"]
    nxt = apply(pos, "g6-g7", Rules.preset("strike"))
    assert see(resumed, nxt, 13)[0].ply == 4
    assert [m.token for m in store.moves(gid)] == ["a1-a2", "g8-g7", "b2-a2", "g6-g7"]


def test_resuming_a_finished_game_is_refused(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    ref = started(position_of("7x8", BASIC), store=store)
    ref.resign("red")
    with pytest.raises(RecordError, match="finished"):
        Recorded(store, game_id=ref.game_id)

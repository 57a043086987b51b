"""Archive <-> FGN: export what the referee recorded, import records, refuse bad ones."""
import pytest

from fenix_table.errors import RecordError
from fenix_table.record.store import GameStore
from tests.recorded import Recorded
from fenix_tools.synthetic import observe_placement, position_of
from fenix_table.rules import Position, apply, parse_fgn

BASIC = {"a1": "K", "f1": "G", "c2": "S", "a3": "S", "g8": "k", "g5": "g", "e6": "s", "b7": "s"}


def see(ref, placement, frame):
    return ref.observe(observe_placement(placement, "7x8", frame))


def test_export_has_moves_tags_violation_and_result(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    start = position_of("7x8", BASIC)
    ref = Recorded(store, start=start, tags={"Red": "Alice", "Black": "Bob"})
    ref.begin()
    see(ref, start.stacks(), 0)
    pos = apply(start, "c2-c3")
    see(ref, pos.stacks(), 1)
    wrong = pos.stacks()
    wrong["b5"] = wrong.pop("b7")           # black soldier moved two cells
    see(ref, wrong, 2)
    assert see(ref, wrong, 3)[0].kind == "violation"
    see(ref, pos.stacks(), 4)               # restored
    pos = apply(pos, "b7-b6")
    see(ref, pos.stacks(), 5)
    ref.resign("black")

    text = store.export_fgn(ref.game_id)
    record = parse_fgn(text)
    assert record.moves == ["c2-c3", "b7-b6"]
    assert record.tags["Red"] == "Alice" and record.tags["Black"] == "Bob"
    assert record.tags["Board"] == "7x8" and record.tags["Rules"] == "official"
    assert record.tags["Result"] == "1-0"
    assert record.tags["Start"] == start.fpn()
    assert record.comments[0] == ["violation: b7-b5: b7 is a soldier: it steps one cell "
                                  "orthogonally; restored"]
    assert record.replay().position == pos


def test_import_round_trip_keeps_moves_comments_and_result(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    text = ('[Event "Club night"]\n[Board "7x8"]\n[Rules "official"]\n[Result "*"]\n\n'
            '1. a1-b1 {clock 12.3} g8-f8 2. a2-b1 *\n')
    gid = store.import_fgn(text)
    summary = store.game(gid)
    assert (summary.board, summary.moves, summary.result, summary.mode) == ("7x8", 3, "*", "imported")
    record = parse_fgn(store.export_fgn(gid))
    assert record.moves == ["a1-b1", "g8-f8", "a2-b1"]
    assert record.comments[0] == ["clock 12.3"]
    assert record.tags["Event"] == "Club night"
    assert "Start" not in record.tags
    expected = Position.start("7x8")
    for token in record.moves:
        expected = apply(expected, token)
    assert store.moves(gid)[-1].fpn_after == expected.fpn()


def test_imported_game_can_be_resumed(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.import_fgn('[Board "7x8"]\n\n1. a1-b1 g8-f8 *\n')
    ref = Recorded(store, game_id=gid)
    events = ref.begin()
    assert [e.kind for e in events][:3] == ["game_started", "move_committed", "move_committed"]
    assert ref.position.setup == (1, 1)


@pytest.mark.parametrize("text,message", [
    ('[Board "7x8"]\n\n1. a1-b1 g8-a1 *\n', r"move 1\.\.\. g8-a1"),
    ('[Board "7x8"]\n\n1. a1-b1 zz *\n', "FGN"),
    ('[Board "7x8"]\n[Rules "blitz"]\n\n1. a1-b1 *\n', "FGN Rules tag: unknown rules preset 'blitz'"),
])
def test_bad_records_are_refused_and_nothing_is_stored(tmp_path, text, message):
    store = GameStore(tmp_path / "g.sqlite3")
    with pytest.raises(RecordError, match=message):
        store.import_fgn(text)
    assert store.list_games() == []


def test_export_of_a_tampered_archive_names_the_ply(tmp_path):
    import sqlite3

    path = tmp_path / "g.sqlite3"
    store = GameStore(path)
    gid = store.import_fgn('[Board "7x8"]\n\n1. a1-b1 g8-f8 *\n')
    db = sqlite3.connect(path)
    db.execute("UPDATE moves SET token = 'a1-a5' WHERE ply = 2")
    db.commit()
    db.close()
    with pytest.raises(RecordError, match=r"ply 2 \(a1-a5\) does not replay"):
        store.export_fgn(gid)


def test_casual_play_on_is_exported_as_a_position_comment_and_imported_back(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    start = position_of("7x8", BASIC)
    ref = Recorded(store, start=start, mode="casual")
    ref.begin()
    see(ref, start.stacks(), 0)
    wrong = start.stacks()
    wrong["c4"] = wrong.pop("c2")            # a soldier moved two cells
    see(ref, wrong, 1)
    see(ref, wrong, 2)
    ref.play_on()
    accepted = ref.position
    see(ref, apply(accepted, "b7-b6").stacks(), 3)

    text = store.export_fgn(ref.game_id)
    record = parse_fgn(text)
    assert record.moves == ["b7-b6"]
    assert record.comments[-1] == [
        "violation: c2-c4: c2 is a soldier: it steps one cell orthogonally; played_on",
        f"played on: c2-c4; position {accepted.fpn()}"]
    again = store.import_fgn(text)
    assert [(m.token, m.played_on, m.fpn_after) for m in store.moves(again)] == \
        [(m.token, m.played_on, m.fpn_after) for m in store.moves(ref.game_id)]

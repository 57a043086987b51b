"""The SQLite game archive: durability, undo, listing, and refusing foreign files."""
import sqlite3

import pytest

from fenix_table.errors import RecordError
from fenix_table.record.store import GameStore
from fenix_table.referee.events import Notice, Violation

START_78 = "7x8 1ssssss/2sssss/S2ssss/SS2sss/SSS2ss/SSSS2s/SSSSS2/SSSSSS1 r 00 - 0"


def test_moves_survive_reopening_and_are_in_wal_mode(tmp_path):
    path = tmp_path / "games.sqlite3"
    store = GameStore(path)
    gid = store.new_game(START_78, "official", {"Red": "Alice"})
    store.add_move(gid, 1, "a1-b1", "fpn one", frame=12, jpeg=b"\xff\xd8jpeg")
    store.add_move(gid, 2, "g8-f8", "fpn two")
    # The move is on disk once add_move returns: a second connection (another process
    # after a crash) sees it without the first one closing.
    other = GameStore(path)
    assert [(m.ply, m.token, m.fpn_after, m.frame) for m in other.moves(gid)] == \
        [(1, "a1-b1", "fpn one", 12), (2, "g8-f8", "fpn two", None)]
    assert other.frame(gid, 1) == b"\xff\xd8jpeg"
    assert other.frame(gid, 2) is None
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    summary = other.game(gid)
    assert (summary.board, summary.rules, summary.result, summary.moves, summary.red) == \
        ("7x8", "official", "*", 2, "Alice")
    other.close()
    store.close()


def test_add_move_refuses_a_gap_in_the_plies(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.new_game(START_78)
    with pytest.raises(RecordError, match="ply 2 given, but 0 moves"):
        store.add_move(gid, 2, "a1-b1", "x")
    assert store.move_count(gid) == 0


def test_undo_removes_the_move_and_later_events(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.new_game(START_78)
    store.add_move(gid, 1, "a1-b1", "one")
    store.add_event(gid, Violation(explanation="no", code="x", attempted="g8-g6",
                                   restore_to="fpn one"))
    store.add_move(gid, 2, "g8-f8", "two")
    store.add_event(gid, Notice(code="x", message="y"))
    assert store.undo_last(gid) == "g8-f8"
    assert [m.token for m in store.moves(gid)] == ["a1-b1"]
    assert [event.kind for _, event in store.events(gid)] == ["violation"]
    assert store.undo_last(gid) == "a1-b1"
    assert store.undo_last(gid) is None


def test_finish_list_unfinished_and_delete(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    first = store.new_game(START_78)
    second = store.new_game(START_78, mode="casual")
    store.finish(first, "1-0", "resignation")
    assert [g.id for g in store.list_games()] == [first, second]
    assert [g.id for g in store.unfinished()] == [second]
    done = store.game(first)
    assert (done.result, done.reason) == ("1-0", "resignation")
    assert done.finished is not None
    with pytest.raises(RecordError, match="result '2-0'"):
        store.finish(second, "2-0")
    store.delete(first)
    assert [g.id for g in store.list_games()] == [second]
    with pytest.raises(RecordError, match=f"no game {first}"):
        store.moves(first)


def test_summary_json_has_the_listed_fields(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    gid = store.new_game(START_78, "strike")
    data = store.game(gid).to_json()
    for key in ("id", "started", "board", "result", "moves"):
        assert key in data
    assert data["id"] == gid and data["rules"] == "strike"


def test_foreign_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "other.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('soup')")
    db.commit()
    db.close()
    with pytest.raises(RecordError, match="not a Fenix Table game archive"):
        GameStore(path)
    assert sqlite3.connect(path).execute("SELECT name FROM recipes").fetchall() == [("soup",)]


def test_corrupt_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "broken.sqlite3"
    garbage = b"this is not sqlite at all" * 100
    path.write_bytes(garbage)
    with pytest.raises(RecordError, match="not a readable game archive"):
        GameStore(path)
    assert path.read_bytes() == garbage


def test_folder_is_refused(tmp_path):
    with pytest.raises(RecordError, match="is a folder"):
        GameStore(tmp_path)


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "g.sqlite3"
    GameStore(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    db.commit()
    db.close()
    with pytest.raises(RecordError, match="newer Fenix Table"):
        GameStore(path)

"""``fenix-table games``: list, show, export, import, delete, and clear errors."""
import json

from fenix_table.cli import main

FGN = '[Event "Club night"]\n[Red "Ann"]\n[Black "Ben"]\n[Board "7x8"]\n\n1. a1-b1 {clock 3} g8-f8 *\n'


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_list_show_export_delete(tmp_path, capsys):
    db = str(tmp_path / "games.sqlite3")
    fgn = tmp_path / "game.fgn"
    fgn.write_text(FGN, encoding="utf-8")
    code, out, _ = run(capsys, "games", "import", str(fgn), "--db", db, "--json")
    assert code == 0
    game_id = json.loads(out)["id"]

    code, out, _ = run(capsys, "games", "list", "--db", db, "--json")
    line = json.loads(out.strip())
    assert (line["id"], line["board"], line["result"], line["moves"]) == (game_id, "7x8", "*", 2)
    assert line["red"] == "Ann" and "started" in line

    code, out, _ = run(capsys, "games", "list", "--db", db)
    assert "Ann - Ben" in out and "2 plies" in out

    code, out, _ = run(capsys, "games", "show", str(game_id), "--db", db)
    assert "a1-b1" in out and "{clock 3}" in out and "g8-f8" in out

    code, out, _ = run(capsys, "games", "show", str(game_id), "--db", db, "--json")
    data = json.loads(out)
    assert [p["move"] for p in data["plies"]] == ["a1-b1", "g8-f8"]

    exported = tmp_path / "out.fgn"
    code, _, _ = run(capsys, "games", "export", str(game_id), "--db", db, "-o", str(exported))
    text = exported.read_text(encoding="utf-8")
    assert '[Event "Club night"]' in text and "1. a1-b1 {clock 3} g8-f8 *" in text

    code, out, _ = run(capsys, "games", "delete", str(game_id), "--db", db)
    assert code == 0 and f"deleted game {game_id}" in out
    code, out, _ = run(capsys, "games", "list", "--db", db, "--json")
    assert out == ""


def test_errors_are_one_line_with_status_2(tmp_path, capsys):
    db = str(tmp_path / "games.sqlite3")
    code, out, err = run(capsys, "games", "show", "4", "--db", db)
    assert code == 2 and err.strip() == f"fenix-table: no game 4 in {db}"
    bad = tmp_path / "bad.fgn"
    bad.write_text('[Board "7x8"]\n\n1. a1-g8 *\n', encoding="utf-8")
    code, out, err = run(capsys, "games", "import", str(bad), "--db", db)
    assert code == 2 and err.startswith("fenix-table: FGN move 1. a1-g8") and err.count("\n") == 1
    code, out, err = run(capsys, "games", "import", str(tmp_path / "missing.fgn"), "--db", db)
    assert code == 2 and "cannot read" in err
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"\x00garbage" * 50)
    code, out, err = run(capsys, "games", "list", "--db", str(junk))
    assert code == 2 and "not a readable game archive" in err
    assert junk.read_bytes() == b"\x00garbage" * 50


def test_games_use_the_configured_archive(tmp_path, capsys, monkeypatch):
    db = tmp_path / "configured.sqlite3"
    config = tmp_path / "config.toml"
    config.write_text(f'[record]\ndatabase = "{db}"\n', encoding="utf-8")
    fgn = tmp_path / "game.fgn"
    fgn.write_text(FGN, encoding="utf-8")
    monkeypatch.setenv("FENIX_TABLE_CONFIG", str(config))
    code, out, _ = run(capsys, "games", "import", str(fgn), "--json")
    assert code == 0 and db.exists()
    code, out, _ = run(capsys, "games", "list", "--json")
    assert [json.loads(line)["red"] for line in out.splitlines()] == ["Ann"]
    # --db still wins over the configuration.
    code, out, _ = run(capsys, "games", "list", "--db", str(tmp_path / "other.sqlite3"))
    assert "no games" in out


def test_show_writes_the_kept_frames_and_never_over_a_file(tmp_path, capsys):
    from fenix_table.record import GameStore

    db = str(tmp_path / "games.sqlite3")
    with GameStore(db) as store:
        gid = store.new_game("7x8 1ssssss/2sssss/S2ssss/SS2sss/SSS2ss/SSSS2s/SSSSS2/SSSSSS1 r 00 - 0")
        store.add_move(gid, 1, "a1-b1", "fpn", jpeg=b"\xff\xd8one")
        store.add_move(gid, 2, "g8-f8", "fpn")
        store.add_move(gid, 3, "a2-b2", "fpn", jpeg=b"\xff\xd8three")
    out_dir = tmp_path / "frames"
    code, _, err = run(capsys, "games", "show", str(gid), "--db", db, "--frames", str(out_dir))
    assert code == 0 and "2 frames written" in err
    assert sorted(p.name for p in out_dir.iterdir()) == ["ply-001.jpg", "ply-003.jpg"]
    assert (out_dir / "ply-003.jpg").read_bytes() == b"\xff\xd8three"
    code, _, err = run(capsys, "games", "show", str(gid), "--db", db, "--frames", str(out_dir))
    assert code == 2 and "exists already" in err and err.count("\n") == 1
    assert (out_dir / "ply-001.jpg").read_bytes() == b"\xff\xd8one"

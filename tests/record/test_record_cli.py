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

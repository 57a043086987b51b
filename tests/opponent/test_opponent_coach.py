"""The coach: hints give the move and a reason in the game's words; a review marks the
moves that lose material or miss a clearly better one, in text, JSON and FGN comments."""
import json
import random
import subprocess
import sys

from fenix_table.opponent import coach
from fenix_table.rules import OFFICIAL, Game, Position, legal_moves, parse_fgn
from fenix_table.rules.replay import Step, replay
from fenix_table.opponent.coach import hint, review

CLI = [sys.executable, "-m", "fenix_table.cli"]
# A red General must take the soldier on a4 and may land on a5, a6 or a7; on a7 the
# soldier on a8 takes it back (a8xa6).
LANDING = "7x8 s5k/7/7/7/s6/7/7/G5K r 55 - 0"


def test_hint_for_a_capture_names_what_it_takes_and_why_this_landing():
    found = hint(Position.from_fpn(LANDING), OFFICIAL, movetime=0.3)
    assert found.move.token in ("a1xa5", "a1xa6")
    assert found.reason.startswith(f"takes 1 soldier: {found.move.token} takes 1")


def test_hint_names_a_general_won():
    found = hint(Position.from_fpn("7x8 6k/7/7/g6/7/7/7/G5K r 55 - 0"), OFFICIAL,
                 movetime=0.3)
    assert found.text.startswith("a1xa") and "wins a General" in found.reason


def test_hint_saves_the_king_from_the_threatened_capture():
    # Black's soldier on d5 could jump the red King on d4 and go on over d2 (d5xd3xd1).
    position = Position.from_fpn("7x8 6k/7/3s3/3s3/3K3/7/3S3/S5G r 55 - 0")
    found = hint(position, OFFICIAL, movetime=0.3)
    assert found.move in legal_moves(position)
    assert found.reason == "saves your King from d5xd3xd1"


def test_hint_recreates_the_lost_king():
    position = Position.from_fpn("7x8 6k/7/7/3g3/7/7/S6/GS5 r 55 K 0")
    found = hint(position, OFFICIAL, movetime=0.3)
    assert found.move.token in ("a2-a1", "b1-a1")
    assert found.reason == "recreates your King on a1"


def test_review_marks_the_landing_that_loses_the_general():
    replayed = replay(Position.from_fpn(LANDING), OFFICIAL, [Step("a1xa7"), Step("a8xa6")])
    notes = review(replayed.start, replayed.rules, replayed.plies, movetime=0.2)
    assert len(notes) == 1
    note = notes[0]
    assert (note.ply, note.side, note.played) == (1, "red", "a1xa7")
    assert note.better in ("a1xa5", "a1xa6")
    assert note.kind == "loses material by force"
    assert note.played_score < 0 < note.better_score and note.change >= 150


def test_review_leaves_good_moves_unmarked():
    replayed = replay(Position.from_fpn(LANDING), OFFICIAL, [Step("a1xa5")])
    assert review(replayed.start, replayed.rules, replayed.plies, movetime=0.2) == []


def run(*args):
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=300)


def test_games_review_prints_json_and_writes_fgn_comments(tmp_path):
    db = str(tmp_path / "games.db")
    record = tmp_path / "in.fgn"
    record.write_text(f'[Board "7x8"]\n[Start "{LANDING}"]\n\n1. a1xa7 a8xa6 *\n',
                      encoding="utf-8")
    assert run("games", "import", str(record), "--db", db).returncode == 0
    result = run("games", "review", "1", "--db", db, "--json", "--movetime", "0.2")
    assert result.returncode == 0, result.stderr
    notes = [json.loads(line) for line in result.stdout.splitlines()]
    assert [n["played"] for n in notes] == ["a1xa7"]
    out = tmp_path / "reviewed.fgn"
    result = run("games", "review", "1", "--db", db, "--movetime", "0.2", "--fgn", str(out))
    assert result.returncode == 0, result.stderr
    assert "loses material by force" in result.stdout
    reviewed = parse_fgn(out.read_text(encoding="utf-8"))
    assert reviewed.moves == ["a1xa7", "a8xa6"]
    assert reviewed.comments[0][0].startswith("review: loses material by force; better a1xa")
    # An existing file is never overwritten.
    again = run("games", "review", "1", "--db", db, "--movetime", "0.2", "--fgn", str(out))
    assert again.returncode == 2 and "exists already" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    assert parse_fgn(out.read_text(encoding="utf-8")).comments == reviewed.comments


def test_games_review_bad_input_is_one_line(tmp_path):
    db = str(tmp_path / "games.db")
    for args in (["7"], ["1", "--movetime", "x"]):
        result = run("games", "review", *args, "--db", db)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1


def test_a_quiet_hint_that_wins_material_shows_the_line():
    """A reason that promises stones shows the moves that win them, and they do."""
    rng = random.Random(9)
    game = Game(size="9x9")
    seen = 0
    while not game.status().over and game.ply < 60:
        if game.ply >= 10:
            position = game.position
            found = hint(position, OFFICIAL, movetime=0.1, history=game.positions[:-1])
            if found.reason.startswith("prepares to win "):
                seen += 1
                stones = int(found.reason.split()[3])
                tokens = found.reason.split(": ")[1].split()
                assert tokens[0] == found.move.token and len(tokens) <= 4
                assert coach._material_gain(position, OFFICIAL, found.line[:4]) == stones
        game.push(rng.choice(game.legal_moves()))
    assert seen

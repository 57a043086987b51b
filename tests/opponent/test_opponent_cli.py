"""fenix-table move, and play with computer sides and hints, run as a user runs them."""
import subprocess
import sys

import pytest

from fenix_table.rules import START_FPN, Position, Rules, legal_moves, read_fgn

CLI = [sys.executable, "-m", "fenix_table.cli"]


def run(args, stdin=""):
    return subprocess.run(CLI + args, input=stdin, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("fpn, rules", [
    (START_FPN["9x9"], []),
    (START_FPN["7x8"], ["--rules", "strike"]),
    ("7x8 s5k/7/7/7/s6/7/7/G5K r 55 - 0", ["--option", "general_vs_capture=free"]),
])
def test_move_prints_one_legal_token(fpn, rules):
    result = run(["move", "--position", fpn, "--movetime", "0.2", *rules])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    preset = Rules.from_strings(*(rules[1:2] if rules[:1] == ["--rules"] else ["official"]),
                                rules[1:2] if rules[:1] == ["--option"] else [])
    assert lines[0] in {m.token for m in legal_moves(Position.from_fpn(fpn), preset)}


def test_move_avoids_the_landing_that_is_taken_back():
    result = run(["move", "--position", "7x8 s5k/7/7/7/s6/7/7/G5K r 55 - 0"])
    assert result.returncode == 0
    assert result.stdout.strip() in ("a1xa5", "a1xa6")


def test_move_level_and_seed_repeat():
    # Level 1 searches one ply; with time to finish it, the seed alone picks the move.
    args = ["move", "--position", START_FPN["7x8"], "--level", "1", "--seed", "5",
            "--movetime", "20"]
    first = run(args).stdout
    assert first == run(args).stdout
    others = {run(args[:-4] + ["--seed", str(seed), "--movetime", "20"]).stdout
              for seed in (1, 2, 3)}
    assert others - {first}


@pytest.mark.parametrize("args, words", [
    (["--position", "9x9 nonsense"], "FPN"),
    (["--position", ""], "empty"),
    (["--position", START_FPN["7x8"], "--level", "9"], "level"),
    (["--position", START_FPN["7x8"], "--level", "x"], "level"),
    (["--position", START_FPN["7x8"], "--movetime", "-1"], "movetime"),
    (["--position", START_FPN["7x8"], "--movetime", "soon"], "movetime"),
    (["--position", START_FPN["7x8"], "--option", "king_reach=far"], "king_reach"),
    (["--position", START_FPN["7x8"], "--rules", "blitz"], "blitz"),
])
def test_move_bad_input_is_one_line_and_status_2(args, words):
    result = run(["move", *args])
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], result.stderr


@pytest.mark.parametrize("fpn, rules, result_text", [
    # Black lost the King and has no General to recreate it.
    ("7x8 7/7/7/7/3K3/7/7/s6 b 55 K 0", [], "red wins"),
    # Red's King on a1 is walled in: no legal move loses, or draws with no_move=draw.
    ("7x8 6k/7/7/7/7/s1s4/ss5/Kss4 r 55 - 0", [], "black wins"),
    ("7x8 6k/7/7/7/7/s1s4/ss5/Kss4 r 55 - 0", ["--option", "no_move=draw"], "draw"),
])
def test_move_game_over_is_one_line_and_status_3(fpn, rules, result_text):
    position = Position.from_fpn(fpn)
    assert not legal_moves(position)
    result = run(["move", "--position", fpn, *rules])
    assert result.returncode == 3
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and result_text in lines[0]


def test_play_computer_against_computer_to_the_end(tmp_path):
    out = tmp_path / "game.fgn"
    result = run(["play", "--board", "7x8", "--red", "computer:1", "--black", "computer:4",
                  "--movetime", "0.05", "--seed", "3", "-o", str(out)])
    assert result.returncode == 0, result.stderr
    assert "Game over" in result.stdout
    record = read_fgn(str(out))
    assert record.tags["Red"] == "computer level 1"
    assert record.tags["Black"] == "computer level 4"
    game = record.replay()
    assert game.status().over and record.result == game.status().fgn_result


def test_play_hint_names_a_legal_move_and_a_reason(tmp_path):
    out = tmp_path / "game.fgn"
    # Red plays a1-b1 (a General on b1), black answers as the computer, red asks a hint.
    result = run(["play", "--board", "7x8", "--black", "computer:2", "--movetime", "0.1",
                  "-o", str(out)], "a1-b1\nhint\nquit\n")
    assert result.returncode == 0, result.stderr
    hint_line = next(line for line in result.stdout.splitlines() if line.startswith("Hint: "))
    token, _, reason = hint_line[len("Hint: "):].partition(": ")
    record = read_fgn(str(out))
    game = record.replay()
    assert token in {m.token for m in game.legal_moves()}
    assert reason.startswith("builds a ")


def test_play_refuses_an_unknown_player():
    result = run(["play", "--black", "computer:12"])
    assert result.returncode == 2
    assert "computer[:LEVEL]" in result.stderr

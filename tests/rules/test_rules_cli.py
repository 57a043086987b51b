"""fenix-table legal / play, run as a user runs them (a subprocess)."""
import json
import os
import random
import select
import subprocess
import sys

import pytest

from fenix_table.rules import (START_FPN, Game, Position, Rules, legal_moves, parse_fgn,
                               position_status)
from fenix_table.rules.cli import legal_json
from reference import fpn_of

CLI = [sys.executable, "-m", "fenix_table.cli"]


def run(args, stdin=""):
    return subprocess.run(CLI + args, input=stdin, capture_output=True, text=True, timeout=120)


def test_legal_writes_one_json_line_per_position():
    lines = [START_FPN["7x8"], fpn_of("9x9", {"c3": "S", "c4": "s", "a1": "K", "i9": "k"}),
             "", fpn_of("9x9", {"a1": "S", "i9": "k"}, duty="K")]
    result = run(["legal"], "\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == 3
    assert out[0]["fpn"] == START_FPN["7x8"] and len(out[0]["moves"]) == 420
    assert out[0]["moves"] == sorted(out[0]["moves"]) and out[0]["status"] == "ongoing"
    assert out[1]["moves"] == ["c3xc5"]
    assert out[2] == {"fpn": lines[3], "moves": [], "status": "black wins", "reason": "king_lost"}


def test_legal_rules_options_change_the_answer():
    fpn = START_FPN["7x8"]
    strike = json.loads(run(["legal", "--rules", "strike", "--position", fpn]).stdout)
    assert len(strike["moves"]) == 60
    reach = json.loads(run(["legal", "--option", "setup_reach=orthogonal", "--position", fpn]).stdout)
    assert reach["moves"] == strike["moves"]


def test_legal_bad_input_is_one_line_and_status_2():
    for args, stdin, message in [
        (["legal"], START_FPN["9x9"] + "\n9x9 bad r 00 - 0\n", "line 2: FPN placement"),
        (["legal", "--position", "9x9 9/9/9/9/9/9/9/9/K8 q 55 - 0"], "", "FPN side"),
        (["legal", "--option", "colour=blue", "--position", START_FPN["9x9"]], "", "unknown rules option"),
        (["legal", "--option", "no_move=maybe", "--position", START_FPN["9x9"]], "", "no_move"),
        (["legal", "--rules", "blitz", "--position", START_FPN["9x9"]], "", "unknown rules preset"),
        (["legal", "--position", "9x9 9/9/9/9/9/9/9/9/K8 r 55 - \u00b2"], "",
         "--position: FPN clock: '\u00b2' is not a whole number"),
        (["legal"], START_FPN["9x9"] + "\n9x9 9/9/9/9/9/9/9/9/K8 r \u00b25 - 0\n",
         "line 2: FPN setup: '\u00b25' is not two digits"),
    ]:
        result = run(args, stdin)
        assert result.returncode == 2
        err = result.stderr.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("fenix-table: ") and message in err[0]
        assert "Traceback" not in result.stderr


def reference_line(position, rules):
    """What ``legal`` writes, spelled with json.dumps (the CLI writes it by hand)."""
    moves = legal_moves(position, rules)
    status = position_status(position, rules, moves)
    record = {"fpn": position.fpn(), "moves": sorted(m.token for m in moves),
              "status": status.result}
    if status.over:
        record["reason"] = status.reason
    return json.dumps(record)


def playout_positions(seed=7, games=6):
    """Every position of a few random games on both boards, to the end: setup, battle,
    captures, King and General duties, won and drawn endings."""
    rng = random.Random(seed)
    positions = []
    for n in range(games):
        game = Game(size=("9x9", "7x8")[n % 2])
        while not game.status().over and game.ply < 300:
            positions.append(game.position)
            game.push(rng.choice(game.legal_moves()))
        positions.append(game.position)
    return positions


@pytest.mark.parametrize("rules", [Rules.preset("official"), Rules.preset("strike"),
                                   Rules.preset("official", no_move="draw")],
                         ids=["official", "strike", "no_move=draw"])
def test_legal_lines_are_exactly_json_dumps(rules):
    positions = playout_positions()
    positions.append(Position.from_fpn(fpn_of("9x9", {"a1": "S", "i9": "k"}, duty="K")))
    for position in positions:
        assert legal_json(position, rules) == reference_line(position, rules)
    assert any('"reason"' in reference_line(p, rules) for p in positions)


def test_legal_stream_output_matches_the_engine():
    positions = playout_positions(seed=11, games=4)
    text = "".join(p.fpn() + "\n" for p in positions)
    result = run(["legal"], text)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "".join(reference_line(p, Rules.preset("official")) + "\n"
                                     for p in positions)


def test_legal_blank_position_is_an_error():
    for blank in ["", "   ", "\t"]:
        result = run(["legal", "--position", blank])
        assert result.returncode == 2 and result.stdout == ""
        err = result.stderr.strip().splitlines()
        assert err == ["fenix-table: --position: empty; expected an FPN position "
                       "(size placement side setup duty clock)"]


def test_legal_stream_skips_blank_lines_but_counts_them():
    fpn = START_FPN["7x8"]
    result = run(["legal"], f"\n  \n{fpn}\r\n\t\n{fpn}")   # CRLF, no final newline
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["fpn"] for line in result.stdout.splitlines()] == [fpn, fpn]
    result = run(["legal"], f"{fpn}\n\n\n7x8 nonsense r 00 - 0\n{fpn}\n")
    assert result.returncode == 2
    assert "line 4: FPN placement" in result.stderr
    assert [json.loads(line)["fpn"] for line in result.stdout.splitlines()] == [fpn]
    assert run(["legal"], "\n \n").stdout == ""


def test_legal_answers_each_line_before_the_next_arrives():
    """A program that writes one line and waits for its answer is not left waiting, even
    with Python's block-buffered output to a pipe (no PYTHONUNBUFFERED)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen(CLI + ["legal"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1, env=env)
    try:
        for fpn in (START_FPN["7x8"], START_FPN["9x9"], START_FPN["7x8"]):
            proc.stdin.write(fpn + "\n")
            proc.stdin.flush()
            assert select.select([proc.stdout], [], [], 60)[0], "no answer within 60 s"
            assert json.loads(proc.stdout.readline())["fpn"] == fpn
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0


def test_legal_starts_without_camera_or_display_code():
    code = ("import sys; from fenix_table.cli import main; "
            f"main(['legal', '--position', {START_FPN['7x8']!r}]); "
            "heavy = {'cv2', 'pygame', 'numpy', 'gpiozero'} & set(sys.modules); "
            "print('HEAVY', sorted(heavy))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().endswith("HEAVY []"), result.stdout + result.stderr


def test_play_two_humans_rejects_illegal_moves_and_saves_fgn(tmp_path):
    out = tmp_path / "game.fgn"
    script = "a1-b1\na2-a3\nmoves\ng8-f8\nundo\ng8-f8\ng9-f8\nbogus\nquit\n"
    result = run(["play", "--board", "7x8", "-o", str(out)], script)
    assert result.returncode == 0, result.stderr
    assert "Illegal: it is black's turn: the red soldier on a2 may not move" in result.stdout
    assert "Took back g8-f8" in result.stdout
    assert "Not a move: move token 'g9-f8': unknown cell 'g9' on 7x8" in result.stdout
    assert "Not a move: move token 'bogus'" in result.stdout
    record = parse_fgn(out.read_text(encoding="utf-8"))
    assert record.moves == ["a1-b1", "g8-f8"] and record.board == "7x8"


def test_play_against_random_mover_to_the_end(tmp_path):
    out = tmp_path / "random.fgn"
    result = run(["play", "--board", "9x9", "--red", "random", "--black", "random",
                  "--seed", "4", "-o", str(out)])
    assert result.returncode == 0, result.stderr
    assert "Game over:" in result.stdout
    record = parse_fgn(out.read_text(encoding="utf-8"))
    game = record.replay()
    assert game.status().over and record.result == game.status().fgn_result
    assert "Capture is compulsory" in result.stdout and "[" in result.stdout

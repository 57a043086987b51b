"""fenix-table legal / play, run as a user runs them (a subprocess)."""
import json
import subprocess
import sys

from fenix_table.rules import START_FPN, parse_fgn
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
    ]:
        result = run(args, stdin)
        assert result.returncode == 2
        err = result.stderr.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("fenix-table: ") and message in err[0]
        assert "Traceback" not in result.stderr


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

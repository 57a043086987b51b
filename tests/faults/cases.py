"""Hostile inputs and injected faults (issue 20), shared by ``tests/faults/`` and
``benchmarks/bench_faults.py`` (which prints the counts).

* :data:`BAD_INPUTS`: ``name -> build(tmp) -> Case``. Each is a real ``fenix-table``
  subprocess given something a clumsy or hostile user would give it; :func:`check_input`
  passes when it exits with the expected status (2; 78 for ``run``'s broken
  configuration), says so on one line (argparse's usage line aside) with no traceback,
  and the case's own check (nothing written, the archive unchanged...) holds.
* :data:`FAULTS`: ``name -> fault(tmp) -> None``: a fault injected into a working
  table (archive, frames, disk, signals); it raises AssertionError when anything
  announced is lost or the program did not come back.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
#: The program under test (another checkout's tree, to count the faults of an older
#: version: FENIX_FAULTS_PROGRAM=/tmp/old python benchmarks/bench_faults.py).
PROGRAM = Path(os.environ.get("FENIX_FAULTS_PROGRAM") or ROOT)
RECORDING = ROOT / "fenix_table" / "display" / "recording"
FGN_7X8 = '[Board "7x8"]\n\n1. a1-b1 g8-f8 *\n'


@dataclass
class Case:
    argv: List[str]
    stdin: bytes = b""
    status: int = 2
    contains: str = ""                      # a word the one line must hold
    check: Optional[Callable[[], None]] = None  # what must still hold afterwards
    env: Dict[str, str] = field(default_factory=dict)


def fenix(argv, stdin: bytes = b"", env=None, timeout: float = 120.0):
    """Run ``fenix-table ARGV`` as the user would; ``(status, stdout, stderr)``."""
    environ = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
                   PYTHONPATH=str(PROGRAM), LC_ALL="C.UTF-8", FENIX_TABLE_CONFIG="")
    environ.pop("DISPLAY", None)
    environ.update(env or {})
    done = subprocess.run([sys.executable, "-m", "fenix_table.cli", *argv], input=stdin,
                          capture_output=True, timeout=timeout, env=environ, cwd=str(PROGRAM))
    return (done.returncode, done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"))


def one_line(err: str) -> List[str]:
    """The lines of a message, argparse's usage lines aside."""
    lines = [line for line in err.strip().splitlines() if line.strip()]
    return [line for line in lines if not line.startswith(("usage:", " "))]


def check_input(case: Case) -> str:
    """'' when the case is refused as it should be, else what went wrong."""
    code, out, err = fenix(case.argv, case.stdin, case.env)
    lines = one_line(err)
    if "Traceback" in err:
        return f"traceback: {err.strip().splitlines()[-1]}"
    if code != case.status:
        return f"exit {code}, not {case.status}: {err.strip()[:200]}"
    if len(lines) != 1 or not lines[0].startswith("fenix-table"):
        return f"not one line: {err!r}"[:300]
    if case.contains and case.contains not in lines[0]:
        return f"{case.contains!r} not in {lines[0]!r}"
    if case.check is not None:
        try:
            case.check()
        except AssertionError as error:
            return f"afterwards: {error}"
    return ""


# -- archives ----------------------------------------------------------------------------

def archive_with_game(path: Path) -> Path:
    from fenix_table.record import GameStore
    with GameStore(str(path)) as store:
        store.import_fgn(FGN_7X8)
    return path


def game_moves(path: Path) -> Dict[int, List[str]]:
    from fenix_table.record import GameStore
    with GameStore(str(path)) as store:
        return {g.id: [m.token for m in store.moves(g.id)] for g in store.list_games()}


def unchanged(path: Path) -> Callable[[], None]:
    before = path.read_bytes()

    def check() -> None:
        assert path.read_bytes() == before, f"{path} was changed"
    return check


def games_are(path: Path, expected: Dict[int, List[str]]) -> Callable[[], None]:
    def check() -> None:
        assert game_moves(path) == expected, f"archive holds {game_moves(path)}"
    return check


def no_file(path: Path) -> Callable[[], None]:
    def check() -> None:
        assert not path.exists() or path.stat().st_size == 0 or not game_moves(path), \
            f"{path} holds a game"
    return check


def truncated_jpeg(path: Path) -> Path:
    data = (RECORDING / "0005.jpg").read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def recording_copy(folder: Path, frames: int = 40) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in sorted(p.name for p in RECORDING.glob("*.jpg"))[:frames]:
        shutil.copy(RECORDING / name, folder / name)
    return folder


# -- bad inputs --------------------------------------------------------------------------

def _db(tmp: Path) -> Path:
    return archive_with_game(tmp / "games.sqlite3")


def _fgn(tmp: Path, text: str, name: str = "in.fgn") -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def _import(tmp: Path, text: str, contains: str = "") -> Case:
    db = _db(tmp)
    return Case(["games", "import", str(_fgn(tmp, text)), "--db", str(db)],
                contains=contains, check=games_are(db, {1: ["a1-b1", "g8-f8"]}))


def _schema_not_a_number(tmp: Path) -> Case:
    db = _db(tmp)
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = 'one' WHERE key = 'schema'")
    con.commit()
    con.close()
    return Case(["games", "list", "--db", str(db)], contains="not a number", check=unchanged(db))


def _nested_calibration(tmp: Path) -> Case:
    path = tmp / "cal.json"
    path.write_text("[" * 100000 + "]" * 100000)
    return Case(["detect", str(RECORDING / "0005.jpg"), "--calibration", str(path)])


def _bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _big(tmp: Path, name: str, size: int) -> Path:
    path = tmp / name
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


BAD_INPUTS: Dict[str, Callable[[Path], Case]] = {
    # one archive, never a throwaway one
    "games list --db ''": lambda t: Case(["games", "list", "--db", ""], contains="empty"),
    "games import --db ''": lambda t: Case(
        ["games", "import", str(_fgn(t, FGN_7X8)), "--db", ""], contains="empty"),
    "track --db ''": lambda t: Case(["track", str(RECORDING), "--db", ""], contains="empty"),
    "run --db ''": lambda t: Case(["run", "--camera", str(RECORDING), "--db", ""],
                                  contains="empty"),
    # limits on what is read, refused before anything is written
    "FGN comment of 100 kB": lambda t: _import(
        t, '[Board "7x8"]\n\n1. a1-b1 {' + "x" * 100_000 + "} *\n", "comment"),
    "FGN file of 5 MB": lambda t: _import(t, '[Board "7x8"]\n\n{' + "y" * 5_000_000 + "} *\n",
                                          "larger"),
    "FGN tag of 5 kB": lambda t: _import(t, '[Event "' + "e" * 5000 + '"]\n[Board "7x8"]\n\n*\n',
                                         "tag"),
    "FGN of 3,000 moves": lambda t: _import(t, '[Board "7x8"]\n\n' + "a1-b1 " * 3000 + "*\n",
                                            "moves"),
    "FGN of 200 tags": lambda t: _import(
        t, "".join(f'[T{i} "v"]\n' for i in range(200)) + '[Board "7x8"]\n\n*\n', "tags"),
    "FGN played on switching board size": lambda t: _import(
        t, '[Board "7x8"]\n\n1. a1-b1 {played on: g8-f8; position '
           '9x9 2sssssss/3ssssss/S3sssss/SS3ssss/SSS3sss/SSSS3ss/SSSSS3s/SSSSSS3/SSSSSSS2 r 00 - 0}'
           ' *\n', "9x9"),
    "config file of 1 MB": lambda t: Case(
        ["--config", str(_big(t, "big.toml", 1_000_000)), "config", "show"], contains="larger"),
    "config not UTF-8": lambda t: Case(
        ["--config", str(_bytes(t / "c.toml", b"[board]\nside = '\xff'\n")), "config", "show"],
        contains="UTF-8"),
    "run with a broken config (exit 78)": lambda t: Case(
        ["--config", str(_fgn(t, "[board]\nside = 'huge'\n", "bad.toml")), "run",
         "--camera", str(RECORDING)], status=78, contains="side"),
    "calibration of 2 MB": lambda t: Case(
        ["detect", str(RECORDING / "0005.jpg"), "--calibration",
         str(_big(t, "cal.json", 2_000_000))], contains="larger"),
    "calibration nested 100,000 deep": _nested_calibration,
    # tracebacks where one line was due
    "legal: invalid UTF-8 on stdin": lambda t: Case(["legal"], stdin=b"\xff\xfe\x00\n"),
    "games import -: invalid UTF-8 on stdin": lambda t: Case(
        ["games", "import", "-", "--db", str(_db(t))], stdin=b"\xff\xfe[Board]\n",
        contains="UTF-8"),
    "play -o /nonexistent/x.fgn": lambda t: Case(
        ["play", "-o", "/nonexistent/dir/x.fgn"], stdin=b"a1-b1\n", contains="cannot write"),
    "detect --annotate out.xyz": lambda t: Case(
        ["detect", str(RECORDING / "0005.jpg"), "--annotate", str(t / "out.xyz")],
        contains="--annotate"),
    "games show 99999999999999999999999": lambda t: Case(
        ["games", "show", "99999999999999999999999", "--db", str(_db(t))], contains="large"),
    "archive schema not a number": _schema_not_a_number,
    "demo --out is a file": lambda t: Case(
        ["demo", "--headless", "--frames", "2", "--out", str(_fgn(t, "mine", "notes.txt"))],
        contains="file", check=lambda: None),
    "demo --out inside a file": lambda t: Case(
        ["demo", "--headless", "--frames", "2", "--out", str(_fgn(t, "mine", "n.txt") / "sub")]),
    # quieter ones
    "detect a truncated JPEG": lambda t: Case(
        ["detect", str(truncated_jpeg(t / "half.jpg"))], contains="truncated"),
    "calibrate corners off the picture": lambda t: Case(
        ["calibrate", str(RECORDING / "0005.jpg"), "--board", "7x8", "-o", str(t / "c.json"),
         "--corners", "5000,5000", "6000,5000", "6000,6000", "5000,6000"],
        contains="off", check=no_file(t / "c.json")),
    "calibrate a 2-pixel board": lambda t: Case(
        ["calibrate", str(RECORDING / "0005.jpg"), "--board", "7x8", "-o", str(t / "c.json"),
         "--corners", "10,10", "12,10", "12,12", "10,12"], contains="too small"),
    "track --board 9x9 on 7x8 frames": lambda t: Case(
        ["track", str(recording_copy(t / "rec", 30)), "--board", "9x9", "--db",
         str(t / "g.sqlite3")], contains="no 9x9 board", check=no_file(t / "g.sqlite3")),
    "track a missing source": lambda t: Case(
        ["track", str(t / "nowhere"), "--db", str(t / "g.sqlite3")],
        check=no_file(t / "g.sqlite3")),
    "games list: another program's database": lambda t: Case(
        ["games", "list", "--db", str(_other_program(t))], contains="another program",
        check=unchanged(t / "other.sqlite3")),
    "games list: garbage file": lambda t: Case(
        ["games", "list", "--db", str(_fgn(t, "\x00junk" * 999, "junk.sqlite3"))],
        check=unchanged(t / "junk.sqlite3")),
    "games list: a folder": lambda t: Case(["games", "list", "--db", str(t)], contains="folder"),
    "legal --position garbage": lambda t: Case(["legal", "--position", "9x9 \u2603"]),
    "run --fps 0": lambda t: Case(["run", "--camera", str(RECORDING), "--fps", "0"]),
    "run --camera missing file": lambda t: Case(
        ["run", "--camera", str(t / "missing.mp4"), "--db", str(t / "g.sqlite3")],
        contains="no camera", check=no_file(t / "g.sqlite3")),
}


def _other_program(tmp: Path) -> Path:
    path = tmp / "other.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE photos (id INTEGER)")
    con.commit()
    con.close()
    return path

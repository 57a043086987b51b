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
    "legal: invalid UTF-8 on stdin": lambda t: Case(["legal"], stdin=b"\xff\xfe\x00\n",
                                                   contains="line 1: not utf-8 text"),
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


# -- faults ------------------------------------------------------------------------------

def _popen(argv, env=None):
    environ = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
                   PYTHONPATH=str(PROGRAM), LC_ALL="C.UTF-8", FENIX_TABLE_CONFIG="")
    environ.pop("DISPLAY", None)
    environ.update(env or {})
    return subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=environ, cwd=str(PROGRAM))


def kill_track(tmp: Path, seed: int) -> None:
    """kill -9 ``track`` at a random moment: the archive still opens and holds every move
    ``track`` printed (it prints a move only once it is on disk)."""
    import json
    import random
    import signal
    import time

    rec = recording_copy(tmp / "rec", 132) if not (tmp / "rec").exists() else tmp / "rec"
    db = tmp / f"kill-{seed}.sqlite3"
    proc = _popen(["-m", "fenix_table.cli", "track", str(rec), "--db", str(db), "--json"])
    time.sleep(random.Random(seed).uniform(0.3, 4.0))
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    announced = [json.loads(line)["move"] for line in out.decode().splitlines()
                 if line.strip() and '"move_committed"' in line]
    if not db.exists():
        assert not announced, "moves announced, no archive"
        return
    code, listing, err = fenix(["games", "list", "--db", str(db), "--json"])
    assert code == 0, f"archive unreadable after kill -9: {err}"
    stored = [m for moves in game_moves(db).values() for m in moves]
    assert stored[:len(announced)] == announced, f"announced {announced}, stored {stored}"


RECORD_SCRIPT = r"""
import sys
from fenix_table.record import GameStore
from fenix_table.rules import Game, Position, Rules
moves = sys.argv[2].split(",")
store = GameStore(sys.argv[1])
start = Position.start("7x8")
gid = store.new_game(start.fpn(), "official")
game = Game(start, Rules.preset("official"))
for i, token in enumerate(moves * 50, 1):
    if i > len(moves):
        gid = store.new_game(start.fpn(), "official") if (i - 1) % len(moves) == 0 else gid
        if (i - 1) % len(moves) == 0:
            game = Game(start, Rules.preset("official"))
    game.push(token)
    ply = len(game.moves)
    store.add_move(gid, ply, token, game.position.fpn())
    print(gid, ply, token, flush=True)
"""


def kill_recording(tmp: Path, seed: int) -> None:
    """kill -9 a process committing moves as fast as it can: every move it reported as
    written is in the archive, and the archive opens."""
    import json
    import random
    import signal
    import time

    script = json.loads((RECORDING / "script.json").read_text())
    db = tmp / f"rec-{seed}.sqlite3"
    proc = _popen(["-c", RECORD_SCRIPT, str(db), ",".join(script["moves"])])
    time.sleep(random.Random(seed).uniform(0.5, 2.0))
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    reported: Dict[int, List[str]] = {}
    for line in out.decode().splitlines():
        parts = line.split()
        if len(parts) == 3:
            reported.setdefault(int(parts[0]), []).append(parts[2])
    stored = game_moves(db)
    for gid, moves in reported.items():
        assert stored.get(gid, [])[:len(moves)] == moves, f"game {gid}: lost moves"


def full_disk(tmp: Path) -> None:
    """The disk fills while a game is recorded: the writes fail with one line, the moves
    wait in order, and once there is room again all of them are written."""
    from fenix_table.errors import RecordError
    from fenix_table.record import GameRecorder, GameStore
    from fenix_table.referee import events as ev
    from fenix_table.rules import Game, Position, Rules

    store = GameStore(str(tmp / "full.sqlite3"))
    recorder = GameRecorder(store)
    start = Position.start("7x8")
    recorder.new_game(start, Rules.preset("official"), "referee")
    game = Game(start, Rules.preset("official"))
    tokens = ["a1-b1", "g8-f8", "a2-b2", "g7-f7"]
    real = store._db

    class FullDisk:
        """The connection as SQLite sees a full disk: every write fails with SQLITE_FULL."""
        full = False

        def execute(self, sql, *args):
            if self.full and sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(real, name)

    disk = FullDisk()
    store._db = disk
    failed = 0
    for i, token in enumerate(tokens, 1):
        before = game.position.fpn()
        game.push(token)
        disk.full = i in (2, 3)   # the disk is full for the second and third moves
        event = ev.MoveCommitted(ply=i, move=token, fpn_before=before,
                                 fpn_after=game.position.fpn(), side="red")
        try:
            recorder.handle([event])
        except RecordError as error:
            failed += 1
            assert "\n" not in str(error) and "full" in str(error), str(error)
    assert failed == 2 and recorder.pending == 0, "the full disk went unnoticed"
    assert [m.token for m in store.moves(recorder.game_id)] == tokens
    store.close()


def locked_archive(tmp: Path) -> None:
    """Another program holds the archive's write lock for 2 s: an import waits for it and
    succeeds."""
    import threading
    import time

    db = archive_with_game(tmp / "locked.sqlite3")
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    threading.Timer(2.0, lambda: holder.execute("COMMIT")).start()
    began = time.monotonic()
    code, out, err = fenix(["games", "import", str(_fgn(tmp, FGN_7X8, "l.fgn")), "--db", str(db)])
    holder.close()
    assert code == 0, f"exit {code}: {err}"
    assert time.monotonic() - began >= 1.5 and len(game_moves(db)) == 2


def read_only_archive(tmp: Path) -> None:
    """An archive (and its folder) nobody may write: list still shows the games; an
    import says read-only on one line; the file is unchanged."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="fenix-ro-", dir="/tmp"))
    os.chmod(folder, 0o755)
    db = archive_with_game(folder / "games.sqlite3")
    for extra in ("-wal", "-shm"):
        Path(str(db) + extra).unlink(missing_ok=True)
    before = db.read_bytes()
    os.chmod(db, 0o444)
    os.chmod(folder, 0o555)
    env = {}
    prefix: List[str] = []
    package = PROGRAM
    if os.geteuid() == 0:   # root may write anything: be nobody
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        env = {"HOME": str(folder)}
        # nobody may not be able to read the checkout (a private temporary folder):
        # give it a readable copy of the package to run.
        package = Path(tempfile.mkdtemp(prefix="fenix-ro-code-", dir="/tmp"))
        shutil.copytree(PROGRAM / "fenix_table", package / "fenix_table",
                        ignore=shutil.ignore_patterns("recording", "__pycache__"))
        for path in [package, *package.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
    try:
        def as_user(argv):
            environ = dict(os.environ, PYTHONPATH=str(package), LC_ALL="C.UTF-8",
                           FENIX_TABLE_CONFIG="", **env)
            done = subprocess.run(prefix + [sys.executable, "-m", "fenix_table.cli", *argv],
                                  capture_output=True, env=environ, cwd="/", timeout=60)
            return done.returncode, done.stdout.decode(), done.stderr.decode()
        code, out, err = as_user(["games", "list", "--db", str(db)])
        assert code == 0 and "7x8" in out, f"list: exit {code} {err}"
        fgn = Path("/tmp") / f"fenix-ro-{os.getpid()}.fgn"
        fgn.write_text(FGN_7X8)
        os.chmod(fgn, 0o644)
        code, out, err = as_user(["games", "import", str(fgn), "--db", str(db)])
        fgn.unlink()
        assert code == 2 and len(one_line(err)) == 1 and "read-only" in err, err
    finally:
        os.chmod(folder, 0o755)
        os.chmod(db, 0o644)
        if package != PROGRAM:
            shutil.rmtree(package, ignore_errors=True)
    assert db.read_bytes() == before
    shutil.rmtree(folder, ignore_errors=True)


def garbage_in_archive(tmp: Path) -> None:
    """A page of garbage in the archive: list and show answer or say one line, never
    write to the file."""
    db = tmp / "garbage.sqlite3"
    from fenix_table.record import GameStore
    with GameStore(str(db)) as store:
        for _ in range(30):
            store.import_fgn(FGN_7X8)
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = bytearray(db.read_bytes())
    page = 4096
    at = (len(data) // page - 1) * page
    data[at + 100: at + 900] = b"\xde\xad" * 400
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    for argv in (["games", "list"], ["games", "show", "1"], ["games", "export", "1"]):
        code, out, err = fenix(argv + ["--db", str(db)])
        assert "Traceback" not in err and code in (0, 2), f"{argv}: exit {code} {err}"
        assert code == 0 or len(one_line(err)) == 1, err
    assert db.read_bytes() == before, "the damaged archive was written to"


def corrupt_frames_in_track(tmp: Path) -> None:
    """Truncated, garbage and deleted frames in the middle of a recording: ``track`` skips
    each with one log line and goes on to the end (exit 0)."""
    rec = recording_copy(tmp / "bad", 40)
    truncated_jpeg(rec / "0010.jpg")
    (rec / "0011.jpg").write_bytes(b"garbage")
    (rec / "0012.jpg").write_bytes(b"")
    code, out, err = fenix(["track", str(rec), "--db", str(tmp / "t.sqlite3"), "--json"])
    assert code == 0, f"exit {code}: {err}"
    assert err.count("skipped") == 3, err
    assert '"frame": 39' in out or '"frame": 3' in out


def recorded_feed_faults(tmp: Path) -> None:
    """Frames deleted while playing are skipped (never back to frame 0); five unreadable
    in a row are "camera lost" until a good one comes."""
    from fenix_table.table import RecordedFeed
    from fenix_table.vision.sources import FolderSource

    rec = recording_copy(tmp / "feed", 20)
    feed = RecordedFeed(FolderSource(str(rec))).start()
    seen, lost = [], []
    while not feed.ended:
        got = feed.latest()
        if got is not None:
            seen.append(got[0])
            if got[0] == 2:
                for i in range(4, 10):
                    (rec / f"{i:04d}.jpg").unlink()
        lost.append(feed.lost())
    assert seen == [0, 1, 2, 3] + list(range(10, 20)), seen
    assert feed.skipped == 6 and any(lost) and lost[-1] is None


def camera_comes_back(tmp: Path) -> None:
    """No camera at first: the grabber retries with a growing wait, the table says camera
    lost and the watchdog is still pinged; then frames come."""
    import numpy as np

    from fenix_table.errors import CameraError
    from fenix_table.table import FrameGrabber, GameSetup, Table, run

    attempts = []

    class Camera:
        def read(self):
            import time
            time.sleep(0.01)
            return np.zeros((48, 64, 3), np.uint8)

        def close(self):
            pass

    def opener():
        attempts.append(1)
        if len(attempts) <= 3:
            raise CameraError("no camera found")
        return Camera()

    class Dog:
        pings = 0

        def ready(self, *a):
            pass

        def ping(self):
            Dog.pings += 1

        def stopping(self):
            pass

    grabber = FrameGrabber(opener, retry_seconds=0.05, max_retry_seconds=0.15)
    table = Table(GameSetup(size="7x8"))
    states = []
    orig = table.camera

    def camera(ok):
        states.append(ok)
        return orig(ok)

    table.camera = camera
    run(table, grabber, watchdog=Dog(), max_seconds=1.5)
    table.close()
    assert list(grabber.waits)[:3] == [0.05, 0.1, 0.15], grabber.waits
    assert False in states and states[-1] is True and grabber.read > 0
    assert Dog.pings > 10


#: ``fenix-table`` with the screen faked (SDL's dummy driver, an off-screen surface):
#: ``run`` otherwise wants a real display.
HEADLESS_RUN = """
import functools, sys
import fenix_table.display.app as app
import pygame
app.open_screen = functools.partial(app.open_screen, allow_headless=True)
pygame.display.flip = lambda *a: None
from fenix_table.cli import main
sys.exit(main(sys.argv[1:]))
"""


def signal_run(tmp: Path, signame: str = "SIGHUP") -> None:
    """SIGHUP (like SIGTERM) ends ``run`` with the game saved and exit 0; a second ``run
    --continue`` goes on with that same game."""
    import signal
    import time

    db = tmp / "run.sqlite3"
    rec = recording_copy(tmp / "runrec", 20)
    argv = ["-c", HEADLESS_RUN, "run", "--camera", str(rec), "--db", str(db),
            "--continue", "--fps", "4"]
    proc = _popen(argv)
    time.sleep(4.0)
    proc.send_signal(getattr(signal, signame))
    out, err = proc.communicate(timeout=30)
    err = err.decode()
    assert proc.returncode == 0, f"{signame}: exit {proc.returncode}: {err[-300:]}"
    assert "game 1 saved" in err and "stopped: signal" in err, err[-300:]
    proc = _popen(argv)
    time.sleep(3.0)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    proc = _popen(argv)
    time.sleep(3.0)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "game 1 saved" in err.decode(), err.decode()[-300:]
    assert list(game_moves(db)) == [1], f"games {list(game_moves(db))}: not continued"


FAULTS: Dict[str, Callable[[Path], None]] = {
    **{f"kill -9 during track #{i}": (lambda t, i=i: kill_track(t, i)) for i in range(3)},
    **{f"kill -9 while recording #{i}": (lambda t, i=i: kill_recording(t, i)) for i in range(3)},
    "full disk while recording": full_disk,
    "archive locked by another program": locked_archive,
    "read-only archive and folder": read_only_archive,
    "garbage page in the archive": garbage_in_archive,
    "corrupt and empty frames in track": corrupt_frames_in_track,
    "frames deleted while playing; a run of them": recorded_feed_faults,
    "no camera at boot, then one": camera_comes_back,
    "SIGHUP, kill -9 and SIGTERM around run --continue": signal_run,
}

#: The long variants (pytest -m slow; bench_faults.py --long).
SLOW_FAULTS: Dict[str, Callable[[Path], None]] = {
    **{f"kill -9 during track #{i}": (lambda t, i=i: kill_track(t, i)) for i in range(3, 15)},
    **{f"kill -9 while recording #{i}": (lambda t, i=i: kill_recording(t, i)) for i in range(3, 15)},
}

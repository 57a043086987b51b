"""The game archive: every game, move by move, in one SQLite file.

A committed move is one transaction with ``synchronous=FULL`` in WAL mode, so once
:meth:`GameStore.add_move` returns the move survives a crash or a power cut; the referee
calls it *before* it announces the move. The archive lives in the user data directory
(``platformdirs.user_data_dir("fenix-table")/games.sqlite3``) unless a path is given.

A file that is not a Fenix Table archive (corrupt, or another program's database) raises
:class:`RecordError` with one line naming the file; it is never modified, so the games in
it are not lost.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..errors import RecordError

APPLICATION = "fenix-table"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    finished TEXT,
    board TEXT NOT NULL,
    rules TEXT NOT NULL,
    start_fpn TEXT NOT NULL,
    tags TEXT NOT NULL,
    mode TEXT NOT NULL,
    result TEXT NOT NULL DEFAULT '*',
    reason TEXT
);
CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    token TEXT NOT NULL,
    fpn_after TEXT NOT NULL,
    time TEXT NOT NULL,
    frame INTEGER,
    played_on INTEGER NOT NULL DEFAULT 0,
    jpeg BLOB,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    time TEXT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_by_game ON events (game_id, ply);
"""

_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class _Busy(Exception):
    """Another connection holds the archive's lock (waited out by ``_open_waiting``)."""


def _busy(error: Exception) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


def _read_only(error: Exception) -> bool:
    text = str(error).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


def _plain(error: Exception) -> str:
    """sqlite's message in the user's terms where it has better ones."""
    text = str(error)
    if "database or disk is full" in text or "disk I/O" in text.lower():
        return f"{text}: the disk is full or failing; nothing of this write was kept"
    return text


def _identity(path: str) -> Optional[Tuple[int, int]]:
    """The file behind ``path`` (device, inode); None for an in-memory or absent one."""
    if path == ":memory:":
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def default_path() -> str:
    """``games.sqlite3`` in the user data directory (created when missing)."""
    from platformdirs import user_data_dir

    folder = user_data_dir("fenix-table")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, "games.sqlite3")


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class GameSummary:
    """One line of ``games list``. ``started`` is ISO 8601 UTC; ``result`` an FGN result."""

    id: int
    started: str
    finished: Optional[str]
    board: str
    rules: str
    mode: str
    result: str
    reason: Optional[str]
    moves: int
    red: str
    black: str
    start_fpn: str
    tags: Dict[str, str]

    def to_json(self) -> Dict[str, Any]:
        return {"id": self.id, "started": self.started, "finished": self.finished,
                "board": self.board, "rules": self.rules, "mode": self.mode,
                "result": self.result, "reason": self.reason, "moves": self.moves,
                "red": self.red, "black": self.black}


@dataclass(frozen=True)
class StoredMove:
    """A recorded ply (1-based). ``played_on`` marks a casual "play on" from an illegal
    change: ``token`` is then the attempted move and ``fpn_after`` the accepted position."""

    ply: int
    token: str
    fpn_after: str
    time: str
    frame: Optional[int]
    played_on: bool


class GameStore:
    """The SQLite game archive.

    >>> store = GameStore(":memory:")
    >>> gid = store.new_game("7x8 1ssssss/2sssss/S2ssss/SS2sss/SSS2ss/SSSS2s/SSSSS2/SSSSSS1 r 00 - 0",
    ...                      "official")
    >>> store.list_games()[0].moves
    0

    Every method raises :class:`RecordError` for a corrupt or foreign database or an
    unknown game id.
    """

    #: How long a write waits for another program's lock on the archive (another
    #: ``fenix-table`` importing a game, a backup) before it gives up, seconds.
    busy_seconds = 60.0

    def __init__(self, path: Optional[str] = None, *, busy_seconds: Optional[float] = None) -> None:
        if path is not None and not str(os.fspath(path)).strip():
            raise RecordError("the game archive path is empty; give --db FILE or "
                              "record.database a file name")
        self.path = default_path() if path is None else os.fspath(path)
        if busy_seconds is not None:
            self.busy_seconds = busy_seconds
        self.read_only = False
        self._db = self._open_waiting()
        self._identity = _identity(self.path)

    # -- opening ------------------------------------------------------------------
    def _open_waiting(self) -> sqlite3.Connection:
        """:meth:`_open`, waiting out a lock another program holds (up to
        ``busy_seconds``): a transient lock is never fatal."""
        import time

        deadline = time.monotonic() + self.busy_seconds
        while True:
            try:
                return self._open()
            except _Busy as busy:
                if time.monotonic() >= deadline:
                    raise RecordError(f"{self.path}: game archive locked by another program "
                                      f"for {self.busy_seconds:.0f} s ({busy})") from None
                time.sleep(0.2)

    def _connect(self, where: str) -> sqlite3.Connection:
        """A connection that may write, else (a read-only file or folder) one that reads."""
        timeout = max(0.1, self.busy_seconds)
        if where == ":memory:" or not os.path.exists(where) or \
                os.access(where, os.W_OK) and os.access(os.path.dirname(os.path.abspath(where)),
                                                       os.W_OK):
            db = sqlite3.connect(where, isolation_level=None, timeout=timeout)
            if where == ":memory:" or not os.path.exists(where):
                return db
            try:
                db.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()
                db.execute("BEGIN IMMEDIATE")   # can it write here? (waits out a lock)
                db.execute("ROLLBACK")
                return db
            except sqlite3.OperationalError as error:
                if not _read_only(error):
                    try:
                        db.close()
                    except Exception:
                        pass
                    if _busy(error):
                        raise _Busy(str(error)) from None
                    raise
                db.close()
        # Read-only: list, show and export still work; writes name the problem.
        uri = "file:" + urllib.parse.quote(os.path.abspath(where)) + "?mode=ro"
        self.read_only = True
        last: Optional[sqlite3.Error] = None
        for extra in ("", "&immutable=1"):   # immutable: no -shm can be made next to it
            try:
                db = sqlite3.connect(uri + extra, uri=True, isolation_level=None,
                                     timeout=timeout)
            except sqlite3.Error as error:
                last = error
                continue
            try:
                db.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()
                return db
            except sqlite3.Error as error:
                db.close()
                if _busy(error):
                    raise _Busy(str(error)) from None
                last = error
        raise last

    def _open(self) -> sqlite3.Connection:
        where = self.path
        if where != ":memory:" and os.path.isdir(where):
            raise RecordError(f"{where}: is a folder, not a game archive")
        try:
            db = self._connect(where)
        except _Busy:
            raise
        except sqlite3.Error as error:
            if _busy(error):
                raise _Busy(str(error)) from None
            if where != ":memory:" and os.path.exists(where):
                raise RecordError(f"{where}: not a readable game archive ({error}); "
                                  f"left untouched") from None
            raise RecordError(f"{where}: cannot open game archive ({error})") from None
        try:
            tables = {row[0] for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables and self.read_only:
                raise RecordError(f"{where}: empty and read-only; not a game archive")
            if not tables:
                if where != ":memory:":
                    db.execute("PRAGMA journal_mode = WAL")
                db.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('application', ?), ('schema', ?)",
                           (APPLICATION, str(SCHEMA_VERSION)))
                db.execute("COMMIT")
            else:
                meta = dict(db.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
                if meta.get("application") != APPLICATION:
                    raise RecordError(
                        f"{where}: not a Fenix Table game archive (another program's "
                        f"database); left untouched")
                schema = str(meta.get("schema", "0")).strip()
                if not schema.isdigit() or len(schema) > 6:
                    raise RecordError(f"{where}: its schema version {schema[:20]!r} is not a "
                                      f"number; not a game archive this program wrote; "
                                      f"left untouched")
                if int(schema) > SCHEMA_VERSION:
                    raise RecordError(
                        f"{where}: written by a newer Fenix Table (schema {schema}); "
                        f"left untouched")
                if where != ":memory:" and not self.read_only:
                    db.execute("PRAGMA journal_mode = WAL")
            if not self.read_only:
                db.execute("PRAGMA synchronous = FULL")
            db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            db.close()
            if _busy(error):
                raise _Busy(str(error)) from None
            raise RecordError(
                f"{where}: not a readable game archive ({error}); left untouched") from None
        except RecordError:
            db.close()
            raise
        return db

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "GameStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _run(self, sql: str, args: Tuple = ()) -> List[tuple]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as error:
            raise RecordError(f"{self.path}: game archive error ({error})") from None
        except OverflowError:
            raise RecordError(f"{self.path}: a number out of range in {args!r}"[:200]) from None

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One durable transaction: committed when the block ends, rolled back (and the
        error named in one line: the first one, not a failed rollback's) when it fails."""
        db = self._db
        if self._identity is not None and _identity(self.path) != self._identity:
            # Writing on would go into a file nobody can open any more.
            raise RecordError(f"{self.path}: the game archive was replaced or removed while "
                              f"in use (nothing written)")
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    try:
                        db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass   # the error that made the write fail is the one to name
                raise
        except sqlite3.Error as error:
            if self.read_only:
                raise RecordError(f"{self.path}: the game archive is read-only "
                                  f"(nothing written)") from None
            raise RecordError(f"{self.path}: game archive error ({_plain(error)})") from None

    def _transaction(self, statements: List[Tuple[str, Tuple]]) -> None:
        """Run statements as one durable transaction (all or nothing)."""
        with self._writing() as db:
            for sql, args in statements:
                db.execute(sql, args)

    # -- writing ------------------------------------------------------------------
    def new_game(self, start_fpn: str, rules: Any = "official", tags: Optional[Dict[str, str]] = None,
                 mode: str = "referee", started: Optional[str] = None) -> int:
        """Start a game record; returns its id. ``rules`` is a Rules or its description."""
        rules_text = rules if isinstance(rules, str) else rules.describe()
        board = start_fpn.split()[0] if start_fpn.split() else "?"
        with self._writing() as db:
            cursor = db.execute(
                "INSERT INTO games (started, board, rules, start_fpn, tags, mode) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (started or _now(), board, rules_text, start_fpn,
                 json.dumps(dict(tags or {}), ensure_ascii=False), mode))
        return int(cursor.lastrowid)

    def insert_game(self, start_fpn: str, rules: str, tags: Dict[str, str], mode: str,
                    moves: List[Tuple[str, str, bool]], events: List[Tuple[int, Any]],
                    result: str = "*", reason: Optional[str] = None,
                    started: Optional[str] = None) -> int:
        """Store a whole game in one transaction (used by FGN import); returns its id.

        ``moves`` are ``(token, fpn_after, played_on)``; ``events`` ``(ply, Event)`` kept
        after that many plies (an imported record's comments).
        """
        if result not in _RESULTS:
            raise RecordError(f"result {result!r} is not one of {', '.join(_RESULTS)}")
        now = _now()
        with self._writing() as db:
            game_id = db.execute(
                "INSERT INTO games (started, finished, board, rules, start_fpn, tags, mode, "
                "result, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (started or now, None if result == "*" else now, start_fpn.split()[0],
                 rules, start_fpn, json.dumps(dict(tags), ensure_ascii=False), mode,
                 result, reason)).lastrowid
            db.executemany(
                "INSERT INTO moves (game_id, ply, token, fpn_after, time, played_on) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(game_id, i + 1, token, fpn, now, int(played_on))
                 for i, (token, fpn, played_on) in enumerate(moves)])
            db.executemany(
                "INSERT INTO events (game_id, ply, time, kind, data) VALUES (?, ?, ?, ?, ?)",
                [(game_id, ply, now, event.kind, json.dumps(event.to_json(), ensure_ascii=False))
                 for ply, event in events])
        return int(game_id)

    def add_move(self, game_id: int, ply: int, token: str, fpn_after: str, *,
                 frame: Optional[int] = None, jpeg: Optional[bytes] = None,
                 played_on: bool = False) -> None:
        """Record ply ``ply`` (1-based, the next one) durably; returns once it is on disk."""
        count = self.move_count(game_id)
        if ply != count + 1:
            raise RecordError(f"game {game_id}: ply {ply} given, but {count} moves are recorded")
        self._transaction([(
            "INSERT INTO moves (game_id, ply, token, fpn_after, time, frame, played_on, jpeg) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, ply, token, fpn_after, _now(), frame, int(played_on), jpeg))])

    def add_event(self, game_id: int, event: Any) -> None:
        """Keep a referee :class:`~fenix_table.referee.events.Event` with the game, at the
        current ply."""
        ply = self.move_count(game_id)
        self._transaction([(
            "INSERT INTO events (game_id, ply, time, kind, data) VALUES (?, ?, ?, ?, ?)",
            (game_id, ply, _now(), event.kind,
             json.dumps(event.to_json(), ensure_ascii=False)))])

    def finish(self, game_id: int, result: str, reason: Optional[str] = None) -> None:
        """Mark a game over with its FGN result ("1-0", "0-1", "1/2-1/2")."""
        if result not in _RESULTS:
            raise RecordError(f"result {result!r} is not one of {', '.join(_RESULTS)}")
        self._require(game_id)
        self._transaction([(
            "UPDATE games SET result = ?, reason = ?, finished = ? WHERE id = ?",
            (result, reason, None if result == "*" else _now(), game_id))])

    def undo_last(self, game_id: int) -> Optional[str]:
        """Remove the last move (and the events recorded after it); returns its token."""
        self._require(game_id)
        rows = self._run("SELECT ply, token FROM moves WHERE game_id = ? ORDER BY ply DESC LIMIT 1",
                         (game_id,))
        if not rows:
            return None
        ply, token = rows[0]
        self._transaction([
            ("DELETE FROM moves WHERE game_id = ? AND ply = ?", (game_id, ply)),
            ("DELETE FROM events WHERE game_id = ? AND ply >= ?", (game_id, ply)),
            ("UPDATE games SET result = '*', reason = NULL, finished = NULL WHERE id = ?",
             (game_id,)),
        ])
        return token

    def delete(self, game_id: int) -> None:
        """Delete one game, its moves, events and frames."""
        self._require(game_id)
        self._transaction([
            ("DELETE FROM events WHERE game_id = ?", (game_id,)),
            ("DELETE FROM moves WHERE game_id = ?", (game_id,)),
            ("DELETE FROM games WHERE id = ?", (game_id,)),
        ])

    # -- reading ------------------------------------------------------------------
    def _require(self, game_id: int) -> None:
        if not self._run("SELECT 1 FROM games WHERE id = ?", (game_id,)):
            raise RecordError(f"no game {game_id} in {self.path}")

    def move_count(self, game_id: int) -> int:
        return int(self._run("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,))[0][0])

    def _summaries(self, where: str = "", args: Tuple = ()) -> List[GameSummary]:
        rows = self._run(
            "SELECT g.id, g.started, g.finished, g.board, g.rules, g.mode, g.result, g.reason, "
            "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id), g.start_fpn, g.tags "
            f"FROM games g {where} ORDER BY g.id", args)
        games = []
        for row in rows:
            try:
                tags = json.loads(row[10])
                if not isinstance(tags, dict):
                    raise ValueError("tags are not an object")
            except ValueError:
                tags = {}
            games.append(GameSummary(
                id=row[0], started=row[1], finished=row[2], board=row[3], rules=row[4],
                mode=row[5], result=row[6], reason=row[7], moves=row[8],
                red=str(tags.get("Red", "?")), black=str(tags.get("Black", "?")),
                start_fpn=row[9], tags={str(k): str(v) for k, v in tags.items()}))
        return games

    def list_games(self) -> List[GameSummary]:
        """Every game, oldest first."""
        return self._summaries()

    def unfinished(self) -> List[GameSummary]:
        """Games without a result (interrupted by a crash, power cut or restart)."""
        return self._summaries("WHERE g.result = '*'")

    def game(self, game_id: int) -> GameSummary:
        found = self._summaries("WHERE g.id = ?", (game_id,))
        if not found:
            raise RecordError(f"no game {game_id} in {self.path}")
        return found[0]

    def moves(self, game_id: int) -> List[StoredMove]:
        self._require(game_id)
        return [StoredMove(ply, token, fpn, time, frame, bool(played_on))
                for ply, token, fpn, time, frame, played_on in self._run(
                    "SELECT ply, token, fpn_after, time, frame, played_on FROM moves "
                    "WHERE game_id = ? ORDER BY ply", (game_id,))]

    def events(self, game_id: int) -> List[Tuple[int, Any]]:
        """``(ply, Event)`` in the order they happened (the referee's event classes)."""
        from ..referee.events import from_json

        self._require(game_id)
        result = []
        for ply, data in self._run(
                "SELECT ply, data FROM events WHERE game_id = ? ORDER BY id", (game_id,)):
            try:
                result.append((ply, from_json(json.loads(data))))
            except (ValueError, AttributeError):
                raise RecordError(f"game {game_id}: a stored event is not one the referee "
                                  f"writes") from None
        return result

    def frame(self, game_id: int, ply: int) -> Optional[bytes]:
        """The JPEG kept with ply ``ply``, if any."""
        rows = self._run("SELECT jpeg FROM moves WHERE game_id = ? AND ply = ?", (game_id, ply))
        return bytes(rows[0][0]) if rows and rows[0][0] is not None else None

    # -- records ------------------------------------------------------------------
    def load(self, game_id: int):
        """The game as a :class:`fenix_table.rules.fgn.GameRecord` (tags, moves, comments,
        result). Every stored move is replayed with the rules engine first; a move that
        does not replay raises :class:`RecordError` naming the game and ply."""
        from .fgn import record_of

        return record_of(self, game_id)

    def export_fgn(self, game_id: int) -> str:
        """The game as FGN text."""
        from ..rules.fgn import format_fgn

        return format_fgn(self.load(game_id))

    def import_fgn(self, text: str) -> int:
        """Replay an FGN game with the rules engine and store it; returns the new id.

        Raises :class:`RecordError` (naming the move) when the text is malformed or a move
        is illegal; nothing is stored then.
        """
        from .fgn import import_record

        return import_record(self, text)

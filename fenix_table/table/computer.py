"""The computer at the table: its moves, and the coach's hints and reviews, searched off
the loop.

Both searchers work in a thread of their own, so the camera loop never waits for them,
and what they find comes back as requests on ``table.requests``, carried out in the loop
like a touch on the screen. A new job replaces the one in hand, which is abandoned at
its next depth (or ply of a review).

:class:`Computer`, the opponent: the table calls :meth:`Computer.follow` after every
batch of events; when it is the computer's turn and nothing is being searched for that
position, the worker starts. Its requests:

* ``Action("computer_thinking", fpn, depth)`` when it starts and after each depth;
* ``Action("computer_move", fpn, token, depth, score)`` with its choice.

The table drops a request whose ``fpn`` is no longer the game's position, and otherwise
turns it into the events ``ComputerThinking`` / ``ComputerMove`` (through
:meth:`fenix_table.referee.Referee.expect`, which from then on takes no other move from
the board).

:class:`Coach`, asked by the players (:meth:`Coach.hint`, :meth:`Coach.review`); the
table calls :meth:`Coach.follow` too, and a hint for a position the game has left is
given up. Its requests, for the display (the referee has no part in them):

* ``Action("hint_thinking", fpn, side, depth)``, then ``Action("hint_found", fpn, side,
  token, score, reason)`` (a :class:`fenix_table.opponent.coach.Reason`);
* ``Action("review_progress", game, done, total, notes)`` after each ply of a stored
  game's review, ``notes`` the :class:`~fenix_table.opponent.coach.ReviewNote` values so
  far (``done == total``: finished).
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

from ..errors import ConfigError

log = logging.getLogger(__name__)


class _Abandoned(Exception):
    pass


@dataclass(frozen=True)
class _Job:
    generation: int
    kind: str                 # "move", "hint" or "review"
    key: object               # the position's FPN, or the reviewed game's id
    args: Tuple[object, ...]


class _Worker:
    """One thread that does the latest job it was given (:meth:`_give`) and posts what
    it finds with ``post(action)`` (the table sets it to ``requests.put``)."""

    name = "fenix-worker"

    def __init__(self, post: Optional[Callable[[object], None]]) -> None:
        self.post = post
        self._cond = threading.Condition()
        self._job: Optional[_Job] = None
        self._generation = 0
        self._started = 0        # the generation the worker last took up
        self._closed = False
        self._thread: Optional[threading.Thread] = None

    def _give(self, kind: Optional[str], key=None, *args) -> None:
        """Replace the job in hand (``kind`` None: no job). Call with ``_cond`` held."""
        self._generation += 1
        self._job = _Job(self._generation, kind, key, args) if kind is not None else None
        self._cond.notify()
        if kind is not None and self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (self._job is None or
                                            self._job.generation == self._started):
                    self._cond.wait()
                if self._closed:
                    return
                job = self._job
                self._started = job.generation
            try:
                self._work(job)
            except _Abandoned:
                continue
            except Exception as error:   # no legal move, or the engine's fault: logged
                log.warning("%s: %s job on %s failed: %s", self.name, job.kind, job.key, error)

    def _work(self, job: _Job) -> None:
        raise NotImplementedError

    def _stale(self, job: _Job) -> bool:
        with self._cond:
            return self._closed or self._generation != job.generation

    def _check(self, job: _Job) -> None:
        """Give up ``job`` when a newer one came (raises _Abandoned)."""
        if self._stale(job):
            raise _Abandoned

    def _send(self, job: _Job, action) -> None:
        if self.post is not None and not self._stale(job):
            self.post(action)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the worker (a search in progress is abandoned at its next depth)."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)


class Computer(_Worker):
    """The computer playing ``side`` ("red" or "black") at ``level`` (1 to 8) with
    ``movetime`` seconds a move. ``post(action)`` hands a request to the table."""

    name = "fenix-computer"

    def __init__(self, side: str, level: int = 4, movetime: float = 2.0, *,
                 post: Optional[Callable[[object], None]] = None) -> None:
        from ..opponent import LEVELS
        if side not in ("red", "black"):
            raise ConfigError(f"computer side {side!r}: expected red or black")
        if level not in LEVELS:
            raise ConfigError(f"computer level {level!r}: expected 1 to {max(LEVELS)}")
        if not movetime > 0:
            raise ConfigError(f"computer movetime {movetime!r}: expected seconds above 0")
        super().__init__(post)
        self.side, self.level, self.movetime = side, level, float(movetime)

    def follow(self, referee) -> None:
        """Look at the game: search when it is the computer's turn and its move for this
        position is neither chosen nor being searched; otherwise stop searching."""
        position = referee.position
        fpn = position.fpn()
        chosen = referee.expected_move() is not None
        wanted = referee.state not in ("new", "over") and position.side == self.side and \
            referee.computer == self.side and not chosen
        with self._cond:
            job = self._job
            if self._closed or (job is not None and job.key == fpn and (wanted or chosen)):
                return   # searching this position, or its move is out
            if not wanted and job is None:
                return
            if wanted:
                self._give("move", fpn, position, tuple(referee.game.positions[:-1]),
                           referee.rules)
            else:
                self._give(None)

    def _work(self, job: _Job) -> None:
        from ..opponent import analyse
        from .driver import Action

        position, history, rules = job.args

        def progress(depth, analysis):
            self._check(job)
            self._send(job, Action("computer_thinking", (("fpn", job.key), ("depth", depth))))

        self._send(job, Action("computer_thinking", (("fpn", job.key), ("depth", 0))))
        found = analyse(position, rules, level=self.level, movetime=self.movetime,
                        history=history, progress=progress)
        self._send(job, Action("computer_move", (
            ("fpn", job.key), ("token", found.move.token), ("depth", found.depth),
            ("score", found.score))))


class Coach(_Worker):
    """The coach at the table: a hint in ``movetime`` seconds, a review of a stored game
    with ``review_movetime`` seconds per search (each ply takes one or two)."""

    name = "fenix-coach"

    def __init__(self, movetime: float = 2.0, review_movetime: Optional[float] = None, *,
                 post: Optional[Callable[[object], None]] = None) -> None:
        super().__init__(post)
        self.movetime = float(movetime)
        # A review searches every ply, twice where the move played was not the best:
        # a quarter of the hint's time each keeps a long game's review to minutes.
        self.review_movetime = float(review_movetime if review_movetime is not None
                                     else movetime / 4)

    def hint(self, position, history, rules) -> None:
        """Search ``position`` (the side to move's best move and why), replacing any
        job in hand."""
        with self._cond:
            if not self._closed:
                self._give("hint", position.fpn(), position, tuple(history), rules)

    def review(self, game_id: int, replayed) -> None:
        """Review the stored game ``game_id`` (its :class:`fenix_table.rules.replay.Replay`),
        replacing any job in hand."""
        with self._cond:
            if not self._closed:
                self._give("review", game_id, replayed)

    def follow(self, referee) -> None:
        """Look at the game: a hint for a position it has left is given up."""
        with self._cond:
            job = self._job
            if job is not None and job.kind == "hint" and job.key != referee.position.fpn():
                self._give(None)

    def busy(self, kind: str, key) -> bool:
        """Whether a ``kind`` job about ``key`` is in hand."""
        with self._cond:
            job = self._job
            return job is not None and job.kind == kind and job.key == key and \
                self._thread is not None

    def _work(self, job: _Job) -> None:
        if job.kind == "hint":
            self._hint(job)
        else:
            self._review(job)
        with self._cond:   # done: the same request again starts afresh
            if self._job is not None and self._job.generation == job.generation:
                self._job = None

    def _hint(self, job: _Job) -> None:
        from ..opponent.coach import hint
        from .driver import Action

        position, history, rules = job.args
        side = position.side

        def progress(depth, analysis):
            self._check(job)
            self._send(job, Action("hint_thinking", (("fpn", job.key), ("side", side),
                                                     ("depth", depth))))

        self._send(job, Action("hint_thinking", (("fpn", job.key), ("side", side),
                                                 ("depth", 0))))
        found = hint(position, rules, movetime=self.movetime, history=history,
                     progress=progress)
        self._send(job, Action("hint_found", (
            ("fpn", job.key), ("side", side), ("token", found.move.token),
            ("score", found.score), ("reason", found.why))))

    def _review(self, job: _Job) -> None:
        from ..opponent.coach import review
        from .driver import Action

        (replayed,) = job.args
        total = len(replayed.plies)

        def post(done, notes):
            self._send(job, Action("review_progress", (
                ("game", job.key), ("done", done), ("total", total), ("notes", notes))))

        def progress(ply, _total, notes):
            self._check(job)
            post(ply - 1, notes)

        notes = review(replayed.start, replayed.rules, replayed.plies,
                       movetime=self.review_movetime, progress=progress)
        post(total, tuple(notes))

"""The computer opponent at the table: an input of the table, like the people at it.

:class:`Computer` searches in a worker thread of its own, so the camera loop never waits
for it. The table calls :meth:`Computer.follow` after every batch of events; when it is
the computer's turn and nothing is being searched for that position, the worker starts
(an earlier search for a position the game has left is abandoned at its next depth).
What it finds comes back as requests on ``table.requests``, carried out in the loop like
a touch on the screen:

* ``Action("computer_thinking", fpn, depth)`` when it starts and after each depth;
* ``Action("computer_move", fpn, token, depth, score)`` with its choice.

The table drops a request whose ``fpn`` is no longer the game's position, and otherwise
turns it into the events ``ComputerThinking`` / ``ComputerMove`` (through
:meth:`fenix_table.referee.Referee.expect`, which from then on takes no other move from
the board).
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
    fpn: str
    position: object
    history: Tuple[object, ...]
    rules: object


class Computer:
    """The computer playing ``side`` ("red" or "black") at ``level`` (1 to 8) with
    ``movetime`` seconds a move. ``post(action)`` hands a request to the table (the
    table sets it to ``requests.put``)."""

    def __init__(self, side: str, level: int = 4, movetime: float = 2.0, *,
                 post: Optional[Callable[[object], None]] = None) -> None:
        from ..opponent import LEVELS
        if side not in ("red", "black"):
            raise ConfigError(f"computer side {side!r}: expected red or black")
        if level not in LEVELS:
            raise ConfigError(f"computer level {level!r}: expected 1 to {max(LEVELS)}")
        if not movetime > 0:
            raise ConfigError(f"computer movetime {movetime!r}: expected seconds above 0")
        self.side, self.level, self.movetime = side, level, float(movetime)
        self.post = post
        self._cond = threading.Condition()
        self._job: Optional[_Job] = None
        self._generation = 0
        self._started = 0        # the generation the worker last took up
        self._closed = False
        self._thread: Optional[threading.Thread] = None

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
            if self._closed or (job is not None and job.fpn == fpn and (wanted or chosen)):
                return   # searching this position, or its move is out
            if not wanted and job is None:
                return
            self._generation += 1
            self._job = _Job(self._generation, fpn, position,
                             tuple(referee.game.positions[:-1]), referee.rules) \
                if wanted else None
            self._cond.notify()
            if wanted and self._thread is None:
                self._thread = threading.Thread(target=self._run, name="fenix-computer",
                                                daemon=True)
                self._thread.start()

    def _run(self) -> None:
        from ..opponent import analyse
        from .driver import Action

        while True:
            with self._cond:
                while not self._closed and (self._job is None or
                                            self._job.generation == self._started):
                    self._cond.wait()
                if self._closed:
                    return
                job = self._job
                self._started = job.generation

            def progress(depth, analysis, job=job):
                if self._stale(job):
                    raise _Abandoned
                self._send(Action("computer_thinking", (("fpn", job.fpn), ("depth", depth))))

            self._send(Action("computer_thinking", (("fpn", job.fpn), ("depth", 0))))
            try:
                found = analyse(job.position, job.rules, level=self.level,
                                movetime=self.movetime, history=job.history, progress=progress)
            except _Abandoned:
                continue
            except Exception as error:   # no legal move, or the engine's fault: logged
                log.warning("the computer found no move in %s: %s", job.fpn, error)
                continue
            if self._stale(job):
                continue
            self._send(Action("computer_move", (
                ("fpn", job.fpn), ("token", found.move.token), ("depth", found.depth),
                ("score", found.score))))

    def _stale(self, job: _Job) -> bool:
        with self._cond:
            return self._closed or self._generation != job.generation

    def _send(self, action) -> None:
        if self.post is not None:
            self.post(action)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the worker (a search in progress is abandoned at its next depth)."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

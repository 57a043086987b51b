"""One table's game as the club sees it, folded from the referee's events.

:class:`GameState` holds what the retained ``state`` message carries: board, rules, start
and current position (FPN), the move list, the last move, whose turn, the thinking time
of each side, the status (setup, playing, a capture owed, a violation, over) and the
result. It is built from the events alone (and the rules engine's Position for the
facts an FPN holds), like the display model, and keeps nothing else.

>>> from fenix_table.referee import events as ev
>>> state = GameState("club", "t1", clock=lambda: 0.0)
>>> state.apply(ev.GameStarted(fpn="7x8 1ssssss/2sssss/S2ssss/SS2sss/SSS2ss/SSSS2s/SSSSS2/SSSSSS1 r 00 - 0", rules="official"))
True
>>> state.status, state.moves
('setup', [])
"""
from __future__ import annotations

import secrets
import time
from typing import Any, Callable, Dict, List, Optional

from ..referee import events as ev
from . import schema


class GameState:
    """The club's view of one table's game. ``tags``: the record's tags (players, event,
    round); ``clock``: wall-clock seconds (injectable for tests)."""

    def __init__(self, club: str, table: str, tags: Optional[Dict[str, str]] = None,
                 clock: Callable[[], float] = time.time, session: Optional[str] = None) -> None:
        self.club = schema.check_name("club", club)
        self.table = schema.check_name("table", table)
        self.tags = {k: str(v) for k, v in (tags or {}).items() if k in schema.TAG_NAMES}
        self.clock = clock
        #: New for every broadcast (a restarted table is a new session); ``game`` counts
        #: the games begun in it (see :mod:`.schema`).
        self.session = session or secrets.token_hex(4)
        self.game = 0
        #: The game before this one, as it ended: a viewer that missed its end (the broker
        #: was away) finds it in the retained state.
        self.previous: Optional[Dict[str, Any]] = None
        self._reset()

    def _reset(self) -> None:
        self.game_id: Optional[int] = None
        self.rules = "official"
        self.start: Optional[str] = None
        self.fpn: Optional[str] = None
        self.moves: List[str] = []
        self.played_on: List[Dict[str, Any]] = []
        self.last_move: Optional[Dict[str, Any]] = None
        self.status = "setup"
        self.result = "*"
        self.reason: Optional[str] = None
        self.text: Optional[str] = None
        self.violation: Optional[Dict[str, Any]] = None
        self.capture_required: List[str] = []
        self.spent = {"red": 0.0, "black": 0.0}
        self.running: Optional[str] = None
        self.since = 0.0

    @property
    def started(self) -> bool:
        return self.fpn is not None

    def apply(self, event: ev.Event) -> bool:
        """Fold one event in; True when the broadcast state changed."""
        now = self.clock()
        if isinstance(event, ev.GameStarted):
            if self.started:
                self.previous = self._game_json(now)
            self._reset()
            self.game += 1
            self.game_id, self.rules = event.game_id, event.rules
            self.start = self.fpn = event.fpn
            self._status()
            return True
        if not self.started:
            return False   # events of a game that began before this broadcast
        if isinstance(event, ev.TurnStarted):
            self._switch(event.side, now)
            self.fpn = event.fpn
            self.capture_required = []
            self._status()
            return True
        if isinstance(event, ev.MoveCommitted):
            if event.ply <= len(self.moves) + len(self.played_on):
                return False   # a resumed game's history, announced again
            if event.played_on:
                self.played_on.append({"ply": event.ply, "move": event.move,
                                       "fpn": event.fpn_after})
            else:
                self.moves.append(event.move)
            self.fpn = event.fpn_after
            self.last_move = {"move": event.move, "side": event.side, "ply": event.ply,
                              "captured": list(event.captured)}
            self.violation = None
            self._status()
            return True
        if isinstance(event, ev.MoveUndone):
            if self.played_on and self.played_on[-1]["ply"] == self.plies:
                self.played_on.pop()
            elif self.moves:
                self.moves.pop()
            self.fpn = event.fpn
            self.last_move = None
            self._status()
            return True
        if isinstance(event, ev.CaptureRequired):
            self.capture_required = list(event.moves)
            self._status()
            return True
        if isinstance(event, ev.Violation):
            self.violation = {"explanation": event.explanation, "attempted": event.attempted,
                              "restore_to": event.restore_to, "cells": list(event.cells)}
            self._status()
            return True
        if isinstance(event, ev.OutOfSync):
            self.violation = {"explanation": "the board does not match the game",
                              "attempted": None, "restore_to": event.expected_fpn,
                              "cells": list(event.cells)}
            self.status = "out_of_sync"
            return True
        if isinstance(event, (ev.ViolationCleared, ev.InSync)):
            changed = self.violation is not None
            self.violation = None
            self._status()
            return changed
        if isinstance(event, ev.GameOver):
            self._switch(None, now)
            self.result, self.reason, self.text = event.result, event.reason, event.text
            self.status = "over"
            return True
        return False

    @property
    def plies(self) -> int:
        return len(self.moves) + len(self.played_on)

    def _switch(self, side: Optional[str], now: float) -> None:
        if self.running is not None:
            self.spent[self.running] += max(0.0, now - self.since)
        self.running, self.since = side, now

    def _status(self) -> None:
        if self.result != "*":
            self.status = "over"
        elif self.violation is not None:
            self.status = "violation"
        elif self.capture_required:
            self.status = "capture"
        elif self.fpn is not None and self.fpn.split()[3] != "55":
            self.status = "setup"
        else:
            self.status = "playing"

    def clocks(self, now: Optional[float] = None) -> Dict[str, Any]:
        """Each side's thinking time so far (seconds), and whose clock runs."""
        now = self.clock() if now is None else now
        spent = dict(self.spent)
        if self.running is not None:
            spent[self.running] += max(0.0, now - self.since)
        return {"red": round(spent["red"], 3), "black": round(spent["black"], 3),
                "running": self.running}

    def _game_json(self, now: float) -> Dict[str, Any]:
        return {
            "game": self.game, "game_id": self.game_id, "rules": self.rules,
            "start": self.start, "fpn": self.fpn, "moves": list(self.moves),
            "played_on": list(self.played_on), "last_move": self.last_move,
            "status": self.status, "result": self.result, "reason": self.reason,
            "text": self.text, "violation": self.violation,
            "capture_required": list(self.capture_required),
            "clocks": self.clocks(now), "tags": dict(self.tags),
        }

    def to_json(self, seq: int, sent: Optional[float] = None) -> Dict[str, Any]:
        """The retained ``state`` message (see :mod:`.schema`)."""
        sent = self.clock() if sent is None else sent
        return {"schema": schema.SCHEMA, "club": self.club, "table": self.table,
                "session": self.session, "seq": seq, "sent": sent,
                **self._game_json(sent), "previous": self.previous}

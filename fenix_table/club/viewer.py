"""The viewer's side of the broadcast: every table's latest game, from the club's topics.

:class:`Club` keeps, per table, the newest checked ``state`` message, whether the table
is online and its recent events (violations for the arbiter). Messages that fail
:func:`~.schema.read_message` are ignored with a log line (the same fault from the same
topic at most once every few seconds, so a flood cannot fill the log). :class:`Subscriber` feeds a Club from the
broker. The web application (:mod:`.web`) reads it; it never writes anything back.
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict, deque
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple

from ..referee import events as ev
from . import schema
from .mqtt import Broker, make_client, start

log = logging.getLogger(__name__)

#: Events kept per table for the arbiter's view.
EVENT_LOG = 200
#: Games kept per table (an evening's round and more).
GAMES_KEPT = 50


class TableEntry:
    """One table at the viewer: its games of this evening (the newest is the current one),
    online or not, its recent events.

    A game is kept as its newest state; a move or game over heard as an event before the
    state that holds it (or instead of it: a game that ended while the broker was away
    has its last moves only in the queued events) is folded in, so no move the table
    broadcast is missing from the round."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.online = False
        self.games: "OrderedDict[Tuple[str, int], Dict[str, Any]]" = OrderedDict()
        self.current: Optional[Tuple[str, int]] = None
        self.received = 0.0           # the viewer's clock when the current game changed
        self.events: Deque[Dict[str, Any]] = deque(maxlen=EVENT_LOG)
        self.version = 0

    @property
    def state(self) -> Optional[Dict[str, Any]]:
        return self.games.get(self.current) if self.current is not None else None

    def _keep(self, key: Tuple[str, int], game: Dict[str, Any], now: float) -> None:
        known = key in self.games
        self.games[key] = game
        if not known:
            # A new session (the table restarted), or a later game of this one.
            if self.current is None or key[0] != self.current[0] or key[1] > self.current[1]:
                self.current = key
            while len(self.games) > GAMES_KEPT:
                self.games.popitem(last=False)
        if key == self.current:
            self.received = now

    def take_state(self, data: Dict[str, Any], now: float) -> bool:
        key = (data["session"], data["game"])
        old = self.games.get(key)
        if old is not None and data["seq"] <= old["seq"]:
            return False   # older than what is known: a late retransmission
        previous = data.pop("previous", None)
        if previous is not None:
            # The game before, as it ended: kept unless this viewer saw all of it.
            before = (data["session"], previous["game"])
            known = self.games.get(before)
            if known is None or known["status"] != "over" or \
                    len(known["moves"]) + len(known["played_on"]) < \
                    len(previous["moves"]) + len(previous["played_on"]):
                self._keep(before, dict(previous, seq=data["seq"], session=data["session"],
                                        sent=data["sent"]), now)
        self._keep(key, data, now)
        return True

    def take_event(self, data: Dict[str, Any], now: float) -> bool:
        event = data["event"]
        self.events.append({"seq": data["seq"], "kind": event.kind,
                            "ply": getattr(event, "ply", None),
                            "move": getattr(event, "move", None),
                            "cells": list(getattr(event, "cells", ()) or ()),
                            "text": ev.describe(event), "received": now})
        shown = event.kind in ("violation", "out_of_sync", "violation_cleared")
        key = (data["session"], data["game"])
        game = self.games.get(key)
        if game is None:
            if not isinstance(event, ev.GameStarted):
                return shown
            from ..rules import Position
            game = {"game_id": data["game_id"], "rules": event.rules, "start": event.fpn,
                    "moves": [], "played_on": [], "last_move": None, "status": "setup",
                    "result": "*", "reason": None, "text": None, "violation": None,
                    "capture_required": [], "clocks": None, "tags": {}, "seq": data["seq"],
                    "session": data["session"], "game": data["game"], "sent": data["sent"],
                    **schema.position_fields(Position.from_fpn(event.fpn))}
            self._keep(key, game, now)
            return True
        if data["seq"] <= game["seq"]:
            return shown   # the state already holds it
        if isinstance(event, ev.MoveCommitted):
            plies = len(game["moves"]) + len(game["played_on"])
            if event.ply != plies + 1:
                return shown
            from ..rules import Position
            game = dict(game, moves=list(game["moves"]), played_on=list(game["played_on"]))
            if event.played_on:
                game["played_on"].append({"ply": event.ply, "move": event.move,
                                          "fpn": event.fpn_after})
            else:
                game["moves"].append(event.move)
            position = Position.from_fpn(event.fpn_after)
            game.update(schema.position_fields(position), seq=data["seq"], violation=None,
                        capture_required=[], sent=data["sent"],
                        last_move={"move": event.move, "side": event.side, "ply": event.ply,
                                   "captured": list(event.captured)},
                        status="setup" if position.in_setup else "playing")
        elif isinstance(event, ev.GameOver):
            game = dict(game, result=event.result, reason=event.reason, text=event.text,
                        status="over", seq=data["seq"])
        else:
            return shown
        self._keep(key, game, now)
        return True

    def in_order(self) -> List[Dict[str, Any]]:
        """The games, session by session (as first heard of), each session's by number."""
        sessions: Dict[str, int] = {}
        for session, _ in self.games:
            sessions.setdefault(session, len(sessions))
        return [self.games[key] for key in sorted(self.games,
                                                  key=lambda k: (sessions[k[0]], k[1]))]

    def to_json(self, arbiter: bool, now: float) -> Dict[str, Any]:
        state = self.state or {}
        data = game_json(self.table, state)
        data.update(online=self.online, version=self.version,
                    clock_age=round(max(0.0, now - self.received), 3) if self.state else None,
                    earlier_games=len(self.games) - (1 if self.state else 0))
        if arbiter:
            data["violation_detail"] = state.get("violation")
            data["log"] = [e for e in self.events if e["kind"] in ("violation", "out_of_sync",
                                                                   "violation_cleared")][-20:]
        return data


def game_json(table: str, state: Dict[str, Any]) -> Dict[str, Any]:
    """One game's JSON for the page, the API and the FGN export."""
    return {
        "table": table,
        "fpn": state.get("fpn"),
        "moves": list(state.get("moves", ())),
        "status": state.get("status", "waiting"),
        "result": state.get("result", "*"),
        "board": state.get("board"),
        "side": state.get("side"),
        "setup_left": state.get("setup_left"),
        "game_id": state.get("game_id"),
        "game": state.get("game"),
        "rules": state.get("rules"),
        "start": state.get("start"),
        "last_move": state.get("last_move"),
        "played_on": list(state.get("played_on", ())),
        "capture_required": list(state.get("capture_required", ())),
        "clocks": state.get("clocks"),
        "tags": state.get("tags", {}),
        "text": state.get("text"),
        "placement": state.get("placement", {}),
        "seq": state.get("seq"),
        "sent": state.get("sent"),
        "violation": bool(state.get("violation")),
    }


class Club:
    """Every table of one club (``club`` a name, or None for every club on the broker)."""

    def __init__(self, club: Optional[str] = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.club = club
        self.clock = clock
        self.tables: Dict[str, TableEntry] = {}
        self.changed = threading.Condition()
        self.version = 0
        self.ignored = 0
        self._logged: Dict[str, float] = {}

    def receive(self, topic: str, payload: bytes) -> bool:
        """One message from the broker; True when a table changed. Never raises for a bad
        message: it is counted and logged."""
        try:
            message = schema.read_message(topic, payload)
            if self.club is not None and message.club != self.club:
                raise schema.BadMessage(f"{topic[:120]}: not club {self.club}")
        except schema.BadMessage as bad:
            self._ignore(topic, str(bad))
            return False
        except Exception as error:   # a message must never bring the viewer down
            self._ignore(topic, f"{type(error).__name__}: {error}")
            return False
        with self.changed:
            entry = self.tables.get(message.table)
            if entry is None:
                entry = self.tables[message.table] = TableEntry(message.table)
            if not self._apply(entry, message):
                return False
            self.version += 1
            entry.version = self.version
            self.changed.notify_all()
        return True

    def _apply(self, entry: TableEntry, message: schema.Message) -> bool:
        data = message.data
        if message.kind == "online":
            if entry.online == data["online"]:
                return False
            entry.online = data["online"]
            return True
        if message.kind == "state":
            return entry.take_state(data, self.clock())
        return entry.take_event(data, self.clock())

    def _ignore(self, topic: str, why: str) -> None:
        self.ignored += 1
        now = time.monotonic()
        key = f"{topic[:120]} {why[:200]}"   # the same fault from the same topic: one line
        if now - self._logged.get(key, -1e9) >= 5.0:
            self._logged[key] = now
            if len(self._logged) > 10_000:
                self._logged.clear()
            log.warning("club viewer: message ignored: %s", why)

    def snapshot(self, arbiter: bool = False) -> List[Dict[str, Any]]:
        """Every table's JSON (``GET /api/tables``), by table name."""
        now = self.clock()
        with self.changed:
            return [self.tables[name].to_json(arbiter, now) for name in sorted(self.tables)]

    def round(self) -> List[Dict[str, Any]]:
        """Every game of every table this evening (oldest first per table), as game JSON."""
        with self.changed:
            return [game_json(name, game) for name in sorted(self.tables)
                    for game in self.tables[name].in_order()]

    def table(self, name: str) -> Optional[TableEntry]:
        with self.changed:
            return self.tables.get(name)

    def changes(self, since: int, arbiter: bool, timeout: float):
        """``(version, tables changed after version since)``, waiting up to ``timeout``
        seconds for one."""
        now_version = None
        with self.changed:
            if self.version <= since:
                self.changed.wait(timeout)
            now_version = self.version
            now = self.clock()
            changed = [e.to_json(arbiter, now) for e in self.tables.values()
                       if e.version > since]
        return now_version, sorted(changed, key=lambda t: t["table"])


class Subscriber:
    """Feeds ``club`` from the broker: subscribes (again after every reconnection) to
    the club's topics."""

    def __init__(self, broker: Broker, club: Club, client_id: Optional[str] = None) -> None:
        self.club = club
        self.broker = broker
        self.connected = threading.Event()
        pattern = f"{schema.ROOT}/{club.club or '+'}/+/+"
        self._pattern = pattern
        self._failing: Optional[str] = None
        # Several viewers may follow one club: each its own client id.
        client_id = client_id or f"fenix-viewer-{secrets.token_hex(4)}"
        self.client = make_client(broker, client_id, on_connect=self._on_connect,
                                  on_disconnect=self._on_disconnect,
                                  on_message=club.receive)
        self._closing = False
        start(self.client, broker)

    def _on_connect(self, ok: bool, reason: str) -> None:
        if not ok:
            if self._failing != reason:
                log.warning("club viewer: the broker %s refused the viewer: %s",
                            self.broker.url, reason)
            self._failing = reason
            return
        self._failing = None
        self.client.subscribe(self._pattern, qos=1)
        self.connected.set()
        log.info("club viewer: following %s on %s", self._pattern, self.broker.url)

    def _on_disconnect(self, reason: str) -> None:
        if self.connected.is_set() and not self._closing:
            log.warning("club viewer: lost the broker %s (%s); reconnecting", self.broker.url,
                        reason)
        self.connected.clear()

    def close(self) -> None:
        self._closing = True
        self.client.disconnect()
        self.client.loop_stop()

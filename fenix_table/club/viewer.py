"""The viewer's side of the broadcast: every table's latest game, from the club's topics.

:class:`Club` keeps, per table, the newest checked ``state`` message, whether the table
is online and its recent events (violations for the arbiter). Messages that fail
:func:`~.schema.read_message` are ignored with a log line (the same fault from the same
topic at most once every few seconds, so a flood cannot fill the log). :class:`Subscriber` feeds a Club from the
broker. The web application (:mod:`.web`) reads it; it never writes anything back.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional

from ..referee import events as ev
from . import schema
from .mqtt import Broker, make_client, start

log = logging.getLogger(__name__)

#: Events kept per table for the arbiter's view.
EVENT_LOG = 200


class TableEntry:
    def __init__(self, table: str) -> None:
        self.table = table
        self.online = False
        self.state: Optional[Dict[str, Any]] = None
        self.received = 0.0           # the viewer's clock when the state came
        self.events: Deque[Dict[str, Any]] = deque(maxlen=EVENT_LOG)
        self.version = 0

    def to_json(self, arbiter: bool, now: float) -> Dict[str, Any]:
        state = self.state or {}
        data = {
            "table": self.table,
            "online": self.online,
            "fpn": state.get("fpn"),
            "moves": list(state.get("moves", ())),
            "status": state.get("status", "waiting"),
            "result": state.get("result", "*"),
            "board": state.get("board"),
            "side": state.get("side"),
            "setup_left": state.get("setup_left"),
            "game_id": state.get("game_id"),
            "rules": state.get("rules"),
            "last_move": state.get("last_move"),
            "played_on": list(state.get("played_on", ())),
            "capture_required": list(state.get("capture_required", ())),
            "clocks": state.get("clocks"),
            "clock_age": round(max(0.0, now - self.received), 3) if self.state else None,
            "tags": state.get("tags", {}),
            "text": state.get("text"),
            "placement": state.get("placement", {}),
            "seq": state.get("seq"),
            "sent": state.get("sent"),
            "version": self.version,
            "violation": bool(state.get("violation")),
        }
        if arbiter:
            data["violation_detail"] = state.get("violation")
            data["log"] = [e for e in self.events if e["kind"] in ("violation", "out_of_sync",
                                                                   "violation_cleared")][-20:]
        return data


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
            old = entry.state
            if old is not None and old["session"] == data["session"] and \
                    data["seq"] <= old["seq"]:
                return False   # an older state, retransmitted late
            entry.state = data
            entry.received = self.clock()
            return True
        event = data["event"]
        entry.events.append({"seq": data["seq"], "kind": event.kind,
                             "ply": getattr(event, "ply", None),
                             "move": getattr(event, "move", None),
                             "cells": list(getattr(event, "cells", ()) or ()),
                             "text": ev.describe(event), "received": self.clock()})
        return event.kind in ("violation", "out_of_sync", "violation_cleared")

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

    def __init__(self, broker: Broker, club: Club, client_id: str = "fenix-viewer") -> None:
        self.club = club
        self.broker = broker
        self.connected = threading.Event()
        pattern = f"{schema.ROOT}/{club.club or '+'}/+/+"
        self._pattern = pattern
        self._failing: Optional[str] = None
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

"""The table's club broadcast: a sink of the table driver that publishes the game on MQTT.

It hears the referee's events after the record has them (see
:mod:`fenix_table.table.sinks`), folds them into a :class:`~.state.GameState` and
publishes, under ``fenix/<club>/<table>/``:

* ``event``: each broadcast event (:data:`.schema.BROADCAST_EVENTS`), QoS 1;
* ``state``: the whole game, retained, after every change;
* ``online``: ``true`` (retained) once connected; the broker's last will says ``false``.

Events go out one at a time, each after the broker acknowledged the one before: paho
sends a message published while it reconnects ahead of the ones it is sending again, so
its own queue would not keep moves in order across a lost connection. While the broker
is away, events wait in :attr:`BroadcastSink.outbox`; the state is published again on
every (re)connection. The local record never
waits for any of it: this sink runs in its own thread like every other output.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Callable, Dict, Optional

from ..referee import events as ev
from . import schema
from .mqtt import Broker, make_client, start
from .state import GameState

log = logging.getLogger(__name__)

_HANDING_OVER = object()   # outbox[0] is being handed to paho; its mid is not known yet


class BroadcastSink:
    """Publishes one table's game; see the module docstring."""

    name = "club"

    def __init__(self, broker: Broker, club: str, table: str, *,
                 tags: Optional[Dict[str, str]] = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.state = GameState(club, table, tags, clock)
        self.clock = clock
        self.broker = broker
        self.seq = 0
        self.sent_events = 0
        self.connected = threading.Event()
        self._lock = threading.RLock()
        self._failing: Optional[str] = None
        self.outbox: deque = deque()         # encoded event messages not yet acknowledged
        self._in_flight = None        # outbox[0]'s mid once handed to paho
        self._early_acks: Dict[int, bool] = {}
        self._outbox_lock = threading.Lock()
        self.client = make_client(
            broker, f"fenix-{club}-{table}", on_connect=self._on_connect,
            on_disconnect=self._on_disconnect, on_published=self._on_published,
            will=(self._topic("online"), b"false"))
        self._closing = False
        start(self.client, broker)

    def _topic(self, kind: str) -> str:
        return schema.topic(self.state.club, self.state.table, kind)

    def handle(self, event: ev.Event) -> None:
        with self._lock:
            changed = self.state.apply(event)
            if event.kind in schema.BROADCAST_EVENTS and self.state.started:
                self.seq += 1
                message = {"schema": schema.SCHEMA, "club": self.state.club,
                           "table": self.state.table, "session": self.state.session,
                           "game": self.state.game, "seq": self.seq, "sent": self.clock(),
                           "game_id": self.state.game_id, "event": event.to_json()}
                self.outbox.append(schema.encode(message))
                self.sent_events += 1
                self._send_next()
            if changed and self.connected.is_set():
                self._publish_state()

    def _send_next(self) -> None:
        # A message handed to paho stays its to send again after a lost connection; the
        # next waits for its acknowledgement. paho calls on_published holding its own
        # lock, so publish() is never called while holding _outbox_lock.
        with self._outbox_lock:
            if self._in_flight is not None or not self.outbox or not self.connected.is_set():
                return
            self._in_flight = _HANDING_OVER
            payload = self.outbox[0]
        mid = self.client.publish(self._topic("event"), payload, qos=1).mid
        with self._outbox_lock:
            self._in_flight = mid
            acknowledged = self._early_acks.pop(mid, False)
        if acknowledged:
            self._on_published(mid)

    def _on_published(self, mid: int) -> None:
        with self._outbox_lock:
            if self._in_flight is _HANDING_OVER:
                self._early_acks[mid] = True   # acknowledged before publish() returned
                return
            if mid != self._in_flight:
                return
            self.outbox.popleft()
            self._in_flight = None
        self._send_next()

    def _publish_state(self):
        self.seq += 1
        return self.client.publish(self._topic("state"),
                                   schema.encode(self.state.to_json(self.seq)),
                                   qos=1, retain=True)

    def _on_connect(self, ok: bool, reason: str) -> None:
        if not ok:
            if self._failing != reason:
                log.warning("club broadcast: %s cannot broadcast on %s: %s (trying again)",
                            self.state.table, self.broker.url, reason)
            self._failing = reason
            return
        if self._failing is not None:
            log.info("club broadcast: connected to %s again", self.broker.url)
        self._failing = None
        with self._lock:
            self.client.publish(self._topic("online"), b"true", qos=1, retain=True)
            if self.state.started:
                self._publish_state()   # what changed while away, all at once
            self.connected.set()
            self._send_next()

    def _on_disconnect(self, reason: str) -> None:
        if self.connected.is_set() and not self._closing:
            log.warning("club broadcast: lost the broker %s (%s); moves are queued and "
                        "sent once it is back", self.broker.url, reason)
        self.connected.clear()

    def close(self, timeout: float = 2.0) -> None:
        """Say the table is going offline, send what is queued (up to ``timeout``), stop."""
        self._closing = True
        with self._lock:
            if self.connected.is_set():
                info = self.client.publish(self._topic("online"), b"false", qos=1, retain=True)
                try:
                    info.wait_for_publish(timeout)
                except (RuntimeError, ValueError):   # the broker went away meanwhile
                    pass
        self.client.disconnect()
        self.client.loop_stop()

"""The table's club broadcast: a sink of the table driver that publishes the game on MQTT.

It hears the referee's events after the record has them (see
:mod:`fenix_table.table.sinks`), folds them into a :class:`~.state.GameState` and
publishes, under ``fenix/<club>/<table>/``:

* ``event``: each broadcast event (:data:`.schema.BROADCAST_EVENTS`), QoS 1;
* ``state``: the whole game, retained, after every change;
* ``online``: ``true`` (retained) once connected; the broker's last will says ``false``.

While the broker is away, events are queued in the MQTT client and go out in order when
it is back; the state is published again on every (re)connection. The local record never
waits for any of it: this sink runs in its own thread like every other output.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable, Dict, Optional

from ..referee import events as ev
from . import schema
from .mqtt import Broker, make_client, start
from .state import GameState

log = logging.getLogger(__name__)


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
        self.client = make_client(
            broker, f"fenix-{club}-{table}", on_connect=self._on_connect,
            on_disconnect=self._on_disconnect,
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
                # Queued by the client while the broker is away, sent in order after.
                self.client.publish(self._topic("event"), schema.encode(message), qos=1)
                self.sent_events += 1
            if changed and self.connected.is_set():
                self._publish_state()

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

"""The table's outputs: the game record first, then every sink, each guarded.

Like :mod:`logging`'s handlers: one stream of referee events, many subscribers. A sink is
any object with a ``name`` and ``handle(event)``; optional ``close()``. Sinks marked
``inline = True`` (the display model, which the drawing reads on the main thread) are
called in the loop; every other sink gets a thread and a queue of its own, so one that
blocks (a printer into a stalled pipe, a broker that does not answer) never slows the
camera loop.

A sink that raises is logged once with its name and called again with the next event;
it never stops the table. The record is not a sink among others: it is written first
and synchronously, and the other sinks hear of a batch only once it is on disk. When the
record cannot be written, the batch waits (the record keeps it queued) and the sinks are
told so with a :class:`~fenix_table.referee.events.Notice`.
"""
from __future__ import annotations

import json
import logging
import queue
import sys
import threading
from typing import List, Optional, Sequence, TextIO

from ..referee import events as ev

log = logging.getLogger(__name__)

#: Events a background sink may fall behind by before newer ones are dropped for it.
QUEUE_LIMIT = 1000


class _Guarded:
    """Calls one sink, logging its first failure of a run of failures."""

    def __init__(self, sink) -> None:
        self.sink = sink
        self.name = str(getattr(sink, "name", type(sink).__name__))
        self.failing = False
        self.failures = 0

    def call(self, event: ev.Event) -> bool:
        try:
            changed = bool(self.sink.handle(event))
        except Exception as error:   # an output's fault must never stop the table
            self.failures += 1
            if not self.failing:
                log.warning("output %s failed: %s: %s (it is called again with the next "
                            "event)", self.name, type(error).__name__, error)
            self.failing = True
            return False
        if self.failing:
            log.info("output %s works again", self.name)
            self.failing = False
        return changed

    def deliver(self, events: Sequence[ev.Event]) -> bool:
        changed = False
        for event in events:
            changed = self.call(event) or changed
        return changed

    def close(self) -> None:
        close = getattr(self.sink, "close", None)
        if close is not None:
            try:
                close()
            except Exception as error:
                log.warning("output %s did not close: %s", self.name, error)


class _Background(_Guarded):
    """A sink fed from its own thread through a bounded queue."""

    def __init__(self, sink) -> None:
        super().__init__(sink)
        self.queue: "queue.Queue" = queue.Queue(maxsize=QUEUE_LIMIT)
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name=f"fenix-{self.name}",
                                         daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            if event is None:
                return
            self.call(event)

    def deliver(self, events: Sequence[ev.Event]) -> bool:
        for event in events:
            try:
                self.queue.put_nowait(event)
            except queue.Full:
                if not self.dropped:
                    log.warning("output %s is not keeping up: events dropped for it", self.name)
                self.dropped += 1
        return False

    def close(self, timeout: float = 2.0) -> None:
        """Let the sink finish what it was given (up to ``timeout`` seconds), then close it."""
        try:
            self.queue.put(None, timeout=timeout)
        except queue.Full:
            pass
        self._thread.join(timeout)
        super().close()


class Outputs:
    """Where the referee's events go. ``record``: a
    :class:`~fenix_table.record.GameRecorder` (or None: nothing recorded); ``sinks``:
    the other outputs, in the order they should hear of events."""

    def __init__(self, record=None, sinks: Sequence[object] = ()) -> None:
        self.record = record
        self._sinks: List[_Guarded] = []
        self._record_failing = False
        for sink in sinks:
            self.add(sink)

    def add(self, sink) -> None:
        """Subscribe one more sink."""
        guarded = _Guarded(sink) if getattr(sink, "inline", False) else _Background(sink)
        self._sinks.append(guarded)

    @property
    def names(self) -> List[str]:
        return [s.name for s in self._sinks]

    def publish(self, events: Sequence[ev.Event], still=None) -> bool:
        """Record ``events``, then hand them to every sink. Returns whether an inline sink
        (the display model) changed. ``still``: the frame they were judged on."""
        if self.record is not None:
            try:
                self.record.handle(events, still)
            except Exception as error:
                if not self._record_failing:
                    log.error("the game record cannot be written: %s", error)
                self._record_failing = True
                notice = ev.Notice(code="record_failing",
                                   message=f"the game record cannot be written ({error}); "
                                           f"moves are kept and written when it works again")
                return self._deliver([e for e in events if not _recorded(e)] + [notice])
            self._record_failing = False
        return self._deliver(events)

    def _deliver(self, events: Sequence[ev.Event]) -> bool:
        changed = False
        for sink in self._sinks:
            changed = sink.deliver(events) or changed
        return changed

    def close(self) -> None:
        for sink in self._sinks:
            sink.close()


def _recorded(event: ev.Event) -> bool:
    """Events other outputs must not hear before the record has them."""
    return isinstance(event, (ev.MoveCommitted, ev.MoveUndone, ev.GameOver))


class EventPrinter:
    """Prints each event as a line of plain English after its camera frame number, or
    as one JSON line (``fenix-table track``)."""

    name = "printer"

    def __init__(self, out: Optional[TextIO] = None, *, as_json: bool = False) -> None:
        self.out = out if out is not None else sys.stdout
        self.as_json = as_json

    def handle(self, event: ev.Event) -> None:
        if self.as_json:
            self.out.write(json.dumps(event.to_json()) + "\n")
        elif event.kind != "board_view":
            frame = "" if event.frame is None else event.frame
            self.out.write(f"{frame:>6}  {ev.describe(event)}\n")
        self.out.flush()

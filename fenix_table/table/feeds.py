"""Where the table's frames come from: a live camera, or a recording played in order.

Both give the loop the same small interface — ``start()``, ``latest(timeout)`` returning
``(index, frame)`` or None, ``lost()``, ``ended`` and ``stop()`` — so ``run``, ``demo`` and
``track`` differ only in the feed they are given:

* :class:`FrameGrabber` owns a live camera in a thread and keeps only the newest frame, so
  the loop runs at the camera's pace and never works through a queue of stale frames. A
  source that fails is closed and reopened; one that stalls is reported as lost.
* :class:`RecordedFeed` hands out every frame of a video or an image folder, in order, at
  the recorded pace or as fast as the loop takes them. An unreadable frame is skipped
  with a warning, never the end of the recording.
"""
from __future__ import annotations

import logging
import threading
from collections import deque
import time
from typing import Callable, Deque, Optional, Tuple

from ..errors import CameraError

log = logging.getLogger(__name__)


class FrameGrabber:
    """Reads frames in a background thread, keeping only the newest.

    ``open_source`` returns a :class:`~fenix_table.vision.FrameSource` (or raises
    CameraError); after a failure it is called again, first ``retry_seconds`` later, then
    after twice as long each time up to ``max_retry_seconds`` (back to ``retry_seconds``
    once frames come). A source that ends (a video file) sets :attr:`ended`.

    :meth:`latest` hands each frame out at most once; frames replaced before anyone took
    them are counted in :attr:`dropped`. :meth:`lost` is the camera-lost message (or
    None): the last failure, or "no picture for N s" when frames stop coming.
    """

    def __init__(self, open_source: Callable[[], object], *, retry_seconds: float = 1.0,
                 max_retry_seconds: float = 30.0, stall_seconds: float = 3.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._open = open_source
        self.retry_seconds = retry_seconds
        self.max_retry_seconds = max(retry_seconds, max_retry_seconds)
        self._backoff = retry_seconds
        # The latest waits before a retry, seconds (the backoff); bounded, as a table may
        # run for weeks without its camera.
        self.waits: Deque[float] = deque(maxlen=64)
        self.stall_seconds = stall_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._fresh = threading.Event()
        self._stop = threading.Event()
        self._slot: Optional[Tuple[int, object]] = None
        self._thread: Optional[threading.Thread] = None
        self._source = None
        self.error: Optional[str] = None
        self.ended = False
        self.read = 0
        self.dropped = 0
        self.failures = 0
        self.last_frame_at: Optional[float] = None
        self.started_at = clock()

    def start(self) -> "FrameGrabber":
        if self._thread is not None:
            return self   # already running: the camera has one owner
        self.started_at = self.clock()
        self._thread = threading.Thread(target=self._run, name="fenix-camera", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        index = 0
        while not self._stop.is_set():
            if self._source is None:
                try:
                    self._source = self._open()
                except CameraError as error:
                    self._failed(str(error))
                    continue
            try:
                frame = self._source.read()
            except StopIteration:
                self.ended = True
                self._fresh.set()
                break
            except CameraError as error:
                self._close_source()
                self._failed(str(error))
                continue
            with self._lock:
                if self._slot is not None:
                    self.dropped += 1
                self._slot = (index, frame)
                self.read += 1
                self.error = None
                self.last_frame_at = self.clock()
            self._backoff = self.retry_seconds   # delivering again: the next retry is quick
            index += 1
            self._fresh.set()
        self._close_source()

    def _failed(self, message: str) -> None:
        with self._lock:
            self.error = message
            self.failures += 1
        wait, self._backoff = self._backoff, min(self._backoff * 2, self.max_retry_seconds)
        self.waits.append(wait)
        log.warning("camera: %s (trying again in %.0f s)", message, wait)
        self._stop.wait(wait)

    def _close_source(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            try:
                source.close()
            except Exception:  # closing a broken camera must not end the game
                pass

    def latest(self, timeout: float = 0.0) -> Optional[Tuple[int, object]]:
        """``(index, frame)`` of the newest frame not handed out yet, else None (after
        waiting up to ``timeout`` seconds for one)."""
        if timeout and not self._fresh.is_set():
            self._fresh.wait(timeout)
        with self._lock:
            slot, self._slot = self._slot, None
            self._fresh.clear()
        return slot

    def lost(self) -> Optional[str]:
        """Why there is no picture, or None while frames arrive."""
        with self._lock:
            if self.error is not None:
                return self.error
            last = self.last_frame_at if self.last_frame_at is not None else self.started_at
        if not self.ended and self.clock() - last > self.stall_seconds:
            return f"no picture for {self.clock() - last:.0f} s"
        return None

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)


class RecordedFeed:
    """Every frame of ``source`` (a :class:`~fenix_table.vision.FrameSource` over a video or
    folder), in order. ``fps``: hand frames out at that pace (a recording shown to
    people); None: as fast as they are asked for (``track``). ``hold``: after the last
    frame the feed never ends, like a camera looking at a board nobody touches (the demo
    in a window stays up until it is closed)."""

    #: Unreadable frames in a row after which the recording counts as a lost camera.
    LOST_AFTER = 5

    def __init__(self, source, fps: Optional[float] = None, hold: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.fps = fps
        self.hold = hold
        self.finished = False
        self.clock = clock
        self.ended = False
        self.read = 0
        self.skipped = 0
        self.bad_run = 0          # unreadable frames in a row, now
        self._last_error = ""
        self._index = 0
        self._due: Optional[float] = None

    def start(self) -> "RecordedFeed":
        self._due = self.clock()
        return self

    def latest(self, timeout: float = 0.0) -> Optional[Tuple[int, object]]:
        if self.finished:
            time.sleep(timeout if self.hold else 0.0)
            return None
        if self.fps:
            wait = (self._due if self._due is not None else self.clock()) - self.clock()
            if wait > timeout:
                time.sleep(max(0.0, timeout))
                return None
            if wait > 0:
                time.sleep(wait)
        index = self._index
        self._index += 1
        try:
            frame = self.source.read()
        except StopIteration:
            self.finished = True
            self.ended = not self.hold
            return None
        except CameraError as error:
            # One turn of the loop per unreadable frame, so a run of them shows as a
            # lost camera while it lasts.
            self.skipped += 1
            self.bad_run += 1
            self._last_error = str(error)
            log.warning("frame %d skipped: %s", index, error)
            if self.fps:
                self._due = max(self._due or 0.0, self.clock() - 1.0) + 1.0 / self.fps
            return None
        self.bad_run = 0
        self.read += 1
        if self.fps:
            self._due = max(self._due or 0.0, self.clock() - 1.0) + 1.0 / self.fps
        return index, frame

    def lost(self) -> Optional[str]:
        """"N unreadable frames in a row" while a run of at least :attr:`LOST_AFTER`
        lasts, else None."""
        if self.bad_run >= self.LOST_AFTER:
            return f"{self.bad_run} unreadable frames in a row ({self._last_error})"
        return None

    def stop(self) -> None:
        try:
            self.source.close()
        except Exception:   # closing a finished recording must not end the run badly
            pass

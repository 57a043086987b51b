"""The table's main loop: camera → vision → referee → display, lights and record.

Three parts, each usable alone:

* :class:`FrameGrabber` owns the camera in a thread and keeps only the newest frame, so
  the loop runs at the camera's pace and never works through a queue of stale frames. A
  source that fails is closed and reopened; one that stalls is reported as lost.
* :class:`Table` is one game at the table: it feeds frames to
  :class:`~fenix_table.vision.Vision`, stable observations to the
  :class:`~fenix_table.referee.Referee`, and the referee's events to the
  :class:`~fenix_table.display.model.TableModel` and the lights. Players' requests
  (:class:`~fenix_table.display.controls.Action`) reach the game only through the
  referee's own methods.
* :func:`run_loop` drives both with a pygame screen until the players quit, the source
  ends, or SIGTERM / Ctrl-C arrives; every committed move is already on disk, so ending
  at any moment loses nothing.
"""
from __future__ import annotations

import logging
import os
import queue
import signal
import threading
import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

from ..errors import CameraError, FenixError
from ..referee import events as ev
from .model import TableModel

log = logging.getLogger(__name__)


class FrameGrabber:
    """Reads frames in a background thread, keeping only the newest.

    ``open_source`` returns a :class:`~fenix_table.vision.FrameSource` (or raises
    CameraError); it is called again ``retry_seconds`` after the source fails. A source
    that ends (a video file) sets :attr:`ended`.

    :meth:`latest` hands each frame out at most once; frames replaced before anyone took
    them are counted in :attr:`dropped`. :meth:`lost` is the camera-lost message (or
    None): the last failure, or "no picture for N s" when frames stop coming.
    """

    def __init__(self, open_source: Callable[[], object], *, retry_seconds: float = 1.0,
                 stall_seconds: float = 3.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._open = open_source
        self.retry_seconds = retry_seconds
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
            index += 1
            self._fresh.set()
        self._close_source()

    def _failed(self, message: str) -> None:
        with self._lock:
            self.error = message
            self.failures += 1
        log.warning("camera: %s", message)
        self._stop.wait(self.retry_seconds)

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


@dataclass(frozen=True)
class GameSetup:
    """What a new game needs: board side, rules preset (with option overrides), mode."""

    size: str = "9x9"
    preset: str = "official"
    mode: str = "referee"
    options: Tuple[Tuple[str, object], ...] = ()


class Table:
    """One table: vision, referee, model, lights. See the module docstring.

    ``store``: a GameStore (None: nothing recorded); ``lights``: anything with
    ``handle(event)`` (None: no lights); ``stable_frames``: passed to Vision;
    ``calibration``: a saved :class:`~fenix_table.vision.Calibration` to start from;
    ``listeners``: callables given every batch of referee events (after the model).
    """

    def __init__(self, setup: GameSetup = GameSetup(), *, store=None, lights=None,
                 stable_frames: int = 3, calibration=None, model: Optional[TableModel] = None,
                 resume: Optional[int] = None, vision_board: Optional[str] = None,
                 listeners: Tuple[Callable[[List[ev.Event]], None], ...] = ()) -> None:
        self.store = store
        self.listeners = tuple(listeners)
        self.lights = lights
        self.stable_frames = stable_frames
        self.model = model if model is not None else TableModel()
        self.setup = setup
        self.vision_board = vision_board
        self.frame = None
        self.result = None
        self.referee = None
        self.vision = None
        self.message: Optional[str] = None   # the last refused request, one line
        self._calibration = calibration
        self._camera_ok = True
        # Requests from other threads (GPIO buttons): only the main loop touches the referee.
        self.requests: "queue.SimpleQueue" = queue.SimpleQueue()
        if lights is not None and hasattr(lights, "on_move_done"):
            from .controls import Action
            lights.on_move_done = lambda: self.requests.put(Action("move_done"))
            lights.on_clock = lambda side: self.requests.put(Action("clock", (("side", side),)))
        self.new_game(setup, resume=resume)

    # -- the game ---------------------------------------------------------------------
    def new_game(self, setup: GameSetup, resume: Optional[int] = None) -> None:
        """Start a game (or resume the stored unfinished game ``resume``)."""
        from ..referee import Referee
        from ..rules import Rules
        from ..vision import Vision

        rules = Rules.preset(setup.preset, **dict(setup.options))
        referee = Referee(rules=rules, board=setup.size, mode=setup.mode, store=self.store,
                          game_id=resume)
        self.setup = setup
        self.referee = referee
        board = self.vision_board or referee.position.size
        calibration = self._calibration
        if calibration is not None and calibration.board != board:
            calibration = None
        self.vision = Vision(board=board, calibration=calibration,
                             stable_frames=self.stable_frames)
        self.model.mode = setup.mode
        self._emit(referee.begin())

    def _emit(self, events: List[ev.Event]) -> bool:
        changed = self.model.apply_all(events)
        for listener in self.listeners:
            listener(events)
        if self.lights is not None:
            for event in events:
                try:
                    self.lights.handle(event)
                except Exception as error:  # a broken LED must not stop the referee
                    log.warning("lights: %s", error)
        return changed

    # -- the camera -------------------------------------------------------------------
    def feed(self, frame, index: int) -> bool:
        """One camera frame through vision and (when the board is still) the referee.
        Returns whether the picture changed."""
        self.frame = frame
        result = self.vision.process(frame, index)
        self.result = result
        obs = result.observation
        changed = self.camera(True)
        view = ev.BoardView(board_found=result.status != "board_not_found",
                            hand=result.status == "hand",
                            occluded_cells=tuple(sorted(obs.occluded_cells)))
        changed = self.model.apply(view) or changed
        if result.stable is not None:
            events = [e for e in self.referee.observe(result.stable) if e.kind != "board_view"]
            changed = self._emit(events) or changed
            seen = self.referee.seen_position(events)
            if seen is not None:
                self.vision.learn(seen)
        return changed

    def camera(self, ok: bool) -> bool:
        """Tell the table whether the camera delivers; a change is shown (and lit)."""
        if ok == self._camera_ok:
            return False
        self._camera_ok = ok
        view = self.model.view
        event = ev.BoardView(board_found=view.board_found if ok else False,
                             hand=view.hand if ok else False,
                             occluded_cells=view.occluded_cells if ok else (), camera_ok=ok)
        if not ok:
            self.frame = None
        return self._emit([event])

    # -- the players ------------------------------------------------------------------
    def actions(self, event, ui, layout) -> list:
        """What one pygame ``event`` asks of this table
        (:func:`~fenix_table.display.controls.handle` given the table's state)."""
        from .controls import handle
        model = self.model
        return handle(event, ui, layout, side_to_move=model.side,
                      draw_offered=model.draw_offer is not None,
                      history_len=len(model.review_history()[0]),
                      image_size=_image_size(self.frame),
                      choices=model.choices(), fixes=model.fixes(), board=model.size)

    def act(self, action) -> bool:
        """Carry out one :class:`~fenix_table.display.controls.Action` (except ``quit``).
        A request the rules refuse is shown as a notice, never raised."""
        self.message = None
        try:
            return self._act(action)
        except FenixError as error:
            self.message = str(error)
            return self.model.apply(ev.Notice(code="refused", message=str(error)))

    def _act(self, action) -> bool:
        name = action.name
        ref = self.referee
        if name == "new_game":
            self.new_game(GameSetup(str(action.arg("size", self.setup.size)),
                                    str(action.arg("preset", self.setup.preset)),
                                    str(action.arg("mode", self.setup.mode)), self.setup.options))
            return True
        if name == "undo":
            return self._emit(ref.undo())
        if name == "offer_draw":
            return self._emit(ref.offer_draw(action.arg("side")))
        if name == "accept_draw":
            return self._emit(ref.accept_draw())
        if name == "decline_draw":
            self.model.decline_draw()
            return True
        if name == "resign":
            return self._emit(ref.resign(str(action.arg("side"))))
        if name == "confirm":
            return self._emit(ref.confirm(tuple(action.arg("tokens", ()))))
        if name == "play_on":
            return self._emit(ref.play_on())
        if name == "move_done":
            # The move button: judge the board as it is now, without waiting for it to
            # stay still for stable_frames.
            if self.result is None or self.result.status != "ok":
                raise CameraError("move done: the camera does not see the whole board")
            return self._emit([e for e in ref.observe(self.result.observation)
                               if e.kind != "board_view"])
        if name == "clock":
            # A chess-clock press: the presser's time stops at once, whatever the camera
            # has judged yet (the referee's next turn switches it the same way).
            return self.model.press_clock(str(action.arg("side")))
        if name == "review_game":
            return self._review(int(action.arg("step", 0)))
        if name == "calibrate_auto":
            self._calibration = None
            self.vision = type(self.vision)(board=self.vision.board, stable_frames=self.stable_frames)
            return True
        if name == "calibrate_corners":
            from ..vision import Calibration
            if self.frame is None:
                raise CameraError("no camera picture to calibrate on")
            h, w = self.frame.shape[:2]
            board = self.referee.position.size
            calibration = Calibration.from_corners(board, (w, h), action.arg("corners"))
            self._calibration = calibration
            self.vision = type(self.vision)(board=board, calibration=calibration,
                                            stable_frames=self.stable_frames)
            return True
        return False

    def _review(self, step: int) -> bool:
        """Step to an older (-1) or newer (+1) stored game, or back to this one (0)."""
        from .model import ReviewedGame
        if step == 0:
            self.model.reviewed = None
            return True
        ids = [g.id for g in self.store.list_games()] if self.store is not None else []
        current = self.model.reviewed.id if self.model.reviewed is not None else \
            self.referee.game_id
        others = [i for i in ids if (i < current if step < 0 else i > current)] \
            if current is not None else ids
        if not others:
            return self.model.apply(ev.Notice(code="no_other_game", message="no other saved game"))
        chosen = max(others) if step < 0 else min(others)
        if chosen == self.referee.game_id:
            self.model.reviewed = None
        else:
            self.model.reviewed = ReviewedGame.from_store(self.store, chosen)
        return True

    def grid(self):
        """The detected grid for the camera inset (a CameraGrid), or None."""
        from .render import CameraGrid
        calibration = self.result.calibration if self.result is not None else None
        if calibration is None:
            return None
        files, ranks = (9, 9) if calibration.board == "9x9" else (7, 8)
        return CameraGrid(files, ranks, tuple(tuple(c) for c in calibration.corners))


# -- the screen ----------------------------------------------------------------------------

HEADLESS_DRIVERS = ("dummy", "offscreen")


def open_screen(fullscreen: Optional[bool] = None, size: Tuple[int, int] = (0, 0),
                allow_headless: bool = False):
    """Open the display: a window on a desktop, fullscreen KMS/DRM on a Pi console.

    ``fullscreen`` None chooses by session: fullscreen without a desktop, a window with
    one. Returns ``(surface, headless)``; without any screen, returns an off-screen
    surface of ``size`` (default 800x480) when ``allow_headless``, else raises
    CameraError-like FenixError saying so.
    """
    import pygame

    desktop = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) \
        or os.name == "nt" or os.uname().sysname == "Darwin"
    if not desktop and "SDL_VIDEODRIVER" not in os.environ:
        os.environ["SDL_VIDEODRIVER"] = "kmsdrm"   # Raspberry Pi OS Lite: no X, draw on DRM
    try:
        pygame.display.init()
    except pygame.error:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        pygame.display.init()
    pygame.font.init()
    headless = pygame.display.get_driver() in HEADLESS_DRIVERS
    if headless:
        if not allow_headless:
            raise FenixError("no screen found: run on the Pi's display or a desktop "
                             "(set DISPLAY), or use 'fenix-table track' without a screen")
        width, height = size if size[0] and size[1] else (800, 480)
        return pygame.Surface((width, height)), True
    if fullscreen is None:
        fullscreen = not desktop
    pygame.display.set_caption("Fenix Table")
    if fullscreen:
        surface = pygame.display.set_mode(size if size[0] and size[1] else (0, 0),
                                          pygame.FULLSCREEN)
        pygame.mouse.set_visible(desktop)
    else:
        surface = pygame.display.set_mode(size if size[0] and size[1] else (1024, 600),
                                          pygame.RESIZABLE)
    return surface, False


class _Stop:
    """SIGTERM (systemd stop) and SIGINT end the loop at the next turn of it."""

    def __init__(self) -> None:
        self.requested = False
        self._previous = {}

    def __enter__(self) -> "_Stop":
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:   # not the main thread (tests): Ctrl-C stays an exception
                pass
        return self

    def _handle(self, signum, frame) -> None:
        self.requested = True

    def __exit__(self, *exc) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)


def run_loop(table: Table, grabber: FrameGrabber, surface, ui, *, headless: bool = False,
             max_seconds: Optional[float] = None, on_frame=None, redraw_seconds: float = 0.5,
             stop: Optional[Callable[[], bool]] = None, watchdog=None) -> str:
    """Drive ``table`` from ``grabber`` and draw on ``surface`` until one of: the players
    quit ("quit"), the source ends ("ended"), a signal ("signal"), ``stop()`` turns true
    or ``max_seconds`` pass ("stopped"). Returns that reason.

    ``on_frame(surface)`` is called after each drawing (the demo saves it).
    ``watchdog`` (a :class:`~fenix_table.watchdog.Watchdog`) hears READY=1 when the loop
    starts, WATCHDOG=1 after each processed frame (a hung camera stops them, and systemd
    restarts the service) and STOPPING=1 on the way out.
    Requests queued on ``table.requests`` (GPIO buttons) are carried out here, in order.
    """
    import pygame

    from .render import Renderer

    renderer = Renderer()
    began = time.monotonic()
    last_draw = 0.0
    if watchdog is not None:
        watchdog.ready("table running")
    try:
        with _Stop() as signals:
            while True:
                if signals.requested:
                    return "signal"
                if (stop is not None and stop()) or \
                        (max_seconds is not None and time.monotonic() - began > max_seconds):
                    return "stopped"
                dirty = False
                if not headless:
                    for event in pygame.event.get():
                        if event.type == pygame.VIDEORESIZE:
                            surface = pygame.display.get_surface()
                            dirty = True
                            continue
                        if renderer.layout is None:
                            continue
                        for action in table.actions(event, ui, renderer.layout):
                            if action.name == "quit":
                                return "quit"
                            dirty = table.act(action) or dirty
                        dirty = dirty or ui.dirty
                while True:
                    try:
                        request = table.requests.get_nowait()
                    except queue.Empty:
                        break
                    dirty = table.act(request) or dirty
                got = grabber.latest(timeout=0.03)
                if got is not None:
                    index, frame = got
                    dirty = table.feed(frame, index) or True
                    if watchdog is not None:
                        watchdog.ping()
                lost = grabber.lost()
                dirty = table.camera(lost is None) or dirty
                if grabber.ended and got is None:
                    return "ended"
                now = time.monotonic()
                if dirty or now - last_draw >= redraw_seconds:
                    renderer.draw(surface, table.model, ui, table.frame, table.grid())
                    ui.dirty = False
                    last_draw = now
                    if not headless:
                        pygame.display.flip()
                    if on_frame is not None:
                        on_frame(surface)
    finally:
        if watchdog is not None:
            watchdog.stopping()


def _image_size(frame) -> Optional[Tuple[int, int]]:
    return None if frame is None else (frame.shape[1], frame.shape[0])

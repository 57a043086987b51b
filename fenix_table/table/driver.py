"""One table driver for ``run``, ``demo`` and ``track``: frames in, events out.

* :class:`Table` is one game at the table. It feeds frames to
  :class:`~fenix_table.vision.Vision`, stable observations to the
  :class:`~fenix_table.referee.Referee`, and the referee's events to its
  :class:`~fenix_table.table.sinks.Outputs`: the game record first, then every sink (the
  display model, the lights, the event printer, ...). Requests from people (touches,
  keys, GPIO buttons, a scripted player) are :class:`Action` values; they reach the game
  only through the referee's own methods.
* :func:`run` drives a table from a feed (:mod:`.feeds`) until the players quit, the feed
  ends, SIGTERM / Ctrl-C arrives or ``stop()`` says so. Requests wait in
  ``table.requests`` and are carried out in the loop, in order, whoever sent them. A
  ``screen`` (the display), when given, turns input into requests and draws only when
  something changed. Every committed move is on disk before anything else hears of it,
  so ending at any moment loses nothing.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import queue
import signal
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import CameraError, FenixError
from ..referee import events as ev
from .sinks import Outputs

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Action:
    """One request to the table: ``name`` plus small, hashable arguments, e.g.
    ``Action("confirm", (("tokens", ("a1-b1",)),))``.

    Names: ``new_game`` (size, preset, mode, computer: the side it plays or "none",
    level), ``undo``, ``offer_draw``, ``accept_draw``,
    ``decline_draw``, ``resign`` (side), ``confirm`` (tokens: the plies that happened, or
    none to confirm the board), ``play_on``, ``move_done`` (the move button: judge the
    board now), ``clock`` (side: that side pressed its clock button), ``review_game``
    (step: -1 an older stored game, +1 a newer one, 0 back to this game),
    ``calibrate_auto``, ``calibrate_corners`` (corners: four image points, a1's corner
    first, along rank 1), ``quit``; from the computer (:mod:`.computer`):
    ``computer_thinking`` (fpn, depth), ``computer_move`` (fpn, token, depth, score);
    for the coach: ``hint`` (the best move for the side to move), ``coach_review``
    (game: a stored game's id, its review) and from it (:mod:`.computer`)
    ``hint_thinking``, ``hint_found`` and ``review_progress``, for the display.
    """

    name: str
    args: Tuple[Tuple[str, object], ...] = ()

    def arg(self, key: str, default=None):
        return dict(self.args).get(key, default)


@dataclass(frozen=True)
class GameSetup:
    """What a new game needs: board side, rules preset (with option overrides), mode,
    and the record's tags (players, event, site)."""

    size: str = "9x9"
    preset: str = "official"
    mode: str = "referee"
    options: Tuple[Tuple[str, object], ...] = ()
    tags: Tuple[Tuple[str, str], ...] = ()
    start_fpn: Optional[str] = None
    #: Whether people at the table answer the referee's questions (False: ``track``).
    asking: bool = True
    #: The side the computer plays ("red" or "black"; None: people play both), its level
    #: (1 to 8) and seconds a move (:mod:`.computer`).
    computer: Optional[str] = None
    computer_level: int = 4
    computer_movetime: float = 2.0


class Table:
    """One game at the table; see the module docstring.

    ``record``: a :class:`~fenix_table.record.GameRecorder` (None: nothing recorded);
    ``sinks``: the other outputs (each with ``name`` and ``handle(event)``);
    ``model``: the display model when there is a display (the table keeps its clocks,
    draw offers and game review); ``stable_frames``: passed to Vision;
    ``calibration``: a saved :class:`~fenix_table.vision.Calibration` to start from;
    ``vision_board``: the face vision looks for ("auto": found from the frames, the game
    then starts on it); ``resume``: the stored, unfinished game to go on with; ``live``:
    the frames come from a live camera, so the board search runs beside the loop
    (:class:`~fenix_table.vision.Vision`'s ``search_apart``) rather than holding up the
    display and the buttons.
    """

    def __init__(self, setup: GameSetup = GameSetup(), *, record=None, sinks: Sequence = (),
                 model=None, stable_frames: int = 3, calibration=None,
                 vision_board: Optional[str] = None, resume: Optional[int] = None,
                 live: bool = False) -> None:
        self.model = model
        self.live = live
        self.outputs = Outputs(record, ([model] if model is not None else []) + list(sinks))
        self.record = record
        self.stable_frames = stable_frames
        self.setup = setup
        self.vision_board = vision_board
        self.frame = None
        self.index = -1
        self.result = None
        self.referee = None
        self.vision = None
        self.message: Optional[str] = None   # the last refused request, one line
        self.computer = None                 # the computer opponent (GameSetup.computer)
        self.coach = None                    # hints and reviews, made when first asked
        self._calibration = calibration
        self._camera_ok = True
        self._view: Optional[ev.BoardView] = None
        # Requests from any thread (GPIO buttons, a scripted player): the loop carries them out.
        self.requests: "queue.SimpleQueue[Action]" = queue.SimpleQueue()
        for sink in sinks:
            if hasattr(sink, "on_move_done"):   # a device with buttons asks through the queue
                sink.on_move_done = lambda: self.requests.put(Action("move_done"))
                sink.on_clock = lambda side: self.requests.put(Action("clock", (("side", side),)))
        if vision_board == "auto" and resume is None and setup.start_fpn is None:
            self._start_vision("auto")   # the game starts once the face is known
        else:
            self.new_game(setup, resume=resume)

    # -- the game ---------------------------------------------------------------------
    @property
    def game_id(self) -> Optional[int]:
        return self.record.game_id if self.record is not None else None

    def new_game(self, setup: GameSetup, resume: Optional[int] = None) -> bool:
        """Start a game (or go on with the stored unfinished game ``resume``)."""
        from ..referee import Referee
        from ..rules import Position, Rules

        if resume is not None:
            if self.record is None:
                raise FenixError("resuming a game needs the game archive")
            history, info = self.record.resume(resume)
            setup = dataclasses.replace(setup, size=history.start.size, mode=info.mode
                                        if info.mode in ("referee", "casual") else setup.mode)
            referee = Referee(mode=setup.mode, game_id=resume, history=history,
                              asking=setup.asking, computer=setup.computer)
        else:
            rules = Rules.preset(setup.preset, **dict(setup.options))
            start = Position.from_fpn(setup.start_fpn) if setup.start_fpn else \
                Position.start(setup.size)
            game_id = self.record.new_game(start, rules, setup.mode, dict(setup.tags)) \
                if self.record is not None else None
            referee = Referee(start=start, rules=rules, mode=setup.mode, game_id=game_id,
                              asking=setup.asking, computer=setup.computer)
        self.setup = setup
        self.referee = referee
        self._start_computer(setup)
        if self.vision is None or self.vision.board not in ("auto", referee.position.size):
            self._start_vision(referee.position.size)
        if self.model is not None:
            self.model.mode = setup.mode
        return self._emit(referee.begin())

    def _start_computer(self, setup: GameSetup) -> None:
        from .computer import Computer

        if self.computer is not None:
            self.computer.close()
            self.computer = None
        if setup.computer is not None:
            self.computer = Computer(setup.computer, setup.computer_level,
                                     setup.computer_movetime, post=self.requests.put)

    def _start_vision(self, board: str) -> None:
        from ..vision import Vision

        calibration = self._calibration
        if calibration is not None and board not in ("auto", calibration.board):
            calibration = None
        self.vision = Vision(board=board, calibration=calibration,
                             stable_frames=self.stable_frames, search_apart=self.live)
        if self.referee is not None:
            self.vision.expect(self.referee.position)

    def _emit(self, events: List[ev.Event], still=None) -> bool:
        """Stamp events with the camera frame they belong to (0 before the first) and
        publish them."""
        frame = max(self.index, 0)
        events = [e if e.frame is not None else dataclasses.replace(e, frame=frame)
                  for e in events]
        changed = self.outputs.publish(events, still)
        if self.referee is not None:
            # Until the camera has learned the room's light it learns it from the position
            # the game has reached: a resumed game, or one whose start frame it missed.
            self.vision.expect(self.referee.position)
            # The computer starts on its turn; the coach gives up a hint the game has left.
            for worker in (self.computer, self.coach):
                if worker is not None:
                    worker.follow(self.referee)
        return changed

    # -- the camera -------------------------------------------------------------------
    def feed(self, frame, index: int) -> bool:
        """One camera frame through vision and (when the board is still) the referee.
        Returns whether what the display shows changed."""
        self.frame, self.index = frame, index
        result = self.vision.process(frame, index)
        self.result = result
        if self.referee is None:
            if result.calibration is None:
                return self.camera(True)
            self._calibration = result.calibration   # "auto": the face is known now
            self.new_game(dataclasses.replace(self.setup, size=result.calibration.board))
        obs = result.observation
        changed = self.camera(True)
        view = ev.BoardView(board_found=result.status not in ("board_not_found", "searching"),
                            searching=result.status == "searching",
                            hand=result.status == "hand",
                            occluded_cells=tuple(sorted(obs.occluded_cells)))
        if view != self._view:   # the camera's state is published when it changes
            self._view = view
            changed = self._emit([view]) or changed
        if result.stable is not None:
            events = [e for e in self.referee.observe(result.stable) if e.kind != "board_view"]
            changed = self._emit(events, still=frame) or changed
            seen = self.referee.seen_position(events)
            if seen is not None:
                self.vision.learn(seen)
        return changed

    def observe(self, observation, index: int) -> bool:
        """A still board seen by something other than this table's camera (the club's
        simulated tables, :mod:`fenix_table.club.simulate`): straight to the referee, as
        a stable observation from vision goes. Returns whether the display changed."""
        self.index = index
        events = [e for e in self.referee.observe(observation) if e.kind != "board_view"]
        return self._emit(events)

    def camera(self, ok: bool) -> bool:
        """Tell the table whether the camera delivers; a change is published."""
        if ok == self._camera_ok:
            return False
        self._camera_ok = ok
        if not ok:
            self.frame = None
        last = self._view if ok else None
        event = ev.BoardView(board_found=bool(last is not None and last.board_found),
                             hand=bool(last is not None and last.hand),
                             occluded_cells=last.occluded_cells if last else (), camera_ok=ok,
                             searching=bool(last is not None and last.searching))
        self._view = event if ok else None
        return self._emit([event])

    # -- the players ------------------------------------------------------------------
    def act(self, action: Action) -> bool:
        """Carry out one request (except ``quit``). A request the rules refuse is shown
        as a notice, never raised. Returns whether the display changed."""
        self.message = None
        try:
            return self._act(action)
        except FenixError as error:
            self.message = str(error)
            return self._emit([ev.Notice(code="refused", message=str(error))])

    def _act(self, action: Action) -> bool:
        name = action.name
        ref = self.referee
        if ref is None:
            raise CameraError(f"{name}: the camera has not found the board yet")
        if name == "new_game":
            computer = action.arg("computer", self.setup.computer or "none")
            return self.new_game(dataclasses.replace(
                self.setup, size=str(action.arg("size", self.setup.size)),
                preset=str(action.arg("preset", self.setup.preset)),
                mode=str(action.arg("mode", self.setup.mode)), start_fpn=None,
                computer=None if computer == "none" else str(computer),
                computer_level=int(action.arg("level", self.setup.computer_level))))
        handlers: Dict[str, Callable[[], List[ev.Event]]] = {
            "undo": ref.undo,
            "offer_draw": lambda: ref.offer_draw(action.arg("side")),
            "accept_draw": ref.accept_draw,
            "resign": lambda: ref.resign(str(action.arg("side"))),
            "confirm": lambda: ref.confirm(tuple(action.arg("tokens", ()))),
            "play_on": ref.play_on,
            "move_done": self._move_done,
            "computer_thinking": lambda: self._computer_thinking(action),
            "computer_move": lambda: self._computer_move(action),
        }
        if name in handlers:
            return self._emit(handlers[name](), still=self.frame)
        if name == "hint":
            return self._hint()
        if name == "coach_review":
            game = action.arg("game")
            if game is None and self.model is not None:
                game = self.model.reviewed_id()   # the game the review screen shows
            return self._coach_review(game)
        if name == "calibrate_auto":
            self._calibration = None
            self._start_vision(self.vision.board)
            return True
        if name == "calibrate_corners":
            from ..vision import Calibration
            if self.frame is None:
                raise CameraError("no camera picture to calibrate on")
            h, w = self.frame.shape[:2]
            board = ref.position.size
            self._calibration = Calibration.from_corners(board, (w, h), action.arg("corners"))
            self._start_vision(board)
            return True
        if self.model is not None:
            return self.model.act(action, self)
        return False

    def _computer_current(self, action: Action) -> bool:
        ref = self.referee
        return self.computer is not None and action.arg("fpn") == ref.position.fpn() and \
            ref.state != "over" and ref.expected_move() is None

    def _computer_thinking(self, action: Action) -> List[ev.Event]:
        if not self._computer_current(action):
            return []   # about a position the game has left
        return [ev.ComputerThinking(side=self.computer.side, fpn=str(action.arg("fpn")),
                                    depth=int(action.arg("depth", 0)),
                                    level=self.computer.level)]

    def _computer_move(self, action: Action) -> List[ev.Event]:
        if not self._computer_current(action):
            return []
        return self.referee.expect(str(action.arg("token")), level=self.computer.level,
                                   depth=int(action.arg("depth", 0)),
                                   score=int(action.arg("score", 0)))

    def _coach(self):
        from .computer import Coach

        if self.coach is None:
            self.coach = Coach(self.setup.computer_movetime, post=self.requests.put)
        return self.coach

    def _hint(self) -> bool:
        """Ask the coach for the best move of the side to move (off the loop)."""
        ref = self.referee
        if ref.state == "over":
            return self._emit([ev.Notice(code="no_hint_over", message="no hint: the game is over")])
        if self.computer is not None and ref.position.side == self.computer.side:
            return self._emit([ev.Notice(code="no_hint_computer",
                                         message="no hint: it is the computer's turn")])
        coach = self._coach()
        if not coach.busy("hint", ref.position.fpn()):
            coach.hint(ref.position, ref.game.positions[:-1], ref.rules)
        return False

    def _coach_review(self, game_id: Optional[int]) -> bool:
        """Ask the coach to review the stored game ``game_id`` (read here, in the loop's
        thread, which owns the archive; searched off the loop)."""
        from ..record.fgn import replay_stored

        if self.record is None or game_id is None:
            return self._emit([ev.Notice(code="no_review", message="no review: games are "
                                         "not recorded at this table")])
        coach = self._coach()
        if not coach.busy("review", game_id):
            coach.review(game_id, replay_stored(self.record.store, game_id))
        return False

    def _move_done(self) -> List[ev.Event]:
        # The move button: judge the board as it is now, without waiting for it to stay
        # still for stable_frames.
        if self.result is None or self.result.status != "ok":
            raise CameraError("move done: the camera does not see the whole board")
        return [e for e in self.referee.observe(self.result.observation)
                if e.kind != "board_view"]

    def settle(self) -> bool:
        """The recording has ended: what the referee still holds undecided is committed
        as its likeliest explanation, plies it could not tell apart marked uncertain."""
        if self.referee is None:
            return False
        return self._emit(self.referee.settle())

    def close(self) -> None:
        """Let every output finish and close. Moves the record could not write (the
        archive went away) are saved as an FGN file beside it, never lost."""
        for worker in (self.computer, self.coach):
            if worker is not None:
                worker.close()
        self.outputs.close()
        if self.record is not None and self.record.pending and self.referee is not None:
            self._rescue()

    def _rescue(self) -> None:
        import time as clock

        from ..rules import GameRecord, format_fgn

        store = self.record.store
        folder = os.path.dirname(os.path.abspath(store.path)) if store.path != ":memory:" \
            else os.getcwd()
        name = f"fenix-rescued-game-{self.game_id}-{clock.strftime('%Y%m%d-%H%M%S')}.fgn"
        path = os.path.join(folder, name)
        tags = dict(self.setup.tags, Event="fenix-table (rescued: the archive could not be "
                                           "written)")
        try:
            with open(path, "x", encoding="utf-8") as fh:
                fh.write(format_fgn(GameRecord.from_game(self.referee.game, tags)))
        except OSError as error:
            log.error("the game could not be recorded, nor saved in %s: %s", path, error)
            return
        log.error("the game archive could not be written: the game is saved in %s", path)


class _Stop:
    """SIGTERM (systemd stop), SIGHUP (the terminal went away) and SIGINT end the loop at
    the next turn of it; the game is saved and closed as on any other stop."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Dict = {}

    def __enter__(self) -> "_Stop":
        for sig in (signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", None)):
            if sig is None:
                continue
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


def run(table: Table, feed, *, screen=None, players=None, watchdog=None,
        stop: Optional[Callable[[], bool]] = None, max_seconds: Optional[float] = None,
        wait: float = 0.03) -> str:
    """Drive ``table`` from ``feed`` until: the players quit ("quit"), the feed ends
    ("ended"), a signal ("signal"), or ``stop()`` turns true or ``max_seconds`` pass
    ("stopped"). Returns that reason. When the feed ends, the table settles what the
    camera left undecided (:meth:`Table.settle`).

    ``screen`` (the display): ``poll(table)`` gives the requests of the people in front
    of it (``Action("quit")`` ends the loop) and ``draw(table, changed)`` shows the table.
    ``feed`` gives camera frames, or stable observations when it says
    ``observations = True`` (:meth:`Table.observe`). ``players``: stands in for people at a recorded table: ``step(table, index)`` after
    each frame, putting requests on ``table.requests``. ``watchdog``
    (:class:`~fenix_table.watchdog.Watchdog`): READY=1 at the start, WATCHDOG=1 on every
    turn of the loop (a hung loop stops them; a lost camera does not), STOPPING=1 at
    the end. ``wait``: the longest wait for a frame per turn, seconds.
    """
    began = time.monotonic()
    feed.start()
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
                changed = False
                if screen is not None:
                    for action in screen.poll(table):
                        if action.name == "quit":
                            return "quit"
                        table.requests.put(action)
                while True:
                    try:
                        request = table.requests.get_nowait()
                    except queue.Empty:
                        break
                    changed = table.act(request) or changed
                got = feed.latest(timeout=wait)
                if got is not None:
                    index, frame = got
                    # A feed of observations (a simulated table) has no camera picture.
                    see = table.observe if getattr(feed, "observations", False) else table.feed
                    changed = see(frame, index) or changed
                    if players is not None:
                        players.step(table, index)
                changed = table.camera(feed.lost() is None) or changed
                if watchdog is not None:
                    watchdog.ping()
                if screen is not None:
                    screen.draw(table, changed, camera=got is not None)
                if feed.ended and got is None and table.requests.empty():
                    table.settle()
                    return "ended"
    finally:
        feed.stop()
        if watchdog is not None:
            watchdog.stopping()

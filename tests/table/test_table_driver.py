"""The table driver: a camera thread that keeps only the newest frame, a source that
stalls, fails and recovers, clean stops, players' requests reaching the referee, and
outputs that fail or block without stopping the table or costing the record a move."""
import os
import signal
import threading
import time

import numpy as np
import pygame

from fenix_table.display.app import Screen
from fenix_table.display.controls import UiState
from fenix_table.display.layout import make_layout
from fenix_table.display.model import TableModel
from fenix_table.errors import CameraError
from fenix_table.record import GameRecorder, GameStore
from fenix_table.table import Action, FrameGrabber, GameSetup, Table, run


class ScriptedCamera:
    """A fake camera following a script: ``("frame", n)`` gives n frames, ``("stall", s)``
    blocks for s seconds, ``("fail",)`` raises CameraError once; then the source ends."""

    def __init__(self, *steps, shape=(120, 160, 3)):
        self.steps = list(steps)
        self.shape = shape
        self.given = 0
        self.closed = 0

    def read(self):
        while self.steps:
            step = self.steps[0]
            if step[0] == "frame":
                if step[1] == 0:
                    self.steps.pop(0)
                    continue
                self.steps[0] = ("frame", step[1] - 1)
                self.given += 1
                return np.full(self.shape, 40 + self.given % 100, np.uint8)
            self.steps.pop(0)
            if step[0] == "stall":
                time.sleep(step[1])
            elif step[0] == "fail":
                raise CameraError("camera unplugged")
        raise StopIteration

    def close(self):
        self.closed += 1


def test_grabber_hands_out_only_the_newest_frame():
    camera = ScriptedCamera(("frame", 200))
    grabber = FrameGrabber(lambda: camera).start()
    taken = []
    deadline = time.monotonic() + 5
    while not grabber.ended and time.monotonic() < deadline:
        got = grabber.latest(timeout=0.05)
        if got is not None:
            taken.append(got[0])
            time.sleep(0.01)          # a slow consumer
    got = grabber.latest()
    if got is not None:
        taken.append(got[0])
    grabber.stop()
    assert grabber.read == 200
    assert taken == sorted(set(taken))           # never an older frame after a newer one
    assert taken[-1] == 199                      # the last frame is never lost
    assert grabber.dropped == 200 - len(taken) > 0


def test_grabber_reports_a_stall_and_a_failure_then_recovers():
    # Windows of a second or more: a loaded CI machine can oversleep by a few tenths.
    camera = ScriptedCamera(("frame", 1), ("stall", 1.5), ("frame", 1), ("fail",), ("frame", 1),
                            ("stall", 5))
    opened = []

    def reopen():
        opened.append(1)
        return camera
    grabber = FrameGrabber(reopen, retry_seconds=0.05, stall_seconds=0.3).start()
    try:
        assert grabber.latest(timeout=2) is not None and grabber.lost() is None
        time.sleep(0.7)
        assert grabber.lost().startswith("no picture for")
        deadline = time.monotonic() + 3
        states = set()
        while time.monotonic() < deadline and len(opened) < 2:
            states.add(grabber.lost())
            time.sleep(0.005)
        assert len(opened) == 2 and camera.closed == 1   # closed after failing, reopened
        # The frame read before the failure may still wait in the slot: the reopened
        # camera's first frame is the one that clears the failure.
        deadline = time.monotonic() + 3
        while grabber.lost() is not None and time.monotonic() < deadline:
            grabber.latest(timeout=0.1)
        assert grabber.lost() is None and grabber.failures == 1 and grabber.read == 3
    finally:
        grabber.stop()


def test_loop_shows_camera_lost_and_recovers(tmp_path):
    # The stall outlasts stall_seconds by far: a loaded machine may spend a second
    # locating the board in one frame.
    camera = ScriptedCamera(("frame", 3), ("stall", 3.0), ("frame", 2), ("fail",), ("frame", 3))
    grabber = FrameGrabber(lambda: camera, retry_seconds=0.2, stall_seconds=0.8)
    table = Table(GameSetup(size="7x8"), model=TableModel())
    seen = []

    def watch(surface):
        seen.append((table.model.view.camera_ok, table.model.view.board_found))
    screen = Screen(pygame.Surface((800, 480)), UiState(), headless=True, on_frame=watch,
                    camera_fps=0)
    why = run(table, grabber, screen=screen, max_seconds=10)
    assert why == "ended"
    camera_ok = [ok for ok, _ in seen]
    first_lost = camera_ok.index(False)
    assert True in camera_ok[:first_lost] and True in camera_ok[first_lost:]
    assert camera_ok[-1] is True
    # These blank frames show no board: that state is shown whenever the camera works.
    assert all(not found for ok, found in seen if ok)
    assert grabber.failures == 1 and camera.given == 8


def test_sigterm_ends_the_loop_cleanly():
    camera = ScriptedCamera(("stall", 30))
    grabber = FrameGrabber(lambda: camera, stall_seconds=60)
    table = Table(GameSetup(size="9x9"), model=TableModel())
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    began = time.monotonic()
    why = run(table, grabber, screen=Screen(pygame.Surface((800, 480)), UiState(),
                                            headless=True), max_seconds=10)
    assert why == "signal" and time.monotonic() - began < 5


def test_players_requests_go_through_the_referee_and_the_record(tmp_path):
    store = GameStore(str(tmp_path / "games.sqlite3"))
    table = Table(GameSetup(size="7x8", preset="strike", mode="casual"),
                  record=GameRecorder(store), model=TableModel())
    assert table.referee.rules.name == "strike" and table.model.mode == "casual"
    game_id = table.game_id
    # A draw cannot be accepted before it is offered: a notice, not a crash.
    assert table.act(Action("accept_draw"))
    assert "no draw has been offered" in table.model.notice.message
    table.act(Action("offer_draw", (("side", "red"),)))
    assert table.model.draw_offer == "red"
    table.act(Action("decline_draw"))
    assert table.model.draw_offer is None
    table.act(Action("resign", (("side", "black"),)))
    assert table.model.game_over.result == "1-0"
    assert store.game(game_id).result == "1-0"
    table.act(Action("new_game", (("size", "9x9"), ("preset", "official"), ("mode", "referee"))))
    assert table.referee.position.size == "9x9" and table.model.size == "9x9"
    assert table.game_id != game_id and table.model.game_over is None
    store.close()


def test_corner_calibration_needs_a_picture_and_four_convex_corners():
    table = Table(GameSetup(size="9x9"), model=TableModel())
    table.act(Action("calibrate_corners", (("corners", ((0, 0), (10, 0), (10, 10), (0, 10))),)))
    assert table.model.notice.message == "no camera picture to calibrate on"
    table.frame = np.zeros((480, 640, 3), np.uint8)
    table.act(Action("calibrate_corners", (("corners", ((0, 0), (10, 10), (10, 0), (0, 10))),)))
    assert "convex" in table.model.notice.message
    corners = ((100.0, 400.0), (500.0, 400.0), (500.0, 60.0), (100.0, 60.0))
    table.act(Action("calibrate_corners", (("corners", corners),)))
    assert table.vision.calibration.corners == corners and table.vision.calibration.oriented


def test_the_table_answers_input_from_its_own_state():
    table = Table(GameSetup(size="7x8"), model=TableModel())
    screen = Screen(pygame.Surface((800, 480)), UiState(), headless=True)
    screen.renderer.layout = make_layout(800, 480)
    draw_key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_d, mod=0, unicode="")
    assert screen.actions(table, draw_key) == [Action("offer_draw", (("side", "red"),))]
    table.act(Action("offer_draw", (("side", "red"),)))
    # Once a draw stands, the same key accepts it.
    assert screen.actions(table, draw_key) == [Action("accept_draw", (("side", "red"),))]


# -- outputs -------------------------------------------------------------------------------

def _recorded_game_frames():
    """The bundled recording: a 7x8 game as camera frames, and its script."""
    from fenix_table.display.recording_script import RECORDING, load_script
    from fenix_table.vision.sources import FolderSource

    return load_script(RECORDING), FolderSource(RECORDING)


class Raising:
    name = "broken"

    def __init__(self):
        self.calls = 0

    def handle(self, event):
        self.calls += 1
        raise RuntimeError("LED driver on fire")


class Blocking:
    name = "stuck"

    def __init__(self):
        self.release = threading.Event()
        self.calls = 0

    def handle(self, event):
        self.calls += 1
        self.release.wait(60)


class Hearing:
    """Checks, for every move it hears of, that the archive already has it."""

    name = "checker"

    def __init__(self, path):
        self.path = path
        self.moves = []
        self.late = []

    def handle(self, event):
        if event.kind == "move_committed":
            with GameStore(self.path) as other:   # another connection: what a crash leaves
                stored = [m.token for m in other.moves(other.list_games()[-1].id)]
            if event.move not in stored:
                self.late.append(event.move)
            self.moves.append(event.move)


def test_a_failing_and_a_blocking_output_cost_neither_the_record_nor_the_frame_rate(
        tmp_path, caplog):
    from fenix_table.display.demo import ScriptedPlayers
    from fenix_table.table import RecordedFeed

    script, source = _recorded_game_frames()
    frames = len(source.files)
    path = str(tmp_path / "g.sqlite3")
    store = GameStore(path)
    broken, stuck, checker = Raising(), Blocking(), Hearing(path)
    table = Table(GameSetup(size=script["board"]), record=GameRecorder(store),
                  sinks=[broken, stuck, checker], stable_frames=2)
    times = []
    feed = RecordedFeed(source)
    original = table.feed

    def timed(frame, index):
        began = time.monotonic()
        changed = original(frame, index)
        times.append(time.monotonic() - began)
        return changed
    table.feed = timed
    with caplog.at_level("WARNING"):
        assert run(table, feed, players=ScriptedPlayers(script), max_seconds=300) == "ended"
    moves = [m.token for m in store.moves(table.game_id)]
    assert moves == table.referee.moves == script["moves"]
    # The broken output was called with every event and logged once by name.
    assert broken.calls > 10
    assert sum("output broken failed" in r.message for r in caplog.records) == 1
    # The stuck one holds its own thread only: every frame went through at vision's pace.
    assert stuck.calls == 1 and feed.read == frames
    assert max(times) < 5.0
    # Every move was on disk before any output heard of it.
    assert checker.moves == moves and checker.late == []
    stuck.release.set()
    table.close()


class FlakyStore:
    """A GameStore whose writes fail while ``down`` (a full disk, a long lock)."""

    def __init__(self, store):
        self.store = store
        self.down = False

    def __getattr__(self, name):
        value = getattr(self.store, name)
        if name in ("add_move", "add_event", "finish", "undo_last") and self.down:
            def refuse(*args, **kwargs):
                raise OSError("disk full")
            return refuse
        return value


def test_moves_wait_while_the_record_cannot_be_written_and_none_is_lost(tmp_path):
    from fenix_table.rules import apply
    from fenix_tools.synthetic import observe_placement

    store = FlakyStore(GameStore(str(tmp_path / "g.sqlite3")))
    heard = []

    class Listener:
        name = "listener"
        inline = True

        def handle(self, event):
            heard.append(event)

    table = Table(GameSetup(size="7x8"), record=GameRecorder(store), sinks=[Listener()])
    referee = table.referee
    position = referee.position
    table._emit(referee.observe(observe_placement(position.stacks(), "7x8", 0)))
    store.down = True
    after = apply(position, "a1-b1")
    table._emit(referee.observe(observe_placement(after.stacks(), "7x8", 1)))
    assert store.store.moves(table.game_id) == []
    # Others are told the record is failing, and hear of no move that is not on disk.
    assert [e.code for e in heard if e.kind == "notice"] == ["record_failing"]
    assert not any(e.kind == "move_committed" for e in heard)
    store.down = False
    later = apply(after, "g8-f8")
    table._emit(referee.observe(observe_placement(later.stacks(), "7x8", 2)))
    assert [m.token for m in store.store.moves(table.game_id)] == ["a1-b1", "g8-f8"]
    assert [e.move for e in heard if e.kind == "move_committed"] == ["g8-f8"] or \
        [e.move for e in heard if e.kind == "move_committed"] == ["a1-b1", "g8-f8"]


# -- recorded feeds ------------------------------------------------------------------------

def test_a_recorded_feed_gives_every_frame_in_order_and_skips_an_unreadable_one(tmp_path):
    import cv2

    from fenix_table.table import RecordedFeed
    from fenix_table.vision.sources import FolderSource

    for i in range(5):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), np.full((20, 30, 3), i * 40, np.uint8))
    (tmp_path / "02.png").write_bytes(b"\x89PNG broken")
    feed = RecordedFeed(FolderSource(str(tmp_path))).start()
    got = []
    while not feed.ended:
        item = feed.latest()
        if item is not None:
            got.append((item[0], int(item[1][0, 0, 0])))
    assert got == [(0, 0), (1, 40), (3, 120), (4, 160)] and feed.skipped == 1


def test_a_recorded_feed_plays_at_its_pace():
    from fenix_table.table import RecordedFeed

    class Frames:
        def __init__(self):
            self.left = 6

        def read(self):
            if not self.left:
                raise StopIteration
            self.left -= 1
            return np.zeros((4, 4, 3), np.uint8)

    feed = RecordedFeed(Frames(), fps=20).start()
    began = time.monotonic()
    while not feed.ended:
        feed.latest(timeout=0.03)
    assert 0.2 <= time.monotonic() - began < 1.5


def test_an_archive_replaced_while_in_use_loses_no_move(tmp_path, caplog):
    from fenix_table.rules import apply
    from fenix_table.rules.fgn import read_fgn
    from fenix_tools.synthetic import observe_placement

    path = tmp_path / "games.sqlite3"
    store = GameStore(str(path))
    table = Table(GameSetup(size="7x8", tags=(("Red", "Ann"),)), record=GameRecorder(store))
    referee = table.referee
    board = referee.position
    table._emit(referee.observe(observe_placement(board.stacks(), "7x8", 0)))
    board = apply(board, "a1-b1")
    table._emit(referee.observe(observe_placement(board.stacks(), "7x8", 1)))
    # Someone restores an old backup over the archive while the table plays.
    path.rename(tmp_path / "moved-away.sqlite3")
    GameStore(str(path)).close()
    board = apply(board, "g8-f8")
    table._emit(referee.observe(observe_placement(board.stacks(), "7x8", 2)))
    assert table.record.pending and GameStore(str(path)).list_games() == []
    with caplog.at_level("ERROR"):
        table.close()
    rescued = list(tmp_path.glob("fenix-rescued-game-*.fgn"))
    assert len(rescued) == 1 and str(rescued[0]) in caplog.text
    record = read_fgn(str(rescued[0]))
    assert record.moves == ["a1-b1", "g8-f8"] and record.tags["Red"] == "Ann"


def test_a_game_resumed_in_a_dim_room_is_seen_and_recorded_on(tmp_path, dim_maroon, played):
    """A power cut mid-game in a dim room whose red stones read as black until the camera
    has learned the room. The resumed table teaches the camera from the position the game
    reached (no start frame will come), finds the board in step, and records the next move."""
    from dataclasses import replace

    from fenix_tools.sim import render_frame
    from fenix_table.rules import Rules, apply, legal_moves
    from tests.table_loop import show

    path = str(tmp_path / "games.sqlite3")
    positions = played(30)
    table = Table(GameSetup(size="9x9", preset="strike"), record=GameRecorder(GameStore(path)))
    for k, position in enumerate(positions[1:]):
        show(table, position, 2 * k)
    assert table.referee.position == positions[-1]
    game_id = table.game_id
    del table                                         # the power goes

    store = GameStore(path)
    table = Table(GameSetup(), record=GameRecorder(store), resume=game_id)
    scene = replace(dim_maroon, yaw_deg=15.0, image_size=(1280, 960))
    rng = np.random.default_rng(0)
    frame = render_frame(positions[-1].stacks(), "9x9", scene, rng)[0]
    for i in range(8):
        table.feed(frame, i)
    assert table.vision.reader.calibrated and table.referee.state == "play"
    rules = Rules.preset("strike")
    after = apply(positions[-1], legal_moves(positions[-1], rules)[0], rules)
    frame = render_frame(after.stacks(), "9x9", scene, rng)[0]
    for i in range(8, 16):
        table.feed(frame, i)
    assert len(store.moves(game_id)) == 31 and table.referee.position == after
    store.close()


def test_a_live_tables_loop_keeps_turning_while_the_board_is_searched_for(monkeypatch):
    """On a live camera the board search runs beside the loop: the display is drawn and
    requests are carried out while it goes on, and the board it finds is then read."""
    from fenix_tools.sim import SceneParams, render_frame
    from fenix_table.rules import Position
    from fenix_table.vision import locate

    go_on = threading.Event()
    real = locate.locate_board

    def slow(frame, board="auto", *args, **kwargs):
        assert go_on.wait(30)
        return real(frame, board, *args, **kwargs)

    monkeypatch.setattr(locate, "locate_board", slow)
    frame = render_frame(Position.start("9x9").stacks(), "9x9", SceneParams(yaw_deg=20.0),
                         np.random.default_rng(2))[0]

    class Camera:
        def read(self):
            time.sleep(0.01)
            return frame.copy()

        def close(self):
            pass

    class CountingScreen:
        draws = 0

        def poll(self, table):
            return []

        def draw(self, table, changed, camera=True):
            self.draws += 1
            if table.result is not None and not problems:
                problems.append(table.model.camera_problem())   # what the first frame showed
            if self.draws >= 20 and problems:
                go_on.set()              # twenty turns of the loop while the search waited

    screen, problems = CountingScreen(), []
    table = Table(GameSetup(size="9x9"), model=TableModel(), live=True)
    seen = lambda: table.result is not None and table.result.status == "ok"
    assert run(table, FrameGrabber(Camera), screen=screen, stop=seen, max_seconds=60) == "stopped"
    assert seen() and screen.draws > 20
    assert problems == ["searching"]             # not "board not found": it is looking
    assert table.model.camera_problem() is None

"""The main loop: a camera thread that keeps only the newest frame, a source that stalls,
fails and recovers, clean stops, and players' requests reaching the referee."""
import os
import signal
import threading
import time

import numpy as np
import pygame

from fenix_table.display.app import FrameGrabber, GameSetup, Table, run_loop
from fenix_table.display.controls import Action, UiState
from fenix_table.display.layout import make_layout
from fenix_table.errors import CameraError
from fenix_table.record import GameStore


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
        assert grabber.latest(timeout=2) is not None
        assert grabber.lost() is None and grabber.failures == 1
    finally:
        grabber.stop()


def test_loop_shows_camera_lost_and_recovers(tmp_path):
    # The stall outlasts stall_seconds by far: a loaded machine may spend a second
    # locating the board in one frame.
    camera = ScriptedCamera(("frame", 3), ("stall", 3.0), ("frame", 2), ("fail",), ("frame", 3))
    grabber = FrameGrabber(lambda: camera, retry_seconds=0.2, stall_seconds=0.8)
    table = Table(GameSetup(size="7x8"))
    seen = []

    def watch(surface):
        seen.append((table.model.view.camera_ok, table.model.view.board_found))
    surface = pygame.Surface((800, 480))
    grabber.start()
    why = run_loop(table, grabber, surface, UiState(), headless=True, on_frame=watch,
                   max_seconds=10, redraw_seconds=0.05)
    grabber.stop()
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
    grabber = FrameGrabber(lambda: camera, stall_seconds=60).start()
    table = Table(GameSetup(size="9x9"))
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    began = time.monotonic()
    why = run_loop(table, grabber, pygame.Surface((800, 480)), UiState(), headless=True,
                   max_seconds=10)
    grabber.stop()
    assert why == "signal" and time.monotonic() - began < 5


def test_players_requests_go_through_the_referee_and_the_record(tmp_path):
    store = GameStore(str(tmp_path / "games.sqlite3"))
    table = Table(GameSetup(size="7x8", preset="strike", mode="casual"), store=store)
    assert table.referee.rules.name == "strike" and table.model.mode == "casual"
    game_id = table.referee.game_id
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
    assert table.referee.game_id != game_id and table.model.game_over is None
    store.close()


def test_corner_calibration_needs_a_picture_and_four_convex_corners():
    table = Table(GameSetup(size="9x9"))
    table.act(Action("calibrate_corners", (("corners", ((0, 0), (10, 0), (10, 10), (0, 10))),)))
    assert table.model.notice.message == "no camera picture to calibrate on"
    table.frame = np.zeros((480, 640, 3), np.uint8)
    table.act(Action("calibrate_corners", (("corners", ((0, 0), (10, 10), (10, 0), (0, 10))),)))
    assert "convex" in table.model.notice.message
    corners = ((100.0, 400.0), (500.0, 400.0), (500.0, 60.0), (100.0, 60.0))
    table.act(Action("calibrate_corners", (("corners", corners),)))
    assert table.vision.calibration.corners == corners and table.vision.calibration.oriented


def test_the_table_answers_input_from_its_own_state():
    table = Table(GameSetup(size="7x8"))
    layout, ui = make_layout(800, 480), UiState()
    draw_key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_d, mod=0, unicode="")
    assert table.actions(draw_key, ui, layout) == [Action("offer_draw", (("side", "red"),))]
    table.act(Action("offer_draw", (("side", "red"),)))
    # Once a draw stands, the same key accepts it.
    assert table.actions(draw_key, ui, layout) == [Action("accept_draw", (("side", "red"),))]

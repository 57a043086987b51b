"""The main loop wired to the device: GPIO lights and the move button (gpiozero's mock
pins) and the systemd watchdog (a datagram socket standing in for systemd)."""
import glob
import os
import socket
import threading
import time

import cv2
import pygame
import pytest

from fenix_table.display.app import Screen
from fenix_table.display.model import TableModel
from fenix_table.table import FrameGrabber, GameSetup, Table, run
from fenix_table.display.controls import UiState
from fenix_table.display.model import Clocks
from fenix_table.display.recording_script import RECORDING
from fenix_table.watchdog import Watchdog

gpiozero_mock = pytest.importorskip("gpiozero.pins.mock")
from fenix_table.device import Lights  # noqa: E402

FRAMES = sorted(glob.glob(os.path.join(RECORDING, "*.jpg")))


class HeldCamera:
    """Shows one recording frame until told to show another; ends when ``done`` is set."""

    def __init__(self, index):
        self.frame = cv2.imread(FRAMES[index])
        self.given = 0
        self.done = threading.Event()

    def show(self, index):
        self.frame = cv2.imread(FRAMES[index])

    def read(self):
        if self.done.is_set():
            raise StopIteration
        time.sleep(0.02)
        self.given += 1
        return self.frame

    def close(self):
        pass


def wait_for(condition, seconds=20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def press(factory, pin):
    # The button pulls its pin low; gpiozero calls back in the thread that drove it.
    factory.pin(pin).drive_low()
    time.sleep(0.05)
    factory.pin(pin).drive_high()


def test_move_button_and_lights_through_the_main_loop(tmp_path):
    factory = gpiozero_mock.MockFactory()
    lights = Lights({"red_turn": 17, "black_turn": 27, "move_button": 5},
                    pin_factory=factory, background=False)
    kinds = []
    # stable_frames so high that the referee never judges a still board by itself: only
    # the button makes it look.
    class Kinds:
        name, inline = "kinds", True

        def handle(self, event):
            if event.kind != "board_view":
                kinds.append(event.kind)
    table = Table(GameSetup(size="7x8"), sinks=[lights, Kinds()], model=TableModel(),
                  stable_frames=10_000)
    camera = HeldCamera(5)                   # the start position
    grabber = FrameGrabber(lambda: camera).start()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = str(tmp_path / "notify")
    listener.bind(address)
    listener.settimeout(0.5)
    messages = []
    finished = threading.Event()

    def systemd():
        # Read as systemd does, all along: a datagram socket's queue is short.
        while True:
            try:
                messages.append(listener.recv(4096).decode())
            except socket.timeout:
                if finished.is_set():
                    return
    reader = threading.Thread(target=systemd)
    reader.start()
    outcome = {}

    def players():
        # A GPIO thread: it only presses; the main loop carries the request out.
        outcome["start_seen"] = wait_for(lambda: table.result is not None
                                         and table.result.status == "ok")
        outcome["judged_alone"] = table.referee.state != "checking"
        press(factory, 5)
        outcome["in_play"] = wait_for(lambda: table.referee.state == "play")
        lights.tick()
        outcome["red_led"] = lights.leds["red_turn"].value
        camera.show(10)                      # Red's first (stacking) move on the board
        shown = camera.given
        wait_for(lambda: camera.given > shown + 10 and table.result.status == "ok")
        outcome["before_press"] = list(kinds)
        press(factory, 5)
        outcome["judged"] = wait_for(lambda: len(kinds) > len(outcome["before_press"]))
        camera.done.set()

    helper = threading.Thread(target=players)
    helper.start()
    try:
        why = run(table, grabber, screen=Screen(pygame.Surface((800, 480)), UiState(),
                                                headless=True),
                  max_seconds=60, watchdog=Watchdog(address))
    finally:
        finished.set()
        helper.join()
        grabber.stop()
        lights.close()
    assert why == "ended"
    assert outcome["start_seen"] and not outcome["judged_alone"]
    assert outcome["in_play"] and outcome["red_led"] == 1
    assert outcome["judged"]
    # The second press made the referee read the move: it has several readings (a stack
    # of unknown height), so the players are asked.
    assert kinds[len(outcome["before_press"]):] == ["move_ambiguous"]
    reader.join()
    listener.close()
    assert messages[0].startswith("READY=1") and messages[-1].startswith("STOPPING=1")
    pings = [m for m in messages if m == "WATCHDOG=1"]
    # A ping on every turn of the loop, frame or no frame: the loop stayed alive.
    assert len(pings) >= 10


def test_a_busy_pin_leaves_the_table_without_lights(caplog, monkeypatch):
    from gpiozero import LED

    from fenix_table.config import load_config
    from fenix_table.display.main import lights_sink
    factory = gpiozero_mock.MockFactory()
    config = load_config(None)
    busy_part, busy_pin = next(iter(config.gpio.pins().items()))
    other = LED(busy_pin, pin_factory=factory)   # another program holds this pin
    original = Lights.from_config.__func__
    monkeypatch.setattr(Lights, "from_config", classmethod(
        lambda cls, config: original(cls, config, pin_factory=factory, background=False)))
    try:
        with caplog.at_level("WARNING"):
            assert lights_sink(config) is None
    finally:
        other.close()
    lines = [r.getMessage() for r in caplog.records if "without lights" in r.getMessage()]
    assert len(lines) == 1 and f"gpio.{busy_part}" in lines[0]


def test_a_clock_button_switches_the_clocks_on_screen_at_once():
    factory = gpiozero_mock.MockFactory()
    lights = Lights({"clock_red": 6, "clock_black": 13}, pin_factory=factory, background=False)
    table = Table(GameSetup(size="7x8"), sinks=[lights], model=TableModel())
    now = [100.0]
    table.model.now = lambda: now[0]
    table.model.clocks = Clocks()
    table.model.clocks.switch("red", now[0])
    assert table.model.side == "red"

    def carry_out_requests():
        names = []
        while not table.requests.empty():
            request = table.requests.get_nowait()
            names.append(request.name)
            table.act(request)   # move_done without a picture: a refusal shown, not raised
        return names

    press(factory, 13)                       # Black presses while Red thinks: nothing
    assert carry_out_requests() == ["clock"]
    assert table.model.clocks.running == "red"
    now[0] = 130.0
    press(factory, 6)                        # Red ends the turn on the clock
    assert carry_out_requests() == ["clock", "move_done"]
    assert table.model.clocks.running == "black"
    now[0] = 140.0
    assert table.model.clocks.reading("red", now[0]) == 30.0
    assert table.model.clocks.reading("black", now[0]) == 10.0
    lights.close()

"""sd_notify over a real AF_UNIX datagram socket, as systemd listens for it."""
import os
import socket

import pytest

from fenix_table.watchdog import Watchdog


@pytest.fixture
def listener(tmp_path):
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(1.0)
    yield path, sock
    sock.close()


def received(sock):
    messages = []
    sock.setblocking(False)
    try:
        while True:
            messages.append(sock.recv(4096).decode())
    except BlockingIOError:
        pass
    return messages


class FakeClock:
    t = 0.0

    def __call__(self):
        return self.t


def test_ready_status_watchdog_stopping_reach_the_socket(listener):
    path, sock = listener
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}
    watchdog = Watchdog.from_env(env)
    assert watchdog.enabled and watchdog.interval == 30.0
    assert watchdog.ready("camera open")
    assert watchdog.status("red to move")
    assert watchdog.ping()
    assert watchdog.stopping()
    assert received(sock) == ["READY=1\nSTATUS=camera open", "STATUS=red to move",
                              "WATCHDOG=1", "STOPPING=1"]


def test_kick_pings_at_half_the_interval(listener):
    path, sock = listener
    clock = FakeClock()
    watchdog = Watchdog(path, interval=10.0, clock=clock)
    sent = []
    for t in range(0, 21):  # one kick per "second" of main loop
        clock.t = float(t)
        sent.append(watchdog.kick())
    assert [t for t, s in enumerate(sent) if s] == [0, 5, 10, 15, 20]
    assert received(sock) == ["WATCHDOG=1"] * 5
    watchdog.close()


def test_abstract_namespace_address():
    name = f"fenix-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    try:
        with Watchdog("@" + name) as watchdog:
            assert watchdog.ready()
        assert received(sock) == ["READY=1"]
    finally:
        sock.close()


def test_outside_systemd_everything_is_a_no_op():
    watchdog = Watchdog.from_env({})
    assert not watchdog.enabled
    assert watchdog.ready() is False and watchdog.kick() is False and watchdog.stopping() is False


def test_watchdog_meant_for_another_process_is_ignored(listener):
    path, _ = listener
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"}
    watchdog = Watchdog.from_env(env)
    assert watchdog.interval is None and watchdog.kick() is False
    assert watchdog.ready()  # READY still goes to systemd


def test_a_vanished_socket_does_not_raise(tmp_path):
    watchdog = Watchdog(str(tmp_path / "gone"), interval=1.0)
    assert watchdog.ready() is False
    assert watchdog.kick() is False

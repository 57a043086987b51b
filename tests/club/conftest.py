"""Fixtures of the club's tests: a real mosquitto with the shipped ACL and a password per
table, and helpers to wait for the viewer."""
from __future__ import annotations

import time

import pytest

from tests.club.mosquitto import MISSING, Mosquitto

#: Every login of the test broker: six tables and the viewer, each its own password.
PASSWORDS = {**{f"table{i:02d}": f"secret-{i}" for i in range(1, 7)}, "viewer": "look-only"}


@pytest.fixture
def broker(tmp_path):
    """A running mosquitto with passwords and the shipped ACL (club "club")."""
    if MISSING:
        pytest.skip(MISSING)
    server = Mosquitto(tmp_path / "broker", PASSWORDS).start()
    yield server
    server.stop()


def login(broker_server, user: str):
    from fenix_table.club.mqtt import Broker
    return Broker(broker_server.url, username=user, password=PASSWORDS.get(user, "wrong"))


def wait_for(condition, timeout: float = 20.0, step: float = 0.05):
    """Poll ``condition()`` until it is truthy (returned) or ``timeout`` passes (None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return None

"""systemd service notification (sd_notify) with the standard library only.

The main loop tells systemd when it is ready, that it is still alive, and that it is
stopping. With ``WatchdogSec=`` in the unit, systemd restarts the service when the alive
messages stop: a camera loop that hangs is restarted instead of freezing the table.

Outside systemd (``$NOTIFY_SOCKET`` unset) every call does nothing, so the main loop
calls it unconditionally::

    from fenix_table.watchdog import Watchdog
    watchdog = Watchdog.from_env()
    watchdog.ready()              # camera open, first frame read
    while running:
        ...                       # read a frame, referee, draw
        watchdog.kick()           # cheap: sends WATCHDOG=1 at most every interval/2
    watchdog.stopping()
"""
from __future__ import annotations

import os
import socket
import time
from typing import Callable, Optional


class Watchdog:
    """Sends ``READY=1``, ``WATCHDOG=1``, ``STATUS=...`` and ``STOPPING=1`` to systemd.

    ``address`` is ``$NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace);
    ``None`` makes every method a no-op. ``interval`` is systemd's watchdog timeout in
    seconds (from ``$WATCHDOG_USEC``); :meth:`kick` pings at half of it, as sd_watchdog_enabled(3)
    recommends. Sending never raises: losing a notification must not stop the game (a
    missed watchdog ping is what restarts a hung loop anyway).
    """

    def __init__(self, address: Optional[str], interval: Optional[float] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.address = address
        self.interval = interval
        self.clock = clock
        self._last_kick: Optional[float] = None
        self._socket: Optional[socket.socket] = None

    @classmethod
    def from_env(cls, environ=None) -> "Watchdog":
        """From ``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` and ``WATCHDOG_PID`` (see sd_notify(3))."""
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET") or None
        interval = None
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        # WATCHDOG_PID names the process meant to ping; a child that inherited it must not.
        if usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            interval = int(usec) / 1_000_000
        return cls(address, interval)

    @property
    def enabled(self) -> bool:
        """True when running under systemd with a notification socket."""
        return self.address is not None

    def notify(self, message: str) -> bool:
        """Send one raw sd_notify message; True when it was delivered."""
        if self.address is None:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                self._socket.setblocking(False)
            self._socket.sendto(message.encode("utf-8"), target)
            return True
        except OSError:
            return False

    def ready(self, status: Optional[str] = None) -> bool:
        message = "READY=1" + (f"\nSTATUS={status}" if status else "")
        return self.notify(message)

    def status(self, text: str) -> bool:
        """A one-line status shown by ``systemctl status fenix-table``."""
        return self.notify(f"STATUS={text}")

    def ping(self) -> bool:
        """``WATCHDOG=1`` now."""
        self._last_kick = self.clock()
        return self.notify("WATCHDOG=1")

    def kick(self) -> bool:
        """Ping if half the watchdog interval has passed since the last ping (call it every
        loop iteration). True when a ping was sent."""
        if self.address is None or self.interval is None:
            return False
        now = self.clock()
        if self._last_kick is not None and now - self._last_kick < self.interval / 2:
            return False
        return self.ping()

    def stopping(self, status: Optional[str] = None) -> bool:
        message = "STOPPING=1" + (f"\nSTATUS={status}" if status else "")
        sent = self.notify(message)
        self.close()
        return sent

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def __enter__(self) -> "Watchdog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

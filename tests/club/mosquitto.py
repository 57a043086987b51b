"""A real Eclipse Mosquitto for the club's tests: a free loopback port, its configuration,
password file and ACL written to a temporary folder; killed and restarted at will.

The ACL is the shipped one (``systemd/mosquitto-fenix.acl``, club ``club``). Tests that
need the broker skip, saying why, when Debian's ``mosquitto`` is not installed (CI's
``.ci/run`` installs it).
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Dict, Optional

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_ACL = ROOT / "systemd" / "mosquitto-fenix.acl"


def binary(name: str) -> Optional[str]:
    """A mosquitto program on PATH or where Debian puts it (/usr/sbin is not on every PATH)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in ("/usr/sbin", "/usr/bin", "/usr/local/sbin"):
        path = os.path.join(folder, name)
        if os.access(path, os.X_OK):
            return path
    return None


MISSING = None if binary("mosquitto") and binary("mosquitto_passwd") else \
    "Debian's mosquitto is not installed (apt-get install mosquitto; .ci/run does it)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """One broker. ``passwords``: login -> password (None: anonymous, no ACL);
    ``tls``: ``(certfile, keyfile)`` for a TLS listener."""

    def __init__(self, folder: Path, passwords: Optional[Dict[str, str]] = None,
                 tls: Optional[tuple] = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process: Optional[subprocess.Popen] = None
        lines = [f"listener {self.port} 127.0.0.1", "per_listener_settings false",
                 "persistence false", f"log_dest file {self.folder / 'mosquitto.log'}",
                 "log_type error", "log_type warning", "log_type notice"]
        if os.geteuid() == 0:
            lines.append("user root")   # else it drops to user mosquitto, who cannot read tmp
        if passwords is None:
            lines.append("allow_anonymous true")
        else:
            pwfile = self.folder / "passwd"
            pwfile.write_text("".join(f"{u}:{p}\n" for u, p in passwords.items()))
            subprocess.run([binary("mosquitto_passwd"), "-U", str(pwfile)], check=True,
                           capture_output=True)
            lines += ["allow_anonymous false", f"password_file {pwfile}",
                      f"acl_file {SHIPPED_ACL}"]
        if tls is not None:
            lines += [f"certfile {tls[0]}", f"keyfile {tls[1]}"]
        self.config = self.folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.tls = tls is not None

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self) -> "Mosquitto":
        self.process = subprocess.Popen([binary("mosquitto"), "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto did not start: "
                                   f"{self.process.stderr.read().decode()[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not listen within 10 s")

    def kill(self) -> None:
        """SIGKILL, as a power cut or a crash would: no goodbye to anyone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(5)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.process.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""

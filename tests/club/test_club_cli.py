"""``fenix-table club serve`` and ``fenix-table club simulate`` as programs: the viewer
follows simulated tables through a real mosquitto, and bad input is one line, status 2."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request

import pytest

from tests.club.conftest import PASSWORDS, wait_for
from tests.club.mosquitto import free_port

COMMAND = [sys.executable, "-m", "fenix_table.cli"]


def fenix(*args, **kw):
    return subprocess.run(COMMAND + list(args), capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, FENIX_TABLE_CONFIG=""), **kw)


def test_serve_follows_what_simulate_plays(broker, tmp_path):
    (tmp_path / "viewer.pw").write_text(PASSWORDS["viewer"] + "\n")
    (tmp_path / "tables").write_text("".join(f"{t}:{p}\n" for t, p in PASSWORDS.items()))
    port = free_port()
    serve = subprocess.Popen(COMMAND + ["club", "serve", "--broker", broker.url, "--username",
                                        "viewer", "--password-file", str(tmp_path / "viewer.pw"),
                                        "--listen", f"127.0.0.1:{port}"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert serve.stdout.readline().strip() == f"serving http://127.0.0.1:{port}/"
        done = fenix("club", "simulate", "--tables", "2", "--broker", broker.url, "--rate", "40",
                     "--games", "2", "--max-plies", "12", "--credentials",
                     str(tmp_path / "tables"), "--record", str(tmp_path / "games"))
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == "4 games, 48 plies played"
        assert sorted(os.listdir(tmp_path / "games")) == ["table01.sqlite3", "table02.sqlite3"]

        def tables():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables") as reply:
                found = json.load(reply)
            return found if len(found) == 2 and all(
                t["status"] == "over" and not t["online"] for t in found) else None
        found = wait_for(tables, 15)
        assert found, "the viewer did not see both tables finish"
        # The second game of each table, an agreed draw after 12 plies.
        assert [(t["table"], len(t["moves"]), t["result"]) for t in found] == \
            [("table01", 12, "1/2-1/2"), ("table02", 12, "1/2-1/2")]
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(10)
    assert serve.returncode == 0


@pytest.mark.parametrize("args, message", [
    (["club", "serve", "--broker", "http://localhost"], "expected mqtt://HOST[:PORT]"),
    (["club", "serve", "--broker", "mqtt://localhost:99999"], "port"),
    (["club", "serve", "--listen", "nowhere"], "--listen 'nowhere': expected HOST:PORT"),
    (["club", "serve", "--club", "a/b"], "club 'a/b'"),
    (["club", "serve", "--password-file", "/nonexistent/pw", "--username", "v"],
     "/nonexistent/pw: no such file"),
    (["club", "simulate", "--credentials", "/nonexistent/creds"], "no such file"),
    (["club", "simulate", "--tables", "0"], "--tables"),
])
def test_bad_input_is_one_line_and_status_2(args, message):
    result = fenix(*args)
    assert result.returncode == 2
    # One line names the problem (argparse puts its usage above its own).
    lines = [line for line in result.stderr.strip().splitlines() if "fenix-table" in line and
             not line.startswith("usage:")]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr


def test_credentials_must_cover_every_table(tmp_path):
    (tmp_path / "creds").write_text("table01:a\n")
    result = fenix("club", "simulate", "--tables", "2", "--credentials", str(tmp_path / "creds"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"fenix-table: {tmp_path / 'creds'}: no password for table02"

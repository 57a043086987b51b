"""Club broadcast benchmark: many simulated tables through one Mosquitto to the viewer.

``--tables`` (50) simulated tables, each playing ``--rate`` (1) move a second through the
real table driver (each with its own SQLite game archive, the record written first) and
the club broadcast, log in to one Mosquitto on this machine (passwords and the shipped
ACL, as a club would run it). ``fenix-table club serve`` runs as its own process; the
benchmark reads its ``/stream`` (the Server-Sent Events the page reads) like a browser.
Halfway, the broker is killed (SIGKILL) and started again ``--down`` seconds later.

Printed:
- latency from commit (the record written, timed by an inline sink right after it) to
  the viewer's stream: median and p99, for moves committed while the broker was up and
  every table connected and, apart, for those committed from the kill until every table
  was connected again (they wait for it);
- CPU use (share of one core) of the broker, the viewer and the simulated tables;
- moves lost: committed moves (table, game, ply, move) the stream never showed (target 0).

Run: ``nice -n 10 python benchmarks/bench_club.py [--tables 50] [--rate 1] [--seconds 60]
[--down 3]``. Needs Debian's mosquitto and paho-mqtt.
"""
from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fenix_table.club.mqtt import Broker  # noqa: E402
from fenix_table.club.simulate import Club  # noqa: E402
from fenix_table.referee import events as ev  # noqa: E402
from tests.club.mosquitto import MISSING, Mosquitto, free_port  # noqa: E402


class CommitClock:
    """An inline sink: called in the table's loop right after the record is written,
    before the broadcast hears of the move."""

    name = "commit-clock"
    inline = True

    def __init__(self, table: str, log: dict) -> None:
        self.table = table
        self.log = log
        self.game = None

    def handle(self, event) -> bool:
        if isinstance(event, ev.GameStarted):
            self.game = event.game_id
        elif isinstance(event, ev.MoveCommitted):
            self.log[(self.table, self.game, event.ply)] = (time.time(), event.move)
        return False


class StreamReader(threading.Thread):
    """Reads the viewer's /stream; notes when each (table, game, ply) first showed."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.seen = {}          # (table, game, ply) -> (time, move)
        self.updates = 0
        self.stopping = False

    def run(self) -> None:
        while not self.stopping:
            try:
                self._read()
            except OSError:
                time.sleep(0.2)   # the viewer restarting its stream: read it again

    def _read(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", "/stream")
        reply = connection.getresponse()
        data = []
        while not self.stopping:
            line = reply.readline()
            if not line:
                return
            line = line.decode().rstrip("\n")
            if line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and data:
                now = time.time()
                for table in json.loads("".join(data)):
                    self.updates += 1
                    moves = table["moves"]
                    for ply, move in enumerate(moves, 1):
                        key = (table["table"], table["game_id"], ply)
                        if key not in self.seen:
                            self.seen[key] = (now, move)
                data = []


def cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=1.0, help="moves a second per table")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long they play")
    parser.add_argument("--down", type=float, default=3.0, help="seconds the broker is away")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if MISSING:
        print(f"bench_club: {MISSING}")
        return 2
    # The broker's restart is on purpose: its warnings are expected, one per table.
    logging.basicConfig(level=logging.ERROR)
    folder = Path(tempfile.mkdtemp(prefix="bench-club-"))
    names = [f"table{i:02d}" for i in range(1, args.tables + 1)]
    passwords = {name: f"pw-{name}" for name in names}
    passwords["viewer"] = "pw-viewer"
    broker = Mosquitto(folder / "broker", passwords).start()
    port = free_port()
    (folder / "viewer.pw").write_text("pw-viewer\n")
    viewer = subprocess.Popen(
        [sys.executable, "-m", "fenix_table.cli", "club", "serve", "--broker", broker.url,
         "--username", "viewer", "--password-file", str(folder / "viewer.pw"),
         "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=dict(os.environ, FENIX_TABLE_CONFIG=""))
    viewer.stdout.readline()   # "serving ...": it listens
    stream = StreamReader(port)
    stream.start()
    commits = {}
    (folder / "games").mkdir()
    sim = Club(Broker(broker.url), args.tables, rate=args.rate, games=10_000, seed=args.seed,
               credentials=passwords, record=str(folder / "games"),
               sinks_for=lambda name: [CommitClock(name, commits)])
    cpu = {"broker": 0.0, "viewer": cpu_of(viewer.pid), "tables": time.process_time()}
    broker_cpu_start = broker.cpu_seconds()
    began = time.time()
    sim.start()
    print(f"{args.tables} tables at {args.rate} move/s for {args.seconds:.0f} s; the broker "
          f"is killed at {args.seconds / 2:.0f} s for {args.down:.0f} s", flush=True)
    time.sleep(args.seconds / 2)
    cpu["broker"] += broker.cpu_seconds() - broker_cpu_start
    down_from = time.time()
    broker.kill()
    time.sleep(args.down)
    broker.start()
    restarted = time.time()
    # Back once every table has reconnected (each retries at most every 2 s).
    while not all(sink.connected.is_set() for sink in sim.broadcasts.values()):
        time.sleep(0.05)
    down_until = time.time()
    broker_cpu_start = broker.cpu_seconds()
    time.sleep(max(0.0, args.seconds - (time.time() - began)))
    sim.stop()
    played = time.time() - began
    # Let the last moves reach the stream.
    deadline = time.time() + 20
    while time.time() < deadline and any(k not in stream.seen for k in commits):
        time.sleep(0.2)
    cpu["broker"] += broker.cpu_seconds() - broker_cpu_start
    cpu["viewer"] = cpu_of(viewer.pid) - cpu["viewer"]
    cpu["tables"] = time.process_time() - cpu["tables"]
    stream.stopping = True
    viewer.terminate()
    viewer.wait(10)
    broker.stop()

    up, waited, lost, wrong = [], [], 0, 0
    for key, (at, move) in commits.items():
        seen = stream.seen.get(key)
        if seen is None:
            lost += 1
            continue
        if seen[1] != move:
            wrong += 1
        (waited if down_from <= at <= down_until else up).append(seen[0] - at)
    games = len({(t, g) for t, g, _ in commits})
    print(f"moves committed: {len(commits)} in {games} games over {played:.0f} s "
          f"({len(commits) / played:.1f} moves/s); stream updates: {stream.updates}")
    if up:
        print(f"commit -> viewer stream latency, broker up and every table connected: median "
              f"{1000 * statistics.median(up):.0f} ms, p99 {1000 * percentile(up, 0.99):.0f} ms "
              f"({len(up)} moves)")
    if waited:
        print(f"  moves committed from the kill until every table was back: median "
              f"{1000 * statistics.median(waited):.0f} ms, p99 "
              f"{1000 * percentile(waited, 0.99):.0f} ms ({len(waited)} moves)")
    for who, seconds in cpu.items():
        span = played if who != "viewer" else played + 0.0
        print(f"CPU {who}: {100 * seconds / span:.1f}% of one core")
    print(f"moves lost: {lost} (wrong move shown: {wrong}), across a broker restart "
          f"({restarted - down_from:.1f} s down, every table back "
          f"{down_until - restarted:.1f} s later)")
    return 0 if lost == 0 and wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

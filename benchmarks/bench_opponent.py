"""The computer opponent's strength and speed: matches between players, per pairing.

Each pairing ``A:B`` plays ``--games`` games, both boards in turn and colours swapped
every other game (game 2k and 2k+1 share a board and an opening, with the colours
swapped). So that deterministic players do not repeat one game, each opening starts with
``--random-plies`` random setup plies (seeded by the game number). A game ends by the
rules (King lost, no move, repetition, the no-capture limit) or after ``--max-plies``
(counted a draw). Players:

- ``L1`` .. ``L8``: the opponent's levels (``L8`` is the strongest);
- ``random``: a uniformly random legal mover;
- ``ab2``: a depth-2 alpha-beta on material only (stones: S 1, G 2, K 3), no capture
  search, ties broken at random (the level of a typical course agent);
- ``L8+threat=60,cohesion=6``: a level with changed evaluation weights (for tuning by
  self-play: play the variant against the level as it is);
- ``L8@3``, ``L8@3~50``, ``L6%10``: a level with another depth cap (``@``), root noise
  (``~``, hundredths of a stone) or oversight rate (``%``, per cent of its moves), for
  laying out the levels; with a depth cap, no noise or oversight and a ``--movetime`` far
  above what it needs, a player is deterministic, so two variants meet the same games.

Every game is appended as one JSON line to ``--out`` (default
``benchmarks/results/opponent.jsonl``, kept in git so that a later run goes on from it);
a run skips games already there with the same settings and players (a hash of what
decides their play: the search's and evaluation's source, the ``Level`` class and each
player's settings, whatever the levels were numbered then; games of other players are
kept but neither resumed nor reported, unless ``--all-engines``), so it can be stopped
and resumed, and a change to one level leaves the pairings without it standing. Processes
given disjoint game ranges (``--first-game``, ``--games``) may append to one ``--out``. Each
game also records the hash of ``fenix_table/opponent``'s whole source (``engine``) and
each side's stones at the end (what a drawn game's leader had in hand). The summary
(printed at the end, or alone with ``--report``, of ``--pairings``: by default the
baselines and each level against the one below) gives per pairing: games,
wins/draws/losses of A, A's score, an Elo-like difference (400 log10(s / (1 - s))),
nodes per second, mean and longest move time (wall clock) and the longest move in processor time (what the process itself
spent: on a loaded machine the wall clock also counts the waits for a core) of each
searching player; and the Elo-like ladder the level pairings give.

``--pi-ratio`` times the Computer Language Benchmarks Game's Python n-body program here
and compares it with the time published for a Raspberry Pi 4 (the time budget's ratio).

    nice -n 10 python benchmarks/bench_opponent.py --pairings L8:random L8:ab2 \\
        --games 200 --movetime 0.1
    python benchmarks/bench_opponent.py --report
    python benchmarks/bench_opponent.py --pi-ratio
"""
from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import os
import random
import sys
import time
from collections import defaultdict
from dataclasses import replace

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fenix_table.opponent import DEFAULT_MOVETIME, LEVELS, Level, level_of  # noqa: E402
from fenix_table.opponent import evaluate as evaluate_module  # noqa: E402
from fenix_table.opponent import search as search_module  # noqa: E402
from fenix_table.opponent.evaluate import MATERIAL, WEIGHTS  # noqa: E402
from fenix_table.opponent.search import Searcher  # noqa: E402
from fenix_table.rules import OFFICIAL, Game  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "results", "opponent.jsonl")


def engine_version() -> str:
    """A short hash of the opponent's whole source (recorded with each game)."""
    folder = os.path.join(HERE, "..", "fenix_table", "opponent")
    digest = hashlib.sha1()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as fh:
                digest.update(name.encode() + b"\0" + fh.read())
    return digest.hexdigest()[:10]


ENGINE = engine_version()
LEVEL_PAIRINGS = [f"L{n}:L{n - 1}" for n in range(2, max(LEVELS) + 1)]
DEFAULT_PAIRINGS = ["L8:random", "L8:ab2"] + LEVEL_PAIRINGS


def parse_player(spec: str):
    """A searching player's level and evaluation weights from its name (see above)."""
    if spec == "ab2":
        return Level(2, 5, False, 1.0), MATERIAL
    name, _, changes = spec.partition("+")
    name, _, oversight = name.partition("%")
    name, _, noise = name.partition("~")
    name, _, depth = name.partition("@")
    try:
        level = level_of(int(name[1:]))
    except ValueError:
        raise SystemExit(f"unknown player {spec!r}") from None
    if depth:
        level = replace(level, depth=int(depth))
    if noise:
        level = replace(level, noise=int(noise))
    if oversight:
        level = replace(level, oversight=float(oversight) / 100)
    weights = dict(WEIGHTS)
    for item in filter(None, changes.split(",")):
        key, _, value = item.partition("=")
        if key not in weights:
            raise SystemExit(f"unknown weight {key!r} in {spec!r}")
        weights[key] = int(value)
    return level, weights


def players_version(pairing: str) -> str:
    """What decides how a pairing's two players play: the search's and the evaluation's
    source, the Level class's and each player's settings. Games resume and are
    reported only among equal versions, so a change to one level leaves the results of
    pairings without it standing."""
    parts = [inspect.getsource(search_module), inspect.getsource(evaluate_module),
             inspect.getsource(Level)]
    for spec in pairing.split(":"):
        if spec == "random":
            parts.append(spec)
        else:
            level, weights = parse_player(spec)
            parts.append(f"{level!r} {sorted(weights.items())!r}")
    return hashlib.sha1("\0".join(parts).encode()).hexdigest()[:10]


class Player:
    """One side of a match: ``choose(game) -> Move`` and its effort figures."""

    def __init__(self, spec: str, rules, movetime: float, seed: int) -> None:
        self.spec = spec
        self.rng = random.Random(seed)
        self.movetime = movetime
        self.times = []   # wall-clock seconds per move
        self.cpu = []     # this process's processor seconds per move
        self.nodes = 0
        if spec == "random":
            self.searcher = None
            return
        self.level, weights = parse_player(spec)
        self.searcher = Searcher(rules, weights, quiescence=self.level.quiescence,
                                 transposition=spec != "ab2")

    def choose(self, game):
        moves = game.legal_moves()
        if self.searcher is None:
            return self.rng.choice(moves)
        started, cpu = time.perf_counter(), time.process_time()
        analysis = self.level.search(self.searcher, game.position, movetime=self.movetime,
                                     history=game.positions[:-1], rng=self.rng)
        self.times.append(time.perf_counter() - started)
        self.cpu.append(time.process_time() - cpu)
        self.nodes += analysis.nodes
        return analysis.move


def play_game(a: str, b: str, index: int, args) -> dict:
    """Game ``index`` of pairing a:b: its board, A's colour and A's result (1, 0.5, 0)."""
    board = ("9x9", "7x8")[index // 2 % 2]
    a_red = index % 2 == 0
    rules = OFFICIAL
    players = {"red": Player(a if a_red else b, rules, args.movetime, index * 2 + 1),
               "black": Player(b if a_red else a, rules, args.movetime, index * 2 + 2)}
    opening = random.Random(1000 + index // 2)
    game = Game(size=board, rules=rules)
    for _ in range(args.random_plies):
        game.push(opening.choice(game.legal_moves()))
    while not game.status().over and game.ply < args.max_plies:
        side = game.position.side
        game.push(players[side].choose(game))
    status = game.status()
    a_side = "red" if a_red else "black"
    if status.winner is None:
        score = 0.5
    else:
        score = 1.0 if status.winner == a_side else 0.0
    stats = {}
    for who, side in (("a", a_side), ("b", "black" if a_side == "red" else "red")):
        p = players[side]
        stats[who] = {"moves": len(p.times), "seconds": round(sum(p.times), 4),
                      "longest": round(max(p.times, default=0.0), 4), "nodes": p.nodes,
                      "cpu_seconds": round(sum(p.cpu), 4),
                      "cpu_longest": round(max(p.cpu, default=0.0), 4)}
    final = game.position.board
    stones = {"red": sum(v for v in final if v > 0), "black": -sum(v for v in final if v < 0)}
    stats["a"]["stones"] = stones[a_side]
    stats["b"]["stones"] = stones["black" if a_side == "red" else "red"]
    return {"pairing": f"{a}:{b}", "engine": ENGINE, "players": players_version(f"{a}:{b}"),
            "movetime": args.movetime,
            "random_plies": args.random_plies, "max_plies": args.max_plies, "game": index,
            "board": board, "a_colour": a_side, "score": score, "plies": game.ply,
            "reason": status.reason if status.over else "max_plies", **stats}


def load(path: str):
    rows = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rows.append(json.loads(line))
    return rows


def settings_key(row) -> tuple:
    """What a game is resumed by: its players' version (not the pairing's name, which
    follows the level numbers) and the match settings."""
    return (row.get("players") or row.get("engine"), row["movetime"], row["random_plies"],
            row["max_plies"])


_VERSIONS = {}


def version(pairing: str):
    """``players_version(pairing)``, or None for a player of an earlier engine."""
    if pairing not in _VERSIONS:
        try:
            _VERSIONS[pairing] = players_version(pairing)
        except SystemExit:
            _VERSIONS[pairing] = None
    return _VERSIONS[pairing]


def elo(score: float) -> float:
    score = min(max(score, 0.5 / 1000), 1 - 0.5 / 1000)
    return 400 * math.log10(score / (1 - score))


def report(rows, pairings, movetime=None, all_engines=False) -> None:
    """The summary of ``pairings``' games (a game counts for a pairing when its players
    play as that pairing's do now, whatever the levels were called then), and with
    ``all_engines`` of every other game too, by the name and engine it was played under."""
    names = {version(p): p for p in reversed(pairings)}
    groups = defaultdict(list)
    for row in rows:
        name = names.get(row.get("players"))
        if name is None:
            if not all_engines:
                continue
            name = f"{row['pairing']} ({row.get('engine')})"
        if movetime is None or row["movetime"] == movetime:
            groups[(name,) + settings_key(row)[1:]].append(row)
    print(f"{'pairing':<22} {'move s':>6} {'games':>5} {'W-D-L of A':>12} {'A score':>8} "
          f"{'Elo-like':>8} {'9x9':>6} {'7x8':>6}  A: nodes/s mean-s longest-s cpu-s  "
          f"B: nodes/s mean-s longest-s cpu-s")
    ladder = {}
    for key in sorted(groups):
        games = groups[key]
        n = len(games)
        w = sum(1 for g in games if g["score"] == 1)
        d = sum(1 for g in games if g["score"] == 0.5)
        s = sum(g["score"] for g in games) / n
        per_board = {}
        for board in ("9x9", "7x8"):
            on = [g["score"] for g in games if g["board"] == board]
            per_board[board] = f"{100 * sum(on) / len(on):.0f}%" if on else "-"
        effort = []
        for who in ("a", "b"):
            moves = sum(g[who]["moves"] for g in games)
            seconds = sum(g[who]["seconds"] for g in games)
            nodes = sum(g[who]["nodes"] for g in games)
            longest = max(g[who]["longest"] for g in games)
            cpu_longest = max(g[who].get("cpu_longest", 0.0) for g in games)
            effort.append(f"{nodes / seconds:>9.0f} {seconds / moves:>6.3f} {longest:>9.3f} "
                          f"{cpu_longest:>6.3f}"
                          if moves and seconds else f"{'-':>9} {'-':>6} {'-':>9} {'-':>6}")
        name = key[0]
        print(f"{name:<22} {key[1]:>6} {n:>5} {f'{w}-{d}-{n - w - d}':>12} "
              f"{100 * s:>7.1f}% {elo(s):>+8.0f} {per_board['9x9']:>6} {per_board['7x8']:>6}"
              f"  {effort[0]}   {effort[1]}")
        a, _, b = key[0].partition(":")
        if a[1:].isdigit() and b[1:].isdigit() and a[0] == b[0] == "L":
            ladder[(int(a[1:]), key[1])] = (int(b[1:]), elo(s), n)
    for mt in sorted({t for _, t in ladder}):
        rungs = {a: v for (a, t), v in ladder.items() if t == mt}
        print(f"Elo-like ladder at {mt} s/move, the levels as they are (level 1 = 0, "
              f"summed level-to-level differences):")
        total, line = 0.0, ["L1 0"]
        for level in range(2, max(LEVELS) + 1):
            if level not in rungs or rungs[level][0] != level - 1:
                break
            total += rungs[level][1]
            line.append(f"L{level} {total:+.0f} ({rungs[level][2]} games)")
        print("  " + ", ".join(line))


# The Computer Language Benchmarks Game's n-body program (Python), the workload whose
# Raspberry Pi 4 time is published (see pi_ratio).
def nbody(steps: int) -> float:
    pi = math.pi
    solar_mass = 4 * pi * pi
    days = 365.24
    bodies = [
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], solar_mass],
        [[4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01],
         [1.66007664274403694e-03 * days, 7.69901118419740425e-03 * days,
          -6.90460016972063023e-05 * days], 9.54791938424326609e-04 * solar_mass],
        [[8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01],
         [-2.76742510726862411e-03 * days, 4.99852801234917238e-03 * days,
          2.30417297573763929e-05 * days], 2.85885980666130812e-04 * solar_mass],
        [[1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01],
         [2.96460137564761618e-03 * days, 2.37847173959480950e-03 * days,
          -2.96589568540237556e-05 * days], 4.36624404335156298e-05 * solar_mass],
        [[1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01],
         [2.68067772490389322e-03 * days, 1.62824170038242295e-03 * days,
          -9.51592254519715870e-05 * days], 5.15138902046611451e-05 * solar_mass]]
    pairs = [(bodies[i], bodies[j]) for i in range(5) for j in range(i + 1, 5)]
    dt = 0.01
    for _ in range(steps):
        for ([x1, y1, z1], v1, m1), ([x2, y2, z2], v2, m2) in pairs:
            dx, dy, dz = x1 - x2, y1 - y2, z1 - z2
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** (-1.5))
            b1m, b2m = m1 * mag, m2 * mag
            v1[0] -= dx * b2m
            v1[1] -= dy * b2m
            v1[2] -= dz * b2m
            v2[0] += dx * b1m
            v2[1] += dy * b1m
            v2[2] += dz * b1m
        for (r, [vx, vy, vz], m) in bodies:
            r[0] += dt * vx
            r[1] += dt * vy
            r[2] += dt * vz
    return bodies[0][0][0]


# Published: Raspberry Pi 4 Model B (4 GB, Cortex-A72 1.5 GHz, performance governor),
# the Python n-body benchmark with 5,000,000 steps: 158.263 s
# (https://chaitanyamehta.github.io/projects/performance-analysis-of-programming-languages).
PI4_NBODY_SECONDS, PI4_NBODY_STEPS = 158.263, 5_000_000


def pi_ratio(steps: int) -> None:
    # Processor time, not the wall clock: on a shared machine the wall clock also counts
    # the waits for a core.
    best = None
    for _ in range(3):
        started = time.process_time()
        nbody(steps)
        elapsed = time.process_time() - started
        best = elapsed if best is None else min(best, elapsed)
    here = best / steps
    pi4 = PI4_NBODY_SECONDS / PI4_NBODY_STEPS
    print(f"n-body, {steps} steps: best of 3 {best:.2f} processor s here = "
          f"{here * 1e6:.2f} us/step (Python {sys.version.split()[0]}); "
          f"Raspberry Pi 4 (published): {pi4 * 1e6:.2f} us/step")
    print(f"Pi 4 / this machine: {pi4 / here:.1f}x slower; the default "
          f"{DEFAULT_MOVETIME} s here is about {DEFAULT_MOVETIME * pi4 / here:.1f} s there")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairings", nargs="+", default=DEFAULT_PAIRINGS, metavar="A:B")
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--first-game", type=int, default=0, metavar="N",
                        help="play games N.. only (to share a pairing between processes "
                             "that append to one --out)")
    parser.add_argument("--movetime", type=float, default=DEFAULT_MOVETIME)
    parser.add_argument("--random-plies", type=int, default=4,
                        help="random setup plies that open each pair of games")
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument("--out", default=DEFAULT_OUT, help="JSON lines file of games")
    parser.add_argument("--report", action="store_true", help="only print the summary")
    parser.add_argument("--all-engines", action="store_true",
                        help="report games of earlier engines too (each apart)")
    parser.add_argument("--pi-ratio", type=int, nargs="?", const=200_000, metavar="STEPS",
                        help="time n-body here against the published Pi 4 time")
    args = parser.parse_args()
    if args.pi_ratio:
        pi_ratio(args.pi_ratio)
        return 0
    if args.report:
        print(f"engine source {ENGINE}; games from {args.out} whose players play as now")
        report(load(args.out), args.pairings, all_engines=args.all_engines)
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    done = defaultdict(set)
    for row in load(args.out):
        done[settings_key(row)].add(row["game"])
    for pairing in args.pairings:
        a, _, b = pairing.partition(":")
        key = (players_version(pairing), args.movetime, args.random_plies, args.max_plies)
        for index in range(args.first_game, args.games):
            if index in done[key]:
                continue
            row = play_game(a, b, index, args)
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{pairing} game {index}: {row['board']} A {row['a_colour']} "
                  f"score {row['score']} in {row['plies']} plies ({row['reason']})", flush=True)
    report(load(args.out), args.pairings, movetime=args.movetime)
    return 0


if __name__ == "__main__":
    sys.exit(main())

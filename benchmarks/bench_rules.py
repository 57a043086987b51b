"""Legal-move generation speed, in-process and through ``fenix-table legal``.

A fixed, seeded set of positions from random playouts on both boards — setup,
midgame and capture-rich positions — is generated once; then every position's legal
moves are generated several times over and the best run is reported (positions/s and
moves/s per category), followed by the command line: ``fenix-table legal`` on 8,000
lines from the same kind of playouts, timed from process start to the last line (best of
three runs), its start-up alone, and 10,000 lines written one at a time.

    python benchmarks/bench_rules.py [--positions 6000] [--repeat 5] [--cli-lines 8000]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fenix_table.rules import Game, legal_moves  # noqa: E402


def collect(total: int, seed: int = 2026):
    """``{"setup": [...], "midgame": [...], "capture-rich": [...]}`` from seeded playouts."""
    rng = random.Random(seed)
    setup, midgame, captures = [], [], []
    while len(setup) + len(midgame) + len(captures) < total:
        game = Game(size=rng.choice(["9x9", "7x8"]))
        while not game.status().over and game.ply < 400:
            moves = game.legal_moves()
            pos = game.position
            if pos.in_setup:
                if len(setup) < total // 6:
                    setup.append(pos)
            elif any(m.is_capture for m in moves):
                captures.append(pos)
            else:
                midgame.append(pos)
            game.push(rng.choice(moves))
    return {"setup": setup, "midgame": midgame, "capture-rich": captures}


def time_in_process(positions, repeat: int):
    best = None
    moves = 0
    for _ in range(repeat):
        start = time.perf_counter()
        moves = 0
        for pos in positions:
            moves += len(legal_moves(pos))
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return len(positions) / best, moves / best


def time_cli(text: str, runs: int = 3):
    """``(seconds, lines, moves)``: the fastest of ``runs`` runs of ``fenix-table legal``
    on ``text``, from process start to its last output line."""
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "fenix_table.cli", "legal"], input=text,
                                capture_output=True, text=True, check=True)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    lines = result.stdout.splitlines()
    return best, len(lines), sum(len(json.loads(line)["moves"]) for line in lines)


def bytecode_note() -> str:
    """How many of the package's modules start from current bytecode: without it every
    ``fenix-table`` start compiles them (``make install`` byte-compiles the package)."""
    import importlib.util
    from pathlib import Path
    sources = sorted(Path(__file__).resolve().parent.parent.joinpath("fenix_table").rglob("*.py"))
    fresh = 0
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        if cached.exists():
            # A timestamp .pyc header holds the source's mtime and size (PEP 552).
            header, stat = cached.read_bytes()[:16], source.stat()
            fresh += header[8:16] == ((int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") +
                                      (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little"))
    return f"bytecode for {fresh} of {len(sources)} fenix_table modules"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cli-lines", type=int, default=8000,
                        help="lines piped through fenix-table legal (default 8000)")
    args = parser.parse_args()

    groups = collect(args.positions)
    battle = groups["midgame"] + groups["capture-rich"]
    everything = groups["setup"] + battle
    print(f"positions: {len(everything)} (setup {len(groups['setup'])}, midgame "
          f"{len(groups['midgame'])}, capture-rich {len(groups['capture-rich'])}); "
          f"best of {args.repeat} runs, one core")
    for name, positions in [*groups.items(), ("battle (midgame + capture-rich)", battle),
                            ("all", everything)]:
        pps, mps = time_in_process(positions, args.repeat)
        print(f"in-process {name:32s} {pps:10,.0f} positions/s {mps:12,.0f} moves/s")

    cli_groups = collect(args.cli_lines)
    cli_positions = (cli_groups["setup"] + cli_groups["midgame"] +
                     cli_groups["capture-rich"])[:args.cli_lines]
    print(f"fenix-table legal runs with {bytecode_note()} (make install compiles them)")
    elapsed, lines, moves = time_cli("".join(p.fpn() + "\n" for p in cli_positions))
    print(f"fenix-table legal, {lines:,} lines, incl. start-up  {lines / elapsed:10,.0f} "
          f"positions/s {moves / elapsed:12,.0f} moves/s  ({elapsed:.2f} s, best of 3)")

    text = "".join(p.fpn() + "\n" for p in everything)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "fenix_table.cli", "legal", "--position",
                    everything[0].fpn()], capture_output=True, check=True)
    print(f"fenix-table legal start-up          {1000 * (time.perf_counter() - start):10.0f} ms")

    # "Without slowing down": 10,000 lines, first and last thousand timed separately.
    many = (text.splitlines() * (10000 // len(everything) + 1))[:10000]
    proc = subprocess.Popen([sys.executable, "-m", "fenix_table.cli", "legal"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    marks = []
    start = time.perf_counter()
    for i, line in enumerate(many):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        proc.stdout.readline()
        if i in (999, 8999, 9999):
            marks.append(time.perf_counter())
    proc.stdin.close()
    proc.wait()
    first = marks[0] - start
    last = marks[2] - marks[1]
    print(f"10,000 lines one by one: first 1,000 {first:.2f} s, last 1,000 {last:.2f} s")


if __name__ == "__main__":
    main()

"""Issue 20's counts: hostile inputs tried, and how many gave one line and exit 2 (78 for
run's broken configuration) with nothing changed; faults injected, and how many lost
nothing. The cases are tests/faults/cases.py (the fault suite runs the same ones).

    .venv/bin/python benchmarks/bench_faults.py [--long]

``--long`` adds the slow variants (24 more kill -9 trials). FENIX_FAULTS_PROGRAM=DIR
counts another checkout's program (e.g. ``git archive`` of an older commit).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from tests.faults.cases import BAD_INPUTS, FAULTS, SLOW_FAULTS, check_input  # noqa: E402


def main(argv=None) -> int:
    long = "--long" in (argv if argv is not None else sys.argv[1:])
    began = time.monotonic()
    good = 0
    for name, build in BAD_INPUTS.items():
        with tempfile.TemporaryDirectory() as tmp:
            problem = check_input(build(Path(tmp)))
        good += not problem
        print(f"  input {'ok ' if not problem else 'BAD'}  {name}" +
              (f": {problem}" if problem else ""), flush=True)
    faults = dict(FAULTS, **(SLOW_FAULTS if long else {}))
    kept = 0
    for name, fault in faults.items():
        with tempfile.TemporaryDirectory() as tmp:
            try:
                fault(Path(tmp))
                problem = ""
            except AssertionError as error:
                problem = str(error)[:200]
        kept += not problem
        print(f"  fault {'ok ' if not problem else 'BAD'}  {name}" +
              (f": {problem}" if problem else ""), flush=True)
    print(f"bad inputs tried: {len(BAD_INPUTS)}, one line and the expected exit status: {good}")
    print(f"faults injected: {len(faults)}, lost nothing: {kept}")
    print(f"({time.monotonic() - began:.0f} s)")
    return 0 if good == len(BAD_INPUTS) and kept == len(faults) else 1


if __name__ == "__main__":
    sys.exit(main())

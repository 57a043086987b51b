"""The ``fenix-table`` command line.

Each subcommand lives with the stage it belongs to (``fenix_table/<stage>/cli.py``) and
exposes ``register(subparsers)``. Those modules import only argparse at module level, so
``fenix-table legal`` starts without loading OpenCV, pygame or GPIO code.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from .errors import FenixError

# Subcommand modules, in the order they are listed by --help.
# A stage whose module is not installed (e.g. a trimmed build) is simply not offered.
COMMAND_MODULES = [
    "fenix_table.rules.cli",      # legal, play
    "fenix_table.vision.cli",     # detect, calibrate
    "fenix_table.referee.cli",    # track
    "fenix_table.record.cli",     # games
    "fenix_table.display.cli",    # run, demo
    "fenix_table.device.cli",     # lights
    "fenix_table.config",         # config show
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fenix-table",
        description="Fenix Table: a camera-watched companion and referee for FENIX.",
    )
    parser.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name is None or not (name + ".").startswith(error.name + "."):
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    # OpenCV logs its own warnings (e.g. a missing webcam) to stderr; our one-line errors
    # say the same thing in the user's terms. Must be set before cv2 is first imported.
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args) or 0
    except FenixError as error:
        print(f"fenix-table: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``fenix-table`` command line.

Each subcommand lives with the stage it belongs to (``fenix_table/<stage>/cli.py``) and
exposes ``register(subparsers)``. Those modules import only argparse at module level, so
``fenix-table legal`` starts without loading OpenCV, pygame or GPIO code.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .errors import FenixError

# Subcommand modules, in the order they are listed by --help.
COMMAND_MODULES = [
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
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
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

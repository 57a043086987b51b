"""The ``fenix-table`` command line.

Each subcommand lives with the stage it belongs to (``fenix_table/<stage>/cli.py``) and
exposes ``register(subparsers)``, the single source of its arguments and help. Those
modules import only argparse at module level, but importing one still runs its stage
package's ``__init__`` (the referee, the record store, the GPIO code...), so ``main``
imports only the module of the command named on the command line; ``--help``, no command
or an unknown one build the whole parser, which lists every command.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Optional, Sequence

from .errors import FenixError

# Subcommand modules, in the order they are listed by --help, with the commands each one
# registers (tests/test_cli.py checks these names against what register() adds).
# A stage whose module is not installed (e.g. a trimmed build) is simply not offered.
COMMAND_MODULES = {
    "fenix_table.rules.cli": ("legal", "play"),
    "fenix_table.vision.cli": ("detect", "calibrate"),
    "fenix_table.referee.cli": ("track",),
    "fenix_table.record.cli": ("games",),
    "fenix_table.display.cli": ("run", "demo"),
    "fenix_table.device.cli": ("lights",),
    "fenix_table.config": ("config",),
    "fenix_table.opponent.cli": ("move",),
    "fenix_table.club.cli": ("club",),
}
MODULE_OF_COMMAND = {command: module for module, commands in COMMAND_MODULES.items()
                     for command in commands}


def command_named(argv: Sequence[str]) -> Optional[str]:
    """The subcommand ``argv`` names, when it is plain to see: the first argument that is
    neither the global ``--config FILE`` nor its value. None when an option other than
    ``--config`` comes first (``--help``, a typo) or there is no argument left, so that
    argparse answers those with the whole parser."""
    args = iter(argv)
    for arg in args:
        if arg == "--config":
            next(args, None)
        elif arg.startswith("--config="):
            continue
        elif arg.startswith("-"):
            return None
        else:
            return arg
    return None


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The ``fenix-table`` parser: every command, or, given a name in
    :data:`MODULE_OF_COMMAND`, only the commands of that one module (all of them when it
    is not installed, so argparse says so as usual)."""
    parser = argparse.ArgumentParser(
        prog="fenix-table",
        description="Fenix Table: a camera-watched companion and referee for FENIX.",
    )
    parser.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    if command is None or not _register(subparsers, MODULE_OF_COMMAND[command]):
        for name in COMMAND_MODULES:
            _register(subparsers, name)
    return parser


def _register(subparsers, name: str) -> bool:
    """Add the commands of module ``name``; False when the module is not installed."""
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is None or not (name + ".").startswith(error.name + "."):
            raise
        return False
    module.register(subparsers)
    return True


def main(argv: list[str] | None = None) -> int:
    # OpenCV logs its own warnings (e.g. a missing webcam) to stderr; our one-line errors
    # say the same thing in the user's terms. Must be set before cv2 is first imported.
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    if argv is None:
        argv = sys.argv[1:]
    command = command_named(argv)
    parser = build_parser(command if command in MODULE_OF_COMMAND else None)
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

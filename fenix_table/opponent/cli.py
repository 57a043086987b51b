"""``fenix-table move``: the computer's move in one position.

Only the standard library, the rules engine and the opponent are imported, so it starts
fast. Exit status: 0 with the move token on stdout; 2 with one line for bad input; 3 with
one line naming the result when the game is over in that position.
"""
from __future__ import annotations

import sys

GAME_OVER = 3


def parse_level(text: str) -> int:
    """A level from the command line; FenixError (one line) names a bad one."""
    from ..errors import FenixError
    from . import LEVELS
    text = str(text).strip()
    if not (text.isascii() and text.isdigit()) or int(text) not in LEVELS:
        raise FenixError(f"level {text!r}: expected 1 to {max(LEVELS)}")
    return int(text)


def parse_movetime(text: str) -> float:
    """Seconds per move from the command line; FenixError (one line) names a bad value."""
    from ..errors import FenixError
    try:
        value = float(text)
    except ValueError:
        raise FenixError(f"--movetime {text!r} is not a number of seconds") from None
    if not 0.01 <= value <= 3600:   # nan fails both comparisons
        raise FenixError(f"--movetime {text!r}: expected 0.01 to 3600 seconds")
    return value


def register(subparsers) -> None:
    from ..rules.cli import _add_rules_arguments
    parser = subparsers.add_parser(
        "move", help="the computer's move in an FPN position",
        description="Search the position and print the chosen move token on one line "
                    "(exit 0). Bad input: one line, exit 2. A position where the game is "
                    "over: one line naming the result, exit 3.")
    parser.add_argument("--position", required=True, metavar="FPN", help="the position")
    _add_rules_arguments(parser)
    parser.add_argument("--level", default="8", metavar="N",
                        help="1 (beginner) to 8 (strongest, the default)")
    parser.add_argument("--movetime", metavar="SECONDS",
                        help="time for the move (default 0.4 s, about 2 s on a Pi 4)")
    parser.add_argument("--seed", type=int, help="seed for the lower levels' randomness")
    parser.set_defaults(handler=run_move)


def run_move(args) -> int:
    from ..errors import NotationError
    from ..rules import Position, legal_moves, position_status
    from ..rules.cli import _rules
    from . import DEFAULT_MOVETIME, choose

    rules = _rules(args)
    level = parse_level(args.level)
    movetime = DEFAULT_MOVETIME if args.movetime is None else parse_movetime(args.movetime)
    if not args.position.strip():
        raise NotationError("--position: empty; expected an FPN position "
                            "(size placement side setup duty clock)")
    try:
        position = Position.from_fpn(args.position)
    except NotationError as error:
        raise NotationError(f"--position: {error}") from None
    moves = legal_moves(position, rules)
    status = position_status(position, rules, moves)
    if status.over:
        print(f"game over: {status.text} ({status.fgn_result})")
        return GAME_OVER
    move = choose(position, rules, level=level, movetime=movetime, seed=args.seed)
    sys.stdout.write(move.token + "\n")
    return 0

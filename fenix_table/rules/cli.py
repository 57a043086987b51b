"""``fenix-table legal`` and ``fenix-table play``: the rules engine on the command line.

Only the standard library and the rules engine are imported here, so ``legal`` starts
fast (no OpenCV, pygame or GPIO).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from ..board import file_letter
from ..errors import FenixError, NotationError


def _add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="official", metavar="PRESET",
                        help="rules preset: official (default) or strike")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="override one rules option (repeatable), e.g. no_move=draw")


def _player(text: str):
    """``human``, ``random`` or ``computer[:LEVEL]`` as ``(kind, level)``."""
    kind, _, level = text.partition(":")
    if kind in ("human", "random") and not level:
        return (kind, None)
    if kind == "computer":
        if not level:
            return ("computer", 8)
        if level.isascii() and level.isdigit() and 1 <= int(level) <= 8:
            return ("computer", int(level))
    raise argparse.ArgumentTypeError(
        f"{text!r}: expected human, random or computer[:LEVEL] with LEVEL 1 to 8")


def _rules(args):
    from . import Rules
    return Rules.from_strings(args.rules, args.option)


def register(subparsers) -> None:
    legal = subparsers.add_parser(
        "legal", help="list legal moves of FPN positions as JSON lines",
        description="Read FPN positions (one per line on stdin, where blank lines are skipped, "
                    "or --position) and write one JSON line per position: "
                    '{"fpn", "moves", "status"} (and "reason" when the game is over).')
    _add_rules_arguments(legal)
    legal.add_argument("--position", metavar="FPN", help="a single position instead of stdin")
    legal.set_defaults(handler=run_legal)

    play = subparsers.add_parser(
        "play", help="play a game in the terminal",
        description="A terminal game of FENIX for two people, or against the computer "
                    "(computer[:LEVEL]) or a random mover. "
                    "Type move tokens (b1-c1, c3xc5xe5); 'help' lists the commands.")
    _add_rules_arguments(play)
    play.add_argument("--board", choices=("9x9", "7x8"), default="9x9", help="board side")
    play.add_argument("--start", metavar="FPN", help="start from this position")
    play.add_argument("--red", type=_player, default="human", metavar="PLAYER",
                      help="human (default), random, or computer[:LEVEL] (levels 1-8, "
                           "default 8)")
    play.add_argument("--black", type=_player, default="human", metavar="PLAYER",
                      help="as --red")
    play.add_argument("--movetime", metavar="SECONDS",
                      help="the computer's time per move (default 0.4 s, about 2 s on a Pi 4)")
    play.add_argument("--seed", type=int, help="seed for the random mover and the lower levels")
    play.add_argument("-o", "--output", metavar="FILE.fgn",
                      help="save the game here (default: fenix-<date-time>.fgn)")
    play.set_defaults(handler=run_play)


# ---------------------------------------------------------------------------------
# legal
# ---------------------------------------------------------------------------------

def legal_json(position, rules) -> str:
    """The JSON line (without newline) ``fenix-table legal`` writes for ``position``."""
    return _legal_answerer(rules)(position)


def _legal_answerer(rules):
    """``answer(position) -> str``: the JSON line for a position under ``rules``.

    Written by hand, five times faster than ``json.dumps`` of a dict: every string in it
    is made by the engine from cell names, piece letters, digits and fixed words, none of
    which JSON escapes, and the layout is ``json.dumps``'s default (``", "``, ``": "``),
    which the tests compare against.
    """
    from . import legal_moves, position_status

    def answer(position) -> str:
        moves = legal_moves(position, rules)
        status = position_status(position, rules, moves)
        tokens = [move.token for move in moves]
        tokens.sort()
        listed = '["' + '", "'.join(tokens) + '"]' if tokens else "[]"
        line = f'{{"fpn": "{position.fpn()}", "moves": {listed}, "status": "{status.result}"'
        if status.over:
            return f'{line}, "reason": "{status.reason}"}}'
        return line + "}"

    return answer


def run_legal(args) -> int:
    from . import Position
    rules = _rules(args)
    answer = _legal_answerer(rules)
    out = sys.stdout
    if args.position is not None:
        if not args.position.strip():
            raise NotationError("--position: empty; expected an FPN position "
                                "(size placement side setup duty clock)")
        try:
            position = Position.from_fpn(args.position)
        except NotationError as error:
            raise NotationError(f"--position: {error}") from None
        out.write(answer(position) + "\n")
        out.flush()
        return 0
    # Blank (or whitespace-only) lines in a stream are skipped, but counted in the line
    # numbers that errors name.
    for batch in _line_batches(sys.stdin):
        written = []
        for number, line in batch:
            if line.isspace() or not line:
                continue
            try:
                position = Position.from_fpn(line)
            except NotationError as error:
                out.write("".join(written))
                out.flush()
                raise NotationError(f"line {number}: {error}") from None
            written.append(answer(position) + "\n")
        out.write("".join(written))
        out.flush()
    return 0


def _line_batches(stream, chunk: int = 1 << 16):
    """``[(number, line), ...]`` batches of the lines ``stream`` has ready, numbered from 1.

    A batch is every complete line one read returns, so a pipe of thousands of lines is
    answered in a few writes, while a person typing (or a program writing one line and
    waiting for its answer) still gets each answer at once. A stream without a binary
    buffer (a ``StringIO``) is read line by line.
    """
    raw = getattr(stream, "buffer", None)
    if raw is None or not hasattr(raw, "read1"):
        for number, line in enumerate(stream, 1):
            yield [(number, line)]
        return
    encoding = getattr(stream, "encoding", None) or "utf-8"
    number = 0
    rest = b""
    while True:
        data = raw.read1(chunk)
        if not data:
            break
        data = rest + data
        cut = data.rfind(b"\n") + 1
        rest = data[cut:]
        if cut:
            yield from _decoded(data[:cut], encoding, number)
            number += data[:cut].count(b"\n")
    if rest:
        yield from _decoded(rest, encoding, number)


def _decoded(data: bytes, encoding: str, before: int):
    """The numbered lines of ``data`` as one batch (``before`` lines came earlier); the
    lines before one that is not text in ``encoding`` are answered, then NotationError
    names that line."""
    try:
        text, bad = data.decode(encoding), None
    except UnicodeDecodeError as error:
        good = data.rfind(b"\n", 0, error.start) + 1
        text, bad = data[:good].decode(encoding), before + data[:good].count(b"\n") + 1
    lines = _split_lines(text)
    if lines:
        yield list(enumerate(lines, before + 1))
    if bad is not None:
        raise NotationError(f"line {bad}: not {encoding} text")


def _split_lines(text: str) -> list:
    """The lines of ``text`` without their ``\\n``, split where text-mode ``stdin`` splits
    them on POSIX (at ``\\n`` only; ``strip`` removes a ``\\r``)."""
    lines = text.split("\n")
    if not lines[-1]:
        lines.pop()
    return lines


# ---------------------------------------------------------------------------------
# play
# ---------------------------------------------------------------------------------

HELP = """Commands:
  <move>     a move token: b1-c1 (move or stacking), c3xc5xe5 (capture chain)
  moves      list the legal moves
  hint       the computer's best move, with one line of reason
  undo       take back the last move
  draw       both players agree to a draw
  resign     the player to move resigns
  save       write the game file now
  quit       save and stop
  help       this text"""


def save_fgn(game, path: str, tags: dict) -> None:
    """Write the game atomically: a crash never leaves a half-written record."""
    import tempfile

    from . import GameRecord, format_fgn
    text = format_fgn(GameRecord.from_game(game, tags))
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise FenixError(f"cannot write {path}: it is a folder")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".fenix-", suffix=".fgn")
    except OSError as error:
        raise FenixError(f"cannot write {path}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(error, OSError):
            raise FenixError(f"cannot write {path}: {error.strerror}") from None
        raise


def board_text(position, rules) -> str:
    """The board with the compulsory captures marked, plus a status block."""
    from . import legal_moves
    moves = legal_moves(position, rules)
    captures = [m for m in moves if m.is_capture]
    marks = {}
    for move in captures:
        marks[move.path[0]] = "*"
        for cell in move.captured:
            marks[cell] = "x"
    lines = [position.ascii()]
    if marks:
        lines[0] = _mark(position, marks)
    side = position.side.capitalize()
    if position.in_setup:
        lines.append(f"{side} to move - preparing for battle, "
                     f"{position.setup_moves_left()} setup moves left")
    else:
        lines.append(f"{side} to move")
    if position.duty == "K":
        lines.append("King lost: recreate it by putting a soldier on a General")
    elif position.duty == "G":
        lines.append("General lost: you may put a soldier on a soldier")
    if captures:
        best = max(m.value for m in captures)
        shown = sorted(m.token for m in captures)
        lines.append(f"Capture is compulsory (takes {best}): " + " ".join(shown[:8]) +
                     (" ..." if len(shown) > 8 else ""))
    return "\n".join(lines)


def _mark(position, marks) -> str:
    """ASCII board where a marked cell shows its piece between brackets or as x."""
    geo = position.geo
    plain = [line.split()[1:] for line in position.ascii().splitlines()[:geo.height]]
    rows = []
    for r in range(geo.height - 1, -1, -1):
        cells = []
        for f in range(geo.width):
            name = geo.names[r * geo.width + f]
            piece = plain[geo.height - 1 - r][f]
            mark = marks.get(name)
            cells.append(f"[{piece}]" if mark == "*" else f"({piece})" if mark == "x"
                         else f" {piece} ")
        rows.append(f"{r + 1}" + "".join(cells))
    rows.append(" " + "".join(f" {file_letter(f)} " for f in range(geo.width)))
    return "\n".join(rows)


def run_play(args) -> int:
    import random

    from ..opponent.cli import parse_movetime
    from . import Game, Position, explain
    rules = _rules(args)
    start = Position.from_fpn(args.start) if args.start else Position.start(args.board)
    game = Game(start, rules)
    players = {"red": args.red, "black": args.black}
    rng = random.Random(args.seed)
    movetime = None if args.movetime is None else parse_movetime(args.movetime)

    def name(player, side):
        kind, level = player
        return {"random": "random mover", "computer": f"computer level {level}"}.get(
            kind, side)

    path = args.output or time.strftime("fenix-%Y%m%d-%H%M%S.fgn")
    tags = {"Event": "Terminal game", "Date": time.strftime("%Y.%m.%d"),
            "Red": name(args.red, "Red"), "Black": name(args.black, "Black")}
    interactive = sys.stdin.isatty()
    save_fgn(game, path, tags)   # a file that cannot be written is named before anyone plays
    print(f"FENIX on the {start.size} board, rules: {rules.describe()}. Type 'help' for commands.")
    while True:
        status = game.status()
        print()
        print(board_text(game.position, rules))
        if status.over:
            print(f"Game over: {status.text} ({status.fgn_result})")
            break
        side = game.position.side
        kind, level = players[side]
        if kind != "human":
            if kind == "random":
                move = rng.choice(game.legal_moves())
            else:
                from ..opponent import DEFAULT_MOVETIME, choose
                move = choose(game.position, rules, level=level,
                              movetime=movetime or DEFAULT_MOVETIME,
                              history=game.positions[:-1], seed=rng.randrange(1 << 30))
            game.push(move)
            save_fgn(game, path, tags)
            print(f"{side.capitalize()} plays {move.token}")
            continue
        try:
            text = input(f"{side}> " if interactive else "").strip()
        except EOFError:
            break
        if not text:
            continue
        command = text.lower()
        if command in ("quit", "exit"):
            break
        if command == "help":
            print(HELP)
        elif command == "moves":
            print(" ".join(sorted(m.token for m in game.legal_moves())))
        elif command == "hint":
            from ..opponent import DEFAULT_MOVETIME
            from ..opponent.coach import hint
            found = hint(game.position, rules, movetime=movetime or DEFAULT_MOVETIME,
                         history=game.positions[:-1])
            print(f"Hint: {found.text}")
        elif command == "undo":
            if not game.moves:
                print("No move to take back.")
            else:
                print(f"Took back {game.pop().token}")
                save_fgn(game, path, tags)
        elif command == "draw":
            game.agree_draw()
        elif command == "resign":
            game.resign(side)
        elif command == "save":
            save_fgn(game, path, tags)
            print(f"Saved {path}")
        else:
            try:
                explanation = explain(game.position, text, rules)
            except NotationError as error:
                print(f"Not a move: {error}")
                continue
            if not explanation.legal:
                print(f"Illegal: {explanation.text}")
                continue
            game.push(text)
            save_fgn(game, path, tags)
    save_fgn(game, path, tags)
    print(f"Game saved to {path}")
    return 0

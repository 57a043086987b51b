"""``fenix-table track``: vision + referee over a video file or a folder of frames.

Only argparse and the standard library are imported at module level; OpenCV, numpy and
the pipeline load inside the handler.
"""
from __future__ import annotations

import sys


def register(subparsers) -> None:
    track = subparsers.add_parser(
        "track", help="follow a game in a video or a folder of frames and record it",
        description="Run vision and the referee over SOURCE (a video file, a folder of frames "
                    "in name order, a camera index or picamera2). Events are printed as they "
                    "happen; every committed move is recorded in the game archive before it "
                    "is printed.")
    track.add_argument("source", metavar="SOURCE")
    track.add_argument("--board", choices=("auto", "9x9", "7x8"), default="auto",
                       help="board face (default: found from the frames)")
    track.add_argument("--rules", default="official", metavar="PRESET",
                       help="rules preset: official (default) or strike")
    track.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="override one rules option (repeatable), e.g. no_move=draw")
    track.add_argument("--calibration", metavar="FILE", help="saved calibration to start from")
    track.add_argument("--start", metavar="FPN", help="start from this position (FPN)")
    track.add_argument("--mode", choices=("referee", "casual"), default="referee")
    track.add_argument("--resume", type=int, metavar="ID",
                       help="continue the recorded, unfinished game ID")
    track.add_argument("--json", action="store_true", help="one JSON line per event")
    track.add_argument("-o", "--output", metavar="GAME.fgn", help="write the game as FGN")
    track.add_argument("--db", metavar="FILE",
                       help="game archive (default: record.database in the configuration, "
                            "else the user data folder)")
    track.add_argument("--stable-frames", type=int, default=3, metavar="N",
                       help="still frames before the board is read (default 3)")
    track.add_argument("--keep-frames", action="store_true", default=None,
                       help="store the still camera frame of every move (JPEG) in the archive "
                            "(default: record.save_frames in the configuration)")
    track.set_defaults(handler=run_track)


def run_track(args) -> int:
    from ..errors import BoardNotFoundError, ConfigError, RecordError
    from ..record import GameRecorder, GameStore
    from ..rules import Position, Rules
    from ..table import EventPrinter, GameSetup, RecordedFeed, Table, run
    from ..vision import Calibration, open_source

    rules = Rules.from_strings(args.rules, args.option)
    start = Position.from_fpn(args.start) if args.start else None
    board = args.board
    if start is not None:
        if board not in ("auto", start.size):
            raise ConfigError(f"--board {board} does not match the --start position ({start.size})")
        board = start.size
    if args.stable_frames < 1:
        raise ConfigError("--stable-frames must be at least 1")
    calibration = Calibration.load(args.calibration) if args.calibration else None
    if calibration is not None and board not in ("auto", calibration.board):
        raise ConfigError(f"the calibration is for {calibration.board}, not {board}")
    from ..config import configured_database

    store = GameStore(configured_database(args.db, getattr(args, "config", None)))
    if args.resume is not None:
        resumed = store.game(args.resume)
        if board not in ("auto", resumed.board):
            raise RecordError(f"game {args.resume} is on {resumed.board}, not {board}")
        board = resumed.board
    setup = GameSetup(size=board if board != "auto" else "9x9", preset=rules.name,
                      options=tuple(rules.overrides().items()), mode=args.mode,
                      start_fpn=args.start, asking=False,
                      tags=(("Event", "fenix-table track"), ("Site", str(args.source))))
    keep = args.keep_frames
    if keep is None:
        from ..config import load_config
        keep = load_config(getattr(args, "config", None)).record.save_frames
    record = GameRecorder(store, save_frames=keep)
    source = open_source(args.source)   # a missing source is named before a game is opened
    seen = _BoardSeen()
    table = Table(setup, record=record,
                  sinks=[EventPrinter(sys.stdout, as_json=args.json)],
                  stable_frames=args.stable_frames, calibration=calibration,
                  vision_board=board, resume=args.resume)
    watched = table.feed

    def feed(frame, index):
        changed = watched(frame, index)
        if table.result is not None and table.result.stable is not None:
            seen.found = True   # the board was read, still, at least once
        return changed

    table.feed = feed
    try:
        run(table, RecordedFeed(source))
    finally:
        table.close()
    if table.referee is None or not seen.found:
        where = f"no {board} board" if board != "auto" else "no board"
        if table.game_id is not None and args.resume is None and \
                store.move_count(table.game_id) == 0:
            store.delete(table.game_id)   # an empty game the run opened: not a game
        raise BoardNotFoundError(f"{where} found in {args.source}; nothing recorded")
    if args.output:
        text = store.export_fgn(table.game_id)
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as error:
            raise RecordError(f"cannot write {args.output}: {error.strerror}") from None
    store.close()
    return 0


class _BoardSeen:
    """Whether the board was ever read still (a ``track`` that never did records
    nothing: e.g. ``--board 9x9`` on frames of a 7x8 board)."""

    found = False

"""``fenix-table track``: vision + referee over a video file or a folder of frames.

Only argparse and the standard library are imported at module level; OpenCV, numpy and
the pipeline load inside the handler.
"""
from __future__ import annotations

import json
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
    track.add_argument("--db", metavar="FILE", help="game archive (default: user data folder)")
    track.add_argument("--stable-frames", type=int, default=3, metavar="N",
                       help="still frames before the board is read (default 3)")
    track.add_argument("--keep-frames", action="store_true",
                       help="store the camera frame of every move (JPEG) in the archive")
    track.set_defaults(handler=run_track)


def run_track(args) -> int:
    import dataclasses

    from ..errors import BoardNotFoundError, ConfigError, RecordError
    from ..record.store import GameStore
    from ..rules import Position, Rules
    from ..vision import Calibration, Vision, open_source
    from .events import describe
    from .referee import Referee

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
    store = GameStore(args.db)
    if args.resume is not None:
        resumed = store.game(args.resume)
        if board not in ("auto", resumed.board):
            raise RecordError(f"game {args.resume} is on {resumed.board}, not {board}")
        board = resumed.board
    vision = Vision(board=board, calibration=calibration, stable_frames=args.stable_frames)
    referee = None
    out = sys.stdout

    def emit(events, index) -> None:
        for event in events:
            if event.frame is None:
                event = dataclasses.replace(event, frame=index)
            if args.json:
                out.write(json.dumps(event.to_json()) + "\n")
            elif event.kind != "board_view":
                out.write(f"{index:>6}  {describe(event)}\n")
        out.flush()

    with open_source(args.source) as source:
        for index, frame in enumerate(source):
            result = vision.process(frame, index)
            if referee is None:
                if board == "auto" and result.calibration is None:
                    continue
                size = board if board != "auto" else result.calibration.board
                if args.resume is not None:
                    referee = Referee(store=store, game_id=args.resume, rules=rules)
                else:
                    referee = Referee(start=start, rules=rules, board=size, mode=args.mode,
                                      store=store, tags={"Event": "fenix-table track",
                                                         "Site": str(args.source)})
                emit(referee.begin(), index)
            observation = result.stable
            if observation is None:
                if result.status not in ("hand", "board_not_found"):
                    continue
                observation = result.observation   # only the camera state is taken from it
            jpeg = None
            if args.keep_frames and result.stable is not None:
                import cv2
                ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
                jpeg = data.tobytes() if ok else None
            events = referee.observe(observation, jpeg=jpeg)
            emit(events, index)
            seen = referee.seen_position(events) if result.stable is not None else None
            if seen is not None:
                vision.learn(seen)
    if referee is None:
        raise BoardNotFoundError(f"no board found in {args.source}")
    if args.output:
        text = store.export_fgn(referee.game_id)
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as error:
            raise RecordError(f"cannot write {args.output}: {error.strerror}") from None
    store.close()
    return 0

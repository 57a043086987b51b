"""``fenix-table run`` (the table itself) and ``fenix-table demo`` (a bundled recording).

Only argparse and the standard library at module level: pygame, OpenCV and numpy load
inside the handlers.
"""
from __future__ import annotations

import argparse


def _size(text: str):
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 800x480") from None
    if width < 320 or height < 240:
        raise argparse.ArgumentTypeError(f"{text}: the screen must be at least 320x240")
    return width, height


def _fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of frames per second") from None
    if not 0 < value <= 240:
        raise argparse.ArgumentTypeError(f"{text}: give frames per second between 0 and 240")
    return value


def _computer(text: str):
    """``SIDE[:LEVEL]``: ``black``, ``red:6``, or ``none`` -> ``(side, level or None)``."""
    side, _, level = text.lower().partition(":")
    if side not in ("red", "black", "none") or (side == "none" and level):
        raise argparse.ArgumentTypeError(f"{text!r}: give red, black or none, with an optional "
                                         f"level, e.g. black:6")
    if not level:
        return side, None
    if not level.isdigit() or not 1 <= int(level) <= 8:
        raise argparse.ArgumentTypeError(f"{text!r}: the level is 1 to 8, e.g. black:6")
    return side, int(level)


def register(subparsers) -> None:
    run = subparsers.add_parser(
        "run", help="the table: camera, referee, display, lights and record",
        description="Watch the board through the camera, referee the game and show it. "
                    "Ends with Q / Esc, Ctrl-C or SIGTERM; every move is saved as it is made.")
    run.add_argument("--camera", metavar="SOURCE",
                     help="picamera2, a webcam index (0), a video file or a folder of images "
                          "(default: camera.source in the configuration, else auto)")
    run.add_argument("--board", choices=("9x9", "7x8"), help="board side of the first game")
    run.add_argument("--rules", choices=("official", "strike"), help="rules preset")
    run.add_argument("--mode", choices=("referee", "casual"), help="referee or casual mode")
    run.add_argument("--computer", type=_computer, metavar="SIDE[:LEVEL]",
                     help="play against the computer: the side it plays (red, black, or none) "
                          "and its level 1 to 8, e.g. black:6 (default: [opponent] in the "
                          "configuration)")
    run.add_argument("--language", choices=("en", "de", "fr", "nl"))
    run.add_argument("--rotate", type=int, choices=(0, 1, 2, 3), help="quarter turns of the board picture")
    screen = run.add_mutually_exclusive_group()
    screen.add_argument("--fullscreen", action="store_true", default=None, help="fullscreen")
    screen.add_argument("--window", dest="fullscreen", action="store_false", help="a window")
    run.add_argument("--size", type=_size, help="window size WIDTHxHEIGHT (e.g. 800x480)")
    run.add_argument("--calibration", metavar="FILE", help="a saved calibration (JSON)")
    run.add_argument("--db", "--database", dest="database", metavar="FILE",
                     help="game archive (SQLite; default: the configured one, else the user data folder)")
    resume = run.add_mutually_exclusive_group()
    resume.add_argument("--resume", action="store_true",
                        help="continue the most recent unfinished game from the archive "
                             "(an error when there is none)")
    resume.add_argument("--continue", dest="continue_game", action="store_true",
                        help="continue the table's last game if it is unfinished, else start "
                             "a new one (the service starts with this, so a restart loses "
                             "nothing)")
    run.add_argument("--fps", type=_fps, metavar="N",
                     help="pace of a video file or image folder given as --camera, frames per "
                          "second (default: the video's own, else 8)")
    run.set_defaults(handler=run_command)

    demo = subparsers.add_parser(
        "demo", help="play the bundled camera recording through the whole pipeline",
        description="Runs a recorded game (made with the frame generator: hands, a capture "
                    "chain, a violation and its fix) through vision, referee and display. "
                    "With a screen it opens a window; without one it writes the display "
                    "frames and an MP4 to --out.")
    demo.add_argument("--out", metavar="DIR", default="fenix-demo",
                      help="where headless frames and the video go (default ./fenix-demo)")
    demo.add_argument("--headless", action="store_true", help="never open a window")
    demo.add_argument("--size", type=_size, default=None,
                      help="display size WIDTHxHEIGHT (default 800x480 headless)")
    demo.add_argument("--language", choices=("en", "de", "fr", "nl"), default=None)
    demo.add_argument("--frames", type=int, default=None, metavar="N",
                      help="stop after N camera frames (a quick look)")
    demo.add_argument("--recording", metavar="DIR", default=None,
                      help="another recording folder (frames plus script.json)")
    demo.add_argument("--fps", type=float, default=8.0,
                      help="pace in a window, camera frames per second (default 8)")
    demo.set_defaults(handler=demo_command)


def _config(args):
    try:
        from ..config import load_config
    except ImportError:
        return None
    return load_config(getattr(args, "config", None))


#: Exit status of ``run`` for a broken configuration (sysexits' EX_CONFIG): the only
#: failure a restart cannot mend, so the service unit's ``RestartPreventExitStatus``.
EXIT_CONFIG = 78


def run_command(args) -> int:
    from ..errors import ConfigError
    from .main import run_table
    try:
        return run_table(args, _config(args))
    except ConfigError as error:
        import sys
        print(f"fenix-table: {error}", file=sys.stderr)
        return EXIT_CONFIG


def demo_command(args) -> int:
    from .demo import run_demo
    language = args.language
    config = _config(args) if language is None else None
    if language is None:
        language = config.display.language if config is not None else "en"
    result = run_demo(out=args.out, headless=args.headless, size=args.size, language=language,
                      limit=args.frames, recording=args.recording, fps=args.fps)
    print(result.summary())
    return 0

"""``fenix-table lights test``: walk through every light and buzzer pattern.

On a Pi with the parts wired, each pattern is shown on the real pins for ``--hold``
seconds and button presses are reported as they happen. Without GPIO the same sequence is
printed as a timeline, so the patterns can be checked on a laptop.
"""
from __future__ import annotations

import argparse
import sys
import time

# (title, event name, fields): built into events inside the handler, where imports are allowed.
FPN = "-"
TIMELINE_SECONDS = 2.0
SEQUENCE = (
    ("new game", "GameStarted", dict(fpn=FPN, rules="official")),
    ("red to move", "TurnStarted", dict(side="red", fpn=FPN)),
    ("red must capture", "CaptureRequired", dict(side="red", moves=("c3xc5",))),
    ("take the captured stack off", "RemoveCaptured", dict(move="c3xc5", cells=("c4",))),
    ("move committed", "MoveCommitted", dict(move="c3xc5", side="red", ply=11,
                                             fpn_before=FPN, fpn_after=FPN, captured=("c4",))),
    ("black to move", "TurnStarted", dict(side="black", fpn=FPN)),
    ("move ambiguous: confirm on screen", "MoveAmbiguous", dict(moves=("g7-g6", "g7-f7"))),
    ("move confirmed", "MoveCommitted", dict(move="g7-g6", side="black", ply=12,
                                             fpn_before=FPN, fpn_after=FPN)),
    ("red to move", "TurnStarted", dict(side="red", fpn=FPN)),
    ("violation", "Violation", dict(explanation="A soldier moves one step.", code="E",
                                    attempted="g7-g4", restore_to=FPN)),
    ("violation cleared", "ViolationCleared", dict(resolution="restored")),
    ("board out of sync", "OutOfSync", dict(expected_fpn=FPN)),
    ("board in sync", "InSync", dict(fpn=FPN)),
    ("red wins", "GameOver", dict(result="1-0", winner="red", reason="king_captured",
                                  text="Red captured the king.")),
    ("new game", "GameStarted", dict(fpn=FPN, rules="official")),
    ("draw", "GameOver", dict(result="1/2-1/2", winner=None, reason="repetition",
                              text="Draw by repetition.")),
)


def register(subparsers) -> None:
    lights = subparsers.add_parser(
        "lights", help="check the status LEDs, buzzer and buttons",
        description="Status LEDs, buzzer and buttons wired to the GPIO header "
                    "(pins from the [gpio] section of the configuration).")
    actions = lights.add_subparsers(dest="lights_command", metavar="ACTION")
    actions.required = True
    test = actions.add_parser(
        "test", help="cycle through every pattern (printed when there is no GPIO)",
        description="Shows each referee event's pattern in turn: on the real pins for "
                    "--hold seconds each, or, without GPIO, as a printed timeline "
                    "(# lit, . dark). Button presses are reported while it runs.")
    test.add_argument("--hold", type=_seconds, default=3.0, metavar="SECONDS",
                      help="how long each pattern is shown on real pins (default 3)")
    test.add_argument("--print", dest="force_print", action="store_true",
                      help="print the timelines even when GPIO is present")
    test.set_defaults(handler=run_test)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"expected 0-60 seconds, got {text}")
    return value


def run_test(args) -> int:
    import logging

    from ..config import load_config
    from ..referee import events
    from .lights import Lights

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    config = load_config(getattr(args, "config", None))
    lights = Lights.from_config(config)
    out = sys.stdout
    with lights:
        lights.on_move_done = lambda: print("  button: move done", file=out, flush=True)
        lights.on_clock = lambda side: print(f"  button: {side} clock", file=out, flush=True)
        printing = args.force_print or not lights.active
        parts = [*lights.leds, *(["rgb"] if lights.rgb else []),
                 *(["buzzer"] if lights.buzzer else []), *lights.buttons]
        if lights.active:
            print(f"GPIO parts in use: {', '.join(parts)}", file=out)
        if not lights.active:
            # Nothing to watch in real time: step a virtual clock one timeline per pattern.
            virtual = [0.0]
            lights.clock = lambda: virtual[0]
        if printing:
            print("timelines: 2 s per pattern, 50 ms per character, # lit, . dark", file=out)
        for number, (title, name, fields) in enumerate(SEQUENCE, 1):
            event = getattr(events, name)(**fields)
            lights.handle(event)
            lit = {k: v for k, v in lights.describe().items() if v != "off"}
            summary = ", ".join(f"{k} {v}" for k, v in lit.items()) or "all off"
            print(f"{number:2d}. {title}: {summary}", file=out, flush=True)
            if printing:
                for output, strip in lights.timeline(TIMELINE_SECONDS).items():
                    print(f"      {output:<10} {strip}", file=out)
            if lights.active:
                time.sleep(args.hold)
            else:
                virtual[0] += TIMELINE_SECONDS
    return 0

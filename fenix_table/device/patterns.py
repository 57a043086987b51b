"""What the lights and the buzzer show for each referee event: a pure state machine.

:class:`LightsModel` consumes referee events and answers, for any moment, the
:class:`Pattern` of every output and its level (0 or 1). It knows no GPIO, so it is tested
directly and drives any backend (gpiozero pins, the ``lights test`` printout).

Outputs and their meaning:

============  ==========================================================================
red_turn      Red to move: steady. Blinks slowly while the move is ambiguous (confirm on
              the screen); blinks fast after the game when Red has won.
black_turn    The same for Black. After a drawn game red and black blink alternately.
capture       A capture is compulsory: slow blink until the capture is made; fast blink
              while captured stacks must still be taken off the board.
violation     Steady after an illegal change until it is cleared; short blink with long
              pauses while the board is out of sync with the game.
buzzer        Two short beeps on a violation, one long beep at the end of the game.
============  ==========================================================================

Against the computer, "your turn to move my piece": when the computer has chosen its
move, the turn LED of its side double-flashes (two short flashes, a pause) until the
move is on the board, and the buzzer chirps three times.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

OUTPUTS = ("red_turn", "black_turn", "capture", "violation", "buzzer")
LEDS = OUTPUTS[:4]

# Timings in seconds. Slow and fast blinks must be told apart at a glance across the table.
CAPTURE_BLINK = (0.5, 0.5)
REMOVE_BLINK = (0.15, 0.15)
AMBIGUOUS_BLINK = (0.5, 0.5)
OUT_OF_SYNC_BLINK = (0.2, 0.8)
WIN_BLINK = (0.2, 0.2)
DRAW_BLINK = (0.4, 0.4)
VIOLATION_BEEPS = ((0.1, 0.1), (0.1, 0.0))
GAME_OVER_BEEPS = ((0.6, 0.0),)
COMPUTER_MOVE_FLASHES = ((0.1, 0.1), (0.1, 0.7))
COMPUTER_MOVE_BEEPS = ((0.05, 0.08), (0.05, 0.08), (0.05, 0.0))


class Pattern:
    """A level (0 or 1) as a function of time."""

    def level(self, t: float) -> int:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Steady(Pattern):
    on: bool

    def level(self, t: float) -> int:
        return int(self.on)

    def describe(self) -> str:
        return "on" if self.on else "off"


OFF = Steady(False)
ON = Steady(True)


@dataclass(frozen=True)
class Blink(Pattern):
    """On for ``on`` seconds, off for ``off`` seconds, from ``start``; ``inverted`` starts
    with the off half (for alternating pairs)."""

    on: float
    off: float
    start: float = 0.0
    inverted: bool = False

    def level(self, t: float) -> int:
        # A small epsilon keeps exact edges (t = start + on) on the next half.
        phase = (t - self.start + 1e-9) % (self.on + self.off)
        lit = phase < self.on
        return int(lit != self.inverted)

    def describe(self) -> str:
        return f"blink {self.on:g}s on/{self.off:g}s off" + (" (inverted)" if self.inverted else "")


def _step_level(steps: Tuple[Tuple[float, float], ...], t: float) -> int:
    """1 while ``t`` seconds into ``steps`` (``(on, off)`` pairs) falls in an on part."""
    for on, off in steps:
        if t < on:
            return 1
        t -= on + off
        if t < 0:
            return 0
    return 0


@dataclass(frozen=True)
class Beeps(Pattern):
    """A finite sequence of ``(on, off)`` steps from ``start``; silent afterwards."""

    steps: Tuple[Tuple[float, float], ...]
    start: float = 0.0

    def level(self, t: float) -> int:
        t = t - self.start + 1e-9
        return 0 if t < 0 else _step_level(self.steps, t)

    @property
    def end(self) -> float:
        return self.start + sum(on + off for on, off in self.steps)

    def describe(self) -> str:
        return "beeps " + ", ".join(f"{on:g}s" for on, _ in self.steps)


@dataclass(frozen=True)
class Flashes(Pattern):
    """``(on, off)`` steps from ``start``, repeated for as long as the pattern stands."""

    steps: Tuple[Tuple[float, float], ...]
    start: float = 0.0

    def level(self, t: float) -> int:
        period = sum(on + off for on, off in self.steps)
        return _step_level(self.steps, (t - self.start + 1e-9) % period)

    def describe(self) -> str:
        return "flashes " + ", ".join(f"{on:g}s" for on, _ in self.steps) + " (repeated)"


class LightsModel:
    """The state behind the lights, fed with referee events.

    ``handle(event, now)`` takes any event from :mod:`fenix_table.referee.events` (unknown
    kinds are ignored); ``patterns(now)`` and ``levels(now)`` give every output of
    :data:`OUTPUTS`. ``turn`` is the side to move (``None`` before the first turn and after
    the game), so a clock button knows whether its press ends the current turn.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.turn: Optional[str] = None
        self.capture: Optional[Blink] = None
        self.ambiguous: Optional[float] = None
        self.violation = False
        self.out_of_sync: Optional[float] = None
        self.result: Optional[Tuple[str, float]] = None  # ("red"|"black"|"draw", since)
        self.beeps: Optional[Beeps] = None
        self.computer_move: Optional[Tuple[str, float]] = None   # (side, since)

    def handle(self, event, now: float) -> None:
        kind = getattr(event, "kind", None)
        if kind == "game_started":
            self.reset()
        elif kind == "turn_started":
            self.turn, self.capture, self.ambiguous, self.result = event.side, None, None, None
            self.computer_move = None
        elif kind == "computer_move":
            self.computer_move = (event.side, now)
            self.beeps = Beeps(COMPUTER_MOVE_BEEPS, start=now)
        elif kind == "capture_required":
            self.capture = Blink(*CAPTURE_BLINK, start=now)
        elif kind == "remove_captured":
            self.capture = Blink(*REMOVE_BLINK, start=now)
        elif kind == "move_ambiguous":
            self.ambiguous = now
        elif kind in ("move_committed", "move_undone"):
            self.capture, self.ambiguous, self.computer_move = None, None, None
        elif kind == "violation":
            self.violation, self.computer_move = True, None
            self.beeps = Beeps(VIOLATION_BEEPS, start=now)
        elif kind == "violation_cleared":
            self.violation = False
        elif kind == "out_of_sync":
            if self.out_of_sync is None:
                self.out_of_sync = now
        elif kind == "in_sync":
            self.out_of_sync = None
        elif kind == "game_over":
            self.turn, self.capture, self.ambiguous = None, None, None
            self.violation, self.out_of_sync, self.computer_move = False, None, None
            self.result = (event.winner or "draw", now)
            self.beeps = Beeps(GAME_OVER_BEEPS, start=now)

    def patterns(self, now: float) -> Dict[str, Pattern]:
        out: Dict[str, Pattern] = {name: OFF for name in OUTPUTS}
        if self.result is not None:
            winner, since = self.result
            if winner == "draw":
                out["red_turn"] = Blink(*DRAW_BLINK, start=since)
                out["black_turn"] = Blink(*DRAW_BLINK, start=since, inverted=True)
            else:
                out[f"{winner}_turn"] = Blink(*WIN_BLINK, start=since)
        elif self.turn is not None:
            out[f"{self.turn}_turn"] = (Blink(*AMBIGUOUS_BLINK, start=self.ambiguous)
                                        if self.ambiguous is not None else ON)
            if self.computer_move is not None and self.ambiguous is None:
                side, since = self.computer_move
                out[f"{side}_turn"] = Flashes(COMPUTER_MOVE_FLASHES, start=since)
        if self.capture is not None:
            out["capture"] = self.capture
        if self.violation:
            out["violation"] = ON
        elif self.out_of_sync is not None:
            out["violation"] = Blink(*OUT_OF_SYNC_BLINK, start=self.out_of_sync)
        if self.beeps is not None and self.beeps.start <= now < self.beeps.end:
            out["buzzer"] = self.beeps
        return out

    def levels(self, now: float) -> Dict[str, int]:
        return {name: pattern.level(now) for name, pattern in self.patterns(now).items()}


def timeline(model: LightsModel, start: float, seconds: float = 2.0, step: float = 0.05) -> Dict[str, str]:
    """Each output as a strip of characters (``#`` lit, ``.`` dark) sampled every ``step``."""
    samples = [start + i * step for i in range(int(round(seconds / step)))]
    strips = {name: [] for name in OUTPUTS}
    for t in samples:
        for name, level in model.levels(t).items():
            strips[name].append("#" if level else ".")
    return {name: "".join(chars) for name, chars in strips.items()}

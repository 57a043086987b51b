"""Typed events the referee emits; the display, the lights and the record consume them.

Events are plain frozen dataclasses holding only strings, numbers and tuples (cells as
``"c3"``, moves as tokens ``"c3xc5"``, positions as FPN), so every consumer can use them
without touching the referee's or the engine's internals. ``to_json()`` gives the
``fenix-table track --json`` form: ``{"event": <kind>, "frame": <index>, ...fields}``, and
:func:`from_json` reads it back (the game archive keeps events in that form), so every
consumer works with these classes, never with key strings.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, Mapping, Optional, Tuple, Type


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"
    frame: Optional[int] = field(default=None, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            data[f.name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass(frozen=True)
class GameStarted(Event):
    kind: ClassVar[str] = "game_started"
    fpn: str
    rules: str
    game_id: Optional[int] = None


@dataclass(frozen=True)
class TurnStarted(Event):
    """A new turn: whose it is, what they owe (``duty``: "-", "K", "G") and setup progress."""

    kind: ClassVar[str] = "turn_started"
    side: str  # "red" | "black"
    fpn: str
    duty: str = "-"
    setup_moves_left: int = 0


@dataclass(frozen=True)
class CaptureRequired(Event):
    """At the start of a turn a capture is compulsory; ``moves`` are all maximal captures."""

    kind: ClassVar[str] = "capture_required"
    side: str
    moves: Tuple[str, ...]


@dataclass(frozen=True)
class RemoveCaptured(Event):
    """The capturing piece has landed; these jumped stacks must still be taken off."""

    kind: ClassVar[str] = "remove_captured"
    move: str
    cells: Tuple[str, ...]


@dataclass(frozen=True)
class MoveAmbiguous(Event):
    """The board fits several legal moves equally well (e.g. a stacking move whose target
    height the camera cannot read). Nothing is committed: the players confirm one of
    ``moves`` (each a space-separated ply sequence) on the display, or the camera decides
    once it sees more. ``cells``: at most three cells to look at, the likeliest first: the
    cells that tell the options apart when there are that few, else the landings the
    camera's evidence speaks for most; none when it measured nothing that tells them
    apart. ``moves`` is empty when the options are too many to list or the search gave up
    before finding them all; ``cells`` are then the cells that changed, when at most three."""

    kind: ClassVar[str] = "move_ambiguous"
    moves: Tuple[str, ...]
    cells: Tuple[str, ...] = ()


@dataclass(frozen=True)
class MoveCommitted(Event):
    """A move is final and already on disk."""

    kind: ClassVar[str] = "move_committed"
    move: str
    side: str
    ply: int
    fpn_before: str
    fpn_after: str
    captured: Tuple[str, ...] = ()
    #: Casual mode: the players kept an illegal change; ``move`` is the attempted move
    #: and ``fpn_after`` the position play goes on from.
    played_on: bool = False
    #: The camera could not tell this ply from ``alternatives`` (other moves from the
    #: same position) and nobody was asked: it is the likeliest, not a certain one.
    uncertain: bool = False
    alternatives: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Violation(Event):
    """An illegal change on the board. ``code``/``params`` let the display translate it."""

    kind: ClassVar[str] = "violation"
    explanation: str
    code: str
    attempted: Optional[str]
    restore_to: str
    cells: Tuple[str, ...] = ()
    params: Tuple[Tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ViolationCleared(Event):
    kind: ClassVar[str] = "violation_cleared"
    resolution: str  # "restored" | "played_on" | "corrected"


@dataclass(frozen=True)
class OutOfSync(Event):
    """Nothing legal fits what the camera sees; players must restore or confirm."""

    kind: ClassVar[str] = "out_of_sync"
    expected_fpn: str
    cells: Tuple[str, ...] = ()


@dataclass(frozen=True)
class InSync(Event):
    kind: ClassVar[str] = "in_sync"
    fpn: str


@dataclass(frozen=True)
class Notice(Event):
    """Something worth showing that is not a rule violation (e.g. vision heights disagree)."""

    kind: ClassVar[str] = "notice"
    code: str
    message: str
    cells: Tuple[str, ...] = ()


@dataclass(frozen=True)
class BoardView(Event):
    """The camera's state: board found (or, while not, ``searching``: a search for it under
    way), hand over the board, covered cells."""

    kind: ClassVar[str] = "board_view"
    board_found: bool
    hand: bool
    occluded_cells: Tuple[str, ...] = ()
    camera_ok: bool = True
    searching: bool = False


@dataclass(frozen=True)
class MoveUndone(Event):
    kind: ClassVar[str] = "move_undone"
    move: str
    fpn: str


@dataclass(frozen=True)
class DrawOffered(Event):
    kind: ClassVar[str] = "draw_offered"
    side: str


@dataclass(frozen=True)
class GameOver(Event):
    """``result`` is the FGN result: "1-0", "0-1", "1/2-1/2"; ``reason`` a code, ``text`` English."""

    kind: ClassVar[str] = "game_over"
    result: str
    winner: Optional[str]  # "red" | "black" | None for a draw
    reason: str
    text: str


@dataclass(frozen=True)
class ComputerThinking(Event):
    """The computer is searching its move for ``side`` in ``fpn`` (``depth``: the last
    depth it completed, 0 at the start)."""

    kind: ClassVar[str] = "computer_thinking"
    side: str
    fpn: str
    depth: int = 0
    level: int = 0


@dataclass(frozen=True)
class ComputerMove(Event):
    """The computer chose ``move`` for ``side`` in ``fpn``: the player makes it with the
    computer's piece on the board, and the referee takes no other move from that
    position. ``path``: the start and landing cells; ``jumped``: the stacks it takes;
    ``score``: hundredths of a stone, the computer's view."""

    kind: ClassVar[str] = "computer_move"
    side: str
    move: str
    fpn: str
    path: Tuple[str, ...] = ()
    jumped: Tuple[str, ...] = ()
    level: int = 0
    depth: int = 0
    score: int = 0


@dataclass(frozen=True)
class Comment(Event):
    """A remark kept with the game record (an imported FGN comment)."""

    kind: ClassVar[str] = "comment"
    text: str


def _kinds() -> Dict[str, Type[Event]]:
    found: Dict[str, Type[Event]] = {}
    todo = list(Event.__subclasses__())
    while todo:
        cls = todo.pop()
        found[cls.kind] = cls
        todo.extend(cls.__subclasses__())
    return found


def from_json(data: Mapping[str, Any]) -> Event:
    """The event of a ``to_json()`` dict. Fields it does not know are ignored and missing
    ones take their defaults (archives written by older versions); ValueError when the
    kind is unknown or a required field is missing."""
    cls = _kinds().get(str(data.get("event")))
    if cls is None:
        raise ValueError(f"unknown event kind {data.get('event')!r}")
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            value = data[f.name]
            values[f.name] = _tuples(value) if isinstance(value, list) else value
    try:
        return cls(**values)
    except TypeError as error:
        raise ValueError(f"{cls.kind} event: {error}") from None


def _tuples(value: list) -> tuple:
    return tuple(_tuples(v) if isinstance(v, list) else v for v in value)


def describe(event: Event) -> str:
    """One line of plain English for an event (``fenix-table track`` and
    ``fenix-table games show`` print these). Blank fields read as blank."""
    data = event.to_json()

    def get(name: str) -> Any:
        value = data.get(name)
        return "" if value is None else value

    def cells(name: str) -> str:
        return " ".join(str(c) for c in data.get(name) or ())

    kind = str(data.get("event", "event"))
    if kind == "game_started":
        return f"game {get('game_id')} started: {get('fpn')} ({get('rules')})"
    if kind == "turn_started":
        left = f", {data['setup_moves_left']} setup moves left" if data.get("setup_moves_left") else ""
        duty = {"K": ", must recreate the King", "G": ", may create a General"}.get(data.get("duty"), "")
        return f"{get('side')} to move{duty}{left}"
    if kind == "capture_required":
        return f"{get('side')} must capture: {cells('moves')}"
    if kind == "remove_captured":
        return f"{get('move')}: take off {cells('cells')}"
    if kind == "move_committed":
        doubt = ""
        if data.get("uncertain"):
            others = data.get("alternatives") or ()
            doubt = (f" (uncertain: may have been {', '.join(others[:4])}"
                     f"{', ...' if len(others) > 4 else ''})")
        return f"move {get('ply')}: {get('side')} {get('move')}{doubt}"
    if kind == "move_ambiguous":
        options = ", ".join(data.get("moves") or ()) or "too many"
        return f"cannot tell the move apart ({options}); look at {cells('cells')}"
    if kind == "violation":
        attempted = f"{data['attempted']}: " if data.get("attempted") else ""
        return f"VIOLATION {attempted}{get('explanation')}; restore {get('restore_to')}"
    if kind == "violation_cleared":
        return f"violation resolved ({get('resolution')})"
    if kind == "out_of_sync":
        return f"board out of sync at {cells('cells')}; expected {get('expected_fpn')}"
    if kind == "in_sync":
        return "board matches the game"
    if kind == "notice":
        return f"note: {get('message')}"
    if kind == "game_over":
        return f"game over: {get('text')} ({get('result')})"
    if kind == "move_undone":
        return f"took back {get('move')}"
    if kind == "draw_offered":
        return f"{get('side')} offers a draw"
    if kind == "computer_thinking":
        return f"the computer ({get('side')}) is thinking (depth {get('depth')})"
    if kind == "computer_move":
        return f"the computer ({get('side')}) plays {get('move')}: move its piece"
    if kind == "comment":
        return "{" + str(get("text")) + "}"
    return kind.replace("_", " ")

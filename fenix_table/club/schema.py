"""The club broadcast's topics and messages, and the checks every received message passes.

Topics (``<club>`` and ``<table>`` are names of letters, digits, ``_`` and ``-``)::

    fenix/<club>/<table>/state    retained, QoS 1: the table's whole game (GameState.to_json)
    fenix/<club>/<table>/event    QoS 1: one referee event as it happened
    fenix/<club>/<table>/online   retained: "true" while connected, "false" (last will)

Every state and event message carries ``schema``, ``club``, ``table``, ``session`` (new
each time the table's broadcast starts), ``game`` (the games begun in the session, the
current one's number), ``seq`` (the session's message counter, which only grows, so a
viewer keeps the newest state even when a retransmitted one arrives late) and ``sent``
(the table's wall clock, seconds).

A viewer trusts nothing it receives: :func:`read_message` checks the topic, the size,
the JSON, that the table named inside is the table of the topic, every field's type and
the position with the rules engine, and raises :class:`BadMessage` naming the problem.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple

SCHEMA = 1
ROOT = "fenix"
KINDS = ("state", "event", "online")
#: The largest message read (a 2,000-ply game's state is about 150 KB).
MAX_PAYLOAD = 512 * 1024
#: Moves in one game, as the record's reader allows.
MAX_MOVES = 2000
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TOKEN = re.compile(r"^[a-i][1-9](?:-[a-i][1-9]|(?:x[a-i][1-9]){1,40})$")
STATUSES = ("setup", "playing", "capture", "violation", "out_of_sync", "over")
RESULTS = ("*", "1-0", "0-1", "1/2-1/2")
SIDES = ("red", "black")
#: Event kinds a table broadcasts (the camera's own state and display notices stay home).
BROADCAST_EVENTS = ("game_started", "move_committed", "move_undone", "capture_required",
                    "violation", "violation_cleared", "out_of_sync", "in_sync",
                    "draw_offered", "game_over")
TAG_NAMES = ("Event", "Site", "Round", "Red", "Black", "Date")


class BadMessage(ValueError):
    """A message a viewer ignores; the text names the problem."""


def topic(club: str, table: str, kind: str) -> str:
    return f"{ROOT}/{club}/{table}/{kind}"


def check_name(what: str, name: str) -> str:
    """``name`` when it is a valid club or table name, else ValueError naming it."""
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(f"{what} {name!r}: use 1-64 letters, digits, _ or -")
    return name


def split_topic(text: str) -> Tuple[str, str, str]:
    """``(club, table, kind)`` of a broadcast topic; BadMessage for any other topic."""
    parts = text.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[3] not in KINDS or \
            not NAME.match(parts[1]) or not NAME.match(parts[2]):
        raise BadMessage(f"not a table topic: {text[:120]!r}")
    return parts[1], parts[2], parts[3]


@dataclass(frozen=True)
class Message:
    """A checked message: ``kind`` "state", "event" or "online"; ``data`` the checked
    fields (for "online": ``{"online": bool}``)."""

    club: str
    table: str
    kind: str
    data: Dict[str, Any]


def read_message(topic_text: str, payload: bytes) -> Message:
    """Check one received message (see the module docstring); BadMessage names the fault."""
    club, table, kind = split_topic(topic_text)
    where = f"{club}/{table}/{kind}"
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"{where}: payload of {len(payload)} bytes is over the limit "
                         f"of {MAX_PAYLOAD}")
    if kind == "online":
        text = payload.decode("ascii", "replace").strip()
        if text not in ("true", "false"):
            raise BadMessage(f"{where}: expected true or false, got {text[:40]!r}")
        return Message(club, table, kind, {"online": text == "true"})
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise BadMessage(f"{where}: not JSON ({str(error)[:80]})") from None
    if not isinstance(data, dict):
        raise BadMessage(f"{where}: expected a JSON object")
    check = _Checker(where, data)
    if check.get("schema", int) != SCHEMA:
        raise BadMessage(f"{where}: schema {data.get('schema')!r} is not {SCHEMA}")
    if check.get("club", str) != club or check.get("table", str) != table:
        raise BadMessage(f"{where}: the message names table "
                         f"{data.get('club')!r}/{data.get('table')!r}, not its topic's")
    check.get("seq", int)
    check.get("sent", float)
    session = check.get("session", str)
    if not NAME.match(session):
        raise BadMessage(f"{where}: session: expected a short name")
    check.get("game", int)
    if kind == "state":
        return Message(club, table, kind, _state(check))
    return Message(club, table, kind, _event(check))


class _Checker:
    def __init__(self, where: str, data: Dict[str, Any]) -> None:
        self.where = where
        self.data = data

    def get(self, key: str, kind, optional: bool = False, data=None):
        source = self.data if data is None else data
        value = source.get(key)
        if value is None and optional:
            return None
        if kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and \
                math.isfinite(value)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 53
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise BadMessage(f"{self.where}: {key}: expected {kind.__name__}, got "
                             f"{type(value).__name__}")
        if isinstance(value, str) and len(value) > 2000:
            raise BadMessage(f"{self.where}: {key}: text too long")
        return value

    def choice(self, key: str, choices, optional: bool = False, data=None):
        value = self.get(key, str, optional, data)
        if value is not None and value not in choices:
            raise BadMessage(f"{self.where}: {key}: {value[:40]!r} is not one of "
                             f"{', '.join(choices)}")
        return value

    def fpn(self, key: str, data=None):
        from ..errors import FenixError
        from ..rules import Position
        text = self.get(key, str, data=data)
        try:
            return Position.from_fpn(text)
        except FenixError as error:
            raise BadMessage(f"{self.where}: {key}: {error}") from None

    def cells(self, key: str, data=None) -> List[str]:
        value = self.get(key, list, data=data)
        if len(value) > 100 or not all(isinstance(c, str) and re.match(r"^[a-i][1-9]$", c)
                                       for c in value):
            raise BadMessage(f"{self.where}: {key}: expected a list of cells")
        return list(value)

    def tokens(self, key: str, limit: int = MAX_MOVES, data=None) -> List[str]:
        value = self.get(key, list, data=data)
        if len(value) > limit:
            raise BadMessage(f"{self.where}: {key}: {len(value)} moves, over {limit}")
        for token in value:
            if not isinstance(token, str) or not TOKEN.match(token):
                raise BadMessage(f"{self.where}: {key}: {str(token)[:40]!r} is not a move")
        return list(value)


def _game(check: _Checker, data: Dict[str, Any]) -> Dict[str, Any]:
    """The checked fields of one game (a state message, or its ``previous`` game)."""
    position = check.fpn("fpn", data=data)
    start = check.fpn("start", data=data)
    if start.size != position.size:
        raise BadMessage(f"{check.where}: start and fpn are on different boards")
    moves = check.tokens("moves", data=data)
    played_on = check.get("played_on", list, data=data)
    for item in played_on:
        if not isinstance(item, dict):
            raise BadMessage(f"{check.where}: played_on: expected objects")
        check.get("ply", int, data=item)
        if not TOKEN.match(check.get("move", str, data=item)):
            raise BadMessage(f"{check.where}: played_on: not a move")
        check.fpn("fpn", data=item)
    last = check.get("last_move", dict, optional=True, data=data)
    if last is not None:
        check.tokens("move", 1, data={"move": [last.get("move")]})
        check.choice("side", SIDES, data=last)
        check.get("ply", int, data=last)
        check.cells("captured", data=last)
    violation = check.get("violation", dict, optional=True, data=data)
    if violation is not None:
        check.get("explanation", str, data=violation)
        check.get("attempted", str, optional=True, data=violation)
        check.fpn("restore_to", data=violation)
        check.cells("cells", data=violation)
    clocks = check.get("clocks", dict, data=data)
    for side in SIDES:
        check.get(side, float, data=clocks)
    check.choice("running", SIDES, optional=True, data=clocks)
    tags = check.get("tags", dict, data=data)
    if len(tags) > 20 or not all(isinstance(k, str) and isinstance(v, str) and len(k) < 40 and
                                 len(v) < 200 for k, v in tags.items()):
        raise BadMessage(f"{check.where}: tags: expected a few short texts")
    capture = check.tokens("capture_required", 200, data=data)
    out = {
        **position_fields(position),
        "game_id": check.get("game_id", int, optional=True, data=data),
        "rules": check.get("rules", str, data=data),
        "start": start.fpn(),
        "moves": moves,
        "played_on": [{"ply": i["ply"], "move": i["move"], "fpn": i["fpn"]} for i in played_on],
        "last_move": None if last is None else {
            "move": last["move"], "side": last["side"], "ply": last["ply"],
            "captured": list(last["captured"])},
        "status": check.choice("status", STATUSES, data=data),
        "result": check.choice("result", RESULTS, data=data),
        "reason": check.get("reason", str, optional=True, data=data),
        "text": check.get("text", str, optional=True, data=data),
        "violation": None if violation is None else {
            "explanation": violation["explanation"], "attempted": violation.get("attempted"),
            "restore_to": violation["restore_to"], "cells": list(violation["cells"])},
        "capture_required": capture,
        "clocks": {"red": float(clocks["red"]), "black": float(clocks["black"]),
                   "running": clocks.get("running")},
        "tags": dict(tags),
        "game": check.get("game", int, data=data),
    }
    return out


def _state(check: _Checker) -> Dict[str, Any]:
    data = check.data
    out = _game(check, data)
    out.update(seq=data["seq"], session=data["session"], sent=float(data["sent"]))
    previous = check.get("previous", dict, optional=True)
    out["previous"] = None
    if previous is not None:
        out["previous"] = _game(check, previous)
        if out["previous"]["game"] >= out["game"]:
            raise BadMessage(f"{check.where}: previous: not an earlier game")
    return out


def _event(check: _Checker) -> Dict[str, Any]:
    from ..referee import events as ev
    body = check.get("event", dict)
    kind = check.choice("event", BROADCAST_EVENTS, data=body)
    try:
        event = ev.from_json(body)
    except (ValueError, TypeError) as error:
        raise BadMessage(f"{check.where}: {kind}: {error}") from None
    for f in ("move", "attempted"):
        value = getattr(event, f, None)
        if value is not None and (not isinstance(value, str) or not TOKEN.match(value)):
            raise BadMessage(f"{check.where}: {kind}: {f} is not a move")
    fields = event.to_json()
    if kind == "move_committed":
        check.get("ply", int, data=fields)
        check.choice("side", SIDES, data=fields)
        check.fpn("fpn_after", data=fields)
        check.cells("captured", data=fields)
        check.get("played_on", bool, data=fields)
    elif kind in ("game_started", "move_undone"):
        check.fpn("fpn", data=fields)
    elif kind == "game_over":
        check.choice("result", RESULTS[1:], data=fields)
        check.get("text", str, data=fields)
    return {"seq": check.data["seq"], "session": check.data["session"],
            "game": check.data["game"], "sent": float(check.data["sent"]),
            "game_id": check.get("game_id", int, optional=True), "event": event}


def position_fields(position) -> Dict[str, Any]:
    """What a viewer shows of a position (a checked :class:`~fenix_table.rules.Position`)."""
    return {"fpn": position.fpn(), "board": position.size, "side": position.side,
            "duty": position.fpn().split()[4], "setup_left": position.setup_moves_left(),
            "placement": {cell: [colour, height] for cell, (colour, height)
                          in position.stacks().items()}}


def encode(data: Dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


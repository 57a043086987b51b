"""A broadcast game as FGN: one table's game, or a whole round in one file.

The record is written by the rules engine's FGN writer after replaying every move, so an
export never holds a move the engine does not accept; a played-on ply (casual mode) is
the ``{played on: ...}`` comment, as the table's own record writes it.
"""
from __future__ import annotations

import logging
import time
from typing import Any, Dict, Iterable, List

from ..errors import FenixError

log = logging.getLogger(__name__)


def game_record(club: str, data: Dict[str, Any]):
    """The GameRecord of one table's state (``Club`` JSON of a table); FenixError when
    its moves do not replay."""
    from ..rules import START_FPN, GameRecord
    from ..rules.fgn import played_on_comment

    if not data.get("fpn"):
        raise FenixError(f"table {data['table']}: no game yet")
    start = data.get("start") or START_FPN[data["board"]]
    tags: Dict[str, str] = {
        "Event": data.get("tags", {}).get("Event") or f"{club} club broadcast",
        "Site": f"{club}, table {data['table']}",
        "Date": time.strftime("%Y.%m.%d", time.localtime(data.get("sent") or time.time())),
    }
    for name in ("Round", "Red", "Black"):
        if data.get("tags", {}).get(name):
            tags[name] = data["tags"][name]
    tags["Board"] = data["board"]
    tags["Rules"] = data.get("rules") or "official"
    tags["Result"] = data.get("result") or "*"
    if start != START_FPN[data["board"]]:
        tags["Start"] = start
    moves = list(data.get("moves", ()))
    comments: Dict[int, List[str]] = {}
    for item in data.get("played_on", ()):
        before = item["ply"] - 1 - sum(1 for p in data["played_on"] if p["ply"] < item["ply"])
        comments.setdefault(before - 1, []).append(played_on_comment(item["move"], item["fpn"]))
    record = GameRecord(tags, moves, comments)
    record.replay()   # NotationError names the move that does not replay
    return record


def game_fgn(club: str, data: Dict[str, Any]) -> str:
    from ..rules import format_fgn
    return format_fgn(game_record(club, data))


def round_fgn(club: str, tables: Iterable[Dict[str, Any]]) -> str:
    """Every table's game, one after another (each its tags, a blank line, its moves),
    in one FGN file. Tables without a game, or whose moves do not replay, are left out
    with a log line."""
    from ..rules import format_fgn
    parts = []
    for data in tables:
        try:
            parts.append(format_fgn(game_record(club, data)).rstrip("\n"))
        except FenixError as error:
            log.warning("round export: table %s left out: %s", data["table"], error)
    return "\n\n".join(parts) + "\n"


def split_round(text: str) -> List[str]:
    """The games of a round file, each as FGN text (:func:`fenix_table.rules.parse_fgn`
    reads one)."""
    games: List[str] = []
    for line in text.splitlines():
        if line.startswith("[") and (not games or not games[-1].rstrip("\n").endswith("]")):
            games.append("")
        if games:
            games[-1] += line + "\n"
    return [g.strip() + "\n" for g in games if g.strip()]

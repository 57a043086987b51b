"""Archive <-> FGN: build a GameRecord from a stored game, store an FGN game.

Both directions replay every move with the rules engine, so an archive never holds,
and an export never shows, a move the engine does not accept. Annotations travel as FGN
comments after the move they follow:

- ``{violation: <attempted>: <explanation>; <resolution>}`` for a violation seen on the
  board and how it was resolved (``restored``, ``corrected``, ``played_on``);
- ``{played on: <attempted>; position <FPN>}`` where casual players accepted an illegal
  change: the game continues from that FPN (the illegal move itself is not a move token;
  :mod:`fenix_table.rules.fgn` reads and writes these);
- any other comment of an imported record, kept as it was.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..errors import FenixError, RecordError
from ..referee import events as ev


def _date_tag(started: str) -> str:
    return started[:10].replace("-", ".") if len(started) >= 10 else "????.??.??"


def replay_stored(store, game_id: int):
    """Replay stored game ``game_id`` with the rules engine: a
    :class:`~fenix_table.rules.replay.Replay`, played-on plies included. RecordError names
    the game and the ply that does not replay."""
    from ..rules import Position, Rules
    from ..rules.replay import ReplayError, Step, replay

    info = store.game(game_id)
    where = f"game {game_id}"
    try:
        rules = Rules.from_description(info.rules)
        start = Position.from_fpn(info.start_fpn)
    except FenixError as error:
        raise RecordError(f"{where}: {error}") from None
    steps = [Step(m.token, m.fpn_after, m.played_on, m.frame) for m in store.moves(game_id)]
    try:
        return replay(start, rules, steps)
    except ReplayError as error:
        raise RecordError(f"{where}, ply {error.ply} ({error.token}) does not replay: "
                          f"{error}") from None


def record_of(store, game_id: int):
    """The stored game ``game_id`` as a GameRecord, after replaying it."""
    from ..rules import Position
    from ..rules.fgn import GameRecord, played_on_comment

    info = store.game(game_id)
    replayed = replay_stored(store, game_id)
    tokens: List[str] = []
    comments: Dict[int, List[str]] = {}
    events: Dict[int, List[ev.Event]] = {}
    for ply, event in store.events(game_id):
        events.setdefault(ply, []).append(event)
    open_violation: Optional[Tuple[int, int]] = None

    def comment(text: str) -> None:
        comments.setdefault(len(tokens) - 1, []).append(text)

    def annotate(ply: int) -> None:
        """The events kept at ``ply`` (after that many plies), as comments in order."""
        nonlocal open_violation
        for event in events.get(ply, []):
            if isinstance(event, ev.Violation):
                comment(f"violation: {event.attempted or '?'}: {event.explanation}")
                at = len(tokens) - 1
                open_violation = (at, len(comments[at]) - 1)
            elif isinstance(event, ev.ViolationCleared) and open_violation is not None:
                at, i = open_violation
                comments[at][i] += f"; {event.resolution}"
                open_violation = None
            elif isinstance(event, ev.Comment):
                comment(event.text)

    annotate(0)
    for ply in replayed.plies:
        if ply.played_on:
            comment(played_on_comment(ply.token, ply.fpn_after))
        else:
            tokens.append(ply.token)
        annotate(ply.ply)

    tags = dict(info.tags)
    tags.setdefault("Date", _date_tag(info.started))
    tags["Board"] = info.board
    tags["Rules"] = info.rules
    tags["Result"] = info.result
    if info.start_fpn != Position.start(info.board).fpn():
        tags["Start"] = info.start_fpn
    else:
        tags.pop("Start", None)
    return GameRecord(tags=tags, moves=tokens, comments=comments)


def import_record(store, text: str) -> int:
    """Parse, replay and store an FGN text; returns the new game id. RecordError names
    the bad part; nothing is stored then."""
    from ..rules import Position, Rules
    from ..rules.fgn import parse_fgn, step_name
    from ..rules.replay import ReplayError, replay

    try:
        record = parse_fgn(text)
    except FenixError as error:
        text = str(error)
        raise RecordError(text if text.startswith("FGN") else f"FGN: {text}") from None
    tags = record.tags
    try:
        rules = Rules.from_description(tags.get("Rules", "official"))
        start = Position.from_fpn(tags["Start"]) if tags.get("Start") else \
            Position.start(tags.get("Board", "9x9"))
    except FenixError as error:
        raise RecordError(f"FGN tags: {error}") from None
    if tags.get("Board") and tags["Board"] != start.size:
        raise RecordError(f"FGN tags: Board {tags['Board']!r} does not match the start "
                          f"position ({start.size})")
    steps, others = record.timeline()
    try:
        replayed = replay(start, rules, steps)
    except ReplayError as error:
        raise RecordError(f"{step_name(steps, error.ply)}: {error}") from None
    moves = [(p.token, p.fpn_after, p.played_on) for p in replayed.plies]
    result = record.result if record.result in ("1-0", "0-1", "1/2-1/2", "*") else "*"
    kept = {k: v for k, v in tags.items() if k not in ("Board", "Rules", "Result", "Start")}
    return store.insert_game(start.fpn(), rules.describe(), kept, "imported", moves,
                             [(ply, ev.Comment(text=text)) for ply, text in others], result,
                             "imported" if result != "*" else None)

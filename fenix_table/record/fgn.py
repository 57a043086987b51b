"""Archive <-> FGN: build a GameRecord from a stored game, store an FGN game.

Both directions replay every move with the rules engine, so an archive never holds,
and an export never shows, a move the engine does not accept. Annotations travel as FGN
comments after the move they follow:

- ``{violation: <attempted>: <explanation>; <resolution>}`` for a violation seen on the
  board and how it was resolved (``restored``, ``corrected``, ``played_on``);
- ``{played on: <attempted>; position <FPN>}`` where casual players accepted an illegal
  change: the game continues from that FPN (the illegal move itself is not a move token);
- any other comment of an imported record, kept as it was.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..errors import FenixError, NotationError, RecordError

PLAYED_ON = "played on:"


def _played_on_comment(token: str, fpn: str) -> str:
    return f"{PLAYED_ON} {token}; position {fpn}"


def _played_on_fpn(comment: str):
    """The FPN of a ``played on`` comment, or None for any other comment."""
    text = comment.strip()
    if not text.startswith(PLAYED_ON) or "; position " not in text:
        return None
    return text.split("; position ", 1)[1].strip()


def _date_tag(started: str) -> str:
    return started[:10].replace("-", ".") if len(started) >= 10 else "????.??.??"


def record_of(store, game_id: int):
    """The stored game ``game_id`` as a GameRecord, after replaying it."""
    from ..rules import Position, Rules, apply
    from ..rules.fgn import GameRecord

    info = store.game(game_id)
    where = f"game {game_id}"
    try:
        rules = Rules.from_description(info.rules)
        position = Position.from_fpn(info.start_fpn)
    except FenixError as error:
        raise RecordError(f"{where}: {error}") from None
    tokens: List[str] = []
    comments: Dict[int, List[str]] = {}

    def comment(after_index: int, text: str) -> None:
        comments.setdefault(after_index, []).append(text)

    events: Dict[int, List[dict]] = {}
    for ply, data in store.events(game_id):
        events.setdefault(ply, []).append(data)
    open_violation = None

    def annotate(ply: int) -> None:
        """The events kept at ``ply`` (after that many plies), as comments in order."""
        nonlocal open_violation
        at = len(tokens) - 1
        for data in events.get(ply, []):
            kind = data.get("event")
            if kind == "violation":
                attempted = data.get("attempted") or "?"
                comment(at, f"violation: {attempted}: {data.get('explanation', '')}")
                open_violation = (at, len(comments[at]) - 1)
            elif kind == "violation_cleared" and open_violation is not None:
                at0, i = open_violation
                comments[at0][i] += f"; {data.get('resolution', 'resolved')}"
                open_violation = None
            elif kind == "comment":
                comment(at, str(data.get("text", "")))

    annotate(0)
    for move in store.moves(game_id):
        if move.played_on:
            try:
                position = Position.from_fpn(move.fpn_after)
            except FenixError as error:
                raise RecordError(f"{where}, ply {move.ply}: {error}") from None
            comment(len(tokens) - 1, _played_on_comment(move.token, move.fpn_after))
        else:
            try:
                position = apply(position, move.token, rules)
            except FenixError as error:
                raise RecordError(f"{where}, ply {move.ply} ({move.token}) does not replay: "
                                  f"{error}") from None
            if position.fpn() != move.fpn_after:
                raise RecordError(f"{where}, ply {move.ply} ({move.token}): stored position "
                                  f"{move.fpn_after!r} differs from the replay {position.fpn()!r}")
            tokens.append(move.token)
        annotate(move.ply)

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


def replay_record(record) -> Tuple[str, str, List[Tuple[str, str, bool]], List[Tuple[int, str]]]:
    """Check a GameRecord with the rules engine.

    Returns ``(start_fpn, rules description, moves as (token, fpn_after, played_on),
    other comments as (ply, text))``; raises :class:`RecordError` naming the bad part.
    """
    from ..rules import Position, Rules, apply

    tags = record.tags
    try:
        rules = Rules.from_description(tags.get("Rules", "official"))
        if tags.get("Start"):
            position = Position.from_fpn(tags["Start"])
        else:
            position = Position.start(tags.get("Board", "9x9"))
    except FenixError as error:
        raise RecordError(f"FGN tags: {error}") from None
    if tags.get("Board") and tags["Board"] != position.size:
        raise RecordError(f"FGN tags: Board {tags['Board']!r} does not match the start "
                          f"position ({position.size})")
    start = position.fpn()
    moves: List[Tuple[str, str, bool]] = []
    comments: List[Tuple[int, str]] = []

    def take_comments(after_index: int) -> None:
        nonlocal position
        for text in record.comments.get(after_index, []):
            fpn = _played_on_fpn(text)
            if fpn is None:
                comments.append((len(moves), text))
                continue
            try:
                position = Position.from_fpn(fpn)
            except FenixError as error:
                raise RecordError(f"FGN comment after move {after_index + 1}: {error}") from None
            attempted = text[len(PLAYED_ON):].split(";", 1)[0].strip() or "?"
            moves.append((attempted, position.fpn(), True))

    take_comments(-1)
    for index, token in enumerate(record.moves):
        try:
            position = apply(position, token, rules)
        except (NotationError, FenixError) as error:
            number = index // 2 + 1
            raise RecordError(f"FGN move {number}{'.' if index % 2 == 0 else '...'} {token}: "
                              f"{error}") from None
        moves.append((token, position.fpn(), False))
        take_comments(index)
    return start, rules.describe(), moves, comments


def import_record(store, text: str) -> int:
    """Parse, replay and store an FGN text; returns the new game id."""
    from ..rules.fgn import parse_fgn

    try:
        record = parse_fgn(text)
    except FenixError as error:
        text = str(error)
        raise RecordError(text if text.startswith("FGN") else f"FGN: {text}") from None
    start, rules, moves, comments = replay_record(record)
    result = record.result if record.result in ("1-0", "0-1", "1/2-1/2", "*") else "*"
    tags = {k: v for k, v in record.tags.items() if k not in ("Board", "Rules", "Result", "Start")}
    return store.insert_game(start, rules, tags, "imported", moves, comments, result,
                             "imported" if result != "*" else None)

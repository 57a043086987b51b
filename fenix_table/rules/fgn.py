"""FGN game records (``../shared/spec/notation.md``): read, write, replay.

A :class:`GameRecord` is the text form of a game: tag pairs, move tokens and the comments
after each move. ``parse_fgn`` checks the syntax (naming the line and the offending text);
``GameRecord.replay`` checks every move against the rules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..errors import FenixError, NotationError
from .game import RESULTS, Game
from .options import Rules
from .position import START_FPN, Position
from .replay import ReplayError, Step, replay

#: Tags written first, in this order; any other tags follow in their own order.
STANDARD_TAGS = ("Event", "Site", "Date", "Red", "Black", "Board", "Rules", "Result", "Start")
FGN_RESULTS = frozenset(RESULTS.values())

_TAG = re.compile(r'^\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_NUMBER = re.compile(r"^\d+\.(\.\.)?$")
#: Casual players kept an illegal change and played on from the position it left:
#: ``{played on: <attempted move>; position <FPN>}`` after the ply before it.
PLAYED_ON = "played on:"

#: Limits on a record read (far above any real game: a long 9x9 game is a few hundred
#: plies and a few KiB). Larger records are refused with one line before anything is
#: stored.
MAX_FGN_CHARS = 1_000_000
MAX_PLIES = 2_000
MAX_TAGS = 100
MAX_TAG_CHARS = 1_000
MAX_COMMENT_CHARS = 10_000
MAX_COMMENTS = 5_000

_TOKEN = re.compile(r"^[a-z][0-9]+(?:(?:-[a-z][0-9]+)|(?:x[a-z][0-9]+)+)$")


@dataclass
class GameRecord:
    """Tags, moves and comments of one game.

    ``comments[i]`` are the comments after move ``i`` (0-based ply); ``comments[-1]``
    those before the first move. Unknown comments and tags are kept as they are.
    """

    tags: Dict[str, str] = field(default_factory=dict)
    moves: List[str] = field(default_factory=list)
    comments: Dict[int, List[str]] = field(default_factory=dict)

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")

    @property
    def start(self) -> Optional[str]:
        """The Start FPN, or None when the game began at the start position."""
        return self.tags.get("Start")

    @property
    def board(self) -> str:
        if self.start:
            return self.start.split()[0]
        return self.tags.get("Board", "9x9")

    def rules(self) -> Rules:
        return Rules.from_description(self.tags.get("Rules", "official"))

    def start_position(self) -> Position:
        if self.start:
            return Position.from_fpn(self.start)
        return Position.start(self.board)

    def timeline(self) -> Tuple[List[Step], List[Tuple[int, str]]]:
        """The record as replay steps (moves, and played-on plies from their comments, in
        order) and its other comments as ``(steps before it, text)``."""
        steps: List[Step] = []
        others: List[Tuple[int, str]] = []

        def take(after: int) -> None:
            for text in self.comments.get(after, []):
                played = played_on_of(text)
                if played is None:
                    others.append((len(steps), text))
                else:
                    steps.append(Step(played[0], played[1], played_on=True))

        take(-1)
        for index, token in enumerate(self.moves):
            steps.append(Step(token))
            take(index)
        return steps, others

    def replay(self, rules: Optional[Rules] = None) -> Game:
        """The game with every move played (from the last played-on position, if any);
        the error names the move that fails."""
        steps, _ = self.timeline()
        try:
            return replay(self.start_position(), rules or self.rules(), steps).game
        except ReplayError as error:
            raise NotationError(f"{step_name(steps, error.ply)}: {error}") from None

    @classmethod
    def from_game(cls, game: Game, tags: Optional[Dict[str, str]] = None,
                  comments: Optional[Dict[int, List[str]]] = None) -> "GameRecord":
        """A record of ``game`` with its Board, Rules, Result and (if needed) Start tags."""
        merged = dict(tags or {})
        merged["Board"] = game.start.size
        merged["Rules"] = game.rules.describe()
        merged["Result"] = game.status().fgn_result
        if game.start.fpn() != START_FPN[game.start.size]:
            merged["Start"] = game.start.fpn()
        return cls(merged, [m.token for m in game.moves], dict(comments or {}))


def played_on_comment(token: str, fpn: str) -> str:
    """The comment that records a played-on ply (see :data:`PLAYED_ON`)."""
    return f"{PLAYED_ON} {token}; position {fpn}"


def played_on_of(comment: str) -> Optional[Tuple[str, str]]:
    """``(attempted move, FPN)`` of a played-on comment, or None for any other comment."""
    text = comment.strip()
    if not text.startswith(PLAYED_ON) or "; position " not in text:
        return None
    attempted, fpn = text[len(PLAYED_ON):].split("; position ", 1)
    return attempted.strip() or "?", fpn.strip()


def step_name(steps: List[Step], ply: int) -> str:
    """Where step ``ply`` (1-based) of :meth:`GameRecord.timeline` stands in the FGN text:
    ``"FGN move 3. c2-c3"`` or, for a played-on ply, ``"FGN comment after move 4"``."""
    index = sum(1 for s in steps[:ply - 1] if not s.played_on)
    step = steps[ply - 1]
    if step.played_on:
        return f"FGN comment after move {index}"
    return f"FGN move {index // 2 + 1}{'.' if index % 2 == 0 else '...'} {step.token}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def format_fgn(record: GameRecord, width: int = 79) -> str:
    """The FGN text of ``record`` (tags, blank line, numbered moves, result)."""
    tags = dict(record.tags)
    tags.setdefault("Result", "*")
    order = [t for t in STANDARD_TAGS if t in tags] + [t for t in tags if t not in STANDARD_TAGS]
    lines = [f'[{name} "{_escape(str(tags[name]))}"]' for name in order]
    black_first = bool(record.start) and record.start.split()[2] == "b"
    words: List[str] = []
    for comment in record.comments.get(-1, []):
        words.append("{" + comment + "}")
    for ply, token in enumerate(record.moves):
        shifted = ply + (1 if black_first else 0)
        if shifted % 2 == 0:
            words.append(f"{shifted // 2 + 1}.")
        elif ply == 0:
            words.append(f"{shifted // 2 + 1}...")
        words.append(token)
        for comment in record.comments.get(ply, []):
            words.append("{" + comment + "}")
    words.append(tags["Result"])
    body, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            body.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


def parse_fgn(text: str) -> GameRecord:
    """Parse one FGN record; NotationError names the line and the bad part."""
    if not isinstance(text, str):
        raise NotationError("FGN must be text")
    if len(text) > MAX_FGN_CHARS:
        raise NotationError(f"FGN: {len(text):,} characters, more than a game record can be "
                            f"(at most {MAX_FGN_CHARS:,})")
    tags: Dict[str, str] = {}
    lines = text.lstrip("\ufeff").splitlines()
    n = 0
    while n < len(lines) and not lines[n].strip():
        n += 1
    while n < len(lines) and lines[n].strip().startswith("["):
        match = _TAG.match(lines[n].strip())
        if not match:
            raise NotationError(f"FGN line {n + 1}: malformed tag {lines[n].strip()!r}")
        if len(match.group(2)) > MAX_TAG_CHARS:
            raise NotationError(f"FGN line {n + 1}: tag {match.group(1)[:40]} is longer than "
                                f"{MAX_TAG_CHARS:,} characters")
        tags[match.group(1)] = _unescape(match.group(2))
        if len(tags) > MAX_TAGS:
            raise NotationError(f"FGN line {n + 1}: more than {MAX_TAGS} tags")
        n += 1
    record = GameRecord(tags)
    result_token: Optional[str] = None
    ply = -1
    comments = 0
    # Scan the movetext character by character so braces may span lines.
    body = "\n".join(lines[n:])
    line_of = n + 1
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\n":
            line_of += 1
            i += 1
            continue
        if ch.isspace():
            i += 1
            continue
        if ch == "{":
            end = body.find("}", i)
            if end < 0:
                raise NotationError(f"FGN line {line_of}: comment '{{' is never closed")
            comment = body[i + 1:end].strip()
            if len(comment) > MAX_COMMENT_CHARS:
                raise NotationError(f"FGN line {line_of}: a comment longer than "
                                    f"{MAX_COMMENT_CHARS:,} characters")
            comments += 1
            if comments > MAX_COMMENTS:
                raise NotationError(f"FGN line {line_of}: more than {MAX_COMMENTS:,} comments")
            record.comments.setdefault(ply, []).append(comment)
            line_of += body.count("\n", i, end)
            i = end + 1
            continue
        if ch == "}":
            raise NotationError(f"FGN line {line_of}: '}}' without '{{'")
        j = i
        while j < len(body) and not body[j].isspace() and body[j] not in "{}":
            j += 1
        word = body[i:j]
        i = j
        if result_token is not None:
            raise NotationError(f"FGN line {line_of}: {word!r} after the result {result_token}")
        if word in FGN_RESULTS:
            result_token = word
            continue
        if _NUMBER.match(word):
            continue
        # "12.b1-c1" (number glued to the move) is accepted too.
        number = re.match(r"^\d+\.(?:\.\.)?", word)
        if number:
            word = word[number.end():]
        if not _TOKEN.match(word):
            raise NotationError(f"FGN line {line_of}: {word!r} is not a move token")
        record.moves.append(word)
        ply += 1
        if len(record.moves) > MAX_PLIES:
            raise NotationError(f"FGN line {line_of}: more than {MAX_PLIES:,} moves; longer "
                                f"than a game can be")
    if result_token is not None:
        if "Result" in tags and tags["Result"] != result_token:
            raise NotationError(
                f"FGN: Result tag {tags['Result']!r} differs from the movetext's {result_token!r}")
        tags.setdefault("Result", result_token)
    if tags.get("Result", "*") not in FGN_RESULTS:
        raise NotationError(f"FGN Result tag: {tags['Result']!r} is not 1-0, 0-1, 1/2-1/2 or *")
    if "Start" in tags:
        start = Position.from_fpn(tags["Start"])
        if "Board" in tags and tags["Board"] != start.size:
            raise NotationError(f"FGN Board tag {tags['Board']!r} differs from the Start FPN's size")
    elif tags.get("Board", "9x9") not in START_FPN:
        raise NotationError(f"FGN Board tag: {tags['Board']!r} is not 9x9 or 7x8")
    if "Rules" in tags:
        try:
            Rules.from_description(tags["Rules"])
        except FenixError as error:
            raise NotationError(f"FGN Rules tag: {error}") from None
    return record


def read_fgn(path: str) -> GameRecord:
    """Read an FGN file; errors name the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_FGN_CHARS + 1)
    except OSError as error:
        raise NotationError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise NotationError(f"{path}: not UTF-8 text") from None
    try:
        return parse_fgn(text)
    except NotationError as error:
        raise NotationError(f"{path}: {error}") from None

"""The coach: a hint with one line of reason, and a review of a played game.

Both ask the search (:func:`fenix_table.opponent.analyse`) and put its answer in the
game's words: what a move takes, what it saves, what it builds, or what it wins later.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..rules import Move, Position, Rules, legal_moves, play
from ..rules.replay import ReplayedPly
from . import DEFAULT_MOVETIME, STRONGEST, analyse
from .evaluate import _flipped
from .search import Analysis

_PIECE = {1: "soldier", 2: "General", 3: "King"}

#: A played move scoring this much worse than the best one (hundredths of a stone) is
#: marked in a review.
REVIEW_THRESHOLD = 150
#: The kinds of marked move.
LOSES_MATERIAL, MISSES_BETTER = "loses material by force", "misses a clearly better move"


@dataclass(frozen=True)
class Hint:
    """The best move found, its score (hundredths of a stone, the mover's view), the
    expected line and why (``why``: a :class:`Reason`; ``reason``: its English line)."""

    move: Move
    score: int
    line: List[Move]
    why: "Reason"

    @property
    def reason(self) -> str:
        return self.why.text

    @property
    def text(self) -> str:
        return f"{self.move.token}: {self.reason}"


def _score(score: int) -> str:
    """A score for people: ``+1.5``, ``-0.2``, or ``win in 3``/``loss in 2`` (moves)."""
    from .search import WIN, WIN_BOUND
    if score >= WIN_BOUND:
        return f"win in {(WIN - score + 1) // 2}"
    if score <= -WIN_BOUND:
        return f"loss in {(WIN + score + 1) // 2}"
    return f"{score / 100:+.1f}"


def _biggest_threat(position: Position) -> Optional[Move]:
    """The opponent's capture the maximum rule would give them if it were their turn,
    preferring one that takes the King, then a General."""
    from ..rules.movegen import captures
    found = captures(_flipped(position))
    if not found:
        return None
    board = position.board
    return max(found, key=lambda m: (max(abs(board[j]) for j in m.jumped), m.token))


#: The reasons' English sentences, by code; ``{named}`` parameters come from
#: :class:`Reason`. The display's catalogue (``fenix_table/display/coach_messages.py``)
#: has the other languages, with the same codes and placeholders.
REASONS: Dict[str, str] = {
    "builds": "builds a {piece} on {cell}",
    "recreates_king": "recreates your King on {cell}",
    "creates_general": "creates a General on {cell} (your right after losing one)",
    "takes_king": "takes the King: {move} takes {total}",
    "wins_general": "wins a General: {move} takes {total}",
    "wins_generals": "wins {count} Generals: {move} takes {total}",
    "takes_soldier": "takes 1 soldier: {move} takes {total}",
    "takes_soldiers": "takes {count} soldiers: {move} takes {total}",
    "wins_game": "wins the game in {moves} moves",
    "saves_king": "saves your King from {threat}",
    "saves_general": "saves your General from {threat}",
    "saves_stone": "saves 1 stone from {threat}",
    "saves_stones": "saves {count} stones from {threat}",
    "prepares_stone": "prepares to win 1 stone: {line}",
    "prepares_stones": "prepares to win {count} stones: {line}",
    "keeps": "keeps the best position the search finds (score {score})",
    "holds_out": "holds out longest: the search finds a loss in {moves} moves",
    # Added to the sentence:
    "landing": " (the other captures give more back)",
    "and_wins": " and wins the game in {moves}",
}
_WORDS = {"soldier": "soldier", "general": "General", "king": "King"}


@dataclass(frozen=True)
class Reason:
    """Why a move is played, as a code of :data:`REASONS` with its parameters, and the
    codes added to it (``landing``, ``and_wins``), so any language can say it."""

    code: str
    params: Tuple[Tuple[str, object], ...] = ()
    extras: Tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The English sentence."""
        values = {k: _WORDS.get(v, v) if isinstance(v, str) else v for k, v in self.params}
        return "".join(REASONS[c].format(**values) for c in (self.code,) + self.extras)


def reason(position: Position, rules: Rules, analysis: Analysis) -> str:
    """One line saying why ``analysis.move`` is played in ``position``."""
    return explain_move(position, rules, analysis).text


def explain_move(position: Position, rules: Rules, analysis: Analysis) -> Reason:
    """Why ``analysis.move`` is played in ``position``, as a :class:`Reason`."""
    move = analysis.move
    board = position.board
    mate = analysis.mate_in
    wins = ("and_wins",) if mate is not None and mate > 0 else ()
    moves = (("moves", (mate + 1) // 2),) if wins else ()
    if move.stacking:
        height = abs(board[move.to]) + 1
        where = (("cell", move.to_cell),)
        if position.in_setup:
            return Reason("builds", (("piece", _PIECE[height]),) + where + moves, wins)
        if position.duty == "K":
            return Reason("recreates_king", where + moves, wins)
        return Reason("creates_general", where + moves, wins)
    if move.is_capture:
        taken = sorted((abs(board[j]) for j in move.jumped), reverse=True)
        params = (("move", move.token), ("total", sum(taken)))
        if taken[0] == 3:
            code = "takes_king"
        elif taken[0] == 2:
            count = taken.count(2)
            code = "wins_general" if count == 1 else "wins_generals"
            params += (("count", count),)
        else:
            code = "takes_soldier" if len(taken) == 1 else "takes_soldiers"
            params += (("count", len(taken)),)
        scores = analysis.root_scores
        mine = scores.get(move.token, analysis.score)
        others = [scores[m.token] for m in legal_moves(position, rules)
                  if m.is_capture and m != move and m.token in scores]
        # The maximum rule fixes how much is taken; the choice is where the piece ends.
        landing = ("landing",) if others and max(others) <= mine - 100 else ()
        return Reason(code, params + moves, landing + wins)
    if mate is not None and mate > 0:
        return Reason("wins_game", moves)
    threat = _biggest_threat(position)
    if threat is not None:
        after = play(position, move)
        replies = [m for m in legal_moves(after, rules) if m.is_capture]
        worst = max((m.value for m in replies), default=0)
        if worst < threat.value:
            top = max(abs(board[j]) for j in threat.jumped)
            code = {3: "saves_king", 2: "saves_general"}.get(
                top, "saves_stone" if threat.value == 1 else "saves_stones")
            return Reason(code, (("threat", threat.token), ("count", threat.value)))
    # Only the line's first two moves each: its tail is the search's least sure part.
    line = analysis.line[:4]
    gain = _material_gain(position, rules, line)
    if gain > 0:
        return Reason("prepares_stone" if gain == 1 else "prepares_stones",
                      (("count", gain), ("line", " ".join(m.token for m in line))))
    if mate is not None:
        return Reason("holds_out", (("moves", (-mate + 1) // 2),))
    return Reason("keeps", (("score", _score(analysis.score)),))


def _material_gain(position: Position, rules: Rules, line: Sequence[Move]) -> int:
    """Stones the mover is up at the end of ``line`` (as far as it is legal)."""
    me = position.turn
    start = sum(position.board) * me
    pos = position
    for move in line:
        if move not in legal_moves(pos, rules):
            break
        pos = play(pos, move)
    return sum(pos.board) * me - start


def hint(position: Position, rules: Rules, *, movetime: Optional[float] = DEFAULT_MOVETIME,
         history: Iterable[Position] = (), progress=None) -> Hint:
    """The strongest level's move in ``position`` with its reason; ValueError when the
    game is over there. ``progress(depth, analysis)`` is called after each depth."""
    analysis = analyse(position, rules, level=STRONGEST, movetime=movetime, history=history,
                       progress=progress)
    return Hint(analysis.move, analysis.score, analysis.line,
                explain_move(position, rules, analysis))


@dataclass(frozen=True)
class ReviewNote:
    """A marked move: the ply (1-based), who played what, the better move, both scores
    (the mover's view, hundredths of a stone) and what kind of mistake it was."""

    ply: int
    side: str
    played: str
    better: str
    played_score: int
    better_score: int
    kind: str            # "loses material by force" | "misses a clearly better move"

    @property
    def code(self) -> str:
        """The kind as a code: ``loses_material`` or ``misses_better``."""
        return "loses_material" if self.kind == LOSES_MATERIAL else "misses_better"

    @property
    def change(self) -> int:
        return self.better_score - self.played_score

    @property
    def text(self) -> str:
        return (f"{self.kind}; better {self.better} "
                f"({_score(self.better_score)} instead of {_score(self.played_score)})")

    def to_json(self) -> dict:
        return {"ply": self.ply, "side": self.side, "played": self.played,
                "better": self.better, "played_score": self.played_score,
                "better_score": self.better_score, "change": self.change, "kind": self.kind}


def review(start: Position, rules: Rules, plies: Sequence[ReplayedPly], *,
           movetime: float = 0.3, threshold: int = REVIEW_THRESHOLD,
           progress=None) -> List[ReviewNote]:
    """Mark each move of a replayed game (:func:`fenix_table.rules.replay.replay`) that
    scores at least ``threshold`` worse than the best move the search finds in
    ``movetime`` seconds. Played-on plies and forced moves are not judged.
    ``progress(ply, total, notes)`` is called before each ply is searched, with the
    notes so far."""
    notes: List[ReviewNote] = []
    history: List[Position] = [start]
    for number, ply in enumerate(plies, 1):
        before = Position.from_fpn(ply.fpn_before)
        after = Position.from_fpn(ply.fpn_after)
        if ply.played_on:
            history = [after]
            continue
        if progress is not None:
            progress(number, len(plies), tuple(notes))
        moves = legal_moves(before, rules)
        if len(moves) > 1:
            note = _judge(before, rules, ply, history[:-1], movetime, threshold)
            if note is not None:
                notes.append(note)
        history.append(after)
    return notes


def _judge(before: Position, rules: Rules, ply: ReplayedPly, history: List[Position],
           movetime: float, threshold: int) -> Optional[ReviewNote]:
    best = analyse(before, rules, level=STRONGEST, movetime=movetime, history=history)
    if best.move.token == ply.token:
        return None
    played = next(m for m in legal_moves(before, rules) if m.token == ply.token)
    after = play(before, played)
    if not legal_moves(after, rules):
        return None   # the move ended the game: nothing was better by the rules' count
    reply = analyse(after, rules, level=STRONGEST, movetime=movetime,
                    history=history + [before], depth=max(1, best.depth - 1))
    played_score = -reply.score
    best_score = best.score
    if best_score - played_score < threshold:
        return None
    lost = _material_gain(after, rules, reply.line)   # the opponent's gain is our loss
    kind = LOSES_MATERIAL if lost > 0 and played_score < 0 else MISSES_BETTER
    return ReviewNote(ply.ply, ply.side, ply.token, best.move.token, played_score,
                      best_score, kind)


def review_comment(note: ReviewNote) -> str:
    """The FGN comment text of a review note."""
    return f"review: {note.text}"

"""The coach: a hint with one line of reason, and a review of a played game.

Both ask the search (:func:`fenix_table.opponent.analyse`) and put its answer in the
game's words: what a move takes, what it saves, what it builds, or what it wins later.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence

from ..rules import Move, Position, Rules, legal_moves, play
from ..rules.replay import ReplayedPly
from . import DEFAULT_MOVETIME, STRONGEST, analyse
from .evaluate import _flipped
from .search import Analysis

_PIECE = {1: "soldier", 2: "General", 3: "King"}

#: A played move scoring this much worse than the best one (hundredths of a stone) is
#: marked in a review.
REVIEW_THRESHOLD = 150


@dataclass(frozen=True)
class Hint:
    """The best move found, its score (hundredths of a stone, the mover's view), the
    expected line and one line of reason."""

    move: Move
    score: int
    line: List[Move]
    reason: str

    @property
    def text(self) -> str:
        return f"{self.move.token}: {self.reason}"


def _stones(n: int) -> str:
    return f"{n} stone" if n == 1 else f"{n} stones"


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


def reason(position: Position, rules: Rules, analysis: Analysis) -> str:
    """One line saying why ``analysis.move`` is played in ``position``."""
    move = analysis.move
    board = position.board
    mate = analysis.mate_in
    wins = f" and wins the game in {(mate + 1) // 2}" if mate is not None and mate > 0 else ""
    if move.stacking:
        height = abs(board[move.to]) + 1
        where = move.to_cell
        if position.in_setup:
            return f"builds a {_PIECE[height]} on {where}{wins}"
        if position.duty == "K":
            return f"recreates your King on {where}{wins}"
        return f"creates a General on {where} (your right after losing one){wins}"
    if move.is_capture:
        taken = sorted((abs(board[j]) for j in move.jumped), reverse=True)
        total = sum(taken)
        if taken[0] == 3:
            what = "takes the King"
        elif taken[0] == 2:
            what = "wins a General" if taken.count(2) == 1 else f"wins {taken.count(2)} Generals"
        else:
            what = f"takes {len(taken)} soldier" + ("s" if len(taken) > 1 else "")
        scores = analysis.root_scores
        mine = scores.get(move.token, analysis.score)
        others = [scores[m.token] for m in legal_moves(position, rules)
                  if m.is_capture and m != move and m.token in scores]
        # The maximum rule fixes how much is taken; the choice is where the piece ends.
        choice = " (the other captures give more back)" if others and \
            max(others) <= mine - 100 else ""
        return f"{what}: {move.token} takes {total}{choice}{wins}"
    if mate is not None and mate > 0:
        return f"wins the game in {(mate + 1) // 2} moves"
    threat = _biggest_threat(position)
    if threat is not None:
        after = play(position, move)
        replies = [m for m in legal_moves(after, rules) if m.is_capture]
        worst = max((m.value for m in replies), default=0)
        if worst < threat.value:
            top = max(abs(board[j]) for j in threat.jumped)
            saved = {3: "your King", 2: "your General"}.get(top, _stones(threat.value))
            return f"saves {saved} from {threat.token}"
    # Only the line's first two moves each: its tail is the search's least sure part.
    line = analysis.line[:4]
    gain = _material_gain(position, rules, line)
    if gain > 0:
        return f"prepares to win {_stones(gain)}: {' '.join(m.token for m in line)}"
    return f"keeps the best position the search finds (score {_score(analysis.score)})"


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
         history: Iterable[Position] = ()) -> Hint:
    """The strongest level's move in ``position`` with its reason; ValueError when the
    game is over there."""
    analysis = analyse(position, rules, level=STRONGEST, movetime=movetime, history=history)
    return Hint(analysis.move, analysis.score, analysis.line,
                reason(position, rules, analysis))


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
    ``progress(ply, total)`` is called before each ply is searched."""
    notes: List[ReviewNote] = []
    history: List[Position] = [start]
    for number, ply in enumerate(plies, 1):
        before = Position.from_fpn(ply.fpn_before)
        after = Position.from_fpn(ply.fpn_after)
        if ply.played_on:
            history = [after]
            continue
        if progress is not None:
            progress(number, len(plies))
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
    kind = "loses material by force" if lost > 0 and played_score < 0 else \
        "misses a clearly better move"
    return ReviewNote(ply.ply, ply.side, ply.token, best.move.token, played_score,
                      best_score, kind)


def review_comment(note: ReviewNote) -> str:
    """The FGN comment text of a review note."""
    return f"review: {note.text}"

"""The computer opponent and coach: search, evaluation, levels, hints and game reviews.

It stands on the rules engine alone: every move it considers comes from
:func:`fenix_table.rules.legal_moves` under the rules in force, so every move it plays is
legal under that preset and those options.

- :mod:`.search`: alpha-beta with iterative deepening, a Zobrist-keyed transposition
  table and a capture search at the horizon; :mod:`.evaluate`: the position's worth.
- :func:`choose` / :func:`analyse`: a level's move, or the best move with its score and
  line. :mod:`.coach`: hints with a reason, and game reviews.
- Time: 0.4 s a move by default. ``benchmarks/bench_opponent.py --pi-ratio`` times the
  n-body program whose Raspberry Pi 4 time is published: 7.8 times slower there than
  here in processor time, against a Pi figure from an older Python that is slower on
  such loops, so about 5 times with the same Python: 0.4 s here is about 2 s on a Pi 4.

>>> from fenix_table.rules import Position, OFFICIAL, legal_moves
>>> pos = Position.start("7x8")
>>> choose(pos, OFFICIAL, level=1, movetime=0.2, seed=1) in legal_moves(pos, OFFICIAL)
True
"""
from __future__ import annotations

import random
import threading
from dataclasses import dataclass, replace
from typing import Dict, Iterable, Optional

from ..rules import Move, Position, Rules, legal_moves, play
from .evaluate import DEAD_END, evaluate
from .search import WIN_BOUND, Analysis, Searcher

#: Default time per move here (about 2 s on a Raspberry Pi 4; see
#: ``benchmarks/bench_opponent.py --pi-ratio``).
DEFAULT_MOVETIME = 0.4


@dataclass(frozen=True)
class Level:
    """How one level searches: a depth cap (None: as deep as time allows), the random
    spread added to each root move's score (hundredths of a stone), whether captures are
    followed past the horizon, the share of the time budget it uses, and how often it
    overlooks the reply (the chance that it plays the move that looks best as it stands
    after it, with the opponent's compulsory captures unseen, among the moves that do not
    lose the game by force: a beginner's mistake)."""

    depth: Optional[int]
    noise: int
    quiescence: bool
    time_share: float
    oversight: float = 0.0

    def search(self, searcher: Searcher, position: Position, *,
               movetime: Optional[float], depth: Optional[int] = None,
               history: Iterable[Position] = (), rng: Optional[random.Random] = None,
               progress=None) -> Analysis:
        """This level's move in ``position`` with ``searcher`` (made with this level's
        ``quiescence``), in ``movetime`` seconds (its share of them) and ``depth``."""
        rng = rng or random.Random()
        cap = self.depth
        if depth is not None:
            cap = depth if cap is None else min(cap, depth)
        budget = None if movetime is None else movetime * self.time_share
        found = searcher.search(position, max_depth=cap, movetime=budget, history=history,
                                noise=self.noise, rng=rng, progress=progress)
        if self.oversight and rng.random() < self.oversight:
            # Self-play between levels that only search less deep is mostly drawn: in
            # FENIX two careful players lock the board up or trade down to bare Kings.
            # A level below the strongest overlooks a reply now and then, as people do,
            # and the stronger side can win from it.
            scores, rules = found.root_scores, searcher.rules
            safe = [m for m in legal_moves(position, rules)
                    if scores.get(m.token, -WIN_BOUND) > -DEAD_END // 2]
            if safe:
                move = min(safe, key=lambda m: (evaluate(play(position, m), rules,
                                                         searcher.weights), m.token))
                found = replace(found, move=move, score=scores[move.token], line=[move])
        return found


# Each level gives up something against the next, and the steps are those that decide
# games: two careful players lock the board up or repeat, so what separates two levels is
# mostly how often one of them overlooks the reply. Level 1 nearly plays at random (each
# move's score gets up to twenty stones of noise), level 2 does not follow captures past
# its one ply and picks among moves up to three stones apart, level 3 always overlooks the
# reply (the move that looks best as it stands, unless it loses the game by force), level
# 4 follows captures and overlooks the reply three moves in ten, levels 5 and 6 search
# three plies and overlook it rarely, level 7 searches in half the time and level 8 in
# all of it. Laid out by self-play, each level against the one below
# (``benchmarks/bench_opponent.py``).
LEVELS: Dict[int, Level] = {
    1: Level(1, 2000, False, 0.25),
    2: Level(1, 300, False, 0.25, 0.40),
    3: Level(1, 0, True, 0.25, 1.0),
    4: Level(1, 100, True, 0.25, 0.30),
    5: Level(3, 10, True, 0.5, 0.11),
    6: Level(3, 0, True, 0.5, 0.07),
    7: Level(None, 0, True, 0.5, 0.04),
    8: Level(None, 0, True, 1.0),
}
STRONGEST = max(LEVELS)

_SEARCHERS: Dict[tuple, Searcher] = {}


def searcher(rules: Rules, level: int = STRONGEST) -> Searcher:
    """A kept searcher for these rules and level (its tables help the next move), one
    per thread: at the table the computer and the coach search at the same time."""
    spec = level_of(level)
    key = (rules, spec.quiescence, threading.get_ident())
    found = _SEARCHERS.get(key)
    if found is None:
        if len(_SEARCHERS) > 8:
            _SEARCHERS.clear()
        found = _SEARCHERS[key] = Searcher(rules, quiescence=spec.quiescence)
    return found


def level_of(level: int) -> Level:
    if level not in LEVELS:
        raise ValueError(f"level {level!r}: expected 1 to {STRONGEST}")
    return LEVELS[level]


def analyse(position: Position, rules: Rules, *, level: int = STRONGEST,
            movetime: Optional[float] = DEFAULT_MOVETIME, depth: Optional[int] = None,
            history: Iterable[Position] = (), seed: Optional[int] = None,
            progress=None) -> Analysis:
    """Search ``position`` (which must have a legal move) as ``level`` does, within
    ``movetime`` seconds: the best move, its score (hundredths of a stone, the side to
    move's view), the expected line and the effort. ``depth`` caps the depth further;
    ``history`` holds the game's earlier positions (repetition)."""
    return level_of(level).search(searcher(rules, level), position, movetime=movetime,
                                  depth=depth, history=history, rng=random.Random(seed),
                                  progress=progress)


def choose(position: Position, rules: Rules, level: int = STRONGEST,
           movetime: Optional[float] = DEFAULT_MOVETIME, *, history: Iterable[Position] = (),
           seed: Optional[int] = None) -> Move:
    """The move ``level`` plays in ``position``: always one of ``legal_moves(position,
    rules)``. ValueError when there is none (the game is over)."""
    return analyse(position, rules, level=level, movetime=movetime, history=history,
                   seed=seed).move


__all__ = ["Analysis", "DEFAULT_MOVETIME", "LEVELS", "Level", "STRONGEST", "WIN_BOUND",
           "analyse", "choose", "searcher"]

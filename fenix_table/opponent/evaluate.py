"""The static evaluation: how good a quiet position is for the side to move.

Scores are in hundredths of a stone (a soldier is 100), from the side to move's view.
Every term reads the position's bitboards (``Position.red``, ``.black``, ``.soldiers``,
``.generals``, ``.kings``) and the engine's capture generator; nothing here knows moves
the rules engine does not.

The terms, each with a weight in :data:`WEIGHTS`:

- ``soldier``, ``general``, ``king``: what a piece is worth. A General (a rook that
  jumps from afar) is worth more than the two soldiers it is made of; a King only a
  little more than the General and soldier that would recreate it, because losing one
  costs the recreation, and losing the last chance to recreate is lost by the rules.
- ``general_line``: each empty cell a General sees along its four lines.
- ``soldier_step``: each empty cell a soldier can step to (mobility without generating).
- ``cohesion``: each pair of orthogonally touching own pieces (a jump needs an empty
  landing cell, so a piece backed by another cannot be jumped from that side).
- ``king_guard``: each own piece next to the own King.
- ``recreation``: the King stands and a soldier is within reach of a General, so the
  King could be recreated if it fell (under ``king_reach``).
- ``threat``: per stone the opponent could take with the largest capture the maximum
  rule would give them if it were their turn; the side to move may parry one threat,
  rarely two, so this weighs less than the stones.
- ``king_hangs``: the opponent's largest capture would take our King.
- ``general_right``: the side to move may create a General this turn (duty ``G``).
- ``king_depth``: each diagonal step the King stands away from its own corner (the
  front line is where the captures are).
- ``king_site``: in setup before the King is made, the same for the deepest General
  (where the King will most likely be made).
- ``setup_threat``: during setup, per stone each side could capture if the battle began
  now (their largest capture), ours counting for us.
"""
from __future__ import annotations

from typing import Dict

from ..rules import Position, Rules
from ..rules.geometry import bits_of
from ..rules.movegen import capture_candidates, captures

#: Weights tuned by self-play (``benchmarks/bench_opponent.py``: a variant such as
#: ``L8+threat=60`` against ``L8``).
WEIGHTS: Dict[str, int] = {
    "soldier": 100,
    "general": 300,
    "king": 450,
    "general_line": 3,
    "soldier_step": 2,
    "cohesion": 4,
    "king_guard": 8,
    "recreation": 80,
    "threat": 45,
    "general_right": 60,
    "king_depth": 20,
    "king_site": 10,
    "king_hangs": 250,
    "setup_threat": 60,
}

#: Stones and nothing else: the material-only evaluation of the benchmark's baseline.
MATERIAL: Dict[str, int] = {"soldier": 100, "general": 200, "king": 300}

WIN = 100_000
#: A setup stacked into a dead end (see :func:`_dead_end`): lost, one move from now.
DEAD_END = WIN // 2


def _shift_masks(geo):
    """Per orthogonal direction: (cells that may move that way, shift)."""
    return [(geo.can_step[d], geo.delta[d]) for d in range(4)]


_MASKS: Dict[str, list] = {}
_NEIGHBOURS8: Dict[str, list] = {}


def _masks(geo):
    masks = _MASKS.get(geo.size)
    if masks is None:
        masks = _MASKS[geo.size] = _shift_masks(geo)
        _NEIGHBOURS8[geo.size] = [sum(1 << j for j in geo.neighbours8[i]) for i in range(geo.n)]
    return masks


def _shift(bits: int, mask: int, delta: int) -> int:
    bits &= mask
    return bits << delta if delta > 0 else bits >> -delta


def _flipped(pos: Position) -> Position:
    """``pos`` with the other side to move (only for looking at its captures)."""
    return Position(pos.geo, pos.board, -pos.turn, pos.setup, "-", pos.clock,
                    (pos.red, pos.black, pos.soldiers, pos.generals, pos.kings))


def threatened(pos: Position, own: bool = False) -> int:
    """Stones the side *not* to move could take now (their largest capture's value), or
    with ``own`` the side to move."""
    flipped = pos if own else _flipped(pos)
    if not capture_candidates(flipped):
        return 0
    found = captures(flipped)
    return found[0].value if found else 0


def can_recreate(pos: Position, own: int, reach: str) -> bool:
    """Whether a soldier of ``own`` stands within ``reach`` of a General of ``own``."""
    soldiers = own & pos.soldiers
    generals = own & pos.generals
    if not soldiers or not generals:
        return False
    if reach == "anywhere":
        return True
    geo = pos.geo
    masks = _masks(geo)
    for mask, delta in masks:
        if _shift(generals, mask, delta) & soldiers:
            return True
    if reach == "neighbour":
        n8 = _NEIGHBOURS8[geo.size]
        for g in bits_of(generals):
            if n8[g] & soldiers:
                return True
    return False


def evaluate(pos: Position, rules: Rules, weights: Dict[str, int] = WEIGHTS) -> int:
    """The side to move's score of ``pos`` (assumed quiet: no capture or duty pending)."""
    own, enemy = pos.own, pos.enemy
    s, g, k = pos.soldiers, pos.generals, pos.kings
    w_s, w_g, w_k = weights["soldier"], weights["general"], weights["king"]
    score = (w_s * ((own & s).bit_count() - (enemy & s).bit_count()) +
             w_g * ((own & g).bit_count() - (enemy & g).bit_count()) +
             w_k * ((own & k).bit_count() - (enemy & k).bit_count()))
    if len(weights) <= 3:
        return score
    geo = pos.geo
    masks = _masks(geo)
    empty = ~(own | enemy) & geo.full
    w_step, w_coh = weights["soldier_step"], weights["cohesion"]
    for side, sign in ((own, 1), (enemy, -1)):
        soldiers = side & s
        steps = touching = 0
        for mask, delta in masks:
            steps += (_shift(soldiers, mask, delta) & empty).bit_count()
        for mask, delta in masks[:2]:   # north and east: each touching pair counted once
            touching += (_shift(side, mask, delta) & side).bit_count()
        score += sign * (w_step * steps + w_coh * touching)
    # Generals' lines: empty cells up to the first piece in each direction.
    board = pos.board
    rays = geo.ray
    w_line = weights["general_line"]
    me = pos.turn
    for i in bits_of(g):
        seen = 0
        for d in range(4):
            for j in rays[d][i]:
                if board[j]:
                    break
                seen += 1
        score += w_line * seen if board[i] * me > 0 else -w_line * seen
    n8 = _NEIGHBOURS8[geo.size]
    w_guard, w_rec = weights["king_guard"], weights["recreation"]
    for side, sign in ((own, 1), (enemy, -1)):
        king = side & k
        if king:
            i = king.bit_length() - 1
            score += sign * w_guard * (n8[i] & side).bit_count()
            if can_recreate(pos, side, rules.king_reach):
                score += sign * w_rec
    w_depth, w_site = weights["king_depth"], weights["king_site"]
    width, height = geo.width, geo.height
    for side, sign, red in ((own, 1, me > 0), (enemy, -1, me < 0)):
        # The King, or in setup before it is made the General it will most likely be
        # made from (the deepest one), should stand back from the front.
        king = side & k
        candidates = [king.bit_length() - 1] if king else \
            (list(bits_of(side & g)) if pos.in_setup else [])
        if candidates:
            steps = min((i % width + i // width) if red else
                        (width - 1 - i % width) + (height - 1 - i // width)
                        for i in candidates)
            score -= sign * (w_depth if king else w_site) * steps
    if pos.in_setup:
        if rules.setup_reach == "orthogonal":
            for side, sign in ((own, 1), (enemy, -1)):
                if _dead_end(pos, side):
                    score -= sign * DEAD_END
        # Red makes the first battle move: each side's capture chances at that moment
        # (the other side's are threats it can still parry while stacking).
        score += weights["setup_threat"] * (threatened(pos, own=True) - threatened(pos))
        return score
    taken = threatened(pos)
    if taken:
        score -= weights["threat"] * taken
        if taken >= 3 and (own & k) and _king_hangs(pos):
            score -= weights["king_hangs"]
    if pos.duty == "G":
        score += weights["general_right"]
    return score


def _dead_end(pos: Position, side: int) -> bool:
    """Setup with ``setup_reach=orthogonal``: four Generals, no King, and no soldier
    next to a General. The King can never be made: that side has no move and loses."""
    return (not side & pos.kings and (side & pos.generals).bit_count() == 4 and
            not can_recreate(pos, side, "orthogonal"))


def _king_hangs(pos: Position) -> bool:
    """Whether one of the opponent's largest captures (on their turn) takes our King."""
    flipped = _flipped(pos)
    king = pos.own & pos.kings
    return any(king >> j & 1 for m in captures(flipped) for j in m.jumped)

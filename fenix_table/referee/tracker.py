"""Matching what the camera sees against what legal play can produce.

The referee never decides cell by cell. It reduces an observation to a
:class:`BoardReading` (a colour per cell, ``None`` where the camera is unsure or covered;
a height where the camera is sure of it) and compares the *whole* board with every
placement legal play can lead to: the position itself, the result of one, two or three
consecutive plies, and a capture whose jumped stacks are still (partly) standing.

Seen from above a stacking move (setup, King or General creation) only empties the cell
the soldier came from; colour occupancy plus the legal-move list narrow it down, and the
stack heights, where the camera reads them confidently, pick the target.

The search only follows moves that touch a cell where the board still differs from the
reading, which keeps even three plies of the setup phase (hundreds of legal moves each)
to a few hundred positions.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

Piece = Tuple[str, int]
Placement = Dict[str, Piece]


def colour(piece: Optional[Piece]) -> str:
    return "empty" if piece is None else piece[0]


@dataclass(frozen=True)
class BoardReading:
    """What the referee trusts of one observation.

    ``colors[cell]`` is "empty", "red", "black", or None when unknown (covered, below the
    confidence threshold, or a known misread); ``heights[cell]`` is 1..3 where the camera
    is confident of an occupied cell's height, else None.
    """

    colors: Dict[str, Optional[str]]
    heights: Dict[str, Optional[int]]

    @property
    def unknown(self) -> Tuple[str, ...]:
        return tuple(c for c, v in self.colors.items() if v is None)

    def key(self) -> Tuple:
        """Equal for readings that show the same colours (used to wait for persistence)."""
        return tuple(sorted(self.colors.items(), key=lambda kv: kv[0]))

    def diff(self, placement: Mapping[str, Piece]) -> List[str]:
        """Known cells whose colour differs from ``placement``."""
        return [cell for cell, seen in self.colors.items()
                if seen is not None and seen != colour(placement.get(cell))]

    def height_conflicts(self, placement: Mapping[str, Piece]) -> List[str]:
        """Occupied cells of matching colour whose confident height differs."""
        out = []
        for cell, height in self.heights.items():
            piece = placement.get(cell)
            if height is not None and piece is not None and \
                    self.colors.get(cell) == piece[0] and piece[1] != height:
                out.append(cell)
        return out


def read_board(observation, cells: Sequence[str], min_confidence: float,
               masked: Optional[Mapping[str, str]] = None) -> BoardReading:
    """Reduce an ``Observation`` to a :class:`BoardReading`.

    ``masked`` maps cells to a colour the players confirmed to be a misread: while the
    camera keeps reading exactly that colour there, the cell counts as unknown.
    """
    occluded = set(observation.occluded_cells)
    masked = masked or {}
    colors: Dict[str, Optional[str]] = {}
    heights: Dict[str, Optional[int]] = {}
    for cell in cells:
        reading = observation.cells.get(cell)
        if reading is None or cell in occluded or reading.color_confidence < min_confidence \
                or masked.get(cell) == reading.color:
            colors[cell] = None
            heights[cell] = None
            continue
        colors[cell] = reading.color
        heights[cell] = reading.height if (
            reading.color != "empty" and reading.height is not None
            and reading.height_confidence >= min_confidence) else None
    return BoardReading(colors, heights)


@dataclass
class Candidate:
    """A board that legal play can lead to from the current position.

    ``moves`` are the plies (engine Moves) in order (empty: the position itself);
    ``position`` the position after them; ``placement`` what the board should show, which
    for a capture still in progress (``pending`` non-empty) includes the jumped stacks not
    yet taken off; ``mismatches`` the known cells whose colour differs from the reading.
    """

    moves: Tuple = ()
    position: object = None
    placement: Placement = field(default_factory=dict)
    pending: Tuple[str, ...] = ()
    mismatches: Tuple[str, ...] = ()

    @property
    def tokens(self) -> Tuple[str, ...]:
        return tuple(m.token for m in self.moves)

    def touched(self) -> set:
        """Cells the moves put a stone on or into (where a height must have changed)."""
        return {m.path[-1] for m in self.moves}

    def placement_key(self) -> Tuple:
        return tuple(sorted(self.placement.items()))


class Candidates(list):
    """The candidates a search found; ``complete`` is False when the search gave up at
    its node budget (the list may then miss explanations and must not decide a move)."""

    complete: bool = True


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def search(position, rules, reading: BoardReading, max_plies: int = 3,
           tolerance: int = 0, use_heights: bool = True, budget: int = 1500,
           most: Optional[int] = None) -> Candidates:
    """Every candidate of up to ``max_plies`` plies whose placement differs from the
    reading on at most ``tolerance`` known cells (the position itself included).

    Pruning, all of it exact for the moves that matter: a ply starts from a cell where
    the board still differs from the reading (or cannot be read), or jumps one; the last
    ply must leave at most ``tolerance`` differing cells; when every ply left is a setup
    ply (each empties one cell and grows one stack) a board needing more than they can
    give is dropped; with ``use_heights`` a stacking move may not build a stack higher
    than the camera confidently reads there (stacks never shrink in place). At most
    ``budget`` positions are expanded, and at most ``most`` candidates are kept (several
    stacking plies with no heights read multiply: each candidate costs as much as a
    position); beyond either ``complete`` is False.
    """
    from ..rules import legal_moves, play

    geo = position.geo
    names = geo.names
    code = {"empty": 0, "red": 1, "black": -1}
    rc = [None if reading.colors.get(n) is None else code[reading.colors[n]] for n in names]
    rh = [reading.heights.get(n) for n in names]
    found = Candidates()

    def bad(v: int, i: int) -> bool:
        return rc[i] is not None and _sign(v) != rc[i]

    def candidate(moves, after, standing=(), before=None, differing=None) -> Optional[Candidate]:
        """``differing``: the cells (indices) known to differ, when the search already
        has them (no stacks standing): thousands of setup histories each skip a pass over
        the board."""
        stacks = after.stacks()
        for i in standing:
            # Jumped stacks not yet taken off are still on the board.
            stacks[names[i]] = before.piece_at(names[i])
        if len(moves) > 1 and not every_ply_shows(moves, position, stacks):
            return None
        if differing is not None:
            mism = tuple(names[i] for i in sorted(differing))
        else:
            mism = tuple(names[i] for i in range(geo.n) if bad(_value(stacks, names[i]), i))
        return Candidate(tuple(moves), after, stacks, tuple(names[i] for i in standing), mism)

    board0 = position.board
    diff0 = {i for i in range(geo.n) if bad(board0[i], i)}
    if len(diff0) <= tolerance:
        found.append(candidate((), position))
    nodes = 0

    def extend(pos, diff, seq) -> None:
        nonlocal nodes
        remaining = max_plies - len(seq)
        if remaining <= 0 or not diff:
            return
        nodes += 1
        if nodes > budget or (most is not None and len(found) >= most):
            found.complete = False
            return
        board = pos.board
        if pos.in_setup and remaining <= pos.setup_moves_left("red") + pos.setup_moves_left("black"):
            # Every ply left is a setup ply, and a setup ply empties one cell and leaves
            # every colour elsewhere as it was: a stone on an empty cell, or more emptied
            # cells than plies left, is no setup.
            if len(diff) > remaining + tolerance or \
                    sum(1 for i in diff if rc[i] != 0) > tolerance:
                return
            grown = sum(1 for i in range(geo.n) if rh[i] is not None and board[i] and
                        rc[i] == _sign(board[i]) and rh[i] > abs(board[i]))
            if grown > remaining + tolerance:
                return
        for move in legal_moves(pos, rules):
            frm, to = move.frm, move.to
            if frm not in diff and rc[frm] is not None and not any(j in diff for j in move.jumped):
                continue   # (a capture chain may end where it began: only its jumps show)
            v = board[frm]
            if move.stacking:
                new_to = board[to] + _sign(board[to])
                if use_heights and rh[to] is not None and rc[to] == _sign(new_to) and \
                        abs(new_to) > rh[to]:
                    continue
            else:
                new_to = v
            changed = {frm: 0, to: new_to}
            for j in move.jumped:
                changed[j] = 0
            after_diff = {i for i in diff if i not in changed}
            after_diff.update(i for i, nv in changed.items() if bad(nv, i))
            # Jumped stacks the camera still sees (or cannot see) are still standing:
            # the capture is in progress, nothing is committed too early.
            standing = tuple(j for j in move.jumped if rc[j] != 0)
            shown_diff = after_diff - {j for j in standing
                                       if rc[j] is None or rc[j] == _sign(board[j])}
            cand = None
            if not standing and len(after_diff) <= tolerance:
                cand = candidate(seq + (move,), play(pos, move), differing=after_diff)
            elif standing and len(shown_diff) <= tolerance:
                cand = candidate(seq + (move,), play(pos, move), standing, pos)
            if cand is not None:
                if most is not None and len(found) >= most:
                    found.complete = False
                    return
                found.append(cand)
            if remaining > 1 and after_diff:
                extend(play(pos, move), after_diff, seq + (move,))

    extend(position, diff0, ())
    return found


def every_ply_shows(moves, position, stacks: Mapping[str, Piece]) -> bool:
    """True when each of ``moves`` (played from ``position``) leaves a trace on the board
    they lead to (``stacks``): a cell the ply emptied, filled or jumped differs from the
    position. A piece moved away and back between two still boards leaves none, so no
    camera saw that ply: such a route would dress an out-of-turn move (Black moving while
    Red is to play) as three legal plies."""
    before = position.stacks()
    for move in moves:
        cells = (move.path[0], move.path[-1], *move.captured)
        if all(stacks.get(c) == before.get(c) for c in cells):
            return False
    return True


def _value(stacks, cell) -> int:
    piece = stacks.get(cell)
    if piece is None:
        return 0
    return piece[1] if piece[0] == "red" else -piece[1]


@dataclass
class Decision:
    """What a reading means: ``kind`` is "unchanged", "move", "ambiguous" or "none".

    "move": ``candidate`` is the single explanation (maybe a capture still pending);
    "ambiguous": ``options`` are the candidates that fit equally well;
    "none": nothing legal fits.
    ``height_warnings`` are cells whose confident height contradicts the chosen placement
    away from the moved pieces.
    """

    kind: str
    candidate: Optional[Candidate] = None
    options: List[Candidate] = field(default_factory=list)
    complete: bool = True       # False: the search gave up, ``options`` may miss some
    height_warnings: Tuple[str, ...] = ()
    routes: Tuple[Tuple[str, ...], ...] = ()


def _same_result(cands: List[Candidate]) -> bool:
    """True when the candidates all lead to the same position (the same pieces jumped,
    the same cells filled and emptied) and differ only in a capture's route or the order
    of one side's plies: the board can never tell those apart, and the game is the same."""
    first = cands[0]
    return all(c.position.fpn() == first.position.fpn() and c.pending == first.pending
               and sorted(c.placement.items()) == sorted(first.placement.items())
               for c in cands[1:])


def evidence_gaps(cand: Candidate, reading: BoardReading) -> Tuple[str, ...]:
    """Cells a candidate relies on without the camera having seen them: a ply's start or
    landing cell that is unreadable, or a stacking move's landing whose height is not read
    as the stack it becomes. A candidate with gaps is inferred, not seen."""
    gaps = []
    for move in cand.moves:
        for cell in (move.path[0], move.path[-1]):
            if reading.colors.get(cell) is None:
                gaps.append(cell)
        landing = move.path[-1]
        if move.stacking and reading.colors.get(landing) is not None:
            piece = cand.placement.get(landing)
            if piece is None or reading.heights.get(landing) != piece[1]:
                gaps.append(landing)
    return tuple(sorted(set(gaps)))


def decide(candidates: List[Candidate], reading: BoardReading,
           heights: str = "trust") -> Decision:
    """Pick the one explanation of a reading among exact candidates, or say why not.

    Fewer plies win (a board that still fits the position means nothing has happened
    yet, or the moved cells are not readable). A candidate whose landing cell has a
    confident height that contradicts it is out. Several different placements, or
    several moves leading to the same placement, are ambiguous: the referee waits. The
    one exception are options that all lead to the same position (a capture's route, the
    order of one side's plies): the position is certain, the first option (by token) is
    taken and ``routes`` lists the others. ``heights``: "trust" (a contradicting height
    rules a candidate out), "prefer" (it only lowers the candidate's standing and becomes
    a warning) or "ignore" (colours alone decide). A search that gave up at its
    budget never decides a move: it is "ambiguous" with the options it found.
    """
    if not candidates:
        return Decision("none") if getattr(candidates, "complete", True) else \
            Decision("ambiguous", complete=False)
    fewest = min(len(c.moves) for c in candidates)
    if fewest == 0:
        unchanged = next(c for c in candidates if not c.moves)
        return Decision("unchanged", unchanged,
                        height_warnings=tuple(reading.height_conflicts(unchanged.placement)))
    viable = []
    for cand in candidates:
        conflicts = set() if heights == "ignore" else set(reading.height_conflicts(cand.placement))
        if heights == "trust" and conflicts & cand.touched():
            continue
        viable.append((len(cand.moves), cand, conflicts))
    if not viable:
        return Decision("none")
    fewest = min(n for n, _, _ in viable)
    best = [(cand, conflicts) for n, cand, conflicts in viable if n == fewest]
    least = min(len(conflicts) for _, conflicts in best)
    best = [(cand, conflicts) for cand, conflicts in best if len(conflicts) == least]
    if not getattr(candidates, "complete", True):
        return Decision("ambiguous", options=[cand for cand, _ in best], complete=False)
    if len(best) > 1 and _same_result([cand for cand, _ in best]):
        # The board cannot show where a chain landed in between or which of two plies
        # came first, and the game is the same: commit the first and name the others.
        ordered = sorted(best, key=lambda item: item[0].tokens)
        cand, conflicts = ordered[0]
        return Decision("move", cand, height_warnings=tuple(sorted(conflicts)),
                        routes=tuple(c.tokens for c, _ in ordered[1:]))
    if len(best) > 1:
        return Decision("ambiguous", options=[cand for cand, _ in best])
    cand, conflicts = best[0]
    return Decision("move", cand, height_warnings=tuple(sorted(conflicts)))


#: A stacking ply is taken on the camera's evidence of which stack changed
#: (:mod:`fenix_table.vision.evidence`) when its landing stack scores at least
#: ``CHANGE_MIN`` and at least ``CHANGE_DOMINANCE`` times every other candidate's (a
#: score below ``CHANGE_NOISE`` counts as that: an untouched stack's noise), and no
#: candidate next to it changed too (at least ``CHANGE_NEIGHBOUR_FLOOR`` and a
#: ``CHANGE_NEIGHBOUR_SHARE`` of its score): a stack that grew casts a longer shadow, and
#: that shadow may fall on its neighbour's top, which then changes as much as the stack
#: itself. The change itself must reach ``CHANGE_MIN``: the hand (``HAND_BONUS``) only
#: helps it stand out. With the rim's sectors in the evidence a shadow falling on one
#: side of a neighbour no longer makes it score; the neighbour the new top disc and its
#: shadow reach changes by a third to a half of the landing (black stacks on the dark
#: face most). Measured offline with this rule on the generator's tuning games (0-9 and
#: 20-39, seed 1, 265 stacking plies, the referee's stable frames): a share of 0.3 took
#: 236, 0.5 takes 244, none wrong either way; the three plies that once made wrong
#: commits (generator games 26 and 38, independent renderer 28, inspected before) stay
#: right or open.
CHANGE_MIN = 7.0
CHANGE_NOISE = 1.0
CHANGE_DOMINANCE = 2.0
CHANGE_NEIGHBOUR_SHARE = 0.5
CHANGE_NEIGHBOUR_FLOOR = 2.0
#: Added to the change score of a stack where the mover's fingertips were last seen
#: before the board became still, and ``HAND_NEAR_BONUS`` beside them or one beyond
#: (:func:`hand_cells`).
HAND_BONUS = 2.5
HAND_NEAR_BONUS = 2.0
#: Where the hand was seen to put the stone down (``Observation.pointed``, from the
#: fingers' front in the last frame with the hand): a cell's bonus in the ranking is
#: ``POINT_BONUS`` times a normal likelihood of its centre's distance from that spot,
#: spread ``POINT_SPREAD`` (cells), for the cells within ``POINT_REACH``. On the
#: generator's tuning games (0-7, 90 stacking plies) the landing's centre was 0.15 cells
#: from the spot (median), 0.42 at the 90th percentile, and the candidate nearest it on 88.
POINT_BONUS = 4.0
POINT_SPREAD = 0.35
POINT_REACH = 1.5
#: A stacking ply is taken live on a weak change when the hand pointed at its landing:
#: the landing within ``POINT_NEAR`` of the spot and every other candidate at least
#: ``POINT_CLEAR`` from it, its change (next to the emptied cell, less the share the
#: lifted stone's shadow explains) at least ``POINT_CHANGE_MIN`` (above an untouched
#: stack's noise) and ``POINT_DOMINANCE`` times every other candidate's; the
#: changed-neighbour test stands as for :data:`CHANGE_MIN`. Replayed on the first stable
#: observation of each stacking ply of the generator's tuning games 0-9 (109 plies with
#: several candidates) it took 105 live, 103 without it, none wrong; the wrong candidate
#: that came nearest passed its weakest test 0.40 of the way (0.58 with a dominance of
#: 1; each near, clear and change threshold tried around these took the same plies).
#: A hand last seen pulling back points elsewhere: on the same games rendered with the
#: generator's withdrawing hands (``fenix_tools.sim.ply_frames``) the spot was nearest
#: the landing on 35 of 109 plies, and the change still kept the path right: it took no
#: ply the change rule did not, and the nearest wrong candidate came 0.39 of the way.
POINT_NEAR = 0.5
POINT_CLEAR = 0.8
POINT_CHANGE_MIN = 3.0
POINT_DOMINANCE = 1.5
#: A stack next to the cell the stone was lifted from needs this much change of its own:
#: the lifted stone's shadow leaves its neighbours (on the independent renderer's games
#: such a neighbour was taken three times with the true stack showing nothing). With the
#: rim's sectors (the side facing the emptied cell is one of eight) 10 took the same
#: tuning plies as 7; 15 left out four.
CHANGE_NEXT_TO_EMPTIED = 10.0
#: A landing whose top disc clearly grew, and no rival's did, needs to dominate by its
#: change only ``CHANGE_DOMINANCE_GROWN`` times: its growth
#: (:func:`fenix_table.vision.evidence.stack_growth`) at least ``GROWTH_CONFIRM`` spreads
#: and ``GROWTH_CONFIRM_DOMINANCE`` times every other candidate's (at least
#: ``CHANGE_NOISE``). Every other test stands, on the change alone: the growth never
#: makes a change, nor excuses a changed neighbour. Replayed on the generator's tuning
#: games (0-9, 20-59, 575 stacking plies) it took three plies more, none wrong; the
#: wrong candidate that came nearest got 0.36 of the way under it (0.71 under the rule
#: without it). The growth added to the change score instead took five more but made a
#: wrong live commit on a held-out game, a neighbour of the landing.
CHANGE_DOMINANCE_GROWN = 1.5
GROWTH_CONFIRM = 7.0
GROWTH_CONFIRM_DOMINANCE = 3.0


#: A stack that grew casts a longer shadow, onto its neighbour on the light's far side;
#: that neighbour's top then changes too, on the generator's tuning games (0-9, 20-39)
#: up to one and a half times the landing's own change (black stacks on the dark face).
#: Where the still board shows which way shadows fall (``Observation.shadow``), a
#: stack's change less ``SHADOW_SHARE`` of the change of the stack of its colour it lies
#: in the shadow of (times how well their direction, within ``SHADOW_ALIGN``, meets the
#: shadow's), when that stack changed clearly (``CHANGE_MIN``: one that did not grow casts
#: no longer shadow), is what the ranking and the rule above weigh. The share and the
#: alignment are the best of those tried on the generator's tuning games; taking the
#: diagonal neighbours in too did worse.
SHADOW_SHARE = 0.8
SHADOW_ALIGN = 0.6
#: The neighbours a shadow reaches: the next stone across a cell's side is 0.2 cell
#: beyond the stack's rim, the one across its corner 0.6 (on the generator's games the
#: neighbour that changed with the landing was one across a side, and the direction
#: found on the board is off by up to about 45 degrees).
_SHADOW_STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def unshadowed(changes: Mapping[str, float], size: str, colours: Mapping[str, Optional[str]],
               shadow: Optional[Tuple[float, float]]) -> Mapping[str, float]:
    """``changes`` less what the grown neighbours' longer shadows explain (see
    :data:`SHADOW_SHARE`); ``changes`` itself when the way shadows fall is not known."""
    from ..board import cell_index, cell_name, on_board

    if not changes or shadow is None:
        return changes
    steps = []
    for df, dr in _SHADOW_STEPS:
        align = df * shadow[0] + dr * shadow[1]
        if align >= SHADOW_ALIGN:
            steps.append((df, dr, SHADOW_SHARE * align))
    out = dict(changes)
    for cell, score in changes.items():
        colour = colours.get(cell)
        if colour in (None, "empty"):
            continue
        f, r = cell_index(cell)
        explained = 0.0
        for df, dr, share in steps:
            if not on_board(size, f - df, r - dr):
                continue
            source = cell_name(f - df, r - dr)
            grown = changes.get(source, 0.0)
            if colours.get(source) == colour and grown >= CHANGE_MIN:
                explained = max(explained, share * grown)
        out[cell] = score - explained
    return out


#: How much of a stack's top-disc growth (``Observation.growth``, in spreads of its
#: colour's stacks; :func:`fenix_table.vision.evidence.stack_growth`), when it grew, the
#: ranking of landings adds to its change: the cells a live question points at and the
#: likeliest ply ``track`` records. The live rule does not add it to the change (see
#: :data:`CHANGE_DOMINANCE_GROWN`).
GROWTH_WEIGHT = 1.5


def ranking_scores(weighed: Mapping[str, float], growth: Mapping[str, float]
                   ) -> Mapping[str, float]:
    """The change scores the ranking of landings weighs: ``weighed`` (the changes less
    what grown neighbours' shadows explain, :func:`unshadowed`) plus
    :data:`GROWTH_WEIGHT` times each stack's growth, when it grew."""
    if not weighed or not growth:
        return weighed
    return {cell: score + GROWTH_WEIGHT * max(growth.get(cell, 0.0), 0.0)
            for cell, score in weighed.items()}


def pointed_cells(pointed: Optional[Tuple[float, float]], size: str) -> Dict[str, float]:
    """The bonus of each cell near where the hand was seen to put a stone down
    (``pointed``, board coordinates in cells: ``Observation.pointed``):
    ``POINT_BONUS`` times a normal likelihood of the cell's centre's distance from it
    (spread ``POINT_SPREAD``), for the cells within ``POINT_REACH``."""
    from ..board import cell_name, dimensions

    if pointed is None:
        return {}
    width, height = dimensions(size)
    x, y = pointed
    cells = {}
    for f in range(max(0, int(x - POINT_REACH)), min(width, int(x + POINT_REACH) + 1)):
        for r in range(max(0, int(y - POINT_REACH)), min(height, int(y + POINT_REACH) + 1)):
            distance = _centre_distance(f, r, pointed)
            if distance <= POINT_REACH:
                cells[cell_name(f, r)] = POINT_BONUS * math.exp(-0.5 * (distance / POINT_SPREAD) ** 2)
    return cells


def pointed_distance(cell: str, pointed: Tuple[float, float]) -> float:
    """How far (cells) the centre of ``cell`` is from the spot the hand pointed at."""
    from ..board import cell_index

    return _centre_distance(*cell_index(cell), pointed)


def _centre_distance(file: int, rank: int, pointed: Tuple[float, float]) -> float:
    """How far (cells) the centre of the cell at (``file``, ``rank``) is from ``pointed``."""
    return math.hypot(file + 0.5 - pointed[0], rank + 0.5 - pointed[1])


def hand_cells(reached: Sequence[str], side: str,
               pointed: Optional[Tuple[float, float]] = None, size: Optional[str] = None
               ) -> Dict[str, float]:
    """Where ``side``'s hand put a stone down, as far as the cells it covered last
    (``reached``) tell, each with its bonus: the covered cells farthest into the board
    from ``side``'s edge (Red sits at rank 1, Black beyond the last rank), the fingertips
    (``HAND_BONUS``), and the cells beside them and one beyond (``HAND_NEAR_BONUS``). On
    the generator's tuning games (0-9, 20-39, 344 stacking plies) a candidate stack at
    the fingertips was the landing 19% of the time, beside or one beyond them 14-15%,
    one behind them 6%, anywhere else 2%. With the spot the hand's fingers were seen to
    point at (``pointed``, on a ``size`` board), each cell's bonus is the larger of that
    and :func:`pointed_cells`'."""
    from ..board import cell_index, cell_name

    near = pointed_cells(pointed, size) if size else {}
    if not reached:
        return near
    forward = 1 if side == "red" else -1
    def depth(cell: str) -> int:
        return forward * int(cell[1:])
    deepest = max(depth(c) for c in reached)
    tips = [c for c in reached if depth(c) == deepest]
    cells: Dict[str, float] = {}
    for tip in tips:
        f, r = cell_index(tip)
        cells.update((cell_name(f + df, r + dr), HAND_NEAR_BONUS) for df in (-1, 0, 1)
                     for dr in (0, forward) if f + df >= 0 and r + dr >= 0)
    cells.update((tip, HAND_BONUS) for tip in tips)
    for cell, bonus in near.items():
        cells[cell] = max(bonus, cells.get(cell, 0.0))
    return cells


def _ending_in_stacking(options: Sequence[Candidate]) -> bool:
    """Whether every option ends in a stacking ply (landed, nothing pending) after the
    same earlier plies: the change of one board decides only among such a set."""
    if not options:
        return False
    first = options[0].tokens[:-1]
    return all(cand.moves and cand.moves[-1].stacking and not cand.pending and
               cand.tokens[:-1] == first for cand in options)


def landing_scores(options: Sequence[Candidate], changes: Mapping[str, float]
                   ) -> Optional[List[float]]:
    """Per option, the change score of the stack its last ply landed on; None unless
    every option ends in a stacking ply after the same earlier plies and the camera
    measured every landing cell (the evidence is of the latest change only)."""
    if not changes or not _ending_in_stacking(options):
        return None
    scores = [changes.get(cand.moves[-1].path[-1]) for cand in options]
    return None if any(score is None for score in scores) else scores


def ply_evidence(move, size: str, changes: Mapping[str, float],
                 hand: Optional[Mapping[str, float]] = None) -> Optional[float]:
    """How much the camera speaks for stacking ply ``move`` (None: nothing measured): the
    landing stack's change, plus the hand's bonus there (``hand``, the mover's
    :func:`hand_cells`; with no change measured, the hand alone), less the share of the
    lifted stone's shadow for a stack next to the emptied cell (what
    :data:`CHANGE_NEXT_TO_EMPTIED` asks beyond :data:`CHANGE_MIN`): with nobody to ask
    the likeliest ply recorded was often the emptied cell's neighbour. The share is what
    the generator's games support (a larger one picked no more plies right there); on
    the independent renderer the shadow gives more (its game 28 still records f7-g7 for
    f7-d6: g7 changed 13.8, d6 9.4)."""
    if not move.stacking:
        return None
    landing = move.path[-1]
    hand = hand or {}
    score = changes.get(landing)
    if score is None and (changes or not hand):
        return None
    if score is not None:
        score -= _lifted_share(move, size)
    return (score or 0.0) + _hand_bonus(landing, hand)


def _lifted_share(move, size: str) -> float:
    """The share of a stack's change the lifted stone's shadow explains when stacking ply
    ``move`` lands next to the cell it emptied (what :data:`CHANGE_NEXT_TO_EMPTIED` asks
    beyond :data:`CHANGE_MIN`), else 0."""
    from ..board import neighbours

    adjacent = move.path[0] in neighbours(size, move.path[-1])
    return CHANGE_NEXT_TO_EMPTIED - CHANGE_MIN if adjacent else 0.0


def _mover_hand(options: Sequence[Candidate], reached: Sequence[str],
                pointed: Optional[Tuple[float, float]] = None) -> Dict[str, float]:
    """:func:`hand_cells` of the player who made the options' last ply (the side not to
    move after it)."""
    position = options[0].position
    return hand_cells(reached, "black" if position.side == "red" else "red", pointed,
                      position.size)


def _hand_bonus(landing: str, hand: Mapping[str, float]) -> float:
    """The bonus of a landing among the mover's :func:`hand_cells` (``hand``)."""
    return hand.get(landing, 0.0)


def landing_by_change(options: Sequence[Candidate], changes: Mapping[str, float],
                      reached: Sequence[str] = (), growth: Optional[Mapping[str, float]] = None,
                      pointed: Optional[Tuple[float, float]] = None) -> Optional[Candidate]:
    """The one option whose last (stacking) ply landed on the stack that clearly changed
    most (see :data:`CHANGE_MIN`, :data:`CHANGE_DOMINANCE`; ``reached``: the cells a
    hand covered last, see :data:`HAND_BONUS`; ``growth``: the stacks' top-disc growth,
    see :data:`CHANGE_DOMINANCE_GROWN`), or else the one the hand pointed at (``pointed``,
    see :data:`POINT_NEAR`), or None. A stack next to the cell the stone was lifted
    from, rival or chosen, dominates by its change less the lifted shadow's share, as in
    the ranking (:func:`ply_evidence`)."""
    changed = landing_scores(options, changes) if len(options) > 1 else None
    if changed is None:
        return None
    size = options[0].position.size
    # Every stack, the chosen one too, is weighed as the ranking weighs it (ply_evidence):
    # the lifted stone's shadow leaving a stack next to the emptied cell explains part of
    # its change, so the chosen one must dominate by what is left. Its own change counts
    # whole only against CHANGE_MIN: next to the emptied cell it must reach
    # CHANGE_NEXT_TO_EMPTIED instead.
    rivals = [score - _lifted_share(cand.moves[-1], size) for cand, score in zip(options, changed)]
    chosen = _changed_most(options, changed, rivals, _mover_hand(options, reached), growth)
    if chosen is None and pointed is not None:
        chosen = _pointed_landing(options, changed, rivals, pointed)
    return chosen


def _changed_most(options: Sequence[Candidate], changed: Sequence[float],
                  rivals: Sequence[float], hand: Mapping[str, float],
                  growth: Optional[Mapping[str, float]]) -> Optional[Candidate]:
    """:func:`landing_by_change`'s rule on the change (with the hand's covered cells'
    bonus, ``hand``, and the growth)."""
    from ..board import neighbours

    size = options[0].position.size
    weighed = [rival + _hand_bonus(cand.moves[-1].path[-1], hand)
               for cand, rival in zip(options, rivals)]
    order = sorted(range(len(options)), key=lambda i: -weighed[i])
    chosen = options[order[0]]
    own = changed[order[0]]        # the hand only helps a change stand out, never makes one
    best = own + _hand_bonus(chosen.moves[-1].path[-1], hand)
    second = max(weighed[i] for i in order[1:])
    dominance = CHANGE_DOMINANCE_GROWN if _grown_alone(options, order[0], growth) \
        else CHANGE_DOMINANCE
    if best < CHANGE_MIN or weighed[order[0]] < dominance * max(second, CHANGE_NOISE):
        return None
    emptied = chosen.moves[-1].path[0]
    if own < CHANGE_MIN or (own < CHANGE_NEXT_TO_EMPTIED and
                            emptied in neighbours(size, chosen.moves[-1].path[-1])):
        return None
    if _changed_neighbour(options, rivals, chosen, own):
        return None
    return chosen


def _changed_neighbour(options: Sequence[Candidate], rivals: Sequence[float],
                       chosen: Candidate, own: float) -> bool:
    """Whether a rival of ``chosen`` next to its landing changed too (see
    :data:`CHANGE_NEIGHBOUR_SHARE`); ``own`` is the chosen stack's change."""
    from ..board import neighbours

    near = set(neighbours(chosen.position.size, chosen.moves[-1].path[-1]))
    return any(cand.moves[-1].path[-1] in near and
               rival >= max(CHANGE_NEIGHBOUR_FLOOR, CHANGE_NEIGHBOUR_SHARE * own)
               for cand, rival in zip(options, rivals))


def _pointed_landing(options: Sequence[Candidate], changed: Sequence[float],
                     rivals: Sequence[float], pointed: Tuple[float, float]
                     ) -> Optional[Candidate]:
    """The option whose landing the hand pointed at (see :data:`POINT_NEAR`) when its
    change, weak as it may be, agrees; else None."""
    distances = [pointed_distance(cand.moves[-1].path[-1], pointed) for cand in options]
    order = sorted(range(len(options)), key=lambda i: distances[i])
    best = order[0]
    if distances[best] > POINT_NEAR or distances[order[1]] < POINT_CLEAR:
        return None
    # Next to the emptied cell, what the lifted stone's shadow explains does not count
    # (``rivals`` is the change less that share, as the ranking weighs it).
    own = rivals[best]
    if own < POINT_CHANGE_MIN or \
            own < POINT_DOMINANCE * max(max(rivals[i] for i in order[1:]), CHANGE_NOISE):
        return None
    chosen = options[best]
    if _changed_neighbour(options, rivals, chosen, changed[best]):
        return None
    return chosen


def _grown_alone(options: Sequence[Candidate], chosen: int,
                 growth: Optional[Mapping[str, float]]) -> bool:
    """Whether option ``chosen``'s landing's top disc clearly grew and no other option's
    did (:data:`GROWTH_CONFIRM`, :data:`GROWTH_CONFIRM_DOMINANCE`)."""
    if not growth:
        return False
    grown = [growth.get(cand.moves[-1].path[-1], 0.0) for cand in options]
    others = max(g for i, g in enumerate(grown) if i != chosen)
    return grown[chosen] >= max(GROWTH_CONFIRM,
                                GROWTH_CONFIRM_DOMINANCE * max(others, CHANGE_NOISE))


def narrowed(options: Sequence[Candidate], changes: Mapping[str, float],
             reached: Sequence[str] = (), growth: Optional[Mapping[str, float]] = None,
             pointed: Optional[Tuple[float, float]] = None) -> List[Candidate]:
    """``options`` (explanations of the board, as histories from the same position)
    without the last plies the camera's evidence rules out: among histories that differ
    only in their last, stacking ply, the one whose landing stack clearly changed
    (``growth``: see :func:`landing_by_change`)."""
    groups: Dict[Tuple[str, ...], List[Candidate]] = {}
    for cand in options:
        groups.setdefault(cand.tokens[:-1], []).append(cand)
    kept: List[Candidate] = []
    for group in groups.values():
        chosen = landing_by_change(group, changes, reached, growth, pointed)
        kept.extend([chosen] if chosen is not None else group)
    return kept


def common_plies(options: Sequence[Candidate]) -> int:
    """How many first plies every option shares (they are certain whichever is true)."""
    if not options:
        return 0
    shortest = min(len(c.moves) for c in options)
    n = 0
    while n < shortest and len({c.tokens[n] for c in options}) == 1:
        n += 1
    return n

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


def search(position, rules, reading: BoardReading, max_plies: int = 3,
           tolerance: int = 0) -> List[Candidate]:
    """Every candidate of up to ``max_plies`` plies whose placement differs from the
    reading on at most ``tolerance`` known cells (the position itself included)."""
    from ..rules import apply, legal_moves

    found: List[Candidate] = []
    base = position.stacks()
    diff0 = reading.diff(base)
    if len(diff0) <= tolerance:
        found.append(Candidate((), position, base, (), tuple(diff0)))

    def extend(pos, stacks: Placement, seq: Tuple, diff: List[str]) -> None:
        if len(seq) >= max_plies or not diff:
            return
        differing = set(diff)
        for move in legal_moves(pos, rules):
            ends = {move.path[0], move.path[-1], *move.captured}
            if not ends & differing:
                continue
            after = apply(pos, move, rules)
            after_stacks = after.stacks()
            after_diff = reading.diff(after_stacks)
            plies = seq + (move,)
            # After a capture, jumped stacks the camera still sees (or cannot see) count
            # as standing: the capture is pending, so nothing is committed too early.
            standing = [c for c in move.captured if reading.colors.get(c) != "empty"]
            if not standing and len(after_diff) <= tolerance:
                found.append(Candidate(plies, after, after_stacks, (), tuple(after_diff)))
            if standing:
                shown = dict(after_stacks)
                for cell in standing:
                    shown[cell] = stacks[cell]
                shown_diff = reading.diff(shown)
                if len(shown_diff) <= tolerance:
                    found.append(Candidate(plies, after, shown, tuple(standing),
                                           tuple(shown_diff)))
            extend(after, after_stacks, plies, after_diff)

    extend(position, base, (), diff0)
    return found


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
    height_warnings: Tuple[str, ...] = ()


def decide(candidates: List[Candidate], reading: BoardReading) -> Decision:
    """Pick the one explanation of a reading among exact candidates, or say why not.

    Fewer plies win (a board that still fits the position means nothing has happened
    yet, or the moved cells are not readable). A candidate whose landing cell has a
    confident height that contradicts it is out. Several different placements, or
    several moves leading to the same placement, are ambiguous: the referee waits.
    """
    if not candidates:
        return Decision("none")
    fewest = min(len(c.moves) for c in candidates)
    if fewest == 0:
        unchanged = next(c for c in candidates if not c.moves)
        return Decision("unchanged", unchanged,
                        height_warnings=tuple(reading.height_conflicts(unchanged.placement)))
    viable = []
    for cand in candidates:
        conflicts = set(reading.height_conflicts(cand.placement))
        if conflicts & cand.touched():
            continue
        viable.append((len(cand.moves), cand, conflicts))
    if not viable:
        return Decision("none")
    fewest = min(n for n, _, _ in viable)
    best = [(cand, conflicts) for n, cand, conflicts in viable if n == fewest]
    least = min(len(conflicts) for _, conflicts in best)
    best = [(cand, conflicts) for cand, conflicts in best if len(conflicts) == least]
    if len(best) > 1:
        return Decision("ambiguous", options=[cand for cand, _ in best])
    cand, conflicts = best[0]
    return Decision("move", cand, height_warnings=tuple(sorted(conflicts)))

"""The stability filter: an observation is passed on only when the board has been still.

The referee must not see half-made moves: a stone in mid-air, a hand over the board, or
a frame where the picture changed. :class:`StabilityFilter` waits until ``frames``
consecutive observations were made without a hand, with the board found, and with every
cell showing the same colour in all of them, and then yields one merged observation:
each cell's colour, its lowest colour confidence, and the height claimed most often
(None when the frames disagree or never claim one).

One flicker is not motion: with three frames or more, cells whose colour differs in just
one of them (the same odd frame for all) are passed on as unreadable (confidence 0)
rather than holding the whole board back. A cell on a colour boundary that flips every
other frame would otherwise keep the referee from ever seeing the board. Two frames that
each differ from the rest somewhere mean the board moved.
"""
from __future__ import annotations

from collections import Counter, deque
from typing import Deque, Dict, Optional

from .types import CellReading, Observation


class StabilityFilter:
    """Feed every observation to :meth:`push`; it returns the merged observation once the
    board has been still and unoccluded for ``frames`` frames (and on every further still
    frame), else None.

    >>> f = StabilityFilter(frames=3)
    >>> [f.push(obs) is not None for obs in (a, a, a, a)]        # doctest: +SKIP
    [False, False, True, True]
    """

    def __init__(self, frames: int = 3):
        if frames < 1:
            raise ValueError("frames must be at least 1")
        self.frames = frames
        # Frames that may disagree on a cell before the board counts as moving.
        self.flicker = 1 if frames >= 3 else 0
        self.window: Deque[Observation] = deque(maxlen=frames)

    def reset(self) -> None:
        self.window.clear()

    def push(self, observation: Observation, moving: bool = False) -> Optional[Observation]:
        """Add one observation; ``moving`` marks a frame the caller saw change (motion).
        Returns the stable observation or None."""
        if not observation.board_found or observation.hand or observation.occluded_cells or moving:
            self.window.clear()
            return None
        if self.window and (self.window[-1].board != observation.board
                            or self.window[-1].cells.keys() != observation.cells.keys()):
            self.window.clear()
        self.window.append(observation)
        if len(self.window) < self.frames:
            return None
        return self._merge()

    def _merge(self) -> Optional[Observation]:
        last = self.window[-1]
        cells: Dict[str, CellReading] = {}
        dissenting = set()       # frames that disagree with the others somewhere
        for name in last.cells:
            seen = [obs.cells[name] for obs in self.window]
            (color, count), *others = Counter(r.color for r in seen).most_common()
            if others and others[0][1] == count:
                return None
            dissenting.update(i for i, r in enumerate(seen) if r.color != color)
            if len(dissenting) > self.flicker:
                return None       # more than one odd frame: the board changed, not still
            agreeing = [r for r in seen if r.color == color]
            claimed = Counter(r.height for r in agreeing if r.height is not None)
            height, conf = None, 0.0
            if len(claimed) == 1:
                (height, _), = claimed.most_common(1)
                conf = max(r.height_confidence for r in agreeing if r.height == height)
            color_conf = min(r.color_confidence for r in seen) if count == len(seen) else 0.0
            cells[name] = CellReading(color, height if color != "empty" else None, color_conf,
                                      conf if color_conf > 0 else 0.0)
        return Observation(last.board, cells, False, (), True, last.frame_index)

"""The stability filter: an observation is passed on only when the board has been still.

The referee must not see half-made moves: a stone in mid-air, a hand over the board, or
a frame where one cell flickers. :class:`StabilityFilter` waits until ``frames``
consecutive observations were made without a hand, with the board found, and with the
same colour on every cell, and then yields one merged observation: each cell's colour
(the same in all frames), its lowest colour confidence, and the height claimed most often
(None when the frames disagree or never claim one).
"""
from __future__ import annotations

from collections import Counter, deque
from typing import Deque, Dict, Optional, Tuple

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
        self.window: Deque[Observation] = deque(maxlen=frames)

    def reset(self) -> None:
        self.window.clear()

    @staticmethod
    def _colours(observation: Observation) -> Tuple[Tuple[str, str], ...]:
        return tuple(sorted((c, r.color) for c, r in observation.cells.items()))

    def push(self, observation: Observation, moving: bool = False) -> Optional[Observation]:
        """Add one observation; ``moving`` marks a frame the caller saw change (motion).
        Returns the stable observation or None."""
        if not observation.board_found or observation.hand or observation.occluded_cells or moving:
            self.window.clear()
            return None
        if self.window and (self.window[-1].board != observation.board
                            or self._colours(self.window[-1]) != self._colours(observation)):
            self.window.clear()
        self.window.append(observation)
        if len(self.window) < self.frames:
            return None
        return self._merge()

    def _merge(self) -> Observation:
        last = self.window[-1]
        cells: Dict[str, CellReading] = {}
        for name, reading in last.cells.items():
            seen = [obs.cells[name] for obs in self.window]
            claimed = Counter(r.height for r in seen if r.height is not None)
            height, conf = None, 0.0
            if claimed:
                (height, count), = claimed.most_common(1)
                if len(claimed) > 1:
                    height = None           # the frames disagree: do not guess
                else:
                    conf = max(r.height_confidence for r in seen if r.height == height)
            cells[name] = CellReading(reading.color, height if reading.color != "empty" else None,
                                      min(r.color_confidence for r in seen), conf)
        return Observation(last.board, cells, False, (), True, last.frame_index)

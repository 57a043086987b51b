"""The whole per-frame vision pipeline: locate, calibrate, read, watch for hands and motion.

:class:`Vision` is what the referee (``fenix-table track``) and the display
(``fenix-table run``) call for every camera frame. It owns the calibration:

* no calibration yet, or the image size changed: locate the board;
* every ``check_every`` frames without a hand, check that the grid still fits the image
  (the camera or the board may have been bumped) and re-locate when it does not, keeping
  the colour model and the orientation (a1 stays the corner nearest the old a1);
* while the colour model is the shipped default, a hand-free frame that shows the start
  position (in any of the grid's orientations) teaches the colour model the
  room's light (:class:`~fenix_table.vision.colour.Room`) and fixes the orientation;
* motion is the per-cell change of the rectified board from the previous frame;
* :class:`~fenix_table.vision.stability.StabilityFilter` turns the stream into stable
  observations.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..errors import BoardNotFoundError
from .board import DIMENSIONS, check_board, start_placement
from .cells import DEFAULT_READER, CellReader, ReaderConfig, calibrate_reader
from .hands import cell_motion
from .stability import StabilityFilter
from .types import Calibration, Observation

STATUSES = ("ok", "board_not_found", "hand", "moving")


@dataclass(frozen=True)
class VisionResult:
    """One processed frame. ``stable`` is the stability filter's output (None until the
    board has been still for the required frames); ``status`` is one of :data:`STATUSES`."""

    observation: Observation
    stable: Optional[Observation]
    calibration: Optional[Calibration]
    status: str


class Vision:
    """Per-frame pipeline; see the module docstring.

    ``board`` is "auto", "9x9" or "7x8"; ``calibration`` a saved one to start from (it is
    still re-located if it stops fitting); ``stable_frames`` the still frames needed for a
    stable observation.

    >>> vision = Vision(stable_frames=3)                          # doctest: +SKIP
    >>> for i, frame in enumerate(open_source("0")):              # doctest: +SKIP
    ...     result = vision.process(frame, i)
    ...     if result.stable: referee.see(result.stable)
    """

    def __init__(self, board: str = "auto", calibration: Optional[Calibration] = None,
                 stable_frames: int = 3, *, check_every: int = 15, motion_threshold: Optional[float] = None,
                 config: ReaderConfig = DEFAULT_READER):
        if board != "auto":
            check_board(board)
        if calibration is not None and board != "auto" and calibration.board != board:
            raise ValueError(f"calibration is for {calibration.board}, not {board}")
        self.board = board
        self.config = config
        self.check_every = check_every
        self.motion_threshold = config.hands.motion if motion_threshold is None else motion_threshold
        self.filter = StabilityFilter(stable_frames)
        self.calibration: Optional[Calibration] = None
        self.reader: Optional[CellReader] = None
        self.previous_L: Optional[np.ndarray] = None
        self.frames_since_check = 0
        if calibration is not None:
            self._use(calibration)

    def _use(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self.reader = CellReader(calibration, self.config)
        self.previous_L = None
        self.frames_since_check = 0

    def _not_found(self, frame_index: int) -> VisionResult:
        self.filter.reset()
        board = self.board if self.board != "auto" else (self.calibration.board if self.calibration else "auto")
        obs = Observation(board, {}, False, (), False, frame_index)
        return VisionResult(obs, None, None, "board_not_found")

    def _locate(self, frame_bgr: np.ndarray) -> Optional[Calibration]:
        from .locate import locate_board
        try:
            found = locate_board(frame_bgr, self.board)
        except BoardNotFoundError:
            return None
        old = self.calibration
        if old is None or found.board != old.board:
            return found
        # The room's cell looks are in the old grid's rectified orientation: keep it (a1
        # the corner nearest the old a1) unless the stones say otherwise; a grid turned by
        # them shows the start position, which teaches its room again.
        kept = _nearest_orientation(found, old)
        if found.oriented and kept.corners != found.corners:
            return found
        return Calibration(kept.board, kept.image_size, kept.corners, found.oriented or old.oriented, old.room)

    def process(self, frame_bgr: np.ndarray, frame_index: int = 0) -> VisionResult:
        """Process one BGR frame; see :class:`VisionResult`."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError("frame must be a BGR image (height x width x 3)")
        h, w = frame_bgr.shape[:2]
        if self.calibration is not None and tuple(self.calibration.image_size) != (w, h):
            self.calibration, self.reader = None, None
        if self.calibration is None:
            found = self._locate(frame_bgr)
            if found is None:
                return self._not_found(frame_index)
            self._use(found)
        elif self.frames_since_check >= self.check_every:
            from .locate import REFIT_BELOW, grid_still_fits
            self.frames_since_check = 0
            if grid_still_fits(self.calibration, frame_bgr) < REFIT_BELOW:
                found = self._locate(frame_bgr)
                if found is None:
                    self.calibration, self.reader = None, None
                    return self._not_found(frame_index)
                self._use(found)
        self.frames_since_check += 1

        obs = self.reader.read(frame_bgr, frame_index)
        if not obs.hand and not self.reader.calibrated:
            calibrated = self._calibrate_from_start(frame_bgr, obs)
            if calibrated is not None:
                self._use(calibrated)
                obs = self.reader.read(frame_bgr, frame_index)

        L = self.reader.last.L
        moving = False
        if self.previous_L is not None and self.previous_L.shape == L.shape:
            width, height = DIMENSIONS[self.calibration.board]
            change = cell_motion(self.previous_L, L, width, height, self.reader.last.ppc, self.reader.last.pad)
            moving = bool((change > self.motion_threshold).any())
        self.previous_L = L.copy()
        stable = self.filter.push(obs, moving=moving)
        status = "hand" if obs.hand else ("moving" if moving else "ok")
        return VisionResult(obs, stable, self.calibration, status)

    def _calibrate_from_start(self, frame_bgr: np.ndarray, obs: Observation) -> Optional[Calibration]:
        """The calibration refitted to this frame if it shows the start position in one
        of the grid's orientations, else None."""
        cal = self.calibration
        layout = start_placement(cal.board)
        turns = (0,) if cal.oriented else ((0, 1, 2, 3) if cal.board == "9x9" else (0, 2))
        for turn in turns:
            turned = cal.rotated(turn) if turn else cal
            # Cell names move with the turn; compare via the turned grid's own reading.
            seen = obs if turn == 0 else CellReader(turned, self.config).read(frame_bgr, obs.frame_index)
            agree = sum((seen.cells[c].color == (layout[c][0] if c in layout else "empty"))
                        for c in seen.cells) / len(seen.cells)
            if agree >= 0.9:
                try:
                    fitted = calibrate_reader(frame_bgr, turned, layout, self.config)
                except ValueError:
                    return None
                return Calibration(fitted.board, fitted.image_size, fitted.corners, True,
                                   fitted.room)
        return None


def _nearest_orientation(found: Calibration, old: Calibration) -> Calibration:
    """``found`` turned so that its a1 corner is the one nearest ``old``'s a1 corner."""
    turns = range(4) if found.board == "9x9" else (0, 2)
    a1 = np.array(old.corners[0])
    best = min(turns, key=lambda k: np.linalg.norm(np.array(found.rotated(k).corners[0]) - a1))
    return found.rotated(best)

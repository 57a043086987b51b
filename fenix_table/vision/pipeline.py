"""The whole per-frame vision pipeline: locate, calibrate, read, watch for hands and motion.

:class:`Vision` is what the referee (``fenix-table track``) and the display
(``fenix-table run``) call for every camera frame. It owns the calibration:

* no calibration yet, or the image size changed: locate the board. A search that finds
  none is not run again until the picture has changed and is still again, or every
  :data:`SEARCH_AGAIN` frames (a search in vain costs about a second here and several on
  a Pi). For a live camera (``search_apart``) the search runs in a thread of its own and
  the frames meanwhile come out as ``searching``: the display and the buttons do not wait
  for it, and the camera's frames would be dropped anyway;
* every ``check_every`` frames without a hand, check that the grid still fits the image
  (the camera or the board may have been bumped) and re-locate when it does not, keeping
  the colour model and the orientation (a1 stays the corner nearest the old a1);
* while the colour model is the shipped default, a still frame that the position the
  board should show explains (in any of the grid's orientations,
  :func:`calibrate_from_position`) teaches the colour model the room's light
  (:meth:`~fenix_table.vision.cells.CellReader.learn_room`) and fixes the orientation; a
  frame flagged with a hand only once the picture is still, and only if it explains
  nearly every cell (glare and lamplight, not an arm). That position is the start
  position until the referee says otherwise (:meth:`Vision.expect`): a game resumed
  after a restart, or one whose start frame the camera missed, is learned from the
  position it has reached;
* each position the referee confirms (:meth:`Vision.learn`) teaches it again, from the
  last few confirmed frames: positions with stones all over the board, and the light as
  it is now, not as it was at the start;
* once the room is learned, a hand is what changed along the board's edge since the
  frame the room was learned from (:class:`~fenix_table.vision.hands.MarginLook`): a
  lamp's pool of light there is no arm. What stays flagged, still, for
  :data:`LOOK_AGAIN` frames becomes the edge's look, room or none (a game the table
  joins late, in such a light, is then seen too);
* motion is the per-cell change of the rectified board from the previous frame;
* :class:`~fenix_table.vision.stability.StabilityFilter` turns the stream into stable
  observations, each with the evidence of what changed since the still board before the
  latest change (:mod:`.evidence`: which stack a stone was put on, and where the hand
  last seen before it pointed).
"""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, replace
from typing import Dict, Mapping, Optional, Tuple

import cv2
import numpy as np

from ..board import cell_index, cell_name, check_size, dimensions, turns_allowed
from ..board import turned as turned_cell
from ..errors import BoardNotFoundError
from ..rules import Position
from .cells import DEFAULT_READER, CellReader, ReaderConfig, calibrate_reader
from .colour import CLASSES, layout_labels
from .evidence import pointed_at, shadow_direction, stack_changes, stack_growth
from .hands import cell_motion, margin_motion
from .stability import StabilityFilter
from .types import Calibration, Observation

STATUSES = ("ok", "board_not_found", "searching", "hand", "moving")
LESSONS = 6               # confirmed frames the room is learned from (the latest ones)
LESSON_AGREEMENT = 0.95   # share of cells the frame must already read as confirmed
ROUGH_AGREEMENT = 0.8     # share of cells a frame must already read as the expected position (one way)
FLAGGED_FIT = 0.9         # layout fit a frame flagged with a hand must reach (Cycles tuning
                          # rooms' glare and spot light: 0.93-0.94; an arm over 8 cells of 81: < 0.9)
GLANCE_SIZE = (64, 48)    # the thumbnail that tells whether the picture changed
GLANCE_CHANGE = 3.0       # mean grey levels between two thumbnails of a changed picture
SEARCH_AGAIN = 100        # frames after which the same still picture is searched again (noise
                          # can tip a faint board either way)
LOOK_AGAIN = 100          # still frames flagged with a hand after which the board's edge as it is
                          # becomes the room's look (MarginLook): no hand rests that still so long


def _glance(frame_bgr: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, GLANCE_SIZE, interpolation=cv2.INTER_AREA).astype(np.int16)


def _alike(a: Optional[np.ndarray], b: np.ndarray) -> bool:
    return a is not None and float(np.abs(a - b).mean()) < GLANCE_CHANGE


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

    ``board`` is "auto", "9x9" or "7x8"; ``calibration`` a saved one to start from (checked
    on the first frame, and re-located when it does not fit); ``stable_frames`` the still
    frames needed for a stable observation; ``search_apart``: search for the board in a
    thread of its own (a live camera; a recording's frames must each be read, so it waits).

    >>> vision = Vision(stable_frames=3)                          # doctest: +SKIP
    >>> for i, frame in enumerate(open_source("0")):              # doctest: +SKIP
    ...     result = vision.process(frame, i)
    ...     if result.stable: referee.see(result.stable)
    """

    def __init__(self, board: str = "auto", calibration: Optional[Calibration] = None,
                 stable_frames: int = 3, *, check_every: int = 15, motion_threshold: Optional[float] = None,
                 config: ReaderConfig = DEFAULT_READER, search_apart: bool = False):
        if board != "auto":
            check_size(board)
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
        self._quiet = 0           # frames in a row without motion
        self._tried = False       # a frame tried for the room since the picture last moved
        self._expected: Optional[Tuple[str, Dict[str, Tuple[str, int]]]] = None   # (face, stacks); None: start
        # While no board is found: the last frame's thumbnail, and that of the frame the
        # last search found none in.
        self._glance: Optional[np.ndarray] = None
        self._searched: Optional[np.ndarray] = None
        self._since_search = 0
        self.search_apart = search_apart
        self._searching: Optional[_Search] = None     # a search under way in its own thread
        self.lessons: deque = deque(maxlen=LESSONS)   # (lesson, labels) of confirmed frames
        self._last: Optional[Tuple[Observation, bool]] = None   # last frame read, and whether it moved
        # Still boards: the current one's colours and first stable frame (rectified), and
        # the first stable frame of the one before (what a change is measured against).
        self._still = None
        self._still_colors: Optional[Tuple[str, ...]] = None
        self._before = None
        self._shadow: Optional[Tuple[float, float]] = None   # as the current still board shows
        # Cells under the hand in the latest frame with one, and as it was when the
        # current still board began.
        self._reached: Tuple[str, ...] = ()
        self._still_reached: Tuple[str, ...] = ()
        # The last two frames read (rectified), and the two before the board's latest
        # still run began: the last frame with a hand is among them (the first frame
        # without it may still count as moving). Where that hand pointed and the way
        # shadows fall are worked out on the run's frame before its first stable one,
        # apart from the change measures of that (each frame's cost stays small), and
        # kept for the still board the run turns out to be. Not on the run's first
        # frame: a hand pulling back off the board's edge, missed by the hand check,
        # may still be in it.
        self._recent: deque = deque(maxlen=2)
        self._lead_in: Tuple = ()
        self._run: Tuple[Optional[Tuple[float, float]], Optional[Tuple[float, float]]] = (None, None)
        self._pointed: Optional[Tuple[float, float]] = None
        if calibration is not None:
            self._use(calibration)
            # A saved grid is checked on the first frame: the camera may have moved since.
            self.frames_since_check = check_every

    def _use(self, calibration: Calibration, previous: Optional[Calibration] = None) -> None:
        """Read through ``calibration`` from now on (``previous``: the grid it replaces)."""
        if calibration.room is None:
            self.lessons.clear()          # a new grid orientation: its looks start afresh
        same_pixels = previous is not None and _same_grid(previous, calibration)
        self.calibration = calibration
        self.reader = CellReader(calibration, self.config)
        self.previous_L = None
        self.frames_since_check = 0
        self._quiet = 0
        self._tried = False
        self._last = None
        if not same_pixels:
            # Rectified pictures of another grid cannot be compared with the new ones; a
            # refit that moved no corner by a pixel keeps them (and the evidence).
            self._still = self._still_colors = self._before = None
            self._recent.clear()
            self._lead_in = ()
            self._run = (None, None)

    def _not_found(self, frame_index: int) -> VisionResult:
        """No board in this frame: none found, or (``searching``) a search for it under way."""
        self.filter.reset()
        self._last = None
        board = self.board if self.board != "auto" else (self.calibration.board if self.calibration else "auto")
        obs = Observation(board, {}, False, (), False, frame_index)
        return VisionResult(obs, None, None, "board_not_found" if self._searching is None else "searching")

    def _search(self, frame_bgr: np.ndarray, old: Optional[Calibration]) -> bool:
        """Search ``frame_bgr`` for the board (``old``: the grid that stopped fitting, whose
        orientation and room a board found again keeps). Whether a board was found and
        taken; with ``search_apart`` the search goes on in its own thread, and what it
        finds is taken on a later frame."""
        if self.search_apart:
            self._searching = _Search(self.board, frame_bgr.copy(), old)
            return False
        return self._found(_locate_again(frame_bgr, self.board, old), frame_bgr, old)

    def _found(self, found: Optional[Calibration], searched_bgr: np.ndarray, old: Optional[Calibration]) -> bool:
        """Take what a search of ``searched_bgr`` found, or remember that picture as
        searched in vain. Whether a board was taken."""
        if found is None:
            self._glance = self._searched = _glance(searched_bgr)
            self._since_search = 0
            return False
        self._glance = self._searched = None
        self._use(found, old)
        return True

    def process(self, frame_bgr: np.ndarray, frame_index: int = 0) -> VisionResult:
        """Process one BGR frame; see :class:`VisionResult`."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError("frame must be a BGR image (height x width x 3)")
        h, w = frame_bgr.shape[:2]
        if self.calibration is not None and tuple(self.calibration.image_size) != (w, h):
            self.calibration, self.reader = None, None
        if self._searching is not None:
            search = self._searching
            if search.is_alive():
                return self._not_found(frame_index)     # the search goes on in its thread
            self._searching = None
            if search.frame.shape != frame_bgr.shape or not self._found(search.found, search.frame, search.old):
                return self._not_found(frame_index)
        elif self.calibration is None:
            glance = _glance(frame_bgr)
            still, self._glance = _alike(self._glance, glance), glance
            self._since_search += 1
            if self._searched is not None and (not still or _alike(self._searched, glance)) \
                    and self._since_search < SEARCH_AGAIN:
                return self._not_found(frame_index)     # searched in vain, and nothing new
            if not self._search(frame_bgr, None):
                return self._not_found(frame_index)
        elif self.frames_since_check >= self.check_every:
            from .locate import REFIT_BELOW, grid_still_fits
            self.frames_since_check = 0
            if grid_still_fits(self.calibration, frame_bgr) < REFIT_BELOW:
                old = self.calibration
                self.calibration, self.reader = None, None     # a board found again replaces it
                if not self._search(frame_bgr, old):
                    return self._not_found(frame_index)
        self.frames_since_check += 1

        obs = self.reader.read(frame_bgr, frame_index)
        moving = self._moved()
        self._quiet = 0 if moving else self._quiet + 1
        if moving:
            self._tried = False
        # A frame flagged with a hand calibrates only once the picture has been still a
        # while: an arm moves, a lamp's light on the board's edge does not. A still picture
        # that did not teach is tried again only now and then (the fit costs about 50 ms a
        # turn here, several times that on a Pi, and noise can tip it either way); a moving
        # one not at all.
        if not self.reader.calibrated and not moving and (not obs.hand or self._quiet >= self.filter.frames) and \
                (not self._tried or self._quiet % SEARCH_AGAIN == 0):
            self._tried = True
            placement = self._expected_on(self.calibration.board)
            calibrated = self._calibrate_from(frame_bgr, obs, placement)
            if calibrated is not None:
                self._use(calibrated, self.calibration)
                obs = self.reader.read(frame_bgr, frame_index)
                moving = False
                self.lessons.clear()
                use = np.array([n not in obs.occluded_cells for n in self.reader.names])
                if placement != Position.start(calibrated.board).stacks():
                    use &= _reads_as(obs, placement)   # a stone the referee let pass stays out
                self._add_lesson(placement, use)
        if obs.hand and self._quiet >= LOOK_AGAIN:
            # What stays flagged this long is the room (a lamp's pool of light, a cup put
            # down at the edge, or an arm in the frame the look was taken from), not an
            # arm. Without a room learned yet the look lasts until one is.
            room = self.reader.look_again()
            if room is not None:
                self.calibration = replace(self.calibration, room=room)
            self._quiet = 0
        L = self.reader.last.L
        self.previous_L = L.copy()
        self._last = (obs, moving)
        if obs.hand and obs.occluded_cells:
            self._reached = tuple(obs.occluded_cells)
        stable = self.filter.push(obs, moving=moving)
        run = len(self.filter.window)
        if run == 1:
            self._lead_in = tuple(self._recent)
        if run == max(1, self.filter.frames - 1):
            width, height = dimensions(self.calibration.board)
            colors = [r.color for r in obs.cells.values()]
            self._run = (pointed_at(self._lead_in, self.reader.last),
                         shadow_direction(self.reader.last, width, height, colors))
        self._recent.append(self.reader.last)
        if stable is not None:
            stable = self._with_changes(stable)
        status = "hand" if obs.hand else ("moving" if moving else "ok")
        return VisionResult(obs, stable, self.calibration, status)

    def _moved(self) -> bool:
        """Whether the frame just read changed from the one before (cell by cell, or along
        the margin while a still run is under way)."""
        L = self.reader.last.L
        if self.previous_L is None or self.previous_L.shape != L.shape:
            return False
        width, height = dimensions(self.calibration.board)
        ppc, pad = self.reader.last.ppc, self.reader.last.pad
        change = cell_motion(self.previous_L, L, width, height, ppc, pad)
        # A still run's frames must agree along the margin too: an arm reaching in that
        # the hand check missed breaks the run (the first frame of a run may differ there
        # from the last with a hand: that hand has gone).
        return bool((change > self.motion_threshold).any()) or bool(self.filter.window) and margin_motion(
            self.previous_L, L, width, height, ppc, pad, self.config.hands) > self.config.hands.margin_motion

    def _with_changes(self, stable: Observation) -> Observation:
        """``stable`` with the change of every cell since the still board before the
        latest change of colours, measured between the first stable frames of the two:
        a hand the hand check missed comes at the end of a still board (someone reaching
        in), so its first frames are the cleanest."""
        colors = tuple(r.color for r in stable.cells.values())
        width, height = dimensions(self.calibration.board)
        if colors != self._still_colors:
            self._before, self._still_colors = self._still, colors
            self._still = self.reader.last
            self._still_reached, self._reached = self._reached, ()
            self._pointed, self._shadow = self._run
        stable = replace(stable, reached=self._still_reached, shadow=self._shadow,
                         pointed=self._pointed)
        if self._before is None:
            return stable
        change = stack_changes(self._before, self.reader.last, width, height, colors)
        growth = stack_growth(self._before, self.reader.last, width, height, colors)
        return replace(stable, changes=dict(zip(self.reader.names, np.round(change, 2).tolist())),
                       growth=dict(zip(self.reader.names, np.round(growth, 2).tolist())))

    def learn(self, placement: Mapping[str, Tuple[str, int]]) -> bool:
        """The referee's word that the board in the last frame processed shows
        ``placement`` (cell -> (colour, height); cells not in it are empty), normally
        right after that frame's stable observation committed a move. The room's colours
        are learned again from the latest confirmed frames (the start frame among them
        until newer ones push it out). Returns whether the frame was taken.

        Only a still, hand-free frame of an oriented grid that already reads nearly all
        (:data:`LESSON_AGREEMENT`) of its cells as confirmed is taken: a stone lifted
        since, or a grid turned against the referee's names, must not teach the room."""
        if self._last is None or self.reader is None or not self.calibration.oriented:
            return False
        obs, moving = self._last
        if obs.hand or moving:
            return False
        agree = _reads_as(obs, placement)
        # The few cells read otherwise are left out of the lesson: most are misreads, but
        # one may hold what the referee let pass (a stray stone, a stone read through glare).
        if agree.mean() < LESSON_AGREEMENT or not self._add_lesson(placement, agree):
            return False
        if len(self.lessons) < 2:
            return True     # one frame alone teaches less than the room it would replace
        room = self.reader.learn_room(self.lessons)
        cal = self.calibration
        self.calibration = replace(cal, room=room)
        self.reader.use_room(room)
        return True

    def _add_lesson(self, placement: Mapping[str, Tuple[str, int]], use: Optional[np.ndarray] = None) -> bool:
        """Keep the last frame read, labelled with ``placement``, as a lesson (only the
        cells ``use`` marks, when given)."""
        rect = self.reader.last
        if rect is None:
            return False
        labels = layout_labels(placement, self.reader.names)
        if use is not None:
            labels = np.where(use, labels, -1)
        if len(set(labels.tolist()) - {-1}) < len(CLASSES):
            return False        # a class the frame does not show cannot be learned from it
        self.lessons.append((self.reader.lesson(rect), labels))
        return True

    def expect(self, position: Optional[Position]) -> None:
        """The referee's word on the position the board should show now (None: the start
        position). Until a room is learned, still frames are tried against it
        (:func:`calibrate_from_position`): after a restart the game goes on from where it
        was, and a game whose start frame the camera missed has moved on from the start
        position. A new position is tried on the next still frame."""
        expected = None if position is None else (position.size, position.stacks())
        if expected != self._expected:
            self._expected = expected
            self._tried = False

    def _expected_on(self, board: str) -> Dict[str, Tuple[str, int]]:
        """The stacks the board should show, on ``board``'s face (the start position's
        when the referee's position is on the other face)."""
        if self._expected is not None and self._expected[0] == board:
            return self._expected[1]
        return Position.start(board).stacks()

    def _calibrate_from(self, frame_bgr: np.ndarray, obs: Observation,
                        placement: Dict[str, Tuple[str, int]]) -> Optional[Calibration]:
        """The calibration refitted to this frame if it shows ``placement`` in one of
        the grid's orientations (:func:`calibrate_from_position`), else None."""
        try:
            return calibrate_from_position(frame_bgr, self.calibration, placement, self.config, seen=obs)
        except ValueError:
            return None


def calibrate_from_position(frame_bgr: np.ndarray, calibration: Calibration,
                            placement: Optional[Mapping[str, Tuple[str, int]]] = None,
                            config: ReaderConfig = DEFAULT_READER, seen: Optional[Observation] = None) -> Calibration:
    """``calibration`` turned so that a1 is at Red's camp (``oriented``), its room learned
    (:func:`~.cells.calibrate_reader`) from ``frame_bgr`` showing ``placement`` (cell ->
    (colour, height); None: the start position). An oriented grid is taken as it is;
    otherwise each turn the grid allows is tried. ``seen`` is the frame's reading
    through ``calibration`` (read here when not given).

    Only the turns whose position the reading already roughly shows go on to the fit
    (about 50 ms a turn), those that show it best first: red where the position has red
    and nowhere else, or a stone wherever it has one and nowhere else. Either may fail
    alone, one in a dim room whose red stones read as black until a room is learned, the
    other on a dark face whose black stones read as empty.

    A frame flagged with a hand teaches only when the position explains it nearly cell
    for cell (a fit of :data:`FLAGGED_FIT`, every cell counted): the flagged cells
    of such a frame are glare on glossy stones or a lamp's light along the edge, not an
    arm, whose cells fit no class.

    Every game begins with the start position. A later one, which the referee knows,
    may be a move behind the board (made while the table was off), so the room learned
    from it must then read :data:`LESSON_AGREEMENT` of the cells as ``placement`` has them.

    Raises ValueError when no turn's position explains the frame."""
    board = calibration.board
    start = Position.start(board).stacks()
    placement = start if placement is None else dict(placement)
    if seen is None:
        seen = CellReader(calibration, config).read(frame_bgr)
    if seen.hand:
        config = replace(config, layout_fit=max(config.layout_fit, FLAGGED_FIT))
    names = list(seen.cells)
    read = np.array([CLASSES.index(r.color) for r in seen.cells.values()])
    empty, red = CLASSES.index("empty"), CLASSES.index("red")
    tries = []
    for turn in ((0,) if calibration.oriented else turns_allowed(board)):
        # The turned grid's cell (file, rank) is this grid's turned(...) cell.
        this = {n: cell_name(*turned_cell(board, *cell_index(n), turn)) for n in names}
        expect = layout_labels({this[n]: v for n, v in placement.items()}, names)
        agreement = max(((read == red) == (expect == red)).mean(), ((read != empty) == (expect != empty)).mean())
        if agreement >= ROUGH_AGREEMENT:
            tries.append((agreement, turn))
    problem = "the expected position is not in view"
    for _, turn in sorted(tries, key=lambda t: -t[0]):
        turned = calibration.rotated(turn) if turn else calibration
        try:
            fitted = replace(calibrate_reader(frame_bgr, turned, placement, config), oriented=True)
        except ValueError as e:
            problem = str(e)
            continue
        if placement != start:
            agree = _reads_as(CellReader(fitted, config).read(frame_bgr), placement).mean()
            if agree < LESSON_AGREEMENT:
                problem = f"the room learned reads {100 * agree:.0f}% of the cells as the expected position"
                continue
        return fitted
    raise ValueError(problem)


def _locate_again(frame_bgr: np.ndarray, board: str, old: Optional[Calibration]) -> Optional[Calibration]:
    """The board found in ``frame_bgr`` (None: not found). Found again after ``old``
    stopped fitting, it keeps ``old``'s orientation (a1 the corner nearest the old a1)
    and room, unless its stones say otherwise: a grid they turn shows the start
    position, which teaches its room again."""
    from .locate import locate_board
    try:
        found = locate_board(frame_bgr, board)
    except BoardNotFoundError:
        return None
    if old is None or found.board != old.board:
        return found
    kept = _nearest_orientation(found, old)
    if found.oriented and kept.corners != found.corners:
        return found
    return replace(kept, oriented=found.oriented or old.oriented, room=old.room)


class _Search(threading.Thread):
    """One board search (:func:`_locate_again`) in a thread of its own: a search costs
    about a second here when it finds nothing, several on a Pi, and a live table's
    display and buttons must not wait for it."""

    def __init__(self, board: str, frame_bgr: np.ndarray, old: Optional[Calibration]) -> None:
        super().__init__(name="fenix-board-search", daemon=True)
        self.board, self.frame, self.old = board, frame_bgr, old
        self.found: Optional[Calibration] = None
        self.start()

    def run(self) -> None:
        self.found = _locate_again(self.frame, self.board, self.old)


def _reads_as(obs: Observation, placement: Mapping[str, Tuple[str, int]]) -> np.ndarray:
    """Per cell (``obs.cells`` order, the reader's), whether ``obs`` reads it as
    ``placement`` has it."""
    seen = np.array([CLASSES.index(r.color) for r in obs.cells.values()])
    return seen == layout_labels(placement, list(obs.cells))


def _same_grid(old: Calibration, new: Calibration, pixels: float = 1.0) -> bool:
    """Whether ``new`` puts every corner of ``old`` within ``pixels`` (same face and frame)."""
    return old.board == new.board and tuple(old.image_size) == tuple(new.image_size) and \
        bool(np.all(np.abs(np.array(old.corners) - np.array(new.corners)) <= pixels))


def _nearest_orientation(found: Calibration, old: Calibration) -> Calibration:
    """``found`` turned so that its a1 corner is the one nearest ``old``'s a1 corner."""
    a1 = np.array(old.corners[0])
    best = min(turns_allowed(found.board), key=lambda k: np.linalg.norm(np.array(found.rotated(k).corners[0]) - a1))
    return found.rotated(best)

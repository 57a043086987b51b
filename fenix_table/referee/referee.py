"""The referee: follows a game on the physical board and says what happened.

:class:`Referee` holds the rules engine's :class:`~fenix_table.rules.Game` and turns each
observation of the board into events (:mod:`.events`). It never decides cell by cell: it
compares the whole board with everything legal play can produce (:mod:`.tracker`) and

- commits a move (or up to three consecutive plies) when exactly one legal result fits,
  each ply seen: it leaves a trace on the board and the cells it touches are readable;
- says ``RemoveCaptured`` while a capture has landed but jumped stacks still stand;
- waits (``MoveAmbiguous``) when several legal results fit equally well, or asks when
  the one that fits was not fully seen;
- a board seen ``patience`` times that nothing fits may still be a fourth ply, or a
  legal move beside one misread cell (which then counts as no evidence while it reads
  so); otherwise it reports a ``Violation`` (an attempted move the engine can name) or
  ``OutOfSync`` (no action explains it), and leaves that state as soon as the board,
  with every cell the report named readable, fits the position again or the legal
  result of a move.

The referee judges and announces; it keeps nothing on disk. The table hands its events
to the game record first (:class:`~fenix_table.record.GameRecorder`), so a committed move
is on disk before any other output hears of it, and a stored game comes back through
:func:`fenix_table.record.resume` as the ``history`` of a new referee.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import FenixError, IllegalMoveError
from ..rules import (Explanation, Game, Position, Rules, explain, legal_moves,
                     position_after_turn)
from ..rules.messages import render
from ..rules.movegen import play
from ..rules.replay import Replay
from . import events as ev
from .tracker import (CHANGE_MIN, CHANGE_NOISE, HAND_BONUS, BoardReading, Candidate,
                      Candidates, Decision, common_plies, decide, every_ply_shows,
                      evidence_gaps, hand_cells, narrowed, ply_evidence,
                      ranking_scores, read_board, search, unshadowed)

#: Explanation codes that name no attempted action: the board is out of sync instead.
_NO_ACTION = ("stones_changed", "no_change", "legal")
#: A "stones changed" board with more differing cells than this is out of sync, not a
#: violation (the board was reset, knocked, or the camera lost the grid).
_MAX_VIOLATION_CELLS = 4
#: The most undecided explanations carried on while play goes on (each is searched from
#: again on every reading); beyond it the players must say what happened.
_MAX_OPEN = 32
#: The most plies an undecided explanation may hold before its first ply is committed
#: as the likeliest (uncertain) one, so a recording is followed to its end; a first ply
#: the camera gave no evidence for stays open beyond it while the beam holds it.
_MAX_OPEN_PLIES = 4
#: The most alternatives of earlier uncertain plies tried against one board that fits
#: nothing (each replays the game since and searches once).
_RECONSIDER_TRIALS = 60
_RECONSIDER_BUDGET = 150
#: Boards in a row that no alternative explained, after which the referee stops trying
#: until a move is committed again (each try costs up to a few tenths of a second).
_RECONSIDER_BOARDS = 3
#: A stacking ply that only a read height names is doubted once another candidate
#: stack changed this many times more than the one it names (a stack read a stone too
#: high made certain wrong commits at twice; equal changes are noise).
_HEIGHT_AGAINST_CHANGE = 1.25
#: How much more change evidence (summed over a history's stacking plies) a history
#: that heights ruled out must have than every one they kept, for the colours' every
#: history to stay open: an untouched stack's noise, as the hand's bonus.
_HISTORY_MARGIN = HAND_BONUS
#: Search nodes shared by the open explanations on each still board.
_CARRY_BUDGET = 3000
#: The most candidate histories kept by a search while explanations are open (several
#: setup plies with no heights read multiply into thousands, each as dear as a
#: position: seconds per board); beyond it the search counts as given up, and with
#: nobody to ask the oldest open ply is committed as its likeliest.
_MOST_FOUND = 600
#: The most explanations offered to the players to pick from (on the display they narrow
#: them by touching the cells the stones went to): two setup plies between still boards on
#: the 9x9 face, no height read, are up to 28 x 28.
_MAX_LISTED = 800
#: The most cells a question points at (the display marks them): the likeliest.
_MAX_POINTED = 3


class Referee:
    """Follows one game on the board.

    ``start``: the position to begin from (default: the start position of ``board``);
    ``rules``: a :class:`~fenix_table.rules.Rules` (default ``official``);
    ``mode``: ``"referee"`` (violations block until fixed) or ``"casual"`` (players may
    :meth:`play_on` from what is on the board); ``game_id``: the record's number for the
    game, announced in ``GameStarted``; ``history``: a replayed game to go on with (its
    start and rules replace ``start`` and ``rules``; ``begin`` announces its plies again);
    ``asking``: players at the table answer ``MoveAmbiguous`` (False: nobody does, as in
    ``fenix-table track``; an explanation the camera cannot settle is then committed as
    the likeliest once play goes on beyond what can be followed, marked uncertain).
    ``computer``: the side the computer plays ("red" or "black"; None: people play both).
    Its plies are taken only as :meth:`expect` announced them: another move with its
    pieces is a violation, and once the board is restored the move is asked again.

    ``min_confidence``: cell readings below it count as unknown; ``patience``: how many
    observations in a row must show the same unexplained board before a violation or
    out-of-sync state is declared (one misread frame never is); ``max_plies``: the most
    consecutive plies reconstructed between two still boards.

    >>> ref = Referee(board="7x8")
    >>> [e.kind for e in ref.begin()]
    ['game_started', 'turn_started']
    """

    def __init__(self, start: Optional[Position] = None, rules: Optional[Rules] = None,
                 board: str = "9x9", mode: str = "referee", game_id: Optional[int] = None,
                 history: Optional[Replay] = None, asking: bool = True, min_confidence: float = 0.5, patience: int = 2, max_plies: int = 3,
                 computer: Optional[str] = None) -> None:
        if mode not in ("referee", "casual"):
            raise IllegalMoveError(f"mode {mode!r} is not referee or casual")
        if computer not in (None, "red", "black"):
            raise IllegalMoveError(f"computer side {computer!r} is not red or black")
        self.computer = computer
        # The computer's announced move, valid while the game is at its position.
        self._expected: Optional[ev.ComputerMove] = None
        self.rules = rules if rules is not None else Rules.preset("official")
        self.mode = mode
        self.asking = asking
        self.min_confidence = min_confidence
        self.patience = max(1, patience)
        self.max_plies = max(1, max_plies)
        self.game_id = game_id
        # (token, fpn_before, game before) per committed ply; the game is kept only for a
        # played-on ply, which restarts the engine's game from the accepted position.
        self._plies: List[Tuple[str, str, Optional[Game]]] = []
        if history is not None:
            self.rules = history.rules
            self.game = history.game
            start = history.start
            self._plies = [(p.token, p.fpn_before, history.before_played_on.get(p.ply))
                           for p in history.plies]
        else:
            if start is None:
                start = Position.start(board)
            self.game = Game(start, self.rules)
        self._start_events: List[ev.Event] = [ev.GameStarted(
            fpn=start.fpn(), rules=self.rules.describe(), game_id=game_id)]
        if history is not None:
            self._start_events += [ev.MoveCommitted(
                move=p.token, side=p.side, ply=p.ply, fpn_before=p.fpn_before,
                fpn_after=p.fpn_after, captured=p.captured, played_on=p.played_on,
                frame=p.frame) for p in history.plies]
        self.pending: Optional[ev.Event] = None
        self._state = "new"           # new, checking, play, violation, out_of_sync, over
        self._masked: Dict[str, str] = {}   # cell -> colour players confirmed as a misread
        self._suspect: Dict[str, str] = {}  # cell -> colour last reported as unexplained
        self._doubted: Dict[str, str] = {}  # cell -> colour a taken move left unexplained
        self._warned: set = set()           # (cell, stack) whose camera height was doubted
        self._view: Optional[Tuple] = None
        self._last_reading: Optional[BoardReading] = None
        self._unfit_key: Optional[Tuple] = None
        self._unfit_count = 0
        self._said: Dict[str, object] = {}  # what was last announced, to avoid repeating
        self._undone: Optional[str] = None
        # Explanations of an undecided change (MoveAmbiguous) still standing: play may go
        # on over them, and a later board decides. [] = too many to follow.
        self._open: Optional[List[Candidate]] = None
        self._draw_offer: Optional[str] = None
        self._changes: Dict[str, float] = {}   # the camera's change evidence, last reading
        self._weighed: Dict[str, float] = {}   # ... less what grown stacks' shadows explain
        self._growth: Dict[str, float] = {}    # the top discs' growth, last reading
        self._ranked: Dict[str, float] = {}    # ... added to the weighed changes (ranking)
        self._reached: Tuple[str, ...] = ()     # cells a hand covered last before it
        self._pointed: Optional[Tuple[float, float]] = None   # ... and the spot it pointed at
        # (position before, token) -> the camera's evidence for that ply, while it is open.
        self._evidence: Dict[Tuple[str, str], float] = {}
        # (ply, alternatives) of the plies committed as the likeliest, not for certain.
        self._doubts: List[Tuple[int, Tuple[str, ...]]] = []
        self._reconsidered: Optional[Tuple] = None   # the board last reconsidered for
        self._reconsider_failures = 0

    # -- state ------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        return self.game.position

    @property
    def state(self) -> str:
        """``new`` (before :meth:`begin`), ``checking`` (waiting for the board to show the
        position), ``play``, ``violation``, ``out_of_sync`` or ``over``."""
        return self._state

    @property
    def moves(self) -> List[str]:
        """Every committed ply's token (a played-on ply shows the attempted move)."""
        return [token for token, _, _ in self._plies]

    def seen_position(self, events: Sequence[ev.Event]) -> Optional[Dict[str, Tuple[str, int]]]:
        """The stacks (cell -> (colour, height)) the board was just seen to show, when
        ``events`` (what one stable observation caused) committed a move or found the
        board back in sync and play goes on; else None. The camera learns its colours
        from such frames (:meth:`fenix_table.vision.Vision.learn`)."""
        if self._state != "play" or not any(e.kind in ("move_committed", "in_sync") for e in events):
            return None
        return self.position.stacks()

    # -- starting ---------------------------------------------------------------------
    def begin(self) -> List[ev.Event]:
        """Start (or resume) the game: ``GameStarted`` (and the recorded moves when
        resuming), then the first turn's events. The board is then checked against the
        position before any move is taken from it."""
        if self._state != "new":
            raise IllegalMoveError("the game has already begun")
        events: List[ev.Event] = list(self._start_events)
        self._state = "checking"
        events.extend(self._turn_events(None))
        return events

    # -- observing --------------------------------------------------------------------
    def observe(self, observation) -> List[ev.Event]:
        """Take one (stable) observation; returns the events it causes.

        Observations with a hand over the board or without the board only update the
        camera state (``BoardView``); nothing is read from them.
        """
        if self._state == "new":
            raise IllegalMoveError("call begin() before observe()")
        frame = getattr(observation, "frame_index", None)
        events: List[ev.Event] = []
        view = (bool(observation.board_found), bool(observation.hand),
                tuple(sorted(observation.occluded_cells)))
        if view != self._view:
            self._view = view
            events.append(ev.BoardView(board_found=view[0], hand=view[1], occluded_cells=view[2],
                                       frame=frame))
        if self._state == "over" or not observation.board_found or observation.hand:
            return events
        if observation.board != self.position.size:
            events += self._say("board", ev.Notice(
                code="wrong_board", cells=(), frame=frame,
                message=f"the camera sees a {observation.board} board, the game is on "
                        f"{self.position.size}"))
            return events
        self._expire_masks(observation)
        reading = read_board(observation, self.position.cells, self.min_confidence, self._masked)
        self._last_reading = reading
        self._changes = getattr(observation, "changes", None) or {}
        self._weighed = unshadowed(self._changes, self.position.size, reading.colors,
                                   getattr(observation, "shadow", None))
        self._growth = getattr(observation, "growth", None) or {}
        self._ranked = ranking_scores(self._weighed, self._growth)
        self._reached = tuple(getattr(observation, "reached", ()) or ())
        self._pointed = getattr(observation, "pointed", None)
        events += self._interpret(reading, observation, frame)
        return events

    def _expire_masks(self, observation) -> None:
        """A confirmed (or doubted) misread stops being one once the camera reads that cell
        differently."""
        for cells in (self._masked, self._doubted):
            for cell, color in list(cells.items()):
                seen = observation.cells.get(cell)
                if seen is not None and seen.color != color and \
                        seen.color_confidence >= self.min_confidence and \
                        cell not in observation.occluded_cells:
                    del cells[cell]

    def _interpret(self, reading: BoardReading, observation, frame) -> List[ev.Event]:
        position = self.position
        events: List[ev.Event] = []
        if self._state in ("violation", "out_of_sync") and \
                any(reading.colors.get(c) is None for c in getattr(self.pending, "cells", ())):
            # A reported board is cleared only by seeing the cells it named again: with one
            # of them unreadable the rest may fit a legal move that was never made.
            return events
        decision = self._judge(reading)
        if decision.kind in ("none", "ambiguous") and self._open:
            carried = self._carry(reading)
            if carried is not None and carried.kind != "none":
                decision = carried
        if decision.kind == "ambiguous" and decision.complete and len(decision.options) > 1 \
                and self._heights_hid_landing(decision.options, reading):
            # A stack read a stone too low was left out of the options, and it is the one
            # the camera saw change: every ply the colours allow is open again.
            widened = self._by_colour(decision.options[0], reading)
            if widened.complete and len(widened.options) > 1:
                decision = widened
        if decision.kind == "ambiguous" and decision.complete and len(decision.options) > 1:
            # Stacking plies that colours cannot tell apart: the stack a stone was put on
            # changed, the others did not (the camera's evidence, vision.evidence).
            self._remember_evidence(decision.options)
            options = narrowed(decision.options, self._weighed, self._reached, self._growth,
                               self._pointed)
            decision = Decision("move", candidate=options[0]) if len(options) == 1 else \
                Decision("ambiguous", options=options)
        if decision.kind == "ambiguous" and decision.complete and len(decision.options) > 1:
            # The camera cannot tell the plies apart, but one of them is the move the
            # computer asked for: that is the one the player made.
            asked = self._asked(decision.options)
            if asked is not None:
                decision = Decision("move", candidate=asked)
        if decision.kind == "move" and self._undone is not None and \
                decision.candidate.tokens[:1] == (self._undone,):
            return events  # the board still shows the move just taken back
        if decision.kind == "unchanged":
            self._unfit_key, self._unfit_count = None, 0
            self._undone = None
            self._open = None
            events += self._resolved("restored", frame)
            if isinstance(self.pending, ev.RemoveCaptured):
                # The capturing piece went back: the turn starts over.
                self.pending = None
                self._said.pop("remove", None)
                events += self._turn_events(frame, announce_turn=False)
            if decision.height_warnings:
                events += self._height_notice(decision.height_warnings, frame)
            return events
        if decision.kind == "none" and self._suspect:
            # Cells already reported as unexplained count as unknown while they read the
            # same: players play on before fixing them, or it is a stubborn misread.
            masked = {**self._masked, **self._suspect}
            past = read_board(observation, position.cells, self.min_confidence, masked)
            beyond = self._judge(past)
            if beyond.kind == "move":
                self._masked.update(self._suspect)
                reading, decision = past, beyond
        if decision.kind == "move" and self._changes_deny(decision.candidate, reading):
            # Whatever named this stacking ply (heights, or the change of a stack beside
            # one whose height was misread), the camera saw another stack change more:
            # every ply the colours allow stays open.
            decision = self._by_colour(decision.candidate, reading)
        if decision.kind == "move":
            self._unfit_key, self._unfit_count = None, 0
            events += self._take(decision.candidate, decision.height_warnings, frame)
            if decision.routes:
                chosen = " ".join(decision.candidate.tokens)
                others = ", ".join(" ".join(r) for r in decision.routes)
                events.append(ev.Notice(
                    code="route_unseen", frame=frame,
                    cells=tuple(sorted({c for m in decision.candidate.moves for c in m.path})),
                    message=f"the board does not show the route or order of the moves: "
                            f"recorded {chosen}; it may have been {others} "
                            f"(undo and confirm to correct)"))
            return events
        if decision.kind == "ambiguous" and not decision.complete and not self.asking and \
                self._open:
            # Too much open to follow on: nobody will answer, so the oldest undecided ply
            # is taken as its likeliest (uncertain) and the board is looked at again.
            settled, rest = self._settle(self._open, frame, force=True, plies=1)
            self._open = rest or None
            return events + settled + self._interpret(reading, observation, frame)
        if decision.kind == "ambiguous":
            self._unfit_key, self._unfit_count = None, 0
            options = decision.options
            if decision.complete and len(options) > 1:
                settled, options = self._settle(options, frame)
                events += settled
                if self._state == "over" or not options:
                    return events
                if len(options) == 1:
                    return events + self._take(options[0], (), frame)
            self._open = list(options) if len(options) <= _MAX_OPEN else []
            return events + self._ambiguous(options, frame, decision.complete)
        # Nothing fits exactly. With nobody to ask, an earlier ply taken as the likeliest
        # may have been one of its alternatives: the board may say which.
        if decision.kind == "none" and not self.asking and self._doubts:
            changed = self._reconsider(reading, frame)
            if changed is not None:
                return events + changed + self._interpret(reading, observation, frame)
        # Only a board seen ``patience`` times is acted on.
        if not self._persisted(reading):
            return events
        if self._state == "play":
            # One more ply than the usual search (players went on while a hand hid the
            # board), or one misread cell beside a legal move. Not once a board was found
            # unexplained: from there only a board that fits exactly resumes play.
            found = self._longer_route(reading) or self._near_move(observation, reading)
            if found is not None and not self._changes_deny(found, reading):
                # The cell the move leaves unexplained was taken for a misread: while it
                # reads so it is no evidence of a next move (glare "emptying" a soldier's
                # cell is no King or General creation); it is reported if it stays.
                self._doubted.update({c: reading.colors[c] for c in found.mismatches})
                return events + self._take(found, (), frame)
        return events + self._unexplained(reading, frame)

    def _judge(self, reading: BoardReading) -> Decision:
        """What the reading means for the current position (see :func:`.tracker.decide`),
        taking a move only when the camera saw it (:meth:`_inferred`)."""
        position = self.position
        # With explanations open, :meth:`_carry` follows them; this search from the
        # position is only the safety net for one the evidence narrowed away.
        limits = dict(budget=_CARRY_BUDGET // 10, most=_MOST_FOUND) if self._open else {}
        decision = decide(search(position, self.rules, reading, self.max_plies, **limits),
                          reading)
        if decision.kind == "none":
            # Heights the camera reads with confidence can still be wrong: one ply that
            # fits every colour is taken, with a warning about the heights.
            fallback = decide(search(position, self.rules, reading, 1, use_heights=False),
                              reading, heights="prefer")
            # A stacking move shows only as a taller stack. Read as not taller, either the
            # height or the emptied cell (glare) is misread: the players say which.
            if fallback.kind == "move" and any(
                    m.stacking and m.path[-1] in fallback.height_warnings
                    for m in fallback.candidate.moves):
                fallback = Decision("ambiguous", options=[fallback.candidate])
            if fallback.kind in ("move", "ambiguous"):
                decision = fallback
        if decision.kind == "move" and evidence_gaps(decision.candidate, reading):
            decision = self._inferred(decision, reading)
        if decision.kind == "move" and self._relies_on_doubt(decision.candidate, reading):
            return Decision("ambiguous", options=[decision.candidate])   # the players say
        if decision.kind == "move" and self._changes and \
                any(m.stacking for m in decision.candidate.moves):
            decision = self._heights_against_changes(decision, reading)
        return decision

    def _heights_against_changes(self, decision: Decision, reading: BoardReading) -> Decision:
        """A stacking ply that only a read height singled out stands only if the stacks'
        changes do not say otherwise: a stack read one stone too high is a wrong answer
        the change evidence can catch (the stack it names did not change, another did)."""
        if not self._changes_deny(decision.candidate, reading):
            return decision
        return self._by_colour(decision.candidate, reading)

    def _by_colour(self, cand: Candidate, reading: BoardReading) -> Decision:
        """Undecided between every explanation the colours allow (heights ignored), or
        ``cand`` alone when the colours allow no other."""
        by_colour = decide(search(self.position, self.rules, reading, self.max_plies,
                                  use_heights=False), reading, heights="ignore")
        if by_colour.kind == "ambiguous":
            return Decision("ambiguous", options=by_colour.options, complete=by_colour.complete)
        return Decision("ambiguous", options=[cand])

    def _changes_deny(self, cand: Candidate, reading: BoardReading) -> bool:
        """Whether the camera saw another of the mover's stacks change clearly more than
        the one a stacking ply of ``cand`` lands on (one ply; the changes are the latest
        still board's)."""
        if not self._changes or len(cand.moves) != 1 or not cand.moves[0].stacking:
            return False
        landing = cand.moves[0].path[-1]
        colour = reading.colors.get(landing)
        others = [score for cell, score in self._changes.items()
                  if cell != landing and reading.colors.get(cell) == colour]
        return bool(others) and \
            max(others) > max(self._changes.get(landing, 0.0), CHANGE_NOISE) * \
            _HEIGHT_AGAINST_CHANGE

    def _heights_hid_landing(self, options: Sequence[Candidate], reading: BoardReading) -> bool:
        """Whether stacking plies (``options``, histories from the position) leave out a
        stack of a mover's colour that changed clearly (at least ``CHANGE_MIN``) and more
        than every landing of its colour they name: its height, read as it was before (too
        low), ruled it out. Histories of several plies only when none is carried from an
        earlier board (the latest changes speak for every ply since the position)."""
        if not self._changes or any(not o.moves or not all(m.stacking for m in o.moves)
                                    for o in options):
            return False
        if self._open and any(len(o.moves) > 1 for o in options):
            return False
        named: Dict[Optional[str], float] = {}
        touched = set()
        for option in options:
            for move in option.moves:
                landing = move.path[-1]
                colour = reading.colors.get(landing)
                named[colour] = max(named.get(colour, float("-inf")),
                                    self._changes.get(landing, 0.0))
                touched.update((move.path[0], landing))
        return any(cell not in touched and reading.colors.get(cell) in named and
                   score >= max(CHANGE_MIN, named[reading.colors.get(cell)])
                   for cell, score in self._changes.items())

    def _relies_on_doubt(self, cand: Candidate, reading: BoardReading) -> bool:
        """True when a stacking ply of ``cand`` starts from a cell still reading empty
        where an earlier move had to take that for a misread: the emptied cell may be all
        a stacking move shows, and here it is no evidence."""
        return any(m.stacking and
                   self._doubted.get(m.path[0]) == "empty" == reading.colors.get(m.path[0])
                   for m in cand.moves)

    def _inferred(self, decision: Decision, reading: BoardReading) -> Decision:
        """A move the camera did not fully see is taken only when colours alone leave no
        other legal move (a King or General creation seen as one emptied cell); otherwise
        the referee waits for a frame that shows it."""
        cand = decision.candidate
        gaps = evidence_gaps(cand, reading)
        if len(cand.moves) == 1 and all(reading.colors.get(c) is not None for c in gaps):
            by_colour = decide(search(self.position, self.rules, reading, 1, use_heights=False),
                               reading, heights="ignore")
            if by_colour.kind == "move" and by_colour.candidate.tokens == cand.tokens:
                return decision
        return Decision("ambiguous", options=[cand])

    def _carry(self, reading: BoardReading) -> Optional[Decision]:
        """Follow play past an undecided change: search on from each of its standing
        explanations. A later board that only one of them leads to decides it (the
        elimination is the evidence), as does a height read at last; None when none
        of them leads to this board."""
        found = Candidates()
        new_from: List[int] = []    # per history, its first ply made since the last board
        # The search budget is shared among the explanations: many open ones are searched
        # shallowly rather than the loop stalling (a search that gives up decides nothing).
        budget = max(_CARRY_BUDGET // len(self._open), 100)
        for option in self._open:
            more = search(option.position, self.rules, reading, self.max_plies, budget=budget,
                          most=max(_MOST_FOUND - len(found), 1))
            found.complete = found.complete and more.complete
            for cand in more:
                # The option's own plies were seen on an earlier board; what came since
                # must each leave its trace on this one.
                if len(cand.moves) > 1 and not every_ply_shows(cand.moves, option.position,
                                                                cand.placement):
                    continue
                moves = option.moves + cand.moves
                found.append(Candidate(moves, cand.position, cand.placement, cand.pending,
                                       cand.mismatches))
                new_from.append(len(option.moves))
        if not found:
            return None
        # The change this board shows is evidence for the plies made since the last one.
        self._remember_evidence(found, new_from)
        decision = decide(found, reading)
        if decision.kind == "none":
            # An open ply may stand against a confident height at its landing (kept open
            # by :meth:`_judge`'s fallback, for the players to settle); that height must
            # not rule out the play since. Heights still judge the cells played since, and
            # an earlier landing they contradict stays a gap below, so nothing is taken
            # as certain on it.
            since = Candidates(cand for cand, start in zip(found, new_from)
                               if not set(reading.height_conflicts(cand.placement))
                               & {m.path[-1] for m in cand.moves[start:]})
            since.complete = found.complete
            decision = decide(since, reading, heights="prefer")
        if decision.kind != "unchanged":
            decision = self._heights_hid_history(found, decision, reading)
        if decision.kind == "move":
            cand = decision.candidate
            start = next(len(o.moves) for o in self._open
                         if cand.moves[:len(o.moves)] == o.moves)
            later = Candidate(cand.moves[start:], cand.position, cand.placement, cand.pending)
            # Elimination is evidence only when play went on and what was played since
            # was seen, and only for what the camera cannot see anyway (the heights of
            # stacks the colours show); otherwise the camera must see the whole change.
            excused = set()
            if later.moves and len(self._open) > 1 and not evidence_gaps(later, reading):
                excused = {m.path[-1] for m in cand.moves[:start] if m.stacking
                           and reading.colors.get(m.path[-1]) is not None}
            if set(evidence_gaps(cand, reading)) - excused:
                return Decision("ambiguous", options=[cand])
        return decision

    def _history_evidence(self, cand: Candidate, memo: Dict[Tuple[str, ...], Position]) -> float:
        """The camera's evidence for a history of plies from the position: the sum of
        what was remembered for each of its stacking plies (:meth:`_ply_scores`)."""
        return sum(score for _, score in self._ply_scores(cand, memo))

    def _ply_scores(self, cand: Candidate, memo: Dict[Tuple[str, ...], Position]
                    ) -> List[Tuple[object, float]]:
        """``(move, evidence)`` for each stacking ply of a history from the position: what
        was remembered for it (:meth:`_remember_evidence`; 0 when nothing). ``memo`` keeps
        the positions after shared first plies (see :meth:`_position_after`)."""
        return [(move, self._evidence.get(
            (self._position_after(cand.moves, n, memo).fpn(), move.token), 0.0))
            for n, move in enumerate(cand.moves) if move.stacking]

    def _heights_hid_history(self, found: Sequence[Candidate], decision: Decision,
                             reading: BoardReading) -> Decision:
        """The open explanations followed on (``found``) as ``decision`` took them, unless
        heights ruled out the history the camera's change evidence favours clearly (a
        stack read a stone too low, as :meth:`_heights_hid_landing` for one ply): then
        every history the colours allow stays open, to be settled by what comes later."""
        kept = decision.options if decision.kind == "ambiguous" else \
            [decision.candidate] if decision.candidate is not None else []
        if not self._evidence or len(kept) >= len(found):
            return decision
        memo: Dict[Tuple[str, ...], Position] = {(): self.position}
        best_kept = max((self._history_evidence(c, memo) for c in kept), default=0.0)
        widened = decide(found, reading, heights="ignore")
        if widened.kind != "ambiguous" or len(widened.options) <= len(kept):
            return decision
        best = max(self._history_evidence(c, memo) for c in widened.options)
        if best < CHANGE_MIN or best < best_kept + _HISTORY_MARGIN:
            return decision
        return Decision("ambiguous", options=widened.options, complete=widened.complete)

    def _remember_evidence(self, options: Sequence[Candidate],
                           new_from: Optional[Sequence[int]] = None) -> None:
        """Keep the camera's evidence for each option's stacking plies made since the last
        still board (from ``new_from[i]`` on in option ``i``; default all), by the position
        before the ply and its token: once play has gone on, the board it was measured on
        is gone. The latest ply's is taken as this board shows it (with the hand), and
        only the latest's ranks options with the same earlier plies (:func:`narrowed`);
        an earlier one (two plies between still boards, or a first ply that had no still
        board of its own) keeps what an earlier board said of it, if anything."""
        before: Dict[Tuple[str, ...], Position] = {(): self.position}
        fpns: Dict[int, str] = {}
        hands = {side: hand_cells(self._reached, side, self._pointed, self.position.size)
                 for side in ("red", "black")}
        for index, cand in enumerate(options):
            start = new_from[index] if new_from is not None else 0
            for n in range(start, len(cand.moves)):
                move = cand.moves[n]
                if not move.stacking:
                    continue
                position = self._position_after(cand.moves, n, before)
                last = n == len(cand.moves) - 1
                score = ply_evidence(move, position.size, self._ranked,
                                     hands[position.side] if last and not cand.pending else None)
                if score is None:
                    continue
                fpn = fpns.get(id(position))
                if fpn is None:
                    fpn = fpns[id(position)] = position.fpn()
                if last:
                    self._evidence[(fpn, move.token)] = score
                else:
                    self._evidence.setdefault((fpn, move.token), score)

    @staticmethod
    def _position_after(moves: Sequence, n: int, memo: Dict[Tuple[str, ...], Position]
                        ) -> Position:
        """The position before ``moves[n]`` (``memo`` maps token prefixes to positions
        and holds the root under ``()``; histories share their first plies)."""
        tokens = tuple(m.token for m in moves[:n])
        k = len(tokens)
        while tokens[:k] not in memo:
            k -= 1
        position = memo[tokens[:k]]
        for i in range(k, n):
            position = play(position, moves[i])
            memo[tokens[:i + 1]] = position
        return position

    def _settle(self, options: List[Candidate], frame, force: bool = False,
                plies: Optional[int] = None) -> Tuple[List[ev.Event], List[Candidate]]:
        """Commit what the open explanations ``options`` (histories from the current
        position) agree on, and, once they reach beyond the beam (too many, too long; or
        ``force``), the likeliest first ply as an uncertain one. Returns the events and
        the options left, re-rooted at the new position ([]: the board is explained).
        ``plies``: commit at most that many."""
        events: List[ev.Event] = []
        while options and self._state != "over" and (plies is None or plies > 0):
            common = common_plies(options)
            alternatives: Tuple[str, ...] = ()
            if common == 0:
                fpn = self.position.fpn()
                firsts = {o.tokens[0] for o in options}
                # A first ply the camera said nothing about (no stack changed beyond
                # noise, no hand seen) is not guessed while the beam holds it: only later
                # play can tell, however long that takes.
                spoken = max(self._evidence.get((fpn, t), 0.0) for t in firsts) > CHANGE_NOISE
                beyond = len(options) > _MAX_OPEN or \
                    spoken and max(len(o.moves) for o in options) > _MAX_OPEN_PLIES
                if not (force or (beyond and not self.asking)) or \
                        len(options) == 1 and not force:
                    break
                # The likeliest first ply is that of the likeliest history: a later ply's
                # evidence speaks for the earlier plies that make it legal.
                memo: Dict[Tuple[str, ...], Position] = {(): self.position}
                history = {}
                for o in options:
                    history[o.tokens[0]] = max(history.get(o.tokens[0], float("-inf")),
                                               self._history_evidence(o, memo))
                firsts = sorted(firsts, key=lambda t: (-history[t], -self._evidence.get((fpn, t), 0.0), t))
                chosen, alternatives = firsts[0], tuple(firsts[1:])
                options = [o for o in options if o.tokens[0] == chosen]
                common = 1
            if plies is not None:
                common = min(common, plies)
                plies -= common
            events += self._commit(list(options[0].moves[:common]), frame,
                                   alternatives=alternatives)
            options = [Candidate(o.moves[common:], o.position, o.placement, o.pending,
                                 o.mismatches) for o in options]
            if any(not o.moves for o in options):
                return events, []
            if len(options) == 1 and not force:
                break
            if force and len(options) == 1 and plies is None:
                return events + self._take(options[0], (), frame), []
        return events, options

    def _reconsider(self, reading: BoardReading, frame) -> Optional[List[ev.Event]]:
        """The board fits nothing: try each alternative of the latest uncertain plies
        (replaying the plies since) and go on with the one from which legal play
        explains the board and that the camera's evidence speaks for most against the
        ply it replaces (the latest doubt on a tie: the first that fits is not the likeliest;
        on the independent renderer's game 28 it replaced a right ply to undo an earlier
        wrong one). Returns the events of taking plies back and making them again (the
        later plies keep their own doubts), or None when no alternative explains it."""
        from ..rules import apply

        key = tuple(sorted(reading.colors.items()))
        if key == self._reconsidered or self._reconsider_failures >= _RECONSIDER_BOARDS:
            return None       # this board was tried already, or the last few all failed
        self._reconsidered = key
        self._reconsider_failures += 1
        trials = 0
        done = [token for token, _, _ in self._plies]
        fitting = []          # (evidence gained, order, doubt index, alternative)
        for index in range(len(self._doubts) - 1, -1, -1):
            ply, alternatives = self._doubts[index]
            if ply > len(self._plies) or any(previous is not None
                                             for _, _, previous in self._plies[ply - 1:]):
                continue
            later = done[ply:]
            fpn = self._plies[ply - 1][1]
            for alternative in alternatives:
                trials += 1
                if trials > _RECONSIDER_TRIALS:
                    break
                # Legality does not depend on the history before: replay from the
                # position before the doubted ply.
                position = self.game.positions[ply - 2 - len(self._plies)]
                try:
                    for token in [alternative] + later:
                        position = apply(position, token, self.rules)
                except FenixError:
                    continue
                found = decide(search(position, self.rules, reading, self.max_plies,
                                      budget=_RECONSIDER_BUDGET), reading)
                if found.kind == "none" or not found.complete:
                    continue
                gained = self._evidence.get((fpn, alternative), 0.0) - \
                    self._evidence.get((fpn, done[ply - 1]), 0.0)
                fitting.append((gained, -len(fitting), index, alternative))
        if not fitting:
            return None
        _, _, index, alternative = max(fitting)
        ply, alternatives = self._doubts[index]
        later_doubts = dict(self._doubts[index + 1:])
        events: List[ev.Event] = []
        while len(self._plies) >= ply:
            token, _, _ = self._plies.pop()
            self.game.pop()
            events.append(ev.MoveUndone(move=token, fpn=self.position.fpn(), frame=frame))
        others = tuple(a for a in alternatives if a != alternative) + (done[ply - 1],)
        del self._doubts[index:]
        self._reconsider_failures = 0
        events += self._commit([alternative], frame, alternatives=others)
        for number, token in enumerate(done[ply:], start=ply + 1):
            if self._state == "over":
                break
            events += self._commit([token], frame, alternatives=later_doubts.get(number, ()))
        return events

    def settle(self) -> List[ev.Event]:
        """The recording has ended with the board's last change undecided: commit the
        likeliest explanation, each ply the camera could not tell apart marked uncertain
        with its alternatives (``fenix-table track``; at a table the players answer)."""
        if self.asking or not self._open or self._state in ("new", "over"):
            return []   # at a table, the players still answer when they come back
        options, self._open = self._open, None
        events, _ = self._settle(options, None, force=True)
        return events

    def _persisted(self, reading: BoardReading) -> bool:
        """Count how often the same unexplained change was seen; True from ``patience`` on.

        The change is the set of readable cells that differ from the position, with what
        they show: cells that are unreadable in one frame and not the next do not restart
        the count."""
        stacks = self.position.stacks()
        key = tuple((cell, reading.colors[cell]) for cell in sorted(reading.diff(stacks)))
        if key == self._unfit_key:
            self._unfit_count += 1
        else:
            self._unfit_key, self._unfit_count = key, 1
        return self._unfit_count >= self.patience

    def _longer_route(self, reading: BoardReading) -> Optional[Candidate]:
        """The one route of ``max_plies + 1`` plies to a board that persisted unexplained,
        every ply seen (each leaves a trace, every cell it touches readable), else None.
        Searched only then: it is dearer, and a longer route explains more boards."""
        longer = search(self.position, self.rules, reading, self.max_plies + 1)
        decision = decide(longer, reading)
        if decision.kind != "move" or evidence_gaps(decision.candidate, reading) or \
                self._relies_on_doubt(decision.candidate, reading):
            return None
        return decision.candidate

    def _near_move(self, observation, reading: BoardReading) -> Optional[Candidate]:
        """The single legal move that explains the board but for one cell away from the
        moved pieces (a misread, or a stone knocked aside), else None."""
        near = search(self.position, self.rules, reading, 2, tolerance=1)
        if any(not c.moves for c in near):
            return None   # the position itself is as near: an extra or missing stone
        fitting = []
        for cand in near:
            if len(cand.mismatches) != 1:
                continue
            cells = {c for m in cand.moves for c in (*m.path, *m.captured)}
            # The move must be seen, not inferred: every cell it touches is readable.
            if set(cand.mismatches) & cells or any(reading.colors.get(c) is None for c in cells) \
                    or evidence_gaps(cand, reading):
                continue
            if set(reading.height_conflicts(cand.placement)) & cand.touched():
                continue
            fitting.append(cand)
        fewest = min((len(c.moves) for c in fitting), default=0)
        fitting = [c for c in fitting if len(c.moves) == fewest]
        placements = {c.placement_key() for c in fitting}
        if len(fitting) == 1 or (len(placements) == 1 and len({c.tokens for c in fitting}) == 1):
            return fitting[0]
        return None

    # -- outcomes of a reading --------------------------------------------------------
    def _take(self, cand: Candidate, warnings: Sequence[str], frame) -> List[ev.Event]:
        """Commit a candidate's plies; a capture still waiting for removals stays pending."""
        events: List[ev.Event] = []
        moves = list(cand.moves)
        wrong = self._computer_fault(moves)
        if wrong is not None:
            return self._computer_violation(moves, wrong, frame)
        landed = moves.pop() if cand.pending else None
        was = self._state
        if moves:
            events += self._commit(moves, frame)
        if self._state == "over":
            return events
        if landed is not None:
            if was in ("violation", "out_of_sync") and not events:
                events += self._resolved("corrected", frame)
            removal = ev.RemoveCaptured(move=landed.token, cells=tuple(cand.pending), frame=frame)
            self.pending = removal
            if self._said.get("remove") != (removal.move, removal.cells):
                self._said["remove"] = (removal.move, removal.cells)
                events.append(removal)
        if warnings:
            events += self._height_notice(warnings, frame)
        return events

    def _ambiguous(self, options: List[Candidate], frame, complete: bool = True) -> List[ev.Event]:
        """Ask the players (``MoveAmbiguous``): every option, the likeliest first, and at
        most :data:`_MAX_POINTED` cells to look at (:meth:`_likeliest`)."""
        if options and complete and len(options) <= _MAX_LISTED:
            ranked, cells = self._likeliest(options)
            moves = tuple(" ".join(cand.tokens) for cand in ranked)
        else:
            # Too many ways to explain the board (several stacking plies, no heights), or
            # the search gave up before finding them all: nothing to offer, and the cells
            # that changed are all there is to show, when they are few.
            differing = sorted(self._last_reading.diff(self.position.stacks()))
            moves, cells = (), tuple(differing) if len(differing) <= _MAX_POINTED else ()
        if self._said.get("ambiguous") == (moves, cells):
            return []
        self._said["ambiguous"] = (moves, cells)
        return [ev.MoveAmbiguous(moves=moves, cells=cells, frame=frame)]

    def _likeliest(self, options: Sequence[Candidate]) -> Tuple[List[Candidate], Tuple[str, ...]]:
        """``options`` ranked by the camera's evidence for their stacking plies (the sum
        remembered for each, with the hand's for the latest: :meth:`_ply_scores`), and the
        cells a question points at, the likeliest first: the cells that tell the options
        apart when they are at most :data:`_MAX_POINTED`; else, among those, the landings
        of the likeliest histories' stacking plies the camera saw evidence for (above an
        untouched stack's noise) and the ends of their other plies, at most
        :data:`_MAX_POINTED`; none when it saw nothing (pointing at twenty stacks tells
        the players nothing)."""
        memo: Dict[Tuple[str, ...], Position] = {(): self.position}
        scored = [self._ply_scores(cand, memo) for cand in options]
        order = sorted(range(len(options)),
                       key=lambda i: (-sum(s for _, s in scored[i]), options[i].tokens))
        ranked = [options[i] for i in order]
        # Histories from one position differ only where one of them played.
        first = options[0].placement
        base = _touched(options[0])
        telling = {cell for cand in options[1:] for cell in base | _touched(cand)
                   if cand.placement.get(cell) != first.get(cell)}
        if not telling:
            telling = {c for cand in options for m in cand.moves for c in m.path}
        cells: List[str] = []
        for i in order:
            if len(telling) <= _MAX_POINTED:
                seen = [c for m in options[i].moves for c in (m.path[-1], *m.path)]
            else:
                # A stacking ply's landing only where the camera saw something; any other
                # ply shows where it went from and to.
                scores = {id(m): score for m, score in scored[i]}
                seen = [c for m in options[i].moves
                        for c in ((m.path[-1],) if scores.get(id(m), 0.0) > CHANGE_NOISE else ()
                                  if m.stacking else (m.path[-1], m.path[0]))]
            cells += [c for c in dict.fromkeys(seen) if c in telling and c not in cells]
            if len(cells) >= min(len(telling), _MAX_POINTED):
                break
        if len(telling) <= _MAX_POINTED:
            cells += sorted(telling - set(cells))
        return ranked, tuple(cells[:_MAX_POINTED])

    def _unexplained(self, reading: BoardReading, frame) -> List[ev.Event]:
        """The same board fits nothing legal ``patience`` times: violation or out of sync."""
        position = self.position
        stacks = position.stacks()
        differing = tuple(sorted(reading.diff(stacks)))
        seen = self._seen_placement(reading)
        explanation = None
        # Behind an undecided change the referee does not know the position the players
        # are at: it cannot call anything a violation, only say it lost the thread.
        if self._state != "checking" and self._open is None:
            try:
                explanation = explain(position, seen, self.rules)
            except FenixError:
                explanation = None
        if explanation is not None and explanation.code in _NO_ACTION and \
                0 < len(differing) <= _MAX_VIOLATION_CELLS:
            # Extra or missing stones that no attempted move explains.
            explanation = Explanation("stones_changed", {"cells": " ".join(differing)},
                                      cells=differing)
        if explanation is not None and explanation.code not in ("no_change", "legal") and (
                explanation.code != "stones_changed" or
                0 < len(differing) <= _MAX_VIOLATION_CELLS):
            attempted = _attempted(position, seen)
            violation = ev.Violation(
                explanation=explanation.text, code=explanation.code, attempted=attempted,
                restore_to=position.fpn(),
                cells=tuple(sorted(set(explanation.cells) | set(differing))),
                params=tuple(sorted((k, str(v)) for k, v in explanation.params.items())),
                frame=frame)
            if violation.code == "stones_changed":
                self._suspect = {c: reading.colors[c] for c in differing}
            key = (violation.code, violation.attempted, violation.cells)
            if self._state == "violation" and self._said.get("violation") == key:
                return []
            self._said["violation"] = key
            self._state = "violation"
            self.pending = violation
            return [violation]
        if not differing:
            return []   # only height doubts or unknown cells: keep waiting
        self._suspect = {c: reading.colors[c] for c in differing}
        sync = ev.OutOfSync(expected_fpn=position.fpn(), cells=differing, frame=frame)
        if self._state in ("out_of_sync", "checking") and self._said.get("sync") == differing:
            return []
        self._said["sync"] = differing
        if self._state != "checking":
            self._state = "out_of_sync"
        self.pending = sync
        return [sync]

    def _seen_placement(self, reading: BoardReading) -> Dict[str, Tuple[str, Optional[int]]]:
        """The board as the camera shows it, for explaining a change. Unknown cells keep
        the engine's stack; so do cells still showing their colour (camera heights are the
        least reliable reading), except a stack that grew while a stone of its colour
        vanished elsewhere: that is what a stacking attempt looks like."""
        stacks = self.position.stacks()
        vanished = {p[0] for c, p in stacks.items() if reading.colors.get(c) not in (None, p[0])}
        seen: Dict[str, Tuple[str, Optional[int]]] = {}
        for cell in self.position.cells:
            color = reading.colors.get(cell)
            piece = stacks.get(cell)
            if color is None:
                if piece is not None:
                    seen[cell] = piece
                continue
            if color == "empty":
                continue
            height = reading.heights.get(cell)
            if piece is not None and piece[0] == color and not (
                    color in vanished and height is not None and height > piece[1]):
                height = piece[1]
            seen[cell] = (color, height)
        return seen

    def _height_notice(self, cells: Sequence[str], frame) -> List[ev.Event]:
        """Warn once about each stack whose height the camera reads differently."""
        stacks = self.position.stacks()
        fresh = tuple(sorted(c for c in cells if c in stacks and (c, stacks[c]) not in self._warned))
        if not fresh:
            return []
        self._warned.update((c, stacks[c]) for c in fresh)
        detail = ", ".join(f"{c} ({stacks[c][1]} expected)" for c in fresh)
        return [ev.Notice(code="height_mismatch", cells=fresh, frame=frame,
                          message=f"the camera reads other stack heights than the game: {detail}")]

    def _resolved(self, how: str, frame) -> List[ev.Event]:
        """Leave a violation / out-of-sync / checking state after the board fits again."""
        events: List[ev.Event] = []
        state = self._state
        if state == "violation":
            events.append(ev.ViolationCleared(resolution=how, frame=frame))
        elif state in ("out_of_sync", "checking"):
            events.append(ev.InSync(fpn=self.position.fpn(), frame=frame))
        else:
            return events
        self._state = "play"
        self.pending = None
        self._suspect = {}
        for key in ("violation", "sync"):
            self._said.pop(key, None)
        self._restore_turn_pending()
        expected = self.expected_move()
        if state == "violation" and how == "restored" and expected is not None:
            events.append(dataclasses.replace(expected, frame=frame))   # asked again
        return events

    def _restore_turn_pending(self) -> None:
        moves = legal_moves(self.position, self.rules)
        if moves and all(m.is_capture for m in moves):
            self.pending = ev.CaptureRequired(side=self.position.side,
                                              moves=tuple(sorted(m.token for m in moves)))

    # -- committing -------------------------------------------------------------------
    def _commit(self, moves, frame, resolution: str = "corrected",
                alternatives: Tuple[str, ...] = ()) -> List[ev.Event]:
        """Push plies into the game and announce them. ``alternatives``: the first ply was
        the likeliest of these others, not seen for certain (``MoveCommitted.uncertain``)."""
        events: List[ev.Event] = []
        if self._state in ("violation", "out_of_sync", "checking"):
            events += self._resolved(resolution, frame)
        for index, move in enumerate(moves):
            before = self.position
            if self.game.status().over:
                break
            move = self.game.push(move)
            after = self.position
            ply = len(self._plies) + 1
            self._plies.append((move.token, before.fpn(), None))
            doubt = alternatives if index == 0 else ()
            if doubt:
                self._doubts.append((ply, doubt))
            events.append(ev.MoveCommitted(move=move.token, side=before.side, ply=ply,
                                           fpn_before=before.fpn(), fpn_after=after.fpn(),
                                           captured=move.captured, frame=frame,
                                           uncertain=bool(doubt), alternatives=doubt))
            self._after_move()
            events += self._turn_events(frame, capture=index == len(moves) - 1)
            if self._state == "over":
                break
        return events

    def _after_move(self) -> None:
        self._unfit_key, self._unfit_count = None, 0
        self._reconsider_failures = 0
        self._undone = None
        self._open = None
        self._draw_offer = None
        self.pending = None
        self._state = "play"
        for key in ("remove", "ambiguous", "violation", "sync", "heights"):
            self._said.pop(key, None)

    def _turn_events(self, frame, capture: bool = True, announce_turn: bool = True
                     ) -> List[ev.Event]:
        """TurnStarted, then CaptureRequired (when every legal move captures) or GameOver."""
        position = self.position
        events: List[ev.Event] = []
        if announce_turn:
            events.append(ev.TurnStarted(
                side=position.side, fpn=position.fpn(), duty=position.duty,
                setup_moves_left=position.setup_moves_left(),
                frame=frame))
        status = self.game.status()
        if status.over:
            return events + self._game_over(status, frame)
        moves = legal_moves(position, self.rules)
        if capture and moves and all(m.is_capture for m in moves):
            required = ev.CaptureRequired(side=position.side,
                                          moves=tuple(sorted(m.token for m in moves)), frame=frame)
            if self._state in ("play", "checking"):
                self.pending = required
            events.append(required)
        return events

    def _game_over(self, status, frame) -> List[ev.Event]:
        self._state = "over"
        self.pending = None
        over = ev.GameOver(result=status.fgn_result, winner=status.winner, reason=status.reason,
                           text=status.text, frame=frame)
        return [over]

    def _say(self, key: str, event: ev.Event) -> List[ev.Event]:
        if self._said.get(key) == event.to_json():
            return []
        self._said[key] = event.to_json()
        return [event]

    # -- the computer -----------------------------------------------------------------
    def expect(self, token: str, *, level: int = 0, depth: int = 0,
               score: int = 0) -> List[ev.Event]:
        """The computer chose ``token`` in the current position (its side to move): from
        here on that is the only move the board may show. Returns the announcement
        (``ComputerMove``); IllegalMoveError when it is not a legal move of the computer."""
        self._require_open()
        position = self.position
        if self.computer is None or position.side != self.computer:
            raise IllegalMoveError(f"it is not the computer's turn ({position.side} to move)")
        move = next((m for m in legal_moves(position, self.rules) if m.token == token), None)
        if move is None:
            raise IllegalMoveError(f"{token} is not a legal move here")
        self._expected = ev.ComputerMove(side=position.side, move=token, fpn=position.fpn(),
                                         path=move.path, jumped=move.captured, level=level,
                                         depth=depth, score=score)
        return [self._expected]

    def expected_move(self) -> Optional[ev.ComputerMove]:
        """The computer's announced move in the current position, or None."""
        e = self._expected
        if e is None or self._state == "over" or e.fpn != self.position.fpn():
            return None
        return e

    def _asked(self, options: Sequence[Candidate]) -> Optional[Candidate]:
        """The one option that is exactly the computer's announced move, or None."""
        expected = self.expected_move()
        if expected is None:
            return None
        fits = [c for c in options if c.tokens == (expected.move,)]
        return fits[0] if len(fits) == 1 else None

    def _computer_fault(self, moves: Sequence) -> Optional[int]:
        """The index of the first of ``moves`` (plies from the current position) that
        moves the computer's pieces other than it announced, or None."""
        if self.computer is None:
            return None
        position = self.position
        for index, move in enumerate(moves):
            if position.side == self.computer:
                expected = self._expected
                if expected is None or expected.fpn != position.fpn() or \
                        expected.move != move.token:
                    return index
            position = play(position, move)
        return None

    def _computer_explanation(self, moves: Sequence, wrong: int) -> Tuple[str, str, dict]:
        """``(code, English sentence, params)`` for the ply ``moves[wrong]``."""
        position = self.position
        for move in moves[:wrong]:
            position = play(position, move)
        expected = self._expected
        token = moves[wrong].token
        if expected is not None and expected.fpn == position.fpn():
            code, params = "computer_asked", {"asked": expected.move, "move": token}
        else:
            code, params = "computer_not_ready", {"move": token}
        return code, render(code, params), params

    def _computer_violation(self, moves: Sequence, wrong: int, frame) -> List[ev.Event]:
        """The board shows ``moves``, ``moves[wrong]`` made with the computer's pieces
        unasked: the plies before it are taken, then the violation is said (the position
        to restore is the one the computer's move starts from)."""
        code, text, params = self._computer_explanation(moves, wrong)
        events: List[ev.Event] = []
        if wrong:
            events += self._commit(list(moves[:wrong]), frame)
            if self._state == "over":
                return events
        move = moves[wrong]
        cells = set(move.path) | set(move.captured)
        expected = self.expected_move()
        if expected is not None:
            cells |= set(expected.path) | set(expected.jumped)
        violation = ev.Violation(explanation=text, code=code, attempted=move.token,
                                 restore_to=self.position.fpn(), cells=tuple(sorted(cells)),
                                 params=tuple(sorted(params.items())), frame=frame)
        key = (violation.code, violation.attempted, violation.cells)
        if self._state == "violation" and self._said.get("violation") == key:
            return events
        self._said["violation"] = key
        self._state = "violation"
        self.pending = violation
        return events + [violation]

    # -- players' actions -------------------------------------------------------------
    def confirm(self, tokens: Sequence[str] = ()) -> List[ev.Event]:
        """The players say what happened: ``tokens`` are the plies made since the current
        position (one of a ``MoveAmbiguous`` option, or a correction), each checked by the
        engine (IllegalMoveError says why not). With no tokens they confirm that the board
        shows the current position: cells the camera read differently are misreads and are
        ignored while the camera keeps reading them so.

        Cells of the last reading that disagree with the confirmed position are treated
        the same way, so one stubborn misread never blocks the game.
        """
        self._require_open()
        plies = [t for item in tokens for t in str(item).split()]
        trial = Game(self.position, self.rules)
        pushed = [trial.push(token) for token in plies]   # IllegalMoveError: the engine's reason
        wrong = self._computer_fault(pushed)
        if wrong is not None:
            raise IllegalMoveError(self._computer_explanation(pushed, wrong)[1])
        events: List[ev.Event] = []
        if plies:
            events += self._commit(plies, None)
        else:
            events += self._resolved("corrected", None)
            self._open = None
        if self._last_reading is not None:
            stacks = self.position.stacks()
            for cell in self._last_reading.diff(stacks):
                self._masked[cell] = self._last_reading.colors[cell]
        self._unfit_key, self._unfit_count = None, 0
        return events

    def play_on(self) -> List[ev.Event]:
        """Casual mode: accept what is on the board as the position after the attempted
        move. Accepted only when the board is a position play can reach from here (no new
        stones, stack heights known, at most one King a side); otherwise a ``Notice`` says
        what to fix and nothing changes."""
        self._require_open()
        if self.mode != "casual":
            raise IllegalMoveError("play on is only possible in casual mode")
        if self._last_reading is None or self._state not in ("violation", "out_of_sync"):
            return [ev.Notice(code="play_on_nothing", message="the board shows no change to accept")]
        try:
            after = _reachable(self.position, self._last_reading)
        except FenixError as error:
            return [ev.Notice(code="play_on_refused", message=str(error))]
        before = self.position
        seen = self._seen_placement(self._last_reading)
        token = _attempted(before, seen) or "?"
        ply = len(self._plies) + 1
        self._plies.append((token, before.fpn(), self.game))
        events: List[ev.Event] = [ev.ViolationCleared(resolution="played_on")] \
            if self._state == "violation" else [ev.InSync(fpn=after.fpn())]
        self.game = Game(after, self.rules)
        events.append(ev.MoveCommitted(move=token, side=before.side, ply=ply,
                                       fpn_before=before.fpn(), fpn_after=after.fpn(),
                                       played_on=True))
        self._after_move()
        self._unfit_key, self._unfit_count = None, 0
        return events + self._turn_events(None)

    def undo(self) -> List[ev.Event]:
        """Take back the last committed ply: it leaves the record (no side line). The
        players put the stones back; until the board shows the earlier position again,
        the board still showing the undone move is not taken as that move again."""
        if self._state == "new":
            raise IllegalMoveError("call begin() first")
        if not self._plies:
            return [ev.Notice(code="nothing_to_undo", message="no move to take back")]
        token, fpn_before, previous = self._plies.pop()
        if previous is not None:
            self.game = previous
        else:
            self.game.pop()
        self._doubts = [d for d in self._doubts if d[0] <= len(self._plies)]
        self._expected = None   # the computer chooses again
        self._after_move()
        self._undone = token
        self._state = "checking"
        self._unfit_key, self._unfit_count = None, 0
        events: List[ev.Event] = [ev.MoveUndone(move=token, fpn=self.position.fpn())]
        return events + self._turn_events(None)

    def offer_draw(self, side: Optional[str] = None) -> List[ev.Event]:
        """``side`` (default: the side to move) offers a draw."""
        self._require_open()
        side = side or self.position.side
        if side not in ("red", "black"):
            raise IllegalMoveError(f"side {side!r} is not red or black")
        self._draw_offer = side
        return [ev.DrawOffered(side=side)]

    def accept_draw(self) -> List[ev.Event]:
        """The other side accepts the standing offer: the game ends drawn."""
        self._require_open()
        if self._draw_offer is None:
            raise IllegalMoveError("no draw has been offered")
        self.game.agree_draw()
        return self._game_over(self.game.status(), None)

    def resign(self, side: str) -> List[ev.Event]:
        """``side`` ("red" or "black") resigns: the other side wins."""
        self._require_open()
        if side not in ("red", "black"):
            raise IllegalMoveError(f"side {side!r} is not red or black")
        self.game.resign(side)
        return self._game_over(self.game.status(), None)

    def _require_open(self) -> None:
        if self._state == "new":
            raise IllegalMoveError("call begin() first")
        if self._state == "over":
            raise IllegalMoveError(f"the game is over: {self.game.status().text}")


# ---------------------------------------------------------------------------------------

def _touched(cand: Candidate) -> set:
    """The cells a history's plies emptied, filled or jumped."""
    return {cell for move in cand.moves for cell in (*move.path, *move.captured)}


def _attempted(position: Position, seen) -> Optional[str]:
    """The move token the board suggests was attempted, or None when it names none."""
    stacks = position.stacks()
    me = position.side
    gone = [c for c, p in stacks.items() if c not in seen or seen[c][0] != p[0]]
    new = [c for c, p in seen.items() if c not in stacks or stacks[c][0] != p[0]]
    grown = [c for c, p in seen.items() if c in stacks and stacks[c][0] == p[0]
             and p[1] is not None and p[1] > stacks[c][1]]
    mover = None
    for side in (me, "black" if me == "red" else "red"):
        left = [c for c in gone if stacks[c][0] == side]
        came = [c for c in new if seen[c][0] == side]
        if len(left) == 1 and len(came) == 1:
            mover = (left[0], came[0], side)
            break
        if len(left) == 1 and not came:
            onto = [c for c in grown if seen[c][0] == side]
            if len(onto) == 1:
                return f"{left[0]}-{onto[0]}"
    if mover is None:
        return None
    frm, to, side = mover
    took = [c for c in gone if stacks[c][0] != side]
    return f"{frm}x{to}" if took else f"{frm}-{to}"


def _reachable(position: Position, reading: BoardReading) -> Position:
    """The position after one (possibly illegal) turn that left the board as ``reading``
    shows it; IllegalMoveError naming what makes it impossible."""
    stacks = position.stacks()
    unknown = [c for c in position.cells if reading.colors.get(c) is None]
    if unknown:
        raise IllegalMoveError(f"the camera cannot read {', '.join(sorted(unknown)[:6])}: "
                               f"clear the view first")
    placement: Dict[str, Tuple[str, int]] = {}
    vanished = {c: p for c, p in stacks.items()
                if reading.colors[c] != p[0]}
    for cell in position.cells:
        color = reading.colors[cell]
        if color == "empty":
            continue
        height = reading.heights.get(cell)
        if height is None:
            if cell in stacks and stacks[cell][0] == color:
                height = stacks[cell][1]
            else:
                sources = [p[1] for p in vanished.values() if p[0] == color]
                if len(sources) != 1:
                    raise IllegalMoveError(f"the height of the stack on {cell} is unknown: "
                                           f"confirm the move instead")
                height = sources[0]
        placement[cell] = (color, height)
    return position_after_turn(position, placement)

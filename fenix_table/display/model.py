"""What the table shows, folded from the referee's events.

The display reads state, never owns it: :class:`TableModel` is rebuilt from the events the
referee emits (plus the camera's state) and holds nothing the referee does not know. The
renderer asks it "which placement, which marks, which sentence"; it imports no pygame.

>>> from fenix_table.referee.events import GameStarted
>>> model = TableModel()
>>> model.apply(GameStarted(fpn="7x8 1ssssss/2sssss/S2ssss/SS2sss/SSS2ss/SSSS2s/SSSSS2/SSSSSS1 r 00 - 0",
...                         rules="official"))
True
>>> model.side, model.setup_left
('red', 5)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, ClassVar, Dict, List, Optional, Tuple

from fenix_table.board import cell_index, cell_name
from fenix_table.referee import events as ev

Placement = Dict[str, Tuple[str, int]]


@lru_cache(maxsize=64)
def _parsed(fpn: str):
    from fenix_table.rules import Position
    return Position.from_fpn(fpn)


def placement_of(fpn: str) -> Placement:
    """``{cell: (colour, height)}`` of an FPN line (parsed by the rules engine)."""
    return dict(_parsed(fpn).stacks())


def token_cells(token: str) -> Tuple[str, ...]:
    """Start and landing cells of a move token: ``"c3xc5xe5"`` -> ``("c3", "c5", "e5")``."""
    return tuple(token.replace("x", "-").split("-"))


def segment_cells(a: str, b: str) -> Tuple[str, ...]:
    """Cells strictly between ``a`` and ``b`` on their line (orthogonal or diagonal)."""
    (fa, ra), (fb, rb) = cell_index(a), cell_index(b)
    df, dr = fb - fa, rb - ra
    steps = max(abs(df), abs(dr))
    if steps < 2 or (df and dr and abs(df) != abs(dr)):
        return ()
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return tuple(cell_name(fa + sf * i, ra + sr * i) for i in range(1, steps))


def jumped_cells(token: str, placement: Placement) -> Tuple[str, ...]:
    """The stacks a capture token jumps, read off the placement before the move.

    Jumped stacks stay on the board for the whole chain, so on each leg the one occupied
    cell between two landing cells is the jumped stack (the start cell counts as empty).
    """
    cells = token_cells(token)
    if "x" not in token:
        return ()
    start = cells[0]
    out = []
    for a, b in zip(cells, cells[1:]):
        for c in segment_cells(a, b):
            if c != start and c in placement:
                out.append(c)
                break
    return tuple(out)


@dataclass(frozen=True)
class CapturePlan:
    """One compulsory capture to highlight: the whole path and the stacks it jumps."""

    token: str
    path: Tuple[str, ...]
    jumped: Tuple[str, ...]


@dataclass(frozen=True)
class ReviewedGame:
    """A stored game being stepped through: ``history`` holds the start position and the
    position after every ply (FPN), ``moves`` the plies."""

    id: int
    result: str
    reason: Optional[str]
    history: Tuple[str, ...]
    moves: Tuple[str, ...]

    @classmethod
    def from_store(cls, store, game_id: int) -> "ReviewedGame":
        """Read game ``game_id`` from a GameStore (RecordError when there is none)."""
        info = store.game(game_id)
        stored = store.moves(game_id)
        return cls(game_id, info.result, info.reason,
                   (info.start_fpn,) + tuple(m.fpn_after for m in stored),
                   tuple(m.token for m in stored))


@dataclass(frozen=True)
class HintShown:
    """The coach's hint for the position ``fpn``: the move (with its path and the stacks
    it takes, drawn like the computer's move), its score and its reason
    (:class:`fenix_table.opponent.coach.Reason`)."""

    fpn: str
    side: str
    move: str
    score: int
    reason: object
    plan: "CapturePlan"


@dataclass(frozen=True)
class CoachReview:
    """The coach's review of stored game ``game`` so far: ``done`` of ``total`` plies
    searched, the marked moves (:class:`fenix_table.opponent.coach.ReviewNote`)."""

    game: int
    done: int
    total: int
    notes: Tuple[object, ...]

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def note(self, ply: int):
        """The note on ply ``ply`` (1-based), or None."""
        return next((n for n in self.notes if n.ply == ply), None)


#: How a review marks a move in the move list (the chess players' marks).
REVIEW_MARKS = {"loses_material": "??", "misses_better": "?!"}


@dataclass
class Clocks:
    """Thinking time per side, switched by TurnStarted and by the clock buttons (shown when
    enabled in the config)."""

    red: float = 0.0
    black: float = 0.0
    running: Optional[str] = None
    since: float = 0.0

    def switch(self, side: Optional[str], now: float) -> None:
        if self.running:
            setattr(self, self.running, getattr(self, self.running) + now - self.since)
        self.running, self.since = side, now

    def reading(self, side: str, now: float) -> float:
        spent = getattr(self, side)
        if self.running == side:
            spent += now - self.since
        return spent


def format_clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


@dataclass
class TableModel:
    """The referee's view of the game, as the display needs it.

    Feed it every event with :meth:`apply` (it returns True when something visible changed);
    at the table it is the display's sink (:meth:`handle`), called in the loop because the
    drawing reads it. ``now`` is injectable so clocks are testable.
    """

    name: ClassVar[str] = "display"
    inline: ClassVar[bool] = True

    now: Callable[[], float] = time.monotonic
    fpn: Optional[str] = None
    size: str = "9x9"
    rules: str = "official"
    game_id: Optional[int] = None
    side: str = "red"
    duty: str = "-"
    setup_left: int = 5
    moves: List[str] = field(default_factory=list)
    history: List[str] = field(default_factory=list)   # FPN before move 1, after each move
    capture: Tuple[CapturePlan, ...] = ()
    capture_side: Optional[str] = None
    pending: Optional[ev.RemoveCaptured] = None
    ambiguous: Optional[ev.MoveAmbiguous] = None
    mode: str = "referee"
    violation: Optional[ev.Violation] = None
    out_of_sync: Optional[ev.OutOfSync] = None
    notice: Optional[ev.Notice] = None
    notice_at: float = 0.0
    view: ev.BoardView = field(default_factory=lambda: ev.BoardView(board_found=True, hand=False))
    draw_offer: Optional[str] = None
    game_over: Optional[ev.GameOver] = None
    clocks: Clocks = field(default_factory=Clocks)
    reviewed: Optional[ReviewedGame] = None
    uncertain: set = field(default_factory=set)   # plies (1-based) taken as likeliest only
    computer_move: Optional[ev.ComputerMove] = None   # the computer's move, to be made
    thinking: Optional[ev.ComputerThinking] = None    # the computer is searching
    hint: Optional[HintShown] = None                  # the coach's hint, asked for
    hint_thinking: Optional[Tuple[str, str, int]] = None   # (fpn, side, depth) searching
    reviews: Dict[int, CoachReview] = field(default_factory=dict)   # by stored game id

    # -- folding --------------------------------------------------------------------
    def apply(self, event: ev.Event) -> bool:
        """Fold one event in. Returns whether the picture changed."""
        handler = getattr(self, "_on_" + event.kind, None)
        if handler is None:
            return False
        result = handler(event)
        return True if result is None else result

    def handle(self, event: ev.Event) -> bool:
        """The table's sink call: :meth:`apply`."""
        return self.apply(event)

    def apply_all(self, events) -> bool:
        changed = False
        for event in events:
            changed = self.apply(event) or changed
        return changed

    def _on_game_started(self, e: ev.GameStarted) -> None:
        position = _parsed(e.fpn)
        self.fpn, self.size, self.rules, self.game_id = e.fpn, position.size, e.rules, e.game_id
        self.side, self.duty = position.side, position.duty
        self.setup_left = position.setup_moves_left()
        self.moves, self.history, self.uncertain = [], [e.fpn], set()
        self.capture, self.capture_side, self.pending = (), None, None
        self.violation = self.out_of_sync = self.notice = self.ambiguous = None
        self.draw_offer = self.game_over = None
        self.computer_move = self.thinking = None
        self.hint = self.hint_thinking = None
        self.clocks = Clocks()
        self.clocks.switch(self.side, self.now())

    def press_clock(self, side: str) -> bool:
        """``side`` pressed its clock button: its time stops and the other side's runs
        (pressing while the other side's clock runs changes nothing). True if it switched."""
        if self.game_over is not None or self.clocks.running != side:
            return False
        self.clocks.switch("black" if side == "red" else "red", self.now())
        return True

    def _on_turn_started(self, e: ev.TurnStarted) -> None:
        self.fpn, self.side, self.duty, self.setup_left = e.fpn, e.side, e.duty, e.setup_moves_left
        self.capture, self.capture_side, self.pending = (), None, None
        self.computer_move = self.thinking = None
        self.hint = self.hint_thinking = None
        if self.game_over is None:
            self.clocks.switch(e.side, self.now())

    def _on_capture_required(self, e: ev.CaptureRequired) -> None:
        before = placement_of(self.fpn) if self.fpn else {}
        self.capture_side, self.pending = e.side, None
        self.capture = tuple(CapturePlan(m, token_cells(m), jumped_cells(m, before))
                             for m in e.moves)

    def _on_remove_captured(self, e: ev.RemoveCaptured) -> None:
        self.pending = e

    def _on_move_ambiguous(self, e: ev.MoveAmbiguous) -> None:
        self.ambiguous = e

    def _on_move_committed(self, e: ev.MoveCommitted) -> None:
        if not self.history:
            self.history = [e.fpn_before]
        self.moves.append(e.move)
        if e.uncertain:
            self.uncertain.add(len(self.moves))
        self.history.append(e.fpn_after)
        self.fpn = e.fpn_after
        self.pending, self.capture, self.capture_side = None, (), None
        self.draw_offer = self.ambiguous = None
        self.computer_move = self.thinking = None
        self.hint = self.hint_thinking = None

    def _on_move_undone(self, e: ev.MoveUndone) -> None:
        if self.moves and self.moves[-1] == e.move:
            self.uncertain.discard(len(self.moves))
            self.moves.pop()
            self.history.pop()
        self.fpn = e.fpn
        position = _parsed(e.fpn)
        self.side, self.duty = position.side, position.duty
        self.setup_left = position.setup_moves_left()
        self.pending, self.capture, self.violation, self.game_over = None, (), None, None
        self.ambiguous = self.out_of_sync = None
        self.computer_move = self.thinking = None
        self.hint = self.hint_thinking = None

    def _on_violation(self, e: ev.Violation) -> None:
        self.violation = e

    def _on_violation_cleared(self, e: ev.ViolationCleared) -> None:
        self.violation = None

    def _on_out_of_sync(self, e: ev.OutOfSync) -> None:
        self.out_of_sync = e

    def _on_in_sync(self, e: ev.InSync) -> None:
        self.out_of_sync = None
        self.ambiguous = None

    def _on_notice(self, e: ev.Notice) -> None:
        self.notice, self.notice_at = e, self.now()

    def _on_board_view(self, e: ev.BoardView) -> bool:
        changed = e != self.view
        self.view = e
        return changed

    def _on_computer_thinking(self, e: ev.ComputerThinking) -> None:
        self.thinking = e

    def _on_computer_move(self, e: ev.ComputerMove) -> None:
        self.computer_move, self.thinking = e, None

    def computer_plan(self) -> Optional[CapturePlan]:
        """The computer's move to draw (its piece, the path, the stacks it takes) while
        the player has still to make it and nothing else comes first."""
        c = self.computer_move
        if c is None or self.violation is not None or self.pending is not None or \
                self.out_of_sync is not None:
            return None
        return CapturePlan(c.move, c.path, c.jumped)

    def hint_plan(self) -> Optional[CapturePlan]:
        """The hint's move to draw, while it is about the position on the table and
        nothing more urgent is shown."""
        h = self.hint
        if h is None or h.fpn != self.fpn or self.violation is not None or \
                self.pending is not None or self.out_of_sync is not None or \
                self.computer_move is not None:
            return None
        return h.plan

    def hinting(self) -> Optional[Tuple[str, str, int]]:
        """``(fpn, side, depth)`` while the coach searches a hint for this position."""
        t = self.hint_thinking
        return t if t is not None and t[0] == self.fpn else None

    def _on_draw_offered(self, e: ev.DrawOffered) -> None:
        self.draw_offer = e.side

    def _on_game_over(self, e: ev.GameOver) -> None:
        self.game_over = e
        self.capture, self.pending, self.draw_offer = (), None, None
        self.computer_move = self.thinking = None
        self.hint = self.hint_thinking = None
        self.clocks.switch(None, self.now())

    # -- UI-local decisions (the referee has no verb for these) ------------------------
    def decline_draw(self) -> None:
        self.draw_offer = None

    def act(self, action, table) -> bool:
        """The requests the referee has no verb for: ``decline_draw``, ``clock`` (a
        chess-clock press stops the presser's time at once, whatever the camera has judged
        yet) and ``review_game`` (stored games from ``table.record``). Returns whether
        the picture changed."""
        if action.name == "decline_draw":
            self.decline_draw()
            return True
        if action.name == "clock":
            return self.press_clock(str(action.arg("side")))
        if action.name == "review_game":
            store = table.record.store if table.record is not None else None
            return self.review(int(action.arg("step", 0)), store)
        if action.name == "hint_thinking":
            if action.arg("fpn") != self.fpn:
                return False   # the game has moved on
            self.hint_thinking = (self.fpn, str(action.arg("side")), int(action.arg("depth", 0)))
            return True
        if action.name == "hint_found":
            fpn, token = action.arg("fpn"), str(action.arg("token"))
            if fpn != self.fpn:
                return False
            plan = CapturePlan(token, token_cells(token), jumped_cells(token, placement_of(fpn)))
            self.hint = HintShown(fpn, str(action.arg("side")), token,
                                  int(action.arg("score", 0)), action.arg("reason"), plan)
            self.hint_thinking = None
            return True
        if action.name == "review_progress":
            game = int(action.arg("game"))
            self.reviews[game] = CoachReview(game, int(action.arg("done")),
                                             int(action.arg("total")),
                                             tuple(action.arg("notes", ())))
            return True
        return False

    def reviewed_id(self) -> Optional[int]:
        """The stored game the review screen shows: the chosen one, else this game."""
        return self.reviewed.id if self.reviewed is not None else self.game_id

    def coach_review(self) -> Optional[CoachReview]:
        """The coach's review of the game the review screen shows, if asked for."""
        game = self.reviewed_id()
        return self.reviews.get(game) if game is not None else None

    def review(self, step: int, store) -> bool:
        """Step to an older (-1) or newer (+1) stored game, or back to this one (0)."""
        if step == 0:
            self.reviewed = None
            return True
        ids = [g.id for g in store.list_games()] if store is not None else []
        current = self.reviewed.id if self.reviewed is not None else self.game_id
        others = [i for i in ids if (i < current if step < 0 else i > current)] \
            if current is not None else ids
        if not others:
            return self.apply(ev.Notice(code="no_other_game", message="no other saved game"))
        chosen = max(others) if step < 0 else min(others)
        self.reviewed = None if chosen == self.game_id else ReviewedGame.from_store(store, chosen)
        return True

    # -- what to draw -----------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self.fpn is not None

    @property
    def last_move(self) -> Optional[str]:
        return self.moves[-1] if self.moves else None

    def shown_fpn(self) -> Optional[str]:
        """The position the board picture shows: the one to restore while something is
        wrong on the table, else the referee's current position."""
        if self.violation is not None:
            return self.violation.restore_to
        if self.out_of_sync is not None:
            return self.out_of_sync.expected_fpn
        return self.fpn

    def placement(self) -> Placement:
        """Stacks to draw. While captured stones wait to be taken off, the capturing
        piece is drawn on its landing cell and the jumped stacks are still there."""
        fpn = self.shown_fpn()
        if fpn is None:
            return {}
        stacks = placement_of(fpn)
        if self.pending is not None and self.violation is None and self.out_of_sync is None:
            path = token_cells(self.pending.move)
            if path[0] in stacks:
                stacks[path[-1]] = stacks.pop(path[0])
        return stacks

    def marked_cells(self) -> Tuple[str, ...]:
        """Cells involved in what is wrong (violation or out of sync)."""
        if self.violation is not None:
            return self.violation.cells
        if self.out_of_sync is not None:
            return self.out_of_sync.cells
        if self.ambiguous is not None:
            return self.ambiguous.cells
        return ()

    def notice_active(self, seconds: float = 8.0) -> Optional[ev.Notice]:
        if self.notice is not None and self.now() - self.notice_at <= seconds:
            return self.notice
        return None

    def game_over_params(self) -> Dict[str, object]:
        """The parameters of the game-end sentence (``MESSAGES[reason]``): winner, loser,
        the side left without a move, the plies of the no-capture limit."""
        g = self.game_over
        if g is None:
            return {}
        params: Dict[str, object] = {"side": self.side}
        if g.winner in ("red", "black"):
            params["winner"] = g.winner
            params["loser"] = "black" if g.winner == "red" else "red"
        if self.fpn:
            params["plies"] = _parsed(self.fpn).clock
        return params

    def choices(self) -> Tuple[str, ...]:
        """Move sequences the players may confirm while the camera cannot tell them apart."""
        return self.ambiguous.moves if self.ambiguous is not None else ()

    def fixes(self) -> Tuple[str, ...]:
        """What the players can do about the current trouble, as control names:
        ``confirm_board`` (the board is right, the camera misreads it) while out of sync,
        ``play_on`` (keep the board as it is) in casual mode."""
        if self.game_over is not None:
            return ()
        fixes: List[str] = []
        if self.out_of_sync is not None:
            fixes.append("confirm_board")
        if self.mode == "casual" and (self.violation is not None or self.out_of_sync is not None):
            fixes.append("play_on")
        return tuple(fixes)

    def camera_problem(self) -> Optional[str]:
        """``"camera_lost"``, ``"board_not_found"``, ``"searching"`` (for the board: not
        found yet, not given up), ``"hand"`` or None (most serious first)."""
        if not self.view.camera_ok:
            return "camera_lost"
        if not self.view.board_found:
            return "searching" if self.view.searching else "board_not_found"
        if self.view.hand:
            return "hand"
        return None

    def review_history(self) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
        """``(positions, moves)`` to step through in review: the stored game chosen, else
        this game."""
        if self.reviewed is not None:
            return self.reviewed.history, self.reviewed.moves
        return tuple(self.history), tuple(self.moves)

    def move_list(self, moves=None, review: Optional[CoachReview] = None) -> List[str]:
        """Numbered move pairs: ``["1. b1-c1 h9-g9", "2. ..."]`` (Red moves first); a ply
        the camera took as the likeliest, not for certain, ends in "?"; with a coach's
        ``review``, a marked move ends in "??" (loses material) or "?!" (misses better)."""
        if review is not None and moves is not None:
            moves = [m + (REVIEW_MARKS[n.code] if (n := review.note(i)) else "")
                     for i, m in enumerate(moves, start=1)]
        if moves is None:
            moves = [m + ("?" if i in self.uncertain else "")
                     for i, m in enumerate(self.moves, start=1)]
        lines = []
        for i in range(0, len(moves), 2):
            pair = " ".join(moves[i:i + 2])
            lines.append(f"{i // 2 + 1}. {pair}")
        return lines

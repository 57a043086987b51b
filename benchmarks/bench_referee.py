"""Referee benchmark: how well the referee follows whole games seen through a camera.

Part 1 (synthetic observations, the bulk): random legal playouts on both boards. Every
position is shown as the camera would: frames with a hand over the board (covered
cells), then still frames with per-frame camera noise (misread colours, low-confidence
cells, missing and wrong heights). The frames go through vision's real stability filter
and then the referee, exactly as in ``fenix-table track``. Some turns are played twice
in a row without a still board in between (two plies to reconstruct), and illegal
changes are injected while the referee is caught up with the game (the player then
restores the board and plays legally). In 3% of still periods one cell is misread in
every frame (glare); reports naming that cell or the move it hides are counted apart.

Part 2 (rendered frames): shorter games (setup and 10 battle plies, with a General
creation or King recreation where the random game allows) on a physical table (stones stay
where they were put, off-centre as by hand, a stacked stone 0.02-0.05 cell off the one
below; a hand from the mover's side ending over the landing cell; then still frames) at
the table camera's 1280x960 (``--size``), both faces, drawn by two renderers
(``--renderer``): the project's generator (``fenix_tools.sim.PhysicalBoard``, tuned on)
and the independent renderer of ``bench_vision_unseen.py`` (``benchmarks/unseen_games.py``,
never tuned on), the same games on both. The same frames go through one Vision + Referee
per mode (``--mode``): ``players``, a live table whose simulated players answer what it
asks, and ``track`` (``--track``), ``Referee(asking=False)`` fed stable observations only
as ``fenix-table track`` does, nobody to ask, ``settle()`` when the recording ends. It
prints the stacking plies (setup; battle) committed by the camera alone, uncertain
commits right / wrong, plies left uncertain, games track recorded exactly, questions per
game, and the new evidence's time on each frame it runs on. ``--first-game`` / ``--save`` /
``--merge`` split a long run (the issue asks for 20 games per renderer, ~30 s each).

Printed figures:
- move recognition: plies the referee committed by itself with the right position;
- confirmations: plies the simulated players had to pick on the display (MoveAmbiguous);
- wrong commits: a committed position the game never had (target 0);
- false violations: Violation / OutOfSync while the board showed a legal state;
- missed violations: injected illegal changes that were never reported (target 0);
- delay from the board becoming still to MoveCommitted, in frames and milliseconds
  (frames x frame period at the given fps, plus the referee's own processing time).

Run: ``python benchmarks/bench_referee.py [--games 24] [--rendered 4] [--renderer both]
[--mode both | --track] [--rendered-plies 20] [--seed 1] [--first-game 0] [--save FILE]
[--frames DIR]``; ``--merge FILE...`` reports saved chunks together; ``--frames`` keeps the
rendered frames and reads them back on the next run (the referee measured again on the
same frames in a fraction of the time).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.referee import Referee
from fenix_tools.synthetic import Noise, observe_placement
from fenix_table.rules import Game, Position, Rules, apply, legal_moves
from fenix_table.vision.stability import StabilityFilter

# Per cell and frame. Flicker (a colour misread for one frame) leaves that cell unreadable
# in the stability filter's windows it touches (two flickers in one window break it);
# stubborn misreads (glare on one stone for a whole still period) are simulated
# separately, see ``GLARE``.
NOISE = Noise(misread=0.0005, unsure=0.01, no_height=0.05, wrong_height=0.005)
#: Chance that a still period has one cell misread in every frame (glare, a shadow).
GLARE = 0.03


@dataclass
class Tally:
    plies: int = 0
    recognised: int = 0
    confirmed: int = 0
    wrong: int = 0
    injected: int = 0
    caught: int = 0
    false_reports: int = 0
    false_codes: Dict[str, int] = field(default_factory=dict)
    glare_reports: int = 0
    route_notices: int = 0
    glare: int = 0
    delays_frames: List[int] = field(default_factory=list)
    delays_ms: List[float] = field(default_factory=list)
    observe_ms: List[float] = field(default_factory=list)   # referee.observe per observation
    frame_ms: List[float] = field(default_factory=list)     # vision + referee per frame
    lessons: int = 0                                          # confirmed frames vision learned from
    learn_ms: List[float] = field(default_factory=list)     # Vision.learn per confirmed board
    games: int = 0
    boards: Dict[str, int] = field(default_factory=dict)


def illegal_change(position: Position, rng: random.Random) -> Optional[Dict]:
    """A placement one illegal action away (a stone moved where no legal move takes it,
    or an extra stone), which no one or two legal plies produce; None if none was found."""
    stacks = position.stacks()
    legal_results = {tuple(sorted(apply(position, m).stacks().items()))
                     for m in legal_moves(position)}
    two_ply = set()
    if not position.in_setup:
        for m in legal_moves(position):
            after = apply(position, m)
            for m2 in legal_moves(after):
                two_ply.add(tuple(sorted(apply(after, m2).stacks().items())))
    empties = [c for c in position.cells if c not in stacks]
    for _ in range(50):
        kind = rng.random()
        placement = dict(stacks)
        if kind < 0.8:
            frm = rng.choice(sorted(stacks))
            to = rng.choice(empties)
            placement[to] = placement.pop(frm)
        else:
            color = rng.choice(["red", "black"])
            placement[rng.choice(empties)] = (color, 1)
        key = tuple(sorted(placement.items()))
        if key not in legal_results and key not in two_ply and key != tuple(sorted(stacks.items())):
            return placement
    return None


def players_fix(ref: Referee, truth: Game, tally: Tally, asked: bool, force: bool = False) -> None:
    """After a still period the players look at the display. When it asks them (a move it
    could not tell apart, a violation, the board out of sync) or shows a move that was not
    made, they take back the wrong move, pick the move, or confirm the board. When it only
    has not caught up yet (it saw no still board since the move) they play on: the next
    still board shows several plies, which the referee reconstructs. ``force``: the game
    is over on the table and the players make the display agree."""
    if ref.state == "over" or ref.position.fpn() == truth.position.fpn():
        return
    fpns = [p.fpn() for p in truth.positions]
    if not (force or asked or ref.state in ("violation", "out_of_sync")
            or ref.position.fpn() not in fpns):
        return
    while ref.position.fpn() not in fpns and ref.moves:
        ref.undo()
    if ref.position.fpn() not in fpns:
        return
    tokens = [m.token for m in truth.moves[fpns.index(ref.position.fpn()):]]
    ref.confirm(tokens)
    tally.confirmed += len(tokens)


class Table:
    """A simulated table: truth game, camera frames through the stability filter, referee."""

    def __init__(self, board: str, rules: Rules, rng: random.Random, tally: Tally, fps: float):
        self.board, self.rules, self.rng, self.tally, self.fps = board, rules, rng, tally, fps
        self.truth = Game(Position.start(board), rules)
        self.referee = Referee(board=board, rules=rules)
        self.filter = StabilityFilter(3)
        self.frame = 0
        self.illegal = False
        self.reported = False
        self.still_since: Optional[int] = None
        self.glare: Optional[str] = None
        self.asked = False   # a MoveAmbiguous stands on the display

    def show(self, placement, still: int, hand: int) -> None:
        """``hand`` frames with a hand over the board, then ``still`` still frames."""
        rng = self.rng
        for _ in range(hand):
            covered = rng.sample(self.truth.position.cells, rng.randint(3, 12))
            obs = observe_placement(placement, self.board, self.frame, occluded=covered,
                                    hand=True, noise=NOISE, rng=rng)
            self.feed(obs, stable=None)
        self.still_since = self.frame
        glare = self.glare = None
        if rng.random() < GLARE:
            cell = rng.choice(self.truth.position.cells)
            shown = placement.get(cell, ("empty", None))[0]
            glare = {cell: (rng.choice([c for c in ("empty", "red", "black") if c != shown]), None)}
            self.glare = cell
            self.tally.glare += 1
        for _ in range(still):
            obs = observe_placement(placement, self.board, self.frame, noise=NOISE, rng=rng,
                                    overrides=glare)
            self.feed(obs, stable=self.filter.push(obs))

    def feed(self, obs, stable) -> None:
        if stable is None and obs.hand:
            self.filter.push(obs)
            stable = obs   # the referee only takes the camera state from it
        if stable is None:
            self.frame += 1
            return
        began = time.perf_counter()
        events = self.referee.observe(stable)
        spent = (time.perf_counter() - began) * 1000
        if not stable.hand:
            self.tally.observe_ms.append(spent)
        committed = [e for e in events if e.kind == "move_committed"]
        for event in events:
            # Plies committed together are judged by where they lead: the board cannot
            # show their order, and the referee says so with a route notice.
            if event.kind == "move_committed" and event is not committed[-1]:
                self.tally.recognised += 1
                continue
            self.account(event, spent)
        self.frame += 1

    def account(self, event, spent_ms: float) -> None:
        tally = self.tally
        if event.kind == "move_committed":
            history = [p.fpn() for p in self.truth.positions]
            if event.fpn_after not in history:
                tally.wrong += 1
                return
            tally.recognised += 1
            if event.fpn_after == self.truth.position.fpn() and self.still_since is not None:
                frames = self.frame - self.still_since + 1
                tally.delays_frames.append(frames)
                tally.delays_ms.append(frames * 1000.0 / self.fps + spent_ms)
        elif event.kind in ("violation", "out_of_sync"):
            if self.illegal:
                self.reported = True
            elif self.glare is not None and self.glare in set(event.cells) | self.unseen_cells():
                tally.glare_reports += 1
            else:
                tally.false_reports += 1
                code = getattr(event, "code", "out_of_sync")
                tally.false_codes[code] = tally.false_codes.get(code, 0) + 1
        elif event.kind == "notice" and event.code == "route_unseen":
            tally.route_notices += 1
        if event.kind == "move_ambiguous":
            self.asked = True
        elif event.kind in ("move_committed", "move_undone"):
            self.asked = False

    def unseen_cells(self) -> set:
        """Cells the plies played since the referee's position touch: a stubborn misread
        there hides the move (its start still looks occupied, its landing empty)."""
        fpns = [p.fpn() for p in self.truth.positions]
        here = self.referee.position.fpn()
        if here not in fpns:
            return set()
        return {c for m in self.truth.moves[fpns.index(here):] for c in (*m.path, *m.captured)}

    def settle(self, force: bool = False) -> None:
        players_fix(self.referee, self.truth, self.tally, self.asked, force)
        self.asked = False

    def play(self, max_plies: int = 400) -> None:
        rng = self.rng
        self.referee.begin()
        self.show(self.truth.position.stacks(), still=8, hand=0)
        while not self.truth.status().over and self.truth.ply < max_plies:
            if rng.random() < 0.06:
                self.inject()
            plies = 2 if rng.random() < 0.1 else 1
            for i in range(plies):
                if self.truth.status().over:
                    break
                self.truth.push(rng.choice(self.truth.legal_moves()))
                self.tally.plies += 1
                if i < plies - 1:
                    self.show(self.truth.position.stacks(), still=1, hand=2)
            self.show(self.truth.position.stacks(), still=rng.randint(5, 12),
                      hand=rng.randint(2, 5))
            self.settle()
        self.settle(force=True)
        self.tally.games += 1
        self.tally.boards[self.board] = self.tally.boards.get(self.board, 0) + 1

    def inject(self) -> None:
        # Only once the referee has caught up: behind the game (it saw no still board
        # since the last ply) an "illegal" board may be two or three legal plies from the
        # position it knows, which no one can call illegal from the board alone.
        if self.referee.state != "play" or self.referee.position.fpn() != self.truth.position.fpn():
            return
        placement = illegal_change(self.truth.position, self.rng)
        if placement is None:
            return
        self.tally.injected += 1
        self.illegal, self.reported = True, False
        # The illegal board stands until the referee objects (1-1.5 s at 10 fps here).
        self.show(placement, still=self.rng.randint(10, 15), hand=3)
        if self.reported:
            self.tally.caught += 1
        self.show(self.truth.position.stacks(), still=4, hand=2)   # restored
        self.illegal = False
        if self.referee.state in ("violation", "out_of_sync"):
            self.referee.confirm([])


def synthetic(games: int, seed: int, fps: float) -> Tally:
    tally = Tally()
    for g in range(games):
        board = "9x9" if g % 2 else "7x8"
        rules = Rules.preset("strike" if g % 5 == 4 else "official")
        Table(board, rules, random.Random(seed * 1000 + g), tally, fps).play()
    return tally


@dataclass
class RenderedTally(Tally):
    """Part 2's figures for one renderer and one mode (``players``: a live table whose
    players answer; ``track``: nobody to ask, as ``fenix-table track``): those of part 1
    plus the stacking plies (a stone put on an own stack: the 10 setup plies, General
    creation and King recreation in battle)."""
    stack_plies: Dict[str, int] = field(default_factory=lambda: {"setup": 0, "battle": 0})
    stack_recognised: Dict[str, int] = field(default_factory=lambda: {"setup": 0, "battle": 0})
    stack_confirmed: Dict[str, int] = field(default_factory=lambda: {"setup": 0, "battle": 0})
    stack_wrong: Dict[str, int] = field(default_factory=lambda: {"setup": 0, "battle": 0})
    stack_uncertain_right: Dict[str, int] = field(default_factory=lambda: {"setup": 0, "battle": 0})
    creation_games: int = 0                                  # games with a battle stacking ply
    game_seconds: List[float] = field(default_factory=list)  # rendering + vision + referee
    questions: int = 0            # MoveAmbiguous standing when the players looked (answered)
    # ... per such question on a stacking ply: where the true history stood in its order
    # (1 = offered first; 0 = not offered), how many cells it pointed at, and whether the
    # true landings of the plies the options differ on were all among them
    question_ranks: List[int] = field(default_factory=list)
    question_cells: List[int] = field(default_factory=list)
    question_pointed: int = 0
    uncertain_right: int = 0      # uncertain commits of a position the game had
    uncertain_wrong: int = 0      # ... of one it never had
    wrong_first: int = 0          # certain wrong commits from a position that was right
    late: int = 0                 # certain right commits of a ply before the last one played
    late_plies: List[int] = field(default_factory=list)      # how many plies behind
    process_ms: List[float] = field(default_factory=list)   # processing of committing frames
    exact_games: int = 0          # track: every ply's token right, in order
    recorded: int = 0             # plies in the record at the end (track)
    recorded_right: int = 0       # ... whose token is the game's at that ply
    failures: List[str] = field(default_factory=list)       # stacking plies not seen right
    evidence_ms: List[float] = field(default_factory=list)  # stack_changes + stack_growth per call
    shadow_ms: List[float] = field(default_factory=list)    # shadow_direction per call
    pointed_ms: List[float] = field(default_factory=list)   # pointed_at per call
    # pointed_at + shadow_direction: a still run's frame before its first stable one (the
    # changes and growth run on that stable frame)
    run_first_ms: List[float] = field(default_factory=list)


def _kind_of(truth: Game, index: int) -> Optional[str]:
    """'setup' / 'battle' for a stacking ply (truth.moves[index]), else None."""
    if index < 0 or index >= len(truth.moves) or not truth.moves[index].stacking:
        return None
    return "setup" if truth.positions[index].in_setup else "battle"


class _Watcher:
    """One camera pipeline (its own Vision and Referee) over a game's frames.

    ``players``: as the existing live-table simulation: hand frames' observations go to
    the referee too, and after each ply the simulated players answer (``players_fix``).
    ``track``: as ``fenix-table track`` (``Table.feed``): only stable observations go to
    ``Referee(asking=False)``, nobody answers, ``settle()`` when the recording ends."""

    def __init__(self, mode: str, tally: RenderedTally, truth: Game, fps: float, label: str):
        from fenix_table.vision import Vision

        self.mode, self.tally, self.truth, self.fps, self.label = mode, tally, truth, fps, label
        self.vision = Vision(board="auto", stable_frames=3)
        self.ref: Optional[Referee] = None
        self.frame = 0
        self.still_since = 0
        self.asked = False
        self.question: Optional[Tuple[int, int, bool]] = None   # the last one shown (_question)
        self.seen: Dict[int, str] = {}   # ply index -> "right" / "uncertain" / "confirmed"
        self.astray: Optional[int] = None   # the first ply the record got wrong
        self.colours: Tuple[str, ...] = ()

    def run(self, bgr) -> None:
        tally = self.tally
        began = time.perf_counter()
        result = self.vision.process(bgr, self.frame)
        # The colours read, which the change evidence is measured per (its cost is timed so).
        self.colours = tuple(r.color for r in result.observation.cells.values())
        if self.ref is None and result.calibration is not None:
            self.ref = Referee(board=result.calibration.board, asking=self.mode != "track")
            self.ref.begin()
        events = []
        if self.ref is not None:
            obs = result.stable
            if obs is None and self.mode != "track" and result.status in ("hand", "board_not_found"):
                obs = result.observation
            if obs is not None:
                judged = time.perf_counter()
                events = self.ref.observe(obs)
                if result.stable is not None:
                    tally.observe_ms.append((time.perf_counter() - judged) * 1000)
        spent = (time.perf_counter() - began) * 1000
        tally.frame_ms.append(spent)
        seen = self.ref.seen_position(events) if self.ref is not None and result.stable is not None else None
        if seen is not None:
            began = time.perf_counter()
            tally.lessons += self.vision.learn(seen)
            tally.learn_ms.append((time.perf_counter() - began) * 1000)
        self.account(events, spent)
        self.frame += 1

    def account(self, events, spent: Optional[float]) -> None:
        tally, truth = self.tally, self.truth
        fpns = [p.fpn() for p in truth.positions]
        for event in events:
            if event.kind == "move_committed":
                uncertain = getattr(event, "uncertain", False)
                if event.fpn_after in fpns:
                    index = len(fpns) - 1 - fpns[::-1].index(event.fpn_after) - 1
                    kind = _kind_of(truth, index)
                    if uncertain:
                        tally.uncertain_right += 1
                        self.seen.setdefault(index, "uncertain")
                        if kind:
                            tally.stack_uncertain_right[kind] += 1
                        continue
                    tally.recognised += 1
                    self.seen.setdefault(index, "right")
                    if kind:
                        tally.stack_recognised[kind] += 1
                    if event.fpn_after == truth.position.fpn() and spent is not None:
                        frames = self.frame - self.still_since + 1
                        tally.delays_frames.append(frames)
                        tally.delays_ms.append(frames * 1000.0 / self.fps + spent)
                        tally.process_ms.append(spent)
                    else:
                        tally.late += 1
                        tally.late_plies.append(len(fpns) - 2 - index)
                else:
                    index = len(truth.moves) - 1
                    if uncertain:
                        tally.uncertain_wrong += 1
                    else:
                        tally.wrong += 1
                        tally.wrong_first += event.fpn_before in fpns
                        kind = _kind_of(truth, index)
                        if kind:    # committed while the last ply played was a stacking one
                            tally.stack_wrong[kind] += 1
                    if event.fpn_before in fpns:
                        k = fpns.index(event.fpn_before)
                        self.astray = k if self.astray is None else min(self.astray, k)
                        tally.failures.append(
                            f"{self.label} ply {k + 1} {truth.moves[k].token if k < len(truth.moves) else '?'}"
                            f": committed {'uncertain ' if uncertain else ''}{event.move}"
                            + (f" (alternatives {', '.join(event.alternatives[:4])})"
                               if getattr(event, "alternatives", ()) else ""))
            elif event.kind in ("violation", "out_of_sync"):
                tally.false_reports += 1
                code = getattr(event, "code", "out_of_sync")
                tally.false_codes[code] = tally.false_codes.get(code, 0) + 1
            elif event.kind == "notice" and getattr(event, "code", "") == "route_unseen":
                tally.route_notices += 1
            if event.kind == "move_ambiguous":
                self.asked = True
                self.question = self._question(event)
            elif event.kind == "move_committed":
                self.asked = False

    def _question(self, event) -> Optional[Tuple[int, int, bool]]:
        """For a question (MoveAmbiguous) while the last ply played is a stacking one:
        the true history's place in the options (1 first, 0 not offered), how many cells
        it points at, and whether the true landings of the plies the options differ on (the
        last ply's when none is offered) are all among them. A question with no options
        (too many to list, or the search gave up) counts as not offering it."""
        truth = self.truth
        if self.ref is None or not _kind_of(truth, len(truth.moves) - 1):
            return None
        since = truth.moves[len(self.ref.moves):]
        true = " ".join(m.token for m in since)
        rank = event.moves.index(true) + 1 if true in event.moves else 0
        options = [option.split() for option in event.moves]
        differing = [k for k in range(len(since))
                     if len({tuple(o[k:k + 1]) for o in options}) > 1] if options else [len(since) - 1]
        pointed = all(since[k].path[-1] in event.cells for k in differing)
        return rank, len(event.cells), pointed

    def after_ply(self) -> None:
        if self.mode != "track" and self.ref is not None:
            self.fix()
        self.asked = False

    def fix(self, force: bool = False) -> None:
        tally, truth = self.tally, self.truth
        before = tally.confirmed
        asked = self.asked
        players_fix(self.ref, truth, tally, asked, force)
        done = tally.confirmed - before
        if done and asked:
            tally.questions += 1
            if self.question is not None:
                rank, cells, pointed = self.question
                tally.question_ranks.append(rank)
                tally.question_cells.append(cells)
                tally.question_pointed += pointed
        for index in range(len(truth.moves) - done, len(truth.moves)):
            kind = _kind_of(truth, index)
            self.seen.setdefault(index, "confirmed")
            if kind:
                tally.stack_confirmed[kind] += 1

    def end(self) -> None:
        tally, truth = self.tally, self.truth
        if self.ref is None:
            return
        if self.mode == "track":
            self.account(self.ref.settle(), None)
            tokens = [m.token for m in truth.moves]
            got = self.ref.moves
            tally.recorded += len(got)
            tally.recorded_right += sum(a == b for a, b in zip(got, tokens))
            tally.exact_games += got == tokens
        else:
            self.fix(force=True)
        for index, move in enumerate(truth.moves):
            kind = _kind_of(truth, index)
            if kind and self.seen.get(index) != "right":
                why = self.seen.get(index)
                if why is None:
                    why = ("not in the record: it went wrong at ply "
                           f"{self.astray + 1}" if self.astray is not None and self.astray < index
                           else "never committed")
                tally.failures.append(f"{self.label} ply {index + 1} {move.token} ({kind}): {why}")


#: Camera mounts to compare (``--mount``, the generator only): the aim point's offset
#: from the board's middle as a share of the half-board along the files, and the optical
#: axis's tilt from vertical. "drawn" keeps each scene's own small random tilt and offset.
MOUNTS = {"drawn": None, "straight": (0.0, 0.0), "offset": (0.45, 0.0), "tilted": (0.0, 12.0)}
#: How the mover's hand is last seen (``--hands``, the generator only): over the landing,
#: or pulling back from it in the last of the ply's three hand frames
#: (``fenix_tools.sim.ply_frames``' ``withdrawing``).
HANDS = {"over": 0, "withdrawing": 1}
#: How the setup is played (``--setup``): a still board after every ply, or "paired":
#: each of Red's setup plies and Black's next one made without a still board between
#: (two stacking plies, hands over the board, then still), the shape in which a question
#: has two open plies.
SETUPS = ("still", "paired")


def _game_frames(renderer: str, g: int, seed: int, plies: int, size, mount: str = "drawn",
                 hands: str = "over"):
    """One game for ``renderer`` ("sim": the project's generator; "unseen": the
    independent renderer): (board, start, moves, start frame function, ply frames
    function ``(move, side, still)``, ``still`` the still frames after the ply). The moves and the jitter/stacking spreads come from the same seeds for
    both renderers (the same games are played on both), for every mount and hands."""
    from dataclasses import replace

    import numpy as np

    from fenix_table.board import dimensions
    from fenix_tools.sim import random_game

    board = "7x8" if g % 2 == 0 else "9x9"
    rng = random.Random(seed + g)
    nrng = np.random.default_rng(seed + g)
    # A real table: stones a little off their cell centres, stacked ones a millimetre
    # or two off the stone below (30 mm cells).
    jitter, stacking = rng.uniform(0.03, 0.08), rng.uniform(0.02, 0.05)
    start = Position.start(board)
    if renderer == "sim":
        from fenix_tools.sim import PhysicalBoard, TableCamera, ply_frames, random_scene

        scene = replace(random_scene(nrng, board, image_size=size, hard=False, hand=False),
                        jitter=jitter, stacking=stacking)
        if MOUNTS[mount] is not None:
            share, tilt = MOUNTS[mount]
            scene = replace(scene, offset=(share * dimensions(board)[0] / 2, 0.0), tilt_deg=tilt)
        camera = TableCamera(board, scene, seed=seed * 1000 + g)
        table = PhysicalBoard.from_position(start, nrng, jitter, stacking)
        first = lambda: camera.frame(table)[0]   # noqa: E731
        frames = lambda move, side, still: (bgr for bgr, _ in ply_frames(   # noqa: E731
            camera, table, move, side, rng, hand_frames=3, still_frames=still,
            withdrawing=HANDS[hands]))
    else:
        if MOUNTS[mount] is not None:
            raise ValueError("--mount applies to the generator only (--renderer sim)")
        if HANDS[hands]:
            raise ValueError("--hands applies to the generator only (--renderer sim)")
        import unseen_games

        camera = unseen_games.UnseenCamera(board, size, seed=seed * 1000 + g)
        table = unseen_games.UnseenTable.from_position(start, nrng, jitter, stacking)
        first = lambda: camera.frame(table)   # noqa: E731
        frames = lambda move, side, still: unseen_games.ply_frames(   # noqa: E731
            camera, table, move, side, rng, hand_frames=3, still_frames=still)
    setup_plies = sum(start.setup_moves_left(side) for side in ("red", "black"))
    moves = random_game(board, rng, battle_plies=max(0, plies - setup_plies))[:plies]
    return board, start, moves, first, frames


class _FrameCache:
    """A rendered game's frames kept as lossless PNG files in ``folder`` (one folder per
    renderer, seed, game, plies and size), so the referee and the evidence can be
    measured again on the very same frames without rendering them again (rendering is
    most of part 2's time). A folder without its ``complete`` mark is rendered anew."""

    def __init__(self, folder: str, first, frames):
        self.folder, self._first, self._frames = folder, first, frames
        self.complete = os.path.exists(os.path.join(folder, "complete"))
        self.starts = 0
        self.plies = 0
        os.makedirs(folder, exist_ok=True)

    def _keep(self, name: str, bgr):
        import cv2

        path = os.path.join(self.folder, name)
        if self.complete:
            return cv2.imread(path, cv2.IMREAD_COLOR)
        cv2.imwrite(path, bgr, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        return bgr

    def first(self):
        self.starts += 1
        name = f"start-{self.starts}.png"
        return self._keep(name, None if self.complete else self._first())

    def frames(self, move, side, still):
        self.plies += 1
        if self.complete:
            i = 0
            while os.path.exists(os.path.join(self.folder, f"ply{self.plies:03d}-{i}.png")):
                yield self._keep(f"ply{self.plies:03d}-{i}.png", None)
                i += 1
            return
        for i, bgr in enumerate(self._frames(move, side, still)):
            yield self._keep(f"ply{self.plies:03d}-{i}.png", bgr)

    def close(self) -> None:
        if not self.complete:
            open(os.path.join(self.folder, "complete"), "w").close()


MODES = ("players", "track")


def rendered(games: int, seed: int, plies: int, size=(1280, 960), renderer: str = "sim",
             first_game: int = 0, fps: float = 10.0, modes=MODES,
             progress: bool = False, cache: Optional[str] = None,
             mount: str = "drawn", hands: str = "over", setup: str = "still"
             ) -> Dict[str, RenderedTally]:
    """Games ``first_game`` .. ``first_game + games - 1`` rendered by ``renderer`` and
    read, frame by frame, by one pipeline per mode (its own Vision and Referee; see
    :class:`_Watcher`). Returns ``{mode: tally}``.

    Each game is a random game's setup (its 10 stacking plies) and then up to
    ``plies`` - 10 battle plies, preferring games with a General creation or King
    recreation (``fenix_tools.sim.random_game``); 7x8 for even game numbers, 9x9 for odd.
    The stones lie where they were put and stay there (placement error up to
    ``jitter``, a stacked stone N(0, ``stacking``) off the one below); each ply is shown
    as a person makes it: three frames with the mover's hand over the board, from the
    mover's side of the table, the last with the fingertips over the landing cell (with
    ``hands`` "withdrawing", the generator's: the one before it, the last pulling back),
    then five still frames (with ``setup`` "paired", none after each of Red's setup
    plies: see :data:`SETUPS`). Only the frames go to vision.
    """
    import cv2

    from fenix_table.vision.evidence import pointed_at, shadow_direction, stack_changes, stack_growth
    from fenix_table.board import dimensions

    tallies = {mode: RenderedTally() for mode in modes}
    for g in range(first_game, first_game + games):
        game_began = time.perf_counter()
        board, start, moves, first, frames = _game_frames(renderer, g, seed, plies, size, mount, hands)
        kept = None
        if cache:
            kept = _FrameCache(os.path.join(cache, f"{renderer}-seed{seed}-game{g}-plies{plies}-"
                                                   f"{size[0]}x{size[1]}"
                                                   + ("" if mount == "drawn" else f"-{mount}")
                                                   + ("" if hands == "over" else f"-{hands}")
                                                   + ("" if setup == "still" else f"-{setup}")),
                               first, frames)
            first, frames = kept.first, kept.frames
        truth = Game(start)
        label = f"{renderer} game {g} ({board})"
        watchers = [_Watcher(mode, tallies[mode], truth, fps, label) for mode in modes]
        stills = []   # rectified still frames, to time the change evidence on
        hand = None   # the last hand frame before the second of them (rectified)
        for _ in range(4):
            bgr = first()
            for w in watchers:
                w.run(bgr)
        created = False
        setup_plies = sum(start.setup_moves_left(side) for side in ("red", "black"))
        for number, move in enumerate(moves):
            if truth.status().over:
                break
            side = truth.position.side
            truth.push(move)
            paired = setup == "paired" and number % 2 == 0 and number + 1 < setup_plies
            kind = _kind_of(truth, len(truth.moves) - 1)
            for t in tallies.values():
                t.plies += 1
                if kind:
                    t.stack_plies[kind] += 1
            created = created or kind == "battle"
            for i, bgr in enumerate(frames(move, side, 0 if paired else 5)):
                for w in watchers:
                    if i == 3:
                        w.still_since = w.frame
                    w.run(bgr)
                if i == 7 and len(stills) < 2 and watchers[0].vision.reader is not None \
                        and watchers[0].vision.reader.last is not None:
                    stills.append((watchers[0].vision.reader.last, watchers[0].colours))
                if i == 2 and len(stills) == 1 and watchers[0].vision.reader is not None:
                    hand = watchers[0].vision.reader.last
            for w in watchers:
                w.after_ply()
        for w in watchers:
            w.end()
        if kept is not None:
            kept.close()
        seconds = time.perf_counter() - game_began
        for t in tallies.values():
            t.creation_games += created
            t.games += 1
            t.boards[board] = t.boards.get(board, 0) + 1
            t.game_seconds.append(seconds)
        if len(stills) == 2 and stills[0][0].L.shape == stills[1][0].L.shape:
            # The new evidence's cost: stack_changes and stack_growth on two real
            # rectified still frames, one core, as vision runs it (once per stable frame).
            width, height = dimensions(board)
            threads = cv2.getNumThreads()
            cv2.setNumThreads(1)
            try:
                for _ in range(200 // max(1, games) + 1):
                    # This thread's CPU time: the machine may be shared (wall time then
                    # counts other programs' turns too).
                    began = time.thread_time()
                    stack_changes(stills[0][0], stills[1][0], width, height, stills[1][1])
                    stack_growth(stills[0][0], stills[1][0], width, height, stills[1][1])
                    evidence = (time.thread_time() - began) * 1000
                    tallies[modes[0]].evidence_ms.append(evidence)
                    # Once per still run, on its frame before its first stable one: the
                    # way shadows fall, and where the hand pointed (the last hand frame,
                    # and a still one checked after it).
                    began = time.thread_time()
                    shadow_direction(stills[1][0], width, height, stills[1][1])
                    shadow = (time.thread_time() - began) * 1000
                    tallies[modes[0]].shadow_ms.append(shadow)
                    if hand is not None and hand.L.shape == stills[1][0].L.shape:
                        began = time.thread_time()
                        pointed_at([hand, stills[1][0]], stills[1][0])
                        pointed = (time.thread_time() - began) * 1000
                        tallies[modes[0]].pointed_ms.append(pointed)
                        tallies[modes[0]].run_first_ms.append(shadow + pointed)
            finally:
                cv2.setNumThreads(threads)
        if progress:
            t = tallies.get("track")
            print(f"  [{label}: {seconds:.0f} s"
                  + (f", track exact so far {t.exact_games}/{t.games}" if t else "") + "]",
                  file=sys.stderr, flush=True)
    return tallies


def _median_p95(ranked: List[float]) -> str:
    """"median M ms, p95 P ms" of sorted times."""
    return (f"median {statistics.median(ranked):.2f} ms, "
            f"p95 {ranked[int(0.95 * (len(ranked) - 1))]:.2f} ms")


def report_stacking(tally: RenderedTally, mode: str) -> None:
    """Part 2's stacking figures, per mode, with how they were measured."""
    def pct(a, b):
        return f"{100.0 * a / b:.1f}%" if b else "n/a"

    for kind, what in (("setup", "setup"), ("battle", "battle (General creation, King recreation)")):
        n = tally.stack_plies[kind]
        line = (f"stacking plies, {what}: {n}; committed by the camera alone (certain "
                f"MoveCommitted, position the game had): {tally.stack_recognised[kind]}/{n} = "
                f"{pct(tally.stack_recognised[kind], n)}")
        if mode == "track":
            line += f"; uncertain but right: {tally.stack_uncertain_right[kind]}"
        else:
            line += f"; players confirmed: {tally.stack_confirmed[kind]}"
        print(line + f"; wrong commits while it was the last ply: {tally.stack_wrong[kind]}")
    n = sum(tally.stack_plies.values())
    done = sum(tally.stack_recognised.values())
    print(f"stacking plies, all: committed by the camera alone {done}/{n} = {pct(done, n)} "
          f"(target >= 95%)")
    print(f"wrong commits (certain MoveCommitted, a position the game never had): {tally.wrong} "
          f"(target 0): {tally.wrong_first} made from a position the game had (the referee's "
          f"own mistake), {tally.wrong - tally.wrong_first} after the record had already left "
          f"the game (an earlier wrong or uncertain-wrong pick carried on)")
    if mode == "track":
        print(f"uncertain commits (MoveCommitted.uncertain): {tally.uncertain_right + tally.uncertain_wrong}"
              f" (right {tally.uncertain_right} / wrong {tally.uncertain_wrong})")
        print(f"plies left uncertain in the record: {tally.uncertain_right + tally.uncertain_wrong} of "
              f"{tally.recorded} recorded ({tally.plies} played; tokens equal to the game's at "
              f"their ply: {tally.recorded_right}, though after a wrong pick the positions differ)")
        print(f"games track recorded exactly with nobody to ask (every ply's token right, in "
              f"order, after settle()): {tally.exact_games}/{tally.games} = "
              f"{pct(tally.exact_games, tally.games)} (target >= 90%)")
    else:
        print(f"live table: questions (MoveAmbiguous standing when the players looked, "
              f"answered): {tally.questions} in {tally.games} games, mean "
              f"{tally.questions / tally.games if tally.games else float('nan'):.2f} per game")
        if tally.question_ranks:
            ranks = tally.question_ranks
            print(f"live table: questions on a stacking ply: {len(ranks)}; the true move offered "
                  f"first {ranks.count(1)}, second {ranks.count(2)}, third {ranks.count(3)}, later "
                  f"{sum(r > 3 for r in ranks)}, not offered {ranks.count(0)}; cells pointed at: mean "
                  f"{statistics.fmean(tally.question_cells):.1f}, max {max(tally.question_cells)}; "
                  f"the true landings (of the plies the options differ on) among them "
                  f"{tally.question_pointed}")
    if tally.late:
        print(f"certain right commits of an earlier ply, made after the next ply was played "
              f"(an open explanation narrowed later): {tally.late}, plies behind: median "
              f"{statistics.median(tally.late_plies)}, max {max(tally.late_plies)}")
    print(f"games with a battle stacking ply: {tally.creation_games}/{tally.games}")
    if tally.process_ms:
        print(f"processing of the committing frame (vision + referee): median "
              f"{statistics.median(tally.process_ms):.1f} ms, max {max(tally.process_ms):.1f} ms")
    if tally.evidence_ms:
        ranked = sorted(tally.evidence_ms)
        print(f"extra time per stable frame for the new evidence (vision.evidence.stack_changes "
              f"and stack_growth "
              f"on two real rectified still frames, vision.reader.last, with the colours read, one core, CPU time, "
              f"{len(ranked)} calls): {_median_p95(ranked)} (target <= 3 ms; "
              f"it runs only on stable frames)")
    if tally.shadow_ms:
        ranked = sorted(tally.shadow_ms)
        print(f"... and on a still run's frame before its first stable one: the way shadows "
              f"fall (vision.evidence.shadow_direction, the same frames, {len(ranked)} calls): "
              f"{_median_p95(ranked)}")
    if tally.pointed_ms:
        ranked = sorted(tally.pointed_ms)
        first = sorted(tally.run_first_ms)
        print(f"... and where the hand pointed (vision.evidence.pointed_at, the last hand frame "
              f"and a still one against the still frame, {len(ranked)} calls): "
              f"{_median_p95(ranked)}; both on that frame: {_median_p95(first)} (target <= 3 ms)")
    if tally.game_seconds:
        print(f"seconds per rendered game (render + vision + referee, both modes): mean "
              f"{statistics.fmean(tally.game_seconds):.1f}, max {max(tally.game_seconds):.1f}")
    if tally.failures:
        print(f"stacking plies not committed right by the camera alone, and wrong commits "
              f"({len(tally.failures)}):")
        for line in tally.failures[:40]:
            print(f"  {line}")
        if len(tally.failures) > 40:
            print(f"  ... {len(tally.failures) - 40} more")
    print()


def save_tallies(path: str, tallies: Dict[str, Dict[str, RenderedTally]]) -> None:
    import json
    from dataclasses import asdict

    with open(path, "w", encoding="utf-8") as fh:
        json.dump({r: {m: asdict(t) for m, t in per.items()} for r, per in tallies.items()}, fh)


def merge_tallies(paths: List[str]) -> Dict[str, Dict[str, RenderedTally]]:
    """Chunks saved with ``--save`` (e.g. ``--first-game 0`` and ``--first-game 10``) as one."""
    import json

    merged: Dict[str, Dict[str, RenderedTally]] = {}
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        for r, per in data.items():
            for m, fields in per.items():
                t = merged.setdefault(r, {}).setdefault(m, RenderedTally())
                for key, value in fields.items():
                    old = getattr(t, key)
                    if isinstance(value, list):
                        old.extend(value)
                    elif isinstance(value, dict):
                        for k, v in value.items():
                            old[k] = old.get(k, 0) + v
                    else:
                        setattr(t, key, old + value)
    return merged



def report(title: str, tally: Tally, fps: Optional[float]) -> None:
    def pct(a, b):
        return f"{100.0 * a / b:.1f}%" if b else "n/a"

    print(f"== {title} ==")
    boards = ", ".join(f"{n} on {b}" for b, n in sorted(tally.boards.items()))
    print(f"games: {tally.games} ({boards}), plies: {tally.plies}")
    print(f"move recognition (committed by the referee itself, right position): "
          f"{tally.recognised}/{tally.plies} = {pct(tally.recognised, tally.plies)}")
    print(f"plies the players had to confirm (MoveAmbiguous / unreadable): {tally.confirmed}")
    if tally.glare:
        print(f"still periods with one stubbornly misread cell (glare): {tally.glare}; "
              f"reported as unexplained stones on that cell or on the move it hides: "
              f"{tally.glare_reports} (correct: the players confirm the board)")
    print(f"wrong commits: {tally.wrong}")
    codes = ", ".join(f"{k}: {v}" for k, v in sorted(tally.false_codes.items()))
    print(f"false violations / out-of-sync reports: {tally.false_reports}"
          + (f" ({codes})" if codes else ""))
    if tally.injected or fps is not None:
        print(f"injected illegal changes: {tally.injected}, reported: {tally.caught}, "
              f"missed: {tally.injected - tally.caught}")
    print(f"route/order notices (same position, notation uncertain): {tally.route_notices}")
    if tally.delays_frames:
        frames = tally.delays_frames
        print(f"delay still board -> MoveCommitted: frames median {statistics.median(frames)}, "
              f"max {max(frames)}")
        ms = tally.delays_ms
        label = f"at {fps:g} fps incl. processing" if fps else "processing of the committing frame"
        print(f"delay in ms ({label}): median {statistics.median(ms):.1f}, max {max(ms):.1f}")
    def spread(per: List[float]) -> str:
        ranked = sorted(per)
        return (f"mean {statistics.fmean(per):.2f} ms, median {statistics.median(per):.2f} ms, "
                f"p95 {ranked[int(0.95 * (len(ranked) - 1))]:.2f} ms, "
                f"p99 {ranked[int(0.99 * (len(ranked) - 1))]:.2f} ms, max {ranked[-1]:.2f} ms")

    if tally.observe_ms:
        print(f"referee.observe per stable observation ({len(tally.observe_ms)}): "
              f"{spread(tally.observe_ms)}")
    if tally.frame_ms:
        print(f"vision + referee per frame ({len(tally.frame_ms)}): {spread(tally.frame_ms)}")
    if tally.learn_ms:
        print(f"vision learned from {tally.lessons} of {len(tally.learn_ms)} confirmed boards; "
              f"Vision.learn {spread(tally.learn_ms)}")
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=24,
                        help="synthetic games (default 24; 0 skips part 1)")
    parser.add_argument("--rendered", type=int, default=4,
                        help="rendered games per renderer (default 4; the issue asks for 20)")
    parser.add_argument("--first-game", type=int, default=0,
                        help="number of the first rendered game (to split a long run in chunks)")
    parser.add_argument("--renderer", choices=("sim", "unseen", "both"), default="both",
                        help="part 2's renderer: the project's generator (sim), the independent "
                             "one of bench_vision_unseen.py (unseen), or both (default)")
    parser.add_argument("--mode", choices=("players", "track", "both"), default="both",
                        help="part 2's referee: a live table whose players answer, track "
                             "(asking=False, nobody answers, settle() at the end), or both "
                             "(default; the same frames go through one pipeline per mode)")
    parser.add_argument("--track", action="store_true", help="the same as --mode track")
    parser.add_argument("--rendered-plies", type=int, default=20,
                        help="plies per rendered game (default 20: the 10 setup plies and 10 "
                             "battle plies)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="1280x960",
                        help="rendered frame size (default 1280x960, the table's camera mode)")
    parser.add_argument("--mount", choices=tuple(MOUNTS), default="drawn",
                        help="the generator's camera mount: each scene's own small tilt and "
                             "offset (drawn, the default), straight down over the middle, aimed "
                             "45%% of the half-board off the middle (offset), or tilted 12 degrees")
    parser.add_argument("--hands", choices=tuple(HANDS), default="over",
                        help="how the generator's hands are last seen before the board is still: "
                             "over the landing (the default) or pulling back from it (withdrawing)")
    parser.add_argument("--setup", choices=SETUPS, default="still",
                        help="how the setup is played: a still board after every ply (still, "
                             "the default) or each of Red's setup plies and Black's next one "
                             "without a still board between (paired)")
    parser.add_argument("--fps", type=float, default=10.0, help="camera frame rate for ms figures")
    parser.add_argument("--save", metavar="FILE", help="also write part 2's tallies as JSON")
    parser.add_argument("--frames", metavar="DIR",
                        help="keep part 2's rendered frames in DIR (lossless PNG) and read "
                             "them from there when a game was rendered before")
    parser.add_argument("--merge", nargs="+", metavar="FILE",
                        help="only report the part 2 tallies of these --save files together")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    if args.merge:
        for renderer, per in merge_tallies(args.merge).items():
            for mode, rtally in per.items():
                report_part2(renderer, mode, rtally, args.fps)
        return 0
    if args.games:
        began = time.perf_counter()
        tally = synthetic(args.games, args.seed, args.fps)
        report("Part 1: synthetic observations from ground truth with camera noise", tally, args.fps)
        print(f"(part 1 took {time.perf_counter() - began:.1f} s)\n")
    if args.rendered:
        renderers = ("sim", "unseen") if args.renderer == "both" else (args.renderer,)
        mode = "track" if args.track else args.mode
        modes = MODES if mode == "both" else (mode,)
        results: Dict[str, Dict[str, RenderedTally]] = {}
        for renderer in renderers:
            began = time.perf_counter()
            try:
                per = rendered(args.rendered, args.seed, args.rendered_plies, size, renderer,
                               args.first_game, args.fps, modes, progress=True,
                               cache=args.frames, mount=args.mount, hands=args.hands,
                               setup=args.setup)
            except Exception as error:   # the vision pipeline is a separate stage; say why
                print(f"== Part 2 ({renderer}): rendered frames through vision: not run "
                      f"({type(error).__name__}: {error}) ==")
                continue
            results[renderer] = per
            for m, rtally in per.items():
                report_part2(renderer, m, rtally, args.fps)
            print(f"(part 2, {renderer}: games {args.first_game}..{args.first_game + args.rendered - 1}"
                  f", took {time.perf_counter() - began:.1f} s)\n")
        if args.save and results:
            save_tallies(args.save, results)
    return 0


RENDERERS = {"sim": "frames rendered with fenix_tools.sim (the project's generator, tuned on)",
             "unseen": "frames rendered with bench_vision_unseen's independent renderer "
                       "(never tuned on)"}
MODE_NAMES = {"players": "live table: simulated players answer what the referee asks",
              "track": "track: Referee(asking=False), nobody to ask, settle() at the end"}


def report_part2(renderer: str, mode: str, rtally: RenderedTally, fps: float) -> None:
    report(f"Part 2 [{renderer} / {mode}]: {RENDERERS[renderer]}, read by fenix_table.vision; "
           f"{MODE_NAMES[mode]}", rtally, fps)
    report_stacking(rtally, mode)


if __name__ == "__main__":
    sys.exit(main())

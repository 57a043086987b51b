"""Alpha-beta search over the rules engine's moves.

Negamax with iterative deepening, a transposition table keyed by Zobrist hashes (made
incrementally from each move), killer and history move ordering, and a capture search
at the horizon. Captures are compulsory in FENIX, so the horizon search has no "stand
pat": a side that must capture captures, and the position is only scored once neither
a capture nor a King recreation is pending. A single legal move does not use up depth.

Repetition and the no-capture limit are scored as the rules end the game: a position met
again is scored as a draw (the third occurrence, with ``repetition=repeater_loses``, as a
loss for the player who made it), a clock at the limit a draw, and scores shrink towards
it over the limit's second half.
"""
from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from ..rules import Move, Position, Rules, legal_moves
from ..rules.movegen import capture_candidates, play
from .evaluate import WEIGHTS, WIN, evaluate

#: Scores above this are wins found by the search (a win in n plies scores WIN - n).
WIN_BOUND = WIN - 1000
_EXACT, _LOWER, _UPPER = 0, 1, 2
_QUIESCENCE_PLIES = 8
_TT_LIMIT = 1 << 18
#: Setup moves searched per position inside the tree (all are searched at the root).
SETUP_BEAM = 8


class _Timeout(Exception):
    pass


# ---------------------------------------------------------------------------------
# Zobrist keys
# ---------------------------------------------------------------------------------

class Zobrist:
    """Random 64-bit numbers for one board face: per cell and stack (``-3..3``, indexed
    the Python way so a list of 7 covers both colours), side, setup counters and duty.
    Two positions with equal :meth:`Position.key` get equal keys (the clock is left out
    as repetition leaves it out)."""

    def __init__(self, n: int, seed: int = 0x5EED) -> None:
        rng = random.Random(seed)
        bits = lambda: rng.getrandbits(64)  # noqa: E731
        self.cells = [[bits() for _ in range(7)] for _ in range(n)]
        self.black = bits()
        self.setup = {(a, b): bits() for a in range(6) for b in range(6)}
        self.duty = {"-": 0, "K": bits(), "G": bits()}

    def key(self, pos: Position) -> int:
        z = self.cells
        key = self.setup[pos.setup] ^ self.duty[pos.duty]
        if pos.turn < 0:
            key ^= self.black
        for i, v in enumerate(pos.board):
            if v:
                key ^= z[i][v]
        return key

    def after(self, key: int, pos: Position, move: Move, child: Position) -> int:
        """The key of ``child = play(pos, move)`` from ``pos``'s key."""
        z = self.cells
        board = pos.board
        frm, to = move.frm, move.to
        v = board[frm]
        if move.stacking:
            old = board[to]
            key ^= z[frm][v] ^ z[to][old] ^ z[to][old + (1 if old > 0 else -1)]
        else:
            key ^= z[frm][v] ^ z[to][v]
            for j in move.jumped:
                key ^= z[j][board[j]]
        key ^= self.black
        if pos.setup != child.setup:
            key ^= self.setup[pos.setup] ^ self.setup[child.setup]
        if pos.duty != child.duty:
            key ^= self.duty[pos.duty] ^ self.duty[child.duty]
        return key


_ZOBRIST: Dict[int, Zobrist] = {}


def zobrist(pos: Position) -> Zobrist:
    z = _ZOBRIST.get(pos.geo.n)
    if z is None:
        z = _ZOBRIST[pos.geo.n] = Zobrist(pos.geo.n)
    return z


# ---------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------

@dataclass
class Analysis:
    """What a search found: the best move, its score (hundredths of a stone, the side to
    move's view; ``±(WIN - n)`` for a forced win or loss in n plies), the expected line,
    the scores of the root moves searched at the last depth, and the effort spent."""

    move: Move
    score: int
    line: List[Move]
    depth: int
    nodes: int
    seconds: float
    root_scores: Dict[str, int] = field(default_factory=dict)

    @property
    def mate_in(self) -> Optional[int]:
        """Plies to a forced end of the game (positive: the side to move wins)."""
        if self.score >= WIN_BOUND:
            return WIN - self.score
        if self.score <= -WIN_BOUND:
            return -(WIN + self.score)
        return None


class Searcher:
    """A search under one set of rules and evaluation weights. Reusable: the
    transposition table and the ordering tables carry over between searches (cleared
    when the board face changes)."""

    def __init__(self, rules: Rules, weights: Dict[str, int] = WEIGHTS, *,
                 quiescence: bool = True, transposition: bool = True) -> None:
        self.rules = rules
        self.weights = weights
        self.quiescence = quiescence
        self.transposition = transposition
        self.tt: Dict[int, Tuple[int, int, int, Optional[str]]] = {}
        self.history: Dict[str, int] = {}
        self.evals: Dict[int, int] = {}
        self.killers: Dict[int, List[str]] = {}
        self.nodes = 0
        self._size = None
        self._deadline = float("inf")
        self._seen: Counter = Counter()
        self._zob: Optional[Zobrist] = None

    # -- public -------------------------------------------------------------------
    def search(self, pos: Position, *, max_depth: Optional[int] = None,
               movetime: Optional[float] = 0.4, history: Iterable[Position] = (),
               noise: int = 0, rng: Optional[random.Random] = None,
               progress=None) -> Analysis:
        """The best move in ``pos`` (which must have one) within ``movetime`` seconds
        (None: no limit, then ``max_depth`` is required) and ``max_depth`` plies.

        ``history``: earlier positions of the game (for repetition). ``noise``: each root
        move's score gets a uniform random bonus below ``noise`` before the best is
        taken (the lower levels). ``progress(depth, analysis)`` is called after each
        completed depth."""
        if movetime is None and max_depth is None:
            raise ValueError("a search needs a time or a depth limit")
        started = time.perf_counter()
        # A margin for what follows the last node (the line, the caller's bookkeeping).
        self._deadline = started + movetime * 0.95 - 0.003 if movetime is not None \
            else float("inf")
        if pos.size != self._size:
            self.tt.clear()
            self.evals.clear()
            self.history.clear()
            self._size = pos.size
        self.killers.clear()
        self.nodes = 0
        self._zob = zob = zobrist(pos)
        root_key = zob.key(pos)
        self._seen = Counter(zob.key(p) for p in history)
        self._seen[root_key] += 1
        moves = legal_moves(pos, self.rules)
        if not moves:
            raise ValueError("no legal move: the game is over")
        rng = rng or random.Random()
        if not pos.in_setup:   # in setup the first depth orders them, by evaluation
            moves = self._order(pos, moves, self.tt.get(self._table_key(pos, root_key)), 0)
        best = Analysis(moves[0], 0, [moves[0]], 0, 0, 0.0)
        if len(moves) == 1 and noise == 0:
            # Nothing to choose: still score it briefly for the caller.
            max_depth = min(max_depth or 2, 2)
        depth = 0
        limit = max_depth if max_depth is not None else 64
        while depth < limit:
            depth += 1
            score, move, scores, complete = self._root(pos, root_key, moves, depth, noise > 0)
            if not scores or (not complete and noise and best.depth):
                break   # a noisy level picks among fully searched moves only
            if not complete and best.depth:
                scores = best.root_scores   # the last complete depth's scores stand
            if noise:
                noisy = {t: s + rng.randrange(noise) for t, s in scores.items()}
                token = max(noisy, key=noisy.get)
                move = next(m for m in moves if m.token == token)
                score = scores[token]
            moves.sort(key=lambda m: -scores.get(m.token, -WIN * 2))
            best = Analysis(move, score, self._line(pos, root_key, move),
                            depth if complete else depth - 1, self.nodes,
                            time.perf_counter() - started, scores)
            if progress is not None:
                progress(depth, best)
            if not complete or (abs(score) >= WIN_BOUND and not noise):
                break   # out of time, or a forced end deeper search cannot change
        best.nodes = self.nodes
        best.seconds = time.perf_counter() - started
        return best

    # -- the tree -----------------------------------------------------------------
    def _root(self, pos: Position, key: int, moves: List[Move], depth: int, exact: bool):
        alpha, beta = -WIN * 2, WIN * 2
        best_move = moves[0]
        scores: Dict[str, int] = {}
        zob = self._zob
        for move in moves:
            child = play(pos, move)
            ckey = zob.after(key, pos, move, child)
            self._seen[ckey] += 1
            try:
                low = -WIN * 2 if exact else alpha
                score = -self._negamax(child, ckey, depth - 1, -beta, -low, 1, 0)
            except _Timeout:
                # The moves searched so far keep their scores: a later move that beat the
                # first is truly better, so the partial result stands.
                return alpha, best_move, scores, False
            finally:
                self._seen[ckey] -= 1
            scores[move.token] = score
            if score > alpha:
                alpha, best_move = score, move
            if time.perf_counter() > self._deadline:
                return alpha, best_move, scores, False
        self._store(self._table_key(pos, key), depth, _EXACT, alpha, best_move.token)
        return alpha, best_move, scores, True

    def _negamax(self, pos: Position, key: int, depth: int, alpha: int, beta: int,
                 ply: int, qply: int) -> int:
        self.nodes += 1
        if not self.nodes & 31 and time.perf_counter() > self._deadline:
            raise _Timeout
        rules = self.rules
        seen = self._seen[key]
        if seen >= 2 and rules.repetition != "off":
            if seen >= 3 and rules.repetition == "repeater_loses":
                return WIN - ply   # the player who just moved made the third occurrence
            # A position met again is scored as the draw it heads for: the side that is
            # ahead then looks for progress instead of going round in circles.
            return 0
        if depth <= 0 and (pos.in_setup or (pos.duty != "K" and not capture_candidates(pos))):
            # Quiet: nothing is forced (the bitboard pre-check saves generating moves).
            return self._evaluate(pos, key)
        moves = legal_moves(pos, rules)
        if not moves:
            if pos.duty != "K" and rules.no_move == "draw":
                return 0
            return -(WIN - ply)
        limit = rules.no_capture_limit
        if limit and pos.clock >= limit:
            return 0
        forcing = moves[0].is_capture or pos.duty == "K"
        if depth <= 0:
            if not forcing or not self.quiescence or qply >= _QUIESCENCE_PLIES:
                return self._evaluate(pos, key)
            qply += 1
        tkey = self._table_key(pos, key)
        entry = self.tt.get(tkey) if self.transposition else None
        if entry is not None and entry[0] >= depth:
            _, flag, value, _ = entry
            if flag == _EXACT:
                return value
            if flag == _LOWER and value >= beta:
                return value
            if flag == _UPPER and value <= alpha:
                return value
        # One legal move is no choice: do not let it use up the depth.
        next_depth = depth if len(moves) == 1 else depth - 1
        if pos.in_setup:
            moves = self._setup_candidates(pos, moves, entry)
        elif len(moves) > 1:
            moves = self._order(pos, moves, entry, ply)
        start_alpha = alpha
        best, best_token = -WIN * 2, None
        zob = self._zob
        seen_counter = self._seen
        for move in moves:
            child = play(pos, move)
            ckey = zob.after(key, pos, move, child)
            seen_counter[ckey] += 1
            try:
                score = -self._negamax(child, ckey, next_depth, -beta, -alpha, ply + 1, qply)
            finally:
                seen_counter[ckey] -= 1
            if score > best:
                best, best_token = score, move.token
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not move.is_capture:
                            killers = self.killers.setdefault(ply, [])
                            if move.token not in killers:
                                killers.insert(0, move.token)
                                del killers[2:]
                            self.history[move.token] = self.history.get(move.token, 0) + \
                                depth * depth
                        break
        flag = _EXACT if start_alpha < best < beta else (_LOWER if best >= beta else _UPPER)
        self._store(tkey, depth, flag, best, best_token)
        return best

    def _table_key(self, pos: Position, key: int) -> int:
        """The transposition table's key: the position's, and in the no-capture limit's
        second half (where scores shrink with the clock) the clock's too."""
        limit = self.rules.no_capture_limit
        if limit and pos.clock * 2 > limit:
            return key ^ (pos.clock * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF)
        return key

    def _evaluate(self, pos: Position, key: int) -> int:
        """The evaluation, remembered by key (iterative deepening meets the same leaves
        again; the evaluation does not read the clock, which the key leaves out).

        In the second half of the no-capture limit the score shrinks towards the draw
        the limit will declare, so the side that is ahead captures before it comes."""
        value = self.evals.get(key)
        if value is None:
            if len(self.evals) >= _TT_LIMIT:
                self.evals.clear()
            value = self.evals[key] = evaluate(pos, self.rules, self.weights)
        limit = self.rules.no_capture_limit
        if limit and pos.clock * 2 > limit:
            value = value * 2 * (limit - pos.clock) // limit
        return value

    def _store(self, key, depth, flag, value, token) -> None:
        if not self.transposition:
            return
        tt = self.tt
        if len(tt) >= _TT_LIMIT:
            tt.clear()
        old = tt.get(key)
        if old is None or old[0] <= depth:
            tt[key] = (depth, flag, value, token)

    def _setup_candidates(self, pos: Position, moves: List[Move], entry,
                          beam: int = SETUP_BEAM) -> List[Move]:
        """The setup moves worth searching inside the tree: up to 756 stackings are
        possible on 9x9, so only the ``beam`` best by the evaluation of the position they
        leave (and the table's move) are searched; all are legal moves of ``pos``."""
        rules, weights = self.rules, self.weights
        deadline = self._deadline

        def score(move: Move) -> int:
            # Hundreds of evaluations: the clock is looked at here too.
            if time.perf_counter() > deadline:
                raise _Timeout
            return evaluate(play(pos, move), rules, weights)

        scored = sorted(moves, key=score)
        kept = scored[:beam]
        first = entry[3] if entry is not None else None
        if first is not None:
            for move in moves:
                if move.token == first:
                    kept = [move] + [m for m in kept if m.token != first]
                    break
        return kept

    def _order(self, pos: Position, moves: List[Move], entry, ply: int) -> List[Move]:
        """Transposition-table move first, then captures taking Generals and Kings,
        killers, then by history."""
        first = entry[3] if entry is not None else None
        killers = self.killers.get(ply, ())
        history = self.history
        board = pos.board

        def rank(move: Move) -> int:
            token = move.token
            if token == first:
                return -10_000_000
            if move.jumped:
                # Bigger pieces taken first; the maximum rule makes the totals equal.
                return -1_000_000 - sum(abs(board[j]) ** 2 for j in move.jumped)
            if token in killers:
                return -500_000
            return -history.get(token, 0)

        return sorted(moves, key=rank)

    def _line(self, pos: Position, key: int, first: Move, length: int = 12) -> List[Move]:
        """The expected line: ``first``, then the table's best moves while they are legal."""
        line = [first]
        zob = self._zob
        seen = {key}
        child = play(pos, first)
        key = zob.after(key, pos, first, child)
        pos = child
        while len(line) < length and key not in seen:
            seen.add(key)
            entry = self.tt.get(self._table_key(pos, key))
            if entry is None or entry[3] is None:
                break
            move = next((m for m in legal_moves(pos, self.rules) if m.token == entry[3]), None)
            if move is None:
                break
            line.append(move)
            child = play(pos, move)
            key = zob.after(key, pos, move, child)
            pos = child
        return line


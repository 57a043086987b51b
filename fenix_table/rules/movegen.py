"""Moves, legal-move generation and applying a move.

Generation works on bitboards: soldier steps come from shifted masks and per-rank
lookup tables of ready-made :class:`Move` objects, General slides from ray masks, and
captures are searched (depth first, jumped pieces staying on the board) only from the
pieces that a bitboard pre-check shows can capture at all.
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Sequence, Tuple

from ..errors import IllegalMoveError, NotationError
from .geometry import Geometry, bits_of
from .options import OFFICIAL, Rules
from .position import RED, Position

_OPPOSITE = (2, 3, 0, 1, 6, 7, 4, 5)


class Move:
    """An immutable move: ``token`` is its notation (``b1-c1``, ``c3xc5xe5``).

    ``path`` holds the start cell and every landing cell, ``captured`` the jumped cells in
    order, ``stacking`` is True when a soldier is put on top of an own piece (setup, King
    or General creation). Two moves are equal exactly when their tokens are equal.
    """

    __slots__ = ("token", "path", "captured", "stacking", "frm", "to", "jumped", "value")

    def __init__(self, geo: Geometry, path: Sequence[int], jumped: Sequence[int] = (),
                 stacking: bool = False, value: int = 0) -> None:
        names = geo.names
        self.frm = path[0]
        self.to = path[-1]
        self.jumped = tuple(jumped)
        self.path = tuple(names[i] for i in path)
        self.captured = tuple(names[i] for i in jumped)
        self.stacking = stacking
        self.value = value
        self.token = ("x" if jumped else "-").join(self.path)

    @property
    def is_capture(self) -> bool:
        return bool(self.jumped)

    @property
    def from_cell(self) -> str:
        return self.path[0]

    @property
    def to_cell(self) -> str:
        return self.path[-1]

    def __eq__(self, other) -> bool:
        if isinstance(other, Move):
            return self.token == other.token
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.token)

    def __lt__(self, other: "Move") -> bool:
        return self.token < other.token

    def __str__(self) -> str:
        return self.token

    def __repr__(self) -> str:
        return f"<Move {self.token}>"


def parse_token(token: str, geo: Geometry) -> Tuple[Tuple[int, ...], bool]:
    """Syntax of a move token: ``(cell indices, is_capture)``; NotationError if malformed."""
    if not isinstance(token, str) or not token:
        raise NotationError("empty move token")
    token = token.strip()
    if "-" in token and "x" in token:
        raise NotationError(f"move token {token!r} mixes '-' and 'x'")
    if "-" in token:
        parts = token.split("-")
        if len(parts) != 2:
            raise NotationError(f"move token {token!r}: a plain move is from-to")
        capture = False
    elif "x" in token:
        parts = token.split("x")
        capture = True
    else:
        raise NotationError(f"move token {token!r}: expected from-to or from x to [x to ...]")
    cells = []
    for part in parts:
        if not part:
            raise NotationError(f"move token {token!r}: missing cell")
        if part not in geo.index:
            raise NotationError(f"move token {token!r}: unknown cell {part!r} on {geo.size}")
        cells.append(geo.index[part])
    return tuple(cells), capture


class _Tables:
    """Ready-made move objects for one board side, built on first use."""

    def __init__(self, geo: Geometry) -> None:
        self.geo = geo
        w, h = geo.width, geo.height
        self.row_mask = (1 << w) - 1
        self.steps: Dict[Tuple[int, int], Move] = {}
        self.stacks: Dict[Tuple[int, int], Move] = {}
        # Soldier steps: per orthogonal direction and rank, target-row pattern -> moves.
        self.soldier_rows: List[List[List[Tuple[Move, ...]]]] = []
        for d in range(4):
            back = geo.step[_OPPOSITE[d]]
            per_rank = []
            for r in range(h):
                patterns = []
                for p in range(1 << w):
                    moves = []
                    for f in range(w):
                        to = r * w + f
                        # Patterns with cells no soldier can step to never occur; skip them.
                        if p >> f & 1 and back[to] >= 0:
                            moves.append(self.step(back[to], to))
                    patterns.append(tuple(moves))
                per_rank.append(patterns)
            self.soldier_rows.append(per_rank)
        # Capture pre-check masks per direction d: (cells whose neighbour towards d may be
        # shifted back, cells two steps away likewise, shift of one step, of two steps).
        # Directions whose delta is positive shift down (>>), the others up (<<); the
        # orthogonal ones come first in each list.
        self.jumps_down, self.jumps_up = [], []
        for d in range(8):
            o = _OPPOSITE[d]
            m1 = sum(1 << j for j in range(geo.n) if geo.step[o][j] >= 0)
            m2 = sum(1 << j for j in range(geo.n)
                     if geo.step[o][j] >= 0 and geo.step[o][geo.step[o][j]] >= 0)
            delta = abs(geo.delta[d])
            entry = (m1, m2, delta, 2 * delta)
            (self.jumps_down if geo.delta[d] > 0 else self.jumps_up).append(entry)
        # General slides: ray masks and the moves along each ray, nearest first.
        self.ray_mask = [[sum(1 << j for j in geo.ray[d][i]) for i in range(geo.n)]
                         for d in range(4)]
        self.ray_moves = [[tuple(self.step(i, j) for j in geo.ray[d][i]) for i in range(geo.n)]
                          for d in range(4)]

    def step(self, frm: int, to: int) -> Move:
        move = self.steps.get((frm, to))
        if move is None:
            move = self.steps[(frm, to)] = Move(self.geo, (frm, to))
        return move

    def stack(self, frm: int, to: int) -> Move:
        move = self.stacks.get((frm, to))
        if move is None:
            move = self.stacks[(frm, to)] = Move(self.geo, (frm, to), stacking=True)
        return move


_TABLES: Dict[str, _Tables] = {}


def tables(geo: Geometry) -> _Tables:
    t = _TABLES.get(geo.size)
    if t is None:
        t = _TABLES[geo.size] = _Tables(geo)
    return t


# ---------------------------------------------------------------------------------
# Captures
# ---------------------------------------------------------------------------------

def capture_candidates(pos: Position) -> int:
    """Bitboard of the side to move's pieces that have at least one capture."""
    geo = pos.geo
    t = tables(geo)
    own, enemy = pos.own, pos.enemy
    empty = ~(own | enemy) & geo.full
    cand = 0
    # A stepper on i captures towards d when i+d holds an enemy and i+2d is empty: shift
    # the enemy and empty masks back onto i (one and two steps) and intersect.
    steppers = own & (pos.soldiers | pos.kings)
    if steppers:
        for m1, m2, s1, s2 in t.jumps_down[:2]:
            cand |= steppers & (enemy & m1) >> s1 & (empty & m2) >> s2
        for m1, m2, s1, s2 in t.jumps_up[:2]:
            cand |= steppers & (enemy & m1) << s1 & (empty & m2) << s2
    kings = own & pos.kings
    if kings:
        for m1, m2, s1, s2 in t.jumps_down[2:]:
            cand |= kings & (enemy & m1) >> s1 & (empty & m2) >> s2
        for m1, m2, s1, s2 in t.jumps_up[2:]:
            cand |= kings & (enemy & m1) << s1 & (empty & m2) << s2
    generals = own & pos.generals
    if generals:
        occ = own | enemy
        step = geo.step
        ray_mask = t.ray_mask
        for i in bits_of(generals):
            for d in range(4):
                blockers = occ & ray_mask[d][i]
                if blockers:
                    if d < 2:  # north and east walk towards higher indices
                        b = (blockers & -blockers).bit_length() - 1
                    else:
                        b = blockers.bit_length() - 1
                    if enemy >> b & 1:
                        beyond = step[d][b]
                        if beyond >= 0 and empty >> beyond & 1:
                            cand |= 1 << i
                            break
    return cand


def piece_chains(pos: Position, start: int) -> List[Tuple[Tuple[int, ...], Tuple[int, ...], int]]:
    """Every complete capture sequence of the piece on ``start``: ``(path, jumped, value)``.

    Jumped pieces stay on the board until the turn ends (they block and cannot be jumped
    twice); the start cell counts as empty. A sequence ends only where no capture is left.
    """
    board = pos.board
    geo = pos.geo
    step = geo.step
    v = board[start]
    me = 1 if v > 0 else -1
    height = v * me
    results = []

    def hops(cur: int, jumped_mask: int):
        if height == 2:
            rays = geo.ray
            for d in range(4):
                ray = rays[d][cur]
                k = 0
                # Slide over empty cells to the first piece on the line.
                while k < len(ray) and (board[ray[k]] == 0 or ray[k] == start):
                    k += 1
                if k == len(ray):
                    continue
                victim = ray[k]
                if board[victim] * me >= 0 or jumped_mask >> victim & 1:
                    continue
                k += 1
                while k < len(ray) and (board[ray[k]] == 0 or ray[k] == start):
                    yield ray[k], victim
                    k += 1
        else:
            for d in (range(8) if height == 3 else range(4)):
                victim = step[d][cur]
                if victim < 0 or board[victim] * me >= 0 or jumped_mask >> victim & 1:
                    continue
                land = step[d][victim]
                if land >= 0 and (board[land] == 0 or land == start):
                    yield land, victim

    def search(cur, path, jumped, jumped_mask, value):
        extended = False
        for land, victim in hops(cur, jumped_mask):
            extended = True
            jumped.append(victim)
            path.append(land)
            search(land, path, jumped, jumped_mask | 1 << victim, value + abs(board[victim]))
            path.pop()
            jumped.pop()
        if not extended and jumped:
            results.append((tuple(path), tuple(jumped), value))

    search(start, [start], [], 0, 0)
    return results


def captures(pos: Position) -> List[Move]:
    """The side to move's captures that satisfy the maximum rule ([] when none)."""
    cand = capture_candidates(pos)
    if not cand:
        return []
    geo = pos.geo
    best = 0
    found = []
    for i in bits_of(cand):
        for path, jumped, value in piece_chains(pos, i):
            if value > best:
                best = value
                found = [(path, jumped, value)]
            elif value == best:
                found.append((path, jumped, value))
    moves = {}
    for path, jumped, value in found:
        move = Move(geo, path, jumped, value=value)
        moves.setdefault(move.token, move)
    return list(moves.values())


# ---------------------------------------------------------------------------------
# Non-capturing moves
# ---------------------------------------------------------------------------------

def ordinary_moves(pos: Position) -> List[Move]:
    """Soldier steps, General slides and King steps (no captures, no stacking)."""
    geo = pos.geo
    t = tables(geo)
    own = pos.own
    occ = own | pos.enemy
    empty = ~occ & geo.full
    out: List[Move] = []
    soldiers = own & pos.soldiers
    if soldiers:
        w = geo.width
        row_mask = t.row_mask
        can_step = geo.can_step
        for d, delta in ((0, w), (1, 1), (2, -w), (3, -1)):
            moved = soldiers & can_step[d]
            targets = (moved << delta if delta > 0 else moved >> -delta) & empty
            if targets:
                rows = t.soldier_rows[d]
                r = 0
                while targets:
                    p = targets & row_mask
                    if p:
                        out.extend(rows[r][p])
                    targets >>= w
                    r += 1
    generals = own & pos.generals
    if generals:
        ray_mask, ray_moves = t.ray_mask, t.ray_moves
        w = geo.width
        for i in bits_of(generals):
            for d in range(4):
                blockers = occ & ray_mask[d][i]
                if not blockers:
                    out.extend(ray_moves[d][i])
                    continue
                if d == 0:
                    b = (blockers & -blockers).bit_length() - 1
                    k = (b - i) // w - 1
                elif d == 1:
                    b = (blockers & -blockers).bit_length() - 1
                    k = b - i - 1
                elif d == 2:
                    k = (i - (blockers.bit_length() - 1)) // w - 1
                else:
                    k = i - blockers.bit_length()
                if k:
                    out.extend(ray_moves[d][i][:k])
    kings = own & pos.kings
    if kings:
        i = kings.bit_length() - 1
        step = t.step
        for n in geo.neighbours8[i]:
            if empty >> n & 1:
                out.append(step(i, n))
    return out


def _reach(geo: Geometry, reach: str, target: int) -> int:
    """Cells a soldier may come from to stack on ``target`` under a reach option."""
    if reach == "orthogonal":
        return sum(1 << n for n in geo.neighbours4[target])
    if reach == "neighbour":
        return sum(1 << n for n in geo.neighbours8[target])
    return geo.full & ~(1 << target)


def stacking_moves(pos: Position, onto: int, reach: str) -> List[Move]:
    """Own soldiers put on any own piece in the bitboard ``onto``, under ``reach``."""
    geo = pos.geo
    t = tables(geo)
    soldiers = pos.own & pos.soldiers
    out = []
    for target in bits_of(onto):
        for frm in bits_of(soldiers & _reach(geo, reach, target)):
            out.append(t.stack(frm, target))
    return out


def setup_moves(pos: Position, rules: Rules) -> List[Move]:
    own = pos.own
    kings = (own & pos.kings).bit_count()
    generals = (own & pos.generals).bit_count()
    onto = 0
    if generals + kings < 4:
        onto |= own & pos.soldiers
    if kings == 0:
        onto |= own & pos.generals
    reach = "orthogonal" if rules.setup_reach == "orthogonal" else "anywhere"
    return stacking_moves(pos, onto, reach)


def legal_moves(pos: Position, rules: Rules = OFFICIAL) -> List[Move]:
    """All legal moves of the side to move (unordered; sort tokens for display).

    The list never depends on history or the clock. An empty list in battle means the
    side to move has lost (or drawn with ``no_move=draw``); see ``Game.status``.
    """
    if pos.setup != (5, 5):
        return setup_moves(pos, rules)
    duty = pos.duty
    if duty == "K":
        recreate = stacking_moves(pos, pos.own & pos.generals, rules.king_reach)
        if rules.king_first:
            return recreate
        return captures(pos) or recreate
    caps = captures(pos)
    if duty == "G":
        create = stacking_moves(pos, pos.own & pos.soldiers, rules.general_reach)
        if caps:
            return caps + create if rules.general_vs_capture == "free" else caps
        return ordinary_moves(pos) + create
    return caps or ordinary_moves(pos)


# ---------------------------------------------------------------------------------
# Applying moves
# ---------------------------------------------------------------------------------

def play(pos: Position, move: Move) -> Position:
    """The position after ``move``, which must be legal in ``pos`` (not checked here)."""
    board = list(pos.board)
    red, black, s, g, k = pos.red, pos.black, pos.soldiers, pos.generals, pos.kings
    frm, to = move.frm, move.to
    v = board[frm]
    fbit, tbit = 1 << frm, 1 << to
    opp_generals_lost = False
    if move.stacking:
        board[frm] = 0
        old = board[to]
        board[to] = old + (1 if old > 0 else -1)
        s &= ~fbit
        if v > 0:
            red &= ~fbit
        else:
            black &= ~fbit
        if abs(old) == 1:
            s &= ~tbit
            g |= tbit
        else:
            g &= ~tbit
            k |= tbit
    else:
        board[frm] = 0
        board[to] = v
        h = abs(v)
        if v > 0:
            red = (red & ~fbit) | tbit
        else:
            black = (black & ~fbit) | tbit
        if h == 1:
            s = (s & ~fbit) | tbit
        elif h == 2:
            g = (g & ~fbit) | tbit
        else:
            k = (k & ~fbit) | tbit
        for j in move.jumped:
            if abs(board[j]) == 2:
                opp_generals_lost = True
            board[j] = 0
            clear = ~(1 << j)
            red &= clear
            black &= clear
            s &= clear
            g &= clear
            k &= clear
    turn = -pos.turn
    if pos.setup != (5, 5):
        setup = (pos.setup[0] + 1, pos.setup[1]) if pos.turn == RED else \
            (pos.setup[0], pos.setup[1] + 1)
        duty, clock = "-", 0
    else:
        setup = pos.setup
        clock = 0 if move.jumped else pos.clock + 1
        opp = red if turn == RED else black
        if not opp & k:
            duty = "K"
        elif opp_generals_lost:
            duty = "G"
        else:
            duty = "-"
    return Position(pos.geo, tuple(board), turn, setup, duty, clock, (red, black, s, g, k))


def position_after_turn(pos: Position, stacks: Mapping[str, Tuple[str, int]]) -> Position:
    """The position after one turn of ``pos.side``, legal or not, that left ``stacks``
    (``{cell: (colour, height)}``, as :meth:`Position.stacks` returns) on the board.

    The counters move on as after a move: during setup the mover's setup counter; in
    battle the clock (back to 0 when the opponent lost stones, else one more) and the
    opponent's duty: K when they have no King, G when they lost a General. Raises
    :class:`IllegalMoveError` naming what makes the result impossible: more stones of a
    side than before, or a board no position can have (a stack of 4, ...).

    >>> start = Position.start("7x8")
    >>> stacks = start.stacks()
    >>> stacks["b1"] = ("red", 2); del stacks["a1"]
    >>> position_after_turn(start, stacks) == apply(start, "a1-b1")
    True
    """
    before = pos.stacks()
    for side in ("red", "black"):
        was = sum(h for c, h in before.values() if c == side)
        now = sum(h for c, h in stacks.values() if c == side)
        if now > was:
            raise IllegalMoveError(f"there are more {side} stones on the board ({now}) than "
                                   f"before ({was})")
    other = "black" if pos.turn == RED else "red"
    setup, duty, clock = pos.setup, "-", 0
    if pos.in_setup:
        setup = (setup[0] + 1, setup[1]) if pos.turn == RED else (setup[0], setup[1] + 1)
    else:
        lost = pos.stones(other) > sum(h for c, h in stacks.values() if c == other)
        clock = 0 if lost else pos.clock + 1
        if (other, 3) not in stacks.values():
            duty = "K"
        elif pos.count(other, 2) > sum(1 for piece in stacks.values() if piece == (other, 2)):
            duty = "G"
    try:
        return Position.from_placement(pos.size, stacks, other, setup=setup, duty=duty,
                                       clock=clock)
    except NotationError as error:
        raise IllegalMoveError(f"the board is not a possible position: {error}") from None


def find_move(pos: Position, move, rules: Rules = OFFICIAL) -> Move:
    """The legal move matching a token or Move; IllegalMoveError (with the reason) if none."""
    token = move.token if isinstance(move, Move) else move
    parse_token(token, pos.geo)  # NotationError for malformed text
    for legal in legal_moves(pos, rules):
        if legal.token == token:
            return legal
    from .explain import explain
    raise IllegalMoveError(f"{token}: {explain(pos, token, rules).text}")


def apply(pos: Position, move, rules: Rules = OFFICIAL) -> Position:
    """The position after a legal move (token or Move); raises IllegalMoveError otherwise."""
    return play(pos, find_move(pos, move, rules))

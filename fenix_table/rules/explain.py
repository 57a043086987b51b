"""Why a move is illegal, in words a player understands.

``explain(position, attempted)`` takes what a player actually did — a move token, a
``(from_cell, to_cell)`` pair, or the placement seen on the board afterwards — and returns
an :class:`Explanation`: a reason code from :data:`~fenix_table.rules.messages.MESSAGES`,
the cells and moves it refers to, and the English sentence. The most important rule wins:
a missed compulsory capture is reported as such even if the piece also moved wrongly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .messages import render
from .movegen import Move, legal_moves, parse_token, piece_chains, play
from .options import OFFICIAL, Rules
from .position import COLOR_NAMES, PIECE_NAMES, Position

Placement = Mapping[str, Tuple[str, Optional[int]]]


@dataclass(frozen=True)
class Explanation:
    """A reason code with its parameters; ``text`` is the English sentence.

    ``cells`` are the cells the reason is about (for the display to mark), ``moves`` the
    legal moves it points to (the compulsory capture, the King recreation, ...).
    """

    code: str
    params: Dict[str, object] = field(default_factory=dict)
    cells: Tuple[str, ...] = ()
    moves: Tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return render(self.code, self.params)

    @property
    def legal(self) -> bool:
        return self.code == "legal"

    def __str__(self) -> str:
        return self.text


def explain(position: Position, attempted: Union[str, Move, Tuple[str, str], Placement],
            rules: Rules = OFFICIAL) -> Explanation:
    """Explain ``attempted`` in ``position``; code ``legal`` when it is a legal move.

    Raises :class:`~fenix_table.errors.NotationError` for a malformed token or an unknown
    cell name.
    """
    legal = legal_moves(position, rules)
    if isinstance(attempted, Move):
        attempted = attempted.token
    if isinstance(attempted, str):
        return _explain_token(position, attempted, legal, rules)
    if isinstance(attempted, Mapping):
        return _explain_placement(position, attempted, legal, rules)
    if isinstance(attempted, (tuple, list)) and len(attempted) == 2:
        geo = position.geo
        return _explain_pair(position, geo.cell(attempted[0]), geo.cell(attempted[1]), legal,
                             rules)
    raise TypeError("attempted must be a move token, a (from, to) pair or a placement")


# ---------------------------------------------------------------------------------

def _best(moves: Sequence[Move]) -> Move:
    """The move to suggest: highest value, then first by token (stable for tests)."""
    return min(moves, key=lambda m: (-m.value, m.token))


def _piece(position: Position, i: int) -> Tuple[str, str]:
    v = position.board[i]
    return COLOR_NAMES[1 if v > 0 else -1], PIECE_NAMES[abs(v)]


def _capture_hint(code: str, move: Move, **extra) -> Explanation:
    params = {"move": move.token, "value": move.value, **extra}
    return Explanation(code, params, cells=move.path + move.captured, moves=(move.token,))


def _explain_token(position: Position, token: str, legal: List[Move], rules: Rules) -> Explanation:
    geo = position.geo
    cells, is_capture = parse_token(token, geo)
    token = ("x" if is_capture else "-").join(geo.names[i] for i in cells)
    for move in legal:
        if move.token == token:
            return Explanation("legal", {"move": token}, cells=move.path, moves=(token,))
    if not is_capture:
        return _explain_pair(position, cells[0], cells[1], legal, rules)
    frm = cells[0]
    early = _wrong_piece_or_phase(position, frm, legal)
    if early:
        return early
    captures = [m for m in legal if m.is_capture]
    chains = piece_chains(position, frm)
    path = tuple(cells)
    if captures:
        if any(c[0] == path for c in chains):
            return _capture_hint("larger_capture", _best(captures))
        continuation = _continuation(position, chains, path)
        if continuation:
            return continuation
    return _first_bad_hop(position, path)


def _continuation(position: Position, chains, prefix: Tuple[int, ...]) -> Optional[Explanation]:
    """chain_continues when ``prefix`` stops a capture chain that must go on."""
    longer = [c for c in chains if len(c[0]) > len(prefix) and c[0][:len(prefix)] == prefix]
    if not longer:
        return None
    path, jumped, value = min(longer, key=lambda c: (-c[2], c[0]))
    move = Move(position.geo, path, jumped, value=value)
    return _capture_hint("chain_continues", move, cell=position.geo.names[prefix[-1]])


def _wrong_piece_or_phase(position: Position, frm: int, legal: List[Move]) -> Optional[Explanation]:
    """Reasons that hold whatever the move was: no piece, wrong side, setup, King duty."""
    names = position.geo.names
    v = position.board[frm]
    if v == 0:
        return Explanation("empty_cell", {"cell": names[frm]}, cells=(names[frm],))
    if v * position.turn < 0:
        color, piece = _piece(position, frm)
        return Explanation("out_of_turn", {"side": position.side, "color": color,
                                           "piece": piece, "cell": names[frm]},
                           cells=(names[frm],))
    if position.in_setup:
        return Explanation("setup_stack_only", {}, cells=(names[frm],))
    if position.duty == "K" and legal and all(m.stacking for m in legal):
        move = _best(legal)
        return Explanation("king_duty", {"move": move.token}, cells=move.path,
                           moves=tuple(sorted(m.token for m in legal)))
    return None


def _first_bad_hop(position: Position, path: Tuple[int, ...]) -> Explanation:
    """Walk a capture token hop by hop and name the first hop that is not a capture."""
    geo = position.geo
    names = geo.names
    board = position.board
    start = path[0]
    me = 1 if board[start] > 0 else -1
    height = abs(board[start])
    jumped = set()
    for a, b in zip(path, path[1:]):
        fa, ra = a % geo.width, a // geo.width
        fb, rb = b % geo.width, b // geo.width
        df, dr = fb - fa, rb - ra
        hop = {"frm": names[a], "to": names[b]}
        if b != start and board[b] != 0:
            return Explanation("occupied", {"cell": names[b]}, cells=(names[b],))
        if df and dr:
            if height != 3:
                return Explanation("only_king_diagonal", {}, cells=(names[a], names[b]))
            if abs(df) != abs(dr):
                return Explanation("no_capture", hop, cells=(names[a], names[b]))
        steps = max(abs(df), abs(dr))
        unit = ((df > 0) - (df < 0), (dr > 0) - (dr < 0))
        between = [(fa + unit[0] * k) + (ra + unit[1] * k) * geo.width for k in range(1, steps)]
        pieces = [c for c in between if board[c] != 0 and c != start]
        if height != 2 and steps != 2:
            code = "king_step" if height == 3 else "soldier_step"
            return Explanation(code, {"cell": names[start]}, cells=(names[a], names[b]))
        if not pieces:
            return Explanation("jump_empty", hop, cells=(names[a], names[b]))
        if len(pieces) > 1:
            return Explanation("general_blocked", {"cell": names[start], "block": names[pieces[1]]},
                               cells=(names[a], names[pieces[1]]))
        victim = pieces[0]
        if board[victim] * me > 0:
            return Explanation("jump_own", {"cell": names[victim]}, cells=(names[victim],))
        if victim in jumped:
            return Explanation("jumped_blocks", {"cell": names[victim]}, cells=(names[victim],))
        jumped.add(victim)
    return Explanation("no_capture", {"frm": names[path[0]], "to": names[path[-1]]},
                       cells=(names[path[0]], names[path[-1]]))


def _explain_pair(position: Position, frm: int, to: int, legal: List[Move], rules: Rules
                  ) -> Explanation:
    geo = position.geo
    names = geo.names
    board = position.board
    if frm == to:
        return Explanation("no_change", {})
    v = board[frm]
    if v == 0 or v * position.turn < 0:
        return _wrong_piece_or_phase(position, frm, legal)
    matching = [m for m in legal if m.frm == frm and m.to == to]
    if matching:
        move = _best(matching)
        return Explanation("legal", {"move": move.token}, cells=move.path, moves=(move.token,))
    if position.in_setup:
        return _explain_setup(position, frm, to, rules)
    target = board[to]
    own_target = target * position.turn > 0
    if position.duty == "K" and legal and all(m.stacking for m in legal):
        move = _best(legal)
        if own_target and abs(target) == 2 and abs(v) == 1:
            return Explanation("king_reach", {"move": move.token}, cells=(names[frm], names[to]),
                               moves=tuple(sorted(m.token for m in legal)))
        return Explanation("king_duty", {"move": move.token}, cells=move.path,
                           moves=tuple(sorted(m.token for m in legal)))
    captures = [m for m in legal if m.is_capture]
    if captures:
        chains = piece_chains(position, frm)
        if any(c[0][0] == frm and c[0][-1] == to for c in chains):
            return _capture_hint("larger_capture", _best(captures))
        for path, _, _ in chains:
            if to in path[1:-1]:
                prefix = path[:path.index(to, 1) + 1]
                return _continuation(position, chains, prefix)
        return _capture_hint("capture_compulsory", _best(captures))
    if own_target:
        return _explain_stacking(position, frm, to, rules)
    if target:
        return Explanation("occupied", {"cell": names[to]}, cells=(names[to],))
    return _explain_movement(position, frm, to)


def _explain_setup(position: Position, frm: int, to: int, rules: Rules) -> Explanation:
    names = position.geo.names
    board = position.board
    target = board[to]
    if target * position.turn <= 0:
        return Explanation("setup_stack_only", {}, cells=(names[frm], names[to]))
    if abs(board[frm]) != 1:
        return Explanation("setup_soldier_only", {"cell": names[frm],
                                                  "piece": PIECE_NAMES[abs(board[frm])]},
                           cells=(names[frm],))
    own = position.own
    kings = (own & position.kings).bit_count()
    generals = (own & position.generals).bit_count()
    if abs(target) == 3:
        return Explanation("setup_onto_king", {"cell": names[to]}, cells=(names[to],))
    if abs(target) == 2 and kings:
        return Explanation("setup_one_king", {}, cells=(names[to],))
    if abs(target) == 1 and generals + kings >= 4:
        return Explanation("setup_limit", {}, cells=(names[to],))
    if rules.setup_reach == "orthogonal":
        return Explanation("setup_reach", {"cell": names[to]}, cells=(names[frm], names[to]))
    return Explanation("setup_stack_only", {}, cells=(names[frm], names[to]))


def _explain_stacking(position: Position, frm: int, to: int, rules: Rules) -> Explanation:
    names = position.geo.names
    board = position.board
    moving, target = abs(board[frm]), abs(board[to])
    cells = (names[frm], names[to])
    if moving + target > 3:
        return Explanation("stack_too_high", {}, cells=cells)
    if position.duty == "G":
        if moving != 1 or target != 1:
            return Explanation("general_right_needs_soldiers", {}, cells=cells)
        return Explanation("general_reach", {"cell": names[to]}, cells=cells)
    if position.duty == "K" and moving == 1 and target == 2:
        return Explanation("king_reach", {"move": f"{names[frm]}-{names[to]}"}, cells=cells)
    return Explanation("stack_not_allowed", {}, cells=cells)


def _explain_movement(position: Position, frm: int, to: int) -> Explanation:
    """A non-capturing move to an empty cell that the piece cannot make."""
    geo = position.geo
    names = geo.names
    board = position.board
    height = abs(board[frm])
    fa, ra = frm % geo.width, frm // geo.width
    fb, rb = to % geo.width, to // geo.width
    df, dr = fb - fa, rb - ra
    steps = max(abs(df), abs(dr))
    cells = (names[frm], names[to])
    me = 1 if board[frm] > 0 else -1
    middle = None
    if steps == 2 and (df == 0 or dr == 0 or abs(df) == abs(dr)):
        middle = (fa + df // 2) + (ra + dr // 2) * geo.width
    if middle is not None and board[middle] * me > 0:
        return Explanation("jump_own", {"cell": names[middle]}, cells=(names[middle],))
    if height == 1:
        if middle is not None and board[middle] and df and dr:
            return Explanation("only_king_diagonal", {}, cells=cells)
        return Explanation("soldier_step", {"cell": names[frm]}, cells=cells)
    if height == 3:
        return Explanation("king_step", {"cell": names[frm]}, cells=cells)
    if df and dr:
        if middle is not None and board[middle]:
            return Explanation("only_king_diagonal", {}, cells=cells)
        return Explanation("general_straight", {"cell": names[frm]}, cells=cells)
    unit = ((df > 0) - (df < 0)) + ((dr > 0) - (dr < 0)) * geo.width
    c = frm + unit
    while c != to:
        if board[c]:
            return Explanation("general_blocked", {"cell": names[frm], "block": names[c]},
                               cells=(names[frm], names[c]))
        c += unit
    return Explanation("no_capture", {"frm": names[frm], "to": names[to]}, cells=cells)


# ---------------------------------------------------------------------------------
# Placements: what the camera saw after the player's move
# ---------------------------------------------------------------------------------

def matches(stacks: Mapping[str, Tuple[str, int]], placement: Placement) -> bool:
    """True when ``placement`` (heights may be None = unknown) shows exactly ``stacks``."""
    if len(stacks) != len(placement):
        return False
    for cell, (color, height) in placement.items():
        piece = stacks.get(cell)
        if piece is None or piece[0] != color or (height is not None and piece[1] != height):
            return False
    return True


def _explain_placement(position: Position, placement: Placement, legal: List[Move],
                       rules: Rules) -> Explanation:
    geo = position.geo
    for cell in placement:
        geo.cell(cell)
    fitting = [m for m in legal if matches(play(position, m).stacks(), placement)]
    if fitting:
        move = _best(fitting)
        return Explanation("legal", {"move": move.token}, cells=move.path,
                           moves=tuple(sorted(m.token for m in fitting)))
    before = position.stacks()
    me = position.side
    vanished: List[str] = []   # own stones that left a cell
    arrived: List[str] = []    # own stones that reached a cell
    removed: List[str] = []    # enemy cells emptied
    odd: List[str] = []        # anything else: enemy moved, colours changed
    for cell in geo.names:
        old, new = before.get(cell), placement.get(cell)
        if old is None and new is None:
            continue
        if old is not None and new is not None and old[0] == new[0] and \
                (new[1] is None or new[1] == old[1]):
            continue
        if old is not None and new is not None and old[0] == new[0] == me:
            (arrived if new[1] > old[1] else vanished).append(cell)
        elif old is not None and old[0] == me and new is None:
            vanished.append(cell)
        elif old is None and new[0] == me:
            arrived.append(cell)
        elif old is not None and old[0] != me and new is None:
            removed.append(cell)
        else:
            odd.append(cell)
    changed = tuple(sorted(vanished + arrived + removed + odd))
    if not changed:
        return Explanation("no_change", {})
    enemy_moved = [c for c in odd if placement.get(c) and placement[c][0] != me]
    if enemy_moved and not vanished and not arrived:
        # The side not to move moved: name the piece that left its cell.
        sources = [c for c in removed]
        cell = sources[0] if sources else enemy_moved[0]
        return _explain_pair_named(position, cell, enemy_moved[0], legal, rules)
    if len(vanished) == 1 and len(arrived) == 1 and not odd:
        return _explain_pair_named(position, vanished[0], arrived[0], legal, rules)
    if len(vanished) == 1 and not arrived and not odd and not removed:
        # A stone went on top of an own stack whose height the camera cannot read.
        frm = geo.index[vanished[0]]
        stackings = [m for m in legal if m.frm == frm and m.stacking]
        if not stackings and abs(position.board[frm]) == 1:
            early = _wrong_piece_or_phase(position, frm, legal)
            if early and early.code != "setup_stack_only":
                return early
            if not position.in_setup and position.duty == "-":
                return Explanation("stack_not_allowed", {}, cells=(vanished[0],))
    return Explanation("stones_changed", {"cells": " ".join(changed)}, cells=changed)


def _explain_pair_named(position, frm: str, to: str, legal, rules) -> Explanation:
    geo = position.geo
    return _explain_pair(position, geo.index[frm], geo.index[to], legal, rules)

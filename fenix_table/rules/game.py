"""A game: a start position, the moves played, and how (and whether) it has ended."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Union

from ..errors import IllegalMoveError
from .messages import render
from .movegen import Move, find_move, legal_moves, play
from .options import OFFICIAL, Rules
from .position import COLOR_NAMES, Position, color_of

RESULTS = {"red wins": "1-0", "black wins": "0-1", "draw": "1/2-1/2", "ongoing": "*"}


@dataclass(frozen=True)
class Status:
    """Where a game stands. ``reason`` is a code of :data:`~.messages.MESSAGES`."""

    result: str = "ongoing"            # "ongoing" | "red wins" | "black wins" | "draw"
    reason: str = "ongoing"
    params: Dict[str, object] = field(default_factory=dict)

    @property
    def over(self) -> bool:
        return self.result != "ongoing"

    @property
    def winner(self) -> Optional[str]:
        return {"red wins": "red", "black wins": "black"}.get(self.result)

    @property
    def fgn_result(self) -> str:
        return RESULTS[self.result]

    @property
    def text(self) -> str:
        return render(self.reason, self.params)


def _win(winner: str, reason: str, **params) -> Status:
    loser = "black" if winner == "red" else "red"
    return Status(f"{winner} wins", reason, {"winner": winner, "loser": loser, **params})


def position_status(position: Position, rules: Rules = OFFICIAL,
                    moves: Optional[List[Move]] = None) -> Status:
    """What the position alone decides: King loss, no legal move, the no-capture limit.

    ``moves`` may pass the already generated legal moves to save generating them again.
    """
    if moves is None:
        moves = legal_moves(position, rules)
    side = position.side
    other = "black" if side == "red" else "red"
    if not moves:
        if position.duty == "K":
            return _win(other, "king_lost")
        if rules.no_move == "draw":
            return Status("draw", "no_move_draw", {"side": side})
        return _win(other, "no_move_loss")
    limit = rules.no_capture_limit
    if limit and position.clock >= limit:
        return Status("draw", "no_capture_limit", {"plies": limit})
    return Status()


class Game:
    """A game in progress or finished: positions, moves, repetition and game-level actions.

    >>> game = Game(size="7x8")
    >>> game.push("a1-b1").token
    'a1-b1'
    >>> game.position.setup
    (1, 0)
    """

    def __init__(self, start: Union[Position, str, None] = None, rules: Rules = OFFICIAL,
                 size: str = "9x9") -> None:
        if start is None:
            start = Position.start(size)
        elif isinstance(start, str):
            start = Position.from_fpn(start)
        self.rules = rules
        self.start = start
        self.positions: List[Position] = [start]
        self.moves: List[Move] = []
        self._seen: Counter = Counter([start.key()])
        self._ending: Optional[Status] = None   # agreement or resignation

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def ply(self) -> int:
        return len(self.moves)

    def legal_moves(self) -> List[Move]:
        return legal_moves(self.position, self.rules)

    def push(self, move: Union[Move, str]) -> Move:
        """Play a legal move (token or Move); IllegalMoveError says why not."""
        status = self.status()
        if status.over:
            raise IllegalMoveError(f"the game is over: {status.text}")
        move = find_move(self.position, move, self.rules)
        after = play(self.position, move)
        self.positions.append(after)
        self.moves.append(move)
        self._seen[after.key()] += 1
        return move

    def pop(self) -> Move:
        """Take back the last move (also cancels a draw agreement or resignation)."""
        if not self.moves:
            raise IllegalMoveError("no move to take back")
        after = self.positions.pop()
        self._seen[after.key()] -= 1
        self._ending = None
        return self.moves.pop()

    def agree_draw(self) -> None:
        self._ending = Status("draw", "agreement")

    def resign(self, side: str) -> None:
        loser = color_of(side)
        self._ending = _win(COLOR_NAMES[-loser], "resignation")

    def status(self) -> Status:
        """The game's state, checked in the order rules.md gives."""
        position = self.position
        moves = legal_moves(position, self.rules)
        if not moves:
            return position_status(position, self.rules, moves)
        if self._ending is not None:
            return self._ending
        repetition = self.rules.repetition
        if repetition != "off" and self._seen[position.key()] >= 3:
            if repetition == "draw":
                return Status("draw", "repetition_draw")
            return _win(position.side, "repetition_loss")  # the player who just moved loses
        return position_status(position, self.rules, moves)

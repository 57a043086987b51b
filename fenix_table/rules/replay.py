"""Replaying a game as it was played at a table: the one replay every record uses.

A table's game is legal moves plus, in casual mode, "played on" plies: the players kept
an illegal change on the board and the game went on from the position it left. Such a
ply carries the accepted position, and the engine's game restarts from it. Stored games
(the archive), FGN records (``{played on: ...}`` comments) and a resumed table all
replay through :func:`replay`.

>>> r = replay(Position.start("7x8"), Rules.preset("official"), [Step("a1-b1")])
>>> r.plies[0].side, r.game.position.setup
('red', (1, 0))
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional

from ..errors import FenixError, IllegalMoveError
from .game import Game
from .options import Rules
from .position import Position


@dataclass(frozen=True)
class Step:
    """One ply to replay. ``fpn_after``: the position it must leave (checked when given);
    ``played_on``: an accepted illegal change, ``token`` then names the attempted move and
    ``fpn_after`` (required) is the position play went on from."""

    token: str
    fpn_after: Optional[str] = None
    played_on: bool = False
    frame: Optional[int] = None


@dataclass(frozen=True)
class ReplayedPly:
    """A replayed ply, 1-based, with the positions around it (FPN)."""

    ply: int
    token: str
    side: str
    fpn_before: str
    fpn_after: str
    played_on: bool = False
    captured: tuple = ()
    frame: Optional[int] = None


class ReplayError(IllegalMoveError):
    """A step that does not replay; ``ply`` (1-based) names it."""

    def __init__(self, ply: int, token: str, message: str) -> None:
        super().__init__(message)
        self.ply = ply
        self.token = token


@dataclass
class Replay:
    """The result of :func:`replay`: every ply, and the engine's game as it stands now
    (since the last played-on ply, if any). ``before_played_on[ply]`` is the engine's
    game just before that played-on ply, so taking it back restores the history too."""

    start: Position
    rules: Rules
    game: Game
    plies: List[ReplayedPly] = field(default_factory=list)
    before_played_on: Dict[int, Game] = field(default_factory=dict)

    @property
    def position(self) -> Position:
        return self.game.position

    @property
    def tokens(self) -> List[str]:
        """The move tokens of the legal plies (what an FGN move list holds)."""
        return [p.token for p in self.plies if not p.played_on]


def replay(start: Position, rules: Rules, steps: Iterable[Step]) -> Replay:
    """Play ``steps`` from ``start``. Raises :class:`ReplayError` naming the first ply
    that is illegal, whose position differs from its ``fpn_after``, or whose played-on
    position is not a position."""
    result = Replay(start, rules, Game(start, rules))
    for number, step in enumerate(steps, start=1):
        game = result.game
        before = game.position
        try:
            if step.played_on:
                if not step.fpn_after:
                    raise IllegalMoveError("a played-on ply needs the position it left")
                after = Position.from_fpn(step.fpn_after)
                if after.size != before.size:
                    raise IllegalMoveError(f"the played-on position is on {after.size}, the "
                                           f"game on {before.size}")
                result.before_played_on[number] = game
                result.game = Game(after, rules)
                captured: tuple = ()
                token = step.token
            else:
                move = game.push(step.token)
                after, captured, token = game.position, tuple(move.captured), move.token
                if step.fpn_after is not None and after.fpn() != step.fpn_after:
                    raise IllegalMoveError(f"the recorded position {step.fpn_after!r} differs "
                                           f"from the replay {after.fpn()!r}")
        except ReplayError:
            raise
        except FenixError as error:
            raise ReplayError(number, step.token, str(error)) from None
        result.plies.append(ReplayedPly(number, token, before.side, before.fpn(), after.fpn(),
                                        step.played_on, captured, step.frame))
    return result

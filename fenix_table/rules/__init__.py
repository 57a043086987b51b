"""The FENIX rules engine: positions, moves, legality, explanations, game records.

Pure Python, no I/O: everything else in Fenix Table stands on it.

>>> from fenix_table.rules import Position, legal_moves, apply
>>> pos = Position.start("7x8")
>>> len(legal_moves(pos))   # setup: any of 21 soldiers onto any of the other 20
420
>>> apply(pos, "a1-b1").piece_at("b1")
('red', 2)
"""
from .explain import Explanation, explain
from .fgn import GameRecord, format_fgn, parse_fgn, read_fgn
from .game import Game, Status, position_status
from .messages import MESSAGES
from .movegen import (Move, apply, captures, find_move, legal_moves, parse_token, play,
                      position_after_turn)
from .options import OFFICIAL, OPTION_VALUES, PRESETS, STRIKE, Rules
from .position import BLACK, RED, START_FPN, Position

__all__ = [
    "BLACK", "Explanation", "Game", "GameRecord", "MESSAGES", "Move", "OFFICIAL",
    "OPTION_VALUES", "PRESETS", "Position", "RED", "Rules", "START_FPN", "STRIKE", "Status",
    "apply", "captures", "explain", "find_move", "format_fgn", "legal_moves", "parse_fgn",
    "parse_token", "play", "position_after_turn", "position_status", "read_fgn",
]

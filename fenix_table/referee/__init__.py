"""The referee: from stable observations of the board to moves, violations and a record.

>>> from fenix_table.referee import Referee
>>> ref = Referee(board="7x8")
>>> ref.begin()[0].kind
'game_started'
"""
from . import events
from .events import (BoardView, CaptureRequired, DrawOffered, Event, GameOver, GameStarted,
                     InSync, MoveAmbiguous, MoveCommitted, MoveUndone, Notice, OutOfSync,
                     RemoveCaptured, TurnStarted, Violation, ViolationCleared)
from .referee import Referee

__all__ = [
    "BoardView", "CaptureRequired", "DrawOffered", "Event", "GameOver", "GameStarted", "InSync",
    "MoveAmbiguous", "MoveCommitted", "MoveUndone", "Notice", "OutOfSync", "Referee",
    "RemoveCaptured", "TurnStarted", "Violation", "ViolationCleared", "events",
]

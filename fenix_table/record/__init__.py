"""Durable game records: the SQLite archive, the table's record output, FGN import/export.

>>> from fenix_table.record import GameRecorder, GameStore, resume
"""
from .recorder import GameRecorder, resume
from .store import GameStore, GameSummary, StoredMove, default_path

__all__ = ["GameRecorder", "GameStore", "GameSummary", "StoredMove", "default_path", "resume"]

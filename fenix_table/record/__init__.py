"""Durable game records: the SQLite archive and FGN import/export."""
from .store import GameStore, GameSummary, StoredMove, default_path

__all__ = ["GameStore", "GameSummary", "StoredMove", "default_path"]

"""The table driver: one loop for ``run``, ``demo`` and ``track``.

A feed of camera frames goes through vision and the referee; the referee's events go to
the game record first, then to every sink (display model, lights, event printer, ...).

>>> from fenix_table.table import Action, GameSetup, Table, run
"""
from .driver import Action, GameSetup, Table, run
from .feeds import FrameGrabber, RecordedFeed
from .sinks import EventPrinter, Outputs

__all__ = ["Action", "EventPrinter", "FrameGrabber", "GameSetup", "Outputs", "RecordedFeed",
           "Table", "run"]

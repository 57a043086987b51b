"""Fenix Table: a camera-watched companion and referee for the board game FENIX."""

__version__ = "0.1.0"

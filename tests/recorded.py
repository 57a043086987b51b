"""Test glue: a referee whose events go to a real GameRecorder, wired as the table wires
them (the record first, before the test sees the events)."""
from __future__ import annotations

from fenix_table.record import GameRecorder
from fenix_table.referee import Referee
from fenix_table.rules import Position, Rules

#: Referee methods that return events.
_SAYING = ("begin", "observe", "confirm", "play_on", "undo", "offer_draw", "accept_draw",
           "resign")


class Recorded:
    """``Recorded(store, start=..., rules=..., mode=..., tags=...)`` starts a recorded
    game; ``Recorded(store, game_id=N)`` resumes stored game N. Every referee method that
    returns events records them first; everything else is the referee's own."""

    def __init__(self, store, *, game_id=None, tags=None, start=None, rules=None,
                 board="9x9", mode="referee", **options):
        self.recorder = GameRecorder(store)
        if game_id is not None:
            history, info = self.recorder.resume(game_id)
            mode = info.mode if info.mode in ("referee", "casual") else mode   # imported games
            self.referee = Referee(game_id=game_id, history=history, mode=mode, **options)
        else:
            start = start if start is not None else Position.start(board)
            rules = rules if rules is not None else Rules.preset("official")
            gid = self.recorder.new_game(start, rules, mode, tags)
            self.referee = Referee(start=start, rules=rules, mode=mode, game_id=gid, **options)

    @property
    def game_id(self):
        return self.recorder.game_id

    def __getattr__(self, name):
        value = getattr(self.referee, name)
        if name not in _SAYING:
            return value

        def recorded(*args, **kwargs):
            events = value(*args, **kwargs)
            self.recorder.handle(events)
            return events
        return recorded

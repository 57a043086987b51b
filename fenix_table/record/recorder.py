"""The game record as the table's first output, and resuming a stored game.

:class:`GameRecorder` hears every batch of referee events before any other output does
(:class:`fenix_table.table.Outputs` calls it first and synchronously) and writes what
belongs in the archive: committed moves (with the still frame, when asked), moves taken
back, violations and how they were resolved, draw offers and the result. Each write is
one durable transaction, so once :meth:`GameRecorder.handle` returns, the moves it was
given survive a crash or a power cut.

A write that fails (disk full, the database locked by another program for too long)
raises, and what was not written stays queued in order: the next call writes it first.
Moves announced again (a resumed game's history) are recognised by their ply and not
written twice.
"""
from __future__ import annotations

from collections import deque
from typing import Deque, Dict, Optional, Sequence, Tuple

from ..errors import RecordError
from ..referee import events as ev
from .fgn import replay_stored

#: Events kept with the game besides its moves (they become FGN comments).
KEPT = (ev.Violation, ev.ViolationCleared, ev.OutOfSync, ev.InSync, ev.DrawOffered,
        ev.GameOver)


def resume(store, game_id: int):
    """Replay the stored, unfinished game ``game_id`` for a referee to go on with:
    ``(replay, summary)`` — a :class:`~fenix_table.rules.replay.Replay` (position, rules,
    every ply, played-on ones included) and its :class:`~.store.GameSummary` (mode,
    tags). RecordError when the game is finished or does not replay."""
    info = store.game(game_id)
    if info.result != "*":
        raise RecordError(f"game {game_id} is finished ({info.result}); nothing to resume")
    return replay_stored(store, game_id), info


class GameRecorder:
    """Writes one game at a time into ``store`` (a :class:`~.store.GameStore`).

    ``save_frames``: keep the still camera frame of each committed move as JPEG with the
    move (``fenix-table games show ID --frames DIR`` writes them out).

    >>> from fenix_table.record import GameStore
    >>> from fenix_table.rules import Position, Rules
    >>> recorder = GameRecorder(GameStore(":memory:"))
    >>> recorder.new_game(Position.start("7x8"), Rules.preset("official"), "referee")
    1
    """

    name = "record"

    def __init__(self, store, *, save_frames: bool = False) -> None:
        self.store = store
        self.save_frames = save_frames
        self.game_id: Optional[int] = None
        self._plies = 0
        self._backlog: Deque[Tuple[ev.Event, Optional[bytes]]] = deque()

    def new_game(self, start, rules, mode: str, tags: Optional[Dict[str, str]] = None) -> int:
        """Open a new game record (``start`` a Position, ``rules`` a Rules); its id."""
        self._backlog.clear()
        self.game_id = self.store.new_game(start.fpn(), rules, tags, mode)
        self._plies = 0
        return self.game_id

    def resume(self, game_id: int):
        """Go on recording stored game ``game_id``; returns :func:`resume`'s pair."""
        replayed, info = resume(self.store, game_id)
        self._backlog.clear()
        self.game_id = game_id
        self._plies = len(replayed.plies)
        return replayed, info

    @property
    def pending(self) -> int:
        """Events given but not yet written (after a failed write)."""
        return len(self._backlog)

    def handle(self, events: Sequence[ev.Event], still=None) -> None:
        """Write what ``events`` hold, after anything still queued. ``still``: the camera
        frame (BGR array) the batch was judged on, kept with its last committed move when
        frames are saved. Raises what the store raises; nothing is lost by it."""
        if self.game_id is None:
            return
        last_move = max((i for i, e in enumerate(events) if isinstance(e, ev.MoveCommitted)),
                        default=None)
        jpeg = _jpeg(still) if self.save_frames and still is not None and \
            last_move is not None and events[last_move].ply > self._plies else None
        for i, event in enumerate(events):
            self._backlog.append((event, jpeg if i == last_move else None))
        while self._backlog:
            event, frame = self._backlog[0]
            self._write(event, frame)
            self._backlog.popleft()

    def _write(self, event: ev.Event, jpeg: Optional[bytes]) -> None:
        store, game_id = self.store, self.game_id
        if isinstance(event, ev.MoveCommitted):
            if event.ply <= self._plies:
                return   # already on disk: a resumed game's history, or a retried batch
            store.add_move(game_id, event.ply, event.move, event.fpn_after, frame=event.frame,
                           jpeg=jpeg, played_on=event.played_on)
            self._plies = event.ply
            if event.uncertain:
                # Kept with the move: the FGN export writes it as the move's comment.
                store.add_event(game_id, ev.Comment(text=uncertain_comment(event)))
        elif isinstance(event, ev.MoveUndone):
            store.undo_last(game_id)
            self._plies -= 1
        elif isinstance(event, KEPT):
            if isinstance(event, ev.GameOver):
                store.finish(game_id, event.result, event.reason)
            store.add_event(game_id, event)


def uncertain_comment(event: ev.MoveCommitted) -> str:
    """The record's note on a ply the camera could not tell apart."""
    return (f"uncertain: the camera could not tell {event.move} from "
            f"{' '.join(event.alternatives)}")


def _jpeg(frame) -> Optional[bytes]:
    import cv2

    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return data.tobytes() if ok else None

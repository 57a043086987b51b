"""``fenix-table club simulate``: N tables playing generated games through the real table
driver and the club broadcast, for tests, demos and the benchmark.

Each simulated table is a :class:`~fenix_table.table.Table` run by
:func:`~fenix_table.table.run` in a thread of its own, with a :class:`BroadcastSink` (and,
when asked, its own game archive). Its feed, :class:`SimulatedPlayers`, stands in for the
camera and the people: it shows the referee the board after a random legal move of the
rules engine, at ``rate`` moves a second, as a stable observation read without a fault;
when the referee asks which move it was, it confirms the move it made, as players at the
table would. A game ends as the rules end it (or by an agreed draw after ``max_plies``),
then the next one starts, ``games`` in all.
"""
from __future__ import annotations

import logging
import os
import random
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..board import cell_names

log = logging.getLogger(__name__)


def observation_of(position, index: int):
    """What a camera reading the board without a fault gives for ``position``."""
    from ..vision.types import CellReading, Observation

    stacks = position.stacks()
    cells = {}
    for cell in cell_names(position.size):
        piece = stacks.get(cell)
        cells[cell] = CellReading("empty", None, 0.99, 0.0) if piece is None else \
            CellReading(piece[0], piece[1], 0.99, 0.95)
    return Observation(board=position.size, cells=cells, hand=False, occluded_cells=(),
                       board_found=True, frame_index=index)


class SimulatedPlayers:
    """The feed of one simulated table (see the module docstring). Set :attr:`table`
    before the loop starts."""

    observations = True

    def __init__(self, rng: random.Random, *, rate: float = 1.0, games: int = 1,
                 max_plies: Optional[int] = None, size: str = "9x9",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rng = rng
        self.rate = rate
        self.games = games
        self.max_plies = max_plies
        self.size = size
        self.clock = clock
        self.table = None
        self.ended = False
        self.games_done = 0
        #: Per game: the moves the players made, and the moves the table committed (a
        #: capture chain whose two routes leave the same board is committed as either).
        self.made: List[List[str]] = [[]]
        self.played: List[List[str]] = [[]]
        self._index = 0
        self._due = 0.0
        self._shown = False
        self._intended: Optional[str] = None
        self._expected = 0
        self._draw_asked = False

    def start(self) -> "SimulatedPlayers":
        self._due = self.clock()
        return self

    def lost(self) -> Optional[str]:
        return None

    def stop(self) -> None:
        pass

    def _ask(self, name: str, **args) -> None:
        from ..table import Action
        self.table.requests.put(Action(name, tuple(args.items())))

    def latest(self, timeout: float = 0.0):
        now = self.clock()
        if self.ended or now < self._due:
            time.sleep(max(0.0, min(timeout, self._due - now)) if not self.ended else timeout)
            return None
        referee = self.table.referee
        self.played[-1] = list(referee.moves)
        if referee.state == "over":
            self.games_done += 1
            if self.games_done >= self.games:
                self.ended = True
                return None
            self.played.append([])
            self.made.append([])
            self._shown, self._intended, self._draw_asked = False, None, False
            self._ask("new_game", size=self.size)
            self._due = now + 1.0 / self.rate
            return None
        if not self._shown or referee.state != "play":
            # The start position on the board (or the position to restore).
            self._shown = True
            self._due = now + 0.05
            return self._show(referee.position)
        if self._intended is not None and len(referee.moves) < self._expected:
            # The camera could not tell the move apart: the players pick theirs.
            self._ask("confirm", tokens=(self._intended,))
            self._due = now + 0.05
            return None
        if self.max_plies is not None and len(referee.moves) >= self.max_plies:
            if not self._draw_asked:
                self._draw_asked = True
                self._ask("offer_draw")
                self._ask("accept_draw")
            self._due = now + 0.05
            return None
        from ..rules import apply, legal_moves
        position = referee.position
        token = self.rng.choice(sorted(m.token for m in legal_moves(position, referee.rules)))
        self._intended, self._expected = token, len(referee.moves) + 1
        self.made[-1].append(token)
        self._due = max(self._due + 1.0 / self.rate, now - 1.0)
        return self._show(apply(position, token, referee.rules))

    def _show(self, position) -> Tuple[int, object]:
        index = self._index
        self._index += 1
        return index, observation_of(position, index)


class Club:
    """``tables`` simulated tables (named ``table01``, ...) broadcasting to ``broker``.

    ``credentials``: table name -> password (each table logs in as its own name);
    ``record``: a folder for one game archive per table (None: nothing recorded);
    ``sinks_for(name)``: more outputs for a table, told of each event before the
    broadcast is (the benchmark's commit clock).
    """

    def __init__(self, broker, tables: int, *, club: str = "club", rate: float = 1.0,
                 games: int = 1, max_plies: Optional[int] = None, seed: int = 1,
                 sizes: Sequence[str] = ("9x9", "7x8"), credentials: Optional[Dict[str, str]] = None,
                 record: Optional[str] = None,
                 sinks_for: Optional[Callable[[str], list]] = None, first: int = 1) -> None:
        self.broker = broker
        self.club = club
        self.credentials = credentials
        self.record = record
        self.sinks_for = sinks_for
        self.sizes = tuple(sizes)
        self.names = [f"table{i:02d}" for i in range(first, first + tables)]
        self.players: Dict[str, SimulatedPlayers] = {
            name: SimulatedPlayers(random.Random(f"{seed}-{name}"), rate=rate, games=games,
                                   max_plies=max_plies, size=self.sizes[i % len(self.sizes)])
            for i, name in enumerate(self.names)}
        self.tables: Dict[str, object] = {}
        self.broadcasts: Dict[str, object] = {}
        self.results: Dict[str, str] = {}
        self._stop = threading.Event()
        self._threads: List[threading.Thread] = []

    def _table(self, name: str):
        """One table with its broadcast (and archive). Made in the thread that runs it: an
        archive's SQLite connection belongs to the thread that opened it."""
        from dataclasses import replace

        from ..record import GameRecorder, GameStore
        from ..table import GameSetup, Table
        from .broadcast import BroadcastSink

        tags = {"Event": f"{self.club} simulated club night", "Round": "1",
                "Red": f"{name} red", "Black": f"{name} black"}
        login = replace(self.broker, username=name, password=self.credentials[name]) \
            if self.credentials is not None else self.broker
        sink = BroadcastSink(login, self.club, name, tags=tags)
        store = GameStore(os.path.join(self.record, f"{name}.sqlite3")) \
            if self.record is not None else None
        try:
            table = Table(GameSetup(size=self.players[name].size, tags=tuple(tags.items())),
                          record=GameRecorder(store) if store is not None else None,
                          sinks=list(self.sinks_for(name) if self.sinks_for else []) + [sink])
        except BaseException:
            sink.close()
            if store is not None:
                store.close()
            raise
        self.players[name].table = table
        self.broadcasts[name] = sink
        return table, store

    def start(self) -> "Club":
        """Every table in a thread of its own; returns once all of them have begun."""
        from ..table import run
        begun = threading.Semaphore(0)

        def play(name: str) -> None:
            try:
                table, store = self._table(name)
            except Exception:
                log.exception("simulated %s could not start", name)
                self.results[name] = "failed"
                begun.release()
                return
            self.tables[name] = table
            begun.release()
            try:
                self.results[name] = run(table, self.players[name], stop=self._stop.is_set,
                                         wait=0.05)
            except Exception:   # one table's fault must not end the club night
                log.exception("simulated %s stopped", name)
                self.results[name] = "failed"
            finally:
                table.close()
                if store is not None:
                    store.close()

        for name in self.names:
            thread = threading.Thread(target=play, args=(name,), name=f"sim-{name}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)
        for _ in self.names:
            begun.acquire()
        return self

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until every table has played its games (or ``timeout``); True if done."""
        end = None if timeout is None else time.monotonic() + timeout
        for thread in self._threads:
            thread.join(None if end is None else max(0.0, end - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)

    def stop(self) -> None:
        """Stop every table; each lets its outputs finish and closes its archive."""
        self._stop.set()
        self.wait(15)

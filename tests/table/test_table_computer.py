"""A game against the computer at the table: the search runs off the loop and comes back
as requests, its move is announced as an event, the player makes it on the board and the
referee takes only that move; another move with the computer's pieces is a violation the
record keeps, and once the board is restored the move is asked again."""
import time

import pytest

from fenix_table.record import GameRecorder, GameStore
from fenix_table.rules import apply, legal_moves
from fenix_table.table import Action, GameSetup, Table
from fenix_tools.synthetic import observe_placement
from tests.table_loop import carry_out, show


class Listener:
    name = "listener"
    inline = True

    def __init__(self):
        self.events = []

    def handle(self, event):
        self.events.append(event)

    def kinds(self):
        return [e.kind for e in self.events]

    def last(self, kind):
        return next((e for e in reversed(self.events) if e.kind == kind), None)






@pytest.fixture
def game(tmp_path):
    store = GameStore(str(tmp_path / "games.sqlite3"))
    heard = Listener()
    table = Table(GameSetup(size="7x8", computer="black", computer_level=3,
                            computer_movetime=0.3),
                  record=GameRecorder(store), sinks=[heard])
    yield table, heard, store
    table.close()
    store.close()


def red_moves_first(table, heard):
    start = table.referee.position
    show(table, start, 0)
    first = sorted(m.token for m in legal_moves(start, table.referee.rules))[0]
    after = apply(start, first)
    show(table, after, 2)
    assert heard.last("move_committed").move == first
    return after


def test_the_computer_thinks_off_the_loop_and_announces_a_legal_move(game):
    table, heard, _ = game
    after = red_moves_first(table, heard)
    # The observation that gave Black the turn has returned; the move comes later, from
    # the worker, as requests the loop carries out.
    assert "computer_move" not in heard.kinds()
    carry_out(table, lambda: heard.last("computer_move") is not None)
    thinking = [e for e in heard.events if e.kind == "computer_thinking"]
    assert thinking and thinking[0].depth == 0 and thinking[0].fpn == after.fpn()
    assert heard.kinds().index("computer_thinking") < heard.kinds().index("computer_move")
    chosen = heard.last("computer_move")
    legal = {m.token: m for m in legal_moves(after, table.referee.rules)}
    assert chosen.side == "black" and chosen.fpn == after.fpn() and chosen.move in legal
    assert chosen.path == legal[chosen.move].path and chosen.level == 3
    assert table.referee.expected_move().move == chosen.move
    # The player makes it: committed like any move, no violation.
    show(table, apply(after, chosen.move), 4)
    assert heard.last("move_committed").move == chosen.move
    assert "violation" not in heard.kinds()
    assert table.referee.position.side == "red"


def test_another_move_with_the_computers_pieces_is_a_violation_until_restored(game):
    table, heard, store = game
    after = red_moves_first(table, heard)
    carry_out(table, lambda: heard.last("computer_move") is not None)
    chosen = heard.last("computer_move").move
    other = next(m.token for m in legal_moves(after, table.referee.rules) if m.token != chosen)
    show(table, apply(after, other), 4)
    violation = heard.last("violation")
    assert violation is not None and violation.code == "computer_asked"
    assert violation.attempted == other and violation.restore_to == after.fpn()
    assert dict(violation.params) == {"asked": chosen, "move": other}
    assert f"asked for {chosen}, not {other}" in violation.explanation
    assert table.referee.moves[-1] != other
    # The record keeps the violation with the game.
    assert any(e.kind == "violation" and e.attempted == other
               for _, e in store.events(table.game_id))
    # Restored: the violation clears and the computer's move is asked again.
    announced = len([e for e in heard.events if e.kind == "computer_move"])
    show(table, after, 6)
    kinds = heard.kinds()
    assert kinds[-2:] == ["violation_cleared", "computer_move"]
    assert heard.last("computer_move").move == chosen
    assert len([e for e in heard.events if e.kind == "computer_move"]) == announced + 1
    # Now the right move.
    show(table, apply(after, chosen), 8)
    assert heard.last("move_committed").move == chosen


def test_confirming_another_move_for_the_computer_is_refused(game):
    table, heard, _ = game
    after = red_moves_first(table, heard)
    carry_out(table, lambda: heard.last("computer_move") is not None)
    chosen = heard.last("computer_move").move
    other = next(m.token for m in legal_moves(after, table.referee.rules) if m.token != chosen)
    table.act(Action("confirm", (("tokens", (other,)),)))
    assert "the computer asked for" in (table.message or "")
    assert table.referee.position == after


def test_moving_the_computers_piece_before_it_chose_is_a_violation(tmp_path):
    heard = Listener()
    table = Table(GameSetup(size="7x8", computer="red", computer_level=3,
                            computer_movetime=0.3), sinks=[heard])
    try:
        start = table.referee.position
        show(table, start, 0)
        # The computer plays Red and has announced nothing yet (its requests wait for
        # the loop): Red's piece moved by hand.
        token = sorted(m.token for m in legal_moves(start, table.referee.rules))[0]
        show(table, apply(start, token), 2)
        violation = heard.last("violation")
        assert violation is not None and violation.code == "computer_not_ready"
        assert violation.restore_to == start.fpn() and table.referee.moves == []
        assert "before it has chosen" in violation.explanation
    finally:
        table.close()


def test_a_search_for_a_position_the_game_left_is_dropped(game):
    table, heard, _ = game
    after = red_moves_first(table, heard)
    table.act(Action("undo"))
    # Whatever the worker found for Black's position is no longer asked for.
    table.act(Action("computer_move", (("fpn", after.fpn()), ("token", "a1-b1"),
                                       ("depth", 1), ("score", 0))))
    assert heard.last("computer_move") is None and table.referee.expected_move() is None


def test_a_new_game_against_the_computer_from_the_dialog(tmp_path):
    heard = Listener()
    table = Table(GameSetup(size="7x8"), sinks=[heard])
    try:
        assert table.computer is None and table.referee.computer is None
        table.act(Action("new_game", (("size", "7x8"), ("computer", "red"), ("level", 2))))
        assert table.computer.side == "red" and table.computer.level == 2
        assert table.referee.computer == "red"
        # Red moves first: the computer is already at work.
        carry_out(table, lambda: heard.last("computer_move") is not None)
        assert heard.last("computer_move").level == 2
        table.act(Action("new_game", (("size", "7x8"), ("computer", "none"))))
        assert table.computer is None and table.referee.computer is None
    finally:
        table.close()


class BoardFeed:
    """The board as a camera would see it still, once per turn of the loop: a feed of
    observations (``observations = True``) whose board the scripted player changes."""

    observations = True

    def __init__(self, position):
        self.board = position.stacks()
        self.size = position.size
        self.index = -1
        self.ended = False
        self.asked_while_thinking = 0

    def start(self):
        return self

    def stop(self):
        pass

    def lost(self):
        return None

    def latest(self, timeout=0.0):
        time.sleep(min(timeout, 0.01))
        if self.ended:
            return None
        self.index += 1
        return self.index, observe_placement(self.board, self.size, self.index)


class Human:
    """Plays Red by the first legal move, and makes the computer's moves on the board as
    the display shows them; ``step`` is the loop's call after each observation."""

    def __init__(self, feed, plies):
        self.feed = feed
        self.plies = plies

    def step(self, table, index):
        model, referee = table.model, table.referee
        if model.thinking is not None:
            self.feed.asked_while_thinking += 1
        if len(referee.moves) >= self.plies or referee.state != "play":
            self.feed.ended = len(referee.moves) >= self.plies
            return
        position = referee.position
        if model.computer_move is not None and position.side == "black":
            self.feed.board = apply(position, model.computer_move.move).stacks()
        elif position.side == "red":
            token = sorted(m.token for m in legal_moves(position, referee.rules))[0]
            self.feed.board = apply(position, token).stacks()


def test_the_one_loop_carries_a_game_against_the_computer(tmp_path):
    from fenix_table.display.model import TableModel
    from fenix_table.table import run

    store = GameStore(str(tmp_path / "games.sqlite3"))
    heard = Listener()
    table = Table(GameSetup(size="7x8", computer="black", computer_level=8,
                            computer_movetime=0.4),
                  record=GameRecorder(store), sinks=[heard], model=TableModel())
    feed = BoardFeed(table.referee.position)
    try:
        why = run(table, feed, players=Human(feed, plies=6), max_seconds=120, wait=0.01)
        assert why == "ended"
        moves = [m.token for m in store.moves(table.game_id)]
        assert len(moves) == 6
        asked = [e.move for e in heard.events if e.kind == "computer_move"]
        assert moves[1::2] == asked          # Black's plies are exactly what it asked for
        assert "violation" not in heard.kinds()
        # The camera loop went on turning while the computer thought.
        assert feed.asked_while_thinking >= 3
    finally:
        table.close()
        store.close()

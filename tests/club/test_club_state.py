"""The club's game state folded from a real referee's events, and the checks a viewer
applies to every message: what a table sends passes them, what it would not send fails."""
from __future__ import annotations

import json

import pytest

from fenix_table.club import schema
from fenix_table.club.simulate import observation_of
from fenix_table.club.state import GameState
from fenix_table.club.viewer import Club
from fenix_table.referee import Referee
from fenix_table.rules import Position, apply


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def played(tokens, size="7x8", clock=None, undo=False):
    """A real referee watching ``tokens`` being played; its events folded into a state."""
    clock = clock or Clock()
    state = GameState("club", "t1", {"Red": "Ann", "Black": "Bo", "Secret": "x"}, clock)
    position = Position.start(size)
    referee = Referee(start=position)
    for event in referee.begin() + referee.observe(observation_of(position, 0)):
        state.apply(event)
    for index, token in enumerate(tokens, 1):
        clock.now += 10 * index          # ply n takes 10*n seconds
        position = apply(position, token)
        for event in referee.observe(observation_of(position, index)):
            state.apply(event)
    if undo:
        for event in referee.undo():
            state.apply(event)
    return state, referee, clock


def test_state_follows_the_game_with_clocks_and_turn():
    tokens = ["a1-b1", "g8-f8", "a2-b2", "g7-f7"]
    state, referee, clock = played(tokens)
    assert state.moves == tokens and state.fpn == referee.position.fpn()
    assert state.last_move == {"move": "g7-f7", "side": "black", "ply": 4, "captured": []}
    assert state.status == "setup" and state.running == "red"
    clock.now += 5
    # Red thought for plies 1 and 3 (10 + 30 s) and has been thinking 5 s now.
    assert state.clocks() == {"red": 45.0, "black": 60.0, "running": "red"}
    assert state.tags == {"Red": "Ann", "Black": "Bo"}    # only the record's own tags
    message = schema.read_message("fenix/club/t1/state",
                                  schema.encode(dict(state.to_json(7), session="s")))
    assert message.data["moves"] == tokens and message.data["side"] == "red"
    assert message.data["placement"]["b1"] == ["red", 2]   # the stacked soldier


def test_an_undone_move_leaves_the_state():
    state, referee, _ = played(["a1-b1", "g8-f8"], undo=True)
    assert state.moves == ["a1-b1"] and state.fpn == referee.position.fpn()


def good_state():
    state, _, _ = played(["a1-b1"])
    return dict(state.to_json(1), session="s1")


@pytest.mark.parametrize("change, complaint", [
    ({"fpn": "7x8 8/8 r 00 - 0"}, "fpn"),
    ({"moves": ["a1-b1", "drop table"]}, "is not a move"),
    ({"moves": ["a1-b1"] * (schema.MAX_MOVES + 1)}, "over 2000"),
    ({"status": "winning"}, "status"),
    ({"result": "2-0"}, "result"),
    ({"seq": -1}, "seq"),
    ({"sent": float("nan")}, "sent"),
    ({"clocks": {"red": "1", "black": 0.0}}, "red"),
    ({"schema": 2}, "schema"),
    ({"start": Position.start("9x9").fpn()}, "different boards"),
])
def test_a_state_a_table_would_not_send_is_refused(change, complaint):
    data = dict(good_state(), **change)
    with pytest.raises(schema.BadMessage, match=complaint):
        schema.read_message("fenix/club/t1/state", json.dumps(data).encode())


@pytest.mark.parametrize("topic", ["fenix/club/t1", "fenix/club/t1/state/x", "other/club/t1/state",
                                   "fenix/club/t 1/state", "fenix/club/t1/secret"])
def test_only_table_topics_are_read(topic):
    with pytest.raises(schema.BadMessage, match="not a table topic"):
        schema.read_message(topic, schema.encode(good_state()))


def test_the_viewer_keeps_the_newest_state_and_ignores_what_fails(caplog):
    club = Club("club")
    first = good_state()
    assert club.receive("fenix/club/t1/state", schema.encode(dict(first, seq=5)))
    # A retransmission of an older state of the same session is not taken...
    assert not club.receive("fenix/club/t1/state",
                            schema.encode(dict(first, seq=4, moves=[], fpn=first["start"])))
    assert club.table("t1").state["moves"] == ["a1-b1"]
    # ...a restarted table's (a new session) is.
    assert club.receive("fenix/club/t1/state",
                        schema.encode(dict(first, seq=1, session="s2", moves=[],
                                           fpn=first["start"])))
    assert club.table("t1").state["moves"] == []
    # Another club's table, and a faulty message: ignored, one log line each, no raise.
    assert not club.receive("fenix/other/t1/state", schema.encode(dict(first, club="other")))
    assert not club.receive("fenix/club/t1/event", b"\xff\xfe")
    assert club.ignored == 2
    assert len([r for r in caplog.records if "message ignored" in r.getMessage()]) == 2

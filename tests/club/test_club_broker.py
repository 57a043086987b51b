"""The club broadcast through a real mosquitto with passwords and the shipped ACL: several
simulated tables at once, the broker killed and restarted mid-game, logins and topics
that are not a table's own refused, hostile messages ignored."""
from __future__ import annotations

import json
import logging
import socket
import threading
import time
import urllib.request

import pytest

from fenix_table.club import archive, schema
from fenix_table.club.simulate import Club as SimulatedClub
from fenix_table.club.viewer import Club, Subscriber
from fenix_table.club.web import ViewerServer
from fenix_table.record import GameStore
from fenix_table.rules import Game, Position, parse_fgn
from tests.club.conftest import PASSWORDS, login, wait_for
from tests.club.mosquitto import free_port


def moves_seen(club, name):
    entry = club.table(name)
    return list(entry.state["moves"]) if entry is not None and entry.state else []


def finished(club, sim):
    """Every table's game over at the viewer."""
    return all((club.table(n) is not None and club.table(n).state is not None and
                club.table(n).state["status"] == "over") for n in sim.names)


@pytest.fixture
def viewer(broker):
    club = Club("club")
    subscriber = Subscriber(login(broker, "viewer"), club)
    assert subscriber.connected.wait(10)
    yield club
    subscriber.close()


def test_several_tables_play_at_once_and_the_viewer_has_every_game(broker, viewer, tmp_path):
    sim = SimulatedClub(login(broker, "viewer"), 3, rate=40, games=1, seed=7,
                        credentials=PASSWORDS, record=str(tmp_path)).start()
    try:
        assert sim.wait(60), "the simulated tables did not finish"
        assert wait_for(lambda: finished(viewer, sim), 15)
    finally:
        sim.stop()
    tables = {t["table"]: t for t in viewer.snapshot()}
    assert sorted(tables) == ["table01", "table02", "table03"]
    boards = set()
    for name in sim.names:
        played = sim.players[name].played[0]
        table = tables[name]
        assert table["moves"] == played and len(played) > 10       # every move, in order
        assert table["status"] == "over" and table["result"] in ("1-0", "0-1", "1/2-1/2")
        assert table["fpn"] == sim.tables[name].referee.position.fpn()
        # The players' own moves lead to that position (where a capture chain had two
        # routes to the same board, the table committed either).
        made = Game(Position.start(table["board"]))
        for token in sim.players[name].made[0]:
            made.push(token)
        assert made.position.fpn() == table["fpn"]
        boards.add(table["board"])
        # The table's own record is the same game.
        store = GameStore(str(tmp_path / f"{name}.sqlite3"))
        assert [m.token for m in store.moves(1)] == played
        store.close()
        # The viewer's FGN export replays to the same game.
        record = parse_fgn(archive.game_fgn("club", table))
        assert record.moves == played and record.result == table["result"]
        assert record.replay().position.fpn() == table["fpn"]
    assert boards == {"9x9", "7x8"}                                   # both faces
    # The whole round in one file: every table's game.
    games = archive.split_round(archive.round_fgn("club", viewer.snapshot()))
    assert [parse_fgn(g).moves for g in games] == [sim.players[n].played[0] for n in sim.names]
    # Once the tables close, the viewer shows them offline.
    assert wait_for(lambda: not any(t["online"] for t in viewer.snapshot()), 10)


def test_broker_killed_and_restarted_mid_game_loses_no_move(broker, viewer, tmp_path):
    events = []   # every move event a second subscriber hears, in order

    def hear(topic, payload):
        if topic.endswith("/event"):
            data = json.loads(payload)
            if data["event"]["event"] == "move_committed":
                events.append((data["table"], data["game"], data["event"]["ply"],
                               data["event"]["move"]))
    from fenix_table.club.mqtt import make_client, start
    ready = threading.Event()
    spy = make_client(login(broker, "viewer"), "spy", on_connect=lambda ok, why: (
        spy.subscribe("fenix/club/+/event", qos=1), ready.set()) if ok else None,
        on_disconnect=lambda why: None, on_message=hear)
    start(spy, login(broker, "viewer"))
    assert ready.wait(10)
    # Two games a table, the first ending (an agreed draw after 24 plies) and the second
    # beginning while the broker is away.
    sim = SimulatedClub(login(broker, "viewer"), 2, rate=15, games=2, max_plies=24, seed=11,
                        credentials=PASSWORDS, record=str(tmp_path)).start()

    def stored(name):
        with GameStore(str(tmp_path / f"{name}.sqlite3")) as store:
            return [[m.token for m in store.moves(g.id)] for g in store.list_games()]
    try:
        assert wait_for(lambda: all(len(moves_seen(viewer, n)) >= 14 for n in sim.names), 20)
        broker.kill()
        # Play goes on while the broker is away: moves are queued, the record written.
        assert wait_for(lambda: all(len(sim.players[n].played) == 2 and
                                    len(sim.players[n].played[1]) >= 5 for n in sim.names), 20)
        assert all(len(stored(n)) == 2 and len(stored(n)[0]) == 24 for n in sim.names)
        broker.start()
        assert sim.wait(60)
        assert wait_for(lambda: finished(viewer, sim), 20)
    finally:
        sim.stop()
        spy.disconnect()
        spy.loop_stop()
    for name in sim.names:
        played = sim.players[name].played
        assert stored(name) == played
        # The viewer has both games, every move in order: the first one's last moves
        # came only as the events queued while the broker was away.
        round_ = [g for g in viewer.round() if g["table"] == name]
        assert [g["moves"] for g in round_] == played
        assert [g["result"] for g in round_] == ["1/2-1/2", "1/2-1/2"]
        assert moves_seen(viewer, name) == played[1]
        # The second subscriber (no session kept for it: it may miss what was sent while
        # it was itself reconnecting) never hears a ply twice or out of order.
        for game in (1, 2):
            heard = [(ply, move) for table, g, ply, move in events if (table, g) == (name, game)]
            plies = [ply for ply, _ in heard]
            assert plies == sorted(set(plies))
            assert all(played[game - 1][ply - 1] == move for ply, move in heard)
        assert plies[-1] == len(played[1])
    games = archive.split_round(archive.round_fgn("club", viewer.round()))
    assert [parse_fgn(g).moves for g in games] == [m for n in sim.names
                                                   for m in sim.players[n].played]


class Cable:
    """A TCP relay between the tables and the broker that can be cut and mended, as a
    table's network going away while the broker and the viewer stay up."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.port = free_port()
        self.links = []
        self.server = None
        self.mend()

    def mend(self) -> None:
        self.server = socket.create_server(("127.0.0.1", self.port), reuse_port=True)
        threading.Thread(target=self._accept, args=(self.server,), daemon=True).start()

    def _accept(self, server) -> None:
        while True:
            try:
                near, _ = server.accept()
            except OSError:
                return
            far = socket.create_connection(("127.0.0.1", self.target))
            self.links += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        try:
            self.server.shutdown(socket.SHUT_RDWR)   # wakes the accepting thread
        except OSError:
            pass
        self.server.close()
        for link in self.links:
            try:
                link.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            link.close()
        self.links = []


def test_a_table_cut_off_sends_its_queued_moves_in_order_once_back(broker, viewer, tmp_path):
    from fenix_table.club.mqtt import Broker
    events = []

    def hear(topic, payload):
        data = json.loads(payload)
        if data["event"]["event"] == "move_committed":
            events.append((data["table"], data["event"]["ply"], data["event"]["move"]))
    from fenix_table.club.mqtt import make_client, start
    ready = threading.Event()
    spy = make_client(login(broker, "viewer"), "spy", on_connect=lambda ok, why: (
        spy.subscribe("fenix/club/+/event", qos=1), ready.set()) if ok else None,
        on_disconnect=lambda why: None, on_message=hear)
    start(spy, login(broker, "viewer"))
    assert ready.wait(10)
    cable = Cable(broker.port)
    sim = SimulatedClub(Broker(f"mqtt://127.0.0.1:{cable.port}"), 2, rate=15, games=1,
                        seed=5, max_plies=60, credentials=PASSWORDS).start()
    try:
        assert wait_for(lambda: all(len(moves_seen(viewer, n)) >= 8 for n in sim.names), 20)
        cable.cut()
        cut_at = {n: len(sim.tables[n].referee.moves) for n in sim.names}
        assert wait_for(lambda: all(len(sim.tables[n].referee.moves) >= cut_at[n] + 10
                                    for n in sim.names), 20)
        heard_while_cut = len(events)
        time.sleep(0.3)
        assert len(events) == heard_while_cut     # nothing gets through the cut cable
        cable.mend()
        assert sim.wait(60)
        assert wait_for(lambda: finished(viewer, sim), 20)
    finally:
        sim.stop()
        cable.cut()
        spy.disconnect()
        spy.loop_stop()
    for name in sim.names:
        played = sim.players[name].played[0]
        # The subscriber that stayed connected heard every move exactly once, in order:
        # those queued while the cable was cut came when it was mended.
        assert [(ply, move) for table, ply, move in events if table == name] == \
            list(enumerate(played, 1))
        assert moves_seen(viewer, name) == played


def test_a_table_may_publish_only_under_its_own_topic(broker, viewer, caplog):
    from fenix_table.club.mqtt import make_client, start
    from fenix_table.club.state import GameState
    from fenix_table.referee import events as ev
    from fenix_table.rules import Position

    def client_of(user):
        done = threading.Event()
        outcome = {}

        def connected(ok, why):
            outcome["ok"], outcome["why"] = ok, why
            done.set()
        client = make_client(login(broker, user), f"test-{user}", on_connect=connected,
                             on_disconnect=lambda why: None)
        start(client, login(broker, user))
        assert done.wait(10)
        return client, outcome

    # A wrong password is refused at the door.
    from fenix_table.club.mqtt import Broker
    wrong = Broker(broker.url, username="table01", password="guess")
    done = threading.Event()
    refused = {}
    client = make_client(wrong, "guesser", on_connect=lambda ok, why: (
        refused.update(ok=ok, why=why), done.set()), on_disconnect=lambda why: None)
    start(client, wrong)
    assert done.wait(10) and refused["ok"] is False
    client.disconnect()
    client.loop_stop()

    state = GameState("club", "table02")
    state.apply(ev.GameStarted(fpn=Position.start("7x8").fpn(), rules="official"))
    forged = dict(state.to_json(1), session="forged")
    table01, outcome = client_of("table01")
    assert outcome["ok"]
    caplog.set_level(logging.WARNING, logger="fenix_table.club.viewer")
    # table01 writing to table02's topic: the broker's ACL drops it.
    table01.publish("fenix/club/table02/state", schema.encode(forged), qos=1).wait_for_publish(5)
    # table01 on its own topic, but a state that claims to be table02's: the viewer drops it.
    table01.publish("fenix/club/table01/state", schema.encode(forged), qos=1).wait_for_publish(5)
    # Malformed JSON, a huge payload, a position the rules refuse, garbage on "online".
    table01.publish("fenix/club/table01/state", b"{not json", qos=1).wait_for_publish(5)
    table01.publish("fenix/club/table01/event", b"x" * (schema.MAX_PAYLOAD + 1),
                    qos=1).wait_for_publish(5)
    bad_fpn = dict(state.to_json(2), table="table01", session="s1", fpn="9x9 K8/9 r 00 - 0")
    table01.publish("fenix/club/table01/state", schema.encode(bad_fpn), qos=1).wait_for_publish(5)
    table01.publish("fenix/club/table01/online", b"maybe", qos=1).wait_for_publish(5)
    # Then a good message from table01: the viewer is alive and took only that.
    good = GameState("club", "table01")
    good.apply(ev.GameStarted(fpn=Position.start("9x9").fpn(), rules="official"))
    table01.publish("fenix/club/table01/state", schema.encode(dict(good.to_json(3), session="s1")),
                    qos=1).wait_for_publish(5)
    assert wait_for(lambda: viewer.table("table01") is not None and
                    viewer.table("table01").state is not None, 10)
    table01.disconnect()
    table01.loop_stop()
    assert viewer.table("table02") is None                      # neither forgery landed
    assert viewer.table("table01").state["board"] == "9x9"
    assert viewer.ignored == 5
    lines = [r.getMessage() for r in caplog.records if "message ignored" in r.getMessage()]
    assert len(lines) == 5
    assert any("names table 'club'/'table02'" in line for line in lines)
    assert any("not JSON" in line for line in lines)
    assert any("over the limit" in line for line in lines)
    assert any("fpn" in line for line in lines)
    # The viewer (read-only login) cannot publish a table's state either.
    viewer_client, outcome = client_of("viewer")
    viewer_client.publish("fenix/club/table03/state", schema.encode(dict(
        good.to_json(4), table="table03", session="s2")), qos=1).wait_for_publish(5)
    time.sleep(0.5)
    viewer_client.disconnect()
    viewer_client.loop_stop()
    assert viewer.table("table03") is None


def test_api_tables_and_fgn_over_http(broker, viewer):
    sim = SimulatedClub(login(broker, "viewer"), 2, rate=40, games=1, seed=3, max_plies=30,
                        credentials=PASSWORDS).start()
    server = ViewerServer(("127.0.0.1", 0), viewer, club_name="club")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert sim.wait(60)
        assert wait_for(lambda: finished(viewer, sim), 15)
        with urllib.request.urlopen(base + "/api/tables") as reply:
            assert reply.headers["Content-Type"] == "application/json"
            tables = json.load(reply)
        assert [t["table"] for t in tables] == ["table01", "table02"]
        for table in tables:
            assert {"table", "online", "fpn", "moves", "status", "result"} <= set(table)
            played = sim.players[table["table"]].played[0]
            assert table["moves"] == played
            # max_plies 30: a game still going then ends in an agreed draw.
            assert len(played) <= 30
            if len(played) == 30:
                assert table["result"] == "1/2-1/2"
            with urllib.request.urlopen(f"{base}/api/tables/{table['table']}/game.fgn") as r:
                record = parse_fgn(r.read().decode())
            assert record.moves == played and record.tags["Site"] == f"club, table {table['table']}"
        with urllib.request.urlopen(base + "/api/round.fgn") as reply:
            games = archive.split_round(reply.read().decode())
        assert len(games) == 2
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "/api/tables/table99")
        assert missing.value.code == 404
        # Read-only: nothing but GET (and HEAD) is answered.
        request = urllib.request.Request(base + "/api/tables", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as post:
            urllib.request.urlopen(request)
        assert post.value.code == 501
    finally:
        sim.stop()
        server.shutdown()
        server.server_close()

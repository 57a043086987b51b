"""The viewer's page in a real headless Chromium (Debian's, driven by Playwright; never a
downloaded browser): boards update live as simulated tables play, a click opens one
game with its move list, a phone gets one column without sideways scrolling, and the
arbiter's view (behind its password) explains a violation a table's referee found."""
from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request

import cv2
import numpy as np
import pytest

from fenix_table.club.broadcast import BroadcastSink
from fenix_table.club.simulate import Club as SimulatedClub
from fenix_table.club.simulate import observation_of
from fenix_table.club.viewer import Club, Subscriber
from fenix_table.club.web import ViewerServer
from fenix_table.rules import Position
from fenix_table.table import GameSetup, Table
from tests.club.conftest import PASSWORDS, login, wait_for

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run "
                    "does it)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def site(broker):
    """The viewer (club "club", arbiter password "arbiter-pw") on a free port."""
    club = Club("club")
    subscriber = Subscriber(login(broker, "viewer"), club)
    server = ViewerServer(("127.0.0.1", 0), club, arbiter_password="arbiter-pw",
                          club_name="club")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield club, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    subscriber.close()


def plies(page, table):
    return page.eval_on_selector(f"#table-{table}", "e => Number(e.dataset.plies)")


def test_boards_update_live_and_a_click_opens_the_game(broker, site, browser, tmp_path):
    club, base = site
    sim = SimulatedClub(login(broker, "viewer"), 2, rate=6, games=1, seed=5, max_plies=60,
                        credentials=PASSWORDS).start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(base + "/")
        page.wait_for_selector("#table-table01 svg.board circle")
        page.wait_for_selector("#table-table02 svg.board circle")
        first = plies(page, "table01")
        # Live: the page follows the games without reloading.
        page.wait_for_function("n => Number(document.querySelector('#table-table01')"
                               ".dataset.plies) >= n + 3", arg=first, timeout=15000)
        assert page.inner_text("#conn") == "live"
        # One stone (circle) per occupied cell of what the page was sent, on both faces.
        for table, size in (("table01", "9x9"), ("table02", "7x8")):
            # State and drawing read in one call: the games go on meanwhile.
            state, stones, marks = page.evaluate(
                "t => [tables.get(t), document.querySelectorAll(`#table-${t} g.stone`).length,"
                " document.querySelectorAll(`#table-${t} .lastmove`).length]", table)
            assert state["board"] == size
            assert stones == len(state["placement"])
            if state["last_move"]:
                assert marks >= 2
        players = page.inner_text("#table-table01 .players")
        assert "table01 red" in players and "table01 black" in players
        page.click("#table-table02")
        page.wait_for_selector("#detail.open")
        page.wait_for_function("() => document.querySelectorAll('#movelist td').length > 3")
        shown = page.eval_on_selector_all("#movelist td:not(.n)", "c => c.map(x => x.textContent)")
        shown = [m for m in shown if m]
        moves = list(sim.tables["table02"].referee.moves)   # the table's game, now
        assert shown == moves[:len(shown)] and len(shown) >= 3
        assert page.get_attribute("#dfgn", "href") == "/api/tables/table02/game.fgn"
        page.click("#dclose")
        page.wait_for_selector("#detail", state="hidden")
        picture = tmp_path / "club-page.png"
        page.screenshot(path=str(picture), full_page=True)
    finally:
        sim.stop()
    image = cv2.imread(str(picture))
    assert image is not None and image.shape[1] == 1280
    b, g, r = (image[..., i].astype(int) for i in range(3))
    red_stones = np.count_nonzero((r > 180) & (g < 90) & (b < 90))
    assert red_stones > 2000   # the red stones of two boards are drawn, not just a frame


def test_a_phone_gets_one_column_without_sideways_scrolling(broker, site, browser):
    club, base = site
    sim = SimulatedClub(login(broker, "viewer"), 3, rate=20, games=1, seed=2, max_plies=6,
                        credentials=PASSWORDS).start()
    try:
        assert sim.wait(30)
        assert wait_for(lambda: len(club.snapshot()) == 3, 10)
        page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                is_mobile=True, has_touch=True)
        page.goto(base + "/")
        page.wait_for_selector("#table-table03 svg.board")
        boxes = [page.locator(f"#table-table0{i}").bounding_box() for i in (1, 2, 3)]
        assert len({round(b["x"]) for b in boxes}) == 1                  # one column
        assert all(b["width"] <= 390 and b["width"] > 300 for b in boxes)  # boards fill it
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        # A projector (1920 wide) shows them side by side.
        wide = browser.new_page(viewport={"width": 1920, "height": 1080})
        wide.goto(base + "/")
        wide.wait_for_selector("#table-table03 svg.board")
        rows = {round(wide.locator(f"#table-table0{i}").bounding_box()["y"]) for i in (1, 2, 3)}
        assert len(rows) == 1
    finally:
        sim.stop()


def test_the_arbiter_sees_the_violation_behind_a_password(broker, site, browser):
    club, base = site
    # A table whose referee sees an illegal setup move: a soldier put on an empty cell.
    sink = BroadcastSink(login(broker, "table05"), "club", "table05")
    table = Table(GameSetup(size="7x8"), sinks=[sink])
    start = Position.start("7x8")
    table.observe(observation_of(start, 0), 0)
    stacks = dict(start.stacks())
    stacks["d4"] = stacks.pop("a2")
    illegal = Position.from_placement("7x8", stacks, "red")
    for index in (1, 2):
        table.observe(observation_of(illegal, index), index)
    try:
        assert wait_for(lambda: club.table("table05") is not None and
                        club.table("table05").state is not None and
                        club.table("table05").state["status"] == "violation", 10)
        public = browser.new_page()
        public.goto(base + "/")
        public.wait_for_selector("#table-table05.violation")
        assert "arbiter" in public.inner_text("#table-table05 .flag")     # flagged, no detail
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/arbiter")
        assert refused.value.code == 401
        assert refused.value.headers["WWW-Authenticate"].startswith("Basic")
        context = browser.new_context(http_credentials={"username": "arbiter",
                                                        "password": "arbiter-pw"})
        arbiter = context.new_page()
        assert arbiter.goto(base + "/arbiter").status == 200
        arbiter.wait_for_selector("#table-table05.violation")
        flag = arbiter.inner_text("#table-table05 .flag")
        assert "soldier on another of your pieces" in flag
        # The cells of the violation are marked on the board.
        assert arbiter.eval_on_selector_all("#table-table05 rect[stroke='#ff3d8b']",
                                            "r => r.length") == 2
        context.close()
    finally:
        table.close()

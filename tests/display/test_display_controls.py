"""Touch, mouse and keys: requests come out as actions; the game changes only through
the referee; review steps through this game and stored ones."""
import pygame
import pytest

from fenix_table.display.model import TableModel
from fenix_table.record import GameRecorder
from fenix_table.table import GameSetup, Table
from fenix_table.display.controls import (Action, UiState, calibration_view, choice_rects,
                                          dialog_rects, handle, narrowed)
from fenix_table.display.layout import BoardGeometry, make_layout
from fenix_table.display.render import Renderer
from fenix_table.record import GameStore
from fenix_tools.synthetic import observe_placement
from fenix_table.rules import Position, apply


def click(pos):
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)


def touch(pos, layout):
    return pygame.event.Event(pygame.FINGERDOWN, x=pos[0] / layout.width,
                              y=pos[1] / layout.height, finger_id=0, touch_id=0)


def key(k):
    return pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="")


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_new_game_dialog_by_touch(size):
    layout = make_layout(*size)
    ui = UiState()
    assert handle(touch(layout.buttons["new_game"].center, layout), ui, layout) == []
    assert ui.dialog == "new_game"
    rects = dialog_rects(layout, ui)
    for choice in ("size:7x8", "preset:strike", "mode:casual", "computer:black", "level:6"):
        assert handle(touch(rects[choice].center, layout), ui, layout) == []
    # Every row fits in the box, above the start button, without overlapping the next.
    rows = [rects[f"label:{name}"] for name in ("size", "preset", "mode", "computer", "level")]
    assert all(rects["box"].contains(r) for r in rows)
    assert all(a.bottom <= b.top for a, b in zip(rows, rows[1:]))
    assert rows[-1].bottom <= rects["start"].top
    actions = handle(click(rects["start"].center), ui, layout)
    assert actions == [Action("new_game", (("size", "7x8"), ("preset", "strike"),
                                           ("mode", "casual"), ("computer", "black"),
                                           ("level", 6)))]
    assert ui.dialog is None


def test_keys_and_buttons_map_to_requests():
    layout = make_layout(800, 480)
    ui = UiState()
    assert handle(key(pygame.K_u), ui, layout) == [Action("undo")]
    assert handle(key(pygame.K_d), ui, layout, side_to_move="black") == \
        [Action("offer_draw", (("side", "black"),))]
    assert handle(key(pygame.K_d), ui, layout, draw_offered=True) == \
        [Action("accept_draw", (("side", "red"),))]
    assert handle(click(layout.buttons["resign"].center), ui, layout) == []
    rects = dialog_rects(layout, ui)
    assert handle(click(rects["side:black"].center), ui, layout) == \
        [Action("resign", (("side", "black"),))]
    handle(key(pygame.K_l), ui, layout)
    handle(key(pygame.K_o), ui, layout)
    assert (ui.language, ui.rotation) == ("de", 1)
    handle(click(layout.corner_buttons["rotate"].center), ui, layout)
    assert ui.rotation == 2
    # A tap arrives as a finger and as SDL's mouse copy of it: it counts once.
    centre = layout.corner_buttons["rotate"].center
    handle(touch(centre, layout), ui, layout)
    handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre, button=1, touch=True), ui, layout)
    assert ui.rotation == 3
    assert handle(key(pygame.K_ESCAPE), ui, layout) == [Action("quit")]
    choices = ("a1-b1", "a1-a2")
    rect = choice_rects(layout, choices)["choice:1"]
    assert handle(click(rect.center), ui, layout, choices=choices) == \
        [Action("confirm", (("tokens", ("a1-a2",)),))]
    assert handle(key(pygame.K_1), ui, layout, choices=choices) == \
        [Action("confirm", (("tokens", ("a1-b1",)),))]


def test_four_corner_clicks_give_image_points():
    layout = make_layout(800, 480)
    ui = UiState()
    handle(key(pygame.K_c), ui, layout)
    assert ui.dialog == "calibrate"
    view = calibration_view(layout, (640, 480))
    scale = 640 / view.w
    corners = [(view.x + 50, view.bottom - 20), (view.right - 30, view.bottom - 25),
               (view.right - 40, view.y + 10), (view.x + 60, view.y + 20)]
    actions = []
    for corner in corners:
        actions = handle(click(corner), ui, layout, image_size=(640, 480))
    (action,) = actions
    assert action.name == "calibrate_corners" and ui.dialog is None
    expected = [((x - view.x) * scale, (y - view.y) * scale) for x, y in corners]
    got = [v for point in action.arg("corners") for v in point]
    assert got == pytest.approx([v for point in expected for v in point])


def test_review_steps_through_this_game_and_stored_games(tmp_path):
    store = GameStore(str(tmp_path / "games.sqlite3"))
    table = Table(GameSetup(size="7x8"), record=GameRecorder(store), model=TableModel())
    position = Position.start("7x8")
    table.referee.observe(observe_placement(position.stacks(), "7x8", 1))
    for frame, token in enumerate(("a1-b1", "g8-f8"), start=2):
        position = apply(position, token)
        table._emit(table.referee.observe(observe_placement(position.stacks(), "7x8", frame)))
    assert table.model.moves == ["a1-b1", "g8-f8"]
    first_id = table.game_id
    table.act(Action("new_game", (("size", "9x9"),)))
    layout = make_layout(800, 480)
    ui = UiState()
    renderer = Renderer()
    surface = pygame.Surface((800, 480))

    def press(name):
        history = len(table.model.review_history()[0])
        for action in handle(click(dialog_rects(layout, ui)[name].center), ui, layout,
                             history_len=history):
            table.act(action)
        return renderer.draw(surface, table.model, ui)

    handle(key(pygame.K_v), ui, layout, history_len=1)
    assert ui.dialog == "review"
    drawn = press("older")                       # the 7x8 game just played
    assert table.model.reviewed.id == first_id
    assert renderer.geometry.files == 7          # drawn on its own board side
    assert any("2 / 2" in d.text for d in drawn if d.role == "turn")
    press("back")
    drawn = press("back")
    assert ui.review_ply == 0 and any("0 / 2" in d.text for d in drawn if d.role == "turn")
    press("forward")
    assert renderer.geometry is not None
    drawn = renderer.draw(surface, table.model, ui)
    assert [d.text for d in drawn if d.role == "banner"] == ["a1-b1"]
    press("older")                               # nothing older: a notice, same game
    assert table.model.reviewed.id == first_id
    assert table.model.notice.code == "no_other_game"
    press("close")
    assert table.model.reviewed is None and ui.dialog is None
    store.close()


def test_touching_the_cell_a_stone_went_to_picks_among_many_moves():
    layout = make_layout(800, 480)
    ui = UiState(rotation=1)
    geo = BoardGeometry(layout.board, 7, 8, ui.rotation)

    def touch_cell(cell):
        return handle(click(geo.centre(cell)), ui, layout, choices=choices, board="7x8")

    # A setup stacking move the camera saw only as c2 emptied: sixteen candidates, four
    # buttons.
    choices = tuple(f"c2-{cell}" for cell in ("a1", "a2", "a3", "b1", "b2", "b3", "c1", "c3",
                                               "d1", "d2", "d3", "e1", "e2", "f1"))
    choices += ("a2-b3 f8-e8", "a2-b3 f8-f7")
    assert touch_cell("c3") == \
        [Action("confirm", (("tokens", ("c2-c3",)),))]
    assert ui.picked == ()
    # b3 is where three of them land: the buttons narrow to those three.
    assert touch_cell("b3") == []
    assert narrowed(choices, ui) == ("c2-b3", "a2-b3 f8-e8", "a2-b3 f8-f7")
    rect = choice_rects(layout, narrowed(choices, ui))["choice:2"]
    assert handle(click(rect.center), ui, layout, choices=choices, board="7x8") == \
        [Action("confirm", (("tokens", ("a2-b3", "f8-f7")),))]
    assert ui.picked == ()
    # ... or a second touch (e8) leaves one.
    touch_cell("b3")
    assert touch_cell("e8") == \
        [Action("confirm", (("tokens", ("a2-b3", "f8-e8")),))]
    # Touches for other choices do not narrow new ones; a cell no move lands on, nothing.
    touch_cell("b3")
    assert narrowed(("g1-g2", "g1-f1"), ui) == ("g1-g2", "g1-f1")
    assert touch_cell("g8") == []
    assert narrowed(choices, ui) == choices

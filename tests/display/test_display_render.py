"""Screenshots of the table checked pixel by pixel: paths, marks, banners, states.

The referee is the real one, fed observations of known placements (the camera is the
only thing faked); the renderer draws on an off-screen surface under SDL's dummy driver.
"""
import pygame
import pytest

from fenix_table.display.controls import UiState
from fenix_table.display.i18n import Translator
from fenix_table.display.layout import make_layout
from fenix_table.display.model import TableModel
from fenix_table.display.render import (JUMPED, PATH_COLOURS, REMOVE, VIOLATION, RED_STONE,
                                        Renderer)
from fenix_table.referee import Referee
from fenix_tools.synthetic import observe_placement
from fenix_table.rules import Position

# Red's soldier on c3 must jump c4, land on c5, turn and jump d5 to land on e5.
CHAIN = "7x8 6k/7/7/3s3/2s4/2S4/7/K6 r 55 - 0"


def play(fpn, *boards, patience_repeats=2):
    """A referee at ``fpn`` that has seen the position, then each board in turn
    (``patience_repeats`` times each); returns (referee, model)."""
    position = Position.from_fpn(fpn)
    referee = Referee(start=position, board=position.size)
    model = TableModel()
    model.apply_all(referee.begin())
    model.apply_all(referee.observe(observe_placement(position.stacks(), position.size, 1)))
    frame = 2
    for board in boards:
        for _ in range(patience_repeats):
            model.apply_all(referee.observe(observe_placement(board, position.size, frame)))
            frame += 1
    return referee, model


def draw(model, size=(800, 480), **ui):
    surface = pygame.Surface(size)
    renderer = Renderer()
    drawn = renderer.draw(surface, model, UiState(**ui))
    return surface, renderer, drawn


def cells_with(surface, geometry, colour, cells):
    """The cells whose square holds at least a few pixels of exactly ``colour``."""
    found = set()
    for cell in cells:
        rect = geometry.cell_rect(cell).inflate(-2, -2)
        count = 0
        for x in range(rect.left, rect.right, 2):
            for y in range(rect.top, rect.bottom, 2):
                if tuple(surface.get_at((x, y)))[:3] == colour:
                    count += 1
        if count >= 3:
            found.add(cell)
    return found


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_compulsory_capture_path_crosses_exactly_its_cells(rotation, size):
    _, model = play(CHAIN)
    assert [plan.token for plan in model.capture] == ["c3xc5xe5"]
    assert model.capture[0].jumped == ("c4", "d5")
    surface, renderer, drawn = draw(model, size, rotation=rotation)
    cells = Position.from_fpn(CHAIN).cells
    geometry = renderer.geometry
    assert cells_with(surface, geometry, PATH_COLOURS[0], cells) == {"c3", "c4", "c5", "d5", "e5"}
    # The jumped stones carry the white cross, nothing else does.
    assert cells_with(surface, geometry, JUMPED, cells) == {"c4", "d5"}
    assert any(d.role == "banner_heading" and d.text == "Red must capture!" for d in drawn)


def test_two_maximal_captures_get_two_colours():
    _, model = play("9x9 8k/9/3s5/9/3s1s3/9/3s5/3G5/K8 r 55 - 4")
    assert sorted(p.token for p in model.capture) == ["d2xd4xd6xd8", "d2xd4xd6xd9"]
    surface, renderer, _ = draw(model)
    cells = Position.start("9x9").cells
    first, second = (cells_with(surface, renderer.geometry, PATH_COLOURS[i], cells) for i in (0, 1))
    # Each alternative is visible: the shared trunk under the first colour, the second
    # path's own landing cell (d9) in its colour.
    assert {"d2", "d8"} <= first and "d9" not in first
    assert "d9" in second


@pytest.mark.parametrize("language", ["en", "de", "fr", "nl"])
def test_violation_banner_says_the_referees_sentence_and_marks_its_cells(language):
    before = Position.from_fpn(CHAIN).stacks()
    wrong = dict(before)
    wrong["b3"] = wrong.pop("c3")          # a plain step while a capture is compulsory
    referee, model = play(CHAIN, wrong)
    violation = model.violation
    assert violation is not None and violation.code == "capture_compulsory"
    surface, renderer, drawn = draw(model, language=language)
    banner = [d.text for d in drawn if d.role == "banner"]
    sentence = Translator(language).referee(violation.code, violation.params)
    assert len(banner) == 1 and banner[0].lower().startswith(sentence.lower())
    if language == "en":
        assert banner[0].lower().startswith(violation.explanation.lower())
    geometry = renderer.geometry
    marked = cells_with(surface, geometry, VIOLATION, Position.from_fpn(CHAIN).cells)
    assert marked == set(violation.cells)
    # The board shows the position to restore: the soldier back on c3, b3 empty.
    assert tuple(surface.get_at(geometry.centre("c3")))[:3] == RED_STONE
    assert tuple(surface.get_at(geometry.centre("b3")))[:3] != RED_STONE
    # Put back: the banner goes.
    model.apply_all(referee.observe(observe_placement(before, "7x8", 50)))
    assert model.violation is None
    _, _, drawn = draw(model)
    assert not [d for d in drawn if d.role == "banner" and d.text.startswith("Capture")]


def test_pending_removal_marks_the_stones_to_take_off():
    before = Position.from_fpn(CHAIN).stacks()
    landed = dict(before)
    landed["e5"] = landed.pop("c3")
    referee, model = play(CHAIN, landed)
    assert model.pending is not None and set(model.pending.cells) == {"c4", "d5"}
    placement = model.placement()
    assert placement["e5"] == ("red", 1) and "c3" not in placement and "c4" in placement
    surface, renderer, drawn = draw(model)
    cells = Position.from_fpn(CHAIN).cells
    assert cells_with(surface, renderer.geometry, REMOVE, cells) == {"c4", "d5"}
    assert any(d.role == "banner_heading" and d.text == "Take off the captured stones"
               for d in drawn)
    done = {c: p for c, p in landed.items() if c not in ("c4", "d5")}
    model.apply_all(referee.observe(observe_placement(done, "7x8", 60)))
    assert model.moves == ["c3xc5xe5"] and model.pending is None
    assert model.side == "black"


def test_a_stacking_question_marks_at_most_the_three_likeliest_stacks():
    import dataclasses

    from fenix_table.display.render import SYNC
    from fenix_table.rules import apply

    start = Position.start("7x8")
    after = apply(apply(start, "a1-c2"), "g8-e7")   # two setup plies, no still board between
    for changes, marked, hint in (({"c2": 5.0, "e7": 5.0}, {"c2", "e7"}, "the likeliest are marked"),
                                  ({}, set(), "did not see where the stone went")):
        referee = Referee(board="7x8")
        model = TableModel()
        model.apply_all(referee.begin())
        model.apply_all(referee.observe(observe_placement(start.stacks(), "7x8", 1)))
        obs = observe_placement(after.stacks(), "7x8", 2, heights=False)
        obs = dataclasses.replace(obs, changes={**{c: 0.0 for c in obs.cells}, **changes})
        model.apply_all(referee.observe(obs))
        assert len(model.choices()) == 400
        surface, renderer, drawn = draw(model)
        assert cells_with(surface, renderer.geometry, SYNC, start.cells) == marked
        assert any(d.role == "banner" and hint in d.text for d in drawn)


def test_camera_states_are_unmissable():
    from fenix_table.referee.events import BoardView
    _, model = play(CHAIN)
    for view, text in ((BoardView(board_found=True, hand=False, camera_ok=False), "Camera lost"),
                       (BoardView(board_found=False, hand=False), "Board not found"),
                       (BoardView(board_found=False, hand=False, searching=True), "Looking for the board…"),
                       (BoardView(board_found=True, hand=True), "Hand over the board")):
        model.apply(view)
        _, _, drawn = draw(model)
        assert [d.text for d in drawn if d.role == "camera_state"] == [text]


@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1920, 1080)])
def test_layout_fits_the_screen_without_overlaps(size):
    layout = make_layout(*size)
    screen = pygame.Rect(0, 0, *size)
    rects = list(layout.buttons.values()) + list(layout.corner_buttons.values())
    for rect in rects + [layout.board, layout.status, layout.banner, layout.inset, layout.moves]:
        assert screen.contains(rect)
    for i, a in enumerate(rects):
        assert a.collidelist(rects[i + 1:]) == -1
    assert not layout.board.colliderect(layout.panel)
    # A busy screen (violation, move list, German) keeps every text on screen.
    before = Position.from_fpn(CHAIN).stacks()
    wrong = dict(before)
    wrong["b3"] = wrong.pop("c3")
    _, model = play(CHAIN, wrong)
    _, _, drawn = draw(model, size, language="de")
    for item in drawn:
        assert screen.contains(item.rect), item
    # Readable from 1.5 m: the banner font is at least 5 % of the screen height.
    assert layout.font_px("banner") >= 0.05 * size[1]


def test_out_of_sync_offers_its_fixes_on_the_banner():
    from fenix_table.display.controls import fix_rects, handle
    position = Position.from_fpn(CHAIN)
    referee = Referee(start=position, board="7x8", mode="casual")
    model = TableModel(mode="casual")
    model.apply_all(referee.begin())
    model.apply_all(referee.observe(observe_placement(position.stacks(), "7x8", 1)))
    # Five new stones appear: no move explains that.
    knocked = dict(position.stacks())
    for cell in ("a3", "a4", "a5", "b5", "b6"):
        knocked[cell] = ("black", 1)
    for frame in (2, 3):
        model.apply_all(referee.observe(observe_placement(knocked, "7x8", frame)))
    assert model.out_of_sync is not None and model.fixes() == ("confirm_board", "play_on")
    surface, renderer, drawn = draw(model, language="de")
    assert [d.text for d in drawn if d.role == "fix"] == ["Das Brett stimmt", "Weiterspielen"]
    assert set(model.marked_cells()) == {"a3", "a4", "a5", "b5", "b6"}
    layout = renderer.layout
    rect = fix_rects(layout, model.fixes())["fix:confirm_board"]
    event = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1)
    (action,) = handle(event, UiState(), layout, fixes=model.fixes())
    assert action.name == "confirm" and action.arg("tokens") == ()
    # The players say the board is right (the camera misreads it): back in step.
    model.apply_all(referee.confirm(action.arg("tokens")))
    assert model.out_of_sync is None and model.fixes() == ()


def test_long_button_words_break_at_their_soft_hyphens_instead_of_shrinking():
    from fenix_table.display.render import SHY
    renderer = Renderer()
    px = 17
    wide = renderer.font(px).size("Nachspielen")[0]
    assert renderer.wrap(f"Nach{SHY}spielen", px, wide) == ["Nachspielen"]
    assert renderer.wrap(f"Nach{SHY}spielen", px, wide - 10) == ["Nach-", "spielen"]
    # On the 7" screen the long German buttons keep (nearly) the button font size.
    _, model = play(CHAIN)
    _, renderer, drawn = draw(model, (800, 480), language="de")
    layout = renderer.layout
    keys = {"Aufgeben": "resign", "Kalibrieren": "calibrate", "Nachspielen": "review_button"}
    shown = [item.text for item in drawn if item.role == "button" and item.text in keys]
    assert sorted(shown) == sorted(keys)
    for text in shown:
        size, _ = renderer.fit(Translator("de").ui(keys[text]), layout.font_px("button"),
                               layout.buttons["undo"].inflate(-6, -6))
        assert size >= 0.8 * layout.font_px("button"), text

"""The coach on the screen: a player asks for a hint and the display shows the best move
as an arrow with its one line of reason; on the review screen the coach marks the moves
of a stored game, with the better move drawn beside the one played and the scores.

The table, referee, record and search are the real ones; the board is seen through
observations of known placements (the camera is the only thing faked)."""
import pygame
import pytest

from fenix_table.display.controls import UiState, dialog_rects, handle
from fenix_table.display.i18n import LANGUAGES, Translator
from fenix_table.display.layout import make_layout
from fenix_table.display.model import TableModel
from fenix_table.display.render import HINT, LAST_MOVE, PATH_COLOURS, RED_STONE, Renderer
from fenix_table.opponent.coach import REASONS
from fenix_table.record import GameRecorder, GameStore
from fenix_table.rules import Position, apply
from fenix_table.table import Action, GameSetup, Table
from tests.table_loop import carry_out, show

from test_display_render import CHAIN, cells_with

# A red General must take the soldier on a4 and may land on a5, a6 or a7; on a7 the
# soldier on a8 takes it back (a8xa6).
LANDING = "7x8 s5k/7/7/7/s6/7/7/G5K r 55 - 0"






@pytest.fixture
def table(tmp_path):
    def make(fpn, **setup):
        store = GameStore(str(tmp_path / "games.sqlite3"))
        made = Table(GameSetup(size=fpn.split()[0], start_fpn=fpn, computer_movetime=0.3,
                               **setup), record=GameRecorder(store), model=TableModel())
        show(made, Position.from_fpn(fpn), 0)
        tables.append((made, store))
        return made
    tables = []
    yield make
    for made, store in tables:
        made.close()
        store.close()


def draw(table, ui, size=(800, 480)):
    surface = pygame.Surface(size)
    renderer = Renderer()
    drawn = renderer.draw(surface, table.model, ui)
    return surface, renderer, drawn


def texts(drawn, role):
    return [d.text for d in drawn if d.role == role]


def press(ui, name, size=(800, 480)):
    """A touch on the corner button or review-screen button ``name``."""
    layout = make_layout(*size)
    rect = layout.corner_buttons.get(name) or dialog_rects(layout, ui)[name]
    event = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1)
    return handle(event, ui, layout)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_hint_is_the_best_move_as_an_arrow_with_its_reason(table, language):
    table = table(CHAIN)
    ui = UiState(language=language)
    actions = press(ui, "hint")
    assert actions == [Action("hint")]
    table.act(actions[0])
    # The search is not done in the loop: the hint comes later, through the requests.
    assert table.model.hint is None
    carry_out(table, lambda: table.model.hint is not None)
    hint = table.model.hint
    assert hint.move == "c3xc5xe5" and hint.reason.code == "takes_soldiers"
    surface, renderer, drawn = draw(table, ui)
    tr = Translator(language)
    assert texts(drawn, "banner_heading") == [tr.ui("hint_move", side="red", move="c3xc5xe5")]
    assert texts(drawn, "banner") == [tr.coach(hint.reason)]
    if language == "en":
        assert texts(drawn, "banner") == ["takes 2 soldiers: c3xc5xe5 takes 2"]
    cells = Position.from_fpn(CHAIN).cells
    # The hint's arrow runs through the whole path, in place of the capture arrows.
    assert cells_with(surface, renderer.geometry, HINT, cells) == {"c3", "c4", "c5", "d5", "e5"}
    assert not cells_with(surface, renderer.geometry, PATH_COLOURS[0], cells)
    # Once the move is on the board the hint goes.
    show(table, apply(Position.from_fpn(CHAIN), "c3xc5xe5"), 10)
    assert table.referee.moves and table.model.hint_plan() is None
    _, _, drawn = draw(table, ui)
    assert not [t for t in texts(drawn, "banner_heading") if "c3xc5xe5" in t and
                t.startswith(tr.ui("hint_move", side="red", move="")[:4])]


def test_a_hint_for_a_position_the_game_has_left_is_dropped(table):
    table = table(CHAIN)
    table.act(Action("hint"))
    show(table, apply(Position.from_fpn(CHAIN), "c3xc5xe5"), 10)
    carry_out(table, lambda: not table.coach.busy("hint", Position.from_fpn(CHAIN).fpn()))
    while not table.requests.empty():
        table.act(table.requests.get())
    assert table.model.hint is None and table.model.hinting() is None


def test_no_hint_on_the_computers_turn(table):
    table = table(LANDING, computer="red", computer_level=1)
    table.act(Action("hint"))
    assert table.model.notice.code == "no_hint_computer"
    assert table.coach is None or not table.coach.busy("hint", table.referee.position.fpn())


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_review_screen_marks_a_lost_general_and_draws_the_better_move(table, language):
    table = table(LANDING)
    start = Position.from_fpn(LANDING)
    after = apply(start, "a1xa7")
    show(table, after, 10)
    show(table, apply(after, "a8xa6"), 20)
    assert table.referee.moves == ["a1xa7", "a8xa6"]
    ui = UiState(language=language)
    layout = make_layout(800, 480)
    handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_v), ui, layout,
           history_len=len(table.model.review_history()[0]))
    assert ui.dialog == "review"
    actions = press(ui, "coach")
    assert actions == [Action("coach_review")]
    table.act(actions[0])
    game = table.game_id
    carry_out(table, lambda: game in table.model.reviews and
              table.model.reviews[game].finished)
    review = table.model.reviews[game]
    assert [(n.ply, n.played, n.code) for n in review.notes] == [(1, "a1xa7", "loses_material")]
    note = review.notes[0]
    tr = Translator(language)
    # The status line says what the coach found; the move list marks the move.
    ui.review_ply = 2
    _, _, drawn = draw(table, ui)
    assert tr.ui("coach_one") in texts(drawn, "status")
    assert "1. a1xa7?? a8xa6" in texts(drawn, "move")
    # On the marked move: the position it was played in, the move played and the better
    # one, with both scores.
    ui.review_ply = 1
    surface, renderer, drawn = draw(table, ui)
    assert texts(drawn, "banner_heading") == [tr.ui("move_count", ply=1) + ": a1xa7??"]
    sentence = texts(drawn, "banner")[0]
    assert sentence.startswith(tr.ui("review_loses_material") + "; ")
    assert note.better in sentence and tr.score(note.better_score) in sentence
    geometry, cells = renderer.geometry, start.cells
    better = cells_with(surface, geometry, HINT, cells)
    assert {"a1", note.better[-2:]} <= better and "a7" not in better
    assert {"a6", "a7"} <= cells_with(surface, geometry, LAST_MOVE, cells)
    # The board is the one the move was played from: the General still on a1.
    stones = cells_with(surface, geometry, RED_STONE, cells)
    assert "a1" in stones and "a7" not in stones


def test_a_review_without_a_record_is_refused_with_a_notice():
    made = Table(GameSetup(size="7x8", start_fpn=LANDING), model=TableModel())
    try:
        made.act(Action("coach_review"))
        assert made.model.notice.code == "no_review"
        assert made.coach is None
    finally:
        made.close()


def test_every_reason_has_a_translation_with_the_same_placeholders():
    from fenix_table.display.coach_messages import COACH
    from fenix_table.display.i18n import placeholders
    for language, catalogue in COACH.items():
        assert set(catalogue) == set(REASONS), language
        for code, english in REASONS.items():
            assert placeholders(catalogue[code]) == placeholders(english), (language, code)

"""The computer's turn on the screen: "thinking…" with the depth reached, then its move
as an arrow from its piece through the capture path with the jumped stacks crossed, and
"Move my piece: ..."; a wrong execution is the referee's violation in every language,
and the move is shown again once the board is restored."""
import pytest

from fenix_table.display.i18n import Translator
from fenix_table.display.model import TableModel
from fenix_table.display.render import COMPUTER_MOVE, JUMPED, PATH_COLOURS, VIOLATION
from fenix_table.referee import Referee
from fenix_table.referee import events as ev
from fenix_table.rules import Position, apply
from fenix_tools.synthetic import observe_placement

from test_display_render import CHAIN, cells_with, draw

# Red has two maximal captures: d2xd4xd6xd8 and d2xd4xd6xd9.
FORK = "9x9 8k/9/3s5/9/3s1s3/9/3s5/3G5/K8 r 55 - 4"


def computer_game(fpn):
    position = Position.from_fpn(fpn)
    referee = Referee(start=position, computer="red")
    model = TableModel()
    model.apply_all(referee.begin())
    model.apply_all(referee.observe(observe_placement(position.stacks(), position.size, 1)))
    return position, referee, model


def show(referee, model, position, frame):
    for i in range(2):
        model.apply_all(referee.observe(observe_placement(position.stacks(), position.size,
                                                          frame + i)))


def test_thinking_shows_the_depth_reached():
    position, _, model = computer_game(CHAIN)
    model.apply(ev.ComputerThinking(side="red", fpn=position.fpn(), depth=4, level=6))
    _, _, drawn = draw(model)
    texts = {d.role: d.text for d in drawn}
    assert texts["banner_heading"] == "Thinking…"
    assert texts["banner"] == "The computer (Red) is searching: depth 4"


@pytest.mark.parametrize("rotation", [0, 1])
def test_the_computers_move_is_an_arrow_through_its_capture_path(rotation):
    position, referee, model = computer_game(CHAIN)
    model.apply_all(referee.expect("c3xc5xe5", level=6, depth=5))
    assert model.thinking is None and model.computer_move.move == "c3xc5xe5"
    surface, renderer, drawn = draw(model, rotation=rotation)
    cells = position.cells
    assert cells_with(surface, renderer.geometry, COMPUTER_MOVE, cells) == \
        {"c3", "c4", "c5", "d5", "e5"}
    assert cells_with(surface, renderer.geometry, JUMPED, cells) == {"c4", "d5"}
    # Its arrow replaces the compulsory-capture arrow: one move to make, not a choice.
    assert not cells_with(surface, renderer.geometry, PATH_COLOURS[0], cells)
    texts = {d.role: d.text for d in drawn}
    assert texts["banner_heading"] == "Move my piece: c3xc5xe5"
    # Made on the board: the announcement goes.
    show(referee, model, apply(position, "c3xc5xe5"), 10)
    assert model.moves == ["c3xc5xe5"] and model.computer_move is None
    assert model.computer_plan() is None


@pytest.mark.parametrize("language", ["en", "de", "fr", "nl"])
def test_a_wrong_execution_is_a_violation_then_the_move_is_asked_again(language):
    position, referee, model = computer_game(FORK)
    model.apply_all(referee.expect("d2xd4xd6xd8"))
    show(referee, model, apply(position, "d2xd4xd6xd9"), 10)
    violation = model.violation
    assert violation is not None and violation.code == "computer_asked"
    surface, renderer, drawn = draw(model, language=language)
    sentence = Translator(language).referee(violation.code, violation.params)
    banner = [d.text for d in drawn if d.role == "banner"]
    assert len(banner) == 1 and banner[0].lower().startswith(sentence.lower())
    assert "d2xd4xd6xd8" in sentence and "d2xd4xd6xd9" in sentence
    # The cells of both moves are marked; the board shows the position to restore.
    marked = cells_with(surface, renderer.geometry, VIOLATION, position.cells)
    assert marked == set(violation.cells) and {"d8", "d9", "d2"} <= marked
    assert model.computer_plan() is None
    show(referee, model, position, 20)
    assert model.violation is None and model.computer_move.move == "d2xd4xd6xd8"
    surface, renderer, drawn = draw(model, language=language)
    heading = [d.text for d in drawn if d.role == "banner_heading"]
    assert heading == [Translator(language).ui("computer_move", move="d2xd4xd6xd8")]
    assert "d9" not in cells_with(surface, renderer.geometry, COMPUTER_MOVE, position.cells)

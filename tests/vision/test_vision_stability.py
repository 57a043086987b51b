"""StabilityFilter: only still, unoccluded boards pass, merged conservatively."""
import pytest

from fenix_table.vision.stability import StabilityFilter
from fenix_table.vision.types import CellReading, Observation


def obs(colours, heights=None, *, hand=False, occluded=(), found=True, index=0):
    heights = heights or {}
    cells = {c: CellReading(col, heights.get(c), 0.9 if col != "empty" else 0.95, 0.8 if c in heights else 0.0)
             for c, col in colours.items()}
    return Observation("9x9", cells if found else {}, hand, tuple(occluded), found, index)


BOARD = {"a1": "red", "b1": "empty", "c1": "black"}
MOVED = {"a1": "empty", "b1": "red", "c1": "black"}


def test_yields_only_after_n_still_frames():
    f = StabilityFilter(frames=3)
    out = [f.push(obs(BOARD, index=i)) for i in range(5)]
    assert [o is not None for o in out] == [False, False, True, True, True]
    assert out[2].placement() == {"a1": ("red", None), "c1": ("black", None)}
    assert out[4].frame_index == 4


def test_a_change_restarts_the_count():
    f = StabilityFilter(frames=2)
    assert f.push(obs(BOARD)) is None
    assert f.push(obs(BOARD)) is not None
    assert f.push(obs(MOVED)) is None
    stable = f.push(obs(MOVED))
    assert stable is not None and stable.cells["b1"].color == "red"


@pytest.mark.parametrize("spoil", [dict(hand=True), dict(occluded=("a1",)), dict(found=False)])
def test_hands_occlusion_and_lost_board_break_stillness(spoil):
    f = StabilityFilter(frames=2)
    f.push(obs(BOARD))
    assert f.push(obs(BOARD, **spoil)) is None
    assert f.push(obs(BOARD)) is None          # the count starts again after the hand
    assert f.push(obs(BOARD)) is not None


def test_motion_flag_breaks_stillness():
    f = StabilityFilter(frames=2)
    f.push(obs(BOARD))
    assert f.push(obs(BOARD), moving=True) is None


def test_heights_merge_without_guessing():
    f = StabilityFilter(frames=3)
    f.push(obs(BOARD, {"a1": 2}))
    f.push(obs(BOARD, {"a1": 2, "c1": 1}))
    stable = f.push(obs(BOARD, {"c1": 3}))
    assert stable.cells["a1"].height == 2           # claimed twice, never contradicted
    assert stable.cells["c1"].height is None         # 1 and 3 disagree
    assert stable.cells["b1"].height is None
    assert stable.cells["a1"].color_confidence == pytest.approx(0.9)


def test_frames_must_be_positive():
    with pytest.raises(ValueError):
        StabilityFilter(frames=0)


def test_one_flickering_cell_is_unreadable_not_motion():
    f = StabilityFilter(frames=3)
    flicker = dict(BOARD, b1="black")
    frames = [BOARD, BOARD, flicker, BOARD, flicker, BOARD, BOARD, BOARD]
    out = [f.push(obs(colours, index=i)) for i, colours in enumerate(frames)]
    assert [o is not None for o in out] == [False, False, True, True, True, True, True, True]
    # While b1 disagrees in one frame of the window it is passed on as unreadable...
    assert [o.cells["b1"].color_confidence for o in out[2:7]] == [0.0] * 5
    assert out[7].cells["b1"].color == "empty"
    # ... and the rest of the board as seen.
    assert out[4].cells["a1"].color == "red" and out[4].cells["a1"].color_confidence == 0.9
    assert out[7].cells["b1"].color_confidence == pytest.approx(0.95)


def test_a_cell_changing_for_good_is_unreadable_until_all_frames_agree():
    f = StabilityFilter(frames=3)
    for i in range(3):
        f.push(obs(BOARD, index=i))
    first = f.push(obs(MOVED, index=3))        # a1 and b1 changed in the newest frame only
    assert first is not None and first.cells["a1"].color == "red"
    assert first.cells["a1"].color_confidence == first.cells["b1"].color_confidence == 0.0
    assert f.push(obs(MOVED, index=4)) is not None   # two of three: the change wins, unsure
    settled = f.push(obs(MOVED, index=5))
    assert settled.cells["a1"].color == "empty" and settled.cells["b1"].color == "red"
    assert settled.cells["b1"].color_confidence == pytest.approx(0.9)


def test_two_frames_out_of_three_differing_is_motion():
    f = StabilityFilter(frames=3)
    third = dict(BOARD, c1="empty")
    f.push(obs(BOARD))
    f.push(obs(MOVED))
    # Each cell differs in one frame only, but not in the same one: the board moved.
    assert f.push(obs(third)) is None

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

"""The two board faces (fenix_table.board): sizes, names, camps, neighbours, grid turns."""
import pytest

from fenix_table import board
from fenix_table.board import (SIZES, UnknownBoardError, black_camp, cell_index, cell_name,
                               cell_names, cell_numbers, check_size, dimensions, light_lines,
                               mirror, neighbours, on_board, red_camp, stones_per_side, turned,
                               turns_allowed)
from fenix_table.rules import Position
from fenix_table.vision.types import Calibration


def test_the_two_faces():
    assert SIZES == ("9x9", "7x8")
    assert dimensions("9x9") == (9, 9) and dimensions("7x8") == (7, 8)
    assert light_lines("9x9") and not light_lines("7x8")
    assert [check_size(size) for size in SIZES] == list(SIZES)


@pytest.mark.parametrize("call", [dimensions, check_size, cell_names, red_camp, light_lines,
                                  turns_allowed])
def test_an_unknown_size_is_named(call):
    with pytest.raises(UnknownBoardError, match="unknown board size '8x8'"):
        call("8x8")


@pytest.mark.parametrize("size, cells, last, stones", [("9x9", 81, "i9", 28), ("7x8", 56, "g8", 21)])
def test_cell_names_and_camp_sizes(size, cells, last, stones):
    names = cell_names(size)
    assert len(names) == len(set(names)) == cells
    assert names[:3] == ("a1", "b1", "c1") and names[-1] == last
    assert len(red_camp(size)) == len(black_camp(size)) == stones == stones_per_side(size)
    assert not set(red_camp(size)) & set(black_camp(size))
    assert "a1" in red_camp(size) and last in black_camp(size)
    # One soldier on every camp cell is the rules engine's start position.
    start = Position.start(size).stacks()
    assert {c for c, (colour, _) in start.items() if colour == "red"} == set(red_camp(size))
    assert {c for c, (colour, _) in start.items() if colour == "black"} == set(black_camp(size))


def test_camp_triangles_end_at_their_limit():
    assert "g1" in red_camp("9x9") and "h1" not in red_camp("9x9") and "a7" in red_camp("9x9")
    assert "f1" in red_camp("7x8") and "g1" not in red_camp("7x8") and "a6" in red_camp("7x8")


@pytest.mark.parametrize("size", SIZES)
def test_mirror_maps_one_camp_onto_the_other(size):
    width, height = dimensions(size)
    assert mirror(size, 0, 0) == (width - 1, height - 1)
    for name in cell_names(size):
        f, r = cell_index(name)
        assert mirror(size, *mirror(size, f, r)) == (f, r)
    assert {cell_name(*mirror(size, *cell_index(n))) for n in red_camp(size)} == set(black_camp(size))


@pytest.mark.parametrize("size", SIZES)
def test_names_round_trip(size):
    width, height = dimensions(size)
    for f in range(width):
        for r in range(height):
            name = cell_name(f, r)
            assert cell_index(name) == (f, r) and on_board(size, f, r)
            assert cell_numbers(size)[name] == r * width + f
            assert cell_names(size)[r * width + f] == name
    assert cell_name(2, 3) == "c4" and cell_index("i9") == (8, 8) and board.file_letter(6) == "g"
    assert not on_board(size, width, 0) and not on_board(size, 0, height) and not on_board(size, -1, 0)


@pytest.mark.parametrize("size, cell, eight, four", [
    ("9x9", "a1", {"a2", "b1", "b2"}, {"a2", "b1"}),
    ("9x9", "i9", {"h9", "i8", "h8"}, {"h9", "i8"}),
    ("7x8", "g8", {"f8", "g7", "f7"}, {"f8", "g7"}),
    ("7x8", "g1", {"f1", "g2", "f2"}, {"f1", "g2"}),
    ("9x9", "e1", {"d1", "f1", "d2", "e2", "f2"}, {"d1", "f1", "e2"}),
    ("7x8", "a5", {"a4", "a6", "b4", "b5", "b6"}, {"a4", "a6", "b5"}),
    ("9x9", "e5", {"d4", "d5", "d6", "e4", "e6", "f4", "f5", "f6"}, {"d5", "e4", "e6", "f5"}),
])
def test_neighbours_at_corners_edges_and_middle(size, cell, eight, four):
    assert set(neighbours(size, cell)) == eight and len(neighbours(size, cell)) == len(eight)
    assert set(neighbours(size, cell, diagonal=False)) == four


def test_turns():
    assert turns_allowed("9x9") == (0, 1, 2, 3) and turns_allowed("7x8") == (0, 2)
    # a1 moves one corner along per quarter turn: the end of rank 1, the far corner, file a's.
    assert [turned("9x9", 0, 0, k) for k in range(4)] == [(0, 0), (8, 0), (8, 8), (0, 8)]
    assert turned("9x9", 1, 0, 1) == (8, 1)      # b1 goes up the far side
    assert turned("7x8", 0, 0, 2) == (6, 7) and turned("7x8", 2, 5, -2) == (4, 2)
    for size in SIZES:
        for name in cell_names(size):
            f, r = cell_index(name)
            assert turned(size, f, r, 0) == (f, r) == turned(size, f, r, 4)
            assert turned(size, f, r, 2) == mirror(size, f, r)
            assert turned(size, *turned(size, f, r, 2), 2) == (f, r)
    for name in cell_names("9x9"):
        f, r = cell_index(name)
        assert turned("9x9", *turned("9x9", f, r, 1), 3) == (f, r)
        assert turned("9x9", *turned("9x9", f, r, 1), 1) == turned("9x9", f, r, 2)
    with pytest.raises(UnknownBoardError, match="half turns"):
        turned("7x8", 0, 0, 1)


@pytest.mark.parametrize("size", SIZES)
def test_turned_is_how_vision_turns_a_located_grid(size):
    """Cell (f, r) of ``Calibration.rotated(k)`` lies where cell ``turned(f, r, k)`` of the
    unturned grid does (a grid drawn in board coordinates, so centres are plain sums)."""
    width, height = dimensions(size)
    grid = Calibration(size, (100, 100), ((0, 0), (width, 0), (width, height), (0, height)))
    for k in turns_allowed(size):
        (x0, y0), (x1, y1), _, (x3, y3) = grid.rotated(k).corners
        for name in cell_names(size):
            f, r = cell_index(name)
            x = x0 + (f + 0.5) / width * (x1 - x0) + (r + 0.5) / height * (x3 - x0)
            y = y0 + (f + 0.5) / width * (y1 - y0) + (r + 0.5) / height * (y3 - y0)
            tf, tr = turned(size, f, r, k)
            assert (x, y) == pytest.approx((tf + 0.5, tr + 0.5)), (name, k)
    with pytest.raises(ValueError):
        Calibration("7x8", (100, 100), grid.corners).rotated(1)

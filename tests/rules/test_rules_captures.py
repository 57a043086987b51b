"""Captures: compulsory, soldier/King/General jumps, chains, blocking, the maximum rule.

Every expectation below is worked out by hand from rules.md on a small drawn position.
"""
import pytest

from fenix_table.rules import OFFICIAL, STRIKE, Position, apply, legal_moves
from reference import fpn_of


def tokens(fpn, rules=OFFICIAL):
    return sorted(m.token for m in legal_moves(Position.from_fpn(fpn), rules))


@pytest.mark.parametrize("rules", [OFFICIAL, STRIKE])
def test_rulebook_example_1_black_soldier_jumps_red_soldier(rules):
    fpn = fpn_of("9x9", {"e5": "s", "e4": "S", "a1": "K", "i9": "k"}, side="b")
    assert tokens(fpn, rules) == ["e5xe3"]
    after = apply(Position.from_fpn(fpn), "e5xe3", rules)
    assert after.piece_at("e4") is None and after.piece_at("e3") == ("black", 1)


def test_rulebook_example_2_general_lands_where_it_likes_then_turns():
    fpn = fpn_of("9x9", {"b2": "G", "b5": "s", "e7": "s", "h1": "K", "i9": "k"})
    # Landing on b7 is the only way on to e7; after e7 every empty cell beyond is a choice.
    assert tokens(fpn) == ["b2xb7xf7", "b2xb7xg7", "b2xb7xh7", "b2xb7xi7"]


def test_rulebook_example_3_king_captures_three_times():
    fpn = fpn_of("9x9", {"c1": "K", "d2": "s", "e4": "s", "d6": "s", "i9": "k"})
    assert tokens(fpn) == ["c1xe3xe5xc7"]
    after = apply(Position.from_fpn(fpn), "c1xe3xe5xc7")
    assert after.stones("black") == 3   # only the King is left of black's pieces
    assert after.piece_at("c7") == ("red", 3)


def test_rulebook_example_4_jumped_piece_blocks_the_chain():
    # A square of four black soldiers round c1..e3: the soldier goes round and comes back
    # to its (empty) start cell, where c2/d1 are already jumped and stop it.
    fpn = fpn_of("9x9", {"c1": "S", "c2": "s", "d3": "s", "e2": "s", "d1": "s",
                         "i1": "K", "a9": "k"})
    assert tokens(fpn) == ["c1xc3xe3xe1xc1", "c1xe1xe3xc3xc1"]


def test_capture_is_compulsory_over_ordinary_moves():
    fpn = fpn_of("9x9", {"c3": "S", "c4": "s", "a1": "K", "i9": "k"})
    assert tokens(fpn) == ["c3xc5"]


def test_soldier_cannot_capture_diagonally_but_king_can():
    soldier = fpn_of("9x9", {"c3": "S", "d4": "s", "a9": "K", "i9": "k"})
    assert all("x" not in t for t in tokens(soldier))
    king = fpn_of("9x9", {"c3": "K", "d4": "s", "i9": "k"})
    assert tokens(king) == ["c3xe5"]


def test_soldier_jump_needs_an_empty_landing_cell():
    fpn = fpn_of("9x9", {"c3": "S", "c4": "s", "c5": "s", "a1": "K", "i9": "k"})
    assert not any("x" in t for t in tokens(fpn))


def test_general_flying_capture_lists_every_landing_cell():
    fpn = fpn_of("9x9", {"a5": "G", "d5": "s", "a1": "K", "i9": "k"})
    assert tokens(fpn) == ["a5xe5", "a5xf5", "a5xg5", "a5xh5", "a5xi5"]


def test_general_landing_stops_at_the_next_piece():
    fpn = fpn_of("9x9", {"a5": "G", "d5": "s", "g5": "S", "a1": "K", "i9": "k"})
    assert tokens(fpn) == ["a5xe5", "a5xf5"]


def test_general_cannot_jump_two_pieces_or_through_own_piece():
    two = fpn_of("9x9", {"a5": "G", "d5": "s", "e5": "s", "a1": "K", "i9": "k"})
    own = fpn_of("9x9", {"a5": "G", "b5": "S", "d5": "s", "a1": "K", "i9": "k"})
    assert not any("x" in t for t in tokens(two))
    assert not any("x" in t for t in tokens(own))


def test_jumped_piece_blocks_a_generals_later_slide():
    # a3xb3 (land c3..), e3 up over e5, c6 west to b6/a6. From b6 the slide south meets
    # the jumped b3 first: without the block it would reach b2 and land on b1.
    fpn = fpn_of("9x9", {"a3": "G", "b3": "s", "e5": "s", "c6": "s", "b2": "s",
                         "i1": "K", "i9": "k"})
    assert tokens(fpn) == ["a3xe3xe6xa6", "a3xe3xe6xb6"]


def test_start_cell_counts_as_empty_during_the_chain():
    # The fourth jump lands on b1, where the soldier started.
    looping = fpn_of("9x9", {"b1": "S", "b2": "s", "c3": "s", "d2": "s", "c1": "s",
                             "i5": "K", "i9": "k"})
    assert tokens(looping) == ["b1xb3xd3xd1xb1", "b1xd1xd3xb3xb1"]
    # A General may slide back over its start cell: c6, d7, e6 lead it to e5, from where
    # it slides west across c5 and takes b5.
    general = fpn_of("9x9", {"c5": "G", "c6": "s", "d7": "s", "e6": "s", "b5": "s",
                             "i1": "K", "i9": "k"})
    assert tokens(general) == ["c5xc7xe7xe5xa5"]


def test_maximum_rule_counts_value_not_number_of_pieces():
    pieces = {"a1": "S", "a2": "g",            # takes a General: value 2
              "e1": "S", "e2": "s", "e4": "s",  # takes two soldiers: value 2
              "i5": "K", "a9": "k"}
    assert tokens(fpn_of("9x9", pieces)) == ["a1xa3", "e1xe3xe5"]
    del pieces["a9"]
    pieces.update({"h1": "S", "h2": "k"})       # takes the King: value 3
    assert tokens(fpn_of("9x9", pieces)) == ["h1xh3"]


def test_chain_must_continue_while_it_can():
    fpn = fpn_of("9x9", {"a1": "S", "a2": "s", "a4": "s", "i5": "K", "i9": "k"})
    assert tokens(fpn) == ["a1xa3xa5"]


def test_captured_pieces_are_removed_at_the_end_of_the_turn():
    fpn = fpn_of("9x9", {"a1": "S", "a2": "s", "a4": "g", "i5": "K", "i9": "k"})
    after = apply(Position.from_fpn(fpn), "a1xa3xa5")
    assert after.piece_at("a2") is None and after.piece_at("a4") is None
    assert after.piece_at("a5") == ("red", 1) and after.piece_at("a1") is None
    assert after.clock == 0 and after.duty == "G"   # Black lost a General


def test_different_landings_are_different_moves_same_value():
    fpn = fpn_of("7x8", {"a1": "G", "a3": "s", "g8": "k", "g1": "K"})
    assert tokens(fpn) == ["a1xa4", "a1xa5", "a1xa6", "a1xa7", "a1xa8"]

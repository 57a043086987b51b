"""FPN positions, move tokens and FGN records (notation.md)."""
import pytest

from fenix_table.errors import NotationError
from fenix_table.rules import (START_FPN, Game, GameRecord, Position, Rules, format_fgn,
                               parse_fgn, parse_token)
from fenix_table.rules.fgn import read_fgn
from fenix_table.rules.geometry import geometry


def test_start_positions_parse_and_format_exactly():
    for size, text in START_FPN.items():
        pos = Position.from_fpn(text)
        assert pos.fpn() == text
        assert pos.stones("red") == pos.stones("black") == (28 if size == "9x9" else 21)
    pos = Position.start("9x9")
    assert pos.piece_at("a1") == ("red", 1) and pos.piece_at("i9") == ("black", 1)
    assert pos.piece_at("h1") is None and pos.piece_at("g1") == ("red", 1)
    # Red's camp: file + rank index <= 6 on 9x9.
    assert {c for c, (color, _) in pos.stacks().items() if color == "red"} == \
        {f"{chr(97 + f)}{r + 1}" for f in range(9) for r in range(9) if f + r <= 6}


@pytest.mark.parametrize("text, field", [
    ("9x9 9/9/9/9/9/9/9/9/9 r 00 - 0 extra", "6 fields"),
    ("8x8 8/8/8/8/8/8/8/8 r 00 - 0", "FPN size"),
    ("9x9 9/9/9/9/9/9/9/9 r 55 - 0", "8 ranks"),
    ("9x9 9/9/9/9/9/9/9/9/8 r 55 - 0", "rank 1 has 8 cells"),
    ("9x9 9/9/9/9/9/9/9/9/X8 r 55 - 0", "unknown piece 'X'"),
    ("9x9 9/9/9/9/9/9/9/9/K8 x 55 - 0", "FPN side"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 5 - 0", "FPN setup"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 66 - 0", "FPN setup"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 10 - 0", "does not fit Red to move"),
    ("9x9 9/9/9/9/9/9/9/9/K8 b 11 - 0", "does not fit Black to move"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 11 G 0", "during setup"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 11 - 3", "during setup"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 55 X 0", "FPN duty"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 55 - -1", "FPN clock"),
    ("9x9 9/9/9/9/9/9/9/9/KK7 r 55 - 0", "2 red Kings"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 55 K 0", "has a King"),
    ("9x9 9/9/9/9/9/9/9/9/S8 r 55 - 0", "duty must be K"),
    ("7x8 GGGGGGG/GGGG3/7/7/7/7/7/K6 r 55 - 0", "25 red stones"),
    # Digits other than ASCII 0-9 pass str.isdigit(), but are no FPN digits.
    ("9x9 9/9/9/9/9/9/9/9/K8 r 55 - \u00b2", "FPN clock: '\u00b2' is not a whole number"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 55 - 1\u0663", "FPN clock"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r \u00b25 - 0", "FPN setup: '\u00b25' is not two digits"),
    ("9x9 9/9/9/9/9/9/9/9/K8 r 5\u0665 - 0", "FPN setup"),
    ("9x9 9/9/9/9/9/9/9/9/K\u00b2 r 55 - 0", "unknown piece '\u00b2' in rank 1"),
    ("9x9 9/9/9/9/9/9/9/9/K\u0668 r 55 - 0", "unknown piece '\u0668' in rank 1"),
])
def test_malformed_fpn_names_the_field(text, field):
    with pytest.raises(NotationError, match=field):
        Position.from_fpn(text)


def test_fpn_is_written_in_its_one_form():
    """fpn() of a parsed position is the line with single spaces and the clock without
    leading zeros, as formatting the board again gives it."""
    pos = Position.from_fpn("  7x8 7/7/7/7/7/7/7/K5k\tb 55  -  007 ")
    assert pos.fpn() == "7x8 7/7/7/7/7/7/7/K5k b 55 - 7" == pos._format_fpn()
    assert Position.from_fpn(pos.fpn()) == pos
    for text in START_FPN.values():
        assert Position.from_fpn(text)._format_fpn() == text


def test_ranks_parse_the_same_from_the_cache():
    """Ranks are parsed once and then looked up; a position made of looked-up ranks has
    the same board, bitboards and errors as one parsed afresh."""
    from fenix_table.rules import position as module
    text = "9x9 3sss1kg/3ssssg1/S3gs1ss/1S3ssss/KSS3sss/SS1G4s/SSS1S3s/SS1SSG3/SSS1SGS2 b 55 - 1"
    module._RANK_CACHE.clear()
    fresh = Position.from_fpn(text)
    cached = Position.from_fpn(text)
    rebuilt = Position(fresh.geo, fresh.board, fresh.turn, fresh.setup, fresh.duty, fresh.clock)
    for pos in (cached, rebuilt):
        assert pos == fresh and pos.fpn() == text
        assert (pos.red, pos.black, pos.soldiers, pos.generals, pos.kings) == \
            (fresh.red, fresh.black, fresh.soldiers, fresh.generals, fresh.kings)
    for _ in range(2):   # the second time the bad rank's neighbours come from the cache
        with pytest.raises(NotationError, match="rank 2 has 10 cells"):
            Position.from_fpn(text.replace("/SS1SSG3/", "/SS1SSG4/"))


def test_setup_counters_55_fit_either_side():
    Position.from_fpn("7x8 7/7/7/7/7/7/7/K5k b 55 - 0")
    Position.from_fpn("7x8 7/7/7/7/7/7/7/K5k r 55 - 0")


def test_move_tokens():
    geo = geometry("9x9")
    assert parse_token("b1-c1", geo) == ((geo.index["b1"], geo.index["c1"]), False)
    assert parse_token("d4xf6xf8", geo)[1] is True
    for bad, message in [("b1-c1-d1", "from-to"), ("b1xc1-d1", "mixes"), ("b1c1", "expected"),
                         ("b1-j1", "unknown cell"), ("b1x", "missing cell"), ("", "empty")]:
        with pytest.raises(NotationError, match=message):
            parse_token(bad, geo)
    with pytest.raises(NotationError, match="unknown cell 'h1'"):
        parse_token("a1-h1", geometry("7x8"))


RECORD = """[Event "Club night"]
[Site "Table 1"]
[Date "2026.11.22"]
[Red "Alice"]
[Black "Bob"]
[Board "7x8"]
[Rules "official"]
[Result "*"]
[Referee "Carol \\"the eye\\""]

1. a1-b1 {clock 3.2} g8-f8 2. a2-b2 {violation: b2-b4: b2 is a soldier} {keep me}
f7-f8 *
"""


def test_fgn_read_keeps_tags_and_comments_and_round_trips():
    record = parse_fgn(RECORD)
    assert record.tags["Referee"] == 'Carol "the eye"'
    assert record.moves == ["a1-b1", "g8-f8", "a2-b2", "f7-f8"]
    assert record.comments == {0: ["clock 3.2"], 2: ["violation: b2-b4: b2 is a soldier", "keep me"]}
    text = format_fgn(record)
    assert parse_fgn(text) == record
    assert text.startswith('[Event "Club night"]\n[Site "Table 1"]')
    assert '[Referee "Carol \\"the eye\\""]' in text
    game = record.replay()
    assert game.position.piece_at("b2") == ("red", 2) and game.ply == 4


def test_fgn_from_game_with_start_tag_and_black_to_move():
    start = "7x8 7/7/7/7/3s3/3S3/7/K5k b 55 - 0"
    game = Game(start)
    game.push("d4xd2")
    game.push("a1-a2")
    record = GameRecord.from_game(game, {"Event": "Test"})
    text = format_fgn(record)
    assert f'[Start "{start}"]' in text and "1... d4xd2 2. a1-a2" in text
    again = parse_fgn(text)
    assert again.replay().position == game.position
    assert again.start == start and again.board == "7x8"


def test_fgn_result_written_when_the_game_ends():
    game = Game("9x9 9/9/9/9/9/9/9/1k7/K8 r 55 - 0")
    game.push("a1xc3")
    record = GameRecord.from_game(game)
    assert record.result == "1-0" and format_fgn(record).rstrip().endswith("1-0")


@pytest.mark.parametrize("text, message", [
    ('[Event "x"\n\n1. a1-b1 *', "malformed tag"),
    ('[Board "7x8"]\n\n1. a1-b1 zz9 *', "'zz9' is not a move token"),
    ('[Board "7x8"]\n\n1. a1-b1 {open *', "never closed"),
    ('[Board "7x8"]\n[Result "1-0"]\n\n1. a1-b1 0-1', "differs"),
    ('[Board "7x8"]\n\n1. a1-b1 * a2-b2', "after the result"),
    ('[Board "8x8"]\n\n*', "Board tag"),
    ('[Rules "official king_first=maybe"]\n\n*', "Rules tag"),
    ('[Result "2-0"]\n\n', "Result tag"),
])
def test_corrupt_fgn_is_named(text, message):
    with pytest.raises(NotationError, match=message):
        parse_fgn(text)


def test_illegal_move_in_record_names_the_move(tmp_path):
    path = tmp_path / "bad.fgn"
    path.write_text('[Board "7x8"]\n\n1. a1-b1 g8-f8 2. a2-g7 *\n', encoding="utf-8")
    record = read_fgn(str(path))
    with pytest.raises(NotationError, match=r"FGN move 2\. a2-g7: "):
        record.replay()
    with pytest.raises(NotationError, match="cannot read"):
        read_fgn(str(tmp_path / "missing.fgn"))
    (tmp_path / "bin.fgn").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(NotationError, match="not UTF-8"):
        read_fgn(str(tmp_path / "bin.fgn"))


def test_rules_tag_with_options_round_trips():
    rules = Rules.preset("strike", no_move="draw", no_capture_limit=60)
    assert rules.describe() == "strike no_move=draw no_capture_limit=60"
    assert Rules.from_description(rules.describe()) == rules
    game = Game(size="7x8", rules=rules)
    record = GameRecord.from_game(game)
    assert record.rules() == rules

"""Positions and their one-line text form, FPN (``../shared/spec/notation.md``)."""
from __future__ import annotations

from typing import Dict, Iterator, Mapping, Optional, Tuple

from ..board import file_letter
from ..errors import NotationError
from .geometry import Geometry, geometry

RED, BLACK = 1, -1
COLOR_NAMES = {RED: "red", BLACK: "black"}
PIECE_NAMES = {1: "soldier", 2: "general", 3: "king"}
_PIECE_CHARS = {1: "S", 2: "G", 3: "K", -1: "s", -2: "g", -3: "k"}
_CHAR_PIECES = {c: v for v, c in _PIECE_CHARS.items()}

START_FPN = {
    "9x9": "9x9 2sssssss/3ssssss/S3sssss/SS3ssss/SSS3sss/SSSS3ss/SSSSS3s/SSSSSS3/SSSSSSS2 r 00 - 0",
    "7x8": "7x8 1ssssss/2sssss/S2ssss/SS2sss/SSS2ss/SSSS2s/SSSSS2/SSSSSS1 r 00 - 0",
}


def color_of(name: str) -> int:
    if name in ("red", "r"):
        return RED
    if name in ("black", "b"):
        return BLACK
    raise NotationError(f"unknown colour {name!r} (red or black)")


class Position:
    """An immutable FENIX position.

    ``board`` is a tuple with one signed int per cell (index ``rank * width + file``):
    ``0`` empty, ``+h`` a red stack of ``h`` stones, ``-h`` a black one. ``turn`` is
    ``RED`` (1) or ``BLACK`` (-1). The bitboards ``red``, ``black``, ``soldiers``,
    ``generals`` and ``kings`` are kept alongside so move generation never walks the board.

    >>> Position.start("7x8").piece_at("a1")
    ('red', 1)
    """

    __slots__ = ("geo", "board", "turn", "setup", "duty", "clock",
                 "red", "black", "soldiers", "generals", "kings", "_key", "_fpn")

    def __init__(self, geo: Geometry, board: Tuple[int, ...], turn: int,
                 setup: Tuple[int, int], duty: str, clock: int, bitboards=None) -> None:
        self.geo = geo
        self.board = board
        self.turn = turn
        self.setup = setup
        self.duty = duty
        self.clock = clock
        if bitboards is None:
            bitboards = _bitboards(board)
        self.red, self.black, self.soldiers, self.generals, self.kings = bitboards
        self._key = None
        self._fpn = None

    # -- construction -------------------------------------------------------------
    @classmethod
    def start(cls, size: str = "9x9") -> "Position":
        if size not in START_FPN:
            raise NotationError(f"unknown board size {size!r} (9x9 or 7x8)")
        return cls.from_fpn(START_FPN[size])

    @classmethod
    def from_fpn(cls, text: str) -> "Position":
        """Parse an FPN line; :class:`NotationError` names the offending field."""
        if not isinstance(text, str):
            raise NotationError("FPN must be text")
        fields = text.split()
        if len(fields) != 6:
            raise NotationError(
                f"FPN needs 6 fields (size placement side setup duty clock), got {len(fields)}")
        size, placement, side, setup_text, duty, clock_text = fields
        if size not in START_FPN:
            raise NotationError(f"FPN size: {size!r} is not 9x9 or 7x8")
        geo = geometry(size)
        board, bitboards = _parse_placement(geo, placement)
        if side not in ("r", "b"):
            raise NotationError(f"FPN side: {side!r} is not r or b")
        turn = RED if side == "r" else BLACK
        # isdigit() alone would pass "²" or "٣", which int() rejects or reads as 3.
        if len(setup_text) != 2 or not (setup_text.isascii() and setup_text.isdigit()):
            raise NotationError(f"FPN setup: {setup_text!r} is not two digits 0-5")
        setup = (int(setup_text[0]), int(setup_text[1]))
        if not (clock_text.isascii() and clock_text.isdigit()):
            raise NotationError(f"FPN clock: {clock_text!r} is not a whole number")
        clock = int(clock_text)
        position = cls(geo, board, turn, setup, duty, clock, bitboards)
        position._validate()
        # Every field as it is written: a placement that parses is already in its one
        # form (no 0 or split counts), and only the clock may have had leading zeros.
        position._fpn = f"{size} {placement} {side} {setup_text} {duty} {clock}"
        return position

    @classmethod
    def from_placement(cls, size: str, stacks: Mapping[str, Tuple[str, int]], side: str, *,
                       setup: Tuple[int, int] = (0, 0), duty: str = "-",
                       clock: int = 0) -> "Position":
        """The position with ``stacks`` on the board (``{cell: (colour, height)}``, as
        :meth:`stacks` returns; other cells empty) and ``side`` to move; ``setup``,
        ``duty`` and ``clock`` are the FPN fields of those names.

        Raises :class:`NotationError` naming what no position can have: an unknown size,
        cell or colour, a stack of other than 1 to 3 stones, too many stones or Kings,
        fields that do not fit together (as :meth:`from_fpn` checks them).

        >>> p = Position.start("7x8")
        >>> Position.from_placement(p.size, p.stacks(), p.side) == p
        True
        """
        geo = geometry(size)
        board = [0] * geo.n
        for cell, (colour, height) in stacks.items():
            if height not in (1, 2, 3):
                raise NotationError(f"a stack of {height} stones on {cell} cannot exist "
                                    "(1 to 3 stones)")
            board[geo.cell(cell)] = color_of(colour) * height
        if not isinstance(clock, int) or clock < 0:
            raise NotationError(f"FPN clock: {clock!r} is not a whole number")
        position = cls(geo, tuple(board), color_of(side), tuple(setup), duty, clock)
        position._validate()
        return position

    def _validate(self) -> None:
        """Check the fields against each other; :class:`NotationError` names the field."""
        geo = self.geo
        if len(self.setup) != 2 or any(n not in range(6) for n in self.setup):
            raise NotationError(f"FPN setup: {self.setup!r} is not two counters 0-5")
        if self.duty not in ("-", "K", "G"):
            raise NotationError(f"FPN duty: {self.duty!r} is not -, K or G")
        red_setup, black_setup = self.setup
        if self.setup != (5, 5):
            if self.turn == RED and red_setup != black_setup:
                raise NotationError(
                    f"FPN setup: {red_setup}{black_setup} does not fit Red to move "
                    "(counters must be equal)")
            if self.turn == BLACK and red_setup != black_setup + 1:
                raise NotationError(
                    f"FPN setup: {red_setup}{black_setup} does not fit Black to move "
                    "(Red must be one ahead)")
            if self.duty != "-":
                raise NotationError(f"FPN duty: {self.duty!r} during setup (must be -)")
            if self.clock != 0:
                raise NotationError(f"FPN clock: {self.clock} during setup (must be 0)")
        for pieces, name in ((self.red, "red"), (self.black, "black")):
            # A soldier is one stone, a General two, a King three.
            stones = (pieces.bit_count() + (pieces & self.generals).bit_count() +
                      2 * (pieces & self.kings).bit_count())
            if stones > geo.stones_per_side:
                raise NotationError(
                    f"FPN placement: {stones} {name} stones (at most {geo.stones_per_side} "
                    f"on {geo.size})")
            kings = (pieces & self.kings).bit_count()
            if kings > 1:
                raise NotationError(f"FPN placement: {kings} {name} Kings (at most one)")
        has_king = bool(self.kings & self.own)
        if self.duty == "K" and has_king:
            raise NotationError("FPN duty: K, but the side to move has a King")
        if not self.in_setup and not has_king and self.duty != "K":
            raise NotationError(
                "FPN duty: the side to move has no King in battle, so the duty must be K")

    # -- text ---------------------------------------------------------------------
    def fpn(self) -> str:
        if self._fpn is None:
            self._fpn = self._format_fpn()
        return self._fpn

    def _format_fpn(self) -> str:
        geo = self.geo
        ranks = []
        for r in range(geo.height - 1, -1, -1):
            out, empty = [], 0
            for v in self.board[r * geo.width:(r + 1) * geo.width]:
                if v:
                    if empty:
                        out.append(str(empty))
                        empty = 0
                    out.append(_PIECE_CHARS[v])
                else:
                    empty += 1
            if empty:
                out.append(str(empty))
            ranks.append("".join(out))
        side = "r" if self.turn == RED else "b"
        return (f"{geo.size} {'/'.join(ranks)} {side} {self.setup[0]}{self.setup[1]} "
                f"{self.duty} {self.clock}")

    def __str__(self) -> str:
        return self.fpn()

    def __repr__(self) -> str:
        return f"Position.from_fpn({self.fpn()!r})"

    # -- identity -----------------------------------------------------------------
    def key(self) -> tuple:
        """Identity for repetition: every FPN field but the clock."""
        if self._key is None:
            self._key = (self.geo.size, self.board, self.turn, self.setup, self.duty)
        return self._key

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and self.key() == other.key() and \
            self.clock == other.clock

    def __hash__(self) -> int:
        return hash(self.key())

    # -- queries ------------------------------------------------------------------
    @property
    def size(self) -> str:
        return self.geo.size

    @property
    def width(self) -> int:
        return self.geo.width

    @property
    def height(self) -> int:
        return self.geo.height

    @property
    def cells(self) -> Tuple[str, ...]:
        return self.geo.names

    @property
    def side(self) -> str:
        return "red" if self.turn == RED else "black"

    @property
    def in_setup(self) -> bool:
        return self.setup != (5, 5)

    @property
    def own(self) -> int:
        return self.red if self.turn == RED else self.black

    @property
    def enemy(self) -> int:
        return self.black if self.turn == RED else self.red

    @property
    def occupied(self) -> int:
        return self.red | self.black

    def setup_moves_left(self, side: Optional[str] = None) -> int:
        """Setup moves the given side (default: the side to move) still has to make."""
        turn = self.turn if side is None else color_of(side)
        return 5 - self.setup[0 if turn == RED else 1]

    def piece_at(self, cell: str) -> Optional[Tuple[str, int]]:
        """``(colour, height)`` of the stack on ``cell``, or None when empty."""
        v = self.board[self.geo.cell(cell)]
        if not v:
            return None
        return ("red", v) if v > 0 else ("black", -v)

    def stacks(self) -> Dict[str, Tuple[str, int]]:
        """Every occupied cell mapped to ``(colour, height)``."""
        names = self.geo.names
        return {names[i]: (("red", v) if v > 0 else ("black", -v))
                for i, v in enumerate(self.board) if v}

    def king_cell(self, side: str) -> Optional[str]:
        target = 3 * color_of(side)
        for i, v in enumerate(self.board):
            if v == target:
                return self.geo.names[i]
        return None

    def count(self, side: str, height: Optional[int] = None) -> int:
        """Pieces of ``side`` (of one height, or all pieces)."""
        color = color_of(side)
        return sum(1 for v in self.board
                   if v * color > 0 and (height is None or abs(v) == height))

    def stones(self, side: str) -> int:
        color = color_of(side)
        return sum(abs(v) for v in self.board if v * color > 0)

    def __iter__(self) -> Iterator[Tuple[str, Tuple[str, int]]]:
        return iter(self.stacks().items())

    def ascii(self, marks: Optional[Dict[str, str]] = None) -> str:
        """A plain text diagram, top rank first (used by ``fenix-table play``)."""
        geo = self.geo
        lines = []
        for r in range(geo.height - 1, -1, -1):
            row = []
            for f in range(geo.width):
                i = r * geo.width + f
                v = self.board[i]
                text = _PIECE_CHARS[v] if v else "."
                if marks and geo.names[i] in marks:
                    text = marks[geo.names[i]]
                row.append(text)
            lines.append(f"{r + 1} " + " ".join(row))
        lines.append("  " + " ".join(file_letter(f) for f in range(geo.width)))
        return "\n".join(lines)


_DIGITS = frozenset("0123456789")
# Parsed ranks, per board width: {rank text: (cells, packed)}, where ``packed`` holds the
# rank's five bitboards (bit f for file f) in one int, red in the lowest n bits (the
# board's cell count), then black, soldiers, Generals and Kings: shifting it by a rank moves
# all five at once. A game's positions share most ranks, so parsing an FPN is mostly
# dictionary look-ups. Emptied when it grows past _RANK_CACHE_SIZE (a stream of ever
# different ranks costs a parse each, as without a cache).
_RANK_CACHE: Dict[int, Dict[str, tuple]] = {}
_RANK_CACHE_SIZE = 1 << 16


def _parse_placement(geo: Geometry, placement: str) -> Tuple[Tuple[int, ...], tuple]:
    """``(board, (red, black, soldiers, generals, kings))`` of an FPN placement field."""
    ranks = placement.split("/")
    height, width = geo.height, geo.width
    if len(ranks) != height:
        raise NotationError(
            f"FPN placement: {len(ranks)} ranks, the {geo.size} board has {height}")
    cache = _RANK_CACHE.get(width)
    if cache is None:
        cache = _RANK_CACHE[width] = {}
    board = ()
    packed = 0
    for row, text in enumerate(ranks):   # top rank first: earlier ranks shift up
        parsed = cache.get(text)
        if parsed is None:
            parsed = _parse_rank(geo, text, height - row)
            if len(cache) >= _RANK_CACHE_SIZE:
                cache.clear()
            cache[text] = parsed
        board = parsed[0] + board
        packed = packed << width | parsed[1]
    n, full = geo.n, geo.full
    return board, (packed & full, packed >> n & full, packed >> 2 * n & full,
                   packed >> 3 * n & full, packed >> 4 * n)


def _parse_rank(geo: Geometry, text: str, number: int) -> tuple:
    """``(cells, packed)`` of rank ``number``'s FPN text (see :data:`_RANK_CACHE`)."""
    width = geo.width
    cells = [0] * width
    f = 0
    digits = ""
    for ch in text + "|":
        if ch in _DIGITS:
            digits += ch
            continue
        if digits:
            if digits.startswith("0"):
                raise NotationError(f"FPN placement: bad empty-cell count in rank {number}")
            f += int(digits)
            digits = ""
        if ch == "|":
            break
        if ch not in _CHAR_PIECES:
            raise NotationError(
                f"FPN placement: unknown piece {ch!r} in rank {number} (use S G K s g k)")
        if f >= width:
            raise NotationError(f"FPN placement: rank {number} has more than {width} cells")
        cells[f] = _CHAR_PIECES[ch]
        f += 1
    if f != width:
        raise NotationError(f"FPN placement: rank {number} has {f} cells, expected {width}")
    packed = 0
    for i, bits in enumerate(_bitboards(cells)):
        packed |= bits << i * geo.n
    return tuple(cells), packed


def _bitboards(cells) -> Tuple[int, int, int, int, int]:
    """``(red, black, soldiers, generals, kings)``: bit ``i`` set for ``cells[i]``."""
    red = black = soldiers = generals = kings = 0
    for i, v in enumerate(cells):
        if v:
            bit = 1 << i
            if v > 0:
                red |= bit
            else:
                black |= bit
            h = v if v > 0 else -v
            if h == 1:
                soldiers |= bit
            elif h == 2:
                generals |= bit
            else:
                kings |= bit
    return red, black, soldiers, generals, kings

"""A deliberately naive second implementation of rules.md, used only to cross-check the
engine: dictionaries of cells, no bitboards, no tables, every rule spelled out as written.
It shares nothing with fenix_table.rules except the Position it reads.
"""

ORTHO = [(0, 1), (1, 0), (0, -1), (-1, 0)]
DIAG = [(1, 1), (1, -1), (-1, -1), (-1, 1)]


def _cells(pos):
    out = {}
    for cell in pos.cells:
        piece = pos.piece_at(cell)
        if piece:
            out[(ord(cell[0]) - 97, int(cell[1:]) - 1)] = piece
    return out


def _name(fr):
    return f"{chr(97 + fr[0])}{fr[1] + 1}"


def _on(pos, fr):
    return 0 <= fr[0] < pos.width and 0 <= fr[1] < pos.height


def _chains(pos, board, start, me, height):
    """All complete capture sequences (path, jumped) of the piece on ``start``."""
    results = []

    def free(c):
        return _on(pos, c) and (c not in board or c == start)

    def go(cur, path, jumped, value):
        found = False
        if height == 2:
            for df, dr in ORTHO:
                c = (cur[0] + df, cur[1] + dr)
                while free(c):
                    c = (c[0] + df, c[1] + dr)
                if not _on(pos, c) or board[c][0] == me or c in jumped:
                    continue
                land = (c[0] + df, c[1] + dr)
                while free(land):
                    found = True
                    go(land, path + [land], jumped + [c], value + board[c][1])
                    land = (land[0] + df, land[1] + dr)
        else:
            for df, dr in ORTHO + (DIAG if height == 3 else []):
                c = (cur[0] + df, cur[1] + dr)
                land = (c[0] + df, c[1] + dr)
                if c in board and board[c][0] != me and c not in jumped and free(land):
                    found = True
                    go(land, path + [land], jumped + [c], value + board[c][1])
        if not found and jumped:
            results.append(("x".join(_name(p) for p in path), value))

    go(start, [start], [], 0)
    return results


def _reach_ok(reach, a, b):
    d = (abs(a[0] - b[0]), abs(a[1] - b[1]))
    if reach == "orthogonal":
        return d in ((0, 1), (1, 0))
    if reach == "neighbour":
        return max(d) == 1
    return True


def _stackings(board, me, onto_heights, reach):
    out = []
    for a, (ca, ha) in board.items():
        if ca != me or ha != 1:
            continue
        for b, (cb, hb) in board.items():
            if a != b and cb == me and hb in onto_heights and _reach_ok(reach, a, b):
                out.append(f"{_name(a)}-{_name(b)}")
    return out


def reference_moves(pos, rules):
    """Sorted legal move tokens, computed the slow, obvious way."""
    board = _cells(pos)
    me = pos.side
    mine = {c: p for c, p in board.items() if p[0] == me}
    if pos.in_setup:
        kings = sum(1 for p in mine.values() if p[1] == 3)
        generals = sum(1 for p in mine.values() if p[1] == 2)
        onto = set()
        if generals + kings < 4:
            onto.add(1)
        if kings == 0:
            onto.add(2)
        reach = "orthogonal" if rules.setup_reach == "orthogonal" else "anywhere"
        return sorted(_stackings(board, me, onto, reach))
    caps = []
    for c, (_, h) in mine.items():
        caps += _chains(pos, board, c, me, h)
    if caps:
        best = max(v for _, v in caps)
        caps = sorted({t for t, v in caps if v == best})
    has_king = any(h == 3 for _, h in mine.values())
    if not has_king:
        recreate = _stackings(board, me, {2}, rules.king_reach)
        if rules.king_first:
            return sorted(recreate)
        return caps or sorted(recreate)
    if caps:
        if pos.duty == "G" and rules.general_vs_capture == "free":
            return sorted(caps + _stackings(board, me, {1}, rules.general_reach))
        return caps
    out = []
    for c, (_, h) in mine.items():
        dirs = ORTHO + DIAG if h == 3 else ORTHO
        for df, dr in dirs:
            n = (c[0] + df, c[1] + dr)
            while _on(pos, n) and n not in board:
                out.append(f"{_name(c)}-{_name(n)}")
                if h != 2:
                    break
                n = (n[0] + df, n[1] + dr)
    if pos.duty == "G":
        out += _stackings(board, me, {1}, rules.general_reach)
    return sorted(out)


def fpn_of(size, pieces, side="r", setup="55", duty="-", clock=0):
    """FPN text from ``{"c3": "S", "d4": "g", ...}`` (test positions written by hand)."""
    width, height = (9, 9) if size == "9x9" else (7, 8)
    ranks = []
    for r in range(height - 1, -1, -1):
        row, empty = "", 0
        for f in range(width):
            piece = pieces.get(f"{chr(97 + f)}{r + 1}")
            if piece:
                row += (str(empty) if empty else "") + piece
                empty = 0
            else:
                empty += 1
        ranks.append(row + (str(empty) if empty else ""))
    return f"{size} {'/'.join(ranks)} {side} {setup} {duty} {clock}"

"""Write printable FENIX boards as SVG at exact physical size (millimetres).

    python calibration/make_boards.py [--cell 30] [--out calibration]

The committed files were made with ``--cell 30`` (the cardboard board's size; the 9x9 face
then needs a 310 x 345 mm sheet) and ``--cell 25`` (home printers: 9x9 on A3, 7x8 on A4).

Both faces, drawn the way the table's camera expects them: the 9x9 face with light lines
on a dark board, the 7x8 face with dark lines on a light board. Each page also carries a
100 mm scale bar, so a print can be checked with a ruler (print at 100 % / "actual size").
The cell size is an assumption about the cardboard board: 30 mm cells for stones of about
24 mm diameter (the frame generator models stones 0.72-0.84 cell across).
"""
from __future__ import annotations

import argparse
import os

FACES = {
    # files, ranks, board fill, line colour, label
    "9x9": (9, 9, "#2b2622", "#e8e4da"),
    "7x8": (7, 8, "#e9dcc0", "#2a2520"),
}
PAGES = {"A4": (210, 297), "A3": (297, 420)}


def board_svg(face: str, cell: float = 30.0, line: float = 1.0, margin: float = 0.5) -> str:
    """One face as an SVG document in millimetres on the smallest A page that holds it
    (A4, A3, else a custom sheet).

    ``cell`` is the cell size, ``line`` the line width (both mm), ``margin`` the board's
    edge beyond the outer lines in cells.
    """
    files, ranks, fill, ink = FACES[face]
    bw, bh = (files + 2 * margin) * cell, (ranks + 2 * margin) * cell
    page = next(((name, pw, ph) for name, (pw, ph) in PAGES.items() if bw + 10 <= pw and bh + 45 <= ph), None)
    if page is None:  # bigger than A3: a custom sheet (copy shop, or print tiled)
        page = (f"a {bw + 10:.0f} x {bh + 45:.0f} mm sheet", bw + 10, bh + 45)
    name, pw, ph = page
    x0, y0 = (pw - bw) / 2, 15.0
    gx, gy = x0 + margin * cell, y0 + margin * cell
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{pw:g}mm" height="{ph:g}mm" viewBox="0 0 {pw:g} {ph:g}">',
           f'<title>FENIX {face} board, {cell:g} mm cells, print at 100 % on {name}</title>',
           f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{bw:.2f}" height="{bh:.2f}" fill="{fill}"/>',
           f'<g stroke="{ink}" stroke-width="{line:g}" stroke-linecap="square">']
    for i in range(files + 1):
        x = gx + i * cell
        out.append(f'<line x1="{x:.2f}" y1="{gy:.2f}" x2="{x:.2f}" y2="{gy + ranks * cell:.2f}"/>')
    for j in range(ranks + 1):
        y = gy + j * cell
        out.append(f'<line x1="{gx:.2f}" y1="{y:.2f}" x2="{gx + files * cell:.2f}" y2="{y:.2f}"/>')
    out.append('</g>')
    # Page furniture stays well outside the board so the camera ignores it.
    ty = y0 + bh + 12
    out.append(f'<text x="{x0:.2f}" y="{ty:.2f}" font-family="sans-serif" font-size="4">'
               f'FENIX {face}: {cell:g} mm cells. a1 (Red\'s camp) is the bottom-left cell. '
               f'Print at 100 % ("actual size").</text>')
    out.append(f'<g stroke="#000" stroke-width="0.4"><line x1="{x0:.2f}" y1="{ty + 8:.2f}" '
               f'x2="{x0 + 100:.2f}" y2="{ty + 8:.2f}"/>'
               f'<line x1="{x0:.2f}" y1="{ty + 6:.2f}" x2="{x0:.2f}" y2="{ty + 10:.2f}"/>'
               f'<line x1="{x0 + 100:.2f}" y1="{ty + 6:.2f}" x2="{x0 + 100:.2f}" y2="{ty + 10:.2f}"/></g>')
    out.append(f'<text x="{x0 + 104:.2f}" y="{ty + 9.5:.2f}" font-family="sans-serif" font-size="4">100 mm</text>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cell", type=float, default=30.0, help="cell size in mm (default 30)")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    for face in FACES:
        path = os.path.join(args.out, f"fenix-{face}-{args.cell:g}mm.svg")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(board_svg(face, args.cell))
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

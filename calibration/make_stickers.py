"""Write the printable corner stickers as SVG at exact physical size (millimetres).

    .venv/bin/python calibration/make_stickers.py [--side 20] [--out calibration]

Four ArUco markers (ids 0-3 of OpenCV's 4x4 dictionary, as
:mod:`fenix_table.vision.stickers` expects them), each with a white border of a quarter
of its side and its outer corner marked: that corner goes on the grid's outer corner,
the sticker outside the grid. See calibration/README.md ("Corner stickers") for when
and how to use them. The committed file was made with ``--side 20``.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import cv2  # noqa: E402

from fenix_table.vision.stickers import BORDER, CORNER_IDS, DICTIONARY  # noqa: E402

LABELS = ("a1 (Red's camp)", "end of rank 1", "far corner", "end of file a")


def sticker_svg(marker: int, side: float, x0: float, y0: float) -> str:
    """One sticker's SVG elements: border, marker cells, the marked corner, label."""
    bits = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(DICTIONARY), marker, 6)
    cell = side / 6
    pad = BORDER * side
    size = side + 2 * pad
    out = [f'<rect x="{x0:.3f}" y="{y0:.3f}" width="{size:.3f}" height="{size:.3f}" '
           f'fill="white" stroke="#bbbbbb" stroke-width="0.2" stroke-dasharray="1,1"/>']
    for r in range(6):
        for c in range(6):
            if bits[r, c] < 128:
                out.append(f'<rect x="{x0 + pad + c * cell:.3f}" y="{y0 + pad + r * cell:.3f}" '
                           f'width="{cell:.3f}" height="{cell:.3f}" fill="black"/>')
    # The marked corner (bottom right): a small filled triangle in the corner.
    cx, cy, t = x0 + size, y0 + size, 0.6 * pad
    out.append(f'<path d="M {cx:.3f} {cy:.3f} L {cx - t:.3f} {cy:.3f} L {cx:.3f} {cy - t:.3f} Z" fill="#d62020"/>')
    out.append(f'<text x="{x0:.3f}" y="{y0 + size + 5:.3f}" font-family="sans-serif" font-size="3.2">'
               f'{marker}: {LABELS[marker]}; red corner on the grid corner</text>')
    return "\n".join(out)


def sheet_svg(side: float = 20.0) -> str:
    """All four stickers on an A4 page."""
    size = side * (1 + 2 * BORDER)
    parts = []
    for k, marker in enumerate(CORNER_IDS):
        x0 = 20 + (k % 2) * (size + 60)
        y0 = 30 + (k // 2) * (size + 30)
        parts.append(sticker_svg(marker, side, x0, y0))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm" viewBox="0 0 210 297">\n'
            '<text x="20" y="18" font-family="sans-serif" font-size="4">FENIX corner stickers: print at 100 %; '
            f'each black square is {side:g} mm</text>\n' + "\n".join(parts) + "\n</svg>\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=float, default=20.0, help="marker side in mm (default 20)")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)), help="folder to write to")
    args = parser.parse_args(argv)
    path = os.path.join(args.out, "fenix-corner-stickers.svg")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(sheet_svg(args.side))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

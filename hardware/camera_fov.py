#!/usr/bin/env python3
"""Camera mounting height and resolution for both board sides: the arithmetic behind
``hardware/camera.md`` (which quotes this script's output; a test keeps them in step).

A camera looking straight down from height ``h`` sees a field ``2 h tan(fov / 2)`` wide.
The board is square, so the sensor's narrow (vertical) angle decides the height. Run:

    python3 hardware/camera_fov.py
"""
from __future__ import annotations

import math

BOARD_CM = 40.0          # the physical board, about 40 cm square
GRID_CM = 37.8           # the playing grid: 9 cells of 4.2 cm on the 9x9 side
MARGIN_CM = 4.0          # free table around the board on every side (placement slack)
STACK_CM = 2.0           # a King (three stones) stands about this tall
FRAME_PX = (1280, 960)   # the analysed frame (config [camera] width/height)

# name: (horizontal deg, vertical deg, sensor pixels)
CAMERAS = {
    "Camera Module 3": (66.0, 41.0, (4608, 2592)),
    "Camera Module 3 Wide": (102.0, 67.0, (4608, 2592)),
    "Camera Module v2": (62.2, 48.8, (3280, 2464)),
}

SIDES = {"9x9": (9, 9), "7x8": (7, 8)}


def height_for(field_cm: float, fov_deg: float) -> float:
    """Lens height above the board at which ``fov_deg`` spans ``field_cm``."""
    return field_cm / 2 / math.tan(math.radians(fov_deg) / 2)


def field_at(height_cm: float, fov_deg: float) -> float:
    return 2 * height_cm * math.tan(math.radians(fov_deg) / 2)


def parallax_cm(height_cm: float) -> float:
    """How far the top of a King in a corner cell appears displaced outwards."""
    cell = GRID_CM / 9
    corner = math.hypot(GRID_CM / 2 - cell / 2, GRID_CM / 2 - cell / 2)
    return corner * STACK_CM / (height_cm - STACK_CM)


def rows() -> list[str]:
    field = BOARD_CM + 2 * MARGIN_CM
    out = []
    for name, (hfov, vfov, _) in CAMERAS.items():
        h = height_for(field, vfov)
        px_per_cm = FRAME_PX[1] / field
        cells = {side: (GRID_CM / files, GRID_CM / ranks) for side, (files, ranks) in SIDES.items()}
        cell_px = {side: f"{min(w, d) * px_per_cm:.0f}" for side, (w, d) in cells.items()}
        shift = parallax_cm(h)
        out.append(f"| {name} | {hfov:g} x {vfov:g} | {h:.1f} cm | "
                   f"{field_at(h, hfov):.0f} x {field_at(h, vfov):.0f} cm | "
                   f"{px_per_cm:.1f} | {cell_px['9x9']} | {cell_px['7x8']} | "
                   f"{shift:.1f} cm ({shift / (GRID_CM / 9):.0%}) |")
    return out


def table() -> str:
    header = ("| camera | FOV (deg, h x v) | lens height | field at that height | "
              "px/cm at 960 px | px per cell 9x9 | px per cell 7x8 | King top shift in a corner |\n"
              "|---|---|---|---|---|---|---|---|")
    return "\n".join([header, *rows()])


if __name__ == "__main__":
    print(f"board {BOARD_CM:g} cm + {MARGIN_CM:g} cm margin each side = "
          f"{BOARD_CM + 2 * MARGIN_CM:g} cm field; frame {FRAME_PX[0]}x{FRAME_PX[1]}")
    print(table())

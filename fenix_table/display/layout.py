"""Where things go on the screen, for any window size (built for 800x480 and 1920x1080).

Landscape screens put a square board on the left and a panel on the right; everything is
sized from the screen height, so the 7" Pi touchscreen and a full-HD monitor get the same
picture at different scales. No pygame here beyond ``pygame.Rect``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import pygame

from ..board import cell_index, cell_name, file_letter

# The panel's buttons in reading order (two rows of four); each is an action name.
BUTTONS = ("new_game", "undo", "draw", "resign", "calibrate", "review", "camera", "quit")


@dataclass
class Layout:
    width: int
    height: int
    scale: float
    board: pygame.Rect
    panel: pygame.Rect
    status: pygame.Rect
    banner: pygame.Rect
    inset: pygame.Rect
    moves: pygame.Rect
    button_area: pygame.Rect
    buttons: Dict[str, pygame.Rect] = field(default_factory=dict)
    corner_buttons: Dict[str, pygame.Rect] = field(default_factory=dict)

    def font_px(self, role: str) -> int:
        """Font heights in pixels; at 800x480 the banner is 26 px (about 5 mm on the
        7" screen), readable from 1.5 m."""
        base = {"turn": 32, "banner": 26, "heading": 22, "text": 19, "small": 16,
                "button": 17, "board_label": 16, "overlay": 40, "stack": 24}[role]
        return max(10, round(base * self.scale))


def make_layout(width: int, height: int) -> Layout:
    """Split a ``width`` x ``height`` screen. Works for any landscape size >= 480x320."""
    scale = height / 480.0
    pad = max(4, round(6 * scale))
    side = min(height - 2 * pad, int(width * 0.6))
    board = pygame.Rect(pad, (height - side) // 2, side, side)
    panel = pygame.Rect(board.right + pad, pad, width - board.right - 2 * pad, height - 2 * pad)

    status_h = round(84 * scale)
    button_h = round(46 * scale)
    buttons_h = 2 * button_h + pad
    lower_h = round(112 * scale)
    status = pygame.Rect(panel.x, panel.y, panel.w, status_h)
    button_area = pygame.Rect(panel.x, panel.bottom - buttons_h, panel.w, buttons_h)
    lower = pygame.Rect(panel.x, button_area.y - pad - lower_h, panel.w, lower_h)
    banner = pygame.Rect(panel.x, status.bottom + pad, panel.w, lower.y - pad - status.bottom - pad)
    inset_w = min(round(lower_h * 4 / 3), panel.w // 2)
    inset = pygame.Rect(lower.x, lower.y, inset_w, lower_h)
    moves = pygame.Rect(inset.right + pad, lower.y, lower.right - inset.right - pad, lower_h)

    layout = Layout(width, height, scale, board, panel, status, banner, inset, moves, button_area)
    cols = 4
    bw = (panel.w - (cols - 1) * pad) // cols
    for i, name in enumerate(BUTTONS):
        row, col = divmod(i, cols)
        layout.buttons[name] = pygame.Rect(panel.x + col * (bw + pad),
                                           button_area.y + row * (button_h + pad), bw, button_h)
    small = round(40 * scale)
    layout.corner_buttons["language"] = pygame.Rect(status.right - small, status.y, small, small)
    layout.corner_buttons["rotate"] = pygame.Rect(status.right - 2 * small - pad, status.y, small, small)
    # The coach's hint: "?" beside them, in reach of both players.
    layout.corner_buttons["hint"] = pygame.Rect(status.right - 3 * small - 2 * pad, status.y,
                                                small, small)
    return layout


class BoardGeometry:
    """Cells to screen pixels for a board of ``files`` x ``ranks`` inside ``rect``.

    ``rotation`` turns the picture clockwise in quarter turns so either player's camp can
    face them; at 0, a1 (Red's camp corner) is bottom left.
    """

    def __init__(self, rect: pygame.Rect, files: int, ranks: int, rotation: int = 0,
                 label_share: float = 0.45) -> None:
        self.files, self.ranks, self.rotation = files, ranks, rotation % 4
        cols, rows = (files, ranks) if self.rotation % 2 == 0 else (ranks, files)
        self.cols, self.rows = cols, rows
        # Room for coordinate labels around the grid.
        self.cell = int(min(rect.w / (cols + 2 * label_share), rect.h / (rows + 2 * label_share)))
        gw, gh = self.cell * cols, self.cell * rows
        self.grid = pygame.Rect(rect.centerx - gw // 2, rect.centery - gh // 2, gw, gh)

    def col_row(self, f: int, r: int) -> Tuple[int, int]:
        col, row = f, self.ranks - 1 - r
        c, rr = self.files, self.ranks
        for _ in range(self.rotation):
            # a clockwise quarter turn of a c x rr picture
            col, row = rr - 1 - row, col
            c, rr = rr, c
        return col, row

    def cell_rect(self, cell: str) -> pygame.Rect:
        col, row = self.col_row(*cell_index(cell))
        return pygame.Rect(self.grid.x + col * self.cell, self.grid.y + row * self.cell,
                           self.cell, self.cell)

    def centre(self, cell: str) -> Tuple[int, int]:
        return self.cell_rect(cell).center

    def cell_at(self, pos: Tuple[int, int]) -> str | None:
        if not self.grid.collidepoint(pos):
            return None
        for f in range(self.files):
            for r in range(self.ranks):
                name = cell_name(f, r)
                if self.cell_rect(name).collidepoint(pos):
                    return name
        return None

    def labels(self) -> List[Tuple[str, Tuple[int, int]]]:
        """Coordinate labels (file letters, rank numbers) and their centres, outside the grid."""
        out = []
        half = self.cell // 2
        off = int(self.cell * 0.3)
        for f in range(self.files):
            a = self.cell_rect(cell_name(f, 0))
            b = self.cell_rect(cell_name(f, self.ranks - 1))
            out.append((file_letter(f), _outside(a, b, half, off)))
        for r in range(self.ranks):
            a = self.cell_rect(cell_name(0, r))
            b = self.cell_rect(cell_name(self.files - 1, r))
            out.append((str(r + 1), _outside(a, b, half, off)))
        return out


def _outside(near: pygame.Rect, far: pygame.Rect, half: int, off: int) -> Tuple[int, int]:
    """A point just beyond ``near`` on the side facing away from ``far``."""
    dx = near.centerx - far.centerx
    dy = near.centery - far.centery
    if abs(dx) >= abs(dy) and dx:
        return (near.centerx + (half + off) * (1 if dx > 0 else -1), near.centery)
    if dy:
        return (near.centerx, near.centery + (half + off) * (1 if dy > 0 else -1))
    return (near.centerx, near.bottom + off)

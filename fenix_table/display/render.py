"""Drawing the table onto any pygame Surface (a window, the KMS framebuffer, a PNG).

:meth:`Renderer.draw` is a pure function of the model, the UI state and the latest camera
frame: it never changes them. It returns the texts it placed (``Drawn``) so tests can check
what the players were told, and where, without reading pixels back as text.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import pygame

from ..board import black_camp, dimensions, red_camp
from .controls import (NEW_GAME_ROWS, UiState, calibration_view, choice_rects, dialog_rects,
                       fix_rects, narrowed)
from .i18n import Translator
from .layout import BUTTONS, BoardGeometry, Layout, make_layout
from .model import (REVIEW_MARKS, CapturePlan, TableModel, format_clock, jumped_cells,
                    placement_of, token_cells)

#: Soft hyphen: where a long word in the catalogue may break when its box is narrow.
SHY = "\u00ad"
# pygame's bundled font, by path: Font(None, px) would shrink every size by a third.
FONT_FILE = os.path.join(os.path.dirname(pygame.__file__), "freesansbold.ttf")

BACKGROUND = (24, 27, 33)
PANEL = (36, 40, 48)
TEXT = (236, 236, 236)
DIM_TEXT = (160, 166, 176)
BOARD_FACE = (224, 192, 142)
BOARD_LINE = (70, 50, 30)
RED_CAMP = (236, 170, 150)
BLACK_CAMP = (176, 164, 150)
RED_STONE = (205, 32, 36)
RED_EDGE = (96, 10, 12)
BLACK_STONE = (28, 28, 30)
BLACK_EDGE = (150, 150, 155)
OUTLINE = (0, 0, 0)
# Compulsory-capture paths: one colour per alternative (the first is the usual case).
PATH_COLOURS = ((255, 214, 0), (0, 224, 255), (255, 96, 224), (130, 255, 90))
JUMPED = (255, 255, 255)
COMPUTER_MOVE = (60, 235, 140)
HINT = (190, 120, 255)          # the coach's move: a hint, or the better move in a review
STACK_LABEL = (255, 240, 200)   # not JUMPED white: a King is not a stone to take
REMOVE = (255, 140, 0)
VIOLATION = (235, 30, 30)
SYNC = (255, 150, 0)
LAST_MOVE = (40, 200, 255)
BUTTON = (64, 72, 86)
BUTTON_ON = (40, 120, 200)
BANNERS = {
    # role: (background, text colour)
    "violation": ((190, 20, 24), (255, 255, 255)),
    "out_of_sync": ((220, 110, 0), (255, 255, 255)),
    "remove": ((230, 120, 0), (0, 0, 0)),
    "capture": ((255, 214, 0), (0, 0, 0)),
    "computer": ((20, 130, 90), (255, 255, 255)),
    "hint": ((110, 60, 170), (255, 255, 255)),
    "game_over": ((30, 90, 170), (255, 255, 255)),
    "draw_offer": ((90, 60, 160), (255, 255, 255)),
    "notice": ((70, 78, 92), (255, 255, 255)),
    "review": ((60, 110, 70), (255, 255, 255)),
    "calibrate": ((60, 110, 70), (255, 255, 255)),
    "info": ((48, 54, 64), (236, 236, 236)),
}


@dataclass(frozen=True)
class Drawn:
    """A text put on screen: ``role`` (e.g. "banner", "turn"), the text, its box."""

    role: str
    text: str
    rect: pygame.Rect


@dataclass(frozen=True)
class CameraGrid:
    """The detected grid for the inset: four image corners in board order (a1's outer
    corner, along rank 1, the far corner, the end of file a) and the frame size."""

    files: int
    ranks: int
    corners: Tuple[Tuple[float, float], ...]


def homography(src: Sequence[Tuple[float, float]], dst: Sequence[Tuple[float, float]]):
    """3x3 projective map taking four ``src`` points to ``dst`` (as nested lists)."""
    import numpy as np
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b += [u, v]
    h = np.linalg.solve(np.array(a, float), np.array(b, float))
    return np.append(h, 1.0).reshape(3, 3)


def banner_for(model: TableModel, tr: Translator) -> Optional[Tuple[str, str, str]]:
    """The most urgent message: ``(role, heading, sentence)`` or None.

    Order: violation, out of sync, stones to take off, the computer's move (or its
    thinking), the coach's hint (or its search), compulsory capture, game over, draw
    offer, notice. The violation sentence is the referee's, in the chosen language.
    """
    if model.violation is not None:
        v = model.violation
        sentence = tr.referee(v.code, v.params, fallback=v.explanation)
        sentence = sentence[:1].upper() + sentence[1:] + ".\n" + tr.ui("restore")
        if model.mode == "casual":
            sentence += "\n" + tr.ui("play_on_hint")
        return ("violation", tr.ui("violation"), sentence)
    if model.out_of_sync is not None:
        hint = tr.ui("out_of_sync_hint")
        if model.mode == "casual":
            hint += "\n" + tr.ui("play_on_hint")
        return ("out_of_sync", tr.ui("out_of_sync"), hint)
    if model.ambiguous is not None:
        # Marked cells are the likeliest landings; with none the camera saw nothing to
        # go by, and says so.
        hint = "ambiguous_hint" if model.ambiguous.cells else "ambiguous_unseen_hint"
        return ("out_of_sync", tr.ui("ambiguous"), tr.ui(hint))
    if model.pending is not None:
        return ("remove", tr.ui("remove"), ", ".join(model.pending.cells))
    if model.computer_move is not None:
        c = model.computer_move
        return ("computer", tr.ui("computer_move", move=c.move),
                tr.ui("computer_move_hint", side=c.side))
    if model.thinking is not None:
        t = model.thinking
        return ("computer", tr.ui("computer_thinking"),
                tr.ui("computer_depth", side=t.side, depth=t.depth))
    if model.hint_plan() is not None:
        h = model.hint
        return ("hint", tr.ui("hint_move", side=h.side, move=h.move), tr.coach(h.reason))
    if model.hinting() is not None:
        _, side, depth = model.hinting()
        return ("hint", tr.ui("hint_thinking"), tr.ui("hint_depth", side=side, depth=depth))
    if model.capture:
        hint = tr.ui("capture_one") if len(model.capture) == 1 else \
            tr.ui("capture_choices", count=len(model.capture))
        side = model.capture_side or model.side
        return ("capture", tr.ui("must_capture", side=side),
                hint + ": " + ", ".join(p.token for p in model.capture[:4]))
    if model.game_over is not None:
        g = model.game_over
        head = tr.ui("wins", side=g.winner) if g.winner else tr.ui("draw")
        return ("game_over", tr.ui("game_over") + ": " + head,
                tr.referee(g.reason, model.game_over_params(), fallback=g.text))
    if model.draw_offer is not None:
        return ("draw_offer", tr.ui("draw_offered", side=model.draw_offer), "")
    notice = model.notice_active()
    if notice is not None:
        return ("notice", "", tr.notice(notice.code, notice.cells, fallback=notice.message))
    return None


class Renderer:
    """Draws the whole table. Keeps only caches (fonts, the converted camera frame)."""

    def __init__(self) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: Dict[int, pygame.font.Font] = {}
        self._frame_key = None
        self._frame_surface: Optional[pygame.Surface] = None
        self.layout: Optional[Layout] = None
        self.geometry: Optional[BoardGeometry] = None

    # -- helpers --------------------------------------------------------------------
    def font(self, px: int) -> pygame.font.Font:
        if px not in self._fonts:
            # pygame's bundled freesansbold: same glyphs (with accents) on every machine
            self._fonts[px] = pygame.font.Font(FONT_FILE, px)
        return self._fonts[px]

    def _text(self, surface, text, px, colour, centre=None, topleft=None, role=None,
              drawn=None) -> pygame.Rect:
        img = self.font(px).render(text, True, colour)
        rect = img.get_rect()
        if centre is not None:
            rect.center = centre
        else:
            rect.topleft = topleft
        surface.blit(img, rect)
        if drawn is not None and role:
            drawn.append(Drawn(role, text, rect))
        return rect

    def wrap(self, text: str, px: int, width: int) -> List[str]:
        """``text`` in lines of at most ``width`` pixels where it can be; a word too long
        for a line of its own breaks at its soft hyphens (U+00AD), shown as "-"."""
        font = self.font(px)
        lines: List[str] = []
        for paragraph in text.split("\n"):
            line = ""
            for word in paragraph.split():
                trial = f"{line} {word}".strip()
                if font.size(trial.replace(SHY, ""))[0] <= width or not line:
                    line = trial
                else:
                    lines.append(line)
                    line = word
                *broken, line = self._hyphenate(line, font, width)
                lines.extend(broken)
            lines.append(line)
        return [line.replace(SHY, "") for line in lines]

    @staticmethod
    def _hyphenate(line: str, font, width: int) -> List[str]:
        """``line`` split at its soft hyphens while it is too wide (the rest last)."""
        parts: List[str] = []
        while font.size(line.replace(SHY, ""))[0] > width and SHY in line:
            pieces = line.split(SHY)
            cut = 1
            while cut < len(pieces) - 1 and font.size(
                    SHY.join(pieces[:cut + 1]).replace(SHY, "") + "-")[0] <= width:
                cut += 1
            parts.append(SHY.join(pieces[:cut]) + "-")
            line = SHY.join(pieces[cut:])
        return parts + [line]

    def fit(self, text: str, px: int, rect: pygame.Rect, min_px: int = 10) -> Tuple[int, List[str]]:
        """Largest font size <= ``px`` at which ``text`` wraps into ``rect``."""
        while True:
            lines = self.wrap(text, px, rect.w)
            height = len(lines) * self.font(px).get_linesize()
            widest = max(self.font(px).size(line)[0] for line in lines)
            if (height <= rect.h and widest <= rect.w) or px <= min_px:
                return px, lines
            px = max(min_px, int(px * 0.9))

    def _paragraph(self, surface, text, px, rect, colour, role, drawn, centred=False) -> None:
        px, lines = self.fit(text, px, rect)
        line_h = self.font(px).get_linesize()
        y = rect.y if not centred else rect.centery - len(lines) * line_h // 2
        top = y
        for line in lines:
            img = self.font(px).render(line, True, colour)
            r = img.get_rect()
            if centred:
                r.midtop = (rect.centerx, y)
            else:
                r.topleft = (rect.x, y)
            surface.blit(img, r)
            y += line_h
        if role:
            drawn.append(Drawn(role, text.replace(SHY, ""),
                               pygame.Rect(rect.x, top, rect.w, y - top)))

    # -- the whole screen -----------------------------------------------------------
    def draw(self, surface: pygame.Surface, model: TableModel, ui: UiState, frame=None,
             grid: Optional[CameraGrid] = None) -> List[Drawn]:
        """Draw everything; ``frame`` is the latest BGR camera image (numpy) or None."""
        w, h = surface.get_size()
        if self.layout is None or (self.layout.width, self.layout.height) != (w, h):
            self.layout = make_layout(w, h)
        layout = self.layout
        tr = Translator(ui.language)
        drawn: List[Drawn] = []
        surface.fill(BACKGROUND)
        pygame.draw.rect(surface, PANEL, layout.panel, border_radius=round(8 * layout.scale))

        if ui.dialog == "calibrate":
            self._calibration(surface, layout, ui, frame, grid, tr, drawn)
        else:
            self._board(surface, layout, model, ui, tr, drawn)
        self._status(surface, layout, model, ui, tr, drawn)
        self._banner(surface, layout, model, ui, tr, drawn)
        self._lower(surface, layout, model, ui, frame, grid, tr, drawn)
        self._buttons(surface, layout, model, ui, tr, drawn)
        if ui.dialog in ("new_game", "resign"):
            self._dialog(surface, layout, ui, tr, drawn)
        return drawn

    # -- board ------------------------------------------------------------------------
    def _board(self, surface, layout, model: TableModel, ui: UiState, tr, drawn) -> None:
        history, moves = model.review_history()
        reviewing = ui.dialog == "review" and history
        size = model.size
        note = None
        if reviewing:
            ply = min(ui.review_ply, len(history) - 1)
            review = model.coach_review()
            note = review.note(ply) if review is not None and ply > 0 else None
            # A marked move is shown from the position it was played in, beside the
            # better move.
            fpn = history[ply - 1] if note is not None else history[ply]
            stacks = placement_of(fpn)
            size = fpn.split()[0]
            last = moves[ply - 1] if ply > 0 else None
        else:
            stacks = model.placement()
            last = model.last_move
        geo = BoardGeometry(layout.board, *dimensions(size), ui.rotation)
        self.geometry = geo
        s = geo.cell
        frame = geo.grid.inflate(int(s * 0.5), int(s * 0.5))
        pygame.draw.rect(surface, BOARD_FACE, frame, border_radius=int(s * 0.15))
        for camp, colour in ((red_camp(size), RED_CAMP), (black_camp(size), BLACK_CAMP)):
            for cell in camp:
                pygame.draw.rect(surface, colour, geo.cell_rect(cell))
        for i in range(geo.cols + 1):
            x = geo.grid.x + i * s
            pygame.draw.line(surface, BOARD_LINE, (x, geo.grid.y), (x, geo.grid.bottom), 2)
        for j in range(geo.rows + 1):
            y = geo.grid.y + j * s
            pygame.draw.line(surface, BOARD_LINE, (geo.grid.x, y), (geo.grid.right, y), 2)
        label_px = min(layout.font_px("board_label"), max(10, int(s * 0.36)))
        for text, centre in geo.labels():
            self._text(surface, text, label_px, DIM_TEXT, centre=centre)

        if last and not (model.violation or model.out_of_sync) and note is None:
            cells = token_cells(last)
            for c in (cells[0], cells[-1]):
                pygame.draw.rect(surface, LAST_MOVE, geo.cell_rect(c).inflate(-4, -4), max(2, s // 16))

        for cell, (colour, height) in stacks.items():
            self._stack(surface, geo, cell, colour, height)

        if not reviewing:
            occluded = model.view.occluded_cells if model.view.hand else ()
            if occluded:
                shade = pygame.Surface((s, s), pygame.SRCALPHA)
                shade.fill((120, 120, 120, 110))
                for cell in occluded:
                    if cell[0].isalpha():
                        surface.blit(shade, geo.cell_rect(cell))
            for cell in model.marked_cells():
                colour = VIOLATION if model.violation is not None else SYNC
                pygame.draw.rect(surface, colour, geo.cell_rect(cell).inflate(-2, -2), max(4, s // 9))
            if model.pending is not None and model.violation is None:
                for cell in model.pending.cells:
                    self._cross(surface, geo, cell, REMOVE, ring=True)
            computer = model.computer_plan()
            hint = model.hint_plan()
            if computer is not None:
                self._capture_path(surface, geo, computer, COMPUTER_MOVE)
            elif hint is not None:
                self._capture_path(surface, geo, hint, HINT)
            elif model.capture and model.violation is None and model.pending is None:
                for i, plan in reversed(list(enumerate(model.capture))):
                    self._capture_path(surface, geo, plan, PATH_COLOURS[i % len(PATH_COLOURS)])
            self._board_overlays(surface, layout, model, geo, tr, drawn)
        else:
            if last:
                cells = token_cells(last)
                self._arrow_path(surface, geo, cells, LAST_MOVE, max(4, s // 10), skip_start=int(s * 0.4))
            if note is not None:   # over the move played: the better move is the lesson
                better = note.better
                self._capture_path(surface, geo, CapturePlan(
                    better, token_cells(better), jumped_cells(better, stacks)), HINT)

    def _stack(self, surface, geo: BoardGeometry, cell, colour, height) -> None:
        s = geo.cell
        cx, cy = geo.centre(cell)
        radius = int(s * 0.38)
        lift = max(2, int(s * 0.085))
        fill, edge = (RED_STONE, RED_EDGE) if colour == "red" else (BLACK_STONE, BLACK_EDGE)
        base_y = cy + (height - 1) * lift // 2
        for i in range(height):
            y = base_y - i * lift
            pygame.draw.circle(surface, edge, (cx, y + max(1, lift // 2)), radius)
            pygame.draw.circle(surface, fill, (cx, y), radius)
            pygame.draw.circle(surface, edge, (cx, y), radius, max(1, s // 30))
        top_y = base_y - (height - 1) * lift
        if height == 3:
            pygame.draw.circle(surface, (240, 200, 40), (cx, top_y), int(radius * 0.78), max(2, s // 18))
        if height >= 2:
            px = max(10, int(s * 0.5))
            self._text(surface, str(height), px, STACK_LABEL, centre=(cx, top_y + 1))

    def _cross(self, surface, geo, cell, colour, ring=False) -> None:
        s = geo.cell
        cx, cy = geo.centre(cell)
        a = int(s * 0.36)
        w = max(4, s // 8)
        for dx, dy in ((a, a), (a, -a)):
            pygame.draw.line(surface, OUTLINE, (cx - dx, cy - dy), (cx + dx, cy + dy), w + 4)
        for dx, dy in ((a, a), (a, -a)):
            pygame.draw.line(surface, colour, (cx - dx, cy - dy), (cx + dx, cy + dy), w)
        if ring:
            pygame.draw.circle(surface, OUTLINE, (cx, cy), int(s * 0.47), w + 2)
            pygame.draw.circle(surface, colour, (cx, cy), int(s * 0.47), w)

    def _capture_path(self, surface, geo, plan, colour) -> None:
        """Ring on the capturing piece, an arrow through every landing cell, then a cross
        on each jumped stack (on top, so the stones to be taken are unmistakable)."""
        s = geo.cell
        width = max(6, int(s * 0.2))
        start = geo.centre(plan.path[0])
        ring = int(s * 0.46)
        pygame.draw.circle(surface, OUTLINE, start, ring, width + 4)
        pygame.draw.circle(surface, colour, start, ring, width)
        self._arrow_path(surface, geo, plan.path, colour, width, skip_start=ring)
        for cell in plan.jumped:
            self._cross(surface, geo, cell, JUMPED)

    def _arrow_path(self, surface, geo, cells: Sequence[str], colour, width: int,
                    skip_start: int = 0) -> None:
        """A thick polyline through every cell centre with a head on each leg; the first
        ``skip_start`` pixels are left out so the moving piece stays visible."""
        points = [geo.centre(c) for c in cells]
        head = width * 2.2
        for layer, extra in ((OUTLINE, 4), (colour, 0)):
            for i, (a, b) in enumerate(zip(points, points[1:])):
                ax, ay = a
                bx, by = b
                length = math.hypot(bx - ax, by - ay) or 1.0
                ux, uy = (bx - ax) / length, (by - ay) / length
                if i == 0 and skip_start:
                    a = (ax + ux * skip_start, ay + uy * skip_start)
                # the shaft stops inside the head; the tip sits just past the centre
                tip = (bx + ux * head * 0.45, by + uy * head * 0.45)
                neck = (bx - ux * head * 0.55, by - uy * head * 0.55)
                pygame.draw.line(surface, layer, a, b, width + extra)
                pygame.draw.circle(surface, layer, a, (width + extra) // 2)
                e = extra * 0.8
                spread = head * 0.6 + e
                back = (neck[0] - ux * e, neck[1] - uy * e)
                pygame.draw.polygon(surface, layer, [
                    (tip[0] + ux * e, tip[1] + uy * e),
                    (back[0] - uy * spread, back[1] + ux * spread),
                    back,
                    (back[0] + uy * spread, back[1] - ux * spread)])

    def _board_overlays(self, surface, layout, model: TableModel, geo, tr, drawn) -> None:
        problem = model.camera_problem()
        rect = layout.board
        if problem in ("camera_lost", "board_not_found"):
            cover = pygame.Surface(rect.size, pygame.SRCALPHA)
            cover.fill((10, 10, 14, 170))
            surface.blit(cover, rect)
            box = rect.inflate(-rect.w // 8, -rect.h // 2)
            pygame.draw.rect(surface, (190, 20, 24), box, border_radius=12)
            pygame.draw.rect(surface, (255, 255, 255), box, 3, border_radius=12)
            head = box.inflate(-24, 0)
            head.h = box.h // 2
            self._paragraph(surface, tr.ui(problem), layout.font_px("overlay"), head,
                            (255, 255, 255), "camera_state", drawn, centred=True)
            hint = pygame.Rect(box.x + 12, box.centery, box.w - 24, box.h // 2 - 8)
            self._paragraph(surface, tr.ui(problem + "_hint"), layout.font_px("text"), hint,
                            (255, 255, 255), "camera_hint", drawn, centred=True)
        elif problem in ("hand", "searching"):
            # A passing state, no fault: a strip, not a cover over the board.
            strip = pygame.Rect(rect.x, rect.y, rect.w, layout.font_px("heading") + 12)
            pygame.draw.rect(surface, (250, 220, 60) if problem == "hand" else (150, 190, 230), strip,
                             border_radius=6)
            self._text(surface, tr.ui(problem), layout.font_px("heading"), (0, 0, 0),
                       centre=strip.center, role="camera_state", drawn=drawn)
        if model.game_over is not None and not problem:
            g = model.game_over
            box = rect.inflate(-rect.w // 6, -rect.h * 2 // 3)
            pygame.draw.rect(surface, (30, 90, 170), box, border_radius=12)
            pygame.draw.rect(surface, (255, 255, 255), box, 3, border_radius=12)
            head = tr.ui("wins", side=g.winner) if g.winner else tr.ui("draw")
            self._paragraph(surface, head, layout.font_px("overlay"), box.inflate(-20, -10),
                            (255, 255, 255), "result", drawn, centred=True)

    # -- panel ------------------------------------------------------------------------
    def _status(self, surface, layout, model: TableModel, ui, tr, drawn) -> None:
        rect = layout.status
        s = layout.scale
        for name, r in layout.corner_buttons.items():
            pygame.draw.rect(surface, BUTTON, r, border_radius=6)
            if name == "language":
                self._text(surface, ui.language.upper(), layout.font_px("button"), TEXT,
                           centre=r.center, role="language", drawn=drawn)
            elif name == "hint":
                self._text(surface, "?", layout.font_px("heading"), TEXT, centre=r.center,
                           role="hint_button", drawn=drawn)
            else:
                c = r.center
                radius = r.w // 3
                pygame.draw.arc(surface, TEXT, pygame.Rect(c[0] - radius, c[1] - radius, 2 * radius, 2 * radius),
                                0.6, 5.4, max(2, r.w // 14))
                tip = (c[0] + radius * math.cos(0.6), c[1] - radius * math.sin(0.6))
                k = r.w // 7
                pygame.draw.polygon(surface, TEXT, [(tip[0] - k, tip[1] - k), (tip[0] + k, tip[1] - k),
                                                    (tip[0], tip[1] + k)])
        history, _ = model.review_history()
        if ui.dialog == "review" and history:
            total = len(history) - 1
            title = tr.ui("review", ply=min(ui.review_ply, total), total=total)
            if model.reviewed is not None:
                title = f"#{model.reviewed.id} {model.reviewed.result}  " + title
            # Up to the corner buttons, smaller when it is long.
            room = pygame.Rect(rect.x + 8, rect.y + 6, min(b.x for b in
                               layout.corner_buttons.values()) - rect.x - 14,
                               layout.font_px("turn") + 4)
            px, lines = self.fit(title, layout.font_px("turn"), room)
            self._text(surface, " ".join(lines), px, TEXT, topleft=room.topleft, role="turn",
                       drawn=drawn)
            review = model.coach_review()
            if review is None:
                line = tr.ui("review_hint")
            elif not review.finished:
                line = tr.ui("coach_running", done=review.done, total=review.total)
            else:
                count = len(review.notes)
                line = tr.ui("coach_marked", count=count) if count > 1 else \
                    tr.ui("coach_one" if count else "coach_none")
            self._text(surface, line, layout.font_px("small"), DIM_TEXT,
                       topleft=(rect.x + 8, rect.y + layout.font_px("turn") + 14), role="status",
                       drawn=drawn)
            return
        if not model.started:
            self._text(surface, tr.ui("new_game"), layout.font_px("turn"), TEXT,
                       topleft=(rect.x + 8, rect.y + 6), role="turn", drawn=drawn)
            return
        stone = (RED_STONE, RED_EDGE) if model.side == "red" else (BLACK_STONE, BLACK_EDGE)
        r = round(14 * s)
        centre = (rect.x + 8 + r, rect.y + 8 + r)
        if model.game_over is None:
            pygame.draw.circle(surface, stone[0], centre, r)
            pygame.draw.circle(surface, stone[1] if model.side == "red" else (220, 220, 220), centre, r, 2)
            line = tr.ui("turn", side=model.side)
        else:
            g = model.game_over
            line = tr.ui("wins", side=g.winner) if g.winner else tr.ui("draw")
        turn_rect = pygame.Rect(centre[0] + r + 8, rect.y + 4,
                                min(b.x for b in layout.corner_buttons.values()) - centre[0] - r - 12, 2 * r + 8)
        px, lines = self.fit(line, layout.font_px("turn"), turn_rect)
        self._text(surface, " ".join(lines), px, TEXT, topleft=(turn_rect.x, turn_rect.centery - px // 2),
                   role="turn", drawn=drawn)
        y = rect.y + 2 * r + 16
        if model.game_over is None:
            sub = None
            if model.setup_left and model.duty == "-" and model.setup_left <= 5 and model.fpn and \
                    " 55 " not in model.fpn:
                sub = tr.ui("setup", left=model.setup_left)
            elif model.duty in ("K", "G"):
                sub = tr.ui("duty_" + model.duty)
            if sub:
                box = pygame.Rect(rect.x + 8, y, rect.w - 16, rect.bottom - y)
                px, lines = self.fit(sub, layout.font_px("text"), box)
                colour = (255, 214, 0) if model.duty == "K" else TEXT
                self._paragraph(surface, sub, px, box, colour, "status", drawn)
        if ui.show_clocks and model.started:
            now = model.now()
            text = "   ".join(tr.ui("clock", side=side, time=format_clock(model.clocks.reading(side, now)))
                              for side in ("red", "black"))
            self._text(surface, text, layout.font_px("small"), DIM_TEXT,
                       topleft=(rect.x + 8, rect.bottom - layout.font_px("small")), role="clocks",
                       drawn=drawn)

    def _banner(self, surface, layout, model: TableModel, ui, tr, drawn) -> None:
        rect = layout.banner
        if ui.dialog == "calibrate":
            message = ("calibrate", tr.ui("calibrate"), tr.ui("calibrate_hint"))
        elif ui.dialog == "review":
            _, moves = model.review_history()
            ply = min(ui.review_ply, len(moves))
            review = model.coach_review()
            note = review.note(ply) if review is not None and ply else None
            if note is not None:
                message = ("review", tr.ui("move_count", ply=ply) + f": {note.played}"
                           f"{REVIEW_MARKS[note.code]}",
                           tr.ui("review_" + note.code) + "; " + tr.ui(
                               "review_better", move=note.better,
                               better=tr.score(note.better_score),
                               played=tr.score(note.played_score)))
            else:
                message = ("review", tr.ui("move_count", ply=ply),
                           moves[ply - 1] if ply else "") if moves else None
        else:
            message = banner_for(model, tr)
        if message is None:
            if model.started:
                lines = []
                if model.rules:
                    lines.append(f"{tr.ui('rules')}: {tr.word(model.rules)}")
                if model.last_move:
                    lines.append(tr.ui("last_move", move=model.last_move))
                pygame.draw.rect(surface, BANNERS["info"][0], rect, border_radius=8)
                self._paragraph(surface, "\n".join(lines), layout.font_px("text"),
                                rect.inflate(-16, -12), DIM_TEXT, "info", drawn)
            return
        role, heading, sentence = message
        bg, fg = BANNERS[role]
        pygame.draw.rect(surface, bg, rect, border_radius=8)
        inner = rect.inflate(-16, -12)
        fixes = fix_rects(layout, model.fixes()) if ui.dialog is None else {}
        for name, button in fixes.items():
            self._button(surface, button, tr.ui(name[4:]), True, layout, "fix", drawn)
            inner.h = min(inner.h, button.y - inner.y - 4)
        sentence_px = layout.font_px("banner")
        if heading:
            # The heading may take half the banner when fix buttons crowd it; the sentence
            # is never set larger than the heading (a small heading over a big hint reads
            # upside down).
            head_px, head_lines = self.fit(heading, sentence_px + 4,
                                           pygame.Rect(inner.x, inner.y, inner.w, inner.h // 2))
            head_h = len(head_lines) * self.font(head_px).get_linesize()
            self._paragraph(surface, heading, head_px,
                            pygame.Rect(inner.x, inner.y, inner.w, head_h), fg, "banner_heading", drawn)
            inner = pygame.Rect(inner.x, inner.y + head_h + 4, inner.w, inner.h - head_h - 4)
            sentence_px = min(sentence_px, max(10, head_px - 4))
        if sentence:
            self._paragraph(surface, sentence, sentence_px, inner, fg, "banner", drawn)

    def _lower(self, surface, layout, model: TableModel, ui, frame, grid, tr, drawn) -> None:
        inset, moves = layout.inset, layout.moves
        if ui.show_camera and ui.dialog != "calibrate":
            self._inset(surface, inset, model, frame, grid, tr, layout, drawn)
        else:
            moves = inset.union(moves)
        px = layout.font_px("small")
        self._text(surface, tr.ui("moves"), px, DIM_TEXT, topleft=(moves.x + 4, moves.y), role="moves_heading",
                   drawn=drawn)
        line_h = self.font(px).get_linesize()
        rows = max(1, (moves.h - line_h) // line_h)
        moves_shown = model.review_history()[1] if ui.dialog == "review" else None
        review = model.coach_review() if ui.dialog == "review" else None
        lines = model.move_list(moves_shown, review)[-rows:]
        y = moves.y + line_h
        for line in lines:
            text = line
            while self.font(px).size(text)[0] > moves.w - 8 and len(text) > 4:
                text = text[:-2]
            self._text(surface, text, px, TEXT, topleft=(moves.x + 4, y), role="move", drawn=drawn)
            y += line_h

    def _camera_surface(self, frame) -> pygame.Surface:
        key = (id(frame), frame.shape)
        if key != self._frame_key:
            rgb = frame[:, :, ::-1].copy(order="C")
            self._frame_surface = pygame.image.frombuffer(rgb.tobytes(), (frame.shape[1], frame.shape[0]), "RGB")
            self._frame_key = key
        return self._frame_surface

    def _inset(self, surface, rect, model, frame, grid, tr, layout, drawn) -> None:
        pygame.draw.rect(surface, (0, 0, 0), rect)
        if frame is None or not model.view.camera_ok:
            key = "camera_lost" if not model.view.camera_ok else "waiting_camera"
            self._paragraph(surface, tr.ui(key), layout.font_px("small"), rect.inflate(-8, -8),
                            (255, 120, 120) if key == "camera_lost" else DIM_TEXT, "inset", drawn,
                            centred=True)
            return
        image = self._camera_surface(frame)
        iw, ih = image.get_size()
        k = min(rect.w / iw, rect.h / ih)
        view = pygame.Rect(0, 0, int(iw * k), int(ih * k))
        view.center = rect.center
        surface.blit(pygame.transform.smoothscale(image, view.size), view)
        if grid is not None and model.view.board_found:
            self._grid_lines(surface, grid, view, k, (0, 255, 120))

    def _grid_lines(self, surface, grid: CameraGrid, view: pygame.Rect, k: float, colour) -> None:
        import numpy as np
        src = [(0, 0), (grid.files, 0), (grid.files, grid.ranks), (0, grid.ranks)]
        dst = [(view.x + x * k, view.y + y * k) for x, y in grid.corners]
        hm = homography(src, dst)

        def project(x, y):
            p = hm @ np.array([x, y, 1.0])
            return (p[0] / p[2], p[1] / p[2])
        for i in range(grid.files + 1):
            pygame.draw.line(surface, colour, project(i, 0), project(i, grid.ranks), 1)
        for j in range(grid.ranks + 1):
            pygame.draw.line(surface, colour, project(0, j), project(grid.files, j), 1)
        pygame.draw.circle(surface, (255, 60, 60), project(0, 0), 4)

    def _buttons(self, surface, layout, model: TableModel, ui, tr, drawn) -> None:
        if ui.dialog in ("review", "calibrate"):
            labels = {"first": "|<", "back": "<", "forward": ">", "last": ">|",
                      "older": tr.ui("older_game"), "newer": tr.ui("newer_game"),
                      "coach": tr.ui("coach"),
                      "close": tr.ui("close"), "auto": "Auto", "reset": "1-2-3-4"}
            for name, rect in dialog_rects(layout, ui).items():
                if name == "box":
                    continue
                self._button(surface, rect, labels[name], False, layout, "button", drawn)
            return
        choices = narrowed(model.choices(), ui)
        if ui.dialog is None and choices:
            for name, rect in choice_rects(layout, choices).items():
                i = int(name[7:])
                self._button(surface, rect, f"{i + 1}: {choices[i]}", True, layout, "choice", drawn)
            return
        for name in BUTTONS:
            rect = layout.buttons[name]
            key = {"review": "review_button"}.get(name, name)
            active = False
            if name == "draw":
                key = "accept_draw" if model.draw_offer else "offer_draw"
                active = bool(model.draw_offer)
            elif name == "resign" and model.draw_offer:
                key = "decline_draw"
                active = True
            elif name == "camera":
                active = ui.show_camera
            self._button(surface, rect, tr.ui(key), active, layout, "button", drawn)

    def _button(self, surface, rect, label, active, layout, role, drawn) -> None:
        pygame.draw.rect(surface, BUTTON_ON if active else BUTTON, rect, border_radius=8)
        self._paragraph(surface, label, layout.font_px("button"), rect.inflate(-6, -6), TEXT, role,
                        drawn, centred=True)

    # -- modes --------------------------------------------------------------------
    def _dialog(self, surface, layout, ui: UiState, tr, drawn) -> None:
        cover = pygame.Surface((layout.width, layout.height), pygame.SRCALPHA)
        cover.fill((0, 0, 0, 150))
        surface.blit(cover, (0, 0))
        rects = dialog_rects(layout, ui)
        pygame.draw.rect(surface, PANEL, rects["box"], border_radius=12)
        pygame.draw.rect(surface, TEXT, rects["box"], 2, border_radius=12)
        if ui.dialog == "new_game":
            names = {"size": "board", "preset": "rules", "mode": "mode",
                     "computer": "computer", "level": "level"}
            for name, choices in NEW_GAME_ROWS:
                r = rects[f"label:{name}"]
                self._text(surface, tr.ui(names[name]), layout.font_px("heading"), TEXT,
                           topleft=(r.x, r.centery - layout.font_px("heading") // 2))
                for value in choices:
                    chosen = getattr(ui.choice, name) == value
                    self._button(surface, rects[f"{name}:{value}"], tr.word(value), chosen, layout,
                                 "choice", drawn)
            self._button(surface, rects["start"], tr.ui("start"), True, layout, "button", drawn)
            self._button(surface, rects["cancel"], tr.ui("cancel"), False, layout, "button", drawn)
        else:
            box = rects["box"]
            self._text(surface, tr.ui("who_resigns"), layout.font_px("overlay"), TEXT,
                       centre=(box.centerx, box.y + round(55 * layout.scale)), role="dialog", drawn=drawn)
            for key, label in (("side:red", tr.word("red")), ("side:black", tr.word("black")),
                               ("cancel", tr.ui("cancel"))):
                self._button(surface, rects[key], label, False, layout, "button", drawn)

    def _calibration(self, surface, layout, ui: UiState, frame, grid, tr, drawn) -> None:
        if frame is None:
            self._paragraph(surface, tr.ui("waiting_camera"), layout.font_px("overlay"), layout.board,
                            TEXT, "camera_state", drawn, centred=True)
            return
        image = self._camera_surface(frame)
        view = calibration_view(layout, image.get_size())
        k = view.w / image.get_width()
        surface.blit(pygame.transform.smoothscale(image, view.size), view)
        if grid is not None:
            self._grid_lines(surface, grid, view, k, (0, 255, 120))
        for i, (x, y) in enumerate(ui.corners):
            p = (int(view.x + x / (image.get_width() / view.w)), int(view.y + y / (image.get_width() / view.w)))
            pygame.draw.circle(surface, (255, 214, 0), p, 10, 3)
            self._text(surface, str(i + 1), layout.font_px("heading"), (255, 214, 0),
                       centre=(p[0] + 18, p[1] - 18))

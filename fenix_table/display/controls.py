"""Touch, mouse and keyboard: what the players can ask of the table.

:class:`UiState` is the display's own state (language, rotation, open dialog, review
step, corners clicked while calibrating); the game itself stays with the referee.
:func:`handle` turns one pygame event into :class:`Action` s for the main loop, which
calls the referee; nothing here changes the game.

Keys: N new game, U undo, D offer/accept draw, X decline draw, R resign, H hint (the
coach's best move; on the review screen the coach's review of the game shown), C calibrate,
V review (PgUp/PgDn: older/newer saved games), I camera inset, L language, O rotate, Esc/Q close or quit, arrows in review;
1-4 pick one of the moves the camera cannot tell apart, K confirm that the board is right
(the camera misreads it), P play on from the board (casual mode). While the camera cannot
tell moves apart, touching the cell a stone went to picks the move (a setup stacking move
may have twenty candidates, more than the four buttons show).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import pygame

from ..board import SIZES, dimensions
from ..table.driver import Action
from .i18n import LANGUAGES
from .layout import BoardGeometry, Layout


@dataclass
class NewGameChoice:
    size: str = "9x9"
    preset: str = "official"
    mode: str = "referee"
    computer: str = "none"    # the side the computer plays, or "none"
    level: str = "4"


@dataclass
class UiState:
    """What the screen itself remembers. ``dialog``: None, "new_game", "resign",
    "calibrate" or "review"."""

    language: str = "en"
    rotation: int = 0
    show_camera: bool = True
    show_clocks: bool = False
    dialog: Optional[str] = None
    choice: NewGameChoice = field(default_factory=NewGameChoice)
    review_ply: int = 0
    corners: List[Tuple[float, float]] = field(default_factory=list)
    # Cells touched on the board to narrow the moves the camera cannot tell apart, and
    # the choices they were touched for (new choices start afresh).
    picked: Tuple[str, ...] = ()
    picked_for: Tuple[str, ...] = ()
    dirty: bool = True

    def next_language(self) -> None:
        self.language = LANGUAGES[(LANGUAGES.index(self.language) + 1) % len(LANGUAGES)]


# Option rows of the new-game dialog: (field, choices).
NEW_GAME_ROWS = (("size", SIZES), ("preset", ("official", "strike")),
                 ("mode", ("referee", "casual")), ("computer", ("none", "red", "black")),
                 ("level", tuple("12345678")))

CHOICE_KEYS = (pygame.K_1, pygame.K_2, pygame.K_3, pygame.K_4)

KEYS = {
    pygame.K_n: "new_game", pygame.K_u: "undo", pygame.K_d: "draw", pygame.K_x: "decline_draw",
    pygame.K_r: "resign", pygame.K_c: "calibrate", pygame.K_v: "review",
    pygame.K_i: "camera", pygame.K_l: "language", pygame.K_o: "rotate",
    pygame.K_k: "confirm_board", pygame.K_p: "play_on", pygame.K_h: "hint",
}


def landings(choice: str) -> set:
    """The cells the plies of a choice (``"c2-c3"``, ``"a2-b3 f8xf6xd6"``) put a stone on."""
    return {cell for token in choice.split() for cell in re.split("[-x]", token)[1:]}


def narrowed(choices: Sequence[str], ui: UiState) -> Tuple[str, ...]:
    """The choices that put a stone on every cell the players touched (all of them when
    nothing was touched for these choices)."""
    choices = tuple(choices)
    if not ui.picked or ui.picked_for != choices:
        return choices
    return tuple(c for c in choices if set(ui.picked) <= landings(c)) or choices


def _pick(cell: str, choices: Tuple[str, ...], ui: UiState) -> List["Action"]:
    """A touch on the board while moves are in question: narrow them to those landing
    there (and on the cells touched before); confirm when one is left."""
    before = ui.picked if ui.picked_for == choices else ()
    picked = before + (cell,) if cell not in before else before
    kept = [c for c in choices if set(picked) <= landings(c)]
    if not kept:   # a fresh start from this cell
        picked = (cell,)
        kept = [c for c in choices if cell in landings(c)]
    ui.dirty = True
    if len(kept) == 1:
        ui.picked, ui.picked_for = (), ()
        return [_confirm(kept[0])]
    ui.picked, ui.picked_for = (picked, choices) if kept else ((), ())
    return []


def choice_rects(layout: Layout, choices) -> dict:
    """Buttons for the moves the players may confirm (``"choice:0"``...), over the
    panel's button rows; at most four."""
    area = layout.button_area
    shown = list(choices)[:len(CHOICE_KEYS)]
    if not shown:
        return {}
    gap = max(4, round(6 * layout.scale))
    w = (area.w - (len(shown) - 1) * gap) // len(shown)
    return {f"choice:{i}": pygame.Rect(area.x + i * (w + gap), area.y, w, area.h)
            for i in range(len(shown))}


def dialog_rects(layout: Layout, ui: UiState) -> dict:
    """Hit areas of the open dialog, keyed ``"size:7x8"``, ``"start"``, ``"side:red"``..."""
    s = layout.scale
    rows = len(NEW_GAME_ROWS) if ui.dialog == "new_game" else 0
    box = pygame.Rect(0, 0, round(560 * s), round(max(330, 100 + 62 * rows) * s))
    box.center = (layout.width // 2, layout.height // 2)
    h = round(52 * s)
    gap = round(10 * s)
    rects = {"box": box}
    if ui.dialog == "new_game":
        label_w = round(150 * s)
        for i, (name, choices) in enumerate(NEW_GAME_ROWS):
            y = box.y + round(20 * s) + i * (h + gap)
            rects[f"label:{name}"] = pygame.Rect(box.x + gap, y, label_w, h)
            w = (box.w - label_w - 3 * gap - (len(choices) - 1) * gap) // len(choices)
            for j, value in enumerate(choices):
                rects[f"{name}:{value}"] = pygame.Rect(box.x + label_w + 2 * gap + j * (w + gap), y, w, h)
        y = box.bottom - h - round(16 * s)
        w = (box.w - 3 * gap) // 2
        rects["start"] = pygame.Rect(box.x + gap, y, w, h)
        rects["cancel"] = pygame.Rect(box.x + 2 * gap + w, y, w, h)
    elif ui.dialog == "resign":
        y = box.y + round(110 * s)
        w = (box.w - 4 * gap) // 3
        for j, name in enumerate(("side:red", "side:black", "cancel")):
            rects[name] = pygame.Rect(box.x + gap + j * (w + gap), y, w, h * 2)
    elif ui.dialog in ("review", "calibrate"):
        # Step buttons replace the panel's button rows.
        area = layout.button_area
        rows = (("first", "back", "forward", "last"), ("older", "newer", "coach", "close")) \
            if ui.dialog == "review" else (("auto", "reset", "close"),)
        pad = max(4, round(6 * s))
        h = (area.h - (len(rows) - 1) * pad) // len(rows)
        for i, names in enumerate(rows):
            w = (area.w - (len(names) - 1) * pad) // len(names)
            for j, name in enumerate(names):
                rects[name] = pygame.Rect(area.x + j * (w + pad), area.y + i * (h + pad), w, h)
    return rects


def calibration_view(layout: Layout, image_size: Tuple[int, int]) -> pygame.Rect:
    """Where the camera picture goes while the corners are clicked (aspect kept)."""
    iw, ih = image_size
    area = layout.board
    k = min(area.w / iw, area.h / ih)
    rect = pygame.Rect(0, 0, int(iw * k), int(ih * k))
    rect.center = area.center
    return rect


def handle(event, ui: UiState, layout: Layout, *, side_to_move: str = "red",
           draw_offered: bool = False, history_len: int = 1,
           image_size: Optional[Tuple[int, int]] = None, choices=(), fixes=(),
           board: str = "9x9") -> List[Action]:
    """One pygame event -> actions. Updates ``ui`` in place (sets ``ui.dirty``).

    ``choices``: the move sequences the referee asks the players to pick from (shown as
    buttons in place of the usual ones; a touch on the board narrows them); ``fixes``:
    the banner's buttons (:meth:`~fenix_table.display.model.TableModel.fixes`);
    ``board``: the board's size ("9x9" or "7x8"), to tell which cell a touch is on.
    """
    if event.type == pygame.QUIT:
        return [Action("quit")]
    choices = tuple(choices)
    shown = narrowed(choices, ui)
    if event.type == pygame.KEYDOWN:
        if ui.dialog is None and event.key in CHOICE_KEYS[:len(shown)]:
            ui.picked = ()
            return [_confirm(shown[CHOICE_KEYS.index(event.key)])]
        return _key(event.key, ui, side_to_move, draw_offered, history_len)
    pos = None
    if event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1:
        if getattr(event, "touch", False):
            return []   # SDL's mouse copy of a touch: the FINGERDOWN already counted
        pos = event.pos
    elif event.type == pygame.FINGERDOWN:
        pos = (int(event.x * layout.width), int(event.y * layout.height))
    if pos is None:
        return []
    if ui.dialog is None:
        for name, rect in choice_rects(layout, shown).items():
            if rect.collidepoint(pos):
                ui.picked = ()
                return [_confirm(shown[int(name[7:])])]
        cell = BoardGeometry(layout.board, *dimensions(board), ui.rotation).cell_at(pos) \
            if choices else None
        if cell is not None:
            return _pick(cell, choices, ui)
        for name, rect in fix_rects(layout, fixes).items():
            if rect.collidepoint(pos):
                return _button(name[4:], ui, "red", False, 1)
    return _press(pos, ui, layout, side_to_move, draw_offered, history_len, image_size)


def fix_rects(layout: Layout, fixes) -> dict:
    """Buttons along the bottom of the banner for what players can do about the trouble
    it reports (``"fix:confirm_board"``, ``"fix:play_on"``)."""
    if not fixes:
        return {}
    banner = layout.banner
    pad = max(4, round(6 * layout.scale))
    h = min(round(44 * layout.scale), banner.h // 3)
    w = (banner.w - (len(fixes) + 1) * pad) // len(fixes)
    y = banner.bottom - pad - h
    return {f"fix:{name}": pygame.Rect(banner.x + pad + i * (w + pad), y, w, h)
            for i, name in enumerate(fixes)}


def _confirm(choice: str) -> Action:
    return Action("confirm", (("tokens", tuple(choice.split())),))


def _key(key, ui, side_to_move, draw_offered, history_len) -> List[Action]:
    if ui.dialog == "review" and key in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_HOME, pygame.K_END):
        step = {pygame.K_LEFT: -1, pygame.K_RIGHT: 1, pygame.K_HOME: -10 ** 6, pygame.K_END: 10 ** 6}[key]
        last = max(0, history_len - 1)
        ui.review_ply = max(0, min(last, min(ui.review_ply, last) + step))
        ui.dirty = True
        return []
    if ui.dialog == "review" and key in (pygame.K_PAGEUP, pygame.K_PAGEDOWN):
        ui.review_ply, ui.dirty = 10 ** 6, True   # the chosen game opens at its end
        return [Action("review_game", (("step", -1 if key == pygame.K_PAGEUP else 1),))]
    if key in (pygame.K_ESCAPE, pygame.K_q):
        if ui.dialog:
            closing = ui.dialog
            ui.dialog, ui.corners, ui.dirty = None, [], True
            return [Action("review_game", (("step", 0),))] if closing == "review" else []
        return [Action("quit")]
    if ui.dialog == "new_game" and key in (pygame.K_RETURN, pygame.K_KP_ENTER):
        return _button("start", ui, side_to_move, draw_offered, history_len)
    name = KEYS.get(key)
    return _button(name, ui, side_to_move, draw_offered, history_len) if name else []


def _button(name, ui: UiState, side_to_move, draw_offered, history_len) -> List[Action]:
    ui.dirty = True
    if name == "new_game":
        ui.dialog = "new_game"
    elif name == "start":
        ui.dialog = None
        c = ui.choice
        return [Action("new_game", (("size", c.size), ("preset", c.preset), ("mode", c.mode),
                                    ("computer", c.computer), ("level", int(c.level))))]
    elif name == "undo":
        return [Action("undo")]
    elif name == "hint":
        # On the review screen the coach reviews the game shown instead.
        return [Action("coach_review" if ui.dialog == "review" else "hint")]
    elif name == "draw":
        return [Action("accept_draw" if draw_offered else "offer_draw", (("side", side_to_move),))]
    elif name == "decline_draw":
        return [Action("decline_draw")] if draw_offered else []
    elif name == "resign":
        if draw_offered:
            return [Action("decline_draw")]
        ui.dialog = "resign"
    elif name == "calibrate":
        ui.dialog, ui.corners = "calibrate", []
    elif name == "review":
        ui.dialog, ui.review_ply = "review", max(0, history_len - 1)
    elif name == "camera":
        ui.show_camera = not ui.show_camera
    elif name == "language":
        ui.next_language()
    elif name == "rotate":
        ui.rotation = (ui.rotation + 1) % 4
    elif name == "confirm_board":
        return [Action("confirm", (("tokens", ()),))]
    elif name == "play_on":
        return [Action("play_on")]
    elif name == "quit":
        return [Action("quit")]
    return []


def _press(pos, ui: UiState, layout: Layout, side_to_move, draw_offered, history_len,
           image_size) -> List[Action]:
    for name, rect in layout.corner_buttons.items():
        if rect.collidepoint(pos):
            return _button(name, ui, side_to_move, draw_offered, history_len)
    if ui.dialog is None:
        for name, rect in layout.buttons.items():
            if rect.collidepoint(pos):
                return _button(name, ui, side_to_move, draw_offered, history_len)
        return []
    rects = dialog_rects(layout, ui)
    hit = next((k for k, r in rects.items() if k != "box" and not k.startswith("label:")
                and r.collidepoint(pos)), None)
    ui.dirty = True
    if ui.dialog == "new_game":
        if hit and ":" in hit:
            key, value = hit.split(":", 1)
            setattr(ui.choice, key, value)
        elif hit == "start":
            return _button("start", ui, side_to_move, draw_offered, history_len)
        elif hit == "cancel":
            ui.dialog = None
    elif ui.dialog == "resign":
        if hit and hit.startswith("side:"):
            ui.dialog = None
            return [Action("resign", (("side", hit[5:]),))]
        if hit == "cancel":
            ui.dialog = None
    elif ui.dialog == "review":
        last = max(0, history_len - 1)
        now = min(ui.review_ply, last)
        if hit == "first":
            ui.review_ply = 0
        elif hit == "back":
            ui.review_ply = max(0, now - 1)
        elif hit == "forward":
            ui.review_ply = min(last, now + 1)
        elif hit == "last":
            ui.review_ply = last
        elif hit == "coach":
            return [Action("coach_review")]
        elif hit in ("older", "newer"):
            ui.review_ply = 10 ** 6
            return [Action("review_game", (("step", -1 if hit == "older" else 1),))]
        elif hit == "close":
            ui.dialog = None
            return [Action("review_game", (("step", 0),))]
    elif ui.dialog == "calibrate":
        if hit == "auto":
            ui.dialog, ui.corners = None, []
            return [Action("calibrate_auto")]
        if hit == "reset":
            ui.corners = []
        elif hit == "close":
            ui.dialog, ui.corners = None, []
        elif image_size is not None:
            view = calibration_view(layout, image_size)
            if view.collidepoint(pos):
                k = image_size[0] / view.w
                ui.corners.append(((pos[0] - view.x) * k, (pos[1] - view.y) * k))
                if len(ui.corners) == 4:
                    corners = tuple(ui.corners)
                    ui.dialog, ui.corners = None, []
                    return [Action("calibrate_corners", (("corners", corners),))]
    return []


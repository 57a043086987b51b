"""The table's screen: pygame input in, drawing out.

:class:`Screen` is what :func:`fenix_table.table.run` is given as ``screen``: each turn of
the loop it turns pygame input into :class:`~fenix_table.table.Action` requests and draws
the display model (:class:`~fenix_table.display.model.TableModel`, a sink of the table)
when something changed. It reads the table's state and never changes it itself.
"""
from __future__ import annotations

import os
import time
from typing import Callable, List, Optional, Tuple

from ..errors import FenixError


class Screen:
    """Draws ``table.model`` on ``surface`` with the display settings ``ui``.

    ``headless``: an off-screen surface (no input, no flip). ``redraw_seconds``: redraw at
    least this often (the clocks run) when ``ui.show_clocks``. ``on_frame(surface)``:
    called after each drawing (the headless demo saves it). ``camera_fps``: the most
    redraws a second for a new camera picture alone (the inset)."""

    def __init__(self, surface, ui, *, headless: bool = False, redraw_seconds: float = 0.5,
                 on_frame: Optional[Callable[[object], None]] = None,
                 camera_fps: float = 10.0) -> None:
        from .render import Renderer

        self.surface = surface
        self.ui = ui
        self.headless = headless
        self.redraw_seconds = redraw_seconds
        self.on_frame = on_frame
        self.camera_interval = 1.0 / camera_fps if camera_fps else 0.0
        self.renderer = Renderer()
        self.draws = 0
        self._last_draw = float("-inf")
        self._dirty = True

    def poll(self, table) -> List:
        """The requests made on this screen since the last call."""
        if self.headless:
            return []
        import pygame

        actions = []
        for event in pygame.event.get():
            if event.type == pygame.VIDEORESIZE:
                self.surface = pygame.display.get_surface()
                self._dirty = True
                continue
            if self.renderer.layout is None:
                continue
            actions.extend(self.actions(table, event))
        self._dirty = self._dirty or self.ui.dirty
        return actions

    def actions(self, table, event) -> list:
        """What one pygame ``event`` asks of ``table``
        (:func:`~fenix_table.display.controls.handle` given the table's state)."""
        from .controls import handle

        model = table.model
        frame = table.frame
        return handle(event, self.ui, self.renderer.layout, side_to_move=model.side,
                      draw_offered=model.draw_offer is not None,
                      history_len=len(model.review_history()[0]),
                      image_size=None if frame is None else (frame.shape[1], frame.shape[0]),
                      choices=model.choices(), fixes=model.fixes(), board=model.size)

    def draw(self, table, changed: bool, camera: bool = False) -> bool:
        """Draw when the model changed, the settings did, a new camera picture is due for
        the inset, or the clocks need a tick. Returns whether it drew."""
        now = time.monotonic()
        due = changed or self._dirty or self.ui.dirty or \
            (camera and self.ui.show_camera and now - self._last_draw >= self.camera_interval) or \
            (self.ui.show_clocks and now - self._last_draw >= self.redraw_seconds)
        if not due:
            return False
        self.renderer.draw(self.surface, table.model, self.ui, table.frame, grid(table))
        self.ui.dirty = self._dirty = False
        self._last_draw = now
        self.draws += 1
        if not self.headless:
            import pygame
            pygame.display.flip()
        if self.on_frame is not None:
            self.on_frame(self.surface)
        return True


def grid(table):
    """The grid vision found, for the camera inset (a CameraGrid), or None."""
    from ..board import dimensions
    from .render import CameraGrid

    calibration = table.result.calibration if table.result is not None else None
    if calibration is None:
        return None
    files, ranks = dimensions(calibration.board)
    return CameraGrid(files, ranks, tuple(tuple(c) for c in calibration.corners))


HEADLESS_DRIVERS = ("dummy", "offscreen")


def open_screen(fullscreen: Optional[bool] = None, size: Tuple[int, int] = (0, 0),
                allow_headless: bool = False):
    """Open the display: a window on a desktop, fullscreen KMS/DRM on a Pi console.

    ``fullscreen`` None chooses by session: fullscreen without a desktop, a window with
    one. Returns ``(surface, headless)``; without any screen, returns an off-screen
    surface of ``size`` (default 800x480) when ``allow_headless``, else raises
    CameraError-like FenixError saying so.
    """
    import pygame

    desktop = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) \
        or os.name == "nt" or os.uname().sysname == "Darwin"
    if not desktop and "SDL_VIDEODRIVER" not in os.environ:
        os.environ["SDL_VIDEODRIVER"] = "kmsdrm"   # Raspberry Pi OS Lite: no X, draw on DRM
    try:
        pygame.display.init()
    except pygame.error:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        pygame.display.init()
    pygame.font.init()
    headless = pygame.display.get_driver() in HEADLESS_DRIVERS
    if headless:
        if not allow_headless:
            raise FenixError("no screen found: run on the Pi's display or a desktop "
                             "(set DISPLAY), or use 'fenix-table track' without a screen")
        width, height = size if size[0] and size[1] else (800, 480)
        return pygame.Surface((width, height)), True
    if fullscreen is None:
        fullscreen = not desktop
    pygame.display.set_caption("Fenix Table")
    if fullscreen:
        surface = pygame.display.set_mode(size if size[0] and size[1] else (0, 0),
                                          pygame.FULLSCREEN)
        pygame.mouse.set_visible(desktop)
    else:
        surface = pygame.display.set_mode(size if size[0] and size[1] else (1024, 600),
                                          pygame.RESIZABLE)
    return surface, False



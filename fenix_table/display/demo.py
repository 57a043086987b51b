"""``fenix-table demo``: the bundled camera recording through vision, referee and display.

The recording (``recording/``: JPEG frames plus ``script.json``, made by
:mod:`.make_recording` with the frame generator) is fed frame by frame to the same
:class:`~fenix_table.display.app.Table` that ``fenix-table run`` uses. Every frame is
processed (a recording must not drop frames the way a live camera may).

Nobody sits at the table during a recording, so :class:`ScriptedPlayers` stands in for
the people: they know the moves they made (the script) and answer the display the way
players do. When a shot of the board has been held still to its end and the referee has
still not taken the plies it shows (the camera could not tell the move apart), they
confirm those plies on the screen; when the referee took a move they did not make, they
press Undo. The summary says how many plies the camera read on its own.

With a screen the table is shown in a window at ``fps`` camera frames per second and
stays open at the end until closed. Without one (no DISPLAY, or SDL's dummy driver) it
runs as fast as it can and writes to ``out``: a PNG of the display whenever it changed,
``fenix-demo.mp4`` (one display frame per camera frame), and ``game.fgn``: the game as the
referee recorded it (violations and their fixes as comments), ready for
``fenix-table games import``.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from ..errors import ConfigError
from ..record import GameStore
from ..record.fgn import record_of
from ..rules.fgn import format_fgn
from .controls import Action
from .recording_script import RECORDING, load_script, shots

VIDEO_NAME = "fenix-demo.mp4"
GAME_NAME = "game.fgn"


@dataclass
class DemoResult:
    """What the demo saw: ``moves`` the referee committed, event kinds in order, the
    result (FGN) and reason, frames processed, wall time, files written."""

    frames: int = 0
    seconds: float = 0.0
    moves: List[str] = field(default_factory=list)
    kinds: List[str] = field(default_factory=list)
    result: str = "*"
    reason: str = "ongoing"
    expected_moves: List[str] = field(default_factory=list)
    expected_result: str = "*"
    headless: bool = True
    confirmed: int = 0
    undone: int = 0
    out: Optional[str] = None
    images: int = 0
    video: Optional[str] = None

    @property
    def as_recorded(self) -> bool:
        """Did the referee read exactly the game the recording shows?"""
        return self.moves == self.expected_moves and self.result == self.expected_result

    def summary(self) -> str:
        lines = [f"{self.frames} camera frames in {self.seconds:.1f} s: "
                 f"{len(self.moves)} plies, result {self.result} ({self.reason})"]
        counts = {k: self.kinds.count(k) for k in ("capture_required", "remove_captured",
                                                   "violation", "violation_cleared",
                                                   "game_over")}
        lines.append("referee: " + ", ".join(f"{k} x{v}" for k, v in counts.items()))
        lines.append(f"camera read {len(self.moves) - self.confirmed} of {len(self.moves)} plies "
                     f"by itself; the players confirmed {self.confirmed} and undid {self.undone}")
        if not self.as_recorded:
            lines.append(f"note: the recording shows {len(self.expected_moves)} plies and "
                         f"{self.expected_result}; the referee read {len(self.moves)} plies")
        if self.out and self.headless:
            lines.append(f"display frames: {self.images} PNG in {self.out}")
            if self.video:
                lines.append(f"video: {self.video}")
        return "\n".join(lines)


class ScriptedPlayers:
    """The people at a recorded table; see the module docstring. ``moves`` are the plies
    really made; ``plies_at[i]`` how many of them the board shows at frame ``i``;
    ``shot_ends`` the frames that end a still shot (when players would step in)."""

    def __init__(self, script: dict) -> None:
        self.moves = list(script["moves"])
        self.plies_at: List[int] = []
        self.shot_ends = set()
        for shot in shots(script):
            self.plies_at.extend([shot.plies] * shot.frames)
            if not shot.hand:
                self.shot_ends.add(len(self.plies_at) - 1)
        self.confirmed = 0
        self.undone = 0

    def step(self, table, index: int) -> bool:
        """Act after frame ``index`` has been processed; returns whether they did."""
        done = list(table.referee.moves)
        if done != self.moves[:len(done)]:
            table.act(Action("undo"))
            self.undone += 1
            return True
        if index not in self.shot_ends or index >= len(self.plies_at):
            return False
        shown = self.plies_at[index]
        if len(done) < shown and table.referee.state != "over":
            missing = tuple(self.moves[len(done):shown])
            table.act(Action("confirm", (("tokens", missing),)))
            self.confirmed += len(missing)
            return True
        return False


def recording_frames(folder: str) -> List[str]:
    """The recording's frame files in order; ConfigError when there are none."""
    if not os.path.isdir(folder):
        raise ConfigError(f"no such recording folder: {folder}")
    files = sorted(f for f in os.listdir(folder) if f.lower().endswith((".jpg", ".png")))
    if not files:
        raise ConfigError(f"{folder}: no frames (render them with "
                          f"PYTHONPATH=tools python -m fenix_tools.make_recording in the source checkout)")
    return [os.path.join(folder, f) for f in files]


def run_demo(out: str = "fenix-demo", headless: bool = False,
             size: Optional[Tuple[int, int]] = None, language: str = "en",
             limit: Optional[int] = None, recording: Optional[str] = None,
             fps: float = 8.0, stable_frames: int = 2, lights=None) -> DemoResult:
    """Play the recording; see the module docstring. ``limit`` stops after that many
    camera frames; ``lights`` (a :class:`~fenix_table.device.Lights`) follow the game as
    at the table. Raises ConfigError for a missing recording."""
    import cv2
    import pygame

    from .app import GameSetup, Table, open_screen
    from .controls import UiState
    from .render import Renderer

    folder = recording or RECORDING
    script = load_script(folder)
    files = recording_frames(folder)
    if limit is not None:
        files = files[:max(1, limit)]
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    surface, headless = open_screen(None, size or (0, 0), allow_headless=True)
    if not headless and size is None and surface.get_size()[0] > 1280:
        surface = pygame.display.set_mode((1280, 720), pygame.RESIZABLE)
    result = DemoResult(expected_moves=list(script["moves"]),
                        expected_result=script.get("result", "*"), headless=headless)
    # The demo's game goes to an archive of its own, not the user's: only its FGN is kept.
    store = GameStore(":memory:")
    table = Table(GameSetup(size=script["board"], preset=script.get("rules", "official")),
                  store=store, stable_frames=stable_frames, lights=lights,
                  listeners=(lambda events: result.kinds.extend(e.kind for e in events),))

    players = ScriptedPlayers(script)
    ui = UiState(language=language)
    renderer = Renderer()
    writer = None
    if headless:
        result.out = out
        os.makedirs(out, exist_ok=True)
        for name in os.listdir(out):
            if name.endswith(".png") or name in (VIDEO_NAME, GAME_NAME):
                os.remove(os.path.join(out, name))
    began = time.monotonic()
    quit_early = False
    for index, path in enumerate(files):
        tick = time.monotonic()
        frame = cv2.imread(path, cv2.IMREAD_COLOR)
        if frame is None:
            raise ConfigError(f"cannot read recording frame {path}")
        changed = table.feed(frame, index)
        changed = players.step(table, index) or changed
        if not headless:
            for event in pygame.event.get():
                if event.type == pygame.VIDEORESIZE:
                    surface = pygame.display.get_surface()
                elif renderer.layout is not None:
                    for action in table.actions(event, ui, renderer.layout):
                        if action.name == "quit":
                            quit_early = True
                        else:
                            table.act(action)
            if quit_early:
                break
        renderer.draw(surface, table.model, ui, table.frame, table.grid())
        result.frames = index + 1
        if headless:
            rgb = pygame.surfarray.array3d(surface).swapaxes(0, 1)
            bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
            if writer is None:
                writer = cv2.VideoWriter(os.path.join(out, VIDEO_NAME),
                                         cv2.VideoWriter_fourcc(*"mp4v"), fps,
                                         (bgr.shape[1], bgr.shape[0]))
                if writer.isOpened():
                    result.video = os.path.join(out, VIDEO_NAME)
            if writer.isOpened():
                writer.write(bgr)
            if changed or index == 0 or index == len(files) - 1:
                cv2.imwrite(os.path.join(out, f"display-{index:04d}.png"), bgr)
                result.images += 1
        else:
            pygame.display.flip()
            time.sleep(max(0.0, 1.0 / fps - (time.monotonic() - tick)))
    result.seconds = time.monotonic() - began
    result.confirmed, result.undone = players.confirmed, players.undone
    if writer is not None:
        writer.release()
    referee = table.referee
    result.moves = list(referee.moves)
    status = referee.game.status()
    result.result, result.reason = status.fgn_result, status.reason
    if headless:
        with open(os.path.join(out, GAME_NAME), "w", encoding="utf-8") as fh:
            fh.write(format_fgn(record_of(store, referee.game_id)))
    elif not quit_early:
        _linger(surface, table, ui, renderer)
    pygame.quit()
    store.close()
    return result


def _linger(surface, table, ui, renderer) -> None:
    """Keep the final picture up (controls still work) until the window is closed."""
    import pygame

    while True:
        for event in pygame.event.get():
            if event.type == pygame.VIDEORESIZE:
                surface = pygame.display.get_surface()
                continue
            for action in table.actions(event, ui, renderer.layout):
                if action.name == "quit":
                    return
                table.act(action)
        renderer.draw(surface, table.model, ui, table.frame, table.grid())
        pygame.display.flip()
        time.sleep(0.05)

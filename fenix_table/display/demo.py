"""``fenix-table demo``: the bundled camera recording through vision, referee and display.

The recording (``recording/``: JPEG frames plus ``script.json``, rendered by the source
checkout's tools with the frame generator) is fed frame by frame to the same table driver
(:mod:`fenix_table.table`) that ``fenix-table run`` uses. Every frame is processed (a
recording must not drop frames the way a live camera may).

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
from ..record import GameRecorder, GameStore
from ..record.fgn import record_of
from ..rules.fgn import format_fgn
from ..table import Action
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
        """Act after frame ``index`` has been processed (their requests join the table's
        queue, as a touch or a button press does); returns whether they did."""
        done = list(table.referee.moves)
        if done != self.moves[:len(done)]:
            table.requests.put(Action("undo"))
            self.undone += 1
            return True
        if index not in self.shot_ends or index >= len(self.plies_at):
            return False
        shown = self.plies_at[index]
        if len(done) < shown and table.referee.state != "over":
            missing = tuple(self.moves[len(done):shown])
            table.requests.put(Action("confirm", (("tokens", missing),)))
            self.confirmed += len(missing)
            return True
        return False


class _Kinds:
    """Counts what the referee said (for the summary): a sink like any other."""

    name = "summary"
    inline = True

    def __init__(self, kinds: List[str]) -> None:
        self.kinds = kinds

    def handle(self, event) -> None:
        self.kinds.append(event.kind)


class _Files:
    """The files the demo writes into ``out``, and only those.

    A manifest lists what the demo wrote last time; those files are replaced, and a file
    of the same name that the demo did not write is never touched (ConfigError)."""

    MANIFEST = ".fenix-demo-files"

    def __init__(self, out: str) -> None:
        self.out = out
        self.written: List[str] = []
        if os.path.exists(out) and not os.path.isdir(out):
            raise ConfigError(f"--out {out}: a file, not a folder; choose another --out")
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as error:
            raise ConfigError(f"--out {out}: cannot make the folder: {error.strerror}") from None
        if not os.access(out, os.W_OK | os.X_OK):
            raise ConfigError(f"--out {out}: cannot write there; choose another --out")
        self._ours = set()
        try:
            with open(os.path.join(out, self.MANIFEST), encoding="utf-8") as fh:
                self._ours = {line.strip() for line in fh.read(1_000_000).splitlines()
                              if line.strip() and os.sep not in line and
                              not line.strip().startswith(".")}
        except (OSError, UnicodeDecodeError):
            pass

    def path(self, name: str) -> str:
        path = os.path.join(self.out, name)
        if os.path.exists(path) and name not in self._ours and name not in self.written:
            raise ConfigError(f"{path} exists and was not written by the demo; "
                              f"choose another --out")
        if name not in self.written:
            self.written.append(name)
            self._save()
        return path

    def _save(self) -> None:
        try:
            with open(os.path.join(self.out, self.MANIFEST), "w", encoding="utf-8") as fh:
                fh.write("".join(f"{name}\n" for name in sorted(self._ours | set(self.written))))
        except OSError as error:
            raise ConfigError(f"--out {self.out}: cannot write there: {error.strerror}") from None

    def finish(self) -> None:
        """Remove what the demo wrote last time and did not write again."""
        for name in sorted(self._ours - set(self.written)):
            if name.endswith(".png") or name in (VIDEO_NAME, GAME_NAME):
                try:
                    os.remove(os.path.join(self.out, name))
                except OSError:
                    pass
        self._ours = set()
        self._save()


class _DemoScreen:
    """The display for the demo: a window (as at the table), or off-screen, writing every
    drawing into the video and a PNG whenever the picture changed."""

    def __init__(self, screen, result: DemoResult, files: Optional[_Files], fps: float) -> None:
        self.screen = screen
        self.result = result
        self.files = files
        self.fps = fps
        self.writer = None

    def poll(self, table):
        return self.screen.poll(table)

    def draw(self, table, changed: bool, camera: bool = False) -> bool:
        drew = self.screen.draw(table, changed, camera)
        if self.files is None or not drew:
            return drew
        import cv2
        import pygame

        rgb = pygame.surfarray.array3d(self.screen.surface).swapaxes(0, 1)
        bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
        if self.writer is None:
            path = self.files.path(VIDEO_NAME)
            self.writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), self.fps,
                                          (bgr.shape[1], bgr.shape[0]))
            if self.writer.isOpened():
                self.result.video = path
        if self.writer.isOpened():
            self.writer.write(bgr)
        if changed or self.result.images == 0:
            path = self.files.path(f"display-{table.index:04d}.png")
            if not cv2.imwrite(path, bgr):
                raise ConfigError(f"cannot write {path} (disk full?)")
            self.result.images += 1
        return drew

    def close(self) -> None:
        if self.writer is not None:
            self.writer.release()


def recording_frames(folder: str) -> List[str]:
    """The recording's frame files in order; ConfigError when there are none."""
    if not os.path.isdir(folder):
        raise ConfigError(f"no such recording folder: {folder}")
    files = sorted(f for f in os.listdir(folder) if f.lower().endswith((".jpg", ".png")))
    if not files:
        raise ConfigError(f"{folder}: no frames (render them with the source checkout's "
                          f"tools: make recording)")
    return [os.path.join(folder, f) for f in files]


def run_demo(out: str = "fenix-demo", headless: bool = False,
             size: Optional[Tuple[int, int]] = None, language: str = "en",
             limit: Optional[int] = None, recording: Optional[str] = None,
             fps: float = 8.0, stable_frames: int = 2, lights=None) -> DemoResult:
    """Play the recording through the table driver; see the module docstring. ``limit``
    stops after that many camera frames; ``lights`` (a :class:`~fenix_table.device.Lights`)
    follow the game as at the table. Raises ConfigError for a missing recording, or for
    ``out`` holding a file of the demo's names that it did not write."""
    import pygame

    from ..table import GameSetup, RecordedFeed, Table, run
    from ..vision.sources import FolderSource
    from .app import Screen, open_screen
    from .controls import UiState
    from .model import TableModel

    folder = recording or RECORDING
    script = load_script(folder)
    frames = recording_frames(folder)
    if limit is not None:
        frames = frames[:max(1, limit)]
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    surface, headless = open_screen(None, size or (0, 0), allow_headless=True)
    if not headless and size is None and surface.get_size()[0] > 1280:
        surface = pygame.display.set_mode((1280, 720), pygame.RESIZABLE)
    result = DemoResult(expected_moves=list(script["moves"]),
                        expected_result=script.get("result", "*"), headless=headless)
    files = _Files(out) if headless else None
    if files is not None:
        result.out = out
    # The demo's game goes to an archive of its own, not the user's: only its FGN is kept.
    store = GameStore(":memory:")
    record = GameRecorder(store)
    sinks = [_Kinds(result.kinds)] + ([lights] if lights is not None else [])
    table = Table(GameSetup(size=script["board"], preset=script.get("rules", "official"),
                            tags=(("Event", "fenix-table demo"),)),
                  record=record, sinks=sinks, model=TableModel(), stable_frames=stable_frames)
    players = ScriptedPlayers(script)
    ui = UiState(language=language)
    # Headless, every camera frame is drawn: the video has one display frame per frame.
    screen = _DemoScreen(Screen(surface, ui, headless=headless,
                                camera_fps=0.0 if headless else 10.0), result, files, fps)
    # In a window the last picture stays up (controls still work) until it is closed.
    feed = RecordedFeed(FolderSource(frames), fps=None if headless else fps,
                        hold=not headless)
    began = time.monotonic()
    run(table, feed, screen=screen, players=players)
    result.seconds = time.monotonic() - began
    result.frames = feed.read
    result.confirmed, result.undone = players.confirmed, players.undone
    screen.close()
    table.close()
    referee = table.referee
    result.moves = list(referee.moves)
    status = referee.game.status()
    result.result, result.reason = status.fgn_result, status.reason
    if files is not None:
        with open(files.path(GAME_NAME), "w", encoding="utf-8") as fh:
            fh.write(format_fgn(record_of(store, table.game_id)))
        files.finish()
    pygame.quit()
    store.close()
    return result

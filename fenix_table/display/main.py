"""``fenix-table run``: put the configuration, the camera, the archive, the lights and the
screen together and hand them to the table driver (:func:`fenix_table.table.run`)."""
from __future__ import annotations

import logging
import os
import sys
from typing import Optional

from ..errors import CameraError, ConfigError, RecordError

log = logging.getLogger(__name__)

NO_CAMERA = ("no camera found ({reason}); choose one with --camera SOURCE or camera.source "
             "in the configuration: picamera2, a webcam index such as 0, a video file or a "
             "folder of images")


def choose_source(spec: Optional[str], config) -> str:
    """The camera to open: ``spec`` if given, else the configuration's (``auto``: the Pi
    camera when picamera2 is installed, else webcam 0)."""
    if spec:
        return spec
    if config is not None:
        return config.camera.resolved_source()
    import importlib.util
    return "picamera2" if importlib.util.find_spec("picamera2") else "0"


def open_camera(spec: str, camera=None):
    """Open ``spec`` (with the configuration's ``camera`` settings: size, exposure) once,
    to fail early with one clear line when there is no camera."""
    from ..vision import open_source
    try:
        return open_source(spec, camera)
    except CameraError as error:
        raise CameraError(NO_CAMERA.format(reason=error)) from None


def lights_sink(config):
    """The status lights and buttons as a sink of the table, when the configuration
    enables GPIO and the pins are free; else None (the table runs without them)."""
    if config is None:
        return None
    try:
        from ..device import Lights
    except ImportError:
        return None
    try:
        lights = Lights.from_config(config)
    except ConfigError as error:
        # A pin another program holds must not keep the table from refereeing.
        log.warning("running without lights: %s", error)
        return None
    return lights if lights.active else None


def run_table(args, config) -> int:
    """The table until the players quit or a signal arrives. Returns the exit code."""
    from ..record import GameRecorder, GameStore
    from ..table import FrameGrabber, GameSetup, RecordedFeed, Table, run
    from ..watchdog import Watchdog
    from .app import Screen, open_screen
    from .controls import UiState
    from .model import TableModel

    spec = choose_source(args.camera, config)
    camera = config.camera if config is not None else None
    fps = getattr(args, "fps", None)
    live = not _is_recording(spec)
    if not live:
        first = open_camera(spec, camera)   # a missing file is the user's to fix: one line
        feed = RecordedFeed(first, fps=fps or getattr(first, "fps", None) or 8.0)
    else:
        # A live camera that is not there yet (booting, unplugged) is waited for: the
        # table shows "camera lost" and tries again, ever less often.
        from ..vision import open_source
        opened = []
        try:
            opened.append(open_source(spec, camera))
        except CameraError as error:
            log.warning("waiting for the camera: %s", NO_CAMERA.format(reason=error))

        def reopen():
            # The first open is the one already made; later ones follow failures.
            if opened:
                return opened.pop()
            return open_source(spec, camera)

        feed = FrameGrabber(reopen)

    display = config.display if config is not None else None
    setup = GameSetup(
        size=args.board or (config.board.side if config is not None and
                            config.board.side != "auto" else "9x9"),
        preset=args.rules or (config.rules.preset if config is not None else "official"),
        mode=args.mode or (config.referee.mode if config is not None else "referee"),
        options=tuple(dict(config.rules.options).items()) if config is not None and
        not args.rules else (),
        tags=(("Event", RUN_EVENT),), **computer_setup(getattr(args, "computer", None), config))
    calibration = None
    calibration_file = args.calibration or (config.board.calibration if config is not None else "")
    if not calibration_file:
        # Where ``fenix-table calibrate`` saves by default.
        from ..vision.cli import default_calibration_path
        saved = default_calibration_path()
        calibration_file = saved if os.path.exists(saved) else ""
    if calibration_file:
        from ..vision import Calibration
        calibration = Calibration.load(calibration_file)
    database = args.database if args.database is not None else \
        (config.record.database if config is not None else "") or None
    store = GameStore(database)
    record = GameRecorder(store, save_frames=bool(config is not None and
                                                  config.record.save_frames))
    resume = None
    if args.resume:
        unfinished = store.unfinished()
        if not unfinished:
            raise ConfigError("--resume: there is no unfinished game in the archive")
        resume = max(unfinished, key=lambda g: g.id).id
    elif getattr(args, "continue_game", False):
        resume = continued_game(store)
    from ..club import broadcast_from_config
    broadcast = broadcast_from_config(config, dict(setup.tags))   # None unless [club] enabled
    lights = lights_sink(config)
    ui = UiState(language=args.language or (display.language if display else "en"),
                 rotation=args.rotate if args.rotate is not None else
                 (display.quarter_turns if display else 0),
                 show_camera=display.camera_inset if display else True,
                 show_clocks=display.clocks if display else False)
    # The new-game dialog starts from this game's choice of computer.
    ui.choice.computer, ui.choice.level = setup.computer or "none", str(setup.computer_level)
    stable = config.referee.stable_frames if config is not None else 3
    sinks = [sink for sink in (lights, broadcast) if sink is not None]
    table = None
    try:
        try:
            table = Table(setup, record=record, sinks=sinks, model=TableModel(),
                          stable_frames=stable, calibration=calibration, resume=resume, live=live)
        except RecordError as error:
            if resume is None or args.resume:
                raise
            # --continue: a stored game that no longer replays must not keep the table
            # down; it stays in the archive as it is and a new game starts.
            log.warning("not continuing game %s: %s; starting a new game", resume, error)
            table = Table(setup, record=record, sinks=sinks, model=TableModel(),
                          stable_frames=stable, calibration=calibration, live=live)
        size = args.size or ((display.width, display.height) if display and display.width
                             else (0, 0))
        fullscreen = args.fullscreen
        if fullscreen is None and display is not None:
            fullscreen = display.fullscreen_choice
        surface, _ = open_screen(fullscreen, size)
        why = run(table, feed, screen=Screen(surface, ui), watchdog=Watchdog.from_env())
        status = table.referee.game.status()
        saved = f"game {table.game_id}" if table.game_id is not None else "the game"
        print(f"{saved} saved in {store.path} ({len(table.referee.moves)} plies, "
              f"{status.fgn_result}); stopped: {why}", file=sys.stderr)
        return 0
    finally:
        feed.stop()
        if table is not None:
            table.close()
        else:
            for sink in sinks:
                sink.close()
        store.close()
        try:
            import pygame
            pygame.quit()
        except ImportError:
            pass


def computer_setup(chosen, config) -> dict:
    """The computer's part of the game setup: ``chosen`` is ``--computer`` as ``(side,
    level or None)``, else the configuration's ``[opponent]`` decides."""
    opponent = config.opponent if config is not None else None
    side = chosen[0] if chosen else (opponent.side if opponent is not None else "none")
    level = chosen[1] if chosen and chosen[1] is not None else \
        (opponent.level if opponent is not None else 4)
    movetime = opponent.movetime if opponent is not None else 2.0
    return dict(computer=None if side == "none" else side, computer_level=level,
                computer_movetime=movetime)


#: The Event tag of the games ``run`` records (``--continue`` goes on with these only).
RUN_EVENT = "fenix-table run"


def continued_game(store) -> Optional[int]:
    """The game ``run --continue`` goes on with: the newest game the table recorded
    (``run``, not ``track`` or an import), when it is unfinished; else None (a new game).
    That is what a restart after a crash, a power cut or a lost camera wants."""
    own = [g for g in store.list_games() if g.tags.get("Event") == RUN_EVENT]
    if own and own[-1].result == "*":
        return own[-1].id
    return None


def _is_recording(spec: str) -> bool:
    """A video file or a folder of images (played in order), not a live camera."""
    return spec != "picamera2" and not spec.isdigit()

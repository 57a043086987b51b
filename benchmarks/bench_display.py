"""Display figures: time to draw one table screen, and the demo's wall time.

    python benchmarks/bench_display.py [--repeat N] [--skip-demo]

Draw time is measured on an off-screen surface (SDL dummy driver) for a busy screen:
a compulsory capture chain, the camera inset with its grid, a full move list. The demo
is the bundled recording run headless end to end (vision, referee, display, PNG + MP4).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))


def busy_model():
    from fenix_table.display.model import TableModel
    from fenix_table.referee import Referee
    from fenix_tools.synthetic import observe_placement
    from fenix_table.rules import Position

    position = Position.from_fpn("9x9 8k/9/3s5/9/3s1s3/9/3s5/3G5/K8 r 55 - 4")
    referee = Referee(start=position, board="9x9")
    model = TableModel()
    model.apply_all(referee.begin())
    model.apply_all(referee.observe(observe_placement(position.stacks(), "9x9", 1)))
    model.moves = ["a1-b1", "i9-h9"] * 20
    return model


def bench_draw(size, repeat):
    import cv2
    import pygame

    from fenix_table.display.controls import UiState
    from fenix_table.display.recording_script import RECORDING
    from fenix_table.display.render import CameraGrid, Renderer

    model = busy_model()
    frame = cv2.imread(os.path.join(RECORDING, "0000.jpg"))
    grid = CameraGrid(9, 9, ((160, 400), (480, 410), (480, 70), (170, 60)))
    surface = pygame.Surface(size)
    renderer = Renderer()
    renderer.draw(surface, model, UiState(), frame, grid)   # fonts and layout warm
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        renderer.draw(surface, model, UiState(), frame, grid)
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return statistics.mean(times), times[int(0.95 * (len(times) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    import pygame
    pygame.display.init()
    pygame.font.init()
    for size in ((800, 480), (1920, 1080)):
        mean, p95 = bench_draw(size, args.repeat)
        print(f"draw {size[0]}x{size[1]}: mean {mean:.1f} ms, p95 {p95:.1f} ms "
              f"({args.repeat} screens, capture chain + camera inset)")
    if not args.skip_demo:
        from fenix_table.display.demo import run_demo
        with tempfile.TemporaryDirectory() as out:
            result = run_demo(out=out, headless=True)
        print(f"demo: {result.frames} frames in {result.seconds:.1f} s "
              f"({1000 * result.seconds / result.frames:.0f} ms per frame: vision, referee, "
              f"draw, PNG/MP4), {len(result.moves)} plies, {result.result} {result.reason}, "
              f"camera read {len(result.moves) - result.confirmed} of {len(result.moves)} plies")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What a camera loop pays per frame while no board is in view.

A search that finds no board runs every stage of the locator and costs the most of any
frame; in the table's loop the display waits for it. :class:`fenix_table.vision.Vision`
searches a picture once and again only when the picture has changed and is still (or
every ``SEARCH_AGAIN`` frames). Streams here: a generated patterned table (wood, checks
or stripes) with the board out of view, each frame the same picture with fresh sensor
noise, and in the middle a few frames shifted as by a hand sweeping through. Printed:
searches per stream, the thread CPU time of each frame through ``Vision.process``
(OpenCV on one thread), and what one search in vain costs, which is what every frame
cost when each was searched. Then the same streams as a live table runs them, the search
in a thread of its own (``search_apart``): the wall time each frame holds the loop (its
display and buttons) up.

    python benchmarks/bench_no_board.py [--streams 8] [--frames 30] [--seed 1]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

import cv2  # noqa: E402

from fenix_table.vision import Vision  # noqa: E402
from fenix_table.vision import locate  # noqa: E402
from fenix_tools.sim import random_placement, random_scene, render_frame  # noqa: E402


def stream(rng: np.random.Generator, frames: int):
    """A patterned table with the board far out of view, as ``frames`` noisy frames; a
    fifth of them in the middle moved as by a hand sweeping through."""
    scene = random_scene(rng, "9x9", image_size=(1280, 960), hand=False, table="busy")
    scene = replace(scene, offset=(40.0, 40.0), noise_sigma=0.0, jpeg_quality=0)
    picture, _ = render_frame(random_placement(rng, "9x9"), "9x9", scene, rng)
    sweep = range(2 * frames // 5, 3 * frames // 5)
    for i in range(frames):
        shown = np.roll(picture, 60 * (i - sweep.start + 1), axis=1) if i in sweep else picture
        noise = rng.normal(0.0, 2.0, shown.shape)
        yield np.clip(shown + noise, 0, 255).astype(np.uint8)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    searched = []
    real = locate.locate_board

    def counted(frame, board="auto", *rest, **kwargs):
        t0 = time.thread_time()
        try:
            return real(frame, board, *rest, **kwargs)
        finally:
            searched.append(time.thread_time() - t0)

    locate.locate_board = counted
    print(f"no board in view: {args.streams} streams of {args.frames} frames (seed {args.seed}), "
          f"a patterned table, sensor noise, a sweep through the middle fifth")
    try:
        for apart in (False, True):
            per_frame, searches, found = [], [], 0
            del searched[:]
            rng = np.random.default_rng(args.seed)
            clock = time.perf_counter if apart else time.thread_time
            for _ in range(args.streams):
                vision = Vision(search_apart=apart)
                before = len(searched)
                for i, frame in enumerate(stream(rng, args.frames)):
                    t0 = clock()
                    result = vision.process(frame, i)
                    per_frame.append(clock() - t0)
                    found += result.status not in ("board_not_found", "searching")
                    time.sleep(0.03 if apart else 0.0)     # a live camera's frame interval
                if vision._searching is not None:
                    vision._searching.join()
                searches.append(len(searched) - before)
            ms = np.array(per_frame) * 1000
            vain = np.array(searched) * 1000
            if not apart:
                print(f"boards found (none is there): {found}")
                print(f"searches per stream: {', '.join(map(str, searches))} (mean {np.mean(searches):.1f} "
                      f"of {args.frames} frames)")
                print(f"Vision.process per frame (one core, thread CPU): mean {ms.mean():.1f} ms, median "
                      f"{np.median(ms):.1f} ms, 95th percentile {np.percentile(ms, 95):.1f} ms, max {ms.max():.1f} ms")
                print(f"one search in vain (one core, thread CPU): mean {vain.mean():.0f} ms, max {vain.max():.0f} ms "
                      f"(every frame's cost when each was searched)")
            else:
                print(f"a live table (the search apart, a frame every 30 ms): boards found {found}, searches per "
                      f"stream {', '.join(map(str, searches))}; the loop held up per frame (wall time): mean "
                      f"{ms.mean():.1f} ms, 95th percentile {np.percentile(ms, 95):.1f} ms, max {ms.max():.1f} ms")
    finally:
        locate.locate_board = real
    return 0


if __name__ == "__main__":
    sys.exit(main())

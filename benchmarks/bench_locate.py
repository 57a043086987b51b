"""Board location benchmark: found rate, board side, corner accuracy and speed.

Renders a seeded set of frames with :mod:`fenix_tools.sim` spanning both board sides and
every condition the generator knows (tilt, rotation, light, glare, blur, distortion,
noise, JPEG, hands, stray stones), runs :func:`fenix_table.vision.locate.locate_board` on
each from scratch, and prints the figures. ``measure(frames)`` is importable so
``bench_vision.py`` can report the same numbers.

    python benchmarks/bench_locate.py [--frames 300] [--size 1280x960] [--seed 1[,2,...]] [--table plain|busy|wood|checks|stripes] [--lens K1]
    python benchmarks/bench_locate.py --tables 440:580 [--table stripes,wood,checks]
    python benchmarks/bench_locate.py --tiles 1:61

With several seeds, ``--frames`` frames are rendered from each, and the figures are
over all of them. ``--tables A:B`` renders one frame per seed from A to B-1 on each
table of ``--table`` (default: stripes, wood and checks; a hand when the seed is a
multiple of 5): the same board on several patterned tables. ``--lens K1`` puts every
frame of ``--frames`` behind the same radial lens (the generator's k1: negative is barrel,
-0.12 the strongest it draws by itself) instead of the one each scene draws. ``--tiles
A:B`` renders one hand-free frame per seed from A to B-1 on a tiled table (tiles about a
cell a side, turned a little from the board: :func:`tiled_frames`).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.errors import BoardNotFoundError  # noqa: E402
from fenix_tools.sim import TABLE_PATTERNS, random_placement, random_scene, render_frame  # noqa: E402
from fenix_table.board import dimensions  # noqa: E402
from fenix_table.rules import Position  # noqa: E402
from fenix_table.vision.locate import REFIT_BELOW, grid_still_fits, locate_board  # noqa: E402


def make_frames(count: int, seed: int = 1, image_size: Tuple[int, int] = (1280, 960),
                hand_share: float = 0.3, table: str = "plain", k1: Optional[float] = None):
    """``count`` seeded (bgr, truth) pairs: boards alternate, a third at the start position.
    ``table``: the table around the board (see :func:`fenix_tools.sim.random_scene`);
    ``k1``: the lens's radial distortion in every frame (None: each scene's own)."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        board = ("9x9", "7x8")[i % 2]
        scene = random_scene(rng, board, image_size=image_size, hand=bool(rng.random() < hand_share),
                             table=table)
        if k1 is not None:
            scene = replace(scene, distortion_k1=k1)
        placement = Position.start(board).stacks() if i % 3 == 0 else random_placement(rng, board)
        yield render_frame(placement, board, scene, rng)


def table_frames(first: int, last: int, tables: Sequence[str] = ("stripes", "wood", "checks"),
                 image_size: Tuple[int, int] = (1280, 960)):
    """(bgr, truth) for every seed in ``first`` .. ``last - 1`` and table: a 9x9 board for
    an even seed, 7x8 for an odd one, a hand when the seed is a multiple of 5."""
    for seed in range(first, last):
        for table in tables:
            board = ("9x9", "7x8")[seed % 2]
            rng = np.random.default_rng(seed)
            scene = random_scene(rng, board, image_size=image_size, hand=seed % 5 == 0, table=table)
            yield render_frame(random_placement(rng, board), board, scene, rng)


def tiled_frame(seed: int, board: str, turn: float, tile: float, light_grout: bool = True,
                image_size: Tuple[int, int] = (1280, 960)):
    """A generated hand-free frame of ``board`` (seed ``seed``) whose table is laid with
    tiles ``tile`` cells a side in grout 0.08 cells wide, turned ``turn`` degrees from the
    board: light grout on dark tiles (as the 9x9 face's lines) or dark on light (the
    7x8 face's), painted over the frame's table (as the Blender renders' tiled tables);
    and its truth."""
    import cv2
    rng = np.random.default_rng(seed)
    scene = replace(random_scene(rng, board, image_size=image_size), distortion_k1=0.0, hand=False, stray_stones=0)
    bgr, truth = render_frame(random_placement(rng, board), board, scene, rng)
    width, height = dimensions(board)
    Hm = cv2.getPerspectiveTransform(np.float32([[0, 0], [width, 0], [width, height], [0, height]]),
                                     np.float32(truth.corners))
    yy, xx = np.mgrid[0:bgr.shape[0], 0:bgr.shape[1]].astype(float)
    p = np.stack([xx, yy, np.ones_like(xx)], -1) @ np.linalg.inv(Hm).T
    x, y = p[..., 0] / p[..., 2], p[..., 1] / p[..., 2]
    edge = scene.margin + 0.02
    table = (x < -edge) | (x > width + edge) | (y < -edge) | (y > height + edge)
    a = np.radians(turn)
    u, v = (np.cos(a) * x + np.sin(a) * y) / tile, (-np.sin(a) * x + np.cos(a) * y) / tile
    grout = (u % 1 < 0.08 / tile) | (v % 1 < 0.08 / tile)
    out = bgr.astype(float)
    out[table] = (55, 55, 60) if light_grout else (200, 205, 205)
    out[table & grout] = (215, 215, 210) if light_grout else (45, 45, 50)
    out += rng.normal(0, 2.0, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8), truth


def tiled_frames(first: int, last: int, image_size: Tuple[int, int] = (1280, 960)):
    """(bgr, truth) of :func:`tiled_frame` for every seed in ``first`` .. ``last - 1``: a 9x9
    board for an even seed, 7x8 for an odd one; light grout for a seed whose half is
    even; the tiles 0.8-1.2 cells, turned 0-15 degrees (drawn from the seed)."""
    for seed in range(first, last):
        rng = np.random.default_rng(seed + 1000)
        yield tiled_frame(seed, ("9x9", "7x8")[seed % 2], float(rng.uniform(0, 15)), float(rng.uniform(0.8, 1.2)),
                          (seed // 2) % 2 == 0, image_size)


def corner_error(found: np.ndarray, truth: np.ndarray, oriented: bool) -> float:
    """Mean distance between corners, over the board's symmetries unless ``oriented``."""
    shifts = [0] if oriented else range(4)
    return min(float(np.linalg.norm(np.roll(found, -k, axis=0) - truth, axis=1).mean()) for k in shifts)


def measure(frames: Iterable[Tuple[np.ndarray, object]]) -> Dict[str, float]:
    """Locate the board in every ``(bgr, truth)`` frame; return the figures as a dict.

    A frame counts as found when the side is right and the mean corner error is under a
    third of a cell. Keys: frames, frames_no_hand, found_no_hand, found_hand (rates 0..1),
    wrong_side and false_grid (counts), mean/max corner error in px (found frames, right side), start frames,
    oriented_right, oriented_wrong (start-position frames), start_no_hand and
    oriented_no_hand (the same without a hand), fit_min and
    fit_false_alarms (grid_still_fits on found frames), ms_mean, ms_p95, ms_max per frame.
    """
    stats = {"no_hand": [0, 0], "hand": [0, 0]}
    wrong_side = false_grid = 0
    errors: List[float] = []
    times: List[float] = []
    fits: List[float] = []
    start_frames = oriented_right = oriented_wrong = start_no_hand = oriented_no_hand = 0
    for bgr, truth in frames:
        key = "hand" if truth.hand else "no_hand"
        stats[key][1] += 1
        # CPU time of this process: with OpenCV on one thread this is the one-core cost,
        # and other programs running on the machine do not inflate it as wall time would.
        t0 = time.process_time()
        try:
            cal = locate_board(bgr)
        except BoardNotFoundError:
            cal = None
        times.append(time.process_time() - t0)
        is_start = truth.placement == Position.start(truth.board).stacks()
        start_frames += is_start
        if cal is None:
            continue
        if cal.board != truth.board:
            wrong_side += 1
            continue
        # Where the grid's corners are in the frame (through the lens the calibration
        # found, if any: its ``corners`` are in the distortion-free image).
        width, height = dimensions(cal.board)
        box = [[0, 0], [width, 0], [width, height], [0, height]]
        found = cal.to_image(box) if hasattr(cal, "to_image") else np.array(cal.corners)
        error = corner_error(found, truth.corners, False)
        cell_px = float(np.linalg.norm(np.diff(np.vstack([truth.corners, truth.corners[:1]]), axis=0), axis=1).mean()
                        / np.mean(dimensions(truth.board)))
        if error > cell_px / 3:          # a grid, but not this board's: a false find
            false_grid += 1
            continue
        stats[key][0] += 1
        errors.append(error)
        fits.append(grid_still_fits(cal, bgr))
        if is_start and not truth.hand:
            start_no_hand += 1
        if is_start and cal.oriented:
            if corner_error(found, truth.corners, True) < 10 * max(errors[-1], 1.0):
                oriented_right += 1
                oriented_no_hand += not truth.hand
            else:
                oriented_wrong += 1
    rate = lambda k: stats[k][0] / stats[k][1] if stats[k][1] else float("nan")
    return {
        "frames": len(times), "frames_no_hand": stats["no_hand"][1], "frames_hand": stats["hand"][1],
        "found_no_hand": rate("no_hand"), "found_hand": rate("hand"), "wrong_side": wrong_side,
        "false_grid": false_grid,
        "corner_error_mean": float(np.mean(errors)) if errors else float("nan"),
        "corner_error_p95": float(np.percentile(errors, 95)) if errors else float("nan"),
        "corner_error_max": float(np.max(errors)) if errors else float("nan"),
        "start_frames": start_frames, "oriented_right": oriented_right, "oriented_wrong": oriented_wrong,
        "start_no_hand": start_no_hand, "oriented_no_hand": oriented_no_hand,
        "fit_min": float(np.min(fits)) if fits else float("nan"),
        "fit_false_alarms": int(np.sum(np.array(fits) < REFIT_BELOW)),
        "ms_mean": 1000 * float(np.mean(times)), "ms_p95": 1000 * float(np.percentile(times, 95)),
        "ms_max": 1000 * float(np.max(times)),
    }


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--seed", default="1", help="seed, or seeds separated by commas")
    parser.add_argument("--table", default=None,
                        help="the table around the board: plain, or wood, checks, stripes (busy: any); "
                             "with --tables, a list separated by commas")
    parser.add_argument("--tables", default=None, metavar="A:B",
                        help="one frame per seed A .. B-1 and table, instead of --frames and --seed")
    parser.add_argument("--tiles", default=None, metavar="A:B",
                        help="one frame per seed A .. B-1 on a tiled table, instead of --frames and --seed")
    parser.add_argument("--lens", type=float, default=None, metavar="K1",
                        help="every frame behind this radial lens (the generator's k1; negative: barrel)")
    args = parser.parse_args(list(argv))
    size = tuple(int(v) for v in args.size.split("x"))
    tables = (args.table or ("stripes,wood,checks" if args.tables else "plain")).split(",")
    if len(tables) > 1 and not args.tables:
        parser.error("--table: one table only, unless with --tables")
    if args.lens is not None and (args.tables or args.tiles):
        parser.error("--lens: with --frames only, not with --tables or --tiles")
    for table in tables:
        if table not in ("plain", "busy") + TABLE_PATTERNS[1:]:
            parser.error(f"--table: {table!r} is not one of plain, busy, wood, checks, stripes")
    try:
        import cv2
        cv2.setNumThreads(1)  # the budget is for one core
    except ImportError:
        pass
    if args.tiles:
        try:
            first, last = (int(v) for v in args.tiles.split(":"))
        except ValueError:
            parser.error(f"--tiles: {args.tiles!r} is not A:B")
        r = measure(tiled_frames(first, last, size))
        what = f"seeds {first}-{last - 1}, tiled tables"
    elif args.tables:
        try:
            first, last = (int(v) for v in args.tables.split(":"))
        except ValueError:
            parser.error(f"--tables: {args.tables!r} is not A:B")
        r = measure(table_frames(first, last, tables, size))
        what = f"seeds {first}-{last - 1}, each on {', '.join(tables)}"
    else:
        seeds = [int(v) for v in args.seed.split(",")]
        r = measure(frame for seed in seeds
                    for frame in make_frames(args.frames, seed, size, table=tables[0], k1=args.lens))
        what = f"seed {args.seed}, {tables[0]} tables" + ("" if args.lens is None else f", lens k1 {args.lens}")
    print(f"frames: {r['frames']} at {args.size} ({what}), {r['frames_hand']} with a hand")
    print(f"board found without a hand: {100 * r['found_no_hand']:.1f}% of {r['frames_no_hand']}")
    print(f"board found with a hand:    {100 * r['found_hand']:.1f}% of {r['frames_hand']}")
    print(f"wrong board side: {r['wrong_side']}")
    print(f"right side but misplaced grid (corner error > 1/3 cell): {r['false_grid']}")
    print(f"corner error: mean {r['corner_error_mean']:.2f} px, 95th percentile "
          f"{r['corner_error_p95']:.2f} px, max {r['corner_error_max']:.2f} px")
    print(f"orientation from start position: {r['oriented_right']} right, {r['oriented_wrong']} wrong "
          f"of {r['start_frames']} start frames; without a hand {r['oriented_no_hand']} of {r['start_no_hand']}")
    print(f"grid_still_fits on the frame it was located in: min {r['fit_min']:.2f}, "
          f"{r['fit_false_alarms']} below the re-locate threshold {REFIT_BELOW}")
    print(f"locate time per frame (CPU time, OpenCV on one thread): mean {r['ms_mean']:.0f} ms, "
          f"95th percentile {r['ms_p95']:.0f} ms, max {r['ms_max']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

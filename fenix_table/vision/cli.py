"""``fenix-table detect`` and ``fenix-table calibrate``.

Only argparse and the standard library are imported at module level; OpenCV and numpy
load inside the handlers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from ..board import SIZES, dimensions
from ..errors import BoardNotFoundError, CameraError, ConfigError

BOARD_CHOICES = ("auto",) + SIZES


def register(subparsers) -> None:
    detect = subparsers.add_parser(
        "detect", help="find the board in images and read every cell (one JSON line per image)",
        description="Find the board in each image (afresh, unless --calibration is given) and "
                    "print one JSON line per image with every cell's colour, height and confidence. "
                    "An image that cannot be read (not a picture, no board found, another size than "
                    "the calibration's) gets a line {\"image\", \"error\"} and the rest are still read; "
                    "the exit status is 0 when every image was read, else 2.")
    detect.add_argument("images", nargs="+", metavar="IMAGE")
    detect.add_argument("--board", choices=BOARD_CHOICES, default="auto", help="board face (default: auto)")
    detect.add_argument("--calibration", metavar="FILE", help="use this saved calibration instead of locating")
    detect.add_argument("--annotate", metavar="OUT.png",
                        help="write each image with the grid and readings drawn (numbered when several)")
    detect.set_defaults(handler=run_detect)

    calibrate = subparsers.add_parser(
        "calibrate", help="find the board (or take four corners) and save the calibration",
        description="Find the board in the first frame of SOURCE (image, folder, video, camera index "
                    "or picamera2), or use four corners given in board order (a1's corner first, "
                    "along rank 1), and save the calibration as JSON.")
    calibrate.add_argument("source", metavar="SOURCE")
    calibrate.add_argument("--board", choices=BOARD_CHOICES, default="auto")
    calibrate.add_argument("--corners", nargs=4, metavar="X,Y",
                           help="the grid's four corners in pixels (a corner may lie a little "
                                "off the picture: -12,40)")
    calibrate.add_argument("--stickers", action="store_true",
                           help="take the grid from the four printed corner stickers "
                                "(calibration/fenix-corner-stickers.svg; needs --board 9x9 or 7x8)")
    # "-12,40" is a corner, not an option (argparse only knows plain negative numbers).
    import re
    calibrate._negative_number_matcher = re.compile(r"^-\d*\.?\d+(,-?\d*\.?\d+)?$")
    calibrate.add_argument("-o", "--output", metavar="FILE",
                           help="where to save (default: calibration.json in the user config folder)")
    calibrate.set_defaults(handler=run_calibrate)


def default_calibration_path() -> str:
    """``calibration.json`` in the user configuration folder (platformdirs)."""
    import platformdirs
    return os.path.join(platformdirs.user_config_dir("fenix-table"), "calibration.json")


def _read_image(path: str):
    from .sources import read_image
    return read_image(path)


def _annotate_path(pattern: str, index: int, count: int) -> str:
    if count == 1:
        return pattern
    root, ext = os.path.splitext(pattern)
    return f"{root}-{index + 1:03d}{ext or '.png'}"


def observation_json(image: str, observation) -> dict:
    """The ``detect`` output record for one image."""
    cells = {}
    for name, r in observation.cells.items():
        conf = r.color_confidence if r.height is None else min(r.color_confidence, r.height_confidence)
        cells[name] = {"color": r.color, "height": r.height, "confidence": round(float(conf), 3)}
    return {"image": image, "board": observation.board, "cells": cells,
            "hand": bool(observation.hand), "occluded_cells": list(observation.occluded_cells)}


def draw_annotation(frame, calibration, observation):
    """A copy of ``frame`` with the grid and each cell's reading drawn on it."""
    import cv2
    import numpy as np
    out = frame.copy()
    width, height = dimensions(calibration.board)
    def polyline(points):       # a lens bends the lines: draw each through many points
        return np.round(calibration.to_image(points)).astype(np.int32).reshape(-1, 1, 2)
    thick = max(1, frame.shape[1] // 640)
    t = np.linspace(0, 1, 33)
    lines = [np.column_stack([np.full_like(t, i), t * height]) for i in range(width + 1)]
    lines += [np.column_stack([t * width, np.full_like(t, j)]) for j in range(height + 1)]
    cv2.polylines(out, [polyline(line) for line in lines], False, (0, 255, 255), thick, cv2.LINE_AA)
    a1 = polyline(np.zeros((1, 2)))[0, 0]
    cv2.circle(out, (int(a1[0]), int(a1[1])), 6 * thick, (0, 255, 0), -1, cv2.LINE_AA)
    colours = {"red": (60, 60, 255), "black": (40, 40, 40), "empty": (200, 200, 200)}
    occluded = set(observation.occluded_cells)
    scale = 0.4 * thick
    for name, (x, y) in calibration.cell_centres().items():
        r = observation.cells.get(name)
        if r is None:
            continue
        centre = (int(round(x)), int(round(y)))
        if name in occluded:
            cv2.drawMarker(out, centre, (255, 0, 255), cv2.MARKER_TILTED_CROSS, 12 * thick, thick)
            continue
        if r.color == "empty":
            continue
        label = "?" if r.height is None else str(r.height)
        cv2.circle(out, centre, 9 * thick, colours[r.color], -1, cv2.LINE_AA)
        cv2.circle(out, centre, 9 * thick, (255, 255, 255), 1, cv2.LINE_AA)
        size, _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        cv2.putText(out, label, (centre[0] - size[0] // 2, centre[1] + size[1] // 2),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thick, cv2.LINE_AA)
    return out


def run_detect(args: argparse.Namespace) -> int:
    import cv2
    from .cells import CellReader
    from .locate import locate_board
    from .types import Calibration
    fixed = None
    if args.calibration:
        fixed = Calibration.load(args.calibration)
        if args.board != "auto" and fixed.board != args.board:
            raise ConfigError(f"calibration {args.calibration} is for {fixed.board}, not {args.board}")
    if args.annotate:
        from .sources import IMAGE_SUFFIXES
        if not args.annotate.lower().endswith(IMAGE_SUFFIXES):
            raise ConfigError(f"--annotate {args.annotate}: name an image file ending in "
                              f"{', '.join(IMAGE_SUFFIXES)}")
    reader = None
    unreadable = 0
    for index, path in enumerate(args.images):
        # An image that cannot be read (no picture in the file, none of the calibration's
        # size, no board in it) gets its JSON line with the error, named on stderr too;
        # the batch goes on.
        problem = None
        try:
            frame = _read_image(path)
            size = (frame.shape[1], frame.shape[0])
            if fixed is None:
                calibration = locate_board(frame, args.board)
                reader = CellReader(calibration)
            elif tuple(fixed.image_size) != size:
                problem = (f"image {path}: {size[0]}x{size[1]}, the calibration is for "
                           f"{fixed.image_size[0]}x{fixed.image_size[1]} images")
            else:
                calibration = fixed
                reader = reader or CellReader(calibration)
        except CameraError as error:
            problem = str(error)
        except BoardNotFoundError as error:
            problem = f"image {path}: {error}"
        if problem is not None:
            print(json.dumps({"image": path, "error": problem}), flush=True)
            print(f"fenix-table: {problem}", file=sys.stderr, flush=True)
            unreadable += 1
            continue
        observation = reader.read(frame, index)
        print(json.dumps(observation_json(path, observation)), flush=True)
        if args.annotate:
            out = _annotate_path(args.annotate, index, len(args.images))
            try:
                written = cv2.imwrite(out, draw_annotation(frame, calibration, observation))
            except cv2.error:
                written = False
            if not written:
                raise ConfigError(f"cannot write {out}")
    return 2 if unreadable else 0


def _parse_corners(values):
    corners = []
    for value in values:
        try:
            x, y = (float(v) for v in value.split(","))
        except ValueError:
            raise ConfigError(f"bad corner {value!r}: expected X,Y in pixels") from None
        corners.append((x, y))
    return corners


def run_calibrate(args: argparse.Namespace) -> int:
    from .locate import locate_board
    from .sources import open_source
    from .types import Calibration
    corners = None
    if args.corners and args.stickers:
        raise ConfigError("give --corners or --stickers, not both")
    if args.corners:
        if args.board == "auto":
            raise ConfigError("--corners needs --board 9x9 or 7x8")
        corners = _parse_corners(args.corners)
    if args.stickers and args.board == "auto":
        raise ConfigError("--stickers needs --board 9x9 or 7x8")
    with open_source(args.source) as source:
        try:
            frame = source.read()
        except StopIteration:
            raise CameraError(f"{args.source} gave no frame") from None
    h, w = frame.shape[:2]
    if corners:
        calibration = Calibration.from_corners(args.board, (w, h), corners)
    elif args.stickers:
        from .stickers import locate_by_stickers
        calibration = locate_by_stickers(frame, args.board)
    else:
        calibration = locate_board(frame, args.board)
    # A frame of the start position also fits the colour model to the room's light.
    from .pipeline import Vision
    vision = Vision(calibration.board, calibration, stable_frames=1)
    result = vision.process(frame, 0)
    if result.calibration is not None and result.calibration.room is not None:
        calibration = result.calibration
    path = args.output or default_calibration_path()
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        calibration.save(path)
    except OSError as error:
        raise ConfigError(f"cannot write calibration {path}: {error.strerror}") from None
    colours = "colours fitted to the start position" if calibration.room else "default colours"
    orient = "a1 from the stones" if calibration.oriented else "a1 guessed (bottom-left)"
    lens = f", lens distortion k1 {calibration.k1:+.3f}" if calibration.k1 else ""
    print(f"{calibration.board} board, {orient}, {colours}{lens}: saved {path}")
    return 0

"""Make the demo's camera recording with the project's frame generator.

``PYTHONPATH=tools python -m fenix_tools.make_recording [--out DIR]`` renders the game of
the bundled ``fenix_table/display/recording/script.json`` as an overhead camera sees it
while people play: the start position, then for every ply a forearm reaching over the
board and the new position held still, with the violation and the capture chain the
script names played out in full (:func:`fenix_table.display.recording_script.shots`).

The script fixes the scene (camera, light, board colours) and the seed, so the frames
are reproducible. ``script.json`` also records what the frames show (the plies, the
result), which ``fenix-table demo`` and its test check the referee against. By default
the frames go into this source checkout's ``fenix_table/display/recording/``, never into
an installed copy of the package.
"""
from __future__ import annotations

import argparse
import json
import os
from dataclasses import replace
from typing import List, Optional

from fenix_table.display.recording_script import SCRIPT_NAME, shots

from . import CHECKOUT

# The bundled recording in the source checkout (not wherever the package is installed).
RECORDING_OUT = os.path.join(CHECKOUT, "fenix_table", "display", "recording")


def render(script: dict, out: str, *, quality: int = 80) -> int:
    """Render every frame as ``NNNN.jpg`` into ``out``; returns the frame count."""
    import cv2
    import numpy as np

    from .sim import random_scene, render_frame

    rng = np.random.default_rng(script["seed"])
    scene = random_scene(rng, script["board"], image_size=tuple(script["image_size"]),
                         hard=False, hand=False)
    scene = replace(scene, **script.get("scene", {}))
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".jpg"):
            os.remove(os.path.join(out, name))
    index = 0
    for part in shots(script):
        for _ in range(part.frames):
            shot = scene
            if part.hand:
                shot = replace(scene, hand=True, hand_angle_deg=float(rng.uniform(0, 360)),
                               hand_reach=float(rng.uniform(2.5, 4.5)))
            bgr, _truth = render_frame(part.placement, script["board"], shot, rng)
            cv2.imwrite(os.path.join(out, f"{index:04d}.jpg"), bgr,
                        [cv2.IMWRITE_JPEG_QUALITY, quality])
            index += 1
    return index


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=RECORDING_OUT,
                        help="folder for the frames (default: this checkout's %(default)s)")
    parser.add_argument("--script", default=os.path.join(RECORDING_OUT, SCRIPT_NAME),
                        help="the game script (JSON; default: %(default)s)")
    parser.add_argument("--quality", type=int, default=80, help="JPEG quality")
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as fh:
        script = json.load(fh)
    count = render(script, args.out, quality=args.quality)
    size = sum(os.path.getsize(os.path.join(args.out, f)) for f in os.listdir(args.out)
               if f.endswith(".jpg"))
    print(f"{count} frames, {size / 1e6:.1f} MB in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

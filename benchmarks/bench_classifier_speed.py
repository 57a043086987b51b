"""Speed of the cell reader's colours on one core, here and worked out for a Pi 4.

* the shipped CNN (``cv2.dnn``) on the 81 and 56 cells of a 9x9 and a 7x8 frame;
* the budget's figure: rectify a 1280x960 frame and classify all its cells
  (``Rectifier``, ``cell_patches``, ``CnnClassifier.probabilities``), generated frames;
* the whole ``CellReader.read`` (default classifier: the perceptron and the CNN pooled,
  out of the box and calibrated; heights and hands included);
* the Pi 4 estimate: a reference network with a published Pi 4 time, MobileNet-v1 at
  224x224 (0.57 G multiply-adds; about 87 ms on a Pi 4 CPU, see
  ``../shared/notes/perception.md``), is timed here through the same ``cv2.dnn`` on one
  core (built with random weights, which do not change its speed; needs the ``train``
  extra's torch to write its ONNX), and the ratio scales the CNN's figure. The published
  time is for all four Pi cores, so the one-core Pi figure can be up to about four times
  the estimate; the estimate is a ratio, not a measurement on a Pi.

Times are the CPU time of the timing thread (``time.thread_time``; OpenCV runs on that
one thread), medians and 95th percentiles over every call.

    python benchmarks/bench_classifier_speed.py [--frames 20]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Dict, List, Optional, Sequence

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.board import dimensions  # noqa: E402
from fenix_table.rules import Position  # noqa: E402
from fenix_table.vision.cells import CellReader, calibrate_reader  # noqa: E402
from fenix_table.vision.classifier import PATCH, shipped_classifier  # noqa: E402
from fenix_table.vision.types import Calibration  # noqa: E402
from fenix_tools.sim import random_placement, random_scene, render_frame  # noqa: E402

PI4_MOBILENET_MS = 87.0


def timed(fn, repeat: int) -> List[float]:
    """Milliseconds of each of ``repeat`` calls of ``fn()`` after two warm-ups, as the
    thread's CPU time: the time on one core, whatever else the shared machine runs
    meanwhile (wall-clock times here grow with its load)."""
    fn()
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.thread_time()
        fn()
        times.append(1000 * (time.thread_time() - t0))
    return times


def spread(ms: Sequence[float]) -> str:
    return f"median {np.median(ms):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms"


def mobilenet_ms(repeat: int) -> Optional[float]:
    try:
        import torch
        import torch.nn as nn
    except ImportError:
        return None

    def block(cin, cout, stride):
        return [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(),
                nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    cfg = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2)] + \
        [(512, 512, 1)] * 5 + [(512, 1024, 2), (1024, 1024, 1)]
    layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU()]
    for cin, cout, s in cfg:
        layers += block(cin, cout, s)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1024, 1000)]
    net = nn.Sequential(*layers).eval()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mobilenet.onnx")
        torch.onnx.export(net, (torch.zeros(1, 3, 224, 224),), path, opset_version=13, dynamo=False)
        dnn = cv2.dnn.readNetFromONNX(path)
    x = np.random.default_rng(0).random((1, 3, 224, 224), dtype=np.float32)

    def run():
        dnn.setInput(x)
        dnn.forward()
    return float(np.median(timed(run, repeat)))


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20)
    args = parser.parse_args(list(argv))
    cv2.setNumThreads(1)
    clf = shipped_classifier()
    rng = np.random.default_rng(5)
    cells_ms = {}
    for board in ("9x9", "7x8"):
        w, h = dimensions(board)
        patches = rng.integers(0, 255, (w * h, PATCH, PATCH, 3), dtype=np.uint8)
        cells_ms[board] = float(np.median(timed(lambda: clf.probabilities(patches), 50)))
        print(f"CNN on the {w * h} cells of a {board} frame (one core): {cells_ms[board]:.2f} ms")
    frame_ms: List[float] = []
    read_ms: Dict[str, List[float]] = {"out of the box": [], "calibrated": []}
    for i in range(args.frames):
        board = ("9x9", "7x8")[i % 2]
        scene = random_scene(rng, board, image_size=(1280, 960), hand=False)
        start = Position.start(board).stacks()
        start_bgr, truth = render_frame(start, board, scene, rng)
        bgr, truth = render_frame(random_placement(rng, board), board, scene, rng)
        cal = Calibration(board, (1280, 960), tuple(map(tuple, truth.fitted_corners())))
        reader = CellReader(cal)
        frame_ms += timed(lambda: reader.classifier.probabilities(reader.patches(reader.rectifier(bgr))), 10)
        read_ms["out of the box"] += timed(lambda: reader.read(bgr), 10)
        calibrated = CellReader(calibrate_reader(start_bgr, cal, start))
        read_ms["calibrated"] += timed(lambda: calibrated.read(bgr), 10)
    fm = np.array(frame_ms)
    print(f"rectify and classify every cell of a 1280x960 frame (one core): {spread(fm)} "
          f"over {args.frames} frames")
    for kind, ms in read_ms.items():
        print(f"CellReader.read (default classifier, colours, heights and hands), {kind}: {spread(ms)}")
    ref = mobilenet_ms(10)
    if ref is None:
        print("Pi 4 estimate: needs torch (the train extra) to build the reference network")
        return 0
    ratio = PI4_MOBILENET_MS / ref
    print(f"reference MobileNet-v1 224x224 through cv2.dnn here (one core): {ref:.1f} ms; "
          f"Pi 4 published {PI4_MOBILENET_MS:.0f} ms: ratio {ratio:.2f}")
    print(f"Pi 4 estimate (ratio x here): rectify and classify a 1280x960 frame {ratio * np.median(fm):.1f} ms; "
          f"CNN alone 9x9 {ratio * cells_ms['9x9']:.1f} ms, 7x8 {ratio * cells_ms['7x8']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

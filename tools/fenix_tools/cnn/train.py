"""Train the cell CNN, calibrate its confidences and export it into the package.

    PYTHONPATH=tools python -m fenix_tools.cnn.train [--epochs 8] [--root /work/data/reader]

Examples are the generated rooms' patch chunks :mod:`.data` wrote under
``ROOT/patches`` (seed 101) and the rendered train boards kept in git
(``tools/reader-data``, :mod:`.boards`: the Mitsuba and Cycles train splits). Held out,
for tuning only: seed 201's generated rooms, and one fold of the rendered boards (the
rooms whose number in their run is a multiple of ``--pbr-every``, both cuts; the fold
:mod:`.pooling` scores; no eval or tune frame is ever read here). The
temperature that makes the confidences honest is fitted on both (temperature scaling,
by the negative log-likelihood; the expected calibration error before and after is
printed), and both errors are printed after every epoch.

Every epoch draws its examples afresh (:func:`epoch_inputs`): a share of the generated
frames and ``--pbr-copies`` copies of every rendered board, each copy but the first in
other light and through another camera (:func:`relight`: white balance from warm to cool,
exposure and gamma, now and then a dim room, a shadow's edge across the board, lamp
highlights and a veil of reflected light on the stones, blur, sensor noise, JPEG), then
through :func:`fenix_table.vision.classifier.net_input`, the reader's own preprocessing;
in training the batches are also turned and mirrored at random (the board's cells have
no preferred side: the lamp and the camera may stand anywhere).

The shipped model is trained from scratch on what a checkout holds, so any session can make
it again: generator seed 101's patches (:mod:`.data`, seed 201 held out) and the boards in
``tools/reader-data`` that ``cell_cnn.json``'s note names (its command, run with
``--threads 1``). Its patches carry half a cell of context (``classifier.MARGIN``): trained
from scratch by the same recipe, half a cell read the tuning sets better than the quarter
cell of earlier models (benchmarks/results/reader/README.md, stop 46). Later rounds may
fine-tune an export (``--init fenix_table/vision/cell_cnn.onnx``, which reads its weights
back, :func:`exported_state`). Which augmentation generalises to a renderer never
trained on was chosen by leaving one renderer out: trained on generated rooms only
(``--boards '' --sim-share 1 --pbr-copies 0``) and read on the pbr tune split, or on
rendered boards only (``--sim-share 0``) and read on generated rooms.

Single-process, ``torch.set_num_threads(2)`` at most; a checkpoint after every epoch in
``ROOT/checkpoints`` (the run resumes from the newest; each epoch's draw is seeded by
the run's seed and the epoch, so a resumed run is the run). The exported
``fenix_table/vision/cell_cnn.onnx`` carries the temperature folded into its last layer,
and ``cell_cnn.json`` that layer's weights (what a room is refitted from). ``--init``
takes such an exported model too (its ``.json`` beside it, :func:`exported_state`): the
shipped model's checkpoints are not kept, its files are.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from typing import List, Optional, Sequence, Tuple

import cv2
import numpy as np

from fenix_table.vision.classifier import CELL, CLASSES, HEAD_PATH, MARGIN, MODEL_PATH, PATCH, net_input
from fenix_table.vision.colour import softmax

from .. import CHECKOUT
from . import boards
from .data import ROOT

MODEL_OUT = os.path.join(CHECKOUT, "fenix_table", "vision", os.path.basename(MODEL_PATH))
HEAD_OUT = os.path.join(CHECKOUT, "fenix_table", "vision", os.path.basename(HEAD_PATH))
FEATURES = 32
EMPTY, RED, BLACK = range(3)

# Patch pixel coordinates, for the stone-shaped parts of relight.
_YY, _XX = np.mgrid[0:PATCH, 0:PATCH].astype(np.float32) + 0.5
_MID = PATCH / 2.0


def _board_coords(n: int) -> Optional[Tuple[int, np.ndarray, np.ndarray]]:
    """(width in cells, rows (n, PATCH), columns (n, PATCH)): the board coordinates, in
    cells, of the pixels of one frame's n patches (cell_patches order); None when n
    patches are not a whole board."""
    width = {81: 9, 56: 7}.get(n)
    if width is None:
        return None
    row, col = np.divmod(np.arange(n), width)
    return (width, row[:, None] + (_YY[None, :, 0] - MARGIN) / CELL,
            col[:, None] + (_XX[None, 0, :] - MARGIN) / CELL)


def shade(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """One frame's patches (float BGR) with part of the board in shadow: the edge of a
    lamp's pool of light, or of a shadow cast over the board, a soft line anywhere
    across it, the far side 0.12-0.6 as bright (a red stone there is dark, and must not
    read black)."""
    coords = _board_coords(len(x))
    if coords is None:
        return x
    width, ys, xs = coords
    t = rng.uniform(0, 2 * np.pi)
    at = rng.uniform(-0.5, 0.5) * width
    d = (xs[:, None, :] - width / 2) * np.cos(t) + (ys[:, :, None] - len(x) / width / 2) * np.sin(t) - at
    soft = rng.uniform(0.15, 1.5)
    dark = rng.uniform(0.12, 0.6)
    f = dark + (1 - dark) / (1 + np.exp(-d / soft))
    return x * f.astype(np.float32)[..., None]


def camera(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """One frame's patches (float BGR 0..1, cell_patches order) as a camera unlike the
    renderers' would give them, a few of these at random: vignetting (the light falling
    off toward one side of the board, not only per frame), colours more or less
    saturated, a green or magenta tint, the detail of a lower resolution, sharpening."""
    n = len(x)
    coords = _board_coords(n)
    if coords is not None and rng.random() < 0.6:
        # The fall-off's centre anywhere near the board.
        width, ys, xs = coords
        cy, cx = rng.uniform(-2, n // width + 2), rng.uniform(-2, width + 2)
        r2 = ((ys[:, :, None] - cy) ** 2 + (xs[:, None, :] - cx) ** 2) / float(width * width)
        x = x * np.clip(1.0 - rng.uniform(0.1, 0.6) * r2, 0.25, 1.0).astype(np.float32)[..., None]
    if rng.random() < 0.5:
        grey = x.mean(axis=3, keepdims=True)
        x = grey + (x - grey) * np.float32(np.exp(rng.normal(0, 0.35)))
    if rng.random() < 0.4:
        x = x * np.exp(np.array([0.0, rng.normal(0, 0.12), 0.0], np.float32))
    if rng.random() < 0.25:
        f = rng.uniform(0.4, 0.7)
        small = [cv2.resize(p, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) for p in x]
        x = np.stack([cv2.resize(p, (PATCH, PATCH), interpolation=cv2.INTER_LINEAR) for p in small])
    if rng.random() < 0.2:
        blurred = np.stack([cv2.GaussianBlur(p, (0, 0), 1.0) for p in x])
        x = x + np.float32(rng.uniform(0.3, 1.0)) * (x - blurred)
    return np.clip(x, 0, 1).astype(np.float32)


def relight(rng: np.random.Generator, patches: np.ndarray, labels: np.ndarray, camera_share: float = 0.0) -> np.ndarray:
    """One frame's patches (uint8 BGR) in other light and through another camera: what
    the physically based renders showed the reader gets wrong (glossy and lacquered black
    stones on the dark face under warm lamps, read as empty).

    Per frame: a white balance from warm to cool, exposure (now and then a dim room's)
    and gamma; in some frames a shadow's edge across the board (:func:`shade`); per
    stone, with some chance, small bright lamp highlights and a veil of reflected light
    over its disc (a glossy black stone looks grey); now and then a highlight on bare
    board (a laminated face shines too, so a highlight alone must not mean a stone); the
    lamp warm white or now and then coloured; then, in a ``camera_share`` of frames,
    :func:`camera`; then blur, sensor noise and JPEG."""
    x = patches.astype(np.float32) * (1.0 / 255)
    n = len(x)
    warm = rng.uniform(-0.35, 0.6)                       # > 0: a tungsten lamp's cast
    gains = np.exp(rng.normal(0, 0.06, 3) + np.array([-0.5, 0.0, 0.5]) * warm)      # B, G, R
    x = np.clip(x, 0, 1) ** np.exp(rng.normal(0, 0.18))
    # Now and then a dim room: the camera's exposure short of the light, the noise up.
    dim = rng.random() < 0.15
    x = x * (gains * np.exp(rng.uniform(-2.0, -0.9) if dim else rng.uniform(-0.9, 0.35))).astype(np.float32)
    if rng.random() < 0.3:
        x = shade(rng, x)
    if rng.random() < 0.3:
        # A coloured lamp among the room's lights: its reflections tint a stone's shine.
        hsv = np.uint8([[[rng.integers(0, 180), rng.integers(70, 190), 255]]])
        lamp = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32) / 255
    else:
        lamp = np.array([rng.uniform(0.55, 1.0), rng.uniform(0.8, 1.0), 1.0], np.float32)  # warm white, BGR
    if rng.random() < 0.6:
        stone = labels > 0
        shine = rng.random(n) < np.where(labels == BLACK, 0.6, np.where(labels == RED, 0.35, 0.04))
        for i in np.flatnonzero(shine):
            cx, cy = _MID + rng.normal(0, 1.2, 2)
            if stone[i] and labels[i] == BLACK and rng.random() < 0.6:
                # Reflected room light over the whole disc: a glossy black reads grey.
                disc = np.clip(6.6 - np.hypot(_XX - cx, _YY - cy), 0, 1)
                x[i] += (rng.uniform(0.04, 0.3) * disc)[..., None] * lamp
            for _ in range(int(rng.integers(1, 3))):
                # A lamp's image: small and sharp (lacquer) or broad (satin), often a streak.
                hx, hy = np.array([cx, cy]) + rng.uniform(-4.5, 4.5, 2)
                sx, sy = rng.uniform(0.5, 2.2), rng.uniform(0.5, 2.2) * (rng.uniform(1, 3) if rng.random() < 0.4 else 1)
                t = rng.uniform(0, np.pi)
                u = (_XX - hx) * np.cos(t) + (_YY - hy) * np.sin(t)
                v = -(_XX - hx) * np.sin(t) + (_YY - hy) * np.cos(t)
                blob = np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2))
                x[i] += (rng.uniform(0.3, 1.4) * blob)[..., None] * lamp
    x = np.clip(x, 0, 1)
    if rng.random() < camera_share:
        x = camera(rng, x)
    if rng.random() < 0.35:
        s = rng.uniform(0.3, 1.1)
        x = np.stack([cv2.GaussianBlur(p, (0, 0), s) for p in x])
    x = x + rng.normal(0, rng.uniform(0, 10 if dim else 5) / 255, x.shape).astype(np.float32)
    out = np.clip(x * 255 + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < 0.35:
        # JPEG over the frame's patches stacked (PATCH a multiple of 8: whole 8x8 blocks per patch).
        ok, buf = cv2.imencode(".jpg", out.reshape(n * PATCH, PATCH, 3), [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 92))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR).reshape(out.shape)
    return out


Frame = Tuple[np.ndarray, np.ndarray, int]      # patches (uint8), labels (-1: not an example), room


def load_frames(paths: Sequence[str]) -> List[Frame]:
    """Every frame (one grid's crop of one picture) of the patch chunks ``paths``: its
    patches, labels and room (rooms numbered apart across files)."""
    frames: List[Frame] = []
    for k, path in enumerate(paths):
        d = np.load(path)
        patches, labels, frame, room = d["patches"], d["labels"], d["frame"], d["room"]
        bounds = np.flatnonzero(np.diff(frame)) + 1
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(frame)]):
            frames.append((patches[lo:hi], labels[lo:hi].astype(np.int64), k * 1_000_000 + int(room[lo])))
    return frames


def inputs(frames: Sequence[Frame], rng: np.random.Generator = None, relit: Sequence[bool] = (),
           camera_share: float = 0.0) -> Tuple[np.ndarray, np.ndarray]:
    """(net inputs float16 (N,3,P,P), labels) of the labelled cells of ``frames``, each
    frame preprocessed on its own as the reader does; the frames ``relit`` marks first
    through :func:`relight` (``camera_share`` of them through :func:`camera` too)."""
    xs, ys = [], []
    for i, (patches, labels, _) in enumerate(frames):
        if relit and relit[i]:
            patches = relight(rng, patches, labels, camera_share)
        keep = labels >= 0
        xs.append(net_input(patches)[keep].astype(np.float16))
        ys.append(labels[keep])
    if not xs:
        return np.zeros((0, 3, PATCH, PATCH), np.float16), np.zeros(0, np.int64)
    return np.concatenate(xs), np.concatenate(ys)


def epoch_inputs(seed: int, epoch: int, sim: Sequence[Frame], pbr: Sequence[Frame], sim_share: float,
                 sim_relit: float, pbr_copies: int, camera_share: float = 0.0) -> Tuple[np.ndarray, np.ndarray]:
    """One epoch's examples: a ``sim_share`` of the generated frames (a ``sim_relit``
    share of those relit) and ``pbr_copies`` copies of every physically based frame, all
    but the first relit (a ``camera_share`` of the relit frames through :func:`camera`
    too); drawn from (seed, epoch) alone."""
    rng = np.random.default_rng([seed, epoch])
    take = [f for f in sim if rng.random() < sim_share]
    frames = take + [f for _ in range(pbr_copies) for f in pbr]
    relit = [rng.random() < sim_relit for _ in take] + [c > 0 for c in range(pbr_copies) for _ in pbr]
    return inputs(frames, rng, relit, camera_share)


ARCHS = ("plain", "separable")


def make_net(arch: str = "plain"):
    import torch.nn as nn

    class CellNet(nn.Module):
        """Three 3x3 conv layers (16, 32, 32 channels; the first two with stride two, the
        last pooled: PATCH 32 -> 4 px), a 32-wide feature layer, and the last layer a room
        refits. "plain": about 1.0 M multiply-adds per cell (strided convolutions rather
        than pooled ones halve the time under cv2.dnn). "separable": the third layer
        depthwise then pointwise (0.5 M)."""

        def __init__(self):
            super().__init__()
            if arch == "separable":
                third = [nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.Conv2d(32, 32, 1)]
            else:
                third = [nn.Conv2d(32, 32, 3, padding=1)]
            self.body = nn.Sequential(
                nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
                *third, nn.ReLU(), nn.MaxPool2d(2),
                nn.Flatten(), nn.Linear(32 * (PATCH // 8) ** 2, FEATURES), nn.ReLU())
            self.head = nn.Linear(FEATURES, len(CLASSES))

        def forward(self, x):
            f = self.body(x)
            return self.head(f), f

    if arch not in ARCHS:
        raise ValueError(f"unknown architecture {arch!r} (one of {', '.join(ARCHS)})")
    return CellNet()


def separable_state(torch, plain: dict) -> dict:
    """A "plain" net's weights for a "separable" one: every layer copied but the third,
    which becomes per input channel the best rank-one split of its 3x3 kernels into one
    spatial kernel (depthwise) and one weight per output (pointwise), by the SVD; the
    same net where those kernels are rank one, and a close start where they are not."""
    W, b = plain["body.4.weight"], plain["body.4.bias"]
    out, ins = W.shape[:2]
    depth = torch.zeros(ins, 1, 3, 3)
    point = torch.zeros(out, ins, 1, 1)
    for i in range(ins):
        U, S, Vt = torch.linalg.svd(W[:, i].reshape(out, 9), full_matrices=False)
        depth[i, 0] = (Vt[0] * S[0].sqrt()).reshape(3, 3)
        point[:, i, 0, 0] = U[:, 0] * S[0].sqrt()
    state = {k: v for k, v in plain.items() if not k.startswith("body.4.")}
    for k in [k for k in state if k.startswith("body.") and int(k.split(".")[1]) > 4]:
        state[f"body.{int(k.split('.')[1]) + 1}.{k.split('.', 2)[2]}"] = state.pop(k)
    state.update({"body.4.weight": depth, "body.4.bias": torch.zeros(ins), "body.5.weight": point, "body.5.bias": b})
    return state


def augment(torch, x):
    """Random quarter turns and mirrors of a batch (one draw per batch half)."""
    k = int(torch.randint(0, 4, (1,)))
    x = torch.rot90(x, k, (2, 3))
    if bool(torch.randint(0, 2, (1,))):
        x = torch.flip(x, (3,))
    return x


def distillation(torch, logits, teacher_logits, T: float = 2.0):
    """How far the net's readings are from the teacher's, both softened at temperature
    ``T`` (the KL divergence, times T squared so its gradients keep their scale): the
    teacher's near misses say which cells look alike, which the labels alone do not."""
    F = torch.nn.functional
    return F.kl_div(F.log_softmax(logits / T, dim=1), F.softmax(teacher_logits / T, dim=1),
                    reduction="batchmean") * T * T


def logits_of(torch, net, X: np.ndarray, batch: int = 4096) -> np.ndarray:
    out = []
    with torch.no_grad():
        for i in range(0, len(X), batch):
            out.append(net(torch.from_numpy(X[i:i + batch].astype(np.float32)))[0].numpy())
    return np.concatenate(out) if out else np.zeros((0, len(CLASSES)))


def ece(P: np.ndarray, y: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of the top class's confidence."""
    return calibration_error(P.max(axis=1), P.argmax(axis=1) == y, bins)


def calibration_error(conf: np.ndarray, right: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of confidences ``conf`` against whether each was
    ``right``."""
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs(conf[m].mean() - right[m].mean())
    return float(total)


def nll(logits: np.ndarray, y: np.ndarray, T: float) -> float:
    z = logits / T
    z = z - z.max(axis=1, keepdims=True)
    return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(y)), y]))


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    grid = np.exp(np.linspace(np.log(0.3), np.log(5.0), 200))
    return float(grid[int(np.argmin([nll(logits, y, T) for T in grid]))])


def space_to_depth(torch, conv):
    """The first layer ``conv`` (square, stride two) as a layer of stride one over 2x2
    pixel blocks (:func:`fenix_table.vision.classifier.net_input` with ``blocks``), and
    those blocks: (before, after) blocks of zero padding. Tap ``t`` of the kernel reads
    pixel ``2i - p + t``: block ``i + (2 * before - p + t) // 2``, its row
    ``(2 * before - p + t) % 2``; so the layer gives the same outputs to float rounding."""
    import torch.nn as nn
    k, p = conv.kernel_size[0], conv.padding[0]
    if conv.stride != (2, 2) or conv.kernel_size != (k, k) or conv.padding != (p, p):
        raise ValueError("space_to_depth needs a square first layer of stride two")
    before = (p + 1) // 2
    reach = [(2 * before - p + t) for t in range(k)]
    size = reach[-1] // 2 + 1
    out = (PATCH + 2 * p - k) // 2 + 1
    after = max(0, out + size - 1 - PATCH // 2 - before)
    W = conv.weight.detach()
    blocked = torch.zeros(W.shape[0], 4 * W.shape[1], size, size)
    for ty, ry in enumerate(reach):
        for tx, rx in enumerate(reach):
            for c in range(W.shape[1]):
                blocked[:, 4 * c + 2 * (ry % 2) + rx % 2, ry // 2, rx // 2] = W[:, c, ty, tx]
    layer = nn.Conv2d(4 * W.shape[1], W.shape[0], size)
    with torch.no_grad():
        layer.weight.copy_(blocked)
        layer.bias.copy_(conv.bias.detach())
    return layer, (before, after)


def exported_state(torch, model_path: str, head_path: str) -> dict:
    """A "plain" net's weights read back from its export (:func:`export`): the first
    layer from 2x2 pixel blocks back to stride two (:func:`space_to_depth` undone) and the
    temperature (``head_path``'s) taken out of the last layer again. What fine-tuning the
    shipped model starts from when its checkpoint is gone."""
    import onnx
    from onnx import numpy_helper
    with open(head_path, encoding="utf-8") as fh:
        T = float(json.load(fh).get("temperature", 1.0))
    stored = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy())
              for i in onnx.load(model_path).graph.initializer}
    state = make_net("plain").state_dict()
    if set(stored) != set(state):
        raise ValueError(f"{model_path} is not a plain cell net's export")
    conv = state["body.0.weight"]
    blocked = stored.pop("body.0.weight")
    k, p = conv.shape[2], 1
    before = (p + 1) // 2
    first = torch.zeros_like(conv)
    for ty in range(k):
        ry = 2 * before - p + ty
        for tx in range(k):
            rx = 2 * before - p + tx
            for c in range(conv.shape[1]):
                first[:, c, ty, tx] = blocked[:, 4 * c + 2 * (ry % 2) + rx % 2, ry // 2, rx // 2]
    state.update(stored)
    state["body.0.weight"] = first
    state["head.weight"] = stored["head.weight"] * T
    state["head.bias"] = stored["head.bias"] * T
    return state


def interpolated(start: dict, trained: dict, share: float) -> dict:
    """The weights ``share`` of the way from ``start`` to ``trained`` (two states of one
    net): fine-tuned weights pulled back toward the ones they started from, which keep
    what the start read well outside the fine-tuning's examples (Wortsman et al.,
    "Robust fine-tuning of zero-shot models", 2022: WiSE-FT)."""
    if set(start) != set(trained):
        raise ValueError("the two states are not of one net")
    return {k: (1 - share) * start[k] + share * trained[k] for k in start}


def export(torch, net, T: float, model_out: str, head_out: str, note: str) -> None:
    """Write the ONNX model (temperature folded into the last layer; the first layer over
    2x2 pixel blocks, :func:`space_to_depth`; outputs "logits" and "features") and the
    last layer's weights, and the blocks the model takes, as JSON."""
    import copy
    folded = copy.deepcopy(net).eval()
    with torch.no_grad():
        folded.head.weight /= T
        folded.head.bias /= T
    folded.body[0], blocks = space_to_depth(torch, folded.body[0])
    side = PATCH // 2 + sum(blocks)
    dummy = torch.zeros(1, 12, side, side)
    torch.onnx.export(folded, (dummy,), model_out, input_names=["patches"], output_names=["logits", "features"],
                      dynamic_axes={"patches": {0: "cells"}, "logits": {0: "cells"}, "features": {0: "cells"}},
                      opset_version=13, dynamo=False)
    head = {"classes": list(CLASSES), "temperature": round(T, 4), "note": note,
            "outputs": ["logits", "features"], "blocks": list(blocks),
            "W": np.round(folded.head.weight.detach().numpy().astype(float), 7).tolist(),
            "b": np.round(folded.head.bias.detach().numpy().astype(float), 7).tolist()}
    with open(head_out, "w", encoding="utf-8") as fh:
        json.dump(head, fh, separators=(",", ":"))
        fh.write("\n")


def error_line(torch, net, label: str, X: np.ndarray, y: np.ndarray) -> str:
    """``label``'s cell errors, and how many of them are black stones read as empty."""
    guess = logits_of(torch, net, X).argmax(axis=1)
    miss = int((guess == EMPTY)[y == BLACK].sum())
    return f"{label} {100 * (guess != y).mean():.3f}% of {len(y)} ({miss} black read as empty)"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description="train, calibrate and export the cell CNN")
    parser.add_argument("--root", default=ROOT)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--train", default="sim-101-*.npz", help="patch files under ROOT/patches (globs, comma-separated)")
    parser.add_argument("--boards", default="*.npz",
                        help="rendered boards under tools/reader-data (globs, comma-separated; '' for none)")
    parser.add_argument("--held-out", default="sim-201-*.npz", help="generated rooms held out (tuning)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sim-share", type=float, default=0.5, help="share of the generated frames drawn each epoch")
    parser.add_argument("--sim-relit", type=float, default=0.5, help="share of those relit (relight)")
    parser.add_argument("--pbr-copies", type=int, default=3,
                        help="copies of each physically based training frame per epoch, all but one relit")
    parser.add_argument("--camera", type=float, default=0.0,
                        help="share of the relit frames also seen through another camera (camera)")
    parser.add_argument("--pbr-every", type=int, default=5,
                        help="every this many physically based train rooms one is held out (0: none)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", help="start from this checkpoint's weights (fine-tuning)")
    parser.add_argument("--interpolate", type=float, default=1.0,
                        help="export the weights this share of the way from --init's to the trained ones (interpolated)")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--arch", default="plain", choices=ARCHS, help="see make_net")
    parser.add_argument("--teacher", help="a plain net's checkpoint whose readings the net also learns (distillation)")
    parser.add_argument("--kd", type=float, default=0.5, help="the teacher's share of the loss")
    parser.add_argument("--out", default=MODEL_OUT)
    parser.add_argument("--head-out", default=HEAD_OUT)
    args = parser.parse_args(list(argv))
    if args.interpolate != 1.0 and not args.init:
        parser.error("--interpolate needs --init (the weights it starts from)")
    import torch
    torch.set_num_threads(min(args.threads, 2))
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    # (".tmp.npz": a chunk still being written)
    pick = lambda spec, folder: sorted(p for g in spec.split(",") if g for p in glob.glob(os.path.join(folder, g))
                                       if not p.endswith(".tmp.npz"))
    patch_dir = os.path.join(args.root, "patches")
    train_files, held_files = pick(args.train, patch_dir), pick(args.held_out, patch_dir)
    board_files = pick(args.boards, boards.DATA)
    if not held_files or not (train_files or board_files):
        print(f"no patch files under {args.root}/patches (run fenix_tools.cnn.data first)", file=sys.stderr)
        return 2
    sim = load_frames(train_files)
    pbr_all = boards.load(board_files)
    # A fold of whole rooms (both crops of a picture) held out, never a crop of a room trained on.
    fold = [args.pbr_every > 0 and room % args.pbr_every == 0 for _, _, room in pbr_all]
    pbr = [f for f, held in zip(pbr_all, fold) if not held]
    Xp, yp = inputs([f for f, held in zip(pbr_all, fold) if held])
    Xh, yh = inputs(load_frames(held_files))
    print(f"training frames: {len(sim)} generated (a {args.sim_share} share each epoch), {len(pbr)} physically "
          f"based x {args.pbr_copies}; held out {len(yh)} generated cells, {len(yp)} physically based", flush=True)
    net = make_net(args.arch)
    if args.init:
        if args.init.endswith(".onnx"):
            state = exported_state(torch, args.init, args.init[:-len(".onnx")] + ".json")
        else:
            state = torch.load(args.init)["net"]
        if args.arch == "separable" and "body.5.weight" not in state:
            state = separable_state(torch, state)
        net.load_state_dict(state)
        start = {k: v.clone() for k, v in net.state_dict().items()}
        net.eval()
        print(error_line(torch, net, "before: held-out generated", Xh, yh) + ", "
              + error_line(torch, net, "physically based", Xp, yp), flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    ckdir = os.path.join(args.root, "checkpoints")
    os.makedirs(ckdir, exist_ok=True)
    teacher = None
    if args.teacher:
        teacher = make_net("plain")
        teacher.load_state_dict(torch.load(args.teacher)["net"])
        teacher.eval().requires_grad_(False)
    tag = (f"cnn-{args.arch}-s{args.seed}-e{args.epochs}-g{args.sim_share:g}-p{args.pbr_copies}x{len(pbr)}"
           + (f"-cam{args.camera:g}" if args.camera else "")
           + (f"-kd{args.kd:g}-{os.path.basename(args.teacher)[:-3]}" if args.teacher else "")
           + (f"-ft-{os.path.splitext(os.path.basename(args.init))[0]}-lr{args.lr:g}" if args.init else ""))
    first = 0
    done = sorted(glob.glob(os.path.join(ckdir, f"{tag}-[0-9][0-9][0-9].pt")))
    if done:
        state = torch.load(done[-1])
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        first = state["epoch"] + 1
        torch.set_rng_state(state["rng"])
        print(f"resumed from {done[-1]}", flush=True)
    batch = 512
    for epoch in range(first, args.epochs):
        X, y = epoch_inputs(args.seed, epoch, sim, pbr, args.sim_share, args.sim_relit, args.pbr_copies, args.camera)
        # Classes weighted toward balance: black stones are the rarest and the hardest.
        weight = torch.tensor(len(y) / (3.0 * np.bincount(y, minlength=3)), dtype=torch.float32) ** 0.5
        loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
        net.train()
        order = torch.randperm(len(y)).numpy()
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            xb = augment(torch, torch.from_numpy(X[idx].astype(np.float32))).contiguous()
            logits = net(xb)[0]
            loss = loss_fn(logits, torch.from_numpy(y[idx]))
            if teacher is not None:
                loss = (1 - args.kd) * loss + args.kd * distillation(torch, logits, teacher(xb)[0])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        sched.step()
        net.eval()
        print(f"epoch {epoch}: {len(y)} cells, loss {total / len(y):.4f}; "
              + error_line(torch, net, "held-out generated", Xh, yh) + "; "
              + error_line(torch, net, "physically based", Xp, yp), flush=True)
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch, "rng": torch.get_rng_state()},
                   os.path.join(ckdir, f"{tag}-{epoch:03d}.pt"))
    net.eval()
    if args.interpolate != 1.0:
        net.load_state_dict(interpolated(start, net.state_dict(), args.interpolate))
        print(f"interpolated {args.interpolate:g} of the way from --init: " + error_line(torch, net, "held-out generated", Xh, yh)
              + "; " + error_line(torch, net, "physically based", Xp, yp), flush=True)
    Xt, yt = np.concatenate([Xh, Xp]), np.concatenate([yh, yp])
    L = logits_of(torch, net, Xt)
    T = fit_temperature(L, yt)
    print(f"temperature {T:.3f}: held-out ECE {100 * ece(softmax(L), yt):.3f}% -> "
          f"{100 * ece(softmax(L / T), yt):.3f}%, NLL {nll(L, yt, 1.0):.4f} -> {nll(L, yt, T):.4f}", flush=True)
    boards_arg = args.boards or "''"
    init = f"--init {os.path.basename(args.init)} --lr {args.lr} " if args.init else f"--lr {args.lr} "
    if args.interpolate != 1.0:
        init += f"--interpolate {args.interpolate:g} "
    note = (f"trained by python -m fenix_tools.cnn.train --arch {args.arch} --epochs {args.epochs} --seed {args.seed} "
            f"--sim-share {args.sim_share} --sim-relit {args.sim_relit} --pbr-copies {args.pbr_copies} "
            + (f"--camera {args.camera} " if args.camera else "")
            + f"--pbr-every {args.pbr_every} {init}--train {args.train} --boards {boards_arg} --held-out {args.held_out}"
            + (f" --teacher {os.path.basename(args.teacher)} --kd {args.kd:g}" if args.teacher else ""))
    export(torch, net, T, args.out, args.head_out, note)
    print(f"wrote {args.out} and {args.head_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

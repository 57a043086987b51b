"""Train the cell CNN, calibrate its confidences and export it into the package.

    PYTHONPATH=tools python -m fenix_tools.cnn.train [--epochs 12] [--root /work/data/reader]

Examples are the patch chunks :mod:`.data` wrote under ``ROOT/patches``: the generated
rooms of seed 101 (and the physically based renderer's ``pbr-train.npz`` when present)
train; seed 201's rooms are held out to pick the temperature that makes the confidences
honest (temperature scaling, by the negative log-likelihood; the expected calibration
error before and after is printed). Each frame's patches go through
:func:`fenix_table.vision.classifier.net_input`, the reader's own preprocessing, with the
patches turned and mirrored at random (the board's cells have no preferred side: the lamp
and the camera may stand anywhere), and every training frame once more in other light
(:func:`photometric`).

The physically based frames are few: each gets ``--pbr-copies`` copies in other light,
and every ``--pbr-every``-th one is held out (with its copies) and its error printed per
epoch, to tell whether they help. The shipped model was trained in two steps:

    python -m fenix_tools.cnn.train --epochs 3 --copies 1              # seed 101's 400 rooms
    python -m fenix_tools.cnn.train --epochs 2 --lr 5e-4 \
        --init ROOT/checkpoints/cnn-s0-e3-c1-n322840-002.pt \
        --train 'sim-101-00[0-5].npz,pbr-train.npz'                     # + the first 72 pbr frames

Single-process, ``torch.set_num_threads(2)`` at most; a checkpoint after every epoch in
``ROOT/checkpoints`` (the run resumes from the newest). Deterministic for a seed. The
exported ``fenix_table/vision/cell_cnn.onnx`` carries the temperature folded into its
last layer, and ``cell_cnn.json`` that layer's weights (what a room is refitted from).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from typing import Sequence, Tuple

import numpy as np

from fenix_table.vision.classifier import CLASSES, HEAD_PATH, MODEL_PATH, PATCH, net_input
from fenix_table.vision.colour import softmax

from .. import CHECKOUT
from .data import ROOT

MODEL_OUT = os.path.join(CHECKOUT, "fenix_table", "vision", os.path.basename(MODEL_PATH))
HEAD_OUT = os.path.join(CHECKOUT, "fenix_table", "vision", os.path.basename(HEAD_PATH))
FEATURES = 32


def photometric(rng: np.random.Generator, patches: np.ndarray) -> np.ndarray:
    """One frame's patches in other light: a colour cast, brighter or dimmer, another
    gamma, more sensor noise (every room's cells are alike, so new rooms are what teach)."""
    x = patches.astype(np.float32) / 255.0
    x = x ** np.exp(rng.normal(0, 0.2))
    x = x * np.exp(rng.normal(0, 0.1, 3)) * np.exp(rng.uniform(-0.7, 0.25))
    x = x * 255.0 + rng.normal(0, rng.uniform(0, 4), x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def load(paths: Sequence[str], copies: int = 0, seed: int = 0
         ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(inputs float16 (N,3,P,P), labels, room, frame, start) of every labelled cell in
    ``paths``, each frame preprocessed on its own as the reader does, and ``copies``
    more of each frame in other light (:func:`photometric`); rooms and frames numbered
    apart across files."""
    rng = np.random.default_rng(seed)
    xs, ys, rs, fs, ss = [], [], [], [], []
    frames = 0
    for k, path in enumerate(paths):
        d = np.load(path)
        patches, labels, frame, room, start = d["patches"], d["labels"], d["frame"], d["room"], d["start"]
        bounds = np.flatnonzero(np.diff(frame)) + 1
        spans = list(zip(np.r_[0, bounds], np.r_[bounds, len(frame)]))
        for copy, (lo, hi) in [(c, span) for c in range(1 + copies) for span in spans]:
            keep = labels[lo:hi] >= 0
            n = int(keep.sum())
            p = patches[lo:hi] if copy == 0 else photometric(rng, patches[lo:hi])
            xs.append(net_input(p)[keep].astype(np.float16))
            ys.append(labels[lo:hi][keep].astype(np.int64))
            rs.append(np.full(n, k * 1_000_000 + int(room[lo]), np.int64))
            fs.append(np.full(n, frames, np.int64))
            ss.append(np.full(n, bool(start[lo]), np.bool_))
            frames += 1
    return tuple(np.concatenate(a) for a in (xs, ys, rs, fs, ss))


def make_net():
    import torch.nn as nn

    class CellNet(nn.Module):
        """Three 3x3 conv layers (16, 32, 32 channels; the first two with stride two, the
        last pooled: 24 -> 3 px), a 32-wide feature layer, and the last layer a room
        refits. About 0.57 M multiply-adds per cell: strided convolutions rather than
        pooled ones halve the time of the 81 cells of a 9x9 frame under cv2.dnn
        (10 -> 5.6 ms on one core here)."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Flatten(), nn.Linear(32 * (PATCH // 8) ** 2, FEATURES), nn.ReLU())
            self.head = nn.Linear(FEATURES, len(CLASSES))

        def forward(self, x):
            f = self.body(x)
            return self.head(f), f

    return CellNet()


def augment(torch, x):
    """Random quarter turns and mirrors of a batch (one draw per batch half)."""
    k = int(torch.randint(0, 4, (1,)))
    x = torch.rot90(x, k, (2, 3))
    if bool(torch.randint(0, 2, (1,))):
        x = torch.flip(x, (3,))
    return x


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


def export(torch, net, T: float, model_out: str, head_out: str, note: str) -> None:
    """Write the ONNX model (temperature folded into the last layer; outputs "logits"
    and "features") and the last layer's weights as JSON."""
    import copy
    folded = copy.deepcopy(net).eval()
    with torch.no_grad():
        folded.head.weight /= T
        folded.head.bias /= T
    dummy = torch.zeros(1, 3, PATCH, PATCH)
    torch.onnx.export(folded, (dummy,), model_out, input_names=["patches"], output_names=["logits", "features"],
                      dynamic_axes={"patches": {0: "cells"}, "logits": {0: "cells"}, "features": {0: "cells"}},
                      opset_version=13, dynamo=False)
    head = {"classes": list(CLASSES), "temperature": round(T, 4), "note": note,
            "outputs": ["logits", "features"],
            "W": np.round(folded.head.weight.detach().numpy().astype(float), 7).tolist(),
            "b": np.round(folded.head.bias.detach().numpy().astype(float), 7).tolist()}
    with open(head_out, "w", encoding="utf-8") as fh:
        json.dump(head, fh, separators=(",", ":"))
        fh.write("\n")


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description="train, calibrate and export the cell CNN")
    parser.add_argument("--root", default=ROOT)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--train", default="sim-101-*.npz,pbr-train.npz", help="patch files (globs, comma-separated)")
    parser.add_argument("--held-out", default="sim-201-*.npz", help="for the temperature")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--copies", type=int, default=1, help="more copies of each training frame in other light")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", help="start from this checkpoint's weights (fine-tuning)")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--pbr-copies", type=int, default=3,
                        help="copies in other light of each physically based training frame")
    parser.add_argument("--pbr-every", type=int, default=5,
                        help="every this many physically based training frames one is held out (0: none)")
    parser.add_argument("--out", default=MODEL_OUT)
    parser.add_argument("--head-out", default=HEAD_OUT)
    args = parser.parse_args(list(argv))
    import torch
    torch.set_num_threads(min(args.threads, 2))
    torch.manual_seed(args.seed)
    # (".tmp.npz": a chunk still being written)
    pick = lambda spec: sorted(p for g in spec.split(",") for p in glob.glob(os.path.join(args.root, "patches", g))
                               if not p.endswith(".tmp.npz"))
    train_files, held_files = pick(args.train), pick(args.held_out)
    if not train_files or not held_files:
        print(f"no patch files under {args.root}/patches (run fenix_tools.cnn.data first)", file=sys.stderr)
        return 2
    sim_files = [p for p in train_files if not os.path.basename(p).startswith("pbr-")]
    pbr_files = [p for p in train_files if os.path.basename(p).startswith("pbr-")]
    X, y = load(sim_files, args.copies, args.seed)[:2]
    Xp = np.zeros((0,) + X.shape[1:], X.dtype)
    yp = np.zeros(0, y.dtype)
    for path in pbr_files:
        # The physically based frames are few: more copies of each in other light, and
        # every ``pbr_every``-th frame held out (with its copies) to tell whether they help.
        Xo, yo, _, frame_o, _ = load([path])
        frames = int(frame_o.max()) + 1
        Xq, yq, _, frame_q, _ = load([path], args.pbr_copies, args.seed)
        if args.pbr_every:
            held_o, held_q = frame_o % args.pbr_every == 0, (frame_q % frames) % args.pbr_every == 0
        else:
            held_o, held_q = np.zeros(len(yo), bool), np.zeros(len(yq), bool)
        X, y = np.concatenate([X, Xq[~held_q]]), np.concatenate([y, yq[~held_q]])
        Xp, yp = np.concatenate([Xp, Xo[held_o]]), np.concatenate([yp, yo[held_o]])
    Xh, yh = load(held_files)[:2]
    print(f"training cells {len(y)} from {len(train_files)} files, held out {len(yh)}; "
          f"classes {np.bincount(y, minlength=3).tolist()}", flush=True)
    net = make_net()
    if args.init:
        net.load_state_dict(torch.load(args.init)["net"])
        net.eval()
        if len(yp):
            print(f"before: held-out physically based cells "
                  f"{100 * (logits_of(torch, net, Xp).argmax(axis=1) != yp).mean():.3f}%", flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    ckdir = os.path.join(args.root, "checkpoints")
    os.makedirs(ckdir, exist_ok=True)
    tag = f"cnn-s{args.seed}-e{args.epochs}-c{args.copies}-n{len(y)}" + ("-ft" if args.init else "")
    first = 0
    done = sorted(glob.glob(os.path.join(ckdir, f"{tag}-*.pt")))
    if done:
        state = torch.load(done[-1])
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        first = state["epoch"] + 1
        torch.set_rng_state(state["rng"])
        print(f"resumed from {done[-1]}", flush=True)
    # Classes weighted toward balance: black stones are the rarest and the hardest.
    weight = torch.tensor(len(y) / (3.0 * np.bincount(y, minlength=3)), dtype=torch.float32) ** 0.5
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    batch = 512
    for epoch in range(first, args.epochs):
        net.train()
        order = torch.randperm(len(y)).numpy()
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            xb = augment(torch, torch.from_numpy(X[idx].astype(np.float32))).contiguous()
            loss = loss_fn(net(xb)[0], torch.from_numpy(y[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        sched.step()
        net.eval()
        err = (logits_of(torch, net, Xh).argmax(axis=1) != yh).mean()
        line = f"epoch {epoch}: loss {total / len(y):.4f}, held-out errors {100 * err:.3f}%"
        if len(yp):
            line += f", held-out physically based cells {100 * (logits_of(torch, net, Xp).argmax(axis=1) != yp).mean():.3f}%"
        print(line, flush=True)
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch, "rng": torch.get_rng_state()},
                   os.path.join(ckdir, f"{tag}-{epoch:03d}.pt"))
    net.eval()
    L = logits_of(torch, net, Xh)
    T = fit_temperature(L, yh)
    print(f"temperature {T:.3f}: held-out ECE {100 * ece(softmax(L), yh):.3f}% -> "
          f"{100 * ece(softmax(L / T), yh):.3f}%, NLL {nll(L, yh, 1.0):.4f} -> {nll(L, yh, T):.4f}", flush=True)
    init = f"--init {os.path.basename(args.init)} --lr {args.lr} " if args.init else ""
    note = (f"trained by python -m fenix_tools.cnn.train --epochs {args.epochs} --seed {args.seed} "
            f"--copies {args.copies} {init}--train {args.train} --held-out {args.held_out} ({len(y)} cells)")
    export(torch, net, T, args.out, args.head_out, note)
    print(f"wrote {args.out} and {args.head_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

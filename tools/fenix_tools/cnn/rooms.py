"""How much a room's start frame teaches the shipped CNN: per held-out room, the last layer
refitted on its start frame (:class:`fenix_table.vision.classifier.RoomHead`) reads its
game frames, against the shipped layer alone; and refitted on the start frame and the
room's first game frame (a board the referee confirmed), the last game frame.

    PYTHONPATH=tools python -m fenix_tools.cnn.rooms [--files 'sim-201-*.npz'] [--pulls 0.01,0.1,1]

Runs the package's own classifier (ONNX through cv2.dnn) on the patch chunks of
:mod:`.data`; the pull toward the shipped weights is the knob it tunes (tuning set: the
held-out seed of the generator, never a benchmark's).
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
from typing import Sequence

import numpy as np

from fenix_table.vision.classifier import RoomHead, shipped_classifier

from .data import ROOT


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description="start-frame adaptation on held-out rooms")
    parser.add_argument("--root", default=ROOT)
    parser.add_argument("--files", default="sim-201-*.npz")
    parser.add_argument("--pulls", default="0.003,0.01,0.03,0.1,0.3")
    parser.add_argument("--steps", type=int, default=RoomHead.learn.__defaults__[1])
    parser.add_argument("--confirm-pull", type=float, default=RoomHead.learn.__defaults__[0])
    args = parser.parse_args(list(argv))
    clf = shipped_classifier()
    pulls = [float(v) for v in args.pulls.split(",")]
    cells = 0
    before = 0
    after = {p: 0 for p in pulls}
    rooms = 0
    late_cells = 0
    late = {"shipped": 0, "start": 0, "start+confirmed": 0}
    for path in sorted(glob.glob(os.path.join(args.root, "patches", args.files))):
        d = np.load(path)
        frame, room, start, labels = d["frame"], d["room"], d["start"], d["labels"]
        for r in np.unique(room):
            in_room = room == r
            frames = np.unique(frame[in_room])
            starts = [f for f in frames if start[frame == f][0]]
            games = [f for f in frames if not start[frame == f][0]]
            if not starts or not games:
                continue
            rooms += 1
            s = frame == starts[0]
            _, feats = clf.embed(d["patches"][s])
            heads = {}
            for p in pulls:
                try:
                    heads[p] = RoomHead.learn(feats, labels[s], clf.W, clf.b, pull=p, steps=args.steps)
                except ValueError:
                    heads[p] = None
            for g in games:
                m = frame == g
                y = labels[m]
                logits, feats_g = clf.embed(d["patches"][m])
                keep = y >= 0
                cells += int(keep.sum())
                before += int((logits.argmax(axis=1) != y)[keep].sum())
                for p, head in heads.items():
                    z = logits if head is None else head.logits(feats_g)
                    after[p] += int((z.argmax(axis=1) != y)[keep].sum())
            # A confirmed board as well: the first game frame teaches, the last is read.
            first, last = frame == games[0], frame == games[-1]
            if games[0] == games[-1]:
                continue
            _, feats_first = clf.embed(d["patches"][first])
            logits, feats_last = clf.embed(d["patches"][last])
            y = labels[last]
            keep = y >= 0
            late_cells += int(keep.sum())
            p = args.confirm_pull
            try:
                one = RoomHead.learn(feats, labels[s], clf.W, clf.b, pull=p, steps=args.steps)
                both = RoomHead.learn(np.vstack([feats, feats_first]), np.concatenate([labels[s], labels[first]]),
                                      clf.W, clf.b, pull=p, steps=args.steps)
            except ValueError:
                continue
            late["shipped"] += int((logits.argmax(axis=1) != y)[keep].sum())
            late["start"] += int((one.logits(feats_last).argmax(axis=1) != y)[keep].sum())
            late["start+confirmed"] += int((both.logits(feats_last).argmax(axis=1) != y)[keep].sum())
    print(f"{rooms} rooms, {cells} game-frame cells: shipped layer {before} errors "
          f"({100 * before / max(cells, 1):.3f}%)")
    for p, e in after.items():
        print(f"  refitted on the start frame, pull {p}: {e} errors ({100 * e / max(cells, 1):.3f}%)")
    print(f"last game frame of each room, {late_cells} cells (pull {args.confirm_pull}): "
          + ", ".join(f"{k} {e} errors ({100 * e / max(late_cells, 1):.3f}%)" for k, e in late.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

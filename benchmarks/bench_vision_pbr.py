"""Vision on physically based renders of rooms no training saw.

The frames are the eval split of :mod:`fenix_tools.pbr` (Mitsuba 3 path tracing: glossy
and lacquered stones, wood and cloth tables, lamps, sun and dim evening light, lens
distortion, hands, camera noise and JPEG; see tools/README.md). Its rooms are of scene
families the train split never draws (a held-out table, light setup or stone finish in
every room) and of other seeds. Each room has a start-position frame and a game frame
from the same camera, some a third frame with a hand over the game position.

Figures printed, through the package's public vision API only (``locate_board``,
``CellReader``, ``calibrate_from_position``, ``calibrate_reader``, ``Calibration``), so they
measure whatever reader and locator the package has:

* board located (right side, every cell centre within a quarter cell of the truth) on
  hand-free frames, located from scratch; wrong grids (a grid returned that is not the
  board's) and wrong board side, on every frame;
* cell colour errors out of the box (the game frame read through its own located grid),
  calibrated from the start frame (as the table does in a game), and through the exact
  grid (the homography that best fits the true grid points; default and calibrated), to
  tell locating errors from reading errors. Cells a hand covers are left out. Each
  colour line ends with how far its figure could move with other rooms of the same
  kinds (the 90% interval over the rooms resampled) and the most errors in one room:
  a change smaller than that interval is not shown to be one;
* at the table: each room's start, game and hand frames through :class:`Vision`, as the
  table runs it, each shown :data:`SHOWN` times in a row: in how many rooms the start
  and the game position came out as still observations (a frame flagged with a hand
  never does: a room whose light looks like an arm in every frame is a room where the
  table sees no move), the game position's still reading against the truth, and how
  many frames of a hand over cells came out as still boards;
* after a restart: each room's game frame through a fresh :class:`Vision`, as a table
  that resumes the game runs it: told the game's position (:meth:`Vision.expect`), and
  as before that, with only the start position to learn the room from; in how many rooms
  the room was learned, and the still readings against the truth;
* the later position (rooms rendered with one: a few plies after the game frame, last):
  its still reading at the table (after the start frame's room and the game board the
  referee confirmed) and after a restart (with the room the game frame taught): frames
  that taught nothing, read with what others taught;
* locating time per frame (one core).

    python benchmarks/bench_vision_pbr.py [--root /work/data/pbr] [--render ROOMS] [--split eval|train|tune]

``--split train`` measures locating alone on the train split's frames (single frames,
no rooms to read through): the locator is tuned on those, so they are not held out.
``--split tune`` measures the tune split's rooms as the eval's: rooms of kinds no model
trains on, for tuning the reader (so never held out).

``--render ROOMS`` first renders the eval split's first ROOMS rooms that are missing
(Mitsuba from the ``pbr`` extra; about 15 s a frame on two cores).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from fenix_table.board import cell_names, dimensions  # noqa: E402
from fenix_table.errors import BoardNotFoundError, NotationError  # noqa: E402
from fenix_table.vision import (Calibration, CellReader, Vision, calibrate_from_position, calibrate_reader,  # noqa: E402
                                locate_board)
from fenix_table.rules import Position  # noqa: E402
from fenix_tools.pbr import dataset  # noqa: E402


def true_centres(truth: Dict) -> Tuple[List[str], np.ndarray]:
    names = list(cell_names(truth["board"]))
    return names, np.array([truth["cell_centres"][n] for n in names], float)


def grid_matches(cal: Calibration, truth: Dict) -> bool:
    """Every located cell centre within a quarter cell of a distinct true one."""
    names, centres = true_centres(truth)
    cols, _ = dimensions(truth["board"])
    hits = set()
    for x, y in cal.cell_centres().values():
        d = np.sqrt(((centres - (x, y)) ** 2).sum(axis=1))
        k = int(np.argmin(d))
        # The local cell size: distance to the true neighbour along the file or rank.
        f = k % cols
        nb = k + 1 if f + 1 < cols else k - 1
        if d[k] > 0.25 * np.linalg.norm(centres[nb] - centres[k]):
            return False
        hits.add(k)
    return len(hits) == len(names)


class Tally:
    def __init__(self):
        self.frames = self.cells = self.wrong = 0
        self.by: Dict[str, List[int]] = {}
        self.confusion: Dict[Tuple[str, str], int] = {}
        self.rooms: Dict[int, List[int]] = {}        # room seed: [wrong, cells]
        self.turned = 0     # frames read through a grid oriented with a1 on another corner

    def add(self, obs, cal: Calibration, truth: Dict) -> None:
        """Count ``obs``'s colours, each cell against the true cell nearest its centre (a
        grid turned against the board's names still reads its colours; that is counted
        apart, as ``turned``, when the grid claims to know its a1)."""
        names, centres = true_centres(truth)
        covered = set(truth.get("hand_cells", ()))
        self.frames += 1
        misnamed = 0
        for name, (x, y) in cal.cell_centres().items():
            tname = names[int(np.argmin(((centres - (x, y)) ** 2).sum(axis=1)))]
            misnamed += tname != name
            if tname in covered:
                continue
            colour = truth["placement"].get(tname, ["empty"])[0]
            seen = obs.cells[name].color
            bad = seen != colour
            self.cells += 1
            self.wrong += bad
            room = self.rooms.setdefault(int(truth["seed"]), [0, 0])
            room[0] += bad
            room[1] += 1
            if bad:
                self.confusion[(colour, seen)] = self.confusion.get((colour, seen), 0) + 1
            for key in kinds_of(truth):
                e = self.by.setdefault(key, [0, 0])
                e[0] += bad
                e[1] += 1
        self.turned += bool(cal.oriented and 2 * misnamed > len(names))

    def line(self, label: str) -> str:
        pct = lambda a, b: 100.0 * a / b if b else float("nan")
        conf = ", ".join(f"{t}->{s} {n}" for (t, s), n in sorted(self.confusion.items(), key=lambda kv: -kv[1]))
        return (f"{label}: colour errors {self.wrong} of {self.cells} cells ({pct(self.wrong, self.cells):.3f}%) "
                f"in {self.frames} frames" + (f" [{conf}]" if conf else "") + self.spread()
                + f"; a1 on another corner of an oriented grid in {self.turned} frames")

    def spread(self) -> str:
        """How far the figure could move with other rooms of the same kinds: the 90% interval
        of the error rate over the rooms resampled (a bootstrap, seeded), and the most
        errors in one room. A change smaller than the interval is not shown to be one."""
        if not self.rooms or not self.wrong:
            return ""
        counts = np.array(list(self.rooms.values()), float)
        rng = np.random.default_rng(0)
        draws = counts[rng.integers(0, len(counts), (2000, len(counts)))].sum(axis=1)
        lo, hi = np.percentile(100.0 * draws[:, 0] / draws[:, 1], [5, 95])
        return (f"; over {len(counts)} rooms 90% in {lo:.3f}-{hi:.3f}%, "
                f"{int(counts[:, 0].max())} of the {self.wrong} in one room")

    def breakdown(self) -> str:
        pct = lambda a, b: 100.0 * a / b if b else float("nan")
        return "; ".join(f"{k} {e}/{n} ({pct(e, n):.2f}%)" for k, (e, n) in sorted(self.by.items()))


def kinds_of(truth: Dict) -> List[str]:
    """The kinds a frame's room is of, as the breakdowns name them: its board face, and its
    family's table, light and stone finish."""
    return [truth["board"], *(f"{k}={v}" for k, v in zip(("table", "light", "finish"), truth["family"].split("/")))]


def renderer_of(split: str, root: Optional[str]) -> str:
    """Which renderer made the split's frames, from its first frame's truth: the Mitsuba 3
    family (:mod:`fenix_tools.pbr`) or Blender Cycles (:mod:`fenix_tools.cycles`)."""
    names = dataset.names(split, root)
    if not names:
        return "no frames"
    with open(os.path.join(dataset.frame_dir(split, root), names[0] + ".json"), encoding="utf-8") as fh:
        made_by = json.load(fh).get("renderer", "mitsuba")
    return "Blender Cycles" if made_by.startswith("cycles") else "Mitsuba 3"


def new_tallies() -> Dict:
    """Located frames, with and without a hand (``by``: [found, frames] per kind)."""
    return {k: {"frames": 0, "found": 0, "wrong_grid": 0, "wrong_side": 0, "missed": [], "wrong_names": [], "by": {}}
            for k in ("clear", "hand")}


def locate(bgr: np.ndarray, truth: Dict, tallies: Dict, times: List[Tuple[float, float]]) -> Optional[Calibration]:
    """Locate from scratch; count found / wrong grid / wrong side; return the grid only
    when it is the board's."""
    t0, c0 = time.perf_counter(), time.thread_time()
    try:
        cal = locate_board(bgr)
    except BoardNotFoundError:
        cal = None
    # Wall time, and this thread's CPU time: on a shared machine only the second is the
    # one-core cost.
    times.append((1000 * (time.perf_counter() - t0), 1000 * (time.thread_time() - c0)))
    key = "hand" if truth.get("hand") else "clear"
    tallies[key]["frames"] += 1
    kinds = [tallies[key]["by"].setdefault(k, [0, 0]) for k in kinds_of(truth)]
    for e in kinds:
        e[1] += 1
    if cal is None:
        tallies[key]["missed"].append(truth["name"])
        return None
    if cal.board != truth["board"]:
        tallies[key]["wrong_side"] += 1
        tallies[key]["wrong_names"].append(truth["name"] + " (side)")
        return None
    if not grid_matches(cal, truth):
        tallies[key]["wrong_grid"] += 1
        tallies[key]["wrong_names"].append(truth["name"])
        return None
    tallies[key]["found"] += 1
    for e in kinds:
        e[0] += 1
    return cal


SHOWN = 6      # times the table is shown each frame (a still board for the stability filter)


def at_the_table(room: Dict, still: Tally, taken: List[str], later: Tally) -> Tuple[bool, bool, bool, bool]:
    """The room's frames through :class:`Vision`, as the table runs it on a camera: the
    start frame, the game frame, the hand frame if any, then the later position, each
    shown :data:`SHOWN` times. Once the game board is still, the referee confirms it
    (:meth:`Vision.learn`, which takes it only when the board reads nearly all as the
    position). Whether the start and the game boards came out as still observations,
    the start frame calibrated and the game board was taken as a lesson. The game
    board's still reading is added to ``still``, the later position's to ``later``; a
    hand frame whose hand covers cells and that came out as a still board is added to
    ``taken`` (a hand beside the board hides nothing: its board may well be read)."""
    vision = Vision()
    seen, confirmed = {}, False
    for i, kind in enumerate(k for k in ("start", "game", "hand", "later") if k in room):
        bgr, truth = room[kind]
        stable = None
        for n in range(SHOWN):
            result = vision.process(bgr, SHOWN * i + n)
            stable = result.stable or stable
        seen[kind] = stable
        if kind == "start":
            calibrated = vision.calibration is not None and vision.calibration.room is not None
        if kind == "game" and stable is not None:
            still.add(stable, vision.calibration, truth)
            confirmed = vision.learn({c: (col, h) for c, (col, h) in truth["placement"].items()})
        if kind == "hand" and stable is not None and truth.get("hand_cells"):
            taken.append(truth["name"])
        if kind == "later" and stable is not None:
            later.add(stable, vision.calibration, truth)
    return seen["start"] is not None, seen["game"] is not None, calibrated, confirmed


def after_a_restart(room: Dict, told: bool, still: Tally, later: Tally) -> Optional[bool]:
    """The room's game frame shown :data:`SHOWN` times to a fresh :class:`Vision`, as after
    a restart: ``told`` the game's position, as the table tells it, or not (the start
    position is all it may learn from); then the later position, if rendered. The game
    frame's still reading is added to ``still``, the later one's to ``later``. Whether the
    room was learned; None when the rendered placement is no position."""
    bgr, truth = room["game"]
    try:
        position = Position.from_placement(truth["board"], {c: (col, h) for c, (col, h)
                                                            in truth["placement"].items()}, "red")
    except NotationError:
        return None
    vision = Vision()
    if told:
        vision.expect(position)
    for i, kind in enumerate(k for k in ("game", "later") if k in room):
        bgr, truth = room[kind]
        stable = None
        for n in range(SHOWN):
            stable = vision.process(bgr, SHOWN * i + n).stable or stable
        if stable is not None:
            (still if kind == "game" else later).add(stable, vision.calibration, truth)
        if kind == "game":
            learned = vision.reader is not None and vision.reader.calibrated
    return learned


def run(root: Optional[str], split: str = "eval") -> Dict:
    tallies = new_tallies()
    times: List[Tuple[float, float]] = []
    plain, calibrated, exact, exact_cal, still = Tally(), Tally(), Tally(), Tally(), Tally()
    rooms = calibrations = 0
    table = {"start": 0, "game": 0, "calibrated": 0, "confirmed": 0, "hands": 0, "taken": [], "later": Tally()}
    # told: [rooms, learned, the game's still readings, the later position's]
    restart = {True: [0, 0, Tally(), Tally()], False: [0, 0, Tally(), Tally()]}
    families = set()
    for room in dataset.rooms(split, root):
        if "start" not in room or "game" not in room:
            continue
        rooms += 1
        start_bgr, start_truth = room["start"]
        families.add(start_truth["family"])
        # (The later position is read at the table only: the located figures stay those of
        # the sets before it was rendered.)
        located = {kind: locate(bgr, truth, tallies, times) for kind, (bgr, truth) in room.items() if kind != "later"}
        start_placement = {c: (col, h) for c, (col, h) in start_truth["placement"].items()}
        cal_start = None
        if located["start"] is not None:
            try:
                cal_start = calibrate_from_position(start_bgr, located["start"])
                calibrations += 1
            except ValueError:
                cal_start = located["start"]
        true_start = dataset.calibration(start_truth)
        try:
            true_start = calibrate_reader(start_bgr, true_start, start_placement)
        except ValueError:
            pass
        for kind in ("game", "hand"):
            if kind not in room:
                continue
            bgr, truth = room[kind]
            if located[kind] is not None:
                plain.add(CellReader(located[kind]).read(bgr), located[kind], truth)
            if cal_start is not None:
                calibrated.add(CellReader(cal_start).read(bgr), cal_start, truth)
            true_cal = dataset.calibration(truth)
            exact.add(CellReader(true_cal).read(bgr), true_cal, truth)
            exact_cal.add(CellReader(true_start).read(bgr), true_start, truth)
        saw_start, saw_game, fitted, confirmed = at_the_table(room, still, table["taken"], table["later"])
        table["start"] += saw_start
        table["game"] += saw_game
        table["calibrated"] += fitted
        table["confirmed"] += confirmed
        table["hands"] += "hand" in room and bool(room["hand"][1].get("hand_cells"))
        for told, tally in restart.items():
            learned = after_a_restart(room, told, tally[2], tally[3])
            if learned is not None:
                tally[0] += 1
                tally[1] += learned
    return {"table": table, "restart": restart, "still": still, "tallies": tallies, "times": times, "plain": plain,
            "calibrated": calibrated, "exact": exact, "exact_cal": exact_cal, "rooms": rooms,
            "calibrations": calibrations, "families": families}


def run_locate(split: str, root: Optional[str]) -> Dict:
    """Locate every frame of ``split`` from scratch: the tallies and times of :func:`locate`."""
    tallies = new_tallies()
    times: List[Tuple[float, float]] = []
    for bgr, truth in dataset.frames(split, root):
        locate(bgr, truth, tallies, times)
    return {"tallies": tallies, "times": times}


def print_locate(r: Dict, breakdown: bool = False) -> None:
    t = r["tallies"]
    c, h = t["clear"], t["hand"]
    pct = lambda a, b: 100.0 * a / b if b else float("nan")
    print(f"board located on hand-free frames (right side, every cell within a quarter cell): "
          f"{c['found']} of {c['frames']} ({pct(c['found'], c['frames']):.1f}%)")
    print(f"board located on hand frames: {h['found']} of {h['frames']}")
    print(f"wrong grids: {c['wrong_grid'] + h['wrong_grid']}, wrong board side: {c['wrong_side'] + h['wrong_side']} "
          f"(of {c['frames'] + h['frames']} frames)")
    missed = c["missed"] + h["missed"]
    if missed:
        print("not found: " + " ".join(missed[:20]) + (" ..." if len(missed) > 20 else ""))
    wrong = c["wrong_names"] + h["wrong_names"]
    if wrong:
        print("wrong: " + " ".join(wrong[:20]) + (" ..." if len(wrong) > 20 else ""))
    if breakdown:
        print("located, hand-free frames by kind: " + "; ".join(f"{k} {found}/{n}"
                                                                 for k, (found, n) in sorted(c["by"].items())))


def print_times(times: List[Tuple[float, float]]) -> None:
    for lm, clock in ((np.array(times)[:, 0], "wall"), (np.array(times)[:, 1], "CPU")):
        print(f"locate board from scratch (one core, {clock} time): mean {lm.mean():.0f} ms, 95th percentile "
              f"{np.percentile(lm, 95):.0f} ms, max {lm.max():.0f} ms")


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=None, help="data folder (default /work/data/pbr)")
    parser.add_argument("--render", type=int, default=0, metavar="ROOMS",
                        help="first render the missing frames of the eval split's first ROOMS rooms")
    parser.add_argument("--seed", type=int, default=1, help="run seed of the rooms to render")
    parser.add_argument("--breakdown", action="store_true", help="located frames and colour errors per face, table, light, finish")
    parser.add_argument("--split", default="eval", choices=("eval", "train", "tune"),
                        help="train: locating alone, on the train split the locator is tuned on; "
                             "tune: the tune split's rooms (tuning data, not held out)")
    args = parser.parse_args(list(argv))
    if args.render:
        from fenix_tools.pbr import make
        make.main(["--split", "eval", "--count", str(args.render), "--seed", str(args.seed)]
                  + (["--root", args.root] if args.root else []))
    import cv2
    cv2.setNumThreads(1)    # the time budget is for one core
    renderer = renderer_of(args.split, args.root)
    if args.split == "train":
        r = run_locate("train", args.root)
        t = r["tallies"]
        if not t["clear"]["frames"] + t["hand"]["frames"]:
            print(f"no train frames under {dataset.frame_dir('train', args.root)}", file=sys.stderr)
            return 2
        print(f"physically based renders ({renderer}), train split (tuned on, not held out): "
              f"{t['clear']['frames'] + t['hand']['frames']} frames ({t['hand']['frames']} with a hand)")
        print_locate(r, args.breakdown)
        print_times(r["times"])
        return 0
    r = run(args.root, args.split)
    if not r["rooms"]:
        print(f"no {args.split} frames under {dataset.frame_dir(args.split, args.root)}: render some with "
              f"fenix_tools.pbr.make", file=sys.stderr)
        return 2
    t = r["tallies"]
    c, h = t["clear"], t["hand"]
    kind = "held-out" if args.split == "eval" else "tuning (not held out)"
    print(f"physically based renders ({renderer}), {args.split} split: {r['rooms']} rooms, "
          f"{c['frames'] + h['frames']} frames ({h['frames']} with a hand), {len(r['families'])} {kind} families")
    print_locate(r, args.breakdown)
    print(r["plain"].line("out of the box (own located grid)"))
    print(f"start frames calibrated: {r['calibrations']} of {r['rooms']}")
    print(r["calibrated"].line("calibrated from the start frame"))
    print(r["exact"].line("exact grid, out of the box"))
    print(r["exact_cal"].line("exact grid, calibrated from the start frame"))
    tb = r["table"]
    print(f"at the table (Vision, each frame shown {SHOWN} times: start, game, hand): start position seen still in "
          f"{tb['start']} of {r['rooms']} rooms, calibrated in {tb['calibrated']}; game position seen still in "
          f"{tb['game']} of {r['rooms']}; frames of a hand over cells taken for a still board: "
          f"{len(tb['taken'])} of {tb['hands']}"
          + (f" ({' '.join(tb['taken'])})" if tb["taken"] else ""))
    print(r["still"].line("at the table, the game position's still reading"))
    print(f"at the table, the game position taken as a lesson (Vision.learn, as the referee confirms it) in "
          f"{tb['confirmed']} rooms; the later position seen still in {tb['later'].frames}")
    print(tb["later"].line("at the table, the later position's still reading"))
    for told, (rooms, learned, tally, later) in sorted(r["restart"].items()):
        how = "told the game's position" if told else "only the start position to learn from"
        print(f"after a restart, {how}: room learned in {learned} of {rooms} rooms, game position seen still "
              f"{tally.frames} times, the later position {later.frames} times")
        print(tally.line(f"after a restart, {how}, the game position's still reading"))
        print(later.line(f"after a restart, {how}, the later position's still reading"))
    if args.breakdown:
        print("out of the box by kind: " + r["plain"].breakdown())
        print("exact grid by kind: " + r["exact"].breakdown())
    print_times(r["times"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

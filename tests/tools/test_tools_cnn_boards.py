"""The rendered training boards kept in git (tools/reader-data): a frame in the renderers'
format goes in, and the training script gets the patches the reader would cut."""
import json

import cv2
import numpy as np
import pytest

from fenix_table.board import cell_names
from fenix_table.rules import Position
from fenix_table.vision.classifier import CLASSES, PATCH
from fenix_table.vision.types import Calibration
from fenix_tools.cnn import boards
from fenix_tools.cnn.data import fitted_corners, frame_cells
from fenix_tools.sim import random_placement, random_scene, render_frame


def _write_frame(folder, name, board, rng, start=False):
    """One frame in the pbr contract (train split): NAME.jpg + NAME.json."""
    placement = dict(Position.start(board).stacks()) if start else random_placement(rng, board)
    bgr, truth = render_frame(placement, board, random_scene(rng, board), rng)
    cv2.imwrite(str(folder / f"{name}.jpg"), bgr, [cv2.IMWRITE_JPEG_QUALITY, 95])
    meta = {"board": board, "image_size": [bgr.shape[1], bgr.shape[0]], "start": start,
            "cell_centres": {c: list(p) for c, p in truth.cell_centres.items()},
            "placement": {c: list(v) for c, v in truth.placement.items()}, "hand_cells": ["b2"]}
    (folder / f"{name}.json").write_text(json.dumps(meta))
    return meta


@pytest.fixture()
def rendered(tmp_path, monkeypatch):
    monkeypatch.setattr(boards, "CHUNK", 2)
    train = tmp_path / "frames" / "train"
    train.mkdir(parents=True)
    rng = np.random.default_rng(3)
    metas = {}
    for room, board in enumerate(("9x9", "7x8", "9x9")):
        name = f"{100000 * 4 + room:010d}"          # run seed 4, rooms 0-2
        metas[name] = _write_frame(train, name, board, rng, start=room == 0)
    return tmp_path, metas


def test_a_boards_patches_are_the_readers_cut_of_its_frame(rendered):
    root, metas = rendered
    written = boards.make("pbr", str(root / "frames"), 4, str(root / "out"))
    # Rooms 0-1 make a whole chunk; room 2's chunk waits for its other room.
    assert [p.rsplit("/", 1)[1] for p in written] == ["pbr-s4-000.npz"]
    got = list(boards.boards(written[0]))
    assert [g[0] for g in got] == ["0000400000", "0000400001"]
    for name, img, labels, start in got:
        meta = metas[name]
        board = meta["board"]
        bgr = cv2.imread(str(root / "frames" / "train" / f"{name}.jpg"))
        centres = {c: tuple(p) for c, p in meta["cell_centres"].items()}
        cal = Calibration(board, tuple(meta["image_size"]), tuple(map(tuple, fitted_corners(board, centres))))
        width, height = (9, 9) if board == "9x9" else (7, 8)
        assert np.array_equal(boards.patches(img, width, height), frame_cells(bgr, cal))
        names = cell_names(board)
        want = [-1 if n == "b2" else CLASSES.index(meta["placement"].get(n, ["empty"])[0]) for n in names]
        assert labels.tolist() == want
        assert start == (name == "0000400000")
    # Written once: a second run writes nothing, --partial adds the unfinished chunk by its count.
    assert boards.make("pbr", str(root / "frames"), 4, str(root / "out")) == []
    assert [p.rsplit("/", 1)[1] for p in boards.make("pbr", str(root / "frames"), 4, str(root / "out"), partial=True)] \
        == ["pbr-s4-001-1.npz"]


def test_a_finished_chunk_replaces_its_unfinished_copy(rendered):
    root, _ = rendered
    out = root / "out"
    boards.make("pbr", str(root / "frames"), 4, str(out), partial=True)
    assert sorted(p.name for p in out.glob("*.npz")) == ["pbr-s4-000.npz", "pbr-s4-001-1.npz"]
    _write_frame(root / "frames" / "train", f"{100000 * 4 + 3:010d}", "7x8", np.random.default_rng(9))
    (out / "notes-001-1.npz").write_bytes(b"not ours")
    assert [p.rsplit("/", 1)[1] for p in boards.make("pbr", str(root / "frames"), 4, str(out))] == ["pbr-s4-001.npz"]
    # Room 2's board once, in the finished file; a file the tool did not write stays.
    assert sorted(p.name for p in out.glob("*.npz")) == ["notes-001-1.npz", "pbr-s4-000.npz", "pbr-s4-001.npz"]
    assert [g[0] for g in boards.boards(str(out / "pbr-s4-001.npz"))] == ["0000400002", "0000400003"]


def test_the_training_script_gets_each_board_cut_through_grids_a_little_off(rendered):
    root, _ = rendered
    paths = boards.make("pbr", str(root / "frames"), 4, str(root / "out"), partial=True)
    frames = boards.load(paths)
    assert len(frames) == 3 * len(boards.SLOPS)
    # A board's room is its room number in the run (the held-out fold is picked by it),
    # kept apart across files.
    assert [room for _, _, room in frames] == [0, 0, 1, 1, 1_000_002, 1_000_002]
    (a, la, ra), (b, lb, rb) = frames[0], frames[1]
    assert ra == rb and np.array_equal(la, lb) and a.shape == b.shape == (81, PATCH, PATCH, 3)
    img = next(boards.boards(paths[0]))[1]
    exact = boards.patches(img, 9, 9)
    # The cuts move the grid by under a pixel: not the exact cut, nearer it than a cut
    # two pixels over, and the larger slop further off.
    two_over = np.abs(boards.patches(np.roll(img, 2, axis=1), 9, 9).astype(int) - exact).mean()
    diffs = [np.abs(cut.astype(int) - exact).mean() for cut in (a, b)]
    assert 0 < diffs[0] < diffs[1] < two_over
    # Seeded by the board's name: the same cuts again.
    again = boards.load(paths)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(frames, again))


def test_every_committed_board_file_reads_whole():
    """The set in git: every file opens, every board decodes at its face's size, and its
    labels are classes or a hand's cell."""
    import glob
    import os
    paths = sorted(glob.glob(os.path.join(boards.DATA, "*.npz")))
    assert paths, "tools/reader-data holds no board files"
    # The issue allows a committed set of patches under 60 MB.
    assert sum(os.path.getsize(p) for p in paths) < 60e6
    for path in paths:
        got = list(boards.boards(path))
        assert 0 < len(got) <= boards.CHUNK
        for name, img, labels, _ in got:
            width, height = (9, 9) if len(labels) == 81 else (7, 8)
            assert len(labels) in (81, 56), (path, name)
            assert img.shape == (height * 16 + 16, width * 16 + 16, 3), (path, name)
            assert set(labels.tolist()) <= {-1, 0, 1, 2}, (path, name)

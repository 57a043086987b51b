"""Making the Cycles data set: what is on disk is not rendered again, and (with the bpy
venv) a room rendered end to end reads back through the pbr data set's reader."""
import json
import os

import numpy as np
import pytest

from fenix_tools.cycles import make
from fenix_tools.pbr import dataset
from fenix_tools.pbr.make import plan

SIZE = (320, 240)


def _touch(root, split, name):
    folder = os.path.join(root, "frames", split)
    os.makedirs(folder, exist_ok=True)
    for ext in (".jpg", ".json"):
        with open(os.path.join(folder, name + ext), "w") as fh:
            fh.write("x")


def test_frames_on_disk_are_not_rendered_again(tmp_path):
    root = str(tmp_path)
    ids = [make.room_seed("tune", 1, i) for i in range(3)]
    names = [f["name"] for rid in ids for f in plan("tune", rid)]
    jobs, todo = make.pending("tune", ids, root, spp=4, scale=0.5, size=SIZE)
    assert [os.path.basename(j["out"])[:-4] for j in jobs] == names
    # One room whole, one frame of another: only the rest is left.
    for f in plan("tune", ids[0]):
        _touch(root, "tune", f["name"])
    _touch(root, "tune", plan("tune", ids[1])[0]["name"])
    jobs2, todo2 = make.pending("tune", ids, root, spp=4, scale=0.5, size=SIZE)
    left = [n for n in names if n not in [f["name"] for f in plan("tune", ids[0])] and n != plan("tune", ids[1])[0]["name"]]
    assert [os.path.basename(j["out"])[:-4] for j in jobs2] == left
    # A frame left to do is the same frame as before.
    before = {os.path.basename(j["out"]): json.dumps(j, sort_keys=True) for j in jobs}
    assert all(json.dumps(j, sort_keys=True) == before[os.path.basename(j["out"])] for j in jobs2)
    # Nothing left: Blender is never started (no python needed).
    for n in names:
        _touch(root, "tune", n)
    assert make.make_rooms("tune", ids, root, python="/nonexistent/python", spp=4, scale=0.5, size=SIZE) == 0


def test_make_refuses_bad_arguments(tmp_path, capsys):
    assert make.main(["--split", "train", "--count", "1", "--root", str(tmp_path), "--size", "321x240",
                      "--python", "/bin/true"]) == 2
    assert make.main(["--split", "train", "--count", "-1", "--root", str(tmp_path)]) == 2
    assert "--count" in capsys.readouterr().err


BPY = make.blender_python()


@pytest.mark.skipif(BPY is None, reason="no python with bpy (make cycles-venv, or FENIX_CYCLES_PYTHON)")
def test_a_room_renders_and_reads_back(tmp_path):
    root = str(tmp_path)
    args = ["--split", "tune", "--count", "1", "--seed", "1", "--root", root, "--size", "320x240",
            "--spp", "4", "--scale", "0.5", "--python", BPY]
    # A file of someone else's in the work folder outlives the run; the run's own are gone.
    work = tmp_path / "work" / "tune"
    work.mkdir(parents=True)
    (work / "notes.txt").write_text("mine")
    assert make.main(args) == 0
    assert sorted(os.listdir(work)) == ["notes.txt"]
    got = list(dataset.frames("tune", root=root))
    assert [t["name"] for _, t in got] == sorted(f["name"] for f in plan("tune", make.room_seed("tune", 1, 0)))
    for bgr, truth in got:
        assert bgr.shape == (240, 320, 3) and truth["image_size"] == [320, 240]
        assert truth["renderer"].startswith("cycles ")
        # The stones are where the truth puts them: red cells redder than black ones.
        cx = {c: truth["cell_centres"][c] for c in truth["placement"]}
        redness = {c: float(bgr[int(round(y)), int(round(x))].astype(int) @ (-0.5, -0.5, 1)) for c, (x, y) in cx.items()}
        reds = [redness[c] for c, (col, _) in truth["placement"].items() if col == "red" and c not in truth["hand_cells"]]
        blacks = [redness[c] for c, (col, _) in truth["placement"].items() if col == "black" and c not in truth["hand_cells"]]
        assert np.median(reds) > np.median(blacks) + 15
    stamp = os.path.getmtime(os.path.join(root, "frames", "tune", got[0][1]["name"] + ".jpg"))
    assert make.main(args) == 0
    assert os.path.getmtime(os.path.join(root, "frames", "tune", got[0][1]["name"] + ".jpg")) == stamp

"""The physically based renderer's ground truth: camera and lens, scene families and
seeds, hands, and tiny real renders checked against the truth they come with."""
import json
import os
import random

import numpy as np
import pytest

from fenix_table.board import cell_index, cell_names, dimensions
from fenix_tools.pbr.camera import LensCamera, look_down
from fenix_tools.pbr.scene import (EVAL_ONLY, TUNE_ONLY, Family, draw_family, draw_hand, draw_room,
                                   game_position, hand_cells, lay_stones)
from fenix_tools.pbr import make


def _camera(k1=-0.12, k2=0.02, seed=3):
    rng = np.random.default_rng(seed)
    outline = np.array([(-0.5, -0.5), (9.5, -0.5), (9.5, 9.5), (-0.5, 9.5)])
    cam = look_down(rng, (9, 9), outline, (1280, 960))
    return LensCamera(cam.R, cam.C, cam.f, cam.size, k1, k2)


def test_lens_source_map_inverts_projection():
    cam = _camera()
    mapx, mapy = cam.source_map()
    pts = np.array([(x, y, 0.0) for x in np.linspace(0, 9, 7) for y in np.linspace(0, 9, 7)])
    distorted = cam.project(pts)
    undistorted = cam.undistorted(pts)
    for (u, v), (ux, uy) in zip(distorted, undistorted):
        if 0 <= u < 1279 and 0 <= v < 959:
            i, j = int(round(v)), int(round(u))
            # The map at the distorted pixel points back to the undistorted position
            # (to within the rounding of u, v to the pixel, times the local stretch).
            assert abs(mapx[i, j] - ux) < 1.5 and abs(mapy[i, j] - uy) < 1.5


def test_camera_keeps_board_in_frame_and_tilt_bounded():
    for seed in range(20):
        cam = _camera(seed=seed)
        corners = cam.project(np.array([(0, 0, 0), (9, 0, 0), (9, 9, 0), (0, 9, 0)], float))
        assert (corners >= 0).all() and (corners[:, 0] < 1280).all() and (corners[:, 1] < 960).all()
        tilt = np.degrees(np.arccos(-cam.R[2][2]))
        assert tilt <= 20.0 + 1e-6
        assert cam.C[2] > 0


def test_families_split_and_seeds_disjoint():
    rng = np.random.default_rng(0)
    for _ in range(200):
        train = draw_family(rng, "train")
        ev = draw_family(rng, "eval")
        assert train.split == "train" and ev.split == "eval"
        assert train.table not in EVAL_ONLY["table"] and train.finish not in EVAL_ONLY["finish"]
    train_ids = {make.room_seed("train", s, i) for s in (0, 1, 9999) for i in (0, 99_999)}
    eval_ids = {make.room_seed("eval", s, i) for s in (0, 1, 9999) for i in (0, 99_999)}
    assert max(train_ids) < min(eval_ids)
    with pytest.raises(ValueError):
        make.room_seed("train", 1, 100_000)


def test_tune_split_draws_its_own_kinds_in_rooms_of_known_layout():
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(200):
        family = draw_family(rng, "tune")
        assert family.split == "tune"
        names = (family.table, family.light, family.finish)
        assert not set(names) & {v for vals in EVAL_ONLY.values() for v in vals}
        kinds |= set(names) & {v for vals in TUNE_ONLY.values() for v in vals}
        # No train or eval room draws a tuning kind.
        for split in ("train", "eval"):
            other = draw_family(rng, split)
            assert other.split == split
            assert not {other.table, other.light, other.finish} & {v for vals in TUNE_ONLY.values() for v in vals}
    assert kinds == {v for vals in TUNE_ONLY.values() for v in vals}
    eval_ids = {make.room_seed("eval", s, i) for s in (0, 9999) for i in (0, 99_999)}
    tune_ids = {make.room_seed("tune", s, i) for s in (0, 9999) for i in (0, 99_999)}
    assert max(eval_ids) < min(tune_ids)
    # A tune room is read as the table reads a game: a start frame, then the game.
    frames = make.plan("tune", make.room_seed("tune", 1, 0))
    assert [f["stage"] for f in frames[:2]] == ["start", frames[1]["stage"]] and frames[1]["stage"] != "start"
    # Last, a position a few plies on: what the table reads with the room the game taught.
    assert frames[-1]["stage"] == "later" and frames[-1]["name"].endswith("-later")
    # Its kinds are drawable rooms: a tune-only light, table and finish each.
    room = draw_room(np.random.default_rng(1), "9x9", Family("wood_walnut", "desk_dusk", "polished"))
    assert room.look.roughness < 0.031 and room.table_rough > 0 and room.exposure_ev < 0
    assert len(room.lights) == 2


def _drawn(split, seed, index):
    """What room ``index`` of run ``seed`` draws, as make.make_room draws it."""
    rng = np.random.default_rng(make.room_seed(split, seed, index))
    board = make.BOARDS[int(rng.integers(2))]
    family = draw_family(rng, split)
    room = draw_room(rng, board, family, (1280, 960))
    values = [room.look.radius, room.look.roughness, room.exposure_ev, room.noise_gain, room.table_rough,
              room.table_seed, room.face_seed, room.jpeg, *room.camera.C, *[light.position[0] for light in room.lights],
              *[d.x for d in room.spare], float(rng.uniform())]
    return family.name, [round(float(v), 9) for v in values]


def test_existing_train_and_eval_rooms_draw_what_they_drew():
    # The rendered train and eval rooms on disk (and the locator's tuning sets) must stay
    # what their seeds make: a digest of their draws from before the tune split existed.
    import hashlib
    drawn = {f"{s}/{seed}/{i}": _drawn(s, seed, i) for s, seed in (("train", 1), ("train", 6), ("eval", 1))
             for i in range(4)}
    digest = hashlib.sha256(json.dumps(drawn, sort_keys=True).encode()).hexdigest()
    assert digest == "2a60c79ab57386bc217fefe8db3106187a8ba4f1517d54beaac34c46c6e3d567"


def test_positions_are_real_fenix_positions():
    start = game_position("7x8", random.Random(1), "start")
    assert len(start.stacks()) == 42
    late = game_position("9x9", random.Random(2), "late")
    heights = {h for _, h in late.stacks().values()}
    assert heights <= {1, 2, 3}
    assert 0 < len(late.stacks()) < len(cell_names("9x9"))


def test_hand_cells_follow_the_hand():
    rng = np.random.default_rng(5)
    room = draw_room(rng, "9x9", Family("wood_light", "ceiling", "matte"))
    parts = draw_hand(rng, "9x9", (4.5, 4.5), 270.0)     # fingertips over e5, arm from rank 1
    hidden = hand_cells(room.camera, "9x9", parts)
    assert "e5" in hidden
    assert "e9" not in hidden and "a9" not in hidden and "i9" not in hidden
    assert hand_cells(room.camera, "9x9", []) == ()


def test_lamps_never_hide_the_board():
    # A lamp hung between the camera and the board (0.4% of drawn lamps do) is moved
    # outwards until every board point is in sight again, at the same height.
    from fenix_tools.pbr.scene import Capsule, Light, _clear_board, _segment_hits

    rng = np.random.default_rng(8)
    room = draw_room(rng, "9x9", Family("laminate", "lamp_near", "matte"))
    cols, rows = dimensions("9x9")
    pts = np.array([(x, y, 0.0) for x in np.linspace(0, cols, 19) for y in np.linspace(0, rows, 19)])
    middle = (room.camera.C + np.array([cols / 2 + 1, rows / 2, 0.0])) / 2
    lamp = Light("sphere", middle.copy(), 0.8, np.ones(3), 1.0)
    assert _segment_hits(room.camera.C, pts, Capsule(lamp.position, lamp.position, lamp.size))
    outline = np.array([(-0.5, -0.5), (cols + 0.5, -0.5), (cols + 0.5, rows + 0.5), (-0.5, rows + 0.5)])
    _clear_board([lamp], room.camera, "9x9", outline)
    assert not _segment_hits(room.camera.C, pts, Capsule(lamp.position, lamp.position, lamp.size))
    assert lamp.position[2] == middle[2]


def test_stones_laid_on_their_cells():
    rng = np.random.default_rng(2)
    room = draw_room(rng, "7x8", Family("laminate", "window", "glossy"))
    placement = {"a1": ("red", 1), "c4": ("black", 3)}
    discs = lay_stones(rng, placement, room.look, jitter=0.08, stacking=0.03)
    assert len(discs) == 4
    for d in discs:
        cell = "a1" if d.colour == "red" else "c4"
        f, r = cell_index(cell)
        assert abs(d.x - (f + 0.5)) < 0.25 and abs(d.y - (r + 0.5)) < 0.25
    assert sorted(round(d.z / room.look.thickness) for d in discs if d.colour == "black") == [0, 1, 2]


def _tiny_room(board, seed=11):
    """A small, plainly lit room: no lens blur, no hand, so pixels can be checked."""
    from dataclasses import replace

    rng = np.random.default_rng(seed)
    room = draw_room(rng, board, Family("cloth_plain", "ceiling", "matte"), size=(320, 240))
    cam = room.camera
    cam = LensCamera(cam.R, cam.C, cam.f, cam.size, -0.1, 0.0)
    face = replace(room.face, line_width=0.09, wear=0.0, grain=0.2)     # lines wide enough at 320x240
    return replace(room, face=face, camera=cam, aperture=0.0, spare=[], vignette=0.0, sharpen=0.0,
                   noise_gain=0.0, read_noise=0.0, jpeg=95)


@pytest.mark.parametrize("board", ["7x8", "9x9"])
def test_tiny_render_matches_truth(board):
    pytest.importorskip("mitsuba")
    import cv2
    from fenix_tools.pbr import render

    room = _tiny_room(board)
    placement = {"b2": ("red", 2), "e5": ("black", 1)}
    rng = np.random.default_rng(1)
    discs = lay_stones(rng, placement, room.look, jitter=0.0, stacking=0.0)
    linear = render.render_linear(room, discs, [], spp=4, seed=1)
    bgr = cv2.imdecode(np.frombuffer(render.develop(linear, room, rng), np.uint8), cv2.IMREAD_COLOR)
    assert bgr.shape == (240, 320, 3)
    truth = make.truth_of(room, placement, [], split="train", room_id=0, stage="midgame")
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(int)

    def at(name):
        x, y = truth["cell_centres"][name]
        return int(round(y)), int(round(x))

    # The red stack sits on b2: red there, not on the empty cells around it.
    def red(name):
        b, g, r = bgr[at(name)].astype(int)
        return r > 1.8 * max(g, b, 10)

    assert red("b2")
    assert not any(red(n) for n in ("c2", "b3", "a1", "e5"))
    # The black stone on e5 is dark against its neighbours on the light 7x8 face; on the
    # dark 9x9 face it is at least no lighter than them.
    if board == "7x8":
        assert grey[at("e5")] < min(grey[at(n)] for n in ("d5", "f5", "e4", "e6")) - 40
    # Printed lines run through the true grid points: the line colour (light on 9x9, dark
    # on 7x8) halfway between neighbouring points along each rank line and each file
    # line, the ground colour at empty cells' centres (a face printed flipped or shifted
    # puts one set of lines a margin's difference off).
    cols, rows = dimensions(board)
    pts = np.array(truth["grid_points"]).reshape(rows + 1, cols + 1, 2)
    pick = np.max if board == "9x9" else np.min       # the line's pixel next to the point

    def line_tone(points):
        return np.median([pick(grey[int(round(y)) - 1:int(round(y)) + 2, int(round(x)) - 1:int(round(x)) + 2])
                          for x, y in points])

    along_ranks = [(pts[j, i] + pts[j, i + 1]) / 2 for j in range(5, rows + 1) for i in range(5, cols)]
    along_files = [(pts[j, i] + pts[j + 1, i]) / 2 for j in range(5, rows) for i in range(5, cols + 1)]
    ground = np.median([grey[at(n)] for n in ("g7", "f6", "g6", "f7")])
    for tone in (line_tone(along_ranks), line_tone(along_files)):
        if board == "9x9":
            assert tone > ground + 25
        else:
            assert tone < ground - 25
    # The loader's exact top-down view puts b2's red stack at b2, and the best-fit grid
    # lands within a pixel or two of every true cell centre.
    from fenix_tools.pbr import dataset

    top = dataset.rectified(bgr, truth, ppc=16, margin=0.5)
    assert top.shape == ((rows + 1) * 16, (cols + 1) * 16, 3)

    def top_red(name):
        f, r = cell_index(name)
        b, g, r_ = top[int((rows + 0.5 - r - 0.5) * 16), int((f + 0.5 + 0.5) * 16)].astype(int)
        return r_ > 1.8 * max(g, b, 10)

    assert top_red("b2") and not top_red("c2") and not top_red("b3")
    cal = dataset.calibration(truth)
    for name, (x, y) in cal.cell_centres().items():
        assert np.hypot(x - truth["cell_centres"][name][0], y - truth["cell_centres"][name][1]) < 2.0
    # a1's outer corner is the first corner; corners lie on the grid points.
    assert np.allclose(truth["corners"][0], pts[0, 0]) and np.allclose(truth["corners"][2], pts[-1, -1])


def test_make_and_load_tiny_frames(tmp_path):
    pytest.importorskip("mitsuba")
    from fenix_tools.pbr import dataset

    out = tmp_path / "frames" / "eval"
    out.mkdir(parents=True)
    rid = make.room_seed("eval", 7, 0)
    made = make.make_room("eval", rid, str(out), spp=1, size=(64, 48), log=lambda s: None)
    assert made >= 2
    # Resumable: nothing left to do, and a deleted frame is made again identically.
    assert make.make_room("eval", rid, str(out), spp=1, size=(64, 48), log=lambda s: None) == 0
    first = json.loads((out / f"{rid:010d}-game.json").read_text())
    picture = (out / f"{rid:010d}-game.jpg").read_bytes()
    os.remove(out / f"{rid:010d}-game.json")
    assert make.make_room("eval", rid, str(out), spp=1, size=(64, 48), log=lambda s: None) == 1
    again = json.loads((out / f"{rid:010d}-game.json").read_text())
    for key in ("placement", "corners", "family", "board", "seed", "hand_cells"):
        assert first[key] == again[key]
    # Reproducible from the seed: the same picture, give or take 1 in a few pixel values
    # (two render threads may add samples at their blocks' edges in either order).
    import cv2

    a = cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR).astype(int)
    b = cv2.imread(str(out / f"{rid:010d}-game.jpg")).astype(int)
    assert np.abs(a - b).max() <= 1 and (a != b).mean() < 0.001
    frames = list(dataset.frames("eval", str(tmp_path)))
    assert len(frames) == made
    for bgr, truth in frames:
        assert bgr.shape == (48, 64, 3)
        assert truth["split"] == "eval" and Family(*truth["family"].split("/")).split == "eval"
        assert len(truth["grid_points"]) == (dimensions(truth["board"])[0] + 1) * (dimensions(truth["board"])[1] + 1)
    rooms = list(dataset.rooms("eval", str(tmp_path)))
    assert len(rooms) == 1 and rooms[0]["start"][1]["start"] and not rooms[0]["game"][1]["start"]
    with pytest.raises(ValueError):
        list(dataset.frames("test", str(tmp_path)))


def test_a_wide_barrel_lens_that_folds_before_the_corners_is_drawn_again():
    # Room 200007's first camera (75 degree field, k1 -0.15) folded back before the
    # frame's corners: its source map ran to infinity and the render stopped.
    rng = np.random.default_rng(200007)
    board = make.BOARDS[int(rng.integers(2))]
    room = draw_room(rng, board, draw_family(rng, "train"), (1280, 960))
    assert room.camera.covers_frame()
    mapx, mapy = room.camera.source_map()
    assert np.isfinite(mapx).all() and np.isfinite(mapy).all()
    folding = LensCamera(room.camera.R, room.camera.C, 1280 / 2 / np.tan(np.radians(37.5)), (1280, 960),
                         k1=-0.16, k2=-0.02)
    assert not folding.covers_frame()


def test_the_later_position_is_the_game_played_on_by_a_few_legal_plies():
    import random

    from fenix_table.rules import Game, Position
    from fenix_table.rules.options import OFFICIAL
    from fenix_tools.pbr.scene import game_position, later_position

    for seed in range(6):
        game = game_position("9x9", random.Random(seed), "midgame")
        later = later_position(game, random.Random(seed), plies=(2, 2))
        assert later != game and later.stacks() != game.stacks()
        # Two legal plies from the game position lead to it.
        assert any(_after(game, first, later) for first in Game(game, OFFICIAL).legal_moves())
        assert later_position(game, random.Random(seed), plies=(2, 2)) == later   # from its seed
    start = Position.start("7x8")
    assert later_position(start, random.Random(1), plies=(0, 0)) == start


def _after(position, first, target):
    from fenix_table.rules import Game
    from fenix_table.rules.options import OFFICIAL

    game = Game(position, OFFICIAL)
    game.push(first)
    return any(_pushed(game.position, second) == target.stacks() for second in game.legal_moves())


def _pushed(position, move):
    from fenix_table.rules import Game
    from fenix_table.rules.options import OFFICIAL

    game = Game(position, OFFICIAL)
    game.push(move)
    return game.position.stacks()

"""The Cycles family's rooms: drawn the same from a seed, families kept apart by split,
a Blender camera that sees the board where the truth says, and the printed face."""
import json
import math

import numpy as np
import pytest

from fenix_table.board import dimensions, light_lines
from fenix_tools.cycles import make
from fenix_tools.cycles.room import (FACE_PPC, TRAIN_ONLY, TUNE_ONLY, draw_face, draw_family, film,
                                     scene_spec)
from fenix_tools.pbr.make import SPLIT_BASE as PBR_BASE
from fenix_tools.pbr.make import truth_of

SIZE = (640, 480)


def _spec(split, seed, index, scale=0.5):
    room_id = make.room_seed(split, seed, index)
    room, frames = make.draw_frames(split, room_id, SIZE)
    frame, placement, stones, hand, hand_look, noise = frames[-1]
    spec = scene_spec(room, stones, hand, hand_look, face_png="face.png", out="film.npy", samples=8,
                      seed=noise, scale=scale)
    return room, placement, hand, spec


def test_a_room_is_drawn_the_same_from_its_seed():
    a = json.dumps(_spec("tune", 1, 3)[3], sort_keys=True)
    b = json.dumps(_spec("tune", 1, 3)[3], sort_keys=True)
    c = json.dumps(_spec("tune", 1, 4)[3], sort_keys=True)
    assert a == b
    assert a != c


def test_train_rooms_never_draw_a_tune_kind_and_tune_rooms_always_do():
    rng = np.random.default_rng(5)
    held = set(TUNE_ONLY["table"] + TUNE_ONLY["light"] + TUNE_ONLY["material"])
    train_only = {kind for kinds in TRAIN_ONLY.values() for kind in kinds}
    train_lights = set()
    for _ in range(300):
        train = draw_family(rng, "train")
        tune = draw_family(rng, "tune")
        assert not {train.table, train.light, train.material} & held
        assert {tune.table, tune.light, tune.material} & held
        assert not {tune.table, tune.light, tune.material} & train_only
        train_lights.add(train.light)
    assert "raking" in train_lights


def test_tune_rooms_keep_the_families_they_were_rendered_with():
    # The tune split of run seed 1 was rendered before the train-only raking light
    # existed; a train-only kind must not move the tune split's draws.
    rendered = {0: ("tiles", "spot_low", "glass", "9x9"), 1: ("tiles", "overcast", "glass", "7x8"),
                2: ("tiles", "spot_low", "painted", "9x9"), 3: ("check", "spot_low", "painted", "7x8")}
    for index, (table, light, material, board) in rendered.items():
        room, _ = make.draw_frames("tune", make.room_seed("tune", 1, index), SIZE)
        assert (room.family.table, room.family.light, room.family.material, room.board) == \
            (table, light, material, board)


def test_a_raking_room_lights_the_board_from_low_down():
    room_id = next(make.room_seed("train", 1, i) for i in range(200)
                   if make.draw_frames("train", make.room_seed("train", 1, i), SIZE)[0].family.light == "raking")
    room, _ = make.draw_frames("train", room_id, SIZE)
    (lamp,) = room.lights
    cols, rows = dimensions(room.board)
    centre = np.array([cols / 2, rows / 2, 0.0])
    offset = np.array(lamp["location"]) - centre
    elevation = math.degrees(math.atan2(offset[2], math.hypot(offset[0], offset[1])))
    assert elevation < 22


def test_split_seeds_never_meet_each_other_or_the_pbr_family():
    ranges = [(base, base + 9999 * 100_000 + 99_999) for base in
              list(PBR_BASE.values()) + list(make.SPLIT_BASE.values())]
    ranges.sort()
    assert all(hi < lo2 for (_, hi), (lo2, _) in zip(ranges, ranges[1:]))
    assert make.room_seed("tune", 1, 0) == 4_000_100_000
    assert len(f"{make.room_seed('tune', 9999, 99_999):010d}") == 10


def _blender_projection(spec, room, scale, points):
    """Where Blender's camera of ``spec`` puts world points in the final frame: its
    pinhole film (local -z forward, +y up, the sensor's width fitted), back to frame
    pixels, then the lens's radial distortion."""
    M = np.array(spec["camera"]["matrix_world"])
    W, H = spec["render"]["width"], spec["render"]["height"]
    f_film = spec["camera"]["lens_mm"] / 36.0 * W
    q = (np.c_[points, np.ones(len(points))] @ np.linalg.inv(M).T)[:, :3]
    x = W / 2 + f_film * q[:, 0] / -q[:, 2]          # continuous film coordinates
    y = H / 2 - f_film * q[:, 1] / -q[:, 2]
    _, _, px, py = film(room, scale)
    X = x / scale - 0.5 - px                          # OpenCV pixel centres in the frame
    Y = y / scale - 0.5 - py
    K = room.camera.matrix
    nx, ny = (X - K[0, 2]) / K[0, 0], (Y - K[1, 2]) / K[1, 1]
    r2 = nx * nx + ny * ny
    d = 1 + room.camera.k1 * r2 + room.camera.k2 * r2 * r2
    return np.c_[nx * d * K[0, 0] + K[0, 2], ny * d * K[1, 1] + K[1, 2]]


@pytest.mark.parametrize("split,index,scale", [("tune", 0, 0.5), ("train", 7, 1.0), ("train", 11, 0.5)])
def test_the_blender_camera_sees_the_grid_where_the_truth_says(split, index, scale):
    room, placement, hand, spec = _spec(split, 1, index, scale)
    truth = truth_of(room, placement, hand, split=split, room_id=0, stage="midgame")
    cols, rows = dimensions(room.board)
    grid = np.array([(i, j, 0) for j in range(rows + 1) for i in range(cols + 1)], float)
    seen = _blender_projection(spec, room, scale, grid)
    assert np.abs(seen - np.array(truth["grid_points"])).max() < 0.01
    # And the whole board is in the frame.
    w, h = SIZE
    pts = np.array(truth["grid_points"])
    assert pts[:, 0].min() > 0 and pts[:, 0].max() < w and pts[:, 1].min() > 0 and pts[:, 1].max() < h


def test_the_film_is_padded_to_whole_pixels_of_the_render():
    room = _spec("train", 1, 2)[0]
    for scale in (1.0, 0.5, 0.25):
        W, H, px, py = film(room, scale)
        assert W / scale == SIZE[0] + 2 * px and H / scale == SIZE[1] + 2 * py
    with pytest.raises(ValueError):
        film(room, 0.4)


def test_the_face_prints_its_lines_on_the_grid_and_ground_in_the_cells():
    for index in range(6):
        room = _spec("train", 1, index)[0]
        face = draw_face(room).astype(float)
        cols, rows = dimensions(room.board)
        ml, mb, mr, mt = room.margins
        assert face.shape[:2] == (round((rows + mb + mt) * FACE_PPC), round((cols + ml + mr) * FACE_PPC))

        def texel(x, y):
            u, v = (x + ml) * FACE_PPC, (rows + mt - y) * FACE_PPC
            return face[int(v), int(u)].mean()

        on_lines = np.median([texel(i, j + 0.5) for i in range(cols + 1) for j in range(rows)])
        in_cells = np.median([texel(i + 0.5, j + 0.5) for i in range(cols) for j in range(rows)])
        # 9x9: light lines on a dark ground; 7x8 the reverse.
        assert (on_lines > in_cells + 40) == light_lines(room.board)
        assert (on_lines < in_cells - 40) == (not light_lines(room.board))


def test_stacks_rest_on_the_stone_below():
    room, placement, _, spec = _spec("train", 1, 5)
    stones = spec["stones"][:sum(h for _, h in placement.values())]
    pitch = room.look.thickness * (1 + room.look.dome)
    heights = sorted({round(s[2] / pitch, 6) for s in stones})
    assert heights == [float(k) for k in range(len(heights))]
    assert max(h for _, h in placement.values()) == len(heights)
    assert math.isclose(spec["stone_shape"]["thickness"], room.look.thickness)

"""The camera's evidence of which stack a stacking ply landed on (vision.evidence):
rendered setup plies on the generator's physical table, stones where they were put,
hands from the mover's side."""
import random
from dataclasses import replace

import numpy as np

from fenix_table.referee.tracker import pointed_distance
from fenix_table.rules import Game, Position
from fenix_table.vision import Vision
from fenix_tools.sim import PhysicalBoard, TableCamera, ply_frames, random_game, random_scene


def test_the_landing_stack_changes_most_and_untouched_stacks_hardly():
    board, seed = "7x8", 5
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    scene = replace(random_scene(nrng, board, image_size=(960, 720), hard=False, hand=False),
                    jitter=0.05, stacking=0.03)
    camera = TableCamera(board, scene, seed=seed)
    start = Position.start(board)
    table = PhysicalBoard.from_position(start, nrng, 0.05, 0.03)
    vision = Vision(board=board, stable_frames=3)
    first = [vision.process(camera.frame(table)[0], i).stable for i in range(4)]
    # The first still board has nothing earlier to compare with.
    assert all(obs is None or obs.changes == {} for obs in first)
    game, frame, pointed = Game(start), 4, 0
    for move in random_game(board, rng, battle_plies=0)[:4]:
        side = game.position.side
        stable = None
        for bgr, _ in ply_frames(camera, table, move, side, rng):
            result = vision.process(bgr, frame)
            frame += 1
            stable = result.stable or stable
        game.push(move)
        assert stable is not None and stable.changes
        stacks = game.position.stacks()
        landing, vacated = move.path[-1], move.path[0]
        others = [stable.changes[c] for c, (colour, _) in stacks.items()
                  if colour == side and c != landing]
        assert stable.changes[landing] > max(others), move.token
        assert stable.changes[vacated] > max(others), move.token
        # Most untouched stacks read as an ordinary cell of the board.
        assert np.median(others) < 3.0
        # The landing's top disc sits a stone nearer the camera: it grew more than
        # most untouched stacks' (growth is 0 at their median), and empty cells show none.
        grown = [stable.growth[c] for c, (colour, _) in stacks.items()
                 if colour == side and c != landing]
        assert stable.growth[landing] > np.median(grown), move.token
        assert all(stable.growth[c] == 0 for c in stable.growth if c not in stacks)
        # The hand that put the stone down was last seen pointing at the landing: its
        # centre is nearer the spot than any other stack's (an arm coming in across the
        # corner, its fingers' end out of view, points nowhere).
        if stable.pointed is not None:
            pointed += 1
            distance = {c: pointed_distance(c, stable.pointed) for c in stacks}
            assert distance[landing] < 0.6 and distance[landing] == min(distance.values()), move.token
    assert pointed >= 3


def _board_pictures(shift_px: float, seed: int = 0):
    """Two rectified pictures of a 7x8 board whose lower half is busy (empty cells with
    a changing texture: light, glare) and whose upper half holds dark stones on a dark
    face; the stone on d7 moved by ``shift_px`` between them (a stone put on it)."""
    from fenix_table.vision.cells import Rectified
    import cv2

    ppc, pad, width, height = 32, 16, 7, 8
    rng = np.random.default_rng(seed)
    size = (height * ppc + 2 * pad, width * ppc + 2 * pad)
    yy, xx = np.mgrid[0:size[0], 0:size[1]].astype(np.float32)
    pictures = []
    for moved in (0.0, shift_px):
        L = np.full(size, 14.0, np.float32)
        L[pad + 4 * ppc:] += rng.normal(0, 6, (size[0] - pad - 4 * ppc, size[1])).astype(np.float32)
        for rank in range(4, 8):
            for file in range(width):
                cx, cy = pad + (file + 0.5) * ppc, pad + (rank + 0.5) * ppc
                if (file, rank) == (3, 6):
                    cx += moved
                disc = np.hypot(xx - cx, yy - cy) < 0.4 * ppc
                L[disc] = 9.0 + rng.normal(0, 0.2, int(disc.sum()))
        lab = np.stack([L, np.zeros_like(L), np.zeros_like(L)], axis=-1)
        grad = np.hypot(cv2.Sobel(L, cv2.CV_32F, 1, 0), cv2.Sobel(L, cv2.CV_32F, 0, 1))
        pictures.append(Rectified(lab, grad, ppc, pad))
    colours = ["empty"] * (4 * width) + ["black"] * (4 * width)
    return pictures, colours


def test_dark_stones_are_measured_against_their_own_colour_not_the_whole_board():
    from fenix_table.board import cell_names
    from fenix_table.referee.tracker import CHANGE_MIN
    from fenix_table.vision.evidence import stack_changes

    names = cell_names("7x8")
    (before, after), colours = _board_pictures(shift_px=1.5)
    board_scale = dict(zip(names, stack_changes(before, after, 7, 8)))
    own_scale = dict(zip(names, stack_changes(before, after, 7, 8, colours)))
    untouched = [own_scale[n] for n, c in zip(names, colours) if c == "black" and n != "d7"]
    # Against the busy empty cells the dark stone's change is lost; against the other
    # dark stones it stands out, and they stay ordinary.
    assert board_scale["d7"] < CHANGE_MIN <= own_scale["d7"]
    assert max(untouched) < CHANGE_MIN / 2
    # Nothing moved: no dark stone's noise is blown up into a change.
    (before, after), colours = _board_pictures(shift_px=0.0)
    still = stack_changes(before, after, 7, 8, colours)
    assert max(v for v, c in zip(still, colours) if c == "black") < CHANGE_MIN / 2


def test_a_shadow_on_one_side_of_a_stack_is_not_its_change_but_a_shifted_top_disc_is():
    import cv2

    from fenix_table.board import cell_names
    from fenix_table.referee.tracker import CHANGE_MIN
    from fenix_table.vision.cells import Rectified
    from fenix_table.vision.evidence import stack_changes

    # Dark stones on a light face. Between the two pictures a stone is put on d5 (its top
    # disc a pixel and a half off the one below, a thin crescent on two sides), and e5's
    # grown neighbour throws a longer shadow over e5's side that faces d5.
    ppc, pad, width, height = 32, 16, 7, 8
    rng = np.random.default_rng(3)
    size = (height * ppc + 2 * pad, width * ppc + 2 * pad)
    yy, xx = np.mgrid[0:size[0], 0:size[1]].astype(np.float32)
    centre = lambda file, rank: (pad + (file + 0.5) * ppc, pad + (rank + 0.5) * ppc)  # noqa: E731
    pictures = []
    for later in (False, True):
        L = np.full(size, 80.0, np.float32) + rng.normal(0, 1.0, size).astype(np.float32)
        for rank in range(2, 6):
            for file in range(width):
                cx, cy = centre(file, rank)
                if later and (file, rank) == (3, 4):
                    cx, cy = cx + 1.5, cy - 0.8
                L[np.hypot(xx - cx, yy - cy) < 0.4 * ppc] = 12.0
        if later:
            cx, cy = centre(4, 4)
            L[(np.hypot(xx - cx, yy - cy) < 0.47 * ppc) & (xx < cx - 0.2 * ppc)] -= 25.0
        L += rng.normal(0, 0.5, size).astype(np.float32)
        lab = np.stack([L, np.zeros_like(L), np.zeros_like(L)], axis=-1)
        grad = np.hypot(cv2.Sobel(L, cv2.CV_32F, 1, 0), cv2.Sobel(L, cv2.CV_32F, 0, 1))
        pictures.append(Rectified(lab, grad, ppc, pad))
    colours = ["empty"] * (2 * width) + ["black"] * (4 * width) + ["empty"] * (2 * width)
    changes = dict(zip(cell_names("7x8"), stack_changes(*pictures, width, height, colours)))
    assert changes["d5"] >= CHANGE_MIN
    # The shadow covers three of e5's eight rim sectors: less than a third of d5's change,
    # so the referee's neighbour rule does not doubt d5 for it.
    assert changes["e5"] < 0.3 * changes["d5"]


def _start_shadow(board, azimuth, ambient):
    """The shadow direction vision finds on the generator's start position lit from
    ``azimuth`` (degrees, board coordinates), as an angle in degrees (None: none found)."""
    import math

    from fenix_tools.sim import random_scene as scene_of

    nrng = np.random.default_rng(3)
    scene = replace(scene_of(nrng, board, image_size=(960, 720), hard=False, hand=False),
                    light_azimuth_deg=azimuth, light_elevation_deg=45.0, ambient=ambient)
    camera = TableCamera(board, scene, seed=3)
    table = PhysicalBoard.from_position(Position.start(board), nrng, 0.05, 0.0)
    vision = Vision(board=board, stable_frames=3)
    stable = [vision.process(camera.frame(table)[0], i).stable for i in range(4)]
    shadow = [obs for obs in stable if obs is not None][-1].shadow
    return None if shadow is None else math.degrees(math.atan2(shadow[1], shadow[0]))


def test_a_still_boards_stacks_show_which_way_their_shadows_fall():
    for board, azimuth in (("7x8", 0.0), ("9x9", 130.0)):
        found = _start_shadow(board, azimuth, ambient=0.4)
        away = (azimuth + 180.0) % 360.0
        assert found is not None and abs((found - away + 180.0) % 360.0 - 180.0) < 45.0
    # Light from everywhere casts no shadow to find.
    assert _start_shadow("7x8", 0.0, ambient=1.0) is None


def test_the_change_score_is_the_four_looks_each_on_its_own_colours_scale():
    """stack_changes, worked out cell by cell with plain medians and means as its
    docstring says, on the busy board of _board_pictures: the fast version must give the
    same scores (it shares the looks' medians and scales all four looks at once)."""
    from fenix_table.vision.evidence import RIM, RING, SECTORS, stack_changes

    (before, after), colours = _board_pictures(shift_px=1.5)
    ppc, pad, width, height = 32, 16, 7, 8
    c = (np.arange(ppc) + 0.5) / ppc - 0.5
    x, y = np.meshgrid(c, c)
    r = np.hypot(x, y)
    inside, rim = (r >= RING[0]) & (r <= RING[1]), (r >= RIM[0]) & (r <= RIM[1])
    sector = np.round(np.arctan2(y, x) / (2 * np.pi / SECTORS)).astype(int) % SECTORS

    def looks(old, new, kind):
        out = []
        for rank in range(height):
            for file in range(width):
                window = np.s_[pad + rank * ppc:pad + (rank + 1) * ppc, pad + file * ppc:pad + (file + 1) * ppc]
                o, n = old[window].astype(np.float64), new[window].astype(np.float64)
                if kind == "gain":
                    o_in = o[inside] * n[inside].mean() / (o[inside].mean() + 1e-3)
                    o_rim = o[rim] * n[rim].mean() / (o[rim].mean() + 1e-3)
                    d_in, d_rim = n[inside] - o_in, n[rim] - o_rim
                else:
                    offset = np.median(n[inside] - o[inside])
                    d_in, d_rim = n[inside] - o[inside] - offset, n[rim] - o[rim] - offset
                sectors = [np.abs(d_rim[sector[rim] == s]).mean() for s in range(SECTORS)]
                out.append((np.abs(d_in).mean(), np.median(sectors)))
        return np.array(out).T

    def robust(v):
        out = np.empty_like(v)
        spread = 1.4826 * np.median(np.abs(v - np.median(v))) + 1e-3
        for colour in set(colours):
            cells = np.array(colours) == colour
            own = v[cells]
            scale = max(1.4826 * np.median(np.abs(own - np.median(own))) + 1e-3, 0.25 * spread)
            out[cells] = (own - np.median(own)) / scale
        return out

    expected = sum(robust(v) for v in (*looks(before.grad, after.grad, "gain"),
                                       *looks(before.L, after.L, "offset"))) / 2
    got = stack_changes(before, after, width, height, colours)
    assert np.allclose(got, expected, atol=1e-3)


def _grown_pictures(grow_px: float, seed: int = 1, off: float = 0.0):
    """Two rectified pictures of a 7x8 board: dark stones (soft-edged discs, as a lens
    draws them) on a dark face in ranks 5-8, busy empty cells below; between them the
    stone on d7 (lying ``off`` of a cell right of its cell's centre and half that down)
    grew by ``grow_px`` in radius and moved a third of a pixel (a stone put on it, one
    stone nearer the camera), and c6 darkened on its left side (a neighbour's longer
    shadow)."""
    import cv2

    from fenix_table.vision.cells import Rectified

    ppc, pad, width, height = 32, 16, 7, 8
    rng = np.random.default_rng(seed)
    size = (height * ppc + 2 * pad, width * ppc + 2 * pad)
    yy, xx = np.mgrid[0:size[0], 0:size[1]].astype(np.float32)
    pictures = []
    for later in (False, True):
        L = np.full(size, 14.0, np.float32)
        L[:pad + 4 * ppc] += rng.normal(0, 6, (pad + 4 * ppc, size[1])).astype(np.float32)
        for rank in range(4, 8):
            for file in range(width):
                cx, cy, radius = pad + (file + 0.5) * ppc, pad + (rank + 0.5) * ppc, 0.4 * ppc
                if (file, rank) == (3, 6):
                    cx, cy = cx + off * ppc, cy + off * ppc / 2
                if later and (file, rank) == (3, 6):
                    cx, radius = cx + 0.33, radius + grow_px
                cover = np.clip(radius - np.hypot(xx - cx, yy - cy) + 0.5, 0, 1)
                L -= 5.0 * cover
        if later:
            cx, cy = pad + 2.5 * ppc, pad + 5.5 * ppc
            L[(np.hypot(xx - cx, yy - cy) < 0.47 * ppc) & (xx < cx - 0.2 * ppc)] -= 1.5
        L += rng.normal(0, 0.3, size).astype(np.float32)
        lab = np.stack([L, np.zeros_like(L), np.zeros_like(L)], axis=-1)
        grad = np.hypot(cv2.Sobel(L, cv2.CV_32F, 1, 0), cv2.Sobel(L, cv2.CV_32F, 0, 1))
        pictures.append(Rectified(lab, grad, ppc, pad))
    colours = ["empty"] * (4 * width) + ["black"] * (4 * width)
    return pictures, colours


def test_a_top_disc_that_grew_is_measured_as_grown_and_a_shadowed_one_is_not():
    from fenix_table.board import cell_names
    from fenix_table.referee.tracker import CHANGE_MIN
    from fenix_table.vision.evidence import stack_growth

    names = cell_names("7x8")
    (before, after), colours = _grown_pictures(grow_px=0.5)
    growth = dict(zip(names, stack_growth(before, after, 7, 8, colours)))
    # Half a pixel in radius on a dark disc: many spreads of the other stacks' noise.
    # The neighbour darkened from one side did not grow; empty cells have no disc.
    assert growth["d7"] >= CHANGE_MIN
    assert growth["c6"] < 0.25 * growth["d7"]
    assert all(v == 0 for v, c in zip(growth.values(), colours) if c == "empty")
    # A disc that neither grew nor moved shows no growth.
    (before, after), colours = _grown_pictures(grow_px=0.0)
    still = dict(zip(names, stack_growth(before, after, 7, 8, colours)))
    assert still["d7"] < 3.0


def test_the_growth_of_a_stone_lying_off_its_cells_centre_is_measured_whole():
    # Stones lie up to a tenth of a cell off their cell's centre: the fit reaches to the
    # cell's edge, so the whole rim of such a stone is in it.
    from fenix_table.board import cell_names
    from fenix_table.vision.evidence import stack_growth

    names = cell_names("7x8")
    grown = {}
    for off in (0.0, 0.09):
        (before, after), colours = _grown_pictures(grow_px=0.5, off=off)
        grown[off] = dict(zip(names, stack_growth(before, after, 7, 8, colours)))["d7"]
    assert grown[0.09] >= 0.8 * grown[0.0]


def _hand_pictures(tip, shadow_beyond: float = 0.0, arm=(0.0, -1.0)):
    """Rectified pictures of a light 7x8 board, still and with a dark skin-toned arm
    reaching in over the edge along ``arm`` (from the fingers towards the player),
    its fingers' front at ``tip`` (board cells); with ``shadow_beyond`` the arm's
    shadow reaches that far beyond the fingers (the board's colour, dimmed)."""
    from fenix_table.vision.cells import Rectified

    ppc, pad, width, height = 32, 16, 7, 8
    size = (height * ppc + 2 * pad, width * ppc + 2 * pad)
    yy, xx = np.mgrid[0:size[0], 0:size[1]].astype(np.float32)
    bx, by = (xx + 0.5 - pad) / ppc, (yy + 0.5 - pad) / ppc     # board cells
    board = np.stack([np.full(size, 70.0), np.full(size, 5.0), np.full(size, 25.0)], axis=-1)
    u = np.array(arm) / np.hypot(*arm)
    along = (bx - tip[0]) * u[0] + (by - tip[1]) * u[1]
    across = np.abs(-(bx - tip[0]) * u[1] + (by - tip[1]) * u[0])
    hand = board.copy()
    shadow = (along >= -shadow_beyond) & (across <= 0.7)
    hand[shadow] *= 0.6
    arm_pixels = (along >= 0) & (across <= 0.5)
    hand[arm_pixels] = (45.0, 18.0, 22.0)
    pictures = []
    for lab in (board, hand):
        lab = lab.astype(np.float32)
        pictures.append(Rectified(lab, np.zeros(size, np.float32), ppc, pad))
    return pictures


def test_the_hand_points_where_its_fingers_end_not_where_its_shadow_does():
    from fenix_table.vision.evidence import FINGER_FRONT, POINT_BACK, pointed_at

    for tip, arm, shadow in (((2.5, 3.2), (0.0, -1.0), 0.0), ((4.3, 5.0), (0.6, 0.8), 0.9),
                             ((1.0, 2.0), (-1.0, 0.2), 0.5)):
        still, hand = _hand_pictures(tip, shadow, arm)
        spot = pointed_at([hand], still)
        u = np.array(arm) / np.hypot(*arm)
        # The front's middle (half the front's depth back from the end), then POINT_BACK.
        expected = np.array(tip) + (FINGER_FRONT / 2 + POINT_BACK) * u
        assert spot is not None and np.hypot(*(np.array(spot) - expected)) < 0.1, (tip, spot)
        # The newest frame before the still run may already show no hand: the one
        # before it is taken.
        assert pointed_at([hand, still], still) == spot
    # No hand in any frame: nothing pointed.
    assert pointed_at([still, still], still) is None

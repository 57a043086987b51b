"""What one rendered room holds, drawn from a seed: board face, stones, table, lights,
camera, a hand, and the frame's ground truth. No renderer here (see :mod:`.render`).

World units are cells (a real FENIX cell is about 30 mm); the printed face lies in
``z = 0``, a1's outer corner at the origin, files along ``x``, ranks along ``y``. The
board is a slab ``thickness`` deep on a table at ``z = -thickness``.

Scene families: a room is one table kind, one light setup and one stone finish, its
family the three names joined by ``/``. Some of each are drawn only for the evaluation
split (:data:`EVAL_ONLY`), so no evaluation room is of a family seen in training; others
only for the tuning split (:data:`TUNE_ONLY`: rooms of families no model trains on and
the evaluation never sees, for choosing a reader's settings honestly). The tuning kinds
are kept out of :data:`TABLES`, :data:`LIGHTS` and :data:`FINISHES` and draw nothing
extra in other rooms, so every train and eval seed renders as it did before them.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from fenix_table.board import cell_index, cell_names, dimensions, light_lines
from fenix_table.rules import Game, Position
from fenix_table.rules.options import OFFICIAL

from .camera import LensCamera, look_down
from .textures import FacePrint, blackbody, srgb_to_linear

Placement = Dict[str, Tuple[str, int]]

TABLES = ("wood_light", "wood_mid", "cloth_stripe", "cloth_plain", "laminate", "cloth_check", "wood_dark")
LIGHTS = ("ceiling", "lamp_near", "window", "dim_lamp", "evening_multi", "sun_beam")
FINISHES = ("matte", "glossy", "lacquer")
#: Drawn only for the eval split: a room of the eval split has at least one of them.
EVAL_ONLY = {"table": ("cloth_check", "wood_dark"), "light": ("evening_multi", "sun_beam"),
             "finish": ("lacquer",)}
#: Drawn only for the tune split: a room of the tune split has at least one of them.
TUNE_ONLY = {"table": ("wood_walnut",), "light": ("desk_dusk",), "finish": ("polished",)}
SPLITS = ("train", "eval", "tune")


@dataclass(frozen=True)
class Family:
    table: str
    light: str
    finish: str

    @property
    def name(self) -> str:
        return f"{self.table}/{self.light}/{self.finish}"

    @property
    def split(self) -> str:
        for split, only in (("tune", TUNE_ONLY), ("eval", EVAL_ONLY)):
            if self.table in only["table"] or self.light in only["light"] or self.finish in only["finish"]:
                return split
        return "train"


def draw_family(rng: np.random.Generator, split: str) -> Family:
    """A family of ``split``: train rooms use none of :data:`EVAL_ONLY` (nor of
    :data:`TUNE_ONLY`), eval rooms at least one of :data:`EVAL_ONLY`, tune rooms at least
    one of :data:`TUNE_ONLY` (each kind held out with even odds, drawn again until one
    is; the rest from the train kinds)."""
    pools = {k: [v for v in vals if v not in EVAL_ONLY[k]]
             for k, vals in (("table", TABLES), ("light", LIGHTS), ("finish", FINISHES))}
    if split == "train":
        return Family(*(str(rng.choice(pools[k])) for k in ("table", "light", "finish")))
    only = TUNE_ONLY if split == "tune" else EVAL_ONLY
    while True:
        held = {k: rng.random() < 0.5 for k in ("table", "light", "finish")}
        if any(held.values()):
            break
    return Family(*(str(rng.choice(only[k] if held[k] else pools[k]))
                    for k in ("table", "light", "finish")))


@dataclass
class Light:
    kind: str                     # "sphere" | "rect"
    position: np.ndarray          # centre
    size: float                   # radius (sphere) or half side (rect)
    rgb: np.ndarray               # linear colour, green 1
    irradiance: float             # on the board's centre, relative
    normal: Optional[np.ndarray] = None   # rect: facing direction


@dataclass
class Capsule:
    """A hand part: segment ``p0``-``p1`` swept by ``radius``; ``sleeve`` picks cloth."""

    p0: np.ndarray
    p1: np.ndarray
    radius: float
    sleeve: bool = False


@dataclass
class StoneLook:
    radius: float
    thickness: float
    bevel: float                   # share of the thickness rounded off at each rim
    red: np.ndarray                # linear reflectance
    black: np.ndarray
    roughness: float               # GGX alpha of the coat (matte: no coat)
    finish: str


@dataclass
class Disc:
    x: float
    y: float
    z: float
    colour: str
    angle: float


@dataclass
class Room:
    """Everything but the stones of the board: fixed across a scene's frames."""

    board: str
    family: Family
    size: Tuple[int, int]
    face: FacePrint
    face_gloss: float              # 0: matte print, else GGX alpha of a laminate
    thickness: float
    edge_rgb: np.ndarray
    table_kind: str
    table_seed: int
    table_scale: float             # side of the table (one texture), cells
    table_rough: float             # 0: cloth (diffuse)
    table_angle: float
    look: StoneLook
    lights: List[Light]
    ambient: np.ndarray            # linear radiance of the room's bounce light
    camera: LensCamera
    aperture: float                # thin-lens radius, cells
    focus_error: float             # share of the distance
    exposure_ev: float             # relative to auto exposure
    white_balance: float           # 0 none .. 1 full correction of the light's colour
    noise_gain: float
    read_noise: float
    vignette: float
    sharpen: float
    jpeg: int
    spare: List[Disc] = field(default_factory=list)
    face_seed: int = 0


def draw_room(rng: np.random.Generator, board: str, family: Family,
              size: Tuple[int, int] = (1280, 960)) -> Room:
    cols, rows = dimensions(board)
    u = rng.uniform
    # --- the printed face (both FENIX faces: 9x9 light lines on dark, 7x8 the reverse)
    if light_lines(board):
        hue = rng.choice([(0.16, 0.2, 0.28), (0.12, 0.12, 0.13), (0.2, 0.16, 0.26),
                          (0.14, 0.22, 0.16), (0.25, 0.17, 0.12), (0.1, 0.14, 0.24)])
        ground = np.clip(np.array(hue) * u(0.6, 1.4), 0, 1)
        line = np.clip(np.full(3, u(0.7, 0.95)) + rng.normal(0, 0.03, 3), 0, 1)
    else:
        hue = rng.choice([(0.86, 0.82, 0.72), (0.75, 0.83, 0.88), (0.88, 0.88, 0.86),
                          (0.8, 0.72, 0.55), (0.7, 0.8, 0.7), (0.9, 0.85, 0.8)])
        ground = np.clip(np.array(hue) * u(0.8, 1.08), 0, 1)
        line = np.clip(np.full(3, u(0.05, 0.3)) + rng.normal(0, 0.03, 3), 0, 1)
    margins = tuple(float(u(0.3, 0.8)) for _ in range(4))
    title_side = -1
    if rng.random() < 0.4:
        title_side = int(rng.integers(4))
        margins = tuple(m if i != title_side else float(u(0.8, 1.3)) for i, m in enumerate(margins))
    border = float(u(0.12, min(margins) - 0.1)) if rng.random() < 0.5 else 0.0
    face = FacePrint(ground=tuple(ground), line=tuple(line), line_width=float(u(0.02, 0.07)),
                     margins=margins, border=border, border_width=float(u(0.015, 0.08)),
                     title_side=title_side, wear=float(u(0, 1) if rng.random() < 0.6 else 0.0),
                     grain=float(u(0.2, 1.5)))
    ml, mb, mr, mt = margins
    outline = np.array([(-ml, -mb), (cols + mr, -mb), (cols + mr, rows + mt), (-ml, rows + mt)])
    camera = look_down(rng, (cols, rows), outline, size)
    # --- stones
    finish = family.finish
    look = StoneLook(
        radius=float(u(0.36, 0.44)), thickness=float(u(0.14, 0.28)), bevel=float(u(0.05, 0.45)),
        red=_lin(np.array([u(0.5, 0.85), u(0.03, 0.22), u(0.03, 0.18)])),
        black=_lin(np.full(3, u(0.02, 0.14)) + rng.normal(0, 0.01, 3)),
        # (Every finish draws the glossy coat's roughness, so the draws after it do not
        # depend on the finish; a polished coat is a tenth as rough.)
        roughness=_roughness(finish, float(u(0.04, 0.3))),
        finish=finish)
    # --- lights
    lights, ambient, ev = _draw_lights(rng, family.light, (cols, rows))
    _clear_board(lights, camera, board, outline)
    # --- table
    kind = family.table
    table_rough = {"wood_light": u(0.15, 0.5), "wood_mid": u(0.15, 0.5), "wood_dark": u(0.1, 0.4),
                   "laminate": u(0.1, 0.5)}.get(kind, 0.0)
    if kind == "wood_walnut":
        table_rough = u(0.1, 0.45)
    room = Room(
        board=board, family=family, size=size, face=face,
        face_gloss=float(u(0.08, 0.4)) if rng.random() < 0.5 else 0.0,
        thickness=float(u(0.05, 0.25)),
        edge_rgb=_lin(np.clip(np.array(ground) * u(0.5, 1.1), 0, 1)),
        table_kind=kind, table_seed=int(rng.integers(1 << 30)),
        table_scale=float(u(55, 75)), table_rough=float(table_rough), table_angle=float(u(0, 180)),
        look=look, lights=lights, ambient=ambient, camera=camera,
        aperture=float(u(0, 0.12)), focus_error=float(rng.normal(0, 0.04)),
        exposure_ev=ev, white_balance=float(u(0.3, 1.0)),
        noise_gain=float(u(0.0004, 0.002)) * {"dim_lamp": 4.0, "desk_dusk": 3.0}.get(family.light, 1.0),
        read_noise=float(u(0.0005, 0.003)), vignette=float(u(0, 0.35)),
        sharpen=float(u(0, 0.8)), jpeg=int(rng.integers(60, 96)), face_seed=int(rng.integers(1 << 30)))
    room.spare = spare_stones(rng, room)
    return room


def _roughness(finish: str, glossy: float) -> float:
    """The stones' coat (GGX alpha) of ``finish``, given the glossy coat's drawn one."""
    return {"matte": 1.0, "glossy": glossy, "lacquer": 0.0, "polished": glossy / 10}[finish]


def _lin(c) -> np.ndarray:
    return srgb_to_linear(np.clip(np.asarray(c, float), 0, 1), np.float64)


def _draw_lights(rng: np.random.Generator, setup: str, board_wh) -> Tuple[List[Light], np.ndarray, float]:
    """Lamps of ``setup`` around the board's centre; the room's ambient light; the
    exposure offset (EV) a camera's auto exposure ends up at in such a room."""
    u = rng.uniform
    cx, cy = board_wh[0] / 2, board_wh[1] / 2

    def around(dist, height, kelvin, radius, irr, azimuth=None):
        a = u(0, 2 * math.pi) if azimuth is None else azimuth
        p = np.array([cx + dist * math.cos(a), cy + dist * math.sin(a), height])
        return Light("sphere", p, radius, blackbody(kelvin), irr)

    lights: List[Light] = []
    ev = float(rng.normal(0, 0.25))
    amb_k = u(3000, 6500)
    amb = 0.15
    if setup == "ceiling":
        for _ in range(int(rng.integers(1, 3))):
            lights.append(around(u(0, 25), u(35, 60), u(2700, 5500), u(2, 5), u(0.6, 1.0)))
        amb = u(0.1, 0.3)
    elif setup == "lamp_near":
        lights.append(around(u(5, 14), u(5, 14), u(2600, 4500), u(0.3, 1.0), 1.0))
        if rng.random() < 0.5:
            lights.append(around(u(0, 20), u(35, 60), u(3000, 5000), u(2, 4), u(0.1, 0.4)))
        amb = u(0.04, 0.15)
    elif setup == "window":
        a = u(0, 2 * math.pi)
        d = np.array([math.cos(a), math.sin(a)])
        p = np.array([cx + 35 * d[0], cy + 35 * d[1], u(8, 25)])
        n = np.array([cx, cy, 0.0]) - p
        lights.append(Light("rect", p, u(8, 16), blackbody(u(5500, 7500)), 1.0, n / np.linalg.norm(n)))
        amb = u(0.15, 0.35)
        amb_k = u(6000, 8000)
    elif setup == "dim_lamp":
        lights.append(around(u(6, 20), u(8, 25), u(2200, 3200), u(0.4, 1.5), 1.0))
        amb = u(0.02, 0.08)
        ev = float(u(-2.0, -0.8))
    elif setup == "evening_multi":
        for _ in range(int(rng.integers(2, 5))):
            lights.append(around(u(4, 18), u(5, 20), u(2000, 6500), u(0.3, 1.2), u(0.3, 1.0)))
        amb = u(0.02, 0.1)
        ev = float(u(-1.5, -0.3))
    elif setup == "desk_dusk":
        # A warm desk lamp low beside the board, the last daylight cool and faint.
        lights.append(around(u(4, 10), u(3, 8), u(2400, 3000), u(0.2, 0.6), 1.0))
        a = u(0, 2 * math.pi)
        p = np.array([cx + 40 * math.cos(a), cy + 40 * math.sin(a), u(10, 20)])
        n = np.array([cx, cy, 0.0]) - p
        lights.append(Light("rect", p, u(6, 12), blackbody(u(7000, 9000)), u(0.05, 0.2), n / np.linalg.norm(n)))
        amb = u(0.02, 0.06)
        amb_k = u(6500, 9000)
        ev = float(u(-1.8, -0.6))
    elif setup == "sun_beam":
        # Sunlight through a window: a small distant source (hard shadows), low and bright.
        a = u(0, 2 * math.pi)
        el = math.radians(u(25, 55))
        dvec = np.array([math.cos(a) * math.cos(el), math.sin(a) * math.cos(el), math.sin(el)])
        lights.append(Light("sphere", np.array([cx, cy, 0.0]) + 200 * dvec, 1.6,
                            blackbody(u(4800, 5800)), 1.0))
        amb = u(0.08, 0.25)
        amb_k = u(6500, 9000)
    else:
        raise ValueError(f"unknown light setup {setup!r}")
    return lights, blackbody(amb_k) * amb, ev


def _clear_board(lights: List[Light], camera: LensCamera, board: str, outline: np.ndarray) -> None:
    """Move any lamp that would hide part of the board from the camera outwards (away
    from the board's centre, a cell at a time) until it hides nothing: the truth says
    every cell is seen unless a hand covers it."""
    cols, rows = dimensions(board)
    xs = np.linspace(outline[:, 0].min(), outline[:, 0].max(), 4 * cols)
    ys = np.linspace(outline[:, 1].min(), outline[:, 1].max(), 4 * rows)
    points = np.array([(x, y, 0.0) for x in xs for y in ys])
    centre = np.array([cols / 2, rows / 2])
    for light in lights:
        if light.kind != "sphere":
            continue
        for _ in range(60):
            blob = Capsule(light.position, light.position, light.size * 1.2)
            if not _segment_hits(camera.C, points, blob):
                break
            away = light.position[:2] - centre
            away = away / max(np.linalg.norm(away), 1e-6)
            light.position = light.position + np.array([away[0], away[1], 0.0])


def spare_stones(rng: np.random.Generator, room: Room) -> List[Disc]:
    """0-5 stacks of stones lying on the table beside the board (captured ones)."""
    cols, rows = dimensions(room.board)
    ml, mb, mr, mt = room.face.margins
    out: List[Disc] = []
    z0 = -room.thickness
    for _ in range(int(rng.integers(0, 6))):
        side = int(rng.integers(4))
        gap = rng.uniform(0.6, 2.5)
        along = rng.uniform(-0.5, (cols if side % 2 == 0 else rows) + 0.5)
        x, y = [(along, -mb - gap), (cols + mr + gap, along), (along, rows + mt + gap),
                (-ml - gap, along)][side]
        colour = "red" if rng.random() < 0.5 else "black"
        for k in range(int(rng.integers(1, 4))):
            out.append(Disc(x + rng.normal(0, 0.04), y + rng.normal(0, 0.04),
                            z0 + k * room.look.thickness, colour, rng.uniform(0, 2 * math.pi)))
    return out


# --------------------------------------------------------------------------- positions

def game_position(board: str, rng: random.Random, stage: str) -> Position:
    """A position a real game reaches: ``start``; ``setup`` (part of the stacking
    plies made); ``midgame`` (setup done, some battle plies); ``late`` (many plies)."""
    start = Position.start(board)
    if stage == "start":
        return start
    from fenix_tools.sim.game import random_game

    battle = {"setup": 0, "midgame": rng.randint(2, 14), "late": rng.randint(16, 40)}[stage]
    moves = random_game(board, rng, battle_plies=battle, prefer_creation=stage != "setup", tries=4)
    game = Game(start, OFFICIAL)
    stop = len(moves)
    if stage == "setup":
        stop = rng.randint(1, max(1, len(moves)))
    for move in moves[:stop]:
        game.push(move)
    return game.position


def later_position(position: Position, rng: random.Random, plies: Tuple[int, int] = (1, 6)) -> Position:
    """``position`` played on by a random number of random legal plies (``plies``, both
    ends included; fewer when the game ends): the board a few moves after the game frame,
    which the table reads with what that frame taught it."""
    game = Game(position, OFFICIAL)
    for _ in range(rng.randint(*plies)):
        moves = game.legal_moves()
        if not moves or game.status().over:
            break
        game.push(rng.choice(moves))
    return game.position


def lay_stones(rng: np.random.Generator, placement: Placement, look: StoneLook,
               jitter: float, stacking: float) -> List[Disc]:
    """Discs of ``placement`` as put by hand: each stack off its cell centre by up to
    ``jitter`` (uniform per axis), each stone N(0, ``stacking``) off the one below."""
    out: List[Disc] = []
    for cell, (colour, height) in placement.items():
        f, r = cell_index(cell)
        x, y = f + 0.5 + rng.uniform(-jitter, jitter), r + 0.5 + rng.uniform(-jitter, jitter)
        for k in range(int(height)):
            if k:
                x, y = x + rng.normal(0, stacking), y + rng.normal(0, stacking)
            out.append(Disc(float(x), float(y), k * look.thickness, colour, float(rng.uniform(0, 2 * math.pi))))
    return out


def draw_hand(rng: np.random.Generator, board: str, tip: Tuple[float, float],
              angle_deg: float) -> List[Capsule]:
    """A hand reaching in: fingertips over board point ``tip``, the forearm rising away
    towards ``angle_deg`` (the owner's side), sizes of an adult hand over 30 mm cells."""
    a = math.radians(angle_deg)
    uvec = np.array([math.cos(a), math.sin(a), 0.0])
    n = np.array([-uvec[1], uvec[0], 0.0])
    up = np.array([0.0, 0.0, 1.0])
    zt = rng.uniform(0.5, 2.5)
    T = np.array([tip[0], tip[1], zt])
    rise = math.tan(math.radians(rng.uniform(10, 35)))
    spread = rng.uniform(0.8, 1.2)
    knuckle = T + uvec * 2.3 + up * 0.6
    wrist = knuckle + uvec * 2.8 + up * (2.8 * rise)
    elbow = wrist + uvec * 8.5 + up * (8.5 * rise)
    parts: List[Capsule] = []
    for i, (side, reach) in enumerate(((-0.75, 0.35), (-0.25, 0.0), (0.25, 0.1), (0.7, 0.55))):
        base = knuckle + n * side * spread
        end = T + uvec * reach + n * side * 0.8 * spread
        parts.append(Capsule(base, end, rng.uniform(0.24, 0.3)))
    thumb_base = knuckle + uvec * 1.6 + n * 1.1 * spread
    parts.append(Capsule(thumb_base, knuckle + uvec * 0.2 + n * 1.45 * spread - up * 0.3, 0.3))
    for side in (-0.55, 0.0, 0.55):
        parts.append(Capsule(knuckle + n * side * spread + uvec * 0.3,
                             wrist + n * side * 0.6, 0.5))
    parts.append(Capsule(wrist, elbow, 0.95))
    if rng.random() < 0.85:
        start = wrist + (elbow - wrist) * rng.uniform(0.15, 0.5)
        parts.append(Capsule(start, elbow + (elbow - wrist) * 0.3, rng.uniform(1.15, 1.45), sleeve=True))
    return parts


def hand_cells(camera: LensCamera, board: str, parts: Sequence[Capsule]) -> Tuple[str, ...]:
    """Cells any part of the hand hides from the camera: a 5x5 grid of points over each
    cell (to 0.05 of its edge) whose ray to the camera passes through a part."""
    if not parts:
        return ()
    names = cell_names(board)
    offs = np.linspace(-0.45, 0.45, 5)
    grid = np.array([(dx, dy) for dx in offs for dy in offs])
    hidden = []
    for name in names:
        f, r = cell_index(name)
        P = np.c_[grid + (f + 0.5, r + 0.5), np.zeros(len(grid))]
        if any(_segment_hits(camera.C, P, c) for c in parts):
            hidden.append(name)
    return tuple(hidden)


def _segment_hits(C: np.ndarray, P: np.ndarray, cap: Capsule) -> bool:
    """Whether any segment C-P[i] passes within ``cap.radius`` of the capsule's axis."""
    d1 = P - C                        # (N, 3)
    d2 = cap.p1 - cap.p0
    r = C - cap.p0
    a = (d1 * d1).sum(1)
    e = float(d2 @ d2)
    f = r @ d2
    c = (d1 * r).sum(1)
    b = d1 @ d2
    denom = a * e - b * b
    s = np.where(denom > 1e-12, np.clip((b * f - c * e) / np.where(denom > 1e-12, denom, 1), 0, 1), 0.0)
    if e < 1e-12:                     # a sphere: the capsule's axis is one point
        t = np.zeros_like(a)
        s = np.clip(-c / a, 0, 1)
    else:
        t = np.clip((b * s + f) / e, 0, 1)
    s = np.where((t == 0) | (t == 1), np.clip((b * t - c) / a, 0, 1), s)
    p = C + d1 * s[:, None]
    q = cap.p0 + np.outer(t, d2)
    return bool((np.linalg.norm(p - q, axis=1) < cap.radius).any())


def skin_colour(rng: np.random.Generator) -> np.ndarray:
    """Linear RGB of skin, light to dark."""
    t = rng.uniform(0, 1)
    light, dark = np.array([0.92, 0.74, 0.62]), np.array([0.36, 0.22, 0.15])
    return _lin(light * (1 - t) + dark * t)

"""What one Cycles room holds, drawn from its seed, and the scene spec Blender renders.

The geometry and the truth are the physically based family's (:mod:`fenix_tools.pbr`):
world units are cells, the printed face in ``z = 0`` with a1's outer corner at the
origin; the camera is a :class:`~fenix_tools.pbr.camera.LensCamera` from
:func:`~fenix_tools.pbr.camera.look_down`; game positions, stone stacks and hands come from
:mod:`fenix_tools.pbr.scene`. The appearance is this family's own: the face printed
here with OpenCV, tables as Blender node patterns, Blender lamps, stone materials of
Cycles' principled shader, and the camera's development in :mod:`.develop`.

Scene families: a room is one table pattern, one light setup and one stone material,
joined by ``/``. :data:`TUNE_ONLY` kinds are drawn only in the tune split (every tune room
has at least one), so a model trained on this family's train split has never seen a tune
room's kind; :data:`TRAIN_ONLY` kinds only in the train split.
"""
from __future__ import annotations

import colorsys
import math
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np

from fenix_table.board import dimensions, light_lines

from fenix_tools.pbr.camera import LensCamera, look_down
from fenix_tools.pbr.scene import Capsule, Disc
from fenix_tools.pbr.textures import blackbody, srgb_to_linear

TABLES = ("wood", "check", "stripe", "plain")
LIGHTS = ("ceiling", "lamp_near", "window", "dim", "several", "sun", "overcast")
MATERIALS = ("plastic", "wood", "painted")
#: Drawn only for the tune split: glazed tiles, one hard spot low beside the board,
#: glass-like stones.
TUNE_ONLY = {"table": ("tiles",), "light": ("spot_low",), "material": ("glass",)}
#: Drawn only for the train split: light raking across the board from low down (a low
#: sun, or a broad lamp at the table's height) in a lit room, so that a net learns stones'
#: long shadows without seeing the tune split's hard spot in a dark room. Kept out of
#: :data:`LIGHTS` so that the tune split's rooms draw what they drew before it existed.
TRAIN_ONLY = {"light": ("raking",)}
SPLITS = ("train", "tune")
FACE_PPC = 64              # texels per cell of the printed face


@dataclass(frozen=True)
class Family:
    table: str
    light: str
    material: str

    @property
    def name(self) -> str:
        return f"{self.table}/{self.light}/{self.material}"


@dataclass(frozen=True)
class StoneLook:
    """The stones' shape (cells) and material kind (``finish`` in the truth)."""

    radius: float
    thickness: float
    bevel: float            # share of the thickness rounded off at each rim
    dome: float             # the top's rise at the centre, share of the thickness
    finish: str

    @property
    def pitch(self) -> float:
        """Height a stone adds to a stack (it rests on the dome of the one below)."""
        return self.thickness * (1 + self.dome)


@dataclass
class CyclesRoom:
    """Everything but the stones on the board and the hand: fixed across a room's frames.
    ``board``, ``size``, ``camera``, ``look`` and ``family`` are what
    :func:`fenix_tools.pbr.make.truth_of` reads."""

    board: str
    family: Family
    size: Tuple[int, int]
    camera: LensCamera
    look: StoneLook
    margins: Tuple[float, float, float, float]     # left, bottom, right, top (cells)
    face: Dict                                      # printing of the face (see draw_face)
    board_finish: Dict
    thickness: float
    edge_rgb: List[float]
    table: Dict
    lights: List[Dict]
    world: Dict
    materials: Dict[str, Dict]
    dof: Optional[Dict]                             # aperture radius (cells), focus error
    camera_look: Dict                               # what develop does (see develop.py)
    spare: List[Disc] = field(default_factory=list)


def draw_family(rng: np.random.Generator, split: str) -> Family:
    """Train rooms draw no :data:`TUNE_ONLY` kind; tune rooms at least one (each held out
    with even odds, drawn again until one is), and no :data:`TRAIN_ONLY` kind."""
    pools = {"table": TABLES, "light": LIGHTS, "material": MATERIALS}
    if split == "train":
        return Family(*(str(rng.choice(pools[k] + TRAIN_ONLY.get(k, ())))
                        for k in ("table", "light", "material")))
    while True:
        held = {k: rng.random() < 0.5 for k in pools}
        if any(held.values()):
            break
    return Family(*(str(rng.choice(TUNE_ONLY[k] if held[k] else pools[k])) for k in pools))


def _hsv(h: float, s: float, v: float) -> List[float]:
    return [float(c) for c in colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0), 1), min(max(v, 0), 1))]


def _lin(c) -> List[float]:
    return [float(v) for v in srgb_to_linear(np.clip(np.asarray(c, float), 0, 1), np.float64)]


def draw_room(rng: np.random.Generator, board: str, family: Family,
              size: Tuple[int, int] = (1280, 960)) -> CyclesRoom:
    cols, rows = dimensions(board)
    u = rng.uniform
    # --- the face's print: 9x9 light lines on a dark ground, 7x8 the reverse
    if light_lines(board):
        ground = _hsv(u(0, 1), u(0, 0.6), u(0.06, 0.35))
        ink = _hsv(u(0, 1), u(0, 0.2), u(0.72, 0.97))
    else:
        ground = _hsv(u(0, 1), u(0, 0.35), u(0.68, 0.95))
        ink = _hsv(u(0, 1), u(0, 0.7), u(0.03, 0.32))
    margins = [float(u(0.3, 0.8)) for _ in range(4)]
    title_side = -1
    if rng.random() < 0.4:
        title_side = int(rng.integers(4))
        margins[title_side] = float(u(0.8, 1.3))
    borders = []
    if rng.random() < 0.5:
        for _ in range(int(rng.integers(1, 3))):
            borders.append([float(u(0.12, min(margins) - 0.08)), float(u(0.015, 0.08))])
    face = {"ground": ground, "ink": ink, "line_width": float(u(0.02, 0.07)), "title_side": title_side,
            "title_ink": ink if rng.random() < 0.7 else _hsv(u(0, 1), u(0.4, 0.9), u(0.4, 0.9)),
            "borders": borders, "wear": float(u(0, 1)) if rng.random() < 0.6 else 0.0,
            "grime": float(u(0, 0.25)), "grain": float(u(0.005, 0.04)), "seed": int(rng.integers(1 << 30))}
    glossy = rng.random() < 0.4
    board_finish = {"roughness": float(u(0.08, 0.35) if glossy else u(0.55, 0.95)),
                    "specular": float(u(0.3, 0.6) if glossy else u(0.1, 0.4)),
                    "coat": float(u(0.3, 1.0)) if glossy and rng.random() < 0.5 else 0.0,
                    "coat_roughness": float(u(0.02, 0.2)), "bump": float(u(0.0, 0.15))}
    ml, mb, mr, mt = margins
    outline = np.array([(-ml, -mb), (cols + mr, -mb), (cols + mr, rows + mt), (-ml, rows + mt)])
    camera = look_down(rng, (cols, rows), outline, size, fill=(0.65, 1.0))
    # --- stones
    thickness = float(u(0.14, 0.28))
    look = StoneLook(radius=float(u(0.35, 0.45)), thickness=thickness, bevel=float(u(0.05, 0.45)),
                     dome=float(u(0.0, 0.25)) if rng.random() < 0.4 else 0.0, finish=family.material)
    materials = {colour: _stone_material(rng, family.material, colour) for colour in ("red", "black")}
    # --- lights and the room's glow
    lights, world, ev = _draw_lights(rng, family.light, (cols, rows))
    # --- table
    table = _draw_table(rng, family.table, (cols / 2, rows / 2))
    # --- camera
    dof = None
    if rng.random() < 0.6:
        dof = {"aperture": float(u(0.005, 0.09)), "focus_error": float(rng.normal(0, 0.03))}
    dim = family.light in ("dim", "spot_low")
    camera_look = {
        "exposure_ev": ev, "metering": str(rng.choice(["average", "centre", "highlights"])),
        "vignette": float(u(0, 0.45)), "aberration": float(u(0, 0.0015)),
        "white_balance": float(u(0.2, 1.0)), "wb_method": str(rng.choice(["grey", "white"])),
        "tint": [float(v) for v in rng.normal(0, 0.04, 2)],
        "gain": float(u(150, 1200) * (0.25 if dim else 1.0)), "read_noise": float(u(0.5, 4.0)),
        "curve": str(rng.choice(["srgb", "filmic", "contrast"])), "saturation": float(u(0.8, 1.25)),
        "demosaic": str(rng.choice(["bilinear", "edge"])), "sharpen": float(u(0, 1.0)),
        "jpeg": int(rng.integers(55, 96))}
    room = CyclesRoom(
        board=board, family=family, size=size, camera=camera, look=look, margins=tuple(margins),
        face=face, board_finish=board_finish, thickness=float(u(0.04, 0.3)),
        edge_rgb=_lin(np.array(ground) * u(0.4, 1.2)) if rng.random() < 0.6 else _lin(_hsv(u(0, 0.15), u(0.2, 0.6), u(0.3, 0.8))),
        table=table, lights=lights, world=world, materials=materials, dof=dof, camera_look=camera_look)
    room.spare = spare_stones(rng, room)
    return room


def _stone_material(rng: np.random.Generator, kind: str, colour: str) -> Dict:
    u = rng.uniform
    if colour == "red":
        rgb = _lin(_hsv(u(-0.03, 0.05), u(0.6, 0.95), u(0.45, 0.9)))
    else:
        rgb = _lin(_hsv(u(0, 1), u(0, 0.3), u(0.03, 0.2)))
    spec = {"kind": kind, "rgb": rgb, "roughness": 0.5, "coat": 0.0, "coat_roughness": 0.1,
            "grain_scale": float(u(2, 12)), "grain_angle": float(u(0, math.pi)), "transmission": 0.0}
    if kind == "plastic":
        spec.update(roughness=float(u(0.1, 0.6)), coat=float(u(0, 1)) if rng.random() < 0.5 else 0.0,
                    coat_roughness=float(u(0.02, 0.3)))
    elif kind == "wood":
        spec.update(roughness=float(u(0.3, 0.75)), coat=float(u(0.2, 0.9)) if rng.random() < 0.5 else 0.0,
                    coat_roughness=float(u(0.05, 0.3)))
    elif kind == "painted":
        spec.update(roughness=float(u(0.4, 0.9)))
    elif kind == "glass":
        spec.update(roughness=float(u(0.02, 0.2)), transmission=float(u(0.5, 0.95)))
    else:
        raise ValueError(f"unknown stone material {kind!r}")
    return spec


def _draw_table(rng: np.random.Generator, kind: str, centre) -> Dict:
    u = rng.uniform
    light = rng.random() < 0.5
    value = u(0.55, 0.9) if light else u(0.06, 0.35)
    if kind == "wood":
        base = _hsv(u(0.04, 0.11), u(0.35, 0.8), value)
        cols = [_lin(np.array(base) * u(0.45, 0.8)), _lin(base)]
        extra = {"period": float(u(3, 9)), "grain": float(u(1.5, 6)), "distortion": float(u(2, 10)),
                 "gap": float(u(0.002, 0.02)), "roughness": float(u(0.2, 0.7)), "specular": float(u(0.2, 0.6))}
    elif kind in ("check", "stripe"):
        a = _hsv(u(0, 1), u(0.3, 0.9), value)
        b = _hsv(u(0, 1), u(0, 0.3), u(0.7, 0.95)) if rng.random() < 0.6 else _hsv(u(0, 1), u(0, 0.8), u(0.05, 0.9))
        cols = [_lin(a), _lin(b)]
        extra = {"period": float(u(0.4, 3.0)), "duty": float(u(0.3, 0.7)), "grain": 0.0, "distortion": 0.0,
                 "gap": 0.0, "roughness": float(u(0.75, 1.0)), "specular": float(u(0.05, 0.3))}
    elif kind == "plain":
        base = _hsv(u(0, 1), u(0, 0.7), value)
        cols = [_lin(np.array(base) * u(0.75, 0.95)), _lin(base)]
        extra = {"period": float(u(1, 10)), "grain": float(u(0.5, 20)), "distortion": 0.0, "gap": 0.0,
                 "roughness": float(u(0.3, 1.0)), "specular": float(u(0.1, 0.5))}
    elif kind == "tiles":
        base = _hsv(u(0, 1), u(0, 0.5), value)
        cols = [_lin(base), _lin(_hsv(u(0, 1), u(0, 0.2), u(0.2, 0.9)))]
        extra = {"period": float(u(1.5, 6)), "grain": float(u(2, 10)), "distortion": 0.0,
                 "gap": float(u(0.01, 0.05)), "roughness": float(u(0.05, 0.3)), "specular": float(u(0.4, 0.8))}
    else:
        raise ValueError(f"unknown table {kind!r}")
    return {"pattern": kind, "colours": cols, "size": float(u(60, 90)), "angle": float(u(0, math.pi)),
            "centre": [float(centre[0] + u(-5, 5)), float(centre[1] + u(-5, 5))],
            "offset": [float(u(0, 50)), float(u(0, 50)), 0.0], **extra}


def _light(kind: str, position, target, kelvin: float, irradiance: float, size: float, **extra) -> Dict:
    """A Blender lamp giving about ``irradiance`` (relative) at ``target``."""
    position, target = np.asarray(position, float), np.asarray(target, float)
    d = float(np.linalg.norm(position - target))
    direction = (target - position) / max(d, 1e-9)
    if kind in ("point", "spot"):
        power = irradiance * 4 * math.pi * d * d
    elif kind == "area":
        power = irradiance * math.pi * d * d
    else:
        power = irradiance
    rgb = blackbody(kelvin)
    return {"kind": kind, "location": position.tolist(), "direction": direction.tolist(),
            "rgb": [float(v) for v in rgb / rgb.max()], "power": float(power), "size": float(size),
            "kelvin": float(kelvin), **extra}


def _draw_lights(rng: np.random.Generator, setup: str, board_wh) -> Tuple[List[Dict], Dict, float]:
    """Lamps of ``setup``, the world's glow, and the exposure offset (EV) the camera
    ends up at in such a room."""
    u = rng.uniform
    cx, cy = board_wh[0] / 2, board_wh[1] / 2
    target = np.array([cx, cy, 0.0])

    def around(dist, height):
        a = u(0, 2 * math.pi)
        return np.array([cx + dist * math.cos(a), cy + dist * math.sin(a), height])

    def aim(p, spread=2.0):
        return target + np.array([u(-spread, spread), u(-spread, spread), 0.0])

    lights: List[Dict] = []
    ev = float(rng.normal(0, 0.3))
    world_k, world = u(4000, 7500), u(0.05, 0.3)
    if setup == "ceiling":
        for _ in range(int(rng.integers(1, 4))):
            p = around(u(0, 25), u(30, 60))
            lights.append(_light("area", p, aim(p, 6), u(2700, 6500), u(0.4, 1.0), u(2, 8),
                                 shape=str(rng.choice(["DISK", "SQUARE"]))))
    elif setup == "lamp_near":
        p = around(u(4, 12), u(4, 12))
        kind = str(rng.choice(["point", "spot"]))
        extra = {"cone": float(u(50, 110)), "blend": float(u(0.2, 0.8))} if kind == "spot" else {}
        lights.append(_light(kind, p, aim(p), u(2500, 4500), 1.0, u(0.2, 1.2), **extra))
        world = u(0.02, 0.15)
    elif setup == "window":
        p = around(u(25, 40), u(8, 25))
        lights.append(_light("area", p, aim(p, 4), u(5500, 8000), 1.0, u(8, 20), shape="SQUARE"))
        world, world_k = u(0.1, 0.35), u(6000, 9000)
    elif setup == "dim":
        p = around(u(6, 20), u(6, 25))
        lights.append(_light(str(rng.choice(["point", "area"])), p, aim(p), u(2000, 3200), 1.0, u(0.3, 2.0)))
        world = u(0.01, 0.06)
        ev = float(u(-2.2, -0.7))
    elif setup == "several":
        for _ in range(int(rng.integers(2, 5))):
            p = around(u(4, 20), u(4, 25))
            lights.append(_light(str(rng.choice(["point", "area", "spot"])), p, aim(p, 5), u(2000, 7500),
                                 u(0.25, 1.0), u(0.2, 2.0), cone=float(u(40, 100)), blend=float(u(0.1, 0.9))))
        world = u(0.02, 0.12)
        ev = float(u(-1.2, 0.2))
    elif setup == "sun":
        a, el = u(0, 2 * math.pi), math.radians(u(20, 70))
        dvec = np.array([math.cos(a) * math.cos(el), math.sin(a) * math.cos(el), math.sin(el)])
        lights.append(_light("sun", target + 100 * dvec, target, u(4500, 6000), u(0.6, 1.0), u(0.5, 3.0)))
        world, world_k = u(0.1, 0.4), u(7000, 11000)
    elif setup == "overcast":
        world, world_k = u(0.5, 1.0), u(5500, 8000)
        if rng.random() < 0.5:
            p = around(u(0, 20), u(30, 50))
            lights.append(_light("area", p, aim(p, 6), u(3000, 6000), u(0.1, 0.4), u(4, 10)))
    elif setup == "raking":
        # Long shadows in a lit room: a sun a few degrees above the horizon, or a broad
        # lamp at about the table's height a little way off.
        if rng.random() < 0.5:
            a, el = u(0, 2 * math.pi), math.radians(u(6, 18))
            dvec = np.array([math.cos(a) * math.cos(el), math.sin(a) * math.cos(el), math.sin(el)])
            lights.append(_light("sun", target + 100 * dvec, target, u(3000, 5500), u(0.6, 1.0), u(0.5, 2.0)))
        else:
            p = around(u(10, 20), u(1.5, 4))
            lights.append(_light("area", p, aim(p, 1.0), u(2700, 5000), 1.0, u(1.5, 5.0),
                                 shape=str(rng.choice(["DISK", "SQUARE"]))))
        world, world_k = u(0.06, 0.25), u(4500, 8000)
        ev = float(u(-0.8, 0.2))
    elif setup == "spot_low":
        # One hard spot low beside the board, raking across it; the rest of the room dark.
        p = around(u(6, 14), u(2, 6))
        lights.append(_light("spot", p, aim(p, 1.5), u(2700, 5000), 1.0, u(0.05, 0.3),
                             cone=float(u(35, 70)), blend=float(u(0.05, 0.4))))
        world = u(0.01, 0.05)
        ev = float(u(-1.5, -0.3))
    else:
        raise ValueError(f"unknown light setup {setup!r}")
    rgb = blackbody(world_k)
    # A uniform sky of radiance L lights the board with pi * L.
    return lights, {"rgb": [float(v) for v in rgb / rgb.max()], "strength": float(world / math.pi)}, ev


def spare_stones(rng: np.random.Generator, room: CyclesRoom) -> List[Disc]:
    """0-6 stacks of stones beside the board, some toppled loose ones among them."""
    cols, rows = dimensions(room.board)
    ml, mb, mr, mt = room.margins
    out: List[Disc] = []
    z0 = -room.thickness
    for _ in range(int(rng.integers(0, 7))):
        side = int(rng.integers(4))
        gap = rng.uniform(0.5, 3.0)
        along = rng.uniform(-1.0, (cols if side % 2 == 0 else rows) + 1.0)
        x, y = [(along, -mb - gap), (cols + mr + gap, along), (along, rows + mt + gap),
                (-ml - gap, along)][side]
        colour = "red" if rng.random() < 0.5 else "black"
        for k in range(int(rng.integers(1, 4))):
            out.append(Disc(float(x + rng.normal(0, 0.06)), float(y + rng.normal(0, 0.06)),
                            float(z0 + k * room.look.pitch), colour, float(rng.uniform(0, 2 * math.pi))))
    return out


def skin(rng: np.random.Generator) -> Dict:
    t = rng.uniform(0, 1)
    light, dark = np.array([0.95, 0.78, 0.66]), np.array([0.3, 0.19, 0.13])
    return {"skin": _lin(light * (1 - t) + dark * t), "skin_roughness": float(rng.uniform(0.35, 0.7)),
            "sleeve": _lin(_hsv(rng.uniform(0, 1), rng.uniform(0, 0.9), rng.uniform(0.05, 0.9)))}


# --------------------------------------------------------------------------- the face

def draw_face(room: CyclesRoom, ppc: int = FACE_PPC) -> np.ndarray:
    """The printed face as an sRGB BGR uint8 image, top row the board's far edge (the
    highest rank), ``ppc`` texels a cell, the margins around the grid included."""
    cols, rows = dimensions(room.board)
    ml, mb, mr, mt = room.margins
    f = room.face
    rng = np.random.default_rng(f["seed"])
    ss = 4                                   # supersampling of the ink
    W, H = int(round((cols + ml + mr) * ppc)), int(round((rows + mb + mt) * ppc))
    px = ppc * ss

    def at(x, y):                            # board point -> supersampled pixel
        return (x + ml) * px, (rows + mt - y) * px

    ink = np.zeros((H * ss, W * ss), np.uint8)
    lw = max(1, int(round(f["line_width"] * px)))
    for i in range(cols + 1):
        x, _ = at(i, 0)
        cv2.rectangle(ink, (int(x - lw / 2), int(at(0, rows)[1] - lw / 2)), (int(x + lw / 2), int(at(0, 0)[1] + lw / 2)), 255, -1)
    for j in range(rows + 1):
        _, y = at(0, j)
        cv2.rectangle(ink, (int(at(0, 0)[0] - lw / 2), int(y - lw / 2)), (int(at(cols, 0)[0] + lw / 2), int(y + lw / 2)), 255, -1)
    for gap, width in f["borders"]:
        bw = max(1, int(round(width * px)))
        x0, y0 = at(-gap, rows + gap)
        x1, y1 = at(cols + gap, -gap)
        cv2.rectangle(ink, (int(x0), int(y0)), (int(x1), int(y1)), 255, bw)
    title = np.zeros_like(ink)
    if f["title_side"] >= 0:
        _title(title, f["title_side"], room.margins, (cols, rows), px)
    ink = cv2.resize(ink, (W, H), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    title = cv2.resize(title, (W, H), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    # Wear: ink rubbed thin in patches and along scratches; grime darkens or yellows.
    if f["wear"] > 0:
        rub = _smooth(rng, (H, W), ppc * rng.uniform(0.3, 1.5))
        keep = np.clip(1 - f["wear"] * np.clip(rub - 0.3, 0, None), 0.45, 1)
        scratches = np.zeros((H, W), np.uint8)
        for _ in range(int(rng.integers(0, 30 * f["wear"] + 1))):
            p = rng.uniform(0, 1, 2) * (W, H)
            q = p + rng.normal(0, ppc * 1.5, 2)
            cv2.line(scratches, tuple(int(v) for v in p), tuple(int(v) for v in q), 255, 1, cv2.LINE_AA)
        keep = keep * (1 - 0.7 * scratches.astype(np.float32) / 255)
        ink *= keep
        title *= keep
    ground = np.array(f["ground"], np.float32)[::-1]
    out = ground * (1 - ink[..., None]) + np.array(f["ink"], np.float32)[::-1] * ink[..., None]
    out = out * (1 - title[..., None]) + np.array(f["title_ink"], np.float32)[::-1] * title[..., None]
    grime = np.clip(_smooth(rng, (H, W), ppc * 2.0), 0, None) * f["grime"]
    out = out * (1 - grime[..., None] * np.array([0.5, 0.3, 0.25], np.float32))
    out = out + rng.normal(0, f["grain"], (H, W, 1)).astype(np.float32)
    if f["wear"] > 0:
        scratches_f = scratches.astype(np.float32)[..., None] / 255
        out = out * (1 - 0.3 * f["wear"] * scratches_f) + 0.3 * f["wear"] * scratches_f * 0.85
    return np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)


def _title(canvas: np.ndarray, side: int, margins, board_wh, px: int) -> None:
    """"FENIX" across the wide margin ``side`` (0 left, 1 bottom, 2 right, 3 top)."""
    cols, rows = board_wh
    ml, mb, mr, mt = margins
    depth = margins[side] * px
    length = (rows if side % 2 == 0 else cols) * px
    scale = 1.0
    (tw, th), _ = cv2.getTextSize("FENIX", cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    scale = min(0.5 * depth / th, 0.6 * length / tw)
    thick = max(1, int(scale * 2))
    (tw, th), _ = cv2.getTextSize("FENIX", cv2.FONT_HERSHEY_DUPLEX, scale, thick)
    strip = np.zeros((int(depth), int(length)), np.uint8)
    cv2.putText(strip, "FENIX", (int((length - tw) / 2), int((depth + th) / 2)), cv2.FONT_HERSHEY_DUPLEX,
                scale, 255, thick, cv2.LINE_AA)
    # Text reads from the player on that side: turn the strip so its foot faces outwards.
    H, W = canvas.shape
    if side == 1:
        y0 = H - strip.shape[0]
        x0 = int(ml * px)
        canvas[y0:y0 + strip.shape[0], x0:x0 + strip.shape[1]] = strip
    elif side == 3:
        strip = cv2.rotate(strip, cv2.ROTATE_180)
        x0 = int(ml * px)
        canvas[:strip.shape[0], x0:x0 + strip.shape[1]] = strip
    elif side == 0:
        strip = cv2.rotate(strip, cv2.ROTATE_90_CLOCKWISE)
        y0 = int(mt * px)
        canvas[y0:y0 + strip.shape[0], :strip.shape[1]] = strip
    else:
        strip = cv2.rotate(strip, cv2.ROTATE_90_COUNTERCLOCKWISE)
        y0 = int(mt * px)
        canvas[y0:y0 + strip.shape[0], W - strip.shape[1]:] = strip


def _smooth(rng: np.random.Generator, shape, scale: float) -> np.ndarray:
    h, w = shape
    small = rng.standard_normal((max(2, int(h / scale) + 2), max(2, int(w / scale) + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


# --------------------------------------------------------------------------- the spec

def film(room: CyclesRoom, scale: float) -> Tuple[int, int, int, int]:
    """The pinhole film Blender renders: its size at ``scale`` of the frame's resolution
    (``1 / n``), and the padding (px, py, in frame pixels) that lens distortion pulls into
    view around the frame."""
    n = round(1 / scale)
    if n < 1 or abs(1 / n - scale) > 1e-9:
        raise ValueError("scale must be 1/n")
    w, h = room.size
    mapx, mapy = room.camera.source_map()
    px = int(math.ceil(max(0.0, -mapx.min(), mapx.max() - (w - 1)))) + 3
    py = int(math.ceil(max(0.0, -mapy.min(), mapy.max() - (h - 1)))) + 3
    # Whole film pixels at the render's scale.
    px += (-(w + 2 * px)) % (2 * n) // 2
    py += (-(h + 2 * py)) % (2 * n) // 2
    return (w + 2 * px) // n, (h + 2 * py) // n, px, py


def camera_matrix_world(camera: LensCamera) -> List[List[float]]:
    """Blender's camera looks down its local -z with +y up: columns right, up, back."""
    R = camera.R
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2] = R[0], -R[1], -R[2]
    M[:3, 3] = camera.C
    return M.tolist()


def scene_spec(room: CyclesRoom, stones: Sequence[Disc], hand: Sequence[Capsule], hand_look: Optional[Dict],
               *, face_png: str, out: str, samples: int, seed: int, scale: float, threads: int = 1) -> Dict:
    """The JSON scene :mod:`.blender` builds and renders (plain lists and numbers)."""
    cols, rows = dimensions(room.board)
    ml, mb, mr, mt = room.margins
    W, H, px, py = film(room, scale)
    cam = room.camera
    lens = (cam.f * scale) * 36.0 / W
    dof = None
    if room.dof:
        centre = np.array([[cols / 2, rows / 2, 0.0]])
        focus = float(cam.depth(centre)[0]) * (1 + room.dof["focus_error"])
        # Cycles' aperture radius (scene units) is lens (m) / (2 f-stop).
        dof = {"focus": focus, "fstop": max(0.1, (lens / 1000) / (2 * room.dof["aperture"]))}
    all_stones = list(stones) + list(room.spare)
    spec = {
        "out": out,
        "render": {"width": W, "height": H, "samples": int(samples), "seed": int(seed) % (1 << 31),
                   "threads": int(threads)},
        "camera": {"matrix_world": camera_matrix_world(cam), "lens_mm": lens, "dof": dof},
        "world": room.world,
        "lights": room.lights,
        "board": {"image": face_png, "origin": [-ml, -mb], "size": [cols + ml + mr, rows + mb + mt],
                  "thickness": room.thickness, "edge_rgb": room.edge_rgb, **room.board_finish},
        "table": room.table,
        "stone_shape": {"radius": room.look.radius, "thickness": room.look.thickness,
                        "bevel": room.look.bevel, "dome": room.look.dome},
        "stone_materials": room.materials,
        "stones": [[float(d.x), float(d.y), float(d.z), d.colour, float(d.angle)] for d in all_stones],
        "hand": None,
    }
    if hand:
        spec["hand"] = {**hand_look, "capsules": [[[float(v) for v in c.p0], [float(v) for v in c.p1],
                                                   float(c.radius), bool(c.sleeve)] for c in hand]}
    return spec


def write_face(room: CyclesRoom, path: str) -> str:
    if not os.path.exists(path):
        cv2.imwrite(path + ".part.png", draw_face(room))
        os.replace(path + ".part.png", path)
    return path

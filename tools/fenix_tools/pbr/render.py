"""Path-traced frames of a :class:`~.scene.Room` with Mitsuba 3, then what a camera does
to them: lens distortion, vignetting, auto exposure, sensor noise, white balance, sRGB,
sharpening and JPEG.

Mitsuba's ``llvm_ad_rgb`` variant is used when a libLLVM of version 16 or newer is
found (Dr.Jit needs it; Debian's ``libllvm19`` works), else ``scalar_rgb`` (about three
times slower, measured). See tools/README.md for the measured times and why Mitsuba rather than
Blender's Cycles.
"""
from __future__ import annotations

import glob
import math
import os
import re
import tempfile
from typing import Dict, List, Sequence, Tuple

import cv2
import numpy as np

from fenix_table.board import dimensions

from . import textures
from .scene import Capsule, Disc, Room, skin_colour

_mi = None


def mitsuba(threads: int = 2):
    """Import Mitsuba once, in its fastest working variant, on ``threads`` threads."""
    global _mi
    if _mi is not None:
        return _mi
    if "DRJIT_LIBLLVM_PATH" not in os.environ:
        found = []
        for path in glob.glob("/usr/lib/*/libLLVM-*.so*") + glob.glob("/usr/lib/llvm-*/lib/libLLVM*.so*"):
            m = re.search(r"libLLVM-?(\d+)", path)
            if m and int(m.group(1)) >= 16:
                found.append((int(m.group(1)), path))
        if found:
            os.environ["DRJIT_LIBLLVM_PATH"] = max(found)[1]
    import drjit as dr
    import mitsuba as mi

    try:
        if "DRJIT_LIBLLVM_PATH" not in os.environ:
            raise ImportError("no libLLVM >= 16")
        mi.set_variant("llvm_ad_rgb")
    except (ImportError, AttributeError, RuntimeError):
        mi.set_variant("scalar_rgb")
    dr.set_thread_count(max(1, int(threads)))
    _mi = mi
    return mi


def variant() -> str:
    return mitsuba().variant()


# --------------------------------------------------------------------------- meshes

def stone_obj(radius: float, thickness: float, bevel: float, segments: int = 64) -> str:
    """OBJ text of a stone: a disc with both rims rounded (quarter circles of
    ``bevel * thickness``), smooth normals; its base centre at the origin."""
    b = max(1e-3, bevel * thickness)
    b = min(b, 0.49 * thickness, 0.9 * radius)
    prof: List[Tuple[float, float, float, float]] = [(0.0, 0.0, 0.0, -1.0)]   # r, z, nr, nz
    arc = 5
    for k in range(arc + 1):                      # bottom rim
        a = -math.pi / 2 + k * (math.pi / 2) / arc
        prof.append((radius - b + b * math.cos(a), b + b * math.sin(a), math.cos(a), math.sin(a)))
    for k in range(arc + 1):                      # top rim
        a = k * (math.pi / 2) / arc
        prof.append((radius - b + b * math.cos(a), thickness - b + b * math.sin(a), math.cos(a), math.sin(a)))
    prof.append((0.0, thickness, 0.0, 1.0))
    lines = []
    for t in range(segments):
        ang = 2 * math.pi * t / segments
        c, s = math.cos(ang), math.sin(ang)
        for r, z, nr, nz in prof:
            lines.append(f"v {r * c:.6f} {r * s:.6f} {z:.6f}")
            lines.append(f"vn {nr * c:.6f} {nr * s:.6f} {nz:.6f}")
    n = len(prof)
    for t in range(segments):
        t2 = (t + 1) % segments
        for i in range(n - 1):
            a, b_, c_, d = t * n + i + 1, t2 * n + i + 1, t2 * n + i + 2, t * n + i + 2
            lines.append(f"f {a}//{a} {b_}//{b_} {c_}//{c_}")
            lines.append(f"f {a}//{a} {c_}//{c_} {d}//{d}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- scene

def _bsdf_stone(rgb: np.ndarray, look) -> Dict:
    rgb = [float(v) for v in rgb]
    if look.finish == "matte":
        return {"type": "diffuse", "reflectance": {"type": "rgb", "value": rgb}}
    if look.finish == "lacquer":
        return {"type": "plastic", "diffuse_reflectance": {"type": "rgb", "value": rgb}, "int_ior": 1.55}
    return {"type": "roughplastic", "distribution": "ggx", "alpha": float(look.roughness),
            "diffuse_reflectance": {"type": "rgb", "value": rgb}, "int_ior": 1.5}


def table_texture(room: Room) -> np.ndarray:
    rng = np.random.default_rng(room.table_seed)
    # About 30 texels per cell at 1280x960, fewer for smaller frames.
    size = int(np.clip(2 ** math.ceil(math.log2(1.6 * room.size[0])), 64, 2048))
    cells_per_texel = room.table_scale / size
    kind = room.table_kind
    if kind.startswith("wood"):
        base = {"wood_light": (0.85, 0.68, 0.48), "wood_mid": (0.62, 0.42, 0.25),
                "wood_dark": (0.36, 0.22, 0.13), "wood_walnut": (0.47, 0.3, 0.19)}[kind]
        base = np.clip(np.array(base) * rng.uniform(0.85, 1.12, 3), 0, 1)
        return textures.wood(rng, size, base, rng.uniform(0.2, 0.5))
    if kind.startswith("cloth"):
        period = rng.uniform(0.4, 3.0) / cells_per_texel
        return textures.cloth(rng, size, kind.split("_")[1], period)
    base = rng.choice([(0.9, 0.9, 0.88), (0.2, 0.2, 0.22), (0.55, 0.6, 0.62), (0.75, 0.7, 0.6),
                       (0.15, 0.3, 0.2), (0.2, 0.25, 0.4), (0.6, 0.35, 0.3)])
    return textures.plain(rng, size, np.clip(np.array(base) * rng.uniform(0.85, 1.1), 0, 1))


def build_scene(room: Room, stones: Sequence[Disc], hand: Sequence[Capsule], *,
                spp: int, workdir: str, hand_seed: int = 0) -> Tuple[Dict, Tuple[int, int]]:
    """Mitsuba scene dict of one frame, and the film padding (px, py) around the frame
    that lens distortion pulls into view."""
    mi = mitsuba()
    T = mi.ScalarTransform4f
    cam = room.camera
    w, h = room.size
    mapx, mapy = _source_map(room)
    px = int(math.ceil(max(0.0, -mapx.min(), mapx.max() - (w - 1)))) + 3
    py = int(math.ceil(max(0.0, -mapy.min(), mapy.max() - (h - 1)))) + 3
    W, H = w + 2 * px, h + 2 * py
    fov = math.degrees(2 * math.atan(W / 2 / cam.f))
    centre = np.array([*(np.array(dimensions(room.board)) / 2), 0.0])
    dist = float(cam.depth(centre[None])[0])
    to_world = T().look_at(origin=[float(v) for v in cam.C], target=[float(v) for v in cam.C + cam.R[2]],
                           up=[float(v) for v in -cam.R[1]])
    sensor = {"type": "perspective", "fov": fov, "fov_axis": "x", "to_world": to_world,
              "film": {"type": "hdrfilm", "width": W, "height": H, "rfilter": {"type": "gaussian"},
                       "pixel_format": "rgb"},
              "sampler": {"type": "independent", "sample_count": int(spp)}}
    if room.aperture > 0.005:
        sensor.update(type="thinlens", aperture_radius=float(room.aperture),
                      focus_distance=dist * (1 + room.focus_error))
    scene: Dict = {"type": "scene", "integrator": {"type": "path", "max_depth": 6}, "sensor": sensor,
                   "ambient": {"type": "constant", "radiance": {"type": "rgb", "value": [float(v) for v in room.ambient]}}}
    cols, rows = dimensions(room.board)
    ml, mb, mr, mt = room.face.margins
    bw, bh = cols + ml + mr, rows + mb + mt
    bc = np.array([-ml + bw / 2, -mb + bh / 2])
    # Board: the printed face (z = 0) on a slab.
    ppc = int(np.clip(round(112 * room.size[0] / 1280), 16, 112))
    face = textures.board_face((cols, rows), room.face, ppc, np.random.default_rng(room.face_seed))
    # Mitsuba puts a bitmap's first row at the rectangle's -y edge: rank 1 goes first.
    face_tex = {"type": "bitmap", "bitmap": mi.Bitmap(np.ascontiguousarray(face[::-1])), "raw": True, "filter_type": "bilinear",
                "wrap_mode": "clamp"}
    if room.face_gloss > 0:
        face_bsdf = {"type": "roughplastic", "distribution": "ggx", "alpha": float(room.face_gloss),
                     "diffuse_reflectance": face_tex, "int_ior": 1.5}
    else:
        face_bsdf = {"type": "diffuse", "reflectance": face_tex}
    scene["face"] = {"type": "rectangle", "bsdf": face_bsdf,
                     "to_world": T().translate([float(bc[0]), float(bc[1]), 0.0]).scale([bw / 2, bh / 2, 1.0])}
    th = room.thickness
    scene["slab"] = {"type": "cube", "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": [float(v) for v in room.edge_rgb]}},
                     "to_world": T().translate([float(bc[0]), float(bc[1]), -th / 2 - 0.002]).scale([bw / 2, bh / 2, th / 2 - 0.002])}
    # Table.
    tex = table_texture(room)
    # One texture over the whole table in view (no tiling seams).
    table_tex = {"type": "bitmap", "bitmap": mi.Bitmap(tex), "raw": True, "filter_type": "bilinear"}
    table_bsdf = ({"type": "roughplastic", "distribution": "ggx", "alpha": float(room.table_rough),
                   "diffuse_reflectance": table_tex}
                  if room.table_rough > 0 else {"type": "diffuse", "reflectance": table_tex})
    scene["table"] = {"type": "rectangle", "bsdf": table_bsdf,
                      "to_world": T().translate([float(bc[0]), float(bc[1]), -th]).rotate([0, 0, 1], room.table_angle).scale([room.table_scale / 2, room.table_scale / 2, 1.0])}
    # Lights.
    for i, light in enumerate(room.lights):
        d = float(np.linalg.norm(light.position - centre))
        if light.kind == "sphere":
            L = light.irradiance * d * d / (math.pi * light.size ** 2)
            scene[f"light{i}"] = {"type": "sphere", "center": [float(v) for v in light.position],
                                  "radius": float(light.size),
                                  "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [float(v) for v in light.rgb * L]}}}
        else:
            area = 4 * light.size ** 2
            cos = max(0.2, float(-light.normal @ (light.position - centre)) / d)
            L = light.irradiance * d * d / (area * cos)
            p = light.position
            scene[f"light{i}"] = {"type": "rectangle",
                                  "to_world": T().look_at(origin=[float(v) for v in p], target=[float(v) for v in p + light.normal], up=[0, 0, 1]).scale([light.size, light.size, 1]),
                                  "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [float(v) for v in light.rgb * L]}}}
    # Stones: one mesh, instanced per disc.
    look = room.look
    obj = os.path.join(workdir, "stone.obj")
    with open(obj, "w") as fh:
        fh.write(stone_obj(look.radius, look.thickness, look.bevel))
    for colour, rgb in (("red", look.red), ("black", look.black)):
        scene[f"group_{colour}"] = {"type": "shapegroup", "id": f"group_{colour}",
                                    "stone": {"type": "obj", "filename": obj, "face_normals": False,
                                              "bsdf": _bsdf_stone(rgb, look)}}
    for i, disc in enumerate(list(stones) + list(room.spare)):
        scene[f"disc{i}"] = {"type": "instance", "shapegroup": {"type": "ref", "id": f"group_{disc.colour}"},
                             "to_world": T().translate([disc.x, disc.y, disc.z + 1e-4]).rotate([0, 0, 1], math.degrees(disc.angle))}
    # Hand: capsules of skin and sleeve.
    if hand:
        hr = np.random.default_rng(hand_seed)
        skin = {"type": "roughplastic", "distribution": "beckmann", "alpha": 0.45,
                "diffuse_reflectance": {"type": "rgb", "value": [float(v) for v in skin_colour(hr)]}}
        sleeve = {"type": "diffuse", "reflectance": {"type": "rgb", "value": [float(v) for v in textures.srgb_to_linear(hr.uniform(0.05, 0.9, 3))]}}
        for i, cap in enumerate(hand):
            bsdf = sleeve if cap.sleeve else skin
            scene[f"hand{i}"] = {"type": "cylinder", "p0": [float(v) for v in cap.p0], "p1": [float(v) for v in cap.p1],
                                 "radius": float(cap.radius), "bsdf": bsdf}
            for j, p in enumerate((cap.p0, cap.p1)):
                scene[f"hand{i}_{j}"] = {"type": "sphere", "center": [float(v) for v in p],
                                         "radius": float(cap.radius), "bsdf": bsdf}
    return scene, (px, py)


_MAPS: Dict[tuple, Tuple[np.ndarray, np.ndarray]] = {}


def _source_map(room: Room) -> Tuple[np.ndarray, np.ndarray]:
    cam = room.camera
    key = (cam.f, cam.k1, cam.k2, cam.size)
    if key not in _MAPS:
        _MAPS.clear()
        _MAPS[key] = cam.source_map()
    return _MAPS[key]


# --------------------------------------------------------------------------- frames

def render_linear(room: Room, stones: Sequence[Disc], hand: Sequence[Capsule], *, spp: int = 12,
                  seed: int = 0, hand_seed: int = 0) -> np.ndarray:
    """The scene's radiance through the distorting lens: float32 RGB (h, w, 3), linear."""
    mi = mitsuba()
    with tempfile.TemporaryDirectory(prefix="fenix-pbr-") as workdir:
        scene_dict, (px, py) = build_scene(room, stones, hand, spp=spp, workdir=workdir, hand_seed=hand_seed)
        scene = mi.load_dict(scene_dict)
        img = np.array(mi.render(scene, seed=int(seed) & 0x7FFFFFFF), dtype=np.float32)
    mapx, mapy = _source_map(room)
    return cv2.remap(img, mapx + px, mapy + py, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def develop(linear: np.ndarray, room: Room, rng: np.random.Generator) -> bytes:
    """What the camera makes of the light: JPEG bytes."""
    h, w = linear.shape[:2]
    img = np.nan_to_num(linear, nan=0.0, posinf=50.0, neginf=0.0)
    # Path-tracing fireflies (a lamp's caustic through a lacquered stone found by one
    # sample in twelve): lone pixels far above their neighbourhood's median go to it.
    # A real highlight spans several pixels and keeps its median up.
    med = cv2.medianBlur(img, 3)
    lone = img.max(axis=2) > 4 * med.max(axis=2) + 0.05
    img[lone] = med[lone]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img = img * (1 - room.vignette * r2)[..., None]
    # Auto exposure: centre-weighted mean luminance to mid grey, off by the room's EV.
    lum = img @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    weight = np.exp(-r2 * 2.0)
    mean = float((np.minimum(lum, 4.0) * weight).sum() / weight.sum())
    img = img * (0.18 * 2.0 ** room.exposure_ev / max(mean, 1e-6))
    # Shot and read noise (per channel, before demosaicking blurs it a little).
    sigma = np.sqrt(np.maximum(img, 0) * room.noise_gain + room.read_noise ** 2)
    noise = rng.standard_normal(img.shape).astype(np.float32) * sigma
    img = img + cv2.GaussianBlur(noise, (0, 0), 0.6) * 1.6
    # White balance: grey world, partly.
    grey = np.clip(img, 0, 1).reshape(-1, 3).mean(axis=0) + 1e-6
    gains = (grey[1] / grey) ** room.white_balance
    img = img * gains
    out = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(np.maximum(img, 0.0031308), 1 / 2.4) - 0.055)
    out = np.clip(out, 0, 1)
    if room.sharpen > 0:
        out = np.clip(out + room.sharpen * (out - cv2.GaussianBlur(out, (0, 0), 1.2)), 0, 1)
    bgr = np.clip(out[..., ::-1] * 255 + rng.uniform(0, 1, out.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(room.jpeg)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()

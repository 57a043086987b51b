"""Vision on frames the vision code has never been tuned on.

``fenix_tools.sim`` was written together with the vision stage, so its figures
(``bench_vision.py``) can flatter it. This benchmark draws its frames with a second,
independent renderer written from scratch here, with other choices everywhere: the
board is a slab with visible edges and a printed-paper or wood-grain face, lines of other
widths and tones, stones with bevelled tops, grooves between stacked discs, other red
hues and black finishes, soft shadows from one lamp, a lit table with clutter (a book,
a mug, paper) around the board, a barrel lens, vignetting, white-balance casts, blur,
noise and JPEG. Nothing from ``fenix_tools.sim`` is used; only cell names and the start
layout come from the package (they are the game's, not the renderer's).

Per scene, like the table in use: a start-position frame (located, then used to
calibrate colours) and a mid-game frame from the same camera.
Figures printed:

* board found (right side, every cell centre within a quarter cell) on every frame, located
  from scratch; wrong board side; wrong grids (right side, but a cell centre off by more);
* cell colour errors and claimed/wrong heights, out of the box (game frame read through its
  own located grid) and calibrated (through the start frame's calibration);
* the same read through the exact grid, to tell locating errors from reading errors;
* every reading figure for each cell classifier (``ReaderConfig.classifier``: the CNN,
  the feature perceptron, both pooled). This renderer never trains or tunes any of them.

    python benchmarks/bench_vision_unseen.py [--scenes 60] [--size 1280x960] [--seed 7]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fenix_table.errors import BoardNotFoundError  # noqa: E402
from fenix_table.board import cell_name, dimensions  # noqa: E402
from fenix_table.rules import Position  # noqa: E402
from fenix_table.vision.cells import CLASSIFIERS, DEFAULT_READER, CellReader, calibrate_reader  # noqa: E402
from fenix_table.vision.locate import locate_board  # noqa: E402
from fenix_table.vision.pipeline import calibrate_from_position  # noqa: E402
from fenix_table.vision.types import Calibration  # noqa: E402

Placement = Dict[str, Tuple[str, int]]


# --------------------------------------------------------------------------- camera

@dataclass
class Camera:
    """Pinhole camera with one barrel-distortion term. World units are cells; the board
    lies in z = 0 with a1's outer corner at the origin, z points up."""

    R: np.ndarray        # world -> camera rotation (rows: image x, image y, forward)
    C: np.ndarray        # camera centre in world coordinates
    f: float             # focal length in pixels
    size: Tuple[int, int]
    k1: float            # distorted -> undistorted: x_u = x_d (1 + k1 r_d^2), normalised coords

    def undistorted(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> pixel positions of a distortion-free lens."""
        Xc = (pts - self.C) @ self.R.T
        w, h = self.size
        return np.stack([self.f * Xc[:, 0] / Xc[:, 2] + w / 2,
                         self.f * Xc[:, 1] / Xc[:, 2] + h / 2], axis=1)

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> pixel positions in the final (distorted) frame."""
        u = self.undistorted(pts)
        w, h = self.size
        n = (u - (w / 2, h / 2)) / self.f
        d = n.copy()
        for _ in range(8):  # invert x_u = x_d (1 + k1 r_d^2) by fixed-point iteration
            r2 = (d ** 2).sum(axis=1, keepdims=True)
            d = n / (1 + self.k1 * r2)
        return d * self.f + (w / 2, h / 2)

    def distort_image(self, img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        nx, ny = (xs - w / 2) / self.f, (ys - h / 2) / self.f
        scale = 1 + self.k1 * (nx ** 2 + ny ** 2)
        return cv2.remap(img, nx * scale * self.f + w / 2, ny * scale * self.f + h / 2,
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def random_camera(rng: np.random.Generator, board_wh: Tuple[int, int], size) -> Camera:
    bw, bh = board_wh
    w, h = size
    fov = math.radians(rng.uniform(50, 72))
    f = (w / 2) / math.tan(fov / 2)
    yaw = rng.uniform(0, 2 * math.pi)
    tilt = math.radians(rng.uniform(0, 14))
    forward = np.array([0.0, 0.0, -1.0])
    right = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    down = np.cross(forward, right)
    forward, down = (math.cos(tilt) * forward + math.sin(tilt) * down,
                     math.cos(tilt) * down - math.sin(tilt) * forward)
    R = np.stack([right, down, forward])
    # Distance so the board (with its margin) fills 55-85 % of the short image side.
    diag = math.hypot(bw + 1.2, bh + 1.2)
    dist = diag * f / (rng.uniform(0.62, 0.92) * min(w, h))
    target = np.array([bw / 2 + rng.uniform(-0.4, 0.4), bh / 2 + rng.uniform(-0.4, 0.4), 0.0])
    return Camera(R, target - dist * forward, f, size, k1=rng.uniform(-0.02, 0.08))


# --------------------------------------------------------------------------- textures

def smooth_noise(rng: np.random.Generator, shape: Tuple[int, int], scale: float) -> np.ndarray:
    """Zero-mean, unit-ish low-frequency noise."""
    h, w = shape
    small = rng.standard_normal((max(2, int(h / scale)), max(2, int(w / scale)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def board_face(rng: np.random.Generator, board: str, ppc: int, margin: float) -> np.ndarray:
    """The printed face seen from above: texture pixel (u, v) is board point
    (u / ppc - margin, v / ppc - margin)."""
    cols, rows = dimensions(board)
    W, H = int((cols + 2 * margin) * ppc), int((rows + 2 * margin) * ppc)
    if board == "9x9":   # dark face, light lines
        base = np.array(rng.choice([(38, 44, 52), (30, 30, 34), (45, 40, 62), (52, 58, 40)]), np.float32)
        line = np.array(rng.choice([(200, 210, 215), (170, 190, 205), (225, 225, 220)]), np.float32)
    else:                # light face, dark lines
        base = np.array(rng.choice([(190, 215, 228), (175, 200, 215), (205, 222, 230), (160, 190, 210)]), np.float32)
        line = np.array(rng.choice([(40, 45, 60), (70, 70, 80), (30, 60, 110)]), np.float32)
    face = np.ones((H, W, 3), np.float32) * base
    grain = smooth_noise(rng, (H, W), rng.uniform(3, 12))
    if rng.random() < 0.5:  # wood grain: streaks along one axis
        streak = smooth_noise(rng, (H, 1), 2.0)
        grain = 0.6 * grain + 0.8 * np.repeat(streak, W, axis=1)
    face += grain[..., None] * rng.uniform(3, 9)
    thick = max(1, int(round(ppc * rng.uniform(0.025, 0.06))))
    x0, y0 = margin * ppc, margin * ppc
    for i in range(cols + 1):
        x = int(round(x0 + i * ppc))
        cv2.line(face, (x, int(y0)), (x, int(y0 + rows * ppc)), line.tolist(), thick, cv2.LINE_AA)
    for j in range(rows + 1):
        y = int(round(y0 + j * ppc))
        cv2.line(face, (int(x0), y), (int(x0 + cols * ppc), y), line.tolist(), thick, cv2.LINE_AA)
    if rng.random() < 0.5:  # a printed border line around the grid
        pad = int(ppc * margin * 0.5)
        cv2.rectangle(face, (pad, pad), (W - pad, H - pad), line.tolist(), max(1, thick // 2), cv2.LINE_AA)
    return np.clip(face, 0, 255)


def table_background(rng: np.random.Generator, size) -> np.ndarray:
    w, h = size
    base = np.array(rng.choice([(60, 90, 130), (150, 160, 170), (40, 70, 40), (200, 200, 195),
                                (30, 40, 70), (90, 110, 120)]), np.float32)
    img = np.ones((h, w, 3), np.float32) * base
    img += smooth_noise(rng, (h, w), rng.uniform(20, 80))[..., None] * rng.uniform(4, 14)
    # Clutter: a book, a sheet of paper, a mug seen from above (the board goes on top).
    for _ in range(rng.integers(0, 4)):
        kind = rng.integers(0, 3)
        c = tuple(float(v) for v in rng.uniform(20, 240, 3))
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if kind < 2:
            a, b = rng.uniform(60, 300), rng.uniform(60, 300)
            box = cv2.boxPoints(((cx, cy), (a, b), rng.uniform(0, 180)))
            cv2.fillPoly(img, [box.astype(np.int32)], c if kind == 0 else (235, 238, 240), cv2.LINE_AA)
        else:
            cv2.circle(img, (int(cx), int(cy)), int(rng.uniform(30, 70)), c, -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(rng.uniform(15, 25)), (20, 30, 40), -1, cv2.LINE_AA)
    return img


# --------------------------------------------------------------------------- stones

RED_TOPS = [(40, 40, 190), (30, 60, 210), (50, 30, 150), (60, 70, 200), (35, 25, 120)]
BLACK_TOPS = [(28, 28, 30), (40, 38, 36), (20, 22, 26), (55, 52, 50)]


@dataclass
class StoneLook:
    red: np.ndarray
    black: np.ndarray
    radius: float
    thickness: float
    gloss: float


def circle(cx: float, cy: float, z: float, r: float, n: int = 40) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(n, z)], axis=1)


def draw_stack(img: np.ndarray, highlight: np.ndarray, cam: Camera, centre, colour: str, height: int,
               look: StoneLook, light: np.ndarray, rng: np.random.Generator,
               discs: Optional[np.ndarray] = None) -> None:
    """One stack. ``discs``: (height, 4) per disc, bottom first: its offset from
    ``centre`` (cells), a shade factor and the gloss spot's radius (as a fraction of the
    stone's), for stones that stay as they were put (:mod:`benchmarks.unseen_games`);
    without it each disc is drawn a little off at random, as for a single still."""
    base_c = look.red if colour == "red" else look.black
    t, r = look.thickness, look.radius
    x, y = centre
    for k in range(height):
        top_c = base_c if discs is None else base_c * float(discs[k][2])
        side_c = top_c * 0.62
        groove_c = top_c * 0.35
        if discs is None:
            dx, dy = rng.normal(0, 0.02, 2)
        else:
            dx, dy = float(discs[k][0]), float(discs[k][1])
        z0, z1 = k * t, (k + 1) * t
        bottom = cam.undistorted(circle(x + dx, y + dy, z0, r))
        top = cam.undistorted(circle(x + dx, y + dy, z1, r))
        hull = cv2.convexHull(np.concatenate([bottom, top]).astype(np.float32))
        cv2.fillPoly(img, [np.round(hull).astype(np.int32)], side_c.tolist(), cv2.LINE_AA)
        if k:  # the groove where this disc sits on the one below
            cv2.polylines(img, [np.round(bottom).astype(np.int32)], True, groove_c.tolist(), 1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.round(top).astype(np.int32)], (top_c * 0.85).tolist(), cv2.LINE_AA)
        bevel = cam.undistorted(circle(x + dx, y + dy, z1, r * 0.86))
        cv2.fillPoly(img, [np.round(bevel).astype(np.int32)], top_c.tolist(), cv2.LINE_AA)
        if k == height - 1 and look.gloss > 0:
            # The lamp's reflection, nearer the light's side of the top.
            hx, hy = x + dx + 0.35 * r * light[0], y + dy + 0.35 * r * light[1]
            spot_r = rng.uniform(0.12, 0.25) if discs is None else float(discs[k][3])
            spot = cam.undistorted(circle(hx, hy, z1, r * spot_r, 20))
            cv2.fillPoly(highlight, [np.round(spot).astype(np.int32)], look.gloss, cv2.LINE_AA)


def draw_shadows(mask: np.ndarray, cam: Camera, placement: Dict[Tuple[float, float], int],
                 look: StoneLook, light: np.ndarray) -> None:
    for (x, y), height in placement.items():
        z = height * look.thickness
        off = -z * light[:2] / light[2]
        base = circle(x, y, 0, look.radius)
        cast = circle(x + off[0], y + off[1], 0, look.radius)
        hull = cv2.convexHull(cam.undistorted(np.concatenate([base, cast])).astype(np.float32))
        cv2.fillPoly(mask, [np.round(hull).astype(np.int32)], 1.0, cv2.LINE_AA)


# --------------------------------------------------------------------------- frames

@dataclass
class Truth:
    board: str
    placement: Placement
    centres: Dict[str, Tuple[float, float]]
    corners: np.ndarray          # a1's outer corner, (W,0), (W,H), (0,H) in the frame


@dataclass
class Scene:
    board: str
    cam: Camera
    face: np.ndarray
    ppc: int
    margin: float
    background: np.ndarray
    look: StoneLook
    light: np.ndarray
    shadow: float
    gains: np.ndarray
    gradient: Tuple[float, float]
    vignette: float
    blur: float
    noise: float
    jpeg: int
    slab: float


def random_scene(rng: np.random.Generator, board: str, size) -> Scene:
    cols, rows = dimensions(board)
    cam = random_camera(rng, (cols, rows), size)
    ppc, margin = 48, rng.uniform(0.35, 0.8)
    look = StoneLook(red=np.array(RED_TOPS[rng.integers(len(RED_TOPS))], np.float32),
                     black=np.array(BLACK_TOPS[rng.integers(len(BLACK_TOPS))], np.float32),
                     radius=rng.uniform(0.36, 0.44), thickness=rng.uniform(0.14, 0.26),
                     gloss=float(rng.choice([0.0, 0.4, 0.8])))
    el, az = math.radians(rng.uniform(35, 80)), rng.uniform(0, 2 * math.pi)
    light = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    kelvin = rng.choice(["warm", "neutral", "cool"])
    gains = {"warm": (0.8, 0.95, 1.18), "neutral": (1.0, 1.0, 1.0), "cool": (1.15, 1.0, 0.88)}[kelvin]
    return Scene(board, cam, board_face(rng, board, ppc, margin), ppc, margin,
                 table_background(rng, size), look, light, rng.uniform(0.2, 0.55),
                 np.array(gains, np.float32) * rng.uniform(0.55, 1.15),
                 (rng.uniform(-0.35, 0.35), rng.uniform(-0.35, 0.35)), rng.uniform(0, 0.35),
                 float(rng.choice([0, 0, 0.8, 1.5])), rng.uniform(1.5, 6), int(rng.integers(55, 92)),
                 rng.uniform(0.05, 0.12))


@dataclass
class Hand:
    """A hand reaching over the board: fingertips over board point ``tip`` (cells), the
    forearm going off towards ``angle_deg`` (0 = +x, 90 = +y: the side its owner sits
    on), skin and sleeve colours (BGR)."""

    tip: Tuple[float, float]
    angle_deg: float
    skin: Tuple[float, float, float]
    sleeve: Tuple[float, float, float]
    height: float = 0.6      # fingertips above the board, cells


def _hand_parts(hand: Hand) -> List[Tuple[np.ndarray, np.ndarray]]:
    """The hand as 3D polygons (world points, BGR colour), farthest-drawn first: sleeve,
    wrist, palm, four fingers and a thumb."""
    a = math.radians(hand.angle_deg)
    u = np.array([math.cos(a), math.sin(a)])       # from the fingertips towards the owner
    n = np.array([-u[1], u[0]])
    tip = np.array(hand.tip, float)
    z0 = hand.height
    skin, sleeve = np.array(hand.skin, float), np.array(hand.sleeve, float)

    def quad(d0, d1, w0, w1, za, zb):
        p0, p1 = tip + u * d0, tip + u * d1
        pts = [(*(p0 + n * w0), za), (*(p1 + n * w1), zb), (*(p1 - n * w1), zb), (*(p0 - n * w0), za)]
        return np.array(pts, float)

    def ellipse(d, a_len, b_len, z, k=24):
        c = tip + u * d
        t = np.linspace(0, 2 * np.pi, k, endpoint=False)
        xy = c + np.outer(np.cos(t) * a_len, u) + np.outer(np.sin(t) * b_len, n)
        return np.c_[xy, np.full(k, z)]

    parts = [(quad(3.2, 11.0, 0.62, 0.8, z0 + 1.2, z0 + 3.0), sleeve),
             (quad(1.6, 3.4, 0.42, 0.5, z0 + 0.6, z0 + 1.25), skin * 0.93),
             (ellipse(1.05, 0.8, 0.62, z0 + 0.45), skin)]
    for i, (side, reach) in enumerate(((-0.33, 0.2), (-0.11, 0.0), (0.11, 0.05), (0.31, 0.3))):
        base = tip + u * 0.75 + n * side * 1.05
        end = tip + u * reach + n * side * 0.7
        w = 0.085
        pts = [(*(base + n * w), z0 + 0.3), (*(end + n * w), z0), (*(end - n * w), z0),
               (*(base - n * w), z0 + 0.3)]
        parts.append((np.array(pts, float), skin * (0.97 - 0.03 * i)))
    thumb_base, thumb_end = tip + u * 1.35 + n * 0.55, tip + u * 0.7 + n * 0.95
    w = 0.11
    parts.append((np.array([(*(thumb_base + n * w), z0 + 0.35), (*(thumb_end + n * w), z0 + 0.15),
                            (*(thumb_end - n * w), z0 + 0.15), (*(thumb_base - n * w), z0 + 0.35)]),
                  skin * 0.9))
    return parts


def draw_hand(img: np.ndarray, cam: Camera, hand: Hand) -> None:
    for pts, colour in _hand_parts(hand):
        poly = np.round(cam.undistorted(pts)).astype(np.int32)
        cv2.fillPoly(img, [poly], colour.tolist(), cv2.LINE_AA)
        cv2.polylines(img, [poly], True, (colour * 0.7).tolist(), 1, cv2.LINE_AA)


def draw_hand_shadow(mask: np.ndarray, cam: Camera, hand: Hand, light: np.ndarray) -> None:
    for pts, _ in _hand_parts(hand):
        cast = pts.copy()
        cast[:, :2] -= np.outer(pts[:, 2], light[:2] / light[2])
        cast[:, 2] = 0
        cv2.fillPoly(mask, [np.round(cam.undistorted(cast)).astype(np.int32)], 1.0, cv2.LINE_AA)


def render(scene: Scene, placement: Placement, rng: np.random.Generator,
           stones: Optional[Dict[str, np.ndarray]] = None,
           hand: Optional[Hand] = None) -> Tuple[np.ndarray, Truth]:
    """One frame of ``placement``. ``rng`` draws what changes from frame to frame (each
    stone's placement error and tilt when ``stones`` is not given; sensor noise).
    ``stones``: ``{cell: (height, 4)}`` per disc, bottom first, its centre (board
    coordinates, cells), shade factor and gloss-spot size: stones that stay where they
    were put (:mod:`benchmarks.unseen_games`). ``hand``: a hand over the board."""
    cam, board = scene.cam, scene.board
    cols, rows = dimensions(board)
    w, h = cam.size
    img = scene.background.copy()
    m = scene.margin
    outline = np.array([(-m, -m), (cols + m, -m), (cols + m, rows + m), (-m, rows + m)])
    # The board's cut edge: the slab between z = -slab and 0, darker than its face.
    top = cam.undistorted(np.c_[outline, np.zeros(4)])
    under = cam.undistorted(np.c_[outline, np.full(4, -scene.slab)])
    hull = cv2.convexHull(np.concatenate([top, under]).astype(np.float32))
    cv2.fillPoly(img, [np.round(hull).astype(np.int32)], (scene.face.mean(axis=(0, 1)) * 0.5).tolist(), cv2.LINE_AA)
    # The face, warped onto the board plane.
    tex_pts = (outline + m) * scene.ppc
    Hm = cv2.getPerspectiveTransform(tex_pts.astype(np.float32), top.astype(np.float32))
    warped = cv2.warpPerspective(scene.face, Hm, (w, h), flags=cv2.INTER_LINEAR)
    cover = cv2.warpPerspective(np.ones(scene.face.shape[:2], np.float32), Hm, (w, h))
    img = img * (1 - cover[..., None]) + warped * cover[..., None]
    # Stones: shadows first, then stacks from the farthest to the nearest.
    look = scene.look
    centres3 = {}
    for name_f in range(cols):
        for name_r in range(rows):
            name = cell_name(name_f, name_r)
            if name in placement:
                if stones is not None:
                    centres3[name] = (float(stones[name][0][0]), float(stones[name][0][1]))
                    continue
                jx, jy = rng.normal(0, 0.04, 2)
                centres3[name] = (name_f + 0.5 + jx, name_r + 0.5 + jy)
    shadow = np.zeros((h, w), np.float32)
    draw_shadows(shadow, cam, {centres3[n]: placement[n][1] for n in centres3}, look, scene.light)
    if hand is not None:
        draw_hand_shadow(shadow, cam, hand, scene.light)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 2 + 6 * (1 - scene.light[2]))
    img *= (1 - scene.shadow * shadow)[..., None]
    highlight = np.zeros((h, w), np.float32)
    order = sorted(centres3, key=lambda n: -np.linalg.norm(np.array([*centres3[n], 0]) - cam.C))
    for name in order:
        colour, height = placement[name]
        discs = None
        if stones is not None:
            discs = np.array(stones[name], float).copy()
            discs[:, :2] -= centres3[name]
        draw_stack(img, highlight, cam, centres3[name], colour, height, look, scene.light, rng,
                   discs)
    highlight = cv2.GaussianBlur(highlight, (0, 0), 1.5)
    img = img + highlight[..., None] * 200
    if hand is not None:
        draw_hand(img, cam, hand)
    # Light: white balance and exposure, a brightness gradient across the table, vignetting.
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = scene.gradient
    field = 1 + gx * (xs / w - 0.5) + gy * (ys / h - 0.5)
    r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / (w / 2) ** 2
    field *= 1 - scene.vignette * r2 / 2
    img = img * field[..., None] * scene.gains
    img = cam.distort_image(np.clip(img, 0, 255).astype(np.float32))
    if scene.blur:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur)
    img = img + rng.normal(0, scene.noise, img.shape)
    bgr = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg])
    bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    centres = {}
    for f in range(cols):
        for r in range(rows):
            (u, v), = cam.project(np.array([[f + 0.5, r + 0.5, 0.0]]))
            centres[cell_name(f, r)] = (float(u), float(v))
    corners = cam.project(np.array([(0, 0, 0), (cols, 0, 0), (cols, rows, 0), (0, rows, 0)], float))
    return bgr, Truth(board, dict(placement), centres, corners)


def random_placement(rng: np.random.Generator, board: str) -> Placement:
    cols, rows = dimensions(board)
    out = {}
    for f in range(cols):
        for r in range(rows):
            if rng.random() < 0.4:
                out[cell_name(f, r)] = (("red", "black")[rng.integers(2)],
                                               int(rng.choice([1, 2, 3], p=[0.6, 0.25, 0.15])))
    return out


# --------------------------------------------------------------------------- scoring

# Every cell classifier the reader has (ReaderConfig.classifier).
READERS = {kind: replace(DEFAULT_READER, classifier=kind) for kind in CLASSIFIERS}


class Tally:
    def __init__(self):
        self.frames = self.cells = self.colour_wrong = 0
        self.stacks = self.claimed = self.height_wrong = 0

    def add(self, obs, cal: Calibration, truth: Truth) -> None:
        names = list(truth.centres)
        centres = np.array([truth.centres[n] for n in names])
        self.frames += 1
        for name, (x, y) in cal.cell_centres().items():
            tname = names[int(np.argmin(((centres - (x, y)) ** 2).sum(axis=1)))]
            colour, height = truth.placement.get(tname, ("empty", None))
            reading = obs.cells[name]
            self.cells += 1
            self.colour_wrong += reading.color != colour
            if colour != "empty" and reading.color == colour:
                self.stacks += 1
                if reading.height is not None:
                    self.claimed += 1
                    self.height_wrong += reading.height != height

    def line(self, label: str) -> str:
        pct = lambda a, b: 100.0 * a / b if b else float("nan")
        return (f"{label}: colour errors {self.colour_wrong} of {self.cells} cells "
                f"({pct(self.colour_wrong, self.cells):.3f}%) in {self.frames} frames; heights claimed for "
                f"{pct(self.claimed, self.stacks):.1f}% of {self.stacks} stacks, wrong "
                f"{self.height_wrong} ({pct(self.height_wrong, self.claimed):.2f}% of claimed)")


def grid_matches(cal: Calibration, truth: Truth) -> bool:
    """Every located cell centre within a quarter cell of a true one, all cells distinct."""
    names = list(truth.centres)
    centres = np.array([truth.centres[n] for n in names])
    cell_px = np.linalg.norm(centres[1] - centres[0])
    hits = set()
    for x, y in cal.cell_centres().values():
        d = np.sqrt(((centres - (x, y)) ** 2).sum(axis=1))
        k = int(np.argmin(d))
        if d[k] > 0.25 * cell_px:
            return False
        hits.add(k)
    return len(hits) == len(names)


def run(scenes: int, seed: int, size, save: Optional[str] = None) -> Dict[str, object]:
    rng = np.random.default_rng(seed)
    found = frames = wrong_side = wrong_grid = 0
    missed: List[str] = []
    tallies = {kind: {part: Tally() for part in ("plain", "calibrated", "exact", "exact_calibrated")}
               for kind in READERS}
    for i in range(scenes):
        board = ("9x9", "7x8")[i % 2]
        scene = random_scene(rng, board, size)
        start = Position.start(board).stacks()
        start_bgr, start_truth = render(scene, start, rng)
        game_bgr, truth = render(scene, random_placement(rng, board), rng)
        if save:
            cv2.imwrite(os.path.join(save, f"{i:03d}-{board}-start.jpg"), start_bgr)
            cv2.imwrite(os.path.join(save, f"{i:03d}-{board}-game.jpg"), game_bgr)
        located = {}
        for kind, bgr, t in (("start", start_bgr, start_truth), ("game", game_bgr, truth)):
            frames += 1
            try:
                cal = locate_board(bgr)
            except BoardNotFoundError:
                cal = None
            if cal is not None and cal.board != board:
                wrong_side += 1
                cal = None
            if cal is not None and not grid_matches(cal, t):
                wrong_grid += 1          # a grid accepted that is not the board's: worse than none
                cal = None
            if cal is None:
                missed.append(f"{i:03d}-{board}-{kind}")
            else:
                found += 1
            located[kind] = cal
        true_cal = Calibration(board, size, tuple(map(tuple, truth.corners)))
        true_start = Calibration(board, size, tuple(map(tuple, start_truth.corners)))
        for kind, config in READERS.items():
            t = tallies[kind]
            t["exact"].add(CellReader(true_cal, config).read(game_bgr), true_cal, truth)
            try:
                cal = calibrate_reader(start_bgr, true_start, start, config)
            except ValueError:
                cal = true_start
            t["exact_calibrated"].add(CellReader(cal, config).read(game_bgr), cal, truth)
            if located["game"] is not None:
                t["plain"].add(CellReader(located["game"], config).read(game_bgr), located["game"], truth)
            if located["start"] is not None:
                try:
                    cal = calibrate_from_position(start_bgr, located["start"], config=config)
                except ValueError:
                    cal = located["start"]
                t["calibrated"].add(CellReader(cal, config).read(game_bgr), cal, truth)
    return {"frames": frames, "found": found, "wrong_side": wrong_side, "wrong_grid": wrong_grid,
            "missed": missed, "tallies": tallies}


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--save", metavar="DIR", help="also write every frame as JPEG here")
    args = parser.parse_args(list(argv) or None)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    if args.save:
        os.makedirs(args.save, exist_ok=True)
    cv2.setNumThreads(1)
    r = run(args.scenes, args.seed, size, args.save)
    print(f"unseen renderer: {args.scenes} scenes at {args.size} (seed {args.seed}), {r['frames']} frames")
    print(f"board found (right side, every cell within a quarter cell): {r['found']} of {r['frames']} "
          f"({100.0 * r['found'] / r['frames']:.1f}%); wrong board side: {r['wrong_side']}; "
          f"right side but a wrong grid: {r['wrong_grid']}")
    if r["missed"]:
        print("not found: " + " ".join(r["missed"][:30]) + (" ..." if len(r["missed"]) > 30 else ""))
    for kind in READERS:
        t = r["tallies"][kind]
        print(t["plain"].line(f"{kind}: out of the box"))
        print(t["calibrated"].line(f"{kind}: calibrated from the start frame"))
        print(t["exact"].line(f"{kind}: exact grid, out of the box"))
        print(t["exact_calibrated"].line(f"{kind}: exact grid, calibrated from the start frame"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

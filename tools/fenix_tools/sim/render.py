"""A physically plausible overhead-camera frame generator with exact ground truth.

The scene is built in board coordinates, measured in cells: the grid spans ``x`` in
``[0, width]`` (file a at 0..1) and ``y`` in ``[0, height]`` (rank 1 at 0..1), cells
named as in :mod:`fenix_table.board`. The board face lies in ``z = 0``, every stone is a
cylinder of radius ``stone_radius`` and thickness ``stone_thickness`` standing on its
cell, and a pinhole camera looks down from ``camera_height`` cells, tilted and turned.
Stacks therefore show their sides and the
parallax of their top disc exactly as in a photograph. A directional light casts shadows
(board, stones and forearm), glossy stones carry a glare spot in the light's colour, and
the frame then goes through lens distortion, blur, sensor noise and JPEG compression.

``render_frame(placement, board, scene, rng)`` returns ``(bgr, truth)``; ``truth`` holds
the image positions of the grid corners and cell centres (after distortion), the
placement, and which cells a forearm covers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import cv2
import numpy as np

from fenix_table.board import cell_index, cell_names, check_size, dimensions, light_lines

Placement = Dict[str, Tuple[str, int]]


@dataclass(frozen=True)
class SceneParams:
    """Everything about one shot except the stones. Colours are BGR albedos in 0..1."""

    image_size: Tuple[int, int] = (640, 480)          # width, height in pixels
    fov_deg: float = 62.0                              # horizontal field of view
    camera_height: float = 16.0                        # cells above the board
    tilt_deg: float = 0.0                              # optical axis away from vertical
    tilt_azimuth_deg: float = 0.0
    yaw_deg: float = 0.0                               # board rotation in the image
    offset: Tuple[float, float] = (0.0, 0.0)           # aim point offset from board centre, cells
    margin: float = 0.45                               # board edge beyond the grid, cells
    board_color: Tuple[float, float, float] = (0.10, 0.12, 0.16)
    line_color: Tuple[float, float, float] = (0.85, 0.85, 0.82)
    line_width: float = 0.045                          # cells
    border_line: float = 0.0                           # a printed line this far outside the grid, cells (0: none)
    table_color: Tuple[float, float, float] = (0.35, 0.45, 0.55)
    red_color: Tuple[float, float, float] = (0.12, 0.12, 0.70)
    black_color: Tuple[float, float, float] = (0.06, 0.06, 0.06)
    stone_radius: float = 0.40
    stone_thickness: float = 0.22
    jitter: float = 0.05                               # random stone offset within cell, cells
    stacking: float = 0.0                              # hand-stacked stones sit off the one below (s.d., cells)
    glossy: float = 0.0                                # 0 matte .. 1 strong lamp glare
    light_color: Tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR gain
    light_intensity: float = 1.0
    light_azimuth_deg: float = 30.0
    light_elevation_deg: float = 60.0
    ambient: float = 0.45                              # share of light that is not directional
    shadow_softness: float = 2.0                       # pixels
    hand: bool = False
    hand_color: Tuple[float, float, float] = (0.45, 0.55, 0.80)
    hand_reach: float = 3.0                            # how far the fingertips reach over the board, cells
    hand_angle_deg: float = 0.0                        # where the arm comes from
    hand_height: float = 3.0                           # cells above the board
    # Fingertips over this board point (cells), arm still from hand_angle_deg; the fingers
    # then slope down to just above the stones and hand_reach is ignored. None: as above.
    hand_tip: Optional[Tuple[float, float]] = None
    stray_stones: int = 0                              # stones lying beside the board
    distortion_k1: float = 0.0                         # radial; negative = barrel
    blur_sigma: float = 0.0
    motion_blur: float = 0.0                           # kernel length, pixels
    motion_angle_deg: float = 0.0
    noise_sigma: float = 0.0                           # in 0..255 units
    jpeg_quality: int = 0                              # 0 = no JPEG round trip
    vignette: float = 0.0                              # corner darkening share
    # What the table's top looks like around the board: "plain" (a soft texture),
    # "wood" (planks with grain and dark seams), "checks" (a gingham cloth) or "stripes".
    # Patterns are drawn on the table plane in board coordinates (cells), so they show
    # perspective like the board; their fine detail comes from ``table_seed``.
    table_pattern: str = "plain"
    table_color2: Tuple[float, float, float] = (0.2, 0.25, 0.3)   # the pattern's second colour
    table_period: float = 1.0                          # planks, checks or stripes: repeat, cells
    table_angle_deg: float = 0.0                       # the pattern's direction on the table
    table_phase: Tuple[float, float] = (0.0, 0.0)      # the pattern's offset, cells
    table_seed: int = 0


@dataclass
class GroundTruth:
    """What the generator knows about a frame (all image positions after distortion)."""

    board: str
    placement: Placement
    corners: np.ndarray                  # 4x2: board (0,0), (W,0), (W,H), (0,H)
    cell_centres: Dict[str, Tuple[float, float]]
    occluded_cells: Tuple[str, ...]
    hand: bool
    camera_centre: Tuple[float, float, float]  # board coordinates, cells
    focal: float
    hand_mask: Optional[np.ndarray] = None     # uint8 HxW, 255 where the forearm is
    # Image position of each stack's top-disc centre: shows the parallax of tall stacks.
    top_centres: Dict[str, Tuple[float, float]] = field(default_factory=dict)

    def fitted_corners(self) -> np.ndarray:
        """4x2 corners (order of ``corners``) of the homography that best fits the true
        cell centres. Under lens distortion no homography passes through every cell, and
        one through the true corners misses the middle of the board by up to a few
        pixels; this one is the best any grid (a located one too) can do."""
        width, height = dimensions(self.board)
        names = list(self.cell_centres)
        board = np.array([np.array(cell_index(n), float) + 0.5 for n in names], np.float32)
        image = np.array([self.cell_centres[n] for n in names], np.float32)
        Hm, _ = cv2.findHomography(board, image, 0)
        box = np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float64)
        return cv2.perspectiveTransform(box, Hm)[0]


TABLE_PATTERNS = ("plain", "wood", "checks", "stripes")


def random_scene(rng: np.random.Generator, board: str, *, image_size=(640, 480),
                 hard: bool = True, hand: Optional[bool] = None, table: str = "plain") -> SceneParams:
    """A random scene spanning rooms, cameras and both boards' usual colours.

    ``hard`` widens every range (dim light, glossy stones, blur, strong tilt, distortion).
    ``hand`` forces a forearm on or off; None picks one in a fifth of scenes.
    ``table`` is "plain" (a softly textured table: the same draws as ever), one of
    :data:`TABLE_PATTERNS`, or "busy" (wood, checks or stripes at random); a patterned
    table is drawn after everything else, so the rest of the scene is the plain one's.
    """
    check_size(board)
    u = rng.uniform
    w, h = image_size
    fov = u(55, 72)
    f = 0.5 * w / math.tan(math.radians(fov) / 2)
    width, height = dimensions(board)
    # The board must stay in view at any rotation: size it by its diagonal.
    span = math.hypot(width + 1.0, height + 1.0)
    fill = u(0.72, 0.95)                             # diagonal's share of the image height
    cam_h = f * span / (fill * h)
    if light_lines(board):               # a dark face
        base = np.array([u(0.05, 0.2), u(0.06, 0.2), u(0.08, 0.25)])
        board_color = tuple(base * u(0.6, 1.2))
        line_color = tuple(np.clip(np.full(3, u(0.6, 0.95)) + rng.normal(0, 0.04, 3), 0, 1))
    else:
        base = np.array([u(0.55, 0.8), u(0.62, 0.85), u(0.7, 0.92)])
        board_color = tuple(np.clip(base, 0, 1))
        line_color = tuple(np.full(3, u(0.05, 0.3)))
    warm = u(-1, 1)
    light_color = (1.0 - 0.25 * warm if warm > 0 else 1.0 - 0.1 * warm,
                   1.0 - 0.08 * abs(warm),
                   1.0 + 0.12 * warm if warm > 0 else 1.0 + 0.25 * warm)
    dim = hard and rng.random() < 0.25
    has_hand = (rng.random() < 0.2) if hand is None else hand
    skin = u(0.25, 1.0)
    if rng.random() < 0.7:
        hand_color = (0.45 * skin + 0.05, 0.55 * skin + 0.05, 0.78 * skin + 0.1)
    else:
        hand_color = tuple(u(0.1, 0.8, 3))
    k = 1.0 if hard else 0.4
    scene = SceneParams(
        image_size=image_size,
        fov_deg=fov,
        camera_height=cam_h,
        tilt_deg=u(0, 15 * k),
        tilt_azimuth_deg=u(0, 360),
        yaw_deg=u(0, 360),
        offset=(u(-0.3, 0.3), u(-0.3, 0.3)),
        margin=u(0.3, 0.7),
        board_color=board_color,
        line_color=line_color,
        line_width=u(0.03, 0.06),
        table_color=tuple(u(0.15, 0.8, 3)),
        red_color=(u(0.05, 0.2), u(0.05, 0.25), u(0.5, 0.85)),
        black_color=tuple(np.full(3, u(0.03, 0.12))),
        stone_radius=u(0.36, 0.42),
        stone_thickness=u(0.18, 0.26),
        jitter=u(0.0, 0.08),
        glossy=u(0, 1.0) * (rng.random() < 0.5) if hard else 0.0,
        light_color=light_color,
        light_intensity=u(0.3, 0.5) if dim else u(0.7, 1.25),
        light_azimuth_deg=u(0, 360),
        light_elevation_deg=u(35, 80),
        ambient=u(0.35, 0.7),
        shadow_softness=u(1, 4),
        hand=has_hand,
        hand_color=hand_color,
        hand_reach=u(1.5, 5),
        hand_angle_deg=u(0, 360),
        hand_height=u(2, 5),
        stray_stones=int(rng.integers(0, 4)),
        distortion_k1=u(-0.12, 0.03) * k,
        blur_sigma=u(0, 1.5 * k),
        motion_blur=u(0, 7) if hard and rng.random() < 0.25 else 0.0,
        motion_angle_deg=u(0, 180),
        noise_sigma=(u(3, 8) if dim else u(0.5, 4)) * k,
        jpeg_quality=int(rng.integers(45, 95)),
        vignette=u(0, 0.3 * k),
        stacking=u(0, 0.03) * k,       # drawn last: the other draws stay as they were
    )
    if table == "plain":
        return scene
    return random_table(rng, scene, table)


def random_table(rng: np.random.Generator, scene: SceneParams, pattern: str = "busy") -> SceneParams:
    """``scene`` on a patterned table: wood, a checked or a striped cloth ("busy": any).

    The hard cases for a grid finder are all here: plank seams and grain streaks are
    thin lines, checks and stripes repeat at about a cell's size, and half the tables
    run square to the board (a cloth or a table laid out along it)."""
    if pattern == "busy":
        pattern = str(rng.choice(TABLE_PATTERNS[1:]))
    if pattern not in TABLE_PATTERNS:
        raise ValueError(f"unknown table pattern {pattern!r}")
    u = rng.uniform
    angle = (u(-4, 4) + 90 * int(rng.integers(4))) if rng.random() < 0.5 else u(0, 180)
    if pattern == "wood":
        tone = u(0.15, 0.75)
        base = np.array([0.55, 0.75, 1.0]) * tone           # BGR: brown
        first = tuple(np.clip(base * u(0.85, 1.15, 3), 0, 1))
        second = tuple(np.clip(np.array(first) * u(0.45, 0.8), 0, 1))
        period = u(2.0, 7.0)                                # plank width
    elif pattern == "checks":
        first = tuple(u(0.5, 0.95, 3))
        second = tuple(u(0.05, 0.6, 3))
        period = u(0.25, 2.0)
    else:
        first = tuple(u(0.2, 0.95, 3))
        second = tuple(u(0.05, 0.7, 3))
        period = u(0.15, 2.0)
    return replace(scene, table_pattern=pattern, table_color=first, table_color2=second,
                   table_period=period, table_angle_deg=angle,
                   table_phase=(u(0, period), u(0, period)), table_seed=int(rng.integers(1 << 30)))


def random_placement(rng: np.random.Generator, board: str,
                     stones: Optional[int] = None) -> Placement:
    """A mid-game-like placement: random cells, colours and stack heights 1..3."""
    names = list(cell_names(board))
    count = int(rng.integers(6, len(names) * 2 // 3)) if stones is None else stones
    chosen = rng.choice(len(names), size=min(count, len(names)), replace=False)
    placement = {}
    for i in chosen:
        color = "red" if rng.random() < 0.5 else "black"
        placement[names[i]] = (color, int(rng.choice([1, 1, 1, 2, 2, 3])))
    return placement


class Camera:
    """Pinhole camera with optional radial distortion; world units are cells."""

    def __init__(self, scene: SceneParams, board: str):
        width, height = dimensions(board)
        w, h = scene.image_size
        self.size = (w, h)
        self.f = 0.5 * w / math.tan(math.radians(scene.fov_deg) / 2)
        self.c = np.array([w / 2.0, h / 2.0])
        self.k1 = scene.distortion_k1
        # Looking straight down: image x = world x, image y = world -y.
        axes = np.array([[1.0, 0, 0], [0, -1.0, 0], [0, 0, -1.0]])
        yaw = math.radians(scene.yaw_deg)
        rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
        axes = axes @ rz.T
        # Tilt: rotate the camera about an axis in its own image plane.
        az = math.radians(scene.tilt_azimuth_deg)
        axis = math.cos(az) * axes[0] + math.sin(az) * axes[1]
        tilt = math.radians(scene.tilt_deg)
        axes = np.array([_rotate(a, axis, tilt) for a in axes])
        self.R = axes                                   # rows: camera x, y, z in world
        target = np.array([width / 2 + scene.offset[0], height / 2 + scene.offset[1], 0.0])
        self.C = target - scene.camera_height * axes[2]

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N,3) to undistorted pixel coordinates (N,2)."""
        cam = (np.asarray(points, float) - self.C) @ self.R.T
        return self.f * cam[:, :2] / cam[:, 2:3] + self.c

    def distort(self, pixels: np.ndarray) -> np.ndarray:
        """Undistorted pixel positions to where they land in the distorted frame."""
        if self.k1 == 0:
            return np.asarray(pixels, float)
        p = (np.asarray(pixels, float) - self.c) / self.f
        ru = np.linalg.norm(p, axis=1, keepdims=True)
        rd = ru.copy()
        for _ in range(20):
            rd = ru / (1 + self.k1 * rd ** 2)
        scale = np.where(ru > 0, rd / np.maximum(ru, 1e-12), 1.0)
        return p * scale * self.f + self.c

    def plane_homography(self) -> np.ndarray:
        """Homography from board plane (x, y, 1) to undistorted pixels."""
        K = np.array([[self.f, 0, self.c[0]], [0, self.f, self.c[1]], [0, 0, 1]])
        return K @ np.column_stack([self.R[:, 0], self.R[:, 1], -self.R @ self.C])


def _rotate(v: np.ndarray, axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    return (v * math.cos(angle) + np.cross(axis, v) * math.sin(angle)
            + axis * np.dot(axis, v) * (1 - math.cos(angle)))


def _circle(cx: float, cy: float, z: float, r: float, n: int = 40) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(t), cy + r * np.sin(t), np.full(n, z)])


def _capsule(p0: np.ndarray, p1: np.ndarray, width: float, n: int = 8) -> np.ndarray:
    """Outline of a finger: a strip from p0 to p1 with a rounded end at p1 (2-D)."""
    d = (p1 - p0) / max(np.linalg.norm(p1 - p0), 1e-9)
    nrm = np.array([-d[1], d[0]])
    r = width / 2
    t = np.linspace(0, math.pi, n)
    cap = [p1 + nrm * r * math.cos(a) + d * r * math.sin(a) for a in t]
    return np.array([p0 + nrm * r] + cap + [p0 - nrm * r])


#: With ``hand_tip``: height of the fingertips above the board (cells), holding a stone
#: just above a stack; the finger that lands there (offset and length in the hand).
TIP_HEIGHT = 0.9
_TIP_FINGER = (0.32, 2.4)


def _hand_polygons(scene: "SceneParams", width: int, height: int,
                   camera_centre: Optional[np.ndarray] = None) -> List[np.ndarray]:
    """3-D outlines (board coordinates, cells) of forearm, palm, four fingers and thumb.

    The fingertips curl down a little below the palm; the forearm rises towards the elbow.
    With ``scene.hand_tip`` the fingers slope down to ``TIP_HEIGHT`` and one fingertip is
    placed where the camera (at ``camera_centre``) sees it over ``hand_tip``.
    """
    ang = math.radians(scene.hand_angle_deg)
    d = np.array([math.cos(ang), math.sin(ang)])       # from the board centre out to the elbow
    n = np.array([-d[1], d[0]])
    z = scene.hand_height
    if scene.hand_tip is not None:
        aim = np.asarray(scene.hand_tip, float)
        zt = min(TIP_HEIGHT, z * 0.85)
        if camera_centre is not None:
            # On the camera's ray through the board point, at the fingertip's height.
            C = np.asarray(camera_centre, float)
            aim = aim + (C[:2] - aim) * zt / C[2]
        off, length = _TIP_FINGER
        # That finger's end is tip + d * (2.6 - length) + n * off * 1.15 (see below).
        tip = aim - d * (2.6 - length) - n * off * 1.15
    else:
        centre = np.array([width / 2, height / 2])
        edge = centre + d * (max(width, height) / 2 + scene.margin)
        tip = edge - d * scene.hand_reach
    knuckles = tip + d * 2.4
    wrist = knuckles + d * 3.0
    elbow = wrist + d * 12.0
    def lift(points2d, heights):
        return np.column_stack([points2d, np.broadcast_to(heights, (len(points2d),))])
    forearm = lift(np.array([wrist + n * 1.1, elbow + n * 1.4, elbow - n * 1.4, wrist - n * 1.1]),
                   np.array([z, z * 1.4, z * 1.4, z]))
    palm = lift(np.array([knuckles + n * 1.3, wrist + n * 1.15, wrist - n * 1.15, knuckles - n * 1.3]),
                np.full(4, z))
    parts = [forearm, palm]
    for offset, length in zip((-0.95, -0.32, 0.32, 0.95), (1.8, 2.3, 2.4, 2.0)):
        base = knuckles + n * offset + d * 0.2
        end = base - d * length + n * offset * 0.15
        if scene.hand_tip is not None:
            zt = min(TIP_HEIGHT, z * 0.85)
            heights = np.array([z * 0.85] + [zt] * 8 + [z * 0.85])
        else:
            heights = np.full(8 + 2, z * 0.85)
        parts.append(lift(_capsule(base, end, 0.55), heights))
    thumb_base = wrist - d * 1.2 - n * 1.1
    thumb_end = thumb_base - d * 1.3 - n * 1.0
    parts.append(lift(_capsule(thumb_base, thumb_end, 0.7), np.full(8 + 2, z * 0.9)))
    return parts


def _fill(img: np.ndarray, pts: np.ndarray, color) -> None:
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)


def _board_texture(board: str, scene: SceneParams, ppc: int, rng: np.random.Generator) -> np.ndarray:
    width, height = dimensions(board)
    m = scene.margin
    tw, th = int(round((width + 2 * m) * ppc)), int(round((height + 2 * m) * ppc))
    tex = np.empty((th, tw, 3), np.float32)
    tex[:] = scene.board_color
    # Cardboard grain: low-amplitude, low-frequency noise.
    grain = cv2.resize(rng.normal(0, 1, (th // 8 + 1, tw // 8 + 1)).astype(np.float32), (tw, th))
    tex *= (1 + 0.04 * grain)[..., None]
    lw = max(1, int(round(scene.line_width * ppc)))
    for i in range(width + 1):
        x = int(round((m + i) * ppc))
        cv2.line(tex, (x, int(m * ppc)), (x, int((m + height) * ppc)), scene.line_color, lw, cv2.LINE_AA)
    for j in range(height + 1):
        y = int(round((m + j) * ppc))
        cv2.line(tex, (int(m * ppc), y), (int((m + width) * ppc), y), scene.line_color, lw, cv2.LINE_AA)
    if 0 < scene.border_line < m:
        # Many printed boards frame the grid: a thinner line around it in the margin.
        b = m - scene.border_line
        cv2.rectangle(tex, (int(round(b * ppc)), int(round(b * ppc))),
                      (int(round((m + width + scene.border_line) * ppc)), int(round((m + height + scene.border_line) * ppc))),
                      scene.line_color, max(1, lw // 2), cv2.LINE_AA)
    return np.flipud(tex).copy()  # texture row 0 = top = highest rank


def _table_pattern(scene: SceneParams, cam: "Camera", size: Tuple[int, int]) -> np.ndarray:
    """The patterned table top (float32 BGR albedo, undistorted frame pixels): each pixel's
    point on the table plane (board coordinates, cells) decides its colour."""
    w, h = size
    prng = np.random.default_rng(scene.table_seed)
    # Every pixel back onto the table plane, in the pattern's own axes (cells).
    Hinv = np.linalg.inv(cam.plane_homography())
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pix = np.stack([xx, yy, np.ones_like(xx)], -1) @ Hinv.T.astype(np.float32)
    bx, by = pix[..., 0] / pix[..., 2], pix[..., 1] / pix[..., 2]
    a = math.radians(scene.table_angle_deg)
    u = math.cos(a) * bx + math.sin(a) * by + scene.table_phase[0]
    v = -math.sin(a) * bx + math.cos(a) * by + scene.table_phase[1]
    p = scene.table_period
    c1 = np.array(scene.table_color, np.float32)
    c2 = np.array(scene.table_color2, np.float32)
    def soft_band(t, duty, edge=0.04):
        """1 inside the first ``duty`` of each period of ``t`` (in periods), anti-aliased."""
        f = t - np.floor(t)
        return np.clip(np.minimum(f, duty - f) / edge + 0.5, 0, 1) if duty < 1 else np.ones_like(t)
    if scene.table_pattern == "wood":
        plank = np.floor(u / p)
        # Grain: streaks along the planks (v), wavering, different per plank.
        shift = (plank * 7.31) % 1.0
        waver = 0.03 * np.sin(v * 0.35 + plank * 2.1) + 0.01 * np.sin(v * 1.7 + plank)
        fine = (u / p - plank + waver) * prng.uniform(6, 14) + shift * 10
        grain = 0.5 + 0.5 * np.sin(2 * math.pi * fine) * np.sin(2 * math.pi * (fine * 0.37 + 0.2))
        mix = np.clip(grain ** 3 * prng.uniform(0.5, 1.0), 0, 1)
        tone = 1 + 0.12 * np.sin(plank * 12.9898 + 1.0)
        img = (c1[None, None] * (1 - mix[..., None]) + c2[None, None] * mix[..., None]) * tone[..., None]
        # Seams between planks: thin dark lines, as thin as a printed grid line.
        seam = 1 - 0.6 * (1 - np.clip(np.abs((u / p - np.round(u / p)) * p) / 0.025, 0, 1))
        img *= seam[..., None]
    elif scene.table_pattern == "checks":
        band_u = soft_band(u / p, 0.5, 0.04 / p)
        band_v = soft_band(v / p, 0.5, 0.04 / p)
        mix = 0.5 * (band_u + band_v)
        img = c1[None, None] * (1 - mix[..., None]) + c2[None, None] * mix[..., None]
    else:
        duty = float(prng.uniform(0.15, 0.6))
        band = soft_band(u / p, duty, 0.04 / p)
        img = c1[None, None] * (1 - band[..., None]) + c2[None, None] * band[..., None]
    # Weave or grain texture at a fraction of a cell.
    fine_noise = cv2.resize(prng.normal(0, 1, (h // 4 + 1, w // 4 + 1)).astype(np.float32), (w, h))
    return (img * (1 + 0.03 * fine_noise)[..., None]).astype(np.float32)


def _persistent_draw(discs: np.ndarray, salt: float) -> float:
    """A uniform 0..1 number fixed by a stack's bottom disc: what the random stream gives
    per frame (albedo, glare) stays the same while a persistent stack stays put."""
    x, y = float(discs[0][0]), float(discs[0][1])
    v = math.sin(x * 12.9898 + y * 78.233 + salt * 37.719) * 43758.5453
    return v - math.floor(v)


def render_frame(placement: Placement, board: str, scene: SceneParams,
                 rng: np.random.Generator, *,
                 stones: Optional[Mapping[str, np.ndarray]] = None,
                 noise_rng: Optional[np.random.Generator] = None) -> Tuple[np.ndarray, GroundTruth]:
    """Render one BGR uint8 frame of ``placement`` on ``board`` and its ground truth.

    ``placement`` maps cell names to ``(colour, height)``, colour "red"|"black", height 1..3.

    ``stones`` (optional) gives persistent stacks: ``{cell: array (height, 2)}``, each row
    a disc centre in board coordinates (cells), bottom disc first. For those cells the
    discs are drawn there (their count is the stack's height) instead of a fresh random
    jitter and pile, and the stack's shade and glare depend on its bottom disc instead of
    the random stream, so a stack that stays put looks the same in every frame.
    ``noise_rng`` (optional) draws the sensor noise instead of ``rng``: with a fresh
    ``rng`` of one seed per frame (table, board grain, stray stones fixed) and a running
    ``noise_rng``, frames of an unchanged board differ by sensor noise only. Without
    either, frames are exactly as before (same draws from ``rng``).
    """
    width, height = dimensions(board)
    cam = Camera(scene, board)
    w, h = scene.image_size
    light = np.array([math.cos(math.radians(scene.light_azimuth_deg)) * math.cos(math.radians(scene.light_elevation_deg)),
                      math.sin(math.radians(scene.light_azimuth_deg)) * math.cos(math.radians(scene.light_elevation_deg)),
                      math.sin(math.radians(scene.light_elevation_deg))])
    direct = 1.0 - scene.ambient
    flat_light = scene.ambient + direct * light[2]

    # Table with a soft texture, then the board face warped through the camera.
    img = np.empty((h, w, 3), np.float32)
    img[:] = scene.table_color
    tex_noise = cv2.resize(rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32), (w, h))
    img *= (1 + 0.08 * tex_noise)[..., None]
    if scene.table_pattern != "plain":
        img = _table_pattern(scene, cam, (w, h)) * (1 + 0.04 * tex_noise)[..., None]
    # Texture resolution: about twice the grid's pixels per cell in the frame.
    ppc = int(np.clip(2 * cam.f / scene.camera_height, 40, 120))
    tex = _board_texture(board, scene, ppc, rng)
    m = scene.margin
    # texture pixel -> board coords: x = u/ppc - m, y = (H + m) - v/ppc
    T = np.array([[1.0 / ppc, 0, -m], [0, -1.0 / ppc, height + m], [0, 0, 1]])
    Hb = cam.plane_homography() @ T
    warped = cv2.warpPerspective(tex, Hb, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones(tex.shape[:2], np.float32), Hb, (w, h), flags=cv2.INTER_LINEAR)
    img = img * (1 - mask[..., None]) + warped * mask[..., None]
    img *= flat_light

    # Stacks: on the board (with jitter) and stray ones beside it. Each stone of a stack
    # sits a little off the stone below, as stacked by hand: (x, y) per stone.
    stacks: List[Tuple[np.ndarray, str, bool]] = []   # discs, colour, persistent
    tops: Dict[str, np.ndarray] = {}

    def pile(x: float, y: float, count: int) -> np.ndarray:
        off = rng.normal(0, scene.stacking, (count, 2)) if scene.stacking > 0 else np.zeros((count, 2))
        off[0] = 0
        return np.array([x, y]) + off

    for name, (color, stack_height) in placement.items():
        if stones is not None and name in stones:
            discs = np.asarray(stones[name], float).reshape(-1, 2)
            if len(discs) == 0:
                continue
            stacks.append((discs, color, True))
            tops[name] = np.array([*discs[-1], len(discs) * scene.stone_thickness])
            continue
        f, r = cell_index(name)
        jx, jy = rng.uniform(-scene.jitter, scene.jitter, 2)
        discs = pile(f + 0.5 + jx, r + 0.5 + jy, int(stack_height))
        stacks.append((discs, color, False))
        tops[name] = np.array([*discs[-1], int(stack_height) * scene.stone_thickness])
    for _ in range(scene.stray_stones):
        side = rng.integers(4)
        along = rng.uniform(0, width if side % 2 == 0 else height)
        out = rng.uniform(m + 0.6, m + 1.6)
        x, y = [(along, -out), (width + out, along), (along, height + out), (-out, along)][side]
        stacks.append((pile(x, y, int(rng.integers(1, 3))), "red" if rng.random() < 0.5 else "black",
                       False))

    # Hand and forearm: fingertips hand_reach cells inside the board edge, the arm coming
    # in from beyond it (sizes of an adult hand over 30 mm cells).
    arm_parts = _hand_polygons(scene, width, height, cam.C) if scene.hand else []

    # Cast shadows onto the board plane.
    shadow = np.zeros((h, w), np.float32)
    shift = -light[:2] / max(light[2], 0.2)
    for discs, color, _ in stacks:
        top = len(discs) * scene.stone_thickness
        (x, y), (tx, ty) = discs[0], discs[-1]
        base = _circle(x, y, 0, scene.stone_radius)
        cast = _circle(tx + shift[0] * top, ty + shift[1] * top, 0, scene.stone_radius)
        hull = cv2.convexHull(np.vstack([cam.project(base), cam.project(cast)]).astype(np.float32))
        _fill(shadow, hull.reshape(-1, 2), 1.0)
    for part in arm_parts:
        cast = part.copy()
        cast[:, :2] += shift[None, :] * part[:, 2:3]
        cast[:, 2] = 0
        _fill(shadow, cam.project(cast), 1.0)
    if scene.shadow_softness > 0:
        shadow = cv2.GaussianBlur(shadow, (0, 0), scene.shadow_softness)
    img *= (1 - (flat_light - scene.ambient) / flat_light * shadow)[..., None]

    # Stones, farthest from the camera first.
    spec = np.zeros((h, w), np.float32)
    order = sorted(stacks, key=lambda s: -np.linalg.norm(np.array([*s[0][0], 0]) - cam.C))
    for discs, color, fixed in order:
        x, y = discs[0]
        sh = len(discs)
        albedo = np.array(scene.red_color if color == "red" else scene.black_color, np.float32)
        albedo = albedo * (0.92 + 0.16 * _persistent_draw(discs, 1) if fixed else rng.uniform(0.92, 1.08))
        horiz = np.array([cam.C[0] - x, cam.C[1] - y])
        horiz /= max(np.linalg.norm(horiz), 1e-6)
        side_light = scene.ambient + direct * max(0.0, float(horiz @ light[:2])) * 0.9
        for k, (sx, sy) in enumerate(discs):
            z0, z1 = k * scene.stone_thickness, (k + 1) * scene.stone_thickness
            lo = cam.project(_circle(sx, sy, z0, scene.stone_radius))
            hi = cam.project(_circle(sx, sy, z1, scene.stone_radius))
            hull = cv2.convexHull(np.vstack([lo, hi]).astype(np.float32)).reshape(-1, 2)
            _fill(img, hull, tuple(float(v) for v in albedo * side_light))
            # The groove between stones reads as a dark line on the stack's side.
            cv2.polylines(img, [np.round(lo * 16).astype(np.int32)], True,
                          tuple(float(v) for v in albedo * side_light * 0.5), 1, cv2.LINE_AA, shift=4)
            top_pts = hi
            _fill(img, top_pts, tuple(float(v) for v in albedo * flat_light))
            # bevelled rim: a slightly darker ring just inside the top edge
            rim = cam.project(_circle(sx, sy, z1, scene.stone_radius * 0.9))
            cv2.polylines(img, [np.round(rim * 16).astype(np.int32)], True,
                          tuple(float(v) for v in albedo * flat_light * 0.8), 1, cv2.LINE_AA, shift=4)
        if scene.glossy > 0:
            # Glare: a lamp's blurred reflection, offset on the top disc towards the light.
            z = sh * scene.stone_thickness
            tx, ty = discs[-1]
            gx, gy = tx + light[0] * scene.stone_radius * 0.4, ty + light[1] * scene.stone_radius * 0.4
            if fixed:
                size, shine = 0.25 + 0.25 * _persistent_draw(discs, 2), 0.3 + 0.5 * _persistent_draw(discs, 3)
            else:
                size, shine = rng.uniform(0.25, 0.5), rng.uniform(0.3, 0.8)
            blob = cam.project(_circle(gx, gy, z, scene.stone_radius * size))
            _fill(spec, blob, float(scene.glossy * shine))

    if arm_parts:
        albedo = np.array(scene.hand_color, np.float32)
        hand_mask = np.zeros((h, w), np.uint8)
        for k, part in enumerate(arm_parts):
            outline = cam.project(part)
            # Fingers a shade darker than the back of the hand: their sides face the camera.
            shade = 0.8 if k < 2 else 0.7
            _fill(img, outline, tuple(float(v) for v in albedo * (scene.ambient + direct * shade)))
            cv2.polylines(img, [np.round(outline * 16).astype(np.int32)], True,
                          tuple(float(v) for v in albedo * scene.ambient * 0.8), 1, cv2.LINE_AA, shift=4)
            _fill(hand_mask, outline, 255)
        spec[hand_mask > 0] = 0  # the glare belongs to stones under the arm
    else:
        hand_mask = None

    if spec.any():
        spec = cv2.GaussianBlur(spec, (0, 0), 2.0)
        img += spec[..., None] * 0.9
    # Light colour, brightness and vignetting apply to everything.
    img *= np.array(scene.light_color, np.float32) * scene.light_intensity
    if scene.vignette > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        rr = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        img *= (1 - scene.vignette * rr)[..., None]

    # Lens distortion: each distorted pixel samples its undistorted source.
    if scene.distortion_k1 != 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        px = (xx - cam.c[0]) / cam.f
        py = (yy - cam.c[1]) / cam.f
        s = 1 + scene.distortion_k1 * (px * px + py * py)
        mapx = (px * s * cam.f + cam.c[0]).astype(np.float32)
        mapy = (py * s * cam.f + cam.c[1]).astype(np.float32)
        img = cv2.remap(img, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if hand_mask is not None:
            hand_mask = cv2.remap(hand_mask, mapx, mapy, cv2.INTER_NEAREST)
    if scene.motion_blur >= 2:
        n = int(scene.motion_blur)
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), scene.motion_angle_deg, 1.0)
        kernel = cv2.warpAffine(kernel, rot, (n, n))
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    if scene.blur_sigma > 0.2:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur_sigma)
    img = img * 255.0
    if scene.noise_sigma > 0:
        img += (rng if noise_rng is None else noise_rng).normal(
            0, scene.noise_sigma, img.shape).astype(np.float32)
    bgr = np.clip(img, 0, 255).astype(np.uint8)
    if scene.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)

    # Ground truth.
    corners = cam.distort(cam.project(np.array([[0, 0, 0], [width, 0, 0], [width, height, 0], [0, height, 0]], float)))
    names = cell_names(board)
    centres_board = np.array([[cell_index(n)[0] + 0.5, cell_index(n)[1] + 0.5, 0] for n in names], float)
    centres = cam.distort(cam.project(centres_board))
    occluded: List[str] = []
    if hand_mask is not None:
        for name, (cx, cy) in zip(names, centres):
            f, r = cell_index(name)
            pts = cam.distort(cam.project(np.array([[f + 0.5 + dx, r + 0.5 + dy, 0] for dx in (-0.3, 0, 0.3) for dy in (-0.3, 0, 0.3)])))
            inside = [0 <= px < w and 0 <= py < h and hand_mask[int(py), int(px)] > 0 for px, py in pts]
            if any(inside):
                occluded.append(name)
    truth = GroundTruth(
        board=board,
        placement=dict(placement),
        corners=corners,
        cell_centres={n: (float(x), float(y)) for n, (x, y) in zip(names, centres)},
        occluded_cells=tuple(occluded),
        hand=bool(scene.hand),
        camera_centre=tuple(float(v) for v in cam.C),
        focal=cam.f,
        hand_mask=hand_mask,
        top_centres={n: tuple(float(v) for v in cam.distort(cam.project(p[None]))[0]) for n, p in tops.items()},
    )
    return bgr, truth


def render_sequence(placements: Sequence[Placement], board: str, scene: SceneParams,
                    rng: np.random.Generator, *, frames_per_position: int = 5,
                    hand_frames: int = 3) -> Iterable[Tuple[np.ndarray, GroundTruth]]:
    """Frames of a recorded game: each placement held still for ``frames_per_position``
    frames, with ``hand_frames`` frames of a forearm reaching in before each change.

    The scene (camera, light, board) stays fixed, so this is what a camera sees while
    people play. Yields ``(bgr, truth)`` lazily.
    """
    for i, placement in enumerate(placements):
        if i > 0:
            for _ in range(hand_frames):
                arm = replace(scene, hand=True, hand_angle_deg=float(rng.uniform(0, 360)),
                              hand_reach=float(rng.uniform(2, 5)))
                yield render_frame(placement, board, arm, rng)
        for _ in range(frames_per_position):
            yield render_frame(placement, board, scene, rng)


def confirmed_positions(seed: int):
    """A 9x9 room for the reader's lessons from confirmed boards: (scene, placements,
    frames) of its start position and three random later positions, hand-free, at
    1280x960 (the lesson tests and ``benchmarks/bench_lessons.py``)."""
    from fenix_table.rules import Position
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, "9x9", image_size=(1280, 960), hand=False)
    placements = [Position.start("9x9").stacks()] + [random_placement(rng, "9x9") for _ in range(3)]
    return scene, placements, [render_frame(p, "9x9", scene, rng)[0] for p in placements]

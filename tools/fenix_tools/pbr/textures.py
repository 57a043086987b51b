"""Procedural textures (linear RGB, float32, rows top to bottom): the printed board face,
wooden and cloth tables. Colours are linear reflectances in 0..1, as the renderer takes
them; the face is drawn in board coordinates so the grid lands exactly where the truth
says."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Tuple

import cv2
import numpy as np


def srgb_to_linear(c, dtype=np.float32) -> np.ndarray:
    """sRGB-encoded values in 0..1 to linear light."""
    c = np.asarray(c, dtype)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(dtype)


def smooth_noise(rng: np.random.Generator, shape: Tuple[int, int], scale: float) -> np.ndarray:
    """Zero-mean, roughly unit, low-frequency noise with features ``scale`` pixels apart."""
    h, w = shape
    small = rng.standard_normal((max(2, int(h / scale) + 2), max(2, int(w / scale) + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


@dataclass(frozen=True)
class FacePrint:
    """How one board face is printed. Colours are sRGB 0..1; sizes in cells."""

    ground: Tuple[float, float, float]
    line: Tuple[float, float, float]
    line_width: float
    margins: Tuple[float, float, float, float]      # beyond the grid: left, bottom, right, top
    border: float                                   # a frame line this far outside the grid (0: none)
    border_width: float
    title_side: int                                  # margin (0..3) with the title, -1: none
    wear: float                                      # 0 new .. 1 well used
    grain: float                                     # cardboard/paper texture strength


def board_face(board_wh: Tuple[int, int], look: FacePrint, ppc: int,
               rng: np.random.Generator) -> np.ndarray:
    """The face seen from above: texture pixel (u, v) (pixel centres at +0.5) shows board
    point (u / ppc - left, top_edge - v / ppc), rank 1 at the bottom."""
    cols, rows = board_wh
    ml, mb, mr, mt = look.margins
    W, H = int(round((cols + ml + mr) * ppc)), int(round((rows + mb + mt) * ppc))
    ground = np.array(look.ground, np.float32)
    line = np.array(look.line, np.float32)
    face = np.ones((H, W, 3), np.float32) * ground
    # Print and paper: low-frequency mottling and fine fibres.
    face *= (1 + look.grain * 0.06 * smooth_noise(rng, (H, W), ppc * rng.uniform(0.5, 3)))[..., None]
    face *= (1 + look.grain * 0.03 * smooth_noise(rng, (H, W), 2.5))[..., None]

    def bx(x: float) -> float:     # board x -> texture column
        return (x + ml) * ppc

    def by(y: float) -> float:     # board y -> texture row
        return (rows + mt - y) * ppc

    ink = np.zeros((H, W), np.float32)
    shift = 4
    s = 1 << shift
    lw = max(1, int(round(look.line_width * ppc)))
    for i in range(cols + 1):
        cv2.line(ink, (int(round(bx(i) * s - s / 2)), int(round(by(0) * s - s / 2))),
                 (int(round(bx(i) * s - s / 2)), int(round(by(rows) * s - s / 2))), 1.0, lw, cv2.LINE_AA, shift)
    for j in range(rows + 1):
        cv2.line(ink, (int(round(bx(0) * s - s / 2)), int(round(by(j) * s - s / 2))),
                 (int(round(bx(cols) * s - s / 2)), int(round(by(j) * s - s / 2))), 1.0, lw, cv2.LINE_AA, shift)
    if look.border > 0:
        b = look.border
        bw = max(1, int(round(look.border_width * ppc)))
        p0 = (int(round(bx(-b) * s - s / 2)), int(round(by(rows + b) * s - s / 2)))
        p1 = (int(round(bx(cols + b) * s - s / 2)), int(round(by(-b) * s - s / 2)))
        cv2.rectangle(ink, p0, p1, 1.0, bw, cv2.LINE_AA, shift)
    if look.title_side >= 0:
        _title(ink, look, board_wh, ppc, bx, by, rng)
    if look.wear > 0:
        # Worn print: ink rubbed off in patches, scratches through it, grime on the ground.
        rub = np.clip(0.5 + smooth_noise(rng, (H, W), ppc * 0.4), 0, 1)
        ink *= 1 - look.wear * 0.45 * rub
        face *= (1 - look.wear * 0.12 * np.clip(smooth_noise(rng, (H, W), ppc * 1.5), 0, 2))[..., None]
        for _ in range(int(look.wear * 40)):
            x0, y0 = rng.uniform(0, W), rng.uniform(0, H)
            a, n = rng.uniform(0, math.pi), rng.uniform(0.2, 2.0) * ppc
            x1, y1 = x0 + n * math.cos(a), y0 + n * math.sin(a)
            cv2.line(face, (int(x0), int(y0)), (int(x1), int(y1)),
                     (ground * rng.uniform(0.75, 1.35)).tolist(), 1, cv2.LINE_AA)
    face = face * (1 - ink[..., None]) + line * ink[..., None]
    return np.clip(srgb_to_linear(np.clip(face, 0, 1)), 0, 1)


def _title(ink: np.ndarray, look: FacePrint, board_wh, ppc: int, bx, by, rng) -> None:
    """'FENIX' printed in one margin, along that edge."""
    cols, rows = board_wh
    side = look.title_side
    m = look.margins[side]
    length = (cols if side % 2 == 1 else rows) * ppc
    text = str(rng.choice(["FENIX", "F E N I X", "FENIX  board game"]))
    scale = 1.0
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    scale = min(0.5 * m * ppc / th, 0.6 * length / tw)
    thick = max(1, int(scale * 1.6))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
    strip = np.zeros((int(th * 1.8) + 4, tw + 8), np.uint8)     # putText draws on 8 bits only
    cv2.putText(strip, text, (4, int(th * 1.35)), cv2.FONT_HERSHEY_DUPLEX, scale, 255, thick, cv2.LINE_AA)
    strip = strip.astype(np.float32) / 255.0
    # Readable from the nearest edge: rotate the strip for the side margins.
    strip = np.rot90(strip, {1: 0, 3: 2, 0: 1, 2: 3}[side]).copy()
    sh, sw = strip.shape
    cx, cy = {0: (bx(-m / 2), by(rows / 2)), 1: (bx(cols / 2), by(-m / 2)),
              2: (bx(cols + m / 2), by(rows / 2)), 3: (bx(cols / 2), by(rows + m / 2))}[side]
    x0, y0 = int(cx - sw / 2), int(cy - sh / 2)
    H, W = ink.shape
    if x0 < 0 or y0 < 0 or x0 + sw > W or y0 + sh > H:
        return
    ink[y0:y0 + sh, x0:x0 + sw] = np.maximum(ink[y0:y0 + sh, x0:x0 + sw], strip)


def wood(rng: np.random.Generator, size: int, base, dark: float) -> np.ndarray:
    """Planks with grain along x (sRGB base colour, darker streaks ``dark`` share)."""
    h = w = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    plank = size / rng.uniform(3, 9)
    warp = smooth_noise(rng, (h, w), size / rng.uniform(2, 6)) * rng.uniform(4, 20)
    rings = np.sin((ys + warp) / rng.uniform(1.5, 5) + smooth_noise(rng, (h, w), 40) * 2)
    fine = smooth_noise(rng, (h, w), 1.5)
    streak = smooth_noise(rng, (h, 1), rng.uniform(2, 8)).repeat(w, axis=1)
    g = 0.5 + 0.25 * rings + 0.15 * fine + 0.3 * streak
    out = np.array(base, np.float32) * (1 - dark * np.clip(g, 0, 1.5))[..., None]
    # Plank joints with a per-plank tone and a dark seam.
    idx = (ys // plank).astype(int)
    tone = 1 + 0.12 * rng.standard_normal(int(h / plank) + 2)
    out *= tone[idx][..., None]
    seam = (ys % plank) < 2
    out[seam] *= 0.45
    return srgb_to_linear(np.clip(out, 0, 1))


def cloth(rng: np.random.Generator, size: int, kind: str, period: float) -> np.ndarray:
    """A tablecloth: ``kind`` 'check' (gingham/plaid), 'stripe' or 'plain'; ``period`` in
    texture pixels. Colours drawn here, weave added."""
    h = w = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = np.array(rng.uniform(0.05, 0.95, 3), np.float32)
    b = np.array([0.93, 0.93, 0.9], np.float32) * rng.uniform(0.7, 1.0) if rng.random() < 0.6 \
        else np.array(rng.uniform(0.05, 0.95, 3), np.float32)
    if kind == "check":
        sx = ((xs // (period / 2)) % 2).astype(np.float32)
        sy = ((ys // (period / 2)) % 2).astype(np.float32)
        mix = (sx + sy) / 2       # 0 white, 0.5 mixed, 1 full colour (gingham)
        out = b * (1 - mix[..., None]) + a * mix[..., None]
    elif kind == "stripe":
        width = rng.uniform(0.2, 0.6)
        on = ((ys / period) % 1.0 < width).astype(np.float32)
        out = b * (1 - on[..., None]) + a * on[..., None]
        if rng.random() < 0.4:        # a thin second stripe
            thin = (((ys / period) + 0.5) % 1.0 < 0.06).astype(np.float32)
            c = np.array(rng.uniform(0.05, 0.95, 3), np.float32)
            out = out * (1 - thin[..., None]) + c * thin[..., None]
    else:
        out = np.ones((h, w, 3), np.float32) * a
    weave = 1 + 0.06 * np.sin(xs * 2.2) * np.sin(ys * 2.2) + 0.04 * smooth_noise(rng, (h, w), 1.2)
    folds = 1 + 0.05 * smooth_noise(rng, (h, w), size / 6)
    out = out * (weave * folds)[..., None]
    return srgb_to_linear(np.clip(out, 0, 1))


def plain(rng: np.random.Generator, size: int, base) -> np.ndarray:
    """Laminate, felt or painted top: one colour with mottling."""
    out = np.ones((size, size, 3), np.float32) * np.array(base, np.float32)
    out *= (1 + 0.05 * smooth_noise(rng, (size, size), size / 10) + 0.03 * smooth_noise(rng, (size, size), 2))[..., None]
    return srgb_to_linear(np.clip(out, 0, 1))


def blackbody(kelvin: float) -> np.ndarray:
    """Linear RGB of a light of colour temperature ``kelvin``, green channel 1."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    bl = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    rgb = srgb_to_linear(np.clip(np.array([r, g, bl]) / 255.0, 0, 1))
    return rgb / max(rgb[1], 1e-6)

"""What this family's camera makes of Cycles' film: the lens's distortion and fall-off,
lateral colour, exposure, a Bayer sensor's noise and demosaicking, white balance, a tone
curve, sharpening and JPEG. The settings are the room's ``camera_look``
(:func:`fenix_tools.cycles.room.draw_room`)."""
from __future__ import annotations

from typing import Dict

import cv2
import numpy as np

from fenix_tools.pbr.camera import LensCamera

LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)


def distort(film: np.ndarray, camera: LensCamera, pad, scale: float) -> np.ndarray:
    """The frame through the lens: every frame pixel samples the pinhole film (rendered
    at ``scale`` of the frame's resolution, ``pad`` frame pixels wider each side) where
    the undistorted ray lands."""
    mapx, mapy = camera.source_map()
    px, py = pad
    # Frame pixel X (OpenCV centres) is film pixel (X + 0.5) * scale - 0.5.
    fx = ((mapx + px + 0.5) * scale - 0.5).astype(np.float32)
    fy = ((mapy + py + 0.5) * scale - 0.5).astype(np.float32)
    out = cv2.remap(np.ascontiguousarray(film, np.float32), fx, fy, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
    return np.maximum(out, 0)


def develop(linear: np.ndarray, look: Dict, rng: np.random.Generator) -> bytes:
    """JPEG bytes of the frame's linear RGB (h, w, 3) as ``look``'s camera develops it."""
    h, w = linear.shape[:2]
    img = np.nan_to_num(linear.astype(np.float32), nan=0.0, posinf=50.0)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    # Natural fall-off (cos^4-like), stronger in a cheap lens.
    img *= (1 / (1 + look["vignette"] * r2) ** 2)[..., None]
    if look["aberration"] > 0:
        img = _lateral_colour(img, look["aberration"])
    # Exposure: the meter's reading to mid grey, off by the room's EV.
    lum = img @ LUMA
    if look["metering"] == "average":
        level = float(np.exp(np.log(lum + 1e-4).mean()))
    elif look["metering"] == "centre":
        weight = np.exp(-3.0 * r2)
        level = float((np.minimum(lum, 4.0) * weight).sum() / weight.sum())
    else:                             # keep the brightest percent just short of clipping
        level = float(np.percentile(lum, 99)) * 0.18 / 0.8
    img *= 0.18 * 2.0 ** look["exposure_ev"] / max(level, 1e-6)
    img = _sensor(img, look, rng)
    # White balance: the camera's estimate of the light, corrected in part.
    flat = np.clip(img, 0, 1).reshape(-1, 3)
    if look["wb_method"] == "grey":
        est = flat.mean(axis=0)
    else:
        bright = flat @ LUMA
        est = flat[bright >= np.percentile(bright, 98)].mean(axis=0)
    est = est + 1e-6
    gains = (est[1] / est) ** look["white_balance"]
    gains *= np.array([1 + look["tint"][0], 1.0, 1 + look["tint"][1]], np.float32)
    img = img * gains.astype(np.float32)
    img = _curve(np.clip(img, 0, None), look["curve"])
    grey = (img @ LUMA)[..., None]
    img = np.clip(grey + (img - grey) * look["saturation"], 0, 1)
    if look["sharpen"] > 0:
        img = np.clip(img + look["sharpen"] * (img - cv2.GaussianBlur(img, (0, 0), 1.0)), 0, 1)
    bgr = np.clip(img[..., ::-1] * 255 + rng.uniform(0, 1, img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(look["jpeg"])])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


def _lateral_colour(img: np.ndarray, amount: float) -> np.ndarray:
    """Red magnified and blue shrunk by ``amount`` about the centre (a lens's lateral
    chromatic aberration)."""
    h, w = img.shape[:2]
    out = img.copy()
    for ch, s in ((0, 1 + amount), (2, 1 - amount)):
        M = np.array([[1 / s, 0, (w / 2 - 0.5) * (1 - 1 / s)], [0, 1 / s, (h / 2 - 0.5) * (1 - 1 / s)]], np.float32)
        out[..., ch] = cv2.warpAffine(img[..., ch], M, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                      borderMode=cv2.BORDER_REPLICATE)
    return out


def _sensor(img: np.ndarray, look: Dict, rng: np.random.Generator) -> np.ndarray:
    """An RGGB Bayer sensor: each photosite sees one colour, counts photons (``gain``
    electrons at full well 1.0) with read noise, clips at full well, and the camera
    demosaics the mosaic back to RGB."""
    h, w = img.shape[:2]
    mosaic = np.empty((h, w), np.float32)
    mosaic[0::2, 0::2] = img[0::2, 0::2, 0]
    mosaic[0::2, 1::2] = img[0::2, 1::2, 1]
    mosaic[1::2, 0::2] = img[1::2, 0::2, 1]
    mosaic[1::2, 1::2] = img[1::2, 1::2, 2]
    electrons = rng.poisson(np.clip(mosaic, 0, 1) * look["gain"]).astype(np.float32)
    electrons += rng.normal(0, look["read_noise"], mosaic.shape).astype(np.float32)
    raw = np.clip(electrons / look["gain"], 0, 1)
    raw16 = (raw * 65535 + 0.5).astype(np.uint16)
    # OpenCV names Bayer patterns by the second row's first two sites: RGGB is "BG".
    code = cv2.COLOR_BayerBG2RGB if look["demosaic"] == "bilinear" else cv2.COLOR_BayerBG2RGB_EA
    return cv2.cvtColor(raw16, code).astype(np.float32) / 65535


def _curve(x: np.ndarray, kind: str) -> np.ndarray:
    """Linear light to display values: plain sRGB, a filmic shoulder, or sRGB with a
    contrast S-curve."""
    if kind == "filmic":
        x = x * 1.6
        x = x * (1 + x / 6.0) / (1 + x)
    srgb = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 0.0031308), 1 / 2.4) - 0.055)
    srgb = np.clip(srgb, 0, 1)
    if kind == "contrast":
        srgb = srgb + 0.5 * (srgb * srgb * (3 - 2 * srgb) - srgb)
    return srgb.astype(np.float32)

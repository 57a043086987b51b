"""The Cycles family's camera: the lens map puts film points where the truth projects
them, auto exposure, and the Bayer sensor keeps colours."""
import cv2
import numpy as np

from fenix_tools.cycles import make
from fenix_tools.cycles.develop import develop, distort
from fenix_tools.cycles.room import film

SIZE = (320, 240)
LOOK = {"exposure_ev": 0.0, "metering": "average", "vignette": 0.0, "aberration": 0.0, "white_balance": 0.0,
        "wb_method": "grey", "tint": [0.0, 0.0], "gain": 1e6, "read_noise": 0.0, "curve": "srgb",
        "saturation": 1.0, "demosaic": "bilinear", "sharpen": 0.0, "jpeg": 95}


def _decoded(jpeg: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).astype(float)


def test_a_film_point_lands_where_the_lens_projects_it():
    for index in range(4):
        room, _ = make.draw_frames("train", make.room_seed("train", 1, index), SIZE)
        cam = room.camera
        for scale in (0.5, 1.0):
            W, H, px, py = film(room, scale)
            point = np.array([[1.3, 2.6, 0.0]])
            ux, uy = cam.undistorted(point)[0]
            fx, fy = (ux + px + 0.5) * scale - 0.5, (uy + py + 0.5) * scale - 0.5
            ys, xs = np.mgrid[0:H, 0:W]
            blob = np.exp(-((xs - fx) ** 2 + (ys - fy) ** 2) / (2 * 1.5 ** 2)).astype(np.float32)
            out = distort(np.repeat(blob[..., None], 3, axis=2), cam, (px, py), scale)[..., 0]
            assert out.shape == (SIZE[1], SIZE[0])
            yy, xx = np.mgrid[0:SIZE[1], 0:SIZE[0]]
            mass = np.where(out > 0.3 * out.max(), out, 0)
            seen = np.array([(mass * xx).sum(), (mass * yy).sum()]) / mass.sum()
            assert np.abs(seen - cam.project(point)[0]).max() < 0.35


def test_auto_exposure_brings_dim_and_bright_rooms_to_mid_grey():
    levels = []
    for radiance in (0.01, 1.0, 20.0):
        film_rgb = np.full((SIZE[1], SIZE[0], 3), radiance, np.float32)
        levels.append(_decoded(develop(film_rgb, LOOK, np.random.default_rng(1))).mean())
    # sRGB of 0.18 is 118.
    assert all(abs(v - 118) < 4 for v in levels)
    darker = develop(np.full((SIZE[1], SIZE[0], 3), 1.0, np.float32), {**LOOK, "exposure_ev": -1.5},
                     np.random.default_rng(1))
    assert _decoded(darker).mean() < 80


def test_the_bayer_sensor_keeps_a_red_red_and_a_blue_blue():
    base = np.full((SIZE[1], SIZE[0], 3), 0.05, np.float32)
    for rgb, channel in (((0.6, 0.08, 0.04), 2), ((0.04, 0.08, 0.6), 0)):       # BGR index
        img = base.copy()
        img[60:180, 80:240] = rgb
        for demosaic in ("bilinear", "edge"):
            bgr = _decoded(develop(img, {**LOOK, "demosaic": demosaic, "gain": 400.0, "read_noise": 2.0},
                                   np.random.default_rng(2)))
            patch = bgr[80:160, 100:220].mean(axis=(0, 1))
            assert patch.argmax() == channel
            assert patch[channel] > patch[1] + 60


def test_sensor_noise_grows_as_the_gain_falls():
    img = np.full((SIZE[1], SIZE[0], 3), 0.2, np.float32)
    spread = [_decoded(develop(img, {**LOOK, "gain": gain, "read_noise": 1.0}, np.random.default_rng(3)))[..., 1].std()
              for gain in (5000.0, 100.0)]
    assert spread[1] > 2 * spread[0]

import numpy as np
import pytest


@pytest.fixture
def lamp_pool():
    """A lamp's pool of light on a frame: the picture darkened to ``dark`` outside a disc
    (``centre`` and ``radius`` in shares of the frame's width), with a soft rim. The same
    pool on every frame of a room: the light stays where it is."""
    def pool(bgr, centre=(0.5, 0.35), radius=0.27, dark=0.3):
        h, w = bgr.shape[:2]
        y, x = np.mgrid[0:h, 0:w]
        d = np.hypot(x - centre[0] * w, y - centre[1] * h) / (radius * w)
        gain = dark + (1 - dark) * np.clip((1.15 - d) / 0.3, 0, 1)
        return np.clip(bgr * gain[..., None], 0, 255).astype(np.uint8)
    return pool


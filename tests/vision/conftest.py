import pytest

from fenix_tools.sim import SceneParams


@pytest.fixture
def dim_maroon():
    """A dim room under a warm lamp with maroon red stones: out of the box every red stone
    of the 7x8 start position reads as black."""
    return SceneParams(red_color=(0.14, 0.12, 0.2), light_color=(1.3, 0.9, 0.6), light_intensity=0.5,
                       noise_sigma=3.0, jpeg_quality=85)

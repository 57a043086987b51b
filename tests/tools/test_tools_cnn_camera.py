"""The cell CNN's training augmentation: frames through cameras unlike the renderers'."""
import numpy as np
import pytest

from fenix_table.vision.classifier import PATCH


def test_another_camera_keeps_a_frame_and_makes_its_light_fall_off_across_the_board():
    pytest.importorskip("cv2")
    from fenix_tools.cnn.train import camera
    grey = np.full((81, PATCH, PATCH, 3), 0.5, np.float32)
    falls = 0
    for seed in range(20):
        out = camera(np.random.default_rng(seed), grey)
        assert out.shape == grey.shape and out.dtype == np.float32
        assert out.min() >= 0.0 and out.max() <= 1.0
        cells = out.mean(axis=(1, 2, 3))
        falls += cells.max() - cells.min() > 0.02
    # Vignetting in most frames: some cells of a uniform board come out darker.
    assert 5 <= falls < 20


def test_relit_frames_keep_their_patches_shape_and_type():
    from fenix_tools.cnn.train import relight
    rng = np.random.default_rng(0)
    patches = rng.integers(0, 255, (56, PATCH, PATCH, 3), dtype=np.uint8)
    labels = rng.integers(-1, 3, 56)
    out = relight(rng, patches, labels, camera_share=1.0)
    assert out.shape == patches.shape and out.dtype == np.uint8
    assert not np.array_equal(out, patches)


def test_a_shadows_edge_darkens_one_side_of_the_board_only():
    from fenix_tools.cnn.train import shade
    grey = np.full((56, PATCH, PATCH, 3), 0.5, np.float32)
    for seed in range(10):
        out = shade(np.random.default_rng(seed), grey)
        assert out.shape == grey.shape and out.dtype == np.float32
        cells = out.mean(axis=(1, 2, 3))
        # Never brighter; the dark side 0.12-0.6 as bright, the far side nearly untouched.
        assert cells.max() <= 0.5 + 1e-6
        assert 0.12 * 0.5 - 1e-6 <= cells.min() < 0.5 * 0.95
    # Patches that are not a whole board are left as they are.
    assert shade(np.random.default_rng(0), grey[:10]) is not None
    assert np.array_equal(shade(np.random.default_rng(0), grey[:10]), grey[:10])

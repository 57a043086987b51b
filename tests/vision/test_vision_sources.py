"""Frame sources on real files: image folders, single images, video files, failures."""
import importlib.util

import cv2
import numpy as np
import pytest

from fenix_table.errors import CameraError
from fenix_table.vision.sources import FolderSource, VideoSource, open_source


def solid(value, size=(64, 48)):
    return np.full((size[1], size[0], 3), value, np.uint8)


def test_folder_in_name_order_ignoring_other_files(tmp_path):
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "notes.txt").write_text("not an image")
    with open_source(str(tmp_path)) as source:
        frames = list(source)
    assert [int(np.median(f)) for f in frames] == pytest.approx([10, 20, 30], abs=2)


def test_single_image_and_unreadable_image(tmp_path):
    cv2.imwrite(str(tmp_path / "one.png"), solid(99))
    assert len(list(open_source(str(tmp_path / "one.png")))) == 1
    (tmp_path / "broken.png").write_bytes(b"not really a png")
    source = FolderSource([str(tmp_path / "broken.png")])
    with pytest.raises(CameraError, match="broken.png"):
        source.read()


def test_missing_paths_raise_camera_error(tmp_path):
    with pytest.raises(CameraError, match="no such"):
        open_source(str(tmp_path / "missing.jpg"))
    with pytest.raises(CameraError, match="no such"):
        open_source(str(tmp_path / "missing.avi"))
    with pytest.raises(CameraError, match="no such folder"):
        FolderSource(str(tmp_path / "nowhere"))


def test_video_file_frames_then_end(tmp_path):
    path = str(tmp_path / "clip.avi")
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for value in (40, 120, 200):
        writer.write(solid(value))
    writer.release()
    with open_source(path) as source:
        assert isinstance(source, VideoSource)
        frames = list(source)
    assert [int(np.median(f)) for f in frames] == pytest.approx([40, 120, 200], abs=6)


def test_file_that_is_not_a_video(tmp_path):
    path = tmp_path / "fake.mp4"
    path.write_bytes(b"\x00" * 100)
    with pytest.raises(CameraError, match="fake.mp4"):
        source = open_source(str(path))
        source.read()


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is not None, reason="a real Pi camera stack is present")
def test_picamera2_missing_is_a_clear_error():
    with pytest.raises(CameraError, match="picamera2"):
        open_source("picamera2")

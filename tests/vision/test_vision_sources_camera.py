"""Camera settings reach the cameras: the Pi camera's configuration, fixed exposure and
exposure / white-balance lock, and a webcam's property requests.

Only the hardware boundary is faked: ``sources._picamera2_class`` (picamera2 exists only
on Raspberry Pi OS) and ``sources._video_capture`` (OpenCV's VideoCapture).
"""
import cv2
import numpy as np
import pytest

from fenix_table.config import CameraConfig, Config, ConfigError
from fenix_table.errors import CameraError
from fenix_table.vision import sources
from fenix_table.vision.sources import (SETTLE_FRAMES, FolderSource, Picamera2Source,
                                        VideoSource, open_source, webcam_exposure)


class FakeRequest:
    def __init__(self, size):
        self.size = size

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def make_array(self, stream):
        assert stream == "main"
        width, height = self.size
        return np.zeros((height, width, 3), np.uint8)


class FakePicamera2:
    """Records what it is told. Its automatic exposure converges frame by frame: frame n
    reports ExposureTime 30000 - 1000 n, AnalogueGain 1 + n / 10, ColourGains
    (1.2 + n / 100, 2.0 - n / 100)."""

    fail_on = None          # name of a method that raises, as a broken camera would
    metadata_keys = ("ExposureTime", "AnalogueGain", "ColourGains")

    def __init__(self):
        self.frame = 0
        self.configuration = None
        self.sent = []       # every set_controls call, in order
        self.started = self.closed = False
        type(self).last = self

    def _maybe_fail(self, name):
        if self.fail_on == name:
            raise RuntimeError(f"{name}: camera __init__ sequence did not complete")

    def create_video_configuration(self, main=None, lores=None, controls=None, **kwargs):
        return {"main": dict(main), "lores": lores, "controls": dict(controls or {}), **kwargs}

    def configure(self, configuration):
        self._maybe_fail("configure")
        self.configuration = configuration

    def start(self):
        self._maybe_fail("start")
        self.started = True

    def capture_metadata(self):
        self.frame += 1
        n = self.frame
        metadata = {"ExposureTime": 30000 - 1000 * n, "AnalogueGain": 1 + n / 10,
                    "ColourGains": (1.2 + n / 100, 2.0 - n / 100), "FrameDuration": 33333}
        return {k: v for k, v in metadata.items() if k in self.metadata_keys or
                k == "FrameDuration"}

    def set_controls(self, controls):
        self.sent.append(dict(controls))

    def captured_request(self):
        self.frame += 1
        return FakeRequest(self.configuration["main"]["size"])

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True


@pytest.fixture
def picamera(monkeypatch):
    class Camera(FakePicamera2):
        pass
    monkeypatch.setattr(sources, "_picamera2_class", lambda: Camera)
    return Camera


def locked_at(frame, exposure=None):
    """The controls a lock after ``frame`` frames must send."""
    return {"AeEnable": False, "AwbEnable": False,
            "ExposureTime": exposure if exposure is not None else 30000 - 1000 * frame,
            "AnalogueGain": 1 + frame / 10,
            "ColourGains": (1.2 + frame / 100, 2.0 - frame / 100)}


def test_picamera2_without_settings_is_as_before(picamera):
    with open_source("picamera2") as source:
        camera = picamera.last
        assert isinstance(source, Picamera2Source)
        assert camera.configuration["main"] == {"size": (1280, 960), "format": "RGB888"}
        assert camera.configuration["controls"] == {"AeEnable": True, "AwbEnable": True}
        # automatic exposure and white balance settled, then frozen at the values of the
        # last settling frame
        assert camera.sent == [locked_at(SETTLE_FRAMES)]
        assert source.locked and source.controls == locked_at(SETTLE_FRAMES)
        assert source.read().shape == (960, 1280, 3)
    assert camera.closed


def test_picamera2_takes_the_configured_size_and_fixed_exposure(picamera):
    config = Config.from_toml("[camera]\nwidth = 800\nheight = 600\nexposure = 8333\n")
    with open_source("picamera2", camera=config.camera) as source:
        camera = picamera.last
        assert camera.configuration["main"] == {"size": (800, 600), "format": "RGB888"}
        # automatic exposure is off from the first frame, white balance still settles
        assert camera.configuration["controls"] == {"AeEnable": False, "ExposureTime": 8333,
                                                    "AwbEnable": True}
        assert camera.sent == [locked_at(SETTLE_FRAMES, exposure=8333)]
        assert source.read().shape == (600, 800, 3)


def test_picamera2_auto_exposure_locks_when_the_table_says(picamera):
    source = open_source("picamera2", camera={"exposure": "auto"}, lock=False)
    camera = picamera.last
    assert not source.locked and camera.sent == []
    for _ in range(3):
        source.read()                       # frames 1-3, still automatic
    assert source.lock() is True            # once calibrated: the next frame's values
    assert source.locked and camera.sent == [locked_at(4)]
    source.unlock()                         # e.g. the light changed: automatic again ...
    assert not source.locked
    assert camera.sent[-1] == {"AeEnable": True, "AwbEnable": True}
    source.lock(settle_frames=5)            # ... settle five frames, freeze again
    assert source.locked and camera.sent[-1] == locked_at(9)
    source.close()


def test_picamera2_lock_sends_only_what_the_metadata_reports(picamera):
    picamera.metadata_keys = ("ExposureTime",)
    with open_source("picamera2", lock=False) as source:
        source.lock()
    assert picamera.last.sent == [{"AeEnable": False, "AwbEnable": False,
                                   "ExposureTime": 29000}]


def test_picamera2_failures_are_one_camera_error_and_close_the_camera(picamera):
    picamera.fail_on = "start"
    with pytest.raises(CameraError, match="^Pi camera failed: start: camera __init__"):
        open_source("picamera2", camera=CameraConfig(width=640, height=480))
    assert picamera.last.closed


def test_bad_camera_settings_are_named_like_the_config_keys(picamera):
    with pytest.raises(ConfigError, match='camera.exposure: expected "auto" or microseconds'):
        open_source("picamera2", camera={"exposure": "fast"})
    with pytest.raises(ConfigError, match=r"camera.width: 10 is out of range"):
        open_source("picamera2", camera={"width": 10, "height": 480})
    with pytest.raises(ConfigError, match="camera.gain: unknown key"):
        open_source("picamera2", camera={"gain": 2})


class FakeCapture:
    """OpenCV VideoCapture stand-in: records every property request."""

    def __init__(self, device, backend="V4L2"):
        self.device = device
        self.backend = backend
        self.requests = []
        self.properties = {cv2.CAP_PROP_FRAME_WIDTH: 640.0, cv2.CAP_PROP_FRAME_HEIGHT: 480.0}

    def isOpened(self):
        return True

    def getBackendName(self):
        return self.backend

    def set(self, prop, value):
        self.requests.append((prop, value))
        self.properties[prop] = float(value)
        return True

    def get(self, prop):
        return self.properties.get(prop, 0.0)

    def read(self):
        width = int(self.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = int(self.get(cv2.CAP_PROP_FRAME_HEIGHT))
        return True, np.zeros((height, width, 3), np.uint8)

    def release(self):
        pass


@pytest.fixture
def captures(monkeypatch):
    opened = []

    def capture(device):
        opened.append(FakeCapture(device))
        return opened[-1]
    monkeypatch.setattr(sources, "_video_capture", capture)
    return opened


def test_webcam_is_asked_for_size_and_fixed_exposure(captures):
    camera = CameraConfig(width=1024, height=768, exposure=10000)
    with open_source("0", camera=camera) as source:
        assert isinstance(source, VideoSource) and captures[0].device == 0
        assert captures[0].requests == [
            (cv2.CAP_PROP_FRAME_WIDTH, 1024), (cv2.CAP_PROP_FRAME_HEIGHT, 768),
            (cv2.CAP_PROP_AUTO_EXPOSURE, 1), (cv2.CAP_PROP_EXPOSURE, 100)]
        assert source.size == (1024, 768) and source.read().shape == (768, 1024, 3)
        assert source.lock() is False and not source.locked


def test_webcam_auto_exposure_and_no_settings(captures):
    open_source("1", camera=CameraConfig(width=640, height=480)).close()
    assert captures[0].requests == [(cv2.CAP_PROP_FRAME_WIDTH, 640),
                                    (cv2.CAP_PROP_FRAME_HEIGHT, 480)]
    open_source("1").close()                 # no settings: nothing requested, as before
    assert captures[1].requests == []


def test_video_files_and_folders_ignore_camera_settings(captures, tmp_path):
    clip = tmp_path / "clip.avi"
    clip.write_bytes(b"")
    camera = CameraConfig(width=640, height=480, exposure=10000)
    with open_source(str(clip), camera=camera) as source:
        assert source.is_file and captures[0].requests == []
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((48, 64, 3), np.uint8))
    with open_source(str(tmp_path), camera=camera) as source:
        assert isinstance(source, FolderSource) and not source.locked
        assert source.read().shape == (48, 64, 3)


@pytest.mark.parametrize("backend, microseconds, expected", [
    ("V4L2", 10000, (1, 100)),        # manual mode, units of 100 µs
    ("V4L2", 8333, (1, 83)),
    ("V4L2", 20, (1, 1)),             # never 0 (which some drivers take as "auto")
    ("DSHOW", 15625, (0.25, -6)),     # log2 of seconds: 1/64 s
    ("MSMF", 33333, (0.25, -5)),
])
def test_webcam_exposure_values(backend, microseconds, expected):
    assert webcam_exposure(backend, microseconds) == expected

"""Frame sources: one small interface for the Pi camera, OpenCV captures and image folders.

Every source yields BGR ``numpy`` arrays, raises :class:`CameraError` with a clear message
when it fails (the caller decides whether to retry), and is a context manager.

Cameras take the ``[camera]`` settings of the configuration (``config.camera``): the
frame size and the exposure, ``"auto"`` or fixed microseconds. The Pi camera freezes
exposure and white balance once they have settled (:meth:`FrameSource.lock`), so the
colours the reader was calibrated on stay put; files and folders have their own size and
nothing to freeze.
"""
from __future__ import annotations

import math
import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from ..config import CameraConfig
from ..errors import CameraError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")

#: Frames the Pi camera's automatic exposure and white balance get to settle before they
#: are frozen (half a second at 30 frames per second).
SETTLE_FRAMES = 15


def camera_settings(camera: Any = None) -> CameraConfig:
    """The camera settings ``open_source`` was given: the configuration's ``[camera]``
    section as it is, a mapping with some of ``width``, ``height``, ``exposure`` (checked
    as the configuration file's keys are, ConfigError naming the key), or None for the
    defaults (1280x960, automatic exposure)."""
    if camera is None:
        return CameraConfig()
    if isinstance(camera, CameraConfig):
        return camera
    if isinstance(camera, Mapping):
        return CameraConfig.from_values(camera)
    raise TypeError(f"camera settings must be a CameraConfig or a mapping, not "
                    f"{type(camera).__name__}")


class FrameSource:
    """Base class: ``read()`` returns the next frame or raises CameraError; iterating
    yields frames until the source ends.

    ``locked`` tells whether exposure and white balance are frozen; :meth:`lock` freezes
    them where the source can (the Pi camera) and does nothing elsewhere.
    """

    locked = False

    def read(self):
        raise NotImplementedError

    def lock(self, settle_frames: int = 0) -> bool:
        """Freeze exposure and white balance at their current values (after
        ``settle_frames`` frames); returns ``locked``. Here: nothing to freeze."""
        return self.locked

    def unlock(self) -> None:
        """Hand exposure and white balance back to the camera's automatic control."""

    def close(self) -> None:
        pass

    def __iter__(self) -> Iterator:
        while True:
            try:
                yield self.read()
            except StopIteration:
                return

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: The largest image file read as a frame (a camera frame is well under 10 MB).
MAX_IMAGE_BYTES = 64_000_000


def complete_image(data: bytes) -> bool:
    """Whether ``data`` holds a whole image file: a JPEG must end with its end-of-image
    marker (trailing padding allowed) and a PNG with its IEND chunk. OpenCV decodes a
    truncated JPEG into a partly grey picture, which reads as a board of empty cells."""
    if data[:2] == b"\xff\xd8":
        return data.rstrip(b"\x00\r\n \t\xff").endswith(b"\xd9") and \
            b"\xff\xd9" in data[-64:]
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return b"IEND" in data[-64:]
    return len(data) > 0


def read_image(path: str):
    """The BGR picture in image file ``path``; CameraError (one line) when it is missing,
    too large, truncated or not an image."""
    import cv2
    import numpy as np

    from ..files import read_limited

    data = read_limited(path, MAX_IMAGE_BYTES, "image", CameraError)
    if not complete_image(data):
        raise CameraError(f"image {path}: the file is truncated or corrupt")
    try:
        frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        frame = None
    if frame is None or frame.size == 0:
        raise CameraError(f"image {path}: not an image OpenCV can decode")
    return frame


class FolderSource(FrameSource):
    """Images of a folder in name order (or an explicit list of files)."""

    def __init__(self, folder_or_files: Union[str, List[str]]):
        if isinstance(folder_or_files, str):
            if not os.path.isdir(folder_or_files):
                raise CameraError(f"no such folder: {folder_or_files}")
            self.files = sorted(os.path.join(folder_or_files, f) for f in os.listdir(folder_or_files)
                                if f.lower().endswith(IMAGE_SUFFIXES))
        else:
            self.files = list(folder_or_files)
        self.position = 0

    def read(self):
        if self.position >= len(self.files):
            raise StopIteration
        path = self.files[self.position]
        self.position += 1
        return read_image(path)


def _video_capture(device: Union[int, str]):
    """The OpenCV capture for a webcam index or a video file (tests replace this)."""
    import cv2
    return cv2.VideoCapture(device)


def webcam_exposure(backend: str, microseconds: int) -> Tuple[float, float]:
    """``(CAP_PROP_AUTO_EXPOSURE, CAP_PROP_EXPOSURE)`` values that fix a webcam's exposure
    at ``microseconds`` through the OpenCV backend named ``backend``.

    V4L2 (Linux, the Pi) takes manual mode ``1`` and the time in units of 100 µs;
    DirectShow and Media Foundation (Windows) take ``0.25`` and log2 of seconds. Drivers
    differ, so this is a request, not a promise.

    >>> webcam_exposure("V4L2", 10000)
    (1, 100)
    >>> webcam_exposure("MSMF", 15625)
    (0.25, -6)
    """
    if backend in ("DSHOW", "MSMF"):
        return 0.25, round(math.log2(microseconds / 1e6))
    return 1, max(1, round(microseconds / 100))


class VideoSource(FrameSource):
    """OpenCV VideoCapture: a webcam index (``0``) or a video file path.

    A webcam is asked for ``width`` x ``height`` and, when ``exposure`` is a number of
    microseconds, for that fixed exposure (best effort: ``size`` is what it delivers).
    A video file ignores both.
    """

    def __init__(self, device: Union[int, str], width: Optional[int] = None,
                 height: Optional[int] = None, exposure: Union[str, int, None] = None):
        if isinstance(device, str) and not device.isdigit() and not os.path.exists(device):
            raise CameraError(f"no such video file: {device}")
        self.device = int(device) if isinstance(device, str) and device.isdigit() else device
        self.capture = _video_capture(self.device)
        if not self.capture.isOpened():
            raise CameraError(f"cannot open video source {device}")
        self.is_file = isinstance(self.device, str)
        if not self.is_file:
            self._request(width, height, exposure)

    def _request(self, width, height, exposure) -> None:
        import cv2
        if width and height:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if exposure not in (None, "auto"):
            auto, value = webcam_exposure(self.capture.getBackendName(), exposure)
            self.capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, auto)
            self.capture.set(cv2.CAP_PROP_EXPOSURE, value)

    @property
    def size(self) -> Tuple[int, int]:
        """The frame size the capture reports (``(0, 0)`` when it does not say)."""
        import cv2
        return (int(self.capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
                int(self.capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))

    def read(self):
        ok, frame = self.capture.read()
        if not ok:
            if self.is_file:
                raise StopIteration
            raise CameraError(f"camera {self.device} stopped delivering frames")
        return frame

    def close(self) -> None:
        self.capture.release()


def _picamera2_class():
    """picamera2's ``Picamera2``, imported only when a Pi camera is opened: it exists only
    on Raspberry Pi OS (tests replace this)."""
    try:
        from picamera2 import Picamera2  # type: ignore
    except ImportError:
        raise CameraError("picamera2 is not installed (pip install 'fenix-table[pi]' "
                          "or apt install python3-picamera2)") from None
    return Picamera2


class Picamera2Source(FrameSource):
    """Raspberry Pi camera via picamera2 (optional extra ``pi``).

    The main stream is ``settings.size`` in ``RGB888`` (B, G, R bytes). A fixed
    ``settings.exposure`` turns automatic exposure off from the first frame. Automatic
    exposure (when ``exposure`` is ``"auto"``) and white balance then settle for
    ``lock_after`` frames and are frozen (:meth:`lock`) so the colour model stays valid;
    ``lock_after=None`` leaves them automatic until the caller locks (e.g. once the
    table is calibrated). ``controls`` holds the controls last sent to the camera.
    """

    def __init__(self, settings: Optional[CameraConfig] = None,
                 lock_after: Optional[int] = SETTLE_FRAMES):
        self.settings = camera_settings(settings)
        Picamera2 = _picamera2_class()
        self.camera = None
        self.controls: Dict[str, Any] = self._automatic()
        try:
            self.camera = Picamera2()
            config = self.camera.create_video_configuration(
                main={"size": self.settings.size, "format": "RGB888"},
                controls=dict(self.controls))
            self.camera.configure(config)
            self.camera.start()
            if lock_after is not None:
                self.lock(settle_frames=lock_after)
        except Exception as error:  # picamera2 raises many types; the user needs one line
            self.close()
            if isinstance(error, CameraError):
                raise
            raise CameraError(f"Pi camera failed: {error}") from None

    def _automatic(self) -> Dict[str, Any]:
        """Controls for automatic white balance, and exposure unless it is fixed."""
        fixed = self.settings.fixed_exposure
        if fixed is None:
            return {"AeEnable": True, "AwbEnable": True}
        return {"AeEnable": False, "ExposureTime": fixed, "AwbEnable": True}

    def lock(self, settle_frames: int = 0) -> bool:
        """Freeze exposure, gain and white balance at what the camera uses now (after
        letting ``settle_frames`` frames pass, e.g. after :meth:`unlock`); returns True.

        The values come from the frame metadata (``ExposureTime``, ``AnalogueGain``,
        ``ColourGains``); a configured fixed exposure time is kept as it is.
        """
        try:
            for _ in range(max(1, settle_frames)):
                metadata = self.camera.capture_metadata()
            controls: Dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
            fixed = self.settings.fixed_exposure
            if fixed is not None:
                controls["ExposureTime"] = fixed
            elif "ExposureTime" in metadata:
                controls["ExposureTime"] = int(metadata["ExposureTime"])
            if "AnalogueGain" in metadata:
                controls["AnalogueGain"] = float(metadata["AnalogueGain"])
            if "ColourGains" in metadata:
                red, blue = metadata["ColourGains"]
                controls["ColourGains"] = (float(red), float(blue))
            self.camera.set_controls(controls)
        except Exception as error:
            raise CameraError(f"Pi camera failed: {error}") from None
        self.controls = controls
        self.locked = True
        return True

    def unlock(self) -> None:
        """Back to automatic white balance (and exposure, unless it is fixed)."""
        controls = self._automatic()
        try:
            self.camera.set_controls(controls)
        except Exception as error:
            raise CameraError(f"Pi camera failed: {error}") from None
        self.controls = controls
        self.locked = False

    def read(self):
        try:
            # The request holds a camera buffer: copy the frame out and hand it back at once.
            # picamera2 names formats after the little-endian word: "RGB888" is B, G, R bytes.
            with self.camera.captured_request() as request:
                return request.make_array("main")
        except Exception as error:
            raise CameraError(f"Pi camera failed: {error}") from None

    def close(self) -> None:
        if self.camera is None:
            return
        try:
            self.camera.stop()
            self.camera.close()
        except Exception:
            pass


def open_source(spec: str, camera: Any = None, *, lock: bool = True) -> FrameSource:
    """The frame source ``spec`` names: ``picamera2``, a webcam index, a video file, a
    folder of images or an image file.

    ``camera`` carries the configuration's camera settings to cameras: the ``[camera]``
    section itself (``open_source(spec, camera=config.camera)``) or a mapping with some of
    ``width``, ``height`` and ``exposure`` (``"auto"`` or microseconds; checked as the
    file's keys are, ConfigError naming a bad one). The Pi camera's main stream takes the
    size and a fixed exposure turns its automatic exposure off; a webcam is asked for both
    (best effort). Without ``camera`` the Pi camera runs at 1280x960 with automatic
    exposure and a webcam at its own default size, as before. Video files, folders and
    images ignore it.

    The Pi camera freezes exposure and white balance once they have settled
    (``SETTLE_FRAMES`` frames); ``lock=False`` leaves them automatic until
    ``source.lock()`` (``source.locked`` tells which). Other sources ignore ``lock``.
    """
    settings = None if camera is None else camera_settings(camera)
    if spec in ("picamera2", "picamera"):
        return Picamera2Source(settings, lock_after=SETTLE_FRAMES if lock else None)
    if os.path.isdir(spec):
        return FolderSource(spec)
    if spec.lower().endswith(IMAGE_SUFFIXES):
        if not os.path.exists(spec):
            raise CameraError(f"image {spec}: no such file")
        return FolderSource([spec])
    if settings is None:
        return VideoSource(spec)
    return VideoSource(spec, settings.width, settings.height, settings.exposure)

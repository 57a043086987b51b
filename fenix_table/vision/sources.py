"""Frame sources: one small interface for the Pi camera, OpenCV captures and image folders.

Every source yields BGR ``numpy`` arrays, raises :class:`CameraError` with a clear message
when it fails (the caller decides whether to retry), and is a context manager.
"""
from __future__ import annotations

import os
from typing import Iterator, List, Optional, Union

from ..errors import CameraError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FrameSource:
    """Base class: ``read()`` returns the next frame or raises CameraError; iterating
    yields frames until the source ends."""

    def read(self):
        raise NotImplementedError

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
        import cv2
        if self.position >= len(self.files):
            raise StopIteration
        path = self.files[self.position]
        self.position += 1
        frame = cv2.imread(path, cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraError(f"cannot read image {path}")
        return frame


class VideoSource(FrameSource):
    """OpenCV VideoCapture: a webcam index (``0``) or a video file path."""

    def __init__(self, device: Union[int, str], width: Optional[int] = None, height: Optional[int] = None):
        import cv2
        if isinstance(device, str) and not device.isdigit() and not os.path.exists(device):
            raise CameraError(f"no such video file: {device}")
        self.device = int(device) if isinstance(device, str) and device.isdigit() else device
        self.capture = cv2.VideoCapture(self.device)
        if not self.capture.isOpened():
            raise CameraError(f"cannot open video source {device}")
        if width and height:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.is_file = isinstance(self.device, str)

    def read(self):
        ok, frame = self.capture.read()
        if not ok:
            if self.is_file:
                raise StopIteration
            raise CameraError(f"camera {self.device} stopped delivering frames")
        return frame

    def close(self) -> None:
        self.capture.release()


class Picamera2Source(FrameSource):
    """Raspberry Pi camera via picamera2 (optional extra ``pi``).

    Exposure and white balance run automatically for ``settle_frames`` frames, then are
    frozen so the colour model stays valid.
    """

    def __init__(self, size=(1280, 960), settle_frames: int = 15):
        try:
            from picamera2 import Picamera2  # type: ignore
        except ImportError:
            raise CameraError("picamera2 is not installed (pip install 'fenix-table[pi]' "
                              "or apt install python3-picamera2)") from None
        try:
            self.camera = Picamera2()
            config = self.camera.create_video_configuration(main={"size": tuple(size), "format": "RGB888"})
            self.camera.configure(config)
            self.camera.start()
            for _ in range(settle_frames):
                self.camera.capture_array("main")
            metadata = self.camera.capture_metadata()
            self.camera.set_controls({"AeEnable": False, "AwbEnable": False,
                                      "ExposureTime": metadata.get("ExposureTime", 10000),
                                      "AnalogueGain": metadata.get("AnalogueGain", 1.0),
                                      "ColourGains": metadata.get("ColourGains", (1.5, 1.5))})
        except Exception as error:  # picamera2 raises many types; the user needs one line
            raise CameraError(f"Pi camera failed: {error}") from None

    def read(self):
        try:
            # The request holds a camera buffer: copy the frame out and hand it back at once.
            # picamera2 names formats after the little-endian word: "RGB888" is B, G, R bytes.
            with self.camera.captured_request() as request:
                return request.make_array("main")
        except Exception as error:
            raise CameraError(f"Pi camera failed: {error}") from None

    def close(self) -> None:
        try:
            self.camera.stop()
            self.camera.close()
        except Exception:
            pass


def open_source(spec: str) -> FrameSource:
    """``picamera2``, a webcam index, a video file, a folder or an image file."""
    if spec in ("picamera2", "picamera"):
        return Picamera2Source()
    if os.path.isdir(spec):
        return FolderSource(spec)
    if spec.lower().endswith(IMAGE_SUFFIXES):
        if not os.path.exists(spec):
            raise CameraError(f"no such image: {spec}")
        return FolderSource([spec])
    return VideoSource(spec)

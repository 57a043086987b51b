"""Vision: find the board in a camera frame and read every cell.

Stages (one module each, talking through the plain types of :mod:`.types`):
:mod:`.sources` (frames), :mod:`.locate` (the grid), :mod:`.cells` (colours, heights,
hands), :mod:`.stability` (still boards only), :mod:`.pipeline` (all of it per frame).
"""
from .cells import CellReader, calibrate_reader
from .locate import locate_board
from .pipeline import Vision, VisionResult
from .sources import FrameSource, open_source
from .stability import StabilityFilter
from .types import Calibration, CellReading, Observation

__all__ = ["Calibration", "CellReader", "CellReading", "FrameSource", "Observation",
           "StabilityFilter", "Vision", "VisionResult", "calibrate_reader", "locate_board",
           "open_source"]

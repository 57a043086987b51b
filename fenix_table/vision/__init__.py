"""Vision: find the board in a camera frame and read every cell.

Stages (one module each, talking through the plain types of :mod:`.types`):
:mod:`.sources` (frames), :mod:`.locate` (the grid), :mod:`.cells` (colours, heights,
hands), :mod:`.stability` (still boards only), :mod:`.pipeline` (all of it per frame).

Names are imported on first use (PEP 562), so ``fenix_table.vision.cli`` can register its
subcommands without loading OpenCV and numpy: ``fenix-table legal`` must start fast.
"""
from importlib import import_module

_EXPORTS = {
    "CellReader": ".cells", "calibrate_reader": ".cells",
    "locate_board": ".locate",
    "Vision": ".pipeline", "VisionResult": ".pipeline", "calibrate_from_position": ".pipeline",
    "FrameSource": ".sources", "open_source": ".sources",
    "StabilityFilter": ".stability",
    "Calibration": ".types", "CellReading": ".types", "Observation": ".types",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__

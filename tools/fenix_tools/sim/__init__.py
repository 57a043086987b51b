"""Frame generator: overhead-camera images of a FENIX board with exact ground truth."""
from .render import (Camera, GroundTruth, SceneParams, random_placement, random_scene,
                     render_frame, render_sequence)

__all__ = ["Camera", "GroundTruth", "SceneParams", "random_placement", "random_scene",
           "render_frame", "render_sequence"]

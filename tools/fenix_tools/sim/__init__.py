"""Frame generator: overhead-camera images of a FENIX board with exact ground truth
(tests, benchmarks, the colour model's training and the demo recording; never on the Pi)."""
from .render import (TABLE_PATTERNS, Camera, GroundTruth, SceneParams, confirmed_positions, random_placement,
                     random_scene, random_table, render_frame, render_sequence)
from .game import PhysicalBoard, TableCamera, battle_stacking, mover_angle, ply_frames, random_game

__all__ = ["TABLE_PATTERNS", "random_table", "Camera", "GroundTruth", "SceneParams", "random_placement", "random_scene",
           "render_frame", "render_sequence", "confirmed_positions", "PhysicalBoard", "TableCamera", "battle_stacking",
           "mover_angle", "ply_frames", "random_game"]

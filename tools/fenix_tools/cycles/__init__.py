"""Training and tuning frames from Blender's Cycles, with exact ground truth, in the
physically based data set's format: rooms drawn from a seed (:mod:`.room`), rendered by
Blender in a venv of its own (:mod:`.blender`), developed like a camera's JPEG
(:mod:`.develop`), written by :mod:`.make`; read back with
:func:`fenix_tools.pbr.dataset.frames` (``root=``). Tooling only: the table never
imports it."""

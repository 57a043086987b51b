"""Physically based training and evaluation frames (Mitsuba 3 path tracing) with exact
ground truth: rooms drawn from a seed (:mod:`.scene`), rendered and developed like a
camera's JPEG (:mod:`.render`), written by :mod:`.make`, read back by :mod:`.dataset`.
Tooling only: the table never imports it. Mitsuba comes from the ``pbr`` extra."""

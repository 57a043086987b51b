"""Fenix Table's tooling: the frame generator, synthetic observations, the colour model's
training and the demo recording's maker.

Tests, benchmarks and developers use these from a source checkout. None of it is part of
the ``fenix_table`` package: the Raspberry Pi never installs or runs it. It may import
``fenix_table``; ``fenix_table`` never imports it. With this folder on the path
(``PYTHONPATH=tools``; pytest and the benchmarks put it there themselves)::

    python -m fenix_tools.training --help
    python -m fenix_tools.make_recording --help
"""
import os

# The source checkout this folder lies in. The tools write the files they make into its
# fenix_table/ (never into an installed copy of the package).
CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

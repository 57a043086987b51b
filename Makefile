# Two commands do all set-up on a fresh machine:
#   make demo   - installs into .venv and runs the main job (the demo when no camera is attached)
#   make test   - installs into .venv and runs the test suite
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

# Byte-compiled after pip, as a packaged install is: without bytecode every start compiles
# the sources (and PYTHONDONTWRITEBYTECODE stops Python from caching them itself).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	$(VENV)/bin/python -m compileall -q fenix_table
	touch $(STAMP)

.PHONY: install demo play test bench colour-model recording cycles-venv
install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/fenix-table demo

play: $(STAMP)
	$(VENV)/bin/fenix-table play

test: $(STAMP)
	$(VENV)/bin/python -m pytest

# Every benchmark prints its figures; the vision ones take several minutes here.
bench: $(STAMP)
	$(VENV)/bin/python benchmarks/bench_rules.py
	$(VENV)/bin/python benchmarks/bench_locate.py
	$(VENV)/bin/python benchmarks/bench_vision.py
	$(VENV)/bin/python benchmarks/bench_referee.py
	$(VENV)/bin/python benchmarks/bench_display.py
	$(VENV)/bin/python benchmarks/bench_vision_unseen.py
	$(VENV)/bin/python benchmarks/bench_faults.py
	$(VENV)/bin/python benchmarks/bench_club.py

# Tooling from tools/fenix_tools (not shipped; see tools/README.md). Both write into this
# checkout's fenix_table/.
# Refit the shipped colour classifiers (see CONTRIBUTING.md). One BLAS thread per
# process: the fit runs one process per seed, and threads on top only contend.
colour-model: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=tools $(VENV)/bin/python -m fenix_tools.training

# Render the bundled demo recording again from its script.json (deterministic).
recording: $(STAMP)
	PYTHONPATH=tools $(VENV)/bin/python -m fenix_tools.make_recording

# The venv with Blender's bpy that fenix_tools.cycles renders with (see tools/README.md);
# bpy needs Python 3.11 and numpy < 2, so it is kept apart from .venv.
cycles-venv: .venv-cycles/.installed
.venv-cycles/.installed: tools/fenix_tools/cycles/requirements.txt
	python3.11 -m venv .venv-cycles
	.venv-cycles/bin/pip install --quiet -r tools/fenix_tools/cycles/requirements.txt
	touch .venv-cycles/.installed

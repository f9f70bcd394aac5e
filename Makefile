# Two entry points, each making its own virtual environment on a fresh machine:
#   make demo   BFS benchmark on a generated Graph500 graph (GPU when there is one, else CPU)
#   make test   the test suite (CPU, MPI grids under mpiexec, nvcc compile of kernels/*.cu)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SCALE ?= 16

.PHONY: demo test test-gpu clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e ".[test,plot]"
	@# A GPU machine also gets the CuPy extra for its driver's CUDA major version (the newest
	@# CUDA the driver runs, from nvidia-smi): cuda12, or cuda13 for 13 and later.
	@if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then \
	  major=$$(nvidia-smi | sed -n 's/.*CUDA Version: \([0-9]*\).*/\1/p' | head -n1); \
	  if [ "$${major:-0}" -ge 13 ]; then extra=cuda13; \
	  elif [ "$${major:-0}" -eq 12 ]; then extra=cuda12; else extra=; fi; \
	  if [ -n "$$extra" ]; then \
	    echo "GPU found (driver for CUDA $$major): installing the $$extra extra"; \
	    $(PY) -m pip install -q -e ".[$$extra]"; \
	  else echo "GPU found, but its driver (CUDA '$$major') is older than CUDA 12: CPU backend only"; fi; fi
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/lagraph-dist bench --scale $(SCALE) --roots 16 --json bench-scale$(SCALE).json

# the suite on every core (pytest-xdist): most tests are one Python thread, and the MPI tests'
# ranks wait on each other, so a 2-core machine runs it in about 60% of one worker's time
TEST_WORKERS ?= auto

test: $(VENV)/.installed
	$(PY) -m pytest -q -n $(TEST_WORKERS)

test-gpu: $(VENV)/.installed
	$(PY) -m pytest -q -m gpu

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

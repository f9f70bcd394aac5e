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
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,plot]"
	@# A GPU machine also gets the CuPy wheel matching its driver's CUDA major version.
	@if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then \
	  major=$$(nvidia-smi | sed -n 's/.*CUDA Version: \([0-9]*\).*/\1/p' | head -n1); \
	  echo "GPU found (CUDA $$major): installing cupy-cuda$${major}x"; \
	  $(PY) -m pip install -q "cupy-cuda$${major}x"; fi
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/lagraph-dist bench --scale $(SCALE) --roots 16 --json bench-scale$(SCALE).json

test: $(VENV)/.installed
	$(PY) -m pytest -q

test-gpu: $(VENV)/.installed
	$(PY) -m pytest -q -m gpu

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

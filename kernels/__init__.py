"""CUDA sources of the GPU backend's kernels (``*.cu``/``*.cuh``), read with importlib.resources."""

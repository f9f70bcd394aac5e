"""The GPU backend's local kernels: our CUDA sources in ``kernels/`` driven through CuPy.

Sources are read with ``importlib.resources`` and built with ``cupy.RawModule`` (templates
instantiated through ``name_expressions``), memoised per device. Every method of
:class:`GpuKernels` has a numpy twin of the same name and contract in
:mod:`lagraph_dist.local.cpu_kernels`; the GPU tests compare them. Products return their output
part and their counters on the device; nothing here reads the device except where a docstring
says so.

One module a CUDA source, as the kernels and their twins are split: ``bitmap`` (bitmap.cu),
``push``, ``pull``, ``fold``, ``fused``, ``multi``, ``multi_fused``, ``components``, ``dependencies``, ``edge_rules``, ``kronecker``, each a mixin of the methods that launch its
source's kernels, and ``base`` for what they share (the build with the -D defines, launch
counting, device reads, block sizing, the memory pool, the products' output and arguments).
This package composes them as :class:`GpuKernels` and names the layout values the drivers
launch with. CuPy is imported only when a GpuKernels is made.
"""
from __future__ import annotations

from lagraph_dist.local.gpu_kernels.base import _ADD, _INSTANCES, _MULT, KernelsBase, kernel_sources
from lagraph_dist.local.gpu_kernels.bitmap import BitmapKernels
from lagraph_dist.local.gpu_kernels.components import ComponentKernels
from lagraph_dist.local.gpu_kernels.dependencies import DependencyKernels
from lagraph_dist.local.gpu_kernels.edge_rules import EdgeRuleKernels
from lagraph_dist.local.gpu_kernels.kronecker import KroneckerKernels
from lagraph_dist.local.gpu_kernels.fold import FoldKernels
from lagraph_dist.local.gpu_kernels.fused import FUSED_LEVEL_CLOCK, FusedKernels
from lagraph_dist.local.gpu_kernels.multi import MultiKernels
from lagraph_dist.local.gpu_kernels.multi_fused import MultiFusedKernels
from lagraph_dist.local.gpu_kernels.pull import PullKernels
from lagraph_dist.local.gpu_kernels.push import PushKernels
from lagraph_dist.local.layout import (ADD_CODES, FUSED_GIANT_DEGREE, FUSED_NSLOTS, FUSED_NSTATUS, FUSED_RECORD,
                                        FUSED_THREADS, LONG_ROW_THRESHOLD, M_NCOUNTERS, MULT_CODES, NCOUNTERS,
                                        PUSH_THREADS, SMALL_SCAN, THREADS, TILE_EDGES)

__all__ = ["GpuKernels", "kernel_sources", "KernelsBase", "BitmapKernels", "PushKernels", "PullKernels",
           "FoldKernels", "FusedKernels", "MultiKernels", "MultiFusedKernels", "ComponentKernels", "DependencyKernels", "EdgeRuleKernels",
           "KroneckerKernels", "FUSED_LEVEL_CLOCK",
           "THREADS", "PUSH_THREADS", "TILE_EDGES", "SMALL_SCAN", "LONG_ROW_THRESHOLD", "FUSED_THREADS",
           "FUSED_GIANT_DEGREE", "FUSED_NSLOTS", "FUSED_NSTATUS", "FUSED_RECORD", "NCOUNTERS", "M_NCOUNTERS",
           "MULT_CODES", "ADD_CODES", "_MULT", "_ADD", "_INSTANCES"]


class GpuKernels(BitmapKernels, PushKernels, PullKernels, FoldKernels, FusedKernels, MultiKernels, MultiFusedKernels,
                 ComponentKernels, DependencyKernels, EdgeRuleKernels, KroneckerKernels):
    """CUDA kernels with the numpy twins' signatures (see :mod:`lagraph_dist.local.cpu_kernels`)."""

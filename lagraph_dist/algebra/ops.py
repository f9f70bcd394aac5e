"""``ld.ops``, the algebra's public namespace (docs/api.md): the names of
:mod:`lagraph_dist.algebra.products` (``vxm``, ``mxv``), :mod:`lagraph_dist.algebra.elementwise`
(``ewise_add``, ``ewise_mult``, ``assign``, ``apply``, ``reduce``) and
:mod:`lagraph_dist.algebra.levels` (``repeat_masked_vxm`` and its records), gathered from their
homes. The package's modules import from the homes; settings (what a benchmark may vary) are
fields of :data:`lagraph_dist.core.settings.settings`.
"""
from lagraph_dist.algebra.products import ProductStats, mxv, vxm
from lagraph_dist.algebra.elementwise import apply, assign, ewise_add, ewise_mult, reduce
from lagraph_dist.algebra.levels import (LevelEngine, LevelRecord, LevelRecords, RepeatLimits, frontier_out_edges,
                                         holds, repeat_masked_vxm, separate_levels)

__all__ = ["vxm", "mxv", "ewise_add", "ewise_mult", "assign", "apply", "reduce", "ProductStats", "LevelEngine",
           "repeat_masked_vxm", "RepeatLimits", "LevelRecord", "LevelRecords", "frontier_out_edges", "holds",
           "separate_levels"]

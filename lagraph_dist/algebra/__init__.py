"""The distributed algebra: Vector, Matrix, the products as named stages, the level engine (repeat_masked_vxm), the multi-source frontier, python-graphblas's grammar, memory fit."""

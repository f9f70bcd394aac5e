"""Graphs in and out: conversions (scipy, cupyx, graphblas, networkx, edge lists), Matrix Market files, and the generators (Kronecker, uniform, 2D meshes)."""

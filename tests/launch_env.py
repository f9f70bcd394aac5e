"""The environment the test session started with, before anything in it could initialise MPI.

Open MPI turns a process that imports mpi4py into a singleton MPI job and adds OMPI_* and PMIX_*
variables to its environment; an mpirun started from it with those variables thinks it is
nested and exits. tests/helpers.py unsets what was added (conftest.py imports this first).
"""
import os

SNAPSHOT = dict(os.environ)

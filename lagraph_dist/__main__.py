"""``python -m lagraph_dist``: the ``lagraph-dist`` command (under ``mpiexec`` too)."""
import sys

from lagraph_dist.tools.cli import main

sys.exit(main())

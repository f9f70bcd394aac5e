"""What the example scripts share: their optional arguments, read in order from the command
line, and one clear line instead of a traceback when an argument, or the input it names, is
bad: ``SCRIPT: error: ...`` on stderr (from rank 0 only under mpiexec) and exit status 2 on
every rank. Every rank reads the same command line, and the package raises on every rank
alike, so all ranks stop together.
"""
import sys
from pathlib import Path

import lagraph_dist as ld

USAGE_ERROR = 2     # the exit status of a bad argument, as argparse and lagraph-dist use


class BadArgument(Exception):
    """A command-line argument the script cannot use."""


def integer(text, name):
    try:
        return int(text)
    except ValueError:
        raise BadArgument(f"{name} must be an integer, got {text!r}") from None


def positive(text, name):
    value = integer(text, name)
    if value < 1:
        raise BadArgument(f"{name} must be at least 1, got {value}")
    return value


def nonnegative(text, name):
    value = integer(text, name)
    if value < 0:
        raise BadArgument(f"{name} must be at least 0, got {value}")
    return value


def file_name(text, name):
    return text


def parsed(argv, kinds):
    """The arguments converted by ``kinds`` ({name: converter}, in order, all optional)."""
    names = list(kinds)
    if len(argv) > len(names):
        expected = f"at most {len(names)} ({', '.join(names)})" if names else "none"
        raise BadArgument(f"too many arguments: expected {expected}, got {len(argv)}")
    return [kinds[name](text, name) for name, text in zip(names, argv)]


def run(main, **kinds):
    """``main(*arguments)`` with the command line's arguments converted by ``kinds``."""
    try:
        main(*parsed(sys.argv[1:], kinds))
    except ld.ValidationError:
        raise           # a wrong result is a bug to see whole, not a bad argument
    except (BadArgument, ld.LagraphDistError) as exc:
        stop(f"{Path(sys.argv[0]).name}: error: {exc}")


def stop(line):
    """Rank 0 prints ``line``; every rank (all come here together) leaves with USAGE_ERROR."""
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    if world.Get_rank() == 0:
        print(line, file=sys.stderr, flush=True)
    world.Barrier()         # the line is out before any rank leaves
    MPI.Finalize()          # a clean end: `python -m mpi4py` would abort the job on a nonzero exit
    raise SystemExit(USAGE_ERROR)

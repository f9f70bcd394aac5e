"""The package's version and the code it runs (one place: the package, the command line and
every benchmark record read them).

:func:`code_identity` names the code of the package that is imported, never that of the
working directory: the git checkout the package was loaded from (an editable install, a
clone on ``PYTHONPATH``), else what the build wrote into the package (``build_info.json``,
by ``setup.py``, for a wheel or ``pip install git+...``), else ``$LAGRAPH_DIST_COMMIT`` (set by
a harness that copied a checkout without its history), else unknown. Standard library only:
``setup.py`` loads this file by path, before the package's dependencies exist.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path

__version__ = "0.1.0"

PACKAGE_DIR = Path(__file__).resolve().parent.parent
BUILD_INFO = Path(__file__).resolve().parent / "build_info.json"
COMMIT_ENV = "LAGRAPH_DIST_COMMIT"


def _git(folder: Path, *args) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(checkout: Path) -> dict | None:
    """``{"commit", "dirty"}`` of the git work tree whose top level is ``checkout`` (dirty: a
    tracked file differs from the commit), or None when ``checkout`` is no such top level
    (a folder inside another repository does not count: its commit is not this code's)."""
    answer = _git(checkout, "rev-parse", "--show-toplevel", "HEAD")
    if answer is None or len(answer.splitlines()) != 2:
        return None
    top, commit = answer.splitlines()
    if Path(top).resolve() != Path(checkout).resolve():
        return None
    changes = _git(checkout, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if changes is None else bool(changes)}


@functools.lru_cache(maxsize=None)
def code_identity() -> dict:
    """``{"version", "commit", "dirty", "commit_from"}`` of the imported package. ``commit`` is
    the full hash or None; ``dirty`` True/False, or None where unknown; ``commit_from`` says
    which source answered: "git checkout", "build", the variable's name, or "unknown"."""
    found, origin = git_state(PACKAGE_DIR.parent), "git checkout"
    if found is None and BUILD_INFO.is_file():
        try:
            found, origin = json.loads(BUILD_INFO.read_text()), "build"
        except (OSError, ValueError):
            found = None
    if found is None and os.environ.get(COMMIT_ENV):
        found, origin = {"commit": os.environ[COMMIT_ENV], "dirty": None}, f"${COMMIT_ENV}"
    if found is None:
        found, origin = {"commit": None, "dirty": None}, "unknown"
    return {"version": __version__, "commit": found.get("commit"), "dirty": found.get("dirty"),
            "commit_from": origin}


def version_line() -> str:
    """``0.1.0 (commit 7ee3b39, clean)``: what ``lagraph-dist --version`` prints."""
    code = code_identity()
    if code["commit"] is None:
        return f"{__version__} (commit unknown: not a git checkout, no build record)"
    state = {True: "with uncommitted changes", False: "clean", None: "state unknown"}[code["dirty"]]
    return f"{__version__} (commit {code['commit'][:12]}, {state}; from the {code['commit_from']})"

"""Records name their code, and a first run says what it does (issue 50).

The commit a record or ``--version`` names is the imported package's, read from the checkout the
package lives in (or from what the build wrote), never from the working directory. The CPU
kernels compile on their first use, only those a call runs, with one line on stderr saying so.
Each check compares with git run here, or with what a fresh process prints."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lagraph_dist.core import version
from lagraph_dist.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
needs_git_checkout = pytest.mark.skipif(not (ROOT / ".git").exists(), reason="the package is not in a git checkout")


def git(folder, *args):
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=True).stdout.strip()


def new_repository(folder):
    """A git repository of one commit, with one tracked file."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q")
    (folder / "file.txt").write_text("one\n")
    git(folder, "add", "file.txt")
    git(folder, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return folder


# -- git_state: the checkout's own top level only -----------------------------------------------
def test_git_state_of_a_clean_and_a_changed_checkout(tmp_path):
    repo = new_repository(tmp_path / "repo")
    assert version.git_state(repo) == {"commit": git(repo, "rev-parse", "HEAD"), "dirty": False}
    (repo / "file.txt").write_text("two\n")
    assert version.git_state(repo)["dirty"] is True


def test_a_folder_inside_another_repository_is_no_checkout_of_its_own(tmp_path):
    repo = new_repository(tmp_path / "repo")
    (repo / "inner").mkdir()
    assert version.git_state(repo / "inner") is None
    assert version.git_state(tmp_path) is None            # not in git at all


def test_an_installed_copy_reads_what_its_build_wrote(tmp_path, monkeypatch):
    package = tmp_path / "site" / "lagraph_dist"
    package.mkdir(parents=True)
    build = {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False}
    (package / "build_info.json").write_text(json.dumps(build))
    monkeypatch.setattr(version, "PACKAGE_DIR", package)
    monkeypatch.setattr(version, "BUILD_INFO", package / "build_info.json")
    version.code_identity.cache_clear()
    try:
        found = version.code_identity()
    finally:
        version.code_identity.cache_clear()
    assert found == {"version": version.__version__, **build, "commit_from": "build"}


# -- what --version and the records say, from any working directory ------------------------------
@needs_git_checkout
@pytest.mark.parametrize("where", ["another repository", "a folder outside git"])
def test_version_names_the_package_commit_wherever_it_runs(tmp_path, where):
    cwd = new_repository(tmp_path / "other") if where == "another repository" else tmp_path
    done = subprocess.run([sys.executable, "-m", "lagraph_dist", "--version"], cwd=cwd, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"(commit {git(ROOT, 'rev-parse', 'HEAD')[:12]}," in done.stdout


@needs_git_checkout
def test_a_bench_record_names_the_package_commit_not_the_working_directory(tmp_path, monkeypatch, capsys):
    other = new_repository(tmp_path / "other")
    monkeypatch.chdir(other)
    path = tmp_path / "record.json"
    status = main(["bench", "--scale", "5", "--roots", "2", "--peers", "none", "--no-progress",
                   "--backend", "cpu", "--json", str(path)])
    capsys.readouterr()
    assert status == 0
    record = json.loads(path.read_text())
    ours = git(ROOT, "rev-parse", "HEAD")
    assert record["environment"]["commit"] == ours != git(other, "rev-parse", "HEAD")
    assert record["code"]["commit"] == ours
    assert record["code"]["version"] == record["environment"]["lagraph_dist"] == version.__version__
    assert record["code"]["dirty"] == bool(git(ROOT, "status", "--porcelain", "--untracked-files=no"))


# -- light answers, and compiles that say so ---------------------------------------------------
def _python(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env}, cwd=ROOT)


@pytest.mark.parametrize("argument", ["--version", "--help"])
def test_version_and_help_load_no_engine(argument):
    done = _python("import sys\nfrom lagraph_dist.tools.cli import main\n"
                   "try:\n    main([%r])\nexcept SystemExit:\n    pass\n"
                   "print(sorted(m for m in ('numba', 'cupy', 'mpi4py.MPI', 'scipy') if m in sys.modules))" % argument)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_first_call_compiles_only_what_it_runs_and_says_so_once(tmp_path):
    """A fresh numba cache: making the backend compiles nothing; building a graph compiles the
    build's loops (the generator's among them) and none of the searches' kernels, with one line on stderr naming the cache
    and the log; the same build in a new process loads them. (A first search compiles its own
    kernels the same way; docs/notes/cpu-kernels.md gives what each costs.)"""
    program = ("import lagraph_dist as ld\n"
               "ld.get_backend('cpu'); print('backend made', flush=True)\n"
               "A = ld.kronecker(5, backend='cpu')\n")
    first = _python(program, NUMBA_CACHE_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    notices = [line for line in first.stderr.splitlines() if line.startswith("lagraph_dist: compiling")]
    assert len(notices) == 1, first.stderr
    assert str(tmp_path) in notices[0] and "log:" in notices[0]
    log = Path(notices[0].rpartition("log: ")[2].rstrip(")"))
    compiled = log.read_text()
    assert "compiled lagraph_dist.local.parts." in compiled
    assert "compiled lagraph_dist.local.cpu_kernels.kronecker." in compiled      # the generator's loop
    searches = [line for line in compiled.splitlines() if "cpu_kernels" in line and ".kronecker." not in line]
    assert searches == []
    again = _python(program, NUMBA_CACHE_DIR=str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert "lagraph_dist: compiling" not in again.stderr

"""The build writes the commit it is built from into the package (``lagraph_dist/core/build_info.json``),
so that an installed copy with no git history beside it (a wheel, ``pip install git+...``) still
names its code in ``lagraph-dist --version`` and in every benchmark record. The metadata is in
pyproject.toml; this file only adds that step."""
import importlib.util
import json
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _version_module():
    # by path: the package's dependencies need not exist while it is being built
    spec = importlib.util.spec_from_file_location("_lagraph_dist_version", HERE / "lagraph_dist" / "core" / "version.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithCommit(build_py):
    def run(self):
        super().run()
        state = _version_module().git_state(HERE)
        if state is not None and not self.editable_mode:    # an editable install reads git itself
            target = Path(self.build_lib) / "lagraph_dist" / "core" / "build_info.json"
            target.write_text(json.dumps(state) + "\n")


setup(cmdclass={"build_py": BuildWithCommit})

"""CuPy missing is the quiet CPU case; CuPy installed but failing says so (CupyUnusableWarning)
and backend="gpu" names the reason. CuPy's failures are played by stand-in modules."""
import sys
import types
import warnings

import pytest

import lagraph_dist as ld
from lagraph_dist.local import backend as backend_module


@pytest.fixture
def fresh_probe(monkeypatch):
    """A probe that has not looked for CuPy yet, and is forgotten again afterwards."""
    if ld.gpu_available():
        pytest.skip("a working CuPy is here; these tests play the machines without one")
    backend_module.gpu_status.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    backend_module.gpu_status.cache_clear()


def fake_cupy(get_device_count):
    cupy = types.ModuleType("cupy")
    cupy.__version__ = "13.9.9"
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=get_device_count))
    return cupy


class RefusingFinder:
    """Makes ``import cupy`` fail the way a wheel for the wrong CUDA does."""

    def find_spec(self, name, path=None, target=None):
        if name == "cupy":
            raise ImportError("libcudart.so.12: cannot open shared object file: No such file or directory")
        return None


def driver_too_old():
    raise RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient for "
                       "CUDA runtime version")


def probe_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        usable = ld.gpu_available()
        chosen = ld.get_backend("auto").name
    return usable, chosen, [w for w in caught if issubclass(w.category, ld.CupyUnusableWarning)]


def test_cupy_not_installed_is_quiet(fresh_probe):
    fresh_probe.setitem(sys.modules, "cupy", None)       # import cupy -> ModuleNotFoundError
    usable, chosen, caught = probe_warnings()
    assert (usable, chosen, caught) == (False, "cpu", [])
    with pytest.raises(ld.InvalidValue, match="CuPy is not installed.*cuda12 or cuda13"):
        ld.get_backend("gpu")


@pytest.mark.parametrize("breakage, reason", [
    ("import", "libcudart.so.12: cannot open shared object file"),
    ("driver", "CUDA driver version is insufficient"),
    ("no device", "sees no CUDA device"),
])
def test_broken_cupy_warns_once_with_the_reason(fresh_probe, breakage, reason):
    if breakage == "import":
        fresh_probe.delitem(sys.modules, "cupy", raising=False)
        fresh_probe.setattr(sys, "meta_path", [RefusingFinder()] + sys.meta_path)
    else:
        counter = driver_too_old if breakage == "driver" else (lambda: 0)
        fresh_probe.setitem(sys.modules, "cupy", fake_cupy(counter))
    usable, chosen, caught = probe_warnings()
    assert (usable, chosen) == (False, "cpu")
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "CuPy is installed but cannot be used" in text and reason in text and "CPU" in text
    # asking again does not warn again; asking for the GPU names the same reason
    assert probe_warnings()[2] == []
    with pytest.raises(ld.InvalidValue, match=reason):
        ld.get_backend("gpu")


def test_a_build_on_auto_says_it_runs_on_the_cpu(fresh_probe):
    fresh_probe.setitem(sys.modules, "cupy", fake_cupy(driver_too_old))
    with pytest.warns(ld.CupyUnusableWarning, match="insufficient"):
        A = ld.kronecker(6, backend="auto")
    assert A.backend.name == "cpu"

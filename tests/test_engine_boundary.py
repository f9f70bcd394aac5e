"""The engine boundary (lagraph_dist.local.engine): both kernel sets implement the Kernels
interface member for member, with the interface's parameters; the GPU's also DeviceKernels; an
optional member (OPTIONAL_KERNELS), where a set has it, with its parameters; and the layers
above the kernels (algebra, collectives, algorithms, tools) call nothing else of a backend's
kernels. The GPU kernel set is inspected as a class: no device is needed."""
import ast
import inspect
import pathlib

import pytest

import lagraph_dist
from lagraph_dist.local import cpu_kernels, engine
from lagraph_dist.local.gpu_kernels import GpuKernels

PACKAGE = pathlib.Path(lagraph_dist.__file__).parent
ABOVE_THE_KERNELS = ("algebra", "algorithms", "comm", "tools", "io")


def interface_members(protocol):
    """{name: the interface's function, or None for a declared attribute} of a Protocol and its bases."""
    members = {}
    for cls in reversed(protocol.__mro__):
        if cls not in (engine.Kernels, engine.DeviceKernels, *engine.OPTIONAL_KERNELS):
            continue
        members.update({name: None for name in getattr(cls, "__annotations__", {})})
        members.update({name: value for name, value in vars(cls).items()
                        if inspect.isfunction(value) and not name.startswith("_")})
    return members


def parameters(function, *, bound):
    """(name, kind, default) of each parameter, ``self`` dropped where the function is a method."""
    found = list(inspect.signature(function).parameters.values())
    if bound:
        found = found[1:]
    return [(p.name, p.kind, p.default) for p in found]


@pytest.mark.parametrize("name", sorted(interface_members(engine.Kernels)))
def test_both_kernel_sets_implement_each_member_with_its_parameters(name):
    declared = interface_members(engine.Kernels)[name]
    for kernel_set, bound in ((cpu_kernels, False), (GpuKernels, True)):
        assert hasattr(kernel_set, name), f"{kernel_set.__name__} lacks {name}"
        if declared is not None:
            assert parameters(getattr(kernel_set, name), bound=bound) == parameters(declared, bound=True), (
                f"{kernel_set.__name__}.{name} differs from the interface")


@pytest.mark.parametrize("name", sorted(set(interface_members(engine.DeviceKernels))
                                        - set(interface_members(engine.Kernels))))
def test_the_gpu_set_implements_the_device_members(name):
    declared = interface_members(engine.DeviceKernels)[name]
    if declared is None:      # counted on the instance (reads, launches)
        assert name in inspect.getsource(GpuKernels.__mro__[-2].__init__) or hasattr(GpuKernels, name)
    else:
        assert parameters(getattr(GpuKernels, name), bound=True) == parameters(declared, bound=True)


@pytest.mark.parametrize("protocol", engine.OPTIONAL_KERNELS, ids=lambda p: p.__name__)
def test_an_optional_member_has_the_interface_parameters_where_a_set_has_it(protocol):
    having = []
    for kernel_set, bound in ((cpu_kernels, False), (GpuKernels, True)):
        for name, declared in interface_members(protocol).items():
            if hasattr(kernel_set, name):
                having.append(kernel_set.__name__)
                if declared is not None:          # (a declared attribute has no parameters)
                    assert parameters(getattr(kernel_set, name), bound=bound) == parameters(declared, bound=True)
    assert having, f"no kernel set has {protocol.__name__}"


def test_offers_answers_each_optional_member_as_isinstance_does_and_refuses_anything_else():
    """``engine.offers`` (kept once a set) gives what a Protocol's isinstance gives for every
    optional member, on the CPU set and on a set that lacks them; anything not an optional
    member (a required Protocol, a plain class) is a TypeError, not False."""
    lacking = type("NoOptionalMembers", (), {"FUSED_LEVEL_CLOCK": "host"})()     # (a set is hashable)
    for member in engine.OPTIONAL_KERNELS:
        assert engine.offers(cpu_kernels, member) is isinstance(cpu_kernels, member) is True
        assert engine.offers(lacking, member) is False
    for other in (engine.Kernels, object):
        with pytest.raises(TypeError, match="not an optional member"):
            engine.offers(cpu_kernels, other)


def test_both_sets_have_the_one_call_search_from_a_source():
    """``ld.bfs`` on one process of either backend runs the kernel set's search plan."""
    assert isinstance(cpu_kernels, engine.SearchFromSource)
    for name in interface_members(engine.SearchFromSource):
        assert hasattr(GpuKernels, name), name


def test_both_sets_have_the_fused_sweeps():
    """Betweenness batches its sweeps on one process of either backend."""
    assert isinstance(cpu_kernels, engine.PathDependencies)
    for name in interface_members(engine.PathDependencies):
        assert hasattr(GpuKernels, name), name


def kernel_calls(tree):
    """The attribute names read of anything called ``kernels`` (``backend.kernels.x``,
    ``kernels.x``) in a module's syntax tree."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id == "kernels") or (
                    isinstance(owner, ast.Attribute) and owner.attr == "kernels"):
                yield node.attr, node.lineno


def test_the_layers_above_call_only_the_interface():
    allowed = set(interface_members(engine.Kernels)).union(*map(interface_members, engine.OPTIONAL_KERNELS))
    outside = []
    for folder in ABOVE_THE_KERNELS:
        for path in sorted((PACKAGE / folder).glob("*.py")):
            for name, line in kernel_calls(ast.parse(path.read_text())):
                if name not in allowed:
                    outside.append(f"{path.relative_to(PACKAGE)}:{line} kernels.{name}")
    assert not outside, "calls past the engine boundary:\n" + "\n".join(outside)


def test_the_layers_above_import_no_kernel_set():
    """The algebra and what sits on it reach the kernels only through a Backend."""
    importers = []
    for folder in ABOVE_THE_KERNELS:
        for path in sorted((PACKAGE / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                        ("lagraph_dist.local.cpu_kernels", "lagraph_dist.local.gpu_kernels")):
                    importers.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.module}")
    assert not importers, "imports of a kernel set above the boundary:\n" + "\n".join(importers)


def test_the_scanner_sees_a_call_past_the_boundary():
    """The layer check is not vacuous: it finds both spellings of a kernel call."""
    tree = ast.parse("def f(backend, kernels):\n    backend.kernels.secret(1)\n    kernels.other()\n")
    assert sorted(name for name, _ in kernel_calls(tree)) == ["other", "secret"]

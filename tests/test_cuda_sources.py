"""Every CUDA source compiles with nvcc (when nvcc is on PATH), with every kernel body
instantiated (LD_NVCC_CHECK) and the -D options of lagraph_dist.local.layout, so a broken
kernel fails CI even on machines without a GPU; without those options a compile stops at
common.cuh's guard; and the numbers the sources take from kernel_layout are the ones the Python
code uses."""
import ast
import inspect
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from importlib import resources

import pytest

from lagraph_dist.local import cpu_kernels
from lagraph_dist.core import direction
from lagraph_dist.local import gpu_kernels
from lagraph_dist.comm import grid
from lagraph_dist.local import layout as kernel_layout
from lagraph_dist.algebra import multi
from lagraph_dist.local.gpu_kernels import kernel_sources
from lagraph_dist.local.layout import cuda_defines

NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not on PATH")
KERNELS = ("bitmap.cu", "components.cu", "dependencies.cu", "edge_rules.cu", "fold.cu", "kronecker.cu", "fused.cu", "multi.cu", "multi_fused.cu", "pull.cu", "push.cu")
HEADERS = ("common.cuh", "fused_base.cuh", "kronecker.cuh", "fused_block_levels.cuh", "fused_cluster_levels.cuh", "fused_grid_levels.cuh",
           "pull_steps.cuh", "push_steps.cuh")


def _nvcc(source, tmp_path, defines, *, machine_code=True):
    """nvcc's result for one source of lagraph_dist.kernels; a header is compiled through a
    file that includes it alone (so it must include what it uses). ``machine_code``: to sm_90
    code (ptxas checks registers and shared memory too), else to PTX only (the compiler's
    checks of the code, a quarter of fused.cu's time)."""
    with resources.as_file(resources.files("lagraph_dist.kernels")) as folder:
        path = folder / source
        if source.endswith(".cuh"):
            path = tmp_path / f"only_{source}.cu"
            path.write_text(f'#include "{source}"\n')
        target = ["-arch=sm_90", "-c"] if machine_code else ["-arch=compute_90", "-ptx"]
        return subprocess.run(
            [NVCC, "-std=c++17", *target, "-DLD_NVCC_CHECK", *defines, f"-I{folder}",
             str(path), "-o", str(tmp_path / (source + ".o"))],
            capture_output=True, text=True, timeout=300)


# the probes' builds of fused.cu, each its defines: the instrumented ones (a variant for
# fused_variants.py that changes code, not a number, goes here too while it is kept)
PROBE_BUILDS = (("-DLD_FUSED_TRACE",), ("-DLD_WARP_CLOCKS",), ("-DLD_FLAT_WIDE=0",), ("-DLD_FUSED_LANE_EDGES=4096",),
                ("-DLD_PULL_EMPTY_RUN=1",))


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """Every full build of this module, started at once on all cores (nvcc is one process a
    source, and fused.cu alone takes most of a minute): {(source, switch): (result, folder)}
    futures, each build in a folder of its own. The kernels build to machine code; a header
    alone and the probe builds (what changes is inside the kernels' code) to PTX."""
    wanted = [(source, None) for source in KERNELS + HEADERS] + [("fused.cu", switch) for switch in PROBE_BUILDS]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        started = {}
        for source, switch in wanted:
            folder = tmp_path_factory.mktemp("nvcc")
            defines = cuda_defines() + (switch or ())
            whole = source in KERNELS and switch is None
            started[source, switch] = (pool.submit(_nvcc, source, folder, defines, machine_code=whole), folder)
        yield started


def test_sources_are_packaged():
    assert set(kernel_sources()) == set(KERNELS) | set(HEADERS)


@needs_nvcc
@pytest.mark.parametrize("source", KERNELS + HEADERS)
def test_nvcc_compiles(source, builds):
    future, folder = builds[source, None]
    done = future.result()
    assert done.returncode == 0, done.stderr[-3000:]
    assert (folder / (source + ".o")).stat().st_size > 0


@needs_nvcc
@pytest.mark.parametrize("switch", PROBE_BUILDS, ids=" ".join)
def test_probe_builds_compile(switch, builds):
    """fused.cu as benchmarks/probes/fused_trace.py and warp_clocks.py build it, and the kept
    variants fused_variants.py measures."""
    done = builds["fused.cu", switch][0].result()
    assert done.returncode == 0, done.stderr[-3000:]


@needs_nvcc
def test_compile_without_the_layout_defines_stops_with_an_error(tmp_path):
    done = _nvcc("bitmap.cu", tmp_path, ())
    assert done.returncode != 0
    assert "#error" in done.stderr
    assert "LD_WORD_BITS is not defined: compile with lagraph_dist.local.layout.cuda_defines()" in done.stderr


@needs_nvcc
@pytest.mark.parametrize("missing", ["LD_FUSED_GIANT_DEGREE", "LD_M_NCOUNTERS", "LD_FUSED_RECORD"])
def test_compile_without_one_define_names_it(missing, tmp_path):
    defines = [option for option in cuda_defines() if not option.startswith(f"-D{missing}=")]
    assert len(defines) == len(cuda_defines()) - 1
    done = _nvcc("fused.cu", tmp_path, defines)
    assert done.returncode != 0
    assert f"{missing} is not defined" in done.stderr


def test_guard_checks_every_define_and_no_source_defines_one():
    """common.cuh's guard tests each define cuda_defines() makes, in its order; no source
    #defines one of them (their one home is kernel_layout)."""
    sources = kernel_sources()
    names = [option[2:].split("=")[0] for option in cuda_defines()]
    assert re.findall(r"#(?:el)?if !defined\((LD_\w+)\)", sources["common.cuh"]) == names
    for source, text in sources.items():
        defined = set(re.findall(r"^\s*#\s*define\s+(LD_\w+)", text, flags=re.M))
        assert not defined & set(names), (source, defined & set(names))


def test_every_layout_name_a_source_uses_is_defined():
    """An LD_ name used in a source is either defined in the sources or made by cuda_defines()."""
    sources = kernel_sources()
    made = {option[2:].split("=")[0] for option in cuda_defines()}
    local = {name for text in sources.values() for name in re.findall(r"^\s*#\s*define\s+(LD_\w+)", text, flags=re.M)}
    code = {name: re.sub(r"//.*", "", text) for name, text in sources.items()}
    used = {name for text in code.values() for name in re.findall(r"\b(LD_[A-Z0-9_]+)\b", text)}
    # the switches: the tests' explicit instances, benchmarks/probes/fused_trace.py's traced build,
    # benchmarks/probes/warp_clocks.py's clocked build
    assert used - local - made == {"LD_NVCC_CHECK", "LD_FUSED_TRACE", "LD_WARP_CLOCKS"}


def test_defines_are_integer_options():
    options = cuda_defines()
    assert all(re.fullmatch(r"-DLD_[A-Z0-9_]+=\d+", option) for option in options), options
    assert "-DLD_WORD_BITS=32" in options
    assert len(set(options)) == len(options) == len(kernel_layout.SHARED)


def _layout_names(module):
    """(names module imports from kernel_layout, names it assigns at its top level), read from
    its source: an int copied by hand is equal, and even the same object, so only the source
    tells a copy from an import."""
    tree = ast.parse(inspect.getsource(module))
    imported, assigned = set(), set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "lagraph_dist.local.layout":
            imported |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                assigned |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return imported, assigned


@pytest.mark.parametrize("module, names", [
    (cpu_kernels, ("FOUND", "EXAMINED", "PUSH_EDGES", "LONG_ROWS", "OVERFLOW", "NCOUNTERS", "M_FOUND", "M_BITS",
                   "M_EXAMINED", "M_PUSH_EDGES", "M_COMPLETED", "M_LIVE", "M_NCOUNTERS", "STOP_EMPTY",
                   "STOP_TOO_BIG", "STOP_LEVELS", "STOP_TARGET")),
    (gpu_kernels, ("THREADS", "PUSH_THREADS", "TILE_EDGES", "SMALL_SCAN", "LONG_ROW_THRESHOLD", "FUSED_THREADS",
                   "FUSED_GIANT_DEGREE", "FUSED_NSLOTS", "FUSED_NSTATUS", "FUSED_RECORD", "NCOUNTERS",
                   "M_NCOUNTERS", "MULT_CODES", "ADD_CODES")),
    (grid, ("WORD_BITS",)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_python_imports_the_layout_values(module, names):
    """The numpy twins, the GPU driver and the grid take the kernels' numbers from kernel_layout,
    and define none of them again."""
    imported, assigned = _layout_names(module)
    assert set(names) <= imported, set(names) - imported
    assert not imported & assigned, imported & assigned
    for name in names:
        assert getattr(module, name) == getattr(kernel_layout, name), name


@pytest.mark.parametrize("package", [cpu_kernels, gpu_kernels], ids=lambda p: p.__name__)
def test_no_kernel_module_copies_a_layout_value(package):
    """Every module of the CPU twins and of the GPU drivers takes the layout's numbers by import:
    none assigns a name the layout module defines (a copy by hand would drift from the CUDA)."""
    import importlib
    import pkgutil
    layout_names = {name for name in vars(kernel_layout) if name.isupper()}
    modules = [importlib.import_module(f"{package.__name__}.{info.name}")
               for info in pkgutil.iter_modules(package.__path__)]
    assert modules, package
    for module in [package, *modules]:
        imported, assigned = _layout_names(module)
        assert not assigned & layout_names, (module.__name__, assigned & layout_names)
        assert not imported & assigned, (module.__name__, imported & assigned)


def test_python_agrees_with_the_layout():
    """What the GPU driver and the modules that keep their own copy use matches the layout."""
    assert gpu_kernels._MULT is kernel_layout.MULT_CODES and gpu_kernels._ADD is kernel_layout.ADD_CODES
    # the direction rule's modes are numbered by their order in direction.DIRECTIONS
    assert [direction.DirectionRule(mode, 1, 0).code for mode in direction.DIRECTIONS] == \
        [getattr(kernel_layout, f"RULE_{mode.upper()}") for mode in direction.DIRECTIONS]
    assert multi.MAX_OWNERS == kernel_layout.MAX_OWNERS
    assert len(cpu_kernels.new_counters()) == kernel_layout.NCOUNTERS
    assert len(cpu_kernels.multi_new_counters()) == kernel_layout.M_NCOUNTERS
    # the GPU's semiring instances are the codes of semirings the package names
    names = {code: name for name, code in kernel_layout.MULT_CODES.items()}
    kinds = {code: kind for kind, code in kernel_layout.ADD_CODES.items()}
    assert {(names[m], kinds[a]) for m, a, _ in gpu_kernels._INSTANCES} == \
        {("pair", "any"), ("land", "lor"), ("secondi", "any"), ("secondi", "min")}


def test_layout_fields_are_distinct_slots():
    """Each record's fields are distinct words inside it (a repeated number would make two
    fields share a word)."""
    def fields(prefix):
        return [value for name, value in vars(kernel_layout).items() if name.startswith(prefix)]
    groups = [(["FOUND", "EXAMINED", "PUSH_EDGES", "LONG_ROWS", "OVERFLOW"], kernel_layout.NCOUNTERS),
              ([n for n in kernel_layout.SHARED if n.startswith("M_") and n != "M_NCOUNTERS"],
               kernel_layout.M_NCOUNTERS)]
    for names, size in groups:
        values = [getattr(kernel_layout, name) for name in names]
        assert sorted(values) == sorted(set(values)) and max(values) < size, names
    assert sorted(fields("STATUS_")) == list(range(kernel_layout.FUSED_NSTATUS))
    assert sorted(fields("RECORD_")) == list(range(kernel_layout.FUSED_RECORD))
    assert kernel_layout.NCOUNTERS % 2 == 0          # words after the counters stay 8-byte aligned


def _struct_fields(source, struct):
    """(name, packing kind) of each field of a kernel's one-argument struct, in the source's
    order: a pointer packs as "Q", a double as "d", an 8-byte integer as "q"."""
    body = re.search(r"struct " + struct + r" \{(.*?)\};", kernel_sources()[source], re.S).group(1)
    fields = re.findall(r"([\w ]+?)(\*?)\s*(\w+);", re.sub(r"//[^\n]*", "", body))
    for ctype, star, name in fields:
        assert star or ctype.strip() in ("i64", "long long", "double"), (source, name, ctype)   # 8 bytes each
    return [(name, "Q" if star else "d" if ctype.strip() == "double" else "q") for ctype, star, name in fields]


def test_fused_argument_struct_matches_its_packing():
    """The fused kernel's one argument: the driver packs ld_fused_args field by field from its
    FUSED_FIXED_ARGUMENTS and FUSED_CALL_ARGUMENTS, in fused.cu's order, each field 8 bytes (a
    pointer packed as "Q", an integer "q", a double "d"), so a field added on one side only,
    or moved, fails here rather than as a wrong pointer on the device."""
    from lagraph_dist.local.gpu_kernels import fused as driver
    cuda = _struct_fields("fused.cu", "ld_fused_args")
    assert cuda == list(driver.FUSED_FIXED_ARGUMENTS + driver.FUSED_CALL_ARGUMENTS)
    assert 8 * len(cuda) == driver._FIXED_PACKING.size + driver._CALL_PACKING.size


def test_multi_fused_argument_struct_matches_its_packing():
    """The multi-source kernel's one argument likewise: ld_mf_args of multi_fused.cu, field by
    field, is MULTI_FUSED_ARGUMENTS, the order its driver packs a launch's buffer in."""
    from lagraph_dist.local.gpu_kernels import multi_fused as driver
    cuda = _struct_fields("multi_fused.cu", "ld_mf_args")
    assert cuda == list(driver.MULTI_FUSED_ARGUMENTS)
    assert 8 * len(cuda) == driver._PACKING.size


def test_kernel_arguments_pack_each_call_after_the_fixed_fields():
    """The buffer a fused launch hands the driver: the fixed fields as packed once, then each
    call's fields packed in place over the last call's, and a kernelParams entry that points
    at the buffer (the driver copies the struct from there)."""
    import ctypes
    import struct

    from lagraph_dist.local.gpu_kernels.base import KernelArguments
    fixed, call = struct.Struct("<Qq"), struct.Struct("<qdQ")
    arguments = KernelArguments(fixed.pack(0xDEADBEEF, -3), call)
    for fields in ((1, 0.5, 7), (-9, 2.25, 1 << 40)):
        arguments.pack(*fields)
        address = ctypes.c_void_p.from_address(arguments.pointers).value
        assert ctypes.string_at(address, fixed.size + call.size) == fixed.pack(0xDEADBEEF, -3) + call.pack(*fields)


@pytest.mark.parametrize("setting, clustered, expected", [
    (None, True, "cluster"), (None, False, "block"), (0, True, 0), (4096, False, 4096), (512, True, 512)])
def test_one_block_threshold_policy_and_its_override(setting, clustered, expected):
    """The fused launch's one-block threshold (fused.py's _one_block_edges): without a setting,
    FUSED_CLUSTER_BLOCK_EDGES where the launch is clustered (the cluster takes the levels above
    it) and FUSED_BLOCK_EDGES elsewhere; a setting, 0 included, wins on both launches."""
    from types import SimpleNamespace
    from lagraph_dist.local.gpu_kernels.fused import FusedKernels
    from lagraph_dist.local.layout import FUSED_BLOCK_EDGES, FUSED_CLUSTER_BLOCK_EDGES
    assert FUSED_CLUSTER_BLOCK_EDGES < FUSED_BLOCK_EDGES
    want = {"cluster": FUSED_CLUSTER_BLOCK_EDGES, "block": FUSED_BLOCK_EDGES}.get(expected, expected)
    assert FusedKernels._one_block_edges(SimpleNamespace(fused_block_edges=setting), clustered) == want

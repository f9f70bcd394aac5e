"""The package's layers, read from its source: every import runs downward (or within a folder),
no module imports itself back through others, and the package's own modules are imported at
the top of a file (inside a function only where the issue's budget allows, for no reason but
an optional third-party package).

Layers, bottom up: core, semirings, local, comm, algebra, io, algorithms, tools; the package's
``__init__`` (and ``__main__``) sit above them all."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lagraph_dist"
LAYERS = ("core", "semirings", "local", "comm", "algebra", "io", "algorithms", "tools", "nx")
MOST_INNER_IMPORTS = 8


def _modules():
    """{dotted name: path} of every module of the package (semirings/ is mapped in)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        found[".".join(("lagraph_dist",) + parts).removesuffix(".__init__")] = path
    for path in (ROOT / "semirings").rglob("*.py"):
        parts = path.relative_to(ROOT / "semirings").with_suffix("").parts
        found[".".join(("lagraph_dist", "semirings") + parts).removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _layer(module):
    """The layer index of a dotted module name (the package's own top files: above all)."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return len(LAYERS)


def _imports(module, path):
    """[(imported package module, inside a function?)] of one file."""
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                continue
            if isinstance(child, ast.Import):
                found.extend((alias.name, inner) for alias in child.names if alias.name.startswith("lagraph_dist"))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - child.level + 1] + ([base] if base else []))
                if base.startswith("lagraph_dist"):
                    for alias in child.names:
                        candidate = f"{base}.{alias.name}"
                        found.append((candidate if candidate in MODULES else base, inner))
            visit(child, inner)

    visit(tree, False)
    return [(name, inner) for name, inner in found if name in MODULES]


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def test_the_layers_are_folders():
    for layer in LAYERS:
        assert any(m.startswith(f"lagraph_dist.{layer}") for m in MODULES), layer
    flat = sorted(m for m in MODULES if m.count(".") == 1 and m.split(".")[1] not in LAYERS + ("__main__",))
    assert flat == [], f"modules outside the layer folders: {flat}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_downward(module):
    upward = [name for name, _ in GRAPH[module] if _layer(name) > _layer(module)]
    assert upward == [], f"{module} imports from layers above it: {upward}"


def test_no_import_circle():
    top_level = {m: {n for n, inner in GRAPH[m] if not inner and n != m} for m in MODULES}
    state = {}

    def walk(module, trail):
        state[module] = "open"
        for other in sorted(top_level[module]):
            if state.get(other) == "open":
                loop = trail[trail.index(other):] + [other] if other in trail else [module, other]
                pytest.fail(f"import circle: {' -> '.join(loop)}")
            if other not in state:
                walk(other, trail + [other])
        state[module] = "done"

    for module in sorted(MODULES):
        if module not in state:
            walk(module, [module])


def test_few_imports_of_the_package_inside_functions():
    inner = sorted((m, n) for m in MODULES for n, is_inner in GRAPH[m] if is_inner)
    assert len(inner) <= MOST_INNER_IMPORTS, f"{len(inner)} imports inside functions: {inner}"

"""networkx with lagraph_dist as its backend: networkx's own tests of the functions it runs (fails
below a floor of passes), or, with ``--calls``, networkx's calls timed through each backend.

    python benchmarks/networkx_suite.py [--floor 0.95] [--json out.json] [-m gpu] [pytest args...]
    python benchmarks/networkx_suite.py --calls [--scale 16] [--k 64] [--repeat 3] [--json out.json]

docs/networkx.md says what both measure: the suite's pass share is the tests that reach the backend
(:class:`Tally`) and pass over those that reach it and are not skipped (``lagraph_dist.nx.expected``'s
xfails count against it); a call's ``first`` time converts the graph (networkx caches that), its
``warm`` time is the median of the later calls. Exit status 1 below the floor, when no test reached
the backend or an answer differs from networkx's; pytest's own when the suite's run breaks.
"""
import argparse
import os
import statistics
import sys
import warnings
from collections import Counter
from pathlib import Path

import lagraph_dist as ld
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import at_least, md_table, timed, times  # noqa: E402

#: networkx's test modules of the dispatched functions (its traversal package whole).
MODULES = [
    "networkx.algorithms.traversal",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_generic",
    "networkx.algorithms.components.tests.test_connected",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
    "networkx.algorithms.centrality.tests.test_closeness_centrality",
    "networkx.algorithms.tests.test_distance_measures",
]
FLOOR = 0.95
CALL_HEADER = ["networkx", "graphblas-algorithms warm (first call)", "lagraph_dist warm (first call)",
               "lagraph_dist vs networkx, warm / first"]      # a timed call's columns, here and in results/README.md


# -- the suite ------------------------------------------------------------------------------------
class Tally:
    """A pytest plugin: which tests reached the backend, and each test's outcome."""

    def __init__(self):
        self.calls = 0                  # calls of the backend's functions so far
        self.declined = Counter()       # function -> calls can_run sent back to networkx
        self.ran = Counter()            # function -> calls run here
        self.reached = {}               # test id -> calls it made here
        self.outcomes = {}              # test id -> passed, failed, skipped, xfailed, xpassed

    def pytest_configure(self, config):
        """Count the calls of the backend's functions and what its can_run declines."""
        from lagraph_dist.nx import algorithms, interface, support

        def counted(name, function):
            def run(*args, **kwargs):
                self.calls += 1
                self.ran[name] += 1
                return function(*args, **kwargs)
            return staticmethod(run)

        for name in algorithms.__all__:
            setattr(interface.BackendInterface, name, counted(name, getattr(algorithms, name)))
        can_run = support.can_run

        def counted_can_run(name, args, kwargs):
            answer = can_run(name, args, kwargs)
            if answer is not True:
                self.declined[name] += 1
            return answer
        interface.BackendInterface.can_run = staticmethod(counted_can_run)

    def pytest_runtest_logstart(self, nodeid, location):
        self._before = self.calls

    def pytest_runtest_logfinish(self, nodeid, location):
        if self.calls > self._before:
            self.reached[nodeid] = self.calls - self._before

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            outcome = ("xpassed" if report.passed else "xfailed") if hasattr(report, "wasxfail") else report.outcome
            if self.outcomes.get(report.nodeid) in (None, "passed"):     # a failing setup or teardown outranks a pass
                self.outcomes[report.nodeid] = outcome

    def summary(self):
        reached = {t: self.outcomes.get(t, "unknown") for t in self.reached}
        counted = [o for o in reached.values() if o != "skipped"]
        passed = sum(o in ("passed", "xpassed") for o in counted)
        return {"tests": len(self.outcomes), "outcomes": dict(Counter(self.outcomes.values())),
                "reached_backend": len(reached), "reached_outcomes": dict(Counter(reached.values())),
                "pass_share": passed / len(counted) if counted else 0.0,
                "not_passed": sorted(t for t, o in reached.items() if o not in ("passed", "xpassed", "skipped")),
                "calls_run_here": dict(sorted(self.ran.items())), "calls_declined": dict(sorted(self.declined.items())),
                "networkx": __import__("networkx").__version__}


def engine_backend():
    """The engine backend the converted graphs use ("cpu" or "gpu")."""
    import networkx as nx
    return ld.get_backend(nx.config.backends.lagraph_dist.backend).name


def suite(options, pytest_args):
    if not 0 <= options.floor <= 1:
        sys.exit(f"--floor must be from 0 to 1, got {options.floor}")
    os.environ["NETWORKX_TEST_BACKEND"] = "lagraph_dist"       # networkx's conftest reads these
    os.environ["NETWORKX_FALLBACK_TO_NX"] = "True"
    import pytest
    tally = Tally()
    status, seconds = timed(None, pytest.main, ["-q", "-p", "no:cacheprovider", "--pyargs", *MODULES, *pytest_args],
                            plugins=[tally])
    engine = engine_backend()
    summary = {"benchmark": "networkx_suite"} | tally.summary() | {
        "floor": options.floor, "seconds": round(seconds, 1), "modules": MODULES,
        "engine_backend": engine, "environment": environment(ld.Matrix.from_edges([0], [1], 2, backend=engine))}
    if options.json:
        write_json(summary, options.json)
    share = summary["pass_share"]
    print(f"networkx {summary['networkx']}'s tests with the lagraph_dist backend ({engine} engine): "
          f"{summary['reached_backend']} of {summary['tests']} tests reached the backend, {share:.1%} of them pass "
          f"(floor {options.floor:.0%}); outcomes {summary['reached_outcomes']}")
    for test in summary["not_passed"]:
        print(f"  not passed: {test} ({tally.outcomes.get(test)})")
    print(f"  calls declined by can_run (run by networkx): {summary['calls_declined']}")
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return int(status)
    if summary["reached_backend"] == 0 or share < options.floor:
        print("below the floor" if summary["reached_backend"] else "no test reached the backend")
        return 1
    return 0


# -- the calls ------------------------------------------------------------------------------------
def nx_calls(G, source, k):
    """name -> (call with backend=..., whether answers must be equal rather than close)."""
    import networkx as nx
    return {f"betweenness_centrality(k={k}, seed=0)": (
                lambda **b: nx.betweenness_centrality(G, k=k, seed=0, **b), False),
            "single_source_shortest_path_length": (
                lambda **b: dict(nx.single_source_shortest_path_length(G, source, **b)), True),
            "connected_components": (lambda **b: [set(c) for c in nx.connected_components(G, **b)], True)}


def same(ours, theirs, equal):
    if equal:
        return ours == theirs
    return ours.keys() == theirs.keys() and max(abs(ours[v] - theirs[v]) for v in theirs) < 1e-9


def conversion_seconds(G, backend):
    """Seconds to convert G for ``backend`` (its own convert_from_nx; lagraph_dist's Matrix too)."""
    import networkx as nx
    converted, seconds = timed(None, nx.utils.backends._load_backend(backend).convert_from_nx, G)
    return seconds + (timed(None, lambda: converted.matrix)[1] if backend == "lagraph_dist" else 0)


def run_backend(G, name, call, repeat):
    """({first_s, warm_s}, the answer), the graph's cache emptied first; (None, None) where not dispatched."""
    G.__networkx_cache__.clear()
    try:
        answer, first = timed(None, call, backend=name)
    except NotImplementedError:
        return None, None
    warm = [timed(None, call, backend=name)[1] for _ in range(repeat)]
    return {"first_s": first, "warm_s": statistics.median(warm)}, answer


def calls(options):
    import networkx as nx
    if options.scale > 22:
        sys.exit("--scale must be at most 22")
    warnings.simplefilter("ignore")
    nx.config.warnings_to_ignore.add("cache")
    backends = [b for b in ("graphblas", "lagraph_dist") if b in nx.utils.backends.backends]
    small = ld.kronecker(7, seed=1, backend="cpu").to_networkx()      # what a process pays once, paid here
    for call, _ in nx_calls(small, max(small, key=small.degree), min(options.k, 8)).values():
        for backend in backends:
            run_backend(small, backend, call, 1)
    A = ld.kronecker(options.scale, seed=0, backend="cpu")
    G, build = timed(None, A.to_networkx)
    engine = engine_backend()
    print(f"Kronecker {options.scale} as networkx: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
          f"(built in {build:.1f} s); lagraph_dist's engine backend: {engine}")
    conversions = {b: conversion_seconds(G, b) for b in backends}
    print("conversion: " + ", ".join(f"{b} {s:.3f} s" for b, s in conversions.items()))
    runs, wrong = [], []
    for label, (call, equal) in nx_calls(G, max(G, key=G.degree), options.k).items():
        run = {"function": label}
        theirs, run["networkx_s"] = timed(None, call, backend="networkx")
        for backend in backends:
            timing, ours = run_backend(G, backend, call, options.repeat)
            run[backend] = "not dispatched" if timing is None else timing | {"agrees": same(ours, theirs, equal)}
            wrong += [label] if timing is not None and not run[backend]["agrees"] else []
        runs.append(run)
    print("\n" + md_table(["function", *CALL_HEADER], [[run["function"], *call_cells(run)] for run in runs]))
    if options.json:
        write_json({"benchmark": "networkx_backend", "graph": {"kind": "kronecker", "scale": options.scale, "seed": 0},
                    "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), "k": options.k,
                    "engine_backend": engine, "conversion_s": conversions, "networkx": nx.__version__,
                    "calls": runs, "environment": environment(A)}, options.json)
    if wrong:
        print("answers differ from networkx's:", wrong)
    return 1 if wrong else 0


def call_cells(call):
    """A timed call's cells of :data:`CALL_HEADER` (here and in results/README.md)."""
    ours = call.get("lagraph_dist")
    versus = (f"{times(call['networkx_s'] / ours['warm_s'])} / {times(call['networkx_s'] / ours['first_s'])}"
              if isinstance(ours, dict) and "networkx_s" in call else "-")
    runs = (call.get(backend, "not installed") for backend in ("graphblas", "lagraph_dist"))
    return [f"{call['networkx_s']:.3f} s" if "networkx_s" in call else "not run",
            *(run if isinstance(run, str) else f"{run['warm_s']:.3f} s ({run['first_s']:.3f} s)" for run in runs),
            versus]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the record here")
    parser.add_argument("--floor", type=float, default=FLOOR, help=f"the suite's least pass share (default {FLOOR})")
    parser.add_argument("--calls", action="store_true", help="time networkx's calls through each backend instead")
    parser.add_argument("--scale", type=at_least(1), default=16,
                        help="--calls: the Kronecker graph's scale (at most 22)")
    parser.add_argument("--k", type=at_least(1), default=64, help="--calls: betweenness's sampled sources")
    parser.add_argument("--repeat", type=at_least(1), default=3, help="--calls: warm calls timed per backend (median)")
    options, pytest_args = parser.parse_known_args(argv)
    if options.calls and pytest_args:
        parser.error(f"--calls takes no pytest arguments: {' '.join(pytest_args)}")
    return calls(options) if options.calls else suite(options, pytest_args)


if __name__ == "__main__":
    sys.exit(main())

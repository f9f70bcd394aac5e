"""networkx's own tests of the functions lagraph_dist runs, run against the backend; fails
below a floor of passes.

    python benchmarks/networkx_suite.py [--floor 0.95] [--json out.json] [-m gpu] [pytest args...]

networkx runs its tests with a backend when ``NETWORKX_TEST_BACKEND`` names one: each
dispatchable call converts the test's graphs to the backend's and its answer back, and the test
checks that answer. ``NETWORKX_FALLBACK_TO_NX`` lets networkx run what the backend declines
(``can_run``: weights, ``sort_neighbors``, ...) or does not implement, so the rest of each test
still runs. The test modules are those of the dispatched functions, from the installed networkx
(``pytest --pyargs``): tests nobody here wrote.

What counts: a test *reaches the backend* when at least one call of it ran one of
lagraph_dist's functions (counted by wrapping them while the tests run). The pass share is the
tests that reach the backend and pass, over the tests that reach it and are not skipped;
expected failures (``lagraph_dist.nx.expected``, reported as xfail) count against it. The floor is
the issue's target, 95%. Exit status 1 below the floor (or when no test reached the backend),
pytest's own status when the run itself breaks.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

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


class Tally:
    """A pytest plugin: which tests reached the backend, and each test's outcome."""

    def __init__(self):
        self.calls = 0                  # calls of the backend's functions so far
        self.declined = Counter()       # function -> calls can_run sent back to networkx
        self.ran = Counter()            # function -> calls run here
        self.reached = {}               # test id -> calls it made here
        self.outcomes = {}              # test id -> passed, failed, skipped, xfailed, xpassed

    # -- counting the backend's calls -------------------------------------------------------
    def wrap_backend(self):
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

    # -- pytest's hooks ---------------------------------------------------------------------
    def pytest_configure(self, config):
        self.wrap_backend()

    def pytest_runtest_logstart(self, nodeid, location):
        self._before = self.calls

    def pytest_runtest_logfinish(self, nodeid, location):
        made = self.calls - self._before
        if made:
            self.reached[nodeid] = made

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            if hasattr(report, "wasxfail"):
                outcome = "xpassed" if report.passed else "xfailed"
            else:
                outcome = report.outcome
            # a failing setup or teardown outranks the call's pass
            if self.outcomes.get(report.nodeid) in (None, "passed"):
                self.outcomes[report.nodeid] = outcome

    def summary(self):
        reached = {t: self.outcomes.get(t, "unknown") for t in self.reached}
        counted = [o for o in reached.values() if o != "skipped"]
        passed = sum(o in ("passed", "xpassed") for o in counted)
        return {
            "tests": len(self.outcomes),
            "outcomes": dict(Counter(self.outcomes.values())),
            "reached_backend": len(reached),
            "reached_outcomes": dict(Counter(reached.values())),
            "pass_share": passed / len(counted) if counted else 0.0,
            "not_passed": sorted(t for t, o in reached.items() if o not in ("passed", "xpassed", "skipped")),
            "calls_run_here": dict(sorted(self.ran.items())),
            "calls_declined": dict(sorted(self.declined.items())),
            "networkx": __import__("networkx").__version__,
        }


def engine_backend():
    """The engine backend the converted graphs used ("cpu" or "gpu")."""
    import networkx as nx
    import lagraph_dist as ld
    return ld.get_backend(nx.config.backends.lagraph_dist.backend).name


def engine_environment():
    """The record's environment (device, versions, commit) of the engine backend the run used."""
    import lagraph_dist as ld
    from lagraph_dist.tools.bench import environment
    return environment(ld.Matrix.from_edges([0], [1], 2, backend=engine_backend()))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--floor", type=float, default=FLOOR, help=f"least pass share (default {FLOOR})")
    parser.add_argument("--json", help="write the summary here")
    options, pytest_args = parser.parse_known_args(argv)
    if not 0 <= options.floor <= 1:
        parser.error(f"--floor must be from 0 to 1, got {options.floor}")
    # networkx's conftest reads these when pytest configures it
    os.environ["NETWORKX_TEST_BACKEND"] = "lagraph_dist"
    os.environ["NETWORKX_FALLBACK_TO_NX"] = "True"
    import pytest
    tally = Tally()
    started = time.perf_counter()
    status = pytest.main(["-q", "-p", "no:cacheprovider", "--pyargs", *MODULES, *pytest_args], plugins=[tally])
    summary = {"benchmark": "networkx_suite"} | tally.summary() | {"floor": options.floor, "seconds": round(time.perf_counter() - started, 1),
                                 "modules": MODULES, "engine_backend": engine_backend(),
                                 "environment": engine_environment()}
    if options.json:
        from lagraph_dist.tools.bench import write_json
        write_json(summary, options.json)
    share = summary["pass_share"]
    print(f"networkx {summary['networkx']}'s tests with the lagraph_dist backend ({summary['engine_backend']} engine): "
          f"{summary['reached_backend']} of "
          f"{summary['tests']} tests reached the backend, {share:.1%} of them pass "
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


if __name__ == "__main__":
    sys.exit(main())

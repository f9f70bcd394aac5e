"""networkx's own tests that the backend is expected to fail, each with its reason.

Keyed by (test module's name, test name as pytest ids it, without parameters); ``on_start_tests``
marks each as ``xfail`` (not strict: a pass is reported as XPASS, not an error). An entry is a
test whose answer here is right but not the one networkx's test spells out, never a wrong
answer.
"""
from __future__ import annotations

#: (module, test) -> reason
EXPECTED_FAILURES: dict[tuple[str, str], str] = {
}

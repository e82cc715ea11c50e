"""Fixtures for the contract runs, and a summary of how many cases schemathesis generated.

Each schemathesis test records its count as the user property `schemathesis-cases` (a
`(run, count)` pair, carried from xdist workers with the report); the summary adds up those of
the teardown reports (one per test) per run. It shows in the normal pytest output whenever the
reporting process loads this conftest: a run naming `tests/contract` (with or without xdist),
or any run without xdist.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from .servers import BackgroundSimulators

CASES_PROPERTY = "schemathesis-cases"


@pytest.fixture(scope="session")
def background_simulators() -> Iterator[BackgroundSimulators]:
    """Simulators on a background event loop, stopped at the end of the session."""
    simulators = BackgroundSimulators()
    yield simulators
    simulators.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the cases schemathesis generated per run, when any contract test ran."""
    counts: Counter[str] = Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "teardown":
                continue
            for name, value in report.user_properties:
                if name == CASES_PROPERTY:
                    counts[value[0]] += value[1]
    if not counts:
        return
    terminalreporter.section("schemathesis: generated cases (paging / naming / error shape)")
    for run, count in sorted(counts.items()):
        terminalreporter.write_line(f"{run}: {count} cases")
    terminalreporter.write_line(f"total: {sum(counts.values())} cases")

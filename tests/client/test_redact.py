"""redact: every occurrence of every secret is replaced in a text; an empty secret changes nothing.

What a whole call leaves behind is checked by the canary suites beside this file
(`test_redact_tracebacks`, `test_redact_echoes`, `test_redact_simulator`, `test_redact_telemetry`).
"""

from __future__ import annotations

from remedy_async._redact import REDACTED, redact


def test_redact_replaces_every_occurrence_of_every_secret() -> None:
    """redact replaces all occurrences of each non-empty secret."""
    assert redact("a1 b2 a1", ["a1", "b2", ""]) == f"{REDACTED} {REDACTED} {REDACTED}"


def test_redact_ignores_empty_secrets() -> None:
    """An empty secret does not change the text."""
    assert redact("plain text", [""]) == "plain text"

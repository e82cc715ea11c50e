"""redact: every occurrence of every secret is replaced in a text; an empty secret changes nothing.

What a whole call leaves behind is checked by the canary suites beside this file
(`test_redact_tracebacks`, `test_redact_echoes`, `test_redact_simulator`, `test_redact_telemetry`).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from remedy_async._redact import REDACTED, redact


def test_redact_replaces_every_occurrence_of_every_secret() -> None:
    """redact replaces all occurrences of each non-empty secret."""
    assert redact("a1 b2 a1", ["a1", "b2", ""]) == f"{REDACTED} {REDACTED} {REDACTED}"


def test_redact_ignores_empty_secrets() -> None:
    """An empty secret does not change the text."""
    assert redact("plain text", [""]) == "plain text"


@pytest.mark.parametrize("secrets", [["t"], ["T"], ["sk_live_123", "act"], ["d", "e"]])
def test_redacting_again_finds_no_secret_inside_what_was_redacted(secrets: list[str]) -> None:
    """A short secret (`t`) is no echo inside `[REDACTED]`: redacting a message twice, or for
    several secrets, gives what redacting it once gives, never `[REDAC[REDACTED]ED]`."""
    text = "sent without a token sk_live_123 to http://service.test/v1/endpoints"
    once = redact(text, secrets)
    assert redact(once, secrets) == once
    assert "[REDAC[" not in once


NEAR_MISS = """
from remedy_async._redact import redact
secret = "TkrXCUowoSoevY6lGer-1cEanS7nbzirDYmBK/XG4i"
text = f"the next page is on another origin (http://{secret[:37].lower()}); credentials are only"
assert redact(text, [secret]) == text
"""


def test_a_text_nearly_echoing_a_secret_is_redacted_without_trying_every_spelling() -> None:
    """A host name holding a secret's first 37 characters lowered (a service echoing the token
    into a next-page link) is no echo, and telling so takes one pass: each character's forms
    match no text alike. When a letter could match as `A`, `a` and a case-blind `a`, the engine
    tried every way to spell the 37 before refusing, and this took minutes; the check runs in
    a process of its own, so such a regression fails at the timeout rather than hanging."""
    finished = subprocess.run(
        [sys.executable, "-c", NEAR_MISS], capture_output=True, text=True, timeout=60, check=False
    )
    assert finished.returncode == 0, finished.stderr

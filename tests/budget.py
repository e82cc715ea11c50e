"""How many examples the heaviest property tests try: every one on a developer's machine, a
third in CI (`CI` set), where the whole run has a ten-minute budget. Hypothesis keeps the
failing examples it finds in its database either way, and a failure found locally is replayed
in CI."""

from __future__ import annotations

import os

IN_CI = bool(os.environ.get("CI"))


def examples(locally: int) -> int:
    """The number of examples to try: `locally` on a developer's machine, a third in CI."""
    return max(25, locally // 3) if IN_CI else locally

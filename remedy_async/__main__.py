"""`python -m remedy_async`: the `remedy-async` command line (see `remedy_async.cli`)."""

from __future__ import annotations

import sys

from .cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())

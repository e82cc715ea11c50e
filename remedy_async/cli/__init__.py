"""The `remedy-async` command line: every operation of the library from the shell.

    remedy-async demo                                  the main job, against the simulator
    remedy-async list vulnerability-findings --severity critical --format csv
    remedy-async get endpoints ep-00000001 ep-00000002
    remedy-async export --out backup/ [--resume]
    remedy-async health | agent-config download --out agent.conf | serve

`main` runs it in the process; `run` runs one command line with given streams (for tests).
Needs rich (the `cli` extra) only for tables, progress display and the demo.
"""

from ._app import main, run
from ._terminal import Terminal

__all__ = ["Terminal", "main", "run"]

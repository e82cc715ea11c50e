"""The `remedy-async` command line: every operation of the library from the shell.

    remedy-async demo                                  the main job, against the simulator
    remedy-async list endpoints --os-family macos --format csv
    remedy-async list vulnerability-findings --where severity=critical --fields id,cve_id
    remedy-async get endpoints 3f0c2a9e-5b1d-4c8a-9e2f-7a6b5c4d3e21
    remedy-async export --out backup/ [--resume]
    remedy-async health | agent-config download --out agent.conf | serve

`main` runs it in the process; `run` runs one command line with given streams (for tests).
Needs rich (the `cli` extra) only for tables, progress display and the demo.
"""

from ._app import main, run
from ._terminal import Terminal

__all__ = ["Terminal", "main", "run"]

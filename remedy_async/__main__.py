"""The `remedy-async` command: `demo` runs the main job, `serve` runs the simulator."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence

from ._demo import render, run_demo
from .simulator.__main__ import add_serve_arguments
from .simulator.__main__ import main as serve


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="remedy-async", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="export every collection from the embedded simulator and summarise"
    )
    demo.add_argument("--size", type=int, default=1000, help="endpoints in the data set")
    demo.add_argument("--seed", type=int, default=0, help="seed of the data set")
    serve = commands.add_parser("serve", help="run the simulator of the service")
    add_serve_arguments(serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    arguments = _parser().parse_args(argv)
    if arguments.command == "serve":
        return serve(list(argv if argv is not None else sys.argv[1:])[1:])
    started = time.perf_counter()
    counts = asyncio.run(run_demo(size=arguments.size, seed=arguments.seed))
    render(counts, time.perf_counter() - started, sys.stdout)
    return 0 if all(count.complete for count in counts) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Whole-process timing, hyperfine-style: warm-ups, then many alternating runs, medians.

    python benchmarks/startup.py [--runs 30] [--warmups 3]

Times `python -c "import remedy_async"` and `remedy-async --help` against
`python -c "import aiohttp"` (the stack's own floor). Each round runs every command once, in an
order that rotates from round to round, so drift on a shared machine and any advantage of going
first or last hit every command alike; each round gives one ratio per command (its time over the
reference's in the same round), and the reported ratio is the median of those. The commands
inherit the environment minus PYTHONDONTWRITEBYTECODE, so the warm-ups leave the bytecode caches
an installed package has: what is timed is a user's start, not a first compile.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

REFERENCE = "python -c 'import aiohttp'"


def cli_script() -> str:
    """The `remedy-async` script beside this interpreter (its environment's), else on PATH."""
    beside = Path(sys.executable).with_name("remedy-async")
    found = str(beside) if beside.exists() else shutil.which("remedy-async")
    if found is None:
        raise RuntimeError("remedy-async is not installed with this interpreter, nor on PATH")
    return found


def start_up_commands() -> dict[str, list[str]]:
    """The commands of workload 4, the reference first."""
    script = cli_script()
    return {
        REFERENCE: [sys.executable, "-c", "import aiohttp"],
        "python -c 'import remedy_async'": [sys.executable, "-c", "import remedy_async"],
        "remedy-async --help": [script, "--help"],
    }


def child_environment() -> dict[str, str]:
    """This process's environment without PYTHONDONTWRITEBYTECODE (see the module doc)."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def seconds_of(command: Sequence[str], env: Mapping[str, str]) -> float:
    """Wall-clock seconds of one whole run of `command`; fails, with its stderr, if it fails."""
    started = time.perf_counter()
    run = subprocess.run(
        command, check=False, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - started
    if run.returncode:
        stderr = run.stderr.decode(errors="replace")
        raise RuntimeError(f"{' '.join(command)} exited {run.returncode}:\n{stderr}")
    return elapsed


def alternate(
    commands: Mapping[str, Sequence[str]],
    runs: int,
    warmups: int,
    prepare: Callable[[str], None] | None = None,
) -> dict[str, list[float]]:
    """Seconds of every command in each of `runs` rounds (after `warmups` uncounted rounds);
    the order of the commands rotates by one each round. `prepare(name)`, if given, runs
    before each run of that command, off the clock."""
    env = child_environment()
    names = list(commands)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for round_number in range(warmups + runs):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            if prepare is not None:
                prepare(name)
            elapsed = seconds_of(commands[name], env)
            if round_number >= warmups:
                seconds[name].append(elapsed)
    return seconds


def ratios_to(seconds: Mapping[str, list[float]], reference: str) -> dict[str, list[float]]:
    """Per round, each command's time over the reference's in the same round."""
    return {
        name: [own / base for own, base in zip(times, seconds[reference], strict=True)]
        for name, times in seconds.items()
    }


def report(seconds: Mapping[str, list[float]], reference: str = REFERENCE) -> str:
    ratios = ratios_to(seconds, reference)
    lines = [
        "| command | median (min-max) | ratio to the reference, median of rounds (min-max) |",
        "|---|---|---|",
    ]
    for name, times in seconds.items():
        per_round = ratios[name]
        lines.append(
            f"| `{name}` | {statistics.median(times) * 1000:.0f} ms "
            f"({min(times) * 1000:.0f}-{max(times) * 1000:.0f}) "
            f"| {statistics.median(per_round):.2f}x ({min(per_round):.2f}-{max(per_round):.2f}) |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="counted rounds")
    parser.add_argument("--warmups", type=int, default=3, help="uncounted rounds first")
    arguments = parser.parse_args()
    seconds = alternate(start_up_commands(), arguments.runs, arguments.warmups)
    print(f"{arguments.runs} alternating rounds after {arguments.warmups} warm-ups\n")
    print(report(seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())

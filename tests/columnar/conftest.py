"""The servers of the Arrow and dlt tests: a PostgreSQL server for dlt, started once per session.

PostgreSQL is Debian's package (`apt-get install postgresql`; CI installs it): `initdb` into a
temporary directory, then a server on a free loopback port, run as the `postgres` user when
the tests run as root (the server refuses root). Without the package the tests that need it
are skipped, saying so.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")  # dlt sends nothing anywhere


def postgres_binaries() -> Path | None:
    """The directory holding initdb and pg_ctl, newest PostgreSQL first; None if missing."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    if found:
        return found[0].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A connection URL of a fresh PostgreSQL server on loopback, for this session."""
    binaries = postgres_binaries()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql): no initdb found")
    # Not under pytest's own temporary directory: the server's user must reach its files.
    data = Path(tempfile.mkdtemp(prefix="remedy-postgres-"))
    run_as: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: PostgreSQL refuses to run as root")
        shutil.chown(data, "postgres", "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    try:
        yield from _serve(binaries, data, run_as)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def _serve(binaries: Path, data: Path, run_as: list[str]) -> Iterator[str]:
    port = free_port()
    log = data / "server.log"

    def pg(*command: str) -> None:
        done = subprocess.run(
            [*run_as, *command], capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            pytest.skip(f"PostgreSQL could not start: {command[0]}: {done.stderr.strip()[:300]}")

    pg(
        str(binaries / "initdb"),
        "-D",
        str(data / "db"),
        "-U",
        "remedy",
        "-A",
        "trust",
        "-E",
        "UTF8",
    )
    options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg(
        str(binaries / "pg_ctl"),
        "-D",
        str(data / "db"),
        "-o",
        options,
        "-l",
        str(log),
        "-w",
        "start",
    )
    try:
        yield f"postgresql://remedy:unused@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*run_as, str(binaries / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
            check=False,
        )

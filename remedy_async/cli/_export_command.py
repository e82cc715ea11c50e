"""`export`: one organisation's collections (`_export`), or every tenant's of a tenants file
(`_tenant_export`, with `--tenants`), whose module is imported only then."""

from __future__ import annotations

import argparse

from ._errors import UsageError
from ._export import run_export
from ._terminal import Terminal


async def run_export_command(options: argparse.Namespace, terminal: Terminal) -> int:
    """Run `export` as its options ask: for many tenants with `--tenants`, else for one
    organisation; Ray's options without `--tenants` are a usage error."""
    if getattr(options, "tenants", None) is not None:
        from ._tenant_export import run_tenant_export  # noqa: PLC0415 - only for --tenants

        return await run_tenant_export(options, terminal)
    unused = [
        flag
        for flag, given in (
            ("--engine ray", getattr(options, "engine", "process") != "process"),
            ("--address", getattr(options, "address", None) is not None),
            ("--shards", getattr(options, "shards", None) is not None),
        )
        if given
    ]
    if unused:
        raise UsageError(f"{', '.join(unused)} reads many tenants: give --tenants FILE too")
    return await run_export(options, terminal)

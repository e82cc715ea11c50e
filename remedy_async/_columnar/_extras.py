"""The optional dependencies of the integrations, imported on first use and named by extra."""

from __future__ import annotations

import importlib
from types import ModuleType

from remedy_async._errors import MissingDependencyError

EXTRAS = {"pyarrow": "arrow", "duckdb": "duckdb", "dlt": "dlt", "ray": "ray"}
"""Each optional package, and the extra of remedy-async that installs it."""


def require(module: str, purpose: str) -> ModuleType:
    """Import an optional module, or raise MissingDependencyError naming the extra to install.

    `module` is a dotted name (`pyarrow.parquet`); its top-level package names the extra.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        package = module.partition(".")[0]
        extra = EXTRAS[package]
        raise MissingDependencyError(
            f"{purpose} needs {package}, which is not installed: "
            f"pip install 'remedy-async[{extra}]'",
            package=package,
            extra=extra,
        ) from error

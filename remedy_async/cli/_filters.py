"""Reads the command line's resource names and `--filter k=v` options, before any request."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, Final

from remedy_async import RESOURCES, Resource

from ._errors import UsageError

LIST_KEYWORDS: Final = frozenset(
    {"page_size", "max_items", "resume_token", "prefetch", "options", "extra_params"}
)
"""Keyword arguments of `list()` itself, which a filter must not be mistaken for."""

_BY_NAME: Final[dict[str, Resource[Any]]] = {
    name: resource for resource in RESOURCES for name in (resource.segment, resource.attribute)
}

RESOURCE_NAMES: Final = tuple(resource.segment for resource in RESOURCES)


def resource_named(name: str) -> Resource[Any]:
    """Return the resource called `name` (`remediation-targets` or `remediation_targets`)."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        raise ValueError(
            f"unknown resource {name!r}; choose from {', '.join(RESOURCE_NAMES)}"
        ) from None


def parse_filter(text: str) -> tuple[str, str]:
    """Split one `key=value` filter; the value may be empty or contain `=`."""
    key, separator, value = text.partition("=")
    key = key.strip()
    if not separator or not key:
        raise ValueError(f"filter {text!r} must look like key=value")
    if key in LIST_KEYWORDS:
        raise ValueError(f"filter {key!r} is an option of its own, not a filter")
    return key, value


def group_filters(pairs: Iterable[tuple[str, str]]) -> dict[str, str | list[str]]:
    """Group filters by key: one value stays a string, a repeated key gives a list of values.

    The list is sent as the key repeated (`severity=high&severity=critical`).
    """
    grouped: dict[str, list[str]] = {}
    for key, value in pairs:
        grouped.setdefault(key, []).append(value)
    return {key: values[0] if len(values) == 1 else values for key, values in grouped.items()}


def resource_filters(
    resource: Resource[Any], pairs: Iterable[tuple[str, str]]
) -> dict[str, str | list[str]]:
    """The `--filter` options as the resource's filter keywords; a key may be spelt as on the
    wire (`endpointId`) or in snake_case. An unknown key is a usage error naming the closest."""
    by_spelling = {
        spelling: name
        for name, spec in resource.filters.items()
        for spelling in (name, spec.wire_name, name.replace("_", "-"))
    }
    named = []
    for key, value in pairs:
        name = by_spelling.get(key)
        if name is None:
            close = difflib.get_close_matches(key, list(by_spelling), n=2)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            known = ", ".join(spec.wire_name for spec in resource.filters.values())
            raise UsageError(
                f"--filter {key}: {resource.segment} has no such filter{hint}; its filters are "
                f"{known}; send another query parameter as is with --param {key}=VALUE"
            )
        named.append((name, value))
    return group_filters(named)

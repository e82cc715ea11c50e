"""The server-side filters as flags (`--severity high --severity critical`), generated from the
contract's filters (`Resource.filters`), enums shown in `--help` as the flag's choices.

`list RESOURCE` takes its resource's filters; `export` takes every resource's, each of which
must be a filter of every collection it exports (checked by `resource_filters`, which also
checks the values a flag shares between collections with different enums). A flag's values go,
as (keyword name, value) pairs, to `FILTER_FLAGS`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ._filters import filter_choices, filter_flag, value_problem

if TYPE_CHECKING:
    from remedy_async import Filter, Resource

FILTER_FLAGS: Final = "filter_flags"
"""The options' attribute holding the filter flags given, as (keyword name, value) pairs."""
_METAVARS: Final = {"timestamp": "TIME", "number": "NUMBER", "integer": "N"}
_NOTES: Final = {"timestamp": ", an RFC 3339 time"}
DESCRIPTION: Final = (
    "Sent to the service, which keeps the records whose field equals the value (times in RFC "
    "3339, e.g. 2024-05-01T12:00:00Z); repeat a flag for any of several values (--severity "
    "high --severity critical)."
)


class _FilterFlag(argparse.Action):
    """Appends (keyword name, value) to the filter flags given so far."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        given = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, [*given, (self.const, values)])


def _checked(spec: Filter) -> Callable[[str], str]:
    """The flag's type: the value as typed, once the filter's kind allows it."""

    def read(text: str) -> str:
        problem = value_problem(spec, text)
        if problem is not None:
            raise argparse.ArgumentTypeError(f"{spec.wire_name} {problem}, not {text!r}")
        return text

    read.__name__ = spec.kind
    return read


def add_filter_flags(
    parser: argparse.ArgumentParser, resources: Sequence[Resource[Any]], title: str
) -> None:
    """Add the filters of `resources` to `parser` as flags, one per keyword name, under `title`.

    A filter several resources have is one flag; its choices are shown when they agree, and
    each resource's values are listed in its help when they do not.
    """
    group = parser.add_argument_group(title, DESCRIPTION)
    having: dict[str, dict[str, Filter]] = {}
    for resource in resources:
        for name, spec in resource.filters.items():
            having.setdefault(name, {})[resource.segment] = spec
    for name, specs in having.items():
        first = next(iter(specs.values()))
        values = {segment: filter_choices(spec) for segment, spec in specs.items()}
        agreed = len(set(values.values())) == 1
        choices = first_choices = values[next(iter(values))]
        said = f"only records with this {first.wire_name}{_NOTES.get(first.kind, '')}"
        if not agreed:  # one flag, several enums: each resource's values
            choices = None
            said = "; ".join(f"{segment}: {', '.join(v or ())}" for segment, v in values.items())
        elif len(resources) > 1:
            said = f"{', '.join(specs)}: {said}"
        metavar = "ID" if name.endswith("_id") else _METAVARS.get(first.kind, name.upper())
        group.add_argument(
            filter_flag(name),
            action=_FilterFlag,
            dest=FILTER_FLAGS,
            const=name,
            default=[],
            choices=choices,
            type=_checked(first) if agreed and first_choices is None else str,
            metavar=None if choices is not None else metavar,
            help=f"{said} (default: any)",
        )

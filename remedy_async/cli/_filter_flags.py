"""The published server-side filters as flags (`--os-family macos --has-agent true`),
generated from `Resource.filters`, their values shown in `--help` as the flag's choices.

Only endpoints have published filters: `--os-family {macos,windows,linux}` and `--has-agent
{true,false}`, one value each. `list RESOURCE` takes its resource's filters (the help of the
others says none are published, and how to send the service's own with `--param`); `export`
and `watch` take every resource's, each of which must be a filter of every collection exported
(checked by `resource_filters`). A flag's value goes, as a (keyword name, value) pair, to
`FILTER_FLAGS`.
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
DESCRIPTION: Final = (
    "Published filters, sent to the service, which keeps the records that match; each takes "
    "one value."
)
NONE_PUBLISHED: Final = (
    "The service publishes no filters for {segments} (only endpoints have any: --os-family, "
    "--has-agent); send a query parameter it has and does not publish as is with --param "
    "KEY=VALUE (it ignores one it does not know), or filter here with --where."
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
    having: dict[str, dict[str, Filter]] = {}
    for resource in resources:
        for name, spec in resource.filters.items():
            having.setdefault(name, {})[resource.segment] = spec
    parser.set_defaults(**{FILTER_FLAGS: []})  # none given, or none published
    bare = [resource.segment for resource in resources if not resource.filters]
    said_none = NONE_PUBLISHED.format(segments=", ".join(bare)) if bare else ""
    group = parser.add_argument_group(title, f"{DESCRIPTION} {said_none}" if having else said_none)
    for name, specs in having.items():
        first = next(iter(specs.values()))
        values = {segment: filter_choices(spec) for segment, spec in specs.items()}
        agreed = len(set(values.values())) == 1
        choices = first_choices = values[next(iter(values))]
        said = f"only records matching {first.wire_name}=VALUE"
        if not agreed:  # one flag, several enums: each resource's values
            choices = None
            said = "; ".join(f"{segment}: {', '.join(v or ())}" for segment, v in values.items())
        elif len(resources) > 1:
            said = f"{', '.join(specs)}: {said}"
        metavar = "ID" if name.endswith("_id") else name.upper()
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

"""The command line's server-side filters: reads its resource names and its filters,
`--filter k=v` and the filter flags (`--os-family macos`), and checks them against the published
filters before any request; the flags themselves are generated here from `Resource.filters`,
their values shown in `--help` as the flag's choices (`add_filter_flags`).

The service publishes two list filters, both of endpoints: `osFamily` (`macos`, `windows`,
`linux`) and `hasAgent` (`true`, `false`), one value each. It publishes none for the other
collections, and it ignores a query parameter it does not know (a misspelt filter would list
everything), so any other filter is refused here; `--param KEY=VALUE` sends a parameter the
service has and does not publish, unchecked.

`list RESOURCE` takes its resource's filter flags (the help of the others says none are
published, and how to send the service's own with `--param`); `export` and `watch` take every
resource's, each of which must be a filter of every collection exported (checked by
`resource_filters`). A flag's value goes, as a (keyword name, value) pair, to `FILTER_FLAGS`.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from remedy_async import RESOURCES

from ._errors import UsageError

if TYPE_CHECKING:
    from remedy_async import Filter, Resource


@functools.cache
def list_keywords() -> frozenset[str]:
    """Keyword arguments of `list()` itself, which a filter must not be mistaken for.

    Read from `ResourceCollection.list` when a filter is first parsed, so a command line with
    no filter (`--help` among them) does not import the collections."""
    from remedy_async import ResourceCollection  # noqa: PLC0415 - see the docstring

    return frozenset(
        name
        for name, parameter in inspect.signature(ResourceCollection.list).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    )


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
    if key in list_keywords():
        raise ValueError(f"filter {key!r} is an option of its own, not a filter")
    return key, value


def group_filters(pairs: Iterable[tuple[str, str]]) -> dict[str, str | list[str]]:
    """Group query parameters by key: one value stays a string, a repeated key gives a list
    of values, sent as the key repeated (`--param tag=a --param tag=b`: `tag=a&tag=b`).
    """
    grouped: dict[str, list[str]] = {}
    for key, value in pairs:
        grouped.setdefault(key, []).append(value)
    return {key: values[0] if len(values) == 1 else values for key, values in grouped.items()}


BOOLEANS: Final = ("true", "false")


def filter_flag(name: str) -> str:
    """The flag of a filter keyword: `os_family` -> `--os-family`."""
    return "--" + name.replace("_", "-")


def filter_choices(spec: Filter) -> tuple[str, ...] | None:
    """The values a filter takes when they are few (an enum's, or true and false)."""
    if spec.choices is not None:
        return spec.choices
    return BOOLEANS if spec.kind == "boolean" else None


def value_problem(spec: Filter, value: str) -> str | None:
    """What is wrong with `value` for the filter, as the end of a sentence; None if nothing."""
    choices = filter_choices(spec)
    if choices is not None and value not in choices:
        return f"is one of {', '.join(choices)}"
    return None


def no_filters(resource: Resource[Any]) -> str:
    """What to say of a resource without published filters: how to send the service's own."""
    return (
        f"the service publishes no filters for {resource.segment} (only endpoints have any: "
        "osFamily and hasAgent); send a query parameter the service has and does not "
        "publish as is with --param KEY=VALUE"
    )


def _named(resource: Resource[Any], key: str) -> str:
    """The keyword name of a `--filter` key spelt as on the wire, in snake_case or kebab-case."""
    by_spelling = {
        spelling: name
        for name, spec in resource.filters.items()
        for spelling in (name, spec.wire_name, name.replace("_", "-"))
    }
    name = by_spelling.get(key)
    if name is None and not by_spelling:
        raise UsageError(f"--filter {key}: {no_filters(resource)}")
    if name is None:
        close = difflib.get_close_matches(key, list(by_spelling), n=2)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        known = ", ".join(spec.wire_name for spec in resource.filters.values())
        raise UsageError(
            f"--filter {key}: {resource.segment} has no such filter{hint}; its published "
            f"filters are {known} (the service ignores a parameter it does not know); send "
            f"another query parameter as is with --param {key}=VALUE"
        )
    return name


def _flag_named(resource: Resource[Any], name: str, command: str) -> str:
    """`name` when the resource has that filter; a usage error naming the flag and the
    resources that have it otherwise (`export` offers the filters of every resource, so its
    error says how to export only those)."""
    if name in resource.filters:
        return name
    flag = filter_flag(name)
    having = [each.segment for each in RESOURCES if name in each.filters]
    published = (
        f"its published filters are {', '.join(map(filter_flag, resource.filters))}"
        if resource.filters
        else no_filters(resource)
    )
    hint = (
        f"; name the collections to export, e.g. export {having[0]} {flag} VALUE"
        if command == "export"
        else ""
    )
    raise UsageError(
        f"{flag}: {resource.segment} has no such filter (it is a filter of "
        f"{', '.join(having)}; {published}){hint}"
    )


def resource_filters(
    resource: Resource[Any],
    pairs: Iterable[tuple[str, str]],
    flags: Iterable[tuple[str, str]] = (),
    command: str = "list",
) -> dict[str, str | list[str]]:
    """The filters as the resource's filter keywords, grouped (see `filter_pairs`)."""
    return group_filters(filter_pairs(resource, pairs, flags, command))


def filter_pairs(
    resource: Resource[Any],
    pairs: Iterable[tuple[str, str]],
    flags: Iterable[tuple[str, str]] = (),
    command: str = "list",
) -> list[tuple[str, str]]:
    """The filters as (keyword name, value): `--filter` pairs (a key spelt as on the wire,
    `osFamily`, or in snake_case), then the filter flags' (keyword name, value) pairs, for
    `command` (its errors' advice).

    An unknown key, a value the contract does not allow or a filter given twice (each takes
    one value) is a usage error naming the flag.
    """
    named = [(_named(resource, key), value, f"--filter {key}={value}") for key, value in pairs]
    for name, value in flags:
        named.append((_flag_named(resource, name, command), value, f"{filter_flag(name)} {value}"))
    given: dict[str, str] = {}
    for name, value, typed in named:
        if name in given:
            raise UsageError(
                f"{typed}: {filter_flag(name)} was given already ({given[name]}); the "
                f"service reads one value of {resource.filters[name].wire_name}"
            )
        given[name] = typed
        spec = resource.filters[name]
        problem = value_problem(spec, value)
        if problem is not None:
            raise UsageError(
                f"{typed}: {resource.segment} {spec.wire_name} {problem}; send another value as "
                f"is with --param {spec.wire_name}={value}"
            )
    return [(name, value) for name, value, _ in named]


# The filter flags ------------------------------------------------------------------------------

FILTER_FLAGS: Final = "filter_flags"
"""The options' attribute holding the filter flags given, as (keyword name, value) pairs."""
DESCRIPTION: Final = (
    "Published filters, sent to the service, which keeps the records that match; each takes "
    "one value."
)
NONE_PUBLISHED: Final = (
    "The service publishes no filters for {segments} (only endpoints have any: --os-family, "
    "--has-agent); send a query parameter it has and does not publish as is with --param "
    "KEY=VALUE (it ignores one it does not know){here}."
)
WHERE_TOO: Final = ", or filter here with --where"
"""How a command that takes `--where` ends `NONE_PUBLISHED`."""


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
    parser: argparse.ArgumentParser,
    resources: Sequence[Resource[Any]],
    title: str,
    *,
    where: bool = True,
) -> None:
    """Add the filters of `resources` to `parser` as flags, one per keyword name, under `title`
    (whose description offers `--where` only when the command takes it: `where`).

    A filter several resources have is one flag; its choices are shown when they agree, and
    each resource's values are listed in its help when they do not.
    """
    having: dict[str, dict[str, Filter]] = {}
    for resource in resources:
        for name, spec in resource.filters.items():
            having.setdefault(name, {})[resource.segment] = spec
    parser.set_defaults(**{FILTER_FLAGS: []})  # none given, or none published
    bare = [resource.segment for resource in resources if not resource.filters]
    here = WHERE_TOO if where else ""
    said_none = NONE_PUBLISHED.format(segments=", ".join(bare), here=here) if bare else ""
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

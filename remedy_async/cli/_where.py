"""`--where 'severity in (critical,high)' --where 'cvss_score>=7'`: client-side record filters.

A condition is `PATH OP VALUE`: PATH a dotted path into the wire record
(`operating_system.family`), OP one of `= != < <= > >=`, or `in (A,B)` / `not in (A,B)`. PATH
is a published field of the collection's records, checked level by level before any request,
or a field the model keeps in `extra` (`severity` of a finding), checked against the first
records listed (`extra.NAME` skips that check; see `_fields`). Values compare as the record's
value does: numbers as numbers, booleans as `true`/`false`, `null` as a missing or null value,
anything else as text (ISO timestamps order correctly as text). Parsed by a regular
expression, never `eval`. Several `--where` must all hold.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from ._errors import UsageError
from ._fields import check_path, value_at
from ._formats import WireRecord

if TYPE_CHECKING:
    from remedy_async import Resource

_CONDITION = re.compile(
    r"^\s*(?P<path>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*"
    r"(?:(?P<op>!=|<=|>=|=|<|>)\s*(?P<value>(?![<>=!]).*?)"
    r"|(?P<negate>not\s+)?in\s*\((?P<choices>.*)\))\s*$",
    re.IGNORECASE,
)
_ORDERS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@frozen
class Condition:
    """One `--where` condition on a record."""

    path: str
    op: str
    values: tuple[str, ...]

    @property
    def text(self) -> str:
        """The condition as `--where` takes it, spelt one way (`cvss_score>=7`, `a in (x,y)`)."""
        if self.op in ("in", "not in"):
            return f"{self.path} {self.op} ({','.join(self.values)})"
        return f"{self.path}{self.op}{self.values[0]}"

    def holds(self, record: WireRecord) -> bool:
        """Whether the record meets the condition (an order against a missing value does not)."""
        actual = value_at(record, self.path)
        if self.op in ("=", "in"):
            return any(_equal(actual, value) for value in self.values)
        if self.op in ("!=", "not in"):
            return not any(_equal(actual, value) for value in self.values)
        expected = _like(actual, self.values[0])
        if actual is None or expected is None or isinstance(actual, bool):
            return False
        try:
            return _ORDERS[self.op](actual, expected)
        except TypeError:  # a number against text: no order between them
            return False


def parse_where(text: str) -> Condition:
    """Read one `--where` condition; a malformed one is a usage error showing the forms."""
    found = _CONDITION.match(text)
    if found is None:
        raise UsageError(
            f"--where {text!r}: write PATH OP VALUE (OP one of = != < <= > >=) or "
            "PATH in (A,B) / PATH not in (A,B), e.g. --where 'cvss_score>=7'"
        )
    if found["choices"] is not None:
        values = tuple(part.strip() for part in found["choices"].split(",") if part.strip())
        if not values:
            raise UsageError(f"--where {text!r}: the list in parentheses is empty")
        op = "not in" if found["negate"] else "in"
        return Condition(found["path"], op, values)
    return Condition(found["path"], found["op"], (found["value"].strip(),))


def where_paths(conditions: Sequence[Condition]) -> list[tuple[str, str]]:
    """Each condition's path, with the flag as typed (for `SeenCheck`'s messages)."""
    return [(condition.path, f"--where {condition.text}") for condition in conditions]


def check_conditions(resource: Resource[Any], conditions: Sequence[Condition]) -> None:
    """Check each condition's path against the resource's model before any request: a typo of
    a published field is a usage error naming it (fields kept in `extra` are checked against
    the records, by `SeenCheck`)."""
    for path, given in where_paths(conditions):
        check_path(resource, path, given)


def keep(records: Sequence[WireRecord], conditions: Sequence[Condition]) -> list[WireRecord]:
    """The records meeting every condition, in order."""
    return [record for record in records if all(c.holds(record) for c in conditions)]


def _like(actual: Any, text: str) -> Any:
    """`text` as a value of the kind `actual` is, or None when it cannot be one."""
    if text.lower() == "null":
        return None
    if isinstance(actual, bool):
        return {"true": True, "false": False}.get(text.lower())
    if isinstance(actual, int | float):
        try:
            return float(text)
        except ValueError:
            return None
    return text


def _equal(actual: Any, text: str) -> bool:
    if text.lower() == "null":
        return actual is None
    if actual is None:
        return False
    expected = _like(actual, text)
    return expected is not None and actual == expected

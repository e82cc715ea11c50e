"""`--where 'severity in (critical,high)' --where 'cvss_score>=7'`: client-side record filters.

A condition is `PATH OP VALUE`: PATH a dotted path into the wire record
(`operating_system.family`), OP one of `= != < <= > >=`, or `in (A,B)` / `not in (A,B)`; a
path holding a list meets it when one of its items does (`!=` and `not in`: when none does). PATH
is a published field of the collection's records, checked level by level before any request,
or a field the model keeps in `extra` (`severity` of a finding), checked against the first
records listed (`extra.NAME` skips that check; see `_fields`). Values compare as the record's
value does: numbers as numbers, booleans as `true`/`false`, `null` as a missing or null value,
anything else as text (ISO timestamps order correctly as text). Parsed by a regular
expression, never `eval`. Several `--where` must all hold.
"""

from __future__ import annotations

import difflib
import enum
import operator
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs
from attrs import frozen

from ._errors import UsageError
from ._fields import check_path, published_enum, value_at
from ._formats import WireRecord, json_bytes

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
        """Whether the record meets the condition (an order against a missing value does not);
        a list meets `=`, `in` or an order when one of its items does, `!=` and `not in` when
        none does."""
        actual = value_at(record, self.path)
        items = actual if isinstance(actual, list) else (actual,)
        if self.op in ("=", "in", "!=", "not in"):
            met = any(_equal(item, value) for item in items for value in self.values)
            return met if self.op in ("=", "in") else not met
        return any(self._ordered(item) for item in items)

    def _ordered(self, actual: Any) -> bool:
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


def check_conditions(resource: Resource[Any], conditions: Sequence[Condition]) -> list[Condition]:
    """Check each condition against the resource's model before any request, returning the
    conditions to apply: a typo of a published field is a usage error naming it (fields kept
    in `extra` are checked against the records, by `SeenCheck`), and so is a value a
    published enum does not have (`operating_system.family=mac`), listing its values; a value
    it has in another case (`MACOS`) is taken as the published one (`macos`), the way the
    service spells it in every record."""
    checked: list[Condition] = []
    for condition in conditions:
        given = f"--where {condition.text}"
        check_path(resource, condition.path, given)
        values = published_enum(resource, condition.path)
        if values is None:
            checked.append(condition)
            continue
        named = tuple(_member(values, value, condition.path, given) for value in condition.values)
        checked.append(attrs.evolve(condition, values=named))
    return checked


def _member(values: type[enum.Enum], text: str, path: str, given: str) -> str:
    """The published value `text` names, in any case; `null` as it is; a usage error listing
    the values for any other."""
    published = [str(member.value) for member in values]
    if text.lower() == "null":
        return text
    for value in published:
        if value.lower() == text.lower():
            return value
    prefixed = [value for value in published if text and value.startswith(text.lower())]
    close = prefixed or difflib.get_close_matches(text.lower(), published, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise UsageError(
        f"{given}: {path} is one of {', '.join(published)} (in any case), not {text!r}{hint}"
    )


UNMET_SHOWN: Final = 5
"""How many of the values the first records hold an unmet condition's note shows."""


class FirstPageNote:
    """Says once, on the first records that arrive, which `=` and `in` conditions none of them
    meets, and the values they hold there: a value spelt otherwise than the service spells
    it (`windows 11` for `Windows 11`) then says so at once instead of a silent empty list.
    It is a note, not an error: a rare value may well be met further on.

    Args:
        segment: The records' collection, for the note.
        conditions: The conditions applied.
        note: Where the note goes (stderr, unless `--quiet`).
    """

    def __init__(
        self, segment: str, conditions: Sequence[Condition], note: Callable[[str], None]
    ) -> None:
        self._segment = segment
        self._pending = [c for c in conditions if c.op in ("=", "in")]
        self._note = note

    def check(self, records: Sequence[WireRecord]) -> None:
        """Note each pending condition none of the records meets (then none are pending)."""
        if not self._pending or not records:
            return
        pending, self._pending = self._pending, []
        for condition in pending:
            if any(condition.holds(record) for record in records):
                continue
            held = dict.fromkeys(_shown(value_at(record, condition.path)) for record in records)
            shown = ", ".join(list(held)[:UNMET_SHOWN])
            if len(held) > UNMET_SHOWN:
                shown += ", ..."
            self._note(
                f"--where {condition.text}: none of the first {len(records):,} "
                f"{self._segment} records meets it (they hold {condition.path}: {shown}); "
                "going on with the rest of the list"
            )


def _shown(value: Any) -> str:
    """A value as a note shows it: text as it is, anything else as JSON (`null`, `true`)."""
    return value if isinstance(value, str) else json_bytes(value).decode()


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

"""What an unknown option most likely meant: the flag another CLI spells that way, a field of
the records given as a flag, or the closest option of the command.

People bring their tools' habits: gh's `--limit` and `--json`, az's `--max-results`, gh's `--jq`,
aws's `--next-token`, and filters written as `--severity high`. An unknown option is always
refused (a usage error, exit 2), and its message says what this command calls it, in that
order of preference:

1. another CLI's flag (`HABITS`), when the command has the option it maps to: `--limit` is
   `--max-items N`, `--json` is `-o json`;
2. the closest option of the command, when it is a prefix of the option (`--tok` is
   `--token`) or spelt within a letter or two of it (`CLOSE`: `--max-item`, `--retry`);
3. on a command that takes `--where`, a field of the records given as a flag: `--severity
   high` is `--where 'severity=high'`, `--family macos` is `--where
   'operating_system.family=macos'` (a published field's whole path);
4. on `watch`, which has no `--where`, how to filter its lines instead.
"""

from __future__ import annotations

import argparse
import difflib
import shlex
from typing import Any, Final

from attrs import frozen

CLOSE: Final = 0.7
"""How alike (difflib's ratio of the whole flags) an unknown option and an option must be for
the option to be suggested: `--retry` and `--retries` are 0.75, `--limit` and `--timeout` 0.62."""


@frozen
class Habit:
    """Another CLI's flag: the option of this command it maps to, and how to say it."""

    needs: str
    """The option the command must have for the hint to apply."""
    say: str
    """The suggestion, with `{value}` for the value given after the flag (or `placeholder`)."""
    why: str = ""
    """What the flag is elsewhere, said after the suggestion."""
    placeholder: str = "N"
    """What stands for the value when none was given."""
    choice: str | None = None
    """The value of `needs` the suggestion gives (a format), which the command must take too."""
    question: bool = True
    """Whether `say` is a suggestion (`did you mean ...?`) rather than advice of its own."""


_MAX_ITEMS = "--max-items {value}"
HABITS: Final[dict[str, tuple[Habit, ...]]] = {
    "--limit": (Habit("--max-items", _MAX_ITEMS, "gh's --limit"),),
    "--max-results": (Habit("--max-items", _MAX_ITEMS, "az's and gcloud's --max-results"),),
    "--top": (Habit("--max-items", _MAX_ITEMS),),
    "--first": (Habit("--max-items", _MAX_ITEMS),),
    "--json": (
        Habit(
            "--output", "-o json", "gh's --json FIELDS is -o json --fields FIELDS", choice="json"
        ),
        Habit("--output", "-o jsonl", choice="jsonl"),
    ),
    "--jsonl": (Habit("--output", "-o jsonl", choice="jsonl"),),
    "--ndjson": (Habit("--output", "-o jsonl", choice="jsonl"),),
    "--csv": (Habit("--output", "-o csv", choice="csv"),),
    "--table": (Habit("--output", "-o table", choice="table"),),
    "--parquet": (Habit("--output", "-o parquet", choice="parquet"),),
    "--jq": (Habit("--query", "--query EXPR", "a JMESPath expression, as aws's --query takes"),),
    "--next-token": (
        Habit("--starting-token", "--starting-token {value}", "aws's --next-token", "TOKEN"),
    ),
    "--cursor": (Habit("--starting-token", "--starting-token {value}", placeholder="TOKEN"),),
    "--per-page": (Habit("--page-size", "--page-size {value}"),),
    "--output-file": (Habit("--out-file", "--out-file {value}", placeholder="FILE"),),
    "--outfile": (Habit("--out-file", "--out-file {value}", placeholder="FILE"),),
    "--out": (
        Habit("--out-file", "--out-file {value}", "export's --out names a directory", "FILE"),
    ),
    "--where": (
        Habit(
            "--state",
            "watch takes no --where: it writes the changes of every record the filters "
            "select; keep some with jq, e.g. | jq -c 'select(.record.status == \"active\")'",
            question=False,
        ),
    ),
}
"""Other CLIs' flags, each mapped to what this command calls it, the first that applies
(`--where` on `watch`, which writes changes rather than records, says how to filter its lines)."""


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return parser._option_string_actions


def _takes(parser: argparse.ArgumentParser, habit: Habit) -> bool:
    """Whether the command has the option a habit maps to (and takes its value, if one)."""
    action = _options(parser).get(habit.needs)
    if action is None:
        return False
    return habit.choice is None or habit.choice in (action.choices or ())


def _field_path(parser: argparse.ArgumentParser, name: str) -> str | None:
    """The records' field a flag names (`--cve-id`: `cve_id`; `--family`: the published
    `operating_system.family`), on a command taking `--where`; None on another command, or for
    a name that is no field of a collection whose fields are all published."""
    if "--where" not in _options(parser):
        return None
    field = name.replace("-", "_")
    resource: Any = parser.get_default("resource")
    if resource is None:  # export: any collection
        return field
    paths = [path for path in resource.field_paths if path.split(".")[-1] == field]
    if paths:
        return str(paths[0])
    return None if set(resource.wire_fields) - EVERY_RECORDS else field


EVERY_RECORDS: Final = frozenset({"id", "created_at", "updated_at"})
"""The fields the published pattern gives every record: a collection whose model types no
other has an unpublished schema (targets, findings), so any name may be one of its fields."""


def hint(parser: argparse.ArgumentParser, flag: str, value: str | None) -> str | None:
    """What the unknown option `flag` (given `value`, if any) most likely meant on the command
    of `parser`: `did you mean ...?`, or advice of its own; None when nothing is close."""
    for habit in HABITS.get(flag, ()):
        if _takes(parser, habit):
            said = habit.say.format(value=shlex.quote(value) if value else habit.placeholder)
            if not habit.question:
                return said
            return f"did you mean {said}?" + (f" {habit.why}" if habit.why else "")
    known = [option for option in _options(parser) if option.startswith("--")]
    prefixed = [option for option in known if option.startswith(flag)]
    close = prefixed[:1] or difflib.get_close_matches(flag, known, n=1, cutoff=CLOSE)
    if close:
        return f"did you mean {close[0]}?"
    path = None if flag in HABITS else _field_path(parser, flag.removeprefix("--"))
    if path is not None:
        where = shlex.quote(f"{path}={value or 'VALUE'}")
        return f"did you mean --where {where}? a field of the records, checked here"
    return None

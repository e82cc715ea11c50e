"""`--query EXPR`: a JMESPath expression, the language of aws's `--query`, applied to each record.

`list`, `get` and `export` apply it to each record in wire form (the dict `to_wire` makes, in
the contract's snake_case) after `--where` has kept it, and write what it gives in the chosen
format: `--query hostname` writes one JSON string a line, `--query '{id: id, os:
operating_system.family}'` one object a line. aws applies its query to the whole output; a list
here streams, so the query shapes one record at a time (to keep records, use `--where`).

- A record whose result is null is written as `null` (an empty cell in CSV and tables), never
  skipped: one output per record, so counts and `--max-items` hold. When every record of the
  first batch gives null, a note on stderr says so (a misspelt name, or an expression written
  for a whole list, such as `[?severity=='high']`, gives null on one record).
- CSV and tables get one column per key of a `{...}` the expression ends with (the keys as
  written, known before any request, so the header does not depend on the data); any other
  expression is one column, named by the expression.
- `--query` and `--fields` both choose what to write: only one is taken.
- An expression that does not parse, or calls a function JMESPath lacks or with the wrong
  number of arguments, is a usage error (exit 2) before any request, with the parser's message.
  A function given a value of the wrong type (`abs(hostname)`) stops the command with a usage
  error when a record shows it.

Numbers stay exact: JMESPath works on the Python values `to_wire` makes (integers of any
size stay ints) and the formats write them exactly. The `jmespath` package is the reference
implementation aws uses (the `cli` extra), imported only when a command is given a query.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from attrs import field, frozen

from ._errors import UsageError

if TYPE_CHECKING:
    from jmespath.parser import ParsedResult

INSTALL_HINT: Final = (
    "--query needs jmespath; install the command-line extra: pip install 'remedy-async[cli]'"
)
Node = Mapping[str, Any]
"""A node of the parsed expression, as jmespath's parser gives it (`type`, `children`, `value`)."""


def _nodes(node: Node) -> Iterator[Node]:
    yield node
    for child in node.get("children", ()):
        if isinstance(child, Mapping):
            yield from _nodes(child)


def _check_functions(parsed: Node) -> None:
    """Raise jmespath's own error for a call of a function it lacks, or with the wrong number
    of arguments: what it would raise on the first record, known without one."""
    from jmespath import exceptions, functions  # noqa: PLC0415 - see the module's doc

    table: Mapping[str, Any] = functions.Functions().FUNCTION_TABLE
    for node in _nodes(parsed):
        if node["type"] != "function_expression":
            continue
        name, given = node["value"], len(node["children"])
        if name not in table:
            raise exceptions.UnknownFunctionError(f"Unknown function: {name}()")
        signature = table[name]["signature"]
        variadic = bool(signature) and bool(signature[-1].get("variadic"))
        if variadic and given < len(signature):
            raise exceptions.VariadictArityError(len(signature), given, name)
        if not variadic and given != len(signature):
            raise exceptions.ArityError(len(signature), given, name)


def _columns(text: str, parsed: Node) -> tuple[str, ...]:
    """The CSV and table columns of an expression: the keys of the `{...}` it ends with, else
    the expression itself."""
    node = parsed
    while node["type"] in ("pipe", "subexpression"):
        node = node["children"][-1]
    if node["type"] == "multi_select_dict":
        return tuple(dict.fromkeys(str(pair["value"]) for pair in node["children"]))
    return (text,)


@frozen
class Query:
    """A `--query` expression, parsed: what it makes of each record, and its columns."""

    text: str
    """The expression as given."""
    columns: tuple[str, ...]
    """Its columns in CSV and tables: the keys of a `{...}` it ends with, else itself."""
    _parsed: ParsedResult = field(eq=False, repr=False, alias="parsed")

    def apply(self, records: Sequence[Mapping[str, Any]]) -> list[Any]:
        """Return the expression's value for each record, in order (None where it gives null).

        A function given a value of the wrong type is a usage error naming the expression.
        """
        from jmespath.exceptions import JMESPathError  # noqa: PLC0415 - loaded by parse_query

        search = self._parsed.search
        try:
            return [search(record) for record in records]
        except JMESPathError as error:
            raise UsageError(f"--query {self.text}: {error}") from None

    def rows(self, results: Sequence[Any]) -> list[dict[str, Any]]:
        """The results as rows keyed by `columns`, for CSV and tables: an object a `{...}`
        made as it is, any other value under the expression's one column (null: empty)."""
        if self.columns == (self.text,):
            return [{self.text: result} for result in results]
        return [result if isinstance(result, dict) else {} for result in results]


def parse_query(text: str) -> Query:
    """Read `--query`: a JMESPath expression, refused with the parser's message (ValueError)
    when it does not parse or calls a function wrongly; a usage error without jmespath."""
    try:
        import jmespath  # noqa: PLC0415 - only a command given a query pays for it
    except ImportError as error:
        if error.name != "jmespath":
            raise
        raise UsageError(INSTALL_HINT) from None
    parsed = jmespath.compile(text)  # a ParseError is a ValueError
    _check_functions(parsed.parsed)
    return Query(text, _columns(text, parsed.parsed), parsed=parsed)


def query_of(options: argparse.Namespace) -> Query | None:
    """The command's `--query`, if any; a usage error with `--fields`, which chooses what to
    write too (`--query '{id: id, host: hostname}'` does what `--fields id,hostname` does)."""
    query: Query | None = getattr(options, "query", None)
    if query is not None and getattr(options, "fields", None):
        raise UsageError(
            "--query and --fields both choose what to write; give one (--query "
            "'{id: id, host: hostname}' does what --fields id,hostname does)"
        )
    return query


def all_null_note(query: Query, count: int) -> str:
    """What to tell a user whose query gave null for each of the first `count` records."""
    return (
        f"--query {query.text} gave null for each of the first {count:,} records: it applies to "
        "each record (an object in snake_case, as --format jsonl writes it), not to the whole "
        "list as aws's --query does; check its names, and keep records with --where"
    )

"""What an unknown option most likely meant: another CLI's flag mapped to this one's, the closest
option, or a field of the records given as a flag; refused before any request, whatever it is."""

from __future__ import annotations

import pytest

from remedy_async.cli._errors import UsageError
from remedy_async.cli._parser import parse_command_line

from .conftest import Published


def refusal(*argv: str) -> str:
    """The usage error a command line gets while parsing."""
    with pytest.raises(UsageError) as refused:
        parse_command_line(argv)
    return str(refused.value)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["list", "endpoints", "--limit", "3"], "did you mean --max-items 3? gh's --limit"),
        (["list", "scopes", "--limit"], "did you mean --max-items N?"),
        (["list", "scopes", "--max-results", "9"], "did you mean --max-items 9?"),
        (["list", "endpoints", "--json"], "did you mean -o json?"),
        (["get", "scopes", "x", "--json", "id,name"], "-o json --fields FIELDS"),
        (["list", "scopes", "--csv"], "did you mean -o csv?"),
        (["export", "--out", "d", "--json"], "did you mean -o jsonl?"),
        (["list", "scopes", "--jq", ".id"], "did you mean --query EXPR?"),
        (["list", "scopes", "--next-token", "T"], "did you mean --starting-token T?"),
        (["list", "scopes", "--output-file", "a.jsonl"], "did you mean --out-file a.jsonl?"),
    ],
    ids=[
        "limit",
        "limit-alone",
        "max-results",
        "json",
        "gh-json-fields",
        "csv",
        "export-json",
        "jq",
        "next-token",
        "output-file",
    ],
)
def test_another_clis_flag_is_refused_naming_this_ones(argv: list[str], said: str) -> None:
    """gh's --limit, --json and --jq, az's --max-results, aws's --next-token: each refused with
    what this command calls it, with the value given."""
    message = refusal(*argv)
    assert "unrecognized arguments" in message
    assert said in message


@pytest.mark.parametrize(
    ("argv", "wrong"),
    [
        (["list", "endpoints", "--limit", "3"], "--timeout"),
        (["list", "endpoints", "--json"], "--token"),
        (["list", "vulnerability-findings", "--severity", "high"], "--progress-every"),
    ],
)
def test_a_far_option_is_never_suggested(argv: list[str], wrong: str) -> None:
    """The three suggestions the issue met (`--limit`: `--timeout`, `--json`: `--token`,
    `--severity`: `--progress-every`) are gone: an option only a few letters alike is not one."""
    assert wrong not in refusal(*argv)


def test_a_flag_without_its_option_here_gets_no_mapping() -> None:
    """`health --limit` is refused without pointing at a --max-items health does not have."""
    message = refusal("health", "--limit", "3")
    assert "unrecognized arguments: --limit 3" in message
    assert "--max-items" not in message


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["list", "vulnerability-findings", "--severity", "high"],
            "did you mean --where severity=high?",
        ),
        (["list", "remediation-targets", "--endpoint-id=e1"], "--where endpoint_id=e1?"),
        (["list", "endpoints", "--hostname", "web-1"], "did you mean --where hostname=web-1?"),
        (["list", "endpoints", "--vendor", "Apple"], "--where operating_system.vendor=Apple?"),
        (["list", "scopes", "--name", "a b"], "did you mean --where 'name=a b'?"),
        (["export", "--out", "d", "--severity", "high"], "did you mean --where severity=high?"),
    ],
    ids=["unpublished", "equals", "published", "nested", "quoted", "export"],
)
def test_a_field_given_as_a_flag_is_refused_naming_where(argv: list[str], said: str) -> None:
    """A field of the records written as a flag points at --where, with the published field's
    whole path and the value, quoted for the shell."""
    assert said in refusal(*argv)


def test_a_name_no_published_record_has_is_not_taken_for_a_field() -> None:
    """Endpoints' fields are all published: `--colour` is no field of theirs, so no --where."""
    assert "--where" not in refusal("list", "endpoints", "--colour", "red")


@pytest.mark.parametrize(
    ("argv", "suggested"),
    [
        (["list", "endpoints", "--tok", "X"], "--token"),
        (["list", "scopes", "--retry", "2"], "--retries"),
        (["list", "scopes", "--max-item", "3"], "--max-items"),
    ],
)
def test_a_prefix_or_a_typo_still_names_the_option(argv: list[str], suggested: str) -> None:
    """A prefix of an option, or a spelling within a letter or two, names that option."""
    assert f"(did you mean {suggested}?)" in refusal(*argv)


def test_watch_refuses_where_saying_how_to_filter_its_lines() -> None:
    """`watch --where` is refused with advice of its own (jq on its lines), not a suggestion."""
    message = refusal("watch", "endpoints", "--state", "s.db", "--where", "a=b")
    assert "watch takes no --where" in message
    assert "jq" in message
    assert "did you mean" not in message


async def test_a_mapped_flag_is_a_usage_error_before_any_request(published: Published) -> None:
    """Exit 2 with the hint on stderr, and nothing asked of the service."""
    outcome = await published.run("list", "endpoints", "--base-url", published.url, "--limit", "3")
    assert outcome.code == 2
    assert "did you mean --max-items 3?" in outcome.stderr
    assert published.requests == []

"""The command line's grammar: global options anywhere, defaults and environment variables in
every help, and each resource's filters as flags with their values."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from typing import Any

import pytest

from remedy_async import RESOURCES, Resource
from remedy_async.cli._errors import UsageError
from remedy_async.cli._parser import parse_command_line, whole_parser
from remedy_async.cli._server_filters import filter_choices, filter_flag
from remedy_async.cli._tree import is_shared
from remedy_async.simulator._arguments import command_line

ENVIRONMENT = {
    "config": "$REMEDY_CONFIG",
    "base_url": "$REMEDY_BASE_URL",
    "token": "$REMEDY_API_TOKEN",
    "auth_header": "$REMEDY_AUTH_HEADER",
}
"""The options that fall back to an environment variable, and the variable."""

GLOBAL = ("--base-url", "http://127.0.0.1:9", "--token", "t", "--retries", "0", "--debug")


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """The parser and every parser below it, each once."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in {id(child): child for child in action.choices.values()}.values():
                yield from parsers(child)


OPTIONS = [
    pytest.param(parser, action, id=f"{parser.prog} {action.option_strings[0]}")
    for parser in parsers(whole_parser())
    for action in parser._actions
    if action.option_strings
    and not isinstance(action, argparse._HelpAction | argparse._VersionAction)
]


def rendered_help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The action's help as --help shows it (with %(default)s and the like filled in)."""
    return " ".join(parser.formatter_class(prog=parser.prog)._expand_help(action).split())


@pytest.mark.parametrize(("parser", "action"), OPTIONS)
def test_every_option_states_its_default(
    parser: argparse.ArgumentParser, action: argparse.Action
) -> None:
    """The rule: an option that takes a value ends its help with `(default: ...)`, or says
    `(required)`; a flag (no value) is off unless given and says nothing, but a --x/--no-x pair
    says which it is by default."""
    text = rendered_help(parser, action)
    assert "SUPPRESS" not in text
    assert "(default: None)" not in text
    if action.required:
        assert "(required)" in text
    elif action.nargs != 0 or isinstance(action, argparse.BooleanOptionalAction):
        assert re.search(r"\(default: [^)]+\)", text), text


@pytest.mark.parametrize(
    ("parser", "action"),
    [
        pytest.param(parser, action, id=f"{parser.prog} {action.option_strings[0]}")
        for parser, action in (param.values for param in OPTIONS)
        if is_shared(action) and action.dest in ENVIRONMENT
    ],
)
def test_options_name_their_environment_variable(
    parser: argparse.ArgumentParser, action: argparse.Action
) -> None:
    """A connection option that falls back to a REMEDY_* variable names it in its help."""
    assert ENVIRONMENT[action.dest] in rendered_help(parser, action)


def test_every_environment_variable_is_named_somewhere() -> None:
    """Each variable the command reads is named by an option (the test above is not empty)."""
    named = {action.dest for _, action in (param.values for param in OPTIONS)}
    assert set(ENVIRONMENT) <= named


@pytest.mark.parametrize(
    "argv",
    [
        [*GLOBAL, "list", "endpoints", "--max-items", "3"],
        ["list", *GLOBAL, "endpoints", "--max-items", "3"],
        ["list", "endpoints", "--max-items", "3", *GLOBAL],
        [*GLOBAL[:2], "list", *GLOBAL[2:4], "endpoints", *GLOBAL[4:], "--max-items", "3"],
    ],
    ids=["before", "between", "after", "spread"],
)
def test_global_options_mean_the_same_before_or_after_the_command(argv: list[str]) -> None:
    """Connection options and --debug parse the same wherever they stand."""
    expected = vars(parse_command_line(["list", "endpoints", "--max-items", "3", *GLOBAL]))
    assert vars(parse_command_line(argv)) == expected


def test_unset_options_take_their_defaults() -> None:
    """Options given nowhere get the defaults the help states."""
    options = parse_command_line(["list", "endpoints"])
    assert (options.base_url, options.retries, options.debug) == (None, None, False)
    assert (options.profile, options.progress) == ("default", "auto")
    assert options.format is None  # chosen by where stdout goes: a table on a terminal
    assert (options.filter, options.where, options.filter_flags) == ([], [], [])
    assert options.concurrency == 1


def test_a_repeated_option_keeps_the_values_of_both_levels() -> None:
    """--where before and after the resource: every condition applies."""
    options = parse_command_line(["list", "--where", "a=1", "endpoints", "--where", "b=2"])
    assert [condition.text for condition in options.where] == ["a=1", "b=2"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--config", "x.toml", "demo"], "--config does not apply to remedy-async demo"),
        (["--base-url", "http://x", "serve"], "--base-url does not apply to remedy-async serve"),
        (["--token", "t", "serve"], "its own --token goes after 'serve'"),
        (["--debug", "completion", "bash"], "--debug does not apply"),
    ],
)
def test_a_global_option_the_command_does_not_take_is_a_usage_error(
    argv: list[str], message: str
) -> None:
    """Given before a command that lacks it, a global option is refused, naming the flag."""
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_command_line(argv)


def test_every_client_command_takes_config_and_profile() -> None:
    """Each command that talks to the service (it takes --base-url) takes --config and
    --profile too, probe among them."""
    clients = [p for p in parsers(whole_parser()) if "--base-url" in p._option_string_actions]
    assert "remedy-async probe" in [parser.prog for parser in clients]
    lacking = [
        parser.prog
        for parser in clients
        if not {"--config", "--profile"} <= set(parser._option_string_actions)
    ]
    assert lacking == []


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda resource: resource.segment)
def test_each_resource_lists_its_filters_and_their_values_in_help(resource: Resource[Any]) -> None:
    """`list RESOURCE --help` shows a flag per published filter, with its values as its
    choices; a resource without any says none are published and how to send a parameter."""
    prog = f"remedy-async list {resource.segment}"
    text = " ".join(
        next(p for p in parsers(whole_parser()) if p.prog == prog).format_help().split()
    )
    for name, spec in resource.filters.items():
        assert filter_flag(name) in text
        choices = filter_choices(spec)
        if choices is not None:
            assert "{" + ",".join(choices) + "}" in text
    if not resource.filters:
        assert f"The service publishes no filters for {resource.segment}" in text
        assert "--param KEY=VALUE" in text


def test_endpoints_take_the_published_filters_as_flags() -> None:
    """`--os-family` takes macos, windows or linux (not other), `--has-agent` true or false."""
    text = next(
        p for p in parsers(whole_parser()) if p.prog == "remedy-async list endpoints"
    ).format_help()
    assert "--os-family {macos,windows,linux}" in text
    assert "--has-agent {true,false}" in text
    options = parse_command_line(
        ["list", "endpoints", "--os-family", "linux", "--has-agent", "false"]
    )
    assert options.filter_flags == [("os_family", "linux"), ("has_agent", "false")]


def test_snake_case_names_the_same_resource() -> None:
    """`list remediation_targets` is `list remediation-targets`."""
    snake = parse_command_line(["list", "remediation_targets", "--param", "type=software"])
    assert snake.resource.segment == "remediation-targets"
    assert snake.param == [("type", "software")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["list", "devices"], "unknown resource 'devices'"),
        (["list", "scopes", "--os-family", "macos"], "unrecognized arguments: --os-family macos"),
        (["list", "vulnerability-findings", "--severity", "high"], "unrecognized arguments"),
        (["list", "endpoints", "--os-family", "other"], "argument --os-family: invalid choice"),
        (["list", "endpoints", "--has-agent", "yes"], "argument --has-agent: invalid choice"),
    ],
)
def test_a_bad_filter_flag_is_a_usage_error_naming_it(argv: list[str], message: str) -> None:
    """An unknown resource, a flag of another resource (or no published filter) and a value
    the filter does not take (`other` among them) are refused while parsing."""
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_command_line(argv)


def test_unrecognized_words_are_an_error_of_the_command_they_follow() -> None:
    """An option no parser took is reported by the chosen command, pointing at its --help."""
    with pytest.raises(UsageError) as refused:
        parse_command_line(["list", "scopes", "--os-family", "macos"])
    assert refused.value.command == "remedy-async list scopes"
    assert str(refused.value).endswith("(see remedy-async list scopes --help)")


def test_no_parser_expands_an_abbreviated_option() -> None:
    """Every parser of both command lines takes whole option names only (allow_abbrev off)."""
    everything = [*parsers(whole_parser()), *parsers(command_line())]
    assert len(everything) > 10
    assert [parser.prog for parser in everything if parser.allow_abbrev] == []


@pytest.mark.parametrize(
    ("argv", "flag", "suggested"),
    [
        (["--tok", "X", "list", "endpoints"], "--tok", "--token"),
        (["--to", "X", "health"], "--to", "--token"),
        (["list", "--tok", "X", "endpoints"], "--tok", "--token"),
        (["list", "endpoints", "--tok", "X"], "--tok", "--token"),
        (["--tok=X", "health"], "--tok=X", "--token"),
        (["export", "--ou", "backup"], "--ou", "--out"),
        (["list", "scopes", "--max-item", "3"], "--max-item", "--max-items"),
    ],
    ids=["global-first", "global-shortest", "between", "after", "equals", "export", "list"],
)
def test_a_prefix_of_an_option_is_refused_naming_the_option(
    argv: list[str], flag: str, suggested: str
) -> None:
    """An abbreviated option is unrecognized wherever it stands, with the closest whole name."""
    with pytest.raises(UsageError) as refused:
        parse_command_line(argv)
    assert f"unrecognized arguments: {flag}" in str(refused.value)
    assert f"(did you mean {suggested}?)" in str(refused.value)

"""The machinery of the command tree: usage errors instead of exits, options shared by a command
and the subcommands below it, and resource names as subcommands.

A shared option (`add_shared`) is accepted at every level of a branch: `remedy-async --base-url
URL list endpoints` and `remedy-async list endpoints --base-url URL` mean the same. Each level
adds it with `default=SUPPRESS`, so a level where it was not given leaves what another level
set; its real default waits on the action (`fallback`) until `settle` fills it in from the
parser the command line ended at. A shared option given before a subcommand that does not take
it is a usage error naming the flag, never silently dropped. A repeatable option given at two
levels keeps the values of both.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, NoReturn

from ._errors import UsageError
from ._habits import hint
from ._server_filters import resource_named

FALLBACK: Final = "fallback"
"""The attribute of a shared option's action holding its real default."""
_LEAF: Final = "_leaf_parser"
"""Where parsing leaves the parser the command line ended at, until `settle` takes it."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are raised (as UsageError) instead of exiting, whose
    subcommands carry the shared options (see the module's doc), and which takes whole option
    names only: `--tok` is not `--token` (a prefix would change meaning as options are added)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", Commands)
        self._deferred: list[Callable[[Parser], None]] = []

    def defer(self, fill: Callable[[Parser], None]) -> Parser:
        """Have `fill` add this (sub)command's options when it is chosen (or its whole tree
        is walked: `complete_tree`), so a command line that ends elsewhere does not pay for
        what they import."""
        self._deferred.append(fill)
        return self

    def complete(self) -> Parser:
        """Add the options `defer` put off, once; return the parser."""
        while self._deferred:
            self._deferred.pop(0)(self)
        return self

    def error(self, message: str) -> NoReturn:
        """Raise the usage error, naming this (sub)command and where to read its options."""
        raise UsageError(f"{message} (see {self.prog} --help)", command=self.prog)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if isinstance(action, Commands):
            value = action.canonical(value)
        super()._check_value(action, value)


def add_shared(
    add: Callable[..., argparse.Action], *flags: str, default: Any = None, **kwargs: Any
) -> argparse.Action:
    """Add an option that a parser and the subcommands below it all take (`add` is a parser's
    or group's `add_argument`); `default` applies when no level was given it."""
    action = add(*flags, default=argparse.SUPPRESS, **kwargs)
    vars(action)[FALLBACK] = default
    return action


def is_shared(action: argparse.Action) -> bool:
    """Whether the action is a shared option's (added by `add_shared`)."""
    return FALLBACK in vars(action)


def _shared_dests(parser: argparse.ArgumentParser) -> set[str]:
    return {action.dest for action in parser._actions if is_shared(action)}


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[Parser]
else:
    _SubParsers = argparse._SubParsersAction


class Commands(_SubParsers):
    """Subcommands that refuse a shared option they do not take, keep the values a repeatable
    option got before them, and note which parser the command line ended at."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(values, list)
        name = self.canonical(values[0])
        chosen = self._name_parser_map[name].complete()
        _refuse_what_it_lacks(parser, namespace, name, chosen)
        before = {key: value for key, value in vars(namespace).items() if isinstance(value, list)}
        super().__call__(parser, namespace, [name, *values[1:]], option_string)
        for key, earlier in before.items():
            later = getattr(namespace, key)
            if later is not earlier and isinstance(later, list):
                setattr(namespace, key, [*earlier, *later])
        if not hasattr(namespace, _LEAF):
            setattr(namespace, _LEAF, chosen)

    def canonical(self, name: str) -> str:
        """The subcommand's own name for `name` (the same, unless a subclass has spellings)."""
        return name


def _refuse_what_it_lacks(
    parser: argparse.ArgumentParser, namespace: argparse.Namespace, name: str, chosen: Parser
) -> None:
    takes = _shared_dests(chosen)
    for action in parser._actions:
        if is_shared(action) and hasattr(namespace, action.dest) and action.dest not in takes:
            flag = action.option_strings[0] if action.option_strings else action.dest
            hint = ""
            if flag in chosen._option_string_actions:
                hint = f"; its own {flag} goes after '{name}'"
            raise UsageError(f"{flag} does not apply to {chosen.prog}{hint}", command=parser.prog)


class Resources(Commands):
    """Subcommands named by resource: `remediation-targets`, or `remediation_targets`."""

    def canonical(self, name: str) -> str:
        """The subcommand's name for a resource name; an unknown one is a usage error."""
        if name in self._name_parser_map:
            return name
        try:
            return resource_named(name).segment
        except ValueError as error:
            raise argparse.ArgumentError(self, str(error)) from None


def chosen_parser(options: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser the command line ended at (before `settle`)."""
    leaf: argparse.ArgumentParser = getattr(options, _LEAF)
    return leaf


def settle(options: argparse.Namespace) -> argparse.Namespace:
    """Give the shared options nobody set their defaults, as the chosen command has them."""
    leaf: argparse.ArgumentParser | None = vars(options).pop(_LEAF, None)
    for action in leaf._actions if leaf is not None else ():
        if is_shared(action) and not hasattr(options, action.dest):
            setattr(options, action.dest, copy.copy(vars(action)[FALLBACK]))
    return options


def _subcommands(parser: argparse.ArgumentParser) -> Commands | None:
    return next((action for action in parser._actions if isinstance(action, Commands)), None)


def complete_tree(parser: Parser) -> Parser:
    """Complete `parser` and every (sub)command below it (`Parser.complete`): the whole
    grammar, for what walks it all (shell completion, the generated docs)."""
    parser.complete()
    commands = _subcommands(parser)
    for child in commands.choices.values() if commands is not None else ():
        complete_tree(child)
    return parser


def takes_positionals(parser: argparse.ArgumentParser) -> bool:
    """Whether the parser reads words without a flag (a subcommand's name, `export`'s
    resources), which the value of an unknown option before them would be taken for."""
    return any(not action.option_strings for action in parser._actions)


def _is_option(word: str) -> bool:
    """Whether argparse reads the word as an option (not a value such as `-` or `-1.5`)."""
    if not word.startswith("-") or word == "-":
        return False
    try:
        float(word)
    except ValueError:
        return True
    return False


def unknown_option(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> tuple[argparse.ArgumentParser, str] | None:
    """The first option in `argv` that the (sub)command it follows does not take, with that
    (sub)command's parser; None when every option is known to where it stands.

    Follows the words as argparse does: an option taking a value skips the next word, a word
    naming a subcommand moves down to it, and `--` ends the options."""
    words = iter(argv)
    for word in words:
        if word == "--":
            return None
        if _is_option(word):
            flag = word.split("=", 1)[0] if word.startswith("--") else word[:2]
            action = parser._option_string_actions.get(flag)
            if action is None:
                return parser, flag
            if action.nargs != 0 and "=" not in word and len(word) == len(flag):
                next(words, None)
            continue
        commands = _subcommands(parser)
        if commands is not None:
            try:
                name = commands.canonical(word)
            except argparse.ArgumentError:
                return None
            chosen = commands.choices.get(name)
            if chosen is None:
                return None
            parser = chosen.complete()
    return None


def unrecognized(parser: argparse.ArgumentParser, words: Sequence[str]) -> str:
    """argparse's `unrecognized arguments: ...`, with what each unknown option most likely
    meant on the command of `parser` (`_habits`: `--limit` -> `--max-items`, `--tok` ->
    `--token`, `--severity high` -> `--where 'severity=high'`)."""
    hints: list[str] = []
    for at, word in enumerate(words):
        flag, equals, value = word.partition("=")
        if not word.startswith("--") or flag in parser._option_string_actions:
            continue
        following = words[at + 1] if at + 1 < len(words) else None
        if not equals and following is not None and not _is_option(following):
            value = following
        found = hint(parser, flag, value or None)
        if found is not None:
            hints.append(found)
    said = f" ({'; '.join(dict.fromkeys(hints))})" if hints else ""
    return f"unrecognized arguments: {' '.join(words)}{said}"

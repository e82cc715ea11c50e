"""Exit statuses, and the one line that tells the user what went wrong.

The parser raises `UsageError`, so this module is part of every start; the library's errors
(and yarl and multidict with them) are imported only once there is an error to describe.
"""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
"""The service or the network failed, or a record was not found."""
EXIT_USAGE: Final = 2
"""The command line or the configuration cannot work."""
EXIT_PARTIAL: Final = 3
"""An export stopped (an error, or SIGTERM) with a checkpoint: `--resume` continues it."""
EXIT_TERMINATED: Final = 143
"""Ended by SIGTERM (128 + 15, as a shell reports it), when nothing could be resumed."""
EXIT_INTERRUPTED: Final = 130
"""Interrupted by Ctrl-C (SIGINT), as a shell reports it."""
EXIT_BROKEN_PIPE: Final = 141
"""The reader of stdout went away (as if killed by SIGPIPE, like other Unix tools)."""


class UsageError(Exception):
    """The command cannot run as given; exit status 2. `command` names the (sub)command."""

    def __init__(self, message: str, *, command: str = "remedy-async") -> None:
        super().__init__(message)
        self.command = command


ARGUMENT_FLAGS: Final = {
    "pass allow_insecure_http=True": "pass --allow-insecure-http",
    "pass base_url, e.g. RemedyClient('https://api.example.com'), or set": "pass --base-url or set",
    "pass token= instead": "pass --token or set REMEDY_API_TOKEN instead",
    "auth_header must": "--auth-header must",
    "auth_scheme must be one word such as 'Bearer', or None": (
        "--auth-scheme must be one word such as 'Bearer', or 'none'"
    ),
    "max_in_flight": "--max-in-flight",
    "rate_limit: ": "--rate: ",
    "use page_size instead": "use --page-size instead",
    "page_size must": "--page-size must",
    " (for a service that allows more, raise RemedyClient(max_page_size=...))": "",
    "pass it as token= (RemedyClient(token=...)), and a base URL, if any, first": (
        "set REMEDY_API_TOKEN to it (or pass --token)"
    ),
    "base_url looks like": "--base-url (or REMEDY_BASE_URL) looks like",
    "base_url must": "--base-url (or REMEDY_BASE_URL) must",
    "proxy looks like": "--proxy looks like",
    "the API token goes in token=, a proxy's credentials in proxy_auth=": (
        "the API token goes in REMEDY_API_TOKEN (or --token), a proxy's credentials in its URL "
        "(http://user:password@host:port)"
    ),
    "pass token=": "pass it with --token or REMEDY_API_TOKEN",
    "from the token= argument": "from --token or REMEDY_API_TOKEN",
    "none was given (token=) and REMEDY_API_TOKEN is not set": (
        "neither --token nor REMEDY_API_TOKEN was given"
    ),
    "token= was an empty string": "--token was empty",
}
"""The library's words for its arguments, and the flags a command-line user typed instead:
every piece of Python advice an error the command line reports may carry (`pass token=`,
`page_size must`), so that its advice is the command line's."""


def in_flags(text: str) -> str:
    """A library message with its arguments named by the flags the user typed instead."""
    for argument, flag in ARGUMENT_FLAGS.items():
        text = text.replace(argument, flag)
    return text


def exit_status(error: BaseException) -> int:
    """Return the exit status for an error that ended a command."""
    if isinstance(error, UsageError):
        return EXIT_USAGE
    from remedy_async import ConfigurationError  # noqa: PLC0415 - see the module's doc

    return EXIT_USAGE if isinstance(error, ConfigurationError) else EXIT_FAILURE


TOKEN_SENT: Final = "token_sent"
"""The options' attribute saying whether the command's client sends a token (set when the
client is made), which the message of a 401 tells apart."""
TOKEN_HINTS: Final = {
    False: "no token was sent: pass --token or set REMEDY_API_TOKEN (with --config, the "
    "profile's token_env names the variable holding it)",
    True: "the token sent was rejected: check the one given by --token, REMEDY_API_TOKEN or "
    "the --config profile's token_env, and --auth-header and --auth-scheme",
    None: "pass a token with --token or REMEDY_API_TOKEN (with --config, the profile's "
    "token_env names the variable holding it)",
}
"""What to do about a 401, by whether a token was sent (None: not known)."""


def describe(error: BaseException, *, token_sent: bool | None = None) -> str:
    """Return one line naming the error's type and saying what happened.

    Library errors carry the status, request id, method and URL in their text, never the
    token; the number of attempts is added when the call was retried, and a 401 says how to
    pass a token (`token_sent`: whether the client sent one).
    """
    if isinstance(error, UsageError):
        return str(error)
    from remedy_async import (  # noqa: PLC0415 - see the module's doc
        AuthenticationError,
        ConfigurationError,
        RemedyError,
    )

    text = " ".join(str(error).split()) or "no details"
    if isinstance(error, ConfigurationError | AuthenticationError):
        text = in_flags(text)
    line = f"{type(error).__name__}: {text}"
    attempts = error.attempts if isinstance(error, RemedyError) else None
    if attempts is not None and attempts > 1:
        line += f" [after {attempts} attempts]"
    if isinstance(error, AuthenticationError):
        line += f"; {TOKEN_HINTS[token_sent]}"
    return line

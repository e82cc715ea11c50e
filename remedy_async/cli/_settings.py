"""Builds the client from the connection options, then the environment.

The token is handed to the client and never printed: not in messages, errors, or --debug logs
(the library redacts the credential header and scrubs the token from echoed text).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence

from remedy_async import ClientEvent, RemedyClient, RetryPolicy

from ._errors import UsageError

BASE_URL_ENV = "REMEDY_BASE_URL"
TOKEN_ENV = "REMEDY_API_TOKEN"
"""The environment the library reads too (see RemedyClient), named here for messages."""

EventHook = Callable[[ClientEvent], None]


def open_client(
    options: argparse.Namespace, env: Mapping[str, str], event_hooks: Sequence[EventHook] = ()
) -> RemedyClient:
    """Return a client (not yet entered) configured by the options, else the environment."""
    base_url = options.base_url or env.get(BASE_URL_ENV)
    if not base_url:
        raise UsageError(f"no base URL: pass --base-url or set {BASE_URL_ENV}")
    token = options.token if options.token is not None else env.get(TOKEN_ENV)
    scheme = options.auth_scheme
    retry = RetryPolicy() if options.retries is None else RetryPolicy(attempts=options.retries + 1)
    timeout = {} if options.timeout is None else {"timeout": options.timeout}
    return RemedyClient(
        base_url,
        token=token or None,
        auth_header=options.auth_header,
        auth_scheme=None if scheme.lower() in {"", "none"} else scheme,
        **timeout,
        retry=retry,
        max_in_flight=options.max_in_flight,
        allow_insecure_http=options.allow_insecure_http,
        event_hooks=event_hooks,
    )

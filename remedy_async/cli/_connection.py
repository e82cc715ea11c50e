"""Builds the client from the connection options (`--base-url`, `--token`, `--config`, ...),
then the environment.

The token is handed to the client and never printed: not in messages, errors, or --debug logs
(the library redacts the credential header and scrubs the token from echoed text).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from remedy_async import ClientEvent, RemedyClient, RetryPolicy, Transport

from ._errors import TOKEN_SENT, UsageError
from ._options import (
    AUTH_HEADER_ENV,
    BASE_URL_ENV,
    CONFIG_ENV,
    NO_PROXY_WORDS,
    PROXY_ENV,
    TOKEN_ENV,
)

EventHook = Callable[[ClientEvent], None]


def open_client(
    options: argparse.Namespace,
    env: Mapping[str, str],
    event_hooks: Sequence[EventHook] = (),
    transport: Transport | None = None,
) -> RemedyClient:
    """Return a client (not yet entered) configured by the options, else `--config`, else the
    environment; notes on the options whether it sends a token (`TOKEN_SENT`).

    `transport` (the `Terminal`'s) sends every request instead of the network, so the proxy
    settings are left out: none of them applies to it."""
    config = config_file(options, env)
    routes = proxy_settings(options, env) if transport is None else {"transport": transport}
    if config is None:
        settings = client_settings(options, env)
        setattr(options, TOKEN_SENT, "token" in settings)
        return RemedyClient(**settings, **routes, event_hooks=event_hooks)
    # The file's settings stand for arguments, so only flags override them; the environment
    # fills what neither sets (REMEDY_AUTH_HEADER applies without a file only).
    given = client_settings(options, {})
    client = RemedyClient.from_config(
        config, profile=options.profile, environ=env, **given, **routes, event_hooks=event_hooks
    )
    sent = "token" in given or "token_env" in profile(config, options.profile)
    setattr(options, TOKEN_SENT, sent or bool(env.get(TOKEN_ENV)))
    return client


def config_file(options: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    """The configuration file of `--config`, else of `REMEDY_CONFIG`; None for neither."""
    return options.config or env.get(CONFIG_ENV) or None


def profile(config: str, name: str) -> dict[str, Any]:
    """A profile's settings as the file writes them (`token_env`, convention names): read once
    `RemedyClient.from_config` has checked the file, the profile and every setting."""
    import tomllib  # noqa: PLC0415 - only a command given a file pays for the TOML parser

    with open(config, "rb") as file:
        return dict(tomllib.load(file)[name])


def proxy_settings(options: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    """The client's proxy arguments: --proxy, else $REMEDY_PROXY, else the standard proxy
    variables (the client reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY itself, as gh does);
    `none` or `direct` ignores them all."""
    proxy = getattr(options, "proxy", None) or env.get(PROXY_ENV) or None
    if proxy is not None and proxy.strip().lower() in NO_PROXY_WORDS:
        return {"trust_env": False}
    return {"trust_env": True} if proxy is None else {"proxy": proxy, "trust_env": True}


def client_settings(options: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    """The client's arguments the options (else the environment `env`) set, and only those:
    with neither `--base-url` nor `REMEDY_BASE_URL`, the client's own default, the service."""
    if options.base_url == "":
        raise UsageError("--base-url is empty")
    settings: dict[str, Any] = {}
    base_url = options.base_url or env.get(BASE_URL_ENV)
    if base_url:
        settings["base_url"] = base_url
    token = options.token if options.token is not None else env.get(TOKEN_ENV)
    if token:
        settings["token"] = token
    auth_header = options.auth_header or env.get(AUTH_HEADER_ENV)
    if auth_header:
        settings["auth_header"] = auth_header
    scheme = options.auth_scheme
    if scheme is not None:
        settings["auth_scheme"] = None if scheme.lower() in {"", "none"} else scheme
    if options.retries is not None:
        settings["retry"] = RetryPolicy(attempts=options.retries + 1)
    if options.timeout is not None:
        settings["timeout"] = options.timeout
    if options.max_in_flight is not None:
        settings["max_in_flight"] = options.max_in_flight
    if getattr(options, "rate", None) is not None:
        settings["rate_limit"] = options.rate
    if options.allow_insecure_http:
        settings["allow_insecure_http"] = True
    return settings

"""Reads and writes client configuration files: TOML tables of settings, one per profile.

    [default]
    base_url = "https://api.furl.ai"
    naming = "snake"

    [default.paginators]
    endpoints = "cursor"

    [default.since_filters]  # the update-time filter a change feed narrows passes with
    remediation_targets = "updatedAt[gte]"

    [default.paginators.scopes]  # a composed convention: its fields
    name = "detected"
    follow = "token"
    items = [["values"]]
    next_at = ["paging", "next_cursor"]
    param = "cursor"

A profile's settings are `RemedyClient` arguments, checked by name and type with the file,
profile and key in every message. Tokens never go in a file: `token_env` names the environment
variable that holds one. `render_profiles` writes the same format (`remedy-async probe
--emit-config`), so a file read back gives the settings it was written from.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._errors import ConfigurationError
from ._paging._conventions import CONVENTIONS, convention_from
from ._paging._paginators._auto import AutoPaginator
from ._paging._protocol import Convention, Paginator
from ._redact import looks_like_token
from ._sending._credential import TokenFrom
from ._settings import BASE_URL_ENV, TOKEN_ENV, closest

DEFAULT_PROFILE = "default"
AUTO = "auto"
"""The paginator setting that detects each list's convention (the client's default)."""

_TYPES: Mapping[str, tuple[type, ...]] = {
    "base_url": (str,),
    "token_env": (str,),
    "auth_header": (str,),
    "auth_scheme": (str,),
    "timeout": (int, float),
    "max_in_flight": (int,),
    "rate_limit": (str,),
    "max_response_bytes": (int,),
    "follow_redirects": (bool,),
    "allow_insecure_http": (bool,),
    "proxy": (str,),
    "trust_env": (bool,),
    "health_path": (str,),
    "agent_configuration_path": (str,),
    "naming": (str,),
    "namings": (dict,),
    "paginator": (str, dict),
    "paginators": (dict,),
    "trusted_origins": (list,),
    "headers": (dict,),
    "since_filters": (dict,),
}
"""Every setting a profile may hold, and the TOML types it may have."""

_TOML_NAMES: Mapping[type, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}

_TABLES_OF_STRINGS = ("namings", "headers", "since_filters")


def client_settings(
    path: str | os.PathLike[str],
    profile: str,
    environ: Mapping[str, str] | None,
    overrides: Mapping[str, Any],
) -> dict[str, Any]:
    """`RemedyClient.from_config`'s arguments: the profile's settings under `overrides`, and
    the base URL and token from `environ` where neither sets them (None: the client reads the
    process's environment itself)."""
    settings = {**read_profile(path, profile, environ), **overrides}
    if environ is not None:
        for name, variable in (("base_url", BASE_URL_ENV), ("token", TOKEN_ENV)):
            if settings.get(name) is None and environ.get(variable):
                value = environ[variable]
                settings[name] = TokenFrom(value, variable) if name == "token" else value
    return settings


def read_profile(
    path: str | os.PathLike[str],
    profile: str = DEFAULT_PROFILE,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Return the `RemedyClient` keyword arguments that a profile of a configuration file sets.

    Raises ConfigurationError for a missing or unreadable file, a TOML syntax error, an unknown
    profile or setting (naming the closest known one), a value of the wrong type, or a token.
    """
    import tomllib  # noqa: PLC0415 - only a client made from a file pays for the TOML parser

    where = str(path)
    try:
        document = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigurationError(f"configuration file {where} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"cannot read configuration file {where}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{where} is not valid TOML: {error}") from None
    table = document.get(profile)
    if not isinstance(table, dict):
        known = sorted(name for name, value in document.items() if isinstance(value, dict))
        raise ConfigurationError(
            f"{where} has no profile [{profile}]{closest(profile, known)}; "
            f"its profiles are {', '.join(known) or 'none'}"
        )
    return _settings(table, f"{where} [{profile}]", os.environ if env is None else env)


def _settings(table: Mapping[str, Any], where: str, env: Mapping[str, str]) -> dict[str, Any]:
    if "token" in table:
        raise ConfigurationError(
            f"{where}: a token does not belong in a file; set token_env to the name of the "
            f"environment variable that holds it (or use {TOKEN_ENV})"
        )
    settings: dict[str, Any] = {}
    for key, value in table.items():
        types = _TYPES.get(key)
        if types is None:
            raise ConfigurationError(f"{where}: unknown setting {key!r}{closest(key, _TYPES)}")
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            wanted = " or ".join(_TOML_NAMES[kind] for kind in types)
            raise ConfigurationError(f"{where}: {key} must be {wanted}, got {_shown(value)}")
        if key in _TABLES_OF_STRINGS or key == "trusted_origins":
            _check_strings(value, f"{where}: {key}")
        settings[key] = value
    if "@" in settings.get("proxy", "").partition("://")[2].partition("/")[0]:
        raise ConfigurationError(
            f"{where}: proxy credentials do not belong in a file; put the proxy URL with them "
            "in HTTPS_PROXY (and set trust_env = true) or pass proxy_auth"
        )
    if "token_env" in settings:
        name = settings.pop("token_env")
        if not env.get(name):
            if not name.isupper() and looks_like_token(name):
                raise ConfigurationError(
                    f"{where}: token_env holds what looks like a token, not the name of the "
                    "environment variable holding it: put the token in a variable and name it"
                )
            raise ConfigurationError(f"{where}: token_env names {name}, which is not set")
        settings["token"] = TokenFrom(env[name], f"{name} (token_env of {where})")
    if settings.get("auth_scheme") in ("", "none"):
        settings["auth_scheme"] = None
    if "paginator" in settings:
        settings["paginator"] = paginator_named(settings["paginator"], f"{where}: paginator")
    if "paginators" in settings:
        settings["paginators"] = {
            collection: paginator_named(value, f"{where}: paginators.{collection}")
            for collection, value in settings["paginators"].items()
        }
    return settings


def _check_strings(value: Any, where: str) -> None:
    values = value.values() if isinstance(value, dict) else value
    for item in values:
        if not isinstance(item, str):
            raise ConfigurationError(f"{where} must hold strings, got {_shown(item)}")


def _shown(value: object) -> str:
    """A value of the wrong type as a message shows it: a number or boolean as it is, text or
    a list or table by its type alone (a secret may be in it)."""
    if isinstance(value, int | float):  # bool too
        return repr(value)
    return _TOML_NAMES.get(type(value), type(value).__name__)


def paginator_named(value: object, where: str) -> Paginator | Convention:
    """The paginator a setting stands for: `auto`, a preset of CONVENTIONS by name, or a
    composed convention given as a table of its fields."""
    if value == AUTO:
        return AutoPaginator()
    if isinstance(value, str) and value not in CONVENTIONS:
        raise ConfigurationError(
            f"{where}: {value!r} is not a paging convention{closest(value, CONVENTIONS)}; "
            f"use 'auto', one of {', '.join(CONVENTIONS)}, or a table of Convention fields"
        )
    try:
        return convention_from(value, where)
    except ValueError as error:
        raise ConfigurationError(str(error)) from None


def render_profiles(profiles: Mapping[str, Mapping[str, Any]], comment: str = "") -> str:
    """Write profiles of settings (str, bool, int, float, lists, tables of those) as TOML.

    `comment` lines head the file. Tables of a profile follow its plain settings, as TOML needs.
    """
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    for name, settings in profiles.items():
        lines += _table(_key(name), settings)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(header: str, settings: Mapping[str, Any]) -> list[str]:
    """A TOML table: its plain settings, then each sub-table (TOML needs them after)."""
    plain = {key: value for key, value in settings.items() if not isinstance(value, dict)}
    tables = {key: value for key, value in settings.items() if isinstance(value, dict)}
    lines = ["", f"[{header}]"]
    lines += [f"{_key(key)} = {_value(value)}" for key, value in plain.items()]
    for key, table in tables.items():
        lines += _table(f"{header}.{_key(key)}", table)
    return lines


def _key(name: str) -> str:
    bare = name.replace("_", "").replace("-", "").isalnum() and name.isascii()
    return name if bare else _string(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {value!r} to a configuration file")


def _string(text: str) -> str:
    # A JSON string is a TOML basic string, but for DEL, which TOML wants escaped.
    return json.dumps(text).replace("\x7f", "\\u007f")

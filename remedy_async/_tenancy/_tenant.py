"""One organisation's key: `Tenant`, where its token comes from, and the token read from there.

A `Tenant` holds no secret: it says where the token is (an environment variable, or a file)
and is safe to print, pickle, log and write to a file. `TenantKey` is the tenant with its token
read, what a client is made from; it never shows the token (`repr`, `str`) and lives only in
memory: the library never writes it anywhere.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

from attrs import field, frozen

from remedy_async._errors import ConfigurationError
from remedy_async._redact import looks_like_token, shown_value
from remedy_async._sending._budget import RateLimit, margin

NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A tenant's name: a letter or digit, then letters, digits, `.`, `_` or `-`, at most 100 in
all. It names the tenant's files and directories, so it is a safe path component everywhere."""


def _name(_: object, __: object, value: str) -> None:
    if not isinstance(value, str) or NAME_PATTERN.fullmatch(value) is None:
        raise ValueError(
            "a tenant's name is 1 to 100 letters, digits, '.', '_' or '-', starting with a "
            f"letter or digit (it names the tenant's files), got {value!r}"
        )


def _optional_text(_: object, attribute: object, value: str | None) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        name = getattr(attribute, "name", "value")
        raise ValueError(f"a tenant's {name} must be a non-empty string, got {value!r}")


def _to_path(value: str | os.PathLike[str] | None) -> Path | None:
    return None if value is None else Path(value)


def _to_rate(value: RateLimit | str | None) -> RateLimit | None:
    if isinstance(value, str):
        return RateLimit.parse(value)
    if value is not None and not isinstance(value, RateLimit):
        raise TypeError(
            f"a tenant's rate_limit is a RateLimit or text such as '20/s', not {value!r}"
        )
    return value


def _pasted_token(name: str) -> bool:
    """Whether a `token_env` looks like the token itself, pasted where the variable's name goes."""
    return not name.isupper() and looks_like_token(name)


def _shown_env(name: str | None) -> str:
    """A `token_env` as a repr shows it: the variable's name, never a pasted token."""
    return "'***'" if name is not None and _pasted_token(name) else repr(name)


@frozen
class Tenant:
    """One organisation's API key: its name, where its token comes from, and optionally its own
    base URL and request-rate budget.

    The token is read from `token_env` (an environment variable) or `token_file` (a file holding
    the token alone; a trailing line break is ignored), never given as a literal, so a Tenant
    can be printed, pickled and written to a file without showing a secret. `load_tenants`
    reads them from a tenants file; in code: `Tenant("acme", token_env="ACME_TOKEN",
    rate_limit="20/s")`. A bad field raises ValueError here.
    """

    name: str = field(validator=_name)
    """Names the tenant in results (`tenant` columns, `TenantRecord.tenant`) and in its files'
    paths: 1 to 100 letters, digits, `.`, `_` or `-`."""
    token_env: str | None = field(
        default=None, kw_only=True, validator=_optional_text, repr=_shown_env
    )
    """The environment variable holding the token."""
    token_file: Path | None = field(default=None, kw_only=True, converter=_to_path)
    """The file holding the token (alone; a trailing line break is ignored)."""
    base_url: str | None = field(default=None, kw_only=True, validator=_optional_text)
    """The API's root for this tenant; None: the clients' default (the service's own)."""
    rate_limit: RateLimit | None = field(default=None, kw_only=True, converter=_to_rate)
    """The key's request-rate budget (text such as `20/s` too), held across every worker that
    reads this tenant; None: the clients' default."""

    def __attrs_post_init__(self) -> None:
        if (self.token_env is None) == (self.token_file is None):
            raise ValueError(
                f"tenant {self.name!r} needs exactly one of token_env (an environment variable) "
                "and token_file (a file holding the token)"
            )

    @property
    def token_source(self) -> str:
        """Where the token comes from, for messages: `$ACME_TOKEN` or `file secrets/acme`."""
        if self.token_env is not None:
            if _pasted_token(self.token_env):
                return "token_env (a token, not a variable's name)"
            return f"${self.token_env}"
        return f"file {self.token_file}"

    def read_token(self, environ: Mapping[str, str] | None = None) -> str:
        """Read the tenant's token now; ConfigurationError says what is missing (never the token).

        Args:
            environ: Where `token_env` is looked up. Default: `os.environ`.
        """
        if self.token_env is not None:
            found = (os.environ if environ is None else environ).get(self.token_env)
            if not found:
                if _pasted_token(self.token_env):
                    raise ConfigurationError(
                        f"tenant {self.name!r}: token_env holds what looks like a token, not "
                        "the name of the environment variable holding it"
                    )
                raise ConfigurationError(
                    f"tenant {self.name!r}: the environment variable {self.token_env} that "
                    "holds its token is not set"
                )
        else:
            assert self.token_file is not None
            try:
                found = self.token_file.read_text(encoding="utf-8").removesuffix("\n")
            except FileNotFoundError:
                raise ConfigurationError(
                    f"tenant {self.name!r}: its token file {self.token_file} does not exist"
                ) from None
            except (OSError, UnicodeDecodeError) as error:
                reason = getattr(error, "strerror", None) or type(error).__name__
                raise ConfigurationError(
                    f"tenant {self.name!r}: cannot read its token file {self.token_file}: {reason}"
                ) from None
            found = found.removesuffix("\r")
            if not found.strip():
                raise ConfigurationError(
                    f"tenant {self.name!r}: its token file {self.token_file} is empty"
                )
        if any(char in found for char in "\r\n\0"):
            raise ConfigurationError(
                f"tenant {self.name!r}: the token from {self.token_source} holds a line break "
                "or NUL, so it cannot be sent (a token file holds the token alone)"
            )
        return found


class TenantKey:
    """A tenant with its token read: what its client is made from. The token never shows."""

    __slots__ = ("tenant", "token")

    def __init__(self, tenant: Tenant, token: str) -> None:
        self.tenant = tenant
        self.token = token

    def __repr__(self) -> str:
        return f"<TenantKey {self.tenant.name!r} token=*** from {self.tenant.token_source}>"

    __str__ = __repr__

    def __reduce__(self) -> tuple[type[TenantKey], tuple[Tenant, str]]:
        return TenantKey, (self.tenant, self.token)


def read_keys(
    tenants: Iterable[Tenant | TenantKey], environ: Mapping[str, str] | None = None
) -> tuple[TenantKey, ...]:
    """Read every tenant's token, before any request (a `TenantKey` is one read already: an
    engine's worker gets the keys its driver read).

    ConfigurationError for no tenant, two tenants of one name (a name is a directory: names
    that differ only in case clash on some file systems), a missing token, or one key given to
    two tenants of one service (both would read the same organisation, and its rate limit would
    be counted twice).
    """
    keys: list[TenantKey] = []
    names: dict[str, str] = {}
    owners: dict[str, str] = {}
    for given in tenants:
        if isinstance(given, TenantKey):
            tenant = given.tenant
        elif isinstance(given, Tenant):
            tenant = given
        else:
            raise ConfigurationError(f"tenants must be Tenant values, got {shown_value(given)}")
        folded = tenant.name.casefold()
        if folded in names:
            raise ConfigurationError(
                f"two tenants are named {names[folded]!r} and {tenant.name!r}: each tenant "
                "needs a name of its own (names that differ only in case clash as directories)"
            )
        names[folded] = tenant.name
        token = given.token if isinstance(given, TenantKey) else tenant.read_token(environ)
        owner = owners.setdefault(token, tenant.name)
        if owner != tenant.name:
            raise ConfigurationError(
                f"tenants {owner!r} and {tenant.name!r} have the same token: a key is one "
                "organisation, so list it once (its rate limit would be counted twice)"
            )
        keys.append(TenantKey(tenant, token))
    if not keys:
        raise ConfigurationError("no tenants: give at least one")
    return tuple(keys)


def longest_window(keys: Iterable[TenantKey], default: object = None) -> float:
    """The longest rate-limit window of these keys, margin included (0 without a limit): how
    long a new holder of the keys waits before its first request when an earlier one may have
    been sending, so their requests never share a window at the service. `default` is the
    clients' `rate_limit` (a RateLimit or its text) for tenants without their own."""
    if isinstance(default, str):
        default = RateLimit.parse(default)
    windows = [
        limit.per
        for key in keys
        if isinstance(limit := key.tenant.rate_limit or default, RateLimit)
    ]
    return max((window + margin(window) for window in windows), default=0.0)

"""Reads a tenants file: one `[[tenant]]` table per organisation's key, checked line by line.

    [[tenant]]
    name = "acme"
    token_env = "ACME_TOKEN"          # or token_file = "secrets/acme" (beside this file)
    base_url = "https://api.furl.ai"  # optional
    rate_limit = "20/s"               # optional, as the command line's --rate

Every mistake is a ConfigurationError naming the file and line before any request: a
misspelt key (with the closest known one), a token written into the file, a missing variable
or token file, a duplicate name, a bad name, base URL or rate. `tomllib` gives values without
their places, so a table's line is found in the text: the n-th `[[tenant]]` header, and a key's
line inside that table (the header's when the key is written another way).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from yarl import URL

from remedy_async._errors import ConfigurationError
from remedy_async._redact import described_url
from remedy_async._sending._budget import RateLimit
from remedy_async._settings import closest

from ._tenant import NAME_PATTERN, Tenant, read_keys

TABLE: Final = "tenant"
"""The name of the array of tables, one per tenant."""
KEYS: Final = ("name", "token_env", "token_file", "base_url", "rate_limit")
"""The keys a tenant's table may hold."""

_HEADER = re.compile(r"""\s*\[\[\s*("?)tenant\1\s*\]\]\s*(#.*)?""")
_ANY_HEADER = re.compile(r"\s*\[")


class _Places:
    """Where each tenant's table and keys are in the file's text (1-based line numbers)."""

    def __init__(self, text: str) -> None:
        self._lines = text.splitlines()
        starts = [n for n, line in enumerate(self._lines) if _HEADER.fullmatch(line)]
        self._tables = [(start, self._end(start)) for start in starts]

    def _end(self, start: int) -> int:
        for n in range(start + 1, len(self._lines)):
            if _ANY_HEADER.match(self._lines[n]):
                return n
        return len(self._lines)

    def table(self, index: int) -> int:
        """The line of the index-th tenant's header (1 when the file writes tables otherwise)."""
        return self._tables[index][0] + 1 if index < len(self._tables) else 1

    def key(self, index: int, key: str) -> int:
        """The line of a key of the index-th tenant (its header's when not found)."""
        if index >= len(self._tables):
            return 1
        start, end = self._tables[index]
        pattern = re.compile(rf"""\s*(["']?){re.escape(key)}\1\s*=""")
        for n in range(start + 1, end):
            if pattern.match(self._lines[n]):
                return n + 1
        return start + 1


def load_tenants(
    path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None
) -> tuple[Tenant, ...]:
    """Read a tenants file: one `[[tenant]]` table per organisation's key, in file order.

    Each table holds `name`, one of `token_env` (an environment variable) and `token_file` (a
    file holding the token, relative to the tenants file's directory), and optionally
    `base_url` and `rate_limit` (`"20/s"`, as the command line's `--rate`). Every token is read
    once to check it is there, and kept by no one: the Tenants say where the tokens are.

    Raises ConfigurationError naming the file and line for a file that cannot be read or is
    not TOML, a misspelt key, a token in the file, a missing variable or token file, a
    duplicate or bad name, a bad base URL or rate, and for a file with no tenant.

    Args:
        path: The tenants file (TOML).
        environ: Where `token_env` variables are read. Default: `os.environ`.
    """
    import tomllib  # noqa: PLC0415 - only a program given a tenants file pays for the parser

    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigurationError(f"tenants file {where} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or type(error).__name__
        raise ConfigurationError(f"cannot read tenants file {where}: {reason}") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{where} is not valid TOML: {error}") from None
    places = _Places(text)
    for key in document:
        if key != TABLE:
            raise ConfigurationError(
                f"{where}: unknown top-level key {key!r}{closest(key, [TABLE])}; a tenants file "
                f"holds [[{TABLE}]] tables only"
            )
    tables = document.get(TABLE)
    if not isinstance(tables, list) or not tables:
        raise ConfigurationError(
            f"{where} lists no tenant: write one [[{TABLE}]] table per organisation's key"
        )
    tenants = [_tenant(table, where, places, index) for index, table in enumerate(tables)]
    _check_keys(tenants, where, places, environ)
    return tuple(tenants)


def _tenant(table: object, where: Path, places: _Places, index: int) -> Tenant:
    at = f"{where}:{places.table(index)}"
    if not isinstance(table, dict):
        raise ConfigurationError(f"{at}: each [[{TABLE}]] must be a table")
    if "token" in table:
        raise ConfigurationError(
            f"{where}:{places.key(index, 'token')}: a token does not belong in a file; set "
            "token_env to the environment variable that holds it, or token_file to a file "
            "holding it alone"
        )
    for key in table:
        if key not in KEYS:
            raise ConfigurationError(
                f"{where}:{places.key(index, key)}: unknown key {key!r}{closest(key, KEYS)}; a "
                f"tenant's keys are {', '.join(KEYS)}"
            )
    for key, value in table.items():
        if not isinstance(value, str):
            raise ConfigurationError(
                f"{where}:{places.key(index, key)}: {key} must be a string, got a "
                f"{type(value).__name__}"
            )
    if "name" not in table:
        raise ConfigurationError(f"{at}: this tenant has no name")
    name = table["name"]
    if NAME_PATTERN.fullmatch(name) is None:
        raise ConfigurationError(
            f"{where}:{places.key(index, 'name')}: {name!r} is not a tenant name: 1 to 100 "
            "letters, digits, '.', '_' or '-', starting with a letter or digit (it names the "
            "tenant's files)"
        )
    if ("token_env" in table) == ("token_file" in table):
        raise ConfigurationError(
            f"{at}: tenant {name!r} needs exactly one of token_env (an environment variable "
            "holding its token) and token_file (a file holding it alone)"
        )
    base_url = table.get("base_url")
    if base_url is not None:
        _check_base_url(base_url, f"{where}:{places.key(index, 'base_url')}")
    rate_limit = None
    if "rate_limit" in table:
        try:
            rate_limit = RateLimit.parse(table["rate_limit"])
        except ValueError as error:
            raise ConfigurationError(
                f"{where}:{places.key(index, 'rate_limit')}: rate_limit: {error}"
            ) from None
    token_file = table.get("token_file")
    return Tenant(
        name,
        token_env=table.get("token_env"),
        token_file=None if token_file is None else where.parent / token_file,
        base_url=base_url,
        rate_limit=rate_limit,
    )


def _check_base_url(value: str, at: str) -> None:
    """A base URL's shape (the client checks the rest when it is made); the value is only
    described (`described_url`), since a token pasted in its place would be repeated."""
    try:
        url = URL(value)
        usable = url.scheme in {"http", "https"} and bool(url.host)
        usable = usable and url.user is None and url.password is None
    except (ValueError, UnicodeError):
        usable = False
    if not usable:
        raise ConfigurationError(
            f"{at}: base_url must be an absolute http(s) URL without credentials, such as "
            f"https://api.furl.ai, not {described_url(value)}"
        )


def _check_keys(
    tenants: Sequence[Tenant], where: Path, places: _Places, environ: Mapping[str, str] | None
) -> None:
    """Read every token once, naming the line of the tenant a mistake is in: a duplicate name, a
    token that is missing, or one key given to two tenants (`read_keys` says why each is one)."""
    names: dict[str, int] = {}
    tokens: dict[str, int] = {}
    for index, tenant in enumerate(tenants):
        first = names.setdefault(tenant.name.casefold(), index)
        if first != index:
            raise ConfigurationError(
                f"{where}:{places.key(index, 'name')}: tenant {tenant.name!r} is listed twice "
                f"(first at line {places.key(first, 'name')}); each tenant needs a name of its own"
            )
        source = "token_env" if tenant.token_env is not None else "token_file"
        try:
            (key,) = read_keys([tenant], environ)
        except ConfigurationError as error:
            raise ConfigurationError(f"{where}:{places.key(index, source)}: {error}") from None
        first = tokens.setdefault(key.token, index)
        if first != index:
            raise ConfigurationError(
                f"{where}:{places.key(index, source)}: tenant {tenant.name!r} has the same token "
                f"as {tenants[first].name!r} (line {places.key(first, 'name')}): a key is one "
                "organisation, so list it once (its rate limit would be counted twice)"
            )

"""What an error's kept body and a record's repr hide: `redact_value` over parsed JSON,
`kept_body`'s choice of JSON or text, and `credential_key`'s names in every naming."""

from __future__ import annotations

import pytest

from remedy_async._errors import BODY_LIMIT
from remedy_async._redact import REDACTED, credential_key, kept_body, redact_value

TOKEN = "tok_live_5f3a9c0e1b2d"


@pytest.mark.parametrize(
    "name",
    [
        "password",
        "Password",
        "db_password",
        "passwd",
        "passphrase",
        "token",
        "csrf_token",
        "accessToken",
        "RefreshToken",
        "refresh-token",
        "secret",
        "client_secret",
        "clientSecret",
        "api_key",
        "apiKey",
        "APIKey",
        "API_KEY",
        "x-api-key",
        "apikey",
        "access_key",
        "SecretAccessKey",
        "private_key",
        "credentials",
        "Authorization",
        "set-cookie",
    ],
)
def test_names_of_credentials_are_recognised_in_any_naming(name: str) -> None:
    """A key holding a credential word, or `api`/`access`/`private` then `key`, is one."""
    assert credential_key(name)


@pytest.mark.parametrize(
    "name",
    ["severity", "cve_id", "key", "keys", "key_id", "max_tokens", "author", "monkey", "secrets", 7],
)
def test_other_names_are_not_credentials(name: object) -> None:
    """Words that only contain a credential's letters, plurals, a bare `key` and non-strings
    are not (a record shows them)."""
    assert not credential_key(name)


def test_redact_value_replaces_the_secret_in_keys_values_and_nested_lists() -> None:
    """Every string of a parsed body is redacted, at any depth, keys included; the rest is
    kept as it was."""
    body = {"a": [TOKEN, {"b": f"x{TOKEN}y", TOKEN: None}], "n": 1.5, "t": True}
    assert redact_value(body, [TOKEN]) == {
        "a": [REDACTED, {"b": f"x{REDACTED}y", REDACTED: None}],
        "n": 1.5,
        "t": True,
    }


def test_redact_value_without_secrets_returns_the_value_itself() -> None:
    """No secret to look for: the same object, not a copy."""
    body = {"a": [1, 2]}
    assert redact_value(body, []) is body
    assert redact_value(body, [""]) is body


def test_a_value_nested_past_pythons_recursion_limit_is_redacted_all_the_way_down() -> None:
    """Nesting deeper than Python recurses is walked all the same (a loop, not recursion)."""
    deep: object = TOKEN
    for _ in range(5000):
        deep = [deep]
    shown = redact_value(deep, [TOKEN])
    for _ in range(5000):
        assert isinstance(shown, list)
        assert len(shown) == 1
        shown = shown[0]
    assert shown == REDACTED


def test_a_body_nested_deeper_than_the_parser_reads_is_kept_as_text() -> None:
    """JSON nested past what the parser reads (past the interpreter's recursion limit) is kept
    as its redacted text, not an error."""
    depth = 30_000  # within the 64 KiB kept whole
    raw = b"[" * depth + f'"{TOKEN}"'.encode() + b"]" * depth
    assert kept_body(raw, [TOKEN], "application/json") == (
        "[" * depth + f'"{REDACTED}"' + "]" * depth,
        False,
    )


@pytest.mark.parametrize(
    ("body", "content_type", "kept"),
    [
        (b'{"a": 1}', "application/json", {"a": 1}),
        (b"  [1, 2]", "", [1, 2]),
        (b'"text"', "application/problem+json", "text"),
        (b'"text"', "text/plain", '"text"'),
        (b"true", "", "true"),
        (b"\xff\xfe oops", "text/plain", "\ufffd\ufffd oops"),
        (b"", "application/json", None),
        (b" ", "application/json", " "),
    ],
)
def test_kept_body_parses_json_and_keeps_anything_else_as_text(
    body: bytes, content_type: str, kept: object
) -> None:
    """JSON by its label or its first character is parsed; anything else is its text (bytes
    that are not UTF-8 shown as replacement characters); no bytes at all is None."""
    assert kept_body(body, (), content_type) == (kept, False)


def test_kept_body_cuts_at_the_limit_and_says_so() -> None:
    """One byte over the limit: the text of the first BODY_LIMIT bytes, cut."""
    assert kept_body(b"a" * (BODY_LIMIT + 1), ()) == ("a" * BODY_LIMIT, True)


def test_kept_body_reads_its_secrets_once_from_any_iterable() -> None:
    """Secrets given as a generator are redacted from a JSON body and a text one alike."""
    assert kept_body(f'{{"k": "{TOKEN}"}}'.encode(), (s for s in [TOKEN])) == (
        {"k": REDACTED},
        False,
    )
    assert kept_body(f"k={TOKEN}".encode(), (s for s in [TOKEN])) == (f"k={REDACTED}", False)

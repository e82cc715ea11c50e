"""`load_tenants`: a tenants file, every mistake named by file and line before any request."""

from __future__ import annotations

from pathlib import Path

import pytest

from remedy_async import ConfigurationError, RateLimit, Tenant, load_tenants

ENV = {"ACME_TOKEN": "acme-key", "GLOBEX_TOKEN": "globex-key"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tenants.toml"
    path.write_text(text)
    return path


def test_a_file_lists_its_tenants_in_order(tmp_path: Path) -> None:
    """Each [[tenant]] table becomes a Tenant, in file order, with its optional fields."""
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "globex").write_text("globex-file-key\n")
    path = write(
        tmp_path,
        """
[[tenant]]
name = "acme"
token_env = "ACME_TOKEN"
base_url = "https://api.furl.ai"
rate_limit = "20/s"

[[tenant]]
name = "globex"
token_file = "secrets/globex"
""",
    )
    acme, globex = load_tenants(path, environ=ENV)
    assert acme == Tenant(
        "acme", token_env="ACME_TOKEN", base_url="https://api.furl.ai", rate_limit=RateLimit(20)
    )
    assert globex.token_file == tmp_path / "secrets" / "globex"
    assert globex.read_token() == "globex-file-key"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '[[tenant]]\nname = "acme"\ntoken_envv = "ACME_TOKEN"\n',
            r":3: unknown key 'token_envv' \(did you mean 'token_env'\?\)",
        ),
        (
            '[[tenant]]\nname = "acme"\ntoken_env = "ACME_TOKEN"\n\n'
            '[[tenant]]\nname = "acme"\ntoken_env = "GLOBEX_TOKEN"\n',
            r":6: tenant 'acme' is listed twice \(first at line 2\)",
        ),
        (
            '[[tenant]]\nname = "acme"\ntoken_env = "UNSET"\n',
            r":3: tenant 'acme': the environment variable UNSET",
        ),
        (
            '[[tenant]]\nname = "acme"\ntoken_env = "ACME_TOKEN"\nrate_limit = "20 per second"\n',
            r":4: rate_limit: a rate is N/s",
        ),
        (
            '[[tenant]]\nname = "acme"\ntoken = "sk-live"\n',
            r":3: a token does not belong in a file",
        ),
        ('[[tenant]]\ntoken_env = "ACME_TOKEN"\n', r":1: this tenant has no name"),
        ('[[tenant]]\nname = "a/b"\ntoken_env = "ACME_TOKEN"\n', r":2: 'a/b' is not a tenant name"),
        ('[[tenant]]\nname = "acme"\n', r":1: tenant 'acme' needs exactly one of token_env"),
        (
            '[[tenant]]\nname = "acme"\ntoken_env = "ACME_TOKEN"\nbase_url = "furl_sk_live"\n',
            r":4: base_url must be an absolute http\(s\) URL",
        ),
        (
            '[[tenant]]\nname = "acme"\ntoken_env = "ACME_TOKEN"\nrate_limit = 20\n',
            r":4: rate_limit must be a string",
        ),
        (
            '[[tenant]]\nname = "a"\ntoken_env = "ACME_TOKEN"\n'
            '[[tenant]]\nname = "b"\ntoken_env = "ACME_TOKEN"\n',
            r":6: tenant 'b' has the same token as 'a' \(line 2\)",
        ),
        (
            '[[tenants]]\nname = "acme"\n',
            r"unknown top-level key 'tenants' \(did you mean 'tenant'\?\)",
        ),
        ("", r"lists no tenant"),
        ("[[tenant]\n", r"is not valid TOML"),
    ],
)
def test_a_mistake_is_named_by_its_line(tmp_path: Path, text: str, said: str) -> None:
    """A misspelt key, duplicate name, missing token, bad rate or name is a ConfigurationError
    naming the file and the line."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigurationError, match=said) as caught:
        load_tenants(path, environ=ENV)
    assert str(path) in str(caught.value)


def test_a_base_url_in_error_is_not_repeated(tmp_path: Path) -> None:
    """A token pasted where the base URL goes is not echoed by the error."""
    path = write(
        tmp_path, '[[tenant]]\nname = "a"\ntoken_env = "ACME_TOKEN"\nbase_url = "sk_live_abc"\n'
    )
    with pytest.raises(ConfigurationError) as caught:
        load_tenants(path, environ=ENV)
    assert "sk_live_abc" not in str(caught.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    """A tenants file that is not there is a ConfigurationError naming it."""
    with pytest.raises(ConfigurationError, match="does not exist"):
        load_tenants(tmp_path / "none.toml")


def test_a_token_file_is_read_beside_the_tenants_file(tmp_path: Path) -> None:
    """`token_file` is relative to the tenants file, wherever the program runs."""
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "key").write_text("k")
    path = write(tmp_path, '[[tenant]]\nname = "a"\ntoken_file = "deep/key"\n')
    (tenant,) = load_tenants(path)
    assert tenant.read_token() == "k"


def test_a_missing_token_file_is_named_by_its_line(tmp_path: Path) -> None:
    """A token file that does not exist is named with the line that names it."""
    path = write(tmp_path, '[[tenant]]\nname = "a"\n\ntoken_file = "nowhere"\n')
    with pytest.raises(
        ConfigurationError, match=r":4: tenant 'a': its token file .* does not exist"
    ):
        load_tenants(path)


SECRET = "furl_sk_live_4f9QpZ7xK2mW8vR3tY6u"


def test_a_token_pasted_as_a_base_url_is_named_a_token(tmp_path: Path) -> None:
    """A key where the base URL goes is described as a token, never shown."""
    path = write(
        tmp_path, f'[[tenant]]\nname = "a"\ntoken_env = "ACME_TOKEN"\nbase_url = "{SECRET}"\n'
    )
    with pytest.raises(ConfigurationError, match="not what looks like a token") as caught:
        load_tenants(path, environ=ENV)
    assert SECRET not in str(caught.value)


def test_a_token_pasted_as_token_env_is_named_a_token(tmp_path: Path) -> None:
    """A key written as token_env (not a variable's name) is said to be one, never shown."""
    path = write(tmp_path, f'[[tenant]]\nname = "a"\ntoken_env = "{SECRET}"\n')
    with pytest.raises(ConfigurationError, match="token_env holds what looks like a token") as e:
        load_tenants(path, environ=ENV)
    assert SECRET not in str(e.value)


def test_a_value_of_the_wrong_type_is_named_by_its_type(tmp_path: Path) -> None:
    """A key that is not a string is named with its type, not its value."""
    path = write(tmp_path, '[[tenant]]\nname = "a"\ntoken_env = ["A", "B"]\n')
    with pytest.raises(ConfigurationError, match=r":3: token_env must be a string, got a list"):
        load_tenants(path, environ=ENV)

"""`Tenant`: where one organisation's token comes from, read without ever showing it."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from remedy_async import ConfigurationError, RateLimit, Tenant
from remedy_async._tenancy._tenant import TenantKey, read_keys


def test_a_tenant_reads_its_token_from_its_variable() -> None:
    """`token_env` names the variable the token is read from, when asked."""
    tenant = Tenant("acme", token_env="ACME_TOKEN")
    assert tenant.read_token({"ACME_TOKEN": "k-1"}) == "k-1"


def test_a_tenant_reads_its_token_file_without_its_line_break(tmp_path: Path) -> None:
    """A token file holds the token alone; one trailing line break is not part of it."""
    (tmp_path / "acme").write_text("k-2\n")
    assert Tenant("acme", token_file=tmp_path / "acme").read_token() == "k-2"


def test_a_rate_is_read_from_text() -> None:
    """`rate_limit` takes the command line's form, `20/s`."""
    assert Tenant("acme", token_env="T", rate_limit="20/s").rate_limit == RateLimit(20)


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({}, "exactly one of token_env"),
        ({"token_env": "A", "token_file": "b"}, "exactly one of token_env"),
        ({"token_env": " "}, "token_env must be a non-empty string"),
        ({"token_env": "A", "rate_limit": "fast"}, "a rate is N/s"),
    ],
)
def test_a_bad_tenant_is_refused_when_made(fields: dict[str, str], said: str) -> None:
    """A tenant without exactly one token source, or with a bad field, is a ValueError."""
    with pytest.raises(ValueError, match=said):
        Tenant("acme", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", "a/b", ".hidden", "-x", "x" * 101, "a b"])
def test_a_name_that_cannot_name_a_directory_is_refused(name: str) -> None:
    """A tenant's name names its files, so it is a plain path component."""
    with pytest.raises(ValueError, match="a tenant's name"):
        Tenant(name, token_env="T")


def test_a_missing_variable_is_named_without_a_token() -> None:
    """An unset variable is a ConfigurationError naming the tenant and the variable."""
    with pytest.raises(ConfigurationError, match=r"'acme'.*ACME_TOKEN.*not set"):
        Tenant("acme", token_env="ACME_TOKEN").read_token({})


def test_a_missing_or_empty_token_file_is_named(tmp_path: Path) -> None:
    """A token file that is absent or holds nothing is named."""
    with pytest.raises(ConfigurationError, match="does not exist"):
        Tenant("acme", token_file=tmp_path / "none").read_token()
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ConfigurationError, match="is empty"):
        Tenant("acme", token_file=tmp_path / "empty").read_token()


def test_a_token_of_two_lines_is_refused_without_showing_it(tmp_path: Path) -> None:
    """A file holding more than the token cannot be sent, and the message shows none of it."""
    (tmp_path / "acme").write_text("secret-one\nsecret-two\n")
    with pytest.raises(ConfigurationError) as caught:
        Tenant("acme", token_file=tmp_path / "acme").read_token()
    assert "secret" not in str(caught.value)


def test_a_key_never_shows_its_token() -> None:
    """A tenant with its token read shows where the token came from, never the token."""
    key = TenantKey(Tenant("acme", token_env="ACME_TOKEN"), "sk-live-123")
    assert "sk-live-123" not in repr(key)
    assert "sk-live-123" not in str(key)
    assert "$ACME_TOKEN" in repr(key)


def test_a_token_pasted_as_token_env_never_shows() -> None:
    """A token given where the variable's name goes shows in no repr, no message and no key,
    while a variable's name does."""
    pasted = "furl_sk_live_4f9a8b7c6d5e4f3a2b1c"
    tenant = Tenant("acme", token_env=pasted)
    key = TenantKey(tenant, "sk-live-123")
    with pytest.raises(ConfigurationError) as caught:
        tenant.read_token({})
    shown = [repr(tenant), str(tenant), tenant.token_source, repr(key), str(caught.value)]
    assert not [text for text in shown if pasted in text]
    assert "token_env='***'" in repr(tenant)
    assert "token_env='ACME_TOKEN'" in repr(Tenant("acme", token_env="ACME_TOKEN"))


def test_a_key_survives_pickling_for_a_worker() -> None:
    """A key crosses to another process (an engine's worker) whole."""
    key = pickle.loads(pickle.dumps(TenantKey(Tenant("acme", token_env="A"), "t")))
    assert (key.tenant.name, key.token) == ("acme", "t")


def test_reading_keys_refuses_two_tenants_of_one_name() -> None:
    """Names are directories: two that differ only in case clash."""
    tenants = [Tenant("acme", token_env="A"), Tenant("ACME", token_env="B")]
    with pytest.raises(ConfigurationError, match="'acme' and 'ACME'"):
        read_keys(tenants, {"A": "1", "B": "2"})


def test_reading_keys_refuses_one_key_given_to_two_tenants() -> None:
    """One key is one organisation: listing it twice would double its rate limit."""
    tenants = [Tenant("acme", token_env="A"), Tenant("other", token_env="B")]
    with pytest.raises(ConfigurationError, match="same token"):
        read_keys(tenants, {"A": "same", "B": "same"})


def test_reading_no_tenant_is_refused() -> None:
    """A run over no tenant at all is a mistake, said before any request."""
    with pytest.raises(ConfigurationError, match="no tenants"):
        read_keys([], {})

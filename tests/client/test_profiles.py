"""Configuration files: a profile's settings become client arguments, checked before any I/O."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from remedy_async import CONVENTIONS, AutoPaginator, ConfigurationError, Convention, RemedyClient
from remedy_async._paging._conventions import convention_document
from remedy_async._profiles import read_profile, render_profiles

URL = "https://api.example.com"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "remedy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_profile_becomes_client_arguments(tmp_path: Path) -> None:
    """Plain settings pass as given; paginator names become conventions; 'none' drops the scheme."""
    path = write(
        tmp_path,
        f"""
[default]
base_url = "{URL}"
auth_header = "X-API-Key"
auth_scheme = "none"
timeout = 12.5
naming = "snake"
trusted_origins = ["https://cdn.example.com"]

[default.paginators]
endpoints = "odata"
scopes = "auto"

[default.namings]
scopes = "kebab"
""",
    )
    settings = read_profile(path)
    assert settings["auth_scheme"] is None
    assert settings["paginators"]["endpoints"] is CONVENTIONS["odata"]
    assert isinstance(settings["paginators"]["scopes"], AutoPaginator)
    assert settings["timeout"] == 12.5
    assert settings["trusted_origins"] == ["https://cdn.example.com"]


async def test_from_config_pins_what_the_file_says(tmp_path: Path) -> None:
    """The client reads each collection's paginator and naming from its profile."""
    path = write(
        tmp_path,
        f"""
[staging]
base_url = "{URL}"
naming = "snake"
[staging.paginators]
endpoints = "odata"
[staging.namings]
scopes = "kebab"
""",
    )
    client = RemedyClient.from_config(path, profile="staging")
    assert str(client.base_url) == URL
    assert client.endpoints.paginator.convention is CONVENTIONS["odata"]  # type: ignore[attr-defined]
    assert isinstance(client.scopes.paginator, AutoPaginator)
    assert client.endpoints.naming == "snake"
    assert client.scopes.naming == "kebab"


async def test_arguments_win_over_the_file(tmp_path: Path) -> None:
    """Keyword arguments of from_config override the profile's settings."""
    path = write(tmp_path, f'[default]\nbase_url = "{URL}"\nnaming = "snake"\n')
    client = RemedyClient.from_config(path, base_url="https://other.example.com", naming="camel")
    assert client.base_url.host == "other.example.com"
    assert client.endpoints.naming == "camel"


async def test_the_token_comes_from_the_variable_the_file_names(tmp_path: Path) -> None:
    """token_env names a variable; its value becomes the token and never the file's."""
    path = write(tmp_path, f'[default]\nbase_url = "{URL}"\ntoken_env = "MY_TOKEN"\n')
    assert read_profile(path, env={"MY_TOKEN": "s3cret"})["token"] == "s3cret"
    with pytest.raises(ConfigurationError, match="token_env names MY_TOKEN, which is not set"):
        read_profile(path, env={})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[default]\nbase_url = "x"\ntoken = "s3cret"\n', "a token does not belong in a file"),
        ('[default]\nnamig = "snake"\n', "unknown setting 'namig' \\(did you mean 'naming'\\?\\)"),
        ("[default]\nmax_in_flight = true\n", "max_in_flight must be an integer, got True"),
        ('[default]\ntimeout = "30"\n', "timeout must be an integer or a number"),
        ("[default]\ntrusted_origins = [1]\n", "trusted_origins must hold strings"),
        ('[default.paginators]\nendpoints = "odat"\n', "not a paging convention.*'odata'"),
        ('[prod]\nbase_url = "x"\n', "no profile \\[default\\].*profiles are prod"),
        ("[default\n", "not valid TOML"),
    ],
    ids=["token", "typo", "bool", "type", "list", "convention", "profile", "syntax"],
)
def test_a_bad_file_is_a_configuration_error_naming_it(
    tmp_path: Path, text: str, message: str
) -> None:
    """Every mistake names the file, and the profile and setting where there is one."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigurationError, match=message) as caught:
        read_profile(path)
    assert str(path) in str(caught.value)
    assert "s3cret" not in str(caught.value)


def test_a_missing_file_is_a_configuration_error(tmp_path: Path) -> None:
    """A file that does not exist is named in the error."""
    with pytest.raises(ConfigurationError, match="does not exist"):
        read_profile(tmp_path / "nope.toml")


def test_an_unknown_collection_names_the_closest(tmp_path: Path) -> None:
    """A per-collection table with a misspelt collection fails at construction."""
    path = write(tmp_path, f'[default]\nbase_url = "{URL}"\n[default.namings]\nscope = "snake"\n')
    with pytest.raises(ConfigurationError, match="did you mean 'scopes'"):
        RemedyClient.from_config(path)


def test_written_profiles_read_back_as_written(tmp_path: Path) -> None:
    """render_profiles writes TOML that tomllib and read_profile read back unchanged."""
    settings: dict[str, Any] = {
        "base_url": 'https://x.example.com/a "quoted" \\ path \x7f é',
        "follow_redirects": True,
        "max_in_flight": 8,
        "timeout": 2.5,
        "trusted_origins": ["https://a.example.com"],
        "naming": "pascal",
        "paginators": {"endpoints": "cursor", "scopes": "link"},
    }
    text = render_profiles({"default": settings, "odd name": {"naming": "snake"}}, "hello\nworld")
    assert text.startswith("# hello\n# world\n")
    assert tomllib.loads(text) == {"default": settings, "odd name": {"naming": "snake"}}
    read = read_profile(write(tmp_path, text))
    assert read["paginators"] == {"endpoints": CONVENTIONS["cursor"], "scopes": CONVENTIONS["link"]}


def test_environ_stands_for_the_process_environment(tmp_path: Path) -> None:
    """from_config(environ=...) reads token_env and the REMEDY_* fallbacks from that mapping."""
    path = write(tmp_path, '[default]\ntoken_env = "MY_TOKEN"\n')
    client = RemedyClient.from_config(path, environ={"REMEDY_BASE_URL": URL, "MY_TOKEN": "s3cret"})
    assert str(client.base_url) == URL
    assert "s3cret" not in repr(client)
    assert "Authorization=***" in repr(client)


COMPOSED = Convention(
    name="detected",
    follow="token",
    items=(("response", "{resource}"),),
    next_at=("meta", "pagination", "next_cursor"),
    param="cursor",
    more_at=("meta", "pagination", "has_more"),
    total_header="X-Total-Count",
    ignore=(("links", "[rel=next]", "href"),),
)


def test_a_composed_convention_written_to_a_profile_reads_back_equal(tmp_path: Path) -> None:
    """A composed convention is written as a table of its fields and read back as the same."""
    path = tmp_path / "remedy.toml"
    document = {"paginators": {"scopes": convention_document(COMPOSED)}}
    path.write_text(render_profiles({"default": document}), encoding="utf-8")
    assert read_profile(path)["paginators"]["scopes"] == COMPOSED


def test_a_bad_convention_field_names_the_table_and_the_field(tmp_path: Path) -> None:
    """An unknown field of a convention table is a ConfigurationError naming both."""
    path = tmp_path / "remedy.toml"
    path.write_text('[default.paginators.scopes]\nfolow = "token"\n', encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"paginators\.scopes: 'folow' is not a"):
        read_profile(path)


PASTED = "furl_sk_live_4f9QpZ7xK2mW8vR3tY6u"


def test_a_token_written_as_token_env_is_named_a_token(tmp_path: Path) -> None:
    """token_env holding a key rather than a variable's name says so, never showing it."""
    path = write(tmp_path, f'[default]\ntoken_env = "{PASTED}"\n')
    with pytest.raises(ConfigurationError, match="token_env holds what looks like a token") as e:
        read_profile(path, env={})
    assert PASTED not in str(e.value)


def test_a_text_of_the_wrong_type_is_named_by_its_type(tmp_path: Path) -> None:
    """`headers = "Authorization: Bearer ..."` (text where a table goes) is not repeated."""
    path = write(tmp_path, f'[default]\nheaders = "Authorization: Bearer {PASTED}"\n')
    with pytest.raises(ConfigurationError, match="headers must be a table, got a string") as e:
        read_profile(path, env={})
    assert PASTED not in str(e.value)


def test_a_number_of_the_wrong_type_is_shown(tmp_path: Path) -> None:
    """A number where text goes is shown as it is: no secret is a TOML number."""
    path = write(tmp_path, "[default]\nbase_url = 8080\n")
    with pytest.raises(ConfigurationError, match="base_url must be a string, got 8080"):
        read_profile(path, env={})

"""Where a feed's settings come from: the client (and its configuration file) for the since
filter, and `changes()`/`watch()`'s named arguments, checked at the call before any request;
and the import of the package, which loads no SQLite until a feed is used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from remedy_async import ConfigurationError, RemedyClient
from tests.changes.service import Service, endpoint, running


def test_the_client_names_each_collections_since_filter() -> None:
    """`since_filters` sets `collection.since_filter`; others stay None."""
    client = RemedyClient(
        "http://127.0.0.1:9", since_filters={"remediation_targets": "updatedAt[gte]"}
    )
    assert client.remediation_targets.since_filter == "updatedAt[gte]"
    assert client.scopes.since_filter is None


def test_a_bad_since_filter_setting_is_refused() -> None:
    """An unknown collection or a value that is no parameter name is a ConfigurationError."""
    with pytest.raises(ConfigurationError, match="unknown collection 'targets'"):
        RemedyClient("http://127.0.0.1:9", since_filters={"targets": "updatedAt[gte]"})
    with pytest.raises(ConfigurationError, match="query parameter name"):
        RemedyClient("http://127.0.0.1:9", since_filters={"scopes": "a=b"})


def test_a_configuration_file_pins_since_filters(tmp_path: Path) -> None:
    """A profile's `[profile.since_filters]` table reaches the collections."""
    config = tmp_path / "remedy.toml"
    config.write_text(
        '[default]\nbase_url = "http://127.0.0.1:9"\n\n'
        '[default.since_filters]\nscopes = "updatedAt[gte]"\n',
        encoding="utf-8",
    )
    assert RemedyClient.from_config(config).scopes.since_filter == "updatedAt[gte]"


def test_importing_the_package_loads_no_sqlite() -> None:
    """`import remedy_async` (and naming the feed's types) imports neither sqlite3 nor the
    state; the first feed does."""
    code = (
        "import sys, remedy_async; remedy_async.Change; remedy_async.ChangeKind; "
        "print('sqlite3' in sys.modules, 'remedy_async._changes._state' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["False", "False"]


async def test_bad_settings_are_refused_before_any_request(tmp_path: Path) -> None:
    """A negative overlap, a jitter above 1, a misspelt filter, a size `list()` refuses or a
    keyword of `list()` that a feed does not take raise at the call."""
    service = Service([endpoint(1)])
    async with running(service) as client:
        with pytest.raises(ValueError, match="overlap"):
            client.endpoints.changes(tmp_path / "s.db", overlap=-1)
        with pytest.raises(ValueError, match="jitter"):
            client.endpoints.watch(tmp_path / "s.db", jitter=2)
        with pytest.raises(TypeError, match="os_family"):
            client.endpoints.changes(tmp_path / "s.db", os_famly="macos")
        with pytest.raises(TypeError, match="unknown filter 'max_items'; its published"):
            client.endpoints.watch(tmp_path / "s.db", max_items=5)  # a list's, not a feed's
        with pytest.raises(ValueError, match="page_size must be at most 100"):
            client.endpoints.changes(tmp_path / "s.db", page_size=101)  # as list() checks it
        with pytest.raises(ValueError, match="concurrency"):
            client.endpoints.watch(tmp_path / "s.db", concurrency=0)
    assert service.requests == []
    assert not (tmp_path / "s.db").exists()

"""SimulatorConfig and FaultSpec: defaults, validation, parsing, repr, typed fault kinds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import get_args

import attrs
import pytest
from mypy import api as mypy_api

from remedy_async.simulator import (
    ROUTE_NAMES,
    FaultKind,
    FaultKindName,
    FaultSpec,
    SimulatorConfig,
)


def test_defaults_are_the_published_contract() -> None:
    """The defaults are the published contract: offset paging under `data`, pages of 50 up to
    100, snake_case, exactly the published fields, `{"error": message}` bodies, undeclared
    parameters ignored; no auth, no faults."""
    config = SimulatorConfig()
    assert (config.paging, config.page_size, config.max_page_size) == ("offset", 50, 100)
    assert (config.items_key, config.naming, config.extra_fields_rate) == ("data", "snake", 0.0)
    assert (config.error_format, config.strict_params, config.token) == (
        "error-string",
        False,
        None,
    )
    assert (config.auth_header, config.auth_scheme) == ("Authorization", "Bearer")
    assert (config.host, config.port, config.size, config.faults) == ("127.0.0.1", 0, 100, ())


def test_config_is_frozen() -> None:
    """A configuration cannot be changed after it is made."""
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        SimulatorConfig().size = 5  # type: ignore[misc]


def test_repr_hides_the_token() -> None:
    """The token never shows in the repr."""
    text = repr(SimulatorConfig(token="s3cret-token"))
    assert "s3cret-token" not in text
    assert "token='***'" in text


@pytest.mark.parametrize(
    "options",
    [
        {"paging": "pages"},
        {"items_key": "records"},
        {"error_format": "xml"},
        {"page_size": 0},
        {"page_size": 200, "max_page_size": 100},
        {"size": -1},
        {"size": 10_000_000},
        {"port": 70_000},
        {"token": ""},
        {"token": "a\nb"},
        {"auth_header": "Bad Header"},
        {"rate_limit": 0},
        {"extra_fields_rate": 1.5},
        {"health_path": "health"},
        {"health_path": "/v1/endpoints"},
        {"health_path": "/v1/x", "agent_configuration_path": "/v1/x"},
        {"id_prefix": "a\nb"},
        {"order": "newest"},
        {"churn_count": 0},
        {"churn_every": 0},
        {"churn": 0.1, "churn_count": 2},
    ],
)
def test_invalid_options_are_refused(options: dict[str, object]) -> None:
    """Each out-of-contract option raises ValueError naming it."""
    with pytest.raises(ValueError):  # noqa: PT011 - the messages are checked elsewhere
        SimulatorConfig(**options)  # type: ignore[arg-type]


def test_faults_must_be_fault_specs() -> None:
    """`faults` holds FaultSpec values only."""
    with pytest.raises(TypeError, match="FaultSpec"):
        SimulatorConfig(faults=["http-500:1"])  # type: ignore[list-item]


def test_fault_spec_parses_kind_rate_and_routes() -> None:
    """`KIND:RATE:ROUTE` fills the kind, rate and routes; options fill the rest."""
    spec = FaultSpec.parse("http-503:0.25:list:endpoints,get:*", stall_seconds=2)
    assert spec.kind is FaultKind.HTTP_503
    assert spec.rate == 0.25
    assert spec.routes == ("list:endpoints", "get:*")
    assert spec.stall_seconds == 2


def test_fault_spec_without_route_applies_everywhere() -> None:
    """Without routes a fault applies to every route."""
    spec = FaultSpec.parse("reset:1")
    assert spec.routes is None
    assert all(spec.applies_to(route) for route in ROUTE_NAMES)


def test_fault_spec_route_patterns_match_shell_style() -> None:
    """`list:*` matches the list routes only."""
    spec = FaultSpec("latency", 1, "list:*")
    assert spec.applies_to("list:scopes")
    assert not spec.applies_to("get:scopes")
    assert not spec.applies_to("health")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("latency", "KIND:RATE"),
        ("boom:0.5", "unknown kind"),
        ("latency:lots", "not a number"),
        ("latency:1.5", "between 0 and 1"),
        ("latency:0.5:list:nothing", "matches no route"),
    ],
)
def test_fault_spec_parse_explains_errors(text: str, message: str) -> None:
    """A malformed fault text raises ValueError saying what is wrong."""
    with pytest.raises(ValueError, match=message):
        FaultSpec.parse(text)


def test_fault_spec_refuses_bad_retry_after_format() -> None:
    """Retry-After is given as seconds or as an HTTP date, nothing else."""
    with pytest.raises(ValueError, match="retry_after_format"):
        FaultSpec("http-429", 1, retry_after_format="minutes")  # type: ignore[arg-type]


def test_an_unknown_fault_kind_lists_the_kinds_and_the_closest() -> None:
    """A misspelt kind is a ValueError suggesting the closest kind and listing them all."""
    with pytest.raises(ValueError, match="did you mean 'http-503'") as caught:
        FaultSpec("http-5003", 0.1)  # type: ignore[arg-type]
    assert all(kind.value in str(caught.value) for kind in FaultKind)


def test_the_kind_names_are_the_kinds_values() -> None:
    """FaultKindName, the type of `kind`, holds exactly the value of every FaultKind."""
    assert get_args(FaultKindName) == tuple(kind.value for kind in FaultKind)


def test_a_misspelt_fault_kind_fails_type_checking(tmp_path: Path) -> None:
    """mypy refuses a kind that is no FaultKind's value, and accepts names and members."""
    source = tmp_path / "faults.py"
    source.write_text(
        "from remedy_async.simulator import FaultKind, FaultSpec\n\n"
        'FaultSpec("http-503", 0.1)\n'
        "FaultSpec(FaultKind.RESET, 0.1)\n"
        'FaultSpec("http-5003", 0.1)\n'
    )
    out, _, status = mypy_api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(source)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1
    assert len(errors) == 1, out
    assert errors[0].startswith(f"{source}:5:")


@pytest.mark.parametrize(
    "value",
    [
        "2024-06-01T00:00:00Z",
        "2024-06-01T00:00:00",
        "2024-06-01",
        "2024-06-01T02:00:00+02:00",
        datetime(2024, 6, 1, 2, tzinfo=timezone(timedelta(hours=2))),
    ],
)
def test_now_is_read_as_utc(value: datetime | str) -> None:
    """`now` takes an aware datetime or an ISO 8601 string (UTC without an offset), in UTC."""
    now = SimulatorConfig(now=value).now
    assert now == datetime(2024, 6, 1, tzinfo=UTC)
    assert now is not None
    assert now.tzinfo is UTC


def test_now_defaults_to_none() -> None:
    """Unset, `now` is None: the simulator fills in its clock's time when it is made."""
    assert SimulatorConfig().now is None


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (datetime(2024, 6, 1), ValueError, "now must be timezone-aware"),
        ("June 1st", ValueError, "now must be an ISO 8601 date-time"),
        (1_717_200_000, TypeError, "now must be a datetime"),
    ],
)
def test_a_bad_now_is_refused(value: object, error: type[Exception], message: str) -> None:
    """A naive datetime, an unreadable string or a number is refused, naming `now`."""
    with pytest.raises(error, match=message):
        SimulatorConfig(now=value)  # type: ignore[arg-type]


def test_order_and_churn_count_default_to_a_stable_order_and_no_churn() -> None:
    """By default lists are by creation and the data never changes; `churning` says whether
    it does (a share or a count)."""
    config = SimulatorConfig()
    assert (config.order, config.churn, config.churn_count, config.churning) == (
        "created",
        0.0,
        None,
        False,
    )
    assert SimulatorConfig(churn=0.01).churning
    assert SimulatorConfig(churn_count=1, churn_every=1, order="updated").churning


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"order": "newest"}, ValueError, "order must be one of created, updated; got 'newest'"),
        ({"churn_count": 0}, ValueError, "churn_count must be at least 1, or None; got 0"),
        ({"churn_count": 1.5}, TypeError, "churn_count must be an int, got 1.5"),
        ({"churn_count": True}, TypeError, "churn_count must be an int, got True"),
        ({"churn_every": 0}, ValueError, "churn_every must be positive, got 0"),
        ({"churn_every": 2.5}, TypeError, "churn_every must be an int, got 2.5"),
        (
            {"churn": 0.1, "churn_count": 2},
            ValueError,
            "give churn (a share, 0.1) or churn_count (a number, 2), not both",
        ),
    ],
    ids=["order", "count-zero", "count-float", "count-bool", "every-zero", "every-float", "both"],
)
def test_order_and_churn_options_are_checked(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    """A bad order or churn option raises naming the field and the value."""
    with pytest.raises(error) as raised:
        SimulatorConfig(**options)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_tenant_options_default_to_one_organisation() -> None:
    """By default a run serves one organisation: no tenants, no limit per token, no file."""
    config = SimulatorConfig()
    assert (config.tenants, config.tenant_skew) == (0, 0.4)
    assert (config.tenant_rate_limit, config.tenant_rate_window) == (None, 1.0)
    assert config.tenants_directory is None


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"tenants": -1}, ValueError, "tenants must not be negative, got -1"),
        ({"tenants": 2.0}, TypeError, "tenants must be an int, got 2.0"),
        (
            {"tenants": 2, "token": "t"},
            ValueError,
            "token must be None with tenants: each tenant has its own",
        ),
        (
            {"tenants": 5, "size": 4},
            ValueError,
            "size (4) must be at least tenants (5): every tenant gets at least one endpoint",
        ),
        (
            {"tenant_skew": 1.0},
            ValueError,
            "tenant_skew must be between 0 and 1 (both excluded), got 1.0",
        ),
        (
            {"tenant_skew": 0},
            ValueError,
            "tenant_skew must be between 0 and 1 (both excluded), got 0.0",
        ),
        (
            {"tenants": 2, "tenant_rate_limit": 0},
            ValueError,
            "tenant_rate_limit must be at least 1, or None; got 0",
        ),
        (
            {"tenant_rate_limit": 5},
            ValueError,
            "tenant_rate_limit needs tenants, 1 or more (this run has none)",
        ),
        (
            {"tenants": 2, "tenant_rate_window": 0},
            ValueError,
            "tenant_rate_window must be positive, got 0.0",
        ),
        (
            {"tenants_directory": "keys"},
            ValueError,
            "tenants_directory needs tenants, 1 or more (this run has none)",
        ),
        (
            {"tenants": 1, "tenants_directory": ""},
            ValueError,
            "tenants_directory must be a directory's path, or None; got ''",
        ),
    ],
    ids=[
        "negative",
        "float",
        "token",
        "too-small",
        "skew-one",
        "skew-zero",
        "limit-zero",
        "limit-alone",
        "window-zero",
        "directory-alone",
        "directory-empty",
    ],
)
def test_tenant_options_are_checked(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    """A bad tenant option raises naming the field, and saying why."""
    with pytest.raises(error) as raised:
        SimulatorConfig(**options)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_tenants_directory_takes_a_path() -> None:
    """`tenants_directory` takes a path object too, kept as text."""
    assert SimulatorConfig(tenants=1, tenants_directory=Path("keys")).tenants_directory == "keys"


def test_a_certain_fault_takes_nth_every_or_first_instead_of_a_rate() -> None:
    """`nth`, `every` and `first` say which requests a fault hits, with no rate; `nth` takes
    one int or several, kept as a tuple."""
    assert FaultSpec("http-503", nth=3).nth == (3,)
    assert FaultSpec("http-503", nth=[3, 1]).nth == (3, 1)
    assert FaultSpec("http-503", every=5).every == 5
    spec = FaultSpec("http-503", first=2, routes="list:*")
    assert (spec.rate, spec.first, spec.routes, spec.certain) == (None, 2, ("list:*",), True)
    assert not FaultSpec("http-503", 0.2).certain


@pytest.mark.parametrize(
    ("spec", "hit"),
    [
        (FaultSpec("reset", nth=3), [3]),
        (FaultSpec("reset", nth=(1, 4)), [1, 4]),
        (FaultSpec("reset", every=3), [3, 6, 9]),
        (FaultSpec("reset", first=2), [1, 2]),
        (FaultSpec("reset", 1.0), []),
    ],
)
def test_a_certain_fault_hits_the_requests_it_counts(spec: FaultSpec, hit: list[int]) -> None:
    """`hits(n)` names the requests, counted from 1, a certain fault hits (none by rate)."""
    assert [number for number in range(1, 11) if spec.hits(number)] == hit


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({}, ValueError, "needs a rate .* or a certain count: nth=N"),
        ({"rate": 0.2, "every": 5}, ValueError, "one of rate, nth, every or first, got rate=0.2"),
        ({"nth": 2, "first": 1}, ValueError, r"got nth=\(2,\) and first=1"),
        ({"nth": 0}, ValueError, "nth counts requests from 1"),
        ({"nth": ()}, ValueError, "nth must name at least one request"),
        ({"nth": "3"}, TypeError, "nth must be an int or ints"),
        ({"nth": [1.5]}, TypeError, "nth must hold ints"),
        ({"every": 0}, ValueError, "every must be at least 1"),
        ({"first": True}, TypeError, "first must be an int"),
    ],
)
def test_a_fault_needs_exactly_one_way_to_hit(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    """No rate and no count, two of them, or a count that is no whole number from 1 is refused
    when the fault is made, naming the arguments."""
    with pytest.raises(error, match=message):
        FaultSpec("http-503", **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http-503:first=2", FaultSpec("http-503", first=2)),
        ("http-503:nth=3:list:endpoints", FaultSpec("http-503", nth=3, routes="list:endpoints")),
        ("reset:nth=1,3:get:*", FaultSpec("reset", nth=(1, 3), routes="get:*")),
        ("http-429:every=5", FaultSpec("http-429", every=5)),
        ("http-503:0.2:list:*", FaultSpec("http-503", 0.2, "list:*")),
    ],
)
def test_the_command_line_form_reads_and_writes_certain_faults(
    text: str, expected: FaultSpec
) -> None:
    """`KIND:first=N`, `KIND:nth=N[,N]` and `KIND:every=N` parse to the certain forms, and a
    fault's str is its command-line form."""
    assert FaultSpec.parse(text) == expected
    assert str(expected) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("http-503:last=2", "'last' is not nth, every or first"),
        ("http-503:first=two", "first takes a whole number, got 'two'"),
        ("http-503:every=2,4", "every takes one number"),
        ("http-503:nth=0", "nth counts requests from 1"),
        ("http-503:first=2:list:nothing", "matches no route"),
    ],
)
def test_the_command_line_form_of_a_certain_fault_explains_errors(text: str, message: str) -> None:
    """A malformed count raises ValueError naming the fault text and what is wrong."""
    with pytest.raises(ValueError, match=message) as caught:
        FaultSpec.parse(text)
    assert str(caught.value).startswith(f"fault {text!r}: ")

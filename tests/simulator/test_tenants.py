"""Many organisations (tenants): a token per tenant that picks its own records, sizes shared out
by skew, a sliding-window rate limit per token, arrivals and counts per tenant, churn per
tenant, and the tenants file a client reads the keys from."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import aiohttp
import pytest

from remedy_async.simulator import (
    SimulatedTenant,
    Simulator,
    SimulatorConfig,
    TenantCounts,
)
from remedy_async.simulator._tenants import tenant_sizes

from .helpers import FakeClock, RecordingSleep, StartSimulator, get_json, record_url

ENDPOINTS = "endpoints"


def bearer(tenant: SimulatedTenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {tenant.token}"}


async def listed_ids(
    session: aiohttp.ClientSession, sim: Simulator, tenant: SimulatedTenant
) -> list[str]:
    """Every endpoint id a tenant's token lists, one page of up to 100."""
    status, body, _ = await get_json(
        session, f"{sim.url}/v1/endpoints", {"limit": "100"}, bearer(tenant)
    )
    assert status == 200, body
    return [record["id"] for record in body["data"]]


async def test_each_token_lists_its_own_tenants_records(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A token lists exactly its tenant's endpoints, none of another tenant's."""
    sim = await serve(tenants=3, size=30)
    listed = {tenant.name: await listed_ids(session, sim, tenant) for tenant in sim.tenants}
    for tenant in sim.tenants:
        assert listed[tenant.name] == list(tenant.dataset.ids(ENDPOINTS))
        assert len(listed[tenant.name]) == tenant.size
    every = [record_id for ids in listed.values() for record_id in ids]
    assert len(set(every)) == len(every) == 30


async def test_a_get_finds_a_record_of_its_own_tenant_only(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Another tenant's id is a 404: a token reaches no record but its tenant's."""
    sim = await serve(tenants=2)
    mine, other = sim.tenants
    record_id = mine.dataset.id_of(ENDPOINTS, 0)
    url = record_url(sim.url, ENDPOINTS, record_id)
    assert (await get_json(session, url, headers=bearer(mine)))[0] == 200
    status, body, _ = await get_json(session, url, headers=bearer(other))
    assert (status, body) == (404, {"error": "Endpoint not found."})


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer sim-org-01-0000000000000000"}, {"Authorization": "Basic x"}],
    ids=["missing", "unknown", "other-scheme"],
)
async def test_a_missing_or_unknown_token_is_the_published_401(
    serve: StartSimulator, session: aiohttp.ClientSession, headers: dict[str, str]
) -> None:
    """Without one of the tenants' tokens a route is 401 `Missing or invalid API key.`."""
    sim = await serve(tenants=2)
    status, body, response_headers = await get_json(session, f"{sim.url}/v1/scopes", None, headers)
    assert (status, body) == (401, {"error": "Missing or invalid API key."})
    assert response_headers["WWW-Authenticate"] == 'Bearer realm="remedy"'


async def test_health_and_the_document_need_no_token(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Health and the OpenAPI document stay open with tenants."""
    sim = await serve(tenants=2)
    for path in ("/v1/health", "/openapi.json"):
        assert (await get_json(session, sim.url + path))[0] == 200


async def test_a_cursor_of_one_tenant_is_refused_by_another(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Each tenant's cursors are its own: another tenant's is a 400."""
    sim = await serve(tenants=2, paging="cursor", size=40)
    first, second = sim.tenants
    url = f"{sim.url}/v1/endpoints"
    _, page, _ = await get_json(session, url, {"limit": "2"}, bearer(first))
    cursor = page["nextCursor"]
    assert (await get_json(session, url, {"cursor": cursor}, bearer(first)))[0] == 200
    assert (await get_json(session, url, {"cursor": cursor}, bearer(second)))[0] == 400


@pytest.mark.parametrize(
    ("total", "count", "skew", "first"),
    [(1000, 5, 0.4, 400), (1000, 2, 0.9, 900), (37, 7, 0.25, 9), (6, 6, 0.5, 1)],
)
def test_sizes_sum_to_size_with_the_first_at_the_skew_share(
    total: int, count: int, skew: float, first: int
) -> None:
    """The first tenant gets `tenant_skew` of `size` (less when the others need their one
    endpoint each), every tenant at least one, and the sizes add up to `size` exactly."""
    sizes = tenant_sizes(total, count, skew, seed=3)
    assert (sum(sizes), len(sizes), sizes[0]) == (total, count, first)
    assert min(sizes) >= 1


def test_the_others_get_about_an_even_share_of_the_rest() -> None:
    """After the first, each tenant gets half to one and a half of an even share of the rest."""
    sizes = tenant_sizes(10_000, 11, 0.4, seed=5)
    even = (10_000 - sizes[0]) / 10
    assert all(0.5 * even <= size <= 1.5 * even for size in sizes[1:])
    assert len(set(sizes[1:])) > 1


def test_one_tenant_gets_the_whole_size() -> None:
    """With one tenant, it serves every endpoint, whatever the skew."""
    sim = Simulator(SimulatorConfig(tenants=1, size=25, tenant_skew=0.1))
    (only,) = sim.tenants
    assert (only.name, only.size, only.dataset.count(ENDPOINTS)) == ("org-01", 25, 25)


def test_a_simulators_tenants_are_the_configured_shares() -> None:
    """`sim.tenants` holds the tenants in order, their sizes summing to `size`."""
    sim = Simulator(SimulatorConfig(tenants=4, size=200, tenant_skew=0.5))
    assert [tenant.name for tenant in sim.tenants] == ["org-01", "org-02", "org-03", "org-04"]
    assert sim.tenants[0].size == 100
    assert sum(tenant.dataset.count(ENDPOINTS) for tenant in sim.tenants) == 200


def test_names_are_padded_to_the_width_of_the_count() -> None:
    """Names are `org-` and the number, zero-padded to at least two digits."""
    names = [tenant.name for tenant in Simulator(SimulatorConfig(tenants=100, size=100)).tenants]
    assert names[:2] == ["org-001", "org-002"]
    assert names[-1] == "org-100"


def test_tokens_and_ids_are_reproducible_per_seed() -> None:
    """The same seed makes the same tokens and ids; another seed others."""

    def made(seed: int) -> list[tuple[str, str]]:
        sim = Simulator(SimulatorConfig(seed=seed, tenants=3, size=9, now="2024-06-01"))
        return [(t.token, t.dataset.id_of(ENDPOINTS, 0)) for t in sim.tenants]

    assert made(7) == made(7)
    assert not set(made(7)) & set(made(8))


def test_a_token_is_printable_and_masked_in_the_repr() -> None:
    """A token reads `sim-org-01-<16 hex>` and never shows in a tenant's repr."""
    (tenant,) = Simulator(SimulatorConfig(tenants=1, size=3)).tenants
    prefix, _, digits = tenant.token.rpartition("-")
    assert prefix == "sim-org-01"
    assert len(digits) == 16
    assert int(digits, 16) >= 0
    assert tenant.token.isascii()
    assert tenant.token.isprintable()
    assert tenant.token not in repr(tenant)
    assert "token='***'" in repr(tenant)


def test_an_unknown_tenant_name_is_a_value_error_naming_the_known_ones() -> None:
    """`sim.tenant(name)` finds a tenant by name, and names them all for an unknown one."""
    sim = Simulator(SimulatorConfig(tenants=2, size=4))
    assert sim.tenant("org-02") is sim.tenants[1]
    with pytest.raises(
        ValueError, match="no tenant named 'org-3'; the tenants are: org-01, org-02"
    ):
        sim.tenant("org-3")


def test_the_dataset_of_a_run_of_tenants_says_where_the_records_are() -> None:
    """With tenants, `sim.dataset` is a RuntimeError pointing at each tenant's data set."""
    sim = Simulator(SimulatorConfig(tenants=2, size=4))
    with pytest.raises(RuntimeError, match=r"sim.tenants\[i\].dataset or sim.tenant\(name\)"):
        _ = sim.dataset


def test_a_run_of_one_organisation_has_no_tenants() -> None:
    """With `tenants=0` there are no tenants to list, count or name, and `dataset` serves."""
    sim = Simulator(SimulatorConfig(size=4))
    assert (sim.tenants, sim.counters.tenants) == ((), {})
    assert sim.dataset.count(ENDPOINTS) == 4
    with pytest.raises(ValueError, match=r"the tenants are: none \(tenants=0\)"):
        sim.arrivals("org-01")


async def test_the_tenant_limit_refuses_one_token_and_not_another(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """Past its limit a token gets 429 with Retry-After and X-RateLimit-*, while another
    token's requests still pass."""
    sim = await serve(tenants=2, tenant_rate_limit=2, tenant_rate_window=10.0)
    busy, quiet = sim.tenants
    url = f"{sim.url}/v1/scopes"
    for remaining in ("1", "0"):
        status, _, headers = await get_json(session, url, headers=bearer(busy))
        assert (status, headers["X-RateLimit-Remaining"]) == (200, remaining)
        clock.advance(1.0)
    status, body, headers = await get_json(session, url, headers=bearer(busy))
    assert status == 429
    assert "exceeded for this API key" in body["error"]
    assert headers["Retry-After"] == "8"  # the first request leaves the window 8 s from now
    assert headers["X-RateLimit-Limit"] == "2"
    assert headers["X-RateLimit-Remaining"] == "0"
    assert float(headers["X-RateLimit-Reset"]) == pytest.approx(clock.now + 8)
    status, _, headers = await get_json(session, url, headers=bearer(quiet))
    assert (status, headers["X-RateLimit-Remaining"]) == (200, "1")


async def test_a_refused_token_passes_once_its_oldest_request_leaves_the_window(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """Waiting the Retry-After (on the fake clock) frees a slot for the refused token."""
    sim = await serve(tenants=1, tenant_rate_limit=1, tenant_rate_window=2.5)
    url = f"{sim.url}/v1/endpoints"
    headers = bearer(sim.tenants[0])
    assert (await get_json(session, url, headers=headers))[0] == 200
    status, _, refused = await get_json(session, url, headers=headers)
    assert (status, refused["Retry-After"]) == (429, "3")
    clock.advance(2.5)
    assert (await get_json(session, url, headers=headers))[0] == 200


async def test_health_is_never_limited_per_token(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Health checks pass beyond any token's limit and carry no rate limit headers."""
    sim = await serve(tenants=1, tenant_rate_limit=1)
    for _ in range(3):
        status, _, headers = await get_json(
            session, f"{sim.url}/v1/health", None, bearer(sim.tenants[0])
        )
        assert status == 200
        assert "X-RateLimit-Limit" not in headers
    assert sim.arrivals("org-01") == ()


async def test_arrivals_and_counts_are_kept_per_tenant(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """Each tenant's requests are counted and timed on the simulator's clock, its 429s
    included and counted apart; a 401 and health count for no tenant."""
    sim = await serve(tenants=2, tenant_rate_limit=2)
    first, second = sim.tenants
    start = clock.now
    for _ in range(3):
        await get_json(session, f"{sim.url}/v1/scopes", headers=bearer(first))
        clock.advance(0.25)
    await get_json(session, f"{sim.url}/v1/endpoints", headers=bearer(second))
    await get_json(session, f"{sim.url}/v1/endpoints")
    await get_json(session, f"{sim.url}/v1/health", headers=bearer(second))
    assert sim.arrivals("org-01") == (start, start + 0.25, start + 0.5)
    assert sim.arrivals("org-02") == (start + 0.75,)
    assert sim.counters.tenants == {
        "org-01": TenantCounts(requests=3, rate_limited=1),
        "org-02": TenantCounts(requests=1, rate_limited=0),
    }
    assert sim.counters.responses == {200: 4, 401: 1, 429: 1}


async def test_reset_counters_forgets_the_arrivals(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """After `reset_counters` every tenant is listed again with nothing counted."""
    sim = await serve(tenants=2)
    await get_json(session, f"{sim.url}/v1/scopes", headers=bearer(sim.tenants[0]))
    sim.reset_counters()
    assert sim.arrivals("org-01") == ()
    assert sim.counters.tenants == {"org-01": TenantCounts(), "org-02": TenantCounts()}


async def test_churn_follows_each_tenants_own_list_requests(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A tenant's lists change its records only, counted by its own list requests."""
    sim = await serve(tenants=2, size=40, churn_count=1, churn_every=2)
    changing, still = sim.tenants
    for _ in range(4):
        await listed_ids(session, sim, changing)
    await listed_ids(session, sim, still)
    assert len(changing.dataset.removed(ENDPOINTS)) == 2
    assert still.dataset.removed(ENDPOINTS) == frozenset()


async def test_the_tenants_file_names_each_tenant_and_where_its_token_is(
    serve: StartSimulator, tmp_path: Path
) -> None:
    """`tenants.toml` has one table per tenant, its token in a file beside it, the URL and the
    rate; the directories are made as needed."""
    sim = await serve(tenants=2, tenant_rate_limit=20)
    path = sim.write_tenants_file(tmp_path / "keys")
    assert path == tmp_path / "keys" / "tenants.toml"
    assert path.read_text() == "".join(
        f'[[tenant]]\nname = "{name}"\ntoken_file = "tokens/{name}"\nbase_url = "{sim.url}"\n'
        f'rate_limit = "20/s"\n{sep}'
        for name, sep in (("org-01", "\n"), ("org-02", ""))
    )
    tables = tomllib.loads(path.read_text())["tenant"]
    for table, tenant in zip(tables, sim.tenants, strict=True):
        assert (path.parent / table["token_file"]).read_text() == tenant.token


async def test_token_files_hold_the_token_alone_for_their_owner_only(
    serve: StartSimulator, tmp_path: Path
) -> None:
    """Each token file is mode 0o600, holds the token and no newline; the TOML no token."""
    sim = await serve(tenants=2)
    path = sim.write_tenants_file(tmp_path)
    for tenant in sim.tenants:
        token_file = tmp_path / "tokens" / tenant.name
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert token_file.read_bytes() == tenant.token.encode()
        assert tenant.token not in path.read_text()
    assert "rate_limit" not in path.read_text()


@pytest.mark.parametrize(("window", "written"), [(1.0, "5/s"), (2.5, "5/2.5s"), (60, "5/60s")])
async def test_the_tenants_file_writes_the_rate_per_window(
    serve: StartSimulator, tmp_path: Path, window: float, written: str
) -> None:
    """The rate is `N/s` for a one-second window, else `N/<window>s`."""
    sim = await serve(tenants=1, tenant_rate_limit=5, tenant_rate_window=window)
    (table,) = tomllib.loads(sim.write_tenants_file(tmp_path).read_text())["tenant"]
    assert table["rate_limit"] == written


def test_the_tenants_file_needs_a_running_simulator_with_tenants(tmp_path: Path) -> None:
    """Writing the file needs the URL (a running simulator) and tenants to write."""
    with pytest.raises(RuntimeError, match="not running"):
        Simulator(SimulatorConfig(tenants=1, size=1)).write_tenants_file(tmp_path)
    with pytest.raises(RuntimeError, match="serves no tenants"):
        Simulator(SimulatorConfig(size=1)).write_tenants_file(tmp_path)


async def test_a_configured_directory_gets_the_tenants_file_once_listening(
    fake_sleep: RecordingSleep, tmp_path: Path
) -> None:
    """With `tenants_directory`, starting writes the tenants file there, with the URL."""
    config = SimulatorConfig(tenants=2, size=4, tenants_directory=tmp_path / "out")
    async with Simulator(config, sleep=fake_sleep) as sim:
        tables = tomllib.loads((tmp_path / "out" / "tenants.toml").read_text())["tenant"]
        assert [table["base_url"] for table in tables] == [sim.url, sim.url]


async def test_a_run_of_one_organisation_keeps_its_token(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """With `tenants=0` the run's `token` is the one that passes, as before, counted for no
    tenant."""
    sim = await serve(token="the-one")
    url = f"{sim.url}/v1/scopes"
    assert (await get_json(session, url, headers={"Authorization": "Bearer the-one"}))[0] == 200
    assert (await get_json(session, url, headers={"Authorization": "Bearer other"}))[0] == 401
    assert sim.counters.tenants == {}

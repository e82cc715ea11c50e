"""Composed paging modes (`compose:...`): the simulator serves any combination of paging axes.

Proven without the client's detector: for compositions drawn by `tests.paging.compositions`, a
reference walker that follows what the composition says (`compose_walker`) lists every id once
in order, for several page sizes, with filters, under a base path and in echo mode; the text
form round-trips, bad specs are refused naming the bad part.
"""

from __future__ import annotations

from collections.abc import Iterator

import aiohttp
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from remedy_async import Convention
from remedy_async.simulator import Composition, Simulator, SimulatorConfig
from remedy_async.simulator.__main__ import main
from tests.budget import examples
from tests.paging.compositions import (
    ComposedService,
    composed_service,
    compositions,
    serving_compositions,
)

from .compose_walker import walk_composition
from .helpers import StartSimulator, get_json, message_of

__all__ = ["composed_service"]

SMALL_SIZES = (3, 5, 7)
"""Default page sizes that make the shared simulator's lists a few pages long."""
CASES = (
    ("scopes", ()),
    ("endpoints", ()),
    ("endpoints", (("osFamily", "windows"), ("osFamily", "linux"))),
    ("endpoints", (("osFamily", "macos"), ("hasAgent", "true"))),
    ("remediation-targets", (("note", "undeclared: ignored"),)),
)
"""Lists to walk: whole collections, and filtered ones (filters, and a parameter the list
ignores, ride in every next link)."""
DECLARED = frozenset({"osFamily", "hasAgent"})
"""The published filters (of endpoints)."""
CREDENTIAL = "s3cr3t-echo"
WALKS = settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def expected(
    service: ComposedService, resource: str, filters: tuple[tuple[str, str], ...]
) -> list[str]:
    """The ids of the list, in order (a parameter the list does not declare changes none)."""
    wanted: dict[str, list[str]] = {}
    for name, value in filters:
        if name in DECLARED:
            wanted.setdefault(name, []).append(value)
    return service.expected_ids(resource, wanted or None)


def walked_ids(
    service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
    size: int | None,
    **options: object,
) -> tuple[list[str], list[str]]:
    """(walked, expected) ids of one list of `service` by the reference walker."""
    resource, filters = case
    if size is not None and composition.max_size is not None:
        size = min(size, composition.max_size)
    note(f"{composition} on {resource} {filters} size={size}")
    ids = expected(service, resource, filters)

    async def scenario() -> list[str]:
        async with aiohttp.ClientSession() as session:
            walk = await walk_composition(
                session, service.url, resource, composition, expected_total=len(ids),
                size=size, filters=filters, **options,  # type: ignore[arg-type]
            )  # fmt: skip
            return walk.ids

    return service.run(scenario()), ids


@given(composition=compositions())
def test_the_text_form_round_trips(composition: Composition) -> None:
    """`Composition.parse(str(c)) == c`, and the text is a valid run paging."""
    assert Composition.parse(str(composition)) == composition
    assert SimulatorConfig(paging=str(composition)).paging == str(composition)


@given(
    composition=compositions(SMALL_SIZES),
    case=st.sampled_from(CASES),
    size=st.sampled_from((None, 1, 4, 9)),
)
@WALKS
def test_every_composition_lists_every_id_once_in_order(
    composed_service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
    size: int | None,
) -> None:
    """Walked by its own rules, a composed list gives exactly the data set's ids in order,
    with truthful signals on every page, whatever the page size and filters."""
    walked, ids = walked_ids(composed_service, composition, case, size)
    assert walked == ids


@pytest.fixture(scope="module")
def based_service() -> Iterator[ComposedService]:
    """A simulator mounted under `/wiki/rest/api`."""
    with serving_compositions(base_path="/wiki/rest/api") as service:
        yield service


@given(composition=compositions(SMALL_SIZES), case=st.sampled_from(CASES))
@settings(WALKS, max_examples=examples(40))
def test_compositions_list_under_a_base_path(
    based_service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
) -> None:
    """Under a base path, absolute, root-relative and base-relative links all lead on."""
    walked, ids = walked_ids(based_service, composition, case, 4)
    assert walked == ids


@pytest.fixture(scope="module")
def echoing_service() -> Iterator[ComposedService]:
    """A hostile simulator echoing the credential into its cursors and links."""
    with serving_compositions(echo_token=True, token=CREDENTIAL) as service:
        yield service


@given(composition=compositions(SMALL_SIZES), case=st.sampled_from(CASES))
@settings(WALKS, max_examples=examples(40))
def test_compositions_echo_the_credential_in_echo_mode(
    echoing_service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
) -> None:
    """In echo mode every cursor and URL handed out carries the credential, and the list
    still pages through."""
    auth = {"Authorization": f"Bearer {CREDENTIAL}"}
    walked, ids = walked_ids(echoing_service, composition, case, 4, headers=auth, echo=CREDENTIAL)
    assert walked == ids


def test_a_composition_names_the_convention_that_reads_it() -> None:
    """`Composition.convention` holds every place, parameter and signal, the redundant and
    backward continuations as ignored, and base-relative links."""
    composition = Composition.parse(
        "compose:follow=page-token,items=response.{resource:snake},next=header:X-Next-Page,"
        "param=page,size=per_page,first=0,end=blank,total=header:X-Total,pages=meta.total_pages,"
        "position=meta.page,served-size=meta.per_page,prev=links.prev,also=header:Link,links=base"
    )
    assert composition.convention == Convention(
        name="composed",
        summary=str(composition),
        follow="token",
        items=(("response", "{resource}"),),
        next_header="X-Next-Page",
        param="page",
        size_param="per_page",
        total_header="X-Total",
        pages_at=("meta", "total_pages"),
        position_at=("meta", "page"),
        size_at=("meta", "per_page"),
        first_page=0,
        ignore=(("links", "prev"),),
        ignore_headers=("Link",),
        links_from="base",
    )


async def test_a_request_header_can_carry_the_continuation(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`param=header:NAME`: the cursor is read from that request header, not the query."""
    composition = Composition.parse(
        "compose:follow=token,next=next,param=header:X-Cursor,default=5"
    )
    assert composition.param_in == "header"
    assert composition.convention.param_in == "header"
    url, paging = f"{sim.url}/v1/scopes", {"X-Simulator-Paging": str(composition)}
    _, first, _ = await get_json(session, url, None, paging)
    cursor = first["next"]
    _, second, _ = await get_json(session, url, None, {**paging, "X-Cursor": cursor})
    _, ignored, _ = await get_json(session, url, {"X-Cursor": cursor}, paging)
    ids = list(sim.dataset.ids("scopes"))
    assert [item["id"] for item in second["items"]] == ids[5:10]
    assert ignored["items"] == (await get_json(session, url, None, paging))[1]["items"]
    assert set(first) == {"items", "next"}


BAD_SPECS = [
    ("compose:follow", "must be KEY=VALUE"),
    ("compose:colour=red", "unknown key 'colour'"),
    ("compose:follow=url,follow=token", "follow is given twice"),
    ("compose:follow=scroll", "follow must be one of"),
    ("compose:follow=token,param=cursor", "needs a place for the continuation"),
    ("compose:follow=token,next=nextCursor", "needs the request parameter"),
    ("compose:follow=offset,param=offset,next=next", "computed by the client"),
    ("compose:follow=token,next=header:Link,param=c", "holds URLs: it needs follow=url"),
    ("compose:follow=url,next=header:Link,param=c,end=null", "end=null needs next at a body"),
    ("compose:follow=url,next=next,param=c,end=link-false", "needs next=header:Link"),
    ("compose:follow=url,next=next,param=c,end=flag", "needs a flag"),
    ("compose:follow=token,next=meta.next,param=c,total=meta", "overlap"),
    ("compose:follow=token,items=-,next=nextCursor,param=c", "bare array body has no place"),
    ("compose:follow=token,next=header:Retry-After,param=c", "sends Retry-After itself"),
    ("compose:follow=url,next=next,param=header:X-C", "not in param=header:X-C"),
    ("compose:follow=token,next=n,param=c,position=offset", "no offset or page number"),
    ("compose:follow=offset,param=offset,first=0", "first=0 applies to page numbers"),
    ("compose:follow=offset,param=offset,default=50,max=10", "default=50 exceeds max=10"),
    ("compose:follow=offset,param=offset,end=null", "has no continuation to end"),
    ("compose:items=a b", "body key 'a b'"),
    ("compose:items=a.b.c.d", "deeper than 3"),
    ("compose:follow=token,next=n,param=c,prev=header:X-Prev", "body path or header:Link"),
]


@pytest.mark.parametrize(("spec", "says"), BAD_SPECS, ids=[spec for spec, _ in BAD_SPECS])
def test_bad_specs_are_refused_naming_the_bad_part(spec: str, says: str) -> None:
    """Each bad spec is a ValueError that quotes the spec and says what is wrong."""
    with pytest.raises(ValueError, match="compose") as raised:
        Composition.parse(spec)
    assert says in str(raised.value)
    with pytest.raises(ValueError, match="compose"):
        SimulatorConfig(paging=spec)


def test_a_bad_spec_on_the_command_line_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--paging compose:...` with a bad part exits 2 naming it."""
    with pytest.raises(SystemExit) as exited:
        main(["--paging", "compose:follow=token,next=n", "--print-spec"])
    assert exited.value.code == 2
    assert "needs the request parameter" in capsys.readouterr().err


async def test_a_bad_spec_in_the_request_header_is_400(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`X-Simulator-Paging: compose:...` with a bad part is 400 naming the part."""
    headers = {"X-Simulator-Paging": "compose:follow=token,next=n,param=c,total=n"}
    status, body, _ = await get_json(session, f"{sim.url}/v1/scopes", None, headers)
    assert status == 400
    assert "overlap" in message_of(body)


async def test_a_composed_run_serves_without_the_header(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`SimulatorConfig(paging="compose:...")` makes the run speak the composition."""
    spec = "compose:follow=token,items=result.rows,next=meta.next_cursor,param=after"
    simulator = await serve(paging=spec)
    _, body, _ = await get_json(session, f"{simulator.url}/v1/scopes")
    assert [item["id"] for item in body["result"]["rows"]] == list(simulator.dataset.ids("scopes"))
    assert body["meta"] == {"next_cursor": None}

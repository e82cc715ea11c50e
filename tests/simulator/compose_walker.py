"""Walks a composed list by hand: the test's own reading of what a `Composition` says.

Independent of the client's detector and reader (`remedy_async._paging`): it follows exactly the
continuation the composition names, stops exactly on the end evidence it names, and checks on
every page that each signal tells the truth (totals, page counts, flags, echoed position and
size, backward and redundant continuations, echoed credential).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import aiohttp
import orjson
from yarl import URL

from remedy_async.simulator import Composition, Slot
from tests.paging.compositions import spelled

from .walker import MISSING, PAGING_HEADER, Walk, dig

_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="(next|prev)"([^,]*)')
RUN_PAGE_SIZE = 100


def resource_key(resource: str, key: str) -> str:
    """A composition's item key for `resource` (`{resource:snake}` -> `remediation_targets`)."""
    if not key.startswith("{resource"):
        return key
    spelling = key.removeprefix("{resource").strip(":}") or "camel"
    return spelled(resource.replace("-", " "), spelling)


def links_of(headers: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """The Link header's targets by rel (next, prev), each with its parameters' text."""
    return {rel: (target, rest) for target, rel, rest in _LINK.findall(headers.get("Link", ""))}


def read_slot(slot: Slot, body: Any, headers: Mapping[str, str]) -> Any:
    """The value at a slot: a body member (MISSING if absent), a header, or a Link target."""
    if slot.link:
        return links_of(headers).get("next", (None, ""))[0]
    if slot.header is not None:
        return headers.get(slot.header)
    return dig(body, slot.path)


def page_size_of(c: Composition, size: int | None, run_page_size: int = RUN_PAGE_SIZE) -> int:
    """The page size a walk gets: the one it asks for, else the composition's or run's default."""
    if size is not None and c.size_param is not None:
        return size
    return c.default_size or min(run_page_size, c.max_size or run_page_size)


async def walk_composition(
    session: aiohttp.ClientSession,
    base: str,
    resource: str,
    c: Composition,
    *,
    expected_total: int,
    size: int | None = None,
    filters: Sequence[tuple[str, str]] = (),
    headers: Mapping[str, str] | None = None,
    echo: str | None = None,
    run_page_size: int = RUN_PAGE_SIZE,
    responses: list[tuple[Mapping[str, str], bytes]] | None = None,
) -> Walk:
    """Follow every page of a list by `c`'s own rules, checking each page's signals; `base`
    is the simulator's URL (with its base path), `echo` the credential echo mode must show,
    `run_page_size` the run's default page size; `responses` collects each page's headers
    and body."""
    sent = {PAGING_HEADER: str(c), **(headers or {})}
    url = URL(f"{base}/v1/{resource}")
    sized = [*filters, *([(c.size_param, str(size))] if size and c.size_param else [])]
    per_page = page_size_of(c, size, run_page_size)
    items_at = tuple(resource_key(resource, key) for key in c.items)
    target, value = url.with_query(sized), None
    position = c.first_page if c.follow in ("page", "page-token") else 0
    result = Walk()
    while True:
        extra = {c.param: str(value)} if c.param_in == "header" and value is not None else {}
        async with session.get(target, headers={**sent, **extra}) as response:
            raw = await response.read()
            assert response.status == 200, raw
            page_headers = response.headers
        if responses is not None:
            responses.append((page_headers, raw))
        body = orjson.loads(raw)
        page = dig(body, items_at) if items_at else body
        assert isinstance(page, list), body
        result.pages += 1
        assert result.pages <= 2000, "too many pages"
        result.ids += [item["id"] for item in page]
        more = len(result.ids) < expected_total
        check_page(c, body, page_headers, more=more, total=expected_total, size=per_page)
        check_position(c, body, position, len(page))
        check_backward(c, body, page_headers, first=result.pages == 1)
        if c.follow == "none":
            return result
        value = next_value(c, body, page_headers, page, result, expected_total, per_page)
        if value is None:
            assert not more, f"the list ended early, after {len(result.ids)} of {expected_total}"
            return result
        check_echo(c, value, echo)
        if c.follow not in ("keyset", "offset", "page"):
            assert more or c.ending in ("flag", "empty", "link-false"), (
                "a continuation past the end"
            )
        if c.follow == "url":
            target = URL(base + value) if c.links == "base" else url.join(URL(value))
        else:
            target = url.with_query(
                sized + ([(c.param, str(value))] if c.param_in == "query" else [])
            )
        if c.follow in ("offset", "number", "page", "page-token"):
            position = int(value)


def next_value(
    c: Composition,
    body: Any,
    headers: Mapping[str, str],
    page: list[Any],
    walked: Walk,
    total: int,
    per_page: int,
) -> Any:
    """What the next request sends (a URL, token, id, offset or page number), or None where
    the composition says the list ended."""
    if c.follow in ("keyset", "offset", "page"):
        if not page or _flag_says_end(c, body):
            return None
        announced = _count(c.total, body, headers)
        if announced is not None and len(walked.ids) >= announced:
            return None
        pages = _count(c.pages, body, headers)
        if pages is not None and walked.pages >= pages:
            return None
        if c.follow == "keyset":
            return page[-1]["id"]
        if c.follow == "offset":
            return len(walked.ids)
        return c.first_page + walked.pages
    assert c.next is not None
    value = read_slot(c.next, body, headers)
    check_redundant(c, body, headers, value)
    if value is MISSING or value is None or value == "":
        return None
    if c.ending == "flag" and _flag_says_end(c, body):
        return None
    if c.ending == "empty" and not page:
        return None
    if c.ending == "link-false" and 'results="false"' in links_of(headers)["next"][1]:
        return None
    return value


def _flag_says_end(c: Composition, body: Any) -> bool:
    return (bool(c.more_at) and dig(body, c.more_at) is False) or (
        bool(c.last_at) and dig(body, c.last_at) is True
    )


def _count(slot: Slot | None, body: Any, headers: Mapping[str, str]) -> int | None:
    if slot is None:
        return None
    value = read_slot(slot, body, headers)
    return int(value)


def check_page(
    c: Composition, body: Any, headers: Mapping[str, str], *, more: bool, total: int, size: int
) -> None:
    """Totals, page counts, flags and the echoed size tell the truth about this page."""
    if c.total is not None:
        assert _count(c.total, body, headers) == total
    if c.pages is not None:
        expected = (1 if total else 0) if c.follow == "none" else math.ceil(total / size)
        assert _count(c.pages, body, headers) == expected
    if c.more_at:
        assert dig(body, c.more_at) is more
    if c.last_at:
        assert dig(body, c.last_at) is (not more)
    if c.size_at and c.follow != "none":
        assert dig(body, c.size_at) == size


def check_position(c: Composition, body: Any, asked: int, served: int) -> None:
    """The echoed position is the one asked (or, hostile, the next one)."""
    if not c.position_at:
        return
    if c.position_shows == "served":
        expected = asked
    else:
        expected = asked + 1 if c.follow in ("page", "page-token") else asked + served
    assert dig(body, c.position_at) == expected


def check_backward(c: Composition, body: Any, headers: Mapping[str, str], *, first: bool) -> None:
    """A backward continuation is null (or no rel="prev" link) on the first page only."""
    if c.prev is None:
        return
    if c.prev.link:
        assert ("prev" in links_of(headers)) is not first
    else:
        value = dig(body, c.prev.path)
        assert value is not MISSING
        assert (value is None) is first


def check_redundant(c: Composition, body: Any, headers: Mapping[str, str], value: Any) -> None:
    """A redundant continuation agrees with the primary: both there, naming the same page."""
    if c.also is None:
        return
    also = read_slot(c.also, body, headers)
    present = value not in (MISSING, None, "") and (
        c.ending != "link-false" or 'results="true"' in links_of(headers)["next"][1]
    )
    if not present:
        assert also in (MISSING, None, ""), also
        return
    if c.also.link or c.also.header is None:
        if c.follow == "url":
            assert also == value
        else:
            assert dict(URL(also).query)[c.param or ""] == str(value)
    elif c.follow == "url":
        assert dict(URL(value).query)[c.param or ""] == also
    else:
        assert also == str(value)


def check_echo(c: Composition, value: Any, echo: str | None) -> None:
    """In echo mode every cursor ends with the credential and every URL carries it."""
    if echo is None:
        return
    if c.follow == "url":
        assert dict(URL(value).query)["echo"] == echo
    elif c.follow == "token":
        assert str(value).endswith(f".{echo}")

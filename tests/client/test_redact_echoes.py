"""Wherever a hostile service echoes the token, no pager variant ever shows it.

A loopback server echoes the request's credential into one place per run: a next link's path,
query, fragment, user information or host, a body cursor, a redirect, a response header (request
id, challenge, any other), an error body, a page that repeats ids (so a warning names its URL) or
one that cannot be decoded. The token is drawn by Hypothesis from the characters a bearer token
may hold (RFC 6750), and every variant of a list (items, pages, collect, first, as_dicts, prefetch,
parallel pages, resumed) and of a get is run. Nothing the library shows (errors with their
attributes, causes and tracebacks, warnings, events, log lines, pages, pagers, decoded resume
tokens) may hold the token in any form an echo takes.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import string
import traceback
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, quote_plus

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remedy_async import (
    ClientEvent,
    MockRequest,
    MockResponse,
    Pager,
    RemedyClient,
    RemedyError,
    RequestOptions,
    RetryPolicy,
)
from tests.budget import examples
from tests.fakes import endpoint_record
from tests.loopback import serve_handler

ONE_TRY = RequestOptions(retry=RetryPolicy(attempts=1))
B64TOKEN = string.ascii_letters + string.digits + "-._~+/"
PLACES = (
    "next-path",
    "next-query",
    "next-fragment",
    "next-userinfo",
    "next-host",
    "next-foreign-path",
    "cursor",
    "link-title",
    "request-id",
    "challenge",
    "echo-header",
    "error-body",
    "repeats",
    "undecodable",
    "redirect-path",
    "redirect-userinfo",
)


class Hostile:
    """A MockTransport handler echoing the request's credential into the place set for the run,
    served over a loopback socket (links and redirects to its own origin are followed there).

    Paths are matched raw, so a credential quoted into one segment (`%2F`) stays one segment.
    """

    def __init__(self) -> None:
        self.place = PLACES[0]
        self.base = ""

    def link(self, credential: str) -> str:
        """The next page's link with the credential where the run puts it."""
        place, base = self.place, self.base
        host = base.removeprefix("http://")
        return {
            "next-path": f"{base}/pages/{quote(credential, safe='')}/2",
            "next-query": f"{base}/pages/x/2?c={quote(credential, safe='')}",
            "next-fragment": f"{base}/pages/x/2#{credential}",
            "next-userinfo": f"http://user:{quote(credential, safe='')}@{host}/pages/x/2",
            "next-host": f"http://{credential}.example.invalid/pages/x/2",
            "next-foreign-path": f"http://other.example.invalid:81/v1/{credential}",
            "repeats": f"{base}/pages/{quote(credential, safe='')}/2",
            "undecodable": f"{base}/pages/{quote(credential, safe='')}/2",
        }.get(place, f"{base}/pages/x/2")

    def __call__(self, request: MockRequest) -> MockResponse:
        segments = request.url.raw_path.split("/")[1:]
        if segments == ["v1", "endpoints"]:
            return self.list_page(request)
        if len(segments) == 3 and segments[:2] == ["v1", "endpoints"]:
            return self.get(request, segments[2])
        if len(segments) == 3 and segments[0] == "pages" and segments[2] == "2":
            return self.later_page()
        return MockResponse.json(404, {"error": "Not Found"})

    def first_page(self, request: MockRequest) -> MockResponse:
        credential = request.headers.get("Authorization", "").removeprefix("Bearer ")
        place = self.place
        headers = {"X-Request-Id": credential} if place == "request-id" else {}
        if place == "echo-header":
            headers["X-Echo"] = credential
        if place == "challenge":
            headers["WWW-Authenticate"] = f'Bearer error="{credential}"'
            return MockResponse(401, headers)
        if place == "error-body":
            body = {"error": {"code": credential, "message": f"no {credential}"}}
            return MockResponse.json(400, body, headers=headers)
        if place == "request-id":
            return MockResponse.json(503, {"error": "Internal server error."}, headers=headers)
        if place == "cursor":
            return MockResponse.json(
                200, {"items": [endpoint_record("a")], "nextCursor": credential}
            )
        title = f'; title="{credential}"' if place == "link-title" else ""
        headers["Link"] = f'<{self.link(credential)}>; rel="next"{title}'
        return MockResponse.json(200, [endpoint_record("a"), endpoint_record("b")], headers=headers)

    def later_page(self) -> MockResponse:
        if self.place == "repeats":
            return MockResponse.json(200, [endpoint_record("b"), endpoint_record("c")])
        if self.place == "undecodable":
            return MockResponse.json(200, [endpoint_record("c"), 7])
        return MockResponse.json(200, [endpoint_record("c")])

    def list_page(self, request: MockRequest) -> MockResponse:
        if request.query.get("cursor"):
            return MockResponse.json(200, {"items": [endpoint_record("c")], "nextCursor": None})
        return self.first_page(request)

    def get(self, request: MockRequest, id: str) -> MockResponse:
        credential = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if id != "start":
            return MockResponse.json(200, endpoint_record("moved"))
        if self.place == "redirect-userinfo":
            host = self.base.removeprefix("http://")
            target = f"http://u:{quote(credential, safe='')}@{host}/v1/endpoints/x"
        else:
            target = f"{self.base}/v1/endpoints/{quote(credential, safe='')}"
        return MockResponse(302, {"Location": target})


@pytest.fixture(scope="module")
def hostile() -> Iterator[tuple[asyncio.Runner, Hostile]]:
    """The hostile server, over a loopback socket in an event loop that lives for the module."""
    with asyncio.Runner() as runner:
        server = Hostile()
        serving = serve_handler(server)
        server.base = runner.run(serving.__aenter__())
        yield runner, server
        runner.run(serving.__aexit__(None, None, None))


def forms(token: str) -> set[str]:
    """Every form an echoed token takes, lower-cased (hosts come back lower-cased)."""
    return {
        form.lower()
        for form in (
            token,
            quote(token, safe=""),
            quote(token, safe="/"),
            quote_plus(token, safe=""),
            orjson.dumps(token).decode()[1:-1],
            token.replace("/", "\\/"),
        )
    }


def decoded(resume_token: str | None) -> str:
    if resume_token is None:
        return ""
    body = resume_token.removeprefix("r1.")
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("utf-8", "replace")


class Shown(logging.Handler):
    """Every text the run showed."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(message)s"))
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(self.format(record))

    def add(self, *values: object) -> None:
        self.texts += [value if isinstance(value, str) else repr(value) for value in values]

    def error(self, error: BaseException) -> None:
        self.add(error, str(error), "".join(traceback.format_exception(error)))
        for value in vars(error).values():
            self.add(value)
        headers = getattr(error, "headers", None)
        if headers is not None:
            self.add(dict(headers))
        self.add(decoded(getattr(error, "resume_token", None)))


VARIANTS: dict[str, Callable[[RemedyClient], Pager[Any]]] = {
    "typed": lambda client: client.endpoints.list(options=ONE_TRY),
    "as_dicts": lambda client: client.endpoints.list(options=ONE_TRY).as_dicts(),
    "prefetch": lambda client: client.endpoints.list(options=ONE_TRY, prefetch=2),
    "concurrency": lambda client: client.endpoints.list(options=ONE_TRY, concurrency=3),
    "dicts-prefetch": lambda client: client.endpoints.list(options=ONE_TRY, prefetch=2).as_dicts(),
}
WAYS = ("items", "pages", "collect", "first", "resumed")


async def run_list(pager: Pager[Any], way: str, shown: Shown, client: RemedyClient) -> None:
    """List by one way of iterating, showing every page, and resume from where it stopped."""
    if way == "pages":
        async for page in pager.pages():
            shown.add(page, page.url, dict(page.headers), page.request_id)
            shown.add(decoded(page.resume_token))
    elif way == "collect":
        shown.add(await pager.collect())
    elif way == "first":
        shown.add(await pager.first())
    else:
        async for item in pager:
            shown.add(item)
            if way == "resumed":
                break
    shown.add(pager, decoded(pager.resume_token), pager.convention)
    if way == "resumed" and pager.resume_token is not None:
        rest = client.endpoints.list(options=ONE_TRY, resume_token=pager.resume_token)
        shown.add(await rest.collect(), decoded(rest.resume_token))


@given(
    token=st.text(alphabet=B64TOKEN, min_size=10, max_size=40).map("Tk".__add__),
    place=st.sampled_from(PLACES),
    variant=st.sampled_from(sorted(VARIANTS)),
    way=st.sampled_from(WAYS),
)
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_pager_variant_shows_a_token_echoed_anywhere(
    hostile: tuple[asyncio.Runner, Hostile], token: str, place: str, variant: str, way: str
) -> None:
    """A token echoed into any part of a link, a header, a body or a redirect never shows in
    what a list or a get leaves behind, whichever pager variant ran."""
    runner, server = hostile
    server.place = place
    shown = Shown()
    events: list[ClientEvent] = []
    library = logging.getLogger("remedy_async")
    library.addHandler(shown)

    async def scenario() -> None:
        async with RemedyClient(
            server.base, token=token, follow_redirects=True, event_hooks=[events.append]
        ) as client:
            for call in (
                run_list(VARIANTS[variant](client), way, shown, client),
                client.endpoints.get("start", options=ONE_TRY),
            ):
                try:
                    shown.add(await call)
                except RemedyError as error:
                    shown.error(error)
            shown.add(client, client.endpoints)

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runner.run(scenario())
        shown.add(*(str(warning.message) for warning in caught))
    finally:
        library.removeHandler(shown)
    shown.add(*events)
    echoes = forms(token)
    leaks = [text[:200] for text in shown.texts if any(form in text.lower() for form in echoes)]
    assert leaks == []

"""A whole run against a simulator that echoes the token everywhere: the token never shows.

The simulator in echo mode puts the request's credential into every cursor, next link, a
redirect of every get and every error body. Whatever the client then logs (at DEBUG, with
aiohttp's loggers too), hands to event hooks, warns about, raises (with `__cause__` chains and
formatted tracebacks) or prints of itself, its collections, pagers, pages and resume tokens
must not contain the token in any form an echo takes: not even a resume token decoded from
its base64, nor a page's URL and headers.
"""

from __future__ import annotations

import base64
import logging
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from typing import Any
from urllib.parse import quote, quote_plus

import orjson
import pytest
from yarl import URL

from remedy_async import (
    APIConnectionError,
    APIError,
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ClientEvent,
    NotFoundError,
    Pager,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
)
from remedy_async._redact import redact
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.loopback import CANARY

CONVENTIONS = ("cursor", "header-cursor", "next-url", "odata", "link", "offset")
"""Cursors in the body and in a header, next links in the body and in `Link`, and offsets."""
COLLECTIONS = ("endpoints", "remediation_targets", "scopes", "vulnerability_findings")
NASTY = CANARY + "/x+y=="
"""The canary with the characters of a base64 token, which URLs and JSON quote."""
PAGE_SIZE = 10
ONE_TRY = RequestOptions(retry=RetryPolicy(attempts=1))


def forms(token: str) -> set[str]:
    """Every form an echoed token takes: as is, percent-encoded, form-encoded, JSON-escaped."""
    return {
        token,
        quote(token, safe=""),
        quote(token, safe="/"),
        quote(token, safe="/=+"),
        quote_plus(token, safe=""),
        orjson.dumps(token).decode()[1:-1],
        token.replace("/", "\\/"),
    }


class Shown(logging.Handler):
    """Everything the run showed, as text with where it was shown."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.texts: list[tuple[str, str]] = []
        self.marked = 0
        """Resume tokens holding the mark of an echoed token, where the token itself was."""

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append((f"log {record.name}", self.format(record)))

    def add(self, where: str, *values: object) -> None:
        for value in values:
            self.texts.append((where, value if isinstance(value, str) else repr(value)))

    def error(self, where: str, error: BaseException) -> None:
        """An error's str, repr, formatted traceback with its chain, and its cause's repr."""
        self.add(where, str(error), error, "".join(traceback.format_exception(error)))
        self.add(where, error.__cause__, error.__context__)
        if isinstance(error, APIStatusError):
            self.add(where, error.code or "", error.body_excerpt or "", error.detail or "")
            self.add(where, dict(error.headers))

    def leaks(self, token: str) -> list[str]:
        wanted = forms(token)
        return [
            f"{where}: {text[:300]}"
            for where, text in self.texts
            if any(form in text for form in wanted)
        ]


@contextmanager
def watching() -> Iterator[Shown]:
    """Capture every log record (aiohttp's too, at DEBUG) and every warning of the run."""
    shown = Shown()
    root, aiohttp_logger = logging.getLogger(), logging.getLogger("aiohttp")
    level = aiohttp_logger.level
    aiohttp_logger.setLevel(logging.DEBUG)
    root.addHandler(shown)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield shown
        shown.add("warning", *(str(warning.message) for warning in caught))
    finally:
        root.removeHandler(shown)
        aiohttp_logger.setLevel(level)


async def simulators(stack: AsyncExitStack, token: str) -> tuple[Simulator, Simulator]:
    """The echoing simulator the run uses (half the gets of endpoints reset), and one whose
    token is not the canary."""
    main = SimulatorConfig(
        size=3,
        token=token,
        echo_token=True,
        error_format="fastapi",
        faults=(FaultSpec("reset", 0.5, "get:endpoints"),),
    )
    guard = SimulatorConfig(size=3, token="not-the-canary", echo_token=True, error_format="html")
    started = [await stack.enter_async_context(Simulator(config)) for config in (main, guard)]
    return started[0], started[1]


def paging(convention: str) -> RequestOptions:
    return RequestOptions(headers={"X-Simulator-Paging": convention})


def decoded(resume_token: str) -> dict[str, Any]:
    body = resume_token.removeprefix("r1.")
    document: dict[str, Any] = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return document


def encoded(document: dict[str, Any]) -> str:
    return "r1." + base64.urlsafe_b64encode(orjson.dumps(document)).decode().rstrip("=")


VARIANTS: dict[str, Callable[[Pager[Any]], Pager[Any]]] = {
    "typed": lambda pager: pager,
    "as_dicts": lambda pager: pager.as_dicts(),
}
"""Every variant of a pager a list call can give: each must carry the call's secrets."""
LIST_SETTINGS: dict[str, dict[str, int]] = {
    "sequential": {},
    "prefetch": {"prefetch": 2},
    "concurrency": {"concurrency": 3},
}


def item_id(item: Any) -> str:
    return str(item["id"] if isinstance(item, dict) else item.id)


async def list_everything(
    client: RemedyClient, shown: Shown, expected: dict[str, list[str]]
) -> None:
    """Every collection in every convention, by every pager variant and list setting, whole
    and resumed, checked against the data."""
    for convention in CONVENTIONS:
        for name in COLLECTIONS:
            for variant, made in VARIANTS.items():
                for setting, limits in LIST_SETTINGS.items():
                    how = f"{convention} {name} {variant} {setting}"
                    await list_one(getattr(client, name), how, made, limits, shown, expected[name])


async def list_one(
    collection: Any,
    how: str,
    made: Callable[[Pager[Any]], Pager[Any]],
    limits: dict[str, int],
    shown: Shown,
    expected: list[str],
) -> None:
    """One collection by one convention, variant and setting: whole, then resumed halfway."""
    convention = how.split(maxsplit=1)[0]
    pager = made(collection.list(page_size=PAGE_SIZE, options=paging(convention), **limits))
    ids = []
    async for page in pager.pages():
        ids += [item_id(item) for item in page.items]
        where = f"page {how}"
        shown.add(where, page, page.resume_token or "", page.url, dict(page.headers))
        if page.resume_token is not None:
            shown.add(where, decoded(page.resume_token))
    assert ids == expected, how
    shown.add(f"pager {how}", pager, str(pager), collection)
    await resume_halfway(collection, how, made, limits, expected, shown)


async def resume_halfway(
    collection: Any,
    how: str,
    made: Callable[[Pager[Any]], Pager[Any]],
    limits: dict[str, int],
    expected: list[str],
    shown: Shown,
) -> None:
    """Stop after 13 items and resume from the pager's token: the rest, exactly."""
    options = paging(how.split(maxsplit=1)[0])
    pager = made(collection.list(page_size=PAGE_SIZE, options=options, **limits))
    first: list[str] = []
    async for item in pager:
        first.append(item_id(item))
        if len(first) == min(13, len(expected) - 1):
            break
    token = pager.resume_token
    assert token is not None
    shown.add(f"resume token {how}", token, decoded(token))
    shown.marked += "\x1bsecret:0:" in orjson.dumps(decoded(token)).decode().replace(
        "\\u001b", "\x1b"
    )
    rest = made(collection.list(page_size=PAGE_SIZE, resume_token=token, options=options))
    assert first + [item_id(item) async for item in rest] == expected, how
    shown.add(f"resumed pager {how}", rest)


async def get_some(
    client: RemedyClient, shown: Shown, expected: dict[str, list[str]]
) -> list[APIConnectionError]:
    """Get three ids of each collection (each redirected to echo the token); the resets."""
    resets = []
    for name in COLLECTIONS:
        for record_id in expected[name][:3]:
            try:
                record = await getattr(client, name).get(record_id, options=ONE_TRY)
            except APIConnectionError as error:
                shown.error(f"get {name}", error)
                resets.append(error)
            else:
                assert record.id == record_id
                shown.add(f"get {name}", record)
    return resets


async def expect(shown: Shown, kind: type[APIError], call: Any) -> APIError:
    with pytest.raises(kind) as caught:
        await call
    shown.error(kind.__name__, caught.value)
    return caught.value


async def tampered_token(client: RemedyClient) -> str:
    """A resume token of the scopes list, paged by cursors, whose cursor the server never
    issued."""
    pager = client.scopes.list(page_size=PAGE_SIZE, options=paging("cursor"))
    count = 0
    async for _ in pager:
        count += 1
        if count == PAGE_SIZE + 2:  # into the second page, which a cursor asked for
            break
    assert pager.resume_token is not None
    document = decoded(pager.resume_token)
    document["p"] = [
        [name, flip(value) if name == "cursor" else value] for name, value in document["p"]
    ]
    return encoded(document)


def flip(cursor: str) -> str:
    return ("B" if cursor.startswith("A") else "A") + cursor[1:]


@pytest.mark.parametrize("token", [CANARY, NASTY], ids=["canary", "canary-quoted"])
async def test_an_echoing_service_never_gets_the_token_shown(token: str) -> None:
    """Lists, resumes, redirected gets, 404, 401, 400 and resets show no form of the token."""
    events: list[ClientEvent] = []
    async with AsyncExitStack() as stack:
        main, guard = await simulators(stack, token)
        expected = {name: list(main.dataset.ids(name.replace("_", "-"))) for name in COLLECTIONS}
        with watching() as shown:
            following = await stack.enter_async_context(
                RemedyClient(
                    main.url, token=token, follow_redirects=True, event_hooks=[events.append]
                )
            )
            await list_everything(following, shown, expected)
            resets = await get_some(following, shown, expected)
            assert resets
            assert all(reset.__cause__ is not None for reset in resets)
            assert all(reset.url.startswith(f"{main.url}/v1/endpoints/") for reset in resets)
            unknown = "00000000-0000-4000-8000-000000000000"
            await expect(shown, NotFoundError, following.scopes.get(unknown))
            malformed = await expect(shown, BadRequestError, following.scopes.get("no-such-id"))
            assert "Invalid scope ID format." in malformed.message
            bad_cursor = following.scopes.list(
                page_size=PAGE_SIZE,
                resume_token=await tampered_token(following),
                options=paging("cursor"),
            )
            refused = await expect(shown, BadRequestError, bad_cursor.collect())
            assert "invalid cursor" in refused.message
            shown.add("refused pager", bad_cursor, refused.resume_token or "")

            staying = await stack.enter_async_context(
                RemedyClient(main.url, token=token, event_hooks=[events.append])
            )
            await list_everything(staying, shown, expected)
            redirect = await expect(
                shown, APIStatusError, staying.scopes.get(expected["scopes"][0])
            )
            assert redirect.status == 307

            wrong = await stack.enter_async_context(
                RemedyClient(guard.url, token=token, event_hooks=[events.append])
            )
            await expect(shown, AuthenticationError, wrong.endpoints.list().collect())
            await expect(shown, AuthenticationError, wrong.endpoints.get(expected["endpoints"][0]))
            for client in (following, staying, wrong):
                shown.add("client", client, str(client))
                shown.add("collections", *(getattr(client, name) for name in COLLECTIONS))
            shown.add("events", *events)
    assert any(where.startswith("log remedy_async") for where, _ in shown.texts)
    assert any("echo=[REDACTED]" in event.url for event in events)
    assert "echo=[REDACTED]" in str(redirect)
    assert shown.marked > 0  # tokens were resumed from pages the service echoed the token into
    assert shown.leaks(token) == []


def test_redact_finds_a_token_in_the_mixed_encoding_urls_use() -> None:
    """yarl keeps `/` but encodes `+` and `=`; each character may come either way."""
    url = str(URL("https://api.example.com/v1/scopes").with_query(cursor=f"abc.{NASTY} é"))
    assert quote(NASTY, safe="") not in url
    assert NASTY not in url
    assert redact(url, [NASTY + " é"]) == "https://api.example.com/v1/scopes?cursor=abc.[REDACTED]"
    assert redact("x%2fY%2F", ["/Y/"]) == "x[REDACTED]"

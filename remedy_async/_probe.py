"""Finds out the contract a service really follows, with a few read-only requests.

`probe` reads the first page of each collection, fetches one record back by id and one id that
cannot exist, asks for health and downloads the agent configuration (discarding the bytes). It
reports what it saw: each list's paging convention, envelope and field naming, the error-body
convention of a 404, whether the token was accepted, rate-limit headers, warnings and every
exchange (redacted). `ProbeReport.settings()` pins what was found, so production clients need not
rely on detection; `ProbeReport.to_config()` writes it as a file `RemedyClient.from_config` reads.
"""

from __future__ import annotations

import io
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import aclosing
from typing import Any, BinaryIO, cast

import attrs
from attrs import frozen
from yarl import URL

from . import _settings as config
from ._client import RemedyClient
from ._download import DownloadResult
from ._errors import (
    APIStatusError,
    AuthenticationError,
    ConfigurationError,
    PermissionDeniedError,
    RemedyError,
    RemedyWarning,
)
from ._models import RESOURCES, Resource
from ._paging._conventions import convention_document
from ._paging._pager import Page
from ._paging._protocol import Convention, PagingFault
from ._paging._read._items import find_items
from ._profiles import DEFAULT_PROFILE, render_profiles
from ._sending._events import ClientEvent

MISSING_ID = "00000000-0000-0000-0000-000000000000"
"""The id the probe fetches to see how the service says "not found": the nil UUID, well formed
(ids are UUIDs by the published contract, and a malformed one gets a 400, not a 404) and
never given to a record."""
HONOUR_CHECKS = ("offset", "skip", "page", "after")
"""The paging parameters the probe checks a service for, once each per collection."""

_RATE_LIMIT_MARKERS = ("ratelimit", "rate-limit", "retry-after")
_DETECTED = ("paginator", "paginators", "naming", "namings", "event_hooks")


@frozen
class ResourceProbe:
    """What the probe learned about one collection from its first page and two gets."""

    resource: str
    """The collection's attribute name, e.g. `vulnerability_findings`."""
    path: str
    """The collection's path under the base URL (`/v1/endpoints`)."""
    convention: str | None = None
    """The name of its list's paging convention (a preset of `CONVENTIONS`, or `detected` for
    one composed from the page), None if none was found."""
    paging: Convention | None = None
    """That convention itself, as `pager.convention` gives it (what the config file pins)."""
    honoured: tuple[str, ...] = ()
    """The paging parameters (of `offset`, `skip`, `page`, `after`) that brought other records
    than the first page when sent alone: what the service reads, whatever its pages announce."""
    items_path: str | None = None
    """Where the items were in the first page, e.g. `$.items`."""
    first_page_items: int | None = None
    """How many records its first page held."""
    naming: str | None = None
    """How its records spell their keys (snake, the published contract's; or camel, pascal,
    kebab); None with no record."""
    sample_id: str | None = None
    """The id of the first listed record, fetched back by id."""
    fetched_by_id: bool = False
    """Whether the first listed record came back the same from a get by its id."""
    missing_status: int | None = None
    """The status of a get for an id that cannot exist (404 by contract)."""
    error_shape: str | None = None
    """The error-body convention of that answer (a name of `ERROR_SHAPES`)."""
    error_message: str | None = None
    """The message of the answer for an id that cannot exist."""
    problems: tuple[str, ...] = ()
    """Every error met, as `Type: message`."""


@frozen
class ProbeReport:
    """What a service's contract looks like from the client, as `probe` found it."""

    base_url: str
    """The service probed."""
    auth: str
    """`accepted`, `rejected: <why>` or `no token sent`."""
    resources: tuple[ResourceProbe, ...]
    """What was found about each collection."""
    health: str | None = None
    """The status the health check reported, None if it failed (see `problems`)."""
    agent_configuration: DownloadResult | None = None
    """The agent-configuration download, None if it failed."""
    rate_limit_headers: Mapping[str, str] = attrs.field(factory=dict)
    """The rate-limit headers the service sent, by name."""
    warnings: tuple[str, ...] = ()
    """Warnings the client gave while probing (contract drift, ...)."""
    problems: tuple[str, ...] = ()
    """Errors of the health check and the agent-configuration download."""
    exchanges: tuple[ClientEvent, ...] = ()
    """Every response and retry, with redacted URLs."""
    health_path: str = config.HEALTH_PATH
    """The health path used."""
    agent_configuration_path: str = config.AGENT_CONFIGURATION_PATH
    """The agent-configuration path used."""
    auth_header: str = config.AUTH_HEADER
    """The header the token was sent in."""
    auth_scheme: str | None = config.AUTH_SCHEME
    """The word before the token, None for a bare token."""

    @property
    def error_shape(self) -> str | None:
        """The error-body convention most of the service's error answers followed."""
        shapes = Counter(probe.error_shape for probe in self.resources if probe.error_shape)
        return shapes.most_common(1)[0][0] if shapes else None

    @property
    def ok(self) -> bool:
        """Whether every request the probe meant to succeed did."""
        return not self.problems and not any(probe.problems for probe in self.resources)

    def settings(self) -> dict[str, Any]:
        """The `RemedyClient` settings that pin what was found (as `from_config` reads them).

        A collection whose convention or naming was not found is left to detection.
        """
        settings: dict[str, Any] = {
            "base_url": self.base_url,
            "auth_header": self.auth_header,
            "auth_scheme": self.auth_scheme or "none",
            "health_path": self.health_path,
            "agent_configuration_path": self.agent_configuration_path,
        }
        namings = {probe.resource: probe.naming for probe in self.resources if probe.naming}
        if len(namings) == len(self.resources) and len(set(namings.values())) == 1:
            settings["naming"] = next(iter(namings.values()))
        elif namings:
            settings["namings"] = namings
        paginators = {
            probe.resource: convention_document(probe.paging)
            for probe in self.resources
            if probe.paging is not None
        }
        if paginators:
            settings["paginators"] = paginators
        return settings

    def to_config(self, profile: str = DEFAULT_PROFILE) -> str:
        """The pinned settings as a configuration file for `RemedyClient.from_config`.

        Args:
            profile: The name of the file's one profile.
        """
        unpinned = [
            probe.resource
            for probe in self.resources
            if probe.convention is None or probe.naming is None
        ]
        comment = (
            f"remedy-async client configuration, written by `remedy-async probe`\n"
            f"from {self.base_url}. Load it with RemedyClient.from_config(path) or\n"
            "remedy-async --config PATH. The token is not stored: set REMEDY_API_TOKEN,\n"
            "or token_env to the variable that holds it."
        )
        if unpinned:
            comment += f"\nLeft to detection (not found by the probe): {', '.join(unpinned)}."
        return render_profiles({profile: self.settings()}, comment)

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values (for `--format json`)."""
        document = attrs.asdict(self, value_serializer=_plain)
        document["error_shape"] = self.error_shape
        document["ok"] = self.ok
        return document


def _plain(_: object, __: object, value: Any) -> Any:
    if isinstance(value, URL):
        return str(value)
    if hasattr(value, "__fspath__"):
        return str(value)
    return value


class _Discard(io.RawIOBase):
    """A binary file that counts what it is given and keeps none of it."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return len(data)


async def probe(
    base_url: str | URL | None = None,
    *,
    page_size: int = 5,
    missing_id: str = MISSING_ID,
    **settings: Any,
) -> ProbeReport:
    """Probe a service with read-only requests and report the contract it follows.

    Reads one page per collection, then asks once per paging parameter (`offset`, `skip`,
    `page`, `after`) for what would be the next page, to report which the service honours;
    nothing is written to the service. Errors do not stop it: each is reported where met.

    Args:
        base_url: The service, as for `RemedyClient`.
        page_size: Records asked for per page.
        missing_id: An id no record has, to see how the service answers one.
        **settings: `RemedyClient`'s other arguments (token, auth header, paths, timeout, ...),
            but those it detects (paging, naming).
    """
    detected = sorted(set(settings) & set(_DETECTED))
    if detected:
        raise ConfigurationError(f"probe detects what {', '.join(detected)} would set; drop them")
    exchanges: list[ClientEvent] = []

    def record(event: ClientEvent) -> None:
        if event.kind in ("response", "retry"):
            exchanges.append(event)

    client = RemedyClient(base_url, event_hooks=[record], **settings)
    seen: dict[str, str] = {}

    async def survey() -> tuple[list[ResourceProbe], Any, Any]:
        resources = [
            await _probe_resource(client, resource, page_size, missing_id, seen)
            for resource in RESOURCES
        ]
        return resources, await _probe_health(client), await _probe_download(client)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RemedyWarning)
        async with client:
            surveyed = await client._events.traced("probe", client.base_url, survey())
    resources, (health, health_problems), (download, download_problems) = surveyed
    said = [
        f"{warning.category.__name__}: {warning.message}"
        for warning in caught
        if issubclass(warning.category, RemedyWarning)
    ]
    return ProbeReport(
        base_url=str(client.base_url),
        auth=_auth(resources, token_sent=config.token(settings.get("token"))[0] is not None),
        resources=tuple(resources),
        health=health,
        agent_configuration=download,
        rate_limit_headers=seen,
        warnings=tuple(said),
        problems=(*health_problems, *download_problems),
        exchanges=tuple(exchanges),
        health_path=settings.get("health_path", config.HEALTH_PATH),
        agent_configuration_path=settings.get(
            "agent_configuration_path", config.AGENT_CONFIGURATION_PATH
        ),
        auth_header=settings.get("auth_header", config.AUTH_HEADER),
        auth_scheme=settings.get("auth_scheme", config.AUTH_SCHEME),
    )


async def _probe_resource(
    client: RemedyClient,
    resource: Resource[Any],
    page_size: int,
    missing_id: str,
    seen: dict[str, str],
) -> ResourceProbe:
    collection = getattr(client, resource.attribute)
    found: dict[str, Any] = {}
    problems: list[str] = []
    pager = collection.list(page_size=page_size)
    try:
        async with aclosing(pager.pages()) as pages:
            page: Page[Any] | None = await anext(pages, None)
        if page is not None:
            _note_rate_limits(page.headers, seen)
            found["items_path"] = page.items_path
            found["first_page_items"] = len(page.items)
            if page.items:
                found["naming"] = collection.naming
                found["sample_id"] = page.items[0].id
        if pager.convention is not None:
            found["convention"] = pager.convention.name
            found["paging"] = pager.convention
        if page is not None and page.items:
            found["honoured"] = await _honoured(client, resource, page)
    except RemedyError as error:
        problems.append(_said(error))
        _note_error(error, seen)
    if "sample_id" in found:
        try:
            again = await collection.get(found["sample_id"])
            found["fetched_by_id"] = again.id == found["sample_id"]
        except RemedyError as error:
            problems.append(_said(error))
            _note_error(error, seen)
    try:
        await collection.get(missing_id)
        problems.append(f"a get of {missing_id!r}, an id that cannot exist, succeeded")
    except APIStatusError as error:
        _note_error(error, seen)
        found["missing_status"] = error.status
        found["error_shape"] = error.body_shape
        found["error_message"] = error.message
    except RemedyError as error:
        problems.append(_said(error))
    return ResourceProbe(
        resource=resource.attribute,
        path=collection.url.path,
        problems=tuple(problems),
        **found,
    )


async def _honoured(
    client: RemedyClient, resource: Resource[Any], page: Page[Any]
) -> tuple[str, ...]:
    """The paging parameters that, sent alone with the first page's size, bring other records
    than the first page's (a service ignoring one answers with its first page again)."""
    count, first, last = len(page.items), page.items[0].id, page.items[-1].id
    sizes = {"limit": count, "pageSize": count}
    tries = dict(zip(HONOUR_CHECKS, (count, count, 2, last), strict=True))
    honoured = []
    for name, value in tries.items():
        try:
            response = await client.get_json(
                f"/v1/{resource.segment}", params={**sizes, name: value}
            )
            items = find_items(response.body, (resource.segment,)).items
        except (RemedyError, PagingFault):
            continue
        ids = [item.get("id") for item in items if isinstance(item, dict)]
        if ids and ids[0] != first:
            honoured.append(name)
    return tuple(honoured)


async def _probe_health(client: RemedyClient) -> tuple[str | None, Sequence[str]]:
    try:
        status = await client.health()
    except RemedyError as error:
        return None, [f"health: {_said(error)}"]
    return status.status, []


async def _probe_download(client: RemedyClient) -> tuple[DownloadResult | None, Sequence[str]]:
    try:
        sink = cast(BinaryIO, _Discard())
        return await client.download_agent_configuration(sink), []
    except RemedyError as error:
        return None, [f"agent configuration: {_said(error)}"]


def _auth(resources: Sequence[ResourceProbe], *, token_sent: bool) -> str:
    if not token_sent:
        return "no token sent"
    problems = [problem for probe in resources for problem in probe.problems]
    for problem in problems:
        if problem.startswith(f"{AuthenticationError.__name__}:"):
            return f"rejected: {problem}"
    for problem in problems:
        if problem.startswith(f"{PermissionDeniedError.__name__}:"):
            return f"accepted, but not allowed everywhere: {problem}"
    listed = any(probe.first_page_items is not None for probe in resources)
    return "accepted" if listed else "unknown (no list answered)"


def _note_error(error: RemedyError, seen: dict[str, str]) -> None:
    if isinstance(error, APIStatusError):
        _note_rate_limits(error.headers, seen)


def _note_rate_limits(headers: Mapping[str, str], seen: dict[str, str]) -> None:
    for name, value in headers.items():
        if any(marker in name.lower() for marker in _RATE_LIMIT_MARKERS):
            seen[name] = value


def _said(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"

"""The OpenAPI document of a simulator run: `openapi.yaml` with what the run does differently.

`openapi.yaml` is the service's published contract (`PUBLISHED_RUN`: `offset` paging under
`data`, page size 50 and at most 100, snake_case records, `{"error": "<message>"}` bodies,
bearer auth), which the default run serves. For any other run the same document is rewritten
from the code that serves it: the lists from the paging convention's row and page layout
(`_spec_lists`, `_spec_composed`), record property names by the run's naming, error bodies from
the shape's renderer (`_spec_errors`), and the auth scheme, page sizes, paths and echo mode from
the configuration. What a run rewrites is marked `x-contract: simulated` (with what it does in
`x-simulated`), so the published and assumed parts stay told apart. The default run's document
is the file itself (a test compares them); the simulator serves it at `GET /openapi.json`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, NamedTuple

import orjson

from remedy_async import CONVENTIONS

from ._churn import RANGE_SUFFIX
from ._compose_layout import items_path
from ._composed import composition_of
from ._fields import UPDATED_AT
from ._filters import PAGING_PARAMETERS
from ._lists import ECHO_PARAMETER, page_layout
from ._positions import CONTINUING
from ._run_config import RESOURCES, SimulatorConfig
from ._spec_composed import composed_headers, composed_parameters, composed_schema
from ._spec_errors import PUBLISHED_ERROR_FORMAT, error_content
from ._spec_lists import (
    first_record_link,
    page_headers,
    page_schema,
    paging_parameters,
    respelled,
    simulated,
)

SOURCE: Final = Path(__file__).resolve().parent.parent / "openapi.yaml"
ERROR_SCHEMA: Final = "#/components/schemas/Error"
PUBLISHED_RUN: Final = SimulatorConfig(
    paging="offset",
    items_key="data",
    naming="snake",
    page_size=50,
    max_page_size=100,
    error_format=PUBLISHED_ERROR_FORMAT,
    auth_header="Authorization",
    auth_scheme="Bearer",
)
"""The run `openapi.yaml` describes as it stands: the service's published contract."""
_LISTS: Final = ("paging", "items_key", "disguise_paging", "page_size", "max_page_size")
"""The settings a run's lists are described by."""
CURSOR_EXPIRED: Final = "CursorExpired"


class _Collection(NamedTuple):
    """Where one collection lives in the document."""

    list_operation: dict[str, Any]
    get_operation: dict[str, Any]
    page_response: str
    page_schema: str
    record: str


@lru_cache(maxsize=1)
def _source() -> dict[str, Any]:
    try:
        import yaml  # noqa: PLC0415 - only a run asked for its document needs it
    except ModuleNotFoundError as error:  # pragma: no cover - pyyaml ships with the tests
        raise RuntimeError("the OpenAPI document needs PyYAML: pip install pyyaml") from error
    document: dict[str, Any] = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    return document


def openapi_document(config: SimulatorConfig) -> dict[str, Any]:
    """The OpenAPI 3.1 document of what a simulator with this configuration serves (as it
    serves it at `GET /openapi.json`): `openapi.yaml` for a run of the published contract.

    Args:
        config: The run's configuration.
    """
    document = copy.deepcopy(_source())
    collections = {resource: _collection(document, resource) for resource in RESOURCES}
    if _differs(config, *_LISTS):
        _write_lists(document, config, collections)
    _write_links(document, config, collections)
    records = [found.record for found in collections.values()]
    _write_naming(document, config.naming, records)
    _write_errors(document, config.error_format)
    _write_auth(document, config)
    if config.id_prefix:
        _write_id_prefix(document, collections.values(), config)
    if config.range_filters:
        _write_range_filters(collections.values())
    if config.echo_token:
        _write_echo(collections.values())
    _write_paths(document, config)
    summary = describe_run(config)
    if summary:
        document["info"]["description"] += f"\n## This run\n{summary}\n"
    _prune(document)
    return document


def openapi_json(config: SimulatorConfig, *, indent: bool = False) -> bytes:
    """The run's OpenAPI document as JSON.

    Args:
        config: The run's configuration.
        indent: Indent it, with a final newline, for people.
    """
    document = openapi_document(config)
    if indent:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
    return orjson.dumps(document)


def _differs(config: SimulatorConfig, *names: str) -> bool:
    return any(getattr(config, name) != getattr(PUBLISHED_RUN, name) for name in names)


def _tail(reference: str) -> str:
    return reference.rsplit("/", 1)[1]


def _collection(document: dict[str, Any], resource: str) -> _Collection:
    paths = document["paths"]
    listing = paths[f"/v1/{resource}"]["get"]
    getting = next(
        item["get"] for path, item in paths.items() if path.startswith(f"/v1/{resource}/")
    )
    page_response = _tail(listing["responses"]["200"]["$ref"])
    content = document["components"]["responses"][page_response]["content"]
    record_schema = getting["responses"]["200"]["content"]["application/json"]["schema"]
    return _Collection(
        list_operation=listing,
        get_operation=getting,
        page_response=page_response,
        page_schema=_tail(content["application/json"]["schema"]["$ref"]),
        record=_tail(record_schema["$ref"]),
    )


def _write_lists(
    document: dict[str, Any], config: SimulatorConfig, collections: dict[str, _Collection]
) -> None:
    """The run's paging parameters, page bodies and headers, and its 410 if it hands out
    continuations (the published lists have none)."""
    components = document["components"]
    composition = composition_of(config.paging)
    convention = CONVENTIONS[config.paging] if composition is None else composition.convention
    stale = {
        key for key, value in components["parameters"].items() if value["name"] in PAGING_PARAMETERS
    }
    for key in stale:
        del components["parameters"][key]
    sizes = (config.page_size, config.max_page_size)
    if composition is None:
        parameters = paging_parameters(convention, *sizes)
    else:
        parameters = composed_parameters(composition, *sizes)
    said = f"this run's `{config.paging}` paging (page size {config.page_size}, at most " + (
        f"{config.max_page_size}), not the published `offset`/`limit`"
    )
    for parameter in parameters.values():
        parameter.update(simulated(said))
    components["parameters"].update(parameters)
    references = [{"$ref": f"#/components/parameters/{key}"} for key in parameters]
    continuing = convention.follow in CONTINUING
    if continuing:
        components["responses"][CURSOR_EXPIRED] = _cursor_expired(said)
    for resource, found in collections.items():
        operation = found.list_operation
        kept = [p for p in operation["parameters"] if _tail(p.get("$ref", "/")) not in stale]
        operation["parameters"] = [*references, *kept]
        if continuing:
            operation["responses"]["410"] = {"$ref": f"#/components/responses/{CURSOR_EXPIRED}"}
            operation["responses"] = dict(sorted(operation["responses"].items()))
        response = components["responses"][found.page_response]
        if composition is None:
            layout = page_layout(
                convention, resource, config.items_key, disguise=config.disguise_paging
            )
            response["headers"].update(page_headers(layout, convention))
            schema = page_schema(convention, layout, found.record)
        else:
            items = items_path(composition, resource)
            response["headers"].update(composed_headers(composition))
            schema = composed_schema(composition, items, found.record)
        response.update(simulated(said))
        response.pop("x-reference", None)
        components["schemas"][found.page_schema] = {**schema, **simulated(said)}


def _cursor_expired(said: str) -> dict[str, Any]:
    return {
        "description": "The cursor is too old: restart the listing.",
        **simulated(said),
        "headers": {"X-Request-Id": {"$ref": "#/components/headers/RequestId"}},
        "content": {"application/json": {"schema": {"$ref": ERROR_SCHEMA}}},
    }


def _items_of(config: SimulatorConfig, resource: str) -> tuple[str, ...]:
    composition = composition_of(config.paging)
    if composition is not None:
        return items_path(composition, resource)
    convention = CONVENTIONS[config.paging]
    layout = page_layout(convention, resource, config.items_key, disguise=config.disguise_paging)
    return layout.items


def _write_links(
    document: dict[str, Any], config: SimulatorConfig, collections: dict[str, _Collection]
) -> None:
    """Each list's link from its first record to the get of that record, where the run's
    pages keep it."""
    responses = document["components"]["responses"]
    for resource, found in collections.items():
        getting = found.get_operation
        link = first_record_link(
            _items_of(config, resource),
            config.naming,
            getting["operationId"],
            getting["parameters"][0]["name"],
        )
        responses[found.page_response]["links"] = {f"Get{found.record}": link}


def _write_naming(document: dict[str, Any], naming: str, records: list[str]) -> None:
    """Respell the property names (and `required` lists) of the records and what they hold."""
    if naming == PUBLISHED_RUN.naming:
        return
    schemas = document["components"]["schemas"]
    seen: set[str] = set()
    said = f"this run spells record keys in {naming} case, not the published snake_case"

    def respell(schema: Any) -> None:
        if isinstance(schema, list):
            for inner in schema:
                respell(inner)
            return
        if not isinstance(schema, dict):
            return
        reference = schema.get("$ref")
        if reference is not None and _tail(reference) not in seen:
            seen.add(_tail(reference))
            respell(schemas[_tail(reference)])
        if "properties" in schema:
            schema["properties"] = {
                respelled(key, naming): value for key, value in schema["properties"].items()
            }
            schema["x-naming"] = said
        if "required" in schema:
            schema["required"] = [respelled(key, naming) for key in schema["required"]]
        for key in ("properties", "items", "oneOf", "anyOf", "allOf"):
            inner = schema.get(key)
            respell(
                list(inner.values()) if isinstance(inner, dict) and key == "properties" else inner
            )

    for record in records:
        respell({"$ref": f"#/components/schemas/{record}"})


def _write_errors(document: dict[str, Any], error_format: str) -> None:
    """Every error response in the run's error shape (media type and body schema)."""
    if error_format == PUBLISHED_RUN.error_format:
        return
    media_type, schema = error_content(error_format)
    said = f'this run\'s `{error_format}` error bodies, not the published {{"error": ...}}'
    document["components"]["schemas"]["Error"] = {**schema, **simulated(said)}
    for response in document["components"]["responses"].values():
        content = response.get("content", {})
        if any(media.get("schema") == {"$ref": ERROR_SCHEMA} for media in content.values()):
            response["content"] = {media_type: {"schema": {"$ref": ERROR_SCHEMA}}}


def _write_auth(document: dict[str, Any], config: SimulatorConfig) -> None:
    header, scheme = config.auth_header, config.auth_scheme
    if not _differs(config, "auth_header", "auth_scheme"):
        return
    sent = f"`{header}: {scheme + ' ' if scheme else ''}<token>`"
    if header.lower() == "authorization" and scheme is not None:
        name, security = f"{scheme.lower()}Auth", {"type": "http", "scheme": scheme.lower()}
    else:
        name, security = "apiKeyAuth", {"type": "apiKey", "in": "header", "name": header}
    marker = simulated(f"this run's credential {sent}, not the published bearer token")
    document["components"]["securitySchemes"] = {name: {**security, "description": sent, **marker}}
    document["security"] = [{name: []}]


def _write_id_prefix(
    document: dict[str, Any], collections: Iterable[_Collection], config: SimulatorConfig
) -> None:
    """Ids that are the run's prefix and a UUID: no longer of the `uuid` format."""
    said = f"this run's ids are {config.id_prefix!r} and a UUID, not a bare UUID"
    schemas = document["components"]["schemas"]
    key = respelled("id", config.naming)
    for found in collections:
        parameter = found.get_operation["parameters"][0]
        parameter.pop("x-reference", None)
        parameter.update({"schema": {"type": "string", "minLength": 1}, **simulated(said)})
        schemas[found.record]["properties"][key] = {"type": "string", **simulated(said)}


def _write_range_filters(collections: Iterable[_Collection]) -> None:
    range_filter = {
        "name": UPDATED_AT + RANGE_SUFFIX,
        "in": "query",
        "description": "The records updated at or after this time (the change feed's filter).",
        **simulated("this run's range filter, which no list publishes"),
        "schema": {"type": "string", "format": "date-time"},
    }
    for found in collections:
        found.list_operation["parameters"].append(range_filter)


def _write_echo(collections: Iterable[_Collection]) -> None:
    echo = {
        "name": ECHO_PARAMETER,
        "in": "query",
        "description": "Echo mode: the credential a redirect or page URL echoed; ignored.",
        **simulated("this run's echo mode"),
        "schema": {"type": "string"},
    }
    redirect = {
        "description": "Echo mode: the same URL plus `echo=<credential>`.",
        **simulated("this run's echo mode"),
        "headers": {"Location": {"required": True, "schema": {"type": "string"}}},
    }
    for found in collections:
        found.list_operation["parameters"].append(echo)
        found.get_operation.setdefault("parameters", []).append(echo)
        found.get_operation["responses"]["307"] = redirect


def _write_paths(document: dict[str, Any], config: SimulatorConfig) -> None:
    if config.base_path:
        for server in document["servers"]:
            server["url"] += config.base_path
    paths = document["paths"]
    for default, configured in (
        (PUBLISHED_RUN.health_path, config.health_path),
        (PUBLISHED_RUN.agent_configuration_path, config.agent_configuration_path),
    ):
        if configured != default:
            paths[configured] = paths.pop(default)


_DIFFERENCES: Final[tuple[tuple[tuple[str, ...], Callable[[SimulatorConfig], str]], ...]] = (
    (("paging",), lambda c: f"paging `{c.paging}`{_summary(c.paging)}"),
    (("disguise_paging",), lambda c: "paging signals renamed to `nxt_tok_x`, `Nxt-Tok-X`, ..."),
    (("items_key",), lambda c: f"contract envelopes keep their items under `{c.items_key}`"),
    (("page_size", "max_page_size"),
     lambda c: f"page size {c.page_size} by default, {c.max_page_size} at most"),
    (("naming",), lambda c: f"record keys in {c.naming} case"),
    (("error_format",), lambda c: f"error bodies in the `{c.error_format}` shape"),
    (("auth_header", "auth_scheme"), lambda c: f"the credential in `{c.auth_header}`"),
    (("echo_token",), lambda c: "echo mode (the credential echoed into cursors, links, errors "
                                "and a redirect of every get)"),
    (("health_path",), lambda c: f"health at `{c.health_path}`"),
    (("agent_configuration_path",),
     lambda c: f"agent configuration at `{c.agent_configuration_path}`"),
    (("base_path",), lambda c: f"every route under `{c.base_path}`"),
    (("strict_params",), lambda c: "a query parameter a list does not declare is a 422"),
    (("range_filters",), lambda c: f"lists take `{UPDATED_AT}{RANGE_SUFFIX}`"),
    (("id_prefix",), lambda c: f"ids are {c.id_prefix!r} and a UUID"),
)  # fmt: skip
"""Each setting that changes the document, and how the document's description says so."""


def _summary(paging: str) -> str:
    """', <summary>' of a named convention ('' for a composed mode, whose name says all)."""
    convention = CONVENTIONS.get(paging)
    return "" if convention is None else f", {convention.summary}"


def describe_run(config: SimulatorConfig) -> str:
    """What a run does differently from the published contract, as a sentence ('' for none)."""
    differences = [say(config) for fields, say in _DIFFERENCES if _differs(config, *fields)]
    if not differences:
        return ""
    return (
        "This simulator run differs from the published contract (its parts are marked "
        f"`x-contract: simulated`): {'; '.join(differences)}."
    )


def _prune(document: dict[str, Any]) -> None:
    """Drop the component responses nothing refers to any more."""
    responses = document["components"]["responses"]
    text = orjson.dumps(document["paths"]).decode()
    for key in [key for key in responses if f'"#/components/responses/{key}"' not in text]:
        del responses[key]

"""The OpenAPI document of a simulator run: `openapi.yaml` with what the run does differently.

`openapi.yaml` is the service's published contract (`PUBLISHED_RUN`: `offset` paging under
`data`, page size 50 and at most 100, snake_case records, `{"error": "<message>"}` bodies,
bearer auth), which the default run serves. For any other run the same document is rewritten
from the code that serves it: the lists from the paging convention's row and page layout,
record property names by the run's naming, error bodies from the shape's renderer, and the auth
scheme, page sizes, paths and echo mode from the configuration. What a run rewrites is marked
`x-contract: simulated` (with what it does in `x-simulated`), so the published and assumed parts
stay told apart. The default run's document is the file itself (a test compares them); the
simulator serves it at `GET /openapi.json`.

Sections, each read from what serves the pages, so a document and the pages it describes come
from one place:

- error bodies: the schema is read off an error rendered by the shape's own renderer
  (`_responses.SHAPES`): every object's keys are required, every value typed as the sample's (a
  text or HTML body is a string); the published shape is `PUBLISHED_ERROR_FORMAT`;
- the document of a run (`openapi_document`, `openapi_json`, `describe_run`);
- the lists, read from the `Composition` the page server serves (a named convention's is the
  one `_rows` makes of its row, disguised if the run is) and the items path its layout writes:
  one writer for every paging. Two things OpenAPI cannot say exactly are said loosely: a member
  or header present on some pages only (a continuation that is absent at the end, a backward
  one from page two) is documented as optional, and the end that keeps the continuation on the
  last page (`flag`, `link-false`, `empty`) is said in the descriptions only.
"""

from __future__ import annotations

import copy
import pathlib
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, Final, NamedTuple

import orjson

from remedy_async import CONVENTIONS

from ._churn import RANGE_SUFFIX
from ._composition import Composition, Path, Slot
from ._layout import items_path
from ._matching import PAGING_PARAMETERS, UPDATED_AT
from ._pages import ECHO_PARAMETER, composition_of, max_size
from ._places import CONTINUING, MAX_POSITION
from ._responses import JSON, SHAPES, ApiError
from ._rows import Served, served
from ._run_config import RESOURCES, SimulatorConfig

# Error bodies: a media type and a JSON Schema read off an error rendered by its shape.

SAMPLE: Final = ApiError(404, "not_found", "no endpoint with id 'x'", location=("path", "id"))
"""The error the schemas are read from (one with a location, so FastAPI's `loc` has items)."""

_TYPES: Final[tuple[tuple[type, str], ...]] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
)


def schema_of(value: Any) -> dict[str, Any]:
    """The JSON Schema of a JSON value's shape: objects with every key required, arrays of
    the first item's shape, scalars by type."""
    if isinstance(value, dict):
        return {
            "type": "object",
            "required": list(value),
            "properties": {key: schema_of(inner) for key, inner in value.items()},
        }
    if isinstance(value, list):
        return {"type": "array", "items": schema_of(value[0])} if value else {"type": "array"}
    if value is None:
        return {"type": "null"}
    return {"type": next(name for kind, name in _TYPES if isinstance(value, kind))}


def _published_format() -> str:
    """The shape whose bodies are the published `{"error": "<message>"}`."""
    for name, (content_type, render) in SHAPES.items():
        if content_type.split(";")[0].strip() == JSON and orjson.loads(render(SAMPLE)) == {
            "error": SAMPLE.message
        }:
            return name
    raise LookupError("no error shape writes the published {'error': message}")  # pragma: no cover


PUBLISHED_ERROR_FORMAT: Final = _published_format()
"""The name of the error shape the service publishes (`{"error": "<message>"}`)."""


def error_content(error_format: str) -> tuple[str, dict[str, Any]]:
    """The media type (without parameters) and body schema of the errors of a shape."""
    content_type, render = SHAPES[error_format]
    media_type = content_type.split(";")[0].strip()
    if not media_type.endswith("json"):
        return media_type, {"type": "string"}
    return media_type, schema_of(orjson.loads(render(SAMPLE)))


# The document of a run: `openapi.yaml`, rewritten where the run differs.

SOURCE: Final = pathlib.Path(__file__).resolve().parent.parent / "openapi.yaml"
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
    how, name = _served(config)
    composition = how.composition
    row = CONVENTIONS.get(config.paging)
    convention = row if row is not None else composition.convention
    stale = {
        key for key, value in components["parameters"].items() if value["name"] in PAGING_PARAMETERS
    }
    for key in stale:
        del components["parameters"][key]
    parameters = paging_parameters(composition, config.page_size, config.max_page_size)
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
        response["headers"].update(page_headers(how))
        items = items_path(composition, resource)
        schema = page_schema(composition, items, found.record, name)
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


def _served(config: SimulatorConfig) -> tuple[Served, str]:
    """How the run's lists are served (the composition of its named convention, disguised if
    the run is, or its composed mode), and how a page's description names that paging."""
    composition = composition_of(config.paging)
    if composition is not None:
        return Served(composition), f"composed paging `{composition}`"
    row = CONVENTIONS[config.paging]
    return served(row, config.items_key, disguise=config.disguise_paging), f"`{row.name}` paging"


def _items_of(config: SimulatorConfig, resource: str) -> tuple[str, ...]:
    return items_path(_served(config)[0].composition, resource)


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


# The lists: parameters, page body, headers, link.

JSON_POINTER_ESCAPES: Final = (("~", "~0"), ("/", "~1"))
LINK_DESCRIPTION: Final = "The first listed record, fetched back by its id."
_WORD = re.compile(r"[A-Za-z0-9]+")


def simulated(what: str) -> dict[str, str]:
    """The marker of a part a simulator run rewrote: `x-contract: simulated` and what the run
    does instead of the published contract (`x-simulated`)."""
    return {"x-contract": "simulated", "x-simulated": what}


def respelled(key: str, naming: str) -> str:
    """A snake_case key (as the contract spells record keys) as `naming` spells it:
    `mac_address` -> `macAddress` (camel), `MacAddress` (pascal), `mac-address` (kebab)."""
    words = key.split("_")
    if naming == "snake":
        return key
    if naming == "kebab":
        return "-".join(words)
    capitalised = "".join(word[:1].upper() + word[1:] for word in words)
    return capitalised if naming == "pascal" else words[0] + capitalised[len(words[0]) :]


def component_name(parameter: str) -> str:
    """The components key of a query parameter: `page[size]` -> `PageSize`."""
    return "".join(word[:1].upper() + word[1:] for word in _WORD.findall(parameter))


_STRING: Final = {"type": "string"}


def put(
    schema: dict[str, Any], path: tuple[str, ...], leaf: dict[str, Any], *, required: bool = True
) -> None:
    """Put `leaf` at `path` in an object schema (required, with the objects on the way,
    unless told otherwise), making the objects on the way."""
    for key in path[:-1]:
        schema = _member(schema, key, {"type": "object"}, required)
    _member(schema, path[-1], leaf, required)


def _member(
    schema: dict[str, Any], key: str, default: dict[str, Any], required: bool
) -> dict[str, Any]:
    if required:
        names = schema.setdefault("required", [])
        if key not in names:
            names.append(key)
    member: dict[str, Any] = schema.setdefault("properties", {}).setdefault(key, default)
    return member


def first_record_link(
    items: tuple[str, ...], naming: str, operation_id: str, parameter: str
) -> dict[str, Any]:
    """The OpenAPI link from a page whose records are at `items` to the get of its first
    record (`$response.body#/.../0/id`)."""
    path = (*items, "0", respelled("id", naming))
    pointer = "".join("/" + _escaped(key) for key in path)
    return {
        "operationId": operation_id,
        "parameters": {parameter: f"$response.body#{pointer}"},
        "description": LINK_DESCRIPTION,
    }


def _escaped(key: str) -> str:
    for raw, escaped in JSON_POINTER_ESCAPES:
        key = key.replace(raw, escaped)
    return key


_PAGES: Final = ("page", "page-token")
_VALUES: Final = {
    "url": "cursor",
    "token": "cursor",
    "number": "offset",
    "page-token": "page number",
}
_ENDS: Final = {
    "null": "null on the last page",
    "absent": "absent on the last page",
    "blank": 'empty ("") on the last page',
    "flag": "still present on the last page, where a flag says the end",
    "link-false": 'still a rel="next" link on the last page, with results="false"',
    "empty": "still present on the last page: only an empty page ends the list",
}


def paging_parameters(
    composition: Composition, page_size: int, max_page_size: int
) -> dict[str, dict[str, Any]]:
    """The request parameters of a list served by `composition`, by component key: the place
    and the page size."""
    c = composition
    parameters: dict[str, dict[str, Any]] = {}
    if c.param is not None:
        description, schema = _composed_place(c)
        parameters[component_name(c.param)] = {
            "name": c.param,
            "in": c.param_in,
            "description": description,
            "schema": schema,
        }
    if c.size_param is not None:
        maximum = max_size(c, max_page_size)
        default = c.default_size or min(page_size, maximum)
        parameters[component_name(c.size_param)] = {
            "name": c.size_param,
            "in": "query",
            "description": f"Page size (default {default}, maximum {maximum}).",
            "schema": {"type": "integer", "minimum": 1, "maximum": maximum, "default": default},
        }
    return parameters


def _composed_place(c: Composition) -> tuple[str, dict[str, Any]]:
    first = "; absent or empty for the first page."
    if c.follow in ("offset", "number"):
        given = "" if c.follow == "offset" else f", as the previous page gave at {_where(c.next)}"
        return f"Records to skip (default 0){given}.", _integer(0)
    if c.follow in ("page", "page-token"):
        text = f"The page number, from {c.first_page} (default {c.first_page})."
        return text, _integer(c.first_page)
    if c.follow == "keyset":
        text = f"The id of the last record of the previous page{first}"
        return f"{text} An id that is not in this list is a 422.", _STRING
    what = "the token in the URL the previous page gave" if c.follow == "url" else "the token"
    text = f"The opaque cursor: {what} at {_where(c.next)}{first}"
    return f"{text} One this server did not issue for this list is a 400.", _STRING


def _integer(start: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": start, "maximum": MAX_POSITION, "default": start}


def _where(slot: Slot | None) -> str:
    if slot is None:
        return "nowhere"
    return f"its `{slot.header}` header" if slot.header is not None else f"`{'.'.join(slot.path)}`"


def page_headers(how: Served) -> dict[str, dict[str, Any]]:
    """The response headers a list served `how` sends: continuation, redundant, first-page and
    backward links, total and page count (under the names a disguised run sends them)."""
    c = how.composition
    headers: dict[str, dict[str, Any]] = {}
    link: list[str] = []
    for role, slot in (("next", c.next), ("also", c.also)):
        if slot is None or slot.header is None:
            continue
        if slot.link:
            again = " (the same continuation again)" if role == "also" else ""
            link.append(f'`<url>; rel="next"`{again}')
            continue
        value = _VALUES[c.follow] if role == "also" or c.follow != "url" else "URL"
        said = f"The {value} of the next page; {_ENDS[c.ending]}."
        required = c.ending in ("blank", "flag", "empty")
        headers[slot.header] = {"description": said, "required": required, "schema": _STRING}
    first = c.start is not None and c.start.link
    if first:
        link.append('`<url>; rel="first"` on every page')
    if c.prev is not None and c.prev.link:
        link.append('`<url>; rel="prev"` from the second page on')
    if link:
        ends = f" The next link is {_ENDS[c.ending]}." if c.next is not None and c.next.link else ""
        said = f"RFC 8288 links: {', '.join(link)}.{ends}"
        headers["Link"] = {"description": said, "required": first, "schema": _STRING}
    for slot, what in ((c.total, "Records that match the filters."), (c.pages, "Pages.")):
        if slot is not None and slot.header is not None:
            headers[slot.header] = {
                "description": what,
                "required": True,
                "schema": {"type": "string", "pattern": "^[0-9]+$"},
            }
    sent = dict(how.renamed_headers)
    return {sent.get(name, name): header for name, header in headers.items()}


def page_schema(composition: Composition, items: Path, record: str, paging: str) -> dict[str, Any]:
    """The JSON Schema of a page: the record array at `items`, every body signal where the
    composition writes it (required where every page writes it); `paging` names it."""
    c = composition
    array = {"type": "array", "items": {"$ref": f"#/components/schemas/{record}"}}
    description = f"A page ({paging})."
    if not items:
        return {**array, "description": description}
    schema: dict[str, Any] = {"type": "object", "description": description}
    put(schema, items, array)
    for path, leaf, required in _members(c):
        put(schema, path, leaf, required=required)
    return schema


def _members(c: Composition) -> list[tuple[Path, dict[str, Any], bool]]:
    members: list[tuple[Path, dict[str, Any], bool]] = []
    end = c.ending
    for role, slot in (("next", c.next), ("also", c.also)):
        if slot is None or slot.header is not None:
            continue
        url = c.follow == "url" or role == "also"
        kinds = ["string"] if url or c.follow == "token" else ["integer"]
        if end == "blank" and kinds == ["integer"]:
            kinds.append("string")
        if end in ("null", "link-false"):
            kinds.append("null")
        said = f"The {'URL' if url else 'continuation'} of the next page; {_ENDS[end]}."
        members.append((slot.path, {"type": kinds, "description": said}, end != "absent"))
    if c.start is not None and not c.start.link:
        said = "The URL of the list's first page."
        members.append((c.start.path, {"type": "string", "description": said}, True))
    if c.prev is not None and not c.prev.link:
        kind = "string" if c.follow in ("url", "token", "keyset") else "integer"
        said = "Where the previous page is; null on the first page."
        members.append((c.prev.path, {"type": [kind, "null"], "description": said}, True))
    for path, said in (
        (c.more_at, "Whether more records follow."),
        (c.last_at, "Whether this page is the last."),
    ):
        if path:
            members.append((path, {"type": "boolean", "description": said}, True))
    counts = (
        (_body(c.total), 0, "Records that match the filters."),
        (_body(c.pages), 0, "Pages of matching records."),
        (c.size_at, 1, "The page size served."),
        (c.position_at, c.first_page if c.follow in _PAGES else 0, _position_said(c)),
    )
    for path, minimum, said in counts:
        if path:
            leaf = {"type": "integer", "minimum": minimum, "description": said}
            members.append((path, leaf, True))
    return members


def _body(slot: Slot | None) -> Path:
    return () if slot is None or slot.header is not None else slot.path


def _position_said(c: Composition) -> str:
    what = "page number" if c.follow in ("page", "page-token") else "offset"
    return f"The {what} {'served' if c.position_shows == 'served' else 'of the next page'}."

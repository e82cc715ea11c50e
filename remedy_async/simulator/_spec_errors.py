"""Describes the error bodies of a run as OpenAPI content: a media type and a JSON Schema.

The schema is read off an error rendered by the shape's own renderer (`_error_shapes.SHAPES`),
so the document and the bodies cannot drift apart: every object's keys are required, every
value typed as the sample's (a text or HTML body is a string). The published shape,
`{"error": "<message>"}`, is `openapi.yaml`'s own (`PUBLISHED_ERROR_FORMAT`).
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from ._error_shapes import SHAPES
from ._responses import JSON, ApiError

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

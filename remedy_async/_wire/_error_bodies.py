"""Reads the service's explanation out of an error body, whatever convention it follows.

Understood: the service's published `{"error": "<message>"}` (shape `error-string`), the
`{"error": {"code", "message"}}` envelope, RFC 9457 problem details
(`type`, `title`, `detail`), `{"detail": "..."}` and FastAPI's `{"detail": [{"loc", "msg"}]}`,
JSON:API and GraphQL `errors[]`, OAuth `error` + `error_description`, `message`/`Message` and
`code`/`Code` spellings, lists of strings, plain text (its first line) and HTML (its `<title>` or
first heading, never the page). Pure: bytes and a media type in, an `Explanation` out.
"""

from __future__ import annotations

import re
from typing import Any

from attrs import frozen

from ._json import NotJSON, dumps, loads

MESSAGE_LIMIT = 300
"""Longest message taken from a body; the rest stays in the error's body excerpt."""

_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)
_HTML_HEADING = re.compile(r"<h[1-3][^>]*>(.*?)</h[1-3]>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


ERROR_SHAPES = (
    "error",
    "problem",
    "detail",
    "fastapi",
    "json-api",
    "graphql",
    "oauth",
    "message",
    "pascal-message",
    "error-string",
    "strings",
    "text",
    "html",
)
"""The names of the error-body conventions `explain` tells apart, as `Explanation.shape`."""


@frozen
class Explanation:
    """What an error body says: a machine code, a human message and any further detail.

    `shape` names the convention the body follows (one of `ERROR_SHAPES`), or is None when the
    body explains nothing this module understands.
    """

    code: str | None = None
    message: str | None = None
    detail: str | None = None
    shape: str | None = None


def explain(body: bytes, content_type: str) -> Explanation:
    """Return what an error body explains (all None when it explains nothing)."""
    if not body.strip():
        return Explanation()
    text = body.decode("utf-8", errors="replace")
    if "json" in content_type or text.lstrip()[:1] in ("{", "["):
        try:
            document = loads(body)
        except NotJSON:
            return Explanation()  # broken JSON explains nothing; the excerpt shows it
        return _from_json(document)
    if "html" in content_type or text.lstrip()[:1] == "<":
        said = _from_html(text)
        return Explanation(message=said, shape="html" if said else None)
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return Explanation(message=_short(first_line) or None, shape="text")


def _from_json(document: Any) -> Explanation:
    if isinstance(document, list):
        return Explanation(message=_joined(document), shape="strings")
    if not isinstance(document, dict):
        return Explanation(message=_short(_text(document)))
    error = _get(document, "error")
    if isinstance(error, dict):
        return Explanation(
            code=_text(_get(error, "code") or _get(error, "type")),
            message=_short(_text(_get(error, "message") or _get(error, "detail"))),
            detail=_short(_text(_get(error, "details"))),
            shape="error",
        )
    if isinstance(error, str):
        description = _text(document.get("error_description"))
        if description:  # OAuth 2.0 (RFC 6749 section 5.2)
            return Explanation(code=error, message=_short(description), shape="oauth")
        return Explanation(
            message=_short(error), code=_text(_get(document, "code")), shape="error-string"
        )
    errors = _get(document, "errors")
    if isinstance(errors, list) and errors:
        return _from_error_list(errors)
    if "title" in document or ("type" in document and "detail" in document):  # RFC 9457
        kind = _text(document.get("type"))
        code = _text(document.get("code")) or (None if kind == "about:blank" else kind)
        detail = _text(document.get("detail"))
        return Explanation(
            code=code,
            message=_short(detail or _text(document.get("title"))),
            detail=_short(detail),
            shape="problem",
        )
    detail = document.get("detail")
    if isinstance(detail, list):  # FastAPI validation errors
        return Explanation(message=_joined(detail), detail=_short(_text(detail)), shape="fastapi")
    message = _text(_get(document, "message") or detail or _get(document, "msg"))
    return Explanation(
        code=_text(_get(document, "code")),
        message=_short(message),
        shape=_message_shape(document) if message else None,
    )


def _message_shape(document: dict[str, Any]) -> str:
    if document.get("message") is not None or document.get("msg") is not None:
        return "message"
    return "pascal-message" if document.get("Message") is not None else "detail"


def _from_error_list(errors: list[Any]) -> Explanation:
    """JSON:API (`title`, `detail`, `code`), GraphQL (`message`), or plain strings."""
    first = errors[0]
    if isinstance(first, dict):
        said = _text(_get(first, "detail") or _get(first, "message") or _get(first, "title"))
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        json_api = any(key in first for key in ("detail", "title", "status", "source"))
        extensions = first.get("extensions")
        code = _get(first, "code")
        if code is None and isinstance(extensions, dict):
            code = extensions.get("code")
        return Explanation(
            code=_text(code),
            message=_short(said + more) if said else None,
            detail=_short(_text(_get(first, "title"))) if _get(first, "detail") else None,
            shape="json-api" if json_api else "graphql",
        )
    return Explanation(message=_joined(errors), shape="strings")


def _joined(items: list[Any]) -> str | None:
    parts = []
    for item in items:
        if isinstance(item, dict):
            where = item.get("loc")
            place = ".".join(str(part) for part in where) if isinstance(where, list) else None
            said = _text(item.get("msg") or item.get("message") or item.get("detail"))
            parts.append(f"{place}: {said}" if place and said else said or _text(item))
        else:
            parts.append(_text(item))
    return _short("; ".join(part for part in parts if part))


def _from_html(text: str) -> str | None:
    import html  # noqa: PLC0415 - only an HTML error page pays for the entity table

    for pattern in (_HTML_TITLE, _HTML_HEADING):
        found = pattern.search(text)
        if found:
            shown = _SPACE.sub(" ", html.unescape(_TAG.sub("", found.group(1)))).strip()
            if shown:
                return _short(shown)
    return None


def _get(document: dict[str, Any], name: str) -> Any:
    """A key in its given spelling or capitalised (`message` or `Message`)."""
    value = document.get(name)
    return value if value is not None else document.get(name[:1].upper() + name[1:])


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    return dumps(value).decode() if isinstance(value, dict | list) else str(value)


def _short(text: str | None) -> str | None:
    if text is None:
        return None
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"

"""Checks real responses against an OpenAPI 3.1 document, with jsonschema (2020-12).

OpenAPI 3.1 schemas ARE JSON Schema 2020-12, so the reference validator checks them with exact
semantics and no translation layer; `referencing` resolves the document's `$ref`s in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aiohttp
import orjson
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

BASE_URI = "https://remedy.example/openapi.json"


def escape(token: str) -> str:
    """A JSON pointer token."""
    return token.replace("~", "~0").replace("/", "~1")


class Document:
    """One OpenAPI document, able to say whether a response is one it describes."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self._registry: Registry[Any] = Registry().with_resource(
            BASE_URI, Resource.from_contents(spec, default_specification=DRAFT202012)
        )

    def __repr__(self) -> str:
        return f"Document({self.spec['info']['title']!r})"

    def resolve(self, node: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """Follow a Reference Object within the document: (target, its pointer)."""
        if "$ref" not in node:
            return node, None
        pointer = node["$ref"].removeprefix("#")
        target: Any = self.spec
        for token in pointer.strip("/").split("/"):
            target = target[token.replace("~1", "/").replace("~0", "~")]
        return target, pointer

    def operation(self, path: str) -> dict[str, Any]:
        """The GET operation of a path."""
        operation: dict[str, Any] = self.spec["paths"][path]["get"]
        return operation

    def response(self, path: str, status: int) -> tuple[dict[str, Any], str]:
        """The response a status of a path is documented by, and its pointer."""
        responses = self.operation(path)["responses"]
        key = str(status) if str(status) in responses else f"{str(status)[0]}XX"
        assert key in responses, f"{path} does not document status {status}"
        spec, pointer = self.resolve(responses[key])
        return spec, pointer or f"/paths/{escape(path)}/get/responses/{key}"

    def validator(self, pointer: str) -> Draft202012Validator:
        """A validator of the schema at `pointer`."""
        return Draft202012Validator(
            {"$ref": f"{BASE_URI}#{pointer}"},
            registry=self._registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )

    def check(self, path: str, status: int, headers: Mapping[str, str], body: bytes) -> Any:
        """Assert the response is documented: status, media type, required headers, body
        schema; return the decoded JSON body (None for another media type or no body)."""
        spec, pointer = self.response(path, status)
        for name, header in spec.get("headers", {}).items():
            if self.resolve(header)[0].get("required"):
                assert name in headers, f"{path} {status}: missing required header {name}"
        if "content" not in spec:
            assert body == b""
            return None
        media = headers["Content-Type"].split(";")[0]
        assert media in spec["content"], f"{path} {status}: {media} is not documented"
        if not media.endswith("json"):
            return None
        document = orjson.loads(body)
        self.validator(f"{pointer}/content/{escape(media)}/schema").validate(document)
        return document

    async def fetch(
        self,
        session: aiohttp.ClientSession,
        url: Any,
        path: str,
        params: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, Any]:
        """GET and check against the document: (status, decoded body)."""
        async with session.get(url, params=params, headers=headers) as response:
            body = await response.read()
            return response.status, self.check(path, response.status, response.headers, body)

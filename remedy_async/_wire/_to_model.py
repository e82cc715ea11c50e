"""Reads a decoded response into a model, and says where a value that does not fit sits."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from yarl import URL

from remedy_async._errors import DecodeError
from remedy_async._http import JSONResponse, Response
from remedy_async._redact import scrub_error

from ._fastpath import from_wire
from ._faults import WireFault
from ._json import json_body

T = TypeVar("T")


def wire_fault_error(
    fault: WireFault,
    response: Response | JSONResponse,
    *,
    url: URL | str | None = None,
    secrets: Iterable[str] = (),
) -> DecodeError:
    """Return the DecodeError for a decoded body that does not fit what was expected.

    It shows `url` (default: the response's), with any of `secrets` echoed in it redacted.
    """
    error = DecodeError(
        fault.reason,
        method="GET",
        url=response.url if url is None else url,
        path=fault.path,
        status=response.status,
        request_id=response.request_id,
    )
    scrub_error(error, secrets)
    return error


def record_from(
    model: type[T],
    response: Response,
    *,
    secrets: Iterable[str] = (),
    read: Callable[[object], T] | None = None,
) -> T:
    """Decode a successful response's body into a model; DecodeError says what did not fit.

    `read` builds the model from the decoded body (default: `from_wire`, the published
    snake_case keys).
    """
    body = json_body(response, secrets=secrets)
    try:
        return from_wire(model, body) if read is None else read(body)
    except WireFault as fault:
        raise wire_fault_error(fault, response, secrets=secrets) from None

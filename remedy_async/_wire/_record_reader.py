"""Builds one resource's records in the naming its service spells keys in, chosen once.

By the published contract keys are snake_case. With `naming="auto"` the first page (or record)
whose keys show another naming (camel, Pascal, kebab) decides it for the resource from then on,
announced once with a `ContractDriftWarning`; a pinned naming is used as given. Choosing is per
page, never per record, so the fast structure functions run unchanged.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, Literal, TypeVar

from remedy_async._errors import ContractDriftWarning

from ._codec import fault_from
from ._decode import decode_json, record_from, wire_fault_error
from ._fastpath import structure_hook
from ._http import JSONResponse, Response
from ._naming import CONTRACT_NAMING, NAMINGS, Naming, detect_naming
from ._types import TypedItem, WireFault
from ._views import PageShape, TypedDecoder, page_shape, typed_decoder

T = TypeVar("T")

NamingSetting = Literal["auto", "camel", "snake", "pascal", "kebab"]
NAMING_SETTINGS: tuple[str, ...] = ("auto", *NAMINGS)


class RecordReader(Generic[T]):
    """Turns a resource's wire records into models, in the naming its service uses."""

    def __init__(self, model: type[T], naming: NamingSetting, resource: str) -> None:
        if naming not in NAMING_SETTINGS:
            raise ValueError(f"naming must be one of {', '.join(NAMING_SETTINGS)}, got {naming!r}")
        self.model = model
        self.resource = resource
        self._detect = naming == "auto"
        self.naming: Naming = CONTRACT_NAMING if naming == "auto" else naming
        self._hook: Callable[[object, object], T] | None = None
        """The structure function in the naming read, generated when first needed."""
        self._shape: PageShape | None = None
        """The last page's shape, while the naming is undecided (`page`)."""
        self._typed: TypedDecoder | None = None
        """Reads bodies straight into typed views once the naming is settled (`_views`)."""
        if not self._detect:
            self._typed = typed_decoder(model, self.naming)

    @property
    def hook(self) -> Callable[[object, object], T]:
        """The structure function of the resource's JSON objects in the naming read."""
        hook = self._hook
        if hook is None:
            hook = self._hook = structure_hook(self.model, self.naming)
        return hook

    def __repr__(self) -> str:
        how = "detecting" if self._detect else "pinned"
        return f"<RecordReader {self.resource} {self.naming} ({how})>"

    def record(self, response: Response, *, secrets: Iterable[str] = ()) -> T:
        """The record a successful response's body holds: read straight into its typed view
        when it fits one exactly, else parsed and structured; DecodeError says what did not
        fit."""
        typed = self._typed
        if typed is not None:
            try:
                record = typed.record(response.body)
            except Exception as exc:  # a view whose text does not read: the general way's fault
                raise wire_fault_error(self.fault(exc, "$"), response, secrets=secrets) from exc
            if record is not None:
                return record  # type: ignore[no-any-return]
        return record_from(self.model, response, secrets=secrets, read=self.read)

    def page(self, response: Response, *, secrets: Iterable[str] = ()) -> JSONResponse:
        """A successful list response's JSON, its items as typed views when the page fits the
        shape of an earlier one exactly (TypedItems, which `hook_for` turns into records),
        else as parsed; DecodeError says what arrived when it is no JSON."""
        typed = self._typed
        if typed is not None:
            body = typed.page(response.body)
            if body is not None:
                return JSONResponse(
                    url=response.request.url,
                    status=response.status,
                    headers=response.headers,
                    body=body,
                )
        decoded = decode_json(response, secrets=secrets)
        if typed is not None:
            typed.learn(page_shape(decoded.body), decoded.body)
        elif self._detect:
            self._shape = page_shape(decoded.body)  # learned once the naming is decided
        return decoded

    def hook_for(self, items: Sequence[Any]) -> Callable[[object, object], T]:
        """The structure function for a page's items, deciding the naming on the first one."""
        if items and isinstance(items[0], TypedItem) and self._typed is not None:
            return self._typed.structure_of(type(items[0]))
        if self._detect:
            first = next((item for item in items if isinstance(item, dict) and item), None)
            if first is not None:
                self._decide(first)
        return self.hook

    def read(self, data: object, path: str = "$") -> T:
        """Build one record; a value that does not fit raises WireFault with its JSON path."""
        hook = self.hook_for((data,))
        try:
            return hook(data, self.model)
        except Exception as exc:
            raise self.fault(exc, path) from exc

    def fault(self, exc: BaseException, path: str) -> WireFault:
        """Describe a structuring failure by the JSON path of the value, in the naming read."""
        return fault_from(exc, path, self.model, self.naming)

    def _decide(self, record: dict[str, Any]) -> None:
        naming, certain = detect_naming(record, self.model)
        if naming is None or not certain:
            return  # nothing decisive yet: read by the contract, decide on a later record
        self._detect = False
        self._typed = typed_decoder(self.model, naming)
        if self._typed is not None:
            self._typed.learn(self._shape)
        if naming != self.naming:
            self.naming = naming
            self._hook = None
            warnings.warn(
                ContractDriftWarning(
                    f"{self.resource} records spell their keys in {naming} case, not snake_case "
                    f"as the published contract does; reading them as {naming} from now on "
                    f"(pin it with RemedyClient(naming={naming!r}))"
                ),
                stacklevel=4,
            )

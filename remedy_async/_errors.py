"""Every error the library raises, so callers can catch exactly what they can handle.

    RemedyError
    ├── ConfigurationError        (also ValueError) bad client settings, found at construction
    ├── ClientClosedError         (also RuntimeError) the client was used after close(), or
    │                             from another event loop than the one it connected in
    ├── TokenProviderError        the token provider (`token=` an async callable) raised, or
    │                             returned what cannot be sent; shows neither the token
    ├── MissingDependencyError    (also ImportError) an optional integration's package (pyarrow,
    │                             duckdb, dlt) is not installed; has .package and .extra
    ├── ChangeStateError          a change feed's state file cannot be used; has .path
    │   ├── StateInUseError       another watcher holds it
    │   └── StateVersionError     it was written in a newer (or unknown) format
    └── APIError                  something went wrong talking to the service; has .method, .url
        ├── APIStatusError        the service answered with an error status; has .status,
        │   │                     .request_id, .headers, .code, .message, .body_excerpt,
        │   │                     .body (the whole body, bounded: BODY_LIMIT)
        │   ├── BadRequestError             400
        │   ├── AuthenticationError         401
        │   ├── PermissionDeniedError       403
        │   ├── NotFoundError               404
        │   ├── ConflictError               409
        │   ├── UnprocessableEntityError    422
        │   ├── RateLimitError              429, has .retry_after
        │   └── ServerError                 5xx
        ├── APIConnectionError    no complete response: refused, reset, truncated body
        │   ├── APITimeoutError   the attempt ran out of time
        │   └── ProxyError        the proxy could not be reached, wants credentials (407)
        │                         or refused the tunnel; has .proxy, .status
        ├── DecodeError           a complete body that is not the JSON expected; has .path,
        │                         .body
        ├── ResponseTooLargeError a body over max_response_bytes (checked while reading)
        └── PaginationError       the service's page sequence cannot be followed safely

    TenantErrors                  (an ExceptionGroup) a list over many tenants ended with some
                                  of them failed: one error each, and every tenant's resume
                                  token; catch a kind with `except* AuthenticationError`

    RemedyWarning (a UserWarning)
    ├── DuplicateItemWarning      a page repeated ids just delivered; the repeats were skipped
    └── ContractDriftWarning      the service differs from the contract (e.g. snake_case keys)

No error ever holds the credential: URLs are shown without userinfo and the client scrubs the
token from any text the service echoes back, its kept body included; an error pickles (to
another process) with what it shows, and nothing more. A bad argument is a ValueError (or
TypeError), raised before any I/O; `check_count` is the check of a count that every layer
shares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

EXCERPT_LIMIT = 500
"""Characters of a body an error's `body_excerpt` keeps."""
BODY_LIMIT = 64 * 1024
"""Bytes of a response body an error keeps as its `body` (64 KiB): a longer body is kept as
the text of its first 64 KiB, and the error's `body_truncated` says so."""


class RemedyError(Exception):
    """Base class of every error raised by remedy_async.

    When a list iteration fails, the error also says where to continue: `resume_token` (pass it
    to `list(resume_token=...)`) and `items_yielded` (items that iteration delivered).
    """

    resume_token: str | None = None
    """Where a failed list iteration can continue: pass it to `list(resume_token=...)`."""
    items_yielded: int | None = None
    """How many items the failed list iteration delivered before the error."""
    attempts: int | None = None
    """How many attempts the call made before this error ended it (None: not sent)."""
    tenant: str | None = None
    """In a list over many tenants (`TenantClients`), the tenant whose list this error ended."""

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle the error as it is (its message and every attribute, already redacted),
        whatever arguments its class is made with, so it can cross to another process."""
        state = {
            name: _PickledHeaders(value.items()) if isinstance(value, CIMultiDictProxy) else value
            for name, value in self.__dict__.items()
        }
        return _unpickled, (type(self), self.args, state)


class _PickledHeaders(list[tuple[str, str]]):
    """Headers as pickled (a read-only multidict cannot be): made read-only again on loading."""


def _unpickled(
    cls: type[RemedyError], args: tuple[object, ...], state: dict[str, object]
) -> RemedyError:
    """An error loaded from a pickle, as `RemedyError.__reduce__` wrote it."""
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(
        (
            name,
            CIMultiDictProxy(CIMultiDict(value)) if isinstance(value, _PickledHeaders) else value,
        )
        for name, value in state.items()
    )
    return error


class RemedyWarning(UserWarning):
    """Base class of the warnings remedy_async emits."""


class DuplicateItemWarning(RemedyWarning):
    """A list page repeated items already delivered; the repeats were skipped, not yielded."""


class ContractDriftWarning(RemedyWarning):
    """The service differs from the assumed contract in a way the client adapted to."""


class ConfigurationError(RemedyError, ValueError):
    """The client was given settings it cannot work with (for example no base URL)."""


class ClientClosedError(RemedyError, RuntimeError):
    """The client was used after `close()`, or in an event loop other than the one it opened
    its connections in (a second `asyncio.run()`); create a new client instead."""


class TokenProviderError(RemedyError):
    """The token provider given as `token=` raised (its exception is the cause, scrubbed of
    every token the client knows) or returned something that is not a token; the request was
    not sent. Neither the token nor the value returned is shown."""


class MissingDependencyError(RemedyError, ImportError):
    """An integration needs a package that is not installed; `extra` names what installs it.

    For example Arrow output without pyarrow: `pip install 'remedy-async[arrow]'`.
    """

    def __init__(self, message: str, *, package: str, extra: str) -> None:
        """
        Args:
            message: What needs the package, and how to install it.
        """
        super().__init__(message)
        self.package = package
        """The missing package's import name (`pyarrow`)."""
        self.extra = extra
        """The extra of remedy-async that installs it (`arrow`)."""


class ChangeStateError(RemedyError):
    """A change feed's state cannot be used: not a state file, or one made for another
    collection, other filters or another `keep_records`. `path` names the file."""

    def __init__(self, message: str, *, path: str) -> None:
        """
        Args:
            message: What is wrong with the state.
        """
        super().__init__(message)
        self.path = path
        """The state file's path."""


class StateInUseError(ChangeStateError):
    """Another watcher (in this process or another) holds the change state; one state serves
    one watcher at a time. The hold ends with that watcher's process, however it ends."""


class StateVersionError(ChangeStateError):
    """The change state was written in a format this version cannot read (a newer one);
    `version` is the file's format number."""

    def __init__(self, message: str, *, path: str, version: object) -> None:
        """
        Args:
            message: What is wrong with the state.
        """
        super().__init__(message, path=path)
        self.version = version
        """The format number the file says it was written in."""


def public_url(url: URL | str) -> str:
    """Return the URL as text without any user or password part (text without one, or text
    that is no longer a URL, such as one with `[REDACTED]` in its host, as given)."""
    try:
        parsed = URL(url) if isinstance(url, str) else url
        if parsed.user is not None or parsed.password is not None:
            return str(parsed.with_user(None))
    except (ValueError, TypeError, UnicodeError):
        return url if isinstance(url, str) else "<unusable URL>"
    return url if isinstance(url, str) else str(parsed)


class APIError(RemedyError):
    """A request to the service failed; says which request."""

    def __init__(self, message: str, *, method: str, url: URL | str) -> None:
        super().__init__(message)
        self.message = message
        """What went wrong, without the request (`str(error)` adds it)."""
        self.method = method
        """The request's method (`GET`)."""
        self.url = public_url(url)
        """The request's URL, never with credentials."""

    def __str__(self) -> str:
        return f"{self.message} ({self.method} {self.url})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, method={self.method!r}, url={self.url!r})"


class APIStatusError(APIError):
    """The service answered with an error status code."""

    def __init__(
        self,
        message: str,
        *,
        method: str,
        url: URL | str,
        status: int,
        request_id: str | None = None,
        code: str | None = None,
        body_excerpt: str | None = None,
        headers: Mapping[str, str] | None = None,
        detail: str | None = None,
        body_shape: str | None = None,
        body: object = None,
        body_truncated: bool = False,
    ) -> None:
        super().__init__(message, method=method, url=url)
        self.status = status
        """The HTTP status the service answered with."""
        self.request_id = request_id
        """The service's id of the request (its `X-Request-Id` header), for its support."""
        self.code = code
        """The service's error code (`not_found`), when its body gave one; None for the
        published error body, `{"error": "<message>"}`, which has none."""
        self.body_excerpt = body_excerpt
        """The start of the response body (at most 500 characters), the token scrubbed."""
        self.body = body
        """The whole response body, the token scrubbed wherever it appears: the parsed JSON
        (dicts, lists, strings, numbers exact, booleans, None) when the body is JSON, else its
        text; None when the response had no body. A body over `BODY_LIMIT` (64 KiB) is kept as
        the text of its first 64 KiB, with `body_truncated` set."""
        self.body_truncated = body_truncated
        """Whether the body was longer than `BODY_LIMIT` (64 KiB), so `body` holds the text of
        its first 64 KiB only."""
        self.detail = detail
        """Further explanation the service gave (a problem's `detail`, validation errors)."""
        self.body_shape = body_shape
        """The error-body convention the service used (`problem`, `json-api`, `oauth`, ...; see
        `remedy_async.ERROR_SHAPES`), or None when the body explained nothing."""
        self.headers: Mapping[str, str] = CIMultiDictProxy(CIMultiDict(headers or {}))
        """The response's headers, read case-insensitively."""

    def __str__(self) -> str:
        parts = [f"{self.status}"]
        if self.code:
            parts.append(f"[{self.code}]")
        parts.append(self.message)
        text = " ".join(parts) + f" ({self.method} {self.url}"
        if self.request_id:
            text += f", request id {self.request_id}"
        return text + ")"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status}, code={self.code!r}, "
            f"message={self.message!r}, method={self.method!r}, url={self.url!r}, "
            f"request_id={self.request_id!r})"
        )


class BadRequestError(APIStatusError):
    """400: the service rejected the request (an unknown filter, a page size over its limit)."""


class AuthenticationError(APIStatusError):
    """401: the token is missing, wrong or expired."""


class PermissionDeniedError(APIStatusError):
    """403: the token is valid but may not read this resource."""


class NotFoundError(APIStatusError):
    """404: no resource has this id."""


class ConflictError(APIStatusError):
    """409: the request conflicts with the resource's current state."""


class UnprocessableEntityError(APIStatusError):
    """422: the request was well formed but its values were rejected."""


class RateLimitError(APIStatusError):
    """429: too many requests; `retry_after` says how many seconds to wait, when known."""

    def __init__(
        self,
        message: str,
        *,
        method: str,
        url: URL | str,
        status: int = 429,
        request_id: str | None = None,
        code: str | None = None,
        body_excerpt: str | None = None,
        headers: Mapping[str, str] | None = None,
        retry_after: float | None = None,
        detail: str | None = None,
        body_shape: str | None = None,
        body: object = None,
        body_truncated: bool = False,
    ) -> None:
        super().__init__(
            message,
            method=method,
            url=url,
            status=status,
            request_id=request_id,
            code=code,
            body_excerpt=body_excerpt,
            headers=headers,
            detail=detail,
            body_shape=body_shape,
            body=body,
            body_truncated=body_truncated,
        )
        self.retry_after = retry_after
        """Seconds the service asked to wait (`Retry-After`), when it said."""


class ServerError(APIStatusError):
    """5xx: the service failed; usually worth retrying later."""


class APIConnectionError(APIError):
    """No complete response arrived: the connection was refused, reset or cut mid-body."""


class APITimeoutError(APIConnectionError):
    """The request took longer than its timeout."""


class ProxyError(APIConnectionError):
    """The proxy failed the request: it could not be reached, asked for credentials (407) or
    refused to open a tunnel. `proxy` is its URL (never with credentials), `status` its answer
    (None when it could not be reached). Retried only when it could not be reached or answered
    502, 503 or 504."""

    def __init__(
        self, message: str, *, method: str, url: URL | str, proxy: str, status: int | None = None
    ) -> None:
        super().__init__(message, method=method, url=url)
        self.proxy = public_url(proxy)
        """The proxy's URL, never with credentials."""
        self.status = status
        """The proxy's answer (407: it wants credentials), None when it could not be reached."""


class DecodeError(APIError):
    """The response body is not the JSON that was expected; `path` points at the fault."""

    def __init__(
        self,
        message: str,
        *,
        method: str,
        url: URL | str,
        path: str = "$",
        status: int | None = None,
        request_id: str | None = None,
        body_excerpt: str | None = None,
        body: object = None,
        body_truncated: bool = False,
    ) -> None:
        super().__init__(message, method=method, url=url)
        self.path = path
        """Where in the body the fault is, as a JSON path (`$.items[3].id`)."""
        self.status = status
        """The response's HTTP status, when there was one."""
        self.request_id = request_id
        """The service's id of the request (its `X-Request-Id` header)."""
        self.body_excerpt = body_excerpt
        """The start of the response body, the token scrubbed."""
        self.body = body
        """The whole body that did not fit, as `APIStatusError.body` keeps one: the parsed JSON
        when it is JSON, else its text, bounded at `BODY_LIMIT` (64 KiB), the token scrubbed;
        None when the error was not made from a response's body."""
        self.body_truncated = body_truncated
        """Whether the body was longer than `BODY_LIMIT`, so `body` holds the text of its first
        64 KiB only."""

    def __str__(self) -> str:
        text = f"{self.message} at {self.path} ({self.method} {self.url}"
        if self.status is not None:
            text += f", status {self.status}"
        if self.request_id:
            text += f", request id {self.request_id}"
        return text + ")"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, path={self.path!r}, status={self.status}, "
            f"method={self.method!r}, url={self.url!r}, request_id={self.request_id!r})"
        )


class ResponseTooLargeError(APIError):
    """The response body is larger than the client's max_response_bytes; it was not read."""


class PaginationError(APIError):
    """The service's sequence of pages cannot be followed without losing or repeating items.

    `suggestion`, when set, is a `Convention` that reads the page refused: the advice at the
    end of the message, to pin with `paginator=` (a guessed parameter in it is marked).
    """

    suggestion: object | None = None
    """A `Convention` that reads the page refused, to pin with `paginator=`; None when there
    is no advice."""


class TenantErrors(ExceptionGroup[RemedyError]):
    """Some tenants of a list over many tenants failed; the others were listed to their end.

    `exceptions` holds each failed tenant's error (its `tenant` attribute names it, and so does
    a note), `failed` maps their names to them, and `resume_tokens` continues every tenant where
    it stopped (None for a tenant listed to its end): pass it back as `resume_tokens=`.

    Args:
        message: What failed, such as `2 of 40 tenants failed: acme, globex`.
        errors: Each failed tenant's error, by the tenant's name.
        resume_tokens: Where every tenant stopped, by name (None: listed to its end).
    """

    failed: Mapping[str, RemedyError]
    """Each failed tenant's error, by the tenant's name."""
    resume_tokens: Mapping[str, str | None]
    """Where each tenant stopped (None: listed to its end)."""

    def __new__(
        cls,
        message: str,
        errors: Mapping[str, RemedyError],
        resume_tokens: Mapping[str, str | None],
    ) -> TenantErrors:
        group = super().__new__(cls, message, list(errors.values()))
        group.failed = dict(errors)
        group.resume_tokens = dict(resume_tokens)
        return group

    def __init__(
        self,
        message: str,
        errors: Mapping[str, RemedyError],
        resume_tokens: Mapping[str, str | None],
    ) -> None:
        super().__init__(message, list(errors.values()))

    def derive(self, excs: Sequence[RemedyError]) -> TenantErrors:  # type: ignore[override]
        """The group narrowed to `excs` (as `except*` and `subgroup` make it), tokens kept.

        Args:
            excs: The errors the narrowed group holds.
        """
        kept = {name: error for name, error in self.failed.items() if error in excs}
        return TenantErrors(self.message, kept, self.resume_tokens)


STATUS_ERRORS: Mapping[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error_class(status: int) -> type[APIStatusError]:
    """Return the error class for an HTTP error status."""
    if 500 <= status <= 599:
        return ServerError
    return STATUS_ERRORS.get(status, APIStatusError)


def excerpt(text: str, limit: int = EXCERPT_LIMIT) -> str:
    """Shorten text to at most `limit` characters, marking the cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def check_count(name: str, value: int | None, minimum: int) -> None:
    """ValueError unless `value` is None or an int of at least `minimum` (bools are not)."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or value < minimum
    ):
        raise ValueError(f"{name} must be an int >= {minimum} or None, got {value!r}")

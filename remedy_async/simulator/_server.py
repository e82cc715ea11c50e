"""Runs the simulator on a loopback (or any) TCP port, in the caller's event loop: `Simulator`.

aiohttp's HTTP parser refuses an over-long request line or header, too many headers, or bytes
that are not HTTP, and its `RequestHandler.handle_error` answers them (and a handler that
failed) with `400 text/plain` and no `X-Request-Id`. `ContractServer` is the protocol factory
of the simulator's sockets: its connections' `handle_error` answers in the run's error shape,
with a request id, and with the status that says what was wrong (414 for the request line, 431
for the headers, else 400); the run's OpenAPI document lists those statuses on every operation.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Protocol, Self

import attrs
from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage, HttpProcessingError, LineTooLong

from ._counters import CounterState, SimulatorCounters
from ._dataset import Dataset
from ._handler import SimulatorApp, Sleep
from ._injector import FaultCounts
from ._responses import ERROR_CODES, ApiError
from ._run_config import SimulatorConfig
from ._tenants import (
    SimulatedTenant,
    rate_text,
    simulated_tenants,
    tenant_states,
    write_tenants_file,
)

SHUTDOWN_TIMEOUT: Final = 1.0
"""Seconds stop() lets unfinished requests run before cancelling them."""


class Simulator:
    """Serves the assumed Remedy API from seeded data, with optional faults, on a real socket.

        async with Simulator(SimulatorConfig(size=1000, paging="offset")) as sim:
            ...  # point a client at sim.url; check sim.counters and sim.dataset

    With `SimulatorConfig(tenants=N)` it serves N organisations, each with its own token and
    records (`sim.tenants`, `sim.tenant("org-01").dataset`), counted per tenant
    (`sim.counters.tenants`, `sim.arrivals("org-01")`); `sim.write_tenants_file(directory)`
    writes their keys where a client can read them.

    Args:
        config: What to serve; default: the contract's defaults (`SimulatorConfig()`).
        sleep: How latency and stall faults wait. Tests pass one that returns at once.
        clock: The time, in Unix seconds (health, the rate limit, `now`). `config.now` left
            None becomes `clock()` when the simulator is made.
    """

    def __init__(
        self,
        config: SimulatorConfig | None = None,
        *,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        started = clock()
        config = config if config is not None else SimulatorConfig()
        if config.now is None:
            config = attrs.evolve(config, now=datetime.fromtimestamp(started, UTC))
        self.config = config
        """The configuration served, its `now` set (the time the records are dated from)."""
        self._tenants = simulated_tenants(config)
        self._dataset = None if self._tenants else Dataset.from_config(config)
        self._counters = CounterState(tenant.name for tenant in self._tenants)
        self._app = SimulatorApp(
            config,
            tenant_states(config, self._tenants, self._dataset, clock),
            self._counters,
            sleep=sleep,
            clock=clock,
            started=started,
        )
        self._clock = clock
        self._runner: web.ServerRunner | None = None
        self._url: str | None = None

    def __repr__(self) -> str:
        where = self._url or "not started"
        config = self.config
        tenants = f", tenants={config.tenants}" if config.tenants else ""
        return (
            f"Simulator({where}, seed={config.seed}, size={config.size}{tenants}, "
            f"paging={config.paging!r}, faults={len(config.faults)})"
        )

    @property
    def dataset(self) -> Dataset:
        """The records served: ask it what a list or get should answer. A run of tenants has
        one per tenant instead (`tenants[i].dataset`, `tenant(name).dataset`)."""
        if self._dataset is None:
            raise RuntimeError(
                f"this simulator serves {len(self._tenants)} tenants, each with records of its "
                "own: use sim.tenants[i].dataset or sim.tenant(name).dataset"
            )
        return self._dataset

    @property
    def tenants(self) -> tuple[SimulatedTenant, ...]:
        """The organisations served, in order (`org-01`, with the `tenant_skew` share, first);
        empty for a run of one organisation (`SimulatorConfig.tenants=0`)."""
        return self._tenants

    def tenant(self, name: str) -> SimulatedTenant:
        """The tenant named `name`; ValueError naming the tenants there are for another name.

        Args:
            name: A tenant's name, such as `org-01`.
        """
        for tenant in self._tenants:
            if tenant.name == name:
                return tenant
        known = ", ".join(tenant.name for tenant in self._tenants) or "none (tenants=0)"
        raise ValueError(f"no tenant named {name!r}; the tenants are: {known}")

    def arrivals(self, name: str) -> tuple[float, ...]:
        """When each request with a tenant's token arrived, on the simulator's clock, in
        arrival order: refused ones (401 aside: those carry no tenant's token) included, health
        checks not. `reset_counters` forgets them.

        Args:
            name: A tenant's name, such as `org-01`.
        """
        return tuple(self._counters.arrivals[self.tenant(name).name])

    def write_tenants_file(self, directory: str | os.PathLike[str]) -> Path:
        """Write the tenants' keys where a client reads them: `directory/tenants.toml`, one
        `[[tenant]]` table each (`name`, `token_file`, `base_url` = `url`, and `rate_limit`
        with `tenant_rate_limit`: `"20/s"`, `"5/2.5s"`), and each token alone in
        `directory/tokens/<name>` (mode 0o600, no newline); never a token in the TOML. Makes
        `directory` if needed; returns the TOML file's path. The simulator must be running.

        Args:
            directory: Where to write them.
        """
        if not self._tenants:
            raise RuntimeError("this simulator serves no tenants (SimulatorConfig.tenants=0)")
        config = self.config
        limit = config.tenant_rate_limit
        rate = None if limit is None else rate_text(limit, config.tenant_rate_window)
        return write_tenants_file(self._tenants, directory, self.url, rate)

    @property
    def url(self) -> str:
        """The base URL, e.g. `http://127.0.0.1:54321` (no trailing slash; it ends with the
        configured `base_path`, if any)."""
        if self._url is None:
            raise RuntimeError("the simulator is not running: call start() or use `async with`")
        return self._url

    @property
    def port(self) -> int:
        """The TCP port it listens on."""
        return int(self.url.removesuffix(self.config.base_path).rsplit(":", 1)[1])

    @property
    def running(self) -> bool:
        """Whether it is serving."""
        return self._runner is not None

    @property
    def counters(self) -> SimulatorCounters:
        """A snapshot of what it has seen so far."""
        return self._counters.snapshot()

    @property
    def fault_counts(self) -> tuple[FaultCounts, ...]:
        """What each configured fault did since the simulator was made, in the order of
        `config.faults`: the requests it applied to and how many it hit. A fault that hit none
        was never seen by the client (`reset_counters` leaves these: a certain fault's count
        goes on)."""
        return self._app.fault_counts()

    def reset_counters(self) -> None:
        """Zero the counters and forget the tenants' arrivals (requests in flight stay counted
        as in flight)."""
        self._counters.reset()

    async def start(self) -> None:
        """Start listening on the configured host and port (port 0: a free one); then write
        the tenants file into `SimulatorConfig.tenants_directory`, if set."""
        if self._runner is not None:
            raise RuntimeError("the simulator is already running")
        server = ContractServer(
            self._app.handle,
            refuse=self._app.refusal,
            handler_cancellation=True,
            clock=self._clock,
            access_log=None,
        )
        runner = web.ServerRunner(server, shutdown_timeout=SHUTDOWN_TIMEOUT)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.config.host, self.config.port)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        host, port = runner.addresses[0][:2]
        origin = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        self._url = origin + self.config.base_path
        self._runner = runner
        if self.config.tenants_directory is not None:
            try:
                self.write_tenants_file(self.config.tenants_directory)
            except BaseException:
                await self.stop()
                raise

    async def stop(self) -> None:
        """Stop listening, cancel requests still in flight, close connections; idempotent."""
        runner, self._runner = self._runner, None
        self._url = None
        if runner is not None:
            await self._app.cancel_in_flight()
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()


# The sockets' protocol: what aiohttp refuses before any handler runs, answered as the
# contract answers errors.

MAX_REQUEST_TARGET: Final = 16 * 1024 - len("GET  HTTP/1.1")
MAX_HEADER_FIELD: Final = 16 * 1024
MAX_HEADERS: Final = 128
"""aiohttp's own limit on the number of headers (Apache's LimitRequestFields is 100)."""


class Refuse(Protocol):
    """Answers with the contract's error (`SimulatorApp.refusal`); `count` a request the
    handler never saw."""

    def __call__(self, error: ApiError, *, count: bool) -> web.Response: ...


def refusal_of(error: HttpProcessingError) -> ApiError:
    """The contract's error for a request aiohttp could not parse. Its text never quotes the
    request, whose refused line may be a credential's header."""
    if isinstance(error, LineTooLong):
        if error.args[1:2] == (MAX_REQUEST_TARGET,):
            return ApiError(
                414, "uri_too_long", f"the request target is over {MAX_REQUEST_TARGET:,} bytes"
            )
        return ApiError(
            431,
            "request_header_fields_too_large",
            f"a header is over {MAX_HEADER_FIELD:,} bytes",
        )
    if isinstance(error, BadHttpMessage) and "too many headers" in error.message.lower():
        return ApiError(
            431, "request_header_fields_too_large", f"the request has over {MAX_HEADERS} headers"
        )
    return ApiError(400, "bad_request", "the request is not valid HTTP/1.1")


class _ContractHandler(web.RequestHandler):
    """One connection of the simulator, whose refusals are the contract's errors, and which
    notes when each request's first bytes arrived (`arrived_at`, on `clock`): the time the
    service counts it at, however long the simulator then takes to get to it."""

    def __init__(
        self,
        manager: web.Server,
        *,
        refuse: Refuse,
        clock: Callable[[], float] = time.time,
        **options: Any,
    ) -> None:
        super().__init__(manager, **options)
        self._refuse = refuse
        self._clock = clock
        self.arrived_at: float | None = None
        """When the request being read began to arrive; taken (set back to None) by the
        handler that answers it."""

    def data_received(self, data: bytes) -> None:
        """Note when a request's first bytes arrived, then read them as aiohttp does."""
        if self.arrived_at is None:
            self.arrived_at = self._clock()
        super().data_received(data)

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """Answer a request aiohttp refused, or one whose handler failed, in the contract's
        error shape (aiohttp's own answer once a response has begun: the connection drops)."""
        if request.writer.output_size > 0:
            return super().handle_error(request, status, exc, message)
        if isinstance(exc, HttpProcessingError):
            self.log_debug("Refused a request aiohttp could not parse: %r", exc)
            response = self._refuse(refusal_of(exc), count=True)
        else:
            self.log_exception("Error handling request", exc_info=exc)
            code = ERROR_CODES.get(status, HTTPStatus(status).phrase.lower().replace(" ", "_"))
            error = ApiError(status, code, "the simulator failed to answer")
            response = self._refuse(error, count=False)
        response.force_close()
        return response


class ContractServer(web.Server):
    """aiohttp's low-level server, taking requests as long as a load balancer does and refusing
    the others in the contract's error shape (see the module's doc)."""

    def __init__(
        self,
        handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]],
        *,
        refuse: Refuse,
        handler_cancellation: bool = False,
        clock: Callable[[], float] = time.time,
        **connection_options: Any,
    ) -> None:
        self._refuse = refuse
        self._clock = clock
        self._connection_options = {
            **connection_options,
            "max_line_size": MAX_REQUEST_TARGET,
            "max_field_size": MAX_HEADER_FIELD,
            "max_headers": MAX_HEADERS,
        }
        super().__init__(
            handler, handler_cancellation=handler_cancellation, **self._connection_options
        )

    def __call__(self) -> web.RequestHandler:
        """The protocol of one new connection."""
        return _ContractHandler(
            self,
            loop=asyncio.get_running_loop(),
            refuse=self._refuse,
            clock=self._clock,
            **self._connection_options,
        )

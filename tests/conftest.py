"""Shared fixtures: a loopback app server factory, and the recorded requests it saw."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest
from aiohttp import web

from tests.loopback import Handler, Serve, serve_app

pytest_plugins = ["remedy_async.testing"]


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    """Start a loopback aiohttp.web app with the given GET routes; returns its base URL."""
    async with AsyncExitStack() as stack:

        async def start(routes: dict[str, Handler]) -> str:
            app = web.Application()
            for path, handler in routes.items():
                app.router.add_get(path, handler)
            return await stack.enter_async_context(serve_app(app))

        yield start

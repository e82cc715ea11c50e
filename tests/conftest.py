"""Shared fixtures: a loopback app server factory, and the recorded requests it saw."""

from __future__ import annotations

import asyncio
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


REAL_SLEEP_LIMIT = 0.05


@pytest.fixture(autouse=True)
def _no_real_sleeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test that makes the event loop really sleep; time must be injected instead."""
    real_sleep = asyncio.sleep

    async def guarded_sleep(delay: float, result: object = None) -> object:
        if delay > REAL_SLEEP_LIMIT:
            raise AssertionError(f"a test slept for real ({delay} s); inject sleep instead")
        return await real_sleep(delay, result)

    monkeypatch.setattr(asyncio, "sleep", guarded_sleep)

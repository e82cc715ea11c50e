"""In-flight slots: a client's own cap, and a ceiling shared with other clients."""

from __future__ import annotations

import asyncio

from remedy_async._sending._slots import InFlightSlots, SharedSlots


def test_shared_slots_are_taken_together() -> None:
    """Both slots are taken, or neither: a full ceiling leaves the client's own slot free."""
    own, shared = InFlightSlots(2), InFlightSlots(1)
    slots = SharedSlots(own, shared)
    assert slots.take()
    assert not slots.take()
    assert own.take(), "the own slot was given back when the shared one was not free"


async def test_a_waiter_gets_both_slots_when_the_ceiling_frees() -> None:
    """A request queued on the shared ceiling holds its own slot, and gets the shared one as
    soon as another client's request gives it back."""
    shared = InFlightSlots(1)
    first, second = SharedSlots(InFlightSlots(1), shared), SharedSlots(InFlightSlots(1), shared)
    assert first.take()
    waiting = asyncio.create_task(second.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    first.give_back()
    await waiting
    assert not shared.take()
    second.give_back()
    assert shared.take()


async def test_a_cancelled_waiter_gives_its_own_slot_back() -> None:
    """Cancelled while queued on the ceiling, a request leaves its own slot free."""
    own, shared = InFlightSlots(1), InFlightSlots(1)
    assert shared.take()
    waiting = asyncio.create_task(SharedSlots(own, shared).wait())
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert own.take()

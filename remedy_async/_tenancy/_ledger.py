"""What each shard of a run has delivered, kept outside its worker so a retry is exact.

An engine retries a worker that died by running its shard again from the start, and keeps
what the dead attempt already handed over by its place in the shard's output (Ray's streaming
tasks do: a retry's output at a place already filled is dropped, and the engine may have cut
or joined the shard's blocks into its own). So a retry must hand over exactly the same blocks,
in the same order, then go on from where they left each tenant. The `Ledger` holds that, per
shard: before each block is handed over, the block and every tenant's resume token after it
are committed; a new attempt begins by reading them, hands every committed block over again,
and resumes each tenant from its token. An engine rebuilding lost output by running a finished
shard again gets the same blocks too. The ledger also counts attempts (a retry first waits one
rate-limit window per key, so the dead attempt's requests and its own never share a window at
the service) and keeps each unit's latest record count, for progress.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import field, frozen


@frozen
class ShardState:
    """Where an attempt of a shard starts: what earlier attempts delivered."""

    attempt: int
    """This attempt's number: 1 for the first."""
    blocks: tuple[Any, ...] = ()
    """The blocks earlier attempts handed over, in order (this attempt hands them over again)."""
    progress: Mapping[str, str | None] = field(factory=dict)
    """Each tenant's resume token after the last block handed over (None: listed to its end;
    absent: not begun)."""
    finished: bool = False
    """Whether an earlier attempt handed everything over: running again rebuilds lost output."""


class _Shard:
    __slots__ = ("attempts", "blocks", "finished", "progress")

    def __init__(self) -> None:
        self.attempts = 0
        self.blocks: list[Any] = []
        self.progress: dict[str, str | None] = {}
        self.finished = False


class Ledger:
    """What each shard of a run delivered: attempts, blocks and resume tokens (see the module).

    It keeps what it is given as each block: the block itself, or where an engine stored it
    (on Ray, a reference to the object store, which spills to disk). Not thread-safe: an engine
    keeps it in one place (on Ray, an actor) and calls it in turn.
    """

    def __init__(self) -> None:
        self._shards: dict[int, _Shard] = {}
        self._counts: dict[str, int] = {}

    def __repr__(self) -> str:
        done = sum(shard.finished for shard in self._shards.values())
        return f"<Ledger shards={len(self._shards)} finished={done}>"

    def _shard(self, index: int) -> _Shard:
        shard = self._shards.get(index)
        if shard is None:
            shard = self._shards[index] = _Shard()
        return shard

    def begin(self, index: int) -> ShardState:
        """Start an attempt of shard `index`: what it must hand over again, and from where."""
        shard = self._shard(index)
        shard.attempts += 1
        return ShardState(
            attempt=shard.attempts,
            blocks=tuple(shard.blocks),
            progress=dict(shard.progress),
            finished=shard.finished,
        )

    def commit(
        self, index: int, place: int, block: Any, progress: Mapping[str, str | None]
    ) -> None:
        """Record the block about to be handed over at `place` of shard `index`, and every
        tenant's resume token after it. Places come in order, each once."""
        shard = self._shard(index)
        if place != len(shard.blocks):
            raise ValueError(
                f"shard {index} commits block {place} after {len(shard.blocks)} blocks: blocks "
                "come in order, each once"
            )
        shard.blocks.append(block)
        shard.progress.update(progress)

    def finish(self, index: int) -> None:
        """Record that shard `index` handed everything over."""
        self._shard(index).finished = True

    def count(self, unit: str, records: int) -> None:
        """Note how many records a unit (`tenant/collection`) has delivered so far."""
        self._counts[unit] = records

    def counts(self) -> dict[str, int]:
        """Each unit's latest record count, for progress."""
        return dict(self._counts)

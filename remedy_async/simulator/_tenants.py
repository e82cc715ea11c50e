"""The organisations (tenants) a run serves, each with its own API key, records and rate limit.

`SimulatedTenant` is what a test reads of one (`Simulator.tenants`): its name, token, size and
data set. `simulated_tenants` makes a run's: `size` shared out by `tenant_sizes` (the first
tenant a `tenant_skew` share, each other one about an even share of the rest, by seed), and
each tenant's seed and token derived from the run's seed and its place, so the same seed makes
the same tenants. `TenantState` is what the handler serves one organisation from (its records,
churn, pages and the rate limit of its token), picked by the request's token; a run of one
organisation (`tenants=0`) is served from one, whose token is `SimulatorConfig.token`.
`write_tenants_file` writes the file a client reads the tenants' keys from.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import attrs

from ._churn import Churner
from ._dataset import Dataset
from ._pages import ListResponder
from ._places import CursorCodec
from ._prng import seed_key
from ._ratelimit import SlidingWindow
from ._run_config import TENANTS_FILE, SimulatorConfig

NAME_PREFIX: Final = "org-"
TOKENS_DIRECTORY: Final = "tokens"
"""Where the tenants file's directory keeps one file per token."""
SPREAD: Final = 0.5
"""Each tenant after the first gets between 1 - SPREAD and 1 + SPREAD times an even share of
what the first leaves (about: every tenant gets at least one endpoint, and sizes are whole)."""


def _masked(_: str) -> str:
    return "'***'"


@attrs.frozen
class SimulatedTenant:
    """One organisation a simulator serves (`Simulator.tenants`): its name, its API key, and
    its own records.

    The token is printable ASCII, `sim-org-01-` and 16 hex digits, derived from the run's seed
    and the tenant's place (the same seed, the same tokens); it never shows in the repr.
    """

    name: str
    """`org-01`, `org-02`, ...: numbered from 1, zero-padded to the width of the number of
    tenants (at least two digits)."""
    token: str = attrs.field(repr=_masked)
    """The API key that selects this tenant's records."""
    size: int
    """Its number of endpoints, its share of `SimulatorConfig.size`."""
    dataset: Dataset = attrs.field(repr=False)
    """Its records, served to requests with its token (as `Simulator.dataset` is to a run of one
    organisation)."""


def tenant_names(count: int) -> tuple[str, ...]:
    """The names of `count` tenants: `org-01`, ... (zero-padded to the width of `count`)."""
    width = max(2, len(str(count)))
    return tuple(f"{NAME_PREFIX}{number:0{width}d}" for number in range(1, count + 1))


def tenant_seed(seed: int, index: int) -> int:
    """The seed of the records of the tenant at `index` (from 0) of a run seeded `seed`."""
    return seed_key(seed, f"tenant.{index}.records")


def tenant_token(seed: int, index: int, name: str) -> str:
    """The token of the tenant at `index` (from 0), named `name`, of a run seeded `seed`."""
    return f"sim-{name}-{seed_key(seed, f'tenant.{index}.token'):016x}"


def tenant_sizes(total: int, count: int, skew: float, seed: int) -> tuple[int, ...]:
    """The sizes of `count` tenants sharing `total` endpoints, which they sum to exactly.

    The first gets `skew` of them (rounded; at least 1, and at least 1 left for each other);
    the others share the rest in proportions drawn by seed within 1 - SPREAD to 1 + SPREAD of
    an even share, each at least 1 (the largest remainders get the last endpoints). One tenant
    gets them all.
    """
    if count == 1:
        return (total,)
    first = min(max(1, round(total * skew)), total - (count - 1))
    others = count - 1
    spare = total - first - others  # beyond the one endpoint each other tenant is sure of
    rng = random.Random(seed_key(seed, "tenant.sizes"))
    weights = [rng.uniform(1 - SPREAD, 1 + SPREAD) for _ in range(others)]
    exact = [spare * weight / sum(weights) for weight in weights]
    sizes = [1 + math.floor(share) for share in exact]
    by_remainder = sorted(range(others), key=lambda i: math.floor(exact[i]) - exact[i])
    for i in by_remainder[: total - first - sum(sizes)]:
        sizes[i] += 1
    return (first, *sizes)


def simulated_tenants(config: SimulatorConfig) -> tuple[SimulatedTenant, ...]:
    """The tenants of a run (none for `tenants=0`), each with its data set; the cache's budget
    is shared out by size."""
    if not config.tenants:
        return ()
    sizes = tenant_sizes(config.size, config.tenants, config.tenant_skew, config.seed)
    return tuple(
        SimulatedTenant(
            name=name,
            token=tenant_token(config.seed, index, name),
            size=size,
            dataset=Dataset.from_config(
                config,
                seed=tenant_seed(config.seed, index),
                size=size,
                cache_bytes=max(1, config.cache_bytes * size // config.size),
            ),
        )
        for index, (name, size) in enumerate(zip(tenant_names(config.tenants), sizes, strict=True))
    )


class TenantState:
    """What the handler serves one organisation from: its records, the churn of its lists, its
    page server (whose cursors are its own: another tenant's are a 400) and the rate limit of
    its token.

    Args:
        config: The run.
        dataset: The organisation's records.
        clock: The simulator's clock (churn stamps, the rate limit).
        token: The token that selects it; None: no auth (a run of one organisation only).
        name: The tenant's name; None for the one organisation of a run without tenants,
            which is counted per route only.
    """

    __slots__ = ("churner", "dataset", "limiter", "lists", "name", "token")

    def __init__(
        self,
        config: SimulatorConfig,
        dataset: Dataset,
        clock: Callable[[], float],
        *,
        token: str | None,
        name: str | None,
    ) -> None:
        self.name = name
        self.token = token
        self.dataset = dataset
        self.lists = ListResponder(
            dataset=dataset,
            cursors=CursorCodec(
                dataset.seed, echo=config.echo_token, stamped=config.order == "updated"
            ),
            items_key=config.items_key,
            page_size=config.page_size,
            max_page_size=config.max_page_size,
            disguise=config.disguise_paging,
            base_path=config.base_path,
        )
        self.churner = Churner(
            dataset, config.churn, config.churn_every, clock, count=config.churn_count
        )
        limit = config.tenant_rate_limit
        self.limiter = (
            None if limit is None else SlidingWindow(limit, config.tenant_rate_window, clock)
        )

    def __repr__(self) -> str:
        return f"TenantState(name={self.name!r}, {self.dataset!r}, limiter={self.limiter!r})"


def tenant_states(
    config: SimulatorConfig,
    tenants: Sequence[SimulatedTenant],
    dataset: Dataset | None,
    clock: Callable[[], float],
) -> tuple[TenantState, ...]:
    """What a run serves from: one state per tenant, or the one organisation's (`dataset`, with
    the run's `token`) when it has no tenants."""
    if dataset is not None:
        return (TenantState(config, dataset, clock, token=config.token, name=None),)
    return tuple(
        TenantState(config, tenant.dataset, clock, token=tenant.token, name=tenant.name)
        for tenant in tenants
    )


def rate_text(limit: int, window: float) -> str:
    """A rate as a tenants file writes it: `20/s` for a window of one second, else `5/2.5s`."""
    if window == 1.0:
        return f"{limit}/s"
    return f"{limit}/{int(window) if window.is_integer() else repr(window)}s"


def write_tenants_file(
    tenants: Sequence[SimulatedTenant],
    directory: str | os.PathLike[str],
    base_url: str,
    rate: str | None,
) -> Path:
    """Write `directory/tenants.toml` (one `[[tenant]]` table each: name, `token_file` beside
    it, `base_url`, and `rate` if given) and each token alone in `directory/tokens/<name>`
    (mode 0o600, no newline); returns the tenants file's path. No token goes into the TOML."""
    root = Path(directory)
    tokens = root / TOKENS_DIRECTORY
    tokens.mkdir(parents=True, exist_ok=True)
    tables = []
    for tenant in tenants:
        _write_secret(tokens / tenant.name, tenant.token)
        lines = [
            "[[tenant]]",
            f"name = {_string(tenant.name)}",
            f"token_file = {_string(f'{TOKENS_DIRECTORY}/{tenant.name}')}",
            f"base_url = {_string(base_url)}",
        ]
        if rate is not None:
            lines.append(f"rate_limit = {_string(rate)}")
        tables.append("\n".join(lines) + "\n")
    path = root / TENANTS_FILE
    path.write_text("\n".join(tables), encoding="utf-8")
    return path


def _write_secret(path: Path, text: str) -> None:
    """Write `text` alone into `path`, readable by its owner only (whatever the umask, and
    whatever the mode of a file already there)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        os.fchmod(descriptor, 0o600)
        file.write(text)


def _string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for these)."""
    return json.dumps(value, ensure_ascii=False)

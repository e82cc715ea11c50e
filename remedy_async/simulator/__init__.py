"""An embedded implementation of the assumed Remedy API, for demos, tests and benchmarks.

    from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

    config = SimulatorConfig(seed=7, size=1000, faults=[FaultSpec("http-503", 0.1)])
    async with Simulator(config) as sim:
        ...  # sim.url, sim.counters, sim.dataset

The contract it serves is written in `remedy_async/openapi.yaml`. From a shell:
`python -m remedy_async.simulator --size 1000 --paging offset`.
"""

from ._arguments import add_serve_arguments, config_from_args, serve
from ._config import (
    ITEMS_KEYS,
    PAGING_SCHEMES,
    RESOURCES,
    ROUTE_NAMES,
    FaultKind,
    FaultSpec,
    SimulatorConfig,
)
from ._counters import SimulatorCounters
from ._dataset import Dataset
from ._server import Simulator

__all__ = [
    "ITEMS_KEYS",
    "PAGING_SCHEMES",
    "RESOURCES",
    "ROUTE_NAMES",
    "Dataset",
    "FaultKind",
    "FaultSpec",
    "Simulator",
    "SimulatorConfig",
    "SimulatorCounters",
    "add_serve_arguments",
    "config_from_args",
    "serve",
]

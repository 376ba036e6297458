"""The Monte Carlo worker plugin (kept apart so that importing ``montecarlo`` needs no Dask)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin

from scenario_builder.mc_bundle import Bundle
from scenario_builder.montecarlo import forget, prepare

__all__ = ["Preload"]


class Preload(WorkerPlugin):
    """:func:`scenario_builder.montecarlo.prepare` as each worker starts (and on the workers
    already there when it is registered), so no replay pays the start-up: the bundle's files
    are written into the worker's scratch folder and the scenario, battlefield, ground view and
    routing graph are loaded once per worker process. The bundle travels inside the plugin (the
    scheduler keeps it for workers that join later). Named by its hash and a token of the run,
    so runs sent to one cluster at once keep a plugin each, even of the same battle."""

    def __init__(self, bundle: Bundle, ruleset: str | None) -> None:
        self.bundle = bundle
        self.ruleset = ruleset
        self.name = f"scenario-builder-preload-{bundle.key[:16]}-{uuid.uuid4().hex[:8]}"

    def setup(self, worker: Any) -> None:
        prepare(self.bundle, Path(worker.local_directory), self.ruleset)

    def teardown(self, worker: Any) -> None:
        forget(self.bundle, Path(worker.local_directory))

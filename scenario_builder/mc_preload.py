"""The Monte Carlo worker plugin (kept apart so that importing ``montecarlo`` needs no Dask)."""

from __future__ import annotations

from typing import Any

from distributed import WorkerPlugin

from scenario_builder.montecarlo import warm

__all__ = ["Preload"]


class Preload(WorkerPlugin):
    """:func:`scenario_builder.montecarlo.warm` as each worker starts (and on the workers
    already there when it is registered), so no replay pays the start-up: the scenario,
    battlefield, ground view and routing graph are loaded once per worker process."""

    name = "scenario-builder-preload"

    def __init__(
        self,
        scenario_path: str,
        battlefield_dir: str,
        ruleset: str | None,
        plans: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.args = (scenario_path, battlefield_dir, ruleset, plans)

    def setup(self, worker: Any) -> None:
        warm(*self.args)

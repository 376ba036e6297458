"""A scenario's battle fought on its ground: the library API behind ``scenario-builder run``.

:func:`build_battlefield` makes (or loads) the ground a scenario names, :func:`fight` fights
it under a ruleset with a seed and returns its :class:`~engine.log.BattleLog` and a summary
(:func:`summarise`), :func:`commanders` gives the sides' generals the way ``run`` picks them.
The CLI, the Monte Carlo replays and ``engine.testing`` all fight through here, so the same
scenario, ruleset and seed give the same log whichever of them ran it.

>>> from engine.scenario import load_scenario
>>> sc = load_scenario("flodden_1513")
>>> log, summary = fight(sc, build_battlefield(sc), seed=7, max_bounds=2)
>>> summary["ruleset"], summary["seed"], summary["bounds"], len(log.bounds) > 1
('2mm-earth-v0.9', 7, 2, True)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.log import BattleLog
    from engine.orders import Commander, ScriptedOrders
    from engine.scenario import Scenario
    from engine.seam import Ruleset
    from engine.terrain import Ground
    from scenario_builder.battlefield import Battlefield

__all__ = [
    "BuiltGround",
    "LoadedBattlefield",
    "build_battlefield",
    "commanders",
    "fight",
    "load_orders",
    "summarise",
]


class BuiltGround(Protocol):
    """A scenario's ground as :func:`build_battlefield` returns it: the battlefield, and how to
    write it to a run folder (a ``BuildResult`` also writes its regions and contours)."""

    @property
    def battlefield(self) -> Battlefield: ...

    def save(self, directory: Path) -> Path: ...


class LoadedBattlefield:
    """A battlefield loaded from disk, shaped like a ``BuildResult`` (``battlefield``, ``save``)."""

    def __init__(self, bf: Battlefield) -> None:
        self.battlefield = bf

    def save(self, directory: Path) -> Path:
        return self.battlefield.save(directory)


def build_battlefield(
    scenario: Scenario, progress: Callable[[str], None] | None = None
) -> BuiltGround:
    """The scenario's ground: a shipped slug, a built battlefield directory, or a DEM to build
    (relative paths are read from the scenario file's folder). ``progress`` is told each
    build stage's name (``scenario_builder.build.STAGES``)."""
    from scenario_builder.battlefield import Battlefield
    from scenario_builder.build import STEP_M, build_from_paths, build_site

    ref = scenario.battlefield
    here = scenario.path.parent if scenario.path is not None else Path(".")

    def rel(p: str) -> Path:
        q = Path(p)
        return q if q.is_absolute() else here / q

    if ref.slug is not None:
        return build_site(
            ref.slug,
            bbox=ref.bbox,
            step=ref.step_m,
            smooth_m=ref.smooth_m,
            significant_streams=ref.significant_streams,
            progress=progress,
        )
    if ref.path is not None:
        return LoadedBattlefield(Battlefield.load(rel(ref.path)))
    assert ref.dem is not None  # BattlefieldRef's validator requires exactly one of the three
    return build_from_paths(
        rel(ref.dem),
        landcover=[rel(p) for p in ([ref.landcover] if ref.landcover else [])],
        overlays=[rel(p) for p in ref.overlays],
        bbox=ref.bbox,
        step=ref.step_m if ref.step_m is not None else STEP_M,
        smooth_m=ref.smooth_m,
        significant_streams=ref.significant_streams or (),
        progress=progress,
    )


def summarise(log: BattleLog, scenario: Scenario) -> dict[str, Any]:
    """What ``summary.json`` holds (JSON values): the scenario, ruleset and seed, the result
    (winner, bounds, reason, losses), each side's bases, the count of each event type and the
    historical outcome to set it against."""
    from engine.rulesets import get_ruleset
    from scenario_builder.losses import counted

    figures = get_ruleset(log.header["ruleset"]).counts_figures
    result = log.result or {}
    counts: dict[str, int] = {}
    for e in log.events():
        counts[e.type] = counts.get(e.type, 0) + 1
    return {
        "scenario": scenario.id,
        "name": scenario.name,
        "ruleset": log.header["ruleset"],
        "seed": log.header["seed"],
        "winner": result.get("winner"),
        "bounds": result.get("bounds"),
        "reason": result.get("reason"),
        "losses": result.get("losses"),
        # killed, wounded and captured as the book tells them apart (and special rule
        # surrender's prisoners): Ruleset.casualties
        "casualties": result.get("casualties"),
        # the same as the sources count them: men of foot and horse, pieces of guns, by kind
        # (scenario_builder.losses)
        **(counted(result, scenario, figures) if "casualties_by_formation" in result else {}),
        # gun bases special rule crews_flee left on the field (pieces, not men): only when any
        **({"guns_abandoned": result["guns_abandoned"]} if "guns_abandoned" in result else {}),
        # as deployed: a figure-counting ruleset's figures where the scenario gives them
        "bases": {s.id: sum(f.deployed(figures)[0] for f in s.formations) for s in scenario.sides},
        "events": dict(sorted(counts.items())),
        "historical_outcome": (
            scenario.historical_outcome.model_dump(mode="json")
            if scenario.historical_outcome is not None
            else None
        ),
    }


def load_orders(
    scenario: Scenario,
    orders: str | Path | ScriptedOrders | None,
    orders_side: str | None,
    ruleset: Ruleset | str | None = None,
) -> ScriptedOrders | None:
    """An orders file (``run --orders FILE``) read by the ruleset (default: the scenario's) and
    checked against the scenario (names, sides) before any ground is built; None without one.
    A script already read is checked and passed through."""
    from engine.rulesets import get_ruleset
    from engine.seam import Ruleset
    from scenario_builder.errors import ScenarioFileError

    if orders is None:
        if orders_side is not None:
            raise ScenarioFileError(
                scenario.path or scenario.id, "--orders-side needs --orders FILE"
            )
        return None
    rs = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset or scenario.ruleset)
    return rs.orders_script(orders, scenario, orders_side)


def commanders(
    scenario: Scenario,
    battlefield: Ground,
    ruleset: Ruleset,
    *,
    orders: str | Path | ScriptedOrders | None = None,
    orders_side: str | None = None,
) -> dict[str, Commander]:
    """The ruleset's automatic commanders for every side; ``orders`` (an orders file or a
    script already read, :func:`load_orders`) scripts some of them, its positions read on
    ``battlefield`` (a ``Battlefield`` or a ruleset's view of one)."""
    chosen: dict[str, Commander] = dict(
        ruleset.automatic_commanders(scenario, ruleset.ground(battlefield))
    )
    script = load_orders(scenario, orders, orders_side, ruleset)
    if script is None:
        return chosen
    chosen.update(ruleset.scripted_commanders(scenario, script, battlefield, orders_side))
    return chosen


def fight(
    scenario: Scenario,
    built: BuiltGround,
    seed: int,
    *,
    ruleset: str | None = None,
    max_bounds: int | None = None,
    orders_file: str | Path | ScriptedOrders | None = None,
    orders_side: str | None = None,
    snapshots: bool = True,
    settle: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[BattleLog, dict[str, Any]]:
    """Fight a loaded scenario on its built ground: ``(BattleLog, summary)``.

    ``ruleset``: a registered name (default: the scenario's). ``orders_file``: an orders file
    or a loaded script (:func:`load_orders`). ``snapshots=False``: the log's bounds keep their
    events but no snapshot (``Battle``'s flag; a Monte Carlo replay, which keeps only the
    result, the same as with them). ``settle``: the process fights this one battle (``run``,
    ``demo``), so what it holds once the armies are deployed is frozen out of the garbage
    collector's walks first (:func:`scenario_builder.heap.freeze_setup`). ``progress(bound,
    limit)`` is told after every bound.
    """
    from engine.battle import Battle
    from engine.dice import Dice
    from engine.rulesets import get_ruleset

    rs = get_ruleset(ruleset or scenario.ruleset)
    chosen = commanders(
        scenario, built.battlefield, rs, orders=orders_file, orders_side=orders_side
    )
    battle = Battle(
        built.battlefield, scenario, Dice(seed), ruleset=rs, commanders=chosen, snapshots=snapshots
    )
    if settle:
        from scenario_builder.heap import freeze_setup

        freeze_setup()
    log = battle.run(max_bounds, progress=progress)
    return log, summarise(log, scenario)

"""``scenario-builder run``: fight a scenario and write its BattleLog.

scenario-builder run flodden_1513 --seed 7 --out out/flodden
scenario-builder run my_scenario.yaml --seed 3 --out out/mine [--max-bounds 30] [--ruleset NAME]

Writes ``DIR/battle_log.json``, ``DIR/summary.json``, ``DIR/battle.gpkg`` and ``DIR/battle.qgs``
(the battle for QGIS: :mod:`maps.battle_gpkg`, :mod:`maps.qgis_project`) and
``DIR/battlefield/`` (the built ground, so ``scenario-builder map DIR`` is self-contained), all
atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from scenario_builder.atomic import atomic_dir, claim_out_dir

from .options import (
    force_option,
    json_option,
    out_dir_option,
    parse_plans,
    plan_option,
    ruleset_option,
    seed_option,
)

__all__ = ["build_battlefield", "fight", "run", "write_run"]


def build_battlefield(scenario: Any) -> Any:
    """The scenario's ground: a shipped slug, a built battlefield directory, or a DEM to build.

    Returns an object with ``battlefield`` and ``save(dir)`` (a ``BuildResult`` or a wrapper).
    """
    from scenario_builder.battlefield import Battlefield
    from scenario_builder.build import build_from_paths, build_site

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
        )
    if ref.path is not None:
        bf = Battlefield.load(rel(ref.path))
        return LoadedBattlefield(bf)
    return build_from_paths(
        rel(ref.dem),
        landcover=[rel(p) for p in ([ref.landcover] if ref.landcover else [])],
        overlays=[rel(p) for p in ref.overlays],
        bbox=ref.bbox,
        **({"step": ref.step_m} if ref.step_m is not None else {}),
        smooth_m=ref.smooth_m,
        significant_streams=ref.significant_streams or (),
    )


class LoadedBattlefield:
    """A battlefield loaded from disk, shaped like a ``BuildResult`` (``battlefield``, ``save``)."""

    def __init__(self, bf: Any) -> None:
        self.battlefield = bf

    def save(self, directory: Path) -> Path:
        return self.battlefield.save(directory)


def summarise(log: Any, scenario: Any) -> dict[str, Any]:
    result = log.result or {}
    events = log.events()
    counts: dict[str, int] = {}
    for e in events:
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
        "bases": {s.id: sum(f.bases for f in s.formations) for s in scenario.sides},
        "events": dict(sorted(counts.items())),
        "historical_outcome": (
            scenario.historical_outcome.model_dump(mode="json")
            if scenario.historical_outcome is not None
            else None
        ),
    }


def load_orders(sc: Any, orders: Any, orders_side: str | None) -> Any:
    """``--orders FILE`` read and checked against the scenario (names, sides) before any ground
    is built; None without --orders. An OrdersScript is passed through."""
    from engine.rulesets.two_mm_earth.scripted import OrdersScript, scripted_sides
    from scenario_builder.errors import ScenarioFileError

    if orders is None:
        if orders_side is not None:
            raise ScenarioFileError(sc.path or sc.id, "--orders-side needs --orders FILE")
        return None
    script = orders if isinstance(orders, OrdersScript) else OrdersScript.load(orders)
    scripted_sides(sc, script, orders_side)  # the checks, on names only
    return script


def _commanders(sc: Any, bf: Any, orders: Any, orders_side: str | None, rs: Any) -> Any:
    """The ruleset's automatic commanders for every side; --orders (2mm Earth's order script, a
    path or a loaded OrdersScript) scripts some of them, its positions read on ``bf``."""
    from engine.rulesets.two_mm_earth.scripted import scripted_commanders

    commanders: dict[str, Any] = dict(rs.automatic_commanders(sc, rs.ground(bf)))
    script = load_orders(sc, orders, orders_side)
    if script is None:
        return commanders
    script.place(bf)
    commanders.update(scripted_commanders(sc, script, bf.to_xy, orders_side))
    return commanders


def fight(
    sc: Any,
    built: Any,
    seed: int,
    *,
    ruleset: str | None = None,
    max_bounds: int | None = None,
    orders_file: Any = None,
    orders_side: str | None = None,
    snapshots: bool = True,
    settle: bool = False,
) -> tuple[Any, dict[str, Any]]:
    """Fight a loaded scenario on its built ground: ``(BattleLog, summary)``. ``orders_file``
    is a path or an OrdersScript (:func:`load_orders`). ``snapshots=False``: the log's bounds
    keep their events but no snapshot (``Battle``'s flag; a Monte Carlo replay, which keeps
    only the result, the same as with them). ``settle``: the process fights this one battle
    (``run``, ``demo``), so what it holds once the armies are deployed is frozen out of the
    garbage collector's walks first (:func:`scenario_builder.heap.freeze_setup`).

    The one way a battle is fought from the CLI (``run``, ``demo``), so the same scenario and
    seed give the same log whichever command ran it.
    """
    from engine.battle import Battle
    from engine.dice import Dice
    from engine.rulesets import get_ruleset

    rs = get_ruleset(ruleset or sc.ruleset)
    commanders = _commanders(sc, built.battlefield, orders_file, orders_side, rs)
    battle = Battle(
        built.battlefield, sc, Dice(seed), ruleset=rs, commanders=commanders, snapshots=snapshots
    )
    if settle:
        from scenario_builder.heap import freeze_setup

        freeze_setup()
    log = battle.run(max_bounds)
    return log, summarise(log, sc)


def write_run(
    directory: Path,
    log: Any,
    summary: dict[str, Any],
    built: Any,
    *,
    scenario: Any = None,
    gpkg: bool = True,
) -> None:
    """Write a run directory: ``battle_log.json``, ``summary.json``, ``battle.gpkg`` and the
    QGIS project ``battle.qgs`` (unless ``gpkg`` is False), ``battlefield/``. ``scenario``
    gives the GeoPackage its date when the log has no clock."""
    # the bytes as made (ASCII JSON): no round trip through a str (engine.log, issue 33)
    (directory / "battle_log.json").write_bytes(log.to_bytes())
    if gpkg:
        from maps.battle_gpkg import GPKG_NAME, Timeline, write_battle_gpkg
        from maps.battlelog import load_battle_log
        from maps.qgis_project import QGS_NAME, write_battle_project

        # read back as every map reads a log: the file is the one source
        read = load_battle_log(directory / "battle_log.json")
        timeline = Timeline.for_log(
            read, getattr(scenario, "date", None), getattr(scenario, "calendar", None)
        )
        write_battle_gpkg(read, directory / GPKG_NAME, timeline=timeline)
        write_battle_project(read, directory / QGS_NAME, timeline, "./battlefield/battlefield.tif")
    (directory / "summary.json").write_text(
        json.dumps(summary, sort_keys=True, indent=2), encoding="utf-8"
    )
    (directory / "battlefield").mkdir()
    built.save(directory / "battlefield")


@click.command("run")
@click.argument("scenario")
@seed_option
@out_dir_option
@force_option
@click.option("--max-bounds", type=click.IntRange(min=1), help="Stop after this many bounds.")
@ruleset_option
@click.option(
    "--orders",
    "orders_file",
    type=click.Path(dir_okay=False),
    help="Scripted orders YAML (bound -> orders) replacing the automatic commander.",
)
@click.option(
    "--orders-side",
    help="Only this side follows --orders (default: every side the file gives orders to).",
)
@plan_option
@json_option
def run(
    scenario: str,
    seed: int,
    out: str,
    force: bool,
    max_bounds: int | None,
    ruleset: str | None,
    orders_file: str | None,
    orders_side: str | None,
    plans: tuple[str, ...],
    as_json: bool,
) -> None:
    """Fight SCENARIO (a path or a shipped scenario id) and write its BattleLog to --out."""
    from rich.console import Console
    from rich.table import Table

    from engine.scenario import load_scenario

    sc = load_scenario(scenario)
    sc.use_plan_files(parse_plans(plans))
    script = load_orders(sc, orders_file, orders_side)  # a bad file fails before the build
    stamp = {"command": "run", "scenario": sc.id}
    claim_out_dir(out, stamp, force=force)
    # the battle is fought inside the writer's claim on --out: a second run into the same
    # folder meanwhile stops with one line rather than silently replacing this one's result
    with atomic_dir(out, stamp=stamp, replace=force) as tmp:
        built = build_battlefield(sc)
        log, summary = fight(
            sc,
            built,
            seed,
            ruleset=ruleset,
            max_bounds=max_bounds,
            orders_file=script,
            orders_side=orders_side,
            settle=True,
        )
        write_run(tmp, log, summary, built, scenario=sc)
    if as_json:
        click.echo(json.dumps(summary, sort_keys=True))
        return
    console = Console()
    if script is not None and script.read_as:
        read = ", ".join(f"{how} ({n})" for how, n in script.read_as.items())
        console.print(f"read --orders positions as {read}", markup=False, highlight=False)
    winner = summary["winner"] or "none"
    console.print(f"[bold]{sc.name}[/bold]  ruleset {summary['ruleset']}, seed {seed}")
    console.print(
        f"Winner: [bold]{winner}[/bold] after {summary['bounds']} bounds ({summary['reason']})"
    )
    table = Table("side", "bases", "lost")
    for s in sc.sides:
        table.add_row(s.name, str(summary["bases"][s.id]), str(summary["losses"][s.id]))
    console.print(table)
    console.print(f"Wrote {Path(out) / 'battle_log.json'}, battle.gpkg and battle.qgs (QGIS)")

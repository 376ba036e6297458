"""``scenario-builder run``: fight a scenario and write its BattleLog.

scenario-builder run flodden_1513 --seed 7 --out out/flodden
scenario-builder run my_scenario.yaml --seed 3 --out out/mine [--max-bounds 30] [--ruleset NAME]

Writes ``DIR/battle_log.json``, ``DIR/summary.json``, ``DIR/battle.gpkg`` and ``DIR/battle.qgs``
(the battle for QGIS: :mod:`maps.battle_gpkg`, :mod:`maps.qgis_project`) and
``DIR/battlefield/`` (the built ground, so ``scenario-builder map DIR`` is self-contained), all
atomically. The battle is :mod:`scenario_builder.battle`'s, the folder
:mod:`scenario_builder.run_folder`'s; this module is the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from scenario_builder.atomic import atomic_dir, claim_out_dir
from scenario_builder.battle import build_battlefield, fight, load_orders
from scenario_builder.cli.progress import progress_bar
from scenario_builder.run_folder import write_run

from .options import (
    force_option,
    json_option,
    out_dir_option,
    parse_plans,
    plan_option,
    ruleset_option,
    seed_option,
)

# ``build_battlefield`` and ``fight`` were imported from here by the README's Python example
# before the library module existed; user scripts written from it keep working
__all__ = ["build_battlefield", "fight", "run"]


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
    # a bad file fails before the build
    script = load_orders(sc, orders_file, orders_side, ruleset)
    stamp = {"command": "run", "scenario": sc.id}
    claim_out_dir(out, stamp, force=force)
    # the battle is fought inside the writer's claim on --out: a second run into the same
    # folder meanwhile stops with one line rather than silently replacing this one's result
    with atomic_dir(out, stamp=stamp, replace=force) as tmp, progress_bar("run") as bar:
        built = build_battlefield(sc, progress=bar.stage)
        log, summary = fight(
            sc,
            built,
            seed,
            ruleset=ruleset,
            max_bounds=max_bounds,
            orders_file=script,
            orders_side=orders_side,
            settle=True,
            progress=bar.count("bound"),
        )
        bar.stage("writing the log, battle.gpkg and battle.qgs")
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

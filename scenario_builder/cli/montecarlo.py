"""``scenario-builder montecarlo``: replay a battle N times on Dask and report the odds.

scenario-builder montecarlo flodden_1513 --runs 100 --out out/mc        # LocalCluster
scenario-builder montecarlo flodden_1513 --runs 1000 --scheduler tcp://host:8786 --out out/mc

Writes ``DIR/summary.json`` (win odds with 95 % Wilson intervals, losses per side, bounds to a
decision, the comparison with the scenario's historical outcome), ``DIR/runs.json`` (one row per
replay: seed, winner, bounds, losses), ``DIR/montecarlo.png`` and ``DIR/battlefield/``.
Replay ``i`` uses seed ``--seed + i``; any of them can be re-run alone with ``run --seed``.
The scenario's files and the battlefield reach the workers through Dask (docs/montecarlo.md).
"""

from __future__ import annotations

import json
import os
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
)


@click.command("montecarlo")
@click.argument("scenario")
@click.option(
    "--runs", type=click.IntRange(min=1), default=50, show_default=True, help="Number of replays."
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes of the local Dask cluster (default and cap: the smaller of "
    "--runs and the CPU count).",
)
@click.option(
    "--scheduler",
    default=None,
    help="Address of a running dask.distributed scheduler (instead of a local cluster); its "
    "workers need only the same package version (docs/montecarlo.md). Checked first: not a "
    "scheduler is one error line and exit 1.",
)
@click.option(
    "--seed",
    "seed0",
    type=int,
    default=1,
    show_default=True,
    help="Seed of the first replay; replay i uses seed + i.",
)
@click.option(
    "--dashboard",
    is_flag=True,
    help="Serve the Dask dashboard of the local cluster (on a free port).",
)
@ruleset_option
@plan_option
@out_dir_option
@force_option
@json_option
def montecarlo(
    scenario: str,
    runs: int,
    workers: int | None,
    scheduler: str | None,
    seed0: int,
    dashboard: bool,
    ruleset: str | None,
    plans: tuple[str, ...],
    out: str,
    force: bool,
    as_json: bool,
) -> None:
    """Replay SCENARIO --runs times with different seeds and report the odds."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
    from rich.table import Table

    from engine.scenario import load_scenario
    from engine.yamlio import recording_reads
    from scenario_builder import montecarlo as mc
    from scenario_builder.battle import build_battlefield, fight
    from scenario_builder.errors import ScenarioError
    from scenario_builder.mc_bundle import pack

    if workers is not None and scheduler is not None:
        raise click.UsageError("give --workers or --scheduler, not both")
    if dashboard and scheduler is not None:
        raise click.UsageError("--dashboard is for the local cluster; a --scheduler has its own")
    console = Console(stderr=True)
    if scheduler is None:
        # the local workers' imports start now, in the background (fixed cost)
        mc.start_worker_server()
    else:
        # first: a wrong address is one line in seconds, before anything is built or written
        from scenario_builder.mc_scheduler import check_scheduler

        check_scheduler(scheduler)
    # Everything a replay could trip on is checked here, before a cluster starts: the scenario,
    # the output folder, the ground, and the deployment (bound 0: units on the map, orders).
    # The files read meanwhile are the ones the workers are sent (mc_bundle).
    with recording_reads() as reads:
        sc = load_scenario(scenario)
        plan_files = tuple((side, str(Path(f).resolve())) for side, f in parse_plans(plans))
        sc.use_plan_files(plan_files)  # read and checked here; every worker reads them again
        if ruleset is not None:
            from engine.rulesets import get_ruleset

            ruleset = get_ruleset(ruleset).name  # an unknown name is a one-line error first
            sc.army(sc.sides[0].id, get_ruleset(ruleset))  # its troop lists exist for it
        stamp = {"command": "montecarlo", "scenario": sc.id}
        claim_out_dir(out, stamp, force=force)
        built = build_battlefield(sc)
        fight(sc, built, seed0, ruleset=ruleset, max_bounds=0)  # every side's troop list
    assert sc.path is not None  # loaded from a file
    n_workers = 0
    if scheduler is None:
        cores = os.cpu_count() or 1
        n_workers = min(runs, cores, workers or cores)
        if workers is not None and workers > n_workers:
            console.print(
                f"--workers {workers}: using {n_workers} (no more than --runs {runs} "
                f"and the {cores} CPU cores; give --scheduler for a larger cluster)"
            )
    sides = [s.id for s in sc.sides]
    outcome = sc.historical_outcome
    historical: dict[str, Any] | None = None if outcome is None else outcome.model_dump(mode="json")
    with atomic_dir(out, stamp=stamp, replace=force) as tmp:
        bf_dir = tmp / "battlefield"
        built.save(bf_dir)
        bundle = pack(sc.path, reads, plan_files, bf_dir)
        progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=as_json or not console.is_terminal,
        )
        with progress:
            task = progress.add_task("replays", total=runs)
            try:
                results, n_workers, wall = mc.run_replays(
                    bundle,
                    range(seed0, seed0 + runs),
                    workers=n_workers,
                    scheduler=scheduler,
                    progress=lambda done, total: progress.update(task, completed=done),
                    dashboard=(lambda link: console.print(f"Dask dashboard: {link}"))
                    if dashboard
                    else None,
                    ruleset=ruleset,
                )
            except OSError as exc:  # a scheduler that cannot be reached
                raise ScenarioError(scheduler or "dask", f"cannot run replays ({exc})") from None
        result = mc.MonteCarloResult(sc.id, results, sides, historical, n_workers, wall)
        with mc.plotting(result, tmp / "montecarlo.png"):  # drawn meanwhile
            (tmp / "summary.json").write_text(json.dumps(result.summary, indent=2, sort_keys=True))
            (tmp / "runs.json").write_text(json.dumps(results, indent=1, sort_keys=True))
    s = result.summary
    if as_json:
        click.echo(json.dumps(s, sort_keys=True))
        return
    out_console = Console()
    under = f" under {ruleset}" if ruleset else ""
    title = f"{sc.name}{under}: {runs} replays"
    table = Table("outcome", "wins", "P", "95 % interval", title=title)
    for name, row in s["win_odds"].items():
        lo, hi = row["ci95"]
        table.add_row(name, str(row["wins"]), f"{row['p']:.2f}", f"{lo:.2f}–{hi:.2f}")
    out_console.print(table)
    losses = Table("side", "mean lost", "median", "5–95 %", "mean share of bases")
    for side, row in s["losses"].items():
        losses.add_row(
            side,
            f"{row['mean']:.1f}",
            f"{row['median']:g}",
            f"{row['p5']:g}–{row['p95']:g}",
            f"{row['mean_fraction']:.0%}",
        )
    out_console.print(losses)
    b = s["bounds"]
    out_console.print(
        f"Bounds to a decision: median {b['median']:g} (5–95 %: {b['p5']:g}–"
        f"{b['p95']:g}); {s['decided_fraction']:.0%} of replays decided"
    )
    hist = s.get("historical")
    if hist:
        verdict = "reproduces" if hist["reproduces_history"] else "does NOT reproduce"
        out_console.print(
            f"Historical winner: {hist['winner']} — won {hist['ci95'][0]:.0%}–"
            f"{hist['ci95'][1]:.0%} of replays (95 %): the engine {verdict} "
            f"history"
        )
        # losses in men (bases x men_per_base) against the sources' bands
        for side, row in (hist.get("losses_in_men") or {}).items():
            if row.get("simulated_men") is None:
                out_console.print(f"  {side}: {row.get('note', 'no band')}")
                continue
            lo, hi = row["band"]
            sim = row["simulated_men"]
            out_console.print(
                f"  {side} lost {sim['median']:,.0f} men (median; 5-95 %: "
                f"{sim['p5']:,.0f}-{sim['p95']:,.0f}) against {lo:,.0f}-{hi:,.0f} "
                f"{'+'.join(row['categories'])} in the sources: "
                f"{row['share_in_band']:.0%} of replays inside"
            )
        ratio = hist.get("loss_ratio")
        if ratio:
            hi = ratio["band"][1]
            out_console.print(
                f"  loss ratio {ratio['of']}: median {ratio['median']:.2f} against "
                f"{ratio['band'][0]:.2f}-{'inf' if hi is None else f'{hi:.2f}'}: "
                f"{ratio['share_in_band']:.0%} of replays inside"
            )
    out_console.print(
        f"{s['runs_per_second']:.2f} replays/s on {n_workers} worker(s); "
        f"wrote {Path(out) / 'summary.json'}, {Path(out) / 'montecarlo.png'}"
    )

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
from pathlib import Path
from typing import Any

import click

from scenario_builder.atomic import atomic_dir

from .options import force_option, json_option, out_dir_option, plan_option, ruleset_option
from .replays import (
    client_tls,
    dashboard_option,
    fight_replays,
    prepare,
    runs_help,
    scheduler_option,
    seed0_option,
    tls_options,
    workers_option,
)


@click.command("montecarlo")
@click.argument("scenario")
@click.option("--runs", type=click.IntRange(min=1), default=50, show_default=True, help=runs_help)
@workers_option
@scheduler_option
@tls_options
@seed0_option
@dashboard_option
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
    tls_ca_file: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
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
    from rich.table import Table

    from scenario_builder import montecarlo as mc

    console = Console(stderr=True)
    with client_tls(scheduler, tls_ca_file, tls_cert, tls_key):
        # Everything a replay could trip on is checked here, before a cluster starts
        prep = prepare(
            "montecarlo",
            scenario,
            runs=runs,
            workers=workers,
            scheduler=scheduler,
            dashboard=dashboard,
            seed0=seed0,
            ruleset=ruleset,
            plans=plans,
            out=out,
            force=force,
            console=console,
        )
        sc, ruleset = prep.scenario, prep.ruleset
        sides = [s.id for s in sc.sides]
        outcome = sc.historical_outcome
        historical: dict[str, Any] | None = (
            None if outcome is None else outcome.model_dump(mode="json")
        )
        with atomic_dir(out, stamp=prep.stamp, replace=force) as tmp:
            results, n_workers, wall = fight_replays(
                prep,
                tmp,
                runs=runs,
                seed0=seed0,
                scheduler=scheduler,
                dashboard=dashboard,
                quiet=as_json,
                console=console,
            )
            result = mc.MonteCarloResult(sc.id, results, sides, historical, n_workers, wall)
            with mc.plotting(result, tmp / "montecarlo.png"):  # drawn meanwhile
                (tmp / "summary.json").write_text(
                    json.dumps(result.summary, indent=2, sort_keys=True)
                )
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
        # every kind apart, in bases, men and pieces (scenario_builder.losses)
        kinds = Table("side", "counted in", "killed", "wounded", "captured", "dispersed")
        for side, row in (s.get("losses_by_kind") or {}).items():
            for unit in ("bases", "men", "pieces"):
                by = row.get(unit)
                if by is None or (unit == "pieces" and not any(v["max"] for v in by.values())):
                    continue
                cells = [
                    f"{by[k]['mean']:,.1f}" if unit == "bases" else f"{by[k]['mean']:,.0f}"
                    for k in ("killed", "wounded", "captured", "dispersed")
                ]
                kinds.add_row(side, f"{unit} (mean)", *cells)
        out_console.print(kinds)
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
                # a total is set against every kind (the dispersed as the sources' missing)
                total = len(row["categories"]) == len(s["losses_by_kind"][side]["bases"])
                what = "in all" if total else "+".join(row["categories"])
                out_console.print(
                    f"  {side} lost {sim['median']:,.0f} men (median; 5-95 %: "
                    f"{sim['p5']:,.0f}-{sim['p95']:,.0f}) against {lo:,.0f}-{hi:,.0f} "
                    f"{what} in the sources: "
                    f"{row['share_in_band']:.0%} of replays inside"
                )
                by_kind = row.get("by_kind") or {}
                for kind, k_row in by_kind.items() if len(by_kind) > 1 else ():
                    lo, hi = k_row["band"]
                    out_console.print(
                        f"    {kind}: median {k_row['simulated_men']['median']:,.0f} against "
                        f"{lo:,.0f}-{hi:,.0f}: {k_row['share_in_band']:.0%} of replays inside"
                    )
            for side, row in (hist.get("guns_in_pieces") or {}).items():
                lo, hi = row["band"]
                if "simulated_pieces" not in row:
                    out_console.print(f"  {side} guns: {row['note']}")
                    continue
                sim = row["simulated_pieces"]
                out_console.print(
                    f"  {side} lost {sim['median']:g} guns (median pieces; 5-95 %: "
                    f"{sim['p5']:g}-{sim['p95']:g}) against {lo:g}-{hi:g} in the sources: "
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

"""``scenario-builder validate``: a battle's replays against the sources and CDB90.

scenario-builder validate flodden_1513 --runs 100 --out out/val
scenario-builder validate flodden_1513 --runs 1000 --scheduler tcp://host:8786 --out out/val

Fights the replays as ``montecarlo`` does (replay ``i`` is seed ``--seed + i``, on a local Dask
cluster or a ``--scheduler``), then prints and writes ``DIR/validation.json`` (the historical
winner's share with its Wilson 95 % interval; each side's losses against the sources' band;
the duration in game time against the sources'; the loss shares against CDB90's envelope and
the battle's own row), ``DIR/validation.png`` and ``DIR/battlefield/`` (docs/validation.md).

Exit status: 0 done; 1 bad input (unknown scenario, unreadable file, unwritable ``--out``: one
line naming it); 2 a bad option value (``--runs 0``).
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

#: the most replays one run takes: validation.json keeps a row per replay and the figure a
#: point per replay (100,000 rows are ~30 MB); a larger study is several runs of seeds
MAX_RUNS = 100_000


@click.command("validate")
@click.argument("scenario")
@click.option(
    "--runs",
    type=click.IntRange(min=1, max=MAX_RUNS),
    default=50,
    show_default=True,
    help=f"{runs_help} At most {MAX_RUNS:,}.",
)
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
def validate(
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
    """Replay SCENARIO --runs times and set the replays against history and CDB90."""
    from rich.console import Console

    from engine.rulesets import get_ruleset
    from scenario_builder import validation as val

    console = Console(stderr=True)
    with client_tls(scheduler, tls_ca_file, tls_cert, tls_key):
        # the shipped CDB90 table first: a broken install is one line before any work
        table = val.load_cdb90()
        prep = prepare(
            "validate",
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
            check=lambda s: _check_cdb90(s, table),
        )
        sc = prep.scenario
        rs = get_ruleset(prep.ruleset or sc.ruleset)
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
            report = val.validate(
                sc, results, ruleset=rs.name, bound_minutes=rs.bound_minutes, table=table
            )
            report["workers"] = n_workers
            report["wall_seconds"] = round(wall, 3)
            (tmp / "validation.json").write_text(json.dumps(report, indent=1, sort_keys=True))
            val.plot(report, val.envelope(table), tmp / "validation.png")
        if as_json:
            click.echo(
                json.dumps({k: v for k, v in report.items() if k != "replays"}, sort_keys=True)
            )
            return
        _print(report, Path(out))


def _check_cdb90(sc: Any, table: Any) -> None:
    """An isqno not in the CDB90 table: said as soon as the scenario is read, before the
    ground is built."""
    from scenario_builder.validation import cdb90_row

    cdb90_row(sc, table)


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f} %"


def _q(q: dict[str, Any], fmt: str = "{:,.0f}", scale: float = 1.0) -> str:
    if q.get("median") is None:
        return "–"
    m, a, b = (fmt.format(scale * q[k]) for k in ("median", "q1", "q3"))
    return f"{m} ({a}–{b})"


def _kinds(by_kind: dict[str, dict[str, Any]]) -> str:
    """Each kind's median: "killed 1,200, wounded 0, captured 600, dispersed 0"."""
    return ", ".join(
        f"{k} {q['median']:,.0f}" for k, q in by_kind.items() if q.get("median") is not None
    )


def _print(r: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    from .options import print_table

    w = r["winner"]
    title = f"{r['name']}: {r['runs']} replays, seeds {r['seeds'][0]}–{r['seeds'][1]}"
    t = Table("measure", "replays: median (quartiles)", "sources", "replays inside", title=title)
    if w.get("historical") is not None or "wins" in w:
        lo, hi = w["ci95"]
        t.add_row(
            f"{w['historical'] or 'draw'} wins (historical winner)",
            f"{w['wins']} of {r['runs']}: {_pct(w['share'])} (Wilson 95 %: {_pct(lo)}–{_pct(hi)})",
            "won",
            "",
        )
    for side, row in r["losses"].items():
        src = row.get("sources")
        # every kind apart, men and pieces separately (scenario_builder.losses)
        for unit, key in (("bases", "lost_bases_by_kind"), ("men", "lost_men_by_kind")):
            if row.get(key):
                t.add_row(f"{side} lost, {unit} by kind", _kinds(row[key]), "", "")
        if row.get("lost_pieces_by_kind") and any(
            q.get("q3") for q in row["lost_pieces_by_kind"].values()
        ):
            t.add_row(f"{side} lost, guns by kind", _kinds(row["lost_pieces_by_kind"]), "", "")
        if "lost_men" in row:
            lo, hi = src["band_men"]
            t.add_row(
                f"{side} lost, men ({'+'.join(row['compared_kinds'])})",
                _q(row["lost_men"]),
                f"{lo:,.0f}–{hi:,.0f}",
                _pct(row["share_in_band"]),
            )
            if len(row["by_kind"]) > 1:  # each kind the sources give, against the same kind
                for kind, k_row in row["by_kind"].items():
                    lo, hi = k_row["band_men"]
                    t.add_row(
                        f"{side} {kind}, men",
                        _q(k_row["lost_men"]),
                        f"{lo:,.0f}–{hi:,.0f}",
                        _pct(k_row["share_in_band"]),
                    )
        elif "note" in row:
            t.add_row(f"{side} lost, men", "–", row["note"], "")
        guns = row.get("guns")
        if guns is not None:
            lo, hi = guns["band_pieces"]
            t.add_row(
                f"{side} guns lost, pieces",
                _q(guns["lost_pieces"], "{:g}") if "lost_pieces" in guns else "–",
                f"{lo:g}–{hi:g}" + (f" ({guns['note']})" if "note" in guns else ""),
                _pct(guns.get("share_in_band")),
            )
    d = r["duration"]
    src_h = d["sources"]
    sources = "–" if src_h is None else f"{src_h['hours'][0]:g}–{src_h['hours'][1]:g} h"
    if "game_minutes" in d:
        t.add_row(
            "duration, game minutes",
            _q(d["game_minutes"], "{:g}"),
            sources
            if src_h is None
            else f"{sources} ({60 * src_h['hours'][0]:g}–{60 * src_h['hours'][1]:g} min)",
            _pct(d.get("share_in_band")) if src_h else "",
        )
    else:
        t.add_row("duration, bounds", _q(d["bounds"], "{:g}"), sources, d["note"])
    c = r["cdb90"]
    env, rep = c["envelope"], c["replays"]
    t.add_row(
        "winner's loss share (CDB90 envelope)",
        _q(rep["winner_loss_share"], "{:.1f} %", 100),
        _q(env["winner_loss_share"], "{:.1f} %", 100),
        f"rank {_pct(rep['winner_median_rank'])}",
    )
    t.add_row(
        "loser's loss share (CDB90 envelope)",
        _q(rep["loser_loss_share"], "{:.1f} %", 100),
        _q(env["loser_loss_share"], "{:.1f} %", 100),
        f"rank {_pct(rep['loser_median_rank'])}",
    )
    t.add_row(
        "loser lost the larger share",
        _pct(rep["loser_lost_larger_share"]),
        _pct(env["loser_lost_larger_share"]),
        f"in quartile box {_pct(rep['inside_quartile_box'])}",
    )
    b = c.get("battle")
    if b is not None:
        for side, row in b["sides"].items():
            t.add_row(
                f"{side} loss share (CDB90 {b['isqno']} {b['name']}, {row['role']})",
                _q(row["replays_loss_share"], "{:.1f} %", 100),
                _pct(row["loss_share"]),
                f"rank {_pct(row['rank_among_replays'])}",
            )
    print_table(t)
    click.echo(
        f"CDB90: {env['battles']} battles, {env['selection']}. "
        "CDB90 Battle Dataset, Jeffrey B. Arnold (after US Army CAA CDB90), odc-by."
    )
    if b is not None and b["note"]:
        click.echo(f"CDB90 {b['isqno']}: {b['note']}")
    click.echo(f"wrote {out / 'validation.json'}, {out / 'validation.png'}")

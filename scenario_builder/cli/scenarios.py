"""``scenario-builder scenarios``: list the shipped scenario ids (what ``run ID`` accepts)."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from .options import id_column, json_option, print_table


@click.command("scenarios")
@json_option
def scenarios(as_json: bool) -> None:
    """List the shipped scenarios: id, battle, date, ruleset and sides."""
    from engine.scenario import load_scenario, shipped_scenario_ids

    rows: list[dict[str, Any]] = []
    for sid in shipped_scenario_ids():
        sc = load_scenario(sid, check_armies=False)
        rows.append(
            {
                "id": sc.id,
                "battle": sc.name,
                "date": sc.date,
                "ruleset": sc.ruleset,
                "ground": sc.battlefield.slug or "own DEM",
                "sides": {s.id: s.name for s in sc.sides},
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    table = Table(title="Shipped scenarios (scenario-builder run ID --out DIR)")
    id_column(table, "id", [r["id"] for r in rows])
    table.add_column("battle")
    table.add_column("date")
    id_column(table, "ruleset", [r["ruleset"] for r in rows])
    id_column(table, "sides", [" v ".join(r["sides"]) for r in rows])
    for r in rows:
        sides = " v ".join(r["sides"])
        table.add_row(r["id"], r["battle"], r["date"] or "-", r["ruleset"], sides)
    print_table(table)

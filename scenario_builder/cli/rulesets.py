"""``scenario-builder rulesets``: the registered rulesets, and for a composed one which book each
part of the game comes from (turn sequence, movement and formations, combat, morale and
command)."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from .options import json_option


@click.command("rulesets")
@click.argument("name", required=False)
@json_option
def rulesets(name: str | None, as_json: bool) -> None:
    """List the rulesets (or describe NAME): phases, terrain classes, scales, composition."""
    from engine.rulesets import available_rulesets, get_ruleset

    names = [get_ruleset(name).name] if name else available_rulesets()
    described: list[dict[str, Any]] = [get_ruleset(n).describe() for n in names]
    if as_json:
        click.echo(json.dumps(described, indent=1, sort_keys=True))
        return
    console = Console(highlight=False)
    for d in described:
        console.print(f"[bold]{d['name']}[/bold]: {d['title']} (d{d['die'][1:]})")
        console.print(f"  phases: {', '.join(d['phases'])}", markup=False)
        comp = d.get("composition")
        if comp:
            table = Table(title=f"{d['name']}: composed of", title_justify="left")
            for col in ("part", "module", "book", "seed"):
                table.add_column(col)
            for row in comp:
                table.add_row(row["part"], row["module"], row["book"], row["seed"])
            console.print(table)
        else:
            console.print(f"  one complete game: {d['title']}", markup=False)

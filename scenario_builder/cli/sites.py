"""``scenario-builder sites``: list the shipped battlefields."""

from __future__ import annotations

import json
import sys

import click
from rich.console import Console
from rich.table import Table

from scenario_builder.sites import list_sites

from .options import json_option


@click.command("sites")
@json_option
def sites(as_json: bool) -> None:
    """List the shipped battlefields (build one with `scenario-builder build SLUG --out DIR`)."""
    rows = list_sites()
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "slug": s.slug,
                        "battle": s.battle,
                        "year": s.year,
                        "center_lonlat": [s.center_lon, s.center_lat],
                        "landcover": bool(s.landcover_paths()),
                        "overlay": bool(s.overlay_paths()),
                    }
                    for s in rows
                ],
                indent=1,
            )
        )
        return
    table = Table(title="Shipped battlefields")
    for col in ("slug", "battle", "year", "centre (lon, lat)", "land cover", "overlay"):
        table.add_column(col)
    for s in rows:
        table.add_row(
            s.slug,
            s.battle or "-",
            "" if s.year is None else str(s.year),
            f"{s.center_lon:.3f}, {s.center_lat:.3f}",
            "yes" if s.landcover_paths() else "-",
            "yes" if s.overlay_paths() else "-",
        )
    Console(file=sys.stdout).print(table)

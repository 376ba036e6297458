"""``scenario-builder sites``: list the shipped battlefields."""

from __future__ import annotations

import json

import click
from rich.table import Table

from scenario_builder.sites import list_sites

from .options import id_column, json_option, print_table


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
    id_column(table, "slug", [s.slug for s in rows])
    for col in ("battle", "year", "centre (lon, lat)", "land cover", "overlay"):
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
    print_table(table)

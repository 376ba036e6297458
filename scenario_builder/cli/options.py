"""Options shared by several subcommands, defined once."""

from __future__ import annotations

import click

out_dir_option = click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, dir_okay=True, writable=True),
    help="Output directory (created; written atomically).",
)
seed_option = click.option(
    "--seed", type=int, default=1, show_default=True, help="Seed of the one random generator."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
